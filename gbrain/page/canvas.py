"""Obsidian canvases (``.canvas``: JSON Canvas, https://jsoncanvas.org), read, never rewritten.

A canvas is a stored file (its bytes exact); the links it holds are read from those bytes when
asked (:meth:`gbrain.core.brain.Brain.canvas_links`): a file node's ``file`` (a vault path,
``Notes/A.md``, with an optional ``subpath`` ``#Heading``) and the links written in a text node's
markdown. Link and group nodes link no note."""
from __future__ import annotations

import json
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


def canvas_nodes(data: bytes) -> tuple[list[Node], str | None]:
    """The file and text nodes of canvas bytes, and a warning (None when they read): bytes that
    are not UTF-8 JSON with a ``nodes`` list hold no nodes (kept as they are)."""
    try:
        doc = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError) as e:
        return [], f"not JSON ({str(e).splitlines()[0][:120]}): kept as it is, its links not read"
    nodes = doc.get("nodes") if isinstance(doc, dict) else None
    if not isinstance(nodes, list):
        return [], "no 'nodes' list: kept as it is, no links read"
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
