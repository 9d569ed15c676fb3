"""A ``.raw`` sidecar's sources are spans of its stored bytes (SQLite v40, Postgres v41).

The sidecar's bytes were stored twice: as the ``files`` row (export writes them) and again as
``raw_data`` rows holding each source's JSON re-dumped (~11% of a make_brain brain, 7.6% of
big_brain's at scale 0.1). ``raw_data`` is now a view over ``raw_spans`` (where each value lies in
the bytes): every reader sees the same columns and the same values; an upgraded brain's rows
become spans; export stays byte-exact.
"""
from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gbrain import operations as ops
from gbrain.core.brain import Brain
from gbrain.storage import rawspans
from gbrain.storage.db import is_postgres
from gbrain.sync.exporter import export_tree
from gbrain.sync.importer import import_tree
from gbrain.sync.verify import fresh_import_differences

from conftest import brain_at_version

SIDECARS = {
    "people/.raw/ana.json": '{\n  "sources": {\n    "crustdata": {"name": "Ana", "n": 1.50, "e": "\\u00e9"},\n    "linkedin": [1, 2, 3]\n  }\n}\n',
    "people/.raw/bo.json": '{"a": "é ü 漢字", "b": {"sources": 1}, "a": [true, null], "c": "x\\"y"}',  # top level, a key twice
    "people/.raw/cy.json": '  [1, {"x": "ÿ"}]  \n',  # no object: one source "data"
    "people/.raw/di.json": '{"sources": 5, "k": {"sources": {}}}',  # sources no object: the top level
    "people/.raw/ed.json": '{"sources": {"a": 1}, "sources": {"b": "ü", "c": {}}}',  # the last sources
    "people/.raw/fa.json": '\ufeff{"sources": {"a": 1}}',  # a BOM: read past it (tests/test_raw_bom.py)
}


def _values(text: str) -> dict | None:
    try:
        return rawspans.raw_sources(json.loads(text.removeprefix("\ufeff")))
    except json.JSONDecodeError:
        return None


@pytest.mark.engine_free
@pytest.mark.parametrize("path", sorted(SIDECARS))
def test_the_spans_of_a_sidecar_are_its_sources_values(path):
    data = SIDECARS[path].encode("utf-8")
    rows = rawspans.sidecar_rows(data)
    want = _values(SIDECARS[path])
    if want is None:
        assert rows is None
        return
    assert [r[0] for r in rows] == list(want)
    assert all(r[3] is None for r in rows)  # every one a slice of the bytes: no second copy
    assert {k: json.loads(rawspans.row_text(data, a, n, t)) for k, a, n, t in rows} == want


json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
                           lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=5), c, max_size=4), max_leaves=12)


@pytest.mark.engine_free
@settings(max_examples=200, deadline=None)
@given(json_values, st.booleans(), st.sampled_from([None, 1, 2]), st.booleans())
def test_spans_equal_json_loads_for_any_json(value, wrap, indent, ascii_only):
    text = json.dumps({"sources": value} if wrap else value, indent=indent, ensure_ascii=ascii_only)
    data = text.encode("utf-8")
    rows = rawspans.sidecar_rows(data)
    assert {k: json.loads(rawspans.row_text(data, a, n, t)) for k, a, n, t in rows} == _values(text)


def _tree(root):
    (root / "people" / ".raw").mkdir(parents=True)
    for path, text in SIDECARS.items():
        (root / path).write_bytes(text.encode("utf-8"))
        (root / path.replace(".raw/", "").replace(".json", ".md")).write_text(f"# {path}\n")
    return root


def _reads(b: Brain) -> dict:
    """What the readers of raw_data give: ``raw`` per page (CLI/MCP), the rows' values, stats."""
    out = {}
    for name in ("ana", "bo", "cy", "di", "ed"):
        out[name] = ops.run("raw", {"slug": f"people/{name}"}, ops.Context(surface="cli"), brain=b)
    out["rows"] = sorted((p, s, json.dumps(json.loads(d), sort_keys=True)) for p, s, d in b.conn.execute("SELECT page_id, source, data FROM raw_data"))
    out["stats"] = b.stats()["raw_data"]
    return out


def test_sidecars_are_stored_once_and_read_as_before(db_path, tmp_path):
    src = _tree(tmp_path / "src")
    with Brain.open(db_path, create=True) as b:
        assert import_tree(b, src)["ok"]
        got = _reads(b)
        assert got["ana"]["crustdata"] == {"name": "Ana", "n": 1.5, "e": "é"} and got["bo"]["a"] == [True, None]
        assert got["stats"] == 11  # (fa.json past its byte order mark)
        # no source's text is stored again: each row is a span of its sidecar's row
        assert b.conn.execute("SELECT COUNT(*) FROM raw_spans WHERE data IS NOT NULL OR file_id IS NULL").fetchone()[0] == 0
        out = tmp_path / "out"
        assert export_tree(b, out)["ok"]
        # an edit through `raw` re-derives the spans of the new bytes
        ops.run("raw", {"slug": "people/ana", "source": "new", "data": {"k": "ü"}}, ops.Context(surface="cli"), brain=b)
        assert ops.run("raw", {"slug": "people/ana", "source": "new"}, ops.Context(surface="cli"), brain=b) == {"new": {"k": "ü"}}
        assert b.conn.execute("SELECT COUNT(*) FROM raw_spans WHERE data IS NOT NULL").fetchone()[0] == 0
        assert fresh_import_differences(b) == {}
    for path, text in SIDECARS.items():  # byte-exact export
        assert (out / path).read_bytes() == text.encode("utf-8"), path


@pytest.mark.pg_empty  # made at the schema before by this test, not a copy of a migrated brain
def test_a_brain_made_before_raw_spans_upgrades_with_the_same_reads(db_path, tmp_path):
    from gbrain.storage import db as dbmod

    src = _tree(tmp_path / "src")
    with brain_at_version(db_path, sqlite=39, postgres=40) as b:
        assert import_tree(b, src)["ok"]
        assert not dbmod.has_table(b.conn, "raw_spans")
        before = _reads(b)
        texts = b.conn.execute("SELECT COUNT(*) FROM raw_data").fetchone()[0]
    assert texts == 11
    with Brain.open(db_path) as b:
        assert _reads(b) == before
        # every row of a sidecar stored whole became a span of its bytes
        assert b.conn.execute("SELECT COUNT(*) FROM raw_spans WHERE data IS NULL AND file_id IS NOT NULL").fetchone()[0] == 11
        assert fresh_import_differences(b) == {}
        if not is_postgres(b.conn):
            assert b.conn.execute("PRAGMA foreign_key_check").fetchall() == []
        # writes to the view (SQL of tools written before) still work
        pid = b.conn.execute("SELECT id FROM pages WHERE slug = 'people/ana'").fetchone()[0]
        b.conn.execute("DELETE FROM raw_data WHERE page_id = ? AND source = 'linkedin'", (pid,))
        b.conn.execute("INSERT INTO raw_data(page_id, source, data) VALUES (?, 'typed', '[1]')", (pid,))
        assert ops.run("raw", {"slug": "people/ana"}, ops.Context(surface="cli"), brain=b) == {"crustdata": before["ana"]["crustdata"], "typed": [1]}
