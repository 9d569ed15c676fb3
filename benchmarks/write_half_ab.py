#!/usr/bin/env python3
"""The write half of an import (``import_halves.write_half``: ``import_tree`` into a new brain with
every page parsed beforehand, pool off, with the CPU inside each table's multi-row ``INSERT``s)
and the full import (pool off) of this checkout beside a baseline checkout, in the same run,
with the floor (issue 14; a schema change is judged here: docs/performance.md).

Each round runs the floor (read + sha256 + FTS5 insert, ``import_export.import_floor``) in this
process, then the baseline and this checkout, each in its own subprocess (``PYTHONPATH`` set to
the checkout; the child parses the pages first, unmeasured), alternating their order from round
to round; each figure is the best of ``--rounds``; the load average is printed per tree.

    python benchmarks/write_half_ab.py --base /path/to/baseline/checkout [--rounds 3] [--pages 7471] [--skip-corpora] [--setup SQL ...]

``--setup SQL`` (repeatable): a statement run on this checkout's new brains (write half and full
import) before the import, as ``import_halves.write_half``'s ``setup`` (``DROP INDEX *``: every
secondary index): a schema cut measured without a migration (``--base`` may then be this very
checkout). "SQL alone" is the sum of the per-table ``INSERT`` figures (each a best of the rounds). "peak
memory" is the largest peak resident size of a child (``VmHWM``: the pages parsed beforehand, the
write half and the full import; Linux), to show a trade of memory for CPU (a larger page cache).
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
import json, pickle, sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[3] + "/benchmarks")
import import_halves
from gbrain.core.brain import Brain
from gbrain.sync.importer import import_tree
texts = pickle.load(open(sys.argv[1], "rb"))
import_halves.parse_half(texts)
work = Path(sys.argv[4])
setup = tuple(json.loads(sys.argv[5]))
cpu, wall, steps = import_halves.write_half(Path(sys.argv[2]), work / "w.db", setup=setup)
with Brain.open(work / "full.db") as b:
    for s in setup:
        if s == "DROP INDEX *":
            for (name,) in b.conn.execute(import_halves.SECONDARY).fetchall():
                b.conn.execute(f"DROP INDEX {name}")
        else:
            b.conn.execute(s)
    c = time.process_time()
    assert import_tree(b, Path(sys.argv[2]))["ok"]
    full = time.process_time() - c
try:  # the child's peak resident memory (Linux), MB: parsed pages, write half and full import
    peak = int(next(l for l in open("/proc/self/status") if l.startswith("VmHWM")).split()[1]) / 1024
except (OSError, StopIteration):
    peak = 0.0
print(json.dumps({"cpu": cpu, "steps": steps, "full": full, "peak": peak}))
"""


def child(checkout: Path, texts_pkl: Path, tree: Path, work: Path, setup: tuple[str, ...] = ()) -> dict:
    for f in work.glob("*.db*"):
        f.unlink()
    env = dict(os.environ, PYTHONPATH=str(checkout))
    # (cwd: a ``-c`` child has its working folder first on sys.path: run from another checkout's root,
    # both sides imported that checkout's gbrain)
    out = subprocess.run([sys.executable, "-c", CHILD, str(texts_pkl), str(tree), str(checkout), str(work), json.dumps(list(setup))], env=env, cwd=str(checkout),
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", required=True, help="the baseline checkout (its root folder)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--pages", type=int, default=7471)
    ap.add_argument("--skip-corpora", action="store_true", help="only the make_brain brain")
    ap.add_argument("--setup", action="append", default=[], help="a statement run on this checkout's new brains before the import (repeatable)")
    a = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from import_export import import_floor
    from import_halves import ab_trees, page_texts

    print(f"base {a.base}, this {ROOT}; CPU = process_time of each child (parse pool off)")
    for st in a.setup:
        print(f"  this, before the import: {st}")
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        trees = ab_trees(tmp, a.pages, corpora=not a.skip_corpora)
        for name, tree in trees:
            pkl = tmp / f"{name}.pkl"
            texts = page_texts(tree)
            pkl.write_bytes(pickle.dumps(texts))
            work = tmp / "work"
            work.mkdir(exist_ok=True)
            load0 = os.getloadavg()
            floor, best, runs = 1e9, {}, {"base": [], "this": []}
            for r in range(a.rounds):
                for f in tmp.glob("floor*.db*"):
                    f.unlink()
                c = time.process_time()
                import_floor(tree, tmp / f"floor{r}.db")
                floor = min(floor, time.process_time() - c)
                order = [("base", Path(a.base)), ("this", ROOT)]
                for label, co in (order if r % 2 == 0 else order[::-1]):
                    got = child(co, pkl, tree, work, tuple(a.setup) if label == "this" else ())
                    runs[label].append((got["cpu"], got["full"], got.get("peak", 0.0)))
                    prev = best.get(label)
                    best[label] = {"cpu": min(got["cpu"], prev["cpu"]) if prev else got["cpu"],
                                   "full": min(got["full"], prev["full"]) if prev else got["full"],
                                   "steps": {k: min(v, prev["steps"].get(k, v)) for k, v in got["steps"].items()} if prev else got["steps"]}
            load1 = os.getloadavg()
            print(f"\n== {name}: {len(texts):,} pages; floor {floor:.2f} CPU-s (best of {a.rounds}); "
                  f"load average {' '.join(f'{x:.2f}' for x in load0)} → {' '.join(f'{x:.2f}' for x in load1)}")
            b, t = best["base"], best["this"]
            for lab, key in (("write half", "cpu"), ("full import (pool off)", "full")):
                print(f"  {lab:<32} base {b[key]:6.2f} s = {b[key] / floor:5.2f}× floor   this {t[key]:6.2f} s = {t[key] / floor:5.2f}× floor   ({t[key] / b[key]:.3f}×)")
            for s in b["steps"]:
                bs, ts = b["steps"][s], t["steps"].get(s, 0.0)
                print(f"    {s:<30} base {bs:6.3f} s             this {ts:6.3f} s            ({ts / bs if bs else 0:.3f}×)")
            bq, tq = (sum(v for k, v in x["steps"].items() if k.startswith("SQL ")) for x in (b, t))
            print(f"  {'SQL alone (the SQL rows summed)':<32} base {bq:6.3f} s = {bq / floor:5.2f}× floor   this {tq:6.3f} s = {tq / floor:5.2f}× floor   ({tq / bq if bq else 0:.3f}×)")
            pb, pt = (max(p for *_, p in runs[lab]) for lab in ("base", "this"))
            print(f"  {'peak memory (a child, VmHWM)':<32} base {pb:6.0f} MB              this {pt:6.0f} MB              ({pt - pb:+.0f} MB)")
            for lab in ("base", "this"):
                print(f"  every round, {lab}: write half " + " / ".join(f"{r[0]:.2f}" for r in runs[lab]) + "; full " + " / ".join(f"{r[1]:.2f}" for r in runs[lab]))


if __name__ == "__main__":
    main()
