"""Paging through a ranked list (search, query) gives every hit once, in one ranking.

Keyword search re-scores its best BM25 candidates. A deeper ask (a larger limit) used to
re-score more of them and could reorder the top, and paging asked for ``offset + limit + 1``
hits on each page, so every page came from another ranking: an agent following ``next_cursor``
saw some pages twice and never saw others (551 hits, 510 distinct on a 600-page brain). Pages
were then cut from one ranking 100 deep, ending there; a larger limit still ranked the top
otherwise. Now search re-scores RERANK candidates whatever the limit (the rest follow in BM25
order): every ranking starts the deeper ones, and its pages go on to the last match. Hybrid
query ranks CANDIDATES per side up to that limit: its pages end at RANK_DEPTH (300), said.
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


def _ranking(op: str, key: str, q: str, limit: int, brain, filters: dict | None = None) -> list[str]:
    r = ops.run(op, {key: q, "limit": limit, **(filters or {})}, ops.Context(surface="call", on_warning=lambda _m: None), brain=brain)
    return [h["slug"] for h in (r["hits"] if isinstance(r, dict) else r)]


@pytest.mark.parametrize("op,key", [("search", "query"), ("query", "question")])
def test_paging_a_ranked_list_gives_each_hit_once_from_one_ranking(ranked_brain, op, key):
    with Brain.open(ranked_brain) as b:
        for q in QUERIES:
            depth = RANK_DEPTH if op == "query" else 1000  # (search: every match; the brain holds 400 pages)
            seen = _pages(op, key, q, 7, b)
            assert len(seen) == len(set(seen)), (q, [s for s in seen if seen.count(s) > 1][:5])
            assert seen == _ranking(op, key, q, depth, b), q
            seen = _pages(op, key, q, 150, b)
            assert seen == _ranking(op, key, q, depth, b), q


@pytest.mark.parametrize("op,key", [("search", "query"), ("query", "question")])
def test_within_the_rank_depth_a_longer_ranking_starts_with_a_shorter_one(ranked_brain, op, key):
    """What paging relies on: asking for fewer hits gives the start of the deeper list."""
    with Brain.open(ranked_brain) as b:
        for q in QUERIES:
            deep = _ranking(op, key, q, RANK_DEPTH, b)
            assert len(deep) > 150, q  # the queries are broad enough to pass search's re-scored depth
            for n in (1, 7, 50, 100, 101, len(deep) - 1):
                assert _ranking(op, key, q, n, b) == deep[:n], (q, n)


@pytest.mark.parametrize("op,key", [("search", "query"), ("query", "question")])
@pytest.mark.parametrize("filters", [{}, {"prefix": "meetings"}, {"type": "person"}], ids=["all", "prefix", "type"])
def test_past_the_rerank_depth_a_longer_ranking_still_starts_with_a_shorter_one(ranked_brain, op, key, filters):
    """Keyword search re-scores its best RERANK candidates; a deeper ask re-scored more of them, so
    a page past the depth with a name bonus rose into the top: `--limit 150` reordered the first 100
    (obsidian-hub's "theme" from its 31st hit on), and reading 150 hits as three pages of 50 (each
    page `limit` = offset + 50) gave 13-14 hits twice and never showed as many. The re-scored depth
    no longer follows the limit: every ranking is the start of every deeper one, filtered too."""
    with Brain.open(ranked_brain) as b:
        for q in QUERIES:
            deep = _ranking(op, key, q, 250, b, filters)
            for n in (99, 100, 101, 150, 249):
                assert _ranking(op, key, q, n, b, filters) == deep[:n], (q, n)
            pages = [s for off in (0, 50, 100, 150, 200) for s in _ranking(op, key, q, off + 50, b, filters)[off:]]
            assert pages == deep, q


def test_search_pages_past_the_rerank_depth_to_the_last_match(ranked_brain):
    """Following next_cursor through a keyword search reads every match once, in the order of one
    request asking for all of them (the pages used to stop at 100 with a note to ask a larger limit,
    which ranked the first 100 otherwise)."""
    with Brain.open(ranked_brain) as b:
        for q in QUERIES:
            seen = _pages("search", "query", q, 50, b)
            assert len(seen) > 150 and len(seen) == len(set(seen)), q
            assert seen == _ranking("search", "query", q, 1000, b), q


def test_the_rank_depth_is_within_what_search_and_query_rank_alike():
    from gbrain.search.hybrid import CANDIDATES
    from gbrain.operations.registry import ANY_DEPTH

    assert RANK_DEPTH <= CANDIDATES
    assert ops.find("query").rank_depth == RANK_DEPTH and ops.find("search").rank_depth == ANY_DEPTH


def test_the_last_page_of_a_ranking_cut_at_its_depth_says_so(ranked_brain):
    """An agent following next_cursor to its end cannot tell the brain's last match from the
    ranking's depth unless the result says so (a trial: 100 of "battery"'s hits on a 2,000-page
    brain, next_cursor null and nothing more): the last page of a ranking that reached the depth
    has a `note` naming it and how to get more; the pages before it, and a ranking that ended
    before the depth, have none."""
    ctx = ops.Context(surface="mcp", on_warning=lambda _m: None)

    def pages(op: str, args: dict) -> list[dict]:
        out = [ops.run_tool(op, args, ctx, brain=b)]
        while out[-1]["next_cursor"]:
            out.append(ops.run_tool(op, {**args, "cursor": out[-1]["next_cursor"]}, ctx, brain=b))
        for p in out:
            p["items"] = p.get("items", p.get("hits"))
        return out

    with Brain.open(ranked_brain) as b:
        deep = pages("query", {"question": "robotics sync", "limit": 60})
        short = pages("query", {"question": "meeting", "limit": 5, "type": "person"})
        every = pages("search", {"query": "robotics sync", "limit": 60})  # (search's ranking has no depth: to the last match)
    assert sum(len(p["items"]) for p in deep) == RANK_DEPTH and len(deep) == 5
    assert "note" not in deep[0] and f"best {RANK_DEPTH} hits" in deep[-1]["note"] and "`limit`" in deep[-1]["note"] and "--" not in deep[-1]["note"]
    assert 0 < sum(len(p["items"]) for p in short) < RANK_DEPTH and not any("note" in p for p in short)
    assert sum(len(p["items"]) for p in every) > RANK_DEPTH and not any("note" in p for p in every)


def test_pages_of_a_substring_search_and_of_a_corrected_query(tmp_path, db_path):
    """A query of no indexable word (emoji) is matched as a substring; a page past the first gave
    the first page's hits again (its offset was dropped). A typo no page holds is searched as its
    correction on every page, and a page past a typed query's last hit is no reason to search one."""
    from conftest import write_tree

    notes = {f"note{i:02}.md": f"# Note {i}\n\nmood 🙂 {'word ' * i}\n" for i in range(12)}
    notes.update({f"lamp{i:02}.md": f"# Lamp {i}\n\nlantern {'x ' * i}\n" for i in range(7)})
    with Brain.open(db_path) as b:
        import_tree(b, write_tree(tmp_path / "vault", notes))
        for q in ("🙂", "lanterm", "lantern"):
            seen = _pages("search", "query", q, 5, b)
            assert seen and len(seen) == len(set(seen)) and seen == _ranking("search", "query", q, 100, b), q
        # a page past the typed query's last hit (its words found pages: no correction searched)
        past = ops.run("search", {"query": "lantern moood", "limit": 5}, ops.Context(surface="mcp", on_warning=lambda _m: None, skip=7), brain=b)
        assert past == [] and len(_ranking("search", "query", "lantern moood", 100, b)) == 7


def test_search_pages_that_end_before_the_last_match_say_so(ranked_brain, monkeypatch):
    """A word in more pages than the keyword ranking reads whole (SQLite RANK_BOUND, Postgres
    PG_RANK_BOUND) is ranked over a window of its pages (RANK_WINDOW, PG_CANDIDATES): obsidian-hub's
    "plugin", in 6,047 of 6,572 pages, paged to 1,987 hits on SQLite and 4,087 on Postgres, then
    next_cursor null and nothing said, though search's pages claim to run to the last match. Bounds
    shrunk here so the 400-page brain's common word passes them: the end says more pages match."""
    from gbrain.search import keyword

    with Brain.open(ranked_brain) as b:
        every = _ranking("search", "query", "work", 1000, b)
        assert len(every) > 200
        monkeypatch.setattr(keyword, "RANK_BOUND", 50)
        monkeypatch.setattr(keyword, "RANK_WINDOW", 60)
        monkeypatch.setattr(keyword, "PG_RANK_BOUND", 50)
        monkeypatch.setattr(keyword, "PG_CANDIDATES", 60)
        told: list[str] = []
        ctx = ops.Context(surface="mcp", on_warning=told.append)
        seen, cursor = [], None
        while True:
            r = ops.run_tool("search", {"query": "work", "limit": 40, **({"cursor": cursor} if cursor else {})}, ctx, brain=b)
            seen += [h["slug"] for h in r["items"]]
            cursor = r["next_cursor"]
            if not cursor:
                break
        assert len(seen) == len(set(seen))
        assert len(seen) < len(every)  # (the window: what the bounds are for)
        assert any("more pages match" in m for m in told), told
        told.clear()
        ops.run_tool("search", {"query": "work", "limit": 10}, ctx, brain=b)  # (a page that is not the last: nothing said)
        assert not any("more pages match" in m for m in told), told


def test_a_search_page_after_a_write_that_moved_the_ranking_says_so(db_path):
    """Search's cursor is an offset into the ranking: a page written between two pages that ranks
    above the cursor's place pushes the first page's last hit onto the next, shown twice with
    nothing said (make_brain-like canvas brain: 'roadmap' page 1, a new page named Roadmap put, page
    2 began with page 1's last hit). The cursor carries its page's last hit; the next page that
    finds another hit there says the ranking changed."""
    ctx = ops.Context(surface="mcp", on_warning=lambda _m: None)
    with Brain.open(db_path, create=True) as b:
        for i in range(30):
            b.put(f"notes/n{i:02d}", f"# Note {i}\n\n" + "lantern " * (1 + i % 7) + "filler words here " * (i % 5) + "\n")
        one = ops.run_tool("search", {"query": "lantern", "limit": 10}, ctx, brain=b)
        two = ops.run_tool("search", {"query": "lantern", "limit": 10, "cursor": one["next_cursor"]}, ctx, brain=b)
        assert "note" not in two and not {h["slug"] for h in one["items"]} & {h["slug"] for h in two["items"]}
        b.put("Lantern", "# Lantern\n\nlantern lantern lantern\n")
        again = ops.run_tool("search", {"query": "lantern", "limit": 10, "cursor": one["next_cursor"]}, ctx, brain=b)
    shown = [h["slug"] for h in one["items"]]
    assert again["items"][0]["slug"] == shown[-1]  # (the hit shown already: the ranking moved by one)
    assert "changed" in again.get("note", ""), again.get("note")
