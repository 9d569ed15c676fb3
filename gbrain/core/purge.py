"""Purge: take a text (a key pasted by mistake, a person's name) or a deleted page's whole
history out of everything the brain stores, on purpose (trial 21, "the user who must forget").

gbrain keeps every version any writer replaces; ``history-prune`` drops versions by age and
count. A purge is the one way to drop versions by what they hold: every version of every page
and file whose bytes (or name) hold the text, or every version of one name. It never touches a
current page or file (a live text that holds it is refused, named: edit it out or delete it
first, through the ordinary writes, so sync/watch and the history see those), and it is a dry
run until ``apply``. With ``apply`` it also drops what was derived from those texts and can
outlive them: the search index's segments (an FTS5 index keeps a deleted word until its
segments merge: rebuilt, canvases' ``canvas_fts`` too; on Postgres typo tolerance's cached
vocabulary ``search_vocab``, emptied: made again when a search needs it), embedded chunk texts that still hold the text (a page edited since its
last ``embed``: its chunks are dropped, so ``embed`` does it again), the cached vectors of
retired chunks that held it (``embedding_cache``, vectors without text kept by their chunk's
hash: the purged versions are cut as ``embed`` cut them, :func:`_cached_vectors`; the other
cached vectors stay, a provider's paid call each), ingest records
and conflict records naming it; then it rewrites the database so no free page or log frame
keeps the bytes (SQLite: ``VACUUM`` and a truncating WAL checkpoint; Postgres: ``VACUUM FULL``,
since a plain VACUUM leaves dead rows' bytes in place). It records that a purge happened
(config ``purge_log``: when, by whom, how many versions, and the sha256 of the bytes removed:
never the text or the names). A folder's sync removes a file holding exactly such bytes (the file
of a page deleted in the brain, then purged, before that folder synced) without keeping them in
the trash, on every machine (:meth:`gbrain.sync.engine.SyncEngine._purged`): keeping them, as it
keeps any bytes it removes that the history lacks, would bring the text back.

What it cannot reach is said in every answer (:data:`NOT_REACHED`): the folder's files and
editors' backups of them, exports, git, copies and backups of the database file, blocks the
file system freed, and on Postgres the server's WAL and replicas.
"""
from __future__ import annotations

import json
import os
import re
import time

from ..errors import BadInput
from ..page.slugs import cmd_arg
from ..storage.db import in_parts
from . import history as h

#: what a purge cannot reach, said in every answer
NOT_REACHED = ("not reached: copies outside this database (the folder's files and editors' backups of them, exports, "
               "git history, backups or copies of the database file, blocks the file system already freed; on Postgres "
               "the server's WAL, archives and replicas)")

#: how many names the refusal of a live text lists
_NAMES_SHOWN = 10


#: JSON's two-character escapes (RFC 8259 §7) of the characters that have one
_JSON_SHORT = {'"': b'\\"', "\\": b"\\\\", "/": b"\\/", "\b": b"\\b", "\f": b"\\f", "\n": b"\\n", "\r": b"\\r", "\t": b"\\t"}


def _hex_rx(unit: int) -> bytes:
    """``\\uXXXX`` of one UTF-16 code unit as a bytes pattern, its hex digits in either case."""
    return b"\\\\u" + b"".join(b"[%s%s]" % (d.encode(), d.upper().encode()) if d.isalpha() else d.encode() for d in f"{unit:04x}")


class Needle:
    """A text as purge matches it in stored bytes: its UTF-8 bytes, or the bytes a JSON writer
    may have made of it in a string (a canvas, a ``.raw`` sidecar, any JSON file): each character
    as itself or as any JSON escape of it, mixed freely: ``\\uXXXX`` (hex digits of either case;
    a character beyond U+FFFF as its UTF-16 surrogate pair), or ``\\"`` ``\\\\`` ``\\/`` ``\\b``
    ``\\f`` ``\\n`` ``\\r`` ``\\t``: ``contraseña/x`` is found as ``contrase\\u00f1a\\/x`` too
    (Python's ``ensure_ascii``, PHP's slashes, .NET's capitals). Not: other encodings (URL
    ``%C3%B1``, HTML ``&ntilde;``, base64), another normal form (NFD), another case."""

    def __init__(self, text: str):
        self.plain = text.encode("utf-8")
        parts, self.span = [], 0
        for ch in text:
            forms = [re.escape(ch.encode("utf-8"))]
            cp = ord(ch)
            units = [cp] if cp < 0x10000 else [0xD800 + ((cp - 0x10000) >> 10), 0xDC00 + ((cp - 0x10000) & 0x3FF)]
            forms.append(b"".join(_hex_rx(u) for u in units))
            if ch in _JSON_SHORT:
                forms.append(re.escape(_JSON_SHORT[ch]))
            parts.append(b"(?:" + b"|".join(forms) + b")")
            self.span += max(len(ch.encode("utf-8")), 6 * len(units))
        self.rx = re.compile(b"".join(parts))

    def in_bytes(self, data: bytes) -> bool:
        """Whether ``data`` holds the text in one of its forms (an escape needs a backslash:
        bytes without one are searched for the UTF-8 form alone)."""
        return self.plain in data or (b"\\" in data and self.rx.search(data) is not None)

    def in_pieces(self, pieces) -> bool:
        """:meth:`in_bytes` over bytes given as an iterator of pieces (across piece edges too)."""
        tail = b""
        for p in pieces:
            if self.in_bytes(tail + p):
                return True
            tail = (tail + p)[-(self.span - 1):] if self.span > 1 else b""
        return False


def live_holders(brain, text: str, in_bytes: "set[str] | None" = None) -> list[str]:
    """The current pages (slugs) and files (paths) whose bytes or name hold ``text``: a purge
    refuses to run while any does. One page or file read at a time (big files piece by piece).
    ``in_bytes``: given, the names of those whose bytes hold it are added to it (a name holding it
    too: :func:`refusal` says both)."""
    from ..storage.blobs import iter_file
    from .brain import render_row

    needle = Needle(text)
    c = brain.conn

    def holders():  # (name, whether its bytes hold the text): pages by slug, then files by path
        for (pid,) in c.execute("SELECT id FROM pages ORDER BY slug").fetchall():
            r = c.execute("SELECT slug, bom, frontmatter_raw, compiled_truth, separator, timeline FROM pages WHERE id = ?", (pid,)).fetchone()
            if r is not None:
                yield r["slug"], lambda r=r: needle.in_bytes(render_row(r).encode("utf-8", "surrogatepass"))
        for (path,) in c.execute("SELECT path FROM files ORDER BY path").fetchall():
            yield path, lambda path=path: needle.in_pieces(iter_file(c, path) or iter(()))

    out = []
    for name, holds in holders():
        named = text in name
        held = (not named or in_bytes is not None) and holds()
        if named or held:
            out.append(name)
        if held and in_bytes is not None:
            in_bytes.add(name)
    return out


def folder_holders(brain, text: str) -> list[str]:
    """The files under the brain's bound sync folders (those present on this machine) whose bytes
    hold ``text``: absolute paths, sorted. Every file, hidden and ignored ones too (an ignored
    ``secrets/`` folder, an editor's backup), except inside ``.git`` (compressed objects: git's
    history is named in :data:`NOT_REACHED`) and symbolic links; an unreadable file is skipped.
    A purge names them and never touches them: they are the user's files, and a note among them
    would be imported again by the next sync."""
    needle = Needle(text)
    out: list[str] = []
    for (root,) in brain.conn.execute("SELECT root FROM sync_root").fetchall():
        if not root or not os.path.isdir(root):
            continue
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if d != ".git"]
            for name in filenames:
                p = os.path.join(dirpath, name)
                try:
                    if os.path.islink(p):
                        continue
                    with open(p, "rb") as fh:
                        if needle.in_pieces(iter(lambda: fh.read(1 << 20), b"")):  # noqa: B023 (read here, in the loop)
                            out.append(p)
                except OSError:
                    continue
    return sorted(out)


def plan(brain, text: str | None = None, key: tuple[str, str] | None = None) -> tuple[list[int], list[dict]]:
    """The history rows a purge drops: ``(row ids, [{kind, name, version}])``, oldest first per
    name. ``text``: every version whose bytes hold it, or whose name or path does outside a live
    page's or file's history (:func:`_live_spans`; a row's label, ``move from OLD``, is never
    matched), and the whole history
    of a page or file no longer live when every version with text goes (so it leaves the trash and
    the history, its name too); ``key`` (``(kind, name)``): every row of that history. A pure read."""
    ids, items, _, _ = _plan(brain, text, key)
    return ids, items


def _plan(brain, text: str | None, key: tuple[str, str] | None) -> tuple[list[int], list[dict], set[tuple[str, int]], set[str]]:
    """:func:`plan`, ``(path, body id)`` of the page versions it drops (``text``: those whose
    bytes, name or path hold it; ``key``: every one), which :func:`_cached_vectors` chunks, and
    (``key``) the paths its history had, which :func:`_forget_paths` drops."""
    c = brain.conn
    if key is not None:
        rows = _family_rows(c, key)
        have = {r["id"] for r in rows}
        for ck in _conflict_copies(c, rows).gone:  # its deleted conflict copies: the page's text too
            more = [r for r in _family_rows(c, ck) if r["id"] not in have]
            rows += more
            have.update(r["id"] for r in more)
        texts = {(r["path"], r["body_id"]) for r in rows if r["kind"] == "page" and r["body_id"] is not None}
        return ([r["id"] for r in rows], [{"kind": r["kind"], "name": r["name"], "version": r["version"]} for r in rows], texts,
                {r["path"] for r in rows if r["path"]})
    assert text is not None
    needle = Needle(text)
    hit_bodies = {bid for (bid,) in c.execute("SELECT id FROM history_bodies").fetchall() if needle.in_pieces(h.body_pieces(c, bid))}
    live = {("page", r[0]) for r in c.execute("SELECT slug FROM pages")} | {("file", r[0]) for r in c.execute("SELECT path FROM files")}
    kept = _live_spans(c, live)
    by_key: dict[tuple[str, str], list] = {}
    for r in c.execute("SELECT id, kind, name, version, path, body_id FROM history ORDER BY kind, name, version").fetchall():
        by_key.setdefault((r["kind"], r["name"]), []).append(r)
    ids, items, texts = [], [], set()
    for k, rows in by_key.items():
        spans = kept.get(k, ())
        mine = {r["id"] for r in rows if any(a < r["version"] and (u is None or r["version"] <= u) for a, u in spans)}
        # a version goes for its bytes; for its name or path only outside a live page's history
        # (a label, `move from OLD`, is never matched: it names a page, it holds no text of it)
        drop = [r for r in rows if r["body_id"] in hit_bodies or (r["id"] not in mine and (text in r["name"] or text in r["path"]))]
        if not drop:
            continue
        gone = {r["id"] for r in drop}
        if k not in live and all(r["body_id"] is None or r["id"] in gone for r in rows):
            drop = rows  # no text of it is left: its deletion and moves go too, so no empty trash entry stays
        else:
            drop += _emptied_ends(rows, gone)
        ids += [r["id"] for r in drop]
        items += [{"kind": r["kind"], "name": r["name"], "version": r["version"]} for r in drop]
        texts |= {(r["path"], r["body_id"]) for r in drop if k[0] == "page" and r["body_id"] is not None}
    return ids, items, texts, set()


def _emptied_ends(rows: list, gone: set[int]) -> list:
    """The deletions and moves away among ``rows`` (one name's history, by version) whose page's
    versions before them at the name all go (``gone``: row ids): a page written there, then
    deleted or moved on, none of whose text is left, goes whole from the name, as a name's whole
    history does (before 2026-12-06 `purge --text` of a deleted page's text at a name a new page was
    then written at left its deletion: `history` listed a deletion of nothing)."""
    out, stretch = [], []
    for r in rows:
        if r["body_id"] is not None:
            stretch.append(r)
            continue
        if stretch and all(x["id"] in gone for x in stretch):
            out.append(r)
        stretch = []
    return out


def _live_spans(c, live: set[tuple[str, str]]) -> dict[tuple[str, str], list[tuple[int, int | None]]]:
    """The history rows of live pages and files, by ``(kind, name)``: ``[(after, upto)]`` spans
    (versions ``after < v <= upto``; ``upto`` None: every one). A live name's every version, and
    each old name's versions up to its move away, that move included (:func:`~gbrain.core.history.lineage_spans`).
    A ``--text`` purge drops these for their bytes only, never for a name holding the text: a
    page renamed from ``people/ana`` kept its current version and its past out of a purge of a
    text that named it (before 2026-12-05 they were listed, matched by name and by the
    ``from people/ana`` label of the move)."""
    out: dict[tuple[str, str], list[tuple[int, int | None]]] = {k: [(0, None)] for k in live}
    moved = {(r[0], r[1]) for r in c.execute("SELECT DISTINCT kind, name FROM history WHERE op = 'move' AND body_id IS NOT NULL")}
    for kind, name in sorted(moved & live):
        for old, after, upto in h.lineage_spans(c, kind, name, every=True)[1:]:  # every stretch of a name it had twice
            out.setdefault((kind, old), []).append((after, upto + 1))  # its move away too
    return out


def _family_rows(c, key: tuple[str, str]) -> list:
    """The history rows of ``key`` and of every name its page or file had: the renames after it,
    followed to its last name when that is not current (a page deleted after its renames), and
    the names before that one (:func:`~gbrain.core.history.page_spans`: each stretch of each old
    name, up to its move away, that move included). ``purge SLUG`` took the one name's history: a page
    renamed twice needed three purges (the versions under its old names kept its text). Another
    page's versions at one of its names (a page that left the name before this one had it, or was
    deleted there before this one moved in) are that page's: left, and taken by a purge of that
    page's name once it is the page that last had it (before 2026-12-06 they went too: `purge
    notes/a` of a deleted page moved onto notes/a took the past of the live page that left it)."""
    kind, cur = key
    seen = {cur}
    while len(seen) <= h.MAX_MOVES:  # the renames after key
        r = c.execute("SELECT op, detail, body_id FROM history WHERE kind = ? AND name = ? ORDER BY version DESC LIMIT 1", (kind, cur)).fetchone()
        if r is None or r["op"] != "move" or r["body_id"] is not None or not (r["detail"] or "").startswith("to "):
            break
        nxt = r["detail"][3:]
        if nxt in seen or not c.execute("SELECT 1 FROM history WHERE kind = ? AND name = ? AND op = 'move' AND detail = ? LIMIT 1",
                                        (kind, nxt, "from " + cur)).fetchone():
            break
        seen.add(nxt)
        cur = nxt
    live = c.execute(f"SELECT 1 FROM {'pages WHERE slug' if kind == 'page' else 'files WHERE path'} = ?", (cur,)).fetchone()
    end = key[1] if live else cur  # a page that lives on under its last name: its old names' versions only
    rows: dict[int, object] = {}
    # the page's versions only: never another page's at one of its names; a page deleted at a name a new
    # page was then written at (while it was in the trash) is that page's past (`heir`): its text goes with it
    for name, after, upto in h.page_spans(c, kind, end):
        q, args = "SELECT id, kind, name, version, path, body_id FROM history WHERE kind = ? AND name = ? AND version > ?", (kind, name, after)
        if upto is not None:  # an old name: up to its move away (a later page of that name is another page)
            q, args = q + " AND version <= ?", args + (upto + 1,)
        rows.update((r["id"], r) for r in c.execute(q + " ORDER BY version", args).fetchall())
    order = {n: i for i, n in reversed(list(enumerate(r["name"] for r in rows.values())))}  # each name where it first came
    return sorted(rows.values(), key=lambda r: (order[r["name"]], r["version"]))  # oldest first per name (a name it had twice: once)


def _conflict_copies(c, rows: list) -> h.ConflictCopies:
    """The conflict copies of the page (or file) whose history rows are ``rows`` (:func:`_family_rows`):
    :func:`gbrain.core.history.conflict_copies` of their paths and texts (as ``history`` names a
    page's open copies): ``live`` paths, ``gone`` keys. A current one refuses ``purge SLUG`` (a purge
    never touches a current page: :func:`purge`); a deleted one's history goes with the page's
    (before 2026-12-06 `purge SLUG` left both, the page's text)."""
    return h.conflict_copies(c, (r["path"] for r in rows if r["path"]), (r["body_id"] for r in rows if r["body_id"] is not None),
                             ids=(r["id"] for r in rows))


def _forget_paths(brain, text: str | None, paths: set[str]) -> list[str]:
    """Take the purged paths (``text``: those holding it; else ``paths``, the purged history's)
    that are no longer current out of the sync tables, which name them beyond the history: the
    change log (a client asking what changed since its cursor learnt the old path, which may be
    the secret: ``people/jane-doe-diagnosis.md``) and the sync bases (``sync_state``) of this
    machine's folders that no longer hold the file. A folder that still holds it keeps its base
    (without it the next sync would import the file as new): its files are returned, absolute,
    for the answer to name. A folder behind the log finds the deletion by its full three-way
    compare (every sync does one; watch at its start and rescans), not by the log."""
    from ..storage.db import sync_client

    c = brain.conn
    if text is not None:
        cond, args = "instr(path, ?) > 0", [text]
    elif paths:
        cond, args = f"path IN ({','.join('?' * len(paths))})", sorted(paths)
    else:
        return []
    cond += " AND path NOT IN (SELECT path FROM pages) AND path NOT IN (SELECT path FROM files)"
    c.execute(f"DELETE FROM change_log WHERE {cond}", args)
    kept: list[str] = []
    for client, root in c.execute("SELECT client, root FROM sync_root").fetchall():
        if not root or sync_client(c, root) != client or not os.path.isdir(root):
            continue  # another machine's folder: its next sync forgets a path gone on both sides
        for (p,) in c.execute(f"SELECT path FROM sync_state WHERE client = ? AND {cond}", [client, *args]).fetchall():
            f = os.path.join(root, *p.split("/"))
            if os.path.lexists(f):
                kept.append(f)
            else:
                c.execute("DELETE FROM sync_state WHERE client = ? AND path = ?", (client, p))
    return kept


def _chunk_budgets(brain=None) -> set[int]:
    """Every chunk budget a model cuts pages at (:func:`~gbrain.search.chunking.model_chunks`: a
    short-window model's own and :data:`~gbrain.search.chunking.MAX_TOKENS`), and each one
    ``brain``'s config ``embedding_chunk_tokens`` has held (``brain.CHUNK_TOKENS_USED``)."""
    from ..search import embeddings
    from ..search.chunking import MAX_TOKENS
    from .brain import CHUNK_TOKENS_USED

    out, todo = {MAX_TOKENS}, [embeddings.EmbeddingModel]
    if brain is not None:
        for v in [brain.get_config("embedding_chunk_tokens") or ""] + (brain.get_config(CHUNK_TOKENS_USED) or "").split(","):
            if v.strip().isdigit():
                out.add(int(v))
    while todo:
        cls = todo.pop()
        todo += cls.__subclasses__()
        if getattr(cls, "max_chunk_tokens", None):
            out.add(int(cls.max_chunk_tokens))
    return out


def _cached_vectors(brain, texts: set[tuple[str, int]], text: str | None) -> set[str]:
    """The chunk hashes (``embedding_cache.text_hash``) of the page versions ``texts`` (``(path,
    body id)``) as ``embed`` cut them, at every model's budget: with ``text``, the chunks whose
    text holds it (all of a version's chunks when none does: the markdown a chunk drops, a
    link's target, hid it), else every chunk. The cache keeps a vector by its chunk's hash alone:
    this is how a purge tells the vectors of the text from the others, which it keeps."""
    from ..search.chunking import chunk_page
    from ..search.embeddings import MiniLMEmbedding

    budgets = _chunk_budgets(brain)
    # and as a model's own tokenizer splits a chunk over its window (minilm, when installed)
    fits = [None] + [f for f in [MiniLMEmbedding.window_fit()] if f]
    out: set[str] = set()
    for path, bid in texts:
        try:
            p = brain.parse_text(h.body(brain.conn, bid).decode("utf-8", "surrogatepass"), path)
        except Exception:  # noqa: BLE001 (a body that no longer reads or parses was never embedded as a page)
            continue
        chunks = {c.text: c.hash for n in budgets for f in fits for c in chunk_page(p.title, p.compiled_truth, p.timeline, max_tokens=n, fit=f)}
        held = {hx for t, hx in chunks.items() if text is not None and text in t}
        out |= held or set(chunks.values())
    return out


def _shown(names: list[str]) -> str:
    return ", ".join(names[:_NAMES_SHOWN]) + (f" and {len(names) - _NAMES_SHOWN} more" if len(names) > _NAMES_SHOWN else "")


def _name_of(c, path: str) -> str:
    """The slug of the page at ``path``, else ``path`` (a file)."""
    r = c.execute("SELECT slug FROM pages WHERE path = ?", (path,)).fetchone()
    return r[0] if r else path


def refusal(live: list[str], text: str, pages: "set[str] | None" = None, in_bytes: "set[str] | None" = None) -> str:
    """Why a purge of ``text`` the current pages/files ``live`` hold is refused (naming them, never
    the text): a name holding it (:func:`live_holders`) is renamed, not edited; the others' text is.
    ``pages``: which of ``live`` are pages (None: all), told ``gbrain move``; ``in_bytes``: those
    whose bytes hold it (None: those whose name does not), told to edit it out, a renamed one too."""
    from ..page.slugs import cmd_arg

    named = [x for x in live if text in x]
    held = [x for x in live if text not in x or (in_bytes is not None and x in in_bytes)]
    why = []
    if named:
        page = next((x for x in named if pages is None or x in pages), None)
        how = [f"`gbrain move {cmd_arg(page)} NEW-NAME`"] if page else []
        if pages is not None and any(x not in pages for x in named):
            how.append("a file: store it under another name and delete this one")
        # a purge of a text keeps a live page's versions under its old names (`_live_spans`):
        # the old name's own purge drops them, and the labels naming it (trial 53)
        if page:
            how.append(f"`gbrain purge {cmd_arg(page)} --apply` then drops its versions under that name, which a purge of a text keeps")
        why.append(f"the name of {_shown(named)} holds the text (a purge never drops a current name): rename it first ({'; '.join(how)})")
    if held:
        why.append(f"the text is still in the current version of {_shown(held)}: edit it out (or `gbrain delete` the page) first")
    return "; ".join(why) + ", then purge"


def _stale_chunks(c, text: str) -> list[tuple[int, str]]:
    """``(page id, model)`` of the embedded chunk sets one of whose chunk texts holds ``text``."""
    return [(r[0], r[1]) for r in c.execute(
        "SELECT DISTINCT page_id, model FROM page_embeddings WHERE instr(chunk_text, ?) > 0", (text,)).fetchall()]


def purge(brain, text: str | None = None, key: tuple[str, str] | None = None, apply: bool = False) -> dict:
    """Plan (and with ``apply`` carry out) a purge of ``text`` or of the history of ``key``
    (module docstring). Returns ``{applied, live, refused, items, versions, names, chunks,
    vacuumed, not_reached}``: ``live`` the current pages/files that hold the text (``apply``
    raises :class:`BadInput` naming them; a dry run lists them, sets ``refused``, the apply's
    ``exit_code``, 2, and ``refusal``, why: :func:`refusal`), ``items`` the versions that go
    (``{kind, name, version}``), ``names`` how many pages/files they belong to, ``chunks`` the
    embedded chunk sets dropped, ``vacuumed`` whether the file was rewritten (None in a dry run).
    Never holds the text. Raises :class:`BadInput` for an empty text, a live ``key``, or both/neither."""
    if (text is None) == (key is None):
        raise BadInput("purge needs a page or file name, or --text TEXT (not both)")
    if text is not None and not text.strip():
        raise BadInput("--text must not be empty")
    c = brain.conn
    if key is not None and c.execute(f"SELECT 1 FROM {'pages WHERE slug' if key[0] == 'page' else 'files WHERE path'} = ?", (key[1],)).fetchone():
        raise BadInput(f"{key[1]} is a current {key[0]}: delete it first (`gbrain delete {key[1]}`), then purge its history")
    in_bytes: set[str] = set()
    if text is not None:
        live = live_holders(brain, text, in_bytes)
        why = refusal(live, text, {x for x in live if c.execute("SELECT 1 FROM pages WHERE slug = ?", (x,)).fetchone()}, in_bytes) if live else ""
    else:  # the page's conflict copies still in the brain: its text, current (never touched by a purge)
        live = [_name_of(c, p) for p in _conflict_copies(c, _family_rows(c, key)).live]
        why = (f"{_shown(live)}, a conflict copy of {key[1]} (a version of it sync kept beside the note), is current: delete it first "
               f"({'; '.join(f'`gbrain delete {cmd_arg(x)}`' for x in live[:_NAMES_SHOWN])}), then purge, which takes its versions too") if live else ""
    if live and apply:
        raise BadInput(why + "; nothing was purged")
    folder = folder_holders(brain, text) if text is not None else []
    out = {"applied": False, "live": live, "folder": folder, "chunks": 0, "vacuumed": None, "not_reached": NOT_REACHED,
           "refused": bool(live)}
    if live:  # a dry run of a purge `apply` would refuse: it says so (`refusal`: why), and exits as the apply would
        out["exit_code"] = BadInput.exit_code
        out["refusal"] = why
    if getattr(c, "dialect", "sqlite") != "postgres":
        c.execute("PRAGMA secure_delete = ON")  # freed pages are zeroed (a build without SQLITE_SECURE_DELETE keeps them)
    with brain.transaction():
        ids, items, texts, paths = _plan(brain, text, key)
        out.update(items=items, versions=len(items), names=len({(i["kind"], i["name"]) for i in items}))
        if not apply:
            return out
        joins = h.rejoin_labels(c, ids) if text is not None else []  # (a page's move in taken: read before its rows go)
        # a move away whose page has nothing left after it, all its later names' versions taken: its deletion
        # (before 2026-12-06 left `renamed to a purged name`: the page neither live nor in the trash, `revert OLD` a new page)
        ended = h._ended_aways(c, set(ids))
        vectors = _cached_vectors(brain, texts, text)  # read before their bodies go
        hashes = _body_hashes(c, ids)
        h.stage_drops(c, ids)
        h.drop_versions(c)
        h.apply_labels(c, joins)
        h.apply_labels(c, [(rid, op, _ended_label(c, rid, d)) for rid, op, d in ended])
        _relabel(c, {(i["kind"], i["name"]) for i in items})
        hashes = _gone(c, hashes)
        c.execute("DELETE FROM prune_ids")
        if text is not None:
            stale = _stale_chunks(c, text)
            vectors |= {r[0] for r in c.execute("SELECT text_hash FROM page_embeddings WHERE instr(chunk_text, ?) > 0", (text,))}
            for pid, model in stale:
                c.execute("DELETE FROM page_embeddings WHERE page_id = ? AND model = ?", (pid, model))
                c.execute("DELETE FROM embed_state WHERE page_id = ? AND model = ?", (pid, model))
            out["chunks"] = len(stale)
            c.execute("DELETE FROM ingest_log WHERE instr(source_ref, ?) > 0 OR instr(summary, ?) > 0 OR instr(pages_updated, ?) > 0", (text, text, text))
            c.execute("DELETE FROM sync_conflicts WHERE instr(path, ?) > 0 OR instr(copy_path, ?) > 0", (text, text))
        else:
            for p in sorted(paths):
                c.execute("DELETE FROM sync_conflicts WHERE path = ? OR copy_path = ?", (p, p))
        out["folder"] = sorted(set(out["folder"]) | set(_forget_paths(brain, text, paths)))
        # the cached vectors of the text's chunks (a vector has no text, but can be inverted
        # towards it; the stale chunk sets dropped above were just retired into the cache too);
        # the others stay: each is a provider's call (paid, with an API) a revert would repeat
        vec = sorted(vectors)
        for part, marks in in_parts(vec):
            c.execute(f"DELETE FROM embedding_cache WHERE text_hash IN ({marks})", part)
        if getattr(c, "dialect", "sqlite") != "postgres":  # FTS5 keeps a deleted word in its segments until they merge
            c.execute("INSERT INTO page_fts(page_fts) VALUES ('rebuild')")
            c.execute("INSERT INTO canvas_fts(canvas_fts) VALUES ('rebuild')")
        else:  # typo tolerance's cached vocabulary (v45) holds the words of pages since deleted: made again when needed
            c.execute("DELETE FROM search_vocab")
            c.execute("DELETE FROM search_vocab_state")
        from ..storage.origin import identity

        try:
            log = json.loads(brain.get_config("purge_log") or "[]")
        except ValueError:
            log = []
        log.append({"at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "by": identity(), "versions": len(items), "names": out["names"],
                    "hashes": sorted(hashes)})
        c.execute("INSERT INTO config(key, value) VALUES ('purge_log', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", (json.dumps(log),))
        brain._config_cache = None
        out["applied"] = True
    out["vacuumed"] = compact(c)
    return out


def _ended_label(c, rid: int, detail: str) -> str:
    """The label of a move away a purge made its page's deletion (:func:`gbrain.core.history._ended_aways`:
    ``moved to NEW``, ``moved to NEW and back``) once the rows went: ``NEW`` is ``a purged name``
    when no history row is left at it."""
    back = h.AND_BACK if detail.endswith(h.AND_BACK) else ""
    name = detail[len("moved to "):len(detail) - len(back)]
    if c.execute("SELECT 1 FROM history WHERE kind = (SELECT kind FROM history WHERE id = ?) AND name = ? LIMIT 1", (rid, name)).fetchone():
        return detail
    return "moved to a purged name" + back


#: the label (history ``detail``) of a move from or to a name a purge took out of the history:
#: no ``from ``/``to `` label, so nothing that follows renames (``history.lineage``, sync) reads it as a name
PURGED_LABELS = {"from ": "renamed from a purged name", "to ": "renamed to a purged name"}


def _relabel(c, names: set[tuple[str, str]]) -> int:
    """Rewrite the move labels (``from OLD``, ``to OLD``) naming those of ``names`` that have no
    history row left nor a current page or file (:data:`PURGED_LABELS`): a page renamed from
    ``people/hidden-xyzzy``, whose old name was purged, kept ``from people/hidden-xyzzy`` on its
    move row, in ``history`` and in the file (trial 53). A name with versions left keeps its
    labels (they name that page). Returns how many rows changed."""
    n = 0
    for kind, name in sorted(names):
        if c.execute("SELECT 1 FROM history WHERE kind = ? AND name = ? LIMIT 1", (kind, name)).fetchone():
            continue
        if c.execute(f"SELECT 1 FROM {'pages WHERE slug' if kind == 'page' else 'files WHERE path'} = ?", (name,)).fetchone():
            continue
        for pre, label in PURGED_LABELS.items():
            n += c.execute("UPDATE history SET detail = ? WHERE kind = ? AND op = 'move' AND detail = ?", (label, kind, pre + name)).rowcount or 0
    return n


def _body_hashes(c, ids: list[int]) -> set[str]:
    """The content hashes (sha256 of the bytes) of the history rows ``ids``' bodies."""
    out: set[str] = set()
    for part, marks in in_parts(ids):
        out |= {r[0] for r in c.execute(f"SELECT b.hash FROM history h JOIN history_bodies b ON b.id = h.body_id WHERE h.id IN ({marks})", part)}
    return out


def _gone(c, hashes: set[str]) -> set[str]:
    """Those of ``hashes`` no body, page or file holds any more: the bytes the purge removed."""
    return {x for x in hashes
            if not c.execute("SELECT 1 FROM history_bodies WHERE hash = ?", (x,)).fetchone()
            and not c.execute("SELECT 1 FROM pages WHERE content_hash = ?", (x,)).fetchone()
            and not c.execute("SELECT 1 FROM files WHERE content_hash = ?", (x,)).fetchone()}


def purged_hashes(conn) -> set[str]:
    """The content hashes of every version a purge removed (config ``purge_log``'s ``hashes``;
    never the text). Sync removes a folder's file holding exactly such bytes without keeping
    them (:meth:`gbrain.sync.engine.SyncEngine`): keeping them would undo the purge."""
    r = conn.execute("SELECT value FROM config WHERE key = 'purge_log'").fetchone()
    try:
        log = json.loads(r[0]) if r and r[0] else []
    except ValueError:
        return set()
    return {x for e in log if isinstance(e, dict) for x in (e.get("hashes") or []) if isinstance(x, str)}


class PurgedBytes:
    """``hx in PurgedBytes(conn)``: whether ``hx`` is the sha256 of bytes a purge removed
    (:func:`purged_hashes`) that no version holds again since (a page written later with exactly
    those bytes is the user's: its history has them). Import and sync do not bring such a file
    in (:func:`skip_warning`): it would undo the purge. Reads ``purge_log`` once; a brain never
    purged answers False without a query."""

    def __init__(self, conn) -> None:
        self.conn = conn
        self.hashes = purged_hashes(conn)

    def __bool__(self) -> bool:
        return bool(self.hashes)

    def __contains__(self, hx) -> bool:
        return (hx in self.hashes
                and not self.conn.execute("SELECT 1 FROM history_bodies WHERE hash = ?", (hx,)).fetchone()
                and not self.conn.execute("SELECT 1 FROM pages WHERE content_hash = ? UNION ALL SELECT 1 FROM files WHERE content_hash = ?", (hx, hx)).fetchone())


def skip_warning(path: str, command: str) -> str:
    """What import and sync say of a file they leave out because its bytes are a purged
    version's (:class:`PurgedBytes`)."""
    return (f"{path}: not imported: its bytes are exactly a version `gbrain purge` removed (config purge_log); importing it "
            f"would bring the purged text back. To take it anyway: `{command} --include-purged` (a file you edited, other bytes, "
            f"is imported as ever)")


def compact(c) -> bool:
    """Rewrite the database so no free page, dead row or log frame keeps a purged byte: SQLite
    ``VACUUM`` then ``PRAGMA wal_checkpoint(TRUNCATE)``; Postgres ``VACUUM FULL`` (every table
    rewritten into new files; takes each table's exclusive lock in turn). Outside a transaction.
    Returns False when another process kept it from finishing (a reader holding the WAL, a lock):
    the purge is committed; running it again once the others closed the brain compacts."""
    try:
        if getattr(c, "dialect", "sqlite") == "postgres":
            c.execute("VACUUM FULL")
            return True
        c.execute("VACUUM")
        busy = c.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        return not (busy and busy[0])
    except Exception:  # noqa: BLE001 (busy, locked: said to the user, the purge itself is committed)
        return False
