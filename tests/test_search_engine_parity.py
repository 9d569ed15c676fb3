"""Postgres ranks a page by its names and headings as SQLite does (measured: trial37's "how does
RoPE encode token positions" put *Rotary Embedding*, whose H1 is "Rotary Position Embedding (RoPE)",
first on SQLite and 6th on Postgres, docs/search.md "Both engines"). Postgres indexes aliases (an
H1 other than the title is one) in the 'simple' configuration, as written, where SQLite's FTS5
stems them: ``positions`` named the page by its H1 on SQLite only; and the headings evidence
(``keyword.HEADING_WEIGHT``) was SQLite's only. Both engines (``--engine postgres``)."""
from __future__ import annotations

import pytest

from gbrain.core.brain import Brain
from gbrain.search import keyword
from gbrain.sync.importer import import_tree

from conftest import write_tree


@pytest.fixture
def brain(tmp_path, db_path):
    notes = {
        "concepts/rotary-embedding.md": "---\ntitle: Rotary Embedding\n---\n# Rotary Position Embedding (RoPE)\n\n"
                                        "Rotates the query and key vectors by an angle. " + " ".join(f"word{i}" for i in range(20)) + "\n",
        "models/qwen.md": "# Qwen\n\nQwen uses RoPE for token positions; RoPE scaling stretches the positions "
                          "to a longer context. RoPE positions again.\n",
        "models/llama.md": "# Llama\n\nLlama encodes positions with RoPE too.\n",
    }
    notes.update({f"f{i}.md": f"# Filler {i}\n\nfiller text number {i} about nothing.\n" for i in range(20)})
    tree = write_tree(tmp_path / "vault", notes)
    with Brain.open(db_path) as b:
        import_tree(b, tree)
        yield b


def _hits(b, query: str) -> list[dict]:
    return keyword.search(b.conn, query, limit=10)


def test_an_h1_names_its_page_by_a_plural(brain):
    # (Qwen's body holds both words three times: its BM25 is the best; the H1 names the other page)
    hits = _hits(brain, "RoPE positions")
    assert hits[0]["slug"] == "concepts/rotary-embedding", [(h["slug"], h["score"]) for h in hits]
