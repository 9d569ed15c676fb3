#!/usr/bin/env python3
"""What a no-change ``sync`` costs, and what each of its two fixed regressions cost (issue 14's
bar: no-change sync ≤ 1 s at 50,000 pages).

One brain, one process, the four variants interleaved round by round (so load changes hit them
alike), CPU of each round from :mod:`treecpu` (a no-change round starts no parse pool; the meter
would count it):

* ``shipped``: the code as it is;
* ``planner's join order``: ``SyncEngine._unchanged``'s join of ``sync_state`` with
  pages/files without its ``ORDER BY s.path``: SQLite then walks the (client, file_id) index,
  inode order, and probes the pages' (path, hash) index at random (2026-12-01's move pairing
  added that index; the no-change join took it from then on);
* ``files asked``: the ignore matcher asked about every file as well as every folder (a matcher
  of folder and name patterns, the defaults among them, cannot match a file whose folders it did
  not match unless a name pattern matches its name: ``walk_tree`` now screens the name first);
* ``both`` (as before the fix): the baseline the ratios are against.

Prints the median and minimum CPU per variant, each as a ratio to ``both``, and the target.

    python benchmarks/nochange_sync.py [--pages 50000] [--rounds 9]
    python benchmarks/nochange_sync.py --tree DIR --db BRAIN.db   (a brain imported from DIR; it is
                                                                   bound to DIR, rebinding it)
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import treecpu  # noqa: E402

from gbrain.core.brain import Brain  # noqa: E402
from gbrain.sync import engine as engine_mod  # noqa: E402
from gbrain.sync.importer import import_tree  # noqa: E402

TARGET_MS = 1000
ORDER = " ORDER BY s.path"
VARIANTS = {"shipped": (True, True), "planner's join order": (False, True), "files asked": (True, False), "both (before)": (False, False)}


def make_tree(pages: int, tmp: Path) -> tuple[Path, Path]:
    """A make_brain.py tree of ``pages`` pages under ``tmp`` and a brain imported from it."""
    tool = next((p for p in (ROOT.parent / "shared/tools/make_brain.py", ROOT.parent.parent / "shared/tools/make_brain.py",
                             Path("/work/shared/tools/make_brain.py")) if p.exists()), None)
    if tool is None:
        raise SystemExit("make_brain.py not found (expected ../shared/tools/make_brain.py)")
    tree, db = tmp / f"tree{pages}", tmp / f"brain{pages}.db"
    subprocess.run([sys.executable, str(tool), str(tree), "--pages", str(pages)], check=True, capture_output=True)
    with Brain.open(db) as b:
        import_tree(b, tree)
    return tree, db


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", type=int, default=50000, help="make_brain.py pages (without --tree)")
    ap.add_argument("--rounds", type=int, default=9, help="rounds of the four variants")
    ap.add_argument("--tree", help="an existing tree (with --db)")
    ap.add_argument("--db", help="a brain imported from --tree")
    a = ap.parse_args()
    tmp = None
    if a.tree and a.db:
        tree, db = Path(a.tree), Path(a.db)
    else:
        tmp = Path(tempfile.mkdtemp(prefix="gbrain-nochange-"))
        t0 = time.perf_counter()
        tree, db = make_tree(a.pages, tmp)
        print(f"built and imported {a.pages:,} pages in {time.perf_counter() - t0:.0f} s")

    state = {"order": True, "files": False}
    real_tuples, real_walk = engine_mod.SyncEngine._tuples, engine_mod.walk_tree

    def tuples(self, sql, params=()):
        return real_tuples(self, sql if state["order"] else sql.replace(ORDER, ""), params)

    def walk(root, reldir, ignored, excl, **kw):
        if state["files"]:  # a plain function: no file_names screen, asked about every file
            inner = ignored
            ignored = lambda rel: inner(rel)  # noqa: E731
        return real_walk(root, reldir, ignored, excl, **kw)

    engine_mod.SyncEngine._tuples, engine_mod.walk_tree = tuples, walk
    load0 = os.getloadavg()
    print(f"no-change sync variants, {a.rounds} interleaved rounds; {treecpu.WHAT}; load {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f}")
    cpu: dict[str, list[float]] = {k: [] for k in VARIANTS}
    try:
        with Brain.open(db) as brain:
            eng = engine_mod.SyncEngine(brain, tree)
            eng.bind(rebind=True)
            rep = eng.sync()
            assert rep["ok"], rep["problems"]
            time.sleep(1.1)  # every mtime leaves the 1 s racy window, as on a real tree
            eng.sync()
            files = rep["files_seen"]
            for _ in range(a.rounds):
                for name, (order, folders_only) in VARIANTS.items():
                    state.update(order=order, files=not folders_only)
                    c = treecpu.tree_cpu()
                    rep = eng.sync()
                    cpu[name].append(treecpu.tree_cpu() - c)
                    assert rep["ok"] and not any(rep["counts"].values()), rep["counts"]
            eng.close()
    finally:
        engine_mod.SyncEngine._tuples, engine_mod.walk_tree = real_tuples, real_walk
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    base = statistics.median(cpu["both (before)"])
    print(f"\n{files:,} files; CPU per no-change sync (median / min of {a.rounds}), ratio to 'both (before)':")
    for name, xs in cpu.items():
        med = statistics.median(xs)
        print(f"  {name:<22} {med * 1000:7.0f} ms  {min(xs) * 1000:7.0f} ms   {med / base:5.2f}x")
    shipped = statistics.median(cpu["shipped"])
    print(f"shipped: {shipped * 1000:.0f} ms CPU (target ≤ {TARGET_MS} ms); load average at the end {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
