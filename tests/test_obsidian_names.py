"""Issue 10 (names and writes): every page import creates can be named, writes are as careful
as reads, every count parameter is checked in one place. Inputs from ``fixtures/cases/``
(copied byte-exact from ``../shared/cases``)."""
from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest

from gbrain import operations as ops
from gbrain.core.brain import Brain
from gbrain.errors import Ambiguous, BadInput
from gbrain.sync.importer import import_tree

from conftest import ROOT, gbrain

CASES = ROOT / "fixtures" / "cases"


def case_tree(tmp_path: Path, name: str) -> Path:
    dst = tmp_path / name
    shutil.copytree(CASES / name / "input", dst, symlinks=True)
    return dst


def imported(tmp_path: Path, name: str) -> tuple[Path, Path]:
    tree = case_tree(tmp_path, name)
    db = tmp_path / "brain.db"
    with Brain.open(db) as b:
        import_tree(b, tree)
    return tree, db


def js(r):
    assert r.returncode == 0, r.stderr.decode()
    return json.loads(r.stdout)


def snapshot(db: Path) -> list:
    with Brain.open(db) as b:
        return [tuple(r) for r in b.conn.execute("SELECT slug, path, content_hash FROM pages ORDER BY slug")]


# ---------------------------------------------------------------------------
# item 7: one check for every limit/offset/count parameter
# ---------------------------------------------------------------------------


def _int_params():
    for o in ops.REGISTRY.values():
        for p in o.params:
            if p.type == "integer":
                yield o, p


def test_every_integer_parameter_declares_its_bounds():
    """New operations cannot forget: each integer parameter says its minimum, shown in the schema."""
    missing = [f"{o.name}.{p.name}" for o, p in _int_params() if p.minimum is None]
    assert missing == []
    tools = {t["name"]: t for t in ops.tools_json()}
    for o, p in _int_params():
        if o.mcp and p.in_schema:
            assert tools[o.tool_name]["input_schema"]["properties"][p.name]["minimum"] == p.minimum


@pytest.mark.parametrize("o,p", [(o, p) for o, p in _int_params()], ids=lambda x: getattr(x, "name", ""))
def test_below_the_minimum_is_refused_by_the_registry_for_every_operation(tmp_path, o, p):
    """The same message for every operation, before the handler runs (no brain is even opened)."""
    args = {q.name: "x" for q in o.params if q.required}
    if "dir" in args:
        args["dir"] = str(tmp_path)
    args[p.name] = p.minimum - 1
    with pytest.raises(BadInput, match=rf"{p.name} must be .*, got {p.minimum - 1}$"):
        ops.check_args(o, args)
    if p.maximum is not None:
        args[p.name] = p.maximum + 1
        with pytest.raises(BadInput, match=rf"{p.name} must be between"):
            ops.check_args(o, args)


def test_negative_limit_case(tmp_path):
    """``negative-limit``: list, timeline, restore and search/query/lint/threads all refuse -2 the
    same way, exit 2, on the CLI, through call and pipe; nothing is listed."""
    tree, db = imported(tmp_path, "negative-limit")
    cmds = [["list"], ["timeline", "ana-lima"], ["restore"], ["search", "Person"], ["query", "person"], ["lint"], ["threads"]]
    for cmd in cmds:
        r = gbrain(*cmd, "--limit", "-2", "--db", str(db))
        assert r.returncode == 2, (cmd, r.stderr)
        assert b"limit must be" in r.stderr and b"got -2" in r.stderr and r.stdout == b"", cmd
    for tool, args in [("brain_list", {}), ("brain_timeline", {"slug": "ana-lima"}), ("brain_restore", {}), ("brain_search", {"query": "x"})]:
        r = gbrain("call", tool, json.dumps({**args, "limit": -2}), "--db", str(db))
        assert r.returncode == 2 and b"limit must be" in r.stderr, tool
    out = gbrain("pipe", "--db", str(db), input=json.dumps({"tool": "brain_list", "params": {"limit": -1}}) + "\n").stdout.decode()
    assert "limit must be 0 (no limit) or more, got -1" in out
    # the boundaries still work: 0 lists all where 0 means all, 1 is the least a search takes
    assert len(js(gbrain("list", "--limit", "0", "--json", "--db", str(db)))) == 4
    assert len(js(gbrain("timeline", "ana-lima", "--limit", "0", "--json", "--db", str(db)))) == 3
    assert len(js(gbrain("timeline", "ana-lima", "--limit", "2", "--json", "--db", str(db)))) == 2
    r = gbrain("search", "Person", "--limit", "0", "--db", str(db))
    assert r.returncode == 2 and b"limit must be a positive number, got 0" in r.stderr


def test_negative_limit_over_mcp(tmp_path):
    """The MCP tools refuse with a tool error and list nothing."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client
    import os
    import sys

    _, db = imported(tmp_path, "negative-limit")

    async def go():
        params = StdioServerParameters(command=sys.executable, args=["-m", "gbrain", "serve", "--db", str(db)], env=dict(os.environ))
        async with stdio_client(params) as (r, w), ClientSession(r, w) as c:
            await c.initialize()
            out = {}
            for tool, args in [("brain_list", {"limit": -2}), ("brain_timeline", {"slug": "ana-lima", "limit": -2}), ("brain_restore", {"limit": -1})]:
                res = await c.call_tool(tool, args)
                out[tool] = (res.is_error, res.content[0].text)
            return out

    for tool, (is_error, text) in asyncio.run(go()).items():
        assert is_error and "limit must be 0 (no limit) or more" in text, tool


# ---------------------------------------------------------------------------
# item 7: a write to an ambiguous short slug is refused like get
# ---------------------------------------------------------------------------


def test_ambiguous_short_slug_write_is_refused_and_creates_nothing(tmp_path):
    tree, db = imported(tmp_path, "ambiguous-short-slug")
    before = snapshot(db)
    d = ["--db", str(db)]
    r = gbrain("get", "ana-lima", *d)
    assert r.returncode == 1 and b"matches 2 pages" in r.stderr
    page = "---\ntitle: Ana\n---\nNew text.\n"
    writes = [
        (["put", "ana-lima"], page),
        (["put", "ana-lima", "--compiled-truth", "New."], None),
        (["put", "ana-lima", "--frontmatter", '{"x": 1}'], None),
        (["put", "ana-lima", "--timeline-append", "- **2025-01-01** | x — y"], None),
        (["put", "Ana-Lima"], page),
        (["tag", "ana-lima", "x"], None),
        (["timeline-add", "ana-lima", "--date", "2025-01-01", "--summary", "x"], None),
        (["link", "ana-lima", "people/ana-lima"], None),
    ]
    for cmd, stdin in writes:
        r = gbrain(*cmd, *d, input=stdin)
        assert r.returncode == 1, (cmd, r.stderr)
        assert b"matches 2 pages" in r.stderr and b"archive/ana-lima" in r.stderr and b"people/ana-lima" in r.stderr, cmd
    for args in [{"slug": "ana-lima", "content": page}, {"slug": "ana-lima", "compiled_truth": "x"}, {"slug": "ana-lima", "frontmatter": {"x": 1}}]:
        r = gbrain("call", "brain_put", json.dumps(args), *d)
        assert r.returncode == 1 and b"matches 2 pages" in r.stderr
    assert snapshot(db) == before
    # the full slug writes; a new, unambiguous name still creates
    assert js(gbrain("put", "people/ana-lima", "--compiled-truth", "New.", "--json", *d))["changed"]
    assert js(gbrain("put", "ana-lima-2", "--json", *d, input=page))["created"]


def test_ambiguous_is_a_not_found_with_the_matches(tmp_path):
    _, db = imported(tmp_path, "ambiguous-short-slug")
    with Brain.open(db) as b:
        with pytest.raises(Ambiguous) as e:
            b.put("ana-lima", "x\n")
        assert sorted(e.value.suggestions) == ["archive/ana-lima", "people/ana-lima"]
        assert b.conn.execute("SELECT count(*) FROM pages").fetchone()[0] == 2
    with Brain.open(db) as b:  # the ingest operation writes through put, so it is refused too
        with pytest.raises(Ambiguous):
            ops.run("put", {"slug": "ANA-LIMA", "content": "x\n"}, brain=b)
