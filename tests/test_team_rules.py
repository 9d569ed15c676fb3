"""Rules a team brain (Postgres: one sync client per host:folder) and a one-folder brain (SQLite)
must both follow (issue found by a new-user team trial on Postgres):

* import of a second folder keeps the brain's version of a path it already has (README);
* a path with no base for this folder whose file differs from the brain: the brain's version
  stays the page and is written to the file, the file's version is kept as the conflict copy
  (an old copy of the vault never replaces the team's pages);
* a rename seen by another folder is a move there, not a page in the trash.
"""
from __future__ import annotations

import json
import shutil

from conftest import gbrain

from gbrain.core.brain import Brain
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


def test_an_old_copy_of_the_vault_with_no_base_never_replaces_the_brains_pages(tmp_path, brain_tree, db_path, engine):
    """cp -a bob bob2; a brain-side edit; sync bob2 (no base there): the brain's version stays the
    page and is written to bob2, bob2's stale version is the conflict copy (on disk and in the
    brain), exit 3, nothing lost."""
    db = str(db_path)
    assert _sync(db, brain_tree).returncode == 0
    copy = tmp_path / "bob2"
    shutil.copytree(brain_tree, copy)
    stale = (copy / "people" / "ana-lima.md").read_bytes()
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
    assert gbrain("--db", db, "tag", "people/ana-lima", "brainside").returncode == 0
    r = _sync(db, copy, *(("--rebind",) if engine == "sqlite" else ()))
    out = r.stdout.decode() + r.stderr.decode()
    assert r.returncode == 3 and "CONFLICT: people/ana-lima.md: the brain's version was kept" in out, out


def test_a_first_sync_into_an_empty_brain_has_no_conflicts(tmp_path, brain_tree, db_path):
    r = _sync(str(db_path), brain_tree)
    assert r.returncode == 0 and b"CONFLICT" not in r.stdout + r.stderr


def test_a_rename_in_one_folder_is_a_move_in_the_other_not_a_trashed_page(tmp_path, brain_tree, pg_url):
    """Two folders of one Postgres brain: alice renames a note and syncs; bob's sync moves his file
    (the old name leaves his folder, the new one appears) and the trash stays empty; anything
    the trash lists can be restored by that name."""
    a, b = tmp_path / "alice", tmp_path / "bob"
    shutil.copytree(brain_tree, a)
    b.mkdir()
    assert _sync(pg_url, a).returncode == 0
    assert _sync(pg_url, b).returncode == 0
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
