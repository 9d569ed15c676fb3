#!/usr/bin/env python3
"""The 2.3 GB brain (issue 14, item 3): import, no-change sync, export and verify of a tree of
about 8,400 files and 2.3 GB, beside a plain ``cp -r`` of the same tree measured in the same run.

The tree: a make_brain.py brain (``../shared/tools/make_brain.py``, called as it is) of
6,900 × scale pages, plus attachments (about 630 × scale files) until the tree holds
2.3 GB × scale: images (``.png``/``.jpg``, 50 KB–4 MB), PDFs (200 KB–20 MB), large ``.raw`` JSON
sidecars of existing pages (1–8 MB of valid ``{"sources": …}`` JSON) and a few big media files
(50–200 MB, stored in pieces). Attachment bytes are pseudo-random (incompressible, like real
images and PDFs); sizes are drawn from a fixed seed and scaled to the byte target.

Printed beside targets (each ``gbrain`` command is a whole process; its peak memory is the
child's ``ru_maxrss`` from ``os.wait4``):

* import: wall, CPU, peak memory (target ≤ 300 MB);
* no-change ``sync`` (after a binding sync): the CLI process and in-process (target ≤ 1 s);
* ``export`` to a new folder and ``verify`` of the tree vs ``cp -r`` of the tree (target ≤ 2×), in
  wall time and in CPU-seconds (cp's own, as a child process); cp, export, a read + sha256 of
  the tree and verify each run 3 times, alternately (cp and export each into a new folder right
  after a ``sync`` and the removal of the last folder written), best of each, every run printed;
* the database size, and ``os.getloadavg()`` (2 shared cores: wall time is not only ours).

    python benchmarks/big_brain.py [--scale 1.0] [--work /tmp/gbrain-big] [--keep]
        [--baseline CHECKOUT [--import-rounds 2]] [--import-only]

``--baseline``: another gbrain checkout, whose import (each into a new DB: CPU and the DB's size)
alternates with this one's first, and whose export and verify run beside this one's.

Needs about 4.5× the tree's size free under ``--work`` (tree, DB, export, copy); checked first.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import treecpu  # noqa: E402

FULL_BYTES = 2.3e9
FULL_PAGES = 6900
FULL_ATTACH = 630
PIECE = 1 << 20


def make_brain_tool() -> Path:
    for base in (ROOT.parent, ROOT.parent.parent, Path("/work")):
        p = base / "shared" / "tools" / "make_brain.py"
        if p.exists():
            return p
    raise SystemExit("make_brain.py not found (expected ../shared/tools/make_brain.py)")


def tree_size(root: Path) -> tuple[int, int]:
    n = b = 0
    for dp, _, fn in os.walk(root):
        for name in fn:
            n += 1
            b += os.lstat(os.path.join(dp, name)).st_size
    return n, b


def _write_random(path: Path, size: int, rnd: random.Random, head: bytes = b"") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as f:
        f.write(head[:size])
        left = size - min(size, len(head))
        while left:
            k = min(left, PIECE)
            f.write(rnd.randbytes(k))
            left -= k


def _write_raw_json(path: Path, size: int, rnd: random.Random) -> None:
    """Valid sidecar JSON of about ``size`` bytes: ``{"sources": {"crawl": {"records": [...]}}}``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    rec_bytes = 200
    n = max(1, size // rec_bytes)
    with open(path, "w", encoding="utf-8") as f:
        f.write('{\n  "sources": {\n    "crawl": {\n      "records": [\n')
        for i in range(n):
            f.write(("," if i else "") + json.dumps({"id": i, "text": rnd.randbytes(70).hex()[:140]}) + "\n")
        f.write("      ]\n    }\n  }\n}\n")


def add_attachments(tree: Path, scale: float, seed: int = 14) -> dict:
    """Add images, PDFs, large .raw JSON and big media to ``tree`` until it holds
    ``FULL_BYTES × scale`` bytes; returns counts by kind."""
    rnd = random.Random(seed)
    _, have = tree_size(tree)
    target = FULL_BYTES * scale
    n = max(4, round(FULL_ATTACH * scale))
    kinds = []
    for i in range(n):
        x = rnd.random()
        if x < 0.70:
            kinds.append(("image", rnd.uniform(math.log(50e3), math.log(4e6))))
        elif x < 0.90:
            kinds.append(("pdf", rnd.uniform(math.log(200e3), math.log(20e6))))
        elif x < 0.98:
            kinds.append(("raw", rnd.uniform(math.log(1e6), math.log(8e6))))
        else:
            kinds.append(("media", rnd.uniform(math.log(50e6), math.log(200e6))))
    kinds[0] = ("media", math.log(120e6))  # at least one big file at every scale
    sizes = [math.exp(v) for _, v in kinds]
    # raw JSON keeps its size (a sidecar is parsed whole); the binary files are scaled to the target
    fixed = sum(s for (k, _), s in zip(kinds, sizes) if k == "raw")
    free = max(0.0, target - have - fixed)
    binsum = sum(s for (k, _), s in zip(kinds, sizes) if k != "raw") or 1.0
    f = free / binsum
    pages = sorted(p for p in tree.rglob("*.md") if "/." not in str(p.relative_to(tree)) and p.parent != tree)
    counts: dict[str, int] = {}
    for i, ((kind, _), s) in enumerate(zip(kinds, sizes)):
        size = int(s if kind == "raw" else s * f)
        page = pages[(i * 7919) % len(pages)]
        rel_dir = page.parent
        if kind == "image":
            ext = ".png" if i % 2 else ".jpg"
            head = b"\x89PNG\r\n\x1a\n" if ext == ".png" else b"\xff\xd8\xff\xe0"
            _write_random(rel_dir / "attachments" / f"{page.stem}-{i}{ext}", size, rnd, head)
        elif kind == "pdf":
            _write_random(tree / "documents" / f"doc-{i:04d}.pdf", size, rnd, b"%PDF-1.7\n")
        elif kind == "raw":
            _write_raw_json(rel_dir / ".raw" / f"{page.stem}.json", size, rnd)
        else:
            _write_random(tree / "media" / f"recording-{i:03d}.mp4", size, rnd, b"\x00\x00\x00\x18ftypmp42")
        counts[kind] = counts.get(kind, 0) + 1
    return counts


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
    (``cmd`` = ``[python, "-m", "gbrain", ...]``; paths in it absolute: it runs in the temporary
    folder, so that env's PYTHONPATH says which gbrain it runs). CPU of the process's whole tree
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
    # cwd: not this checkout (``python -c`` puts the current folder first on sys.path, which
    # would import this checkout's gbrain whatever env's PYTHONPATH says: --baseline ran this one)
    p = subprocess.Popen([cmd[0], "-c", _HWM, hwm.name, *cmd[3:]], env=env, stdout=subprocess.DEVNULL, stderr=errf, cwd=tempfile.gettempdir())
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


def read_hash_floor(tree: Path) -> None:
    """Walk ``tree`` and read + sha256 every file, 1 MiB at a time into one buffer, one thread:
    what any check of the tree against stored sha256 hashes must at least do."""
    buf = bytearray(1 << 20)
    view = memoryview(buf)
    for dp, dn, fn in os.walk(tree):
        for name in fn:
            h = hashlib.sha256()
            with open(os.path.join(dp, name), "rb", buffering=0) as f:
                while n := f.readinto(buf):
                    h.update(view[:n])


def io_figures(tree: Path, work: Path, env: dict, baseline: str | None = None, rounds: int = 3) -> None:
    """Print cp -r, export and verify of ``tree`` (imported into ``env``'s GBRAIN_DB) beside each
    other, and a read + sha256 of the tree (:func:`read_hash_floor`, in this process); with
    ``baseline`` (another gbrain checkout) its export and verify too, interleaved. ``rounds``
    rounds, best of each, every run's figures printed (the spread)."""
    # cp -r and export in the same conditions: each into a new folder right after a `sync`
    # and the removal of the other's folder (creating files on ext4 just after thousands
    # were deleted costs more: both pay it), `rounds` rounds, best of each
    load = os.getloadavg()
    cps, exps, vers, rhs, base_e, base_v = [], [], [], [], [], []
    for _ in range(rounds):
        subprocess.run(["sync"], check=False)
        c0, t = treecpu.tree_cpu(), time.perf_counter()
        subprocess.run(["cp", "-r", str(tree), str(work / "copy")], check=True)
        cps.append((time.perf_counter() - t, treecpu.tree_cpu() - c0))
        shutil.rmtree(work / "copy")
        subprocess.run(["sync"], check=False)
        wall_e, cpu_e, rss_e, rc, err = run_child([sys.executable, "-m", "gbrain", "export", "--dir", str(work / "export")], env)
        assert rc == 0, err
        exps.append((wall_e, cpu_e, rss_e))
        shutil.rmtree(work / "export")
        if baseline:
            subprocess.run(["sync"], check=False)
            w, c, r, rc, err = run_child([sys.executable, "-m", "gbrain", "export", "--dir", str(work / "export")], dict(env, PYTHONPATH=baseline))
            assert rc == 0, err
            base_e.append((w, c, r))
            shutil.rmtree(work / "export")
        c0, t = treecpu.tree_cpu(), time.perf_counter()
        read_hash_floor(tree)
        rhs.append((time.perf_counter() - t, treecpu.tree_cpu() - c0))
        w, c, r, rc, err = run_child([sys.executable, "-m", "gbrain", "verify", str(tree)], env)
        assert rc == 0, err
        vers.append((w, c, r))
        if baseline:
            w, c, r, rc, err = run_child([sys.executable, "-m", "gbrain", "verify", str(tree)], dict(env, PYTHONPATH=baseline))
            assert rc == 0, err
            base_v.append((w, c, r))
    runs = lambda xs: ", ".join(f"{x[0]:.1f} s / {x[1]:.1f} CPU-s" for x in xs)  # noqa: E731
    cp, cp_cpu = min(w for w, _ in cps), min(c for _, c in cps)
    rh, rh_cpu = min(w for w, _ in rhs), min(c for _, c in rhs)
    print(f"cp -r of the tree   {cp:7.1f} s wall  {cp_cpu:6.1f} CPU-s   (floor; best of {rounds} each: {runs(cps)}; load {load[0]:.1f})")
    print(f"read+sha256 of tree {rh:7.1f} s wall  {rh_cpu:6.1f} CPU-s   = {rh / cp:.2f}x cp -r wall, {rh_cpu / cp_cpu:.2f}x CPU   (one thread, in-process: {runs(rhs)})")
    for name, xs, base in (("export (new folder)", exps, base_e), ("verify", vers, base_v)):
        w, c, r = min(x[0] for x in xs), min(x[1] for x in xs), max(x[2] for x in xs)
        extra = f"; {c / rh_cpu:.2f}x read+sha256 CPU" if name == "verify" else ""
        print(f"{name:19} {w:7.1f} s wall  {c:6.1f} CPU-s  peak {r:6.0f} MB   = {w / cp:.2f}x cp -r wall, {c / cp_cpu:.2f}x CPU{extra}   target ≤ 2x   ({runs(xs)})")
        if base:
            w, c = min(x[0] for x in base), min(x[1] for x in base)
            print(f"  baseline {name:9} {w:7.1f} s wall  {c:6.1f} CPU-s  peak {max(x[2] for x in base):6.0f} MB   = {w / cp:.2f}x cp -r wall, {c / cp_cpu:.2f}x CPU   ({baseline}: {runs(base)})")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=float, default=1.0, help="fraction of the 2.3 GB / 8,400-file brain")
    ap.add_argument("--work", default=None, help="work folder (default: a new one under /tmp)")
    ap.add_argument("--keep", action="store_true", help="keep the work folder")
    ap.add_argument("--baseline", default=None, help="another gbrain checkout whose export and verify run beside (interleaved)")
    ap.add_argument("--import-rounds", type=int, default=2, help="with --baseline: imports of each, alternated (DB size and CPU)")
    ap.add_argument("--import-only", action="store_true", help="stop after the import figures")
    ap.add_argument("--io-only", action="store_true", help="only cp -r / export / verify, on the tree and brain.db an earlier --keep run left in --work")
    a = ap.parse_args()
    if a.io_only:
        if not a.work or not (Path(a.work) / "tree").is_dir() or not (Path(a.work) / "brain.db").is_file():
            print("--io-only needs --work with the tree and brain.db of an earlier --keep run", file=sys.stderr)
            return 1
        work = Path(a.work).resolve()
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env.update(GBRAIN_DB=str(work / "brain.db"), PYTHONPATH=str(ROOT))
        nfiles, nbytes = tree_size(work / "tree")
        print(f"big-brain benchmark (cp / export / verify only): {work}: {nfiles:,} files, {nbytes / 1e9:.2f} GB; load {os.getloadavg()}\n{treecpu.WHAT}")
        io_figures(work / "tree", work, env, a.baseline)
        print(f"load average at the end: {os.getloadavg()}")
        return 0
    work = Path(a.work).resolve() if a.work else Path(tempfile.mkdtemp(prefix="gbrain-big-", dir="/tmp"))
    work.mkdir(parents=True, exist_ok=True)
    need = 4.5 * FULL_BYTES * a.scale
    free = shutil.disk_usage(work).free
    print(f"big-brain benchmark, scale {a.scale}: work folder {work}; free {free / 1e9:.1f} GB, need ~{need / 1e9:.1f} GB; load {os.getloadavg()}\n{treecpu.WHAT}")
    if free < need:
        print(f"not enough free disk for scale {a.scale}: {free / 1e9:.1f} GB free, ~{need / 1e9:.1f} GB needed; try --scale {a.scale * free / need:.2f}", file=sys.stderr)
        return 1
    tree, db = work / "tree", work / "brain.db"
    try:
        t = time.perf_counter()
        subprocess.run([sys.executable, str(make_brain_tool()), str(tree), "--pages", str(max(50, round(FULL_PAGES * a.scale))), "--clean"], check=True, capture_output=True)
        kinds = add_attachments(tree, a.scale)
        nfiles, nbytes = tree_size(tree)
        print(f"tree: {nfiles:,} files, {nbytes / 1e9:.2f} GB (attachments: {kinds}); generated in {time.perf_counter() - t:.0f} s")
        # bytecode cached as in an installed package (PYTHONDONTWRITEBYTECODE: every start compiles)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env.update(GBRAIN_DB=str(db), PYTHONPATH=str(ROOT))

        if a.baseline:  # the baseline's import beside this one's, alternated, each into a new DB
            for r in range(a.import_rounds):
                for who, e in (("baseline", dict(env, PYTHONPATH=a.baseline, GBRAIN_DB=str(work / "base.db"))), ("this", env)):
                    d = Path(e["GBRAIN_DB"])
                    for s in ("", "-wal", "-shm"):
                        Path(str(d) + s).unlink(missing_ok=True)
                    load = os.getloadavg()
                    wall, cpu, rss, rc, err = run_child([sys.executable, "-m", "gbrain", "import", str(tree)], e)
                    assert rc == 0, err
                    size = sum(os.path.getsize(str(d) + s) for s in ("", "-wal") if os.path.exists(str(d) + s))
                    print(f"import round {r + 1}, {who:8} {wall:7.1f} s wall  {cpu:7.1f} CPU-s   peak {rss:6.0f} MB   DB {size / 1e9:.3f} GB "
                          f"({size / nbytes:.2f}x the tree; load {load[0]:.1f})")
            for s in ("", "-wal", "-shm"):
                Path(str(db) + s).unlink(missing_ok=True)
        load = os.getloadavg()
        wall, cpu, rss, rc, err = run_child([sys.executable, "-m", "gbrain", "import", str(tree)], env)
        if rc != 0:
            print(f"import failed ({rc}): {err}", file=sys.stderr)
            return 1
        dbsize = sum(os.path.getsize(str(db) + s) for s in ("", "-wal") if os.path.exists(str(db) + s))
        print(f"\nimport (CLI)        {wall:7.1f} s wall  {cpu:7.1f} CPU-s   peak {rss:6.0f} MB   target ≤ 300 MB   ({nbytes / 1e6 / wall:.0f} MB/s; DB {dbsize / 1e9:.2f} GB, {dbsize / nbytes:.2f}x the tree; load {load[0]:.1f})")
        if a.import_only:
            print(f"load average at the end: {os.getloadavg()}")
            return 0

        wall1, _, rss1, rc, err = run_child([sys.executable, "-m", "gbrain", "sync", str(tree)], env)
        assert rc == 0, err
        time.sleep(1.1)
        run_child([sys.executable, "-m", "gbrain", "sync", str(tree)], env)
        xs, peaks = [], []
        for _ in range(3):
            w, _, r, rc, err = run_child([sys.executable, "-m", "gbrain", "sync", str(tree)], env)
            assert rc == 0, err
            xs.append(w)
            peaks.append(r)
        from gbrain.core.brain import Brain
        from gbrain.sync.engine import SyncEngine

        with Brain.open(db) as brain:
            eng = SyncEngine(brain, tree)
            eng.bind()
            ins = []
            for _ in range(3):
                t = time.perf_counter()
                rep = eng.sync()
                ins.append(time.perf_counter() - t)
                assert rep["ok"] and not any(rep["counts"].values()), rep["counts"]
            eng.close()
        nc = statistics.median(xs)
        print(f"first sync (binds)  {wall1:7.1f} s wall   peak {rss1:6.0f} MB")
        print(f"no-change sync      {nc * 1000:7.0f} ms (CLI, median of 3; peak {max(peaks):.0f} MB), {statistics.median(ins) * 1000:.0f} ms in-process   target ≤ 1000 ms")

        io_figures(tree, work, env, a.baseline)
        print(f"load average at the end: {os.getloadavg()}")
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
