"""The pulldown-cmark fast path (gbrain/page/fastparse.py) gives every derived view the mistune
path gives: on the pages of every corpus in ../shared/corpora and of a make_brain brain (a
deterministic sample of them, :func:`sample_pages`; every page with GBRAIN_FULL_CORPUS=1) and on
generated pages, ``parse_page`` with ``FAST_PARSE`` on and off yields the same links (with
their text, context, count and forms), tags, title, headings, timeline entries, separator
position and FTS fields, and the page still renders to its text."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import CORPORA, make_brain, tree_pages
from corpus_sample import FULL_CORPUS, sample_pages
from gbrain.page import markdown
from gbrain.page.markdown import parse_page
from gbrain.search.keyword import search_fields

pytestmark = pytest.mark.engine_free  # the same on both engines: runs in the SQLite run only (conftest)

pytest.importorskip("pyromark")


def views(page) -> tuple:
    """Everything derived from a page's text that reaches the database."""
    return (
        page.compiled_truth,
        page.separator,
        page.timeline,
        page.title,
        page.type,
        page.tags,
        page.inline_tags,
        page.aliases,
        page.headings,
        [(ln.kind, ln.target, ln.text, ln.context, ln.count, ln.forms, ln.labels) for ln in page.links],
        [(t.date, t.source, t.summary, t.detail) for t in page.timeline_entries],
        page.warnings,
        search_fields(page),
    )


def both_ways(text: str, path: str, split: str = "rule", tag_syntax: str = "obsidian") -> tuple[tuple, tuple]:
    """(fast path views, mistune views) of one page; asserts the fast one renders back."""
    try:
        markdown.FAST_PARSE = True
        fast = parse_page(text, path, timeline_split=split, tag_syntax=tag_syntax)
        markdown.FAST_PARSE = False
        slow = parse_page(text, path, timeline_split=split, tag_syntax=tag_syntax)
    finally:
        markdown.FAST_PARSE = True
    assert fast.render() == text
    return views(fast), views(slow)


def uses_fast_path(text: str) -> bool:
    from gbrain.page.fastparse import parse_blocks

    body = markdown.split_frontmatter(text[1:] if text.startswith(markdown.BOM) else text)[1]
    body = body.replace("\r\n", "\n").replace("\r", "\n")
    return parse_blocks(body if body.endswith("\n") else body + "\n") is not None


def assert_tree_equal(pages: list[tuple[str, str]], min_fast: float) -> None:
    """Every page of ``pages`` (:func:`sample_pages`' sample of them) has the same views both
    ways; at least ``min_fast`` of them take the fast path."""
    sample = sample_pages(pages)
    bad = []
    for path, text in sample:
        a, b = both_ways(text, path)
        if a != b:
            bad.append(path)
    assert not bad, f"{len(bad)} pages differ between the fast path and mistune, e.g. {bad[:5]}"
    # the fast path is taken where it should be (a guard against a silently disabled path)
    # (over every page: one pulldown-cmark pass each, ~1/20 of a page's comparison)
    fast = sum(uses_fast_path(text) for _, text in pages)
    assert fast >= min_fast * len(pages), (fast, len(pages))


CORPUS_NAMES = ["obsidian-help", "obsidian-hub", "llm-wiki-ob-vault", "msdocs-ad-identity", "gbrain-style"]


@pytest.mark.parametrize("corpus", CORPUS_NAMES)
def test_corpus_pages_parse_the_same_both_ways(corpus):
    root = CORPORA / corpus
    if not root.is_dir():
        pytest.skip(f"{root} not available")
    assert_tree_equal(tree_pages(root), min_fast=0.85)


def test_every_corpus_is_compared():
    """A corpus added to ../shared/corpora with markdown notes must join the list above."""
    if not CORPORA.is_dir():
        pytest.skip("../shared/corpora not available")
    with_md = {d.name for d in CORPORA.iterdir() if d.is_dir() and any(d.rglob("*.md"))}
    with_md -= {"ir"}  # SOURCE.md only
    assert with_md <= set(CORPUS_NAMES)


def test_make_brain_pages_parse_the_same_both_ways(tmp_path):
    pages = int(os.environ.get("GBRAIN_FASTPARSE_PAGES", "2500"))
    tree = make_brain(tmp_path / "brain", pages)
    assert_tree_equal(tree_pages(tree), min_fast=0.95)


# ---- generated pages: the constructs where the two block parsers could part ----------------

WORD = st.text(alphabet=st.sampled_from(list("ab #[]()!|*_`<>$%:-.\\é知")), max_size=10)
PIECE = st.one_of(
    WORD,
    st.sampled_from(
        [
            "[[Ana]]", "[[people/ana|Ana B]]", "![[img.png]]", "[x](../people/bo.md)", "[y](<a b.md>)",
            "[z](c.md \"t\")", "#tag", "#a/b", "#1984", "`code [[x]]`", "<span>[[h]]</span>", "%% c [[x]] %%",
            "$$ m $$", "*em [[e]]*", "\\[[n]]", "[r][ref]", "https://x.y/#z", "&amp;", "  ", "\t", "[^1]", "$a #m$",
            # what a continuation line may start with that opens no block (or does)
            "**b**", "-x", "--", "-- | --", "+", "1.5", "1)", "2.", "=", "==", "``x``", "```", "~~", "~~~", "_", "__", "___", "* * *",
            "#", "##x", "|", "\\#esc", "\\\\#b",  # an escaped hash (no tag), an escaped backslash before one
        ]
    ),
)
PREFIX = st.sampled_from(
    ["", "", "", "# ", "## ", "### ", "- ", "  - ", "    - ", "* ", "1. ", "2) ", "> ", "> - ", "- > ", "  ", "   ", "    ", "\t", "- [ ] "]
)
WHOLE_LINE = st.sampled_from(
    [
        "", "", "---", "***", "===", "```", "```py", "~~~", "````", "%%", "%% note %%", "%% c [[x]] %%", "$$", "$$ x $$",
        "<div>", "</div>", "<!-- c -->", "<!--", "-->", "[ref]: ../people/ref.md", "## Timeline",
        "- **2024-01-02** | meeting — met [[Ana]]", "  detail [[Bo]]", "| a | [[t]] |", "|---|---|",
        "[^1]: note [[f]] #ft", "[^n]: Roadmap", "    more of a note [[g]]",
    ]
)


@st.composite
def line(draw) -> str:
    if draw(st.integers(0, 2)) == 0:
        return draw(WHOLE_LINE)
    return draw(PREFIX) + "".join(draw(st.lists(PIECE, max_size=5)))


@st.composite
def page_text(draw) -> str:
    fm = draw(st.sampled_from(["", "---\ntitle: T\n---\n", "---\ntags: [x]\n---\n"]))
    nl = draw(st.sampled_from(["\n", "\n", "\r\n"]))
    return fm + nl.join(draw(st.lists(line(), max_size=16))) + draw(st.sampled_from(["", nl]))


@settings(max_examples=int(os.environ.get("GBRAIN_FASTPARSE_EXAMPLES", "400")), deadline=None)
@given(page_text(), st.sampled_from(["rule", "heading"]))
def test_generated_pages_parse_the_same_both_ways(text, split):
    fast, slow = both_ways(text, "notes/x.md", split)
    assert fast == slow


@pytest.mark.parametrize(
    "text",
    [
        "%% opening comment %%\n# Title\n",
        "# Title\n%% c %%\n---\n- **2024-01-01** | x\n",
        "- a\n%% lazy? %%\n\n---\n",
        "> q\n%% c %%\n",
        "text\n%% c\n---\n%%\nmore [[x]]\n",
        "$$\n---\n$$\n\n---\n",
        "```\n%% c %%\n```\n---\n",
        "<div>\n---\n</div>\n\n---\n",
        "- item\n\n  %% inside %%\n\n  ---\n",
        "- [ ] \n\n  %% c [[x]] %%",  # an empty task item (found by the generated pages)
        "* :\n\n  %% c [[x]] %%",  # an indented comment after a blank line below an item (same)
        "* :\n\n %% c [[x]] %%\n",
        "  - \n  detail [[Bo]]\n---",  # an indented empty item: its range starts at the line start
        # continuation lines of an item or quote that open no block (obsidian-help: **Note:**, `code`)
        # or do; a fence in an item that a lazy line follows (mistune: its code to the end)
        "- a\n  **Note:** [[x]]\n",
        "> a\n> `mod` [[x]]\n",
        "> a\n> -- | --\n> [[x]]\n",
        "- a\n  #tag [[x]]\n",
        "- a\n  1.5 [[x]]\n",
        "- a\n  *x* [[x]]\n",
        # and lines that do
        "- a\n  * b [[x]]\n", "- a\n  1) b [[x]]\n", "- a\n  ***\n[[x]]\n", "- a\n  ```\n[[x]]\n", "- a\n  # h [[x]]\n",
        "- a\n  ==\n[[x]]\n", "- a\n  --\n[[x]]\n", "> a\n> ~~~\n> [[x]]\n", "- a\n  _ _ _\n[[x]]\n", "- a\n  -\n[[x]]\n",
        "- a\n  2. b [[x]]\n", "> a\n> 2) b [[x]]\n", "- a\n  *\n  [[x]]\n", "- ```\n[[Ana]]",
        "> q\n\n  $$ m $$\n[[y]]\n",
        "%% a %%\n%% b %%\ntext [[y]]\n",
        "é %% c %%\n\n%% ü [[x]] %%\n\n[[z]] ü\n",
        "- `a\n  b` [[x]]\n",
        "> [a\n> b](c.md) and [[d]]\n",
        "Setext [[x]]\n===\n",
        "- Setext [[x]]\n  ---\n",
        "".join("  " * i + "- level [[x%d]] #t%d\n" % (i, i) for i in range(30)),
        "> " * 40 + "deep [[q]] #q\n",
        # a one-line comment or math block right below a list item's line: mistune's list parser
        # takes it into the item as a lazy line (obsidian-hub's "%% Hub MOCs … %%" after its list)
        "- [[a]]\n%% c [[x]] %%\n\ntext [[y]]\n",
        "- a\n%% x %%\n%% y [[x]] %%\n[[z]]\n",
        "- a\n%% c %%\n- b [[x]]\n",
        "- a\n%% c %%\n  more [[x]]\n",
        "- a\n%% c %%\n---\n[[x]]\n",
        "- a\n   %% c [[x]] %%\n---\n",
        "- a\n\n  para\n%% c [[x]] %%\n",
        "* a\n  * b\n%% c [[x]] %%\n",
        "- a\n$$ m [[x]] $$\n",
        "- # h\n%% c [[x]] %%\n",
        "- # h\n%% c %%\n---\n",
        "- ***\n%% c %%\n---\n",  # not in the item for pulldown-cmark: a setext heading
        "- a\n%% c\n\n%%\n---\n%%\n",  # two lines: mistune reads a comment block from the third
        "> - a\n%% c [[x]] %%\n",
        "- a\n  ```\n  x\n%% c [[x]] %%\n",
        "- a\n  ```\n  x\n%% c %%\n[[y]]\n",  # mistune: the comment and [[y]] are code of the item
        "- a\n  <div>\n%% c [[x]] %%\n",
        "- a\n  <div>\n%% c %%\n[[y]]\n",
        "1. a\n%% c\n---\n%%\n[[x]]\n",
        "- a\n%% c %%\n%% d\n---\n%%\n",
        "- a\n%% c %%\n\n%% d [[x]] %%\n---\n- **2024-01-01** | e\n",
        "- é\n%% ü [[x]] %%\n\n%% ö %%\n[[z]] ü\n",
        # an underline of '=' and '-' mixed: mistune's setext rule takes it (a heading, the page's
        # title), CommonMark's and pulldown-cmark's do not (a paragraph); found by a seed sweep
        "===\n--=", "a\n--=\n", "Title [[x]]\n=-=\n", "> a\n> -=\n", "- a\n  =-\n[[x]]\n",
    ],
)
def test_known_shapes_parse_the_same_both_ways(text):
    fast, slow = both_ways(text, "notes/x.md")
    assert fast == slow


def test_lazy_comment_lines_take_the_fast_path():
    """A one-line comment right below a list (obsidian-hub's "%% Hub MOCs: Don't edit above %%",
    in 448 of its pages) stays on the fast path: a guard against sending those pages back to
    mistune."""
    text = "## MOC\n%% Hub MOCs: below %%\n-  [[a|A]]\n-  [[b|B]]\n%% Hub MOCs: above %%\n\n%% footer %%\n\n# In GitHub\n"
    assert uses_fast_path(text)
    fast, slow = both_ways(text, "notes/x.md")
    assert fast == slow


def test_without_pyromark_mistune_parses(monkeypatch):
    """pyromark missing: every page goes to mistune (the dependency is optional at run time)."""
    import sys

    monkeypatch.setattr(markdown, "_FAST", None)
    monkeypatch.setitem(sys.modules, "gbrain.page.fastparse", None)  # import raises ImportError
    p = parse_page("# T\n\nSee [[Ana]].\n", "x.md")
    assert [ln.target for ln in p.links] == ["Ana"] and markdown._FAST is False


# ---- the fast inline path (fastparse._link_tokens, render_inline) ------------------------------
# It gives mistune's own tokens for the block text it takes, and leaves the rest to mistune: a
# text it returns tokens for must get exactly ``link_inline``'s tokens.


def block_texts(pages: list[tuple[str, str]]) -> tuple[list[str], list[str]]:
    """(stripped paragraph / list texts, stripped heading texts) of the fast-path pages."""
    from gbrain.page.fastparse import parse_blocks

    texts: list[str] = []
    heads: list[str] = []

    def walk(toks):
        for t in toks:
            if "children" in t:
                walk(t["children"])
            elif "text" in t:
                (heads if t["type"] == "heading" else texts).append(t["text"].strip(" \r\n\t\f"))

    for _, text in pages:
        body = markdown.split_frontmatter(text[1:] if text.startswith(markdown.BOM) else text)[1]
        body = body.replace("\r\n", "\n").replace("\r", "\n")
        got = parse_blocks(body if body.endswith("\n") else body + "\n")
        if got is not None:
            walk(got[0])
    return texts, heads


def merged(tokens: list) -> list:
    """``tokens`` with adjacent text tokens joined, at every depth: the views read text tokens
    only joined (mistune splits them at an entity boundary, ``&amp`` + ``;``, the scanner does not)."""
    out: list = []
    for tok in tokens:
        if "children" in tok:
            tok = {**tok, "children": merged(tok["children"])}
        if tok.get("type") == "text" and out and out[-1].get("type") == "text":
            out[-1] = {"type": "text", "raw": out[-1]["raw"] + tok["raw"]}
        else:
            out.append(tok)
    return out


def assert_inline_same(texts: list[str], heads: list[str]) -> int:
    """Every text the fast inline path takes gets mistune's tokens; returns how many of the
    distinct texts it took."""
    from gbrain.page import fastparse

    md = markdown._markdown()
    taken = 0
    texts, heads = list(dict.fromkeys(texts)), list(dict.fromkeys(heads))  # a repeat checks nothing new
    for t in texts:
        got = fastparse._link_tokens(t, md.link_inline)
        if got is not None:
            taken += 1
            assert got == merged(md.link_inline(t, {})), t
    for h in heads:
        got = fastparse.render_inline(md, [{"type": "heading", "text": h, "attrs": {"level": 1}}], {})
        assert got[0]["children"] == md.inline(h, {}), h
    return taken


@pytest.mark.parametrize("corpus", CORPUS_NAMES)
def test_corpus_inline_tokens_are_mistunes(corpus):
    root = CORPORA / corpus
    if not root.is_dir():
        pytest.skip(f"{root} not available")
    texts, heads = block_texts(sample_pages(tree_pages(root)))
    assert_inline_same(texts, heads)


def test_make_brain_inline_takes_the_fast_path(tmp_path):
    """make_brain's link-bearing text is plain words and links: every block takes the fast path
    (a guard against a silently disabled one), with mistune's tokens."""
    texts, heads = block_texts(tree_pages(make_brain(tmp_path / "brain", 300)))
    linked = [t for t in texts if "[" in t or "#" in t]
    assert linked and assert_inline_same(linked, heads) == len(set(linked))


INLINE_PIECE = st.one_of(
    st.text(alphabet=st.sampled_from(list("ab [](){}!|#*_`<>\\\n\t &%é'\":./?=~-;")), max_size=8),
    st.sampled_from(
        [
            "[[Ana]]", "![[img.png]]", "[[a|b]]", "[[a\\|b]]", "[x](../people/bo.md)", "[](e.md)", "[y](<a b.md>)",
            "[z](c.md \"t\")", "[é](ü.md)", "[a](b.md?x=1&amp;y#f)", "[a](b%20c.md)", "![i](p.png)", "[x]", "[!note]",
            "`c`", "``c``", "<b>", "<!-- c -->", "\\[", "  \n", "\n  ", "[a\nb](c.md)", "[a](b\nc)", "[a] (b.md)",
            "[a](b(c)d.md)", "[a](b(c)", "[a](b(c(d)))", "<https://x.y>", "<a href=x>", "</a>", "<br/>", "<!--", "-->", "<?x?>", "<!X y>",
            "` a `", "`` ` ``", "```", "` `", "[`x`](y.md)", "![a b](c d.png)", "![](e.png)", "[x]]", "]]", "&amp", ";",
            "[z](c.md 't')", "[z](c.md \"\")", "[z](c.md  \"t\"  )", "[z](c.md\t\"t\")", "[z](c.md \"a\nb\")", "[z](c.md (t))",
            "[z](c.md \"t\"x)", "[z](c.md \"t's (x)\")", "![i](p.png \"t\")", "[z](c.md )", "[z](c.md \"&amp;\")", "[z](c.md \"t)",
            # labels holding raw HTML (obsidian-hub's [<button id=HH>Open in Obsidian</button>](obsidian://…))
            "[<button id=HH>Open in Obsidian</button>](obsidian://show-plugin?id=x&y=1)", "[<b>x</b>](c.md \"t\")",
            "![<i>a</i> b](p.png)", "[<b>", "</b>](c.md)", "<b>]", "[a <% tp.x %> b](c.md)", "<span title=\"]\">",
            "<span title=\"](x)\">", "<!-- ](y) -->", "[<a href=x>", "</a>](c.md)", "[<br/>]", "[<b>](c d)", "[<b>](<c d>)",
            "[<img src=\"a.png\">](u)", "[<?x ] ?>](u)", "[x <3](u)", "[<b>]](u)", "[<b>\nx](u)", "[<b>`c`](u)",
        ]
    ),
)


# ×5 the block tests' examples with GBRAIN_FULL_CORPUS=1, ×2 in CI (hypothesis' drawing of the
# pieces, not the parsers, takes most of this test's time)
@settings(max_examples=int(os.environ.get("GBRAIN_FASTPARSE_EXAMPLES", "400")) * (5 if FULL_CORPUS else 2), deadline=None)
@given(st.lists(INLINE_PIECE, max_size=8))
def test_generated_inline_tokens_are_mistunes(pieces):
    text = "".join(pieces).strip(" \r\n\t\f")
    assert_inline_same([text], [text])


@given(st.text(alphabet=st.sampled_from(list("aZ09_.~:/?#@!$&*+,;=%-'é ()[]<>\"\\|^`{}")), max_size=12))
def test_escape_url_is_mistunes(url):
    from mistune.util import escape_url

    from gbrain.page.fastparse import _escape_url

    assert _escape_url(url) == escape_url(url)


def test_inline_fast_path_takes_the_common_shapes():
    """Code spans, HTML, images, callout brackets and parenthesised URLs stay on the fast path
    (a guard against one being sent to mistune by a later change), with mistune's tokens."""
    text = "See `x [y](z)` <br/> ![i](p.png) [!note] [a](b(c)d.md) [[w|W]] <!-- [[h]] --> end"
    assert assert_inline_same([text], []) == 1


def test_inline_fast_path_takes_titled_links():
    """An inline link or image with a title (``[Edit](https://x/y.md "edit-note")``, the footer of
    every obsidian-hub page) stays on the fast path, with mistune's tokens (the title in
    ``attrs``)."""
    text = ('<span class="git-footer">[Edit In GitHub](https://github.dev/o/h/blob/main/00%20-%20Start%20here.md "git-hub-edit-note")'
            " | [Copy](https://raw.x/a.md 'copy') | ![i](p.png  \"\"  ) </span>")
    assert assert_inline_same([text], []) == 1
    md = markdown._markdown()
    from gbrain.page import fastparse

    links = [t for t in fastparse._link_tokens(text, md.link_inline) if t.get("type") in ("link", "image")]
    assert [t["attrs"].get("title") for t in links] == ["git-hub-edit-note", "copy", None]


def test_inline_fast_path_takes_html_labels():
    """A link whose label holds raw HTML (obsidian-hub's ``[<button id=HH>Open in
    Obsidian</button>](obsidian://…)``, on 2,918 of its pages) stays on the fast path, with
    mistune's tokens (the tags as ``inline_html`` children of the link); brackets around a tag
    that make no link stay text around it."""
    from gbrain.page import fastparse

    text = ("Links: [GitHub repository](https://github.com/a/b) or "
            "[<button id=HH>Open in Obsidian</button>](obsidian://show-plugin?id=b) and [<b>x</b>] y")
    assert assert_inline_same([text], []) == 1
    md = markdown._markdown()
    toks = fastparse._link_tokens(text, md.link_inline)
    assert [t["type"] for t in toks[3]["children"]] == ["inline_html", "text", "inline_html"]
    assert [t["type"] for t in toks[4:]] == ["text", "inline_html", "text", "inline_html", "text"]


NOTION_ID = "1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d"


@pytest.mark.parametrize("text, path, tag_syntax", [
    # a Notion relation property (links), a Logseq journal (title), Bear heading links (targets)
    (f"# Alpha\n\nCompany: Acme (../Companies%20{NOTION_ID}/Acme%20{NOTION_ID}.md), B (B%20{NOTION_ID}.md)\n\n- [x] [B](B%20{NOTION_ID}.md)\n",
     f"Projects {NOTION_ID}/Alpha {NOTION_ID}.md", "obsidian"),
    ("- standup with [[Ana]]\n  - [[Nov 27th, 2026]]\n", "graph/journals/2026_11_28.md", "obsidian"),
    ("# Plan\n\n> See [[Roadmap/Q3 goals]]\n\n| a | [[Roadmap/Risks]] |\n|---|---|\n\n![[TCP\\/IP]] #to read#\n", "Plan.md", "bear"),
])
def test_the_migrants_pages_parse_the_same_both_ways(text, path, tag_syntax):
    """The v38 page-model changes (``notion_relation_links``, ``journal_name``,
    ``bear_heading_links``) read the parsed page, so both block parsers give the same views."""
    a, b = both_ways(text, path, tag_syntax=tag_syntax)
    assert a == b
