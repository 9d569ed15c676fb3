"""A ``.raw/<name>.json`` sidecar starting with a UTF-8 byte order mark (Windows editors write
one) is read as JSON past the mark: ``raw`` shows its sources, ``raw-put`` writes into it and
keeps the mark, export gives its bytes back exactly, and the raw rows (spans of the sidecar's
bytes, counted past the mark's 3 bytes) equal a fresh import's. Before, it was "not valid JSON"
(Python's ``json.loads`` refuses a str starting with U+FEFF): no sources, ``raw-put`` refused.
A brain that stored such a sidecar before has no rows for it: SQLite v64 / Postgres v68 derives
them (``db.fill_bom_sidecars``)."""
from __future__ import annotations

import json

import pytest

from gbrain import operations as ops
from gbrain.core.brain import Brain
from gbrain.errors import BadInput
from gbrain.storage import rawspans
from gbrain.sync.exporter import export_tree
from gbrain.sync.importer import import_tree
from gbrain.sync.merge import merge_sidecar, stale_sidecar
from gbrain.sync.verify import fresh_import_differences, raw_counts

from conftest import brain_at_version

BOM = "\ufeff"
SIDECARS = {
    "people/.raw/ana.json": BOM + '{\r\n  "sources": {\r\n    "crustdata": {"name": "Ána", "n": 1.50},\r\n    "linkedin": [1, 2]\r\n  }\r\n}\r\n',
    "people/.raw/bo.json": BOM + '{"a": "é", "b": [true]}',  # no sources object: the top level
    "people/.raw/cy.json": BOM + "[1, 2]",  # no object: one source "data"
}
WANT = {"ana": {"crustdata": {"name": "Ána", "n": 1.5}, "linkedin": [1, 2]}, "bo": {"a": "é", "b": [True]}, "cy": {"data": [1, 2]}}


def _tree(root):
    (root / "people" / ".raw").mkdir(parents=True)
    for path, text in SIDECARS.items():
        (root / path).write_bytes(text.encode("utf-8"))
        (root / path.replace(".raw/", "").replace(".json", ".md")).write_text(f"# {path}\n")
    return root


def _raw(b, name, **kw):
    return ops.run("raw", {"slug": f"people/{name}", **kw}, ops.Context(surface="cli"), brain=b)


@pytest.mark.engine_free
def test_the_spans_of_a_sidecar_with_a_bom_start_past_it():
    for text in SIDECARS.values():
        data = text.encode("utf-8")
        rows = rawspans.sidecar_rows(data)
        assert rows is not None and all(t is None for _, _, _, t in rows), text
        assert all(a > 3 for _, a, _, _ in rows)  # (1-based: the mark is bytes 1-3)
        got = {k: json.loads(rawspans.row_text(data, a, n, t)) for k, a, n, t in rows}
        assert got == rawspans.raw_sources(json.loads(text[1:]))


def test_a_sidecar_with_a_bom_is_read_written_and_exported_as_json(db_path, tmp_path):
    src = _tree(tmp_path / "src")
    with Brain.open(db_path, create=True) as b:
        assert import_tree(b, src)["ok"]
        for name, want in WANT.items():
            assert _raw(b, name) == want, name
        assert b.stats()["raw_data"] == 5
        assert b.conn.execute("SELECT COUNT(*) FROM raw_spans WHERE data IS NOT NULL OR file_id IS NULL").fetchone()[0] == 0
        counts = raw_counts(b)
        assert counts["sidecars_invalid_json"] == [] and counts["raw_rows_expected"] == counts["raw_rows_stored"] == 5
        assert fresh_import_differences(b) == {}
        out = tmp_path / "out"
        assert export_tree(b, out)["ok"]
        for path, text in SIDECARS.items():
            assert (out / path).read_bytes() == text.encode("utf-8"), path
        # raw-put writes the new source into the text, the mark and every other byte kept
        r = ops.run("raw-put", {"slug": "people/ana", "source": "new", "data": {"k": "ü"}}, ops.Context(surface="cli"), brain=b)
        assert r["changed"] is True
        data = bytes(b.conn.execute("SELECT data FROM files WHERE path = 'people/.raw/ana.json'").fetchone()[0])
        assert data.startswith(BOM.encode("utf-8")) and b'"crustdata": {"name": "\xc3\x81na", "n": 1.50}' in data
        assert _raw(b, "ana") == {**WANT["ana"], "new": {"k": "ü"}}
        ops.run("raw-put", {"slug": "people/bo", "source": "more", "data": {"m": 3}}, ops.Context(surface="cli"), brain=b)
        data = bytes(b.conn.execute("SELECT data FROM files WHERE path = 'people/.raw/bo.json'").fetchone()[0])
        assert data.startswith(BOM.encode("utf-8")) and json.loads(data.decode("utf-8")[1:]) == {**WANT["bo"], "more": {"m": 3}}
        assert _raw(b, "bo") == {**WANT["bo"], "more": {"m": 3}}
        assert fresh_import_differences(b) == {}


@pytest.mark.engine_free
def test_a_sidecar_merge_keeps_the_files_bom():
    base = (BOM + '{"sources": {"a": 1, "b": 2}}\n').encode("utf-8")
    brain = (BOM + '{"sources": {"a": 5, "b": 2}}\n').encode("utf-8")
    disk = (BOM + '{"sources": {"a": 1, "b": 7}}\n').encode("utf-8")
    merged = merge_sidecar(base, brain, disk)
    assert merged is not None and merged.startswith(BOM.encode("utf-8"))
    assert json.loads(merged.decode("utf-8")[1:]) == {"sources": {"a": 5, "b": 7}}
    # a stale save of a sidecar with a mark, by member as without one
    older = (BOM + '{"sources": {"a": 1}}\n').encode("utf-8")
    newer = (BOM + '{"sources": {"a": 1, "b": 2}}\n').encode("utf-8")
    stale = (BOM + '{"sources": {"a": 3}}\n').encode("utf-8")
    v = stale_sidecar(stale, newer, [older])
    assert v is not None and json.loads(v.merged.decode("utf-8")[1:]) == {"sources": {"a": 3, "b": 2}}


@pytest.mark.pg_empty  # made at the schema before by this test, not a copy of a migrated brain
def test_a_brain_that_stored_bom_sidecars_without_rows_upgrades_to_a_fresh_imports_rows(db_path, tmp_path, monkeypatch):
    src = _tree(tmp_path / "src")
    (src / "people" / ".raw" / "di.json").write_text('{"sources": {"plain": 1}}')  # no mark: left alone
    (src / "people" / "di.md").write_text("# di\n")
    with monkeypatch.context() as m:
        m.setattr(rawspans, "json_text", lambda data: ("", bytes(data).decode("utf-8")))  # the reading before
        with brain_at_version(db_path, sqlite=63, postgres=67) as b:
            assert import_tree(b, src)["ok"]
            assert b.stats()["raw_data"] == 1  # di's only: the marked sidecars gave none
            di = b.conn.execute("SELECT id, source, file_id, start, len FROM raw_spans").fetchall()
    with Brain.open(db_path) as b:
        for name, want in WANT.items():
            assert _raw(b, name) == want, name
        assert b.stats()["raw_data"] == 6
        assert b.conn.execute("SELECT id, source, file_id, start, len FROM raw_spans WHERE source = 'plain'").fetchall() == di  # untouched
        assert fresh_import_differences(b) == {}


@pytest.mark.pg_empty
@pytest.mark.parametrize("marked, plain", [("ana.json", "ana.JSON"), ("ana.JSON", "ana.json")])
def test_a_page_with_two_sidecars_one_marked_upgrades_to_a_fresh_imports_rows(db_path, tmp_path, monkeypatch, marked, plain):
    """``ana.JSON`` beside ``ana.json`` are both sidecars of ``people/ana``: an import takes the
    rows of the one named as its page (``slugs.chosen_sidecar``: ``ana.json``), so the upgrade
    derives a page's rows from that one when any of its sidecars starts with a mark (not only a
    page with one sidecar)."""
    src = tmp_path / "src"
    (src / "people" / ".raw").mkdir(parents=True)
    (src / "people" / "ana.md").write_text("# ana\n")
    (src / "people" / ".raw" / marked).write_bytes((BOM + '{"sources": {"marked": 2}}').encode("utf-8"))
    (src / "people" / ".raw" / plain).write_bytes(b'{"sources": {"plain": 1}}')
    with monkeypatch.context() as m:
        m.setattr(rawspans, "json_text", lambda data: ("", bytes(data).decode("utf-8")))  # the reading before
        with brain_at_version(db_path, sqlite=63, postgres=67) as b:
            import_tree(b, src)
            assert b.conn.execute("SELECT COUNT(*) FROM files WHERE kind = 'raw'").fetchone()[0] == 2
    with Brain.open(db_path) as b:
        assert _raw(b, "ana") == ({"marked": 2} if marked == "ana.json" else {"plain": 1})
        assert fresh_import_differences(b) == {}


def test_raw_data_for_a_page_whose_name_leaves_no_room_for_its_sidecar_is_refused(db_path, tmp_path):
    # review of trial 66: an imported page named by 252 bytes (a file NAME.md of 255) took raw data
    # into .raw/NAME.json, 257 bytes: no file system holds it, so export failed (Validation: FAILED)
    src = tmp_path / "v"
    (src / "notes").mkdir(parents=True)
    name = "é" * 126  # 252 bytes: NAME.md is 255, the longest file name
    (src / "notes" / f"{name}.md").write_text("hello\n", encoding="utf-8")
    with Brain.open(db_path) as b:
        assert import_tree(b, src)["ok"]
        with pytest.raises(BadInput) as e:
            ops.run("raw", {"slug": f"notes/{name}", "source": "x", "data": {"a": 1}}, brain=b)
        assert "255" in str(e.value) and "move" in str(e.value)
        out = tmp_path / "out"
        assert export_tree(b, out)["ok"]
        ops.run("move", {"slug": f"notes/{name}", "to": "notes/short"}, brain=b)  # the way out the error names
        ops.run("raw", {"slug": "notes/short", "source": "x", "data": {"a": 1}}, brain=b)
