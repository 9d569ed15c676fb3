"""A SQLite brain kept inside a folder a file-sync tool (Syncthing, Dropbox) syncs between
machines (trial 52): the tool copies brain.db and its -wal mid-write and makes conflict copies of
them (``brain.sync-conflict-…-DEVICE.db-wal``, ``brain (conflicted copy …).db``). Those copies are
the database's files, never notes: no sync, watch round, import or verify takes them in; and a
sync of such a folder warns to keep the database outside it."""
from __future__ import annotations

import os
import time

import pytest

from gbrain.core.brain import Brain
from gbrain.sync.engine import SyncEngine, conflict_list
from gbrain.sync.scan import db_excludes, scan_tree

pytestmark = pytest.mark.engine_free

COPIES = ("brain.sync-conflict-20261205-095559-AAAAAAA.db", "brain.sync-conflict-20261205-095530-BBBBBBB.db-shm",
          "brain.sync-conflict-20261205-095535-AAAAAAA.db-wal", "brain (conflicted copy 2026-12-05).db-shm",
          "brain (conflicted copy 2026-12-05).db")


def _vault(tmp_path, marker: str | None = ".stfolder"):
    v = tmp_path / "vault"
    (v / "people").mkdir(parents=True)
    (v / "people" / "ana.md").write_text("# Ana\n\nHi.\n")
    if marker:
        (v / marker).mkdir()
    return v


def _stored(brain):
    return {r[0] for r in brain.conn.execute("SELECT path FROM files UNION SELECT path FROM pages")}


def test_conflict_copies_of_the_database_are_never_taken_in(tmp_path):
    v = _vault(tmp_path)
    brain = Brain.open(v / "brain.db")
    eng = SyncEngine(brain, v)
    eng.bind()
    assert eng.sync()["ok"]
    for name in COPIES:
        (v / name).write_bytes(b"SQLite format 3\x00" + os.urandom(64))
    (v / "people" / "brain.sync-conflict-20261205-095559-AAAAAAA.db").write_bytes(b"x")  # another folder's file: not the database's copy
    rep = eng.sync()
    stored = _stored(brain)
    assert not any(p.startswith("brain") for p in stored), stored
    assert "people/brain.sync-conflict-20261205-095559-AAAAAAA.db" in stored
    assert not any(c["path"].startswith("brain") for c in conflict_list(brain)), conflict_list(brain)
    assert rep["exit_code"] != 3 or any(c["path"].startswith("people/") for c in conflict_list(brain))
    # a watch round over the copies' paths (the events of the syncer's writes) takes none in
    eng.reconcile(paths=list(COPIES))
    assert not any(p.startswith("brain") for p in _stored(brain))
    # import and verify leave them out too
    names = {f.path for f in scan_tree(v, exclude_abs=db_excludes(brain.path)).files}
    assert not any(n.startswith("brain") for n in names), names
    assert not any(n.startswith("brain") for n in {f.path for f in scan_tree(v, exclude_abs=db_excludes(brain.path), sizes=False).files})
    eng.close()
    brain.close()


@pytest.mark.parametrize("marker,tool", [(".stfolder", "Syncthing"), (".dropbox.cache", "Dropbox")])
def test_a_database_inside_a_folder_a_sync_tool_syncs_is_warned(tmp_path, marker, tool):
    v = _vault(tmp_path, marker)
    said: list[str] = []
    brain = Brain.open(v / "brain.db")
    eng = SyncEngine(brain, v, warn=said.append)
    eng.bind()
    eng.sync()
    hits = [w for w in said if tool in w and "brain.db" in w]
    assert len(hits) == 1, said
    assert "outside" in hits[0]
    eng.close()
    brain.close()


def test_a_database_outside_the_folder_or_a_folder_no_tool_syncs_is_not_warned(tmp_path):
    for inside, marker in ((False, ".stfolder"), (True, None)):
        base = tmp_path / f"{inside}{marker}"
        base.mkdir()
        v = _vault(base, marker)
        said: list[str] = []
        brain = Brain.open(v / "brain.db" if inside else base / "brain.db")
        eng = SyncEngine(brain, v, warn=said.append)
        eng.bind()
        eng.sync()
        assert not [w for w in said if "outside" in w], said
        eng.close()
        brain.close()
