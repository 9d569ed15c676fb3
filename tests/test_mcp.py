"""`gbrain serve` driven by the official MCP SDK's stdio client, as Claude Code would drive it.

Every test talks JSON-RPC over stdin/stdout to the real server (`python -m gbrain serve --db X`)
in a subprocess under LC_ALL=C: its own, or, for the tests that only read the fixture brain, one
they share (`shared_reads`: each `serve` loads the SDK, ~2 CPU-s; the brain is checked unwritten
after them).
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from gbrain import operations as ops
from gbrain.core.brain import Brain
from gbrain.errors import ERROR_SCHEMA

from conftest import FIXTURE_BRAIN, ROOT, gbrain

#: the tools the spec names; every one whose operation is registered must be served
SPEC_TOOLS = [
    "brain_search", "brain_query", "brain_get", "brain_put", "brain_ingest", "brain_link", "brain_timeline",
    "brain_timeline_add", "brain_tags", "brain_tag", "brain_list", "brain_backlinks", "brain_stats", "brain_raw",
]
#: spec tools this branch provides (brain_query comes with the search operations)
OWN_TOOLS = set(SPEC_TOOLS) - {"brain_query"} | {"brain_delete", "brain_untag", "brain_raw_put", "brain_trash", "brain_graph", "brain_path"}


def server_env(**extra: str) -> dict[str, str]:
    pp = os.pathsep.join([str(ROOT)] + ([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else []))
    return {"PYTHONPATH": pp, "LC_ALL": "C", "LANG": "C", **extra}


@contextlib.asynccontextmanager
async def connect(db: Path, errlog=None, extra: list[str] | None = None, env: dict | None = None):
    """A real MCP client session with `python -m gbrain serve --db DB` (stderr to ``errlog``)."""
    # the SDK imported here, not at module level: a test process that collects this module (and
    # those importing from it) but runs no MCP session does not load it (~2 CPU-s)
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=sys.executable, args=["-m", "gbrain", "serve", "--db", str(db), *(extra or [])], env={**server_env(), **(env or {})}, cwd=str(ROOT))
    transport = stdio_client(params, errlog=errlog or sys.stderr)
    async with Client(transport, read_timeout_seconds=120) as client:
        yield client


class SharedSession:
    """One client session with a real `gbrain serve` (:func:`connect`) for several tests, held by
    an event loop in a thread of its own: ``run(fn)`` awaits ``fn(client)`` there and returns
    its result (its exception raised here). Each `serve` process costs ~2 CPU-s (loading the SDK):
    the tests that only read the fixture brain share one (:func:`shared_reads`)."""

    def __init__(self, db) -> None:
        import asyncio
        import threading

        self.loop = asyncio.new_event_loop()
        self._started = threading.Event()
        self._stop: asyncio.Event | None = None
        self.client = None
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self.loop.run_until_complete, args=(self._hold(db),), daemon=True)
        self._thread.start()
        self._started.wait(300)
        if self.error is not None or self.client is None:
            raise RuntimeError("the shared serve session did not start") from self.error

    async def _hold(self, db) -> None:
        import asyncio

        self._stop = asyncio.Event()
        try:
            async with connect(db) as c:
                self.client = c
                self._started.set()
                await self._stop.wait()
        except BaseException as e:  # noqa: BLE001 - said by __init__ or close
            self.error = e
        finally:
            self._started.set()

    def run(self, fn):
        import asyncio

        return asyncio.run_coroutine_threadsafe(fn(self.client), self.loop).result(300)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(60)
        self.loop.close()
        if self.error is not None:
            raise self.error


def _written(db) -> tuple:
    """What a write to the brain at ``db`` changes: its history's rows and every page's hash."""
    with Brain.open(db) as b:
        return (b.conn.execute("SELECT COUNT(*), MAX(id) FROM history").fetchone(),
                b.conn.execute("SELECT slug, content_hash FROM pages ORDER BY slug").fetchall())


@pytest.fixture(scope="module")
def shared_reads(request, tmp_path_factory):
    """``(session, db)``: a :class:`SharedSession` with `gbrain serve` on a fixture brain of the
    module's own (fixtures/brain imported; ``--engine postgres``: a database), shared by the tests
    that only read it. They must write nothing: the brain is compared after the last of them
    with what it held before the first (a test that writes takes :func:`fixture_db` and a session
    of its own)."""
    import shutil

    from conftest import new_pg_brain
    from gbrain.sync.importer import import_tree

    d = tmp_path_factory.mktemp("reads")
    tree = d / "tree"
    shutil.copytree(FIXTURE_BRAIN, tree)
    with contextlib.ExitStack() as stack:
        if request.config.getoption("--engine") == "postgres":
            db = stack.enter_context(new_pg_brain(request.getfixturevalue("pg_server"), request.getfixturevalue("pg_brain_template")))
        else:
            db = d / "brain.db"
        with Brain.open(db) as b:
            import_tree(b, tree)
        before = _written(db)
        session = SharedSession(db)
        try:
            yield session, db
        finally:
            session.close()
        assert _written(db) == before, "a test sharing the read-only session wrote to the brain"


def text_of(result) -> str:
    assert len(result.content) == 1 and result.content[0].type == "text"
    return result.content[0].text


def ok(result):
    """The structured result of a successful call; its text block is the same JSON."""
    assert not result.is_error, text_of(result)
    data = json.loads(text_of(result))
    assert result.structured_content == data
    return data


def items(result) -> list:
    """The items of a list tool's answer (its first page)."""
    return ok(result)["items"]


def test_lists_tools_resources_prompts_from_the_registry(shared_reads):
    session, fixture_db = shared_reads

    async def main(c):
        return await c.list_tools(), await c.list_resources(), await c.list_resource_templates(), await c.list_prompts()

    tools, resources, templates, prompts = session.run(main)
    served = {t.name: t for t in tools.tools}
    registry = {o.tool_name: o for o in ops.REGISTRY.values() if o.mcp}
    assert set(served) == set(registry)
    assert set(served) == {t["name"] for t in ops.tools_json()}
    for name in SPEC_TOOLS:
        if any(o.tool_name == name for o in ops.REGISTRY.values()):
            assert name in served, name
    assert OWN_TOOLS <= set(served)
    for name, t in served.items():
        assert t.input_schema == registry[name].input_schema()
        assert t.description == registry[name].description
        assert t.annotations.read_only_hint == (not registry[name].mutating)
        assert t.output_schema == {"type": "object", "anyOf": [registry[name].output_schema(), ERROR_SCHEMA]}  # the result or a tool error
        assert t.title and t.annotations.title == t.title
    assert served["brain_put"].input_schema["required"] == ["slug"]
    assert set(served["brain_ingest"].input_schema["properties"]) == {"content", "source_type", "source_ref"}
    skills = {f"gbrain-{d.name}" for d in (ROOT / "skills").iterdir() if (d / "SKILL.md").exists()}
    assert sorted(str(r.uri) for r in resources.resources) == sorted(["brain://index"] + [f"brain://skills/{n}" for n in skills])
    assert sorted(t.uri_template for t in templates.resource_templates) == ["brain://index{?cursor}", "brain://pages/{+slug}{?offset,max_chars,hash}"]
    assert {p.name for p in prompts.prompts} == {"brain_briefing", "brain_ingest_meeting"} | skills
    assert all(a.description for p in prompts.prompts for a in p.arguments)


#: arguments for each tool; the test fails when a served tool has none here and cannot be called
#: without arguments, so a new operation must come with a sample call
SAMPLES: dict[str, list[dict]] = {
    "brain_get": [{"slug": "ana-lima"}],
    "brain_put": [{"slug": "people/zoe-new", "content": "---\ntitle: Zoë New\ntype: person\n---\n# Zoë New\n\nMet at the fair.\n"}, {"slug": "zoe-new", "frontmatter": {"status": "warm"}},
                  {"slug": "notes/scratch", "content": "# Scratch\n"}, {"slug": "notes/to-move", "content": "# To move\n\nfixd\n"},
                  {"slug": "notes/to-move", "replace": {"fixd": "fixed"}}],
    "brain_delete": [{"slug": "notes/scratch"}, {"slug": "notes/scratch"}],  # the second: in the trash already, no change
    "brain_move": [{"slug": "notes/to-move", "to": "notes/moved"}],
    "brain_list": [{"type": "person"}],
    "brain_stats": [{}],
    "brain_search": [{"query": "Series A"}],
    "brain_query": [{"question": "Who knows Jensen Huang?"}],
    "brain_tags": [{"slug": "people/ana-lima"}, {}],
    "brain_tag": [{"slug": "people/zoe-new", "tag": "fair"}],
    "brain_untag": [{"slug": "people/zoe-new", "tag": "fair"}],
    "brain_link": [{"from": "people/zoe-new", "to": "people/ana-lima", "context": "introduced by Ana"}],
    "brain_unlink": [{"from": "people/zoe-new", "to": "people/ana-lima"}],
    "brain_links": [{"slug": "people/ana-lima"}],
    "brain_backlinks": [{"slug": "companies/river-ai"}],
    "brain_timeline": [{"slug": "people/ana-lima", "limit": 2}, {"since": "2025-03", "until": "2025-03-04"}],
    "brain_timeline_add": [{"slug": "people/zoe-new", "date": "2025-04-01", "summary": "Coffee in São Paulo", "source": "meeting"}],
    "brain_raw_put": [{"slug": "people/zoe-new", "source": "crustdata", "data": {"title": "CEO", "ü": [1, 2]}}],
    "brain_raw": [{"slug": "people/zoe-new", "source": "crustdata"}],
    "brain_trash": [{}],
    "brain_graph": [{"slug": "ana-lima", "depth": 2}],
    "brain_path": [{"from": "people/zoe-new", "to": "companies/river-ai"}],
    "brain_restore": [{"slug": "nobody-in-the-trash"}],
    "brain_ingest": [{"content": "# Call with Zoë\n\nShe wants an intro.\n", "source_type": "meeting", "source_ref": "meet/42"}],
    "brain_history": [{"slug": "people/zoe-new"}],
    "brain_history_prune": [{"keep_last": 1}],  # a dry run: nothing goes
    "brain_diff": [{"slug": "people/zoe-new", "from_version": 1}],
    "brain_changes": [{"since": "1h", "origin": "mcp"}, {"by": "nobody@nowhere"}],
    "brain_revert": [{"slug": "people/zoe-new", "to": 7}],  # its newest version: no change
    "brain_undo": [{"since": "1h", "origin": "nobody-wrote-this"}],  # a dry run with nothing to undo
    "brain_reindex": [{}],
    "brain_lint_fix": [{"dry_run": True}],
}


def test_call_every_tool(fixture_db):
    async def main():
        out = {}
        async with connect(fixture_db) as c:
            names = [t.name for t in (await c.list_tools()).tools]
            order = list(SAMPLES)  # writes before the reads that check them
            for name in sorted(names, key=lambda n: order.index(n) if n in order else len(order)):
                out[name] = [await c.call_tool(name, args) for args in SAMPLES.get(name, [{}])]
        return names, out

    names, out = anyio.run(main)
    for name in names:
        for r in out[name]:
            if name in SAMPLES and name in OWN_TOOLS:
                ok(r)
            else:  # a tool from another branch: it answers, with a result or a clear tool error
                assert not text_of(r).startswith("internal error"), (name, text_of(r))
    assert ok(out["brain_get"][0])["slug"] == "people/ana-lima"
    assert ok(out["brain_put"][0])["created"] is True
    assert {x["slug"] for x in items(out["brain_list"][0])} == {"people/ana-lima", "people/bruno-okafor", "people/zoe-new"}
    assert items(out["brain_search"][0])[0]["slug"] == "deals/river-ai-series-a"
    assert items(out["brain_tags"][0]) == ["founder", "yc-alum"]
    assert [e["date"] for e in items(out["brain_timeline"][0])] == ["2025-03-04", "2024-11-20"]
    assert [(e["slug"], e["date"]) for e in items(out["brain_timeline"][1])] == [("deals/river-ai-series-a", "2025-03-04"), ("people/ana-lima", "2025-03-04")]
    assert ok(out["brain_raw"][0]) == {"crustdata": {"title": "CEO", "ü": [1, 2]}}
    ingest = json.loads(text_of(out["brain_ingest"][0]))
    assert ingest["slug"].startswith("sources/") and ingest["slug"].endswith("-call-with-zoë") and ingest["logged"] is True
    # every write landed in the database, as the CLI sees it
    with Brain.open(fixture_db) as b:
        text = b.get_text("people/zoe-new")
        assert "status: warm" in text and "- **2025-04-01** | meeting — Coffee in São Paulo" in text
        assert "Zoë New" in text and b.tags("people/zoe-new") == [] and "../people/ana-lima.md" not in text
        assert b.stats()["ingest_log"] >= 1
        assert b.get_text(ingest["slug"]).endswith("# Call with Zoë\n\nShe wants an intro.\n")


def test_resources_and_prompts(shared_reads):
    session, fixture_db = shared_reads

    async def main(c):
        from mcp.shared.exceptions import MCPError  # here, not at module level: collection skips the SDK (~2 CPU-s)
        page = await c.read_resource("brain://pages/people/ana-lima")
        index = await c.read_resource("brain://index")
        errors = []
        for uri in ("brain://pages/people/nobody", "brain://pages/../etc/passwd", "brain://nothing"):
            try:
                await c.read_resource(uri)
            except MCPError as e:
                errors.append(str(e))
        brief = await c.get_prompt("brain_briefing", {"since": "3650d", "focus": "River AI"})
        ingest = await c.get_prompt("brain_ingest_meeting", {"transcript": "Ana: hello", "source_ref": "meet/7"})
        bad = None
        try:
            await c.get_prompt("brain_briefing", {"since": "yesterday-ish"})
        except MCPError as e:
            bad = str(e)
        return page, index, errors, brief, ingest, bad

    page, index, errors, brief, ingest, bad = session.run(main)
    assert page.contents[0].text == (FIXTURE_BRAIN / "people" / "ana-lima.md").read_text(encoding="utf-8")
    assert page.contents[0].mime_type == "text/markdown"
    idx = json.loads(index.contents[0].text)
    assert idx["by_type"]["person"] == ["brain://pages/people/ana-lima", "brain://pages/people/bruno-okafor"] and idx["pages"] == sum(map(len, idx["by_type"].values()))
    assert "no page 'people/nobody'" in errors[0] and len(errors) == 3
    text = brief.messages[0].content.text
    # every page of the fixture brain was last written by its import: counted, not listed as news (a3eda65)
    assert "focused on: River AI" in text and "were last written by an import: no news" in text and "brain_get" in text
    assert "- people/ana-lima (" not in text
    text = ingest.messages[0].content.text
    assert "meet/7" in text and "Ana: hello" in text and "brain_ingest" in text and "brain_timeline_add" in text
    assert bad and "since must be" in bad


def test_errors_are_tool_errors_and_the_server_survives(shared_reads):
    calls = [
        ("brain_nope", {}, "Unknown tool: brain_nope"),
        ("brain_get", {}, "missing required parameter 'slug'"),
        ("brain_get", {"slug": 5}, "parameter 'slug' must be a string"),
        ("brain_get", {"slug": "ana-lima", "extra": 1}, "unknown parameter(s) extra"),
        ("brain_get", {"slug": "../../etc/passwd"}, "'..' segment"),
        ("brain_get", {"slug": "people/ana-lim"}, "did you mean: people/ana-lima"),
        ("brain_put", {"slug": "x", "content": "a", "compiled_truth": "b"}, "not both"),
        ("brain_put", {"slug": "x", "content": "nul\x00byte"}, "NUL"),
        ("brain_timeline_add", {"slug": "ana-lima", "date": "2025-02-30", "summary": "x"}, "not a real date"),
        ("brain_list", {"sort": "size"}, "must be one of"),
        ("brain_ingest", {"source_type": "meeting"}, "missing required parameter 'content'"),
        ("brain_ingest", {"file": "/etc/hostname"}, "unknown parameter(s) file; expected content, source_type, source_ref"),
        ("brain_raw", {"slug": "ana-lima", "data": {"a": 1}}, "unknown parameter(s) data; expected slug, source"),
        ("brain_raw_put", {"slug": "ana-lima", "data": {"a": 1}}, "missing required parameter 'source'"),
        ("brain_tag", {"slug": "ana-lima", "tag": "x", "remove": True}, "unknown parameter(s) remove"),
        ("brain_restore", {}, "brain_trash lists the trash"),
        ("brain_list", {"cursor": "bm9wZQ"}, "brain_list: parameter 'cursor'"),
    ]

    session, fixture_db = shared_reads

    async def main(c):
        res = [await c.call_tool(name, args) for name, args, _ in calls]
        return res, await c.call_tool("brain_stats", {})

    res, stats = session.run(main)
    for (name, args, msg), r in zip(calls, res):
        assert r.is_error, (name, args)
        assert msg in text_of(r), (name, text_of(r))
    assert ok(stats)["pages"] == 6  # the fixture brain; nothing was written


def test_tool_errors_carry_the_error_object_call_prints(shared_reads):
    """Trial users' agents got tool errors as text only, while `call` and `pipe` give an error
    object (message, exit code, kind, suggestions): a tool error now carries that same object
    (``gbrain.errors.error_fields``) as ``structuredContent``, keeps the text, and the object
    conforms to the tool's outputSchema (the TypeScript SDK 1.x client validates it on errors
    too: ``test_mcp_agent.py``'s TypeScript test)."""
    import jsonschema

    calls = [
        ("brain_get", {"slug": "people/ana-lim"}, "not_found"),
        ("brain_list", {"sort": "size"}, "bad_input"),
        ("brain_get", {"slugg": "people/ana-lima"}, "bad_input"),
        ("brain_ingest", {"file": "/etc/hostname"}, "bad_input"),
        ("brain_nope", {}, "bad_input"),
        ("brain_serch", {"query": "x"}, "bad_input"),
    ]

    session, fixture_db = shared_reads

    async def main(c):
        tools = {t.name: t for t in (await c.list_tools()).tools}
        return tools, [await c.call_tool(name, args) for name, args, _ in calls]

    tools, res = session.run(main)
    for (name, args, kind), r in zip(calls, res):
        got = r.structured_content
        assert r.is_error and got["kind"] == kind and text_of(r) == "error: " + got["error"], (name, r)
        if name in tools:
            assert jsonschema.validate(got, tools[name].output_schema) is None
            if "file" not in args:  # call takes `file` (the CLI's), a tool refuses it
                printed = json.loads(gbrain("--db", str(fixture_db), "call", name, json.dumps(args)).stdout)
                # an unknown parameter: the tool's error lists its schema, call's the command's options too
                # (brain_get: `output`, `force`), which call takes and the tool refuses (trial18)
                mine, theirs = got["error"].partition("; expected ")[0], printed["error"].partition("; expected ")[0]
                assert {**got, "error": mine} == {**printed, "error": theirs}, (got, printed)
    assert res[0].structured_content["suggestions"] == ["people/ana-lima"] and res[2].structured_content["suggestions"] == ["slug"]
    assert res[4].structured_content["error"].startswith("Unknown tool: brain_nope") and res[5].structured_content["suggestions"] == ["brain_search"]
    for name, t in tools.items():  # every tool's outputSchema admits the error object
        assert jsonschema.validate({"error": "x", "exit_code": 1, "kind": "not_found", "suggestions": []}, t.output_schema) is None, name


def test_big_page_unicode_separators_under_c_locale(fixture_db, tmp_path):
    line = "Ünïcödé ✓ 日本語 \u2028 next\u2029 para — emoji 🧠\n"
    big = "---\ntitle: Big\n---\n# Big\n\n" + line * (3_000_000 // len(line.encode("utf-8")) + 1) + "Ends with a quetzalcoatl.\n"
    assert len(big.encode("utf-8")) > 3_000_000
    errlog = open(tmp_path / "server.err", "w+", encoding="utf-8")

    async def main():
        async with connect(fixture_db, errlog=errlog) as c:
            put = await c.call_tool("brain_put", {"slug": "notes/big-ü", "content": big})
            got = await c.call_tool("brain_get", {"slug": "notes/big-ü"})
            parts = [ok(got)]
            while parts[-1]["next_offset"] is not None:  # a long page comes in parts
                parts.append(ok(await c.call_tool("brain_get", {"slug": "notes/big-ü", "offset": parts[-1]["next_offset"]})))
            whole = ok(await c.call_tool("brain_get", {"slug": "notes/big-ü", "max_chars": 0}))
            res = await c.read_resource("brain://pages/notes/big-%C3%BC?max_chars=0")
            first = await c.read_resource("brain://pages/notes/big-%C3%BC")  # a part, as brain_get's (trial 26)
            # a word that occurs once: FTS5 snippet() over the 50,000 lines with 日本語 takes seconds
            search = await c.call_tool("brain_search", {"query": "quetzalcoatl"})
            return put, parts, whole, res, first, search

    put, parts, whole, res, first, search = anyio.run(main)
    assert ok(put)["created"] is True
    assert parts[0]["truncated"] and parts[0]["total_chars"] == len(big) and len(parts) > 10
    assert all(len(p["content"]) <= 60_000 and p["content"].endswith("\n") for p in parts)
    assert "".join(p["content"] for p in parts) == big and whole["content"] == big and "truncated" not in whole
    assert parts[0]["sections"] == [{"heading": "# Big", "offset": len("---\ntitle: Big\n---\n")}]
    assert res.contents[0].text == big
    assert first.contents[0].text == parts[0]["content"] and f"offset={parts[0]['next_offset']}" in first.contents[1].text
    assert "notes/big-ü" in [h["slug"] for h in items(search)]
    r = gbrain("--db", str(fixture_db), "get", "notes/big-ü", env={"LC_ALL": "C"})
    assert r.returncode == 0 and r.stdout == big.encode("utf-8")
    errlog.seek(0)
    assert "gbrain MCP server running (stdio)" in errlog.read()  # the banner went to stderr, not the wire


def test_stdout_carries_only_json_rpc(fixture_db):
    """A raw client: every stdout line is one JSON-RPC message, UTF-8, with U+2028 intact."""
    msgs = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "brain_put", "arguments": {"slug": "notes/ß", "content": "---\nbroken: [\n---\nÜber\u2028zwei\n"}}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "brain_get", "arguments": {"slug": "notes/ß"}}},
        {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "brain_get", "arguments": {"slug": "nobody-at-all"}}},
    ]
    proc = subprocess.Popen([sys.executable, "-m", "gbrain", "serve", "--db", str(fixture_db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, **server_env()})
    replies = []
    try:
        for m in msgs:
            proc.stdin.write(json.dumps(m, ensure_ascii=False).encode("utf-8") + b"\n")
            proc.stdin.flush()
            if "id" in m:
                replies.append(proc.stdout.readline())
    finally:
        proc.stdin.close()
        rest = proc.stdout.read()
        err = proc.stderr.read()
        proc.wait(timeout=30)
    assert rest == b""
    parsed = [json.loads(r.decode("utf-8")) for r in replies]
    assert [p["id"] for p in parsed] == [1, 2, 3, 4] and all(p["jsonrpc"] == "2.0" for p in parsed)
    put = json.loads(parsed[1]["result"]["content"][0]["text"])
    assert put["warnings"] and "frontmatter" in put["warnings"][0]
    assert json.loads(parsed[2]["result"]["content"][0]["text"])["content"] == "---\nbroken: [\n---\nÜber\u2028zwei\n"
    assert parsed[3]["result"]["isError"] is True
    assert "Über".encode("utf-8") in replies[2] or b"\\u00dc" in replies[2]
    assert b"gbrain MCP server running" in err


def test_25_concurrent_requests(fixture_db):
    async def main():
        results: dict[int, object] = {}
        async with connect(fixture_db) as c:
            async def one(i: int) -> None:
                if i % 3 == 0:
                    results[i] = await c.call_tool("brain_put", {"slug": f"notes/n{i}", "content": f"# Note {i}\n\nnumber {i} ü\n"})
                elif i % 3 == 1:
                    results[i] = await c.call_tool("brain_search", {"query": "River"})
                else:
                    results[i] = await c.call_tool("brain_get", {"slug": "ana-lima"})

            async with anyio.create_task_group() as tg:
                for i in range(25):
                    tg.start_soon(one, i)
            listing = await c.call_tool("brain_list", {"limit": 100})
        return results, listing

    results, listing = anyio.run(main)
    assert len(results) == 25
    for i, r in results.items():
        data = ok(r)
        if i % 3 == 0:
            assert data["created"] is True
        elif i % 3 == 1:
            assert data["items"] and data["items"][0]["slug"].startswith(("companies/river-ai", "deals/river-ai"))
        else:
            assert data["slug"] == "people/ana-lima"
    slugs = {x["slug"] for x in items(listing)}
    assert {f"notes/n{i}" for i in range(0, 25, 3)} <= slugs


def test_sees_writes_of_other_processes(fixture_db):
    """The server keeps its connection open while the CLI writes; the next request sees the write,
    and the CLI sees the server's writes."""

    async def main():
        async with connect(fixture_db) as c:
            before = await c.call_tool("brain_get", {"slug": "people/carla-cli"})
            r = await anyio.to_thread.run_sync(lambda: gbrain("--db", str(fixture_db), "put", "people/carla-cli", input="# Carla\n\nWritten by the CLI.\n"))
            assert r.returncode == 0, r.stderr
            after = await c.call_tool("brain_get", {"slug": "people/carla-cli"})
            r = await anyio.to_thread.run_sync(lambda: gbrain("--db", str(fixture_db), "timeline-add", "carla-cli", "--date", "2025-05-05", "--summary", "CLI entry"))
            assert r.returncode == 0, r.stderr
            tl = await c.call_tool("brain_timeline", {"slug": "carla-cli"})
            resource = await c.read_resource("brain://pages/people/carla-cli")
            await c.call_tool("brain_tag", {"slug": "carla-cli", "tag": "from-mcp"})
            r = await anyio.to_thread.run_sync(lambda: gbrain("--db", str(fixture_db), "tags", "carla-cli"))
            return before, after, tl, resource, r

    before, after, tl, resource, r = anyio.run(main)
    assert before.is_error and "no page" in text_of(before)
    assert "Written by the CLI." in ok(after)["content"]
    assert [e["summary"] for e in items(tl)] == ["CLI entry"]
    assert "CLI entry" in resource.contents[0].text
    assert r.returncode == 0 and r.stdout.decode().split() == ["from-mcp"]


@pytest.mark.engine_free
def test_serve_imports_no_heavy_modules():
    """Spawn-to-ready stays short: the server module does not import openai or numpy."""
    code = "import sys, gbrain.cli, gbrain.mcp.server; print(sorted(m for m in ('openai', 'numpy') if m in sys.modules))"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={**os.environ, **server_env()}, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"


@pytest.mark.engine_free
@pytest.mark.parametrize("fast_init", ["1", "0"])
def test_serve_refuses_a_file_or_folder_that_is_not_a_brain_before_it_starts(tmp_path, fast_init):
    """`serve --db` naming a text file, a folder or an empty file: one line on stderr and exit 2
    (bad input) at once (it used to start, list its tools and fail every call). The file is left
    as it was."""
    notes = tmp_path / "notes.md"
    notes.write_bytes(b"# my notes, not a brain\n")
    for db in (notes, tmp_path):
        r = subprocess.run([sys.executable, "-m", "gbrain", "serve", "--db", str(db)], input=b"", capture_output=True, env={**os.environ, **server_env(), "GBRAIN_FAST_INIT": fast_init}, timeout=60)
        assert r.returncode == 2 and r.stdout == b"", r.stderr
        assert r.stderr.decode().strip().splitlines() == [r.stderr.decode().strip()] and "is not a usable brain database" in r.stderr.decode()
    assert notes.read_bytes() == b"# my notes, not a brain\n"
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    r = subprocess.run([sys.executable, "-m", "gbrain", "serve", "--db", str(empty)], input=b"", capture_output=True, env={**os.environ, **server_env(), "GBRAIN_FAST_INIT": fast_init}, timeout=60)
    assert r.returncode == 2 and r.stdout == b"" and b"empty file (0 bytes)" in r.stderr and b"gbrain init" in r.stderr, r.stderr
    assert empty.read_bytes() == b""


@pytest.mark.engine_free
def test_serve_on_an_empty_file_is_refused_at_start_or_serves(tmp_path):
    """README: a zero-byte `--db` is refused rather than silently becoming a new brain, and a `--db` that is
    no brain is refused by `serve` before the server starts. Either serve refuses it at once (exit 2), or
    the server it starts answers calls; never a server whose every call fails."""
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    r = subprocess.run([sys.executable, "-m", "gbrain", "serve", "--db", str(empty)], input=b"", capture_output=True, env={**os.environ, **server_env()}, timeout=60)
    if r.returncode != 0:
        assert r.returncode == 2 and b"empty file" in r.stderr and r.stdout == b"", r.stderr
        return

    async def main():
        async with connect(empty) as c:
            return await c.call_tool("brain_stats", {})

    result = anyio.run(main)
    assert not result.is_error, text_of(result)


@pytest.mark.engine_free
def test_serve_refuses_a_missing_db_unless_asked_to_create(tmp_path):
    db = tmp_path / "typo.db"
    r = subprocess.run([sys.executable, "-m", "gbrain", "serve", "--db", str(db)], input=b"", capture_output=True, env={**os.environ, **server_env()}, timeout=60)
    assert r.returncode == 2 and b"no brain at" in r.stderr and b"--create" in r.stderr and r.stdout == b""
    assert not db.exists()

    async def main():
        async with connect(db, extra=["--create"]) as c:
            return await c.call_tool("brain_stats", {})

    assert ok(anyio.run(main))["pages"] == 0 and db.exists()


@pytest.mark.engine_free
def test_missing_folder_is_a_tool_error_not_a_crash(tmp_path):
    db = tmp_path / "no-such-folder" / "brain.db"

    async def main():
        async with connect(db, extra=["--create"]) as c:
            return await c.call_tool("brain_stats", {}), await c.call_tool("brain_get", {"slug": "x"})

    a, b = anyio.run(main)
    assert a.is_error and "folder for the database does not exist" in text_of(a)
    assert b.is_error


def test_tool_results_equal_in_process_results(shared_reads):
    """An MCP tool's text is the JSON of its structured result: the operation's own result
    (lists as {"items", "next_cursor"})."""
    reads = [
        ("get", {"slug": "ana-lima"}),
        ("search", {"query": "Series A", "limit": 3}),
        ("list", {"type": "person", "sort": "title"}),
        ("tags", {}),
        ("links", {"slug": "people/ana-lima"}),
        ("backlinks", {"slug": "companies/river-ai"}),
        ("timeline", {"slug": "ana-lima"}),
    ]

    session, fixture_db = shared_reads

    async def main(c):
        return [await c.call_tool(ops.find(name).tool_name, args) for name, args in reads]

    served = session.run(main)
    with Brain.open(fixture_db) as b:
        for (name, args), r in zip(reads, served):
            assert text_of(r) == ops.dumps(ops.run_tool(name, args, brain=b)), name
            res = ops.run(name, args, ops.Context(surface="mcp"), brain=b)  # (an agent's rows: tags' spellings only where several)
            got = ok(r)
            got.pop("next_cursor", None)
            assert got == (res if isinstance(res, dict) else {"items": res}), name


def test_server_and_cli_write_at_the_same_time(fixture_db):
    """25 concurrent MCP writes while CLI processes write the same DB: WAL plus the busy timeout
    let every write through, and each side then sees all of them. The server runs with another
    TMPDIR than the CLI (server_env): its open lock must still be seen, or a CLI's open took the
    live log for a dead process's and, meeting the server's checkpoint (the 25 writes pass the
    1,000-page autocheckpoint), renamed it aside: the server then never saw cli-1 and cli-2
    (tests/test_faults.py: test_an_open_beside_a_process_with_another_temp_folder_leaves_its_log_alone)."""

    async def main():
        async with connect(fixture_db) as c:
            cli_results = []

            async def cli(i: int) -> None:
                r = await anyio.to_thread.run_sync(lambda: gbrain("--db", str(fixture_db), "put", f"notes/cli-{i}", input=f"# CLI {i}\n"))
                cli_results.append(r)

            async def mcp(i: int) -> None:
                r = await c.call_tool("brain_timeline_add", {"slug": "ana-lima", "date": f"2026-01-{i + 1:02d}", "summary": f"MCP entry {i}"})
                assert not r.is_error, text_of(r)

            async with anyio.create_task_group() as tg:
                for i in range(3):
                    tg.start_soon(cli, i)
                for i in range(25):
                    tg.start_soon(mcp, i)
            listing = items(await c.call_tool("brain_list", {"limit": 100}))
            return cli_results, listing

    cli_results, listing = anyio.run(main)
    assert all(r.returncode == 0 for r in cli_results), [r.stderr for r in cli_results]
    assert {f"notes/cli-{i}" for i in range(3)} <= {x["slug"] for x in listing}
    if isinstance(fixture_db, Path):
        assert not [n for n in os.listdir(fixture_db.parent) if ".misfit-" in n]  # no live log set aside
    with Brain.open(fixture_db) as b:
        summaries = {e["summary"] for e in b.timeline("ana-lima")}
    assert {f"MCP entry {i}" for i in range(25)} <= summaries


def test_a_long_brain_embed_does_not_block_other_tools(fixture_db):
    """brain_embed runs on its own connection: reads and queries answer while it works. The
    embedding server (OpenAI-compatible, local) holds the embed's requests until those calls
    have answered, so the embed is under way all along and cannot end before them, however
    loaded the machine (no run made long by its volume); calls queued behind the embed would
    never answer, and the client's read timeout would fail the test."""
    import threading

    from test_semantic import FakeOpenAI

    question = "who leads River AI?"
    server = FakeOpenAI()
    server.hold, server.free = threading.Event(), {question}  # the question's embedding is answered at once
    with Brain.open(fixture_db) as b:
        for k, v in {"embedding_model": "text-embedding-3-small", "embedding_base_url": server.url}.items():
            b.set_config(k, v)

    async def main():
        order: list[str] = []
        box = {}
        async with connect(fixture_db) as c:
            slug = items(await c.call_tool("brain_list", {"limit": 1}))[0]["slug"]

            async def do_embed():
                box["embed"] = await c.call_tool("brain_embed", {}, read_timeout_seconds=900)
                order.append("embed")

            async def do_reads():
                try:
                    # the embed is under way: its first request to the server waits
                    assert await anyio.to_thread.run_sync(server.holding.wait, 600)
                    for _ in range(3):
                        ok(await c.call_tool("brain_get", {"slug": slug}))
                        ok(await c.call_tool("brain_search", {"query": "meeting"}))
                    box["during"] = ok(await c.call_tool("brain_query", {"question": question}))
                    order.append("reads")
                finally:
                    server.hold.set()  # the embed goes on

            async with anyio.create_task_group() as tg:
                tg.start_soon(do_embed)
                tg.start_soon(do_reads)
            box["after"] = ok(await c.call_tool("brain_query", {"question": question}))
        return order, box

    try:
        order, box = anyio.run(main)
    finally:
        server.hold.set()
        server.close()
    assert order == ["reads", "embed"]
    emb_result = ok(box["embed"])
    assert emb_result["model"] == "text-embedding-3-small" and emb_result["embedded"] == emb_result["chunks"] > 0
    assert box["during"]["items"]
    q = box["after"]
    assert q["mode"] == "hybrid" and q["model"] == "text-embedding-3-small"


def test_serve_read_only_offers_only_read_tools_and_writes_nothing(fixture_db):
    """`serve --read-only`: the tools of non-mutating operations only, every one of them answers,
    and the brain (pages, history, change log) is the same afterwards."""
    def state():
        with Brain.open(fixture_db) as b:
            return [tuple(r) for r in b.conn.execute("SELECT slug, content_hash FROM pages ORDER BY slug")], b.conn.execute("SELECT count(*) FROM history").fetchone()[0]

    before = state()

    async def main():
        async with connect(fixture_db, extra=["--read-only"]) as c:
            names = [t.name for t in (await c.list_tools()).tools]
            out = {n: [await c.call_tool(n, a) for a in SAMPLES.get(n, [{}])] for n in names}
            index = await c.read_resource("brain://index")
            return names, out, index

    names, out, index = anyio.run(main)
    expected = {o.tool_name for o in ops.REGISTRY.values() if o.mcp and not o.mutating}
    assert set(names) == expected and "brain_put" not in names and "brain_get" in names
    for n, results in out.items():
        for r in results:
            assert not text_of(r).startswith("internal error"), (n, text_of(r))
            assert "readonly" not in text_of(r) and "read-only" not in text_of(r), (n, text_of(r))
    assert ok(out["brain_get"][0])["slug"] == "people/ana-lima"
    assert "people/ana-lima" in index.contents[0].text
    assert state() == before


def test_read_only_brain_refuses_a_write_that_reaches_it(fixture_db):
    """The database itself refuses writes under `serve --read-only` (defence in depth behind the
    tool list): a write through the same Brain fails as a read-only error and changes nothing."""
    from gbrain.errors import GBrainError

    with Brain.open(fixture_db) as b:
        before = b.get_text("people/ana-lima")
        b.refuse_writes()
        try:
            ops.run("tag", {"slug": "people/ana-lima", "tag": "x"}, brain=b)
        except GBrainError as e:
            assert "read-only" in str(e)
        else:
            raise AssertionError("a write went through a read-only brain")
    with Brain.open(fixture_db) as b:
        assert b.get_text("people/ana-lima") == before


#: first lines a host may send; each is answered byte for byte as the SDK answers it
FIRST_LINES = [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "h", "version": "1"}}},
    {"jsonrpc": "2.0", "id": "a-7", "method": "initialize", "params": {"protocolVersion": "2024-11-05", "capabilities": {"roots": {"listChanged": True}, "sampling": {}}, "clientInfo": {"name": "ü host", "version": "0.1", "title": "Ü"}}},
    {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "1999-01-01", "capabilities": {}, "clientInfo": {"name": "old", "version": "9"}}},
    {"jsonrpc": "2.0", "id": 3, "method": "initialize", "params": {"protocolVersion": "2026-07-28", "capabilities": {"elicitation": {}}, "clientInfo": {"name": "new", "version": "2"}}},
    {"jsonrpc": "2.0", "id": 4, "method": "initialize", "params": {"protocolVersion": 5, "capabilities": {}, "clientInfo": {"name": "bad", "version": "1"}}},
    {"jsonrpc": "2.0", "id": 5, "method": "ping"},
    "not json at all",
    '{"jsonrpc": "2.0", "id": 8,\r"method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "cr", "version": "1"}}}',
]


def _transcript_input(first: object, middle: tuple = ()) -> bytes:
    """``first`` (a message, or a line as it is), then `initialized`, the messages (or lines)
    ``middle`` and a ping (id 99), as stdin bytes."""
    line = first if isinstance(first, str) else json.dumps(first, ensure_ascii=False)
    rest = [{"jsonrpc": "2.0", "method": "notifications/initialized"}, *middle, {"jsonrpc": "2.0", "id": 99, "method": "ping"}]
    return (line + "\n" + "".join((m if isinstance(m, str) else json.dumps(m, ensure_ascii=False)) + "\n" for m in rest)).encode()


def _up_to_ping(lines: list[bytes]) -> list[bytes]:
    """``lines`` up to the ping's answer (id 99); fails when there is none."""
    for i, got in enumerate(lines):
        if json.loads(got).get("id") == 99:
            return lines[: i + 1]
    raise AssertionError(lines)


def _serve_transcript(db: Path, first: object, fast: str, middle: tuple = ()) -> list[bytes]:
    """Stdout lines of a real `gbrain serve` process given ``first`` (then `initialized` and a
    ping, id 99) up to the ping's answer. The process is killed then (what it does after is not
    what is compared): one that answered early is spared loading the SDK (~2 of its ~2.3 CPU-s)."""
    p = subprocess.Popen([sys.executable, "-m", "gbrain", "serve", "--db", str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env={**os.environ, **server_env(GBRAIN_FAST_INIT=fast)})
    try:
        p.stdin.write(_transcript_input(first, middle))
        p.stdin.flush()
        out = []
        while True:
            got = p.stdout.readline()
            assert got, out
            out.append(got)
            if json.loads(got).get("id") == 99:
                break
    finally:
        p.kill()
        p.stdin.close()
        p.wait(timeout=60)
    return out


def _sdk_transcript(db: Path, first: object) -> list[bytes]:
    """What :func:`_serve_transcript` reads from `gbrain serve` with ``GBRAIN_FAST_INIT=0`` for
    the same input, run in this process (:func:`_sdk_run`), in the order written."""
    return _up_to_ping(_sdk_run(db, first, (), [99]))


@pytest.fixture
def own_brain(tmp_path) -> Path:
    """A new SQLite brain of the test's own (the handshake tests' bytes do not depend on the engine)."""
    db = tmp_path / "own.db"
    Brain.open(db).close()
    return db


@pytest.mark.engine_free
def test_initialize_answered_before_the_sdk_loads_is_the_sdks_own_answer(own_brain):
    """`serve` answers `initialize` before importing the SDK (gbrain/mcp/handshake.py): for
    every kind of first line, what the host reads from a real `gbrain serve` is byte for byte
    what the SDK alone writes (GBRAIN_FAST_INIT=0; that side runs in this process, its server
    and transport as `serve` runs them: test_the_sdk_side_run_in_process_is_a_real_process
    checks it against a real process), and the session goes on (a ping after it is answered)."""
    for first in FIRST_LINES:
        fast, sdk = _serve_transcript(own_brain, first, "1"), _sdk_transcript(own_brain, first)
        assert fast == sdk, first
        assert json.loads(fast[-1]) == {"jsonrpc": "2.0", "id": 99, "result": {}}


@pytest.mark.engine_free
def test_initialize_is_answered_before_the_server_starts(own_brain):
    """The answer is written before the SDK is loaded: it reaches the host ahead of the
    `server running` line `serve` logs once the SDK is up (stdout and stderr in one pipe)."""
    init = json.dumps(FIRST_LINES[0]) + "\n"

    def merged(fast: str) -> bytes:
        r = subprocess.run([sys.executable, "-m", "gbrain", "serve", "--db", str(own_brain)], input=init.encode(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env={**os.environ, **server_env(GBRAIN_FAST_INIT=fast)}, timeout=60)
        return r.stdout

    fast, sdk = merged("1"), merged("0")
    assert fast.startswith(b'{"jsonrpc":"2.0","id":1,"result":') and b"gbrain MCP server running" in fast
    assert sdk.startswith(b"gbrain MCP server running")


#: what a host sends after the handshake while the SDK may still be loading, and the ids of the
#: answers: each is answered byte for byte as the SDK answers it (the early ones before it loads:
#: gbrain/mcp/handshake.py)
EARLY_MIDDLES = [
    (({"jsonrpc": "2.0", "id": 2, "method": "tools/list"},), [2]),
    (({"jsonrpc": "2.0", "id": "t-ü", "method": "tools/list", "params": {}}, {"jsonrpc": "2.0", "id": 7, "method": "ping"},
      {"jsonrpc": "2.0", "id": 8, "method": "tools/list"}), ["t-ü", 7, 8]),
    # not answered early: the SDK answers these and everything after them
    (({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"cursor": "x"}}, {"jsonrpc": "2.0", "id": 3, "method": "tools/list"}), [2, 3]),
    (({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}},
      {"jsonrpc": "2.0", "id": 3, "method": "tools/list"}), [2, 3]),
    (({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "brain_stats", "arguments": {}}}), [2, 3]),
    (('{"jsonrpc": "2.0", "id": 2, "id": 3, "method": "tools/list"}',), [3]),
    (({"jsonrpc": "2.0", "id": 2.5, "method": "tools/list"}, {"jsonrpc": "2.0", "id": 3, "method": "ping"}), [None, 3]),
    (({"jsonrpc": "2.0", "id": 2, "method": "logging/setLevel", "params": {"level": "info"}}, {"jsonrpc": "2.0", "id": 3, "method": "tools/list"}), [2, 3]),
    # the other lists are answered early too (handshake.list_result), a cursor or _meta is the SDK's
    (({"jsonrpc": "2.0", "id": 2, "method": "prompts/list"}, {"jsonrpc": "2.0", "id": 3, "method": "resources/list", "params": {}},
      {"jsonrpc": "2.0", "id": 4, "method": "resources/templates/list"}, {"jsonrpc": "2.0", "id": 5, "method": "tools/list"}), [2, 3, 4, 5]),
    (({"jsonrpc": "2.0", "id": 2, "method": "resources/list", "params": {"cursor": "x"}}, {"jsonrpc": "2.0", "id": 3, "method": "prompts/list"}), [2, 3]),
    (({"jsonrpc": "2.0", "id": 2, "method": "prompts/list", "params": {"_meta": {"progressToken": 1}}}, {"jsonrpc": "2.0", "id": 3, "method": "resources/templates/list"}), [2, 3]),
]


def _serve_answers(db: Path, first: object, fast: str, middle: tuple, ids: list, args: tuple = ()) -> list[bytes]:
    """Stdout lines of a real `gbrain serve` process given ``first``, `initialized`, ``middle``
    and a ping (id 99), read until the answers to ``ids`` and the ping came (stdin open until
    then: its end would cancel the requests under way); the initialize answer first, the rest
    sorted (the SDK answers requests concurrently). The process is killed then, as in
    :func:`_serve_transcript`."""
    p = subprocess.Popen([sys.executable, "-m", "gbrain", "serve", "--db", str(db), *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env={**os.environ, **server_env(GBRAIN_FAST_INIT=fast)})
    want = [1, *ids, 99]
    try:
        p.stdin.write(_transcript_input(first, middle))
        p.stdin.flush()
        out = []
        while want:
            got = p.stdout.readline()
            assert got, out
            out.append(got)
            want.remove(json.loads(got).get("id"))
    finally:
        p.kill()
        p.stdin.close()
        p.wait(timeout=60)
    return out[:1] + sorted(out[1:])


def _sdk_run(db: Path, first: object, middle: tuple, want: list, read_only: bool = False) -> list[bytes]:
    """The stdout lines `gbrain serve` with ``GBRAIN_FAST_INIT=0`` writes given ``first``,
    `initialized`, ``middle`` and a ping (id 99), run in this process (a process of its own costs
    ~2 CPU-s, loading the SDK): the server `serve` builds, under the SDK's own stdio transport
    (``_run_stdio`` with no first line, as `serve` runs it then), reading a pipe in place of fd 0
    and writing a byte stream in place of fd 1 (the SDK serves a stream not backed by a descriptor
    in place). Stdin stays open until the answers of ids ``want`` came (its end would cancel the
    requests under way), 60 s at most. ``read_only``: as `serve --read-only`.
    :func:`test_the_sdk_side_run_in_process_is_a_real_process` checks this against a real process."""
    import threading
    from types import SimpleNamespace

    from gbrain.mcp import server as mcp_server

    r, w = os.pipe()
    os.write(w, _transcript_input(first, middle))  # a few hundred bytes: the pipe holds them
    open_w = [w]
    lock = threading.Lock()

    def end_stdin() -> None:
        with lock:
            if open_w:
                os.close(open_w.pop())

    class Out(io.BytesIO):
        def write(self, b) -> int:
            n = super().write(b)
            left = list(want)
            for x in self.getvalue().splitlines(keepends=True):
                if x.endswith(b"\n") and json.loads(x).get("id") in left:
                    left.remove(json.loads(x).get("id"))
            if not left:
                end_stdin()
            return n

    out = Out()
    timer = threading.Timer(60, end_stdin)
    timer.start()
    server, host = mcp_server.build_server(str(db), read_only=read_only)
    try:
        with open(r, "rb") as stdin, pytest.MonkeyPatch.context() as mp:
            mp.setattr(sys, "stdin", SimpleNamespace(buffer=stdin))
            mp.setattr(sys, "stdout", SimpleNamespace(buffer=out))
            anyio.run(mcp_server._run_stdio, server)
    finally:
        timer.cancel()
        host.shutdown()
        end_stdin()
    return out.getvalue().splitlines(keepends=True)


def _sdk_answers(db: Path, first: object, middle: tuple, ids: list, read_only: bool = False) -> list[bytes]:
    """What :func:`_serve_answers` reads from `gbrain serve` (``--read-only`` with ``read_only``)
    with ``GBRAIN_FAST_INIT=0`` for the same input, run in this process (:func:`_sdk_run`): the
    initialize answer first, the rest sorted."""
    lines = _sdk_run(db, first, middle, [1, *ids, 99], read_only)
    return lines[:1] + sorted(lines[1:])


@pytest.mark.engine_free
def test_the_sdk_side_run_in_process_is_a_real_process(own_brain):
    """The handshake tests run the SDK's side (``GBRAIN_FAST_INIT=0``) in this process
    (:func:`_sdk_run`): it writes what a real `gbrain serve` process with ``GBRAIN_FAST_INIT=0``
    writes (the initialize answer, the lists, the ping's), byte for byte."""
    lists = next(m for m in EARLY_MIDDLES if len(m[1]) == 4)
    assert _serve_answers(own_brain, FIRST_LINES[0], "0", *lists) == _sdk_answers(own_brain, FIRST_LINES[0], *lists)


@pytest.mark.engine_free
def test_tools_list_answered_before_the_sdk_loads_is_the_sdks_own_answer(own_brain):
    """`serve` answers a plain `tools/list` (and `ping`) after the handshake before the SDK is
    loaded (issue 14 item 5: a host waits for the tool list): what a real `gbrain serve` writes is
    byte for byte what the SDK alone writes (GBRAIN_FAST_INIT=0), for every protocol version the
    handshake negotiates, and for what follows messages it does not answer early. The SDK's side
    runs in this process (:func:`_sdk_answers`; test_the_sdk_side_run_in_process_is_a_real_process)."""
    from gbrain.mcp.handshake import HANDSHAKE_VERSIONS

    init = FIRST_LINES[0]
    lists = next(m for m in EARLY_MIDDLES if len(m[1]) == 4)
    assert init["params"]["protocolVersion"] in HANDSHAKE_VERSIONS  # init's lists come in the loop
    for version in HANDSHAKE_VERSIONS:
        first = {**init, "params": {**init["params"], "protocolVersion": version}}
        fast = _serve_answers(own_brain, first, "1", *EARLY_MIDDLES[0])
        assert fast == _sdk_answers(own_brain, first, *EARLY_MIDDLES[0]), version
        assert [t["name"] for t in json.loads(fast[1])["result"]["tools"]] == [o.tool_name for o in ops.REGISTRY.values() if o.mcp]
        assert _serve_answers(own_brain, first, "1", *lists) == _sdk_answers(own_brain, first, *lists), version
    for middle, ids in EARLY_MIDDLES[1:]:
        if (middle, ids) is not lists:  # compared above
            assert _serve_answers(own_brain, init, "1", middle, ids) == _sdk_answers(own_brain, init, middle, ids), middle


@pytest.mark.engine_free
def test_tools_list_answered_early_on_a_read_only_server_lists_the_read_only_tools(own_brain):
    """`serve --read-only`, and a brain file this process cannot write, list the read-only tools
    early as the SDK lists them."""
    fast = _serve_answers(own_brain, FIRST_LINES[0], "1", *EARLY_MIDDLES[0], args=("--read-only",))
    assert fast == _sdk_answers(own_brain, FIRST_LINES[0], *EARLY_MIDDLES[0], read_only=True)
    names = [t["name"] for t in json.loads(fast[1])["result"]["tools"]]
    assert "brain_get" in names and "brain_put" not in names
    os.chmod(own_brain, 0o444)
    try:
        if os.access(own_brain, os.W_OK):
            return  # root writes a read-only file
        assert _serve_answers(own_brain, FIRST_LINES[0], "1", *EARLY_MIDDLES[0]) == fast
    finally:
        os.chmod(own_brain, 0o644)


@pytest.mark.engine_free
def test_official_client_sees_the_early_tool_list_as_the_sdks_and_calls_at_once(own_brain):
    """The Python SDK's client over stdio: the tools it lists from the early answer are the
    ones it lists with the SDK answering (GBRAIN_FAST_INIT=0), and a call right after works."""
    async def main(fast: str):
        async with connect(own_brain, env={"GBRAIN_FAST_INIT": fast}) as c:
            tools = await c.list_tools()
            put = await c.call_tool("brain_put", {"slug": "notes/first", "content": "# First\n"})
            get = await c.call_tool("brain_get", {"slug": "notes/first"})
            return [t.model_dump(by_alias=True) for t in tools.tools], ok(put), ok(get)

    fast, sdk = anyio.run(main, "1"), anyio.run(main, "0")
    assert fast[0] == sdk[0] and [t["name"] for t in fast[0]] == [o.tool_name for o in ops.REGISTRY.values() if o.mcp]
    assert fast[1]["slug"] == "notes/first" and fast[2]["content"] == "# First\n"


@pytest.mark.engine_free
def test_tools_list_is_answered_before_the_server_starts(own_brain):
    """The tool list is written before the SDK is loaded: it reaches the host ahead of the
    `server running` line `serve` logs once the SDK is up (stdout and stderr in one pipe); stdin's
    end right after it ends the server cleanly, with nothing more on stdout."""
    msgs = [FIRST_LINES[0], {"jsonrpc": "2.0", "method": "notifications/initialized"}, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}]
    data = "".join(json.dumps(m) + "\n" for m in msgs).encode()
    r = subprocess.run([sys.executable, "-m", "gbrain", "serve", "--db", str(own_brain)], input=data, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env={**os.environ, **server_env()}, timeout=60)
    assert r.returncode == 0
    first, second, rest = r.stdout.split(b"\n", 2)
    assert json.loads(first)["id"] == 1 and json.loads(second)["id"] == 2 and rest.startswith(b"gbrain MCP server running")
    r = subprocess.run([sys.executable, "-m", "gbrain", "serve", "--db", str(own_brain)], input=data, capture_output=True, env={**os.environ, **server_env()}, timeout=60)
    assert r.returncode == 0 and [json.loads(x)["id"] for x in r.stdout.splitlines()] == [1, 2]


@pytest.mark.engine_free
def test_prompt_and_resource_lists_are_answered_before_the_server_starts(own_brain):
    """`prompts/list`, `resources/list` and `resources/templates/list` after the handshake are
    answered before the SDK is loaded too (ahead of the `server running` line), each as it is
    listed (the skills' prompts and resources among them)."""
    msgs = [FIRST_LINES[0], {"jsonrpc": "2.0", "method": "notifications/initialized"}, {"jsonrpc": "2.0", "id": 2, "method": "prompts/list"},
            {"jsonrpc": "2.0", "id": 3, "method": "resources/list"}, {"jsonrpc": "2.0", "id": 4, "method": "resources/templates/list"}]
    data = "".join(json.dumps(m) + "\n" for m in msgs).encode()
    r = subprocess.run([sys.executable, "-m", "gbrain", "serve", "--db", str(own_brain)], input=data, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env={**os.environ, **server_env()}, timeout=60)
    assert r.returncode == 0
    *answers, rest = r.stdout.split(b"\n", 4)
    assert [json.loads(x)["id"] for x in answers] == [1, 2, 3, 4] and rest.startswith(b"gbrain MCP server running")
    prompts, resources, templates = (json.loads(x)["result"] for x in answers[1:])
    assert [p["name"] for p in prompts["prompts"]][:3] == ["brain_briefing", "brain_ingest_meeting", "gbrain-briefing"]
    assert "brain://skills/gbrain-ingest" in [x["uri"] for x in resources["resources"]]
    assert [t["name"] for t in templates["resourceTemplates"]] == ["index-page", "page"]


@pytest.mark.engine_free
def test_every_tool_shares_the_call_metadata_its_own_call_would_get():
    """build_server gives every tool one FuncMetadata (server._call_metadata, built once): it must
    be what the SDK makes of each tool's own `call` (same arguments model and schema)."""
    from mcp.server.mcpserver.tools import Tool

    from gbrain.mcp import server as mcp_server

    server, host = mcp_server.build_server(None)
    tools = server._tool_manager.list_tools()
    assert tools and all(t.fn_metadata is mcp_server._call_metadata() for t in tools)
    for t in tools:
        own = Tool.from_function(t.fn, name=t.name, structured_output=False).fn_metadata
        shared = t.fn_metadata
        assert own.arg_model.model_json_schema() == shared.arg_model.model_json_schema()
        assert (own.output_schema, own.wrap_output, own.output_model) == (shared.output_schema, shared.wrap_output, shared.output_model)


@pytest.mark.engine_free
def test_handshake_versions_are_the_sdks():
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

    from gbrain.mcp.handshake import HANDSHAKE_VERSIONS

    assert HANDSHAKE_VERSIONS == tuple(HANDSHAKE_PROTOCOL_VERSIONS)


def test_briefing_prompt_leaves_out_conflict_copies_and_earlier_briefings(fixture_db):
    """A user trial's briefing listed a conflict copy and the previous briefing as "recently
    updated" pages; the briefing skill says to ignore both. Open conflicts are listed apart, and
    the ingest prompt tells the agent to write with ``if_hash`` and set ``updated:``."""
    with Brain.open(fixture_db) as b:
        b.put("people/ana-lima", b.get_text("people/ana-lima") + "\nEdited after the import (an imported page is no news).\n")
        b.put("people/ana-lima.conflict-20261202T015712", "---\ntitle: Ana Lima\ntype: person\n---\n# Ana Lima\n\nthe other side\n")
        b.put("sources/briefing-2026-12-01", "---\ntitle: Briefing 2026-12-01\ntype: briefing\n---\n# Briefing\n\nold news\n")

    async def main():
        async with connect(fixture_db) as c:
            brief = await c.get_prompt("brain_briefing", {"since": "3650d"})
            ingest = await c.get_prompt("brain_ingest_meeting", {})
            return brief.messages[0].content.text, ingest.messages[0].content.text

    brief, ingest = anyio.run(main)
    recent, rest = brief.split("Recent ingests:", 1)
    assert "people/ana-lima (" in recent and ".conflict-" not in recent and "briefing-2026-12-01" not in recent, recent
    conflicts = rest.split("Open conflicts", 1)[1].split("Brain:", 1)[0]
    assert "people/ana-lima.md ← copy people/ana-lima.conflict-20261202T015712.md" in conflicts, conflicts
    assert "if_hash" in ingest and '"updated"' in ingest and ".conflict-" in ingest


def test_briefing_prompt_leaves_out_pages_an_import_wrote(fixture_db):
    """The agent's-day trial (trial9): a day after importing a 1,500-page folder, the briefing
    prompt listed 30 "recently updated pages", 19 of them untouched since the import, "of 1,505
    pages updated since 24h", while the briefing skill says an import is no news (step 1.1:
    `brain_changes` with `exclude_origin: import`). Pages whose newest version an import wrote
    are left out of the list and its count, and one line says how many and which call lists
    the other changes."""
    with Brain.open(fixture_db) as b:
        imported = b.stats()["pages"]
        b.put("people/ana-lima", b.get_text("people/ana-lima") + "\nA line written after the import.\n")

    async def prompt():
        async with connect(fixture_db) as c:
            return (await c.get_prompt("brain_briefing", {"since": "3650d"})).messages[0].content.text

    recent = anyio.run(prompt).split("Recent ingests:", 1)[0]
    listed = [ln for ln in recent.splitlines() if ln.startswith("- ")]
    assert [ln.split(" ", 2)[1] for ln in listed] == ["people/ana-lima"], recent
    assert (f"({imported - 1} more pages updated since 3650d were last written by an import: no news; "
            'brain_changes {"since": "3650d", "exclude_origin": "import"} lists the other changes)') in recent, recent


def test_briefing_prompt_says_when_it_cut_a_list(fixture_db):
    """The briefing prompt listed at most 30 recent pages and 20 open conflicts without a word,
    so an agent took the cut lists for the whole: it now says how many there are and which
    tool lists the rest; an uncut list says nothing more."""
    from gbrain.mcp.server import BRIEFING_CONFLICTS, BRIEFING_RECENT

    async def prompt():
        async with connect(fixture_db) as c:
            return (await c.get_prompt("brain_briefing", {"since": "3650d"})).messages[0].content.text

    uncut = anyio.run(prompt)
    assert "(showing" not in uncut, uncut
    with Brain.open(fixture_db) as b:
        pages = b.stats()["pages"]
        for i in range(BRIEFING_RECENT + 2):
            b.put(f"notes/n{i:02d}", f"# Note {i}\n\nsome text\n")
        for i in range(BRIEFING_CONFLICTS + 2):
            b.put(f"notes/n{i:02d}.conflict-20261202T015712", f"# Note {i}\n\nthe other side\n")
    text = anyio.run(prompt)
    recent, rest = text.split("Recent ingests:", 1)
    conflicts = rest.split("Open conflicts", 1)[1].split("Brain:", 1)[0]
    assert recent.count("\n- ") == BRIEFING_RECENT and conflicts.count("\n- ") == BRIEFING_CONFLICTS
    total = BRIEFING_RECENT + 2  # the fixture's imported pages are no news: counted apart
    assert f"({pages} more pages updated since 3650d were last written by an import" in recent, recent
    assert f'(showing the newest {BRIEFING_RECENT} of {total} pages updated since 3650d; brain_list {{"sort": "updated", "since": "3650d"}} lists them all)' in recent, recent
    assert f"(showing {BRIEFING_CONFLICTS} of {BRIEFING_CONFLICTS + 2} open conflicts; brain_conflicts lists them all)" in conflicts, conflicts


def test_brain_raw_gives_a_big_sidecar_in_parts(fixture_db):
    """brain_raw returned a sidecar whole however big (a provider's JSON of megabytes in one
    answer). It now pages as brain_get does: at most max_chars (60,000 for agents) of the JSON
    text per answer, cut at a line end, with next_offset until the last part; the parts join
    into the JSON the whole read gives. A small sidecar answers {source: data} as before, and
    max_chars 0 (or the command line) gives all of it."""
    from gbrain.operations.core import PART_CHARS

    big = {"people": [{"name": f"person {i}", "title": "engineer", "notes": "ü" * 40} for i in range(2000)]}
    with Brain.open(fixture_db) as b:
        b.raw_put("people/ana-lima", "crustdata", big)
        b.raw_put("people/ana-lima", "small", {"a": 1})
        whole = b.raw_get("people/ana-lima")  # the fixture's happenstance data too
    assert whole["crustdata"] == big and whole["small"] == {"a": 1}
    assert len(json.dumps(whole, ensure_ascii=False, indent=1)) > 2 * PART_CHARS

    async def main():
        async with connect(fixture_db) as c:
            parts, offset = [], 0
            while offset is not None:
                parts.append(ok(await c.call_tool("brain_raw", {"slug": "ana-lima", "offset": offset})))
                offset = parts[-1]["next_offset"]
            return (parts, ok(await c.call_tool("brain_raw", {"slug": "ana-lima", "source": "small"})),
                    ok(await c.call_tool("brain_raw", {"slug": "ana-lima", "max_chars": 0})),
                    await c.call_tool("brain_raw", {"slug": "ana-lima", "offset": 10**9}))

    parts, small, all_of_it, past = anyio.run(main)
    assert len(parts) >= 3 and all(len(p["content"]) <= PART_CHARS for p in parts)
    assert [p["truncated"] for p in parts] == [True] * (len(parts) - 1) + [False]
    assert parts[0]["slug"] == "people/ana-lima" and set(parts[0]["sources"]) == set(whole)
    assert json.loads("".join(p["content"] for p in parts)) == whole == all_of_it
    assert small == {"small": {"a": 1}}
    assert past.is_error and "past the end" in text_of(past)
    r = gbrain("--db", str(fixture_db), "raw", "people/ana-lima", "--json")
    assert r.returncode == 0 and json.loads(r.stdout) == whole


def test_query_lists_its_hits_under_items_as_the_other_list_tools(shared_reads):
    """brain_query answered {"hits": [...]} where brain_search, brain_list and the other list
    tools answer {"items": [...]}: it answers `items` now. An MCP agent gets `items` alone (the
    alias doubled every result against the 40,000-character page: agent trial 3); `call`, `pipe`
    and `--json` keep `hits` (the same list, the same page) for one release, for scripts."""
    session, fixture_db = shared_reads

    async def main(c):
        tools = {t.name: t for t in (await c.list_tools()).tools}
        first = ok(await c.call_tool("brain_query", {"question": "River AI Series A", "limit": 1, "mode": "keyword"}))
        second = ok(await c.call_tool("brain_query", {"question": "River AI Series A", "limit": 1, "mode": "keyword", "cursor": first["next_cursor"]}))
        return tools["brain_query"], first, second

    tool, first, second = session.run(main)
    assert first["items"] and second["items"] and second["items"] != first["items"]
    assert "hits" not in first and "hits" not in second, first
    success = tool.output_schema["anyOf"][0]
    assert success["required"] == ["items"] and "hits" not in success["properties"]
    assert "`hits`" not in tool.description
    r = gbrain("--db", str(fixture_db), "query", "River AI Series A", "--mode", "keyword", "--json")
    out = json.loads(r.stdout)
    assert r.returncode == 0 and out["items"] and out["items"] == out["hits"], r.stdout
    via_call = json.loads(gbrain("--db", str(fixture_db), "call", "brain_query", json.dumps({"question": "River AI Series A", "mode": "keyword", "limit": 1, "cursor": ""})).stdout)
    assert via_call["items"] == via_call["hits"] == first["items"], via_call
    assert gbrain("--db", str(fixture_db), "query", "River AI Series A", "--mode", "keyword").stdout.decode().startswith(out["items"][0]["slug"])


def test_lint_lists_its_findings_under_items_as_the_other_list_tools(shared_reads, monkeypatch):
    """brain_lint (and brain_lint_fix) answered {"findings": [...]} where every other list tool
    answers {"items": [...]}: `items` now. An MCP agent gets `items` alone: with the alias
    `findings` beside it every finding came twice, and a default `brain_lint {}` showed 48
    findings in its 40,000 characters instead of ~96 (agent trial 3). `call`, `pipe` and
    `--json` keep `findings` (the same list, the same page) for one release, for scripts."""
    session, fixture_db = shared_reads

    async def main(c):
        tools = {t.name: t for t in (await c.list_tools()).tools}
        r = ok(await c.call_tool("brain_lint", {}))
        fix = ok(await c.call_tool("brain_lint_fix", {"dry_run": True}))
        return tools, r, fix

    tools, r, fix = session.run(main)
    assert r["items"] and fix["items"] and "findings" not in r and "findings" not in fix, r
    for name in ("brain_lint", "brain_lint_fix"):
        success = tools[name].output_schema["anyOf"][0]
        assert success["required"] == ["items"] and "findings" not in success["properties"], name
    # one page at a time: the pages together the whole list, each once
    monkeypatch.setattr(ops.REGISTRY["lint"], "page_size", 2)
    pages, cursor = [], None
    while True:
        p = ops.run_tool("lint", {"cursor": cursor} if cursor else {}, ops.Context(db=str(fixture_db), surface="mcp"))
        assert "findings" not in p and len(p["items"]) <= 2
        pages += p["items"]
        cursor = p["next_cursor"]
        if not cursor:
            break
    assert pages == r["items"]
    # call with a cursor pages as the tool does, and keeps the alias for scripts
    p = ops.run_tool("lint", {}, ops.Context(db=str(fixture_db), surface="call"))
    assert p["items"] == p["findings"] == r["items"][:2]
    out = gbrain("--db", str(fixture_db), "lint", "--json")
    js = json.loads(out.stdout)
    assert out.returncode == 1 and js["items"] and js["items"] == js["findings"], out.stdout
    text = gbrain("--db", str(fixture_db), "lint").stdout.decode()
    assert all(f"  {f['slug'] or '(brain)'}  {f['message']}" in text for f in js["items"]), text


@pytest.mark.engine_free
def test_an_mcp_page_spends_its_budget_on_one_copy_of_each_item(monkeypatch):
    """PAGE_CHARS bounds what an agent reads; the items counted once when the result carries
    them once (MCP), twice where the alias is kept (call, pipe)."""
    o = ops.REGISTRY["lint"]
    findings = [{"check": "orphans", "slug": f"notes/n{i:04d}", "message": "x" * 300, "action": ""} for i in range(400)]
    monkeypatch.setattr(o, "handler", lambda b, a, ctx: {"ok": False, "counts": {"orphans": 400}, "items": findings})
    monkeypatch.setattr(o, "db", "none")
    monkeypatch.setattr(o, "page_size", 1000)
    mcp = ops.run_tool("lint", {}, ops.Context(surface="mcp"))
    call = ops.run_tool("lint", {}, ops.Context(surface="call"))
    assert "findings" not in mcp and call["findings"] == call["items"]
    assert len(json.dumps(mcp)) <= ops.PAGE_CHARS + 1000 and len(json.dumps(call)) <= ops.PAGE_CHARS + 1000
    assert len(mcp["items"]) >= 2 * len(call["items"]) - 1, (len(mcp["items"]), len(call["items"]))


class _Counted:
    """A connection that counts the rows its statements hand back (either engine)."""

    def __init__(self, conn):
        self._conn, self.rows = conn, 0

    def __getattr__(self, name):
        return getattr(self._conn, name)

    def execute(self, *a, **k):
        return _CountedCursor(self, self._conn.execute(*a, **k))


class _CountedCursor:
    def __init__(self, owner, cur):
        self._owner, self._cur = owner, cur

    def __getattr__(self, name):
        return getattr(self._cur, name)

    def __iter__(self):
        for r in self._cur:
            self._owner.rows += 1
            yield r

    def fetchone(self):
        r = self._cur.fetchone()
        self._owner.rows += r is not None
        return r

    def fetchall(self):
        rs = self._cur.fetchall()
        self._owner.rows += len(rs)
        return rs

    def fetchmany(self, *a):
        rs = self._cur.fetchmany(*a)
        self._owner.rows += len(rs)
        return rs


def test_briefing_reads_only_the_recent_pages_it_shows(fixture_db):
    """The briefing read and formatted every page updated since `since`, then showed the newest
    30 ("the newest 30 of N"): a brain with thousands of recent pages (an import) read them all.
    It now counts them and reads only what it shows; the text is the same, byte for byte:
    briefings and conflict copies left out (also when they are the newest, inside the window),
    the order newest first then by slug."""
    from gbrain.mcp.server import BRIEFING_RECENT, briefing_text

    n = 300  # (reading them all would be 370 rows; the briefing's other statements, stats' included, read some 55)
    with Brain.open(fixture_db) as b:
        for i in range(n):
            b.put(f"notes/n{i:03d}", f"---\ntype: {'idea' if i % 3 == 0 else 'note'}\n---\n# Note {i}\n\nsome text\n")
        for i in range(3):
            b.put(f"notes/n{i:03d}.conflict-20261202T015712", f"# Note {i}\n\nthe other side\n")
            b.put(f"briefings/b{i}", "---\ntype: briefing\n---\n# Briefing\n\nold news\n")
        # times set apart: the fixture's pages before `since`, the notes a minute apart with ties
        # (two notes a minute), the copies and briefings the newest of all
        b.conn.execute("UPDATE pages SET updated_at = '2001-01-01T00:00:00Z'")
        for i in range(n):
            b.conn.execute("UPDATE pages SET updated_at = ? WHERE slug = ?", (f"2026-11-01T{i // 2 // 60:02d}:{i // 2 % 60:02d}:00Z", f"notes/n{i:03d}"))
        b.conn.execute("UPDATE pages SET updated_at = '2026-11-30T00:00:00Z' WHERE slug LIKE '%.conflict-%' OR slug LIKE 'briefings/%'")
        b.conn.commit()
        counted = _Counted(b.conn)
        b.conn = counted
        try:
            text = briefing_text(b, "2026-01-01")
        finally:
            b.conn = counted._conn
    shown = sorted(range(n), key=lambda i: (-(i // 2), f"notes/n{i:03d}"))[:BRIEFING_RECENT]
    want = "".join(f"- notes/n{i:03d} ({'idea' if i % 3 == 0 else 'note'}) — Note {i} — updated 2026-11-01T{i // 2 // 60:02d}:{i // 2 % 60:02d}:00Z\n" for i in shown)
    want += f'(showing the newest {BRIEFING_RECENT} of {n} pages updated since 2026-01-01; brain_list {{"sort": "updated", "since": "2026-01-01"}} lists them all)'
    recent = text.split("Recently updated pages (newest first, since 2026-01-01):\n", 1)[1].split("\n\nRecent ingests:", 1)[0]
    assert recent == want, recent
    # the rows of every statement (the counts, conflicts, ingests, stats' sizes: some 55 more here): it read
    # all recent pages, the copies and briefings too, before (n + 70 rows); 30 + 3 copies + those now
    assert counted.rows < n // 2, counted.rows


def test_brain_tags_pages_a_brain_with_many_tags(db_path):
    """brain_tags {} answered every tag of the brain at once: 524 tags, 34,508 characters on the
    llm-wiki vault (agent trial, TypeScript SDK), and a brain with a couple of thousand tags went
    past the 40,000-character page an agent can take. It pages as every list tool does; the CLI
    and `call` without a cursor still list every tag."""
    with Brain.open(db_path, create=True) as b:
        for i in range(40):
            b.put(f"notes/n{i}", "---\ntags: [" + ", ".join(f"topic-{i}-{k}-" + "x" * 60 for k in range(20)) + "]\n---\n# N\n")
        every = ops.run("tags", {}, ops.Context(surface="mcp"), brain=b)  # (an agent's rows: spellings only where several)
        pages, cursor = [], None
        while True:
            p = ops.run_tool("tags", {"cursor": cursor} if cursor else {}, ops.Context(surface="mcp"), brain=b)
            assert len(json.dumps(p)) <= ops.PAGE_CHARS + 1000
            pages.append(p["items"])
            cursor = p["next_cursor"]
            if not cursor:
                break
    assert len(every) == 800 and len(pages) > 1 and [t for pg in pages for t in pg] == every
    assert "next_cursor" in ops.REGISTRY["tags"].output_schema()["properties"]
