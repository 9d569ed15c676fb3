"""A prefix (``word*``) that matches a page's title is a ``title`` signal (trial64). On SQLite
``invadop*`` listed a page titled *Invadopodia in cancer* with ``signals: []``: the name pass
counted each query word's pages without its ``*`` (df 0), so a prefix never reached it, while a
word typed whole (``invadopodia``) gave ``["title"]``. Both engines (``--engine postgres``)."""
from __future__ import annotations

import pytest

from gbrain.core.brain import Brain
from gbrain.search import keyword
from gbrain.sync.importer import import_tree

from conftest import write_tree

NOTES = {
    "notes/a.md": "---\ntitle: Invadopodia in cancer\n---\nA short note.\n",
    "notes/b.md": "---\ntitle: Other\n---\nInvadopodia appear here in the body text only.\n",
    **{f"filler/f{i}.md": f"# Note {i}\n\nPlain text {i} about work and the weather.\n" for i in range(8)},
}


@pytest.fixture
def brain(tmp_path, db_path):
    with Brain.open(db_path) as b:
        import_tree(b, write_tree(tmp_path / "vault", NOTES))
        yield b


def signals(b, query: str) -> dict[str, list[str]]:
    return {h["slug"]: h["signals"] for h in keyword.search(b.conn, query, limit=10)}


def test_a_prefix_matching_a_title_says_title(brain):
    assert signals(brain, "invadopodia") == {"notes/a": ["title"], "notes/b": ["body"]}
    got = signals(brain, "invadop*")
    assert got["notes/b"] == ["body"]
    assert got["notes/a"] == ["title"]


def test_every_hit_names_a_field(brain):
    """No hit of a prefix query comes with empty ``signals``."""
    for q in ("invadop*", "inva*", "invadopodia*"):
        assert all(s for s in signals(brain, q).values()), q
