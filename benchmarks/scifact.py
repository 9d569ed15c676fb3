"""Search quality on BEIR SciFact, through gbrain's own import, embedding and search code.

    python benchmarks/scifact.py [--corpus ../shared/corpora/ir/scifact] [--model minilm ...] [--vector-cache DIR]

Writes the 5,183 abstracts as markdown pages (``# Title`` + abstract) into a temporary tree,
``import_tree``s it into a temporary brain, embeds every page with each model (default: the
offline default, ``minilm`` when installed, then ``wordllama``) and ranks the 300 test queries
(qrels/test.tsv) with

* ``search``: FTS5 BM25 (``gbrain search``), per title weight;
* ``vector``: cosine similarity only (best chunk per page);
* ``query``: the fusions RRF (k=60), spec min-max 0.4·FTS + 0.6·vector, and min-max / tmm
  (BM25 scaled by its theoretical minimum 0) with the keyword weight tuned on the 809 *train*
  queries (never on test), plus ``gbrain query`` as shipped (``hybrid.query`` with its
  defaults and boosts; with ``minilm`` that includes its feedback step and second vector
  search). Every run fuses the same top ``hybrid.CANDIDATES`` of each side.

``--vector-cache DIR`` (one model) reads vectors from a folder in ``scifact_vectors.py``'s cache
format (:class:`Cache`) before embedding: the chunks and questions found there cost nothing,
the others are embedded and added. The product path is otherwise unchanged (chunking, stored
vectors, ``hybrid.query``), so an end-to-end figure takes minutes instead of ~1,000 CPU-seconds
of ``minilm``.

Metrics: nDCG@10 (binary gains, ideal DCG from the qrels, as trec_eval's ndcg_cut) and
Recall@100, averaged over queries. Published figures are printed beside them.

``--db postgresql://…/EMPTY`` builds the brain in that (empty) Postgres database instead: the
keyword rows rank with Postgres' search (its field weights are fixed: no title-weight sweep);
``--baseline OTHER/gbrain/search/keyword.py`` ranks the same brain with another checkout's
search too (a row beside the shipped one), e.g. /work/main before a change.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: ../shared of the repository (a git worktree may sit one level deeper)
SHARED = next((d / "shared" for d in ROOT.parents if (d / "shared" / "corpora").is_dir()), ROOT.parent / "shared")
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from gbrain.search import hybrid, keyword as search  # noqa: E402
from gbrain.core.brain import Brain  # noqa: E402
from gbrain.search.embeddings import OFFLINE_MODEL, get_model, offline_model  # noqa: E402
from gbrain.search.vectors import VectorIndex, embed_pages, plan_embed, select_pages  # noqa: E402
from gbrain.sync.importer import import_tree  # noqa: E402

#: issue 13's bars (nDCG@10 on the test queries): keyword search, and ``gbrain query`` per model
TARGETS = {"search": 0.69, "minilm": 0.74, "wordllama": 0.71}

PUBLISHED = [
    ("BEIR BM25 (Elasticsearch, multifield)", 0.665, None),
    ("Pyserini BM25 flat", 0.679, 0.925),
    ("all-MiniLM-L6-v2 (MTEB)", 0.645, 0.925),
    ("BAAI/bge-base-en-v1.5 (Pyserini)", 0.741, 0.967),
]


def load(corpus: Path):
    docs = [json.loads(line) for line in (corpus / "corpus.jsonl").open(encoding="utf-8")]
    queries = {}
    for line in (corpus / "queries.jsonl").open(encoding="utf-8"):
        q = json.loads(line)
        queries[q["_id"]] = q["text"]
    qrels: dict[str, dict[str, dict[str, int]]] = {}
    for split in ("test", "train"):
        rel: dict[str, dict[str, int]] = {}
        lines = (corpus / "qrels" / f"{split}.tsv").read_text().splitlines()[1:]
        for ln in lines:
            qid, did, score = ln.split("\t")
            if int(score) > 0:
                rel.setdefault(qid, {})[did] = int(score)
        qrels[split] = rel
    return docs, queries, qrels


def write_tree(docs: list[dict], root: Path) -> None:
    d = root / "papers"
    d.mkdir(parents=True)
    for doc in docs:
        title = " ".join(doc["title"].split()) or doc["_id"]
        (d / f"{doc['_id']}.md").write_text(f"# {title}\n\n{doc['text'].strip()}\n", encoding="utf-8")


def sha(text: str) -> str:
    """The cache key of a text: the hex sha256 of its UTF-8 bytes."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class Cache:
    """sha256(text) → unit vector (float32), stored as ``<stamp>.npy`` (the vectors, one row per
    text) + ``<stamp>.json`` (their texts' :func:`sha`, in order) files in a folder; every file
    is read on opening. Shared by ``--vector-cache`` here and ``scifact_vectors.py --cache``.
    Vectors are the model's own (one folder per model: nothing in it says which)."""

    def __init__(self, folder: Path):
        self.dir = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.where: dict[str, tuple[int, int]] = {}
        self.mats: list[np.ndarray] = []
        for f in sorted(folder.glob("*.npy")):
            names = json.loads(f.with_suffix(".json").read_text())
            m = np.load(f)
            for i, h in enumerate(names):
                self.where[h] = (len(self.mats), i)
            self.mats.append(m)

    def missing(self, texts: list[str]) -> list[str]:
        """The texts without a vector, each once, in order."""
        seen: set[str] = set()
        out = []
        for t in texts:
            h = sha(t)
            if h not in self.where and h not in seen:
                seen.add(h)
                out.append(t)
        return out

    def add(self, texts: list[str], vecs: np.ndarray) -> None:
        """Store ``vecs`` (``(len(texts), dims)``) as the vectors of ``texts``, in a new file pair."""
        stamp = f"{time.time():.6f}"
        np.save(self.dir / f"{stamp}.npy", vecs)
        (self.dir / f"{stamp}.json").write_text(json.dumps([sha(t) for t in texts]))
        for i, t in enumerate(texts):
            self.where[sha(t)] = (len(self.mats), i)
        self.mats.append(vecs)

    def matrix(self, texts: list[str]) -> np.ndarray:
        """The vectors of ``texts`` (all present: KeyError otherwise), ``(len(texts), dims)``."""
        return np.stack([self.mats[a][b] for a, b in (self.where[sha(t)] for t in texts)])


class CachedModel:
    """An embedding model whose ``embed``/``embed_multi`` take each text's vector from a
    :class:`Cache` and send only the texts it lacks to the model (storing what comes back);
    every other attribute (``model_id``, weights, chunk budget, feedback) is the model's. So
    ``gbrain query`` and ``embed`` run as shipped without embedding SciFact again."""

    def __init__(self, model, cache: Cache):
        self._model = model
        self.cache = cache
        self.embedded = 0  # texts the model embedded (not found in the cache)

    def __getattr__(self, name: str):
        return getattr(self._model, name)

    def embed(self, text: str) -> np.ndarray:
        return self.embed_multi([text])[0]

    def embed_multi(self, texts: list[str], on_batch=None) -> np.ndarray:
        todo = self.cache.missing(texts)
        if todo:
            self.cache.add(todo, self._model.embed_multi(todo))
            self.embedded += len(todo)
        if on_batch:
            on_batch(len(texts))
        if not texts:
            return np.zeros((0, self._model.dims or 0), dtype=np.float32)
        return self.cache.matrix(texts)


def ndcg10(ranked: list[str], rel: dict[str, int]) -> float:
    dcg = sum(1 / math.log2(i + 2) for i, d in enumerate(ranked[:10]) if d in rel)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(10, len(rel))))
    return dcg / ideal if ideal else 0.0


def recall100(ranked: list[str], rel: dict[str, int]) -> float:
    return len(set(ranked[:100]) & set(rel)) / len(rel)


def evaluate(runs: dict[str, list[str]], rel: dict[str, dict[str, int]]) -> tuple[float, float]:
    n = [ndcg10(runs.get(q, []), r) for q, r in rel.items()]
    rc = [recall100(runs.get(q, []), r) for q, r in rel.items()]
    return sum(n) / len(n), sum(rc) / len(rc)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", default=str(SHARED / "corpora" / "ir" / "scifact"))
    ap.add_argument("--model", action="append", help="embedding model (repeatable; default: the offline default, then wordllama)")
    ap.add_argument("--keep", help="keep the brain (with its embeddings) at this path")
    ap.add_argument("--title-weights", default="1,2,3,5", help="title weights of the keyword sweep (comma-separated; the shipped one is always included)")
    ap.add_argument("--keyword-only", action="store_true", help="only the keyword rows (no embedding)")
    ap.add_argument("--reuse", action="store_true", help="with --keep: reuse that brain if it exists (its stored vectors are not embedded again)")
    ap.add_argument("--coord-off", action="store_true", help="also rank `search` without its coordination factor (keyword.COORD_POWER = 0), in the same run (`gbrain query`'s keyword side has none)")
    ap.add_argument("--vector-cache", metavar="DIR", help="folder of cached vectors (scifact_vectors.py's --cache format; one model only): texts found there are not embedded, new ones are added")
    ap.add_argument("--db", metavar="URL", help="make the brain in this empty Postgres database (postgresql://…) instead of a temporary SQLite file")
    ap.add_argument("--baseline", metavar="KEYWORD_PY", help="another checkout's gbrain/search/keyword.py: its search ranks the same brain too (a row beside)")
    args = ap.parse_args()
    corpus = Path(args.corpus)
    if not (corpus / "corpus.jsonl").exists():
        sys.exit(f"SciFact not found at {corpus}")
    models = [] if args.keyword_only else (args.model or list(dict.fromkeys([offline_model(), OFFLINE_MODEL])))
    docs, queries, qrels = load(corpus)
    tmp = Path(tempfile.mkdtemp(prefix="gbrain-scifact-"))
    tree = tmp / "tree"
    write_tree(docs, tree)
    db = args.db or (Path(args.keep) if args.keep else tmp / "brain.db")
    if not args.db and db.exists() and not (args.keep and args.reuse):
        db.unlink()
    b = Brain.open(db)
    t = time.perf_counter()
    import_tree(b, tree)
    t_import = time.perf_counter() - t
    print(f"SciFact: {len(docs):,} docs imported in {t_import:.1f} s", flush=True)
    slug_of = {r[0]: r[1].split("/", 1)[1] for r in b.conn.execute("SELECT id, slug FROM pages")}
    db_key = args.db or str(db.resolve())
    K = hybrid.CANDIDATES

    def as_docs(lst) -> list[str]:
        return [slug_of[p] for p, _ in lst]

    rows: list[tuple[str, float, float]] = []
    shipped: dict[str, float] = {}
    # keyword search: title weights (tuned on train, reported on test)
    fts = {}
    sweep = sorted({float(x) for x in args.title_weights.split(",") if x.strip()} | {search.TITLE_WEIGHT})
    if args.db:  # Postgres weighs its fields in the tsvector: one row
        sweep = [search.TITLE_WEIGHT]
    for tw in sweep:
        weights = (tw, tw) + search.WEIGHTS[2:]
        fts[tw] = {q: search.fts_candidates(b.conn, queries[q], limit=K, weights=weights) for split in ("train", "test") for q in qrels[split]}
        tr = evaluate({q: as_docs(fts[tw][q]) for q in qrels["train"]}, qrels["train"])[0]
        nd, rc = evaluate({q: as_docs(fts[tw][q]) for q in qrels["test"]}, qrels["test"])
        mark = " (gbrain search)" if tw == search.TITLE_WEIGHT else ""
        rows.append((f"search: FTS5 BM25, title weight {tw:g}{mark} [train nDCG {tr:.3f}]", nd, rc))
        if tw == search.TITLE_WEIGHT:
            shipped["search"] = nd
    if args.baseline:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from postgres import load_baseline

        base = sys.modules[load_baseline(args.baseline).__module__]
        old = {q: [(h["id"], h["score"]) for h in base.keyword_candidates(b.conn, queries[q], limit=K)] for split in ("train", "test") for q in qrels[split]}
        tr = evaluate({q: as_docs(old[q]) for q in qrels["train"]}, qrels["train"])[0]
        nd, rc = evaluate({q: as_docs(old[q]) for q in qrels["test"]}, qrels["test"])
        rows.append((f"search: --baseline {args.baseline} [train nDCG {tr:.3f}]", nd, rc))
    # the fusions below use the keyword side `gbrain query` uses: plain BM25, no coordination
    fts_all = {q: search.fts_candidates(b.conn, queries[q], limit=K, coordinate=False) for split in ("train", "test") for q in qrels[split]}
    shipped_power = search.COORD_POWER

    def coord_off(run):
        """``run()`` with keyword search's coordination factor off (``COORD_POWER = 0``)."""
        search.COORD_POWER = 0.0
        try:
            return run()
        finally:
            search.COORD_POWER = shipped_power

    if args.coord_off:
        off = coord_off(lambda: {q: search.fts_candidates(b.conn, queries[q], limit=K) for split in ("train", "test") for q in qrels[split]})
        tr = evaluate({q: as_docs(off[q]) for q in qrels["train"]}, qrels["train"])[0]
        nd, rc = evaluate({q: as_docs(off[q]) for q in qrels["test"]}, qrels["test"])
        rows.append((f"search: coordination off (COORD_POWER 0; shipped {shipped_power:g}) [train nDCG {tr:.3f}]", nd, rc))
    grid = [round(0.05 * i, 2) for i in range(21)]
    curves = []
    if args.vector_cache and len(models) > 1:
        sys.exit("--vector-cache holds one model's vectors: give one --model")
    cache = Cache(Path(args.vector_cache)) if args.vector_cache else None
    for name in models:
        model = get_model(name)
        if cache is not None:
            model = CachedModel(model, cache)
            # every question at once: one cache file for those it lacks, not one per query
            model.embed_multi([queries[q] for split in ("train", "test") for q in qrels[split]])
            print(f"--vector-cache {args.vector_cache}: {len(cache.where):,} vectors; {model.embedded:,} questions embedded", flush=True)
        t, c, before = time.perf_counter(), time.process_time(), getattr(model, "embedded", 0)
        plan, work = plan_embed(b.conn, model, select_pages(b.conn, model.model_id, "all"))
        embed_pages(b.conn, model, work, transaction=b.transaction)
        t_embed, c_embed = time.perf_counter() - t, time.process_time() - c
        print(
            f"{plan.chunks:,} chunks ({plan.to_embed:,} to embed) with {model.model_id} in {t_embed:.1f} s wall, {c_embed:.1f} CPU-s: "
            f"{plan.to_embed / max(t_embed, 1e-9):,.1f} chunks/s wall, {plan.to_embed / max(c_embed, 1e-9):,.1f} chunks per CPU-second",
            flush=True,
        )
        if cache is not None:
            print(f"  of which {model.embedded - before:,} embedded by the model, the rest read from --vector-cache", flush=True)
        vec = {}
        for split in ("train", "test"):
            for qid in qrels[split]:
                _, _, v = hybrid.vector_search(b.conn, db_key, model, queries[qid], limit=K)
                vec[qid] = [(p, s) for p, s, _ in v]
        nd, rc = evaluate({q: as_docs(vec[q]) for q in qrels["test"]}, qrels["test"])
        rows.append((f"vector only: {model.model_id}", nd, rc))

        def fused(split, method, w):
            return {q: as_docs(hybrid.fuse(fts_all[q], vec[q], method, w)) for q in qrels[split]}

        nd, rc = evaluate(fused("test", "rrf", 0), qrels["test"])
        rows.append((f"query ({model.model_id}): RRF k=60", nd, rc))
        nd, rc = evaluate(fused("test", "minmax", 0.4), qrels["test"])
        rows.append((f"query ({model.model_id}): min-max 0.4·FTS + 0.6·vector (spec)", nd, rc))
        train_scores = {(meth, w): evaluate(fused("train", meth, w), qrels["train"])[0] for meth in ("minmax", "tmm") for w in grid}
        for meth in ("minmax", "tmm"):
            best_w = max(grid, key=lambda w: train_scores[(meth, w)])
            nd, rc = evaluate(fused("test", meth, best_w), qrels["test"])
            rows.append((f"query ({model.model_id}): {meth}, keyword weight {best_w:g} tuned on train (train nDCG {train_scores[(meth, best_w)]:.3f})", nd, rc))
            curves.append(f"{model.model_id} {meth} keyword weight → train nDCG@10: " + ", ".join(f"{w:g}:{train_scores[(meth, w)]:.3f}" for w in grid))
        # gbrain query as shipped (defaults + boosts), through hybrid.query
        runs = {}
        t = time.perf_counter()
        for qid in qrels["test"]:
            r = hybrid.query(b, queries[qid], limit=K, model=model)
            runs[qid] = [h["slug"].split("/", 1)[1] for h in r["hits"]]
        t_q = (time.perf_counter() - t) / len(qrels["test"])
        nd, rc = evaluate(runs, qrels["test"])
        shipped[model.model_id] = nd
        fb = f", feedback from the top {model.feedback_pages} (b = {model.feedback_beta:g}) then {model.feedback_weight:g}" if getattr(model, "feedback_pages", None) else ""
        rows.append((f"gbrain query as shipped ({model.model_id}, {hybrid.DEFAULT_FUSION}, keyword weight {model.fts_weight or hybrid.DEFAULT_WEIGHT}{fb}, boosts on; {t_q * 1000:.0f} ms/query warm)", nd, rc))

    print(f"\n{'run (300 test queries)':<100} {'nDCG@10':>8} {'R@100':>7}")
    for name, nd, rc in rows:
        print(f"{name:<100} {nd:8.4f} {rc:7.4f}")
    print("published:")
    for name, nd, rc in PUBLISHED:
        print(f"  {name:<98} {nd:8.3f} {('%7.3f' % rc) if rc else '      -'}")
    print("targets (issue 13), nDCG@10 on test:")
    for name, nd in shipped.items():
        t = TARGETS.get(name)
        label = "gbrain search" if name == "search" else f"gbrain query ({name})"
        print(f"  {label:<30} {nd:.4f}   target ≥ {t:.2f}  {'ok' if nd >= t else 'BELOW'}" if t else f"  {label:<30} {nd:.4f}   (no target)")
    print("load average %.2f %.2f %.2f" % __import__("os").getloadavg())
    for c in curves:
        print(c)
    b.close()
    VectorIndex.forget()
    import shutil

    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
