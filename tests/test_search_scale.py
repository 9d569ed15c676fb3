"""Keyword search's work per query does not grow with the brain where it need not (issue 14:
search p50 grew 2.6-4.3x from 5,000 to 50,000 pages). SQLite's FTS5 ``bm25()`` counts the
pages of each phrase of its query (a pass over every part's doclist) once per statement, and a
column-filtered pass over ``page_fts`` reads the word's whole doclist: the name-evidence pass
asks a private index of the candidates' names instead, and the bounded ranking (case 3 of
``keyword._bm25_top``) scores its candidates in one ``bm25()`` statement. The rankings are the
same either way (checked here against the old paths on a make_brain brain)."""
from __future__ import annotations

import re

import pytest

from gbrain.core.brain import Brain
from gbrain.search import keyword
from gbrain.sync.importer import import_tree

from conftest import make_brain

pytestmark = pytest.mark.sqlite_only("FTS5 statements of the SQLite ranking")

QUERIES = ["founder", "series a", "board meeting", "revenue growth", "product launch", "investor update", "machine learning", "sync*",
           '"board meeting" hiring']


@pytest.fixture(scope="module")
def brain(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("scale")
    tree = make_brain(tmp / "tree", 300, seed=4)
    with Brain.open(tmp / "brain.db") as b:
        import_tree(b, tree)
        yield b


def _queries(brain) -> list[str]:
    titles = [r[0] for r in brain.conn.execute("SELECT title FROM pages ORDER BY id LIMIT 40")]
    return titles + QUERIES


def _traced(brain, fn):
    sql: list[str] = []
    brain.conn.set_trace_callback(sql.append)
    try:
        out = fn()
    finally:
        brain.conn.set_trace_callback(None)
    return out, sql


def test_tokenizer_is_the_index_one(brain):
    # the names index must split words exactly as page_fts does
    ddl = brain.conn.execute("SELECT sql FROM sqlite_master WHERE name = 'page_fts'").fetchone()[0]
    assert re.search(r"tokenize\s*=\s*'([^']*)'", ddl).group(1) == keyword.FTS_TOKENIZE


def test_name_evidence_reads_no_doclist_of_the_brain(brain):
    found = 0
    for q in _queries(brain):
        hits, sql = _traced(brain, lambda: keyword.search(brain.conn, q, limit=20))
        found += bool(hits)
        assert not [s for s in sql if "search_headings} :" in s], q
    assert found > 40


def test_name_evidence_is_the_same_as_from_page_fts(brain, monkeypatch):
    qs = _queries(brain)
    new = [(keyword.search(brain.conn, q, limit=20), keyword.rank(brain.conn, q, limit=50, coordinate=False),
            keyword.search(brain.conn, q, type="company", limit=5)) for q in qs]
    monkeypatch.setattr(keyword, "_names_index", lambda rows: None)
    old = [(keyword.search(brain.conn, q, limit=20), keyword.rank(brain.conn, q, limit=50, coordinate=False),
            keyword.search(brain.conn, q, type="company", limit=5)) for q in qs]
    assert new == old


def test_bounded_ranking_scores_in_one_statement(brain, monkeypatch):
    # every part common (no rare parts: case 3 straight away): one bm25() statement, not one
    # per candidate list
    monkeypatch.setattr(keyword, "RANK_BOUND", 1)
    monkeypatch.setattr(keyword, "RANK_WINDOW", 20)
    monkeypatch.setattr(keyword, "STEM_FIELDS_UNWEIGHTED", False)  # (its re-scoring is a bm25() statement of its own)
    hits, sql = _traced(brain, lambda: keyword.search(brain.conn, "board meeting", limit=5))
    assert hits
    assert len([s for s in sql if "bm25(page_fts" in s]) == 1, [s for s in sql if "bm25(" in s]


def test_bounded_scores_are_unchanged(brain, monkeypatch):
    # the candidates scored together get the scores each list's own ORDER BY rowid LIMIT
    # statement gave them (the same phrases, the same statistics)
    monkeypatch.setattr(keyword, "RANK_BOUND", 30)
    monkeypatch.setattr(keyword, "RANK_WINDOW", 40)
    qs = _queries(brain)

    def old_score(conn, q, parts, w, type, words, scored):
        for expr in ([" AND ".join(parts)] if len(parts) > 1 else []) + [q]:
            for r in conn.execute(f"SELECT rowid, -bm25(page_fts, {w}) FROM page_fts WHERE page_fts MATCH ? ORDER BY rowid LIMIT ?", [expr, keyword.RANK_WINDOW]):
                scored[int(r[0])] = float(r[1])
    # the same lists, each scored by its own statement, must give the same scores
    w = ", ".join(str(x) for x in keyword.WEIGHTS)
    for q in qs:
        parts = keyword.fts_parts(q)
        fq = keyword.fts_query(q)
        each: dict[int, float] = {}
        old_score(brain.conn, fq, parts, w, None, [], each)
        ids = list(each)
        one = dict(brain.conn.execute(f"SELECT rowid, -bm25(page_fts, {w}) FROM page_fts WHERE page_fts MATCH ? AND +rowid IN (SELECT value FROM json_each(?))",
                                      [fq, __import__("json").dumps(ids)]))
        assert one == each, q


class _Rows(list):
    """A fetched result that answers as the cursor ``_bm25_top`` reads."""

    def fetchall(self):
        return list(self)

    def fetchone(self):
        return self[0] if self else None

    def close(self):
        pass


class _CountingConn:
    """A connection that counts the SQLite VM instructions each statement runs (a progress
    handler called every instruction): deterministic, unlike time."""

    def __init__(self, conn):
        self.conn = conn
        self.steps: dict[str, int] = {}

    def execute(self, sql, args=()):
        n = [0]

        def tick():
            n[0] += 1
            return 0

        self.conn.set_progress_handler(tick, 1)
        try:
            rows = self.conn.execute(sql, args).fetchall()
        finally:
            self.conn.set_progress_handler(None, 1)
        self.steps[sql] = self.steps.get(sql, 0) + n[0]
        return _Rows(rows)


def test_rare_parts_pages_are_scored_without_reading_the_common_parts_pages(brain, monkeypatch):
    # case 2 of _bm25_top (a part over the bound, rare parts under it): the rare parts' pages
    # are scored by statements FTS5 drives from those pages, not by reading every page of the
    # query in their rowid range (issue 14: ~38,000 rows for 1,555 candidates at 50,000
    # pages); the scores stay those of ranking every match
    conn = brain.conn
    n = keyword._fts_rows(conn)

    def df(word):
        return conn.execute("SELECT COUNT(*) FROM page_fts WHERE page_fts MATCH ?", [keyword._quote(word)]).fetchone()[0]

    words = sorted({w for (t,) in conn.execute("SELECT title FROM pages") for w in re.findall(r"[a-z]{4,}", t.lower())})
    dfs = {w: df(w) for w in words}
    common = max((w for w in words if dfs[w] < n), key=lambda w: (dfs[w], w))
    rare = [w for w in words if 2 <= dfs[w] <= dfs[common] // 20][:2]
    assert dfs[common] > n // 2 and len(rare) == 2, (common, dfs[common], rare)
    q_text = f"{rare[0]} {common} {rare[1]}"
    parts, q = keyword.fts_parts(q_text), keyword.fts_query(q_text)
    w = ", ".join(str(x) for x in keyword.WEIGHTS)
    args = (parts, w, keyword.PageFilter(), 20, {}, n, [])
    full, cut = keyword._bm25_top(conn, q, *args)
    assert not cut
    monkeypatch.setattr(keyword, "RANK_BOUND", dfs[rare[0]] + dfs[rare[1]])
    counting = _CountingConn(conn)
    top, cut = keyword._bm25_top(counting, q, *args)
    assert not cut and top == full  # the same pages and the same floats
    scoring = sum(v for s, v in counting.steps.items() if "bm25(" in s)
    every = _CountingConn(conn)
    every.execute("SELECT rowid FROM page_fts WHERE page_fts MATCH ?", [q])
    reading_every_page = sum(every.steps.values())
    # (on a 300-page brain, 24 rare pages of 286: 572 instructions, against 925 for listing
    # every page of the query and 3,093 for the one statement over the candidates' range)
    assert scoring < reading_every_page, (scoring, reading_every_page, counting.steps, common, dfs[common], rare, [dfs[r] for r in rare], n)
