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


def test_changes_until_a_month_or_a_year_takes_the_whole_of_it(db_path):
    """`changes --until 2026-12` was the start of 1 December (December's changes left out) while
    `timeline --until 2026-12` takes every entry of December: a month or a year as an upper bound
    is through its end, on the CLI, call and MCP alike (a date stays `before` it: until today is
    yesterday's changes)."""
    from gbrain.operations.registry import _since

    assert _since("2026-12", "until", end=True) == "2027-01-01" and _since("2026", "until", end=True) == "2027-01-01"
    assert _since("2026-11", "until", end=True) == "2026-12-01" and _since("2026-12-05", "until", end=True) == "2026-12-05"
    with Brain.open(db_path, create=True) as b:
        for slug, at in (("dec/a", "2026-12-31T23:59:59Z"), ("dec/b", "2026-12-01T00:00:00Z"), ("nov/c", "2026-11-30T12:00:00Z"),
                         ("jan/d", "2027-01-01T00:00:00Z")):
            b.put(slug, f"# {slug}\n")
            with b.transaction():
                b.conn.execute("UPDATE history SET at = ? WHERE name = ?", (at, slug))

        def names(**a):
            return sorted(c["name"] for c in ops.run("changes", {"since": "2000", "limit": 0, **a}, brain=b))

        assert names(until="2026-12") == ["dec/a", "dec/b", "nov/c"]
        assert names(until="2026") == ["dec/a", "dec/b", "nov/c"]
        assert names(since="2026-12", until="2026-12") == ["dec/a", "dec/b"]
        assert names(until="2026-11") == ["nov/c"]
        assert names(until="2026-12-01") == ["nov/c"]  # a date: before it, as documented
        r = ops.run_tool("changes", {"since": "2026-12", "until": "2026-12"}, ops.Context(surface="mcp"), brain=b)
        assert sorted(c["name"] for c in r["items"]) == ["dec/a", "dec/b"], r
    p = gbrain_in_process("--db", str(db_path), "--json", "changes", "--since", "2026", "--until", "2026-12")
    assert p.returncode == 0, p.stderr
    assert sorted(c["name"] for c in json.loads(p.stdout)) == ["dec/a", "dec/b", "nov/c"]
    p = gbrain_in_process("--db", str(db_path), "call", "changes", json.dumps({"since": "2026", "until": "2026"}))
    assert p.returncode == 0, p.stderr
    assert sorted(c["name"] for c in json.loads(p.stdout)) == ["dec/a", "dec/b", "nov/c"]
    p = gbrain_in_process("--db", str(db_path), "changes", "--until", "2026-13")
    assert p.returncode == 2 and b"--until" in p.stderr, p.stderr


def test_changes_until_before_since_says_so(db_path):
    """`changes --until 2026-11` (before the default `--since 24h` window starts) said only "no
    changes since 24h until 2026-11": an empty window is said, with the --since to add, on the
    CLI (stderr), `call` and MCP (`warnings`)."""
    with Brain.open(db_path, create=True) as b:
        b.put("nov/c", "# c\n")
        with b.transaction():
            b.conn.execute("UPDATE history SET at = ? WHERE name = ?", ("2026-11-30T12:00:00Z", "nov/c"))
        r = ops.run_tool("changes", {"until": "2026-11"}, ops.Context(surface="mcp", on_warning=(said := []).append), brain=b)
        assert r["items"] == [] and len(said) == 1 and "until 2026-11 is before since 24h (the default)" in said[0], said
        assert "since 2026-11" in said[0] and "--" not in said[0], said
        said.clear()  # a window that holds time: nothing said
        ops.run_tool("changes", {"since": "2026-11", "until": "2026-11"}, ops.Context(surface="mcp", on_warning=said.append), brain=b)
        assert said == []
    p = gbrain_in_process("--db", str(db_path), "changes", "--until", "2026-11")
    assert p.returncode == 0 and b"--until 2026-11 is before --since 24h (the default)" in p.stderr and b"--since 2026-11" in p.stderr, p.stderr
    p = gbrain_in_process("--db", str(db_path), "changes", "--since", "2026-12-05", "--until", "2026-12-05")
    assert p.returncode == 0 and b"--until 2026-12-05 is not after --since 2026-12-05" in p.stderr, p.stderr
    p = gbrain_in_process("--db", str(db_path), "changes", "--since", "2026-11", "--until", "2026-11")
    assert p.returncode == 0 and b"nov/c" in p.stdout and b"before" not in p.stderr, p


@pytest.mark.engine_free
def test_a_month_or_a_year_is_read_once_for_since_and_for_timeline():
    """`since`/`until` (an instant) and timeline's bounds (a date's text) read a month or a year
    by one function (`registry.month_or_year`): the same texts taken, the same months refused,
    digits ASCII only (`--since ٢٠٢٦` gave search a bound no time matches; timeline refused it)."""
    from gbrain.operations.core import _date_bound
    from gbrain.operations.registry import _since, month_or_year

    assert [month_or_year(s) for s in ("2026", "2026-12", "2026-1", "20261", "٢٠٢٦", "2026-12-05")] == [(2026, None), (2026, 12), None, None, None, None]
    for bad in ("2026-13", "2026-00"):
        with pytest.raises(ValueError):
            month_or_year(bad)
        with pytest.raises(BadInput, match="no month"):
            _since(bad)
        with pytest.raises(BadInput, match="not a real date"):
            _date_bound(bad, "since")
    assert [_since(s, "until", end=True) for s in ("2026", "2026-11", "2026-12", "9999", "9999-12")] == [
        "2027-01-01", "2026-12-01", "2027-01-01", "9999-12-31T99", "9999-12-31T99"]
    assert [_since(s) for s in ("2026", "2026-03", " 0001-01 ")] == ["2026-01-01", "2026-03-01", "0001-01-01"]
    assert [_date_bound(s, "since") for s in ("2026", "2026-03", "2026-03-04")] == ["2026-00-00", "2026-03-00", "2026-03-04"]
    assert [_date_bound(s, "until", end=True) for s in ("2026", "2026-03", "2026-03-04")] == ["2026-99-99", "2026-03-99", "2026-03-04"]
    for other in ("٢٠٢٦", "٢٠٢٦-١٢", "２０２６"):
        with pytest.raises(BadInput, match="since must be a span"):
            _since(other)
        with pytest.raises(BadInput, match="until must be a span"):
            _since(other, "until", end=True)
        with pytest.raises(BadInput, match="since must be a date"):
            _date_bound(other, "since")
