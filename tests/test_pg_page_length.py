"""Postgres measures a page's length for BM25 in tokens as SQLite's FTS5 does (schema v59:
``pages.search_len``, ``gb_tokens``, ``search_totals.tokens``); it counted distinct lexemes before
(tests/test_search_engine_parity.py: the ranking this changes)."""
from __future__ import annotations

import sqlite3

import pytest

from gbrain.core.brain import Brain
from gbrain.sync.importer import import_tree

from conftest import writable_by_this_gbrain, write_tree

pytestmark = pytest.mark.engine_free

#: texts where token rules differ (hyphens, URLs, e-mail, numbers, accents, other scripts, CJK,
#: underscores, apostrophes, non-ASCII punctuation and spaces)
TEXTS = [
    "", "word", "file-formats are great, don't", "3.14 v1.2.3 1,000", "https://obsidian.md/help?x=1#top",
    "a@b.com foo_bar x—y “quoted” ‘single’ … «guillemets»", "café naïve Привет мир Ωmega", "日本語のテキスト。中文，标点！",
    "tab\there\u00a0nbsp\u2009thin", "[[Wiki Link|alias]] **bold** `code()` $x^2$ #tag/nested", "×÷±§",
]


def _fts5_tokens(text: str) -> int:
    c = sqlite3.connect(":memory:")
    c.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='porter unicode61')")
    c.execute("INSERT INTO t(rowid, x) VALUES (1, ?)", (text,))
    blob = c.execute("SELECT sz FROM t_docsize WHERE id = 1").fetchone()[0]
    return blob[0] if len(blob) == 1 else int.from_bytes(blob, "big")  # (one small varint: these texts)


def test_gb_tokens_counts_as_fts5_unicode61(pg_url):
    with Brain.open(pg_url, create=True) as b:
        got = {t: int(b.conn.execute("SELECT gb_tokens(?)", (t,)).fetchone()[0]) for t in TEXTS}
    assert got == {t: _fts5_tokens(t) for t in TEXTS}


NOTES = {
    "a.md": "---\naliases: [First Note]\n---\n# Alpha\n\nSome words here, and-some hyphenated ones.\n\n## Timeline\n\n- 2026-01-01: began\n",
    "b.md": "# Beta\n\n" + "Repeated words again. " * 50 + "\n",
    "c.md": "# Gamma\n\nShort.\n",
}


def _state(c) -> tuple[dict, tuple]:
    lens = {r[0]: (int(r[1]), int(r[2]), r[3]) for r in c.execute("SELECT slug, search_len, gb_page_tokens(pages), search_tsv::text FROM pages")}
    totals = tuple(map(int, c.execute("SELECT pages, lexemes, tokens FROM search_totals").fetchone()))
    return lens, totals


def _fresh_totals(c) -> tuple:
    return tuple(map(int, c.execute("SELECT count(*), coalesce(sum(length(search_tsv)), 0), coalesce(sum(search_len), 0) FROM pages").fetchone()))


def test_postgres_v59_counts_every_page_and_keeps_the_totals(tmp_path, pg_url, monkeypatch):
    """A brain made at v58 gets every page's tokens (the count a write gives it now) and the
    totals' tokens; its vectors stay as they were; later writes (insert, edit, delete) keep both."""
    from gbrain.storage import pg

    tree = write_tree(tmp_path / "vault", NOTES)
    monkeypatch.setattr(pg, "PG_SCHEMA_VERSION", 58)
    with Brain.open(pg_url, create=True) as b:
        writable_by_this_gbrain(b.conn)  # (v67's column, which this gbrain's saves write)
        import_tree(b, tree)
        vectors = {r[0]: r[1] for r in b.conn.execute("SELECT slug, search_tsv::text FROM pages")}
    monkeypatch.setattr(pg, "PG_SCHEMA_VERSION", 69)  # (v70 indexes every path again: tests/test_search_engine_parity.py)
    with Brain.open(pg_url) as b:
        c = b.conn
        assert pg.schema_version(c) == pg.PG_SCHEMA_VERSION >= 59
        lens, totals = _state(c)
        assert all(n == fresh and n > 0 for n, fresh, _v in lens.values()), lens
        assert lens["b"][0] > 150 > lens["a"][0] > lens["c"][0]
        assert {s: v for s, (_n, _f, v) in lens.items()} == vectors
        assert totals == _fresh_totals(c)
        b.put("d", "# Delta\n\nA new page with seven more words.\n")
        b.put("c", "# Gamma\n\nNo longer short: these are a few more words than before.\n")
        b.delete_page("b")
        lens, totals = _state(c)
        assert all(n == fresh for n, fresh, _v in lens.values()), lens
        assert totals == _fresh_totals(c)
        assert "b" not in lens and lens["c"][0] > 10


def test_the_length_switch_gives_the_lexeme_ranking_back(tmp_path, pg_url, monkeypatch):
    """``keyword.PG_TOKEN_LENGTH`` False measures a page in distinct lexemes again (the ranking
    before v59: the long page repeating its words looked shorter and came first)."""
    from gbrain.search import keyword

    from test_search_engine_parity import LENGTH_NOTES

    tree = write_tree(tmp_path / "vault", LENGTH_NOTES)
    with Brain.open(pg_url, create=True) as b:
        import_tree(b, tree)
        first = {}
        for on in (True, False):
            monkeypatch.setattr(keyword, "PG_TOKEN_LENGTH", on)
            first[on] = keyword.search(b.conn, "zebra quagga", limit=5)[0]["slug"]
    assert first == {True: "notes/short", False: "notes/long"}


def test_gb_tokens_portable_counts_as_gb_tokens(pg_url):
    """Postgres before 15 has no regexp_count: v59 then defines gb_tokens by gb_tokens_portable
    (regexp_matches). Both count the same tokens (checked here on a server that has both)."""
    with Brain.open(pg_url, create=True) as b:
        for t in TEXTS + [None, "x" * 5000 + " y"]:
            one, two = b.conn.execute("SELECT gb_tokens(?), gb_tokens_portable(?)", (t, t)).fetchone()
            assert (int(one), int(two)) == (int(one), int(one)), t
            assert int(one) == (_fts5_tokens(t) if t else 0)
