"""How long `gbrain lint` takes on a synthetic 7,471-page brain, beside `gbrain stats`.

    PYTHONPATH=. python benchmarks/lint.py [--pages 7471] [--repeat 3] [--keep DIR]

Builds the brain with ../shared/tools/make_brain.py, imports it into a fresh brain.db, then
times (best of --repeat, in-process, warm page cache):

* baselines: the `stats` operation (a handful of COUNT(*) queries over the same tables) and
  reading every page row once (SELECT * FROM pages);
* `lint` with all checks, once with the default per-check limit and once with --limit 0;
* `lint --fix-safe` on a copy whose tags were respelled (every `yc-alum` → `YC Alum` on a third
  of the pages), so the fixer has real work;
* the CLI end to end (`python -m gbrain lint --json`), which adds interpreter start-up.

Prints one line per figure. The issue's budget is 5 s for lint on 7,471 pages.
"""
from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
MAKE_BRAIN = ROOT.parent / "shared" / "tools" / "make_brain.py"

from gbrain import operations as ops  # noqa: E402
from gbrain.core.brain import Brain  # noqa: E402
from gbrain.sync.importer import import_tree  # noqa: E402


def best(fn, repeat: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", type=int, default=7471)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--keep", help="build in this folder and keep it")
    a = ap.parse_args()
    if not MAKE_BRAIN.exists():
        sys.exit(f"missing {MAKE_BRAIN}")
    work = Path(a.keep) if a.keep else Path(tempfile.mkdtemp(prefix="gbrain-lint-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        tree = work / "tree"
        if tree.exists():
            shutil.rmtree(tree)
        subprocess.run([sys.executable, str(MAKE_BRAIN), str(tree), "--pages", str(a.pages), "--seed", "1"], check=True, capture_output=True)
        # respell a tag on a third of the pages so --fix-safe has work to do
        n_resp = 0
        for i, p in enumerate(sorted(tree.rglob("*.md"))):
            if i % 3 == 0:
                t = p.read_bytes()
                t2 = re.sub(rb"(?m)^(tags:.*?)\byc-alum\b", rb"\1YC Alum", t, count=1)
                t2 = re.sub(rb"(?m)^(\s+- )yc-alum$", rb"\1YC Alum", t2, count=1) if t2 == t else t2
                if t2 != t:
                    p.write_bytes(t2)
                    n_resp += 1
        db = work / "brain.db"
        for f in work.glob("brain.db*"):
            f.unlink()
        t = time.perf_counter()
        with Brain.open(db) as b:
            import_tree(b, tree)
        print(f"import of {a.pages:,} pages: {time.perf_counter() - t:.2f} s (setup, not measured against the budget)")
        ctx = ops.Context(db=str(db))
        with Brain.open(db) as b:
            t_stats, _ = best(lambda: ops.run("stats", {}, ctx, brain=b), a.repeat)
            t_scan, _ = best(lambda: b.conn.execute("SELECT * FROM pages").fetchall(), a.repeat)
            t_lint, r = best(lambda: ops.run("lint", {}, ctx, brain=b), a.repeat)
            t_all, r_all = best(lambda: ops.run("lint", {"limit": 0}, ctx, brain=b), a.repeat)
        counts = ", ".join(f"{k} {v:,}" for k, v in r["counts"].items())
        print(f"baseline stats:            {t_stats * 1000:8.1f} ms")
        print(f"baseline read every page:  {t_scan * 1000:8.1f} ms  (SELECT * FROM pages)")
        print(f"lint (all checks):         {t_lint * 1000:8.1f} ms  ({t_lint / t_stats:.1f}x stats)  findings: {counts}")
        print(f"lint --limit 0:            {t_all * 1000:8.1f} ms  ({len(r_all['items']):,} findings listed)")
        fix_db = work / "fix.db"
        shutil.copy(db, fix_db)
        with Brain.open(fix_db) as b:
            t = time.perf_counter()
            rf = ops.run("lint", {"fix_safe": True}, ops.Context(db=str(fix_db)), brain=b)
            t_fix = time.perf_counter() - t
        print(f"lint --fix-safe:           {t_fix * 1000:8.1f} ms  ({len(rf['fixed']):,} pages fixed of {n_resp:,} respelled, {len(rf['skipped'])} skipped)")
        t_cli, p = best(lambda: subprocess.run([sys.executable, "-m", "gbrain", "--db", str(db), "lint", "--json"], capture_output=True, env={**__import__("os").environ, "PYTHONPATH": str(ROOT)}), a.repeat)
        t_cli_stats, _ = best(lambda: subprocess.run([sys.executable, "-m", "gbrain", "--db", str(db), "stats", "--json"], capture_output=True, env={**__import__("os").environ, "PYTHONPATH": str(ROOT)}), a.repeat)
        print(f"CLI stats --json:          {t_cli_stats * 1000:8.1f} ms")
        print(f"CLI lint --json:           {t_cli * 1000:8.1f} ms  (exit {p.returncode}; budget 5000 ms)")
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
