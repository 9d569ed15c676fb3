#!/usr/bin/env python3
"""Cost of one ``SyncEngine._page_name`` lookup (what a stale save's look-alike line asks of the
brain: is this word a page's name, a person's?) on a make_brain brain plus ``--shared`` pages that
share one name (``hub/area-N/index.md`` titled ``Index``: the exact file-name and title lookups
find them all) and as many titled ``Index notes N`` (the first-word range, bounded by
``engine.FIRST_WORD_ROWS`` already), for this checkout and ``--baseline`` checkouts (their
``gbrain`` on ``PYTHONPATH``), in the same run, on SQLite and/or Postgres (a private pgserver).

Per word and checkout: the answer, statements per lookup, CPU per lookup (``time.process_time``
of the child, median of 5 × ``--calls``; the machine's load is printed), and what the statement
read: SQLite's VM instructions (a progress handler), Postgres' rows the plan's scans returned and
its execution time (``EXPLAIN (ANALYZE)``) and the server backends' CPU per lookup.

    python benchmarks/page_name_cost.py --baseline /tmp/base [--pages 2000] [--shared 500] [--engine both]
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
MAKE = Path("/work/shared/tools/make_brain.py")
WORDS = ["Index", "Indx", "Postgres", "Zyxwv"]

CHILD = r"""
import json, statistics, sys, tempfile, time
sys.path.insert(0, sys.argv[4])
from gbrain.core.brain import Brain
from gbrain.sync.engine import SyncEngine
db, calls, words = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])
pgdata = sys.argv[5] or None
b = Brain.open(db)
root = tempfile.mkdtemp()
eng = SyncEngine(b, root)
real = eng.conn

class Counting:
    def __init__(self, c):
        self.c, self.n, self.last = c, 0, None
    def execute(self, q, args=()):
        self.n += 1
        self.last = (q, args)
        return self.c.execute(q, args)
    def __getattr__(self, k):
        return getattr(self.c, k)

out = {"module": __import__("gbrain").__file__}
for w in words:
    eng.conn = Counting(real)
    ans = eng._page_name(w)
    r = {"answer": ans, "statements": eng.conn.n}
    q, args = eng.conn.last
    eng.conn = real
    if getattr(real, "dialect", "sqlite") == "postgres":
        plan = real.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + q, args).fetchone()[0]
        plan = json.loads(plan) if isinstance(plan, str) else plan
        rows = 0
        def walk(n):
            global rows
            if n.get("Relation Name") in ("pages", "aliases"):
                rows += n.get("Actual Rows", 0) * n.get("Actual Loops", 1)
            for c in n.get("Plans", []):
                walk(c)
        walk(plan[0]["Plan"])
        r["rows_read"] = rows
        r["exec_ms"] = plan[0]["Execution Time"]
    else:
        steps = [0]
        def tick():
            steps[0] += 1
        real.set_progress_handler(tick, 1)
        eng._page_name(w)
        real.set_progress_handler(None, 1)
        r["vm_steps"] = steps[0]
    if pgdata:
        sys.path.insert(0, sys.argv[6])
        from postgres import server_cpu
        from urllib.parse import urlsplit
        dbname = urlsplit(db).path.lstrip("/")
    per = []
    srv = []
    for _ in range(5):
        s0 = server_cpu(__import__("pathlib").Path(pgdata), dbname) if pgdata else 0.0
        t = time.process_time()
        for _ in range(calls):
            eng._page_name(w)
        per.append((time.process_time() - t) / calls)
        if pgdata:
            srv.append((server_cpu(__import__("pathlib").Path(pgdata), dbname) - s0) / calls)
    r["cpu_ms"] = statistics.median(per) * 1000
    if pgdata:
        r["server_cpu_ms"] = statistics.median(srv) * 1000
    out[w] = r
b.close()
print(json.dumps(out))
"""


def load() -> str:
    return "%.1f %.1f %.1f" % os.getloadavg()


def fill(db: str, tree: Path, shared: int) -> None:
    """Import ``tree`` into ``db`` and add the pages sharing the name ``Index``."""
    subprocess.run([sys.executable, "-m", "gbrain", "--db", db, "import", str(tree)], check=True, capture_output=True, cwd=ROOT)
    sys.path.insert(0, str(ROOT))
    from gbrain.core.brain import Brain

    b = Brain.open(db)
    b.save_page("concepts/postgres", "# Postgres\n\nThe database.\n")
    for i in range(shared):
        b.save_page(f"hub/area-{i}/index", f"# Index\n\nThe pages of area {i}.\n")
        b.save_page(f"hub/index-notes-{i}", f"# Index notes {i}\n\nNotes.\n")
    b.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pages", type=int, default=2000)
    ap.add_argument("--shared", type=int, default=500, help="pages named Index (and as many titled 'Index notes N')")
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--baseline", action="append", default=[], help="another checkout (its root), measured in the same run")
    ap.add_argument("--engine", choices=["sqlite", "postgres", "both"], default="both")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="gbrain-pagename-"))
    os.chmod(tmp, 0o755)
    tree = tmp / "tree"
    subprocess.run([sys.executable, str(MAKE), str(tree), "--pages", str(args.pages)], check=True, capture_output=True)
    brains: list[tuple[str, str, str]] = []  # engine, db, pgdata
    srv = None
    if args.engine in ("sqlite", "both"):
        db = str(tmp / "brain.db")
        fill(db, tree, args.shared)
        brains.append(("sqlite", db, ""))
    if args.engine in ("postgres", "both"):
        import pgserver
        import psycopg

        srv = pgserver.get_server(tmp / "pg", cleanup_mode="stop")
        admin = srv.get_uri()
        with psycopg.connect(admin, autocommit=True) as c:
            c.execute("CREATE DATABASE bench")
        db = admin.replace("/postgres?", "/bench?", 1)
        fill(db, tree, args.shared)
        brains.append(("postgres", db, str(tmp / "pg")))
    print(f"brain: {args.pages:,} make_brain pages + {args.shared} named Index + {args.shared} titled 'Index notes N'; "
          f"{args.calls} lookups × 5 per word; loadavg {load()}", flush=True)
    checkouts = [("this", ROOT)] + [(f"base{i}", Path(p).resolve()) for i, p in enumerate(args.baseline)]
    try:
        for engine, db, pgdata in brains:
            for name, co in checkouts:
                got = subprocess.run([sys.executable, "-c", CHILD, db, str(args.calls), json.dumps(WORDS), str(co), pgdata,
                                      str(ROOT / "benchmarks")], capture_output=True, text=True,
                                     env={**os.environ, "PYTHONPATH": str(co)}, cwd=tmp)
                if got.returncode:
                    sys.exit(f"{name} on {engine} failed:\n{got.stderr}")
                out = json.loads(got.stdout.strip().splitlines()[-1])
                print(f"{engine} {name} ({out.pop('module')}), loadavg {load()}")
                for w, r in out.items():
                    print(f"  {w:10} " + "  ".join(f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v}" for k, v in r.items()), flush=True)
    finally:
        if srv is not None:
            srv.cleanup()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
