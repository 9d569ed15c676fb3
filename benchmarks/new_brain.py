#!/usr/bin/env python3
"""A new SQLite brain's creation (``db.connect`` of a path that does not exist): from the schema
snapshot (``storage/sql/sqlite_fresh.sql``) beside the whole migration chain replayed (how every
new brain was made before), alternated in one run, ``--brains`` each.

Per brain: this process's CPU (``time.process_time``) and wall time of ``db.connect`` +
``close``; medians and totals printed with the load average (other processes share the machine:
CPU moves less than wall).

    python benchmarks/new_brain.py [--brains 20]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gbrain.storage import db  # noqa: E402


def one(path: Path, chain: bool) -> tuple[float, float]:
    real = db.fresh_statements
    if chain:
        db.fresh_statements = lambda: None
    try:
        c0, w0 = time.process_time(), time.perf_counter()
        conn = db.connect(path)
        conn.close()
        return time.process_time() - c0, time.perf_counter() - w0
    finally:
        db.fresh_statements = real


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--brains", type=int, default=20)
    a = ap.parse_args()
    got = {"snapshot": [], "chain": []}
    with tempfile.TemporaryDirectory() as d:
        one(Path(d) / "warm.db", False)
        one(Path(d) / "warm2.db", True)
        for i in range(a.brains):
            for how in ("chain", "snapshot") if i % 2 else ("snapshot", "chain"):
                got[how].append(one(Path(d) / f"{how}{i}.db", how == "chain"))
    print(f"load average {os.getloadavg()[0]:.2f} ({os.cpu_count()} CPUs); {a.brains} new brains each, alternated")
    for how, xs in got.items():
        cpu, wall = [x[0] for x in xs], [x[1] for x in xs]
        print(f"{how:9s} CPU median {statistics.median(cpu) * 1000:7.1f} ms (total {sum(cpu):.2f} s)   "
              f"wall median {statistics.median(wall) * 1000:7.1f} ms (total {sum(wall):.2f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
