#!/usr/bin/env python3
"""The write half's Python steps one by one, this checkout beside a baseline checkout, in the same
run (issue 14; docs/performance.md, "The write half's Python: smaller cuts").

Each round runs a child process per checkout (``PYTHONPATH`` set to it; order alternated from
round to round) that parses every page of each tree first (unmeasured) and then times, best of 3
in the child:

* ``search_fields`` of every page, ``derived_rows`` of every page (each tree), and the part of
  ``search_fields`` that is the address scan, ``linkedit.address_spans`` of every page's compiled
  truth and timeline (with the parse's unread blocks, as ``search_text`` asks);
* ``MemoryIndex`` of the make_brain brain imported without its sidecars;
* ``save_file_from`` of every ``.raw/*.json`` sidecar of the make_brain brain into a copy of that
  brain (one transaction, as the import stores them after the pages).

Each figure printed is the best of ``--rounds`` with every round's value, CPU of the child
(``process_time``); the load average before and after.

    python benchmarks/write_steps_ab.py --base /path/to/baseline/checkout [--rounds 3] [--pages 7471] [--skip-corpora]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import glob, json, os, shutil, sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1] + "/benchmarks")
from import_halves import page_texts
from gbrain.core.brain import Brain
from gbrain.page import markdown
from gbrain.page.linkedit import address_spans
from gbrain.page.links import MemoryIndex
from gbrain.search.keyword import search_fields
from gbrain.storage.derive import derived_rows
trees, made, tmpl, work = json.loads(sys.argv[2]), sys.argv[3], Path(sys.argv[4]), Path(sys.argv[5])

def best(fn, n=3):
    b = 1e9
    for _ in range(n):
        c = time.process_time()
        fn()
        b = min(b, time.process_time() - c)
    return b

out = {}
for name, tree in trees:
    pages = [markdown.parse_page(t, p) for p, t in page_texts(Path(tree)).items()]
    out[f"{name}: search_fields of every page"] = best(lambda: [search_fields(p) for p in pages])
    out[f"{name}: derived_rows of every page"] = best(lambda: [derived_rows(p) for p in pages])
    parts = [(getattr(p, k), p.part_unread(k)) for p in pages for k in ("compiled_truth", "timeline")]
    out[f"{name}: address_spans of every page"] = best(lambda: [address_spans(t, u) for t, u in parts])
if made:
    with Brain.open(tmpl) as b:
        out["make_brain: MemoryIndex"] = best(lambda: MemoryIndex(b.conn))
    files = sorted(glob.glob(os.path.join(made, "**", ".raw", "*.json"), recursive=True))
    rel = [os.path.relpath(f, made) for f in files]
    sc = 1e9
    for r in range(3):
        db = work / f"sc{r}.db"
        shutil.copy(tmpl, db)
        with Brain.open(db) as b:
            b.conn.execute("BEGIN IMMEDIATE")
            b._tx_depth = 1
            c = time.process_time()
            for p, f in zip(rel, files):
                b.save_file_from(p, f, "raw")
            sc = min(sc, time.process_time() - c)
            b.conn.execute("COMMIT")
            b._tx_depth = 0
        for f in work.glob(f"sc{r}.db*"):
            f.unlink()
    out[f"make_brain: {len(files)} sidecars (save_file_from)"] = sc
print(json.dumps(out))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", required=True, help="the baseline checkout (its root folder)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--pages", type=int, default=7471)
    ap.add_argument("--skip-corpora", action="store_true", help="only the make_brain brain")
    a = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from import_halves import ab_trees

    from gbrain.core.brain import Brain
    from gbrain.sync.importer import import_tree

    print(f"base {a.base}, this {ROOT}; CPU = process_time of each child, best of 3 in it, then best of {a.rounds} rounds")
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        trees = ab_trees(tmp, a.pages, corpora=not a.skip_corpora)
        made = next((str(t) for n, t in trees if n.startswith("make_brain")), "")
        tmpl = tmp / "nosidecars.db"
        if made:  # the make_brain brain without its sidecars, imported once (this checkout)
            bare = tmp / "bare"
            shutil.copytree(made, bare, ignore=shutil.ignore_patterns(".raw"))
            with Brain.open(tmpl) as b:
                assert import_tree(b, bare)["ok"]
        work = tmp / "work"
        work.mkdir()
        load0 = os.getloadavg()
        runs: dict[str, list[dict]] = {"base": [], "this": []}
        for r in range(a.rounds):
            order = [("base", a.base), ("this", str(ROOT))]
            for label, co in (order if r % 2 == 0 else order[::-1]):
                got = subprocess.run([sys.executable, "-c", CHILD, co, json.dumps([(n, str(t)) for n, t in trees]), made, str(tmpl), str(work)],
                                     # (cwd: a ``-c`` child has its working folder first on sys.path: run from another checkout's root,
                                     # both sides imported that checkout's gbrain)
                                     env=dict(os.environ, PYTHONPATH=co), cwd=co, check=True, capture_output=True, text=True).stdout
                runs[label].append(json.loads(got.strip().splitlines()[-1]))
        load1 = os.getloadavg()
        print(f"load average {' '.join(f'{x:.2f}' for x in load0)} → {' '.join(f'{x:.2f}' for x in load1)}")
        for k in runs["base"][0]:
            b = [x[k] for x in runs["base"]]
            t = [x[k] for x in runs["this"]]
            print(f"  {k:<48} base {min(b) * 1e3:7.1f} ms   this {min(t) * 1e3:7.1f} ms   ({min(t) / min(b):.3f}×)   "
                  f"rounds: base {' / '.join(f'{x * 1e3:.0f}' for x in b)}; this {' / '.join(f'{x * 1e3:.0f}' for x in t)}")


if __name__ == "__main__":
    main()
