#!/usr/bin/env python3
"""How much of an agent's context ``gbrain serve``'s tool list takes, beside the baseline.

An MCP host (Claude Code, Cursor, …) asks ``tools/list`` at every session start. Two figures:

* **wire**: the bytes of the ``tools/list`` answer as the server writes it (one JSON-RPC line:
  every tool's name, title, description, inputSchema, outputSchema and annotations);
* **model**: what a host puts into the model's context for each tool: name, description and
  inputSchema (Claude Code sends the model ``{name, description, input_schema}`` and keeps
  outputSchema for validating ``structuredContent``: anthropics/claude-code#54197, #90150),
  plus the server's ``instructions`` from ``initialize``, said once per session.

Tokens are an ESTIMATE: bytes / 4 (English prose and JSON average about 4 bytes per token; a real
tokenizer gives somewhat more for JSON punctuation and fewer for plain words).

The server is a real ``python -m gbrain serve`` subprocess driven by a raw JSON-RPC client on its
pipes (``initialize``, ``notifications/initialized``, ``tools/list``), so the bytes counted are the
server's own, not an SDK's re-serialisation of them.

    python benchmarks/mcp_tools_size.py                  # this tree beside the recorded baseline
    python benchmarks/mcp_tools_size.py --against 95dd4fb  # and a commit measured now (a git worktree under /tmp)

Targets (set from the measurement at BASELINE_COMMIT: wire 75,276 B, model 36,732 B): wire ≤ 53 KB,
model ≤ 28 KB.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# keep the benchmarks folder off sys.path (a script here must never shadow a package)
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

#: main when this work started, measured with this script (``--against 95dd4fb`` measures it again)
BASELINE_COMMIT = "95dd4fb"
BASELINE = {"tools": 36, "wire": 75276, "model": 36732, "instructions": 662,
            "description": 13628, "inputSchema": 20418, "outputSchema": 32629, "other": 8520}
#: the model's share is what costs every session; the rest of the wire is the output schemas
#: (18 KB: hosts validate structuredContent against them, and keep them out of the model's context)
#: and the annotations/titles. tests/test_surfaces.py bounds the model's share too (TOOLS_BUDGET)
TARGET_WIRE, TARGET_MODEL = 53_000, 28_000


def _size(o) -> int:
    return len(json.dumps(o, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def tools_list(tree: Path) -> tuple[bytes, dict]:
    """The raw ``tools/list`` answer line and the ``initialize`` result of a server run from ``tree``."""
    with tempfile.TemporaryDirectory(prefix="gbrain-toolsize-") as tmp:
        env = {**os.environ, "PYTHONPATH": str(tree), "LC_ALL": "C.UTF-8", "LANG": "C.UTF-8"}
        p = subprocess.Popen([sys.executable, "-m", "gbrain", "serve", "--db", str(Path(tmp) / "b.db"), "--create"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=tmp)
        assert p.stdin is not None and p.stdout is not None

        def send(msg: dict) -> None:
            p.stdin.write((json.dumps(msg) + "\n").encode())
            p.stdin.flush()

        try:
            send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "mcp_tools_size", "version": "1"}}})
            init = json.loads(p.stdout.readline())["result"]
            send({"jsonrpc": "2.0", "method": "notifications/initialized"})
            send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
            line = p.stdout.readline()
        finally:
            p.stdin.close()
            p.wait(timeout=30)
    return line.rstrip(b"\n"), init


def measure(tree: Path) -> dict:
    line, init = tools_list(tree)
    tools = json.loads(line)["result"]["tools"]
    out = {"tools": len(tools), "wire": len(line), "instructions": len(init.get("instructions", "").encode()),
           "description": 0, "inputSchema": 0, "outputSchema": 0, "other": 0, "per_tool": []}
    model = 0
    for t in tools:
        d = len(t.get("description", "").encode())
        i = _size(t.get("inputSchema", {}))
        o = _size(t["outputSchema"]) if t.get("outputSchema") else 0
        whole = _size(t)
        m = _size({"name": t["name"], "description": t.get("description", ""), "input_schema": t.get("inputSchema", {})})
        out["description"] += d
        out["inputSchema"] += i
        out["outputSchema"] += o
        out["other"] += whole - d - i - o
        model += m
        out["per_tool"].append({"name": t["name"], "wire": whole, "model": m, "description": d, "inputSchema": i, "outputSchema": o})
    out["model"] = model + out["instructions"]
    return out


def _row(label: str, r: dict) -> str:
    return (f"{label:<22} {r['tools']:>5} {r['wire']:>8,} {r['wire'] // 4:>7,} {r['model']:>8,} {r['model'] // 4:>7,}   "
            f"desc {r['description']:,} · input {r['inputSchema']:,} · output {r['outputSchema']:,} · other {r['other']:,} · instructions {r['instructions']:,}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--against", metavar="COMMIT", help="also measure this commit now, from a git worktree under /tmp")
    ap.add_argument("--top", type=int, default=10)
    args = ap.parse_args()

    now = measure(ROOT)
    print("tools/list of gbrain serve: wire = the answer's bytes; model = name + description + inputSchema of every tool")
    print("+ the server's instructions (what a host puts in the model's context). Tokens ≈ bytes / 4: an ESTIMATE, not a tokenizer.\n")
    print(f"{'':<22} {'tools':>5} {'wire B':>8} {'~tok':>7} {'model B':>8} {'~tok':>7}")
    print(_row(f"baseline {BASELINE_COMMIT}", BASELINE))
    if args.against:
        tmp = Path(tempfile.mkdtemp(prefix="gbrain-toolsize-base-"))
        wt = tmp / "tree"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(wt), args.against], check=True, capture_output=True)
        try:
            print(_row(f"{args.against} (now)", measure(wt)))
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(wt)], capture_output=True)
            shutil.rmtree(tmp, ignore_errors=True)
    print(_row("this tree", now))
    print(f"\nchange: wire {now['wire'] / BASELINE['wire'] - 1:+.0%}, model {now['model'] / BASELINE['model'] - 1:+.0%}; "
          f"targets: wire ≤ {TARGET_WIRE:,} B ({'met' if now['wire'] <= TARGET_WIRE else 'MISSED'}), "
          f"model ≤ {TARGET_MODEL:,} B ({'met' if now['model'] <= TARGET_MODEL else 'MISSED'})")
    print(f"\ntop {args.top} tools by wire bytes (model bytes; description / inputSchema / outputSchema):")
    for t in sorted(now["per_tool"], key=lambda t: -t["wire"])[: args.top]:
        print(f"  {t['name']:<22} {t['wire']:>6,} ({t['model']:>5,}; {t['description']:>5,} / {t['inputSchema']:>5,} / {t['outputSchema']:>5,})")
    return 0 if now["wire"] <= TARGET_WIRE and now["model"] <= TARGET_MODEL else 1


if __name__ == "__main__":
    sys.exit(main())
