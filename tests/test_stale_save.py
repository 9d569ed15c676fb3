"""Stale saves: an editor saving a buffer older than what gbrain last wrote to the file.

An agent writes a page through gbrain, sync/watch writes it to the file, then an editor that
still held the older text saves its buffer plus what the person typed (temp file + rename, as vim
does). The plain three-way rule ("file changed, brain unchanged since the base: the file wins")
made the agent's write vanish with no conflict. Now the save is merged three ways with the
version it was based on (`gbrain/sync/merge.py`); a merge that conflicts keeps the brain's
version and the file's bytes as a conflict copy (kind `stale-save`). A save based on the newest
version (a plain edit, or deleting the agent's line on purpose) still wins as before.
"""
from __future__ import annotations

import errno
import os
import sys
from pathlib import Path

import pytest

from conftest import editor_save, gbrain

from gbrain.core.brain import Brain
from gbrain.sync.engine import SyncEngine, conflict_list, is_conflict_copy_of
from gbrain.sync.merge import distance, merge3, stale_view
from gbrain.sync.plan import PathState, decide
from gbrain.sync.verify import fresh_import_differences

sys.path.insert(0, str(Path(__file__).parent))
from test_sync import all_versions, sha, verify_equal  # noqa: E402
from test_sync_moves import versions  # noqa: E402
from test_watch import equal, text_of, wait_for, watch  # noqa: E402,F401

PATH = "people/ana-lima.md"
SLUG = "people/ana-lima"
NEW_PATH = "people/ana-lima-renamed.md"  # a rename's new name (trial 55)
NEW_SLUG = "people/ana-lima-renamed"


# ---- the pure parts ---------------------------------------------------------------------------


@pytest.mark.engine_free
def test_merge3_takes_each_sides_changes_and_refuses_a_region_both_changed():
    base = b"a\nb\nc\nd\n"
    assert merge3(base, b"a\nB\nc\nd\n", b"a\nb\nc\nD\n") == b"a\nB\nc\nD\n"
    assert merge3(base, b"a\nB\nc\nd\n", b"a\nB\nc\nd\n") == b"a\nB\nc\nd\n"  # the same change once
    assert merge3(base, b"a\nB1\nc\nd\n", b"a\nB2\nc\nd\n") is None
    # two appends at the end: both kept, the brain's (ours) first
    assert merge3(base, base + b"agent\n", base + b"user\n") == base + b"agent\nuser\n"
    # line endings and bytes kept exactly
    assert merge3(b"x\r\ny\r\n", b"x\r\ny\r\nz\r\n", b"X\r\ny\r\n") == b"X\r\ny\r\nz\r\n"
    assert merge3(b"no newline", b"no newline\nmore", b"no newline") == b"no newline\nmore"


@pytest.mark.engine_free
def test_merge3_merges_a_deletion_and_an_insertion_that_only_touch_it():
    """Hunks that touch (one ends where the other begins) merge when one side only removed lines
    there: it adds none, so there is no order of two sides' new lines to guess. Two sides both
    adding lines at one edge (a replacement and an insertion) still conflict, as git's do, and
    so does an insertion inside a block the other side deleted."""
    base = b"# Ana\n## Old\n- a\n- b\n## Notes\nn\n"
    person = b"# Ana\n## Notes\nn\n"  # deleted the Old section
    after = base.replace(b"- b\n", b"- b\nAGENT\n")  # a line right after the section
    before = base.replace(b"## Old\n", b"AGENT\n## Old\n")  # right before it
    for agent in (after, before):
        assert merge3(base, agent, person) == b"# Ana\nAGENT\n## Notes\nn\n"
        assert merge3(base, person, agent) == b"# Ana\nAGENT\n## Notes\nn\n"
    # a deletion touching a changed line
    assert merge3(b"a\nb\nc\nd\n", b"a\nc\nd\n", b"a\nb\nC\nd\n") == b"a\nC\nd\n"
    # deletions on both sides, touching
    assert merge3(b"a\nb\nc\nd\n", b"a\nc\nd\n", b"a\nb\nd\n") == b"a\nd\n"
    # inside the deleted block: the agent wrote into what the person deleted
    assert merge3(base, base.replace(b"- a\n", b"- a\nAGENT\n"), person) is None
    # both sides add lines at one edge (a replacement and an insertion): which goes first is a guess
    assert merge3(base, after, base.replace(b"- a\n- b\n", b"- A\n")) is None
    # the stale save of the report: an agent line next to a section the person deleted merges
    v = stale_view(person, after, [base])
    assert v is not None and v.merged == b"# Ana\nAGENT\n## Notes\nn\n"


@pytest.mark.engine_free
def test_stale_view_finds_the_older_version_a_save_was_based_on():
    a = b"# Ana\n\nintro\n\n---\n\n- 2026-01-01 first\n"
    b = a + b"- 2026-12-02 AGENT-ENTRY\n"
    stale = a + b"user typed this\n"
    v = stale_view(stale, b, [a])
    assert v is not None and v.ancestor == 0 and v.merged == b + b"user typed this\n"
    # based on the newest version: a plain edit (None: the file wins)
    assert stale_view(b + b"user typed this\n", b, [a]) is None
    # the save only removed the agent's line: taken as meant
    assert stale_view(a, b, [a]) is None
    # an edit elsewhere of the newest version: closer to it than to the older one
    assert distance(b, b) == 0 and stale_view(b.replace(b"intro", b"INTRO"), b, [a]) is None
    # the save rewrote the line gbrain's write changed (a tie): taken as stale; the merge conflicts
    v = stale_view(a.replace(b"first", b"mine"), a.replace(b"first", b"agent's"), [a])
    assert v is not None and v.merged is None
    # ... unless the save's line is an edit of the line gbrain wrote (a person fixing an agent's
    # typo, an editor rewriting a link gbrain had just rewritten): an edit of the newest version
    wrote = a.replace(b"first", b"first, the agent adds: recieve the invoice")
    assert distance(wrote, wrote.replace(b"recieve", b"receive")) == distance(a, wrote.replace(b"recieve", b"receive"))  # a tie by lines
    assert stale_view(wrote.replace(b"recieve", b"receive"), wrote, [a]) is None
    linked = a.replace(b"first", b"first call with [[Bob Stone]] about the payments team")
    assert stale_view(linked.replace(b"Bob Stone", b"Carol Stone"), linked, [a.replace(b"first", b"first call with [[Alice Stone]] about the payments team")]) is None


@pytest.mark.engine_free
def test_a_save_that_adds_words_into_a_teammates_short_line_is_an_edit_of_the_newest_version():
    """Team trial 34: bob changed the heading `# Obsidian Help` in his folder; it reached cat's file;
    cat added words inside bob's line and saved. By whole lines a tie with the version before
    bob's, and her line and bob's are only 0.81 alike (a short line, many words added: under
    EDITED_LINE_MIN), so her save was taken as stale and conflicted ("the file was saved from an
    older version …", a conflict copy) though she had seen bob's line. A save line that keeps the
    whole of a line gbrain's write added, words put in, is an edit of it."""
    a = b"---\npermalink: /\n---\n# Obsidian Help\n\nWelcome.\n"
    bob = a.replace(b"# Obsidian Help", b"# Obsidian (bob, during the outage) Help")
    cat = a.replace(b"# Obsidian Help", b"# Obsidian (bob, during the outage; cat after the cut) Help")
    assert distance(bob, cat) == distance(a, cat)  # a tie by lines
    assert stale_view(cat, bob, [a]) is None
    # a save whose line does not hold the whole of gbrain's line is still a stale save
    v = stale_view(a.replace(b"# Obsidian Help", b"# Obsidian Help (cat's words here)"), bob, [a])
    assert v is not None and v.merged is None
    # nor does a short line gbrain wrote count when a save's line merely holds it
    short = a.replace(b"Welcome.", b"- todo")
    v = stale_view(a.replace(b"Welcome.", b"- todo: cat's own list item"), short, [a])
    assert v is not None


@pytest.mark.engine_free
def test_a_stale_line_that_merely_holds_gbrains_line_scattered_or_from_the_base_is_still_a_stale_save():
    """Review of 887667a: "holds every character of gbrain's line, in order" also matched lines
    the person never saw. (1) The agent's timeline entry of the day is a character subsequence of
    the person's own entry of the day typed in a stale buffer; (2) the agent trimmed a line and the
    person, stale, trimmed it too and added words (gbrain's line is a prefix of the base's line: holding
    it says nothing). Both saves were taken as edits of the newest version, so the file won and the
    agent's other lines (a paragraph, a new line) left the page with no conflict; before, the first
    merged both entries and the second was a stale-save conflict."""
    a = b"# Ana\n\nNotes.\n\n---\n\n- **2026-12-03** | Met Ana\n"
    agent = a.replace(b"Notes.\n", b"Notes.\n\nShe leads the payments team.\n") + b"- **2026-12-04** | Call with Ana\n"
    person = a + b"- **2026-12-04** | Call with the bank, then Ana about the loan\n"
    v = stale_view(person, agent, [a])
    assert v is not None and v.merged is not None
    assert b"She leads the payments team." in v.merged and b"| Call with Ana\n" in v.merged and b"about the loan" in v.merged
    a = b"# Deal\n\nStatus: pending review by the legal team\n\nOwner: Ana.\n"
    agent = a.replace(b"by the legal team", b"").replace(b"Owner: Ana.\n", b"Owner: Ana.\n\nBudget: 40k, signed off.\n")
    person = a.replace(b"by the legal team", b"- approved")
    assert stale_view(person, agent, [a]) is not None


@pytest.mark.engine_free
def test_a_stale_save_that_cut_the_words_gbrains_write_cut_is_still_a_stale_save():
    """The agent cut words from a line (and wrote a line elsewhere); the person's stale buffer cut
    the same words, alone or adding a short word. gbrain's line is then in the save (or 85% alike
    to its line) though the person never saw it: a line gbrain only cut words from is no sign.
    Before, the save was taken as an edit of the newest version and the agent's other line left
    the page with no conflict; now it is merged (the same cut on both sides) or kept both."""
    a = b"# Deal\n\nStatus: pending review by the legal team\n\nOwner: Ana.\n"
    agent = a.replace(b" by the legal team", b"").replace(b"Owner: Ana.\n", b"Owner: Ana.\n\nBudget: 40k, signed off.\n")
    v = stale_view(a.replace(b" by the legal team", b" - ok"), agent, [a])
    assert v is not None
    same = a.replace(b" by the legal team", b"").replace(b"# Deal", b"# Deal (Q3)")
    v = stale_view(same, agent, [a])
    assert v is not None and v.merged == agent.replace(b"# Deal", b"# Deal (Q3)")
    short = b"# Todo\n\n- [ ] call bank today\n\nNotes.\n"
    agent = short.replace(b" today", b"").replace(b"Notes.", b"Notes.\n\nBank closes at 4.")
    v = stale_view(short.replace(b" today", b"").replace(b"# Todo", b"# Todo list"), agent, [short])
    assert v is not None and b"Bank closes at 4." in v.merged and b"# Todo list" in v.merged


@pytest.mark.engine_free
def test_a_save_adding_lines_next_to_a_line_gbrain_only_cut_is_an_edit_of_the_newest_version():
    """Trial 49's conflict storm: a move to a shorter name (people/robert-ng → people/rob-ng)
    rewrote the one line of a note by cutting letters from it, and a person typing below it
    (the editor saving the whole buffer each time) got a conflict copy per save: a cut line is
    no sign the save saw the write, so the save was taken as based on the version before, and
    the merge with it conflicted (the cut line and the typed lines touch). A save that holds
    every line gbrain's writes since that version added, brings back none they removed, and
    only adds lines of its own lost nothing of gbrain's: it is an edit of the newest version."""
    v1 = b"# Kickoff\n\nAttendees: [[people/ana-lima]], [[people/bob-ng]]. Project [[apollo]].\n"
    v2 = v1.replace(b"bob-ng", b"robert-ng")
    v3 = v2.replace(b"robert-ng", b"rob-ng")  # a cut of v2's line
    typed = v3 + b"kick B 1\nkick B 2\nkick B 3\n"
    for older in ([v2], [v2, v1]):
        assert stale_view(typed, v3, older) is None
    # still a stale save: a buffer of v2 typed into (no sign of the cut, the cut line missing) ...
    v = stale_view(v2 + b"kick B 1\n", v3, [v2])
    assert v is not None and v.merged is None  # the cut line and the typed line touch: kept both
    # ... and one that cut the same but lacks a line gbrain's write added elsewhere
    agent = v3 + b"\nAgent: budget signed off.\n"
    v = stale_view(v3.replace(b"# Kickoff", b"# Kickoff (Q3)") + b"kick B 1\n", agent, [v2])
    assert v is not None and (v.merged is None or b"Agent: budget signed off." in v.merged)
    # ... and one bringing back a line gbrain's write removed
    dropped = b"# Kickoff\n\nOld line.\nAttendees: [[people/robert-ng]].\n"
    brain = b"# Kickoff\n\nAttendees: [[people/rob-ng]].\n"
    v = stale_view(b"# Kickoff\n\nOld line.\nAttendees: [[people/rob-ng]].\nkick\n", brain, [dropped])
    assert v is not None and (v.merged is None or b"Old line." not in v.merged)


@pytest.mark.engine_free
def test_a_line_a_stale_save_holds_as_gbrains_newest_write_added_it_is_no_sign_it_saw_that_write():
    """Review of the stale-save rule (hypothesis with repeated short lines): an agent wrote a line,
    then a second write added only a heading (or moved a short line); the person's buffer, older
    than both, held or typed that very heading. The edit rule took the identical line for an edit
    of the heading gbrain added (alike 1.0), so the save counted as having seen the newest write,
    the file won, and the first write's line left the page unsaid (history only). A line held as
    it is is no edit: whether it shows the write was seen is the telling rule's to say (a heading,
    a short line: typed alike in a stale buffer too)."""
    v0 = b"# Ana\n\nAna runs Acme.\n"
    v1 = v0 + b"\nAna signed the term sheet on Monday.\n"
    v2 = v1 + b"\n## Next steps\n"
    v = stale_view(v0 + b"\n## Next steps\n- book flights\n", v2, [v1, v0])
    assert v is not None and (v.merged is None or b"term sheet" in v.merged and b"book flights" in v.merged), v
    # a write that only moved a short line the stale buffer holds where it was
    v0 = b"- [ ] todo\nline one of the note here\n"
    v1 = b"Agent: Ana signed the term sheet on Monday.\nline one of the note here\n"
    v2 = b"- [ ] todo\n" + v1
    v = stale_view(v0 + b"typed by the person\n", v2, [v1, v0])
    assert v is not None and (v.merged is None or b"term sheet" in v.merged and b"typed by the person" in v.merged), v


@pytest.mark.engine_free
def test_a_stale_line_that_begins_with_a_new_line_of_gbrains_is_still_a_stale_save():
    """The agent logged a call (a new timeline line) and wrote a paragraph; the person, in a stale
    buffer, logged the same call in more words: their line begins with the whole of the agent's.
    Words put into a line gbrain wrote anew show nothing (the same event is told alike): only
    words put into a line gbrain changed do. Before, the file won and the paragraph left the
    page; now both entries and the paragraph are kept."""
    a = b"# Ana\n\nNotes.\n\n---\n\n- **2026-12-03** | Met Ana\n"
    agent = a.replace(b"Notes.\n", b"Notes.\n\nShe leads the payments team.\n") + b"- **2026-12-04** | Call with Ana Lima\n"
    person = a + b"- **2026-12-04** | Call with Ana Lima about the loan\n"
    v = stale_view(person, agent, [a])
    assert v is not None and v.merged is not None
    assert b"She leads the payments team." in v.merged and b"Ana Lima\n" in v.merged and b"about the loan" in v.merged


@pytest.mark.engine_free
def test_a_stale_line_alike_to_an_agents_line_keeps_the_agents_other_lines():
    """Two timeline entries of one day share their date: the person's stale entry of the agent's
    call ('Call w/ Ana Lima' beside 'Call with Ana Lima', 0.94 alike) passed as an edit of the
    agent's line, and the agent's paragraph left the page with no conflict. A save line alike to
    one of gbrain's lines is an edit of the newest version only when the save holds the other
    lines gbrain's write added (a person who saw the write has them): here it is merged, every
    line kept; a typo fixed in a buffer holding the whole write is still a plain edit."""
    a = b"# Ana\n\nNotes.\n\n---\n\n- **2026-12-03** | Met Ana\n"
    agent = a.replace(b"Notes.\n", b"Notes.\n\nShe leads the payments team.\n") + b"- **2026-12-04** | Call with Ana Lima\n"
    for mine in (b"- **2026-12-04** | Call w/ Ana Lima", b"- **2026-12-04** | Called Ana Lima"):
        v = stale_view(a + mine + b"\n", agent, [a])
        assert v is not None and v.merged is not None, mine
        assert b"She leads the payments team." in v.merged and b"Call with Ana Lima" in v.merged and mine in v.merged
    fixed = agent.replace(b"payments", b"payment's").replace(b"Call with Ana Lima", b"Call with Ana Lima-Cruz")
    assert stale_view(fixed, agent, [a]) is None


# team trial 54: look-alike lines of one template, written from stale buffers
NOTE = b"# Note\n\n## State\n\nSome text about the project.\n"
ENTRY = "- **2026-12-05** | note \u2014 MK-{}-{} hand-written entry\n"


@pytest.mark.engine_free
def test_a_teammates_look_alike_line_is_no_edit_of_the_line_that_arrived():
    """Three people appended a line of one template at one place within a second, each from the
    text they had before any save: bob's line (MK-bob-0048) is 0.92 alike to alice's (MK-alice-0041),
    so his stale save was read as an edit of alice's line (a typo fix), based on her version: a
    plain import, alice's line only in the history, no merge, no copy, no message. A line that puts
    another name or number in place of one is another line: the save is stale, both lines kept."""
    from gbrain.sync.merge import another_line, saw_write

    alice = NOTE + ENTRY.format("alice", "0041").encode()
    bob = NOTE + ENTRY.format("bob", "0048").encode()
    carol = NOTE + ENTRY.format("carol", "0052").encode()
    assert not saw_write(NOTE, alice, bob)
    v = stale_view(bob, alice, [NOTE])
    assert v is not None and v.merged is not None and b"MK-alice-0041" in v.merged and b"MK-bob-0048" in v.merged
    # carol, also from the first text, saves after bob's merge reached her file
    v2 = stale_view(carol, v.merged, [alice, NOTE])
    assert v2 is not None and v2.merged is not None
    assert all(w in v2.merged for w in (b"MK-alice-0041", b"MK-bob-0048", b"MK-carol-0052"))
    # only the number, or only the name, differs: still another line
    for other in (ENTRY.format("alice", "0042"), ENTRY.format("bob", "0041")):
        assert not saw_write(NOTE, alice, NOTE + other.encode()), other
    # a checklist item of one day, another person's name
    todo = NOTE + b"- [ ] standup (alice)\n"
    v = stale_view(NOTE + b"- [ ] standup (bob)\n", todo, [NOTE])
    assert v is not None and v.merged is not None and b"(alice)" in v.merged and b"(bob)" in v.merged
    assert another_line(b"- [ ] standup (bob)", b"- [ ] standup (alice)")
    # the agent's write filled in a line, a stale buffer typed its own beside the line as it was
    filled = NOTE + b"- [ ] standup\n"
    v = stale_view(filled + b"- [ ] standup (bob)\n", filled.replace(b"standup", b"standup (alice)"), [filled])
    assert v is not None and (v.merged is None or (b"(alice)" in v.merged and b"(bob)" in v.merged))
    assert another_line(b"Call w/ Ana Lima", b"Call with Ana Lima")
    assert not another_line(b"call with [[Carol Stone]] about it", b"call with [[Bob Stone]] about it")  # a link retargeted


NAMED = [
    # (gbrain's line, the stale buffer's own line: another person's name a letter or two apart)
    ("- [ ] call with Jon about the roadmap", "- [ ] call with Jan about the roadmap"),
    ("- [ ] standup (alice)", "- [ ] standup (Alicia)"),
    ("- **2026-12-05** | Lunch with Alice and the design team", "- **2026-12-05** | Lunch with Alicia and the design team"),
    ("- [ ] review the draft, ping @bob when done", "- [ ] review the draft, ping @rob when done"),
    ("- **2026-12-05** | 1:1 with Mira about hiring", "- **2026-12-05** | 1:1 with Maria about hiring"),
    ("## 1:1 with Jon about hiring", "## 1:1 with Jan about hiring"),  # a heading in sentence case
]


@pytest.mark.engine_free
@pytest.mark.parametrize("wrote, mine", NAMED)
def test_a_teammates_line_with_a_name_a_letter_or_two_apart_is_another_line(wrote, mine):
    """Look-alike lines apart only in a person's name one or two letters apart (`Jon`/`Jan`,
    `alice`/`Alicia`, `@bob`/`@rob`) passed for a typo fix of the line that arrived: the stale
    save was taken as an edit of the newest version and the teammate's line left the file. A
    name written as one (a capital inside a sentence, an @handle) changing to another name is
    another line; the save is merged, both lines kept."""
    from gbrain.sync.merge import another_line, saw_write

    after, disk = NOTE + wrote.encode() + b"\n", NOTE + mine.encode() + b"\n"
    assert another_line(mine.encode(), wrote.encode())
    assert not saw_write(NOTE, after, disk)
    v = stale_view(disk, after, [NOTE])
    assert v is not None and v.merged is not None and wrote.encode() in v.merged and mine.encode() in v.merged


@pytest.mark.engine_free
def test_a_name_the_brain_has_a_page_for_changing_to_another_is_another_line():
    """Lower-case names (`standup (bob)` / `standup (rob)`) look like any word; where the brain
    has a page (title, file name or alias) for each, they are names: another line. A word the
    brain has no page for is judged as before (a typo fix)."""
    from gbrain.sync.merge import another_line, saw_write

    wrote, mine = b"- [ ] standup (bob)", b"- [ ] standup (rob)"
    names = {"bob", "rob"}.__contains__
    assert not another_line(mine, wrote)  # one letter apart: read as a typo fix without the brain's names
    assert another_line(mine, wrote, names=names)
    assert not another_line(b"- [ ] standup (bob) teh notes", b"- [ ] standup (bob) tee notes", names=names)
    after, disk = NOTE + wrote + b"\n", NOTE + mine + b"\n"
    assert not saw_write(NOTE, after, disk, names=names)
    v = stale_view(disk, after, [NOTE], names=names)
    assert v is not None and v.merged is not None and wrote in v.merged and mine in v.merged



@pytest.fixture
def named(db_path, tmp_path):
    """``(brain, engine)``: the test's empty brain (either engine) and a `SyncEngine` over an empty
    folder, for asking `_page_name` what the pages the test saves name; closed after the test."""
    root = tmp_path / "notes"
    root.mkdir()
    b = Brain.open(db_path)
    yield b, SyncEngine(b, root)
    b.close()


def test_page_names_memo_answers_as_page_name_and_asks_each_key_once(named, monkeypatch):
    """`SyncEngine._page_names()` (the `names` one stale_view or dropped-save look is handed)
    answers as `_page_name` for every word, and asks the brain once per loose key: a 100-line
    checklist against 100 look-alike lines asked `bob`/`rob` 20,000 times, one lookup each."""
    b, eng = named
    b.save_page("people/bob", "# Bob\n")
    b.save_page("people/rob", "---\naliases: [Robbie]\n---\n# Rob\n")
    words = ["bob", "Bob", "BOB", "rob", "robbie", "Robbie", "ann", "Ann", "", "- -", "Bob Stone"]
    plain = [eng._page_name(w) for w in words]
    assert plain == ["person"] * 6 + [""] * 5
    asked = []
    real = SyncEngine._page_name
    monkeypatch.setattr(SyncEngine, "_page_name", lambda self, w: asked.append(w) or real(self, w))
    names = eng._page_names()
    assert [names(w) for w in words * 3] == plain * 3
    from gbrain.page.slugs import loose_key
    assert sorted(map(loose_key, asked)) == sorted({loose_key(w) for w in words})
    wrote = b"".join(f"- [ ] standup (rob) item {i}\n".encode() for i in range(100))
    mine = b"".join(f"- [ ] standup (bob) item {i}\n".encode() for i in range(100))
    asked.clear()
    names = eng._page_names()
    v = stale_view(NOTE + mine, NOTE + wrote, [NOTE], names=names)
    assert sorted(asked) == ["bob", "rob"]
    # the view with `_page_name` itself, each word asked once (the 20,000 lookups give the same
    # answers: the brain does not change meanwhile; one lookup is ~4 statements, a Postgres
    # round trip each, 3x this test's time there)
    memo = {}
    assert v == stale_view(NOTE + mine, NOTE + wrote, [NOTE], names=lambda w: memo[w] if w in memo else memo.setdefault(w, real(eng, w)))


def test_page_name_counts_a_bare_first_name_of_a_person_pages_title(named, monkeypatch):
    """A timeline summary starts with a bare first name (`| meeting \u2014 Jan agreed to the
    terms`), where a capital says nothing of a name: only the brain tells `Jan` is one. A person
    page's title holds it as its first word (`Jan Novak`), so `_page_name` counts it, as a person's
    (`merge.PERSON_NAME`): a page whose type is person (every page of a `people/` folder unless its
    frontmatter says another type) or that lies in a deeper folder named `people` with no type. The first word only,
    whole (`Jan` is not `Janet Lee`'s), and never a first word of another page's title."""
    from gbrain.sync.merge import PAGE_NAME, PERSON_NAME

    b, eng = named
    b.save_page("people/jan-novak", "# Jan Novak\n\nA teammate.\n")
    b.save_page("team/jon-smith", "---\ntype: Person\n---\n# Jon Smith\n")
    b.save_page("Areas/People/dora-kim", "# Dora Kim\n")
    b.save_page("people/janet-lee", "# Janet Lee\n")
    b.save_page("projects/offsite", "# Mira Plan for the offsite\n")
    b.save_page("concepts/postgres", "# Postgres\n\nThe database.\n")
    got = {w: eng._page_name(w) for w in ["Jan", "jan", "Jon", "Dora", "Janet", "Jan Novak", "Novak", "Jane",
                                          "Mira", "Postgres", "Postgress", "Discussed", "Lee", "Janet Lee X"]}
    assert got == {"Jan": PERSON_NAME, "jan": PERSON_NAME, "Jon": PERSON_NAME, "Dora": PERSON_NAME,
                   "Janet": PERSON_NAME, "Jan Novak": PERSON_NAME, "Novak": "", "Jane": "", "Mira": "",
                   "Postgres": PAGE_NAME, "Postgress": "", "Discussed": "", "Lee": "", "Janet Lee X": ""}, got
    # a word more titles start with than `FIRST_WORD_ROWS` reads as a person's (the safe side: two
    # lines kept), never by reading every such title (2,000 notes titled `Jan note N`: 2.4 ms a word)
    import gbrain.sync.engine as engine_mod

    b.save_page("projects/mira-notes", "# Mira notes\n")
    b.save_page("projects/mira-review", "# Mira review\n")
    assert eng._page_name("Mira") == ""
    monkeypatch.setattr(engine_mod, "FIRST_WORD_ROWS", 2)
    assert eng._page_name("Mira") == PERSON_NAME and eng._page_name("Jan") == PERSON_NAME and eng._page_name("Novak") == ""


def test_page_name_takes_a_people_pages_own_type_when_its_frontmatter_names_one(named):
    """A person's page is one whose type is person: the frontmatter's `type`, else the folder's
    (`markdown.page_type`: every page of a top-level `people/` folder with no type is a person's);
    a page in a deeper folder named `people` (`Areas/People/…`) is a person's unless its
    frontmatter names another type. Found: every `people/` page counted as a person's whatever its
    type (`slug_key LIKE 'people/%'`), so `type: company`'s `Globex` (`Globex Inc`) was read as a
    first name and a fix of its misspelling as another person's line."""
    from gbrain.sync.merge import PAGE_NAME, PERSON_NAME

    b, eng = named
    b.save_page("people/globex-inc", "---\ntype: company\n---\n# Globex Inc\n")
    b.save_page("people/acme", "---\ntype: Company\n---\n# Acme\n")
    b.save_page("Areas/People/initech-ltd", "---\ntype: company\n---\n# Initech Ltd\n")
    b.save_page("people/jan-novak", "# Jan Novak\n")  # no type: a person's
    b.save_page("people/ola-berg", "---\ntype: person\n---\n# Ola Berg\n")
    b.save_page("Areas/People/dora-kim", "---\ntags: [team]\n---\n# Dora Kim\n")  # a type named by no key
    b.save_page("Areas/People/ivo-ray", "---\ntype: Person\n---\n# Ivo Ray\n")
    got = {w: eng._page_name(w) for w in ["Globex", "Globex Inc", "Acme", "Initech", "Initech Ltd",
                                          "Jan", "Ola", "Dora", "Ivo", "Ivo Ray"]}
    assert got == {"Globex": "", "Globex Inc": PAGE_NAME, "Acme": PAGE_NAME, "Initech": "", "Initech Ltd": PAGE_NAME,
                   "Jan": PERSON_NAME, "Ola": PERSON_NAME, "Dora": PERSON_NAME, "Ivo": PERSON_NAME,
                   "Ivo Ray": PERSON_NAME}, got


def _vm_steps(eng: SyncEngine, word: str) -> int:
    """SQLite's VM instructions for `eng._page_name(word)`'s statement: what it reads, no clock."""
    conn, seen = eng.conn, []

    class Seeing:
        def execute(self, q, args=()):
            seen.append((q, args))
            return conn.execute(q, args)

    eng.conn = Seeing()
    try:
        eng._page_name(word)
    finally:
        eng.conn = conn
    [(q, args)] = seen
    steps = [0]
    conn.set_progress_handler(lambda: steps.__setitem__(0, steps[0] + 1), 1)
    try:
        conn.execute(q, args).fetchall()
    finally:
        conn.set_progress_handler(None, 1)
    return steps[0]


@pytest.mark.sqlite_only("counts SQLite's VM instructions; Postgres plans a brain this small as whole-table "
                         "scans: benchmarks/page_name_cost.py measures its reads at 2,000 pages")
def test_page_name_reads_a_bounded_number_of_pages_however_many_share_the_name(named, monkeypatch):
    """The exact lookups (file name, title, alias) of `_page_name` read every page of the name:
    a word like `Index` in a vault of hundreds of `index.md` pages titled `Index` read them all
    (twice), for every look-alike line that reads as a typo fix. Each lookup reads at most
    `FIRST_WORD_ROWS` + 1 rows, as the first-word range does: the answer needs one row to say the
    name is a page's; a name more pages share than that reads as a person's (the safe side: two
    lines kept), whichever rows a lookup happens to read (the row order differs by engine and after
    a fresh import: the answer must not)."""
    import gbrain.sync.engine as engine_mod
    from gbrain.sync.merge import PAGE_NAME, PERSON_NAME

    monkeypatch.setattr(engine_mod, "FIRST_WORD_ROWS", 4)
    b, eng = named
    b.save_page("concepts/Ledger", "---\naliases: [Index]\n---\n# Ledger\n")

    def add(lo, hi):
        for i in range(lo, hi):
            b.save_page(f"hub/area-{i}/index", f"---\naliases: [Index]\n---\n# Index\n\nArea {i}.\n")
            b.save_page(f"hub/index-notes-{i}", f"# Index notes {i}\n")

    add(0, 3)  # (4 aliases, 3 titles: each lookup reads them all)
    assert eng._page_name("Index") == PAGE_NAME
    add(3, 6)
    few = _vm_steps(eng, "Index")
    assert eng._page_name("Index") == PERSON_NAME
    add(6, 40)
    assert _vm_steps(eng, "Index") == few and eng._page_name("Index") == PERSON_NAME
    b.save_page("people/index", "---\ntype: person\n---\n# Index\n")  # (a person's page among them: the same)
    assert eng._page_name("Index") == PERSON_NAME


def test_the_stale_save_property_holds_where_lines_differ_by_a_first_name_starting_a_summary(named):
    """`test_stale_property`'s property (a stale save never loses gbrain's unseen lines nor the
    person's) over timeline lines apart only by a bare first name starting the summary, one letter
    from another line's (`— Jan agreed` / `— Jon agreed`), judged with the names of a real brain
    (`SyncEngine._page_names`) whose person pages are titled `<name> Novak`: a first name counts
    as a name of the brain (`_page_name`). Found: only a page named `Jan` itself did, so such a
    pair passed for a typo fix and the teammate's line left the page."""
    from hypothesis import given, settings
    from test_stale_property import NAMES, _summarised, check, stale_saves

    b, eng = named
    for n in NAMES:
        b.save_page(f"people/{n.lower()}-novak", f"# {n} Novak\n\nA teammate.\n")

    @settings(max_examples=150, deadline=None)
    @given(stale_saves(line=_summarised))
    def prop(case):
        check(*case, names=eng._page_names())

    prop()


def test_a_teammates_timeline_line_naming_another_person_by_first_name_is_merged(env):
    """gbrain's timeline line `| agent \u2014 Jon agreed to the terms` reached the file; a teammate's
    editor, holding the note from before, saved its own `\u2014 Jan agreed to the terms`. The summary's
    first word is a sentence's (its capital says nothing), so one letter apart passed for a typo
    fix unless the brain had pages named `Jon` and `Jan`: Jon's line left the page. Both are the
    first words of person pages' titles (`Jon Smith`, `Jan Novak`): another line, merged. A real
    fix stays one line: a word no page names (`Discused` \u2192 `Discussed`), and a first name put
    for a word that is none (`Jn` \u2192 `Jan`)."""
    brain, eng, root = env
    brain.put("people/jan-novak", "# Jan Novak\n\nA teammate.\n")
    brain.put("people/jon-smith", "# Jon Smith\n\nAnother teammate.\n")
    eng.sync()
    f = root / PATH
    data = agent_write_reaches_file(brain, eng, f, "Jon agreed to the terms")
    editor_save(f, data.replace(b"Jon agreed", b"Jan agreed"))  # the stale buffer + the teammate's line, at one place
    rep = eng.sync()
    assert rep["merged"] == [PATH] and rep["conflicts"] == [], rep
    page = text_of(brain, SLUG).encode("utf-8")
    assert b"Jon agreed to the terms" in page and b"Jan agreed to the terms" in page and f.read_bytes() == page, page
    assert fresh_import_differences(brain) == {}
    for typo, fix in (("Discused the terms", "Discussed the terms"), ("Jn signed the lease", "Jan signed the lease")):
        data = agent_write_reaches_file(brain, eng, f, typo)
        editor_save(f, data.replace(typo.encode(), fix.encode()))
        rep = eng.sync()
        assert rep["merged"] == [] and rep["conflicts"] == [], (typo, rep)
        page = text_of(brain, SLUG).encode("utf-8")
        assert fix.encode() in page and typo.encode() not in page and f.read_bytes() == page, page
    assert fresh_import_differences(brain) == {}


@pytest.mark.engine_free
def test_a_misspelt_name_fixed_to_a_pages_name_in_gbrains_own_line_is_an_edit():
    """gbrain wrote a line with a misspelt name (`met Postgress team`) that no line of the save's
    base held; the person fixed it to `Postgres`. A capital inside a sentence reads as a name, and
    a name put for another one letter apart is another line (a teammate's), so both lines were
    kept. Where the brain has a page named by the save's word and none by gbrain's, and that page
    is no person's, it is a misspelt name fixed: an edit. A person's name stays another line
    (`Jon` \u2192 `Jan`: a teammate's line about another person, which must not leave the page), and
    so do two words the brain names pages by, and any pair the brain knows nothing of."""
    from gbrain.sync.merge import PAGE_NAME, PERSON_NAME, another_line, saw_write

    kinds = {"postgres": PAGE_NAME, "acme": PAGE_NAME, "acne": PAGE_NAME, "jan": PERSON_NAME}
    names = lambda w: kinds.get(w.casefold(), "")  # noqa: E731
    wrote, fixed = "- **2026-12-01** | meeting \u2014 met Postgress team".encode(), "- **2026-12-01** | meeting \u2014 met Postgres team".encode()
    assert not another_line(fixed, wrote, names)
    assert another_line(fixed, wrote)  # nothing known of either word: kept both (nothing lost)
    assert another_line(wrote, fixed, names)  # a page's name put for a word no page has: no fix
    before, after, disk = NOTE, NOTE + wrote + b"\n", NOTE + fixed + b"\n"
    assert saw_write(before, after, disk, names=names)
    assert stale_view(disk, after, [before], names=names) is None
    for w, m in ((b"- [ ] call with Jon about the roadmap", b"- [ ] call with Jan about the roadmap"),
                 (b"- [ ] call with Acne about the deal", b"- [ ] call with Acme about the deal")):
        assert another_line(m, w, names), m
        v = stale_view(NOTE + m + b"\n", NOTE + w + b"\n", [NOTE], names=names)
        assert v is not None and v.merged is not None and w in v.merged and m in v.merged
    assert another_line(fixed, wrote, lambda w: True if w == "Postgres" else "")  # a name of no known kind: no fix


def the_person_fixes_the_agents_misspelt_name(brain: Brain, eng: SyncEngine, root: Path) -> None:
    """gbrain's timeline line `met Postgress team` reaches the file, the person fixes the name
    there and saves: one line, the fixed one, in the page and the file (an edit, nothing merged)."""
    eng.sync()
    f = root / PATH
    data = agent_write_reaches_file(brain, eng, f, "met Postgress team about the move")
    editor_save(f, data.replace(b"Postgress", b"Postgres"))
    rep = eng.sync()
    assert rep["merged"] == [] and rep["conflicts"] == [], rep
    page = text_of(brain, SLUG).encode("utf-8")
    assert b"met Postgres team" in page and b"Postgress" not in page and f.read_bytes() == page, page
    assert fresh_import_differences(brain) == {}


def test_a_misspelt_name_fixed_in_a_line_gbrain_wrote_keeps_one_line(env):
    """gbrain appended `| agent \u2014 met Postgress team` to the timeline, watch wrote it to the file;
    the person fixed the name there. The base had no such line (no word of the person's own), so
    the fix read as a teammate's line with another name: merged, the misspelt line kept beside
    the fixed one. The brain has a page `Postgres` (no person's) and none `Postgress`: an edit of
    the newest version, one line."""
    brain, eng, root = env
    brain.put("concepts/postgres", "# Postgres\n\nThe database.\n")
    the_person_fixes_the_agents_misspelt_name(brain, eng, root)

def test_a_misspelt_name_fixed_to_a_topic_many_titles_start_with_keeps_one_line(env, monkeypatch):
    """The same in a brain about that topic: `concepts/postgres` and more titles starting with
    `Postgres` than `FIRST_WORD_ROWS` (`Postgres tuning`, `Postgres backups`...: a brain's main
    topic names hundreds). A word that many titles start with read as a person's first name
    whatever its own page was, so the fix of gbrain's `Postgress` was another line: the misspelt
    line kept beside the fixed one. The word names a page that is no person's, and no title read
    is a person's: a page's name (a person's first name crowded out by other titles, with no page
    of that name, stays a person's)."""
    import gbrain.sync.engine as engine_mod

    monkeypatch.setattr(engine_mod, "FIRST_WORD_ROWS", 2)  # (3 titles stand for hundreds)
    brain, eng, root = env
    brain.put("concepts/postgres", "# Postgres\n\nThe database.\n")
    for t in ("tuning", "backups", "upgrades"):
        brain.put(f"notes/postgres-{t}", f"# Postgres {t}\n\nNotes.\n")
    for t in ("march", "april", "may"):
        brain.put(f"notes/jan-{t}", f"# Jan {t}\n\nNotes.\n")
    assert eng._page_name("Postgres") == "page" and eng._page_name("Jan") == "person"
    the_person_fixes_the_agents_misspelt_name(brain, eng, root)


@pytest.mark.engine_free
@pytest.mark.parametrize("wrote, fixed", [
    ("- **2026-12-05** | Invoice recieved from the landlord today", "- **2026-12-05** | Invoice received from the landlord today"),
    ("- **2026-12-05** | Sent teh signed lease back to the agency", "- **2026-12-05** | Sent the signed lease back to the agency"),
    ("- **2026-12-05** | Sent the signed lease to the agency", "- **2026-12-05** | Sent the signed lease back to the agency"),
    ("- **2026-12-05** | Call with ana Lima about the loan", "- **2026-12-05** | Call with Ana Lima about the loan"),
    ("- **2026-12-05** | Call with Ana Lima about the laon", "- **2026-12-05** | Call with Ana Lima about the loan"),
    ("- **2026-12-05** | Standup moved to the big room", "- **2026-12-05** | Stand-up moved to the big room"),
    ("- **2026-12-05** | call with Ana Lima about the loan", "- **2026-12-05** | Call with Ana Lima about the loan"),
    ("- **2026-12-05** | Call with Ana Lmia about the loan", "- **2026-12-05** | Call with Ana Lima about the loan"),
    ("- **2026-12-05** | Call with ana lmia about the loan", "- **2026-12-05** | Call with Ana Lima about the loan"),
    ("- [ ] Recieved the keys from Ana", "- [ ] Received the keys from Ana"),
    ("Jon called. teh bank wants the form", "Jon called. The bank wants the form"),
    # the summary's first word in gbrain's own timeline line (`| source \u2014 summary`): a capital
    # that starts a sentence says nothing (a fix of it was read as another name: two entries)
    ("- **2026-12-05** | meeting \u2014 Discused the migration plan", "- **2026-12-05** | meeting \u2014 Discussed the migration plan"),
    ("- **2026-12-05** | email \u2013 Recived the signed lease", "- **2026-12-05** | email \u2013 Received the signed lease"),
    ("- **2026-12-05** | meeting\u2014Tommorow we ship", "- **2026-12-05** | meeting\u2014Tomorrow we ship"),
    ("- shipped the fix -- Tommorow we test it", "- shipped the fix -- Tomorrow we test it"),
    # a heading in title case: every word's capital says nothing of a name
    ("## Team Quartely Review", "## Team Quarterly Review"),
    ("### Open Threads From The Offsite Meting", "### Open Threads From The Offsite Meeting"),
])
def test_a_typo_fixed_in_the_line_that_arrived_is_still_an_edit_of_it(wrote, fixed):
    """The other side of the look-alike rule: a person who fixes a typo (letters swapped or
    missing, a capital, a word put in) in the line gbrain just wrote to the file saw it: the save
    is an edit of the newest version (plain import), not merged back into two lines."""
    from gbrain.sync.merge import another_line, saw_write

    after = NOTE + wrote.encode() + b"\n"
    disk = NOTE + fixed.encode() + b"\n"
    assert not another_line(fixed.encode(), wrote.encode())
    assert saw_write(NOTE, after, disk)
    assert stale_view(disk, after, [NOTE]) is None


@pytest.mark.engine_free
@pytest.mark.parametrize("mine, wrote, fixed", [
    ("- met the Postgress team about the move", "- met the Postgress team about the move, follow up on Friday",
     "- met the Postgres team about the move, follow up on Friday"),
    ("- lunch with Gus O'Brin", "- lunch with Gus O'Brin at noon", "- lunch with Gus O'Brien at noon"),
    ("- [ ] ping @robb about it", "- [ ] ping @robb about it today", "- [ ] ping @rob about it today"),
])
def test_a_name_the_person_had_misspelt_fixed_in_the_line_gbrain_extended_is_an_edit(mine, wrote, fixed):
    """The person's own line held a misspelt name (`Postgress`), gbrain's write added words to
    that line, and the person, having seen it, fixed the name: the name the save changed was in
    the very line of its base it replaced, so it is the person's own word fixed, not another
    person's line (`merge.another_line`'s ``kept``). Found: taken for another name, the save was
    stale and clashed with the write on that line: a conflict copy for a fix of a letter."""
    from gbrain.sync.merge import saw_write

    before = NOTE + mine.encode() + b"\n"
    after = NOTE + wrote.encode() + b"\n"
    disk = NOTE + fixed.encode() + b"\n"
    assert saw_write(before, after, disk)
    assert stale_view(disk, after, [before]) is None


@pytest.mark.engine_free
def test_a_stale_save_sharing_only_a_heading_with_the_agents_write_keeps_the_agents_lines():
    """The agent added a section ('## Next steps' and three lines); the person's stale buffer added
    the same heading with an item of their own. Holding a line gbrain's write added showed the
    save was made after seeing it, but a heading (or any line under 16 characters) is typed
    alike by habit or template: the agent's lines left the page with no conflict. Now such a
    line is no sign: the save is stale and the merge keeps both insertions. (Nor is being closer
    by whole lines to the agent's version than to the one before, since 2026-12-04: see
    test_a_stale_save_closer_to_the_agents_version_still_keeps_the_agents_lines.) A long line of
    the agent's that the save holds still is a sign."""
    a = b"# Ana\n\nNotes.\n"
    agent = a + b"\n## Next steps\n\nSend her the term sheet by Friday.\nAsk Bo for the cap table.\nBook the room for the 12th.\n"
    v = stale_view(a + b"\n## Next steps\n\n- call the bank\n", agent, [a])
    assert v is not None and b"Book the room for the 12th." in v.merged and b"- call the bank" in v.merged
    two = a + b"\nShe leads the payments team.\nShe prefers calls in the morning.\n"
    assert stale_view(a + b"\nShe leads the payments team.\n", two, [a]) is None  # one of the agent's two lines deleted


# the base of a stale save chosen by the lines each version alone has, not by raw distance
OLD_NOTES = (b"## Old notes\n\nCall the bank about the old loan terms.\nAsk legal for the 2024 contract draft.\n"
             b"The office move is postponed to spring.\nKeep the old vendor list until March.\n\n")
DEAL = b"# Deal\n\nOwner: Ana.\nStage: term sheet sent.\n\n" + OLD_NOTES + b"## Log\n\n- **2026-12-01** | Kick-off with Ana\n"
BUDGET = b"Budget: 40k, signed off by finance.\n"
TYPED = b"- **2026-12-04** | Next call on Friday with the bank\n"


@pytest.mark.engine_free
def test_a_stale_save_closer_to_the_agents_version_still_keeps_the_agents_lines():
    """The last session's known flaw: the agent cleaned up a page (removed a stale section) and
    added a line; the person, in a buffer opened before, removed the same section and typed a
    line. By whole lines the save is far closer to the agent's version (2 lines) than to the one
    it was opened from (8), so it counted as an edit of the agent's version: the file won and the
    agent's line left the page with no conflict. The save holds no line the agent's write added:
    nothing shows it was made after seeing it, so it is merged with the version before."""
    agent = DEAL.replace(OLD_NOTES, b"").replace(b"Owner: Ana.\n", b"Owner: Ana.\n" + BUDGET)
    person = DEAL.replace(OLD_NOTES, b"") + TYPED
    assert distance(agent, person) < distance(DEAL, person)  # the old rule's trap
    v = stale_view(person, agent, [DEAL])
    assert v is not None and v.ancestor == 0 and v.merged == agent + TYPED
    # both replaced the section at the same place: no guess, a conflict (the save is a copy)
    v = stale_view(DEAL.replace(OLD_NOTES, TYPED + b"\n"), DEAL.replace(OLD_NOTES, BUDGET + b"\n"), [DEAL])
    assert v is not None and v.merged is None
    # a save that holds the agent's line was made after seeing it: an edit of the newest version
    assert stale_view(agent.replace(b"# Deal", b"# Deal (Q3)"), agent, [DEAL]) is None


@pytest.mark.engine_free
def test_a_stale_save_closer_to_a_middle_version_keeps_that_versions_lines():
    """The same trap one version back: the agent's first write cleaned up the section and added a
    line, its second added a timeline entry; the person's buffer is the file's own version (before
    both). By distance the middle version was the ancestor, so the merge took the save's missing
    line for a deletion and dropped the first write's line. Now the ancestor is the newest version
    the save shows it saw (a line that version's write added): none here, the oldest."""
    first = DEAL.replace(OLD_NOTES, b"").replace(b"Owner: Ana.\n", b"Owner: Ana.\n" + BUDGET)
    second = first + b"- **2026-12-03** | Agent: sent Ana the term sheet\n"
    person = DEAL.replace(OLD_NOTES, b"").replace(b"# Deal\n", b"# Deal\n\nPerson's own summary line here.\n")
    v = stale_view(person, second, [first, DEAL])
    assert v is not None and v.ancestor == 1
    assert v.merged == second.replace(b"# Deal\n", b"# Deal\n\nPerson's own summary line here.\n")
    # a buffer reloaded after the first write (it holds the first write's line): based on it
    seen = first.replace(b"# Deal\n", b"# Deal\n\nPerson's own summary line here.\n")
    v = stale_view(seen, second, [first, DEAL])
    assert v is not None and v.ancestor == 0 and v.merged == second.replace(b"# Deal\n", b"# Deal\n\nPerson's own summary line here.\n")


@pytest.mark.engine_free
def test_a_middle_buffer_that_deleted_its_writes_line_is_no_undo_of_the_newest_write():
    """Found by tests/test_stale_property.py: the buffer held the agent's first write (a line
    added), the person deleted that line and saved, while the agent's second write had reached
    the file. The save equals the version before the first write exactly, and "equals an older
    version" was taken as an undo of gbrain's writes: the second write's line left the page
    with no conflict. Only a save equal to the version before the newest write that saw the
    write before it (or the only older version) is taken as an undo."""
    a = b"# Ana\n\nNotes.\n"
    first = a + b"\nAgent: she leads the payments team.\n"
    second = first + b"Agent: call booked for Friday at ten.\n"
    v = stale_view(a, second, [first, a])
    assert v is not None and v.merged == second  # nothing lost (the first line comes back too)
    assert stale_view(first, second, [first, a]) is None  # the newest write undone, the first seen
    assert stale_view(a, first, [a]) is None  # the only write undone


@pytest.mark.engine_free
def test_decide_routes_stale_saves():
    st = dict(disk="d", brain="s", base="s", brain_kind="page")
    plan = decide({"a.md": PathState(**st, stale="merge"), "b.md": PathState(**st, stale="conflict"), "c.md": PathState(**st)})
    assert plan.action("a.md") == "merge"
    assert plan.action("b.md") == "conflict:stale-save"
    assert plan.action("c.md") == "import"


# ---- the engine -------------------------------------------------------------------------------


@pytest.fixture
def env(synced):
    """The fixture brain bound to its tree by a first sync (conftest.synced)."""
    return synced


def agent_write_reaches_file(brain: Brain, eng: SyncEngine, f: Path, summary: str = "AGENT-ENTRY") -> bytes:
    brain.timeline_add(SLUG, "2026-12-02", summary, "agent")
    rep = eng.sync()
    assert rep["changed"]["exported"] == [PATH], rep["changed"]
    data = f.read_bytes()
    assert summary.encode() in data
    return data


def test_a_stale_save_is_merged_with_the_newer_write_through_gbrain(env):
    brain, eng, root = env
    f = root / PATH
    buf = f.read_bytes()  # the editor opens the file
    agent_write_reaches_file(brain, eng, f)
    saved = buf + b"user typed this\n"
    editor_save(f, saved)
    rep = eng.sync()
    assert rep["ok"] and rep["exit_code"] == 0, rep
    assert rep["merged"] == [PATH] and rep["conflicts"] == []
    page = text_of(brain, SLUG).encode("utf-8")
    assert b"AGENT-ENTRY" in page and b"user typed this" in page
    assert f.read_bytes() == page
    assert conflict_list(brain) == []
    assert sha(saved) in all_versions(brain, root)  # the save itself is a version in the history
    verify_equal(brain, root)
    assert fresh_import_differences(brain) == {}
    # the editor saves again from the same (still stale) buffer: merged again, nothing lost
    saved2 = saved + b"and more\n"
    editor_save(f, saved2)
    rep = eng.sync()
    assert rep["merged"] == [PATH] and rep["conflicts"] == []
    page = f.read_bytes()
    assert b"AGENT-ENTRY" in page and b"user typed this" in page and b"and more" in page
    assert page.count(b"user typed this") == 1
    assert text_of(brain, SLUG).encode("utf-8") == page
    assert eng.sync()["counts"]["imported"] == 0  # settled
    assert fresh_import_differences(brain) == {}


def test_typing_below_a_link_a_move_shortened_makes_no_conflict_copies(env, db_path):
    """Trial 49's conflict storm, driven round by round: a note whose one line links a person;
    the person is renamed to a shorter name (``gbrain move``: the link rewritten by cutting
    letters), the rewrite reaches the folder, and someone types below the line, the editor
    saving its whole buffer each time. Every save was taken as a stale one and kept as a
    conflict copy (13 of one note in the trial); each is an edit of the newest version."""
    brain, eng, root = env
    (root / "people" / "robert-ng.md").write_bytes(b"# Robert Ng\n")
    (root / "meetings").mkdir(exist_ok=True)
    k = root / "meetings" / "kickoff.md"
    k.write_bytes(b"# Kickoff\n\nAttendees: [[people/ana-lima]], [[people/robert-ng]]. Project [[apollo]].\n")
    assert eng.sync()["exit_code"] == 0
    r = gbrain("--db", str(db_path), "move", "people/robert-ng", "people/rob-ng")
    assert r.returncode == 0, r.stderr
    assert eng.sync()["exit_code"] == 0
    buf = k.read_bytes()
    assert b"[[people/rob-ng]]" in buf
    for n in range(1, 4):
        buf += b"kick B %d\n" % n
        k.write_bytes(buf)  # in place, as the trial's editor saved
        rep = eng.sync()
        assert rep["conflicts"] == [] and rep["exit_code"] == 0, rep
        assert text_of(brain, "meetings/kickoff").encode() == buf
    assert conflict_list(brain) == []
    assert not [p.name for p in (root / "meetings").iterdir() if ".conflict-" in p.name]


@pytest.mark.parametrize("how", ["stale-save", "both-changed"])
def test_the_buffer_a_merge_was_made_of_saved_again_keeps_the_merged_lines(env, how):
    """Audit of merge.stale_view's undo rule (a save equal to the version before gbrain's newest
    write undid that write, taken as meant): after a merge the newest version is the merge and
    the one before it the person's save, so the editor saving that same buffer again (an
    autosave, vim's :w forced; it showed already that it does not reload) was taken as undoing
    the merge, and the agent's line left the page unsaid. The buffer a merge was made of, saved
    again, is merged again (nothing lost); saved once more after that, it is taken as meant (a
    person who deleted the merged lines twice)."""
    brain, eng, root = env
    f = root / PATH
    buf = f.read_bytes()
    if how == "stale-save":
        agent_write_reaches_file(brain, eng, f)
    else:  # the agent's write and the person's edit in one round: both changed since the base
        brain.timeline_add(SLUG, "2026-12-02", "AGENT-ENTRY", "agent")
    saved = buf + b"user typed this\n"
    editor_save(f, saved)
    rep = eng.sync()
    assert rep["merged"] == [PATH] and rep["conflicts"] == [], rep
    merged = f.read_bytes()
    assert b"AGENT-ENTRY" in merged and b"user typed this" in merged
    editor_save(f, saved)  # the same buffer, saved again
    rep = eng.sync()
    assert rep["conflicts"] == [], rep
    assert text_of(brain, SLUG).encode() == merged and f.read_bytes() == merged
    editor_save(f, saved)  # and once more: the person means it
    rep = eng.sync()
    assert text_of(brain, SLUG).encode() == saved and f.read_bytes() == saved
    assert rep["conflicts"] == []


def test_a_stale_save_that_does_not_merge_keeps_the_brains_version_and_copies_the_file(env):
    brain, eng, root = env
    f = root / PATH
    buf = f.read_bytes()
    first = buf.splitlines(keepends=True)[1]  # a line both sides change differently
    brain.put(SLUG, buf.replace(first, b"changed by the agent\n", 1).decode("utf-8"))
    rep = eng.sync()
    assert rep["changed"]["exported"] == [PATH]
    agent = f.read_bytes()
    saved = buf.replace(first, b"changed by the person\n", 1)
    editor_save(f, saved)
    rep = eng.sync()
    assert rep["ok"] and rep["exit_code"] == 3, rep
    [c] = rep["conflicts"]
    assert c["kind"] == "stale-save" and c["path"] == PATH
    # the brain's (newer) version stays the page and the file; the save is the copy
    assert text_of(brain, SLUG).encode("utf-8") == agent == f.read_bytes()
    assert (root / c["copy_path"]).read_bytes() == saved
    assert [x["path"] for x in conflict_list(brain)] == [PATH]
    verify_equal(brain, root)
    assert fresh_import_differences(brain) == {}


def test_a_stale_save_that_made_the_agents_cleanup_too_keeps_the_agents_line(env):
    """End to end (both engines): the agent removed the Open Threads section and added a line;
    the person's editor, opened before, removed the same section and typed a timeline entry, then
    saved. The save is closer by lines to the agent's version (2 lines) than to the one it was
    opened from (5): before, it was imported as an edit of the agent's version and the agent's
    line left the page and the file with no conflict. Now it is merged: both kept."""
    brain, eng, root = env
    f = root / PATH
    buf = f.read_bytes()  # the editor opens the file
    threads = buf[buf.index(b"## Open Threads"):buf.index(b"---\n\n## Timeline")]
    assert threads.count(b"\n") >= 4
    mine = b"She closed a bridge round with two angels on 2026-12-01.\n"
    agent = buf.replace(threads, b"").replace(b"## State\n\n", b"## State\n\n" + mine)
    brain.put(SLUG, agent.decode("utf-8"))
    assert eng.sync()["changed"]["exported"] == [PATH] and f.read_bytes() == agent
    typed = b"- **2026-12-04** | call \xe2\x80\x94 Typed in the old buffer: Ana wants the deck by Monday.\n"
    saved = buf.replace(threads, b"") + typed
    assert distance(agent, saved) < distance(buf, saved)
    editor_save(f, saved)
    rep = eng.sync()
    assert rep["ok"] and rep["exit_code"] == 0 and rep["merged"] == [PATH] and rep["conflicts"] == [], rep
    page = text_of(brain, SLUG).encode("utf-8")
    assert page == agent + typed == f.read_bytes()
    assert sha(saved) in all_versions(brain, root)
    verify_equal(brain, root)
    assert fresh_import_differences(brain) == {}


def test_an_edit_of_the_newest_version_wins_as_before(env):
    brain, eng, root = env
    f = root / PATH
    newest = agent_write_reaches_file(brain, eng, f)
    editor_save(f, newest + b"typed after the agent's write\n")
    rep = eng.sync()
    assert rep["merged"] == [] and rep["changed"]["imported"] == [PATH] and rep["exit_code"] == 0
    assert text_of(brain, SLUG).encode("utf-8") == f.read_bytes() == newest + b"typed after the agent's write\n"


def test_fixing_a_typo_in_the_agents_line_wins(env):
    """A trial: an agent rewrote a line (with a typo), sync wrote it to the file, the person
    fixed the typo in that line and saved. By whole lines the save is as far from the version
    before the agent's as from the agent's; its line is an edit of the agent's, so it is an edit
    of the newest version: imported, no stale-save conflict."""
    brain, eng, root = env
    f = root / PATH
    buf = f.read_bytes()
    line = buf.splitlines(keepends=True)[1]
    agent = buf.replace(line, line.rstrip(b"\n") + b" The agent adds: recieve the invoice first.\n", 1)
    brain.put(SLUG, agent.decode("utf-8"))
    assert eng.sync()["changed"]["exported"] == [PATH] and f.read_bytes() == agent
    fixed = agent.replace(b"recieve", b"receive")
    editor_save(f, fixed)
    rep = eng.sync()
    assert rep["conflicts"] == [] and rep["changed"]["imported"] == [PATH] and rep["exit_code"] == 0, rep
    assert text_of(brain, SLUG).encode("utf-8") == f.read_bytes() == fixed
    assert fresh_import_differences(brain) == {}


def test_deleting_the_agents_line_after_seeing_it_wins(env):
    brain, eng, root = env
    f = root / PATH
    before = f.read_bytes()
    newest = agent_write_reaches_file(brain, eng, f)
    line = next(ln for ln in newest.splitlines(keepends=True) if b"AGENT-ENTRY" in ln)
    editor_save(f, newest.replace(line, b""))  # deleted on purpose, nothing else changed
    rep = eng.sync()
    assert rep["merged"] == [] and rep["conflicts"] == [] and rep["changed"]["imported"] == [PATH]
    assert f.read_bytes() == before and b"AGENT-ENTRY" not in text_of(brain, SLUG).encode("utf-8")
    # two agent lines; the person deletes one of them (and types): based on the newest, wins
    brain.timeline_add(SLUG, "2026-12-03", "SECOND-A", "agent")
    brain.timeline_add(SLUG, "2026-12-04", "SECOND-B", "agent")
    eng.sync()
    newest = f.read_bytes()
    line = next(ln for ln in newest.splitlines(keepends=True) if b"SECOND-A" in ln)
    editor_save(f, newest.replace(line, b"") + b"x\n")
    rep = eng.sync()
    assert rep["merged"] == [] and rep["conflicts"] == []
    page = text_of(brain, SLUG).encode("utf-8")
    assert b"SECOND-A" not in page and b"SECOND-B" in page and page == f.read_bytes()
    assert fresh_import_differences(brain) == {}


def test_a_users_own_edits_are_never_taken_for_gbrain_writes(env):
    """Two saves of the person in a row (add a line, then replace it): the second is based on
    the first (the file's own version), so nothing is merged back."""
    brain, eng, root = env
    f = root / PATH
    base = f.read_bytes()
    editor_save(f, base + b"line X\n")
    eng.sync()
    editor_save(f, base + b"line Y\n")
    rep = eng.sync()
    assert rep["merged"] == [] and rep["changed"]["imported"] == [PATH]
    assert text_of(brain, SLUG).encode("utf-8") == base + b"line Y\n"


# ---- a real `gbrain watch` --------------------------------------------------------------------


def test_watch_merges_an_editors_stale_save_with_an_agents_write(watch, brain_tree, db_path, run):
    w = watch()
    f = brain_tree / PATH
    b = Brain.open(db_path)
    try:
        buf = f.read_bytes()  # the editor opens the file
        r = run("timeline-add", SLUG, "--date", "2026-12-02", "--summary", "AGENT-ENTRY", env={"GBRAIN_DB": str(db_path)})
        assert r.returncode == 0, r.stderr
        wait_for(lambda: b"AGENT-ENTRY" in f.read_bytes(), "the agent's write to reach the file")
        editor_save(f, buf + b"user typed this\n")  # the stale save
        wait_for(lambda: w.saw(f"merged your save of {PATH}"), "watch to merge the stale save")

        def merged() -> bool:
            data = f.read_bytes()
            return b"AGENT-ENTRY" in data and b"user typed this" in data and text_of(b, SLUG) == data.decode("utf-8")

        wait_for(merged, "the merged text in the file and the page")
        wait_for(lambda: equal(b, brain_tree), "the tree to equal the brain")
        assert conflict_list(b) == []
    finally:
        b.close()
    code, _ = w.stop()
    assert code == 0, "\n".join(w.lines)


def test_only_recent_writes_through_gbrain_are_looked_at(env, monkeypatch):
    """Outside the window (here: a window of -1 s, so every write is too old) a save from an
    older buffer is imported by the plain rule, as before; the history keeps the agent's write."""
    import gbrain.sync.engine as engine

    brain, eng, root = env
    f = root / PATH
    buf = f.read_bytes()
    agent = agent_write_reaches_file(brain, eng, f)
    monkeypatch.setattr(engine, "STALE_WINDOW_S", -1)
    editor_save(f, buf + b"user typed this\n")
    rep = eng.sync()
    assert rep["merged"] == [] and rep["changed"]["imported"] == [PATH]
    assert b"AGENT-ENTRY" not in f.read_bytes() and sha(agent) in all_versions(brain, root)


# ---- a save landing between a round's check and its write (trial: stale_saves --mode race) ----


@pytest.fixture(params=["exchange", "link", "no-link"])
def swap_way(request, monkeypatch):
    """Each way :func:`exporter._swap_in` can put a file in place: Linux's ``renameat2``
    exchange, the rename-aside + hard link of other systems, and the plain rename where hard
    links fail too."""
    from gbrain.sync import exporter

    if request.param == "exchange" and exporter._renameat2 is None:
        pytest.skip("no renameat2 here")
    if request.param != "exchange":
        monkeypatch.setattr(exporter, "_renameat2", None)
    if request.param == "no-link":
        def no_link(*a, **k):
            raise PermissionError(1, "Operation not permitted")
        monkeypatch.setattr(exporter.os, "link", no_link)
    return request.param


def save_in_the_window(monkeypatch, f: Path, data: bytes) -> list:
    """Make the editor save ``data`` to ``f`` (temp file + rename) once, at the moment the next
    write of ``f`` has checked the file and not yet put its bytes in place."""
    from gbrain.sync import exporter

    done: list = []

    def hook(target: str) -> None:
        if target == str(f) and not done:
            done.append(target)
            editor_save(f, data)
    monkeypatch.setattr(exporter, "before_swap", hook)
    return done


def test_a_save_made_while_the_round_writes_the_file_is_never_written_over(env, monkeypatch, swap_way):
    """stale_saves.py --mode race lost 0-2 typed lines in 30 rounds, in the page, no conflict copy,
    nor the history: watch's export of an agent's write (temp file, then ``os.replace``) landed
    on an editor's save made after the round had checked the file, so no round ever read it.
    Traced: the check saw inode A at t, the save (inode B) landed 0.2 ms later, the replace 17 ms
    after that. Now the write goes in only over the file checked; the save stays and the next
    round merges it with the agent's write."""
    brain, eng, root = env
    f = root / PATH
    buf = f.read_bytes()  # the editor opens the file
    brain.timeline_add(SLUG, "2026-12-02", "AGENT-ENTRY", "agent")
    saved = buf + b"user typed this\n"
    hit = save_in_the_window(monkeypatch, f, saved)
    rep = eng.sync()
    assert hit, "the round did not write the file"
    assert f.read_bytes() == saved  # the save is where the editor put it
    assert rep["changed"]["exported"] == [], rep["changed"]
    assert not [n for n in os.listdir(f.parent) if n.startswith(".gbrain-tmp-") or ".unseen-" in n]
    rep = eng.sync()
    page = text_of(brain, SLUG).encode("utf-8")
    assert b"AGENT-ENTRY" in page and b"user typed this" in page, (rep, page)
    assert rep["merged"] == [PATH] and rep["conflicts"] == [], rep
    assert f.read_bytes() == page
    assert sha(saved) in all_versions(brain, root)
    assert eng.sync()["exit_code"] == 0
    verify_equal(brain, root)
    assert fresh_import_differences(brain) == {}


@pytest.mark.engine_free
@pytest.mark.parametrize("existed", [True, False])
def test_swap_in_leaves_a_save_made_after_the_check(tmp_path, monkeypatch, swap_way, existed):
    from gbrain.sync import exporter

    f = tmp_path / "note.md"
    if existed:
        f.write_bytes(b"old\n")
    planned = os.lstat(f) if existed else None
    ok = (lambda st: st is not None and exporter._same_file(st, planned)) if existed else (lambda st: st is None)
    # no save meanwhile: written, nothing left beside it
    assert exporter._replace_file(str(f), b"new\n", None, unchanged=ok)
    assert f.read_bytes() == b"new\n" and os.listdir(tmp_path) == ["note.md"]
    if existed:
        f.write_bytes(b"old\n")
        planned = os.lstat(f)
    else:
        f.unlink()
    save_in_the_window(monkeypatch, f, b"the save\n")
    assert not exporter._replace_file(str(f), b"brain\n", None, unchanged=ok)
    assert f.read_bytes() == b"the save\n" and os.listdir(tmp_path) == ["note.md"]
    # the file changed before the check: nothing written, no hook needed
    assert not exporter._replace_file(str(f), b"brain\n", None, unchanged=ok)
    assert f.read_bytes() == b"the save\n"


@pytest.fixture(params=["noreplace", "no-flag", "none", "no-link"])
def place_way(request, monkeypatch):
    """Each way a new file is put where none is, never over one (``exporter._place_new``):
    ``renameat2(RENAME_NOREPLACE)``; a ``renameat2`` answering that it has no such flag
    (``EINVAL``, as some file systems do); no ``renameat2`` at all; and neither it nor hard
    links (a last look, then the plain rename)."""
    from gbrain.sync import exporter

    if request.param == "noreplace" and exporter._renameat2 is None:
        pytest.skip("no renameat2 here")
    if request.param == "no-flag":
        monkeypatch.setattr(exporter, "_renameat2", lambda src, dst, flags: errno.EINVAL)
    if request.param in ("none", "no-link"):
        monkeypatch.setattr(exporter, "_renameat2", None)
    if request.param == "no-link":
        def no_link(*a, **k):
            raise PermissionError(1, "Operation not permitted")
        monkeypatch.setattr(exporter.os, "link", no_link)
    return request.param


def land_at_placing(monkeypatch, f: Path, data: bytes) -> list:
    """Make the editor save ``data`` to ``f`` once, right before the system call that puts a new
    file at ``f`` (the ``renameat2`` or the ``os.link``; where neither works, inside the failing
    link, so the last look sees it)."""
    from gbrain.sync import exporter

    done: list = []

    def land(dst) -> None:
        if os.fspath(dst) == str(f) and not done:
            done.append(dst)
            editor_save(f, data)
    real_r, real_link = exporter._renameat2, exporter.os.link
    if real_r is not None:
        def renameat2(src, dst, flags):
            land(dst)
            return real_r(src, dst, flags)
        monkeypatch.setattr(exporter, "_renameat2", renameat2)

    def link(src, dst, *a, **k):
        land(dst)
        return real_link(src, dst, *a, **k)
    monkeypatch.setattr(exporter.os, "link", link)
    return done


@pytest.mark.engine_free
@pytest.mark.parametrize("how", ["into_place", "replace_file"])
def test_a_new_file_goes_in_only_where_none_is(tmp_path, monkeypatch, place_way, how):
    """The no-replace step ``_into_place`` (a left save back at its note) and ``_replace_file``'s
    new-file branch share: placed where nothing is (True, the bytes there, the source gone); a
    file landing at the name meanwhile stays untouched (False; ``_into_place``'s source stays
    for the caller to keep beside, ``_replace_file``'s own temp file is removed)."""
    from gbrain.sync import exporter

    f = tmp_path / "note.md"
    src = tmp_path / ".gbrain-tmp-1-left"

    def place() -> bool:
        if how == "into_place":
            src.write_bytes(b"new\n")
            return exporter._into_place(str(src), str(f))
        return exporter._replace_file(str(f), b"new\n", None, unchanged=lambda st: st is None)

    assert place()
    assert f.read_bytes() == b"new\n" and os.listdir(tmp_path) == ["note.md"]
    f.unlink()
    hit = land_at_placing(monkeypatch, f, b"the save\n")
    assert not place()
    assert hit, "nothing landed"
    assert f.read_bytes() == b"the save\n"
    left = sorted(os.listdir(tmp_path))
    if how == "into_place":
        assert left == sorted(["note.md", src.name]) and src.read_bytes() == b"new\n"
    else:
        assert left == ["note.md"]
    if how == "into_place":  # a file there before the call: not touched, no system call tried
        src.write_bytes(b"newer\n")
        assert not exporter._into_place(str(src), str(f))
        assert f.read_bytes() == b"the save\n" and src.read_bytes() == b"newer\n"


@pytest.mark.engine_free
@pytest.mark.parametrize("how", ["into_place", "replace_file"])
def test_placing_a_new_file_raises_a_renameat2_error_other_than_no_flag(tmp_path, monkeypatch, how):
    """A ``renameat2`` error that is not "no such flag" (here ``EACCES``) is raised, naming the
    target; nothing is placed, and the source is where it was (``_replace_file`` removes its own
    temp file)."""
    from gbrain.sync import exporter

    monkeypatch.setattr(exporter, "_renameat2", lambda src, dst, flags: errno.EACCES)
    f, src = tmp_path / "note.md", tmp_path / ".gbrain-tmp-1-left"
    with pytest.raises(PermissionError) as e:
        if how == "into_place":
            src.write_bytes(b"new\n")
            exporter._into_place(str(src), str(f))
        else:
            exporter._replace_file(str(f), b"new\n", None, unchanged=lambda st: st is None)
    assert e.value.errno == errno.EACCES and e.value.filename == str(f)
    assert os.listdir(tmp_path) == ([src.name] if how == "into_place" else [])


@pytest.mark.engine_free
@pytest.mark.parametrize("when", ["before_the_put_back", "in_its_exchange"])
def test_the_newer_of_two_saves_within_one_swap_stays_in_the_note(tmp_path, monkeypatch, swap_way, when):
    """Two saves around one swap: the swap took the first from the note (our file now there),
    and the second landed on our file before the put-back. The second is the newer one (it
    landed after the first was taken): it stays in the note and the first is kept beside it as
    ``note.unseen-1.md``. The put-back put the first back over the second, leaving the older save
    in the note and the newer one beside it. A second save landing inside the put-back's
    exchange is swapped back in the same way. Nothing is removed but our own file."""
    from gbrain.sync import exporter

    if swap_way == "no-link":
        pytest.skip("the put-back links only where hard links work")
    if when == "in_its_exchange" and swap_way != "exchange":
        pytest.skip("the exchange's window")
    f, aside, ours = tmp_path / "note.md", tmp_path / ".gbrain-tmp-1-aside", tmp_path / "ours"
    ours.write_bytes(b"brain\n")
    mine = os.lstat(ours)
    aside.write_bytes(b"first save\n")
    if when == "before_the_put_back":
        f.write_bytes(b"second save\n")
    else:
        os.link(ours, f)  # our file in the note at the put-back's look
        real, hit = exporter._renameat2, []

        def exchange(src, dst, flags):  # the second save lands between the look and the exchange
            if not hit:
                hit.append(dst)
                editor_save(f, b"second save\n")
            return real(src, dst, flags)
        monkeypatch.setattr(exporter, "_renameat2", exchange)
    exporter._put_back(str(aside), str(f), mine)
    assert f.read_bytes() == b"second save\n"
    assert (tmp_path / "note.unseen-1.md").read_bytes() == b"first save\n"
    assert sorted(os.listdir(tmp_path)) == ["note.md", "note.unseen-1.md", "ours"]
    # the usual case: our file was there, it is removed
    os.link(ours, tmp_path / "x.md")
    aside.write_bytes(b"a save\n")
    exporter._put_back(str(aside), str(tmp_path / "x.md"), mine)
    assert (tmp_path / "x.md").read_bytes() == b"a save\n"
    assert sorted(os.listdir(tmp_path)) == ["note.md", "note.unseen-1.md", "ours", "x.md"]


def test_two_saves_within_a_rounds_swap_leave_the_newer_in_the_note_and_lose_neither(env, monkeypatch, swap_way):
    """A round writing an agent's entry swaps the note; the editor saved once before the swap
    (the swap took that save) and once more before the save was put back (over our file). The
    put-back left the first save in the note and the second, newer one as ``NAME.unseen-1.md``,
    a page of its own. Now the newer stays in the note and is merged with the agent's entry by
    the next round; the older is kept beside it (imported); every version is kept."""
    from gbrain.sync import exporter

    if swap_way == "no-link":
        pytest.skip("the put-back links only where hard links work")
    brain, eng, root = env
    f = root / PATH
    buf = f.read_bytes()  # the editor opens the file
    brain.timeline_add(SLUG, "2026-12-02", "AGENT-ENTRY", "agent")
    agent = text_of(brain, SLUG).encode("utf-8")
    first, second = buf + b"typed first\n", buf + b"typed first\ntyped second\n"
    hit = save_in_the_window(monkeypatch, f, first)
    real, later = exporter._put_back, []

    def put_back(aside, target, mine):  # the second save lands on our file before the put-back
        if target == str(f) and not later:
            later.append(target)
            editor_save(f, second)
        return real(aside, target, mine)
    monkeypatch.setattr(exporter, "_put_back", put_back)
    rep = eng.sync()
    assert hit and later, "the round did not write the file"
    assert f.read_bytes() == second  # the newest save is in the note
    kept = f.parent / "ana-lima.unseen-1.md"
    assert kept.read_bytes() == first
    monkeypatch.undo()
    rep = eng.sync()
    page = text_of(brain, SLUG).encode("utf-8")
    assert b"AGENT-ENTRY" in page and b"typed second" in page, (rep, page)
    assert f.read_bytes() == page
    assert text_of(brain, "people/ana-lima.unseen-1").encode("utf-8") == first  # imported beside
    versions = all_versions(brain, root)
    assert {sha(first), sha(second), sha(agent)} <= versions, "a version was lost"
    assert not [n for n in os.listdir(f.parent) if n.startswith(".gbrain-tmp-")]
    assert eng.sync()["exit_code"] == 0
    verify_equal(brain, root)


@pytest.mark.parametrize("error", [KeyboardInterrupt, PermissionError])
def test_a_save_a_failing_rounds_swap_took_goes_back_into_the_note(env, monkeypatch, swap_way, error):
    """A round whose write fails after its swap took an editor's save (Ctrl-C of watch or sync,
    a write refused between the swap and the put-back) kept the save beside the note as
    ``NAME.unseen-1.md``, a page of its own, and left the brain's text in the note: the save
    never went back into it, as a killed round's does (``SyncEngine._take_back``). Now the error
    path puts it back into the note (our file there is removed, as on the normal path), and the
    next round merges it with the agent's entry as any stale save; every version is kept."""
    from gbrain.sync import exporter

    if swap_way == "no-link":
        pytest.skip("no swap where hard links fail: a plain rename after a last look")
    brain, eng, root = env
    f = root / PATH
    buf = f.read_bytes()
    brain.timeline_add(SLUG, "2026-12-02", "AGENT-ENTRY", "agent")
    agent = text_of(brain, SLUG).encode("utf-8")
    saved = buf + b"user typed this\n"
    hit = save_in_the_window(monkeypatch, f, saved)
    failed: list = []

    def fail(target: str) -> None:  # the swap is done, the save not yet put back
        if target == str(f) and not failed:
            failed.append(target)
            raise error(13, "Permission denied") if error is PermissionError else error()
    monkeypatch.setattr(exporter, "after_swap", fail)
    if error is PermissionError:  # (a write the folder refused: the round goes on without it)
        eng.sync()
    else:
        with pytest.raises(KeyboardInterrupt):
            eng.sync()
    assert hit and failed
    assert f.read_bytes() == saved  # back in the note
    assert not [n for n in os.listdir(f.parent) if n.startswith(".gbrain-tmp-") or ".unseen-" in n]
    monkeypatch.undo()
    rep = eng.sync()
    page = text_of(brain, SLUG).encode("utf-8")
    assert b"AGENT-ENTRY" in page and b"user typed this" in page, (rep, page)
    assert f.read_bytes() == page
    assert {sha(saved), sha(agent)} <= all_versions(brain, root), "a version was lost"
    assert brain.conn.execute("SELECT COUNT(*) FROM pages WHERE slug LIKE '%unseen%'").fetchone()[0] == 0
    assert eng.sync()["exit_code"] == 0
    verify_equal(brain, root)


@pytest.mark.parametrize("next_round", ["sync", "watch"])
def test_a_save_a_failing_put_back_left_under_the_live_processs_temp_name_is_told_and_put_back_next_round(env, monkeypatch, swap_way, next_round):
    """A round whose write failed after its swap took an editor's save, and whose put-back of
    that save failed too (the folder refusing the rename, an I/O error): ``exporter._restore``
    swallowed the error and left the save under the live process's temp name, which no cleanup
    takes while that process lives (watch): the typed line was out of the note, out of the brain,
    and nobody was told. Now the round warns naming the note and where its bytes are, and the
    next round of the same process puts the save back into the note (merged with the agent's
    entry); nothing is lost."""
    from gbrain.sync import exporter

    if swap_way == "no-link":
        pytest.skip("no swap where hard links fail: a plain rename after a last look")
    brain, eng, root = env
    f = root / PATH
    buf = f.read_bytes()
    brain.timeline_add(SLUG, "2026-12-02", "AGENT-ENTRY", "agent")
    saved = buf + b"user typed this\n"
    hit = save_in_the_window(monkeypatch, f, saved)
    failed: list = []

    def fail(target: str) -> None:  # the swap is done, the save not yet put back
        if target == str(f) and not failed:
            failed.append(target)
            raise PermissionError(13, "Permission denied")
    monkeypatch.setattr(exporter, "after_swap", fail)

    def put_back_fails(*a, **k):
        raise OSError(5, "Input/output error")
    monkeypatch.setattr(exporter, "_put_back", put_back_fails)
    rep = eng.sync()
    assert hit and failed
    temps = [n for n in os.listdir(f.parent) if n.startswith(".gbrain-tmp-")]
    assert len(temps) == 1 and (f.parent / temps[0]).read_bytes() == saved, temps
    said = [w for w in rep["warnings"] if PATH in w and temps[0] in w]
    assert said, rep["warnings"]
    monkeypatch.undo()
    if next_round == "watch":  # a watch round over some other event: the save goes back all the same
        out = eng.reconcile(paths=["notes/nothing-here.md"])
        assert not out.warnings, out.warnings
    rep = eng.sync()  # the same (live) process: its own temp is not a dead one
    page = text_of(brain, SLUG).encode("utf-8")
    assert b"AGENT-ENTRY" in page and b"user typed this" in page, (rep, page)
    assert f.read_bytes() == page
    assert not [n for n in os.listdir(f.parent) if n.startswith(".gbrain-tmp-") or ".unseen-" in n]
    assert sha(saved) in all_versions(brain, root), "the save was lost"
    assert eng.sync()["exit_code"] == 0
    verify_equal(brain, root)


@pytest.mark.engine_free
def test_the_temp_and_kept_names_beside_a_note_split_its_path_as_the_system_does(monkeypatch):
    """``_replace_file``'s temp name, the swap name (``scan.swap_temp``) and the copy kept beside
    a note (``scan.keep_beside``) split the note's path at ``/`` only: a Windows path
    (``C:\\vault\\notes\\a.md``) gave the temp ``/.gbrain-tmp-…`` (the drive's root) and the kept
    copy ``/C:\\vault\\notes\\a.unseen-1.md``. They now split and join with ``os.path`` (here
    Windows' ``ntpath``, swapped in for the calls alone: no file is made)."""
    import ntpath

    from gbrain.sync import exporter, scan

    note, save = "C:\\vault\\notes\\a.md", "C:\\vault\\notes\\.gbrain-tmp-7-swap-0123456789abcdef.md"
    made: list = []

    def link(src, dst, *a, **k):
        made.append(dst)
        raise FileExistsError(17, "exists") if len(made) == 1 else PermissionError(1, "no links")

    def rename(src, dst, *a, **k):
        made.append(dst)

    def opened(path, *a, **k):
        made.append(path)
        raise PermissionError(13, "Permission denied")
    with monkeypatch.context() as m:
        m.setattr(os, "path", ntpath)
        m.setattr(os, "sep", "\\")
        m.setattr(os, "link", link)
        m.setattr(os, "rename", rename)
        m.setattr(os, "open", opened)
        kept = scan.keep_beside(save, note)
        swap = scan.swap_temp("C:\\vault\\notes", "a.md")
        with pytest.raises(PermissionError):
            exporter._replace_file(note, b"x", None)
    assert kept == "C:\\vault\\notes\\a.unseen-2.md", made
    assert made[:2] == ["C:\\vault\\notes\\a.unseen-1.md", "C:\\vault\\notes\\a.unseen-2.md"]
    assert swap.startswith("C:\\vault\\notes\\.gbrain-tmp-") and swap.endswith(".md") and "/" not in swap, swap
    tmp = made[-1]
    assert tmp.startswith("C:\\vault\\notes\\.gbrain-tmp-") and "/" not in tmp, tmp


KILLED_IN_THE_SWAP = r"""
import os, sys
from gbrain.sync import exporter
target, brain_text, save = sys.argv[1], sys.argv[2].encode(), sys.argv[3].encode()
def hook(t):  # the editor's save lands between the check and the swap
    tmp = t + ".swp-tmp"
    open(tmp, "wb").write(save)
    os.rename(tmp, t)
exporter.before_swap = hook
exporter._put_back = lambda *a: os._exit(9)  # killed before the save is put back
if exporter._renameat2 is None:
    exporter.os.link = lambda *a: os._exit(9)  # rename-aside way: killed with the save aside
exporter._replace_file(target, brain_text, None, unchanged=lambda st: True)
"""


def killed_in_the_swap(f: Path, brain_text: bytes, save: bytes) -> None:
    """Leave what a sync/watch process killed in the swap's window leaves: the note holding the
    brain's text (or missing, the rename-aside way), the editor's save under the dead process's
    temp name."""
    import subprocess

    r = subprocess.run([sys.executable, "-c", KILLED_IN_THE_SWAP, str(f), brain_text.decode(), save.decode()],
                       env={**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent)})
    assert r.returncode == 9
    assert [n for n in os.listdir(f.parent) if n.startswith(".gbrain-tmp-")]


def test_a_save_left_under_a_killed_rounds_temp_name_goes_back_into_the_untouched_note(env):
    """A process killed between the swap and putting a save back left the save under its
    ``.gbrain-tmp-<pid>-…`` name; the next run's cleanup removed it as a partial temp of its own:
    the typed line was lost. Then it was kept beside the note as ``NAME.unseen-N.md``, a page of
    its own. The note still holds exactly the brain's text (nobody touched it since), so the save
    now goes back into the note and the round imports it there: no stray page. The brain's own
    dead temps are still removed."""
    brain, eng, root = env
    f = root / PATH
    page = text_of(brain, SLUG).encode("utf-8")
    saved = page + b"user typed this\n"
    killed_in_the_swap(f, page, saved)
    # and a partial temp of an interrupted write of gbrain's own, from another dead process
    partial = f.parent / ".gbrain-tmp-999999999-123"
    partial.write_bytes(page[:10])
    # a whole swap temp holding the brain's text (killed just before its swap): removed too
    from gbrain.sync.scan import _name_hash

    (f.parent / f".gbrain-tmp-999999998-swap-{_name_hash(f.name)}.md").write_bytes(page)
    rep = eng.sync()
    assert rep["ok"], rep
    assert sha(saved) in all_versions(brain, root), "the save was lost"
    assert f.read_bytes() == saved
    assert text_of(brain, SLUG).encode("utf-8") == saved
    assert not [n for n in os.listdir(f.parent) if n.startswith(".gbrain-tmp-") or ".unseen-" in n]
    assert brain.conn.execute("SELECT COUNT(*) FROM pages WHERE slug LIKE '%unseen%'").fetchone()[0] == 0
    assert eng.sync()["exit_code"] == 0
    verify_equal(brain, root)


def test_a_killed_rounds_save_of_an_older_buffer_is_merged_into_the_note(env):
    """The round killed in the swap was writing an agent's entry; the save it took was made from
    the buffer before it. Put back into the note (which still holds the agent's write), it is
    merged as any stale save: the agent's entry and the typed line both in the note."""
    brain, eng, root = env
    f = root / PATH
    buf = f.read_bytes()
    brain.timeline_add(SLUG, "2026-12-02", "AGENT-ENTRY", "agent")
    agent = text_of(brain, SLUG).encode("utf-8")
    saved = buf + b"user typed this\n"
    killed_in_the_swap(f, agent, saved)
    assert f.read_bytes() == agent
    rep = eng.sync()
    assert rep["ok"] and rep["conflicts"] == [], rep
    page = text_of(brain, SLUG).encode("utf-8")
    assert b"AGENT-ENTRY" in page and b"user typed this" in page, (rep, page)
    assert f.read_bytes() == page
    assert sha(saved) in all_versions(brain, root)
    assert not [n for n in os.listdir(f.parent) if n.startswith(".gbrain-tmp-") or ".unseen-" in n]
    assert eng.sync()["exit_code"] == 0
    verify_equal(brain, root)
    assert fresh_import_differences(brain) == {}


def test_a_killed_rounds_save_is_kept_beside_a_note_saved_again_since(env):
    """When the note moved on after the killed round (the person saved again), the save the
    swap took stays beside it as ``NAME.unseen-1.md`` and is imported: nothing is lost."""
    brain, eng, root = env
    f = root / PATH
    page = text_of(brain, SLUG).encode("utf-8")
    saved = page + b"user typed this\n"
    killed_in_the_swap(f, page, saved)
    later = page + b"saved again since\n"
    editor_save(f, later)
    rep = eng.sync()
    assert rep["ok"], rep
    kept = f.parent / "ana-lima.unseen-1.md"
    assert kept.read_bytes() == saved
    assert text_of(brain, "people/ana-lima.unseen-1").encode("utf-8") == saved  # imported
    assert f.read_bytes() == later and text_of(brain, SLUG).encode("utf-8") == later
    assert not [n for n in os.listdir(f.parent) if n.startswith(".gbrain-tmp-")]
    assert eng.sync()["exit_code"] == 0
    verify_equal(brain, root)



def test_a_killed_rounds_save_goes_back_into_the_note_even_after_a_round_failing_before_the_take_back(env, monkeypatch):
    """The cleanup renamed a killed round's save to ``NAME.unseen-1.md`` first and put it back
    into its note after (``SyncEngine._take_back``): a round failing in between (the take-back's
    read of the brain cut, a Postgres server restarting; watch runs the round again) left it under
    that name, no swap temp any more, so the next round imported it as a page of its own instead
    of merging it into the note. Now the save goes back from its temp name, and is kept beside
    only when it cannot: the round after the failure puts it back; nothing is lost."""
    from gbrain.sync import verify as verify_mod

    brain, eng, root = env
    f = root / PATH
    page = text_of(brain, SLUG).encode("utf-8")
    saved = page + b"user typed this\n"
    killed_in_the_swap(f, page, saved)
    real, cut = verify_mod.sha256_file, []

    def failing(path, *a, **k):  # the take-back's look at the note fails once
        if str(path) == str(f) and not cut:
            cut.append(path)
            raise RuntimeError("connection to the brain lost")
        return real(path, *a, **k)
    monkeypatch.setattr(verify_mod, "sha256_file", failing)
    with pytest.raises(RuntimeError):
        eng.sync()
    assert cut
    assert sha(saved) in all_versions(brain, root), "the save was lost"
    monkeypatch.undo()
    rep = eng.sync()
    assert rep["ok"], rep
    assert f.read_bytes() == saved and text_of(brain, SLUG).encode("utf-8") == saved
    assert not [n for n in os.listdir(f.parent) if n.startswith(".gbrain-tmp-") or ".unseen-" in n]
    assert brain.conn.execute("SELECT COUNT(*) FROM pages WHERE slug LIKE '%unseen%'").fetchone()[0] == 0
    assert eng.sync()["exit_code"] == 0
    verify_equal(brain, root)


KILLED_IN_THE_TAKE_BACK = r"""
import os, sys
from gbrain.core.brain import Brain
from gbrain.sync.engine import SyncEngine
db, root, temp = sys.argv[1:4]
real = os.unlink
def unlink(p, *a, **k):  # killed once the save is in place, before its temp name is removed
    if os.path.basename(str(p)) == temp:
        os._exit(9)
    return real(p, *a, **k)
os.unlink = unlink
brain = Brain.open(db)
eng = SyncEngine(brain, root)
eng.bind()
eng.sync()
"""


@pytest.mark.parametrize("note", ["untouched", "saved_again"])
def test_a_run_killed_after_putting_a_save_back_leaves_no_second_copy(env, db_path, note):
    """The next run puts a killed round's save back into its note (or keeps it beside a note
    saved again since, ``NAME.unseen-1.md``); a run killed after that write and before removing
    the save's temp name left the temp for the run after, which took it for a save nobody had
    placed and kept it beside the note: a second copy (``NAME.unseen-1.md`` of the bytes the note
    already held, or ``NAME.unseen-2.md`` beside ``unseen-1``), a stray page. Now a dead temp
    whose bytes are already in the note or in a copy kept beside it is removed: one copy."""
    import subprocess

    brain, eng, root = env
    f = root / PATH
    page = text_of(brain, SLUG).encode("utf-8")
    saved = page + b"user typed this\n"
    killed_in_the_swap(f, page, saved)
    later = page + b"saved again since\n"
    if note == "saved_again":
        editor_save(f, later)
    temps = [n for n in os.listdir(f.parent) if n.startswith(".gbrain-tmp-") and (f.parent / n).read_bytes() == saved]
    assert len(temps) == 1, temps
    eng.close()  # (the sync lock: the killed run takes it)
    r = subprocess.run([sys.executable, "-c", KILLED_IN_THE_TAKE_BACK, str(db_path), str(root), temps[0]],
                       env={**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent)})
    assert r.returncode == 9
    assert (f.parent / temps[0]).read_bytes() == saved  # the temp outlived the kill
    eng.prepare()
    rep = eng.sync()
    assert rep["ok"], rep
    names = sorted(os.listdir(f.parent))
    assert not [n for n in names if n.startswith(".gbrain-tmp-")], names
    copies = [n for n in names if ".unseen-" in n]
    if note == "untouched":
        assert f.read_bytes() == saved and text_of(brain, SLUG).encode("utf-8") == saved
        assert copies == [], names
    else:
        assert f.read_bytes() == later
        assert copies == ["ana-lima.unseen-1.md"], names
        assert (f.parent / copies[0]).read_bytes() == saved
    assert brain.conn.execute("SELECT COUNT(*) FROM pages WHERE slug LIKE '%unseen%'").fetchone()[0] == len(copies)
    assert sha(saved) in all_versions(brain, root), "the save was lost"
    assert eng.sync()["exit_code"] == 0
    verify_equal(brain, root)


@pytest.mark.parametrize("when", ["after_the_hash", "in_the_swap"])
def test_a_note_saved_while_a_killed_rounds_save_goes_back_keeps_both(env, monkeypatch, swap_way, when):
    """The save a killed round's swap took goes back into its note only over the file it hashed
    (the brain's text): a save of the note landing after that hash (before or inside the
    put-back's swap) stays in the note, and the killed round's save is kept beside it as
    ``NAME.unseen-1.md`` and imported: nothing lost."""
    from gbrain.sync import verify as verify_mod

    brain, eng, root = env
    f = root / PATH
    page = text_of(brain, SLUG).encode("utf-8")
    saved = page + b"user typed this\n"
    killed_in_the_swap(f, page, saved)
    later = page + b"saved in the window\n"
    if when == "in_the_swap":
        hit = save_in_the_window(monkeypatch, f, later)
    else:
        hit, real = [], verify_mod.sha256_file

        def hash_then_save(path, *a, **k):
            h = real(path, *a, **k)
            if str(path) == str(f) and not hit:
                hit.append(path)
                editor_save(f, later)
            return h
        monkeypatch.setattr(verify_mod, "sha256_file", hash_then_save)
    rep = eng.sync()
    assert hit and rep["ok"], rep
    assert f.read_bytes() == later and text_of(brain, SLUG).encode("utf-8") == later
    assert sha(saved) in all_versions(brain, root), "the killed round's save was lost"
    assert not [n for n in os.listdir(f.parent) if n.startswith(".gbrain-tmp-")]
    assert eng.sync()["exit_code"] == 0
    verify_equal(brain, root)


RAW = "people/.raw/ana-lima.json"


def test_an_editors_stale_save_of_a_sidecar_keeps_the_agents_raw_put(env):
    """Trial 47: an editor held a page's `.raw` sidecar; an agent's `raw-put` reached the file;
    the editor saved its buffer plus a source of its own: the agent's source left the sidecar
    with no conflict, no merge, no word (only the history kept it). A sidecar's stale save is
    merged by source, as a page's is by line; one changing the agent's own source conflicts."""
    import json as _json

    brain, eng, root = env
    f = root / RAW
    buf = f.read_bytes()  # the editor opens the sidecar
    brain.raw_put(SLUG, "agentsrc", {"k": "agent"})
    rep = eng.sync()
    assert rep["changed"]["exported"] == [RAW], rep["changed"]
    agent = f.read_bytes()
    obj = _json.loads(buf)
    obj["sources"]["mine"] = {"typed": True}
    saved = (_json.dumps(obj, indent=2) + "\n").encode()
    editor_save(f, saved)
    rep = eng.sync()
    assert rep["ok"] and rep["exit_code"] == 0 and rep["merged"] == [RAW] and rep["conflicts"] == [], rep
    now = _json.loads(f.read_bytes())["sources"]
    assert now["agentsrc"] == {"k": "agent"} and now["mine"] == {"typed": True} and set(now) >= {"crustdata", "happenstance"}
    assert brain.raw_get(SLUG)["agentsrc"] == {"k": "agent"} and brain.raw_get(SLUG)["mine"] == {"typed": True}
    assert sha(saved) in all_versions(brain, root)  # the save itself is a version
    verify_equal(brain, root)
    assert fresh_import_differences(brain) == {}
    # an edit of the newest version (the editor reloaded: it holds the agent's source) wins as before
    obj = _json.loads(f.read_bytes())
    obj["sources"]["agentsrc"] = {"k": "fixed by hand"}
    editor_save(f, (_json.dumps(obj, indent=2) + "\n").encode())
    rep = eng.sync()
    assert rep["merged"] == [] and rep["conflicts"] == [] and brain.raw_get(SLUG)["agentsrc"] == {"k": "fixed by hand"}
    # a stale buffer that changed a source the agent changed since: a conflict, the brain's stays, the save is the copy
    buf = f.read_bytes()
    brain.raw_put(SLUG, "crustdata", {"name": "Ana Lima", "title": "CFO"})
    assert eng.sync()["changed"]["exported"] == [RAW]
    kept = f.read_bytes()
    obj = _json.loads(buf)
    obj["sources"]["crustdata"] = {"name": "Ana Lima", "title": "COO"}
    saved = (_json.dumps(obj, indent=2) + "\n").encode()
    editor_save(f, saved)
    rep = eng.sync()
    [c] = rep["conflicts"]
    assert c["kind"] == "stale-save" and c["path"] == RAW and f.read_bytes() == kept
    assert (root / c["copy_path"]).read_bytes() == saved
    assert agent  # (the agent's first version stays in the history too)


@pytest.mark.engine_free
def test_stale_sidecar_takes_the_ancestor_the_save_saw():
    from gbrain.sync.merge import stale_sidecar

    def js(**sources) -> bytes:
        import json as _json
        return (_json.dumps({"sources": sources}, indent=2) + "\n").encode()

    v0 = js(a=1)
    v1 = js(a=1, b=2)  # an agent's raw-put
    v2 = js(a=1, b=2, c=3)  # another
    # saw neither write: based on v0, both sources kept, the save's own added
    view = stale_sidecar(js(a=1, d=4), v2, [v1, v0])
    assert view is not None and view.ancestor == 1
    import json as _json
    assert _json.loads(view.merged)["sources"] == {"a": 1, "b": 2, "c": 3, "d": 4}
    # saw the first (holds b) but not the second: based on v1
    view = stale_sidecar(js(a=1, b=2, d=4), v2, [v1, v0])
    assert view.ancestor == 0 and _json.loads(view.merged)["sources"] == {"a": 1, "b": 2, "c": 3, "d": 4}
    # saw the newest (holds c): an edit of the brain's version, the plain rules
    assert stale_sidecar(js(a=1, c=3, d=4), v2, [v1, v0]) is None
    # only undid the newest write, having seen the one before: taken as meant
    assert stale_sidecar(v1, v2, [v1, v0]) is None
    # both changed one source differently: a conflict
    assert stale_sidecar(js(a=9), js(a=5), [v0]).merged is None
    # not JSON: the plain rules
    assert stale_sidecar(b"not json", v2, [v1]) is None


def test_a_hand_edit_of_a_sidecar_the_agent_just_wrote_is_no_stale_save(env):
    """Review of trial 47's sidecar merge: an editor that reloaded a sidecar after an agent's
    `raw-put` changed a source, then edited that source (one field of it), was taken as a stale
    save (it lacked the source's value as written): a `stale-save` conflict, exit 3, the hand
    edit only a copy, for an hour after every raw-put. It holds the field the write changed, as
    written: it saw the write. And one that deleted the agent's new source, its editor
    re-formatting the file (members those of the version before, bytes not), had the source put
    back (a merge): an undo of the newest write, as a page's byte-equal one is."""
    import json as _json

    brain, eng, root = env
    f = root / RAW
    brain.raw_put(SLUG, "crustdata", {"name": "Ana Lima", "title": "CFO", "connections": 812})
    assert eng.sync()["changed"]["exported"] == [RAW]
    obj = _json.loads(f.read_bytes())
    obj["sources"]["crustdata"]["connections"] = 900
    saved = (_json.dumps(obj, indent=2) + "\n").encode()
    editor_save(f, saved)
    rep = eng.sync()
    assert rep["exit_code"] == 0 and rep["conflicts"] == [] and rep["merged"] == [], rep
    assert f.read_bytes() == saved and brain.raw_get(SLUG)["crustdata"]["connections"] == 900
    # the editor deletes an agent's new source it sees, and its formatter re-dumps the file
    brain.raw_put(SLUG, "agentsrc", {"k": "agent"})
    assert eng.sync()["changed"]["exported"] == [RAW]
    obj = _json.loads(f.read_bytes())
    del obj["sources"]["agentsrc"]
    saved = (_json.dumps(obj, indent=4) + "\n").encode()
    editor_save(f, saved)
    rep = eng.sync()
    assert rep["exit_code"] == 0 and rep["conflicts"] == [] and rep["merged"] == [], rep
    assert f.read_bytes() == saved and "agentsrc" not in brain.raw_get(SLUG)
    verify_equal(brain, root)
    assert fresh_import_differences(brain) == {}


@pytest.mark.engine_free
def test_stale_sidecar_reads_a_sources_fields():
    """A save holding a field an agent's write changed inside a source, as written, saw that
    write; one holding none of them did not (still merged or a conflict)."""
    import json as _json

    from gbrain.sync.merge import stale_sidecar

    def js(indent=2, **sources) -> bytes:
        return (_json.dumps({"sources": sources}, indent=indent) + "\n").encode()

    v0 = js(c={"title": "CEO", "n": 1}, h=[1])
    v1 = js(c={"title": "CFO", "n": 1}, h=[1])  # the agent's write changed one field
    assert stale_sidecar(js(c={"title": "CFO", "n": 2}, h=[1]), v1, [v0]) is None  # edited the newest
    v = stale_sidecar(js(c={"title": "CEO", "n": 2}, h=[1]), v1, [v0])  # a stale buffer's edit
    assert v is not None and v.merged is None
    v = stale_sidecar(js(c={"title": "CEO", "n": 1}, h=[1], mine=3), v1, [v0])
    assert v is not None and _json.loads(v.merged)["sources"] == {"c": {"title": "CFO", "n": 1}, "h": [1], "mine": 3}
    # an undo by members (re-formatted) is taken as meant, as a byte-equal one
    assert stale_sidecar(js(indent=4, c={"title": "CEO", "n": 1}, h=[1]), v1, [v0]) is None
    # a list the write added items to: a save holding them (and more) saw it; one lacking them did not
    v2 = js(c={"title": "CFO", "n": 1}, h=[1, {"job": "River AI"}])
    assert stale_sidecar(js(c={"title": "CFO", "n": 1}, h=[1, {"job": "River AI"}, {"job": "mine"}]), v2, [v1]) is None
    v = stale_sidecar(js(c={"title": "CFO", "n": 1}, h=[1, {"job": "mine"}]), v2, [v1])
    assert v is not None and v.merged is None


def test_history_of_a_sidecar_names_its_stale_saves_conflict_copy(env):
    """Review of trial 47: a sidecar's stale save that conflicted is kept as
    `ana-lima.json.conflict-…`, but `history people/.raw/ana-lima.json` (where one looks for a
    save gone missing) named it not: conflict_copies was for pages only."""
    import json as _json

    from gbrain import operations as ops

    brain, eng, root = env
    f = root / RAW
    buf = f.read_bytes()
    brain.raw_put(SLUG, "crustdata", {"name": "Ana Lima", "title": "CFO"})
    assert eng.sync()["changed"]["exported"] == [RAW]
    obj = _json.loads(buf)
    obj["sources"]["crustdata"] = {"name": "Ana Lima", "title": "COO"}
    editor_save(f, (_json.dumps(obj, indent=2) + "\n").encode())
    [c] = eng.sync()["conflicts"]
    assert ops.run("history", {"slug": RAW}, ops.Context(surface="cli"), brain=brain)["conflict_copies"] == [c["copy_path"]]


def test_a_stale_save_while_the_brain_changed_again_keeps_every_write(env):
    """trial 51: an editor's buffer of an older version saved while the brain was one write past
    the file (an agent's append written to the file, another in the brain only, watch not yet
    round): the both-changed merge took the last synced version as the save's base, so the save
    seemed to delete the lines written since the buffer was read, and the page lost them."""
    brain, eng, root = env
    f = root / PATH
    buf = f.read_bytes()  # the editor opens the file
    def append(line: str) -> None:  # as put's `append`: a paragraph at the end of the compiled truth
        text = brain.get_text(SLUG)
        brain.put(SLUG, text.replace("\n---\n\n## Timeline", f"\n{line}\n\n---\n\n## Timeline"))

    append("AGENT-ONE appended this paragraph.")
    assert eng.sync()["changed"]["exported"] == [PATH]
    assert b"AGENT-ONE" in f.read_bytes()  # on disk: the base of the next round
    append("AGENT-TWO appended this one.")  # in the brain only
    saved = buf.replace(b"# Ana Lima\n", b"# Ana Lima\n\nuser typed this\n")
    editor_save(f, saved)
    rep = eng.sync()
    assert rep["ok"] and rep["conflicts"] == [], rep
    page = text_of(brain, SLUG).encode("utf-8")
    assert b"AGENT-ONE" in page and b"AGENT-TWO" in page and b"user typed this" in page, page.decode()
    assert f.read_bytes() == page
    assert sha(saved) in all_versions(brain, root)
    verify_equal(brain, root)
    assert fresh_import_differences(brain) == {}


def test_a_stale_save_that_does_not_merge_while_the_brain_changed_again_keeps_the_brains_version(env):
    """trial 51, the conflicting case: the stale save (its buffer read before an agent's append
    reached the file) changes the line another agent's write, in the brain only, changed too. A
    stale-save conflict as when the brain is not past the file: the brain's version (both agents'
    writes) stays the page, the save is the copy; not a both-changed one, which made the stale
    save the page and so took both agents' lines out of it."""
    brain, eng, root = env
    f = root / PATH
    buf = f.read_bytes()
    text = brain.get_text(SLUG)
    brain.put(SLUG, text.replace("\n---\n\n## Timeline", "\nAGENT-ONE appended this paragraph.\n\n---\n\n## Timeline"))
    assert eng.sync()["changed"]["exported"] == [PATH]
    first = buf.splitlines(keepends=True)[1]  # a line both sides change differently
    brain.put(SLUG, brain.get_text(SLUG).replace(first.decode(), "changed by the agent\n", 1))
    agent = brain.get_text(SLUG).encode("utf-8")
    saved = buf.replace(first, b"changed by the person\n", 1)
    editor_save(f, saved)
    rep = eng.sync()
    assert rep["ok"] and rep["exit_code"] == 3, rep
    [c] = rep["conflicts"]
    assert c["kind"] == "stale-save" and c["path"] == PATH
    assert text_of(brain, SLUG).encode("utf-8") == agent == f.read_bytes()
    assert (root / c["copy_path"]).read_bytes() == saved
    verify_equal(brain, root)
    assert fresh_import_differences(brain) == {}


@pytest.mark.engine_free
def test_a_line_an_agent_rewrote_twice_held_by_a_stale_buffer_as_it_was_is_no_sign_of_seeing_it():
    """trial 51: agents kept a counter line current with find-and-replace (730 → 759 → 760); an
    editor's buffer from before saved with the line as it was then (730). Its line is closer to
    the agent's newest (one digit) than to the one before (two), so it was taken for an edit of
    the newest (a person fixing an agent's typo): the save "saw" the newest write, was imported as
    it was, and the agent's paragraph written meanwhile left the page. A line the older versions
    hold verbatim is the buffer's old text, no edit."""
    v0 = b"# Ana\n\nSeen 730 times\n\nintro\n"
    v1 = v0 + b"\nAGENT-A wrote this paragraph.\n"
    v2 = v1.replace(b"730", b"759")
    v3 = v2.replace(b"759", b"760")
    disk = v0.replace(b"# Ana\n", b"# Ana\nuser typed this\n")
    view = stale_view(disk, v3, [v2, v1, v0])
    assert view is not None and view.ancestor == 2
    assert view.merged == v3.replace(b"# Ana\n", b"# Ana\nuser typed this\n")
    # a save that really edits the agent's newest line (a typo fixed) saw it, as before
    assert stale_view(v3.replace(b"Seen 760 times", b"Seen 760 time"), v3, [v2, v1, v0]) is None


def test_a_buffer_older_than_many_writes_through_gbrain_keeps_every_one(env):
    """trial 51: three agents wrote a page about every 5 s; an editor's buffer read ten writes
    back was merged from the eighth (the oldest version looked at), so the two writes before it
    read as lines the person deleted and left the page."""
    brain, eng, root = env
    f = root / PATH
    buf = f.read_bytes()
    for i in range(12):
        brain.timeline_add(SLUG, "2026-12-02", f"AGENT-ENTRY-{i}", "agent")
        assert eng.sync()["changed"]["exported"] == [PATH]
    saved = buf.replace(b"# Ana Lima\n", b"# Ana Lima\n\nuser typed this\n")
    editor_save(f, saved)
    rep = eng.sync()
    assert rep["ok"] and rep["merged"] == [PATH] and rep["conflicts"] == [], rep
    page = text_of(brain, SLUG)
    assert [i for i in range(12) if f"AGENT-ENTRY-{i}" not in page] == [] and "user typed this" in page
    verify_equal(brain, root)


def _history_hashes(brain: Brain) -> set[str]:
    return {r[0] for r in brain.conn.execute("SELECT hash FROM history_bodies")}


def _base(eng: SyncEngine, p: str) -> tuple[str, str] | None:
    r = eng.conn.execute("SELECT disk_hash, base_hash FROM sync_state WHERE client = ? AND path = ?", (eng.client, p)).fetchone()
    return None if r is None else (r[0], r[1])


def _agent_writes_before_the_rounds_transaction(monkeypatch, brain: Brain, write) -> list:
    """Run ``write`` (an agent's commit) once, at the moment the next sync round has done its
    disk writes and is about to open its transaction: the race of trial 51 (four writers and
    watch on one brain)."""
    real = brain.transaction
    done: list = []

    def transaction(*a, **k):
        if not done and not brain._tx_depth:
            done.append(1)
            write()
        return real(*a, **k)
    monkeypatch.setattr(brain, "transaction", transaction)
    return done


@pytest.mark.parametrize("both", [False, True], ids=["stale", "both-changed"])
def test_a_merge_the_round_could_not_record_is_never_left_in_the_file_unrecorded(env, monkeypatch, both):
    """trial 51 (problem 7): a round merged an editor's save with a write through gbrain and wrote
    the merge to the file; an agent committed before the round's transaction, so the round
    deferred the page and recorded nothing: the file held bytes that were no version and no base
    (its next save, from a buffer of those bytes, found no ancestor; the next round imported them
    as the person's save). Now the merge goes to the file only inside the transaction that
    records it: bytes gbrain writes to a file are a version or the base of the next round."""
    brain, eng, root = env
    f = root / PATH
    buf = f.read_bytes()  # the editor opens the file
    agent_write_reaches_file(brain, eng, f)
    if both:  # the brain one write past the file when the save lands
        brain.timeline_add(SLUG, "2026-12-03", "AGENT-BETWEEN", "agent")
    saved = buf.replace(b"# Ana Lima\n", b"# Ana Lima\n\nuser typed this\n")
    editor_save(f, saved)
    hit = _agent_writes_before_the_rounds_transaction(
        monkeypatch, brain, lambda: brain.timeline_add(SLUG, "2026-12-04", "AGENT-LATE", "agent"))
    eng.sync()
    assert hit
    on_disk = sha(f.read_bytes())  # the person's save as they left it, or bytes gbrain recorded
    assert on_disk == sha(saved) or on_disk in _history_hashes(brain) or on_disk in _base(eng, PATH), (f.read_bytes().decode(), _base(eng, PATH))
    monkeypatch.undo()
    rep = eng.sync()
    assert rep["ok"] and rep["conflicts"] == [], rep
    page = text_of(brain, SLUG).encode("utf-8")
    for line in (b"AGENT-ENTRY", b"AGENT-LATE", b"user typed this") + ((b"AGENT-BETWEEN",) if both else ()):
        assert line in page, (line, page.decode())
    assert f.read_bytes() == page
    assert sha(saved) in _history_hashes(brain)  # the person's save itself is a version
    assert eng.sync()["counts"]["imported"] == 0
    verify_equal(brain, root)
    assert fresh_import_differences(brain) == {}


def test_a_save_landing_while_a_change_log_round_writes_the_file_is_no_mismatch(env, monkeypatch):
    """trial 51 (problem 5): watch said "MISMATCH after sync: X differs between the folder and the
    brain" ~3 times in 6 minutes, each gone on the retry. A round driven by the change log (an
    agent's write) found the file saved again under it and rightly left it (the save is its own
    round's), but moved its cursor past the agent's write, so the batch check took the file's
    unsynced bytes for damage. The check leaves out what the round left; the next round merges."""
    brain, eng, root = env
    f = root / PATH
    buf = f.read_bytes()
    brain.timeline_add(SLUG, "2026-12-02", "AGENT-ENTRY", "agent")
    seq = brain.conn.execute("SELECT MAX(seq) FROM change_log").fetchone()[0]
    saved = buf + b"user typed this\n"
    hit = save_in_the_window(monkeypatch, f, saved)
    out = eng.reconcile(log_paths=[PATH], consumed_seq=seq)
    assert hit and f.read_bytes() == saved
    assert eng.verify_paths(out) == []
    # a real difference is still said: the file changed behind the round's back after it
    out = eng.reconcile(log_paths=[PATH], consumed_seq=seq)
    page = text_of(brain, SLUG).encode("utf-8")
    assert b"AGENT-ENTRY" in page and b"user typed this" in page and f.read_bytes() == page
    assert eng.verify_paths(out) == []
    out.disk_hashes[PATH] = sha(b"other bytes")
    assert eng.verify_paths(out) == [PATH]


@pytest.mark.parametrize("then", ["", "saved-again"])
@pytest.mark.parametrize("how", ["stale", "both-changed", "stale-past-the-file"])
def test_a_round_whose_commit_fails_after_writing_the_merge_loses_no_line_next_round(env, monkeypatch, how, then):
    """Review of 2f58cf8: the merge goes to the file inside the round's transaction, so a commit
    that fails after it (disk full, SQLITE_BUSY, a Postgres serialization failure) leaves the merge
    in the file, no version of it and the old base. The next round must take it without dropping
    the person's or the agents' lines, and with no conflict copy."""
    import sqlite3 as _sqlite3

    from gbrain.storage import db as dbmod

    brain, eng, root = env
    f = root / PATH
    buf = f.read_bytes()
    agent_write_reaches_file(brain, eng, f)
    lines = [b"AGENT-ENTRY", b"user typed this"]
    if how == "both-changed":  # a save of the synced bytes while the brain is one write past them
        buf = f.read_bytes()
    if how != "stale":
        brain.timeline_add(SLUG, "2026-12-03", "AGENT-BETWEEN", "agent")
        lines.append(b"AGENT-BETWEEN")
    saved = buf.replace(b"# Ana Lima\n", b"# Ana Lima\n\nuser typed this\n")
    editor_save(f, saved)
    real = dbmod.commit
    failed: list = []

    def commit(conn, *a, **k):
        if not failed and (root / PATH).read_bytes() != saved:  # the round's, after the merge went to the file
            failed.append(1)
            raise _sqlite3.OperationalError("database or disk is full")
        return real(conn, *a, **k)
    monkeypatch.setattr(dbmod, "commit", commit)
    with pytest.raises(Exception):
        eng.sync()
    monkeypatch.undo()
    assert failed
    left = f.read_bytes()
    assert all(x in left for x in lines), left.decode()  # the merge, in the file only
    if then:  # the editor reloads the merge, the person types on and saves before the next round
        editor_save(f, left.replace(b"# Ana Lima\n", b"# Ana Lima\n\ntyped after the reload\n"))
        lines.append(b"typed after the reload")
    rep = eng.sync()
    assert rep["ok"] and rep["conflicts"] == [], rep
    page = text_of(brain, SLUG).encode("utf-8")
    assert all(page.count(x) == 1 for x in lines), page.decode()
    assert f.read_bytes() == page
    assert eng.sync()["counts"]["imported"] == 0
    verify_equal(brain, root)
    assert fresh_import_differences(brain) == {}


def test_a_stale_save_under_a_new_name_is_merged_with_the_newer_write_through_gbrain(env):
    """Trial 55 (obsidian-hub under watch, an agent adding timeline entries): a note was renamed
    and written from a buffer read before the agent's entry reached the file (an editor's
    rename + save of its open note; Obsidian rewriting a renamed note's own links from its
    buffer). Saved in place, such a save is merged (above); renamed, the page moved and took
    the buffer as a plain edit, and the agent's entry left the page and the file with no word
    (3 of 196 entries in the trial). Moved and saved stale, it is merged as in place."""
    brain, eng, root = env
    f = root / PATH
    buf = f.read_bytes()  # the editor opens the file
    agent_write_reaches_file(brain, eng, f)
    new = f.with_name("ana-lima-renamed.md")
    os.rename(f, new)
    editor_save(new, buf + b"user typed this\n")
    pid = brain.page_row(SLUG)["id"]
    rep = eng.sync()
    assert rep["ok"] and rep["exit_code"] == 0 and rep["conflicts"] == [], rep
    assert rep["merged"] == [NEW_PATH] and {"from": PATH, "to": NEW_PATH} in rep["moved"], rep
    page = text_of(brain, NEW_SLUG).encode("utf-8")
    assert b"AGENT-ENTRY" in page and b"user typed this" in page, page
    assert new.read_bytes() == page
    assert brain.page_row(SLUG) is None and brain.page_row(NEW_SLUG)["id"] == pid  # moved: one page
    assert sha(buf + b"user typed this\n") in all_versions(brain, root)  # the save itself is a version
    assert conflict_list(brain) == []
    ops = [(v["op"], v.get("path")) for v in versions(brain.path, NEW_SLUG)]
    assert ("move", NEW_PATH) in ops and ops[-1] == ("create", PATH), ops  # the history shows the move
    verify_equal(brain, root)
    assert fresh_import_differences(brain) == {}
    # the editor saves again from the same (still stale) buffer: merged again, nothing lost
    editor_save(new, buf + b"user typed this\nand more\n")
    rep = eng.sync()
    assert rep["merged"] == [NEW_PATH] and rep["conflicts"] == [], rep
    page = new.read_bytes()
    assert b"AGENT-ENTRY" in page and page.count(b"user typed this") == 1 and b"and more" in page, page
    assert text_of(brain, NEW_SLUG).encode("utf-8") == page
    assert eng.sync()["counts"]["imported"] == 0  # settled
    assert fresh_import_differences(brain) == {}


def test_a_stale_save_under_a_new_name_that_does_not_merge_is_copied_beside_the_new_name(env):
    """The same rename + stale save, both sides rewriting one line: as in place, the brain's
    (newer) version stays the page, now at the new name, and in its file; the save is a
    ``stale-save`` conflict copy beside the new name. Nothing lost, nothing at the old name."""
    brain, eng, root = env
    f = root / PATH
    buf = f.read_bytes()
    first = buf.splitlines(keepends=True)[1]
    brain.put(SLUG, buf.replace(first, b"changed by the agent\n", 1).decode("utf-8"))
    assert eng.sync()["changed"]["exported"] == [PATH]
    agent = f.read_bytes()
    new = f.with_name("ana-lima-renamed.md")
    os.rename(f, new)
    saved = buf.replace(first, b"changed by the person\n", 1)
    editor_save(new, saved)
    rep = eng.sync()
    assert rep["ok"] and rep["exit_code"] == 3, rep
    [c] = rep["conflicts"]
    assert c["kind"] == "stale-save" and c["path"] == NEW_PATH, c
    assert is_conflict_copy_of(c["copy_path"], NEW_PATH)
    assert text_of(brain, NEW_SLUG).encode("utf-8") == agent == new.read_bytes()
    assert (root / c["copy_path"]).read_bytes() == saved
    assert brain.page_row(SLUG) is None and not f.exists()
    assert [x["path"] for x in conflict_list(brain)] == [NEW_PATH]
    verify_equal(brain, root)
    assert fresh_import_differences(brain) == {}
    again = eng.sync()
    assert again["exit_code"] == 0 and again["counts"]["imported"] == again["counts"]["exported"] == 0, again


def test_a_rename_saved_from_the_newest_version_takes_the_save_as_before(env):
    """Not stale (the buffer held the agent's entry): renamed and saved with a typed line, the
    page moves and takes the file, as a ``changed_moves`` pair always did; nothing merged."""
    brain, eng, root = env
    f = root / PATH
    newest = agent_write_reaches_file(brain, eng, f)
    new = f.with_name("ana-lima-renamed.md")
    os.rename(f, new)
    editor_save(new, newest + b"typed after the agent's write\n")
    rep = eng.sync()
    assert rep["exit_code"] == 0 and rep["merged"] == [] and rep["conflicts"] == [], rep
    assert {"from": PATH, "to": NEW_PATH} in rep["moved"]
    assert text_of(brain, NEW_SLUG).encode("utf-8") == new.read_bytes() == newest + b"typed after the agent's write\n"
    assert brain.page_row(SLUG) is None
    assert fresh_import_differences(brain) == {}


@pytest.mark.parametrize("stale", [False, True], ids=["newest-buffer", "stale-buffer"])
def test_a_line_deleted_in_a_renamed_notes_save_stays_deleted(env, stale):
    """A rename + save that deliberately removed a line nobody wrote through gbrain (one of the
    note's own): never put back. From the newest buffer it is a plain edit (the agent's entry is
    in it); from a stale buffer the merge keeps the deletion and the agent's entry."""
    brain, eng, root = env
    f = root / PATH
    buf = f.read_bytes()
    newest = agent_write_reaches_file(brain, eng, f)
    line = buf.splitlines(keepends=True)[1]
    assert line.strip() and buf.count(line) == 1 and b"AGENT-ENTRY" not in line
    new = f.with_name("ana-lima-renamed.md")
    os.rename(f, new)
    saved = (buf if stale else newest).replace(line, b"", 1)
    editor_save(new, saved)
    rep = eng.sync()
    assert rep["exit_code"] == 0 and rep["conflicts"] == [], rep
    assert rep["merged"] == ([NEW_PATH] if stale else []), rep
    page = text_of(brain, NEW_SLUG).encode("utf-8")
    assert line not in page and b"AGENT-ENTRY" in page, page
    assert page == new.read_bytes() == newest.replace(line, b"", 1)
    assert brain.page_row(SLUG) is None
    assert fresh_import_differences(brain) == {}


def test_a_stale_save_under_a_new_name_after_a_round_that_saw_the_rename_is_merged(env):
    """The rename and the stale save in two rounds (watch's round landing between an editor's
    rename and its save of the old buffer): the history at the new name begins with the move
    (from this folder's file), and the agent's entry left the page and the file as a plain edit.
    The versions looked at are the old name's (``SyncEngine._older_ids`` follows the arrival)."""
    brain, eng, root = env
    f = root / PATH
    buf = f.read_bytes()
    agent_write_reaches_file(brain, eng, f)
    new = f.with_name("ana-lima-renamed.md")
    os.rename(f, new)
    assert {"from": PATH, "to": NEW_PATH} in eng.sync()["moved"]
    editor_save(new, buf + b"user typed this\n")
    rep = eng.sync()
    assert rep["merged"] == [NEW_PATH] and rep["conflicts"] == [], rep
    page = text_of(brain, NEW_SLUG).encode("utf-8")
    assert b"AGENT-ENTRY" in page and b"user typed this" in page and new.read_bytes() == page, page
    assert brain.page_row(SLUG) is None
    assert fresh_import_differences(brain) == {}


NEW_RAW = "people/.raw/ana-lima-renamed.json"


@pytest.mark.parametrize("where", ["folder", "brain"])
def test_a_stale_sidecar_saved_under_the_pages_new_name_keeps_the_agents_raw_put(env, where):
    """An editor held a page's `.raw` sidecar; an agent's `raw-put` reached the file; the page
    was renamed in the folder and a round moved it, its sidecar with it; the editor then saved its
    old buffer (plus a source of its own) under the new name. The new name's history begins with
    the move, so the save was checked against nothing and the agent's source left the sidecar
    unsaid. Now the versions looked at are the old name's, as for a page (trial 55): merged by
    source as in place."""
    import json as _json

    brain, eng, root = env
    f = root / RAW
    buf = f.read_bytes()  # the editor opens the sidecar
    brain.raw_put(SLUG, "agentsrc", {"k": "agent"})
    assert eng.sync()["changed"]["exported"] == [RAW]
    if where == "folder":
        os.rename(root / PATH, root / NEW_PATH)
        rep = eng.sync()
        assert {"from": PATH, "to": NEW_PATH} in rep["moved"], rep
    else:  # `gbrain move`: the sidecar moves with the page in the brain, then in the folder
        from gbrain import operations as ops

        ops.run("move", {"slug": SLUG, "to": NEW_SLUG}, brain=brain)
        eng.sync()
    assert not f.exists() and (root / NEW_RAW).exists()
    obj = _json.loads(buf)
    obj["sources"]["mine"] = {"typed": True}
    saved = (_json.dumps(obj, indent=2) + "\n").encode()
    editor_save(root / NEW_RAW, saved)
    rep = eng.sync()
    assert rep["ok"] and rep["merged"] == [NEW_RAW] and rep["conflicts"] == [], rep
    now = _json.loads((root / NEW_RAW).read_bytes())["sources"]
    assert now["agentsrc"] == {"k": "agent"} and now["mine"] == {"typed": True}
    assert brain.raw_get(NEW_SLUG)["agentsrc"] == {"k": "agent"} and brain.raw_get(NEW_SLUG)["mine"] == {"typed": True}
    assert sha(saved) in all_versions(brain, root)
    verify_equal(brain, root)
    assert fresh_import_differences(brain) == {}


def test_a_teammates_line_naming_another_page_a_letter_apart_is_merged_not_taken_as_a_typo_fix(env):
    """The brain has pages `bob` and `rob`; an agent's line `- [ ] standup (bob)` reached the file,
    and an editor holding the note from before saved its own `- [ ] standup (rob)`. One letter
    apart, lower case, the save passed for a typo fix of the agent's line (an edit of the newest
    version) and bob's line left the page. A word the brain names a page by put for another such
    word is another line (`merge.another_line`'s ``names``, `SyncEngine._page_name`): merged."""
    brain, eng, root = env
    brain.put("people/bob", "# bob\n\nA teammate.\n")
    brain.put("people/rob", "---\naliases: [rob]\n---\n# Robert Ng\n\nAnother teammate.\n")
    eng.sync()
    f = root / PATH
    buf = f.read_bytes()  # the editor opens the note
    brain.put(SLUG, (buf + b"\n- [ ] standup (bob)\n").decode("utf-8"))
    assert eng.sync()["changed"]["exported"] == [PATH]
    editor_save(f, buf + b"\n- [ ] standup (rob)\n")
    rep = eng.sync()
    assert rep["merged"] == [PATH] and rep["conflicts"] == [], rep
    page = text_of(brain, SLUG).encode("utf-8")
    assert b"standup (bob)" in page and b"standup (rob)" in page and f.read_bytes() == page, page
    assert fresh_import_differences(brain) == {}
    # a word no page is named by, one letter off: a typo fix, as before (an edit of the newest)
    buf = f.read_bytes()
    brain.put(SLUG, (buf + b"- [ ] standup (cob)\n").decode("utf-8"))
    assert eng.sync()["changed"]["exported"] == [PATH]
    editor_save(f, buf + b"- [ ] standup (cop)\n")
    rep = eng.sync()
    assert rep["merged"] == [] and rep["conflicts"] == [] and b"(cob)" not in f.read_bytes(), rep
