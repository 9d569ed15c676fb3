"""The catch-up after a chunk cut by a lost Postgres connection: does it redo the whole tree, or
only what the cut left? CPU-s of a 600-note folder (make_brain) on a private pgserver.

``sync``: every note edited, then a ``gbrain sync`` (``GBRAIN_SYNC_CHUNK`` 60) whose backend is
terminated at every ``--every``-th path recorded until it gives up (exit 1, its chunks kept:
tests/test_pg_cut_rounds.py's CUTTER); then the catch-up, a plain ``gbrain sync`` run again (A),
beside a sync of a copy of the same folder with only the notes the cut left edited (B) and a sync
with nothing to do (C). CPU of the sync processes (``RUSAGE_CHILDREN``).

``watch`` (in this process: ``Watcher`` in a thread): every note edited under a running watch
whose round's backend is cut at the 300th path recorded and again in its retry, so the watch
backs off and catches up with its full sync (``Watcher._sync``): that sync's thread CPU, split
into its chunk rounds (the notes left), the full sync after them and the tree's walk.

    python benchmarks/cut_catchup.py [--pages 600] [--every 100] [--root CHECKOUT]
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


def _child_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _edit(root: Path, rels) -> None:
    for rel in rels:
        with open(root / rel, "a", encoding="utf-8") as f:
            f.write("\nEdited.\n")


def sync_case(srv, tmp: Path, base: Path, src: str, every: int) -> None:
    import psycopg

    sys.path.insert(0, str(HERE / "tests"))
    from test_pg_cut_rounds import CUTTER

    from gbrain.core.brain import Brain, render_row

    site = tmp / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(CUTTER)

    def newdb(name: str) -> str:
        with psycopg.connect(srv.get_uri(), autocommit=True) as c:
            c.execute(f"CREATE DATABASE {name}")
        return srv.get_uri().replace("/postgres?", f"/{name}?", 1)

    def sync(root: Path, db: str, cut: int = 0) -> tuple[float, int]:
        env = dict(os.environ, GBRAIN_SYNC_CHUNK="60", PYTHONPATH=src)
        if cut:
            env.update(PYTHONPATH=os.pathsep.join((str(site), src)), GBRAIN_TEST_SRC=src, GBRAIN_TEST_CUT_EVERY=str(cut),
                       GBRAIN_TEST_CUTS=str(tmp / "cuts"))
        c0 = _child_cpu()
        r = subprocess.run([sys.executable, "-m", "gbrain", "sync", str(root), "--db", db], env=env, cwd=src, capture_output=True)
        return _child_cpu() - c0, r.returncode

    folders = {k: tmp / k for k in "abc"}
    dbs = {}
    for k, root in folders.items():
        shutil.copytree(base, root)
        dbs[k] = newdb(k)
        sync(root, dbs[k])
    notes = sorted(p.relative_to(folders["a"]).as_posix() for p in folders["a"].rglob("*.md"))
    time.sleep(1.1)  # (no racy row left from the first syncs)
    _edit(folders["a"], notes)
    cpu_cut, code = sync(folders["a"], dbs["a"], cut=every)
    with Brain.open(dbs["a"]) as b:
        have = {r[0]: render_row(r) for r in b.conn.execute("SELECT path, bom, frontmatter_raw, compiled_truth, separator, timeline FROM pages")}
    left = [rel for rel in notes if rel in have and have[rel] != (folders["a"] / rel).read_text(encoding="utf-8")]
    print(f"sync: {len(notes)} notes edited; the cut sync exit {code}, {cpu_cut:.2f} CPU-s, {len(left)} notes left")
    cpu_a, code_a = sync(folders["a"], dbs["a"])
    _edit(folders["b"], left)
    cpu_b, code_b = sync(folders["b"], dbs["b"])
    cpu_c, code_c = sync(folders["c"], dbs["c"])
    print(f"  A the catch-up sync (the whole tree): {cpu_a:.2f} CPU-s (exit {code_a})")
    print(f"  B a sync of only those {len(left)} edits: {cpu_b:.2f} CPU-s (exit {code_b})")
    print(f"  C a sync with nothing to do: {cpu_c:.2f} CPU-s (exit {code_c})")


def watch_case(srv, tmp: Path, base: Path) -> None:
    import psycopg

    from gbrain.core.brain import Brain
    from gbrain.sync import watch as W
    from gbrain.sync.engine import SyncEngine

    with psycopg.connect(srv.get_uri(), autocommit=True) as c:
        c.execute("CREATE DATABASE w")
    db = srv.get_uri().replace("/postgres?", "/w?", 1)
    root = tmp / "w"
    shutil.copytree(base, root)
    subprocess.run([sys.executable, "-m", "gbrain", "sync", str(root), "--db", db], check=True, capture_output=True)
    time.sleep(1.1)
    steps, cuts, at = [0], [0], 300
    real = SyncEngine._record

    def rec(self, *a, **kw):
        steps[0] += 1
        if steps[0] in (at, at + 5):  # the round's chunk, then its retry on a new connection: backed off
            cuts[0] += 1
            try:
                self.conn.execute("SELECT pg_terminate_backend(pg_backend_pid())").fetchall()
            except Exception:
                pass
        return real(self, *a, **kw)

    SyncEngine._record = rec
    parts = {"chunk rounds": [0.0, 0], "full sync": [0.0, 0], "walk": [0.0, 0]}
    inside = [False]

    def timed(cls, name, key):
        f = getattr(cls, name)

        def g(self, *a, **kw):
            t0 = time.thread_time()
            try:
                return f(self, *a, **kw)
            finally:
                if inside[0]:
                    parts[key][0] += time.thread_time() - t0
                    parts[key][1] += len(a[0]) if key == "chunk rounds" else 1
        setattr(cls, name, g)

    timed(W.Watcher, "_safe_one", "chunk rounds")
    timed(SyncEngine, "sync", "full sync")
    timed(SyncEngine, "_tree_changes", "walk")
    catchups: list[float] = []
    real_sync = W.Watcher._sync

    def catch_up(self):
        inside[0] = True
        t0 = time.thread_time()
        try:
            return real_sync(self)
        finally:
            inside[0] = False
            catchups.append(time.thread_time() - t0)

    W.Watcher._sync = catch_up
    lines: list[str] = []
    b = Brain.open(db)
    w = W.Watcher(b, root, debounce=0.05, log=lines.append, rescan=0)
    ready = threading.Event()
    t = threading.Thread(target=lambda: w.run(ready=lambda _: ready.set()), daemon=True)
    t.start()
    ready.wait(300)
    catchups.clear()
    notes = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.md"))
    _edit(root, notes)
    end = time.monotonic() + 600
    while not catchups and time.monotonic() < end:
        time.sleep(0.2)
    w.stop()
    t.join(60)
    b.close()
    SyncEngine._record, W.Watcher._sync = real, real_sync
    print(f"watch: {len(notes)} notes edited, {cuts[0]} cuts; the catch-up sync {sum(catchups):.2f} CPU-s (its thread): "
          + ", ".join(f"{k} {v[0]:.2f} CPU-s ({v[1]} {'notes' if k == 'chunk rounds' else 'calls'})" for k, v in parts.items()))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", type=int, default=600)
    ap.add_argument("--every", type=int, default=100)
    ap.add_argument("--root", default=str(HERE))
    ap.add_argument("--case", choices=["sync", "watch", "both"], default="both")
    a = ap.parse_args()
    import pgserver

    sys.path.insert(0, a.root)
    tmp = Path(tempfile.mkdtemp(prefix="cut_catchup_"))
    srv = pgserver.get_server(tmp / "pg", cleanup_mode="stop")
    base = tmp / "base"
    subprocess.run([sys.executable, "/work/shared/tools/make_brain.py", str(base), "--pages", str(a.pages)], check=True, capture_output=True)
    try:
        if a.case in ("sync", "both"):
            sync_case(srv, tmp, base, a.root, a.every)
        if a.case in ("watch", "both"):
            watch_case(srv, tmp, base)
    finally:
        print(f"load {os.getloadavg()[0]:.1f}")
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
