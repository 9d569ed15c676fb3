"""What an agent-builder's trial of gbrain found (MCP ``serve``, ``call``, ``pipe``,
``--tools-json``, skills): each surface takes an argument the same way, speaks its own
vocabulary in errors, and the descriptions say what the tools do."""
from __future__ import annotations

import json

import anyio

from conftest import gbrain
from test_mcp import connect, ok, text_of
from test_surfaces import j, pipe


def test_call_coerces_arguments_before_any_note_or_text_sees_them(fixture_db):
    """``{"limit": "3"}`` is 3 on every surface (MCP and pipe took it; ``call`` crashed in
    list's note comparing the raw string)."""
    db = str(fixture_db)
    r = gbrain("--db", db, "call", "brain_list", '{"limit": "3"}')
    assert r.returncode == 0, r.stderr.decode()
    assert b"Traceback" not in r.stderr
    assert len(json.loads(r.stdout)) == 3
    [p] = pipe(fixture_db, [{"id": 1, "tool": "brain_list", "params": {"limit": "3"}}])
    assert p["ok"] and len(p["result"]) == 3

    async def main():
        async with connect(fixture_db) as c:
            return ok(await c.call_tool("brain_list", {"limit": "3"}))

    assert len(anyio.run(main)["items"]) == 3
    # a value that does not convert is a usage error, as JSON, never a traceback
    r = gbrain("--db", db, "call", "brain_list", '{"limit": "three"}')
    assert r.returncode == 2 and b"Traceback" not in r.stderr
    assert json.loads(r.stdout)["exit_code"] == 2


def test_pipe_errors_carry_the_exit_code_call_gives(fixture_db):
    """A pipe error line has ``exit_code`` as call's error object does: 2 for bad input, 1 for a failure."""
    out = pipe(fixture_db, [
        "this is not json",
        {"id": 2, "tool": "brain_nope"},
        {"id": 3, "tool": "brain_get", "params": {"slug": 7}},
        {"id": 4, "tool": "brain_get", "params": {"slug": "nobody"}},
        {"id": 5, "tool": "brain_get", "params": {"slug": "ana-lima"}},
    ])
    assert [o.get("exit_code") for o in out] == [2, 2, 2, 1, None]
    for line, argv in ((out[1], ["brain_nope", "{}"]), (out[2], ["brain_get", '{"slug": 7}']), (out[3], ["brain_get", '{"slug": "nobody"}'])):
        r = gbrain("--db", str(fixture_db), "call", *argv)
        assert json.loads(r.stdout)["exit_code"] == r.returncode == line["exit_code"]
