"""The part of a page a link's ``#…`` points at: ``[[Note#Heading]]`` (the heading's section: its
line to the line before the next heading of the same or a higher level), ``[[Note#A#B]]`` (the
heading B inside A's section), ``[[Note#^id]]`` (the block ending in ``^id``: its paragraph, list
item with the items under it, or, for an id alone on its line, the block just above). ``get
--section`` reads it (:func:`gbrain.operations.core._get`).

Blocks and headings come from pulldown-cmark's events (the ``pyromark`` wheel, the page model's
fast block parse, :mod:`gbrain.page.fastparse`), over the body with the page model's Obsidian
``%%`` comment and ``$$`` math blocks blanked (:func:`gbrain.page.markdown.unread_spans`): a
``#`` line in fenced code, an HTML block, a comment or math is no heading, nor is an empty one (a
lone ``#``, as in :attr:`Page.headings`: it ends no section); where the page model (mistune, on a
page the fast path leaves to it) reads other headings, its are taken (:func:`_as_the_page_model`:
``- sub\\n===`` is a heading). Headings are matched as
lint's ``dead_anchors`` judges a link's (:func:`anchor_key`: the text as written, then by case,
then by letters and digits alone, as Obsidian writes ``[[P#Use links]]`` for ``## Use: links``).
Offsets are characters of the whole page text (BOM and frontmatter included). Pure."""
from __future__ import annotations

import bisect
import functools
import re
import unicodedata
from dataclasses import dataclass

from .markdown import BOM, _parse_ast, extract_headings, heading_text, split_frontmatter, stored_spans, to_lf

_WORD_RE = re.compile(r"[\W_]+")
#: a block id ending a line: after white space, alone, or right after an embed or link's ``]]``
#: (``![[img.png]]^id``, as the Obsidian Help vault writes it)
BLOCK_ID_RE = re.compile(r"(?:^|(?<=\s)|(?<=\]\]))\^([A-Za-z0-9-]+)[ \t]*\r?$", re.M)
_ATX_OPEN = re.compile(r"[ \t]*#{1,6}(?:[ \t]+|$)")
_ATX_CLOSE = re.compile(r"(?:[ \t]+|^)#+[ \t]*$")
_MARKUP = re.compile(r"[\[\]*_~=<&`\\$%]")  # a heading whose text the page model may read otherwise
_INLINE = frozenset(("Emphasis", "Strong", "Strikethrough", "Link", "Image", "Superscript", "Subscript"))
_LEVELS = {"H1": 1, "H2": 2, "H3": 3, "H4": 4, "H5": 5, "H6": 6}


def anchor_key(s: str) -> str:
    """A heading or anchor compared loosely: NFC, casefolded, letters and digits only, so Obsidian's
    ``[[P#Use: links]]`` (``:`` written as a space), its heading text with or without markup and
    a GitHub-style ``#use-links`` all meet."""
    return _WORD_RE.sub("", unicodedata.normalize("NFC", s).casefold())


@dataclass(frozen=True)
class Heading:
    level: int
    text: str  # as written, without its ``#`` marks (ATX) or underline (setext)
    line: str  # its first line, stripped (``## Install``), at most 200 characters
    start: int  # where its line starts
    end: int = 0  # where its section ends: the next heading of its level or a higher one, or the text's end

    @property
    def plain(self) -> str:
        """Its text as the page model reads it (:attr:`Page.headings`: ``[[Publish]] sites`` is
        ``Publish sites``): one parse of the line, where it holds a mark that may change it."""
        return _plain(self.text)


@functools.lru_cache(maxsize=4096)
def _plain(text: str) -> str:
    return heading_text(text) if _MARKUP.search(text) else text


@dataclass(frozen=True)
class Section:
    kind: str  # "heading" or "block"
    name: str  # the heading's line, or ``^id``
    start: int  # a line start
    end: int  # past a line end (or the text's end)


@dataclass(frozen=True)
class _Parse:
    headings: list[Heading]
    blocks: list[tuple[int, int, str, int]]  # (start, end, kind, depth) of each block, in document order


def _line_start(text: str, at: int) -> int:
    return text.rfind("\n", 0, at) + 1


def _line_end(text: str, at: int) -> int:
    """Past the end of the line holding ``at`` (its ``\\n`` included), or the text's end."""
    nl = text.find("\n", at)
    return len(text) if nl < 0 else nl + 1


def lf_view(text: str) -> str:
    """``text`` with each bare ``\\r`` line end (classic Mac OS) as ``\\n``: the same length, so
    every offset holds (``\\r\\n`` stays; the page model reads all three as line ends)."""
    return _BARE_CR.sub("\n", text) if "\r" in text else text


_BARE_CR = re.compile(r"\r(?!\n)")


def _body(text: str) -> tuple[int, str]:
    """Where the body of the page text ``text`` starts (after a BOM and the frontmatter), and the
    body (its bare ``\\r`` line ends as ``\\n``: :func:`lf_view`)."""
    bom = 1 if text.startswith(BOM) else 0
    fm, body, _w = split_frontmatter(text[bom:])
    return bom + len(fm), lf_view(body)


#: align the section reader's headings with the page model's over the whole square (the reference
#: the banded alignment, :func:`_heaviest`, is tested against); False: in a band that grows until
#: it provably holds every best alignment
FULL_ALIGN = False


@functools.lru_cache(maxsize=2)  # find, then headings or block_ids for a miss's message: one parse
def _ast(body: str) -> tuple[list, list[tuple[int, int]]]:
    """The page model's block parse of ``body`` (:func:`gbrain.page.markdown._parse_ast`, once per
    body): its tokens and its opaque spans in offsets of ``body``
    (:func:`gbrain.page.markdown.unread_spans`)."""
    lf = to_lf(body)
    tokens, spans = _parse_ast(lf)
    return tokens, stored_spans(body, lf, spans)


def _opaque(body: str) -> list[tuple[int, int]]:
    return _ast(body)[1]


@functools.lru_cache(maxsize=2)
def _parse(text: str) -> _Parse:
    import pyromark

    base, body = _body(text)
    opaque = _opaque(body)
    pieces, at = [], 0
    for a, z in opaque:  # Obsidian's %% comments and $$ math, unknown to pulldown-cmark: blanked, line ends kept
        if body[a:z].lstrip(" \t").startswith(("%%", "$$")):
            pieces += [body[at:a], re.sub(r"[^\r\n]", " ", body[a:z])]
            at = z
    src = "".join(pieces) + body[at:] if pieces else body
    starts = [a for a, _ in opaque]

    def hidden(at: int) -> bool:
        j = bisect.bisect_right(starts, at) - 1
        return j >= 0 and at < opaque[j][1]

    raw = src.encode("utf-8")
    ascii_ = len(raw) == len(src)
    events = list(pyromark.events_with_range(src if src.endswith("\n") else src + "\n"))
    chars: dict[int, int] = {}
    if not ascii_:  # byte offsets to characters, in one pass over the offsets used
        offs = sorted({r[k] for _ev, r in events for k in ("start", "end")})
        at_b = at_c = 0
        for o in offs:
            o2 = min(o, len(raw))
            at_c += len(raw[at_b:o2].decode("utf-8", "surrogatepass"))
            at_b = o2
            chars[o] = at_c
    ch = (lambda o: min(o, len(body))) if ascii_ else (lambda o: min(chars[o], len(body)))
    heads: list[Heading] = []
    blocks: list[tuple[int, int, str, int]] = []
    paras: list[tuple[int, int]] = []
    html: list[tuple[int, int]] = []
    depth = 0
    stack: list[str] = []  # the blocks open
    run: list[int] = []  # the span of the text read since the last block's start or end

    def flush() -> None:  # a paragraph's, a tight list item's or a heading's text: where mistune may read a setext underline
        if run and stack and stack[-1] in ("Paragraph", "Item", "Heading") and not hidden(run[0]):
            paras.append((run[0], run[1]))
        run.clear()

    for ev, r in events:
        block = isinstance(ev, dict) and ("Start" in ev or "End" in ev)
        if block:
            kind = ev["Start"] if "Start" in ev else ev["End"]
            name = kind if isinstance(kind, str) else next(iter(kind))
            block = name not in _INLINE
        if not block:
            if ev != "Rule":  # (a thematic break is a block of no text)
                a, z = ch(r["start"]), ch(r["end"])
                run[:] = [run[0] if run else a, max(z, run[1] if run else z)]
            continue
        flush()
        if "Start" in ev:
            stack.append(name)
            a, z = ch(r["start"]), ch(r["end"])
            depth += 1
            if hidden(a) and name not in ("CodeBlock", "HtmlBlock"):
                continue  # (fenced code and HTML, the page model's opaque blocks too, are blocks an ``^id`` under them names)
            blocks.append((base + a, base + z, name, depth))
            if name == "HtmlBlock" and not hidden(a):  # HTML to pulldown-cmark, maybe not to mistune: its lines may be headings there
                html.append((a, z))
            if name == "Heading":
                lines = body[a:z].rstrip("\r\n").split("\n")
                first = lines[0].rstrip("\r")
                if len(lines) > 1 and re.fullmatch(r"[ \t>]*[=-]+[ \t]*\r?", lines[-1]):  # setext: the lines above its underline
                    words = " ".join(ln.strip().lstrip(">").strip() if i else ln.strip() for i, ln in enumerate(lines[:-1]))
                else:
                    words = _ATX_CLOSE.sub("", _ATX_OPEN.sub("", first, count=1)).strip() if _ATX_OPEN.match(first) else first.strip()
                lvl = kind["Heading"]["level"] if isinstance(kind, dict) else "H1"
                heads.append(Heading(_LEVELS.get(lvl, 1), words, first.strip()[:200], base + _line_start(body, a)))
        else:
            depth -= 1
            if stack:
                stack.pop()
    for a, z in opaque:  # a %% comment or $$ math, blanked above: a block an ``^id`` under it names
        lead = body[a:z].lstrip(" \t")
        if lead.startswith(("%%", "$$")):
            blocks.append((base + a, base + z, "Comment" if lead.startswith("%%") else "Math", 1))
    blocks.sort(key=lambda b: (b[0], -b[1], b[3]))
    heads = [h for h in heads if h.plain]  # an empty heading (a lone ``#``) is none of :attr:`Page.headings`: no section, ends none
    heads = _as_the_page_model(body, base, heads, paras, html)
    ends = [len(text)] * len(heads)
    open_: list[int] = []  # the headings whose section is still open, by rising level
    for i, h in enumerate(heads):
        while open_ and heads[open_[-1]].level >= h.level:
            ends[open_.pop()] = h.start
        open_.append(i)
    return _Parse([Heading(h.level, h.text, h.line, h.start, e) for h, e in zip(heads, ends)], blocks)


_UNDERLINE = re.compile(r"[ \t>]*(?:=+|-+)[ \t]*\r?")


#: the list and quote marks opening a line (``- ``, ``1. ``, ``> ``), any number of them
_CONTAINER = re.compile(r"(?:[ \t]*(?:>[ \t]?|(?:[-+*]|\d{1,9}[.)])(?:[ \t]+|$)))*")
#: at most this many lines above an underline in what pulldown-cmark reads as HTML are taken as
#: the first line of the setext heading mistune may read there (each a candidate)
_HTML_LINES = 4


def _as_the_page_model(body: str, base: int, heads: list[Heading], paras: list[tuple[int, int]],
                       html: list[tuple[int, int]] = ()) -> list[Heading]:
    """``heads`` (pulldown-cmark's) as the page model reads the body ``body``: where its headings
    (:attr:`Page.headings`, mistune's on a page the fast path leaves to it) are others, the ones it
    reads of ``heads`` and of the setext headings mistune reads where pulldown-cmark reads text or
    a rule (an underline below a list item's text: ``- sub\\n===``; ``paras``, the paragraphs, give
    them) or HTML (``html``, its blocks: a list item's ``- <div>`` ran into ``</div>`` at the margin,
    where mistune reads ``# A`` or ``-\\titem`` / ``    ---`` as headings; their ATX lines and setext
    ones, list and quote marks off), matched in order by their text (the heaviest common
    subsequence: the same text, else the same letters and digits)."""
    model = [h for _lvl, h in extract_headings(_ast(body)[0]) if h]
    if [h.plain for h in heads] == model:
        return heads
    cands = list(heads)
    for a, z, marks in [(a, z, False) for a, z in paras] + [(a, z, True) for a, z in html]:
        # a line of '=' or '-' in or right below a paragraph (or what pulldown-cmark reads as HTML,
        # its lines' list and quote marks off): a setext underline mistune may read
        end = _line_end(body, max(a, z - 1))
        lines = body[a:end].split("\n")[:-1] if body[a:end].endswith("\n") else body[a:end].split("\n")
        nxt = body[end:_line_end(body, end)].rstrip("\n")
        if end < len(body) and _UNDERLINE.fullmatch(nxt):
            lines.append(nxt)
        at, first = a, 0
        for k in range(1, len(lines)):
            if _UNDERLINE.fullmatch(lines[k]) and k > first:
                lvl = 1 if "=" in lines[k] else 2
                if marks:  # (where mistune's paragraph starts in what pulldown-cmark reads as HTML: one of the lines above)
                    pos = at + sum(len(ln) + 1 for ln in lines[first:max(first, k - _HTML_LINES)])
                    for j in range(max(first, k - _HTML_LINES), k):
                        words = " ".join(ln[_CONTAINER.match(ln).end():].strip() for ln in lines[j:k])
                        cands.append(Heading(lvl, words, lines[j].strip()[:200], base + _line_start(body, pos)))
                        pos += len(lines[j]) + 1
                    at += sum(len(ln) + 1 for ln in lines[first:k + 1])
                    first = k + 1
                    continue
                words = " ".join(ln.strip().lstrip(">").strip() if i or first else ln.strip() for i, ln in enumerate(lines[first:k]))
                cands.append(Heading(lvl, words, lines[first].strip()[:200], base + _line_start(body, at)))
                at += sum(len(ln) + 1 for ln in lines[first:k + 1])
                first = k + 1
            if first >= len(lines):
                break
    for a, z in html:  # an ATX line in what pulldown-cmark reads as HTML (after a list's or quote's marks)
        at = a
        for ln in body[a:z].split("\n"):
            rest = ln[_CONTAINER.match(ln).end():].rstrip("\r")
            m = _ATX_OPEN.match(rest)
            if m and (ln == rest or rest[:1] == "#"):
                words = _ATX_CLOSE.sub("", rest[m.end():]).strip()
                if words:
                    cands.append(Heading(len(m.group().strip(" \t")), words, ln.strip()[:200], base + at))
            at += len(ln) + 1
    cands.sort(key=lambda h: h.start)
    plain = [unicodedata.normalize("NFC", h.plain) for h in cands]
    loose = [anchor_key(p) for p in plain]
    want = [unicodedata.normalize("NFC", h) for h in model]
    want_loose = [anchor_key(h) for h in want]

    def weight(i: int, j: int) -> int:  # the same text, else the same letters and digits (a far weaker match)
        return 1000 if plain[i] == want[j] else 1 if loose[i] and loose[i] == want_loose[j] else 0

    # the heaviest common subsequence of the candidates' texts and the page model's, past the same
    # texts at both ends
    n, m = len(cands), len(want)
    lo = 0
    while lo < min(n, m) and plain[lo] == want[lo]:
        lo += 1
    hi = 0
    while hi < min(n, m) - lo and plain[n - 1 - hi] == want[m - 1 - hi]:
        hi += 1
    n, m = n - hi, m - hi
    kept = (_heaviest_full if FULL_ALIGN else _heaviest)(lo, n, m, weight)
    return cands[:lo] + [cands[i] for i in kept] + cands[n:]


def _heaviest_full(lo: int, n: int, m: int, weight) -> list[int]:
    """The ``i`` in ``lo..n-1`` a heaviest common subsequence of ``lo..n-1`` and ``lo..m-1``
    matches (``weight(i, j)``: 0 for no match, else its weight), over the whole square (time and
    memory ``(n-lo)·(m-lo)``): the reference :func:`_heaviest` gives the same answer as."""
    best = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, lo - 1, -1):
        for j in range(m - 1, lo - 1, -1):
            w = weight(i, j)
            best[i][j] = max(best[i + 1][j], best[i][j + 1], best[i + 1][j + 1] + w if w else 0)
    out, i, j = [], lo, lo
    while i < n and j < m:
        w = weight(i, j)
        if w and best[i][j] == best[i + 1][j + 1] + w:
            out.append(i)
            i, j = i + 1, j + 1
        elif best[i][j] == best[i + 1][j]:
            i += 1
        else:
            j += 1
    return out


#: the first band's half width (:func:`_heaviest`); each band too narrow to prove is 4 times wider
_BAND = 4


def _heaviest(lo: int, n: int, m: int, weight, top: int = 1000) -> list[int]:
    """:func:`_heaviest_full`'s answer (the same ``i``, the same ties taken) in time
    ``(n+m)·k``, ``k`` about the number of ``lo..`` texts that do not match the same text on the
    other side: the square's cells within ``k`` diagonals of the straight paths (the band, offsets
    ``j - i`` in ``min(0, Δ) - k .. max(0, Δ) + k``, ``Δ = (m-lo) - (n-lo)``), out of band none.
    A path that leaves the band skips at least ``|Δ| + 2k + 2`` items, so it matches at most
    ``min(n-lo, m-lo) - k - 1`` pairs and weighs at most ``top`` (the largest weight) times that:
    when the band's best weighs more, every best path lies in the band, where each cell on one
    has its whole square's value (and a cell off every best path is refused alike), so the walk
    back takes the same steps. Else the band is 4 times wider, up to the whole square."""
    rows, cols = n - lo, m - lo
    if rows <= 0 or cols <= 0:
        return []
    delta, k = cols - rows, _BAND
    while True:
        dmin, dmax = min(0, delta) - k, max(0, delta) + k
        whole = dmin <= -rows and dmax >= cols
        width = dmax - dmin + 1
        best = [[-1] * width for _ in range(rows + 1)]  # best[i - lo][j - i - dmin]; -1: out of band
        nxt = best[rows]
        for j in range(max(lo, n + dmin), min(m, n + dmax) + 1):
            nxt[j - n - dmin] = 0
        for i in range(n - 1, lo - 1, -1):
            row = best[i - lo]
            jhi, jlo = min(m, i + dmax), max(lo, i + dmin)
            if jhi == m:
                row[m - i - dmin] = 0
                jhi -= 1
            for j in range(jhi, jlo - 1, -1):
                x = j - i - dmin
                w = weight(i, j)
                v = nxt[x] + w if w else 0  # (i+1, j+1): the same diagonal
                if x > 0 and nxt[x - 1] > v:  # (i+1, j)
                    v = nxt[x - 1]
                if x + 1 < width and row[x + 1] > v:  # (i, j+1)
                    v = row[x + 1]
                row[x] = v
            nxt = row
        if whole or best[0][-dmin] > top * (min(rows, cols) - k - 1):
            break
        k *= 4

    def at(i: int, j: int) -> int:
        x = j - i - dmin
        return best[i - lo][x] if 0 <= x < width else -1

    out, i, j = [], lo, lo
    while i < n and j < m:
        w = weight(i, j)
        here = at(i, j)
        if w and here == at(i + 1, j + 1) + w:
            out.append(i)
            i, j = i + 1, j + 1
        elif here == at(i + 1, j):
            i += 1
        else:
            j += 1
    return out


def headings(text: str) -> list[Heading]:
    """The headings of the page text ``text`` with their sections, in order."""
    return _parse(text).headings


def block_ids(text: str) -> list[str]:
    """The block ids (``^id``, as written) of the page text ``text``, in order."""
    return [m.group(1) for _a, m in _ids(text)]


def _ids(text: str):
    base, body = _body(text)
    found = list(BLOCK_ID_RE.finditer(body))
    if not found:
        return []
    opaque = _opaque(body)
    starts = [a for a, _ in opaque]
    out = []
    for m in found:
        j = bisect.bisect_right(starts, m.start()) - 1
        if j < 0 or m.start() >= opaque[j][1]:
            out.append((base + m.start(), m))
    return out


def _match(heads: list[Heading], part: str, loose: bool = True) -> Heading | None:
    """The first of ``heads`` whose text, as written or else as the page model reads it
    (:attr:`Heading.plain`, parsed only when needed), is ``part``: exactly, else by case, else
    (``loose``) by :func:`anchor_key` (letters and digits only)."""
    key = anchor_key(part) if loose else ""
    tests = [lambda t: t == part, lambda t: t.casefold() == part.casefold()] + ([lambda t: anchor_key(t) == key] if key else [])
    for same in tests:
        for form in (lambda h: h.text, lambda h: h.plain):
            h = next((h for h in heads if form(h) and same(unicodedata.normalize("NFC", form(h)).strip())), None)
            if h is not None:
                return h
    return None


def find(text: str, anchor: str) -> Section | None:
    """The section of the page text ``text`` that ``anchor`` (what follows a link's ``#``:
    ``Heading``, ``A#B``, ``^id``; a leading ``#`` or ``#^`` is taken off) names, or None when
    the page has no such heading or block."""
    a = unicodedata.normalize("NFC", anchor).strip().lstrip("#").strip()
    if not a:
        return None
    if a.startswith("^"):
        return _block(text, a[1:].strip())
    p = _parse(text)
    h = _match(p.headings, a, loose="#" not in a)  # (a heading that holds a ``#``: ``## C#``)
    if h is None and "#" in a:  # a heading path, each inside the one before (``[[Note#A#B]]``)
        scope = p.headings
        for part in (x.strip() for x in a.split("#")):
            if not part:
                continue
            h = _match(scope, part)
            if h is None:
                return None
            scope = [x for x in scope if h.start < x.start < h.end and x.level > h.level]
    if h is None:
        return None
    return Section("heading", h.line, h.start, h.end)


def _block(text: str, bid: str) -> Section | None:
    """The block carrying ``^bid`` (compared by case as lint does): the list item it ends (with
    the items nested under it), else the paragraph or heading; an id alone on its line the
    block above it (a list, a quote, a table, code), that line included. Whole lines."""
    m_at = next((at for at, m in _ids(text) if m.group(1).casefold() == bid.casefold()), None)
    if m_at is None:
        return None
    p = _parse(text)
    base, body = _body(text)
    text = text[:base] + body  # (its lines as the parse read them)
    holding = [b for b in p.blocks if b[0] <= m_at < b[1]]
    item = [b for b in holding if b[2] == "Item"]
    leaf = [b for b in holding if b[2] in ("Paragraph", "Heading")]
    if item:
        a, z = item[-1][0], item[-1][1]
    elif leaf:
        a, z, _k, d = leaf[-1]
        if text[a:z].strip() == text[m_at:z].strip():  # the id alone: the block just above, at its depth
            above = [b for b in p.blocks if b[3] == d and b[1] <= a and b[2] not in ("Item",)]
            if above:
                a = max(above, key=lambda b: b[1])[0]
    else:
        a, z = m_at, m_at
    a, z = _line_start(text, a), _line_end(text, max(a, z - 1))
    return Section("block", "^" + text[m_at:].split("\n", 1)[0].strip().lstrip("^").strip(), a, z)
