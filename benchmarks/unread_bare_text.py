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

import json
import shutil
import sqlite3
import tempfile
from pathlib import Path

from _migration import ROOT, imports, load, parser, pg_migration, print_imports, print_pg_migration, run, sqlite_migration

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


def main() -> None:
    ap = parser(__doc__, "import,size,counts,migration")
    ap.add_argument("--queries", default="footer,span,button,git-footer")
    a = ap.parse_args()
    parts = a.parts.split(",")
    sides = {"base": a.base.resolve(), "this": ROOT}
    tmp = Path(tempfile.mkdtemp(prefix="unread-bare-"))
    try:
        print(f"tree {a.tree}; base {a.base}; load {load()}")
        brains: dict[str, Path] = {}
        if set(parts) & {"import", "size", "counts", "migration", "text"}:
            brains, cpu = imports(sides, a.tree, tmp, a.rounds if "import" in parts else 1, "import" in parts)
            if "import" in parts:
                print_imports(cpu)
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
            m = sqlite_migration(brains["base"], tmp, a.rounds,
                                 {"pages": "SELECT id, coalesce(search_body, '') || '|' || coalesce(search_timeline, '') || '|' || search_words FROM pages"})
            print(f"migration v{m['from']} -> v{m['to']}: open with the upgrade {m['upgrade']:.3f} CPU-s, open after it {m['again']:.3f} CPU-s: "
                  f"the migration ~{m['upgrade'] - m['again']:.3f} CPU-s; pages changed {m['changed']['pages']} of {m['total']['pages']} (load {load()})")
        if "pgmigration" in parts:
            print_pg_migration(pg_migration(sides["base"], a.tree, tmp, a.rounds, "unread"))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
