"""The fast path of the markdown parse: block structure from pulldown-cmark (the ``pyromark``
wheel), inline tokens from a small scanner that gives mistune's own tokens for plain text with
links, and from gbrain's mistune inline parsers for the rest, so every derived view (links with
their context, inline tags, headings, title, separator) is what the mistune-only path gives.

Blocks: pulldown-cmark finds them ~40× faster than mistune's block parser; the text of each
paragraph and heading is cut from the source by the ranges of its events (the container
prefixes of continuation lines left out, as mistune's list and block-quote parsers leave them
out). Where the two block parsers are not shown equal (``tests/test_fastparse.py`` compares both
paths on every page of every corpus, the make_brain brain and generated pages),
:func:`parse_blocks` returns ``None`` and the caller uses mistune for the whole page: HTML
blocks nested or right below text, Obsidian ``%% %%`` comment and ``$$`` math blocks inside or
right below a list or quote (but a one-line one right below a list item's line, which mistune
takes into the item as a lazy line: it is left to pulldown-cmark as text, which must read it
inside the item too; obsidian-hub's ``%% Hub MOCs … %%`` after its lists, 448 pages), link
reference definitions and footnote definitions (``_REFDEF_RE`` matches both), and a few shapes
found by that comparison.

Inline: :func:`render_inline` sets each block's inline children as mistune's ``_iter_render``
would. A block text of words, line breaks, code spans, raw HTML (mistune's own rule; not an
``<a>`` tag), wiki links, inline links and images (a title in quotes too) whose label holds
text and raw HTML only (``[<button id=HH>Open in Obsidian</button>](obsidian://…)``, the tags
``inline_html`` children of the link), and brackets that make no link (``[!note]``, ``[<b>x</b>]``)
is tokenised by :func:`_link_tokens`, ~3.5× faster than mistune's link parser, with mistune's
tokens (URLs escaped by mistune's ``escape_url``; adjacent text tokens joined); a heading with no
inline syntax is one text token. Any other text (escapes, nested brackets, a code span or line
break in a label, ``<a>``, a destination in ``<…>``) goes to the mistune inline parser it went
to before; the tests compare the tokens of every text the scanner takes with mistune's (on every
corpus page and on generated texts). Left to mistune on obsidian-hub: 141 of its ~35,700 link
texts (0.01 CPU-s), 42 of its 6,572 pages' block parse.

Imported on first parse by :func:`gbrain.page.markdown._parse_ast`; without ``pyromark`` the
import fails and mistune parses every page.
"""
from __future__ import annotations

import functools
import re

import pyromark

from mistune.inline_parser import InlineParser
from mistune.util import escape_url

from .mdparse import _WIKI_PATTERN, comment_block_eol, wikilink_token

_EVENTS = pyromark.events_with_range
#: mistune's ATX heading rule (block_parser.SPECIFICATION["atx_heading"]) and closing-# trim
_ATX_RE = re.compile(r" {0,3}(#{1,6})(?!#+)([ \t]*|[ \t]+.*?)$")
_ATX_TRIM = re.compile(r"(\s+|^)#+\s*$")
_WS = " \t\n\r\f\v"

#: a line that may be a link reference definition (after list, quote and indent characters):
#: mistune parses the page (its inline parser resolves ``[x][ref]`` from the block parser's defs)
_REFDEF_RE = re.compile(r"^[ \t>*+\-0-9.)]*\[(?:[^\\\[\]]|\\.)*\]:", re.M)  # LINK_LABEL may span lines
#: a line that may open an Obsidian comment block or a ``$$`` math block (mistune's top-level
#: rules in gbrain/page/mdparse.py, unknown to pulldown-cmark)
_OPAQUE_START_RE = re.compile(r"^ {0,3}(?:%%|\$\$)", re.M)
_BLOCK_MATH_RE = re.compile(
    r" {0,3}\$\$(?P<math_text_single>[^\n]*?)\$\$[ \t]*(?:\n|$)|"
    r" {0,3}\$\$[ \t]*\n(?P<math_text_multi>[\s\S]*?)\n\$\$[ \t]*(?:\n|$)"
)  # mistune.plugins.math.BLOCK_MATH_PATTERN, matched at a line start
_COMMENT_OPEN_RE = re.compile(r" {0,3}%%(?P<comment_rest>[^\n]*)")  # mdparse._COMMENT_PATTERN

#: a list item whose first line holds only its marker (an item's range may start at the spaces
#: before its marker: ``  - ``)
_EMPTY_ITEM_RE = re.compile(rb" *(?:[-+*]|[0-9]{1,9}[.)])[ \t]*(?:\n|$)")

_BLOCKISH = frozenset(bytes([c]) for c in b"=-#>*+0123456789`~<_|\\")

_TAB_ITEM_RE = re.compile(rb" *(?:[-+*]|[0-9]{1,9}[.)]) *\t")

_HTML_OPEN_RE = re.compile(rb" {0,3}(<!--|</?[A-Za-z])")

#: a line of '=' and '-' mixed (``--=``): mistune's setext rule (``(=|-){1,}``) takes it for a
#: heading's underline, CommonMark (pulldown-cmark) for text; such a page goes to mistune
_MIXED_UNDERLINE_RE = re.compile(r"^[ \t>]*[=-]*(?:=-|-=)[=-]*[ \t]*$", re.M)

#: containers open at most (a list and its item are two): mistune's block parser stops descending
#: into lists and quotes at its max_nested_level (20), pulldown-cmark does not
_MAX_STACK = 16

_INLINE_STARTS = frozenset(("Link", "Image", "Emphasis", "Strong", "Strikethrough", "Superscript", "Subscript"))
#: events of inline content that are no container: (pyromark's event kinds; line breaks are plain strings)
_INLINE_LEAVES = frozenset(("Text", "Code", "InlineHtml", "FootnoteReference", "TaskListMarker"))
_BREAKS = frozenset(("SoftBreak", "HardBreak"))
_START_END = frozenset(("Start", "End"))


class _Unsupported(Exception):
    pass


_FENCE_RE = re.compile(rb"[ \t>]*(`{3,}|~{3,})")


def _closed_fence(code: bytes) -> bool:
    """Whether the fenced code block ``code`` (its byte range, container prefixes included)
    ends with a closing fence line: a line after the opening one holding only a run of the
    opening fence's character at least as long."""
    lines = code.rstrip(b"\n").split(b"\n")
    m = _FENCE_RE.match(lines[0])
    if m is None or len(lines) < 2:
        return False
    last = lines[-1].strip(b" \t>")
    fence = m.group(1)
    return len(last) >= len(fence) and last == fence[:1] * len(last)


def parse_blocks(src: str) -> tuple[list, list[tuple[int, int]]] | None:
    """mistune-shaped block tokens of ``src`` (LF line endings, ending in ``\\n``) with their
    inline text still unparsed (``text`` keys, as mistune's block parser leaves them), and the
    top-level fenced code spans ``[(start, end)]`` in character offsets; ``None`` when the page
    holds a construct the fast path does not handle (the caller parses it with mistune)."""
    if "]:" in src and _REFDEF_RE.search(src):
        return None
    if ("=-" in src or "-=" in src) and _MIXED_UNDERLINE_RE.search(src):
        return None
    try:
        if ("%%" in src or "$$" in src) and _OPAQUE_START_RE.search(src):
            return _with_opaque_blocks(src)
        return _Builder(src).run()
    except _Unsupported:
        return None


def _opaque_end(src: str, pos: int) -> int | None:
    """Where the ``%%`` comment block or ``$$`` math block mistune would read at line start
    ``pos`` ends (mdparse._parse_obsidian_comment, mistune's math plugin), or None (no block)."""
    m = _BLOCK_MATH_RE.match(src, pos)
    if m:
        return m.end()
    m = _COMMENT_OPEN_RE.match(src, pos)
    if not m:
        return None
    eol = comment_block_eol(src, m)
    if eol is None:
        return None
    return eol + 1 if eol < len(src) else eol


def _with_opaque_blocks(src: str):
    """Blocks of a page holding ``%%`` comment or ``$$`` math blocks: each one mistune reads is
    blanked (its characters but line ends made spaces, so offsets stay) before pulldown-cmark
    parses the page, and recorded as an opaque span and a token. A block inside a list, quote,
    code or HTML block of the result, or right below a line of one (which mistune might continue
    lazily into it), sends the page to mistune (:class:`_Unsupported`), but for one shape: a
    one-line block right below a line of a list item (no quote around), which mistune's list
    parser takes into the item as a lazy line (its block rules do not hold the comment and math
    rules: ``- [[x]]\n%% c %%`` is an item of two lines of text). Such a block is left unblanked
    and parsed again; pulldown-cmark must then read it inside a list item too."""
    regions = []
    pos = 0
    for m in _OPAQUE_START_RE.finditer(src):
        if m.start() < pos:
            continue
        end = _opaque_end(src, m.start())
        if end is not None:
            regions.append((m.start(), end))
            pos = end
    if not regions:
        return _Builder(src).run()
    lazy: set[tuple[int, int]] = set()
    for _ in range(3):
        more = set()
        got = _blanked_build(src, [r for r in regions if r not in lazy], lazy, more)
        if not more:
            return got
        lazy |= more
    raise _Unsupported("lazy opaque blocks")


#: the event kinds of text a reader sees as written (:func:`literal_spans`): code and math
_LITERAL_KINDS = frozenset(("Code", "InlineMath", "DisplayMath"))


def literal_spans(src: str) -> list[tuple[int, int]]:
    """The ``[start, end)`` character spans of ``src`` (a page's compiled truth or timeline, or a
    snippet's text: any line endings) that a reader of the rendered note sees as written, as
    pulldown-cmark reads them (math on): code blocks, fenced or indented, at any depth (a list
    item's, a quote's; a paragraph's continuation line is none), code spans, ``$…$`` inline math
    (not closed by a ``$`` right before a digit, as Obsidian and Pandoc read ``$5 or $6``) and
    ``$$…$$`` math, and each ``$$`` math block mistune reads at a line start (a blank line inside
    too: :func:`_opaque_end`). Sorted, may overlap. One pulldown-cmark parse of ``src``."""
    return literal_and_html_spans(src)[0]


def literal_and_html_spans(src: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """:func:`literal_spans` of ``src`` and, from the same parse, the ``[start, end)`` character
    spans of its HTML blocks (CommonMark's seven kinds, at any depth: a list item's, a quote's,
    the container's marks of its lines inside the span), raw HTML where no backslash escape,
    code span or fence is read (``<div>\\<b>x</b></div>``'s ``<b>`` is a tag). Each sorted."""
    b = src.encode("utf-8")
    out: list[tuple[int, int]] = []
    html: list[tuple[int, int]] = []
    code_at = -1  # the start of the code block open, -1 when none
    for ev, rng in _EVENTS(src, options=pyromark.Options.ENABLE_MATH):
        if isinstance(ev, dict):
            (kind, val), = ev.items()
            if kind in _LITERAL_KINDS:
                e = rng["end"]
                if kind == "InlineMath" and b[e : e + 1].isdigit():
                    continue
                out.append((rng["start"], e))
            elif kind == "Start" and isinstance(val, dict) and "CodeBlock" in val:
                code_at = rng["start"]
            elif kind == "End" and val == "CodeBlock" and code_at >= 0:
                out.append((code_at, rng["end"]))
                code_at = -1
            elif kind == "Start" and val == "HtmlBlock":
                html.append((rng["start"], rng["end"]))
    if len(b) != len(src):  # byte offsets as characters
        at, last, n = {}, 0, 0
        for off in sorted({x for sp in (*out, *html) for x in sp}):
            n += len(b[last:off].decode("utf-8"))
            at[off], last = n, off
        out = [(at[a], at[z]) for a, z in out]
        html = [(at[a], at[z]) for a, z in html]
    if "$$" in src:
        lf = src.replace("\r\n", " \n").replace("\r", "\n") if "\r" in src else src  # (the same length)
        pos = 0
        for m in _OPAQUE_START_RE.finditer(lf):
            if m.start() >= pos and lf.startswith("$$", m.end() - 2):
                end = _opaque_end(lf, m.start())
                if end is not None:
                    out.append((m.start(), end))
                    pos = end
    return sorted(out), html


def _blanked_build(src: str, regions: list[tuple[int, int]], lazy: set[tuple[int, int]], more: set[tuple[int, int]]):
    """:func:`_with_opaque_blocks`' parse with ``regions`` blanked and the ``lazy`` ones left as
    text; adds to ``more`` the blanked regions mistune would take into a list item as lazy lines
    (the caller parses again with those left as text)."""
    parts = []
    pos = 0
    for a, z in regions:
        parts.append(src[pos:a])
        # the same number of UTF-8 bytes, so pulldown-cmark's offsets are the page's
        parts.append("\n".join(" " * len(ln.encode("utf-8")) for ln in src[a:z].split("\n")))
        pos = z
    parts.append(src[pos:])
    builder = _Builder("".join(parts), src)
    blocks, fences = builder.run()
    b = builder.b
    blanked = builder.src.encode("utf-8")
    ascii_ = builder.ascii

    def byte_range(a: int, z: int) -> tuple[int, int]:
        return (a, z) if ascii_ else (len(src[:a].encode("utf-8")), len(src[:z].encode("utf-8")))

    for a, z in lazy:
        # left as text: pulldown-cmark must read it inside a list item (no quote, code or HTML)
        ba, _ = byte_range(a, z)
        inside = [k for cs, ce, k in builder.containers if cs <= ba < ce]
        if "Item" not in inside or any(k not in ("List", "Item") for k in inside):
            raise _Unsupported("lazy opaque block")
    prev = -1
    for a, z in regions:
        ba, bz = byte_range(a, z)
        # mistune reads the block at a top-level block start: not inside a list, quote, code or
        # HTML block, and not where a line above could continue into it (a list item's or a
        # quote's lazy line): the line above must be blank, another such block, or top-level
        frm = ba
        if ba > 0 and ba != prev:
            pl = b.rfind(b"\n", 0, ba - 1) + 1
            if b[pl : ba - 1].strip():
                frm = pl
        for cs, ce, kind in builder.containers:
            # (a range may run over the blank lines that follow it: those do not count)
            if cs < bz and ce > frm and cs + len(blanked[cs:ce].rstrip()) > frm:
                if frm < ba and kind in ("List", "Item") and "\n" not in src[a:z].rstrip("\n"):
                    more.add((a, z))  # right below a line of a list: a lazy line of an item?
                    continue
                raise _Unsupported("opaque block")
            if cs < ba and b[ba : ba + 1] == b" ":
                # an indented block below a list or quote, even after blank lines: mistune may
                # read it as more of an item (``* x\n\n  %% c %%``), which the blanked line
                # ended for pulldown-cmark
                raise _Unsupported("indented opaque block")
        prev = bz
    if more:
        return None
    if regions:
        first = byte_range(regions[0][0], regions[0][0])[0]
        if not blocks or builder.first_start > first:
            blocks.insert(0, {"type": "obsidian_comment"})  # an opening comment: no H1 title
    return blocks, sorted(fences + regions)


class _Builder:
    def __init__(self, src: str, orig: str | None = None):
        self.src = src  # what pulldown-cmark reads: ``orig``, or it with blocks blanked byte for byte
        orig = src if orig is None else orig
        self.b = orig.encode("utf-8")
        self.ascii = len(self.b) == len(orig)
        self.first_start = -1  # byte offset of the first top-level block
        self.containers: list[tuple[int, int, str]] = []  # (start, end, kind) of lists, items, quotes, code, HTML

    def text(self, a: int, z: int) -> str:
        return self.b[a:z].decode("utf-8")

    def chars(self, off: int) -> int:
        return off if self.ascii else len(self.b[:off].decode("utf-8"))

    def run(self):
        root: list = []
        stack: list[tuple[str, list]] = [("root", root)]  # (kind, children)
        self.stack = stack
        fences: list[tuple[int, int]] = []
        # the inline container being filled: [kind, token, first, last, pieces, depth]
        cur = None
        html_end = -1
        b = self.b
        for ev, rng in _EVENTS(self.src):
            s = rng["start"]
            e = rng["end"]
            # one test per event decides inline or block (three of four events are inline)
            if ev.__class__ is str:
                name, val = ev, None
                kind = "leaf"
                inline = name in _BREAKS
            else:
                (kind,) = ev  # an event is a dictionary of one key
                if kind in _INLINE_LEAVES:
                    name = kind
                    inline = True  # (its value is not read)
                elif kind in _START_END:
                    name = val = ev[kind]
                    if name.__class__ is dict:
                        (name,) = name
                    inline = name in _INLINE_STARTS
                else:
                    name = kind
                    val = ev[kind]
                    inline = False
            if inline:
                if cur is None:
                    if stack[-1][0] in ("CodeBlock", "HtmlBlock"):
                        continue
                    if stack[-1][0] != "Item":
                        raise _Unsupported(name)
                    tok = {"type": "block_text"}
                    stack[-1][1].append(tok)
                    cur = [tok, s, e, [], 0, 0]  # token, first, last, gaps, newline breaks, pending gap start
                if name in ("SoftBreak", "HardBreak"):
                    cur[4] += 1
                    cur[5] = e
                else:
                    if cur[5]:
                        cur[3].append((cur[5], s))
                        cur[5] = 0
                    if s < cur[1]:
                        cur[1] = s
                if e > cur[2]:
                    cur[2] = e
                continue
            if kind == "Start":
                if self.first_start < 0:
                    self.first_start = s
                if cur is not None and cur[0] is not None and cur[0]["type"] == "block_text":
                    self.close(cur, len(stack) > 1)
                    cur = None
                if name == "Paragraph":
                    tok = {"type": "paragraph"}
                    stack[-1][1].append(tok)
                    cur = [tok, e, s, [], 0, 0]
                elif name == "Heading":
                    level = int(val["Heading"]["level"][1:])
                    tok = {"type": "heading", "attrs": {"level": level}}
                    stack[-1][1].append(tok)
                    seg = b[s:e].rstrip(b"\n")
                    if b"\n" in seg:  # setext: the paragraph lines above the underline
                        if len(seg.rsplit(b"\n", 1)[1].strip()) < 3 and b"-" in seg.rsplit(b"\n", 1)[1]:
                            raise _Unsupported("setext")  # '-' or '--': mistune may read a list item
                        cur = [tok, e, s, [], 0, 0]
                    else:
                        ls = b.rfind(b"\n", 0, s) + 1
                        le = b.find(b"\n", s)
                        m = _ATX_RE.match(self.text(ls, le))
                        if m is None:
                            raise _Unsupported("atx")
                        t = m.group(2).strip(_WS)
                        tok["text"] = _ATX_TRIM.sub("", t) if "#" in t else t  # (the trim needs a '#')
                        cur = [None, s, e, [], 0, 0]  # its text is set; inline events only pass
                elif name in ("List", "Item", "BlockQuote"):
                    if len(stack) >= _MAX_STACK:
                        raise _Unsupported("deep nesting")  # mistune stops nesting at 20 levels
                    if name == "Item" and (_EMPTY_ITEM_RE.match(b, s) or _TAB_ITEM_RE.match(b, s)):
                        raise _Unsupported("empty item")  # mistune reads what follows otherwise
                    self.containers.append((s, e, name))
                    tok = {"type": {"List": "list", "Item": "list_item", "BlockQuote": "block_quote"}[name], "children": []}
                    stack[-1][1].append(tok)
                    stack.append((name, tok["children"]))
                elif name == "CodeBlock":
                    if not isinstance(val["CodeBlock"], dict):
                        raise _Unsupported("indented code")  # where it starts and ends differs
                    self.containers.append((s, e, "CodeBlock"))
                    stack[-1][1].append({"type": "block_code", "raw": ""})
                    if len(stack) == 1 and isinstance(val["CodeBlock"], dict):
                        fences.append((self.chars(s), self.chars(e)))
                    stack.append(("CodeBlock", []))
                elif name == "HtmlBlock":
                    ls = b.rfind(b"\n", 0, s) + 1
                    m = _HTML_OPEN_RE.match(b, ls)
                    if len(stack) > 1 or m is None or m.group(1) != b"<!--" and ls > 0 and ls != html_end and b[b.rfind(b"\n", 0, ls - 1) + 1 : ls].strip():
                        # nested, not a comment or tag (mistune knows `<!X` only uppercase), or a
                        # tag right below a line of text or a list: where mistune ends it or what
                        # it interrupts differs
                        raise _Unsupported("html block")
                    self.containers.append((s, e, "HtmlBlock"))
                    stack[-1][1].append({"type": "block_html", "raw": ""})
                    if len(stack) == 1:
                        fences.append((self.chars(s), self.chars(e)))
                    stack.append(("HtmlBlock", []))
                else:
                    raise _Unsupported(name)
            elif kind == "End":
                if name in ("Paragraph", "Heading"):
                    if cur is not None and cur[0] is not None:
                        self.close(cur, len(stack) > 1)
                    cur = None
                elif name in ("List", "Item", "BlockQuote", "CodeBlock", "HtmlBlock"):
                    if name == "HtmlBlock":  # where the next line starts (another may follow)
                        html_end = e if b[e - 1 : e] == b"\n" else b.find(b"\n", e) + 1
                    if name == "CodeBlock" and len(stack) > 2 and not _closed_fence(b[s:e]):
                        # a fence in a list or quote that its container's end closes: mistune's
                        # item may go on with lazy lines, which its code then holds (``- ```\n[[x]]``)
                        raise _Unsupported("unclosed fence")
                    if name == "BlockQuote" and e > 0:
                        # a quote must end at a blank line or the end: mistune continues it
                        # with lines pulldown-cmark starts other blocks with
                        nxt = b.find(b"\n", e - 1) + 1
                        if nxt and b[nxt : b.find(b"\n", nxt) if b.find(b"\n", nxt) >= 0 else len(b)].strip():
                            raise _Unsupported("quote end")
                    if cur is not None and cur[0] is not None and cur[0]["type"] == "block_text":
                        self.close(cur, len(stack) > 1)
                        cur = None
                    stack.pop()
                else:
                    raise _Unsupported(name)
            elif name == "Html" and stack[-1][0] == "HtmlBlock":
                continue
            elif name == "Rule":
                if cur is not None and cur[0] is not None and cur[0]["type"] == "block_text":
                    self.close(cur, len(stack) > 1)
                    cur = None
                stack[-1][1].append({"type": "thematic_break"})
            else:
                raise _Unsupported(name)
        return root, fences

    def close(self, cur, nested: bool) -> None:
        if nested and cur[3]:
            quoted = any(k == "BlockQuote" for k, _ in self.stack)
            for a, z in cur[3]:
                # a lazy line (no '>') continuing a quote's paragraph, or a continuation line
                # that could open a block (setext underline, list item, heading, fence, HTML):
                # mistune's list and quote parsers may file it elsewhere
                if quoted and b">" not in self.b[a:z] or self.b[z : z + 1] in _BLOCKISH:
                    raise _Unsupported("continuation line")
        self._close(cur, nested)

    def _close(self, cur, nested: bool) -> None:
        tok, first, last, gaps, breaks, _ = cur
        if last <= first:
            tok["text"] = ""
            return
        b = self.b
        # an escaped character's event starts after its backslash (no container prefix or
        # indentation ends in one)
        if first > 0 and b[first - 1] == 0x5C:
            first -= 1
        if not nested:
            tok["text"] = self.text(first, last)
            return
        # inside a list item or block quote: leave out each continuation line's container prefix
        # (the gap between a line break and the next inline event); a line break pulldown-cmark
        # saw no break at (inside a code span, inline HTML, a link destination) would keep one
        if self.b.count(b"\n", first, last) != breaks:
            raise _Unsupported("span across lines")
        parts = []
        pos = first
        for a, z in gaps:
            parts.append(b[pos:a])
            pos = z - 1 if b[z - 1] == 0x5C else z
        parts.append(self.b[pos:last])
        tok["text"] = b"".join(parts).decode("utf-8")


# ---- inline text -------------------------------------------------------------------------------
#
# mistune's inline parsers (mdparse._LinkMarkdown: ``link_inline`` for paragraphs and list text,
# the full parser for headings) cost more than the block pass. The common block text is plain
# words with markdown and wiki links; :func:`_link_tokens` gives mistune's tokens for that text
# directly and returns None for anything else, which mistune's parser then reads.

#: where a rule of ``link_inline`` may start: a link or image opener, a closer, a line break, a
#: code span, raw HTML (escapes, ``\``, are left to mistune; a ``\r`` cannot occur, the body
#: is LF-normalised)
LINK_TRIGGER_PATTERN = r"!?\[|\]| *\n|`+|<"
#: (each branch starts with one of these characters: the leading look-ahead, a character set,
#: lets the engine skip to the next one instead of trying every branch at each position, ~2×
#: faster; ``tests/test_parse_speedups.py`` compares it with the plain pattern)
_LINK_TRIGGER_RE = re.compile(r"(?=[!\[\] \n`<])(?:" + LINK_TRIGGER_PATTERN + ")")
_HTML_START_RE = re.compile(InlineParser.SPECIFICATION["inline_html"])
_SOFTBREAK_RE = re.compile(r" *\n\s*")  # mistune InlineParser.HARD_LINEBREAK, the softbreak rule
_BACKTICKS_RE = re.compile(r"`+")
_WIKI_RE = re.compile(_WIKI_PATTERN)
#: an inline link or image mistune's parse_link accepts: a label without brackets, code, HTML or
#: line breaks, a destination without whitespace, brackets, ``<`` or control characters and with
#: parentheses only in balanced pairs one deep, then optionally a title in double or single quotes
#: on the same line (no NUL; the caller takes no text holding a backslash, so mistune's
#: ``unescape_char`` leaves it as it is), spaces or tabs, and the closing parenthesis
#: (mistune's ``parse_link_title`` and ``_skip_ascii_whitespace``, the subset without line breaks)
_DEST = (
    r"\(((?:[^ \t\n\r\f()\[\]<\x00-\x1f\x7f]|\([^ \t\n\r\f()\[\]<\x00-\x1f\x7f]*\))+)"
    r"(?:[ \t]+(?:\"([^\"\n\x00]*)\"|'([^'\n\x00]*)'))?[ \t]*\)"
)  # (one level of balanced parentheses in the destination, as mistune's href scan allows)
_MD_LINK_RE = re.compile(r"(!?)\[([^\[\]\n`<]*)\]" + _DEST)
#: the same destination and title after a label that holds raw HTML (``[<button id=HH>Open
#: in Obsidian</button>](obsidian://…)``, on 2,918 obsidian-hub pages): groups 1-3 as 3-5 above
_DEST_RE = re.compile(_DEST)
#: where a label's scan stops: the end of its text, or a character a rule of ``link_inline``
#: may start at (raw HTML is read, anything else sends the text to mistune)
_LABEL_STOP_RE = re.compile(r"[\[\]\n`<]")
#: brackets that make no link (not followed by ``(``, nothing inside that a rule reads): mistune
#: drops the opener at the ``]`` and keeps both as text
_BRACKET_TEXT_RE = re.compile(r"!?\[[^\[\]\n`<]*\](?!\()")
#: a heading that mistune's full inline parser reads as one text token: none of its rules'
#: start characters (escape, code, emphasis, links, HTML and autolinks, line breaks)
_HEADING_PLAIN_RE = re.compile(r"[\\`*_\[\]<\n]")
#: a destination mistune's ``escape_url`` (HTML unescape, then percent-quote) leaves as it is:
#: only characters ``urllib.parse.quote`` never quotes or mistune marks safe, no ``&``
_URL_SAFE_RE = re.compile(r"[A-Za-z0-9_.~:/?#@!$*+,;=%-]*")
_escape_url_cached = functools.lru_cache(maxsize=1 << 14)(escape_url)


def _escape_url(url: str) -> str:
    """mistune's ``escape_url(url)``, without its cost for a plain URL or a repeated one."""
    return url if _URL_SAFE_RE.fullmatch(url) else _escape_url_cached(url)


_SOFTBREAK = {"type": "softbreak"}
_SHARED_TEXT = 32  #: texts up to this many characters share one token per page


def _text_token(raw: str, shared: dict) -> dict:
    """A ``text`` token of ``raw``; a short one shared through ``shared`` (keys ``("t", raw)``)."""
    if len(raw) > _SHARED_TEXT:
        return {"type": "text", "raw": raw}
    tok = shared.get(("t", raw))
    if tok is None:
        tok = shared[("t", raw)] = {"type": "text", "raw": raw}
    return tok


def _html_token(text: str, a: int, inline: InlineParser, st: list) -> tuple[dict, int] | None | bool:
    """The ``inline_html`` token mistune's ``parse_inline_html`` reads at ``text[a]`` (a ``<``)
    and where it ends; ``None`` where it reads none (the ``<`` is text); ``False`` for an ``<a>``
    or ``</a>`` tag (mistune reads no link inside one: the caller declines). ``st`` holds the
    InlineState over ``text`` once made."""
    h = _HTML_START_RE.match(text, a)
    if h is None:
        return None
    if not st:
        state = inline.state_cls({})
        state.src = text
        st.append(state)
    state = st[0]
    end = inline.parse_inline_html(h, state)
    if end is None:
        return None
    tok = state.tokens.pop()
    if state.in_link or tok["raw"][:3] in ("</a", "</A"):
        return False
    return tok, end


def _label_pieces(text: str, pos: int, inline: InlineParser, st: list) -> tuple[list, int] | None:
    """A link label from ``pos`` (after its opener) to its ``]``, as mistune's ``link_inline``
    reads it when it holds only text and raw HTML (other than an ``<a>`` tag): ``(pieces,
    index of the ]``), a piece a string of text or an ``inline_html`` token; else None (a
    bracket, code span or line break before the ``]``, or no ``]``: mistune decides)."""
    pieces: list = []
    while True:
        m = _LABEL_STOP_RE.search(text, pos)
        if m is None:
            return None
        a = m.start()
        if a > pos:
            pieces.append(text[pos:a])
        c = text[a]
        if c == "]":
            return pieces, a
        if c != "<":
            return None
        got = _html_token(text, a, inline, st)
        if got is False:
            return None
        if got is None:  # no HTML here: the '<' is text
            pieces.append("<")
            pos = a + 1
        else:
            pieces.append(got[0])
            pos = got[1]


def _link_tokens(text: str, inline: InlineParser) -> list | None:
    """The tokens mistune's ``link_inline`` gives stripped block ``text`` (text, softbreak, code
    span, wikilink, link or image with its label's text and ``inline_html`` children and the
    escaped URL; adjacent text merged, as the views read it) when it holds only plain text, line
    breaks, code spans, wiki links, inline links and images (a title in quotes too) whose label
    holds only text and raw HTML, brackets that make no link, and raw HTML other than an ``<a>``
    tag (read by ``inline``'s own rule, mistune's ``parse_inline_html``, in a label too: a tag may
    hold a ``]``); else None. Only for a page without link reference definitions (those change
    what a bracket means).

    Equal tokens are one object (a repeated wiki link, a short text between links, every
    softbreak): nothing changes inline tokens after this, and a page of 1.5 million ``[[x]]``
    held a dictionary pair per link (about 0.5 GB)."""
    if "\\" in text:
        return None
    out: list = []
    shared: dict = {}  # a wiki link's match, or a short text -> its token
    st: list = []  # the InlineState over ``text`` for the raw HTML rule, once made
    buf: list[str] = []  # text not yet in a token
    pos = 0
    while True:
        m = _LINK_TRIGGER_RE.search(text, pos)
        if m is None:
            break
        a = m.start()
        if a > pos:
            buf.append(text[pos:a])
        c = text[a]
        if c == "]":  # no bracket is open here: mistune keeps a closer as text
            buf.append("]")
            pos = a + 1
            continue
        if c == "<":
            got = _html_token(text, a, inline, st)
            if got is None:  # no HTML here: mistune keeps the '<' as text
                buf.append("<")
                pos = a + 1
                continue
            if got is False:
                return None  # an <a> tag: mistune reads no link inside it
            tok, pos = got
        elif c == "`":
            # mistune's codespan rule: up to the next run of exactly as many backticks
            k = m.end()
            n = k - a
            for r in _BACKTICKS_RE.finditer(text, k):
                if r.end() - r.start() == n:
                    break
            else:
                buf.append(text[a:k])  # no closing run: the backticks are text
                pos = k
                continue
            code = text[k : r.start()].replace("\n", " ")
            if code.strip(" ") and code.startswith(" ") and code.endswith(" "):
                code = code[1:-1]
            tok = {"type": "codespan", "raw": code}
            pos = r.end()
        elif c == " " or c == "\n":
            tok = _SOFTBREAK
            pos = _SOFTBREAK_RE.match(text, a).end()  # type: ignore[union-attr]
        else:
            w = _WIKI_RE.match(text, a)  # mistune tries the wikilink rule before the link rule
            if w is not None:
                raw = w.group(0)
                tok = shared.get(raw)
                if tok is None:
                    tok = shared[raw] = wikilink_token(w)
                pos = w.end()
            else:
                k = _MD_LINK_RE.match(text, a)
                if k is not None:
                    label = k.group(2)
                    children = [{"type": "text", "raw": label}] if label else []
                    dest, title = k.group(3), k.group(4) or k.group(5)
                    pos = k.end()
                else:
                    k = _BRACKET_TEXT_RE.match(text, a)
                    if k is not None:
                        buf.append(k.group(0))
                        pos = k.end()
                        continue
                    # a label holding raw HTML (the scan reads it as mistune's rules would)
                    got = _label_pieces(text, m.end(), inline, st)
                    if got is None:
                        return None  # an opener mistune may close later: its bracket rules decide
                    pieces, close = got
                    d = _DEST_RE.match(text, close + 1)
                    if d is None:
                        if text.startswith("(", close + 1):
                            return None  # a destination the scan does not read: mistune decides
                        # no link: the brackets are text, a tag inside stays a tag
                        buf.append(m.group(0))
                        for piece in pieces:
                            if isinstance(piece, str):
                                buf.append(piece)
                            else:
                                if buf:
                                    out.append(_text_token("".join(buf), shared))
                                    buf = []
                                out.append(piece)
                        buf.append("]")
                        pos = close + 1
                        continue
                    children = []
                    for piece in pieces:
                        if isinstance(piece, str) and children and children[-1]["type"] == "text":
                            children[-1] = {"type": "text", "raw": children[-1]["raw"] + piece}
                        else:
                            children.append({"type": "text", "raw": piece} if isinstance(piece, str) else piece)
                    dest, title = d.group(1), d.group(2) or d.group(3)
                    pos = d.end()
                attrs = {"url": _escape_url(dest)}
                if title:  # mistune keeps a title only when it is not empty
                    attrs["title"] = title
                tok = {"type": "image" if text[a] == "!" else "link", "children": children, "attrs": attrs}
        if buf:
            out.append(_text_token("".join(buf), shared))
            buf = []
        out.append(tok)
    if pos < len(text):
        buf.append(text[pos:])
    if buf or not out:
        out.append({"type": "text", "raw": "".join(buf)})
    return out


def render_inline(md, tokens: list, env: dict) -> list:
    """Set the inline ``children`` of each block token of a fast-path page (its ``text`` popped),
    as ``md._iter_render`` (mdparse._LinkMarkdown) would: :func:`_link_tokens` or, for text it
    does not take, ``md``'s mistune inline parsers. Returns ``tokens``."""
    for tok in tokens:
        if "children" in tok:
            render_inline(md, tok["children"], env)
        elif "text" in tok:
            text = tok.pop("text")
            if tok["type"] == "heading":
                text = text.strip(" \r\n\t\f")
                if _HEADING_PLAIN_RE.search(text) is None:
                    tok["children"] = [{"type": "text", "raw": text}]
                else:
                    tok["children"] = md.inline(text, env)
            elif "[" in text or "#" in text or "%%" in text:
                text = text.strip(" \r\n\t\f")
                children = _link_tokens(text, md.link_inline)
                tok["children"] = md.link_inline(text, env) if children is None else children
            else:
                tok["children"] = [{"type": "text", "raw": text}]
    return tokens
