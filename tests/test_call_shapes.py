"""`call` and `pipe` answer in the shape the MCP tool's structured content has (trial 32: `call
brain_conflicts` gave a bare list where the tool gives ``{"items": [...]}``)."""
from __future__ import annotations

import json

import anyio
import pytest

from gbrain import operations as ops

from conftest import gbrain_in_process
from test_mcp import connect, ok

#: one call of every read-only tool on the fixture brain (a paged tool is called with
#: ``cursor: ""``: its first page, as the tool answers without a cursor)
READS = {
    "brain_get": {"slug": "ana-lima"},
    "brain_list": {"type": "person"},
    "brain_stats": {},
    "brain_search": {"query": "Series A"},
    "brain_query": {"question": "Who knows Jensen Huang?"},
    "brain_tags": {},
    "brain_links": {"slug": "people/ana-lima"},
    "brain_backlinks": {"slug": "companies/river-ai"},
    "brain_timeline": {"slug": "people/ana-lima"},
    "brain_raw": {"slug": "people/ana-lima"},
    "brain_lint": {},
    "brain_threads": {},
    "brain_conflicts": {},
    "brain_trash": {},
    "brain_graph": {"slug": "ana-lima"},
    "brain_path": {"from": "people/ana-lima", "to": "companies/river-ai"},
    "brain_history": {"slug": "people/ana-lima"},
    "brain_diff": {"slug": "people/ana-lima"},
    "brain_changes": {},
}


def _steady(o, alias=None):
    """The answer without what differs between two runs (stats' timing) and without the old name
    of a renamed list (``Operation.page_alias``: the script surfaces keep it one release)."""
    if alias and isinstance(o, dict):
        o = {k: v for k, v in o.items() if k != alias}
    if isinstance(o, dict):
        return {k: _steady(v) for k, v in o.items() if k not in ("elapsed_ms",)}
    if isinstance(o, list):
        return [_steady(v) for v in o]
    return o


def test_call_and_pipe_answer_every_read_only_tool_in_its_mcp_shape(fixture_db):
    assert gbrain_in_process("--db", str(fixture_db), "tag", "people/ana-lima", "shapes").returncode == 0  # a second version: diff
    async def main():
        async with connect(fixture_db) as c:
            tools = {t.name: t for t in (await c.list_tools()).tools}
            return tools, {name: await c.call_tool(name, args) for name, args in READS.items()}

    tools, served = anyio.run(main)
    read_only = {n for n, t in tools.items() if t.annotations.read_only_hint}
    assert read_only <= set(READS), sorted(read_only - set(READS))  # a new read-only tool: add a call
    lines, wrong = [], []
    for i, (name, args) in enumerate(READS.items()):
        args = {**args, "cursor": ""} if ops.find(name).page else args
        lines.append(json.dumps({"id": i, "tool": name, "params": args}))
        r = gbrain_in_process("--db", str(fixture_db), "call", name, json.dumps(args))
        mcp = ok(served[name])
        mcp.pop("warnings", None)
        if _steady(json.loads(r.stdout), ops.find(name).page_alias) != _steady(mcp):
            wrong.append(("call", name, r.stdout[:200]))
    p = gbrain_in_process("--db", str(fixture_db), "pipe", input="\n".join(lines) + "\n")
    for (name, _), line in zip(READS.items(), p.stdout.decode().splitlines()):
        answer = json.loads(line)
        mcp = ok(served[name])
        mcp.pop("warnings", None)
        if _steady(answer.get("result"), ops.find(name).page_alias) != _steady(mcp):
            wrong.append(("pipe", name, line[:200]))
    assert not wrong, wrong


@pytest.mark.engine_free
def test_call_and_pipe_refuse_what_runs_until_stopped(tmp_path):
    """Trial 32: a `watch` line in `pipe` never ended and the lines after it waited for ever (and
    `call watch` likewise); `serve` was an "unknown tool". Each is refused as bad input (exit 2;
    in `pipe` that line's answer, the stream going on), saying to run the command itself;
    `watch` with `once` ends (a sync) and is taken."""
    import subprocess
    import sys

    db_path = tmp_path / "own.db"  # a SQLite brain of its own: the refusals are the surfaces', the same on either engine
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "a.md").write_text("# A\n")
    assert gbrain_in_process("--db", str(db_path), "import", str(tree)).returncode == 0
    for tool in ("watch", "brain_watch", "serve", "pipe", "call"):
        r = subprocess.run([sys.executable, "-m", "gbrain", "--db", str(db_path), "call", tool, json.dumps({"dir": str(tree)})],
                           capture_output=True, timeout=120)  # (in a process: unfixed, it never ends)
        err = json.loads(r.stdout)
        assert r.returncode == 2 and err["kind"] == "bad_input", (tool, r)
        assert f"`gbrain {tool.removeprefix('brain_')}" in err["error"] and "call" in err["error"], err
    lines = [{"id": 1, "tool": "watch", "params": {"dir": str(tree)}}, {"id": 2, "tool": "serve"},
             {"id": 3, "tool": "watch", "params": {"dir": str(tree), "once": True}}, {"id": 4, "tool": "stats"}]
    p = subprocess.run([sys.executable, "-m", "gbrain", "--db", str(db_path), "pipe"], capture_output=True, timeout=120,
                       input="".join(json.dumps(x) + "\n" for x in lines).encode())
    answers = [json.loads(x) for x in p.stdout.decode().splitlines()]
    assert [(a["id"], a["ok"]) for a in answers] == [(1, False), (2, False), (3, True), (4, True)], answers
    assert answers[0]["exit_code"] == 2 and "runs until stopped" in answers[0]["error"], answers[0]
    assert p.returncode == 2
