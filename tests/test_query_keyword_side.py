"""`gbrain query`'s keyword side is one switch, ``hybrid.KEYWORD_COORDINATE``: plain BM25 (False,
shipped) or ``search``'s ranking (True: coordination factor and phrase evidence,
``keyword_candidates(coordinate=True)``); ``benchmarks/scifact_vectors.py --sides``,
``known_items.py --sides`` and ``phrases.py --query`` flip it to measure both in one run
(docs/search.md, "query's keyword side"). Two user trials `search` was fixed for tell the sides
apart through `query`: a 3,000-word note holding every word of ``xylophonic sentinel protocol``
(SQLite's plain BM25 puts short notes saying ``protocol`` twice first), and a pasted sentence's
page (plain BM25 puts pages sharing its words in another order first). The vector side here ties every
page (one vector for every text), so `query`'s order is its keyword side's. Both engines
(``--engine postgres``)."""
from __future__ import annotations

import numpy as np
import pytest

import test_phrase_search as phrases
import test_search_coordination as coordination
from conftest import write_tree
from gbrain.core.brain import Brain
from gbrain.search import embeddings as emb
from gbrain.search import hybrid, keyword
from gbrain.search.vectors import VectorIndex, embed_pages, plan_embed, select_pages
from gbrain.sync.importer import import_tree


class Flat(emb.EmbeddingModel):
    """Every text the same vector, with `minilm`'s fusion weights and feedback: the vector side
    cannot order pages, the keyword side does."""

    model_id = "flat"
    dims = 4
    fts_weight = emb.MiniLMEmbedding.fts_weight
    feedback_pages = emb.MiniLMEmbedding.feedback_pages
    feedback_beta = emb.MiniLMEmbedding.feedback_beta
    feedback_weight = emb.MiniLMEmbedding.feedback_weight

    def embed_batch(self, texts):
        m = np.zeros((len(texts), self.dims), dtype=np.float32)
        m[:, 0] = 1.0
        return m


CASES = [
    # (the notes, the question, the page it means)
    (coordination._notes, "xylophonic sentinel protocol", "research/field-log"),
    (phrases._notes, phrases.SENTENCE, "ops/replication"),
]


@pytest.mark.parametrize("notes, question, want", CASES, ids=["coordination", "phrase"])
def test_the_switch_ranks_querys_keyword_side_as_search_or_by_plain_bm25(tmp_path, db_path, monkeypatch, notes, question, want):
    VectorIndex.forget()
    model = Flat()
    with Brain.open(db_path) as b:
        import_tree(b, write_tree(tmp_path / "vault", notes()))
        _, work = plan_embed(b.conn, model, select_pages(b.conn, model.model_id, "all"))
        embed_pages(b.conn, model, work, transaction=b.transaction)
        assert keyword.search(b.conn, question, limit=5)[0]["slug"] == want
        slug = {r[0]: r[1] for r in b.conn.execute("SELECT id, slug FROM pages")}
        hits = {}
        for coordinate in (True, False):
            monkeypatch.setattr(hybrid, "KEYWORD_COORDINATE", coordinate)
            side = [slug[h["id"]] for h in keyword.keyword_candidates(b.conn, question, limit=5, coordinate=coordinate)]
            got = hybrid.query(b, question, model=model, limit=5)
            assert got["mode"] == "hybrid" and [h["slug"] for h in got["hits"]] == side
            hits[coordinate] = [(h["slug"], h["score"]) for h in got["hits"]]
        assert hits[True][0][0] == want
        # the two sides rank this brain differently: the scores on both engines, and plain BM25
        # puts another page first on SQLite (both cases) and on Postgres (the sentence)
        assert hits[True] != hits[False]
    VectorIndex.forget()
