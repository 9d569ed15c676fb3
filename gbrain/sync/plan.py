"""The three-way decision of a sync round, as a pure function (no I/O, no database).

:func:`decide` maps, for every path of a round, the state of its three sides — the hash of the
file on disk (D), the hash the brain stores (S) and the base both had when they were last equal
(B), ``None`` meaning absent — to a :class:`Plan`: which paths to import, write out, trash,
remove, move, settle, or report as conflicts. :class:`gbrain.sync.engine.SyncEngine` gathers the
states (stat, hash, one read snapshot of the DB) and carries the plan out; the rules live only
here, so they can be tested over every combination (``tests/test_sync_plan.py``).

The rules, per path (the table in :mod:`gbrain.sync.engine` explains why each is safe):

==========================  ==========================================================
D == S                      settled: record the base (forget the path when both are None)
D == B, S != B              the brain changed: ``write`` the file (``remove`` it when S is None)
S == B, D != B              the file changed: ``import`` it (``trash`` the brain's copy when D is None),
                            unless it is a stale save (``stale``: the file was saved from a version
                            older than the one gbrain last wrote to it, see :mod:`gbrain.sync.merge`):
                            ``merge`` when the three-way merge is clean (the merged text becomes the
                            page and the file), else a conflict ``stale-save`` (the brain's version
                            stays and is written to the file; the file's version is the copy)
all three differ, and D is  an echo: gbrain itself wrote D in a round that died before recording
a version the brain had     it; the brain's current version is written (``write`` + ``echoes``)
D and S differ, B is None,  just old (``write``, listed in ``older``): the folder never had the path
D an older version of the   in sync (an old copy of the vault, a restored backup) and its file holds
page                        a version the page had before: the brain's version is written to the
                            file, no conflict copy (the history has the old bytes)
D and S differ, B is None   a conflict, ``no-base``: this folder never had the path in sync with the
                            brain (a new machine, a restored backup, an old copy of the vault) and
                            its file holds bytes the page never had: the brain's version stays the
                            page and is written to the file; the file's version is kept as the
                            conflict copy (as import keeps the brain's version)
S and B None, D a version   an old copy (``old_copies``): the file is removed from the folder,
of the page deleted or      nothing is imported (the history has its bytes; the deleted page stays
moved away from the path    in the trash, a moved one is written at its new path). Bytes in no
before the folder was bound version are new content, and a page gone since the folder was bound
                            was put back by the person: imported, as any new file
otherwise                   a conflict: ``both-changed`` (the file's version becomes the page, the
                            brain's is the copy), ``deleted-on-disk`` (D None) or
                            ``deleted-in-brain`` (S None); a both-changed page whose two edits
                            merge cleanly against the base (``both_merge``, found by the caller
                            with :func:`gbrain.sync.merge.merge_edits`) is ``merged`` instead:
                            the merged text becomes the page and the file, no copy; a file saved
                            from a version older than the base (``stale``, found by the caller) is
                            merged from that version, and is a ``stale-save`` conflict when that
                            conflicts
==========================  ==========================================================

Moves: a path gone from disk that the brain still has (D None, S and B not None) plus a path new
on disk (not in the brain, no base) of the same kind (page or file) is a rename. Pairs are made in
three passes, each one to one among the paths the earlier passes left:

1. **same file** (inode and device, ``disk_id`` of the new path equal to the ``base_id`` the base
   recorded for the old one: ``mv`` and renames keep it), when the new bytes are the old base or
   the brain's text. Two notes with the same text renamed together keep their own pages this
   way. Same inode and a different text is only a hint, weighed in pass 3: a file system may
   give a freed inode to another new file, and a ``git checkout`` that deletes notes of one
   template and writes them again renamed and edited can get the freed inodes crosswise (note
   16's old inode for the new note 0, 50 % or more alike), so the pairs most alike go first;
2. **same bytes**: the new path's bytes are the old path's base (``D_new == B_old``: the disk side
   only moved the file; with the brain unchanged (``S == B``) a plain move (``moves``), with the
   brain edited since the base an ``edited_moves`` pair: the row moves and the brain's text is
   written to the new path, as for a path that did not move) or the brain's current bytes
   (``D_new == S_old``: both sides agree already, a round that wrote it died before recording it);
3. **similar text**: a markdown page and a new markdown note at least
   :data:`~gbrain.sync.similar.SIMILAR_MIN` alike, or :data:`~gbrain.sync.similar.INODE_MIN`
   when the new note has the old one's inode (``similar``, scored by the caller with
   :mod:`gbrain.sync.similar` against the old path's *base* text, the version the disk side
   edited), best pairs first (ties: the same inode, the same file name, then the paths' order).
   With the brain unchanged since the base, a ``changed_moves`` pair: the row moves and then
   takes the new text (moved and edited on disk: Obsidian rewrites a moved note's relative
   links, a checkout of a branch that moved and edited pages). With the brain edited since the
   base, a ``both_moves`` pair (renamed and edited on disk while an agent edited the page: a
   ``git pull`` of a teammate's rename, which writes a new file, or a rename in Obsidian, which
   keeps the inode): the row moves with the brain's text and the old base becomes the new
   path's base, so the next round's both-changed rules decide the text (the edits merged three
   ways, or the file's text the page and the brain's the conflict copy), as for a page that did
   not move, at the new path.

**Replaced**: a path whose file is another file now (its ``disk_id`` is not the ``base_id`` the
base recorded), unchanged in the brain since the base, whose base file (the recorded inode) is at a
new path holding the base's bytes, was moved there and a new note written at the old name in the
same round (``mv a.md b.md && echo … > a.md``): a ``replaced_moves`` pair, the row moves to the
new path and the old path's file is imported as a new page (or file). Paired before the passes.

**Swapped**: pages unchanged in the brain whose notes exchanged names (``a → tmp, b → a, tmp → b``,
as editors and scripts swap two files; or a rotation of more), each note's bytes exactly another
one's base and the paths closing into a cycle: a ``swaps`` cycle, each page moves with its text
to its new name (id and history follow the text), no page edited. Paired before the passes.

**Empty**: a page whose base is empty (0 bytes, :data:`EMPTY`: Obsidian's ``Untitled.md`` before
the person typed anything) has no text to compare, so the same file is the evidence: a new note
with its inode pairs with it (a ``changed_moves`` pair, brain unchanged), in pass 1.

**Revived** (the creation comes after the deletion was carried out: the page went to the trash
in an earlier round, :class:`Trashed`; watch's deletions settle for a second, a sync client
writes the new path seconds after it deleted the old, a big ``git checkout``): after the three
passes, a new note left unpaired takes a page its caller trashed recently by the same evidence,
one to one: the same inode with the same bytes or an empty old text, the same bytes, then
similar text (``trashed_similar``, scored against the trashed text; the thresholds of pass 3),
best first. A ``revived_moves`` pair: the page comes back from the trash at the new path (its
id, its history continued, no trash entry) with the new note's text. The old path may be the
new one (the note written back where it was). A page still in the brain always goes first.

**Adopted** (the mirror: the creation reached the caller before the deletion: a sync client or a
``git checkout`` writes the new path first and deletes the old one later, or the creation's batch
settled first, so the new note is already a page, :class:`Created`): a page this round would trash
(its file deleted, the brain unchanged since the base) takes a page its caller created recently,
still as created, by the same evidence as **Revived**, one to one: the same file (inode) with the
same bytes or an empty old text, the same bytes, then similar text (``created_similar``, the old
path's base text against the created page's; the thresholds of pass 3), best first. An
``adopted_moves`` pair ``(old, new)``: the old page moves to ``new`` with its id and history, the
created page's rows go (its one version becomes the move in), so nothing is trashed. Decided after
every other rule: a path this round moves or writes is never taken.

A new path holding anything else is not guessed at: it is imported, and the old path follows
the rules above (a brain-edited page deleted on disk, with no new note alike enough to its
base, is put back). Within a pass,
new paths are taken in sorted order, each with the first free vanished path (sorted) it matches,
so the plan is deterministic.
"""
from __future__ import annotations

import hashlib
import posixpath
from dataclasses import dataclass, field
from typing import Mapping

#: sha256 of no bytes: the hash of an empty note
EMPTY = hashlib.sha256(b"").hexdigest()


@dataclass(frozen=True)
class Trashed:
    """A page the caller's rounds trashed recently (its file was deleted): ``hash``, the sha256 of
    its last text; ``file_id``, the file (device and inode, :func:`gbrain.sync.scan.file_id`) its
    base recorded, when known."""

    hash: str
    file_id: int | None = None


@dataclass(frozen=True)
class Created:
    """A page the caller's rounds created recently from a new note and that is still as created
    (one version, the same text): ``hash``, the sha256 of its text (and of the file, which the
    caller checked still holds it); ``file_id``, the file's device and inode when known."""

    hash: str
    file_id: int | None = None


@dataclass(frozen=True)
class PathState:
    """The three sides of one path: sha256 hex digests or ``None`` for absent.

    ``brain_kind`` is ``"page"`` or ``"file"`` when the brain has the path; ``disk_kind`` is the
    kind the file would be imported as (a markdown page or another file). ``disk_was_brain`` is
    true when the disk hash is a version the brain itself held for this path since the base
    (the caller looks it up in history only for paths whose three sides all differ)."""

    disk: str | None = None
    brain: str | None = None
    base: str | None = None
    brain_kind: str | None = None
    disk_kind: str | None = None
    disk_was_brain: bool = False
    #: only for a file change over a base gbrain wrote (S == B, D != B): ``"merge"`` when the file
    #: was saved from an older version and merges cleanly with the brain's, ``"conflict"`` when
    #: it was saved from an older version and does not merge, None otherwise (the caller finds
    #: out with :func:`gbrain.sync.merge.stale_view`)
    stale: str | None = None
    #: only for a page both sides changed since the base (D, S, B all present and different, not
    #: an echo): True when the caller found the base's text (in the history) and the two edits
    #: merge cleanly (:func:`gbrain.sync.merge.merge_edits`); False: a ``both-changed`` conflict
    both_merge: bool = False
    #: identity (device and inode folded, :func:`gbrain.sync.scan.file_id`) of the file now on
    #: disk (the caller fills it for paths new on disk) and of the file the base recorded
    disk_id: int | None = None
    base_id: int | None = None
    #: only for a path with no base whose file differs from the brain (or the brain has no such
    #: path): what the history says of the file's bytes (the caller looks them up,
    #: :meth:`gbrain.sync.engine.SyncEngine._disk_history`): ``"older"`` (a version the page or
    #: file at this path had before its current one), ``"deleted"`` (a version of the page or file
    #: deleted from this path before this folder was bound: it is in the trash), ``"moved"`` (a
    #: version of the page or file that moved away from this path before this folder was bound),
    #: None (bytes in no version: new content; or gone since the folder was bound: a file the
    #: person put back)
    disk_history: str | None = None


@dataclass
class Plan:
    """What a round will do. Lists are in sorted path order; ``moves`` and ``edited_moves`` are
    ``(old, new)``."""

    moves: list[tuple[str, str]] = field(default_factory=list)
    edited_moves: list[tuple[str, str]] = field(default_factory=list)  # moved on disk, edited in the brain: move, then write new
    changed_moves: list[tuple[str, str]] = field(default_factory=list)  # moved and edited on disk: move, then import new
    both_moves: list[tuple[str, str]] = field(default_factory=list)  # moved and edited on disk (alike to the base), edited in the brain: move, base kept
    replaced_moves: list[tuple[str, str]] = field(default_factory=list)  # moved on disk, a new file at the old name: move, then import old
    swaps: list[tuple[str, ...]] = field(default_factory=list)  # pages whose notes swapped names: (p0, p1, …), the page at p[i] moves to p[i+1], the last to p0
    revived_moves: list[tuple[str, str]] = field(default_factory=list)  # a page trashed recently, its note created (again): back from the trash at new
    adopted_moves: list[tuple[str, str]] = field(default_factory=list)  # file deleted, its note created earlier as a new page: the old page takes new
    write: list[str] = field(default_factory=list)        # brain → file
    remove: list[str] = field(default_factory=list)       # deleted in the brain; file still at base
    import_: list[str] = field(default_factory=list)      # file → brain
    trash: list[str] = field(default_factory=list)        # file deleted; brain unchanged
    conflicts: list[tuple[str, str]] = field(default_factory=list)  # (path, kind)
    settled: list[str] = field(default_factory=list)      # equal on both sides
    echoes: set[str] = field(default_factory=set)         # in ``write``: the file held an earlier brain version
    merge: list[str] = field(default_factory=list)        # a stale save that merges cleanly: merged text → page and file
    merged: list[str] = field(default_factory=list)       # both changed since the base, edits merge cleanly: merged text → page and file
    older: set[str] = field(default_factory=set)          # in ``write``: no base, the file held an older version of the page
    old_copies: list[str] = field(default_factory=list)   # no base, a version of a page deleted or moved away: remove the file

    def action(self, path: str) -> str:
        """The one action planned for ``path``: ``move-from``, ``move-to``, ``edited-move-from``,
        ``edited-move-to``, ``changed-move-from``, ``changed-move-to``, ``both-move-from``, ``both-move-to``, ``replaced-move-from``, ``replaced-move-to``, ``revived-move-from``, ``revived-move-to``, ``adopted-move-from``, ``adopted-move-to`` (the new path is in
        no other bucket: a path of another round), ``write``, ``remove``, ``import``, ``trash``, ``merge`` (a stale save),
        ``merged`` (both sides' edits), ``conflict:<kind>``, ``settled``, ``remove-old-copy``, ``swap`` (a path of
        a :attr:`swaps` cycle: its page moves away, another moves in); KeyError when not in the plan."""
        if any(path in c for c in self.swaps):
            return "swap"
        for pre, pairs in (("", self.moves), ("edited-", self.edited_moves), ("changed-", self.changed_moves), ("both-", self.both_moves), ("replaced-", self.replaced_moves),
                           ("revived-", self.revived_moves), ("adopted-", self.adopted_moves)):
            for old, new in pairs:
                if path == new:
                    return pre + "move-to"
                if path == old:
                    return pre + "move-from"
        for name, xs in (("write", self.write), ("remove", self.remove), ("import", self.import_), ("trash", self.trash), ("merge", self.merge), ("merged", self.merged), ("settled", self.settled),
                         ("remove-old-copy", self.old_copies)):
            if path in xs:
                return name
        for p, kind in self.conflicts:
            if p == path:
                return f"conflict:{kind}"
        raise KeyError(path)


def decide(states: Mapping[str, PathState], similar: Mapping[tuple[str, str], float] | None = None,
           trashed: Mapping[str, Trashed] | None = None, trashed_similar: Mapping[tuple[str, str], float] | None = None,
           created: Mapping[str, Created] | None = None, created_similar: Mapping[tuple[str, str], float] | None = None) -> Plan:
    """The plan for one round: ``states`` maps each relative path to its :class:`PathState`;
    ``similar`` maps ``(vanished path, new path)`` to how alike the vanished path's base text
    and the new note are (0…1, :func:`gbrain.sync.similar.similarity`; pairs left out count as 0).
    ``trashed``: pages the caller trashed recently, by their old path (not in ``states`` as a
    page the brain holds), and ``trashed_similar`` how alike each one's last text and a new note
    are (``(old path, new path)``): the module's **Revived** pairs. ``created``: pages the caller
    created recently, by path, and ``created_similar`` how alike a vanished path's base text and
    each one's text are (``(old path, new path)``): the module's **Adopted** pairs.

    Pure and deterministic: the same states give the same plan, whatever the mappings' order.
    Every path lands in exactly one bucket of the plan (a move names two paths). Raises nothing.
    """
    from .similar import INODE_MIN, SIMILAR_MIN

    plan = Plan()
    similar = similar or {}
    gone = [p for p in sorted(states) if states[p].base is not None and states[p].disk is None and states[p].brain is not None]
    new = [p for p in sorted(states) if states[p].disk is not None and states[p].brain is None and states[p].base is None]
    gone_set, new_set = set(gone), set(new)
    taken: set[str] = set()
    paired: set[str] = set()

    # 0. replaced: the old path holds another file now and its base's file moved to a new path
    replaced = [p for p in sorted(states) if states[p].base is not None and states[p].disk not in (None, states[p].base)
                and states[p].brain == states[p].base and states[p].base_id is not None
                and states[p].disk_id is not None and states[p].disk_id != states[p].base_id]
    if replaced and new:
        at = {states[p].disk_id: p for p in new if states[p].disk_id is not None}
        for q in replaced:
            p = at.get(states[q].base_id)
            if p is not None and p not in paired and states[p].disk == states[q].base and states[p].disk_kind == states[q].brain_kind:
                plan.replaced_moves.append((q, p))
                paired.add(p)
                new_set.discard(p)
        new = [p for p in new if p not in paired]

    # 0b. swapped: notes that exchanged names (a → tmp, b → a, tmp → b; or a rotation of more)
    plan.swaps = _swaps(states)
    paired.update(p for c in plan.swaps for p in c)

    def pair(src: str, dst: str) -> None:
        old, st = states[src], states[dst]
        taken.add(src)
        paired.add(dst)
        if st.disk in (old.base, old.brain):
            (plan.edited_moves if old.brain != old.base and st.disk == old.base else plan.moves).append((src, dst))
        else:
            (plan.changed_moves if old.brain == old.base else plan.both_moves).append((src, dst))

    if gone and new:
        # 1. the same file (inode), its content the same or alike
        by_id: dict[int, list[str]] = {}
        for q in gone:
            if states[q].base_id is not None:
                by_id.setdefault(states[q].base_id, []).append(q)
        if by_id:
            for p in new:
                st = states[p]
                for q in by_id.get(st.disk_id, ()) if st.disk_id is not None else ():
                    old = states[q]
                    if q in taken or old.brain_kind != st.disk_kind:
                        continue
                    if st.disk in (old.base, old.brain) or (old.base == EMPTY and old.brain == old.base and st.disk_kind == "page"):
                        pair(q, p)
                        break
        # 2. the same bytes
        by_hash: dict[str, list[str]] = {}
        for q in gone:
            if q in taken:
                continue
            st = states[q]
            by_hash.setdefault(st.base, []).append(q)
            if st.brain != st.base:
                by_hash.setdefault(st.brain, []).append(q)
        for p in new:
            if p in paired:
                continue
            st = states[p]
            src = next((q for q in by_hash.get(st.disk, ()) if q not in taken and states[q].brain_kind == st.disk_kind), None)
            if src is not None:
                pair(src, p)
        # 3. similar text (to the old path's base, which the disk side edited): pages only, best first
        def same_file(q: str, p: str) -> bool:
            return q in states and p in states and states[p].disk_id is not None and states[p].disk_id == states[q].base_id

        cands = sorted((-sc, not same_file(q, p), posixpath.basename(q) != posixpath.basename(p), q, p) for (q, p), sc in similar.items()
                       if sc >= SIMILAR_MIN or (sc >= INODE_MIN and same_file(q, p)))
        for _, _, _, q, p in cands:
            if q in taken or p in paired:
                continue
            old, st = states.get(q), states.get(p)
            if not (q in gone_set and p in new_set and old.brain_kind == "page" and st.disk_kind == "page"):
                continue
            pair(q, p)
    if trashed:
        _revive(states, [p for p in new if p not in paired and states[p].disk_kind == "page"], trashed, trashed_similar or {}, plan)
    for pairs in (plan.moves, plan.edited_moves, plan.changed_moves, plan.both_moves, plan.replaced_moves, plan.revived_moves):
        pairs.sort(key=lambda m: (m[1], m[0]))
    moved = {p for m in plan.moves + plan.edited_moves + plan.changed_moves + plan.both_moves + plan.replaced_moves + plan.revived_moves + plan.swaps for p in m}
    for p in sorted(states):
        if p in moved:
            continue
        st = states[p]
        d, s, b = st.disk, st.brain, st.base
        if d == s:
            plan.settled.append(p)
        elif d == b:
            (plan.write if s is not None else plan.remove).append(p)
        elif b is None and d is not None and s is None and st.disk_history in ("deleted", "moved"):
            # an old copy (a teammate's old vault, a restored backup) of a page the brain deleted
            # or moved away: the history has these bytes; the page is not brought back
            plan.old_copies.append(p)
        elif b is None and d is not None and s is not None and st.disk_history == "older":
            # no base, and the file holds an older version of the page: just old, nothing to keep
            plan.write.append(p)
            plan.older.add(p)
        elif s == b:
            if d is not None and st.stale == "merge":
                plan.merge.append(p)
            elif d is not None and st.stale == "conflict":
                # saved from an older version and the merge conflicts: as for no-base, the
                # brain's (newer) version stays and the file's bytes are the copy
                plan.conflicts.append((p, "stale-save"))
            else:
                (plan.import_ if d is not None else plan.trash).append(p)
        elif d is not None and s is not None and st.disk_was_brain:
            plan.write.append(p)
            plan.echoes.add(p)
        elif d is not None and s is not None and b is None:
            # this folder never agreed with the brain on the path (a new machine, a restored
            # backup, a renamed vault): the brain's version stays, the file's is the copy
            plan.conflicts.append((p, "no-base"))
        elif d is not None and s is not None and st.both_merge:
            # both changed since the base, and the edits do not overlap: as git merges
            plan.merged.append(p)
        elif d is not None and s is not None and st.stale == "conflict":
            # both changed, the file's save made from a version older than the base and not
            # merging: a stale save still, the brain's version stays (trial 51)
            plan.conflicts.append((p, "stale-save"))
        else:
            kind = "both-changed" if d is not None and s is not None else ("deleted-on-disk" if d is None else "deleted-in-brain")
            plan.conflicts.append((p, kind))
    if created and plan.trash:
        _adopt(states, created, created_similar or {}, plan)
    return plan


def _swaps(states: Mapping[str, PathState]) -> list[tuple[str, ...]]:
    """The module's **Swapped** cycles: pages unchanged in the brain since the base whose notes
    now hold another one's base bytes, exactly, each the one path whose base they are, closing
    into a cycle ``(p0, p1, …)`` (the page at ``p[i]`` moves to ``p[i + 1]``, the last to ``p0``;
    ``p0`` the least path). Sorted by ``p0``. Pure."""
    cand = [p for p in sorted(states) if (st := states[p]).base is not None and st.brain == st.base and st.brain_kind == "page"
            and st.disk is not None and st.disk != st.base and not st.disk_was_brain]
    if len(cand) < 2:
        return []
    by_base: dict[str, list[str]] = {}
    for p in cand:
        by_base.setdefault(states[p].base, []).append(p)
    claims: dict[str, list[str]] = {}  # q → the notes holding q's base bytes
    for p in cand:
        qs = by_base.get(states[p].disk, [])
        if len(qs) == 1 and qs[0] != p:
            claims.setdefault(qs[0], []).append(p)
    dst_of = {q: ps[0] for q, ps in claims.items() if len(ps) == 1}  # the page at q moves to dst_of[q]
    out, seen = [], set()
    for start in sorted(dst_of):
        if start in seen:
            continue
        cycle, p = [start], dst_of[start]
        while p != start and p in dst_of and p not in cycle:
            cycle.append(p)
            p = dst_of[p]
        if p == start and len(cycle) >= 2:
            out.append(tuple(cycle))
            seen.update(cycle)
    return out


def _pair_once(olds: list[str], news: list[str], old_file: Mapping[str, int | None], old_hash: Mapping[str, str],
               new_file: Mapping[str, int | None], new_hash: Mapping[str, str],
               scores: Mapping[tuple[str, str], float]) -> list[tuple[str, str]]:
    """One-to-one pairs ``(old, new)`` of vanished pages ``olds`` (in their order) and new notes
    ``news`` (in theirs), by the module's evidence for a page out of the brain's sight (the
    **Revived** and **Adopted** pairs): 1. the same file (``old_file[q] == new_file[p]``, not
    None) holding the same bytes or an old text that was empty; 2. the same bytes
    (``old_hash[q] == new_hash[p]``: sha256 hex); 3. similar text, best score first
    (``scores[(q, p)]`` ≥ ``SIMILAR_MIN``, or ≥ ``INODE_MIN`` for the same file; ties to the same
    file, then the same file name, then the paths). Pure; the result is in pairing order."""
    from .similar import INODE_MIN, SIMILAR_MIN

    taken: set[str] = set()
    paired: set[str] = set()
    pairs: list[tuple[str, str]] = []
    by_file: dict[int, list[str]] = {}
    by_hash: dict[str, list[str]] = {}
    for q in olds:
        if old_file[q] is not None:
            by_file.setdefault(old_file[q], []).append(q)
        by_hash.setdefault(old_hash[q], []).append(q)

    def same_file(q: str, p: str) -> bool:
        return new_file[p] is not None and new_file[p] == old_file[q]

    def take(q: str, p: str) -> None:
        taken.add(q)
        paired.add(p)
        pairs.append((q, p))

    for p in news:  # 1. the same file
        fid = new_file[p]
        q = next((q for q in by_file.get(fid, ()) if q not in taken and old_hash[q] in (new_hash[p], EMPTY)), None) if fid is not None else None
        if q is not None:
            take(q, p)
    for p in news:  # 2. the same bytes
        if p not in paired:
            q = next((q for q in by_hash.get(new_hash[p], ()) if q not in taken), None)
            if q is not None:
                take(q, p)
    olds_set, news_set = set(olds), set(news)
    cands = sorted((-sc, not same_file(q, p), posixpath.basename(q) != posixpath.basename(p), q, p) for (q, p), sc in scores.items()
                   if q in olds_set and p in news_set and (sc >= SIMILAR_MIN or (sc >= INODE_MIN and same_file(q, p))))
    for _, _, _, q, p in cands:  # 3. similar text
        if q not in taken and p not in paired:
            take(q, p)
    return pairs


def _adopt(states: Mapping[str, PathState], created: Mapping[str, Created],
           scores: Mapping[tuple[str, str], float], plan: Plan) -> None:
    """The **Adopted** pairs (module docstring): each page of ``plan.trash`` with a page of
    ``created`` not otherwise in the plan (absent from ``states``, or settled there), one to one
    (:func:`_pair_once`), into ``plan.adopted_moves`` (and out of ``plan.trash``)."""
    olds = [q for q in plan.trash if states[q].brain_kind == "page" and states[q].base is not None and states[q].brain == states[q].base]
    news = sorted(p for p in created if p not in states or p in plan.settled)
    if not olds or not news:
        return
    pairs = _pair_once(olds, news, {q: states[q].base_id for q in olds}, {q: states[q].base for q in olds},
                       {p: created[p].file_id for p in news}, {p: created[p].hash for p in news}, scores)
    if pairs:
        taken, paired = {q for q, _ in pairs}, {p for _, p in pairs}
        plan.adopted_moves.extend(sorted(pairs, key=lambda m: (m[1], m[0])))
        plan.trash[:] = [q for q in plan.trash if q not in taken]
        plan.settled[:] = [p for p in plan.settled if p not in paired]


def _revive(states: Mapping[str, PathState], new: list[str], trashed: Mapping[str, Trashed],
            scores: Mapping[tuple[str, str], float], plan: Plan) -> None:
    """The **Revived** pairs (module docstring) of the new notes ``new`` (sorted, unpaired) with
    the pages ``trashed``, one to one (:func:`_pair_once`), into ``plan.revived_moves``."""
    olds = sorted(trashed)
    plan.revived_moves.extend(_pair_once(olds, new, {q: trashed[q].file_id for q in olds}, {q: trashed[q].hash for q in olds},
                                         {p: states[p].disk_id for p in new}, {p: states[p].disk for p in new}, scores))


