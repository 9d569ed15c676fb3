"""The parse half's pure-Python speed-ups (2026-12-03, parsecut) give exactly what the code they
replaced gave, on every page of every corpus in ../shared/corpora and of a make_brain brain (a
deterministic sample of them in CI, ``corpus_sample.sample_pages``; every page with
GBRAIN_FULL_CORPUS=1) and on generated texts:

* three regexes with a leading look-ahead (a character set the regex engine skips to) find the
  same matches, groups included, as their plain patterns;
* ``find_separator`` (``---`` lines found by ``str.find`` in the LF-normalised body) returns the
  line the line-by-line scan returned, under both split rules, with and without frontmatter;
* ``parse_page`` cuts the compiled truth, separator and timeline at the separator's offset (a
  body without CRLF) where it cut ``split_lines(body)`` (2026-12-04, pyprof);
* ``parse_timeline_entries`` (one split of the text, a fence test only where a line can open
  one; since 2026-12-04 an entry line read by a greedy regex, ``_TIMELINE_ITEM_RE``) gives the entries, details included, of the line-by-line version;
* ``_plain`` (a link's plain-text label read without a recursive call) gives the text, link
  spans, ``%%`` marks and line breaks of the recursive version, for every inline container;
  the link keys shared across pages (``_family_key``) are :meth:`Link.key`;
* a paragraph of one link reads its context without a sentence index (``_context_of_one``):
  the context ``_Sentences.around`` gives (2026-12-04, pyprof);
* ``_flat_json`` (the common frontmatter converted in one loop) gives what ``to_json_value``
  gives with the same budget, or declines (``None``) where it would not.

The replaced functions are kept below, verbatim, as the references."""
from __future__ import annotations

import re
from bisect import bisect_right

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import CORPORA, make_brain, tree_pages
from corpus_sample import MARKDOWN_SHAPES, sample_pages, shapes
from gbrain.page import fastparse, markdown
from gbrain.page.markdown import (
    _TIMELINE_HEADING_RE,
    _TIMELINE_LINE_RE,
    SPLIT_RULES,
    TimelineEntry,
    _dedent,
    _strip_eol,
    split_lines,
)

pytestmark = pytest.mark.engine_free


# ---- the references: the code the speed-ups replaced ------------------------------------------


def ref_find_separator(body: str, fences, *, has_frontmatter: bool, rule: str = "rule") -> int:
    if rule not in SPLIT_RULES:
        raise ValueError(rule)
    lines = split_lines(body)
    starts: list[int] = []
    pos = 0
    for ln in lines:
        starts.append(pos)
        pos += len(_strip_eol(ln)) + 1
    fence_starts = [a for a, _ in fences]
    for i, ln in enumerate(lines):
        if _strip_eol(ln) != "---":
            continue
        if i == 0 and not has_frontmatter:
            continue
        off = starts[i]
        j = bisect_right(fence_starts, off) - 1
        if j >= 0 and fences[j][0] <= off < fences[j][1]:
            continue
        if rule == "heading":
            nxt = next((_strip_eol(x) for x in lines[i + 1 :] if _strip_eol(x).strip()), "")
            if not _TIMELINE_HEADING_RE.match(nxt):
                continue
        return i
    return -1


def ref_parts(text: str, rule: str, fences: list | None = None) -> tuple[str, str, str]:
    """The compiled truth, separator and timeline as parse_page cut them by split_lines' lines
    (``fences``: the body's opaque spans, :func:`markdown._parse_ast`'s, when the caller has them)."""
    fm_raw, body, _w = markdown.split_frontmatter(text[1:] if text.startswith(markdown.BOM) else text)
    if fences is None:
        fences = markdown._parse_ast(markdown.to_lf(body))[1]
    i = ref_find_separator(body, fences, has_frontmatter=bool(fm_raw), rule=rule)
    if i < 0:
        return body, "", ""
    lines = split_lines(body)
    return "".join(lines[:i]), lines[i], "".join(lines[i + 1 :])


def ref_parse_timeline_entries(timeline: str) -> list[TimelineEntry]:
    entries: list[TimelineEntry] = []
    lines = [_strip_eol(x) for x in split_lines(timeline)]
    in_fence = ""
    cur = None
    detail: list[str] = []

    def close():
        nonlocal cur, detail
        if cur is not None:
            while detail and not detail[-1].strip():
                detail.pop()
            cur.detail = _dedent(detail)
            entries.append(cur)
        cur, detail = None, []

    for ln in lines:
        stripped = ln.lstrip(" ")
        if in_fence:
            if stripped.startswith(in_fence):
                in_fence = ""
            if cur is not None:
                detail.append(ln)
            continue
        fm = re.match(r"(`{3,}|~{3,})", stripped)
        if fm and len(ln) - len(stripped) <= 3 and cur is None:
            in_fence = fm.group(1)
            continue
        m = _TIMELINE_LINE_RE.match(ln)
        if m:
            close()
            date, rest = m.group(1), m.group(2)
            source, summary = "", rest
            if "\u2014" in rest:
                before, after = rest.split("\u2014", 1)
                if len(before.strip()) <= 60 and "[" not in before:
                    source, summary = before.strip(), after.strip()
            cur = TimelineEntry(date=date, source=source, summary=summary.strip())
            continue
        if cur is not None:
            if ln[:1] in (" ", "\t") and ln.strip():
                if fm:
                    in_fence = fm.group(1)
                detail.append(ln)
                continue
            if not ln.strip():
                detail.append(ln)
                continue
            close()
    close()
    return entries


def ref_plain(children, out, found, pos=0, marks=None, breaks=None) -> int:
    for tok in children:
        t = tok.get("type")
        start = pos
        if t in ("text", "codespan", "inline_html"):
            s = tok.get("raw", "")
            if t == "text" and marks is not None and "%%" in s:
                marks.extend(pos + m.start() for m in re.finditer("%%", s))
        elif t in ("softbreak", "linebreak"):
            s = " "
            if breaks is not None:
                breaks.append(pos)
        elif t == "wikilink":
            a = tok["attrs"]
            s = a["alias"] or a["target"]
            found.append((tok, start, start + len(s)))
        elif t == "link":
            pos = ref_plain(tok.get("children", []), out, [], pos)
            found.append((tok, start, pos))
            continue
        elif "children" in tok:
            pos = ref_plain(tok["children"], out, found, pos, marks, breaks)
            continue
        else:
            s = tok.get("raw", "")
        out.append(s)
        pos += len(s)
    return pos


def plain_views(fn, children) -> tuple:
    out, found, marks, breaks = [], [], [], []
    pos = fn(children, out, found, 0, marks, breaks)
    return pos, "".join(out), [(id(t), a, z) for t, a, z in found], marks, breaks


def inline_containers(tokens):
    for tok in tokens:
        if tok.get("type") in markdown._INLINE_CONTAINERS:
            yield tok.get("children", [])
        elif "children" in tok:
            yield from inline_containers(tok["children"])


#: (the regex in use, its plain pattern, flags)
REGEXES = [
    (markdown._SENTENCE_END_RE, markdown.SENTENCE_END_PATTERN, 0),
    (markdown._TAG_RE, markdown.TAG_PATTERN, re.M),
    (fastparse._LINK_TRIGGER_RE, fastparse.LINK_TRIGGER_PATTERN, 0),
]


def matches(rx: re.Pattern, text: str) -> list:
    return [(m.span(), m.groups()) for m in rx.finditer(text)]


def assert_contexts_same(children) -> None:
    """A paragraph's one link's context read directly (``_context_of_one``) is what the sentence
    index of the paragraph (``_Sentences``, which a paragraph of several links keeps) gives."""
    out: list[str] = []
    found: list = []
    breaks: list[int] = []
    markdown._plain(children, out, found, 0, [], breaks)
    text = "".join(out)
    for text in {text, markdown._with_breaks(text, breaks)}:
        for _tok, s, e in found:
            assert markdown._context_of_one(text, s, e) == markdown._Sentences(text).around(s, e), (text, s, e)


def assert_same(text: str) -> tuple:
    """Every speed-up agrees with its reference on ``text`` (as a page, as a body, as a timeline);
    returns ``(parse_page(text), whether _flat_json took its frontmatter)``. Each parse is made
    once (the body's fast-path tokens give the fences too; one ``parse_page`` per split rule)."""
    for fast, plain, flags in REGEXES:
        assert matches(fast, text) == matches(re.compile(plain, flags), text), plain
    fm_raw, body, _w = markdown.split_frontmatter(text[1:] if text.startswith(markdown.BOM) else text)
    lf = body.replace("\r\n", "\n").replace("\r", "\n")
    assert markdown.FAST_PARSE
    fast_tokens, fences = markdown._parse_ast(lf)
    for rule in SPLIT_RULES:
        for fm in (True, False):
            got = markdown.find_separator(body, fences, has_frontmatter=fm, rule=rule)
            assert got == ref_find_separator(body, fences, has_frontmatter=fm, rule=rule), (rule, fm)
    pages = {rule: markdown.parse_page(text, timeline_split=rule) for rule in SPLIT_RULES}
    page = pages["rule"]  # parse_page(text)'s default
    for tl in (text, page.timeline):
        assert markdown.parse_timeline_entries(tl) == ref_parse_timeline_entries(tl)
    for rule in SPLIT_RULES:  # the parts parse_page cuts at the separator's offset (no split_lines)
        p = pages[rule]
        assert (p.compiled_truth, p.separator, p.timeline) == ref_parts(text, rule, fences), rule
    try:  # the tokens of both paths (mistune's may nest a link's label)
        markdown.FAST_PARSE = False
        slow_tokens = markdown._parse_ast(lf)[0]
    finally:
        markdown.FAST_PARSE = True
    for tokens in (fast_tokens, slow_tokens):
        for children in inline_containers(tokens):
            assert plain_views(markdown._plain, children) == plain_views(ref_plain, children)
            assert_contexts_same(children)
    for link in page.links:
        assert markdown._LinkSet().key(link.kind, link.target) == link.key()
    return page, assert_flat_json_same(fm_raw)


def assert_flat_json_same(fm_raw: str) -> bool:
    """``_flat_json`` agrees with ``to_json_value`` on the loaded frontmatter; True when it took it."""
    src = markdown.frontmatter_yaml(fm_raw) if fm_raw else ""
    if not src.strip():
        return False
    try:
        try:
            data = markdown._quick_load(src)
        except markdown._Unsure:
            data = markdown._SafeYAML.load(src, [])
    except Exception:
        return False
    if not isinstance(data, dict):
        return False
    return check_flat(data, markdown.FM_BUDGET_BASE + 2 * len(src))


def check_flat(data: dict, budget: int) -> bool:
    flat = markdown._flat_json(data, budget)
    try:
        ref = markdown.to_json_value(data, budget=budget)
    except markdown.FrontmatterUnloadable:
        assert flat is None
        return False
    if flat is not None:
        assert flat == ref and [type(v) for v in flat.values()] == [type(v) for v in ref.values()]
    return flat is not None


#: the shapes a speed-up treats apart (besides the block parsers' own, MARKDOWN_SHAPES): each keeps
#: KEEP_PER_SHAPE pages of a corpus in the sample (corpus_sample.sample_pages)
SHAPES = MARKDOWN_SHAPES | shapes({
    "separator line": r"^---\r?$",
    "separator above a Timeline heading (the heading rule)": r"(?i)^---\r?\n(?:[ \t]*\r?\n)*##\s+(?:timeline|history)\b",
    "fenced code": r"^ {0,3}(?:```|~~~)",
    "'---' in a fence": r"^ {0,3}(`{3,}|~{3,}).*\n(?:(?! {0,3}\1).*\n)*?---\r?$",
    "timeline entry": r"^[-*+][ \t]+\*\*\d{4}-\d{2}-\d{2}\*\*[ \t]*\|",
    "timeline entry with detail": r"^[-*+][ \t]+\*\*\d{4}-\d{2}-\d{2}\*\*[ \t]*\|.*\r?\n[ \t]+\S",
    "timeline entry with a source": r"^[-*+][ \t]+\*\*\d{4}-\d{2}-\d{2}\*\*[ \t]*\|[^\n\u2014]*\u2014",
    "lone CR": r"\r(?!\n)",
    "other line separators (str.splitlines' own)": r"[\x0b\x0c\x1c-\x1e\x85\u2028\u2029]",
    "link label holding markup (mistune nests it)": r"\[[^\]\n]*[*_`<][^\]\n]*\]\(",
    "hard line break": r"(?:  |\\)\r?\n\S",
    "inline tag": r"#(?<!\S#)[^\s#]",
    "frontmatter date": r"^[\w-]+:[ \t]+['\"]?\d{4}-\d{2}-\d{2}",
    "frontmatter nested map": r"^[\w-]+:[ \t]*\r?\n[ \t]+[\w-]+:",
    "frontmatter block list": r"^[\w-]+:[ \t]*\r?\n[ \t]*- ",
    "frontmatter number or boolean": r"^[\w-]+:[ \t]+(?:-?\d+(?:\.\d+)?|true|false|yes|no)[ \t]*\r?$",
})

CORPUS_NAMES = ["obsidian-help", "obsidian-hub", "llm-wiki-ob-vault", "msdocs-ad-identity", "gbrain-style"]


@pytest.mark.parametrize("corpus", CORPUS_NAMES)
def test_corpus_pages_agree_with_the_references(corpus):
    """Every page of each corpus (a deterministic sample in CI: corpus_sample)."""
    root = CORPORA / corpus
    if not root.is_dir():
        pytest.skip(f"{root} not available")
    pages = tree_pages(root)
    assert pages
    for _path, text in sample_pages(pages, SHAPES):
        assert_same(text)


def test_make_brain_pages_agree_with_the_references(tmp_path):
    pages = sample_pages(tree_pages(make_brain(tmp_path / "brain", 1500)), SHAPES)
    with_entries = flat = 0
    for _path, text in pages:
        page, took = assert_same(text)
        with_entries += bool(page.timeline_entries)
        flat += took
    assert with_entries > len(pages) // 2  # the timelines were exercised
    assert flat > len(pages) // 2  # and the one-loop frontmatter conversion


SCALAR = st.one_of(
    st.text(max_size=8), st.integers(), st.booleans(), st.none(), st.floats(), st.dates(), st.datetimes(),
    st.binary(max_size=4), st.times(),
)
VALUE = st.one_of(SCALAR, st.lists(SCALAR, max_size=4), st.lists(st.text(max_size=6), max_size=4),
                  st.dictionaries(st.text(max_size=4), SCALAR, max_size=3), st.sets(st.integers(), max_size=3))
KEY = st.one_of(st.text(max_size=6), st.text(max_size=6), st.integers(), st.booleans(), st.none(), st.dates())


@settings(max_examples=800, deadline=None)
@given(st.dictionaries(KEY, VALUE, max_size=6), st.integers(0, 120))
def test_generated_frontmatter_converts_alike(data, budget):
    check_flat(data, budget)


def test_flat_json_declines_over_the_budget_and_other_shapes():
    data = {"a": "x" * 50, "b": ["y"] * 3}
    assert markdown._flat_json(data, 10_000) == {"a": "x" * 50, "b": ["y"] * 3}
    assert markdown._flat_json(data, 50) is None
    with pytest.raises(markdown.FrontmatterUnloadable):
        markdown.to_json_value(data, budget=50)
    assert markdown._flat_json({"a": {"b": 1}}, 10_000) is None
    assert markdown._flat_json({1: "a"}, 10_000) is None


LINE = st.one_of(
    st.text(alphabet=st.sampled_from(list("ab -*+`~|.!?#[]()<>\t\r\n\u2014\u2028\x0c:/é")), max_size=14),
    st.sampled_from(
        [
            "---", "--- ", "----", " ---", "---\r", "", "  ", "\t", "```", "```py", "  ```", "    ```", "~~~", "~~~~", "\t```",
            "## Timeline", "## History of it", "# Timeline", "- **2024-01-02** | met — [[Ana]]", "* **2024-1-2** | x",
            "+ **2023-12-31**|a—b", "- **2024-01-02** | " + "s" * 61 + " — long source", "- **2024-01-02** | [x](y.md) — z",
            "- **2024-01-02** |  ", "  detail [[Bo]]", "\tdetail", "    more", "| a | [[t]] |", "end. Next", "x! y? z.",
            "#tag", "a #b/c", "%% c %%", "$$", "<div>", "</div>", "[x](a.md)", "![[img.png]]", "`code` and ``more``",
        ]
    ),
)


@st.composite
def texts(draw) -> str:
    fm = draw(st.sampled_from(["", "---\ntitle: T\n---\n", "---\r\ntags: [x]\r\n---\r\n"]))
    nl = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    return fm + nl.join(draw(st.lists(LINE, max_size=14))) + draw(st.sampled_from(["", nl]))


@settings(max_examples=600, deadline=None)
@given(texts())
def test_generated_texts_agree_with_the_references(text):
    assert_same(text)


@settings(max_examples=1500, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab .!?|\t\n\u2028x")), max_size=60), st.data())
def test_one_link_context_is_the_sentence_index_context(text, data):
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    assert markdown._context_of_one(text, start, end) == markdown._Sentences(text).around(start, end)


@settings(max_examples=1500, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("-*+ \t|*0123456789x\u2014\r\x0b\x0c\u2028")), max_size=12),
       st.sampled_from(["- **2024-01-02** |", "* **2024-01-02**|", "+\t**2024-01-02** \t| "]))
def test_timeline_item_regex_is_the_line_regex(tail, head):
    """``_TIMELINE_ITEM_RE`` (greedy, its group 2 stripped by the caller) reads a line without
    line breaks as ``_TIMELINE_LINE_RE`` does."""
    for line in (tail, head + tail, head + " " + tail + " \t"):
        old, new = _TIMELINE_LINE_RE.match(line), markdown._TIMELINE_ITEM_RE.match(line)
        assert (old is None) == (new is None)
        if old is not None:
            assert old.group(1, 2) == (new.group(1), new.group(2).rstrip(" \t"))


def test_the_references_see_what_they_check():
    """The comparisons are not vacuous: a separator under each rule, entries with detail, and
    each regex matching, on a small known page."""
    text = (
        "---\ntitle: T\n---\nA line. Next #tag [x](a.md)\n| r | [[t]] |\n\n---\n\n## Timeline\n\n"
        "- **2024-01-02** | met — talked\n  more detail\n- **2024-01-03** | no source\n"
    )
    body = markdown.split_frontmatter(text)[1]
    for rule in SPLIT_RULES:
        assert markdown.find_separator(body, [], has_frontmatter=True, rule=rule) == 3
    page = markdown.parse_page(text)
    assert [(e.date, e.source, e.summary, e.detail) for e in page.timeline_entries] == [
        ("2024-01-02", "met", "talked", "more detail"),
        ("2024-01-03", "", "no source", ""),
    ]
    for fast, plain, flags in REGEXES:
        assert matches(fast, text), plain
    assert_same(text)
