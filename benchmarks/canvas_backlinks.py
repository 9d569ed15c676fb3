"""CPU of `backlinks NOTE` and lint's orphans check as stored canvases grow (canvases' links are
read from their bytes when asked: docs/storage.md "Canvases"). A brain of 500 notes and N canvases
of 60 nodes (30 file nodes, 30 text cards with two wiki links each: every card parsed); prints
CPU-ms of a first call (cold: a CLI command) and of later calls (warm: the canvases' parse is kept
per process by content hash, as in `gbrain serve` or `watch`), and the ratio to no canvases.

    python benchmarks/canvas_backlinks.py [--canvases 0,10,100,300]
"""
from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path

from gbrain.core import brain as brainmod
from gbrain.core.brain import Brain
from gbrain.core.lint import _orphans


def build(db: Path, n_canvas: int) -> None:
    rnd = random.Random(7)
    with Brain.open(db, create=True) as b:
        for i in range(500):
            b.put(f"Notes/N{i}", f"# N{i}\n\nSee [[N{(i + 1) % 500}]].\n")
        for c in range(n_canvas):
            nodes = [{"id": f"f{j}", "type": "file", "file": f"Notes/N{rnd.randrange(500)}.md", "x": j, "y": 0, "width": 400, "height": 400} for j in range(30)]
            nodes += [{"id": f"t{j}", "type": "text", "text": f"Ask about [[N{rnd.randrange(500)}]] and [[N{rnd.randrange(500)}]]. " * 2,
                       "x": j, "y": 500, "width": 250, "height": 60} for j in range(30)]
            b.save_file(f"Canvas/C{c}.canvas", json.dumps({"nodes": nodes, "edges": []}, indent="\t").encode())


def cpu(fn, reps: int) -> float:
    t = time.process_time()
    for _ in range(reps):
        fn()
    return (time.process_time() - t) / reps * 1000


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--canvases", default="0,10,100,300")
    a = ap.parse_args()
    base = None
    print(f"{'canvases':>8} {'cold backlinks ms':>18} {'warm backlinks ms':>18} {'x':>6} {'warm orphans ms':>16} {'x':>6}")
    for n in [int(x) for x in a.canvases.split(",")]:
        with tempfile.TemporaryDirectory() as tmp:
            db = Path(tmp) / "brain.db"
            build(db, n)
            with Brain.open(db) as b:
                brainmod._CANVAS_PARSED.clear()
                cold = cpu(lambda: b.backlinks("Notes/N7"), 1)
                bl = cpu(lambda: b.backlinks("Notes/N7"), 5)
                orph = cpu(lambda: _orphans(b), 3)
        base = base or (bl, orph)
        print(f"{n:>8} {cold:>18.1f} {bl:>18.1f} {bl / base[0]:>6.1f} {orph:>16.1f} {orph / base[1]:>6.1f}")


if __name__ == "__main__":
    main()
