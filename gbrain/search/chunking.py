"""Chunking: a page becomes the passages that get embedded.

Strategy (GBrain spec, "Chunking strategy": section-level on ``##`` headings, ~500-token
fallback), applied to a page's compiled truth and timeline:

* **Sections.** The compiled truth is cut before every level-2 heading (``## State``) that is not
  inside fenced code. Text before the first ``##`` is the page's lead section.
* **Long sections** (more than ``max_tokens``) are split at paragraph boundaries (blank lines),
  a paragraph that is still too long at sentence ends, a sentence at spaces, a word by
  characters. Pieces are packed greedily towards an even size (``total / ceil(total / max)``)
  so a 600-token section becomes two of ~300, not 500 + 100.
* **Timeline.** Each timeline entry (``- **YYYY-MM-DD** | source — summary`` plus its indented
  detail) is its own chunk: entries carry most of the facts, appending one changes no other
  chunk, so only the new entry is embedded. Other text below the separator is chunked like a
  section.
* **Context.** Every chunk starts with the page title (and the section heading), so
  ``## State`` of two people never embed alike. Markdown links become their label text.
* **Two budgets for a short window** (:func:`model_chunks`). A model that reads less than
  :data:`MAX_TOKENS` (``minilm``: 220) gets its page cut twice: at its own budget, so every part
  of a long section reaches a vector, and at :data:`MAX_TOKENS`, so a long section's opening is
  also read as one passage; texts the two cuts share (short sections, timeline entries) are kept
  once. A page scores with its best chunk of either (SciFact, ``docs/search.md``: train nDCG@10
  +0.0059 ± 0.0019 over the short chunks alone, for 43% more chunks).

* **A budget the brain sets** (config ``embedding_chunk_tokens``, for a server whose model reads
  fewer tokens than gbrain's chunks hold: llama.cpp ``--embedding`` with a small physical batch,
  TEI serving bge-small): :func:`chunk_page` at that budget alone, every model
  (``embeddings.chunk_budget``); no second, longer cut, which such a server would refuse.

Each :class:`Chunk` carries ``hash``: sha256 hex of its exact text. Embeddings are cached by
(model, hash), so unchanged chunks are never embedded twice.

Token counts are estimates (:func:`approx_tokens`, ~4 characters per token for English text,
the rule of thumb OpenAI documents for its tokenizers), which undercount tables, code and CJK
text (obsidian-help: 4,156 of its 10,451 220-token chunks held more than minilm's 256 word
pieces, the zh/ja/ko pages most of them). **The model's own count** (``fit``: a token counter and
the model's window, ``embeddings.window_fit``; ``minilm``'s WordPiece tokenizer) checks each
chunk of the model's budget after the cut: a chunk over the window is split again by that count
(:func:`_fit_split`: paragraphs, lines, sentences, words, then word pieces, packed to even sizes),
so no part of it is left unread; every other chunk keeps its text, so only the split chunks are
embedded anew. A piece carries ``piece`` (1, 2, … within its chunk). The ~500-token cut of
:func:`model_chunks` is not fitted: it is the long passage by design, and its words are all in
the short cut's chunks.
"""
from __future__ import annotations

import bisect
import hashlib
import math
import re
from dataclasses import dataclass
from typing import Callable

from ..page.markdown import _TIMELINE_LINE_RE, to_lf, unread_spans

#: target upper size of one chunk, in estimated tokens
MAX_TOKENS = 500
#: the range of config ``embedding_chunk_tokens`` (the chunk budget a brain sets for its model's
#: window): below 64 a chunk is hardly more than its title; 8192 is OpenAI's longest input
CHUNK_TOKENS_MIN = 64
CHUNK_TOKENS_MAX = 8192
#: what config ``embedding_chunk_tokens`` takes, as errors say it
CHUNK_TOKENS_SAID = f"a whole number of tokens from {CHUNK_TOKENS_MIN} to {CHUNK_TOKENS_MAX} (gbrain's estimate: ~4 characters a token)"


def chunk_tokens_ok(value: str) -> bool:
    """Whether ``value`` is a valid config ``embedding_chunk_tokens``."""
    v = value.strip()
    return v.isascii() and v.isdigit() and CHUNK_TOKENS_MIN <= int(v) <= CHUNK_TOKENS_MAX
#: longest title prefix (characters) put in front of each chunk
MAX_TITLE_CHARS = 200
_HEADING_LINE = re.compile(r"^ {0,3}#{1,6}(\s|$)")

_FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_H2_RE = re.compile(r"^ {0,3}##(?:[ \t]+(.*?))?[ \t#]*$")
_H1_RE = re.compile(r"^ {0,3}#(?:[ \t]+(.*?))?[ \t#]*$")
_MD_LINK_RE = re.compile(r"!?\[([^\[\]\n]*)\]\([^()\s]*(?:\([^()\s]*\))?[^()\s]*(?:\s+\"[^\"]*\")?\)")
_WIKI_RE = re.compile(r"!?\[\[([^\[\]\n|#]*)(?:#[^\[\]\n|]*)?(?:\|([^\[\]\n]*))?\]\]")
_COMMENT_RE = re.compile(r"<!--.*?-->", re.S)
_SENTENCE_RE = re.compile(r"(?<=[.!?。！？])\s+")
_BLANKS_RE = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)+")


@dataclass(frozen=True)
class Chunk:
    """One passage of a page: ``index`` (0-based within the page), ``text`` (exactly what is
    embedded), ``kind`` (``section`` | ``timeline``), ``heading`` (section heading or entry date)."""

    index: int
    text: str
    kind: str = "section"
    heading: str = ""
    #: 1, 2, … for the pieces of a chunk split for the model's window (``fit``), else 0
    piece: int = 0

    @property
    def hash(self) -> str:
        return text_hash(self.text)

    @property
    def tokens(self) -> int:
        return approx_tokens(self.text)


def text_hash(text: str) -> str:
    """sha256 hex of ``text`` as UTF-8: the cache key of a chunk (with the model name)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def approx_tokens(text: str) -> int:
    """Estimated token count: ``ceil(chars / 4)``, at least the number of words."""
    return max(math.ceil(len(text) / 4), len(text.split()))


def _uncommented(text: str) -> str:
    """``text`` without its Obsidian ``%% … %%`` comment blocks (hidden text, as HTML comments,
    which :func:`clean_markdown` drops; an Excalidraw drawing note keeps its drawing's compressed
    JSON in one): the blocks the page parser reads as such (:func:`gbrain.page.markdown.unread_spans`),
    never a ``%%`` in fenced code."""
    if "%%" not in text:
        return text
    out, at = [], 0
    for a, z in unread_spans(text):
        if text[a:z].lstrip(" \t").startswith("%%"):
            out.append(text[at:a])
            at = z
    out.append(text[at:])
    return "".join(out)


def clean_markdown(text: str) -> str:
    """Text for embedding: links become their labels, HTML comments and runs of blank lines go."""
    text = to_lf(text)
    text = _COMMENT_RE.sub("", text)
    text = _WIKI_RE.sub(lambda m: (m.group(2) or m.group(1) or "").strip(), text)
    text = _MD_LINK_RE.sub(lambda m: m.group(1), text)
    text = _BLANKS_RE.sub("\n\n", text)
    return text.strip()


def _sections(body: str) -> list[tuple[str, str]]:
    """(heading, text) pairs: cut before each ``##`` heading outside fenced code."""
    out: list[tuple[str, list[str]]] = [("", [])]
    fence = ""
    for line in to_lf(body).split("\n"):
        m = _FENCE_RE.match(line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = ""
        elif m:
            fence = m.group(1)
        elif (h := _H2_RE.match(line)) is not None:
            out.append(((h.group(1) or "").strip(), []))
            continue
        out[-1][1].append(line)
    return [(h, "\n".join(lines)) for h, lines in out]


def _split_units(text: str, limit: int) -> list[str]:
    """Cut ``text`` into pieces of at most ``limit`` estimated tokens: paragraphs, then
    sentences, then words, then characters."""
    if approx_tokens(text) <= limit:
        return [text]
    out: list[str] = []
    paras = [p.strip() for p in re.split(r"\n[ \t]*\n", text) if p.strip()]
    if len(paras) > 1:
        for p in paras:
            out += _split_units(p, limit)
        return out
    sents = [s for s in _SENTENCE_RE.split(text) if s.strip()]
    if len(sents) > 1:
        for s in sents:
            out += _split_units(s, limit)
        return out
    words = text.split()
    if len(words) > 1:
        return _pack(words, limit, " ")
    step = max(1, limit * 4)
    return [text[i : i + step] for i in range(0, len(text), step)]


def _pack(units: list[str], limit: int, sep: str) -> list[str]:
    """Join consecutive units into pieces of at most ``limit`` tokens (separators counted),
    aiming at even sizes."""
    total = approx_tokens(sep.join(units))
    target = min(limit, math.ceil(total / max(1, math.ceil(total / limit))))
    pieces: list[str] = []
    cur: list[str] = []
    chars = words = 0
    for u in units:
        c = chars + (len(sep) if cur else 0) + len(u)
        w = words + len(u.split())
        size = max(math.ceil(c / 4), w)
        if cur and (size > limit or max(math.ceil(chars / 4), words) >= target):
            pieces.append(sep.join(cur))
            cur, chars, words = [], 0, 0
            c, w = len(u), len(u.split())
        cur.append(u)
        chars, words = c, w
    if cur:
        pieces.append(sep.join(cur))
    return pieces


def _split_text(text: str, limit: int) -> list[str]:
    units = _split_units(text, limit)
    if len(units) == 1:
        return units
    sep = "\n\n" if "\n\n" in text else " "
    return _pack(units, limit, sep)


def _timeline_blocks(timeline: str) -> list[tuple[str, str]]:
    """(kind, text) blocks of a timeline: ``entry`` (entry line + indented detail) or ``text``."""
    blocks: list[tuple[str, list[str]]] = []
    in_entry = False
    fence = ""
    for line in to_lf(timeline).split("\n"):
        m = _FENCE_RE.match(line.lstrip())
        if fence:
            blocks[-1][1].append(line)
            if m and m.group(1)[0] == fence[0]:
                fence = ""
            continue
        if _TIMELINE_LINE_RE.match(line):
            blocks.append(("entry", [line]))
            in_entry = True
            continue
        if in_entry and (not line.strip() or line[:1] in (" ", "\t")):
            blocks[-1][1].append(line)
            if m:
                fence = m.group(1)
            continue
        in_entry = False
        if m:
            fence = m.group(1)
        if not blocks or blocks[-1][0] != "text":
            blocks.append(("text", []))
        blocks[-1][1].append(line)
    return [(k, "\n".join(lines).strip()) for k, lines in blocks if "\n".join(lines).strip()]


def _entry_text(block: str) -> tuple[str, str]:
    """``(date, text)`` of an entry block: ``2025-03-04 | meeting — summary`` + detail lines."""
    first, _, rest = block.partition("\n")
    m = _TIMELINE_LINE_RE.match(first)
    date = m.group(1) if m else ""
    head = f"{date} | {m.group(2)}" if m else first
    detail = "\n".join(ln.strip() for ln in rest.split("\n") if ln.strip())
    return date, (head + ("\n" + detail if detail else ""))


#: the model's tokenizer (a text's word pieces as ``(start, end)`` character offsets into it,
#: without the model's special tokens) and the model's window (the word pieces it reads, its
#: special tokens included)
Fit = tuple[Callable[[str], list], int]
#: the special tokens a BERT-family model adds to every input ([CLS], [SEP])
FIT_SPECIALS = 2
#: the fewest tokens a piece of a split chunk is given beside its title prefix
FIT_MIN_TOKENS = 16
#: where a chunk over the window is cut, in order: paragraphs, lines (tables, code), sentences
#: (a CJK sentence end needs no space after it), words; then between word pieces
_FIT_LEVELS = [re.compile(r"\n[ \t]*\n"), re.compile(r"\n"), re.compile(r"(?<=[.!?])\s+|(?<=[。！？])\s*"), re.compile(r"\s+")]


def _fit_split(text: str, offs: list, avail: int, offsets: Callable[[str], list]) -> list[str]:
    """``text`` (its word pieces' offsets ``offs``, by the model's tokenizer ``offsets``) cut
    into pieces of at most ``avail`` word pieces: at paragraphs, then lines, sentences, words
    (:data:`_FIT_LEVELS`), then between word pieces, the units of a level packed greedily towards
    even sizes. Each piece is a slice of ``text`` (its own separators kept), stripped. A span's
    tokens are those inside it, exact where it is cut at white space (the tokenizer splits there
    too); a piece cut between two word pieces of a word is counted again, and cut by characters
    if it is still over. Deterministic."""
    starts = [o[0] for o in offs]
    ends = [o[1] for o in offs]

    def n_of(a: int, b: int) -> int:
        return max(0, bisect.bisect_right(ends, b) - bisect.bisect_left(starts, a))

    out: list[str] = []
    for a, b, exact in _fit_spans(text, 0, len(text), avail, n_of, starts, 0):
        piece = text[a:b].strip()
        if not piece:
            continue
        out += [piece] if exact or len(offsets(piece)) <= avail else _by_chars(piece, avail, offsets)
    return out


def _fit_spans(text: str, a: int, b: int, avail: int, n_of, starts: list[int], level: int) -> list[tuple[int, int, bool]]:
    """Spans ``(start, end, exact)`` of ``text[a:b]`` of at most ``avail`` tokens each (see
    :func:`_fit_split`); ``exact``: cut at white space only (its count is the tokenizer's)."""
    n = n_of(a, b)
    if n <= avail:
        return [(a, b, True)]
    for lv in range(level, len(_FIT_LEVELS)):
        units, at = [], a
        for m in _FIT_LEVELS[lv].finditer(text, a, b):
            if m.start() > at:
                units.append((at, m.start()))
            at = max(at, m.end())
        if at < b:
            units.append((at, b))
        units = [(x, y) for x, y in units if text[x:y].strip()]
        if len(units) > 1:
            pieces: list[tuple[int, int, bool]] = []
            for x, y in units:
                pieces += _fit_spans(text, x, y, avail, n_of, starts, lv + 1)
            return _pack_spans(pieces, avail, n_of)
    # one run without a break (a long word, CJK without punctuation): between its word pieces
    lo = bisect.bisect_left(starts, a)
    k = math.ceil(n / avail)
    size = math.ceil(n / k)
    cuts = [a] + [starts[lo + i * size] for i in range(1, k)] + [b]
    return [(cuts[i], cuts[i + 1], False) for i in range(k)]


def _pack_spans(spans: list[tuple[int, int, bool]], avail: int, n_of) -> list[tuple[int, int, bool]]:
    """Join consecutive ``spans`` (each within ``avail`` tokens) into spans of at most ``avail``
    tokens, aiming at even sizes (``total / ceil(total / avail)``)."""
    sizes = [n_of(x, y) for x, y, _ in spans]
    total = sum(sizes)
    target = math.ceil(total / max(1, math.ceil(total / avail)))
    out: list[tuple[int, int, bool]] = []
    start, end, size, exact = None, 0, 0, True
    for (x, y, ex), n in zip(spans, sizes):
        if start is not None and (size + n > avail or size >= target):
            out.append((start, end, exact))
            start, size, exact = None, 0, True
        if start is None:
            start = x
        end = y
        size += n
        exact = exact and ex
    if start is not None:
        out.append((start, end, exact))
    return out


def _by_chars(text: str, avail: int, offsets: Callable[[str], list]) -> list[str]:
    """``text`` cut into the longest runs of characters of at most ``avail`` tokens each (the
    safety net of :func:`_fit_split`)."""
    out: list[str] = []
    rest = text
    while rest:
        if len(offsets(rest)) <= avail:
            out.append(rest)
            break
        lo, hi = 1, len(rest)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if len(offsets(rest[:mid])) <= avail:
                lo = mid
            else:
                hi = mid - 1
        out.append(rest[:lo])
        rest = rest[lo:]
    return out


def _fitted(prefix: str, part: str, fit: Fit | None) -> list[str]:
    """The chunk texts of ``part`` under ``prefix``: one (``prefix`` + newline + ``part``) when it
    is within the model's window by its own tokenizer (``fit``; no ``fit``: always), else the
    pieces of :func:`_fit_split`, each with the prefix."""
    text = f"{prefix}\n{part}" if prefix else part
    if fit is None:
        return [text]
    offsets, window = fit
    if text.isascii() and len(text) + FIT_SPECIALS <= window:
        return [text]  # an ASCII character is at most one word piece (not so a Hangul syllable: NFD, 2-3 pieces)
    offs = offsets(text)
    if len(offs) + FIT_SPECIALS <= window:
        return [text]
    # the prefix and the part are split at the newline between them (white space: so does the tokenizer)
    at = len(prefix) + 1 if prefix else 0
    head = sum(1 for o in offs if o[1] <= at)
    part_offs = [(x - at, y - at) for x, y in offs[head:]]
    avail = max(FIT_MIN_TOKENS, window - FIT_SPECIALS - head)
    return [f"{prefix}\n{p}" if prefix else p for p in _fit_split(part, part_offs, avail, offsets)]


def chunk_page(title: str, compiled_truth: str, timeline: str = "", *, max_tokens: int = MAX_TOKENS, fit: Fit | None = None) -> list[Chunk]:
    """Chunks of one page, in page order (compiled truth sections, then timeline entries).

    ``fit``: the model's token counter and window; a chunk over it is split again (its pieces
    numbered in ``piece``), see the module docstring.

    ``title`` is prepended to every chunk (``Title`` or ``Title — Heading`` on the first line).
    A page with no text at all yields one title-only chunk (so a page is still found by
    name); a page without a title and text yields none. Raises nothing.
    """
    title = " ".join((title or "").split())
    if len(title) > MAX_TITLE_CHARS:
        # the prefix gives context; a huge title would fill a model's window in every chunk
        title = title[: MAX_TITLE_CHARS - 1].rstrip() + "…"
    texts: list[tuple[str, str, str, int]] = []  # (kind, heading, text, piece)
    compiled_truth, timeline = _uncommented(compiled_truth or ""), _uncommented(timeline or "")

    for i, (heading, body) in enumerate(_sections(compiled_truth)):
        body = clean_markdown(body)
        if i == 0:
            # the lead section usually opens with "# Title": the prefix says it already
            lines = body.split("\n")
            h1 = _H1_RE.match(lines[0]) if lines and lines[0] else None
            if h1 and " ".join((h1.group(1) or "").split()) == title:
                body = "\n".join(lines[1:]).strip()
        heading = clean_markdown(heading)
        if not body:
            continue
        prefix = f"{title} — {heading}" if heading and title else (heading or title)
        budget = max(32, max_tokens - approx_tokens(prefix))
        for part in _split_text(body, budget):
            texts += [("section", heading, t, i) for i, t in _pieces(_fitted(prefix, part, fit))]

    for kind, block in _timeline_blocks(timeline or ""):
        if kind == "entry":
            date, body = _entry_text(clean_markdown(block))
            prefix = f"{title} — Timeline" if title else "Timeline"
        else:
            date, body = "", clean_markdown(block)
            if all(_HEADING_LINE.match(ln) for ln in body.split("\n") if ln.strip()):
                continue  # a bare "## Timeline" heading: no content, and it would win name lookups
            prefix = f"{title} — Timeline" if title else "Timeline"
        budget = max(32, max_tokens - approx_tokens(prefix))
        for part in _split_text(body, budget):
            texts += [("timeline", date, t, i) for i, t in _pieces(_fitted(prefix, part, fit))]

    if not texts and title:
        texts.append(("section", "", title, 0))
    return [Chunk(i, t, k, h, piece) for i, (k, h, t, piece) in enumerate(texts)]


def _pieces(texts: list[str]) -> list[tuple[int, str]]:
    """``(piece, text)``: 0 for a chunk kept whole, 1.. for the pieces of a split one."""
    return [(0, texts[0])] if len(texts) == 1 else list(enumerate(texts, 1))


def model_chunks(title: str, compiled_truth: str, timeline: str = "", *, max_tokens: int = MAX_TOKENS, fit: Fit | None = None) -> list[Chunk]:
    """The chunks a model with a window of ``max_tokens`` (approx. tokens) embeds for one page.

    ``max_tokens >= MAX_TOKENS``: :func:`chunk_page` at ``max_tokens``. Below (``minilm``): the
    union of :func:`chunk_page` at ``max_tokens`` and at :data:`MAX_TOKENS`, in that order (the
    short chunks in page order, then the long ones whose text is not already there), each text
    once per page (a text repeated within the page too), indexed 0.. again. Deterministic for the same input (the chunk list a fresh import
    gives is the same); a timeline entry that fits ``max_tokens`` is the same text in both cuts,
    so appending an entry still adds one new text. Raises nothing.
    """
    if max_tokens >= MAX_TOKENS:
        return chunk_page(title, compiled_truth, timeline, max_tokens=max_tokens, fit=fit)
    seen: set[str] = set()
    out: list[Chunk] = []
    for budget, f in ((max_tokens, fit), (MAX_TOKENS, None)):  # the long cut is read in part by design
        for c in chunk_page(title, compiled_truth, timeline, max_tokens=budget, fit=f):
            if c.text not in seen:
                seen.add(c.text)
                out.append(Chunk(len(out), c.text, c.kind, c.heading, c.piece))
    return out
