"""``gbrain watch`` on a Postgres brain whose connection is cut again and again during its first
sync (the catch-up a start makes): the watch's CPU-s per minute, cuts and log lines.

400 notes synced, then 150 deleted and 40 edited while no watch ran; the watch (a real
subprocess of the checkout given, ``--root``) has its backend terminated at every ``--every``-th
path a round records (a ``sitecustomize``, as tests/test_pg_cut_rounds.py's CUTTER), so no round
ever commits. After ``--seconds`` the watch is stopped: its CPU (utime+stime from /proc), the
cuts, its log lines; the load average is printed.

    python benchmarks/watch_flap.py [--root CHECKOUT] [--every 3] [--seconds 60]
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(HERE / "tests"))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=str(HERE))
    ap.add_argument("--every", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=60)
    a = ap.parse_args()
    import pgserver
    import psycopg
    from test_pg_cut_rounds import CUTTER

    tmp = Path(tempfile.mkdtemp(prefix="watch_flap_"))
    srv = pgserver.get_server(tmp / "pg", cleanup_mode="stop")
    with psycopg.connect(srv.get_uri(), autocommit=True) as c:
        c.execute("CREATE DATABASE flap")
    db = srv.get_uri().replace("/postgres?", "/flap?", 1)
    root = tmp / "vault"
    (root / "notes").mkdir(parents=True)
    (root / "hub.md").write_text("# Hub\n\nThe hub.\n")
    for i in range(400):
        (root / "notes" / f"n-{i:03d}.md").write_text(f"# Note {i}\n\nSee [[hub]].\n\nbody {i}\n")
    env = dict(os.environ, PYTHONPATH=a.root)
    subprocess.run([sys.executable, "-m", "gbrain", "sync", str(root), "--db", db], env=env, cwd=a.root, check=True, capture_output=True)
    for i in range(150):
        (root / "notes" / f"n-{i:03d}.md").unlink()
    for i in range(150, 190):
        (root / "notes" / f"n-{i:03d}.md").write_text(f"# Note {i}\n\nSee [[hub]].\n\nbody {i}, edited\n")
    site = tmp / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(CUTTER)
    cuts = tmp / "cuts.txt"
    env.update(PYTHONPATH=os.pathsep.join((str(site), a.root)), GBRAIN_TEST_SRC=a.root, GBRAIN_TEST_CUT_EVERY=str(a.every),
               GBRAIN_TEST_CUTS=str(cuts))
    out = open(tmp / "watch.log", "wb")
    p = subprocess.Popen([sys.executable, "-m", "gbrain", "watch", str(root), "--db", db], env=env, cwd=a.root, stdout=out, stderr=subprocess.STDOUT)
    time.sleep(a.seconds)
    with open(f"/proc/{p.pid}/stat") as f:
        ticks = f.read().rsplit(")", 1)[1].split()
    cpu = (int(ticks[11]) + int(ticks[12])) / os.sysconf("SC_CLK_TCK")
    load = os.getloadavg()
    p.terminate()
    p.wait(30)
    out.close()
    lines = (tmp / "watch.log").read_text().splitlines()
    n = len(cuts.read_text().splitlines()) if cuts.exists() else 0
    print(f"checkout {a.root}: {a.seconds:g} s, {n} cuts, {cpu:.2f} CPU-s ({cpu * 60 / a.seconds:.2f} per minute), "
          f"{len(lines)} log lines, load {'%.1f %.1f %.1f' % load}")
    for line in lines[:12]:
        print("  " + line[:160])
    srv.cleanup()


if __name__ == "__main__":
    main()
