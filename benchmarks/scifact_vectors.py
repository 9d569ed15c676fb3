"""SciFact: vector-side variants of ``gbrain query`` (minilm) tuned on train, reported on test.

    python benchmarks/scifact_vectors.py [--cache DIR] [--budget SECONDS] [--chunking NAME ...] [--quick] [--corpus ...]
    python benchmarks/scifact_vectors.py --cache DIR --chunking NAME --product N
    python benchmarks/scifact_vectors.py --cache DIR --sides [--quick] [--model wordllama --cache OTHER_DIR]

``benchmarks/scifact.py`` re-embeds all 5,183 abstracts (12,665 ``minilm`` chunks) on every
run: ~1,000 CPU-seconds, more than an hour of wall time on 2 cores at load 25-30. This script
keeps what it embeds in ``--cache`` (one ``.npy`` of vectors + ``.json`` of the texts' sha256 per
256 texts, written as it goes), so a run that is stopped (``--budget``, a kill, the end of a
session) loses at most one batch, and the next run, or a variant that shares chunk texts, reuses
the vectors. It evaluates only when every chunk of the chunkings asked for has a vector.

The keyword side is ``gbrain query``'s (:func:`keyword_side`: ``hybrid.keyword_side``, plain BM25
without ``search``'s coordination factor and phrase evidence, ``coordinate=False``; 300
candidates; before 2026-12-03 this script ranked with ``search``'s ``coordinate=True`` while
claiming ``query``'s formula), fused with ``tmm`` as ``hybrid.fuse`` does; the keyword weight is
chosen on the 809 train queries among 0.5-0.75 and the test nDCG@10 (300 queries) is printed at
that weight and at the shipped 0.65.

``--sides`` evaluates every variant with both keyword sides, ``query``'s as shipped and the other
(``hybrid.KEYWORD_COORDINATE``: plain BM25, or ``search``'s ranking with its coordination factor
and phrase evidence), and prints per formula each side's train and test nDCG@10 and their paired
difference ± standard error (the shipped formula, and each side's train-best variant and
weight). ``--model wordllama`` (with a ``--cache`` of its own) does the same over its ~500-token
chunks (chunking ``500``), where ``gbrain query`` is the best chunk at keyword weight 0.75.
Variants (none changes the stored vectors):

* ``max``: a page's best chunk (MaxP; what ``gbrain query`` ships);
* ``max+first b``: ``(1 - b) · best chunk + b · first chunk`` (FirstP/MaxP of Dai & Callan,
  "Deeper Text Understanding for IR with Contextual Neural Language Modeling", SIGIR 2019;
  every gbrain chunk starts with the page title, so the first chunk is the title-bearing one);
* ``prf SRC k b``: Rocchio feedback in embedding space (Rocchio 1971; for dense retrievers Li
  et al., "Pseudo Relevance Feedback with Deep Language Models and Dense Retrievers: Successes
  and Pitfalls", ACM TOIS 2023): ``q' = unit(q + b · mean(best chunk of the top k pages))``,
  the top pages taken from the fused ranking (``fused``) or the vector one (``vector``), and the
  vector side ranked again with ``q'``.

Chunkings (``--chunking``, repeatable; ``220`` is always run first, as the baseline of the
printed train differences and their standard errors over the 809 paired train queries; the
chunking ``gbrain`` ships for ``minilm``, ``chunking.model_chunks``, is ``220+500``):

* ``220``: ``chunk_page`` with ``minilm``'s 220-token budget (12,665 chunks; what ``minilm``
  embedded before the union shipped, and named ``shipped`` in older figures);
* ``500``: the other models' ~500-token chunks, each read by ``minilm`` up to its 256 word
  pieces (5,966 chunks; a long abstract's tail reaches no vector);
* ``overlap``: windows of 220 tokens over the sentences, each starting about half a window after
  the previous one (21,330 chunks);
* ``bridged``: the ``220`` chunks plus a bridge between each two neighbours (the second half of
  the one and the first half of the next: the same windows at a stride of half a chunk, 20,147
  chunks, of which only the 7,482 bridges are new text);
* ``a+b``: both chunk sets of every page (a page scores with its best chunk of either).

The last line names the variant, chunking and weight with the best train nDCG@10 and its test
figure: the one a choice on train would ship.

``--product N`` checks that ``gbrain query`` is that choice: it embeds the brain through the
product (vectors from the cache), and compares ``hybrid.query``'s top 10 with the ``prf fused k=3
b=0.5`` formula (weight 0.65, then 0.55) over the last ``--chunking`` for N test questions.

Metric: nDCG@10 (binary gains, as ``benchmarks/scifact.py``).
"""
from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import scifact as S  # noqa: E402
from scifact import Cache, sha  # noqa: E402,F401  (the vector cache is shared with scifact.py --vector-cache)
from gbrain.core.brain import Brain  # noqa: E402
from gbrain.search import hybrid  # noqa: E402
from gbrain.search.chunking import MAX_TITLE_CHARS, _H1_RE, _SENTENCE_RE, _split_units, approx_tokens, chunk_page, clean_markdown  # noqa: E402
from gbrain.search.embeddings import MiniLMEmbedding, get_model  # noqa: E402
from gbrain.sync.importer import import_tree  # noqa: E402

WEIGHTS = [0.5, 0.55, 0.6, 0.65, 0.7, 0.75]
SHIPPED_WEIGHT = 0.65


def embed_missing(cache: Cache, model, texts: list[str], budget: float) -> bool:
    """Embed the texts the cache lacks, shortest first, 256 at a time; stop after ``budget``
    seconds. True when none is missing any more."""
    todo = sorted(cache.missing(texts), key=len)
    t0, c0 = time.perf_counter(), time.process_time()
    print(f"{len(todo):,} of {len(set(texts)):,} texts to embed", flush=True)
    for s in range(0, len(todo), 256):
        if time.perf_counter() - t0 > budget:
            return False
        part = todo[s : s + 256]
        cache.add(part, model.embed_multi(part))
        dt, dc = time.perf_counter() - t0, time.process_time() - c0
        print(f"  {s + len(part):,}/{len(todo):,}: {dt:.0f} s wall, {dc:.0f} CPU-s, load {os.getloadavg()[0]:.1f}", flush=True)
    return True


def tmm(fts: list[tuple[int, float]], vec: list[tuple[int, float]], w: float) -> list[int]:
    """``hybrid.fuse(fts, vec, "tmm", w)`` as a list of page ids (same scaling and tie order)."""
    from gbrain.search.hybrid import fuse

    return [p for p, _ in fuse(fts, vec, "tmm", w)]


def overlap_parts(body: str, limit: int, stride: float = 0.5) -> list[str]:
    """Windows of at most ``limit`` estimated tokens over ``body``'s sentences, each starting at a
    sentence about ``stride`` of the previous window in (so every sentence boundary inside a
    window is also seen whole by a neighbour); a body that fits is one window. A sentence over
    the limit is cut at words, as ``chunk_page`` does."""
    if approx_tokens(body) <= limit:
        return [body]
    units: list[str] = []
    for para in (x.strip() for x in re.split(r"\n[ \t]*\n", body)):
        for sent in (x.strip() for x in _SENTENCE_RE.split(para) if x.strip()):
            units += _split_units(sent, limit)
    size = [approx_tokens(u) + 1 for u in units]
    out: list[str] = []
    i = 0
    while True:
        j, total = i, 0
        while j < len(units) and (j == i or total + size[j] <= limit):
            total += size[j]
            j += 1
        out.append(" ".join(units[i:j]))
        if j >= len(units):
            return out
        k, acc = i, 0
        while k < j - 1 and acc + size[k] <= total * stride:
            acc += size[k]
            k += 1
        i = max(k, i + 1)


def overlap_chunks(title: str, truth: str, max_tokens: int = 220, stride: float = 0.5) -> list[str]:
    """A SciFact page (title + one lead section, no timeline) as overlapping windows of
    ``max_tokens``, each with the title line in front, as ``chunk_page`` prefixes them."""
    title = " ".join(title.split())
    if len(title) > MAX_TITLE_CHARS:
        title = title[: MAX_TITLE_CHARS - 1].rstrip() + "…"
    body = clean_markdown(truth)
    lines = body.split("\n")
    h1 = _H1_RE.match(lines[0]) if lines and lines[0] else None
    if h1 and " ".join((h1.group(1) or "").split()) == title:
        body = "\n".join(lines[1:]).strip()
    if not body:
        return [title]
    return [f"{title}\n{x}" for x in overlap_parts(body, max(32, max_tokens - approx_tokens(title)), stride)]


def _units(text: str) -> list[str]:
    """A chunk's sentences; its words when it is one sentence."""
    sents = [x.strip() for x in _SENTENCE_RE.split(text) if x.strip()]
    return sents if len(sents) > 1 else text.split()


def _half(units: list[str], tail: bool) -> str:
    """The last (``tail``) or first units of a chunk holding about half its estimated tokens
    (at least one unit)."""
    seq = units[::-1] if tail else units
    half = approx_tokens(" ".join(units)) / 2
    n, acc = 1, approx_tokens(seq[0]) + 1
    while n < len(seq) and acc + approx_tokens(seq[n]) + 1 <= half:
        acc += approx_tokens(seq[n]) + 1
        n += 1
    out = seq[:n]
    return " ".join(out[::-1] if tail else out)


def bridged_chunks(title: str, truth: str, timeline: str, max_tokens: int = 220) -> list[str]:
    """``chunk_page``'s chunks (unchanged, so their vectors are reused) plus, between two
    consecutive chunks of one section, a *bridge*: the second half of the one and the first half
    of the next (sentences; words for a one-sentence chunk), with the same prefix line, cut at ``max_tokens``. Every
    sentence boundary between chunks then lies inside a chunk: windows of one chunk's size at a
    stride of half a chunk, for the cost of the bridges alone."""
    chunks = chunk_page(title, truth, timeline, max_tokens=max_tokens)
    out: list[str] = []
    for a, b in zip(chunks, chunks[1:] + [None]):
        out.append(a.text)
        if b is None or a.kind != "section" or b.kind != "section" or a.heading != b.heading:
            continue
        pa, _, ta = a.text.partition("\n")
        pb, _, tb = b.text.partition("\n")
        if pa != pb or not ta.strip() or not tb.strip():
            continue
        text = f"{pa}\n{_half(_units(ta), True)} {_half(_units(tb), False)}"
        while approx_tokens(text) > max_tokens:  # a long sentence on either side: cut its tail
            text = text.rsplit(" ", 1)[0]
        out.append(text)
    return out


#: chunkings of a page (title, compiled truth, timeline) → chunk texts; "a+b" takes both sets
CHUNKINGS: dict[str, Callable[[str, str, str], list[str]]] = {
    "220": lambda t, c, tl: [x.text for x in chunk_page(t, c, tl, max_tokens=220)],
    "500": lambda t, c, tl: [x.text for x in chunk_page(t, c, tl, max_tokens=500)],
    # 220 with a chunk over minilm's 256 word pieces by its own tokenizer split again (the product's since chunking v4)
    "220w": lambda t, c, tl: [x.text for x in chunk_page(t, c, tl, max_tokens=220, fit=MiniLMEmbedding.window_fit())],
    "overlap": lambda t, c, tl: overlap_chunks(t, c, 220, 0.5),
    "bridged": lambda t, c, tl: bridged_chunks(t, c, tl, 220),
}


def chunk_set(name: str, pages) -> list[tuple[int, str]]:
    """``[(page_id, text)]`` of every page under chunking ``name`` (``a+b``: both, deduplicated
    per page), pages in id order."""
    fns = [CHUNKINGS[n] for n in name.split("+")]
    out = []
    for r in pages:
        seen: dict[str, None] = {}
        for f in fns:
            seen.update(dict.fromkeys(f(r[2], r[3], r[4])))
        out += [(r[0], t) for t in seen]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", default=str(S.SHARED / "corpora" / "ir" / "scifact"))
    ap.add_argument("--cache", default=str(Path(tempfile.gettempdir()) / "gbrain-scifact-minilm"), help="folder of cached vectors (kept)")
    ap.add_argument("--budget", type=float, default=float("inf"), help="stop embedding after this many seconds (the cache keeps what was done)")
    ap.add_argument("--partial", action="store_true", help="evaluate anyway with the chunks that have vectors (a quick look; not a figure to report)")
    ap.add_argument("--chunking", action="append", help="chunking(s) to evaluate (repeatable): " + ", ".join(CHUNKINGS) + ", or a+b (both sets; default: 220)")
    ap.add_argument("--quick", action="store_true", help="only the best chunk and the train-best variants of docs/search.md per chunking")
    ap.add_argument("--model", default="minilm", help="embedding model (default minilm; another one, e.g. wordllama, is evaluated over --chunking, default 500, its own chunk size; give it its own --cache)")
    ap.add_argument("--sides", action="store_true", help="evaluate with both keyword sides, query's plain BM25 (hybrid.KEYWORD_COORDINATE False) and search's ranking (True), and print their paired differences")
    ap.add_argument("--product", type=int, metavar="N", help="instead: compare gbrain query (minilm, embedded through the product from the cache) with the chosen variant over the last --chunking for the first N test questions")
    args = ap.parse_args()
    docs, queries, qrels = S.load(Path(args.corpus))
    cache = Cache(Path(args.cache))
    tmp = Path(tempfile.mkdtemp(prefix="gbrain-scifact-vec-"))
    S.write_tree(docs, tmp / "tree")
    b = Brain.open(tmp / "brain.db")
    import_tree(b, tmp / "tree")
    model = get_model(args.model)
    pages = b.conn.execute("SELECT id, slug, title, compiled_truth, timeline FROM pages ORDER BY id").fetchall()
    doc_of = {r[0]: r[1].split("/", 1)[1] for r in pages}
    # the 220-token chunking first: its best-chunk run is the baseline of the train differences
    names = list(dict.fromkeys(["220"] + (args.chunking or []))) if args.model == "minilm" else (args.chunking or ["500"])
    sets = {name: chunk_set(name, pages) for name in names}
    qids = sorted(set(qrels["train"]) | set(qrels["test"]))
    texts = [queries[q] for q in qids] + [t for ch in sets.values() for _, t in ch]
    if not embed_missing(cache, model, texts, args.budget):
        left = len(cache.missing(texts))
        print(f"stopped after --budget {args.budget:g} s with {left:,} texts left; run again to continue (cache: {args.cache})")
        if not args.partial or cache.missing([queries[q] for q in qids]):
            return
        sets = {name: [(p, t) for p, t in ch if sha(t) in cache.where] for name, ch in sets.items()}
        print("PARTIAL: figures below are not comparable with the full run")
    if args.sides:
        evaluate_sides(b, sets, queries, qids, qrels, doc_of, cache, model, quick=args.quick)
        b.close()
        return
    kw = {q: keyword_side(b.conn, queries[q]) for q in qids}
    if args.product:
        name = names[-1]
        check_product(b, name, sets[name], queries, sorted(qrels["test"]), kw, cache, args.product)
        b.close()
        return
    qv = cache.matrix([queries[q] for q in qids])
    print(f"\n{'variant':<36} " + " ".join(f"tr@{w:<5g}" for w in WEIGHTS) + "  w*    train  test@w*  test@0.65  train Δ vs 220 ± SE")
    base, rows = None, []
    for name, chunks in sets.items():
        print(f"chunking {name}: {len(chunks):,} chunks of {len({p for p, _ in chunks}):,} pages", flush=True)
        base, got = evaluate(name, chunks, qv, qids, kw, qrels, doc_of, cache, quick=args.quick, baseline=base)
        rows += got
    best = max(rows, key=lambda r: r[2])
    print(f"chosen on train: {best[0]} at keyword weight {best[1]:g}: train {best[2]:.4f}, test {best[3]:.4f}")
    print("target (issue 13): gbrain query with minilm ≥ 0.74 nDCG@10 on test, the variant chosen on train")
    print("load average %.2f %.2f %.2f" % os.getloadavg())
    b.close()


def keyword_side(conn, question: str, k: int = 300, coordinate: bool | None = None) -> list[tuple[int, float]]:
    """``gbrain query``'s keyword candidates for ``question`` (``hybrid.keyword_side``) as
    ``[(page_id, score)]``, best first: the keyword side of every formula measured here.
    ``coordinate`` (``--sides``): that side instead of the shipped ``hybrid.KEYWORD_COORDINATE``."""
    keep = hybrid.KEYWORD_COORDINATE
    if coordinate is not None:
        hybrid.KEYWORD_COORDINATE = coordinate
    try:
        return [(h["id"], h["score"]) for h in hybrid.keyword_side(conn, question, limit=k)]
    finally:
        hybrid.KEYWORD_COORDINATE = keep


#: the two keyword sides ``--sides`` compares: (label, hybrid.KEYWORD_COORDINATE)
SIDES = [("plain", False), ("search", True)]


def evaluate_sides(b, sets, queries, qids, qrels, doc_of, cache, model, *, quick=False) -> None:
    """``--sides``: every chunking's variants (:func:`evaluate`) with query's plain BM25 keyword
    side and with search's ranking (coordination factor + phrase evidence), then, per formula,
    nDCG@10 of each side on train and test and the paired difference (search − plain) ± its
    standard error over the queries: the shipped formulas (best chunk at the model's
    ``fts_weight``; with ``minilm``, ``prf fused k=3 b=0.5`` at its ``feedback_weight`` 0.55: what
    ``gbrain query`` computes) and each side's train-best variant and weight (chosen on train,
    reported on test)."""
    qv = cache.matrix([queries[q] for q in qids])
    keep: dict[str, dict] = {}
    for side, coord in SIDES:
        t0 = time.process_time()
        kw = {q: keyword_side(b.conn, queries[q], coordinate=coord) for q in qids}
        print(f"\nkeyword side {side} (coordinate={coord}): {(time.process_time() - t0) * 1000 / len(qids):.1f} ms CPU per question (300 candidates)")
        print(f"{'variant':<36} " + " ".join(f"tr@{w:<5g}" for w in WEIGHTS) + "  w*    train  test@w*  test@0.65  train Δ vs 220 ± SE")
        keep[side] = {}
        base = None
        for name, chunks in sets.items():
            print(f"chunking {name}: {len(chunks):,} chunks of {len({p for p, _ in chunks}):,} pages", flush=True)
            base, _ = evaluate(name, chunks, qv, qids, kw, qrels, doc_of, cache, quick=quick, baseline=base, keep=keep[side])
    a, c = keep["plain"], keep["search"]

    def pair(va: str, wa: float, vc: str, wc: float) -> str:
        cells = []
        for split in ("train", "test"):
            x, y = a[va, wa, split], c[vc, wc, split]
            d = y - x
            cells.append(f"{split} {x.mean():.4f} → {y.mean():.4f} ({d.mean():+.4f} ± {d.std(ddof=1) / np.sqrt(len(d)):.4f}; better {int((d > 0).sum())}, worse {int((d < 0).sum())})")
        return "; ".join(cells)

    print("\nsearch's keyword side against plain BM25, paired (plain → search, difference ± SE):")
    fw, fb = model.fts_weight, getattr(model, "feedback_pages", None)
    for name in sets:
        mx = f"{name} max (shipped)"
        print(f"  {name} best chunk @{fw:g}{'' if fb else ' (gbrain query)'}: " + pair(mx, fw, mx, fw))
        if fb:
            prf = f"{name} prf fused k=3 b=0.5"
            print(f"  {name} prf fused k=3 b=0.5 @{model.feedback_weight:g} (gbrain query): " + pair(prf, model.feedback_weight, prf, model.feedback_weight))
    best = {side: max(((v, w) for (v, w, sp) in keep[side] if sp == "train"), key=lambda vw: keep[side][vw[0], vw[1], "train"].mean()) for side in keep}
    for side, (v, w) in best.items():
        print(f"  train-best with {side}: {v} @{w:g}: train {keep[side][v, w, 'train'].mean():.4f}, test {keep[side][v, w, 'test'].mean():.4f}")
    print("  train-best against train-best: " + pair(*best["plain"], *best["search"]))
    print("load average %.2f %.2f %.2f" % os.getloadavg())


def rocchio(q: np.ndarray, pages: list[int], rows_of: dict[int, list[int]], m: np.ndarray, beta: float) -> np.ndarray:
    """Variant ``prf``'s query vector: ``unit(q + beta · mean(best chunk of each of pages))``, a
    page's best chunk being its row of ``m`` (``rows_of[page]``) with the highest cosine with the
    unit vector ``q``; ``q`` itself when no page has a chunk (``--partial``: a keyword hit may
    have no vector yet)."""
    best = [max(rows_of[p], key=lambda r: float(q @ m[r])) for p in pages if p in rows_of]
    q2 = q + beta * m[best].mean(axis=0) if best else q.copy()
    return q2 / np.linalg.norm(q2)


def check_product(b: Brain, name: str, chunks: list[tuple[int, str]], queries: dict, qids: list[str], kw: dict, cache: Cache, n: int) -> None:
    """Compare ``gbrain query`` (``hybrid.query`` with ``minilm``, as shipped: boosts and its
    feedback step) with the chosen variant as evaluated here (``prf fused k=3 b=0.5``, keyword
    weight 0.65 then 0.55, over chunking ``name``'s ``chunks`` and the cached vectors) for the
    first ``n`` of ``qids``: prints whether the brain's stored chunks are that chunking's and for
    how many questions the top 10 (pages and order) are the same. The brain is embedded through
    the product (``plan_embed``/``embed_pages``) with vectors read from ``cache``."""
    from gbrain.search.vectors import VectorIndex, embed_pages, plan_embed, select_pages

    model = S.CachedModel(get_model("minilm"), cache)
    _, work = plan_embed(b.conn, model, select_pages(b.conn, model.model_id, "all"))
    embed_pages(b.conn, model, work, transaction=b.transaction)
    stored = b.conn.execute("SELECT page_id, chunk_text FROM page_embeddings WHERE model = ? ORDER BY page_id, chunk_index", (model.model_id,)).fetchall()
    same_chunks = sorted(map(tuple, stored)) == sorted(chunks)
    print(f"product chunks ({len(stored):,}) {'are' if same_chunks else 'are NOT'} chunking {name}'s ({len(chunks):,}); {model.embedded:,} texts embedded")
    m, starts, upages, rows_of = chunk_matrix(cache, chunks)

    def top(q: np.ndarray, k: int = 300) -> list[tuple[int, float]]:
        row = np.maximum.reduceat(m @ q, starts)
        i = np.argpartition(-row, k)[:k]
        i = i[np.argsort(-row[i], kind="stable")]
        return [(int(upages[j]), float(row[j])) for j in i]

    slug_id = {r[1]: r[0] for r in b.conn.execute("SELECT id, slug FROM pages")}
    VectorIndex.forget()
    same, t0 = 0, time.perf_counter()
    for q in qids[:n]:
        qv = cache.matrix([queries[q]])[0]
        base = tmm(kw[q], top(qv), SHIPPED_WEIGHT)
        want = tmm(kw[q], top(rocchio(qv, base[:3], rows_of, m, 0.5)), 0.55)[:10]
        got = [slug_id[h["slug"]] for h in hybrid.query(b, queries[q], model=model, limit=10)["hits"]]
        same += got == want
        if got != want:
            print(f"  differs: {q} {queries[q]!r}\n    product {got}\n    formula {want}")
    print(f"gbrain query vs the formula: the same top 10 for {same}/{min(n, len(qids))} questions ({time.perf_counter() - t0:.0f} s; load average %.2f %.2f %.2f)" % os.getloadavg())


def chunk_matrix(cache, chunks):
    """``(m, starts, upages, rows_of)`` for ``chunks`` (``[(page_id, text)]``, pages in order):
    the cached unit vectors as rows of ``m``, the first row of each page (``starts``, for
    ``np.maximum.reduceat``), the page id of each such run (``upages``) and each page's rows."""
    m = cache.matrix([t for _, t in chunks])
    pids = np.array([p for p, _ in chunks])
    starts = np.flatnonzero(np.r_[True, np.diff(pids) != 0])
    rows_of: dict[int, list[int]] = {}
    for i, p in enumerate(pids):
        rows_of.setdefault(int(p), []).append(i)
    return m, starts, pids[starts], rows_of


def evaluate(label, chunks, qv, qids, kw, qrels, doc_of, cache, *, quick=False, baseline=None, keep=None):
    """Print train nDCG@10 per keyword weight, the train-best weight w*, test at w* and at the
    shipped weight, and the train difference at w* from ``baseline`` (per-train-query nDCG@10 of
    the shipped chunking, best chunk, weight 0.65; computed here when ``label`` is ``220``)
    with its standard error over the 809 paired queries, for each vector-side variant over
    ``chunks`` (``[(page_id, text)]``). Returns ``(baseline, [(variant, w*, train, test@w*,
    test@0.65)])``. ``keep`` (a dict), when given, receives each variant's per-query nDCG@10
    arrays: ``keep[(variant, w, split)]`` for every weight and both splits (``--sides`` pairs
    them)."""
    qi = {q: i for i, q in enumerate(qids)}
    m, starts, upages, rows_of = chunk_matrix(cache, chunks)

    def page_max(q: np.ndarray) -> np.ndarray:
        return np.maximum.reduceat(q @ m.T, starts, axis=1)

    def top(row: np.ndarray, k: int = 300) -> list[tuple[int, float]]:
        i = np.argpartition(-row, k)[:k]
        i = i[np.argsort(-row[i], kind="stable")]
        return [(int(upages[j]), float(row[j])) for j in i]

    def per_query(split: str, scores: np.ndarray, w: float) -> np.ndarray:
        return np.array([S.ndcg10([doc_of[p] for p in tmm(kw[q], top(scores[qi[q]]), w)[:10]], rel) for q, rel in qrels[split].items()])

    def ndcg(split: str, scores: np.ndarray, w: float) -> float:
        return float(per_query(split, scores, w).mean())

    smax = page_max(qv)
    first = qv @ m[[rows_of[int(p)][0] for p in upages]].T
    variants = [("max (shipped)", smax)] + [(f"max+first b={bb:g}", (1 - bb) * smax + bb * first) for bb in ((0.1,) if quick else (0.1, 0.2, 0.3, 0.5))]
    base = {q: tmm(kw[q], top(smax[qi[q]]), SHIPPED_WEIGHT) for q in qids}
    feedback = [("fused", 3, 0.5), ("vector", 3, 0.5)] if quick else [(s, k, bb) for s in ("fused", "vector") for k in (3, 5, 10) for bb in (0.25, 0.5, 1.0)]
    for src, k, beta in feedback:
        q2 = qv.copy()
        for q, i in qi.items():
            pages_k = base[q][:k] if src == "fused" else [p for p, _ in top(smax[i], k)]
            q2[i] = rocchio(qv[i], pages_k, rows_of, m, beta)
        variants.append((f"prf {src} k={k} b={beta:g}", page_max(q2)))
    out = []
    for name, sc in variants:
        pq = {(w, split): per_query(split, sc, w) for w in WEIGHTS for split in ("train", "test")} if keep is not None else {}
        tr = {w: float(pq[w, "train"].mean()) if pq else ndcg("train", sc, w) for w in WEIGHTS}
        bw = max(WEIGHTS, key=lambda w: tr[w])
        if keep is not None:
            keep.update({(f"{label} {name}", w, split): a for (w, split), a in pq.items()})
        runs = pq[bw, "train"] if pq else per_query("train", sc, bw)
        if baseline is None and label == "220" and name == "max (shipped)":
            baseline = per_query("train", sc, SHIPPED_WEIGHT)
        d = runs - baseline if baseline is not None else np.zeros(1)
        se = float(d.std(ddof=1) / np.sqrt(len(d))) if len(d) > 1 else 0.0
        te, te65 = (float(pq[bw, "test"].mean()), float(pq[SHIPPED_WEIGHT, "test"].mean())) if pq else (ndcg("test", sc, bw), ndcg("test", sc, SHIPPED_WEIGHT))
        print(f"{label + ' ' + name:<36} " + " ".join(f"{tr[w]:.4f} " for w in WEIGHTS) + f" {bw:<5g} {tr[bw]:.4f}  {te:.4f}   {te65:.4f}   {d.mean():+.4f} ± {se:.4f}", flush=True)
        if pq:  # (--sides) the test figure at every weight too, for reading, never for choosing
            print(f"{'  test at each weight':<36} " + " ".join(f"{float(pq[w, 'test'].mean()):.4f} " for w in WEIGHTS), flush=True)
        out.append((f"{label} {name}", bw, tr[bw], te, te65))
    return baseline, out


if __name__ == "__main__":
    main()
