"""Rules a team brain (Postgres: one sync client per host:folder) and a one-folder brain (SQLite)
must both follow (issue found by a new-user team trial on Postgres):

* import of a second folder keeps the brain's version of a path it already has (README);
* a path with no base for this folder whose file differs from the brain: the brain's version
  stays the page and is written to the file, the file's version is kept as the conflict copy
  (an old copy of the vault never replaces the team's pages);
* a rename seen by another folder is a move there, not a page in the trash.
"""
from __future__ import annotations

import hashlib
import json
import shutil

import pytest

from conftest import gbrain_in_process as gbrain  # what the commands do, not the process: no process per call

from gbrain.core.brain import Brain, render_row
from gbrain.core.history import trash_list
from gbrain.sync.engine import SyncEngine


def test_a_second_folder_keeps_the_brains_version_on_both_engines(tmp_path, brain_tree, db_path):
    db = str(db_path)
    assert gbrain("--db", db, "import", str(brain_tree)).returncode == 0
    before = gbrain("--db", db, "get", "people/ana-lima").stdout
    eve = tmp_path / "eve"
    (eve / "people").mkdir(parents=True)
    (eve / "people" / "ana-lima.md").write_text("---\ntitle: EVE VERSION\n---\nEve's own ana-lima\n")
    (eve / "people" / "zoe.md").write_text("# Zoe\n")
    r = gbrain("--db", db, "import", str(eve))
    err = r.stderr.decode()
    assert r.returncode == 0, err
    assert "already holds" in err and str(brain_tree) in err, err
    assert "people/ana-lima.md" in err and "kept the brain's version" in err and "replaced" not in err, err
    assert gbrain("--db", db, "get", "people/ana-lima").stdout == before
    assert gbrain("--db", db, "get", "zoe").returncode == 0  # a new path is added
    trash = json.loads(gbrain("--db", db, "trash", "--json").stdout)
    assert trash == [], trash
    # the first folder's sync changes nothing there
    assert gbrain("--db", db, "sync", str(brain_tree)).returncode == 0
    assert (brain_tree / "people" / "ana-lima.md").read_bytes() == before


def _sync(db: str, folder, *extra: str):
    return gbrain("--db", db, "sync", str(folder), *extra)


def _two_folders(tmp_path, brain_tree, pg_url):
    """alice's folder (a copy of the tree) and bob's (empty), each synced once with the brain at
    ``pg_url``: both hold the tree. Returns ``(alice, bob)``."""
    a, b = tmp_path / "alice", tmp_path / "bob"
    shutil.copytree(brain_tree, a)
    b.mkdir()
    assert _sync(pg_url, a).returncode == 0
    assert _sync(pg_url, b).returncode == 0
    return a, b


def test_an_old_copy_of_the_vault_with_no_base_never_replaces_the_brains_pages(tmp_path, brain_tree, db_path, engine):
    """cp -a bob bob2; a brain-side edit; an edit in bob2 the brain never saw; sync bob2 (no base
    there): the brain's version stays the page and is written to bob2, bob2's version is the
    conflict copy (on disk and in the brain), exit 3, nothing lost. (A file holding only an older
    version of the page is no conflict: test_a_teammate_joining_from_an_old_copy_….)"""
    db = str(db_path)
    assert _sync(db, brain_tree).returncode == 0
    copy = tmp_path / "bob2"
    shutil.copytree(brain_tree, copy)
    f = copy / "people" / "ana-lima.md"
    f.write_bytes(f.read_bytes() + b"\nbob2's own line\n")
    stale = f.read_bytes()
    assert gbrain("--db", db, "put", "people/ana-lima", "--timeline-append", "- **2026-12-01** | note — brain-side edit").returncode == 0
    brain_version = gbrain("--db", db, "get", "people/ana-lima").stdout
    assert brain_version != stale
    r = _sync(db, copy, *(("--rebind",) if engine == "sqlite" else ()), "--json")
    rep = json.loads(r.stdout)
    assert r.returncode == 3, (r.stdout, r.stderr)
    [c] = rep["conflicts"]
    assert c["path"] == "people/ana-lima.md" and c["copy_path"].startswith("people/ana-lima.conflict-"), c
    assert c["kind"] == "no-base"
    assert (copy / "people" / "ana-lima.md").read_bytes() == brain_version
    assert (copy / c["copy_path"]).read_bytes() == stale
    assert gbrain("--db", db, "get", "people/ana-lima").stdout == brain_version
    assert gbrain("--db", db, "get", c["copy_path"][:-3]).stdout == stale
    text = gbrain("--db", db, "sync", str(copy)).stdout.decode()  # nothing left to do but the open conflict
    listed = json.loads(gbrain("--db", db, "conflicts", "--json").stdout)
    assert [x["status"] for x in listed] == ["open"], listed
    # every other path of the copy equalled the brain: settled, not conflicts
    assert sorted(p.name for p in (copy / "people").iterdir() if ".conflict-" in p.name) == [c["copy_path"].split("/")[-1]], text


def test_the_human_text_of_a_no_base_conflict_says_the_brains_version_was_kept(tmp_path, brain_tree, db_path, engine):
    db = str(db_path)
    assert _sync(db, brain_tree).returncode == 0
    copy = tmp_path / "bob2"
    shutil.copytree(brain_tree, copy)
    f = copy / "people" / "ana-lima.md"
    f.write_bytes(f.read_bytes() + b"\nbob2's own line\n")
    assert gbrain("--db", db, "tag", "people/ana-lima", "brainside").returncode == 0
    r = _sync(db, copy, *(("--rebind",) if engine == "sqlite" else ()))
    out = r.stdout.decode() + r.stderr.decode()
    assert r.returncode == 3 and "CONFLICT: people/ana-lima.md: the brain's version was kept" in out, out


def test_a_first_sync_into_an_empty_brain_has_no_conflicts(tmp_path, brain_tree, db_path):
    r = _sync(str(db_path), brain_tree)
    assert r.returncode == 0 and b"CONFLICT" not in r.stdout + r.stderr


@pytest.mark.engine_free
def test_a_rename_in_one_folder_is_a_move_in_the_other_not_a_trashed_page(tmp_path, brain_tree, pg_url):
    """Two folders of one Postgres brain: alice renames a note and syncs; bob's sync moves his file
    (the old name leaves his folder, the new one appears) and the trash stays empty; anything
    the trash lists can be restored by that name."""
    a, b = _two_folders(tmp_path, brain_tree, pg_url)
    old, new = "people/ana-lima.md", "people/ana-lima-cruz.md"
    (a / old).rename(a / new)
    assert _sync(pg_url, a).returncode == 0
    r = _sync(pg_url, b)
    assert r.returncode == 0, r.stdout + r.stderr
    assert not (b / old).exists() and (b / new).read_bytes() == (a / new).read_bytes()
    with Brain.open(pg_url) as br:
        assert trash_list(br) == []
    assert json.loads(gbrain("--db", pg_url, "trash", "--json").stdout) == []


def test_a_trashed_version_under_a_renamed_name_is_restored_by_that_name(tmp_path, brain_tree, db_path):
    """A brain where the old name of a renamed page was trashed (before this fix, another
    folder's sync did that): `gbrain trash` lists the old name, and `gbrain restore OLD` puts
    that version back onto the page it is now (not "nothing named … in the trash")."""
    from gbrain.core.history import keep_version

    db = str(db_path)
    assert _sync(db, brain_tree).returncode == 0
    old, new = brain_tree / "people" / "ana-lima.md", brain_tree / "people" / "ana-lima-cruz.md"
    text = old.read_bytes()
    old.rename(new)
    assert _sync(db, brain_tree).returncode == 0
    new.write_bytes(text + b"\nEdited after the move.\n")
    assert _sync(db, brain_tree).returncode == 0
    with Brain.open(db) as br, br.transaction():
        keep_version(br.conn, "page", "people/ana-lima", "people/ana-lima.md", text, "deleted in brain")
    listed = json.loads(gbrain("--db", db, "trash", "--json").stdout)
    assert [t["slug"] for t in listed] == ["people/ana-lima"], listed
    r = gbrain("--db", db, "restore", "people/ana-lima", "--json")
    assert r.returncode == 0, r.stdout + r.stderr
    assert json.loads(r.stdout)["slug"] == "people/ana-lima-cruz"
    assert gbrain("--db", db, "get", "people/ana-lima-cruz").stdout == text


def _join_old_copy(tmp_path, brain_tree, db_path, engine):
    """alice syncs the vault; carol keeps a copy of it as it was; then alice deletes the folder
    deals/ (its one note), renames people/bruno-okafor.md, edits two notes and an agent tags a
    page. Returns ``(db, alice's folder, carol's old copy, rebind args)``."""
    db = str(db_path)
    alice = {"GBRAIN_USER": "alice"}
    assert gbrain("--db", db, "sync", str(brain_tree), env=alice).returncode == 0
    old = tmp_path / "carol"
    shutil.copytree(brain_tree, old)
    shutil.rmtree(brain_tree / "deals")
    (brain_tree / "people" / "bruno-okafor.md").rename(brain_tree / "people" / "bruno-okafor-moved.md")
    for rel in ("people/ana-lima.md", "concepts/hybrid-retrieval.md"):
        f = brain_tree / rel
        f.write_bytes(f.read_bytes() + b"\nEdited after carol's copy was made.\n")
    r = gbrain("--db", db, "sync", str(brain_tree), env=alice)
    assert r.returncode == 0, r.stdout + r.stderr
    assert gbrain("--db", db, "tag", "companies/river-ai", "agent-tag", env=alice).returncode == 0
    return db, brain_tree, old, (("--rebind",) if engine == "sqlite" else ())


def test_a_teammate_joining_from_an_old_copy_gets_no_conflicts_and_no_deleted_or_renamed_page_back(tmp_path, brain_tree, db_path, engine):
    """An old copy of the vault synced with no base (a teammate joining, a restored backup):
    files holding an older version of their page are just old (the brain's version is written,
    no conflict copy); a file of a page the brain deleted, or at the old name of a renamed page,
    holding a version of it, is removed from the folder (its bytes are in the history), never
    brought back as a page; the emptied folder goes too. Before: exit 3, one conflict copy per
    edited note, the deleted and the renamed page back."""
    db, a, old, rebind = _join_old_copy(tmp_path, brain_tree, db_path, engine)
    trash_before = json.loads(gbrain("--db", db, "trash", "--json").stdout)
    r = gbrain("--db", db, "sync", str(old), *rebind, "--json", env={"GBRAIN_USER": "carol"})
    rep = json.loads(r.stdout)
    assert r.returncode == 0, (r.stdout, r.stderr)
    assert rep["conflicts"] == [] and not [p for p in old.rglob("*") if ".conflict-" in p.name]
    # the deleted page stays deleted (in the trash as before); its file and its folder are gone
    assert not (old / "deals").exists()
    assert gbrain("--db", db, "get", "deals/river-ai-series-a").returncode != 0
    assert json.loads(gbrain("--db", db, "trash", "--json").stdout) == trash_before
    # the renamed page is one page, at its new name only
    assert not (old / "people" / "bruno-okafor.md").exists()
    assert (old / "people" / "bruno-okafor-moved.md").read_bytes() == (a / "people" / "bruno-okafor-moved.md").read_bytes()
    # (the old name reads the page under its new one, saying so, as every read follows a rename)
    r = gbrain("--db", db, "get", "people/bruno-okafor")
    assert r.returncode == 0 and b"was renamed to people/bruno-okafor-moved" in r.stderr, r.stderr
    assert r.stdout == gbrain("--db", db, "get", "people/bruno-okafor-moved").stdout
    with Brain.open(db) as br:
        assert br.page_row("people/bruno-okafor") is None and br.page_row("deals/river-ai-series-a") is None
    # every edited page is the brain's newest version on disk
    for rel in ("people/ana-lima.md", "concepts/hybrid-retrieval.md"):
        assert (old / rel).read_bytes() == (a / rel).read_bytes()
    assert b"agent-tag" in (old / "companies" / "river-ai.md").read_bytes()
    removed = sorted((x["path"], x["why"]) for x in rep["old_copies"]["removed"])
    assert removed == [("deals/river-ai-series-a.md", "deleted in the brain; in the trash"),
                       ("people/bruno-okafor.md", "moved in the brain to people/bruno-okafor-moved.md")], rep["old_copies"]
    assert sorted(rep["old_copies"]["replaced"]) == ["companies/river-ai.md", "concepts/hybrid-retrieval.md", "people/ana-lima.md"]
    text = gbrain("--db", db, "sync", str(old)).stdout.decode()  # the second sync of carol's folder: nothing to do
    assert "CONFLICT" not in text and "Old copy" not in text, text
    # the human report says what happened to the old files
    r = gbrain("--db", db, "sync", str(a), *rebind, env={"GBRAIN_USER": "alice"})
    assert r.returncode == 0 and not [p for p in a.rglob("*") if ".conflict-" in p.name], r.stdout + r.stderr
    assert not (a / "deals").exists() and not (a / "people" / "bruno-okafor.md").exists()


def test_the_human_report_of_an_old_copy_names_the_files_removed_and_counts_the_replaced(tmp_path, brain_tree, db_path, engine):
    db, a, old, rebind = _join_old_copy(tmp_path, brain_tree, db_path, engine)
    r = gbrain("--db", db, "sync", str(old), *rebind)
    out = r.stdout.decode()
    assert r.returncode == 0, out + r.stderr.decode()
    assert "Old copy removed: deals/river-ai-series-a.md (deleted in the brain; in the trash)" in out, out
    assert "Old copy removed: people/bruno-okafor.md (moved in the brain to people/bruno-okafor-moved.md)" in out, out
    assert "3 file(s) held an older version of their page" in out, out


def test_an_old_copy_with_new_bytes_keeps_todays_rules(tmp_path, brain_tree, db_path, engine):
    """Bytes found in no version of the page are new content: at a live path a ``no-base``
    conflict (the brain's version stays, the file's is the copy), at a deleted path a page
    again (imported), at a renamed page's old name a page of its own."""
    db, a, old, rebind = _join_old_copy(tmp_path, brain_tree, db_path, engine)
    for rel in ("people/ana-lima.md", "deals/river-ai-series-a.md", "people/bruno-okafor.md"):
        f = old / rel
        f.write_bytes(f.read_bytes() + b"\nCarol's own line, never synced.\n")
    r = gbrain("--db", db, "sync", str(old), *rebind, "--json", env={"GBRAIN_USER": "carol"})
    rep = json.loads(r.stdout)
    assert r.returncode == 3, (r.stdout, r.stderr)
    assert [(c["path"], c["kind"]) for c in rep["conflicts"]] == [("people/ana-lima.md", "no-base")]
    assert rep["old_copies"]["removed"] == []
    with Brain.open(db) as br:
        assert b"Carol's own line" in (old / "deals" / "river-ai-series-a.md").read_bytes()
        assert "Carol's own line" in br.page_row("deals/river-ai-series-a")["compiled_truth"] + br.page_row("deals/river-ai-series-a")["timeline"]
        assert br.page_row("people/bruno-okafor") is not None and br.page_row("people/bruno-okafor-moved") is not None


def test_a_page_deleted_in_the_brain_takes_its_emptied_folders_with_it_but_never_a_folder_holding_anything(tmp_path, db_path):
    """sync removes the file of a page deleted through gbrain; the folders it emptied go too (up
    to, never including, the root); a folder still holding a hidden or ignored file stays."""
    from conftest import write_tree

    db = str(db_path)
    root = write_tree(tmp_path / "v", {"a/b/only.md": "# Only\n", "keep/x.md": "# X\n", "hidden/y.md": "# Y\n",
                                       "hidden/.DS_Store": "x", "ign/z.md": "# Z\n", "top.md": "# Top\n"})
    (root / "empty-by-hand").mkdir()  # a folder the person made: never gbrain's to remove
    assert gbrain("--db", db, "sync", str(root)).returncode == 0
    (root / ".gbrainignore").write_text("ign/*.txt\n")
    (root / "ign" / "notes.txt").write_text("ignored")
    assert gbrain("--db", db, "sync", str(root)).returncode == 0
    for slug in ("a/b/only", "hidden/y", "ign/z", "top"):
        assert gbrain("--db", db, "delete", slug).returncode == 0
    r = gbrain("--db", db, "sync", str(root))
    assert r.returncode == 0, r.stdout + r.stderr
    assert not (root / "a").exists()
    assert (root / "hidden").is_dir() and (root / "hidden" / ".DS_Store").exists()
    assert (root / "ign").is_dir() and (root / "ign" / "notes.txt").exists()
    assert (root / "keep" / "x.md").exists() and (root / "empty-by-hand").is_dir() and root.is_dir()


def test_a_note_put_back_by_hand_in_a_folder_that_saw_its_deletion_is_a_page_again(tmp_path, brain_tree, db_path):
    """Not an old copy: a folder synced before the note was deleted (deleted there, or through
    gbrain and removed there by sync) gets the file back from the person (Obsidian's .trash, an
    undo, a git checkout): the note is a page again, as before, never removed a second time."""
    db = str(db_path)
    assert _sync(db, brain_tree).returncode == 0
    f, g = brain_tree / "deals" / "river-ai-series-a.md", brain_tree / "concepts" / "hybrid-retrieval.md"
    fb, gb = f.read_bytes(), g.read_bytes()
    f.unlink()  # deleted in the folder: trashed by the sync
    assert gbrain("--db", db, "delete", "concepts/hybrid-retrieval").returncode == 0  # deleted through gbrain: removed by the sync
    assert _sync(db, brain_tree).returncode == 0
    assert not g.exists() and not g.parent.exists()  # its emptied folder went with it
    g.parent.mkdir()
    f.write_bytes(fb)
    g.write_bytes(gb)
    r = _sync(db, brain_tree, "--json")
    rep = json.loads(r.stdout)
    assert r.returncode == 0 and rep["old_copies"]["removed"] == [], (r.stdout, r.stderr)
    assert f.read_bytes() == fb and g.read_bytes() == gb
    with Brain.open(db) as br:
        assert br.page_row("deals/river-ai-series-a") is not None and br.page_row("concepts/hybrid-retrieval") is not None


@pytest.mark.engine_free
def test_an_edit_in_a_folder_offline_follows_a_rename_another_folder_made(tmp_path, brain_tree, pg_url):
    """Team trial (trial4 F2): bob's watch is stopped; he appends a line to a note; alice renames
    the note (and edits another line of it) and syncs; bob's sync must move his file to the new
    name and merge his edit into the renamed page: no second page at the old name (before: the
    round said "deleted in the brain but changed on disk" and put the old name back as a page)."""
    a, b = _two_folders(tmp_path, brain_tree, pg_url)
    old, new = "people/ana-lima.md", "people/ana-lima-cruz.md"
    fb = b / old
    fb.write_bytes(fb.read_bytes() + b"\nbob's offline line\n")
    fa = a / old
    fa.write_bytes(b"alice's first line\n" + fa.read_bytes())
    fa.rename(a / new)
    assert _sync(pg_url, a).returncode == 0
    r = _sync(pg_url, b, "--json")
    assert r.returncode == 0, r.stdout + r.stderr
    assert not (b / old).exists(), sorted(p.name for p in (b / "people").iterdir())
    text = (b / new).read_bytes()
    assert b"bob's offline line" in text and b"alice's first line" in text, text
    assert gbrain("--db", pg_url, "get", "people/ana-lima-cruz").stdout == text
    # no page of the old name: a read of it follows the rename and says so
    r = gbrain("--db", pg_url, "get", "people/ana-lima")
    assert r.returncode == 0 and r.stdout == text and b"was renamed to people/ana-lima-cruz" in r.stderr, r.stderr
    with Brain.open(pg_url) as br:
        assert br.page_row("people/ana-lima") is None
    assert _sync(pg_url, a).returncode == 0
    assert not (a / old).exists() and (a / new).read_bytes() == text
    assert not [p for p in (b / "people").iterdir() if ".conflict-" in p.name]


@pytest.mark.engine_free
def test_a_note_renamed_in_two_folders_to_two_names_says_so(tmp_path, brain_tree, pg_url):
    """Team trial (trial4 F3): bob (offline) renames a note, alice renames the same note to
    another name and syncs; bob's sync keeps both names (nothing lost) and now says that the
    note was renamed meanwhile to alice's name (before: only a create line, no word of it)."""
    a, b = _two_folders(tmp_path, brain_tree, pg_url)
    old = "people/ana-lima.md"
    (b / old).rename(b / "people/ana-bob.md")
    (a / old).rename(a / "people/ana-alice.md")
    assert _sync(pg_url, a).returncode == 0
    r = _sync(pg_url, b, "--json")
    assert r.returncode == 0, r.stdout + r.stderr
    rep = json.loads(r.stdout)
    assert (b / "people/ana-bob.md").exists() and (b / "people/ana-alice.md").exists()
    said = [w for w in rep.get("warnings", []) if "people/ana-bob.md" in w]
    assert said and "renamed meanwhile to people/ana-alice.md" in said[0], rep.get("warnings")


@pytest.mark.engine_free
def test_a_watch_conflict_line_names_whose_version_the_brain_kept(tmp_path, pg_url):
    """Team trial 25: bob and carol made the same stand-up note at once in their folders; carol's
    watch said only "the brain's version kept (this folder had no base), the file's version saved
    as …": jargon, and not whose version won (the losing saver's line of a both-changed conflict
    names them). Each conflict line names the writer of the brain's version."""
    from gbrain.storage.origin import origin

    lines = {"bob": [], "carol": []}
    with Brain.open(pg_url) as br:
        engines = {}
        for who in ("bob", "carol"):
            (tmp_path / who).mkdir()
            engines[who] = SyncEngine(br, tmp_path / who, log=lines[who].append)
            engines[who].bind()
            assert engines[who].sync()["ok"]
        (tmp_path / "bob" / "standup.md").write_text("# Standup\n\n- bob: sync\n")
        (tmp_path / "carol" / "standup.md").write_text("# Standup\n\n- carol: reviews\n")
        with origin(user="bob"):
            engines["bob"].sync()
        with origin(user="carol"):
            rep = engines["carol"].sync()
        assert rep["exit_code"] == 3, rep
        said = [s for s in lines["carol"] if s.startswith("! conflict standup.md")]
        assert said and "bob's" in said[0] and "no base" not in said[0], lines["carol"]
        # a both-changed conflict: carol's line, the file's version kept, names bob's copy
        for who, text in (("bob", "- bob: edited\n"), ("carol", "- carol: edited\n")):
            f = tmp_path / who / "standup.md"
            f.write_text(f.read_text().replace("- bob: sync\n", text))
        with origin(user="bob"):
            engines["bob"].sync()
        lines["carol"].clear()
        with origin(user="carol"):
            engines["carol"].sync()
        said = [s for s in lines["carol"] if s.startswith("! conflict standup.md")]
        assert said and "the brain's version (bob's) saved as" in said[0], lines["carol"]
        for e in engines.values():
            e.close()


@pytest.mark.engine_free
def test_a_note_renamed_to_two_names_while_both_watch_says_so(tmp_path, pg_url):
    """Team trial 25: alice and bob renamed the same note to two names at once, both watching;
    two pages, and not a word to anyone (`sync` says so: the test above). Alice's watch ran the
    change log's round (bob's rename) before her own rename's events reached a batch: the note
    was gone from both sides, its base forgotten, so her renamed file was a new note. That round
    now holds such a path for the file round, which says the note was renamed twice; a note
    deleted in the brain and gone from the folder is still forgotten by the next round."""
    from gbrain.sync.watch import Watcher

    a, b = tmp_path / "alice", tmp_path / "bob"
    a.mkdir()
    b.mkdir()
    (a / "note.md").write_text("# Note\n\ntext\n")
    (a / "gone.md").write_text("# Gone\n")
    said: list[str] = []
    with Brain.open(pg_url) as br:
        ea = SyncEngine(br, a)
        ea.bind()
        assert ea.sync()["ok"]
        ea.close()
        eb = SyncEngine(br, b)
        eb.bind()
        assert eb.sync()["ok"]
        w = Watcher(br, a, log=said.append)
        w.engine.bind()
        (b / "note.md").rename(b / "note bob.md")
        (b / "gone.md").unlink()
        eb.reconcile(paths=["note.md", "note bob.md", "gone.md"])
        (a / "note.md").rename(a / "note alice.md")
        (a / "gone.md").unlink()
        seq = br.conn.execute("SELECT MAX(seq) FROM change_log").fetchone()[0]
        retry: dict = {}
        assert w._safe_batch(set(), set(), log_paths={"note.md", "note bob.md", "gone.md"}, consumed_seq=seq, retry=retry)
        assert set(retry) == {"note.md", "gone.md"}, retry
        assert w._safe_batch({"note.md", "note alice.md", "gone.md"}, set(), retry={})
        twice = [s for s in said if "renamed meanwhile" in s]
        assert twice and "you renamed note.md" in twice[0] and "note bob.md" in twice[0], said
        assert sorted(p.name for p in a.iterdir()) == ["note alice.md", "note bob.md"]
        # nothing left behind: no base for the two old names, no conflict, nothing in the trash
        assert not br.conn.execute("SELECT path FROM sync_state WHERE client = ? AND path IN ('note.md', 'gone.md')", (w.engine.client,)).fetchall()
        assert not [s for s in said if "conflict" in s], said
        w.engine.close()
        eb.close()


@pytest.mark.engine_free
def test_a_rename_left_by_a_round_and_the_old_name_held_by_the_next_are_retried_together(tmp_path, pg_url):
    """The live order of trial 25 (bob's watch, logged round by round): bob's file round read the
    brain before alice's rename of the same note committed, so it left its move to the next round
    (both ends retried); the change log's round for alice's rename then held the old name; the
    two retries fell due apart, the new name alone was imported as a new note and nobody was
    told. Paths held or left wait for one another: one round sees the old name and the new."""
    import contextlib

    from gbrain.sync.watch import Watcher

    a, b = tmp_path / "alice", tmp_path / "bob"
    a.mkdir()
    b.mkdir()
    (b / "note.md").write_text("# Note\n\ntext\n")
    said: list[str] = []
    with Brain.open(pg_url) as br, Brain.open(pg_url) as br2:
        eb = SyncEngine(br, b)
        eb.bind()
        assert eb.sync()["ok"]
        eb.close()
        ea = SyncEngine(br2, a)
        ea.bind()
        assert ea.sync()["ok"]
        w = Watcher(br, b, log=said.append)
        w.engine.bind()
        (a / "note.md").rename(a / "note alice.md")
        (b / "note.md").rename(b / "note bob.md")
        real = br.transaction
        done: list[int] = []

        @contextlib.contextmanager
        def alice_commits_first(*x, **k):
            if not done:
                done.append(1)
                ea.reconcile(paths=["note.md", "note alice.md"])
            with real(*x, **k):
                yield

        retry: dict = {}
        br.transaction = alice_commits_first
        try:
            assert w._safe_batch({"note.md", "note bob.md"}, set(), retry=retry)
        finally:
            del br.transaction
        assert done and set(retry) == {"note.md", "note bob.md"}, retry
        seq = br.conn.execute("SELECT MAX(seq) FROM change_log").fetchone()[0]
        assert w._safe_batch(set(), set(), log_paths={"note.md", "note alice.md"}, consumed_seq=seq, retry=retry)
        assert retry["note.md"] == retry["note bob.md"], retry  # due together
        due = set(retry)
        retry.clear()
        assert w._safe_batch(due, set(), retry=retry)
        twice = [s for s in said if "renamed meanwhile" in s]
        assert twice and "you renamed note.md" in twice[0] and "note alice.md" in twice[0], said
        assert not [s for s in said if "MISMATCH" in s], said
        w.engine.close()
        ea.close()


@pytest.mark.engine_free
def test_a_delete_overruled_by_a_teammates_edit_is_said_to_both(tmp_path, pg_url):
    """Team trial 25: bob deleted a note while carol (offline) edited it; carol's watch restored
    the page from her file ("deleted in the brain but changed on disk; page restored from the
    file", not saying by whom) and bob's watch wrote the note back into his folder with a bare
    `← db …`: nothing told him his delete had been overruled. Carol's line names bob; bob's
    says the note is back with carol's edit and how to delete it again."""
    from gbrain.storage.origin import origin

    lines = {"bob": [], "carol": []}
    with Brain.open(pg_url) as br:
        (tmp_path / "bob").mkdir()
        (tmp_path / "bob" / "note.md").write_text("# Note\n\ntext\n")
        (tmp_path / "carol").mkdir()
        eng = {}
        for who in ("bob", "carol"):
            eng[who] = SyncEngine(br, tmp_path / who, log=lines[who].append)
            eng[who].bind()
            with origin(user=who):
                assert eng[who].sync()["ok"]
        (tmp_path / "bob" / "note.md").unlink()
        with origin(user="bob"):
            eng["bob"].sync()
        (tmp_path / "carol" / "note.md").write_text("# Note\n\ntext\n\ncarol's edit\n")
        with origin(user="carol"):
            eng["carol"].sync()
        said = [s for s in lines["carol"] if s.startswith("! conflict note.md")]
        assert said and "deleted in the brain by bob" in said[0], lines["carol"]
        lines["bob"].clear()
        with origin(user="bob"):
            eng["bob"].sync()
        assert (tmp_path / "bob" / "note.md").read_text().endswith("carol's edit\n")
        said = [s for s in lines["bob"] if s.startswith("! note.md")]
        assert said and "you deleted" in said[0] and "carol" in said[0] and "gbrain delete note" in said[0], lines["bob"]
        # a note new to a folder for any other reason says nothing of the kind
        lines["bob"].clear()
        (tmp_path / "carol" / "other.md").write_text("# Other\n")
        with origin(user="carol"):
            eng["carol"].sync()
        with origin(user="bob"):
            eng["bob"].sync()
        assert not [s for s in lines["bob"] if s.startswith("!")], lines["bob"]
        for e in eng.values():
            e.close()


def _renamed_under_bobs_editor(tmp_path, brain_tree, pg_url, alice_edit: bytes | None = None):
    """bob's editor holds people/ana-lima.md (its buffer read); alice renames the note (and,
    with ``alice_edit``, then replaces a line of the renamed page through gbrain) and syncs;
    bob's sync moves his file to the new name. Returns ``(alice, bob, old, new, buffer)``."""
    a, b = _two_folders(tmp_path, brain_tree, pg_url)
    old, new = "people/ana-lima.md", "people/ana-lima-cruz.md"
    buffer = (b / old).read_bytes()
    (a / old).rename(a / new)
    assert _sync(pg_url, a).returncode == 0
    if alice_edit is not None:
        text = (a / new).read_bytes().replace(b"Ana is raising a Series A", alice_edit)
        assert gbrain("--db", pg_url, "put", "people/ana-lima-cruz", input=text).returncode == 0
    r = _sync(pg_url, b)
    assert r.returncode == 0, r.stdout + r.stderr
    assert not (b / old).exists() and (b / new).exists()
    return a, b, old, new, buffer


@pytest.mark.engine_free
def test_a_save_at_the_old_name_after_the_rename_reached_the_folder_follows_the_rename(tmp_path, brain_tree, pg_url):
    """Team trial 34 (finding 1): alice renamed a note; the rename reached bob's folder (his file
    moved); then bob's editor, which still held the note, saved its buffer plus his line at the
    OLD path (vim does; any editor holding the buffer). Before: a new page at the old name with
    the whole old text and bob's line, beside the renamed page without it: the note forked,
    nothing said. Now the save follows the rename: bob's line is in the renamed page, the old
    file goes, no page of the old name."""
    a, b, old, new, buffer = _renamed_under_bobs_editor(tmp_path, brain_tree, pg_url)
    (b / old).write_bytes(buffer + b"\nbob's line from the open buffer\n")
    r = _sync(pg_url, b, "--json")
    assert r.returncode == 0, r.stdout + r.stderr
    assert not (b / old).exists(), sorted(p.name for p in (b / "people").iterdir())
    text = (b / new).read_bytes()
    assert b"bob's line from the open buffer" in text, text
    assert gbrain("--db", pg_url, "get", "people/ana-lima-cruz").stdout == text
    with Brain.open(pg_url) as br:
        assert br.page_row("people/ana-lima") is None
    said = [w for w in json.loads(r.stdout).get("warnings", []) if w.startswith("people/ana-lima.md: saved after")]
    assert said and "follows the rename to people/ana-lima-cruz.md" in said[0], r.stdout
    assert _sync(pg_url, a).returncode == 0
    assert not (a / old).exists() and (a / new).read_bytes() == text
    assert not [p for p in (b / "people").iterdir() if ".conflict-" in p.name]


@pytest.mark.engine_free
def test_a_late_save_at_the_old_name_merges_with_an_edit_of_the_renamed_page(tmp_path, brain_tree, pg_url):
    """The renamed page was edited after the rename (alice, through gbrain); bob's late save at
    the old name changed another line: both edits are in the renamed page."""
    a, b, old, new, buffer = _renamed_under_bobs_editor(tmp_path, brain_tree, pg_url, alice_edit=b"Ana (alice checked) is raising a Series A")
    (b / old).write_bytes(buffer.replace(b"- **2024-05-02** | office hours", b"- **2024-05-02** | office hours (bob)"))
    r = _sync(pg_url, b, "--json")
    assert r.returncode == 0, r.stdout + r.stderr
    assert not (b / old).exists()
    text = (b / new).read_bytes()
    assert b"alice checked" in text and b"office hours (bob)" in text, text
    assert gbrain("--db", pg_url, "get", "people/ana-lima-cruz").stdout == text
    with Brain.open(pg_url) as br:
        assert br.page_row("people/ana-lima") is None


@pytest.mark.engine_free
def test_a_late_save_at_the_old_name_that_conflicts_keeps_both_versions(tmp_path, brain_tree, pg_url):
    """bob's late save and alice's edit of the renamed page changed the same line: both versions
    are kept (the page and a conflict copy of the renamed page, exit 3), no page of the old name."""
    a, b, old, new, buffer = _renamed_under_bobs_editor(tmp_path, brain_tree, pg_url, alice_edit=b"Ana (alice) is raising a Series A")
    (b / old).write_bytes(buffer.replace(b"Ana is raising a Series A", b"Ana (bob) is raising a Series A"))
    r = _sync(pg_url, b, "--json")
    assert r.returncode == 3, r.stdout + r.stderr
    assert not (b / old).exists()
    texts = [p.read_bytes() for p in (b / "people").iterdir() if p.name.startswith("ana-lima-cruz")]
    assert len(texts) == 2 and any(b"Ana (alice)" in t for t in texts) and any(b"Ana (bob)" in t for t in texts), texts
    with Brain.open(pg_url) as br:
        assert br.page_row("people/ana-lima") is None


@pytest.mark.engine_free
def test_a_new_note_at_a_renamed_pages_old_name_is_a_page_of_its_own(tmp_path, brain_tree, pg_url):
    """A note unlike the renamed page written at its old name is new content: a page of its own."""
    a, b, old, new, buffer = _renamed_under_bobs_editor(tmp_path, brain_tree, pg_url)
    (b / old).write_bytes(b"# Ana Lima (the other one)\n\nA designer bob met in Lisbon.\n")
    r = _sync(pg_url, b, "--json")
    assert r.returncode == 0, r.stdout + r.stderr
    assert (b / old).exists() and b"Lisbon" not in (b / new).read_bytes()
    with Brain.open(pg_url) as br:
        assert br.page_row("people/ana-lima") is not None


@pytest.mark.engine_free
def test_a_new_note_from_the_same_template_at_a_renamed_pages_old_name_is_a_page_of_its_own(tmp_path, brain_tree, pg_url):
    """Notes made from one template look alike (0.76 by the move pairing's measure): a new
    meeting note written at the old name of a meeting note a teammate renamed a moment before is
    a new note, not a late save of the old one (which would have put the new meeting's text into
    the renamed page)."""
    a, b = _two_folders(tmp_path, brain_tree, pg_url)
    old, new = "meetings/notes.md", "meetings/2026-12-01 notes.md"
    (a / "meetings").mkdir(exist_ok=True)
    first = "# Meeting notes\n\n## Attendees\n- Ana\n- Bruno\n\n## Agenda\n- Q3 plan\n\n## Decisions\n- ship it\n\n## Action items\n- Ana: deck\n"
    (a / old).write_text(first)
    assert _sync(pg_url, a).returncode == 0 and _sync(pg_url, b).returncode == 0
    (a / old).rename(a / new)
    assert _sync(pg_url, a).returncode == 0 and _sync(pg_url, b).returncode == 0
    assert not (b / old).exists() and (b / new).read_text() == first
    second = "# Meeting notes\n\n## Attendees\n- Carol\n\n## Agenda\n- hiring\n\n## Decisions\n- open a role\n\n## Action items\n- Carol: job post\n"
    (b / old).write_text(second)
    r = _sync(pg_url, b, "--json")
    assert r.returncode == 0, r.stdout + r.stderr
    assert (b / old).read_text() == second and (b / new).read_text() == first
    assert gbrain("--db", pg_url, "get", "meetings/2026-12-01 notes").stdout.decode() == first
    assert gbrain("--db", pg_url, "get", "meetings/notes").stdout.decode() == second


@pytest.mark.engine_free
def test_only_the_sync_of_the_folder_that_renamed_the_note_counts_the_links_left_dangling(tmp_path, brain_tree, pg_url):
    """Trial 34 (finding 5): the sync whose file only followed alice's rename (bob's late save
    at the old name) said "N link(s) … still name a moved page" too, as if the move were his.
    alice's sync, which made the move, says it; bob's, which followed it, does not (its move is
    marked ``follows_rename`` in the report)."""
    a, b = _two_folders(tmp_path, brain_tree, pg_url)
    old, new = "people/ana-lima.md", "people/ana-lima-cruz.md"
    buffer = (b / old).read_bytes()
    (a / old).rename(a / new)
    r = _sync(pg_url, a, "--json")
    assert r.returncode == 0 and json.loads(r.stdout).get("renamed_links", {}).get("links"), r.stdout
    r = _sync(pg_url, b)
    assert r.returncode == 0 and (b / new).exists() and not (b / old).exists(), r.stdout + r.stderr
    (b / old).write_bytes(buffer + b"\nbob's line from the open buffer\n")
    r = _sync(pg_url, b, "--json")
    rep = json.loads(r.stdout)
    assert r.returncode == 0 and rep["moved"] == [{"from": old, "to": new, "follows_rename": True}], r.stdout
    assert "renamed_links" not in rep, rep["renamed_links"]


@pytest.mark.engine_free
def test_a_late_save_never_replaces_a_save_landing_at_the_new_name_after_the_check(tmp_path, brain_tree, pg_url, monkeypatch):
    """The late save followed the rename with a plain ``os.replace`` after hashing the new name's
    file: a save landing there between the hash and the replace was clobbered unseen. Now the
    move goes in only over the file hashed (``exporter._swap_in``): the save landing meanwhile
    stays at the new name, bob's late save at the old one, and neither is lost."""
    from gbrain.sync import exporter

    a, b, old, new, buffer = _renamed_under_bobs_editor(tmp_path, brain_tree, pg_url)
    late = buffer + b"\nbob's line from the open buffer\n"
    (b / old).write_bytes(late)
    other = (b / new).read_bytes() + b"\nsaved at the new name meanwhile\n"
    hit: list = []

    def hook(target: str) -> None:
        if target == str(b / new) and not hit:
            hit.append(target)
            t = b / "people" / ".swp-tmp"
            t.write_bytes(other)
            t.rename(b / new)
    monkeypatch.setattr(exporter, "before_swap", hook)
    with Brain.open(pg_url) as br:
        eng = SyncEngine(br, b)
        eng.bind()
        eng.sync()
        assert hit, "the late save did not go through the checked move"
        assert (b / new).read_bytes() == other and (b / old).read_bytes() == late
        assert not [p for p in (b / "people").iterdir() if p.name.startswith(".gbrain-tmp-")]
        eng.sync()
        eng.sync()
        held = [p.read_bytes() for p in (b / "people").iterdir() if p.is_file()]
        held += [r[0].encode() if isinstance(r[0], str) else bytes(r[0]) for r in br.conn.execute("SELECT compiled_truth FROM pages")]
        assert any(b"saved at the new name meanwhile" in t for t in held)
        assert any(b"bob's line from the open buffer" in t for t in held)
        eng.close()


def test_an_edit_held_back_while_the_move_reached_the_folder_follows_the_move(synced):
    """Trial 49: bob kept typing into a note while alice ran ``gbrain move`` on it. watch's
    brain → file round leaves a note written since it was synced alone (``Watcher._unsettled``)
    and wrote the renamed page at its new path as a new file; the held note's own round then
    found its page gone ("deleted in the brain but changed on disk") and put it back under the
    old name: two pages, bob's later lines in one, the move in the other. Now the edit follows
    the move as an edit made offline does (the new path's file still held what the round wrote)."""
    brain, eng, tree = synced
    old, new = "people/ana-lima.md", "people/ana-lima-moved.md"
    base = (tree / old).read_bytes()
    (tree / old).write_bytes(base + b"\nbob's line typed while the move ran\n")
    brain.move_page("people/ana-lima", "people/ana-lima-moved")
    eng.reconcile(log_paths={new})  # the log's round, the held note left out (watch's _log_round)
    assert (tree / new).read_bytes() == base and (tree / old).exists()
    out = eng.reconcile(paths={old})  # the held note's round once its events settle
    assert not out.conflicts, out.conflicts
    assert not (tree / old).exists(), sorted(p.name for p in (tree / "people").iterdir())
    text = (tree / new).read_bytes()
    assert text == base + b"\nbob's line typed while the move ran\n", text
    assert brain.page_row("people/ana-lima") is None
    assert brain.page_row("people/ana-lima-moved")["content_hash"] == hashlib.sha256(text).hexdigest()
    assert eng.sync()["exit_code"] == 0


def _edit_followed_the_move(brain, eng, tree, buf: bytes, typed: int) -> bytes:
    """An editor's note ``notes/short.md`` of ``buf`` synced (beside ``notes/other.md``: the folder
    stays), ``typed`` lines typed into it (``typed line K``) while the brain moved its page to
    ``archive/short``; the log's round, then the held note's: its edit followed the move (the old
    path gone, the new one the typed buffer). Returns the buffer, as the editor still holds it."""
    old, new = "notes/short.md", "archive/short.md"
    (tree / "notes").mkdir(exist_ok=True)
    (tree / old).write_bytes(buf)
    (tree / "notes" / "other.md").write_bytes(b"# Other\n")  # the folder stays
    assert eng.sync()["exit_code"] == 0
    for k in range(typed):
        buf += b"typed line %d\n" % k
    (tree / old).write_bytes(buf)
    brain.move_page("notes/short", "archive/short")
    eng.reconcile(log_paths={new})
    eng.reconcile(paths={old})
    assert not (tree / old).exists() and (tree / new).read_bytes() == buf
    return buf


def _assert_late_save_follows(brain, eng, tree, buf: bytes) -> None:
    """The editor of :func:`_edit_followed_the_move` saves ``buf`` at the old path again: its
    round takes it into the moved page (no conflict, no page at the old name, the new path's
    file ``buf``), and a sync after finds nothing to do."""
    old, new = "notes/short.md", "archive/short.md"
    (tree / old).write_bytes(buf)  # the editor's next save, at the path it opened
    out = eng.reconcile(paths={old})
    assert not out.conflicts, out.conflicts
    assert not (tree / old).exists(), sorted(p.name for p in (tree / "notes").iterdir())
    assert (tree / new).read_bytes() == buf
    assert brain.page_row("notes/short") is None
    assert eng.sync()["exit_code"] == 0


def test_an_editor_saving_again_at_the_old_name_after_its_edit_followed_the_move_follows_it_too(synced):
    """Trial 49: after the held note followed the move (above), bob's editor, still open on the
    old path, saved its whole buffer there again with one more line. Its text was scored only
    against the old name's versions, which lacked the lines the follow brought (a short note:
    under LATE_SAVE_MIN), so it became a new page of the old name beside the moved one. The
    renamed page's text now counts as a version the save may be based on."""
    brain, eng, tree = synced
    buf = _edit_followed_the_move(brain, eng, tree, b"# Short\n\nA short note.\n", 4)
    buf += b"typed line 4\n"
    _assert_late_save_follows(brain, eng, tree, buf)
    assert brain.page_row("archive/short")["content_hash"] == hashlib.sha256(buf).hexdigest()


@pytest.mark.parametrize("exported", [True, False], ids=["exported", "not-yet"])
@pytest.mark.parametrize("edit", [True, False], ids=["own-line", "same-buffer"])
def test_an_editor_saving_again_at_the_old_name_never_drops_a_line_a_teammate_added_after_the_move(synced, db_path, edit, exported):
    """Review of trial 49's fix: the late save (above) was scored against the renamed page's text
    as it is now, and when that scored best it was merged as if based on it, so a line a teammate
    added to the moved page after the editor's last read counted as the save's own deletion and
    left the page (kept in the history only). The editor, open on a path the file left, can only
    have read the old name's versions or what this folder's own sync wrote at the new name: the
    base is the closest of those, and the teammate's line stays beside the editor's (an unchanged
    buffer saved again, vim's :w or an autosave, was taken as undoing the teammate's line)."""
    brain, eng, tree = synced
    old, new = "notes/short.md", "archive/short.md"
    buf = _edit_followed_the_move(brain, eng, tree, b"# Short\n\nA short note.\n", 30)
    mate = "the teammate's line"
    r = gbrain("--db", str(db_path), "put", "archive/short", "--replace", json.dumps({"typed line 29\n": f"typed line 29\n{mate}\n"}))
    assert r.returncode == 0, r.stderr
    assert mate in render_row(brain.page_row("archive/short"))
    if exported:  # watch/sync brought it to the file before the editor saved
        assert eng.sync()["exit_code"] == 0 and mate in (tree / new).read_text()
    late = buf.replace(b"A short note.\n", b"A short note.\nThe editor's own line.\n") if edit else buf  # (vim :w, an autosave)
    (tree / old).write_bytes(late)  # the editor's buffer: read before the teammate's line
    out = eng.reconcile(paths={old})
    text = render_row(brain.page_row("archive/short"))
    assert ("The editor's own line." in text or not edit) and mate in text, (text, out.conflicts, out.warnings)
    assert brain.page_row("notes/short") is None
    assert eng.sync()["exit_code"] == 0
    assert (tree / new).read_text() == text


@pytest.mark.parametrize("typed", [1, 25])
def test_an_editor_typing_fast_at_the_old_name_after_its_edit_followed_the_move_follows_it(synced, typed):
    """Trial 49 (left then): an editor saving every 100 ms keeps typing after its held edit
    followed the move; by its next save at the old path the buffer had 20+ lines more than any
    version it was scored against, under LATE_SAVE_MIN by likeness, and it became a new page of
    the old name (nothing lost, the note forked). A save holding a candidate version whole, every
    line in order, is that version plus typing: a late save of it."""
    brain, eng, tree = synced
    buf = _edit_followed_the_move(brain, eng, tree, b"# Short\n\nA short note about the launch plan.\n", 3)
    for k in range(3, 3 + typed):
        buf += b"typed line %d\n" % k
    _assert_late_save_follows(brain, eng, tree, buf)


@pytest.mark.engine_free
def test_holds_whole_takes_a_version_plus_typing_never_a_bare_templates_headings():
    from gbrain.sync.engine import _holds_whole

    note = "# Short\n\nA short note about the launch plan.\ntyped line 0"  # no end to its last line
    assert _holds_whole(note, note + "\nand a new line\n")  # its last line ended by the save
    assert _holds_whole(note, "# Short\n\nintro\nA short note about the launch plan.\nmore\ntyped line 0\n")
    assert not _holds_whole(note, "# Short\n\nA short note about the launch.\ntyped line 0\n")  # a line changed
    assert not _holds_whole(note, note.replace("# Short\n\n", ""))
    template = "# Meeting notes\n\n## Attendees\n\n## Agenda\n"
    assert not _holds_whole(template, template + "- Carol\n- hiring\n")  # every note from it holds it


def _late_save_base(eng, tree, old: str, save: bytes, monkeypatch, score):
    """``SyncEngine._late_save_of`` for a save of ``save`` at ``old``, with the similarity of each
    candidate version's text to the save given by ``score(text)`` (the rules of the pick, not
    the measure, are under test)."""
    import os

    from gbrain.sync import engine

    (tree / old).write_bytes(save)
    st = os.lstat(tree / old)
    f = engine.DiskFile(old, st.st_size, st.st_mtime_ns, hashlib.sha256(save).hexdigest(), save)
    monkeypatch.setattr(engine.sim, "similarity", lambda text, _save: score(text))
    return eng._late_save_of(old, f)


def test_a_late_saves_base_among_the_old_names_versions_is_the_older_on_a_tie_and_the_saved_text_itself(synced, monkeypatch):
    """The pick of the version a late save at a renamed page's old name was based on, among the
    old name's versions (newest first, back to this folder's last save of it: the first text
    here, the later two written through gbrain): on equal scores the older wins (an older base
    only merges more), and a version equal to the save stops the look there (an older version
    scoring as much is not taken)."""
    brain, eng, tree = synced
    old = "notes/tie.md"
    (tree / "notes").mkdir(exist_ok=True)
    (tree / "notes" / "other.md").write_bytes(b"# Other\n")
    texts = [b"# Tie\n\nversion %d\n" % k for k in range(3)]
    (tree / old).write_bytes(texts[0])
    assert eng.sync()["exit_code"] == 0
    for t in texts[1:]:
        brain.put("notes/tie", t.decode())
        assert eng.sync()["exit_code"] == 0 and (tree / old).read_bytes() == t
    brain.move_page("notes/tie", "archive/tie")
    sha = lambda b: hashlib.sha256(b).hexdigest()  # noqa: E731
    hit = _late_save_base(eng, tree, old, b"# Tie\n\nversion 2\nmore\n", monkeypatch, lambda t: 0.9)
    assert hit == ("archive/tie.md", sha(texts[0]), hit[2])
    hit = _late_save_base(eng, tree, old, texts[1], monkeypatch, lambda t: 0.9)
    assert hit[1] == sha(texts[1])
    # below LATE_SAVE_MIN everywhere: new content, no base
    assert _late_save_base(eng, tree, old, b"# Tie\n\nelse\n", monkeypatch, lambda t: 0.5) is None


def test_a_late_saves_base_among_the_renamed_pages_versions_is_one_this_folders_file_gave(synced, monkeypatch):
    """When no version of the old name is alike enough, the base is looked for among the renamed
    page's versions since the rename that came from this folder's file: a write through gbrain
    (here a timeline entry) is never the base however alike, and on equal scores the older wins."""
    brain, eng, tree = synced
    old, new = "notes/tie.md", "archive/tie.md"
    (tree / "notes").mkdir(exist_ok=True)
    (tree / "notes" / "other.md").write_bytes(b"# Other\n")
    first = b"# Tie\n\nthe first text\n"
    (tree / old).write_bytes(first)
    assert eng.sync()["exit_code"] == 0
    brain.move_page("notes/tie", "archive/tie")
    assert eng.sync()["exit_code"] == 0 and (tree / new).read_bytes() == first
    edits = [first + b"edit %d\n" % k for k in range(2)]
    for t in edits:
        (tree / new).write_bytes(t)
        assert eng.sync()["exit_code"] == 0
    brain.timeline_add("archive/tie", "2026-12-05", "through gbrain", "agent")
    sha = lambda b: hashlib.sha256(b).hexdigest()  # noqa: E731
    decoded = {t.decode() for t in edits}
    # the gbrain write and the old name's text score highest, the file's two edits tie
    hit = _late_save_base(eng, tree, old, edits[1] + b"saved\n", monkeypatch,
                          lambda t: 0.9 if t in decoded else (0.5 if t == first.decode() else 1.0))
    assert hit is not None and hit[:2] == (new, sha(edits[0]))
    hit = _late_save_base(eng, tree, old, edits[1] + b"saved\n", monkeypatch,
                          lambda t: {edits[1].decode(): 0.95, edits[0].decode(): 0.9}.get(t, 0.5 if t == first.decode() else 1.0))
    assert hit is not None and hit[:2] == (new, sha(edits[1]))


def test_a_new_note_from_a_template_at_a_renamed_pages_old_name_never_follows_the_rename(synced):
    """Review of eef42c2 (a late save holding a version whole follows the rename): a note made
    from a template (its frontmatter line tells, 16 characters and no heading) was saved bare,
    then filled in; an agent filed it under another name; the person made the next note at the
    same name from the same template. It holds the bare template, the old name's first version,
    whole, so it was taken for a late save of the filed note and replaced it (the filed meeting a
    conflict copy, the new note gone from its path); its bare first save, equal to that version,
    followed the rename too (the likeness rule). An editor's buffer holds what the file last held
    (the old name's versions back to this folder's last save of it), never an older version."""
    brain, eng, tree = synced
    old = "inbox/untitled.md"
    (tree / "inbox").mkdir(exist_ok=True)
    (tree / "inbox" / "keep.md").write_bytes(b"# Keep\n")
    template = b"---\ntype: meeting-note\n---\n# Meeting\n\n## Attendees\n\n## Notes\n"
    (tree / old).write_bytes(template)
    assert eng.sync()["exit_code"] == 0
    first = template.replace(b"## Attendees\n", b"## Attendees\n- Ana\n- Bruno\n") + b"- Q3 plan approved by the board\n- Bruno to send the deck\n"
    (tree / old).write_bytes(first)
    assert eng.sync()["exit_code"] == 0
    brain.move_page("inbox/untitled", "meetings/q3-kickoff")
    assert eng.sync()["exit_code"] == 0
    assert not (tree / old).exists() and (tree / "meetings" / "q3-kickoff.md").read_bytes() == first
    (tree / old).write_bytes(template)  # the template plugin's first save (the likeness rule: 1.0)
    out = eng.reconcile(paths={old})
    assert (tree / old).read_bytes() == template, ((tree / "meetings" / "q3-kickoff.md").read_text(), out.warnings)
    second = template.replace(b"## Attendees\n", b"## Attendees\n- Carol\n- Dan\n- Eve\n") + (
        b"- hiring plan for the support team\n- open two roles in January\n- Carol writes the job posts\n- budget from the ops line\n")
    (tree / old).write_bytes(second)
    out = eng.reconcile(paths={old})
    assert (tree / old).exists(), ((tree / "meetings" / "q3-kickoff.md").read_text(), out.warnings, out.conflicts)
    assert (tree / old).read_bytes() == second, out.warnings
    assert (tree / "meetings" / "q3-kickoff.md").read_bytes() == first
    assert render_row(brain.page_row("inbox/untitled")).encode() == second
    assert render_row(brain.page_row("meetings/q3-kickoff")).encode() == first
    assert eng.sync()["exit_code"] == 0
