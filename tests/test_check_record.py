"""The database check (SQLite quick_check, O(file size)) of a mutating command: ``sync`` runs it
beside the walk of the folder, every write waits for its answer, a damaged file fails the
command; a command that writes nothing on a file exactly as a passing check left it (same inode,
size, mtime, ctime of the file and its WAL) is not checked again (issue 14: the no-change
``gbrain sync`` at 50,000 pages spent 0.5 of its 1.0 CPU-s re-reading a 560 MB file)."""
from __future__ import annotations

import os
import time

import pytest

from gbrain import operations as ops
from gbrain.core.brain import Brain
from gbrain.errors import Damaged
from gbrain.storage import db as dbmod
from gbrain.sync import engine as engmod

pytestmark = pytest.mark.sqlite_only


@pytest.fixture
def counted(monkeypatch):
    """Count quick_check runs; ``state["damaged"]`` makes the next ones answer "damaged"."""
    state = {"n": 0, "damaged": None}
    real = dbmod.quick_check

    def qc(conn):
        state["n"] += 1
        return state["damaged"] or real(conn)

    monkeypatch.setattr(dbmod, "quick_check", qc)
    monkeypatch.setattr(dbmod, "RACY_NS", 0)  # the test's files are all fresh
    monkeypatch.setattr(engmod, "RACY_NS", 0)  # (else every round re-records the just-copied files)
    return state


def sync(db, tree) -> dict:
    return ops.run("sync", {"dir": str(tree)}, ops.Context(db=str(db)))


def settle(db, tree) -> None:
    """Sync until a round writes nothing and leaves the file as its check recorded it."""
    for _ in range(4):
        assert sync(db, tree)["ok"]
        if dbmod.checked_as_is(db):
            return
    raise AssertionError("the brain never settled")


def touch_bytes(db) -> None:
    """Write the file's first page back unchanged (a write by something else: the ctime moves)."""
    before = dbmod.file_state(db)
    while dbmod.file_state(db) == before:  # a new ctime needs the clock to tick
        with open(db, "r+b") as f:
            data = f.read(4096)
            f.seek(0)
            f.write(data)
        time.sleep(0.005)


def test_a_no_change_sync_is_not_checked_again_on_a_file_as_checked(tmp_path, brain_tree, counted):
    db = tmp_path / "b.db"
    settle(db, brain_tree)
    n = counted["n"]
    assert n >= 1
    rep = sync(db, brain_tree)
    assert rep["ok"] and not any(rep["counts"].values())
    assert counted["n"] == n  # nothing written, the file as the last check left it
    # a change to write: checked before the write, whatever the record says
    p = brain_tree / "people" / "ana-lima.md"
    p.write_bytes(p.read_bytes() + b"\nOne more line.\n")
    assert sync(db, brain_tree)["counts"]["imported"] == 1
    assert counted["n"] == n + 1


def test_a_file_written_by_something_else_is_checked_again(tmp_path, brain_tree, counted):
    db = tmp_path / "b.db"
    settle(db, brain_tree)
    touch_bytes(db)
    assert not dbmod.checked_as_is(db)
    counted["damaged"] = "quick_check: *** in database main *** Page 7: btreeInitPage() returns error code 11"
    with pytest.raises(Damaged):
        sync(db, brain_tree)  # no change to write: still refused, as when checked first


def test_a_damaged_file_is_never_written_by_sync(tmp_path, brain_tree, counted):
    db = tmp_path / "b.db"
    settle(db, brain_tree)
    p = brain_tree / "people" / "ana-lima.md"
    with Brain.open(db) as b:
        stored = b.conn.execute("SELECT content_hash FROM pages WHERE path = ?", ("people/ana-lima.md",)).fetchone()[0]
    p.write_bytes(p.read_bytes() + b"\nOne more line.\n")
    touch_bytes(db)
    counted["damaged"] = "quick_check: *** in database main *** Page 7: btreeInitPage() returns error code 11"
    with pytest.raises(Damaged):
        sync(db, brain_tree)
    counted["damaged"] = None
    with Brain.open(db) as b:
        assert b.conn.execute("SELECT content_hash FROM pages WHERE path = ?", ("people/ana-lima.md",)).fetchone()[0] == stored


def test_a_racy_file_is_not_recorded(tmp_path, brain_tree, monkeypatch):
    monkeypatch.setattr(dbmod, "RACY_NS", 10**15)  # every file is "just written"
    db = tmp_path / "b.db"
    sync(db, brain_tree)
    sync(db, brain_tree)
    assert not dbmod.check_record_path(db).exists() and not dbmod.checked_as_is(db)


def test_the_record_is_kept_outside_the_brain_folder(tmp_path, brain_tree, counted):
    db = brain_tree / "brain.db"  # a brain inside the folder it syncs with
    settle(db, brain_tree)
    rec = dbmod.check_record_path(db)
    assert rec.exists() and not str(rec).startswith(str(brain_tree))
    assert not [f for f in os.listdir(brain_tree) if f.startswith("brain.db") and f not in ("brain.db", "brain.db-wal", "brain.db-shm")]
