"""put's `replace` (MCP `brain_put {"slug", "replace": {OLD: NEW}}`): find-and-replace in place
(trial 48: an agent used to a memory server's find_replace edit fixed a one-letter typo by reading
the whole page and putting it all back; on a long page that is the page twice through the
context, and a whole put races other writers). Each OLD must occur exactly once in the page's
text, all are found in the text as it was (order-independent, never overlapping), every other byte
stays. Both engines (``db_path``).
"""
from __future__ import annotations

import json

import pytest

from gbrain.core.brain import Brain
from gbrain.errors import BadInput, Conflict, NotFound
from gbrain import operations as ops

from conftest import gbrain_in_process

PAGE = ("---\ntitle: Sync\ntags: [meeting]\n---\n\n# Sync\n\n- Decision: pilot the enery benchmark with two utilities.\n"
        "- Aoife sends numbers.\n- Aoife sends more numbers.\n\n---\n\n- **2026-12-05** | meeting — Sync\n")


def test_replace_fixes_a_typo_in_place(db_path):
    with Brain.open(db_path, create=True) as b:
        b.put("meetings/sync", PAGE)
        r = ops.run("put", {"slug": "meetings/sync", "replace": {"enery": "energy"}}, brain=b)
        assert r["changed"] and b.get_text("meetings/sync") == PAGE.replace("enery", "energy")
        assert r["content_hash"] == b.page_row("meetings/sync")["content_hash"]
        h = ops.run("history", {"slug": "meetings/sync"}, brain=b)
        assert h["versions"][0]["operation"] == "put replace"
        # several at once, each found in the text as it was; a frontmatter key in the same put
        r = ops.run("put", {"slug": "sync", "replace": {"two utilities": "three utilities", "# Sync": "# Sync with Aoife"},
                            "frontmatter": {"status": "done"}}, brain=b)
        text = b.get_text("meetings/sync")
        assert "three utilities" in text and "# Sync with Aoife\n" in text and "status: done\n" in text
        assert b.page_row("meetings/sync")["title"] == "Sync"
        assert [e.summary for e in b.parse_text(text, "meetings/sync.md").timeline_entries] == ["Sync"]


def test_replace_refuses_a_text_not_found_once_and_writes_nothing(db_path):
    with Brain.open(db_path, create=True) as b:
        b.put("meetings/sync", PAGE)
        h0 = b.page_row("meetings/sync")["content_hash"]
        with pytest.raises(BadInput, match="not in meetings/sync"):
            ops.run("put", {"slug": "meetings/sync", "replace": {"enerrgy": "energy"}}, brain=b)
        with pytest.raises(BadInput, match="2 times"):
            ops.run("put", {"slug": "meetings/sync", "replace": {"Aoife sends": "Ana sends"}}, brain=b)
        with pytest.raises(BadInput, match="overlap"):
            ops.run("put", {"slug": "meetings/sync", "replace": {"enery bench": "x", "benchmark": "y"}}, brain=b)
        with pytest.raises(BadInput, match="empty"):
            ops.run("put", {"slug": "meetings/sync", "replace": {"": "x"}}, brain=b)
        with pytest.raises(BadInput):
            ops.run("put", {"slug": "meetings/sync", "replace": {"enery": 3}}, brain=b)
        with pytest.raises(BadInput, match="not both"):
            ops.run("put", {"slug": "meetings/sync", "content": "x", "replace": {"enery": "energy"}}, brain=b)
        with pytest.raises(NotFound):
            ops.run("put", {"slug": "meetings/nope", "replace": {"a": "b"}}, brain=b)
        with pytest.raises(Conflict):
            ops.run("put", {"slug": "meetings/sync", "replace": {"enery": "energy"}, "if_hash": "0" * 64}, brain=b)
        assert b.page_row("meetings/sync")["content_hash"] == h0 and b.get_text("meetings/sync") == PAGE
        assert b.page_row("meetings/nope") is None


def test_replace_keeps_a_crlf_page_s_line_ends(db_path):
    crlf = PAGE.replace("\n", "\r\n")
    with Brain.open(db_path, create=True) as b:
        b.put("meetings/sync", crlf)
        ops.run("put", {"slug": "meetings/sync", "replace": {"enery benchmark with two utilities.\n- Aoife sends numbers.": "energy pilot.\n- Aoife: numbers."}}, brain=b)
        assert b.get_text("meetings/sync") == crlf.replace("enery benchmark with two utilities.\r\n- Aoife sends numbers.", "energy pilot.\r\n- Aoife: numbers.")


def test_replace_on_the_command_line_and_call(db_path):
    with Brain.open(db_path, create=True) as b:
        b.put("meetings/sync", PAGE)
    r = gbrain_in_process("--db", str(db_path), "put", "meetings/sync", "--replace", json.dumps({"enery": "energy"}))
    assert r.returncode == 0, r.stderr
    r = gbrain_in_process("--db", str(db_path), "call", "put", json.dumps({"slug": "meetings/sync", "replace": {"energy benchmark": "energy test"}}))
    assert r.returncode == 0, r.stderr
    with Brain.open(db_path) as b:
        assert b.get_text("meetings/sync") == PAGE.replace("enery benchmark", "energy test")


def test_replace_with_compiled_truth_is_refused_not_lost(db_path):
    """compiled_truth writes the text above the --- line whole: a replace beside it was applied
    first and then overwritten, its edit silently lost while the put said changed (review48)."""
    with Brain.open(db_path, create=True) as b:
        b.put("meetings/sync", PAGE)
        with pytest.raises(BadInput, match="compiled"):
            ops.run("put", {"slug": "meetings/sync", "replace": {"enery": "energy"}, "compiled_truth": "# Sync\n\nNew.\n"}, brain=b)
        assert b.get_text("meetings/sync") == PAGE


def test_replace_finds_the_old_text_in_the_page_s_unicode_form(db_path):
    """A page written in NFD (text pasted from a PDF, a Mac) and an old text sent in NFC (what an
    agent's JSON carries), or the other way round: the same text, found, and the new text
    written in the page's form."""
    import unicodedata

    nfd = unicodedata.normalize("NFD", "# Café\n\nRené's enery café.\n")
    with Brain.open(db_path, create=True) as b:
        b.put("notes/cafe", nfd)
        ops.run("put", {"slug": "notes/cafe", "replace": {"René's enery": "René's energy"}}, brain=b)
        assert b.get_text("notes/cafe") == nfd.replace(unicodedata.normalize("NFD", "René's enery"), unicodedata.normalize("NFD", "René's energy"))
        b.put("notes/nfc", "Zoë said hi.\n")
        ops.run("put", {"slug": "notes/nfc", "replace": {unicodedata.normalize("NFD", "Zoë said"): "Zoë says"}}, brain=b)
        assert b.get_text("notes/nfc") == "Zoë says hi.\n"


def test_replace_never_splits_a_crlf(db_path):
    """On a CRLF page an old text ending in the CR of a line end would leave a lone LF in the
    page: refused, nothing written."""
    crlf = PAGE.replace("\n", "\r\n")
    with Brain.open(db_path, create=True) as b:
        b.put("meetings/sync", crlf)
        for old in ("utilities.\r", "Aoife sends numbers.\r"):
            with pytest.raises(BadInput, match="line end"):
                ops.run("put", {"slug": "meetings/sync", "replace": {old: "x"}}, brain=b)
        assert b.get_text("meetings/sync") == crlf


def test_replace_never_moves_where_the_timeline_starts(db_path):
    """trial 50: a replace whose new text held a `---` line ({"- Aoife sends numbers.": "---\\n\\n- Aoife
    sends numbers."}) moved the timeline's start up: the compiled truth below it became timeline,
    silently, where `append` and `compiled_truth` refuse such a line. Refused (nothing written);
    a `---` inside a code fence, or one below the timeline's start, stays a replace like any other."""
    with Brain.open(db_path, create=True) as b:
        b.put("meetings/sync", PAGE)
        for pairs in ({"- Aoife sends numbers.": "---\n\n- Aoife sends numbers."},
                      {"# Sync\n": "# Sync\n\n---\n"}):
            with pytest.raises(BadInput, match="timeline"):
                ops.run("put", {"slug": "meetings/sync", "replace": pairs}, brain=b)
        assert b.get_text("meetings/sync") == PAGE
        b.put("notes/plain", "# Plain\n\nNo timeline here.\n")
        with pytest.raises(BadInput, match="timeline"):  # a page with none gets none from a replace
            ops.run("put", {"slug": "notes/plain", "replace": {"No timeline": "---\n\nNo timeline"}}, brain=b)
        fenced = {"- Aoife sends numbers.": "```\n---\n```\n- Aoife sends numbers."}
        assert ops.run("put", {"slug": "meetings/sync", "replace": fenced}, brain=b)["changed"]
        below = {"| meeting — Sync": "| meeting — Sync\n\n---\n"}
        assert ops.run("put", {"slug": "meetings/sync", "replace": below}, brain=b)["changed"]
        text = b.get_text("meetings/sync")
        assert "```\n---\n```\n" in text and b.parse_text(text, "meetings/sync.md").compiled_truth.endswith("more numbers.\n\n")
        # a replace across the separator itself is the user's own edit of it
        assert ops.run("put", {"slug": "meetings/sync", "replace": {"more numbers.\n\n---\n": "more numbers.\n\n***\n"}}, brain=b)["changed"]


@pytest.mark.parametrize("given, kind", [('["enery", "energy"]', "an array"), ('"enery"', "a string"), ("3", "a number")])
def test_replace_given_no_object_says_what_it_takes(db_path, given, kind):
    """An array or a string for ``replace`` was refused with the generic "must be a mapping of keys
    to values" (trial 50): it says it takes {old text: new text}, with an example, on every surface."""
    with Brain.open(db_path, create=True) as b:
        b.put("meetings/sync", PAGE)
    r = gbrain_in_process("--db", str(db_path), "put", "meetings/sync", "--replace", given)
    assert r.returncode == 2
    assert f"--replace takes {{old text: new text}}, e.g. {{\"enery\": \"energy\"}}; got {kind}" in r.stderr.decode(), r.stderr
    r = gbrain_in_process("--db", str(db_path), "call", "put", json.dumps({"slug": "meetings/sync", "replace": json.loads(given)}))
    assert r.returncode == 2 and "takes {old text: new text}, e.g." in r.stderr.decode(), r.stderr
    with Brain.open(db_path) as b:
        assert b.get_text("meetings/sync") == PAGE


def test_a_replace_that_takes_out_the_separator_warns_of_the_timeline_entries_gone(db_path):
    """s58 trial 72: an agent replaced a `## Open Threads` section it had read, the `---` below it
    included; the put answered `changed`, no warning, and the page's timeline was gone (its entries
    compiled truth). Still written (a replace of the separator is the writer's own edit of it),
    now with a warning that counts the entries and names the revert; a replace that keeps them
    has none."""
    page = "# Ana\n\n## Open Threads\n\n- Call Bo\n\n---\n\n- **2026-11-30** | meeting — Met\n- **2026-11-01** | call — Called\n"
    with Brain.open(db_path, create=True) as b:
        b.put("people/ana", page)
        r = ops.run("put", {"slug": "people/ana", "replace": {"- Call Bo\n\n---\n": "- (none)\n"}}, ops.Context(surface="mcp"), brain=b)
        assert r["changed"] and b.parse_text(b.get_text("people/ana"), "people/ana.md").timeline_entries == []
        assert len(r["warnings"]) == 1, r
        assert "2 timeline entries" in r["warnings"][0] and 'brain_revert {"slug": "people/ana", "to": 1}' in r["warnings"][0], r
        r = ops.run("put", {"slug": "people/ana", "replace": {"- (none)": "- Call Bo"}}, ops.Context(surface="mcp"), brain=b)
        assert r["changed"] and r["warnings"] == []
