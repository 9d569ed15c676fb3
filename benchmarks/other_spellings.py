#!/usr/bin/env python3
"""The other spellings of SQLite v77 / Postgres v85 (a word with Arabic harakat indexed bare, a word
with ``đ`` in its ``dj`` spelling: ``keyword.compat_words`` → ``_other_spellings``): their cost on a
real tree, beside a baseline checkout, same run.

* ``import``: a full import of the tree (``--tree``, default obsidian-help) in a fresh process
  without the parse pool (``GBRAIN_PARSE_WORKERS=0``: all its work in that process), this tree and
  the baseline alternated, ``--rounds`` each: CPU-seconds (``RUSAGE_CHILDREN``), wall seconds;
* ``words``: the search columns' functions alone (``search_words``, ``fold_name_words`` and ``search_cjk`` over
  every page's stored columns, as a migration computes them), this tree and the baseline
  alternated in fresh processes, best of ``--rounds``: the added work without the import's noise;
* ``migration``: a brain imported by the baseline (the schema before) opened by this tree (the
  upgrade runs), beside the same brain opened once upgraded: the difference is the migration's
  CPU; and the pages and canvas cards it wrote;
* ``pgmigration``: the same on a private pgserver (``pgserver``): a brain imported by the baseline
  (Postgres v84) opened by this tree, client CPU-s and wall seconds (the server's work is in the wall).

The load average is printed beside the figures (2 shared cores: CPU-seconds are the steadier figure).

    python benchmarks/other_spellings.py --base /tmp/base-checkout [--tree DIR] [--rounds 3] [--parts import,words,migration,pgmigration]

``--base``: a checkout of the commit before (``git archive be725a50 | tar -x -C DIR``).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = next((d / "shared" for d in ROOT.parents if (d / "shared" / "corpora").is_dir()), ROOT.parent / "shared")

IMPORT = """
import sys, time
from gbrain.core.brain import Brain
from gbrain.sync.importer import import_tree
with Brain.open(sys.argv[2], create=True) as b:
    r = import_tree(b, sys.argv[1])
    assert r["ok"], r
"""

WORDS = """
import json, sys, time
from gbrain.search.keyword import fold_name_words, search_cjk, search_words
import sqlite3
conn = sqlite3.connect(sys.argv[1])
rows = conn.execute("SELECT compiled_truth, timeline, frontmatter, title, path, search_aliases, search_words FROM pages").fetchall()
best = None
for _ in range(int(sys.argv[2])):
    t = time.process_time()
    for ct, tl, fm, title, path, aliases, sw in rows:
        search_words(ct or "", tl or "", json.loads(fm) if fm else {}, (title or "", path or ""))
        fold_name_words(title or "", aliases or "")
        search_cjk(title or "", aliases or "", path or "", ct or "", tl or "", sw or "")
    d = time.process_time() - t
    best = d if best is None else min(best, d)
print(json.dumps({"cpu": best, "pages": len(rows)}))
"""

OPEN = """
import json, sys, time
t = time.process_time()
from gbrain.core.brain import Brain
t0, w0 = time.process_time(), time.perf_counter()
with Brain.open(sys.argv[1]) as b:
    if getattr(b.conn, "dialect", "sqlite") == "postgres":
        from gbrain.storage import pg
        v = pg.schema_version(b.conn)
    else:
        v = b.conn.execute("PRAGMA user_version").fetchone()[0]
print(json.dumps({"cpu": time.process_time() - t0, "wall": time.perf_counter() - w0, "version": v}))
"""


def run(code: str, tree: Path, *args: str) -> tuple[float, float, str]:
    """(CPU-s of the child and its children, wall s, stdout) of ``code`` run by ``tree``'s gbrain."""
    env = {**os.environ, "PYTHONPATH": str(tree), "GBRAIN_PARSE_WORKERS": "0"}  # (all the work in the child: a pool's
    # processes ended by the pool are not all counted in RUSAGE_CHILDREN)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code, *args], env=env, check=True, capture_output=True, text=True, cwd=tree).stdout
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime), wall, out


def load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", required=True, type=Path, help="a checkout of the commit before")
    ap.add_argument("--tree", type=Path, default=SHARED / "corpora" / "obsidian-help")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--parts", default="import,words,migration")
    a = ap.parse_args()
    parts = a.parts.split(",")
    sides = {"base": a.base.resolve(), "this": ROOT}
    tmp = Path(tempfile.mkdtemp(prefix="other-spellings-"))
    try:
        brains = {}
        print(f"tree {a.tree}; base {a.base}; load {load()}")
        if "import" in parts or "words" in parts or "migration" in parts:
            cpu: dict[str, list[float]] = {"base": [], "this": []}
            wall: dict[str, list[float]] = {"base": [], "this": []}
            rounds = a.rounds if "import" in parts else 1
            for i in range(rounds):
                for side, tree in (sides.items() if i % 2 == 0 else reversed(sides.items())):
                    brain = tmp / f"{side}-{i}.db"
                    c, w, _ = run(IMPORT, tree, str(a.tree), str(brain))
                    cpu[side].append(c)
                    wall[side].append(w)
                    brains[side] = brain
                    if "import" in parts:
                        print(f"  import round {i} {side}: {c:.2f} CPU-s, {w:.1f} s wall (load {load()})")
            if "import" in parts:
                b, t = statistics.median(cpu["base"]), statistics.median(cpu["this"])
                print(f"import: median CPU base {b:.2f} s, this {t:.2f} s ({t / b:.3f}x, {t - b:+.2f} s); "
                      f"min {min(cpu['base']):.2f} / {min(cpu['this']):.2f} s")
        if "words" in parts:
            got: dict[str, list[float]] = {"base": [], "this": []}
            for i in range(a.rounds):
                for side, tree in (sides.items() if i % 2 == 0 else reversed(sides.items())):
                    _, _, out = run(WORDS, tree, str(brains["this"]), "3")
                    got[side].append(json.loads(out)["cpu"])
            pages = json.loads(out)["pages"]
            b, t = min(got["base"]), min(got["this"])
            print(f"words ({pages} pages, search_words + fold_name_words + search_cjk): best CPU base {b * 1000:.1f} ms, "
                  f"this {t * 1000:.1f} ms ({t - b:+.4f} s; load {load()})")
        if "migration" in parts:
            import sqlite3

            old = brains["base"]
            q = sqlite3.connect(old)
            ver = q.execute("PRAGMA user_version").fetchone()[0]
            before_words = dict(q.execute("SELECT id, search_words || '|' || search_fold_names FROM pages"))
            before_cards = dict(q.execute("SELECT id, words FROM canvas_cards"))
            q.close()
            mig, again = [], []
            for i in range(a.rounds):
                copy = tmp / f"mig-{i}.db"
                shutil.copy(old, copy)
                _, _, out = run(OPEN, ROOT, str(copy))
                r = json.loads(out)
                mig.append(r["cpu"])
                _, _, out2 = run(OPEN, ROOT, str(copy))
                again.append(json.loads(out2)["cpu"])
            q = sqlite3.connect(copy)
            pages = sum(1 for pid, w in q.execute("SELECT id, search_words || '|' || search_fold_names FROM pages") if before_words.get(pid) != w)
            cards = sum(1 for cid, w in q.execute("SELECT id, words FROM canvas_cards") if before_cards.get(cid) != w)
            q.close()
            m, o = statistics.median(mig), statistics.median(again)
            print(f"migration v{ver} -> v{r['version']}: open with the upgrade {m:.3f} CPU-s, open after it {o:.3f} CPU-s: "
                  f"the migration ~{m - o:.3f} CPU-s; pages rewritten {pages} of {len(before_words)}, canvas cards {cards} "
                  f"of {len(before_cards)} (load {load()})")
        if "pgmigration" in parts:
            import pgserver
            import psycopg

            d = tmp / "pg"
            d.mkdir()
            os.chmod(tmp, 0o755)
            os.chmod(d, 0o755)
            srv = pgserver.get_server(str(d), cleanup_mode="stop")
            try:
                up, again = [], []
                for i in range(a.rounds):
                    with psycopg.connect(srv.get_uri(), autocommit=True) as c:
                        c.execute(f"CREATE DATABASE spell_{i}")
                    url = srv.get_uri().replace("/postgres?", f"/spell_{i}?", 1)
                    run(IMPORT, sides["base"], str(a.tree), url)
                    _, _, out = run(OPEN, ROOT, url)
                    up.append(json.loads(out))
                    _, _, out = run(OPEN, ROOT, url)
                    again.append(json.loads(out))
                m = statistics.median(x["cpu"] for x in up)
                o = statistics.median(x["cpu"] for x in again)
                mw = statistics.median(x["wall"] for x in up)
                ow = statistics.median(x["wall"] for x in again)
                print(f"Postgres migration -> v{up[-1]['version']}: the upgrading open {m:.3f} client CPU-s, {mw:.2f} s wall; "
                      f"a second open {o:.3f} CPU-s, {ow:.2f} s wall (median of {a.rounds}; load {load()})")
            finally:
                srv.cleanup()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
