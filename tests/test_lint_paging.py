"""An agent's lint pages (`brain_lint` / `brain_lint_fix` with `cursor`): the agent fixes the
findings of one page, then asks for the next. The cursor was an offset into the list, so each
finding fixed moved the rest up and the next page began that many findings too far: unfixed
findings were never shown. A lint cursor now carries the findings its page showed
(`Operation.page_anchor`, as brain_changes' does): the next page starts after the last of them
still listed, or (every one fixed) at the first finding still listed, never past an unshown one.
Both engines."""
from __future__ import annotations

import pytest

from gbrain import operations as ops
from gbrain.core.brain import Brain


def _brain(db_path, n=9) -> Brain:
    b = Brain.open(db_path, create=True)
    for i in range(n):
        b.put(f"notes/n{i}", f"# N{i}\n\nSee [[No Such Page {i}]].\n")
    return b


def _slugs(r) -> list[str]:
    return [f["slug"] for f in r["items"]]


def _page(b, cursor=None, op="lint"):
    args = {"check": "dead_links", **({"cursor": cursor} if cursor else {})}
    return ops.run_tool(op, args, ops.Context(surface="mcp"), brain=b)


def _fix(b, *slugs):
    for s in slugs:
        b.put(s, b.get_text(s).replace("See [[", "See no [", 1).replace("]].", "].", 1))


@pytest.fixture
def small_pages(monkeypatch):
    monkeypatch.setattr(ops.REGISTRY["lint"], "page_size", 3)
    monkeypatch.setattr(ops.REGISTRY["lint-fix"], "page_size", 3)


@pytest.mark.parametrize("fixed, then", [
    (["notes/n0", "notes/n2"], ["notes/n3", "notes/n4", "notes/n5"]),  # some fixed: after the last one still listed (n1)
    (["notes/n0", "notes/n1", "notes/n2"], ["notes/n3", "notes/n4", "notes/n5"]),  # all fixed: from the first one left
    (["notes/n1"], ["notes/n3", "notes/n4", "notes/n5"]),
], ids=["some", "all", "middle"])
def test_fixing_the_findings_of_a_page_skips_none_of_the_next(db_path, small_pages, fixed, then):
    with _brain(db_path) as b:
        p1 = _page(b)
        assert _slugs(p1) == ["notes/n0", "notes/n1", "notes/n2"] and p1["next_cursor"], p1
        _fix(b, *fixed)
        p2 = _page(b, p1["next_cursor"])
        assert _slugs(p2) == then, _slugs(p2)
        p3 = _page(b, p2["next_cursor"])
        assert _slugs(p3) == ["notes/n6", "notes/n7", "notes/n8"] and p3["next_cursor"] is None, p3


@pytest.mark.parametrize("same", [False, True], ids=["own", "shared"])
def test_unchanged_pages_read_the_whole_list_once(db_path, small_pages, monkeypatch, same):
    """``shared``: findings of one identity (every one's, here) are told apart by their number
    among them (`registry._anchor_prints`), so a cursor still names where its page ended."""
    if same:
        monkeypatch.setattr(ops.REGISTRY["lint"], "page_anchor", lambda f: f["check"])
    with _brain(db_path, n=8) as b:
        seen, cursor = [], None
        while True:
            p = _page(b, cursor)
            seen += _slugs(p)
            cursor = p["next_cursor"]
            if not cursor:
                break
        assert seen == [f"notes/n{i}" for i in range(8)]


@pytest.mark.engine_free
def test_a_cursor_s_prints_are_one_function_s_for_a_log_and_a_list():
    """brain_changes' cursor (a log's, ``page="limit"``) names its page's last row by 12 hex
    characters of its identity, as before lint's paging shared the function; lint's (``slice``)
    8 per finding, the n-th of one identity after the first told apart; each print depends on the
    items before it only (a page's prints are those of the whole list's start)."""
    import hashlib

    from gbrain.operations.registry import _anchor_prints

    changes, lint = ops.REGISTRY["changes"], ops.REGISTRY["lint"]
    row = {"kind": "page", "name": "a", "version": 3, "at": "2026-12-05T10:00:00Z", "op": "put"}
    ident = changes.page_anchor(row)
    assert list(_anchor_prints(changes, [row])) == [hashlib.sha1(ident.encode()).hexdigest()[:12]]
    fs = [{"check": "dead_links", "slug": s, "target": "x", "message": "m"} for s in ("a", "b", "a", "a")]
    ps = list(_anchor_prints(lint, fs))
    assert [len(p) for p in ps] == [8] * 4 and len(set(ps)) == 4
    assert all(list(_anchor_prints(lint, fs[:i])) == ps[:i] for i in range(5))


def test_a_page_whose_every_finding_and_the_next_are_fixed_starts_over_never_skips(db_path, small_pages):
    """Every finding the page showed is gone and so are some after it (one fix mended several):
    the next page starts at the first finding still listed, and says so."""
    with _brain(db_path) as b:
        p1 = _page(b)
        _fix(b, "notes/n0", "notes/n1", "notes/n2", "notes/n3")
        p2 = _page(b, p1["next_cursor"])
        assert _slugs(p2) == ["notes/n4", "notes/n5", "notes/n6"], _slugs(p2)
        assert "gone" in p2.get("note", ""), p2


def test_lint_fix_pages_are_anchored_too(db_path, small_pages):
    with _brain(db_path) as b:
        p1 = _page(b, op="lint-fix")
        assert _slugs(p1) == ["notes/n0", "notes/n1", "notes/n2"], p1
        _fix(b, "notes/n0", "notes/n1")
        p2 = _page(b, p1["next_cursor"], op="lint-fix")
        assert _slugs(p2) == ["notes/n3", "notes/n4", "notes/n5"], _slugs(p2)


def test_a_restart_note_is_said_beside_the_lint_s_own_note(db_path, small_pages):
    """The lint's answer has a `note` of its own when `slug` names a renamed page's old name
    (linted NEW); the note that the page starts again (every finding the cursor named fixed) was
    dropped then: both are said."""
    with _brain(db_path) as b:
        b.put("misc/z", "# Z\n")
        ops.run("move", {"slug": "misc/z", "to": "other/z"}, brain=b)
        args = {"check": "dead_links", "slug": ["notes/", "misc/z"]}
        p1 = ops.run_tool("lint", args, ops.Context(surface="mcp"), brain=b)
        assert "other/z" in p1["note"], p1
        _fix(b, "notes/n0", "notes/n1", "notes/n2", "notes/n3")
        p2 = ops.run_tool("lint", {**args, "cursor": p1["next_cursor"]}, ops.Context(surface="mcp"), brain=b)
        assert _slugs(p2) == ["notes/n4", "notes/n5", "notes/n6"], _slugs(p2)
        assert "other/z" in p2["note"] and "starts again" in p2["note"], p2


def test_a_restart_after_a_page_longer_than_its_anchor_says_only_what_it_knows(db_path, monkeypatch):
    """A page of more findings than its cursor names (PAGE_ANCHORS, its last 20): those 20 fixed,
    the earlier ones left, the next page starts at the first finding left (some repeat, none is
    skipped), and its note does not claim every finding of the page was fixed."""
    from gbrain.operations import registry

    monkeypatch.setattr(ops.REGISTRY["lint"], "page_size", registry.PAGE_ANCHORS + 5)
    with _brain(db_path, n=registry.PAGE_ANCHORS + 10) as b:
        p1 = _page(b)
        shown = _slugs(p1)
        assert len(shown) == registry.PAGE_ANCHORS + 5, shown
        _fix(b, *shown[5:])
        p2 = _page(b, p1["next_cursor"])
        assert _slugs(p2)[:5] == shown[:5] and len(_slugs(p2)) == 10, _slugs(p2)
        assert "every item" not in p2["note"] and f"last {registry.PAGE_ANCHORS}" in p2["note"], p2


@pytest.mark.parametrize("answer", ["", "zz", "0123456.89abcdef", "0123456789abcdef"], ids=["none", "garbage", "short", "unsplit"])
def test_a_lint_cursor_without_the_findings_it_names_is_refused(db_path, small_pages, answer):
    """A lint cursor carries the findings its page showed; one without them (an older gbrain's
    offset cursor, which skipped a finding per finding fixed) or with something else there was
    taken as an offset, or started over saying every finding had been fixed: refused, exit 2,
    saying to start again without cursor."""
    import base64

    from gbrain.errors import BadInput

    with _brain(db_path) as b:
        p1 = _page(b)
        raw = base64.urlsafe_b64decode(p1["next_cursor"] + "=" * (-len(p1["next_cursor"]) % 4)).decode()
        off, key, _shown = raw.split(":")
        forged = base64.urlsafe_b64encode(f"{off}:{key}{':' + answer if answer else ''}".encode()).decode().rstrip("=")
        with pytest.raises(BadInput, match="without cursor"):
            _page(b, forged)
