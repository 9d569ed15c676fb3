"""Keyword search: FTS5 with BM25 ranking, safe for any user text.

User text is never passed to FTS5 as query syntax. :func:`fts_query` turns it into a query
of quoted terms: each word becomes a string literal (``"word"``), text in double quotes stays a
phrase, a trailing ``*`` on a word keeps prefix search, and the terms are joined with ``OR``
so ranking is classic BM25 over all query terms (Robertson & Zaragoza 2009; FTS5 ``bm25()``).
FTS5 operators typed by the user (``AND``, ``NOT``, ``NEAR``, ``-``, ``:``) are plain words.
Quoting rule: FTS5 spec §3.1, a string is enclosed in ``"`` with embedded ``"`` doubled.
"""
from __future__ import annotations

import re
import sqlite3

from ..errors import BadInput

#: bm25 column weights: title, compiled_truth, timeline
TITLE_WEIGHT = 5.0
WEIGHTS = (TITLE_WEIGHT, 1.0, 1.0)

_WORD = re.compile(r"[^\W_]+(?:\*)?|\*", re.UNICODE)
_PHRASE = re.compile(r'"([^"]*)"')


def _quote(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


def fts_query(text: str) -> str:
    """Build a safe FTS5 MATCH expression from free user text; ``''`` when it has no words."""
    parts: list[str] = []
    pos = 0
    for m in _PHRASE.finditer(text):
        parts += _terms(text[pos : m.start()])
        words = [w.rstrip("*") for w in _WORD.findall(m.group(1)) if w.strip("*")]
        if words:
            parts.append(_quote(" ".join(words)))
        pos = m.end()
    parts += _terms(text[pos:].replace('"', " "))
    seen: list[str] = []
    for p in parts:
        if p not in seen:
            seen.append(p)
    return " OR ".join(seen)


def _terms(text: str) -> list[str]:
    out = []
    for w in _WORD.findall(text):
        prefix = w.endswith("*")
        w = w.rstrip("*")
        if not w:
            continue
        out.append(_quote(w) + ("*" if prefix else ""))
    return out


def search(conn: sqlite3.Connection, query: str, *, type: str | None = None, limit: int = 20, offset: int = 0) -> list[dict]:
    """Rank pages for ``query`` by BM25 (title weighted ×5).

    Returns ``[{slug, title, type, score, snippet}]``, best first; ``score`` is ``-bm25`` (higher
    is better). Raises :class:`BadInput` for a non-positive limit.
    """
    if limit is None or int(limit) <= 0:
        raise BadInput("limit must be a positive number")
    q = fts_query(query or "")
    if not q:
        return []
    w = ", ".join(str(x) for x in WEIGHTS)
    sql = (
        f"SELECT p.slug, p.title, p.type, -bm25(page_fts, {w}) AS score, "
        "snippet(page_fts, -1, '**', '**', '…', 16) AS snippet "
        "FROM page_fts JOIN pages p ON p.id = page_fts.rowid WHERE page_fts MATCH ?"
    )
    args: list = [q]
    if type:
        sql += " AND p.type = ?"
        args.append(type)
    sql += f" ORDER BY bm25(page_fts, {w}) LIMIT ? OFFSET ?"
    args += [int(limit), int(offset)]
    rows = conn.execute(sql, args).fetchall()
    return [
        {"slug": r["slug"], "title": r["title"], "type": r["type"], "score": round(r["score"], 4), "snippet": " ".join(r["snippet"].split())}
        for r in rows
    ]


def fts_candidates(conn: sqlite3.Connection, query: str, *, type: str | None = None, limit: int = 100, weights: tuple[float, float, float] | None = None) -> list[tuple[int, float]]:
    """``[(page_id, score)]`` of the best ``limit`` pages for ``query``, best first, ``score``
    being ``-bm25`` (higher is better). The same ranking as :func:`search`, without snippets."""
    q = fts_query(query or "")
    if not q or limit <= 0:
        return []
    w = ", ".join(str(x) for x in (weights or WEIGHTS))
    sql = f"SELECT page_fts.rowid, -bm25(page_fts, {w}) FROM page_fts"
    args: list = []
    if type:
        sql += " JOIN pages p ON p.id = page_fts.rowid WHERE page_fts MATCH ? AND p.type = ?"
        args = [q, type]
    else:
        sql += " WHERE page_fts MATCH ?"
        args = [q]
    sql += f" ORDER BY bm25(page_fts, {w}) LIMIT ?"
    args.append(int(limit))
    return [(int(r[0]), float(r[1])) for r in conn.execute(sql, args)]
