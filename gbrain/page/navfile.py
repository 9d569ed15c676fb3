"""Docs trees' navigation files, read, never rewritten: DocFX / Microsoft Learn ``TOC.yml``
(``toc.yml``), Jupyter Book ``_toc.yml`` and MkDocs ``mkdocs.yml`` (its ``nav:``).

Such a file is a stored file (its bytes exact); the entries naming a page are stored at its save
(:func:`nav_rows`, table ``nav_entries``, SQLite v61 / Postgres v65) and resolved against the pages
when read (:meth:`gbrain.core.brain.Brain.nav_links`; docs/storage.md "Navigation files"): each
entry naming a page is a link of kind ``nav`` from
the nav file, its context the entry's section path (``Identity › AD DS › Plan``). Where a target
is relative to (:func:`nav_entries`' base folder): a TOC's ``href``/``topicHref`` and a Jupyter
Book's ``file`` (extension optional) to the nav file's folder; an MkDocs ``nav`` path to
``docs_dir`` (default ``docs``) beside ``mkdocs.yml``. An external URL, a nested TOC (``href:
x/toc.yml``, ``href: x/``), a landing ``.yml`` page, a glob and an ``.ipynb`` name no page.

The YAML is read by ruamel's safe loaders (C; on its error the pure one, :func:`_pure_fails_too`)
with every tag it does not know read as the plain value (``mkdocs.yml`` holds ``!!python/name:…`` and ``!ENV``), under the frontmatter's bounds
(:data:`~gbrain.page.markdown.FM_MAX_DEPTH`, the alias budget): a nav file that does not load
is a warning and no entries, never a failure; its bytes are kept as they are."""
from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from typing import Any

from .markdown import FM_BUDGET_BASE, FrontmatterUnloadable, _UNSTORABLE_ESCAPE, _constructor, _link_from_url, _storable_json, _too_deep, to_json_value

#: the file names (any case) read as nav files
NAV_NAMES = frozenset({"toc.yml", "toc.yaml", "_toc.yml", "_toc.yaml", "mkdocs.yml", "mkdocs.yaml"})
#: SQL ``LIKE`` patterns (any case on both engines) a nav file's path matches; :func:`is_nav_file` decides
NAV_LIKE = ("%toc.y%ml", "%mkdocs.y%ml")
#: the separator of a section path in a nav link's context
SECTION_SEP = " › "
#: the keys of a Jupyter Book ``_toc.yml`` entry holding its children, in the order they are read
_JB_CHILDREN = ("parts", "chapters", "sections", "entries", "subtrees")
#: a nav entry's file of these kinds is no page (a notebook, reStructuredText)
_NOT_PAGES = frozenset({".ipynb", ".rst"})
#: a nav file over this many bytes is read as listing no page (its save's warning says so): its
#: YAML costs ~1.3 CPU-s per MB to parse (~5 s when it did not load before ``_pure_fails_too``),
#: paid by each process's first ``backlinks``/``links``/lint that reads it (a 4.0 MB generated
#: TOC.yml: 7.0 s, 25.4 s). Twice MicrosoftDocs/sql-docs' docs/toc.yml (1.05 MB), the largest real
#: one seen
NAV_MAX_BYTES = 2 << 20


def is_nav_file(path: str) -> bool:
    return posixpath.basename(path).lower() in NAV_NAMES


def _mkdocs(path: str) -> bool:
    return posixpath.basename(path).lower().startswith("mkdocs.")


@dataclass(frozen=True)
class NavEntry:
    """One entry of a nav file naming a page, in the file's order."""

    href: str  # as written
    target: str  # the page path it names, without ``.md``, relative to the base folder
    section: tuple[str, ...]  # the names of the entries above it, then its own (else its path)
    form: str  # as written: ``href: x.md``, ``file: intro``, ``Install: guide/install.md``


_TOLERANT: list[Any] = []


def _tolerant() -> Any:
    """The frontmatter's safe constructor (impossible dates kept as text) reading a node of a
    tag it does not know as the plain scalar, list or mapping."""
    if _TOLERANT:
        return _TOLERANT[0]
    from ruamel.yaml.nodes import MappingNode, SequenceNode

    class Tolerant(_constructor()):  # type: ignore[misc,valid-type]
        def construct_unknown(self, node: Any) -> Any:
            if isinstance(node, SequenceNode):
                return self.construct_yaml_seq(node)
            if isinstance(node, MappingNode):
                return self.construct_yaml_map(node)
            return self.construct_scalar(node)

    Tolerant.add_constructor(None, Tolerant.construct_unknown)
    _TOLERANT.append(Tolerant)
    return Tolerant


def load_nav(data: bytes) -> tuple[Any, str | None]:
    """The JSON data of a nav file's YAML, or ``(None, warning)``: not UTF-8, YAML that does not
    load (C loader, then the pure one), nests deeper than ``FM_MAX_DEPTH``, holds an alias that
    contains itself or expands past ``FM_BUDGET_BASE + 2 × len``. A NUL or lone surrogate a YAML
    escape loads to is U+FFFD (``markdown._storable_json``)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None, "not UTF-8 text"
    text = text.removeprefix("\ufeff")
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    if _too_deep(text):
        return None, "YAML does not load: it nests too deep"
    try:
        try:
            y = YAML(typ="safe")
            y.Constructor = _tolerant()
            loaded = y.load(text)
        except YAMLError as e:
            if _pure_fails_too(text, e):
                raise
            y = YAML(typ="safe", pure=True)
            y.Constructor = _tolerant()
            loaded = y.load(text)
        data = to_json_value(loaded, budget=FM_BUDGET_BASE + 2 * len(text))
        # (a "\0" escape's NUL, a lone surrogate: U+FFFD, as in a frontmatter; neither engine stores them)
        return (_storable_json(data) if "\\" in text and _UNSTORABLE_ESCAPE.search(text) else data), None
    except RecursionError:
        return None, "YAML does not load: it nests too deep"
    except FrontmatterUnloadable as e:
        return None, "YAML does not load: " + str(e).replace("frontmatter ", "")
    except (YAMLError, ValueError, TypeError, AttributeError, LookupError) as e:
        problem = getattr(e, "problem", None) or (str(e).strip().splitlines() or [type(e).__name__])[0]
        mark = getattr(e, "problem_mark", None)
        return None, f"YAML does not load: {problem}" + (f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else "")


#: YAML's line breaks (libyaml's: NEL, LS, PS too), as the loaders count lines
_BREAK_RE = re.compile("\r\n|[\r\n\x85\u2028\u2029]")
#: what may stand on a line before a block collection's entry: its indentation, and a sequence's `- `
_ENTRY_PREFIX_RE = re.compile(r" *(?:- +)?")


def _pure_fails_too(text: str, c_error: Exception) -> bool:
    """Whether the pure-Python loader refuses ``text`` too, which the C loader (libyaml) refused
    with ``c_error``, judged without reading the whole text again: the pure loader reads what
    libyaml refuses only in a token or two (``[web:https://x]``, an anchor of other characters, a
    line opening with ``: ``), so it reads the text with the entries before the error dropped at
    each level of block collections that holds it (a block collection with fewer entries before
    the one that holds the error: the same state there; the collections found by the C parser's
    events, ~0.1 CPU-s per MB) and stops at its own error, near the start of what is left. True
    only when it refuses that text in its scanner or parser; False (read the whole text) when it
    loads it, refuses it otherwise (an alias of a dropped anchor), or nothing was dropped: a 1 MB
    TOC broken at its end cost 4.3 CPU-s (C 0.7, then pure 3.2), now ~0.8."""
    from ruamel.yaml import YAML
    from ruamel.yaml import events as ev
    from ruamel.yaml.cyaml import CParser
    from ruamel.yaml.error import MarkedYAMLError, YAMLError
    from ruamel.yaml.parser import ParserError
    from ruamel.yaml.scanner import ScannerError

    if (not isinstance(c_error, (ScannerError, ParserError)) or "\n%" in text or text.startswith("%")
            or any(c in text for c in "\x85\u2028\u2029")):
        # a composer's or constructor's error; a directive (%TAG) the dropped part may hold; a
        # line break of YAML 1.1's (libyaml's) that is none to the pure loader's YAML 1.2
        return False
    # per open collection: [block, mapping, nodes seen, (line, column) of each entry, line it starts on]
    open_: list[list] = []
    parser = CParser(text)
    try:
        while True:
            e = parser.get_event()
            if isinstance(e, (ev.ScalarEvent, ev.AliasEvent, ev.SequenceStartEvent, ev.MappingStartEvent)) and open_:
                c = open_[-1]
                if not c[1] or c[2] % 2 == 0:  # a sequence's item, a mapping's key
                    c[3].append((e.start_mark.line, e.start_mark.column))
                c[2] += 1
            if isinstance(e, (ev.SequenceStartEvent, ev.MappingStartEvent)):
                parent = open_[-1][3][-1][0] if open_ and open_[-1][3] else -1
                open_.append([not e.flow_style, isinstance(e, ev.MappingStartEvent), 0, [], parent])
            elif isinstance(e, (ev.SequenceEndEvent, ev.MappingEndEvent)):
                open_.pop()
            elif isinstance(e, ev.StreamEndEvent):
                return False  # libyaml parsed it all this time: not what c_error said
    except YAMLError:
        pass
    except Exception:
        return False
    lines = _BREAK_RE.split(text)
    starts = [0]
    for m in _BREAK_RE.finditer(text):
        starts.append(m.end())
    drops: list[tuple[int, int]] = []
    for block, _mapping, _n, entries, parent_line in open_:
        if not block:
            break  # inside a flow collection: its entries are no lines
        # the first entry goes too when it opens its own line (not the parent entry's: `- name: x`)
        first = 0 if entries and entries[0][0] > parent_line else 1
        keep = entries[first:]
        if len(keep) < 2 or any(not _ENTRY_PREFIX_RE.fullmatch(lines[ln][:col]) for ln, col in (keep[0], keep[-1]) if ln < len(lines)):
            continue
        a, b = keep[0][0], keep[-1][0]
        if a < b and b < len(starts):
            drops.append((starts[a], starts[b]))
    if not drops:
        return False
    kept, at = [], 0
    for a, b in sorted(drops):
        if a < at:
            return False
        kept.append(text[at:a])
        at = b
    kept.append(text[at:])
    y = YAML(typ="safe", pure=True)
    y.Constructor = _tolerant()
    try:
        y.load("".join(kept))
    except (ScannerError, ParserError):
        return True
    except (MarkedYAMLError, YAMLError, RecursionError, ValueError, TypeError, AttributeError, LookupError):
        return False
    return False


def _entry(out: list[NavEntry], href: Any, section: tuple[str, ...], form: str) -> None:
    if not isinstance(href, str):
        return
    h = href.strip()
    if not h or h.endswith("/") or is_nav_file(h.split("#", 1)[0].split("?", 1)[0]):
        return  # a nested TOC names no page
    target = _link_from_url(h)
    if target is not None and posixpath.splitext(target)[1].lower() not in _NOT_PAGES:
        out.append(NavEntry(href, target, section, form))


def _name(x: Any) -> str:
    return x.strip() if isinstance(x, str) else ""


def _docfx(items: list, out: list[NavEntry]) -> None:
    stack: list[tuple[Any, tuple[str, ...]]] = [(x, ()) for x in reversed(items)]
    while stack:
        item, above = stack.pop()
        if not isinstance(item, dict):
            continue
        name = _name(item.get("name")) or _name(item.get("displayName"))
        here = above + ((name,) if name else ())
        for key in ("href", "topicHref"):
            _entry(out, item.get(key), here or (str(item.get(key)),), f"{key}: {item.get(key)}")
        kids = item.get("items")
        if isinstance(kids, list):
            stack += [(x, here) for x in reversed(kids)]


def _jb_kids(item: dict, here: tuple[str, ...]) -> list:
    return [(x, here) for key in _JB_CHILDREN if isinstance(item.get(key), list) for x in item[key]]


def _jupyter_book(top: Any, out: list[NavEntry]) -> None:
    if isinstance(top, dict):
        if isinstance(top.get("root"), str):
            _entry(out, top["root"], (_name(top.get("title")) or top["root"].strip(),), f"root: {top['root']}")
        stack = _jb_kids(top, ())[::-1]
    else:
        stack = [(x, ()) for x in reversed(top)]
    while stack:
        item, above = stack.pop()
        if not isinstance(item, dict):
            continue
        name = _name(item.get("title")) or _name(item.get("caption")) or _name(item.get("part")) or _name(item.get("file"))
        here = above + ((name,) if name else ())
        if isinstance(item.get("file"), str):
            _entry(out, item["file"], here, f"file: {item['file']}")
        stack += _jb_kids(item, here)[::-1]


def _mkdocs_nav(nav: list, out: list[NavEntry]) -> None:
    stack: list[tuple[Any, tuple[str, ...]]] = [(x, ()) for x in reversed(nav)]
    while stack:
        item, above = stack.pop()
        if isinstance(item, str):
            _entry(out, item, above + (item.strip(),), item)
        elif isinstance(item, dict):
            kids = []
            for title, value in item.items():
                here = above + ((title.strip(),) if title.strip() else ())
                if isinstance(value, str):
                    _entry(out, value, here, f"{title}: {value}")
                elif isinstance(value, list):
                    kids += [(x, here) for x in value]
            stack += reversed(kids)


#: :func:`nav_entries`' answers by (sha256 of the bytes, path), so a process reads a nav file's
#: bytes once (its save's warning, then backlinks/lint; a watch or serve many times); bounded
_PARSED: dict[tuple[str, str], tuple[str, list[NavEntry], str | None]] = {}
_PARSED_MAX = 64


def nav_entries(data: bytes, path: str) -> tuple[str, list[NavEntry], str | None]:
    """``(base folder, entries naming a page, warning)`` of the nav file stored at ``path``: the
    folder the entries' targets are relative to (the nav file's; an ``mkdocs.yml``'s
    ``docs_dir``), the entries in the file's order, and a warning (None: the file loads and has
    the shape of its kind; an empty file or an ``mkdocs.yml`` without ``nav`` has no entries and
    no warning). A file over :data:`NAV_MAX_BYTES` is not parsed: no entries, a warning. Parsed
    once per process per content and path (``_PARSED``)."""
    if len(data) > NAV_MAX_BYTES:
        return posixpath.dirname(path), [], f"{len(data):,} bytes, over {NAV_MAX_BYTES:,} (navfile.NAV_MAX_BYTES): its entries are no links"
    import hashlib

    key = (hashlib.sha256(data).hexdigest(), path)
    got = _PARSED.get(key)
    if got is None:
        got = _nav_entries(data, path)
        if len(_PARSED) >= _PARSED_MAX:
            _PARSED.clear()
        _PARSED[key] = got
    return got[0], list(got[1]), got[2]


def _nav_entries(data: bytes, path: str) -> tuple[str, list[NavEntry], str | None]:
    folder = posixpath.dirname(path)
    top, warning = load_nav(data)
    if warning:
        return folder, [], warning
    out: list[NavEntry] = []
    if top is None:
        return folder, out, None
    name = posixpath.basename(path).lower()
    if _mkdocs(path):
        if not isinstance(top, dict):
            return folder, out, f"an mkdocs.yml is a mapping, not a {type(top).__name__}"
        docs = top.get("docs_dir") if isinstance(top.get("docs_dir"), str) and top.get("docs_dir").strip() else "docs"
        base = posixpath.normpath(posixpath.join(folder, docs.strip()))
        nav = top.get("nav", top.get("pages"))
        if nav is None:
            return base, out, None
        if not isinstance(nav, list):
            return base, out, f"its nav is a {type(nav).__name__}, not a list"
        _mkdocs_nav(nav, out)
        return base, out, None
    if name.startswith("_toc."):
        if not isinstance(top, (dict, list)):
            return folder, out, f"a _toc.yml is a mapping, not a {type(top).__name__}"
        _jupyter_book(top, out)
        return folder, out, None
    items = top.get("items") if isinstance(top, dict) else top
    if not isinstance(items, list):
        return folder, out, f"a TOC is a list of entries (or a mapping with items), not a {type(top).__name__}"
    _docfx(items, out)
    return folder, out, None


def nav_path(base: str, target: str) -> str:
    """The brain path (no ``.md``) a nav entry's ``target`` names from its ``base`` folder
    (:func:`nav_entries`); a leading ``/`` from the brain's top. Starts with ``..`` (or is
    ``.``) when it is above the top: no page."""
    return posixpath.normpath(target.lstrip("/") if target.startswith("/") else posixpath.join(base, target))


def lists_every_page(data: bytes, path: str) -> bool:
    """Whether the nav file stored at ``path`` is an ``mkdocs.yml`` without ``nav:`` (nor the old
    ``pages:``) that loads: MkDocs then lists every page under its ``docs_dir``
    (docs/storage.md "Navigation files")."""
    if not _mkdocs(path) or len(data) > NAV_MAX_BYTES:
        return False
    top, warning = load_nav(data)
    return warning is None and isinstance(top, dict) and "nav" not in top and "pages" not in top


def entry_lines(text: str, hrefs: list[str]) -> list[int | None]:
    """The 1-based line of each entry (its ``href`` as loaded, in the file's order) in the nav
    file's ``text``: its first whole occurrence after the previous entry's, else anywhere; None
    where the text does not hold it as loaded (an escaped or folded YAML scalar)."""
    import re

    out: list[int | None] = []
    at = 0
    for h in hrefs:
        pat = re.compile(r"(?<![^\s\"':\[{,])" + re.escape(h) + r"(?![^\s\"',\]}])")
        m = pat.search(text, at) or pat.search(text)
        if m is None:
            out.append(None)
            continue
        out.append(text.count("\n", 0, m.start()) + 1)
        at = m.end()
    return out


def nav_rows(data: bytes, path: str) -> tuple[list[tuple[int, str, str, str, str, str, int | None]], str | None]:
    """The ``nav_entries`` rows of the nav file stored at ``path`` (SQLite v61 / Postgres v65), a
    function of its bytes and path alone: ``(ord, path named (NFC), its slug_key, href as
    written, context (the section path), form, line)`` per entry naming a page, in the file's
    order, and :func:`nav_entries`' warning. Resolved against the pages when read
    (:meth:`gbrain.core.brain.Brain.nav_links`), so no page write changes them."""
    import unicodedata

    from .slugs import slug_key

    base, entries, warning = nav_entries(data, path)
    if not entries:
        return [], warning
    lines = entry_lines(data.decode("utf-8", "replace").removeprefix("\ufeff"), [e.href for e in entries])
    out = []
    for i, (e, line) in enumerate(zip(entries, lines)):
        c = unicodedata.normalize("NFC", nav_path(base, e.target))
        out.append((i, c, slug_key(c), e.href, SECTION_SEP.join(e.section)[:200], e.form[:200], line))
    return out, warning
