"""put's `append` (MCP `brain_put {"slug", "append": TEXT}`): add a paragraph at the end of the
compiled truth, above the timeline's `---`, without reading or sending the page (trial 48: an agent
used to a memory server's edit_note append asked for `compiled_truth_append`; the only ways were a
whole get + put or a `replace` of the last line). Every other byte stays. Both engines (``db_path``).
"""
from __future__ import annotations

import json

import pytest

from gbrain.core.brain import Brain
from gbrain.errors import BadInput, NotFound
from gbrain import operations as ops

from conftest import gbrain_in_process

PAGE = "---\ntitle: Ana\n---\n\n# Ana\n\nPartner.\n\n---\n\n- **2026-12-05** | meeting — Sync\n"


def test_append_adds_a_paragraph_above_the_timeline(db_path):
    with Brain.open(db_path, create=True) as b:
        b.put("people/ana", PAGE)
        r = ops.run("put", {"slug": "ana", "append": "Prefers async updates."}, brain=b)
        assert r["changed"] and r["content_hash"] == b.page_row("people/ana")["content_hash"]
        assert b.get_text("people/ana") == PAGE.replace("Partner.\n", "Partner.\n\nPrefers async updates.\n")
        h = ops.run("history", {"slug": "people/ana"}, brain=b)
        assert h["versions"][0]["operation"] == "put append"
        # several lines, with a timeline line and a frontmatter key in the same put
        r = ops.run("put", {"slug": "ana", "append": "- a\n- b\n", "timeline_append": "- **2026-12-06** | call — Call",
                            "frontmatter": {"score": 4}}, brain=b)
        text = b.get_text("people/ana")
        assert "Prefers async updates.\n\n- a\n- b\n\n---\n" in text and "score: 4\n" in text
        assert [e.summary for e in b.parse_text(text, "people/ana.md").timeline_entries] == ["Call", "Sync"]


def test_append_to_a_page_without_a_timeline_and_a_crlf_page(db_path):
    with Brain.open(db_path, create=True) as b:
        b.put("a", "# A\n\nText.\n")
        ops.run("put", {"slug": "a", "append": "More."}, brain=b)
        assert b.get_text("a") == "# A\n\nText.\n\nMore.\n"
        b.put("c", "# C\r\n\r\nText.\r\n\r\n---\r\n\r\n- **2026-01-01** | x — y\r\n")
        ops.run("put", {"slug": "c", "append": "One\ntwo"}, brain=b)
        assert b.get_text("c") == "# C\r\n\r\nText.\r\n\r\nOne\r\ntwo\r\n\r\n---\r\n\r\n- **2026-01-01** | x — y\r\n"


def test_append_to_a_page_of_bare_cr_line_ends_keeps_them(db_path):
    """A page whose lines end in a bare ``\\r`` (classic Mac OS) got the appended paragraph
    joined with ``\\n``: a page of two line endings after one append."""
    with Brain.open(db_path, create=True) as b:
        b.put("a", "# A\r\rText.\r")
        ops.run("put", {"slug": "a", "append": "More\nlines."}, brain=b)
        assert b.get_text("a") == "# A\r\rText.\r\rMore\rlines.\r"
        b.put("c", "# C\r\rText.\r\r---\r\r- **2026-01-01** | x — y\r")
        ops.run("put", {"slug": "c", "append": "One\r\ntwo"}, brain=b)
        assert b.get_text("c") == "# C\r\rText.\r\rOne\rtwo\r\r---\r\r- **2026-01-01** | x — y\r"
        assert [e.summary for e in b.parse_text(b.get_text("c"), "c.md").timeline_entries] == ["y"]


def test_a_tagged_bare_cr_page_keeps_its_body_line_ends(db_path):
    """Tagging a bare-CR page gives it a frontmatter block of LF lines (split_frontmatter reads no
    CR fences); Page.newline then said LF for the whole page, and timeline-add joined its
    ``Text.\r`` with ``\n``: ``Text.\r\n---`` is one line end, so ``Text.`` became a setext
    heading over the separator (the page model listed it as a heading). The body's own line end
    joins the body."""
    from gbrain.page.markdown import parse_page

    with Brain.open(db_path, create=True) as b:
        b.put("a", "# A\r\rText.\r")
        ops.run("tag", {"slug": "a", "tag": "t1"}, brain=b)
        assert b.get_text("a") == "---\ntags:\n- t1\n---\n# A\r\rText.\r"
        assert parse_page(b.get_text("a"), "a.md").newline == "\r"
        ops.run("timeline-add", {"slug": "a", "date": "2026-02-02", "summary": "two"}, brain=b)
        ops.run("put", {"slug": "a", "append": "More."}, brain=b)
        text = b.get_text("a")
        assert text == "---\ntags:\n- t1\n---\n# A\r\rText.\r\rMore.\r\r---\r\r- **2026-02-02** | two\r", repr(text)
        assert "\r\n" not in text and b.parse_text(text, "a.md").headings == ["A"]
    # a body whose last line ends in a bare CR is joined with one, an LF body with LF, CRLF as before
    assert parse_page("# A\nb\r", "a.md").newline == "\r"
    assert parse_page("---\nx: 1\n---\nb\n", "a.md").newline == "\n"
    assert parse_page("---\r\nx: 1\r\n---\r\nb\n", "a.md").newline == "\r\n"
    assert parse_page("# A", "a.md").newline == "\n"


def test_append_into_an_unclosed_obsidian_comment_is_refused(db_path):
    """A compiled truth ending inside a ``%%`` comment left open (Obsidian hides the rest of the
    note; the page model reads no link there) took the appended paragraph into it: refused, exit
    2, as an unclosed fence is; an append opening one that would hide the timeline too."""
    with Brain.open(db_path, create=True) as b:
        for slug, text in (("p", "# P\n\nText %% draft\nnotes\n"), ("q", "# Q\n\n%%\nhidden\n\n---\n\n- **2026-01-01** | x — y\n")):
            b.put(slug, text)
            with pytest.raises(BadInput, match=r"unclosed .*%% comment") as e:
                ops.run("put", {"slug": slug, "append": "Seen? [[Bo]]"}, brain=b)
            assert e.value.exit_code == 2 and b.get_text(slug) == text
        b.put("t", PAGE)
        with pytest.raises(BadInput, match="does not close"):
            ops.run("put", {"slug": "t", "append": "a %% note"}, brain=b)
        assert b.get_text("t") == PAGE
        b.put("ok", "# OK\n\nText %%closed%% here.\n\n%%\nblock\n%%\n\n`%%` in code\n")
        ops.run("put", {"slug": "ok", "append": "Seen [[Bo]]."}, brain=b)
        assert b.get_text("ok").endswith("`%%` in code\n\nSeen [[Bo]].\n")
        assert [ln.target for ln in b.parse_text(b.get_text("ok"), "ok.md").links] == ["Bo"]


def test_a_link_into_an_unclosed_obsidian_comment_says_the_comment(db_path):
    """`link` onto a page ending inside an open ``%%`` comment is refused (the link line would be
    hidden); its message named fences and frontmatter only, not the comment that hid it."""
    from gbrain.errors import Conflict

    with Brain.open(db_path, create=True) as b:
        b.put("p", "# P\n\nText %% draft\n")
        b.put("q", "# Q\n")
        with pytest.raises(Conflict, match="%% comment"):
            ops.run("link", {"from": "p", "to": "q"}, brain=b)
        assert b.get_text("p") == "# P\n\nText %% draft\n"


def test_append_refuses_a_rule_line_no_page_and_content(db_path):
    with Brain.open(db_path, create=True) as b:
        b.put("people/ana", PAGE)
        with pytest.raises(BadInput, match="---"):
            ops.run("put", {"slug": "ana", "append": "x\n\n---\n\ny"}, brain=b)
        with pytest.raises(NotFound):
            ops.run("put", {"slug": "people/anna-b", "append": "x"}, brain=b)
        with pytest.raises(BadInput):
            ops.run("put", {"slug": "ana", "append": "x", "content": "y"}, brain=b)
        assert b.get_text("people/ana") == PAGE


def test_append_on_every_surface(db_path):
    with Brain.open(db_path, create=True) as b:
        b.put("people/ana", PAGE)
    r = gbrain_in_process("--db", str(db_path), "put", "ana", "--append", "From the CLI.")
    assert r.returncode == 0, r.stderr
    r = gbrain_in_process("--db", str(db_path), "call", "put", json.dumps({"slug": "ana", "append": "From call."}))
    assert r.returncode == 0, r.stderr
    with Brain.open(db_path) as b:
        assert "Partner.\n\nFrom the CLI.\n\nFrom call.\n\n---\n" in b.get_text("people/ana")
    (put,) = [t for t in ops.tools_json() if t["name"] == "brain_put"]
    assert "append" in put["input_schema"]["properties"]


@pytest.mark.parametrize("field, flag", [("append", "--append"), ("timeline_append", "--timeline-append")])
@pytest.mark.parametrize("given", ["", "  \n\t"])
def test_an_empty_append_is_refused(db_path, field, flag, given):
    """``put --append ''`` (or white space) said "unchanged", exit 0 (trial 50): a script whose text
    went missing never heard of it. It is refused, exit 2, "nothing to append"; so is an empty
    ``timeline_append`` (as ``timeline-add`` refuses an empty summary)."""
    with Brain.open(db_path, create=True) as b:
        b.put("people/ana", PAGE)
        with pytest.raises(BadInput, match="nothing to append"):
            ops.run("put", {"slug": "ana", field: given}, brain=b)
    r = gbrain_in_process("--db", str(db_path), "put", "ana", flag, given)
    assert r.returncode == 2 and "nothing to append" in r.stderr.decode(), r.stderr
    with Brain.open(db_path) as b:
        assert b.get_text("people/ana") == PAGE


@pytest.mark.parametrize("nl", ["\n", "\r\n"])
def test_append_goes_above_an_open_threads_section_the_compiled_truth_ends_with(db_path, nl):
    """s58 trial 72: the enrich skill's `brain_put {"append": "Based in Toronto (2026-12)."}` on a
    page whose compiled truth ends with `## Open Threads` put the fact below the thread items, where
    it reads as one more thread (brain_link goes above the section since trial 70). It now goes
    above the section too; a page whose last section is another keeps it at the end."""
    page = ("# Priya\n\n## State\n\n- CFO.\n\n## Open Threads\n\n- Intro call (raised 2026-11-30)\n\n"
            "---\n\n- **2026-11-30** | meeting — Met\n").replace("\n", nl)
    with Brain.open(db_path, create=True) as b:
        b.put("people/priya", page)
        ops.run("put", {"slug": "priya", "append": "Based in Toronto (2026-12)."}, brain=b)
        assert b.get_text("people/priya") == page.replace(f"## Open Threads{nl}", f"Based in Toronto (2026-12).{nl}{nl}## Open Threads{nl}")
        threads = ops.run("threads", {}, brain=b)
        assert [t["text"] for t in threads if t["slug"] == "people/priya"] == ["Intro call (raised 2026-11-30)"]
        b.put("people/bo", "# Bo\n\n## Open Threads\n\n- x\n\n## Notes\n\nOld.\n")
        ops.run("put", {"slug": "bo", "append": "New."}, brain=b)
        assert b.get_text("people/bo") == "# Bo\n\n## Open Threads\n\n- x\n\n## Notes\n\nOld.\n\nNew.\n"


@pytest.mark.parametrize("hidden", ["```md\n# Name\n\n## Open Threads\n\n- (none)\n```\n", "<!--\n## Open Threads\n\n- x\n-->\n"])
def test_an_open_threads_heading_in_code_or_a_comment_is_no_section(db_path, hidden):
    """Review of trial 72: an `## Open Threads` line inside a fenced block (a template page showing
    the section) or an HTML comment at the end of the compiled truth was taken for the section:
    the append went inside the block and was refused as hidden ("ends inside an unclosed block")
    where it went at the end before. Only a heading the page reads counts."""
    page = "# Template\n\nA person page:\n\n" + hidden
    with Brain.open(db_path, create=True) as b:
        b.put("templates/person", page)
        ops.run("put", {"slug": "templates/person", "append": "Use it for people."}, brain=b)
        assert b.get_text("templates/person") == page + "\nUse it for people.\n"


@pytest.mark.parametrize("add", ["```py\nx = 1", "%% draft", "<!-- draft"])
def test_an_append_that_would_hide_the_open_threads_below_it_is_refused(db_path, add):
    """Review of trial 72: an append above `## Open Threads` that opens a fence or comment it does
    not close hid the whole section (no timeline below it to trip the timeline check): written,
    and `threads` no longer listed the page's threads. Refused now, nothing written."""
    page = "# Priya\n\nCFO.\n\n## Open Threads\n\n- Intro call (raised 2026-11-30)\n"
    with Brain.open(db_path, create=True) as b:
        b.put("people/priya", page)
        with pytest.raises(BadInput, match="Open Threads"):
            ops.run("put", {"slug": "priya", "append": add}, brain=b)
        assert b.get_text("people/priya") == page


def test_a_bare_cr_page_appends_above_its_open_threads(db_path):
    """Review of trial 72: a page whose lines end in a bare CR (its headings read by the page
    model) had its Open Threads heading missed: the fact went below the thread items."""
    page = "# Priya\r\rCFO.\r\r## Open Threads\r\r- Intro call (raised 2026-11-30)\r"
    with Brain.open(db_path, create=True) as b:
        b.put("people/priya", page)
        ops.run("put", {"slug": "priya", "append": "Based in Toronto."}, brain=b)
        assert b.get_text("people/priya") == page.replace("## Open", "Based in Toronto.\r\r## Open")


@pytest.mark.parametrize("nl", ["\n", "\r\n"])
@pytest.mark.parametrize("gap", [3, 4])
def test_an_append_above_open_threads_keeps_the_blank_lines_above_it(db_path, nl, gap):
    """Review of trial 72: the blank lines between the text and `## Open Threads` were cut to one
    when the paragraph went between them (every other byte of the page stays: the page without
    the paragraph and one blank line is the page before)."""
    page = f"# Priya{nl}{nl}CFO.{nl * gap}## Open Threads{nl}{nl}- Intro call (raised 2026-11-30){nl}"
    with Brain.open(db_path, create=True) as b:
        b.put("people/priya", page)
        ops.run("put", {"slug": "priya", "append": "Based in Toronto."}, brain=b)
        assert b.get_text("people/priya") == page.replace(f"CFO.{nl}", f"CFO.{nl}{nl}Based in Toronto.{nl}", 1)
