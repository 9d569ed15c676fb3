"""The pure three-way decision (gbrain/sync/plan.py) over every combination of disk, brain and
base, including moves, echoes of a round that died, and deterministic pairing."""
import itertools

from hypothesis import given, settings, strategies as st

from gbrain.sync.plan import PathState, decide

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
    assert seen == {"settled", "write", "remove", "import", "trash", "conflict:deleted-on-disk", "conflict:deleted-in-brain", "conflict:both-changed"}


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


def test_no_move_when_the_brain_changed_since_the_base_or_kinds_differ_or_the_target_is_known():
    # the brain edited the page: its deletion on disk is a conflict, the new file an import
    p = decide({"a.md": PathState(base="h1", brain="h9", brain_kind="page"), "b.md": PathState(disk="h1", disk_kind="page")})
    assert p.moves == [] and p.action("a.md") == "conflict:deleted-on-disk" and p.action("b.md") == "import"
    # a page's bytes reappearing as an attachment is not the page moving
    p = decide({"a.md": PathState(base="h1", brain="h1", brain_kind="page"), "a.txt": PathState(disk="h1", disk_kind="file")})
    assert p.moves == [] and p.action("a.md") == "trash" and p.action("a.txt") == "import"
    # a destination the brain already has (or had) is not a move target
    p = decide({"a.md": PathState(base="h1", brain="h1", brain_kind="page"), "b.md": PathState(disk="h1", base="h0", disk_kind="page")})
    assert p.moves == []


def test_two_copies_of_one_vanished_page_move_once_and_the_second_is_imported():
    plan = decide({
        "old.md": PathState(base="h1", brain="h1", brain_kind="page"),
        "b.md": PathState(disk="h1", disk_kind="page"),
        "a.md": PathState(disk="h1", disk_kind="page"),
    })
    assert plan.moves == [("old.md", "a.md")]  # sorted order: deterministic
    assert plan.import_ == ["b.md"]


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
    lambda d, s, b, echo, page: PathState(disk=d, brain=s, base=b, brain_kind=(("page" if page else "file") if s else None), disk_kind=(("page" if page else "file") if d else None), disk_was_brain=echo),
    hashes, hashes, hashes, st.booleans(), st.booleans(),
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(paths, states, max_size=5))
def test_every_path_gets_exactly_one_action_and_the_plan_is_safe(states_):
    plan = decide(states_)
    actions = {p: plan.action(p) for p in states_}
    buckets = [p for m in plan.moves for p in m] + plan.write + plan.remove + plan.import_ + plan.trash + [p for p, _ in plan.conflicts] + plan.settled
    assert sorted(buckets) == sorted(states_)  # each path exactly once
    for p, a in actions.items():
        s = states_[p]
        if a in ("trash", "move-from"):  # the brain's copy leaves only when nobody changed it
            assert s.brain == s.base and s.disk is None
        if a == "write" and p not in plan.echoes:  # a file is overwritten only when it is at the base
            assert s.disk == s.base
        if a == "remove":
            assert s.disk == s.base and s.brain is None
        if a == "import":
            assert s.brain == s.base
        if a.startswith("conflict"):
            assert s.disk != s.base and s.brain != s.base and s.disk != s.brain
    # the same states in another order give the same plan
    again = decide(dict(reversed(list(states_.items()))))
    assert again == plan
