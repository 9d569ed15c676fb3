"""The user trial behind `gbrain lint --check dead_links --fix-safe`: rename and move pages on
disk, sync, and see how many links dangle before and after the fix.

    PYTHONPATH=. python benchmarks/relink.py [--pages 2000] [--moves 50] [--keep DIR]

Builds a brain with ../shared/tools/make_brain.py (relative markdown links and `[[folder/x|T]]`
wiki links), syncs it with a folder (SyncEngine, in-process), then renames --moves pages that
other pages link to (half renamed in their folder, half moved to `archive/<folder>/`), syncs
again (the history records the moves) and prints:

* dangling links and the moved pages' backlinks before the moves, after them, and after the fix;
* the time of the sync round that saw the moves and of the count its report adds (the links
  ``--fix-safe`` would rewrite: ``lint.renamed_links``, which plans the rewrites);
* the time of `lint --check dead_links` with nothing to fix (before the moves), of the dry run
  (plans every rewrite) and of the fix itself, beside the baseline measured in the same run:
  saving the rewritten pages again (``save_page``, one transaction, rolled back), i.e. the
  writes alone; process CPU-seconds (the fix runs in this process, no pool) with the load
  average beside them;
* that the brain then equals a fresh import of its own tree (`fresh_import_differences`), and
  how many files the next sync writes (the rewritten pages).
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
#: ../shared/tools/make_brain.py beside the checkout (or beside a parent folder of it: a worktree)
MAKE_BRAIN = next((d / "shared" / "tools" / "make_brain.py" for d in ROOT.parents if (d / "shared" / "tools" / "make_brain.py").exists()),
                  ROOT.parent / "shared" / "tools" / "make_brain.py")

from gbrain import operations as ops  # noqa: E402
from gbrain.core.brain import Brain  # noqa: E402
from gbrain.core.lint import renamed_links  # noqa: E402
from gbrain.sync.engine import SyncEngine  # noqa: E402
from gbrain.sync.verify import fresh_import_differences  # noqa: E402


def timed(fn):
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - w, time.process_time() - c, out


def dangling(b: Brain) -> int:
    return b.conn.execute("SELECT COUNT(*) FROM links WHERE to_page_id IS NULL").fetchone()[0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", type=int, default=2000)
    ap.add_argument("--moves", type=int, default=50)
    ap.add_argument("--keep", help="build in this folder and keep it")
    a = ap.parse_args()
    work = Path(a.keep) if a.keep else Path(tempfile.mkdtemp(prefix="gbrain-relink-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        tree = work / "tree"
        if tree.exists():
            shutil.rmtree(tree)
        subprocess.run([sys.executable, str(MAKE_BRAIN), str(tree), "--pages", str(a.pages), "--seed", "1"], check=True, capture_output=True)
        for f in work.glob("brain.db*"):
            f.unlink()
        b = Brain.open(work / "brain.db", create=True)
        eng = SyncEngine(b, tree)
        eng.bind()
        assert eng.sync()["ok"]
        linked = [r[0] for r in b.conn.execute(
            "SELECT p.path FROM pages p WHERE EXISTS (SELECT 1 FROM links l WHERE l.to_page_id = p.id AND l.from_page_id != p.id) ORDER BY p.path")]
        rng = random.Random(1)
        chosen = rng.sample(linked, min(a.moves, len(linked)))
        back_before = {p: b.conn.execute("SELECT COUNT(*) FROM links l JOIN pages p ON p.id = l.to_page_id WHERE p.path = ?", (p,)).fetchone()[0] for p in chosen}
        d0 = dangling(b)
        w_base, c_base, _ = timed(lambda: ops.run("lint", {"check": "dead_links", "limit": 0}, brain=b))
        moves = {}
        for i, p in enumerate(chosen):
            stem = p[:-3]
            new = f"{stem}-renamed.md" if i % 2 == 0 else f"archive/{p}"
            (tree / new).parent.mkdir(parents=True, exist_ok=True)
            (tree / p).rename(tree / new)
            moves[p] = new
        w_sync, c_sync, r = timed(eng.sync)
        d1 = dangling(b)
        # the line a sync or watch round that moved pages adds: the links --fix-safe would rewrite
        w_rl, c_rl, rl = timed(lambda: renamed_links(b))
        lost = sum(1 for p, n in moves.items() if n and not b.conn.execute(
            "SELECT 1 FROM links l JOIN pages p ON p.id = l.to_page_id WHERE p.path = ? LIMIT 1", (n,)).fetchone())
        print(f"{a.pages:,} pages, {len(moves)} renamed/moved on disk, sync saw {r['counts'].get('moved', 0)} moves")
        print(f"dangling links: {d0:,} before the moves, {d1:,} after (+{d1 - d0:,}); {lost} moved pages with no backlink left")
        from gbrain.core.lint import Moves, _misnamed_links
        from gbrain.page.links import SqlIndex

        print(f"links still resolved by a title or alias but written with a moved page's old file name: {len(_misnamed_links(b.conn, Moves(b.conn), SqlIndex(b.conn))):,}")
        w_dry, c_dry, dry = timed(lambda: ops.run("lint", {"check": "dead_links", "fix_safe": True, "dry_run": True, "limit": 0}, brain=b))
        w_fix, c_fix, fix = timed(lambda: ops.run("lint", {"check": "dead_links", "fix_safe": True, "limit": 0}, brain=b))
        d2 = dangling(b)

        class _Undo(Exception):
            pass

        def resave() -> None:  # the writes alone: the same pages saved again, rolled back
            try:
                with b.transaction():
                    for f in fix["fixed"]:
                        row = b.page_row(f["slug"])
                        b.save_page(row["path"], b.get_text(f["slug"]), force=True)
                    raise _Undo
            except _Undo:
                pass

        w_save, c_save, _ = timed(resave)
        n_links = sum(len(f["links"]) for f in fix["fixed"])
        back_after = {p: b.conn.execute("SELECT COUNT(*) FROM links l JOIN pages p ON p.id = l.to_page_id WHERE p.path = ?", (n,)).fetchone()[0] for p, n in moves.items()}
        same = sum(1 for p in moves if back_after[p] == back_before[p])
        load = os.getloadavg()[0]
        print(f"lint --check dead_links (nothing moved, baseline): {w_base * 1000:8.1f} ms wall, {c_base:.3f} CPU-s")
        print(f"the sync round that saw the moves:                 {w_sync * 1000:8.1f} ms wall, {c_sync:.3f} CPU-s (this process)")
        print(f"its count of links to mend (lint.renamed_links):   {w_rl * 1000:8.1f} ms wall, {c_rl:.3f} CPU-s ({c_rl / max(c_sync, 1e-9):.2f}x the round's CPU; "
              f"{rl['links']:,} links in {rl['pages']:,} pages)")
        print(f"saving the same pages again (the writes alone):    {w_save * 1000:8.1f} ms wall, {c_save:.3f} CPU-s (rolled back)")
        print(f"lint --check dead_links --fix-safe --dry-run:      {w_dry * 1000:8.1f} ms wall, {c_dry:.3f} CPU-s ({c_dry / max(c_save, 1e-9):.1f}x the writes' CPU)")
        print(f"lint --check dead_links --fix-safe:                {w_fix * 1000:8.1f} ms wall, {c_fix:.3f} CPU-s ({c_fix / max(c_save, 1e-9):.1f}x the writes' CPU; "
              f"{n_links:,} links rewritten in {len(fix['fixed']):,} pages, {len(fix['skipped'])} skipped)  load {load:.1f}")
        print(f"dangling links after the fix: {d2:,} (target: {d0:,}, as before the moves); "
              f"moved pages with their backlinks back: {same}/{len(moves)}")
        diff = fresh_import_differences(b)
        print(f"equals a fresh import of its tree: {'yes' if not diff else 'NO ' + str(list(diff))}")
        r2 = eng.sync()
        print(f"next sync wrote {r2['counts'].get('exported', r2['counts'])} files")
        eng.close()
        b.close()
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
