"""The database check (SQLite quick_check, O(file size)) of a mutating command: ``sync`` runs it
beside the walk of the folder, every write waits for its answer, a damaged file fails the
command; a command that writes nothing on a file exactly as a passing check left it (same inode,
size, mtime, ctime of the file and its WAL) is not checked again (issue 14: the no-change
``gbrain sync`` at 50,000 pages spent 0.5 of its 1.0 CPU-s re-reading a 560 MB file)."""
from __future__ import annotations

import json
import os
import time
import types

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


# ---- verify takes the word of a fresh record (issue 14: verify at 2x its read+sha256 floor) --
# The lead's decision: plain `verify` may trust a recorded passing quick_check while the file
# (and WAL) is exactly as that check left it, or as the import of the process that ran it left
# it, and the check is younger than verify_trust_check_hours (24); the report says which.

from gbrain.operations.registry import _report_text  # noqa: E402
from gbrain.sync.importer import import_tree  # noqa: E402


def verify(db, tree, **kw) -> dict:
    return ops.run("verify", {"dir": str(tree), **kw}, ops.Context(db=str(db)))


@pytest.fixture
def checks(monkeypatch):
    """Count quick_check runs (the real clock: no RACY_NS patch); ``state["damaged"]`` makes the
    next ones answer "damaged"."""
    state = {"n": 0, "damaged": None}
    real = dbmod.quick_check

    def qc(conn):
        state["n"] += 1
        return state["damaged"] or real(conn)

    monkeypatch.setattr(dbmod, "quick_check", qc)
    return state


def test_verify_right_after_an_import_takes_its_check_and_says_so(tmp_path, brain_tree, checks):
    db = tmp_path / "b.db"
    assert ops.run("import", {"dir": str(brain_tree)}, ops.Context(db=str(db)))["ok"]
    assert checks["n"] == 1  # the import checks the file once, before its first write, as before
    rec = dbmod.check_record(db)
    assert rec is not None and rec["by"] == "import"  # the state its own commits (and close) left
    rep = verify(db, brain_tree)
    assert rep["ok"] and checks["n"] == 1  # not read again
    assert rep["database_file"]["checked"] == "record" and rep["database_file"]["by"] == "import"
    text = _report_text(rep, {})
    assert f"Database file: passed quick_check at {rep['database_file']['passed_at']}, unchanged since" in text
    assert "--check-db" in text
    # --check-db and --deep check now, and say so
    rep = verify(db, brain_tree, check_db=True)
    assert rep["ok"] and checks["n"] == 2 and rep["database_file"] == {"checked": "now", "check": "quick_check"}
    assert "Database file: quick_check passed, checked now" in _report_text(rep, {})
    rep = verify(db, brain_tree, deep=True)
    assert rep["ok"] and rep["database_file"] == {"checked": "now", "check": "integrity_check"}


def test_verify_checks_a_file_changed_since_its_record_and_finds_it_damaged(tmp_path, brain_tree, checks):
    db = tmp_path / "b.db"
    assert ops.run("import", {"dir": str(brain_tree)}, ops.Context(db=str(db)))["ok"]
    assert dbmod.checked_as_is(db)
    touch_bytes(db)  # something else wrote the file
    checks["damaged"] = "quick_check: *** in database main *** Page 7: btreeInitPage() returns error code 11"
    with pytest.raises(Damaged):
        verify(db, brain_tree)
    assert checks["n"] == 2


def test_verify_checks_when_the_record_is_older_than_the_bound(tmp_path, brain_tree, checks):
    db = tmp_path / "b.db"
    assert ops.run("import", {"dir": str(brain_tree)}, ops.Context(db=str(db)))["ok"]
    path = dbmod.check_record_path(db)
    rec = json.loads(path.read_text())
    rec["at"] -= 25 * 3600 * 10**9  # the check ran 25 hours before the file was left so
    path.write_text(json.dumps(rec))
    assert dbmod.checked_as_is(db) and not dbmod.checked_as_is(db, max_age_s=24 * 3600)
    checks["damaged"] = "quick_check: *** in database main *** Page 7: btreeInitPage() returns error code 11"
    with pytest.raises(Damaged):
        verify(db, brain_tree)
    assert checks["n"] == 2
    # a record without its time (written before records had one) is too old for verify
    rec.pop("at")
    path.write_text(json.dumps(rec))
    assert dbmod.checked_as_is(db) and not dbmod.checked_as_is(db, max_age_s=24 * 3600)


def test_verify_trust_check_hours_sets_the_bound_and_0_checks_every_time(tmp_path, brain_tree, checks):
    db = tmp_path / "b.db"
    with Brain.open(db) as b:
        b.set_config("verify_trust_check_hours", "0")
    assert ops.run("import", {"dir": str(brain_tree)}, ops.Context(db=str(db)))["ok"]
    n = checks["n"]
    assert verify(db, brain_tree)["database_file"]["checked"] == "now" and checks["n"] == n + 1
    with Brain.open(db) as b:
        b.set_config("verify_trust_check_hours", "48")
        with pytest.raises(Exception):
            b.set_config("verify_trust_check_hours", "a day")
    assert ops.run("import", {"dir": str(brain_tree)}, ops.Context(db=str(db)))["ok"]
    path = dbmod.check_record_path(db)
    rec = json.loads(path.read_text())
    rec["at"] -= 25 * 3600 * 10**9
    path.write_text(json.dumps(rec))
    n = checks["n"]
    assert verify(db, brain_tree)["database_file"]["checked"] == "record" and checks["n"] == n


def test_an_import_vouches_only_for_a_file_its_process_found_as_its_check_left_it(tmp_path, brain_tree, checks):
    db = tmp_path / "b.db"
    with Brain.open(db) as b:
        import_tree(b, brain_tree)
        assert dbmod.check_record(db)["by"] == "import"
        touch_bytes(db)  # another writer, after this process's check
        p = brain_tree / "people" / "ana-lima.md"
        p.write_bytes(p.read_bytes() + b"\nOne more line.\n")
        assert import_tree(b, brain_tree)["counts"]["pages_written"] == 1
        assert checks["n"] == 1  # once per process, as before
        assert not dbmod.checked_as_is(db)  # the import's writes stand on no check of the file as it was
    assert not dbmod.checked_as_is(db)  # nor the state its close left
    assert verify(db, brain_tree)["database_file"]["checked"] == "now"


def test_a_write_after_the_import_in_the_same_process_is_not_vouched_for_at_close(tmp_path, brain_tree, checks):
    db = tmp_path / "b.db"
    with Brain.open(db) as b:
        import_tree(b, brain_tree)
        assert dbmod.checked_as_is(db)
        b.put("notes/after", "# After\n")
    assert not dbmod.checked_as_is(db)


def test_a_just_written_file_with_coarse_stamps_is_not_recorded(tmp_path, monkeypatch):
    db = tmp_path / "b.db"
    now = time.time_ns()
    whole = now - now % 1_000_000_000  # stamps of whole seconds, this second
    monkeypatch.setattr(dbmod, "file_state", lambda path, racy_ok=True: [[False, 1, 2, 4096, whole, whole]])
    with monkeypatch.context() as m:  # the clock inside that second, whenever the test runs (the real
        # one crossed into the next second between the two readings now and then: not racy, recorded)
        m.setattr(dbmod, "time", types.SimpleNamespace(time_ns=lambda: whole + dbmod.RACY_NS // 2, sleep=time.sleep))
        assert dbmod.settled_state(db) is None
    fine = now - 3_000_000  # 3 ms ago on a file system of nanosecond stamps: waits, then records
    monkeypatch.setattr(dbmod, "file_state", lambda path, racy_ok=True: [[False, 1, 2, 4096, fine, fine]])
    assert dbmod.settled_state(db) == [[False, 1, 2, 4096, fine, fine]]
    assert time.time_ns() - fine >= dbmod.SETTLE_NS
