#!/usr/bin/env python3
"""The parse half of an import (``import_halves.parse_half``: ``parse_page`` of every page, pool
off, step by step) of this checkout beside a baseline checkout, in the same run, with the floor.

Each round runs the floor (read + sha256 + FTS5 insert, ``import_export.import_floor``) in this
process, then the parse half of the baseline and of this checkout, each in its own subprocess
(``PYTHONPATH`` set to the checkout), alternating their order from round to round; each figure is
the best of ``--rounds``. Trees: a make_brain brain of ``--pages`` pages and obsidian-hub /
obsidian-help from ../shared/corpora.

    python benchmarks/parse_half_ab.py --base /path/to/baseline/checkout [--rounds 2] [--pages 7471]
"""
from __future__ import annotations

import argparse
import json
import os
import pickle
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import json, pickle, sys
sys.path.insert(0, sys.argv[2] + "/benchmarks")
import import_halves
texts = pickle.load(open(sys.argv[1], "rb"))
cpu, wall, steps = import_halves.parse_half(texts)
print(json.dumps({"cpu": cpu, "steps": steps}))
"""


def child(checkout: Path, texts_pkl: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(checkout))
    # (cwd: a ``-c`` child has its working folder first on sys.path: run from another checkout's root,
    # both sides imported that checkout's gbrain)
    out = subprocess.run([sys.executable, "-c", CHILD, str(texts_pkl), str(checkout)], env=env, cwd=str(checkout),
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", required=True, help="the baseline checkout (its root folder)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--pages", type=int, default=7471)
    a = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from import_export import import_floor
    from import_halves import ab_trees, page_texts

    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        trees = ab_trees(tmp, a.pages, corpora=True)
        for name, tree in trees:
            pkl = tmp / f"{name}.pkl"
            texts = page_texts(tree)
            pkl.write_bytes(pickle.dumps(texts))
            load0 = os.getloadavg()[0]
            floor, best = 1e9, {}
            for r in range(a.rounds):
                for f in tmp.glob("floor*.db*"):
                    f.unlink()
                c = time.process_time()
                import_floor(tree, tmp / f"floor{r}.db")
                floor = min(floor, time.process_time() - c)
                order = [("base", Path(a.base)), ("this", ROOT)]
                for label, co in (order if r % 2 == 0 else order[::-1]):
                    got = child(co, pkl)
                    if label not in best or got["cpu"] < best[label]["cpu"]:
                        best[label] = got
            print(f"\n== {name}: {len(texts):,} pages; floor {floor:.2f} CPU-s; load average {load0:.2f} → {os.getloadavg()[0]:.2f}")
            b, t = best["base"], best["this"]
            print(f"  {'parse half':<26} base {b['cpu']:6.2f} s = {b['cpu'] / floor:5.2f}× floor   this {t['cpu']:6.2f} s = {t['cpu'] / floor:5.2f}× floor   ({t['cpu'] / b['cpu']:.2f}×)")
            for s in b["steps"]:
                bs, ts = b["steps"][s], t["steps"].get(s, 0.0)
                print(f"    {s:<24} base {bs:6.2f} s = {bs / floor:5.2f}×         this {ts:6.2f} s = {ts / floor:5.2f}×")
            br = b["cpu"] - sum(b["steps"].values())
            tr = t["cpu"] - sum(t["steps"].values())
            print(f"    {'(the rest)':<24} base {br:6.2f} s = {br / floor:5.2f}×         this {tr:6.2f} s = {tr / floor:5.2f}×")


if __name__ == "__main__":
    main()
