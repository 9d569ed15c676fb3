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
S == B, D != B              the file changed: ``import`` it (``trash`` the brain's copy when D is None)
all three differ, and D is  an echo: gbrain itself wrote D in a round that died before recording
a version the brain had     it; the brain's current version is written (``write`` + ``echoes``)
otherwise                   a conflict: ``both-changed``, ``deleted-on-disk`` (D None) or
                            ``deleted-in-brain`` (S None)
==========================  ==========================================================

Moves: a path gone from disk whose brain copy is unchanged since the base (``B == S``, D None),
plus a path new on disk (not in the brain, no base) with the same hash and of the same kind
(page or file), is a rename. Each vanished path pairs with at most one new path; candidates are
taken in sorted path order, so the plan is deterministic.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping


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


@dataclass
class Plan:
    """What a round will do. Lists are in sorted path order; ``moves`` are ``(old, new)``."""

    moves: list[tuple[str, str]] = field(default_factory=list)
    write: list[str] = field(default_factory=list)        # brain → file
    remove: list[str] = field(default_factory=list)       # deleted in the brain; file still at base
    import_: list[str] = field(default_factory=list)      # file → brain
    trash: list[str] = field(default_factory=list)        # file deleted; brain unchanged
    conflicts: list[tuple[str, str]] = field(default_factory=list)  # (path, kind)
    settled: list[str] = field(default_factory=list)      # equal on both sides
    echoes: set[str] = field(default_factory=set)         # in ``write``: the file held an earlier brain version

    def action(self, path: str) -> str:
        """The one action planned for ``path``: ``move-from``, ``move-to``, ``write``, ``remove``,
        ``import``, ``trash``, ``conflict:<kind>``, ``settled``; KeyError when not in the plan."""
        for old, new in self.moves:
            if path == old:
                return "move-from"
            if path == new:
                return "move-to"
        for name, xs in (("write", self.write), ("remove", self.remove), ("import", self.import_), ("trash", self.trash), ("settled", self.settled)):
            if path in xs:
                return name
        for p, kind in self.conflicts:
            if p == path:
                return f"conflict:{kind}"
        raise KeyError(path)


def decide(states: Mapping[str, PathState]) -> Plan:
    """The plan for one round: ``states`` maps each relative path to its :class:`PathState`.

    Pure and deterministic: the same states give the same plan, whatever the mapping's order.
    Every path lands in exactly one bucket of the plan (a move names two paths). Raises nothing.
    """
    plan = Plan()
    gone: dict[str, list[str]] = {}
    for p in sorted(states):
        st = states[p]
        if st.base is not None and st.disk is None and st.brain == st.base:
            gone.setdefault(st.base, []).append(p)
    if gone:
        for p in sorted(states):
            st = states[p]
            if st.disk is not None and st.brain is None and st.base is None and gone.get(st.disk):
                src = gone[st.disk][0]
                if states[src].brain_kind == st.disk_kind:
                    gone[st.disk].pop(0)
                    plan.moves.append((src, p))
    moved = {p for m in plan.moves for p in m}
    for p in sorted(states):
        if p in moved:
            continue
        st = states[p]
        d, s, b = st.disk, st.brain, st.base
        if d == s:
            plan.settled.append(p)
        elif d == b:
            (plan.write if s is not None else plan.remove).append(p)
        elif s == b:
            (plan.import_ if d is not None else plan.trash).append(p)
        elif d is not None and s is not None and st.disk_was_brain:
            plan.write.append(p)
            plan.echoes.add(p)
        else:
            kind = "both-changed" if d is not None and s is not None else ("deleted-on-disk" if d is None else "deleted-in-brain")
            plan.conflicts.append((p, kind))
    return plan
