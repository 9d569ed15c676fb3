"""Both sides changed a page since the last sync: edits that do not overlap are merged three ways.

Before, a page changed in its file *and* in the brain since the last sync was always a
``both-changed`` conflict: the file's version became the page and the brain's a conflict copy,
even when a person had added a timeline line in vim while an agent rewrote the compiled-truth
paragraph. Now, when the base (the version both had at the last sync) is in the page history and
the two edits merge cleanly (``gbrain/sync/merge.py: merge_edits``, the stale-save merge with
git's rule for two insertions at one place, relaxed only for whole timeline entries inside the
timeline), the plan's action is ``merged``: the merged text becomes the page and the file, no
copy. Overlapping edits, a missing base, a deletion, or a file that is not UTF-8 stay conflicts.
"""
from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from gbrain.core.brain import Brain
from gbrain.sync.engine import SyncEngine, conflict_list
from gbrain.sync.merge import merge3, merge_edits
from gbrain.sync.plan import PathState, decide
from gbrain.sync.verify import fresh_import_differences

sys.path.insert(0, str(Path(__file__).parent))
from conftest import editor_save  # noqa: E402
from test_sync import all_versions, sha, tree_files, verify_equal  # noqa: E402
from test_watch import Watch, equal, text_of, wait_for, watch  # noqa: E402,F401

PATH = "people/ana-lima.md"
SLUG = "people/ana-lima"
PARA = b"Ana is raising a Series A for River AI"
ENTRY_D = "- **2026-12-02** | vim \u2014 DISK-ENTRY typed by a person\n".encode()
ENTRY_B = "- **2026-12-03** | agent \u2014 BRAIN-ENTRY written over MCP\n".encode()


def page(body: bytes = b"intro\n", timeline: bytes = b"- **2026-01-01** | a \xe2\x80\x94 first\n", nl: bytes = b"\n") -> bytes:
    text = b"---\ntitle: Ana\ntags: [a]\n---\n\n# Ana\n\n" + body + b"\n---\n\n" + timeline
    return text.replace(b"\n", nl)


# ---- the pure merge ---------------------------------------------------------------------------


@pytest.mark.engine_free
def test_a_timeline_line_and_a_compiled_truth_rewrite_merge():
    base = page(b"Ana is raising.\n")
    brain = page(b"Ana closed the round.\n")
    disk = base + ENTRY_D
    assert merge_edits(base, brain, disk) == brain + ENTRY_D


@pytest.mark.engine_free
def test_the_same_edit_on_both_sides_is_taken_once():
    base = page(b"one\ntwo\nthree\n")
    both = base.replace(b"two", b"TWO")
    assert merge_edits(base, both + ENTRY_B, both) == both + ENTRY_B
    assert merge_edits(base, both, both) == both


@pytest.mark.engine_free
def test_frontmatter_on_one_side_and_body_on_the_other_merge():
    base = page(b"body\n")
    fm = base.replace(b"tags: [a]", b"tags: [a, investor]")
    body = base.replace(b"body\n", b"body, edited\n")
    assert merge_edits(base, fm, body) == fm.replace(b"body\n", b"body, edited\n")
    assert merge_edits(base, body, fm) == fm.replace(b"body\n", b"body, edited\n")


@pytest.mark.engine_free
def test_two_appends_at_one_place_are_kept_only_as_whole_timeline_entries():
    base = page()
    # both appended a timeline entry at the end: both kept, the brain's first
    assert merge_edits(base, base + ENTRY_B, base + ENTRY_D) == base + ENTRY_B + ENTRY_D
    # an entry with an indented detail line is whole too
    detailed = ENTRY_D + b"  more about it\n"
    assert merge_edits(base, base + ENTRY_B, base + detailed) == base + ENTRY_B + detailed
    # both inserted at the top of the timeline (newest first)
    first = b"- **2026-01-01**"
    top = lambda e: base.replace(first, e + first, 1)  # noqa: E731
    assert merge_edits(base, top(ENTRY_B), top(ENTRY_D)) == top(ENTRY_B + ENTRY_D)
    # anything else appended at one place is a conflict, as in git: order or choice is a guess
    assert merge_edits(base, base + b"\nBrain paragraph.\n", base + b"\nFile paragraph.\n") is None
    assert merge_edits(base, base + ENTRY_B, base + b"a plain line\n") is None
    # two paragraphs added at the end of the compiled truth (above the separator)
    ct = lambda x: base.replace(b"intro\n", b"intro\n" + x)  # noqa: E731
    assert merge_edits(base, ct(b"brain\n"), ct(b"disk\n")) is None
    # timeline entries inserted into the compiled truth are not in the timeline
    assert merge_edits(base, ct(ENTRY_B), ct(ENTRY_D)) is None
    # no timeline at all
    plain = b"# Note\n\ntext\n"
    assert merge_edits(plain, plain + ENTRY_B, plain + ENTRY_D) is None
    # the pure merge without the rule (stale saves) keeps both anywhere
    assert merge3(plain, plain + b"x\n", plain + b"y\n") == plain + b"x\ny\n"


@pytest.mark.engine_free
def test_a_paragraph_typed_at_the_bottom_and_a_timeline_begun_by_an_agent_merge():
    """A trial: a page without a timeline; the person typed a paragraph at its end while an agent's
    timeline-add began the timeline there. The paragraph goes above the separator, the new
    timeline after it, in either file order; a file side that begins a timeline too, or an
    agent's insertion that is not a timeline, stays a conflict."""
    base = b"---\ntitle: Ana\n---\n\n# Ana\n\nintro\n"
    para = b"\nA paragraph typed at the bottom.\n"
    agent = b"\n---\n\n" + ENTRY_B
    merged = base + para + agent
    assert merge_edits(base, base + agent, base + para) == merged
    assert fresh_parts(merged) == (b"intro", b"A paragraph typed at the bottom.", 1)
    # the file began a timeline too, or the agent appended a paragraph: a guess, so a conflict
    assert merge_edits(base, base + agent, base + b"\n---\n\n" + ENTRY_D) is None
    assert merge_edits(base, base + b"\nAgent paragraph.\n", base + para) is None
    # the base has a timeline already: the paragraph would land in it (a conflict, as before)
    assert merge_edits(page(), page() + ENTRY_B, page() + para) is None


@pytest.mark.engine_free
def test_a_paragraph_typed_at_the_bottom_and_a_timeline_begun_under_timeline_split_heading_merge():
    """Trial s61: an Obsidian vault (`timeline_split heading`), watch stopped; the person typed a
    line at the end of a note while an agent's `put --timeline-append` began its timeline there
    (`---`, then `## Timeline`, then the entry): the next watch made a conflict copy, for the
    `## Timeline` heading was taken for a line that is no timeline entry. Merged as in `rule`."""
    base = b"# Meeting\n\nWith [[Alpha]] team. #meeting\n"
    para = b"\n- Decided: ship the canvas board.\n"
    agent = b"\n---\n\n## Timeline\n\n" + ENTRY_B
    merged = merge_edits(base, base + agent, base + para, "m.md", "heading")
    assert merged == base + para + agent
    # an agent's paragraph under a timeline heading is no timeline: still a conflict
    assert merge_edits(base, base + b"\n---\n\n## Timeline\n\nAgent paragraph.\n", base + para, "m.md", "heading") is None


def fresh_parts(text: bytes) -> tuple[bytes, bytes, int]:
    """(first compiled-truth line after the title, its last line, timeline entries) of a page."""
    from gbrain.page.markdown import parse_page

    p = parse_page(text.decode("utf-8"), "people/ana.md")
    lines = [ln for ln in p.compiled_truth.splitlines() if ln.strip() and not ln.startswith("#")]
    return lines[0].encode(), lines[-1].encode(), len(p.timeline_entries)


@pytest.mark.engine_free
def test_an_insertion_that_holds_the_other_is_taken_once():
    """A merge written to the file whose brain side changed again before it was recorded is
    merged again next round: the file's insertion holds the brain's, no line twice."""
    base = page()
    assert merge_edits(base, base + ENTRY_B, base + ENTRY_B + ENTRY_D) == base + ENTRY_B + ENTRY_D
    assert merge3(b"a\n", b"a\nx\n", b"a\nx\ny\n") == b"a\nx\ny\n"
    assert merge3(b"a\n", b"a\ny\nx\n", b"a\nx\n") == b"a\ny\nx\n"


@pytest.mark.engine_free
def test_overlaps_deletions_bad_bytes_and_line_endings():
    base = page(b"one\ntwo\nthree\n")
    # the same line changed differently
    assert merge_edits(base, base.replace(b"two", b"2"), base.replace(b"two", b"TWO")) is None
    # a region deleted on one side and edited on the other
    assert merge_edits(base, base.replace(b"one\ntwo\nthree\n", b""), base.replace(b"two", b"TWO")) is None
    # a file that is not UTF-8 (or a brain side: never, but refused the same way)
    assert merge_edits(base, base + ENTRY_B, base.replace(b"two", b"tw\xff")) is None
    # CRLF: merged with every line ending as written
    crlf = page(b"one\ntwo\n", nl=b"\r\n")
    got = merge_edits(crlf, crlf.replace(b"one", b"ONE"), crlf + ENTRY_D.replace(b"\n", b"\r\n"))
    assert got == crlf.replace(b"one", b"ONE") + ENTRY_D.replace(b"\n", b"\r\n")
    # one side converted every line ending (git's autocrlf at a checkout, an editor's setting):
    # the texts merge, in that side's endings (trial 15; before: every line changed, a conflict)
    assert merge_edits(crlf, crlf.replace(b"one", b"ONE"), crlf.replace(b"\r\n", b"\n")) == page(b"ONE\ntwo\n")
    assert merge_edits(base, base + ENTRY_B, base.replace(b"\n", b"\r\n")) == (base + ENTRY_B).replace(b"\n", b"\r\n")
    assert merge_edits(base, base.replace(b"\n", b"\r\n"), base + ENTRY_D) == (base + ENTRY_D).replace(b"\n", b"\r\n")
    # ... but not when the texts overlap, nor when the sides converted apart (a guess)
    assert merge_edits(base, base.replace(b"two", b"2"), base.replace(b"two", b"TWO").replace(b"\n", b"\r\n")) is None
    mixed = base.replace(b"one\n", b"one\r\n")
    assert merge_edits(mixed, base.replace(b"\n", b"\r\n"), base + ENTRY_D) is None
    # no final newline: both appends change the last line
    nonl = base + ENTRY_B.rstrip(b"\n")
    assert merge_edits(nonl, nonl + b"\n" + ENTRY_D, nonl + b"\n" + ENTRY_B) is None


@pytest.mark.engine_free
def test_a_base_without_a_line_break_is_no_line_ending_conversion():
    """Hypothesis (test_history's every-version property, a RecursionError in a helper's
    worktree): a base with no line break at all (a one-line note with no final newline, an empty
    file) and a side that has line breaks was taken for a side that "converted every line
    ending"; the texts with CRLF made LF were the same texts, and merge_edits called itself with
    them until the stack ran out (sync and watch died on such a page). Nothing was converted
    there: the sides merge as they are."""
    assert merge_edits(b"a", b"a\n", b"b") is None  # both changed the one line: a conflict
    assert merge_edits(b"a", b"a", b"b\r\n") == b"b\r\n"  # one side changed: that side
    assert merge_edits(b"a", b"a\r\n", b"a") == b"a\r\n"
    assert merge_edits(b"", b"x\n", b"") == b"x\n"
    assert merge_edits(b"", b"x\r\n", b"y\n") is None
    assert merge_edits(b"one", b"one\n\n---\n\n" + ENTRY_B, b"one\r\n") is None


@pytest.mark.engine_free
def test_decide_merges_only_a_both_changed_page_the_caller_found_mergeable():
    st = dict(disk="d", brain="s", base="b", brain_kind="page")
    plan = decide({"a.md": PathState(**st, both_merge=True), "b.md": PathState(**st),
                   "c.md": PathState(disk=None, brain="s", base="b", brain_kind="page", both_merge=True),
                   "d.md": PathState(disk="d", brain="s", base=None, brain_kind="page", both_merge=True),
                   "e.md": PathState(disk="d", brain="d", base="b", brain_kind="page")})
    assert plan.action("a.md") == "merged" and plan.merged == ["a.md"]
    assert plan.action("b.md") == "conflict:both-changed"
    assert plan.action("c.md") == "conflict:deleted-on-disk"
    assert plan.action("d.md") == "conflict:no-base"
    assert plan.action("e.md") == "settled"  # the same edit on both sides: nothing to do


# ---- the engine (SQLite, and Postgres with --engine postgres) ----------------------------------


@pytest.fixture
def env(synced):
    """The fixture brain bound to its tree by a first sync (conftest.synced)."""
    return synced


def both_edit(brain: Brain, f: Path) -> tuple[bytes, bytes, bytes]:
    """A person appends a timeline entry in the file; an agent rewrites the compiled-truth
    paragraph. Returns (base, the file's version, the brain's version)."""
    base = f.read_bytes()
    disk = base + ENTRY_D
    f.write_bytes(disk)
    brain.put(SLUG, base.replace(PARA, b"Ana closed a Series A for River AI").decode("utf-8"))
    return base, disk, brain.get_text(SLUG).encode("utf-8")


def copies(root: Path) -> list[str]:
    return sorted(p for p in tree_files(root) if ".conflict-" in p)


def test_sync_merges_edits_that_do_not_overlap(env):
    brain, eng, root = env
    f = root / PATH
    base, disk, brain_v = both_edit(brain, f)
    rep = eng.sync()
    assert rep["ok"] and rep["exit_code"] == 0, rep
    assert rep["merged"] == [PATH] and rep["conflicts"] == [] and copies(root) == []
    merged = brain_v + ENTRY_D
    assert f.read_bytes() == merged and text_of(brain, SLUG).encode("utf-8") == merged
    assert {sha(base), sha(disk), sha(brain_v), sha(merged)} <= all_versions(brain, root)  # every version kept
    ops = [r[0] for r in brain.conn.execute("SELECT operation FROM history WHERE kind = 'page' AND name = ? ORDER BY version", (SLUG,))]
    assert ops[-2:] == ["file changed", "both changed merged"]
    assert conflict_list(brain, all=True) == []
    verify_equal(brain, root)
    assert fresh_import_differences(brain) == {}  # derived views equal a fresh import of the merge
    assert any("DISK-ENTRY" in e["summary"] for e in brain.timeline(SLUG))
    again = eng.sync()
    assert again["exit_code"] == 0 and again["counts"]["imported"] == again["counts"]["exported"] == 0


def test_a_checkout_that_converts_line_endings_merges_with_the_brains_edit(env):
    """trial 15: a git checkout with core.autocrlf=true (Windows) rewrote every note with CRLF
    while an agent added a timeline entry through gbrain: the sync made a conflict copy (every
    line differed) though the text changed on one side only. Now the two merge: the file keeps
    its CRLF endings, the agent's entry is in it (as CRLF), no copy, exit 0."""
    brain, eng, root = env
    f = root / PATH
    base = f.read_bytes()
    assert b"\r\n" not in base
    brain.put(SLUG, (base + ENTRY_B).decode("utf-8"))
    f.write_bytes(base.replace(b"\n", b"\r\n"))
    rep = eng.sync()
    assert rep["exit_code"] == 0 and rep["merged"] == [PATH] and copies(root) == [], rep
    merged = (base + ENTRY_B).replace(b"\n", b"\r\n")
    assert f.read_bytes() == merged and text_of(brain, SLUG).encode("utf-8") == merged
    verify_equal(brain, root)
    assert fresh_import_differences(brain) == {}


def test_a_later_save_from_the_editors_buffer_keeps_the_brains_edit(env):
    """The editor still holds the file's version (without the agent's edit) and saves it again
    with more typing: a stale save against the merge, merged again; the agent's edit stays."""
    brain, eng, root = env
    f = root / PATH
    _base, disk, brain_v = both_edit(brain, f)
    assert eng.sync()["merged"] == [PATH]
    editor_save(f, disk + b"typed later\n")
    rep = eng.sync()
    assert rep["merged"] == [PATH] and rep["conflicts"] == []
    assert f.read_bytes() == brain_v + ENTRY_D + b"typed later\n" == text_of(brain, SLUG).encode("utf-8")
    assert fresh_import_differences(brain) == {}


@pytest.mark.parametrize("kind", ["entry/truth", "entry/entry"])
def test_a_sync_killed_after_writing_the_merge_converges_with_no_line_twice(env, monkeypatch, kind):
    """The merge is written to the file inside the round's transaction, before it records it; a
    process that dies in between (the transaction rolled back) leaves the merge in the file and the
    brain's version in the brain: the next round merges them again (the file's insertion holds the
    brain's) to the same text, no copy."""
    from gbrain.sync import engine as engmod

    brain, eng, root = env
    f = root / PATH
    base = f.read_bytes()
    f.write_bytes(base + ENTRY_D)
    if kind == "entry/truth":
        brain.put(SLUG, base.replace(PARA, b"Ana closed a Series A for River AI").decode("utf-8"))
    else:
        brain.put(SLUG, (base + ENTRY_B).decode("utf-8"))
    merged = brain.get_text(SLUG).encode("utf-8") + ENTRY_D

    def die(*a, **k):  # the process dies after writing the merge, before its transaction commits
        raise KeyboardInterrupt

    monkeypatch.setattr(engmod.SyncEngine, "_save_then_merge", die)
    with pytest.raises(KeyboardInterrupt):
        eng.sync()
    monkeypatch.undo()
    assert f.read_bytes() == merged
    rep = eng.sync()
    assert rep["merged"] == [PATH] and rep["exit_code"] == 0 and copies(root) == []
    assert f.read_bytes() == merged == text_of(brain, SLUG).encode("utf-8")
    assert merged.count(ENTRY_D) == 1 and fresh_import_differences(brain) == {}


def test_overlapping_edits_stay_a_conflict(env):
    brain, eng, root = env
    f = root / PATH
    base = f.read_bytes()
    disk = base.replace(PARA, b"Ana paused the raise")
    f.write_bytes(disk)
    brain.put(SLUG, base.replace(PARA, b"Ana closed a Series A for River AI").decode("utf-8"))
    brain_v = brain.get_text(SLUG).encode("utf-8")
    rep = eng.sync()
    assert rep["exit_code"] == 3 and rep["merged"] == []
    [c] = rep["conflicts"]
    assert c["kind"] == "both-changed" and f.read_bytes() == disk and (root / c["copy_path"]).read_bytes() == brain_v
    verify_equal(brain, root)


def test_both_appending_timeline_entries_merge_but_paragraphs_conflict(env):
    brain, eng, root = env
    f = root / PATH
    base = f.read_bytes()
    f.write_bytes(base + ENTRY_D)
    brain.put(SLUG, (base + ENTRY_B).decode("utf-8"))
    rep = eng.sync()
    assert rep["merged"] == [PATH] and rep["exit_code"] == 0
    assert f.read_bytes() == base + ENTRY_B + ENTRY_D == text_of(brain, SLUG).encode("utf-8")
    assert fresh_import_differences(brain) == {}
    base = f.read_bytes()
    f.write_bytes(base + b"\nFile paragraph.\n")
    brain.put(SLUG, (base + b"\nBrain paragraph.\n").decode("utf-8"))
    rep = eng.sync()
    assert rep["exit_code"] == 3 and rep["merged"] == [] and [c["kind"] for c in rep["conflicts"]] == ["both-changed"]


def test_a_one_line_note_with_no_final_newline_edited_on_both_sides_is_a_conflict_not_a_crash(env):
    """A note of one line and no line break, an agent's timeline-add on it (the page gains line
    breaks) and a hand edit of the file: sync died with a RecursionError (merge_edits took the
    brain's side for a line-ending conversion). Now: the conflict copy (both changed the one line)."""
    brain, eng, root = env
    f = root / "notes" / "one-line.md"
    f.parent.mkdir(exist_ok=True)
    f.write_bytes(b"one line")
    assert eng.sync()["exit_code"] == 0
    brain.timeline_add("notes/one-line", "2026-12-03", "met")
    f.write_bytes(b"one line, edited")
    rep = eng.sync()
    assert rep["exit_code"] == 3 and rep["merged"] == [] and [c["kind"] for c in rep["conflicts"]] == ["both-changed"]
    verify_equal(brain, root)


def test_no_base_text_in_the_history_stays_a_conflict(env):
    """A base whose body is gone from the history (pruned) cannot be merged against."""
    brain, eng, root = env
    f = root / PATH
    base = f.read_bytes()
    both_edit(brain, f)
    with brain.transaction():
        brain.conn.execute("UPDATE history_bodies SET hash = 'pruned-' || hash WHERE hash = ?", (sha(base),))
    rep = eng.sync()
    assert rep["exit_code"] == 3 and rep["merged"] == [] and [c["kind"] for c in rep["conflicts"]] == ["both-changed"]


def test_a_deletion_against_an_edit_and_a_file_not_utf8_stay_conflicts(env):
    brain, eng, root = env
    f = root / PATH
    base = f.read_bytes()
    f.unlink()
    brain.timeline_add(SLUG, "2026-12-03", "BRAIN-ENTRY", "agent")
    rep = eng.sync()
    assert rep["merged"] == [] and [c["kind"] for c in rep["conflicts"]] == ["deleted-on-disk"]
    assert b"BRAIN-ENTRY" in f.read_bytes()
    g = root / "people" / "bruno-okafor.md"
    gb = g.read_bytes()
    g.write_bytes(gb + b"\xff\xfe not UTF-8\n")
    brain.put("people/bruno-okafor", gb.decode("utf-8").replace("Bruno", "Bruno O.", 1))
    rep = eng.sync()
    assert rep["merged"] == [] and [c["kind"] for c in rep["conflicts"]] == ["both-changed"]
    assert base  # (the first page's bytes are in the history: restored above)


def test_a_crlf_page_merges_with_its_line_endings(env):
    brain, eng, root = env
    f = root / "notes" / "crlf.md"
    f.parent.mkdir(exist_ok=True)
    base = page(b"one\ntwo\n", nl=b"\r\n")
    f.write_bytes(base)
    assert eng.sync()["exit_code"] == 0
    entry = ENTRY_D.replace(b"\n", b"\r\n")
    f.write_bytes(base + entry)
    brain.put("notes/crlf", base.replace(b"one", b"ONE").decode("utf-8"))
    rep = eng.sync()
    assert rep["merged"] == ["notes/crlf.md"] and rep["exit_code"] == 0
    assert f.read_bytes() == base.replace(b"one", b"ONE") + entry == text_of(brain, "notes/crlf").encode("utf-8")
    assert fresh_import_differences(brain) == {}


def test_the_cli_report_says_merged(run, brain_tree):
    assert run("sync", str(brain_tree)).returncode == 0
    f = brain_tree / PATH
    base = f.read_bytes()
    f.write_bytes(base + ENTRY_D)
    r = run("put", SLUG, input=base.replace(PARA, b"Ana closed a Series A for River AI"))
    assert r.returncode == 0, r.stderr
    r = run("sync", str(brain_tree))
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"Merged: {PATH}".encode() in r.stdout and b"CONFLICT" not in r.stdout
    r = run("sync", str(brain_tree), "--json")
    assert json.loads(r.stdout)["merged"] == []


# ---- gbrain watch -----------------------------------------------------------------------------


def test_watch_merges_edits_made_while_it_was_down(watch, brain_tree, db_path):
    w = watch()
    code, _ = w.stop()
    assert code == 0, w.lines
    b = Brain.open(db_path)
    try:
        f = brain_tree / PATH
        _base, _disk, brain_v = both_edit(b, f)
        w = watch()
        assert w.saw(f"~ merged {PATH}"), w.lines
        wait_for(lambda: equal(b, brain_tree), "the tree to equal the brain")
        assert f.read_bytes() == brain_v + ENTRY_D and copies(brain_tree) == []
        assert conflict_list(b, all=True) == []
    finally:
        b.close()
    code, out = w.stop()
    assert code == 0, w.lines


# ---- team brains on Postgres: two folders, each with its own base -----------------------------


@pytest.mark.engine_free
def test_two_folders_appending_different_entries_merge_on_postgres(pg_url, brain_tree, tmp_path):
    a, b = tmp_path / "alice", tmp_path / "bob"
    shutil.copytree(brain_tree, a)
    b.mkdir()
    with Brain.open(pg_url) as br:
        ea, eb = SyncEngine(br, a), SyncEngine(br, b)
        try:
            ea.bind()
            assert ea.sync()["exit_code"] == 0
            eb.bind()
            assert eb.sync()["exit_code"] == 0
            assert tree_files(a) == tree_files(b)
            base = (a / PATH).read_bytes()
            (a / PATH).write_bytes(base + ENTRY_B)
            (b / PATH).write_bytes(base + ENTRY_D)
            assert ea.sync()["changed"]["imported"] == [PATH]
            rep = eb.sync()  # bob's folder: both changed since his base
            assert rep["merged"] == [PATH] and rep["exit_code"] == 0, rep
            assert ea.sync()["changed"]["exported"] == [PATH]
            assert (a / PATH).read_bytes() == (b / PATH).read_bytes() == base + ENTRY_B + ENTRY_D
            assert tree_files(a) == tree_files(b) and copies(a) == []
            assert br.conn.execute("SELECT count(*) FROM sync_conflicts").fetchone()[0] == 0
            assert fresh_import_differences(br) == {}
        finally:
            ea.close()
            eb.close()


@pytest.mark.engine_free
def test_two_watchers_appending_different_entries_merge_on_postgres(pg_url, brain_tree, tmp_path):
    """Two `gbrain watch` processes (two machines) on one Postgres brain; each person appends a
    different timeline entry to the same note at once: one merge, no conflict copy, both
    folders hold both entries."""
    a, b = tmp_path / "alice", tmp_path / "bob"
    shutil.copytree(brain_tree, a)
    b.mkdir()
    wa = Watch(a, pg_url)
    wb = None
    try:
        wb = Watch(b, pg_url)
        wait_for(lambda: tree_files(b) == tree_files(a), "bob's folder to equal alice's")
        pa, pb = a / PATH, b / PATH
        base = pa.read_bytes()
        pa.write_bytes(base + ENTRY_B)
        pb.write_bytes(base + ENTRY_D)

        def settled():
            da = pa.read_bytes()
            return ENTRY_B in da and ENTRY_D in da and tree_files(a) == tree_files(b)

        wait_for(settled, "both entries in both folders", timeout=60)
        assert copies(a) == copies(b) == []
        data = pa.read_bytes()
        assert data.count(ENTRY_B) == data.count(ENTRY_D) == 1 and data.startswith(base)
        assert wa.saw(f"~ merged {PATH}") or wb.saw(f"~ merged {PATH}")
        with Brain.open(pg_url) as br:
            assert br.conn.execute("SELECT count(*) FROM sync_conflicts").fetchone()[0] == 0
            assert text_of(br, SLUG).encode("utf-8") == data
    except BaseException:
        print("ALICE", *wa.lines, "BOB", *(wb.lines if wb else []), sep="\n")
        raise
    finally:
        for w in (wa, wb):
            if w is not None:
                w.kill()


# ---- renamed and edited on disk while the brain edited the page -------------------------------


def test_a_note_renamed_and_edited_on_disk_while_the_brain_edited_it_moves_and_merges(tmp_path, db_path):
    """The llm-wiki trial: between two `sync`s, `mv entities/wesnoth.md entities/wesnoth-game.md`
    plus a line added to it, and an agent's `timeline-add entities/wesnoth`. The sync put the old
    file back with the agent's entry ("PUT BACK … deleted on disk, edited in the brain") and
    imported the renamed file as a new page: the rename undone, the two edits split over two
    notes. The renamed file is the same file (inode) and alike: the page moves (id, history) and
    the two edits merge three ways as for a page that did not move; overlapping edits are the
    both-changed conflict (the file's text the page, the brain's the copy), never a put-back."""
    root = tmp_path / "v"
    (root / "people").mkdir(parents=True)
    (root / PATH).write_bytes(page(b"Ana is raising.\nShe lives in Lisbon.\n"))
    with Brain.open(db_path, create=True) as b:
        eng = SyncEngine(b, root)
        eng.bind()
        assert eng.sync()["ok"]
        pid = b.page_row(SLUG)["id"]
        new = root / "people" / "ana-lima-cruz.md"
        (root / PATH).rename(new)
        new.write_bytes(new.read_bytes().replace(b"She lives in Lisbon.", b"She lives in Porto."))  # in place: same inode
        b.timeline_add(SLUG, "2026-12-03", "agent entry")
        rep = eng.sync()
        assert not (root / PATH).exists(), "the old name was put back"
        assert b.page_row(SLUG) is None and b.page_row("people/ana-lima-cruz")["id"] == pid
        text = new.read_bytes()
        assert b"She lives in Porto." in text and b"agent entry" in text
        assert b.get_text("people/ana-lima-cruz").encode() == text
        assert rep["counts"]["conflicts"] == 0 and not conflict_list(b)
        assert sorted(p.name for p in (root / "people").iterdir()) == ["ana-lima-cruz.md"]
        assert fresh_import_differences(b) == {}
        # overlapping edits: moved, the file's text the page, the brain's version the conflict copy
        newer = root / "people" / "ana-lima-2.md"
        new.rename(newer)
        newer.write_bytes(newer.read_bytes().replace(b"She lives in Porto.", b"She lives in Faro."))
        b.put("people/ana-lima-cruz", b.get_text("people/ana-lima-cruz").replace("She lives in Porto.", "She lives in Braga."))
        eng.sync()
        assert not new.exists() and b.page_row("people/ana-lima-2")["id"] == pid
        assert b"Faro" in newer.read_bytes() and b.get_text("people/ana-lima-2") == newer.read_text()
        copies = [p for p in (root / "people").iterdir() if ".conflict-" in p.name]
        assert len(copies) == 1 and b"Braga" in copies[0].read_bytes()
        eng.close()


def test_history_prune_keeps_the_base_a_synced_folder_merges_against(env):
    """Trial 69: a teammate's folder was offline (its watch stopped) while it and the brain both
    changed a page; meanwhile someone ran `history --prune --keep-last 1`. The version the folder
    last synced (its base, `sync_state.base_hash`) was pruned, so its return made a conflict copy of
    two edits that merge. Prune now keeps every version a synced folder's base names."""
    from gbrain.core.history import prune

    brain, eng, root = env
    f = root / PATH
    base, disk, _ = both_edit(brain, f)
    brain.put(SLUG, brain.get_text(SLUG).replace("closed a Series A", "closed a big Series A"))
    brain_v = brain.get_text(SLUG).encode("utf-8")
    prune(brain, None, 1, apply=True)
    rep = eng.sync()
    assert rep["merged"] == [PATH] and rep["conflicts"] == [] and copies(root) == [], rep
    assert f.read_bytes() == brain_v + ENTRY_D
