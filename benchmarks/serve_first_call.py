#!/usr/bin/env python3
"""The first tool call of a new ``gbrain serve`` session: the server's CPU-s and the client's wall
for it, beside the second call's, through the official MCP SDK's stdio client (trial 72 measured
the first call at 2.4-2.7 CPU-s in the server, later ones ~0.1).

The server's CPU is read from ``/proc/PID/stat`` (utime + stime, every thread of it) at each step:
spawn to the end of the ``initialize`` handshake, then (``--settle``) idle until its CPU stops
growing (the SDK is imported and the server built in a background thread while the handshake is
answered: ``gbrain/mcp/handshake.py``), then the first call, then the same call again.

    python benchmarks/serve_first_call.py [--pages 2000] [--db EXISTING.db] [--call get|search|both]
        [--runs 3] [--settle] [--mode legacy|auto] [--baseline /work/main] [--profile OUT.prof]

``--profile``: the server runs under cProfile in every thread (one run; ``python -m pstats OUT.prof``).
Note the load average printed: CPU-s swing on a shared machine.
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
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(ROOT))

MAKE_BRAIN = ROOT.parent / "shared" / "tools" / "make_brain.py"
if not MAKE_BRAIN.exists():
    MAKE_BRAIN = Path("/work/shared/tools/make_brain.py")
TICK = os.sysconf("SC_CLK_TCK")


def build(pages: int, tmp: Path) -> Path:
    from gbrain.core.brain import Brain
    from gbrain.sync.importer import import_tree

    tree = tmp / "tree"
    subprocess.run([sys.executable, str(MAKE_BRAIN), str(tree), "--pages", str(pages), "--seed", "1"], check=True, capture_output=True)
    db = tmp / "brain.db"
    with Brain.open(db, create=True) as b:
        import_tree(b, tree)
    return db


def cpu_of(pid: int) -> float:
    """CPU-s (user + system) of process ``pid``, all its threads."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def server_pid() -> int:
    """The pid of this process's child running the server (the SDK's stdio client spawned it)."""
    me = str(os.getpid())
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    st = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if st[1] == me:
                return int(d)
    raise RuntimeError("no server process found")


def calls_for(db: Path, which: str) -> list[tuple[str, dict]]:
    import sqlite3

    con = sqlite3.connect(db)
    slug, title = con.execute("SELECT slug, title FROM pages ORDER BY slug LIMIT 1 OFFSET 777").fetchone()
    con.close()
    word = next((w for w in (title or "").split() if len(w) > 3 and w.isalpha()), slug.rsplit("/", 1)[-1])
    out = []
    if which in ("get", "both"):
        out.append(("brain_get", {"slug": slug}))
    if which in ("search", "both"):
        out.append(("brain_search", {"query": word}))
    return out


async def session(db: Path, call: tuple[str, dict], settle: bool, profile: Path | None, mode: str, root: Path = ROOT) -> dict:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters, stdio_client

    env = {"PYTHONPATH": str(root), "PATH": os.environ.get("PATH", "")}
    args = ["-m", "gbrain", "serve", "--db", str(db)]
    if profile:
        args = [__file__, "--as-server", str(profile), "--", *args[2:]]
    params = StdioServerParameters(command=sys.executable, args=args, env=env, cwd=str(root))
    out: dict = {}
    t0 = time.perf_counter()
    with open(os.devnull, "w") as quiet:
        async with Client(stdio_client(params, errlog=quiet), mode=mode) as c:
            pid = server_pid()
            out["init_wall"], out["init_cpu"] = time.perf_counter() - t0, cpu_of(pid)
            if settle:  # until the background import/build is done: CPU flat over 0.3 s
                import anyio

                last = -1.0
                while (now := cpu_of(pid)) != last:
                    last = now
                    await anyio.sleep(0.3)
            base = cpu_of(pid)
            out["idle_cpu"] = base - out["init_cpu"]
            for k in ("first", "second"):
                t = time.perf_counter()
                r = await c.call_tool(*call)
                assert not r.is_error, r
                now = cpu_of(pid)
                out[f"{k}_wall"], out[f"{k}_cpu"], base = time.perf_counter() - t, now - base, now
    return out


def as_server(prof_out: str, argv: list[str]) -> None:
    """Run ``python -m gbrain ARGV`` under cProfile in every thread; write the merged profile when
    the server ends (it ends by ``os._exit``, so that is wrapped)."""
    import cProfile
    import pstats
    import runpy
    import threading

    profs: list = []

    def start(*_a) -> None:  # a new thread's first event: give it a profiler of its own
        p = cProfile.Profile()
        profs.append(p)
        p.enable()

    threading.setprofile(start)
    real_exit = os._exit

    def dump_and_exit(code: int = 0) -> None:
        for p in profs:
            try:
                p.disable()
            except Exception:  # noqa: BLE001 - another thread's profiler
                pass
        st = pstats.Stats(profs[0])
        for p in profs[1:]:
            try:
                st.add(p)
            except Exception:  # noqa: BLE001 - a profiler that never ran
                pass
        st.dump_stats(prof_out)
        real_exit(code)

    os._exit = dump_and_exit  # type: ignore[assignment]
    main = cProfile.Profile()
    profs.append(main)
    sys.argv = ["gbrain", *argv]
    main.enable()
    try:
        runpy.run_module("gbrain", run_name="__main__", alter_sys=True)
    finally:
        dump_and_exit(0)


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--as-server":
        return as_server(sys.argv[2], sys.argv[4:])
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pages", type=int, default=2000)
    ap.add_argument("--db", type=Path, help="use this brain instead of building one")
    ap.add_argument("--call", choices=("get", "search", "both"), default="both")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--settle", action="store_true", help="idle after the handshake until the server's CPU is flat")
    ap.add_argument("--mode", choices=("legacy", "auto"), default="legacy",
                    help="the SDK client's handshake: legacy (initialize, as hosts send it; default) or auto (the SDK's discovery first)")
    ap.add_argument("--baseline", type=Path, help="another checkout (e.g. /work/main) whose server runs alternated with this one's")
    ap.add_argument("--profile", type=Path, help="one run with the server under cProfile, written here")
    a = ap.parse_args()
    import anyio

    with tempfile.TemporaryDirectory() as tmp:
        db = a.db or build(a.pages, Path(tmp))
        print(f"brain {db}; load {os.getloadavg()[0]:.1f}")
        roots = [ROOT] + ([a.baseline.resolve()] if a.baseline and not a.profile else [])
        for call in calls_for(db, a.call):
            rows: dict = {r: [] for r in roots}
            for _ in range(1 if a.profile else a.runs):
                for r in roots:  # (alternated: the load moves)
                    rows[r].append(anyio.run(session, db, call, a.settle, a.profile, a.mode, r))
            for r in roots:

                def med(k: str) -> float:
                    return statistics.median(x[k] for x in rows[r])

                print(f"{call[0]:13} {'this' if r == ROOT else str(r):>10}: init {med('init_cpu'):.2f} CPU-s {med('init_wall'):.2f} s"
                      + (f" | idle {med('idle_cpu'):.2f} CPU-s" if a.settle else "")
                      + f" | first {med('first_cpu'):.2f} CPU-s {med('first_wall'):.2f} s"
                      + f" | second {med('second_cpu'):.3f} CPU-s {med('second_wall'):.3f} s   (median of {len(rows[r])}; load {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
