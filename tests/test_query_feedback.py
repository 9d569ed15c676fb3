"""Rocchio feedback in `query` (the `minilm` model's second vector search): it moves the order
the way the feedback says, equals the benchmark's formula (benchmarks/scifact_vectors.py,
``prf fused``), and leaves models without it unchanged. Runs on SQLite and, with
``--engine postgres``, on pgvector."""
from __future__ import annotations

import numpy as np
import pytest

from gbrain.core.brain import Brain
from gbrain.search import embeddings as emb
from gbrain.search import hybrid
from gbrain.search.keyword import fts_candidates
from gbrain.search.vectors import VectorIndex, embed_pages, plan_embed, select_pages


class Concepts(emb.EmbeddingModel):
    """Each known word adds its vector (other words nothing); every text gets a little of a last
    axis, so no vector is zero. Lets a test place pages and questions exactly."""

    WORDS = {"alpha": (1.0, 0.0, 0.0), "beta": (0.0, 1.0, 0.0), "gamma": (1.0, 0.2, 0.0), "delta": (0.3, 1.0, 0.0)}
    model_id = "concepts"
    dims = 4
    fts_weight = 0.65

    def embed_batch(self, texts):
        m = np.zeros((len(texts), 4), dtype=np.float32)
        m[:, 3] = 0.01
        for i, t in enumerate(texts):
            for w in t.lower().split():
                m[i, :3] += self.WORDS.get(w, (0.0, 0.0, 0.0))
        return m


class ConceptsFeedback(Concepts):
    """The same vectors, with `minilm`'s feedback settings."""

    feedback_pages, feedback_beta, feedback_weight = 3, 0.5, 0.55


class FakeFeedback(emb.FakeEmbedding):
    """Feature-hashing vectors (many pages, many chunks) with `minilm`'s weights and feedback."""

    fts_weight = emb.MiniLMEmbedding.fts_weight
    feedback_pages = emb.MiniLMEmbedding.feedback_pages
    feedback_beta = emb.MiniLMEmbedding.feedback_beta
    feedback_weight = emb.MiniLMEmbedding.feedback_weight


def embed_all(b: Brain, model) -> None:
    _, work = plan_embed(b.conn, model, select_pages(b.conn, model.model_id, "all"))
    embed_pages(b.conn, model, work, transaction=b.transaction)


# three pages that match the question's words and sit on the `alpha` axis; two that match no
# word: x (`gamma`, near alpha) and y (`delta`, near beta). The question (`alpha` + `beta`) is
# nearer y; moved towards the three top pages' chunks (alpha) it is nearer x.
PAGES = {
    "notes/a.md": "# Quokka one\n\nquokka alpha\n",
    "notes/b.md": "# Quokka two\n\nquokka alpha\n",
    "notes/c.md": "# Quokka three\n\nquokka alpha\n",
    "notes/x.md": "# Xylo\n\ngamma\n",
    "notes/y.md": "# Yarrow\n\ndelta\n",
}
QUESTION = "quokka alpha beta"


@pytest.fixture
def concepts_brain(db_path):
    VectorIndex.forget()
    b = Brain.open(db_path)
    for path, text in PAGES.items():
        b.save_page(path, text)
    embed_all(b, Concepts())
    yield b
    b.close()
    VectorIndex.forget()


def slugs(r: dict) -> list[str]:
    return [h["slug"] for h in r["hits"]]


def test_feedback_moves_the_question_towards_the_top_pages(concepts_brain):
    b = concepts_brain
    with_fb = hybrid.query(b, QUESTION, model=ConceptsFeedback(), limit=5)
    without = hybrid.query(b, QUESTION, model=ConceptsFeedback(), limit=5, feedback=False)
    assert slugs(without)[3:] == ["notes/y", "notes/x"]  # the question alone: y is nearer
    assert slugs(with_fb)[3:] == ["notes/x", "notes/y"]  # after feedback towards alpha: x
    assert set(slugs(with_fb)[:3]) == {"notes/a", "notes/b", "notes/c"}
    # --json still says what matched: keyword fields and the (feedback) vector side
    sig = {h["slug"]: h["signals"] for h in with_fb["hits"]}
    assert "vector" in sig["notes/x"] and "body" in sig["notes/a"] and "vector" in sig["notes/a"]
    # passages are each page's chunk nearest the question
    assert {h["slug"]: h["passage"] for h in with_fb["hits"]}["notes/x"] == "gamma"


def test_models_without_feedback_rank_once_and_as_before(concepts_brain, monkeypatch):
    assert emb.WordLlamaEmbedding.feedback_pages is None and emb.OpenAIEmbedding.feedback_pages is None
    assert emb.FakeEmbedding("fake-8", 8).feedback_pages is None and emb.MiniLMEmbedding.feedback_pages == 3
    b = concepts_brain
    reference = hybrid.query(b, QUESTION, model=ConceptsFeedback(), limit=5, feedback=False)

    def no_second_search(*a, **k):
        raise AssertionError("a model without feedback ranks the vectors once")

    monkeypatch.setattr(hybrid, "_vector_again", no_second_search)
    plain = hybrid.query(b, QUESTION, model=Concepts(), limit=5)
    assert plain == reference and slugs(plain)[3:] == ["notes/y", "notes/x"]
    # vector mode has no fused ranking to take feedback from: one search, even for minilm's settings
    assert slugs(hybrid.query(b, QUESTION, model=ConceptsFeedback(), limit=5, mode="vector"))[0] == "notes/y"


def test_no_feedback_without_vector_hits(db_path):
    """A type with no embedded page: the vector side is empty, the keyword ranking stands."""
    VectorIndex.forget()
    with Brain.open(db_path) as b:
        for path, text in PAGES.items():
            b.save_page(path, text)
        embed_all(b, Concepts())
        b.save_page("people/quokka.md", "---\ntype: person\n---\n# Quokka keeper\n\nquokka alpha\n")
        r = hybrid.query(b, QUESTION, model=ConceptsFeedback(), type="person")
        assert slugs(r) == ["people/quokka"] and r["hits"][0]["signals"] and "vector" not in r["hits"][0]["signals"]
    VectorIndex.forget()


def formula(b: Brain, model, question: str, k: int = 300) -> list[tuple[int, float]]:
    """benchmarks/scifact_vectors.py's ``prf fused k=3 b=0.5`` for one question, written from
    the stored vectors alone: pages scored by their best chunk, tmm at ``fts_weight``, the top
    3's chunks nearest the question averaged into ``unit(q + 0.5 · mean)``, then tmm at 0.55."""
    rows = b.conn.execute("SELECT page_id, embedding FROM page_embeddings WHERE model = ? ORDER BY id", (model.model_id,)).fetchall()
    pids = np.array([r[0] for r in rows])
    m = np.stack([np.frombuffer(bytes(r[1]), dtype="<f4") for r in rows])
    pages = sorted(set(pids.tolist()))
    kw = fts_candidates(b.conn, question, limit=k, coordinate=False)  # query's keyword side (hybrid.query): plain BM25, no phrase evidence
    qv = model.embed(question)

    def top(q):
        s = m @ q
        best = {p: float(s[pids == p].max()) for p in pages}
        return sorted(best.items(), key=lambda kv: -kv[1])[:k]

    first = hybrid.fuse(kw, top(qv), "tmm", model.fts_weight)
    chosen = [p for p, _ in first[: model.feedback_pages]]
    best = [np.flatnonzero(pids == p)[np.argmax(m[pids == p] @ qv)] for p in chosen]
    q2 = qv + model.feedback_beta * m[best].mean(axis=0)
    q2 /= np.linalg.norm(q2)
    return hybrid.fuse(kw, top(q2), "tmm", model.feedback_weight)


@pytest.mark.parametrize("question", ["who knows jensen huang", "nvidia chips", "series A round", "payments infrastructure for marketplaces"])
def test_query_equals_the_benchmark_formula(fixture_db, question):
    VectorIndex.forget()
    model = FakeFeedback("fake-fb", 64)
    with Brain.open(fixture_db) as b:
        embed_all(b, model)
        want = formula(b, model, question)[:10]
        got = hybrid.query(b, question, model=model, limit=10, boosts=False)["hits"]
        ids = {r[1]: r[0] for r in b.conn.execute("SELECT id, slug FROM pages")}
        assert [ids[h["slug"]] for h in got] == [p for p, _ in want]
        assert [h["score"] for h in got] == pytest.approx([s for _, s in want], abs=1e-4)
    VectorIndex.forget()


def test_the_benchmark_measures_querys_keyword_side(fixture_db):
    """benchmarks/scifact_vectors.py claims to measure `query`'s formula but ranked its keyword
    side as `search` does (``coordinate=True``: the coordination factor and phrase evidence),
    which orders 'series A round' otherwise (9751218). Its keyword side is query's."""
    import importlib
    import sys
    from pathlib import Path

    bench = Path(__file__).resolve().parent.parent / "benchmarks"
    sys.path.insert(0, str(bench))
    try:
        sv = importlib.import_module("scifact_vectors")
    finally:
        sys.path.remove(str(bench))
    question = "series A round"
    with Brain.open(fixture_db) as b:
        plain = fts_candidates(b.conn, question, limit=300, coordinate=False)
        assert plain != fts_candidates(b.conn, question, limit=300)  # the two sides differ here
        assert [(h["id"], h["score"]) for h in hybrid.keyword_side(b.conn, question, limit=300)] == plain
        assert sv.keyword_side(b.conn, question) == plain
        # --sides: the other side is search's ranking, and the shipped switch is left as it was
        assert sv.keyword_side(b.conn, question, coordinate=True) == fts_candidates(b.conn, question, limit=300)
        assert hybrid.KEYWORD_COORDINATE is False and sv.keyword_side(b.conn, question) == plain
