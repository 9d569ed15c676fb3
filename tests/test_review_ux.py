"""Reviewer's edge cases for trial 48's UX commits: put append, tag spelling follow, get --section."""
from __future__ import annotations

import pytest

from gbrain.core.brain import Brain
from gbrain import operations as ops


def test_tag_follow_tie_is_the_same_on_both_engines(db_path):
    """Two spellings used by as many pages: the one written must not depend on the engine's collation.
    It is the one in the tag's normalised form (``slugs.tag_spelling_rank``, 2026-12-07: the smallest
    by code point, ``Energy``, before; lint's ``--fix-safe`` then renamed it to ``energy``)."""
    with Brain.open(db_path, create=True) as b:
        b.put("a", "---\ntags: [Energy]\n---\nx\n")
        b.put("b", "---\ntags: [energy]\n---\ny\n")
        b.put("c", "z\n")
        r = ops.run("tag", {"slug": "c", "tag": "ENERGY"}, ops.Context(), brain=b)
        assert b.tags("c") == ["energy"], (b.tags("c"), r)


def test_append_to_a_frontmatter_only_page_without_a_line_end_keeps_the_frontmatter(db_path):
    """`---\\ntitle: X\\n---` (no line end) + append wrote `---More.`: the closing fence gone, the title lost."""
    with Brain.open(db_path, create=True) as b:
        for slug, text in (("a", "---\ntitle: X\n---"), ("c", "---\r\ntitle: X\r\n---")):
            b.put(slug, text)
            ops.run("put", {"slug": slug, "append": "More."}, brain=b)
            new = b.get_text(slug)
            assert new.startswith(text), new
            page = b.parse_text(new, slug + ".md")
            assert page.frontmatter_raw == text + page.newline and page.frontmatter.get("title") == "X"
            assert page.compiled_truth.strip() == "More."
        from gbrain.sync.verify import fresh_import_differences
        assert not fresh_import_differences(b)


def test_append_to_a_page_of_white_space_is_no_code_block(db_path):
    """A compiled truth of spaces or a tab: the appended text went on that line (`    More.`: indented code)."""
    with Brain.open(db_path, create=True) as b:
        for slug, text in (("s", "    \n"), ("t", "\t\n"), ("f", "---\ntitle: X\n---\n    ")):
            b.put(slug, text)
            ops.run("put", {"slug": slug, "append": "More."}, brain=b)
            new = b.get_text(slug)
            assert new.startswith(text) and "\nMore." in new, repr(new)


@pytest.mark.engine_free
def test_a_block_id_under_fenced_code_or_html_is_that_block():
    """`^id` alone on the line under a fenced code block (or an HTML block) is that block, as
    Obsidian reads it: the blocks of fenced code and HTML were left out (they are the page model's
    opaque spans), so the section began at the heading above, or at an earlier paragraph."""
    from gbrain.page import sections as S

    t = "# A\n\nIntro.\n\n```py\ncode\n```\n^cb\n\nafter\n"
    s = S.find(t, "^cb")
    assert t[s.start:s.end] == "```py\ncode\n```\n^cb\n"
    for fence, bid in (("$$", "^mb"), ("%%", "^pb")):  # $$ math, a %% comment: blanked for the parser, blocks all the same
        t = f"# A\n\nIntro.\n\n{fence}\nx\n{fence}\n{bid}\n"
        s = S.find(t, bid)
        assert t[s.start:s.end] == f"{fence}\nx\n{fence}\n{bid}\n", (t, bid)
    t = "# A\n\nIntro.\n\n<div>x</div>\n\n^hb\n"
    s = S.find(t, "^hb")
    assert t[s.start:s.end] == "<div>x</div>\n\n^hb\n"
    # a heading in fenced code or an HTML block is still no heading
    from gbrain.page.markdown import parse_page

    t = "# A\n\n```\n# C\n```\n<div>\n# D\n</div>\n\n%%\n# E\n%%\n"
    assert [h.text for h in S.headings(t)] == parse_page(t).headings == ["A"]


def test_changes_pages_give_every_row_once_when_writes_come_between(db_path):
    """brain_changes is newest first and now 20 rows a page by default: a next_cursor was an offset, so
    rows written between two pages pushed the rows down and the next page repeated the last ones."""
    from gbrain.operations.registry import run_tool

    with Brain.open(db_path, create=True) as b:
        for i in range(45):
            b.put(f"p{i}", f"# P{i}\n")
        ctx = ops.Context(surface="mcp")
        r = run_tool("changes", {}, ctx, brain=b)
        seen = [x["name"] for x in r["items"]]
        n = 0
        while r.get("next_cursor"):
            n += 1
            for k in range(n * 3):  # more rows than are left on the next page, the second time
                b.put(f"new{n}-{k}", "x\n")
            r = run_tool("changes", {"cursor": r["next_cursor"]}, ctx, brain=b)
            seen += [x["name"] for x in r["items"]]
        assert seen == [f"p{i}" for i in reversed(range(45))]


def test_since_refuses_a_date_that_is_none_and_takes_a_utc_offset(db_path):
    """search/list/changes `since`: `2025-13-45` (and `2025-02-30`) were compared as text and found
    whatever sorted after them, silently; `2026-12-05T09:00:00+02:00` was refused though ISO."""
    import pytest

    from gbrain.errors import BadInput
    from gbrain.operations.registry import _since

    for bad in ("2025-13-45", "2025-02-30", "2025-03-01T25:00"):
        with pytest.raises(BadInput, match="since"):
            _since(bad)
    assert _since("2026-12-05T09:30:00+02:00") == "2026-12-05T07:30:00.000Z"
    assert _since("2026-12-05T09:30:00.250-01:00") == "2026-12-05T10:30:00.250Z"
    assert _since("2026-12-05 09:30z") == "2026-12-05T09:30:00.000Z"
    assert _since("2026-12-05T09:30:00Z") == "2026-12-05T09:30:00.000Z" and _since("2026-12-05") == "2026-12-05" == _since("2026-12-05Z")
    with Brain.open(db_path, create=True) as b:
        b.put("a", "# A\n\nutilities\n")
        with pytest.raises(BadInput, match="since"):
            ops.run("search", {"query": "utilities", "since": "2025-13-45"}, brain=b)
        assert ops.run("search", {"query": "utilities", "since": "2000-01-01T00:00:00+05:00"}, brain=b)
        assert not ops.run("search", {"query": "utilities", "since": "2999-01-01T00:00:00+05:00"}, brain=b)


def test_since_and_until_with_a_utc_clock_take_the_writes_of_that_second_and_minute(db_path):
    """`changes`/`undo` compare `since`/`until` as text with the history's times, which carry
    milliseconds (`…07:45:38.846Z`): `--since 2026-12-07T07:45:38Z` (or `…07:45Z`) sorted after them
    ('.' and ':' before 'Z'), so a write made later in that second (minute) was left out, and an
    agent's `undo --since T`, T noted just before its run, left its first writes in place
    (skilltrial, s61); `until` kept them."""
    with Brain.open(db_path, create=True) as b:
        b.put("notes/x", "# X\n")
        at = ops.run("changes", {}, brain=b)[0]["at"]  # 2026-12-07T07:45:38.846Z
        for since in (at[:19] + "Z", at[:16] + "Z", at[:19] + "+00:00"):
            assert [c["name"] for c in ops.run("changes", {"since": since}, brain=b)] == ["notes/x"], since
            assert [p["name"] for p in ops.run("undo", {"since": since}, brain=b)["plan"]] == ["notes/x"], since
        for until in (at[:16] + "Z", at[:13] + ":00Z"):
            assert ops.run("changes", {"until": until}, brain=b) == [], until


@pytest.mark.engine_free
def test_since_of_a_day_in_another_zone_is_that_days_midnight_there():
    """`--since 2026-12-05+02:00` (a day with a UTC offset) dropped the offset: `2026-12-05`, the
    UTC day, leaving out the first two hours of the day it names (before 4f06fa49 it was
    `…T02:00:00Z`, `+02:00` read as a clock). A day with an offset is its midnight there, as an
    instant; `Z` (and `+00:00`) stays the UTC day."""
    from gbrain.operations.registry import _since

    assert _since("2026-12-05+02:00") == _since("2026-12-05+02:00", end=True) == "2026-12-04T22:00:00.000Z"
    assert _since("2026-12-05-0530") == "2026-12-05T05:30:00.000Z"
    assert _since("2026-12-05Z") == "2026-12-05" and _since("2026-12-05+00:00") == "2026-12-05T00:00:00.000Z"


@pytest.mark.engine_free
def test_since_out_of_the_clocks_range_is_bad_input_not_a_crash():
    """A time whose UTC instant falls outside years 1-9999 (`0001-01-01T00:30+01:00`) or a span
    past the platform's clock (`…s`) raised OverflowError: a traceback, exit 1, on the command line."""
    from gbrain.errors import BadInput
    from gbrain.operations.registry import _since

    for bad in ("0001-01-01T00:30+01:00", "9999-12-31T23:59:59-01:00", "9999999999999999999999s"):
        with pytest.raises(BadInput, match="until"):
            _since(bad, "until", end=True)


def test_tag_follow_note_of_one_page_reads_right(db_path):
    with Brain.open(db_path, create=True) as b:
        b.put("a", "---\ntags: [Energy]\n---\nx\n")
        b.put("c", "z\n")
        r = ops.run("tag", {"slug": "c", "tag": "energy"}, ops.Context(), brain=b)
        assert "the spelling 1 page uses" in r["note"], r["note"]


def test_append_that_would_be_hidden_or_hide_the_timeline_says_why(db_path):
    """An appended text with an unclosed fence hid the timeline's `---` and was refused as 'a line
    that is exactly ---' (it has none); a compiled truth ending in an unclosed fence or `<!--`
    comment took the appended paragraph into it, where nothing reads it (search, links, Obsidian)."""
    import pytest

    from gbrain.errors import BadInput

    page = "# Ana\n\nPartner.\n\n---\n\n- **2026-12-05** | meeting — Sync\n"
    with Brain.open(db_path, create=True) as b:
        b.put("ana", page)
        with pytest.raises(BadInput, match="does not close") as e:
            ops.run("put", {"slug": "ana", "append": "```\nopen fence"}, brain=b)
        assert "exactly '---'" not in str(e.value)
        for slug, text in (("f", "# F\n\n```\ncode\n"), ("h", "# H\n\n<!--\nx\n")):
            b.put(slug, text)
            with pytest.raises(BadInput, match="unclosed"):
                ops.run("put", {"slug": slug, "append": "Seen?"}, brain=b)
            assert b.get_text(slug) == text
        b.put("ok", "# OK\n\n```\ncode\n```\n")  # closed: the paragraph goes under it
        ops.run("put", {"slug": "ok", "append": "```\nmore code\n```"}, brain=b)
        assert b.get_text("ok") == "# OK\n\n```\ncode\n```\n\n```\nmore code\n```\n"
        assert b.get_text("ana") == page


def test_tags_pages_never_skip_a_tag_a_write_moved_up(db_path):
    """brain_tags pages by 100, most used first; a next_cursor was an offset into a list a write
    reorders: a tag tagged between two pages rose into the first page's range and was on neither
    page (and another shown twice). The next page of a list that changed is refused (Conflict), as
    brain_graph's is; unchanged, the pages give every tag once."""
    import pytest

    from gbrain.errors import Conflict
    from gbrain.operations.registry import run_tool

    with Brain.open(db_path, create=True) as b:
        for i in range(150):  # tag t000 on 150 pages ... t149 on 1: most used first
            b.put(f"p{i}", "---\ntags: [" + ", ".join(f"t{k:03}" for k in range(i + 1)) + "]\n---\nx\n")
        ctx = ops.Context(surface="mcp")
        r = run_tool("tags", {}, ctx, brain=b)
        seen = [t["tag"] for t in r["items"]]
        while r.get("next_cursor"):
            r = run_tool("tags", {"cursor": r["next_cursor"]}, ctx, brain=b)
            seen += [t["tag"] for t in r["items"]]
        assert sorted(seen) == [f"t{k:03}" for k in range(150)]
        r = run_tool("tags", {}, ctx, brain=b)
        for i in range(60):  # t120 (on 30 pages) rises above t060
            ops.run("tag", {"slug": f"p{i}", "tag": "t120"}, ops.Context(), brain=b)
        with pytest.raises(Conflict, match="cursor"):
            run_tool("tags", {"cursor": r["next_cursor"]}, ctx, brain=b)


def test_a_changes_cursor_without_its_row_anchor_is_refused(db_path):
    """changes is newest first, so rows written between pages push every row down: a cursor
    without the row its page ended with (an older gbrain's plain offset cursor, or a forged one)
    was taken as an offset and repeated rows; refused, exit 2, as lint's (c35ceec)."""
    import base64

    import pytest

    from gbrain.errors import BadInput
    from gbrain.operations.registry import run_tool

    with Brain.open(db_path, create=True) as b:
        for i in range(25):
            b.put(f"p{i}", f"# P{i}\n")
        ctx = ops.Context(surface="mcp")
        r = run_tool("changes", {}, ctx, brain=b)
        raw = base64.urlsafe_b64decode(r["next_cursor"] + "=" * (-len(r["next_cursor"]) % 4)).decode()
        off, key, _shown = raw.split(":")
        for forged in (f"{off}:{key}", f"{off}:{key}:zz"):
            cur = base64.urlsafe_b64encode(forged.encode()).decode().rstrip("=")
            with pytest.raises(BadInput, match="without cursor"):
                run_tool("changes", {"cursor": cur}, ctx, brain=b)
