"""Kill -9 trials: import, sync and watch killed at random points on a 2,000-page brain.

Each trial starts a real `gbrain` process, kills it with SIGKILL at a random moment of its run
(uniform over the duration measured in a calibration run), then checks what a person would
need after a crash:

1. integrity: SQLite's integrity_check, the FTS index and foreign keys are sound (`gbrain check`);
2. convergence: the next run (import, or sync) succeeds, and a second sync changes nothing;
3. every version survives: each version written by either side before the kill (the files
   edited on disk, the pages written through gbrain) is in the brain, on disk (a conflict copy)
   or in the trash; each deleted file's last synced version is in the trash;
4. verify is clean, and the brain equals a fresh import of its own export
   (`verify.fresh_import_differences`);
5. no `.gbrain-tmp-*` file is left in the folder after the next run.

    python benchmarks/faults.py [--trials 30] [--pages 2000] [--seed 1] [--modes import,sync,watch]

Prints one line per trial, then trials, failures and seconds per mode, and the load average
(``os.getloadavg()``) at the start and the end. A failure prints what was wrong; the exit code
is 1 when any trial failed.
"""
from __future__ import annotations

import argparse
import hashlib
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
MAKE_BRAIN = ROOT.parent / "shared" / "tools" / "make_brain.py"
if not MAKE_BRAIN.exists():
    MAKE_BRAIN = Path("/work/shared/tools/make_brain.py")

from gbrain.core.brain import Brain  # noqa: E402
from gbrain.sync import verify  # noqa: E402

ENV = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}


def sha(b: bytes) -> str:
    return hashlib.sha256(b).hexdigest()


def gb(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gbrain", *args], capture_output=True, env=ENV, **kw)


def start(*args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "gbrain", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)


def disk_hashes(root: Path) -> dict[str, str]:
    out = {}
    for p in root.rglob("*"):
        if p.is_file() and not p.is_symlink():
            out[p.relative_to(root).as_posix()] = sha(p.read_bytes())
    return out


def kept_versions(db: Path, root: Path) -> set[str]:
    with Brain.open(db) as b:
        have = {r[0] for r in b.conn.execute("SELECT content_hash FROM pages UNION SELECT content_hash FROM files")}
        # every version written is in the history (the trash is a view of it, docs/history.md)
        have |= {r[0] for r in b.conn.execute("SELECT hash FROM history_bodies")}
    return have | set(disk_hashes(root).values())


def check(db: Path, root: Path, versions: set[str], trashed: set[str]) -> list[str]:
    """What is wrong after the crash and the converging run (empty list: nothing)."""
    bad = []
    r = gb("check", "--db", str(db))
    if r.returncode != 0:
        bad.append("integrity: " + (r.stdout + r.stderr).decode()[-300:])
        return bad
    r = gb("sync", str(root), "--db", str(db), "--json")
    if r.returncode not in (0, 3):
        bad.append(f"sync after the crash exited {r.returncode}: {r.stderr.decode()[-300:]}")
    r = gb("sync", str(root), "--db", str(db), "--json")
    import json

    try:
        rep = json.loads(r.stdout)
        if r.returncode != 0 or any(rep["counts"].values()):
            bad.append(f"second sync not quiet: exit {r.returncode}, counts {rep['counts']}")
    except ValueError:
        bad.append(f"second sync: {r.stderr.decode()[-300:]}")
    r = gb("verify", str(root), "--db", str(db))
    if r.returncode != 0:
        bad.append("verify: " + r.stdout.decode()[-300:] + r.stderr.decode()[-300:])
    have = kept_versions(db, root)
    lost = versions - have
    if lost:
        bad.append(f"{len(lost)} written version(s) lost")
    gone = trashed - have
    if gone:
        bad.append(f"{len(gone)} deleted file version(s) not in the history (the trash)")
    left = [p for p in disk_hashes(root) if "/.gbrain-tmp-" in "/" + p]
    if left:
        bad.append(f"temp files left: {left[:3]}")
    with Brain.open(db) as b:
        diff = verify.fresh_import_differences(b)
    if diff:
        bad.append(f"incremental != fresh import: {sorted(diff)}")
    return bad


def edits(rng: random.Random, root: Path, db: Path, n: int, both: bool = True) -> tuple[set[str], set[str]]:
    """Edit the folder and the brain like a person and an agent would: returns (hashes of every
    version written, base hashes of files deleted on disk). ``both`` also edits some pages on
    both sides (conflicts for a sync; with watch running, the agent's read-modify-write would
    knowingly replace the imported disk edit, which is an edit, not a loss)."""
    pages = sorted(p for p in disk_hashes(root) if p.endswith(".md") and "/" in p and ".conflict-" not in p)
    rng.shuffle(pages)
    versions: set[str] = set()
    trashed: set[str] = set()
    disk_side, brain_side, deleted = pages[:n], pages[n : 2 * n], pages[3 * n : 3 * n + n // 4]
    both = pages[2 * n : 2 * n + n // 4] if both else []
    with Brain.open(db) as b:  # what the agent read before the person saved: concurrent edits
        brain_texts = {p: b.get_text(p[:-3]) for p in brain_side + both}
    for p in disk_side + both:
        f = root / p
        data = f.read_bytes() + f"\nedited on disk {rng.random()}\n".encode()
        f.write_bytes(data)
        versions.add(sha(data))
    for p in deleted:
        trashed.add(sha((root / p).read_bytes()))
        (root / p).unlink()
    with Brain.open(db) as b:
        for p in brain_side + both:
            slug = p[:-3]
            text = brain_texts[p] + f"\nedited in the brain {rng.random()}\n"
            b.put(slug, text)
            versions.add(sha(text.encode()))
        for i in range(n // 4):
            text = f"# New {i}\n\nWritten by an agent {rng.random()}.\n"
            b.put(f"notes/agent-{rng.randrange(10**9)}", text)
            versions.add(sha(text.encode()))
    return versions, trashed


def kill_at(proc: subprocess.Popen, delay: float) -> bool:
    """SIGKILL ``proc`` after ``delay`` seconds; False when it had already finished."""
    try:
        proc.wait(timeout=delay)
        return False
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        return True


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--trials", type=int, default=30)
    ap.add_argument("--pages", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--edits", type=int, default=40, help="pages edited per side before a sync/watch trial")
    ap.add_argument("--modes", default="import,sync,watch")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    modes = a.modes.split(",")
    work = Path(tempfile.mkdtemp(prefix="gbrain-faults-"))
    t_all = time.perf_counter()
    load0 = os.getloadavg()
    print(f"load average at start: {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f} ({os.cpu_count()} CPUs)", flush=True)
    try:
        tree0 = work / "tree0"
        subprocess.run([sys.executable, str(MAKE_BRAIN), str(tree0), "--pages", str(a.pages), "--seed", str(a.seed)], check=True, capture_output=True)
        db0 = work / "base.db"
        t = time.perf_counter()
        assert gb("import", str(tree0), "--db", str(db0)).returncode == 0
        t_import = time.perf_counter() - t
        tree_s, db_s = work / "tree_s", work / "synced.db"
        shutil.copytree(tree0, tree_s)
        shutil.copy(db0, db_s)
        with Brain.open(db_s) as b:  # the import bound it to tree0; the copy is the same tree
            b.conn.execute("UPDATE sync_root SET root = ?", (str(tree_s),))
        r = gb("sync", str(tree_s), "--db", str(db_s))
        assert r.returncode == 0, r.stderr.decode()
        # calibrate a sync with edits
        tree_c, db_c = work / "tree_c", work / "cal.db"
        shutil.copytree(tree_s, tree_c)
        shutil.copy(db_s, db_c)
        with Brain.open(db_c) as b:
            b.conn.execute("UPDATE sync_root SET root = ?", (str(tree_c),))
        edits(rng, tree_c, db_c, a.edits)
        t = time.perf_counter()
        gb("sync", str(tree_c), "--db", str(db_c))
        t_sync = time.perf_counter() - t
        print(f"{a.pages:,}-page brain; calibration: import {t_import:.2f} s, sync with edits {t_sync:.2f} s (kills fall uniformly in those spans)")
        stats = {m: {"trials": 0, "failures": 0, "killed": 0, "seconds": 0.0} for m in modes}
        for i in range(a.trials):
            mode = modes[i % len(modes)]
            t0 = time.perf_counter()
            tree, db = work / f"t{i}", work / f"t{i}.db"
            versions: set[str] = set()
            trashed: set[str] = set()
            if mode == "import":
                shutil.copytree(tree0, tree)
                delay = rng.uniform(0, t_import * 1.1)
                killed = kill_at(start("import", str(tree), "--db", str(db)), delay)
                versions = set(disk_hashes(tree).values())
                r = gb("import", str(tree), "--db", str(db))  # the re-run continues
                problems = [] if r.returncode == 0 else [f"import re-run exited {r.returncode}: {r.stderr.decode()[-300:]}"]
            else:
                shutil.copytree(tree_s, tree)
                shutil.copy(db_s, db)
                with Brain.open(db) as b:
                    b.conn.execute("UPDATE sync_root SET root = ?", (str(tree),))
                if mode == "sync":
                    versions, trashed = edits(rng, tree, db, a.edits)
                    delay = rng.uniform(0, t_sync * 1.1)
                    killed = kill_at(start("sync", str(tree), "--db", str(db)), delay)
                else:
                    proc = start("watch", str(tree), "--db", str(db), "--debounce", "50")
                    line = proc.stderr.readline()  # "watching …" once the first sync is done
                    if b"watching" not in line:
                        proc.kill()
                        print(f"  trial {i} watch did not start: {line!r}")
                    versions, trashed = edits(rng, tree, db, a.edits, both=False)
                    delay = rng.uniform(0, 1.5)
                    killed = kill_at(proc, delay)
                problems = []
            problems += check(db, tree, versions, trashed)
            dt = time.perf_counter() - t0
            s = stats[mode]
            s["trials"] += 1
            s["killed"] += int(killed)
            s["failures"] += int(bool(problems))
            s["seconds"] += dt
            print(f"trial {i:3d} {mode:6s} kill at {delay:5.2f} s{'' if killed else ' (had finished)'}: {'OK' if not problems else 'FAIL ' + '; '.join(problems)}  ({dt:.1f} s)", flush=True)
            shutil.rmtree(tree, ignore_errors=True)
            for suffix in ("", "-wal", "-shm"):
                try:
                    os.unlink(str(db) + suffix)
                except FileNotFoundError:
                    pass
        total = time.perf_counter() - t_all
        print()
        print(f"{'mode':8s} {'trials':>6s} {'killed':>6s} {'failures':>8s} {'seconds':>8s}")
        for m, s in stats.items():
            print(f"{m:8s} {s['trials']:6d} {s['killed']:6d} {s['failures']:8d} {s['seconds']:8.1f}")
        n, f = sum(s["trials"] for s in stats.values()), sum(s["failures"] for s in stats.values())
        print(f"{'all':8s} {n:6d} {sum(s['killed'] for s in stats.values()):6d} {f:8d} {total:8.1f}   (target: 0 failures)")
        load = os.getloadavg()
        print(f"load average at end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} ({os.cpu_count()} CPUs)")
        return 1 if f else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
