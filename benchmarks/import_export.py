#!/usr/bin/env python3
"""Import/export speed beside a floor measured in the same run (issue: brain core).

For each tree (a 7,471-page make_brain.py brain and ../shared/corpora/obsidian-hub by default):

* floor: read + sha256 every file, and insert the text of every markdown file into a plain
  FTS5 table in one transaction (what any importer must at least do);
* full import (fresh DB), no-change re-import, one-file-changed re-import — in-process and as
  the `gbrain import` CLI (process start included) for the incremental cases;
* full export (empty folder) and no-change export.

Targets on 2 cores: full import ≤ 2× floor; no-change re-import ≤ 1 s; one changed file ≤ 0.2 s.

    python benchmarks/import_export.py [--pages 7471] [--tree DIR ...] [--skip-hub]
"""
from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gbrain.core.brain import Brain  # noqa: E402
from gbrain.sync.exporter import export_tree  # noqa: E402
from gbrain.sync.importer import import_tree  # noqa: E402

SHARED = ROOT.parent / "shared"


def floor(tree: Path, tmp: Path) -> float:
    t = time.perf_counter()
    db = sqlite3.connect(tmp / "floor.db")
    db.execute("CREATE VIRTUAL TABLE f USING fts5(body, tokenize='porter unicode61')")
    db.execute("BEGIN")
    for dp, dn, fn in os.walk(tree):
        dn[:] = [d for d in dn if d != ".git"]
        for name in fn:
            data = Path(dp, name).read_bytes()
            hashlib.sha256(data).hexdigest()
            if name.endswith(".md"):
                db.execute("INSERT INTO f(body) VALUES (?)", (data.decode("utf-8", "replace"),))
    db.execute("COMMIT")
    db.close()
    return time.perf_counter() - t


def timed(fn) -> tuple[float, object]:
    t = time.perf_counter()
    r = fn()
    return time.perf_counter() - t, r


def cli(args: list[str], db: Path) -> float:
    t = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "gbrain", *args, "--db", str(db)], capture_output=True, cwd=ROOT)
    el = time.perf_counter() - t
    if r.returncode != 0:
        print("   CLI failed:", r.stderr.decode()[-500:])
    return el


def bench(name: str, src: Path, tmp: Path) -> None:
    work = tmp / name
    tree = work / "tree"
    shutil.copytree(src, tree, symlinks=True)
    nfiles = sum(len(f) for _, _, f in os.walk(tree))
    print(f"\n== {name}: {nfiles:,} files, {sum(p.stat().st_size for p in tree.rglob('*') if p.is_file()) / 1e6:.1f} MB")
    fl = floor(tree, work)
    db = work / "brain.db"
    with Brain.open(db) as b:
        t_full, rep = timed(lambda: import_tree(b, tree))
        assert rep["ok"], rep["problems"]
        t_nochange, rep2 = timed(lambda: import_tree(b, tree))
        assert rep2["counts"]["pages_written"] == 0
        victim = next(p for p in sorted(tree.rglob("*.md")) if "/." not in str(p))
        victim.write_bytes(victim.read_bytes() + b"\nOne more line.\n")
        t_one, rep3 = timed(lambda: import_tree(b, tree))
        assert rep3["counts"]["pages_written"] == 1
    t_cli_nochange = cli(["import", str(tree)], db)
    victim.write_bytes(victim.read_bytes() + b"\nAnd another.\n")
    t_cli_one = cli(["import", str(tree)], db)
    with Brain.open(db) as b:
        out = work / "out"
        t_exp, e1 = timed(lambda: export_tree(b, out))
        assert e1["ok"] and e1["counts"]["written"] == nfiles
        t_exp2, e2 = timed(lambda: export_tree(b, out))
        assert e2["counts"]["written"] == 0
    w = 34
    print(f"{'floor (read+sha256+FTS5 insert)':<{w}} {fl:7.2f} s")
    print(f"{'full import':<{w}} {t_full:7.2f} s   {t_full / fl:5.2f}× floor   (target ≤ 2×)")
    print(f"{'no-change re-import (in-process)':<{w}} {t_nochange:7.2f} s   (target ≤ 1 s)")
    print(f"{'no-change re-import (CLI)':<{w}} {t_cli_nochange:7.2f} s")
    print(f"{'one-file-changed (in-process)':<{w}} {t_one:7.2f} s   (target ≤ 0.2 s)")
    print(f"{'one-file-changed (CLI)':<{w}} {t_cli_one:7.2f} s")
    print(f"{'full export + verify':<{w}} {t_exp:7.2f} s   {t_exp / fl:5.2f}× floor")
    print(f"{'no-change export + verify':<{w}} {t_exp2:7.2f} s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pages", type=int, default=7471)
    ap.add_argument("--tree", action="append", default=[], help="an extra tree to measure")
    ap.add_argument("--skip-hub", action="store_true")
    a = ap.parse_args()
    print(f"python {sys.version.split()[0]}, sqlite {sqlite3.sqlite_version}, {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        mb = SHARED / "tools" / "make_brain.py"
        if mb.exists():
            subprocess.run([sys.executable, str(mb), str(tmp / "made"), "--pages", str(a.pages)], check=True, capture_output=True)
            bench(f"make_brain-{a.pages}", tmp / "made", tmp)
        hub = SHARED / "corpora" / "obsidian-hub"
        if hub.exists() and not a.skip_hub:
            bench("obsidian-hub", hub, tmp)
        for t in a.tree:
            bench(Path(t).name, Path(t), tmp)


if __name__ == "__main__":
    main()
