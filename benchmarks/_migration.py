"""What the schema-change benchmarks share (``other_spellings.py``, ``unread_bare_text.py``): a tree
imported by this checkout and a baseline checkout, alternated in fresh processes, and the cost of the
upgrade a baseline brain takes when this checkout opens it, on SQLite and on a private pgserver.
Not a script: imported by those scripts (``python benchmarks/NAME.py`` puts ``benchmarks/`` first on
``sys.path``)."""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = next((d / "shared" for d in ROOT.parents if (d / "shared" / "corpora").is_dir()), ROOT.parent / "shared")

#: a child's code: import tree ``argv[1]`` into a new brain ``argv[2]`` (a file or a Postgres URL)
IMPORT = """
import sys
from gbrain.core.brain import Brain
from gbrain.sync.importer import import_tree
with Brain.open(sys.argv[2], create=True) as b:
    r = import_tree(b, sys.argv[1])
    assert r["ok"], r
"""

#: a child's code: open brain ``argv[1]`` (an older one upgrades); prints ``{cpu, wall, version}``
OPEN = """
import json, sys, time
from gbrain.core.brain import Brain
t0, w0 = time.process_time(), time.perf_counter()
with Brain.open(sys.argv[1]) as b:
    if getattr(b.conn, "dialect", "sqlite") == "postgres":
        from gbrain.storage import pg
        v = pg.schema_version(b.conn)
    else:
        v = b.conn.execute("PRAGMA user_version").fetchone()[0]
print(json.dumps({"cpu": time.process_time() - t0, "wall": time.perf_counter() - w0, "version": v}))
"""


def parser(doc: str, parts: str) -> argparse.ArgumentParser:
    """The options both scripts take: ``--base`` (a checkout of the commit before, required),
    ``--tree`` (default obsidian-help), ``--rounds`` (3) and ``--parts`` (default ``parts``, comma-separated);
    a script adds its own."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", required=True, type=Path, help="a checkout of the commit before")
    ap.add_argument("--tree", type=Path, default=SHARED / "corpora" / "obsidian-help")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--parts", default=parts)
    return ap


def run(code: str, tree: Path, *args: str) -> tuple[float, float, str]:
    """``(CPU-s of the child and its children, wall s, stdout)`` of Python ``code`` run with ``args``
    by ``tree``'s gbrain (``PYTHONPATH``), without the parse pool (``GBRAIN_PARSE_WORKERS=0``: all the
    work in the child; a pool's processes ended by the pool are not all counted in
    ``RUSAGE_CHILDREN``). Raises ``CalledProcessError`` when the child fails."""
    env = {**os.environ, "PYTHONPATH": str(tree), "GBRAIN_PARSE_WORKERS": "0"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code, *args], env=env, check=True, capture_output=True, text=True, cwd=tree).stdout
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime), wall, out


def load() -> str:
    """The load averages (1, 5, 15 min), printed beside figures taken on a shared machine."""
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def imports(sides: dict[str, Path], corpus: Path, tmp: Path, rounds: int, show: bool) -> tuple[dict[str, Path], dict[str, list[float]]]:
    """Import ``corpus`` ``rounds`` times by each side's checkout (``{"base": dir, "this": dir}``),
    alternated, into new SQLite brains under ``tmp``: ``({side: its last brain}, {side: [CPU-s of
    each import]})``. ``show``: print each round's CPU-s and wall seconds."""
    brains: dict[str, Path] = {}
    cpu: dict[str, list[float]] = {"base": [], "this": []}
    for i in range(rounds):
        for side, tree in (sides.items() if i % 2 == 0 else reversed(sides.items())):
            brain = tmp / f"{side}-{i}.db"
            c, w, _ = run(IMPORT, tree, str(corpus), str(brain))
            cpu[side].append(c)
            brains[side] = brain
            if show:
                print(f"  import round {i} {side}: {c:.2f} CPU-s, {w:.1f} s wall (load {load()})")
    return brains, cpu


def print_imports(cpu: dict[str, list[float]]) -> None:
    """One line: the import's median CPU-s of each side (:func:`imports`), their ratio and minima."""
    b, t = statistics.median(cpu["base"]), statistics.median(cpu["this"])
    print(f"import: median CPU base {b:.2f} s, this {t:.2f} s ({t / b:.3f}x, {t - b:+.2f} s); "
          f"min {min(cpu['base']):.2f} / {min(cpu['this']):.2f} s")


def sqlite_migration(old: Path, tmp: Path, rounds: int, rows: dict[str, str]) -> dict:
    """The upgrade of SQLite brain ``old`` (made by the baseline) by this checkout: ``rounds`` copies,
    each opened by this checkout (the upgrade runs), then opened again. ``rows``: ``{label: SQL
    selecting (id, value)}``, read before and after. Returns ``{from, to, upgrade, again}`` (schema
    versions; median CPU-s of the upgrading open and of the open after it) and ``changed``/``total``:
    ``{label: rows whose value the upgrade changed / rows before}``."""
    q = sqlite3.connect(old)
    ver = q.execute("PRAGMA user_version").fetchone()[0]
    before = {k: dict(q.execute(sql)) for k, sql in rows.items()}
    q.close()
    mig, again = [], []
    for i in range(rounds):
        copy = tmp / f"mig-{i}.db"
        shutil.copy(old, copy)
        _, _, out = run(OPEN, ROOT, str(copy))
        r = json.loads(out)
        mig.append(r["cpu"])
        _, _, out2 = run(OPEN, ROOT, str(copy))
        again.append(json.loads(out2)["cpu"])
    q = sqlite3.connect(copy)
    changed = {k: sum(1 for rid, v in q.execute(sql) if before[k].get(rid) != v) for k, sql in rows.items()}
    q.close()
    return {"from": ver, "to": r["version"], "upgrade": statistics.median(mig), "again": statistics.median(again),
            "changed": changed, "total": {k: len(v) for k, v in before.items()}}


def server_cpu(datadir: Path) -> float:
    """CPU-s of the Postgres server at ``datadir``: its postmaster's reaped children (``/proc/PID/stat``
    ``utime + stime + cutime + cstime``; a backend counts once its client has gone and it was reaped)."""
    pid = int((datadir / "postmaster.pid").read_text().split()[0])
    f = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(f[13]) + int(f[14]) + int(f[15]) + int(f[16])) / os.sysconf("SC_CLK_TCK")


def pg_migration(base: Path, corpus: Path, tmp: Path, rounds: int, prefix: str) -> dict:
    """The upgrade of a Postgres brain on a private pgserver (under ``tmp``): ``rounds`` times, a new
    database ``PREFIX_i`` that ``base``'s checkout imports ``corpus`` into, opened by this checkout (the
    upgrade runs), then again. Returns ``{version, rounds, up: {cpu, server, wall}, again: {…}}``:
    medians of client CPU-s, server CPU-s (:func:`server_cpu`, read half a second after each client
    exited) and wall seconds. Needs ``pgserver`` and ``psycopg``."""
    import pgserver
    import psycopg

    d = tmp / "pg"
    d.mkdir()
    os.chmod(tmp, 0o755)
    os.chmod(d, 0o755)
    srv = pgserver.get_server(str(d), cleanup_mode="stop")
    try:
        up, again = [], []
        for i in range(rounds):
            with psycopg.connect(srv.get_uri(), autocommit=True) as c:
                c.execute(f"CREATE DATABASE {prefix}_{i}")
            url = srv.get_uri().replace("/postgres?", f"/{prefix}_{i}?", 1)
            run(IMPORT, base, str(corpus), url)
            for into in (up, again):
                time.sleep(0.5)
                s0 = server_cpu(d)
                _, _, out = run(OPEN, ROOT, url)
                time.sleep(0.5)  # (the backend's exit reaped by the postmaster)
                into.append({**json.loads(out), "server": server_cpu(d) - s0})
    finally:
        srv.cleanup()

    def med(xs: list[dict]) -> dict:
        return {k: statistics.median(x[k] for x in xs) for k in ("cpu", "server", "wall")}

    return {"version": up[-1]["version"], "rounds": rounds, "up": med(up), "again": med(again)}


def print_pg_migration(m: dict) -> None:
    """One line of :func:`pg_migration`'s figures."""
    u, a = m["up"], m["again"]
    print(f"Postgres migration -> v{m['version']}: the upgrading open {u['cpu']:.3f} client CPU-s, "
          f"{u['server']:.2f} server CPU-s, {u['wall']:.2f} s wall; a second open {a['cpu']:.3f} client CPU-s, "
          f"{a['server']:.2f} server CPU-s, {a['wall']:.2f} s wall (median of {m['rounds']}; load {load()})")
