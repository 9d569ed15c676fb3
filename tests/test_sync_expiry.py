"""Sync clients expire (issue 16): a folder nobody syncs any more stops holding the change log
back, and when it comes back a full three-way sync loses nothing. Runs on either engine
(``--engine postgres``); ``tests/test_postgres.py`` runs it on Postgres in CI."""
from __future__ import annotations

import json
from pathlib import Path

from conftest import gbrain_in_process as gbrain  # what the commands do, not the process: no process per call (~0.25 CPU-s each)
from gbrain.core.brain import Brain
from gbrain.storage import db as dbmod


def _ok(r) -> str:
    assert r.returncode == 0, (r.stdout + r.stderr).decode()
    return r.stdout.decode()


def _bulk(db, prefix: str) -> None:
    """EXPIRE_EVERY + 10 brain writes in one transaction (as an agent's puts would be)."""
    with Brain.open(db) as b, b.transaction():
        for i in range(dbmod.EXPIRE_EVERY + 10):
            b.put(f"{prefix}/p{i:03d}", f"# P {i}\n\nBulk page {i}.\n")


def _age(db) -> None:
    with Brain.open(db) as b, b.transaction():
        b.conn.execute("UPDATE sync_root SET synced_at = '2000-01-01T00:00:00Z', bound_at = '2000-01-01T00:00:00Z'")


def check_expiry(db, tree: Path) -> None:
    db = str(db)
    _ok(gbrain("sync", str(tree), "--db", db))
    # the folder's owner goes away for long; meanwhile the brain and the folder both change
    _age(db)
    f = tree / "concepts" / "hybrid-retrieval.md"
    f.write_bytes(f.read_bytes() + b"\nEdited on disk while away.\n")
    _ok(gbrain("timeline-add", "people/ana-lima", "--date", "2025-06-01", "--summary", "Edited in the brain while away", "--db", db))
    gone = next(p for p in sorted(tree.rglob("*.md")) if p.name != "ana-lima.md" and p != f and p.parent != tree)
    gone_slug = gone.relative_to(tree).with_suffix("").as_posix()
    _ok(gbrain("delete", gone_slug, "--db", db))
    _bulk(db, "bulk")  # the log passes a multiple of EXPIRE_EVERY: the writer's trigger expires the client
    with Brain.open(db) as b:
        assert b.conn.execute("SELECT cursor FROM sync_root").fetchone()[0] == -1
        n = b.conn.execute("SELECT count(*) FROM change_log").fetchone()[0]
        assert n < dbmod.EXPIRE_EVERY, n  # trimmed: no live client holds it back
    # it comes back: every path compared with its base, nothing lost, no conflict
    r = gbrain("sync", str(tree), "--json", "--db", db)
    rep = json.loads(_ok(r))
    assert "not synced for longer" in r.stderr.decode()
    assert rep["exit_code"] == 0 and not rep["conflicts"], rep
    assert "Edited in the brain while away" in (tree / "people" / "ana-lima.md").read_text()
    assert _ok(gbrain("get", "concepts/hybrid-retrieval", "--db", db)).endswith("Edited on disk while away.\n")
    assert not gone.exists()
    assert (tree / "bulk" / "p000.md").read_text() == "# P 0\n\nBulk page 0.\n"
    assert not list(tree.rglob("*.conflict-*"))
    with Brain.open(db) as b:
        assert b.conn.execute("SELECT cursor FROM sync_root").fetchone()[0] >= 0  # live again
    again = json.loads(_ok(gbrain("sync", str(tree), "--json", "--db", db)))
    assert again["exit_code"] == 0 and not again["conflicts"]
    # a sync with nothing to do records that the client is alive; 0 days = never expire
    _age(db)
    _ok(gbrain("sync", str(tree), "--db", db))
    with Brain.open(db) as b:
        assert b.conn.execute("SELECT synced_at FROM sync_root").fetchone()[0] > "2000-01-01T00:00:00Z"
    _ok(gbrain("config", "set", "sync_client_expire_days", "0", "--db", db))
    _age(db)
    _bulk(db, "more")
    with Brain.open(db) as b:
        assert b.conn.execute("SELECT cursor FROM sync_root").fetchone()[0] >= 0


def test_a_client_unseen_too_long_is_expired_and_comes_back_losing_nothing(db_path, brain_tree):
    check_expiry(db_path, brain_tree)
