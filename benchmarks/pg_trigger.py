#!/usr/bin/env python3
"""The cost of Postgres' search trigger (``pages_search_tsv``: every page write builds the page's
tsvectors) under each schema's functions, in one run, on a make_brain.py brain and obsidian-help.

Each measure is one ``UPDATE pages SET search_headings = search_headings`` (every page indexed
again: the statement v70/v81 migrate with) in a transaction rolled back, the trigger's functions
put in place inside it (``CREATE OR REPLACE``, rolled back too), ``VACUUM pages`` between; rounds
interleaved, each round in another order of the variants:

* ``v80``: the trigger before stop words were indexed (``pg_v70.sql``: 'english' stems only but
  the aliases' and path's stop words);
* ``v81``: ``pg_v81.sql``'s trigger with ``pg_v57.sql``'s ``gb_alias_tsv`` (an SQL function asking
  'english' about each distinct lexeme);
* ``v82``: ``pg_v82.sql``'s ``gb_alias_tsv`` (plpgsql, a fixed stop-word list; as edited after
  release: a field over 200,000 bytes indexed by 'english' alone, which changes nothing here);
* ``now``: the brain's own functions (since ``gb_stop_long`` came, a field over 200,000 bytes takes its stop
  words piece by piece; a shorter one as ``v82``);
* ``floor``: ``UPDATE pages SET search_len = search_len`` (the trigger does not fire: the row
  write alone).

Figures: the server backend's CPU seconds (``/proc/PID/stat`` of ``pg_backend_pid()``: the server
runs on this machine) and wall seconds, min and median over the rounds, with the load average.

``--check``: every page's ``search_tsv``, ``search_names_tsv`` and ``search_len`` under the v81
functions and under the brain's own, compared; then the brain re-indexed under v81 and set back to
v81 (``gbrain_schema``), ~100 queries searched (title words, pairs, prefixes, phrases and the words
'english' drops: ``before``, ``after``, ``now``, ``don't``, ``the``, ``an*``…) with unrounded
scores, the brain opened by this checkout (the v82 migration), the same queries searched again:
the pages and scores must be the same (to 9 decimals).

    python benchmarks/pg_trigger.py [--pages 2000] [--rounds 5] [--check] [--corpus obsidian-help]
"""
from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gbrain.core.brain import Brain  # noqa: E402
from gbrain.search import keyword  # noqa: E402
from gbrain.sync.importer import import_tree  # noqa: E402

SHARED = next((d / "shared" for d in ROOT.parents if (d / "shared" / "tools").is_dir()), ROOT.parent / "shared")
SQL = ROOT / "gbrain" / "storage" / "sql"
REINDEX = "UPDATE pages SET search_headings = search_headings"
FLOOR = "UPDATE pages SET search_len = search_len"
STOP_QUERIES = ["before", "after", "now", "don't", "the", "an*", "it's", "what", "how", "not", "will", "can",
                "before after", "do*", "now*", "the*", "it*", "should", "most", "own", "than", "here",
                "how to", "what is", "before you", "after the", "here and now", "don't do", "only", "no"]


def function_sql(version: int, name: str) -> str:
    """The ``CREATE OR REPLACE FUNCTION name`` statement of ``pg_v{version}.sql``."""
    text = (SQL / f"pg_v{version}.sql").read_text(encoding="utf-8")
    m = re.search(rf"CREATE OR REPLACE FUNCTION {name}\(.*?\$\$.*?\$\$;", text, re.S)
    assert m, (version, name)
    return m.group(0)


VARIANTS = {
    "v80": [function_sql(70, "pages_search_tsv_fn")],
    "v81": [function_sql(57, "gb_alias_tsv"), function_sql(81, "pages_search_tsv_fn")],
    "v82": [function_sql(82, "gb_alias_tsv")],
    "now": [],
}


def backend_cpu(c) -> float:
    pid = c.execute("SELECT pg_backend_pid()").fetchone()[0]
    f = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")


def measure(url: str, variant: str) -> tuple[float, float]:
    """(server CPU s, wall s) of one re-index of every page under ``variant``'s functions."""
    import psycopg

    with psycopg.connect(url) as c:
        for sql in VARIANTS.get(variant, []):
            c.execute(sql)
        c0, w0 = backend_cpu(c), time.perf_counter()
        c.execute(FLOOR if variant == "floor" else REINDEX)
        out = backend_cpu(c) - c0, time.perf_counter() - w0
        c.rollback()
    with psycopg.connect(url, autocommit=True) as c:
        c.execute("VACUUM pages")
    return out


def queries(url: str) -> list[str]:
    """~100 queries: title words and pairs, prefixes, phrases, and words 'english' drops."""
    with Brain.open(url) as b:
        titles = [r[0] for r in b.conn.execute("SELECT title FROM pages ORDER BY id")]
    rnd = random.Random(11)
    out = []
    for t in rnd.sample(titles, min(50, len(titles))):
        w = t.split()
        out.append(" ".join(w[:2]) if len(w) > 1 and rnd.random() < 0.5 else w[0])
    out += [f'"{q}"' if " " in q else f"{q[:max(3, len(q) - 2)]}*" for q in out[:20]]
    return out + STOP_QUERIES


def answers(url: str, qs: list[str], schema: int | None = None) -> dict:
    """``{query: [(slug, score to 9 decimals)]}`` of ``search`` (scores unrounded); ``schema``: the
    brain opened as by a gbrain of that schema version (no migration)."""
    from gbrain.storage import pg

    real, version = keyword.score_value, pg.PG_SCHEMA_VERSION
    keyword.score_value = lambda x: x
    pg.PG_SCHEMA_VERSION = schema or version
    try:
        with Brain.open(url) as b:
            return {q: [(h["slug"], round(h["score"], 9)) for h in keyword.search(b.conn, q, limit=20)] for q in qs}
    finally:
        keyword.score_value, pg.PG_SCHEMA_VERSION = real, version


def check(url: str) -> None:
    """Print how many pages' vectors and queries' answers differ between v81's functions and the
    brain's (see the module's docstring)."""
    import psycopg

    cols = "SELECT id, search_tsv::text, search_names_tsv::text, search_len FROM pages ORDER BY id"
    with psycopg.connect(url) as c:
        for sql in VARIANTS["v81"]:
            c.execute(sql)
        c.execute(REINDEX)
        old = c.execute(cols).fetchall()
        c.rollback()
        c.execute(REINDEX)
        new = c.execute(cols).fetchall()
        c.rollback()
    diff = sum(a != b for a, b in zip(old, new)) + abs(len(old) - len(new))
    print(f"  vectors: {len(old):,} pages, {diff} differ between v81's functions and the brain's", flush=True)
    qs = queries(url)
    # the brain as v81 leaves it (its functions, every page indexed by them, its version), searched
    with psycopg.connect(url) as c:
        for sql in VARIANTS["v81"]:
            c.execute(sql)
        c.execute(REINDEX)
        c.execute("DELETE FROM gbrain_schema WHERE version > 81")
        c.commit()
    before = answers(url, qs, schema=81)
    with Brain.open(url) as b:  # the migration from v81, then every page indexed by its functions
        v = b.conn.execute("SELECT max(version) FROM gbrain_schema").fetchone()[0]
    with psycopg.connect(url) as c:
        c.execute(REINDEX)
        c.commit()
    after = answers(url, qs)
    bad = [q for q in qs if before[q] != after[q]]
    print(f"  search v81 → v{v}: {len(qs) - len(bad)}/{len(qs)} queries the same pages and scores "
          f"({sum(bool(a) for a in after.values())} with hits, {sum(len(a) for a in after.values())} hits; "
          f"{len(STOP_QUERIES)} of words 'english' drops, {sum(bool(after[q]) for q in STOP_QUERIES)} with hits)", flush=True)
    for q in bad[:10]:
        print(f"    differs: {q!r}: {before[q][:3]} → {after[q][:3]}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--corpus", action="append", help="a tree under ../shared/corpora (default obsidian-help), besides make_brain")
    ap.add_argument("--check", action="store_true", help="compare vectors and ~100 queries' answers, v81 against the brain's")
    args = ap.parse_args()
    import pgserver
    import psycopg

    tmp = Path(tempfile.mkdtemp(prefix="gbrain-pgtrig-"))
    os.chmod(tmp, 0o755)
    srv = pgserver.get_server(tmp / "pg", cleanup_mode="delete")
    admin = srv.get_uri()
    with psycopg.connect(admin, autocommit=True) as c:
        c.execute("ALTER SYSTEM SET fsync = off")
        c.execute("SELECT pg_reload_conf()")
    trees = []
    mb = tmp / "make_brain"
    subprocess.run([sys.executable, str(SHARED / "tools" / "make_brain.py"), str(mb), "--pages", str(args.pages)], check=True, capture_output=True)
    trees.append((f"make_brain-{args.pages}", mb))
    for name in args.corpus or ["obsidian-help"]:
        trees.append((name, SHARED / "corpora" / name))
    with psycopg.connect(admin) as c:
        print(f"Postgres {c.execute('SHOW server_version').fetchone()[0]}; loadavg {os.getloadavg()[0]:.1f}", flush=True)
    for i, (name, tree) in enumerate(trees):
        with psycopg.connect(admin, autocommit=True) as c:
            c.execute(f"CREATE DATABASE t{i}")
        url = admin.replace("/postgres?", f"/t{i}?", 1)
        with Brain.open(url, create=True) as b:
            import_tree(b, tree)
            n = b.conn.execute("SELECT count(*) FROM pages").fetchone()[0]
        print(f"{name}: {n:,} pages", flush=True)
        res: dict[str, list[tuple[float, float]]] = {v: [] for v in ("floor", *VARIANTS)}
        order = list(res)
        for r in range(args.rounds):
            for v in order[r % len(order):] + order[: r % len(order)]:
                res[v].append(measure(url, v))
        for v, ms in res.items():
            cpu = sorted(m[0] for m in ms)
            wall = sorted(m[1] for m in ms)
            print(f"  {v:6s} server CPU s min {cpu[0]:6.2f} median {statistics.median(cpu):6.2f}   "
                  f"wall s min {wall[0]:6.2f} median {statistics.median(wall):6.2f}", flush=True)
        print(f"  (loadavg {os.getloadavg()[0]:.1f}; {args.rounds} rounds, interleaved)", flush=True)
        if args.check:
            check(url)
    srv.cleanup()
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
