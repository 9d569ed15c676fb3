"""A prefix (``word*``) that matches a page's title is a ``title`` signal (trial64). On SQLite
``invadop*`` listed a page titled *Invadopodia in cancer* with ``signals: []``: the name pass
counted each query word's pages without its ``*`` (df 0), so a prefix never reached it, while a
word typed whole (``invadopodia``) gave ``["title"]``. Both engines (``--engine postgres``)."""
from __future__ import annotations

from conftest import search_brain, search_hits

NOTES = {
    "notes/a.md": "---\ntitle: Invadopodia in cancer\n---\nA short note.\n",
    "notes/b.md": "---\ntitle: Other\n---\nInvadopodia appear here in the body text only.\n",
    **{f"filler/f{i}.md": f"# Note {i}\n\nPlain text {i} about work and the weather.\n" for i in range(8)},
}


brain = search_brain(NOTES)


def signals(b, query: str) -> dict[str, list[str]]:
    return {h["slug"]: h["signals"] for h in search_hits(b, query, limit=10)}


def test_a_prefix_matching_a_title_says_title(brain):
    assert signals(brain, "invadopodia") == {"notes/a": ["title"], "notes/b": ["body"]}
    got = signals(brain, "invadop*")
    assert got["notes/b"] == ["body"]
    assert got["notes/a"] == ["title"]


def test_every_hit_names_a_field(brain):
    """No hit of a prefix query comes with empty ``signals``."""
    for q in ("invadop*", "inva*", "invadopodia*"):
        assert all(s for s in signals(brain, q).values()), q
