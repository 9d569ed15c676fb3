"""What an agent over MCP met in the agent-workflow trial (trial9): one refusal with two error
kinds, and `brain_changes` items it could not group by type without a read per page. In-process
through the operations, as the MCP server calls them (``surface="mcp"``); both engines."""
from __future__ import annotations

import pytest

from gbrain import operations as ops
from gbrain.core.brain import Brain
from gbrain.errors import GBrainError, error_fields

BAD_YAML = "---\ntitle: Ana\ntags: [unclosed\n---\n\n# Ana\n\nbody\n"


def _error(name: str, args: dict, db) -> dict:
    with pytest.raises(GBrainError) as e:
        ops.run_tool(name, args, ops.Context(db=str(db), surface="mcp"))
    return error_fields(e.value)


def test_a_page_whose_frontmatter_does_not_load_refuses_every_frontmatter_edit_with_one_kind(db_path):
    """brain_tag refused it with kind `conflict`, brain_put {frontmatter} with kind `error`, the
    same text: an agent branching on `kind` took them for two different failures. Both are the
    page's present state refusing the write (as a sidecar that is not JSON refuses raw_put):
    `conflict`, and nothing is written."""
    with Brain.open(db_path, create=True) as b:
        b.put("people/ana", BAD_YAML)
        before = b.page_row("people/ana")["content_hash"]
    calls = [
        ("tag", {"slug": "people/ana", "tag": "x"}),
        ("put", {"slug": "people/ana", "frontmatter": {"title": "Ana Lima"}}),
    ]
    got = {}
    for name, args in calls:
        err = _error(name, args, db_path)
        assert "fix the YAML by hand first" in err["error"], (name, err)
        got[name] = err["kind"]
    assert got == {"tag": "conflict", "put": "conflict"}
    with Brain.open(db_path) as b:
        assert b.page_row("people/ana")["content_hash"] == before


def test_changes_items_carry_the_page_type_for_grouping_without_a_read_per_page(db_path):
    """The briefing skill groups the day's changes by type; `brain_changes` items had `name` and
    `path` only, so the agent read every page (or listed them) to learn it. Each item has `type`:
    the type of the page that has the name now; null for a non-page file and for a name no page
    has now (deleted)."""
    with Brain.open(db_path, create=True) as b:
        b.put("people/ana", "---\ntype: person\n---\n\n# Ana\n")
        b.put("companies/acme", "---\ntype: company\n---\n\n# Acme\n")
        b.put("notes/gone", "# Gone\n")
        b.delete_page("notes/gone")
        b.save_file("files/a.bin", b"\x00\x01")
        plain = b.page_row("companies/acme")["type"]
    assert plain == "company"
    r = ops.run_tool("changes", {"since": "1h"}, ops.Context(db=str(db_path), surface="mcp"))
    got = {(c["kind"], c["name"], c["op"]): c["type"] for c in r["items"]}
    assert got[("page", "people/ana", "create")] == "person"
    assert got[("page", "companies/acme", "create")] == "company"
    assert got[("page", "notes/gone", "create")] is None and got[("page", "notes/gone", "delete")] is None
    assert got[("file", "files/a.bin", "create")] is None
    assert all("type" in c for c in r["items"])
    # the output schema says so (hosts validate structuredContent against it), and the items conform
    jsonschema = pytest.importorskip("jsonschema")
    schema = ops.REGISTRY["changes"].output_schema()
    assert schema["properties"]["items"]["items"]["properties"]["type"] == {"type": ["string", "null"]}
    jsonschema.validate(r, schema)


def test_changes_text_shows_each_items_type_where_it_has_one(db_path):
    """`gbrain changes` (not --json) left out the `type` the JSON items carry: a person reading
    the day's changes could not see which were people and which companies. The text shows it
    beside the name, `(person)`; an item without one (a file, a name no page has now) shows none."""
    from conftest import gbrain_in_process

    with Brain.open(db_path, create=True) as b:
        b.put("people/ana", "---\ntype: person\n---\n\n# Ana\n")
        b.put("notes/gone", "# Gone\n")
        b.delete_page("notes/gone")
        b.save_file("files/a.bin", b"\x00\x01")
    p = gbrain_in_process("--db", str(db_path), "changes", "--since", "1h")
    assert p.returncode == 0, p
    lines = p.stdout.decode().splitlines()
    ana = [ln for ln in lines if "people/ana" in ln]
    assert len(ana) == 1 and "  people/ana (person)  v1 create" in ana[0], lines
    assert all("(" not in ln.split("  v")[0] for ln in lines if "notes/gone" in ln or "files/a.bin" in ln), lines
    assert len([ln for ln in lines if "notes/gone" in ln]) == 2, lines


@pytest.mark.parametrize("name, args, hidden", [
    ("lint", {"nonsense": 1}, {"fix_safe", "dry_run"}),
    ("ingest", {"content": "x", "sourcetype": "meeting"}, {"file"}),
])
def test_an_unknown_parameter_error_lists_only_what_the_tool_takes(name, args, hidden, db_path):
    """trial18: `brain_lint {"nonsense": 1}` answered "expected check, …, fix_safe, dry_run,
    cursor": the agent that then sent `fix_safe` was refused (brain_lint_fix does that), because
    the list named the command line's own options. Over MCP the expected names are the tool's
    schema, and a near name is suggested from it."""
    Brain.open(db_path, create=True).close()
    err = _error(name, args, db_path)
    props = set(ops.find(name).input_schema()["properties"])
    expected = err["error"].split("expected ", 1)[1]
    named = {w.strip(" ,;.") for w in expected.split(";")[0].split(",")}
    assert named <= props | {"cursor"}, (named - props, err["error"])
    assert not named & hidden, err["error"]
