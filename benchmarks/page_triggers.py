#!/usr/bin/env python3
"""What each ``pages`` trigger costs a bulk import's page ``INSERT``s, in one run (issue 14).

The page rows of every page of a tree (``Brain._page_vals`` of pages parsed beforehand, not
measured) are inserted as ``Brain.save_new_pages`` inserts them (``derive.insert_many``, 500 rows
a statement) into a copy of a new brain, in one transaction rolled back after, with every trigger
and then with one (or all) of the ``AFTER INSERT`` / ``BEFORE INSERT`` triggers on ``pages``
dropped from the copy: the history trigger (``pages_history_ai``: a ``history_bodies`` reference
row and a ``history`` row per page, their subqueries, four ``gb_origin`` calls), the FTS5 index
(``pages_ai``: the floor's own work), the schema guard (``gb_schema``), the sync change log (no
row without a sync root). Each figure is the CPU-seconds (``process_time``) of the statements,
best of ``--rounds``, cases alternated within a round; the load average is printed. What a
whole-batch replacement of a per-row trigger could save at most is its row here (gbrain keeps
every trigger: this drops them only in the copies it measures).

    python benchmarks/page_triggers.py [--pages 7471] [--tree DIR ...] [--skip-corpora] [--rounds 3]
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
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from import_halves import ab_trees, page_texts  # noqa: E402

from gbrain.core.brain import Brain, now_iso, sha256  # noqa: E402
from gbrain.page import markdown  # noqa: E402
from gbrain.page.slugs import slug_for_path  # noqa: E402
from gbrain.storage.derive import MANY_ROWS, insert_many  # noqa: E402

CASES = {
    "every trigger": (),
    "no history trigger": ("pages_history_ai",),
    "no FTS5 trigger": ("pages_ai",),
    "no schema guard": ("pages_schema_guard_insert",),
    "no change-log trigger": ("pages_changelog_ai",),
    "no trigger": ("pages_history_ai", "pages_ai", "pages_schema_guard_insert", "pages_changelog_ai"),
}


def bench(name: str, tree: Path, tmp: Path, rounds: int) -> None:
    texts = page_texts(tree)
    ts = now_iso()
    vals = []
    for p, t in texts.items():
        data = t.encode("utf-8")
        row = Brain._page_vals(slug_for_path(p), p, markdown.parse_page(t, p), data, sha256(data), ts)
        vals.append((*row.values(), ts))
    cols = list(row)
    sql = f"INSERT INTO pages ({', '.join(cols)}, created_at) VALUES ({', '.join('?' * (len(cols) + 1))})"
    tmpl = tmp / f"{name}-template.db"
    with Brain.open(tmpl):
        pass
    best = {k: float("inf") for k in CASES}
    load0 = os.getloadavg()
    for r in range(rounds):
        for k, drop in (CASES.items() if r % 2 == 0 else reversed(CASES.items())):
            db = tmp / f"{name}-{r}.db"
            shutil.copy(tmpl, db)
            with Brain.open(db) as b:
                for t in drop:
                    b.conn.execute(f"DROP TRIGGER {t}")
                b.conn.execute("BEGIN IMMEDIATE")
                c = time.process_time()
                for i in range(0, len(vals), MANY_ROWS):
                    insert_many(b.conn, sql, vals[i : i + MANY_ROWS])
                best[k] = min(best[k], time.process_time() - c)
                b.conn.execute("ROLLBACK")
            for f in tmp.glob(f"{name}-{r}.db*"):
                f.unlink()
    print(f"\n== {name}: {len(vals):,} page rows; load {load0[0]:.2f} → {os.getloadavg()[0]:.2f}")
    base = best["every trigger"]
    for k, v in best.items():
        print(f"  {k:<24} cpu {v:6.3f} s" + ("" if k == "every trigger" else f"   saves {base - v:6.3f} s ({(base - v) * 1e6 / len(vals):5.1f} µs a row)"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pages", type=int, default=7471)
    ap.add_argument("--tree", action="append", default=[], help="an extra tree to measure")
    ap.add_argument("--skip-corpora", action="store_true", help="only the make_brain brain (and --tree)")
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        for name, tree in ab_trees(tmp, a.pages, corpora=not a.skip_corpora) + [(Path(t).name, Path(t)) for t in a.tree]:
            bench(name, tree, tmp, a.rounds)


if __name__ == "__main__":
    main()
