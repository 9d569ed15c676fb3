#!/usr/bin/env python3
"""CPU of one missed page lookup (``get``/``brain_get`` of a slug no page has: ``Brain.resolve_slug``
with its did-you-mean, ``Brain.suggest``) at 2,000 and 20,000 pages, with the near-name tables kept
per brain and their prefilter (this checkout) beside ``GBRAIN_NEAR_CACHE=0`` (every miss scans every
name, as before), in the same run. Brains: ``/work/shared/tools/make_brain.py OUT --pages N``,
imported once into ``--work`` (kept there for the next run).

Each mode runs in its own subprocess: the first miss (the tables built), then ``--misses`` more
(new slugs and typos of existing ones, as an ingest's look-before-create makes), then misses each
after a page write by this brain (the tables built again; the write's own CPU not counted). Figures: CPU seconds per miss
(``time.process_time``); the suggestions of every miss are compared between the modes.

    python benchmarks/missed_lookup.py [--pages 2000 20000] [--misses 20] [--work /tmp/missed_lookup]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAKE = Path("/work/shared/tools/make_brain.py")

CHILD = r"""
import json, random, sys, time
from gbrain.core.brain import Brain
from gbrain.errors import NotFound
b = Brain.open(sys.argv[1])
k = int(sys.argv[2])
slugs = sorted(r[0] for r in b.conn.execute("SELECT slug FROM pages"))
rnd = random.Random(7)
asks = []
for i in range(k):
    s = rnd.choice(slugs)
    if i % 2:
        asks.append(s.rsplit("/", 1)[0] + f"/brand-new-thing-{i}" if "/" in s else f"brand-new-thing-{i}")
    else:
        j = rnd.randrange(1, len(s) - 1)
        asks.append(s[:j] + s[j + 1] + s[j] + s[j + 2:])  # two letters swapped
def miss(q):
    try:
        b.resolve_slug(q)
        return None
    except NotFound as e:
        return e.suggestions
out = {"sugg": {}}
t = time.process_time(); out["sugg"][asks[0]] = miss(asks[0]); out["first"] = time.process_time() - t
t = time.process_time()
for q in asks[1:]:
    out["sugg"][q] = miss(q)
out["next"] = (time.process_time() - t) / max(len(asks) - 1, 1)
spent = 0.0
for i, q in enumerate(asks[1:6]):
    b.put(f"bench/written-{i}", f"# Written {i}\n\nText.\n")
    t = time.process_time(); miss(q); spent += time.process_time() - t
out["after_write"] = spent / 5
print(json.dumps(out))
"""


def brain(work: Path, pages: int) -> Path:
    db = work / f"b{pages}.db"
    if not db.exists():
        tree = work / f"b{pages}"
        subprocess.run([sys.executable, str(MAKE), str(tree), "--pages", str(pages), "--clean"], check=True, stdout=subprocess.DEVNULL)
        subprocess.run([sys.executable, "-m", "gbrain", "--db", str(db), "import", str(tree)], check=True, cwd=ROOT,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return db


def run(db: Path, misses: int, fast: bool) -> dict:
    import shutil, tempfile

    with tempfile.TemporaryDirectory() as tmp:  # a copy: the writes stay out of the kept brain
        copy = Path(tmp) / "b.db"
        shutil.copy(db, copy)
        env = {**os.environ, "PYTHONPATH": str(ROOT), "GBRAIN_NEAR_CACHE": "1" if fast else "0"}
        p = subprocess.run([sys.executable, "-c", CHILD, str(copy), str(misses)], env=env, cwd=ROOT, capture_output=True, text=True, check=True)
    return json.loads(p.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pages", type=int, nargs="+", default=[2000, 20000])
    ap.add_argument("--misses", type=int, default=20)
    ap.add_argument("--work", type=Path, default=Path("/tmp/missed_lookup"))
    a = ap.parse_args()
    a.work.mkdir(parents=True, exist_ok=True)
    print(f"load average: {os.getloadavg()[0]:.1f} ({os.cpu_count()} cores)")
    print(f"{'pages':>7} {'mode':<10} {'first miss':>11} {'next miss':>10} {'after write':>12}   (CPU s per miss)")
    for n in a.pages:
        db = brain(a.work, n)
        base, fast = run(db, a.misses, False), run(db, a.misses, True)
        for name, r in (("baseline", base), ("kept", fast)):
            print(f"{n:>7} {name:<10} {r['first']:>11.4f} {r['next']:>10.4f} {r['after_write']:>12.4f}")
        same = base["sugg"] == fast["sugg"]
        print(f"{n:>7} suggestions the same in both modes: {same}" + ("" if same else f"  DIFFER: {[q for q in base['sugg'] if base['sugg'][q] != fast['sugg'].get(q)]}"))
        print(f"{n:>7} next miss {base['next'] / max(fast['next'], 1e-9):.1f}x less CPU")


if __name__ == "__main__":
    main()
