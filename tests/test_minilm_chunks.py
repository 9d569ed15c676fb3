"""A model with a short window (``minilm``, 220 tokens) embeds each page cut twice: its own
220-token chunks and the ~500-token chunks of the other models (``chunking.model_chunks``), the
union ``benchmarks/scifact_vectors.py`` measured as ``220+500`` (docs/search.md, "New chunk
text"). The chunking version is recorded per page (``embed_state.chunking``, SQLite v13 /
Postgres v10), so a brain embedded before is re-chunked by ``embed --stale``, reusing every
vector of a text that did not change."""
from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

import pytest

from conftest import CORPORA
from gbrain import operations as ops
from gbrain.core.brain import Brain
from gbrain.search import embeddings as emb
from gbrain.search import vectors
from gbrain.search.chunking import MAX_TOKENS, approx_tokens, chunk_page, model_chunks
from gbrain.sync.importer import import_tree

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"


def _bench():
    """benchmarks/scifact_vectors.py: the definition of the ``220+500`` chunk set."""
    sys.path.insert(0, str(BENCH))
    try:
        return importlib.import_module("scifact_vectors")
    finally:
        sys.path.remove(str(BENCH))


class FakeMiniLM(emb.FakeEmbedding):
    """The fake provider under minilm's name and window: the chunking and its version are
    minilm's, the vectors are feature hashing (no weights needed). ``sent`` lists every text
    that reached the provider."""

    max_chunk_tokens = emb.MiniLMEmbedding.max_chunk_tokens

    def __init__(self):
        super().__init__(emb.MINILM_MODEL, 32)
        self.sent: list[str] = []

    def embed_batch(self, texts):
        self.sent += texts
        return super().embed_batch(texts)


@pytest.fixture
def mini(monkeypatch):
    inst = FakeMiniLM()
    monkeypatch.setattr(emb, "PROVIDERS", [(lambda n: n == emb.MINILM_MODEL, lambda n, c: inst)] + list(emb.PROVIDERS))
    return inst


def _old_chunking(monkeypatch):
    """Chunk as gbrain did before the union (version 1: the model's own budget alone)."""
    monkeypatch.setattr(emb, "model_chunks", lambda t, c, tl="", *, max_tokens=MAX_TOKENS, fit=None: chunk_page(t, c, tl, max_tokens=max_tokens))


def _product_chunks(b: Brain, model) -> dict[int, list[str]]:
    rows = vectors.select_pages(b.conn, model.model_id, "all")
    _, work = vectors.plan_embed(b.conn, model, rows)
    return {w.page_id: [c.text for c in w.chunks] for w in work}


def _pages(b: Brain):
    return b.conn.execute("SELECT id, slug, title, compiled_truth, timeline FROM pages ORDER BY id").fetchall()


def _scifact_tree(root: Path, n: int = 300) -> Path:
    corpus = CORPORA / "ir" / "scifact" / "corpus.jsonl"
    if not corpus.exists():
        pytest.skip(f"{corpus} not available")
    sys.path.insert(0, str(BENCH))
    try:
        S = importlib.import_module("scifact")
    finally:
        sys.path.remove(str(BENCH))
    docs = [json.loads(line) for line in corpus.open(encoding="utf-8")]
    # the longest abstracts (cut in several chunks at both budgets) and some ordinary ones
    pick = sorted(docs, key=lambda d: -len(d["text"]))[: n // 2] + docs[: n // 2]
    S.write_tree(list({d["_id"]: d for d in pick}.values()), root)
    return root


@pytest.fixture
def counted_once(monkeypatch):
    """minilm's token counter (``MiniLMEmbedding.window_fit``) answering a text it counted before
    from a memo: the product's plan (the 220 and the 500 sets), the benchmark's ``chunk_set`` and
    the test's own 220 chunks count the same texts with it, the same pure function of the text
    (~2/5 of the test's CPU was the tokenizer, each text counted ~2.5 times)."""
    fit = emb.MiniLMEmbedding.window_fit()
    if fit is None:
        return
    offsets, window = fit
    memo: dict[str, list] = {}

    def counted(text: str) -> list:
        got = memo.get(text)
        if got is None:
            got = memo[text] = offsets(text)
        return list(got)

    monkeypatch.setattr(emb.MiniLMEmbedding, "_fit", (counted, window))


def _check_minilm_chunks(brain, tmp_path: Path, corpus: str) -> None:
    """The product's minilm chunk texts of real pages (SciFact abstracts, a gbrain-style brain
    with timelines, long Microsoft docs) are exactly ``chunk_set("220w+500")`` (220 fitted to the window) of the
    benchmark that chose them, page by page and in order; each short chunk fits minilm's budget,
    and the 220-token chunks are all there (every part of a page reaches a vector)."""
    if corpus == "scifact":
        tree = _scifact_tree(tmp_path / "tree")
    else:
        tree = CORPORA / corpus
        if not tree.is_dir():
            pytest.skip(f"{tree} not available")
    bench = _bench()
    with Brain.open(brain) as b:
        import_tree(b, tree)
        pages = _pages(b)
        got = _product_chunks(b, emb.get_model(emb.MINILM_MODEL))
        want: dict[int, list[str]] = {}
        for pid, text in bench.chunk_set("220w+500", pages):
            want.setdefault(pid, []).append(text)
        assert got == want
        extra = 0
        for r in pages:
            short = [c.text for c in chunk_page(r[2], r[3], r[4], max_tokens=220, fit=emb.MiniLMEmbedding.window_fit())]
            assert got[r[0]][: len(dict.fromkeys(short))] == list(dict.fromkeys(short))
            assert len(set(got[r[0]])) == len(got[r[0]])
            extra += len(got[r[0]]) - len(dict.fromkeys(short))
        assert extra > 0  # long sections were cut twice


@pytest.mark.engine_free
@pytest.mark.parametrize("corpus", ["scifact", "msdocs-ad-identity"])
def test_minilm_chunks_are_the_benchmarks_shipped_plus_500_set(tmp_path, corpus, counted_once):
    """:func:`_check_minilm_chunks` on SciFact abstracts and long Microsoft docs, in a SQLite brain
    of the test's own (the chunking is the subject: ~25 s of it a corpus, the same on either engine;
    the gbrain-style brain below runs on both)."""
    _check_minilm_chunks(tmp_path / "chunks.db", tmp_path, corpus)


def test_minilm_chunks_of_a_brain_on_either_engine_are_the_benchmarks_set(tmp_path, db_path, counted_once):
    """:func:`_check_minilm_chunks` on the gbrain-style brain (timelines) in the test's brain
    (``--engine postgres``: the pages read back from Postgres)."""
    _check_minilm_chunks(db_path, tmp_path, "gbrain-style")


def test_models_with_the_default_budget_keep_their_chunks(tmp_path, db_path):
    """wordllama, OpenAI and any model without a short window: chunk_page at ~500 tokens, as
    before (chunking version :data:`BASE_CHUNKING`)."""
    tree = CORPORA / "gbrain-style"
    if not tree.is_dir():
        pytest.skip(f"{tree} not available")
    with Brain.open(db_path) as b:
        import_tree(b, tree)
        for model in (emb.FakeEmbedding("fake-8", 8), emb.get_model("wordllama")):
            got = _product_chunks(b, model)
            assert got == {r[0]: [c.text for c in chunk_page(r[2], r[3], r[4])] for r in _pages(b)}
            assert emb.chunking_version(model.model_id) == emb.BASE_CHUNKING
    assert emb.chunking_version(emb.MINILM_MODEL) == 4


@pytest.mark.engine_free
def test_every_short_window_model_of_the_registry_has_a_newer_chunking_version():
    """A model whose chunks changed for unchanged pages has a version above 1, so its brains go
    stale and get re-chunked (today: minilm alone has a short window)."""
    for name in (emb.MINILM_MODEL, emb.OFFLINE_MODEL, emb.DEFAULT_MODEL):
        m = emb.get_model(name, {}) if name != emb.DEFAULT_MODEL else None
        budget = getattr(m, "max_chunk_tokens", None) or MAX_TOKENS
        assert (emb.chunking_version(name) > emb.BASE_CHUNKING) == (budget < MAX_TOKENS), name


LONG = " ".join(f"Sentence {i} about the lava flow near the road and the evacuation plan." for i in range(80))  # ~1,500 tokens


@pytest.mark.engine_free
def test_model_chunks_keeps_each_text_once_and_short_pages_unchanged():
    para = "\n\n".join([LONG[:700], LONG[700:1500], LONG[1500:]])
    union = model_chunks("Volcano", "## Risk\n\n" + para + "\n", max_tokens=220)
    short = chunk_page("Volcano", "## Risk\n\n" + para + "\n", max_tokens=220)
    long = chunk_page("Volcano", "## Risk\n\n" + para + "\n", max_tokens=500)
    assert [c.text for c in union] == [c.text for c in short] + [c.text for c in long if c.text not in {s.text for s in short}]
    assert [c.index for c in union] == list(range(len(union)))
    assert len(union) > len(short) and max(approx_tokens(c.text) for c in union[: len(short)]) <= 220
    # a page whose sections all fit 220 tokens: the same chunks as before
    small = "## A\n\nOne line.\n\n## B\n\nAnother line.\n"
    tl = "- **2025-01-02** | call — Spoke about the plan\n- **2025-01-02** | call — Spoke about the plan\n"
    assert [c.text for c in model_chunks("P", small, tl, max_tokens=220)] == list(dict.fromkeys(c.text for c in chunk_page("P", small, tl, max_tokens=220)))
    assert model_chunks("P", small, tl) == chunk_page("P", small, tl)  # the default budget: untouched, duplicates too


def _long_page(entries: int = 2) -> str:
    tl = "".join(f"- **2025-01-{i + 1:02d}** | meeting — Visit number {i} to the crater\n" for i in range(entries))
    return f"# Volcano\n\n## Risk\n\n{LONG}\n\n## Plan\n\nEvacuate by the north road.\n\n---\n\n{tl}"


def test_adding_a_timeline_entry_embeds_only_that_entry(tmp_path, db_path, mini):
    with Brain.open(db_path) as b:
        b.set_config("embedding_model", emb.MINILM_MODEL)
        b.save_page("places/volcano.md", _long_page())
        r = ops.run("embed", {"stale": True}, brain=b)
        assert r["model"] == emb.MINILM_MODEL and r["chunks"] > 0
        texts = {x[0] for x in b.conn.execute("SELECT chunk_text FROM page_embeddings")}
        assert texts == {c.text for c in model_chunks("Volcano", *b.conn.execute("SELECT compiled_truth, timeline FROM pages").fetchone(), max_tokens=220)}
        assert any(approx_tokens(t) > 220 for t in texts)  # the ~500-token chunks are there
        mini.sent.clear()
        ops.run("timeline-add", {"slug": "places/volcano", "date": "2025-02-01", "summary": "Ash closed the airport"}, brain=b)
        r = ops.run("embed", {"stale": True}, brain=b)
        assert mini.sent == ["Volcano — Timeline\n2025-02-01 | Ash closed the airport"], mini.sent
        assert r["embedded"] == 1 and r["pages"] == 1


def _set_back(b: Brain) -> None:
    """Make the brain look as a gbrain before v13 / pg_v10 left it."""
    if getattr(b.conn, "dialect", "sqlite") == "postgres":
        with b.transaction():
            b.conn.execute("ALTER TABLE embed_state DROP COLUMN chunking")
            b.conn.execute("DELETE FROM gbrain_schema WHERE version >= 10")  # (and the later ones: max(version) is the schema)
    else:
        b.conn.execute("ALTER TABLE embed_state DROP COLUMN chunking")
        b.conn.execute("PRAGMA user_version = 12")


def test_a_minilm_brain_embedded_before_is_rechunked_by_embed_stale_reusing_its_vectors(tmp_path, db_path, mini, monkeypatch):
    """SQLite v13 / Postgres v10: a brain embedded with the 220-token chunks alone opens with
    every minilm page stale (embed --stale, the query note, lint, verify's embedding view);
    embed --stale then sends only the new ~500-token texts to the model, and the result equals a
    fresh import embedded from scratch."""
    from gbrain.core.lint import lint
    from gbrain.sync.verify import embedding_view, fresh_import_differences

    tree = tmp_path / "tree"
    (tree / "places").mkdir(parents=True)
    (tree / "places" / "volcano.md").write_text(_long_page(), encoding="utf-8")
    (tree / "places" / "lake.md").write_text("# Lake\n\nA small lake.\n", encoding="utf-8")
    with monkeypatch.context() as m:
        _old_chunking(m)
        with Brain.open(db_path) as b:
            import_tree(b, tree)
            b.set_config("embedding_model", emb.MINILM_MODEL)
            old = ops.run("embed", {"stale": True}, brain=b)
            old_texts = {x[0] for x in b.conn.execute("SELECT chunk_text FROM page_embeddings")}
            assert all(approx_tokens(t) <= 220 for t in old_texts)
            _set_back(b)
    with Brain.open(db_path) as b:
        assert [tuple(r) for r in b.conn.execute("SELECT DISTINCT chunking FROM embed_state")] == [(1,)]
        assert vectors.stale_count(b.conn, emb.MINILM_MODEL) == 2
        assert len(vectors.select_pages(b.conn, emb.MINILM_MODEL, "stale")) == 2
        found = [f for f in lint(b, checks=["embeddings"])["items"] if f["check"] == "embeddings"]
        assert {(f["slug"], f["reason"], f.get("stale_because")) for f in found} == {("places/volcano", "stale", "chunking"), ("places/lake", "stale", "chunking")}
        assert embedding_view(b) == []
        r = ops.run("query", {"question": "lava flow evacuation"}, brain=b)
        assert r["mode"] == "hybrid" and any("older chunking" in n for n in r["notes"])
        mini.sent.clear()
        r = ops.run("embed", {"stale": True}, brain=b)
        new_texts = {x[0] for x in b.conn.execute("SELECT chunk_text FROM page_embeddings")}
        assert old_texts < new_texts
        assert sorted(mini.sent) == sorted(new_texts - old_texts)  # every unchanged text's vector reused
        assert r["embedded"] == len(new_texts - old_texts) and r["cached"] == len(old_texts)
        assert vectors.stale_count(b.conn, emb.MINILM_MODEL) == 0
        assert [f for f in lint(b, checks=["embeddings"])["items"] if f["check"] == "embeddings"] == []
        assert len(embedding_view(b)) == 2
        assert fresh_import_differences(b) == {}
        assert {tuple(r) for r in b.conn.execute("SELECT DISTINCT chunking FROM embed_state")} == {(emb.chunking_version(emb.MINILM_MODEL),)}
        assert old["chunks"] < r["chunks"]


def test_query_shows_one_passage_per_page_with_overlapping_chunks(tmp_path, db_path, mini):
    """The 220- and ~500-token chunks of a section overlap: a page is still one hit, with its
    best chunk (of either cut) as its one passage, no text repeated in it, and 'vector' once in
    its signals."""
    with Brain.open(db_path) as b:
        b.set_config("embedding_model", emb.MINILM_MODEL)
        b.save_page("places/volcano.md", _long_page(3))
        b.save_page("places/lake.md", "# Lake\n\nA small lake near the road.\n")
        ops.run("embed", {"stale": True}, brain=b)
        stored = {" ".join(t.split("\n", 1)[1].split()) for (t,) in b.conn.execute("SELECT chunk_text FROM page_embeddings")}
        for mode in ("hybrid", "vector"):
            r = ops.run("query", {"question": "lava flow evacuation plan road", "mode": mode}, brain=b)
            slugs = [h["slug"] for h in r["hits"]]
            assert len(slugs) == len(set(slugs)) and "places/volcano" in slugs
            for h in r["hits"]:
                assert h["passage"] in stored  # one chunk's text, not several joined
                assert h["signals"].count("vector") == 1
                sents = [s for s in h["passage"].split(". ") if s]
                assert len(sents) == len(set(sents))


def test_a_chunk_budget_the_brain_sets_cuts_once_and_equals_a_fresh_import(tmp_path, db_path, mini):
    """config embedding_chunk_tokens: every chunk at the brain's budget, one cut (no ~500-token
    second cut for minilm either); every page stale until embedded again (query's note, lint,
    verify's embedding view), and the result equals a fresh import of the tree embedded alike."""
    from gbrain.core.lint import lint
    from gbrain.sync.verify import embedding_view, fresh_import_differences

    tree = tmp_path / "tree"
    (tree / "places").mkdir(parents=True)
    (tree / "places" / "volcano.md").write_text(_long_page(), encoding="utf-8")
    (tree / "places" / "lake.md").write_text("# Lake\n\nA small lake.\n", encoding="utf-8")
    with Brain.open(db_path) as b:
        import_tree(b, tree)
        b.set_config("embedding_model", emb.MINILM_MODEL)
        ops.run("embed", {"stale": True}, brain=b)
        two_cuts = {x[0] for x in b.conn.execute("SELECT chunk_text FROM page_embeddings")}
        assert max(approx_tokens(t) for t in two_cuts) > 220  # minilm's second, ~500-token cut
        b.set_config("embedding_chunk_tokens", "120")
        assert vectors.stale_count(b.conn, emb.MINILM_MODEL, emb.chunking_of(emb.get_model(emb.MINILM_MODEL, b.config()))) == 2
        found = [f for f in lint(b, checks=["embeddings"])["items"] if f["check"] == "embeddings"]
        assert {(f["slug"], f.get("stale_because")) for f in found} == {("places/volcano", "chunking"), ("places/lake", "chunking")}
        assert all("embedding_chunk_tokens 120" in f["message"] for f in found), found
        assert embedding_view(b) == []
        mini.sent.clear()
        r = ops.run("embed", {"stale": True}, brain=b)
        texts = [x[0] for x in b.conn.execute("SELECT chunk_text FROM page_embeddings ORDER BY page_id, chunk_index")]
        assert r["pages"] == 2 and max(approx_tokens(t) for t in texts) <= 120
        assert texts == [c.text for p in _pages(b) for c in chunk_page(p["title"], p["compiled_truth"], p["timeline"], max_tokens=120)]
        assert sorted(mini.sent) == sorted(set(texts) - two_cuts)  # the lake's one chunk: from its vector
        assert {tuple(x) for x in b.conn.execute("SELECT DISTINCT chunking FROM embed_state")} == {(emb.chunking_version(emb.MINILM_MODEL, 120),)}
        assert len(embedding_view(b)) == 2
        assert fresh_import_differences(b) == {}


def test_a_chunk_budget_over_minilms_window_keeps_minilms_own_chunks_and_says_so(tmp_path, db_path, mini):
    """config embedding_chunk_tokens 400 on a brain whose model in effect is minilm (it reads 256
    word pieces, ~220 estimated tokens): every chunk was cut at 400 alone, and minilm left the
    end of each unread (a vault's long page: 20 of its 30 chunks over 256 pieces, 2,507 of 8,613
    pieces unread). A budget over the model's window does not apply to it: minilm keeps its own
    chunks (every text in a 220-token one), nothing goes stale, and `config set` / `config get`
    say so; a budget within the window still cuts (200)."""
    from gbrain.core.lint import lint
    from gbrain.operations.core import config_not_in_effect
    from gbrain.sync.verify import embedding_view, fresh_import_differences

    tree = tmp_path / "tree"
    (tree / "places").mkdir(parents=True)
    (tree / "places" / "volcano.md").write_text(_long_page(), encoding="utf-8")
    (tree / "places" / "lake.md").write_text("# Lake\n\nA small lake.\n", encoding="utf-8")
    with Brain.open(db_path) as b:
        import_tree(b, tree)
        b.set_config("embedding_model", emb.MINILM_MODEL)
        ops.run("embed", {"stale": True}, brain=b)
        own = [x[0] for x in b.conn.execute("SELECT chunk_text FROM page_embeddings ORDER BY page_id, chunk_index")]
        view = embedding_view(b)
        said: list[str] = []
        ops.run("config-set", {"key": "embedding_chunk_tokens", "value": "400"}, ops.Context(on_warning=said.append), brain=b)
        assert len(said) == 1 and "minilm" in said[0] and "220" in said[0] and "400" in said[0], said
        assert emb.chunking_of(emb.get_model(emb.MINILM_MODEL, b.config())) == emb.chunking_version(emb.MINILM_MODEL)
        assert [f for f in lint(b, checks=["embeddings"])["items"] if f["check"] == "embeddings"] == []
        assert embedding_view(b) == view
        assert ops.run("embed", {"stale": True}, brain=b)["pages"] == 0
        assert [x[0] for x in b.conn.execute("SELECT chunk_text FROM page_embeddings ORDER BY page_id, chunk_index")] == own
        eff = config_not_in_effect(b)
        assert eff["embedding_chunk_tokens"][0] == "220" and eff["embedding_chunk_tokens"][2], eff
        assert fresh_import_differences(b) == {}
        said.clear()
        ops.run("config-set", {"key": "embedding_chunk_tokens", "value": "200"}, ops.Context(on_warning=said.append), brain=b)
        assert said == [] and "embedding_chunk_tokens" not in config_not_in_effect(b)
        assert ops.run("embed", {"stale": True}, brain=b)["pages"] == 2
        assert max(approx_tokens(x[0]) for x in b.conn.execute("SELECT chunk_text FROM page_embeddings")) <= 200
