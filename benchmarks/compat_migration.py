#!/usr/bin/env python3
"""The compatibility-words migration (SQLite v15 / Postgres v13) beside a floor, same run.

A make_brain.py brain of ``--pages`` pages is imported twice: as generated (``none``: its text is
NFKC, so no page needs work) and with ``--share`` of its pages given compatibility characters
(``some``: a ligature, full-width letters and a superscript appended to the compiled truth). For
each, the brain's ``search_words`` are set back to what the schema before stored (the NFKC words
dropped: :func:`old_words`) and the migration's step (``db.rederive_compat_words``) is timed in
its own transaction, in CPU-seconds of this process (no pool runs) and wall seconds, best of
``--runs``. The floor, measured alternately with it: one read of every page's text
(``SELECT id, compiled_truth, timeline, frontmatter, title, path FROM pages``), what any
re-derivation must at least do on SQLite. Target: ``none`` ≤ 2× the floor (it reads and
checks, writes nothing); ``some`` grows with the pages that changed only.

On Postgres (``--postgres``: a private pgserver) the migration selects the pages with
``IS NFKC NORMALIZED`` in the server, so the figure is mostly the server's scan (its CPU is not
this process's: wall seconds are the figure there). The load average is printed beside them.

    python benchmarks/compat_migration.py [--pages 2000] [--share 0.05] [--runs 3] [--postgres]
"""
from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gbrain.core.brain import Brain  # noqa: E402
from gbrain.search.keyword import compat_words  # noqa: E402
from gbrain.storage import db as dbmod  # noqa: E402
from gbrain.sync.importer import import_tree  # noqa: E402

SHARED = next((d / "shared" for d in ROOT.parents if (d / "shared" / "tools").is_dir()), ROOT.parent / "shared")
COMPAT = "\n\nCopied from a PDF: the ﬁnancial ﬂow of ＧＰＴ４ in ｍｅｅｔｉｎｇｓ, x² ②.\n"


def old_words(conn) -> None:
    """``search_words`` as the schema before v15 / v13 stored them: without the NFKC words."""
    rows = conn.execute("SELECT id, search_words FROM pages").fetchall()
    for pid, words in rows:
        ws = words.split(" ") if words else []
        drop = set(compat_words(COMPAT))
        kept = " ".join(w for w in ws if w not in drop)
        if kept != words:
            conn.execute("UPDATE pages SET search_words = ? WHERE id = ?", (kept, pid))


def spoil(tree: Path, share: float, seed: int = 1) -> int:
    """Append :data:`COMPAT` to the compiled truth (before any timeline) of ``share`` of the pages."""
    rng = random.Random(seed)
    pages = sorted(p for p in tree.rglob("*.md"))
    n = 0
    for p in pages:
        if rng.random() >= share:
            continue
        t = p.read_text(encoding="utf-8")
        i = t.find("\n---\n", t.find("\n---\n") + 1 if t.startswith("---\n") else 0)
        t = t + COMPAT if i < 0 else t[:i] + COMPAT + t[i:]
        p.write_text(t, encoding="utf-8")
        n += 1
    return n


def floor(conn) -> int:
    n = 0
    for r in conn.execute("SELECT id, compiled_truth, timeline, frontmatter, title, path FROM pages"):
        n += len(r[1])
    return n


def timed(fn) -> tuple[float, float, object]:
    c, w = time.process_time(), time.perf_counter()
    out = fn()
    return time.process_time() - c, time.perf_counter() - w, out


def run_one(b: Brain, runs: int, migrate, prepare=None) -> dict:
    """Best of ``runs`` (CPU-s, wall-s) of the read floor and of ``migrate(conn)`` (its result:
    how many pages it changed or parsed), each migration after ``prepare(conn)`` (undoing the
    last one) when given."""
    conn = b.conn
    best = {"floor": (9e9, 9e9), "migration": (9e9, 9e9)}
    count = 0
    for _ in range(runs):
        cf, wf, _n = timed(lambda: floor(conn))
        best["floor"] = min(best["floor"], (cf, wf))
        if prepare is not None:
            with b.transaction():
                prepare(conn)
        with b.transaction():
            cm, wm, count = timed(lambda: migrate(conn))
        best["migration"] = min(best["migration"], (cm, wm))
    return {"best": best, "count": count}


def measure(doc: str, spoil_tree, migrate, *, prepare=None, what: str, count_label: str, name: str) -> None:
    """The command line of a migration benchmark: a make_brain.py brain imported as generated
    (``none``) and with ``--share`` of its pages changed by ``spoil_tree(tree, share)`` (``some``),
    on SQLite and (``--postgres``) a private pgserver; prints ``migrate``'s cost beside the read
    floor per engine and brain. ``what`` names the spoiled pages, ``count_label`` the count
    column, ``name`` the temp folder and database names."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--pages", type=int, default=2000)
    ap.add_argument("--share", type=float, default=0.05)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--postgres", action="store_true")
    a = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix=f"gbrain-{name}-"))
    srv = None
    try:
        base = tmp / "made"
        subprocess.run([sys.executable, str(SHARED / "tools" / "make_brain.py"), str(base), "--pages", str(a.pages)], check=True, capture_output=True)
        some = tmp / "some"
        shutil.copytree(base, some)
        n_some = spoil_tree(some, a.share)
        if a.postgres:
            import pgserver

            d = tmp / "pg"
            d.mkdir()
            os.chmod(tmp, 0o755)
            os.chmod(d, 0o755)
            srv = pgserver.get_server(str(d), cleanup_mode="stop")
        w = max(7, len(count_label))
        print(f"load average at start: {os.getloadavg()[0]:.2f}   pages: {a.pages}   {what} in 'some': {n_some}")
        print(f"{'engine':<9} {'brain':<6} {count_label:>{w}} {'floor CPU-s':>12} {'migr. CPU-s':>12} {'CPU ratio':>10} {'floor wall-s':>13} {'migr. wall-s':>13}  target")
        for engine in ["sqlite"] + (["postgres"] if srv else []):
            for brain_name, tree in (("none", base), ("some", some)):
                if engine == "sqlite":
                    db = tmp / f"{brain_name}.db"
                else:
                    import psycopg

                    with psycopg.connect(srv.get_uri(), autocommit=True) as c:
                        c.execute(f"CREATE DATABASE {name}_{brain_name}")
                    db = srv.get_uri().replace("/postgres?", f"/{name}_{brain_name}?", 1)
                with Brain.open(db) as b:
                    import_tree(b, tree)
                    r = run_one(b, a.runs, migrate, prepare)
                (cf, wf), (cm, wm) = r["best"]["floor"], r["best"]["migration"]
                target = "none ≤ 2× floor" if brain_name == "none" else ""
                print(f"{engine:<9} {brain_name:<6} {r['count']:>{w}} {cf:>12.4f} {cm:>12.4f} {cm / max(cf, 1e-9):>9.2f}x {wf:>13.4f} {wm:>13.4f}  {target}")
        print(f"load average at end: {os.getloadavg()[0]:.2f}")
    finally:
        if srv is not None:
            from gbrain.storage.pg import close_pools

            close_pools()
            srv.cleanup()
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> None:
    measure(__doc__, spoil, dbmod.rederive_compat_words, prepare=old_words, what="with compatibility characters", count_label="changed", name="compat")


if __name__ == "__main__":
    main()
