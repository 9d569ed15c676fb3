"""Keyword search reads words the same way on both engines: accents folded as SQLite's unicode61
(``remove_diacritics``) folds them, and a dotted token (``v0.14.6``, ``example.com``) split at its
dots. Before Postgres schema v39 its parser kept ``Björn`` and ``Bjorn`` two words (``Bjorn``
ranked the page about Björn 7th, SQLite 1st) and read ``v0.14.6`` as one word (a file name), so
the query's ``v0 14 6`` did not find it. The suite runs this file on both engines
(``--engine postgres``); the engine_free tests compare both in one test."""
from __future__ import annotations

import sqlite3

import pytest

from gbrain.core.brain import Brain
from gbrain.search import keyword
from gbrain.sync.importer import import_tree

from conftest import writable_by_this_gbrain, write_tree

NOTES = {
    "people/songwriter.md": "# Björn Ulvaeus\n\nSongwriter from Gothenburg. Met him at the studio.\n",
    "people/tennis-player.md": "# Bjorn Borg\n\nTennis player, written without the accent here.\n",
    "notes/studio-log.md": "# Studio log\n\nBjörnstad recorded the demo; the studio was booked for Björn.\n",
    "places/lakeside.md": "# Café Zürich\n\nA naïve little café by the lake in Zürich.\n",
    "places/trip.md": "# Zurich trip\n\nThe cafe near the station in Zurich was closed.\n",
    "places/film-school.md": "# Łódź\n\nThe film school in Łódź, and Straße names in Øresund.\n",
    "releases/first.md": "# Release v0.14.6\n\nShipped gbrain v0.14.6 with the search fixes.\n",
    "releases/second.md": "# Release notes\n\nVersion 0.14.2 fixed the importer.\n",
    "releases/third.md": "# Next release\n\nPlanned for 0.15: 14 fixes and 6 features, v0 of the plan.\n",
    "notes/website.md": "# Website\n\nThe site moved to https://example.com/docs and mail goes to ana@example.org.\n",
    "notes/filler-1.md": "# Studio\n\nThe studio, the demo and the lake.\n",
    "notes/filler-2.md": "# Tennis\n\nTennis at the lake; the station.\n",
}


def _brain(tmp_path, db) -> Brain:
    b = Brain.open(db)
    writable_by_this_gbrain(b.conn)  # (a brain held at an older schema: the columns this code writes)
    import_tree(b, write_tree(tmp_path / "vault", NOTES))
    return b


@pytest.fixture
def brain(tmp_path, db_path):
    with _brain(tmp_path, db_path) as b:
        yield b


def slugs(b, query: str, limit: int = 20) -> list[str]:
    return [h["slug"] for h in keyword.search(b.conn, query, limit=limit)]


def test_a_query_without_accents_finds_the_accented_word_first(brain):
    assert set(slugs(brain, "Bjorn")[:2]) == {"people/songwriter", "people/tennis-player"}
    assert slugs(brain, "Bjorn Ulvaeus")[0] == "people/songwriter"
    assert set(slugs(brain, "Zurich cafe")[:2]) == {"places/lakeside", "places/trip"}
    assert "places/lakeside" in slugs(brain, "naive")


def test_an_accented_query_finds_the_word_written_without_accents(brain):
    assert set(slugs(brain, "Björn")[:2]) == {"people/songwriter", "people/tennis-player"}
    assert set(slugs(brain, "Zürich")) >= {"places/lakeside", "places/trip"}
    assert set(slugs(brain, "café")) >= {"places/lakeside", "places/trip"}
    assert slugs(brain, "Björn*")[:1] != []  # a prefix folds too
    assert "notes/studio-log" in slugs(brain, "bjorn*")
    assert slugs(brain, '"naive little cafe"') == ["places/lakeside"]  # a phrase too


def test_letters_of_their_own_fold_as_ascii_folding_does(brain):
    """unicode61 folds a Latin letter with one diacritic only; ``ł``, ``ø``, ``ß`` (no
    decomposition) are spelled in ASCII by search itself (``keyword.fold_letters``, SQLite v54 /
    Postgres v56: tests/test_search_fold_letters.py), so ``Lodz`` finds ``Łódź`` too."""
    assert slugs(brain, "Łodz") == ["places/film-school"]
    assert slugs(brain, "łódź") == ["places/film-school"]
    assert slugs(brain, "Lodz") == ["places/film-school"]
    assert slugs(brain, "Oresund") == ["places/film-school"]
    assert slugs(brain, "Øresund") == ["places/film-school"]
    assert slugs(brain, "strasse") == ["places/film-school"]


def test_a_version_string_finds_the_pages_naming_it(brain):
    assert slugs(brain, "v0.14.6")[0] == "releases/first"
    assert slugs(brain, '"v0.14.6"') == ["releases/first"]
    # 0.14 names 0.14.2 and v0.14.6 (the phrase "v0 14": keyword.version_phrases), before the
    # page that says "0.15: 14 fixes … v0"
    assert set(slugs(brain, "0.14")[:2]) == {"releases/second", "releases/first"}
    assert slugs(brain, "0.14.6")[0] == "releases/first"
    assert slugs(brain, '"0.14.2"') == ["releases/second"]
    assert slugs(brain, "example.com") == ["notes/website"]
    assert slugs(brain, "example") == ["notes/website"]  # a host's word, a mail address's too
    assert slugs(brain, "ana") == ["notes/website"]


QUERIES = ["Bjorn", "Björn", "bjorn ulvaeus", "Zurich", "cafe", "café Zürich", "naive", "Lodz", "Łodz",
           "v0.14.6", "0.14", "0.14.2", "v0", "example.com", "docs", "studio demo", "bjorn*", "14 fixes"]


@pytest.mark.engine_free
def test_both_engines_find_the_same_pages(tmp_path, pg_url):
    """The same notes on SQLite and Postgres: every query finds the same pages, and the same
    first page (scores differ a little: the stemmers' stop words, docs/search.md)."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    with _brain(tmp_path / "a", tmp_path / "brain.db") as s, _brain(tmp_path / "b", pg_url) as p:
        for q in QUERIES:
            a = keyword.search(s.conn, q, limit=20)
            b = keyword.search(p.conn, q, limit=20)
            assert sorted(h["slug"] for h in a) == sorted(h["slug"] for h in b), q
            if len(a) > 1 and a[0]["score"] > 1.05 * a[1]["score"]:  # (not a near tie)
                assert a[0]["slug"] == b[0]["slug"], q


@pytest.mark.engine_free
def test_the_fold_is_sqlites():
    """:func:`keyword.fold_accents` maps a character exactly where FTS5's unicode61 (the
    tokenizer of ``page_fts``) folds it, to the same letter, over the whole BMP."""
    c = sqlite3.connect(":memory:")
    c.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='unicode61')")
    c.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
    chars = [chr(cp) for cp in range(0xA0, 0x10000) if not 0xD800 <= cp < 0xE000]
    c.executemany("INSERT INTO t(rowid, x) VALUES (?, ?)", [(i + 1, f"q{ch}q") for i, ch in enumerate(chars)])
    terms: dict[str, list[str]] = {}
    for term, doc in c.execute("SELECT term, doc FROM v"):
        terms.setdefault(chars[doc - 1], []).append(term)
    folded = {}
    for ch in chars:
        t = terms.get(ch)
        if t and len(t) == 1 and len(t[0]) == 3 and t[0][1] not in (ch, ch.lower()):
            folded[ch] = t[0][1]
    assert {ch: keyword.fold_accents(ch) for ch in chars if keyword.fold_accents(ch) != ch} == folded
    assert keyword.fold_accents("Björn Łódź Zürich naïve Việt") == "Bjorn Łodz Zurich naive Việt"


@pytest.mark.engine_free
def test_postgres_folds_as_python_does(pg_url):
    """``gb_fold`` (Postgres v39) folds every character as :func:`keyword.fold_accents` and
    makes ASCII punctuation a space, as unicode61 separates words at it."""
    with Brain.open(pg_url) as b:
        chars = "".join(chr(cp) for cp in range(0xA0, 0x2200))
        got = b.conn.execute("SELECT gb_fold(?)", [chars]).fetchone()[0]
        assert got == keyword.fold_accents(chars)
        punct = "".join(chr(c) for c in range(0x21, 0x7F) if not chr(c).isalnum())
        assert b.conn.execute("SELECT gb_fold(?)", ["a" + punct + "b"]).fetchone()[0] == "a" + " " * len(punct) + "b"
        assert b.conn.execute("SELECT gb_fold(?)", ["plain ascii words"]).fetchone()[0] == "plain ascii words"


@pytest.mark.engine_free
def test_postgres_v39_folds_an_existing_brains_index(tmp_path, pg_url, monkeypatch):
    """A brain made before v39 (its search vectors read by the old parser) finds ``Bjorn`` and
    ``v0.14.6`` after the upgrade, with the BM25 totals counted again."""
    from gbrain.storage import pg

    def matching(c, word: str) -> int:
        return c.execute("SELECT count(*) FROM pages WHERE search_tsv @@ to_tsquery('simple', ?)", [word]).fetchone()[0]

    monkeypatch.setattr(pg, "PG_SCHEMA_VERSION", 38)
    with _brain(tmp_path, pg_url) as b:
        assert pg.schema_version(b.conn) == 38
        assert (matching(b.conn, "bjorn"), matching(b.conn, "v0")) == (1, 1)  # the old index: Bjorn Borg; "v0 of the plan"
    monkeypatch.undo()
    with Brain.open(pg_url) as b:
        c = b.conn
        assert pg.schema_version(c) == pg.PG_SCHEMA_VERSION >= 39
        assert set(slugs(b, "Bjorn")[:2]) == {"people/songwriter", "people/tennis-player"}
        assert slugs(b, "v0.14.6")[0] == "releases/first"
        assert (matching(c, "bjorn"), matching(c, "v0")) == (3, 2)
        fresh = tuple(map(int, c.execute("SELECT count(*), sum(length(search_tsv)) FROM pages").fetchone()))
        assert tuple(map(int, c.execute("SELECT pages, lexemes FROM search_totals").fetchone())) == fresh


def test_a_hit_found_folded_is_marked_in_the_snippet(brain):
    """The snippet marks the word as the page writes it: ``Björn`` for ``Bjorn`` (Postgres'
    ts_headline reads the text unfolded: such a hit is marked in Python, ``keyword._mark_words``)."""
    def marks(query: str, slug: str) -> list[str]:
        h = next(h for h in keyword.search(brain.conn, query) if h["slug"] == slug)
        return [h["snippet"][a:b] for a, b in h["highlights"]]

    assert marks("Bjorn", "people/songwriter") == ["Björn"]
    assert marks("cafe", "places/lakeside") == ["Café", "café"]
    assert marks("Björn", "people/tennis-player") == ["Bjorn"]


@pytest.mark.engine_free
def test_a_long_page_is_marked_folded_too():
    """A page over ``SNIPPET_MAX_CHARS`` is marked in Python on both engines."""
    text = "x " * 10 + "A naïve café in Zürich, said Björn. Łódź.\n"
    region = keyword._mark_words(text, "naive cafe zurich bjorn łodz")
    assert [m.split(keyword.HIT_OFF)[0] for m in region.split(keyword.HIT_ON)[1:]] == ["naïve", "café", "Zürich", "Björn", "Łódź"]
    assert keyword._mark_words(text, "Lodz").count(keyword.HIT_ON) == 1
