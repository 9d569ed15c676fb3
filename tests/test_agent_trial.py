"""What an agent-builder's trial of gbrain found (MCP ``serve``, ``call``, ``pipe``,
``--tools-json``, skills): each surface takes an argument the same way, speaks its own
vocabulary in errors, and the descriptions say what the tools do."""
from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from conftest import gbrain_in_process as gbrain  # what the commands do, not the process: no process per call (~0.25 CPU-s each)
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
    assert b"`limit` 0 lists all" in r.stderr and b"--limit" not in r.stderr  # call speaks parameters
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


def test_put_timeline_append_retried_adds_nothing(fixture_db):
    """brain_put is annotated idempotent: a retried ``timeline_append`` skips the entries the
    timeline already holds (date, source and summary, as brain_timeline_add), changed: false;
    a new entry in the same call is still added, and the rest of the page stays byte-exact."""
    from gbrain.core.brain import Brain

    two = "- **2025-06-02** | email — Sent the deck\n  with the appendix\n- **2025-06-03** | call — Agreed on terms"

    async def main():
        async with connect(fixture_db) as c:
            first = ok(await c.call_tool("brain_put", {"slug": "ana-lima", "timeline_append": two}))
            with Brain.open(fixture_db) as b:
                after_first = b.get_text("people/ana-lima")
            again = ok(await c.call_tool("brain_put", {"slug": "ana-lima", "timeline_append": two}))
            with Brain.open(fixture_db) as b:
                after_again = b.get_text("people/ana-lima")
            more = ok(await c.call_tool("brain_put", {"slug": "ana-lima", "timeline_append": "- **2025-06-03** | call — Agreed on terms\n- **2025-06-04** | Signed"}))
            with Brain.open(fixture_db) as b:
                after_more = b.get_text("people/ana-lima")
        return first, again, after_first, after_again, more, after_more

    first, again, after_first, after_again, more, after_more = anyio.run(main)
    assert first["changed"] is True and again["changed"] is False
    assert after_again == after_first
    assert after_first.count("Sent the deck") == 1 and after_first.count("Agreed on terms") == 1
    assert "already has" in again["note"] and "nothing added" in again["note"]
    assert more["changed"] is True and after_more.count("Agreed on terms") == 1 and after_more.count("Signed\n") == 1
    assert "already has 1" in more["note"]


def test_messages_speak_tools_over_mcp_and_commands_on_the_cli(fixture_db):
    """An agent on MCP reads tool calls and parameters in errors and advice (`brain_trash`,
    `keep_days`), never `gbrain …` commands or --flags; the CLI keeps its commands and options."""
    from gbrain.core.brain import Brain

    with Brain.open(fixture_db) as b:
        b.put("drafts/gone", "# Gone\n\nbody\n")
        b.put("drafts/dead", "# Dead\n\n[[No Such Page]]\n")
        b.delete_page("drafts/gone")

    async def main():
        async with connect(fixture_db) as c:
            out = {n: await c.call_tool(n, a) for n, a in (
                ("brain_history", {"slug": ""}),  # {} is refused by the schema (slug is required)
                ("brain_history_prune", {}),
                ("brain_restore", {"slug": "nothing-here"}),
                ("brain_restore", {"slug": "people/ana-lima"}),
                ("brain_lint", {}),
            )}
        return out

    out = anyio.run(main)
    texts = {n: text_of(r) for n, r in out.items()}
    for n in ("brain_history", "brain_history_prune", "brain_restore"):
        assert out[n].is_error, n
        assert "gbrain " not in texts[n] and " --" not in texts[n], texts[n]
    assert "`slug`" in texts["brain_history"] and "brain_history_prune" in texts["brain_history"]
    assert "`keep_days`" in texts["brain_history_prune"] and "`keep_last`" in texts["brain_history_prune"]
    assert "brain_revert" in texts["brain_restore"] and '"to": N' in texts["brain_restore"]
    findings = ok(out["brain_lint"])["items"]
    assert findings and not [f for f in findings if "gbrain " in f.get("action", "") + f.get("message", "")]
    dead = next(f for f in findings if f["check"] == "dead_links" and f["slug"] == "drafts/dead")
    assert '`brain_unlink {"from": "drafts/dead", "to": "No Such Page"}`' in dead["action"]
    # the command line keeps its own words
    r = gbrain("--db", str(fixture_db), "history")
    assert r.returncode == 2 and b"`gbrain history SLUG`" in r.stderr
    r = gbrain("--db", str(fixture_db), "history-prune")
    assert r.returncode == 2 and b"--keep-days" in r.stderr
    r = gbrain("--db", str(fixture_db), "restore", "people/ana-lima")
    assert r.returncode == 1 and b"`gbrain revert people/ana-lima --to N`" in r.stderr
    lint = json.loads(gbrain("--db", str(fixture_db), "lint", "--json").stdout)
    assert any("`gbrain unlink drafts/dead" in f["action"] for f in lint["items"])


def test_descriptions_and_schemas_agree(fixture_db):
    """What a tool's description says matches its schema and what it does."""
    tools = {t["name"]: t for t in j(gbrain("--tools-json"))}
    # brain_restore lists nothing: a slug or all (brain_trash lists the trash)
    assert "Without a slug" not in tools["brain_restore"]["description"]
    # brain_ingest needs content, and its schema says so
    assert tools["brain_ingest"]["input_schema"]["required"] == ["content"]
    # brain_search: phrases and prefixes are the only syntax, and the description says which
    desc = tools["brain_search"]["description"]
    assert "never query syntax" not in desc and '"a quoted phrase"' in desc and "word*" in desc
    # brain_list: every sort the enum offers is in the description
    desc = tools["brain_list"]["description"]
    for s in tools["brain_list"]["input_schema"]["properties"]["sort"]["enum"]:
        assert {"updated": "last update", "created": "creation"}.get(s, s) in desc, s

    async def main():
        async with connect(fixture_db) as c:
            return (await c.call_tool("brain_restore", {}), await c.call_tool("brain_ingest", {"source_type": "doc"}),
                    await c.call_tool("brain_list", {"nope": 1}), await c.call_tool("brain_get", {"slug": "ana-lima", "offset": 10**6}),
                    ok(await c.call_tool("brain_get", {"slug": "ana-lima", "offset": 10})))

    restore, ingest, unknown, past, tail = anyio.run(main)
    assert restore.is_error and "brain_trash" in text_of(restore)
    assert ingest.is_error and "content" in text_of(ingest)
    assert unknown.is_error and "cursor" in text_of(unknown)
    # past the end: a bad-input error naming the page's length, not truncated with no next part
    assert past.is_error and "past the end" in text_of(past)
    # the last part: nothing more to read
    assert tail["next_offset"] is None and tail["truncated"] is False
    r = gbrain("--db", str(fixture_db), "call", "brain_get", json.dumps({"slug": "ana-lima", "offset": 10**6}))
    assert r.returncode == 2


def test_an_mcp_agent_can_delete_a_page_and_bring_it_back(fixture_db):
    """brain_conflicts and skills/maintain tell an agent to delete a page: brain_delete does it
    (the page goes to the trash; brain_restore brings it back); it is destructive and a retry
    changes nothing."""

    async def main():
        async with connect(fixture_db) as c:
            tools = {t.name: t for t in (await c.list_tools()).tools}
            ok(await c.call_tool("brain_put", {"slug": "notes/scratch", "content": "# Scratch\n\nA copy to merge.\n"}))
            first = ok(await c.call_tool("brain_delete", {"slug": "notes/scratch"}))
            again = ok(await c.call_tool("brain_delete", {"slug": "notes/scratch"}))
            trash = ok(await c.call_tool("brain_trash", {}))
            back = ok(await c.call_tool("brain_restore", {"slug": "notes/scratch"}))
            got = ok(await c.call_tool("brain_get", {"slug": "notes/scratch"}))
            missing = await c.call_tool("brain_delete", {"slug": "notes/never-was"})
        return tools, first, again, trash, back, got, missing

    tools, first, again, trash, back, got, missing = anyio.run(main)
    ann = tools["brain_delete"].annotations
    assert ann.destructive_hint is True and ann.idempotent_hint is True and ann.read_only_hint is False
    assert "brain_restore" in tools["brain_delete"].description and "gbrain" not in tools["brain_delete"].description
    assert first == {"slug": "notes/scratch", "changed": True}
    assert again["changed"] is False and "trash" in again["note"] and "brain_restore" in again["note"]
    assert any(t["slug"] == "notes/scratch" for t in trash["items"])
    assert back["slug"] == "notes/scratch" and got["content"] == "# Scratch\n\nA copy to merge.\n"
    assert missing.is_error and "no page" in text_of(missing)
    # --tools-json lists exactly the MCP tools
    from gbrain.mcp.server import tool_operations

    assert [t["name"] for t in j(gbrain("--tools-json"))] == [o.tool_name for o in tool_operations()]


@pytest.mark.engine_free
def test_ingest_stores_the_document_under_the_frontmatter_it_says(tmp_path, monkeypatch):
    """What brain_ingest stores: the document's bytes below a frontmatter block of title,
    type: source, source_type, source_ref and ingested (the day of the ingest, UTC); a document
    with its own frontmatter keeps it and gets only the missing keys, its own `date` naming the
    page. Ingesting it again on a later day finds the same page."""
    from gbrain import operations as ops
    from gbrain.core.brain import Brain
    from gbrain.operations import agents
    from gbrain.page.markdown import parse_page

    db = tmp_path / "i.db"
    plain = "# Call with Zoë\n\nShe wants an intro.\n"
    dated = "---\ntitle: Q1 review\ndate: 2026-04-13\nattendees: [ana]\n---\n# Q1 review\n\nSolid quarter.\n"
    monkeypatch.setattr(agents, "_today", lambda: "2026-05-01")
    with Brain.open(db, create=True) as b:
        p = ops.run("ingest", {"content": plain, "source_type": "meeting", "source_ref": "meet/1"}, brain=b)
        d = ops.run("ingest", {"content": dated, "source_type": "meeting", "source_ref": "mtg-0000"}, brain=b)
        monkeypatch.setattr(agents, "_today", lambda: "2026-05-02")
        again = ops.run("ingest", {"content": dated, "source_type": "meeting", "source_ref": "mtg-0000"}, brain=b)
        tp, td = b.get_text(p["slug"]), b.get_text(d["slug"])
    assert p["slug"] == "sources/2026-05-01-call-with-zoë"
    assert tp == "---\ntitle: Call with Zoë\ntype: source\nsource_type: meeting\nsource_ref: meet/1\ningested: 2026-05-01\n---\n" + plain
    assert d["slug"] == "sources/2026-04-13-q1-review"
    fm = parse_page(td, "x.md").frontmatter
    assert fm["date"] == "2026-04-13" and fm["ingested"] == "2026-05-01" and fm["attendees"] == ["ana"]
    assert td.startswith("---\ntitle: Q1 review\ndate: 2026-04-13\nattendees: [ana]\n") and td.endswith("---\n# Q1 review\n\nSolid quarter.\n")
    assert again["slug"] == d["slug"] and again["created"] is False and again["logged"] is False
    # the tool's description and the ingest skill say the same
    desc = ops.REGISTRY["ingest"].description
    for key in ("title", "type: source", "source_type", "source_ref", "ingested"):
        assert key in desc, key
    skill = (Path(__file__).resolve().parent.parent / "skills" / "ingest" / "SKILL.md").read_text(encoding="utf-8")
    assert "verbatim as a page" not in skill and "`ingested`" in skill


@pytest.mark.engine_free
def test_a_client_gone_during_brain_embed_ends_the_server_quietly(tmp_path):
    """The client disconnects (closes both pipes) while brain_embed runs: the server stops and
    exits with no traceback on stderr (was a BrokenPipeError traceback)."""
    import os
    import subprocess
    import sys
    import time

    from test_mcp_agent import ENV, _brain_on_endpoint
    from test_mcp import server_env
    from test_semantic import FakeOpenAI

    endpoint = FakeOpenAI()
    try:
        db = _brain_on_endpoint(tmp_path, endpoint, 100)
        endpoint.delay = 0.05
        proc = subprocess.Popen([sys.executable, "-m", "gbrain", "serve", "--db", str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env={**os.environ, **server_env(), **ENV})
        try:
            for m in (
                {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}},
                {"jsonrpc": "2.0", "method": "notifications/initialized"},
                {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "brain_embed", "arguments": {}, "_meta": {"progressToken": 7}}},
            ):
                proc.stdin.write(json.dumps(m).encode() + b"\n")
                proc.stdin.flush()
            assert json.loads(proc.stdout.readline())["id"] == 1
            # (generous: only a failing wait takes it whole; at load 21 the first 3 requests came 104 s after
            # initialize, and 60 s failed 4 of 8 runs at load ~20)
            end = time.monotonic() + 300
            while len(endpoint.requests) < 3 and time.monotonic() < end:
                time.sleep(0.02)
            assert len(endpoint.requests) >= 3
            proc.stdout.close()  # the client is gone: both pipes
            proc.stdin.close()
            proc.wait(timeout=30)
            err = proc.stderr.read()
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    finally:
        endpoint.close()
    assert b"Traceback" not in err and b"BrokenPipeError" not in err, err.decode(errors="replace")


def test_a_page_uri_that_is_no_slug_is_invalid_params(fixture_db):
    """``brain://pages/../etc/passwd`` is the caller's bad input: JSON-RPC -32602 (invalid
    params), not -32603 (internal error); a page that is not there stays a not-found error."""
    from mcp.shared.exceptions import MCPError

    async def main():
        errs = {}
        async with connect(fixture_db) as c:
            for uri in ("brain://pages/../etc/passwd", "brain://pages/people/nobody-here", "brain://index?cursor=garbage"):
                try:
                    await c.read_resource(uri)
                except MCPError as e:
                    errs[uri] = e
        return errs

    errs = anyio.run(main)
    bad = errs["brain://pages/../etc/passwd"]
    assert bad.error.code == -32602, (bad.error.code, str(bad))
    assert errs["brain://pages/people/nobody-here"].error.code != -32603
    assert errs["brain://index?cursor=garbage"].error.code == -32602
