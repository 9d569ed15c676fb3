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
from .slugs import loose_key

#: bm25 column weights: title, compiled_truth, timeline
TITLE_WEIGHT = 5.0
WEIGHTS = (TITLE_WEIGHT, 1.0, 1.0)

_WORD = re.compile(r"[^\W_]+(?:\*)?|\*", re.UNICODE)
_PHRASE = re.compile(r'"([^"]*)"')


SNIPPET_MAX_CHARS = 200_000
#: distinct query words a Python-cut snippet looks for
SNIPPET_WORDS = 32


_MD_LINK = re.compile(r"(!?)\[([^\]\n]*)\]\(([^()\s]*)\)")
_WIKI_LINK = re.compile(r"!?\[\[(?:[^\]|\n]*\|)?([^\]\n]*)\]\]")


def _clean_snippet(s: str) -> str:
    """An FTS5 snippet (hits between \\x02 and \\x03) as readable text: links shown by their
    label (a hit inside a URL is dropped with it), the page's ``**``/``__`` and heading marks
    dropped, hits marked ``**like this**``."""
    s = _MD_LINK.sub(lambda m: m.group(2), s)
    s = _WIKI_LINK.sub(lambda m: m.group(1), s)
    # the page's own bold and heading marks would read as (doubled) hit marks
    s = re.sub(r"\*\*|__", "", s)
    s = re.sub(r"(?m)^[ \t]{0,3}#{1,6}[ \t]+", "", s)
    s = re.sub("\x02+", "\x02", re.sub("\x03+", "\x03", s)).replace("\x03\x02", "")
    s = s.replace("\x02", "**").replace("\x03", "**")
    return " ".join(s.split())


def _cut_snippet(text: str, query: str, width: int = 160) -> str:
    """A snippet around the first query word found in ``text`` (case-insensitive), words marked.
    At most :data:`SNIPPET_WORDS` distinct words are looked for, in one pass over ``text``."""
    words = list(dict.fromkeys(w.rstrip("*").casefold() for w in _WORD.findall(query) if w.rstrip("*")))[:SNIPPET_WORDS]
    rx = re.compile("|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)), re.I) if words else None
    m = rx.search(text) if rx else None
    start = max(0, m.start() - width // 3) if m else 0
    out = text[start : start + width]
    if rx:
        out = rx.sub(lambda m: f"**{m.group(0)}**", out)
    return ("…" if start else "") + out + "…"


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
        # no indexable word (emoji, symbols): unicode61 drops them, so match them as substrings
        return _substring_search(conn, query, type, int(limit)) if (query or "").strip(' "*') else []
    w = ", ".join(str(x) for x in WEIGHTS)
    sql = (
        f"SELECT p.slug, p.title, p.type, -bm25(page_fts, {w}) AS score, "
        # FTS5's snippet() is quadratic-ish in the hits of one document: on pages over
        # SNIPPET_MAX_CHARS the snippet is cut from the text in Python instead
        f"CASE WHEN p.size > {SNIPPET_MAX_CHARS} THEN NULL ELSE snippet(page_fts, -1, char(2), char(3), '…', 16) END AS snippet, "
        f"CASE WHEN p.size > {SNIPPET_MAX_CHARS} THEN p.compiled_truth || ' ' || p.timeline END AS head "
        "FROM page_fts JOIN pages p ON p.id = page_fts.rowid WHERE page_fts MATCH ?"
    )
    args: list = [q]
    if type:
        sql += " AND p.type = ?"
        args.append(type)
    sql += f" ORDER BY bm25(page_fts, {w}) LIMIT ? OFFSET ?"
    args += [int(limit), int(offset)]
    rows = conn.execute(sql, args).fetchall()
    if not rows and offset == 0 and _UNSPACED.search(query):
        return _substring_search(conn, query, type, int(limit))
    hits = [
        {"slug": r["slug"], "title": r["title"], "type": r["type"], "score": round(r["score"], 4), "snippet": _clean_snippet(r["snippet"]) if r["snippet"] is not None else " ".join(_cut_snippet(r["head"], query).split())}
        for r in rows
    ]
    if offset == 0:
        hits = _exact_title_first(conn, query, type, hits, int(limit))
    return hits


#: scripts written without spaces between words (CJK, kana, Thai, …): unicode61 makes one token of
#: a whole run, so a word inside it never matches; those queries fall back to substring search
_UNSPACED = re.compile(r"[\u0e00-\u0e7f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")


def _substring_parts(query: str) -> list[str]:
    """The whitespace-separated parts of ``query`` that substring search looks for (quotes and
    prefix stars dropped)."""
    return [p.strip("*") for p in query.replace('"', " ").split() if p.strip("*")]


def _substring_rows(conn: sqlite3.Connection, query: str, type: str | None, limit: int) -> list[tuple[sqlite3.Row, float]]:
    """``[(page row, score)]`` of pages containing every whitespace-separated part of ``query``
    as a substring, best first, scored by the number of occurrences (title hits count ×5)."""
    parts = _substring_parts(query)
    if not parts:
        return []
    sql = "SELECT id, slug, title, type, compiled_truth, timeline FROM pages"
    where = " AND ".join("instr(title || ' ' || compiled_truth || ' ' || timeline, ?) > 0" for _ in parts)
    args: list = list(parts)
    sql += " WHERE " + where + (" AND type = ?" if type else "")
    if type:
        args.append(type)
    out = []
    for r in conn.execute(sql, args):
        body = r["compiled_truth"] + " " + r["timeline"]
        out.append((r, float(sum(body.count(p) + 5 * r["title"].count(p) for p in parts))))
    out.sort(key=lambda rs: (-rs[1], rs[0]["slug"]))
    return out[:limit]


def _substring_search(conn: sqlite3.Connection, query: str, type: str | None, limit: int) -> list[dict]:
    """:func:`_substring_rows` as search hits (with a snippet around the first part). Used when
    FTS5 finds nothing for CJK text or symbols."""
    hits = []
    first = (_substring_parts(query) or [""])[0]
    for r, score in _substring_rows(conn, query, type, limit):
        body = r["compiled_truth"] + " " + r["timeline"]
        i = body.find(first)
        snippet = " ".join(body[max(0, i - 40) : i + len(first) + 60].split()) if i >= 0 else r["title"]
        hits.append({"slug": r["slug"], "title": r["title"], "type": r["type"], "score": score, "snippet": snippet.replace(first, f"**{first}**")})
    return hits


def _exact_title_first(conn: sqlite3.Connection, query: str, type: str | None, hits: list[dict], limit: int) -> list[dict]:
    """Put pages whose title is the query itself (``River AI`` → ``companies/river-ai``) first.

    BM25 favours short documents, so a short page that merely mentions a name can outrank the
    page *about* that name; a person or company looked up by name should come first."""
    key = loose_key(query)
    if not key:
        return hits
    q = "SELECT slug, title, type FROM pages WHERE title_key = ?" + (" AND type = ?" if type else "") + " ORDER BY slug LIMIT 5"
    exact = conn.execute(q, (key, type) if type else (key,)).fetchall()
    if not exact:
        return hits
    by_slug = {h["slug"]: h for h in hits}
    top = [by_slug.get(r["slug"]) or {"slug": r["slug"], "title": r["title"], "type": r["type"], "score": 0.0, "snippet": r["title"]} for r in exact]
    names = {h["slug"] for h in top}
    return (top + [h for h in hits if h["slug"] not in names])[:limit]


def fts_candidates(conn: sqlite3.Connection, query: str, *, type: str | None = None, limit: int = 100, weights: tuple[float, float, float] | None = None) -> list[tuple[int, float]]:
    """``[(page_id, score)]`` of the best ``limit`` pages for ``query``, best first, ``score``
    being ``-bm25`` (higher is better). The same ranking as :func:`search`, without snippets,
    and the same substring fallback for CJK text and symbols (``score``: occurrences)."""
    q = fts_query(query or "")
    if limit <= 0:
        return []
    if not q:
        return [(int(r["id"]), sc) for r, sc in _substring_rows(conn, query or "", type, int(limit))]
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
    out = [(int(r[0]), float(r[1])) for r in conn.execute(sql, args)]
    if not out and _UNSPACED.search(query):
        # as in search(): a word inside a CJK run is no FTS5 token
        return [(int(r["id"]), sc) for r, sc in _substring_rows(conn, query, type, int(limit))]
    return out
