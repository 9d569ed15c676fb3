"""The page model: exact round trip and correct derived views."""
from __future__ import annotations

import pytest

from gbrain.page.markdown import (
    append_timeline,
    edit_frontmatter,
    parse_page,
    timeline_line,
)
from gbrain.page.linkedit import unlink_text

pytestmark = pytest.mark.engine_free  # the same on both engines: runs in the SQLite run only (conftest)

ROUNDTRIP_CASES = {
    "lf": "---\ntitle: A\n---\n\nBody\n\n---\n\n- **2025-01-02** | x — y\n",
    "crlf": "---\r\ntitle: A\r\n---\r\n\r\nBody\r\n\r\n---\r\n\r\n- **2025-01-02** | x — y\r\n",
    "mixed": "---\ntitle: A\r\n---\r\nBody\n\r\n---\r\n- **2025-01-02** | x — y",
    "lone_cr": "---\rtitle: A\r---\rBody\r---\rtail",
    "bom": "\ufeff---\ntitle: A\n---\nBody\n",
    "bom_no_fm": "\ufeff# Title\n\ntext",
    "no_frontmatter": "# Just a note\n\nSome text.\n",
    "empty_frontmatter": "---\n---\nBody\n",
    "no_trailing_newline": "---\ntitle: A\n---\nBody",
    "trailing_spaces_tabs": "---\ntitle: A   \n---\n\tindented\t \nline  \n",
    "bad_yaml": "---\ntitle: [unclosed\nkey: : :\n---\nBody\n",
    "yaml_list": "---\n- a\n- b\n---\nBody\n",
    "unclosed_fm": "---\ntitle: A\nno closing\n",
    "dots_close": "---\ntitle: A\n...\nBody\n",
    "only_rule": "---\n",
    "empty": "",
    "fence_sep": "---\nt: 1\n---\n```\n---\n```\n\n---\nTimeline\n",
    "unicode_seps": "Line\u2028with\u2029seps\x0cff\x1c\n---\nafter\n",
    "emoji_cjk": "# 知识库 🧠\n\n[[页面]] and [x](../人/张三.md)\n",
}


@pytest.mark.parametrize("name", sorted(ROUNDTRIP_CASES))
def test_render_parse_is_identity(name):
    text = ROUNDTRIP_CASES[name]
    page = parse_page(text, "people/a.md")
    assert page.render() == text
    assert page.to_bytes() == text.encode("utf-8")


def test_frontmatter_json_keeps_types_and_isoformats_dates():
    p = parse_page("---\ncreated: 2025-03-04\nwhen: 2025-03-04 10:30:00\nflag: yes\nn: 012\nscore: 3.5\nnone:\n---\n", "a.md")
    assert p.frontmatter == {"created": "2025-03-04", "when": "2025-03-04T10:30:00", "flag": "yes", "n": 12, "score": 3.5, "none": None}
    assert p.frontmatter_error is None


def test_bad_yaml_is_kept_raw_with_a_warning():
    text = "---\ntitle: [unclosed\n---\n# Heading\n"
    p = parse_page(text, "notes/x.md")
    assert p.frontmatter == {}
    assert "does not load" in p.frontmatter_error
    assert p.warnings and p.render() == text
    assert p.title == "Heading"


def test_non_mapping_yaml_is_an_error_not_coerced():
    p = parse_page("---\n- a\n---\n", "x.md")
    assert p.frontmatter == {} and "not a mapping" in p.frontmatter_error


def test_unclosed_frontmatter_is_body_and_not_a_separator():
    p = parse_page("---\ntitle: A\n\ntext\n", "x.md")
    assert p.frontmatter_raw == "" and p.separator == "" and p.timeline == ""
    assert "never closed" in p.warnings[0]


def test_title_precedence():
    assert parse_page("---\ntitle: From FM\n---\n# H1\n", "a/b.md").title == "From FM"
    assert parse_page("\n# The **H1**\n\nintro\n", "a/b.md").title == "The H1"
    assert parse_page("intro\n\n# The **H1**\n", "a/b.md").title == "b"  # an H1 further down is no title (issue 10)
    assert parse_page("```\n# not a heading\n```\n", "a/My Note.md").title == "My Note"
    assert parse_page("---\ntitle: 2024\n---\n", "a/b.md").title == "2024"


def test_type_from_frontmatter_then_folder_then_note():
    assert parse_page("---\ntype: yc\n---\n", "people/a.md").type == "yc"
    assert parse_page("x", "people/a.md").type == "person"
    assert parse_page("x", "Companies/a.md").type == "company"
    assert parse_page("x", "meetings/a.md").type == "source"
    assert parse_page("x", "random/a.md").type == "note"
    assert parse_page("x", "a.md").type == "note"


def test_split_at_first_rule_outside_fenced_code():
    text = "---\nt: 1\n---\nabove\n\n```md\n---\ninside fence\n```\n~~~\n---\n~~~\n\n---\n\n- **2025-01-02** | s — below\n"
    p = parse_page(text, "x.md")
    assert "inside fence" in p.compiled_truth
    assert p.separator == "---\n"
    assert p.timeline == "\n- **2025-01-02** | s — below\n"
    assert len(p.timeline_entries) == 1


def test_rule_with_trailing_text_is_not_a_separator():
    p = parse_page("a\n\n--- \n\nb\n\n----\n\nc\n", "x.md")
    assert p.separator == ""


def test_heading_mode_only_splits_before_timeline_heading():
    text = "intro\n\n---\n\nmore prose\n\n---\n\n## Timeline\n\n- **2024-01-01** | a — b\n"
    rule = parse_page(text, "x.md", timeline_split="rule")
    assert rule.compiled_truth == "intro\n\n"
    head = parse_page(text, "x.md", timeline_split="heading")
    assert "more prose" in head.compiled_truth
    assert head.timeline.startswith("\n## Timeline")
    assert len(head.timeline_entries) == 1
    assert head.render() == text


def test_timeline_entries_summary_keeps_hyphens_dates_links_and_detail():
    text = (
        "x\n\n---\n\n"
        "- **2025-03-04** | meeting — Discussed Series-A — see [Bob](bob.md) on 2025-04-01\n"
        "  Detail one\n"
        "    nested detail\n"
        "- **2025-02-01** | just a summary without source\n"
        "- **2025-01-01** | [Ana](a.md) — said hi\n"
        "not an entry\n"
        "```\n- **2020-01-01** | in — fence\n```\n"
    )
    es = parse_page(text, "x.md").timeline_entries
    assert [e.date for e in es] == ["2025-03-04", "2025-02-01", "2025-01-01"]
    assert es[0].source == "meeting"
    assert es[0].summary == "Discussed Series-A — see [Bob](bob.md) on 2025-04-01"
    assert es[0].detail == "Detail one\n  nested detail"
    assert es[1].source == "" and es[1].summary == "just a summary without source"
    assert es[2].source == "" and es[2].summary.startswith("[Ana](a.md)")


def test_no_separator_means_empty_timeline():
    p = parse_page("- **2025-03-04** | meeting — not in a timeline\n", "x.md")
    assert p.timeline == "" and p.timeline_entries == []


def test_links_all_forms_and_nothing_from_code_or_urls():
    text = (
        "[A](../people/a.md) [Sp](../people/Ana%20Lima.md) [Angle](<../people/b c.md>) [Anchor](c.md#part)\n"
        "[[Wiki]] [[path/name|Alias]] [[Name#Heading]] ![[Embedded]] [[Note#^block]] [[x^y]]\n"
        "`[x](code.md)` and `[[code]]` and [ext](https://example.com/a.md) [mail](mailto:a@b.c) [img](pic.png) [self](#top)\n"
        "```\n[[in fence]] [y](fence.md)\n```\n"
        "    [[indented code]]\n"
    )
    p = parse_page(text, "people/x.md")
    got = [(ln.kind, ln.target) for ln in p.links]
    assert got == [
        ("markdown", "../people/a"),
        ("markdown", "../people/Ana Lima"),
        ("markdown", "../people/b c"),
        ("markdown", "c"),
        ("wiki", "Wiki"),
        ("wiki", "path/name"),
        ("wiki", "Name"),
        ("embed", "Embedded"),
        ("wiki", "Note"),
        ("wiki", "x^y"),  # split at the first `#` only, as Obsidian: the note `x^y` (trial 31)
    ]


def test_link_context_is_the_sentence_around_it():
    p = parse_page("First sentence here. Ana works at [Acme](acme.md) since 2020. Last one.\n", "x.md")
    assert p.links[0].context == "Ana works at Acme since 2020."


def test_links_deduplicated_per_page():
    p = parse_page("[[Ana]] and [[ana]] and [A](ana.md) and [B](ana.md)\n", "x.md")
    assert len(p.links) == 2  # one wiki target, one markdown target


@pytest.mark.parametrize(
    "fm,tags",
    [
        ("tags: [a, b]", ["a", "b"]),
        ("tags:\n  - a\n  - b", ["a", "b"]),
        ("tags: a, b ,#c", ["a", "b", "c"]),
        ("tags: solo", ["solo"]),
        ("tags:", []),
        ("tags: [1, 2]", []),  # a number is no tag (Obsidian; as inline #1984): tests/test_numeric_tags.py
        ("tags: [1a, 2]", ["1a"]),
    ],
)
def test_tags_forms(fm, tags):
    assert parse_page(f"---\n{fm}\n---\n", "x.md").tags == tags


def test_edit_frontmatter_tags_keeps_comments_and_style():
    text = "---\n# a comment\ntitle: 'Quoted'\ntags: [a, b]  # inline\nother: 1\n---\nBody\n"
    p = parse_page(text, "x.md")
    new = edit_frontmatter(p, tags=["a", "b", "c"])
    assert "# a comment" in new and "'Quoted'" in new and "other: 1" in new
    assert parse_page(new, "x.md").tags == ["a", "b", "c"]
    assert new.endswith("---\nBody\n")


def test_edit_frontmatter_comma_string_and_crlf_and_no_frontmatter():
    p = parse_page("---\r\ntags: a, b\r\n---\r\nBody\r\n", "x.md")
    new = edit_frontmatter(p, tags=["a", "b", "c"])
    assert "tags: a, b, c\r\n" in new and "\n" not in new.replace("\r\n", "")
    p2 = parse_page("Body only\n", "x.md")
    new2 = edit_frontmatter(p2, tags=["x"])
    assert new2.startswith("---\n") and new2.endswith("---\nBody only\n")
    assert parse_page(new2, "x.md").tags == ["x"]


def test_edit_frontmatter_keeps_a_blank_separated_tags_string_blank_separated():
    """A tag edit (`gbrain tag`, `untag`, lint's fix) of `tags: journal daily` wrote `journal, daily,
    x`: a tags string separated by blanks stays so, `#` marks kept when every word has one."""
    cases = [
        ("tags: journal daily\n", ["journal", "daily", "x"], "tags: journal daily x\n"),
        ("tags: journal daily\n", ["daily"], "tags: daily\n"),
        ("tags: '#journal #daily'\n", ["journal", "daily", "x"], "tags: '#journal #daily #x'\n"),
        ("tags: journal\n", ["journal", "x"], "tags: journal, x\n"),  # one word: no style to keep
        ("tags: journal, daily\n", ["journal", "daily", "x"], "tags: journal, daily, x\n"),
    ]
    for fm, tags, want in cases:
        p = parse_page("---\n" + fm + "---\nBody\n", "x.md")
        new = edit_frontmatter(p, tags=tags)
        assert new == "---\n" + want + "---\nBody\n", (fm, new)
        assert parse_page(new, "x.md").tags == tags


@pytest.mark.parametrize("text", ["# A\n\nText.\n", "\ufeffBody\r\n", "", "No newline"])
def test_tag_then_untag_of_a_page_without_frontmatter_gives_its_bytes_back(text):
    """Removing the last key leaves no empty ``---``/``---`` block behind (trial 50: tag + untag of
    a page that had no frontmatter left one); an empty edit of such a page makes none."""
    p = parse_page(text)
    tagged = edit_frontmatter(p, tags=["x"])
    assert tagged != text and parse_page(tagged).tags == ["x"]
    assert edit_frontmatter(parse_page(tagged), tags=[]) == text
    keyed = edit_frontmatter(p, {"status": "draft"})
    assert edit_frontmatter(parse_page(keyed), {"status": None}) == text
    assert edit_frontmatter(p, {}) == text and edit_frontmatter(p, {"gone": None}) == text


@pytest.mark.parametrize("text, after", [
    ("---\n---\nBody\n", "---\n---\nBody\n"),  # written empty: no key removed, kept
    ("---\n# note\ntags: [x]\n---\nBody\n", "---\n# note\n---\nBody\n"),  # a comment stays, so does its block
    ("---\n\ntags: [x]\n---\nBody\n", "---\n\n---\nBody\n"),  # a blank line inside: kept
    ("---\ntags: [x]\ntitle: A\n---\nBody\n", "---\ntitle: A\n---\nBody\n"),
])
def test_a_frontmatter_block_goes_only_when_nothing_but_its_fences_is_left(text, after):
    assert edit_frontmatter(parse_page(text), tags=[]) == after


@pytest.mark.parametrize("text", [
    "---\ntitle: X\n---\n---\nIntro.\n\n---\n- **2024-01-01** | x\n",  # a rule, then a timeline's ---
    "---\ntitle: X\n---\n---\nIntro.\n",  # a rule opening the body, closed by nothing
])
def test_a_removed_last_key_keeps_its_block_when_the_body_opens_with_a_fence_line(text):
    """Dropping the block would make the body's own ``---`` line open a frontmatter block: its
    intro read as (broken) YAML and the timeline's separator as the closing fence."""
    p = parse_page(text)
    new = edit_frontmatter(p, {"title": None})
    assert new == "---\n---\n" + p.body
    assert parse_page(new).compiled_truth == p.compiled_truth and parse_page(new).timeline == p.timeline


def test_edit_frontmatter_refuses_unparsable_yaml():
    p = parse_page("---\ntitle: [oops\n---\n", "x.md")
    with pytest.raises(ValueError):
        edit_frontmatter(p, tags=["a"])


def test_append_timeline_newest_first_order_is_kept():
    text = "x\n\n---\n\n- **2025-03-01** | a — newest\n  detail\n- **2024-01-01** | b — oldest\n"
    p = parse_page(text, "x.md")
    new = append_timeline(p, timeline_line("2024-06-01", "middle", "c"))
    dates = [e.date for e in parse_page(new, "x.md").timeline_entries]
    assert dates == ["2025-03-01", "2024-06-01", "2024-01-01"]
    assert new.startswith("x\n\n---\n\n- **2025-03-01** | a — newest\n  detail\n")


def _dates_after(text: str, *dates: str) -> list[str]:
    for d in dates:
        text = append_timeline(parse_page(text, "x.md"), timeline_line(d, "e " + d, "c"))
    return [e.date for e in parse_page(text, "x.md").timeline_entries]


def test_append_timeline_to_a_page_of_zero_or_one_entries_is_newest_first():
    """The spec's timeline is reverse-chronological: with no order to follow yet (0 or 1 dated
    entries, or all on one day), a newer entry goes above an older one (it used to go last, so
    three timeline-adds of 01-10, 01-20, 01-05 read 10, 20, 05)."""
    assert _dates_after("# T\n\nbody\n", "2025-01-10", "2025-01-20", "2025-01-05") == ["2025-01-20", "2025-01-10", "2025-01-05"]
    one = "# T\n\n---\n\n- **2025-01-10** | c — a\n"
    assert _dates_after(one, "2025-01-20") == ["2025-01-20", "2025-01-10"]
    assert _dates_after(one, "2025-01-01") == ["2025-01-10", "2025-01-01"]
    same_day = "# T\n\n---\n\n- **2025-01-10** | c — a\n- **2025-01-10** | c — b\n"
    assert _dates_after(same_day, "2025-02-01", "2024-12-01") == ["2025-02-01", "2025-01-10", "2025-01-10", "2024-12-01"]


def test_append_timeline_keeps_an_oldest_first_page_oldest_first():
    asc = "# T\n\n---\n\n## Timeline\n\n- **2024-01-01** | c — a\n  more\n- **2024-06-01** | c — b\n"
    assert _dates_after(asc, "2024-03-01", "2025-01-01", "2023-01-01", "2024-06-01") == [
        "2023-01-01", "2024-01-01", "2024-03-01", "2024-06-01", "2024-06-01", "2025-01-01"]
    new = append_timeline(parse_page(asc, "x.md"), timeline_line("2024-03-01", "mid", "c"))
    assert new == asc.replace("  more\n", "  more\n- **2024-03-01** | c — mid\n")


def test_append_timeline_to_entries_in_no_order_goes_last():
    mixed = "# T\n\n---\n\n- **2024-06-01** | c — a\n- **2025-01-01** | c — b\n- **2024-01-01** | c — c\n"
    assert _dates_after(mixed, "2024-03-01") == ["2024-06-01", "2025-01-01", "2024-01-01", "2024-03-01"]


def test_append_timeline_creates_separator_and_keeps_crlf():
    p = parse_page("---\r\nt: 1\r\n---\r\nBody", "x.md")
    new = append_timeline(p, timeline_line("2025-01-01", "hello", "manual", nl="\r\n"))
    assert new == "---\r\nt: 1\r\n---\r\nBody\r\n\r\n---\r\n\r\n- **2025-01-01** | manual — hello\r\n"
    assert len(parse_page(new, "x.md").timeline_entries) == 1


def test_unlink_text_turns_links_into_labels_outside_code():
    text = "See [Ana](ana.md) and [[ana|Ana L]] and [[Bob]].\n```\n[Ana](ana.md)\n```\n"
    new, n = unlink_text(text, lambda kind, t: t.lower() == "ana")
    assert n == 2
    assert new == "See Ana and Ana L and [[Bob]].\n```\n[Ana](ana.md)\n```\n"


def test_yaml_that_only_libyaml_rejects_still_loads():
    p = parse_page("---\nsources: [web:https://github.com/a/b, web:https://arxiv.org/abs/1]\n---\n", "x.md")
    assert p.frontmatter_error is None
    assert p.frontmatter == {"sources": ["web:https://github.com/a/b", "web:https://arxiv.org/abs/1"]}


def test_repeated_tag_edits_never_duplicate_comment_lines():
    text = "---\ntags: [a] # fc\n# sc\n---\n"
    for i in range(6):
        p = parse_page(text, "p.md")
        text = edit_frontmatter(p, tags=p.tags + [f"t{i}"])
    assert text == "---\ntags: [a, t0, t1, t2, t3, t4, t5] # fc\n# sc\n---\n"


def test_tag_edits_keep_item_comments_quotes_and_indentation():
    text = '---\n# lead\ntags:\n  - alpha   # why alpha\n  - beta\n  - "gamma"\n# trailing\nx: 1\n---\nbody\n'
    removed = edit_frontmatter(parse_page(text, "p.md"), tags=["alpha", "gamma"])
    assert removed == '---\n# lead\ntags:\n  - alpha   # why alpha\n  - "gamma"\n# trailing\nx: 1\n---\nbody\n'
    added = edit_frontmatter(parse_page(text, "p.md"), tags=["alpha", "beta", "gamma", "delta"])
    assert added == '---\n# lead\ntags:\n  - alpha   # why alpha\n  - beta\n  - "gamma"\n  - delta\n# trailing\nx: 1\n---\nbody\n'


def test_unlink_text_leaves_inline_code_alone():
    text = "See [[ana]] and `[[ana]]` and ``x [A](ana.md)`` and [A](ana.md).\n"
    new, n = unlink_text(text, lambda kind, t: t == "ana")
    assert n == 2
    assert new == "See ana and `[[ana]]` and ``x [A](ana.md)`` and A.\n"


def test_edit_frontmatter_keeps_the_frontmatter_line_ending_of_a_mixed_page():
    """LF frontmatter above a CRLF body (a file edited by two editors): a tag edit writes LF
    lines into the frontmatter and leaves the body's bytes alone."""
    text = "---\ntitle: A\ntags: [a]\n---\r\nBody\r\nmore\r\n"
    new = edit_frontmatter(parse_page(text, "x.md"), tags=["a", "b"])
    fm, body = new.split("---\r\n", 1)[0], new.split("\n---", 1)[1]
    assert "\r" not in fm and body == "\r\nBody\r\nmore\r\n"
    assert parse_page(new, "x.md").tags == ["a", "b"]
    # and the other way round: CRLF frontmatter, LF body
    text2 = "---\r\ntitle: A\r\n---\nBody\n"
    new2 = edit_frontmatter(parse_page(text2, "x.md"), tags=["x"])
    assert new2.endswith("---\nBody\n") and "\n" not in new2.split("---\nBody")[0].replace("\r\n", "")


def test_a_date_set_from_json_is_written_as_a_yaml_date_not_a_quoted_string():
    """A trial: ``brain_put {"frontmatter": {"updated": "2026-12-02"}}`` over ``updated:
    2024-01-01`` wrote ``updated: '2026-12-02'`` (a date became quoted text; Obsidian shows such a
    property as text, not a date). A calendar date is written as a date; the frontmatter JSON is
    the same string either way; a page that quotes its dates keeps quoting; not-a-date stays text."""
    from gbrain.page.markdown import edit_frontmatter, parse_page

    cases = [
        ("---\nupdated: 2024-01-01\ntitle: X\n---\nx\n", "---\nupdated: 2026-12-02\ntitle: X\n---\nx\n"),
        ("---\ntitle: X\n---\nx\n", "---\ntitle: X\nupdated: 2026-12-02\n---\nx\n"),
        ("x\n", "---\nupdated: 2026-12-02\n---\nx\n"),
        ("---\nupdated: '2024-01-01'\n---\nx\n", "---\nupdated: '2026-12-02'\n---\nx\n"),
        ('---\nupdated: "2024-01-01"\n---\nx\n', '---\nupdated: "2026-12-02"\n---\nx\n'),
    ]
    for before, after in cases:
        out = edit_frontmatter(parse_page(before, "a.md"), {"updated": "2026-12-02"})
        assert out == after, (before, out)
        assert parse_page(out, "a.md").frontmatter["updated"] == "2026-12-02"
    out = edit_frontmatter(parse_page("x\n", "a.md"), {"d": "2026-02-30", "v": "1.2.3", "t": "2026-12-02T10:00:00Z"})
    assert parse_page(out, "a.md").frontmatter == {"d": "2026-02-30", "v": "1.2.3", "t": "2026-12-02T10:00:00Z"}


@pytest.mark.parametrize("update, tags, want", [
    ({"mood": "good"}, None, "tags: journal, daily  # mine\nmood: good  # today\n"),
    ({"mood": "a longer value"}, None, "tags: journal, daily  # mine\nmood: a longer value  # today\n"),
    (None, ["journal"], "tags: journal  # mine\nmood: ok  # today\n"),
    (None, ["journal", "daily", "lisbon"], "tags: journal, daily, lisbon  # mine\nmood: ok  # today\n"),
    ({"mood": None}, None, "tags: journal, daily  # mine\n"),
])
def test_a_key_rewritten_keeps_the_comment_at_the_end_of_its_line(update, tags, want):
    """`untag`, `tag`, `put --frontmatter` on a journal's ``tags: journal, daily  # mine`` lost the
    comment: ruamel keeps a scalar's end-of-line comment with the mapping, and the one-key dump
    rewrote the line without it (trial17). The comment stays, with its blanks before it."""
    p = parse_page("---\ntags: journal, daily  # mine\nmood: ok  # today\n---\nBody\n", "d.md")
    assert edit_frontmatter(p, update, tags=tags) == "---\n" + want + "---\nBody\n"


@pytest.mark.parametrize("before, update, tags, after", [
    ("mood: ok\t# today\ntags: [a]\n", {"mood": "good"}, None, "mood: good\t# today\ntags: [a]\n"),
    ("mood: ok\t# today\ntags: [a]\n", None, ["a", "b"], "mood: ok\t# today\ntags: [a, b]\n"),
    ("tags: journal, daily\t# mine\n", None, ["journal"], "tags: journal\t# mine\n"),
    ("mood:\tok\ntags: [a]\n", None, ["b"], "mood:\tok\ntags: [b]\n"),
    ("mood: ok \t # c\nn: 1\n", {"n": 2}, None, "mood: ok \t # c\nn: 2\n"),
    # a block list is dumped again as a whole: its item's comment stays, after a space
    ("tags:\n  - a\t# first\n  - b\nn: 1\t# c\n", None, ["a", "b", "c"], "tags:\n  - a # first\n  - b\n  - c\nn: 1\t# c\n"),
])
def test_a_tab_where_yaml_allows_blanks_does_not_stop_a_frontmatter_edit(before, update, tags, after):
    """YAML 1.2 separates a comment (and a value) by white space, a space or a tab
    (``s-separate-in-line``); the loader that reads pages (libyaml) reads ``mood: ok<TAB># c``,
    ruamel's round-trip loader behind the edit did not: `put --frontmatter`, `tag` and `untag`
    died with a traceback (trial17). The edit works; the tab stays in every line it does not rewrite."""
    p = parse_page("---\n" + before + "---\nBody\n", "d.md")
    assert p.frontmatter_error is None
    out = edit_frontmatter(p, update, tags=tags)
    assert out == "---\n" + after + "---\nBody\n"


def test_a_tab_inside_a_value_the_editor_cannot_read_is_a_clear_refusal():
    """A tab inside a plain value (``k: a<TAB>b``) loads as ``a\\tb``; the round-trip loader
    cannot read it and a space would change the value: the edit is refused naming the line and
    what to do (a ValueError, which `put`/`tag` turn into a conflict: nothing written)."""
    p = parse_page("---\ntitle: T\nk: a\tb\n---\nBody\n", "d.md")
    assert p.frontmatter == {"title": "T", "k": "a\tb"}
    with pytest.raises(ValueError, match=r"line 3.*tab.*space"):
        edit_frontmatter(p, {"title": "U"})
