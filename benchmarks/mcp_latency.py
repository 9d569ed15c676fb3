#!/usr/bin/env python3
"""MCP server speed on a 7,471-page brain, beside baselines measured in the same run (issue 5).

* spawn-to-ready: from starting ``python -m gbrain serve`` to the answer to ``initialize`` (a raw
  JSON-RPC client on the pipes, as Claude Code spawns it), and to the first ``tools/list``;
  baselines: ``python -c pass`` and ``python -m gbrain version`` (interpreter and CLI start);
* round trips through the official SDK's stdio client: p50 / p95 of ``brain_get`` (random pages)
  and ``brain_search`` (words from random titles); baseline: the same calls in-process
  (``operations.run`` on an open brain, no MCP, no JSON);
* a burst of 25 concurrent ``brain_get`` calls.

Targets on 2 cores: spawn-to-ready ≤ 1 s; brain_get p50 ≤ 2 ms; brain_search p50 ≤ 20 ms (issue 15).

    python benchmarks/mcp_latency.py [--pages 7471] [--db EXISTING.db] [--calls 200]
"""
from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# keep the benchmarks folder off sys.path (a test or script there must never shadow a package)
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(ROOT))

import anyio  # noqa: E402

from gbrain import operations as ops  # noqa: E402
from gbrain.core.brain import Brain  # noqa: E402

MAKE_BRAIN = ROOT.parent / "shared" / "tools" / "make_brain.py"
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}


def build(pages: int, tmp: Path) -> Path:
    from gbrain.sync.importer import import_tree

    tree = tmp / "tree"
    subprocess.run([sys.executable, str(MAKE_BRAIN), str(tree), "--pages", str(pages), "--seed", "1"], check=True, capture_output=True)
    db = tmp / "brain.db"
    with Brain.open(db) as b:
        import_tree(b, tree)
    return db


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def ms(x: float) -> str:
    return f"{x * 1000:7.2f} ms"


def time_cmd(argv: list[str], n: int) -> float:
    ts = []
    for _ in range(n):
        t = time.perf_counter()
        subprocess.run(argv, check=True, capture_output=True, env=ENV)
        ts.append(time.perf_counter() - t)
    return statistics.median(ts)


def spawn_to_ready(db: Path, n: int) -> tuple[float, float]:
    """Median seconds to the initialize answer and to the first tools/list answer."""
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}}
    ready, listed = [], []
    for _ in range(n):
        t = time.perf_counter()
        p = subprocess.Popen([sys.executable, "-m", "gbrain", "serve", "--db", str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=ENV)
        p.stdin.write((json.dumps(init) + "\n").encode())
        p.stdin.flush()
        assert json.loads(p.stdout.readline())["id"] == 1
        ready.append(time.perf_counter() - t)
        p.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n')
        p.stdin.flush()
        assert json.loads(p.stdout.readline())["id"] == 2
        listed.append(time.perf_counter() - t)
        p.stdin.close()
        p.wait(timeout=30)
    return statistics.median(ready), statistics.median(listed)


def workload(db: Path, calls: int) -> tuple[list[str], list[str]]:
    rng = random.Random(7)
    with Brain.open(db) as b:
        rows = b.conn.execute("SELECT slug, title FROM pages").fetchall()
    picks = [rng.choice(rows) for _ in range(calls)]
    words = []
    for r in picks:
        ws = [w for w in (r["title"] or "").split() if len(w) > 3 and w.isalpha()]
        words.append(rng.choice(ws) if ws else r["slug"].rsplit("/", 1)[-1].split("-")[0])
    return [r["slug"] for r in picks], words


def in_process(db: Path, slugs: list[str], words: list[str]) -> tuple[list[float], list[float]]:
    g, s = [], []
    with Brain.open(db) as b:
        for slug in slugs:
            t = time.perf_counter()
            ops.run("get", {"slug": slug}, brain=b)
            g.append(time.perf_counter() - t)
        for w in words:
            t = time.perf_counter()
            ops.run("search", {"query": w}, brain=b)
            s.append(time.perf_counter() - t)
    return g, s


async def over_mcp(db: Path, slugs: list[str], words: list[str]) -> tuple[list[float], list[float], float]:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=sys.executable, args=["-m", "gbrain", "serve", "--db", str(db)], env={"PYTHONPATH": ENV["PYTHONPATH"]})
    g, s = [], []
    with open(os.devnull, "w") as quiet:  # the server's startup line goes to stderr
        async with Client(stdio_client(params, errlog=quiet)) as c:
            await c.call_tool("brain_stats", {})  # warm: open the DB
            for slug in slugs:
                t = time.perf_counter()
                r = await c.call_tool("brain_get", {"slug": slug})
                g.append(time.perf_counter() - t)
                assert not r.is_error, r
            for w in words:
                t = time.perf_counter()
                r = await c.call_tool("brain_search", {"query": w})
                s.append(time.perf_counter() - t)
                assert not r.is_error, r
            t = time.perf_counter()
            async with anyio.create_task_group() as tg:
                for slug in slugs[:25]:
                    tg.start_soon(c.call_tool, "brain_get", {"slug": slug})
            burst = time.perf_counter() - t
    return g, s, burst


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pages", type=int, default=7471)
    ap.add_argument("--db", type=Path, help="use this brain instead of building one")
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--spawns", type=int, default=5)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        if a.db:
            db = a.db
        else:
            t = time.perf_counter()
            db = build(a.pages, Path(tmp))
            print(f"built a {a.pages:,}-page brain in {time.perf_counter() - t:.1f} s")
        with Brain.open(db) as b:
            print(f"brain: {b.stats()['pages']:,} pages, {db.stat().st_size / 1e6:.1f} MB")
        py = time_cmd([sys.executable, "-c", "pass"], a.spawns)
        cli = time_cmd([sys.executable, "-m", "gbrain", "version"], a.spawns)
        ready, listed = spawn_to_ready(db, a.spawns)
        print("\nspawn-to-ready (median of %d)" % a.spawns)
        print(f"  baseline python -c pass        {ms(py)}")
        print(f"  baseline gbrain version (CLI)  {ms(cli)}")
        print(f"  gbrain serve → initialize      {ms(ready)}   target ≤ 1000 ms")
        print(f"  gbrain serve → tools/list      {ms(listed)}")
        slugs, words = workload(db, a.calls)
        g0, s0 = in_process(db, slugs, words)
        g1, s1, burst = anyio.run(over_mcp, db, slugs, words)
        print(f"\nround trips ({a.calls} calls each)           p50          p95")
        print(f"  brain_get    in-process baseline {ms(pct(g0, 50))}  {ms(pct(g0, 95))}")
        print(f"  brain_get    MCP stdio           {ms(pct(g1, 50))}  {ms(pct(g1, 95))}   target p50 ≤ 2 ms")
        print(f"  brain_search in-process baseline {ms(pct(s0, 50))}  {ms(pct(s0, 95))}")
        print(f"  brain_search MCP stdio           {ms(pct(s1, 50))}  {ms(pct(s1, 95))}   target p50 ≤ 20 ms")
        print(f"\n25 concurrent brain_get calls: {ms(burst)} in all")


if __name__ == "__main__":
    main()
