"""Keyword search folds Unicode compatibility characters (NFKC), both ways, on both engines.

Text copied from PDFs has ligatures (``ﬁnancial``), East-Asian input methods type full-width
letters and digits (``ＧＰＴ４``), and notes hold superscripts, circled digits and no-break or
ideographic spaces. Neither SQLite's unicode61 nor Postgres' parser folds them (``ﬁnancial`` and
``financial`` were two words): a page is now indexed under their NFKC words too (``search_words``)
and a query is read in NFKC, while the page text and the snippet's hits stay the original
characters."""
from __future__ import annotations

import sqlite3
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gbrain import operations as ops
from gbrain.core.brain import Brain
from gbrain.search import keyword as search
from gbrain.storage import db as dbmod
from gbrain.sync.importer import import_tree

from conftest import write_tree

NOTES = {
    "notes/pdf.md": "# Quarterly review\n\nThe ﬁnancial ﬂow statement was copied from a PDF.\n",
    "notes/ime.md": "# Model notes\n\nCompared ＧＰＴ４ in the ｍｅｅｔｉｎｇ\u3000yesterday; see x² and ②.\n",
    "notes/nbsp.md": "# Spaces\n\nThe\u00a0roadmap\u00a0draft was approved.\n",
    "notes/plain.md": "# Plain\n\nThe GPT4 financial meeting notes.\n",
    "notes/other.md": "# Other\n\nNothing to see here.\n",
}


def _tree(tmp_path, notes=NOTES):
    return write_tree(tmp_path / "vault", notes)


def _brain(tmp_path, db, notes=NOTES):
    b = Brain.open(db)
    import_tree(b, _tree(tmp_path, notes))
    return b


def slugs(hits):
    return sorted(h["slug"] for h in hits)


def marked(hit: dict) -> list[str]:
    return [hit["snippet"][a:b] for a, b in hit["highlights"]]


def hit(conn, query: str, slug: str) -> dict:
    return next(h for h in search.search(conn, query) if h["slug"] == slug)


@pytest.mark.engine_free
def test_compat_words_are_the_nfkc_words_the_text_lacks():
    assert search.compat_words("The ﬁnancial ﬂow of ＧＰＴ４, H₂O and ③") == ["financial", "flow", "GPT4", "H2O", "3"]
    assert search.compat_words("plain ASCII text") == [] and search.compat_words("café naïve 東京") == []
    assert search.compat_words("ﬁnancial and financial") == []  # the plain word is there already
    assert search.compat_words("重跑ＧＰＴ后") == ["GPT"]  # glued to CJK: its non-CJK run
    fm = {"title": "ＧＰＴ４ notes", "tags": ["ｍｅｅｔｉｎｇ"], "status": "plain"}
    assert search.search_words("The ﬁnancial report", "", fm) == "ｍｅｅｔｉｎｇ plain financial GPT4 meeting"
    assert search.search_form("ＧＰＴ４ ﬁ x²\u00a0①") == "GPT4 fi x2 1"


def test_plain_queries_find_compatibility_characters_and_back(tmp_path, db_path):
    with _brain(tmp_path, db_path) as b:
        c = b.conn
        assert slugs(search.search(c, "financial")) == ["notes/pdf", "notes/plain"]
        assert slugs(search.search(c, "ﬁnancial")) == ["notes/pdf", "notes/plain"]
        assert slugs(search.search(c, "flow")) == ["notes/pdf"]
        assert slugs(search.search(c, "GPT4")) == ["notes/ime", "notes/plain"]
        assert slugs(search.search(c, "ＧＰＴ４")) == ["notes/ime", "notes/plain"]
        assert slugs(search.search(c, "gpt4 MEETING")) == ["notes/ime", "notes/plain"]
        assert slugs(search.search(c, "ｍｅｅｔｉｎｇ")) == ["notes/ime", "notes/plain"]
        assert slugs(search.search(c, "x2")) == ["notes/ime"]
        assert slugs(search.search(c, "yesterday")) == ["notes/ime"]  # after an ideographic space
        assert slugs(search.search(c, "roadmap draft")) == ["notes/nbsp"]  # between no-break spaces
        # the hits point at the page's own characters
        assert marked(hit(c, "financial", "notes/pdf")) == ["ﬁnancial"]
        assert marked(hit(c, "GPT4", "notes/ime")) == ["ＧＰＴ４"]
        assert marked(hit(c, "ＧＰＴ４", "notes/plain")) == ["GPT4"]
        assert "ﬁnancial ﬂow statement" in hit(c, "flow", "notes/pdf")["snippet"]
        # the page text is never changed
        assert b.get_text("notes/pdf") == NOTES["notes/pdf.md"]
        # hybrid ranking reads the same keyword side
        kw = {h["id"] for h in search.keyword_candidates(c, "financial")}
        ids = dict(c.execute("SELECT slug, id FROM pages").fetchall())
        assert kw == {ids["notes/pdf"], ids["notes/plain"]}


def test_query_finds_them_in_hybrid_mode(tmp_path, db_path):
    from gbrain.search.vectors import VectorIndex

    VectorIndex.forget()
    with _brain(tmp_path, db_path) as b:
        b.set_config("embedding_model", "fake-16")
        ops.run("embed", {}, brain=b)
        r = ops.run("query", {"question": "financial flow", "limit": 10}, brain=b)
        assert r["mode"] == "hybrid"
        pdf = next(h for h in r["hits"] if h["slug"] == "notes/pdf")
        assert "body" in pdf["signals"]
        r = ops.run("query", {"question": "ＧＰＴ４", "limit": 10}, brain=b)
        found = {h["slug"]: h for h in r["hits"] if "body" in h["signals"]}
        assert set(found) == {"notes/ime", "notes/plain"}
    VectorIndex.forget()


def test_an_exact_title_in_full_width_is_still_named_by_it(tmp_path, db_path):
    notes = {"ＧＰＴ４ Notes.md": "Some text.\n", "gpt.md": "# GPT4 Notes\n\nOther text.\n", "x.md": "GPT4 notes, GPT4 notes.\n"}
    with _brain(tmp_path, db_path, notes) as b:
        for q in ("ＧＰＴ４ Notes", "GPT4 Notes"):
            hits = {h["slug"]: h for h in search.search(b.conn, q)}
            assert {"title", "path"} & set(hits["gpt"]["signals"]), q  # exact: GPT4 Notes
            assert "x" in hits and "ＧＰＴ４ Notes" in hits, q  # (the file name's NFKC words)
        # as typed: the full-width file name is the query itself
        hits = {h["slug"]: h for h in search.search(b.conn, "ＧＰＴ４ Notes")}
        assert {"title", "path"} & set(hits["ＧＰＴ４ Notes"]["signals"])


def test_cjk_search_reads_the_query_and_the_text_both_ways(tmp_path, db_path):
    """CJK text is indexed by the bigrams of its NFKC form (v21: ``keyword.cjk_bigrams``), as a
    query is read: half-width kana finds full-width kana and the other way round, as ``ＧＰＴ``
    finds ``GPT`` (before v21 the substring fallback found the folded spelling only)."""
    notes = {"a.md": "会議はカタカナで書く。\n", "b.md": "半角ｶﾀｶﾅの文。\n"}
    with _brain(tmp_path, db_path, notes) as b:
        assert sorted(slugs(search.search(b.conn, "ｶﾀｶﾅ"))) == ["a", "b"]  # half-width query
        assert sorted(slugs(search.search(b.conn, "カタカナ"))) == ["a", "b"]  # full-width query
        assert slugs(search.search(b.conn, "半角ｶﾀｶﾅ")) == ["b"]
        hit = search.search(b.conn, "カタカナ")
        for h in hit:  # the hit marked in the text as written
            assert [h["snippet"][x:y] for x, y in h["highlights"]] == [{"a": "カタカナ", "b": "ｶﾀｶﾅ"}[h["slug"]]]


def _old_words(conn):
    """Set every page's search_words back to what schema v14 / Postgres v12 stored for NOTES
    (no frontmatter, no CJK: nothing)."""
    conn.execute("UPDATE pages SET search_words = ''")


@pytest.mark.engine_free
def test_migration_v15_indexes_an_existing_brains_compat_words(tmp_path):
    p = tmp_path / "old.db"
    with _brain(tmp_path, p) as b:
        fresh = dict(b.conn.execute("SELECT slug, search_words FROM pages").fetchall())
    assert fresh["notes/pdf"] == "financial flow" and fresh["notes/other"] == ""
    conn = sqlite3.connect(p, isolation_level=None)
    _old_words(conn)
    conn.execute("PRAGMA user_version = 14")
    conn.close()
    with Brain.open(p) as b:
        assert b.conn.execute("PRAGMA user_version").fetchone()[0] == dbmod.SCHEMA_VERSION
        assert dict(b.conn.execute("SELECT slug, search_words FROM pages").fetchall()) == fresh
        assert slugs(search.search(b.conn, "financial")) == ["notes/pdf", "notes/plain"]
        assert slugs(search.search(b.conn, "ＧＰＴ４")) == ["notes/ime", "notes/plain"]
        b.conn.execute("INSERT INTO page_fts(page_fts, rank) VALUES ('integrity-check', 1)")
        # only the pages with compatibility characters change; a brain with none: nothing
        with b.transaction():
            _old_words(b.conn)
            assert dbmod.rederive_compat_words(b.conn) == 2
            assert dbmod.rederive_compat_words(b.conn) == 0


@pytest.mark.engine_free
def test_postgres_v13_indexes_an_existing_brains_compat_words(tmp_path, pg_url):
    """Postgres schema v13 (the Python step after its SQL) does what SQLite v15 does."""
    from gbrain.storage import pg

    [step] = [v for v, f in pg._PY_STEPS.items() if f is pg._compat_words]
    with _brain(tmp_path, pg_url) as b:
        fresh = dict(b.conn.execute("SELECT slug, search_words FROM pages").fetchall())
        assert fresh["notes/pdf"] == "financial flow"
        with b.transaction():
            _old_words(b.conn)
            b.conn.execute("DELETE FROM gbrain_schema WHERE version >= %d" % step)
    with Brain.open(pg_url) as b:
        assert pg.schema_version(b.conn) == pg.PG_SCHEMA_VERSION
        assert dict(b.conn.execute("SELECT slug, search_words FROM pages").fetchall()) == fresh
        assert slugs(search.search(b.conn, "financial")) == ["notes/pdf", "notes/plain"]
        assert slugs(search.search(b.conn, "ＧＰＴ４")) == ["notes/ime", "notes/plain"]
        with b.transaction():
            _old_words(b.conn)
            assert dbmod.rederive_compat_words(b.conn) == 2
            assert dbmod.rederive_compat_words(b.conn) == 0


def test_edits_keep_compat_words_equal_to_a_fresh_import(tmp_path, db_path):
    from gbrain.sync.verify import fresh_import_differences

    with _brain(tmp_path, db_path) as b:
        ops.run("put", {"slug": "notes/other", "compiled_truth": "# Other\n\nNow with ﬁve ｆｕｌｌ words.\n"}, brain=b)
        ops.run("put", {"slug": "notes/pdf", "compiled_truth": "# Quarterly review\n\nRetyped: financial flow.\n"}, brain=b)
        ops.run("tag", {"slug": "notes/plain", "tag": "ｍｅｅｔｉｎｇ"}, brain=b)
        assert slugs(search.search(b.conn, "five full")) == ["notes/other"]
        assert slugs(search.search(b.conn, "meeting")) == ["notes/ime", "notes/plain"]
        assert fresh_import_differences(b) == {}


def _slow_compat_words(text: str) -> list[str]:
    have = set(search._PLAIN_WORD.findall(text))
    return [w for w in search._PLAIN_WORD.findall(unicodedata.normalize("NFKC", text)) if w not in have]

#: letters, combining marks, spaces and punctuation with and without compatibility forms
_ALPHABET = list("ae ıAé\u0301\u0308\u0340\u00a0\u3000（）：…‼¨´ﬁＧｇ²①ｶﾞ会-.") + ["e\u0301", "\u00a0\u0301"]


@pytest.mark.engine_free
@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_ALPHABET), max_size=12).map("".join))
def test_the_fast_check_skips_only_text_whose_words_nfkc_keeps(text):
    """compat_words' shortcut (no-break spaces and full-width punctuation only) never hides a word."""
    if search._no_compat_words(text):
        assert _slow_compat_words(text) == []
