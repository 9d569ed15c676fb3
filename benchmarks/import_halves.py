#!/usr/bin/env python3
"""The two halves of an import, each beside the import floor, measured in the same run (issue 14).

What the ≤ 2.5× import target would need of the current design: the parse half alone and the
write half alone, each as a multiple of the floor of ``benchmarks/import_export.py`` (walk,
read + sha256 every file, insert every markdown text into a plain FTS5 table, one transaction).
Everything runs in this process with the parse pool off (``parallel.PARALLEL_MIN = 10**9``), so
``time.process_time`` is the CPU of the work and there is no pool to miss.

* **parse half**: ``parse_page`` of every page text (read beforehand, not counted), phase by
  phase: frontmatter split + YAML load, block + inline tokens (``_parse_ast``), separator,
  links, inline tags, timeline entries, the rest of ``parse_page``.
* **write half**: ``import_tree`` into a new brain with every page already parsed (the parser
  hands back the pages parsed beforehand): walk, read + sha256, classify, the rows of every
  page (``Brain.save_new_pages``: page rows with their FTS5, history and change-log triggers,
  derived rows), the non-page files, link resolution at the end (``re_resolve``; the new pages' links, kept back, written resolved: ``PendingLinks.write``), the
  commits, the report, and the CPU inside the multi-row ``INSERT`` statements of each table
  (``derive.insert_many``: ``pages`` with its triggers, ``links``, ``timeline_entries``…); then the
  same with the history triggers, the FTS5 triggers or both dropped from the new brain before
  the import (to show what each costs: gbrain keeps both), and the bulk-load tactics' ceilings
  (2026-12-03): every secondary index dropped (what building them after the load could save at
  most), foreign keys off (their checks per derived row), WAL autocheckpoint off.
* **full import**, pool off, for the sum.

    python benchmarks/import_halves.py [--pages 7471] [--tree DIR ...] [--skip-corpora] [--rounds 2]

Each figure is the best of ``--rounds``; the load average is printed per tree.
"""
from __future__ import annotations

import argparse
import collections
import os
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from import_export import import_floor  # noqa: E402

import gbrain.sync.parallel as parallel  # noqa: E402
import gbrain.core.brain as brain_module  # noqa: E402
from gbrain.core.brain import Brain  # noqa: E402
from gbrain.page import markdown  # noqa: E402
from gbrain.storage import derive  # noqa: E402
from gbrain.sync import importer  # noqa: E402
from gbrain.sync.importer import import_tree  # noqa: E402

parallel.PARALLEL_MIN = 10**9

#: parse_page's steps, timed by wrapping the module functions it calls
PARSE_STEPS = ("split_frontmatter", "load_frontmatter", "_parse_ast", "find_separator",
               "extract_links", "extract_inline_tags", "parse_timeline_entries")
#: write steps: (label, object, attribute)
WRITE_STEPS = (
    ("scan_tree", importer, "scan_tree"),
    ("save_new_pages", Brain, "save_new_pages"),
    ("save_file_from", Brain, "save_file_from"),
    ("re_resolve", Brain, "re_resolve"),
    ("PendingLinks.write", derive.PendingLinks, "write"),  # the new pages' links, resolved, at the end
    ("_record_baseline", importer, "_record_baseline"),
    ("report", importer.verify, "report"),
)


class Timers:
    """CPU-seconds (``process_time``) per wrapped function; nested calls count in each."""

    def __init__(self) -> None:
        self.cpu: dict[str, float] = {}
        self._undo: list[tuple[object, str, object]] = []

    def wrap(self, label: str, owner: object, attr: str) -> None:
        fn = getattr(owner, attr)
        cpu = self.cpu
        cpu[label] = 0.0

        def timed(*a, **kw):
            t = time.process_time()
            try:
                return fn(*a, **kw)
            finally:
                cpu[label] += time.process_time() - t

        self._undo.append((owner, attr, fn))
        setattr(owner, attr, timed)

    def __enter__(self) -> "Timers":
        return self

    def __exit__(self, *exc) -> None:
        for owner, attr, fn in reversed(self._undo):
            setattr(owner, attr, fn)


def cpu_wall(fn) -> tuple[float, float, object]:
    c, t = time.process_time(), time.perf_counter()
    r = fn()
    return time.process_time() - c, time.perf_counter() - t, r


def ab_trees(tmp: Path, pages: int, corpora: bool = True) -> list[tuple[str, Path]]:
    """The trees an A/B benchmark measures: a make_brain brain of ``pages`` pages made under
    ``tmp`` (none when ``pages`` is 0 or the shared tool is missing), then obsidian-hub and
    obsidian-help when ``corpora`` and present; ``[(name, folder)]``."""
    import subprocess
    import sys
    from import_export import SHARED

    trees = []
    mb = SHARED / "tools" / "make_brain.py"
    if mb.exists() and pages:
        subprocess.run([sys.executable, str(mb), str(tmp / "made"), "--pages", str(pages)], check=True, capture_output=True)
        trees.append((f"make_brain-{pages}", tmp / "made"))
    if corpora:
        for c in ("obsidian-hub", "obsidian-help"):
            if (SHARED / "corpora" / c).exists():
                trees.append((c, SHARED / "corpora" / c))
    return trees


def page_texts(tree: Path) -> dict[str, str]:
    """relative path → text of every file import parses as a page."""
    out = {}
    for dp, dn, fn in os.walk(tree):
        dn[:] = [d for d in dn if d != ".git"]
        for name in fn:
            p = os.path.join(dp, name)
            rel = os.path.relpath(p, tree).replace(os.sep, "/")
            with open(p, "rb") as fh:
                data = fh.read()
            kind, text, _ = importer.classify(rel, data)
            if kind == "page":
                out[rel] = text
    return out


class PreParsed:
    """Stands in for ``PageParser``: hands back pages parsed before the measured import."""

    pages: dict[str, object] = {}

    def __init__(self, *a, **kw) -> None:
        pass

    def parse(self, jobs):
        return (self.pages[p] for p, *_ in jobs)

    def __exit__(self, *exc) -> None:
        pass


#: the secondary (not unique) indexes of the tables a bulk import fills, as a fresh brain has them
SECONDARY = "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND sql NOT LIKE 'CREATE UNIQUE%' " \
            "AND tbl_name IN ('pages', 'links', 'tags', 'aliases', 'timeline_entries', 'files', 'history', 'history_bodies', 'raw_data')"


class InsertTimer:
    """CPU-seconds inside ``derive.insert_many`` per table (its multi-row ``INSERT`` statements:
    binding the rows and SQLite's work, the table's triggers, indexes and foreign-key checks)."""

    def __init__(self) -> None:
        self.cpu: collections.Counter = collections.Counter()
        self._owners = [derive, brain_module]

    def __enter__(self) -> "InsertTimer":
        real = self._real = derive.insert_many
        cpu = self.cpu

        def timed(conn, sql, rows):
            t = time.process_time()
            try:
                return real(conn, sql, rows)
            finally:
                cpu["SQL " + sql.split("(", 1)[0].replace("INSERT OR IGNORE INTO", "INSERT INTO").strip()] += time.process_time() - t

        for o in self._owners:
            o.insert_many = timed
        return self

    def __exit__(self, *exc) -> None:
        for o in self._owners:
            o.insert_many = self._real


def write_half(tree: Path, db: Path, drop: tuple[str, ...] = (), setup: tuple[str, ...] = ()) -> tuple[float, float, dict[str, float]]:
    """``import_tree`` of ``tree`` into a new brain ``db`` with every page parsed beforehand;
    ``drop``: triggers dropped first; ``setup``: statements run first (``DROP INDEX *``: every
    secondary index of :data:`SECONDARY`). Returns (CPU-s, wall s, CPU-s per step)."""
    with Brain.open(db) as b:
        for t in drop:
            b.conn.execute(f"DROP TRIGGER {t}")
        for s in setup:
            if s == "DROP INDEX *":
                for (name,) in b.conn.execute(SECONDARY).fetchall():
                    b.conn.execute(f"DROP INDEX {name}")
            else:
                b.conn.execute(s)
        with Timers() as tm, InsertTimer() as it:
            for label, owner, attr in WRITE_STEPS:
                tm.wrap(label, owner, attr)
            real = importer.PageParser
            importer.PageParser = PreParsed
            try:
                cpu, wall, rep = cpu_wall(lambda: import_tree(b, tree))
            finally:
                importer.PageParser = real
        assert rep["ok"], rep["problems"]
        return cpu, wall, {**tm.cpu, **dict(sorted(it.cpu.items(), key=lambda kv: -kv[1]))}


def parse_half(texts: dict[str, str]) -> tuple[float, float, dict[str, float]]:
    with Timers() as tm:
        for s in PARSE_STEPS:
            tm.wrap(s, markdown, s)
        cpu, wall, pages = cpu_wall(lambda: {p: markdown.parse_page(t, p) for p, t in texts.items()})
    PreParsed.pages = pages
    return cpu, wall, dict(tm.cpu)


def bench(name: str, src: Path, tmp: Path, rounds: int) -> None:
    work = tmp / name
    tree = work / "tree"
    shutil.copytree(src, tree, symlinks=True)
    nfiles = sum(len(f) for _, _, f in os.walk(tree))
    texts = page_texts(tree)
    print(f"\n== {name}: {nfiles:,} files, {len(texts):,} pages; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    best: dict[str, tuple[float, float, dict]] = {}

    def keep(label: str, fig: tuple[float, float, dict]) -> None:
        if label not in best or fig[0] < best[label][0]:
            best[label] = fig

    ablations = {
        "write half, no history triggers": ("pages_history_ai", "files_history_ai"),
        "write half, no FTS5 trigger": ("pages_ai",),
        "write half, neither": ("pages_history_ai", "files_history_ai", "pages_ai"),
    }
    # the ceilings of bulk-load tactics (not what gbrain does): no secondary index maintained
    # during the load, no foreign-key check, no checkpoint during the load
    tactics = {
        "write half, no secondary indexes": ("DROP INDEX *",),
        "write half, foreign keys off": ("PRAGMA foreign_keys = OFF",),
        "write half, no autocheckpoint": ("PRAGMA wal_autocheckpoint = 0",),
    }
    for r in range(rounds):
        for f in work.glob("*.db*"):
            f.unlink()
        c, w, _ = cpu_wall(lambda: import_floor(tree, work / f"floor{r}.db"))
        keep("floor", (c, w, {}))
        keep("parse half", parse_half(texts))
        keep("write half", write_half(tree, work / f"w{r}.db"))
        for label, drop in ablations.items():
            keep(label, write_half(tree, work / f"{label[-8:].replace(' ', '_')}{r}.db", drop))
        for label, setup in tactics.items():
            keep(label, write_half(tree, work / f"{label[-8:].replace(' ', '_')}{r}.db", setup=setup))
        with Brain.open(work / f"full{r}.db") as b:
            c, w, rep = cpu_wall(lambda: import_tree(b, tree))
            assert rep["ok"], rep["problems"]
        keep("full import (pool off)", (c, w, {}))
    fc, fw, _ = best["floor"]
    for label, (c, w, steps) in best.items():
        ratio = "" if label == "floor" else f"   {c / fc:6.2f}× / {w / fw:6.2f}× floor"
        print(f"  {label:<34} cpu {c:6.2f} s  wall {w:6.2f} s{ratio}")
        if label in ("parse half", "write half"):
            for s, v in steps.items():
                print(f"      {s:<32} cpu {v:6.2f} s   {v / fc:5.2f}× floor" + ("   (inside the steps above)" if s.startswith("SQL ") else ""))
            rest = c - sum(v for s, v in steps.items() if not s.startswith("SQL "))
            print(f"      {'(the rest)':<30} cpu {rest:6.2f} s   {rest / fc:5.2f}× floor")
    print(f"  load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pages", type=int, default=7471)
    ap.add_argument("--tree", action="append", default=[], help="an extra tree to measure")
    ap.add_argument("--skip-corpora", action="store_true", help="only the make_brain brain (and --tree)")
    ap.add_argument("--rounds", type=int, default=2, help="best of this many runs per figure")
    a = ap.parse_args()
    print(f"python {sys.version.split()[0]}, sqlite {sqlite3.sqlite_version}, {os.cpu_count()} cores; "
          "CPU = process_time of this process (parse pool off: all work in-process)")
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        for name, tree in ab_trees(tmp, a.pages, corpora=not a.skip_corpora) + [(Path(t).name, Path(t)) for t in a.tree]:
            bench(name, tree, tmp, a.rounds)


if __name__ == "__main__":
    main()
