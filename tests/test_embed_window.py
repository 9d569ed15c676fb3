"""Chunks against the model's real window: minilm reads 256 word pieces, and gbrain's estimate
(~4 characters a token) undercounts tables, code and CJK text, so the model cut such a chunk and
its tail reached no vector (obsidian-help: 4,156 of 10,451 220-token chunks). With minilm's own
tokenizer a chunk over the window is split again (``chunking._fitted``), every other chunk keeps
its text (and vector); ``embed`` and ``stats`` say how many were split (``embed_state.window_splits``,
SQLite v48 / Postgres v50)."""
from __future__ import annotations

import pytest

from gbrain import operations as ops
from gbrain.operations.registry import REGISTRY
from gbrain.core.brain import Brain
from gbrain.search import embeddings as emb
from gbrain.search.chunking import chunk_page, model_chunks

FIT = emb.MiniLMEmbedding.window_fit()
needs_tokenizer = pytest.mark.skipif(FIT is None, reason=f"minilm's weights are not installed ({emb.MINILM_INSTALL})")

#: a markdown table: fewer characters a word piece than prose
TABLE = "| key | value | note |\n|---|---|---|\n" + "\n".join(f"| k{i}-x.y | {i * 37}/{i % 7} | a_{i}::b{i} |" for i in range(40))
#: Korean prose: a Hangul syllable is 2-3 word pieces after the tokenizer's NFD
KOREAN = " ".join(f"베이스 {i}를 생성하고 임베드하는 방법을 알아봐요." for i in range(40))
#: Chinese without any space or sentence end: one run, cut between word pieces
CHINESE = "数据库表格视图过滤排序分组属性公式函数" * 30


def count(text: str) -> int:
    return len(FIT[0](text))


def fits(text: str) -> bool:
    return count(text) + 2 <= FIT[1]


@needs_tokenizer
@pytest.mark.engine_free
@pytest.mark.parametrize("body", [TABLE, KOREAN, CHINESE], ids=["table", "korean", "chinese"])
def test_a_chunk_over_the_window_is_split_and_every_piece_is_read_whole(body):
    """Before: each of these was one 220-token chunk of gbrain's estimate and 400-1,200 word
    pieces of minilm's; the model read the first 254 and the rest reached no vector."""
    page = f"# Bases\n\nA short lead section.\n\n## Data\n\n{body}\n\n## After\n\nA short closing section.\n"
    plain = chunk_page("Bases", page, max_tokens=220)
    assert any(not fits(c.text) for c in plain)  # the estimate let it through
    got = chunk_page("Bases", page, max_tokens=220, fit=FIT)
    assert all(fits(c.text) for c in got), [count(c.text) for c in got]
    # the chunks that fitted keep their text; the over-window one became pieces 1..n, each under its heading
    kept = [c.text for c in plain if fits(c.text)]
    assert [c.text for c in got if c.piece == 0] == kept
    pieces = [c for c in got if c.piece]
    over = sum(1 for c in plain if not fits(c.text))
    assert emb.split_chunks(got) == over and len(pieces) >= 2 * over
    runs = "".join(str(c.piece) if c.piece < 10 else "+" for c in pieces)  # each split chunk: pieces 1, 2, …
    assert runs.count("1") == over and all(c.piece == 1 or c.piece == p.piece + 1 for p, c in zip(pieces, pieces[1:]) if c.piece != 1)
    assert all(c.text.startswith("Bases — Data\n") for c in pieces)
    # nothing is lost: the section's chunks hold every character of its text but white space
    joined = "".join("".join(c.text.split("\n", 1)[1].split()) for c in got if c.heading == "Data")
    assert joined == "".join(body.split())


@needs_tokenizer
@pytest.mark.engine_free
def test_the_long_cut_is_not_fitted_and_a_page_that_fits_is_unchanged():
    """model_chunks fits its short cut alone (the ~500-token cut is read in part by design: its
    words are in the short cut's chunks), and a page whose chunks fit gets the same chunks as before."""
    page = f"# Bases\n\n## Data\n\n{KOREAN}\n"
    got = model_chunks("Bases", page, max_tokens=220, fit=FIT)
    long_only = [c for c in got if c.text not in {x.text for x in chunk_page("Bases", page, max_tokens=220, fit=FIT)}]
    assert long_only and all(c.piece == 0 for c in long_only)
    plain = "# Notes\n\n" + "\n\n".join(f"Paragraph {i} speaks of plain English words and nothing else." for i in range(30))
    assert model_chunks("Notes", plain, max_tokens=220, fit=FIT) == model_chunks("Notes", plain, max_tokens=220)


class TokenMiniLM(emb.FakeEmbedding):
    """minilm's name, window and real tokenizer, fake vectors (no forward pass): what reaches the
    model is in ``sent``."""

    max_chunk_tokens = emb.MiniLMEmbedding.max_chunk_tokens

    def __init__(self):
        super().__init__(emb.MINILM_MODEL, 32)
        self.sent: list[str] = []

    def window_fit(self):
        return FIT

    def embed_batch(self, texts):
        self.sent += texts
        return super().embed_batch(texts)


@needs_tokenizer
def test_embed_and_stats_say_how_many_chunks_were_split_for_the_window(db_path, monkeypatch):
    inst = TokenMiniLM()
    monkeypatch.setattr(emb, "PROVIDERS", [(lambda n: n == emb.MINILM_MODEL, lambda n, c: inst)] + list(emb.PROVIDERS))
    with Brain.open(db_path) as b:
        b.set_config("embedding_model", emb.MINILM_MODEL)
        body = f"## Data\n\n{KOREAN}\n\n## Table\n\n{TABLE}\n"
        want = sum(1 for c in chunk_page("Bases", body, max_tokens=220) if not fits(c.text))  # the chunks minilm cut before
        assert want >= 2
        ops.run("put", {"slug": "ko/bases", "content": f"# Bases\n\n{body}"}, brain=b)
        ops.run("put", {"slug": "notes/short", "content": "# Short\n\nA short page.\n"}, brain=b)
        plan = ops.run("embed", {"dry_run": True}, brain=b)
        assert plan["plan"]["split"] == want, plan
        r = ops.run("embed", {}, brain=b)
        assert r["split"] == want and r["pages"] == 2, r
        text = REGISTRY["embed"].text(r, {})
        assert f"{want} chunk(s) split for the model's window" in text, text
        short_cut = {c.text for c in chunk_page("Bases", body, max_tokens=220, fit=FIT)}
        assert short_cut <= set(inst.sent) and all(fits(t) for t in short_cut)
        st = ops.run("stats", {}, brain=b)
        assert st["chunks_split"] == want, st
        assert f"{want} chunk(s) split for the model's window" in REGISTRY["stats"].text(st, {})
        rows = dict(b.conn.execute("SELECT p.slug, s.window_splits FROM embed_state s JOIN pages p ON p.id = s.page_id").fetchall())
        assert rows == {"ko/bases": want, "notes/short": 0}
        # the page edited to fit: its count goes back to 0
        ops.run("put", {"slug": "ko/bases", "content": "# Bases\n\nNow short.\n"}, brain=b)
        r = ops.run("embed", {}, brain=b)
        assert r["split"] == 0 and ops.run("stats", {}, brain=b)["chunks_split"] == 0
        assert "split for the model's window" not in REGISTRY["embed"].text(r, {})
