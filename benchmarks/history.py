#!/usr/bin/env python3
"""Page history cost on a make_brain.py brain (issue 12), beside the same brain without history.

Builds the 7,471-page brain, imports it, copies the DB and drops the history triggers from the
copy (the baseline: what a brain costs without history). Then applies ``--edits`` rounds of
edits to every page on both, interleaved write by write so machine load hits both alike; the
edits rotate through what agents and people do (a timeline entry, a tag, a rewritten compiled
truth through a partial put, a full put with one line changed). Prints:

* DB size after the edits with history against without (target ≤ 1.5×), the history tables'
  bytes (SQLite's dbstat) and the raw size of all the versions they hold;
* the median and p95 time of a write with history against without (target ≤ 10% slower);
* ``history SLUG`` (with line counts), ``diff SLUG`` and ``changes`` latency.

    python benchmarks/history.py [--pages 7471] [--edits 10] [--keep DIR] [--baseline no-writer]

``--baseline no-writer`` measures the cost of recording who wrote each version (migration v16's
``writer`` column) instead: the baseline copy keeps its history and gets the history triggers
of schema v15 (no ``writer``, no ``gb_origin(3)`` call), the triggers gbrain had before; the
"with" brain has v16's. Both write the same history otherwise, so the difference is the writer.
"""
from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gbrain import operations as ops  # noqa: E402
from gbrain.core import history as h  # noqa: E402
from gbrain.core.brain import Brain  # noqa: E402
from gbrain.sync.importer import import_tree  # noqa: E402

MAKE_BRAIN = next((p for p in (ROOT.parent / "shared" / "tools" / "make_brain.py", Path("/work/shared/tools/make_brain.py")) if p.exists()), None)


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def db_bytes(path: Path) -> int:
    c = sqlite3.connect(path)
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    n = c.execute("PRAGMA page_count").fetchone()[0] * c.execute("PRAGMA page_size").fetchone()[0] - c.execute("PRAGMA freelist_count").fetchone()[0] * c.execute("PRAGMA page_size").fetchone()[0]
    c.close()
    return n


def table_bytes(path: Path, names: tuple[str, ...]) -> int:
    c = sqlite3.connect(path)
    ph = ",".join("?" * len(names))
    idx = [r[0] for r in c.execute(f"SELECT name FROM sqlite_master WHERE tbl_name IN ({ph})", names)]
    n = c.execute(f"SELECT COALESCE(SUM(pgsize), 0) FROM dbstat WHERE name IN ({','.join('?' * len(idx))})", idx).fetchone()[0]
    c.close()
    return n


def edit(b: Brain, slug: str, rnd: int, i: int) -> None:
    from gbrain.errors import GBrainError

    try:
        _edit(b, slug, rnd, i)
    except GBrainError:  # a page whose YAML does not load refuses a tag: append a line instead
        b.put(slug, b.get_text(slug) + f"\nedit {rnd}\n")


def _edit(b: Brain, slug: str, rnd: int, i: int) -> None:
    k = rnd % 4
    if k == 0:
        b.timeline_add(slug, f"2025-{1 + rnd % 12:02d}-{1 + i % 28:02d}", f"Benchmark event {rnd} for {slug}", "bench")
    elif k == 1:
        b.tag(slug, f"bench-{rnd}")
    elif k == 2:
        ops.run("put", {"slug": slug, "compiled_truth": f"Rewritten in round {rnd}: {slug} is still active, status reviewed.\n\nMore detail {i}.\n"}, brain=b)
    else:
        text = b.get_text(slug)
        b.put(slug, text.replace("\n", f" (r{rnd})\n", 1) if "\n" in text else text + f" r{rnd}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", type=int, default=7471)
    ap.add_argument("--edits", type=int, default=10, help="edits per page")
    ap.add_argument("--edit-pages", type=int, default=0, help="edit only this many pages (spread over the brain; 0: all); the size at all pages is then extrapolated from the bytes per edit")
    ap.add_argument("--keep", help="work in this folder and keep it")
    ap.add_argument("--stop-file", help="when this file exists, stop after the current round and print the figures of the rounds done")
    ap.add_argument("--baseline", choices=("none", "no-writer"), default="none",
                    help="what the copy is measured against: no history triggers (none), or v15's history triggers, without the writer (no-writer)")
    a = ap.parse_args()
    label = "without" if a.baseline == "none" else "v15 triggers (no writer)"
    work = Path(a.keep) if a.keep else Path(tempfile.mkdtemp(prefix="gbrain-hist-"))
    work.mkdir(parents=True, exist_ok=True)
    tree = work / "tree"
    if not tree.exists():
        if MAKE_BRAIN is None:
            sys.exit("make_brain.py not found (../shared/tools)")
        subprocess.run([sys.executable, str(MAKE_BRAIN), str(tree), "--pages", str(a.pages)], check=True, capture_output=True)
    with_h, without = work / "with.db", work / "without.db"
    for p in (with_h, without):
        for s in ("", "-wal", "-shm"):
            Path(str(p) + s).unlink(missing_ok=True)
    t = time.perf_counter()
    with Brain.open(with_h) as b:
        import_tree(b, tree)
    t_import = time.perf_counter() - t
    c = sqlite3.connect(with_h)
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    c.close()
    shutil.copy(with_h, without)
    c = sqlite3.connect(without)
    for (name,) in c.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE '%history%'").fetchall():
        c.execute(f"DROP TRIGGER {name}")
    if a.baseline == "none":
        c.execute("DELETE FROM history")
        c.execute("DELETE FROM history_bodies")
    else:  # the triggers of schema v15: the same history, without the writer
        c.executescript(h._page_triggers(w=False) + h._files_ad(w=False) + h.pieces_triggers_sql(w=False))
    c.commit()
    c.execute("VACUUM")
    c.close()
    size0_with, size0_without = db_bytes(with_h), db_bytes(without)
    bw, bo = Brain.open(with_h), Brain.open(without)
    all_slugs = [r[0] for r in bw.conn.execute("SELECT slug FROM pages ORDER BY slug")]
    slugs = all_slugs if not a.edit_pages or a.edit_pages >= len(all_slugs) else all_slugs[:: max(1, len(all_slugs) // a.edit_pages)][: a.edit_pages]
    tw: list[float] = []
    to: list[float] = []
    cpu = {id(tw): 0.0, id(to): 0.0}  # CPU-s of this process per DB: load hits wall time, much less CPU time
    t0 = time.perf_counter()
    load0 = os.getloadavg()
    cpu0 = resource.getrusage(resource.RUSAGE_SELF)
    for rnd in range(a.edits):
        for i, s in enumerate(slugs):
            first = (i + rnd) % 2  # alternate which DB goes first
            for which in ((bw, tw), (bo, to)) if first else ((bo, to), (bw, tw)):
                t, c0 = time.perf_counter(), time.process_time()
                edit(which[0], s, rnd, i)
                which[1].append(time.perf_counter() - t)
                cpu[id(which[1])] += time.process_time() - c0
        k = len(slugs)
        rw, ro = tw[-k:], to[-k:]
        print(f"round {rnd + 1}/{a.edits} done ({time.perf_counter() - t0:.0f} s, load {os.getloadavg()[0]:.2f}): this round's write median {statistics.median(rw) * 1e3:.2f} vs "
              f"{statistics.median(ro) * 1e3:.2f} ms = {100 * (statistics.median(rw) / statistics.median(ro) - 1):+.1f}%; so far {100 * (statistics.median(tw) / statistics.median(to) - 1):+.1f}% "
              f"(CPU {100 * (cpu[id(tw)] / cpu[id(to)] - 1):+.1f}%)", file=sys.stderr, flush=True)
        if a.stop_file and os.path.exists(a.stop_file):
            print(f"stopped after round {rnd + 1} ({a.stop_file} exists)", file=sys.stderr)
            a.edits = rnd + 1
            break
    cpu1 = resource.getrusage(resource.RUSAGE_SELF)
    load1 = os.getloadavg()
    t_edits = time.perf_counter() - t0
    # latency of reading history
    rng = random.Random(1)
    sample = rng.sample(slugs, min(200, len(slugs)))
    th, td = [], []
    for s in sample:
        t = time.perf_counter()
        h.versions(bw, s)
        th.append(time.perf_counter() - t)
        t = time.perf_counter()
        h.diff(bw, s)
        td.append(time.perf_counter() - t)
    tc = []
    for _ in range(20):
        t = time.perf_counter()
        h.changes(bw, since=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 86400)), limit=100)
        tc.append(time.perf_counter() - t)
    raw_all = bw.conn.execute("SELECT COALESCE(SUM(size), 0), COUNT(*) FROM history WHERE body_id IS NOT NULL").fetchone()
    raw_distinct = bw.conn.execute("SELECT COALESCE(SUM(size), 0), COUNT(*), COALESCE(SUM(length(data)), 0) FROM history_bodies").fetchone()
    bw.close()
    bo.close()
    sw, so = db_bytes(with_h), db_bytes(without)
    hist_bytes = table_bytes(with_h, ("history", "history_bodies"))
    body_bytes = table_bytes(with_h, ("history_bodies",))
    mw, mo = statistics.median(tw), statistics.median(to)
    if len(slugs) < len(all_slugs):
        per_edit = ((sw - size0_with) - (so - size0_without)) / max(1, len(tw))
        full_with = size0_with + (so - size0_without) / len(tw) * a.edits * len(all_slugs) + per_edit * a.edits * len(all_slugs)
        full_without = size0_without + (so - size0_without) / len(tw) * a.edits * len(all_slugs)
        extra = (f"extrapolated to {a.edits} edits on all {len(all_slugs):,} pages from {per_edit:,.0f} history bytes per edit: "
                 f"{full_with / 1e6:.1f} MB vs {full_without / 1e6:.1f} MB = {full_with / full_without:.2f}x (target <= 1.5x)")
    else:
        extra = ""
    print(f"load average (1/5/15 min) before the edits {load0[0]:.2f}/{load0[1]:.2f}/{load0[2]:.2f}, after {load1[0]:.2f}/{load1[1]:.2f}/{load1[2]:.2f} on {os.cpu_count()} cores; "
          f"the edits took {t_edits:.0f} s wall, {cpu1.ru_utime + cpu1.ru_stime - cpu0.ru_utime - cpu0.ru_stime:.0f} CPU-s")
    print(f"brain: {len(all_slugs):,} pages; {a.edits} edits on each of {len(slugs):,} of them ({len(tw):,} writes on each DB); import with history {t_import:.1f} s")
    print(f"after import: {size0_with / 1e6:.1f} MB with history, {size0_without / 1e6:.1f} MB {label}")
    print(f"after the edits: {sw / 1e6:.1f} MB with history vs {so / 1e6:.1f} MB {label} = {sw / so:.2f}x (target <= 1.5x)")
    if extra:
        print("  " + extra)
    print(f"  history tables {hist_bytes / 1e6:.1f} MB (bodies {body_bytes / 1e6:.1f} MB, version rows {(hist_bytes - body_bytes) / 1e6:.1f} MB)")
    print(f"  versions held: {raw_all[1]:,} versions, {raw_all[0] / 1e6:.1f} MB raw; {raw_distinct[1]:,} distinct bodies, {raw_distinct[0] / 1e6:.1f} MB raw -> {raw_distinct[2] / 1e6:.1f} MB stored ({raw_all[0] / max(1, raw_distinct[2]):.0f}x smaller than the raw versions)")
    print(f"write (one edit, own transaction): median {mw * 1e3:.2f} ms with history vs {mo * 1e3:.2f} ms {label} = {100 * (mw / mo - 1):+.1f}% (target <= +10%); "
          f"p95 {pct(tw, 0.95) * 1e3:.2f} vs {pct(to, 0.95) * 1e3:.2f} ms; total {sum(tw):.1f} s vs {sum(to):.1f} s = {100 * (sum(tw) / sum(to) - 1):+.1f}%")
    print(f"  CPU per write (mean, this process): {cpu[id(tw)] / len(tw) * 1e3:.2f} ms with history vs {cpu[id(to)] / len(to) * 1e3:.2f} ms {label} = {100 * (cpu[id(tw)] / cpu[id(to)] - 1):+.1f}%")
    print(f"history SLUG (20 newest, with line counts): median {statistics.median(th) * 1e3:.2f} ms, p95 {pct(th, 0.95) * 1e3:.2f} ms")
    print(f"diff SLUG (newest two): median {statistics.median(td) * 1e3:.2f} ms, p95 {pct(td, 0.95) * 1e3:.2f} ms")
    print(f"changes --since 24h (100 newest of {raw_all[1]:,}+ rows): median {statistics.median(tc) * 1e3:.2f} ms")
    if not a.keep:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
