"""Line-level frontmatter edits: rewrite only the top-level keys that change.

A full YAML re-dump (even ruamel's round-trip mode) re-indents sequences, normalises spacing
inside flow collections and moves comments, so "set one key" would rewrite bytes the caller
never named. :func:`splice_frontmatter` instead finds each changed key's block of lines (the
``key:`` line and its indented or ``- `` continuation lines) and replaces, removes or appends
just that block. The caller checks the result loads to the same data as a full re-dump and
falls back to the re-dump when it does not (anchors, complex keys, unusual layouts).
"""
from __future__ import annotations

import io
import re
from typing import Any

_KEY_LINE_RE = re.compile(r"""^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s#'"\-?:&*!|>%@`{\[][^#]*?)[ \t]*:(?:[ \t]|\r?\n|\r|$)""")


def _lines(text: str) -> list[str]:
    return re.findall(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+", text)


def _key_name(token: str) -> str:
    if token.startswith('"'):
        return token[1:-1].replace('\\"', '"').replace("\\\\", "\\")
    if token.startswith("'"):
        return token[1:-1].replace("''", "'")
    return token.strip()


def key_blocks(body: list[str]) -> dict[str, tuple[int, int]] | None:
    """Top-level key → ``(start, end)`` line span in ``body`` (the YAML lines between the
    ``---`` fences). None when a top-level line is not a plain ``key:`` line."""
    blocks: dict[str, tuple[int, int]] = {}
    cur: str | None = None
    start = 0
    last_content = -1  # last line that belongs to the current block

    def close() -> None:
        if cur is not None:
            blocks[cur] = (start, last_content + 1)

    for i, ln in enumerate(body):
        s = ln.rstrip("\r\n")
        if not s.strip():
            continue
        if s[0] in " \t":
            if cur is None:
                return None
            last_content = i
            continue
        if s.startswith("#"):
            close()
            cur = None
            continue
        if s == "-" or s.startswith("- ") or s.startswith("-\t"):
            if cur is None:
                return None
            last_content = i
            continue
        m = _KEY_LINE_RE.match(ln)
        if not m:
            return None
        close()
        cur = _key_name(m.group(1))
        if cur in blocks:
            return None
        start = last_content = i
    close()
    return blocks


def _keep_eol_comment(old: str, new: str, data: Any, key: str) -> str:
    """``new``, a key's one rewritten line, with the comment that ended its ``old`` line (``mood:
    ok  # today``: ruamel keeps it with the mapping, not the value, so a new value is dumped
    without it) put back after the new value, with the same blank before it. ``new`` as it is
    when the old line had no such comment (per ``data.ca``, ruamel's record of where it was)."""
    ca = getattr(data, "ca", None)
    eol = ca.items.get(key) if ca is not None else None
    tok = eol[2] if eol and len(eol) > 2 else None
    col = getattr(getattr(tok, "start_mark", None), "column", None) if tok is not None else None
    if col is None:
        col = getattr(tok, "column", None)
    if not isinstance(col, int) or col >= len(old) or old[col] != "#" or "#" in new:
        return new
    body = old[:col]
    gap = body[len(body.rstrip(" \t")):] or " "
    end = new[len(new.rstrip("\r\n")):]
    return new.rstrip("\r\n") + gap + old[col:].rstrip("\r\n") + end


def splice_frontmatter(frontmatter_raw: str, data: Any, changed: list[str], yaml: Any, nl: str) -> str | None:
    """New ``frontmatter_raw`` with only the ``changed`` top-level keys rewritten from ``data``
    (a ruamel mapping holding the final values; a key missing from it is removed). Keys not yet
    in the block are appended before the closing fence. Returns None when the block's layout is
    not one this line editor understands."""
    lines = _lines(frontmatter_raw)
    if len(lines) < 2:
        return None
    opener, body, closer = lines[0], lines[1:-1], lines[-1]
    for key in dict.fromkeys(changed):
        blocks = key_blocks(body)
        if blocks is None:
            return None
        if key in data:
            from ruamel.yaml.comments import CommentedMap

            buf = io.StringIO()
            one = CommentedMap()
            one[key] = data[key]
            yaml.dump(one, buf)
            new = _lines(buf.getvalue().replace("\n", nl) if nl != "\n" else buf.getvalue())
            # ruamel attaches comment lines that follow a value to it and dumps them again; those
            # outside the key's block stay in ``body``, so keep only the block's own comment lines
            a, b = blocks.get(key, (0, 0))
            own = {ln.strip() for ln in body[a:b] if ln.lstrip().startswith("#")}
            new = [ln for ln in new if not ln.lstrip().startswith("#") or ln.strip() in own]
            while new and not new[-1].strip():
                new.pop()
            if new and not new[-1].endswith(("\n", "\r")):
                new[-1] += nl
            if key in blocks and len(new) == 1:
                new[0] = _keep_eol_comment(body[blocks[key][0]], new[0], data, key)
        else:
            new = []
        if key in blocks:
            a, b = blocks[key]
            body = body[:a] + new + body[b:]
        elif new:
            if body and not body[-1].endswith(("\n", "\r")):
                body[-1] += nl
            body = body + new
    return opener + "".join(body) + closer
