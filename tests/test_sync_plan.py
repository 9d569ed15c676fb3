"""The pure three-way decision (gbrain/sync/plan.py) over every combination of disk, brain and
base, including moves, echoes of a round that died, and deterministic pairing."""
import itertools

from hypothesis import given, settings, strategies as st

from gbrain.sync.plan import PathState, decide
import pytest

pytestmark = pytest.mark.engine_free  # the same on both engines: runs in the SQLite run only (conftest)

HASHES = [None, "h1", "h2", "h3"]


def expected(d, s, b, echo):
    """The rule table of docs/sync.md, written out independently of the implementation."""
    if d == s:
        return "settled"
    if d == b:
        return "write" if s is not None else "remove"
    if s == b:
        return "import" if d is not None else "trash"
    if d is not None and s is not None and echo:
        return "write"
    if b is None and d is not None and s is not None:
        return "conflict:no-base"
    if d is None:
        return "conflict:deleted-on-disk"
    if s is None:
        return "conflict:deleted-in-brain"
    return "conflict:both-changed"


def test_every_combination_of_one_path():
    seen = set()
    for d, s, b in itertools.product(HASHES, repeat=3):
        for echo in (False, True):
            st_ = PathState(disk=d, brain=s, base=b, brain_kind="page" if s else None, disk_kind="page" if d else None, disk_was_brain=echo)
            plan = decide({"a.md": st_})
            got = plan.action("a.md")
            assert got == expected(d, s, b, echo), (d, s, b, echo)
            assert ("a.md" in plan.echoes) == (got == "write" and d not in (s, b) and s != b)
            seen.add(got)
    assert seen == {"settled", "write", "remove", "import", "trash", "conflict:deleted-on-disk", "conflict:deleted-in-brain", "conflict:both-changed", "conflict:no-base"}


def test_a_file_new_on_disk_with_no_base_is_imported_and_a_page_only_in_the_brain_is_written():
    plan = decide({"new.md": PathState(disk="h1", disk_kind="page"), "brain-only.md": PathState(brain="h2", brain_kind="page")})
    assert plan.import_ == ["new.md"] and plan.write == ["brain-only.md"]


def test_a_rename_is_one_move_keeping_the_row():
    plan = decide({
        "people/ana.md": PathState(base="h1", brain="h1", brain_kind="page"),
        "people/ana-lima.md": PathState(disk="h1", disk_kind="page"),
    })
    assert plan.moves == [("people/ana.md", "people/ana-lima.md")]
    assert not (plan.import_ or plan.trash or plan.write or plan.conflicts)


def test_no_move_when_kinds_differ_or_the_target_is_known():
    # a page's bytes reappearing as an attachment is not the page moving
    p = decide({"a.md": PathState(base="h1", brain="h1", brain_kind="page"), "a.txt": PathState(disk="h1", disk_kind="file")})
    assert p.moves == [] and p.action("a.md") == "trash" and p.action("a.txt") == "import"
    p = decide({"a.md": PathState(base="h1", brain="h9", brain_kind="page"), "a.txt": PathState(disk="h1", disk_kind="file")})
    assert p.edited_moves == [] and p.action("a.md") == "conflict:deleted-on-disk" and p.action("a.txt") == "import"
    # a destination the brain already has (or had) is not a move target
    p = decide({"a.md": PathState(base="h1", brain="h1", brain_kind="page"), "b.md": PathState(disk="h1", base="h0", disk_kind="page")})
    assert p.moves == []
    p = decide({"a.md": PathState(base="h1", brain="h9", brain_kind="page"), "b.md": PathState(disk="h1", base="h0", disk_kind="page")})
    assert p.edited_moves == []


def test_a_file_moved_on_disk_while_the_brain_edited_the_page_moves_and_takes_the_brain_text():
    """mv a.md b.md on disk (bytes unchanged: b's hash is a's base) while the brain edited a:
    one move of the row, then the brain's text is written to b (the disk side only moved)."""
    p = decide({"a.md": PathState(base="h1", brain="h9", brain_kind="page"), "b.md": PathState(disk="h1", disk_kind="page")})
    assert p.edited_moves == [("a.md", "b.md")] and p.moves == []
    assert p.action("a.md") == "edited-move-from" and p.action("b.md") == "edited-move-to"
    assert not (p.import_ or p.trash or p.write or p.conflicts)


def test_moved_and_edited_on_disk_while_edited_in_the_brain_is_not_guessed():
    # b's bytes are neither a's base nor the brain's text: a conflict for a, an import for b
    p = decide({"a.md": PathState(base="h1", brain="h9", brain_kind="page"), "b.md": PathState(disk="h2", disk_kind="page")})
    assert p.moves == [] and p.edited_moves == []
    assert p.action("a.md") == "conflict:deleted-on-disk" and p.action("b.md") == "import"


def test_a_new_path_holding_the_brains_text_of_a_vanished_page_is_its_move():
    """A round that wrote the brain's text to a moved page's new path and died before recording
    it leaves b holding exactly the brain's bytes: a plain move (both sides then agree)."""
    p = decide({"a.md": PathState(base="h1", brain="h9", brain_kind="page"), "b.md": PathState(disk="h9", disk_kind="page")})
    assert p.moves == [("a.md", "b.md")] and p.edited_moves == []
    assert not (p.import_ or p.trash or p.write or p.conflicts)


def test_two_copies_of_one_vanished_page_move_once_and_the_second_is_imported():
    plan = decide({
        "old.md": PathState(base="h1", brain="h1", brain_kind="page"),
        "b.md": PathState(disk="h1", disk_kind="page"),
        "a.md": PathState(disk="h1", disk_kind="page"),
    })
    assert plan.moves == [("old.md", "a.md")]  # sorted order: deterministic
    assert plan.import_ == ["b.md"]


def test_notes_that_swapped_names_are_a_swap_of_their_pages_not_two_edits():
    """a → tmp, b → a, tmp → b (trial 68: two edits, each name's history then held the other
    note's text): each page moves to the name holding its bytes; a rotation of three alike. A
    page the brain edited, a note whose bytes are not exactly another's base, or bytes two bases
    share, is no swap."""
    a, b, c = (PathState(disk=d, brain=s, base=s, brain_kind="page") for d, s in (("h2", "h1"), ("h1", "h2"), ("h3", "h3")))
    plan = decide({"a.md": a, "b.md": b, "c.md": c})
    assert plan.swaps == [("a.md", "b.md")] and plan.import_ == [] and plan.action("b.md") == "swap" and plan.settled == ["c.md"]
    rot = {"a.md": PathState(disk="h3", brain="h1", base="h1", brain_kind="page"), "b.md": PathState(disk="h1", brain="h2", base="h2", brain_kind="page"),
           "c.md": PathState(disk="h2", brain="h3", base="h3", brain_kind="page")}
    assert decide(rot).swaps == [("a.md", "b.md", "c.md")]
    edited = {"a.md": PathState(disk="h2", brain="h9", base="h1", brain_kind="page"), "b.md": PathState(disk="h1", brain="h2", base="h2", brain_kind="page")}
    assert decide(edited).swaps == []
    shared = {"a.md": PathState(disk="h2", brain="h1", base="h1", brain_kind="page"), "b.md": PathState(disk="h1", brain="h2", base="h2", brain_kind="page"),
              "c.md": PathState(disk="h1", brain="h2", base="h2", brain_kind="page")}
    assert decide(shared).swaps == []


def test_two_vanished_pages_with_equal_bytes_pair_with_two_new_paths():
    plan = decide({
        "x/1.md": PathState(base="h1", brain="h1", brain_kind="page"),
        "x/2.md": PathState(base="h1", brain="h1", brain_kind="page"),
        "y/1.md": PathState(disk="h1", disk_kind="page"),
        "y/2.md": PathState(disk="h1", disk_kind="page"),
    })
    assert plan.moves == [("x/1.md", "y/1.md"), ("x/2.md", "y/2.md")]


paths = st.sampled_from(["a.md", "b.md", "c/d.md", "e.png", "f.md"])
hashes = st.sampled_from(HASHES)
states = st.builds(
    lambda d, s, b, echo, page, hist: PathState(disk=d, brain=s, base=b, brain_kind=(("page" if page else "file") if s else None), disk_kind=(("page" if page else "file") if d else None),
                                                disk_was_brain=echo, disk_history=hist),
    hashes, hashes, hashes, st.booleans(), st.booleans(), st.sampled_from([None, "older", "deleted", "moved"]),
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(paths, states, max_size=5))
def test_every_path_gets_exactly_one_action_and_the_plan_is_safe(states_):
    plan = decide(states_)
    actions = {p: plan.action(p) for p in states_}
    buckets = [p for m in plan.moves + plan.edited_moves for p in m] + plan.write + plan.remove + plan.import_ + plan.trash + [p for p, _ in plan.conflicts] + plan.settled + plan.old_copies + plan.merged + [p for c in plan.swaps for p in c]
    assert sorted(buckets) == sorted(states_)  # each path exactly once
    bases = [states_[p].base for p in states_]
    for c in plan.swaps:  # a swap moves pages the brain did not edit, each to the note holding its base's bytes
        assert all(states_[p].brain == states_[p].base and states_[q].disk == states_[p].base and bases.count(states_[p].base) == 1
                   for p, q in zip(c, c[1:] + c[:1])), c
    for p, a in actions.items():
        s = states_[p]
        if a == "trash":  # the brain's copy leaves only when nobody changed it
            assert s.brain == s.base and s.disk is None
        if a in ("move-from", "edited-move-from"):  # a moved row keeps the brain's text; the old file is gone
            assert s.disk is None and s.brain is not None and s.base is not None
        if a in ("move-to", "edited-move-to"):  # the destination is new to the brain and the base
            assert s.brain is None and s.base is None and s.disk is not None
        if a == "write" and p not in plan.echoes and p not in plan.older:  # a file is overwritten only when it is at the base
            assert s.disk == s.base
        if p in plan.older:  # …or, with no base, holds an older version of the page (history has it)
            assert a == "write" and s.base is None and s.disk is not None and s.brain is not None and s.disk_history == "older"
        if a == "remove-old-copy":  # an old copy of a page deleted or moved away in the brain: history has its bytes
            assert s.base is None and s.brain is None and s.disk is not None and s.disk_history in ("deleted", "moved")
        if a == "remove":
            assert s.disk == s.base and s.brain is None
        if a == "import":
            assert s.brain == s.base
        if a.startswith("conflict"):
            assert s.disk != s.base and s.brain != s.base and s.disk != s.brain
    for src, dst in plan.moves:  # the new file is the old one's base (only moved) or the brain's text
        assert states_[dst].disk in (states_[src].base, states_[src].brain)
        assert states_[dst].disk_kind == states_[src].brain_kind
    for src, dst in plan.edited_moves:  # only moved on disk, edited in the brain: the brain's text is written
        assert states_[dst].disk == states_[src].base != states_[src].brain
        assert states_[dst].disk_kind == states_[src].brain_kind
    # the same states in another order give the same plan
    again = decide(dict(reversed(list(states_.items()))))
    assert again == plan


def test_a_file_that_differs_from_the_brain_with_no_base_is_a_no_base_conflict():
    """A folder that never agreed with the brain on a path (an old copy of the vault, a new
    machine): not a both-changed conflict where the file wins, but ``no-base``, where the
    brain's version stays; a path only on one side, or equal on both, is no conflict."""
    p = decide({
        "stale.md": PathState(disk="h1", brain="h2", brain_kind="page", disk_kind="page"),
        "same.md": PathState(disk="h1", brain="h1", brain_kind="page", disk_kind="page"),
        "new.md": PathState(disk="h3", disk_kind="page"),
        "brain-only.md": PathState(brain="h4", brain_kind="page"),
        "echo.md": PathState(disk="h1", brain="h2", brain_kind="page", disk_kind="page", disk_was_brain=True),
    })
    assert p.conflicts == [("stale.md", "no-base")]
    assert p.settled == ["same.md"] and p.import_ == ["new.md"] and p.write == ["brain-only.md", "echo.md"]


def test_a_no_base_file_holding_an_older_version_of_the_page_is_just_old():
    """A folder with no base for a path (a teammate joining from an old copy of the vault, a
    restored backup) whose file holds an OLDER version of the page (the caller found its hash in
    the page's history): no conflict copy, the brain's version is written to the file; bytes the
    page never had stay a ``no-base`` conflict (the brain's version stays, the file's is the copy)."""
    p = decide({
        "old.md": PathState(disk="h1", brain="h2", brain_kind="page", disk_kind="page", disk_history="older"),
        "new-text.md": PathState(disk="h3", brain="h2", brain_kind="page", disk_kind="page"),
        "att.png": PathState(disk="h5", brain="h6", brain_kind="file", disk_kind="file", disk_history="older"),
    })
    assert p.write == ["att.png", "old.md"] and p.older == {"att.png", "old.md"} and not p.echoes
    assert p.conflicts == [("new-text.md", "no-base")]
    assert p.action("old.md") == "write"


def test_a_no_base_file_of_a_page_deleted_or_moved_in_the_brain_is_removed_not_brought_back():
    """A path the brain has no page for, no base, whose file holds a version of the page that was
    there (deleted: in the trash; or moved away: the new path is written by export): the old copy
    is removed from the folder, nothing is imported; bytes found nowhere in history are new
    content and are imported as before."""
    p = decide({
        "civic/a.md": PathState(disk="h1", disk_kind="page", disk_history="deleted"),
        "people/ana.md": PathState(disk="h2", disk_kind="page", disk_history="moved"),
        "people/ana-moved.md": PathState(brain="h2", brain_kind="page"),
        "civic/b.md": PathState(disk="h3", disk_kind="page"),
    })
    assert p.old_copies == ["civic/a.md", "people/ana.md"]
    assert p.action("civic/a.md") == "remove-old-copy" and p.action("people/ana.md") == "remove-old-copy"
    assert p.import_ == ["civic/b.md"] and p.write == ["people/ana-moved.md"]
    assert not (p.conflicts or p.trash or p.remove)


def test_the_history_flag_changes_nothing_where_there_is_a_base_or_a_move():
    """``disk_history`` is only read for a path with no base: with a base the plain rules apply,
    and a path new on disk that pairs as a move destination stays a move."""
    p = decide({
        "a.md": PathState(disk="h1", brain="h2", base="h1", brain_kind="page", disk_kind="page", disk_history="older"),
        "b.md": PathState(disk="h3", brain="h2", base="h2", brain_kind="page", disk_kind="page", disk_history="older"),
        "x.md": PathState(base="h5", brain="h5", brain_kind="page"),
        "y.md": PathState(disk="h5", disk_kind="page", disk_history="deleted"),
    })
    assert p.action("a.md") == "write" and p.older == set()
    assert p.action("b.md") == "import"
    assert p.moves == [("x.md", "y.md")] and p.old_copies == []
