#!/usr/bin/env python3
"""A brain after a year of use beside the same brain fresh: history's reads and writes, prune, space.

Makes a ``make_brain.py`` brain (``--pages``), imports it twice: one stays fresh (one version per
page), the other lives ``--days`` days, each day in one process as a person and agents would use
it (files edited, renamed, deleted and a folder moved in the tree, then ``sync``; through the
operations: compiled truth rewritten, timeline entries, tags, ``.raw`` sidecars, new pages,
deletes, restores from the trash, reverts). Its history's times are then spread back over the
days (day ``d``'s versions dated ``d`` days after the start, order kept), so ``--keep-days`` means
what it would. Then, on both brains, interleaved call by call so machine load hits both alike:

* the p50 CPU-ms (``time.process_time``, this process) of ``history`` (20 newest and all),
  ``diff``, ``changes --by``, ``changes --since 24h``, ``trash``, ``revert``, ``delete`` +
  ``restore`` ``undo --since 1h`` (dry) and ``search``, on the pages with the most versions, with the ratio
  aged / fresh;
* the keyword index's upkeep over the life (``db.fts_upkeep``: write transactions, merge steps,
  their CPU as a share of the life's; ``--no-upkeep`` lives without it), and the index it left
  beside the same index compacted ('optimize' on a copy): leaf pages, MB, search p50 CPU-ms;
* the aged brain's ``stats`` (versions, history bytes and share), a ``history-prune
  --keep-days 90 --keep-last 20 --apply`` (versions and bodies freed, trash entries lost: must be
  0), the file before and after, and ``VACUUM`` (file after, seconds).

    python benchmarks/aged_brain.py [--pages 2000] [--days 365] [--scale 1.2] [--keep DIR] [--no-upkeep]

At the defaults (trial 20) the aged brain holds ~105k versions; the life takes ~8 CPU-minutes.
Prints ``os.getloadavg()`` before and after (2 shared cores: CPU-ms are the steadier figure).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gbrain import operations as ops  # noqa: E402
from gbrain.core.brain import Brain  # noqa: E402
from gbrain.errors import GBrainError  # noqa: E402
from gbrain.storage import db as dbmod  # noqa: E402
from gbrain.storage import origin  # noqa: E402

MAKE_BRAIN = next((p for p in (ROOT.parent / "shared" / "tools" / "make_brain.py", Path("/work/shared/tools/make_brain.py")) if p.exists()), None)
AGENTS = ["claude", "enricher", "briefing-bot"]


class Life:
    """One brain's days: ``day(d)`` makes day ``d``'s changes, then syncs the tree."""

    def __init__(self, b: Brain, tree: Path, scale: float, seed: int = 20):
        self.b, self.tree, self.scale, self.rnd, self.new = b, tree, scale, random.Random(seed), 0
        self.errors: dict[str, int] = {}

    def n(self, x: float) -> int:
        return max(1, int(round(x * self.scale)))

    def run(self, name: str, args: dict, user: str | None = None):
        with origin.origin(user=user or self.rnd.choice(AGENTS)):
            try:
                return ops.run(name, args, brain=self.b)
            except GBrainError as e:  # a page another change removed today, a YAML that refuses a tag: counted
                k = f"{name}:{type(e).__name__}"
                self.errors[k] = self.errors.get(k, 0) + 1
                return None

    def day(self, d: int) -> None:
        rnd, tree, n = self.rnd, self.tree, self.n
        slugs = [r[0] for r in self.b.conn.execute("SELECT slug FROM pages")]
        rnd.shuffle(slugs)
        files, brain = slugs[: len(slugs) // 3], slugs[len(slugs) // 3:]
        for s in files[: n(30)]:  # the person's edits, in the tree
            p = tree / f"{s}.md"
            if p.exists():
                t = p.read_bytes()
                p.write_bytes(t + f"\n- **2026-{1 + d % 12:02d}-{1 + d % 28:02d}** | note — edit {d}\n".encode() if rnd.random() < 0.5
                              else t.replace(b"\n", f" (rev {d})\n".encode(), 1))
        k = n(30)
        for s in files[k: k + n(2)]:  # renames
            p = tree / f"{s}.md"
            if p.exists():
                p.rename(p.with_name(f"{p.stem}-r{d}.md"))
        k += n(2)
        for s in files[k: k + n(1)]:
            p = tree / f"{s}.md"
            if p.exists() and rnd.random() < 0.7:
                p.unlink()
        if d % 30 == 29:  # a folder's notes moved under archive/
            src = rnd.choice([x for x in tree.iterdir() if x.is_dir() and not x.name.startswith(".") and x.name != "archive"])
            dest = tree / "archive" / f"{src.name}-{d}"
            dest.mkdir(parents=True, exist_ok=True)
            for f in sorted(src.glob("*.md"))[:40]:
                f.rename(dest / f.name)
        o = 0
        for s in brain[o: o + n(60)]:
            self.run("put", {"slug": s, "compiled_truth": f"Reviewed on day {d}.\n\nStatus: {rnd.choice(['active', 'quiet', 'closed'])}. {rnd.randrange(10**6)}\n"})
        o += n(60)
        for s in brain[o: o + n(100)]:
            self.run("timeline-add", {"slug": s, "date": f"2026-{1 + d % 12:02d}-{1 + d % 28:02d}", "summary": f"event {d}.{rnd.randrange(1000)}", "source": "agent"})
        o += n(100)
        for s in brain[o: o + n(30)]:
            self.run("tag", {"slug": s, "tag": f"topic-{rnd.randrange(40)}", "remove": rnd.random() < 0.3})
        o += n(30)
        for s in brain[o: o + n(15)]:
            self.run("raw-put", {"slug": s, "source": rnd.choice(["crunchbase", "linkedin"]), "data": {"day": d, "pad": "x" * rnd.randrange(200, 3000)}})
        o += n(15)
        for _ in range(n(5)):
            self.new += 1
            self.run("put", {"slug": f"notes/new-{self.new}", "content": f"---\ntitle: New {self.new}\n---\nCreated on day {d}, see [[{rnd.choice(slugs)}]].\n"})
        for s in brain[o: o + n(2)]:
            self.run("delete", {"slug": s})
        o += n(2)
        if d % 3 == 0:
            items = self.run("trash", {"limit": 20}, user="owner") or []
            items = items.get("items", []) if isinstance(items, dict) else items
            if items:
                self.run("restore", {"slug": rnd.choice(items)["slug"]}, user="owner")
        if d % 5 == 0:
            h = self.run("history", {"slug": brain[o], "limit": 5}, user="owner")
            if h and len(h["versions"]) > 2:
                self.run("revert", {"slug": brain[o], "to": h["versions"][-1]["version"]}, user="owner")
        with origin.origin(user="owner"):
            try:
                ops.run("sync", {"dir": str(tree), "confirm_delete": True}, brain=self.b)
            except GBrainError as e:
                self.errors[f"sync:{type(e).__name__}"] = self.errors.get(f"sync:{type(e).__name__}", 0) + 1


def spread(db: Path, marks: list[int], start: datetime) -> None:
    """Date day ``d``'s history rows (ids up to ``marks[d]``) ``d`` days after ``start``, each
    keeping its time of day."""
    c = sqlite3.connect(db)
    lo = 0
    for d, hi in enumerate(marks):
        c.execute("UPDATE history SET at = ? || substr(at, 11) WHERE id > ? AND id <= ?", ((start + timedelta(days=d)).strftime("%Y-%m-%d"), lo, hi))
        lo = max(lo, hi)
    c.commit()
    c.close()


def cpu_ms(b: Brain, name: str, args: dict) -> float:
    t = time.process_time()
    try:
        ops.run(name, args, brain=b)
    except GBrainError:
        pass
    return (time.process_time() - t) * 1000


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", type=int, default=2000)
    ap.add_argument("--days", type=int, default=365)
    ap.add_argument("--scale", type=float, default=1.2, help="changes per day, x (1.2: ~290 versions a day)")
    ap.add_argument("--calls", type=int, default=15, help="calls per measured command and brain")
    ap.add_argument("--keep", help="work in this folder and keep it")
    ap.add_argument("--no-upkeep", action="store_true", help="live without the keyword index's upkeep (db.fts_upkeep), as before it")
    a = ap.parse_args()
    upkeep = {"calls": 0, "steps": 0, "cpu": 0.0}
    real_upkeep = dbmod.fts_upkeep

    def counted_upkeep(conn, step=dbmod.FTS_MERGE_STEP):
        t = time.process_time()
        ran = False if a.no_upkeep else real_upkeep(conn, step)
        upkeep["cpu"] += time.process_time() - t
        upkeep["calls"] += 1
        upkeep["steps"] += ran
        return ran

    dbmod.fts_upkeep = counted_upkeep
    print(f"load before {os.getloadavg()}", flush=True)
    work = Path(a.keep) if a.keep else Path(tempfile.mkdtemp(prefix="gbrain-aged-"))
    work.mkdir(parents=True, exist_ok=True)
    tree = work / "tree"
    if not tree.exists():
        subprocess.run([sys.executable, str(MAKE_BRAIN), str(tree), "--pages", str(a.pages)], check=True, capture_output=True)
    fresh_db, aged_db = work / "fresh.db", work / "aged.db"
    for p in (fresh_db, aged_db):
        for s in ("", "-wal", "-shm"):
            Path(str(p) + s).unlink(missing_ok=True)
    with Brain.open(fresh_db) as b:
        ops.run("import", {"dir": str(tree)}, brain=b)
    live = work / "live"
    shutil.rmtree(live, ignore_errors=True)
    shutil.copytree(tree, live)
    c0, t0 = time.process_time(), time.perf_counter()
    b = Brain.open(aged_db)
    ops.run("import", {"dir": str(live)}, brain=b)
    life = Life(b, live, a.scale)
    marks = [b.conn.execute("SELECT MAX(id) FROM history").fetchone()[0]]
    for d in range(a.days):
        life.day(d)
        marks.append(b.conn.execute("SELECT MAX(id) FROM history").fetchone()[0])
        if d % 30 == 29:
            print(f"  day {d + 1}: {marks[-1]:,} history rows, {time.process_time() - c0:.0f} CPU-s", flush=True)
    b.close()
    spread(aged_db, marks, datetime.now(timezone.utc) - timedelta(days=a.days))
    life_cpu = time.process_time() - c0
    print(f"life: {a.days} days, {life_cpu:.0f} CPU-s, {time.perf_counter() - t0:.0f} s wall; refused writes {life.errors}")
    print(f"keyword index upkeep{' (off)' if a.no_upkeep else ''}: {upkeep['calls']:,} write transactions, {upkeep['steps']:,} merge steps, "
          f"{upkeep['cpu']:.2f} CPU-s = {100 * upkeep['cpu'] / life_cpu:.2f}% of the life's CPU")
    # the index as the life left it beside the same index compacted ('optimize' on a copy): pages, search CPU
    compact_db = work / "aged-compact.db"
    c = sqlite3.connect(aged_db)
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    c.close()
    shutil.copyfile(aged_db, compact_db)
    c = sqlite3.connect(compact_db)
    c.execute("INSERT INTO page_fts(page_fts) VALUES ('optimize')")
    c.commit()
    c.close()
    idx = {}
    for k, p in (("aged", aged_db), ("compact", compact_db)):
        c = sqlite3.connect(p)
        segs = dbmod.fts_segments(c)
        idx[k] = (len(segs), sum(segs), c.execute("SELECT SUM(length(block)) FROM page_fts_data").fetchone()[0] / 1e6)
        c.close()
    pair = {"aged": Brain.open(aged_db), "compact": Brain.open(compact_db)}
    qs = ["reviewed status", "event", "meeting notes", "company board", "active", "quiet closed", "note edit", "topic"]
    got = {"aged": [], "compact": []}
    tops = {k: [[r["slug"] for r in ops.run("search", {"query": q, "limit": 10}, brain=v)] for q in qs] for k, v in pair.items()}
    for i in range(a.calls * 4):
        for k in ("aged", "compact") if i % 2 == 0 else ("compact", "aged"):
            got[k].append(cpu_ms(pair[k], "search", {"query": qs[i % len(qs)], "limit": 10}))
    for v in pair.values():
        v.close()
    fa, fc = statistics.median(got["aged"]), statistics.median(got["compact"])
    print(f"keyword index after the life: {idx['aged'][0]} segments, {idx['aged'][1]:,} leaf pages, {idx['aged'][2]:.2f} MB; "
          f"compacted: {idx['compact'][1]:,} leaf pages, {idx['compact'][2]:.2f} MB ({idx['aged'][1] / max(1, idx['compact'][1]):.2f}x); "
          f"search p50 {fa:.2f} vs {fc:.2f} CPU-ms ({fa / fc:.2f}x), top 10 the same: {tops['aged'] == tops['compact']}")

    brains = {"fresh": Brain.open(fresh_db), "aged": Brain.open(aged_db)}
    busiest = {k: [r[0] for r in v.conn.execute(
        "SELECT h.name FROM history h JOIN pages p ON p.slug = h.name WHERE h.kind = 'page' GROUP BY h.name ORDER BY COUNT(*) DESC, h.name LIMIT ?", (a.calls,))]
        for k, v in brains.items()}
    for k, v in brains.items():
        print(f"{k}: {v.conn.execute('SELECT COUNT(*) FROM history').fetchone()[0]:,} versions; busiest page "
              f"{v.conn.execute('SELECT COUNT(*) FROM history WHERE name = ?', (busiest[k][0],)).fetchone()[0]} versions")
    calls = [
        ("history", lambda k, i: {"slug": busiest[k][i]}),
        ("history --limit 0", lambda k, i: {"slug": busiest[k][i], "limit": 0}),
        ("diff", lambda k, i: {"slug": busiest[k][i]}),
        ("changes --by claude", lambda k, i: {"by": "claude", "limit": 50}),
        ("changes --since 24h", lambda k, i: {"since": "24h", "limit": 50}),
        ("trash", lambda k, i: {"limit": 50}),
        ("undo --since 1h (dry)", lambda k, i: {"since": "1h"}),
        ("revert --to 1", lambda k, i: {"slug": busiest[k][i], "to": 1}),
        ("search", lambda k, i: {"query": ["reviewed status", "event", "meeting notes", "company board", "active"][i % 5], "limit": 10}),
    ]
    print(f"\n{'p50 CPU-ms':22}{'fresh':>10}{'aged':>10}{'aged/fresh':>12}")
    for label, args in calls:
        name = label.split()[0]
        got: dict[str, list[float]] = {"fresh": [], "aged": []}
        for i in range(a.calls):
            for k in ("fresh", "aged") if i % 2 == 0 else ("aged", "fresh"):
                got[k].append(cpu_ms(brains[k], name, args(k, i)))
        f, g = statistics.median(got["fresh"]), statistics.median(got["aged"])
        print(f"{label:22}{f:10.2f}{g:10.2f}{g / f if f else float('nan'):12.1f}")
    got = {"fresh": [], "aged": []}
    for k, v in brains.items():
        for s in [r[0] for r in v.conn.execute("SELECT slug FROM pages ORDER BY slug LIMIT ? OFFSET 100", (a.calls,))]:
            got[k].append(cpu_ms(v, "delete", {"slug": s}) + cpu_ms(v, "restore", {"slug": s}))
    f, g = statistics.median(got["fresh"]), statistics.median(got["aged"])
    print(f"{'delete + restore':22}{f:10.2f}{g:10.2f}{g / f:12.1f}")
    for v in brains.values():
        v.close()

    def stats() -> str:
        return subprocess.run([sys.executable, "-m", "gbrain", "--db", str(aged_db), "stats"], capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}).stdout.strip().splitlines()[-2:]

    def size() -> float:
        c = sqlite3.connect(aged_db)
        c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        c.close()
        return aged_db.stat().st_size / 1e6

    print(f"\naged stats: {stats()}; file {size():.1f} MB")
    with Brain.open(aged_db) as b:
        trash0 = {(t["slug"], t["version"]) for t in ops.run("trash", {"limit": 0}, brain=b)}
        t = time.process_time()
        r = ops.run("history-prune", {"keep_days": 90, "keep_last": 20, "apply": True}, brain=b)
        pc = time.process_time() - t
        trash1 = {(t["slug"], t["version"]) for t in ops.run("trash", {"limit": 0}, brain=b)}
        lost = [x for x in trash0 - trash1 if x[0] not in {y[0] for y in trash1}]
    print(f"prune --keep-days 90 --keep-last 20: {r['versions']:,} versions, {r['bodies']:,} bodies, {r['bytes'] / 1e6:.2f} MB compressed, "
          f"{pc:.1f} CPU-s; deleted pages that left the trash: {len(lost)}; trash entries that left: {len(trash0 - trash1)} of {len(trash0)} "
          "(0: a prune without include_deleted leaves the trash as it was)")
    print(f"after prune: {stats()}; file {size():.1f} MB")
    c = sqlite3.connect(aged_db)
    t = time.perf_counter()
    c.execute("VACUUM")
    c.close()
    print(f"VACUUM: file {size():.1f} MB in {time.perf_counter() - t:.1f} s")
    print(f"load after {os.getloadavg()}")
    print(json.dumps({"work": str(work)}))


if __name__ == "__main__":
    main()
