#!/usr/bin/env python3
"""Sync and watch speed on a make_brain.py tree (issue 3), beside floors measured in the same run.

Prints:

* floor: ``os.walk`` + ``lstat`` of every file (what any change detector must at least do);
* no-change ``sync`` (in-process, median of 5; and the ``gbrain sync`` CLI once, process start
  included) — target ≤ 0.5 s;
* one-file-changed ``sync`` (median of 5);
* under a running ``gbrain watch`` (a subprocess, default 100 ms debounce): p50/p95 latency from a
  file save to the page being found by FTS search (target p50 ≤ 300 ms), and from a ``put``
  committed by another connection to the new bytes on disk (target p50 ≤ 500 ms), plus the same
  from launching the ``gbrain put`` CLI (its process start included);
* a burst of 1,000 new files: time from the first write until all 1,000 pages are in the brain
  (target ≤ 5 s), beside the time the writes themselves took.

* obsidian-hub (../shared/corpora, 6,571 files): how many files the first sync changed (must be
  0) and the no-change re-sync time beside the stat floor.

    python benchmarks/sync.py [--pages 7471] [--samples 30] [--skip-hub]
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gbrain.core.brain import Brain  # noqa: E402
from gbrain.search.keyword import search  # noqa: E402
from gbrain.sync.engine import SyncEngine  # noqa: E402
from gbrain.sync.importer import import_tree  # noqa: E402

MAKE_BRAIN = ROOT.parent / "shared" / "tools" / "make_brain.py"


def stat_floor(tree: Path) -> float:
    t = time.perf_counter()
    n = 0
    for dp, dn, fn in os.walk(tree):
        dn[:] = [d for d in dn if d != ".git"]
        for name in fn:
            os.lstat(os.path.join(dp, name))
            n += 1
    return time.perf_counter() - t


def median_of(fn, k: int = 5) -> float:
    xs = []
    for _ in range(k):
        t = time.perf_counter()
        fn()
        xs.append(time.perf_counter() - t)
    return statistics.median(xs)


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def wait(cond, timeout: float = 30.0, step: float = 0.002) -> float:
    t0 = time.perf_counter()
    while not cond():
        if time.perf_counter() - t0 > timeout:
            raise TimeoutError("benchmark condition not reached")
        time.sleep(step)
    return time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", type=int, default=7471)
    ap.add_argument("--samples", type=int, default=30)
    ap.add_argument("--skip-hub", action="store_true", help="skip the obsidian-hub corpus section")
    a = ap.parse_args()
    if not MAKE_BRAIN.exists():
        print(f"missing {MAKE_BRAIN}", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="gbrain-sync-bench-") as tmp:
        tmp_p = Path(tmp)
        tree = tmp_p / "tree"
        db = tmp_p / "brain.db"
        subprocess.run([sys.executable, str(MAKE_BRAIN), str(tree), "--pages", str(a.pages)], check=True, capture_output=True)
        nfiles = sum(len(fn) for _, _, fn in os.walk(tree))
        print(f"tree: {a.pages:,} pages, {nfiles:,} files ({tree})")
        with Brain.open(db) as brain:
            t = time.perf_counter()
            import_tree(brain, tree)
            print(f"setup: gbrain import {time.perf_counter() - t:.2f} s")
            eng = SyncEngine(brain, tree)
            eng.bind()
            t = time.perf_counter()
            rep = eng.sync()
            assert rep["ok"], rep["problems"]
            print(f"first sync (binds, hashes every file): {time.perf_counter() - t:.2f} s")
            time.sleep(1.1)  # let every mtime leave the 1 s racy window, as on a real tree
            eng.sync()

            floor = statistics.median(stat_floor(tree) for _ in range(5))
            nochange = median_of(lambda: eng.sync())
            rep = eng.sync()
            assert rep["ok"] and not any(rep["counts"].values()), rep["counts"]
            print(f"\nfloor: walk + lstat every file           {floor * 1000:8.1f} ms")
            print(f"no-change sync (in-process, median of 5)   {nochange * 1000:8.1f} ms   target ≤ 500 ms")

            target = tree / "people" / sorted(os.listdir(tree / "people"))[3]
            i = [0]

            def one_change():
                i[0] += 1
                with open(target, "ab") as f:
                    f.write(f"\nbenchmark edit {i[0]}\n".encode())
                r = eng.sync()
                assert r["counts"]["imported"] == 1, r["counts"]

            one = median_of(one_change)
            print(f"one-file-changed sync (median of 5)        {one * 1000:8.1f} ms")
            eng.close()
        env = dict(os.environ, GBRAIN_DB=str(db), PYTHONPATH=str(ROOT))
        t = time.perf_counter()
        r = subprocess.run([sys.executable, "-m", "gbrain", "sync", str(tree)], env=env, capture_output=True)
        cli = time.perf_counter() - t
        assert r.returncode == 0, r.stderr
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", "gbrain", "version"], env=env, capture_output=True)
        start = time.perf_counter() - t
        print(f"no-change `gbrain sync` CLI (process start incl.) {cli * 1000:8.1f} ms   (`gbrain version`: {start * 1000:.0f} ms)")

        # ---- watch -------------------------------------------------------------------
        w = subprocess.Popen([sys.executable, "-m", "gbrain", "watch", str(tree)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            while True:
                line = w.stderr.readline().decode()
                if not line:
                    raise RuntimeError("watch exited")
                if line.startswith("watching "):
                    break
            import threading

            threading.Thread(target=lambda: [None for _ in w.stderr], daemon=True).start()
            brain = Brain.open(db)
            files = sorted((tree / "companies").glob("*.md"))[: a.samples]
            lat_fs = []
            for k, f in enumerate(files):
                token = f"zqxbench{k}token"
                data = f.read_bytes() + f"\nLatency probe {token}.\n".encode()
                t0 = time.perf_counter()
                f.write_bytes(data)
                wait(lambda: bool(search(brain.conn, token, limit=1)))
                lat_fs.append(time.perf_counter() - t0)
                time.sleep(0.05)
            print(f"\nwatch: file save → searchable  p50 {pct(lat_fs, 50) * 1000:6.0f} ms  p95 {pct(lat_fs, 95) * 1000:6.0f} ms  (n={len(lat_fs)})   target p50 ≤ 300 ms")
            lat_db = []
            slugs = [r[0] for r in brain.conn.execute("SELECT slug FROM pages WHERE slug LIKE 'deals/%' ORDER BY slug LIMIT ?", (a.samples,))]
            for k, s in enumerate(slugs):
                text = brain.get_text(s) + f"\nput probe {k}\n"
                path = tree / brain.page_row(s)["path"]
                want = text.encode()
                t0 = time.perf_counter()
                brain.put(s, text)
                wait(lambda: path.stat().st_size == len(want) and path.read_bytes() == want)
                lat_db.append(time.perf_counter() - t0)
                time.sleep(0.05)
            print(f"watch: put committed → file on disk  p50 {pct(lat_db, 50) * 1000:6.0f} ms  p95 {pct(lat_db, 95) * 1000:6.0f} ms  (n={len(lat_db)})   target p50 ≤ 500 ms")
            lat_cli = []
            for k, s in enumerate(slugs[: max(5, a.samples // 3)]):
                text = brain.get_text(s) + f"\ncli put probe {k}\n"
                path = tree / brain.page_row(s)["path"]
                want = text.encode()
                t0 = time.perf_counter()
                subprocess.run([sys.executable, "-m", "gbrain", "put", s], input=want, env=env, capture_output=True, check=True)
                wait(lambda: path.stat().st_size == len(want) and path.read_bytes() == want)
                lat_cli.append(time.perf_counter() - t0)
            print(f"watch: `gbrain put` CLI launched → file on disk  p50 {pct(lat_cli, 50) * 1000:6.0f} ms  p95 {pct(lat_cli, 95) * 1000:6.0f} ms  (n={len(lat_cli)}; includes the CLI's process start)")
            burst = tree / "burst"
            burst.mkdir()
            t0 = time.perf_counter()
            for k in range(1000):
                (burst / f"note-{k:04d}.md").write_text(f"# Burst note {k}\n\nBody {k}.\n", encoding="utf-8")
            wrote = time.perf_counter() - t0
            wait(lambda: brain.conn.execute("SELECT COUNT(*) FROM pages WHERE path LIKE 'burst/%'").fetchone()[0] == 1000, timeout=60, step=0.01)
            settle = time.perf_counter() - t0
            print(f"watch: 1,000-file burst settled in {settle:.2f} s (writing the files took {wrote:.2f} s)   target ≤ 5 s")
            brain.close()
        finally:
            w.terminate()
            out, err = w.communicate(timeout=30)
        if not a.skip_hub:
            hub(tmp_p)
    return 0


def hub(tmp_p: Path) -> None:
    """obsidian-hub (6,571 files): first sync into an empty brain, how many files it changed
    (bytes or mtime; must be 0), and the no-change re-sync time beside the stat floor."""
    import shutil

    src = ROOT.parent / "shared" / "corpora" / "obsidian-hub"
    if not src.is_dir():
        print(f"\n(skipped obsidian-hub: {src} not found)")
        return
    tree = tmp_p / "hub"
    shutil.copytree(src, tree, symlinks=True)

    def snapshot() -> dict:
        out = {}
        for dp, dn, fn in os.walk(tree):
            for name in fn:
                full = os.path.join(dp, name)
                st = os.lstat(full)
                with open(full, "rb") as f:
                    out[full] = (st.st_mtime_ns, f.read())
        return out

    before = snapshot()
    with Brain.open(tmp_p / "hub.db") as brain:
        eng = SyncEngine(brain, tree)
        eng.bind()
        t = time.perf_counter()
        rep = eng.sync()
        first = time.perf_counter() - t
        time.sleep(1.1)
        eng.sync()
        changed = sum(1 for k, v in snapshot().items() if before.get(k) != v) + len(set(before) - set(snapshot()))
        floor = statistics.median(stat_floor(tree) for _ in range(5))
        nochange = median_of(lambda: eng.sync())
        eng.close()
    print(f"\nobsidian-hub: {len(before):,} files; first sync {first:.2f} s (ok={rep['ok']}), files changed by it: {changed}")
    print(f"obsidian-hub: no-change sync {nochange * 1000:.1f} ms (median of 5) beside the walk + lstat floor {floor * 1000:.1f} ms")


if __name__ == "__main__":
    sys.exit(main())
