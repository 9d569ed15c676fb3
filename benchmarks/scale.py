#!/usr/bin/env python3
"""Growth (issue 14, item 4): does a page cost the same at 5,000, 20,000 and 50,000 pages?

For each size a make_brain.py brain is generated (not timed), then:

* ``gbrain import`` as a whole process (fresh DB): wall and CPU seconds per 1,000 pages, and the
  import's peak memory (the child's ``ru_maxrss`` from ``os.wait4``);
* a no-change ``sync`` after a first (binding) sync: in-process (median of 5) and as the
  ``gbrain sync`` CLI (process start included; 3 runs: the first re-checks the file the
  in-process runs changed, the others find it as that check left it);
* file save → searchable under a real ``gbrain watch`` process (p50, p95): a page gets a new
  word, the time until the FTS index finds it on the benchmark's own connection;
* wall and CPU time of every figure: CPU of the whole process tree (``benchmarks/treecpu.py``:
  with the parse pool's forkserver workers), but search's, which is this process's own
  (``time.process_time``); CPU is steadier on a shared machine;
* ``search`` p50 (keyword search, in-process, 60 queries: page titles and common words) and
  ``backlinks`` p50 (60 pages, the most linked ones and random ones);
* the database size (file + WAL).

Then the per-page cost ratio largest/smallest (import CPU per page and wall per page; target
≤ 1.3×), and the targets at the largest size: no-change sync ≤ 1 s, save → searchable ≤ 300 ms,
search p50 ≤ 30 ms. The load average is printed with every size (2 shared cores: wall time is
not only the code's; CPU-seconds are the steadier figure).

    python benchmarks/scale.py [--sizes 5000,20000,50000] [--samples 20] [--keep DIR]
"""
from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import treecpu  # noqa: E402

from gbrain.core.brain import Brain  # noqa: E402
from gbrain.search.keyword import search  # noqa: E402
from gbrain.sync.engine import SyncEngine  # noqa: E402


def make_brain_tool() -> Path:
    """The shared generator (``/work/shared/tools/make_brain.py`` next to the checkout or a worktree)."""
    for base in (ROOT.parent, ROOT.parent.parent, Path("/work")):
        p = base / "shared" / "tools" / "make_brain.py"
        if p.exists():
            return p
    raise SystemExit("make_brain.py not found (expected ../shared/tools/make_brain.py)")


def child_env(**kw) -> dict:
    """The environment of a ``gbrain`` child: this one's, with bytecode caching on (an installed
    package has its ``.pyc`` files; ``PYTHONDONTWRITEBYTECODE`` would make every start compile)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(kw)
    return env


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def wait(cond, timeout: float = 60.0, step: float = 0.002) -> float:
    t0 = time.perf_counter()
    while not cond():
        if time.perf_counter() - t0 > timeout:
            raise TimeoutError("benchmark condition not reached")
        time.sleep(step)
    return time.perf_counter() - t0


_HWM = ("import atexit, runpy, sys\n"
        "out = sys.argv[1]\n"
        "def _hwm():\n"
        "    with open(out, 'w') as f:\n"
        "        f.write(next(l for l in open('/proc/self/status') if l.startswith('VmHWM')).split()[1])\n"
        "atexit.register(_hwm)\n"
        "sys.argv = ['gbrain'] + sys.argv[2:]\n"
        "runpy.run_module('gbrain', run_name='__main__')\n")


def run_child(cmd: list[str], env: dict) -> tuple[float, float, float, int, str]:
    """``(wall_s, cpu_s, peak_rss_mb, returncode, stderr tail)`` of one ``gbrain`` process
    (``cmd`` = ``[python, "-m", "gbrain", ...]``). CPU of the process's whole tree
    (:func:`treecpu.tree_cpu`: with its parse pool's forkserver and workers, which ``os.wait4``'s
    rusage misses: the forkserver outlives the process unreaped); the peak is the
    process's own ``VmHWM`` read at exit (``ru_maxrss`` of a child starts from this process's
    RSS at fork: Linux keeps the pre-exec high-water mark)."""
    assert cmd[1:3] == ["-m", "gbrain"], cmd
    hwm = tempfile.NamedTemporaryFile(delete=False)
    hwm.close()
    errf = tempfile.TemporaryFile()
    c0 = treecpu.tree_cpu()
    t = time.perf_counter()
    p = subprocess.Popen([cmd[0], "-c", _HWM, hwm.name, *cmd[3:]], env=env, stdout=subprocess.DEVNULL, stderr=errf)
    _, status, _ = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    cpu = treecpu.tree_cpu() - c0
    p.returncode = os.waitstatus_to_exitcode(status)
    try:
        peak = int(Path(hwm.name).read_text() or "0") / 1024
    finally:
        os.unlink(hwm.name)
    errf.seek(0)
    return wall, cpu, peak, p.returncode, errf.read().decode("utf-8", "replace")[-2000:]


def one_size(n: int, tmp: Path, samples: int) -> dict:
    tree, db = tmp / f"tree{n}", tmp / f"brain{n}.db"
    shutil.rmtree(tree, ignore_errors=True)
    for suffix in ("", "-wal", "-shm"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    subprocess.run([sys.executable, str(make_brain_tool()), str(tree), "--pages", str(n)], check=True, capture_output=True)
    nfiles = sum(len(fn) for _, _, fn in os.walk(tree))
    env = child_env(GBRAIN_DB=str(db), PYTHONPATH=str(ROOT))
    load = os.getloadavg()
    out: dict = {"pages": n, "files": nfiles}
    wall, cpu, rss, rc, err = run_child([sys.executable, "-m", "gbrain", "import", str(tree)], env)
    if rc != 0:
        raise SystemExit(f"import failed ({rc}): {err[-2000:]}")
    out.update(import_wall=wall, import_cpu=cpu, import_rss=rss)
    print(f"\n== {n:,} pages ({nfiles:,} files)   load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print(f"import (CLI, fresh DB)       {wall:7.1f} s wall  {cpu:7.1f} CPU-s   = {wall / n * 1000:5.2f} s wall / {cpu / n * 1000:5.2f} CPU-s per 1,000 pages   peak {rss:6.0f} MB")

    # ---- sync --------------------------------------------------------------------------
    with Brain.open(db) as brain:
        eng = SyncEngine(brain, tree)
        eng.bind()
        t = time.perf_counter()
        rep = eng.sync()
        assert rep["ok"], rep["problems"]
        first = time.perf_counter() - t
        time.sleep(1.1)  # every mtime leaves the 1 s racy window, as on a real tree
        eng.sync()
        xs, cs = [], []
        for _ in range(5):
            c, t = treecpu.tree_cpu(), time.perf_counter()
            rep = eng.sync()
            xs.append(time.perf_counter() - t)
            cs.append(treecpu.tree_cpu() - c)
            assert rep["ok"] and not any(rep["counts"].values()), rep["counts"]
        out["nochange_sync"], out["nochange_cpu"] = statistics.median(xs), statistics.median(cs)
        eng.close()
    # the CLI three times: the first checks the file (the in-process runs' close moved it), the
    # next find it as that check left it (Brain.finish_check): the steady state of a no-change sync
    runs = []
    for _ in range(3):
        wall, cpu, rss, rc, err = run_child([sys.executable, "-m", "gbrain", "sync", str(tree)], env)
        assert rc == 0, err
        runs.append((wall, cpu))
    out["nochange_cli_first"], out["nochange_cli_first_cpu"] = runs[0]
    out["nochange_cli"] = statistics.median(w for w, _ in runs[1:])
    out["nochange_cli_cpu"] = statistics.median(c for _, c in runs[1:])
    print(f"first sync (binds)           {first:7.2f} s;  no-change sync in-process {out['nochange_sync'] * 1000:6.0f} ms ({out['nochange_cpu'] * 1000:.0f} ms CPU; median of 5),  "
          f"`gbrain sync` CLI {out['nochange_cli'] * 1000:6.0f} ms ({out['nochange_cli_cpu'] * 1000:.0f} ms CPU; runs 2-3; run 1, which checks the file: "
          f"{runs[0][0] * 1000:.0f} ms, {runs[0][1] * 1000:.0f} ms CPU)")

    # ---- search and backlinks (in-process) -----------------------------------------
    with Brain.open(db) as brain:
        rnd = random.Random(n)
        titles = [r[0] for r in brain.conn.execute("SELECT title FROM pages ORDER BY id")]
        queries = [rnd.choice(titles) for _ in range(40)] + ["founder", "series a", "board meeting", "revenue growth", "hiring", "product launch", "investor update", "acquisition", "machine learning", "pricing"] * 2
        lat, cpu_l = [], []
        for q in queries:
            c, t = time.process_time(), time.perf_counter()
            search(brain.conn, q, limit=20)
            lat.append(time.perf_counter() - t)
            cpu_l.append(time.process_time() - c)
        out["search_p50"], out["search_p95"], out["search_cpu_p50"] = pct(lat, 50), pct(lat, 95), pct(cpu_l, 50)
        popular = [r[0] for r in brain.conn.execute(
            "SELECT p.slug FROM links l JOIN pages p ON p.id = l.to_page_id GROUP BY l.to_page_id ORDER BY COUNT(*) DESC LIMIT 30")]
        slugs = popular + [r[0] for r in brain.conn.execute("SELECT slug FROM pages ORDER BY random() LIMIT 30")]
        lat = []
        for s in slugs:
            t = time.perf_counter()
            brain.backlinks(s)
            lat.append(time.perf_counter() - t)
        out["backlinks_p50"], out["backlinks_p95"] = pct(lat, 50), pct(lat, 95)
    print(f"search p50 {out['search_p50'] * 1000:6.1f} ms ({out['search_cpu_p50'] * 1000:.1f} ms CPU)  p95 {out['search_p95'] * 1000:6.1f} ms;   backlinks p50 {out['backlinks_p50'] * 1000:6.1f} ms  p95 {out['backlinks_p95'] * 1000:6.1f} ms")

    # ---- watch: save → searchable ------------------------------------------------------
    w = subprocess.Popen([sys.executable, "-m", "gbrain", "watch", str(tree)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        while True:
            line = w.stderr.readline().decode()
            if not line:
                raise RuntimeError("watch exited")
            if line.startswith("watching "):
                break
        threading.Thread(target=lambda: [None for _ in w.stderr], daemon=True).start()
        lat = []
        with Brain.open(db) as brain:
            files = sorted((tree / "companies").glob("*.md"))[:samples]
            for k, f in enumerate(files):
                token = f"zqxscale{n}x{k}token"
                data = f.read_bytes() + f"\nLatency probe {token}.\n".encode()
                t0 = time.perf_counter()
                f.write_bytes(data)
                wait(lambda: bool(search(brain.conn, token, limit=1)))
                lat.append(time.perf_counter() - t0)
                time.sleep(0.05)
        out["save_p50"], out["save_p95"] = pct(lat, 50), pct(lat, 95)
    finally:
        w.terminate()
        w.wait(timeout=30)
    out["db_mb"] = sum(os.path.getsize(str(db) + s) for s in ("", "-wal") if os.path.exists(str(db) + s)) / 1e6
    print(f"watch: save → searchable p50 {out['save_p50'] * 1000:6.0f} ms  p95 {out['save_p95'] * 1000:6.0f} ms (n={len(lat)});   DB {out['db_mb']:7.1f} MB ({out['db_mb'] * 1e6 / n / 1000:.1f} kB/page)")
    out["load"] = os.getloadavg()
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="5000,20000,50000", help="comma-separated page counts")
    ap.add_argument("--samples", type=int, default=20, help="file saves timed under watch")
    ap.add_argument("--keep", help="work folder to keep (default: a temporary one under /tmp)")
    a = ap.parse_args()
    sizes = [int(x) for x in a.sizes.split(",") if x.strip()]
    tmp = Path(a.keep) if a.keep else Path(tempfile.mkdtemp(prefix="gbrain-scale-"))
    tmp.mkdir(parents=True, exist_ok=True)
    print(f"gbrain scale benchmark; sizes {sizes}; work folder {tmp}; load {os.getloadavg()}\n{treecpu.WHAT}; search CPU: this process")
    res = []
    try:
        for n in sizes:
            res.append(one_size(n, tmp, a.samples))
            if not a.keep:
                shutil.rmtree(tmp / f"tree{n}", ignore_errors=True)
    finally:
        if not a.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    print("\n== summary")
    print(f"{'pages':>7} {'import s/1k':>11} {'CPU-s/1k':>9} {'peak MB':>8} {'no-change sync':>15} {'(CPU)':>8} {'sync CLI':>9} {'(CPU)':>8} {'save→search p50':>16} {'search p50':>11} {'(CPU)':>8} {'backlinks p50':>14} {'DB MB':>8} {'load':>5}")
    for r in res:
        print(f"{r['pages']:>7,} {r['import_wall'] / r['pages'] * 1000:>11.2f} {r['import_cpu'] / r['pages'] * 1000:>9.2f} {r['import_rss']:>8.0f} {r['nochange_sync'] * 1000:>12.0f} ms {r['nochange_cpu'] * 1000:>5.0f} ms {r['nochange_cli'] * 1000:>6.0f} ms {r['nochange_cli_cpu'] * 1000:>5.0f} ms "
              f"{r['save_p50'] * 1000:>13.0f} ms {r['search_p50'] * 1000:>8.1f} ms {r['search_cpu_p50'] * 1000:>5.1f} ms {r['backlinks_p50'] * 1000:>11.1f} ms {r['db_mb']:>8.1f} {r['load'][0]:>5.1f}")
    if len(res) >= 2:
        lo, hi = res[0], res[-1]
        cpu_ratio = (hi["import_cpu"] / hi["pages"]) / (lo["import_cpu"] / lo["pages"])
        wall_ratio = (hi["import_wall"] / hi["pages"]) / (lo["import_wall"] / lo["pages"])
        print(f"\nper-page import cost {hi['pages']:,} / {lo['pages']:,}: CPU {cpu_ratio:.2f}x, wall {wall_ratio:.2f}x   target ≤ 1.3x")
    hi = res[-1]
    print(f"at {hi['pages']:,} pages: no-change sync {hi['nochange_sync'] * 1000:.0f} ms, {hi['nochange_cpu'] * 1000:.0f} ms CPU (target ≤ 1000 ms); "
          f"save → searchable p50 {hi['save_p50'] * 1000:.0f} ms (target ≤ 300 ms); search p50 {hi['search_p50'] * 1000:.1f} ms (target ≤ 30 ms)")
    print(f"load average at the end: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
