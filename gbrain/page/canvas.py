"""Obsidian canvases (``.canvas``: JSON Canvas, https://jsoncanvas.org), read, never rewritten.

A canvas is a stored file (its bytes exact); the links it holds are read from those bytes when
asked (:meth:`gbrain.core.brain.Brain.canvas_links`): a file node's ``file`` (a vault path,
``Notes/A.md``, with an optional ``subpath`` ``#Heading``) and the links written in a text node's
markdown. Link and group nodes link no note."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass


def is_canvas(path: str) -> bool:
    return path.lower().endswith(".canvas")


@dataclass
class Node:
    """A file node (``file``, ``subpath``) or a text node (``text``), in the canvas's order."""

    kind: str  # "file" or "text"
    file: str = ""
    subpath: str = ""
    text: str = ""


def _no_constant(name: str):
    raise ValueError(f"{name} is no JSON")


#: arrays and objects nested deeper than this make a canvas unread ("nested too deep"): a bound
#: of the bytes alone, so every caller reads a canvas alike (Python's recursion limit counts the
#: caller's own frames: a fresh import and a save from sync or MCP differed near it); a real
#: canvas nests a few levels
MAX_DEPTH = 256
_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def _too_deep(text: str) -> bool:
    """Whether JSON ``text`` nests arrays/objects deeper than :data:`MAX_DEPTH` (brackets in its
    strings left out)."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return False
    from itertools import accumulate

    brackets = _NOT_BRACKET.sub("", _JSON_STRING.sub("", text))
    return max(accumulate(map(_STEP.__getitem__, brackets)), default=0) > MAX_DEPTH


def load_canvas(data: bytes) -> tuple[list | None, str | None]:
    """The ``nodes`` list of canvas bytes as Python's ``json`` reads them, or ``(None, warning)``:
    the one reading of a canvas (its links: :func:`canvas_nodes`; its searchable cards:
    :func:`canvas_cards`), whatever engine stores it. A UTF-8 BOM is skipped; a key given twice is
    its last value (as JavaScript's ``JSON.parse``, Obsidian's reader); bytes that are not UTF-8
    JSON (``NaN``/``Infinity`` too, which ``JSON.parse`` refuses), nested deeper than
    :data:`MAX_DEPTH` (256) levels, or hold no ``nodes`` list give None."""
    try:
        text = data.decode("utf-8-sig")
        if _too_deep(text):
            raise RecursionError
        doc = json.loads(text, parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        why = "nested too deep" if isinstance(e, RecursionError) else str(e).splitlines()[0][:120]
        return None, f"not JSON ({why}): kept as it is, its links not read"
    nodes = doc.get("nodes") if isinstance(doc, dict) else None
    if not isinstance(nodes, list):
        return None, "no 'nodes' list: kept as it is, no links read"
    return nodes, None


def canvas_nodes(data: bytes) -> tuple[list[Node], str | None]:
    """The file and text nodes of canvas bytes, and a warning (None when they read): bytes that
    are not UTF-8 JSON with a ``nodes`` list hold no nodes (kept as they are: :func:`load_canvas`)."""
    nodes, warning = load_canvas(data)
    if nodes is None:
        return [], warning
    out: list[Node] = []
    for n in nodes:
        if not isinstance(n, dict):
            continue
        if n.get("type") == "file" and isinstance(n.get("file"), str) and n["file"].strip():
            sub = n.get("subpath")
            out.append(Node("file", file=n["file"], subpath=sub if isinstance(sub, str) else ""))
        elif n.get("type") == "text" and isinstance(n.get("text"), str):
            out.append(Node("text", text=n["text"]))
    return out, None


#: characters a JSON string or a YAML double-quoted escape (``"\\0"``, ``"\\ud800"``) may give
#: that neither engine stores in text: NUL (Postgres refuses it) and a lone surrogate (not UTF-8):
#: each is read as U+FFFD in a derived value (a canvas card, a frontmatter value or key)
UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def storable(text: str) -> str:
    """``text`` with each :data:`UNSTORABLE` character U+FFFD (``text`` itself when it has none)."""
    return UNSTORABLE.sub("\ufffd", text) if not text.isascii() or "\x00" in text else text


def canvas_cards(data: bytes) -> list[tuple[str, str, str]]:
    """A canvas's searchable cards, ``[(node id, kind, text)]`` in its node order: a text node's
    ``text`` (kind ``text``) and a group node's ``label`` (``group``), when a string; a node that
    is no object, or of another type (a file node's path, a link node's URL: addresses), gives
    none. The id: a string as it is, none ``''``, another value its JSON text (``7`` → ``"7"``).
    NUL and lone surrogates are U+FFFD (:data:`UNSTORABLE`). Bytes :func:`load_canvas` does not
    read give none. Pure Python: both engines store exactly these rows."""
    nodes, _ = load_canvas(data)
    out: list[tuple[str, str, str]] = []
    for n in nodes or ():
        if not isinstance(n, dict):
            continue
        kind = n.get("type")
        text = n.get("text") if kind == "text" else n.get("label") if kind == "group" else None
        if not isinstance(text, str):
            continue
        node = n.get("id")
        node = "" if node is None else node if isinstance(node, str) else json.dumps(node, ensure_ascii=False)
        out.append((storable(node), kind, storable(text)))
    return out
