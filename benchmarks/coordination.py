"""Cost of keyword search's coordination factor: `search` CPU per query with it and without.

    python benchmarks/coordination.py [--pages 5000] [--rounds 5] [--keep DIR]

Builds a make_brain.py brain of ``--pages`` pages (not timed) and, when SciFact is in
../shared/corpora/ir/scifact, a brain of its 5,183 abstracts, then times ``keyword.search``
(``limit=20``, as the CLI) over two query sets: ``benchmarks/scale.py``'s 60 (page titles and
common words) on the make_brain brain and SciFact's 300 test claims (long queries of many
words: the most terms to coordinate). Each round runs every query with the shipped
``keyword.COORD_POWER`` and with 0 (off), in alternating order, so both see the same machine;
the figure is the median over queries of each query's median CPU time over the rounds
(``time.process_time``: this process only; search runs in it), beside the wall p50 and the
load average (2 shared cores: wall time is not only the code's).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = next((d / "shared" for d in ROOT.parents if (d / "shared" / "corpora").is_dir()), ROOT.parent / "shared")
sys.path.insert(0, str(ROOT))

from gbrain.core.brain import Brain  # noqa: E402
from gbrain.search import keyword  # noqa: E402
from gbrain.sync.importer import import_tree  # noqa: E402


def timed(b: Brain, queries: list[str], rounds: int) -> dict[str, tuple[float, float]]:
    """``{setting: (CPU p50, wall p50)}`` in seconds per query, settings ``on`` and ``off``."""
    shipped = keyword.COORD_POWER
    cpu: dict[str, list[list[float]]] = {"on": [[] for _ in queries], "off": [[] for _ in queries]}
    wall: dict[str, list[list[float]]] = {"on": [[] for _ in queries], "off": [[] for _ in queries]}
    try:
        for r in range(rounds):
            for setting in (("on", "off") if r % 2 == 0 else ("off", "on")):
                keyword.COORD_POWER = shipped if setting == "on" else 0.0
                for i, q in enumerate(queries):
                    c, t = time.process_time(), time.perf_counter()
                    keyword.search(b.conn, q, limit=20)
                    wall[setting][i].append(time.perf_counter() - t)
                    cpu[setting][i].append(time.process_time() - c)
    finally:
        keyword.COORD_POWER = shipped
    return {s: (statistics.median(map(statistics.median, cpu[s])), statistics.median(map(statistics.median, wall[s]))) for s in cpu}


def report(name: str, res: dict[str, tuple[float, float]]) -> None:
    on, off = res["on"], res["off"]
    print(f"{name}: CPU p50 {on[0] * 1000:.2f} ms with coordination, {off[0] * 1000:.2f} ms without "
          f"(×{on[0] / off[0]:.2f}); wall p50 {on[1] * 1000:.2f} / {off[1] * 1000:.2f} ms; load %.1f %.1f %.1f" % os.getloadavg(), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pages", type=int, default=5000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--keep", help="work folder to keep (brains reused when there)")
    args = ap.parse_args()
    tmp = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="gbrain-coord-"))
    tmp.mkdir(parents=True, exist_ok=True)
    print(f"coordination cost; COORD_POWER {keyword.COORD_POWER}; load %.1f %.1f %.1f" % os.getloadavg(), flush=True)
    db = tmp / f"make{args.pages}.db"
    if not db.exists():
        tree = tmp / f"make{args.pages}"
        subprocess.run([sys.executable, str(SHARED / "tools" / "make_brain.py"), str(tree), "--pages", str(args.pages), "--clean"], check=True, capture_output=True)
        with Brain.open(db) as b:
            import_tree(b, tree)
        shutil.rmtree(tree, ignore_errors=True)
    with Brain.open(db) as b:
        rnd = random.Random(args.pages)
        titles = [r[0] for r in b.conn.execute("SELECT title FROM pages ORDER BY id")]
        queries = [rnd.choice(titles) for _ in range(40)] + ["founder", "series a", "board meeting", "revenue growth", "hiring", "product launch", "investor update", "acquisition", "machine learning", "pricing"] * 2
        n = b.conn.execute("SELECT COUNT(*) FROM pages").fetchone()[0]
        report(f"make_brain {n:,} pages, scale.py's 60 queries", timed(b, queries, args.rounds))
    sf = SHARED / "corpora" / "ir" / "scifact"
    if (sf / "corpus.jsonl").exists():
        db = tmp / "scifact.db"
        if not db.exists():
            tree = tmp / "scifact" / "papers"
            tree.mkdir(parents=True)
            for line in (sf / "corpus.jsonl").open(encoding="utf-8"):
                d = json.loads(line)
                (tree / f"{d['_id']}.md").write_text(f"# {' '.join(d['title'].split()) or d['_id']}\n\n{d['text'].strip()}\n", encoding="utf-8")
            with Brain.open(db) as b:
                import_tree(b, tree.parent)
            shutil.rmtree(tree.parent, ignore_errors=True)
        claims = {json.loads(x)["_id"]: json.loads(x)["text"] for x in (sf / "queries.jsonl").open(encoding="utf-8")}
        test = [ln.split("\t")[0] for ln in (sf / "qrels" / "test.tsv").read_text().splitlines()[1:]]
        with Brain.open(db) as b:
            report("SciFact 5,183 abstracts, 300 test claims", timed(b, [claims[q] for q in dict.fromkeys(test)], args.rounds))
    if not args.keep:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
