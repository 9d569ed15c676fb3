"""Natural-language questions over a real tree: hit@1, hit@5, MRR@10, nDCG@10 of `search` and `query`.

    python benchmarks/questions.py benchmarks/questions_msdocs_ad.jsonl --corpus ../shared/corpora/msdocs-ad-identity
           [--keep BRAIN.db [--reuse]] [--model wordllama] [--no-query] [--baseline OTHER/gbrain/search/keyword.py]
           [--engine sqlite|postgres|both [--pg postgresql://ADMIN]]

A set is a JSONL file, one question a line: ``{"q": …, "kind": …, "gold": {path: grade}}`` (grade 2
the answer, 1 related; paths relative to the corpus folder), and optionally ``"order": [path, …]``:
the pages expected first, in that order (figure ``order``: the share of such questions whose
ranking opens so; hit@1 counts any gold page first). trial37 (2026-12-04) wrote
``questions_llm_wiki.jsonl`` (20, over llm-wiki-ob-vault, 3 in Chinese) and
``questions_msdocs_ad.jsonl`` (21, over msdocs-ad-identity) from reading ~40 pages with cat/grep
before any search ran, and did not change them after seeing a ranking: a researcher's questions in
other words than the page (synonyms, paraphrase), a concept inside a long page, a section's answer,
typos. The corpus is imported whole (its SOURCE.md left out) and embedded with ``--model``
(default ``wordllama``: ``minilm`` takes ~90 min per corpus on 2 busy cores).

Every question whose first gold page is not first is printed with its rank and the top 3.
``--baseline`` ranks ``search`` with another checkout's keyword.py over the same brain, same run.
``--engine postgres`` (or ``both``: the same sets on each engine, same run, then every question
whose first gold page stands at another rank on each) builds the brain in a new database of the
server ``--pg`` names (its admin URL), else of a private ``pgserver`` started here.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gbrain.core.brain import Brain  # noqa: E402
from gbrain.search import hybrid, keyword as search  # noqa: E402
from gbrain.sync.importer import import_tree  # noqa: E402

DEPTH = 100


def dcg(gains: list[int]) -> float:
    return sum((2 ** g - 1) / math.log2(i + 2) for i, g in enumerate(gains))


def measure(paths: list[str], gold: dict[str, int]) -> tuple[int | None, float]:
    """(1-based rank of the first gold page or None, nDCG@10)."""
    first = next((i for i, p in enumerate(paths, 1) if p in gold), None)
    return first, dcg([gold.get(p, 0) for p in paths[:10]]) / dcg(sorted(gold.values(), reverse=True)[:10])


def in_order(paths: list[str], order: list[str] | None) -> bool | None:
    """Whether the ranking opens with ``order`` (a question's ``"order"``: the pages expected
    first, in that order; None for a question without one)."""
    return None if not order else paths[: len(order)] == order


def figures(rows: list[tuple]) -> dict[str, float]:
    n = len(rows)
    out = {"hit@1": sum(1 for r in rows if r[2] == 1) / n,
           "hit@5": sum(1 for r in rows if r[2] and r[2] <= 5) / n,
           "MRR@10": sum(1 / r[2] for r in rows if r[2] and r[2] <= 10) / n,
           "nDCG@10": sum(r[3] for r in rows) / n}
    ordered = [r[5] for r in rows if r[5] is not None]
    if ordered:  # (sets whose questions say the order of their first pages)
        out["order"] = sum(ordered) / len(ordered)
    return out


def report(name: str, rows: list[tuple], quiet: bool = False) -> dict[str, float]:
    m = figures(rows)
    print(f"\n{name}: {len(rows)} questions  " + "  ".join(f"{k} {v:.3f}" for k, v in m.items()))
    if not quiet:
        for q, kind, r, nd, top, ok in rows:
            if r != 1 or ok is False:
                print(f"  rank {r if r else '>' + str(DEPTH):>5}  nDCG {nd:.2f}{'  out of order' if ok is False else ''}  [{kind}] {q!r}")
                for p in top[:3]:
                    print(f"        {p}")
    return m


def build(corpus: Path, db, reuse: bool, model_name: str | None) -> Brain:
    if not isinstance(db, Path):  # a new Postgres database
        tree = Path(tempfile.mkdtemp(prefix="gbrain-questions-")) / "tree"
        shutil.copytree(corpus, tree, ignore=lambda d, names: ["SOURCE.md"] if Path(d) == corpus else [])
        b = Brain.open(db)
        import_tree(b, tree)
        shutil.rmtree(tree.parent, ignore_errors=True)
    elif db.exists() and reuse:
        b = Brain.open(db, create=False)
    else:
        if db.exists():
            db.unlink()
        tree = Path(tempfile.mkdtemp(prefix="gbrain-questions-")) / "tree"
        shutil.copytree(corpus, tree, ignore=lambda d, names: ["SOURCE.md"] if Path(d) == corpus else [])
        b = Brain.open(db)
        import_tree(b, tree)
        shutil.rmtree(tree.parent, ignore_errors=True)
    if model_name:
        from gbrain.search.embeddings import get_model
        from gbrain.search.vectors import embed_pages, plan_embed, select_pages

        model = get_model(model_name)
        plan, work = plan_embed(b.conn, model, select_pages(b.conn, model.model_id, "stale"))
        if plan.to_embed:
            embed_pages(b.conn, model, work, transaction=b.transaction)
    return b


def pg_databases(admin: str | None, tmp: Path):
    """A function making a new empty database (its URL) on the server ``admin`` names, else on a
    private pgserver (stopped when this process ends)."""
    import psycopg

    if admin is None:
        import pgserver

        os.chmod(tmp, 0o755)  # pgserver's own user (when root) must reach its data folder
        srv = pgserver.get_server(tmp / "pg", cleanup_mode="stop")
        admin = srv.get_uri()
        pg_databases.server = srv  # kept alive with the process

    def new(name: str) -> str:
        with psycopg.connect(admin, autocommit=True) as c:
            c.execute(f"DROP DATABASE IF EXISTS {name}")
            c.execute(f"CREATE DATABASE {name}")
        return admin.replace("/postgres?", f"/{name}?", 1)
    return new


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("set", nargs="+", help="question files (JSONL); with several, --corpus and --keep take as many, in order")
    ap.add_argument("--corpus", action="append", required=True)
    ap.add_argument("--keep", action="append", help="keep the brain at this path")
    ap.add_argument("--reuse", action="store_true", help="with --keep: reuse that brain when it exists")
    ap.add_argument("--model", default="wordllama", help="embedding model for `query` (default wordllama)")
    ap.add_argument("--no-query", action="store_true", help="only `search`")
    ap.add_argument("--quiet", action="store_true", help="figures only")
    ap.add_argument("--baseline", metavar="KEYWORD_PY", help="another checkout's gbrain/search/keyword.py: its search ranks the same brain too")
    ap.add_argument("--engine", choices=("sqlite", "postgres", "both"), default="sqlite")
    ap.add_argument("--pg", metavar="URL", help="admin URL of a Postgres server for --engine postgres/both (default: a private pgserver started here)")
    args = ap.parse_args()
    if len(args.corpus) != len(args.set) or (args.keep and len(args.keep) != len(args.set)):
        ap.error("give one --corpus (and one --keep) per set")
    tmp = Path(tempfile.mkdtemp(prefix="gbrain-questions-db-"))
    model = None
    if not args.no_query:
        from gbrain.search.embeddings import get_model

        model = get_model(args.model)
    rankers = {"search": lambda b, q: search.search(b.conn, q, limit=DEPTH)}
    if args.baseline:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from postgres import load_baseline

        base = load_baseline(args.baseline)
        rankers["search, --baseline"] = lambda b, q: base(b.conn, q, limit=DEPTH)
    if model:
        rankers[f"query ({model.model_id})"] = lambda b, q: hybrid.query(b, q, limit=DEPTH, model=model)["hits"]
    engines = ["sqlite", "postgres"] if args.engine == "both" else [args.engine]
    new_pg = pg_databases(args.pg, tmp) if "postgres" in engines else None
    every: dict[str, list] = {}
    brains: dict[tuple, Brain] = {}
    for i, qfile in enumerate(args.set):
        qs = [json.loads(line) for line in Path(qfile).read_text(encoding="utf-8").splitlines() if line.strip()]
        firsts: dict[str, list] = {}
        for engine in engines:
            tag = f" [{engine}]" if len(engines) > 1 or engine != "sqlite" else ""
            key = (Path(args.corpus[i]).resolve(), engine)
            if key not in brains:  # sets over one corpus share its brain
                db = new_pg(f"gbq{os.getpid()}_{i}") if engine == "postgres" else (Path(args.keep[i]) if args.keep else tmp / f"b{i}.db")
                brains[key] = build(Path(args.corpus[i]), db, args.reuse, None if args.no_query else args.model)
            b = brains[key]
            path_of = {r[0]: r[1] for r in b.conn.execute("SELECT slug, path FROM pages")}
            for name, rank in rankers.items():
                rows = []
                for item in qs:
                    top = [path_of.get(h.get("slug"), "?") for h in rank(b, item["q"])]
                    rows.append((item["q"], item["kind"], *measure(top, item["gold"]), top, in_order(top, item.get("order"))))
                report(f"{Path(qfile).stem} {name}{tag}", rows, args.quiet)
                every.setdefault(name + tag, []).extend(rows)
                firsts.setdefault(name, []).append(rows)
        if len(engines) > 1:
            for name, (lite, pg) in firsts.items():
                diff = [(a, c) for a, c in zip(lite, pg) if a[2] != c[2] or a[5] != c[5]]
                print(f"\n{Path(qfile).stem} {name}: {len(diff)} question(s) ranked otherwise (sqlite rank / postgres rank)")
                for a, c in diff:
                    print(f"  {a[2] or '-':>4} / {c[2] or '-':<4} [{a[1]}] {a[0]!r}")
                    print(f"        sqlite {a[4][:2]}\n        postgres {c[4][:2]}")
    for b in brains.values():
        b.close() if hasattr(b, "close") else None
    if len(args.set) > 1:
        for name, rows in every.items():
            report(f"ALL {name}", rows, quiet=True)
    print("load average %.2f %.2f %.2f (ranking figures do not depend on load)" % os.getloadavg())
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
