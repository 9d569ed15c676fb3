"""Faults of issue 11: emptied folders, damaged or read-only databases, full disks, crash
leftovers, hostile export folders and slugs that look like something else."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from conftest import gbrain
from gbrain import operations as ops
from gbrain.core.brain import Brain
from gbrain.errors import GBrainError
from gbrain.sync.engine import MASS_TRASH, MassDeleteRefused, SyncEngine


def notes(root: Path, folder: str, n: int) -> None:
    d = root / folder if folder else root
    d.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        (d / f"n{i}.md").write_text(f"# Note {i}\n\nin {folder or 'root'}\n", encoding="utf-8")


# ---- 2. the empty-folder guard -------------------------------------------------------------


@pytest.mark.parametrize("left", ["nothing", "ds_store", "obsidian"])
def test_root_with_only_non_markdown_left_is_refused_until_confirmed(tmp_path, left):
    root, db = tmp_path / "v", tmp_path / "b.db"
    notes(root, "", MASS_TRASH + 5)
    notes(root, "sub", 3)
    assert gbrain("sync", str(root), "--db", str(db)).returncode == 0
    shutil.rmtree(root)
    root.mkdir()
    if left == "ds_store":
        (root / ".DS_Store").write_bytes(b"\0\0\0\1Bud1")
    elif left == "obsidian":
        (root / ".obsidian").mkdir()
        (root / ".obsidian" / "app.json").write_text("{}")
    r = gbrain("sync", str(root), "--db", str(db))
    err = r.stderr.decode()
    assert r.returncode == 1 and len(err.strip().splitlines()) == 1, err
    assert "every synced note is gone" in err and "--confirm-delete" in err
    with Brain.open(db) as b:
        assert b.stats()["pages"] == MASS_TRASH + 8
        assert b.conn.execute("SELECT COUNT(*) FROM sync_trash").fetchone()[0] == 0
    # the error's own advice works
    r = gbrain("sync", str(root), "--confirm-delete", "--db", str(db))
    assert r.returncode == 0, r.stderr.decode()
    with Brain.open(db) as b:
        assert b.stats()["pages"] == 0
        assert b.conn.execute("SELECT COUNT(*) FROM sync_trash WHERE kind = 'page'").fetchone()[0] == MASS_TRASH + 8


def test_emptied_subfolder_is_refused_but_the_rest_of_the_tree_is_not_blocked_forever(tmp_path):
    """An unmounted sub-volume: `archive/` is an empty folder now, the root still has notes."""
    root, db = tmp_path / "v", tmp_path / "b.db"
    notes(root, "", 4)
    notes(root, "archive/2024", MASS_TRASH + 1)
    with Brain.open(db) as b:
        eng = SyncEngine(b, root)
        eng.bind()
        assert eng.sync()["ok"]
        shutil.rmtree(root / "archive")
        (root / "archive").mkdir()
        (root / "n0.md").unlink()
        with pytest.raises(MassDeleteRefused, match="archive"):
            eng.sync()
        assert b.stats()["pages"] == 4 + MASS_TRASH + 1  # nothing happened, not even n0
        # a partial round (watch) judges the folder by looking at it on disk
        paths = [f"archive/2024/n{i}.md" for i in range(MASS_TRASH + 1)]
        with pytest.raises(MassDeleteRefused):
            eng.reconcile(paths=paths)
        eng.confirm_delete = True
        assert eng.sync()["counts"]["trashed"] == MASS_TRASH + 2
        eng.close()


def test_many_notes_deleted_while_others_stay_in_the_folder_is_not_a_vanished_tree(tmp_path):
    root, db = tmp_path / "v", tmp_path / "b.db"
    notes(root, "", MASS_TRASH + 10)
    with Brain.open(db) as b:
        eng = SyncEngine(b, root)
        eng.bind()
        eng.sync()
        for i in range(MASS_TRASH + 5):
            (root / f"n{i}.md").unlink()
        assert eng.sync()["counts"]["trashed"] == MASS_TRASH + 5
        eng.close()


def test_deleting_the_last_notes_of_a_small_vault_one_by_one_never_gets_stuck(tmp_path):
    root, db = tmp_path / "v", tmp_path / "b.db"
    notes(root, "", 3)
    (root / "pic.png").write_bytes(b"\x89PNG")
    assert gbrain("sync", str(root), "--db", str(db)).returncode == 0
    for f in ["n0.md", "n1.md", "pic.png", "n2.md"]:
        (root / f).unlink()
        r = gbrain("sync", str(root), "--db", str(db))
        assert r.returncode == 0, (f, r.stderr.decode())
    assert sorted(os.listdir(root)) == []
    r = gbrain("sync", str(root), "--db", str(db))  # nothing left to trash: still fine
    assert r.returncode == 0, r.stderr.decode()
