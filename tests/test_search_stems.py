"""A page is named by a query word as written, not by a word sharing its porter stem (a user
trial on the Obsidian Hub: ``edited atomically`` put the theme *Atom* and the plugin
*note-atomizer* above the one note saying "edited atomically": porter turns ``atomically`` into
``atom``, and the name evidence and the title's BM25 weight fired on the stem). A stem-only match
still counts as text. Both engines: SQLite's ``_rank`` and Postgres' ``_rank_pg`` (whose 'english'
tsvector stems the title, the path and the headings as porter does)."""
from __future__ import annotations

import pytest

from gbrain.core.brain import Brain
from gbrain.search import keyword
from gbrain.sync.importer import import_tree

from conftest import write_tree


@pytest.fixture
def brain(tmp_path, db_path):
    notes = {
        "Atom.md": "# Atom\nA dark theme. Edit in GitHub.\n",
        "note-atomizer.md": "---\naliases: [Atomizer]\n---\n# note-atomizer\n\n## Usage\nSplit a note. Edit in GitHub.\n",
        "target.md": "# Target\nSome text edited atomically here.\n",
        "Themes/Minimal.md": "# Minimal\nA clean look for your vault.\n",
        "Theme gallery.md": "# Theme gallery\nEvery theme: Minimal, Atom, Things.\n",
    }
    notes.update({f"f{i}.md": f"filler {i} edit\n" for i in range(20)})
    tree = write_tree(tmp_path / "vault", notes)
    with Brain.open(db_path) as b:
        import_tree(b, tree)
        yield b


def _slugs(b, query: str) -> list[str]:
    return [h["slug"] for h in keyword.search(b.conn, query, limit=5)]


def test_a_stem_shared_with_a_title_is_not_its_name(brain):
    slugs = _slugs(brain, "edited atomically")
    assert slugs[0] == "target", slugs
    hits = keyword.search(brain.conn, "edited atomically", limit=5)
    # Atom and note-atomizer are still found (the stem is text evidence), below the target
    assert {"Atom", "note-atomizer"} <= {h["slug"] for h in hits[1:]}, slugs


def test_a_name_written_as_in_the_query_still_names_the_page(brain):
    assert _slugs(brain, "atom")[0] == "Atom"
    assert _slugs(brain, "ATOM")[0] == "Atom"
    assert _slugs(brain, "atomizer")[0] == "note-atomizer"
    # a plural names the singular name, and a prefix the names it begins
    assert _slugs(brain, "atoms")[0] == "Atom"
    assert _slugs(brain, "minimal themes")[0] == "Themes/Minimal"
    assert set(_slugs(brain, "atom*")[:2]) == {"Atom", "note-atomizer"}


@pytest.mark.engine_free
@pytest.mark.parametrize("word, name, named", [
    ("atomically", "Atom", False),
    ("edited", "Edit in GitHub", True),
    ("atomizer", "Atom", False),
    ("atom", "Atom", True),
    ("Café", "cafe-notes/x.md", True),
    ("ﬁnance", "Finance", True),
    ("theme", "Themes/Minimal", True),
    ("themes", "Theme", True),
    ("boxes", "Box", True),
])
def test_names_word(word, name, named):
    assert keyword.names_word(word, keyword.name_words(name)) is named


def test_a_title_but_for_a_plural_s_is_the_name_the_query_types(tmp_path, db_path):
    """Trial 30 (llm-wiki vault): `search "diffusion model"` put *Stable Diffusion — Latent
    Diffusion Model* above the note titled *Diffusion Models*: the exact-name bonus took the
    title only as typed. A query that is a page's whole title, file name or alias but for a
    plural ``s``/``es`` on its last word names that page, as ``names_word`` takes such a word;
    a page named exactly as typed keeps the tie-break (it is found by both). Both engines."""
    notes = {
        "concepts/diffusion-models.md": ("---\ntitle: Diffusion Models\ntags: [ai, diffusion]\n---\n\n# Diffusion Models\n\n"
                                         "扩散模型，生成式 AI 的核心技术之一。广泛应用于图像、音频、视频生成。\n\n## 相关\n\n- [[Stable Diffusion]]\n"),
        "tools/stable-diffusion.md": ("---\ntitle: Stable Diffusion — Latent Diffusion Model\naliases: [\"Stable Diffusion\"]\n---\n\n"
                                      "# Stable Diffusion — Latent Diffusion Model\n\n## Diffusion model\n\nA latent diffusion model: "
                                      "the diffusion model runs in a latent space; diffusion model training is cheaper.\n"),
        "notes/box.md": "# Box\n\nA box.\n",
        "notes/boxes.md": "# Boxes\n\nMany boxes.\n",
    }
    notes.update({f"f{i}.md": f"filler {i} model\n" for i in range(20)})
    tree = write_tree(tmp_path / "vault", notes)
    with Brain.open(db_path) as b:
        import_tree(b, tree)
        hits = keyword.search(b.conn, "diffusion model", limit=5)
        assert hits[0]["slug"] == "concepts/diffusion-models", [(h["slug"], h["score"], h["signals"]) for h in hits]
        assert "title" in hits[0]["signals"]
        assert _slugs(b, "box")[0] == "notes/box" and _slugs(b, "boxes")[0] == "notes/boxes"
        assert set(_slugs(b, "box")[:2]) == {"notes/box", "notes/boxes"}
