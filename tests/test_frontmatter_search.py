"""Search reads the frontmatter: a note is found by its tags and properties (Obsidian searches
the whole file). A vault tagged ``seedling`` in 283 notes' frontmatter found 1 of them."""
from __future__ import annotations

import sqlite3

import pytest

from gbrain.core.brain import Brain
from gbrain.search import keyword as search
from gbrain.storage import db as dbmod
from gbrain.sync.importer import import_tree

from conftest import write_tree

NOTES = {
    "garden/fern.md": "---\ntags: [seedling, plants/ferns]\nstatus: evergreen\nauthor: Ana Lima\ncreated: 2024-01-02\nsource: https://example.com/pteridophyte\n---\n# Fern\n\nA green thing.\n",
    "garden/moss.md": "---\ntags:\n  - seedling\n---\nMoss grows.\n",
    "garden/body.md": "Plain note that says seedling in its text.\n",
    "garden/other.md": "---\ntitle: Unrelated\n---\nNothing here.\n",
}


def _brain(tmp_path, db_path):
    tree = write_tree(tmp_path / "vault", NOTES)
    b = Brain.open(db_path)
    import_tree(b, tree)
    return b


def slugs(hits):
    return sorted(h["slug"] for h in hits)


def test_frontmatter_tags_and_values_are_searched(tmp_path, db_path):
    with _brain(tmp_path, db_path) as b:
        assert slugs(search.search(b.conn, "seedling")) == ["garden/body", "garden/fern", "garden/moss"]
        assert slugs(search.search(b.conn, "#seedling")) == ["garden/body", "garden/fern", "garden/moss"]
        assert slugs(search.search(b.conn, "evergreen")) == ["garden/fern"]
        assert slugs(search.search(b.conn, "ferns")) == ["garden/fern"]  # a nested tag's parts
        assert slugs(search.search(b.conn, "Ana Lima")) == ["garden/fern"]
        # dates and URLs are not words of the note
        assert search.search(b.conn, "pteridophyte") == []


@pytest.mark.engine_free
def test_search_words_leave_out_names_dates_and_urls():
    fm = {"title": "T", "aliases": ["A"], "tags": ["#seedling", "area/drinks"], "created": "2024-01-02",
          "at": "2024-01-02T10:00:00", "url": "https://x.y/z", "status": "evergreen", "n": 3, "nested": {"k": ["deep  value"]}}
    assert search.search_words("a 重跑gen-itgc后 b", "", fm) == "gen itgc #seedling area/drinks evergreen deep value"


@pytest.mark.engine_free
def test_migration_v14_fills_an_existing_brains_frontmatter_words(tmp_path):
    """A brain written before v14 gets the words a fresh import stores, and finds by them."""
    p = tmp_path / "old.db"
    with _brain(tmp_path, p) as b:
        fresh = dict(b.conn.execute("SELECT slug, search_words FROM pages").fetchall())
    conn = sqlite3.connect(p, isolation_level=None)
    conn.execute("UPDATE pages SET search_words = ''")  # as v13 stored them (none of these has CJK)
    conn.execute("PRAGMA user_version = 13")
    conn.close()
    with Brain.open(p) as b:
        assert b.conn.execute("PRAGMA user_version").fetchone()[0] == dbmod.SCHEMA_VERSION
        assert dict(b.conn.execute("SELECT slug, search_words FROM pages").fetchall()) == fresh
        assert slugs(search.search(b.conn, "evergreen")) == ["garden/fern"]
        b.conn.execute("INSERT INTO page_fts(page_fts, rank) VALUES ('integrity-check', 1)")


@pytest.mark.engine_free
def test_postgres_v11_fills_an_existing_brains_frontmatter_words(tmp_path, pg_url):
    """Postgres schema v11 (the Python step after its SQL) does what SQLite v14 does."""
    from gbrain.storage import pg

    [step] = [v for v, f in pg._PY_STEPS.items() if f is pg._search_words]
    with _brain(tmp_path, pg_url) as b:
        fresh = dict(b.conn.execute("SELECT slug, search_words FROM pages").fetchall())
        with b.transaction():
            b.conn.execute("UPDATE pages SET search_words = ''")
            b.conn.execute("DELETE FROM gbrain_schema WHERE version >= %d" % step)
    with Brain.open(pg_url) as b:
        assert pg.schema_version(b.conn) == pg.PG_SCHEMA_VERSION
        assert dict(b.conn.execute("SELECT slug, search_words FROM pages").fetchall()) == fresh
        assert slugs(search.search(b.conn, "evergreen")) == ["garden/fern"]


def test_a_path_word_is_found_by_its_stem_on_both_engines(tmp_path, db_path):
    """SQLite's porter tokenizer stems the path ("company" finds companies/…); Postgres indexed the
    path under 'simple' only and found nothing (Postgres v11 adds its 'english' stems)."""
    tree = tmp_path / "t"
    (tree / "companies").mkdir(parents=True)
    (tree / "companies" / "river-ai.md").write_text("# River AI\n\nBuilds boats.\n")
    (tree / "notes.md").write_text("Nothing here.\n")
    with Brain.open(db_path) as b:
        import_tree(b, tree)
        hits = search.search(b.conn, "company")
        assert slugs(hits) == ["companies/river-ai"] and "path" in hits[0]["signals"]
