"""Two founders, one Postgres brain, each syncing a folder of their own (a sync client each):
what a team trial found.

A. A stale save against a teammate's write: Bob's editor holds the note; Alice's edit in her
   folder reaches Bob's file through gbrain; Bob's editor then saves its old buffer plus a typed
   line. For Bob's folder Alice's version came through gbrain exactly as an agent's write does,
   so the save is merged (before: it replaced the page, and Alice's line was only in history).
B. The founder whose save lost a both-changed conflict is told so by their own sync/watch (before:
   only `← db …` while the file changed underneath them); `gbrain conflicts` says whose text is
   in the note and whose in the copy; the copy's history credits the author of its text.

Driven with SyncEngine rounds (no live watcher, nothing to wait for), on Postgres (`pg_url`).
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import editor_save, gbrain, write_tree

from gbrain.core.brain import Brain
from gbrain.storage.origin import origin
from gbrain.sync.engine import SyncEngine, conflict_list

pytestmark = pytest.mark.engine_free  # the same on both engines: runs in the SQLite run only (conftest)

PATH = "people/ana-yilmaz.md"
SLUG = "people/ana-yilmaz"
START = "# Ana Yilmaz\n\nFounder notes.\n\n---\n\n- **2026-01-01** | met at the meetup\n"


class Folder:
    """One founder's folder and sync engine (their own Postgres connection), rounds as `who`."""

    def __init__(self, url: str, root: Path, who: str):
        self.root, self.who, self.lines = root, who, []
        self.brain = Brain.open(url)
        self.eng = SyncEngine(self.brain, root, log=self.lines.append)
        self.eng.surface = "watch"
        with origin(user=who):
            self.eng.bind()

    def round(self) -> dict:
        with origin(user=self.who):
            return self.eng.sync()

    @property
    def file(self) -> Path:
        return self.root / PATH

    def close(self) -> None:
        self.eng.close()
        self.brain.close()


@pytest.fixture
def team(pg_url, tmp_path):
    a = Folder(pg_url, write_tree(tmp_path / "alice", {PATH: START}), "alice")
    (tmp_path / "bob").mkdir()
    b = Folder(pg_url, tmp_path / "bob", "bob")
    try:
        assert a.round()["exit_code"] == 0
        assert b.round()["exit_code"] == 0
        assert b.file.read_bytes() == a.file.read_bytes()
        yield a, b
    finally:
        a.close()
        b.close()


def page_text(brain: Brain) -> bytes:
    from gbrain.core.brain import render_row

    return render_row(brain.page_row(SLUG)).encode("utf-8")


def test_a_stale_save_over_a_teammates_edit_is_merged_not_replaced(team):
    alice, bob = team
    buf = bob.file.read_bytes()  # Bob's editor reads the note
    alice.file.write_bytes(alice.file.read_bytes() + b"- **2026-12-02** | ALICE-LINE\n")
    assert alice.round()["changed"]["imported"] == [PATH]
    assert bob.round()["changed"]["exported"] == [PATH]
    assert b"ALICE-LINE" in bob.file.read_bytes()  # it reached Bob's file through gbrain
    editor_save(bob.file, buf + b"- **2026-12-02** | BOB-TYPED\n")  # his editor's old buffer + a line
    rep = bob.round()
    assert rep["merged"] == [PATH] and rep["conflicts"] == [], rep
    assert any(f"merged your save of {PATH}" in ln for ln in bob.lines), bob.lines
    page = page_text(bob.brain)
    assert b"ALICE-LINE" in page and b"BOB-TYPED" in page
    assert bob.file.read_bytes() == page
    assert alice.round()["changed"]["exported"] == [PATH]
    assert alice.file.read_bytes() == page
    assert alice.round()["counts"]["imported"] == bob.round()["counts"]["imported"] == 0  # settled


def test_each_folders_file_writes_name_their_sync_client_in_the_history(team):
    alice, bob = team
    alice.file.write_bytes(alice.file.read_bytes() + b"- **2026-12-02** | A\n")
    alice.round()
    bob.round()
    bob.file.write_bytes(bob.file.read_bytes() + b"- **2026-12-03** | B\n")
    bob.round()
    rows = alice.brain.conn.execute("SELECT client, writer FROM history WHERE kind = 'page' AND name = ? AND operation = 'file changed' ORDER BY version",
                                    (SLUG,)).fetchall()
    assert [tuple(r) for r in rows] == [(alice.eng.client, "alice"), (bob.eng.client, "bob")]


def test_an_old_history_row_with_no_sync_client_is_taken_as_today(team):
    """Versions written before the sync client was recorded (client '') count as a folder's file:
    the plain rule imports the save, as before (the history keeps the other version)."""
    alice, bob = team
    buf = bob.file.read_bytes()
    alice.file.write_bytes(alice.file.read_bytes() + b"- **2026-12-02** | ALICE-LINE\n")
    alice.round()
    bob.round()
    with alice.brain.transaction():
        alice.brain.conn.execute("UPDATE history SET client = '' WHERE surface IN ('sync', 'watch')")
    editor_save(bob.file, buf + b"- **2026-12-02** | BOB-TYPED\n")
    rep = bob.round()
    assert rep["merged"] == [] and rep["changed"]["imported"] == [PATH]
    assert b"ALICE-LINE" not in page_text(bob.brain)


def test_a_founders_own_saves_are_never_taken_for_a_teammates_write(team):
    """Bob adds a line, then replaces it: the second save is based on his own first one."""
    alice, bob = team
    base = bob.file.read_bytes()
    editor_save(bob.file, base + b"line X\n")
    bob.round()
    alice.round()
    editor_save(bob.file, base + b"line Y\n")
    rep = bob.round()
    assert rep["merged"] == [] and rep["changed"]["imported"] == [PATH]
    assert page_text(bob.brain) == base + b"line Y\n"


def _both_save(team):
    alice, bob = team
    base = alice.file.read_bytes()
    # both rewrite the same line (edits that do not overlap are merged, no conflict)
    va, vb = base.replace(b"met at the meetup", b"ALICE-VERSION"), base.replace(b"met at the meetup", b"BOB-VERSION")
    alice.file.write_bytes(va)
    bob.file.write_bytes(vb)
    assert alice.round()["changed"]["imported"] == [PATH]
    rep = bob.round()  # Bob's round finds both changed: his file wins, Alice's text is the copy
    [c] = rep["conflicts"]
    assert c["kind"] == "both-changed" and c["path"] == PATH
    assert any(ln.startswith(f"! conflict {PATH}: the file's version kept") for ln in bob.lines), bob.lines
    return alice, bob, va, vb, c["copy_path"]


def test_the_founder_whose_save_lost_a_conflict_is_told(team):
    alice, bob, va, vb, cp = _both_save(team)
    rep = alice.round()
    assert alice.file.read_bytes() == vb and (alice.root / cp).read_bytes() == va
    said = f"! {PATH}: your save conflicted with bob's; bob's version was kept, yours is in {cp}"
    assert said in alice.lines, alice.lines
    assert rep["overruled"] == [{"path": PATH, "copy_path": cp, "kept_by": "bob", "kept_origin": ""}], rep.get("overruled")
    # said once: later rounds (and Bob's) do not repeat it
    alice.round()
    bob.round()
    assert alice.lines.count(said) == 1
    assert not any("your save conflicted" in ln for ln in bob.lines), bob.lines


def test_the_conflict_copy_credits_the_author_of_its_text_and_conflicts_say_who(team, pg_url):
    alice, bob, va, vb, cp = _both_save(team)
    alice.round()
    copy_slug = cp[:-3]
    first = alice.brain.conn.execute("SELECT writer, operation FROM history WHERE kind = 'page' AND name = ? ORDER BY version LIMIT 1", (copy_slug,)).fetchone()
    assert tuple(first) == ("alice", "conflict copy")  # Alice's text, though Bob's watch wrote it
    [c] = conflict_list(alice.brain)
    assert c["kept_by"] == "bob" and c["copy_by"] == "alice", c
    listed = json.loads(gbrain("--db", pg_url, "conflicts", "--json").stdout)
    assert [(x["kept_by"], x["copy_by"]) for x in listed] == [("bob", "alice")]
    text = gbrain("--db", pg_url, "conflicts").stdout.decode()
    assert f"{PATH} holds bob's version; alice's version is in {cp}" in text, text


def test_conflicts_says_when_the_note_no_longer_holds_the_kept_version(team, pg_url):
    """Team trial 34: after a three-way conflict `gbrain conflicts` said "#3 … Link notes.md holds
    ana's version" while the note held bob's (#4 had replaced it): the line reads as the state
    now. Once the note changed since the conflict, it says the version was kept then."""
    alice, bob, va, vb, cp = _both_save(team)
    alice.round()
    [c] = conflict_list(alice.brain)
    assert c["kept_now"] is True, c
    text = gbrain("--db", pg_url, "conflicts").stdout.decode()
    assert f"{PATH} holds bob's version; alice's version is in {cp}" in text, text
    alice.file.write_bytes(vb + b"\n- **2026-12-04** | alice: later edit\n")
    alice.round()
    [c] = conflict_list(alice.brain)
    assert c["kept_now"] is False, c
    text = gbrain("--db", pg_url, "conflicts").stdout.decode()
    assert f"{PATH} kept bob's version (changed since); alice's version is in {cp}" in text, text


def test_an_agents_write_that_lost_a_conflict_is_not_called_a_save_of_the_folder(team):
    """The text the folder last had came from an agent (through gbrain), not from a save there:
    the folder's watch says nothing about "your save" (the winner's log and `gbrain conflicts`
    still tell)."""
    alice, bob = team
    base = alice.file.read_bytes()
    alice.brain.put(SLUG, base.replace(b"met at the meetup", b"AGENT-VERSION").decode("utf-8"))
    assert alice.round()["changed"]["exported"] == [PATH]
    bob.file.write_bytes(base.replace(b"met at the meetup", b"BOB-VERSION"))
    [c] = bob.round()["conflicts"]
    assert c["kind"] == "both-changed"
    rep = alice.round()
    assert b"BOB-VERSION" in alice.file.read_bytes()
    assert rep["overruled"] == [] and not any("your save conflicted" in ln for ln in alice.lines), alice.lines


def test_conflicts_text_with_one_writer_on_both_sides_says_which_side_is_where():
    """A trial: a person and their agent under one login made a conflict, and `gbrain conflicts`
    said "T/conc.md holds root@vm's version; root@vm's version is in …": the same name on both
    sides tells nothing. Then the sides are named (the file's / the brain's), and the writer once."""
    from gbrain.operations.sync import _conflicts_text

    row = {"id": 3, "status": "open", "path": "T/conc.md", "copy_path": "T/conc.conflict-x.md", "kind": "stale-save",
           "kept_by": "root@vm", "copy_by": "root@vm", "note": None, "created_at": "2026-12-02T08:00:00Z"}
    text = _conflicts_text([row], {})
    assert text == "#3 open  T/conc.md  ← file's version in T/conc.conflict-x.md  (2026-12-02T08:00:00Z, both sides written by root@vm)"
    text = _conflicts_text([{**row, "kind": "both-changed"}], {})
    assert "← brain's version in T/conc.conflict-x.md" in text
    assert "holds bob's version; root@vm's version is in" in _conflicts_text([{**row, "kept_by": "bob"}], {})


def test_a_blind_put_that_drops_a_teammates_saved_line_is_told_to_that_teammate(team):
    """The team trial's F1: an agent read the note, Bob then saved a line in his folder (it
    reached the brain), and the agent's put of its edited copy (no if_hash) replaced Bob's
    version. Nothing is lost (the history has it), but before, Bob's watch only printed
    `← db …` while his line left his file. Now his watch names the writer, the line and where
    his version is; it says so once, and not to Alice (the line was not hers)."""
    alice, bob = team
    read = alice.file.read_bytes()  # what the agent read
    editor_save(bob.file, read + b"- **2026-12-03** | BOB-LINE\n")
    assert bob.round()["changed"]["imported"] == [PATH]
    with origin(user="agent-x"):
        alice.brain.put(SLUG, read.decode("utf-8").replace("Founder notes.", "Founder notes, rewritten."))
    rep = bob.round()
    assert rep["changed"]["exported"] == [PATH] and b"BOB-LINE" not in bob.file.read_bytes()
    [r] = rep["saves_dropped"]
    assert r == {"path": PATH, "by": "agent-x", "lines": 1, "first": "- **2026-12-03** | BOB-LINE"}, r
    said = [ln for ln in bob.lines if ln.startswith(f"! {PATH}: agent-x's write")]
    assert len(said) == 1 and "BOB-LINE" in said[0] and f"gbrain history {SLUG}" in said[0], bob.lines
    bob.round()
    assert sum(ln.startswith(f"! {PATH}: agent-x's write") for ln in bob.lines) == 1
    alice.round()
    assert not any("agent-x's write" in ln for ln in alice.lines), alice.lines


def test_a_teammate_adding_words_into_a_saved_line_is_no_removal_of_it(team):
    """Team trial 34: bob's heading reached cat's folder; cat added words into it and saved; bob's
    watch said "cat's write removed 1 line of your save (\"## Obsidian Sync (bob: our pick)\")":
    the line was not removed, cat built on it. A line of the save that the new text holds with
    words put in (merge.keeps) or as a close edit of it is no dropped line."""
    alice, bob = team
    line = b"- **2026-12-03** | BOB-LINE about the pricing page\n"
    editor_save(bob.file, bob.file.read_bytes() + line)
    assert bob.round()["changed"]["imported"] == [PATH]
    assert alice.round()["changed"]["exported"] == [PATH]
    editor_save(alice.file, alice.file.read_bytes().replace(b"about the pricing page", b"about the pricing page (alice: and the FAQ)"))
    assert alice.round()["changed"]["imported"] == [PATH]
    rep = bob.round()
    assert rep["changed"]["exported"] == [PATH] and b"(alice: and the FAQ)" in bob.file.read_bytes()
    assert rep["saves_dropped"] == [], rep["saves_dropped"]
    assert not [ln for ln in bob.lines if "removed" in ln], bob.lines


def test_a_write_that_keeps_the_saved_lines_says_nothing_more(team):
    """An edit through gbrain built on Bob's save (his line kept): the usual `← db` only."""
    alice, bob = team
    editor_save(bob.file, bob.file.read_bytes() + b"- **2026-12-03** | BOB-LINE\n")
    assert bob.round()["changed"]["imported"] == [PATH]
    now = bob.file.read_bytes().decode("utf-8")
    with origin(user="agent-x"):
        alice.brain.put(SLUG, now.replace("Founder notes.", "Founder notes, rewritten."))
    rep = bob.round()
    assert rep["changed"]["exported"] == [PATH] and rep["saves_dropped"] == []
    assert not any("write removed" in ln for ln in bob.lines), bob.lines


def test_one_folder_on_sqlite_is_told_when_an_agents_put_drops_its_saved_lines(tmp_path):
    """The same on the embedded brain: a person's save under watch, then an agent's blind put
    from an older read drops the person's lines; the folder's next round says so."""
    root = write_tree(tmp_path / "notes", {PATH: START})
    with Brain.open(str(tmp_path / "brain.db")) as brain:
        lines: list[str] = []
        eng = SyncEngine(brain, root, log=lines.append)
        eng.surface = "watch"
        eng.bind()
        eng.sync()
        f = root / PATH
        editor_save(f, START.encode() + b"- **2026-12-03** | MY-LINE\n- **2026-12-03** | MY-OTHER-LINE\n")
        assert eng.sync()["changed"]["imported"] == [PATH]
        with origin(user="claude", surface="mcp"):
            brain.put(SLUG, START.replace("Founder notes.", "Founder notes (agent)."))
        rep = eng.sync()
        [r] = rep["saves_dropped"]
        assert (r["by"], r["lines"], r["first"]) == ("claude", 2, "- **2026-12-03** | MY-LINE"), r
        assert any(ln.startswith(f"! {PATH}: claude's write removed 2 lines of your save") for ln in lines), lines
        eng.close()
    from gbrain.operations.sync import _sync_text

    text = _sync_text(rep, {})
    assert f"SAVE REPLACED: {PATH}: claude's write (from an older read) removed 2 lines of your save" in text, text


def test_a_revert_that_drops_saved_lines_is_called_a_revert_not_a_write_from_an_older_read(tmp_path):
    """trial7: an agent's `brain_revert` (or `gbrain revert`) to the version before a person's
    save: watch said "claude's write removed 2 lines of your save" and sync's report "claude's write
    (from an older read) removed …": a revert is read from the history on purpose, not from an
    older read. The person is still told (their lines left the file), as a revert, with its version."""
    from gbrain import operations as ops
    from gbrain.operations.sync import _sync_text

    root = write_tree(tmp_path / "notes", {PATH: START})
    with Brain.open(str(tmp_path / "brain.db")) as brain:
        lines: list[str] = []
        eng = SyncEngine(brain, root, log=lines.append)
        eng.surface = "watch"
        eng.bind()
        eng.sync()
        editor_save(root / PATH, START.encode() + b"- **2026-12-03** | MY-LINE\n- **2026-12-03** | MY-OTHER-LINE\n")
        assert eng.sync()["changed"]["imported"] == [PATH]
        with origin(user="claude"):
            ops.run("revert", {"slug": SLUG, "to": 1}, ops.Context(surface="mcp"), brain=brain)
        rep = eng.sync()
        [r] = rep["saves_dropped"]
        assert (r["by"], r["lines"], r["revert_to"]) == ("claude", 2, 1), r
        said = [ln for ln in lines if ln.startswith(f"! {PATH}: ")]
        assert len(said) == 1 and said[0].startswith(f"! {PATH}: claude's revert to version 1 removed 2 lines of your save"), lines
        eng.close()
    text = _sync_text(rep, {})
    assert f"SAVE REPLACED: {PATH}: claude's revert to version 1 removed 2 lines of your save" in text, text
    assert "older read" not in text, text


@pytest.mark.parametrize("new", ["people/Ana Yilmaz.md", "people/ANA-YILMAZ.md", "archive/ana-yilmaz.md"])
def test_a_write_after_a_rename_is_no_drop_of_the_renamed_text(tmp_path, new):
    """Trial 31: a note renamed in the folder (Obsidian: `Café résumé` → `café Résumé`), then an
    agent's `gbrain tag` (`tags: people` → `tags: people, people/friend`): watch said "root@vm's
    write removed 1 line of your save ("tags: people")". The rename's version was compared with
    nothing (the text before it is under the old name), so every line of the note counted as
    the save's. A move added no line; lines a save made before the move and a write drops are
    still told."""
    from gbrain import operations as ops

    text = "---\ntags: people\n---\n# Ana\n\nNotes.\n"
    root = write_tree(tmp_path / "notes", {PATH: text})
    with Brain.open(str(tmp_path / "brain.db")) as brain:
        lines: list[str] = []
        eng = SyncEngine(brain, root, log=lines.append)
        eng.surface = "watch"
        eng.bind()
        eng.sync()
        (root / new).parent.mkdir(parents=True, exist_ok=True)
        os.rename(root / PATH, root / new)
        assert eng.sync()["counts"]["moved"] == 1
        slug = new[:-3]
        with origin(user="claude"):
            ops.run("tag", {"slug": slug, "tag": "people/friend"}, ops.Context(surface="mcp"), brain=brain)
        rep = eng.sync()
        assert rep["changed"]["exported"] == [new] and rep["saves_dropped"] == [], rep["saves_dropped"]
        assert not any("of your save" in ln for ln in lines), lines
        # a save after the move, then a blind put dropping its line: told as before
        editor_save(root / new, (root / new).read_bytes() + b"MY-LINE\n")
        assert eng.sync()["changed"]["imported"] == [new]
        with origin(user="claude"):
            brain.put(slug, text)
        [r] = eng.sync()["saves_dropped"]
        assert (r["lines"], r["first"]) == (1, "MY-LINE"), r
        eng.close()


def test_a_targeted_edit_of_the_saved_text_itself_is_no_dropped_save(tmp_path):
    """Trial 30: under watch, a note saved with `[[agent-swarm]]` in a line, then `gbrain lint
    --check dead_links --fix-safe` (asked for by the person) pointed the link at the renamed page;
    watch logged "root@vm's write removed 1 line of your save (…); your version is in the
    history", an alarm for an edit made on purpose of the very text saved. An edit that reads the
    page's current text in its own transaction (`tag`, `untag`, `link`, `unlink`, `timeline-add`,
    `lint-fix`, `raw-put`) and wrote over the saved version itself cannot come from an older
    read: no warning. The same edit made after a blind put that dropped the lines still warns."""
    from gbrain import operations as ops

    root = write_tree(tmp_path / "notes", {PATH: START, "people/bo-chen.md": "# Bo Chen\n"})
    with Brain.open(str(tmp_path / "brain.db")) as brain:
        lines: list[str] = []
        eng = SyncEngine(brain, root, log=lines.append)
        eng.surface = "watch"
        eng.bind()
        eng.sync()
        saved = "---\ntags: [founder]\n---\n" + START.replace("Founder notes.", "Founder notes; see [[Bo Chen]] for the deal.")
        editor_save(root / PATH, saved.encode())
        assert eng.sync()["changed"]["imported"] == [PATH]
        ops.run("unlink", {"from": SLUG, "to": "Bo Chen"}, ops.Context(surface="cli"), brain=brain)
        rep = eng.sync()
        assert rep["changed"]["exported"] == [PATH] and rep["saves_dropped"] == [], rep["saves_dropped"]
        assert b"Founder notes; see Bo Chen for the deal." in (root / PATH).read_bytes()
        editor_save(root / PATH, (root / PATH).read_bytes().replace(b"[founder]", b"[founder, angel]"))
        assert eng.sync()["changed"]["imported"] == [PATH]
        ops.run("tag", {"slug": SLUG, "tag": "yc"}, ops.Context(surface="mcp"), brain=brain)
        rep = eng.sync()
        assert rep["changed"]["exported"] == [PATH] and rep["saves_dropped"] == [], rep["saves_dropped"]
        assert not [ln for ln in lines if ln.startswith("! ")], lines
        # a blind put from an older read dropped the saved line, then a tag: still told
        editor_save(root / PATH, (root / PATH).read_bytes() + b"- **2026-12-03** | MY-LINE\n")
        assert eng.sync()["changed"]["imported"] == [PATH]
        with origin(user="claude", surface="mcp"):
            brain.put(SLUG, saved)
        ops.run("tag", {"slug": SLUG, "tag": "seed"}, ops.Context(surface="mcp"), brain=brain)
        rep = eng.sync()
        [r] = rep["saves_dropped"]
        assert r["first"] == "- **2026-12-03** | MY-LINE", r
        eng.close()


@pytest.mark.parametrize("op", ["move", "unlink"])
def test_a_targeted_edit_after_a_rename_of_a_saved_note_is_no_dropped_save(tmp_path, op):
    """Trial s61: under watch, a note saved in the folder (`[[Project alpha]]` → `[[Project
    alpha 2026]]`, Obsidian's link update), then its folder renamed, then `gbrain move` of the
    page it links to rewrote that link: watch said "root@vm's write removed 1 line of your save
    (…)". The targeted edit's version number (at the new name) was compared with the save's
    (at the old name, before the rename): two counts that start again at a rename."""
    from gbrain import operations as ops

    old, new = "trial/cafe.md", "trial notes/cafe.md"
    root = write_tree(tmp_path / "notes", {old: "Links back to [[Project alpha]].\n", "trial/Project alpha.md": "# Project alpha\n"})
    with Brain.open(str(tmp_path / "brain.db")) as brain:
        lines: list[str] = []
        eng = SyncEngine(brain, root, log=lines.append)
        eng.surface = "watch"
        eng.bind()
        eng.sync()
        editor_save(root / old, b"Links back to [[Project alpha]] and [[Project alpha#Decisions]].\n")
        assert eng.sync()["changed"]["imported"] == [old]
        os.rename(root / "trial", root / "trial notes")
        assert eng.sync()["counts"]["moved"] == 2
        if op == "move":
            ops.run("move", {"slug": "trial notes/Project alpha", "to": "projects/Alpha"}, ops.Context(surface="cli"), brain=brain)
        else:
            ops.run("unlink", {"from": new[:-3], "to": "trial notes/Project alpha"}, ops.Context(surface="cli"), brain=brain)
        rep = eng.sync()
        assert new in rep["changed"]["exported"] and rep["saves_dropped"] == [], rep["saves_dropped"]
        assert not [ln for ln in lines if ln.startswith("! ")], lines
        eng.close()


LOOK_ALIKE = [b"- **2026-12-03** | note \xe2\x80\x94 MK-bob-0048 hand-written entry",
              b"- **2026-12-03** | note \xe2\x80\x94 MK-alice-0041 hand-written entry"]


def test_a_teammates_look_alike_line_in_place_of_a_saved_line_is_told_on_sqlite(tmp_path):
    """A save's line replaced by a write from an older read whose own line is of the same
    template with another name and number (0.9 alike: `merge.another_line`): the saved line is
    gone, not edited, so the person is told (before: any new line ≥ 0.85 alike excused it)."""
    root = write_tree(tmp_path / "notes", {PATH: START})
    with Brain.open(str(tmp_path / "brain.db")) as brain:
        lines: list[str] = []
        eng = SyncEngine(brain, root, log=lines.append)
        eng.surface = "watch"
        eng.bind()
        eng.sync()
        editor_save(root / PATH, START.encode() + LOOK_ALIKE[0] + b"\n")
        assert eng.sync()["changed"]["imported"] == [PATH]
        with origin(user="claude", surface="mcp"):
            brain.put(SLUG, START + LOOK_ALIKE[1].decode() + "\n")
        rep = eng.sync()
        assert b"MK-bob-0048" not in (root / PATH).read_bytes()
        [r] = rep["saves_dropped"]
        assert (r["by"], r["lines"], r["first"]) == ("claude", 1, LOOK_ALIKE[0].decode()), r
        assert any(ln.startswith(f"! {PATH}: claude's write removed 1 line of your save") for ln in lines), lines
        # a name a letter apart (`merge._renamed`): another person's line too
        now = (root / PATH).read_bytes()
        editor_save(root / PATH, now + b"- [ ] call with Jon about the roadmap\n")
        assert eng.sync()["changed"]["imported"] == [PATH]
        with origin(user="claude", surface="mcp"):
            brain.put(SLUG, now.decode() + "- [ ] call with Jan about the roadmap\n")
        [r] = eng.sync()["saves_dropped"]
        assert (r["lines"], r["first"]) == (1, "- [ ] call with Jon about the roadmap"), r
        # a typo fixed in the saved line is still no removal of it
        now = (root / PATH).read_bytes()
        editor_save(root / PATH, now + b"- **2026-12-03** | Invoice recieved from the landlord today\n")
        assert eng.sync()["changed"]["imported"] == [PATH]
        with origin(user="claude", surface="mcp"):
            brain.put(SLUG, now.decode() + "- **2026-12-03** | Invoice received from the landlord today\n")
        rep = eng.sync()
        assert rep["changed"]["exported"] == [PATH] and rep["saves_dropped"] == [], rep["saves_dropped"]
        eng.close()


def test_a_teammates_look_alike_line_in_place_of_a_saved_line_is_told(team):
    """The same on Postgres, the write a teammate's folder save from an older read."""
    alice, bob = team
    read = alice.file.read_bytes()  # alice's editor holds the note
    editor_save(bob.file, read + LOOK_ALIKE[0] + b"\n")
    assert bob.round()["changed"]["imported"] == [PATH]
    assert alice.round()["changed"]["exported"] == [PATH]
    with origin(user="agent-x"):  # a blind put from alice's older read
        alice.brain.put(SLUG, (read + LOOK_ALIKE[1] + b"\n").decode("utf-8"))
    rep = bob.round()
    assert rep["changed"]["exported"] == [PATH] and b"MK-bob-0048" not in bob.file.read_bytes()
    [r] = rep["saves_dropped"]
    assert r == {"path": PATH, "by": "agent-x", "lines": 1, "first": LOOK_ALIKE[0].decode()}, r
