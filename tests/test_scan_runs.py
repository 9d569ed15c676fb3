"""The indexed text's scan (``linkedit.address_spans`` → ``_scan`` with ``whole``) line-scans only
the lines that may change its state (a backtick, ``~~~``, ``<!--``, a ``%%`` outside the parse's
unread blocks; in a fence its fence, in an HTML comment ``-->``) and takes the links of the lines
between from one regex pass. It must give exactly what the line scan of every line gave
(``_line_scan`` below: ``_scan`` as it was before, kept as the reference): the same spans in
the same order, so the indexed text stays byte-identical. Compared on every part of every corpus
in ../shared/corpora (with the page's own parse, as import hands it; a deterministic sample of the
pages in CI, ``corpus_sample.sample_pages``; every page with GBRAIN_FULL_CORPUS=1) and on
generated markdown full of fences, comments, code spans, math and links."""
from __future__ import annotations

import re
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gbrain.page import linkedit
from gbrain.page.linkedit import _ADDR_RE, _ADDR_RE_M, _FENCE_RE, _HIDDEN_RE, _PCT_RE, _address, _unread_at
from gbrain.page.markdown import parse_page, split_lines, unread_spans
from gbrain.search import keyword
from gbrain.search.keyword import search_text

from conftest import CORPORA, tree_pages
from corpus_sample import MARKDOWN_SHAPES, sample_pages, shapes

pytestmark = pytest.mark.engine_free


def _line_scan(text: str, pattern: "re.Pattern", make, unread: list | None = None) -> list:
    """The reference: ``linkedit._scan`` before the runs (cf61265), every line one by one."""
    if not ("%%" in text or "$$" in text):
        unread = []
    elif unread is None:
        unread = unread_spans(text)
    starts = [a for a, _z in unread]
    out: list = []
    fence = ""
    comment = False
    block = False
    pct = False
    pos = 0
    for ln in split_lines(text):
        s = ln.lstrip(" ")
        start = 0
        if block or (not fence and not comment and len(ln) - len(s) <= 3 and s.startswith("<!--")):
            block = "-->" not in (ln if block else s[4:])
            pos += len(ln)
            continue
        if comment:
            end = ln.find("-->")
            if end < 0:
                pos += len(ln)
                continue
            comment, start = False, end + 3
        if fence:
            if s.startswith(fence):
                fence = ""
        elif start == 0 and _FENCE_RE.match(s):
            fence = _FENCE_RE.match(s).group(1)
        elif "[" not in ln and "://" not in ln and "%" not in ln and "<" not in ln:
            pass
        else:
            last = start
            hidden = list(_HIDDEN_RE.finditer(ln, start))
            if hidden and hidden[-1].group(0).startswith("<!--") and not hidden[-1].group(0).endswith("-->"):
                comment = True
            for cm in hidden + [None]:
                seg_end = cm.start() if cm else len(ln)
                found = list(pattern.finditer(ln, last, seg_end))
                marks = [p.start() for p in _PCT_RE.finditer(ln, last, seg_end)
                         if not any(m.start() <= p.start() < m.end() for m in found)] if "%%" in ln else []
                for m in found:
                    while marks and marks[0] < m.start():
                        if not _unread_at(unread, starts, pos + marks.pop(0)):
                            pct = not pct
                    if pct or _unread_at(unread, starts, pos + m.start()):
                        continue
                    sp = make(m, pos)
                    if sp is not None:
                        out.append(sp)
                for p in marks:
                    if not _unread_at(unread, starts, pos + p):
                        pct = not pct
                last = cm.end() if cm else len(ln)
        pos += len(ln)
    return out


def _blank(text: str, spans: list) -> str | None:
    spans = sorted(sp for found in spans for sp in found if sp[1] > sp[0])
    if not spans:
        return None
    out, at = [], 0
    for a, z in spans:
        if z <= at:
            continue
        a = max(a, at)
        out += [text[at:a], " " * (z - a)]
        at = z
    return "".join(out) + text[at:]


def assert_same_scan(text: str, unread: list | None) -> None:
    want = _line_scan(text, _ADDR_RE, _address, unread)
    assert linkedit._scan(text, _ADDR_RE, _address, unread, _ADDR_RE_M) == want
    assert linkedit._scan(text, _ADDR_RE, _address, unread) == want  # (the line scan alone: written_links, a lone CR)
    if ("[" in text or "://" in text) and any(k in text for k in ("`", "~~~", "<!--", "%%", "$$")):  # (else its own passes, unchanged)
        # (search_text blanks HTML tags and writes Arabic bare too since SQLite v79: the line scan's
        # addresses put through the same steps)
        with mock.patch.object(keyword, "address_spans", lambda t, u=None: sorted(sp for found in want for sp in found if sp[1] > sp[0])):
            expected = search_text(text, unread)
        assert search_text(text, unread) == expected
        if not keyword.tag_spans(text, raw_blocks=True) and (text.isascii() or not keyword._ARABIC_FOLDS.search(text)):  # (v81: as search_text reads tags)
            assert expected == _blank(text, want)


CORPUS_NAMES = ["obsidian-hub", "obsidian-help", "gbrain-style", "llm-wiki-ob-vault", "msdocs-ad-identity"]

#: what changes the scan's state, and links around it: each keeps KEEP_PER_SHAPE pages of a
#: corpus in the sample (corpus_sample.sample_pages) besides the block parsers' shapes
SHAPES = MARKDOWN_SHAPES | shapes({
    "backtick fence": r"^ {0,3}```",
    "tilde fence": r"~~~",
    "longer fence": r"````|~~~~",
    "indented fence line": r"^(?: {4,}|\t)(?:```|~~~)",
    "link in a fence": r"^ {0,3}(`{3,}|~{3,}).*\n(?:(?! {0,3}\1).*\n)*?.*(?:\[|://)",
    "code span holding a link": r"`[^`\n]*(?:\[|://)[^`\n]*`",
    "double-backtick code span": r"``[^`\n]",
    "code span over lines": r"`[^`\n]+\n[^`\n]+`",
    "link after a code span": r"`[^`\n]+`.*\[",
    "HTML comment block": r"^ {0,3}<!--",
    "HTML comment after text": r"<!--(?:(?<=\S<!--)|(?<=\S <!--))",
    "HTML comment over lines": r"<!--(?:(?!-->).)*\n",
    "link in an HTML comment": r"<!--(?:(?!-->)[^\n])*(?:\[|://)",
    "text after a comment's end": r"-->[ \t]*\S",
    "%% block": r"^%%[ \t]*\r?$",
    "%% after text": r"%%(?:(?<=[^\s%]%%)|(?<=[^\s%] %%))",
    "one %% on its line (left open)": r"^[^%\n]*%%[^%\n]*\r?$",
    "three or more %": r"%%%",
    "lone %": r"(?<!%)%(?!%)",
    "$$ after text": r"\$\$(?:(?<=[^\s$]\$\$)|(?<=[^\s$] \$\$))",
    "URL": r"://",
    "image link": r"!\[",
    "lone CR": r"\r(?!\n)",
})


@pytest.mark.parametrize("corpus", CORPUS_NAMES)
def test_every_part_of_a_corpus_scans_as_line_by_line(corpus):
    """Every page of each corpus (a deterministic sample in CI: corpus_sample)."""
    root = CORPORA / corpus
    if not root.is_dir():
        pytest.skip(f"{root} not available")
    n = 0
    for path, text in sample_pages(tree_pages(root), SHAPES):
        if not ("`" in text or "~~~" in text or "<!--" in text or "%%" in text or "$$" in text):
            continue  # (no part can hold one: no parse)
        page = parse_page(text, path)
        for part in ("compiled_truth", "timeline"):
            s = getattr(page, part)
            if "`" in s or "~~~" in s or "<!--" in s or "%%" in s or "$$" in s:  # (else address_spans' own passes)
                assert_same_scan(s, page.part_unread(part))
                n += 1
    assert n > 0


def test_every_corpus_is_compared():
    if not CORPORA.is_dir():
        pytest.skip("../shared/corpora not available")
    with_md = {d.name for d in CORPORA.iterdir() if d.is_dir() and any(d.rglob("*.md"))}
    with_md -= {"ir"}  # SOURCE.md only
    assert with_md <= set(CORPUS_NAMES)


#: pieces of lines: every mark of the scan, links of each kind, line ends of each kind
PIECES = ["`", "``", "```", "````", "~~~", "~~~~", "<!--", "-->", "<!-- x -->", "%%", "%", "%%%", "$$", "$",
          "[[a]]", "[[b|c]]", "![[p.png]]", "![[i.png|300]]", "[[n.md#h]]", "[l](x.md)", "[l](<a b.md> \"t\")",
          "![alt](img.png)", "[![b](i.svg)](https://u.io)", "[r]: https://d.io/x", "[r]:", "https://www.e.io",
          "ftp://f", "[", "]", "(", ")", "!", "h", "word", " ", "    ", "\t", "-", "*", ">", "#",
          "\n", "\n", "\n", "\r\n", "\r"]


@st.composite
def markdown(draw) -> str:
    lines = draw(st.lists(st.lists(st.sampled_from(PIECES), max_size=8).map("".join), max_size=14))
    return "\n".join(lines)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(markdown())
def test_generated_markdown_scans_as_line_by_line(text):
    assert_same_scan(text, None)  # (the blocks from a parse of the text: unread_spans)
    page = parse_page(text, "n.md")
    for part in ("compiled_truth", "timeline"):
        assert_same_scan(getattr(page, part), page.part_unread(part))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("`~<!->%$[]()|#:/htps. a\n\r")), max_size=120))
def test_generated_characters_scan_as_line_by_line(text):
    assert_same_scan(text, None)


@pytest.mark.parametrize("text", [
    "%%\n[a](b.md)\n%%\n[c](d.md)\n",  # a %% comment block: its marks are in the parse's unread blocks
    "%% [a](b.md)\n[c](d.md) %%\n[e](f.md)\n",  # an inline %% comment left open runs on
    "```\n[a](b.md)\n  ```\n[c](d.md)\n",  # a fence closed by an indented fence line
    "````\n```\n[a](b.md)\n````\n[c](d.md)\n",
    "<!--\n[a](b.md)\n-->[c](d.md)\n[e](f.md)\n",  # an HTML comment block: the closing line is all comment
    "x <!-- [a](b.md)\n[c](d.md) --> [e](f.md)\n[g](h.md)\n",  # an inline comment over lines
    "[a](b.md)\r[c](d.md)`x`\r\n",  # a lone CR
    "a `[x](y.md)` [[z|w]]\n\n[r]: https://q.io\n`",
    "%%%[a](b.md)%%%\n%%\n%%%\n[c](d.md)\n",
])
def test_the_line_scans_corners(text):
    assert_same_scan(text, None)
    page = parse_page(text, "n.md")
    assert_same_scan(page.compiled_truth, page.part_unread("compiled_truth"))


def _spans(matches) -> list:
    return [(m.span(), m.groupdict()) for m in matches]


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(markdown())
def test_link_matches_are_the_regex_passes(text):
    """``address_spans``' link pass (no code, comments or math in the text) tries its regex only
    at a ``[`` and the ``!`` before one: the same matches as ``finditer``, groups and all."""
    assert _spans(linkedit._link_matches(text)) == _spans(linkedit._LINKS_RE_M.finditer(text))


@pytest.mark.parametrize("text", ["![[a]]", "!![[a]]", "[![b](i.svg)](u)", "![[a]]![[b]]", "[[a]]![l](x)",
                                  "!", "[", "![", "[!", "[x]![y](z)", "[[a]](b.md)", "x [[a|b]]!"])
def test_link_matches_corners(text):
    assert _spans(linkedit._link_matches(text)) == _spans(linkedit._LINKS_RE_M.finditer(text))


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(markdown(), st.data())
def test_address_matches_are_the_regex_pass(text, data):
    """``_scan``'s run between marks tries the address regex only at a ``[``, a ``!`` before one,
    a line start up to 3 spaces before one (a space there), and an ``h``/``H`` 4-5 or an
    ``f``/``F`` 3 characters before a ``://``: the same matches as ``finditer`` over the run (from
    a line's start to a line's start). Each of those filters dropped, or a window one character
    short, fails this test or its corners below."""
    starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"] + [len(text)]
    a = data.draw(st.sampled_from(starts))
    z = data.draw(st.sampled_from([s for s in starts if s >= a]))
    assert _spans(linkedit._addr_matches(text, a, z)) == _spans(_ADDR_RE_M.finditer(text, a, z))


@pytest.mark.parametrize("text", ["   [r]: https://x.io", "    [r]: u", "ftp://a http://b https://c HTTPS://www.d",
                                  "xhttps://a", "[a](https://b) https://c", " ![[a]] [r]:", "[[a]]://b",
                                  # (a scheme's one start; the engine's case-insensitive match takes ``ſ`` for ``s``)
                                  "httpſ://a", "HTTPſ://a x", "hTtP://a Ftp://b", "ſ://", "tps://a", "p://a", "://",
                                  "éhttps://a", "a![b](c) x[y](z)", " [y]: z", "\t[y](z)", "![[a]]https://b",
                                  # (a definition's indent on a line after the run's first: its start a candidate)
                                  "x\n   [r]: https://d.io/x", "x\n  [r]: u\n [s]: v", "x\n    [r]: u", "x\n ![a](b) [r]: c"])
def test_address_matches_corners(text):
    assert _spans(linkedit._addr_matches(text, 0, len(text))) == _spans(_ADDR_RE_M.finditer(text))
