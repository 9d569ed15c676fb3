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
#: the folder Logseq keeps journals in unless a config's ``:journals-directory`` names another
#: (:attr:`Settings.journals_dir`; ``:pages-directory``, :attr:`Settings.pages_dir`, for its pages)
FOLDER = "journals"
#: where a graph keeps its settings, relative to the graph's root
CONFIG = "logseq/config.edn"

_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
           "October", "November", "December")
_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_TOKEN_RE = re.compile(r"'[^']*'|do|y+|M+|d+|E+|.", re.S)


def formats(config_text: str) -> tuple[str, str]:
    """``(title format, file-name format)`` set in the text of a Logseq ``config.edn``: its top
    map's ``:journal/page-title-format`` (else the legacy ``:date-formatter``, as Logseq reads it)
    and ``:journal/file-name-format`` string values, read as
    EDN (:func:`settings`: not in a string, a ``;`` comment, a ``#_`` discarded form or another
    key's map; Logseq's defaults for a config its reader refuses); Logseq's default (:data:`TITLE_FORMAT`,
    :data:`FILE_FORMAT`) for one it does not set, or sets to no string or an empty one. Never raises."""
    st = settings(config_text)
    return st.title_format, st.file_format


#: EDN's tokens as :func:`_top_map` reads them: a string (an unclosed one runs to the end), a
#: regex literal ``#"…"`` (Clojure's, one form), a comment, a character literal (its character
#: and the token after it, to a delimiter: ``\a``, ``\newline``, ``\u0041``, ``\o101``), ``#_`` (discard
#: the next form), ``#{`` / a delimiter, blanks and commas, any other atom (a keyword, symbol,
#: number, a ``#tag`` or ``#?`` reader conditional prefixing the next form)
_EDN_TOKEN_RE = re.compile(r'#?"(?:[^"\\]|\\.)*"?|;[^\n]*|\\.[^\s,;"{}\[\]()\\]*|#_|#\{|[{}\[\]()]|[\s,]+|[^\s,;"{}\[\]()\\]+|.', re.S)


#: the tagged literals EDN readers read without a reader of their own (tools.reader.edn's
#: ``default-data-readers``; ``cljs.reader``'s tag table adds ``#queue`` and ``#js``)
_EDN_TAGS = frozenset({"#inst", "#uuid", "#queue", "#js"})
#: the closer of each collection's opener
_CLOSERS = {"{": "}", "#{": "}", "[": "]", "(": ")"}


def _top_map(config_text: str, strict: bool = False) -> list | None:
    """The items (keys and values alternating: an atom's text, or a list for a collection) of the
    first map of an EDN text, read as EDN reads it (strings, ``;`` comments and ``#_`` discarded
    forms are no keys); lenient where the text is malformed (an unclosed collection ends with the
    text, an unmatched closer is skipped). An explicit stack: no recursion on deep nesting.
    ``strict``: the text's first form read as Logseq's EDN reader reads it (:func:`_read_top_map`:
    the first form only, what follows it unread): ``[]`` when that form is no map, None when the
    reader refuses it. Lenient is the pre-v78 reading (:func:`lenient_settings`): keep it as is."""
    if strict:
        return _read_top_map(config_text)
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


#: the blanks of Logseq's EDN reader (cljs.tools.reader ``whitespace?``: JavaScript's ``\s`` and
#: the comma; a byte-order mark is one, ``\x1c``-``\x1f`` and ``\x85`` are not, unlike Python's)
_JS_BLANKS = "\t\n\x0b\x0c\r \xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff,"
#: the characters that end a token (``macro-terminating?``: the reader macros but ``#``, ``'``, ``:``)
_ENDS = _JS_BLANKS + r'";^(){}\[\]\\'
#: the strict reader's tokens: a string (open: to the end), a regex literal, a ``;`` or ``#!`` line
#: comment, a character literal, a namespaced map's opener ``#:ns{``, a dispatch (``#_``, ``#{``,
#: ``#^``, ``#tag``, any other ``#``), ``^``, a delimiter, blanks, an atom, any other character
_STRICT_TOKEN_RE = re.compile(
    rf'#?"(?:[^"\\]|\\.)*"?|;[^\n]*|#![^\n]*|\\(?:[{_ENDS}]|[^{_ENDS}]+)|#:[^{_ENDS}]*[{_JS_BLANKS}]*\{{?'
    rf'|#_|#\{{|#\^|#[^{_ENDS}]*|\^|[{{}}\[\]()]|[{_JS_BLANKS}]+|[^{_ENDS}]+|.', re.S)
#: a string's escapes the reader reads (``escape-char``: ``\t \r \n \\ \" \b \f``, ``\uXXXX``, octal)
_STRICT_STRING_RE = re.compile(r'"(?:[^"\\]|\\(?:[trn\\"bf]|u[0-9A-Fa-f]{4}|[0-3]?[0-7]{1,2}(?![0-9])))*"', re.S)
_BLANKS_RE = re.compile(f"[{_JS_BLANKS}]+")


#: cljs.tools.reader's number patterns (impl/commons.cljs): an int (``0[0-9]+`` matches but is
#: no number: refused), a float (``1e3``, ``1.5M``), a ratio (``1/2``)
_INT_RE = re.compile(r"([-+]?)(?:(0)|([1-9][0-9]*)|0[xX]([0-9A-Fa-f]+)|0([0-7]+)|([1-9][0-9]?)[rR]([0-9A-Za-z]+)|(0[0-9]+))(N)?")
_FLOAT_RE = re.compile(r"[-+]?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?M?")
_RATIO_RE = re.compile(r"[-+]?[0-9]+/[0-9]+")
_CHAR_NAMES = frozenset({"newline", "space", "tab", "backspace", "formfeed", "return"})


def _symbol_ok(token: str) -> bool:
    """cljs.tools.reader's ``parse-symbol``: no ``:`` at the end, no ``::`` first, at most one
    ``/`` splitting a namespace from a name that starts with no digit (``/`` alone, ``ns//``)."""
    if not token or token.endswith(":") or token.startswith("::"):
        return False
    ns, slash, name = token.partition("/")
    if not ns or not slash:
        return token == "/" or "/" not in token
    return bool(name) and not name[0].isdigit() and (name == "/" or "/" not in name)


def _atom_ok(tok: str) -> bool:
    """Whether Logseq's EDN reader reads the atom ``tok`` (a number, character, keyword or symbol):
    a number by :data:`_INT_RE`/:data:`_FLOAT_RE`/:data:`_RATIO_RE` (``08``, ``1.2.3`` refused), a
    character ``\\a``, ``\\newline``, ``\\u00e9`` (four hex digits, no surrogate), ``\\o101``
    (at most ``\\o377``), a keyword or symbol by :func:`_symbol_ok` (``::kw``, ``:a/b/c``
    refused); ``@``, a backquote or ``~`` in a keyword or symbol refused."""
    c = tok[0]
    if c == "\\":
        body = tok[1:]
        if len(body) == 1 or body in _CHAR_NAMES:
            return True
        if body[0] == "u":
            return bool(re.fullmatch(r"[0-9A-Fa-f]{4}", body[1:])) and not 0xD800 <= int(body[1:], 16) <= 0xDFFF
        return body[0] == "o" and bool(re.fullmatch(r"[0-7]{1,3}", body[1:])) and int(body[1:], 8) <= 0o377
    if c.isdigit() or (c in "+-" and len(tok) > 1 and tok[1].isdigit()):
        m = _INT_RE.fullmatch(tok)
        if m:
            return not m[8] and not (m[7] and int(m[6]) > 36) and not (m[7] and any(int(ch, 36) >= int(m[6]) for ch in m[7]))
        return bool(_FLOAT_RE.fullmatch(tok) or _RATIO_RE.fullmatch(tok))
    if any(ch in tok for ch in "@`~"):
        return False
    if c == ":":
        return len(tok) > 1 and "::" not in tok and _symbol_ok(tok[1:])
    return _symbol_ok(tok)


def _value(form):
    """A form as the reader's ``=`` compares it (duplicate keys and set elements): a string by its
    text, a list equal to the vector of its items, a map or set whatever its order, a tagged form
    with its tag; an atom (keyword, symbol, number) by its text."""
    if isinstance(form, tuple):
        opener, items = form
        if opener.startswith("#") and opener not in ("#{",):
            return (opener, _value(items))  # (a tagged form)
        vals = [_value(i) for i in items]
        if opener in ("[", "("):
            return ("seq", tuple(vals))
        if opener == "#{":
            return ("set", frozenset(vals))
        return ("map", frozenset(zip(vals[::2], vals[1::2])))
    text = _edn_string(form)
    return ("str", text) if text is not None else form


def _ns_key(ns: str, key):
    """A namespaced map's key (``namespace-keys``): a keyword or symbol with no namespace takes
    ``ns``, one of namespace ``_`` loses it, any other key is itself."""
    if not isinstance(key, str) or key[:1] in '"\\' or key[:1].isdigit():
        return key
    colon = ":" if key.startswith(":") else ""
    name = key[len(colon):]
    if "/" in name and name != "/":
        return colon + name.split("/", 1)[1] if name.split("/", 1)[0] == "_" else key
    return f"{colon}{ns}/{name}"


def _read_top_map(text: str) -> list | None:
    """:func:`_top_map` strict: the items of ``text``'s first form read as Logseq's EDN reader reads
    it (ClojureScript's ``clojure.edn/read-string`` → ``cljs.tools.reader.edn``), ``[]`` when that
    form is no map (or there is none), None when the reader throws on it. Read as that reader
    reads: JavaScript's blanks, ``#!`` comments, ``^meta form`` (metadata on a collection or
    symbol, dropped), ``#:ns{…}`` (its keys namespaced), ``#{…}`` (no duplicate check: ``set``);
    refused: an unclosed form or string, a string escape EDN has not, a stray or wrong closer, an
    odd map or a key twice (by value, :func:`_value`), ``#"…"``, ``#?``, a tag but
    :data:`_EDN_TAGS`, ``#_``/``^``/a tag with no form before a closer, ``::kw``."""
    stack: list[list] = [["", [], []]]  # [opener, items, pending prefixes]

    def done(form):
        """Give the finished ``form`` to the innermost pending prefix, else to the collection:
        False when the reader throws, True when the top form is finished, else None."""
        prefixes = stack[-1][2]
        while prefixes:
            p = prefixes.pop()
            if p == "#_":
                return None  # (discarded)
            if p == "^":
                meta = form
                if not (isinstance(meta, tuple) and meta[0] in ("{", "[")) and not (
                        isinstance(meta, str) and meta[:1] not in "\\+-0123456789" and meta not in ("nil", "true", "false")):
                    return False  # (metadata must be a keyword, symbol, string or map)
                prefixes.append(("^", meta))
                return None
            if isinstance(p, tuple):  # (the form the metadata is on: a collection or symbol)
                if not (isinstance(form, tuple) and form[0] in ("{", "[", "(", "#{") or isinstance(form, str) and form[:1] not in '":\\+-0123456789' and form not in ("nil", "true", "false")):
                    return False
                continue
            form = (p, form)  # (a tagged form)
        stack[-1][1].append(form)
        return len(stack) == 1 or None

    for m in _STRICT_TOKEN_RE.finditer(text):
        tok = m.group(0)
        c = tok[0]
        if c == ";" or tok.startswith("#!") or _BLANKS_RE.fullmatch(tok):
            continue
        end = None
        if c == '"':
            if not _STRICT_STRING_RE.fullmatch(tok):
                return None  # (left open, or an escape EDN has not)
            end = done(tok)
        elif tok.startswith('#"') or tok.startswith("##") or tok in ("#", "#?") or tok.startswith("#?"):
            return None  # (a regex literal, a reader conditional, a dispatch EDN has not)
        elif tok.startswith("#:"):
            ns = _BLANKS_RE.sub("", tok[2:]).rstrip("{")
            if not tok.endswith("{") or not ns or ns.endswith(":") or ns.startswith(":"):
                return None  # (no map after the namespace)
            stack.append([tok, [], []])
        elif tok in ("{", "#{", "[", "("):
            stack.append([tok, [], []])
        elif tok in ("}", "]", ")"):
            opener, items, prefixes = stack[-1]
            if len(stack) == 1 or prefixes or _CLOSERS.get(opener, "}") != tok:
                return None  # (a stray closer, another collection's, a prefix with no form)
            stack.pop()
            if opener.startswith("#:"):
                ns = _BLANKS_RE.sub("", opener[2:]).rstrip("{")
                items = [_ns_key(ns, x) if i % 2 == 0 else x for i, x in enumerate(items)]
                opener = "{"
            if opener == "{":
                if len(items) % 2:
                    return None
                keys = [_value(k) for k in items[::2]]
                if len(set(keys)) != len(keys):
                    return None
            end = done((opener, items))
            if end:  # (the first form: a map's items; a tagged map or another collection is no map)
                first = stack[0][1][-1]
                return first[1] if first[0] == "{" else []
        elif tok in ("#_", "^", "#^"):
            stack[-1][2].append("^" if tok == "#^" else tok)
        elif c == "#":
            if tok not in _EDN_TAGS:
                return None  # (a tag no EDN reader reads)
            stack[-1][2].append(tok)
        elif len(tok) == 1 and c == "\\" or not _atom_ok(tok):
            return None  # (a character, number, keyword or symbol the reader throws on)
        else:
            end = done(tok)
        if end is False:
            return None
        if end:
            return []  # (the first form is an atom)
    return [] if len(stack) == 1 and not stack[0][2] else None  # (no form, or EOF inside the first)


class Settings(NamedTuple):
    """What gbrain reads from a Logseq graph's ``config.edn`` (:func:`settings`): a save of the
    config that leaves these equal changes nothing gbrain derives."""

    #: ``:file/name-format``: ``triple-lowbar`` or ``legacy`` (:func:`name_format`)
    name_format: str
    #: ``:journal/page-title-format``, else the legacy ``:date-formatter`` (Logseq's graph-parser
    #: ``config.cljs``: ``(or (:journal/page-title-format c) (:date-formatter c) "MMM do, yyyy")``),
    #: else :data:`TITLE_FORMAT`
    title_format: str
    #: ``:journal/file-name-format`` (:data:`FILE_FORMAT` unset)
    file_format: str
    #: ``:pages-directory``: the folder under the graph's root Logseq writes new pages into
    #: (``pages`` unset; :func:`_folder`)
    pages_dir: str = "pages"
    #: ``:journals-directory``: the folder Logseq writes new journals into (:data:`FOLDER` unset)
    journals_dir: str = "journals"


#: the settings of a config that sets none (no config read: Logseq's defaults)
DEFAULTS = Settings("legacy", TITLE_FORMAT, FILE_FORMAT)
#: the folder settings :func:`settings` reads (their keys' common tail: the early return)
_DIR_KEYS = (":pages-directory", ":journals-directory")


def _folder(form, default: str) -> str:
    """A folder setting's value: the EDN string's text without leading/trailing ``/`` (``./`` and
    a ``.`` segment dropped), ``default`` for no string, an empty one, or one naming no folder
    inside the graph (``..`` in it)."""
    text = _edn_string(form)
    if not text:
        return default
    parts = [p for p in text.replace("\\", "/").split("/") if p not in ("", ".")]
    return "/".join(parts) if parts and ".." not in parts else default

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
    a ``#_`` discarded form or another key's map), :data:`DEFAULTS` for a text whose first form
    Logseq's EDN reader refuses (``read-repo-config``'s ``edn/read-string`` throws: an unclosed
    map, a stray closer, a duplicate key, a regex literal, a reader conditional…: Logseq then has
    no config of the graph and uses its defaults) or that is no map. Never raises."""
    return _settings(config_text, strict=True)


def lenient_settings(config_text: str) -> Settings:
    """:func:`settings` as gbrain read them before v78: the settings written in a config Logseq's
    reader refuses read as far as they go (an unclosed map ends with the text, a stray closer is
    skipped, a key's first setting counts), for the upgrade that derives again what that changed
    (``db.rederive_logseq_old_folders``). Never raises."""
    return _settings(config_text, strict=False)


def _settings(config_text: str, strict: bool) -> Settings:
    if (":file/name-format" not in config_text and ":journal/" not in config_text and ":date-formatter" not in config_text
            and "-directory" not in config_text and "#:" not in config_text):
        return DEFAULTS
    top: dict = {}
    items = _top_map(config_text, strict)
    if items is None:
        return DEFAULTS
    for key, value in zip(items[::2], items[1::2]):
        if isinstance(key, str):
            top.setdefault(key, value)
    return Settings("triple-lowbar" if top.get(":file/name-format") == ":triple-lowbar" else "legacy",
                    _edn_string(top.get(":journal/page-title-format")) or _edn_string(top.get(":date-formatter")) or TITLE_FORMAT,
                    _edn_string(top.get(":journal/file-name-format")) or FILE_FORMAT,
                    _folder(top.get(":pages-directory"), "pages"), _folder(top.get(":journals-directory"), FOLDER))


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
#: ``:journal/file-name-format`` says (that one only names the files Logseq writes:
#: src/main/frontend/date.cljs ``date->file-name``; the graph parser never reads it)
DAY_FORMATS = (TITLE_FORMAT, "yyyy-MM-dd", "yyyy_MM_dd")

#: cljs-time's two-digit year pivot (``infer-years``, logseq/cljs-time src/cljs_time/internal/parse.cljs,
#: the fork Logseq pins, 5704fbf): a parsed year below ``(this year + 20) % 100`` is this century's,
#: one from there to 99 the last's (Date.UTC). Logseq takes this year from the clock; gbrain fixes
#: it at 2026 (46) so a title stays a function of the text (a later year moves the pivot by one a year)
PIVOT_YEAR = 2026
_PIVOT = (PIVOT_YEAR + 20) % 100
_ASCII_LETTER = re.compile(r"[a-zA-Z]")
_MONTH_NAMES = _MONTHS + tuple(m[:3] for m in _MONTHS)
_DAY_NAMES = ("Sunday",) + _DAYS[:6]
_DAY_NAMES = _DAY_NAMES + tuple(d[:3] for d in _DAY_NAMES)
#: cljs-time's parsers of the tokens a day is read by (``lookup``): (field, fewest digits, most)
_NUMBER_TOKENS = {"d": ("days", 1, 2), "dd": ("days", 2, 2), "D": ("days", 1, 3), "DD": ("days", 2, 3), "DDD": ("days", 3, 3),
                  "M": ("months", 1, 2), "MM": ("months", 1, 2), "y": ("years", 1, 4), "yy": ("years", 2, 2),
                  "yyyy": ("years", 4, 4), "Y": ("years", 1, 4), "YY": ("years", 2, 2), "YYYY": ("years", 4, 4)}


class _Unparsed(Exception):
    """cljs-time's parse threw (a formatter that reads no day: the next one is tried)."""


@lru_cache(maxsize=64)
def _pattern(pattern: str) -> tuple:
    """``pattern`` read as cljs-time's ``read-pattern`` reads it: ``('q', text)`` a quoted or
    punctuation run (matched as a regex, as ``parse-quoted`` does), ``('t', letters)`` a run of one
    letter."""
    out, i, n = [], 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "'":
            if pattern[i + 1 : i + 2] == "'":
                out.append(("q", "'"))
                i += 2
            else:
                j = pattern.find("'", i + 1)
                j = n if j < 0 else j
                out.append(("q", pattern[i + 1 : j]))
                i = j + 1
        elif _ASCII_LETTER.match(c):
            j = i
            while j < n and pattern[j] == c:
                j += 1
            out.append(("t", pattern[i:j]))
            i = j
        else:
            j = i + 1
            while j < n and not (_ASCII_LETTER.match(pattern[j]) or pattern[j] == "'"):
                j += 1
            out.append(("q", pattern[i:j]))
            i = j
    return tuple(out)


_DIGITS = re.compile(r"[0-9]*")


@lru_cache(maxsize=256)
def _quoted_re(text: str) -> "re.Pattern | None":
    """A quoted or punctuation run of a pattern as cljs-time's ``parse-quoted`` matches it: a regex
    anchored at the start (None where it is no regex: cljs-time throws)."""
    try:
        return re.compile(text)
    except re.error:
        return None


def _parse(pattern: str, text: str) -> "_dt.date | None":
    """``text`` read by cljs-time's ``parse`` with ``pattern`` (logseq/cljs-time
    src/cljs_time/internal/parse.cljs ``parse``, ``compile``; ``format.cljs`` ``parse``), as
    Logseq's ``journal-title->int`` then reads the result: the day, or None where the parse
    gives no day Logseq keeps (a year that is no number, one before 1000); raises
    :class:`_Unparsed` where cljs-time throws. Lenient as cljs-time is: ``M``/``MM``/``dd`` take
    one or two digits, ``yyyy`` up to four (``26`` is 2026: :data:`PIVOT_YEAR`), ``MMM`` a month's
    full or short name, ``do`` any of ``st nd rd th``, a day name is not checked against the day,
    a punctuation run is a regex (``.`` any character)."""
    s, as_seq = text, False  # (as_seq: cljs-time's rest is a char seq after digits were read)
    fields: dict = {}
    parts = _pattern(pattern)
    for kind, tok in parts:
        if s is None or s == "":
            raise _Unparsed  # the text ended before the pattern
        if kind == "q":
            rx = _quoted_re(tok)
            m = rx.match(s) if rx is not None else None
            if not m or m.end() == 0:
                raise _Unparsed
            s, as_seq = s[m.end():], False
        elif tok in _NUMBER_TOKENS:
            field, lower, upper = _NUMBER_TOKENS[tok]
            digits = _DIGITS.match(s).group(0)
            if len(digits) >= lower:
                fields[field] = int(digits[:upper])
                s = digits[upper:] + s[len(digits):]
            else:
                fields[field] = int(digits) if digits else None  # (parseInt of nothing: NaN)
                s = s[len(digits):]
                if not digits:
                    fields[field] = float("nan")
            as_seq = as_seq or bool(digits)
        elif tok in ("MMM", "MMMM", "E", "EEE", "EEEE"):
            names = _MONTH_NAMES if tok[0] == "M" else _DAY_NAMES
            if as_seq:  # (cljs-time compares a char seq with a string: every name "matches")
                hit = names[0]
                s = s[len(hit):] if s.startswith(hit) else s
            else:
                hit = next((x for x in names if s.startswith(x)), None)
                if hit is None:
                    raise _Unparsed
                s = s[len(hit):]
            as_seq = False
            if tok[0] == "M":
                fields["months"] = names.index(hit) % 12 + 1
            else:
                fields["day-of-week"] = names.index(hit) % 7 or 7
        elif tok == "o":
            if s[:2] in ("st", "nd", "rd", "th"):
                s = s[2:]
            else:
                s = None  # (parse-match gives nil: the text counts as ended)
            as_seq = False
        else:
            raise _Unparsed  # a token cljs-time does not read a day by (Illegal pattern component), or a time
    if s:
        raise _Unparsed  # text left after the pattern
    years, months, days = fields.get("years"), fields.get("months"), fields.get("days")
    nan = lambda v: isinstance(v, float)  # noqa: E731
    if months is not None and (nan(months) or not 1 <= months <= 12):
        raise _Unparsed
    if days is not None:
        if nan(days):
            raise _Unparsed
        if months is not None:
            dim = (31, 29 if years is not None and not nan(years) and _leap(years) else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)[months - 1]
        else:
            dim = 31
        if not 1 <= days <= dim:
            raise _Unparsed
    if years is not None and nan(years):
        return None  # (an invalid date: journal-title->int gives nil, and no later formatter is tried)
    y = years or 0
    if y < _PIVOT:
        y += PIVOT_YEAR - PIVOT_YEAR % 100
    elif y < 100:
        y += 1900  # (Date.UTC)
    if not 1000 <= y <= 9999:
        return None  # (Logseq's int->journal-title cannot read it back)
    try:
        return _dt.date(y, months or 1, days or 1)
    except ValueError:  # (a Feb 29th valid in the two-digit year only)
        return None


def _leap(y: int) -> bool:
    return y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)


def _capitalize_all(text: str) -> str:
    """Logseq's ``capitalize-all``: each blank-separated word's first character upper-cased, the
    rest lower-cased."""
    return " ".join(w[:1].upper() + w[1:].lower() for w in text.split(" "))


def logseq_day(name: str, title_format: str = TITLE_FORMAT) -> _dt.date | None:
    """The day the page name ``name`` is as Logseq reads it (``convert-page-if-journal``,
    logseq/logseq deps/graph-parser/src/logseq/graph_parser/block.cljs, tag 0.10.9): lower-cased
    (``page-name-sanity-lc``: and a leading/trailing ``/`` dropped), each word capitalized
    (``capitalize-all``), then parsed by each of ``title_format`` and :data:`DAY_FORMATS`
    (``safe-journal-title-formatters``, date_time_util.cljs ``journal-title->int``) as cljs-time
    parses (:func:`_parse`), the first that does not fail deciding. ``2026-2-03``, ``Nov 1th,
    2026``, ``nov 28th, 2026``, ``November 28th, 2026`` are days; ``2026-11-28 notes`` is not.
    None for no day. Pure; never raises."""
    text = name.lower()
    text = text[1:] if text.startswith("/") else text
    text = text[:-1] if text.endswith("/") else text
    if not text.strip() or not any(ch.isdigit() for ch in text):
        return None
    text = _capitalize_all(text)
    for pattern in dict.fromkeys(p for p in (title_format, *DAY_FORMATS) if p.strip()):
        try:
            return _parse(pattern, text)
        except _Unparsed:
            continue
    return None


#: characters that make a format's punctuation run a regex matching more than itself (``parse-quoted``)
_REGEX_CHARS = frozenset(".\\[](){}*+?|^$")


@lru_cache(maxsize=64)
def regex_runs(pattern: str) -> bool:
    """Whether a punctuation or quoted run of ``pattern`` holds a regex character (``dd.MM.yyyy``:
    cljs-time's ``parse-quoted`` matches ``.`` as any character, so ``23x11x2026`` reads as a day):
    :func:`day_spellings` cannot list every name read as a day by such a format."""
    return any(kind == "q" and _REGEX_CHARS.intersection(tok) for kind, tok in _pattern(pattern))


@lru_cache(maxsize=64)
def title_re(pattern: str) -> "re.Pattern":
    """A regex matching every name :func:`format_day` writes in ``pattern`` (and a few more): a
    title no day could be written as is no journal's without parsing it."""
    parts = []
    for tok in _TOKEN_RE.findall(pattern):
        c, n = tok[0], len(tok)
        if c == "'":
            parts.append(re.escape(tok[1:-1] if n > 2 else "'"))
        elif tok == "do":
            parts.append(r"\d{1,2}(?:st|nd|rd|th)")
        elif c == "y":
            parts.append(r"\d{2}" if n == 2 else r"\d{%d,}" % n)
        elif c == "M":
            parts.append("(?:%s)" % "|".join(_MONTHS if n >= 4 else [m[:3] for m in _MONTHS]) if n >= 3 else r"\d{%d,2}" % n)
        elif c == "d":
            parts.append(r"\d{%d,2}" % min(n, 2))
        elif c == "E":
            parts.append("(?:%s)" % "|".join(_DAYS if n >= 4 else [d[:3] for d in _DAYS]))
        else:
            parts.append(re.escape(tok))
    return re.compile("".join(parts) + r"\Z")


def _padded(v: int, upper: int) -> list[str]:
    """``v`` written with each number of leading zeros up to ``upper`` digits."""
    return [str(v).zfill(w) for w in range(len(str(v)), max(upper, len(str(v))) + 1)]


def day_spellings(day: _dt.date, title_format: str = TITLE_FORMAT) -> set[str]:
    """Names :func:`logseq_day` may read as ``day`` (each of the formats it tries, each token in
    each spelling cljs-time takes: a number with or without leading zeros, a year in two digits
    where :data:`PIVOT_YEAR` reads it so, a month's or day's full or short name, any ordinal
    suffix), in one letter case: the link-target keys a journal's coming or going re-resolves
    (``Brain.journal_names``). A superset of what reads as ``day`` up to the letter case and a
    punctuation run written otherwise than in the format (read as a regex: ``.`` is any character)."""
    out: set[str] = set()
    for pattern in dict.fromkeys(p for p in (title_format, *DAY_FORMATS) if p.strip()):
        choices: list[list[str]] = []
        for kind, tok in _pattern(pattern):
            if kind == "q":
                choices.append([tok])
            elif tok in _NUMBER_TOKENS:
                field, _lower, upper = _NUMBER_TOKENS[tok]
                if field == "days":
                    choices.append(_padded(day.day, upper))
                elif field == "months":
                    choices.append(_padded(day.month, upper))
                else:
                    raws = [day.year] + [day.year - c for c in (2000, 1900)
                                         if (0 <= day.year - 2000 < _PIVOT if c == 2000 else _PIVOT <= day.year - 1900 < 100)]
                    choices.append([x for r in raws for x in _padded(r, upper)])
            elif tok in ("MMM", "MMMM"):
                choices.append([_MONTHS[day.month - 1], _MONTHS[day.month - 1][:3]])
            elif tok in ("E", "EEE", "EEEE"):
                choices.append(list(_DAY_NAMES))
            elif tok == "o":
                choices.append(["st", "nd", "rd", "th"])
            else:
                choices = []
                break
        names = [""]
        for opts in choices:
            names = [n + o for n in names for o in opts]
        out.update(n for n in names if n)
    return out


def journal_day(name: str, title_format: str = TITLE_FORMAT, file_format: str = FILE_FORMAT) -> _dt.date | None:
    """The day a journal's file name ``name`` (without ``.md``) names as Logseq reads it
    (:func:`logseq_day`: the graph's ``title_format``, then :data:`DAY_FORMATS`, as cljs-time
    parses), then (gbrain's addition: the names Logseq writes, which its graph parser does not
    read when no other format does) ``file_format`` read strictly (:func:`file_day`). None for no
    day."""
    return logseq_day(name, title_format) or file_day(name, file_format)


def journal_title(name: str, title_format: str = TITLE_FORMAT, file_format: str = FILE_FORMAT) -> str | None:
    """The title Logseq shows for the journal file ``name`` (its file name without ``.md``):
    ``2026_11_28`` → ``Nov 28th, 2026`` under the defaults, its day (:func:`journal_day`) in
    ``title_format``; None when ``name`` is no day."""
    day = journal_day(name, title_format, file_format)
    return format_day(day, title_format) if day else None


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
    parts = value.split(_DIRS_SEP, 1)[0].split(_SEP)
    return parts[0], (parts[1], parts[2]) if len(parts) == 3 else None


#: where a graph's folder settings ride in a :func:`graph_value`, after its formats
_DIRS_SEP = "\x1e"


#: the tail of a journal's syntax (:func:`gbrain.page.markdown.page_property_syntax`) in a graph's
#: own ``:journals-directory`` (not ``journals``): the page is its graph's journal whatever its
#: folder's name (:func:`gbrain.page.markdown.journal_name`)
JOURNAL_MARK = "\x1ejournal"


def split_dirs(value) -> tuple[str, str]:
    """``(pages folder, journals folder)`` of a :func:`graph_value` (Logseq's ``pages``,
    ``journals`` for one that sets neither, or for a value that is no string). Never raises."""
    if isinstance(value, str) and _DIRS_SEP in value:
        parts = value.split(_DIRS_SEP)
        if len(parts) == 3:
            return parts[1], parts[2]
    return "pages", FOLDER


def graph_value(config_text: str) -> str:
    """What :func:`gbrain.page.links.graph_roots` gives for the graph whose ``config.edn`` text is
    ``config_text``: its :func:`name_format`, followed, where its journal formats are not Logseq's
    defaults, by them (:func:`join_formats`; :func:`split_formats` reads it). Never raises."""
    st = settings(config_text)
    days = (st.title_format, st.file_format)
    value = join_formats(st.name_format, None if days == (TITLE_FORMAT, FILE_FORMAT) else days)
    dirs = (st.pages_dir, st.journals_dir)
    return value if dirs == ("pages", FOLDER) else _DIRS_SEP.join((value, *dirs))


def graph_root(slug: str) -> str | None:
    """The graph root of a page that may be a journal (``notes/graph/journals/2026_11_28`` →
    ``notes/graph``; ``journals/x`` → ``''``), or None when its folder is no ``journals``."""
    head, _, _ = slug.rpartition("/")
    root, _, folder = head.rpartition("/")
    return root if folder == FOLDER else None
