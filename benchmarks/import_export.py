#!/usr/bin/env python3
"""Import, export and verify beside their floors, measured in the same run (issue 14).

For each tree (a 7,471-page make_brain.py brain, ../shared/corpora/obsidian-hub and
../shared/corpora/obsidian-help by default), each figure in CPU-seconds (this process and its
whole process tree: the parse pool's forkserver and workers, the CLI and the forkserver it leaves
behind; ``benchmarks/treecpu.py``) and wall seconds, beside a floor measured in the same run:

* import floor: walk the tree, read + sha256 every file, insert the text of every markdown file
  into a plain FTS5 table of a new database file in one transaction (what any importer must at
  least do). Full import (fresh DB) in-process and as the ``gbrain import`` CLI; target ≤ 2.5×.
* no-change re-import (must not parse: target ≤ 1 s) and one changed file (≤ 0.2 s).
* export floor: a plain copy of the tree (``shutil.copytree``), measured alternately with the full
  export, each best of ``ROUNDS`` into a new folder; then a no-change export.
* verify floor: walk the tree, read + sha256 every file; ``verify`` (target ≤ 2×) and ``verify --deep``.
  The floor and ``verify`` are measured alternately, :data:`ROUNDS` times each, best of each (the
  spread is printed: one run of a 20 ms floor moves by 10-30% on a shared machine), ``verify`` on
  a brain opened for it as the CLI does (after the import, whose record of its passing check of
  the file stands for verify's quick_check since 2026-12-02 evening), ``verify --check-db``
  (which runs the quick_check all the same, as every verify did before), beside SQLite's
  ``quick_check`` of the brain alone (part of ``verify`` since issue 11; its cost follows the
  database file's size, not the tree's).

The load average is printed with every tree: on a shared machine wall time is not the code's.

    python benchmarks/import_export.py [--pages 7471] [--tree DIR ...] [--skip-corpora] [--no-cli]
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
sys.path.insert(0, str(ROOT / "benchmarks"))

import treecpu  # noqa: E402

from gbrain.core.brain import Brain  # noqa: E402
from gbrain.sync.exporter import export_tree  # noqa: E402
from gbrain.sync.importer import import_tree  # noqa: E402
from gbrain.sync.scan import db_excludes, scan_tree  # noqa: E402
from gbrain.sync.verify import verify_tree  # noqa: E402

ROUNDS = 3  #: verify and its floor, and export and the copy, alternately

#: ../shared of the repository (a git worktree may sit one level deeper)
SHARED = next((d / "shared" for d in ROOT.parents if (d / "shared" / "tools").is_dir()), ROOT.parent / "shared")


def measure(fn) -> tuple[float, float, object]:
    """``(cpu_seconds, wall_seconds, result)`` of ``fn()``; CPU of the whole process tree
    (:func:`treecpu.measure`: the forkserver pool's workers are not this process's children)."""
    return treecpu.measure(fn)


def import_floor(tree: Path, db: Path) -> None:
    con = sqlite3.connect(db)
    con.execute("CREATE VIRTUAL TABLE f USING fts5(body, tokenize='porter unicode61')")
    con.execute("BEGIN")
    for dp, dn, fn in os.walk(tree):
        dn[:] = [d for d in dn if d != ".git"]
        for name in fn:
            with open(os.path.join(dp, name), "rb") as fh:
                data = fh.read()
            hashlib.sha256(data).hexdigest()
            if name.endswith(".md"):
                con.execute("INSERT INTO f(body) VALUES (?)", (data.decode("utf-8", "replace"),))
    con.execute("COMMIT")
    con.close()


def read_hash_floor(tree: Path) -> None:
    for dp, dn, fn in os.walk(tree):
        dn[:] = [d for d in dn if d != ".git"]
        for name in fn:
            with open(os.path.join(dp, name), "rb") as fh:
                hashlib.sha256(fh.read()).hexdigest()


def verify_fresh(db: Path, tree: Path, check_db: bool = False) -> dict:
    """``verify`` as ``gbrain verify`` runs it: on a brain opened for it, so its quick_check runs
    (once per process and per Brain: on the brain that just imported the tree it had already run,
    and the figures before 2026-12-01 evening left it out), with the operation's scan (no
    ``lstat`` per file, since 2026-12-02: ``scan_tree(sizes=False)``; no sorting of each folder,
    since 2026-12-02 midday: ``ordered=False``) and a progress callback. Since 2026-12-02
    evening a passing check recorded for the file as it is (here: the import's, which checked
    it before writing) stands for the quick_check; ``check_db`` (``verify --check-db``) runs it
    all the same, as every verify did before."""
    with Brain.open(db) as vb:
        return verify_tree(vb, scan_tree(tree, exclude_abs=db_excludes(db), sizes=False, ordered=False), on_progress=lambda done, total: None,
                           check_db=check_db)


def quick_check_alone(db: Path) -> None:
    """SQLite's quick_check of the brain's file on a new connection, as verify runs it beside
    its hashing (``Brain.start_check``)."""
    from gbrain.storage import db as dbmod

    con = dbmod.raw_connect(db)
    try:
        assert dbmod.quick_check(con) is None
    finally:
        con.close()


def spread(runs: list) -> str:
    """``cpu/wall`` of each run, in ms."""
    return ", ".join(f"{c * 1e3:.0f}/{w * 1e3:.0f} ms" for c, w, *_ in runs)


def cli(args: list[str], db: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # .pyc cached, as installed
    r = subprocess.run([sys.executable, "-m", "gbrain", *args, "--db", str(db)], capture_output=True, cwd=ROOT, env=env)
    if r.returncode != 0:
        print("   CLI failed:", r.stderr.decode()[-500:])


def line(name: str, cpu: float, wall: float, floor: tuple[float, float] | None = None, target: str = "") -> None:
    s = f"  {name:<34} cpu {cpu:7.2f} s  wall {wall:7.2f} s"
    if floor:
        s += f"   {cpu / floor[0]:5.2f}× / {wall / floor[1]:5.2f}× floor"
    if target:
        s += f"   (target {target})"
    print(s)


def bench(name: str, src: Path, tmp: Path, use_cli: bool) -> None:
    work = tmp / name
    tree = work / "tree"
    shutil.copytree(src, tree, symlinks=True)
    nfiles = sum(len(f) for _, _, f in os.walk(tree))
    size = sum(p.stat().st_size for p in tree.rglob("*") if p.is_file())
    print(f"\n== {name}: {nfiles:,} files, {size / 1e6:.1f} MB; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    fls = []
    for i in range(ROUNDS):  # best of ROUNDS: one run swung 0.33-0.47 CPU-s on the same tree
        fls.append(measure(lambda: import_floor(tree, work / f"floor{i}.db")))
    fl_cpu, fl_wall = min(x[0] for x in fls), min(x[1] for x in fls)
    imp_floor = (fl_cpu, fl_wall)
    db = work / "brain.db"
    with Brain.open(db) as b:
        full = measure(lambda: import_tree(b, tree))
        assert full[2]["ok"], full[2]["problems"]
        nochange = measure(lambda: import_tree(b, tree))
        assert nochange[2]["counts"]["pages_written"] == 0
        victim = next(p for p in sorted(tree.rglob("*.md")) if "/." not in str(p))
        victim.write_bytes(victim.read_bytes() + b"\nOne more line.\n")
        one = measure(lambda: import_tree(b, tree))
        assert one[2]["counts"]["pages_written"] == 1
    # the import's brain closed, as a `gbrain import` ends before a `gbrain verify` starts (run as
    # root, SQLite re-owns a WAL file left with frames whenever a connection opens it: its ctime
    # moves, and no record of a check stands for it)
    rhs, vers, chks = [], [], []
    for _ in range(ROUNDS):  # the floor and both verifies alternately, in the same conditions
        rhs.append(measure(lambda: read_hash_floor(tree)))
        vers.append(measure(lambda: verify_fresh(db, tree)))
        assert vers[-1][2]["ok"], vers[-1][2]["problems"]
        chks.append(measure(lambda: verify_fresh(db, tree, check_db=True)))
        assert chks[-1][2]["ok"] and chks[-1][2]["database_file"]["checked"] == "now", chks[-1][2]["problems"]
    rh_cpu, rh_wall = min(x[0] for x in rhs), min(x[1] for x in rhs)
    rh = (rh_cpu, rh_wall)
    ver = (min(x[0] for x in vers), min(x[1] for x in vers), vers[-1][2])
    chk = (min(x[0] for x in chks), min(x[1] for x in chks), chks[-1][2])
    trusted = sum(x[2]["database_file"]["checked"] == "record" for x in vers)
    qcs = [measure(lambda: quick_check_alone(db)) for _ in range(ROUNDS)]
    qc = (min(x[0] for x in qcs), min(x[1] for x in qcs))
    with Brain.open(db) as b:
        deep = measure(lambda: verify_tree(b, scan_tree(tree), deep=True))
        assert deep[2]["ok"], deep[2]["problems"]
        # the copy floor and the export alternately, each into a new folder, the previous round's
        # removed first (one copy swung 0.35 -> 1.31 CPU-s between two runs: ext4's state after deletes)
        cps, exps = [], []
        for i in range(ROUNDS):
            for d in (work / "copy", work / "out"):
                if d.exists():
                    shutil.rmtree(d)
            cps.append(measure(lambda: shutil.copytree(tree, work / "copy")))
            exps.append(measure(lambda: export_tree(b, work / "out")))
            assert exps[-1][2]["ok"] and exps[-1][2]["counts"]["written"] == nfiles
        exp = (min(x[0] for x in exps), min(x[1] for x in exps))
        exp2 = measure(lambda: export_tree(b, work / "out"))
        assert exp2[2]["counts"]["written"] == 0
    cp_cpu, cp_wall = min(x[0] for x in cps), min(x[1] for x in cps)
    cp = (cp_cpu, cp_wall)
    print(f"  {'floor: read+sha256+FTS5 insert':<34} cpu {fl_cpu:7.2f} s  wall {fl_wall:7.2f} s   (best of {ROUNDS}: {spread(fls)})")
    print(f"  {'floor: read+sha256':<34} cpu {rh_cpu:7.3f} s  wall {rh_wall:7.3f} s   (best of {ROUNDS}: {spread(rhs)})")
    print(f"  {'floor: plain copy of the tree':<34} cpu {cp_cpu:7.2f} s  wall {cp_wall:7.2f} s   (best of {ROUNDS}, alternating with export: {spread(cps)})")
    line("full import (in-process)", full[0], full[1], imp_floor, "≤ 2.5×")
    if use_cli:
        db2 = work / "cli.db"
        c = measure(lambda: cli(["import", str(tree)], db2))
        line("full import (CLI)", c[0], c[1], imp_floor, "≤ 2.5×")
        c = measure(lambda: cli(["import", str(tree)], db2))
        line("no-change re-import (CLI)", c[0], c[1], None, "≤ 1 s")
    line("no-change re-import (in-process)", nochange[0], nochange[1], None, "≤ 1 s")
    line("one changed file (in-process)", one[0], one[1], None, "≤ 0.2 s")
    line("verify", ver[0], ver[1], rh, "≤ 2× read+sha256")
    print(f"  {'':<34} (best of {ROUNDS}, alternating with the floor: {spread(vers)}; pages re-parsed {ver[2]['pages_reparsed']}; "
          f"the import's record of its check stood for the quick_check in {trusted} of {ROUNDS})")
    line("verify --check-db (checks now)", chk[0], chk[1], rh)
    print(f"  {'':<34} (best of {ROUNDS}: {spread(chks)})")
    line("  of which: SQLite quick_check alone", qc[0], qc[1], rh)
    line("verify --deep", deep[0], deep[1], rh)
    line("full export (+ its check)", exp[0], exp[1], cp, "≤ 2× copy")
    print(f"  {'':<34} (best of {ROUNDS}: {spread(exps)})")
    line("no-change export", exp2[0], exp2[1], cp)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pages", type=int, default=7471)
    ap.add_argument("--tree", action="append", default=[], help="an extra tree to measure")
    ap.add_argument("--skip-corpora", action="store_true", help="only the make_brain brain (and --tree)")
    ap.add_argument("--no-cli", action="store_true", help="skip the CLI runs")
    a = ap.parse_args()
    print(f"python {sys.version.split()[0]}, sqlite {sqlite3.sqlite_version}, {os.cpu_count()} cores; {treecpu.WHAT}")
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        mb = SHARED / "tools" / "make_brain.py"
        if not mb.exists():
            print(f"{mb} not found: no make_brain brain", file=sys.stderr)
        if mb.exists() and a.pages:
            subprocess.run([sys.executable, str(mb), str(tmp / "made"), "--pages", str(a.pages)], check=True, capture_output=True)
            bench(f"make_brain-{a.pages}", tmp / "made", tmp, not a.no_cli)
        if not a.skip_corpora:
            for c in ("obsidian-hub", "obsidian-help"):
                if (SHARED / "corpora" / c).exists():
                    bench(c, SHARED / "corpora" / c, tmp, not a.no_cli)
        for t in a.tree:
            bench(Path(t).name, Path(t), tmp, not a.no_cli)


if __name__ == "__main__":
    main()
