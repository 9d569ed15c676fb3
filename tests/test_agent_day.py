"""What an MCP agent is told while it runs a founder's brain under `watch` (trial9, "the agent's day").

Advice in a result is worded for the command line where it is made and translated for an agent
by `registry.tool_text` on the way out (`ADVICE_KEYS`); a key left out of that set reaches the
agent as `gbrain …` commands it has no way to run.
"""
from __future__ import annotations

from gbrain import operations as ops
from gbrain.core.brain import Brain
from gbrain.storage.origin import origin


def test_undo_tells_an_agent_the_tool_calls_for_a_page_it_skips(fixture_db):
    """`brain_undo {"since": "1h", "origin": "mcp"}` skips a page the person saved since the
    agent's write ("written again since by another origin"), and its reason named
    `gbrain history SLUG` and `gbrain revert SLUG --to N` to the agent: the plan's `reason` was
    not among the keys translated into tool calls."""
    with Brain.open(fixture_db) as b:
        text = b.get_text("people/ana-lima")
        with origin(surface="mcp", operation="put"):
            b.put("people/ana-lima", text + "\nAn agent's line.\n")
        with origin(surface="watch", operation="file changed"):
            b.put("people/ana-lima", text + "\nAn agent's line.\nThe person's line.\n")
        r = ops.run_tool("undo", {"since": "1h", "origin": "mcp"}, ops.Context(surface="mcp"), brain=b)
        cli = ops.run("undo", {"since": "1h", "origin": "mcp"}, brain=b)
    [item] = [i for i in r["plan"] if i["name"] == "people/ana-lima"]
    assert item["action"] == "skip" and "gbrain " not in item["reason"], item
    assert '`brain_history {"slug": "people/ana-lima"}`' in item["reason"] and '`brain_revert {"slug": "people/ana-lima", "to": N}`' in item["reason"]
    [cli_item] = [i for i in cli["plan"] if i["name"] == "people/ana-lima"]
    assert "`gbrain history people/ana-lima`" in cli_item["reason"]  # the command line keeps its commands
