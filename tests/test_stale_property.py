"""A property of the stale-save merge (`gbrain/sync/merge.py: stale_view`): whatever version an
editor's buffer held, what it saved is never the only text of a page that loses lines.

A page has a version from the file (the oldest) and one to three writes through gbrain after it
(an agent's, a teammate's folder); the editor's buffer holds one of these versions (the newest
one: a plain edit), and the person deletes lines of it and types new ones. The sync's result is
the file's bytes when `stale_view` says None (the plain rules: the file wins), else the merge, or
a conflict (the brain's version stays, the save is a copy: nothing lost). Then the result holds

* every line gbrain's writes added after the buffer's version (the person never saw those: they
  cannot have deleted them), and
* every line the person typed,

or a conflict was reported. Lines are distinct (a hash in each), with blank lines between some,
so the test says nothing about a person typing an agent's very line (then the save is taken as
made after seeing it, by design: `merge.saw_write`).
"""
from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gbrain.sync.merge import stale_view

pytestmark = pytest.mark.engine_free


def _line(who: str, n: int) -> bytes:
    return f"- {who} {n}: {hashlib.sha256(f'{who}{n}'.encode()).hexdigest()[:20]}\n".encode()


def _edit(draw, lines: list[bytes], who: str, first: int) -> tuple[list[bytes], list[bytes]]:
    """``lines`` with some deleted and some of ``who``'s new lines inserted: (new lines, added)."""
    kept = [ln for ln in lines if not draw(st.booleans()) or draw(st.booleans())]  # delete ~1 in 4
    added = [_line(who, first + i) for i in range(draw(st.integers(0, 3)))]
    out = list(kept)
    for ln in added:
        at = draw(st.integers(0, len(out)))
        out[at:at] = [ln] + ([b"\n"] if draw(st.booleans()) and draw(st.booleans()) else [])
    return out, added


@st.composite
def stale_saves(draw):
    base = [b"\n" if draw(st.integers(0, 4)) == 0 else _line("base", i) for i in range(draw(st.integers(0, 10)))]
    versions = [base]  # oldest first
    for w in range(draw(st.integers(1, 3))):
        new, _added = _edit(draw, versions[-1], f"agent{w}", 0)
        versions.append(new)
    k = draw(st.integers(0, len(versions) - 1))  # the buffer's version (last: the newest, a plain edit)
    disk, typed = _edit(draw, versions[k], "person", 0)
    return [b"".join(v) for v in versions], k, b"".join(disk), typed


def _nonblank(text: bytes) -> set[bytes]:
    return {ln for ln in text.splitlines(keepends=True) if ln.strip()}


def check(versions: list[bytes], k: int, disk: bytes, typed: list[bytes]) -> None:
    brain, buffer = versions[-1], versions[k]
    if disk == buffer or disk == brain:
        return  # an unchanged buffer (vim asks first; taken as the undo it looks like) / no change
    older: list[bytes] = []  # newest first, each text once and never the brain's (as the engine gathers them)
    for v in versions[-2::-1]:
        if v != brain and v not in older:
            older.append(v)
    view = stale_view(disk, brain, older) if older else None
    if view is not None and view.merged is None:
        return  # a conflict: the brain's version stays, the save is a copy
    result = disk if view is None else view.merged
    got = _nonblank(result)
    unseen = _nonblank(brain) - _nonblank(buffer)  # what gbrain's writes added after the buffer's version
    assert unseen <= got, f"lost gbrain's lines {sorted(unseen - got)}"
    assert set(typed) <= got, f"lost the person's lines {sorted(set(typed) - got)}"


@settings(max_examples=400, deadline=None)
@given(stale_saves())
def test_a_stale_save_never_loses_gbrains_unseen_lines_nor_the_persons(case):
    check(*case)


def test_the_property_fails_on_the_rule_by_distance(monkeypatch):
    """The check can fail: the case the old rule (the version closest by lines is the buffer's)
    lost, a save that removed what gbrain's write removed is closer to gbrain's version."""
    base = [_line("base", i) for i in range(6)]
    agent = base[:1] + [_line("agent0", 0)] + base[1:2]  # removed four lines, added one
    disk = base[:2] + [_line("person", 0)]  # the stale buffer removed the same four, typed one
    versions = [b"".join(base), b"".join(agent)]
    check(versions, 0, b"".join(disk), [_line("person", 0)])
    import gbrain.sync.merge as merge

    monkeypatch.setattr(merge, "saw_write", lambda before, after, disk: True)  # "based on the newest"
    with pytest.raises(AssertionError, match="lost gbrain's lines"):
        check(versions, 0, b"".join(disk), [_line("person", 0)])
