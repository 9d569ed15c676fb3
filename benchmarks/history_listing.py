#!/usr/bin/env python3
"""CPU of a `history` listing (:func:`gbrain.core.history.versions`) for a page with many versions
and one with many moves, beside another checkout's code (``--baseline DIR``), one run, on SQLite and
Postgres (a private pgserver).

Each checkout builds its own brain in a subprocess (the schema is the code's): ``--versions`` puts
(1,000) of one page, and a page moved ``--moves`` times (20) with two edits per name. Then each
listing (the default 20 rows and ``--limit 0``, all) is taken ``--repeat`` times, alternating the
checkouts; printed: the median process CPU (client) and, on Postgres, the server backend's CPU
(``/proc/<pid>/stat`` of ``pg_backend_pid()``).

    python benchmarks/history_listing.py [--baseline /path/to/old/checkout] [--engine sqlite,postgres]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import json, os, sys, time
sys.path.insert(0, sys.argv[1])
from gbrain import operations as ops
from gbrain.core import history as h
from gbrain.core.brain import Brain
db, nv, nm, mode = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
run = lambda b, name, **a: ops.run(name, a, ops.Context(surface="cli"), brain=b)
TICK = os.sysconf("SC_CLK_TCK")

def server_cpu(b):
    try:
        pid = b.conn.execute("SELECT pg_backend_pid()").fetchone()[0]
    except Exception:
        return 0.0
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / TICK

with Brain.open(db) as b:
    if mode == "build":
        text = "# big\n\n" + "".join(f"- line {i}\n" for i in range(40))
        run(b, "put", slug="notes/big", content=text)
        for i in range(1, nv):
            text += f"- edit {i}\n"
            run(b, "put", slug="notes/big", content=text)
        cur = "notes/m0"
        t = "# m\n\nfirst\n"
        run(b, "put", slug=cur, content=t)
        for i in range(1, nm + 1):
            for e in range(2):
                t += f"- {i}.{e}\n"
                run(b, "put", slug=cur, content=t)
            run(b, "move", slug=cur, to=f"notes/m{i}")
            cur = f"notes/m{i}"
        print(json.dumps({}))
    else:
        slug, limit, reps = mode.split(":")
        out = []
        for _ in range(int(reps)):
            s0, c0 = server_cpu(b), time.process_time()
            r = h.versions(b, slug, limit=int(limit))
            out.append((time.process_time() - c0, server_cpu(b) - s0, len(r["versions"])))
        print(json.dumps(out))
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--baseline", help="another checkout's root (its gbrain/ package)")
    ap.add_argument("--engine", default="sqlite,postgres")
    ap.add_argument("--versions", type=int, default=1000)
    ap.add_argument("--moves", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=15)
    a = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="gbrain-histlist-"))
    os.chmod(tmp, 0o755)
    child = tmp / "child.py"
    child.write_text(CHILD)
    roots = {"now": str(ROOT)} | ({"base": a.baseline} if a.baseline else {})
    srv = None
    print(f"loadavg {'%.1f %.1f %.1f' % os.getloadavg()}", flush=True)
    for engine in a.engine.split(","):
        dbs = {}
        for tag in roots:
            if engine == "postgres":
                if srv is None:
                    import pgserver
                    srv = pgserver.get_server(tmp / "pg", cleanup_mode="stop")
                import psycopg
                with psycopg.connect(srv.get_uri(), autocommit=True) as c:
                    c.execute(f"CREATE DATABASE hl_{tag}")
                dbs[tag] = srv.get_uri().replace("/postgres?", f"/hl_{tag}?", 1)
            else:
                dbs[tag] = str(tmp / f"{tag}.db")
            subprocess.run([sys.executable, str(child), roots[tag], dbs[tag], str(a.versions), str(a.moves), "build"], check=True, capture_output=True)
        for slug in ("notes/big", f"notes/m{a.moves}"):
            for limit in (20, 0):
                res = {tag: [] for tag in roots}
                for _ in range(3):  # alternated, so machine load hits both alike
                    for tag in roots:
                        p = subprocess.run([sys.executable, str(child), roots[tag], dbs[tag], "0", "0", f"{slug}:{limit}:{a.repeat // 3 or 1}"],
                                           check=True, capture_output=True, text=True)
                        res[tag] += json.loads(p.stdout.strip().splitlines()[-1])
                line = f"{engine:8} {slug:12} limit {limit:<3}"
                for tag, xs in res.items():
                    line += f"  {tag}: {statistics.median(x[0] for x in xs) * 1000:7.1f} ms CPU"
                    if engine == "postgres":
                        line += f" + server {statistics.median(x[1] for x in xs) * 1000:6.1f} ms"
                    line += f" ({xs[0][2]} rows)"
                print(line, flush=True)
    if srv is not None:
        srv.cleanup()
    shutil.rmtree(tmp, ignore_errors=True)
    print(f"loadavg {'%.1f %.1f %.1f' % os.getloadavg()}")


if __name__ == "__main__":
    main()
