#!/usr/bin/env python3
"""Keyword ``search`` CPU per query, this checkout beside baseline checkouts, in one run.

The queries are ``scale.py``'s 60 (40 page titles drawn with the brain's size as seed, 10 common
words and phrases twice); each is searched warm (5 queries first), two rounds, and the CPU
seconds of this process per query (``time.process_time``) give the p50 and the mean. Each
checkout runs in its own process with its own brain (a database its own code imported from the
same tree: schemas differ between commits), rounds interleaved so the load is shared alike.

    python benchmarks/search_cpu.py --db BRAIN.db [--baseline CHECKOUT=BRAIN.db ...] [--rounds 2]

``CHECKOUT`` is a directory holding a ``gbrain`` package (``git archive COMMIT gbrain | tar -x
-C DIR``). Prints one line per checkout and round, then the p50 ratio of this checkout to each
baseline, with the load average (2 shared cores: CPU-seconds are the steadier figure).
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def child(checkout: str, db: str) -> None:
    """Search the queries once warm and once measured in this process (``checkout`` first on
    ``sys.path``); print ``p50 mean`` in ms of CPU."""
    import random
    import time

    sys.path.insert(0, checkout)
    from gbrain.core.brain import Brain
    from gbrain.search.keyword import search

    with Brain.open(db) as brain:
        titles = [r[0] for r in brain.conn.execute("SELECT title FROM pages ORDER BY id")]
        rnd = random.Random(len(titles))
        queries = [rnd.choice(titles) for _ in range(40)] + ["founder", "series a", "board meeting", "revenue growth", "hiring",
                                                             "product launch", "investor update", "acquisition", "machine learning", "pricing"] * 2
        for q in queries[:5]:
            search(brain.conn, q, limit=20)
        cpu = []
        for q in queries:
            c = time.process_time()
            search(brain.conn, q, limit=20)
            cpu.append(time.process_time() - c)
    print(f"{statistics.median(cpu) * 1000:.2f} {statistics.mean(cpu) * 1000:.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", required=True, help="a brain this checkout imported")
    ap.add_argument("--baseline", action="append", default=[], metavar="CHECKOUT=DB")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        child(*a.child)
        return
    runs = [("this", str(ROOT), a.db)] + [(b.split("=", 1)[0], *b.split("=", 1)) for b in a.baseline]
    print(f"search CPU per query (60 queries of scale.py, warm); load {tuple(round(x, 1) for x in os.getloadavg())}")
    p50: dict[str, list[float]] = {name: [] for name, _, _ in runs}
    for rnd in range(a.rounds):
        for name, checkout, db in runs:
            out = subprocess.run([sys.executable, __file__, "--db", db, "--child", checkout, db], cwd="/", capture_output=True, text=True,
                                 env={**os.environ, "PYTHONPATH": checkout})
            if out.returncode:
                raise SystemExit(f"{name}: {out.stderr.strip()[-2000:]}")
            med, mean = map(float, out.stdout.split())
            p50[name].append(med)
            print(f"round {rnd + 1}  {name:<40} p50 {med:6.2f} ms  mean {mean:6.2f} ms")
    mine = statistics.median(p50["this"])
    for name, _, _ in runs[1:]:
        print(f"this / {name}: p50 {mine / statistics.median(p50[name]):.2f}x")
    print(f"load {tuple(round(x, 1) for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
