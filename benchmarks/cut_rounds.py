"""A sync round under a Postgres connection cut every 0.5–2 s (trial 69's flaky Wi-Fi/VPN): how many
changes each ``gbrain sync`` try stores, how many tries it takes, the syncs' CPU-s.

Scenarios (each on a fresh database of a private pgserver):
  deletions  400 notes synced, then 150 deleted and 40 edited (``_lone_gone``'s case)
  rename     200 notes synced, then their folder renamed (exact renames, ``move_chunks``)

A killer thread terminates every backend of the database at random intervals (0.5–2 s, seeded),
whatever it is doing: real timing, unlike the tests' deterministic cuts. Each try is a real
``gbrain sync`` subprocess of the checkout given (``--root``: this one by default; another, e.g.
/work/main, for the figures before a change), ``GBRAIN_SYNC_CHUNK`` as given. CPU is the sync
processes' (``RUSAGE_CHILDREN``), not the server's; the load average is printed.

    python benchmarks/cut_rounds.py [--root CHECKOUT] [--chunk 60] [--tries 30] [--seed 1]
"""
from __future__ import annotations

import argparse
import os
import random
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


def sync(root: Path, db: str, checkout: str, chunk: int) -> int:
    env = dict(os.environ, GBRAIN_SYNC_CHUNK=str(chunk), PYTHONPATH=checkout)
    return subprocess.run([sys.executable, "-m", "gbrain", "sync", str(root), "--db", db], env=env, cwd=checkout,
                          capture_output=True).returncode


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=str(HERE))
    ap.add_argument("--chunk", type=int, default=60)
    ap.add_argument("--tries", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--scenario", default="deletions,rename")
    a = ap.parse_args()
    import pgserver
    import psycopg

    tmp = Path(tempfile.mkdtemp(prefix="cut_rounds_"))
    srv = pgserver.get_server(tmp / "pg", cleanup_mode="stop")
    print(f"checkout {a.root}, chunk {a.chunk}, loadavg {'%.1f %.1f %.1f' % os.getloadavg()}", flush=True)
    for n, scen in enumerate(a.scenario.split(",")):
        name = f"cut_{scen}_{n}"
        with psycopg.connect(srv.get_uri(), autocommit=True) as c:
            c.execute(f"CREATE DATABASE {name}")
        db = srv.get_uri().replace("/postgres?", f"/{name}?", 1)
        root = tmp / name
        (root / "notes").mkdir(parents=True)
        (root / "hub.md").write_text("# Hub\n\nThe hub.\n")
        count = 400 if scen == "deletions" else 200
        for i in range(count):
            (root / "notes" / f"n-{i:03d}.md").write_text(f"# Note {i}\n\nSee [[hub]] and [[n-{(i + 1) % count:03d}]].\n\nbody {i}\n")
        assert sync(root, db, a.root, a.chunk) == 0
        if scen == "deletions":
            for i in range(150):
                (root / "notes" / f"n-{i:03d}.md").unlink()
            for i in range(150, 190):
                (root / "notes" / f"n-{i:03d}.md").write_text(f"# Note {i}\n\nSee [[hub]].\n\nbody {i}, edited\n")
            want, sql = 190, ("SELECT (150 - (SELECT count(*) FROM pages WHERE slug LIKE 'notes/n-%%' AND slug < 'notes/n-150')) "
                              "+ (SELECT count(*) FROM pages WHERE compiled_truth LIKE '%%edited%%')")
        else:
            (root / "notes").rename(root / "archive")
            want, sql = 200, "SELECT count(*) FROM pages WHERE slug LIKE 'archive/%%'"
        stop = threading.Event()
        cuts = [0]
        rnd = random.Random(a.seed)

        def killer() -> None:
            with psycopg.connect(srv.get_uri(), autocommit=True) as k:
                while not stop.wait(rnd.uniform(0.5, 2.0)):
                    r = k.execute("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
                                  (name,)).fetchone()
                    cuts[0] += r[0]

        t = threading.Thread(target=killer, daemon=True)
        c0, w0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.monotonic()
        t.start()
        stored, ok = [], False
        try:
            for _ in range(a.tries):
                rc = sync(root, db, a.root, a.chunk)
                with psycopg.connect(db, autocommit=True) as c:
                    stored.append(c.execute(sql).fetchone()[0])
                if rc == 0 and stored[-1] == want:
                    ok = True
                    break
        finally:
            stop.set()
            t.join()
        c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = c1.ru_utime + c1.ru_stime - c0.ru_utime - c0.ru_stime
        print(f"{scen}: {'done' if ok else 'NOT done'} in {len(stored)} tries, {cuts[0]} backends cut, {want} changes; stored after each try {stored}; "
              f"syncs' CPU {cpu:.2f} s, wall {time.monotonic() - w0:.1f} s, loadavg {os.getloadavg()[0]:.1f}", flush=True)
    srv.cleanup()


if __name__ == "__main__":
    main()
