"""A conflict copy (``name.conflict-YYYYMMDDTHHMMSS.md``, both versions of one page kept by sync)
never ranks above the page it copies, in ``search`` and ``query``, on both engines.

Found by a user trial: an agent searching ``Yara Kowalski`` got the conflict copy first (the same
title and words: a tie, broken by id) and wrote its next edit to the copy.
"""
from __future__ import annotations

import pytest

from gbrain.core.brain import Brain
from gbrain.page.slugs import conflict_original
from gbrain.search import embeddings as emb
from gbrain.search import hybrid, keyword
from gbrain.search.vectors import embed_pages, plan_embed, select_pages
from gbrain.sync.importer import import_tree

PAGE = "---\ntitle: Yara Kowalski\ntype: person\n---\n# Yara Kowalski\n\nYara Kowalski leads platform at Lumen Labs.\n"
COPY = PAGE.replace(" leads platform at Lumen Labs", " left")  # the other side's edit: shorter, so BM25 ranks it higher
NOTES = {
    # the copy's path sorts (and its id comes) first, so a tie would put it first
    "people/a-yara-kowalski.conflict-20261202T015712.md": "---\ntitle: Other\n---\n# Other\n\nnothing about her\n",
    "people/yara-kowalski.conflict-20261202T015712.md": COPY,
    "people/yara-kowalski.md": PAGE,
    "people/yara-kowalski.conflict-20261202T020101-2.md": COPY + "\nYara Kowalski Yara Kowalski\n",
    "people/solo.conflict-20261202T015712.md": "# Quillon Marsh\n\nQuillon Marsh notes.\n",
}


@pytest.fixture
def brain(tmp_path, db_path):
    tree = tmp_path / "vault"
    for rel, text in NOTES.items():
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        (tree / rel).write_text(text, encoding="utf-8")
    with Brain.open(db_path) as b:
        import_tree(b, tree)
        yield b


def test_conflict_original_reads_the_mark_sync_writes():
    from gbrain.sync.engine import conflict_copy_path

    for p in ("people/ana.md", "people/Ana Lima.MD", "people/.raw/ana.json", "a b/c.d.md"):
        assert conflict_original(conflict_copy_path(p, 1764640000.0)) == p
        assert conflict_original(conflict_copy_path(p, 1764640000.0, lambda c: True if c.endswith(("000.md", "000.MD", "000")) else False)) == p
        assert conflict_original(p) is None
    assert conflict_original("notes/x.conflict-20261202T015712.later.md") is None


def test_search_puts_each_copy_right_below_its_page(brain):
    hits = [h["slug"] for h in keyword.search(brain.conn, "Yara Kowalski", limit=10)]
    assert hits[0] == "people/yara-kowalski", hits
    assert set(hits[1:3]) == {"people/yara-kowalski.conflict-20261202T015712", "people/yara-kowalski.conflict-20261202T020101-2"}, hits
    # a copy whose page is not among the hits keeps its place: it may be the only match
    assert [h["slug"] for h in keyword.search(brain.conn, "Quillon Marsh", limit=5)] == ["people/solo.conflict-20261202T015712"]


def test_query_puts_each_copy_right_below_its_page(brain):
    model = emb.FakeEmbedding("fake-copies", 32)
    _, work = plan_embed(brain.conn, model, select_pages(brain.conn, model.model_id, "all"))
    embed_pages(brain.conn, model, work, transaction=brain.transaction)
    for mode in ("hybrid", "keyword"):
        hits = [h["slug"] for h in hybrid.query(brain, "Yara Kowalski", model=model, limit=5, mode=mode)["hits"]]
        assert hits[0] == "people/yara-kowalski", (mode, hits)
        assert hits.index("people/yara-kowalski.conflict-20261202T020101-2") < 3, (mode, hits)
