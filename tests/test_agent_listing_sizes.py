"""What an agent's listing costs (trial 48): `brain_changes` without `limit` answered 100 rows of
~290 B (28,768 B, the day's import), each repeating its name as its path and its origin as
surface/operation/client; `brain_tags {}` 200 rows (12,858 B), each repeating its tag in
`spellings`. An agent's (MCP, call, pipe) `changes` takes 20 by default and says the list goes on
(`next_cursor` and a `note`); its rows leave out what `origin` and `name` already say; `tags` pages
by 100, `spellings` only where there are several. The CLI's answers are unchanged. Both engines."""
from __future__ import annotations

import json

from gbrain import operations as ops
from gbrain.core.brain import Brain

from conftest import gbrain_in_process


def _brain(db_path, n=30):
    b = Brain.open(db_path, create=True)
    for i in range(n):
        b.put(f"notes/n{i:02}", f"---\ntags: [t{i:03}, shared]\n---\n# N{i}\n")
    b.put("notes/n00", "---\ntags: [t000, Shared]\n---\n# N0\n")
    return b


def test_an_agents_changes_are_20_compact_rows_and_say_there_are_more(db_path):
    with _brain(db_path) as b:
        r = ops.run_tool("changes", {}, ops.Context(surface="mcp"), brain=b)
        assert len(r["items"]) == 20 and r["next_cursor"], r
        assert "`limit`" in r["note"] and "next_cursor" in r["note"], r
        row = r["items"][0]
        assert row["name"] == "notes/n00" and row["origin"] and "path" not in row, row
        assert not {"surface", "operation", "client"} & set(row), row
        r2 = ops.run_tool("changes", {"cursor": r["next_cursor"]}, ops.Context(surface="mcp"), brain=b)
        assert len(r2["items"]) == 11 and r2["next_cursor"] is None, r2
        r = ops.run_tool("changes", {"limit": 25}, ops.Context(surface="mcp"), brain=b)
        assert len(r["items"]) == 25 and "note" not in r, r  # a limit asked for: next_cursor says the rest
        r = ops.run_tool("changes", {"limit": 0}, ops.Context(surface="mcp"), brain=b)
        assert len(r["items"]) == 31 and r["next_cursor"] is None
        # the CLI: 100 by default, every field
        full = ops.run("changes", {}, ops.Context(), brain=b)
        assert len(full) == 31 and full[0]["surface"] and full[0]["path"] == "notes/n00.md"


def test_an_agents_tags_page_by_100_with_spellings_only_where_several(db_path):
    with _brain(db_path, n=120) as b:
        r = ops.run_tool("tags", {}, ops.Context(surface="mcp"), brain=b)
        assert len(r["items"]) == 100 and r["next_cursor"], len(r["items"])
        assert r["items"][0] == {"tag": "shared", "pages": 120, "spellings": {"shared": 119, "Shared": 1}}, r["items"][0]
        assert r["items"][1] == {"tag": "t000", "pages": 1}, r["items"][1]
        cli = ops.run("tags", {}, ops.Context(), brain=b)
        assert cli[1] == {"tag": "t000", "pages": 1, "spellings": {"t000": 1}}
    p = gbrain_in_process("--db", str(db_path), "call", "changes", "{}")
    assert p.returncode == 0, p.stderr
    rows = json.loads(p.stdout)
    assert "path" not in rows[0] and "surface" not in rows[0], p.stdout[:300]  # `call`: compact rows (its limit stays 100, said on stderr)
