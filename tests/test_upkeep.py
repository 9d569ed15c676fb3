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
        # (Brain.put: the write an agent's put ends in, one transaction each, without the put
        # operation's own look-ups, a third of the test's time)
        for i in range(200):
            b.put(f"notes/p{i}", _text(rnd, i, 300))
        most = 0
        for _ in range(1000):  # each its own write transaction, as agents' writes come; a few busy pages
            i = rnd.randrange(60)
            b.put(f"notes/p{i}", _text(rnd, i, 300))
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


def _plan(b: Brain, sql: str, args: tuple) -> str:
    """The engine's plan for ``sql``, as text (Postgres: with sequential scans off, so a small
    test table still shows whether an index can serve the query)."""
    c = b.conn
    if dbmod.is_postgres(c):
        c.execute("SET enable_seqscan = off")
        try:
            return "\n".join(str(r[0]) for r in c.execute("EXPLAIN " + sql, args).fetchall())
        finally:
            c.execute("RESET enable_seqscan")
    return "\n".join(str(tuple(r)[-1]) for r in c.execute("EXPLAIN QUERY PLAN " + sql, args).fetchall())


def test_undo_reads_the_versions_since_its_time_through_an_index_not_the_whole_history(db_path):
    """Trial 20: `undo --since 1h` read all 107,944 versions to plan 289 pages (99.6 ms CPU, 24.4
    fresh): no index on history.at. v36's idx_history_at serves the plan's first query."""
    from gbrain.core import history as h

    with Brain.open(db_path) as b:
        for i in range(5):
            ops.run("put", {"slug": f"notes/p{i}", "content": f"# P{i}\n\ntext {i}\n"}, brain=b)
        plan = _plan(b, h.undo_firsts_sql(postgres=dbmod.is_postgres(b.conn)), ("2026-01-01T00:00:00.000Z",))
        assert "idx_history_at" in plan, plan
        assert [p["name"] for p in h.undo_plan(b, "2000-01-01T00:00:00.000Z")] == [f"notes/p{i}" for i in range(5)]


def test_trash_of_a_few_entries_reads_only_the_newest_deletions(db_path):
    """Trial 20: `trash` took 10.1 ms CPU at 108k versions (3.4 at 38k): every one of the 980
    deletions was looked up three times for a list of 50. Now the deletions are read newest first
    only until the limit (SQLite: the virtual machine's steps, a count of work, not of time)."""
    with Brain.open(db_path) as b:
        for i in range(120):
            ops.run("put", {"slug": f"notes/p{i}", "content": f"# P{i}\n\ntext {i}\n"}, brain=b)
        for i in range(100):
            ops.run("delete", {"slug": f"notes/p{i}"}, brain=b)
        steps = [0]

        def count():
            steps[0] += 1
            return 0

        def work(limit: int) -> tuple[list, int]:
            if dbmod.is_postgres(b.conn):
                return [t["slug"] for t in ops.run("trash", {"limit": limit}, brain=b)], 0
            steps[0] = 0
            b.conn.set_progress_handler(count, 100)
            try:
                return [t["slug"] for t in ops.run("trash", {"limit": limit}, brain=b)], steps[0]
            finally:
                b.conn.set_progress_handler(None, 0)

        few, few_steps = work(2)
        every, all_steps = work(0)
        assert few == ["notes/p99", "notes/p98"]
        assert every == [f"notes/p{i}" for i in range(99, -1, -1)]
        if not dbmod.is_postgres(b.conn):
            assert few_steps * 10 < all_steps, (few_steps, all_steps)  # before: about the same work
