"""Set one member of a JSON object in its text, leaving every other byte as it was.

``raw_put`` stores one source's data in a page's ``.raw/<name>.json`` sidecar. Loading the file
and dumping it again rewrote the sources nobody named: ``1.10`` became ``1.1``, ``"S\\u00e3o"``
became ``"São"``, a repeated key lost its first value, and the indentation became the dumper's.
:func:`set_member` instead finds the member's value in the text and replaces just that span (or
inserts a new member after the last one), so the rest of the file keeps its bytes.

The values themselves are read by the standard library's decoder (``json.JSONDecoder.raw_decode``,
which gives where each value ends); this module only steps over the punctuation between the
members of an object (white space, ``,`` and ``:``), per RFC 8259 section 4.
"""
from __future__ import annotations

import json
from typing import Any

_DECODER = json.JSONDecoder()
_WS = " \t\n\r"


def _skip_ws(text: str, i: int) -> int:
    while i < len(text) and text[i] in _WS:
        i += 1
    return i


def members(text: str, start: int) -> tuple[list[tuple[str, int, int, int]], int]:
    """The members of the JSON object whose ``{`` is at ``text[start]``: ``([(key, key start,
    value start, value end)], index of its closing brace)``, in text order (a repeated key appears
    each time). Raises ``ValueError`` when the text there is not a JSON object."""
    if text[start : start + 1] != "{":
        raise ValueError("not a JSON object")
    out: list[tuple[str, int, int, int]] = []
    i = _skip_ws(text, start + 1)
    if text[i : i + 1] == "}":
        return out, i
    while True:
        if text[i : i + 1] != '"':
            raise ValueError(f"expected a key at character {i}")
        key, j = _DECODER.raw_decode(text, i)
        j = _skip_ws(text, j)
        if text[j : j + 1] != ":":
            raise ValueError(f"expected ':' at character {j}")
        v = _skip_ws(text, j + 1)
        _, end = _DECODER.raw_decode(text, v)
        out.append((key, i, v, end))
        i = _skip_ws(text, end)
        if text[i : i + 1] == "}":
            return out, i
        if text[i : i + 1] != ",":
            raise ValueError(f"expected ',' or '}}' at character {i}")
        i = _skip_ws(text, i + 1)


def _line_indent(text: str, at: int) -> str:
    """The white space that begins the line holding ``text[at]``."""
    bol = text.rfind("\n", 0, at) + 1
    j = bol
    while j < at and text[j] in " \t":
        j += 1
    return text[bol:j]


def _dump(value: Any, indent: str, step: str) -> str:
    """``value`` as JSON: on one line when ``step`` is empty, else one member per line with
    ``step`` per level, its lines after the first indented by ``indent`` (the indent of the line
    the value starts on)."""
    if not step:
        return json.dumps(value, ensure_ascii=False)
    return json.dumps(value, ensure_ascii=False, indent=step).replace("\n", "\n" + indent)


def _step(text: str, ms: list[tuple[str, int, int, int]], start: int) -> str:
    """One level of indentation in the object at ``start``: its members' indent less the indent
    of the line holding its ``{`` (two spaces when that cannot be told)."""
    outer = _line_indent(text, start)
    if ms:
        inner = _line_indent(text, ms[0][1])
        if inner.startswith(outer) and len(inner) > len(outer):
            return inner[len(outer):]
    return "  "


def set_member(text: str, path: list[str], key: str, value: Any) -> str:
    """``text`` (a JSON document whose top level is an object) with ``key`` of the object found
    by following ``path`` (keys of nested objects from the top; ``[]`` for the top level) set to
    ``value``: the value's span replaced when the key is there (its last occurrence, the one a
    JSON reader keeps), else a member appended after the object's last member in the layout of
    its neighbours (their indentation when the object spans lines, else on its one line); an
    empty object gets the member on a line of its own. Every byte outside that span is kept.
    Raises ``ValueError`` when ``text`` is not such a document or a step of ``path`` is missing
    or not an object."""
    start = _skip_ws(text, 0)
    for name in path:
        ms, _ = members(text, start)
        found = [m for m in ms if m[0] == name]
        if not found:
            raise ValueError(f"no member {name!r}")
        start = found[-1][2]
    ms, close = members(text, start)
    multiline = "\n" in text[start:close]
    nl = "\r\n" if "\r\n" in text else "\n"
    return _splice(text, start, ms, close, multiline, key, value, nl)


def _splice(text: str, start: int, ms: list, close: int, multiline: bool, key: str, value: Any, nl: str) -> str:
    """:func:`set_member`'s edit of the object at ``start`` (its ``members`` and closing brace),
    with ``nl`` (the document's line break) between any lines it writes."""
    step = _step(text, ms, start) if multiline or not ms else ""
    found = [m for m in ms if m[0] == key]
    if found:
        _, kstart, vstart, vend = found[-1]
        return text[:vstart] + _dump(value, _line_indent(text, kstart), step).replace("\n", nl) + text[vend:]
    name = json.dumps(key, ensure_ascii=False) + ": "
    if not ms:
        outer = _line_indent(text, start)
        inner = outer + step
        return text[:start] + ("{\n" + inner + name + _dump(value, inner, step) + "\n" + outer + "}").replace("\n", nl) + text[close + 1 :]
    end = ms[-1][3]
    if not multiline:
        return text[:end] + ", " + name + _dump(value, "", "") + text[end:]
    inner = _line_indent(text, ms[-1][1])
    return text[:end] + (",\n" + inner + name + _dump(value, inner, step)).replace("\n", nl) + text[end:]


__all__ = ["members", "set_member"]
