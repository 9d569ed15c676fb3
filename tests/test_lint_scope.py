"""gbrain lint narrowed to some pages (``slug``, ``since``), on a make_brain brain.

Two trial users ran the skills' "lint the pages you touched" step on a brain of a few thousand
pages: the lint listed its first 20 findings of 1,200 (civic/* pages) and never the pages they
had just edited. ``slug`` (pages, a list, a folder) and ``since`` select pages before the limit.
"""
from __future__ import annotations

import json

import pytest

from gbrain import operations as ops
from gbrain.core.brain import Brain
from gbrain.sync.importer import import_tree

from conftest import make_brain

CHECKS = "stale_compiled_truth,open_threads,dead_links,conflicts"


@pytest.fixture
def made(tmp_path, db_path):
    """A 300-page make_brain brain whose pages were all last written long ago (an old import)."""
    tree = make_brain(tmp_path / "tree", 300)
    with Brain.open(db_path, create=True) as b:
        assert import_tree(b, tree)["ok"]
        with b.transaction():
            b.conn.execute("UPDATE pages SET updated_at = '2024-01-01T00:00:00Z'")
        people = [s for (s,) in b.conn.execute("SELECT slug FROM pages WHERE slug LIKE 'people/%' ORDER BY slug")]
    return db_path, people


def _lint(db, *args):
    from conftest import gbrain

    p = gbrain("lint", "--json", "--check", CHECKS, "--limit", "5", *args, "--db", str(db))
    assert p.returncode in (0, 1), p.stderr
    return json.loads(p.stdout)


def test_lint_of_the_pages_just_touched_lists_them_before_the_limit(made):
    db, people = made
    from conftest import gbrain

    before = ops.run("lint", {"check": CHECKS, "limit": 0}, ops.Context(db=str(db)))
    flagged = {f["slug"] for f in before["items"]}
    with Brain.open(db) as br:  # a: a dated page the lint finds nothing on yet; b: another page
        dated = {s for (s,) in br.conn.execute("SELECT slug FROM pages WHERE frontmatter LIKE '%\"created\"%'")}
    a = next(s for s in people if s in dated and s not in flagged)
    b = next(s for s in people if s != a and s not in flagged)

    # the agent's edits: a newer timeline entry (stale compiled truth) and a dead link
    assert gbrain("timeline-add", a, "--date", "2026-11-30", "--summary", "met again", "--db", str(db)).returncode == 0
    with Brain.open(db) as br:
        text = br.get_text(b)
    new = text.replace("\n---\n\n## Timeline", "\nSee [[No Such Page Zq]].\n\n---\n\n## Timeline", 1)
    assert new != text
    assert gbrain("put", b, "--db", str(db), input=new).returncode == 0

    whole = _lint(db)
    assert whole["selected"] is None
    assert whole["counts"]["stale_compiled_truth"] > 50  # the first 5 of many: not the touched pages
    assert a not in {f["slug"] for f in whole["items"]}

    for args in (["--slug", f"{a},{b}"], ["--since", "24h"]):
        r = _lint(db, *args)
        assert r["selected"] == 2, args
        got = {(f["check"], f["slug"]) for f in r["items"]}
        assert ("stale_compiled_truth", a) in got and ("dead_links", b) in got, args
        assert {s for _c, s in got} <= {a, b}
        assert r["counts"]["dead_links"] == 1 and r["truncated"] == {}

    # a folder, a list over call/MCP, an ISO date; an unknown page is an error, not an empty lint
    r = _lint(db, "--slug", "people/")
    assert r["selected"] == len(people) and {f["slug"] for f in r["items"]} <= set(people)
    assert r["counts"]["dead_links"] == 1
    r = ops.run("lint", {"check": CHECKS, "slug": [a]}, ops.Context(db=str(db), surface="call"))
    assert {f["slug"] for f in r["items"]} == {a} and r["selected"] == 1
    r = ops.run("lint", {"check": CHECKS, "slug": "people", "since": "2025-06-01"}, ops.Context(db=str(db)))
    assert r["selected"] == 2
    with pytest.raises(ops.NotFound):
        ops.run("lint", {"slug": ["people/nobody-zq"]}, ops.Context(db=str(db)))


def test_fix_safe_narrowed_fixes_only_the_selected_pages(tmp_path, db_path):
    """``--fix-safe --slug X`` renames tag spellings in X only, not across the brain."""
    tree = tmp_path / "t"
    (tree / "p").mkdir(parents=True)
    for n, tag in (("a", "yc-alum"), ("b", "yc_alum"), ("c", "YC Alum"), ("d", "yc-alum")):
        (tree / "p" / f"{n}.md").write_text(f"---\ntitle: {n}\ntags: [{tag}]\n---\n\nText [[p/a]].\n")
    with Brain.open(db_path, create=True) as b:
        assert import_tree(b, tree)["ok"]
        r = ops.run("lint", {"check": "tag_duplicates", "fix_safe": True, "slug": "p/b"}, brain=b)
        assert [f["slug"] for f in r["fixed"]] == ["p/b"]
        assert "yc_alum" not in b.get_text("p/b") and "YC Alum" in b.get_text("p/c")


def test_read_only_server_lints_and_fixing_is_a_tool_of_its_own(tmp_path, db_path):
    """`serve --read-only` used to drop brain_lint (it was marked mutating for its fix_safe), and a
    full server marked it readOnlyHint false even for a plain lint. Now brain_lint changes nothing
    and is served read-only; brain_lint_fix writes; `gbrain lint --fix-safe` still fixes; advice
    naming `gbrain lint --fix-safe` reads as a brain_lint_fix call for agents."""
    import anyio

    from conftest import gbrain
    from gbrain.operations.registry import tool_text
    from test_mcp import connect, ok, text_of

    tree = tmp_path / "t"
    (tree / "p").mkdir(parents=True)
    for n, tag in (("a", "yc-alum"), ("b", "yc_alum"), ("c", "yc-alum")):
        (tree / "p" / f"{n}.md").write_text(f"---\ntitle: {n}\ntags: [{tag}]\n---\n\nText [[p/a]] [[p/c]] [[Gone Zq]].\n")
    with Brain.open(db_path, create=True) as b:
        assert import_tree(b, tree)["ok"]

    async def main(extra):
        async with connect(db_path, extra=extra) as c:
            tools = {t.name: t for t in (await c.list_tools()).tools}
            out = {"lint": await c.call_tool("brain_lint", {"check": "dead_links,tag_duplicates", "slug": ["p/b"]}),
                   "fix_safe": await c.call_tool("brain_lint", {"fix_safe": True})}
            if "brain_lint_fix" in tools:
                out["fix"] = await c.call_tool("brain_lint_fix", {"check": "tag_duplicates", "dry_run": True})
            return tools, out

    tools, out = anyio.run(main, ["--read-only"])
    assert "brain_lint" in tools and "brain_lint_fix" not in tools
    assert tools["brain_lint"].annotations.read_only_hint is True
    r = ok(out["lint"])
    assert {(f["check"], f["slug"]) for f in r["items"]} == {("dead_links", "p/b"), ("tag_duplicates", None)} and r["fixed"] == []
    assert out["fix_safe"].is_error and "brain_lint_fix" in text_of(out["fix_safe"])

    tools, out = anyio.run(main, [])
    assert tools["brain_lint_fix"].annotations.read_only_hint is False and tools["brain_lint"].annotations.read_only_hint is True
    assert "fix_safe" not in tools["brain_lint"].input_schema["properties"]
    assert [f["slug"] for f in ok(out["fix"])["fixed"]] == ["p/b"]  # a dry run
    assert "`brain_lint_fix`" in tool_text("`gbrain lint --fix-safe` renames them to 'yc-alum'")

    p = gbrain("lint", "--fix-safe", "--check", "tag_duplicates", "--db", str(db_path))
    assert p.returncode == 0 and b"fixed p/b" in p.stdout, p.stdout
    with Brain.open(db_path) as b:
        assert "yc_alum" not in b.get_text("p/b")


@pytest.mark.engine_free
def test_lint_help_names_every_check():
    # trial 42: `gbrain lint --help`'s list of what each check finds left out portable_names
    from gbrain.core import lint as lintmod
    details = ops.find("lint").details
    assert [c for c in lintmod.CHECKS if c not in details] == []
