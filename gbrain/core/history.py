"""Page and file history: every version any writer stores is kept, with who wrote it.

Storage (migration ``_m4_history`` in :mod:`gbrain.storage.db`)
-------------------------------------------------------------
* ``history``: one row per write of a page (keyed by slug) or a non-page file (keyed by path):
  ``version`` (1, 2, … per key), ``op`` (``create``, ``update``, ``delete``, ``move``,
  ``baseline`` for what a brain held when history began), the body it wrote (``body_id``,
  NULL for a deletion or a page moved away), its size, the time (UTC, milliseconds) and the
  origin: ``surface``, ``operation`` and ``client`` (MCP client name; sync/watch: the folder's sync client) (:mod:`gbrain.storage.origin`).
* ``history_bodies``: each distinct body once, content-addressed by its sha256 (the same hash
  as ``pages.content_hash`` / ``files.content_hash``), deflate-compressed. A body written over
  another one is compressed with the replaced body as the preset dictionary (a delta, in effect:
  a page that gained one timeline line costs tens of bytes); chains are cut every
  :data:`MAX_DEPTH` steps with a body compressed on its own.
* By reference (migration v24 / ``pg_v24.sql``, :func:`ref_triggers_sql`): a page body that is
  still the current text of the page that wrote it is not packed at all: its ``data`` is the
  marker :data:`REF` followed by that page's id (``b'p123'``), and the reader takes the page's
  text (checking it against the body's hash). It is packed, on its own, by the page's UPDATE or
  DELETE trigger, which has the old text, at the moment that page stops holding it; a body several
  pages hold refers to one of them and is packed when that one lets go. So an import stores each
  page's text once and pays no deflate for it; the one copy of a current version is the page row
  (a page text damaged in place loses its current version: :func:`body` says so). Bodies packed
  before v24 stay packed; readers accept both.
* Files too (migration v35 / ``pg_v35.sql``, :func:`file_ref_triggers_sql`): the body of a
  non-page file's version that is still the bytes of the ``files`` row that wrote it is the
  marker :data:`FILE_REF` + that row's id (``b'f42'``), packed by the row's UPDATE (new bytes) or
  DELETE trigger (``gb_keep``); a move keeps the row and its id. A new version of a file stored
  whole is a delta against the one it replaced only when that delta is at most a
  :data:`FILE_DELTA_SHARE`-th of its size (a sidecar edited in one place), else a reference (a
  PDF replaced whole is not stored twice). Big files' bodies were never copies (``c``). An
  upgrade turns the copies of current files into references (:func:`refer_files`).

The rows are written by SQLite triggers on ``pages`` and ``files`` in the writer's own
transaction, so every path that writes (``put``, ``tag``, ``link``, ``raw``, ``delete``, import,
sync, watch, the MCP server, another process) is recorded with no code of its own, exactly
like the sync change log. The triggers call SQL functions, ``gb_pack``, ``gb_keep`` (v24) and ``gb_origin``,
that :func:`gbrain.storage.db.connect` registers; a connection opened without them (a plain
``sqlite3`` shell) cannot write pages, which is deliberate: nothing writes around history.
"""
from __future__ import annotations

import difflib
import hashlib
import re
import sqlite3
import time
import zlib
from typing import Any, Iterable, NamedTuple

from ..errors import BadInput, NotFound
from ..page.slugs import cmd_arg, is_hidden_path, is_markdown, slug_for_path, swap_temp_of
from ..storage.db import in_parts

MAX_DEPTH = 15  #: longest chain of bodies compressed against the one before
LEVEL = 6  #: zlib level (6: zlib's default trade of speed for size)
_WBITS = -15  # raw deflate: the sha256 of each body is the integrity check


SMALL_EDIT = 256  #: a changed span up to this many bytes is stored as is ('x' encoding, no deflate)


def _common_prefix(a: bytes, b: bytes, n: int) -> int:
    """Length of the common prefix of ``a[:n]`` and ``b[:n]`` (memcmp by halving, then bytes)."""
    if a[:n] == b[:n]:
        return n
    lo, hi = 0, n
    while hi - lo > 32:
        mid = (lo + hi) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid
    while lo < hi and a[lo] == b[lo]:
        lo += 1
    return lo


def pack(data: Any, base: Any = None) -> bytes:
    """SQL ``gb_pack(body, base)``: ``body`` (text or bytes) stored against ``base`` (the body it
    replaces, or NULL). First byte says how:

    * ``x`` — against ``base``: the lengths of the prefix and suffix it shares with ``base``
      (4 bytes each, little-endian), then the changed span between them, itself encoded as ``r``
      (as is, when at most :data:`SMALL_EDIT` bytes) or ``d``. An edit costs about its own size
      and a few microseconds: most writes change one place of a page (a tag, a timeline line,
      the compiled truth), so this is the common case;
    * ``d`` — deflated with ``base`` as the preset dictionary (a changed span that is long);
    * ``z`` — deflated alone (no base), ``r`` — as is (when deflate does not make it smaller).
    """
    raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    if base is not None:
        zd = base.encode("utf-8") if isinstance(base, str) else bytes(base)
        if not zd:
            return _deflate(raw, b"\0")
        n = min(len(raw), len(zd))
        pre = _common_prefix(raw, zd, n)
        m = n - pre
        suf = _common_prefix(raw[::-1], zd[::-1], m) if m else 0
        mid = raw[pre:len(raw) - suf]
        span = b"r" + mid if len(mid) <= SMALL_EDIT else _deflate(mid, zd)
        out = b"x" + pre.to_bytes(4, "little") + suf.to_bytes(4, "little") + span
        return out if len(out) <= len(raw) else b"r" + raw
    return _deflate(raw, None)


def _deflate(raw: bytes, zd: bytes | None) -> bytes:
    if zd is not None:
        c = zlib.compressobj(LEVEL, zlib.DEFLATED, _WBITS, zdict=zd[-32768:])
        out = b"d" + c.compress(raw) + c.flush()
    else:
        c = zlib.compressobj(LEVEL, zlib.DEFLATED, _WBITS)
        out = b"z" + c.compress(raw) + c.flush()
    return out if len(out) <= len(raw) else b"r" + raw


#: encodings that need the body they were packed against (their ``base_id``)
DELTA_TAGS = (b"d", b"x")
#: marker of a body stored by reference (v24): ``b'p'`` + the id of the page that holds it now
REF = b"p"
#: marker of a file body stored by reference (v35): ``b'f'`` + the id of the ``files`` row that holds it now
FILE_REF = b"f"
#: a new version of a file stored whole is kept as a delta against the one it replaced only when
#: the delta is at most this fraction (1/N) of its size; else by reference (v35)
FILE_DELTA_SHARE = 4


def hashlib_sha(text: str | bytes) -> str:
    """sha256 hex of ``text`` (UTF-8) or bytes: the key of a stored body."""
    return hashlib.sha256(text.encode("utf-8") if isinstance(text, str) else text).hexdigest()


def _unpack_one(data: bytes, base: bytes | None) -> bytes:
    tag, rest = data[:1], data[1:]
    if tag == b"r":
        return rest
    if tag == b"z":
        return zlib.decompress(rest, _WBITS)
    if tag == b"x":
        if base is None:
            raise ValueError("delta body without its base")
        pre, suf = int.from_bytes(rest[:4], "little"), int.from_bytes(rest[4:8], "little")
        return base[:pre] + _unpack_one(rest[8:], base) + base[len(base) - suf:]
    if tag == b"d":
        if base is None:
            raise ValueError("delta body without its base")
        d = zlib.decompressobj(_WBITS, zdict=base[-32768:] if base else b"\0")
        return d.decompress(rest) + d.flush()
    raise ValueError(f"unknown body encoding {tag!r}")


def body(conn: sqlite3.Connection, body_id: int) -> bytes:
    """The exact bytes of history body ``body_id`` (following its chain of bases; a body stored
    in pieces, marker ``c``, is read from :mod:`gbrain.storage.blobs`: whole, so a caller that
    can stream uses :func:`body_pieces`)."""
    return b"".join(body_pieces(conn, body_id))


def body_pieces(conn: sqlite3.Connection, body_id: int):
    """The bytes of history body ``body_id`` as an iterator of pieces: a big file's body (marker
    ``c``) one stored piece at a time, any other body in one piece."""
    r = conn.execute("SELECT hash, data FROM history_bodies WHERE id = ?", (body_id,)).fetchone()
    if r is not None and bytes(r[1][:1]) == b"c":
        from ..storage.blobs import iter_pieces

        return iter_pieces(conn, r[0])
    return iter([_body_whole(conn, body_id)])


def _body_whole(conn: sqlite3.Connection, body_id: int, memo: "dict[int, bytes] | None" = None) -> bytes:
    """The bytes of body ``body_id``; ``memo`` (body id → bytes, of bodies read before): a chain
    stops at a base it holds, and the answer goes into it (a listing reads a page's versions
    oldest first, each a delta of the one before: one statement a version, not one a link of its
    chain, up to :data:`MAX_DEPTH` + 1); a body stored in pieces (marker ``c``) is read whole."""
    if memo is not None and body_id in memo:
        return memo[body_id]
    chain = []
    bid: int | None = body_id
    out: bytes | None = None
    while bid is not None:
        if memo is not None and bid in memo:
            out = memo[bid]
            break
        r = conn.execute("SELECT base_id, data, hash FROM history_bodies WHERE id = ?", (bid,)).fetchone()
        if r is None:
            raise NotFound(f"history body {bid} is missing")
        data = bytes(r[1])
        if memo is not None and not chain and data[:1] == b"c":  # (body_pieces reads it piece by piece)
            from ..storage.blobs import iter_pieces

            out = b"".join(iter_pieces(conn, r[2]))
            memo[body_id] = out
            return out
        if data[:1] in (REF, FILE_REF):  # the current text of a page (v24) or bytes of a file (v35): the end of the chain
            chain.append(b"r" + _referenced(conn, bid, data, r[2]))
            break
        chain.append(data)
        bid = r[0] if data[:1] in DELTA_TAGS else None
    for data in reversed(chain):
        out = _unpack_one(data, out)
    assert out is not None
    if memo is not None:
        memo[body_id] = out
    return out


def _referenced(conn: sqlite3.Connection, bid: int, data: bytes, hx: str) -> bytes:
    """The bytes of body ``bid`` stored by reference (``data``: :data:`REF` + a page id, or
    :data:`FILE_REF` + a file id): that page's text or that file's bytes, when they hash to
    ``hx``; else :class:`NotFound` (the version is lost, never other bytes)."""
    from .brain import render_row

    i = int(data[1:])
    if data[:1] == FILE_REF:
        what = "bytes of file id"
        r = conn.execute("SELECT data FROM files WHERE id = ? AND pieces = 0", (i,)).fetchone()
        raw = bytes(r[0]) if r is not None else None
    else:
        what = "text of page id"
        r = conn.execute("SELECT bom, frontmatter_raw, compiled_truth, separator, timeline FROM pages WHERE id = ?", (i,)).fetchone()
        raw = render_row(r).encode("utf-8", "surrogatepass") if r is not None else None
    if raw is None or hashlib_sha(raw) != hx:
        raise NotFound(f"history body {bid} is lost: it was kept as the current {what} {i}, "
                       f"which {'is gone' if r is None else 'no longer holds it (its stored bytes are damaged)'}")
    return raw


def keep(text: Any, hx: str) -> bytes | None:
    """SQL ``gb_keep(text, hash)`` (v24; v35: a file's bytes too): a page text that stops being current, packed on its own
    (:func:`pack`) to replace its reference; NULL when it does not hash to ``hash`` (the stored
    text was damaged in place: the reference stays, and reading it says the version is lost)."""
    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else bytes(text)
    return pack(raw) if hashlib_sha(raw) == hx else None


def _render(p: str) -> str:
    return f"CASE WHEN {p}.bom THEN char(65279) ELSE '' END || {p}.frontmatter_raw || {p}.compiled_truth || {p}.separator || {p}.timeline"


_AT = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
_ORIGIN = "gb_origin(0), gb_origin(1), gb_origin(2)"
_WRITER = ", gb_origin(3)"  # the writer (storage/origin.py: identity), migration v16


def _next(kind: str, name: str) -> str:
    return f"(SELECT COALESCE(MAX(version), 0) + 1 FROM history WHERE kind = '{kind}' AND name = {name})"


def _store_body(new_body: str, new_hash: str, new_size: str, old_body: str | None, old_hash: str | None) -> str:
    """SQL that stores ``new_body`` unless a body with its hash exists; against the old body
    (when it is stored and its chain is short) or alone."""
    if old_body is None:
        return (f"INSERT INTO history_bodies(hash, size, base_id, depth, data) SELECT {new_hash}, {new_size}, NULL, 0, gb_pack({new_body}, NULL) "
                f"WHERE NOT EXISTS (SELECT 1 FROM history_bodies WHERE hash = {new_hash});")
    return (
        f"INSERT INTO history_bodies(hash, size, base_id, depth, data) "
        f"SELECT {new_hash}, {new_size}, CASE WHEN b.depth < {MAX_DEPTH} THEN b.id END, CASE WHEN b.depth < {MAX_DEPTH} THEN b.depth + 1 ELSE 0 END, "
        f"gb_pack({new_body}, CASE WHEN b.depth < {MAX_DEPTH} THEN {old_body} END) "
        f"FROM (SELECT 1) LEFT JOIN history_bodies b ON b.hash = {old_hash} "
        f"WHERE NOT EXISTS (SELECT 1 FROM history_bodies WHERE hash = {new_hash});"
    )


def _cols(w: bool) -> str:
    """The columns a trigger's history row fills; ``w``: with migration v16's ``writer``."""
    return "kind, name, version, path, op, body_id, size, at, surface, operation, client, detail" + (", writer" if w else "")


def _row(kind: str, name: str, path: str, op: str, body_hash: str | None, size: str, detail: str = "''", w: bool = False) -> str:
    bid = f"(SELECT id FROM history_bodies WHERE hash = {body_hash})" if body_hash else "NULL"
    return (f"INSERT INTO history({_cols(w)}) "
            f"VALUES ('{kind}', {name}, {_next(kind, name)}, {path}, {op}, {bid}, {size}, {_AT}, {_ORIGIN}, {detail}{_WRITER if w else ''});")


def _page_triggers(w: bool = False) -> str:
    """The ``pages`` history triggers (v4; ``w``: v16's, which also record the writer)."""
    pn, po = _render("new"), _render("old")
    moved = "old.slug IS NOT new.slug"
    wr = _WRITER if w else ""
    return f"""
CREATE TRIGGER pages_history_ai AFTER INSERT ON pages BEGIN
  {_store_body(pn, "new.content_hash", "new.size", None, None)}
  {_row("page", "new.slug", "new.path", "'create'", "new.content_hash", "new.size", w=w)}
END;
CREATE TRIGGER pages_history_au AFTER UPDATE OF slug, path, content_hash ON pages
  WHEN old.content_hash IS NOT new.content_hash OR old.slug IS NOT new.slug OR old.path IS NOT new.path BEGIN
  INSERT INTO history({_cols(w)})
    SELECT 'page', old.slug, {_next("page", "old.slug")}, old.path, 'move', NULL, 0, {_AT}, {_ORIGIN}, 'to ' || new.slug{wr} WHERE {moved};
  {_store_body(pn, "new.content_hash", "new.size", po, "old.content_hash")}
  {_row("page", "new.slug", "new.path", f"CASE WHEN {moved} THEN 'move' ELSE 'update' END", "new.content_hash", "new.size", f"CASE WHEN {moved} THEN 'from ' || old.slug ELSE '' END", w=w)}
END;
CREATE TRIGGER pages_history_ad AFTER DELETE ON pages BEGIN
  {_row("page", "old.slug", "old.path", "'delete'", None, "0", w=w)}
END;
"""


def _ref(id_expr: str, marker: str = "p") -> str:
    """SQL of the reference marker of page ``id_expr`` (``b'p'`` + its id as digits; ``marker``
    ``f``: of a file row, v35)."""
    return f"CAST('{marker}' || {id_expr} AS BLOB)"


def _let_go(when: str = "", file: bool = False) -> str:
    """The UPDATE/DELETE trigger step of v24 (:func:`ref_triggers_sql`; ``file``: of v35,
    :func:`file_ref_triggers_sql`): the body that OLD held by reference is packed from OLD's text
    or bytes (which still hash to it; else the reference stays). ``when``: a further SQL
    condition (``… AND ``) for the step to run at all."""
    po = "old.data" if file else _render("old")
    return (f"UPDATE history_bodies SET data = COALESCE(gb_keep({po}, old.content_hash), data) "
            f"WHERE {when}hash = old.content_hash AND data = {_ref('old.id', 'f' if file else 'p')};")


def ref_triggers_sql() -> str:
    """Migration v24: the ``pages`` history triggers with bodies stored by reference (module
    docstring): INSERT records a new body as :data:`REF` + the page id (no pack); UPDATE and DELETE
    first pack the body OLD held by reference (:func:`keep`), then UPDATE stores the new body
    against the old one as before (a delta, or, when the chain is at :data:`MAX_DEPTH` or the old
    body was not kept, by reference). With the writer (v16)."""
    pn, po, m = _render("new"), _render("old"), MAX_DEPTH
    moved = "old.slug IS NOT new.slug"
    ok = f"b.depth < {m} AND b.data IS NOT {_ref('old.id')}"
    return f"""
DROP TRIGGER IF EXISTS pages_history_ai;
DROP TRIGGER IF EXISTS pages_history_au;
DROP TRIGGER IF EXISTS pages_history_ad;
CREATE TRIGGER pages_history_ai AFTER INSERT ON pages BEGIN
  INSERT INTO history_bodies(hash, size, base_id, depth, data) SELECT new.content_hash, new.size, NULL, 0, {_ref('new.id')}
    WHERE NOT EXISTS (SELECT 1 FROM history_bodies WHERE hash = new.content_hash);
  {_row("page", "new.slug", "new.path", "'create'", "new.content_hash", "new.size", w=True)}
END;
CREATE TRIGGER pages_history_au AFTER UPDATE OF slug, path, content_hash ON pages
  WHEN old.content_hash IS NOT new.content_hash OR old.slug IS NOT new.slug OR old.path IS NOT new.path BEGIN
  INSERT INTO history({_cols(True)})
    SELECT 'page', old.slug, {_next("page", "old.slug")}, old.path, 'move', NULL, 0, {_AT}, {_ORIGIN}, 'to ' || new.slug{_WRITER} WHERE {moved};
  {_let_go("old.content_hash IS NOT new.content_hash AND ")}
  INSERT INTO history_bodies(hash, size, base_id, depth, data)
    SELECT new.content_hash, new.size, CASE WHEN {ok} THEN b.id END, CASE WHEN {ok} THEN b.depth + 1 ELSE 0 END,
      CASE WHEN {ok} THEN gb_pack({pn}, {po}) ELSE {_ref('new.id')} END
    FROM (SELECT 1) LEFT JOIN history_bodies b ON b.hash = old.content_hash
    WHERE NOT EXISTS (SELECT 1 FROM history_bodies WHERE hash = new.content_hash);
  {_row("page", "new.slug", "new.path", f"CASE WHEN {moved} THEN 'move' ELSE 'update' END", "new.content_hash", "new.size", f"CASE WHEN {moved} THEN 'from ' || old.slug ELSE '' END", w=True)}
END;
CREATE TRIGGER pages_history_ad AFTER DELETE ON pages BEGIN
  {_let_go()}
  {_row("page", "old.slug", "old.path", "'delete'", None, "0", w=True)}
END;
"""


def _files_ad(w: bool = False) -> str:
    return f"""
CREATE TRIGGER files_history_ad AFTER DELETE ON files BEGIN
  {_row("file", "old.path", "old.path", "'delete'", None, "0", w=w)}
END;
"""


def migration_sql() -> str:
    """The tables and triggers of migration v4 (see the module docstring)."""
    return f"""
CREATE TABLE history_bodies (
  id INTEGER PRIMARY KEY,
  hash TEXT NOT NULL UNIQUE,          -- sha256 hex of the exact bytes
  size INTEGER NOT NULL,              -- bytes, uncompressed
  base_id INTEGER,                    -- the body this one is stored against ('d', 'x' encodings)
  depth INTEGER NOT NULL DEFAULT 0,   -- length of the chain of bases
  data BLOB NOT NULL                  -- gbrain.core.history.pack
);
CREATE TABLE history (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  kind TEXT NOT NULL,                 -- page | file
  name TEXT NOT NULL,                 -- slug (page) or path (file)
  version INTEGER NOT NULL,           -- 1, 2, ... per (kind, name)
  path TEXT NOT NULL,
  op TEXT NOT NULL,                   -- baseline | create | update | move | delete
  body_id INTEGER,                    -- NULL: deleted, or moved away
  size INTEGER NOT NULL DEFAULT 0,
  at TEXT NOT NULL,
  surface TEXT NOT NULL DEFAULT '',   -- cli | mcp | pipe | call | sync | watch | import | api
  operation TEXT NOT NULL DEFAULT '',
  client TEXT NOT NULL DEFAULT '',    -- MCP client name from the handshake
  detail TEXT NOT NULL DEFAULT '',
  UNIQUE (kind, name, version)
);  -- migration v7 adds: trashed TEXT NOT NULL DEFAULT '' (see TRASH_SQL)
{_page_triggers()}
CREATE TRIGGER files_history_ai AFTER INSERT ON files BEGIN
  {_store_body("new.data", "new.content_hash", "new.size", None, None)}
  {_row("file", "new.path", "new.path", "'create'", "new.content_hash", "new.size")}
END;
CREATE TRIGGER files_history_au AFTER UPDATE OF path, content_hash ON files
  WHEN old.content_hash IS NOT new.content_hash OR old.path IS NOT new.path BEGIN
  INSERT INTO history(kind, name, version, path, op, body_id, size, at, surface, operation, client, detail)
    SELECT 'file', old.path, {_next("file", "old.path")}, old.path, 'move', NULL, 0, {_AT}, {_ORIGIN}, 'to ' || new.path WHERE old.path IS NOT new.path;
  {_store_body("new.data", "new.content_hash", "new.size", "old.data", "old.content_hash")}
  {_row("file", "new.path", "new.path", "CASE WHEN old.path IS NOT new.path THEN 'move' ELSE 'update' END", "new.content_hash", "new.size", "CASE WHEN old.path IS NOT new.path THEN 'from ' || old.path ELSE '' END")}
END;
{_files_ad()}
INSERT OR IGNORE INTO history_bodies(hash, size, base_id, depth, data) SELECT content_hash, size, NULL, 0, gb_pack({_render("pages")}, NULL) FROM pages;
INSERT OR IGNORE INTO history_bodies(hash, size, base_id, depth, data) SELECT content_hash, size, NULL, 0, gb_pack(data, NULL) FROM files;
INSERT INTO history(kind, name, version, path, op, body_id, size, at, surface, operation)
  SELECT 'page', slug, 1, path, 'baseline', (SELECT id FROM history_bodies b WHERE b.hash = pages.content_hash), size, {_AT}, 'migrate', 'history began' FROM pages;
INSERT INTO history(kind, name, version, path, op, body_id, size, at, surface, operation)
  SELECT 'file', path, 1, path, 'baseline', (SELECT id FROM history_bodies b WHERE b.hash = files.content_hash), size, {_AT}, 'migrate', 'history began' FROM files;
"""


def pieces_triggers_sql(w: bool = False) -> str:
    """Migration v9's file history triggers: a file stored in pieces (``files.pieces > 0``, see
    :mod:`gbrain.storage.blobs`) gets the body marker ``c`` (its bytes are the pieces under its
    hash; depth :data:`MAX_DEPTH` so it is never a deflate dictionary) instead of a packed copy,
    and a file body is compressed against the one it replaces only when both were stored whole.
    ``w``: migration v16's triggers, which also record the writer."""
    m = MAX_DEPTH
    ok = f"new.pieces = 0 AND old.pieces = 0 AND b.depth < {m}"
    new_body = (f"INSERT INTO history_bodies(hash, size, base_id, depth, data) SELECT new.content_hash, new.size, NULL, "
                f"CASE WHEN new.pieces > 0 THEN {m} ELSE 0 END, CASE WHEN new.pieces > 0 THEN X'63' ELSE gb_pack(new.data, NULL) END "
                f"WHERE NOT EXISTS (SELECT 1 FROM history_bodies WHERE hash = new.content_hash);")
    upd_body = (f"INSERT INTO history_bodies(hash, size, base_id, depth, data) SELECT new.content_hash, new.size, CASE WHEN {ok} THEN b.id END, "
                f"CASE WHEN new.pieces > 0 THEN {m} WHEN {ok} THEN b.depth + 1 ELSE 0 END, "
                f"CASE WHEN new.pieces > 0 THEN X'63' ELSE gb_pack(new.data, CASE WHEN {ok} THEN old.data END) END "
                f"FROM (SELECT 1) LEFT JOIN history_bodies b ON b.hash = old.content_hash "
                f"WHERE NOT EXISTS (SELECT 1 FROM history_bodies WHERE hash = new.content_hash);")
    return f"""
DROP TRIGGER IF EXISTS files_history_ai;
DROP TRIGGER IF EXISTS files_history_au;
CREATE TRIGGER files_history_ai AFTER INSERT ON files BEGIN
  {new_body}
  {_row("file", "new.path", "new.path", "'create'", "new.content_hash", "new.size", w=w)}
END;
CREATE TRIGGER files_history_au AFTER UPDATE OF path, content_hash ON files
  WHEN old.content_hash IS NOT new.content_hash OR old.path IS NOT new.path BEGIN
  INSERT INTO history({_cols(w)})
    SELECT 'file', old.path, {_next("file", "old.path")}, old.path, 'move', NULL, 0, {_AT}, {_ORIGIN}, 'to ' || new.path{_WRITER if w else ''} WHERE old.path IS NOT new.path;
  {upd_body}
  {_row("file", "new.path", "new.path", "CASE WHEN old.path IS NOT new.path THEN 'move' ELSE 'update' END", "new.content_hash", "new.size", "CASE WHEN old.path IS NOT new.path THEN 'from ' || old.path ELSE '' END", w=w)}
END;
"""


#: SQL condition: a history body that is a copy of its bytes (v35: any encoding but a reference or
#: big file's pieces, stored in more than a :data:`FILE_DELTA_SHARE`-th of its size), which a
#: files row holding those bytes may hold by reference instead
COPY_SQL = f"substr(data, 1, 1) NOT IN (X'63', X'66', X'70') AND length(data) * {FILE_DELTA_SHARE} > size"


def file_ref_triggers_sql() -> str:
    """Migration v35: the ``files`` history triggers with bodies stored by reference (module
    docstring), as :func:`ref_triggers_sql` for pages: INSERT records a new body as
    :data:`FILE_REF` + the row's id (a big file's ``c`` as before); UPDATE and DELETE first pack
    the body OLD held by reference (:func:`keep`); UPDATE then stores the new body as a delta
    against the old one when both are whole, the chain is short and the delta is at most a
    :data:`FILE_DELTA_SHARE`-th of the new size, else by reference. ``gb_pack`` runs once (the
    subquery's ``OFFSET 0`` keeps SQLite from copying its expression into each use). Bytes the
    history holds already as a copy (:data:`COPY_SQL`: a file restored, reverted, re-created or
    moved by delete and insert) are taken back as a reference to the new row, so they stay once."""
    m, share = MAX_DEPTH, FILE_DELTA_SHARE
    ok = f"new.pieces = 0 AND old.pieces = 0 AND b.depth < {m} AND b.data IS NOT {_ref('old.id', 'f')}"
    use = f"k.p IS NOT NULL AND length(k.p) * {share} <= new.size"
    fresh = "NOT EXISTS (SELECT 1 FROM history_bodies WHERE hash = new.content_hash)"
    moved = "old.path IS NOT new.path"
    adopt = (f"UPDATE history_bodies SET data = {_ref('new.id', 'f')}, base_id = NULL, depth = 0 "
             f"WHERE {{when}}new.pieces = 0 AND hash = new.content_hash AND {COPY_SQL};")
    return f"""
DROP TRIGGER IF EXISTS files_history_ai;
DROP TRIGGER IF EXISTS files_history_au;
DROP TRIGGER IF EXISTS files_history_ad;
CREATE TRIGGER files_history_ai AFTER INSERT ON files BEGIN
  INSERT INTO history_bodies(hash, size, base_id, depth, data) SELECT new.content_hash, new.size, NULL,
    CASE WHEN new.pieces > 0 THEN {m} ELSE 0 END, CASE WHEN new.pieces > 0 THEN X'63' ELSE {_ref('new.id', 'f')} END
    WHERE {fresh};
  {adopt.format(when="")}
  {_row("file", "new.path", "new.path", "'create'", "new.content_hash", "new.size", w=True)}
END;
CREATE TRIGGER files_history_au AFTER UPDATE OF path, content_hash ON files
  WHEN old.content_hash IS NOT new.content_hash OR {moved} BEGIN
  INSERT INTO history({_cols(True)})
    SELECT 'file', old.path, {_next("file", "old.path")}, old.path, 'move', NULL, 0, {_AT}, {_ORIGIN}, 'to ' || new.path{_WRITER} WHERE {moved};
  {_let_go("old.content_hash IS NOT new.content_hash AND ", file=True)}
  INSERT INTO history_bodies(hash, size, base_id, depth, data)
    SELECT new.content_hash, new.size, CASE WHEN {use} THEN k.bid END,
      CASE WHEN new.pieces > 0 THEN {m} WHEN {use} THEN k.depth + 1 ELSE 0 END,
      CASE WHEN new.pieces > 0 THEN X'63' WHEN {use} THEN k.p ELSE {_ref('new.id', 'f')} END
    FROM (SELECT b.id AS bid, b.depth AS depth, CASE WHEN {ok} THEN gb_pack(new.data, old.data) END AS p
          FROM (SELECT 1) LEFT JOIN history_bodies b ON b.hash = old.content_hash WHERE {fresh} LIMIT -1 OFFSET 0) k;
  {adopt.format(when="old.content_hash IS NOT new.content_hash AND ")}
  {_row("file", "new.path", "new.path", f"CASE WHEN {moved} THEN 'move' ELSE 'update' END", "new.content_hash", "new.size", f"CASE WHEN {moved} THEN 'from ' || old.path ELSE '' END", w=True)}
END;
CREATE TRIGGER files_history_ad AFTER DELETE ON files BEGIN
  {_let_go(file=True)}
  {_row("file", "old.path", "old.path", "'delete'", None, "0", w=True)}
END;
"""


def refer_files(conn) -> tuple[int, int]:
    """Migration v35's upgrade (either engine, in the caller's transaction): each history body
    that is a copy of a current file's bytes (:data:`COPY_SQL`; a file stored whole whose bytes still hash to it)
    becomes a reference to that file (:data:`FILE_REF`; the lowest file id when several hold
    it). Returns ``(bodies turned into references, bytes of the copies freed)``."""
    rows = conn.execute(
        "SELECT id, hash, length(data) FROM history_bodies WHERE hash IN (SELECT content_hash FROM files WHERE pieces = 0) "
        f"AND {COPY_SQL} ORDER BY id").fetchall()
    n = freed = 0
    for bid, hx, size in rows:
        f = conn.execute("SELECT id, data FROM files WHERE content_hash = ? AND pieces = 0 ORDER BY id LIMIT 1", (hx,)).fetchone()
        if f is None or hashlib_sha(bytes(f[1])) != hx:
            continue  # damaged in place: the packed copy is the version's only good one
        ref = FILE_REF + str(int(f[0])).encode()
        conn.execute("UPDATE history_bodies SET data = ?, base_id = NULL, depth = 0 WHERE id = ?", (ref, bid))
        n += 1
        freed += int(size) - len(ref)
    return n, freed


def writer_sql(add_column: bool = True) -> str:
    """Migration v16: ``history.writer`` (who wrote a version: :func:`gbrain.storage.origin.identity`,
    ``$GBRAIN_USER`` or ``login@host``; '' for rows written before, unknown) and every history
    trigger re-created to fill it from ``gb_origin(3)`` in the writer's transaction (``add_column``
    False: the column is there already, only the triggers)."""
    drops = "".join(f"DROP TRIGGER IF EXISTS {t};\n" for t in ("pages_history_ai", "pages_history_au", "pages_history_ad", "files_history_ad"))
    return (("ALTER TABLE history ADD COLUMN writer TEXT NOT NULL DEFAULT '';\n" if add_column else "") + drops + _page_triggers(w=True) + _files_ad(w=True)
            + pieces_triggers_sql(w=True))


# ---------------------------------------------------------------------------
# reading history
# ---------------------------------------------------------------------------

COLLAPSE_MIN_BYTES = 200  #: a page at least this big that loses over half its bytes is reported


def resolve_key(brain, name: str) -> tuple[str, str]:
    """``(kind, name)`` of the history to read for ``name``: a live page (by the usual slug
    lookup), a page that was deleted or moved away (exact slug, then case-insensitive, then a
    unique suffix), or a non-page file by its path. Raises :class:`NotFound`."""
    from ..page.slugs import nfc

    c = brain.conn
    raw = nfc(name.strip())
    s = raw.strip("/")
    if s.endswith(".md"):
        s = s[:-3]
    try:
        slug = brain.resolve_slug(name)["slug"]
        # a name found only by its case, a suffix or an alias (`a` → `sub/a`, moved from `a`) that is
        # the exact name of a page that moved away: that name's history (its versions numbered under it)
        if slug != s:
            r = c.execute("SELECT op, body_id FROM history WHERE kind = 'page' AND name = ? ORDER BY version DESC LIMIT 1", (s,)).fetchone()
            if r is not None and r["op"] == "move" and r["body_id"] is None:
                return "page", s
        return "page", slug
    except NotFound as e:
        miss: Exception = e
    except BadInput as e:
        miss = e
    for kind, key in (("file", raw), ("page", s)):
        if c.execute("SELECT 1 FROM history WHERE kind = ? AND name = ? LIMIT 1", (kind, key)).fetchone():
            return kind, key
    rows = c.execute("SELECT DISTINCT name FROM history WHERE kind = 'page' AND (lower(name) = lower(?) OR lower(name) LIKE '%/' || lower(?))", (s, s)).fetchall()
    if len(rows) == 1:
        return "page", rows[0][0]
    if len(rows) > 1:
        names = sorted(r[0] for r in rows)[:10]
        raise NotFound(f"'{name}' matches {len(rows)} page histories: " + ", ".join(names), names)
    raise NotFound(f"{miss}; and no history under that name (deleted pages keep theirs: `gbrain changes` lists recent ones)", getattr(miss, "suggestions", []))


def _origin_of(r) -> str:
    o = r["surface"] or "?"
    if r["client"]:
        o += f"({r['client']})"
    if r["operation"] and r["operation"] != r["surface"]:  # `import` by `import`: said once
        o += " " + r["operation"]
    return o


#: the parts of a page a put may write alone (``put``'s compiled_truth, append, timeline_append,
#: frontmatter and replace), in the order :func:`put_operation` names them
PUT_PARTS = ("compiled_truth", "append", "timeline_append", "frontmatter", "replace")


def put_operation(parts) -> str:
    """The history operation of a put of part of a page (``history`` shows it as what happened,
    ``changes --origin put`` lists it with whole puts): ``put compiled_truth``, ``put timeline_append``,
    ``put frontmatter``, several joined by ``+`` (``put timeline_append+frontmatter``)."""
    return "put " + "+".join(p for p in PUT_PARTS if p in parts)


def has_writer(conn) -> bool:
    """Whether the history has migration v16's ``writer`` column (SQLite v16 / Postgres v14; a
    migration before them, v7's or Postgres v5's, runs on a history without it)."""
    return any(r[1] == "writer" for r in conn.execute("PRAGMA table_info(history)"))


def _by(r) -> str:
    """The writer of history row ``r`` (migration v16's ``writer``): '' when unknown (a row written
    before v16, or by a migration)."""
    try:
        return r["writer"] or ""
    except (IndexError, KeyError):
        return ""


def _version_dict(r, name_field: bool = False) -> dict:
    d = {
        "version": r["version"],
        "at": r["at"],
        "op": r["op"],
        "size": r["size"],
        "surface": r["surface"],
        "operation": r["operation"],
        "client": r["client"],
        "origin": _origin_of(r),
        "path": r["path"],
        "by": _by(r),
    }
    if r["detail"]:
        d["detail"] = r["detail"]
    if name_field:
        d = {"kind": r["kind"], "name": r["name"], **d}
    return d


def _line_delta(old: bytes | None, new: bytes | None) -> tuple[int, int] | None:
    """(lines added, lines removed) from ``old`` to ``new``; None for binary bodies."""
    try:
        a = (old or b"").decode("utf-8").splitlines()
        b = (new or b"").decode("utf-8").splitlines()
    except UnicodeDecodeError:
        return None
    add = rem = 0
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag in ("replace", "delete"):
            rem += i2 - i1
        if tag in ("replace", "insert"):
            add += j2 - j1
    return add, rem


#: how many moves a page's history follows back (a guard against a cycle of renames)
MAX_MOVES = 100


#: the label of a deleted page's version brought back (``restore``, ``revert``: :func:`_revert_key`)
_BROUGHT_BACK = re.compile(r"to v\d+( of an older name)?")


class _Walk:
    """How the stretches of one page's names are found, for ``(conn, kind)``. ``heir``: a new page
    written at a name while the page deleted there was in the trash (any create right after the
    deletion) goes on before it, through the deleted page's stretch and names: the one text's past
    for :func:`page_spans` (``purge SLUG``, a name's open conflict copies), never the listing's
    identity of a page. (Before 2026-12-06 the flag was an argument of five functions.)"""

    def __init__(self, conn, kind: str, heir: bool = False):
        self.conn, self.kind, self.heir = conn, kind, heir

    def first(self, name: str, upto: int | None):
        """The first history row (``id, version, op, detail``) of the stretch of ``name`` that ends at
        ``upto`` (None: its newest), or None: the row after the last deletion or move away below its
        text. A deleted page brought back (``restore``, ``revert``: a create labelled ``to vN``) is the
        same page: its stretch goes on before the deletion, from the stretch of the version it brought
        back (review of e03e6356: a page renamed, deleted and restored lost its old names' versions from
        ``history`` and from ``purge SLUG``, which left its text there); with ``heir``, any create
        right after a deletion."""
        conn, kind = self.conn, self.kind
        cond, args = ("", (kind, name)) if upto is None else (" AND version <= ?", (kind, name, upto))
        end = conn.execute("SELECT MAX(version) FROM history WHERE kind = ? AND name = ?" + cond, args).fetchone()[0]
        if end is None:
            return None
        last = conn.execute("SELECT body_id FROM history WHERE kind = ? AND name = ? AND version = ?", (kind, name, end)).fetchone()
        top = end if last[0] is not None else end - 1  # a deleted or moved-away name: the text before that
        below = top + 1
        while True:
            gap = conn.execute("SELECT MAX(version) FROM history WHERE kind = ? AND name = ? AND body_id IS NULL AND version < ?", (kind, name, below)).fetchone()[0]
            first = conn.execute("SELECT id, version, op, detail FROM history WHERE kind = ? AND name = ? AND version > ? AND version <= ? ORDER BY version LIMIT 1",
                                 (kind, name, gap or 0, top)).fetchone()
            back = first is not None and first["op"] == "create" and gap and (self.heir or _BROUGHT_BACK.fullmatch(first["detail"] or ""))
            if not back:
                return first
            gone = conn.execute("SELECT op FROM history WHERE kind = ? AND name = ? AND version = ?", (kind, name, gap)).fetchone()
            if gone is None or gone["op"] != "delete":  # (brought back after a move away: another page's text at a name it left)
                return first
            below = gap  # the page deleted there: its stretch before the deletion (whichever version came back)

    def moved_in(self, name: str, upto: int | None):
        """The first row of that stretch (:meth:`first`) when it began by a move in (``move from OLD``), else None."""
        first = self.first(name, upto)
        return first if first is not None and first["op"] == "move" and (first["detail"] or "").startswith("from ") else None

    def walk(self, key: str, every: bool) -> list[tuple[str, int | None, int | None]]:
        """:func:`lineage` with the version each stretch began at, when it began by a move in
        (``move from OLD``; None: the oldest, or one that did not): ``[(name, upto, start)]``."""
        conn, kind = self.conn, self.kind
        out: list[list] = [[key, None, None]]
        seen = {key}
        pairs = set()
        cur, upto = key, None
        while len(out) <= MAX_MOVES:
            first = self.moved_in(cur, upto)
            if first is None:
                break
            out[-1][2] = first["version"]
            old = first["detail"][5:]
            if old in seen and not every:
                break
            # the move away written with this move in (a page moved a→b→a→b has two `to b` rows at a)
            away = conn.execute("SELECT version FROM history WHERE kind = ? AND name = ? AND op = 'move' AND body_id IS NULL AND detail = ? "
                                "ORDER BY CASE WHEN id < ? THEN 0 ELSE 1 END, abs(id - ?), id DESC LIMIT 1", (kind, old, "to " + cur, first["id"], first["id"])).fetchone()
            if away is None or (old, away[0]) in pairs:
                break
            away = away[0]
            pairs.add((old, away))
            out.append([old, away - 1, None])
            seen.add(old)
            cur, upto = old, away - 1
        return [tuple(x) for x in out]

    def spans(self, key: str, every: bool) -> list[tuple[str, int, int | None]]:
        """:func:`lineage_spans`."""
        out: list[tuple[str, int, int | None]] = []
        for name, upto, start in self.walk(key, every):
            after = 0
            if upto is not None:
                after = self.conn.execute("SELECT MAX(version) FROM history WHERE kind = ? AND name = ? AND op = 'move' AND body_id IS NULL AND version <= ?",
                                          (self.kind, name, upto)).fetchone()[0] or 0
                if start is not None:  # from its move in: another page written and deleted there before it came is not this one
                    after = max(after, start - 1)
            out.append((name, after, upto))
        return out

    def head_after(self, key: str, spans: list) -> int:
        """The version of ``key`` after which the newest stretch of the page that last had it starts
        (:func:`page_spans`): after the last move away (the one before the key's last row, when that
        row is the page's move away on) and from its move in when the versions before it are another
        page's (:func:`_moved_in_at`), or when it came back to the key (its newest stretch's move in,
        :meth:`moved_in`: another page written and deleted at the key meanwhile is not this one,
        review of e03e6356)."""
        conn, kind = self.conn, self.kind
        last = conn.execute("SELECT version, op, body_id FROM history WHERE kind = ? AND name = ? ORDER BY version DESC LIMIT 1", (kind, key)).fetchone()
        away = last is not None and last["op"] == "move" and last["body_id"] is None  # the page moved on from the key: its own move away
        after = conn.execute("SELECT MAX(version) FROM history WHERE kind = ? AND name = ? AND op = 'move' AND body_id IS NULL" + (" AND version < ?" if away else ""),
                             (kind, key, last["version"]) if away else (kind, key)).fetchone()[0] or 0
        cut = _moved_in_at(conn, kind, key, spans)
        if cut is None and any(sp[0] == key for sp in spans[1:]):  # back at the key: from its move in (another page deleted there between)
            first = self.moved_in(key, None)
            cut = first["version"] if first is not None else None
        return after if cut is None else max(after, cut - 1)


def _stretch_first(conn, kind: str, name: str, upto: int | None):
    """:meth:`_Walk.first` (no ``heir``)."""
    return _Walk(conn, kind).first(name, upto)


def lineage(conn: sqlite3.Connection, kind: str, key: str, *, every: bool = False) -> list[tuple[str, int | None]]:
    """The names whose versions make up the history of ``(kind, key)``, newest first:
    ``[(key, None), (older name, last version), …]``. The key itself contributes every version;
    when the incarnation of a name that ends at ``last`` began as a move (its first version is
    op ``move`` with detail ``from OLD``, written by the pages/files update triggers), OLD's
    versions before it moved away (``version < `` its ``move … to KEY`` row) come next, and so
    on back through every rename (at most :data:`MAX_MOVES`). Each move in is paired with the
    move away written with it (the nearest before it by ``history.id``, else the nearest: a prune's
    or purge's relabelled move in, `rejoin_labels`, is later than the one it replaces, and the
    nearest was a later move away, another stretch's, before 2026-12-06), not the old name's last one.

    A name comes once (the callers key spans by name: ``diff --from-name``, :func:`_no_version`,
    purge): the walk stops at a name it has seen. ``every``: it goes on, so a page moved a→b→a→b
    gives ``[(b, None), (a, 6), (b, 2), (a, 3)]``, every stretch of every name it had, a name
    more than once (the key's repeats add nothing: it contributes every version already; review
    of 0eb9e4b: `history b` left out a's first stretch)."""
    return [(name, upto) for name, upto, _start in _Walk(conn, kind).walk(key, every)]


def lineage_spans(conn: sqlite3.Connection, kind: str, key: str, *, every: bool = False) -> list[tuple[str, int, int | None]]:
    """:func:`lineage` with each older name's first version: ``[(name, after, upto)]``, the
    versions ``after < version <= upto`` (``upto`` None: every one after). An older name's span
    starts after its last move away below ``upto``: a page that left the name earlier (moved on
    to live elsewhere) is another page, whose versions are that page's history, not this one's
    (review of trial 47: `a` moved to `x`, a new note at `a` moved to `sub/a`: `history sub/a`
    listed the first page's versions). The key itself keeps every version (a name's history).
    ``every``: a name the page had more than once, each stretch (:func:`lineage`)."""
    return _Walk(conn, kind).spans(key, every)


def _lineage_rows(conn: sqlite3.Connection, kind: str, key: str, *, with_body: bool = False, limit: int = 0, walked: tuple | None = None) -> list:
    """History rows of ``key`` and the names it moved from (:func:`lineage`), newest first in the
    order they were written (``history.id``), whatever name each was written under: a page renamed
    away and back lists the versions of the name it had in between among its own, where they came
    (trial 65: they were a block after its first version, so each line count was taken against the
    wrong version); ``with_body``: only versions with text; ``limit`` > 0: at most that many;
    ``walked``: ``(spans, gaps)`` read already (:func:`lineage_spans` with ``every``, :func:`_their_gaps`)."""
    rows: list = []
    spans, gaps = walked or _walked(conn, kind, key)
    theirs = _theirs(key, gaps)
    away = _moves_away_between(key, spans)
    for name, after, upto in _own_spans(key, spans):
        q = "SELECT * FROM history WHERE kind = ? AND name = ? AND version > ?"
        args: tuple = (kind, name, after)
        if upto is not None:
            q += " AND version <= ?"
            args += (upto,)
        elif away:
            q += f" AND version NOT IN ({','.join('?' * len(away))})"
            args += tuple(away)
        if with_body:
            q += " AND body_id IS NOT NULL"
        q += " ORDER BY version DESC"
        if limit > 0:  # the newest `limit` of all are among each name's newest `limit` (the key's: and another page's listed after)
            more = 0
            for lo, hi in (gaps if name == key and upto is None else ()):
                more += conn.execute("SELECT COUNT(*) FROM history WHERE kind = ? AND name = ? AND version > ? AND version <= ?", (kind, key, lo, hi)).fetchone()[0]
            q += " LIMIT ?"
            args += (limit + more,)
        rows += conn.execute(q, args).fetchall()
    # another page's versions under the key (before this page moved in, or between its stretches) go after this page's
    rows.sort(key=lambda r: (theirs(r), -r["id"]))
    return rows[:limit] if limit > 0 else rows


def _walked(conn, kind: str, key: str) -> tuple[list, list]:
    """``(spans, gaps)`` of ``key``'s listing: :func:`lineage_spans` with ``every``, :func:`_their_gaps`."""
    spans = lineage_spans(conn, kind, key, every=True)
    return spans, _their_gaps(conn, kind, key, spans)


def _moves_away_between(key: str, spans: list) -> list[int]:
    """The versions of ``key`` that are this page's moves away between its stretches of it (a page
    moved a→b→a: `a`'s `to b`), from ``spans`` (:func:`lineage_spans` with ``every``). Each move is
    listed once, as its move in at the next name (``move from …``): an older name's move away is
    never listed, and the key's own between its stretches are left out alike (before 2026-12-06
    `history b` of a page moved a→b→a→b→c listed `b`'s `to a` and none of `a`'s). The key's last
    move away, how the page left it, is listed: no move in of it is."""
    return sorted(upto + 1 for nm, _after, upto in spans[1:] if nm == key)


def _own_spans(key: str, spans: list) -> list:
    """``spans`` (:func:`lineage_spans` with ``every``) without the key's repeats: the key's own
    span holds every version of it already (a page renamed away and back)."""
    return [sp for i, sp in enumerate(spans) if i == 0 or sp[0] != key]


def _moved_in_at(conn, kind: str, key: str, spans: list) -> int | None:
    """The version of ``key`` at which this page moved in from its older name, when the key's
    versions below it are another page's (a page that left the name, or was deleted, before this
    one took it); None when the page never moved in or its chain of names leads back to ``key``
    (renamed away and back: those versions are its own). Review of 0eb9e4b: `a` moved to `b`,
    `c` moved to `a`: `history a` listed the two pages' versions interleaved by time."""
    if len(spans) < 2 or any(sp[0] == key for sp in spans[1:]):  # (``every`` spans: back at the key)
        return None
    name, after, upto = spans[-1]
    first = conn.execute("SELECT op, detail FROM history WHERE kind = ? AND name = ? AND version > ? AND version <= ? ORDER BY version LIMIT 1",
                         (kind, name, after, upto)).fetchone()
    if first is not None and first["op"] == "move" and first["detail"] == "from " + key:
        return None
    return conn.execute("SELECT MAX(version) FROM history WHERE kind = ? AND name = ? AND op = 'move' AND body_id IS NOT NULL AND detail = ?",
                        (kind, key, "from " + spans[1][0])).fetchone()[0]


def _their_gaps(conn, kind: str, key: str, spans: list) -> list[tuple[int, int]]:
    """The versions of ``key`` that are another page's in the listing of ``key``
    (:func:`_lineage_rows`), as ``[(lo, hi)]``, ``lo < version <= hi``: those another page wrote at
    the name before this page moved in (:func:`_moved_in_at`) or between two of this page's
    stretches of it (a page moved a→b, another page written at `a` and moved on, the first moved
    back: before 2026-12-06 `history a` listed the other's among its own, each line counted
    against the other page's text), and those before its first stretch of the key when that began
    by a move in (review of e03e6356). Versions before a first stretch the page began by being
    written at the name stay the name's (a page written at a name another left by moving away: its
    history is the name's)."""
    cut = _moved_in_at(conn, kind, key, spans)
    if cut is not None:
        return [(0, cut - 1)]
    own = sorted((after, upto + 1) for nm, after, upto in spans[1:] if nm == key)  # each earlier stretch, its move away included
    if not own:
        return []
    own.append((_Walk(conn, kind).head_after(key, spans), 0))
    gaps = [(end, nxt) for (_a, end), (nxt, _e) in zip(own, own[1:]) if nxt > end]
    first = own[0][0]
    start = _stretch_first(conn, kind, key, own[0][1] - 1) if first else None
    if start is not None and start["version"] == first + 1 and start["op"] == "move" and (start["detail"] or "").startswith("from "):
        gaps.insert(0, (0, first))  # its first stretch of the key began by a move in: the versions before it are another page's
    return gaps


def _theirs(key: str, gaps: list):
    """Whether a history row is another page's version of ``key`` (``gaps``: :func:`_their_gaps`)."""
    if not gaps:
        return lambda r: False
    return lambda r: r["name"] == key and any(lo < r["version"] <= hi for lo, hi in gaps)


def page_spans(conn, kind: str, key: str) -> list[tuple[str, int, int | None]]:
    """The versions of the one page (or file) that last had the name ``key``, by name:
    ``[(name, after, upto)]``, the versions ``after < version <= upto`` (``upto`` None: every one
    after ``after``), ``key``'s newest stretch first, then every earlier stretch of every name it
    had, the key's own included (:func:`lineage_spans` with ``every``). Unlike the key's history
    (every version of the name), ``key``'s newest stretch starts at this page: after the last move
    away of another page (before the key's own last row, when that is the page's move away) and at
    its move in when the versions before it are another page's (:func:`_moved_in_at`). What
    belongs to the page: its open conflict copies (``history``), ``purge SLUG``. A new page written
    at a name while the page deleted there was in the trash has the deleted page's versions too,
    under every name it had (``heir``, :class:`_Walk`: before 2026-12-06 `purge notes/a` of a page
    moved a→b→a, deleted, and a new page written and deleted at `notes/a` left `notes/b`'s versions
    and `notes/a`'s first stretch, the first page's text; and `history` named the conflict copies of
    such a deleted page nowhere when their texts were its older names')."""
    w = _Walk(conn, kind, heir=True)
    spans = w.spans(key, True)
    return [(key, w.head_after(key, spans), None)] + spans[1:]


class ConflictCopies(NamedTuple):
    """:func:`conflict_copies`' answer: ``live``, the paths of the copies still in the brain (pages
    or files), and ``gone``, the ``(kind, name)`` history keys of the deleted ones."""
    live: list[str]
    gone: list[tuple[str, str]]


def conflict_copies(conn, paths: Iterable[str], body_ids: Iterable[int], hashes: Iterable[str] = (), ids: Iterable[int] = ()) -> ConflictCopies:
    """The conflict copies of one page (or file): those of a conflict recorded (``sync_conflicts``)
    at one of ``paths`` (the paths its versions had: :func:`page_spans`' rows) whose brain or file
    text (``db_hash``/``file_hash``, sha256 hex) is one of its versions, ``body_ids``
    (``history_bodies`` ids) or ``hashes`` (sha256 hex: its current text's, a reference body's
    own); a conflict of another page once at one of those paths is left (review of trial 47). A
    row with neither hash is the page's. Each copy once: the paths in sorted order, each path's
    newest conflict first; a copy in the brain (a page or file at its path) under ``live``, a
    deleted one under ``gone`` by its history key (:func:`key_for_path`), when it has history.
    ``history`` names the live ones (another version of the note kept beside it by sync or watch:
    trial 47); ``purge SLUG`` refuses while there is one and takes the deleted ones' versions.
    ``ids``: the page's history row ids (those ``paths`` and ``body_ids`` came from): a conflict
    neither of whose texts is left (a prune took them) is the page's when the copy's create (the
    sync's write that recorded it) sits in the page's stretch at the contested name: the name's row
    just before it is the page's with text, or the one just after it is the page's update (before
    2026-12-06 a prune of the page's older versions cut it from its copies: `purge SLUG` left a
    deleted copy, the page's text). A pure read."""
    hx = set(hashes)
    mine = set(ids)
    for part, marks in in_parts(sorted(set(body_ids))):
        hx |= {r[0] for r in conn.execute(f"SELECT hash FROM history_bodies WHERE id IN ({marks})", part)}
    rows = []
    for part, marks in in_parts(sorted(set(paths))):
        rows += conn.execute(f"SELECT id, path, copy_path, file_hash, db_hash FROM sync_conflicts WHERE path IN ({marks}) "
                             "AND copy_path IS NOT NULL", part).fetchall()
    rows.sort(key=lambda r: (r[1], -r[0]))  # (in Python: Postgres' collation orders text otherwise)
    live: list[str] = []
    gone: list[tuple[str, str]] = []
    for _id, p, cp, fh, dh in rows:
        if (fh is not None or dh is not None) and fh not in hx and dh not in hx and not _copy_in_stretch(conn, p, cp, fh, dh, mine):
            continue  # a conflict of another page once at that path: neither side's text is a version of this one
        if conn.execute("SELECT 1 FROM pages WHERE path = ? UNION ALL SELECT 1 FROM files WHERE path = ?", (cp, cp)).fetchone():
            if cp not in live:
                live.append(cp)
            continue
        ck = key_for_path(conn, cp)
        if ck not in gone and conn.execute("SELECT 1 FROM history WHERE kind = ? AND name = ? LIMIT 1", ck).fetchone():
            gone.append(ck)
    return ConflictCopies(live, gone)


def _copy_in_stretch(conn, path: str, copy_path: str, fh, dh, mine: set[int]) -> bool:
    """Whether the conflict at ``path`` whose copy is ``copy_path`` (file and brain hashes ``fh``,
    ``dh``) was recorded while the page whose history row ids are ``mine`` was at ``path``: no
    version left but the copy's own holds either text (else that one tells), the copy's create is left, and
    the contested name's row just before it is one of ``mine`` with text, or the one just after
    it one of ``mine``, an update (:func:`conflict_copies`, after a prune took the page's texts)."""
    if not mine:
        return False
    ck = key_for_path(conn, copy_path)
    if conn.execute("SELECT 1 FROM history_bodies b JOIN history h ON h.body_id = b.id WHERE b.hash IN (?, ?) "
                    "AND NOT (h.kind = ? AND h.name = ?) LIMIT 1", (fh or "", dh or "", *ck)).fetchone():
        return False  # (a version holding one is left, the copy's own aside: another page's, or the hashes said it already)
    made = conn.execute("SELECT id FROM history WHERE kind = ? AND name = ? ORDER BY version LIMIT 1", ck).fetchone()
    if made is None or conn.execute("SELECT op FROM history WHERE id = ?", (made[0],)).fetchone()[0] != "create":
        return False
    kind, name = key_for_path(conn, path)
    before = conn.execute("SELECT id, body_id FROM history WHERE kind = ? AND name = ? AND id < ? ORDER BY id DESC LIMIT 1",
                          (kind, name, made[0])).fetchone()
    if before is not None and before[0] in mine and before[1] is not None:
        return True
    after = conn.execute("SELECT id, op FROM history WHERE kind = ? AND name = ? AND id > ? ORDER BY id LIMIT 1",
                         (kind, name, made[0])).fetchone()
    return after is not None and after[0] in mine and after[1] == "update"


def _base_row(conn, kind: str, r, known: dict | None = None):
    """The history row (with text) that version row ``r``'s ``+N -M`` counts against, and that
    ``diff`` without numbers compares the newest with: the same page's version before it, whatever
    name it was written under. An edit: the name's version before it; a move in (``move from
    OLD``): OLD's last text before the move away written with it (:meth:`_Walk.walk`'s pairing); a page
    brought back (a create labelled ``to vN``, :data:`_BROUGHT_BACK`, right after its deletion):
    its last text before the deletion; any other create is a new page's first version: None (before
    2026-12-06 a create at a name another page had left was counted against that page's text in
    the name's listing, ``+2 -2``, and against nothing under the page's later name, ``+3 -0``).
    None too for a row without text. ``known``: ``{(name, version): row}`` read already."""
    known = known or {}

    def at(name: str, v: int):
        if (name, v) in known:
            return known[name, v]
        return conn.execute("SELECT * FROM history WHERE kind = ? AND name = ? AND version = ?", (kind, name, v)).fetchone()

    def before(name: str, v: int):
        """The row of ``name`` just below version ``v`` (None: none)."""
        w = v - 1 if (name, v - 1) in known else conn.execute("SELECT MAX(version) FROM history WHERE kind = ? AND name = ? AND version < ?",
                                                              (kind, name, v)).fetchone()[0]
        return None if w is None else at(name, w)

    if r["body_id"] is None:
        return None
    detail = r["detail"] or ""
    if r["op"] == "move" and detail.startswith("from "):
        old = detail[5:]
        away = conn.execute("SELECT version FROM history WHERE kind = ? AND name = ? AND op = 'move' AND body_id IS NULL AND detail = ? "
                            "ORDER BY CASE WHEN id < ? THEN 0 ELSE 1 END, abs(id - ?), id DESC LIMIT 1", (kind, old, "to " + r["name"], r["id"], r["id"])).fetchone()
        prev = before(old, away[0]) if away is not None else None
        return prev if prev is not None and prev["body_id"] is not None else None
    prev = before(r["name"], r["version"])
    if r["op"] == "create":
        if prev is None or prev["op"] != "delete" or not _BROUGHT_BACK.fullmatch(detail):
            return None  # a new page's first version
        prev = before(r["name"], prev["version"])
    return prev if prev is not None and prev["body_id"] is not None else None


def versions(brain, name: str, limit: int = 20) -> dict:
    """The history of a page (or file), newest first: ``{kind, name, live, total, versions:
    [{version, at, op, size, surface, operation, client, origin, path, by, added, removed,
    content_hash}]}`` (``by``: who wrote it, :func:`gbrain.storage.origin.identity`; '' unknown;
    ``content_hash``: the sha256 of the version's bytes, None for a deletion or a move away).
    ``added`` / ``removed`` count lines against the same page's version before (:func:`_base_row`;
    None for binary files). The history follows the page's moves (:func:`lineage`): versions written under an older
    name are listed among its own in the order they were written (a page renamed away and back
    has the other name's versions between its own), each with ``name`` (the slug or path they
    are numbered under; a swap's step through its temp name, ``NAME (swapping names)``, also
    ``swap``: ``a ↔ b``, the names the user swapped, ``a → b → c → a`` rotated: every name, :func:`swap_words`)."""
    kind, key = resolve_key(brain, name)
    c = brain.conn
    walked = spans, gaps = _walked(c, kind, key)
    rows = _lineage_rows(c, kind, key, limit=limit if limit and limit > 0 else 0, walked=walked)
    total = -len(_moves_away_between(key, spans))  # (not listed: :func:`_lineage_rows`)
    for nm, after, upto in _own_spans(key, spans):
        total += c.execute("SELECT COUNT(*) FROM history WHERE kind = ? AND name = ? AND version > ?" + ("" if upto is None else " AND version <= ?"),
                           (kind, nm, after) if upto is None else (kind, nm, after, upto)).fetchone()[0]
    out = []
    theirs = _theirs(key, gaps)
    memo: dict[int, bytes] = {}  # the few bodies read last: the next one's base, mostly (_body_whole)

    def get(bid):
        if bid is None:
            return None
        out = _body_whole(c, bid, memo)
        while len(memo) > 4:  # (a long listing of a big page holds a few texts, not every one)
            del memo[next(iter(memo))]
        return out

    # each version counted against its own page's version before it (:func:`_base_row`), whatever
    # name is asked and wherever the listing is cut: a row reads the same in every listing
    known = {(r["name"], r["version"]): r for r in rows}
    deltas = {}
    for r in reversed(rows):
        bid = r["body_id"]
        if bid is None:  # a deletion, a move away
            deltas[r["name"], r["version"]] = (0, 0)
            continue
        base = _base_row(c, kind, r, known)
        prev_bid = base["body_id"] if base is not None else None
        deltas[r["name"], r["version"]] = _line_delta(get(prev_bid), get(bid)) if (prev_bid != bid or prev_bid is None) and r["size"] <= 4 * 1024 * 1024 else (0, 0)
    # each version's sha256, as `get --version N --json` gives it: a version checked against a
    # file or a backup without reading every text (trial 47)
    hashes = {}
    bids = sorted({r["body_id"] for r in rows if r["body_id"] is not None})
    for part, marks in in_parts(bids):
        hashes.update((x[0], x[1]) for x in c.execute(f"SELECT id, hash FROM history_bodies WHERE id IN ({marks})", part))
    for r in rows:
        d = _version_dict(r)
        if kind == "page" and r["name"] != key and r["op"] == "move" and (sw := _swap_stretch(c, r["name"], r["version"])) is not None:
            d["swap"] = swap_words(sw)  # a swap's pass through its temp name
        if r["name"] != key or theirs(r):  # the key's own name: another page's, before this one moved in
            d["name"] = r["name"]
        dl = deltas.get((r["name"], r["version"]))
        d["added"], d["removed"] = dl if dl else (None, None)
        d["content_hash"] = hashes.get(r["body_id"])
        out.append(d)
    live = _live_hash(brain, kind, key) is not None
    return {"kind": kind, "name": key, "live": live, "total": total, "versions": out}


def _live_hash(brain, kind: str, key: str) -> str | None:
    if kind == "page":
        r = brain.conn.execute("SELECT content_hash FROM pages WHERE slug = ?", (key,)).fetchone()
    else:
        r = brain.conn.execute("SELECT content_hash FROM files WHERE path = ?", (key,)).fetchone()
    return r[0] if r else None


def _version_row(brain, kind: str, key: str, n: int | None):
    """The history row of version ``n`` (None: the newest with a body). Negative ``n`` counts
    back from the newest (-1: the one before it). Raises NotFound for a version that is not there
    or holds no text (a deletion, a move away)."""
    c = brain.conn
    if n is None or n < 0:  # counting back follows the page's moves (:func:`lineage`)
        # the version history lists before it, even when a move carried its text unchanged (then the
        # two are identical: `diff NEW` says so, as `history` shows the move as +0 -0)
        rows = _lineage_rows(c, kind, key, with_body=True, limit=1 + (-n if n else 0))
        k = -n if n else 0
        if len(rows) <= k:
            to = _moved_to(c, key) if kind == "page" else None  # an old name: its page and diff are under the new one
            if to:  # (never "fewer than 2 versions": a first version diffs against nothing, under the page's name now)
                had = f"its version with text is the first of {to}'s" if len(rows) == 1 else f"its {len(rows)} versions with text are {to}'s first"
                raise NotFound(f"{key} moved to {to} since ({had}): `gbrain diff {cmd_arg(to)}` compares its versions, those written as {key} too")
            raise NotFound(f"{key} has fewer than {k + 1} versions with text")
        return rows[k]
    r = c.execute("SELECT * FROM history WHERE kind = ? AND name = ? AND version = ?", (kind, key, n)).fetchone()
    if r is None:
        raise NotFound(_no_version(c, kind, key, n))
    if r["body_id"] is None:
        what = "the deletion" if r["op"] == "delete" else f"the move ({r['detail']})"
        # not there, as a version past the newest or a missing page is (1); BadInput (2) is for no version number at all (trial 65)
        raise NotFound(f"version {n} of {key} is {what}; it has no text (the version before it has)")
    return r


def _no_version(c, kind: str, key: str, n: int) -> str:
    """Why ``key`` has no version ``n``: numbers past the newest; versions written before the page
    moved, numbered under the name it moved from (:func:`lineage`: named, with the command that
    reaches them); or pruned or purged ones."""
    lo, hi = c.execute("SELECT MIN(version), MAX(version) FROM history WHERE kind = ? AND name = ?", (kind, key)).fetchone()
    spans: dict[str, list] = {}  # (another page's versions of a name: not this one's)
    for nm, after, upto in _own_spans(key, lineage_spans(c, kind, key, every=True))[1:]:  # a name it had twice: each stretch
        spans.setdefault(nm, []).insert(0, (after, upto))
    older = list(spans.items())
    if older:
        def span(nm: str) -> str:
            parts = [f"{upto}" if upto == after + 1 else f"{after + 1} to {upto}" for after, upto in spans[nm]]
            return ("version " if parts[0].isdigit() and len(parts) == 1 else "versions ") + ", ".join(parts)
        where = next((nm for nm, sps in older if any(upto is None or after < n <= upto for after, upto in sps)), None)
        if where is None:  # no name it had has that number either: never send the user to a second error (trial 47)
            if len(older) == 1:
                nor = f"nor has {older[0][0]}, the name it had before: {span(older[0][0])}"
            else:
                nor = "nor has any name it had before: " + "; ".join(f"{nm}: {span(nm)}" for nm, _ in older)
            return f"{key} has no version {n} (its own versions: 1 to {hi}; {nor}); `gbrain history {cmd_arg(key)}` lists them all"
        hint = "; ".join(f"{nm} has {span(nm)}" for nm, _ in older)
        # `revert OLD --to N` brings it back onto this page (revert follows a name moved away), unless
        # another page or file lives at that name now: a revert there would write that one (trial s59)
        # nor when another page moved onto that name and on since: the revert follows the name's last move away
        # (`_moved_away_to`), which is that page's (a → b, then c → a → d: `revert a` wrote onto d)
        table, col = ("pages", "slug") if kind == "page" else ("files", "path")
        on = None if c.execute(f"SELECT 1 FROM {table} WHERE {col} = ?", (where,)).fetchone() else _moved_on(c, where, kind)
        back = f", `gbrain revert {cmd_arg(where)} --to {n}` (brings it back onto {key})" if on is not None and on[0] == key else ""
        return (f"{key} has no version {n} (its own versions: 1 to {hi}): the versions before it moved are numbered under the name "
                f"it had then ({hint}): `gbrain get {cmd_arg(where)} --version {n}`, `gbrain diff {cmd_arg(where)} N M`{back}; "
                f"`gbrain history {cmd_arg(key)}` lists them all")
    # a version goes by history-prune or by purge; once a purge ran, say both (its log keeps no names,
    # only counts and hashes): "pruned" alone sent a user who purged looking for a prune nobody ran
    listed = f"`gbrain history {cmd_arg(key)}` lists them"
    if hi is not None and n > hi:  # (never written: no prune nor purge takes a name's newest version)
        return f"{key} has no version {n} (versions: {lo} to {hi}, the newest; {listed})"
    purged = c.execute("SELECT 1 FROM config WHERE key = 'purge_log'").fetchone()
    how = "pruned or purged (`gbrain config get purge_log` lists each purge)" if purged else "pruned"
    if lo is not None and n < lo:
        return f"{key} has no version {n} (versions: {lo} to {hi}; older ones were {how} and are gone: {listed})"
    return f"{key} has no version {n} (versions: {lo or 1} to {hi}; it was {how} and is gone: {listed})"


def version_bytes(brain, kind: str, name: str, n: int | None = None) -> bytes:
    """The exact bytes of version ``n`` (None: the newest with text) of page slug / file path
    ``name`` (``kind`` ``page`` or ``file``, as :func:`trash_list` entries give them). Raises
    NotFound / BadInput like :func:`get_version`."""
    return body(brain.conn, _version_row(brain, kind, name, n)["body_id"])


def get_version(brain, name: str, n: int) -> dict:
    """Version ``n`` of a page or file: ``{kind, name, version, at, origin, …, content,
    content_hash, current_hash}`` with the exact text (``content``; a file that is not UTF-8 text
    raises BadInput), its hash and the hash of the current text (None when deleted): a write
    guarded with ``if_hash`` must give ``current_hash``."""
    kind, key = resolve_key(brain, name)
    r = _version_row(brain, kind, key, n)
    data = body(brain.conn, r["body_id"])
    hx = brain.conn.execute("SELECT hash FROM history_bodies WHERE id = ?", (r["body_id"],)).fetchone()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise BadInput(f"version {r['version']} of {key} is binary ({len(data):,} bytes), not text: the CLI writes its bytes to a file "
                       f"(`gbrain get {cmd_arg(key)} --version {r['version']} --output FILE`); MCP gives text only") from e
    return {"kind": kind, "slug" if kind == "page" else "path": key, **_version_dict(r), "content": text,
            "content_hash": hx[0] if hx else None, "current_hash": _live_hash(brain, kind, key)}


def diff(brain, name: str, a: int | None = None, b: int | None = None, context: int = 3, from_name: str | None = None) -> dict:
    """Unified diff of two versions: none given, the version the newest's ``+N -M`` counts against
    (:func:`_base_row`: the same page's version before it) against the newest (a page's first
    version: against nothing, ``from`` None, header ``--- /dev/null``, every line added, as `git
    show` of a root commit; an old name's first version, moved away since: NotFound naming the new
    name); one, that version against the newest; two, ``a`` against ``b``. ``from_name``: an
    older name of the page (:func:`lineage`) whose version ``a`` is the first side (a version
    written before a rename against one after it; ``a`` None: that name's last version with
    text, as it moved away). Returns ``{name, from, to, diff, added,
    removed}`` (+ ``from_name`` when the first side is an older name's). Raises NotFound for a
    version that is not there or holds no text."""
    kind, key = resolve_key(brain, name)
    if from_name is not None:
        line = {nm: (after, upto) for nm, after, upto in lineage_spans(brain.conn, kind, key)}  # each name's latest stretch
        names = list(line)
        stretches = [(nm, lo, hi) for nm, lo, hi in lineage_spans(brain.conn, kind, key, every=True) if hi is not None]
        want = from_name.strip().strip("/")
        want = want[:-3] if kind == "page" and want.endswith(".md") else want
        if want not in names:
            raise BadInput(f"{from_name} is no name {key} had (its names: {', '.join(names)}; `gbrain history {cmd_arg(key)}` lists their versions)")
        after, upto = line[want]
        if a is None:  # the old name's last version: the text it had when it moved away (trial 49)
            a = brain.conn.execute("SELECT MAX(version) FROM history WHERE kind = ? AND name = ? AND version > ? AND body_id IS NOT NULL"
                                   + (" AND version <= ?" if upto is not None else ""),
                                   (kind, want, after) + ((upto,) if upto is not None else ())).fetchone()[0]
            if a is None:
                raise NotFound(f"{want} has no version with text of {key} (`gbrain history {cmd_arg(key)}` lists its versions)")
        # an earlier stretch of a name the page had more than once is the page's too (a→b→a→b: a's first versions)
        mine = upto is None or after < a <= upto or any(nm == want and lo < a <= hi for nm, lo, hi in stretches)
        if not mine:  # another page's version of that name (before or after this page had it)
            span = f"version {upto}" if upto == after + 1 else f"versions {after + 1} to {upto}"
            raise NotFound(f"{want} has no version {a} of {key}: it wrote {span} before it moved away (the others are "
                           f"another page's, written at that name before or since: `gbrain history {cmd_arg(want)}`)")
        ra = _version_row(brain, kind, want, a)
    elif a is not None:
        ra = _version_row(brain, kind, key, a)
    rb = _version_row(brain, kind, key, b)
    if a is None and b is None and from_name is None:  # the newest against the version its `+N -M` counts against
        ra = _base_row(brain.conn, kind, rb)
        moved = _moved_to(brain.conn, key) if ra is None and kind == "page" else None
        if moved is not None and rb["name"] == key and not brain.conn.execute("SELECT 1 FROM pages WHERE slug = ?", (key,)).fetchone():
            _version_row(brain, kind, key, -1)  # an old name's first version: its page and diff are under the new name (NotFound)
    elif a is None:
        ra = _version_row(brain, kind, key, -1)
    # a page's first version (ra None): against nothing, every line added, as `git show` of a root
    # commit (the `+N -0` its history line counts; before 2026-12-06 exit 1, "fewer than 2 versions")
    da, db_ = body(brain.conn, ra["body_id"]) if ra is not None else b"", body(brain.conn, rb["body_id"])
    fv = ra["version"] if ra is not None else None
    try:
        ta, tb = da.decode("utf-8"), db_.decode("utf-8")
    except UnicodeDecodeError:
        return {"name": key, "from": fv, "to": rb["version"], "diff": "" if da == db_ else f"Binary versions {fv} and {rb['version']} differ\n" if ra is not None
                else f"Binary version {rb['version']} of {key} is its first: added against nothing\n", "added": None, "removed": None}
    # each header names its version's time and origin where diff(1) puts a file's time: what wrote it
    # (`put`, `put timeline_append`, `tag`, `file changed`…), by whom
    lines = list(difflib.unified_diff(ta.splitlines(keepends=True), tb.splitlines(keepends=True),
                                      f"{ra['name']}@v{ra['version']}" if ra is not None else "/dev/null",
                                      f"{rb['name']}@v{rb['version']}", _diff_label(ra) if ra is not None else "", _diff_label(rb), n=context))
    text = "".join(ln if ln.endswith("\n") else ln + "\n\\ No newline at end of file\n" for ln in lines)
    # (the two file headers are the first two lines: a changed line may begin with '---'/'+++' itself, a removed rule '---' is '----')
    add = sum(1 for ln in lines[2:] if ln.startswith("+"))
    rem = sum(1 for ln in lines[2:] if ln.startswith("-"))
    out = {"name": key, "from": fv, "to": rb["version"], "diff": text, "added": add, "removed": rem}
    if ra is not None and ra["name"] != key:  # the version before the newest was written under a name the page moved from
        out["from_name"] = ra["name"]
    return out


def _diff_label(r) -> str:
    """What :func:`diff`'s header says of version row ``r`` after its name: its time, origin
    (``mcp(claude-code) put timeline_append``) and writer (``by ana``, when known)."""
    by = _by(r)
    return " ".join(x for x in (r["at"], _origin_of(r), f"by {by}" if by else "") if x)


def by_filter(by: str) -> tuple[str, list]:
    """SQL condition (and its arguments) on ``history.writer`` for ``changes --by NAME``: exact,
    case as written, on the whole writer (``alice@laptop``), its login part (``alice`` matches
    ``alice@laptop`` and ``alice@desktop``) or its host part (``@laptop``). A writer set by
    ``GBRAIN_USER`` without ``@`` matches by its whole name. Plain SQL (``substr``/``length``):
    the same on SQLite and Postgres. Raises BadInput for a blank name."""
    name = " ".join((by or "").split())
    if not name:
        raise BadInput("by: give a writer (alice, alice@laptop or @laptop)")
    if name.startswith("@"):
        return "(length(writer) >= length(?) AND substr(writer, length(writer) - length(?) + 1) = ?)", [name, name, name]
    if "@" in name:
        return "writer = ?", [name]
    return "(writer = ? OR substr(writer, 1, length(?)) = ?)", [name, name + "@", name + "@"]


def _swap_stretch(c, name: str, version: int) -> tuple[str, ...] | None:
    """The swap's cycle (:func:`_swap_cycle`: ``(A, B, …)``, two names swapped, more rotated) when
    version ``version`` of page ``name`` is a step of a swap's pass through its temp name (a move in
    from ``A``, the next version a move away to ``B``); else None."""
    orig = swap_temp_of(name)  # the name a swap passed its first page through (the user never made it)
    if orig is None:
        return None
    rows = c.execute("SELECT id, version, op, detail FROM history WHERE kind = 'page' AND name = ? AND version >= ? AND version <= ? ORDER BY version",
                     (name, version - 1, version + 1)).fetchall()
    for a, b in zip(rows, rows[1:]):
        if (a["version"] <= version <= b["version"] == a["version"] + 1 and a["op"] == b["op"] == "move"
                and (a["detail"] or "") == "from " + orig and (b["detail"] or "").startswith("to ")):
            return _swap_cycle(c, orig, b["detail"][3:], a["id"], b["id"])
    return None


def _swap_cycle(c, x: str, y: str, lo: int, hi: int) -> tuple[str, ...]:
    """The names of a swap whose first page passed through its temp name from ``x`` to ``y`` (its
    move in there row ``lo``, its move away ``hi``), in the cycle's order: the page at each name
    went to the next, the last's to ``x`` (:meth:`gbrain.sync.engine.SyncEngine._swap` moves the
    others between the two rows): ``(x, y)`` two names swapped, ``(x, y, z, …)`` a rotation
    (before 2026-12-06 a rotation was said by its first two names only, ``x → y → …``)."""
    aways = {r[0]: r[1][3:] for r in c.execute(
        "SELECT name, detail FROM history WHERE kind = 'page' AND op = 'move' AND body_id IS NULL AND id > ? AND id < ?", (lo, hi))
        if (r[1] or "").startswith("to ")}
    cycle = [x, y]
    while len(cycle) <= MAX_MOVES and aways.get(cycle[-1]) not in (None, x) and aways[cycle[-1]] not in cycle:
        cycle.append(aways[cycle[-1]])
    return tuple(cycle)


def swap_words(cycle: tuple[str, ...]) -> str:
    """A swap's cycle (:func:`_swap_cycle`) as the user sees it: ``a ↔ b``, a rotation
    ``a → b → c → a``."""
    return f"{cycle[0]} ↔ {cycle[1]}" if len(cycle) == 2 else " → ".join((*cycle, cycle[0]))


def _swap_around(c, r) -> tuple[str, ...] | None:
    """The cycle of the swap (:func:`_swap_cycle`) page history row ``r`` (a move) is a step of: its
    pass through the temp name, or a move of another page of the swap while the first was at the
    temp name (a rotation's middle names); else None."""
    hit = _swap_stretch(c, r["name"], r["version"])
    if hit is not None or r["op"] != "move":
        return hit
    d = r["detail"] or ""
    pre = "to " if d.startswith("to ") else "from " if d.startswith("from ") else None
    if pre is not None and swap_temp_of(d[len(pre):]) is not None:
        t = c.execute(f"SELECT version FROM history WHERE kind = 'page' AND name = ? AND id {'>' if pre == 'to ' else '<'} ? "
                      f"ORDER BY id {'ASC' if pre == 'to ' else 'DESC'} LIMIT 1", (d[len(pre):], r["id"])).fetchone()
        return _swap_stretch(c, d[len(pre):], t[0]) if t else None
    # a middle step: between a temp name's move in and its move away, which a swap writes within
    # 2 rows per name of the cycle (one transaction)
    near = c.execute("SELECT id, name, version, detail, body_id FROM history WHERE kind = 'page' AND op = 'move' AND id > ? AND id < ? ORDER BY id",
                     (r["id"] - 2 * MAX_MOVES - 4, r["id"] + 2 * MAX_MOVES + 4)).fetchall()
    for t in near:
        if t["id"] < r["id"] and t["body_id"] is not None and swap_temp_of(t["name"]) is not None:
            cycle = _swap_stretch(c, t["name"], t["version"])
            out = next((u for u in near if u["name"] == t["name"] and u["id"] > t["id"]), None)
            if cycle is not None and out is not None and out["id"] > r["id"] and r["name"] in cycle:
                return cycle
    return None


def swap_detail(c, r) -> tuple[str, tuple[str, ...] | None]:
    """History row ``r``'s detail as the user made it: a move to or from a swap's temp name
    (:func:`_swap_stretch`) names the page's real other name, ``to B (names swapped)`` /
    ``from A (names swapped)`` (a rotation, three or more names: ``(names rotated: a → b → c → a)``,
    every name, :func:`swap_words`), and gives the swap's cycle (:func:`_swap_cycle`); any other row:
    its detail and None."""
    d = r["detail"] or ""
    if r["op"] == "move" and r["kind"] == "page":
        for pre, cmp, order in (("to ", ">", "ASC"), ("from ", "<", "DESC")):
            if d.startswith(pre) and swap_temp_of(d[len(pre):]) is not None:
                t = c.execute(f"SELECT version FROM history WHERE kind = 'page' AND name = ? AND id {cmp} ? ORDER BY id {order} LIMIT 1",
                              (d[len(pre):], r["id"])).fetchone()
                s = _swap_stretch(c, d[len(pre):], t[0]) if t else None
                if s is not None:
                    said = "names swapped" if len(s) == 2 else f"names rotated: {swap_words(s)}"
                    return f"{pre}{s[1] if pre == 'to ' else s[0]} ({said})", s
    return d, None


def changes(brain, since: str | None = None, origin: str | None = None, limit: int = 100, kind: str | None = None, by: str | None = None,
            until: str | None = None, exclude_origin: str | None = None) -> list[dict]:
    """Writes across the brain, newest first: ``[{kind, name, type, version, at, op, size, surface,
    operation, client, origin, path, by}]`` (``type``: the type of the page that has ``name``
    now, as the briefing groups changes by it; None for a file or a name no page has now, a
    deleted or renamed page). ``since`` / ``until`` are ISO times (``until``
    excluded); ``origin`` matches the surface (cli, mcp, …), the MCP client name or the
    operation, ``exclude_origin`` leaves such rows out (``import``: the day's edits without an
    import's thousands of rows); ``by`` the writer (:func:`by_filter`)."""
    cond, args = _writer_filter(origin, by)
    # the type of the page named so now, for the rows listed only (after the LIMIT)
    q = (f"SELECT history.*, (SELECT p.type FROM pages p WHERE history.kind = 'page' AND p.slug = history.name) AS page_type "
         f"FROM history WHERE {cond}")
    if exclude_origin:
        cond, more = _origin_sql(exclude_origin, null_safe=True)
        q += f" AND NOT {cond}"
        args += more
    if since:
        q += " AND at >= ?"
        args.append(since)
    if until:
        q += " AND at < ?"
        args.append(until)
    if kind:
        q += " AND kind = ?"
        args.append(kind)
    q += " ORDER BY id DESC"
    out: list[dict] = []
    c = brain.conn
    # a swap's steps at its temp name are left out (a limit counts the rows listed: read on past them)
    step, offset = (max(limit, 50), 0) if limit and limit > 0 else (0, 0)
    while True:
        rows = c.execute(q + (" LIMIT ? OFFSET ?" if step else ""), args + ([step, offset] if step else [])).fetchall()
        for r in rows:
            if r["kind"] == "page" and r["op"] == "move" and _swap_stretch(c, r["name"], r["version"]) is not None:
                continue
            d = _version_dict(r, name_field=True)
            if r["op"] == "move" and r["detail"]:
                d["detail"] = swap_detail(c, r)[0]
            out.append({"kind": d.pop("kind"), "name": d.pop("name"), "type": r["page_type"], **d})
            if step and len(out) == limit:
                return out
        if not step or len(rows) < step:
            return out
        offset += step


def collapse_warning(brain, path: str, new_size: int) -> dict | None:
    """When bytes of ``new_size`` are about to replace the page or file at ``path``: a warning dict
    ``{path, name, old_size, new_size, version, revert, message}`` if the new version is empty or
    lost over half of a page of at least :data:`COLLAPSE_MIN_BYTES`, else None. ``version`` is the
    history version holding the text being replaced."""
    c = brain.conn
    r = c.execute("SELECT 'page' AS kind, slug AS name, size FROM pages WHERE path = ? UNION ALL SELECT 'file', path, size FROM files WHERE path = ?", (path, path)).fetchone()
    if r is None or r["size"] <= 0 or new_size >= r["size"]:
        return None
    old = r["size"]
    if not (new_size == 0 or (old >= COLLAPSE_MIN_BYTES and new_size * 2 < old)):
        return None
    v = c.execute("SELECT MAX(version) FROM history WHERE kind = ? AND name = ? AND body_id IS NOT NULL", (r["kind"], r["name"])).fetchone()[0]
    revert = f"gbrain revert {cmd_arg(r['name'])} --to {v}" if v else ""
    what = "is now empty" if new_size == 0 else f"shrank from {old:,} to {new_size:,} bytes"
    msg = f"{path}: the file {what}" + (f" (was {old:,} bytes)" if new_size == 0 else "") + "; the brain took it as it is"
    if v:
        msg += f"; the previous text is version {v} of its history: `{revert}` brings it back"
    return {"path": path, "name": r["name"], "kind": r["kind"], "old_size": old, "new_size": new_size, "version": v, "revert": revert, "message": msg}


# ---------------------------------------------------------------------------
# the trash: a view of the history
# ---------------------------------------------------------------------------

TRASH_SQL = """
ALTER TABLE history ADD COLUMN trashed TEXT NOT NULL DEFAULT '';
CREATE INDEX idx_history_trash ON history(id) WHERE op = 'delete' OR trashed != '';
"""
"""Migration v7's schema: ``history.trashed`` says why a version went to the trash although the
page lives on (``replaced by import``: a writer replaced bytes that exist nowhere else but here);
the partial index serves :func:`trash_list`."""


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()) + f".{int(time.time() * 1000) % 1000:03d}Z"


def _store(conn: sqlite3.Connection, data: bytes) -> int:
    """The id of the stored body with ``data``'s bytes (stored, on its own, when missing)."""
    hx = hashlib_sha(data)
    r = conn.execute("SELECT id FROM history_bodies WHERE hash = ?", (hx,)).fetchone()
    if r:
        return r[0]
    from ..storage import blobs

    if blobs.is_big(len(data)):  # kept in pieces, like the file it was
        blobs.store_bytes(conn, data)
        return conn.execute("INSERT INTO history_bodies(hash, size, base_id, depth, data) VALUES (?, ?, NULL, ?, X'63') RETURNING id", (hx, len(data), MAX_DEPTH)).fetchone()[0]
    return conn.execute("INSERT INTO history_bodies(hash, size, base_id, depth, data) VALUES (?, ?, NULL, 0, ?) RETURNING id", (hx, len(data), pack(data))).fetchone()[0]


def _key_live_hash(conn: sqlite3.Connection, kind: str, name: str) -> str | None:
    q = "SELECT content_hash FROM pages WHERE slug = ?" if kind == "page" else "SELECT content_hash FROM files WHERE path = ?"
    r = conn.execute(q, (name,)).fetchone()
    return r[0] if r else None


def keep_version(conn: sqlite3.Connection, kind: str, name: str, path: str, data: bytes, reason: str, *,
                 at: str | None = None, surface: str | None = None, operation: str | None = None, hx: str | None = None) -> int | None:
    """Make sure bytes that a writer is about to lose (a file sync removes, an older version on
    disk it overwrites, a row of the old ``sync_trash``) are a version in the history of
    ``(kind, name)`` and listed in the trash with ``reason``. Returns the version holding them
    (None when they are the current text: nothing is lost).

    Bytes the history already has for that key: the newest version with them is marked
    ``trashed``. Bytes it lacks (written before history began, or pruned): appended as a new
    version, followed by the current text again (a live page keeps its current text as its
    newest version) or by a deletion (a deleted page stays deleted). Nothing is renumbered.
    Runs in the caller's transaction; ``at``/``surface``/``operation`` default to now and the
    current origin (:mod:`gbrain.storage.origin`)."""
    from ..storage.origin import current, fields

    o = current()
    surface = surface if surface is not None else o.surface
    operation = operation if operation is not None else (o.operation or reason)
    at = at or _now()
    hx = hx or hashlib_sha(data)  # (``hx`` given: a big file's bytes the history holds, ``data`` unused)
    live = _key_live_hash(conn, kind, name)
    if live == hx:
        return None
    r = conn.execute("SELECT h.id, h.version FROM history h JOIN history_bodies b ON b.id = h.body_id WHERE h.kind = ? AND h.name = ? AND b.hash = ? "
                     "ORDER BY h.version DESC LIMIT 1", (kind, name, hx)).fetchone()
    if r:
        conn.execute("UPDATE history SET trashed = ? WHERE id = ? AND trashed = ''", (reason, r[0]))
        return r[1]
    bid = _store(conn, data)
    last = conn.execute("SELECT MAX(version) FROM history WHERE kind = ? AND name = ?", (kind, name)).fetchone()[0] or 0
    # the writer (v16) as the triggers record it; a migration's rows (surface ``migrate``) guess no one
    w = ", writer" if has_writer(conn) else ""
    who = ("" if surface == "migrate" else fields()[3],) if w else ()
    ins = (f"INSERT INTO history(kind, name, version, path, op, body_id, size, at, surface, operation, client, detail, trashed{w}) "
           f"VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '', ?, ?{', ?' if w else ''})")
    conn.execute(ins, (kind, name, last + 1, path, "update" if last else "create", bid, len(data), at, surface, operation, "kept from the trash", reason) + who)
    if live is not None:
        cur = conn.execute("SELECT id, size FROM history_bodies WHERE hash = ?", (live,)).fetchone()
        if cur is None:  # the current text predates history (cannot happen after v4's baseline): store it
            q = f"SELECT {_render('pages')} FROM pages WHERE slug = ?" if kind == "page" else "SELECT data FROM files WHERE path = ?"
            if kind == "page":
                cur_data = conn.execute(q, (name,)).fetchone()[0].encode("utf-8")
            else:
                from ..storage.blobs import file_bytes

                cur_data = file_bytes(conn, name) or b""
            cur = (_store(conn, cur_data), len(cur_data))
        cpath = conn.execute("SELECT path FROM pages WHERE slug = ?" if kind == "page" else "SELECT path FROM files WHERE path = ?", (name,)).fetchone()[0]
        conn.execute(ins, (kind, name, last + 2, cpath, "update", cur[0], cur[1], at, surface, operation, "the current text again", "") + who)
    else:
        conn.execute(ins, (kind, name, last + 2, path, "delete", None, 0, at, surface, operation, "", "") + who)
    return last + 1


def mark_replaced(brain, path: str, reason: str) -> int | None:
    """Before a writer replaces the brain's bytes at ``path`` with bytes the brain never had (an
    import over a page edited elsewhere): mark the version holding the current bytes as
    ``trashed`` so the trash lists it. Returns its version number (None: nothing stored there)."""
    c = brain.conn
    r = c.execute("SELECT 'page', slug FROM pages WHERE path = ? UNION ALL SELECT 'file', path FROM files WHERE path = ?", (path, path)).fetchone()
    if r is None:
        return None
    v = c.execute("SELECT id, version FROM history WHERE kind = ? AND name = ? AND body_id IS NOT NULL ORDER BY version DESC LIMIT 1", (r[0], r[1])).fetchone()
    if v is None:
        return None
    c.execute("UPDATE history SET trashed = ? WHERE id = ? AND trashed = ''", (reason, v[0]))
    return v[1]


def key_for_path(conn: sqlite3.Connection, path: str) -> tuple[str, str]:
    """``(kind, name)`` of the history that last wrote ``path``: the page whose file it was, or
    the file itself; without such a history, a page by :func:`slug_for_path` for markdown (not a
    hidden note, ``.hermes/x.md``: a file, ``slugs.HIDDEN_WHY``)."""
    r = conn.execute("SELECT kind, name FROM history WHERE path = ? ORDER BY id DESC LIMIT 1", (path,)).fetchone()
    if r:
        return r[0], r[1]
    return ("page", slug_for_path(path)) if is_markdown(path) and not is_hidden_path(path) else ("file", path)


def version_writer(conn: sqlite3.Connection, kind: str, name: str, hx: str | None) -> str:
    """Who wrote the bytes with sha256 ``hx`` as a version of the history ``(kind, name)``
    (:func:`key_for_path`): the writer (migration v16) of its newest version with those bytes;
    '' when unknown (no such version, a row written before v16 or by a migration, no ``hx``)."""
    if not hx or not has_writer(conn):
        return ""
    r = conn.execute("SELECT h.writer FROM history h JOIN history_bodies b ON b.id = h.body_id "
                     "WHERE h.kind = ? AND h.name = ? AND b.hash = ? ORDER BY h.version DESC LIMIT 1", (kind, name, hx)).fetchone()
    return (r[0] or "") if r else ""


def version_origin(conn: sqlite3.Connection, kind: str, name: str, hx: str | None) -> str:
    """How the bytes with sha256 ``hx`` were written as a version of the history ``(kind, name)``:
    the origin (``mcp(claude-code) put``, ``watch file changed``, as `history` shows it) of its
    newest version with those bytes; '' when unknown (no such version, no ``hx``)."""
    if not hx:
        return ""
    r = conn.execute("SELECT h.surface, h.client, h.operation FROM history h JOIN history_bodies b ON b.id = h.body_id "
                     "WHERE h.kind = ? AND h.name = ? AND b.hash = ? ORDER BY h.version DESC LIMIT 1", (kind, name, hx)).fetchone()
    return _origin_of({"surface": r[0], "client": r[1], "operation": r[2]}) if r else ""


def record_move(conn: sqlite3.Connection, src: str, dst: str) -> None:
    """A writer moved ``src`` to ``dst`` by deleting one and creating the other (a file, or a page
    that becomes a file): record the pair as a move in the history (``move`` rows with ``to`` /
    ``from`` details), so the old name is not listed in the trash as deleted."""
    for path, detail, op in ((src, "to " + dst, "delete"), (dst, "from " + src, "create")):
        r = conn.execute("SELECT id FROM history WHERE path = ? ORDER BY id DESC LIMIT 1", (path,)).fetchone()
        if r:
            conn.execute("UPDATE history SET op = 'move', detail = ? WHERE id = ? AND op = ?", (detail, r[0], op))


def record_page_move(conn: sqlite3.Connection, old: str, new: str) -> None:
    """A page deleted as ``old`` came back as ``new`` (a new row: sync pairs a note created after
    its deletion was carried out, ``SyncEngine._revive``): the deletion, still ``old``'s newest
    row, becomes its move away (``to NEW``) and ``new``'s first row of this life, its creation, the
    move in (``from OLD``), the rows a rename writes (:func:`lineage` reads through them), so the
    page leaves the trash with its history continued. Slugs, not paths (:func:`record_move` is
    for files)."""
    for name, op, detail in ((old, "delete", "to " + new), (new, "create", "from " + old)):
        r = conn.execute("SELECT id, op FROM history WHERE kind = 'page' AND name = ? ORDER BY version DESC LIMIT 1", (name,)).fetchone()
        if r and r[1] == op:
            conn.execute("UPDATE history SET op = 'move', detail = ? WHERE id = ?", (detail, r[0]))


def moved_away(conn: sqlite3.Connection, kind: str, name: str, hx: str) -> str | None:
    """Where ``(kind, name)`` moved to (a slug or path) when its newest history row is a move
    away (a rename, by a sync or watch of any folder) and its history holds bytes with hash
    ``hx``: a file another folder still holds at the old name loses nothing when it goes, so
    it is no deletion and no trash entry. None otherwise."""
    r = conn.execute("SELECT op, detail, body_id FROM history WHERE kind = ? AND name = ? ORDER BY version DESC LIMIT 1", (kind, name)).fetchone()
    if r is None or r["op"] != "move" or r["body_id"] is not None or not (r["detail"] or "").startswith("to "):
        return None
    had = conn.execute("SELECT 1 FROM history h JOIN history_bodies b ON b.id = h.body_id WHERE h.kind = ? AND h.name = ? AND b.hash = ? LIMIT 1",
                       (kind, name, hx)).fetchone()
    return r["detail"][3:] if had else None


def _deleted_reason(r) -> str:
    if r["surface"] == "migrate":
        return r["operation"] or "deleted"
    what = r["operation"] or "deleted"
    detail = r["detail"] or ""
    if detail.startswith("moved to "):  # a move away whose page's versions there all went (`_ended_aways`): its deletion
        what = f"{detail}, then deleted there"
    elif r["operation"] in ("move", "file moved"):  # (such a deletion labelled before 2026-12-06: where to not kept)
        what = "moved away, then deleted"
    return f"{what} ({r['surface']}{'/' + r['client'] if r['client'] else ''})"


#: SQL over a history row aliased ``d``: ``d`` is a deletion still in force, the newest row of its
#: ``(kind, name)`` (CLAUDE.md invariant 8: what puts a deleted page or file in the trash; read
#: by :func:`trash_sql`, :func:`in_trash`, :func:`_find_deleted` and :func:`_not_in_trash`). A page
#: deletion at a hidden name (``.github/x.md``, ``slugs.HIDDEN_WHY``) is not in force once a file
#: version was written at its path after it: that name's page and file are one name, and the file
#: holds it now (an older gbrain's page made its file by import or sync, or brought back as its
#: file by ``restore``): the trash offered a page ``restore`` refused. (The ``LIKE``\ s are
#: ``slugs.is_hidden_path`` of a page's path; only a hidden page's deletion reads the file's rows.)
#: Nor is a page's deletion labelled :data:`BECAME_FILE` (its note moved into a hidden folder:
#: sync's ``SyncEngine._moved_hidden``), nor a hidden note's labelled :data:`BECAME_PAGE` (moved
#: out of one): its bytes live on as that file (page).
DELETED_NOW = ("d.op = 'delete' AND d.version = (SELECT MAX(version) FROM history m WHERE m.kind = d.kind AND m.name = d.name)"
               " AND d.detail NOT LIKE 'became the % %'"
               " AND NOT (d.kind = 'page' AND (d.path LIKE '.%' OR d.path LIKE '%/.%')"
               " AND EXISTS (SELECT 1 FROM history f WHERE f.kind = 'file' AND f.name = d.path AND f.id > d.id))")

#: the ``detail`` of a page's deletion whose note moved into a hidden folder (``plans/x.md`` →
#: ``.plans/x.md``, ``slugs.HIDDEN_WHY``), followed by the file's path: no deleted page, the
#: trash leaves it out (:data:`DELETED_NOW`), ``restore`` names the file, ``history`` says it
BECAME_FILE = "became the file "
#: the ``detail`` of a hidden note's (a file's) deletion whose note moved out of the hidden folder,
#: a page again, followed by its slug (as :data:`BECAME_FILE`)
BECAME_PAGE = "became the page "


def in_trash(conn, kind: str, name: str) -> bool:
    """Whether ``(kind, name)`` (``page`` and a slug, or ``file`` and a path) holds a deleted page
    or file: its newest history row is the deletion (:data:`DELETED_NOW`, the trash's rule). A
    name nothing was ever written at, or one whose newest row is a move away, holds none. Reads
    only. (Sync's swap must not pass a page through such a name: its move rows there would be
    newer and hide the deleted one from ``trash``/``restore``, ``SyncEngine._swap``.)"""
    return conn.execute(f"SELECT 1 FROM history d WHERE d.kind = ? AND d.name = ? AND {DELETED_NOW} LIMIT 1", (kind, name)).fetchone() is not None


def trash_list(brain, limit: int = 100, after: list | None = None) -> list[dict]:
    """The trash, newest first, read from the history: ``[{id, slug, path, kind, size, reason,
    deleted_at, version, deleted, by}]`` (``by``: who deleted or replaced it; '' unknown). An entry is either a deleted page or file (its newest history row
    is the deletion; ``version`` is its last text, what ``restore`` brings back) or a version a
    writer replaced while it existed nowhere else (``trashed``: import over a page edited in
    the brain, an older version on disk overwritten; ``revert --to version`` brings it back).
    ``kind`` is ``page`` or ``file``; ``limit`` 0 lists all. ``after``: only the entries after
    that position, ``[id, version]`` of the last entry a page showed: a
    keyset page, which entries deleted or restored meanwhile move no other entry of. Raises
    BadInput for a position not of that shape."""
    c = brain.conn
    if after is not None and (len(after) != 2 or not all(type(x) is int for x in after)):
        raise BadInput("trash: a position is [id, version]")
    q = trash_sql(has_writer(c), limit, after is not None)
    out = []
    for r in c.execute(q, (after[0], after[0], after[0], after[1]) if after is not None else ()):
        out.append({
            "id": r["id"], "slug": r["name"] if r["kind"] == "page" else None, "path": r["text_path"] or r["path"], "kind": r["kind"],
            "size": r["size"], "reason": r["trashed"] or _deleted_reason(r), "deleted_at": r["deleted_at"], "version": r["version"],
            "deleted": not r["trashed"], "by": r["writer"] or "",
        })
    return out


def trash_sql(writer: bool = True, limit: int = 0, after: bool = False) -> str:
    """The query :func:`trash_list` runs: its first ``limit`` rows (0: all), newest first
    (``after``: those after the position of parameters ``id, id, id, version``). The
    deletions are read newest first (``idx_history_trash``, partial on deletions and trashed
    versions) only until ``limit`` of them are found: each costs three lookups, and trash 50 read
    all 980 of them after trial 20's year (10.6 ms CPU; 4.7 ms now, most of it the trashed
    versions, which are read whole: their order is that of the write that replaced them)."""
    dw, rw = ("d.writer", "COALESCE(n.writer, r.writer)") if writer else ("''", "''")
    lim = f" LIMIT {int(limit)}" if limit and limit > 0 else ""
    dlim = f" LIMIT {int(limit) + 1}" if lim and after else lim  # (the deletion at the position itself is read, then left out)
    return f"""
    SELECT * FROM (
      SELECT * FROM (SELECT d.id AS id, d.kind, d.name, d.path, d.at AS deleted_at, d.surface, d.operation, d.client, {dw} AS writer, '' AS trashed,
             t.version AS version, t.size AS size, t.path AS text_path, d.detail AS detail
      FROM history d
      JOIN history t ON t.id = (SELECT id FROM history x WHERE x.kind = d.kind AND x.name = d.name AND x.body_id IS NOT NULL ORDER BY x.version DESC LIMIT 1)
      WHERE {DELETED_NOW}{" AND d.id <= ?" if after else ""}
      ORDER BY d.id DESC{dlim}) dels
      UNION ALL
      SELECT COALESCE(n.id, r.id), r.kind, r.name, r.path, COALESCE(n.at, r.at), r.surface, r.operation, r.client, {rw}, r.trashed,
             r.version, r.size, r.path, ''
      FROM history r
      LEFT JOIN history n ON n.kind = r.kind AND n.name = r.name AND n.version = r.version + 1
      WHERE r.trashed != ''
        -- not the current text, nor a deleted page's last text (listed as the deletion)
        AND r.body_id IS NOT (SELECT body_id FROM history m WHERE m.kind = r.kind AND m.name = r.name ORDER BY version DESC LIMIT 1)
        -- nor bytes a later version holds again: a restore or revert brought them back (trial 47)
        AND NOT EXISTS (SELECT 1 FROM history m WHERE m.kind = r.kind AND m.name = r.name AND m.version > r.version AND m.body_id = r.body_id)
        AND (EXISTS (SELECT 1 FROM history m WHERE m.kind = r.kind AND m.name = r.name AND m.version > r.version AND m.body_id IS NOT NULL)
             OR (SELECT op FROM history m WHERE m.kind = r.kind AND m.name = r.name ORDER BY version DESC LIMIT 1) != 'delete')
    ) trash{" WHERE id < ? OR (id = ? AND version < ?)" if after else ""} ORDER BY id DESC, version DESC{lim}"""


def _find_deleted(c: sqlite3.Connection, name: str):
    """The deleted key ``name`` names (slug or path; exactly, then in any case (``slug_key``:
    every letter, not SQL's ``lower``, which folds ASCII alone on SQLite) or by a unique path end
    (a page's suffix, a file's name)), as its deletion row, or None."""
    from ..page.slugs import nfc, slug_key

    raw = nfc(name.strip())
    s = raw.strip("/")
    if s.endswith(".md"):
        s = s[:-3]
    def sql(cond: str, *args) -> list:
        return c.execute(f"SELECT d.* FROM history d WHERE {DELETED_NOW} AND ({cond}) ORDER BY d.id DESC", args).fetchall()

    def loose(kind: str, want: str) -> list:  # the deleted keys of that kind equal to ``want`` or ending in ``/want``, in any case
        key = slug_key(want)
        rows = sql("d.kind = ?", kind) if key else []
        return [r for r in rows if (k := slug_key(r["name"])) == key or k.endswith("/" + key)]

    for rows_of in (lambda: sql("d.kind = 'page' AND d.name = ?", s), lambda: sql("d.kind = 'file' AND d.name = ?", raw),
                    lambda: sql("d.path = ? OR d.path = ?", raw, s + ".md"), lambda: loose("page", s),
                    lambda: loose("file", raw.strip("/"))):  # a file by its name or a path end (`hermes-agent.pdf`, as `backlinks` takes it)
        rows = rows_of()
        if len({(r["kind"], r["name"]) for r in rows}) == 1:
            return rows[0]
        if len(rows) > 1:
            names = sorted({r["name"] for r in rows})
            what = "files" if all(r["kind"] == "file" for r in rows) else "pages"
            raise NotFound(f"'{name}' matches {len(names)} deleted {what}: " + ", ".join(names[:10]), names[:10])
    return None


#: seconds between a page's deletion and a sidecar's for :func:`sidecars_deleted_with` to take
#: them as one deletion (a sync round's trash, a folder deleted under watch: milliseconds apart
#: unless the round trashes thousands of files; a sidecar deleted on its own is another round)
WITH_PAGE_S = 60.0


def sidecars_deleted_with(c: sqlite3.Connection, d, page_path: str) -> list[str]:
    """The ``.raw`` sidecars of the deleted page whose deletion row is ``d`` (at ``page_path``, its
    last path) that were deleted with it, which :func:`restore` brings back with the page:
    sorted paths. A sidecar is one of the page's in any spelling (``ana.json``, ``ana.JSON``, the
    NFC or NFD name: :func:`gbrain.page.slugs.sidecar_ranges`, where
    :func:`~gbrain.page.slugs.page_slug_for_sidecar` gives the page's slug). It was deleted with
    the page when its newest history row is a deletion (its path free now) by the same origin
    (surface, operation, sync client, writer) as ``d``, with no history row of another origin
    between the two (by id: one write transaction, a sync or watch round, or two deletions with
    nothing else written between) and at most :data:`WITH_PAGE_S` apart. A sidecar deleted on
    its own before (another round, another command, or with another write between) was
    deleted on purpose: it stays in the trash (``restore PATH`` brings it back). The history
    keeps no transaction id (no schema change for this), hence the origin, order and time."""
    from ..page.slugs import page_slug_for_sidecar, sidecar_ranges

    slug, w = d["name"], has_writer(c)
    same = "surface = ? AND operation = ? AND client = ?" + (" AND writer = ?" if w else "")

    def origin_of(r) -> tuple:
        return (r["surface"], r["operation"], r["client"]) + ((r["writer"],) if w else ())

    names = sorted({n for lo, hi in sidecar_ranges(page_path)
                    for (n,) in c.execute("SELECT DISTINCT name FROM history WHERE kind = 'file' AND name >= ? AND name < ?", (lo, hi))
                    if page_slug_for_sidecar(n) == slug})
    out = []
    for n in names:
        r = c.execute("SELECT * FROM history WHERE kind = 'file' AND name = ? ORDER BY version DESC LIMIT 1", (n,)).fetchone()
        if r is None or r["op"] != "delete" or origin_of(r) != origin_of(d) or abs(_seconds_between(r["at"], d["at"])) > WITH_PAGE_S:
            continue
        lo, hi = sorted((r["id"], d["id"]))
        if c.execute(f"SELECT 1 FROM history WHERE id > ? AND id < ? AND NOT ({same}) LIMIT 1", (lo, hi, *origin_of(d))).fetchone():
            continue  # another write between the two deletions: two deletions, not one
        if c.execute("SELECT 1 FROM files WHERE path = ? UNION ALL SELECT 1 FROM pages WHERE path = ?", (n, n)).fetchone():
            continue
        out.append(n)
    return out


def _seconds_between(a: str, b: str) -> float:
    """Seconds from ISO UTC time ``b`` to ``a`` (history's ``at``); infinite when one is unreadable."""
    from datetime import datetime

    def parse(x: str) -> datetime:
        x = (x or "").rstrip("Z")
        return datetime.strptime(x, "%Y-%m-%dT%H:%M:%S.%f" if "." in x else "%Y-%m-%dT%H:%M:%S")

    try:
        return (parse(a) - parse(b)).total_seconds()
    except (ValueError, TypeError):
        return float("inf")


def _not_in_trash(c, name: str) -> str:
    """The message of a ``restore`` that finds nothing named ``name`` in the trash. When ``name``
    is a folder holding deleted pages or files (their newest version a deletion), it counts them
    and names the undo from the first of those deletions that brings the folder back (trial 65:
    `restore vault/comparisons/` after a script's `rm -rf` said only "nothing named")."""
    msg = f"nothing named '{name}' in the trash (`gbrain trash` lists it)"
    folder = name.strip("/")
    if not folder:
        return msg
    folder += "/"
    r = c.execute(f"SELECT COUNT(*) AS n, MIN(d.at) AS first FROM history d WHERE substr(d.name, 1, ?) = ? AND {DELETED_NOW}",
                  (len(folder), folder)).fetchone()
    if not r or not r["n"]:
        return msg
    return (f"{msg}; {r['n']} deleted page(s)/file(s) under {folder}: restore each by its name, or "
            f"`gbrain undo --since {r['first']} --prefix {cmd_arg(folder)}` lists what taking back every write under "
            f"{folder} since the first deletion would do (a dry run: nothing is written until it is applied)")


def restore(brain, name: str) -> dict:
    """Bring back a deleted page (or file) from its history: its last text becomes a new
    version at its path, with every ``.raw`` sidecar deleted with it (:func:`sidecars_deleted_with`:
    ``ana.JSON`` and an NFD twin too; not one deleted on its own before). Under sync/watch
    the files follow (the change log sees the writes). Returns ``{slug, path, restored: [paths: the page's, then each sidecar's],
    deleted_at, reason, version, content_hash}`` (the page's new hash; None for a file; ``as_file``: a page an
    older gbrain stored under a hidden name, back as its file, ``slugs.HIDDEN_WHY``). Raises NotFound (nothing deleted under that name),
    Conflict (the page lives; ``revert`` brings back an older version) or BadInput (its path
    is taken by another kind)."""
    from ..errors import Conflict

    c = brain.conn
    with brain.transaction():
        d = _find_deleted(c, name)
        if d is None:
            try:
                kind, key = resolve_key(brain, name)
            except NotFound:
                raise NotFound(_not_in_trash(c, name)) from None
            if _live_hash(brain, kind, key) is not None:
                raise Conflict(f"{key} is in the brain (not deleted); `gbrain history {cmd_arg(key)}` lists its versions and `gbrain revert {cmd_arg(key)} --to N` brings one back")
            last = c.execute("SELECT op, detail FROM history WHERE kind = ? AND name = ? ORDER BY version DESC LIMIT 1", (kind, key)).fetchone()
            if kind == "file" and last is not None and last["op"] == "delete" and last["detail"].startswith(BECAME_PAGE):
                to = last["detail"][len(BECAME_PAGE):]  # a hidden note moved out of its folder (DELETED_NOW): not deleted
                if c.execute("SELECT 1 FROM pages WHERE slug = ?", (to,)).fetchone():
                    raise Conflict(f"{key} is not deleted: it lives on as the page {to} (moved out of a hidden folder); "
                                   f"`gbrain history {cmd_arg(key)}` lists its versions as a file, `gbrain history {cmd_arg(to)}` the page's")
            if kind == "page":  # made its file (DELETED_NOW: an older gbrain's hidden page, a note moved into a hidden folder): not deleted
                last = c.execute("SELECT path, op, detail FROM history WHERE kind = 'page' AND name = ? ORDER BY version DESC LIMIT 1", (key,)).fetchone()
                to = (last["detail"][len(BECAME_FILE):] if last["op"] == "delete" and last["detail"].startswith(BECAME_FILE)
                      else last["path"] if is_hidden_path(last["path"]) else None) if last is not None else None
                if to is not None and c.execute("SELECT 1 FROM files WHERE path = ?", (to,)).fetchone():
                    raise Conflict(f"{key} is not deleted: it lives on as the file {to} (a hidden name, no page); "
                                   f"`gbrain history {cmd_arg(key)}` lists its versions as a page, `gbrain history {cmd_arg(to)}` the file's")
            # a page renamed since and deleted under its last name: restored there (as `revert OLD`
            # brings it back, :func:`_moved_away_to`); before 2026-12-06 "nothing named OLD in the trash"
            on = _moved_on(c, key, kind)
            if on is not None and on[1] == "taken":
                raise NotFound(f"{_not_in_trash(c, name)}; {key} was renamed to {on[0]}, deleted there, and another {kind} was written there since: "
                               f"`gbrain history {cmd_arg(on[0])}` lists both, `gbrain get {cmd_arg(key)} --version N` gives an old text")
            if on is not None and on[1] == "deleted":
                r = restore(brain, on[0])
                return {**r, "moved_from": key}
            # a version the trash lists under a name that was renamed since (a brain where another
            # folder's sync trashed the old name of a moved page): it goes back onto the page it is now
            t = c.execute("SELECT version, trashed FROM history WHERE kind = ? AND name = ? AND trashed != '' ORDER BY version DESC LIMIT 1", (kind, key)).fetchone()
            if t is None or (kind == "page" and _moved_to(c, key) is None):
                raise NotFound(_not_in_trash(c, name))
            r = _revert_key(brain, kind, key, t["version"])
            return {"slug": r.get("slug"), "path": r["path"], "restored": [r["path"]], "deleted_at": "", "reason": t["trashed"],
                    "version": t["version"], "moved_from": key, "content_hash": r.get("content_hash")}
        kind, key = d["kind"], d["name"]
        last = _version_row(brain, kind, key, None)
        path = last["path"]
        if c.execute("SELECT 1 FROM pages WHERE path = ? UNION ALL SELECT 1 FROM files WHERE path = ?", (path, path)).fetchone():
            raise Conflict(f"{path} exists in the brain again; rename or delete it first (`gbrain revert {cmd_arg(key)} --to {last['version']}` once it is free)")
        r = _revert_key(brain, kind, key, last["version"])  # (with the sidecars deleted with the page)
        restored = r.get("restored") or [r["path"]]
    return {"slug": key if kind == "page" else None, "path": r["path"], "restored": restored, "deleted_at": d["at"], "reason": _deleted_reason(d), "version": last["version"],
            "content_hash": r.get("content_hash"), **({"as_file": True} if r.get("as_file") else {})}  # the page's new one (None: a file), a put's if_hash as every page write answers


def trash_migration(conn: sqlite3.Connection) -> int:
    """Migration v7: add ``history.trashed`` and move every row of the old ``sync_trash`` table
    into the history (:func:`keep_version`, at the time it was trashed, origin ``migrate`` with
    the old reason as operation), then drop the table. Returns the rows moved."""
    if "trashed" not in {r[1] for r in conn.execute("PRAGMA table_info(history)")}:  # (set back: already there)
        for stmt in TRASH_SQL.strip().split(";"):
            if stmt.strip():
                conn.execute(stmt)
    if not conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sync_trash'").fetchone():
        return 0
    n = 0
    for r in conn.execute("SELECT id, path, slug, kind, data, reason, deleted_at FROM sync_trash ORDER BY id").fetchall():
        kind, name = ("page", r[2]) if r[3] == "page" and r[2] else ("file", r[1])
        at = (r[6] or _now()).replace("Z", ".000Z") if len(r[6] or "") == 20 else (r[6] or _now())
        keep_version(conn, kind, name, r[1], bytes(r[4]), r[5], at=at, surface="migrate", operation=r[5])
        n += 1
    conn.execute("DROP TABLE sync_trash")
    return n


# ---------------------------------------------------------------------------
# writing: revert and prune
# ---------------------------------------------------------------------------


def revert(brain, name: str, n: int) -> dict:
    """Make version ``n``'s exact bytes the current version again (a new version; the history
    keeps everything). A deleted page is created again at its path, with every ``.raw`` sidecar
    deleted with it (:func:`sidecars_deleted_with`, as :func:`restore` brings them; ``restored``:
    the page's path, then each sidecar's, only when there is one); a page or file moved away
    since gets it where it is now (``moved_from``: the old name). Under ``sync``/``watch``
    the file follows (the change log sees the write). Returns ``{kind, name, path, version,
    reverted_to, changed}`` (``as_file``, kind ``file``: a deleted page under a hidden name, ``slugs.HIDDEN_WHY``,
    came back as its file); raises NotFound, BadInput (no such text, the path is taken)."""
    from .brain import Brain

    assert isinstance(brain, Brain)
    kind, key = resolve_key(brain, name)
    return _revert_key(brain, kind, key, n)


def _revert_key(brain, kind: str, key: str, n: int) -> dict:
    c = brain.conn
    with brain.transaction():
        r = _version_row(brain, kind, key, n)
        data = body(c, r["body_id"])
        moved_to = None
        if kind == "page":
            live = c.execute("SELECT path FROM pages WHERE slug = ?", (key,)).fetchone()
            if not live:
                # a page moved away (renamed, under watch or by `move`) lives on under its new slug:
                # its old version goes back onto that page, not into a second copy at the old path;
                # deleted there, it comes back there (as `revert NEW`, `restore`: one history)
                moved_to = _moved_away_to(c, kind, key, n)
                if moved_to is not None:
                    key = moved_to
                    live = c.execute("SELECT path FROM pages WHERE slug = ?", (key,)).fetchone()
            path = live["path"] if live else (_version_row(brain, "page", key, None)["path"] if moved_to else r["path"])
            sidecars: list[str] = []
            if not live:
                if c.execute("SELECT 1 FROM files WHERE path = ?", (path,)).fetchone():
                    raise BadInput(f"{path} is a non-page file in the brain now; move or delete it before reverting {key}")
                brain._check_path_free(path)
                # a deleted page comes back with every .raw sidecar deleted with it, as `restore` brings them
                gone = c.execute("SELECT * FROM history WHERE kind = 'page' AND name = ? ORDER BY version DESC LIMIT 1", (key,)).fetchone()
                if gone is not None and gone["op"] == "delete":
                    sidecars = sidecars_deleted_with(c, gone, _version_row(brain, "page", key, None)["path"])
            if not live and is_hidden_path(path):
                # a deleted page an older gbrain stored under a hidden name comes back as the file
                # it now is (slugs.HIDDEN_WHY: no page has such a name), its exact bytes
                changed = brain.save_file(path, data, "blob") is not None
                for sp in sidecars:
                    brain.save_file(sp, body(c, _version_row(brain, "file", sp, None)["body_id"]), "raw")
                v = c.execute("SELECT MAX(version) FROM history WHERE kind = 'file' AND name = ?", (path,)).fetchone()[0]
                return {"kind": "file", "slug": key, "path": path, "version": v, "reverted_to": r["version"], "changed": changed,
                        "as_file": True, "restored": [path, *sidecars], "content_hash": None}
            if is_hidden_path(path):  # a live page an older gbrain stored at a hidden name: no page is written there
                from ..page.slugs import hidden_page_write

                raise BadInput(hidden_page_write(key))
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError as e:
                raise BadInput(f"version {n} of {key} is not UTF-8 text") from e
            res = brain.save_page(path, text)
            changed, page_hash = res.changed, res.content_hash
            for sp in sidecars:
                brain.save_file(sp, body(c, _version_row(brain, "file", sp, None)["body_id"]), "raw")
        else:
            if not c.execute("SELECT 1 FROM files WHERE path = ?", (key,)).fetchone():
                # an attachment moved away (its folder renamed, under watch or sync) likewise goes
                # back onto the file where it is now (or where it was deleted), not into a copy that
                # brings the old folder back
                moved_to = _moved_away_to(c, kind, key, n)
                if moved_to is not None:
                    key = moved_to
            path = key
            if c.execute("SELECT 1 FROM pages WHERE path = ?", (path,)).fetchone():
                raise BadInput(f"{path} is a page in the brain now; delete it before reverting the file")
            changed = brain.save_file(path, data) is not None
        v = c.execute("SELECT MAX(version) FROM history WHERE kind = ? AND name = ?", (kind, key)).fetchone()[0]
        if changed:  # which version it brought back, in `history` (trial 47: `cli revert` alone did not say)
            to = f"to v{r['version']}" if r["name"] == key else f"to v{r['version']} of an older name"
            c.execute("UPDATE history SET detail = ? WHERE kind = ? AND name = ? AND version = ? AND detail = ''", (to, kind, key, v))
    out = {"kind": kind, "slug" if kind == "page" else "path": key, "path": path, "version": v, "reverted_to": r["version"], "changed": changed}
    if kind == "page":
        out["content_hash"] = page_hash  # a put's if_hash for the next edit, as every page write answers
        if sidecars:  # (a deleted page brought back: what came back, as restore answers)
            out["restored"] = [path, *sidecars]
    if moved_to is not None:
        out["moved_from"] = r["name"]
    return out


#: an origin as :func:`_origin_of` prints it: ``surface``, ``(client)``, `` operation`` (``mcp(rewriter) put``,
#: ``watch file changed``; the client may hold spaces and parentheses, as a sync client's folder does)
_PRINTED_ORIGIN = re.compile(r"([a-z?]+)(?:\((.*)\))?(?: (.+))?", re.S)


def _origin_sql(origin: str, null_safe: bool = False) -> tuple[str, list]:
    """SQL condition on a history row for "from this origin", and its arguments: its surface, MCP
    client or operation; ``put`` is every put, whole and of part of a page (:func:`put_operation`);
    or the origin as ``history``/``changes`` print it (``mcp(rewriter) put``, ``mcp(rewriter)``,
    ``watch file changed``: that surface, with that client and/or operation; trial 65: copied from
    the column, it matched nothing). ``null_safe``: false, never NULL, for a row without them (for ``NOT``)."""
    col = (lambda c: f"COALESCE({c}, '')") if null_safe else (lambda c: c)
    part = f" OR {col('operation')} LIKE 'put %'" if origin == "put" else ""
    sql, args = f"{col('surface')} = ? OR {col('client')} = ? OR {col('operation')} = ?{part}", [origin] * 3
    m = _PRINTED_ORIGIN.fullmatch(origin)
    if m and (m.group(2) is not None or m.group(3)):
        conds, more = [f"{col('surface')} = ?"], [m.group(1)]
        if m.group(2) is not None:
            conds.append(f"{col('client')} = ?")
            more.append(m.group(2))
        if m.group(3):
            conds.append(f"{col('operation')} = ?")
            more.append(m.group(3))
        sql += " OR (" + " AND ".join(conds) + ")"
        args += more
    return f"({sql})", args


def _writer_filter(origin: str | None, by: str | None) -> tuple[str, list]:
    """SQL condition (and its arguments) on a history row for "written by this origin/writer"
    (``changes --origin`` / ``--by``, :func:`by_filter`); ``1=1`` when neither is given."""
    conds, args = [], []
    if origin:
        cond, more = _origin_sql(origin)
        conds.append(cond)
        args += more
    if by is not None:
        cond, more = by_filter(by)
        conds.append(f"COALESCE(({cond}), 1=0)")
        args += more
    return (" AND ".join(conds) or "1=1"), args


def undo_firsts_sql(cond: str = "1=1", postgres: bool = False) -> str:
    """The query :func:`undo_plan` starts from (arguments: ``since``, then ``cond``'s): per page or
    file written at or after ``since`` by the rows ``cond`` selects, its first such version, their
    count and the first one's time. It reads the versions since ``since`` through
    ``idx_history_at`` (v36), not the whole history (trial 20: 98.5 -> 0.4 ms CPU for a 1-hour
    plan at 107,944 versions). SQLite is told the time is selective (``unlikely``: without
    statistics its planner preferred a scan of the (kind, name) index that spares the GROUP BY's
    sort); Postgres' planner has its statistics."""
    since = "at >= ?" if postgres else "unlikely(at >= ?)"
    return (f"SELECT kind, name, MIN(version) AS v, COUNT(*) AS n, MIN(at) AS first_at FROM history "
            f"WHERE {since} AND {cond} GROUP BY kind, name ORDER BY kind, name")


def undo_plan(brain, since: str, origin: str | None = None, by: str | None = None, prefix: str | None = None) -> list[dict]:
    """What ``undo`` would do to take back every write since ``since`` (an ISO time, as
    :func:`changes` takes it) made by ``origin`` / writer ``by`` (:func:`changes`' filters; none:
    every write), only under the slug/path prefix ``prefix`` when given. A pure read.

    For each page or file (``kind``, ``name``) with such a write, the state it had just before
    the first of them: ``[{kind, name, path, action, to_version, writes, first_at, reason}]``,
    sorted by kind and name. ``action`` is ``revert`` (back to version ``to_version``),
    ``restore`` (deleted since: version ``to_version`` comes back), ``delete`` (it did not exist
    before: it goes to the trash, its versions stay in the history), ``none`` (already as it
    was) or ``skip`` with a ``reason``: a later write by someone the filters do not select
    (undoing would take theirs back too: ``revert`` it by hand), or a move in the window
    (moves are not undone here: move it back, then undo again; a move and its move back, a
    rotation rotated back, cancel out: :func:`_moves_undone`), or its version before the first
    of them pruned (``history-prune``: before 2026-12-06 read as created in the window, and put in
    the trash), or ``move``'s rewrite of its links
    to a page it moved (undone alone, they would be dead), or a live page an older gbrain stored
    under a hidden name (``slugs.hidden_page_write``: no write edits it). ``writes`` counts the selected
    writes. Raises BadInput for a blank ``by``."""
    c = brain.conn
    cond, fargs = _writer_filter(origin, by)
    firsts = c.execute(undo_firsts_sql(cond, getattr(c, "dialect", "sqlite") == "postgres"), [since, *fargs]).fetchall()
    pre = (prefix or "").strip()
    plan = []
    undone = None  # _moves_undone's answer, read once, when a first item needs it
    for f in firsts:
        kind, key, v0 = f["kind"], f["name"], f["v"]
        rows = c.execute("SELECT * FROM history WHERE kind = ? AND name = ? AND version >= ? - 1 ORDER BY version", (kind, key, v0)).fetchall()
        prev = rows[0] if rows and rows[0]["version"] == v0 - 1 else None
        window = [r for r in rows if r["version"] >= v0]
        path = window[-1]["path"] or key
        if pre and not (key.startswith(pre) or path.startswith(pre)):
            continue
        item = {"kind": kind, "name": key, "path": path, "action": "skip", "to_version": None, "writes": f["n"], "first_at": f["first_at"], "reason": ""}
        plan.append(item)
        other = c.execute(f"SELECT version, at, surface, client, operation FROM history WHERE kind = ? AND name = ? AND version > ? "
                          f"AND NOT ({cond}) ORDER BY version LIMIT 1", [kind, key, v0, *fargs]).fetchone() if cond != "1=1" else None
        if other is not None:
            # a selected write after the other's: it lies between them (trial 38 read "written again
            # since" of a version between two of the agent's writes as coming after them all)
            later = c.execute(f"SELECT version FROM history WHERE kind = ? AND name = ? AND version > ? AND {cond} ORDER BY version LIMIT 1",
                              [kind, key, other["version"], *fargs]).fetchone()
            who = "another writer" if not origin else "another origin" if by is None else "another origin or writer"
            when = (f"in between ({_origin_of(other)}, version {other['version']} at {other['at']}, between versions {v0} and {later[0]} of these writes)"
                    if later is not None else f"since ({_origin_of(other)}, version {other['version']} at {other['at']})")
            item["reason"] = (f"written by {who} {when}: undoing would take it back too; "
                              f"`gbrain history {cmd_arg(key)}` and `gbrain revert {cmd_arg(key)} --to N` by hand")
            continue
        if kind == "page" and any(r["op"] == "move" and _swap_stretch(c, key, r["version"]) for r in window):
            plan.pop()  # a swap's pass through its temp name: the two names' items say it
            continue
        if undone is None and any(r["op"] == "move" or r["operation"] == "move" for r in window):
            undone = _moves_undone(c, since)
        if undone is not None and any(r["op"] == "move" for r in window) and (kind, key) in undone[0]:
            # moved and moved back (a rotation rotated back): the name holds its own page again,
            # unless someone the filters do not select wrote it where it was meanwhile (review r4)
            away = _written_away(c, kind, window, cond, fargs) if cond != "1=1" else None
            if away is not None:
                who = "another writer" if not origin else "another origin" if by is None else "another origin or writer"
                item["reason"] = (f"written by {who} at {away['name']} while it was moved there ({_origin_of(away)}, version {away['version']} "
                                  f"at {away['at']}): undoing would take it back too; `gbrain history {cmd_arg(key)}` and "
                                  f"`gbrain revert {cmd_arg(key)} --to N` by hand")
                continue
        elif (swap := next((s for r in window if r["op"] == "move" for s in (_swap_around(c, r),) if s), None)) is not None:  # names swapped (or rotated: every name of it) by sync/watch: as the user did it, never the temp name
            item["reason"] = (f"names swapped in this window ({swap_words(swap)}): swap them back first, then undo again" if len(swap) == 2 else
                              f"names rotated in this window ({swap_words(swap)}): rotate them back first, then undo again")
            continue
        elif (moved := next((r for r in window if r["op"] == "move"), None)) is not None:
            item["reason"] = f"moved in this window ({moved['detail']}): move it back first, then undo again"
            continue
        if any(r["operation"] == "move" for r in window) and undone[1]:  # `move`'s rewrites of its links to the page it moved (review48)
            item["reason"] = ("its links to a page moved in this window were rewritten by that move: undoing them would leave them dead; "
                              "move that page back first (that rewrites them), then undo again")
            continue
        if prev is None and window and window[0]["op"] != "create" and not (window[0]["op"] == "move" and (window[0]["detail"] or "").startswith("from ")):
            # its version before the first selected write was pruned or purged: it existed, with a text gone
            item["reason"] = (f"its version before these writes (version {v0 - 1}) was removed from the history (`history-prune` or `purge`): nothing to go back to; "
                              f"`gbrain history {cmd_arg(key)}` and `gbrain revert {cmd_arg(key)} --to N` by hand")
            continue
        live = _live_hash(brain, kind, key)
        if prev is None or prev["body_id"] is None:  # it did not exist before the first selected write
            item["action"] = "delete" if live is not None else "none"
            continue
        item["to_version"] = prev["version"]
        h = c.execute("SELECT hash FROM history_bodies WHERE id = ?", (prev["body_id"],)).fetchone()
        if live is not None and h is not None and live == h[0]:
            item["action"] = "none"
        elif live is not None and kind == "page" and is_hidden_path(path):
            # a live page an older gbrain stored under a hidden name: `revert` refuses it (slugs.hidden_page_write),
            # which refused the whole undo, nothing taken back
            item["reason"] = (f"a page an older gbrain stored under a hidden name: no write edits it (the next import or sync of its folder "
                              f"makes it its file); `gbrain history {cmd_arg(key)}` keeps its versions")
        else:
            item["action"] = "restore" if live is None else "revert"
    return plan


def _written_away(c, kind: str, window: list, cond: str, fargs: list):
    """The first history row not selected by ``cond`` (:func:`_writer_filter`, arguments
    ``fargs``) written to a page at a name it was moved to from ``window`` (its rows at its own
    name since the undo's time, version order), before it was moved on: followed name by name
    (a → b → c → a), each stretch from the move away's row id to the next move away. None when
    every such row is selected. :func:`undo_plan` asks it of a page whose moves cancel out: its
    own name's rows alone never showed another writer's edit made while it was away."""
    todo = [(r["id"], r["detail"][3:]) for r in window if r["op"] == "move" and (r["detail"] or "").startswith("to ") and r["body_id"] is None]
    seen = set()
    while todo:
        rid, name = todo.pop()
        if (rid, name) in seen:
            continue
        seen.add((rid, name))
        for r in c.execute(f"SELECT id, name, version, at, surface, client, operation, op, detail, body_id, "
                           f"CASE WHEN {cond} THEN 1 ELSE 0 END AS sel FROM history WHERE kind = ? AND name = ? AND id > ? ORDER BY id",
                           [*fargs, kind, name, rid]):
            if not r["sel"]:
                return r
            if r["op"] == "move" and (r["detail"] or "").startswith("to ") and r["body_id"] is None:
                todo.append((r["id"], r["detail"][3:]))
                break
    return None


def _moves_undone(c, since: str) -> tuple[set[tuple[str, str]], bool]:
    """Which moves since ``since`` (an ISO time) cancel out: ``(keys, standing)``, ``keys`` the
    ``(kind, name)`` of every page or file name a move since then left or reached that holds now
    what it held then (the same page or file, or none), ``standing`` True when some such name does
    not (a move that still stands). A move and its move back, a rotation rotated back (sync's swap
    passes through its temp name: :meth:`gbrain.sync.engine.SyncEngine._swap`) cancel out, so
    :func:`undo_plan` takes back the window's other writes instead of asking for the move back
    it was given (before 2026-12-06 it asked again for ever). Played over the names' creations,
    deletions and moves since ``since`` in history order: a move away (``to X``, no body) carries
    the name's page to its move in at ``X`` (``from``); a move in with no move away in the window
    (a trashed page brought back as a late move: :func:`record_page_move`) or a creation is a page
    of its own; a name held a page before when its first such row is neither a creation nor a move
    in. A name's moves cancel out when it holds what its own creations and deletions alone would
    have left there: the page it held before, or the last page made there in the window (made,
    or deleted and made again, then moved and moved back: the name holds it again). Two
    queries: the moves, then those names' rows."""
    moves = c.execute("SELECT kind, name, detail FROM history WHERE op = 'move' AND at >= ?", (since,)).fetchall()
    names: dict[str, set[str]] = {}
    for r in moves:
        d = r["detail"] or ""
        names.setdefault(r["kind"], set()).add(r["name"])
        for p in ("to ", "from "):
            if d.startswith(p):
                names[r["kind"]].add(d[len(p):])
    keys: set[tuple[str, str]] = set()
    standing = False
    for kind, ns in names.items():
        held: dict[str, object] = {}
        now: dict[str, object] = {}
        base: dict[str, object] = {}  # what the name would hold were the moves not made: its own creations and deletions
        flight: dict[tuple[str, str], object] = {}
        ns = sorted(ns)
        for i in range(0, len(ns), 500):
            part = ns[i:i + 500]
            marks = ",".join("?" * len(part))
            for r in c.execute(f"SELECT id, name, op, detail, body_id FROM history WHERE kind = ? AND name IN ({marks}) AND at >= ? "
                               f"AND op IN ('create', 'delete', 'move') ORDER BY id", (kind, *part, since)).fetchall():
                n, d = r["name"], r["detail"] or ""
                if n not in held:
                    held[n] = None if r["op"] == "create" or (r["op"] == "move" and d.startswith("from ")) else n
                    now[n] = base[n] = held[n]
                if r["op"] == "move" and d.startswith("to ") and r["body_id"] is None:
                    flight[(n, d[3:])] = now[n]
                    now[n] = None
                elif r["op"] == "move" and d.startswith("from "):
                    now[n] = flight.pop((d[5:], n), ("came", r["id"]))
                elif r["op"] == "create":
                    now[n] = base[n] = ("new", r["id"])
                else:
                    now[n] = None
                    if r["op"] != "move":
                        base[n] = None
        for n in held:  # the moves left it as its creations and deletions alone would: they cancel out
            if now[n] == base[n]:  # (a page made in the window, moved and moved back: skilltrial s61; deleted and made again first: review r4)
                keys.add((kind, n))
            else:
                standing = True
    return keys, standing


def undo(brain, since: str, origin: str | None = None, by: str | None = None, prefix: str | None = None, apply: bool = False) -> dict:
    """Take back every write since ``since`` by ``origin`` / ``by`` under ``prefix``
    (:func:`undo_plan`): a dry run unless ``apply``. Applied, it runs in one write transaction
    (all or nothing: a path taken meanwhile raises BadInput and nothing is written), each page
    or file brought back as a new version (:func:`_revert_key`) or deleted into the trash, so
    the undo itself is in the history and can be undone (``--origin undo``). Under sync/watch
    the files follow. Returns ``{since, applied, plan, counts: {action: n}}``; applied, also
    ``at`` and ``by``: the time of the undo's first version and its writer, which select this
    undo alone for the one that takes it back (not a teammate's undo in the same window)."""
    mine = None
    with brain.transaction():
        plan = undo_plan(brain, since, origin, by, prefix)
        if apply:
            last = brain.conn.execute("SELECT COALESCE(MAX(id), 0) FROM history").fetchone()[0]
            for it in plan:
                if it["action"] in ("revert", "restore"):
                    _revert_key(brain, it["kind"], it["name"], it["to_version"])
                elif it["action"] == "delete":
                    if it["kind"] == "page":
                        brain.delete_page(it["name"])
                    else:
                        brain.delete_file(it["name"])
            mine = brain.conn.execute("SELECT MIN(at), MIN(writer) FROM history WHERE id > ?", (last,)).fetchone()
    counts: dict[str, int] = {}
    for it in plan:
        counts[it["action"]] = counts.get(it["action"], 0) + 1
    out = {"since": since, "applied": bool(apply), "plan": plan, "counts": counts}
    if mine is not None and mine[0]:
        out["at"], out["by"] = mine[0], mine[1] or ""
    return out


def renamed_to(c, slug: str) -> dict | None:
    """Where the page once named ``slug`` went, when no page has that name now: ``{"slug": the
    live page it is now (following moves a → b → c), "at": when ``slug`` was moved away (ISO
    UTC)}``, or None when the name's newest history row is no move or the chain ends at no live
    page. Two indexed queries per hop (history's ``(kind, name, version)``, pages' slug)."""
    to = _moved_to(c, slug)
    if to is None:
        return None
    r = c.execute("SELECT at FROM history WHERE kind = 'page' AND name = ? ORDER BY version DESC LIMIT 1", (slug,)).fetchone()
    return {"slug": to, "at": r[0] if r else ""}


def renamed_words(old: str, moved: dict) -> str:
    """``"OLD was renamed to NEW on 2026-12-02 07:58 UTC"`` from :func:`renamed_to`'s answer."""
    at = moved["at"]
    when = f" on {at[:10]} {at[11:16]} UTC" if len(at) >= 16 else ""
    return f"{old} was renamed to {moved['slug']}{when}"


def _moved_to(c, slug: str, kind: str = "page") -> str | None:
    """The live page a page moved away from ``slug`` is now (following moves: a → b → c), or
    None when its newest history row is not a move, the chain ends at no live page, or the page at
    its end is another one (:func:`_moved_on`). ``kind`` ``file``: the same for a stored file's
    path (an attachment moved by sync or watch)."""
    on = _moved_on(c, slug, kind)
    return on[0] if on is not None and on[1] == "live" else None


def _moved_away_to(c, kind: str, key: str, n: int) -> str | None:
    """The name ``revert KEY --to N`` writes to when ``key`` holds no page (or file) now: the last
    name of the page that moved away from it, live or deleted there (:func:`_moved_on`), else None
    (``key`` itself). Raises BadInput when that name holds another page now: never onto it, nor a
    second copy at ``key``."""
    on = _moved_on(c, key, kind)
    if on is None:
        return None
    name, state = on
    if state == "taken":
        raise BadInput(f"{key} was renamed to {name} since, deleted there, and another {kind} was written there since: `gbrain get {cmd_arg(key)} --version {n}` "
                       f"gives version {n}'s text to put where it belongs (`gbrain history {cmd_arg(name)}` lists both)")
    return name


def _moved_on(c, slug: str, kind: str = "page") -> tuple[str, str] | None:
    """Where the page (or file) that moved away from ``slug`` went: ``(its last name, state)``,
    state ``live`` (it is there), ``deleted`` (it was deleted there, and the name holds nothing
    since: the trash) or ``taken`` (it was deleted there and another page written there since);
    None when ``slug``'s newest row is no move away or the chain breaks. The page is followed by its
    own rows, whatever was written at its names after it left: each move away's move in (the
    nearest after it by ``history.id``, else the nearest), then that name's first deletion or move away after it, a deletion
    brought back (a create labelled ``to vN`` right after it: ``restore``, ``revert``) passed over.
    Before 2026-12-06 the chain followed each name's newest row and took the page found at its end
    for the one that moved there: `revert OLD` wrote onto another page, and a page deleted after
    its move came back as a new page at OLD."""
    row = c.execute("SELECT * FROM history WHERE kind = ? AND name = ? ORDER BY version DESC LIMIT 1", (kind, slug)).fetchone()
    if row is None or row["op"] != "move" or row["body_id"] is not None or not (row["detail"] or "").startswith("to "):
        return None
    prev = slug
    for _ in range(MAX_MOVES):
        name = row["detail"][3:]
        came = c.execute("SELECT id, version FROM history WHERE kind = ? AND name = ? AND op = 'move' AND body_id IS NOT NULL AND detail = ? "
                         "ORDER BY CASE WHEN id > ? THEN 0 ELSE 1 END, abs(id - ?) LIMIT 1", (kind, name, "from " + prev, row["id"], row["id"])).fetchone()
        if came is None:
            return None
        v = came["version"]
        while True:  # the page's first deletion or move away at the name after it came (one brought back: the next)
            row = c.execute("SELECT * FROM history WHERE kind = ? AND name = ? AND version > ? AND body_id IS NULL ORDER BY version LIMIT 1",
                            (kind, name, v)).fetchone()
            if row is None or row["op"] != "delete":
                break
            nxt = c.execute("SELECT op, detail FROM history WHERE kind = ? AND name = ? AND version = ?", (kind, name, row["version"] + 1)).fetchone()
            if nxt is None:
                return name, "deleted"
            if nxt["op"] != "create" or not _BROUGHT_BACK.fullmatch(nxt["detail"] or ""):
                return name, "taken"
            v = row["version"] + 1
        if row is None:
            live = c.execute("SELECT 1 FROM pages WHERE slug = ?" if kind == "page" else "SELECT 1 FROM files WHERE path = ?", (name,)).fetchone()
            return (name, "live") if live else None
        if row["op"] != "move" or not (row["detail"] or "").startswith("to "):
            return None
        prev = name
    return None


def prune_plan(brain, keep_days: int | None, keep_last: int | None, now: float | None = None, include_deleted: bool = False,
               key: tuple[str, str] | None = None) -> tuple[list[int], dict]:
    """Which history rows pruning would delete: versions older than ``keep_days`` days that are
    not among the newest ``keep_last`` of their page/file. Never the current version of a live
    page or file, nor a version whose text a synced folder last agreed on with the brain
    (``sync_state.base_hash``: the base its next sync merges both sides' edits against; one version
    holding it, :func:`_keep_bases`, also under ``include_deleted`` at a name the page moved away from). Of a page or file with no current row (deleted, or moved away) the newest row
    and its last text are kept too, and so is every version an import or sync replaced and put
    in the trash (``trashed``, with the row after it, which says when and by whom: the trash
    lists both), unless ``include_deleted``: then these rows follow the same age/count rules,
    and a deleted page whose rows all go leaves the trash for good. Returns ``(row ids,
    summary {keys, deleted_keys})``; ``deleted_keys`` counts the deleted ones whose whole history
    would go. ``key`` (``(kind, name)``, :func:`resolve_key`) limits it to one page's or file's history."""
    if keep_days is None and keep_last is None:
        raise BadInput("pruning needs --keep-days and/or --keep-last (or config history_keep_days / history_keep_last)")
    if (keep_days is not None and keep_days < 0) or (keep_last is not None and keep_last < 0):
        raise BadInput("--keep-days and --keep-last must be 0 or more")
    cutoff = time.strftime("%Y-%m-%dT%H:%M:%S.999Z", time.gmtime((now or time.time()) - (keep_days or 0) * 86400)) if keep_days is not None else None
    c = brain.conn
    live = {("page", r[0]) for r in c.execute("SELECT slug FROM pages")} | {("file", r[0]) for r in c.execute("SELECT path FROM files")}
    # the trash's entries of replaced versions: the version and the write that replaced it
    # (idx_history_trash holds them)
    in_trash: set[tuple[str, str, int]] = set()
    if not include_deleted:
        for r in c.execute("SELECT kind, name, version FROM history WHERE (op = 'delete' OR trashed != '') AND trashed != ''"):
            in_trash |= {(r[0], r[1], r[2]), (r[0], r[1], r[2] + 1)}
    ids: list[int] = []
    keys = gone_keys = 0
    cur = None
    rank = 0
    seen_text = False
    kept_any = True

    def close() -> None:
        nonlocal gone_keys
        if cur is not None and not kept_any:
            gone_keys += 1

    # the version each synced folder last agreed on with the brain (its merge base: a folder
    # offline meanwhile merges its edits against it when it comes back; trial 69): read by its
    # hash from any version holding it (`SyncEngine._base_bytes`), so one version of it is kept
    # (`_keep_bases`), never every version of every page that held the same text
    bases: dict[str, set[tuple[str, str]]] = {}
    for p, hx in c.execute("SELECT path, base_hash FROM sync_state WHERE base_hash IS NOT NULL"):
        bases.setdefault(hx, set()).add(("page", slug_for_path(p)) if is_markdown(p) else ("file", p))
    held: dict[str, list] = {}  # base hash → [(kind, name, version, row id, dropped)] of the rows read
    where = " WHERE h.kind = ? AND h.name = ?" if key else ""
    rows: dict[tuple[str, str], list] = {}
    for r in c.execute(f"SELECT h.id, h.kind, h.name, h.version, h.at, h.body_id, h.op, h.detail, b.hash AS body_hash FROM history h "
                       f"LEFT JOIN history_bodies b ON b.id = h.body_id{where} ORDER BY h.kind, h.name, h.version DESC", key or ()):
        k = (r["kind"], r["name"])
        rows.setdefault(k, []).append(_Row(r["id"], r["op"], r["detail"] or "", r["body_id"] is not None))
        if k != cur:
            close()
            cur, rank, seen_text, kept_any = k, 0, False, False
            keys += 1
        rank += 1
        if k in live or not include_deleted:
            protected = rank == 1 or (r["body_id"] is not None and not seen_text) or (*k, r["version"]) in in_trash
            if r["body_hash"] in bases:
                held.setdefault(r["body_hash"], []).append((k, r["version"], r["id"], not protected))
        else:
            protected = False
            if r["body_hash"] in bases and _lives_on(c, k, live):
                # a name the page moved away from, living on elsewhere: a folder offline meanwhile
                # merges its edit of the old name there (a deleted page's base: nothing to merge into)
                held.setdefault(r["body_hash"], []).append((k, r["version"], r["id"], True))
        if r["body_id"] is not None:
            seen_text = True
        if protected or (keep_last is not None and rank <= keep_last) or (cutoff is not None and r["at"] > cutoff):
            kept_any = True
            continue
        ids.append(r["id"])
    close()
    if held and ids:
        back = _keep_bases(c, bases, held, set(ids), key)
        if back:
            ids = [i for i in ids if i not in back]
            gone_keys = 0  # (counted again below)
    if not ids:
        return ids, {"keys": keys, "deleted_keys": gone_keys}
    for k in rows:
        rows[k].reverse()  # oldest first
    if key is not None:  # the names the key's page moved to: their move ins keep its moves away
        names = {r.detail[3:] for r in rows[key] if r.op == "move" and not r.text and r.detail.startswith("to ")}
        names |= {r.detail[5:] for r in rows[key] if r.op == "move" and r.text and r.detail.startswith("from ")}  # and from
        for new in sorted(names - {key[1]}):
            rows[(key[0], new)] = [_Row(r["id"], r["op"], r["detail"] or "", r["body_id"] is not None) for r in c.execute(
                "SELECT id, op, detail, body_id FROM history WHERE kind = ? AND name = ? ORDER BY version", (key[0], new))]
    drop = _whole_moves(rows, set(ids), include_deleted, held=_sidecar_left(c, set(ids)) if include_deleted else None)
    gone_keys = sum(1 for k, rs in rows.items() if k not in live and rs and all(r.id in drop for r in rs))
    return sorted(drop), {"keys": keys, "deleted_keys": gone_keys}


def _lives_on(c, k: tuple[str, str], live: set[tuple[str, str]]) -> bool:
    """Whether the page or file that was at ``k`` (``(kind, name)``, not live) moved on, name by
    name (each name's newest row a move away ``to NEW``), to a name live now."""
    seen = {k}
    while True:
        r = c.execute("SELECT op, detail, body_id FROM history WHERE kind = ? AND name = ? ORDER BY version DESC LIMIT 1", k).fetchone()
        if r is None or r[0] != "move" or r[2] is not None or not (r[1] or "").startswith("to "):
            return False
        k = (k[0], r[1][3:])
        if k in live:
            return True
        if k in seen:
            return False
        seen.add(k)


def _keep_bases(c, bases: dict[str, set[tuple[str, str]]], held: dict[str, list], drop: set[int],
                key: tuple[str, str] | None) -> set[int]:
    """The rows a prune keeps for the synced folders' merge bases: of each base hash (``bases``:
    hash → the ``(kind, name)`` of the paths whose base it is) held by no version the prune keeps,
    the newest version that holds it at one of those names, else the newest holding it anywhere.
    ``held``: hash → ``[((kind, name), version, row id, droppable)]`` of the rows read (only those
    the prune may keep: under ``include_deleted`` a name the page moved away from, living on
    elsewhere, :func:`_lives_on`, never a deleted one's); ``drop``: the row ids that
    would go; ``key``: a prune of one key, whose other keys' rows all stay. Returns the row ids
    taken back out of ``drop``. Before 2026-12-06 every version holding such a text was kept, of
    any page (a template's text, a page that went back to it), for as long as the folder was bound."""
    back: set[int] = set()
    for hx, rs in held.items():
        if any(i not in drop for _, _, i, _ in rs):
            continue
        if key is not None and c.execute(
                "SELECT 1 FROM history h JOIN history_bodies b ON b.id = h.body_id WHERE b.hash = ? AND NOT (h.kind = ? AND h.name = ?) LIMIT 1",
                (hx, *key)).fetchone():
            continue  # (another key's version, kept)
        own = [x for x in rs if x[0] in bases[hx] and x[3]]
        pick = max(own or [x for x in rs if x[3]], key=lambda x: x[2], default=None)
        if pick is not None:
            back.add(pick[2])
    return back


#: the end of :func:`_ended_aways`' label of a page deleted back at the name it moved away from
#: (`moved to b and back`: the trash says `moved to b and back, then deleted there`)
AND_BACK = " and back"


def _ended_aways(c, gone: set[int]) -> list[tuple[int, str, str]]:
    """The moves away a prune or a text purge keeps whose page has nothing left after them
    (``gone``: the rows that go; its move in and all its later versions, the deletion too, go, on
    through the names it moved on to): each becomes the page's deletion, ``[(row id, 'delete',
    'moved to NEW')]`` for :func:`apply_labels` (a purge names a name it took whole ``a purged
    name``). Before 2026-12-06 such a move away named a name holding nothing of the page: `move a
    b; delete b; history-prune b --include-deleted` left a "moved to b", and `revert a` began a page
    no walk tied to a's past; a text purge of b's versions left it ``renamed to a purged name``, the
    page neither live nor in the trash."""
    out = []
    for part, marks in in_parts(sorted(gone)):
        ins = c.execute(f"SELECT id, kind, name, version, detail FROM history WHERE id IN ({marks}) AND op = 'move' "
                        "AND body_id IS NOT NULL", part).fetchall()
        for m in ins:
            if not (m["detail"] or "").startswith("from "):
                continue
            away = c.execute("SELECT id FROM history WHERE kind = ? AND name = ? AND op = 'move' AND body_id IS NULL AND detail = ? "
                             "AND id < ? ORDER BY id DESC LIMIT 1", (m["kind"], m["detail"][5:], "to " + m["name"], m["id"])).fetchone()
            if away is None or away["id"] in gone:
                continue
            if (last := _stretch_gone(c, m, gone)) is not None:  # the name it was deleted at (before 2026-12-06 its first name on, m's,
                # which a page moved back to its own name, a → b → a, still names: never `a: moved to a`)
                # (deleted back at the name it left: `moved to b and back`, then deleted there; before 2026-12-06 `moved to b`,
                # the trash `moved to b, then deleted there`, a name the page had left)
                out.append((away["id"], "delete", "moved to " + (m["name"] + AND_BACK if last == m["detail"][5:] else last)))  # (what the trash says of it: _deleted_reason)
    return out


def _stretch_gone(c, m, gone: set[int]) -> str | None:
    """The name the page was deleted at when the stretch that move in ``m`` (a history row) began
    goes whole (``gone``: row ids), to the page's deletion (on through a deletion brought back, and
    a move on to another name whose stretch goes whole too: that name's); else None."""
    for _ in range(MAX_MOVES):
        after = c.execute("SELECT id, op, detail, body_id FROM history WHERE kind = ? AND name = ? AND version > ? ORDER BY version",
                          (m["kind"], m["name"], m["version"])).fetchall()
        nxt_in = None
        for i, r in enumerate(after):  # its stretch there, on through a deletion brought back
            nxt = after[i + 1] if i + 1 < len(after) else None
            if r["id"] not in gone:
                return None  # a version of it left (`rejoin_labels`)
            if r["op"] == "move":
                if r["body_id"] is not None or not (r["detail"] or "").startswith("to "):
                    return None
                # moved on: its stretch at the next name, when that goes whole too
                nxt_in = c.execute("SELECT id, kind, name, version, detail FROM history WHERE kind = ? AND name = ? AND op = 'move' "
                                   "AND body_id IS NOT NULL AND detail = ? AND id > ? ORDER BY id LIMIT 1",
                                   (m["kind"], r["detail"][3:], "from " + m["name"], r["id"])).fetchone()
                if nxt_in is None or nxt_in["id"] not in gone:
                    return None
                break
            if r["op"] == "delete" and not (nxt is not None and nxt["op"] == "create" and _BROUGHT_BACK.fullmatch(nxt["detail"] or "")):
                return m["name"]
        if nxt_in is None:
            return m["name"]
        m = nxt_in
    return None


class _Row(NamedTuple):
    """One history row as :func:`_whole_moves` reads it."""
    id: int
    op: str
    detail: str
    text: bool  # a version with a body (not a deletion or move away)


def _sidecar_left(c, drop: set[int]):
    """A test for :func:`_whole_moves` under ``include_deleted``: ``held(kind, name)`` is True when
    ``name`` is a page's name one of whose ``.raw`` sidecars (any spelling,
    :func:`gbrain.page.slugs.sidecar_ranges`) is live there or has a history row the prune keeps
    (``drop``: the row ids that would go): the page's end there stays, its trash entry beside its
    sidecar (before 2026-12-06 the page went back into the trash at the name it moved from, its
    sidecar left at the new name: live after ``delete``, which keeps it, or in the trash where
    ``restore`` never looked). A sidecar whose newest row at the name is its move away (moved on
    after the page's ``delete``) is not left there (before 2026-12-06 its kept rows there counted)."""
    from ..page.slugs import page_slug_for_sidecar, sidecar_ranges

    def held(kind: str, name: str) -> bool:
        if kind != "page":
            return False
        r = c.execute("SELECT path FROM history WHERE kind = 'page' AND name = ? ORDER BY version DESC LIMIT 1", (name,)).fetchone()
        for lo, hi in sidecar_ranges(r["path"] if r is not None and r["path"] else name + ".md"):
            away: dict[str, bool] = {}  # a sidecar name → its newest row there is its move away (it is not there)
            for n, rid, op, d, body in c.execute(
                    "SELECT name, id, op, detail, body_id FROM history WHERE kind = 'file' AND name >= ? AND name < ? "
                    "AND version = (SELECT MAX(version) FROM history m WHERE m.kind = 'file' AND m.name = history.name) "
                    "UNION ALL SELECT path, 0, '', '', 0 FROM files WHERE path >= ? AND path < ?", (lo, hi, lo, hi)):
                if rid == 0:
                    away[n] = False  # live there
                else:
                    away.setdefault(n, op == "move" and body is None and (d or "").startswith("to "))
            for n, rid in c.execute("SELECT name, id FROM history WHERE kind = 'file' AND name >= ? AND name < ? "
                                    "UNION ALL SELECT path, 0 FROM files WHERE path >= ? AND path < ?", (lo, hi, lo, hi)):
                if rid not in drop and not away.get(n) and page_slug_for_sidecar(n) == name:
                    return True
        return False
    return held


def _whole_moves(rows: dict[tuple[str, str], list], drop: set[int], include_deleted: bool = False, held=None) -> set[int]:
    """The rows a prune drops (``drop``: row ids), so that no kept row is cut from the page it
    belongs to (before 2026-12-06 a prune counted each name alone: `create a; move a b; move b a;
    history-prune --keep-last 1` kept b's move in and dropped a's move away, and a later `move a b`
    counted b's move in against a's later text): a kept move in (``from OLD``) keeps its move away
    (``to NEW`` at OLD) and the page's last version before it there; a kept bringing back after a
    deletion (a create labelled ``to vN``) keeps the deletion and the version before it; any kept
    version keeps its stretch's end at the name (its deletion or move away: before 2026-12-06 a
    merge base's version kept by :func:`_keep_bases`, its move away pruned, joined the page written
    at the name since, whose update counted against it); then a
    deletion or move away none of whose page's versions at the name are kept goes too (as
    ``purge._emptied_ends``: a trash entry of nothing, `create a; delete a; history-prune
    --keep-last 1 --include-deleted` left one that `restore` refused). Without ``include_deleted``
    a kept move away whose page has nothing left after it (its move in and its stretch there, to its
    deletion, all going) keeps its move in and that deletion with the version before it (with
    it, :func:`_ended_aways` makes the move away the page's deletion). ``rows``: ``{(kind, name):
    [_Row, …] oldest first}`` of every key the prune read (a prune of one key: those of the names its
    page moved to too, whose rows all stay). ``held(kind, name)`` (with ``include_deleted``,
    :func:`_sidecar_left`): a name whose end is kept as without it, a page's sidecar left there.
    Returns the new drop set (row ids)."""
    drop = set(drop)

    def away_of(kind: str, name: str, r) -> tuple[list, int] | None:  # a move in's move away: the last before it
        old = r.detail[5:]
        theirs = rows.get((kind, old))
        if theirs is None:  # (a prune of one key: the other name's rows are all kept)
            return None
        at = [j for j, x in enumerate(theirs) if x.op == "move" and not x.text and x.detail == "to " + name and x.id < r.id]
        return (theirs, at[-1]) if at else None

    def keep(theirs: list, j: int) -> bool:  # the end at j and the version before it
        changed = theirs[j].id in drop
        drop.discard(theirs[j].id)
        if j > 0 and theirs[j - 1].text and theirs[j - 1].id in drop:
            drop.discard(theirs[j - 1].id)
            changed = True
        return changed

    changed = True
    while changed:
        changed = False
        for (kind, name), mine in rows.items():
            for i, r in enumerate(mine):  # a kept version keeps its stretch's end at the name (another page's versions after it
                # would read as its own: `_keep_bases` kept a page's text, its move away went, the page written there since joined it)
                if r.id in drop or not r.text:
                    continue
                end = next((x for x in mine[i + 1:] if not x.text), None)
                if end is not None and end.id in drop:
                    drop.discard(end.id)
                    changed = True
            for i, r in enumerate(mine):
                if r.id in drop or not r.text:
                    continue
                if r.op == "move" and r.detail.startswith("from "):
                    pair = away_of(kind, name, r)
                    if pair is not None and keep(*pair):
                        changed = True
                elif r.op == "create" and _BROUGHT_BACK.fullmatch(r.detail) and i > 0 and mine[i - 1].op == "delete":
                    if keep(mine, i - 1):
                        changed = True
            if include_deleted and held is None:
                continue
            for r in mine:  # a kept move away whose page has nothing left after it: its stretch's end there stays
                if r.id in drop or r.text or r.op != "move" or not r.detail.startswith("to "):
                    continue
                if include_deleted and not held(kind, r.detail[3:]):
                    continue  # (--include-deleted: the move away becomes its deletion, `_ended_aways`, unless a sidecar of it is left there)
                theirs = rows.get((kind, r.detail[3:]), ())
                j = next((j for j, x in enumerate(theirs) if x.id > r.id and x.op == "move" and x.text and x.detail == "from " + name), None)
                if j is None or theirs[j].id not in drop:
                    continue
                end = None
                for x, nxt in zip(theirs[j + 1:], [*theirs[j + 2:], None]):
                    if (x.id not in drop and x.text) or (not x.text and x.op == "move"):
                        break  # a version left (`rejoin_labels`), or moved on (a kept deletion alone: its end, kept with its move in)
                    if not x.text and not (nxt is not None and nxt.op == "create" and _BROUGHT_BACK.fullmatch(nxt.detail)):
                        end = theirs.index(x)
                        break
                if end is not None:  # (without --include-deleted a prune leaves the trash as it was: no deletion of it at r)
                    drop.discard(theirs[j].id)
                    keep(theirs, end)
                    changed = True
    for mine in rows.values():
        stretch: list = []
        for r in mine:
            if r.text:
                stretch.append(r)
                continue
            if stretch and r.id not in drop and all(x.id in drop for x in stretch):
                drop.add(r.id)
            stretch = []
    return drop


def stage_drops(c, ids: list[int]) -> None:
    """Put the history row ids ``ids`` in the temp table ``prune_ids`` (made when missing, emptied
    first) that :func:`drop_versions` and prune's counts read."""
    c.execute("CREATE TEMP TABLE IF NOT EXISTS prune_ids(id INTEGER PRIMARY KEY)")
    c.execute("DELETE FROM prune_ids")
    c.executemany("INSERT INTO prune_ids(id) VALUES (?)", [(i,) for i in ids])


def drop_versions(c) -> int:
    """Delete the history rows whose ids are in the temp table ``prune_ids``, every body no
    remaining version names, and the big files' pieces nothing names any more
    (``blobs.prune_unused``). A remaining body stored as a delta against a body that goes is
    first stored alone (:func:`pack` without a base; Postgres stores every body as is), so the
    bytes of a dropped version are nowhere in what is kept (its text is gone from the file, not
    kept as a delta's base: trial 21). Runs in the caller's transaction; returns how many bodies
    were stored alone. Used by ``prune`` and :mod:`gbrain.core.purge`."""
    keep = "SELECT body_id FROM history WHERE body_id IS NOT NULL AND id NOT IN (SELECT id FROM prune_ids)"
    rows = c.execute(f"SELECT id FROM history_bodies WHERE id IN ({keep}) AND substr(data, 1, 1) IN (X'64', X'78') "
                     f"AND base_id NOT IN ({keep})").fetchall()
    alone = [(pack(body(c, r[0])), r[0]) for r in rows]  # decoded before any base changes
    c.executemany("UPDATE history_bodies SET data = ?, base_id = NULL, depth = 0 WHERE id = ?", alone)
    c.execute("DELETE FROM history WHERE id IN (SELECT id FROM prune_ids)")
    c.execute("DELETE FROM history_bodies WHERE id NOT IN (SELECT body_id FROM history WHERE body_id IS NOT NULL)")
    from ..storage.blobs import prune_unused

    prune_unused(c)
    return len(alone)


def rejoin_labels(c, ids: list[int]) -> list[tuple[int, str | None, str | None]]:
    """The labels that keep a page one history when a purge takes its move in (``move from
    OLD``, a version holding the text OLD's last one had) but not all of its versions: ``[(row id,
    op, detail)]``. The first version left of that stretch of the new name (an edit since the move)
    becomes the move in (``op`` ``move``, ``from`` the page's last name with a version left before
    it, whose move away is labelled ``to`` the new name when it was another's): the walks that follow
    a page through its names (:class:`_Walk`, :func:`_moved_on`, :func:`_base_row`) find
    a stretch's start by its move in. Before 2026-12-06 the page's history began at the edit: its
    old names' versions were listed nowhere, counted nowhere, ``revert OLD`` followed it nowhere and
    ``purge NEW`` left them, its text. Likewise a deleted page brought back (``restore``, ``revert``:
    a create labelled ``to vN`` right after its deletion) whose bringing back goes: the first version
    left after it takes its label (before 2026-12-06 the page's past before the deletion was cut
    off alike); a move in whose stretch's deletion and bringing back go too reaches the page's first
    version left after them (`create a; move a b; delete b; restore a; edit b; history-prune
    --keep-last 1` began b's history at the edit before 2026-12-06), and one whose old name's
    stretch went whole back to a deletion left there (its bringing back gone) continues from it: the
    deletion becomes the move away (`delete a; restore a; move a b; purge` of the restored
    stretch left a in the trash beside the live b, cut from it, before 2026-12-06). A purge (``purge._emptied_ends`` included) and a prune (:func:`prune`: before 2026-12-06
    `history-prune NEW --keep-last 2` cut a renamed page from its old names alike) read them before
    their rows go, then :func:`apply_labels`. A round trip gone whole (`a → b → a`, the stretch at b
    and the move in back taken: the page's last name with a version left before it is its own) takes
    its move away too, ``(row id, None, None)``, the version left staying as written (before
    2026-12-06 `move to a` then `move from a`, a move from a name onto itself), unless another page's rows
    are left at a between them: the page did leave, the version left takes the move in's label. ``ids``: the rows that go."""
    gone = set(ids)
    out: list[tuple[int, str, str]] = []
    moves = []
    for part, marks in in_parts(sorted(gone)):
        moves += c.execute(f"SELECT id, kind, name, version, op, detail FROM history WHERE id IN ({marks}) AND body_id IS NOT NULL "
                           "AND op IN ('move', 'create')", part).fetchall()
    for m in sorted(moves, key=lambda r: r["id"]):
        back = m["op"] == "create" and _BROUGHT_BACK.fullmatch(m["detail"] or "")
        if not back and not (m["op"] == "move" and (m["detail"] or "").startswith("from ")):
            continue
        kind, name = m["kind"], m["name"]
        keep = None
        after = c.execute("SELECT id, body_id, op, detail FROM history WHERE kind = ? AND name = ? AND version > ? ORDER BY version",
                          (kind, name, m["version"])).fetchall()
        for i, r in enumerate(after):
            if r["body_id"] is None:
                nxt = after[i + 1] if i + 1 < len(after) else None
                if (not back and r["op"] == "delete" and r["id"] in gone and nxt is not None and nxt["op"] == "create"
                        and _BROUGHT_BACK.fullmatch(nxt["detail"] or "")):
                    continue  # deleted and brought back, its deletion gone too: the page goes on (a prune of both)
                break  # the stretch ends: nothing of it left
            if r["id"] not in gone:
                keep = r["id"]
                break
        if keep is None:
            continue
        if back:  # brought back after a deletion that stays: the page's past before it is this page's
            gone_row = c.execute("SELECT id, op FROM history WHERE kind = ? AND name = ? AND version < ? ORDER BY version DESC LIMIT 1",
                                 (kind, name, m["version"])).fetchone()
            if gone_row is not None and gone_row["op"] == "delete" and gone_row["id"] not in gone:
                out.append((keep, "create", m["detail"]))
            continue
        cur = m
        for _ in range(MAX_MOVES):
            old = cur["detail"][5:]
            away = c.execute("SELECT id, version, op FROM history WHERE kind = ? AND name = ? AND op = 'move' AND body_id IS NULL AND detail = ? "
                             "ORDER BY CASE WHEN id < ? THEN 0 ELSE 1 END, abs(id - ?), id DESC LIMIT 1", (kind, old, "to " + cur["name"], cur["id"], cur["id"])).fetchone()
            if away is None:
                break
            end, first, joined = away, None, False
            for _ in range(MAX_MOVES):  # back through the page's stretches at old that went whole
                if end["id"] not in gone and old == name and end["op"] == "move":
                    between = [r[0] for r in c.execute("SELECT id FROM history WHERE kind = ? AND name = ? AND version > ? AND version < ?",
                                                       (kind, name, end["version"], m["version"])) if r[0] not in gone]
                    if between:  # another page lived at the name while this one was away (created, deleted): the page
                        # did leave; the version left takes the move in's own label, `from` the name it came back from
                        # (`_relabel`'s `renamed from a purged name` when nothing is left there); before 2026-12-06
                        # its move away went, the other page's rows read as this page's versions
                        out.append((keep, "move", m["detail"]))
                    else:
                        # a round trip (a → b → a) gone whole: the page never left as far as what is left goes, so
                        # its move away goes too and the version left stays as written (before 2026-12-06 `move to a`
                        # and `move from a`, a move from a name onto itself)
                        out.append((end["id"], None, None))
                    joined = True
                    break
                if end["id"] not in gone:  # the page's last name with a version left before the move in
                    out.append((keep, "move", "from " + old))
                    if cur is not m or end is not away:  # (a deletion left: the page moved on from it, its bringing back gone)
                        out.append((end["id"], "move", "to " + name))
                    joined = True
                    break
                # that stretch went whole: on through its own move in, when it began by one that goes too
                gap = c.execute("SELECT id, version, op FROM history WHERE kind = ? AND name = ? AND body_id IS NULL AND version < ? "
                                "ORDER BY version DESC LIMIT 1", (kind, old, end["version"])).fetchone()
                first = c.execute("SELECT id, name, version, op, detail FROM history WHERE kind = ? AND name = ? AND version > ? ORDER BY version LIMIT 1",
                                  (kind, old, gap["version"] if gap else 0)).fetchone()
                # or through its bringing back, gone, after a deletion (`restore`, `revert`): the page before it
                if (gap is None or gap["op"] != "delete" or first is None or first["id"] not in gone or first["op"] != "create"
                        or not _BROUGHT_BACK.fullmatch(first["detail"] or "")):
                    break
                end = gap
            if joined or first is None or first["id"] not in gone or first["op"] != "move" or not (first["detail"] or "").startswith("from "):
                break
            cur = first
    return out


def apply_labels(c, joins: list[tuple[int, str | None, str | None]]) -> None:
    """Write :func:`rejoin_labels`' ``(row id, op, detail)`` once the rows have gone; ``op`` None:
    the row goes (a move away, no body, of a round trip gone whole)."""
    for rid, op, detail in joins:
        if op is None:
            c.execute("DELETE FROM history WHERE id = ?", (rid,))
        else:
            c.execute("UPDATE history SET op = ?, detail = ? WHERE id = ?", (op, detail, rid))


def prune(brain, keep_days: int | None, keep_last: int | None, apply: bool = False, include_deleted: bool = False,
          key: tuple[str, str] | None = None) -> dict:
    """Plan (and with ``apply`` carry out) pruning (:func:`prune_plan`; ``key``: one page's or
    file's history only): ``{versions, bodies, bytes, keys, deleted_keys, applied, keep_days,
    keep_last, include_deleted, name, piece_bytes}`` — how many versions and stored bodies go, the
    bytes they free (compressed bodies, plus ``piece_bytes``: the pieces of big files' versions
    that no file and no kept version names, which go with them), and how many deleted pages leave the trash for good (only with
    ``include_deleted``); ``name`` is the key's name (None: the whole brain). A kept version whose
    body was stored against a body that goes is stored on its own (its bytes unchanged), so every
    body a pruned version alone needed goes (``bodies``; ``bytes`` counts them, not that growth)."""
    with brain.transaction():
        ids, summ = prune_plan(brain, keep_days, keep_last, include_deleted=include_deleted, key=key)
        c = brain.conn
        stage_drops(c, ids)
        # bodies still needed: those of kept versions only. A kept body stored as a delta against
        # one no kept version needs is packed on its own first (the same bytes), so the chain of
        # bases behind it goes with the versions pruned
        keep = "SELECT body_id FROM history WHERE body_id IS NOT NULL AND id NOT IN (SELECT id FROM prune_ids)"
        gone = c.execute(f"SELECT COUNT(*), COALESCE(SUM(length(data)), 0) FROM history_bodies WHERE id NOT IN ({keep})").fetchone()
        # a big file's version is a marker (``c``) whose bytes are its pieces: they go with it
        # when no file and no kept version names them (blobs.prune_unused)
        pieces = c.execute(
            "SELECT COALESCE(SUM(length(d.data)), 0) FROM blob_pieces p JOIN blob_data d ON d.id = p.data_id "
            f"WHERE p.hash IN (SELECT hash FROM history_bodies WHERE id NOT IN ({keep}) AND substr(data, 1, 1) = X'63') "
            "AND p.hash NOT IN (SELECT content_hash FROM files WHERE pieces > 0) "
            f"AND p.hash NOT IN (SELECT hash FROM history_bodies WHERE id IN ({keep}) AND substr(data, 1, 1) = X'63')").fetchone()[0]
        out = {"versions": len(ids), "bodies": gone[0], "bytes": gone[1] + pieces, "piece_bytes": pieces, "keys": summ["keys"],
               "deleted_keys": summ["deleted_keys"], "applied": False,
               "keep_days": keep_days, "keep_last": keep_last, "include_deleted": include_deleted, "name": key[1] if key else None}
        if apply:
            joins = rejoin_labels(c, ids)  # (a renamed page's move in pruned: its first version left takes its place)
            joins += _ended_aways(c, set(ids))
            drop_versions(c)
            apply_labels(c, joins)
            out["applied"] = True
        c.execute("DELETE FROM prune_ids")
    return out
