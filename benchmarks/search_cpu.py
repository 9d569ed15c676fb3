#!/usr/bin/env python3
"""Keyword ``search`` CPU per query, this checkout beside baseline checkouts, in one run.

The queries are ``scale.py``'s 60 (40 page titles drawn with the brain's size as seed, 10 common
words and phrases twice); each is searched warm (5 queries first), two rounds, and the CPU
seconds of this process per query (``time.process_time``) give the p50 and the mean; on a
Postgres brain (``--db postgresql://…`` of a server on this machine) the backend's CPU per query
too (``/proc/<pid>/stat``, user + system: the server's share), and the p50 of the sum. Each
checkout runs in its own process with its own brain (a database its own code imported from the
same tree: schemas differ between commits), rounds interleaved so the load is shared alike.

    python benchmarks/search_cpu.py --db BRAIN.db [--baseline CHECKOUT=BRAIN.db ...] [--rounds 2]
        [--words "active directory,plugin,…"] [--limit 20]

``--words``: the 10 common words and phrases instead of scale.py's (a brain of other text).

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


WORDS = ["founder", "series a", "board meeting", "revenue growth", "hiring", "product launch", "investor update", "acquisition",
         "machine learning", "pricing"]


def child(checkout: str, db: str, words: list[str], limit: int) -> None:
    """Search the queries once warm and once measured in this process (``checkout`` first on
    ``sys.path``); print ``p50 mean`` in ms of CPU, and on Postgres the backend's mean and the
    p50 of this process's and the backend's CPU summed (else ``nan nan``)."""
    import random
    import time

    sys.path.insert(0, checkout)
    from gbrain.core.brain import Brain
    from gbrain.search.keyword import search

    with Brain.open(db) as brain:
        titles = [r[0] for r in brain.conn.execute("SELECT title FROM pages ORDER BY id")]
        rnd = random.Random(len(titles))
        queries = [rnd.choice(titles) for _ in range(40)] + words * 2
        for q in queries[:5]:
            search(brain.conn, q, limit=limit)
        pid = brain.conn.execute("SELECT pg_backend_pid()").fetchone()[0] if db.startswith("postgres") else None

        def server() -> float:  # (the backend's user + system CPU-seconds; 0 on SQLite)
            if pid is None:
                return 0.0
            f = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")
        cpu, srv = [], []
        for q in queries:
            c, s = time.process_time(), server()
            search(brain.conn, q, limit=limit)
            cpu.append(time.process_time() - c)
            srv.append(server() - s)
    both = [a + b for a, b in zip(cpu, srv)]
    pg = pid is not None
    print(f"{statistics.median(cpu) * 1000:.2f} {statistics.mean(cpu) * 1000:.2f} "
          f"{statistics.mean(srv) * 1000 if pg else float('nan'):.2f} {statistics.median(both) * 1000 if pg else float('nan'):.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", required=True, help="a brain this checkout imported")
    ap.add_argument("--baseline", action="append", default=[], metavar="CHECKOUT=DB")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--words", help="the 10 common words, comma-separated (default: scale.py's)")
    ap.add_argument("--limit", type=int, default=20)
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    a = ap.parse_args()
    words = a.words.split(",") if a.words else WORDS
    if a.child:
        child(*a.child, words, a.limit)
        return
    runs = [("this", str(ROOT), a.db)] + [(b.split("=", 1)[0], *b.split("=", 1)) for b in a.baseline]
    print(f"search CPU per query (60 queries of scale.py, warm); load {tuple(round(x, 1) for x in os.getloadavg())}")
    p50: dict[str, list[float]] = {name: [] for name, _, _ in runs}
    srv: dict[str, list[float]] = {name: [] for name, _, _ in runs}
    for rnd in range(a.rounds):
        for name, checkout, db in runs:
            out = subprocess.run([sys.executable, __file__, "--db", db, "--child", checkout, db, "--limit", str(a.limit),
                                  *(["--words", a.words] if a.words else [])], cwd="/", capture_output=True, text=True,
                                 env={**os.environ, "PYTHONPATH": checkout})
            if out.returncode:
                raise SystemExit(f"{name}: {out.stderr.strip()[-2000:]}")
            med, mean, smean, both = map(float, out.stdout.split())
            p50[name].append(med)
            srv[name].append(smean)
            print(f"round {rnd + 1}  {name:<40} p50 {med:6.2f} ms  mean {mean:6.2f} ms"
                  + (f"  server mean {smean:6.2f} ms  client+server p50 {both:6.2f} ms" if smean == smean else ""))
    mine = statistics.median(p50["this"])
    for name, _, _ in runs[1:]:
        print(f"this / {name}: p50 {mine / statistics.median(p50[name]):.2f}x"
              + (f", server mean {statistics.median(srv['this']):.2f} / {statistics.median(srv[name]):.2f} ms (medians of rounds)"
                 if srv[name][0] == srv[name][0] else ""))
    print(f"load {tuple(round(x, 1) for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
