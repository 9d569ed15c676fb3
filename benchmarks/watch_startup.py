#!/usr/bin/env python3
"""What ``gbrain watch`` costs from its start to its "watching …" line on a synced folder, and
what the inotify-limit check's walk of the tree (``sync/watch.py: folder_count``) adds to it
(the catch-up sync walks the tree again).

Each round is a fresh process (as a ``gbrain watch`` is) that opens the brain, builds the
:class:`~gbrain.sync.watch.Watcher` and runs it until it is ready, then stops. Two variants,
interleaved round by round so load changes hit both alike:

* ``shipped``: the code as it is (inotify observer, ``folder_count`` walk, catch-up sync);
* ``no count walk``: ``folder_count`` replaced by a constant (what removing the walk would save).

Prints per variant the median and minimum CPU seconds (the process's, all its threads: a no-change catch-up sync starts no parse pool)
and wall seconds from ``Watcher.run``'s call to its ``ready`` callback, the ratio to ``shipped``,
the process's CPU at that point (Python's start and the imports too: what a person waits for),
the ``folder_count`` walk timed alone, and the load average before and after.

    python benchmarks/watch_startup.py DIR [DIR ...] [--rounds 7]

Each DIR is copied into a temporary folder and synced into a fresh brain there first (setup,
not timed); the copy is what the watches watch.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

ROUND = r"""
import json, os, sys, time
sys.path.insert(0, sys.argv[1])
from gbrain.core.brain import Brain
from gbrain.sync import watch as W
tree, db, variant = sys.argv[2], sys.argv[3], sys.argv[4]
c0, w0 = time.process_time(), time.perf_counter()
n = W.folder_count(tree)
walk = (time.process_time() - c0, time.perf_counter() - w0)
if variant == "no count walk":
    W.folder_count = lambda root: 1
got = {}
with Brain.open(db) as b:
    w = W.Watcher(b, tree, log=lambda s: None)
    def ready(rep):
        got["cpu"] = time.process_time() - start_cpu
        got["process_cpu"] = time.process_time()  # since the process started: Python, imports and all
        got["wall"] = time.perf_counter() - start_wall
        got["closes"] = w.pending.closes
        w._stop.set()
    start_cpu, start_wall = time.process_time(), time.perf_counter()
    w.run(ready=ready)
print(json.dumps({"folders": n, "walk_cpu": walk[0], "walk_wall": walk[1], **got}))
"""

VARIANTS = ("shipped", "no count walk")


def setup(src: Path, tmp: Path) -> tuple[Path, Path]:
    """A copy of ``src`` under ``tmp`` and a brain synced from it (``gbrain sync``)."""
    tree, db = tmp / src.name, tmp / (src.name + ".db")
    shutil.copytree(src, tree, symlinks=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    r = subprocess.run([sys.executable, "-m", "gbrain", "sync", str(tree), "--db", str(db)], env=env, capture_output=True)
    if r.returncode not in (0, 3):
        raise SystemExit(f"sync of {tree} failed: {r.stderr.decode()[-500:]}")
    return tree, db


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dirs", nargs="+", type=Path)
    ap.add_argument("--rounds", type=int, default=7)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="gbrain-watch-start-") as t:
        for src in a.dirs:
            tree, db = setup(src.resolve(), Path(t))
            print(f"\n{src}: load {tuple(round(x, 2) for x in os.getloadavg())}")
            runs: dict[str, list[dict]] = {v: [] for v in VARIANTS}
            for i in range(a.rounds):
                for v in (VARIANTS if i % 2 == 0 else VARIANTS[::-1]):
                    r = subprocess.run([sys.executable, "-c", ROUND, str(ROOT), str(tree), str(db), v], capture_output=True, check=True)
                    runs[v].append(json.loads(r.stdout))
            base = statistics.median(x["cpu"] for x in runs["shipped"])
            whole_base = statistics.median(x["process_cpu"] for x in runs["shipped"])
            first = runs["shipped"][0]
            print(f"  {first['folders']:,} folders; inotify close events: {first['closes']}; folder_count walk alone: "
                  f"median {statistics.median(x['walk_cpu'] for x in runs['shipped']) * 1e3:.1f} ms CPU, "
                  f"{statistics.median(x['walk_wall'] for x in runs['shipped']) * 1e3:.1f} ms wall")
            for v, xs in runs.items():
                cpu = [x["cpu"] for x in xs]
                wall = [x["wall"] for x in xs]
                whole = [x["process_cpu"] for x in xs]
                print(f"  {v:>14}: CPU median {statistics.median(cpu):.3f} s (min {min(cpu):.3f}), "
                      f"wall median {statistics.median(wall):.3f} s (min {min(wall):.3f}); CPU {statistics.median(cpu) / base:.3f}× shipped; "
                      f"the process's CPU at ready (start-up and imports too) median {statistics.median(whole):.3f} s "
                      f"({statistics.median(whole) / whole_base:.3f}×)")
            print(f"  load after: {tuple(round(x, 2) for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
