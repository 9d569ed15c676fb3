"""Concurrent writers on one SQLite brain (issue 16): a write waits for another process's write
transaction, however long it holds SQLite's lock (up to ``db.WRITE_WAIT_S``), instead of failing
with "database is locked" after the busy timeout."""
from __future__ import annotations

import json
import os
import subprocess
import sys

from conftest import ROOT, gbrain
from gbrain.storage import db as dbmod
import pytest

pytestmark = pytest.mark.engine_free  # the same on both engines: runs in the SQLite run only (conftest)

WRITER = (
    "import sys\nfrom gbrain import operations as ops\nfrom gbrain.core.brain import Brain\n"
    "for i in range(5):\n"
    "    with Brain.open(sys.argv[2]) as b:\n"
    "        ops.run('put', {'slug': f'w/w{sys.argv[1]}-{i}', 'content': f'# W {sys.argv[1]} {i}\\n\\nBody.\\n'}, brain=b)\n"
    "        ops.run('tag', {'slug': 'people/ana', 'tag': f'w{sys.argv[1]}-{i}'}, brain=b)\n"
)
HOLDER = (
    "import sqlite3, sys, time\n"
    "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
    "c.execute('BEGIN IMMEDIATE')\n"
    "c.execute(\"INSERT INTO config(key, value) VALUES ('held', '1')\")\n"
    "print('held', flush=True)\n"
    "time.sleep(float(sys.argv[2]))\n"
    "c.execute('COMMIT')\n"
)


def test_four_writer_processes_outwait_a_write_lock_held_past_the_busy_timeout(tmp_path):
    """Another process holds the write lock for longer than SQLite's busy timeout while 4 gbrain
    processes each put 5 pages and tag one shared page 5 times: none is refused, every write
    lands (before: each waited the 10 s busy timeout and failed with "database is locked")."""
    db = tmp_path / "brain.db"
    r = gbrain("put", "people/ana", "--db", str(db), input="# Ana\n\nA person.\n")
    assert r.returncode == 0, r.stderr
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    hold = dbmod.BUSY_TIMEOUT_MS / 1000 + 2
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(db), str(hold)], env=env, stdout=subprocess.PIPE)
    try:
        assert holder.stdout.readline() == b"held\n"
        procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(w), str(db)], env=env, stderr=subprocess.PIPE) for w in range(4)]
        for p in procs:
            assert p.wait(timeout=600) == 0, p.stderr.read().decode()
    finally:
        holder.wait(timeout=600)
    assert holder.returncode == 0
    pages = json.loads(gbrain("list", "--json", "--limit", "100", "--db", str(db)).stdout)
    pages = pages["items"] if isinstance(pages, dict) else pages
    assert {f"w/w{w}-{i}" for w in range(4) for i in range(5)} <= {p["slug"] for p in pages}
    tags = json.loads(gbrain("tags", "people/ana", "--json", "--db", str(db)).stdout)
    tags = tags["items"] if isinstance(tags, dict) else tags
    assert {f"w{w}-{i}" for w in range(4) for i in range(5)} <= set(tags)


def test_a_write_that_outwaits_the_wait_says_the_brain_is_busy(tmp_path, monkeypatch):
    """Trial 62 (a cron job's `put` while another process held the write lock past
    ``db.WRITE_WAIT_S``): it failed, after the wait, with ``database error on …: database is
    locked``, kind ``error``. It now says the brain is busy, that nothing was written and to run
    it again, with kind ``busy`` (exit 1) for a script to retry on."""
    from conftest import gbrain_in_process

    db = tmp_path / "brain.db"
    r = gbrain("put", "people/ana", "--db", str(db), input="# Ana\n\nA person.\n")
    assert r.returncode == 0, r.stderr
    monkeypatch.setattr(dbmod, "WRITE_WAIT_S", 0.2)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(db), "600"], env=env, stdout=subprocess.PIPE)
    try:
        assert holder.stdout.readline() == b"held\n"
        r = gbrain_in_process("--db", str(db), "put", "people/ana", "--json", input="# Ana\n\nChanged.\n")
    finally:
        holder.kill()
        holder.wait(timeout=60)
    assert r.returncode == 1, r.stderr
    out = json.loads(r.stdout)
    assert out["kind"] == "busy" and out["exit_code"] == 1, out
    assert "is busy" in out["error"] and "nothing was written" in out["error"] and "locked" not in out["error"].split(";")[0], out
    assert r.stderr.decode().startswith("error: ") and r.stderr.decode().count("\n") == 1, r.stderr
    assert gbrain("get", "people/ana", "--db", str(db)).stdout == b"# Ana\n\nA person.\n"


@pytest.mark.parametrize("surface", ["cli", "pipe"])
def test_a_postgres_write_stopped_by_lock_timeout_says_the_brain_is_busy(pg_url, surface):
    """Review of trial 62's ``errors.Busy``: it covered SQLite only. On Postgres a server or role
    with a ``lock_timeout`` ends the wait for the writers' advisory lock (``BEGIN IMMEDIATE``)
    with "canceling statement due to lock timeout", which said ``database error on …``, kind
    ``error``. Kind ``busy`` now (exit 1), the password hidden, nothing written."""
    import psycopg

    from conftest import gbrain_in_process
    from gbrain.storage.pg import WRITE_LOCK

    assert gbrain_in_process("put", "people/ana", "--db", pg_url, input="# Ana\n\nA person.\n").returncode == 0
    url = pg_url + ("&" if "?" in pg_url else "?") + "options=-c%20lock_timeout%3D200"
    with psycopg.connect(pg_url) as holder:
        holder.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK,))  # (held until the block's end)
        if surface == "cli":
            r = gbrain_in_process("--db", url, "put", "people/ana", "--json", input="# Ana\n\nChanged.\n")
            assert r.returncode == 1, r.stderr
            out = json.loads(r.stdout)
        else:
            r = gbrain_in_process("--db", url, "pipe", input=json.dumps({"id": 1, "tool": "brain_put", "params": {"slug": "people/ana", "content": "# Ana\n\nChanged.\n"}}) + "\n")
            out = json.loads(r.stdout.splitlines()[0])
            assert out.get("ok") is False and r.returncode == 1, (out, r.returncode)
            assert r.stderr == b"", r.stderr  # (the answer says it: nothing on stderr)
    assert out["kind"] == "busy" and out["exit_code"] == 1 and "is busy" in out["error"] and "nothing was written" in out["error"], out
    assert "lock timeout" in out["error"], out
    assert gbrain_in_process("get", "people/ana", "--db", pg_url).stdout == b"# Ana\n\nA person.\n"
