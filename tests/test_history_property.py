"""A property of a page's history listing (`gbrain history`, :func:`gbrain.core.history.versions`)
over random sequences of create, edit, move, delete, restore and revert on a few names, on both
engines: a model records which page (identity) wrote each history row and its text, and after
each sequence, for every name: ``total`` is the rows listed; ``--limit N`` is the start of the
full listing (line counts too); every ``+N -M`` is a recount against the text that page had
before; every listed version's bytes (by number, and counted back from the newest: ``get
--version -k``) are the model's; ``purge SLUG`` of a deleted page (dry run) takes exactly that
page's rows. A review's ad-hoc harness found 22 bad sequences in 150 before the fixes of
2026-12-06 (`_their_gaps`, `_Walk.walk`, `_Walk.first`, `purge._family_rows`).

By design (docs/history.md, `history._their_gaps`): a page written at a name another page left
(deleted or moved away) has the name's history: the other page's versions there are listed as the
name's; each version is counted against its own page's text before it (`history._base_row`: a new
page's first version against nothing; before 2026-12-06 against the version listed before it). The model gives the new page an
identity of its own; ``purge SLUG`` of a name written again while in the trash takes the deleted
page's rows too, under every name it had (`heir_of`; before 2026-12-06 it took only the deleted
page's last stretch there: `test_purge_of_a_name_written_again_after_a_deletion_takes_both_pages_versions`).

Since 2026-12-06 also ``purge --text`` (applied, of a line no current page holds: every version
holding it goes, no other text, a deletion or move away only with its page's last text at the
name; each ``+N -M`` then against its page's newest text left before it), ``restore`` of a name the
page moved away from (restored where it was deleted, else NotFound), ``diff NAME`` without numbers
(the newest's own count) and that a live page's listing
holds every version with text it wrote under any name (a purge of its move in or its restore cut
it from its past: ``history.rejoin_labels``).

Since 2026-12-06 also ``history-prune`` steps (``Model.prune``; before, behind ``GBRAIN_HISTORY_PRUNE=1``:
a prune that kept a move in and dropped its move away, or the reverse, cut a page from its past:
`history._whole_moves`, `_ended_aways`, the plain tests below). ``diff NAME`` of a page's first
version: against nothing (before 2026-12-06 NotFound). ``swap`` steps: two pages exchange names through
``NAME (swapping names)`` (sync's `_swap`); a prune without ``--include-deleted`` leaves the trash listing as it was. A `purge --text` that takes a
page's move in and its whole past before it, left right after another page's deletion at the name,
makes it that page's heir (`_Walk(heir=True)`), as a create there would be: right, and modelled since
2026-12-06 (`create a; create b; create y; edit b; delete y; move b y; revert y 1; purge 'line c2'; delete y`:
`test_purge_slug_of_a_page_whose_move_in_a_purge_took_takes_the_page_deleted_there_before`). A purge of
the rows between a deletion and another page's later create there makes that page the deleted one's heir
alike: modelled (``Model.forget``, found at 2,000 examples).

Since 2026-12-06 also ``conflict`` steps (``Model.conflict``): a conflicting edit of a page on disk and in
the brain, then `sync` of a folder bound on the first such step, making ``NAME.conflict-TS`` (a new page; the
page keeps the file, or, a save sync reads as stale, the brain's version); copies move with their page, are
deleted, restored and reverted, never edited or swapped (sync's `_swappable`), and ``purge SLUG`` of a deleted
page takes its deleted copies (`history.conflict_copies`).

Since 2026-12-06 also: no history label names a move from a name onto itself (``Model.check``), and a
`purge --text` of a round trip gone whole (a → b → a: the stretch at b and the move in back) takes its
move away too (``round_trip`` in ``Model.purge``; before, `move to a` and `move from a` were left:
`history.rejoin_labels`, found by sync, not by these examples).

``GBRAIN_HISTORY_EXAMPLES`` sets the examples on either engine (default 60 on SQLite, 15 on
Postgres), as it does for the other history properties (`tests/test_history.py`, `test_history_refs.py`);
``--hypothesis-seed N`` draws another set (without it the same examples every run: before 2026-12-06
the seed was ignored, ``derandomize`` always on)."""
from __future__ import annotations

import os
import re

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from gbrain import operations as ops
from gbrain.core import history as h
from gbrain.core import purge as purgemod
from gbrain.core.brain import Brain
from gbrain.errors import BadInput, NotFound

NAMES = ["notes/a", "notes/b", "notes/c", "notes/y"]
OPS = ["create", "edit", "move", "delete", "restore", "revert", "purge", "prune", "swap", "conflict"]
STEP = st.tuples(st.sampled_from(OPS), st.integers(0, 3), st.integers(0, 3), st.integers(0, 30))


def _examples(engine: str) -> int:
    return int(os.environ.get("GBRAIN_HISTORY_EXAMPLES", "15" if engine == "postgres" else "60"))


def run(b, name, **args):
    return ops.run(name, args, ops.Context(surface="cli"), brain=b)


class Model:
    """What the brain should hold: ``live`` {name: page id}, ``rows`` {(name, version): (page id,
    text bytes or None, the page's text before the row was written or None)}, ``last`` {page id:
    its latest text (kept through a deletion)}."""

    def __init__(self, b, root=None):
        self.b = b
        self.live: dict[str, int] = {}
        self.rows: dict[tuple[str, int], tuple[int, bytes | None, bytes | None]] = {}
        self.last: dict[int, bytes] = {}
        self.newest: dict[str, tuple[str, int]] = {}  # name → (op, page id) of its newest row
        self.seen = 0  # the last history row id taken into the model
        self.heir_of: dict[int, tuple[int, tuple[str, int]]] = {}  # a page written at a name in the trash → (the page deleted there, its deletion)
        self.n = 0
        self.log: list[str] = []
        self.order: list[tuple[str, int]] = []  # every row as written
        self.purged = False
        self.names = list(NAMES)  # and the temp names swaps passed through, and conflict copies' names
        self.copies: dict[int, int] = {}  # a conflict copy's page id → the page it is a copy of
        self.root = root  # the folder a `conflict` step syncs (None: no such steps)
        self.eng = None

    def _take(self, pid: int, text: bytes | None, base: bytes | None = None, first: bool = False, copies: bool = False, who=None):
        """Attribute the history rows written since the last step to page ``pid``; each row with
        text must hold ``text``; ``base``: the text its line counts are against (default: the
        page's latest; ``first``: none, a page begun again). ``copies``: the page's live conflict
        copies moved with it (`move`: `Brain.move_page`), their rows theirs; ``who(row)``: another
        page's row, ``(page id, text, base)``, or None."""
        c = self.b.conn
        base = None if first else base if base is not None else self.last.get(pid)
        new = c.execute("SELECT id, name, version, op, detail, body_id FROM history WHERE kind = 'page' AND id > ? ORDER BY id", (self.seen,)).fetchall()
        moved = {}
        for r in new:
            p, t, bs = pid, text, base
            d = r["detail"] or ""
            if copies and (r["name"] in self.live and self.live[r["name"]] in self.copies
                           or d.startswith("from ") and d[5:] in self.live and self.live[d[5:]] in self.copies):
                cp = self.live[r["name"] if r["name"] in self.live else d[5:]]
                p, t, bs = cp, self.last[cp], self.last[cp]
                if d.startswith("from "):
                    moved[d[5:]] = r["name"]
            elif who is not None and (w := who(r)) is not None:
                p, t, bs = w
            data = h.body(c, r["body_id"]) if r["body_id"] is not None else None
            if data is not None:
                assert data == t, ("; ".join(self.log), r["name"], r["version"], r["op"])
            self.rows[r["name"], r["version"]] = (p, data, bs)
            if (r["name"], r["version"]) in self.order:  # a number of a name a purge emptied, written again
                self.order.remove((r["name"], r["version"]))
            self.order.append((r["name"], r["version"]))
            self.newest[r["name"]] = (r["op"], p)
            self.seen = r["id"]
        for old, nm in moved.items():  # (a copy moved with its page: its new name)
            self.live[nm] = self.live.pop(old)
            if nm not in self.names:
                self.names.append(nm)
        if text is not None:
            self.last[pid] = text
        return new

    def conflict(self, name: str):
        """A conflicting edit of ``name`` on disk and in the brain (line 3 both sides), then `sync`:
        the page takes the file's text (`conflict: file kept`) and the brain's text is a new page,
        the conflict copy ``NAME.conflict-TS`` beside it (or a save sync reads as stale: the brain's
        version kept, the save in the copy) (its first version counted against nothing;
        the page's copy: `history.conflict_copies`, which `purge SLUG` of the deleted page takes once
        the copy is deleted too). The folder is brought up to date first (a sync of the brain's
        writes since the last one)."""
        from gbrain.sync.engine import SyncEngine

        b, pid = self.b, self.live[name]
        if self.eng is None:
            self.eng = SyncEngine(b, self.root)
            self.eng.bind()
        rep = self.eng.sync()
        assert rep["ok"] and not rep["counts"]["conflicts"], ("; ".join(self.log), rep)

        def kept(r):
            # the note of a page deleted in the brain whose versions a prune took whole (`--include-deleted`: no
            # merge base kept for a deleted page, `history._keep_bases`): the sync removing it keeps its bytes, the
            # history lacking them, in the trash (`kept from the trash`, a page of its own: CLAUDE.md invariant 8)
            if r["op"] == "create" and r["detail"] == "kept from the trash" and r["name"] not in self.live:
                self.n += 1
                return 5000 + self.n, h.body(b.conn, r["body_id"]), None
            if r["op"] == "delete" and self.newest.get(r["name"], ("", 0))[1] >= 5000 and r["name"] not in self.live:
                return self.newest[r["name"]][1], None, None  # (its deletion, written right after)
            raise AssertionError(("; ".join(self.log), "a sync wrote", dict(r)))
        self._take(pid, None, who=kept)
        self.n += 1
        lines = self.last[pid].decode().splitlines(keepends=True)
        disk = "".join(lines[:2] + [f"disk {self.n}\n"] + lines[3:]).encode()
        mine = "".join(lines[:2] + [f"brain {self.n}\n"] + lines[3:]).encode()
        (self.root / f"{name}.md").write_bytes(disk)
        self.log.append(f"conflict {name}")
        run(b, "put", slug=name, content=mine.decode())
        self._take(pid, mine)
        rep = self.eng.sync()
        assert rep["counts"]["conflicts"] == 1, ("; ".join(self.log), rep)
        cp = 1000 + self.n
        c = b.conn
        made = c.execute("SELECT name, body_id FROM history WHERE kind = 'page' AND id > ? AND name != ? ORDER BY id", (self.seen, name)).fetchall()
        assert len(made) == 1 and ".conflict-" in made[0]["name"], ("; ".join(self.log), [tuple(r) for r in made])
        # the page keeps the file's text, the brain's in the copy; or, a save sync reads as stale (made from an
        # older version: `SyncEngine._stale_view`), the brain's version kept, the save in the copy
        kept = h.body(c, made[0]["body_id"])
        # (a copy written at the name of a deleted copy, the same second: that one's heir, as a create there is)
        at = made[0]["name"]
        heir = (self.trashed(at), (at, max(v for nm, v in self.rows if nm == at))) if self.trashed(at) is not None else None
        assert kept in (mine, disk), ("; ".join(self.log), kept)
        self._take(pid, disk if kept == mine else mine, who=lambda r: None if r["name"] == name else (cp, kept, None))  # (a new page: against nothing)
        self.copies[cp] = pid
        if heir is not None:
            self.heir_of[cp] = heir
        self.last[cp] = kept
        self.live[made[0]["name"]] = cp
        self.names.append(made[0]["name"])

    def base_of(self, key: tuple[str, int]):
        """The text ``key``'s ``+N -M`` counts against: its page's text before it (``rows``' third),
        or after a purge took that version, the page's newest text left before it (the rows in the
        order they were written), None for a page's first version left."""
        pid, _text, base = self.rows[key]
        if base is None or not self.purged:
            return base
        order = self.order
        mine = [k for k in order[:order.index(key)] if k in self.rows and self.rows[k][0] == pid and self.rows[k][1] is not None]
        return self.rows[mine[-1]][1] if mine else None

    def trashed(self, name: str) -> int | None:
        """The page whose deletion is ``name``'s newest row (None: none)."""
        op, pid = self.newest.get(name, (None, None))
        return pid if op == "delete" and name not in self.live else None

    def moved_away(self, name: str) -> int | None:
        """The page whose move away is ``name``'s newest row (None: none)."""
        op, pid = self.newest.get(name, (None, None))
        return pid if op == "move" and name not in self.live and self.rows[name, max(v for nm, v in self.rows if nm == name)][1] is None else None

    def step(self, what: str, i: int, j: int, k: int):
        """One step; ``i``, ``j`` pick among the names the step can take (a live page to edit, move
        or delete, a free name to create at or move to, a name in the trash to restore), so that
        few steps are skipped; ``k`` picks an edit's kind or a revert's version."""
        live = sorted(self.live)
        if what in ("edit", "move", "swap", "conflict"):  # (a conflict copy: deleted, restored, reverted, moved with its page)
            live = [nm for nm in live if self.live[nm] not in self.copies]
        free = [nm for nm in NAMES if nm not in self.live]
        trash = [nm for nm in self.names if self.trashed(nm) is not None]
        left = [nm for nm in self.names if self.moved_away(nm) is not None]
        texts = sorted(k for k, row in self.rows.items() if row[1] is not None)
        pick = {"create": free, "edit": live, "move": live, "delete": live, "restore": sorted(trash + left),
                "revert": sorted(live + trash + left), "purge": texts, "prune": texts, "swap": live or free, "conflict": live}[what]
        if not pick:
            return
        if what == "conflict":
            return self.conflict(pick[i % len(pick)]) if self.root is not None else None
        if what == "swap":  # two pages exchange names through a temp name, as sync's `_swap` does (`Plan.swaps`)
            if len(live) < 2:  # (a second page to swap with: two are seldom live)
                self.step("create", j, 0, k)
                live = sorted(nm for nm in self.live if self.live[nm] not in self.copies)
                if len(live) < 2:
                    return
            x, y = live[i % len(live)], [nm for nm in live if nm != live[i % len(live)]][j % (len(live) - 1)]
            if any(self.live[nm] in self.copies and nm.startswith((x + ".conflict-", y + ".conflict-")) for nm in self.live):
                # (sync swaps no page with a conflict copy: `_swappable`; a move takes the copies beside it along, a
                # page deleted there's too: its heir's, `history.page_spans`)
                return
            tmp = f"{x} (swapping names)"
            if tmp not in self.names:
                self.names.append(tmp)
            px, py = self.live[x], self.live[y]
            self.log.append(f"swap {x} {y}")
            for src, dst, pid in ((x, tmp, px), (y, x, py), (tmp, y, px)):
                run(self.b, "move", slug=src, to=dst)
                self._take(pid, self.last[pid])
            self.live[x], self.live[y] = py, px
            return
        if what == "purge":
            return self.purge(pick[(i * 7 + k) % len(pick)], j)
        if what == "prune":
            return self.prune(pick[i % len(pick)][0] if j % 2 else None, 1 + k % 3, k % 2 == 1)
        name = pick[i % len(pick)]
        others = [nm for nm in free if nm != name]
        other = others[j % len(others)] if others else name
        self.n += 1
        b = self.b
        if what == "create":
            if name in self.live:
                return
            # a new page; by design a create at a name in the trash continues the name's history
            # (not the deleted page's other names); `purge` of it takes the deleted page's rows too
            pid = 1000 + self.n
            if self.trashed(name) is not None:
                self.heir_of[pid] = (self.trashed(name), (name, max(v for nm, v in self.rows if nm == name)))
            text = f"# {name} {self.n}\n\nline c{self.n}\n".encode()
            self.log.append(f"create {name}")
            # (if_hash '': a new page, never the page that moved away from the name: `put`'s `_renamed_target`)
            run(b, "put", slug=name, content=text.decode(), if_hash="")
            self.live[name] = pid
            # a new page's first version counts against nothing, in every listing it is in (`_base_row`;
            # before 2026-12-06 against the other page's text listed before it at the name)
            self._take(pid, text, None)
        elif what == "edit":
            if name not in self.live:
                return
            pid = self.live[name]
            lines = self.last[pid].decode().splitlines(keepends=True)
            if k % 3 == 0 and len(lines) > 3:
                del lines[2 + k % (len(lines) - 2)]  # drop a line below the title
            else:
                lines.append(f"- e{self.n}\n")
            text = "".join(lines).encode()
            self.log.append(f"edit {name}")
            run(b, "put", slug=name, content=text.decode())
            self._take(pid, text)
        elif what == "move":
            if name not in self.live or other in self.live or other == name:
                return
            pid = self.live.pop(name)
            self.log.append(f"move {name} {other}")
            run(b, "move", slug=name, to=other)
            self.live[other] = pid
            self._take(pid, self.last[pid], copies=True)
        elif what == "delete":
            if name not in self.live:
                return
            pid = self.live.pop(name)
            self.log.append(f"delete {name}")
            run(b, "delete", slug=name)
            self._take(pid, None)
        elif what == "restore":
            pid, at = self.trashed(name), name
            if pid is None:
                # a name the page moved away from: restored where it was deleted (its name free since);
                # live elsewhere, or deleted at a name another page took since: nothing in the trash
                pid = self.moved_away(name)
                at = next((nm for nm in self.names if self.trashed(nm) == pid), None)
                if at is None:
                    self.log.append(f"restore {name} (refused)")
                    with pytest.raises(NotFound):
                        run(b, "restore", slug=name)
                    return
            self.log.append(f"restore {name}")
            run(b, "restore", slug=name)
            self.live[at] = pid
            self._take(pid, self.last[pid])
        elif what == "revert":
            pid = self.live.get(name) or self.trashed(name) or self.moved_away(name)
            if pid is None:
                return
            own = sorted(v for (nm, v), row in self.rows.items() if nm == name and row[1] is not None)
            if not own:
                return
            to = own[k % len(own)]
            text = self.rows[name, to][1]
            self.log.append(f"revert {name} {to}")
            at, begun = name, False
            if name not in self.live and self.trashed(name) is None:
                # a name the page moved away from: the page where it is now, or where it was deleted
                # (its name free since); deleted at a name another page took since: refused
                at = next((nm for nm, p in self.live.items() if p == pid), None) or next((nm for nm in self.names if self.trashed(nm) == pid), None)
                label = b.conn.execute("SELECT detail FROM history WHERE kind = 'page' AND name = ? ORDER BY version DESC LIMIT 1", (name,)).fetchone()[0]
                if at is None and not label.startswith("to "):
                    # its later names purged whole (`renamed to a purged name`, `purge._relabel`): it comes back
                    # here, a page begun again (a create after a move away: counted against nothing); since
                    # 2026-12-06 a text purge makes such a move away the page's deletion (`_ended_aways`: the
                    # trash at this name, its past here), so only a move away whose later stretch ended otherwise
                    at, begun = name, True
                if at is None:
                    with pytest.raises(BadInput):
                        run(b, "revert", slug=name, to=to)
                    return
            run(b, "revert", slug=name, to=to)
            self.live[at] = pid
            self._take(pid, text, first=begun)

    def purge(self, key: tuple[str, int], j: int):
        """``purge --text`` (applied) of one line a version holds below its title: refused while a
        current page holds it; else every version holding it goes, no other version with text, and a
        deletion or move away goes only with all its page's text before it at the name
        (``purge._emptied_ends``), never leaving one whose stretch is empty."""
        # a line a version holds below its title, one no current page holds when there is one (applied, not refused)
        lines = [ln for ln in self.rows[key][1].decode().splitlines(keepends=True)[1:] if ln.strip()]
        free = [ln for ln in lines if not any(ln.encode() in self.last[pid] for pid in self.live.values())]
        lines = free or lines
        if not lines:
            return
        needle = lines[j % len(lines)]
        c = self.b.conn
        self.log.append(f"purge {needle!r}")
        holders = [nm for nm, pid in self.live.items() if needle.encode() in self.last[pid]]
        if holders:
            with pytest.raises(BadInput):
                purgemod.purge(self.b, text=needle, apply=True)
            return
        labels = {(r[0], r[1]): (r[2], r[3] or "") for r in c.execute("SELECT name, version, op, detail FROM history WHERE kind = 'page'")}
        before = set(labels)
        purgemod.purge(self.b, text=needle, apply=True)
        after = {(r[0], r[1]) for r in c.execute("SELECT name, version FROM history WHERE kind = 'page'")}
        gone = before - after
        why = "; ".join(self.log)
        for k, (pid, text, _b) in self.rows.items():
            if text is not None:
                assert (needle.encode() in text) == (k in gone), (why, k)

        def round_trip(k) -> bool:
            # a move away whose page's rows after it all went up to its first one left, back at the name with text
            # (a → b → a gone whole: the move away goes too, `history.rejoin_labels`)
            if labels[k][0] != "move" or not labels[k][1].startswith("to "):
                return False
            pid = self.rows[k][0]
            for k2 in self.order[self.order.index(k) + 1:]:
                if k2 in self.rows and self.rows[k2][0] == pid and k2 not in gone:
                    return k2[0] == k[0] and self.rows[k2][1] is not None
            return False

        for nm in {k[0] for k in self.rows}:
            stretch = []
            for v in sorted(v for n2, v in self.rows if n2 == nm):
                if self.rows[nm, v][1] is not None:
                    stretch.append((nm, v))
                    continue
                left = [k for k in stretch if k not in gone]
                # a deletion or move away goes with its page's last text at the name, and only then (or a round trip's)
                assert ((nm, v) in gone) == (not left or round_trip((nm, v))), (why, nm, v, "emptied end")
                stretch = []
        self.forget(gone)

    def prune(self, name: str | None, keep: int, deleted: bool):
        """``history-prune [NAME] --keep-last KEEP --keep-days 0 [--include-deleted]`` (applied): a
        live page's current text stays; what goes leaves the model, each ``+N -M`` then against the
        page's newest text left before it (a renamed page's move in pruned: ``history.rejoin_labels``)."""
        c = self.b.conn
        self.log.append(f"prune {name} {keep} {deleted}")
        before = {(r[0], r[1]) for r in c.execute("SELECT name, version FROM history WHERE kind = 'page'")}
        trash = h.trash_list(self.b, limit=0)
        h.prune(self.b, 0, keep, apply=True, include_deleted=deleted, key=("page", name) if name else None)
        if not deleted:  # the trash as it was
            assert h.trash_list(self.b, limit=0) == trash, "; ".join(self.log)
        gone = before - {(r[0], r[1]) for r in c.execute("SELECT name, version FROM history WHERE kind = 'page'")}
        for nm, pid in self.live.items():
            newest = max(v for n2, v in self.rows if n2 == nm)
            assert (nm, newest) not in gone, ("; ".join(self.log), nm)
        self.forget(gone)

    def forget(self, gone: set):
        """Take the rows a purge or a prune dropped out of the model."""
        c = self.b.conn
        for k in gone:
            self.rows.pop(k, None)
        self.purged = True
        self.last = {}  # a deleted page's latest text left: what restore brings back
        for k in self.order:
            if k in self.rows and self.rows[k][1] is not None:
                self.last[self.rows[k][0]] = self.rows[k][1]
        # a tie to a page deleted at a name holds while the next row left there after the deletion is the
        # heir's: its rows there all gone (its create and its move on, purged), nothing left says it was
        # written there (SQLite seed 505: the model kept the tie, `purge._family_rows` rightly did not)
        for c_pid, (p_pid, (nm, pv)) in list(self.heir_of.items()):
            nxt = min((v for n2, v in self.rows if n2 == nm and v > pv), default=None)
            if (nm, pv) in self.rows and (nxt is None or self.rows[nm, nxt][0] != c_pid):
                del self.heir_of[c_pid]
        # a page created at a name whose row before it is now another page's deletion (the rows
        # between went) is that page's heir, as a create at a name in the trash is (`_Walk(heir=True)`)
        for nm in {k[0] for k in self.rows}:
            vs = sorted(v for n2, v in self.rows if n2 == nm)
            for pv, cv in zip(vs, vs[1:]):
                (p_pid, _t, _b), (c_pid, _t2, _b2) = self.rows[nm, pv], self.rows[nm, cv]
                if p_pid == c_pid or (c_pid in self.heir_of and self.heir_of[c_pid][1] in self.rows):
                    continue
                ops_ = dict(c.execute("SELECT version, op FROM history WHERE kind = 'page' AND name = ? AND version IN (?, ?)", (nm, pv, cv)).fetchall())
                # (or any first row left of its page but a move in: its move in and past purged, it reads as written there)
                first = all(k[0] == nm and k[1] >= cv for k in self.rows if self.rows[k][0] == c_pid)
                if ops_.get(pv) == "delete" and (ops_.get(cv) == "create" or (first and ops_.get(cv) != "move")):
                    self.heir_of[c_pid] = (p_pid, (nm, pv))
        self.newest = {}
        for nm, v in self.order:
            if (nm, v) in self.rows:
                op = c.execute("SELECT op FROM history WHERE kind = 'page' AND name = ? AND version = ?", (nm, v)).fetchone()[0]
                self.newest[nm] = (op, self.rows[nm, v][0])

    def check(self):
        b = self.b
        # no label names a move from a name onto itself (a purge's round trip a → b → a: `history.rejoin_labels`)
        own = b.conn.execute("SELECT name, version, op, detail FROM history WHERE kind = 'page' AND (detail = 'to ' || name "
                             "OR detail = 'from ' || name OR detail = 'moved to ' || name)").fetchall()
        assert not own, ("; ".join(self.log), [tuple(r) for r in own])
        for name in self.names:
            if not any(nm == name for nm, _ in self.rows):
                continue
            why = ("; ".join(self.log), name)
            full = h.versions(b, name, limit=0)
            key, listed = full["name"], full["versions"]
            assert full["total"] == len(listed), why
            for n in range(1, len(listed) + 1):
                part = h.versions(b, name, limit=n)
                assert part["total"] == full["total"], (why, n)
                assert part["versions"] == listed[:n], (why, n)
            with_text = 0
            for v in listed:
                nm = v.get("name", key)
                pid, text, _base = self.rows[nm, v["version"]]
                base = self.base_of((nm, v["version"]))
                what = (why, nm, v["version"], v["op"])
                if v["content_hash"] is None:
                    assert text is None and (v["added"], v["removed"]) == (0, 0), what
                    continue
                assert h.version_bytes(b, "page", nm, v["version"]) == text, what
                # `get --version -k`: the k-th version with text the listing shows
                assert h.version_bytes(b, "page", key, -with_text if with_text else None) == text, (what, -with_text)
                with_text += 1
                # against the text its own page had before, whatever the listing (`_base_row`)
                assert (v["added"], v["removed"]) == h._line_delta(base, text), what
            if name in self.live:  # every version of the page, under every name it had, is listed (each move once: its move in)
                mine = {k for k, row in self.rows.items() if row[0] == self.live[name] and row[1] is not None}
                assert mine <= {(v.get("name", key), v["version"]) for v in listed}, (why, sorted(mine))
            newest = next((v for v in listed if v["content_hash"] is not None), None)
            if newest is not None and newest is listed[0]:
                # `diff NAME`: the newest against the version its `+N -M` counts against (none: against nothing)
                base = self.base_of((newest.get("name", key), newest["version"]))
                d = h.diff(b, name)
                assert (d["added"], d["removed"]) == (newest["added"], newest["removed"]) and (d["from"] is None) == (base is None), why
            pid = self.trashed(name)
            if pid is not None:
                _, items = purgemod.plan(b, key=("page", name))
                family = {pid}
                # the pages deleted at a name this one (or its forebear) was written at, while that deletion is left
                # (a prune of the name's older rows takes it, and the tie: `_Walk(heir=True)` reads it)
                while pid in self.heir_of and self.heir_of[pid][1] in self.rows:
                    pid = self.heir_of[pid][0]
                    family.add(pid)
                # and its conflict copies deleted since (`history.conflict_copies`: a copy still in the brain is left)
                # (a deleted copy whose name a later copy took, live: that one's, `purge` refuses while it is current)
                family |= {cp for cp, p in self.copies.items() if p in family and cp not in self.live.values()
                           and not any(k[0] in self.live for k, row in self.rows.items() if row[0] == cp)}
                mine = {k for k, row in self.rows.items() if row[0] in family}
                assert {(x["name"], x["version"]) for x in items} == mine, why


def test_history_listing_matches_a_model_of_who_wrote_each_version(db_path, tmp_path, engine, request, monkeypatch):
    from conftest import new_pg_brain, new_sqlite_brain

    monkeypatch.setattr(purgemod, "compact", lambda c: True)  # (no VACUUM per example: what the history keeps is what counts here)

    pg = engine == "postgres"
    template = request.getfixturevalue("pg_brain_template" if pg else "sqlite_brain_template")
    admin = request.getfixturevalue("pg_server") if pg else None
    count = [0]
    seed = request.config.getoption("hypothesis_seed", None)  # (given: that seed's examples; else the same ones every run)

    @settings(max_examples=_examples(engine), deadline=None, derandomize=seed is None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(st.lists(STEP, min_size=3, max_size=16))
    # (after the create of notes/a: what a broken history.py was shrunk to, that the default
    # examples may not reach)
    @example([("create", 0, 0, 0), ("move", 0, 0, 0), ("move", 0, 0, 0)]).via("_their_gaps: another page moved in")
    @example([("move", 0, 0, 0), ("edit", 0, 0, 1), ("move", 0, 0, 0), ("delete", 0, 0, 0), ("create", 0, 0, 0)]).via(
        "before 11015cd0: a page moved a→b→a, deleted and written again at a lost b's versions")
    @example([("edit", 0, 0, 1), ("move", 0, 0, 0), ("edit", 0, 0, 3), ("purge", 0, 0, 1)]).via(
        "before 2026-12-06: a purge of a renamed page's move in cut it from its old names (history.rejoin_labels)")
    @example([("edit", 0, 0, 1), ("delete", 0, 0, 0), ("restore", 0, 0, 0), ("edit", 0, 0, 3), ("purge", 0, 0, 1)]).via(
        "before 2026-12-06: a purge of a restore cut the page from its past before the deletion (history.rejoin_labels)")
    @example([("create", 0, 0, 0), ("edit", 0, 0, 0), ("edit", 0, 0, 0), ("delete", 0, 0, 0), ("create", 0, 0, 0), ("move", 0, 0, 0), ("revert", 0, 0, 0),
              ("create", 0, 0, 0), ("create", 0, 0, 0), ("delete", 0, 0, 0), ("purge", 2, 0, 1)]).via(
        "the model, found at 2,000 examples: a purge of the rows between a deletion and a later page's create made it the deleted page's heir")
    @example([("conflict", 0, 0, 0), ("conflict", 0, 0, 0), ("delete", 0, 0, 0), ("delete", 0, 0, 0), ("prune", 0, 0, 0)]).via(
        "seed 13: a prune of the page's texts cut it from its deleted conflict copy (history._copy_in_stretch)")
    @example([("conflict", 0, 0, 0), ("edit", 0, 0, 0), ("delete", 3, 0, 0), ("delete", 0, 0, 0), ("prune", 0, 0, 1)]).via(
        "Postgres seed 4: the same, the copy deleted first")
    @example([("swap", 0, 0, 0), ("conflict", 1, 0, 0), ("delete", 0, 0, 0), ("prune", 0, 0, 1)]).via(
        "seed 15: a merge base's version kept, its move away pruned: the page written there since joined it (history._whole_moves)")
    @example([("create", 0, 0, 0), ("conflict", 0, 0, 0), ("delete", 0, 0, 0), ("prune", 0, 0, 15), ("conflict", 0, 0, 0)]).via(
        "the model, seed 404: a sync removing the note of a page a prune took whole from the trash keeps its bytes there")
    @example([("edit", 0, 0, 1), ("move", 0, 0, 0), ("move", 0, 0, 0), ("edit", 0, 0, 3), ("delete", 0, 0, 0), ("purge", 0, 1, 1)]).via(
        "before 2026-12-06: a purge of a round trip a → b → a left `move to a` and `move from a` (history.rejoin_labels)")
    def prop(steps):
        count[0] += 1
        root = tmp_path / f"v{count[0]}"  # the folder a `conflict` step syncs
        root.mkdir()
        if pg:
            with new_pg_brain(admin, template) as url, Brain.open(url) as b:
                _one(b, steps, root)
        else:
            with Brain.open(new_sqlite_brain(template, tmp_path / f"b{count[0]}.db")) as b:
                _one(b, steps, root)

    prop()


def _one(b, steps, root=None):
    m = Model(b, root)
    try:
        for s in [("create", 0, 0, 0), *steps]:  # (a page to begin with: few steps are skipped)
            m.step(*s)
        m.check()
    finally:
        if m.eng is not None:
            m.eng.close()
    if os.environ.get("GBRAIN_HISTORY_STATS"):
        print("steps", len(steps), "done", len(m.log), "rows", len(m.rows), "purges", sum(x.startswith("purge") for x in m.log), "swaps", sum(x.startswith("swap") for x in m.log), "conflicts", sum(x.startswith("conflict") for x in m.log))


def test_purge_of_a_name_written_again_after_a_deletion_takes_both_pages_versions(db_path):
    with Brain.open(db_path) as b:
        run(b, "put", slug="notes/a", content="# a\n\nsecret one\n", if_hash="")
        run(b, "move", slug="notes/a", to="notes/b")
        run(b, "put", slug="notes/b", content="# a\n\nsecret one\n- edited\n")
        run(b, "move", slug="notes/b", to="notes/a")
        run(b, "delete", slug="notes/a")
        run(b, "put", slug="notes/a", content="# a again\n", if_hash="")  # a new page at the deleted name
        run(b, "delete", slug="notes/a")
        _, items = purgemod.plan(b, key=("page", "notes/a"))
        # today: notes/a v3-v6 only; notes/a v1-v2 and notes/b v1-v3 (the first page's text) are left
        assert {(x["name"], x["version"]) for x in items} == {("notes/a", v) for v in range(1, 7)} | {("notes/b", v) for v in range(1, 4)}


def _replay(b, steps, log: str, root=None):
    """The model through ``steps`` (after the create of notes/a), its log ``log`` (a conflict copy's
    name cut at ``.conflict-``), then checked; ``root``: the folder `conflict` steps sync."""
    m = Model(b, root)
    try:
        for s in [("create", 0, 0, 0), *steps]:
            m.step(*s) if s[0] != "purge_at" else m.purge(s[1], s[2])
        assert re.sub(r"\.conflict-[^;\s]+", ".conflict-", "; ".join(m.log)) == log
        m.check()
    finally:
        if m.eng is not None:
            m.eng.close()
    return m


# history-prune sequences the property found (GBRAIN_HISTORY_PRUNE=1, 2026-12-06), before `history._whole_moves`
@pytest.mark.parametrize("steps, log", [
    # b's kept move in counted against a's later text: a's move away was pruned, the later one taken for it
    ([("move", 0, 0, 0), ("move", 0, 0, 0), ("prune", 0, 0, 0), ("move", 0, 0, 0)],
     "create notes/a; move notes/a notes/b; move notes/b notes/a; prune None 1 False; move notes/a notes/b"),
    ([("move", 0, 0, 0), ("move", 0, 0, 0), ("move", 0, 0, 0), ("prune", 0, 3, 0)],  # a prune of the one name
     "create notes/a; move notes/a notes/b; move notes/b notes/a; move notes/a notes/b; prune notes/a 1 False"),
    # b's second move in pruned, its first version left relabelled the move in: `revert a` took b's first move in, nearer
    # by id, for it (`_moved_on`), and began a new page at a
    ([("move", 0, 0, 0), ("move", 0, 0, 0), ("move", 0, 0, 0), ("edit", 0, 0, 0), ("edit", 0, 0, 0), ("prune", 0, 0, 0), ("revert", 0, 0, 0)],
     "create notes/a; move notes/a notes/b; move notes/b notes/a; move notes/a notes/b; edit notes/b; edit notes/b; prune None 1 False; revert notes/a 1"),
    # b's move in and deletion pruned, its restore kept: b's history began at the restore, cut from a
    ([("move", 0, 0, 0), ("delete", 0, 0, 0), ("restore", 0, 0, 0), ("prune", 0, 0, 0)],
     "create notes/a; move notes/a notes/b; delete notes/b; restore notes/a; prune None 1 False"),
    # ... and its restore too: b's history began at the edit (`history.rejoin_labels` through the deletion)
    ([("move", 0, 0, 0), ("delete", 0, 0, 0), ("restore", 0, 0, 0), ("edit", 0, 0, 0), ("prune", 0, 0, 0)],
     "create notes/a; move notes/a notes/b; delete notes/b; restore notes/a; edit notes/b; prune None 1 False"),
    # a deletion whose page's versions at the name were pruned stayed: a trash entry of nothing, restore refused
    ([("delete", 0, 0, 0), ("prune", 0, 0, 21), ("restore", 0, 0, 0)], "create notes/a; delete notes/a; prune None 1 True"),
    ([("move", 0, 0, 0), ("delete", 0, 0, 0), ("prune", 0, 0, 9)], "create notes/a; move notes/a notes/b; delete notes/b; prune None 1 True"),
    # ... a deletion of nothing left at a that a later purge takes (its "emptied end")
    ([("delete", 0, 0, 0), ("revert", 0, 0, 0), ("edit", 0, 0, 0), ("prune", 0, 0, 8), ("delete", 0, 0, 0), ("purge_at", ("notes/a", 4), 1)],
     "create notes/a; delete notes/a; revert notes/a 1; edit notes/a; prune None 3 False; delete notes/a; purge '- e4\\n'"),
    # b's whole stretch, deletion too, pruned: a's move away named nothing of it (`history._ended_aways`: its deletion)
    ([("move", 0, 0, 0), ("delete", 0, 0, 0), ("prune", 3, 3, 3), ("revert", 0, 0, 0)],
     "create notes/a; move notes/a notes/b; delete notes/b; prune notes/b 1 True; revert notes/a 1"),
    ([("edit", 0, 0, 0), ("move", 0, 0, 0), ("delete", 0, 0, 0), ("purge_at", ("notes/b", 1), 1), ("revert", 0, 0, 0)],
     "create notes/a; edit notes/a; move notes/a notes/b; delete notes/b; purge '- e2\\n'; revert notes/a 1"),
    # a swap's temp name's move away to a page deleted there, the name taken since: its move in pruned, its kept
    # deletion then too (its stretch empty), the move away made a deletion: a trash entry a prune without --include-deleted added
    ([("swap", 0, 2, 0), ("delete", 0, 0, 0), ("delete", 0, 0, 0), ("create", 3, 0, 0), ("prune", 0, 0, 28)],
     "create notes/a; create notes/y; swap notes/a notes/y; delete notes/a; delete notes/y; create notes/y; prune None 2 False"),
    ([("move", 0, 0, 0), ("edit", 0, 0, 0), ("delete", 0, 0, 0), ("prune", 2, 1, 21), ("revert", 0, 0, 0), ("move", 0, 0, 0)],
     "create notes/a; move notes/a notes/b; edit notes/b; delete notes/b; prune notes/b 1 True; revert notes/a 1; move notes/a notes/b"),
])
def test_a_prune_keeps_a_page_one_history(db_path, steps, log):
    """(And one `purge` sequence the same runs found: a page whose later names a purge took whole,
    its move away relabelled `renamed to a purged name`: `revert OLD` brought it back at OLD, a page
    begun again, counted against nothing; the model expected a refusal. Since 2026-12-06 the move
    away becomes its deletion, `history._ended_aways`: in the trash at OLD, brought back as the same
    page, `test_forget.py::test_a_text_purge_of_every_later_name_of_a_deleted_page_leaves_it_in_the_trash_at_its_old_name`.)"""
    with Brain.open(db_path) as b:
        _replay(b, steps, log)


def test_a_prune_without_include_deleted_keeps_the_end_of_a_page_moved_away_and_deleted_at_a_name_taken_since(db_path):
    """notes/a moved to notes/b, deleted there, a new page written at notes/b: a prune of notes/b's
    older versions took the first page's move in and deletion, and a's move away named nothing of
    it: `revert notes/a` began a new page at a. Without --include-deleted they stay (and the trash,
    which never listed the page, as it was: no deletion made of the move away)."""
    with Brain.open(db_path) as b:
        m = _replay(b, [("move", 0, 0, 0), ("delete", 0, 0, 0), ("create", 1, 0, 0), ("prune", 0, 0, 0)],
                    "create notes/a; move notes/a notes/b; delete notes/b; create notes/b; prune None 1 False")
        assert h.trash_list(b) == []
        m.step("revert", 0, 0, 0)  # refused: deleted at a name another page took since
        assert m.log[-1] == "revert notes/a 1"
        m.check()


def test_a_page_moved_from_where_it_was_restored_whose_stretch_there_is_purged_stays_one_page(db_path):
    """notes/a deleted, restored, moved to notes/b; a purge of a line only the restored stretch at a
    held took the restore, the move away and b's move in: a was left in the trash (`restore a`,
    `purge notes/a` took the live page's past) and b's history began at its edit, cut from a. The
    deletion left becomes the move away (`history.rejoin_labels`)."""
    with Brain.open(db_path) as b:
        m = _replay(b, [("edit", 0, 0, 1), ("delete", 0, 0, 0), ("restore", 0, 0, 0), ("move", 0, 0, 0), ("edit", 0, 0, 3),
                        ("purge_at", ("notes/a", 2), 1)],
                    "create notes/a; edit notes/a; delete notes/a; restore notes/a; move notes/a notes/b; edit notes/b; purge '- e2\\n'")
        assert m.trashed("notes/a") is None and h.trash_list(b) == []
        assert [(v.get("name"), v["version"], v["op"]) for v in h.versions(b, "notes/b", limit=0)["versions"]] == [
            (None, 2, "move"), ("notes/a", 1, "create")]  # (each move listed once: its move in)
        with pytest.raises(NotFound):
            run(b, "restore", slug="notes/a")
        assert run(b, "revert", slug="notes/a", to=1)["slug"] == "notes/b"  # onto the page where it is


def test_purge_slug_of_a_page_whose_move_in_a_purge_took_takes_the_page_deleted_there_before(db_path):
    """The docstring's edge, once "not modelled": page b moved onto notes/y while y's own page was in
    the trash, reverted there to y's v1 (the deleted page's text), then `purge --text` of b's first
    line took b's versions and its move in, and b was deleted at y. What is left at y reads as a page
    written at y while the other was in the trash (its first version left an `update` right after that
    deletion, nothing of its past before), and holds that page's text again: `purge notes/y` takes
    both, as a create there would be (`history.page_spans`, `_Walk.head_after`: over-reach is a
    purge's safe side; leaving y v1 would leave the bytes of y v4, the version purged). Modelled
    (``Model.forget``: a page's first row left right after another page's deletion, no move in)."""
    with Brain.open(db_path) as b:
        _replay(b, [("create", 0, 0, 0), ("create", 1, 0, 0), ("edit", 1, 0, 1), ("delete", 2, 0, 0), ("move", 1, 1, 0),
                    ("revert", 2, 0, 0), ("purge_at", ("notes/b", 1), 0), ("delete", 1, 0, 0)],
                "create notes/a; create notes/b; create notes/y; edit notes/b; delete notes/y; move notes/b notes/y; "
                "revert notes/y 1; purge 'line c2\\n'; delete notes/y")


# sequences with conflict copies seeds 13 and 15 (SQLite) and 4 (Postgres) found, 2026-12-06
@pytest.mark.parametrize("steps, log", [
    ([("conflict", 0, 0, 0), ("conflict", 0, 0, 0), ("delete", 0, 0, 0), ("delete", 0, 0, 0), ("prune", 0, 0, 0)],
     "create notes/a; conflict notes/a; conflict notes/a; delete notes/a; delete notes/a.conflict-; prune None 1 False"),
    ([("conflict", 0, 0, 0), ("edit", 0, 0, 0), ("delete", 3, 0, 0), ("delete", 0, 0, 0), ("prune", 0, 0, 1)],
     "create notes/a; conflict notes/a; edit notes/a; delete notes/a.conflict-; delete notes/a; prune None 2 True"),
    ([("swap", 0, 0, 0), ("conflict", 1, 0, 0), ("delete", 0, 0, 0), ("prune", 0, 0, 3)],
     "create notes/a; create notes/b; swap notes/a notes/b; conflict notes/b; delete notes/a; prune None 1 True"),
    # (the model: the second copy took the deleted first one's name, the same second: `purge notes/c` refuses while it
    # is current, the first's rows are the live name's; the model took them as the deleted page's. A name reused
    # only when both conflicts fall in one second)
    ([("create", 1, 0, 0), ("conflict", 0, 0, 0), ("conflict", 1, 0, 0), ("delete", 3, 0, 0), ("conflict", 1, 0, 0), ("delete", 2, 0, 0)],
     "create notes/a; create notes/c; conflict notes/a; conflict notes/c; delete notes/c.conflict-; conflict notes/c; delete notes/c"),
    # (the model, Postgres seed 4: the second copy written at the first's name while it was in the trash, the same
    # second, is its heir, as a create there is: `purge` of it takes the first's rows, under both its names)
    ([('delete', 0, 0, 0), ('revert', 3, 0, 8), ('conflict', 0, 2, 30), ('move', 0, 1, 0), ('create', 1, 0, 5), ('move', 1, 0, 9),
      ('create', 0, 2, 0), ('create', 1, 0, 0), ('delete', 1, 0, 0), ('create', 0, 0, 0), ('create', 0, 0, 0), ('create', 1, 0, 0),
      ('conflict', 0, 0, 0), ('delete', 1, 1, 0)],
     "create notes/a; delete notes/a; revert notes/a 1; conflict notes/a; move notes/a notes/c; create notes/b; move notes/c notes/a; "
     "create notes/c; create notes/y; delete notes/a.conflict-; conflict notes/a; delete notes/a.conflict-"),
])
def test_a_prune_with_conflict_copies(db_path, tmp_path, steps, log):
    """The brain was wrong in all three (docs/history.md). 1, 2: the prune took every version of
    notes/a holding either text of its first conflict (``sync_conflicts.file_hash``/``db_hash``),
    the only tie `history.conflict_copies` read, so `purge notes/a` left the deleted copy, the
    page's text; the copy's create is tied to the page's stretch at the name now
    (`history._copy_in_stretch`). 3: the folder's merge base for notes/a.md was notes/b's first
    page's text, its create at notes/b kept for it (`_keep_bases`), its move away pruned: notes/b
    read as one page, v5 (the other page's update) counted against it, ``+2 -2``; a kept version
    keeps its stretch's end now (`_whole_moves`), v5 counts against nothing, ``+3 -0``."""
    (tmp_path / "folder").mkdir()
    with Brain.open(db_path) as b:
        _replay(b, steps, log, tmp_path / "folder")


def test_purge_slug_after_two_swaps_and_conflict_copies_seed_505(db_path, tmp_path):
    """The model, SQLite seed 505 at 500 examples: the page written at notes/a after another's
    deletion there (its heir), swapped to notes/c; the purge of its text 'line c6' took its create
    at notes/a and its swap, so no row left says it was ever at notes/a. `purge notes/c` takes its
    rows at notes/c only (`purge._family_rows`); the model kept the tie (`Model.heir_of`) while the
    deletion row was left and wanted the deleted page's rows too. `Model.forget` drops a tie once
    the next row left after the deletion is not the heir's."""
    root = tmp_path / "v"
    root.mkdir()
    with Brain.open(db_path) as b:
        _one(b, [("swap", 0, 0, 0), ("create", 0, 0, 0), ("delete", 0, 0, 0), ("swap", 0, 0, 0), ("delete", 0, 0, 0), ("swap", 0, 0, 0),
                 ("delete", 0, 0, 0), ("create", 0, 0, 0), ("conflict", 3, 0, 0), ("conflict", 0, 0, 19), ("purge", 0, 0, 22),
                 ("delete", 2, 0, 0)], root)
        _, items = purgemod.plan(b, key=("page", "notes/c"))
        assert {(x["name"], x["version"]) for x in items} == {("notes/c", v) for v in (6, 7, 8)}, items
