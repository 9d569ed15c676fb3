"""The corpus cross-checks' one sampler (test_fastparse, test_parse_speedups, test_write_speedups,
test_scan_runs, test_frontmatter_quick, test_parse_pool).

Those tests compare a fast path with its reference on every page of ../shared/corpora and of a
make_brain brain: ~10,000 pages, the largest share of the CI's time. By default (CI) they compare a
deterministic sample, :func:`sample_pages`: every page whose path's SHA-1 is 0 modulo
``SAMPLE_EVERY``, and for each shape of the test's ``shapes`` (a construct where the two parted
before, or that a fast path treats apart) the first ``KEEP_PER_SHAPE`` pages holding it in hash
order, so each shape stays in the sample whatever its share. ``GBRAIN_FULL_CORPUS=1`` compares
every page: run it after touching the code a cross-check guards (CLAUDE.md, testing)."""
from __future__ import annotations

import hashlib
import os
import re

#: GBRAIN_FULL_CORPUS=1: the corpus and make_brain cross-checks compare every page
FULL_CORPUS = os.environ.get("GBRAIN_FULL_CORPUS", "") not in ("", "0")
#: the sample's background: every page whose path hashes to 0 modulo this
SAMPLE_EVERY = 8
#: the sample's foreground: up to this many pages (in hash order) holding each shape
KEEP_PER_SHAPE = 12


class Shape:
    """One shape of a sample: ``search(text)`` is ``re.search(regex, text, re.M)``, made cheaper
    for the two spellings every corpus page is searched for (most shapes find no page, so each
    reads every page of a corpus):

    * a regex opening with ``^`` (after inline flags) searches from each line start, as
      ``\\n`` + the rest over ``"\\n" + text``: the engine skips to each newline instead of
      trying every character (~4× faster);
    * a regex opening with the comment ``(?#non-ASCII)`` matches only non-ASCII text: an ASCII
      page (``str.isascii``, O(1)) is not searched."""

    __slots__ = ("pattern", "rx", "line", "non_ascii")

    def __init__(self, pattern: str):
        self.pattern = pattern
        self.non_ascii = pattern.startswith("(?#non-ASCII)")
        m = re.match(r"(\(\?[a-z]+\))?\^", pattern)
        self.line = m is not None
        self.rx = re.compile((m.group(1) or "") + "\n" + pattern[m.end():] if m else pattern, re.M)

    def search(self, text: str, nl_text: str | None = None):
        """The first match in ``text`` (``nl_text``: ``"\\n" + text``, when the caller has it)."""
        if self.non_ascii and text.isascii():
            return None
        if self.line:
            return self.rx.search("\n" + text if nl_text is None else nl_text)
        return self.rx.search(text)


def shapes(table: dict[str, str]) -> dict[str, Shape]:
    """``{name: regex text}`` (multi-line: ``^``/``$`` at each line) as :func:`sample_pages` takes them."""
    return {name: Shape(rx) for name, rx in table.items()}


#: markdown constructs where the block parsers (pulldown-cmark, mistune) parted before, or that a
#: past fix of the parse is about (the commits of page/fastparse.py and the known-shape tests of
#: test_fastparse.py): add the shape of a new corpus-found bug here
MARKDOWN_SHAPES = shapes({
    "comment %%": r"%%",
    "math $$": r"\$\$",
    "comment or math right below an item (obsidian-hub's '%% Hub MOCs')": r"^ *(?:[-*+]|\d+[.)]) .*\n *(?:%%|\$\$)",
    "a comment holding links (obsidian-hub's 'Uncomment this' templates)": r"%%[^%]*\[\[",
    "footnote": r"\[\^",
    "setext underline": r"^\S.*\n {0,3}(?:=+|-+) *$",
    "'=' and '-' mixed underline": r"^ {0,3}[=-]*(?:=-|-=)[=-]* *$",
    "HTML in a link label (obsidian-hub's <button id=HH>)": r"\[<[A-Za-z]",
    "titled link (obsidian-hub's footer)": r"\]\([^)\s]+ +[\"'(]",
    "fence in an item or quote": r"^(?: +|(?:> *)+|(?: *[-*+] +))(?:```|~~~)",
    "item continuation opening no block (obsidian-help's **Note:**)": r"^ *[-*+] .*\n +(?:\*\*|`|#|\d)",
    "lazy continuation line": r"^ *[-*+] \S.*\n\S",
    "deep nesting": r"^(?:(?: {2}|\t){6,}[-*+] |(?:> *){6,})",
    "quote holding a list": r"^> *(?:[-*+]|\d+[.)]) ",
    "callout": r"^> *\[!",
    "HTML block": r"^ {0,3}<[A-Za-z!/]",
    "table": r"^ *\|.*\| *$",
    "code span holding a link": r"`[^`\n]*\[\[",
    "embed": r"!\[\[",
    "escaped wiki link": r"\\\[\[",
    "reference link": r"^ {0,3}\[[^\]^]+\]: ",
    "inline math holding a tag": r"\$[^$\n]*#",
    "escaped hash (obsidian-hub's 'From \\#Tag', trial 60)": r"\\#",
    "CRLF": r"\r\n",
    "BOM": r"\A\ufeff",
    "empty task item": r"^ *[-*+] \[[ xX]\] *$",
})


def _key(path: str) -> bytes:
    return hashlib.sha1(path.encode("utf-8", "surrogateescape")).digest()


def sample_pages(pages: list[tuple[str, str]], shapes: dict[str, Shape] | None = None,
                 keep: int = KEEP_PER_SHAPE) -> list[tuple[str, str]]:
    """A deterministic sample of ``[(path, text)]`` (in their order; ``path`` any key unique in
    the list): every entry whose path's SHA-1 is 0 modulo ``SAMPLE_EVERY``, and for each of
    ``shapes`` (default :data:`MARKDOWN_SHAPES`) the first ``keep`` entries whose text holds it,
    in hash order. With ``GBRAIN_FULL_CORPUS=1``: every entry."""
    if FULL_CORPUS:
        return pages
    shapes = MARKDOWN_SHAPES if shapes is None else shapes
    keyed = sorted(((_key(path), path, text) for path, text in pages), key=lambda kpt: kpt[0])
    chosen = {path for key, path, _ in keyed if int.from_bytes(key[:4], "big") % SAMPLE_EVERY == 0}
    lined = [(path, text, "\n" + text) for _, path, text in keyed]
    for shape in shapes.values():
        n = 0
        for path, text, nl_text in lined:
            if n >= keep:
                break
            if shape.search(text, nl_text):
                chosen.add(path)
                n += 1
    return [pt for pt in pages if pt[0] in chosen]
