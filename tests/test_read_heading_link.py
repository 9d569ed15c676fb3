"""A read by a wiki link's target with its heading or block (``東京#歴史``, ``Note#^id``, as an
agent copies it from ``[[東京#歴史]]``) reads the page the link points at (trial 43: "no page
'東京#歴史'", no suggestion). A page whose name holds a ``#`` is still read by it; a write never
follows. Both engines."""
from __future__ import annotations

import pytest

from conftest import write_tree
from gbrain import operations as ops
from gbrain.core.brain import Brain
from gbrain.errors import NotFound
from gbrain.sync.importer import import_tree


@pytest.fixture
def brain(tmp_path, db_path):
    write_tree(tmp_path / "v", {
        "Orte/東京.md": "---\naliases: [Tokyo]\n---\n# 東京\n\n## 歴史\n\n江戸。\n",
        "C#.md": "# C#\n\nA language.\n",
        "C.md": "# C\n\nAnother.\n",
        "a/Note.md": "# Note\n\nx ^id1\n", "b/Note.md": "# Note\n\ny\n",
        "links.md": "See [[東京#歴史]], [[Tokyo#歴史]] and [[Orte/東京#歴史]].\n",
    })
    with Brain.open(db_path) as b:
        import_tree(b, tmp_path / "v")
        yield b


@pytest.mark.parametrize("name", ["東京#歴史", "Tokyo#歴史", "Orte/東京#歴史", "東京#^block", "東京#"])
def test_a_link_target_with_a_heading_reads_its_page(brain, name):
    r = ops.run("get", {"slug": name}, ops.Context(), brain=brain)
    assert r["slug"] == "Orte/東京"
    assert [x["slug"] for x in ops.run("backlinks", {"slug": name}, ops.Context(), brain=brain)] == ["links"]


def test_a_page_named_with_a_hash_is_itself(brain):
    assert ops.run("get", {"slug": "C#"}, ops.Context(), brain=brain)["slug"] == "C#"


def test_a_miss_and_an_ambiguous_name_stay_errors(brain):
    with pytest.raises(NotFound, match="no page 'Nowhere#x'"):
        ops.run("get", {"slug": "Nowhere#x"}, ops.Context(), brain=brain)
    with pytest.raises(NotFound, match="2 pages"):
        ops.run("get", {"slug": "Note#^id1"}, ops.Context(), brain=brain)


def test_a_write_does_not_follow(brain):
    ops.run("put", {"slug": "Orte/東京#歴史", "content": "x\n", "if_hash": ""}, ops.Context(), brain=brain)
    assert brain.page_row("Orte/東京#歴史") is not None
    assert "江戸" in ops.run("get", {"slug": "Orte/東京"}, ops.Context(), brain=brain)["content"]
