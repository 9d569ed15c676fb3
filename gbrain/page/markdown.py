"""The page model: parse a markdown file into its parts and render it back, byte for byte.

Guarantee (the page bijection): for every ``text`` that is valid UTF-8 decoded,
``parse_page(text, path).render() == text``. A page is stored as five exact slices:

    [BOM] + frontmatter_raw + compiled_truth + separator + timeline

``frontmatter_raw`` is the original YAML block with its ``---`` delimiter lines (or ``''``),
``separator`` is the original line that splits compiled truth from timeline (or ``''``).
Nothing is trimmed, re-dumped or normalised, so CRLF, mixed endings, tabs, trailing spaces,
a missing final newline and YAML that does not load all survive untouched.

Everything else on :class:`Page` (frontmatter as JSON-able dict, title, type, tags, links,
timeline entries) is a *derived view*, recomputed from the text on every parse.

Markdown structure comes from mistune's block and inline parsers (fenced code, links,
headings); the only line-based rules are the ones the GBrain format itself defines
(the ``---`` separator line and ``- **YYYY-MM-DD** | source — summary`` timeline lines),
and both skip fenced code found by mistune.
"""
from __future__ import annotations

import base64
import bisect
import datetime as _dt
import functools
import io
import math
import posixpath
import re
import threading
import unicodedata
from bisect import bisect_right
from dataclasses import dataclass, field, replace as _dc_replace
from typing import Any, Callable
from urllib.parse import unquote

from ..errors import BadInput
from .canvas import storable
from .slugs import identity_key, loose_key, tag_identity, title_key

# mistune and ruamel.yaml are imported on first use (`_markdown`, `_SafeYAML`): a command that
# only reads stored pages (`gbrain get`) starts without them

BOM = "\ufeff"

#: spec: directory → page type (the import algorithm's typeMap)
FOLDER_TYPES = {
    "people": "person",
    "companies": "company",
    "deals": "deal",
    "yc": "yc",
    "civic": "civic",
    "projects": "project",
    "concepts": "concept",
    "sources": "source",
    "media": "media",
    "meetings": "source",
    "programs": "source",
}

SPLIT_RULES = ("rule", "heading")

_LINE_RE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")
_FM_OPEN_RE = re.compile(r"---(?:\r\n|\r|\n)")
_FM_CLOSE_RE = re.compile(r"^(?:---|\.\.\.)[ \t]*(?:\r\n|\r|\n|$)", re.M)
_TIMELINE_HEADING_RE = re.compile(r"^#{2}\s+(timeline|history)\b", re.I)
_TIMELINE_LINE_RE = re.compile(r"^[-*+][ \t]+\*\*(\d{4}-\d{2}-\d{2})\*\*[ \t]*\|[ \t]*(.*?)[ \t]*$")
#: the same on a line without line breaks, group 2 not stripped: :func:`parse_timeline_entries`
#: strips its trailing blanks (the lazy ``(.*?)[ \t]*$`` tries the end at every character: 3×
#: the CPU on a line of 100 characters; ``tests/test_parse_speedups.py`` compares them)
_TIMELINE_ITEM_RE = re.compile(r"[-*+][ \t]+\*\*(\d{4}-\d{2}-\d{2})\*\*[ \t]*\|[ \t]*(.*)")
_SCHEME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")
#: where a link's context sentence ends: after ``.``, ``!`` or ``?`` and whitespace, and at a line
#: break before a line that starts with ``|`` or after one that ends with it (a table's row is a
#: unit of its own: a link in a table has its row as context, not the whole table)
SENTENCE_END_PATTERN = r"(?<=[.!?])\s+|\n(?=[ \t]*\|)|(?<=\|)[ \t]*\n"
#: (every match starts with white space: the leading look-ahead, a character set, lets the regex
#: engine skip to the next white space instead of trying each branch at every position, ~40%
#: faster; ``tests/test_parse_speedups.py`` compares it with the plain pattern)
_SENTENCE_END_RE = re.compile(r"(?=\s)(?:" + SENTENCE_END_PATTERN + ")")
#: wiki/markdown targets with these extensions point at attachments, not pages. Not
#: ``excalidraw``: ``[[Sketch.excalidraw]]`` names the Excalidraw plugin's drawing note
#: ``Sketch.excalidraw.md`` (a page, as Obsidian resolves it); a legacy drawing stored as a
#: plain ``Sketch.excalidraw`` file is a file such a link names (lint's dead_links says so)
ATTACHMENT_EXTS = frozenset(
    "png jpg jpeg gif svg webp bmp avif ico pdf canvas mp3 mp4 m4a wav ogg webm mov mkv flac "
    "zip gz tar csv json txt html htm xml yml yaml py js ts css base".split()
)


#: a template's placeholder: a Templater tag (``<% tp.date.now("YYYY-MM-DD") %>``, ``<%* … %>``)
#: or a core-template / Periodic Notes variable (``{{date}}``, ``{{title}}``, ``{{date:YYYY-MM-DD}}``)
_PLACEHOLDER_RE = re.compile(r"<%.*?%>|\{\{[^{}\n]*\}\}", re.S)


def has_placeholder(text: str) -> bool:
    """Whether ``text`` (a link target, a title) holds a template placeholder (:data:`_PLACEHOLDER_RE`):
    the name a template gives the note it makes, which no note of the vault can be meant to have.
    Lint leaves such names out of its dead links and duplicate titles."""
    return ("<%" in text or "{{" in text) and _PLACEHOLDER_RE.search(text) is not None


class _SafeYAML:
    """ruamel's safe loaders (YAML 1.2): the C loader first, then the pure-Python loader, which
    also reads what libyaml rejects but Obsidian accepts, such as
    ``sources: [web:https://example.com]`` (``:`` inside a flow-sequence scalar).

    Each text gets new loader objects (about 0.05 ms): a ruamel ``YAML`` object keeps state from
    one load to the next (a ``%YAML 1.1`` directive read by the pure loader stayed in force for
    later texts; a failed load changed the error text of the next), so a text's frontmatter
    would depend on the pages read before it in the process."""

    @staticmethod
    def make(pure: bool = False) -> Any:
        """A new ``ruamel.yaml.YAML(typ="safe")`` (``pure``: without the C parser) whose
        constructor keeps a timestamp that is no real date as text (:func:`_constructor`)."""
        from ruamel.yaml import YAML

        y = YAML(typ="safe", pure=pure)
        y.Constructor = _constructor()
        return y

    @classmethod
    def load(cls, text: str, not_dates: list[str] | None = None) -> Any:
        """The data of one YAML document; raises what ruamel raises. A scalar resolved (or
        tagged ``!!timestamp``) as a timestamp whose date or time does not exist
        (``2024-02-30``, ``2024-13-45``, hour 25) is the string as written, appended to
        ``not_dates`` when given."""
        from ruamel.yaml.error import YAMLError

        _NOT_DATES.found = found = []
        try:
            try:
                data = cls.make().load(text)
            except YAMLError:
                found.clear()
                data = cls.make(pure=True).load(text)
        finally:
            _NOT_DATES.found = None
        if not_dates is not None:
            not_dates.extend(found)
        return data


#: the impossible dates one :meth:`_SafeYAML.load` keeps as text (per thread: loads may run in threads)
_NOT_DATES = threading.local()
_CONSTRUCTOR: list[Any] = []


def _constructor() -> Any:
    """ruamel's ``SafeConstructor`` with one change: a timestamp whose fields are out of range
    (``created: 2024-02-30``, ``date: 2024-13-45``: ruamel raises ``ValueError``) is the scalar's
    text, as Obsidian shows it, instead of an error that drops the whole frontmatter. A scalar
    that does not look like a timestamp under an explicit ``!!timestamp`` still fails."""
    if _CONSTRUCTOR:
        return _CONSTRUCTOR[0]
    from ruamel.yaml.constructor import SafeConstructor

    class KeepNotDates(SafeConstructor):
        def construct_yaml_timestamp(self, node: Any, values: Any = None) -> Any:
            try:
                return super().construct_yaml_timestamp(node, values)
            except ValueError:
                found = getattr(_NOT_DATES, "found", None)
                if found is not None:
                    found.append(node.value)
                return node.value

    KeepNotDates.add_constructor("tag:yaml.org,2002:timestamp", KeepNotDates.construct_yaml_timestamp)
    _CONSTRUCTOR.append(KeepNotDates)
    return KeepNotDates


#: load frontmatter with :func:`_quick_load` where it can (tests turn it off to compare)
QUICK_YAML = True


class _Unsure(Exception):
    """The quick loader (:func:`_quick_load`) declines a text: :class:`_SafeYAML` must load it."""


#: the quick loader's tags, told apart from any tag written in the YAML by identity (``is``)
_QT: dict[str, Any] = {}
_QUICK: list[Any] = []  # [(loader class, scalar constructors by tag, constructor, tags, node classes)] once built; [None] without the C parser


def _quick_setup() -> Any:
    """Build the quick loader on first use: ruamel's C parser and composer (the first loader of
    :class:`_SafeYAML`) with a resolver that gives the YAML 1.2 tag that loader gives (its
    ``VersionedResolver`` never sees a ``%YAML`` directive on the C path, so it always resolves
    per 1.2), as objects no written tag can be; scalars other than strings are built by ruamel's
    own ``SafeConstructor`` functions."""
    if _QUICK:
        return _QUICK[0]
    try:
        from ruamel.yaml.constructor import SafeConstructor
        from ruamel.yaml.cyaml import CParser
        from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode
        from ruamel.yaml.resolver import implicit_resolvers
        from ruamel.yaml.tag import Tag
    except ImportError:  # no C parser (ruamel.yaml.clib): every text takes the full loader
        _QUICK[:] = [None]
        return None
    if CParser is None:
        _QUICK[:] = [None]
        return None
    # ruamel's table of implicit resolvers, as its VersionedResolver reads it for 1.2: the
    # resolvers listed under a scalar's first character ("" for the empty scalar), then those
    # listed under None (any character); the first whose pattern matches gives the tag
    by_first: dict[Any, list[tuple[Any, Any]]] = {}
    for versions, tag, regexp, firsts in implicit_resolvers:
        if (1, 2) not in versions:
            continue
        _QT.setdefault(tag, Tag(suffix=tag))
        for ch in firsts:
            # the same pattern compiled here: ruamel's lazy wrapper costs a Python call per use
            by_first.setdefault(ch, []).append((_QT[tag], re.compile(regexp.pattern, regexp.flags)))
    any_first = by_first.pop(None, [])
    by_first = {ch: rs + any_first for ch, rs in by_first.items()}
    y = "tag:yaml.org,2002:"
    t_str = _QT.setdefault(y + "str", Tag(suffix=y + "str"))
    t_seq = _QT.setdefault(y + "seq", Tag(suffix=y + "seq"))
    t_map = _QT.setdefault(y + "map", Tag(suffix=y + "map"))
    empty = any_first

    class QuickLoader(CParser):  # type: ignore[misc,valid-type]
        def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
            if kind is ScalarNode:
                if implicit[0]:
                    for tag, regexp in by_first.get(value[:1], empty):
                        if regexp.match(value):
                            return tag
                return t_str
            return t_seq if kind is SequenceNode else t_map

        def descend_resolver(self, *_: Any) -> None:
            pass

        def ascend_resolver(self, *_: Any) -> None:
            pass

    class _Version:  # what ruamel's scalar constructors ask of their resolver (``loader._resolver``)
        processing_version = (1, 2)

    class _Loader:
        _constructor = None
        _resolver = _Version()

    cons = SafeConstructor(loader=_Loader())
    scalar = {
        _QT[y + k]: SafeConstructor.yaml_constructors[y + k]
        for k in ("null", "bool", "int", "float", "timestamp")
    }
    _QUICK[:] = [(QuickLoader, scalar, cons, t_str, t_seq, t_map, ScalarNode, SequenceNode, MappingNode)]
    return _QUICK[0]


def _quick_load(src: str) -> Any:
    """Load YAML text as :class:`_SafeYAML` would, or raise :class:`_Unsure` where the result
    might differ (any error, explicit tag, alias of a collection, merge key, non-scalar key,
    duplicate key, directive): a value this returns is the one ``_SafeYAML.load`` returns."""
    q = _quick_setup() if QUICK_YAML else None
    if q is None or src[:1] == "%" or "\n%" in src or "\r%" in src:
        raise _Unsure
    loader_cls, scalar, cons, t_str, t_seq, t_map, ScalarNode, SequenceNode, MappingNode = q
    loader = loader_cls(src)
    try:
        node = loader.get_single_node()
    except Exception:
        raise _Unsure from None
    finally:
        loader.dispose()
    if node is None:
        return None
    seen: set[int] = set()

    def build(n: Any) -> Any:
        tag = n.ctag
        if tag is t_str:
            if n.__class__ is ScalarNode:
                return n.value
        elif tag is t_map:
            if n.__class__ is MappingNode and id(n) not in seen:
                seen.add(id(n))
                out: dict[Any, Any] = {}
                for kn, vn in n.value:
                    if kn.__class__ is not ScalarNode:
                        raise _Unsure
                    k = build(kn)
                    if k in out:
                        raise _Unsure
                    out[k] = build(vn)
                return out
        elif tag is t_seq:
            if n.__class__ is SequenceNode and id(n) not in seen:
                seen.add(id(n))
                lst = []
                for vn in n.value:
                    lst.append(build(vn))
                return lst
        else:
            f = scalar.get(tag)
            if f is not None and n.__class__ is ScalarNode:
                return f(cons, n)
        raise _Unsure

    try:
        return build(node)
    except _Unsure:
        raise
    except Exception:
        raise _Unsure from None


# ---------------------------------------------------------------------------
# data model
# ---------------------------------------------------------------------------


@dataclass
class Link:
    """One outgoing link as written in a page.

    ``kind`` is ``markdown`` (``[x](../a.md)``), ``wiki`` (``[[A]]``), ``embed`` (``![[A]]``) or
    ``property`` (a wiki link in a frontmatter string value, an Obsidian property:
    ``related: "[[A]]"``; :func:`property_links`).
    ``target`` is the page path as written, decoded (``%20`` → space), without ``#anchor`` and
    without ``.md``; ``base`` is the directory of the linking page (for relative resolution).
    ``context`` is the sentence around the link, as plain text; for a property link the
    property's name and the value holding the link (``related: [[A]]``).
    """

    kind: str
    target: str
    text: str = ""
    context: str = ""
    count: int = 1  # times the page links this target in this family (after dedupe)
    forms: list[str] = field(default_factory=list)  # each distinct form written: [[x#h]], ![[x]], (x.md)
    #: each distinct label shown for the target other than its name (``[[acme|Acme, the seed
    #: fund]]``, ``[Sarah's fund](acme.md)``), in the order written, at most :data:`LABELS_MAX`
    #: (:func:`link_label`): what other pages call the target, ``links.label`` (v55)
    labels: list[str] = field(default_factory=list)

    def add_label(self, label: str) -> None:
        """Gather ``label`` (already :func:`link_label`'s) when new and room is left."""
        if label and label not in self.labels and len(self.labels) < LABELS_MAX:
            self.labels.append(label)

    def key(self) -> str:
        """Dedupe key within a page: kind family (:func:`link_family`) + normalised target
        (case-insensitive)."""
        return link_family(self.kind) + ":" + identity_key(self.target)


#: the kind of a link written in a frontmatter value (an Obsidian property)
PROPERTY = "property"


#: labels kept per link (:attr:`Link.labels`) and characters kept per label
LABELS_MAX = 8
LABEL_MAX = 200


#: a character that may open inline markup a label's text token still holds (the link parser
#: reads no emphasis: :class:`~gbrain.page.mdparse._LinkMarkdown`), or a character reference
_LABEL_MARKUP_RE = re.compile(r"[*_~=<&]")
_label_inline_parser = None


def _label_inline():
    """mistune's inline parser with only the rules whose marks a reader does not see: emphasis,
    strikethrough, highlight and raw HTML (escapes and code spans were read by the link parser)."""
    global _label_inline_parser
    if _label_inline_parser is None:
        import mistune

        md = mistune.create_markdown(renderer=None, plugins=["strikethrough", "mark"])
        md.inline.rules = [r for r in ("emphasis", "strikethrough", "mark", "inline_html") if r in md.inline._methods]
        _label_inline_parser = md.inline
    return _label_inline_parser


def _label_pieces(tokens: list, out: list[str]) -> None:
    for tok in tokens:
        if "children" in tok:
            _label_pieces(tok["children"], out)
        elif tok.get("type") != "inline_html":  # (a tag is not shown)
            out.append(tok.get("raw", ""))


def visible_label(label: str) -> str:
    """The text a reader sees of a link's ``label`` as the link parser gives it: emphasis,
    strikethrough (``~~``) and highlight (``==``) marks and inline HTML tags dropped, character
    references read (``&amp;`` → ``&``), NFKC-folded (``ｆｕｌｌ`` → ``full``), white space runs
    one space (``[**Sarah** fund](acme.md)`` → ``Sarah fund``)."""
    if _LABEL_MARKUP_RE.search(label):
        tokens = _label_inline()(label, {})  # (state is per call, as the page parsers')
        out: list[str] = []
        _label_pieces(tokens, out)
        label = "".join(out)
        if "&" in label:
            import html

            label = html.unescape(label)
    if not label.isascii():
        label = unicodedata.normalize("NFKC", label)
    return " ".join(label.split())


def link_label(label: str, target: str) -> str:
    """A link's visible text as a label of its target (:attr:`Link.labels`): :func:`visible_label`,
    at most :data:`LABEL_MAX` characters; '' when it is only the target's name (its
    file name's :func:`~gbrain.page.slugs.loose_key`: ``[Acme](acme.md)``, ``[[acme]]``) or
    holds no letter or digit."""
    if not label:
        return ""
    label = visible_label(label)[:LABEL_MAX]
    key = title_key(label)
    if not key or key == loose_key(target) or key == title_key(target):
        return ""
    return label


def link_family(kind: str) -> str:
    """The family a link of ``kind`` is counted in, once per target within a page: ``md``
    (markdown links), ``prop`` (property links: a page linking a target from both its
    properties and its body has a row of each) or ``wiki`` (wiki links and embeds)."""
    return "md" if kind == "markdown" else "prop" if kind == PROPERTY else "wiki"


@dataclass
class TimelineEntry:
    """A structured timeline line: ``- **date** | source — summary`` plus indented detail."""

    date: str
    source: str
    summary: str
    detail: str = ""


@dataclass
class Page:
    """A parsed page. The first five fields are exact slices; ``render()`` joins them."""

    bom: bool
    frontmatter_raw: str
    compiled_truth: str
    separator: str
    timeline: str
    path: str = ""
    frontmatter: dict = field(default_factory=dict)
    frontmatter_error: str | None = None
    title: str = ""
    type: str = "note"
    tags: list[str] = field(default_factory=list)  # frontmatter ``tags:`` as written
    inline_tags: list[str] = field(default_factory=list)  # ``#tag`` in the body, as written
    aliases: list[str] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    timeline_entries: list[TimelineEntry] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    #: the text of the page's headings (any level), in order
    headings: list[str] = field(default_factory=list)
    #: the plain text of the body's first level-1 heading block, wherever it is (:func:`first_h1`)
    first_h1: str = ""
    #: the body's opaque blocks as :func:`parse_page` found them (:func:`unread_spans`'s, in
    #: offsets of ``compiled_truth + separator + timeline``), or None (not parsed so, or CRLF):
    #: the index's text scan reuses them instead of parsing a part again (:func:`part_unread`)
    opaque: list | None = field(default=None, repr=False, compare=False)

    def part_unread(self, part: str) -> list[tuple[int, int]] | None:
        """:attr:`opaque` clipped to ``part`` (``"compiled_truth"`` or ``"timeline"``), in that
        part's offsets: what :func:`unread_spans` of the part gives, without its parse; None
        when :attr:`opaque` is."""
        if self.opaque is None:
            return None
        lo = 0 if part == "compiled_truth" else len(self.compiled_truth) + len(self.separator)
        hi = lo + len(getattr(self, part))
        return [(max(a, lo) - lo, min(z, hi) - lo) for a, z in self.opaque if z > lo and a < hi]

    def render(self) -> str:
        """The page text, exactly as parsed (or as edited)."""
        return (BOM if self.bom else "") + self.frontmatter_raw + self.compiled_truth + self.separator + self.timeline

    def to_bytes(self) -> bytes:
        return self.render().encode("utf-8")

    @property
    def all_tags(self) -> list[str]:
        """Every tag of the page: frontmatter tags, then inline ones; one spelling per identity
        (``tag_identity``: NFC + lowercase), the first written. What the ``tags`` table holds."""
        return merge_tags(self.tags, self.inline_tags)

    @property
    def body(self) -> str:
        return self.compiled_truth + self.separator + self.timeline

    @property
    def newline(self) -> str:
        """The page's line ending: CRLF when the text uses it, else a bare CR when the body's last
        line ends so (classic Mac OS; a frontmatter block gbrain made for such a page is LF: an LF
        joined after its ``\r`` made one CRLF line end, ``Text.\r\n---`` a setext heading), else LF."""
        text = self.render()
        if "\r\n" in text:
            return "\r\n"
        body = self.compiled_truth + self.separator + self.timeline
        return "\r" if body.rfind("\r") > body.rfind("\n") else "\n"


# ---------------------------------------------------------------------------
# mistune setup (gbrain/page/mdparse.py, imported on first parse): a block parser that
# remembers where top-level opaque blocks are (fenced code, HTML, math, %% comments), and an
# inline rule for Obsidian wiki links.
# ---------------------------------------------------------------------------


_MD = None


def _markdown():
    global _MD
    if _MD is None:
        from .mdparse import _LinkMarkdown, _SpanBlockParser, _wikilink_plugin

        _MD = _LinkMarkdown(renderer=None, block=_SpanBlockParser(), plugins=[_wikilink_plugin])
    return _MD


#: parse block structure with pulldown-cmark (gbrain/page/fastparse.py) where it is shown to
#: give mistune's tokens; False: mistune alone (the reference the fast path is tested against)
FAST_PARSE = True
_FAST: Any = None  # (fastparse.parse_blocks, fastparse.render_inline), False without pyromark


def _parse_ast(lf_text: str) -> tuple[list, list[tuple[int, int]]]:
    """mistune-shaped tokens of an LF-normalised body (inline children parsed by gbrain's
    mistune inline parsers) and the sorted top-level opaque spans (fenced code, HTML blocks,
    ``$$`` math, ``%%`` comments) in character offsets. Blocks come from pulldown-cmark when
    :data:`FAST_PARSE` is on, pyromark is installed and the page holds nothing the fast path
    leaves to mistune; else from mistune's block parser."""
    global _FAST
    md = _markdown()
    if FAST_PARSE:
        if _FAST is None:
            try:
                from .fastparse import parse_blocks, render_inline

                _FAST = (parse_blocks, render_inline)
            except ImportError:
                _FAST = False
        if _FAST:
            fast = _FAST[0](lf_text if lf_text.endswith("\n") else lf_text + "\n")
            if fast is not None:
                blocks, fences = fast
                return _FAST[1](md, blocks, md.block.state_cls().env), fences
    state = md.block.state_cls()
    tokens, state = md.parse(lf_text, state)
    return tokens, sorted(state.env.get("opaque", []))


def unread_spans(body: str) -> list[tuple[int, int]]:
    """The spans ``(start, end)`` of a page body ``body`` (as stored: any line endings) in which
    the parser reads no link: its top-level opaque blocks as :func:`_parse_ast` records them
    (fenced code, HTML blocks, ``$$`` math, Obsidian ``%%`` comment blocks), sorted, in offsets
    of ``body``. The one definition of those blocks for a text scan that must skip what the
    parser skips (:func:`gbrain.page.linkedit.link_spans`). Costs one block parse of ``body``."""
    lf = to_lf(body)
    return stored_spans(body, lf, _parse_ast(lf)[1])


def stored_spans(body: str, lf: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``spans`` (offsets of ``lf``, the LF view of ``body``: :func:`to_lf`; as :func:`_parse_ast`
    gives them) as offsets of ``body``: what :func:`unread_spans` returns, for a caller that
    keeps the parse's tokens too."""
    if len(lf) == len(body) or not spans:
        return spans
    # an offset in the LF text moves on by one for each CRLF before it
    crlf, k = [], 0
    for m in re.finditer(r"\r\n", body):
        crlf.append(m.start() - k)  # the offset of its "\n" in the LF text
        k += 1
    return [(a + bisect.bisect_left(crlf, a), z + bisect.bisect_left(crlf, z)) for a, z in spans]


#: a line git writes around a conflict it left for the user (``git merge``/``pull``/``rebase``/
#: ``stash pop``, and diff3's ``|||||||`` base part between): seven ``<``, ``=`` or ``>`` alone,
#: ``<``/``>`` followed by a space and a name (``<<<<<<< HEAD``, ``>>>>>>> a1b2c3 (commit)``)
_CONFLICT_LINE_RE = re.compile(r"^(?:<{7}(?:[ \t][^\n]*)?|={7}[ \t]*|>{7}(?:[ \t][^\n]*)?)$", re.M)


def _conflict_line(fm_lf: str, body_lf: str, fences: list[tuple[int, int]]) -> int | None:
    """:func:`conflict_marker_line` over the LF-normalised frontmatter text ``fm_lf`` and body
    ``body_lf`` with the body's opaque spans ``fences`` (:func:`_parse_ast`, body offsets)."""
    whole = fm_lf + body_lf
    base = len(fm_lf)
    starts = [a + base for a, _ in fences]
    state, opened = 0, 0
    for m in _CONFLICT_LINE_RE.finditer(whole):
        at = m.start()
        j = bisect.bisect_right(starts, at) - 1
        if j >= 0 and at < fences[j][1] + base:
            continue  # inside fenced code, an HTML block, a comment: the note shows it, not git's
        ch = whole[at]
        if ch == "<" and state == 0:
            state, opened = 1, at
        elif ch == "=" and state == 1:
            state = 2
        elif ch == ">" and state == 2:
            return whole.count("\n", 0, opened) + 1
    return None


def conflict_marker_line(text: str) -> int | None:
    """The line (1-based, of ``text``: a whole page's text, any line endings, a BOM not counted)
    where an unresolved merge conflict that git left in it starts: a ``<<<<<<<`` line, later a
    ``=======`` line, later a ``>>>>>>>`` line (:data:`_CONFLICT_LINE_RE`; exactly seven), none
    of them inside the body's fenced code, HTML blocks, ``$$`` math or ``%%`` comments (a note
    about git shows them there), the frontmatter included. None when there is none. Pure; costs
    a block parse of the body only when the text holds ``<<<<<<<``."""
    if "<<<<<<<" not in text:
        return None
    rest = text[1:] if text.startswith(BOM) else text
    fm_raw, body, _w = split_frontmatter(rest)
    lf_body = to_lf(body)
    return _conflict_line(to_lf(fm_raw), lf_body, _parse_ast(lf_body)[1])


def conflict_warning(line: int) -> str:
    """The warning for a page whose text holds a merge conflict from ``line`` (1-based)."""
    return (f"unresolved merge conflict (git's <<<<<<< / ======= / >>>>>>> markers from line {line}): stored as written, "
            "markers and both sides read as text; keep the lines wanted, delete the markers and save")


# ---------------------------------------------------------------------------
# parsing
# ---------------------------------------------------------------------------


def to_lf(text: str) -> str:
    """``text`` with every line ending (``\\r\\n``, a lone ``\\r``) as ``\\n``: the one spelling of
    the LF view that the block parser, the timeline split, chunking and lint read. Offsets move
    back by one for each CRLF before them (:func:`unread_spans` maps them to the stored text)."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def split_lines(text: str) -> list[str]:
    """Lines with their own endings (``\\r\\n``, ``\\r`` or ``\\n``); ``''.join`` gives ``text`` back.

    Unlike ``str.splitlines`` it does not break on U+2028, form feeds or other Unicode separators.
    """
    return _LINE_RE.findall(text)


def _strip_eol(line: str) -> str:
    return line.rstrip("\r\n")


def split_frontmatter(text: str) -> tuple[str, str, str | None]:
    """Split ``text`` (BOM already removed) into ``(frontmatter_raw, body, warning)``.

    A frontmatter block opens with a first line that is exactly ``---`` and closes at the next
    line that is ``---`` or ``...`` (trailing blanks allowed). An unclosed block is no
    frontmatter: the whole text is body, and a warning says so.
    """
    m = _FM_OPEN_RE.match(text)
    if not m:
        return "", text, None
    c = _FM_CLOSE_RE.search(text, m.end())
    if not c:
        return "", text, "frontmatter opened with '---' but never closed; kept as body text"
    return text[: c.end()], text[c.end() :], None


def frontmatter_yaml(frontmatter_raw: str) -> str:
    """The YAML text between the delimiter lines of a frontmatter block."""
    lines = split_lines(frontmatter_raw)
    return "".join(lines[1:-1])


#: frontmatter nested deeper than this (flow ``[[[…]]]``, block indentation or a chain of aliases)
#: does not load: deeper data would overflow the Python stack of the loader, of the JSON
#: conversion or of ``json.dumps``/``json.loads`` of the stored frontmatter.
FM_MAX_DEPTH = 256
#: the loaded frontmatter may hold at most ``FM_BUDGET_BASE + 2 × len(yaml text)`` values and
#: string characters: YAML without aliases never comes near it, while aliases that expand
#: exponentially ("billion laughs") are refused before they are copied into the brain.
FM_BUDGET_BASE = 10_000


class FrontmatterUnloadable(ValueError):
    """Loaded YAML that gbrain refuses to convert: an alias that contains itself, nesting deeper
    than :data:`FM_MAX_DEPTH`, or aliases expanding past the size budget. ``str(e)`` is the
    reason, one line."""


def to_json_value(value: Any, *, budget: int | None = None) -> Any:
    """Convert a YAML-loaded value to plain JSON data without silent coercion.

    Dates and datetimes become ISO 8601 strings, binary becomes base64, sets become lists,
    non-finite floats become their YAML spelling (``.nan``/``.inf``), mapping keys become strings.
    ``budget`` bounds the result: every value counts 1 and every string (or key) its length; at
    most ``budget`` in all (``None``: no bound). Shared values (YAML aliases) count each time
    they appear. Raises :class:`FrontmatterUnloadable` for a value that contains itself, for
    nesting deeper than :data:`FM_MAX_DEPTH` and when the budget runs out.
    """
    left = [budget if budget is not None else -1]
    return _to_json(value, left, set(), 0)


def _spend(left: list[int], n: int) -> None:
    if left[0] < 0:
        return
    left[0] -= n
    if left[0] < 0:
        raise FrontmatterUnloadable("frontmatter YAML aliases expand to too much data (over the size budget)")


def _to_json(value: Any, left: list[int], path: set[int], depth: int) -> Any:
    # one Python frame per nesting level (no comprehensions): depth is bounded by FM_MAX_DEPTH
    _spend(left, 1)
    if isinstance(value, (dict, list, tuple, set, frozenset)):
        if depth >= FM_MAX_DEPTH:
            raise FrontmatterUnloadable(f"frontmatter YAML nests deeper than {FM_MAX_DEPTH} levels")
        if id(value) in path:
            raise FrontmatterUnloadable("frontmatter YAML has an alias that contains itself (recursive data)")
        path.add(id(value))
        try:
            if isinstance(value, dict):
                out: Any = {}
                for k, v in value.items():
                    key = _json_key(k)
                    _spend(left, len(key))
                    out[key] = _to_json(v, left, path, depth + 1)
                return out
            items = sorted(value, key=str) if isinstance(value, (set, frozenset)) else value
            out = []
            for v in items:
                out.append(_to_json(v, left, path, depth + 1))
            return out
        finally:
            path.discard(id(value))
    if isinstance(value, (_dt.datetime, _dt.date, _dt.time)):
        return value.isoformat()
    if isinstance(value, bytes):
        text = base64.b64encode(value).decode("ascii")
        _spend(left, len(text))
        return text
    if isinstance(value, float) and not math.isfinite(value):
        return ".nan" if math.isnan(value) else (".inf" if value > 0 else "-.inf")
    if isinstance(value, str):
        _spend(left, len(value))
        return value
    if value is None or isinstance(value, (int, float, bool)):
        return value
    text = str(value)
    _spend(left, len(text))
    return text


def _too_deep(src: str) -> bool:
    """True when the YAML event stream of ``src`` nests deeper than :data:`FM_MAX_DEPTH`.

    Checked before loading: the C loader crashes the process (not an exception) on some tens
    of thousands of levels. Each level needs one of ``[{-?:``, so short YAML skips the scan."""
    if sum(src.count(c) for c in "[{-?:") <= FM_MAX_DEPTH:
        return False
    from ruamel.yaml.error import YAMLError
    from ruamel.yaml.events import CollectionEndEvent, CollectionStartEvent

    depth = 0
    try:
        for ev in _SafeYAML.make().parse(src):
            if isinstance(ev, CollectionStartEvent):
                depth += 1
                if depth > FM_MAX_DEPTH:
                    return True
            elif isinstance(ev, CollectionEndEvent):
                depth -= 1
    except YAMLError:
        return False  # the load reports the syntax error itself
    return False


_DATES = (_dt.date, _dt.datetime)


def _flat_json(data: dict, budget: int) -> dict | None:
    """:func:`to_json_value` of ``data`` with ``budget`` for the common frontmatter (string keys;
    values strings, ints, bools, None, finite floats, dates, lists of strings; the exact types, no
    subclass), in one loop; ``None`` for any other shape, or when the budget would run out (the
    caller then converts with :func:`to_json_value`, which raises). ``tests/test_parse_speedups.py``
    compares the two."""
    spent = 1
    out = {}
    for k, v in data.items():
        if k.__class__ is not str:
            return None
        spent += len(k) + 1
        c = v.__class__
        if c is str:
            spent += len(v)
        elif c is list:
            for x in v:
                if x.__class__ is not str:
                    return None
                spent += len(x) + 1
            v = list(v)
        elif c in _DATES:
            v = v.isoformat()
        elif c is float:
            if not math.isfinite(v):
                return None
        elif not (v is None or c is int or c is bool):
            return None
        out[k] = v
    return out if spent <= budget else None


def _json_key(k: Any) -> str:
    if isinstance(k, str):
        return k
    if isinstance(k, (_dt.date, _dt.datetime)):
        return k.isoformat()
    if k is None:
        return "null"
    if isinstance(k, bool):
        return "true" if k else "false"
    return str(k)


def load_frontmatter(frontmatter_raw: str, not_dates: list[str] | None = None) -> tuple[dict, str | None]:
    """Load a frontmatter block as JSON-able data: ``(data, error)``.

    A value that looks like a date or timestamp but names none (``created: 2024-02-30``) is kept
    as the string written (Obsidian shows it as text) and appended to ``not_dates`` when given.

    On YAML that ruamel cannot load, or YAML that is not a mapping, returns ``({}, message)``;
    the caller keeps the raw text and reports the message as a warning. So does YAML that loads
    but is refused (:class:`FrontmatterUnloadable`): an alias that contains itself, nesting
    deeper than :data:`FM_MAX_DEPTH` levels, or aliases that expand past
    ``FM_BUDGET_BASE + 2 × len(yaml)`` values and characters ("billion laughs").
    """
    if not frontmatter_raw:
        return {}, None
    src = frontmatter_yaml(frontmatter_raw)
    if not src.strip():
        return {}, None
    from ruamel.yaml.error import YAMLError

    too_deep = f"frontmatter YAML does not load: it nests deeper than {FM_MAX_DEPTH} levels"
    if _too_deep(src):
        return {}, too_deep
    try:
        try:
            data = _quick_load(src)
        except _Unsure:
            data = _SafeYAML.load(src, not_dates)
    except RecursionError:  # the pure-Python loader, on nesting the C loader rejected
        return {}, too_deep
    except (YAMLError, ValueError, TypeError, AttributeError, LookupError) as e:  # ruamel raises several kinds
        problem = getattr(e, "problem", None) or (str(e).strip().splitlines() or [type(e).__name__])[0]
        if isinstance(e, LookupError):  # a tagged value its tag cannot read: !!bool "x", !!int ""
            problem = f"a value its tag cannot read ({type(e).__name__}: {problem})"
        mark = getattr(e, "problem_mark", None)
        where = f" (line {mark.line + 2}, column {mark.column + 1})" if mark is not None else ""
        return {}, f"frontmatter YAML does not load: {problem}{where}"
    if data is None:
        return {}, None
    if not isinstance(data, dict):
        return {}, f"frontmatter YAML is a {type(data).__name__}, not a mapping"
    try:
        budget = FM_BUDGET_BASE + 2 * len(src)
        flat = _flat_json(data, budget)
        out = to_json_value(data, budget=budget) if flat is None else flat
    except FrontmatterUnloadable as e:
        return {}, f"{e}; kept as written"
    return (_storable_json(out) if "\\" in src and _UNSTORABLE_ESCAPE.search(src) else out), None


#: a YAML double-quoted escape that may load to a character no engine stores in text (a NUL:
#: ``\0``, ``\x00``, ``\u0000``, ``\U00000000``; a lone surrogate ``\ud800``): the text itself
#: holds none (the YAML reader refuses a raw NUL), so only a frontmatter holding one is walked
_UNSTORABLE_ESCAPE = re.compile(r"\\[0xuU]")


def _storable_json(v: Any) -> Any:
    """Loaded frontmatter ``v`` (JSON data, at most :data:`FM_MAX_DEPTH` deep) with each NUL and
    lone surrogate of its strings and keys U+FFFD (:data:`gbrain.page.canvas.UNSTORABLE`, the
    canvas cards' rule): every derived value (title, tags, aliases, links, frontmatter JSON,
    search fields) is storable on both engines alike; the page text keeps its escape."""
    if isinstance(v, str):
        return storable(v)
    if isinstance(v, list):
        return [_storable_json(x) for x in v]
    if isinstance(v, dict):
        return {storable(k): _storable_json(x) for k, x in v.items()}
    return v


#: the frontmatter keys holding tags, in the order they are read: ``tag`` is the form Obsidian
#: deprecated (Obsidian Help, "Properties") and still reads
TAG_KEYS = ("tags", "tag")


def fm_keys(fm: Any, name: str) -> list:
    """The keys of the loaded frontmatter ``fm`` that are the property ``name`` (lowercase:
    ``tags``, ``tag``, ``aliases``, ``alias``) as Obsidian reads them, ignoring case (``Tags``,
    ``TAGS``): ``name`` itself first, then the other spellings in written order; ``[]`` for no
    mapping."""
    if not isinstance(fm, dict):
        return []
    return ([name] if name in fm else []) + [k for k in fm if k != name and isinstance(k, str) and k.casefold() == name]


#: what separates the tags of a tags string: a comma or white space, as Obsidian splits
#: ``tags: journal daily`` and ``tags: "#a #b"`` (a tag holds no blank)
_TAG_STRING_SEP = re.compile(r"[,\s]+")


def numeric_tag(name: str) -> bool:
    """Whether ``name`` (a tag without ``#``) holds nothing but digits and ``/``: no tag, inline
    (``#1984``, ``#2026/12``) or in the tags property (``tags: [2026]``), as Obsidian reads tags
    (Obsidian Help, "Tags": a tag must contain at least one non-numerical character)."""
    return all(c.isdigit() or c == "/" for c in name)


def tag_items(raw: Any, blanks: bool = False) -> list[str]:
    """The tags of one tag key's value (``list[str]``, as written): a list, a block list, or a
    string of tags separated by commas and/or white space (``journal, daily``, ``journal daily``,
    ``"#journal #daily"``); a leading ``#`` stripped; items that are null, mappings or lists
    skipped. A list item is one tag as written (white space and all). A template's placeholder
    (:func:`has_placeholder`: ``<% tp.file.folder() %>``, ``{{date:YYYY}}``) is no tag, nor is an
    item or word holding one (``year/<% tp.date.now("YYYY") %>``): the note the template makes
    gets the real value. A number (``tags: [2026]``, ``#1984`` in a string) is no tag either
    (:func:`numeric_tag`), as inline, nor is a list item holding a blank (``tags: [Nested
    Folder]``: Obsidian Help, "Tags": a tag can't contain blank spaces; ``blanks``: such items too,
    as written, for lint's respelling of them)."""
    if raw is None:
        return []
    if isinstance(raw, list):
        items = [x for x in raw if not (isinstance(x, str) and has_placeholder(x))]
    else:
        text = str(raw)
        if has_placeholder(text):  # each placeholder one word to drop, white space inside it and all
            text = _PLACEHOLDER_RE.sub("\x00", text)
        items = [x for x in _TAG_STRING_SEP.split(text) if "\x00" not in x]
    out: list[str] = []
    for item in items:
        if item is None or isinstance(item, (dict, list)):
            continue
        t = str(item).strip().lstrip("#").strip()
        if t and not numeric_tag(t) and (blanks or not _BLANK_RE.search(t)):
            out.append(t)
    return out


#: a blank inside a tag (a tags list item ``Nested Folder``): no tag then
_BLANK_RE = re.compile(r"\s")


def tags_from_frontmatter(fm: dict) -> list[str]:
    """Tags from ``tags:`` and then the singular ``tag:`` (:data:`TAG_KEYS`; each key ignoring
    case, as Obsidian reads it: ``Tags:``, :func:`fm_keys`), each as a list, a
    block list or a string separated by commas or white space (:func:`tag_items`; ``#``
    stripped); each spelling once, first first."""
    out: list[str] = []
    for name in TAG_KEYS:
        for key in fm_keys(fm, name):  # (``Tags``, ``TAGS``: Obsidian reads the key ignoring case)
            for t in tag_items(fm.get(key)):
                if t not in out:
                    out.append(t)
    return out


def merge_tags(*lists: list[str], key: Callable[[str], str] | None = None) -> list[str]:
    """One list of tags, first spelling of each identity (:func:`~gbrain.page.slugs.tag_identity`:
    NFC + lowercase; ``key`` another, an alias's) kept, in order."""
    key = key or tag_identity
    out: list[str] = []
    seen: set[str] = set()
    for lst in lists:
        for t in lst:
            k = key(t)
            if k not in seen:
                seen.add(k)
                out.append(t)
    return out


def aliases_from_frontmatter(fm: dict) -> list[str]:
    """A page's aliases, as Obsidian reads them: frontmatter ``aliases`` (or ``alias``).

    ``fm`` is the page's frontmatter as loaded (:func:`load_frontmatter`). Each key may hold a
    list or a single string, which is split at its commas as Obsidian splits it
    (``aliases: Apollo, Project Apollo`` is two aliases, ``alias: Draft,`` one; blanks split
    nothing, and a list item is one alias whatever it holds); both keys are read (``aliases``
    first; each ignoring case, ``Aliases``). Items are stripped; empty
    items and items that are not strings (numbers, mappings, nested lists, null) are skipped, as
    are repeats that differ only in case or Unicode normalisation (first spelling wins).
    Returns ``list[str]`` in written order, each alias exactly as written (stripped); never raises.
    """
    out: list[str] = []
    seen: set[str] = set()
    for key in [k for name in ("aliases", "alias") for k in fm_keys(fm, name)]:  # (``Aliases`` too)
        raw = fm.get(key)
        items = raw if isinstance(raw, list) else raw.split(",") if isinstance(raw, str) else [raw]
        for item in items:
            if not isinstance(item, str):
                continue
            a = item.strip()
            k = identity_key(a)
            if a and k not in seen:
                seen.add(k)
                out.append(a)
    return out


#: a Logseq property line (``key:: value``; the value may be empty)
_LOGSEQ_PROP_RE = re.compile(r"([A-Za-z][\w-]*)::(?:[ \t]*(.*?))?[ \t]*\r?(?:\n|\Z)")
#: one item of a Logseq property's value: a page reference (``[[a b]]``, ``#[[a b]]``) or
#: comma-separated text
_LOGSEQ_ITEM_RE = re.compile(r"[\s,]*(?:#?\[\[([^\[\]]+?)\]\]|([^,]+))")


def logseq_properties(body: str) -> dict[str, str]:
    """The page properties of a Logseq page: the ``key:: value`` lines that open ``body`` (the
    text after any YAML frontmatter), up to the first line that is not one. Returns
    ``{key lowercased: value stripped}`` (the first of a repeated key), ``{}`` when the body does
    not open with such a line (a block's properties, indented under a bullet, are none)."""
    out: dict[str, str] = {}
    pos = 0
    while pos < len(body):
        m = _LOGSEQ_PROP_RE.match(body, pos)
        if not m or m.end() == pos:
            break
        out.setdefault(m.group(1).lower(), (m.group(2) or "").strip())
        pos = m.end()
    return out


def logseq_items(value: str) -> list[str]:
    """The items of a Logseq property value (``tags:: a, [[b c]], #d``): page references by
    their name, the rest split at commas, ``#`` dropped, stripped, empty ones left out."""
    out: list[str] = []
    for m in _LOGSEQ_ITEM_RE.finditer(value):
        t = (m.group(1) or m.group(2) or "").strip().lstrip("#").strip()
        if t:
            out.append(t)
    return out


#: the end of a Notion export's file or folder name: a space and the page's 32-hex id
_NOTION_ID_RE = re.compile(r" [0-9a-f]{32}\Z")
#: a Notion page's opening: its ``# Title`` line, blank lines, then its property lines
#: (``Name: value``, one a line, up to a line that is none: a blank line, a heading, text)
_NOTION_HEAD_RE = re.compile(r"# [^\n]*\n(?:[ \t]*\n)*((?:[^\s#:][^\n:]{0,99}: [^\n]*(?:\n|\Z))+)")
_NOTION_PROP_RE = re.compile(r"([^\n:]+): ([^\n]*)")


def journal_name(path: str, property_syntax: str = "logseq") -> str | None:
    """The title Logseq shows for a journal page at ``path`` (``journals/2026_11_28.md`` →
    ``Nov 28th, 2026``; a graph's ``journals`` folder at any depth): its file name read as a day
    and written in its graph's title format (:func:`gbrain.page.journals.journal_title`), the
    formats carried by ``property_syntax`` (``logseq\\x1fTITLE\\x1fFILE``: :func:`gbrain.page.journals.join_formats`,
    :func:`page_property_syntax` from its graph's ``config.edn``), else Logseq's defaults
    (:data:`gbrain.page.journals.TITLE_FORMAT`, ``FILE_FORMAT``). :func:`parse_page` gives it
    only to a page read as a Logseq graph's. None for any other page."""
    if not path.endswith(".md"):
        return None
    from . import journals

    slug = path[:-3]
    if not property_syntax.endswith(journals.JOURNAL_MARK) and ("journals/" not in path or journals.graph_root(slug) is None):
        return None  # (a journal of a graph's own journals folder: its syntax says so, whatever the folder's name)
    _, fmt = journals.split_formats(property_syntax)
    return journals.journal_title(slug.rpartition("/")[2], *(fmt or ()))


_PCT_BYTE_RE = re.compile(r"%[0-9A-Fa-f]{2}")
#: a ``%XX`` of a control character (C0, DEL): kept encoded in a Logseq name (NUL: no Postgres
#: text holds one; a newline or tab: no title)
_PCT_CONTROL_RE = re.compile(r"%(?:[01][0-9A-Fa-f]|7[Ff])")


def _uri_decoded(text: str) -> str | None:
    """``text`` percent-decoded as JavaScript's ``decodeURIComponent`` does (UTF-8), or None where
    that throws (a ``%`` not followed by two hex digits, bytes that are no UTF-8)."""
    if "%" not in text:
        return text
    if re.search(r"%(?![0-9A-Fa-f]{2})", text):
        return None
    try:
        return unquote(text, errors="strict")
    except UnicodeDecodeError:
        return None


def _pct_one(m: re.Match) -> str:
    """One ``%XX`` decoded alone, as Logseq's ``safe-url-decode`` of it: an ASCII character; a byte
    of a multi-byte character (no UTF-8 alone) or a control character kept as written."""
    code = int(m.group(0)[1:], 16)
    return chr(code) if 0x20 <= code < 0x7F else m.group(0)


def logseq_page_name(name: str, name_format: str) -> str:
    """The page name Logseq reads from the file name ``name`` (without ``.md``) of a page in a graph
    whose ``:file/name-format`` is ``name_format`` (:func:`gbrain.page.journals.name_format`), as
    Logseq's ``title-parsing`` does: ``triple-lowbar``: ``___`` is ``/``, then each ``%XX`` decoded
    alone (an ASCII character; a byte of a multi-byte character is kept, as Logseq's decoding of it
    fails), empty namespaces dropped (``Project___Alpha`` → ``Project/Alpha``, ``What%3F`` →
    ``What?``); ``legacy``: ``.`` is ``/``, then the whole name percent-decoded where it decodes
    (``Project.Alpha``, ``Project%2FAlpha`` → ``Project/Alpha``). Unlike Logseq, a control
    character's ``%XX`` (``%00``, ``%0A``) stays encoded. ``name`` itself where that leaves
    nothing. Pure; never raises."""
    if name_format == "triple-lowbar":
        out = _PCT_BYTE_RE.sub(_pct_one, name.replace("___", "/")) if "%" in name or "___" in name else name
        out = "/".join(part for part in out.split("/") if part) if "/" in out else out
    else:
        dotted = name.replace(".", "/")
        out = _uri_decoded(_PCT_CONTROL_RE.sub(lambda m: "%25" + m.group(0)[1:], dotted))
        out = dotted if out is None else out
    return out if out.strip() else name


def notion_name(path: str) -> str:
    """The file name of ``path`` without ``.md`` and, when it has the shape Notion's export gives
    every page (``Project Plan 1a2b…6d.md``: a space and 32 lowercase hex digits before ``.md``),
    without that id: the name Notion shows (``Project Plan``). Other names are :func:`stem`."""
    name = stem(path)
    m = _NOTION_ID_RE.search(name) if len(name) > 33 else None
    return name[: m.start()] if m and m.start() else name


def notion_properties(body: str, path: str) -> dict[str, str]:
    """The properties of a page of a Notion export (its file name ends with Notion's id,
    :func:`notion_name`): the ``Name: value`` lines right after the ``# Title`` that opens
    ``body`` (``\\n`` line ends), as ``{name lowercased: value stripped}`` (the first of a repeated
    name). ``{}`` for any other page or opening (a Notion page with no properties, a vault file
    whose name merely ends in hex but is not Notion's shape)."""
    if not body.startswith("# ") or notion_name(path) == stem(path):
        return {}
    m = _NOTION_HEAD_RE.match(body)
    out: dict[str, str] = {}
    for line in (m.group(1).splitlines() if m else ()):
        p = _NOTION_PROP_RE.match(line)
        if p:
            out.setdefault(p.group(1).strip().lower(), p.group(2).strip())
    return out


#: one item of a Notion relation property: ``Acme (../Companies%20<id>/Acme%20<id>.md)``, the
#: related page's name and its path, percent-encoded, ending with Notion's id (items joined by ``, ``)
_NOTION_RELATION_RE = re.compile(r"(?:(?<=^)|(?<=, ))([^()\n]+?) \(([^()\n]*?(?:%20| )[0-9a-f]{32}\.md)\)(?=, |$)")


def notion_relation_links(body: str, path: str) -> list["Link"]:
    """The links of a Notion page's relation properties (:func:`notion_properties`: the property
    lines of a page of Notion's shape): each item ``Name (path.md)`` whose path ends with Notion's
    id, a space (``%20``) and 32 hex digits, is a markdown link to that path (percent-decoded,
    relative to the page, as a link in the text is), ``Name`` its text, the property's line its
    context; in the order written. Any other value (``Status: Done (see notes.md)``) links nothing."""
    out: list[Link] = []
    for line, _at, p in _notion_relation_lines(body, path):
        shown = None
        for r in _NOTION_RELATION_RE.finditer(p.group(2).strip()):
            target = _link_from_url(r.group(2))
            if target:
                if shown is None:  # the line as Notion shows it: each item's name, not its path
                    value = _NOTION_RELATION_RE.sub(lambda x: x.group(1) if _link_from_url(x.group(2)) else x.group(0), p.group(2).strip())
                    context = " ".join((p.group(1) + ": " + value).split())
                    shown = context if len(context) <= CONTEXT_MAX else context[: CONTEXT_MAX - 3] + "..."
                label = link_label(r.group(1), target)
                out.append(Link(kind="markdown", target=target, text=r.group(1).strip(), context=shown, forms=["(" + r.group(2) + ")"], labels=[label] if label else []))
    return out


def _notion_relation_lines(body: str, path: str):
    """``(line, offset in body, property match)`` of each property line of a Notion page's opening
    (``body``: ``\\n`` line ends) that may hold a relation (``.md)``)."""
    if not body.startswith("# ") or notion_name(path) == stem(path):
        return
    m = _NOTION_HEAD_RE.match(body)
    if not m:
        return
    at = m.start(1)
    for line in m.group(1).splitlines(keepends=True):
        p = _NOTION_PROP_RE.match(line)
        if p and ".md)" in line:
            yield line, at, p
        at += len(line)


def notion_relation_spans(text: str, path: str) -> list[tuple[int, int]]:
    """The spans of ``text`` (a page's compiled truth, any line ends) holding the path of a Notion
    relation item (:func:`notion_relation_links`: ``Acme (../Companies%20<id>/Acme%20<id>.md)``,
    the part in parentheses, with them): an address a reader does not read, as a markdown link's URL; ``[]``
    for a page not of Notion's shape or with no relation."""
    if ".md)" not in text or not text.startswith("# "):
        return []
    lf = to_lf(text)
    spans = []
    for _line, at, p in _notion_relation_lines(lf, path):
        value = p.group(2)
        value_at = at + p.start(2) + len(value) - len(value.lstrip())
        for r in _NOTION_RELATION_RE.finditer(value.strip()):
            if _link_from_url(r.group(2)):
                spans.append((value_at + r.start(2) - 1, value_at + r.end(2) + 1))  # (its parentheses too)
    if spans and len(lf) != len(text):  # back to the stored text's offsets: one more per CRLF before
        lf_at = [m.start() - k for k, m in enumerate(re.finditer("\r\n", text))]  # each CRLF's LF offset
        spans = [(a + bisect.bisect_right(lf_at, a - 1), z + bisect.bisect_right(lf_at, z - 1)) for a, z in spans]
    return spans


def _notion_tags_line(body: str, path: str) -> tuple[list[str], int, int, int | None] | None:
    """``(split_lines(body), index of the first property line, of the last, of the Tags: line or
    None)`` of a page read as a Notion export's with properties (:func:`notion_properties`), else
    None. Lines end at ``\n``, ``\r\n`` or ``\r`` only (not ``str.splitlines``: a value may hold a
    form feed or U+2028)."""
    lf = to_lf(body)
    if not notion_properties(lf, path):
        return None
    m = _NOTION_HEAD_RE.match(lf)
    first = lf.count("\n", 0, m.start(1))
    props = m.group(1).removesuffix("\n").split("\n")
    at = next((first + k for k, ln in enumerate(props) if (p := _NOTION_PROP_RE.match(ln)) and p.group(1).strip().lower() == "tags"), None)
    return split_lines(body), first, first + len(props) - 1, at


def notion_tag_added(body: str, path: str, tag: str) -> str | None:
    """``body`` (a page's body, any line ends) with ``tag`` written as Notion writes a tag: one more
    item of its ``Tags:`` property line (``Tags: infra, q3`` → ``Tags: infra, q3, urgent``), or a
    ``Tags: urgent`` line after its last property line when it has none. None when the page is
    not read as a Notion export's with properties (:func:`notion_properties` empty): a page that is
    takes its tags there, since a frontmatter block above it would end that reading (its ``Tags:``
    line and relation properties would tag and link nothing: trial 57)."""
    found = _notion_tags_line(body, path)
    if found is None:
        return None
    lines, _first, last, at = found
    if at is not None:
        line = lines[at]
        text = line.rstrip("\r\n")
        name, _, value = text.partition(": ")
        value = re.sub(r"[\s,]+\Z", "", value)  # (``Tags: a,``, ``a, \u00a0,``: after its last item, one separator: not ``a,, b``)
        lines[at] = f"{name}: {value + ', ' if value else ''}{tag}" + line[len(text):]
    else:
        line = lines[last]
        end = line[len(line.rstrip("\r\n")):]
        nl = end or ("\r\n" if "\r\n" in body else "\n")
        lines[last] = line + ("" if end else nl)
        lines.insert(last + 1, f"Tags: {tag}" + end)
    return "".join(lines)


def notion_tag_removed(body: str, path: str, drop) -> str | None:
    """``body`` (a page's body, any line ends) without the items of its Notion ``Tags:`` line that
    ``drop(item)`` selects (``Tags: infra, q3`` → ``Tags: q3``), and without the line when none is
    left (undoing :func:`notion_tag_added`, a page's last line's missing line end too). None when
    the page is not read as a Notion export's (:func:`notion_properties`) or its ``Tags:`` line
    holds no such item. Untag's edit of such a page (review of trial 57)."""
    found = _notion_tags_line(body, path)
    if found is None or found[3] is None:
        return None
    lines, _first, _last, at = found
    line = lines[at]
    text = line.rstrip("\r\n")
    name, _, value = text.partition(": ")
    items = notion_items(value)
    keep = [t for t in items if not drop(t)]
    if len(keep) == len(items):
        return None
    if keep:
        lines[at] = f"{name}: {', '.join(keep)}" + line[len(text):]
    else:
        del lines[at]
        if text == line and at == len(lines):  # the page's last line had no line end: neither has the one before it now
            lines[at - 1] = lines[at - 1].rstrip("\r\n")
    return "".join(lines)


def notion_items(value: str) -> list[str]:
    """The items of a Notion multi-select value (``Tags: infra, q3``): split at ``, ``, stripped,
    empty ones left out."""
    return [t for t in (v.strip() for v in value.split(",")) if t]


def find_separator(body: str, fences: list[tuple[int, int]], *, has_frontmatter: bool, rule: str = "rule") -> int:
    """Index of the line in ``split_lines(body)`` that separates compiled truth from timeline, or -1.

    ``rule``: the first line that is exactly ``---`` outside fenced code, HTML blocks and comments,
    ``$$`` math and ``%%`` comments (``fences``: their spans from mistune, in LF-normalised
    offsets, sorted), and not below a ``%%`` left open above it (Obsidian's inline comment runs
    to the next ``%%`` or the end of the note: :func:`_in_inline_comment`). ``heading``: the same, but only when the next non-blank line is a
    ``## Timeline`` or ``## History`` heading. Without frontmatter, a ``---`` on the very first
    line is not a separator (it is an unclosed frontmatter opener).
    Raises ``ValueError`` for an unknown ``rule``.
    """
    return _separator_at(body, fences, has_frontmatter, rule)[0]


def _separator_at(body: str, fences: list[tuple[int, int]], has_frontmatter: bool, rule: str) -> tuple[int, int]:
    """:func:`find_separator`'s line index and the offset of that line in ``to_lf(body)`` (the
    body's own offset when it holds no CRLF): ``(-1, -1)`` when there is none."""
    if rule not in SPLIT_RULES:
        raise ValueError(f"timeline_split must be one of {SPLIT_RULES}, got {rule!r}")
    if "---" not in body:
        return -1, -1
    # the LF-normalised body has the lines of split_lines(body), each without its ending, and
    # the offsets of ``fences``; its ``---`` lines are found by str.find, not line by line
    lf = to_lf(body)
    fence_starts = [a for a, _ in fences]
    pct = "%%" in lf
    i = 0  # the line index of ``line`` (the count of line breaks before it)
    counted = 0
    pos = lf.find("---")
    while pos >= 0:
        if (pos == 0 or lf[pos - 1] == "\n") and (pos + 3 == len(lf) or lf[pos + 3] == "\n"):
            i += lf.count("\n", counted, pos)
            counted = pos
            j = bisect_right(fence_starts, pos) - 1
            if (i > 0 or has_frontmatter) and not (j >= 0 and fences[j][0] <= pos < fences[j][1]) \
                    and not (pct and _in_inline_comment(lf, pos, fences)):
                if rule == "rule":
                    return i, pos
                nxt = next((x for x in lf[pos + 4 :].split("\n") if x.strip()), "")
                if _TIMELINE_HEADING_RE.match(nxt):
                    return i, pos
        pos = lf.find("---", pos + 3)
    return -1, -1


def _in_inline_comment(lf: str, pos: int, fences: list[tuple[int, int]]) -> bool:
    """Whether the line at ``pos`` of the LF body ``lf`` lies inside an Obsidian ``%%`` comment
    opened in a line above (one runs to the next ``%%`` or the end of the note: Obsidian hides a
    ``---`` there), as the page model reads links (:func:`comment_open_at_end` over the text
    above: a ``%%`` in code, HTML or a link's label opens none). ``fences``: the opaque spans (a
    ``%%`` comment block is one). A block parse of the text above only where a ``%%`` stands
    there outside them."""
    at = lf.find("%%", 0, pos)
    starts = [a for a, _ in fences]
    while at >= 0:
        j = bisect_right(starts, at) - 1
        if j >= 0 and at < fences[j][1]:
            at = lf.find("%%", fences[j][1], pos)
            continue
        return comment_open_at_end(lf[:pos])
    return False


_FENCE_RE = re.compile(r"(`{3,}|~{3,})")
_EM_DASH = "\u2014"


def parse_timeline_entries(timeline: str) -> list[TimelineEntry]:
    """Timeline entries from ``- **YYYY-MM-DD** | source — summary`` lines.

    The source is the text before the first em dash (when short and link-free), the summary the
    rest; without an em dash the source is empty. Indented lines that follow form the detail.
    Lines inside fenced code are skipped. Format: GBrain spec, "Parse timeline lines".
    """
    entries: list[TimelineEntry] = []
    # the lines of split_lines(timeline) without their endings (one pass over the text)
    lines = to_lf(timeline).split("\n")
    if not lines[-1]:
        lines.pop()
    in_fence = ""
    cur: TimelineEntry | None = None
    detail: list[str] = []
    match_line = _TIMELINE_ITEM_RE.match  # (``lines`` hold no line break)
    for ln in lines:
        if in_fence:
            if ln.lstrip(" ").startswith(in_fence):
                in_fence = ""
            if cur is not None:
                detail.append(ln)
            continue
        first = ln[:1]
        fm = None
        if first in _FENCE_FIRST:  # a fence may open here (up to 3 spaces before it)
            stripped = ln.lstrip(" ")
            if stripped.startswith(("```", "~~~")):
                fm = _FENCE_RE.match(stripped)
                if len(ln) - len(stripped) <= 3 and cur is None:
                    in_fence = fm.group(1)  # type: ignore[union-attr]
                    continue
        m = match_line(ln) if first in _ITEM_FIRST else None
        if m is not None:
            if cur is not None:
                _close_entry(cur, detail, entries)
                detail = []
            date, rest = m.group(1, 2)
            rest = rest.rstrip(" \t")  # (as _TIMELINE_LINE_RE's group 2)
            source, summary = "", rest
            if _EM_DASH in rest:
                before, after = rest.split(_EM_DASH, 1)
                if len(before.strip()) <= 60 and "[" not in before:
                    source, summary = before.strip(), after.strip()
            cur = TimelineEntry(date, source, summary.strip())
            continue
        if cur is not None:
            if first in _INDENT and ln.strip():
                if fm:
                    in_fence = fm.group(1)
                detail.append(ln)
                continue
            if not ln.strip():
                detail.append(ln)
                continue
            _close_entry(cur, detail, entries)
            cur, detail = None, []
    if cur is not None:
        _close_entry(cur, detail, entries)
    return entries


_FENCE_FIRST = frozenset(" `~")
_ITEM_FIRST = frozenset("-*+")
_INDENT = frozenset(" \t")


def _close_entry(cur: TimelineEntry, detail: list[str], entries: list[TimelineEntry]) -> None:
    while detail and not detail[-1].strip():
        detail.pop()
    if detail:
        cur.detail = _dedent(detail)
    entries.append(cur)


def _dedent(lines: list[str]) -> str:
    body = [ln.expandtabs(4) for ln in lines]
    indents = [len(ln) - len(ln.lstrip(" ")) for ln in body if ln.strip()]
    cut = min(indents) if indents else 0
    return "\n".join(ln[cut:] if ln.strip() else "" for ln in body).strip("\n")


# ---- links -----------------------------------------------------------------

_INLINE_CONTAINERS = {"paragraph", "heading", "block_text"}


def _plain(children: list, out: list[str], found: list[tuple[dict, int, int]], pos: int = 0,
           marks: "list[int] | None" = None, breaks: "list[int] | None" = None) -> int:
    """Append the plain text of inline ``children`` to ``out``; record links with their span,
    in ``marks`` where each ``%%`` of a text token (not of code, HTML or a link's label)
    starts, and in ``breaks`` where each line break (a space in the text) is. Returns the new
    text length (``pos`` is the length so far)."""
    for tok in children:
        t = tok.get("type")
        start = pos
        if t in ("text", "codespan", "inline_html"):
            s = tok.get("raw", "")
            if t == "text" and marks is not None and "%%" in s:
                marks.extend(pos + m.start() for m in _PCT_RE.finditer(s))
        elif t in ("softbreak", "linebreak"):
            s = " "
            if breaks is not None:
                breaks.append(pos)
        elif t == "wikilink":
            a = tok["attrs"]
            s = a["alias"] or a["target"]
            found.append((tok, start, start + len(s)))
        elif t == "link":
            ch = tok.get("children", [])
            if len(ch) == 1 and ch[0].get("type") == "text":  # a label of plain text: no recursion
                s = ch[0].get("raw", "")
                out.append(s)
                pos += len(s)
            else:
                pos = _plain(ch, out, [], pos)
            found.append((tok, start, pos))
            continue
        elif "children" in tok:
            pos = _plain(tok["children"], out, found, pos, marks, breaks)
            continue
        else:
            s = tok.get("raw", "")
        out.append(s)
        pos += len(s)
    return pos


CONTEXT_MAX = 300  #: characters of a link's context (longer sentences are cut, "..." added)


def _with_breaks(text: str, breaks: list[int]) -> str:
    """``text`` with its line breaks (positions ``breaks``: spaces :func:`_plain` wrote for them)
    as ``\n`` again, for :class:`_Sentences` to see a table row's line (the same length: every
    span stays where it is, and a context squeezes white space alike)."""
    chars = list(text)
    for i in breaks:
        chars[i] = "\n"
    return "".join(chars)


class _Sentences:
    """The sentences of one paragraph's plain ``text`` (split after ``.``, ``!`` or ``?`` and
    whitespace, and around a table row's line: :data:`_SENTENCE_END_RE`), found once for all of its links: :meth:`around` is O(log n + the context), so a
    paragraph of n links costs O(n log n), not O(n²) (a note of 5,000 lines, each with a link and
    no full stop, took minutes)."""

    __slots__ = ("text", "starts", "ends")

    def __init__(self, text: str) -> None:
        self.text = text
        ms = list(_SENTENCE_END_RE.finditer(text))
        self.starts = [m.start() for m in ms]
        self.ends = [m.end() for m in ms]

    def around(self, start: int, end: int) -> str:
        """The sentence holding the span ``[start, end)``, whitespace runs as one space, at most
        :data:`CONTEXT_MAX` characters (a longer one: its first 297 and ``...``)."""
        i = bisect.bisect_right(self.ends, start) - 1
        lo = self.ends[i] if i >= 0 else 0
        j = bisect.bisect_left(self.starts, end)
        hi = self.starts[j] if j < len(self.starts) else len(self.text)
        return _squeezed(self.text, lo, hi)


def _context_of_one(text: str, start: int, end: int) -> str:
    """``_Sentences(text).around(start, end)`` for a paragraph of one link: the sentence ends are
    read only up to the link's sentence's end (no lists of them, no bisection)."""
    lo, hi = 0, len(text)
    for m in _SENTENCE_END_RE.finditer(text):
        if m.start() >= end:  # (the first end at or after the link: bisect_left(starts, end))
            hi = m.start()
            break
        if m.end() <= start:  # (the last end at or before it: bisect_right(ends, start) - 1)
            lo = m.end()
    return _squeezed(text, lo, hi)


def _squeezed(text: str, lo: int, hi: int) -> str:
    """``text[lo:hi]``, whitespace runs as one space, at most :data:`CONTEXT_MAX` characters (a
    longer one: its first 297 and ``...``)."""
    # only as much of the sentence as the context can show: the squeezed text of a prefix is
    # a prefix of the whole sentence squeezed, so once it is over the limit the cut is known
    n = 4 * CONTEXT_MAX
    while True:
        cut = min(hi, lo + n)
        s = " ".join(text[lo:cut].split())
        if len(s) > CONTEXT_MAX:
            return s[: CONTEXT_MAX - 3] + "..."
        if cut == hi:
            return s
        n *= 4


@functools.lru_cache(maxsize=1 << 14)  # a page's links repeat across the pages of a brain
def _link_from_url(url: str) -> str | None:
    """The page path a markdown link URL points at, or None for external URLs and attachments."""
    url = url.strip()
    if url.startswith("<") and url.endswith(">"):
        url = url[1:-1]
    if not url or url.startswith("#") or url.startswith("//") or _SCHEME_RE.match(url):
        return None
    url = url.split("#", 1)[0].split("?", 1)[0]
    url = unquote(url)
    if not url:
        return None
    return _page_target(url)


def _page_target(target: str) -> str | None:
    target = target.strip()
    if not target:
        return None
    base = posixpath.basename(target)
    if "." in base:
        ext = base.rsplit(".", 1)[1].lower()
        if ext == "md":
            return target[:-3]
        if ext in ATTACHMENT_EXTS:
            return None
    return target


def _heading_text(tok: dict) -> str:
    out: list[str] = []
    _plain(tok.get("children", []), out, [])
    return "".join(out).strip()


class _LinkSet:
    """The links of one page, de-duplicated as they are found (first occurrence wins; ``count``
    and ``forms`` gather the repeats). A repeat costs a dictionary look-up: no context, no
    :class:`Link` (a page of 1.5 million ``[[x]]`` built one of each per link: 123 s, 2.3 GB)."""

    __slots__ = ("links", "seen", "forms", "keys", "comment")

    def __init__(self) -> None:
        self.comment = False  # inside an inline ``%% … %%`` comment opened in an earlier block
        self.links: list[Link] = []
        self.seen: dict[str, Link] = {}  # Link.key() -> its first occurrence
        self.forms: dict[str, set[str]] = {}  # Link.key() -> its forms, for a set look-up
        self.keys: dict[tuple[str, str], str] = {}  # (family, target) -> Link.key(), memo

    def key(self, kind: str, target: str) -> str:
        """:meth:`Link.key` of a link of ``kind`` to ``target``, worked out once per pair."""
        fam = link_family(kind)
        k = self.keys.get((fam, target))
        if k is None:
            k = self.keys[(fam, target)] = _family_key(fam, target)
        return k

    def repeat(self, kind: str, target: str, form: str, label: str = "") -> str | None:
        """Count an occurrence of a link already seen (``None``; its ``label``, as written,
        gathered: :meth:`Link.add_label`); for a first one, the key to pass to :meth:`add` with
        its :class:`Link`."""
        k = self.key(kind, target)
        first = self.seen.get(k)
        if first is None:
            return k
        first.count += 1
        if label and len(first.labels) < LABELS_MAX:
            first.add_label(link_label(label, target))
        forms = self.forms[k]
        if form not in forms:
            forms.add(form)
            first.forms.append(form)
        return None

    def add(self, key: str, link: Link) -> None:
        """Record the first occurrence of a link (``key`` from :meth:`repeat`)."""
        self.seen[key] = link
        self.forms[key] = set(link.forms)
        self.links.append(link)


@functools.lru_cache(maxsize=1 << 14)  # a brain's pages link the same targets
def _family_key(fam: str, target: str) -> str:
    """:meth:`Link.key` of a link of family ``fam`` to ``target``."""
    return fam + ":" + identity_key(target)


def _walk(tokens: list, links: _LinkSet, headings: list[tuple[int, str]]) -> None:
    wiki_targets: dict[str, str | None] = {}  # a wiki link's target as written -> page target
    for tok in tokens:
        t = tok.get("type")
        if t in ("block_code", "block_html"):
            continue
        if t in _INLINE_CONTAINERS:
            children = tok.get("children", [])
            if len(children) == 1 and children[0].get("type") == "text":  # plain text, no link
                raw = children[0].get("raw", "")
                if t == "heading":
                    headings.append((tok["attrs"]["level"], raw.strip()))
                if "%%" in raw and len(_PCT_RE.findall(raw)) % 2:
                    links.comment = not links.comment
                continue
            out: list[str] = []
            found: list[tuple[dict, int, int]] = []
            marks: list[int] = []
            breaks: list[int] = []
            _plain(children, out, found, 0, marks, breaks)
            text = "".join(out)
            if t == "heading":
                headings.append((tok["attrs"]["level"], text.strip()))
            was_comment = links.comment
            if marks or links.comment:
                found = _outside_comments(found, marks, links)
            if not found:
                continue
            ctx_text = _with_breaks(text, breaks) if breaks and "|" in text else text
            if marks or was_comment or "^" in text or "[!" in text:
                ctx_text = _read_text(ctx_text, marks, was_comment, breaks)
            # one link (most paragraphs): its sentence read directly; more: every end found once
            sentences = _Sentences(ctx_text) if len(found) > 1 else None
            for ltok, s, e in found:
                if ltok["type"] == "wikilink":
                    a = ltok["attrs"]
                    written = a["target"]
                    if written in wiki_targets:
                        target = wiki_targets[written]
                    else:
                        target = wiki_targets[written] = _wiki_page(written)
                    if target is None:
                        continue
                    kind = "embed" if a["embed"] else "wiki"
                    form = ("![[" if a["embed"] else "[[") + written + "]]"
                    alias = a["alias"]
                    key = links.repeat(kind, target, form, alias)
                    if key is None:
                        continue
                    label = alias or written
                else:
                    url = ltok.get("attrs", {}).get("url", "")
                    target = _link_from_url(url)
                    if target is None:
                        continue
                    kind = "markdown"
                    form = "(" + url + ")"
                    key = links.repeat(kind, target, form, text[s:e])
                    if key is None:
                        continue
                    label = text[s:e]
                context = _context_of_one(ctx_text, s, e) if sentences is None else sentences.around(s, e)
                shown = link_label(label, target) if kind == "markdown" or alias else ""
                links.add(key, Link(kind, target, label, context, 1, [form], [shown] if shown else []))
        elif "children" in tok:
            _walk(tok["children"], links, headings)


_PCT_RE = re.compile("%%")
#: what a reader of a paragraph does not read, on its lines: an Obsidian block id (`` ^id``
#: ending a line, or alone on it) and a callout's marker opening one (``[!warning]-``)
_UNREAD_IN_LINE_RE = re.compile(r"(?m)(?:(?<=[ \t])|^)\^[A-Za-z0-9-]+(?=[ \t]*$)|^[ \t]*\[![^\]\n]*\][+-]?")


def _read_text(text: str, marks: list[int], comment: bool, breaks: list[int]) -> str:
    """A paragraph's plain ``text`` as a link's context reads it (trial 45): its inline ``%%``
    comments (``marks``; ``comment``: one open from an earlier block) and, on its lines
    (``breaks``), block ids and a callout's marker blanked, each character a space, so every
    span stays where it is."""
    chars = list(text)
    if marks or comment:
        at = 0
        for m in [*marks, len(text)]:
            if comment:
                chars[at:m] = " " * (m - at)
            chars[m:m + 2] = " " * len(chars[m:m + 2])
            at, comment = m + 2, not comment
    lined = _with_breaks(text, breaks) if breaks else text
    for m in _UNREAD_IN_LINE_RE.finditer(lined):
        chars[m.start():m.end()] = " " * (m.end() - m.start())
    return "".join(chars)


def _outside_comments(found: list[tuple[dict, int, int]], marks: list[int], links: _LinkSet) -> list[tuple[dict, int, int]]:
    """The links of ``found`` outside inline Obsidian comments (``a %%[[hidden]]%% b``): each
    ``%%`` of ``marks`` opens or closes one, and one left open runs on into the next blocks
    (``links.comment``), as :func:`extract_inline_tags` hides tags (``_COMMENT_RE``)."""
    keep = []
    i = 0
    for ltok, s, e in found:
        while i < len(marks) and marks[i] < s:
            links.comment = not links.comment
            i += 1
        if not links.comment:
            keep.append((ltok, s, e))
    if (len(marks) - i) % 2:
        links.comment = not links.comment
    return keep


def _wiki_page(written: str) -> str | None:
    """The page target of a wiki link's target part as the parser reads it (``Note#Heading``,
    ``Note#^block``, ``Note.md``: ``Note``; split at the first ``#`` only, as Obsidian's
    parseLinktext: ``x^y`` names the note ``x^y``), or None (empty, an attachment)."""
    target = written.split("#", 1)[0].strip()
    return _page_target(target) if target else None


#: a wiki link as the wiki-link rule of :mod:`gbrain.page.mdparse` reads it (``_WIKI_PATTERN``)
_WIKI_RE = re.compile(r"(!?)\[\[([^\[\]\n]+?)\]\]")


def property_links(fm: dict) -> list[Link]:
    """The links of a loaded frontmatter (:func:`load_frontmatter`): every wiki link
    (``[[A]]``, ``[[A|alias]]``, ``[[A#Heading]]``, ``[[A#^block]]``, ``![[A]]``) inside a string
    value, at the top level, in a list or in a nested mapping, in document order, read as the
    body's wiki links are (a target, an alias, a ``\\|`` escape; attachments are no links).
    Each is a :class:`Link` of kind :data:`PROPERTY` whose ``context`` is the property's name
    (a nested one dotted: ``project.lead``) and the string holding it, whitespace squeezed, at
    most :data:`CONTEXT_MAX` characters: ``related: [[Acme Corp]]``. Keys, numbers, dates and
    markdown links (``[x](a.md)``: Obsidian reads none in properties) give none. Not
    deduplicated (:func:`dedupe_links`). ``fm`` is bounded by the load's alias budget and depth
    limit; the walk is iterative."""
    out: list[Link] = []
    stack: list[tuple[str, object]] = [(str(k), v) for k, v in reversed(list(fm.items()))]
    while stack:
        name, v = stack.pop()
        if isinstance(v, str):
            if "[[" not in v:
                continue
            context = None
            for m in _WIKI_RE.finditer(v):
                written, _, alias = m.group(2).partition("|")
                written = written.rstrip("\\").strip()
                target = _wiki_page(written)
                if target is None:
                    continue
                if context is None:
                    context = " ".join(f"{name}: {v}".split())
                    if len(context) > CONTEXT_MAX:
                        context = context[: CONTEXT_MAX - 3] + "..."
                form = m.group(1) + "[[" + written + "]]"
                shown = link_label(alias, target)
                out.append(Link(kind=PROPERTY, target=target, text=alias.strip() or written, context=context, forms=[form], labels=[shown] if shown else []))
        elif isinstance(v, list):
            stack.extend((name, x) for x in reversed(v))
        elif isinstance(v, dict):
            stack.extend((f"{name}.{k}", x) for k, x in reversed(list(v.items())))
    return out


def map_strings(v: Any, fn: Callable[[str], str]) -> Any:
    """Loaded frontmatter ``v`` (JSON-able, as :func:`load_frontmatter` gives it) with ``fn``
    applied to every string value (not to keys), in lists and mappings at any depth (a loaded
    frontmatter is a tree at most :data:`FM_MAX_DEPTH` deep: the load refuses deeper or recursive
    YAML)."""
    if isinstance(v, str):
        return fn(v)
    if isinstance(v, list):
        return [map_strings(x, fn) for x in v]
    if isinstance(v, dict):
        return {k: map_strings(x, fn) for k, x in v.items()}
    return v


#: a ``/`` of a Bear link that parts the note from its heading (not one escaped ``\/``)
_BEAR_PART_RE = re.compile(r"(?<!\\)/")


def bear_note(target: str) -> str:
    """The note a Bear wiki link's ``target`` names: ``Roadmap/Q3 goals`` → ``Roadmap`` (the last
    unescaped ``/`` parts the note from its heading), ``TCP\\/IP`` → ``TCP/IP``; ``target`` itself
    when it names no note (``/Heading``)."""
    parts = _BEAR_PART_RE.split(target)
    note = ("/".join(parts[:-1]) if len(parts) > 1 else parts[0]).replace("\\/", "/").strip()
    return note or target


def bear_heading_links(links: list[Link]) -> list[Link]:
    """``links`` as Bear reads its wiki links (``tag_syntax bear``): ``[[Note/Heading]]`` links a
    heading of the note ``Note``, so its target is the note (the last unescaped ``/`` parts them,
    as Bear's own links do; a ``\\/`` is a slash of the title: ``[[TCP\\/IP]]`` is ``TCP/IP``),
    then each target once (``count`` and ``forms`` gathered). Markdown links keep their paths."""
    if not any(ln.kind != "markdown" and "/" in ln.target for ln in links):
        return links
    out = _LinkSet()
    for ln in links:
        if ln.kind != "markdown" and "/" in ln.target:
            note = bear_note(ln.target)
            if note != ln.target:
                ln = _dc_replace(ln, target=note, forms=list(ln.forms), labels=list(ln.labels))
        key = out.key(ln.kind, ln.target)
        first = out.seen.get(key)
        if first is None:
            out.add(key, ln)
            continue
        first.count += ln.count
        for f in ln.forms:
            if f not in out.forms[key]:
                out.forms[key].add(f)
                first.forms.append(f)
        for x in ln.labels:
            first.add_label(x)
    return out.links


def dedupe_links(links: list[Link]) -> list[Link]:
    """``links`` once per :meth:`Link.key` (first occurrence wins; ``count`` and ``forms``
    gather the repeats), in order."""
    out = _LinkSet()
    for ln in links:
        key = out.key(ln.kind, ln.target)
        first = out.seen.get(key)
        if first is None:
            out.add(key, ln)
            continue
        first.count += 1
        forms = out.forms[key]
        for f in ln.forms:
            if f not in forms:
                forms.add(f)
                first.forms.append(f)
        for x in ln.labels:
            first.add_label(x)
    return out.links


def extract_links(tokens: list) -> tuple[list[Link], list[tuple[int, str]]]:
    """Links (deduplicated per page, first occurrence wins; ``count`` and ``forms`` gather the
    repeats) and headings from a mistune AST."""
    links = _LinkSet()
    headings: list[tuple[int, str]] = []
    _walk(tokens, links, headings)
    return links.links, headings


def extract_headings(tokens: list) -> list[tuple[int, str]]:
    """The headings ``(level, text)`` of a mistune AST, as :func:`extract_links` gives them (the
    same walk and text), without reading its links (their cost)."""
    out: list[tuple[int, str]] = []
    for tok in tokens:
        t = tok.get("type")
        if t in ("block_code", "block_html"):
            continue
        if t == "heading":
            children = tok.get("children", [])
            if len(children) == 1 and children[0].get("type") == "text":
                text = children[0].get("raw", "")
            else:
                parts: list[str] = []
                _plain(children, parts, [])
                text = "".join(parts)
            out.append((tok["attrs"]["level"], text.strip()))
        elif t not in _INLINE_CONTAINERS and "children" in tok:
            out += extract_headings(tok["children"])
    return out


def comment_open_at_end(body: str) -> bool:
    """Whether a page body ``body`` ends inside an Obsidian ``%%`` comment left open (``Text %%
    draft``, a ``%%`` line never closed: Obsidian hides the rest of the note), as the page model
    reads links there (:func:`_outside_comments`: a ``%%`` in code is none)."""
    if "%%" not in body:
        return False
    links = _LinkSet()
    _walk(_parse_ast(to_lf(body))[0], links, [])
    return links.comment


def heading_text(raw: str) -> str:
    """The text of a heading written ``raw`` (its inline markdown, ``[[Publish]] sites``) as the
    page model reads it into :attr:`Page.headings`: link labels, no emphasis marks (``Publish
    sites``). One parse of that line."""
    _links, heads = extract_links(_parse_ast("# " + raw.replace("\n", " ") + "\n")[0])
    return heads[0][1] if heads else raw.strip()


# ---- inline tags ------------------------------------------------------------

#: a ``#`` at the start of a line or after whitespace, then tag characters (ASCII punctuation
#: other than ``_ - /`` ends a tag; Unicode punctuation is trimmed by _clean_tag)
TAG_PATTERN = r"(?:^|(?<=\s))#([^\s!\"#$%&'()*+,.:;<=>?@\[\\\]^`{|}~]+)"
#: (a match starts at its ``#``: the look-ahead lets the engine skip to the next one, ~3× faster)
_TAG_RE = re.compile(r"(?=#)" + TAG_PATTERN, re.M)
_COMMENT_RE = re.compile(r"%%.*?(?:%%|\Z)", re.S)  # Obsidian comments (an unclosed one runs to the end)
_MATH_RE = re.compile(r"\$\$.*?\$\$", re.S)
#: inline math ``$…$``: mistune's math plugin's inline rule (``INLINE_MATH_PATTERN``, its
#: ``math_text`` branch: a ``$`` not followed by ``$`` or whitespace, escapes kept, no line break,
#: a closing ``$`` not followed by a digit) with Obsidian's closing rule added: the closing ``$``
#: follows no whitespace (``costs $5 and #budget $10`` holds no math)
INLINE_MATH_PATTERN = r"\$(?!\$)(?!\s)(?:(?:[^$\\\n]|\\.)+?)(?<!\s)\$(?!\d)"
_INLINE_MATH_RE = re.compile(INLINE_MATH_PATTERN)
_HIDDEN = "\x00"  # stands for code spans, links and raw HTML: no tag starts in or right after them
_REF = "\x01"  # encloses the page name of a ``#[[name]]`` (Logseq's tag of several words)
#: a ``#[[name]]`` tag in the text :func:`_tag_text` gives, where a ``#tag`` may start
_REF_TAG_RE = re.compile(r"(?:^|(?<=\s))#\x01([^\x01]*)\x01", re.M)


def _tag_text(tokens: list, out: list[str]) -> None:
    """The text of ``tokens`` where inline tags may be written, in document order: code (fenced,
    indented, spans), raw HTML (blocks, comments, inline tags) and links are left out."""
    for tok in tokens:
        t = tok.get("type")
        if t in ("block_code", "block_html", "softbreak", "linebreak"):
            out.append("\n")
        elif t == "text":
            if tok.get("escaped"):  # ``\#``: no tag starts at an escaped hash
                out.append(_HIDDEN)
                continue
            raw = tok.get("raw", "")
            out.append(raw.replace(_REF, _HIDDEN) if _REF in raw else raw)  # (both cut a tag)
        elif t == "wikilink" and not tok["attrs"]["embed"] and out and out[-1].endswith("#"):
            out.append(f"{_REF}{tok['attrs']['target']}{_REF}")  # Logseq's #[[multi word tag]]
        elif t in ("codespan", "inline_html", "link", "wikilink", "image"):
            out.append(_HIDDEN)
        elif "children" in tok:
            _tag_text(tok["children"], out)
            if t in _INLINE_CONTAINERS or t in ("list_item", "block_quote"):
                out.append("\n")


def _clean_tag(raw: str) -> str:
    """Cut a tag match at the first Unicode punctuation, separator or control character (other
    than ``_ - /`` and the emoji joiner); drop trailing slashes."""
    for i, c in enumerate(raw):
        if c in "_-/" or c == "\u200d":
            continue
        if unicodedata.category(c)[0] in "PZC":
            raw = raw[:i]
            break
    return raw.rstrip("/")


#: how inline tags are read (config ``tag_syntax``): ``obsidian`` (the default) or ``bear``
TAG_SYNTAXES = ("obsidian", "bear")
#: Bear's closed tag (``#multi word tag#``, ``#work/side projects#``): a ``#`` at a line's start
#: or after white space, text without ``#`` that neither starts nor ends with white space, a ``#``
#: how the ``key:: value`` lines opening a page are read (config ``property_syntax``): ``auto``
#: (the default: :func:`reads_logseq_properties` by the page's path), ``logseq`` (Logseq page
#: properties in every page) or ``dataview`` (Dataview inline fields in every page: no title,
#: alias or tag from them)
PROPERTY_SYNTAXES = ("auto", "logseq", "dataview")
#: the folders of a Logseq graph that hold its pages (``pages/``, ``journals/``) unless its config
#: names others (``:pages-directory``/``:journals-directory``: :func:`page_property_syntax`); a
#: path alone (``auto`` in :func:`reads_logseq_properties`) knows only these
LOGSEQ_FOLDERS = frozenset({"pages", "journals"})


def reads_graphs(property_syntax: str) -> bool:
    """Whether a brain whose config ``property_syntax`` is ``property_syntax`` (one of
    :data:`PROPERTY_SYNTAXES`) may read a page as a Logseq graph's (:func:`page_property_syntax`:
    a graph's ``pages``/``journals`` page, its journals titled by day): under ``auto`` and
    ``logseq`` yes, under ``dataview`` no page is, so no graph need be looked up."""
    return property_syntax != "dataview"


def reads_logseq_properties(path: str, property_syntax: str = "auto") -> bool:
    """Whether the ``key:: value`` lines opening the page at ``path`` are Logseq page properties
    (``title::`` titles it, ``alias::`` aliases, ``tags::`` tags it, every tag links its page)
    rather than Dataview inline fields, which Obsidian shows as text: ``logseq`` yes, ``dataview``
    no, ``auto`` when a folder of the path is a ``pages`` or ``journals`` folder (at any depth).
    A caller that knows the brain resolves ``auto`` first (:func:`page_property_syntax`: such a
    folder counts only beside a graph's ``logseq/config.edn``); ``auto`` here is the path alone."""
    if property_syntax.startswith("logseq"):  # (``logseq:FORMAT``: a graph's ``pages/`` page, :func:`page_property_syntax`)
        return True
    if property_syntax == "dataview":
        return False
    return any(part in LOGSEQ_FOLDERS for part in path.split("/")[:-1])


def graph_candidates(path: str) -> list[str]:
    """The folders whose Logseq graph the page at ``path`` belongs to if they are one: the parent
    of each ``pages``/``journals`` folder on its path (``''`` for the top; ``notes/graph/pages/x.md``
    → ``['notes/graph']``). ``[]`` for a page in no such folder."""
    parts = path.split("/")[:-1]
    return ["/".join(parts[:i]) for i, part in enumerate(parts) if part in LOGSEQ_FOLDERS]


def page_property_syntax(path: str, property_syntax: str, graphs) -> str:
    """The ``property_syntax`` to parse the page at ``path`` with: the brain's setting, or under
    ``auto`` ``logseq`` when the page is in the pages or journals folder of a graph of ``graphs``
    (the folders holding a Logseq graph's ``logseq/config.edn``, as every Logseq graph has: ``''``
    for the top; its folders ``pages``/``journals`` and those its config's ``:pages-directory``/
    ``:journals-directory`` name, :func:`gbrain.page.journals.split_dirs`: Logseq reads every file
    of the graph, and what it wrote into its default folders before the setting changed stays the
    graph's; a named folder wins where the two overlap) and ``dataview`` otherwise: a vault's own
    ``pages/`` folder, and a graph's other folders, are no Logseq graph's. When ``graphs`` is a mapping
    ``{root: graph value}`` (:func:`gbrain.page.links.graph_roots`) and the page is in that graph's
    pages folder, ``logseq:FORMAT`` (``logseq:triple-lowbar``, ``logseq:legacy``): its title falls
    back to the name Logseq reads from its file name (:func:`logseq_page_name`) rather than the file
    name itself; a page right in a journals folder of another name than ``journals`` ends with
    :data:`gbrain.page.journals.JOURNAL_MARK` (:func:`journal_name` reads it as a journal)."""
    if not reads_graphs(property_syntax):
        return property_syntax
    from .journals import FOLDER, JOURNAL_MARK, join_formats, split_dirs, split_formats

    parts = path.split("/")
    for i in range(len(parts) - 1):
        root = "/".join(parts[:i])
        if root not in graphs:
            continue
        value = graphs.get(root) if isinstance(graphs, dict) else None
        pages_dir, journals_dir = split_dirs(value)
        rest = "/".join(parts[i:])
        # (the folders the config names, then Logseq's default ones it may have left: Logseq reads
        # every file of the graph, so what it wrote there before the setting changed stays the graph's)
        named = rest.startswith(journals_dir + "/")
        if named or (rest.startswith(FOLDER + "/") and not rest.startswith(pages_dir + "/")):
            days = split_formats(value)[1] if isinstance(value, str) else None
            syntax = join_formats("logseq", days)  # (under ``logseq`` too: Logseq titles a journal by its graph's config)
            if named and journals_dir != FOLDER and "/" not in rest[len(journals_dir) + 1:]:
                syntax += JOURNAL_MARK  # (right in the graph's own journals folder: a journal, journal_name)
            return syntax
        if not rest.startswith(pages_dir + "/") and not rest.startswith("pages/"):
            continue
        if not isinstance(value, str) or not value:
            return "logseq"
        fmt, days = split_formats(value)
        if property_syntax == "logseq":
            continue  # (a pages/ folder under ``logseq``: file names as written)
        if rest.startswith("pages/contents.") and rest.count("/") == 1:
            return LOGSEQ_CONTENTS_SYNTAX
        return join_formats(f"logseq:{fmt}", days)
    return "dataview" if property_syntax == "auto" else property_syntax


#: the per-page syntax (:func:`page_property_syntax`) of a graph's ``pages/contents.*`` (right in
#: its ``pages/`` folder, file name starting ``contents.``, as written): Logseq names that page
#: ``Contents`` before reading anything else of it (``get-page-name``, logseq/logseq
#: deps/graph-parser/src/logseq/graph_parser/extract.cljc, tag 0.10.9: a path starting
#: ``pages/contents.``, the literal folder, not ``:pages-directory``)
LOGSEQ_CONTENTS_SYNTAX = "logseq:contents"
#: the name Logseq gives a graph's ``pages/contents.*``
LOGSEQ_CONTENTS = "Contents"


def logseq_file_title(path: str, property_syntax: str) -> str | None:
    """The name Logseq reads from the file of the page at ``path`` parsed with ``property_syntax``
    ``logseq:FORMAT`` (a page of a graph's ``pages/`` folder, :func:`page_property_syntax`):
    :data:`LOGSEQ_CONTENTS` for its ``pages/contents.*`` (:data:`LOGSEQ_CONTENTS_SYNTAX`), else
    :func:`logseq_page_name` of its file name by ``FORMAT``; None for any other syntax."""
    if property_syntax == LOGSEQ_CONTENTS_SYNTAX:
        return LOGSEQ_CONTENTS
    if not property_syntax.startswith("logseq:"):
        return None
    from .journals import split_formats

    return logseq_page_name(stem(path), split_formats(property_syntax[7:])[0])


def graph_title_format(path: str, property_syntax: str) -> str | None:
    """The ``:journal/page-title-format`` of the Logseq graph whose page the page at ``path``
    parsed with ``property_syntax`` is, for a page Logseq may read as a journal: a page of a
    graph's ``pages/`` folder (``logseq:FORMAT``, not its ``contents.*``) or of a ``journals``
    folder read as Logseq's (:func:`page_property_syntax`: the format rides after ``\x1f``, else
    Logseq's default); None for any other page."""
    from . import journals

    if property_syntax == LOGSEQ_CONTENTS_SYNTAX or not property_syntax.startswith("logseq"):
        return None
    if not property_syntax.startswith("logseq:") and (not path.endswith(".md") or (
            not property_syntax.endswith(journals.JOURNAL_MARK) and journals.graph_root(path[:-3]) is None)):
        return None
    days = journals.split_formats(property_syntax)[1]
    return days[0] if days and days[0] else journals.TITLE_FORMAT


def logseq_journal_day(title: str, title_format: str | None) -> "_dt.date | None":
    """The day of a page titled ``title`` that Logseq reads as a journal (its name is that day
    written in its graph's ``title_format``, :func:`graph_title_format`, as ``parse_page`` titles
    it: :func:`gbrain.page.journals.logseq_day`), else None (``title_format`` None: no graph's)."""
    from . import journals

    if title_format is None or not any(ch.isdigit() for ch in title) or not journals.title_re(title_format).match(title):
        return None  # (no name format_day writes: no parse)
    day = journals.logseq_day(title, title_format)
    return day if day and journals.format_day(day, title_format) == title else None


_BEAR_TAG_RE = re.compile(r"(?:^|(?<=\s))#([^\s#\x00\x01][^#\n\x00\x01]*?)(?<!\s)#", re.M)


def extract_inline_tags(tokens: list, *, bear: bool = False, refs: bool = True) -> list[str]:
    """Inline tags (``#tag``, nested ``#area/sub``) of a page body's mistune AST, as Obsidian
    reads them: a ``#`` at the start of a line or after whitespace, outside code, links, URLs,
    raw HTML, HTML and ``%% … %%`` comments, ``$$ … $$`` math and inline ``$…$`` math
    (:data:`INLINE_MATH_PATTERN`); a heading's ``# `` is not a
    tag (nothing follows the ``#``) and a purely numeric name (``#1984``) is not one either.
    Returns the tags as written, without ``#``, one per identity (``tag_identity``), first
    spelling first. Source: Obsidian Help, "Tags" (tag format, nested tags). ``bear``: Bear's
    closed tags too (:data:`_BEAR_TAG_RE`: ``#to read#`` is the tag ``to read``, not ``to``), in
    the order written among the others. ``refs`` False: Logseq's ``#[[name]]`` left out (a wiki
    link already: :func:`logseq_tag_links`)."""
    parts: list[str] = []
    _tag_text(tokens, parts)
    text = "".join(parts)
    if "#" not in text:
        return []
    if "%%" in text:
        text = _COMMENT_RE.sub(_HIDDEN, text)
    if "$" in text:
        if "$$" in text:
            text = _MATH_RE.sub(_HIDDEN, text)
        text = _INLINE_MATH_RE.sub(_HIDDEN, text)
    found: list[tuple[int, str]] = []  # (where, tag)
    if bear and text.count("#") > 1:
        for m in _BEAR_TAG_RE.finditer(text):
            if not numeric_tag(m.group(1)):
                found.append((m.start(), m.group(1)))
        for start, tag in reversed(found):  # read once: its first word is no tag of its own
            text = text[:start] + _HIDDEN * (len(tag) + 2) + text[start + len(tag) + 2 :]
    closed = bool(found)
    for m in _TAG_RE.finditer(text):
        tag = _clean_tag(m.group(1))
        if tag and not numeric_tag(tag):
            found.append((m.start(), tag))
    if _REF in text and refs:  # #[[name]] tags too
        found += [(m.start(), m.group(1).strip()) for m in _REF_TAG_RE.finditer(text) if m.group(1).strip()]
        closed = True
    if closed:  # all in the order written
        found.sort(key=lambda x: x[0])
    return merge_tags([t for _, t in found])


def logseq_tag_links(tokens: list, props: dict[str, str], links: list[Link], *, bear: bool = False) -> list[Link]:
    """``links`` and the links a Logseq page's tags are (in Logseq every tag is a reference to
    the page of its name, listed under that page's Linked References): each ``#tag`` of the text
    (:func:`extract_inline_tags`; ``#[[name]]`` is a wiki link already) and each item of the
    ``tags::`` property written bare (``tags:: project``; a ``[[name]]`` item is a link already),
    a link of kind ``wiki`` with the form written (``#budget``, ``tags:: project``) and, as context,
    the sentence around its first ``#tag`` (the property lines' paragraph for a ``tags::`` item);
    after the text's links, deduplicated with them (``[[budget]]`` and ``#budget``: one link
    counted twice)."""
    tags = extract_inline_tags(tokens, bear=bear, refs=False)
    bare = [m.group(2).strip().lstrip("#").strip() for m in _LOGSEQ_ITEM_RE.finditer(props.get("tags", "")) if m.group(2)]
    bare = [t for t in bare if t and not numeric_tag(t)]
    if not tags and not bare:
        return links
    want = {tag_identity(t) for t in tags}
    where: dict[str, str] = {}
    prop_context = ""

    def walk(toks: list) -> None:
        nonlocal prop_context
        for tok in toks:
            t = tok.get("type")
            if t in ("block_code", "block_html"):
                continue
            if t in _INLINE_CONTAINERS:
                out: list[str] = []
                _plain(tok.get("children", []), out, [], 0, [], [])
                text = "".join(out)
                if bare and not prop_context and "tags::" in text:
                    prop_context = " ".join(text.split())[:CONTEXT_MAX]
                if "#" in text:
                    sentences = None
                    for m in _TAG_RE.finditer(text):
                        k = tag_identity(_clean_tag(m.group(1)))
                        if k in want and k not in where:
                            sentences = sentences or _Sentences(text)
                            where[k] = sentences.around(m.start(), m.end())
            elif "children" in tok:
                walk(tok["children"])
    walk(tokens)
    extra = [Link("wiki", t, t, where.get(tag_identity(t), ""), 1, ["#" + t]) for t in tags]
    extra += [Link("wiki", t, t, prop_context, 1, ["tags:: " + t]) for t in bare]
    return dedupe_links(links + extra)


def opening_h1(tokens: list) -> str:
    """The plain text of the level-1 heading that opens a body (its first block after blank
    lines), else ``''``. An H1 further down (a footer's "This note in GitHub") is no title, as
    in Obsidian's inline title, which shows the file name unless the note starts with one."""
    for tok in tokens:
        if tok.get("type") == "blank_line":
            continue
        if tok.get("type") == "heading" and tok["attrs"]["level"] == 1:
            return _heading_text(tok)
        return ""
    return ""


def first_h1(tokens: list) -> str:
    """The plain text of the first level-1 heading of a body that is a block of its own (not in
    code, a quote or a list), wherever it is, else ``''`` (``Page.first_h1``): ingest's title of a
    source whose text does not open with one (``operations/agents.py: _title_of``)."""
    return next((t for t in (_heading_text(tok) for tok in tokens if tok.get("type") == "heading" and tok["attrs"]["level"] == 1) if t), "")


# ---- the parser --------------------------------------------------------------


def stem(path: str) -> str:
    base = posixpath.basename(path)
    return base[:-3] if base.lower().endswith(".md") else base


def page_type(fm: dict, path: str) -> str:
    """Type: frontmatter ``type``, else the spec's folder map on the first folder, else ``note``."""
    t = fm.get("type")
    if isinstance(t, str) and t.strip():
        return t.strip()
    first = path.split("/", 1)[0] if "/" in path else ""
    return FOLDER_TYPES.get(first.lower(), "note")


def parse_page(text: str, path: str = "", *, timeline_split: str = "rule", tag_syntax: str = "obsidian",
               property_syntax: str = "auto") -> Page:
    """Parse page ``text`` (decoded UTF-8) stored at relative ``path``.

    Title: frontmatter ``title``, else a Logseq ``title::`` (:func:`logseq_properties`), else a
    Logseq journal's day as Logseq shows it (:func:`journal_name`: ``journals/2026_11_28.md`` is
    ``Nov 28th, 2026``, in a page read as a Logseq graph's, :func:`reads_logseq_properties`: an
    Obsidian vault's ``journals/`` has none; before an opening H1, as Logseq names a journal by its
    file), else an H1 that opens the body (:func:`opening_h1`), else, for a
    page of a Logseq graph's ``pages/`` folder (``property_syntax`` ``logseq:FORMAT``, :func:`page_property_syntax`),
    the name Logseq reads from its file name (:func:`logseq_page_name`: ``Project___Alpha.md`` is
    ``Project/Alpha``; before the opening H1, which never titles such a page: Logseq names a page
    by ``title::``, else its file, ``pages/Reading List.md`` opening with ``# Books I want`` is
    ``Reading List``), else the file name without ``.md`` (and without a Notion export's id: :func:`notion_name`); a template's placeholder (:func:`has_placeholder`:
    ``# <% tp.date.now("YYYY-MM-DD") %>``, ``# {{title}}``) is no title, nor an alias. Tags: frontmatter ``tags`` and ``tag``
    (``Page.tags``) and, in ``Page.inline_tags``, a Notion page's ``Tags:`` property
    (:func:`notion_properties`), a Logseq ``tags::`` line's, then inline ``#tags`` and
    ``#[[tags]]``; aliases: frontmatter
    ``aliases``/``alias``, then a Logseq ``alias::`` line's. Links: the properties'
    wiki links (:func:`property_links`, kind ``property``), then the body's.

    ``tag_syntax`` (the brain's config, :data:`TAG_SYNTAXES`): ``bear`` also reads Bear's closed
    tags (``#to read#``, :func:`extract_inline_tags`). ``property_syntax`` (config,
    :data:`PROPERTY_SYNTAXES`): whether the opening ``key:: value`` lines are Logseq properties
    (:func:`reads_logseq_properties`; else Dataview fields: no title, alias or tag).

    Returns a :class:`Page` whose ``render()`` equals ``text``. Never raises on content: YAML
    that does not load is kept raw, with ``frontmatter_error`` set and a warning.
    Raises ``ValueError`` only for an unknown ``timeline_split``.
    """
    bom = text.startswith(BOM)
    rest = text[1:] if bom else text
    fm_raw, body, fm_warn = split_frontmatter(rest)
    not_dates: list[str] = []
    fm, fm_err = load_frontmatter(fm_raw, not_dates)
    lf_body = to_lf(body)
    tokens, fences = _parse_ast(lf_body)
    sep_i, sep_at = _separator_at(body, fences, bool(fm_raw), timeline_split)
    if sep_i >= 0 and len(lf_body) == len(body):
        # no CRLF (a lone '\r' is one character in both): the LF view's offsets are the body's,
        # so the separator line is ``---`` and its line end at ``sep_at``, as split_lines cuts it
        compiled, separator, timeline = body[:sep_at], body[sep_at : sep_at + 4], body[sep_at + 4 :]
    elif sep_i >= 0:
        lines = split_lines(body)
        compiled = "".join(lines[:sep_i])
        separator = lines[sep_i]
        timeline = "".join(lines[sep_i + 1 :])
    else:
        compiled, separator, timeline = body, "", ""
    links, headings = extract_links(tokens)
    if fm and "[[" in fm_raw:  # properties' links come first, as they are written
        links = dedupe_links(property_links(fm)) + links
    elif not fm_raw and ".md)" in lf_body and lf_body.startswith("# ") and path.endswith(".md") and len(path) > 36 and path[-36] == " ":
        rel = notion_relation_links(lf_body, path)  # a Notion page's relation properties link their pages
        if rel:
            links = dedupe_links(rel + links)
    if tag_syntax == "bear" and links:
        links = bear_heading_links(links)
    fm_tags = tags_from_frontmatter(fm)
    inline_tags = extract_inline_tags(tokens, bear=tag_syntax == "bear")
    aliases = aliases_from_frontmatter(fm)
    props = logseq_properties(lf_body) if "::" in lf_body and reads_logseq_properties(path, property_syntax) else {}
    if props:  # a Logseq page's properties: its tags are in its text, as inline tags are
        inline_tags = merge_tags(logseq_items(props.get("tags", "")), inline_tags)
        aliases = merge_tags(aliases, logseq_items(props.get("alias", "")), key=identity_key)  # (an alias's identity)
    if inline_tags and reads_logseq_properties(path, property_syntax):  # a Logseq tag is a reference to its page
        links = logseq_tag_links(tokens, props, links, bear=tag_syntax == "bear")
    if not fm_raw and lf_body.startswith("# ") and path.endswith(".md") and len(path) > 36 and path[-36] == " ":
        notion = notion_properties(lf_body, path)  # a page of a Notion export: its Tags property tags it
        if notion.get("tags"):
            inline_tags = merge_tags(notion_items(notion["tags"]), inline_tags)
    if "<%" in text or "{{" in text:  # a template's placeholder names no page (the note it makes gets the name)
        aliases = [a for a in aliases if not has_placeholder(a)]
    title = fm.get("title")
    title_fmt = graph_title_format(path, property_syntax)
    if property_syntax == LOGSEQ_CONTENTS_SYNTAX:  # a graph's pages/contents.md: Logseq's "Contents", whatever it holds
        title = LOGSEQ_CONTENTS
    elif isinstance(title, (str, int, float)) and not isinstance(title, bool) and str(title).strip() and not has_placeholder(str(title)):
        title = str(title).strip()
    else:
        # a page of a Logseq graph's pages/: the name Logseq reads from its file (Project___Alpha.md
        # is Project/Alpha), never an opening H1: Logseq names a page by title::, else its file,
        # and only a page with no file name by its first heading (get-page-name, logseq/logseq
        # deps/graph-parser/src/logseq/graph_parser/extract.cljc)
        # and a graph's journal by its file too, which Logseq reads as its day (convert-page-if-journal,
        # deps/graph-parser/src/logseq/graph_parser/block.cljs): the day before an opening H1
        named = logseq_file_title(path, property_syntax)
        day = journal_name(path, property_syntax) if reads_logseq_properties(path, property_syntax) else None
        prop = props.get("title")
        if prop and not has_placeholder(prop):
            title = prop
        else:
            cand = named if named is not None else day or opening_h1(tokens)
            title = cand if cand and not has_placeholder(cand) else day or named or notion_name(path)
            if named is None:
                title_fmt = None  # (a journal's day, an H1 or a file name no format reads: no name to read again)
    if title_fmt is not None and any(ch.isdigit() for ch in title):
        # the name Logseq gives a graph's page (title property, title::, its file) read as a day is
        # that day in the graph's title format: pages/2026-11-20.md is Nov 20th, 2026, a journal
        # (convert-page-if-journal, logseq/logseq deps/graph-parser/src/logseq/graph_parser/block.cljs,
        # called by extract.cljc extract-pages-and-blocks on every page's name, whatever its folder)
        from .journals import format_day, logseq_day

        as_day = logseq_day(title, title_fmt)
        if as_day:
            title = format_day(as_day, title_fmt)
    page = Page(
        bom=bom,
        frontmatter_raw=fm_raw,
        compiled_truth=compiled,
        separator=separator,
        timeline=timeline,
        path=path,
        frontmatter=fm,
        frontmatter_error=fm_err,
        title=title,
        type=page_type(fm, path),
        tags=fm_tags,
        inline_tags=inline_tags,
        aliases=aliases,
        links=links,
        timeline_entries=parse_timeline_entries(timeline) if separator else [],
        headings=[h for _, h in headings if h],
        first_h1=first_h1(tokens),
    )
    if len(lf_body) == len(body):
        page.opaque = fences
    if fm_warn:
        page.warnings.append(fm_warn)
    if fm_err:
        page.warnings.append(fm_err)
    for v in not_dates:
        page.warnings.append(f"frontmatter value {v!r} looks like a date but is not a real date; kept as text")
    if "<<<<<<<" in text:
        at = _conflict_line(to_lf(fm_raw), lf_body, fences)
        if at is not None:
            page.warnings.append(conflict_warning(at))
    return page


# ---------------------------------------------------------------------------
# edits: each returns new page text; callers re-parse it, so derived views stay exact
# ---------------------------------------------------------------------------


_RT_CONSTRUCTOR: Any = None


def _rt_constructor() -> Any:
    """ruamel's round-trip constructor, but a timestamp-shaped scalar that is no real date or
    time (``date: 2026-13-45``) loads as its text instead of raising ValueError (the page model
    keeps it as text too): every frontmatter edit of such a page failed with 'month must be in 1..12'."""
    global _RT_CONSTRUCTOR
    if _RT_CONSTRUCTOR is None:
        from ruamel.yaml.constructor import RoundTripConstructor

        class _Constructor(RoundTripConstructor):
            pass

        def timestamp(self, node):
            try:
                return RoundTripConstructor.construct_yaml_timestamp(self, node)
            except ValueError:
                return self.construct_scalar(node)

        _Constructor.add_constructor("tag:yaml.org,2002:timestamp", timestamp)
        _RT_CONSTRUCTOR = _Constructor
    return _RT_CONSTRUCTOR


def _rt_yaml() -> Any:
    from ruamel.yaml import YAML

    y = YAML(typ="rt")
    y.Constructor = _rt_constructor()
    y.preserve_quotes = True
    y.width = 4096
    return y


def _rt_load(y: Any, src: str) -> Any:
    """``src`` (frontmatter YAML that loads) through ruamel's round-trip loader ``y``.

    That loader takes only spaces where YAML 1.2 takes a space or a tab (``s-white``) before a
    comment or a value (``mood: ok<TAB># c``, ``mood:<TAB>ok``), which the loader that reads pages
    reads; each tab it stops at is read as a space (same length: columns stay), so the data keeps
    its comments and the edit rewrites only the changed keys' lines (the tab stays in every other
    line). Raises ``ValueError`` naming the line when that changes what the YAML says (a tab
    inside a plain value, ``k: a<TAB>b``) or the loader still cannot read it."""
    from ruamel.yaml.error import YAMLError

    text = src
    for _ in range(src.count("\t") + 1):
        try:
            data = y.load(text)
            break
        except YAMLError as e:
            mark = getattr(e, "problem_mark", None)
            at = getattr(mark, "index", None)
            line = f"line {mark.line + 2}" if mark is not None else "a line"  # +2: the opening fence
            if not (isinstance(at, int) and 0 <= at < len(text) and text[at] == "\t"):
                problem = getattr(e, "problem", None) or type(e).__name__
                raise ValueError(f"the frontmatter editor cannot read {line} of the frontmatter ({problem}); "
                                 "edit that line by hand first") from e
            text = text[:at] + " " + text[at + 1:]
            y = _rt_yaml()
    else:
        raise ValueError("the frontmatter editor cannot read the frontmatter's tabs; write spaces instead")
    if text != src and _SafeYAML.load(text) != _SafeYAML.load(src):
        row = next(i for i, (a, b) in enumerate(zip(src.splitlines(), text.splitlines())) if a != b)
        raise ValueError(f"line {row + 2} of the frontmatter holds a tab inside a value, which the frontmatter "
                         "editor cannot read; write a space there (or quote the value) and edit again")
    return data


def edit_frontmatter(page: Page, update: dict | None = None, *, tags: list[str] | None = None) -> str:
    """New page text with frontmatter keys set (``update``) and/or the tag list replaced.

    Uses ruamel's round-trip mode so comments, key order and quoting survive; only the
    frontmatter block changes. A comma-string ``tags:`` stays a comma string, a blank-separated
    one blank-separated (:func:`_tags_string`); a page that
    writes its tags under the singular ``tag:`` key gets them edited there. Creates a
    frontmatter block when the page has none. Raises ``ValueError`` when the existing
    frontmatter does not load (it would be lost by a re-dump).
    """
    nl = "\n" if page.newline == "\r" else page.newline  # (a block fenced with bare CRs is no frontmatter: split_frontmatter)
    if page.frontmatter_raw:
        # the frontmatter's own line ending (its opening fence's), which may differ from the body's
        first = split_lines(page.frontmatter_raw)[0]
        nl = "\r\n" if first.endswith("\r\n") else "\n"
    if page.frontmatter_error:
        raise ValueError(f"{page.path or 'page'}: {page.frontmatter_error}; fix the YAML by hand first")
    y = _rt_yaml()
    src = frontmatter_yaml(page.frontmatter_raw) if page.frontmatter_raw else ""
    ind = re.search(r"^( +)- ", src, re.M)  # keep the file's block-sequence indentation
    if ind:
        y.indent(mapping=2, sequence=len(ind.group(1)) + 2, offset=len(ind.group(1)))
    data = _rt_load(y, src) if src.strip() else None
    if data is None:
        from ruamel.yaml.comments import CommentedMap

        data = CommentedMap()
    had_keys = len(data) > 0
    for k, v in (update or {}).items():
        if v is None:
            data.pop(k, None)
        else:
            data[k] = _yaml_date(v, data.get(k))
    tag_keys: list[str] = []
    if tags is not None:
        # each key as written (``Tags:``: Obsidian reads it ignoring case; the first holding a
        # value), ``tags`` if none is written
        names = {c: next((k for k in fm_keys(data, c) if data.get(k) is not None), None) for c in TAG_KEYS}
        present = [c for c in TAG_KEYS if names[c] is not None]
        if present == ["tag"] or len(present) == 2:
            # the singular key is edited where it is written; with both keys, ``tags`` keeps
            # the wanted tags it holds and ``tag`` (read second) the rest, new ones appended
            first = set(tag_items(data[names["tags"]])) if len(present) == 2 else set()
            split = {"tags": [t for t in tags if t in first], "tag": [t for t in tags if t not in first]}
            tag_keys = [names[c] for c in present]
            for c in present:
                _set_tag_key(data, names[c], split[c])
        else:
            tag_keys = [names["tags"] or "tags"]
            _set_tag_key(data, tag_keys[0], list(tags))
    buf = io.StringIO()
    if len(data):
        y.dump(data, buf)
    dumped = buf.getvalue()
    if nl != "\n":
        dumped = dumped.replace("\n", nl)
    if page.frontmatter_raw:
        lines = split_lines(page.frontmatter_raw)
        new_fm = lines[0] + dumped + lines[-1]
        # rewrite only the named keys when that loads to the same data (other bytes stay exact)
        from .fmsplice import splice_frontmatter

        changed = list(update or {}) + tag_keys
        spliced = splice_frontmatter(page.frontmatter_raw, data, changed, y, nl)
        if spliced is not None and load_frontmatter(spliced) == load_frontmatter(new_fm):
            new_fm = spliced
        if (had_keys and not len(data) and len(split_lines(new_fm)) == 2
                and not _FM_OPEN_RE.match(page.body)):
            # the edit removed the last key and the block holds nothing but its fences: gone, so
            # tag + untag of a page without frontmatter gives its bytes back; a block written empty,
            # or keeping a comment or blank line, stays (trial 50), and so does one whose body
            # opens with a --- line (it would open a block: the intro read as YAML)
            new_fm = ""
    elif not len(data):
        new_fm = ""  # nothing to write: no empty block made (`put --frontmatter '{}'`)
    else:
        new_fm = "---" + nl + dumped + "---" + nl
    return (BOM if page.bom else "") + new_fm + page.body


_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}\Z")


def _yaml_date(value: Any, old: Any) -> Any:
    """``value`` (a frontmatter value from JSON) as ``edit_frontmatter`` writes it: a string that
    is a calendar date (``2026-12-02``) becomes a ``datetime.date``, so it is written ``updated:
    2026-12-02`` as a person or Obsidian's date property writes it, not ``'2026-12-02'`` (the
    frontmatter's JSON view is the same string either way), unless the key's old value was a
    quoted string (that page keeps its dates as text). Anything else is returned as it is."""
    if not isinstance(value, str) or not _ISO_DATE.match(value) or type(old).__name__.endswith("QuotedScalarString"):
        return value
    try:
        return _dt.date.fromisoformat(value)
    except ValueError:
        return value


def _set_tag_key(data: Any, key: str, tags: list[str]) -> None:
    """Set tag key ``key`` of round-trip mapping ``data`` to ``tags``: removed when empty, a
    comma string stays one, a list is edited in place where it can (removals and appends keep
    the other items' comments and quoting), else refilled in its flow or block style."""
    old = data.get(key)
    others = _not_tags(old)
    if not tags and not others:
        data.pop(key, None)
    elif isinstance(old, str):
        data[key] = _tags_string(old, [*tags, *others])
    elif old is not None and hasattr(old, "fa"):
        def name(x: Any) -> str | None:  # the tag an item is, None for an item that is none
            got = tag_items([x])
            return got[0] if got else None

        kept = [t for t in (name(x) for x in old) if t is not None and t in tags]
        if kept + [t for t in tags if t not in kept] == list(tags):
            for i in reversed(range(len(old))):
                t = name(old[i])
                if t is not None and t not in tags or t is None and old[i] not in others:
                    del old[i]
            have = {name(x) for x in old}
            old.extend(t for t in tags if t not in have)
        else:
            flow = old.fa.flow_style()
            old.clear()
            old.extend([*tags, *others])
            if flow:
                old.fa.set_flow_style()
    else:
        data[key] = [*tags, *others]


def _tags_string(old: str, items: list) -> str:
    """``items`` written as the tags string ``old`` writes its tags: separated by blanks when it
    separates two or more words by blanks only (``journal daily``, which Obsidian reads as two tags),
    else by ``, ``; each with a ``#`` when every word of ``old`` has one (``#journal #daily``)."""
    words = [w for w in _TAG_STRING_SEP.split(old.strip()) if w]
    blank = len(words) > 1 and "," not in old
    hashed = bool(words) and all(w.startswith("#") for w in words)
    out = [("#" + str(t) if hashed and not str(t).startswith("#") and not has_placeholder(str(t)) else str(t)) for t in items]
    return (" " if blank else ", ").join(out)


def _not_tags(value: Any) -> list:
    """The items of a tags property's ``value`` that are no tags (:func:`tag_items`) but hold
    something: a number (``2026``), a template's placeholder (``<% tp.file.folder() %>``), a
    mapping; a tag edit keeps them (for a string value: its words, placeholders whole)."""
    if value is None:
        return []
    if isinstance(value, list):
        return [x for x in value if x is not None and str(x).strip() and not tag_items([x])]
    if not isinstance(value, str):
        return [value] if str(value).strip() and not tag_items(value) else []
    holes = _PLACEHOLDER_RE.findall(value) if has_placeholder(value) else []
    text = _PLACEHOLDER_RE.sub("\x00", value) if holes else value
    out, k = [], 0
    for word in _TAG_STRING_SEP.split(text):
        n = word.count("\x00")
        whole = word
        if n:  # each hole of the word is the next placeholder, in order
            parts = word.split("\x00")
            whole = parts[0] + "".join(h + p for h, p in zip(holes[k:k + n], parts[1:]))
            k += n
        if whole.strip() and (n or not tag_items(whole)):
            out.append(whole)
    return out


def is_timeline_line(line: str) -> bool:
    """Whether ``line`` (without its line end) is a timeline entry's first line,
    ``- **YYYY-MM-DD** | summary`` (the spec's timeline format)."""
    return _TIMELINE_LINE_RE.match(line) is not None


def timeline_date(line: str) -> str | None:
    """The ``YYYY-MM-DD`` of a timeline entry's first line (as written: maybe no real date), or
    None when ``line`` is no entry line (:func:`is_timeline_line`)."""
    m = _TIMELINE_LINE_RE.match(line)
    return m.group(1) if m else None


def timeline_line(date: str, summary: str, source: str = "", detail: str = "", nl: str = "\n") -> str:
    """One timeline entry in the GBrain format, with detail lines indented by two spaces."""
    head = f"- **{date}** | " + (f"{source} — {summary}" if source else summary)
    out = head + nl
    for ln in detail.splitlines():
        out += ("  " + ln if ln.strip() else "") + nl
    return out


def append_timeline(page: Page, entry: str, *, heading: bool = False) -> str:
    """New page text with a timeline ``entry`` (full lines incl. endings) added.

    Keeps the page's order: newest-first (the spec's reverse-chronological timeline, and what
    a page of 0 or 1 dated entries, or entries of one day, is taken to be) puts the entry above
    the first entry not newer than it; oldest-first (two or more dates, never falling) puts it
    after the last entry not newer than it; entries in no order, or an entry without a date,
    get it after the last entry. Creates the ``---`` separator and timeline when the page has
    none (with a ``## Timeline`` heading when ``heading``, as ``timeline_split = heading``
    needs). Nothing else in the text changes.
    """
    nl = page.newline
    if excalidraw_data_at(page) is not None:
        raise BadInput(f"{page.path or 'the page'} is an Excalidraw drawing: the plugin writes everything below its drawing "
                       "data's heading anew at its next save, so a timeline there would be lost; nothing was written. "
                       "Add the entry to a note about the drawing.")
    m = _TIMELINE_LINE_RE.match(_strip_eol(split_lines(entry)[0]))
    new_date = m.group(1) if m else ""
    if not page.separator:
        adopted = adopt_timeline_heading(page, heading)
        if adopted is not None:
            return append_timeline(adopted, entry, heading=heading)
        ct = page.compiled_truth
        if not page.frontmatter_raw and not ct.strip():
            ct = nl  # a '---' on the first line would read as a frontmatter opener
        if ct and not ct.endswith(("\n", "\r")):
            ct += nl
        if ct and ct.strip() and not ct.endswith(nl + nl) and not ct.endswith("\n\n"):
            ct += nl
        return (BOM if page.bom else "") + page.frontmatter_raw + ct + "---" + nl + nl + ("## Timeline" + nl + nl if heading else "") + entry
    lines = split_lines(page.timeline)
    idx = [(i, _TIMELINE_LINE_RE.match(_strip_eol(ln)).group(1)) for i, ln in enumerate(lines) if _TIMELINE_LINE_RE.match(_strip_eol(ln))]
    dates = [d for _, d in idx]
    pairs = list(zip(dates, dates[1:]))
    ascending = len(set(dates)) >= 2 and all(a <= b for a, b in pairs)
    descending = not ascending and all(a >= b for a, b in pairs)  # also 0 or 1 entries, or one day
    if idx and new_date and descending:
        pos = next((i for i, d in idx if d <= new_date), None)  # above the first not newer
        insert_at = _entry_end(lines, idx[-1][0]) if pos is None else pos
    elif idx and new_date and ascending:
        last = [i for i, d in idx if d <= new_date]  # after the last not newer
        insert_at = _entry_end(lines, last[-1]) if last else idx[0][0]
    elif idx:
        insert_at = _entry_end(lines, idx[-1][0])
    else:
        insert_at = len(lines)
        while insert_at > 0 and not lines[insert_at - 1].strip():
            insert_at -= 1
    before = lines[:insert_at]
    if before and not before[-1].endswith(("\n", "\r")):
        before[-1] += nl
    if not idx and before and before[-1].strip():
        before.append(nl)
    return (BOM if page.bom else "") + page.frontmatter_raw + page.compiled_truth + page.separator + "".join(before) + entry + "".join(lines[insert_at:])


def adopt_timeline_heading(page: Page, heading: bool) -> Page | None:
    """The page re-parsed with a ``---`` inserted above its own ``## Timeline``/``## History``
    heading, or None when it has none that such a line would make the separator.

    A page without a separator may still carry its timeline under that heading (a plain rule
    elsewhere, or no rule at all); the entry belongs there, not in a second section. The heading
    is adopted only when the re-parse (rule ``heading`` or ``rule``, as ``heading`` says) puts
    the separator exactly on the inserted line, outside code and comments.
    """
    nl = page.newline
    lines = split_lines(page.compiled_truth)
    head = (BOM if page.bom else "") + page.frontmatter_raw
    for i, ln in enumerate(lines):
        if not _TIMELINE_HEADING_RE.match(_strip_eol(ln)):
            continue
        before = lines[:i]
        if before and not before[-1].endswith(("\n", "\r")):
            continue
        pad = nl if before and before[-1].strip() else ""
        prefix = head + "".join(before) + pad
        text = prefix + "---" + nl + "".join(lines[i:])
        if not before and not page.frontmatter_raw:
            continue  # a '---' on the first line would read as a frontmatter opener
        new = parse_page(text, page.path, timeline_split="heading" if heading else "rule")
        if new.separator and len(new.render()) - len(new.separator) - len(new.timeline) == len(prefix):
            return new
    return None


def timeline_target(page: Page, heading: bool) -> Page:
    """The page as an appended timeline entry sees it: ``page`` itself when it has a timeline
    separator, else the page with its own ``## Timeline`` heading adopted as the timeline
    (:func:`adopt_timeline_heading`) when it has one, else ``page``. Its ``timeline_entries``
    are the entries an append must not repeat (``timeline-add``'s and ``put
    --timeline-append``'s one rule)."""
    return (None if page.separator else adopt_timeline_heading(page, heading)) or page


def entry_key(e: TimelineEntry) -> tuple[str, str, str]:
    """What makes two timeline entries the same entry: ``(date, source, summary)`` (a retried
    append of it adds nothing; its detail lines are not compared)."""
    return (e.date, e.source, e.summary)


def new_timeline_lines(target: Page, lines: str) -> tuple[str, int]:
    """``(lines, skipped)``: timeline ``lines`` (each entry with its indented detail lines;
    ``\\n`` line ends) without the entries ``target`` (:func:`timeline_target`) already holds
    by :func:`entry_key`, and how many entries were left out. Lines before the first entry are
    kept as they are."""
    have = {entry_key(e) for e in target.timeline_entries}
    groups: list[list[str]] = []
    for ln in lines.split("\n"):
        if is_timeline_line(ln) or not groups:
            groups.append([ln])
        else:
            groups[-1].append(ln)
    kept: list[str] = []
    skipped = 0
    for g in groups:
        entries = parse_timeline_entries("\n".join(g) + "\n") if is_timeline_line(g[0]) else []
        if entries and entry_key(entries[0]) in have:
            skipped += 1
        else:
            kept += g
    return "\n".join(kept).strip("\n"), skipped


def _entry_end(lines: list[str], i: int) -> int:
    """Index just past entry ``i`` and its indented detail lines."""
    j = i + 1
    while j < len(lines) and lines[j][:1] in (" ", "\t") and lines[j].strip():
        j += 1
    return j


#: a line that may hold an open task-list item's marker (``- [ ] x``, ``* [ ]``, ``1. [ ]``, in a
#: quote or a nested list too): only where the parser found such an item (:func:`open_tasks`)
_TASK_LINE_RE = re.compile(r"[ \t>]*(?:[-*+]|[0-9]{1,9}[.)])[ \t]+\[ \][ \t]+(\S.*)")


def _task_items(tokens: list, out: list[tuple[str, int]]) -> None:
    """The open task-list items of block ``tokens`` in document order, as ``(source text of the
    first inline token after the marker, number of line breaks in the item's first block)``."""
    for tok in tokens:
        if tok.get("type") == "list_item":
            first = (tok.get("children") or [{}])[0]
            ch = first.get("children") or [] if first.get("type") in ("block_text", "paragraph") else []
            head = ch[0].get("raw", "") if ch and ch[0].get("type") == "text" else ""
            m = re.match(r"\[ \][ \t]+", head)
            rest = head[m.end() :] if m else ""
            if m and not rest and len(ch) > 1:
                rest = ch[1]["raw"] if ch[1].get("type") == "wikilink" else ""  # `- [ ] [[Bob]] …`
            if m and (rest.strip() or len(ch) > 1):  # (a link token has no source text: '' matches any)
                out.append((rest.split("\n", 1)[0].rstrip(), sum(t.get("type") in ("softbreak", "linebreak") for t in ch)))
        if tok.get("children"):
            _task_items(tok["children"], out)


def open_tasks(body: str) -> list[tuple[int, str]]:
    """The open task-list items (GFM/Obsidian ``- [ ] …``, ``* [ ]``, ``1. [ ]``, in lists and
    quotes at any depth; not ``- [x]``, nor in code, HTML, math or ``%%`` comments) of a page body
    as the parser reads them: ``[(line index in body, text)]``, the text the item's first block's
    lines after the marker (a continuation line joined with a space)."""
    lf = to_lf(body)
    if "[ ]" not in lf:
        return []
    tokens, _ = _parse_ast(lf)
    found: list[tuple[str, int]] = []
    _task_items(tokens, found)
    if not found:
        return []
    lines = lf.split("\n")
    out: list[tuple[int, str]] = []
    i = 0
    for head, breaks in found:
        # the item's line: the next line with a task marker whose text starts as the item's
        while i < len(lines):
            m = _TASK_LINE_RE.fullmatch(lines[i])
            i += 1
            if m and m.group(1).startswith(head):
                more = [ln.strip().lstrip(">").strip() for ln in lines[i : i + breaks]]
                out.append((i - 1, " ".join([m.group(1).strip()] + [x for x in more if x])))
                break
    return out


#: an item of a list of links: it starts with its link (``- [[x]] — …``, ``- [T](x.md) — …``);
#: a task (``- [ ] …``) or prose with a link inside is not one
_LINK_ITEM = re.compile(r"([-*+]) (?:\[\[|\[[^\]\n]*\]\()")
_HEADING_LINE = re.compile(r"(?m)^ {0,3}#{1,6}[ \t]+(.*?)[ \t#]*$")


def append_link_line(page: Page, line: str) -> str:
    """New page text with the link ``line`` added: as one more item of the list of links the
    compiled truth ends with (its last line a ``-``/``*``/``+`` item that starts with a link: the
    item gets that marker); as a paragraph above the compiled truth's last section when that is
    an ``Open Threads`` one (its items are threads, and what follows them reads as one); else as
    :func:`append_to_compiled_truth`'s paragraph."""
    nl = page.newline
    ct = page.compiled_truth
    trail = len(ct) - len(ct.rstrip("\r\n"))
    core, tail = ct[: len(ct) - trail], ct[len(ct) - trail :]
    last = core[max(core.rfind("\n"), core.rfind("\r")) + 1 :]
    m = _LINK_ITEM.match(last)
    above = _above_open_threads(page, line)
    if above is not None:
        return above
    if not m or excalidraw_data_at(page) is not None:
        return append_to_compiled_truth(page, line)
    new_ct = core + nl + m.group(1) + " " + line + (tail if tail else (nl if page.separator else ""))
    if page.separator and not new_ct.endswith(nl + nl):
        new_ct = new_ct.rstrip("\r\n") + nl + nl
    return (BOM if page.bom else "") + page.frontmatter_raw + new_ct + page.separator + page.timeline


#: the start of the section the Excalidraw plugin regenerates from the drawing at every save:
#: ``# Excalidraw Data`` (plugin 1.9 on), ``# Text Elements`` (before), or the ``%%`` that opens
#: a ``# Drawing`` / ``## Drawing`` block when neither heading is there
_EXCALIDRAW_DATA_RE = re.compile(r"(?m)^(?:# (?:Excalidraw Data|Text Elements)[ \t]*\r?$|%%[ \t]*\r?\n#{1,2} Drawing[ \t]*\r?$)")


def excalidraw_data_at(page: Page) -> int | None:
    """Where the drawing data of an Excalidraw plugin's drawing note (frontmatter
    ``excalidraw-plugin``) starts in its compiled truth, or None (no drawing, or no data
    section). The plugin keeps only the text above it: it writes everything from there on
    anew from the drawing at its next save, so gbrain adds nothing below it."""
    if not isinstance(page.frontmatter, dict) or "excalidraw-plugin" not in page.frontmatter:
        return None
    m = _EXCALIDRAW_DATA_RE.search(page.compiled_truth)
    return m.start() if m else None


# an ATX heading line ended by LF, CRLF or a bare CR (``_HEADING_LINE`` reads ``\n`` ends only)
_ANY_END_HEADING = re.compile(r"(?<![^\r\n]) {0,3}#{1,6}[ \t]+([^\r\n]*?)[ \t#]*(?=[\r\n]|\Z)")


def _is_open_threads(m: re.Match) -> bool:
    return m.group(1).strip().casefold().rstrip(":").strip() == "open threads"


def _above_open_threads(page: Page, line: str) -> str | None:
    """New page text with ``line`` (no ending) as a paragraph right above the compiled truth's last
    section when that is an ``Open Threads`` one (:func:`open_threads_at`), or None when it is not.
    An Open Threads item is an unresolved thread (brain_threads lists it), and a paragraph below the
    items reads as part of that section (trial 70: a link; trial 72: ``put --append``'s fact)."""
    h = open_threads_at(page)
    if h is None:
        return None
    nl = page.newline
    ct = page.compiled_truth
    core, tail = ct[:h], ct[h:]
    above = core.rstrip("\r\n")
    gap = core[len(above):]  # (the line ends above the heading: kept below the paragraph when they make a blank line)
    if len(split_lines(gap)) < 2:
        gap = nl + nl
    return ((BOM if page.bom else "") + page.frontmatter_raw + above + (nl + nl if above.strip() else "" if not above else nl)
            + line + gap + tail + page.separator + page.timeline)


def open_threads_at(page: Page) -> int | None:
    """The offset in ``page.compiled_truth`` of its last heading when that is an ``Open Threads``
    one (any level or case, a trailing colon; a heading line in fenced code or an HTML comment is
    none: a template page showing the section; lines ended by LF, CRLF or a bare CR), where
    :func:`append_to_compiled_truth` and :func:`append_link_line` put their text; else None (and
    for an Excalidraw drawing note). One block parse of the compiled truth when a line reads
    ``# Open Threads``."""
    ct = page.compiled_truth
    heads = list(_ANY_END_HEADING.finditer(ct))
    if not any(_is_open_threads(m) for m in heads) or excalidraw_data_at(page) is not None:
        return None
    hidden = unread_spans(ct)
    heads = [m for m in heads if not any(x <= m.start() < z for x, z in hidden)]
    return heads[-1].start() if heads and _is_open_threads(heads[-1]) else None


def append_to_compiled_truth(page: Page, line: str) -> str:
    """New page text with ``line`` (no ending) appended as its own paragraph at the end of the
    compiled truth (above the separator); above the compiled truth's last section when that is an
    ``Open Threads`` one (:func:`_above_open_threads`); in an Excalidraw drawing note, at the end
    of the text above its drawing data (:func:`excalidraw_data_at`), which the plugin keeps."""
    nl = page.newline
    ct = page.compiled_truth
    above = _above_open_threads(page, line)
    if above is not None:
        return above

    def lead(core: str) -> str:
        # a paragraph after text; a line of its own after white space (`    More.` is indented code) or
        # after frontmatter whose closing `---` ends the page (`---More.` would open it again)
        if core.strip():
            return nl + nl
        open_fm = not core and page.frontmatter_raw and not page.frontmatter_raw.endswith(("\n", "\r"))
        return nl if core or open_fm else ""

    at = excalidraw_data_at(page)
    if at is not None:
        core = ct[:at].rstrip("\r\n")
        tail = ct[len(core):at]
        if core.strip():
            tail = tail if tail.count("\n") >= 2 else nl + nl
        else:
            tail = nl + nl
        add = lead(core) + line
        return (BOM if page.bom else "") + page.frontmatter_raw + core + add + tail + ct[at:] + page.separator + page.timeline
    trail = len(ct) - len(ct.rstrip("\r\n"))
    core, tail = ct[: len(ct) - trail], ct[len(ct) - trail :]
    add = lead(core) + line
    new_ct = core + add + (tail if tail else (nl if page.separator else ""))
    if page.separator and not new_ct.endswith(nl + nl):
        new_ct = new_ct.rstrip("\r\n") + nl + nl
    return (BOM if page.bom else "") + page.frontmatter_raw + new_ct + page.separator + page.timeline
