#!/usr/bin/env python3
"""gbrain on Postgres beside SQLite, measured in the same run (issue 16).

On a make_brain.py tree (``--pages``, default 7,471): full import (in-process, fresh database),
export, ``search`` p50 over a fixed set of queries (in-process, warm), a no-change ``sync`` and
``gbrain copy`` SQLite → Postgres. Postgres is a private pgserver (Postgres 16 + pgvector) on a
Unix socket on this machine. Wall and CPU seconds of this process are printed (Postgres' own CPU
is in its server processes, so wall time is the comparable figure), with the load average.

Targets (issue 16): import ≤ 3× SQLite; search p50 ≤ 30 ms warm; no-change sync ≤ 1 s.

    python benchmarks/postgres.py [--pages 7471] [--queries 40]
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

SHARED = ROOT.parent / "shared"


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


def search_p50(db: str, qs: list[str]) -> float:
    with Brain.open(db) as b:
        for q in qs[:5]:
            search(b.conn, q)  # warm
        times = []
        for q in qs:
            t = time.perf_counter()
            search(b.conn, q)
            times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", type=int, default=7471)
    ap.add_argument("--queries", type=int, default=40)
    args = ap.parse_args()
    import pgserver
    import psycopg

    tmp = Path(tempfile.mkdtemp(prefix="gbrain-pgbench-"))
    os.chmod(tmp, 0o755)
    try:
        tree = tmp / "tree"
        subprocess.run([sys.executable, str(SHARED / "tools" / "make_brain.py"), str(tree), "--pages", str(args.pages)], check=True, capture_output=True)
        srv = pgserver.get_server(tmp / "pg", cleanup_mode="stop")
        admin = srv.get_uri()

        def new_db(name: str) -> str:
            with psycopg.connect(admin, autocommit=True) as c:
                c.execute(f"CREATE DATABASE {name}")
            return admin.replace("/postgres?", f"/{name}?", 1)

        pg_url, pg_copy = new_db("bench"), new_db("bench_copy")
        sq = str(tmp / "brain.db")
        print(f"tree: {args.pages:,} pages (make_brain.py); loadavg {os.getloadavg()[0]:.1f} {os.getloadavg()[1]:.1f}")
        rows = []
        for name, db in (("sqlite", sq), ("postgres", pg_url)):
            with Brain.open(db) as b:
                w, c, _ = timed(lambda: import_tree(b, tree))
            rows.append((name, "import", w, c))
            with Brain.open(db) as b:
                out = tmp / f"out-{name}"
                w2, c2, _ = timed(lambda: export_tree(b, out))
                qs = queries(b, args.queries)
            rows.append((name, "export", w2, c2))
            ops.run("sync", {"dir": str(tree)}, ops.Context(db=db))  # import bound the tree
            w3, c3, _ = timed(lambda: ops.run("sync", {"dir": str(tree)}, ops.Context(db=db)))
            rows.append((name, "no-change sync", w3, c3))
            p50 = search_p50(db, qs)
            rows.append((name, f"search p50 ({len(qs)} queries, warm)", p50 / 1000, float("nan")))
        w, c, _ = timed(lambda: ops.run("copy", {"from": sq, "to": pg_copy}, ops.Context(db=None)))
        rows.append(("sqlite→postgres", "copy", w, c))
        base = {k: v for n, k, v, _ in rows if n == "sqlite"}
        print(f"{'engine':16} {'what':34} {'wall':>10} {'cpu (gbrain)':>16} {'× sqlite':>9}")
        for n, k, v, c in rows:
            ratio = f"{v / base[k]:.2f}" if n == "postgres" and base.get(k) else ""
            val = f"{v * 1000:.1f} ms" if "p50" in k else f"{v:.2f} s"
            print(f"{n:16} {k:34} {val:>10} {'' if c != c else f'{c:.2f} s':>16} {ratio:>9}")
        print("targets: import ≤ 3× sqlite; search p50 ≤ 30 ms; no-change sync ≤ 1 s; "
              f"loadavg now {os.getloadavg()[0]:.1f}")
        from gbrain.storage.pg import close_pools

        close_pools()
        srv.cleanup()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
