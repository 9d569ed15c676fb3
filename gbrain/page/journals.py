"""Logseq journal names: the page ``journals/2026_11_28.md`` is the day Logseq shows (and other
pages link) as ``[[Nov 28th, 2026]]``.

Logseq names a journal's file by ``:journal/file-name-format`` (default ``yyyy_MM_dd``) and shows
it, and resolves links to it, by ``:journal/page-title-format`` (default ``MMM do, yyyy``), both in
the graph's ``logseq/config.edn``. Pure functions here: read those two settings from the text of
a ``config.edn`` (:func:`formats`), and give a journal file name's day under a title format
(:func:`journal_title`: the file name read as a day as Logseq reads a page's name,
:func:`journal_day`, written in the title format). The link resolver (:mod:`gbrain.page.links`) finds a journal by that
title when no page has the name; nothing here reads or changes a page's text.

Patterns are Logseq's (date-fns) letters: ``yyyy``/``yy`` year, ``MMMM`` (January), ``MMM``
(Jan), ``MM``/``M`` month, ``dd``/``d`` day, ``do`` (28th), ``EEEE`` (Monday), ``EEE``/``E``
(Mon); text in single quotes and every other character is literal. English names only, as
Logseq writes them.
"""
from __future__ import annotations

import datetime as _dt
import re
from functools import lru_cache
from typing import NamedTuple

#: Logseq's own defaults (a graph without ``config.edn``, or one that does not set them)
TITLE_FORMAT = "MMM do, yyyy"
FILE_FORMAT = "yyyy_MM_dd"
#: the folder Logseq keeps journals in (``:journals-directory``, rarely changed: not read)
FOLDER = "journals"
#: where a graph keeps its settings, relative to the graph's root
CONFIG = "logseq/config.edn"

_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
           "October", "November", "December")
_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_TOKEN_RE = re.compile(r"'[^']*'|do|y+|M+|d+|E+|.", re.S)


def formats(config_text: str) -> tuple[str, str]:
    """``(title format, file-name format)`` set in the text of a Logseq ``config.edn``: its top
    map's ``:journal/page-title-format`` and ``:journal/file-name-format`` string values, read as
    EDN (:func:`settings`: not in a string, a ``;`` comment, a ``#_`` discarded form or another
    key's map; the first setting of a key counts); Logseq's default (:data:`TITLE_FORMAT`,
    :data:`FILE_FORMAT`) for one it does not set, or sets to no string or an empty one. Never raises."""
    st = settings(config_text)
    return st.title_format, st.file_format


#: EDN's tokens as :func:`_top_map` reads them: a string (an unclosed one runs to the end), a
#: regex literal ``#"…"`` (Clojure's, one form), a comment, a character literal (its character
#: and the token after it, to a delimiter: ``\a``, ``\newline``, ``\u0041``, ``\o101``), ``#_`` (discard
#: the next form), ``#{`` / a delimiter, blanks and commas, any other atom (a keyword, symbol,
#: number, a ``#tag`` or ``#?`` reader conditional prefixing the next form)
_EDN_TOKEN_RE = re.compile(r'#?"(?:[^"\\]|\\.)*"?|;[^\n]*|\\.[^\s,;"{}\[\]()\\]*|#_|#\{|[{}\[\]()]|[\s,]+|[^\s,;"{}\[\]()\\]+|.', re.S)


def _top_map(config_text: str) -> list:
    """The items (keys and values alternating: an atom's text, or a list for a collection) of the
    first map of an EDN text, read as EDN reads it (strings, ``;`` comments and ``#_`` discarded
    forms are no keys); lenient where the text is malformed (an unclosed collection ends with the
    text, an unmatched closer is skipped). An explicit stack: no recursion on deep nesting."""
    stack: list[tuple[str, list, list]] = [("", [], [])]  # (opener, items, pending prefixes)

    def emit(form) -> bool:
        items, prefixes = stack[-1][1], stack[-1][2]
        while prefixes:
            if prefixes.pop() == "#_":
                return False  # a discarded form (a discarded top map is not the config's)
            # (a #tag prefix: the tagged form stands for the pair)
        items.append(form)
        return True

    for m in _EDN_TOKEN_RE.finditer(config_text):
        tok = m.group(0)
        if tok[0] in " \t\r\n,;" or tok.isspace():
            continue
        if tok in ("{", "#{", "[", "("):
            stack.append((tok, [], []))
        elif tok in ("}", "]", ")"):
            if len(stack) > 1:
                opener, items, _ = stack.pop()
                if emit((opener, items)) and opener == "{" and len(stack) == 1:
                    return items
        elif tok == "#_" or (tok[0] == "#" and len(tok) > 1 and tok[1] != '"'):
            stack[-1][2].append(tok)
        else:
            emit(tok)
    while len(stack) > 1:  # unclosed: the text ends them
        opener, items, _ = stack.pop()
        if emit((opener, items)) and opener == "{" and len(stack) == 1:
            return items
    return []


class Settings(NamedTuple):
    """What gbrain reads from a Logseq graph's ``config.edn`` (:func:`settings`): a save of the
    config that leaves these equal changes nothing gbrain derives."""

    #: ``:file/name-format``: ``triple-lowbar`` or ``legacy`` (:func:`name_format`)
    name_format: str
    #: ``:journal/page-title-format`` (:data:`TITLE_FORMAT` unset)
    title_format: str
    #: ``:journal/file-name-format`` (:data:`FILE_FORMAT` unset)
    file_format: str


#: the settings of a config that sets none (no config read: Logseq's defaults)
DEFAULTS = Settings("legacy", TITLE_FORMAT, FILE_FORMAT)

_EDN_ESCAPES = {"t": "\t", "r": "\r", "n": "\n", "b": "\b", "f": "\f"}
_EDN_ESCAPE_RE = re.compile(r'\\(u[0-9A-Fa-f]{4}|.)', re.S)
_EDN_STRING_RE = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)


def _edn_string(form) -> str | None:
    """The text of a closed EDN string token as :func:`_top_map` gives it (``"a\\"b"`` → ``a"b``:
    ``\\t \\r \\n \\b \\f \\uXXXX``, any other escaped character itself), None for any
    other form."""
    if not isinstance(form, str) or not _EDN_STRING_RE.fullmatch(form):
        return None
    body = form[1:-1]
    if "\\" not in body:
        return body
    return _EDN_ESCAPE_RE.sub(lambda m: chr(int(m[1][1:], 16)) if len(m[1]) == 5 else _EDN_ESCAPES.get(m[1], m[1]), body)


@lru_cache(maxsize=32)  # (a page's save reads its graph's config: graphs_of)
def settings(config_text: str) -> Settings:
    """The :class:`Settings` of the Logseq graph whose ``config.edn`` text is ``config_text``: the
    keys of the config's top map, read as EDN (:func:`_top_map`: not in a string, a ``;`` comment,
    a ``#_`` discarded form or another key's map; a key's first setting counts). Lenient where
    Logseq's reader (``cljs.reader``) refuses the whole file (a regex literal, a reader
    conditional, a duplicate key: Logseq then uses its defaults): the settings written are read.
    Never raises."""
    if ":file/name-format" not in config_text and ":journal/" not in config_text:
        return DEFAULTS
    top: dict = {}
    items = _top_map(config_text)
    for key, value in zip(items[::2], items[1::2]):
        if isinstance(key, str):
            top.setdefault(key, value)
    return Settings("triple-lowbar" if top.get(":file/name-format") == ":triple-lowbar" else "legacy",
                    _edn_string(top.get(":journal/page-title-format")) or TITLE_FORMAT,
                    _edn_string(top.get(":journal/file-name-format")) or FILE_FORMAT)


def name_format(config_text: str) -> str:
    """How the Logseq graph whose ``config.edn`` text is ``config_text`` names its pages' files
    (``:file/name-format``): ``triple-lowbar`` (Logseq's since 0.8.9, written into every new
    graph's config: ``Project___Alpha.md`` is ``Project/Alpha``) or ``legacy`` (a config that sets
    none or another: older graphs, ``Project.Alpha.md`` / ``Project%2FAlpha.md``), as Logseq reads
    it (:func:`gbrain.page.markdown.logseq_page_name`), from :func:`settings`. Never raises."""
    return settings(config_text).name_format


def _ordinal(n: int) -> str:
    suffix = "th" if 11 <= n % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def format_day(day: _dt.date, pattern: str) -> str:
    """``day`` written in the Logseq ``pattern`` (``MMM do, yyyy`` → ``Nov 28th, 2026``)."""
    out = []
    for tok in _TOKEN_RE.findall(pattern):
        c, n = tok[0], len(tok)
        if c == "'":
            out.append(tok[1:-1] if n > 2 else "'")
        elif tok == "do":
            out.append(_ordinal(day.day))
        elif c == "y":
            out.append(f"{day.year % 100:02d}" if n == 2 else f"{day.year:0{n}d}")
        elif c == "M":
            out.append(_MONTHS[day.month - 1] if n >= 4 else _MONTHS[day.month - 1][:3] if n == 3 else f"{day.month:0{n}d}")
        elif c == "d":
            out.append(f"{day.day:0{min(n, 2)}d}")
        elif c == "E":
            out.append(_DAYS[day.weekday()] if n >= 4 else _DAYS[day.weekday()][:3])
        else:
            out.append(tok)
    return "".join(out)


@lru_cache(maxsize=64)
def _file_re(pattern: str) -> re.Pattern | None:
    """A regex reading a file name written in ``pattern`` (numeric year, month and day only:
    None for a pattern with names, which file names in Logseq never use)."""
    parts, seen = [], set()
    for tok in _TOKEN_RE.findall(pattern):
        c = tok[0]
        if c == "'":
            parts.append(re.escape(tok[1:-1] if len(tok) > 2 else "'"))
        elif c in "yMd" and tok != "do":
            if c in seen:
                return None
            seen.add(c)
            width = 4 if c == "y" and len(tok) != 2 else 2 if len(tok) >= 2 or c == "y" else 0
            parts.append(f"(?P<{c}>\\d{{{width}}})" if width else f"(?P<{c}>\\d{{1,2}})")
        elif c in "yMdE":
            return None
        else:
            parts.append(re.escape(tok))
    return re.compile("".join(parts) + r"\Z") if seen == {"y", "M", "d"} else None


def file_day(name: str, pattern: str = FILE_FORMAT) -> _dt.date | None:
    """The day a journal file name (without ``.md``) written in ``pattern`` names, or None
    (another name, an impossible date: ``2026_02_30``)."""
    rx = _file_re(pattern)
    m = rx.match(name) if rx else None
    if not m:
        return None
    y = int(m["y"])
    if len(m["y"]) == 2:
        y += 2000
    try:
        return _dt.date(y, int(m["M"]), int(m["d"]))
    except ValueError:
        return None


#: the formats Logseq reads a page's name as a day by after the graph's title format
#: (``safe-journal-title-formatters``, logseq/logseq
#: deps/graph-parser/src/logseq/graph_parser/date_time_util.cljs, tag 0.10.9), whatever
#: ``:journal/file-name-format`` says (that one only names the files Logseq writes)
DAY_FORMATS = (TITLE_FORMAT, "yyyy-MM-dd", "yyyy_MM_dd")


def journal_day(name: str, title_format: str = TITLE_FORMAT, file_format: str = FILE_FORMAT) -> _dt.date | None:
    """The day a journal's file name ``name`` (without ``.md``) names as Logseq reads it
    (``convert-page-if-journal``, deps/graph-parser/src/logseq/graph_parser/block.cljs): by the
    graph's ``title_format``, then :data:`DAY_FORMATS`, then (gbrain's addition: the names Logseq
    writes) ``file_format``; formats with month or day names read no file name (:func:`file_day`).
    None for no day."""
    for pattern in (title_format, *DAY_FORMATS, file_format):
        day = file_day(name, pattern)
        if day:
            return day
    return None


def journal_title(name: str, title_format: str = TITLE_FORMAT, file_format: str = FILE_FORMAT) -> str | None:
    """The title Logseq shows for the journal file ``name`` (its file name without ``.md``):
    ``2026_11_28`` → ``Nov 28th, 2026`` under the defaults, its day (:func:`journal_day`) in
    ``title_format``; None when ``name`` is no day."""
    day = journal_day(name, title_format, file_format)
    return format_day(day, title_format) if day else None


def journal_names(name: str, title_format: str = TITLE_FORMAT, file_format: str = FILE_FORMAT) -> list[str]:
    """The names a link finds the journal file ``name`` by as Logseq reads a link's name (as a day,
    by ``title_format`` then :data:`DAY_FORMATS`, ``convert-page-if-journal``): its title
    (:func:`journal_title`) first, then its day in each of :data:`DAY_FORMATS`; ``[]`` for no day."""
    day = journal_day(name, title_format, file_format)
    if not day:
        return []
    out = [format_day(day, title_format)]
    for pattern in DAY_FORMATS:
        n = format_day(day, pattern)
        if n not in out:
            out.append(n)
    return out


#: what parts a graph's journal formats from what they follow (:func:`join_formats`)
_SEP = "\x1f"


def join_formats(head: str, formats: tuple[str, str] | None) -> str:
    """``head`` followed, when ``formats`` (title format, file-name format) is given, by
    ``\\x1f`` title format ``\\x1f`` file-name format: how the journal formats of a graph ride in
    :func:`graph_value` (``head`` its name format) and in a journal page's syntax
    (``logseq\\x1fTITLE\\x1fFILE``: :func:`gbrain.page.markdown.page_property_syntax`, read by
    :func:`gbrain.page.markdown.journal_name`). ``None``: Logseq's defaults, ``head`` alone.
    :func:`split_formats` reads it back."""
    return _SEP.join((head, *formats)) if formats else head


def split_formats(value: str) -> tuple[str, tuple[str, str] | None]:
    """``(head, (title format, file-name format) or None for Logseq's defaults)`` of a
    :func:`join_formats` value (a :func:`graph_value`, a journal page's syntax): the formats only
    when the value has exactly three parts. Never raises."""
    parts = value.split(_SEP)
    return parts[0], (parts[1], parts[2]) if len(parts) == 3 else None


def graph_value(config_text: str) -> str:
    """What :func:`gbrain.page.links.graph_roots` gives for the graph whose ``config.edn`` text is
    ``config_text``: its :func:`name_format`, followed, where its journal formats are not Logseq's
    defaults, by them (:func:`join_formats`; :func:`split_formats` reads it). Never raises."""
    st = settings(config_text)
    days = (st.title_format, st.file_format)
    return join_formats(st.name_format, None if days == (TITLE_FORMAT, FILE_FORMAT) else days)


def graph_root(slug: str) -> str | None:
    """The graph root of a page that may be a journal (``notes/graph/journals/2026_11_28`` →
    ``notes/graph``; ``journals/x`` → ``''``), or None when its folder is no ``journals``."""
    head, _, _ = slug.rpartition("/")
    root, _, folder = head.rpartition("/")
    return root if folder == FOLDER else None
