"""Keyset cursors beyond `list` (trial 70's follow-up): `trash`, `threads` and `backlinks` paged
by offset repeated (or skipped) one item per item written before the page's start between two
pages. Their cursors now carry the last item's position in the list's order; a walk with writes
between pages lists every unchanged item exactly once."""
from __future__ import annotations

import pytest

from gbrain.core.brain import Brain
from gbrain.operations.registry import Context, run_tool


def _walk(db, tool: str, args: dict, between) -> list:
    """Every page of ``tool`` (limit 3), ``between(brain, pages_so_far)`` run after each page."""
    got, cursor, pages = [], None, 0
    while True:
        with Brain.open(db) as b:
            r = run_tool(tool, {**args, "limit": 3, **({"cursor": cursor} if cursor else {})}, Context(surface="mcp"), b)
            got += r["items"]
            pages += 1
            between(b, pages)
        cursor = r["next_cursor"]
        if not cursor:
            return got


def test_a_trash_walk_while_pages_are_deleted_and_restored_repeats_and_skips_none(db_path):
    with Brain.open(db_path, create=True) as b:
        for i in range(12):
            b.put(f"notes/n{i:02d}", f"# n{i}\n")
        for i in range(10):
            b.delete_page(f"notes/n{i:02d}")

    def between(b, pages):
        if pages == 1:  # two deletions go to the front; a restore takes out one not yet listed
            b.delete_page("notes/n10")
            b.delete_page("notes/n11")
            run_tool("restore", {"slug": "notes/n00"}, Context(surface="mcp"), b)

    got = [x["slug"] for x in _walk(db_path, "trash", {}, between)]
    assert len(got) == len(set(got)), got
    assert set(got) == {f"notes/n{i:02d}" for i in range(1, 10)}, got


def test_a_threads_walk_while_older_threads_are_written_repeats_and_skips_none(db_path):
    with Brain.open(db_path, create=True) as b:
        for i in range(9):
            b.put(f"deals/d{i}", f"# d{i}\n\n## Open Threads\n\n- 2026-03-{10 + i:02d} ask about {i}\n")

    def between(b, pages):
        if pages == 1:  # two older threads sort before the walk's start
            b.put("deals/old", "# old\n\n## Open Threads\n\n- 2026-01-01 first\n- 2026-01-02 second\n")

    got = [(x["slug"], x["text"]) for x in _walk(db_path, "threads", {}, between)]
    mine = [g for g in got if g[0] != "deals/old"]
    assert len(mine) == len(set(mine)) == 9, got


def test_a_backlinks_walk_while_pages_link_meanwhile_repeats_and_skips_none(db_path):
    with Brain.open(db_path, create=True) as b:
        b.put("people/ana", "# Ana\n")
        for i in range(1, 10):
            b.put(f"notes/m{i}", f"# m{i}\n\nMet [[people/ana]].\n")

    def between(b, pages):
        if pages == 1:  # a page sorting first links to her
            b.put("notes/a0", "# a0\n\nSee [[people/ana]].\n")

    got = [x["slug"] for x in _walk(db_path, "backlinks", {"slug": "people/ana"}, between)]
    mine = [s for s in got if s != "notes/a0"]
    assert len(mine) == len(set(mine)) == 9, got


def _entries(n: int, day: str = "2026-05-01") -> str:
    return "".join(f"- **{day}** | e{i}\n" for i in range(n))


@pytest.mark.parametrize("one_page", [False, True])
def test_a_timeline_walk_while_other_pages_add_entries_repeats_and_skips_none(db_path, one_page):
    """Entries repeat across (date, slug) and their ids change on every save of their page: the
    position is [date, slug, the entry's number among its page's of that date] (a page's own
    timeline: [date, number]). Entries written before the walk's start (another page's, the same
    date and a slug sorting first; a newer date; the page's own, of a newer date) move no entry
    left unchanged."""
    with Brain.open(db_path, create=True) as b:
        b.put("people/ana", "# Ana\n\n---\n\n" + _entries(5) + _entries(3, "2026-04-01"))
        b.put("people/bo", "# Bo\n\n---\n\n" + _entries(4))

    def between(b, pages):
        if pages in (1, 2):  # the same date, a slug sorting first; and a newer date
            b.put(f"people/a{pages}", "# A\n\n---\n\n" + _entries(2) + _entries(1, "2026-06-01"))
            if one_page:  # the page itself gains newer entries, sorting first, written last
                b.put("people/ana", b.get_text("people/ana") + f"- **2026-06-0{pages}** | new\n")

    args = {"slug": "people/ana"} if one_page else {}
    got = [(x.get("slug", "people/ana"), x["date"], x["summary"]) for x in _walk(db_path, "timeline", args, between)]
    ana = [g for g in got if g[0] == "people/ana" and g[2] != "new"]
    assert ana == [("people/ana", "2026-05-01", f"e{i}") for i in range(5)] + [("people/ana", "2026-04-01", f"e{i}") for i in range(3)], got
    if not one_page:
        assert [g for g in got if g[0] == "people/bo"] == [("people/bo", "2026-05-01", f"e{i}") for i in range(4)], got


@pytest.mark.parametrize("tool,args", [("trash", {}), ("threads", {}), ("backlinks", {"slug": "people/ana"}), ("timeline", {})])
def test_an_offset_cursor_is_refused_saying_to_start_again(db_path, tool, args):
    from gbrain.errors import BadInput
    from gbrain.operations.registry import check_args, encode_cursor, find

    with Brain.open(db_path, create=True) as b:
        b.put("people/ana", "# Ana\n")
        o = find(tool)
        old = encode_cursor(o, {k: v for k, v in check_args(o, {**args, "limit": 3}, tool=True).items() if v is not None}, 3)
        with pytest.raises(BadInput, match="call again without cursor"):
            run_tool(tool, {**args, "limit": 3, "cursor": old}, Context(surface="mcp"), b)
