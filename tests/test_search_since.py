"""search's `since` (trial 48: `brain_search {"query": "utilities", "since": "1d"}` was an unknown
parameter, though brain_list has it): only pages updated since then, applied inside the ranking
before the limit, as type/tag/prefix are (storage/filters.PageFilter). Both engines."""
from __future__ import annotations

import json

import pytest

from gbrain import operations as ops
from gbrain.core.brain import Brain
from gbrain.errors import BadInput

from conftest import gbrain_in_process


def _brain(db_path) -> Brain:
    b = Brain.open(db_path, create=True)
    for i in range(30):
        b.put(f"old/u{i:02}", f"# Utilities {i}\n\nutilities utilities pilot\n")
    b.put("new/pilot", "# Pilot\n\nA pilot with two utilities.\n")
    with b.transaction():
        b.conn.execute("UPDATE pages SET updated_at = '2020-01-01T00:00:00Z' WHERE slug LIKE 'old/%'")
    return b


def test_search_since_keeps_only_pages_updated_since(db_path):
    with _brain(db_path) as b:
        hits = ops.run("search", {"query": "utilities", "limit": 5}, brain=b)
        assert "new/pilot" not in [h["slug"] for h in hits]  # the old pages rank higher
        hits = ops.run("search", {"query": "utilities", "limit": 5, "since": "1d"}, brain=b)
        assert [h["slug"] for h in hits] == ["new/pilot"], hits
        hits = ops.run("search", {"query": "utilities", "since": "2019-06-01", "prefix": "old/", "limit": 50}, brain=b)
        assert len(hits) == 30
        assert ops.run("search", {"query": "utilities", "since": "2030-01-01"}, brain=b) == []
        with pytest.raises(BadInput, match="since"):
            ops.run("search", {"query": "utilities", "since": "last week"}, brain=b)
        r = ops.run_tool("search", {"query": "utilities", "since": "24h"}, ops.Context(surface="mcp"), brain=b)
        assert [h["slug"] for h in r["items"]] == ["new/pilot"]
    p = gbrain_in_process("--db", str(db_path), "--json", "search", "utilities", "--since", "7d")
    assert p.returncode == 0, p.stderr
    assert [h["slug"] for h in json.loads(p.stdout)] == ["new/pilot"]


@pytest.mark.parametrize("mode", ["hybrid", "vector", "keyword"])
def test_query_since_filters_both_sides_before_the_limit(db_path, mode):
    """brain_query's `since` (review: search had it, query not): a PageFilter condition on the
    keyword and the vector side alike, so the new page comes back though 30 older ones rank higher."""
    with _brain(db_path) as b:
        b.set_config("embedding_model", "fake-16")
        assert ops.run("embed", {}, brain=b)["pages"] == 31
        r = ops.run("query", {"question": "utilities", "limit": 3, "mode": mode}, brain=b)
        assert "new/pilot" not in [h["slug"] for h in r["items"]]
        r = ops.run("query", {"question": "utilities", "limit": 3, "mode": mode, "since": "1d"}, brain=b)
        assert [h["slug"] for h in r["items"]] == ["new/pilot"], r
        r = ops.run_tool("query", {"question": "utilities", "limit": 3, "mode": mode, "since": "24h"}, ops.Context(surface="mcp"), brain=b)
        assert [h["slug"] for h in r["items"]] == ["new/pilot"], r
        r = ops.run("query", {"question": "utilities", "mode": mode, "since": "2019-06-01", "prefix": "old/", "limit": 50}, brain=b)
        assert len(r["items"]) == 30
        with pytest.raises(BadInput, match="since"):
            ops.run("query", {"question": "utilities", "since": "last week"}, brain=b)
    p = gbrain_in_process("--db", str(db_path), "--json", "query", "utilities", "--since", "7d", "--mode", mode)
    assert p.returncode == 0, p.stderr
    assert [h["slug"] for h in json.loads(p.stdout)["items"]] == ["new/pilot"]


def test_since_takes_a_month_or_a_year_as_timeline_does(db_path):
    """`--since 2026-12` (a month) was refused by search/query/list while `timeline --since` takes
    it: a month is its first day, a year its 1 January (UTC), on every surface; an impossible
    month is still exit 2."""
    import datetime as dt

    from gbrain.operations.registry import _since

    assert _since("2026-12") == "2026-12-01" and _since("2026") == "2026-01-01"
    for bad in ("2026-13", "2026-00", "12-2026"):
        with pytest.raises(BadInput, match="since"):
            _since(bad)
    month = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m")
    with _brain(db_path) as b:
        b.set_config("embedding_model", "fake-16")
        ops.run("embed", {}, brain=b)
        for op, q in (("search", "query"), ("query", "question")):
            r = ops.run_tool(op, {q: "utilities", "limit": 3, "since": month}, ops.Context(surface="mcp"), brain=b)
            assert [h["slug"] for h in r["items"]] == ["new/pilot"], (op, r)
            with pytest.raises(BadInput, match="no month"):
                ops.run_tool(op, {q: "utilities", "since": "2026-13"}, ops.Context(surface="mcp"), brain=b)
        assert len(ops.run("list", {"since": "2019", "limit": 100}, brain=b)) == 31
    p = gbrain_in_process("--db", str(db_path), "--json", "search", "utilities", "--since", month)
    assert p.returncode == 0, p.stderr
    assert [h["slug"] for h in json.loads(p.stdout)] == ["new/pilot"]
    p = gbrain_in_process("--db", str(db_path), "call", "query", json.dumps({"question": "utilities", "limit": 3, "since": month}))
    assert p.returncode == 0, p.stderr
    assert [h["slug"] for h in json.loads(p.stdout)["items"]] == ["new/pilot"]
    p = gbrain_in_process("--db", str(db_path), "search", "utilities", "--since", "2026-13")
    assert p.returncode == 2 and b"since" in p.stderr
