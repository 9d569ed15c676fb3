#!/usr/bin/env python3
"""SQLite v79 / Postgres v87 (``keyword.search_text``: HTML tags a reader does not see left out of
the index, words written with Arabic vowel marks or tatweel bare in place): its cost and effect on
real trees, beside a baseline checkout, same run.

* ``import``: a full import of ``--tree`` (default obsidian-help, which has Arabic pages) in a fresh
  process without the parse pool (``GBRAIN_PARSE_WORKERS=0``), this tree and the baseline
  alternated, ``--rounds`` each: CPU-seconds (``RUSAGE_CHILDREN``);
* ``size``: the keyword index of each side's brain: ``page_fts``' shadow tables' bytes (``dbstat``)
  after ``VACUUM``, the pages with ``search_body`` set, ``search_words``' bytes;
* ``text``: ``search_text`` of each page's compiled truth and timeline and ``search_words`` over the
  stored pages (``unread=None``: the parse's code blocks looked for again), this tree and the baseline
  alternated, best of 3 in each of ``--rounds`` processes: the added work without the import's noise;
* ``counts``: each side's hits (``keyword.search``, limit 1000) for ``--queries`` (default
  ``footer,span,button,git-footer``) and, on the new side, each first hit's snippet marked or not;
* ``migration``: a brain imported by the baseline opened by this tree (the upgrade runs) beside the
  same brain opened again: the migration's CPU; the pages whose ``search_body``/``search_words``
  changed;
* ``pgmigration``: the same on a private pgserver: client CPU-s, the server's CPU (the postmaster's
  reaped children, ``/proc/PID/stat`` ``cutime + cstime``, read after each client exited) and wall.

The load average is printed beside the figures (2 shared cores: CPU-seconds are the steadier figure).

    python benchmarks/unread_bare_text.py --base /tmp/base-checkout [--tree DIR] [--rounds 3] [--parts import,size,counts,migration,pgmigration]

``--base``: a checkout of the commit before (``git archive 3ef4d13a | tar -x -C DIR``).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = next((d / "shared" for d in ROOT.parents if (d / "shared" / "corpora").is_dir()), ROOT.parent / "shared")

IMPORT = """
import sys
from gbrain.core.brain import Brain
from gbrain.sync.importer import import_tree
with Brain.open(sys.argv[2], create=True) as b:
    r = import_tree(b, sys.argv[1])
    assert r["ok"], r
"""

OPEN = """
import json, sys, time
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

TEXT = """
import json, sys, time
import sqlite3
from gbrain.search.keyword import search_text, search_words
conn = sqlite3.connect(sys.argv[1])
rows = conn.execute("SELECT compiled_truth, timeline, frontmatter, title, path FROM pages").fetchall()
best = None
for _ in range(int(sys.argv[2])):
    t = time.process_time()
    for ct, tl, fm, title, path in rows:
        search_text(ct or "")
        search_text(tl or "")
        search_words(ct or "", tl or "", json.loads(fm) if fm else {}, (title or "", path or ""))
    d = time.process_time() - t
    best = d if best is None else min(best, d)
print(json.dumps({"cpu": best, "pages": len(rows)}))
"""

COUNTS = """
import json, sys
from gbrain.core.brain import Brain
from gbrain.search import keyword
out = {}
with Brain.open(sys.argv[1]) as b:
    for q in sys.argv[2].split(","):
        hits = keyword.search(b.conn, q, limit=1000)
        out[q] = [len(hits), sum(1 for h in hits if h.get("highlights"))]
print(json.dumps(out))
"""


def run(code: str, tree: Path, *args: str) -> tuple[float, float, str]:
    """(CPU-s of the child, wall s, stdout) of ``code`` run by ``tree``'s gbrain."""
    env = {**os.environ, "PYTHONPATH": str(tree), "GBRAIN_PARSE_WORKERS": "0"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code, *args], env=env, check=True, capture_output=True, text=True, cwd=tree).stdout
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime), wall, out


def load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def fts_bytes(path: Path) -> dict:
    c = sqlite3.connect(path)
    c.execute("VACUUM")
    try:
        fts = c.execute("SELECT sum(pgsize) FROM dbstat WHERE name LIKE 'page_fts_%'").fetchone()[0]
    except sqlite3.OperationalError:
        fts = None
    body = c.execute("SELECT count(*) FROM pages WHERE search_body IS NOT NULL").fetchone()[0]
    words = c.execute("SELECT sum(length(CAST(search_words AS BLOB))) FROM pages").fetchone()[0]
    pages = c.execute("SELECT count(*) FROM pages").fetchone()[0]
    c.close()
    return {"fts": fts, "file": path.stat().st_size, "body": body, "words": words, "pages": pages}


def server_cpu(datadir: Path) -> float:
    pid = int((datadir / "postmaster.pid").read_text().split()[0])
    f = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(f[13]) + int(f[14]) + int(f[15]) + int(f[16])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", required=True, type=Path, help="a checkout of the commit before")
    ap.add_argument("--tree", type=Path, default=SHARED / "corpora" / "obsidian-help")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--parts", default="import,size,counts,migration")
    ap.add_argument("--queries", default="footer,span,button,git-footer")
    a = ap.parse_args()
    parts = a.parts.split(",")
    sides = {"base": a.base.resolve(), "this": ROOT}
    tmp = Path(tempfile.mkdtemp(prefix="unread-bare-"))
    try:
        brains: dict[str, Path] = {}
        print(f"tree {a.tree}; base {a.base}; load {load()}")
        cpu: dict[str, list[float]] = {"base": [], "this": []}
        rounds = a.rounds if "import" in parts else 1
        if set(parts) & {"import", "size", "counts", "migration", "text"}:
            for i in range(rounds):
                for side, tree in (sides.items() if i % 2 == 0 else reversed(sides.items())):
                    brain = tmp / f"{side}-{i}.db"
                    c, w, _ = run(IMPORT, tree, str(a.tree), str(brain))
                    cpu[side].append(c)
                    brains[side] = brain
                    if "import" in parts:
                        print(f"  import round {i} {side}: {c:.2f} CPU-s, {w:.1f} s wall (load {load()})")
        if "import" in parts:
            b, t = statistics.median(cpu["base"]), statistics.median(cpu["this"])
            print(f"import: median CPU base {b:.2f} s, this {t:.2f} s ({t / b:.3f}x, {t - b:+.2f} s); "
                  f"min {min(cpu['base']):.2f} / {min(cpu['this']):.2f} s")
        if "text" in parts:
            got: dict[str, list[float]] = {"base": [], "this": []}
            for i in range(a.rounds):
                for side, tree in (sides.items() if i % 2 == 0 else reversed(sides.items())):
                    _, _, out = run(TEXT, tree, str(brains["this"]), "3")
                    got[side].append(json.loads(out)["cpu"])
            b, t = min(got["base"]), min(got["this"])
            print(f"text ({json.loads(out)['pages']} pages, search_text of each part + search_words): best CPU base {b * 1000:.1f} ms, "
                  f"this {t * 1000:.1f} ms ({t / b:.3f}x, {t - b:+.4f} s; load {load()})")
        if "counts" in parts:
            for side, tree in sides.items():
                _, _, out = run(COUNTS, tree, str(brains[side]), a.queries)
                print(f"counts {side}: " + ", ".join(f"{q}: {n} hits ({m} with a marked snippet)" for q, (n, m) in json.loads(out).items()))
        if "size" in parts:
            for side in sides:
                copy = tmp / f"size-{side}.db"
                shutil.copy(brains[side], copy)
                s = fts_bytes(copy)
                print(f"size {side}: page_fts {s['fts']:,} bytes, file {s['file']:,} bytes, pages with search_body {s['body']} of {s['pages']}, "
                      f"search_words {s['words']:,} bytes")
        if "migration" in parts:
            old = brains["base"]
            q = sqlite3.connect(old)
            ver = q.execute("PRAGMA user_version").fetchone()[0]
            before = dict(q.execute("SELECT id, coalesce(search_body, '') || '|' || coalesce(search_timeline, '') || '|' || search_words FROM pages"))
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
            changed = sum(1 for pid, w in q.execute("SELECT id, coalesce(search_body, '') || '|' || coalesce(search_timeline, '') || '|' || search_words FROM pages")
                          if before.get(pid) != w)
            q.close()
            m, o = statistics.median(mig), statistics.median(again)
            print(f"migration v{ver} -> v{r['version']}: open with the upgrade {m:.3f} CPU-s, open after it {o:.3f} CPU-s: "
                  f"the migration ~{m - o:.3f} CPU-s; pages changed {changed} of {len(before)} (load {load()})")
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
                        c.execute(f"CREATE DATABASE unread_{i}")
                    url = srv.get_uri().replace("/postgres?", f"/unread_{i}?", 1)
                    run(IMPORT, sides["base"], str(a.tree), url)
                    for into in (up, again):
                        time.sleep(0.5)
                        s0 = server_cpu(d)
                        _, _, out = run(OPEN, ROOT, url)
                        time.sleep(0.5)  # (the backend's exit reaped by the postmaster)
                        into.append({**json.loads(out), "server": server_cpu(d) - s0})
                def med(xs, k):
                    return statistics.median(x[k] for x in xs)
                print(f"Postgres migration -> v{up[-1]['version']}: the upgrading open {med(up, 'cpu'):.3f} client CPU-s, "
                      f"{med(up, 'server'):.2f} server CPU-s, {med(up, 'wall'):.2f} s wall; a second open {med(again, 'cpu'):.3f} client CPU-s, "
                      f"{med(again, 'server'):.2f} server CPU-s, {med(again, 'wall'):.2f} s wall (median of {a.rounds}; load {load()})")
            finally:
                srv.cleanup()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
