"""Obsidian canvases (``.canvas``, JSON Canvas: https://jsoncanvas.org) link the notes they hold:
a file node's ``file`` (a vault path, ``subpath`` ``#Heading``) and the wiki/markdown links of a
text card. Obsidian lists the canvas in those notes' backlinks and counts it in the graph. gbrain
keeps the canvas as a stored file, byte for byte, and reads its links from its bytes when asked
(``Brain.canvas_links``): ``backlinks NOTE`` lists the canvas, lint's ``orphans`` spares a note a
canvas reaches (trial 27)."""
from __future__ import annotations

import json

import pytest

from gbrain.core.brain import Brain
from gbrain.core.lint import _orphans

from conftest import gbrain_in_process

BOARD = {
    "nodes": [
        {"id": "a1", "type": "file", "file": "Notes/Project Alpha.md", "x": 0, "y": 0, "width": 400, "height": 400},
        {"id": "a2", "type": "file", "file": "Notes/Meeting.md", "subpath": "#Decisions", "x": 500, "y": 0, "width": 400, "height": 400},
        {"id": "a3", "type": "text", "text": "Ask [[Bob]] about it, see [spec](../Notes/Spec.md) #canvastag", "x": 0, "y": 500, "width": 250, "height": 60},
        {"id": "a4", "type": "file", "file": "Attachments/fig.png", "x": 0, "y": 600, "width": 100, "height": 100},
        {"id": "a5", "type": "link", "url": "https://obsidian.md", "x": 0, "y": 700, "width": 100, "height": 100},
        {"id": "a6", "type": "group", "label": "Group", "x": -10, "y": -10, "width": 1000, "height": 1000},
        {"id": "a7", "type": "file", "file": "Notes/Gone.md", "x": 0, "y": 800, "width": 100, "height": 100},
    ],
    "edges": [{"id": "e1", "fromNode": "a1", "toNode": "a2"}],
}
# Obsidian writes tabs; the bytes must come back exactly
BOARD_BYTES = json.dumps(BOARD, indent="\t", ensure_ascii=False).encode()


def _brain(db_path, canvas: bytes = BOARD_BYTES) -> Brain:
    b = Brain.open(db_path, create=True)
    for n in ("Notes/Project Alpha", "Notes/Meeting", "Bob", "Notes/Spec", "Lonely"):
        b.put(n, f"# {n.split('/')[-1]}\n\nText.\n")
    b.save_file("Canvas/Board.canvas", canvas)
    return b


def test_backlinks_of_a_note_list_the_canvas_holding_it(db_path):
    with _brain(db_path) as b:
        for slug in ("Notes/Project Alpha", "Notes/Meeting", "Bob", "Notes/Spec"):
            got = [x for x in b.backlinks(slug) if x["slug"] == "Canvas/Board.canvas"]
            assert len(got) == 1, (slug, b.backlinks(slug))
            assert got[0]["type"] == "canvas" and got[0]["count"] == 1
        assert [x["forms"] for x in b.backlinks("Notes/Meeting")] == [["file: Notes/Meeting.md#Decisions"]]
        assert [x["forms"] for x in b.backlinks("Bob")] == [["[[Bob]]"]]
        assert b.backlinks("Lonely") == []
        assert [(x["kind"], x["target"], x["to_slug"]) for x in b.canvas_links("Canvas/Board.canvas")] == [
            ("file", "Notes/Project Alpha.md", "Notes/Project Alpha"),
            ("file", "Notes/Meeting.md", "Notes/Meeting"),
            ("wiki", "Bob", "Bob"),
            ("markdown", "../Notes/Spec", "Notes/Spec"),
            ("file", "Attachments/fig.png", None),
            ("file", "Notes/Gone.md", None),
        ]


def test_backlinks_cli_lists_the_canvas(db_path):
    _brain(db_path).close()
    r = gbrain_in_process("backlinks", "Notes/Project Alpha", "--db", str(db_path), "--json")
    assert r.returncode == 0, r.stderr
    assert "Canvas/Board.canvas" in r.stdout.decode()


def test_orphans_spare_a_note_only_a_canvas_reaches(db_path):
    with _brain(db_path) as b:
        assert [o["slug"] for o in _orphans(b)] == ["Lonely"]


def test_a_canvas_edit_moves_its_backlinks(db_path):
    with _brain(db_path) as b:
        board = dict(BOARD, nodes=[n for n in BOARD["nodes"] if n["id"] != "a1"])
        b.save_file("Canvas/Board.canvas", json.dumps(board).encode())
        assert b.backlinks("Notes/Project Alpha") == []
        assert "Notes/Project Alpha" in [o["slug"] for o in _orphans(b)]


def test_a_malformed_canvas_imports_with_a_warning_and_comes_back_byte_exact(tmp_path, db_path):
    v = tmp_path / "v"
    (v / "Canvas").mkdir(parents=True)
    (v / "Bob.md").write_text("Bob.\n")
    bad = b'{"nodes": [{"id": "x", "type": "file", "file": "Bob.md"}, \n'
    (v / "Canvas" / "Broken.canvas").write_bytes(bad)
    (v / "Canvas" / "Board.canvas").write_bytes(b'{"nodes":[{"id":"x","type":"file","file":"Bob.md"}]}\r\n')
    r = gbrain_in_process("import", str(v), "--db", str(db_path))
    assert r.returncode == 0, r.stderr
    assert "Canvas/Broken.canvas" in r.stderr.decode() and "not JSON" in r.stderr.decode()
    out = tmp_path / "out"
    r = gbrain_in_process("export", "--dir", str(out), "--db", str(db_path))
    assert r.returncode == 0, r.stderr
    assert (out / "Canvas" / "Broken.canvas").read_bytes() == bad
    assert (out / "Canvas" / "Board.canvas").read_bytes() == b'{"nodes":[{"id":"x","type":"file","file":"Bob.md"}]}\r\n'
    with Brain.open(db_path) as b:
        assert [x["slug"] for x in b.backlinks("Bob")] == ["Canvas/Board.canvas"]
        assert b.canvas_links("Canvas/Broken.canvas") == []


def test_lint_reports_a_canvas_node_a_rename_outside_obsidian_left_behind(tmp_path, db_path):
    v = tmp_path / "v"
    (v / "Notes").mkdir(parents=True)
    (v / "Notes" / "Old.md").write_text("# Old\n\nA note.\n")
    canvas = b'{"nodes":[{"id":"x","type":"file","file":"Notes/Old.md"},{"id":"y","type":"text","text":"see [[Nowhere]]"}]}'
    (v / "Board.canvas").write_bytes(canvas)
    assert gbrain_in_process("import", str(v), "--db", str(db_path)).returncode == 0
    (v / "Notes" / "Old.md").rename(v / "Notes" / "New.md")
    assert gbrain_in_process("import", str(v), "--db", str(db_path)).returncode == 0
    r = gbrain_in_process("lint", "--check", "dead_links", "--json", "--db", str(db_path))
    found = [x for x in json.loads(r.stdout)["items"] if x["slug"] == "Board.canvas"]
    assert [(x["target"], x["suggestions"]) for x in found] == [("Notes/Old.md", ["Notes/New"]), ("Nowhere", [])]
    assert "Notes/New" in found[0]["message"] and "file node" in found[0]["message"]
    assert (v / "Board.canvas").read_bytes() == canvas  # reported, never rewritten
    with Brain.open(db_path) as b:
        assert b.backlinks("Notes/New") == []
        assert "Notes/New" in [o["slug"] for o in _orphans(b)]


def test_links_of_a_canvas_are_its_nodes_and_cards(db_path):
    _brain(db_path).close()
    r = gbrain_in_process("links", "Canvas/Board.canvas", "--db", str(db_path), "--json")
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    got = got["items"] if isinstance(got, dict) else got
    assert [x["to_slug"] for x in got] == ["Notes/Project Alpha", "Notes/Meeting", "Bob", "Notes/Spec", None, None]
    r = gbrain_in_process("links", "Attachments/nothing.png", "--db", str(db_path))
    assert r.returncode == 1 and b"no page" in r.stderr


def test_canvas_links_after_edits_equal_a_fresh_import(tmp_path, db_path):
    from gbrain.sync.verify import derived_snapshot, fresh_import_differences

    v = tmp_path / "v"
    (v / "Notes").mkdir(parents=True)
    for n in ("A", "B", "C"):
        (v / "Notes" / f"{n}.md").write_text(f"# {n}\n")
    (v / "Board.canvas").write_bytes(b'{"nodes":[{"id":"x","type":"file","file":"Notes/A.md"},{"id":"y","type":"text","text":"[[Later]] and [[B]]"}]}')
    assert gbrain_in_process("import", str(v), "--db", str(db_path)).returncode == 0
    with Brain.open(db_path) as b:
        b.save_file("Board.canvas", b'{"nodes":[{"id":"y","type":"text","text":"[[Later]], [[C]] #card"}]}')  # an edit: A dropped, C added
        b.put("Later", "# Later\n")  # the dangling card link now resolves
        b.delete_page("Notes/B") if hasattr(b, "delete_page") else b.delete("Notes/B")
        snap = derived_snapshot(b)["canvas_links"]
        assert [(r[2], r[3]) for r in snap] == [("C", "Notes/C"), ("Later", "Later")]
        assert fresh_import_differences(b) == {}


@pytest.mark.engine_free
def test_a_deeply_nested_canvas_reads_alike_from_any_caller():
    """Whether a canvas nested some hundreds of levels reads (its links, its searchable cards)
    hung on Python's recursion limit, which counts the caller's own frames: 985 levels read from
    a shallow call and gave 'nested too deep' 60 frames further down (a save from sync or MCP
    beside a fresh import: derived rows that differ). The depth is now bounded by the bytes
    alone (canvas.MAX_DEPTH), the same from every caller."""
    from gbrain.page.canvas import MAX_DEPTH, load_canvas

    def canvas(n: int) -> bytes:
        return b'{"nodes": [{"id": "a", "type": "text", "text": "hi [x]", "x": ' + b"[" * n + b"1" + b"]" * n + b'}]}'

    def deep(k: int, data: bytes):
        return load_canvas(data) if k == 0 else deep(k - 1, data)

    for n in (MAX_DEPTH - 4, MAX_DEPTH + 1, 985):
        data = canvas(n)
        assert load_canvas(data) == deep(150, data), n
    assert load_canvas(canvas(MAX_DEPTH - 4))[0] is not None
    assert load_canvas(canvas(MAX_DEPTH + 1))[0] is None
    assert load_canvas(b'{"nodes": [], "t": "' + b"[" * 2000 + b'"}')[0] == []  # brackets in a string are no nesting
