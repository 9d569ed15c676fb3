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
  (Postgres v84) opened by this tree: client CPU-s, the server's CPU-s and wall seconds
  (``_migration.pg_migration``, shared with ``unread_bare_text.py``).

The load average is printed beside the figures (2 shared cores: CPU-seconds are the steadier figure).

    python benchmarks/other_spellings.py --base /tmp/base-checkout [--tree DIR] [--rounds 3] [--parts import,words,migration,pgmigration]

``--base``: a checkout of the commit before (``git archive be725a50 | tar -x -C DIR``).
"""
from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

from _migration import ROOT, imports, load, parser, pg_migration, print_imports, print_pg_migration, run, sqlite_migration

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

def main() -> None:
    ap = parser(__doc__, "import,words,migration")
    a = ap.parse_args()
    parts = a.parts.split(",")
    sides = {"base": a.base.resolve(), "this": ROOT}
    tmp = Path(tempfile.mkdtemp(prefix="other-spellings-"))
    try:
        brains = {}
        print(f"tree {a.tree}; base {a.base}; load {load()}")
        if "import" in parts or "words" in parts or "migration" in parts:
            brains, cpu = imports(sides, a.tree, tmp, a.rounds if "import" in parts else 1, "import" in parts)
            if "import" in parts:
                print_imports(cpu)
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
            m = sqlite_migration(brains["base"], tmp, a.rounds, {"pages": "SELECT id, search_words || '|' || search_fold_names FROM pages",
                                                                  "cards": "SELECT id, words FROM canvas_cards"})
            print(f"migration v{m['from']} -> v{m['to']}: open with the upgrade {m['upgrade']:.3f} CPU-s, open after it {m['again']:.3f} CPU-s: "
                  f"the migration ~{m['upgrade'] - m['again']:.3f} CPU-s; pages rewritten {m['changed']['pages']} of {m['total']['pages']}, "
                  f"canvas cards {m['changed']['cards']} of {m['total']['cards']} (load {load()})")
        if "pgmigration" in parts:
            print_pg_migration(pg_migration(sides["base"], a.tree, tmp, a.rounds, "spell"))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
