"""Trial 55's storm A in small: ~2,000 notes rewritten in place at once under `gbrain watch`
(Obsidian's "update internal links" after a rename of a much-linked note), while another
process writes through gbrain every 0.2 s (an agent's ``timeline_add``: ``Brain.timeline_add``
on its own connection, as ``gbrain serve`` runs it). Watch cuts the round's plain in-place edits
into chunks (``gbrain.sync.engine.CHUNK_PATHS``, one committed transaction each); the same run
measures it with chunking on (the default, or ``--chunk N``) and off (``GBRAIN_WATCH_CHUNK=0``).

``--round offline``: the notes rewritten while no watch runs, then watch started: its first sync
(``Watcher._sync``) with the writer writing on.

``--round sync``: the notes rewritten while nothing runs, then a one-shot ``gbrain sync`` with the
writer writing on: sync commits the renames and in-place edits in chunks before its full sync
(``SyncEngine.chunk_prepass``), on (the default, or ``--chunk N``) and off (``GBRAIN_SYNC_CHUNK=0``);
the CPU column is the sync process's (its rusage).

``--round rename``: a folder of ~2,000 notes renamed instead (one ``rename``; the observer's
batch is the folder's two names and every note's two ends): watch carries out its exact renames
a few per transaction before the rest of the round (``Watcher._move_chunks``).

Per mode it prints the writer's latency (p50 / p95 / max, wall: it is a wait for the brain's
write lock, so the machine's load counts) over the writes made from the storm's start until
every note reached the brain, how many writes that was, the storm's settle time, and watch's
CPU for the storm (user + system of the watch process, from /proc).

    python benchmarks/watch_big_round.py --notes 2000
    python benchmarks/watch_big_round.py --notes 500 --chunk 30 --modes on
    python benchmarks/watch_big_round.py --notes 2000 --round rename
    python benchmarks/watch_big_round.py --notes 2000 --round sync
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: the gbrain checkout to run (GBRAIN_ROOT: another one, to measure a baseline)
ROOT = Path(os.environ.get("GBRAIN_ROOT") or Path(__file__).resolve().parent.parent)

WRITER = r"""
import json, os, sys, time
from gbrain.core.brain import Brain
db, out, stop = sys.argv[1], sys.argv[2], sys.argv[3]
with Brain.open(db) as b, open(out, "w") as fh:
    i = 0
    while not os.path.exists(stop):
        i += 1
        t0 = time.time()
        b.timeline_add("agent/log", "2026-12-05", f"entry {i}", "agent")
        t1 = time.time()
        fh.write(json.dumps([t0, t1 - t0]) + "\n")
        fh.flush()
        time.sleep(max(0.0, 0.2 - (time.time() - t1)))
"""


def make_tree(root: Path, n: int, folders: int = 20) -> None:
    root.mkdir(parents=True)
    (root / "agent").mkdir()
    (root / "agent" / "log.md").write_text("# Agent log\n\n---\n\n")
    (root / "Mobile plugins.md").write_text("# Mobile plugins\n\nThe much-linked note.\n")
    for i in range(n):
        d = root / f"folder{i % folders:02d}"
        d.mkdir(exist_ok=True)
        body = "\n".join(f"Paragraph {j} of note {i}: some words about plugins, themes and [[note{(i + j) % n:04d}]]." for j in range(8))
        (d / f"note{i:04d}.md").write_text(f"# Note {i}\n\nSee [[Mobile plugins]] and [[Mobile plugins#Overview|the list]].\n\n{body}\n")


def cpu_of(pid: int) -> float:
    """User + system CPU seconds of ``pid`` (and its children waited for), from /proc."""
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return sum(int(x) for x in f[11:15]) / os.sysconf("SC_CLK_TCK")


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def run(mode: str, n: int, chunk: int | None, tmp: Path, kind: str = "edit") -> dict:
    work = tmp / f"{kind}-{mode}"
    tree, db = work / "vault", work / "brain.db"
    make_tree(tree, n, 1 if kind == "rename" else 20)
    env = dict(os.environ, GBRAIN_DB=str(db), PYTHONPATH=str(ROOT))
    var = "GBRAIN_SYNC_CHUNK" if kind == "sync" else "GBRAIN_WATCH_CHUNK"
    if mode == "off":
        env[var] = "0"
    elif chunk is not None:
        env[var] = str(chunk)
    else:
        env.pop(var, None)
    if kind == "sync":  # bound by a first sync, as a folder synced before
        subprocess.run([sys.executable, "-m", "gbrain", "sync", str(tree)], env=env, cwd=str(ROOT), check=True, capture_output=True)
        return run_sync(mode, n, tree, db, env, work)
    subprocess.run([sys.executable, "-m", "gbrain", "import", str(tree)], env=env, cwd=str(ROOT), check=True, capture_output=True)
    import threading

    stop, lat = work / "stop", work / "lat.jsonl"
    lines: list[str] = []
    wr = None
    if kind == "offline":  # the storm while no watch runs; the writer writes on while watch starts
        for f in sorted(tree.glob("folder*/note*.md")):
            data = f.read_bytes().replace(b"[[Mobile plugins", b"[[Mobile plugins (hub)")
            with open(f, "r+b") as fh:
                fh.truncate(0)
                fh.write(data)
        wr = subprocess.Popen([sys.executable, "-c", WRITER, str(db), str(lat), str(stop)], env=env, cwd=str(ROOT))
        time.sleep(2.0)
        t0 = time.time()
    w = subprocess.Popen([sys.executable, "-m", "gbrain", "watch", str(tree)], stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, env=env, text=True, cwd=str(ROOT))
    try:
        if kind == "offline":
            cpu0 = 0.0  # (watch's whole CPU: its start-up, ~0.3 s, included)
            threading.Thread(target=lambda: [lines.append(s) for s in w.stderr], daemon=True).start()
        else:
            for line in w.stderr:
                if line.startswith("watching "):
                    break
            else:
                raise SystemExit(f"watch ({mode}) did not start")
            threading.Thread(target=lambda: [lines.append(s) for s in w.stderr], daemon=True).start()
            wr = subprocess.Popen([sys.executable, "-c", WRITER, str(db), str(lat), str(stop)], env=env, cwd=str(ROOT))
            time.sleep(2.0)  # the writer's first writes reach the file; the loop is steady
            cpu0, t0 = cpu_of(w.pid), time.time()
        if kind == "offline":
            done_sql = "SELECT COUNT(*) FROM pages WHERE compiled_truth LIKE '%[[Mobile plugins (hub)%'"
        elif kind == "rename":
            os.rename(tree / "folder00", tree / "renamed00")  # one folder of every note
            done_sql = "SELECT COUNT(*) FROM pages WHERE path LIKE 'renamed00/%'"
        else:
            notes = sorted(tree.glob("folder*/note*.md"))
            for f in notes:  # in place, the same inode, as Obsidian's link updater writes
                data = f.read_bytes().replace(b"[[Mobile plugins", b"[[Mobile plugins (hub)")
                with open(f, "r+b") as fh:
                    fh.truncate(0)
                    fh.write(data)
            done_sql = "SELECT COUNT(*) FROM pages WHERE compiled_truth LIKE '%[[Mobile plugins (hub)%'"
        storm_s = time.time() - t0
        import sqlite3

        while True:
            c = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=60)
            try:
                done = c.execute(done_sql).fetchone()[0]
            except sqlite3.OperationalError:
                done = -1
            c.close()
            if done >= n:
                break
            time.sleep(0.2)
        t1 = time.time()
        time.sleep(1.0)
        cpu = cpu_of(w.pid) - cpu0
        stop.touch()
        wr.wait(timeout=600)
        rows = [json.loads(s) for s in lat.read_text().splitlines() if s.strip()]
        during = [d for t, d in rows if t0 <= t <= t1]
        w.send_signal(signal.SIGINT)
        w.wait(timeout=120)
        return {"mode": mode, "moved": sum(1 for s in lines if s.startswith("> ")), "writes": len(during), "p50": statistics.median(during) if during else float("nan"),
                "p95": pct(during, 0.95) if during else float("nan"), "max": max(during) if during else float("nan"),
                "storm_s": storm_s, "settled_s": t1 - t0, "watch_cpu": cpu, "errors": sum(1 for s in lines if "Traceback" in s or "MISMATCH" in s)}
    finally:
        if w.poll() is None:
            w.kill()


def run_sync(mode: str, n: int, tree: Path, db: Path, env: dict, work: Path) -> dict:
    """``--round sync``: the storm while nothing runs, the writer started, then one ``gbrain sync``
    (its wall time is the window the writer's waits are taken from; its CPU from its rusage)."""
    import resource

    for f in sorted(tree.glob("folder*/note*.md")):
        data = f.read_bytes().replace(b"[[Mobile plugins", b"[[Mobile plugins (hub)")
        with open(f, "r+b") as fh:
            fh.truncate(0)
            fh.write(data)
    stop, lat = work / "stop", work / "lat.jsonl"
    wr = subprocess.Popen([sys.executable, "-c", WRITER, str(db), str(lat), str(stop)], env=env, cwd=str(ROOT))
    try:
        time.sleep(2.0)
        ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)  # (the writer is not waited for yet: not in it)
        t0 = time.time()
        r = subprocess.run([sys.executable, "-m", "gbrain", "sync", str(tree), "--json"], env=env, cwd=str(ROOT), capture_output=True, text=True)
        t1 = time.time()
        ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    finally:
        stop.touch()
        wr.wait(timeout=600)
    rep = json.loads(r.stdout) if r.stdout.strip() else {}
    rows = [json.loads(s) for s in lat.read_text().splitlines() if s.strip()]
    during = [d for t, d in rows if t0 <= t <= t1]
    imported = (rep.get("counts") or {}).get("imported", -1)
    return {"mode": mode, "moved": 0, "writes": len(during), "p50": statistics.median(during) if during else float("nan"),
            "p95": pct(during, 0.95) if during else float("nan"), "max": max(during) if during else float("nan"),
            "storm_s": 0.0, "settled_s": t1 - t0, "watch_cpu": (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime),
            "errors": int(r.returncode not in (0, 3)) + int(imported != n)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--notes", type=int, default=2000)
    ap.add_argument("--chunk", type=int, default=None, help="paths per chunk when on (default: CHUNK_PATHS)")
    ap.add_argument("--modes", default="on,off")
    ap.add_argument("--round", default="edit", choices=["edit", "rename", "offline", "sync"],
                    help="edit: notes rewritten in place; rename: their folder renamed; offline: rewritten while no watch runs, then watch starts (its first sync); "
                    "sync: rewritten while nothing runs, then one `gbrain sync`")
    ap.add_argument("--keep", action="store_true", help="keep the temp folder")
    a = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="watch-big-round-"))
    try:
        load = os.getloadavg()[0]
        what = {"rename": "moved by one folder rename", "offline": "rewritten in place while watch was stopped, then watch started",
                "sync": "rewritten in place while nothing ran, then one `gbrain sync` (CPU: the sync's; settled: its wall time)"}.get(a.round, "rewritten in place")
        print(f"{a.notes} notes {what}; writer every 0.2 s; load {load:.1f} on {os.cpu_count()} cores; gbrain {ROOT}")
        print(f"{'mode':5} {'writes':>6} {'p50 s':>7} {'p95 s':>7} {'max s':>7} {'storm s':>8} {'settled s':>9} {('sync CPU s' if a.round == 'sync' else 'watch CPU s'):>11}")
        for mode in a.modes.split(","):
            r = run(mode, a.notes, a.chunk, tmp, a.round)
            print(f"{r['mode']:5} {r['writes']:6d} {r['p50']:7.3f} {r['p95']:7.3f} {r['max']:7.3f} {r['storm_s']:8.1f} {r['settled_s']:9.1f} {r['watch_cpu']:11.1f}"
                  + (f"  ({r['moved']} moves said)" if a.round == "rename" else "")
                  + (f"  ({r['errors']} error lines)" if r["errors"] else ""), flush=True)
        print(f"load after: {os.getloadavg()[0]:.1f}")
    finally:
        if not a.keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
