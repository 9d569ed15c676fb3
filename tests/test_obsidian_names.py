"""Issue 10 (names and writes): every page import creates can be named, writes are as careful
as reads, every count parameter is checked in one place. Inputs from ``fixtures/cases/``
(copied byte-exact from ``../shared/cases``)."""
from __future__ import annotations

import asyncio
import json
import os
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gbrain import operations as ops
from gbrain.core.brain import Brain
from gbrain.errors import Ambiguous, BadInput
from gbrain.sync.importer import import_tree

from conftest import ROOT, gbrain, gbrain_in_process

pytestmark = pytest.mark.engine_free  # the same on both engines: runs in the SQLite run only (conftest)

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


def pipe(db: Path, calls: list[tuple[str, dict]]) -> list[dict]:
    """Run many tool calls through one `gbrain pipe`, in-process (conftest.gbrain_in_process: the
    tests here are about the names the tools take, not the process); one response per call."""
    lines = "".join(json.dumps({"id": i, "tool": t, "params": a}) + "\n" for i, (t, a) in enumerate(calls))
    r = gbrain_in_process("pipe", "--db", str(db), input=lines)
    out = [json.loads(x) for x in r.stdout.decode().splitlines()]
    assert [x["id"] for x in out] == list(range(len(calls))), r.stderr
    return out


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
            prop = tools[o.tool_name]["input_schema"]["properties"][p.name]
            assert prop["minimum"] == p.minimum
            # and its own maximum; without one the schema says none (every tool's schema is in an agent's
            # context: no 2^53 on every count) and check_args takes at most the largest exact JSON integer
            assert prop.get("maximum") == p.maximum
            if p.maximum is None:
                args = {q.name: "x" for q in o.params if q.required or q.tool_required} | {p.name: ops.MAX_INT + 1}
                with pytest.raises(BadInput, match=f"at most {ops.MAX_INT:,}"):
                    ops.check_args(o, args)


@pytest.mark.parametrize("o,p", [(o, p) for o, p in _int_params()], ids=lambda x: getattr(x, "name", ""))
def test_below_the_minimum_is_refused_by_the_registry_for_every_operation(tmp_path, o, p):
    """The same message for every operation, before the handler runs (no brain is even opened)."""
    args = {q.name: "x" for q in o.params if q.required or q.tool_required}
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
    same way (exit 2 on the CLI, an error through call/pipe); nothing is listed."""
    tree, db = imported(tmp_path, "negative-limit")
    r = gbrain_in_process("list", "--limit", "-2", "--db", str(db))
    assert r.returncode == 2 and r.stderr == b"error: --limit must be 0 (no limit) or more, got -2\n" and r.stdout == b""
    r = gbrain_in_process("call", "brain_timeline", json.dumps({"slug": "ana-lima", "limit": -2}), "--db", str(db))
    assert r.returncode == 2 and b"limit must be 0 (no limit) or more, got -2" in r.stderr
    assert json.loads(r.stdout) == {"error": "brain_timeline: limit must be 0 (no limit) or more, got -2", "exit_code": 2, "kind": "bad_input"}  # call: JSON too
    tools = [("list", {}), ("timeline", {"slug": "ana-lima"}), ("restore", {}), ("search", {"query": "Person"}),
             ("query", {"question": "person"}), ("lint", {}), ("threads", {})]
    for (tool, _), res in zip(tools, pipe(db, [(t, {**a, "limit": -2}) for t, a in tools])):
        assert not res["ok"] and res["error"].endswith("got -2") and "limit must be" in res["error"], tool
    # the boundaries still work: 0 lists all where 0 means all, 1 is the least a search takes
    ok = pipe(db, [("list", {"limit": 0}), ("timeline", {"slug": "ana-lima", "limit": 0}), ("timeline", {"slug": "ana-lima", "limit": 2}), ("search", {"query": "Person", "limit": 0})])
    assert [len(x["result"]) for x in ok[:3]] == [4, 3, 2]
    assert ok[3]["error"] == "brain_search: limit must be a positive number, got 0"


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
            for tool, args in [("brain_list", {"limit": -2}), ("brain_timeline", {"slug": "ana-lima", "limit": -2}), ("brain_trash", {"limit": -1})]:
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
    page = "---\ntitle: Ana\n---\nNew text.\n"
    r = gbrain_in_process("put", "ana-lima", "--db", str(db), input=page)
    assert r.returncode == 1 and b"'ana-lima' matches 2 pages: archive/ana-lima, people/ana-lima" in r.stderr
    writes = [
        ("get", {"slug": "ana-lima"}),
        ("put", {"slug": "ana-lima", "content": page}),
        ("put", {"slug": "ana-lima", "compiled_truth": "New."}),
        ("put", {"slug": "ana-lima", "frontmatter": {"x": 1}}),
        ("put", {"slug": "ana-lima", "timeline_append": "- **2025-01-01** | x — y"}),
        ("put", {"slug": "Ana-Lima", "content": page}),
        ("tag", {"slug": "ana-lima", "tag": "x"}),
        ("timeline_add", {"slug": "ana-lima", "date": "2025-01-01", "summary": "x"}),
        ("link", {"from": "ana-lima", "to": "people/ana-lima"}),
        ("raw", {"slug": "ana-lima", "source": "s", "data": {"a": 1}}),
    ]
    for (tool, args), res in zip(writes, pipe(db, [("brain_" + t, a) for t, a in writes])):
        assert not res["ok"] and "matches 2 pages: archive/ana-lima, people/ana-lima" in res["error"], tool
    assert snapshot(db) == before
    # the full slug writes; a new, unambiguous name still creates
    ok = pipe(db, [("put", {"slug": "people/ana-lima", "compiled_truth": "New."}), ("put", {"slug": "ana-lima-2", "content": page})])
    assert ok[0]["result"]["changed"] and ok[1]["result"]["created"]


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


# ---------------------------------------------------------------------------
# item 5: one slug rule — every page import creates can be named by every command
# ---------------------------------------------------------------------------


def test_name_trailing_space_case(tmp_path):
    """``name-trailing-space``: `notes/Draft plan .md` is reachable by get/tag/backlinks/put, with
    or without its trailing space; `put` updates it instead of making a second page."""
    tree, db = imported(tmp_path, "name-trailing-space")
    data = (tree / "notes" / "Draft plan .md").read_bytes()
    assert gbrain_in_process("get", "notes/Draft plan ", "--db", str(db)).stdout == data
    names = ["notes/Draft plan ", "notes/Draft plan", "Draft plan ", "draft plan", "notes/Draft plan .md"]
    res = pipe(db, [("get", {"slug": n}) for n in names] + [("backlinks", {"slug": "notes/Draft plan "}), ("tag", {"slug": "notes/Draft plan", "tag": "plans"})])
    assert [x["result"]["content"].encode() for x in res[: len(names)]] == [data] * len(names)
    assert [x["slug"] for x in res[len(names)]["result"]] == ["index-page"]
    assert res[-1]["result"]["slug"] == "notes/Draft plan "
    text = pipe(db, [("get", {"slug": "notes/Draft plan "})])[0]["result"]["content"]
    for r in pipe(db, [("put", {"slug": n, "content": text}) for n in names[:2]] + [("list", {})]):
        if isinstance(r["result"], dict):
            assert r["result"]["slug"] == "notes/Draft plan " and not r["result"]["changed"] and not r["result"]["created"]
        else:
            assert [p["slug"] for p in r["result"]] == ["index-page", "notes/Draft plan "]


def test_name_colon_case(tmp_path):
    """``name-colon``: a colon after one character is a name, not a drive letter."""
    tree, db = imported(tmp_path, "name-colon")
    assert gbrain_in_process("get", "1: Weekly plan", "--db", str(db)).stdout == (tree / "1: Weekly plan.md").read_bytes()
    for slug in ["1: Weekly plan", "Q: open questions"]:
        data = (tree / f"{slug}.md").read_bytes().decode()
        got, back, put, tag, tl = pipe(db, [("get", {"slug": slug}), ("backlinks", {"slug": slug}), ("put", {"slug": slug, "content": data}),
                                            ("tag", {"slug": slug, "tag": "weekly"}), ("timeline-add", {"slug": slug, "date": "2025-01-02", "summary": "planned"})])
        assert got["result"]["content"] == data and [x["slug"] for x in back["result"]] == ["home"]
        assert put["result"]["changed"] is False and tag["result"]["changed"] and tl["result"]["changed"]
    links, new, *bad = pipe(db, [("links", {"slug": "home"}), ("put", {"slug": "A: agenda", "content": "# A\n"})]
                            + [("put", {"slug": s, "content": "x\n"}) for s in ["C:/x", "C:", "/etc/passwd", "a/../b", "a/ /b"]])
    assert sorted(x["to_slug"] for x in links["result"]) == ["1: Weekly plan", "Q: open questions"]
    assert new["result"]["created"]  # a new page may have such a name too
    assert all(not x["ok"] and x["error"].startswith("slug ") for x in bad), bad  # real absolute paths and drives stay refused
    r = gbrain_in_process("put", "C:/x", "--db", str(db), input="x\n")
    assert r.returncode == 2 and b"absolute path" in r.stderr


def test_names_differing_in_case_are_each_addressable(tmp_path):
    tree = tmp_path / "t"
    tree.mkdir()
    (tree / "Note.md").write_bytes(b"# Upper\n")
    (tree / "note.md").write_bytes(b"# Lower\n")
    db = tmp_path / "brain.db"
    with Brain.open(db) as b:
        import_tree(b, tree)
        assert ops.run("get", {"slug": "Note"}, brain=b)["content"] == "# Upper\n"
        assert ops.run("get", {"slug": "note"}, brain=b)["content"] == "# Lower\n"
        with pytest.raises(Ambiguous):
            ops.run("get", {"slug": "NOTE"}, brain=b)
        with pytest.raises(Ambiguous):  # a write to the ambiguous spelling creates nothing
            ops.run("put", {"slug": "NOTE", "content": "x\n"}, brain=b)
        assert b.conn.execute("SELECT count(*) FROM pages").fetchone()[0] == 2


def test_a_name_no_command_could_address_is_reported_and_kept(tmp_path):
    """Import says which file, keeps its bytes (exported back exactly), and goes on."""
    tree = tmp_path / "t"
    (tree / "sub").mkdir(parents=True)
    (tree / "tab\there.md").write_bytes(b"# Tab\n")
    (tree / "sub" / " .md").write_bytes(b"# Blank name\n")
    (tree / "fine.md").write_bytes(b"# Fine\n")
    db = tmp_path / "brain.db"
    with Brain.open(db) as b:
        rep = import_tree(b, tree)
        assert rep["ok"]
        assert [r[0] for r in b.conn.execute("SELECT slug FROM pages")] == ["fine"]
        warned = " ".join(rep["warnings"])
        assert "tab\\u0009here.md: no command could name this page" in warned  # shown escaped and "sub/ .md: no command could name this page" in warned
        from gbrain.sync.exporter import export_tree

        out = tmp_path / "out"
        export_tree(b, out)
    assert (out / "tab\there.md").read_bytes() == b"# Tab\n" and (out / "sub" / " .md").read_bytes() == b"# Blank name\n"


def test_a_backslash_in_a_file_name_is_not_a_folder(tmp_path):
    """``a\\b.md`` is one file name (POSIX), not ``a/b``: it is kept as a file no command could name,
    and the real ``a/b.md`` beside it is a page (was: both had slug ``a/b``, the real page was kept
    as a file "after Unicode normalisation", and stayed one after the other was deleted)."""
    tree = tmp_path / "t"
    (tree / "notes" / "a").mkdir(parents=True)
    (tree / "notes" / "a\\b.md").write_bytes(b"# Backslash\n")
    (tree / "notes" / "a" / "b.md").write_bytes(b"# Real\n\nkiwi2\n")
    with Brain.open(tmp_path / "brain.db") as b:
        rep = import_tree(b, tree)
        assert rep["ok"], rep["problems"]
        assert [r[0] for r in b.conn.execute("SELECT slug FROM pages")] == ["notes/a/b"]
        assert "kiwi2" in b.get_text("notes/a/b")
        assert any("a\\b.md: no command could name this page" in w and "backslash" in w for w in rep["warnings"])
        from gbrain.sync.exporter import export_tree

        export_tree(b, tmp_path / "out")
    assert (tmp_path / "out" / "notes" / "a\\b.md").read_bytes() == b"# Backslash\n"


_NAME = st.lists(st.sampled_from(list("aAzZ19 :#.-'%&[]") + ["é", "e\u0301", "ß", "İ", "重", "\u00a0"]), min_size=1, max_size=10).map("".join)
_FOLDER = st.sampled_from(["", "notes", "Notes", "a b ", "1: x", " lead", "x.md"])


@settings(max_examples=int(__import__("os").environ.get("GBRAIN_NAME_EXAMPLES", 30)), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(files=st.lists(st.tuples(_FOLDER, _NAME, st.sampled_from([".md", ".md.md", ".MD"])), min_size=1, max_size=6))
def test_every_page_import_accepts_can_be_got_and_put_back(tmp_path_factory, files):
    """Property: for every markdown path import accepts as a page, ``get SLUG`` returns its
    bytes and ``put SLUG`` of those bytes changes nothing (no second page); every markdown path
    it does not accept as a page is named in a warning and its bytes are kept."""
    import os

    from gbrain.core.brain import SPECIAL_FILES
    from gbrain.sync.scan import is_temp_name

    base = tmp_path_factory.mktemp("prop")
    tree = base / "t"
    tree.mkdir()
    written: dict[str, bytes] = {}
    for i, (folder, name, ext) in enumerate(files):
        rel = (folder + "/" if folder else "") + name + ext
        if rel in SPECIAL_FILES or rel in written or is_temp_name(name + ext):
            continue  # index/log/schema.md and editor temp files (`.#x.md`) are not pages by design
        try:
            (tree / folder).mkdir(exist_ok=True)
            data = f"# {name}\n\nBody {i}.\n".encode()
            (tree / rel).write_bytes(data)
        except OSError:
            continue
        written[rel] = data
    with Brain.open(base / "brain.db") as b:
        rep = import_tree(b, tree)
        assert rep["ok"], rep["problems"]
        pages = {r["path"]: r["slug"] for r in b.conn.execute("SELECT path, slug FROM pages")}
        files_ = {r[0]: bytes(r[1]) for r in b.conn.execute("SELECT path, data FROM files")}
        n = len(pages)
        for rel, data in written.items():
            rel = os.path.relpath(os.path.join(tree, rel), tree)  # the on-disk spelling
            if rel in pages:
                slug = pages[rel]
                got = ops.run("get", {"slug": slug}, brain=b)
                assert got["content"].encode() == data and got["slug"] == slug
                r = ops.run("put", {"slug": slug, "content": got["content"]}, brain=b)
                assert r["slug"] == slug and not r["changed"] and not r["created"]
            else:
                assert files_[rel] == data
                if rel.lower().endswith(".md"):
                    assert any(w.startswith(rel + ":") for w in rep["warnings"]), rel
        assert b.conn.execute("SELECT count(*) FROM pages").fetchone()[0] == n


# ---------------------------------------------------------------------------
# item 6: a --- inside HTML, %% comments or $$ math is not the separator
# ---------------------------------------------------------------------------


def test_rule_in_html_comment_case(tmp_path):
    """``rule-in-html-comment``: the separator is the `---` after `## State`; a compiled_truth
    put replaces the state and the comment, and keeps the timeline."""
    tree, db = imported(tmp_path, "rule-in-html-comment")
    data = (tree / "people" / "ana-lima.md").read_text()
    got, tl, put, after, tl2 = pipe(db, [("get", {"slug": "ana-lima"}), ("timeline", {"slug": "ana-lima"}),
                                         ("put", {"slug": "ana-lima", "compiled_truth": "# Ana Lima\n\n## State\nSeries A closed.\n"}),
                                         ("get", {"slug": "ana-lima"}), ("timeline", {"slug": "ana-lima"})])
    assert got["result"]["content"] == data
    assert [e["summary"] for e in tl["result"]] == ["Pitched the Series A."]
    head, _, tail = data.partition("\n---\n\n- **2025")
    assert after["result"]["content"] == "---\ntitle: Ana Lima\ntype: person\n---\n# Ana Lima\n\n## State\nSeries A closed.\n\n---\n\n- **2025" + tail
    assert tl2["result"] == tl["result"]


SEP_CASES = {
    "html comment": "<!--\nnote\n---\nmore\n-->",
    "html block": "<div>\nbox\n---\n</div>",
    "obsidian comment": "%%\nhidden\n---\nstill hidden\n%%",
    "obsidian comment, indented close": "%% todo:\n---\n  %%",
    "math": "$$\na\n---\nb\n$$",
    "fenced code": "```\n---\n```",
}


@pytest.mark.parametrize("name", list(SEP_CASES))
@pytest.mark.parametrize("nl", ["\n", "\r\n"])
def test_a_rule_inside_an_opaque_block_is_not_the_separator(name, nl):
    from gbrain.page.markdown import parse_page

    block = SEP_CASES[name]
    ct = f"# T\n\nintro\n\n{block}\n\nstate\n\n".replace("\n", nl)
    text = f"---\ntitle: T\n---\n".replace("\n", nl) + ct + "---" + nl + nl + "- **2025-01-02** | call — x" + nl
    p = parse_page(text, "t.md")
    assert p.render() == text
    assert p.compiled_truth == ct and p.separator == "---" + nl
    assert [e.summary for e in p.timeline_entries] == ["x"]


def test_unclosed_math_does_not_hide_the_separator():
    from gbrain.page.markdown import parse_page

    text = "# T\n\n$$\nnever closed\n\n---\n\n- **2025-01-02** | call — x\n"
    p = parse_page(text, "t.md")
    assert p.separator == "---\n" and len(p.timeline_entries) == 1


@pytest.mark.parametrize("block", [
    "%% never closed",  # inline, left open: Obsidian hides the rest of the note
    "%%\nnever closed",  # a %% line never closed
    "Text %% opened\n\nmore %% closed\n\n- item %% opened again",  # the third %% opens one
    "a %% b %% c %% d",
])
@pytest.mark.parametrize("nl", ["\n", "\r\n"])
def test_a_rule_below_an_unclosed_obsidian_comment_is_not_the_separator(block, nl):
    """Obsidian's ``%%`` opens a comment that runs to the next ``%%`` or the end of the note, so
    a ``---`` after one left open is inside it: no timeline (the page model read one there, though
    it already read no link or tag there: ``_outside_comments``). Bytes kept either way."""
    from gbrain.page.markdown import parse_page

    text = f"# T\n\n{block}\n\n---\n\n- **2025-01-02** | call — [[x]] #t\n".replace("\n", nl)
    p = parse_page(text, "t.md")
    assert p.render() == text
    assert (p.compiled_truth, p.separator, p.timeline, p.timeline_entries) == (text, "", "", [])
    assert p.links == [] and p.inline_tags == []


@pytest.mark.parametrize("block", [
    "%% closed %%",
    "Text %% opened\n\nstill in it %% closed",  # a comment over two blocks, closed above the rule
    "`%%` in code",
    "%%\nblock\n%%",
    "[a %% label](r.md)",  # a link's label opens none (as the page model reads links)
    "```\n%%\n```",
])
def test_a_rule_below_a_closed_or_no_obsidian_comment_is_the_separator(block):
    from gbrain.page.markdown import parse_page

    text = f"# T\n\n{block}\n\n---\n\n- **2025-01-02** | call — x\n"
    p = parse_page(text, "t.md")
    assert p.separator == "---\n" and [e.summary for e in p.timeline_entries] == ["x"], block


def test_a_rule_inside_an_inline_comment_over_blocks_is_not_the_separator():
    """A ``%%`` comment opened in one paragraph and closed in a later one hides the ``---``
    between; the next ``---`` after it is the separator."""
    from gbrain.page.markdown import parse_page

    text = "# T\n\nA %% hidden\n\n---\n\nstill %% shown\n\n---\n\n- **2025-01-02** | call — x\n"
    p = parse_page(text, "t.md")
    assert p.compiled_truth == "# T\n\nA %% hidden\n\n---\n\nstill %% shown\n\n"
    assert [e.summary for e in p.timeline_entries] == ["x"] and p.render() == text


def test_links_inside_an_obsidian_comment_block_are_not_links():
    from gbrain.page.markdown import parse_page

    p = parse_page("[[a]]\n\n%%\n[[hidden]]\n%%\n\n[[b]]\n", "t.md")
    assert [ln.target for ln in p.links] == ["a", "b"]


# ---------------------------------------------------------------------------
# item 10: Obsidian's own folders are not synced by default
# ---------------------------------------------------------------------------


def _vault(root: Path) -> Path:
    for rel, data in {"notes/a.md": b"# A\n", ".obsidian/app.json": b"{}\n", ".obsidian/workspace.json": b'{"x":1}\n',
                      ".trash/old.md": b"# Old\n", "sub/.obsidian/app.json": b"{}\n", "sub/b.md": b"# B\n"}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    return root


def _stored(db: Path) -> list[str]:
    with Brain.open(db) as b:
        return sorted(r[0] for r in b.conn.execute("SELECT path FROM pages UNION ALL SELECT path FROM files"))


@pytest.mark.parametrize("how", ["import", "sync"])
def test_obsidian_and_trash_folders_are_not_synced_by_default(tmp_path, how):
    vault = _vault(tmp_path / "vault")
    db = tmp_path / "brain.db"
    rep = ops.run(how, {"dir": str(vault)}, ops.Context(db=str(db)))
    assert _stored(db) == ["notes/a.md", "sub/b.md"]
    if how == "import":
        reasons = dict(rep["skipped"]) if isinstance(rep["skipped"][0], list) else {s["path"]: s["reason"] for s in rep["skipped"]}
        assert "`!.obsidian/` in .gbrainignore" in reasons[".obsidian/"] and "trash" in reasons[".trash/"]
    # .gbrainignore brings one back, and can still leave out the file that changes on every click
    (vault / ".gbrainignore").write_text("!.obsidian/\n.obsidian/workspace.json\n")
    ops.run(how, {"dir": str(vault)}, ops.Context(db=str(db)))
    assert _stored(db) == [".gbrainignore", ".obsidian/app.json", "notes/a.md", "sub/.obsidian/app.json", "sub/b.md"]


# ---------------------------------------------------------------------------
# item 9: case-only renames are moves; names that are not UTF-8 never stop a run
# ---------------------------------------------------------------------------


def _bad_names(root: Path) -> None:
    """An old zip/Samba tree: a file and a folder whose names are Latin-1 bytes."""
    rb = os.fsencode(root)
    with open(rb + b"/caf\xe9.md", "wb") as f:
        f.write(b"# Cafe\n")
    os.mkdir(rb + b"/d\xff")
    with open(rb + b"/d\xff/x.md", "wb") as f:
        f.write(b"# X\n")


@pytest.mark.parametrize("how", ["import", "sync"])
def test_names_that_are_not_utf8_are_skipped_and_named(tmp_path, how):
    tree = tmp_path / "t"
    (tree / "notes").mkdir(parents=True)
    (tree / "notes" / "ok.md").write_bytes(b"# Ok\n")
    _bad_names(tree)
    _bad_names(tree / "notes")
    db = tmp_path / "brain.db"
    r = gbrain(how, str(tree), "--db", str(db))
    assert r.returncode == 0 and b"Traceback" not in r.stderr, r.stderr
    assert b"names not valid UTF-8 (rename to bring them in): " in r.stdout
    for name in [rb"caf\xe9.md", rb"d\xff/", rb"notes/caf\xe9.md", rb"notes/d\xff/"]:
        assert name in r.stdout, name
    assert _stored(db) == ["notes/ok.md"]
    rep = ops.run(how, {"dir": str(tree)}, ops.Context(db=str(db)))  # again: nothing changes, still named
    assert sorted(s["path"] for s in rep["skipped"]) == ["caf\\xe9.md", "d\\xff/", "notes/caf\\xe9.md", "notes/d\\xff/"]
    assert rep["ok"] and _stored(db) == ["notes/ok.md"]


@pytest.mark.parametrize("how", ["import", "sync"])
def test_the_skipped_line_counts_each_kind_and_json_names_the_kind(tmp_path, how):
    """The report's "Skipped: N (…)" line said "(symlinks, ignored, unreadable)" whatever was
    skipped, e.g. for one name that is not UTF-8; it now counts what was, by kind, and --json's
    entries carry the kind (scan.Why) so a script need not read the wording."""
    tree = tmp_path / "t"
    (tree / "n").mkdir(parents=True)
    (tree / "n" / "ok.md").write_bytes(b"# Ok\n")
    (tree / "n" / "secret.md").write_bytes(b"x\n")
    (tree / ".gbrainignore").write_text("n/secret.md\n")
    os.symlink("n/ok.md", tree / "link.md")
    os.symlink("n/ok.md", tree / "link2.md")
    with open(os.fsencode(tree) + b"/caf\xe9.md", "wb") as f:
        f.write(b"# Cafe\n")
    db = tmp_path / "brain.db"
    r = gbrain(how, str(tree), "--db", str(db))
    assert r.returncode == 0, r.stderr
    assert b"Not read in the folder: 4 (2 symlinks, 1 ignored, 1 name not UTF-8)\n" in r.stdout, r.stdout
    r = gbrain(how, str(tree), "--db", str(db), "--json")
    rep = json.loads(r.stdout)
    assert {s["path"]: s["kind"] for s in rep["skipped"]} == {"link.md": "symlink", "link2.md": "symlink", "n/secret.md": "ignored", "caf\\xe9.md": "bad-name"}


@pytest.mark.parametrize("how", ["import", "sync"])
def test_a_pipe_or_socket_is_counted_as_a_special_file_not_as_unreadable(tmp_path, how):
    """A FIFO and a Unix socket in the folder were listed "not a regular file" but counted
    "Skipped: 2 (2 unreadable)" (trial19): nothing failed to read them, they are never read.
    Counted as special files now (--json: kind ``not-regular``); still left alone, exit 0."""
    import socket

    tree = tmp_path / "t"
    tree.mkdir()
    (tree / "ok.md").write_bytes(b"# Ok\n")
    os.mkfifo(tree / "pipe.md")
    s = socket.socket(socket.AF_UNIX)
    try:
        s.bind(str(tree / "sock"))
        db = tmp_path / "brain.db"
        r = gbrain(how, str(tree), "--db", str(db))
        assert r.returncode == 0, r.stderr
        assert b"Not read in the folder: 2 (2 special files)\n" in r.stdout, r.stdout
        assert b"  pipe.md: not a regular file\n" in r.stdout
        rep = json.loads(gbrain(how, str(tree), "--db", str(db), "--json").stdout)
        assert {x["path"]: x["kind"] for x in rep["skipped"]} == {"pipe.md": "not-regular", "sock": "not-regular"}
        assert rep["skipped_kinds"] == {"not-regular": 2}
    finally:
        s.close()


def test_watch_skips_a_name_that_is_not_utf8_and_goes_on(tmp_path):
    from test_watch import Watch, wait_for

    tree = tmp_path / "t"
    tree.mkdir()
    (tree / "a.md").write_bytes(b"# A\n")
    db = tmp_path / "brain.db"
    w = Watch(tree, db)
    try:
        _bad_names(tree)
        (tree / "b.md").write_bytes(b"# B\n")
        with Brain.open(db) as b:
            wait_for(lambda: b.page_row("b"), "the good file after the bad names")
            (tree / "a.md").write_bytes(b"# A2\n")
            wait_for(lambda: b.get_text("a") == "# A2\n", "an edit after the bad names")
            assert w.p.poll() is None and not w.saw("Traceback")
            assert w.saw("! skipped caf\\xe9.md: name is not valid UTF-8") and w.saw("! skipped d\\xff/: name is not valid UTF-8")
            assert sorted(r[0] for r in b.conn.execute("SELECT path FROM pages UNION ALL SELECT path FROM files")) == ["a.md", "b.md"]
        code, _ = w.stop()
        assert code == 0, w.lines
    finally:
        w.kill()


def test_case_only_rename_on_a_case_insensitive_disk_is_a_move(tmp_path, monkeypatch):
    """macOS and Windows find `Note.md` after it was renamed `note.md`; sync trusts the folder
    listing's spelling, so the rename is a move (same page id, tags, backlinks), not a copy."""
    tree = tmp_path / "v"
    tree.mkdir()
    (tree / "Note.md").write_bytes(b"# Note\n\nhello\n")
    (tree / "other.md").write_bytes(b"see [[Note]]\n")
    db = tmp_path / "brain.db"
    ctx = ops.Context(db=str(db))
    ops.run("sync", {"dir": str(tree)}, ctx)
    ops.run("tag", {"slug": "Note", "tag": "keep"}, ctx)
    ops.run("sync", {"dir": str(tree)}, ctx)
    with Brain.open(db) as b:
        pid = b.page_row("Note")["id"]
    os.rename(tree / "Note.md", tree / "note.md")

    def ci(path):  # resolve a name case-insensitively, as APFS/NTFS do
        d, n = os.path.split(os.fspath(path))
        try:
            return next((os.path.join(d, x) for x in os.listdir(d) if x.lower() == n.lower()), path)
        except OSError:
            return path

    for fn in ("lstat", "stat"):
        real = getattr(os, fn)
        monkeypatch.setattr(os, fn, lambda p, *a, _real=real, **k: _real(ci(p), *a, **k))
    assert os.path.exists(tree / "Note.md")  # the emulation holds
    rep = ops.run("sync", {"dir": str(tree)}, ctx)
    assert rep["ok"]
    with Brain.open(db) as b:
        assert [r[0] for r in b.conn.execute("SELECT slug FROM pages ORDER BY slug")] == ["note", "other"]
        assert b.page_row("note")["id"] == pid and b.tags("note") == ["keep"]
        assert [x["slug"] for x in b.backlinks("note")] == ["other"]
    assert sorted(os.listdir(tree)) == ["note.md", "other.md"]


def test_mcp_names_every_page_as_tool_and_resource(tmp_path):
    """Over the official MCP client: brain_get and brain://pages/… reach `notes/Draft plan `,
    `1: Weekly plan` and `Q: open questions`; `..` and absolute paths stay refused."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client
    from urllib.parse import quote
    import sys

    tree = case_tree(tmp_path, "name-colon")
    shutil.copytree(CASES / "name-trailing-space" / "input" / "notes", tree / "notes")
    db = tmp_path / "brain.db"
    with Brain.open(db) as b:
        import_tree(b, tree)
    names = ["notes/Draft plan ", "1: Weekly plan", "Q: open questions"]

    async def go():
        params = StdioServerParameters(command=sys.executable, args=["-m", "gbrain", "serve", "--db", str(db)], env=dict(os.environ))
        async with stdio_client(params) as (r, w), ClientSession(r, w) as c:
            await c.initialize()
            out = []
            for n in names:
                res = await c.call_tool("brain_get", {"slug": n})
                out.append(json.loads(res.content[0].text)["content"])
                out.append((await c.read_resource("brain://pages/" + quote(n))).contents[0].text)
            bad = []
            for n in ["../etc/passwd", "%2Fetc%2Fpasswd"]:
                try:
                    await c.read_resource("brain://pages/" + n)
                    bad.append(n)
                except Exception:
                    pass
            return out, bad

    out, bad = asyncio.run(go())
    want = [(tree / f"{n}.md").read_text() for n in names]
    assert out == [x for w in want for x in (w, w)] and bad == []
