"""Query latency: warm ``query`` on 50,000 chunks at 256 and 1,536 dims, and a cold CLI query.

    python benchmarks/query_latency.py [--pages 7471] [--chunks 50000] [--queries 200]

1. Builds a ``make_brain`` brain of ``--pages`` pages (``../shared/tools/make_brain.py``) and
   imports it with gbrain's importer.
2. Warm process: for 256 and 1,536 dims, stores ``--chunks`` synthetic unit vectors (spread over
   the pages, model ``fake-<dims>``) and times ``hybrid.query`` (FTS5 + vectors + fusion +
   passages) and the vector part alone (``VectorIndex.scores`` + ``top_pages``) over
   ``--queries`` questions; prints p50/p95, the first-load time and the index memory. Baseline
   in the same run: a stateless query that reads every vector from SQLite and scores it (what a
   process without the in-memory index pays per query).
3. Warm ``query`` with the real model (``minilm`` by default): p50/p95 over 60 questions, the
   question encoded on one BLAS thread as shipped, and with all BLAS threads as the baseline
   (target: p50 ≤ 60 ms with minilm on the 7,471-page brain); for a model with feedback
   (``minilm``), also with it off (one vector search: the ranking before the feedback step).
4. Cold CLI: embeds the real pages with the offline default (``minilm`` when installed, else
   ``wordllama``; ``--model`` to choose) and times
   ``python -m gbrain query QUESTION`` end to end (median of 5), beside ``gbrain search``.

Cold-process A/B (``--cold-ab BASE --db BRAIN``): on an existing brain (e.g. ``make_brain --pages
8000``, imported, ``embed``), alternates this tree and the checkout BASE (``git archive main | tar
-x -C BASE``), ``--rounds`` times each: the CPU (user+sys, ``RUSAGE_CHILDREN``) and wall of a cold
``python -m gbrain query``, and of loading the active model's vectors alone in a fresh process
(``VectorIndex.get``, after the imports). Medians.
"""
from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from gbrain.search import hybrid  # noqa: E402
from gbrain.core.brain import Brain  # noqa: E402
from gbrain.search.embeddings import get_model, normalize, offline_model, to_blob  # noqa: E402
from gbrain.search.vectors import VectorIndex, embed_pages, plan_embed, select_pages  # noqa: E402
from gbrain.sync.importer import import_tree  # noqa: E402

#: ../shared of the repository (a git worktree may sit one level deeper)
SHARED = next((d / "shared" for d in ROOT.parents if (d / "shared" / "tools").is_dir()), ROOT.parent / "shared")
MAKE_BRAIN = SHARED / "tools" / "make_brain.py"


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def rss_mb() -> float:
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def fill_synthetic(b: Brain, model: str, dims: int, n: int, rng: np.random.Generator) -> None:
    pids = [r[0] for r in b.conn.execute("SELECT id FROM pages ORDER BY id")]
    words = [r[0] for r in b.conn.execute("SELECT title FROM pages ORDER BY id")]
    with b.transaction():
        b.conn.execute("DELETE FROM page_embeddings WHERE model = ?", (model,))
        for s in range(0, n, 5000):
            m = normalize(rng.standard_normal((min(5000, n - s), dims)).astype(np.float32))
            rows = []
            for i, v in enumerate(m):
                k = s + i
                pid = pids[k % len(pids)]
                text = f"{words[k % len(words)]}\nsynthetic chunk {k}"
                rows.append((pid, k // len(pids), text, to_blob(v), model, f"h{k}", dims))
            b.conn.executemany("INSERT INTO page_embeddings(page_id, chunk_index, chunk_text, embedding, model, text_hash, dims) VALUES (?, ?, ?, ?, ?, ?, ?)", rows)


def baseline_query(b: Brain, model: str, q: np.ndarray, k: int = 10) -> list:
    rows = b.conn.execute("SELECT page_id, embedding FROM page_embeddings WHERE model = ?", (model,)).fetchall()
    m = np.frombuffer(b"".join(r[1] for r in rows), dtype="<f4").reshape(len(rows), -1)
    s = m @ q
    top = np.argsort(-s)[:k]
    return [rows[i][0] for i in top]


LOAD_ONLY = """
import resource, sqlite3, sys, time
from gbrain.search.vectors import VectorIndex, active_model
conn = sqlite3.connect(sys.argv[1])
model = active_model(conn, dict(conn.execute("SELECT key, value FROM config")))[0].model_id
r0, t0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
idx = VectorIndex.get(conn, sys.argv[1], model)
r1, t1 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
print(r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime, t1 - t0, idx.n)
"""


def cold_ab(base: Path, db: Path, rounds: int) -> None:
    """This tree vs ``base``, alternated: a cold ``gbrain query`` and a cold vector load (CPU-s, wall s)."""
    trees = {"this": ROOT, "base": base.resolve()}
    # bytecode of both trees written first (PYTHONDONTWRITEBYTECODE would compile a tree in every run)
    env0 = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "GBRAIN_DB", "PYTHONDONTWRITEBYTECODE")}
    for t in trees.values():
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(t / "gbrain")], env=env0, check=True, capture_output=True)
    res: dict[tuple[str, str], list[tuple[float, float]]] = {}
    n = 0
    for r in range(rounds):
        for name in (("this", "base") if r % 2 else ("base", "this")):
            env = {**env0, "PYTHONPATH": str(trees[name])}
            c0, t0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
            subprocess.run([sys.executable, "-m", "gbrain", "--db", str(db), "query", f"plans of {r} river budget"], cwd=trees[name], env=env, check=True, capture_output=True)
            c1, t1 = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
            res.setdefault((name, "query"), []).append((c1.ru_utime - c0.ru_utime + c1.ru_stime - c0.ru_stime, t1 - t0))
            out = subprocess.run([sys.executable, "-c", LOAD_ONLY, str(db)], cwd=trees[name], env=env, check=True, capture_output=True, text=True).stdout.split()
            res.setdefault((name, "load"), []).append((float(out[0]), float(out[1])))
            n = int(out[2])
    print(f"cold process on {db} ({n:,} vectors), median of {rounds}, alternated; load avg {os.getloadavg()[0]:.1f}")
    for what in ("query", "load"):
        for name in ("base", "this"):
            xs = res[(name, what)]
            print(f"  {what:5} {name:4}  CPU {statistics.median(x[0] for x in xs):.3f} s   wall {statistics.median(x[1] for x in xs):.3f} s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pages", type=int, default=7471)
    ap.add_argument("--chunks", type=int, default=50_000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--keep", help="work folder to keep (and reuse)")
    ap.add_argument("--real-only", action="store_true", help="skip the synthetic-vector part")
    ap.add_argument("--model", default=offline_model(), help="model for the cold CLI part (default: the offline default)")
    ap.add_argument("--synthetic-real", type=int, metavar="N", help="instead of embedding the pages with the real model, store N synthetic vectors under its id (its warm and cold query latency without hours of embedding on a busy machine; the doc's brain has 54,172 minilm chunks)")
    ap.add_argument("--cold-ab", metavar="BASE", help="cold-process A/B against the checkout BASE (needs --db)")
    ap.add_argument("--db", help="the brain for --cold-ab")
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()
    if args.cold_ab:
        cold_ab(Path(args.cold_ab), Path(args.db), args.rounds)
        return
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="gbrain-latency-"))
    work.mkdir(parents=True, exist_ok=True)
    tree, db = work / "tree", work / "brain.db"
    if not db.exists():
        if not MAKE_BRAIN.exists():
            sys.exit(f"make_brain not found at {MAKE_BRAIN}")
        subprocess.run([sys.executable, str(MAKE_BRAIN), str(tree), "--pages", str(args.pages), "--clean"], check=True, capture_output=True)
        b = Brain.open(db)
        t = time.perf_counter()
        import_tree(b, tree)
        print(f"imported {args.pages:,} pages in {time.perf_counter() - t:.1f} s")
        b.close()
    b = Brain.open(db)
    titles = [r[0] for r in b.conn.execute("SELECT title FROM pages")]
    rnd = random.Random(7)
    questions = [f"who knows {rnd.choice(titles)}?" if i % 2 else f"{rnd.choice(titles)} {rnd.choice(titles)} plans" for i in range(args.queries)]
    rng = np.random.default_rng(7)
    print(f"\nwarm process, {args.chunks:,} synthetic chunks over {args.pages:,} pages, {args.queries} queries (ms)")
    print(f"{'dims':>5} {'load':>8} {'query p50':>10} {'query p95':>10} {'vector p50':>11} {'vector p95':>11} {'baseline p50':>13} {'index MB':>9} {'RSS +MB':>8}")
    for dims in () if args.real_only else (256, 1536):
        model = get_model(f"fake-{dims}")
        fill_synthetic(b, model.model_id, dims, args.chunks, rng)
        b.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        VectorIndex.forget()
        r0 = rss_mb()
        t = time.perf_counter()
        idx = VectorIndex.get(b.conn, str(db.resolve()), model.model_id)
        load = (time.perf_counter() - t) * 1000
        r1 = rss_mb()
        qv = {q: model.embed(q) for q in questions}
        hybrid.query(b, questions[0], model=model)  # warm caches
        tq, tv = [], []
        for q in questions:
            t = time.perf_counter()
            hybrid.query(b, q, model=model, limit=10)
            tq.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            idx.top_pages(idx.scores(qv[q]), 10)
            tv.append((time.perf_counter() - t) * 1000)
        tb = []
        for q in questions[:10]:
            t = time.perf_counter()
            baseline_query(b, model.model_id, qv[q])
            tb.append((time.perf_counter() - t) * 1000)
        print(f"{dims:>5} {load:8.0f} {pct(tq, 50):10.1f} {pct(tq, 95):10.1f} {pct(tv, 50):11.1f} {pct(tv, 95):11.1f} {pct(tb, 50):13.0f} {idx.nbytes() / 1e6:9.0f} {r1 - r0:8.0f}")
        with b.transaction():
            b.conn.execute("DELETE FROM page_embeddings WHERE model = ?", (model.model_id,))
    # cold CLI on the real pages with the offline default (or --model)
    wl = get_model(args.model)
    if args.synthetic_real:
        # latency only: synthetic unit vectors stored under the real model's id (the question is
        # still encoded by the model); the ranking is meaningless, the work per query is the same
        fill_synthetic(b, wl.model_id, wl.dims, args.synthetic_real, rng)
        with b.transaction():
            b.conn.execute("INSERT INTO embed_state(page_id, model, content_hash, chunks, embedded_at) SELECT id, ?, content_hash, 0, '' FROM pages WHERE true "
                           "ON CONFLICT(page_id, model) DO UPDATE SET content_hash = excluded.content_hash", (wl.model_id,))
        print(f"\n{args.synthetic_real:,} synthetic {wl.dims}-dim vectors stored as {wl.model_id}'s (--synthetic-real: latency only)")
    have = b.conn.execute("SELECT COUNT(*) FROM page_embeddings WHERE model = ?", (wl.model_id,)).fetchone()[0]
    if not have:
        t, c = time.perf_counter(), time.process_time()
        plan, w = plan_embed(b.conn, wl, select_pages(b.conn, wl.model_id, "all"))
        embed_pages(b.conn, wl, w, transaction=b.transaction)
        dt = time.perf_counter() - t
        print(f"\nembedded {plan.pages:,} pages → {plan.chunks:,} chunks ({plan.tokens:,} tokens) with {wl.model_id} in {dt:.1f} s ({plan.chunks / dt:,.0f} chunks/s, "
              f"{plan.chunks / max(time.process_time() - c, 1e-9):,.1f} chunks per CPU-second; load average %.2f %.2f %.2f)" % os.getloadavg())
    b.set_config("embedding_model", wl.model_id)
    # warm in-process `query` with the real model: the question is encoded on one BLAS thread
    # (bert.SMALL_INPUT_TOKENS); baseline in the same run: the same questions with BLAS's threads
    from gbrain.search import bert

    qs = questions[: min(60, len(questions))]
    hybrid.query(b, qs[0], model=wl)  # load the index and the weights
    small = bert.SMALL_INPUT_TOKENS
    rows = {}
    runs = [("one BLAS thread (shipped)", small, True), ("all BLAS threads (baseline)", 0, True)]
    if getattr(wl, "feedback_pages", None):  # minilm: its feedback step (a second vector search) off
        runs.append(("one BLAS thread, feedback off (baseline: one vector search)", small, False))
    p50 = {}
    for label, limit, fb in runs:
        bert.SMALL_INPUT_TOKENS = limit
        tq, te, tc = [], [], []
        for q in qs:
            t = time.perf_counter()
            wl.embed(q)
            te.append((time.perf_counter() - t) * 1000)
            t, c = time.perf_counter(), time.process_time()
            hits = hybrid.query(b, q, model=wl, limit=10, feedback=fb)["hits"]
            tq.append((time.perf_counter() - t) * 1000)
            tc.append((time.process_time() - c) * 1000)  # CPU of the process (all its threads): less load-bound
            if fb:
                rows.setdefault(q, []).append([h["slug"] for h in hits])
        p50[label] = (pct(tq, 50), pct(tc, 50))
        print(f"\nwarm query, {wl.model_id}, {len(qs)} questions, {label}: query p50 {pct(tq, 50):.1f} ms, p95 {pct(tq, 95):.1f} ms, CPU p50 {pct(tc, 50):.1f} ms; "
              f"encode p50 {pct(te, 50):.1f} ms" + ("   target: query p50 ≤ 60 ms" if limit and fb else "")
              + "   load average %.2f %.2f %.2f" % os.getloadavg())
    bert.SMALL_INPUT_TOKENS = small
    same = sum(1 for v in rows.values() if v[0] == v[1])
    print(f"  same top 10 with both BLAS settings: {same}/{len(rows)} questions")
    if len(runs) > 2:
        (w1, c1), (w0, c0) = p50[runs[0][0]], p50[runs[2][0]]
        print(f"  feedback on / off: query p50 ×{w1 / max(w0, 1e-9):.2f} wall, ×{c1 / max(c0, 1e-9):.2f} CPU")
    chunks = b.conn.execute("SELECT COUNT(*) FROM page_embeddings WHERE model = ?", (wl.model_id,)).fetchone()[0]
    b.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    b.close()
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")

    def cli(*a: str) -> float:
        t = time.perf_counter()
        r = subprocess.run([sys.executable, "-m", "gbrain", "--db", str(db), *a], capture_output=True, env=env)
        dt = time.perf_counter() - t
        if r.returncode != 0:
            sys.exit(f"gbrain {' '.join(a)} failed: {r.stderr.decode()}")
        return dt

    cold_q = [cli("query", questions[i]) for i in range(5)]
    cold_s = [cli("search", questions[i]) for i in range(5)]
    cold_v = [cli("version") for i in range(5)]
    print(f"\ncold CLI on {args.pages:,} pages / {chunks:,} {wl.model_id} chunks (median of 5, s):")
    print(f"  gbrain query  {statistics.median(cold_q):.3f}   (max {max(cold_q):.3f})")
    print(f"  gbrain search {statistics.median(cold_s):.3f}   baseline: keyword only")
    print(f"  gbrain version {statistics.median(cold_v):.3f}  baseline: interpreter + CLI start-up")
    if not args.keep:
        import shutil

        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
