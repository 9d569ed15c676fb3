"""A ``.raw`` sidecar's sources as spans of its stored bytes (SQLite v40, Postgres v41).

The sidecar's exact bytes are the ``files`` row (export writes them). Its sources, one row each,
are not a second copy of the JSON: ``raw_spans`` holds where each source's value lies in those
bytes (``start``, 1-based, and ``len``, in bytes), and the view ``raw_data`` gives the value's
JSON text as that slice (``substr`` / ``substring``), so what reads ``raw_data`` reads the same
columns as before and ``json.loads`` of ``data`` is the same value. A row whose value cannot be
a slice (a sidecar stored in pieces, a row written by SQL) holds its text in ``raw_spans.data``.
"""
from __future__ import annotations

import json
import re
from json.decoder import scanstring
from typing import Any

_WS = re.compile(r"[ \t\n\r]*")

#: a UTF-8 byte order mark, as Windows editors start a file: a sidecar's JSON is read past it
#: (:func:`json_text`), its bytes kept (export), a rewrite of the file keeps it (``raw_put``, the
#: sidecar merge), as a page keeps its ``bom``
BOM = "\ufeff"
BOM_BYTES = BOM.encode("utf-8")


def json_text(data: bytes) -> tuple[str, str]:
    """``(mark, JSON text)`` of a sidecar's bytes: the text past a leading byte order mark
    (``mark`` is :data:`BOM` then, else ''). Raises UnicodeDecodeError for bytes not UTF-8."""
    text = bytes(data).decode("utf-8")
    return (BOM, text[1:]) if text.startswith(BOM) else ("", text)


def loads(data: bytes) -> Any:
    """A sidecar's JSON value, read past a byte order mark (:func:`json_text`). Raises
    UnicodeDecodeError or json.JSONDecodeError."""
    return json.loads(json_text(data)[1])
_SCAN = json.JSONDecoder().scan_once  # the C scanner json.loads uses (strict)


def raw_sources(obj: Any) -> dict:
    """Source → data of a sidecar object: the ``sources`` mapping if present, else the top level."""
    if isinstance(obj, dict):
        if isinstance(obj.get("sources"), dict):
            return obj["sources"]
        return obj
    return {"data": obj}


def _members(s: str, i: int, nested: bool) -> tuple[dict, dict | None, int]:
    """The object at ``s[i] == '{'``: ``(key → (start, end) of its value, the members of its
    last ``sources`` object value (when ``nested``), end)``; a key seen twice keeps the last."""
    spans: dict = {}
    inner = None
    i = _WS.match(s, i + 1).end()
    if s[i] == "}":
        return spans, inner, i + 1
    while True:
        if s[i] != '"':
            raise ValueError("key")
        key, i = scanstring(s, i + 1, True)
        i = _WS.match(s, i).end()
        if s[i] != ":":
            raise ValueError(":")
        i = _WS.match(s, i + 1).end()
        if nested and key == "sources" and s[i] == "{":
            inner, _, end = _members(s, i, False)
        else:
            if nested and key == "sources":
                inner = None
            end = _SCAN(s, i)[1]
        spans[key] = (i, end)
        i = _WS.match(s, end).end()
        if s[i] == "}":
            return spans, inner, i + 1
        if s[i] != ",":
            raise ValueError(",")
        i = _WS.match(s, i + 1).end()


def sidecar_rows(data: bytes) -> list[tuple[str, int, int, str | None]] | None:
    """The ``raw_spans`` rows a sidecar's bytes give: ``(source, start, len, text)``, ``text``
    None where the value is the slice ``data[start - 1 : start - 1 + len]``, else its JSON text
    (``start`` = ``len`` = 0). None: the bytes are not UTF-8 JSON (no rows; kept as bytes). A
    leading byte order mark is no part of the JSON: the spans start past its 3 bytes."""
    try:
        bom, text = json_text(data)
        obj = json.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None
    sources = raw_sources(obj)
    try:
        i = _WS.match(text, 0).end()
        if isinstance(obj, dict):
            outer, inner, _ = _members(text, i, True)
            spans = inner if isinstance(obj.get("sources"), dict) else outer
        else:
            spans = {"data": (i, _SCAN(text, i)[1])}
        if spans is None or spans.keys() != sources.keys():
            raise ValueError("keys")
    except (ValueError, IndexError, StopIteration):  # (never seen: json.loads read it) the texts
        return [(k, 0, 0, json.dumps(v, ensure_ascii=False)) for k, v in sources.items()]
    skip = len(bom.encode("utf-8"))
    if text.isascii():
        return [(k, skip + a + 1, b - a, None) for k, (a, b) in spans.items()]
    cuts = sorted({p for ab in spans.values() for p in ab})
    at, pos, prev = {}, skip, 0
    for p in cuts:
        pos += len(text[prev:p].encode("utf-8"))
        at[p], prev = pos, p
    return [(k, at[a] + 1, at[b] - at[a], None) for k, (a, b) in spans.items()]


def insert_rows(conn, pid: int, fid: int | None, data: bytes, rows) -> None:
    """Write page ``pid``'s ``raw_spans`` rows of :func:`sidecar_rows` (``rows``) of the sidecar
    ``data``: spans of the file row ``fid`` (a sidecar stored whole), else the texts."""
    conn.executemany(
        "INSERT INTO raw_spans(page_id, source, file_id, start, len, data) VALUES (?, ?, ?, ?, ?, ?)",
        [(pid, k, fid, a, n, t) if fid is not None or t is not None else (pid, k, None, 0, 0, row_text(data, a, n, None))
         for k, a, n, t in rows or ()],
    )


def row_text(data: bytes, start: int, length: int, text: str | None) -> str:
    """The JSON text the view ``raw_data`` gives for a row of :func:`sidecar_rows`."""
    return text if text is not None else bytes(data[start - 1 : start - 1 + length]).decode("utf-8")


#: SQLite's part of migration v40 (Postgres: sql/pg_v41.sql): the table, the view, and writes to
#: the view (``INSERT INTO raw_data(page_id, source, data)``, ``DELETE``) kept working
SQLITE_SQL = """
CREATE TABLE raw_spans (
  id INTEGER PRIMARY KEY,
  page_id INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
  source TEXT NOT NULL,
  file_id INTEGER REFERENCES files(id) ON DELETE CASCADE,  -- the sidecar whose bytes hold the value
  start INTEGER NOT NULL DEFAULT 0,                          -- 1-based byte offset of the value's JSON text
  len INTEGER NOT NULL DEFAULT 0,                            -- its length in bytes
  data TEXT,                                                 -- the JSON text when it is no slice
  fetched_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
  UNIQUE(page_id, source)
);
CREATE INDEX idx_raw_spans_file ON raw_spans(file_id);
INSERT INTO raw_spans(id, page_id, source, data, fetched_at) SELECT id, page_id, source, data, fetched_at FROM raw_data;
DROP TABLE raw_data;
CREATE VIEW raw_data(id, page_id, source, data, fetched_at) AS
  SELECT r.id, r.page_id, r.source,
         CASE WHEN r.data IS NOT NULL THEN r.data ELSE CAST(substr(f.data, r.start, r.len) AS TEXT) END,
         r.fetched_at
  FROM raw_spans r LEFT JOIN files f ON f.id = r.file_id;
CREATE TRIGGER raw_data_insert INSTEAD OF INSERT ON raw_data BEGIN
  INSERT INTO raw_spans(page_id, source, data, fetched_at)
  VALUES (NEW.page_id, NEW.source, NEW.data, coalesce(NEW.fetched_at, strftime('%Y-%m-%dT%H:%M:%SZ', 'now')));
END;
CREATE TRIGGER raw_data_delete INSTEAD OF DELETE ON raw_data BEGIN
  DELETE FROM raw_spans WHERE id = OLD.id;
END;
"""


def to_spans(conn) -> int:
    """Turn the text rows of every sidecar stored whole (``pieces = 0``) into spans of its bytes
    where its bytes give the same sources (the upgrade: v40 / pg_v41 copied the rows as texts);
    returns the rows turned."""
    n = 0
    files = conn.execute(
        "SELECT f.id, f.page_id FROM files f WHERE f.kind = 'raw' AND f.pieces = 0 AND f.page_id IS NOT NULL "
        "AND (SELECT COUNT(*) FROM files g WHERE g.kind = 'raw' AND g.page_id = f.page_id) = 1").fetchall()
    for fid, pid in files:
        data = conn.execute("SELECT data FROM files WHERE id = ?", (fid,)).fetchone()[0]
        rows = sidecar_rows(data)
        have = {r[0]: r[1] for r in conn.execute("SELECT source, data FROM raw_spans WHERE page_id = ? AND file_id IS NULL", (pid,))}
        if not rows or {r[0] for r in rows} != have.keys():
            continue
        for source, start, length, text in rows:
            if text is None and json.loads(row_text(data, start, length, None)) != json.loads(have[source]):
                break
        else:
            conn.executemany(
                "UPDATE raw_spans SET file_id = ?, start = ?, len = ?, data = ? WHERE page_id = ? AND source = ?",
                [(fid, start, length, text, pid, source) for source, start, length, text in rows])
            n += len(rows)
    return n
