#!/usr/bin/env python3
"""Start-up of whole processes, beside baselines measured in the same run (issue 14, item 5).

* ``python -c pass``: the interpreter alone (baseline);
* ``python -c "import mcp.server.mcpserver"``: the MCP SDK's own import, a floor for ``serve``;
* ``gbrain get SLUG`` as a whole process (``python -m gbrain --db X get people/ana-lima``);
  target ≤ 0.2 s on an idle machine; and the same through the typer app (``GBRAIN_FAST_PATH=0``),
  which is how every command started before the fast path in gbrain/entry.py; ``gbrain call
  brain_get`` likewise (a script's call: through typer until trial 32);
* ``gbrain serve`` spawn-to-ready: from starting the process to the answer to ``initialize``
  (raw JSON-RPC on the pipes, as an MCP host spawns it); target ≤ 0.3 s on an idle machine.
  ``serve`` answers ``initialize`` itself while the SDK loads in a thread
  (``gbrain/mcp/handshake.py``); beside it the same with the SDK answering
  (``GBRAIN_FAST_INIT=0``, how it was before) and the time to the answer to a ``tools/list``
  sent right after the handshake (what a host waits for before its tools are usable), which
  ``serve`` answers too before the SDK has loaded (from the operations registry, the SDK's exact
  bytes), beside the same with the SDK answering it; and the time to the answer to the first
  ``tools/call`` after it (the SDK loaded and serving).

Each figure is the median of ``--runs`` runs: wall time and the child's CPU time (user + sys,
from ``os.wait4``). CPU time moves less than wall time when other processes share the machine,
so both are printed with the load average. The brain is ``fixtures/brain`` imported into a
temporary database (start-up does not depend on the brain's size: nothing is read at start).

    python benchmarks/startup.py [--runs 15]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
# bytecode cached as in an installed package (with PYTHONDONTWRITEBYTECODE every start compiles)
ENV = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
       "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}

TARGETS = {"get": 0.2, "serve": 0.3}


def run_once(args: list[str], env: dict | None = None) -> tuple[float, float]:
    """Wall and CPU seconds of one whole process (output discarded)."""
    t = time.perf_counter()
    p = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**ENV, **(env or {})}, cwd=str(ROOT.parent))
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed with exit {p.returncode}")
    return wall, ru.ru_utime + ru.ru_stime


def serve_once(db: Path, env: dict | None = None, tools: bool = False, call: bool = False) -> tuple[float, float]:
    """Wall seconds from spawn to the initialize answer (``tools``: to the answer to the
    ``tools/list`` sent after it, answered before the SDK loads; ``call``: to the answer to a
    ``tools/call`` of brain_stats sent after that, i.e. the SDK loaded and serving), and the
    process's CPU seconds up to its exit."""
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}}
    t = time.perf_counter()
    p = subprocess.Popen([sys.executable, "-m", "gbrain", "serve", "--db", str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env={**ENV, **(env or {})}, cwd=str(ROOT.parent))
    p.stdin.write((json.dumps(init) + "\n").encode())
    p.stdin.flush()
    assert json.loads(p.stdout.readline())["id"] == 1
    if tools:
        p.stdin.write((json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n" + json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}) + "\n").encode())
        p.stdin.flush()
        assert json.loads(p.stdout.readline())["id"] == 2
    if call:
        p.stdin.write((json.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "brain_stats", "arguments": {}}}) + "\n").encode())
        p.stdin.flush()
        assert json.loads(p.stdout.readline())["id"] == 3
    ready = time.perf_counter() - t
    p.stdin.close()
    _, _, ru = os.wait4(p.pid, 0)
    p.returncode = 0
    return ready, ru.ru_utime + ru.ru_stime


def median_of(fn, runs: int) -> tuple[float, float]:
    fn()  # warm the OS file cache and the bytecode caches
    xs = [fn() for _ in range(runs)]
    return statistics.median(x[0] for x in xs), statistics.median(x[1] for x in xs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=15)
    a = ap.parse_args()
    from gbrain.core.brain import Brain
    from gbrain.sync.importer import import_tree

    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "brain.db"
        with Brain.open(db) as b:
            import_tree(b, ROOT / "fixtures" / "brain")
        py = sys.executable
        rows = [
            ("python -c pass (baseline)", median_of(lambda: run_once([py, "-c", "pass"]), a.runs), None),
            ("import mcp.server.mcpserver (SDK floor)", median_of(lambda: run_once([py, "-c", "import mcp.server.mcpserver"]), a.runs), None),
            ("gbrain get people/ana-lima", median_of(lambda: run_once([py, "-m", "gbrain", "--db", str(db), "get", "people/ana-lima"]), a.runs), TARGETS["get"]),
            ("  the same through typer (GBRAIN_FAST_PATH=0)", median_of(lambda: run_once([py, "-m", "gbrain", "--db", str(db), "get", "people/ana-lima"], {"GBRAIN_FAST_PATH": "0"}), a.runs), None),
            ("gbrain call brain_get (a script's call)", median_of(lambda: run_once([py, "-m", "gbrain", "--db", str(db), "call", "brain_get", '{"slug": "people/ana-lima"}']), a.runs), None),
            ("  the same through typer (GBRAIN_FAST_PATH=0)", median_of(lambda: run_once([py, "-m", "gbrain", "--db", str(db), "call", "brain_get", '{"slug": "people/ana-lima"}'], {"GBRAIN_FAST_PATH": "0"}), a.runs), None),
            ("gbrain serve → initialize answer", median_of(lambda: serve_once(db), a.runs), TARGETS["serve"]),
            ("  the same, SDK first (GBRAIN_FAST_INIT=0)", median_of(lambda: serve_once(db, {"GBRAIN_FAST_INIT": "0"}), a.runs), None),
            ("  serve → tools/list answered (before SDK load)", median_of(lambda: serve_once(db, tools=True), a.runs), None),
            ("  the same, SDK answering (GBRAIN_FAST_INIT=0)", median_of(lambda: serve_once(db, {"GBRAIN_FAST_INIT": "0"}, tools=True), a.runs), None),
            ("  serve → first tools/call answered (SDK loaded)", median_of(lambda: serve_once(db, tools=True, call=True), a.runs), None),
        ]
    base = rows[0][1][0]
    print(f"start-up, median of {a.runs} runs; load average {', '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")
    print(f"  {'':46} {'wall':>9} {'cpu':>9} {'wall − baseline':>16}   target (idle machine, wall)")
    for name, (wall, cpu), target in rows:
        tgt = f"≤ {target * 1000:.0f} ms ({wall / target:.2f}× of it)" if target else ""
        print(f"  {name:46} {wall * 1000:6.0f} ms {cpu * 1000:6.0f} ms {(wall - base) * 1000:13.0f} ms   {tgt}")


if __name__ == "__main__":
    main()
