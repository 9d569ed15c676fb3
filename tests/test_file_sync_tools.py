"""A vault kept equal between machines by a file-sync tool (Syncthing, Dropbox, iCloud Drive,
Nextcloud), acted out with real files: what those tools do on disk must not cost a page.

iCloud Drive evicts a file it keeps in the cloud ("Optimize Mac Storage"): the note goes and a
hidden placeholder ``.NAME.icloud`` takes its place until the note is opened again. Nobody
deleted anything, so the page stays in the brain as it was (not trashed, not written back into
the folder, where iCloud would make a second copy of it), and comes back in sync with the file
when iCloud downloads it. Both engines (``db_path``); watch as a real subprocess with a real
watchdog observer (``tests/test_watch.py: Watch``).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from gbrain.core.brain import Brain
from gbrain.core.history import trash_list
from gbrain.sync.engine import MASS_TRASH, SyncEngine
from gbrain.sync.scan import icloud_placeholder
from test_watch import Watch, settle, stop_ok, wait_for
import pytest
from conftest import gbrain_in_process


@pytest.fixture
def run():
    """The CLI, run in this process (conftest.gbrain_in_process): these tests are about what the
    commands do, not about the process (~0.25 CPU-s of start-up per call saved; tests/test_cli.py
    runs real processes)."""
    return gbrain_in_process


def evict(root: Path, rel: str) -> bytes:
    """What iCloud does to a file it evicts: its placeholder appears, the file goes. Returns the
    file's bytes (what a download brings back)."""
    f = root / rel
    data = f.read_bytes()
    (root / icloud_placeholder(rel)).write_bytes(b"bplist00\xd1\x01\x02XNSFileSize\x10\x2a")
    f.unlink()
    return data


def download(root: Path, rel: str, data: bytes) -> None:
    """iCloud bringing an evicted file back: the file, then the placeholder goes."""
    (root / rel).write_bytes(data)
    (root / icloud_placeholder(rel)).unlink()


def trash(b: Brain) -> list[str]:
    return [t["path"] for t in trash_list(b, limit=0)]


def test_an_evicted_note_stays_a_page_and_a_brain_edit_waits_for_its_download(db_path, brain_tree, run):
    r = run("sync", str(brain_tree), "--db", str(db_path))
    assert r.returncode == 0, r.stderr
    data = evict(brain_tree, "people/ana-lima.md")
    r = run("sync", str(brain_tree), "--db", str(db_path), "--json")
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    assert rep["evicted"] == ["people/ana-lima.md"], rep
    with Brain.open(db_path) as b:
        assert b.get_text("people/ana-lima") == data.decode()
        assert trash(b) == []
        assert not {p for p in (r[0] for r in b.conn.execute("SELECT path FROM history")) if p.endswith(".icloud")}
    r = run("sync", str(brain_tree), "--db", str(db_path))  # said in the text report too
    assert r.returncode == 0 and b"Evicted by iCloud Drive" in r.stdout, r.stdout
    # an agent edits the page while it is evicted: the folder gets no file beside the placeholder
    new = data.decode() + "\nAdded by an agent.\n"
    r = run("put", "people/ana-lima", "--db", str(db_path), input=new)
    assert r.returncode == 0, r.stderr
    r = run("sync", str(brain_tree), "--db", str(db_path))
    assert r.returncode == 0, r.stderr
    assert not (brain_tree / "people/ana-lima.md").exists()
    # iCloud downloads the note (the version it had): the brain's edit reaches the file
    download(brain_tree, "people/ana-lima.md", data)
    r = run("sync", str(brain_tree), "--db", str(db_path))
    assert r.returncode == 0, r.stderr
    assert (brain_tree / "people/ana-lima.md").read_text(encoding="utf-8") == new
    with Brain.open(db_path) as b:
        assert b.get_text("people/ana-lima") == new and trash(b) == []


def test_a_folder_evicted_whole_is_no_mass_deletion(db_path, tmp_path):
    root = tmp_path / "vault"
    (root / "archive").mkdir(parents=True)
    rels = []
    for i in range(MASS_TRASH + 5):
        (root / "archive" / f"n{i}.md").write_text(f"# N {i}\n", encoding="utf-8")
        rels.append(f"archive/n{i}.md")
    with Brain.open(db_path) as b:
        eng = SyncEngine(b, root)
        eng.bind()
        assert eng.sync()["ok"]
        for rel in rels:
            evict(root, rel)
        rep = eng.sync()
        assert rep["ok"] and rep["exit_code"] == 0, rep
        assert rep["evicted_count"] == len(rels) and trash(b) == []
        assert b.conn.execute("SELECT count(*) FROM pages WHERE path LIKE 'archive/%'").fetchone()[0] == len(rels)
        eng.close()


def test_watch_keeps_an_evicted_note(db_path, brain_tree, run):
    r = run("sync", str(brain_tree), "--db", str(db_path))
    assert r.returncode == 0, r.stderr
    w = Watch(brain_tree, db_path)
    try:
        with Brain.open(db_path) as b:
            data = evict(brain_tree, "people/ana-lima.md")
            wait_for(lambda: w.saw("people/ana-lima.md: evicted by iCloud Drive"), "watch to say the note was evicted")
            (brain_tree / "marker.md").write_text("# Marker\n", encoding="utf-8")  # every event before it was handled
            wait_for(lambda: b.page_row("marker") is not None, "the marker note")
            settle(b, brain_tree)
            assert b.get_text("people/ana-lima") == data.decode() and trash(b) == [], w.lines
            download(brain_tree, "people/ana-lima.md", data)
            (brain_tree / "marker.md").write_text("# Marker\n\nagain\n", encoding="utf-8")
            wait_for(lambda: "again" in (b.get_text("marker") or ""), "the marker's edit")
            settle(b, brain_tree)
            assert trash(b) == [] and not w.saw("ana-lima.md → trash"), w.lines
            assert [h for h in b.conn.execute("SELECT operation FROM history WHERE path = 'people/ana-lima.md'")] and \
                b.conn.execute("SELECT count(*) FROM history WHERE path = 'people/ana-lima.md'").fetchone()[0] == 1
        assert stop_ok(w) is not None
    finally:
        w.kill()


#: conflict copies file-sync tools leave beside a note, with the tool
TOOL_COPIES = [
    ("people/ana-lima.sync-conflict-20250101-123456-ABCDEFG.md", "Syncthing"),
    ("people/ana-lima.sync-conflict-20160101-123456.md", "Syncthing"),
    ("people/ana-lima (conflicted copy 2025-01-01).md", "Dropbox"),
    ("people/ana-lima (Laptop's conflicted copy 2025-01-01).md", "Dropbox"),
    ("people/ana-lima (Ana's conflicted copy 2025-01-01 (1)).md", "Dropbox"),
    ("people/ana-lima (conflicted copy 2025-01-01 123456).md", "Nextcloud"),
    ("people/ana-lima_conflict-20250101-123456.md", "ownCloud"),
]


@pytest.mark.engine_free
def test_sync_tool_copy_names():
    from gbrain.page.slugs import sync_tool_copy

    for path, tool in TOOL_COPIES:
        assert sync_tool_copy(path) == ("people/ana-lima.md", tool), path
    assert sync_tool_copy("assets/photo.sync-conflict-20250101-123456-ABCDEFG.jpg") == ("assets/photo.jpg", "Syncthing")
    for path in ("people/ana-lima.md", "notes/conflicted copy.md", "notes/sync-conflict.md", "people/ana (2025-01-01).md",
                 "people/ana-lima.conflict-20261202T015712.md"):  # the last: gbrain's own (conflict_original)
        assert sync_tool_copy(path) is None, path


@pytest.mark.engine_free
def test_copy_mark_names_the_mark_as_written_and_the_tool():
    """``copy_mark``: ``(original, mark, tool)`` of gbrain's own copy (tool None) and of each
    file-sync tool's, the mark exactly as in the name (``tool_copy_name`` puts it back), else None."""
    from gbrain.page.slugs import copy_mark, tool_copy_name

    for path, tool in TOOL_COPIES:
        orig, mark, t = copy_mark(path)
        assert (orig, t) == ("people/ana-lima.md", tool) and mark in path and tool_copy_name(orig, mark) == path, (path, mark)
    assert copy_mark("people/ana-lima (conflicted copy 2025-01-01).md")[1] == " (conflicted copy 2025-01-01)"
    assert copy_mark("assets/photo.sync-conflict-20250101-123456-ABCDEFG.jpg") == ("assets/photo.jpg", ".sync-conflict-20250101-123456-ABCDEFG", "Syncthing")
    assert copy_mark("people/ana-lima.conflict-20261202T015712-2.md") == ("people/ana-lima.md", ".conflict-20261202T015712-2", None)
    for path in ("people/ana-lima.md", "notes/conflicted copy.md", "notes/sync-conflict.md", "people/ana (2025-01-01).md",
                 "x/.sync-conflict-20250101-123456.md"):  # the last: a mark with no name before it
        assert copy_mark(path) is None, path


def test_lint_names_a_sync_tools_conflict_copy_as_a_conflict(db_path, brain_tree, run):
    """A conflict copy Syncthing or Dropbox made (two machines edited the note before they
    synced) is a conflict to resolve, named with the page it copies, like gbrain's own; not a
    second page with the same title nor an orphan."""
    r = run("sync", str(brain_tree), "--db", str(db_path))
    assert r.returncode == 0, r.stderr
    note = (brain_tree / "people/ana-lima.md").read_bytes()
    for path, _ in TOOL_COPIES[:3]:
        (brain_tree / path).write_bytes(note + b"\nEdited on the phone.\n")
    r = run("sync", str(brain_tree), "--db", str(db_path))
    assert r.returncode == 3, r.stderr  # conflicts found, as for gbrain's own copies
    said = r.stdout.decode()  # a CONFLICT line naming both files, once, when the copy arrives
    for path, tool in TOOL_COPIES[:3]:
        assert f"CONFLICT: {path}: a conflict copy {tool} made of people/ana-lima.md" in said, said
    r = run("sync", str(brain_tree), "--db", str(db_path))
    assert r.returncode == 0 and b"conflict copy" not in r.stderr + r.stdout, r.stdout
    r = run("lint", "--db", str(db_path), "--json", "--limit", "0")
    found = json.loads(r.stdout)["items"]
    conflicts = [f for f in found if f["check"] == "conflicts"]
    assert sorted(f["slug"] for f in conflicts) == sorted(p[:-3] for p, _ in TOOL_COPIES[:3]), found
    assert all(f["original"] == "people/ana-lima" and f["tool"] in f["message"] for f in conflicts), conflicts
    assert not [f for f in found if f["check"] in ("duplicate_titles", "orphans") and "conflict" in json.dumps(f)], found


def test_gbrain_conflicts_lists_a_sync_tools_copy_until_it_is_deleted(db_path, brain_tree, run):
    """``gbrain conflicts`` (MCP ``brain_conflicts``, the maintain skill's step) lists a copy a
    file-sync tool made as an open conflict, naming the note it copies and the tool, until the copy
    is deleted; sync exits 3 in the round the copy arrives, as for gbrain's own copies."""
    db = str(db_path)
    (brain_tree / "assets").mkdir(exist_ok=True)
    (brain_tree / "assets/photo.jpg").write_bytes(b"\xff\xd8\xff\xe0 a photo")
    assert run("sync", str(brain_tree), "--db", db).returncode == 0
    assert run("conflicts", "--db", db).stderr.decode().strip() == "no open conflicts"
    note = (brain_tree / "people/ana-lima.md").read_bytes()
    for path, _ in TOOL_COPIES[:3]:
        (brain_tree / path).write_bytes(note + b"\nEdited on the phone.\n")
    (brain_tree / "assets/photo.sync-conflict-20250101-123456-ABCDEFG.jpg").write_bytes(b"\xff\xd8\xff\xe0 the other photo")
    r = run("sync", str(brain_tree), "--db", db, "--json")
    rep = json.loads(r.stdout)
    assert r.returncode == 3 and rep["exit_code"] == 3 and rep["counts"]["conflicts"] == 4, rep["conflicts"]
    assert run("sync", str(brain_tree), "--db", db).returncode == 0  # found before: open, not found again
    want = {(p, "people/ana-lima.md", t) for p, t in TOOL_COPIES[:3]} | {("assets/photo.sync-conflict-20250101-123456-ABCDEFG.jpg", "assets/photo.jpg", "Syncthing")}
    listed = json.loads(run("conflicts", "--db", db, "--json").stdout)
    assert {(c["copy_path"], c["path"], c["tool"]) for c in listed} == want, listed
    assert all(c["status"] == "open" and c["kind"] == "sync-tool" for c in listed), listed
    text = run("conflicts", "--db", db).stdout.decode()
    dropbox = "people/ana-lima (conflicted copy 2025-01-01)"
    assert f"people/ana-lima.md  ← {dropbox}.md: a conflict copy Dropbox made of people/ana-lima.md" in text, text
    assert f"then delete the copy (`gbrain delete '{dropbox}'`;" in text, text
    assert ("assets/photo.jpg  ← assets/photo.sync-conflict-20250101-123456-ABCDEFG.jpg: a conflict copy Syncthing made of assets/photo.jpg"
            in text and "then delete the copy file in the folder" in text), text
    r = run("delete", dropbox, "--db", db)  # merged: the copy goes, and with it the conflict
    assert r.returncode == 0, r.stderr
    listed = json.loads(run("conflicts", "--db", db, "--json").stdout)
    assert dropbox + ".md" not in {c["copy_path"] for c in listed} and len(listed) == 3, listed
    assert run("sync", str(brain_tree), "--db", db).returncode == 0
    assert not (brain_tree / (dropbox + ".md")).exists()


def test_the_first_sync_of_a_folder_says_the_sync_tools_copies_it_holds(db_path, brain_tree, run):
    """A folder brought into an empty brain by its first sync (the bulk import) may hold copies a
    file-sync tool made before gbrain watched it: that round is the one they arrive in, so sync
    names each (``CONFLICT``) and exits 3, as it does for a copy arriving later; the next sync
    finds them open, not again (exit 0). Before, the first sync said 0 conflicts while
    ``gbrain conflicts`` listed them."""
    db = str(db_path)
    note = (brain_tree / "people/ana-lima.md").read_bytes()
    for path, _ in TOOL_COPIES[:2]:
        (brain_tree / path).write_bytes(note + b"\nEdited on the phone.\n")
    (brain_tree / "assets").mkdir(exist_ok=True)
    (brain_tree / "assets/photo.jpg").write_bytes(b"\xff\xd8\xff\xe0 a photo")
    (brain_tree / "assets/photo.sync-conflict-20250101-123456-ABCDEFG.jpg").write_bytes(b"\xff\xd8\xff\xe0 the other photo")
    r = run("sync", str(brain_tree), "--db", db, "--json")
    rep = json.loads(r.stdout)
    assert r.returncode == 3 and rep["exit_code"] == 3 and rep["counts"]["conflicts"] == 3, rep
    assert rep["first_import"] > 0  # (the bulk import's round)
    assert {(c["copy_path"], c["kind"]) for c in rep["conflicts"]} == {
        *((p, "sync-tool") for p, _ in TOOL_COPIES[:2]), ("assets/photo.sync-conflict-20250101-123456-ABCDEFG.jpg", "sync-tool")}, rep["conflicts"]
    text = run("sync", str(brain_tree), "--db", db)
    assert text.returncode == 0, text.stderr  # found before: open, not found again
    listed = json.loads(run("conflicts", "--db", db, "--json").stdout)
    assert {c["copy_path"] for c in listed} == {c["copy_path"] for c in rep["conflicts"]}


def test_watch_says_when_a_sync_tools_conflict_copy_arrives(db_path, brain_tree, run):
    r = run("sync", str(brain_tree), "--db", str(db_path))
    assert r.returncode == 0, r.stderr
    w = Watch(brain_tree, db_path)
    try:
        copy = "people/ana-lima.sync-conflict-20250101-123456-ABCDEFG.md"
        tmp = brain_tree / "people" / f".syncthing.{copy.rsplit('/', 1)[1]}.tmp"  # as Syncthing writes it
        tmp.write_bytes((brain_tree / "people/ana-lima.md").read_bytes() + b"\nEdited on the phone.\n")
        tmp.replace(brain_tree / copy)
        wait_for(lambda: w.saw(f"{copy}: a conflict copy Syncthing made of people/ana-lima.md"), "watch to name the copy and its note")
        assert stop_ok(w) is not None
    finally:
        w.kill()


#: a conflict copy brought in by a rename of a note the folder held (a file-sync tool's download,
#: stored under its temp name before the tool renamed it): Dropbox's and Syncthing's names
RENAMED_COPIES = ["people/ana-lima (Ana's conflicted copy 2026-12-06).md", "people/ana-lima.sync-conflict-20261206-101010-ABCDEFG.md"]


@pytest.mark.parametrize("copy", RENAMED_COPIES, ids=["dropbox", "syncthing"])
@pytest.mark.parametrize("changed", [False, True], ids=["renamed", "renamed-and-changed"])
def test_a_conflict_copy_arriving_by_a_rename_is_said_as_one_created_in_place(db_path, brain_tree, run, copy, changed):
    """Trial 68: a copy that arrived as a move of a note watch had stored (renamed into place, or
    its temp deleted and the copy written in one round: a move and edit) was only ``> … (moved)``,
    no ``! conflict`` line, though ``gbrain conflicts`` listed it. Said as a copy created in place
    is; watch's summary counts it, and ``gbrain sync`` exits 3 for it as for a created one."""
    r = run("sync", str(brain_tree), "--db", str(db_path))
    assert r.returncode == 0, r.stderr
    w = Watch(brain_tree, db_path, "--json")
    try:
        data = (brain_tree / "people/ana-lima.md").read_bytes() + b"\nEdited on the phone.\n"
        tmp = brain_tree / "people" / "download-3f2a.md"
        tmp.write_bytes(data)
        with Brain.open(db_path) as b:
            wait_for(lambda: b.page_row("people/download-3f2a") is not None, "the temp note stored")
            if changed:
                tmp.unlink()
                (brain_tree / copy).write_bytes(data + b"And one more line.\n")
            else:
                tmp.replace(brain_tree / copy)
            wait_for(lambda: w.saw(f"→ {copy}"), "the move")
            settle(b, brain_tree)
        assert w.saw(f"! conflict {copy}: a conflict copy "), w.lines
        listed = json.loads(run("conflicts", "--db", str(db_path), "--json").stdout)
        assert [c["copy_path"] for c in listed] == [copy], listed
        out = json.loads(stop_ok(w))  # (watch exits 0 after a copy created in place too)
        assert out["counts"]["conflicts"] == 1, (out, w.lines)
    finally:
        w.kill()


def test_sync_says_a_conflict_copy_arriving_by_a_rename_and_exits_3(db_path, brain_tree, run):
    """``gbrain sync`` of a note renamed to a conflict copy's name: the CONFLICT line and exit 3,
    as for a copy created in place; a copy that moves with its folder (already a copy) is no new
    conflict."""
    db = str(db_path)
    (brain_tree / "people/download-3f2a.md").write_bytes((brain_tree / "people/ana-lima.md").read_bytes() + b"\nEdited on the phone.\n")
    assert run("sync", str(brain_tree), "--db", db).returncode == 0
    copy = RENAMED_COPIES[0]
    (brain_tree / "people/download-3f2a.md").replace(brain_tree / copy)
    r = run("sync", str(brain_tree), "--db", db)
    assert r.returncode == 3 and f"CONFLICT: {copy}: a conflict copy Dropbox made of people/ana-lima.md".encode() in r.stdout, r
    assert run("sync", str(brain_tree), "--db", db).returncode == 0
    (brain_tree / "people").rename(brain_tree / "persons")
    r = run("sync", str(brain_tree), "--db", db)
    assert r.returncode == 0 and b"CONFLICT" not in r.stdout, r


@pytest.mark.parametrize("copy", ["people/ana-lima.conflict-20261206T101010.md", *RENAMED_COPIES], ids=["gbrain", "dropbox", "syncthing"])
def test_a_note_renamed_to_its_own_copys_name_keeps_the_name_it_was_given(db_path, brain_tree, run, copy):
    """A note renamed to a name that marks it a conflict copy of its own old name (a person's
    rename, or a tool moving the local side aside): the page moved there was taken for its own
    conflict copy (``copy_renames``: a copy of ``src`` follows the page) and moved on, the note
    renamed on disk to ``NAME (…) (…).md`` (doubled mark), the round exiting 1 (a file not in the
    brain). The note keeps the name it was given, nothing renamed twice, and a sync after is clean."""
    db = str(db_path)
    assert run("sync", str(brain_tree), "--db", db).returncode == 0
    data = (brain_tree / "people/ana-lima.md").read_bytes()
    (brain_tree / "people/ana-lima.md").replace(brain_tree / copy)
    r = run("sync", str(brain_tree), "--db", db)
    assert r.returncode in (0, 3), r
    assert (brain_tree / copy).read_bytes() == data
    assert sorted(p.name for p in (brain_tree / "people").iterdir() if "ana-lima" in p.name) == [copy.split("/")[1]]
    with Brain.open(db_path) as b:
        assert [r[0] for r in b.conn.execute("SELECT path FROM pages WHERE path LIKE 'people/ana-lima%'")] == [copy]
    r = run("sync", str(brain_tree), "--db", db)
    assert r.returncode == 0 and b"CONFLICT" not in r.stdout, r


#: one copy of each kind: gbrain's own of a page, and a file-sync tool's of a page, of a page's
#: ``.raw`` sidecar and of an attachment (written into a synced fixtures/brain)
KINDS = {
    "people/ana-lima.conflict-20260101T101010.md": "people/ana-lima",
    "people/ana-lima.sync-conflict-20250101-123456-ABCDEFG.md": "people/ana-lima",
    "people/.raw/ana-lima.sync-conflict-20250101-123456-ABCDEFG.json": "people/ana-lima",
    "assets/photo (conflicted copy 2025-01-01).jpg": None,
}


def _copies_of_each_kind(tree: Path, run, db: str) -> None:
    (tree / "assets").mkdir(exist_ok=True)
    (tree / "assets/photo.jpg").write_bytes(b"\xff\xd8\xff\xe0 a photo")
    assert run("sync", str(tree), "--db", db).returncode == 0
    for path in KINDS:
        src = tree / (path.replace(".conflict-20260101T101010", "").replace(".sync-conflict-20250101-123456-ABCDEFG", "")
                      .replace(" (conflicted copy 2025-01-01)", ""))
        (tree / path).write_bytes(src.read_bytes() + (b"\nEdited on the phone.\n" if path.endswith(".md") else b" "))


def test_a_sync_tools_copy_of_a_sidecar_is_resolved_as_gbrains_own_copy_of_one(db_path, brain_tree, run):
    """Syncthing's copy of a page's ``.raw`` sidecar was lint's "keep the version wanted" with no
    page, where gbrain's own copy of a sidecar names the page and the raw/raw-put calls that merge
    sources: who made the copy does not change how it is merged."""
    db = str(db_path)
    _copies_of_each_kind(brain_tree, run, db)
    assert run("sync", str(brain_tree), "--db", db).returncode == 3
    found = json.loads(run("lint", "--db", db, "--json", "--check", "conflicts", "--limit", "0").stdout)["items"]
    [side] = [f for f in found if f.get("path") == "people/.raw/ana-lima.sync-conflict-20250101-123456-ABCDEFG.json"]
    assert side["slug"] == "people/ana-lima" and side["tool"] == "Syncthing", side
    assert "`gbrain raw-put people/ana-lima --source SOURCE --data JSON`" in side["action"], side


def test_lint_and_gbrain_conflicts_list_the_same_copies_and_say_how_to_resolve_each_in_the_same_words(db_path, brain_tree, run):
    """lint's ``conflicts`` check and ``gbrain conflicts`` read one scan of the brain
    (``core/conflicts.py: copies``) and give one advice per copy (``resolve_how``): lint's
    ``action`` is the conflict's ``action``, and sync's CONFLICT line of a tool's copy says it."""
    db = str(db_path)
    _copies_of_each_kind(brain_tree, run, db)
    said = run("sync", str(brain_tree), "--db", db).stdout.decode()
    found = json.loads(run("lint", "--db", db, "--json", "--check", "conflicts", "--limit", "0").stdout)["items"]
    listed = json.loads(run("conflicts", "--db", db, "--json").stdout)
    by_lint = {f.get("path") or f["slug"] + ".md": f for f in found}
    by_list = {c["copy_path"]: c for c in listed}
    assert set(by_lint) == set(by_list) == set(KINDS), (sorted(by_lint), sorted(by_list))
    text = run("conflicts", "--db", db).stdout.decode()  # a person reads how too, gbrain's own copy included
    assert all(c["action"] in text for c in listed), text
    for path, page in KINDS.items():
        action = by_list[path]["action"]
        assert by_lint[path]["action"].endswith(action), (by_lint[path]["action"], action)
        assert "delete the copy" in action, action
        if "sync-conflict" in path or "conflicted copy" in path:
            assert f"CONFLICT: {path}: " in said and action in said, said
        if page is not None:
            assert f"gbrain raw {page}" in action or f"gbrain put {page}" in action, action


def test_a_round_that_looks_for_a_moves_old_path_leaves_an_evicted_note_alone(synced):
    """Watch's round over a new note looks for the synced path it may have moved from (same file
    id, or same base bytes, gone from disk) and took an evicted note for one: CI under load saw
    ``test_watch_keeps_an_evicted_note`` trash the evicted page when the marker note reused the
    note's freed inode. A copy of the evicted note's bytes at a new path is a new page; the
    evicted page stays as it was (not moved, not trashed)."""
    b, eng, root = synced
    data = evict(root, "people/ana-lima.md")
    (root / "people" / "ana-copy.md").write_bytes(data)  # same bytes: the base-hash lookup
    out = eng.reconcile(["people/ana-copy.md"])
    assert not out.moved and not out.trashed, (out.moved, out.trashed)
    assert b.get_text("people/ana-lima") == data.decode() and trash(b) == []
    assert b.page_row("people/ana-copy") is not None


def test_import_names_the_sync_tools_copies_it_stores(db_path, brain_tree, run):
    """`gbrain import DIR` stored the copies a file-sync tool left in the folder without a word, so
    the sync after it (no first sync then: the brain already holds the folder) said none while
    `gbrain conflicts` listed them: import's report names each, as sync's first round does
    (`conflicts`, kind ``sync-tool``; a ``CONFLICT`` line), exit 0 (import's exit codes are its
    validation's; 3 is sync's). A tree without one: no ``conflicts``, no line."""
    db = str(db_path)
    r = run("import", str(brain_tree), "--db", db, "--json")
    assert r.returncode == 0 and "conflicts" not in json.loads(r.stdout), r.stdout
    note = (brain_tree / "people/ana-lima.md").read_bytes()
    for path, _ in TOOL_COPIES[:2]:
        (brain_tree / path).write_bytes(note + b"\nEdited on the phone.\n")
    (brain_tree / "assets").mkdir(exist_ok=True)
    (brain_tree / "assets/photo.jpg").write_bytes(b"\xff\xd8\xff\xe0 a photo")
    (brain_tree / "assets/photo.sync-conflict-20250101-123456-ABCDEFG.jpg").write_bytes(b"\xff\xd8\xff\xe0 the other photo")
    r = run("import", str(brain_tree), "--db", db, "--json")
    rep = json.loads(r.stdout)
    assert r.returncode == 0 and rep["ok"], r
    want = {*(p for p, _ in TOOL_COPIES[:2]), "assets/photo.sync-conflict-20250101-123456-ABCDEFG.jpg"}
    assert {c["copy_path"] for c in rep["conflicts"]} == want and {c["kind"] for c in rep["conflicts"]} == {"sync-tool"}, rep["conflicts"]
    listed = json.loads(run("conflicts", "--db", db, "--json").stdout)
    assert {c["copy_path"] for c in listed} == want
    for c in rep["conflicts"]:
        [same] = [x for x in listed if x["copy_path"] == c["copy_path"]]
        assert (c["path"], c["tool"], c["note"], c["action"]) == (same["path"], same["tool"], same["note"], same["action"]), (c, same)
    text = run("import", str(brain_tree), "--db", db)
    assert text.returncode == 0, text.stderr
    for p in want:
        assert f"CONFLICT: {p}: a conflict copy ".encode() in text.stdout, text.stdout
