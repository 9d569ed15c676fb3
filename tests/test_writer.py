"""Who wrote each version: ``history.writer`` (SQLite v16, Postgres v14), on both engines.

A team brain (one Postgres database several machines write, a SQLite file several agents write)
recorded how a version was written (surface, operation, MCP client) but not by whom. Every
history row now carries the writer's identity (``storage/origin.py: identity``: ``$GBRAIN_USER``,
else ``login@host``), written by the history triggers in the writer's own transaction; rows
written before the migration stay '' (unknown). ``history``, ``changes`` and ``trash`` show it
(``by``), ``changes --by`` filters by it, ``gbrain copy`` carries it."""
from __future__ import annotations

import json
import socket
import sqlite3

import pytest

from gbrain import operations as ops
from gbrain.core import history as h
from gbrain.core.brain import Brain
from gbrain.storage import db as dbmod
from gbrain.storage import origin as orig

from conftest import gbrain_in_process as gbrain, writable_by_this_gbrain  # the CLI in this process: each call's
# writer is its env's (gbrain_in_process forgets identity() around each call, as a new process has it);
# test_a_cli_process_without_passwd_entry_or_login_variables_still_writes runs a real process


def out(r) -> str:
    assert r.returncode == 0, r.stderr.decode()
    return r.stdout.decode()


def js(*args, db, env=None):
    return json.loads(out(gbrain(*args, "--json", "--db", str(db), env=env)))


@pytest.fixture
def fresh_identity():
    """identity() is computed once per process: forget it before and after the test."""
    orig.identity.cache_clear()
    yield orig.identity
    orig.identity.cache_clear()


# ---------------------------------------------------------------------------
# the identity
# ---------------------------------------------------------------------------


@pytest.mark.engine_free
def test_identity_is_gbrain_user_else_login_at_short_host(monkeypatch, fresh_identity):
    monkeypatch.setenv("GBRAIN_USER", "alice")
    assert fresh_identity() == "alice"
    monkeypatch.setenv("GBRAIN_USER", "bob@laptop")
    assert fresh_identity() == "alice"  # once per process
    fresh_identity.cache_clear()
    assert fresh_identity() == "bob@laptop"
    monkeypatch.setenv("GBRAIN_USER", "  eve\tthe\nagent \x1b ")  # one line: a tab would split Postgres' gbrain.origin
    fresh_identity.cache_clear()
    assert fresh_identity() == "eve the agent"
    monkeypatch.setenv("GBRAIN_USER", "   ")  # blank: not set
    monkeypatch.setenv("USER", "carol")
    monkeypatch.setenv("LOGNAME", "carol")
    monkeypatch.setattr(socket, "gethostname", lambda: "box.example.org")
    fresh_identity.cache_clear()
    assert fresh_identity() == "carol@box"


@pytest.mark.engine_free
def test_identity_without_a_login_name_is_the_uid(monkeypatch, fresh_identity):
    """A container whose uid has no passwd entry and no login variable: never a crash."""
    import getpass
    import os

    def no_login():
        raise OSError("No username set in the environment")

    monkeypatch.delenv("GBRAIN_USER", raising=False)
    monkeypatch.setattr(getpass, "getuser", no_login)
    monkeypatch.setattr(socket, "gethostname", lambda: "ctr")
    assert fresh_identity() == f"uid{os.getuid()}@ctr"

    def no_host():
        raise OSError("no host name")

    monkeypatch.setattr(socket, "gethostname", no_host)
    fresh_identity.cache_clear()
    assert fresh_identity() == f"uid{os.getuid()}@localhost"


def test_a_cli_process_without_passwd_entry_or_login_variables_still_writes(tmp_path, db_path):
    """The CLI in a process whose environment names no user (GBRAIN_USER, USER, LOGNAME unset)
    records the login the password database gives, or the uid: never an empty writer."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k not in ("GBRAIN_USER", "USER", "LOGNAME", "LNAME", "USERNAME")}
    r = subprocess.run([sys.executable, "-m", "gbrain", "put", "notes/a", "--db", str(db_path)], input=b"a\n", capture_output=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr.decode()
    [v] = js("history", "notes/a", db=db_path)["versions"]
    assert v["by"].endswith("@" + socket.gethostname().split(".")[0]) and len(v["by"]) > len(socket.gethostname().split(".")[0]) + 1


# ---------------------------------------------------------------------------
# two writers, separate CLI calls (each its own identity), both engines
# ---------------------------------------------------------------------------


def test_two_writers_of_one_page_are_told_apart(tmp_path, db_path):
    """Alice and Bob (separate processes, different GBRAIN_USER) write the same page: history
    shows each version's writer, changes --by filters (a whole writer, a login on any host, a
    host), --origin is unchanged, trash says who deleted, and the MCP/`call` JSON carries `by`."""
    alice, bob, bob2 = {"GBRAIN_USER": "alice@laptop"}, {"GBRAIN_USER": "bob@desk"}, {"GBRAIN_USER": "bob@laptop"}
    out(gbrain("put", "people/x", "--db", str(db_path), input="# X\n\nfirst\n", env=alice))
    out(gbrain("put", "people/x", "--db", str(db_path), input="# X\n\nsecond\n", env=bob))
    out(gbrain("tag", "people/x", "team", "--db", str(db_path), env=alice))
    out(gbrain("put", "notes/y", "--db", str(db_path), input="y\n", env=bob2))
    hist = js("history", "people/x", db=db_path)["versions"]
    assert [(v["version"], v["by"], v["origin"]) for v in hist] == [(3, "alice@laptop", "cli tag"), (2, "bob@desk", "cli put"), (1, "alice@laptop", "cli put")]
    text = out(gbrain("history", "people/x", "--db", str(db_path))).splitlines()
    assert "bob@desk" in text[2] and "alice@laptop" in text[1] and "alice@laptop" in text[3]
    by = lambda who: [(c["name"], c["version"]) for c in js("changes", "--by", who, db=db_path)]  # noqa: E731
    assert by("alice@laptop") == [("people/x", 3), ("people/x", 1)]
    assert by("bob") == [("notes/y", 1), ("people/x", 2)]  # a login on any host
    assert by("bob@desk") == [("people/x", 2)]
    assert by("@laptop") == [("notes/y", 1), ("people/x", 3), ("people/x", 1)]  # anyone on a host
    assert by("bo") == [] and by("laptop") == [] and by("Alice@laptop") == []  # exact, case as written
    assert [c["by"] for c in js("changes", "--origin", "tag", db=db_path)] == ["alice@laptop"]  # --origin as before
    assert [c["version"] for c in js("changes", "--origin", "put", "--by", "alice", db=db_path)] == [1]
    lines = out(gbrain("changes", "--by", "bob@desk", "--db", str(db_path))).splitlines()
    assert len(lines) == 1 and lines[0].endswith("cli put  by bob@desk")
    none = gbrain("changes", "--by", "carol", "--db", str(db_path))  # an empty answer: said on stderr, stdout empty
    assert none.returncode == 0 and none.stdout == b"" and "no changes by writer carol" in none.stderr.decode()
    # the agent surfaces: the same operation through `call` (MCP brain_changes' arguments)
    items = json.loads(out(gbrain("call", "brain_changes", json.dumps({"by": "alice"}), "--db", str(db_path))))
    assert [(c["version"], c["by"]) for c in items] == [(3, "alice@laptop"), (1, "alice@laptop")]
    # an agent's row is compact (trial 48): `origin` holds surface, client and operation, and `call`
    # answers in MCP's shape (tests/test_call_shapes.py); the CLI's --json keeps every key
    assert items[0]["origin"] == "cli tag" and not {"surface", "operation", "client"} & set(items[0])
    assert {"surface", "operation", "client", "origin", "path"} <= set(js("changes", "--by", "alice", db=db_path)[0])
    # the trash says who deleted
    out(gbrain("delete", "people/x", "--db", str(db_path), env=bob))
    [t] = js("trash", db=db_path)
    assert t["by"] == "bob@desk" and t["reason"] == "delete (cli)"
    assert "(delete (cli) by bob@desk, " in out(gbrain("trash", "--db", str(db_path)))
    assert js("history", "people/x", db=db_path)["versions"][0]["by"] == "bob@desk"


def test_blank_by_is_refused(db_path):
    out(gbrain("init", "--db", str(db_path)))
    r = gbrain("changes", "--by", " ", "--db", str(db_path))
    assert r.returncode == 2 and "writer" in r.stderr.decode()


def test_an_import_over_a_brain_edit_says_who_replaced_it(tmp_path, db_path, brain_tree):
    """A version an import replaced while it existed nowhere else (keep_version / mark_replaced)
    is listed in the trash with the writer of the import that replaced it."""
    out(gbrain("import", str(brain_tree), "--db", str(db_path), env={"GBRAIN_USER": "ann"}))
    out(gbrain("tag", "concepts/hybrid-retrieval", "x-edit", "--db", str(db_path), env={"GBRAIN_USER": "bo"}))
    f = brain_tree / "concepts" / "hybrid-retrieval.md"
    f.write_bytes(f.read_bytes() + b"edited on disk\n")
    out(gbrain("import", str(brain_tree), "--db", str(db_path), env={"GBRAIN_USER": "cy"}))
    [t] = js("trash", db=db_path)
    assert (t["slug"], t["deleted"], t["by"]) == ("concepts/hybrid-retrieval", False, "cy")
    vs = js("history", "concepts/hybrid-retrieval", db=db_path)["versions"]
    assert [v["by"] for v in vs] == ["cy", "bo", "ann"]


def test_origin_block_can_name_the_writer_in_process(db_path, monkeypatch, fresh_identity):
    """Python callers (Brain used as a library) record this process's identity, or the writer an
    ``origin(user=…)`` block names."""
    monkeypatch.setenv("GBRAIN_USER", "lib")
    with Brain.open(db_path) as b:
        b.put("notes/a", "one\n")
        with orig.origin(user="agent-7"):
            ops.run("put", {"slug": "notes/a", "content": "two\n"}, brain=b)
            b.save_file("assets/f.bin", b"\x00\x01", "blob")
        b.save_file("assets/f.bin", b"\x00\x02", "blob")
        assert [v["by"] for v in h.versions(b, "notes/a")["versions"]] == ["agent-7", "lib"]
        assert [v["by"] for v in h.versions(b, "assets/f.bin")["versions"]] == ["lib", "agent-7"]


# ---------------------------------------------------------------------------
# migration from the previous schema: old rows unknown, new rows known
# ---------------------------------------------------------------------------


def _check_migrated(db, before: list) -> None:
    """The rows written before keep everything they had and an empty writer; a new write has one."""
    out(gbrain("put", "people/ana", "--db", str(db), input="ana 3\n", env={"GBRAIN_USER": "new@host"}))
    vs = js("history", "people/ana", db=db)["versions"]
    assert [(v["version"], v["by"]) for v in vs] == [(3, "new@host"), (2, ""), (1, "")]
    assert [{k: v for k, v in x.items() if k not in ("by", "added", "removed")} for x in vs[1:]] == before
    text = out(gbrain("history", "people/ana", "--db", str(db))).splitlines()
    assert "new@host" in text[1] and " ?  " in text[2] and " ?  " in text[3]  # unknown, never a guess
    assert [c["version"] for c in js("changes", "--by", "new@host", db=db)] == [3]
    assert js("changes", "--by", "?", db=db) == []
    trash = js("trash", db=db)
    assert [(t["slug"], t["by"]) for t in trash] == [("notes/gone", "")]


@pytest.mark.engine_free
def test_sqlite_v15_brain_keeps_its_rows_with_an_unknown_writer(tmp_path, monkeypatch):
    p = tmp_path / "old.db"
    monkeypatch.setattr(dbmod, "MIGRATIONS", dbmod.MIGRATIONS[:15])
    monkeypatch.setattr(dbmod, "SCHEMA_VERSION", 15)
    with Brain.open(p) as b:
        assert b.conn.execute("PRAGMA user_version").fetchone()[0] == 15
        assert not h.has_writer(b.conn)
        writable_by_this_gbrain(b.conn)
        b.put("people/ana", "ana 1\n")
        b.put("people/ana", "ana 2\n")
        b.put("notes/gone", "gone\n")
        ops.run("delete", {"slug": "notes/gone"}, brain=b)
        before = [{k: v for k, v in x.items() if k not in ("by", "added", "removed")} for x in h.versions(b, "people/ana")["versions"]]
        assert [t["by"] for t in h.trash_list(b)] == [""]
    monkeypatch.undo()
    with Brain.open(p) as b:
        assert b.conn.execute("PRAGMA user_version").fetchone()[0] == dbmod.SCHEMA_VERSION >= 16
    _check_migrated(p, before)
    # a brain whose user_version was set back keeps the writers it has
    c = sqlite3.connect(p, isolation_level=None)
    c.execute("PRAGMA user_version = 15")
    c.close()
    with Brain.open(p) as b:
        assert [v["by"] for v in h.versions(b, "people/ana")["versions"]] == ["new@host", "", ""]
        b.put("people/ana", "ana 4\n")
        assert h.versions(b, "people/ana")["versions"][0]["by"] == orig.identity()


@pytest.mark.engine_free
def test_postgres_v13_brain_keeps_its_rows_with_an_unknown_writer(pg_url, monkeypatch):
    from gbrain.storage import pg

    monkeypatch.setattr(pg, "PG_SCHEMA_VERSION", 13)
    with Brain.open(pg_url) as b:
        assert pg.schema_version(b.conn) == 13 and not h.has_writer(b.conn)
        writable_by_this_gbrain(b.conn)
        b.put("people/ana", "ana 1\n")
        b.put("people/ana", "ana 2\n")
        b.put("notes/gone", "gone\n")
        ops.run("delete", {"slug": "notes/gone"}, brain=b)
        before = [{k: v for k, v in x.items() if k not in ("by", "added", "removed")} for x in h.versions(b, "people/ana")["versions"]]
    monkeypatch.undo()
    pg.close_pools()
    with Brain.open(pg_url) as b:
        assert pg.schema_version(b.conn) == pg.PG_SCHEMA_VERSION >= 14
    _check_migrated(pg_url, before)


# ---------------------------------------------------------------------------
# gbrain copy carries it
# ---------------------------------------------------------------------------


@pytest.mark.engine_free
def test_copy_sqlite_to_postgres_and_back_keeps_the_writers(tmp_path, pg_url):
    a, c = tmp_path / "a.db", tmp_path / "c.db"
    out(gbrain("put", "people/x", "--db", str(a), input="one\n", env={"GBRAIN_USER": "alice"}))
    out(gbrain("put", "people/x", "--db", str(a), input="two\n", env={"GBRAIN_USER": "bob"}))
    out(gbrain("delete", "people/x", "--db", str(a), env={"GBRAIN_USER": "cy"}))
    want = js("history", "people/x", db=a)["versions"]
    assert [v["by"] for v in want] == ["cy", "bob", "alice"]
    out(gbrain("copy", "--from", str(a), "--to", pg_url))
    assert js("history", "people/x", db=pg_url)["versions"] == want
    assert [t["by"] for t in js("trash", db=pg_url)] == ["cy"]
    assert [x["version"] for x in js("changes", "--by", "bob", db=pg_url)] == [2]
    out(gbrain("restore", "people/x", "--db", pg_url, env={"GBRAIN_USER": "dee"}))
    out(gbrain("copy", "--from", pg_url, "--to", str(c)))
    assert [v["by"] for v in js("history", "people/x", db=c)["versions"]] == ["dee", "cy", "bob", "alice"]
