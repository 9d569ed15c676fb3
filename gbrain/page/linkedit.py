"""Rewriting where links point, in place: find each link as written in a page's text and swap
only its target, so every other byte (label, ``#heading``, ``|alias``, ``#^block``, embed ``!``,
anchors, angle brackets, line endings) stays as it was.

:func:`link_spans` finds the wiki links (``[[…]]``, ``![[…]]``) and inline markdown links
(``[text](url)``) of a text outside fenced code and code spans, each with the page target the
parser gives it (:mod:`gbrain.page.markdown`: ``_page_target``, ``_link_from_url``).
:func:`wiki_target` and :func:`markdown_url` spell a new target in the style of an old one;
:func:`replace_spans` makes the new text. This is a text scan, not the parser: callers check
the result by parsing it again (``core/lint.py: plan_link_fixes`` compares the links found
with the links the parser sees, before and after).
"""
from __future__ import annotations

import posixpath
import re
from bisect import bisect_right
from dataclasses import dataclass
from urllib.parse import unquote

from .markdown import PROPERTY, _link_from_url, _page_target, link_family, split_lines, unread_spans

_LINK_RE = re.compile(
    r"(?P<wiki>(?P<bang>!?)\[\[(?P<body>[^\[\]\n]+?)\]\])"
    r"|(?P<md>(?<!!)\[[^\[\]\n]*\]\((?P<url>[^()\s]+|<[^<>\n]+>)(?:\s+\"[^\"]*\")?\))"
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
    unread = unread_spans(text) if ("%%" in text or "$$" in text) else []
    starts = [a for a, _z in unread]
    out: list[LinkSpan] = []
    fence = ""
    comment = False
    block = False  # in an HTML comment block (a line opening with ``<!--``, up to the line with ``-->``, all of it)
    pos = 0
    for ln in split_lines(text):
        s = ln.lstrip(" ")
        start = 0
        if block or (not fence and not comment and len(ln) - len(s) <= 3 and s.startswith("<!--")):
            block = "-->" not in (ln if block else s[4:])
            pos += len(ln)
            continue
        if comment:  # inside an HTML comment opened on an earlier line
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
        else:
            last = start
            hidden = list(_HIDDEN_RE.finditer(ln, start))
            if hidden and hidden[-1].group(0).startswith("<!--") and not hidden[-1].group(0).endswith("-->"):
                comment = True
            for cm in hidden + [None]:
                seg_end = cm.start() if cm else len(ln)
                for m in _LINK_RE.finditer(ln, last, seg_end):
                    if unread:  # inside a block the parser reads no link in?
                        i = bisect_right(starts, pos + m.start()) - 1
                        if i >= 0 and pos + m.start() < unread[i][1]:
                            continue
                    sp = _span(m, pos)
                    if sp is not None:
                        out.append(sp)
                last = cm.end() if cm else len(ln)
        pos += len(ln)
    return out


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
        name = stripped.split("#", 1)[0].split("^", 1)[0].strip()
        target = _page_target(name) if name else None
        if target is None:
            return None
        lead = len(head) - len(head.lstrip())
        start = m.start("body") + lead
        return LinkSpan("embed" if m.group("bang") else "wiki", target, m.group("wiki"), pos + start, pos + start + len(name), name, start - m.start("wiki"))
    url = m.group("url")
    target = _link_from_url(url)
    if target is None:
        return None
    return LinkSpan("markdown", target, "(" + url + ")", pos + m.start("url"), pos + m.end("url"), url)


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


def relative_path(to_path: str, from_path: str) -> str:
    """``to_path`` relative to the folder of ``from_path`` (both brain-relative file paths)."""
    return posixpath.relpath(to_path, posixpath.dirname(from_path) or ".")
