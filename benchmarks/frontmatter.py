#!/usr/bin/env python3
"""Frontmatter loading per page, quick loader beside the full one in the same run (issue 14).

Loads every frontmatter block of the given trees (default: every corpus in ../shared/corpora
and a make_brain brain of ``--pages`` pages) with ``markdown.load_frontmatter``, once with the
quick loader (``QUICK_YAML = True``: ruamel's C parser and composer, a plain constructor) and
once with the full loader alone (``QUICK_YAML = False``: ruamel ``YAML(typ="safe")``, its C
loader then its pure-Python one), and prints the best of ``--runs`` passes in CPU-seconds of
this process, per block, the ratio, and the share of blocks the quick loader took. Both give
the same data and error text (tests/test_frontmatter_quick.py). The load average is printed
beside the figures: under load, read the CPU-seconds and the ratio.

    python benchmarks/frontmatter.py [--pages 7471] [--runs 3] [TREE ...]
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SHARED = next((d / "shared" for d in ROOT.parents if (d / "shared" / "tools").is_dir()), ROOT.parent / "shared")

from gbrain.page import markdown  # noqa: E402


def blocks(root: Path) -> list[str]:
    """The frontmatter blocks (``---`` lines included) of every UTF-8 ``.md`` file under ``root``."""
    out = []
    for dp, dn, fn in os.walk(root):
        dn[:] = [d for d in dn if d != ".git"]
        for name in fn:
            if name.endswith(".md"):
                try:
                    text = (Path(dp) / name).read_bytes().decode("utf-8")
                except UnicodeDecodeError:
                    continue
                fm = markdown.split_frontmatter(text[1:] if text.startswith(markdown.BOM) else text)[0]
                if fm:
                    out.append(fm)
    return out


def cpu() -> float:
    return time.process_time()  # this process's CPU-seconds, user + system


def best(fms: list[str], quick: bool, runs: int) -> float:
    markdown.QUICK_YAML = quick
    try:
        times = []
        for _ in range(runs):
            c = cpu()
            for fm in fms:
                markdown.load_frontmatter(fm)
            times.append(cpu() - c)
        return min(times)
    finally:
        markdown.QUICK_YAML = True


def quick_share(fms: list[str]) -> float:
    took = 0
    for fm in fms:
        try:
            markdown._quick_load(markdown.frontmatter_yaml(fm))
            took += 1
        except markdown._Unsure:
            pass
    return took / max(1, len(fms))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trees", nargs="*", type=Path)
    ap.add_argument("--pages", type=int, default=7471, help="make_brain pages when no tree is given")
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    trees = list(a.trees)
    tmp = None
    if not trees:
        corpora = SHARED / "corpora"
        trees = sorted(d for d in corpora.iterdir() if d.is_dir()) if corpora.is_dir() else []
        tool = SHARED / "tools" / "make_brain.py"
        if tool.exists():
            tmp = tempfile.TemporaryDirectory()
            out = Path(tmp.name) / "make_brain"
            subprocess.run([sys.executable, str(tool), str(out), "--pages", str(a.pages)], check=True, capture_output=True)
            trees.append(out)
    markdown.load_frontmatter("---\na: 1\n---\n")  # imports and first-use set-up outside the timing
    print(f"load average at start: {os.getloadavg()[0]:.2f}")
    print(f"{'tree':<28} {'blocks':>7} {'full CPU-s':>11} {'ms/block':>9} {'quick CPU-s':>12} {'ms/block':>9} {'ratio':>6} {'quick share':>12}")
    for tree in trees:
        fms = blocks(tree)
        if not fms:
            continue
        full = best(fms, False, a.runs)
        quick = best(fms, True, a.runs)
        print(
            f"{tree.name:<28} {len(fms):>7} {full:>11.3f} {full / len(fms) * 1e3:>9.4f} {quick:>12.3f} "
            f"{quick / len(fms) * 1e3:>9.4f} {full / max(quick, 1e-9):>5.1f}x {quick_share(fms):>11.1%}"
        )
    print(f"load average at end: {os.getloadavg()[0]:.2f}  ({time.strftime('%Y-%m-%d %H:%M')})")
    if tmp is not None:
        tmp.cleanup()


if __name__ == "__main__":
    main()
