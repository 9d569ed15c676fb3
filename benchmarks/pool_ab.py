#!/usr/bin/env python3
"""The parse pool's cost on this machine: a full import with the pool on and with it off,
alternated in one run, each in a new process (as ``gbrain import`` runs: the forkserver and
its workers start with the import), on a make_brain brain and obsidian-hub / obsidian-help.

For each run: CPU-seconds of the whole process tree of the import (``benchmarks/treecpu.py``:
the forkserver and its workers included; the interpreter's own start-up and gbrain's imports
left out, the same in both arms), CPU of the importing process alone, and wall seconds.
Each round alternates the order (on, off / off, on); the load average is printed per tree.

With ``--parse``, the parse alone (``parallel.parse_all`` of every page, texts read beforehand)
the same way, and what the pool sends back: the pickled size of the pages and the CPU of
pickling / unpickling them in chunks as the pool does.

With ``--base CHECKOUT``, that checkout's import with the pool on too (the same process set-up),
alternated with this one's; with ``--cli``, ``gbrain import`` run as the console script (pool on:
the CLI has no switch for it), CPU from interpreter start-up on.

    python benchmarks/pool_ab.py [--rounds 3] [--pages 7471] [--skip-corpora] [--parse] [--base DIR] [--cli]
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
import json, resource, sys, time
sys.path.insert(0, sys.argv[1] + "/benchmarks")
import treecpu
from gbrain.sync import parallel
from gbrain.core.brain import Brain
from gbrain.sync.importer import import_tree
mode, tree, db = sys.argv[2], sys.argv[3], sys.argv[4]
if mode == "off":
    parallel.PARALLEL_MIN = 10**9
treecpu.become_subreaper()
def own():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
if sys.argv[5] == "import":
    with Brain.open(db) as b:
        s0 = own()
        cpu, wall, rep = treecpu.measure(lambda: import_tree(b, tree))
        s1 = own()
    assert rep["ok"], rep.get("problems")
    n = rep["counts"]["pages_written"]
else:
    import pickle
    texts = pickle.load(open(sys.argv[6], "rb"))
    jobs = [(p, t, "rule") for p, t in texts.items()]
    s0 = own()
    cpu, wall, pages = treecpu.measure(lambda: parallel.parse_all(jobs))
    s1 = own()
    n = len(pages)
print(json.dumps({"cpu": cpu, "main": s1 - s0, "wall": wall, "n": n}))
"""


def child(mode: str, tree: Path, db: Path, what: str = "import", texts: Path | None = None, checkout: Path = ROOT) -> dict:
    """One import (or parse) in a new process of ``checkout``'s gbrain, pool ``mode`` on/off."""
    env = dict(os.environ, PYTHONPATH=str(checkout))
    out = subprocess.run([sys.executable, "-c", CHILD, str(ROOT), mode, str(tree), str(db), what, str(texts or "")],
                         env=env, check=True, capture_output=True, text=True, cwd=checkout).stdout  # (-c puts its working folder first on sys.path)
    return json.loads(out.strip().splitlines()[-1])


def cli_import(tree: Path, db: Path, checkout: Path) -> dict:
    """``gbrain import TREE`` run as the console script (pool on), ``checkout``'s gbrain first on
    the path: CPU of the whole tree from here (interpreter start-up included), wall."""
    import treecpu

    script = Path(sys.executable).with_name("gbrain")
    env = dict(os.environ, PYTHONPATH=str(checkout), GBRAIN_DB=str(db))
    cpu, wall, r = treecpu.measure(lambda: subprocess.run([str(script), "import", str(tree)], env=env, capture_output=True, cwd=checkout))
    assert r.returncode == 0, r.stderr[-2000:]
    return {"cpu": cpu, "main": float("nan"), "wall": wall}


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def pickled(texts: dict[str, str], workers: int = 2) -> tuple[int, float, float]:
    """(bytes, dumps CPU-s, loads CPU-s) of every page pickled in the pool's chunks."""
    from gbrain.page.markdown import parse_page
    from gbrain.sync import parallel

    pages = [parse_page(t, p) for p, t in texts.items()]
    size = max(16, len(pages) // (8 * workers) if len(pages) < 2000 else 2000 // (8 * workers))
    chunks = [pages[i : i + size] for i in range(0, len(pages), size)]
    with parallel.few_collections():
        c = time.process_time()
        blobs = [pickle.dumps(ch, pickle.HIGHEST_PROTOCOL) for ch in chunks]
        d = time.process_time() - c
        c = time.process_time()
        for b in blobs:
            pickle.loads(b)
        lo = time.process_time() - c
    return sum(map(len, blobs)), d, lo


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--pages", type=int, default=7471)
    ap.add_argument("--skip-corpora", action="store_true")
    ap.add_argument("--parse", action="store_true", help="also the parse alone, and the pickled pages")
    ap.add_argument("--base", type=Path, help="a baseline checkout: its import with the pool on, alternated with this one's")
    ap.add_argument("--cli", action="store_true", help="also `gbrain import` as the console script, pool on (with --base: both)")
    a = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from import_halves import ab_trees, page_texts

    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores; CPU = the import's whole process tree; "
          f"main = the importing process alone; best (min) of {a.rounds} rounds, on/off alternated")
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        for name, tree in ab_trees(tmp, a.pages, corpora=not a.skip_corpora):
            print(f"\n== {name}; load average {load()}")
            arms = [("on", ROOT), ("off", ROOT)] + ([("base on", a.base)] if a.base else [])
            if a.cli:
                arms += [("cli", ROOT)] + ([("base cli", a.base)] if a.base else [])
            runs: dict[str, list[dict]] = {label: [] for label, _ in arms}
            pruns: dict[str, list[dict]] = {"on": [], "off": []}
            pkl = None
            if a.parse:
                texts = page_texts(tree)
                pkl = tmp / "texts.pkl"
                pkl.write_bytes(pickle.dumps(texts))
            for r in range(a.rounds):
                order = arms[r % len(arms):] + arms[: r % len(arms)]
                if r % 2:
                    order = order[::-1]
                for label, checkout in order:
                    db = tmp / f"{name}-{label.replace(' ', '-')}-{r}.db"
                    if "cli" in label:
                        x = cli_import(tree, db, checkout)
                    else:
                        x = child(label.split()[-1], tree, db, checkout=checkout)
                    runs[label].append(x)
                    for suffix in ("", "-wal", "-shm"):
                        Path(str(db) + suffix).unlink(missing_ok=True)
                    print(f"  import {label:8}: CPU {x['cpu']:.2f} s (main {x['main']:.2f}), wall {x['wall']:.2f} s; load {load()}")
                    if a.parse and label in ("on", "off"):
                        y = child(label, tree, tmp / "none.db", "parse", pkl)
                        pruns[label].append(y)
                        print(f"  parse  {label:8}: CPU {y['cpu']:.2f} s (main {y['main']:.2f}), wall {y['wall']:.2f} s")
            best = {label: {k: min(x[k] for x in rr) for k in ("cpu", "main", "wall")} for label, rr in runs.items()}
            off = best["off"]
            for label, b in best.items():
                print(f"  best {label:8}: CPU {b['cpu']:.2f} s (main {b['main']:.2f}) wall {b['wall']:.2f} s"
                      + ("" if label == "off" or "cli" in label else
                         f" | − off: CPU {b['cpu'] - off['cpu']:+.2f} s, wall {b['wall'] - off['wall']:+.2f} s ({b['wall'] / off['wall']:.2f}×)"))
            if pruns["on"]:
                on, poff = ({k: min(x[k] for x in pruns[m]) for k in ("cpu", "main", "wall")} for m in ("on", "off"))
                print(f"  parse best: pool on CPU {on['cpu']:.2f} (main {on['main']:.2f}) wall {on['wall']:.2f} | "
                      f"off CPU {poff['cpu']:.2f} wall {poff['wall']:.2f} | on−off CPU {on['cpu'] - poff['cpu']:+.2f} s")
            if a.parse:
                size, du, lo = pickled(texts)
                print(f"  pages pickled in the pool's chunks: {size / 1e6:.1f} MB, dumps {du:.2f} CPU-s, loads {lo:.2f} CPU-s")
    print(f"\nload average at the end {load()}")


if __name__ == "__main__":
    main()
