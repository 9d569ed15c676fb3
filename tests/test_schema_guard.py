"""A process older than its brain's schema writes nothing (trial14: the mixed-version team).

A CLI command checks the schema when it opens the brain ("database schema vN is newer than this
gbrain"), but a process that opened the brain before a newer gbrain upgraded it (a `watch`, a
`serve`) went on writing pages with its old rules: derived rows no fresh import makes, on
Postgres as on SQLite. The page and file tables now refuse a write whose process's gbrain is
older than the brain's schema (SQLite: ``gb_schema()`` against ``user_version``; Postgres: the
session's ``gbrain.schema`` against ``gbrain_schema``), and a gbrain from before the guard, which
declares no version, is refused too."""
from __future__ import annotations

import sqlite3

import pytest

from gbrain import operations as ops
from gbrain.core.brain import Brain
from gbrain.errors import GBrainError
from gbrain.storage import db as dbmod
from gbrain.storage import pg
from gbrain.storage.db import is_url
from gbrain.sync.verify import fresh_import_differences
from conftest import writable_by_this_gbrain

PAGE = "---\ntitle: Team Notes\n---\n# Team Notes\n\nWritten before the upgrade. See [[Other]].\n"
OTHER = "# Other\n\nThe other page.\n"


def run(b, name, **args):
    return ops.run(name, args, ops.Context(surface="cli"), brain=b)


def versions(b, slug: str) -> int:
    return run(b, "history", slug=slug, limit=0)["total"]


def open_as_older(monkeypatch, db_path) -> Brain:
    """The brain opened (and made) by a gbrain one schema version older than this one; the
    connection stays open, as a long-running `watch` or `serve` holds it."""
    with monkeypatch.context() as m:
        m.setattr(dbmod, "MIGRATIONS", dbmod.MIGRATIONS[:-1])
        m.setattr(dbmod, "SCHEMA_VERSION", dbmod.SCHEMA_VERSION - 1)
        m.setattr(pg, "PG_SCHEMA_VERSION", pg.PG_SCHEMA_VERSION - 1)
        old = Brain.open(db_path, create=True)
        writable_by_this_gbrain(old.conn)  # (the columns a later version adds, which this code's saves write)
        run(old, "put", slug="notes/team", content=PAGE)
        run(old, "put", slug="notes/other", content=OTHER)
    return old


@pytest.mark.pg_empty  # made one version back by this test
def test_a_process_that_opened_the_brain_before_an_upgrade_writes_nothing_after_it(db_path, monkeypatch):
    old = open_as_older(monkeypatch, db_path)
    try:
        with Brain.open(db_path) as new:  # a teammate's newer gbrain: migrates
            assert new.get_text("notes/team") == PAGE
            for name, args in (("put", {"slug": "notes/team", "content": PAGE + "\nAn edit by the old process.\n"}),
                               ("put", {"slug": "notes/new-by-old", "content": "# New\n"}),
                               ("tag", {"slug": "notes/team", "tag": "old"}),
                               ("delete", {"slug": "notes/other"})):
                with pytest.raises(GBrainError, match="newer than this gbrain") as e:
                    run(old, name, **args)
                assert "upgrade gbrain" in str(e.value), str(e.value)
            # nothing written: the pages, their versions and the derived rows are as before
            assert new.get_text("notes/team") == PAGE
            assert new.get_text("notes/other") == OTHER
            assert new.page_row("notes/new-by-old") is None
            assert versions(new, "notes/team") == 1 and versions(new, "notes/other") == 1
            # the newer gbrain writes as usual, and the brain equals a fresh import of its tree
            run(new, "put", slug="notes/team", content=PAGE + "\nAn edit by the new gbrain.\n")
            assert versions(new, "notes/team") == 2
            assert fresh_import_differences(new) == {}
    finally:
        old.close()


@pytest.mark.pg_empty
def test_a_gbrain_from_before_the_guard_is_refused_too(db_path):
    """A gbrain released before the guard declares no version (no ``gb_schema`` function on
    SQLite, no ``gbrain.schema`` setting on Postgres): its page writes are refused."""
    with Brain.open(db_path, create=True) as b:
        run(b, "put", slug="notes/team", content=PAGE)
    if is_url(db_path):
        import psycopg

        with psycopg.connect(db_path) as c, pytest.raises(psycopg.Error, match="newer than this gbrain"):
            c.execute("UPDATE pages SET compiled_truth = 'x', content_hash = 'x' WHERE slug = 'notes/team'")
    else:
        from gbrain.core.history import keep, pack
        from gbrain.storage.origin import sql_field

        c = sqlite3.connect(db_path)  # as a gbrain of v24–v27 connects: the history functions only
        c.create_function("gb_pack", 2, pack, deterministic=True)
        c.create_function("gb_keep", 2, keep, deterministic=True)
        c.create_function("gb_origin", 1, sql_field)
        with pytest.raises(sqlite3.OperationalError, match="gb_schema"):
            c.execute("UPDATE pages SET compiled_truth = 'x', content_hash = 'x' WHERE slug = 'notes/team'")
        c.close()
    with Brain.open(db_path) as b:
        assert b.get_text("notes/team") == PAGE and versions(b, "notes/team") == 1


@pytest.mark.pg_empty
def test_an_upgrade_of_a_big_brain_is_said_before_it_runs(db_path, monkeypatch):
    """trial14: a 7,471-page brain made by the gbrain of schema v4 took 36 s (16 CPU-s, load 5.6)
    to open with this one, and the command said nothing meanwhile. A brain of
    ``UPGRADE_NOTE_PAGES`` pages or more now gets one note on stderr before its upgrade runs;
    the next command, with nothing to upgrade, says nothing."""
    from conftest import gbrain_in_process

    monkeypatch.setenv("GBRAIN_DB", str(db_path))
    open_as_older(monkeypatch, db_path).close()  # two pages, one version back
    monkeypatch.setattr(dbmod, "UPGRADE_NOTE_PAGES", 2)
    r = gbrain_in_process("stats")
    want = f"note: upgrading the brain from schema v{dbmod.SCHEMA_VERSION - 1} to v{dbmod.SCHEMA_VERSION} (2 pages"
    if is_url(db_path):  # (written whole: the engines' numbers may be one apart, 39 to 40)
        want = f"note: upgrading the brain from schema (Postgres) v{pg.PG_SCHEMA_VERSION - 1} to v{pg.PG_SCHEMA_VERSION} (2 pages"
    assert r.returncode == 0 and want in r.stderr.decode(), r.stderr.decode()
    r = gbrain_in_process("stats")
    assert r.returncode == 0 and "upgrading" not in r.stderr.decode(), r.stderr.decode()


@pytest.mark.pg_empty
def test_an_upgrade_of_a_small_brain_says_nothing(db_path, monkeypatch):
    from conftest import gbrain_in_process

    monkeypatch.setenv("GBRAIN_DB", str(db_path))
    open_as_older(monkeypatch, db_path).close()
    r = gbrain_in_process("stats")
    assert r.returncode == 0 and "upgrading" not in r.stderr.decode(), r.stderr.decode()
    with Brain.open(db_path) as b:  # (it was upgraded)
        v = pg.schema_version(b.conn) if is_url(db_path) else b.conn.execute("PRAGMA user_version").fetchone()[0]
        assert v == (pg.PG_SCHEMA_VERSION if is_url(db_path) else dbmod.SCHEMA_VERSION)


@pytest.mark.sqlite_only("Postgres applies every pending version in one transaction; SQLite one transaction per version")
def test_an_older_process_cannot_write_between_two_steps_of_an_upgrade(db_path, monkeypatch):
    """SQLite upgrades a brain one version per transaction: a process of the brain's old version
    that wrote between two steps saved a page with its old rules into a half-upgraded brain
    (the later steps re-derive only the pages they select). The guard is in place before the
    first step runs, so such a write is refused like one after the upgrade."""
    with monkeypatch.context() as m:
        m.setattr(dbmod, "MIGRATIONS", dbmod.MIGRATIONS[:-2])
        m.setattr(dbmod, "SCHEMA_VERSION", dbmod.SCHEMA_VERSION - 2)
        old = Brain.open(db_path, create=True)
        writable_by_this_gbrain(old.conn)  # (the columns a later version adds, which this code's saves write)
        run(old, "put", slug="notes/team", content=PAGE)
    begin, calls, said = dbmod.begin_write, [], []

    def between_steps(conn):
        calls.append(conn)
        if len(calls) == 2:  # the second step's transaction: the first step has committed
            try:
                run(old, "put", slug="notes/team", content=PAGE + "\nWritten between two steps.\n")
            except GBrainError as e:
                said.append(str(e))
        begin(conn)

    try:
        monkeypatch.setattr(dbmod, "begin_write", between_steps)
        with Brain.open(db_path) as new:
            monkeypatch.setattr(dbmod, "begin_write", begin)
            assert len(said) == 1 and "newer than this gbrain" in said[0], said
            assert new.get_text("notes/team") == PAGE and versions(new, "notes/team") == 1
            assert fresh_import_differences(new) == {}
    finally:
        old.close()


@pytest.mark.engine_free
def test_a_watch_older_than_the_brain_stops_at_its_rescan_saying_why(pg_url, monkeypatch, tmp_path):
    """Team trial 34: a teammate's newer gbrain upgraded the Postgres brain while three watches
    ran; each logged `warning: the brain is busy (database schema v48 (Postgres) is newer than
    this gbrain (46); upgrade gbrain …); rescan skipped` at every rescan and ran on (the brain
    is not busy, and the README says such a watch stops with that line). Only a locked or busy
    brain is a rescan skipped; the newer schema stops the watch, as a batch's write does."""
    import threading
    import time

    from gbrain.sync.engine import RACY_NS, SyncEngine
    from gbrain.sync.watch import Watcher

    old = open_as_older(monkeypatch, pg_url)
    folder = tmp_path / "vault"
    folder.mkdir()
    first = SyncEngine(old, folder)  # in sync before the watch starts: it writes no file, so no
    first.bind()                     # event or change reaches a batch, only the rescan runs
    assert first.sync()["ok"]
    first.close()
    # the files older than the racy second (engine.RACY_NS): the watch's first sync records their
    # stats as trusted, so its rescans have nothing to write (under load the first sync came that
    # late by itself, and the watch ran on: 7 of 14 runs at load 20)
    time.sleep(RACY_NS / 1e9 + 0.2)
    lines: list[str] = []
    w = Watcher(old, folder, log=lines.append, rescan=0.2)

    upgraded: list[float] = []  # when the upgrade began and ended (monotonic seconds)

    def ready(_summary):
        upgraded.append(time.monotonic())
        Brain.open(pg_url).close()  # a teammate's newer gbrain: upgrades the brain
        upgraded.append(time.monotonic())

    guard = threading.Timer(120, w.stop)  # a watch that runs on is stopped: the test fails, it never hangs
    guard.start()
    err = None
    try:
        w.run(ready=ready)
    except (GBrainError, sqlite3.Error) as e:
        err = e
    finally:
        guard.cancel()
        upgraded.append(time.monotonic())
        old.close()
    took = [round(t - upgraded[0], 1) for t in upgraded]  # seconds: the upgrade's start, its end, the watch's stop
    assert err is not None and "newer than this gbrain" in str(err), (err, took, lines)
    assert not [s for s in lines if "busy" in s], lines


def test_a_brain_newer_than_this_gbrain_is_named_in_the_refusal(db_path, tmp_path):
    """Trial 59: `database schema v71 is newer than this gbrain (v70); upgrade gbrain` named no
    brain, unlike every other storage error (the disk holding X is full, X is read-only, …): a
    user with several brains could not tell which. The refusal names it: the path as given (a
    relative one stays relative), a Postgres URL without its password."""
    from pathlib import Path

    import gbrain as package
    from conftest import gbrain

    here = {"PYTHONPATH": str(Path(package.__file__).parent.parent)}  # this gbrain, from another folder too
    with Brain.open(db_path, create=True) as b:
        run(b, "put", slug="notes/team", content=PAGE)
        if is_url(db_path):
            b.conn.execute("INSERT INTO gbrain_schema(version) VALUES (?)", (pg.PG_SCHEMA_VERSION + 5,))
        else:
            b.conn.execute(f"PRAGMA user_version = {dbmod.SCHEMA_VERSION + 5}")
    if is_url(db_path):  # a password in the URL (the test server trusts, so any will do): never shown
        given, cwd = db_path + ("&" if "?" in db_path else "?") + "password=sekrit-59", None
        shown = pg.redact(given)
        assert "sekrit-59" not in shown
    else:
        given, cwd = "brain.db", str(db_path.parent)
        shown = "of brain.db is newer"
    for cmd in (("stats",), ("get", "notes/team"), ("put", "notes/x", "--content", "x")):
        r = gbrain("--db", given, *cmd, cwd=cwd, env=here)
        err = r.stderr.decode()
        assert r.returncode == 1 and "newer than this gbrain" in err and "upgrade gbrain" in err, err
        assert shown in err and "sekrit-59" not in err and (is_url(db_path) or str(db_path.parent) not in err), err
