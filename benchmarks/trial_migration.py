#!/usr/bin/env python3
"""The Obsidian-trial migration (SQLite v17 / Postgres v15) beside a floor, same run.

A make_brain.py brain of ``--pages`` pages is imported twice: as generated (``none``: no footnote,
``tag:`` key, ``$…#`` or frontmatter error, so the migration's selection finds no page) and with
``--share`` of its pages given one of the shapes the fixes change (``some``: a footnote, a
singular ``tag:`` key, inline math with a ``#``, or an impossible date, in turn). The
migration's step (``db.rederive_trial_pages``: the selection query, a parse of each selected
page, its derived columns and rows rewritten, every link resolved again) is timed in its own
transaction, in CPU-seconds of this process (no pool runs) and wall seconds, best of
``--runs``. The floor, measured alternately with it: one read of every page's text
(``SELECT id, compiled_truth, timeline, frontmatter, title, path FROM pages``), what a
re-derivation of all pages must at least do. Target: ``none`` ≤ 2× the floor (it selects and
writes nothing); ``some`` grows with the selected pages only (a full re-derivation parses all).

On Postgres (``--postgres``: a private pgserver) the selection runs in the server (its CPU is
not this process's: wall seconds are the figure there). The load average is printed beside them.

    python benchmarks/trial_migration.py [--pages 2000] [--share 0.05] [--runs 3] [--postgres]
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
from gbrain.storage import db as dbmod  # noqa: E402
from gbrain.sync.importer import import_tree  # noqa: E402

SHARED = next((d / "shared" for d in ROOT.parents if (d / "shared" / "tools").is_dir()), ROOT.parent / "shared")
SHAPES = [
    ("body", "\n\nA claim.[^1]\n\n[^1]: Roadmap, see [[Elsewhere]]\n"),
    ("fm", "tag: trial-tag\n"),
    ("body", "\n\nEnergy $E = mc^2 #mathtag$ here.\n"),
    ("fm", "created: 2024-02-30\n"),
]


def spoil(tree: Path, share: float, seed: int = 1) -> int:
    """Give ``share`` of the pages one of :data:`SHAPES` (in turn): a body shape is appended to
    the compiled truth (before any timeline), a frontmatter line is added to the frontmatter
    (one is made when the page has none)."""
    rng = random.Random(seed)
    n = 0
    for p in sorted(tree.rglob("*.md")):
        if rng.random() >= share:
            continue
        kind, add = SHAPES[n % len(SHAPES)]
        t = p.read_text(encoding="utf-8")
        has_fm = t.startswith("---\n") and t.find("\n---\n", 3) >= 0
        if kind == "fm":
            t = "---\n" + add + t[4:] if has_fm else "---\n" + add + "---\n" + t
        else:
            start = t.find("\n---\n", 3) + 5 if has_fm else 0
            i = t.find("\n---\n", start)
            t = t + add if i < 0 else t[:i] + add + t[i:]
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


def run_one(b: Brain, runs: int) -> dict:
    conn = b.conn
    best = {"floor": (9e9, 9e9), "migration": (9e9, 9e9)}
    parsed = 0
    for _ in range(runs):
        cf, wf, _n = timed(lambda: floor(conn))
        best["floor"] = min(best["floor"], (cf, wf))
        with b.transaction():
            cm, wm, parsed = timed(lambda: dbmod.rederive_trial_pages(conn))
        best["migration"] = min(best["migration"], (cm, wm))
    return {"best": best, "parsed": parsed}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", type=int, default=2000)
    ap.add_argument("--share", type=float, default=0.05)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--postgres", action="store_true")
    a = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="gbrain-trial-"))
    srv = None
    try:
        base = tmp / "made"
        subprocess.run([sys.executable, str(SHARED / "tools" / "make_brain.py"), str(base), "--pages", str(a.pages)], check=True, capture_output=True)
        some = tmp / "some"
        shutil.copytree(base, some)
        n_some = spoil(some, a.share)
        if a.postgres:
            import pgserver

            d = tmp / "pg"
            d.mkdir()
            os.chmod(tmp, 0o755)
            os.chmod(d, 0o755)
            srv = pgserver.get_server(str(d), cleanup_mode="stop")
        print(f"load average at start: {os.getloadavg()[0]:.2f}   pages: {a.pages}   with a trial shape in 'some': {n_some}")
        print(f"{'engine':<9} {'brain':<6} {'parsed':>7} {'floor CPU-s':>12} {'migr. CPU-s':>12} {'CPU ratio':>10} {'floor wall-s':>13} {'migr. wall-s':>13}  target")
        for engine in ["sqlite"] + (["postgres"] if srv else []):
            for name, tree in (("none", base), ("some", some)):
                if engine == "sqlite":
                    db = tmp / f"{name}.db"
                else:
                    import psycopg

                    with psycopg.connect(srv.get_uri(), autocommit=True) as c:
                        c.execute(f"CREATE DATABASE trial_{name}")
                    db = srv.get_uri().replace("/postgres?", f"/trial_{name}?", 1)
                with Brain.open(db) as b:
                    import_tree(b, tree)
                    r = run_one(b, a.runs)
                (cf, wf), (cm, wm) = r["best"]["floor"], r["best"]["migration"]
                target = "none ≤ 2× floor" if name == "none" else ""
                print(f"{engine:<9} {name:<6} {r['parsed']:>7} {cf:>12.4f} {cm:>12.4f} {cm / max(cf, 1e-9):>9.2f}x {wf:>13.4f} {wm:>13.4f}  {target}")
        print(f"load average at end: {os.getloadavg()[0]:.2f}")
    finally:
        if srv is not None:
            from gbrain.storage.pg import close_pools

            close_pools()
            srv.cleanup()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
