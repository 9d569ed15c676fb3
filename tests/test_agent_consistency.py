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
