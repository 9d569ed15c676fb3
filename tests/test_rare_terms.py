"""A rare query word outweighs common ones, on both engines (``--engine postgres``). A team brain
on Postgres found ``hiring freeze`` burying the one page holding ``freeze`` below pages that only
say ``hiring`` (it was not in the top 50; SQLite ranked it first): Postgres ranked with
``ts_rank_cd``, which has no inverse document frequency, over a candidate set that a page with
only the rare word could miss. The brain is a realistic one (``make_brain.py``, 500 pages, whose
~80-word vocabulary puts ``churn``, ``hiring`` and ``agent`` in most pages); the queries and the
expected pages were written from reading those pages (``grep``: ``freeze``, ``summarises``,
``week`` and ``zebrafish`` are in none of them) before any search was run."""
from __future__ import annotations

import pytest

from gbrain.core.brain import Brain
from gbrain.search import keyword
from gbrain.sync.importer import import_tree

from conftest import make_brain

MEMO = "# Quarterly memo\n\nOur quarterly memo covers churn and the hiring freeze.\n"
CLEO = "# Cleo notes\n\nEvery Friday the agent summarises the week for the team.\n"
#: a person page that does not say ``churn`` (make_brain seed 1): ``zebrafish`` is added to it
ZEBRA = "people/bruno-lima.md"

#: (query, the page expected first): each query's rare words are in that page only
SHAPES = [
    ("freeze", "notes/quarterly-memo"),
    ("hiring freeze", "notes/quarterly-memo"),
    ("churn hiring freeze", "notes/quarterly-memo"),
    ("agent summarises the week", "agents/cleo-notes"),
    ("churn zebrafish", "people/bruno-lima"),
]


@pytest.fixture
def brain(tmp_path, db_path):
    tree = make_brain(tmp_path / "tree", 500)
    with Brain.open(db_path) as b:
        import_tree(b, tree)
        b.save_page("notes/quarterly-memo.md", MEMO)
        b.save_page("agents/cleo-notes.md", CLEO)
        text = (tree / ZEBRA).read_text(encoding="utf-8")
        assert "churn" not in text.casefold() and "zebrafish" not in text
        b.save_page(ZEBRA, text.replace("\n## Timeline", "\nShe keeps a zebrafish tank in the lab.\n\n## Timeline", 1))
        yield b


def test_the_page_with_the_rare_words_ranks_first(brain):
    got = {}
    for query, want in SHAPES:
        slugs = [h["slug"] for h in keyword.search(brain.conn, query, limit=50)]
        got[query] = slugs.index(want) + 1 if want in slugs else None
    assert got == {q: 1 for q, _ in SHAPES}, got


def test_a_common_word_weighs_less_than_a_rare_one(brain):
    """``rank``'s own scores: the memo (both words) scores above every page with only the common
    word, however often they say it or whether it is in their title (``hiring sync`` meetings)."""
    hits = keyword.rank(brain.conn, "hiring freeze", limit=100)
    slug = {r[0]: r[1] for r in brain.conn.execute("SELECT id, slug FROM pages")}
    assert slug[hits[0]["id"]] == "notes/quarterly-memo"
    assert hits[0]["score"] > hits[1]["score"] * 1.5, [(slug[h["id"]], h["score"]) for h in hits[:3]]
