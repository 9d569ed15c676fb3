"""Search snippets: readable text (link syntax shown by its name, emphasis marks and %% comments
dropped) with the hits given as offsets, so a hit mark can never be confused with the page's own text."""
from __future__ import annotations

import json

import pytest

from conftest import gbrain_in_process as gbrain  # what the commands do, not the process: no process per call (~0.25 CPU-s each)

PAGE = (
    "# Notes\n\nWorks closely with Biotech Series A 2021 and [[deals/policy-safe-2021]] and "
    "[[deals/fab|Fab SAFE]] and [Battery Seed](../deals/battery-seed.md). %% private remark about deals %% "
    "We **closed** two deals quickly, with *care* and ==focus==.\n"
)


def js(r):
    assert r.returncode == 0, (r.returncode, r.stderr.decode())
    return json.loads(r.stdout)


def hit_of(query: str, slug: str) -> dict:
    return next(h for h in js(gbrain("search", query, "--json")) if h["slug"] == slug)


def marked(hit: dict) -> list[str]:
    return [hit["snippet"][a:b] for a, b in hit["highlights"]]


def test_snippet_is_readable_text_with_hits_as_offsets(db_path):
    assert gbrain("put", "notes/n", input=PAGE).returncode == 0
    hit = hit_of("deal", "notes/n")
    s = hit["snippet"]
    for syntax in ("[[", "]]", "](", "%%", "**", "==", "*care*", ".md"):
        assert syntax not in s, (syntax, s)
    assert "private remark" not in s  # an Obsidian comment is not shown
    assert ("deals/policy-safe-2021" in s or s.startswith("…")) and "Fab SAFE" in s and "Battery Seed" in s and "closed two deals" in s
    words = marked(hit)
    assert words and all(w.casefold().startswith("deal") or w in ("Fab SAFE", "Battery Seed") for w in words), words
    assert "deals" in words


def test_a_link_target_is_no_hit_and_marks_no_name(db_path):
    # (before v39 SQLite matched `deal` in `../deals/battery-seed.md` and marked the link's name;
    # search now reads the label, not the address: tests/test_search_link_text.py)
    assert gbrain("put", "notes/n", input=PAGE).returncode == 0
    words = marked(hit_of("deal", "notes/n"))
    assert words and all(w.casefold().startswith("deal") for w in words), words


def test_a_page_whose_only_hit_is_in_link_targets_is_no_hit(db_path):
    assert gbrain("put", "notes/l", input="> Met with [Ana](../people/ana.md) and [[people/bob|Bob]] about the zeppelin.\n").returncode == 0
    assert not [h for h in js(gbrain("search", "people", "--json")) if h["slug"] == "notes/l"]
    hit = hit_of("zeppelin", "notes/l")
    assert hit["snippet"] == "Met with Ana and Bob about the zeppelin."
    assert marked(hit) == ["zeppelin"]


def test_a_snippet_cut_inside_link_syntax_shows_no_half_link(db_path):
    body = "Intro words here. " + " ".join(f"Met the deals team at [[deals/round-{i}|Round {i}]] and [x{i}](../deals/r{i}.md)." for i in range(60)) + "\n"
    assert gbrain("put", "notes/many", input=body).returncode == 0
    hit = hit_of("deals", "notes/many")
    for syntax in ("[[", "]]", "](", "|", ".md", "/r"):
        assert syntax not in hit["snippet"], (syntax, hit["snippet"])
    assert all(w.casefold() == "deals" or w.startswith(("Round", "x")) for w in marked(hit))


def test_human_search_output_has_no_marks_off_a_terminal(db_path):
    assert gbrain("put", "notes/n", input=PAGE).returncode == 0
    out = gbrain("search", "deal").stdout.decode()
    assert "notes/n" in out and "**" not in out and "\x1b" not in out and "\\x" not in out


@pytest.mark.engine_free
def test_human_search_output_styles_hits_on_a_terminal():
    from gbrain.operations.core import _hits_text

    hits = [{"slug": "a", "title": "A", "score": 1.0, "signals": ["body"], "snippet": "a deal \x1b[31m here", "highlights": [[2, 6]]}]
    from gbrain.entry import styled, terminal_safe

    assert styled(terminal_safe(_hits_text(hits)), True).count("\x1b[1m") == 1
    plain = styled(terminal_safe(_hits_text(hits)), False)
    assert "a deal \\x1b[31m here" in plain and "\x1b[1m" not in plain


def test_query_passages_of_keyword_hits_are_readable(db_path):
    assert gbrain("put", "notes/n", input=PAGE).returncode == 0
    r = js(gbrain("query", "closed deals", "--json"))
    p = next(h for h in r["hits"] if h["slug"] == "notes/n")["passage"]
    assert "**" not in p and "[[" not in p and "%%" not in p and "closed" in p


def _readable_as_written_first(marked: str) -> str:
    """keyword.readable with its patterns as first written (83c19da), before they were reordered
    to begin with a literal (a look-behind first makes the regex engine try every position), with
    the HTML tags step added since (keyword.drop_tags, its own tests below) in its place."""
    import re

    from gbrain.search.keyword import HIT_OFF, HIT_ON, _shown, drop_tags
    comment = re.compile(r"%%.*?(?:%%|\Z)|<!--.*?(?:-->|\Z)", re.S)
    md_link = re.compile(r"!?\[([^\]\n]*)\]\(([^()\n]*)\)")
    wiki_link = re.compile(r"!?\[\[([^\]|\n]*)(?:\|([^\]\n]*))?\]\]")
    emph_run = re.compile(r"\*\*|~~|==|(?<![\w\\])__|__(?![\w])")
    emph_one = re.compile(r"(?<![\w*\\])([*_])(?=[^\s*_])(.+?)(?<=[^\s*_])\1(?![\w*])")
    heading = re.compile(r"(?m)^[ \t]{0,3}#{1,6}[ \t]+")
    quote = re.compile(r"(?m)^[ \t]{0,3}(?:>[ \t]?)+")
    hit = re.compile(f"{HIT_ON}([^{HIT_ON}{HIT_OFF}]*){HIT_OFF}")
    s = comment.sub(" ", marked)
    s = drop_tags(s)
    s = re.sub(r"(?m)(?:^|(?<=[ \t]))\^[A-Za-z0-9-]+(?=[ \t]*$)", "", s)  # block ids (trial5)
    size = re.compile(r"\s*\d+(?:\s*x\s*\d+)?\s*")  # an embed's size is no alias (trial 45)
    s = wiki_link.sub(lambda m: m.group(1) if m.group(2) is None or (m.group(0)[0] == "!" and size.fullmatch(m.group(2)))
                      else _shown(m.group(2), m.group(1)), s)
    s = md_link.sub(lambda m: _shown(m.group(1), m.group(2)), s)
    s = heading.sub("", s)
    s = quote.sub("", s)
    s = emph_run.sub("", s)
    s = emph_one.sub(lambda m: m.group(2), s)
    s = hit.sub(lambda m: "\x00" + m.group(1) + "\x01", s).replace(HIT_ON, "").replace(HIT_OFF, "")
    s = s.replace("\x00", HIT_ON).replace("\x01", HIT_OFF)
    return " ".join(s.split())


@pytest.mark.engine_free
def test_readable_is_the_same_as_with_its_first_patterns():
    """readable() (and so every snippet) equals the first version's over random text made of
    markdown syntax and hit marks, and over every page of a corpus with its words marked."""
    import random
    import re

    from conftest import CORPORA
    from gbrain.search.keyword import HIT_OFF, HIT_ON, readable, snippet_of

    rnd = random.Random(14)
    alphabet = list("ab_*~=[]()!|#> \n\t\\%<-é1") + ["**", "__", "[[", "]]", "](", "%%", "<!--", "-->", HIT_ON, HIT_OFF, HIT_ON + "x" + HIT_OFF]
    texts = ["".join(rnd.choice(alphabet) for _ in range(rnd.randrange(1, 60))) for _ in range(20000)]
    pages = sorted((CORPORA / "obsidian-help").rglob("*.md")) if CORPORA.is_dir() else []
    for p in pages[:600]:
        text = p.read_text(encoding="utf-8", errors="replace")
        words = sorted({w for w in re.findall(r"[^\W_]{4,}", text)})
        for w in rnd.sample(words, min(3, len(words))):
            texts.append(re.sub(rf"\b{re.escape(w)}\b", HIT_ON + w + HIT_OFF, text))
    for t in texts:
        assert readable(t) == _readable_as_written_first(t), repr(t)
    assert len(texts) > 20000 or not pages
    assert snippet_of(PAGE.replace("deals", HIT_ON + "deals" + HIT_OFF))["highlights"]


@pytest.mark.engine_free
def test_block_ids_are_not_shown():
    """Trial5 (obsidian-help, ``search "link to blocks"``): the snippet read "…a network of
    knowledge. ^b15695…". An Obsidian block id (`` ^id`` ending a line, or alone on its line) is
    syntax, not text; a footnote ``[^1]``, a link to a block and a ``^`` inside a word stay."""
    from gbrain.search.keyword import readable

    assert readable("create a network of knowledge. ^b15695\n\nObsidian can") == "create a network of knowledge. Obsidian can"
    assert readable("> a quote\n\n^37066f\n\nThis is the tale") == "a quote This is the tale"
    assert readable("x[^1] and [[N#^blk-1]] and 2^10 ^ref") == "x[^1] and N#^blk-1 and 2^10"


def test_a_long_pages_snippet_shows_the_phrase_searched(db_path):
    """A page over ``SNIPPET_MAX_CHARS`` is marked in Python around a place of the query: the
    first place its words stand together as written, not the first of its words (trial35: an OID
    searched in msdocs' 1.4 MB Schema-Updates page showed another OID sharing its first five
    numbers, 250 KB before it)."""
    from gbrain.search import keyword

    # (long filler words: Postgres keeps word positions up to 16,383 only, and a phrase needs them)
    filler = "".join(f"{'descriptionofanattributeinthedirectoryschema' * 2}{n}\n" for n in range(2300))
    rows = "attributeId: 1.2.840.113556.1.4.1011\nldapDisplayName: attr1011\n"
    page = "# Schema\n\n" + rows + filler + "attributeId: 1.2.840.113556.1.4.944\nldapDisplayName: mSMQSite2\n" + rows
    assert len(page) > keyword.SNIPPET_MAX_CHARS
    assert gbrain("put", "schema", input=page).returncode == 0
    hit = hit_of("1.2.840.113556.1.4.944", "schema")
    assert "1.2.840.113556.1.4.944" in hit["snippet"] and "1011" not in hit["snippet"], hit["snippet"]
    hit = hit_of('"ldapDisplayName: mSMQSite2"', "schema")
    assert "mSMQSite2" in hit["snippet"] and "1011" not in hit["snippet"], hit["snippet"]


def test_a_hit_in_the_properties_only_shows_the_property(db_path):
    """A page found by a frontmatter value alone (``author: robinharwood``: search reads the
    properties' words) shows that property as its snippet, not just its title (trial35)."""
    page = "---\ntitle: Read-Only Domain Controller Updates\nauthor: robinharwood\nms.topic: release-notes\n---\n\n# Updates\n\nNothing changed.\n"
    assert gbrain("put", "rodc", input=page).returncode == 0
    hit = hit_of("robinharwood", "rodc")
    assert hit["snippet"] == "author: robinharwood", hit
    assert marked(hit) == ["robinharwood"]
    # a title or alias found is no property to show (the hit's title says it)
    hit = hit_of("Controller", "rodc")
    assert "title:" not in hit["snippet"], hit


@pytest.mark.engine_free
def test_a_character_reference_reads_as_its_character():
    """``&#40;Level 100&#41;`` and ``&lt;`` read as ``(Level 100)`` and ``<`` (Microsoft Learn's
    docs write parentheses in link labels so, trial35), outside code, where they are text."""
    from gbrain.search.keyword import readable

    assert readable("see [Install AD DS &#40;Level 100&#41;](x.md) &lt;b&gt; &amp; &quot;q&quot;") == 'see Install AD DS (Level 100) <b> & "q"'
    assert readable("`&lt;code&gt;` and &lt;") == "`&lt;code&gt;` and <"  # (in code a reference is as written)
    assert readable("AT&T &notit &#xZZ; &bogus; &#2; &#xD800;") == "AT&T &notit &#xZZ; &bogus; &#2; &#xD800;"


# obsidian-hub's plugin notes (6,547 of its 6,572 pages): a button in a link's label and a
# footer of links in a span; the snippets showed the tags as written
HUB_PAGE = (
    "# Nutstore Sync\n\nPlugin ID: `nutstore-sync`\n"
    "Links: [GitHub repository](https://github.com/nutstore/sync) or [<button id=HH>Open in Obsidian</button>](obsidian://show-plugin?id=nutstore-sync)\n\n"
    "Sync your vault with Nutstore using WebDAV, when x<y and a < b.\n\n"
    "# This note in GitHub\n\n"
    '<span class="git-footer">[Edit In GitHub](https://github.dev/hub/nutstore-sync.md "git-hub-edit-note") | '
    '[Copy this note](https://raw.githubusercontent.com/hub/nutstore-sync.md "git-hub-copy-note") </span>\n'
)


def test_a_snippet_shows_no_html_tags(db_path):
    """A snippet drops HTML tags and keeps the text between them, as a reader sees it (a new
    user's obsidian-hub searches: ``<span class="git-footer">`` and ``<button id=HH>`` in nearly
    every hit); ``<`` in plain text stays; the matched word is still marked."""
    assert gbrain("put", "plugins/nutstore-sync", input=HUB_PAGE).returncode == 0
    for query in ("edit github note", "open obsidian", "webdav"):
        hit = hit_of(query, "plugins/nutstore-sync")
        s = hit["snippet"]
        for tag in ("<span", "</span", "<button", "</button", "git-footer", "id=HH"):
            assert tag not in s, (query, tag, s)
        assert marked(hit), (query, s)
    hit = hit_of("open obsidian", "plugins/nutstore-sync")
    assert "or Open in Obsidian" in hit["snippet"], hit
    assert {w.casefold() for w in marked(hit)} >= {"open", "obsidian"}, marked(hit)
    hit = hit_of("webdav", "plugins/nutstore-sync")
    assert "when x<y and a < b." in hit["snippet"] and marked(hit) == ["WebDAV"], hit
    hit = hit_of("edit github note", "plugins/nutstore-sync")
    assert "Edit In GitHub | Copy this note" in hit["snippet"], hit
    # a word found only inside a tag (its attribute) marks nothing it does not show
    hits = [h for h in js(gbrain("search", "footer", "--json")) if h["slug"] == "plugins/nutstore-sync"]
    assert all("<span" not in h["snippet"] and not marked(h) for h in hits), hits


def test_words_only_inside_html_tags_are_not_indexed(db_path):
    """A word only in a tag's name or attributes (``<span class="git-footer">``, ``<button id=HH>``)
    finds no page (obsidian-hub: ``search footer`` found every page, its snippet marking nothing);
    the text between the tags, a tag inside code (a span or a fence) and a plain ``<`` stay
    indexed (:func:`gbrain.search.keyword.tag_spans`, the rules of ``drop_tags``)."""
    code = ("# Widgets\n\nWrite `<span class=\"keepword\">` in code, and List<String> or a < b.\n\n"
            "```html\n<div class=\"fencedword\">x</div>\n```\n")
    assert gbrain("put", "plugins/nutstore-sync", input=HUB_PAGE).returncode == 0
    assert gbrain("put", "notes/widgets", input=code).returncode == 0
    for query in ("footer", "button", "HH", "footer button"):
        assert [h["slug"] for h in js(gbrain("search", query, "--json"))] == [], query
    assert [h["slug"] for h in js(gbrain("search", "span", "--json"))] == ["notes/widgets"]  # (its code span's)
    for query in ("webdav", "edit github note", "copy this note", "open obsidian"):
        assert hit_of(query, "plugins/nutstore-sync")["highlights"], query
    for query in ("keepword", "fencedword", "string", "div"):
        assert [h["slug"] for h in js(gbrain("search", query, "--json"))] == ["notes/widgets"], query


def test_query_passages_and_the_mcp_call_show_no_html_tags(db_path):
    assert gbrain("put", "plugins/nutstore-sync", input=HUB_PAGE).returncode == 0
    r = js(gbrain("query", "edit github note", "--json"))
    p = next(h for h in r["hits"] if h["slug"] == "plugins/nutstore-sync")["passage"]
    assert "<span" not in p and "Edit In GitHub" in p, p
    r = js(gbrain("call", "brain_search", json.dumps({"query": "edit github note"})))
    hits = r["results"] if isinstance(r, dict) and "results" in r else r
    hit = next(h for h in hits if h["slug"] == "plugins/nutstore-sync")
    assert "<span" not in hit["snippet"] and "Edit In GitHub" in hit["snippet"], hit


@pytest.mark.engine_free
def test_readable_drops_html_tags_but_not_code_or_plain_angles():
    """HTML tags (open, closing, self-closing, with attributes; a hit mark inside one goes with
    it) are dropped, the text between them kept; in a code span or fenced code they are text, as
    written; ``<`` of plain text (``a < b``, ``x<y``, ``List<String>``, a placeholder ``<name>``
    with no attribute, an autolink) stays; an HTML comment goes as before."""
    from gbrain.search.keyword import HIT_OFF, HIT_ON, readable

    assert readable('<span class="git-footer">Edit | Copy </span>') == "Edit | Copy"
    assert readable("a<br>b<br/>c <BR />d") == "a b c d"
    assert readable("<b>bold</b>text and <i>it</i>.") == "boldtext and it."
    assert readable("[<button id=HH>Open in Obsidian</button>](obsidian://x)") == "Open in Obsidian"
    assert readable("<kbd>Ctrl</kbd>+<kbd>P</kbd>") == "Ctrl+P"
    assert readable('<svg width="10"><path d="M0 0L1 1"/></svg>icon') == "icon"
    assert readable("<td>one</td><td>two</td>") == "one two"
    assert readable("`<span>` and\n```html\n<div class=\"x\">y</div>\n```\nafter <u>z</u>") == '`<span>` and ```html <div class="x">y</div> ``` after z'
    assert readable("if a < b and x<y then List<String> or <name> and <https://x.org> <a@b.org>") == (
        "if a < b and x<y then List<String> or <name> and <https://x.org> <a@b.org>")
    assert readable("x <!-- hidden --> y") == "x y"
    on, off = HIT_ON, HIT_OFF
    assert readable(f'<span class="git-{on}footer{off}">{on}Edit{off}</span>') == f"{on}Edit{off}"
    assert readable(f"<{on}span{off}>x</{on}span{off}> {on}span{off}") == f"x {on}span{off}"
    assert readable("&lt;b&gt;bold&lt;/b&gt;") == "<b>bold</b>"  # (a reference is text, no tag)
