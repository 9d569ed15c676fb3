"""Paging through a ranked list (search, query) gives every hit once, in one ranking.

Keyword search re-scores its best BM25 candidates; a deeper ask (a larger limit) re-scores
more of them and may reorder the top. Paging used to ask for ``offset + limit + 1`` hits on
each page, so every page came from another ranking: an agent following ``next_cursor`` saw
some pages twice and never saw others (551 hits, 510 distinct on a 600-page brain).
"""
from __future__ import annotations

import pytest

from conftest import make_brain
from gbrain import operations as ops
from gbrain.core.brain import Brain
from gbrain.operations.registry import RANK_DEPTH
from gbrain.sync.importer import import_tree

QUERIES = ["robotics sync", "meeting", "climate health"]


@pytest.fixture(scope="module")
def ranked_brain(tmp_path_factory, request):
    """A 400-page make_brain brain (SQLite, or a new Postgres database with --engine postgres)."""
    tree = make_brain(tmp_path_factory.mktemp("ranked") / "tree", 400)
    if request.config.getoption("--engine") == "postgres":
        from conftest import new_pg_database

        db = new_pg_database(request.getfixturevalue("pg_server"))
    else:
        db = tmp_path_factory.mktemp("ranked-db") / "brain.db"
    with Brain.open(db) as b:
        import_tree(b, tree)
    return db


def _pages(op: str, key: str, q: str, limit: int, brain) -> list[str]:
    """Every slug an agent gets by following next_cursor from the first page to the last."""
    seen: list[str] = []
    cursor = None
    ctx = ops.Context(surface="mcp", on_warning=lambda _m: None)
    for _ in range(1000):
        args = {key: q, "limit": limit, **({"cursor": cursor} if cursor else {})}
        r = ops.run_tool(op, args, ctx, brain=brain)
        seen += [h["slug"] for h in r.get("items", r.get("hits", []))]
        cursor = r["next_cursor"]
        if not cursor:
            return seen
    raise AssertionError("next_cursor never ended")


def _ranking(op: str, key: str, q: str, limit: int, brain) -> list[str]:
    r = ops.run(op, {key: q, "limit": limit}, ops.Context(surface="call", on_warning=lambda _m: None), brain=brain)
    return [h["slug"] for h in (r["hits"] if isinstance(r, dict) else r)]


@pytest.mark.parametrize("op,key", [("search", "query"), ("query", "question")])
def test_paging_a_ranked_list_gives_each_hit_once_from_one_ranking(ranked_brain, op, key):
    with Brain.open(ranked_brain) as b:
        for q in QUERIES:
            seen = _pages(op, key, q, 7, b)
            assert len(seen) == len(set(seen)), (q, [s for s in seen if seen.count(s) > 1][:5])
            assert seen == _ranking(op, key, q, RANK_DEPTH, b), q
            # a limit beyond the depth: every page is cut from the ranking at that limit
            seen = _pages(op, key, q, 150, b)
            assert seen == _ranking(op, key, q, 150, b), q


@pytest.mark.parametrize("op,key", [("search", "query"), ("query", "question")])
def test_within_the_rank_depth_a_longer_ranking_starts_with_a_shorter_one(ranked_brain, op, key):
    """What paging relies on: asking for fewer hits gives the start of the deeper list."""
    with Brain.open(ranked_brain) as b:
        for q in QUERIES:
            deep = _ranking(op, key, q, RANK_DEPTH, b)
            assert len(deep) == RANK_DEPTH, q  # the queries are broad enough to reach the depth
            for n in (1, 7, 50, RANK_DEPTH - 1):
                assert _ranking(op, key, q, n, b) == deep[:n], (q, n)


def test_the_rank_depth_is_within_what_search_and_query_rank_alike():
    from gbrain.search.hybrid import CANDIDATES
    from gbrain.search.keyword import RERANK

    assert RANK_DEPTH <= RERANK and RANK_DEPTH <= CANDIDATES
    assert ops.find("search").rank_depth == ops.find("query").rank_depth == RANK_DEPTH


def test_the_last_page_of_a_ranking_cut_at_its_depth_says_so(ranked_brain):
    """An agent following next_cursor to its end cannot tell the brain's last match from the
    ranking's depth unless the result says so (a trial: 100 of "battery"'s hits on a 2,000-page
    brain, next_cursor null and nothing more): the last page of a ranking that reached the depth
    has a `note` naming it and how to get more; the pages before it, and a ranking that ended
    before the depth, have none."""
    ctx = ops.Context(surface="mcp", on_warning=lambda _m: None)

    def pages(args: dict) -> list[dict]:
        out = [ops.run_tool("search", args, ctx, brain=b)]
        while out[-1]["next_cursor"]:
            out.append(ops.run_tool("search", {**args, "cursor": out[-1]["next_cursor"]}, ctx, brain=b))
        return out

    with Brain.open(ranked_brain) as b:
        deep = pages({"query": "meeting", "limit": 60})
        short = pages({"query": "meeting", "limit": 5, "type": "person"})
    assert sum(len(p["items"]) for p in deep) == RANK_DEPTH and len(deep) == 2
    assert "note" not in deep[0] and f"best {RANK_DEPTH} hits" in deep[-1]["note"] and "`limit`" in deep[-1]["note"] and "--" not in deep[-1]["note"]
    assert 0 < sum(len(p["items"]) for p in short) < RANK_DEPTH and not any("note" in p for p in short)
