"""Rewriting where links point, in place: find each link as written in a page's text and swap
only its target, so every other byte (label, ``#heading``, ``|alias``, ``#^block``, embed ``!``,
anchors, angle brackets, line endings) stays as it was.

:func:`link_spans` finds the wiki links (``[[…]]``, ``![[…]]``) and inline markdown links
(``[text](url)``) of a text outside fenced code and code spans, each with the page target the
parser gives it (:mod:`gbrain.page.markdown`: ``_page_target``, ``_link_from_url``).
:func:`wiki_target` and :func:`markdown_url` spell a new target in the style of an old one;
:func:`replace_spans` makes the new text; :func:`unlink_text` turns links into their labels
(``unlink``). This is a text scan, not the parser: callers check the result by parsing it
again (``core/lint.py: plan_link_fixes`` compares the links found with the links the parser
sees, before and after; :func:`unlink_text` compares the parser's link counts).
"""
from __future__ import annotations

import posixpath
import re
from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass, replace
from typing import Callable
from urllib.parse import unquote

from .markdown import BOM, PROPERTY, _link_from_url, _page_target, link_family, parse_page, split_frontmatter, split_lines, unread_spans
from .slugs import identity_key

#: a markdown link's URL may hold one level of balanced parentheses, as CommonMark reads it
#: (`Smith%20et%20al%20(2024).pdf`, `wiki/Rust_(lang)`): Obsidian encodes only the blanks
_LINK_RE = re.compile(
    r"(?P<wiki>(?P<bang>!?)\[\[(?P<body>[^\[\]\n]+?)\]\])"
    r"|(?P<md>(?<!!)\[(?P<label>[^\[\]\n]*)\]\((?P<url>(?:[^()\s]++|\([^()\s]*+\))++|<[^<>\n]+>)(?:[ \t]+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^()\n]*\)))?[ \t]*\))"
)
#: what hides a link from the parser within a line: code spans, HTML comments (closed or not)
_HIDDEN_RE = re.compile(r"`+[^`]*?`+|<!--.*?(?:-->|$)", re.S)
_FENCE_RE = re.compile(r"(`{3,}|~{3,})")
#: characters a markdown link path cannot hold as they are (written as %XX)
_MUST_ENCODE = re.compile(r"[\s%()<>#?\[\]\\]")


@dataclass
class LinkSpan:
    """One link as written: ``kind`` ``wiki``/``embed``/``markdown``/``property`` (:func:`property_spans`); ``target`` the page target
    the parser reads from it (decoded, without ``.md`` and anchors); ``form`` the exact text
    written (``[[Old|alias]]``, ``![[Old]]``; for markdown the ``(url)`` part); ``start``/``end``
    the offsets in the scanned text of the part a new target replaces (the wiki link's name, the
    markdown link's whole URL); ``written`` that part as written."""

    kind: str
    target: str
    form: str
    start: int
    end: int
    written: str
    at: int = 1  #: offset of ``written`` in ``form``
    lead: int = 0  #: characters of the whole link before ``start`` (``[[``, ``[label](``)
    tail: int = 0  #: characters of the whole link after ``end`` (``#heading|alias]]``, `` "title")``)
    label: str = ""  #: the text a reader sees: a markdown link's ``[label]``, a wiki link's alias, else its name

    @property
    def whole(self) -> tuple[int, int]:
        """``(start, end)`` of the whole link as written (``[[Ana#h|A]]``, ``[A](ana.md "t")``)."""
        return self.start - self.lead, self.end + self.tail

    @property
    def family(self) -> str:
        """``md``, ``prop`` or ``wiki`` (embeds are wiki links), as ``Link.key`` groups them
        (:func:`gbrain.page.markdown.link_family`)."""
        return link_family(self.kind)


def link_spans(text: str) -> list[LinkSpan]:
    """The links of ``text`` (a page body) in order, outside fenced code, code spans, HTML
    comments and the blocks the parser reads no link in (``%% … %%`` comment blocks, ``$$`` math:
    :func:`gbrain.page.markdown.unread_spans`, asked of the parser itself when the text holds
    ``%%`` or ``$$``); links without a page target (external URLs, attachments) are left out."""
    return _scan(text, _LINK_RE, _span)


#: every link form, markdown images too (``![alt](img.png)``): :func:`written_links`
_ANY_RE = re.compile(
    r"(?P<wiki>(?P<bang>!?)\[\[(?P<body>[^\[\]\n]+?)\]\])"
    r"|(?P<md>(?P<img>!?)\[[^\[\]\n]*\]\((?P<url>(?:[^()\s]++|\([^()\s]*+\))++|<[^<>\n]+>)(?:\s+\"[^\"]*\")?\))"
)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


@dataclass
class WrittenLink:
    """A link as written, attachments and anchors included (:func:`written_links`): ``kind``
    ``wiki``, ``embed``, ``markdown`` or ``image`` (``![alt](url)``); ``name`` the path or name
    written before any ``#`` (decoded for markdown; '' for a link within the page, ``[[#H]]``);
    ``anchor`` what follows the first ``#`` (``Heading``, ``H1#H2``, ``^block``; decoded), or None;
    ``form`` the exact text."""

    kind: str
    name: str
    anchor: str | None
    form: str
    probe: "Probe | None" = None  #: where it stands in the scanned text: :func:`parser_reads` tells whether the parser reads it


def _written(m: re.Match, pos: int) -> WrittenLink | None:
    if m.group("wiki"):
        head, bar, _alias = m.group("body").partition("|")
        if bar and head.endswith("\\"):
            head = head[:-1]
        name, hash_, anchor = head.strip().partition("#")
        a = pos + m.start("body")
        return WrittenLink("embed" if m.group("bang") else "wiki", name.strip(), anchor.strip() if hash_ else None, m.group("wiki"),
                           Probe("wiki", a, a + len(head)))
    url = m.group("url").strip()
    if url.startswith("<") and url.endswith(">"):
        url = url[1:-1].strip()
    if not url or url.startswith("//") or _SCHEME.match(url):
        return None  # an external URL
    path, hash_, anchor = url.partition("#")
    path = path.split("?", 1)[0]
    img = bool(m.group("img"))
    return WrittenLink("image" if img else "markdown", unquote(path), unquote(anchor) if hash_ else None, m.group("md"),
                       Probe("image" if img else "markdown", pos + m.start("url"), pos + m.end("url"), pos + m.start("md") if img else -1))


@dataclass
class Probe:
    """Where a link found by a text scan stands in the scanned text, for :func:`parser_reads`:
    ``kind`` ``markdown``, ``image``, ``wiki`` (an embed too) or ``def`` (a link reference
    definition); ``start``/``end`` its URL's (a wiki link's name part's) offsets; ``bang`` an
    image's ``!``; ``label`` a definition's label."""

    kind: str
    start: int
    end: int
    bang: int = -1
    label: str = ""


_PROBE = "gbrain-probe-{}-q7"


def parser_reads(body: str, probes: "list[Probe]") -> set[int]:
    """The indices of ``probes`` (links a text scan found in page body ``body``) that the page
    parser reads as links: a text scan does not see every block the parser reads no link in (an
    indented code block, a fence inside a quote or a list item), so a rewrite or a finding of a
    scanned link asks this first (review48). Each probe's URL (name) is swapped for a page name
    of its own and the body parsed once (twice with images: an image is read as the link it
    would be without its ``!``, apart from the other links; a definition through a reference to
    its label added at the end): a probe is read when its name comes out as a link target."""
    from .markdown import _parse_ast, extract_links, to_lf

    out: set[int] = set()
    for images in (False, True):
        idx = [i for i, p in enumerate(probes) if (p.kind == "image") == images]
        if not idx:
            continue
        parts, last, refs = [], 0, []
        cuts = []
        for i in idx:
            p = probes[i]
            name = _PROBE.format(i)
            cuts.append((p.start, p.end, name if p.kind == "wiki" else name + ".md"))
            if p.bang >= 0:
                cuts.append((p.bang, p.bang + 1, " "))
            if p.kind == "def":
                refs.append("[" + p.label + "]")
        for a, z, s in sorted(cuts):
            parts += [body[last:a], s]
            last = z
        parts.append(body[last:])
        if refs:
            parts.append("\n\n" + "\n\n".join(refs) + "\n")
        text = to_lf("".join(parts))
        found = {ln.target for ln in extract_links(_parse_ast(text)[0])[0]}
        out.update(i for i in idx if _PROBE.format(i) in found)
    return out


def parser_link_counts(body: str, probes: "list[Probe]") -> dict[int, int]:
    """How many links the page parser reads through each of ``probes`` (not images) of page body
    ``body``: each probe's URL (name) swapped for a page name of its own and the body parsed
    once, as :func:`parser_reads` does but with no reference added: a link 1 (0 where the parser
    reads none, in code), a link reference definition as many as the references that use it
    (0 when none does: :func:`parser_reads` tells whether it is one)."""
    from collections import Counter

    from .markdown import _parse_ast, extract_links, to_lf

    parts, last = [], 0
    for i, p in sorted(enumerate(probes), key=lambda x: x[1].start):
        parts += [body[last : p.start], _PROBE.format(i) if p.kind == "wiki" else _PROBE.format(i) + ".md"]
        last = p.end
    parts.append(body[last:])
    got: Counter = Counter()
    for ln in extract_links(_parse_ast(to_lf("".join(parts)))[0])[0]:
        got[ln.target] += ln.count
    return {i: got[_PROBE.format(i)] for i in range(len(probes)) if got[_PROBE.format(i)]}


#: a link reference definition on a line (``[ref]: ../people/bo.md "Bo"``): :func:`definition_spans`
_DEF_ONLY_RE = re.compile(r"(?P<def>^[ ]{0,3}\[(?!\^)(?P<label>[^\[\]\n]+)\]:[ \t]*(?P<url><[^<>\n]*>|[^\s<>]+))")


def definition_spans(text: str) -> list[LinkSpan]:
    """The link reference definitions of ``text`` (a page body) naming a page, where
    :func:`link_spans` finds links, as spans of kind ``markdown`` (``form`` the definition as
    written, ``[ref]: url``; ``start``/``end`` its URL's; ``label`` its label). A text scan: a
    definition in an indented code block is found too, and one used by no reference is no link
    (:func:`parser_link_counts`, :func:`parser_reads` tell)."""

    def make(m: re.Match, pos: int) -> LinkSpan | None:
        url = m.group("url")
        target = _link_from_url(url)
        if target is None:
            return None
        at = m.start("url") - m.start("def")
        return LinkSpan("markdown", target, m.group("def"), pos + m.start("url"), pos + m.end("url"), url, at=at, lead=at,
                        label=m.group("label"))

    return _scan(text, _DEF_ONLY_RE, make) if "]:" in text else []


def written_links(text: str) -> list[WrittenLink]:
    """Every wiki link, embed, markdown link and markdown image of ``text`` (a page body) that
    is not an external URL, in order, where :func:`link_spans` finds links (outside code, HTML
    comments, ``%%`` comments and math), attachments (``![[image.png]]``, ``[pdf](x.pdf)``) and
    links within the page (``[[#Heading]]``, ``[x](#h)``) included: what the lint's
    ``dead_anchors`` and ``dead_attachments`` checks read."""
    return _scan(text, _ANY_RE, _written)


_PCT_RE = re.compile("%%")


def _unread_at(unread: list[tuple[int, int]], starts: list[int], at: int) -> bool:
    """Whether offset ``at`` lies in one of the blocks ``unread`` (sorted; ``starts`` their starts)."""
    if not unread:
        return False
    i = bisect_right(starts, at) - 1
    return i >= 0 and at < unread[i][1]


#: what may change the line scan's state (:func:`_scan_line`) outside a fence and an HTML comment:
#: a code span's or fence's backtick, a ``~~~`` fence, an HTML comment's opening, an Obsidian ``%%``
#: comment's mark (but one in ``unread``). A line without any reads as every other line does
#: (its matches of the pattern outside ``unread``; none in a ``%%`` comment) and leaves the state
#: as it was; in a fence only a line holding the fence can change it, in an HTML comment only a
#: line holding ``-->``
_MARK_RE = re.compile(r"`|~~~|<!--|%%")
_CODE_MARK_RE = re.compile(r"`|~~~|<!--")
_LONE_CR = re.compile(r"\r(?!\n)")
#: the line scan's state between lines: (fence, HTML comment, HTML comment block, %% comment)
_NEUTRAL = ("", False, False, False)


def _scan(text: str, pattern: "re.Pattern", make, unread: list | None = None, whole: "re.Pattern | None" = None) -> list:
    """``make(match, line_offset)`` of each match of ``pattern`` in ``text`` where the parser
    reads links (see :func:`link_spans`), None results left out. ``unread``: the text's
    :func:`unread_spans` when the caller has them from its parse (else parsed here).

    ``whole``: ``pattern`` for many lines at once (``re.M``) when no match of it crosses a line
    end (each match one of ``pattern`` on the match's line; offsets of ``text``): then only the
    lines that may change the scan's state (:data:`_MARK_RE`) go through the line scan
    (:func:`_scan_line`; not a line whose marks are backticks or ``~~~`` alone that opens no
    fence and holds no ``[`` or ``://``: it reads as the lines between), the lines between in one
    pass of ``whole`` (:func:`_addr_matches` for :data:`_ADDR_RE_M`: ``whole``'s matches hold a
    ``[`` or ``://``) or none (in a fence or a comment). The same result as the line scan of every line (``tests/test_scan_runs.py``)."""
    if not ("%%" in text or "$$" in text):
        unread = []
    elif unread is None:
        unread = unread_spans(text)
    starts = [a for a, _z in unread]
    out: list = []
    state = _NEUTRAL
    if whole is None or ("\r" in text and _LONE_CR.search(text)):  # (a lone CR ends a line too)
        pos = 0
        for ln in split_lines(text):
            state = _scan_line(ln, pos, state, pattern, make, unread, starts, out)
            pos += len(ln)
        return out
    n = len(text)
    pos = 0  # a line's start: the lines before it are scanned
    while pos < n:
        fence, comment, block, _pct = state
        if fence:  # only the fence's line may close it
            a = text.find(fence, pos)
        elif comment or block:
            a = text.find("-->", pos)
        else:
            a, at = -1, pos
            while (mk := _MARK_RE.search(text, at)) is not None:
                a = mk.start()
                if text[a] != "%":
                    # a backtick or ~~~ on a line that opens no fence and holds no link mark,
                    # ``<!--`` or ``%%``: the line scan reads it as every other line (no match,
                    # the state kept), so it stays in the run
                    le = text.find("\n", a) + 1 or n
                    ln = text[text.rfind("\n", pos, a) + 1 or pos : le]
                    if ("[" not in ln and "://" not in ln and "<!--" not in ln and "%%" not in ln
                            and not _FENCE_RE.match(ln.lstrip(" "))):
                        a, at = -1, le
                        continue
                    break
                i = bisect_right(starts, a) - 1 if unread else -1
                if i < 0 or a >= unread[i][1]:
                    break
                # a %% in a block the parser reads no link in: only a backtick, ~~~ or <!-- there may matter
                at = unread[i][1]
                mk = _CODE_MARK_RE.search(text, a, at + 3)
                if mk is not None and mk.start() < at:
                    a = mk.start()
                    break
                a = -1
        ls = n if a < 0 else (text.rfind("\n", pos, a) + 1 or pos)
        if ls > pos and state is _NEUTRAL and (text.find("[", pos, ls) >= 0 or text.find("://", pos, ls) >= 0):
            # (no unread block begins in the run nor runs into it: no match of it is asked about)
            check = unread and ((k := bisect_right(starts, pos)) != bisect_right(starts, ls) or (k > 0 and unread[k - 1][1] > pos))
            for m in (_addr_matches(text, pos, ls) if whole is _ADDR_RE_M else whole.finditer(text, pos, ls)):  # the lines before the mark's
                if not (check and _unread_at(unread, starts, m.start())):
                    sp = make(m, 0)
                    if sp is not None:
                        out.append(sp)
        if a < 0:
            break
        pos = text.find("\n", a) + 1 or n
        state = _scan_line(text[ls:pos], ls, state, pattern, make, unread, starts, out)
        if state == _NEUTRAL:
            state = _NEUTRAL
    return out


def _scan_line(ln: str, pos: int, state: tuple, pattern: "re.Pattern", make, unread: list, starts: list, out: list) -> tuple:
    """One line ``ln`` (at offset ``pos``) of :func:`_scan`: its matches appended to ``out``;
    returns the state after it (``state``: :data:`_NEUTRAL` or a tuple like it)."""
    fence, comment, block, pct = state
    s = ln.lstrip(" ")
    start = 0
    if block or (not fence and not comment and len(ln) - len(s) <= 3 and s.startswith("<!--")):
        block = "-->" not in (ln if block else s[4:])
        return (fence, comment, block, pct)
    if comment:  # inside an HTML comment opened on an earlier line
        end = ln.find("-->")
        if end < 0:
            return state
        comment, start = False, end + 3
    if fence:
        if s.startswith(fence):
            fence = ""
    elif start == 0 and _FENCE_RE.match(s):
        fence = _FENCE_RE.match(s).group(1)
    elif "[" not in ln and "://" not in ln and "%" not in ln and "<" not in ln:
        pass  # nothing on the line can match, open an HTML comment or toggle a %% one
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
                while marks and marks[0] < m.start():  # an inline %% comment opens or closes
                    if not _unread_at(unread, starts, pos + marks.pop(0)):
                        pct = not pct
                if pct or _unread_at(unread, starts, pos + m.start()):  # in a comment, or a block the parser reads no link in
                    continue
                sp = make(m, pos)
                if sp is not None:
                    out.append(sp)
            for p in marks:
                if not _unread_at(unread, starts, pos + p):
                    pct = not pct
            last = cm.end() if cm else len(ln)
    return (fence, comment, block, pct)


#: a wiki link alone (in a frontmatter block no markdown link is read)
_WIKI_ONLY_RE = re.compile(r"(?P<wiki>(?P<bang>!?)\[\[(?P<body>[^\[\]\n]+?)\]\])")


def property_spans(frontmatter_raw: str) -> list[LinkSpan]:
    """The wiki links written in a frontmatter block (``frontmatter_raw``, fences included), in
    order, as links of kind ``property`` with their offsets in it; full-line YAML comments are
    skipped. A text scan, not the YAML load the page model reads property links from
    (:func:`gbrain.page.markdown.property_links`): a link in a trailing comment or a key is
    found too, and one spelled with a YAML escape or folded over two lines is not, so callers
    compare the spans with the page's property links (``core/lint.py: _plan_page`` counts them
    per target and leaves a page whose counts differ)."""
    out: list[LinkSpan] = []
    pos = 0
    for ln in split_lines(frontmatter_raw):
        if "[[" in ln and not ln.lstrip().startswith("#"):
            for m in _WIKI_ONLY_RE.finditer(ln):
                sp = _span(m, pos)
                if sp is not None:
                    sp.kind = PROPERTY
                    out.append(sp)
        pos += len(ln)
    return out


def _span(m: re.Match, pos: int) -> LinkSpan | None:
    if m.group("wiki"):
        body = m.group("body")
        head, bar, _alias = body.partition("|")
        if bar and head.endswith("\\"):  # ``[[x\|alias]]`` in a table: the parser reads ``x``
            head = head[:-1]
        stripped = head.strip()
        name = stripped.split("#", 1)[0].strip()  # (as markdown._wiki_page: `x^y` is a name)
        target = _page_target(name) if name else None
        if target is None:
            return None
        lead = len(head) - len(head.lstrip())
        start = m.start("body") + lead
        return LinkSpan("embed" if m.group("bang") else "wiki", target, m.group("wiki"), pos + start, pos + start + len(name), name, start - m.start("wiki"),
                        lead=start - m.start("wiki"), tail=m.end("wiki") - start - len(name), label=_alias.strip() or name)
    url = m.group("url")
    target = _link_from_url(url)
    if target is None:
        return None
    return LinkSpan("markdown", target, "(" + url + ")", pos + m.start("url"), pos + m.end("url"), url,
                    lead=m.start("url") - m.start("md"), tail=m.end("md") - m.end("url"), label=m.group("label"))


def page_link_spans(text: str) -> list[LinkSpan]:
    """The links of a whole page ``text`` (BOM, frontmatter, body), offsets in ``text``: the
    wiki links of its frontmatter block (:func:`property_spans`), then the body's
    (:func:`link_spans`)."""
    lead = 1 if text.startswith(BOM) else 0
    fm, body, _warning = split_frontmatter(text[lead:])
    spans = [replace(sp, start=sp.start + lead, end=sp.end + lead) for sp in property_spans(fm)] if "[[" in fm else []
    head = lead + len(fm)
    return spans + [replace(sp, start=sp.start + head, end=sp.end + head) for sp in link_spans(body)]


def _link_counts(text: str) -> Counter:
    """How many links of each ``(family, identity key of the target)`` the page parser reads in
    page ``text`` (:attr:`gbrain.page.markdown.Link.count`, per family)."""
    out: Counter = Counter()
    for ln in parse_page(text, "page.md").links:
        out[(link_family(ln.kind), identity_key(ln.target))] += ln.count
    return out


def unlink_text(text: str, matches: Callable[[str, str], bool]) -> tuple[str, int]:
    """Page ``text`` with each link whose target satisfies ``matches(kind, target)`` (``kind``
    ``markdown`` or ``wiki``; a property link asks as ``wiki``; embeds ``![[…]]`` are left
    alone) replaced by its label: ``[Ana](../people/ana.md "t")`` → ``Ana``;
    ``[[people/ana#Work|Ana L]]`` → ``Ana L``; ``[[Ana#Work]]`` → ``Ana``; ``related: "[[Ana]]"``
    → ``related: "Ana"``. Returns ``(new_text, count)``.

    Links are taken exactly where the page parser reads them: the scan (:func:`page_link_spans`:
    not in code, HTML or ``%%`` comments, ``$$`` math) is checked against the parser's counts,
    and when they differ (a look-alike the scan does not tell from a link, such as one in an
    indented code block) each candidate is removed on its own and kept removed only when the
    parser then reads one link fewer to that target and nothing else changed."""
    spans = [sp for sp in page_link_spans(text) if sp.kind != "embed" and matches("markdown" if sp.kind == "markdown" else "wiki", sp.target)]
    if not spans:
        return text, 0

    def cut(t: str, chosen: list[LinkSpan], shift: int = 0) -> str:
        out, last = [], 0
        for sp in sorted(chosen, key=lambda x: x.start):
            a, z = sp.whole
            out += [t[last : a + shift], sp.label]
            last = z + shift
        return "".join(out) + t[last:]

    def key(sp: LinkSpan) -> tuple[str, str]:
        return sp.family, identity_key(sp.target)

    before = _link_counts(text)
    found = Counter(map(key, spans))
    if all(before[k] == n for k, n in found.items()):  # as many as the parser reads: all of them?
        new = cut(text, spans)
        if _link_counts(new) == +(before - found):
            return new, len(spans)
    # the scan saw a link the parser does not read: try each on its own, last first (offsets
    # before a cut stay as they are)
    kept, now = 0, before
    for sp in sorted(spans, key=lambda x: x.start, reverse=True):
        if now[key(sp)] <= 0:
            continue
        trial = cut(text, [sp])
        counts = _link_counts(trial)
        if counts == +(now - Counter([key(sp)])):
            text, now, kept = trial, counts, kept + 1
    return text, kept


def unlink_value(value: str, matches: Callable[[str, str], bool]) -> str:
    """A loaded frontmatter string ``value`` with each wiki link whose target satisfies
    ``matches("wiki", target)`` replaced by its label, as :func:`unlink_text` rewrites it in the
    frontmatter text (what that edit must load to); embeds are left alone."""

    def one(m: re.Match) -> str:
        sp = _span(m, 0)
        if sp is None or sp.kind == "embed" or not matches("wiki", sp.target):
            return m.group(0)
        return sp.label

    return _WIKI_ONLY_RE.sub(one, value) if "[[" in value else value


def replace_spans(text: str, new: list[tuple[LinkSpan, str]]) -> str:
    """``text`` with each span's written part replaced by its new string (spans from
    :func:`link_spans` of this very text; any order)."""
    out = []
    last = 0
    for sp, s in sorted(new, key=lambda x: x[0].start):
        out.append(text[last : sp.start])
        out.append(s)
        last = sp.end
    out.append(text[last:])
    return "".join(out)


def new_form(sp: LinkSpan, written: str) -> str:
    """The span's ``form`` with its written target replaced by ``written``."""
    return sp.form[: sp.at] + written + sp.form[sp.at + len(sp.written) :]


def wiki_target(sp: LinkSpan, name: str) -> str | None:
    """The name part of a wiki link that points at page slug/name ``name`` in the style of ``sp``
    (``.md`` kept when it was written). None when ``name`` holds a character a wiki link cannot
    (``[ ] | # ^ \\``, a line break)."""
    if any(c in name for c in "[]|#^\\\n\r"):
        return None
    if sp.written.lower().endswith(".md"):
        name += sp.written[-3:]
    return name


def markdown_url(sp: LinkSpan, path: str) -> str | None:
    """The URL of a markdown link to file ``path`` (a relative or root path with ``.md``) in the
    style of ``sp``: ``<…>`` kept, the ``#anchor``/``?query`` kept, ``.md`` only when it was
    written, characters a bare URL cannot hold written ``%XX`` (a space as ``%20``). None when
    ``path`` cannot be written in that style."""
    url = sp.written
    angle = url.startswith("<") and url.endswith(">")
    inner = url[1:-1] if angle else url
    cut = min([i for i in (inner.find("#"), inner.find("?")) if i >= 0], default=len(inner))
    old_path, suffix = inner[:cut], inner[cut:]
    if not unquote(old_path).lower().endswith(".md") and path.lower().endswith(".md"):
        path = path[:-3]
    if old_path.startswith("./") and not path.startswith(("../", "./", "/")):
        path = "./" + path
    if angle:
        if any(c in path for c in "<>\n\r"):
            return None
        return "<" + path + suffix + ">"
    return _MUST_ENCODE.sub(lambda m: "".join(f"%{b:02X}" for b in m.group(0).encode("utf-8")), path) + suffix


#: :data:`_ANY_RE` and a link reference definition (``[ref]: ../img/a.png``): :func:`repointed_path_links`
_REPOINT_RE = re.compile(_ANY_RE.pattern + r"|(?P<def>^[ ]{0,3}\[(?!\^)[^\[\]\n]+\]:[ \t]*(?P<defurl><[^<>\n]*>|[^\s<>]+))")


def repointed_path_links(text: str, old_path: str, new_path: str, where: Callable[[str], "str | None"], *, bare: bool = False) -> str:
    """Page ``text`` (moved from file ``old_path`` to ``new_path``) with each markdown link,
    image, link reference definition or wiki link/embed written as a relative path
    (``../img/a.png``, ``files/cv.pdf``, ``./ana.md``, ``![[../img/a.png]]``, ``[[../people/bo]]``)
    that named a file or page from ``old_path``'s folder (``where(path)``: that file's or page's
    path now, or None) written to name it from ``new_path``'s folder, in its style
    (:func:`markdown_url`: ``./``, ``<…>``, ``%20``, ``#anchor`` kept; a wiki name keeps ``./``
    or becomes one, ``.md`` only as written): ``move``'s own links (review48: the attachments a
    page embedded were dead after a move to another folder). A page that did not move
    (``old_path == new_path``) and links to one that did (``where``) gets its links to it
    repointed. A markdown path without a folder (``bo.md``) only with ``bare`` (a page linking
    the moved one: the path is wrong on GitHub though Obsidian finds the name in any folder); a
    wiki name not starting ``./`` or ``../``, a path from the root, a URL stay as written, and
    so does a link the page parser does not read (code, even the kinds the text scan does not
    tell: :func:`parser_reads`)."""

    def make(m: re.Match, pos: int):
        if m.group("def"):
            label = m.group("def").lstrip(" ")[1:].split("]", 1)[0]
            return Probe("def", pos + m.start("defurl"), pos + m.end("defurl"), label=label)
        if m.group("md"):
            return Probe("image" if m.group("img") else "markdown", pos + m.start("url"), pos + m.end("url"),
                         pos + m.start("md") if m.group("img") else -1)
        body = m.group("body")
        head = body.partition("|")[0]
        if head.endswith("\\") and "|" in body:
            head = head[:-1]
        name = head.split("#", 1)[0]
        name_s = name.strip()
        if not name_s.startswith(("./", "../")):
            return None
        a = pos + m.start("body") + len(name) - len(name.lstrip())
        return Probe("wiki", a, a + len(name_s))

    lead = 1 if text.startswith(BOM) else 0
    head = lead + len(split_frontmatter(text[lead:])[0])
    body = text[head:]
    old_dir, new_dir = posixpath.dirname(old_path), posixpath.dirname(new_path)
    new: list[tuple[Probe, str]] = []
    for pr in _scan(body, _REPOINT_RE, make):
        url = body[pr.start : pr.end]
        if pr.kind == "wiki":
            p = url
        else:
            inner = url[1:-1] if url.startswith("<") and url.endswith(">") else url
            cut = min([i for i in (inner.find("#"), inner.find("?")) if i >= 0], default=len(inner))
            p = unquote(inner[:cut]).strip()
        if not p or p.startswith("/") or _SCHEME.match(p) or ("/" not in p and not bare):
            continue
        was = posixpath.normpath(posixpath.join(old_dir, p))
        dest = None if was.startswith("..") or was == "." else where(was)
        if dest is None or posixpath.normpath(posixpath.join(new_dir, p)) in (dest, dest[:-3] if dest.endswith(".md") else dest):
            continue
        rel = relative_path(dest, new_path)
        if pr.kind == "wiki":
            u = rel if p.lower().endswith(".md") or not rel.lower().endswith(".md") else rel[:-3]
            if not u.startswith(("./", "../")):
                u = "./" + u
            if any(c in u for c in "[]|#^\\\n\r"):
                continue
        else:
            u = markdown_url(LinkSpan("markdown", "", "(" + url + ")", 0, 0, url), rel)
        if u is not None and u != url:
            new.append((pr, u))
    if not new:
        return text
    read = parser_reads(body, [pr for pr, _u in new])
    new = [(pr, u) for i, (pr, u) in enumerate(new) if i in read]
    out, last = [], 0
    for pr, u in sorted(new, key=lambda x: x[0].start):
        out += [body[last : pr.start], u]
        last = pr.end
    return text[:head] + "".join(out) + body[last:]


def relative_path(to_path: str, from_path: str) -> str:
    """``to_path`` relative to the folder of ``from_path`` (both brain-relative file paths)."""
    return posixpath.relpath(to_path, posixpath.dirname(from_path) or ".")


# ---- link addresses: what keyword search does not index (search/keyword.py: search_text) ----

_MD_ADDR = (r"(?P<md>!?\[(?P<label>(?:[^\[\]\n]++|\[[^\[\]\n]*+\])*+)\]\("
            r"[ \t]*(?P<url>(?:[^()\s]++|\([^()\s]*+\))++|<[^<>\n]*>)?(?:[ \t]+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^()\n]*\)))?[ \t]*\))")
_SCHEME_ADDR = r"(?P<scheme>\b(?i:https?|ftp)://(?i:www\.)?)"
#: the addresses of a line: wiki links and embeds, markdown links and images (one level of
#: brackets in a label: a badge ``[![alt](img)](url)``; one of parentheses in a URL:
#: ``wiki/Rust_(lang)``), a link reference definition's URL, a URL's scheme
_ADDR_RE = re.compile(
    r"(?P<wiki>(?P<bang>!?)\[\[(?P<body>[^\[\]\n]+?)\]\])|" + _MD_ADDR
    + r"|(?P<def>^[ ]{0,3}\[(?!\^)[^\[\]\n]+\]:[ \t]*(?P<defurl><[^<>\n]*>|[^\s<>]+))|" + _SCHEME_ADDR)
#: :data:`_ADDR_RE` over a whole text (``^``: a line's start; no match crosses a line end): :func:`_scan`'s ``whole``
_ADDR_RE_M = re.compile(r"(?=[!\[ hHfF])(?:" + _ADDR_RE.pattern + ")", re.M)
#: the same in three passes over a whole text (no code, comments or math in it:
#: :func:`address_spans`), each asked only when the text holds its mark: links, then
#: definitions (``]:``), then schemes (``://``); a scheme inside a link's URL is blanked twice
_LINKS_RE_M = re.compile(r"(?=[!\[])(?:(?P<wiki>(?P<bang>!?)\[\[(?P<body>[^\[\]\n]++)\]\])|" + _MD_ADDR + ")")  # (the look-ahead lets the engine skip to a candidate: 3× faster)
def _addr_matches(text: str, pos: int, end: int) -> list[re.Match]:
    """``list(_ADDR_RE_M.finditer(text, pos, end))`` (``pos`` a line's start), found faster: a
    match begins at a ``[``, at a ``!`` before one, at the start of a line whose ``[`` is at most 3
    spaces in (a definition: the line's first character a space), or at an ``h``/``H`` 4-5
    characters or an ``f``/``F`` 3 characters before a ``://`` (a scheme), so only there is the
    regex tried, in order (the engine stepped through every character; a candidate that cannot
    pass the regex's first character is not tried: 145,799 tries → 75,399 on obsidian-hub, 75,242 of them matches)."""
    find = text.find
    at: list[int] = []
    i = find("[", pos, end)
    while i >= 0:
        if i > pos:
            c = text[i - 1]
            if c == "!":
                at.append(i - 1)
            elif c == " ":  # (a definition's indent: the line's start is a candidate)
                nl = text.rfind("\n", i - 4 if i - 4 > pos else pos, i)
                ls = nl + 1 if nl >= 0 else (pos if i - pos <= 3 else i)
                if ls < i and text[ls] == " " and (not at or at[-1] < ls):
                    at.append(ls)
        at.append(i)
        i = find("[", i + 1, end)
    j = find("://", pos, end)
    if j >= 0:
        more: list[int] = []
        while j >= 0:
            if j - 5 >= pos and text[j - 5] in "hH":
                more.append(j - 5)
            if j - 4 >= pos and text[j - 4] in "hH":
                more.append(j - 4)
            if j - 3 >= pos and text[j - 3] in "fF":
                more.append(j - 3)
            j = find("://", j + 3, end)
        if more:
            at = sorted(at + more) if at else more
    out: list[re.Match] = []
    last, match = pos, _ADDR_RE_M.match
    for c in at:
        if c >= last and (m := match(text, c, end)) is not None:
            out.append(m)
            last = m.end()
    return out


#: :data:`_LINKS_RE_M` without its look-ahead, tried only where a ``[`` is (:func:`_link_matches`)
_LINKS_AT = re.compile(_LINKS_RE_M.pattern[len(r"(?=[!\[])"):])
assert _LINKS_RE_M.pattern.startswith(r"(?=[!\[])")


def _link_matches(text: str) -> list[re.Match]:
    """``list(_LINKS_RE_M.finditer(text))``, found faster: a match begins at a ``[`` or at the
    ``!`` before one, so only there is :data:`_LINKS_AT` tried (``str.find`` skips the rest;
    the regex engine stepped through every character: 0.20 → 0.09 CPU-s over make_brain-7471's
    11 M characters)."""
    out: list[re.Match] = []
    find, match = text.find, _LINKS_AT.match
    end = 0  # the last match's end: no match starts before it
    i = find("[")
    while i >= 0:
        m = match(text, i - 1) if i > end and text[i - 1] == "!" else None
        if m is None:
            m = match(text, i)
        if m is None:
            i = find("[", i + 1)
        else:
            out.append(m)
            end = m.end()
            i = find("[", end)
    return out


_DEF_RE_M = re.compile(r"(?P<def>^[ ]{0,3}\[(?!\^)[^\[\]\n]+\]:[ \t]*(?P<defurl><[^<>\n]*>|[^\s<>]+))", re.M)
_SCHEME_RE = re.compile(_SCHEME_ADDR)
#: what a label may hold besides its words: an image (a badge), a URL's scheme
_LABEL_ADDR_RE = re.compile(_MD_ADDR + "|" + _SCHEME_ADDR)
#: an embed's size instead of an alt text: ``![[img.png|300]]``, ``|300x200``
_SIZE_RE = re.compile(r"\s*\d+(?:\s*x\s*\d+)?\s*")


def _address(m: re.Match, pos: int) -> list[tuple[int, int]]:
    """The spans (offsets of the scanned text: ``pos`` is the match's line's) of the addresses in
    the link match ``m`` of :data:`_ADDR_RE` (:func:`address_spans`)."""
    kind = m.lastgroup  # (the outer group of the alternative that matched)
    if kind == "wiki":
        body = m.group("body")
        if "|" not in body and not m.group("bang"):  # (most links) the name shows, but for a ``.md``
            i = body.find("#")
            stem = (body if i < 0 else body[:i]).rstrip()
            if stem[-3:].lower() != ".md":
                return []
            z = pos + m.start("body") + len(stem)
            return [(z - 3, z)]
    elif kind == "md":
        label = m.group("label")
        if not label or ("](" not in label and "://" not in label):  # (most links) the URL alone
            a, z = m.span("url")
            return [(pos + a, pos + z)] if a >= 0 else []
    out: list[tuple[int, int]] = []
    if m.group("wiki"):
        body, b0 = m.group("body"), m.start("body")
        head, bar, alias = body.partition("|")
        name = head.split("#", 1)[0].strip()
        if bar:  # the alias is what shows; an embed's size shows nothing
            if head:
                out.append((b0, b0 + len(head)))
            if m.group("bang") and _SIZE_RE.fullmatch(alias):
                out.append((b0 + len(head) + 1, b0 + len(body)))
        elif m.group("bang") and name and _page_target(name) is None:  # an attachment: the file shows, not its name
            out.append((b0, b0 + len(body)))
        else:  # the name as written is what shows, but for a ``.md``
            i = head.find("#")
            stem = (head if i < 0 else head[:i]).rstrip()
            if stem.lower().endswith(".md"):
                out.append((b0 + len(stem) - 3, b0 + len(stem)))
    elif m.group("md"):
        label = m.group("label")
        if label and ("](" in label or "://" in label):
            out += _label_addresses(m.string, m.start("label"), m.end("label"), 0)
        if m.group("url"):
            out.append(m.span("url"))
    elif m.group("def"):
        out.append(m.span("defurl"))
    else:
        out.append(m.span("scheme"))
    return [(pos + a, pos + z) for a, z in out] if pos else out


def _label_addresses(s: str, start: int, end: int, pos: int) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for m in _LABEL_ADDR_RE.finditer(s, start, end):
        if m.group("md"):
            if m.group("url"):
                out.append((pos + m.start("url"), pos + m.end("url")))
        else:
            out.append((pos + m.start("scheme"), pos + m.end("scheme")))
    return out


def address_spans(text: str, unread: list | None = None) -> list[tuple[int, int]]:
    """The ``(start, end)`` spans of ``text`` (a page's compiled truth or timeline) that a reader
    does not read as text, in order: a markdown link's or image's URL (relative path, ``.md``,
    web address; its title and label stay), a wiki link's or embed's target when an alias shows
    instead (``[[deals/acme|Acme]]``: ``deals/acme``), an embed's size (``|300``), an attachment
    embed's file name (``![[Pasted image 2024….png]]``: the image shows), the ``.md`` of a wiki
    link's name (a name as written, ``[[Note#Heading]]``, is what shows), a link reference
    definition's URL, and a URL's scheme (``https://``, ``www.``: the rest of a bare URL is text a
    reader reads). Found where :func:`link_spans` finds links (outside fenced code, code spans,
    HTML and ``%%`` comments, math): code keeps every character. A text scan, no parse (but
    :func:`unread_spans` for a text holding ``%%`` or ``$$``, or ``unread``: those spans, from
    the caller's parse, :meth:`gbrain.page.markdown.Page.part_unread`)."""
    if "[" not in text and "://" not in text:
        return []
    if "`" in text or "~~~" in text or "<!--" in text or "%%" in text or "$$" in text:
        spans = [sp for found in _scan(text, _ADDR_RE, _address, unread, _ADDR_RE_M) for sp in found]
    else:  # nothing hides a link: passes over the whole text, as the line scan would find
        spans = [sp for m in _link_matches(text) for sp in _address(m, 0)] if "[" in text else []
        if "]:" in text:
            spans += [m.span("defurl") for m in _DEF_RE_M.finditer(text)]
        if "://" in text:
            spans += [m.span() for m in _SCHEME_RE.finditer(text)]
    return sorted(sp for sp in spans if sp[1] > sp[0])
