"""A ``brain.db-wal`` left beside a brain it was not written on (a backup restored, or another
brain's file copied, over a brain whose killed writer left its log): SQLite checks a log against
its own header only (salts, checksums), so it replays such a log into whatever file is there and
the next close checkpoints it in. Since v52 a brain's SQLite header carries its identity
(``PRAGMA application_id``: gbrain's mark, a random brain id and a count of its commits,
``storage/db.py: STAMP_*``) and every write transaction of gbrain moves the count on, so the log's
page 1 tells whose log it is and on which state it began (``db.set_aside_misfit_wal``)."""
from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import gbrain
from gbrain.core.brain import Brain
from gbrain.storage import db as dbmod

pytestmark = pytest.mark.engine_free

CRASH = (
    "import os, sys\nfrom gbrain.core.brain import Brain\nb = Brain.open(sys.argv[1])\n"
    "for i in range(int(sys.argv[2])):\n"
    "    b.put(f'notes/crash{i}', f'# Crash {i}\\n' + 'x' * 300)\n"
    "    if i == int(sys.argv[3]):\n        b.conn.execute('PRAGMA wal_checkpoint(PASSIVE)')\n"
    "os._exit(0)\n"
)
PUT = "import sys\nfrom gbrain.core.brain import Brain\nwith Brain.open(sys.argv[1]) as b:\n    b.put('notes/later', '# Later\\n')\n"


def tree(root: Path, n: int = 20) -> Path:
    root.mkdir(parents=True)
    for i in range(n):
        (root / f"n{i}.md").write_text(f"# N{i}\n\nbody {i} [[n{(i + 1) % n}]]\n", encoding="utf-8")
    return root


def crash_writer(db: Path, puts: int, checkpoint_after: int = -1) -> bytes:
    """A writer killed after ``puts`` committed puts: its log is left beside ``db``."""
    subprocess.run([sys.executable, "-c", CRASH, str(db), str(puts), str(checkpoint_after)], check=True)
    wal = Path(str(db) + "-wal")
    assert wal.stat().st_size > 32
    return wal.read_bytes()


def state(db: Path) -> tuple:
    """What the brain holds, read with SQLite alone (no log beside it)."""
    c = sqlite3.connect(f"file:{db}?immutable=1", uri=True)
    try:
        return (c.execute("PRAGMA integrity_check").fetchall(),
                c.execute("SELECT slug, content_hash FROM pages ORDER BY slug").fetchall(),
                c.execute("SELECT count(*) FROM history").fetchone()[0])
    finally:
        c.close()


def opened_as(tmp_path: Path, db: Path, expect: tuple, log: bytes) -> None:
    """``gbrain check`` sets the log aside with a warning, keeps it whole, and the brain is
    exactly the file that was put there."""
    r = gbrain("check", "--db", str(db))
    said = (r.stdout + r.stderr).decode()
    assert r.returncode == 0 and "set aside" in said and db.name + "-wal" in said, said
    kept = list(tmp_path.glob(db.name + "-wal.misfit-*"))
    assert len(kept) == 1 and kept[0].read_bytes() == log
    assert not Path(str(db) + "-wal").exists() or Path(str(db) + "-wal").stat().st_size == 0
    assert state(db) == expect


def test_a_backup_restored_beside_the_log_of_a_later_state_opens_as_the_backup(tmp_path):
    """A backup (a copy of the closed brain) is restored over a brain whose killed writer left
    its log: one put was made between the backup and the log's start. Before v52 the log was
    replayed onto the backup (quick_check passed: pages of two states mixed, "wrong # of entries
    in index" for integrity_check, and checkpointed into the file)."""
    db = tmp_path / "b.db"
    assert gbrain("import", str(tree(tmp_path / "t")), "--db", str(db)).returncode == 0
    backup = tmp_path / "backup.db"
    shutil.copy(db, backup)
    expect = state(backup)
    subprocess.run([sys.executable, "-c", PUT, str(db)], check=True)
    log = crash_writer(db, 3)
    shutil.copy(backup, db)
    opened_as(tmp_path, db, expect, log)


def test_the_log_of_another_brain_of_the_same_folder_is_not_replayed(tmp_path):
    """Two machines import the same folder, each its own brain; machine A's ``brain.db`` is
    copied over B's, whose killed writer left its log. The same pages in the same order make
    nearly the same file: SQLite replayed B's log into A's file."""
    t = tree(tmp_path / "t")
    a, b = tmp_path / "a" / "brain.db", tmp_path / "brain.db"
    a.parent.mkdir()
    for db in (a, b):
        assert gbrain("import", str(t), "--db", str(db)).returncode == 0
    ids = [dbmod.brain_stamp(sqlite3.connect(str(db)).execute("PRAGMA application_id").fetchone()[0]) for db in (a, b)]
    assert ids[0] is not None and ids[1] is not None
    if ids[0][0] == ids[1][0]:  # 1 in 4,096 share an id: give B another, as it would have had
        c = sqlite3.connect(str(b))
        c.execute(f"PRAGMA application_id = {dbmod.make_stamp((ids[1][0] + 1) % dbmod.STAMP_IDS, ids[1][1])}")
        c.close()
    expect = state(a)
    log = crash_writer(b, 3)
    shutil.copy(a, b)
    opened_as(tmp_path, b, expect, log)


def test_an_older_copy_of_the_same_brain_is_told_from_its_own_newer_log(tmp_path):
    """Machine A got a copy of B's brain, then both wrote; A's file is copied back over B's
    while B's killed writer's log is beside it: the same brain id, another state (told by the
    count of commits: A's three since they parted, B's one; copies that made as many commits
    since, modulo 4,096, are not told apart)."""
    db = tmp_path / "b.db"
    assert gbrain("import", str(tree(tmp_path / "t")), "--db", str(db)).returncode == 0
    a = tmp_path / "a.db"
    shutil.copy(db, a)
    for i in range(3):  # A writes (longer pages than B's: the files differ in size, not only in count)
        subprocess.run([sys.executable, "-c", PUT.replace("later", f"a{i}").replace("\\n'", "\\n' + 'z' * 20000"), str(a)], check=True)
    subprocess.run([sys.executable, "-c", PUT.replace("later", "b-only"), str(db)], check=True)  # B writes
    expect = state(a)
    log = crash_writer(db, 2)
    shutil.copy(a, db)
    opened_as(tmp_path, db, expect, log)


@pytest.mark.parametrize("checkpoint_after", [-1, 1, 3])
def test_a_killed_writers_own_log_is_replayed(tmp_path, checkpoint_after):
    """The log of the brain's own killed writer is its last commits: replayed, nothing set
    aside, no warning; also when a checkpoint had already copied part of it into the file."""
    db = tmp_path / "b.db"
    assert gbrain("import", str(tree(tmp_path / "t")), "--db", str(db)).returncode == 0
    crash_writer(db, 4, checkpoint_after)
    r = gbrain("check", "--db", str(db))
    said = (r.stdout + r.stderr).decode()
    assert r.returncode == 0 and "warning" not in said, said
    assert not list(tmp_path.glob("b.db-wal.misfit-*"))
    with Brain.open(db) as b:
        assert [b.get_text(f"notes/crash{i}") is not None for i in range(4)] == [True] * 4


def test_an_unclean_open_runs_quick_check_once(tmp_path, monkeypatch):
    """An open after a crash read the whole file three times (quick_check with the log, without
    it, then on the brain's connection): once now."""
    db = tmp_path / "b.db"
    assert gbrain("import", str(tree(tmp_path / "t")), "--db", str(db)).returncode == 0
    crash_writer(db, 2)
    calls = []
    real = dbmod.quick_check
    monkeypatch.setattr(dbmod, "quick_check", lambda conn: calls.append(1) or real(conn))
    with Brain.open(db) as b:
        assert b.damaged is None and b.get_text("notes/crash1") is not None
        b.check_sound()
    assert len(calls) == 1


def test_every_brain_carries_gbrains_mark_and_its_commits_move_the_count(tmp_path):
    db = tmp_path / "b.db"
    assert gbrain("import", str(tree(tmp_path / "t", 3)), "--db", str(db)).returncode == 0

    def stamp():
        c = sqlite3.connect(str(db))
        try:
            return dbmod.brain_stamp(c.execute("PRAGMA application_id").fetchone()[0])
        finally:
            c.close()

    before = stamp()
    assert before is not None
    subprocess.run([sys.executable, "-c", PUT, str(db)], check=True)
    after = stamp()
    assert after[0] == before[0] and after[1] == (before[1] + 1) % dbmod.STAMP_COUNTS
    r = gbrain("version", "--db", str(db), "--json")
    assert json.loads(r.stdout)["schema_version"] == dbmod.SCHEMA_VERSION
