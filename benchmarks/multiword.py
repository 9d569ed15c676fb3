"""Multi-word queries on a real vault: does `search` put the page holding all the words first?

    python benchmarks/multiword.py [--corpus ../shared/corpora/obsidian-hub] [--keep brain.db --reuse]
                                   [--coord-off] [--baseline OTHER/gbrain/search/keyword.py]

A user trial found a long note containing every query word ranked below short notes holding
only one of them (BM25 normalises by length and has no coordination term). These 16 queries
of 3–6 content words were written from reading pages of the Obsidian Hub (guides and concepts)
on 2026-12-02, before any search was run over the vault, and were not changed after a ranking
was seen; each names a passage of its gold page(s) by words found there, mostly not the title.
The vault (6,572 pages, many short plugin and people stubs that share a Hub footer) is imported
whole into a temporary brain.

Metrics: hit@1, MRR@10, hit@5 (:mod:`known_items`' definitions; the rank of a query is its
best gold page's). ``--coord-off`` ranks without the coordination factor
(``keyword.COORD_POWER = 0``) in the same run, beside the shipped ranking; ``--baseline`` ranks
the same brain with another checkout's ``keyword.py`` too (before/after a change, one run).
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = next((d / "shared" for d in ROOT.parents if (d / "shared" / "corpora").is_dir()), ROOT.parent / "shared")
sys.path.insert(0, str(ROOT))

from gbrain.core.brain import Brain  # noqa: E402
from gbrain.search import keyword as search  # noqa: E402
from gbrain.sync.importer import import_tree  # noqa: E402

sys.path.insert(0, str(ROOT / "benchmarks"))
from known_items import metrics, ranks_for  # noqa: E402  (one definition of the ranking measures)

DEPTH = 100
G = "04 - Guides, Workflows, & Courses/Guides/"
C = "05 - Concepts/"
#: (query, gold paths) — written from the pages, before any search was run
QUERIES: list[tuple[str, list[str]]] = [
    ("haproxy acme certificate domain", [G + "Obsidian publish and pfSense.md"]),
    ("bisect plugins safe mode slowness", [G + "How to debug why Obsidian is running slowly.md"]),
    ("performance snapshot developer tools record", [G + "How to debug why Obsidian is running slowly.md"]),
    ("jest ts-jest mock obsidian api", [G + "How to add automated tests to your plugin.md"]),
    ("extract method refactoring business logic", [G + "How to test plugin code that uses Obsidian APIs.md"]),
    ("pandoc citations csl reference style", [G + "Using Pandoc inside Obsidian.md"]),
    ("sass pre-processor scss output css", [G + "Want some Sass with your obsidian theme‽ here's How and Why.md"]),
    ("sherlocking ecosystem cannibalization", [C + "Sherlocking.md"]),
    ("protected health information patient data", [G + "HIPAA Requirements and Obsidian Primer.md"]),
    ("css selector specificity important declaration", [G + "How to Style Obsidian.md"]),
    ("vscode workspaces extensions region markers", [G + "Using Visual Studio Code for Theme Development.md"]),
    ("breadcrumbs template up field hotkey", [G + "Breadcrumbs Quickstart Guide.md"]),
    ("dataview metadata key value lists", [G + "An Introduction to Dataview.md", G + "An Introduction to Dataview Slides.md"]),
    ("stylelint postcss config recommended", [G + "Why and How to use Stylelint for your Obsidian Theme.md"]),
    ("push tag release workflow github", [G + "Using GitHub actions to create releases for plugins.md"]),
    ("digital garden evolving ideas maggie appleton", [C + "A Brief History and Ethos of the Digital Garden.md"]),
]


def run(b: Brain, path_of: dict[str, str], name: str, searcher=None) -> dict[str, float]:
    """Rank :data:`QUERIES` with ``searcher`` (default: this checkout's ``keyword.search``), print
    the metrics and each miss; return the metrics."""
    searcher = searcher or search.search
    t = time.process_time()
    ranks = [ranks_for([path_of[h["slug"]] for h in searcher(b.conn, q, limit=DEPTH)], gold) for q, gold in QUERIES]
    cpu = (time.process_time() - t) * 1000 / len(QUERIES)
    m = metrics(ranks)
    print(f"\n{name}: {len(ranks)} queries, {cpu:.1f} ms CPU/query (top {DEPTH} with snippets)")
    print("  " + ", ".join(f"{k} {v:.3f}" for k, v in m.items()))
    for (q, _), r in zip(QUERIES, ranks):
        if r != 1:
            print(f"  miss: rank {r if r else '>' + str(DEPTH):>4}  {q!r}")
    return m


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", default=str(SHARED / "corpora" / "obsidian-hub"))
    ap.add_argument("--keep", help="keep the brain at this path")
    ap.add_argument("--reuse", action="store_true", help="with --keep: reuse that brain when it exists")
    ap.add_argument("--coord-off", action="store_true", help="also rank without the coordination factor")
    ap.add_argument("--baseline", metavar="KEYWORD_PY", help="another checkout's gbrain/search/keyword.py: its search ranks the same brain too")
    args = ap.parse_args()
    corpus = Path(args.corpus)
    for _, gold in QUERIES:
        for g in gold:
            if not (corpus / g).is_file():
                sys.exit(f"gold page missing from the corpus: {g}")
    tmp = Path(tempfile.mkdtemp(prefix="gbrain-multiword-"))
    db = Path(args.keep) if args.keep else tmp / "brain.db"
    if db.exists() and not (args.keep and args.reuse):
        db.unlink()
    b = Brain.open(db)
    if not b.conn.execute("SELECT 1 FROM pages LIMIT 1").fetchone():
        t = time.perf_counter()
        import_tree(b, corpus)
        print(f"obsidian-hub: {b.conn.execute('SELECT COUNT(*) FROM pages').fetchone()[0]:,} pages imported in {time.perf_counter() - t:.1f} s", flush=True)
    path_of = {r[0]: r[1] for r in b.conn.execute("SELECT slug, path FROM pages")}
    out = {"search": run(b, path_of, "search (shipped)")}
    if args.baseline:
        sys.path.insert(0, str(ROOT / "benchmarks"))
        from postgres import load_baseline

        out["baseline"] = run(b, path_of, f"search, --baseline {args.baseline}", load_baseline(args.baseline))
    if args.coord_off and hasattr(search, "COORD_POWER"):
        keep = search.COORD_POWER
        search.COORD_POWER = 0.0
        try:
            out["coord off"] = run(b, path_of, "search, coordination off (COORD_POWER = 0)")
        finally:
            search.COORD_POWER = keep
    b.close()
    shutil.rmtree(tmp, ignore_errors=True)
    print("\nsummary: " + "; ".join(f"{n} " + ", ".join(f"{k} {v:.3f}" for k, v in m.items()) for n, m in out.items()))
    print("load average %.2f %.2f %.2f (ranking figures do not depend on load; CPU ms do)" % os.getloadavg())


if __name__ == "__main__":
    main()
