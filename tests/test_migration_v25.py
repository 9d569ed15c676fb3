"""Migration v25 / pg_v25.sql: the derived tables trimmed (docs/performance.md, "The derived
tables' schema trimmed"). A brain made at v24 keeps every row (ids included) of ``links``,
``tags``, ``aliases``, ``raw_data`` and ``timeline_entries``; loses ``links.created_at``,
``timeline_entries.created_at``, ``idx_aliases_page`` and ``idx_raw_data_page`` (and, on SQLite,
``AUTOINCREMENT`` on those tables); and its derived views equal a fresh import of its tree, before
and after more writes."""
from __future__ import annotations

import pytest

from gbrain import operations as ops
from gbrain.core.brain import Brain
from gbrain.storage.db import is_postgres
from gbrain.sync.importer import import_tree
from gbrain.sync.verify import fresh_import_differences

from conftest import brain_at_version

#: the rows compared across the migration: every column v25 keeps, ids included
KEPT = {
    "links": "id, from_page_id, to_page_id, kind, target, target_name, context, count, forms",
    "tags": "id, page_id, tag, tag_key, inline",
    "aliases": "id, page_id, alias, alias_key, loose_key",
    "raw_data": "id, page_id, source, data, fetched_at",
    "timeline_entries": "id, page_id, date, source, summary, detail",
}
DROPPED_INDEXES = {"idx_aliases_page", "idx_raw_data_page"}
KEPT_INDEXES = {"idx_links_from", "idx_links_to", "idx_links_target_name", "idx_tags_tag", "idx_tags_page_id", "idx_tags_tag_key",
                "idx_aliases_key", "idx_aliases_loose", "idx_timeline_page", "idx_timeline_date"}


def run(b, name, **args):
    return ops.run(name, args, ops.Context(surface="cli"), brain=b)


def rows(b) -> dict[str, list[tuple]]:
    return {t: [tuple(r) for r in b.conn.execute(f"SELECT {cols} FROM {t} ORDER BY id")] for t, cols in KEPT.items()}


def columns(b, table: str) -> set[str]:
    return {r[1] for r in b.conn.execute(f"PRAGMA table_info({table})")}


def indexes(b) -> set[str]:
    if is_postgres(b.conn):
        return {r[0] for r in b.conn.execute("SELECT indexname FROM pg_indexes WHERE schemaname = current_schema()")}
    return {r[0] for r in b.conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}


def at_v24(db_path, tree) -> dict[str, list[tuple]]:
    """Import ``tree`` into a new brain held at schema v24, make a few edits; its rows."""
    with brain_at_version(db_path, sqlite=24, postgres=24) as b:
        assert import_tree(b, tree)["ok"]
        run(b, "put", slug="concepts/lean-schema", content="---\naliases: [Lean Schema, Trimmed]\ntags: [schema]\n---\n"
            "# Lean schema\n\nSee [[Trimmed]], [[Ana Lima]] and [[Nowhere Yet]].\n\n---\n\n- **2026-12-01** | note — made at v24\n")
        run(b, "tag", slug="people/ana-lima", tag="v24-tag")
        run(b, "link", **{"from": "people/ana-lima", "to": "companies/river-ai"}, context="before v25")
        run(b, "timeline-add", slug="people/ana-lima", date="2026-12-03", summary="Made at v24")
        assert "created_at" in columns(b, "links") and "created_at" in columns(b, "timeline_entries")
        assert DROPPED_INDEXES <= indexes(b)
        before = rows(b)
    assert all(before[t] for t in ("links", "tags", "aliases", "raw_data", "timeline_entries")), {t: len(v) for t, v in before.items()}
    return before


@pytest.mark.pg_empty  # made at v24 by this test, not a copy of a migrated brain
def test_a_brain_made_at_v24_keeps_every_derived_row_and_loses_only_the_trimmed_schema(db_path, brain_tree):
    before = at_v24(db_path, brain_tree)
    with Brain.open(db_path) as b:
        assert rows(b) == before
        assert "created_at" not in columns(b, "links") and "created_at" not in columns(b, "timeline_entries")
        assert columns(b, "raw_data") >= {"fetched_at"}  # shown by `raw`: kept
        have = indexes(b)
        assert not DROPPED_INDEXES & have and KEPT_INDEXES <= have
        if not is_postgres(b.conn):
            for t in KEPT:
                # (raw_data is a view of raw_spans since v40)
                sql = b.conn.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", ("raw_spans" if t == "raw_data" else t,)).fetchone()[0]
                assert "AUTOINCREMENT" not in sql.upper(), t
            assert not b.conn.execute(f"SELECT name FROM sqlite_sequence WHERE name IN ({', '.join('?' * len(KEPT))})", tuple(KEPT)).fetchall()
            assert b.conn.execute("SELECT name FROM sqlite_sequence WHERE name = 'pages'").fetchone()  # pages keep theirs
            assert b.conn.execute("PRAGMA foreign_key_check").fetchall() == []
            assert b.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert fresh_import_differences(b) == {}


@pytest.mark.pg_empty
def test_a_migrated_brain_written_again_equals_a_fresh_import(db_path, brain_tree):
    """After v25, writes that delete the rows holding the highest ids and insert new ones (whose
    ids SQLite may now give again) keep each page's rows in the order written and the brain equal
    to a fresh import of its tree."""
    at_v24(db_path, brain_tree)
    with Brain.open(db_path) as b:
        # the newest rows (highest ids) are ana-lima's: her page rewritten deletes and re-inserts them
        top = b.conn.execute("SELECT MAX(id) FROM links").fetchone()[0]
        assert b.conn.execute("SELECT p.slug FROM links l JOIN pages p ON p.id = l.from_page_id WHERE l.id = ?", (top,)).fetchone()[0] == "people/ana-lima"
        text = run(b, "get", slug="people/ana-lima")["content"]
        run(b, "delete", slug="people/ana-lima")
        run(b, "put", slug="people/ana-lima", content=text + "\nSee [[Bruno Okafor]] and [River AI](../companies/river-ai.md).\n")
        run(b, "tag", slug="people/ana-lima", tag="after-v25")
        run(b, "timeline-add", slug="people/ana-lima", date="2026-12-04", summary="Written at v25")
        run(b, "unlink", **{"from": "people/ana-lima", "to": "companies/river-ai"})
        assert fresh_import_differences(b) == {}
        got = run(b, "tags", slug="people/ana-lima")
        tags = [t["tag"] if isinstance(t, dict) else t for t in (got["items"] if isinstance(got, dict) else got)]
        assert tags[-1] == "after-v25" and "v24-tag" in tags
        got = run(b, "timeline", slug="people/ana-lima")
        dates = [e["date"] for e in (got["items"] if isinstance(got, dict) else got)]
        assert dates[0] == "2026-12-04"  # newest first
