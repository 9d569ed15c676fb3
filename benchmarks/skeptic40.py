"""Skeptic's 40: mixed queries over two brains, MRR@10 and nDCG@10 for `search` (and `query`).

    python benchmarks/skeptic40.py [--corpus ../shared/corpora/obsidian-help] [--keep DIR --reuse]
                                   [--model minilm] [--baseline OTHER/gbrain/search/keyword.py]
                                   [--pg postgresql://…/postgres]

A persona trial (trial23, "the search-quality skeptic", 2026-12-04) wrote these 40 queries from
reading pages (cat and grep), before any search was run, and did not change them after seeing a
ranking: 26 over obsidian-help (``en/``, ``Release notes/``, ``Sandbox/`` and ``zh/``, 741
pages) and 14 over a 1,000-page ``make_brain.py`` brain (seed 1). Kinds the other sets lack:
typos (``quick swticher``), another case (``GRAPH VIEW``), a name without its accents
(``Bjorn Moreau``), dates and timelines (``release notes March 2022``, ``what happened with
Björn Moreau in March 2025``), version numbers, tag-ish words, CJK. Gold pages are graded: 2
the page meant, 1 also a right answer.

Metrics: MRR@10 (reciprocal rank of the first gold page, 0 beyond 10), nDCG@10 (gain 2^g − 1,
the ideal from the gold grades), hit@1. Every query whose first gold page is not in the top 3
is printed with its rank. ``--model`` also embeds both brains (minilm: ~11,300 chunks, 15–30
minutes on 2 busy cores; ``--keep`` keeps them) and ranks with ``gbrain query``.
``--baseline`` ranks ``search`` with another checkout's keyword.py in the same run.
"""
from __future__ import annotations

import argparse
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = next((d / "shared" for d in ROOT.parents if (d / "shared" / "corpora").is_dir()), ROOT.parent / "shared")
sys.path.insert(0, str(ROOT))

from gbrain.core.brain import Brain  # noqa: E402
from gbrain.search import hybrid, keyword as search  # noqa: E402
from gbrain.sync.importer import import_tree  # noqa: E402

DEPTH = 100
#: (query, kind, {gold path: grade}) per brain; written from the pages before any search ran
E = "en/"
OH = [
 ("quick swticher", "nav-typo", {E+"Plugins/Quick switcher.md": 2}),
 ("GRAPH VIEW", "nav-case", {E+"Plugins/Graph view.md": 2}),
 ("Sync Log", "nav-alias", {E+"Obsidian Sync/Status icon and messages.md": 2}),
 ("remote vault", "nav-alias", {E+"Obsidian Sync/Local and remote vaults.md": 2}),
 ("symbolic links", "nav-partial", {E+"Files and folders/Symbolic links and junctions.md": 2}),
 ("working with multiple cursors", "nav-alias", {E+"Editing and formatting/Multiple cursors.md": 2}),
 ("obsidain publish", "nav-typo", {E+"Obsidian Publish/Introduction to Obsidian Publish.md": 2}),
 ("fold", "nav-alias", {E+"Editing and formatting/Folding.md": 2}),
 ("how do I embed a PDF", "info", {E+"Linking notes and files/Embed files.md": 2}),
 ("how do I password protect my publish site?", "info", {E+"Obsidian Publish/Security and privacy.md": 2}),
 ("record audio in a note", "info", {E+"Plugins/Audio recorder.md": 2}),
 ("sync vaults from the command line without the desktop app", "info", {E+"Obsidian Sync/Headless Sync.md": 2}),
 ("add google analytics to my published site", "info", {E+"Obsidian Publish/Analytics.md": 2}),
 ("open a specific page of a pdf", "info", {E+"Linking notes and files/Embed files.md": 2}),
 ("how do I select text in a rectangle?", "question", {E+"Editing and formatting/Multiple cursors.md": 2}),
 ("when were callouts added?", "date", {"Release notes/v0.14.0.md": 2, E+"Editing and formatting/Callouts.md": 1}),
 ("release notes March 2022", "date", {f"Release notes/v{v}.md": 1 for v in ["0.13.28","0.13.29","0.13.30","0.13.31","0.13.32","0.13.33","0.14.0","0.14.1","0.14.2","0.14.3","0.14.4"]}),
 ("what changed in 0.14.6", "date", {"Release notes/v0.14.6.md": 2}),
 ("nested tags", "tag", {E+"Editing and formatting/Tags.md": 2, E+"Plugins/Tags view.md": 1}),
 ("cssclasses property", "tag", {E+"Editing and formatting/Properties.md": 2}),
 ("files matched by this filter will be down-ranked", "phrase", {"Release notes/v0.14.6.md": 2}),
 ("selective syncing", "phrase", {E+"Obsidian Sync/Sync settings and selective syncing.md": 2}),
 ("快速切换", "cjk", {"zh/插件/快速切换.md": 2}),
 ("反向链接", "cjk", {"zh/插件/反向链接.md": 2}),
 ("嵌入文件 PDF", "cjk", {"zh/链接笔记与文件/插入文件.md": 2}),
 ("版本历史", "cjk", {"zh/Obsidian Sync/版本历史.md": 2}),
]
MB = [
 ("björn moreau", "nav-case", {"people/björn-moreau.md": 2}),
 ("Bjorn Moreau", "nav-accent", {"people/björn-moreau.md": 2}),
 ("Pilot Helth", "nav-typo", {"companies/pilot-health.md": 2}),
 ("Pilot", "nav-alias", {"companies/pilot-health.md": 2}),
 ("series b 2024 hiring", "nav-partial", {"deals/hiring-series-b-2024.md": 2}),
 ("emile o'brien", "nav-accent", {"people/émile-o-brien.md": 2, "people/émile-o-brien-129.md": 2}),
 ("2023-06-15 database sync", "nav", {"meetings/2023-06-15-database-sync.md": 2}),
 ("hiring-series-b-2024", "nav-slug", {"deals/hiring-series-b-2024.md": 2}),
 ("who raised Hiring Series B 2024?", "info", {"meetings/2023-02-05-gpu-sync.md": 2, "sources/security-open-source-63.md": 2, "deals/hiring-series-b-2024.md": 1}),
 ("what happened with Björn Moreau in March 2025", "date", {"people/björn-moreau.md": 2, "people/gus-moreau.md": 1}),
 ("Video Bio April 2024", "date", {"companies/video-bio.md": 2}),
 ("meeting on 2023-06-15", "date", {"meetings/2023-06-15-database-sync.md": 2}),
 ("hard-tech deal Vector", "tag", {"deals/vector-series-a-2025.md": 2}),
 ("who introduced Gus Moreau?", "info", {"people/björn-moreau.md": 2, "people/gus-moreau.md": 1}),
]


def dcg(gains: list[int]) -> float:
    return sum((2 ** g - 1) / math.log2(i + 2) for i, g in enumerate(gains))


def measure(paths: list[str], gold: dict[str, int]) -> tuple[int | None, float]:
    """(1-based rank of the first gold page or None, nDCG@10)."""
    first = next((i for i, p in enumerate(paths, 1) if p in gold), None)
    return first, dcg([gold.get(p, 0) for p in paths[:10]]) / dcg(sorted(gold.values(), reverse=True)[:10])


def report(name: str, rows: list[tuple]) -> dict[str, float]:
    n = len(rows)
    m = {"MRR@10": sum(1 / r for *_, r, _ in rows if r and r <= 10) / n,
         "nDCG@10": sum(nd for *_, nd in rows) / n,
         "hit@1": sum(1 for *_, r, _ in rows if r == 1) / n}
    print(f"\n{name}: {n} queries  " + "  ".join(f"{k} {v:.3f}" for k, v in m.items()))
    for brain, q, kind, r, nd in rows:
        if not r or r > 3:
            print(f"  rank {r if r else '>' + str(DEPTH):>5}  nDCG {nd:.2f}  [{brain} {kind}] {q!r}")
    return m


def pg_database(admin: str, name: str) -> str:
    """A new, empty database ``name`` on the Postgres server of ``admin`` (dropped first when it
    exists); its URL."""
    import psycopg

    with psycopg.connect(admin, autocommit=True) as c:
        c.execute(f"DROP DATABASE IF EXISTS {name}")
        c.execute(f"CREATE DATABASE {name}")
    head, _, tail = admin.partition("?")
    return head.rsplit("/", 1)[0] + "/" + name + ("?" + tail if tail else "")


def build(keep: Path | None, reuse: bool, corpus: Path, tmp: Path, pg: str | None = None) -> dict[str, Brain]:
    root = keep or tmp
    root.mkdir(parents=True, exist_ok=True)
    brains = {}
    for name in ("OH", "MB"):
        db = root / f"{name.lower()}.db"
        if pg:  # (always made again)
            db = pg_database(pg, f"gb_skeptic40_{name.lower()}")
        elif db.exists() and reuse:
            brains[name] = Brain.open(db, create=False)
            continue
        if not pg and db.exists():
            db.unlink()
        src = tmp / f"{name.lower()}-tree"
        shutil.rmtree(src, ignore_errors=True)
        if name == "OH":
            for part in ("en", "Release notes", "Sandbox", "zh"):
                shutil.copytree(corpus / part, src / part)
        else:
            subprocess.run([sys.executable, str(SHARED / "tools" / "make_brain.py"), str(src), "--pages", "1000", "--seed", "1"],
                           check=True, stdout=subprocess.DEVNULL)
        b = brains[name] = Brain.open(db)
        import_tree(b, src)
    return brains


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", default=str(SHARED / "corpora" / "obsidian-help"))
    ap.add_argument("--keep", help="keep the two brains (oh.db, mb.db) in this folder")
    ap.add_argument("--reuse", action="store_true", help="with --keep: reuse the brains there")
    ap.add_argument("--model", help="also embed with this model and rank with `query`")
    ap.add_argument("--baseline", metavar="KEYWORD_PY", help="another checkout's gbrain/search/keyword.py: its search ranks the same brains too")
    ap.add_argument("--pg", metavar="ADMIN_URL", help="make the two brains on this Postgres server (databases gb_skeptic40_oh, gb_skeptic40_mb, made again) instead of SQLite files")
    args = ap.parse_args()
    import tempfile

    tmp = Path(tempfile.mkdtemp(prefix="gbrain-skeptic40-"))
    brains = build(Path(args.keep) if args.keep else None, args.reuse, Path(args.corpus), tmp, args.pg)
    sets = {"OH": OH, "MB": MB}
    rankers = {"search": lambda b, q: search.search(b.conn, q, limit=DEPTH)}
    if args.baseline:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from postgres import load_baseline

        base = load_baseline(args.baseline)
        rankers["search, --baseline"] = lambda b, q: base(b.conn, q, limit=DEPTH)
    if args.model:
        from gbrain.search.embeddings import get_model
        from gbrain.search.vectors import embed_pages, plan_embed, select_pages

        model = get_model(args.model)
        for b in brains.values():
            plan, work = plan_embed(b.conn, model, select_pages(b.conn, model.model_id, "stale"))
            if plan.to_embed:
                embed_pages(b.conn, model, work, transaction=b.transaction)
        rankers[f"query ({model.model_id})"] = lambda b, q: hybrid.query(b, q, limit=DEPTH, model=model)["hits"]
    results = {}
    for name, rank in rankers.items():
        rows = []
        for brain, qs in sets.items():
            b = brains[brain]
            path_of = {r[0]: r[1] for r in b.conn.execute("SELECT slug, path FROM pages")}
            for q, kind, gold in qs:
                rows.append((brain, q, kind, *measure([path_of[h["slug"]] for h in rank(b, q)], gold)))
        results[name] = report(name, rows)
    print("\nsummary: " + "; ".join(f"{n} " + ", ".join(f"{k} {v:.3f}" for k, v in m.items()) for n, m in results.items()))
    print("load average %.2f %.2f %.2f (ranking figures do not depend on load)" % os.getloadavg())
    if not args.keep:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
