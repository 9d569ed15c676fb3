"""Upkeep that keeps an aged brain as fast as a fresh one: the keyword index stays compact under
many small writes (SQLite's FTS5), and the history's reads by time and of deletions use indexes."""
from __future__ import annotations

import random
import sqlite3

import pytest

from gbrain import operations as ops
from gbrain.core.brain import Brain
from gbrain.storage import db as dbmod

WORDS = ("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa "
         "quebec romeo sierra tango uniform victor whiskey xray yankee zulu").split()


def _text(rnd: random.Random, i: int, n: int = 120) -> str:
    return f"---\ntitle: Page {i}\n---\n" + " ".join(rnd.choice(WORDS) + str(rnd.randrange(400)) for _ in range(n)) + "\n"


@pytest.mark.sqlite_only("FTS5's segments: Postgres' GIN indexes have none (autovacuum keeps them)")
def test_keyword_index_stays_near_its_compact_size_while_busy_pages_are_rewritten(db_path):
    """Trial 20: after a year of edits the FTS5 index held 5x its compact size (automerge leaves
    the old entries in the large segments) and searches read through it. Each write transaction
    now does a bounded step of upkeep, so the index stays within about twice its compact size."""
    rnd = random.Random(7)
    with Brain.open(db_path) as b:
        for i in range(200):
            ops.run("put", {"slug": f"notes/p{i}", "content": _text(rnd, i, 300)}, brain=b)
        most = 0
        for _ in range(1000):  # each its own write transaction, as agents' writes come; a few busy pages
            i = rnd.randrange(60)
            ops.run("put", {"slug": f"notes/p{i}", "content": _text(rnd, i, 300)}, brain=b)
            most = max(most, sum(dbmod.fts_segments(b.conn)))
        hits = [r["slug"] for r in ops.run("search", {"query": "alpha7 bravo", "limit": 20}, brain=b)]
        b.conn.execute("INSERT INTO page_fts(page_fts) VALUES ('optimize')")
        compact = dbmod.fts_segments(b.conn)
        assert len(compact) == 1
        # twice the compact index plus the slack, and one write's segment and a step in flight
        # (before: 346 leaf pages, 3.7x, and growing with every level automerge adds)
        assert most <= 2 * compact[0] + dbmod.FTS_SLACK_PAGES + 24, (most, compact)
        assert [r["slug"] for r in ops.run("search", {"query": "alpha7 bravo", "limit": 20}, brain=b)] == hits


@pytest.mark.sqlite_only("FTS5's structure record")
def test_fts_levels_read_the_structure_record_and_upkeep_merges_in_bounded_steps(tmp_path):
    conn = sqlite3.connect(tmp_path / "x.db", isolation_level=None)
    conn.execute("CREATE VIRTUAL TABLE page_fts USING fts5(body)")
    assert dbmod.fts_segments(conn) == []
    conn.execute("INSERT INTO page_fts(page_fts, rank) VALUES ('automerge', 0)")  # segments as written
    conn.execute("INSERT INTO page_fts(page_fts, rank) VALUES ('crisismerge', 60)")
    for i in range(40):  # one segment per transaction
        conn.execute("INSERT INTO page_fts(rowid, body) VALUES (?, ?)", (i + 1, f"w{i} common " * 300))
    sizes = dbmod.fts_segments(conn)
    assert len(sizes) >= 3 and sum(sizes) - max(sizes) > max(sizes) + dbmod.FTS_SLACK_PAGES, sizes
    steps = 0
    while dbmod.fts_upkeep(conn, step=1):
        steps += 1
        assert steps < 1000
    assert steps >= 2  # bounded steps: a leaf page or so each
    assert len(dbmod.fts_segments(conn)) == 1
    assert conn.execute("SELECT count(*) FROM page_fts WHERE page_fts MATCH 'common'").fetchone()[0] == 40
    assert dbmod.fts_segments(sqlite3.connect(":memory:")) is None
