"""brain.db: connection, pragmas and schema migrations.

The schema is the GBrain spec's (pages, page_fts, page_embeddings, links, tags, raw_data,
timeline_entries, ingest_log, config) plus what the byte-exact round trip needs:

* ``pages.path``, ``pages.bom``, ``pages.frontmatter_raw``, ``pages.separator`` and
  ``pages.content_hash`` (sha256 of the file bytes) so a page renders back to its exact bytes;
* ``files``: every non-page file of the tree (``.raw/*.json`` sidecars, index.md/log.md/
  schema.md, attachments, undecodable markdown) as an exact blob;
* ``links.target`` with a nullable ``to_page_id``: unresolved links are kept and resolve when
  their page appears.

Migrations are small named functions, applied in order in one transaction each with the new
``PRAGMA user_version``. Opening a database runs pending migrations forward; a database newer
than this code is refused.
"""
from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import re
import sqlite3
import time
import unicodedata
from pathlib import Path
from typing import Callable, Iterable, Iterator, NamedTuple, Sequence

from ..errors import BadInput, GBrainError
from ..page.slugs import cmd_arg

DEFAULT_DB = "brain.db"
BUSY_TIMEOUT_MS = 10_000
#: how long a write transaction waits for another process's (seconds) before it gives up with
#: "database is locked" (:func:`begin_write`); SQLite's busy timeout alone refused writes under load
WRITE_WAIT_S = 300.0
#: after how long a write still waiting for another process's write lock says so, once
#: (:data:`on_wait`): a terminal silent for up to :data:`WRITE_WAIT_S` looked hung
WAIT_NOTE_S = 2.0
#: called with one line when a write has waited :data:`WAIT_NOTE_S` for another process's write
#: lock and waits on (:func:`begin_write`; Postgres: ``pg.PgConnection``'s ``BEGIN IMMEDIATE``);
#: the command line sets it (a note on stderr); ``serve`` sets None (nobody watches its stderr at
#: a terminal; an MCP client logs it as the server's log)
on_wait: Callable[[str], None] | None = None

#: config key gbrain writes when a person sets ``embedding_model`` (read-only to `config set`)
EMBEDDING_MODEL_CHOSEN = "embedding_model_chosen"

DEFAULT_CONFIG = {
    "version": "1",
    "embedding_model": "text-embedding-3-small",
    "embedding_dimensions": "1536",
    "chunk_strategy": "section",
    "timeline_split": "rule",
}


def tuple_rows(conn, sql: str, params: tuple = ()):
    """Rows of ``sql`` as plain tuples: cheaper to make than ``sqlite3.Row`` for many rows read
    by position, hashable and equal to tuples built in Python (what set operations and
    ``dict``/``set`` built in C need). Postgres' ``pg.Row`` is a tuple subclass already."""
    if getattr(conn, "dialect", "sqlite") == "postgres":
        return conn.execute(sql, params)
    cur = conn.cursor()
    cur.row_factory = None
    return cur.execute(sql, params)


def _exec_script(conn: sqlite3.Connection, script: str) -> None:
    """Run a multi-statement script inside the current transaction (``executescript`` would commit)."""
    stmt = ""
    for line in script.splitlines(keepends=True):
        stmt += line
        if sqlite3.complete_statement(stmt):
            conn.execute(stmt)
            stmt = ""
    if stmt.strip():
        raise ValueError("incomplete SQL statement in migration: " + stmt[:80])


def _m1_initial(conn: sqlite3.Connection) -> None:
    _exec_script(conn, 
        """
CREATE TABLE pages (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  slug TEXT NOT NULL UNIQUE,            -- NFC, no .md: people/pedro-franceschi
  slug_key TEXT NOT NULL,               -- casefolded slug, for case-insensitive lookup
  name_key TEXT NOT NULL,               -- casefolded last path segment, for [[Name]] lookup
  loose_key TEXT NOT NULL DEFAULT '',   -- slugified name, for [[Bruno Okafor]] → bruno-okafor.md
  title_key TEXT NOT NULL DEFAULT '',   -- slugified title, for [[Title]] lookup
  path TEXT NOT NULL UNIQUE,            -- exact relative path as found on disk
  type TEXT NOT NULL,
  title TEXT NOT NULL,
  compiled_truth TEXT NOT NULL DEFAULT '',
  timeline TEXT NOT NULL DEFAULT '',
  frontmatter TEXT NOT NULL DEFAULT '{}',   -- JSON view of the YAML
  frontmatter_raw TEXT NOT NULL DEFAULT '', -- exact original block incl. --- lines
  frontmatter_error TEXT,
  separator TEXT NOT NULL DEFAULT '',       -- exact separator line, '' when no timeline
  bom INTEGER NOT NULL DEFAULT 0,
  content_hash TEXT NOT NULL,               -- sha256 hex of the rendered bytes
  size INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
  updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
CREATE INDEX idx_pages_type ON pages(type);
CREATE INDEX idx_pages_slug_key ON pages(slug_key);
CREATE INDEX idx_pages_name_key ON pages(name_key);
CREATE INDEX idx_pages_loose_key ON pages(loose_key);
CREATE INDEX idx_pages_title_key ON pages(title_key);
CREATE INDEX idx_pages_updated ON pages(updated_at);

CREATE VIRTUAL TABLE page_fts USING fts5(
  title, compiled_truth, timeline,
  content='pages', content_rowid='id',
  tokenize='porter unicode61'
);
CREATE TRIGGER pages_ai AFTER INSERT ON pages BEGIN
  INSERT INTO page_fts(rowid, title, compiled_truth, timeline)
  VALUES (new.id, new.title, new.compiled_truth, new.timeline);
END;
CREATE TRIGGER pages_ad AFTER DELETE ON pages BEGIN
  INSERT INTO page_fts(page_fts, rowid, title, compiled_truth, timeline)
  VALUES ('delete', old.id, old.title, old.compiled_truth, old.timeline);
END;
CREATE TRIGGER pages_au AFTER UPDATE OF title, compiled_truth, timeline ON pages BEGIN
  INSERT INTO page_fts(page_fts, rowid, title, compiled_truth, timeline)
  VALUES ('delete', old.id, old.title, old.compiled_truth, old.timeline);
  INSERT INTO page_fts(rowid, title, compiled_truth, timeline)
  VALUES (new.id, new.title, new.compiled_truth, new.timeline);
END;

CREATE TABLE page_embeddings (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  page_id INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
  chunk_index INTEGER NOT NULL,
  chunk_text TEXT NOT NULL,
  embedding BLOB NOT NULL,                 -- little-endian float32
  model TEXT NOT NULL DEFAULT 'text-embedding-3-small',
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
CREATE INDEX idx_embeddings_page ON page_embeddings(page_id);

CREATE TABLE links (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  from_page_id INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
  to_page_id INTEGER REFERENCES pages(id) ON DELETE SET NULL,  -- NULL: unresolved (dangling)
  kind TEXT NOT NULL DEFAULT 'markdown',   -- markdown | wiki | embed | property (v19)
  target TEXT NOT NULL,                    -- as written, decoded, without .md / #anchor
  target_name TEXT NOT NULL DEFAULT '',    -- loose_key of the target's last segment, to re-resolve
  context TEXT NOT NULL DEFAULT '',
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
  UNIQUE(from_page_id, kind, target)
);
CREATE INDEX idx_links_from ON links(from_page_id);
CREATE INDEX idx_links_to ON links(to_page_id);
CREATE INDEX idx_links_target_name ON links(target_name);

CREATE TABLE tags (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  page_id INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
  tag TEXT NOT NULL,
  UNIQUE(page_id, tag)
);
CREATE INDEX idx_tags_tag ON tags(tag);
CREATE INDEX idx_tags_page_id ON tags(page_id);

CREATE TABLE raw_data (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  page_id INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
  source TEXT NOT NULL,
  data TEXT NOT NULL,
  fetched_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
  UNIQUE(page_id, source)
);
CREATE INDEX idx_raw_data_page ON raw_data(page_id);

CREATE TABLE timeline_entries (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  page_id INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
  date TEXT NOT NULL,
  source TEXT NOT NULL DEFAULT '',
  summary TEXT NOT NULL,
  detail TEXT NOT NULL DEFAULT '',
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
CREATE INDEX idx_timeline_page ON timeline_entries(page_id);
CREATE INDEX idx_timeline_date ON timeline_entries(date);

CREATE TABLE ingest_log (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  source_type TEXT NOT NULL,
  source_ref TEXT NOT NULL,
  pages_updated TEXT NOT NULL DEFAULT '[]',
  summary TEXT NOT NULL DEFAULT '',
  timestamp TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);

CREATE TABLE config (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

-- every file of the tree that is not a page, as exact bytes
CREATE TABLE files (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  path TEXT NOT NULL UNIQUE,
  kind TEXT NOT NULL,             -- raw (a .raw/*.json sidecar) | special (index/log/schema.md) | blob
  data BLOB NOT NULL,
  content_hash TEXT NOT NULL,
  size INTEGER NOT NULL,
  page_id INTEGER REFERENCES pages(id) ON DELETE SET NULL,  -- the page a sidecar belongs to
  updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
CREATE INDEX idx_files_page ON files(page_id);
"""
    )
    conn.executemany("INSERT INTO config(key, value) VALUES (?, ?)", DEFAULT_CONFIG.items())


def _m2_search(conn: sqlite3.Connection) -> None:
    """Semantic search: per-chunk text hash and dims, per-page embed state, a retired-vector cache.

    * ``page_embeddings.text_hash`` (sha256 hex of the chunk text) and ``dims``; rows of several
      models may coexist, queries read only the active model's (index on ``model, text_hash``).
    * ``embed_state``: which page content (``pages.content_hash``) was last embedded with which
      model, so ``embed --stale`` finds changed pages and a killed run resumes page by page.
    * ``embedding_cache``: vectors of chunk rows that were deleted (page edited, renamed or
      removed), keyed by model + text hash, so the same text is never sent to a provider twice.
    """
    _exec_script(conn,
        """
ALTER TABLE page_embeddings ADD COLUMN text_hash TEXT NOT NULL DEFAULT '';
ALTER TABLE page_embeddings ADD COLUMN dims INTEGER NOT NULL DEFAULT 0;
CREATE INDEX idx_embeddings_model_hash ON page_embeddings(model, text_hash);
CREATE INDEX idx_embeddings_model_id ON page_embeddings(model, id);  -- loading one model in id order

CREATE TABLE embed_state (
  page_id INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
  model TEXT NOT NULL,
  content_hash TEXT NOT NULL,            -- pages.content_hash when the page was embedded
  chunks INTEGER NOT NULL DEFAULT 0,
  embedded_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
  PRIMARY KEY (page_id, model)
);

CREATE TABLE embedding_cache (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  model TEXT NOT NULL,
  text_hash TEXT NOT NULL,
  dims INTEGER NOT NULL,
  embedding BLOB NOT NULL,               -- little-endian float32, unit length
  UNIQUE (model, text_hash)
);
CREATE TRIGGER page_embeddings_retire AFTER DELETE ON page_embeddings WHEN old.text_hash != '' BEGIN
  INSERT OR IGNORE INTO embedding_cache(model, text_hash, dims, embedding)
  VALUES (old.model, old.text_hash, old.dims, old.embedding);
END;
"""
    )


def _m3_sync(conn: sqlite3.Connection) -> None:
    """Sync state: the bound folder, per-path base hashes, trash (until v7), conflicts and the change log.

    The change log is written by triggers on ``pages`` and ``files``, so every write by any
    process (CLI, MCP server, a second watcher) lands in the log in the same transaction as the
    page itself. It is only written while the brain is bound to a folder (a row in sync_root);
    see :mod:`gbrain.sync.engine` for how the tables are used.
    """
    _exec_script(conn,
        """
-- the folder this brain is kept equal to (at most one row)
CREATE TABLE sync_root (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  root TEXT NOT NULL,                 -- absolute path of the folder
  cursor INTEGER NOT NULL DEFAULT 0,  -- last change_log.seq applied to the folder
  bound_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
  synced_at TEXT
);

-- one row per path that was in sync on both sides at the last reconciliation
CREATE TABLE sync_state (
  path TEXT PRIMARY KEY,              -- exact relative path, '/'-separated
  size INTEGER NOT NULL,              -- st_size when disk_hash was computed
  mtime_ns INTEGER NOT NULL,          -- change stamp max(st_mtime_ns, st_ctime_ns) then; 0 = racy, re-hash
  disk_hash TEXT NOT NULL,            -- sha256 of the file bytes at (size, mtime_ns)
  base_hash TEXT NOT NULL             -- sha256 last synced on both sides (file == DB)
);
CREATE INDEX idx_sync_state_base ON sync_state(base_hash);  -- move detection by content

-- pages and files removed from the brain because their file was deleted (or deleted via gbrain);
-- v7 moves its rows into the history and drops it (the trash is a view of the history)
CREATE TABLE sync_trash (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  path TEXT NOT NULL,
  slug TEXT,                          -- set for pages
  kind TEXT NOT NULL,                 -- page | raw | special | blob
  data BLOB NOT NULL,                 -- exact bytes
  content_hash TEXT NOT NULL,
  reason TEXT NOT NULL,               -- file deleted | deleted in brain | folder removed
  deleted_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
CREATE INDEX idx_sync_trash_slug ON sync_trash(slug);
CREATE INDEX idx_sync_trash_path ON sync_trash(path);

-- both sides changed since the base: the file won, the DB's version was kept as copy_path
CREATE TABLE sync_conflicts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  path TEXT NOT NULL,                 -- the contested path
  copy_path TEXT,                     -- where the losing version was kept (NULL: nothing to keep)
  kind TEXT NOT NULL,                 -- both-changed | no-base | deleted-on-disk | deleted-in-brain
  file_hash TEXT,
  db_hash TEXT,
  base_hash TEXT,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);

-- every page/file write while bound: written by triggers in the writer's transaction
CREATE TABLE change_log (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  path TEXT NOT NULL,
  op TEXT NOT NULL,                   -- insert | update | delete
  content_hash TEXT,                  -- NULL for delete
  at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);

CREATE TRIGGER pages_changelog_ai AFTER INSERT ON pages WHEN EXISTS (SELECT 1 FROM sync_root) BEGIN
  INSERT INTO change_log(path, op, content_hash) VALUES (new.path, 'insert', new.content_hash);
END;
CREATE TRIGGER pages_changelog_au AFTER UPDATE OF path, content_hash ON pages
  WHEN EXISTS (SELECT 1 FROM sync_root) AND (old.path IS NOT new.path OR old.content_hash IS NOT new.content_hash) BEGIN
  INSERT INTO change_log(path, op, content_hash) SELECT old.path, 'delete', NULL WHERE old.path IS NOT new.path;
  INSERT INTO change_log(path, op, content_hash) VALUES (new.path, 'update', new.content_hash);
END;
CREATE TRIGGER pages_changelog_ad AFTER DELETE ON pages WHEN EXISTS (SELECT 1 FROM sync_root) BEGIN
  INSERT INTO change_log(path, op, content_hash) VALUES (old.path, 'delete', NULL);
END;
CREATE TRIGGER files_changelog_ai AFTER INSERT ON files WHEN EXISTS (SELECT 1 FROM sync_root) BEGIN
  INSERT INTO change_log(path, op, content_hash) VALUES (new.path, 'insert', new.content_hash);
END;
CREATE TRIGGER files_changelog_au AFTER UPDATE OF path, content_hash ON files
  WHEN EXISTS (SELECT 1 FROM sync_root) AND (old.path IS NOT new.path OR old.content_hash IS NOT new.content_hash) BEGIN
  INSERT INTO change_log(path, op, content_hash) SELECT old.path, 'delete', NULL WHERE old.path IS NOT new.path;
  INSERT INTO change_log(path, op, content_hash) VALUES (new.path, 'update', new.content_hash);
END;
CREATE TRIGGER files_changelog_ad AFTER DELETE ON files WHEN EXISTS (SELECT 1 FROM sync_root) BEGIN
  INSERT INTO change_log(path, op, content_hash) VALUES (old.path, 'delete', NULL);
END;
"""
    )


def _m4_history(conn: sqlite3.Connection) -> None:
    """Page and file history: every version written, each distinct body once (compressed), with
    its origin; written by triggers in the writer's transaction. Pages and files present now are
    recorded as version 1 (``baseline``). See :mod:`gbrain.core.history`."""
    from ..core.history import migration_sql

    _exec_script(conn, migration_sql())


def _m5_obsidian(conn: sqlite3.Connection) -> None:
    """Obsidian meaning: page aliases and tag identity, then every page's derived rows again.

    * ``aliases``: one row per frontmatter alias (``aliases``/``alias``), as written, with its
      identity key (NFC + casefold, for naming a page) and its loose key (for ``[[Alias]]`` links).
    * ``tags.tag_key``: the tag's identity (NFC + casefold; NFC + lowercase since v65,
      ``slugs.tag_identity``): ``Founder``/``founder`` and ``café`` typed precomposed or
      decomposed are one tag; ``tags.tag`` keeps the spelling as written.
      ``tags.inline`` is 1 for a tag written only in the body (``#tag``), not in ``tags:``.
    * ``links.count`` / ``links.forms``: how many times a page links one target and the forms
      written (JSON list: ``[[Note#Heading]]``, ``![[Note]]``, ``(note.md)``), so ``links`` and
      ``backlinks`` list each linked page once with how and how often it is linked.

    Existing pages are re-derived from their stored text (tags incl. inline ones, aliases,
    titles, links), so an upgraded brain equals a fresh import of the same tree.
    """
    _exec_script(conn,
        """
CREATE TABLE aliases (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  page_id INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
  alias TEXT NOT NULL,                 -- as written in the frontmatter (stripped)
  alias_key TEXT NOT NULL,             -- NFC + casefold: naming a page by its alias
  loose_key TEXT NOT NULL DEFAULT '',  -- slugified alias: [[Alias]] link resolution
  UNIQUE(page_id, alias_key)
);
CREATE INDEX idx_aliases_key ON aliases(alias_key);
CREATE INDEX idx_aliases_loose ON aliases(loose_key);
CREATE INDEX idx_aliases_page ON aliases(page_id);
ALTER TABLE tags ADD COLUMN tag_key TEXT NOT NULL DEFAULT '';
ALTER TABLE tags ADD COLUMN inline INTEGER NOT NULL DEFAULT 0;
CREATE INDEX idx_tags_tag_key ON tags(tag_key);
ALTER TABLE links ADD COLUMN count INTEGER NOT NULL DEFAULT 1;
ALTER TABLE links ADD COLUMN forms TEXT NOT NULL DEFAULT '[]';
"""
    )
    from .derive import rederive_all

    rederive_all(conn)


#: the columns of ``page_fts`` as v6 made it (v21 added ``search_cjk``: :data:`_FTS_COLS`)
_FTS_COLS_V6 = "title, search_aliases, path, search_headings, compiled_truth, timeline, search_words"
#: the columns of ``page_fts`` (``search/keyword.py: COLUMNS``, in this order)
_FTS_COLS = _FTS_COLS_V6 + ", search_cjk"
#: the columns of ``page_fts`` since v63 (``search_fold_names``: the names' folded words, title weight)
_FTS_COLS_V63 = _FTS_COLS + ", search_fold_names"


def _m6_fields(conn: sqlite3.Connection) -> None:
    """Known-item search: the FTS index gets a page's aliases, path, headings and the words the
    tokenizer cannot see, each as its own column so ranking can weight it (``search/keyword.py``).

    * ``pages.search_aliases``: frontmatter ``aliases``/``alias`` values, one per line;
    * ``pages.search_headings``: the text of the page's headings, one per line;
    * ``pages.search_words``: ASCII words glued to CJK text (``重跑gen-itgc后`` → ``gen itgc``),
      which unicode61 keeps inside one token.

    All three are derived from the page text on every save (``search.search_fields``), so a
    fresh import and incremental saves give the same rows; existing pages are filled here.
    ``page_fts`` is rebuilt with the columns of ``_FTS_COLS`` (external content: no copy of the
    text), its triggers fire on every indexed column, ``path`` included (a rename changes it).
    """
    from ..core.brain import render_row
    from ..page.markdown import parse_page
    from ..search.keyword import search_fields

    have = {r[1] for r in conn.execute("PRAGMA table_info(pages)")}
    for col in ("search_aliases", "search_headings", "search_words"):
        if col not in have:  # (a brain whose user_version was set back already has them)
            conn.execute(f"ALTER TABLE pages ADD COLUMN {col} TEXT NOT NULL DEFAULT ''")
    _exec_script(conn,
        """
DROP TRIGGER IF EXISTS pages_ai;
DROP TRIGGER IF EXISTS pages_ad;
DROP TRIGGER IF EXISTS pages_au;
DROP TABLE IF EXISTS page_fts;
"""
    )
    cur = conn.execute("SELECT * FROM pages")
    names = [d[0] for d in cur.description]
    for t in cur.fetchall():
        r = dict(zip(names, t))
        page = parse_page(render_row(r), r["path"])
        f = search_fields(page)
        conn.execute("UPDATE pages SET search_aliases = ?, search_headings = ?, search_words = ? WHERE id = ?", (f["search_aliases"], f["search_headings"], f["search_words"], r["id"]))
    _create_fts(conn, _FTS_COLS_V6)


def _create_fts(conn: sqlite3.Connection, cols: str) -> None:
    """``page_fts`` over the ``pages`` columns ``cols`` (external content), its three triggers
    (every indexed column), and the index built from the stored pages ('rebuild')."""
    new = ", ".join("new." + c.strip() for c in cols.split(","))
    old = ", ".join("old." + c.strip() for c in cols.split(","))
    _exec_script(conn,
        f"""
CREATE VIRTUAL TABLE page_fts USING fts5(
  {cols},
  content='pages', content_rowid='id',
  tokenize='porter unicode61'
);
CREATE TRIGGER pages_ai AFTER INSERT ON pages BEGIN
  INSERT INTO page_fts(rowid, {cols}) VALUES (new.id, {new});
END;
CREATE TRIGGER pages_ad AFTER DELETE ON pages BEGIN
  INSERT INTO page_fts(page_fts, rowid, {cols}) VALUES ('delete', old.id, {old});
END;
CREATE TRIGGER pages_au AFTER UPDATE OF {cols} ON pages BEGIN
  INSERT INTO page_fts(page_fts, rowid, {cols}) VALUES ('delete', old.id, {old});
  INSERT INTO page_fts(rowid, {cols}) VALUES (new.id, {new});
END;
INSERT INTO page_fts(page_fts) VALUES ('rebuild');
"""
    )


def _m7_trash(conn: sqlite3.Connection) -> None:
    """The trash becomes a view of the history: ``history.trashed`` (why a version that a writer
    replaced went to the trash) and every row of v3's ``sync_trash`` moved into the history
    (nothing lost), then ``sync_trash`` dropped. See :func:`gbrain.core.history.trash_migration`."""
    from ..core.history import trash_migration

    trash_migration(conn)


def _m8_clients(conn: sqlite3.Connection) -> None:
    """Sync state per client (issue 16): ``client`` on ``sync_root`` and ``sync_state``, so the
    brain can keep one base per folder that syncs with it. A SQLite brain has one client, ``''``
    (one folder per brain file, as before: its one row keeps ``id = 1``); a Postgres brain has one
    per machine and folder (:func:`sync_client`)."""
    for t in ("sync_root", "sync_state"):
        if "client" not in {r[1] for r in conn.execute(f"PRAGMA table_info({t})")}:  # (set back: already there)
            conn.execute(f"ALTER TABLE {t} ADD COLUMN client TEXT NOT NULL DEFAULT ''")
    conn.execute("CREATE UNIQUE INDEX IF NOT EXISTS idx_sync_state_client_path ON sync_state(client, path)")


def sync_client(conn, root: str | os.PathLike) -> str:
    """The sync client id of folder ``root`` on this brain: ``''`` on SQLite (one folder per brain
    file); on Postgres ``host:/absolute/folder`` (``socket.gethostname()``), so every machine and
    folder keeps its own base hashes and change-log cursor (many people, one team brain)."""
    if getattr(conn, "dialect", "sqlite") != "postgres":
        return ""
    import socket

    return f"{socket.gethostname()}:{os.path.abspath(os.path.expanduser(str(root)))}"


def bind_client(conn, client: str, root: str, machine: str = "") -> None:
    """Add the binding row of ``client`` (folder ``root``, synced by the machine of key
    ``machine``: ``SyncEngine``'s :func:`gbrain.sync.engine.machine_key`, '' unknown), its cursor at
    the end of the change log, ``bound_at`` to the millisecond (a deletion in the same second after
    it is after it: ``SyncEngine._disk_history``), inside the caller's write transaction."""
    conn.execute(
        "INSERT INTO sync_root(id, client, root, cursor, bound_at, machine) VALUES ((SELECT COALESCE(MAX(id), 0) + 1 FROM sync_root), ?, ?, (SELECT COALESCE(MAX(seq), 0) FROM change_log), "
        "strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), ?)",
        (client, root, machine),
    )


def forget_client(conn, client: str) -> dict:
    """Drop sync client ``client``: its base hashes (``sync_state``) and its binding
    (``sync_root``), inside the caller's write transaction; then the change-log rows no live client
    still needs go (:func:`expire_sync_clients`), and ``history-prune`` keeps no version for its
    bases any more. The folder's next sync is a first sync. Returns ``{"paths": N, "log_rows": M}``:
    the base rows dropped and the change-log rows trimmed."""
    n = conn.execute("SELECT count(*) FROM sync_state WHERE client = ?", (client,)).fetchone()[0]
    conn.execute("DELETE FROM sync_state WHERE client = ?", (client,))
    conn.execute("DELETE FROM sync_root WHERE client = ?", (client,))
    before = conn.execute("SELECT count(*) FROM change_log").fetchone()[0]
    expire_sync_clients(conn)
    return {"paths": n, "log_rows": before - conn.execute("SELECT count(*) FROM change_log").fetchone()[0]}


#: days a sync client may go unseen before it is expired (config ``sync_client_expire_days``;
#: 0 = never)
EXPIRE_DAYS_DEFAULT = 30
#: the change-log row numbers that expire clients and trim the log (one insert in this many)
EXPIRE_EVERY = 256
_EXPIRE_DAYS = f"CAST(COALESCE(NULLIF(TRIM((SELECT value FROM config WHERE key = 'sync_client_expire_days')), ''), '{EXPIRE_DAYS_DEFAULT}') AS INTEGER)"
#: SQLite: a client unseen (``synced_at``, else ``bound_at``) for longer than the configured days
#: gets ``cursor = -1`` (expired: its base hashes stay, its place in the change log is dropped)
EXPIRE_SQL = (f"UPDATE sync_root SET cursor = -1 WHERE cursor >= 0 AND {_EXPIRE_DAYS} > 0 AND COALESCE(synced_at, bound_at) < "
              f"strftime('%Y-%m-%dT%H:%M:%SZ', 'now', '-' || {_EXPIRE_DAYS} || ' days')")
#: SQLite: the log rows every live client has applied (all of them below ``{upto}`` when none is live)
TRIM_SQL = "DELETE FROM change_log WHERE seq < {upto} AND seq <= COALESCE((SELECT MIN(cursor) FROM sync_root WHERE cursor >= 0), {upto})"


def _m11_client_expiry(conn: sqlite3.Connection) -> None:
    """Sync clients expire (issue 16): a folder not synced for ``sync_client_expire_days`` (30)
    days no longer holds the change log back. A trigger on every :data:`EXPIRE_EVERY`-th
    change-log row, in the writer's transaction (so the log stays bounded even when no client
    syncs any more and only ``put``s write), expires such clients and deletes the rows every
    live client has applied. An expired client keeps its base hashes: when it comes back its
    sync compares every path three ways (disk, brain, base), which needs no log, and it is live
    again (:func:`expire_sync_clients`, :meth:`gbrain.sync.engine.SyncEngine.sync`)."""
    _exec_script(conn, f"""
CREATE TRIGGER IF NOT EXISTS change_log_expire AFTER INSERT ON change_log WHEN new.seq % {EXPIRE_EVERY} = 0 BEGIN
  {EXPIRE_SQL};
  {TRIM_SQL.format(upto="new.seq")};
END;
""")


def expire_sync_clients(conn) -> None:
    """Expire the sync clients unseen for longer than ``sync_client_expire_days`` and delete the
    change-log rows every live client has applied (inside the caller's write transaction; both
    engines). What the ``change_log_expire`` trigger does every :data:`EXPIRE_EVERY` rows."""
    if is_postgres(conn):
        conn.execute("SELECT gb_expire_clients((SELECT COALESCE(MAX(seq), 0) + 1 FROM change_log))")
        return
    conn.execute(EXPIRE_SQL)
    conn.execute(TRIM_SQL.format(upto="(SELECT COALESCE(MAX(seq), 0) + 1 FROM change_log)"))


#: (v9) what sync, import and verify read of every path: index-only scans instead of reading
#: every page's text (a 50,000-page brain's table is ~0.5 GB)
COVERING_SQL = """
CREATE INDEX IF NOT EXISTS idx_pages_path_hash ON pages(path, content_hash);
CREATE INDEX IF NOT EXISTS idx_files_path_hash ON files(path, content_hash, kind);
CREATE INDEX IF NOT EXISTS idx_pages_fm_error ON pages(frontmatter_error) WHERE frontmatter_error IS NOT NULL;
"""


def _m9_pieces(conn: sqlite3.Connection) -> None:
    """Big files in pieces (:mod:`gbrain.storage.blobs`): ``blob_data`` / ``blob_pieces`` and
    ``files.pieces``; the file history triggers mark a body stored in pieces (``c``) instead of
    packing a copy (:func:`gbrain.core.history.pieces_triggers_sql`). Files bigger than
    ``blobs.BIG`` stored whole before are moved into pieces, read piece by piece from their row
    (``blobopen``), and their current history body becomes the marker when no other body uses it
    as its deflate dictionary; every other byte stays where it was. Also the covering indexes
    of :data:`COVERING_SQL`."""
    from ..core.history import MAX_DEPTH, pieces_triggers_sql
    from . import blobs

    _exec_script(conn, blobs.MIGRATION_SQL)
    if "pieces" not in {r[1] for r in conn.execute("PRAGMA table_info(files)")}:  # (a brain whose user_version was set back has it)
        conn.execute(blobs.PIECES_COLUMN)
    _exec_script(conn, pieces_triggers_sql())
    _exec_script(conn, COVERING_SQL)
    for fid, hx, size in conn.execute("SELECT id, content_hash, size FROM files WHERE size > ?", (blobs.BIG,)).fetchall():
        n = blobs.has_pieces(conn, hx)
        if not n:
            with conn.blobopen("files", "data", fid, readonly=True) as b:
                got, _, n = blobs.store_stream(conn, b)
            if got != hx:  # not the bytes its hash names: leave the row as it was
                continue
        conn.execute("UPDATE files SET data = X'', pieces = ? WHERE id = ?", (n, fid))
    conn.execute(
        f"UPDATE history_bodies SET data = X'63', depth = {MAX_DEPTH}, base_id = NULL WHERE hash IN (SELECT content_hash FROM files WHERE pieces > 0) "
        "AND id NOT IN (SELECT base_id FROM history_bodies WHERE base_id IS NOT NULL AND substr(data, 1, 1) = X'64')")


def _m10_embed_stale(conn: sqlite3.Connection) -> None:
    """Embeddings go stale when the text they were made from changes, not only the page bytes.

    A page's chunks are made from its title, compiled truth and timeline. A move that changes a
    title taken from the file name, or a new ``timeline_split``, changes them while
    ``pages.content_hash`` stays the same, so ``embed_state.content_hash = pages.content_hash``
    said "fresh" for chunks carrying the old text. The trigger ``pages_embed_stale`` clears
    ``embed_state.content_hash`` (so it equals no page) whenever one of the three changes, in the
    writer's transaction, whichever process writes; ``pages_embed_same_text`` carries the new
    content hash over to fresh rows when the bytes changed but those three did not (a tag or
    another frontmatter edit), so such a page stays fresh, as it is after a fresh import and
    embed. Rows already wrong when this runs are found by their chunk text: every chunk starts
    with the page's title (``chunking.chunk_page``).
    """
    _exec_script(conn,
        """
CREATE TRIGGER IF NOT EXISTS pages_embed_stale AFTER UPDATE OF title, compiled_truth, timeline ON pages
WHEN old.title IS NOT new.title OR old.compiled_truth IS NOT new.compiled_truth OR old.timeline IS NOT new.timeline
BEGIN
  UPDATE embed_state SET content_hash = '' WHERE page_id = new.id AND content_hash != '';
END;
CREATE TRIGGER IF NOT EXISTS pages_embed_same_text AFTER UPDATE OF content_hash ON pages
WHEN old.content_hash IS NOT new.content_hash
  AND old.title IS new.title AND old.compiled_truth IS new.compiled_truth AND old.timeline IS new.timeline
BEGIN
  UPDATE embed_state SET content_hash = new.content_hash WHERE page_id = new.id AND content_hash = old.content_hash;
END;
UPDATE embed_state SET content_hash = '' WHERE content_hash != '' AND EXISTS (
  SELECT 1 FROM page_embeddings e JOIN pages p ON p.id = e.page_id
  WHERE e.page_id = embed_state.page_id AND e.model = embed_state.model
    AND p.title != '' AND p.title = trim(p.title) AND instr(p.title, '  ') = 0
    AND instr(p.title, char(9)) = 0 AND instr(p.title, char(10)) = 0 AND instr(p.title, char(13)) = 0 AND length(p.title) < 100
    AND substr(e.chunk_text, 1, length(p.title)) != p.title);
"""
    )


def _m12_nearest_links(conn: sqlite3.Connection) -> None:
    """A link whose name several pages share resolves to the one sharing the most leading folders
    with the linking page (``[[Canvas]]`` in ``en/…`` → ``en/Plugins/Canvas``), then the shortest
    path (was: the shortest path only): every stored link is resolved again."""
    from .derive import relink_all

    relink_all(conn)


def _m13_chunking(conn: sqlite3.Connection) -> None:
    """Embeddings go stale when the way a model's pages are cut into chunks changes, not only
    their text: ``embed_state.chunking`` records the chunking version
    (:func:`gbrain.search.embeddings.chunking_version`) each page was embedded with, and ``embed
    --stale`` re-chunks the pages whose version differs from the model's (``minilm`` 2: its
    220-token chunks plus the ~500-token ones). Rows written before this migration were cut
    with version 1; the vectors of chunk texts that stay the same are reused by text hash, so a
    re-chunk embeds only the new texts."""
    if "chunking" not in {r[1] for r in conn.execute("PRAGMA table_info(embed_state)")}:  # (a brain whose user_version was set back has it)
        conn.execute("ALTER TABLE embed_state ADD COLUMN chunking INTEGER NOT NULL DEFAULT 1")


def rederive_search_words(conn) -> int:
    """Recompute every page's ``search_words`` (:func:`gbrain.search.keyword.search_words`) from
    its stored compiled truth, timeline, frontmatter JSON, title and path, no parse, and write the ones that
    differ, in the caller's transaction (SQLite: the FTS5 trigger re-indexes them; Postgres: the
    generated ``search_tsv`` follows). For the migration that added the frontmatter's words
    (SQLite v14, Postgres v12). Returns how many pages changed."""
    return _rewrite_search_words(conn, conn.execute("SELECT id, compiled_truth, timeline, frontmatter, title, path, search_words FROM pages").fetchall())


#: the most values one ``IN (…)`` list binds (:func:`in_parts`): bounded statements, far under
#: SQLite's parameter limit (999 before 3.32) with the few other parameters beside it
IN_MAX = 500


def in_parts(values: Sequence, n: int = IN_MAX) -> Iterator[tuple[Sequence, str]]:
    """``values`` (a list or tuple) in consecutive slices of at most ``n``, each with the
    placeholders of an ``IN (…)`` list of it (``"?, ?, ?"``): ``for part, marks in
    in_parts(ids): conn.execute(f"… WHERE id IN ({marks})", part)``. Nothing for no values."""
    for i in range(0, len(values), n):
        part = values[i : i + n]
        yield part, ", ".join("?" * len(part))


def keyset_batches(conn, table: str, cols: str, where: str = "", params: Sequence = (), n: int = IN_MAX) -> Iterator[list]:
    """The rows of ``table`` (columns ``cols``, text, the first one ``id``) that ``where`` (SQL,
    with ``?`` for ``params``; "" for every row) selects, in id order, ``n`` rows per statement
    (``WHERE id > last … ORDER BY id LIMIT n``): a list of at most ``n`` rows at a time, so neither
    engine's cursor holds more (Postgres' holds a whole answer in memory, not a row). Each
    statement runs when the caller asks for the next list, so the caller may write the rows it was
    given meanwhile (on the same connection, in its transaction). Both engines."""
    cond = f" AND ({where})" if where else ""
    last = -1
    while True:
        rows = conn.execute(f"SELECT {cols} FROM {table} WHERE id > ?{cond} ORDER BY id LIMIT {int(n)}", (last, *params)).fetchall()
        if not rows:
            return
        last = rows[-1][0]
        yield rows


#: the columns of a page's text, as :func:`page_text_batches` gives them (the text is
#: ``"\ufeff" if bom`` + ``frontmatter_raw + compiled_truth + separator + timeline``)
PAGE_TEXT_COLS = "id, path, bom, frontmatter_raw, compiled_truth, separator, timeline"


def page_text_batches(conn, where: str = "", params: Sequence = (), n: int = IN_MAX) -> Iterator[list]:
    """The texts of the pages ``where`` selects (SQL over ``pages`` with ``?`` for ``params``;
    "" for every page), ``n`` (500) pages at a time by id (:func:`keyset_batches`): lists of
    ``(id, path, bom, frontmatter_raw, compiled_truth, separator, timeline)`` rows
    (:data:`PAGE_TEXT_COLS`), in id order. For migrations that read many pages' texts; both engines."""
    return keyset_batches(conn, "pages", PAGE_TEXT_COLS, where, params, n)


def _batched_update(conn, sql: str, rows: list[tuple], batch: int = 500) -> int:
    """Run ``sql`` (one row's UPDATE) for each of ``rows``, ``batch`` rows per ``executemany``, in
    the caller's transaction (the column fills of released migrations). Returns ``len(rows)``."""
    for i in range(0, len(rows), batch):
        conn.executemany(sql, rows[i : i + batch])
    return len(rows)


def _rewrite_search_words(conn, rows) -> int:
    """Recompute ``search_words`` of ``rows`` (``(id, compiled_truth, timeline, frontmatter
    JSON, title, path, search_words)``) from those stored columns (no parse) and write the ones
    that differ, 500 per statement, in the caller's transaction. Returns how many changed."""
    from ..search.keyword import search_words

    updates = []
    for pid, ct, tl, fm, title, path, old in rows:
        if isinstance(fm, (str, bytes)):
            try:
                fm = json.loads(fm) if fm else {}
            except ValueError:
                fm = {}
        new = search_words(ct or "", tl or "", fm if isinstance(fm, dict) else {}, (title or "", path or ""))
        if new != (old or ""):
            updates.append((new, pid))
    return _batched_update(conn, "UPDATE pages SET search_words = ? WHERE id = ?", updates)


def _m14_frontmatter_words(conn: sqlite3.Connection) -> None:
    """Search reads the frontmatter too: every string value but the title, aliases, dates and
    URLs (``tags``, ``status``…) joins ``pages.search_words`` (:func:`gbrain.search.keyword.search_words`),
    recomputed here from the stored columns (no parse); the FTS5 trigger re-indexes the pages
    that change."""
    rederive_search_words(conn)


def rederive_compat_words(conn) -> int:
    """Recompute ``search_words`` (:func:`gbrain.search.keyword.search_words`) of the pages whose
    compiled truth, timeline, frontmatter JSON, title or path is not in Unicode NFKC (the only pages whose
    words gained compatibility forms, :func:`gbrain.search.keyword.compat_words`) and write the
    ones that differ, in the caller's transaction. SQLite reads each page's text once and skips
    ASCII text in O(1) (``str.isascii``), other NFKC text with ``unicodedata.is_normalized`` and
    text whose only compatibility characters are spaces and punctuation (``keyword._no_compat_words``);
    Postgres selects the pages with ``IS NFKC NORMALIZED`` in the server, so a brain with none
    sends no text at all. For SQLite v15 / Postgres v13. Returns how many pages changed."""
    from ..search.keyword import _no_compat_words

    cols = "id, compiled_truth, timeline, frontmatter, title, path, search_words"
    if is_postgres(conn):
        rows = conn.execute(f"SELECT {cols} FROM pages WHERE NOT (compiled_truth IS NFKC NORMALIZED AND timeline IS NFKC NORMALIZED "
                            "AND frontmatter IS NFKC NORMALIZED AND title IS NFKC NORMALIZED AND path IS NFKC NORMALIZED)").fetchall()
    else:
        ids = [r[0] for r in conn.execute("SELECT id, compiled_truth, timeline, frontmatter, title, path FROM pages")
               if not all(_no_compat_words(x or "") for x in r[1:])]
        rows = [conn.execute(f"SELECT {cols} FROM pages WHERE id = ?", (pid,)).fetchone() for pid in ids]
    return _rewrite_search_words(conn, rows)


def rederive_letter_words(conn, letters: "dict[str, str] | None" = None) -> int:
    """Recompute ``search_words`` of the pages whose compiled truth, timeline, frontmatter JSON,
    title or path holds a letter of ``letters`` (default :data:`gbrain.page.slugs.LETTER_FOLD`:
    a letter :func:`gbrain.search.keyword.fold_letters` spells in ASCII, ``Łukasz`` → ``Lukasz``,
    ``Søren`` → ``Soren``: their ASCII words join the page's compatibility words; v68 / v73 pass
    :data:`~gbrain.page.slugs.SCRIPT_FOLD`, ``ё`` and Greek accents; v77 / v85 a string, the body of a
    character class, ``keyword._SPELT``'s: Arabic vowel marks, ``đ Đ``), writing the ones that
    differ, in the caller's transaction. Postgres selects those pages in the server. For SQLite
    v54 / Postgres v56, SQLite v68 / Postgres v73 and SQLite v77 / Postgres v85. Returns how many changed."""
    from ..search.keyword import LETTER_FOLD

    cls = "[" + "".join(LETTER_FOLD if letters is None else letters) + "]"
    cols = "id, compiled_truth, timeline, frontmatter, title, path, search_words"
    if is_postgres(conn):
        rows = conn.execute(f"SELECT {cols} FROM pages WHERE concat_ws(' ', compiled_truth, timeline, frontmatter::text, title, path) ~ ?",
                            (cls,)).fetchall()
    else:
        holds = re.compile(cls).search
        ids = [r[0] for r in conn.execute("SELECT id, compiled_truth, timeline, frontmatter, title, path FROM pages")
               if any(x and not x.isascii() and holds(x) for x in r[1:])]
        rows = [conn.execute(f"SELECT {cols} FROM pages WHERE id = ?", (pid,)).fetchone() for pid in ids]
    return _rewrite_search_words(conn, rows)


def _m15_compat_words(conn: sqlite3.Connection) -> None:
    """Keyword search folds Unicode compatibility characters (NFKC): a page whose text has
    ligatures (``ﬁnancial``), full-width letters (``ＧＰＴ４``), superscripts… is indexed under
    their plain words too (``pages.search_words``, :func:`gbrain.search.keyword.compat_words`),
    recomputed here for those pages only (:func:`rederive_compat_words`); the FTS5 trigger
    re-indexes the pages that change. Queries are folded the same way (``search_form``)."""
    rederive_compat_words(conn)


def _m16_writer(conn: sqlite3.Connection) -> None:
    """Who wrote each version: ``history.writer`` (the writer's :func:`gbrain.storage.origin.identity`,
    ``$GBRAIN_USER`` or ``login@host``), filled by the history triggers, re-created here, from
    ``gb_origin(3)`` in the writer's own transaction. Rows written before stay '' (unknown: no
    guess). See :func:`gbrain.core.history.writer_sql`."""
    from ..core.history import writer_sql

    have = "writer" in {r[1] for r in conn.execute("PRAGMA table_info(history)")}  # (a brain whose user_version was set back has it)
    _exec_script(conn, writer_sql(add_column=not have))


#: the pages whose derived rows the Obsidian trial's page-model fixes can change (SQL over the
#: stored columns; more pages than change is harmless): a frontmatter that did not load (an
#: impossible date dropped it all), a footnote (``[^``), a ``tag`` key in the frontmatter
#: JSON, a ``$`` with a ``#`` after it (inline math hiding a tag)
_TRIAL_PAGES = ("SELECT id FROM pages WHERE frontmatter_error IS NOT NULL OR compiled_truth LIKE ? OR timeline LIKE ? "
                "OR frontmatter LIKE ? OR compiled_truth LIKE ? OR timeline LIKE ? ORDER BY id")
_TRIAL_ARGS = ("%[^%", "%[^%", '%"tag":%', "%$%#%", "%$%#%")


def rederive_trial_pages(conn) -> int:
    """Re-derive, from their stored text, the pages the Obsidian trial's page-model fixes can
    change (:data:`_TRIAL_PAGES`): an impossible date kept as text (the frontmatter loads),
    footnotes that are no links, the singular ``tag:`` key, inline ``$…$`` math hiding tags
    (:func:`rederive_pages`). For SQLite v17 / Postgres v15, in the caller's transaction.
    Returns how many pages were parsed."""
    return rederive_pages(conn, _TRIAL_PAGES, _TRIAL_ARGS)


#: the pages that may hold a link in a property (a wiki link in a frontmatter value)
_PROPERTY_LINK_PAGES = ("SELECT id FROM pages WHERE frontmatter_raw LIKE ? ORDER BY id", ("%[[%",))


def rederive_property_link_pages(conn) -> int:
    """Re-derive, from their stored text, the pages whose frontmatter text holds ``[[``
    (:data:`_PROPERTY_LINK_PAGES`): the wiki links in property values
    (``related: "[[Acme]]"``, :func:`gbrain.page.markdown.property_links`) become links of kind
    ``property`` (:func:`rederive_pages`). For SQLite v19 / Postgres v17, in the caller's
    transaction (SQLite or Postgres connection). Returns how many pages were parsed."""
    return rederive_pages(conn, *_PROPERTY_LINK_PAGES)


#: the pages that may hold an inline ``%% … %%`` comment (v22): a body with ``%%``
_COMMENT_PAGES = ("SELECT id FROM pages WHERE compiled_truth LIKE ? ESCAPE '!' OR timeline LIKE ? ESCAPE '!' ORDER BY id",
                  ("%!%!%%", "%!%!%%"))


def rederive_comment_pages(conn) -> int:
    """Re-derive, from their stored text, the pages whose body holds ``%%``
    (:data:`_COMMENT_PAGES`): a link inside an inline Obsidian comment (``a %%[[x]]%% b``) is no
    link (:func:`gbrain.page.markdown._outside_comments`; :func:`rederive_pages`). For SQLite
    v22 / Postgres v22, in the caller's transaction. Returns how many pages were parsed."""
    return rederive_pages(conn, *_COMMENT_PAGES)


def resplit_comment_pages(conn) -> int:
    """Split again, from their stored text, the pages with a timeline separator whose compiled
    truth holds ``%%``: a ``---`` below a ``%%`` comment left open above it is inside the comment
    (Obsidian hides the rest of the note) and no separator (:func:`gbrain.page.markdown._in_inline_comment`),
    so such a page's stored slices (``compiled_truth``, ``separator``, ``timeline``) were cut at the
    wrong line. A page whose slices change gets them written (the same bytes: ``content_hash`` and
    the history unchanged; the keyword index and the vectors' staleness follow the columns' own
    triggers) and its derived rows and search columns again (:func:`rederive_page_ids`). In the
    caller's transaction; returns how many pages were split again."""
    from ..page.links import graph_roots
    from ..page.markdown import page_property_syntax, parse_page
    from .derive import parse_settings

    split, tag_syntax, property_syntax = parse_settings(conn)
    graphs = graph_roots(conn)
    ids: list[int] = []
    parsed: dict = {}  # the parses rederive_page_ids takes instead of parsing again: a batch's worth at most
    for rows in page_text_batches(conn, "separator <> '' AND compiled_truth LIKE ? ESCAPE '!'", ("%!%!%%",)):
        for r in rows:
            text = ("\ufeff" if r[2] else "") + r[3] + r[4] + r[5] + r[6]
            page = parse_page(text, r[1], timeline_split=split, tag_syntax=tag_syntax, property_syntax=page_property_syntax(r[1], property_syntax, graphs))
            if (page.compiled_truth, page.separator, page.timeline) != (r[4], r[5], r[6]):
                conn.execute("UPDATE pages SET compiled_truth = ?, separator = ?, timeline = ? WHERE id = ?",
                             (page.compiled_truth, page.separator, page.timeline, r[0]))
                ids.append(r[0])
                if len(parsed) < IN_MAX:
                    parsed[r[0]] = page
    rederive_page_ids(conn, ids, parsed=parsed)
    return len(ids)


#: the pages whose links' contexts may change with table rows as units (v23): a link whose stored
#: context holds ``|`` (the old sentence ran over a row's line) or was cut (``...``: the line may lie
#: past the cut). A new boundary falls inside an old sentence only at a ``|`` by a line break.
_TABLE_PAGES = ("SELECT DISTINCT from_page_id FROM links WHERE context LIKE ? OR context LIKE ? ORDER BY from_page_id", ("%|%", "%..."))


def rederive_table_pages(conn) -> int:
    """Re-derive, from their stored text, the pages a link context of which may now end at a
    table row (:data:`_TABLE_PAGES`; :data:`gbrain.page.markdown._SENTENCE_END_RE`): a link in a
    table has its row as context, not the whole table (:func:`rederive_pages`). For SQLite v23 /
    Postgres v23, in the caller's transaction. Returns how many pages were parsed."""
    return rederive_pages(conn, *_TABLE_PAGES)


#: the pages a Logseq page property (``alias:: …`` opening the body) or a ``#[[tag]]`` may change (v26)
_LOGSEQ_PAGES = ("SELECT id FROM pages WHERE compiled_truth LIKE ? OR compiled_truth LIKE ? OR timeline LIKE ? ORDER BY id",
                 ("%::%", "%#[[%", "%#[[%"))


def rederive_logseq_pages(conn) -> int:
    """Re-derive, from their stored text, the pages whose text may hold Logseq page properties
    or a ``#[[multi word tag]]`` (:data:`_LOGSEQ_PAGES`; :func:`gbrain.page.markdown.logseq_properties`):
    their ``title::``, ``alias::`` and ``tags::`` now name and tag them (:func:`rederive_pages`).
    For SQLite v26 / Postgres v26, in the caller's transaction. Returns how many pages were parsed."""
    return rederive_pages(conn, *_LOGSEQ_PAGES)


def relink_title_paths(conn) -> int:
    """Resolve again the dangling links other than markdown paths whose target holds a ``/``: one
    no path matches now finds the page titled so (``[[TCP/IP]]``, ``[[project/data platform]]``:
    :func:`gbrain.page.links.resolve`). For SQLite v26 / Postgres v26, in the caller's
    transaction. Returns how many links now resolve."""
    from .derive import relink_updates, update_links

    rows = conn.execute("SELECT l.id, l.kind, l.target, l.to_page_id, p.slug FROM links l JOIN pages p ON p.id = l.from_page_id "
                        "WHERE l.to_page_id IS NULL AND l.kind <> 'markdown' AND l.target LIKE ? ORDER BY l.id", ("%/%",)).fetchall()
    updates = relink_updates(conn, rows) if rows else []
    update_links(conn, updates)
    return len(updates)


def rederive_pages(conn, select: str, args: tuple) -> int:
    """Re-derive the pages whose ids the query ``select`` (with ``args``) gives.
    Each such page is parsed again and its derived ``pages`` columns (title, type, frontmatter
    JSON and error, search fields: those of ``Brain._page_vals``, written only where they
    differ) and its tags, aliases, links and timeline rows rewritten as a save would
    (:func:`gbrain.storage.derive.write_rows`); then their links and every link to a title or
    alias that came or went are resolved again (an alias that now loads names a page), as
    ``Brain.save_page`` does. The text, hashes and history are not touched. For migrations
    that change what the page model derives from pages SQL can select; in the caller's
    transaction (SQLite or Postgres connection). Returns how many pages were parsed."""
    return rederive_page_ids(conn, [r[0] for r in conn.execute(select, args).fetchall()])


def rederive_page_ids(conn, ids: list[int], *, rows: bool = True, only: tuple[str, ...] | None = None, parsed: dict | None = None) -> int:
    """:func:`rederive_pages` of the pages ``ids`` (in that order; ids no page has are skipped):
    for migrations that pick their pages in Python (a pattern SQL's ``LIKE`` cannot say).
    ``rows=False``: only the ``pages`` columns that differ are written, not the derived rows
    (tags, aliases, links, timeline entries keep their ids), for a migration whose rule cannot
    change those rows; ``only``: the ``pages`` columns the migration's rule can change, the
    others left as stored (a migration derives what its rule says, nothing an older rule left).
    A page whose title, ``search_aliases`` or ``h1_key`` changes gets its ``name_folds`` rows
    again (v55: a function of those columns; not before the table exists). ``parsed``: page id →
    the caller's parse of that page (the same settings, in this transaction), taken instead of a
    parse where it renders the stored text exactly, else the page is parsed."""
    from ..core.brain import Brain
    from ..page.links import graph_roots, title_names
    from ..page.markdown import page_property_syntax, parse_page
    from .derive import ensure_link_label, has_name_folds, parse_settings, write_name_folds, write_rows

    if not ids:
        return 0
    folds = has_name_folds(conn)  # (v56: a migration before it runs without the table)
    if rows:
        ensure_link_label(conn)  # (a migration before v55 writes this code's link rows)
    split, tag_syntax, property_syntax = parse_settings(conn)
    graphs = graph_roots(conn)
    cols = ("title", "title_key", "type", "frontmatter", "frontmatter_error", "search_aliases", "search_headings", "search_words")
    have = {r[1] for r in conn.execute("PRAGMA table_info(pages)")}
    cols += tuple(c for c in ("search_cjk", "search_body", "search_timeline", "h1_key", "search_fold_names") if c in have)  # (v21, v39, v51, v63; earlier migrations run before them)
    if only is not None:
        cols = tuple(c for c in cols if c in only)
    q = f"SELECT id, slug, path, bom, frontmatter_raw, compiled_truth, separator, timeline{''.join(', ' + c for c in cols)} FROM pages WHERE id = ?"
    names: set[str] = set()  # loose keys of titles and aliases that came or went
    for pid in ids:
        r = conn.execute(q, (pid,)).fetchone()
        if r is None:
            continue
        text = ("\ufeff" if r[3] else "") + r[4] + r[5] + r[6] + r[7]
        page = parsed.pop(pid, None) if parsed else None
        if page is None or page.render() != text:
            page = parse_page(text, r[2], timeline_split=split, tag_syntax=tag_syntax, property_syntax=page_property_syntax(r[2], property_syntax, graphs))
        vals = Brain._page_vals(r[1], r[2], page, b"", "", "")
        sets = {c: vals[c] for i, c in enumerate(cols) if vals[c] != r[8 + i]}
        if sets:
            conn.execute(f"UPDATE pages SET {', '.join(f'{c} = ?' for c in sets)} WHERE id = ?", (*sets.values(), pid))
            if folds and {"title", "search_aliases", "h1_key"} & set(sets):  # (the names keyed but for accents follow them)
                f = conn.execute("SELECT slug, title, search_aliases, h1_key FROM pages WHERE id = ?", (pid,)).fetchone()
                write_name_folds(conn, [(pid, f[0], f[1], f[2] or "", f[3] or "")])
        if "title_key" in sets:  # the links named by the old key, and those the new title may take
            names |= {r[9]} | title_names(r[8]) | title_names(page.title)
        if not rows:
            continue
        old = {a[0] for a in conn.execute("SELECT loose_key FROM aliases WHERE page_id = ?", (pid,))}
        write_rows(conn, pid, page, None)
        names |= old ^ {a[0] for a in conn.execute("SELECT loose_key FROM aliases WHERE page_id = ?", (pid,))}
    # the selected pages' links (written dangling) and the links a changed name may now resolve
    relink_where(conn, (("l.from_page_id", ids), ("l.target_name", sorted(n for n in names if n))))
    return len(ids)


def relink_where(conn, by: Iterable[tuple[str, list]]) -> None:
    """Resolve again the links whose column (``l.from_page_id``, ``l.to_page_id``,
    ``l.target_name``) holds one of the keys given for it in ``by`` (``(column, keys)`` pairs,
    asked 500 keys at a time), in the order of their page's slug and id (:func:`relink_updates`)."""
    from .derive import relink_updates, update_links

    sel = "SELECT l.id, l.kind, l.target, l.to_page_id, p.slug FROM links l JOIN pages p ON p.id = l.from_page_id"
    found: dict[int, tuple] = {}
    for col, keys in by:
        for part, marks in in_parts(keys):
            found.update((x[0], tuple(x)) for x in conn.execute(f"{sel} WHERE {col} IN ({marks})", part))
    update_links(conn, relink_updates(conn, sorted(found.values(), key=lambda x: (x[4], x[0]))))


def _m17_obsidian_trial(conn: sqlite3.Connection) -> None:
    """Page-model fixes from an Obsidian user trial, applied to the stored pages they can change
    (:func:`rederive_trial_pages`): a timestamp that is no real date (``created: 2024-02-30``)
    is kept as text instead of dropping the whole frontmatter; footnote definitions
    (``[^1]: text``) are no link reference definitions (``[^1]`` is no link; links inside the
    footnote's text are); the singular ``tag:`` key is read like ``tags:``; inline ``$…$`` math
    hides tags as ``$$`` math does."""
    rederive_trial_pages(conn)


def _m19_property_links(conn: sqlite3.Connection) -> None:
    """Links in Obsidian properties: a wiki link in a frontmatter string value
    (``related: "[[Acme]]"``, a list item, a nested value) is a link of kind ``property``;
    the pages whose frontmatter text holds ``[[`` are derived again
    (:func:`rederive_property_link_pages`)."""
    rederive_property_link_pages(conn)



#: the value the index of sources' refs holds (v20, ``idx_pages_source_ref``, only for the pages
#: under ``sources/``): the frontmatter's ``source_ref`` as text. A query uses it by writing this
#: expression and ``slug LIKE 'sources/%'`` exactly so (``operations/agents.py``). Postgres:
#: :data:`PG_SOURCE_REF_SQL` (``pg_v20.sql``).
SOURCE_REF_SQL = "CASE WHEN json_valid(frontmatter) THEN CAST(json_extract(frontmatter, '$.source_ref') AS TEXT) END"
#: the same on Postgres: ``gb_source_ref`` (``pg_v20.sql``; NULL for a frontmatter ``json`` refuses)
PG_SOURCE_REF_SQL = "gb_source_ref(frontmatter)"


def source_ref_sql(conn) -> str:
    """The indexed expression of a page's ``source_ref`` for ``conn``'s engine
    (:data:`SOURCE_REF_SQL`, :data:`PG_SOURCE_REF_SQL`)."""
    return PG_SOURCE_REF_SQL if is_postgres(conn) else SOURCE_REF_SQL


def _m20_source_refs(conn: sqlite3.Connection) -> None:
    """An index of the sources' refs: ``ingest`` finds the page of a ``source_ref`` by it instead
    of loading the frontmatter JSON of every page under ``sources/`` (an expression index over
    :data:`SOURCE_REF_SQL`, partial: the pages under ``sources/`` only)."""
    conn.execute(f"CREATE INDEX IF NOT EXISTS idx_pages_source_ref ON pages({SOURCE_REF_SQL}) WHERE slug LIKE 'sources/%'")


def _m18_file_ids(conn: sqlite3.Connection) -> None:
    """Move pairing by file identity: ``sync_state.file_id``, the file's device and inode when
    its base was recorded (:func:`gbrain.sync.scan.file_id`; NULL: not recorded yet, filled as
    paths are synced again), so a rename (``mv``, Obsidian: the inode stays) pairs with its old
    path even when its text changed or another note has the same text (``gbrain/sync/plan.py``)."""
    cols = {r[1] for r in conn.execute("PRAGMA table_info(sync_state)")}
    if "file_id" not in cols:
        conn.execute("ALTER TABLE sync_state ADD COLUMN file_id INTEGER")
    conn.execute("CREATE INDEX IF NOT EXISTS idx_sync_state_file_id ON sync_state(client, file_id)")


def rederive_cjk(conn, chars: str | None = None) -> int:
    """Fill ``pages.search_cjk`` (:func:`gbrain.search.keyword.search_cjk`: the CJK bigrams of the
    title, aliases, the path's folders, text and frontmatter values, and since v77 the Thai ones) from
    the stored columns, no parse, for the pages whose fields hold CJK text (``chars``: a character
    class's body, those characters instead: v77 / v85 Thai's), in the caller's transaction. SQLite reads each
    page's fields once (ASCII text skipped in O(1); with ``chars``, text without them too); Postgres selects the pages in the server
    (a regular expression of the characters), so a brain without them sends no text. For SQLite
    v21 / Postgres v21 and SQLite v77 / Postgres v85. Returns how many pages changed."""
    from ..search.keyword import _CJK_CHARS, _CJK_COMPAT, search_cjk

    cols = "id, title, search_aliases, path, compiled_truth, timeline, search_words, search_cjk"
    if is_postgres(conn):
        cls = f"[{chars or _CJK_CHARS + _CJK_COMPAT}]"  # (the characters themselves: a bracket expression of Postgres' regular expressions)
        cond = " OR ".join(f"{c} ~ ?" for c in ("title", "search_aliases", "path", "compiled_truth", "timeline", "search_words"))
        rows = conn.execute(f"SELECT {cols} FROM pages WHERE {cond}", (cls,) * 6).fetchall()
    else:
        holds = re.compile(f"[{chars}]").search if chars else None
        rows = [r for r in conn.execute(f"SELECT {cols} FROM pages")
                if not all((x or "").isascii() for x in r[1:7]) and (holds is None or any(x and holds(x) for x in r[1:7]))]
    updates = []
    for pid, title, aliases, path, ct, tl, words, old in rows:
        new = search_cjk(title or "", aliases or "", path or "", ct or "", tl or "", words or "")
        if new != (old or ""):
            updates.append((new, pid))
    return _batched_update(conn, "UPDATE pages SET search_cjk = ? WHERE id = ?", updates)


def _m21_cjk_bigrams(conn: sqlite3.Connection) -> None:
    """A word inside a run of CJK text is found: unicode61 makes a whole run of Han, kana or
    Hangul one token, so ``同期`` matched only where it stood alone. ``pages.search_cjk`` holds the
    overlapping character bigrams of every CJK run (:func:`gbrain.search.keyword.cjk_bigrams`),
    filled here for the pages with CJK text (:func:`rederive_cjk`), and ``page_fts`` is rebuilt
    with it as an eighth column (FTS5 cannot add one), body weight; a query's CJK run is the phrase
    of its bigrams (``search/keyword.py: _cjk_terms``)."""
    if "search_cjk" not in {r[1] for r in conn.execute("PRAGMA table_info(pages)")}:  # (a brain whose user_version was set back has it)
        conn.execute("ALTER TABLE pages ADD COLUMN search_cjk TEXT NOT NULL DEFAULT ''")
    _exec_script(conn,
        """
DROP TRIGGER IF EXISTS pages_ai;
DROP TRIGGER IF EXISTS pages_ad;
DROP TRIGGER IF EXISTS pages_au;
DROP TABLE IF EXISTS page_fts;
"""
    )
    rederive_cjk(conn)
    _create_fts(conn, _FTS_COLS)


#: ordered forward migrations; index + 1 is the user_version after applying
def _m22_inline_comments(conn: sqlite3.Connection) -> None:
    """Links inside an inline Obsidian comment (``See %%[[Secret]]%% x``) are no links, as their
    tags already were none: the pages whose body holds ``%%`` are derived again
    (:func:`rederive_comment_pages`)."""
    rederive_comment_pages(conn)


def _m23_table_rows(conn: sqlite3.Connection) -> None:
    """A link in a table has its row as context, not the whole table: the pages whose stored
    link contexts may change are derived again (:func:`rederive_table_pages`)."""
    rederive_table_pages(conn)


def _m24_history_refs(conn: sqlite3.Connection) -> None:
    """History bodies by reference: a page body still current is recorded as a reference to its
    page (marker ``p``) and packed only when it stops being current (the page triggers are
    re-created: :func:`gbrain.core.history.ref_triggers_sql`). Bodies stored before stay packed."""
    from ..core.history import ref_triggers_sql

    _exec_script(conn, ref_triggers_sql())



#: v25: the derived tables as they are rebuilt (no ``AUTOINCREMENT``, no per-row ``created_at``),
#: with the indexes kept; the columns in the order v1 and v5 left them
_LEAN_TABLES = {
    "links": ("""
  id INTEGER PRIMARY KEY,
  from_page_id INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
  to_page_id INTEGER REFERENCES pages(id) ON DELETE SET NULL,  -- NULL: unresolved (dangling)
  kind TEXT NOT NULL DEFAULT 'markdown',   -- markdown | wiki | embed | property (v19)
  target TEXT NOT NULL,                    -- as written, decoded, without .md / #anchor
  target_name TEXT NOT NULL DEFAULT '',    -- loose_key of the target's last segment, to re-resolve
  context TEXT NOT NULL DEFAULT '',
  count INTEGER NOT NULL DEFAULT 1,
  forms TEXT NOT NULL DEFAULT '[]',
  UNIQUE(from_page_id, kind, target)""",
              ("CREATE INDEX idx_links_from ON links(from_page_id)", "CREATE INDEX idx_links_to ON links(to_page_id)", "CREATE INDEX idx_links_target_name ON links(target_name)")),
    "tags": ("""
  id INTEGER PRIMARY KEY,
  page_id INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
  tag TEXT NOT NULL,
  tag_key TEXT NOT NULL DEFAULT '',
  inline INTEGER NOT NULL DEFAULT 0,
  UNIQUE(page_id, tag)""",
             ("CREATE INDEX idx_tags_tag ON tags(tag)", "CREATE INDEX idx_tags_page_id ON tags(page_id)", "CREATE INDEX idx_tags_tag_key ON tags(tag_key)")),
    "aliases": ("""
  id INTEGER PRIMARY KEY,
  page_id INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
  alias TEXT NOT NULL,                 -- as written in the frontmatter (stripped)
  alias_key TEXT NOT NULL,             -- NFC + casefold: naming a page by its alias
  loose_key TEXT NOT NULL DEFAULT '',  -- slugified alias: [[Alias]] link resolution
  UNIQUE(page_id, alias_key)""",
                ("CREATE INDEX idx_aliases_key ON aliases(alias_key)", "CREATE INDEX idx_aliases_loose ON aliases(loose_key)")),
    "raw_data": ("""
  id INTEGER PRIMARY KEY,
  page_id INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
  source TEXT NOT NULL,
  data TEXT NOT NULL,
  fetched_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
  UNIQUE(page_id, source)""", ()),
    "timeline_entries": ("""
  id INTEGER PRIMARY KEY,
  page_id INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
  date TEXT NOT NULL,
  source TEXT NOT NULL DEFAULT '',
  summary TEXT NOT NULL,
  detail TEXT NOT NULL DEFAULT ''""",
                         ("CREATE INDEX idx_timeline_page ON timeline_entries(page_id)", "CREATE INDEX idx_timeline_date ON timeline_entries(date)")),
}


def _m25_lean_derived(conn: sqlite3.Connection) -> None:
    """The derived tables (``links``, ``tags``, ``aliases``, ``raw_data``, ``timeline_entries``)
    without what an import paid for and nothing needs (docs/performance.md, "The derived tables'
    schema trimmed", 2026-12-03 evening):

    * ``AUTOINCREMENT`` (a ``sqlite_sequence`` row kept per table): these ids are only written and
      read inside one transaction (link updates by id) or compared with each other (a page's rows
      in the order written, ``ORDER BY id``); a new row still gets an id above every row present,
      so that order is what it was; only the id of a deleted row may come back;
    * ``links.created_at``, ``timeline_entries.created_at``: a ``strftime`` per row that no code
      reads (the page row has its own ``created_at``/``updated_at``);
    * ``idx_aliases_page``, ``idx_raw_data_page``: the ``UNIQUE(page_id, …)`` index serves every
      lookup by page (and the cascade from ``pages``) as fast. ``idx_links_from`` and
      ``idx_tags_page_id`` are as redundant for lookups but stay: ``links``/``tags`` of a page read
      in id order would sort (10–17% slower reads for ~0.01 CPU-s of a 7k-page import).

    Each table is rebuilt (SQLite drops ``AUTOINCREMENT`` no other way): a new table, every row
    copied with its id, the old one dropped, the new one renamed and its indexes made, in the
    migration's transaction. ``pages``, ``files``, ``history`` and the embeddings keep theirs."""
    for table, (cols_sql, indexes) in _LEAN_TABLES.items():
        if table == "raw_data" and has_table(conn, "raw_spans"):  # (set back from v40: a view of raw_spans)
            continue
        new = f"{table}_v25"
        conn.execute(f"CREATE TABLE {new} ({cols_sql}\n)")
        cols = ", ".join(r[1] for r in conn.execute(f"PRAGMA table_info({new})"))
        conn.execute(f"INSERT INTO {new}({cols}) SELECT {cols} FROM {table} ORDER BY id")
        conn.execute(f"DROP TABLE {table}")
        conn.execute(f"ALTER TABLE {new} RENAME TO {table}")
        for ix in indexes:
            conn.execute(ix)
    conn.execute(f"DELETE FROM sqlite_sequence WHERE name IN ({', '.join('?' * len(_LEAN_TABLES))})", tuple(_LEAN_TABLES))


def _m26_logseq_properties(conn: sqlite3.Connection) -> None:
    """A Logseq page's properties (``title::``, ``alias::``, ``tags::`` lines opening the page)
    and ``#[[multi word tag]]`` name and tag it: the pages whose text may hold them are derived
    again (:func:`rederive_logseq_pages`); a wiki link ``[[a/b]]`` no path matches finds the page
    titled ``a/b`` (:func:`relink_title_paths`)."""
    rederive_logseq_pages(conn)
    relink_title_paths(conn)


def rekey_slash_titles(conn) -> int:
    """Key every title holding a ``/`` whole (:func:`gbrain.page.slugs.title_key`: ``TCP/IP`` is
    ``tcp-ip``, no longer its last segment ``ip``) and resolve again the links that may change
    (those written with the old or the new key, and the pages' own): :func:`rederive_pages` of
    those pages. For SQLite v27 / Postgres v27, in the caller's transaction. Returns pages parsed."""
    return rederive_pages(conn, "SELECT id FROM pages WHERE title LIKE ? ORDER BY id", ("%/%",))


def _m27_whole_titles(conn: sqlite3.Connection) -> None:
    """A title is a name, not a path: ``title: TCP/IP`` was keyed by ``ip`` (``[[IP]]`` found
    it; ``TCP/IP`` and ``UDP/IP`` were duplicate titles); its ``title_key`` is now the whole
    title's (:func:`rekey_slash_titles`)."""
    rekey_slash_titles(conn)


#: the pages a daily-journal vault's fixes may change (v29): a text naming an ``.excalidraw``
#: drawing (``![[Sketch.excalidraw]]`` now links the note ``Sketch.excalidraw.md``), and a page
#: with a frontmatter tag holding a blank or a ``#`` (a tags string is split at white space too)
_JOURNAL_PAGES = ("SELECT id FROM pages WHERE compiled_truth LIKE ? OR timeline LIKE ? OR frontmatter_raw LIKE ? "
                  "UNION SELECT page_id FROM tags WHERE inline = 0 AND (tag LIKE ? OR tag LIKE ? OR tag LIKE ? OR tag LIKE ? "
                  "OR tag LIKE ? OR tag LIKE ? OR tag LIKE ?) ORDER BY 1",
                  ("%.excalidraw%", "%.excalidraw%", "%.excalidraw%",
                   "% %", "%\t%", "%\n%", "%\r%", "%\u00a0%", "%\u3000%", "%#%"))


def rederive_journal_pages(conn) -> int:
    """Re-derive, from their stored text, the pages the daily-journal trial's fixes may change
    (:data:`_JOURNAL_PAGES`; :func:`rederive_pages`): ``tags: journal daily`` is two tags
    (:func:`gbrain.page.markdown.tag_items`) and ``![[Sketch.excalidraw]]`` a link to the drawing's
    note (:data:`gbrain.page.markdown.ATTACHMENT_EXTS`). For SQLite v29 / Postgres v29, in the
    caller's transaction. Returns how many pages were parsed."""
    return rederive_pages(conn, *_JOURNAL_PAGES)


def _m29_journal_vaults(conn: sqlite3.Connection) -> None:
    """A tags string is split at white space as at commas (``tags: journal daily``: two tags, as
    Obsidian reads it), and an embed of an Excalidraw drawing note (``![[Sketch.excalidraw]]``)
    is a link to it: the pages either may change are derived again (:func:`rederive_journal_pages`)."""
    rederive_journal_pages(conn)


#: the pages whose frontmatter may hold a template's placeholder (v30): ``<%`` or ``{{``
_TEMPLATE_TAG_PAGES = ("SELECT id FROM pages WHERE frontmatter_raw LIKE ? ESCAPE '!' OR frontmatter_raw LIKE ? ORDER BY id",
                       ("%<!%%", "%{{%"))


def rederive_template_tag_pages(conn) -> int:
    """Re-derive, from their stored text, the pages whose frontmatter may hold a template's
    placeholder (:data:`_TEMPLATE_TAG_PAGES`; :func:`rederive_pages`): ``tags: daily, <%
    tp.file.folder() %>`` is the one tag ``daily`` (:func:`gbrain.page.markdown.tag_items`). For
    SQLite v30 / Postgres v30, in the caller's transaction. Returns how many pages were parsed."""
    return rederive_pages(conn, *_TEMPLATE_TAG_PAGES)


def _m30_template_tags(conn: sqlite3.Connection) -> None:
    """A template's placeholder in its tags property (``<% tp.file.folder() %>``, ``{{date:YYYY}}``)
    is no tag, nor are its words: the pages whose frontmatter holds ``<%`` or ``{{`` are derived
    again (:func:`rederive_template_tag_pages`)."""
    rederive_template_tag_pages(conn)


def relink_journal_links(conn) -> int:
    """Resolve again the dangling links whose target holds a digit: one may name a Logseq
    journal by the title Logseq shows (``[[Nov 28th, 2026]]`` → ``journals/2026_11_28.md``:
    :func:`gbrain.page.links.resolve`). Nothing to do in a brain with no page in a ``journals``
    folder. For SQLite v31 / Postgres v31, in the caller's transaction. Returns how many links
    now resolve."""
    import re

    from .derive import relink_updates, update_links

    if not conn.execute("SELECT 1 FROM pages WHERE slug LIKE ? LIMIT 1", ("%journals/%",)).fetchone():
        return 0
    digit = re.compile(r"\d")
    rows = [r for r in conn.execute("SELECT l.id, l.kind, l.target, l.to_page_id, p.slug FROM links l JOIN pages p ON p.id = l.from_page_id "
                                    "WHERE l.to_page_id IS NULL ORDER BY l.id").fetchall() if digit.search(r[2])]
    updates = relink_updates(conn, rows) if rows else []
    update_links(conn, updates)
    return len(updates)


#: the pages whose file name has a Notion export's shape (a space and 32 hex digits before ``.md``)
_NOTION_PAGES = ("SELECT id FROM pages WHERE path LIKE ? ORDER BY id", ("% " + "_" * 32 + ".md",))


def rederive_notion_pages(conn) -> int:
    """Re-derive, from their stored text, the pages whose file name may be a Notion export's
    (:data:`_NOTION_PAGES`; :func:`gbrain.page.markdown.notion_properties`): their ``Tags:``
    property tags them, a title from the file name drops the id (:func:`rederive_pages`). For
    SQLite v31 / Postgres v31, in the caller's transaction. Returns how many pages were parsed."""
    return rederive_pages(conn, *_NOTION_PAGES)


def _m31_migrants(conn: sqlite3.Connection) -> None:
    """A page of a Notion export is tagged by its ``Tags:`` property and titled without Notion's
    id (:func:`rederive_notion_pages`); a link to a Logseq journal by the title Logseq shows
    (``[[Nov 28th, 2026]]``, by the graph's ``logseq/config.edn`` or Logseq's defaults)
    resolves (:func:`relink_journal_links`)."""
    rederive_notion_pages(conn)
    relink_journal_links(conn)


#: the pages whose title or an alias may hold a template's placeholder (v32)
_TEMPLATE_NAME_PAGES = ("SELECT id FROM pages WHERE title LIKE ? ESCAPE '!' OR title LIKE ? "
                        "UNION SELECT page_id FROM aliases WHERE alias LIKE ? ESCAPE '!' OR alias LIKE ? ORDER BY 1",
                        ("%<!%%", "%{{%", "%<!%%", "%{{%"))


def rederive_template_name_pages(conn) -> int:
    """Re-derive, from their stored text, the pages whose title or an alias may hold a template's
    placeholder (:data:`_TEMPLATE_NAME_PAGES`; :func:`rederive_pages`): ``# <% tp.date.now("YYYY-MM-DD")
    %>`` is no title (the file name is) and ``aliases: ['<% tp.date.now("dddd") %>']`` no alias
    (:func:`gbrain.page.markdown.parse_page`). For SQLite v32 / Postgres v32, in the caller's
    transaction. Returns how many pages were parsed."""
    return rederive_pages(conn, *_TEMPLATE_NAME_PAGES)


def _m32_template_names(conn: sqlite3.Connection) -> None:
    """A template's placeholder is no title or alias (a template titled ``<% tp.date.now(...) %>``
    is titled by its file name, as Obsidian shows it): the pages whose title or an alias holds
    ``<%`` or ``{{`` are derived again (:func:`rederive_template_name_pages`)."""
    rederive_template_name_pages(conn)


#: a line of a block quote (``>`` after a list's indentation, if any) followed at once by a line
#: that is neither blank nor a quote's: only there can a list, rule, fence or HTML block end the
#: quote, where mistune's block parser put blocks out of order (v33)
_QUOTE_LINE = re.compile(r"^[ \t]*>[^\n]*\n(?![ \t]*(?:>|\r?$))", re.M)


def rederive_quote_pages(conn) -> int:
    """Re-derive, from their stored text, the pages where a block quote's line is followed at once
    by another kind of line (:data:`_QUOTE_LINE`): a quote ended by a list, rule, fence or HTML
    block with no blank line between came after the blocks parsed after it
    (``gbrain.page.mdparse._SpanBlockParser.parse_block_quote``): their links' order, and which
    links an inline ``%%`` comment hid, may change (:func:`rederive_pages`). For SQLite v33 /
    Postgres v33, in the caller's transaction. Returns how many pages were parsed."""
    return rederive_page_ids(conn, _body_matches(conn, ("%>%",), _QUOTE_LINE))


def _body_matches(conn, likes: tuple[str, ...], pattern: "re.Pattern[str]") -> list[int]:
    """The ids of the pages whose compiled truth or timeline matches one of the ``LIKE``
    patterns ``likes`` (a cheap first cut in SQL) and then ``pattern`` (searched in Python), in
    id order."""
    cond = " OR ".join(f"{col} LIKE ?" for col in ("compiled_truth", "timeline") for _ in likes)
    rows = conn.execute(f"SELECT id, compiled_truth, timeline FROM pages WHERE {cond} ORDER BY id", likes * 2)
    return [r[0] for r in rows if pattern.search(r[1] or "") or pattern.search(r[2] or "")]


def _m33_block_order(conn: sqlite3.Connection) -> None:
    """Blocks in document order: a block quote that a list ended (no blank line) and that list's
    next quote came after the list, so the page's links did too, and an inline ``%%`` comment
    left open in the list hid the quote's links above it: those pages are derived again
    (:func:`rederive_quote_pages`)."""
    rederive_quote_pages(conn)


def rederive_numeric_tag_pages(conn) -> int:
    """Re-derive, from their stored text, the pages holding a tag of digits and ``/`` only
    (``tags: [2026]``; :func:`gbrain.page.markdown.numeric_tag`): no tag now, as inline ``#2026``
    was not (:func:`rederive_pages`). The tags are read whole and tested in Python (digits of
    every script, as the parser tests them). For SQLite v34 / Postgres v34, in the caller's
    transaction. Returns how many pages were parsed."""
    from ..page.markdown import numeric_tag

    return rederive_page_ids(conn, sorted({int(r[0]) for r in conn.execute("SELECT page_id, tag FROM tags").fetchall() if numeric_tag(r[1])}))


def _m34_numeric_tags(conn: sqlite3.Connection) -> None:
    """A tag holds a character that is not a digit (Obsidian Help, "Tags"): ``tags: [2026]`` is
    no tag, as ``#2026`` was not; the pages holding such a tag are derived again
    (:func:`rederive_numeric_tag_pages`)."""
    rederive_numeric_tag_pages(conn)


def _m35_file_refs(conn: sqlite3.Connection) -> None:
    """Files' history by reference: a non-page file's current version is recorded as a reference
    to its ``files`` row (marker ``f``) and packed when the row lets go of it (the ``files``
    triggers re-created: :func:`gbrain.core.history.file_ref_triggers_sql`); the copies an older
    gbrain stored of current files become references (:func:`file_refs_upgrade`)."""
    from ..core.history import file_ref_triggers_sql

    _exec_script(conn, file_ref_triggers_sql())
    file_refs_upgrade(conn)


def file_refs_upgrade(conn) -> None:
    """The upgrade step of v35 (SQLite migration, Postgres ``_PY_STEPS``): the history's copies of
    current files' bytes become references (:func:`gbrain.core.history.refer_files`), said
    through :data:`on_upgrade` when there were any."""
    from ..core.history import refer_files

    n, freed = refer_files(conn)
    if n and on_upgrade is not None:
        on_upgrade(f"{n:,} file versions in the history now refer to their files instead of holding a copy "
                   f"({freed / 1e6:.1f} MB now free inside the brain, reused by later writes; a VACUUM gives it back to the disk: docs/history.md#retention)")


def _m36_history_at(conn: sqlite3.Connection) -> None:
    """An index of the versions' times (``idx_history_at``): ``undo --since`` plans from the
    versions since a time (:func:`gbrain.core.history.undo_firsts_sql`) and read the whole
    history for it (trial 20: 99.6 ms CPU at 107,944 versions)."""
    conn.execute("CREATE INDEX IF NOT EXISTS idx_history_at ON history(at)")


#: a line of '=' and '-' mixed (``--=``, ``-=-=-``): the fast block parser read it as text where
#: mistune's setext rule reads a heading's underline (v37; ``page/fastparse._MIXED_UNDERLINE_RE``)
_MIXED_UNDERLINE = re.compile(r"^[ \t>]*[=-]*(?:=-|-=)[=-]*[ \t]*\r?$", re.M)


def rederive_mixed_underline_pages(conn) -> int:
    """Re-derive, from their stored text, the pages with a line of '=' and '-' mixed
    (:data:`_MIXED_UNDERLINE`): the fast block parser (pulldown-cmark) read the line above it as a
    paragraph where mistune, the reference, reads a setext heading (the page's title, its
    headings); such pages now go to mistune (:func:`rederive_pages`). For SQLite v37 / Postgres
    v37, in the caller's transaction. Returns how many pages were parsed."""
    return rederive_page_ids(conn, _body_matches(conn, ("%=-%", "%-=%"), _MIXED_UNDERLINE))


def _m37_mixed_underlines(conn: sqlite3.Connection) -> None:
    """A paragraph over a line of '=' and '-' mixed is a heading, as mistune reads it: the fast
    parser had read a paragraph (found by a seed sweep of test_fastparse); those pages are derived
    again (:func:`rederive_mixed_underline_pages`)."""
    rederive_mixed_underline_pages(conn)


def rederive_migrant_leftovers(conn) -> int:
    """Re-derive, from their stored text, the pages of Notion's name shape whose text holds
    ``.md)`` (a relation property, ``Company: Acme (../Companies%20<id>/Acme%20<id>.md)``, is a link
    now: :func:`gbrain.page.markdown.notion_relation_links`), the Logseq journals (a page in a
    ``journals`` folder named as a day: titled as Logseq shows it, ``Nov 28th, 2026``:
    :func:`gbrain.page.markdown.journal_name`) and, in a brain set to Bear's syntax (config
    ``tag_syntax bear``), the pages with a wiki, embed or property link whose target holds a ``/``
    (``[[Note/Heading]]`` links the note: :func:`gbrain.page.markdown.bear_heading_links`)
    (:func:`rederive_page_ids`). For SQLite v38 / Postgres v38, in the caller's transaction.
    Returns how many pages were parsed."""
    from ..page.markdown import journal_name
    from .derive import parse_settings

    ids = {r[0] for r in conn.execute("SELECT id FROM pages WHERE path LIKE ? AND (compiled_truth LIKE ? OR timeline LIKE ?)",
                                      (_NOTION_PAGES[1][0], "%.md)%", "%.md)%"))}
    ids |= {r[0] for r in conn.execute("SELECT id, path FROM pages WHERE path LIKE ?", ("%journals/%",)) if journal_name(r[1])}
    if parse_settings(conn)[1] == "bear":
        ids |= {r[0] for r in conn.execute("SELECT DISTINCT from_page_id FROM links WHERE kind <> 'markdown' AND target LIKE ?", ("%/%",))}
    return rederive_page_ids(conn, sorted(ids))


def _m38_migrant_leftovers(conn: sqlite3.Connection) -> None:
    """A Notion relation property links its pages, a Logseq journal is titled as Logseq shows it,
    and a Bear heading link ``[[Note/Heading]]`` links the note in a brain set to Bear's syntax:
    those pages are derived again (:func:`rederive_migrant_leftovers`); a wiki link naming a
    Notion page by the path of titles Notion shows (``[[Team Wiki/Engineering]]``,
    :func:`gbrain.page.links.notion_titled`) resolves: the dangling ones holding a ``/`` are
    resolved again (:func:`relink_title_paths`)."""
    rederive_migrant_leftovers(conn)
    relink_title_paths(conn)


def rederive_dataview_pages(conn) -> int:
    """Re-derive, from their stored text, the pages whose body opens with ``key:: value`` lines
    (:func:`gbrain.page.markdown.logseq_properties`) that are no longer read as Logseq page
    properties (:func:`gbrain.page.markdown.reads_logseq_properties`: under config
    ``property_syntax auto`` a page outside a Logseq graph's ``pages``/``journals`` folders): in an
    Obsidian vault they are Dataview inline fields, so ``title::``/``alias::``/``tags::`` no longer
    title, alias or tag the page (:func:`rederive_page_ids`). For SQLite v41 / Postgres v42, in the
    caller's transaction. Returns how many pages were parsed."""
    from ..page.markdown import logseq_properties, reads_logseq_properties
    from .derive import parse_settings

    syntax = parse_settings(conn)[2]
    rows = conn.execute("SELECT id, path, compiled_truth FROM pages WHERE compiled_truth LIKE ? ORDER BY id", ("%::%",)).fetchall()
    return rederive_page_ids(conn, [r[0] for r in rows if not reads_logseq_properties(r[1], syntax)
                                     and logseq_properties(r[2].replace("\r\n", "\n").replace("\r", "\n"))])


def _m41_dataview_fields(conn: sqlite3.Connection) -> None:
    """The ``key:: value`` lines opening a page are Logseq page properties only in a Logseq graph
    (config ``property_syntax``, ``auto``: a page in a ``pages`` or ``journals`` folder); in an
    Obsidian vault they are Dataview fields, which title, alias and tag nothing: the pages they
    named or tagged are derived again (:func:`rederive_dataview_pages`)."""
    rederive_dataview_pages(conn)


def relink_symbol_links(conn) -> int:
    """Resolve again the links whose target's name has no letter or digit (``[[📚📚📚]]``,
    ``[[★]]``: ``target_name`` ''): before, such a link resolved to any page whose name had none
    (both loose keys ''), and one written before its page came stayed dangling (a save
    re-resolves by that key, and '' was left out). For SQLite v42 / Postgres v43, in the
    caller's transaction. Returns how many links changed."""
    from .derive import relink_updates, update_links

    rows = conn.execute("SELECT l.id, l.kind, l.target, l.to_page_id, p.slug FROM links l JOIN pages p ON p.id = l.from_page_id "
                        "WHERE l.target_name = '' ORDER BY l.id").fetchall()
    updates = relink_updates(conn, rows) if rows else []
    update_links(conn, updates)
    return len(updates)


def _m42_symbol_links(conn: sqlite3.Connection) -> None:
    """A name of no letter or digit (`📚📚📚`) is found by its file name or an alias as written,
    never by the empty loose key every such name shares: its links resolve again
    (:func:`relink_symbol_links`)."""
    relink_symbol_links(conn)



#: a canvas's searchable cards (v43, ``canvas_cards``): a text node's ``text`` (markdown) and a group
#: node's ``label``, read from the file's bytes ``{d}`` (a UTF-8 BOM skipped; bytes that are not
#: JSON, or hold no ``nodes`` list, give none), in the canvas's order; a file node's path and a link
#: node's URL are addresses, not read text (docs/storage.md "Canvases"). ``{f}``: the file's id.
_CANVAS_CARDS_SQL = """SELECT {f}, CAST(coalesce(json_extract(n.value, '$.id'), '') AS TEXT), json_extract(n.value, '$.type'),
  json_extract(n.value, CASE json_extract(n.value, '$.type') WHEN 'text' THEN '$.text' ELSE '$.label' END)
FROM json_each((SELECT CASE WHEN json_valid(j) AND json_type(j, '$.nodes') = 'array' THEN j END FROM
  (SELECT CAST(CASE WHEN substr({d}, 1, 3) = X'EFBBBF' THEN substr({d}, 4) ELSE {d} END AS TEXT) AS j)), '$.nodes') n
WHERE n.type = 'object' AND ((json_extract(n.value, '$.type') = 'text' AND json_type(n.value, '$.text') = 'text')
  OR (json_extract(n.value, '$.type') = 'group' AND json_type(n.value, '$.label') = 'text'))"""


def _m43_canvas_text(conn: sqlite3.Connection) -> None:
    """A canvas's text is searchable (docs/storage.md "Canvases"): ``canvas_cards`` holds each
    text card's markdown and group's label (:data:`_CANVAS_CARDS_SQL`), kept by triggers on
    ``files`` in the writer's transaction (every write path: import, sync, watch, restore, a move),
    and ``canvas_fts`` indexes them (external content, the tokenizer of ``page_fts``); filled here
    for the canvases already stored. Re-runnable (a brain whose version was set back, as tests do):
    the objects are made if missing and the rows filled afresh."""
    one = _CANVAS_CARDS_SQL.format(f="new.id", d="new.data")
    _exec_script(conn, f"""
CREATE TABLE IF NOT EXISTS canvas_cards (
  id INTEGER PRIMARY KEY,
  file_id INTEGER NOT NULL,
  node TEXT NOT NULL,
  kind TEXT NOT NULL,
  text TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_canvas_cards_file ON canvas_cards(file_id);
CREATE VIRTUAL TABLE IF NOT EXISTS canvas_fts USING fts5(text, content='canvas_cards', content_rowid='id', tokenize='porter unicode61');
CREATE TRIGGER IF NOT EXISTS canvas_cards_ai AFTER INSERT ON canvas_cards BEGIN
  INSERT INTO canvas_fts(rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER IF NOT EXISTS canvas_cards_ad AFTER DELETE ON canvas_cards BEGIN
  INSERT INTO canvas_fts(canvas_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
CREATE TRIGGER IF NOT EXISTS files_canvas_ai AFTER INSERT ON files WHEN new.path LIKE '%.canvas' BEGIN
  INSERT INTO canvas_cards(file_id, node, kind, text) {one};
END;
CREATE TRIGGER IF NOT EXISTS files_canvas_au AFTER UPDATE OF path, data ON files WHEN old.path LIKE '%.canvas' OR new.path LIKE '%.canvas' BEGIN
  DELETE FROM canvas_cards WHERE file_id = old.id;
  INSERT INTO canvas_cards(file_id, node, kind, text) {one} AND new.path LIKE '%.canvas';
END;
CREATE TRIGGER IF NOT EXISTS files_canvas_ad AFTER DELETE ON files WHEN old.path LIKE '%.canvas' BEGIN
  DELETE FROM canvas_cards WHERE file_id = old.id;
END;
""")
    fill = _CANVAS_CARDS_SQL.format(f="f.id", d="f.data").replace("FROM json_each(", "FROM files f, json_each(", 1)
    conn.execute("DELETE FROM canvas_cards")  # (its delete trigger takes the rows out of canvas_fts)
    conn.execute(f"INSERT INTO canvas_cards(file_id, node, kind, text) {fill} AND f.path LIKE '%.canvas' ORDER BY f.id, n.id")


#: ``page_fts``'s columns read from its content view ``page_fts_src`` (v39): the compiled truth and
#: timeline as search reads them (:func:`gbrain.search.keyword.search_text`), else as stored
_FTS_SRC = {"compiled_truth": "coalesce({t}search_body, {t}compiled_truth)", "timeline": "coalesce({t}search_timeline, {t}timeline)"}


def rederive_search_text(conn) -> int:
    """Fill ``pages.search_body``/``search_timeline`` (:func:`gbrain.search.keyword.search_text`:
    the text with its link addresses blanked, NULL where there is none) from the stored compiled
    truth and timeline of the pages that may hold an address (``[`` or ``://``; no parse), in the
    caller's transaction; rows already right are left alone (Postgres: its ``search_tsv`` follows).
    For SQLite v39 / Postgres v40. Returns how many rows were written."""
    from ..search.keyword import search_text

    q = ("SELECT id, compiled_truth, timeline, search_body, search_timeline FROM pages WHERE compiled_truth LIKE '%[%' "
         "OR compiled_truth LIKE '%://%' OR timeline LIKE '%[%' OR timeline LIKE '%://%'")
    updates = []
    for pid, ct, tl, sb, st in conn.execute(q).fetchall():
        new = (search_text(ct or ""), search_text(tl or ""))
        if new != (sb, st):
            updates.append((*new, pid))
    return _batched_update(conn, "UPDATE pages SET search_body = ?, search_timeline = ? WHERE id = ?", updates)


def _m39_search_text(conn: sqlite3.Connection) -> None:
    """Keyword search reads what a reader reads: a link's label, not its address (``deal``
    matched 458 of a 1,000-page make_brain brain's pages, most through ``(../deals/x.md)``).
    ``pages.search_body``/``search_timeline`` hold the compiled truth / timeline with the
    addresses blanked (:func:`gbrain.search.keyword.search_text`; NULL where there is none: the
    stored text is the indexed text), filled here (:func:`rederive_search_text`), and ``page_fts``
    is rebuilt over the view ``page_fts_src``, which reads them in place of the text
    (:data:`_FTS_SRC`; its triggers write the same values). The stored page text is untouched."""
    have = {r[1] for r in conn.execute("PRAGMA table_info(pages)")}
    for col in ("search_body", "search_timeline"):
        if col not in have:  # (a brain whose user_version was set back has them)
            conn.execute(f"ALTER TABLE pages ADD COLUMN {col} TEXT")
    _exec_script(conn,
        """
DROP TRIGGER IF EXISTS pages_ai;
DROP TRIGGER IF EXISTS pages_ad;
DROP TRIGGER IF EXISTS pages_au;
DROP TABLE IF EXISTS page_fts;
DROP VIEW IF EXISTS page_fts_src;
"""
    )
    rederive_search_text(conn)
    _create_fts_view(conn, _FTS_COLS)


def _create_fts_view(conn, fts_cols: str) -> None:
    """``page_fts`` over its content view ``page_fts_src`` (v39) with the columns ``fts_cols``
    (:data:`_FTS_SRC` read in place of the text), its three triggers, and the index built
    ('rebuild'). The caller dropped the ones before."""
    cols = [c.strip() for c in fts_cols.split(",")]

    def vals(t: str) -> str:
        return ", ".join(_FTS_SRC[c].format(t=t) if c in _FTS_SRC else t + c for c in cols)

    src = ", ".join(_FTS_SRC[c].format(t="") + " AS " + c if c in _FTS_SRC else c for c in cols)
    names = ", ".join(cols)
    _exec_script(conn,
        f"""
CREATE VIEW page_fts_src AS SELECT id, {src} FROM pages;
CREATE VIRTUAL TABLE page_fts USING fts5(
  {names},
  content='page_fts_src', content_rowid='id',
  tokenize='porter unicode61'
);
CREATE TRIGGER pages_ai AFTER INSERT ON pages BEGIN
  INSERT INTO page_fts(rowid, {names}) VALUES (new.id, {vals("new.")});
END;
CREATE TRIGGER pages_ad AFTER DELETE ON pages BEGIN
  INSERT INTO page_fts(page_fts, rowid, {names}) VALUES ('delete', old.id, {vals("old.")});
END;
CREATE TRIGGER pages_au AFTER UPDATE OF {names}, search_body, search_timeline ON pages BEGIN
  INSERT INTO page_fts(page_fts, rowid, {names}) VALUES ('delete', old.id, {vals("old.")});
  INSERT INTO page_fts(rowid, {names}) VALUES (new.id, {vals("new.")});
END;
INSERT INTO page_fts(page_fts) VALUES ('rebuild');
"""
    )


def _m40_raw_spans(conn: sqlite3.Connection) -> None:
    """A ``.raw`` sidecar's sources are spans of its stored bytes, not a second copy of its JSON
    (:mod:`gbrain.storage.rawspans`): table ``raw_spans``, view ``raw_data`` (the same columns);
    the rows of every sidecar stored whole become spans (:func:`rawspans.to_spans`)."""
    from . import rawspans

    if not has_table(conn, "raw_spans"):  # (a brain whose user_version was set back has it)
        _exec_script(conn, rawspans.SQLITE_SQL)
    rawspans.to_spans(conn)


#: what a write of a process older than its brain's schema is refused with (migration v28;
#: Postgres' pg_v28.sql says the same with the versions): :func:`db_error` keeps it whole
SCHEMA_GUARD = ("database schema is newer than this gbrain; upgrade gbrain (a newer one upgraded the brain "
                "while this process ran; nothing was written)")


def _m28_schema_guard(conn: sqlite3.Connection) -> None:
    """A process whose gbrain is older than the brain's schema writes no page or file: a
    ``watch`` or ``serve`` started before a teammate's newer gbrain upgraded the brain went on
    saving pages with its old rules (derived rows no fresh import makes). Every connection
    declares its code's version (``gb_schema()``, :func:`register_functions`); a write to
    ``pages``/``files`` from one older than ``user_version`` is aborted (:data:`SCHEMA_GUARD`),
    and a gbrain from before this version, which has no ``gb_schema``, fails to write at all. The
    writes guarded are those the history triggers keep a version of (a new row, a new text or
    name, a deletion), so a statement that changes only derived columns compiles no guard."""
    schema_guard(conn)


def schema_guard(conn: sqlite3.Connection) -> None:
    """Create v28's guard triggers (:func:`_m28_schema_guard`) on the tables of ``pages`` and
    ``files`` that exist, unless they are there. :func:`migrate` runs it before the first step of
    an upgrade too: a process of the brain's old version must not write between two steps
    (each version commits apart) into a half-upgraded brain."""
    have = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('pages', 'files')")}
    for table, name_cols in (("pages", "slug, path, content_hash"), ("files", "path, content_hash")):
        if table not in have:
            continue
        for event in ("INSERT", "UPDATE", "DELETE"):
            what = f"UPDATE OF {name_cols}" if event == "UPDATE" else event
            conn.execute(f"CREATE TRIGGER IF NOT EXISTS {table}_schema_guard_{event.lower()} BEFORE {what} ON {table} "
                         "WHEN gb_schema() < (SELECT user_version FROM pragma_user_version) "
                         f"BEGIN SELECT RAISE(ABORT, '{SCHEMA_GUARD.replace(chr(39), chr(39) * 2)}'); END")


#: a wiki link whose name (before any ``#`` and ``|``) holds a ``^``
_CARET_WIKI_RE = re.compile(r"\[\[[^\[\]\n#|]*\^[^\[\]\n]*\]\]")


def rederive_caret_link_pages(conn) -> int:
    """Re-derive, from their stored text, the pages holding a wiki link with a ``^`` in its name
    (``[[x^y]]``, ``[[Target^blk]]``): before, the name was cut at the ``^`` (note ``x`` + a block);
    a wiki link splits at its first ``#`` only, as Obsidian's (``markdown._wiki_page``), so it names
    the note ``x^y``. For SQLite v44 / Postgres v46, in the caller's transaction. Returns how many
    pages were parsed."""
    rows = conn.execute("SELECT id, frontmatter_raw, compiled_truth, timeline FROM pages WHERE (compiled_truth LIKE ? OR timeline LIKE ? "
                        "OR frontmatter_raw LIKE ?) ORDER BY id", ("%[[%^%", "%[[%^%", "%[[%^%")).fetchall()
    return rederive_page_ids(conn, [r[0] for r in rows if any(_CARET_WIKI_RE.search(t or "") for t in r[1:])])


def rederive_notion_relation_pages(conn) -> int:
    """Re-derive, from their stored text, the pages of Notion's name shape whose compiled truth
    holds ``.md)`` (a relation property: its items' paths are no searched text,
    :func:`gbrain.page.markdown.notion_relation_spans`, and its links' context is the line as
    Notion shows it, names only) (:func:`rederive_page_ids`). For SQLite v45 / Postgres v47, in
    the caller's transaction. Returns how many pages were parsed."""
    return rederive_page_ids(conn, [r[0] for r in conn.execute("SELECT id FROM pages WHERE path LIKE ? AND compiled_truth LIKE ? ORDER BY id",
                                                               (_NOTION_PAGES[1][0], "%.md)%"))])


def _m45_notion_relation_text(conn: sqlite3.Connection) -> None:
    """A Notion relation property's paths (``Company: Acme (../Companies%20<id>/Acme%20<id>.md)``)
    are addresses: search reads the names only, and the links' context is ``Company: Acme``
    (trial35: ``search Companies`` found every page related to a company). The Notion pages
    holding one are derived again (:func:`rederive_notion_relation_pages`)."""
    rederive_notion_relation_pages(conn)


def rederive_logseq_tag_pages(conn) -> int:
    """Re-derive, from their stored text, the pages read as a Logseq graph's
    (:func:`gbrain.page.markdown.reads_logseq_properties` under config ``property_syntax``) whose
    text holds ``#`` or ``tags::``: a Logseq tag is a link to its page
    (:func:`gbrain.page.markdown.logseq_tag_links`) (:func:`rederive_page_ids`). For SQLite v47 /
    Postgres v49, in the caller's transaction. Returns how many pages were parsed."""
    from ..page.markdown import reads_logseq_properties
    from .derive import parse_settings

    syntax = parse_settings(conn)[2]
    rows = conn.execute("SELECT id, path FROM pages WHERE compiled_truth LIKE ? OR timeline LIKE ? OR compiled_truth LIKE ? ORDER BY id",
                        ("%#%", "%#%", "%tags::%")).fetchall()
    return rederive_page_ids(conn, [r[0] for r in rows if reads_logseq_properties(r[1], syntax)])


def _m47_logseq_tag_links(conn: sqlite3.Connection) -> None:
    """In a Logseq graph a tag is a reference to its page: ``#budget`` and a bare ``tags::`` item
    (``tags:: project``) are wiki links, as ``#[[budget]]`` was (trial35: ``backlinks budget``
    listed none of the pages tagging it); those pages are derived again
    (:func:`rederive_logseq_tag_pages`)."""
    rederive_logseq_tag_pages(conn)


def _m44_caret_links(conn: sqlite3.Connection) -> None:
    """``[[x^y]]`` names the note ``x^y`` (a block reference is ``[[Note#^id]]``), as in Obsidian:
    the pages holding such a link are derived again (:func:`rederive_caret_link_pages`)."""
    rederive_caret_link_pages(conn)


def refill_canvas_cards(conn) -> int:
    """Every stored canvas's ``canvas_cards`` rows written afresh
    (:func:`gbrain.search.keyword.canvas_card_rows`), one canvas's bytes in memory at a time (a
    canvas in pieces has none), inserted :data:`~gbrain.search.keyword.CARDS_PER_INSERT` rows per
    statement; returns the rows written."""
    from ..search.keyword import CARDS_PER_INSERT, canvas_card_rows, insert_canvas_cards

    conn.execute("DELETE FROM canvas_cards")
    n, rows = 0, []
    for fid, pieces in [(int(r[0]), r[1]) for r in conn.execute("SELECT id, pieces FROM files WHERE lower(path) LIKE '%.canvas' ORDER BY id").fetchall()]:
        data = None if pieces else conn.execute("SELECT data FROM files WHERE id = ?", (fid,)).fetchone()[0]
        rows += [(fid, *r) for r in canvas_card_rows(bytes(data) if data is not None else None)]
        if len(rows) >= CARDS_PER_INSERT:
            insert_canvas_cards(conn, rows)
            n, rows = n + len(rows), []
    insert_canvas_cards(conn, rows)
    return n + len(rows)


def _m46_canvas_cards_python(conn: sqlite3.Connection) -> None:
    """A canvas's cards are read by Python, not by the engine's JSON functions, so both engines
    hold the same rows whatever the JSON (a key given twice, ``\\u0000``, deep nesting: docs/storage.md
    "Canvases"): :meth:`gbrain.core.brain.Brain.save_file` writes them
    (:func:`gbrain.search.keyword.write_canvas_cards`); the triggers on ``files`` only delete a
    canvas's rows when it changes or goes (no JSON read in SQL). ``canvas_cards.search``: the text
    indexed in place of ``text``, a link's address blanked as in a page
    (:func:`gbrain.search.keyword.search_text`; NULL where nothing is), read by ``canvas_fts``
    through its content view ``canvas_fts_src``; ``canvas_cards.words``: its CJK bigrams and glued
    words, as a page's ``search_cjk``/``search_words`` (:func:`gbrain.search.keyword.card_words`),
    a second column of ``canvas_fts``. Every canvas's rows written again. Re-runnable."""
    have = {r[1] for r in conn.execute("PRAGMA table_info(canvas_cards)")}
    if "search" not in have:
        conn.execute("ALTER TABLE canvas_cards ADD COLUMN search TEXT")
    if "words" not in have:
        conn.execute("ALTER TABLE canvas_cards ADD COLUMN words TEXT NOT NULL DEFAULT ''")
    cols = ", ".join(_CANVAS_FTS)

    def vals(t: str) -> str:
        return ", ".join(v.format(t=t) for v in _CANVAS_FTS.values())

    src = ", ".join(f"{v.format(t='')} AS {k}" for k, v in _CANVAS_FTS.items())
    _exec_script(conn, f"""
DROP TRIGGER IF EXISTS files_canvas_ai;
DROP TRIGGER IF EXISTS files_canvas_au;
CREATE TRIGGER files_canvas_au AFTER UPDATE OF path, data ON files WHEN old.path LIKE '%.canvas' OR new.path LIKE '%.canvas' BEGIN
  DELETE FROM canvas_cards WHERE file_id = old.id;
END;
DROP TRIGGER IF EXISTS canvas_cards_ai;
DROP TRIGGER IF EXISTS canvas_cards_ad;
DROP TABLE IF EXISTS canvas_fts;
DROP VIEW IF EXISTS canvas_fts_src;
DELETE FROM canvas_cards;
CREATE VIEW canvas_fts_src AS SELECT id, {src} FROM canvas_cards;
CREATE VIRTUAL TABLE canvas_fts USING fts5({cols}, content='canvas_fts_src', content_rowid='id', tokenize='porter unicode61');
CREATE TRIGGER canvas_cards_ai AFTER INSERT ON canvas_cards BEGIN
  INSERT INTO canvas_fts(rowid, {cols}) VALUES (new.id, {vals("new.")});
END;
CREATE TRIGGER canvas_cards_ad AFTER DELETE ON canvas_cards BEGIN
  INSERT INTO canvas_fts(canvas_fts, rowid, {cols}) VALUES ('delete', old.id, {vals("old.")});
END;
""")
    refill_canvas_cards(conn)


#: ``canvas_fts``'s columns (v46) and what its content view ``canvas_fts_src`` reads for them
_CANVAS_FTS = {"text": "coalesce({t}search, {t}text)", "words": "{t}words"}
#: one card's ``canvas_fts`` row taken out (before its UPDATE) and put in (after): :func:`_update_card`
_CARD_FTS_OUT, _CARD_FTS_IN = (
    f"INSERT INTO canvas_fts(canvas_fts, rowid, {', '.join(_CANVAS_FTS)}) SELECT 'delete', id, "
    f"{', '.join(v.format(t='') for v in _CANVAS_FTS.values())} FROM canvas_cards WHERE id = ?",
    f"INSERT INTO canvas_fts(rowid, {', '.join(_CANVAS_FTS)}) SELECT id, "
    f"{', '.join(v.format(t='') for v in _CANVAS_FTS.values())} FROM canvas_cards WHERE id = ?")


def _m48_window_splits(conn: sqlite3.Connection) -> None:
    """``embed_state.window_splits``: how many of the page's chunks were split for the model's
    window by its own tokenizer (``search.chunking._fitted``, ``minilm``'s 256 word pieces): the
    figure `stats` and `embed` report. Rows written before hold 0 (their pages are re-chunked by
    ``embed --stale``: minilm's chunking version 4)."""
    if "window_splits" not in {r[1] for r in conn.execute("PRAGMA table_info(embed_state)")}:
        conn.execute("ALTER TABLE embed_state ADD COLUMN window_splits INTEGER NOT NULL DEFAULT 0")


def rederive_graphless_pages(conn) -> int:
    """Re-derive, from their stored text, the pages of a ``pages``/``journals`` folder that no
    Logseq graph's ``logseq/config.edn`` sits beside (:func:`gbrain.page.markdown.page_property_syntax`
    under config ``property_syntax auto``) whose text holds ``::`` or ``#``: they were read as a
    Logseq graph's by their path alone (opening ``key::`` lines as properties, every tag a link),
    and an Obsidian vault's own ``pages/`` folder is none (:func:`rederive_page_ids`). For SQLite
    v49 / Postgres v51, in the caller's transaction. Returns how many pages were parsed."""
    from ..page.links import graph_roots
    from ..page.markdown import graph_candidates, page_property_syntax
    from .derive import parse_settings

    if parse_settings(conn)[2] != "auto":
        return 0
    graphs = graph_roots(conn)
    rows = conn.execute("SELECT id, path FROM pages WHERE (path LIKE ? OR path LIKE ?) AND (compiled_truth LIKE ? OR compiled_truth LIKE ? "
                        "OR timeline LIKE ?) ORDER BY id", ("%pages/%", "%journals/%", "%::%", "%#%", "%#%")).fetchall()
    return rederive_page_ids(conn, [r[0] for r in rows if graph_candidates(r[1]) and page_property_syntax(r[1], "auto", graphs) == "dataview"])


def rekey_slash_end_names(conn) -> int:
    """Key again the link targets and aliases ending with ``/`` (``[t](/training/foo/)``) by their
    last segment (:func:`gbrain.page.slugs.loose_key`: was the empty key, so a link written before
    its page came stayed dangling) and resolve those links again. For SQLite v49 / Postgres v51, in
    the caller's transaction. Returns how many links changed where they point."""
    from ..page.slugs import loose_key
    from .derive import relink_updates, update_links

    for table, col in (("links", "target"), ("aliases", "alias")):
        key = "target_name" if table == "links" else "loose_key"
        rows = conn.execute(f"SELECT id, {col}, {key} FROM {table} WHERE {col} LIKE ?", ("%/",)).fetchall()
        conn.executemany(f"UPDATE {table} SET {key} = ? WHERE id = ?", [(loose_key(r[1]), r[0]) for r in rows if loose_key(r[1]) != r[2]])
    rows = conn.execute("SELECT l.id, l.kind, l.target, l.to_page_id, p.slug FROM links l JOIN pages p ON p.id = l.from_page_id "
                        "WHERE l.target LIKE ? ORDER BY l.id", ("%/",)).fetchall()
    updates = relink_updates(conn, rows) if rows else []
    update_links(conn, updates)
    return len(updates)


def _m49_logseq_graphs(conn: sqlite3.Connection) -> None:
    """A ``pages``/``journals`` folder is a Logseq graph's only beside its ``logseq/config.edn``
    (an Obsidian vault's own ``pages/`` folder read its Dataview fields as properties and its
    tags as links): the pages of such folders without one are derived again
    (:func:`rederive_graphless_pages`). And a link target or alias ending with ``/`` is keyed by
    its last segment (:func:`rekey_slash_end_names`)."""
    rederive_graphless_pages(conn)
    rekey_slash_end_names(conn)


def rederive_blank_tag_pages(conn) -> int:
    """Re-derive, from their stored text, the pages whose frontmatter ``tags``/``tag`` list holds
    an item with a blank (``tags: [Nested Folder]``): no tag, as Obsidian reads none
    (:func:`gbrain.page.markdown.tag_items`) (:func:`rederive_page_ids`). For SQLite v50 /
    Postgres v52, in the caller's transaction. Returns how many pages were parsed."""
    import json

    from ..page.markdown import TAG_KEYS, tag_items

    ids = []
    for pid, fm in conn.execute("SELECT id, frontmatter FROM pages WHERE frontmatter LIKE ? ORDER BY id", ('%"tag%',)).fetchall():
        try:
            data = json.loads(fm)
        except ValueError:
            continue
        if isinstance(data, dict) and any(isinstance(data.get(k), list) and any(c.isspace() for t in tag_items(data[k], blanks=True) for c in t)
                                          for k in TAG_KEYS):
            ids.append(pid)
    return rederive_page_ids(conn, ids)


def _m50_blank_tags(conn: sqlite3.Connection) -> None:
    """A tags list item holding a blank (``tags: [Folder, Nested Folder]``) is no tag, as Obsidian
    reads none (its Help, "Tags"): the pages holding one are derived again
    (:func:`rederive_blank_tag_pages`)."""
    rederive_blank_tag_pages(conn)


#: a line that may open an H1: an ATX ``#`` heading or a setext underline of ``=`` (a superset:
#: code and quotes too; :func:`rederive_h1_pages` parses only the pages holding one), its line
#: ending ``\n``, ``\r\n`` or ``\r`` (a CRLF page's ``===\r``)
_H1_LINE = re.compile(r"(?:^|(?<=[\n\r])) {0,3}(?:#(?:[ \t\r\n]|$)|=+[ \t]*(?:[\r\n]|$))")


def rederive_h1_pages(conn) -> int:
    """Re-derive, from their stored text, the pages whose compiled truth or timeline holds a line
    that may open an H1 (:data:`_H1_LINE`; a page's first H1 other than its title is a name search
    weighs as an alias: :func:`gbrain.search.keyword.h1_name`, ``pages.h1_key``)
    (:func:`rederive_page_ids`, which writes only the columns that differ; an H1 name is no
    alias, tag, link or timeline entry, so those rows are left as they are: a brain of 7,000
    pages would otherwise get every such row again under a new id), and of the page's columns
    only ``search_aliases`` and ``h1_key`` are its rule's. For SQLite v51 /
    Postgres v53, in the caller's transaction. Returns how many pages were parsed."""
    rows = conn.execute("SELECT id, compiled_truth, timeline FROM pages WHERE compiled_truth LIKE ? OR compiled_truth LIKE ? "
                        "OR timeline LIKE ? OR timeline LIKE ? ORDER BY id", ("%#%", "%=%", "%#%", "%=%"))
    return rederive_page_ids(conn, [r[0] for r in rows if _H1_LINE.search(r[1] or "") or _H1_LINE.search(r[2] or "")],
                             rows=False, only=("search_aliases", "h1_key"))


def _m51_h1_names(conn: sqlite3.Connection) -> None:
    """A page's first H1 that differs from its title names the page in search as an alias does
    (msdocs-ad-identity: 87 of 293 pages are titled "X in Windows Server" and open with "# X"):
    the last line of ``search_aliases`` (a heading too) and ``pages.h1_key``, its
    :func:`~gbrain.page.slugs.title_key` ('' for none), indexed for the exact-name bonus. The
    pages that may hold an H1 are derived again (:func:`rederive_h1_pages`). Re-runnable."""
    if "h1_key" not in {r[1] for r in conn.execute("PRAGMA table_info(pages)")}:
        conn.execute("ALTER TABLE pages ADD COLUMN h1_key TEXT NOT NULL DEFAULT ''")
    conn.execute("CREATE INDEX IF NOT EXISTS idx_pages_h1_key ON pages(h1_key)")
    rederive_h1_pages(conn)


def _m52_brain_stamp(conn: sqlite3.Connection) -> None:
    """The brain's identity in its SQLite header, ``PRAGMA application_id`` (:func:`make_stamp`:
    gbrain's mark, a random brain id, a count of its write transactions that :func:`commit` moves
    on): a write-ahead log's frame of page 1 carries it, so an unclean open tells a log of
    another brain, or of another state of this one, from its own (:func:`set_aside_misfit_wal`).
    SQLite only: Postgres has no such log."""
    import secrets

    if brain_stamp(conn.execute("PRAGMA application_id").fetchone()[0]) is None:
        conn.execute(f"PRAGMA application_id = {make_stamp(secrets.randbelow(STAMP_IDS), 0)}")


def rederive_graphless_journals(conn) -> int:
    """Re-derive, from their stored text, the pages of a ``journals`` folder that is no Logseq
    graph's (:func:`gbrain.page.markdown.page_property_syntax`: no ``logseq/config.edn`` beside
    it, or config ``property_syntax dataview``) whose file name is a day: they were titled as
    Logseq shows a journal (``Nov 28th, 2026``) and ``[[Nov 28th, 2026]]`` found them, by the path
    alone (:func:`rederive_page_ids`); then resolve again the links to them. For SQLite v53 /
    Postgres v55, in the caller's transaction. Returns how many pages were parsed."""
    from ..page.links import graph_roots
    from ..page.markdown import journal_name, page_property_syntax
    from .derive import parse_settings

    setting = parse_settings(conn)[2]
    if setting == "logseq":
        return 0
    graphs = graph_roots(conn)
    ids = [r[0] for r in conn.execute("SELECT id, path FROM pages WHERE path LIKE ? ORDER BY id", ("%journals/%",)).fetchall()
           if journal_name(r[1]) and not page_property_syntax(r[1], setting, graphs).startswith("logseq")]
    if not ids:
        return 0
    rederive_page_ids(conn, ids)
    relink_where(conn, (("l.to_page_id", ids),))
    return len(ids)


def _m53_graphless_journals(conn: sqlite3.Connection) -> None:
    """A ``journals`` folder is a Logseq graph's only as its pages' properties are (beside the
    graph's ``logseq/config.edn``): an Obsidian vault's ``journals/2026_11_28.md`` is no longer
    titled ``Nov 28th, 2026`` nor found by ``[[Nov 28th, 2026]]`` (:func:`rederive_graphless_journals`)."""
    rederive_graphless_journals(conn)


def _m54_letter_fold(conn: sqlite3.Connection) -> None:
    """Keyword search spells the letters no decomposition folds in ASCII (``ł ø đ ß æ œ ı þ ð ħ
    ŧ``: ``Lukasz`` finds ``Łukasz``, ``Soren`` finds ``Søren``, as Lucene's ASCIIFoldingFilter;
    trial 40): the query's words (``search_form``) and the words of a page holding one, beside
    them in ``pages.search_words`` (:func:`rederive_letter_words`, only those pages; the FTS5
    trigger re-indexes the pages that change)."""
    rederive_letter_words(conn)


def fill_link_labels(conn, ids: "set[int] | None" = None) -> int:
    """Set ``links.label`` (:attr:`gbrain.page.markdown.Link.labels`, one per line) of the stored
    links of the pages ``ids``, parsing them again; by default the pages that may hold a labelled
    link: those with a markdown link (its text) and those with another link whose text holds a
    ``|`` (a wiki link's alias). Only the ``label`` of a row whose label differs is written:
    every link row keeps its id, no other column or row is touched. For SQLite v55 / Postgres v58
    and v59 / ``pg_v63.sql`` (:func:`relabel_visible`), in the caller's transaction. Returns how
    many links' labels were written."""
    from ..page.links import graph_roots
    from ..page.markdown import page_property_syntax, parse_page
    from .derive import derived_rows, parse_settings

    if ids is None:
        ids = {r[0] for r in conn.execute("SELECT DISTINCT from_page_id FROM links WHERE kind = 'markdown'")}
        ids |= {r[0] for r in conn.execute(
            "SELECT DISTINCT l.from_page_id FROM links l JOIN pages p ON p.id = l.from_page_id WHERE l.kind <> 'markdown' "
            "AND (p.compiled_truth LIKE ? OR p.frontmatter_raw LIKE ? OR p.timeline LIKE ?)", ("%|%",) * 3)}
    if not ids:
        return 0
    split, tag_syntax, property_syntax = parse_settings(conn)
    graphs = graph_roots(conn)
    q = "SELECT id, path, bom, frontmatter_raw, compiled_truth, separator, timeline FROM pages WHERE id = ?"
    updates: list[tuple[str, int, str, str]] = []
    for pid in sorted(ids):
        r = conn.execute(q, (pid,)).fetchone()
        if r is None:
            continue
        have = {(k, t): label for k, t, label in conn.execute("SELECT kind, target, label FROM links WHERE from_page_id = ?", (pid,))}
        text = ("\ufeff" if r[2] else "") + r[3] + r[4] + r[5] + r[6]
        page = parse_page(text, r[1], timeline_split=split, tag_syntax=tag_syntax, property_syntax=page_property_syntax(r[1], property_syntax, graphs))
        seen: set[tuple[str, str]] = set()
        for kind, target, _name, _context, _count, _forms, label in derived_rows(page)["links"]:
            if (kind, target) not in seen:  # (the first row of a kind and target is the one stored: INSERT OR IGNORE)
                seen.add((kind, target))
                if (kind, target) in have and have[(kind, target)] != label:
                    updates.append((label, pid, kind, target))
    conn.executemany("UPDATE links SET label = ? WHERE from_page_id = ? AND kind = ? AND target = ?", updates)
    return len(updates)


def relabel_visible(conn) -> int:
    """Write again the labels of the links whose stored label may not be its visible text
    (:func:`gbrain.page.markdown.visible_label`: markup marks and HTML tags dropped, character
    references read, NFKC): the pages holding a label with ``* _ ~ = < &`` or a character outside
    printable ASCII, and the pages with links whose text is not ASCII (a compatibility character
    may now make a label: ``[①](x.md)``); :func:`fill_link_labels` over them. For SQLite v59 /
    Postgres v63, in the caller's transaction. Returns how many labels changed."""
    import unicodedata

    pos = "strpos" if is_postgres(conn) else "instr"
    ids = {r[0] for r in conn.execute(
        "SELECT DISTINCT from_page_id FROM links WHERE label <> '' AND ("
        + " OR ".join(f"{pos}(label, ?) > 0" for _ in "*_~=<&") + ")", tuple("*_~=<&"))}
    if is_postgres(conn):
        ids |= {r[0] for r in conn.execute(
            "SELECT DISTINCT from_page_id FROM links WHERE label <> '' AND NOT label IS NFKC NORMALIZED")}
        ids |= {r[0] for r in conn.execute(
            "SELECT p.id FROM pages p WHERE EXISTS (SELECT 1 FROM links l WHERE l.from_page_id = p.id) AND NOT "
            "(compiled_truth IS NFKC NORMALIZED AND timeline IS NFKC NORMALIZED AND frontmatter_raw IS NFKC NORMALIZED)")}
    else:
        ids |= {pid for pid, label in conn.execute("SELECT from_page_id, label FROM links WHERE label <> ''")
                if not label.isascii() and not unicodedata.is_normalized("NFKC", label)}
        ids |= {r[0] for r in conn.execute("SELECT id, compiled_truth, timeline, frontmatter_raw FROM pages p "
                                           "WHERE EXISTS (SELECT 1 FROM links l WHERE l.from_page_id = p.id)")
                if not all(x.isascii() or unicodedata.is_normalized("NFKC", x) for x in r[1:])}
    return fill_link_labels(conn, ids) if ids else 0


def _m55_link_labels(conn: sqlite3.Connection) -> None:
    """A link's label, what the linking page calls its target when that is not the target's name
    (``[[acme|Acme, the seed fund]]``, ``[Sarah's fund](acme.md)``): ``links.label``, each
    distinct one per line (:attr:`gbrain.page.markdown.Link.labels`); search weighs a page's
    incoming labels as evidence (anchor text: :func:`gbrain.search.keyword.anchor_evidence`).
    Filled from the pages that may hold one (:func:`fill_link_labels`). No index of its own: a
    partial one on ``(to_page_id, label)`` cost a 10,000-page import's link rows +25% CPU for no
    search gain measured (the labels of the best 100 hits' links are read by ``idx_links_to``).
    Re-runnable."""
    if "label" not in {r[1] for r in conn.execute("PRAGMA table_info(links)")}:
        conn.execute("ALTER TABLE links ADD COLUMN label TEXT NOT NULL DEFAULT ''")
    fill_link_labels(conn)

#: a page's names keyed but for accents (v56; Postgres ``pg_v60.sql``): one row per name whose
#: folded key differs from its own (:func:`gbrain.storage.derive.name_folds`), kind ``title``,
#: ``path`` (the file name), ``h1`` (an H1 name) or ``alias``; written with the page's columns
#: (``derive.write_name_folds``), read by search's exact names and the put's accent-twin check
_NAME_FOLDS_SQL = """
CREATE TABLE IF NOT EXISTS name_folds (
  page_id INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
  kind TEXT NOT NULL,
  key TEXT NOT NULL,
  PRIMARY KEY (page_id, kind, key)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS idx_name_folds_key ON name_folds(key);
"""


def fill_name_folds(conn) -> int:
    """Write every page's ``name_folds`` rows afresh from its stored ``slug``, ``title``,
    ``search_aliases`` and ``h1_key`` (:func:`gbrain.storage.derive.name_folds`: no parse, and no
    other row or column is touched), in the caller's transaction (SQLite v56 / Postgres v60).
    Returns how many pages have a row."""
    from .derive import write_name_folds

    pages = [(r[0], r[1], r[2], r[3] or "", r[4] or "") for r in conn.execute("SELECT id, slug, title, search_aliases, h1_key FROM pages ORDER BY id")
             if not (r[1].isascii() and r[2].isascii() and (r[3] or "").isascii())]
    conn.execute("DELETE FROM name_folds")
    write_name_folds(conn, pages, new=True)
    return conn.execute("SELECT count(DISTINCT page_id) FROM name_folds").fetchone()[0]


def _m56_name_folds(conn: sqlite3.Connection) -> None:
    """A name typed without its accents or its own letters is the page's name in search's
    exact-name bonus ("Zoe Kim" names the page titled "Zoë Kim", "Lukasz Nowak" "Łukasz Nowak")
    and in the put's accent-twin check: ``name_folds`` (:data:`_NAME_FOLDS_SQL`), filled for
    every page from its stored columns (:func:`fill_name_folds`). Re-runnable."""
    _exec_script(conn, _NAME_FOLDS_SQL)
    fill_name_folds(conn)


def _m57_labelled_links(conn: sqlite3.Connection) -> None:
    """(SQLite v57 / Postgres v61) ``idx_links_labelled``: the links holding a label (``links.label <> ''``), by target, a
    partial index of those rows only (16% of a make_brain brain's links). Search's link-text
    evidence reads the labels of the links to its best 100 hits (:func:`gbrain.search.keyword.
    anchor_evidence`); through ``idx_links_to`` it visited every row linking there, labelled or
    not (1.45 → 0.17 ms that read, search p50 +3.5 → +1.9 ms CPU over v54 on a 20,000-page
    make_brain brain)."""
    conn.execute("CREATE INDEX IF NOT EXISTS idx_links_labelled ON links(to_page_id) WHERE label <> ''")


#: the indexes of a page's keys with their breaks taken out (SQLite v58 / Postgres v62): the put's
#: break-twin check (``operations/core.py: _letter_twins``) looks a name's letters and digits up
#: in them; its statement must spell these expressions as written here
LETTERS_KEYS_SQL = """
CREATE INDEX IF NOT EXISTS idx_pages_loose_letters ON pages((replace(loose_key, '-', '')));
CREATE INDEX IF NOT EXISTS idx_pages_title_letters ON pages((replace(title_key, '-', '')));
"""
#: the pages whose name has a space around a segment (``notes/Draft plan /x``), rare: a partial
#: index, so a name no page has (every put of a new page) lists them without a scan
#: (``Brain.resolve_slug``, whose statement must spell this condition as written here)
SPACED_WHERE = "slug_key != trim(slug_key) OR slug_key LIKE '% /%' OR slug_key LIKE '%/ %'"


def _m58_put_lookups(conn: sqlite3.Connection) -> None:
    """(SQLite v58 / Postgres v62) the lookups of a put of a new name, indexed:
    ``idx_pages_loose_letters``, ``idx_pages_title_letters``, the pages' file-name and title keys
    without their ``-`` (:data:`LETTERS_KEYS_SQL`, indexes of expressions: no column, no derived
    row, every writer keeps them), read by the break-twin check (``people/gus-obrien`` beside
    *Gus O'Brien*), which compared every page's keys so; and ``idx_pages_spaced``, the pages with
    a space around a segment of their name (:data:`SPACED_WHERE`, partial), which
    ``Brain.resolve_slug`` listed by a scan for every name no page has. On a 20,000-page
    make_brain brain the put's twin check took 48 ms CPU, 25 of them the break scan and 23 the
    spaced one."""
    _exec_script(conn, LETTERS_KEYS_SQL + f"CREATE INDEX IF NOT EXISTS idx_pages_spaced ON pages(slug) WHERE {SPACED_WHERE};\n")


def _m59_visible_labels(conn: sqlite3.Connection) -> None:
    """A link's label is the text a reader sees (:func:`gbrain.page.markdown.visible_label`):
    ``[**Sarah** fund](acme.md)`` stored ``**Sarah** fund``, now ``Sarah fund``; the labels that
    may change written again (:func:`relabel_visible`), every link row keeping its id."""
    relabel_visible(conn)


#: a footnote definition opening a line (``[^1]: text``), which search read as a link reference
#: definition until SQLite v60 / Postgres v64 (its first word taken for a URL)
_FOOTNOTE_DEF = re.compile(r"(?m)^[ ]{0,3}\[\^[^\[\]\n]+\]:")


def rederive_obsidian_key_pages(conn) -> int:
    """Re-derive, from their stored text, the pages a string of aliases with a comma names
    (``aliases: Apollo, Project Apollo``: two aliases, as Obsidian splits it; one before) or whose
    frontmatter spells a tags/aliases key in other letter case (``Tags:``, ``Aliases:``: Obsidian
    reads them ignoring case; none before), every row again (their aliases resolve links), and of
    the pages holding a footnote definition (``[^1]: Measured on…``, whose first word search
    blanked as a link reference definition's URL) only ``search_body``/``search_timeline``. For
    SQLite v60 / Postgres v64, in the caller's transaction. Returns how many pages were parsed."""
    import json

    names = ("aliases", "alias", "tags", "tag")

    def changed(fm: str) -> bool:
        try:
            d = json.loads(fm)
        except ValueError:
            return False
        if not isinstance(d, dict):
            return False
        return (any(isinstance(d.get(k), str) and "," in d[k] for k in ("aliases", "alias"))
                or any(k not in names and k.casefold() in names for k in d))

    ids = [r[0] for r in conn.execute("SELECT id, frontmatter FROM pages WHERE frontmatter LIKE ? OR frontmatter LIKE ? ORDER BY id",
                                      ('%"alias%', '%"tag%')) if changed(r[1] or "")]
    done = set(ids)
    rows = conn.execute("SELECT id, compiled_truth, timeline FROM pages WHERE compiled_truth LIKE ? OR timeline LIKE ? ORDER BY id",
                        ("%[^%]:%", "%[^%]:%"))
    notes = [r[0] for r in rows if r[0] not in done and (_FOOTNOTE_DEF.search(r[1] or "") or _FOOTNOTE_DEF.search(r[2] or ""))]
    return rederive_page_ids(conn, ids) + rederive_page_ids(conn, notes, rows=False, only=("search_body", "search_timeline"))


def _m60_obsidian_keys(conn: sqlite3.Connection) -> None:
    """A string of aliases is split at its commas and the tags/aliases keys are read ignoring case
    (``Tags:``), as Obsidian reads them, and a footnote definition's first word is searched text
    (trial 45): those pages derived again (:func:`rederive_obsidian_key_pages`)."""
    rederive_obsidian_key_pages(conn)


#: a docs tree's nav file's entries (v61, docs/storage.md "Navigation files"): a function of the
#: file's bytes and path (:func:`gbrain.page.navfile.nav_rows`), written by ``Brain.save_file``;
#: the trigger on ``files`` only deletes
_NAV_ENTRIES_SQL = """
CREATE TABLE IF NOT EXISTS nav_entries (
  file_id INTEGER NOT NULL,
  ord INTEGER NOT NULL,
  path TEXT NOT NULL,
  path_key TEXT NOT NULL,
  href TEXT NOT NULL,
  context TEXT NOT NULL,
  form TEXT NOT NULL,
  line INTEGER,
  PRIMARY KEY (file_id, ord)
);
CREATE INDEX IF NOT EXISTS idx_nav_entries_path ON nav_entries(path);
CREATE INDEX IF NOT EXISTS idx_nav_entries_key ON nav_entries(path_key);
"""


def fill_bom_sidecars(conn) -> int:
    """Derive the raw rows of each page one of whose ``.raw`` sidecars starts with a UTF-8 byte
    order mark (SQLite v64 / Postgres v68): before, its JSON was not read past the mark (no rows:
    ``raw`` showed no sources). A page with several sidecars (``ana.json`` beside ``ana.JSON``, or
    an NFC and an NFD spelling) gets the rows of the one gbrain reads
    (:func:`gbrain.page.slugs.chosen_sidecar`), as a fresh import of the tree; the page's rows
    replaced as ``Brain._raw_rows`` writes them. Both engines; returns the rows written."""
    from . import blobs, rawspans

    n = 0
    pids = [r[0] for r in conn.execute(
        "SELECT DISTINCT page_id FROM files WHERE kind = 'raw' AND page_id IS NOT NULL "
        "AND (pieces > 0 OR substr(data, 1, 3) = ?)", (rawspans.BOM_BYTES,)).fetchall()]
    for pid in pids:
        files = conn.execute("SELECT id, path, pieces FROM files WHERE kind = 'raw' AND page_id = ?", (pid,)).fetchall()
        datas = {path: blobs.file_bytes(conn, path) for _, path, _ in files}
        if not any(d is not None and bytes(d[:3]) == rawspans.BOM_BYTES for d in datas.values()):
            continue  # (in pieces, no mark: its rows as before)
        page_path = conn.execute("SELECT path FROM pages WHERE id = ?", (pid,)).fetchone()[0]
        n += _raw_rows_from_chosen(conn, pid, files, page_path, datas.get)
    return n


def _raw_rows_from_chosen(conn, pid: int, files: list, page_path: str, read) -> int:
    """Replace the raw rows of page ``pid`` with those of the sidecar gbrain reads among ``files``
    (``(id, path, pieces)`` rows; :func:`gbrain.page.slugs.chosen_sidecar` of their paths beside
    ``page_path``), as ``Brain._raw_rows`` writes them; ``read(path)`` gives its bytes (None: the
    rows are left as they are). Returns the rows written."""
    from ..page.slugs import chosen_sidecar
    from . import rawspans

    chosen = chosen_sidecar([f[1] for f in files], page_path)
    fid, path, pieces = next(f for f in files if f[1] == chosen)
    data = read(path)
    if data is None:
        return 0
    rows = rawspans.sidecar_rows(data)
    conn.execute("DELETE FROM raw_spans WHERE page_id = ?", (pid,))
    rawspans.insert_rows(conn, pid, None if pieces else fid, data, rows)
    return len(rows or ())


def fill_twin_sidecars(conn) -> int:
    """Derive the raw rows of each page with more than one ``.raw`` sidecar (``ana.json`` beside
    ``ana.JSON``, or one name in NFC and NFD) from the one gbrain reads and writes
    (:func:`gbrain.page.slugs.chosen_sidecar`; SQLite v66 / Postgres v71): before, they came from
    the one stored last while ``raw-put`` wrote the first by path. As ``Brain._raw_rows`` writes
    them, so an upgraded brain equals a fresh import; one indexed query when no page has two.
    Both engines; returns the rows written."""
    from . import blobs

    n = 0
    pids = [r[0] for r in conn.execute(
        "SELECT page_id FROM files WHERE kind = 'raw' AND page_id IS NOT NULL GROUP BY page_id HAVING COUNT(*) > 1").fetchall()]
    for pid in pids:
        files = conn.execute("SELECT id, path, pieces FROM files WHERE kind = 'raw' AND page_id = ?", (pid,)).fetchall()
        page = conn.execute("SELECT path FROM pages WHERE id = ?", (pid,)).fetchone()
        if page is None:
            continue
        n += _raw_rows_from_chosen(conn, pid, files, page[0], lambda path: blobs.file_bytes(conn, path))
    return n


def _m66_twin_sidecars(conn: sqlite3.Connection) -> None:
    """(SQLite v66 / Postgres v71) a page with two ``.raw`` sidecars takes its raw rows from the
    one ``raw``/``raw-put`` read and write (:func:`fill_twin_sidecars`)."""
    fill_twin_sidecars(conn)


def _m67_script_folds(conn: sqlite3.Connection) -> None:
    """(SQLite v67 / Postgres v72) the names' folded keys drop only accents
    (:func:`gbrain.page.slugs.drop_accents`: a Latin or Greek letter's marks, a Cyrillic stress
    mark, ``ё``): before, every combining mark went, so ``ガンダム`` was nearly the exact name of a
    page titled ``カンタム``, ``Айда`` of ``Аида``. ``name_folds`` written again from the stored
    columns (:func:`fill_name_folds`, the non-ASCII names only)."""
    fill_name_folds(conn)


def _m69_comment_rules(conn: sqlite3.Connection) -> None:
    """(SQLite v69 / Postgres v74) a ``---`` below a ``%%`` comment left open above it is inside
    the comment (Obsidian hides the rest of the note), no timeline separator: the pages stored
    cut there are split again from the same bytes (:func:`resplit_comment_pages`)."""
    resplit_comment_pages(conn)


def _m70_canvas_folds(conn: sqlite3.Connection) -> None:
    """(SQLite v70 / Postgres v75) Macedonian and Bulgarian ``ѐ ѝ`` (``Ѐ Ѝ``) fold to ``е и`` in
    keyword search as the Greek accents do (:data:`gbrain.page.slugs.SCRIPT_FOLD`): the pages
    holding one get their words so (:func:`rederive_letter_words`, :func:`fill_fold_names`); and
    canvas cards get the folded words a fresh import gives them (:func:`refold_canvas_cards`:
    v68 / v73 re-derived pages only, so a card writing ``ёлочные`` was not found by ``елочные``)."""
    changed = rederive_letter_words(conn, {"ѐ": "е", "Ѐ": "Е", "ѝ": "и", "Ѝ": "И"}) + fill_fold_names(conn)
    if changed and is_postgres(conn):
        conn.execute("DELETE FROM search_vocab_state")
    refold_canvas_cards(conn)


def refold_canvas_cards(conn) -> int:
    """Recompute ``canvas_cards.words`` (:func:`gbrain.search.keyword.card_words`) of every card
    whose text is not ASCII (an ASCII card has none), writing the ones that differ in the caller's
    transaction (the FTS5 triggers and Postgres' ``canvas_cards_tsv`` index them again). The
    cards are read :data:`IN_MAX` at a time by id (:func:`keyset_batches`: Postgres' cursor holds
    a whole answer in memory, and a brain's cards are its canvases' whole text). Returns how many
    changed."""
    from ..search.keyword import card_words

    n = 0
    for rows in keyset_batches(conn, "canvas_cards", "id, text, search, words"):
        for cid, text, search, words in rows:
            if text is None or text.isascii():
                continue
            new = card_words(text if search is None else search)
            if new != (words or ""):
                set_card_words(conn, cid, new)
                n += 1
    return n


def set_card_words(conn, card_id: int, words: str) -> None:
    """Write ``canvas_cards.words`` of card ``card_id`` and index it again, in the caller's
    transaction: SQLite's ``canvas_fts`` (external content, insert/delete triggers only) has the
    card's old row taken out and the new one put in; Postgres' trigger ``canvas_cards_tsv`` sets
    ``tsv`` itself."""
    _update_card(conn, card_id, "words = ?", (words,))


def _update_card(conn, card_id: int, sets: str, params: tuple) -> None:
    """``UPDATE canvas_cards SET {sets} WHERE id = card_id`` (``params`` fill ``sets``' marks) with
    the card indexed again, in the caller's transaction: SQLite's ``canvas_fts`` (external content,
    insert/delete triggers only) has the card's old row taken out before and the new one put in
    after; Postgres' trigger ``canvas_cards_tsv`` sets ``tsv`` itself."""
    update = f"UPDATE canvas_cards SET {sets} WHERE id = ?"
    if is_postgres(conn):
        conn.execute(update, (*params, int(card_id)))
        return
    conn.execute(_CARD_FTS_OUT, (int(card_id),))
    conn.execute(update, (*params, int(card_id)))
    conn.execute(_CARD_FTS_IN, (int(card_id),))


def rederive_logseq_names(conn) -> int:
    """Re-derive, from their stored text, the pages of a Logseq graph's ``pages`` folder (beside
    its stored ``logseq/config.edn``, config ``property_syntax auto``:
    :func:`gbrain.page.markdown.page_property_syntax`) whose file name the graph's
    ``:file/name-format`` reads otherwise than as written (``%``, ``___`` or ``.`` in it:
    :func:`gbrain.page.markdown.logseq_page_name`): they were titled by the file name as written
    (``Project___Alpha``), Logseq names them ``Project/Alpha``; the links that name them are
    resolved again (:func:`rederive_page_ids`). For SQLite v71 / Postgres v76, in the caller's
    transaction. Returns how many pages were parsed."""
    from ..page.links import graph_roots
    from ..page.markdown import page_property_syntax, stem
    from .derive import parse_settings

    if parse_settings(conn)[2] != "auto":
        return 0
    graphs = graph_roots(conn)
    if not graphs:
        return 0
    ids = [r[0] for r in conn.execute("SELECT id, path FROM pages WHERE path LIKE ? ORDER BY id", ("%pages/%",)).fetchall()
           if any(c in stem(r[1]) for c in ("%", "___", ".")) and page_property_syntax(r[1], "auto", graphs).startswith("logseq:")]
    return _rederive_and_relink_titles(conn, ids)


def _rederive_and_relink_titles(conn, ids: list[int]) -> int:
    """:func:`rederive_page_ids` of ``ids``, then the links named by a changed page's old or new
    title resolved again (a title's key may stay, ``Project___Alpha`` and ``Project/Alpha`` are
    both ``project-alpha``, while ``[[Project/Alpha]]`` now finds it by its segments). Returns
    ``len(ids)``."""
    from ..page.links import title_names

    if not ids:
        return 0
    old = {r[0]: r[1] for part, marks in in_parts(ids) for r in conn.execute(f"SELECT id, title FROM pages WHERE id IN ({marks})", part)}
    rederive_page_ids(conn, ids)
    names: set[str] = set()
    for part, marks in in_parts(ids):
        for pid, title in conn.execute(f"SELECT id, title FROM pages WHERE id IN ({marks})", part):
            if title != old.get(pid):
                names |= title_names(title) | title_names(old.get(pid) or "")
    if names:
        relink_where(conn, (("l.target_name", sorted(n for n in names if n)),))
    return len(ids)


def _m77_other_spellings(conn: sqlite3.Connection) -> None:
    """(SQLite v77 / Postgres v85) a page's words written with Arabic vowel marks (harakat) are
    indexed bare beside them, and its words written with ``đ`` in their ``dj`` spelling
    (:func:`gbrain.search.keyword.compat_words` → ``_other_spellings``): the bare ``الطالب`` finds
    a text writing ``الطَّالِبُ`` (unicode61 splits the marked word at its marks, Postgres keeps it
    whole), ``djo*`` finds ``Đorđe``. The pages holding such a character get their words so
    (:func:`rederive_letter_words` with ``keyword._SPELT``'s characters, one read of the pages'
    texts; Postgres selects them in the server), their names' in ``search_fold_names``
    (:func:`fill_fold_names`), the non-ASCII canvas cards theirs (:func:`refold_canvas_cards`);
    the FTS5 triggers re-index what changed (Postgres: the ``pages_search_tsv`` trigger, and
    did-you-mean's vocabulary is made again when first asked, where a page changed). And a Thai run is
    indexed as bigrams with its marks kept (``keyword.thai_tokens``, in ``search_cjk``; unicode61 splits
    Thai at its vowel marks): ``เรี*`` finds ``การเรียนรู้``, not ``เรือ``; the pages holding Thai get
    their ``search_cjk`` again (:func:`rederive_cjk`), the cards their words (above)."""
    from ..search.keyword import _SPELT, _THAI_CHAR

    changed = rederive_letter_words(conn, _SPELT.pattern[1:-1]) + fill_fold_names(conn) + rederive_cjk(conn, _THAI_CHAR.pattern[1:-1])
    if changed and is_postgres(conn):
        conn.execute("DELETE FROM search_vocab_state")
    refold_canvas_cards(conn)


def _m71_logseq_names(conn: sqlite3.Connection) -> None:
    """(SQLite v71 / Postgres v76) a page of a Logseq graph's ``pages/`` folder is titled as Logseq
    names it from its file name, by the graph's ``:file/name-format`` (``Project___Alpha.md`` is
    ``Project/Alpha``: ``[[Project/Alpha]]`` finds it; trial 57): those pages derived again
    (:func:`rederive_logseq_names`)."""
    rederive_logseq_names(conn)


#: how gbrain read a graph's journal formats before v73: a line regex, which missed a setting
#: after a ``;`` in a string on its line and read one in a ``#_`` discarded form or another key's
#: map (kept only so :func:`rederive_logseq_file_names` re-resolves the graphs it misread)
_LINE_SETTING_RE = re.compile(r'^[^;\n]*?:journal/(page-title-format|file-name-format)\s+"((?:[^"\\\n]|\\.)*)"', re.M)


def _line_formats(config_text: str) -> tuple[str, str]:
    """``(title format, file-name format)`` of a ``config.edn`` as gbrain read them before v73
    (:data:`_LINE_SETTING_RE`; :func:`gbrain.page.journals.formats` reads the EDN now)."""
    from ..page.journals import FILE_FORMAT, TITLE_FORMAT

    found: dict[str, str] = {}
    for key, value in _LINE_SETTING_RE.findall(config_text):
        found.setdefault(key, value.replace('\\"', '"'))
    return found.get("page-title-format") or TITLE_FORMAT, found.get("file-name-format") or FILE_FORMAT


def rederive_logseq_file_names(conn) -> int:
    """Re-derive, from their stored text, the pages a Logseq graph names by their file whose stored
    title is not that name: a page of a graph's ``pages`` folder (beside its stored
    ``logseq/config.edn``, config ``property_syntax auto``) whose title is not the name Logseq reads
    from its file (:func:`gbrain.page.markdown.logseq_page_name`), and a journal read as a graph's
    (config ``auto`` beside a stored config, or ``logseq``) whose title is not its day
    (:func:`gbrain.page.markdown.journal_name`): an opening H1 titled them (``pages/Reading
    List.md`` was *Books I want*, ``journals/2026_11_28.md`` *Meeting notes*), Logseq names them by
    their file; the links named by either title resolved again. Then, where a graph's journal
    formats read as EDN (:func:`gbrain.page.journals.formats`) differ from the line regex's
    (:func:`_line_formats`), its dangling links and links to journal pages resolved again, as
    ``Brain.graph_config_changed`` does (config ``auto`` or ``logseq``: ``dataview`` reads no
    journal). One query of the configs first: a brain with no graph (and config ``auto``) reads no
    page. For SQLite v73 / Postgres v78, in the caller's transaction. Returns how many pages were
    parsed."""
    from ..page import journals
    from ..page.links import _config_text, graph_roots, is_graph_config
    from ..page.markdown import journal_name, logseq_file_title, page_property_syntax, reads_graphs
    from .derive import parse_settings, relink_updates, update_links

    setting = parse_settings(conn)[2]
    configs = [(p, _config_text(d)) for p, d in conn.execute("SELECT path, data FROM files WHERE path LIKE ?", ("%" + journals.CONFIG,)).fetchall()
               if is_graph_config(p)]
    if not reads_graphs(setting) or (not configs and setting != "logseq"):
        return 0
    graphs = graph_roots(conn)
    ids = []
    for pid, path, title in conn.execute("SELECT id, path, title FROM pages WHERE path LIKE ? OR path LIKE ? ORDER BY id",
                                         ("%pages/%", "%journals/%")).fetchall():
        syntax = page_property_syntax(path, setting, graphs)
        if syntax.startswith("logseq:"):
            if title != logseq_file_title(path, syntax):
                ids.append(pid)
        elif syntax.startswith("logseq") and title != (journal_name(path, syntax) or title):
            ids.append(pid)
    _rederive_and_relink_titles(conn, ids)
    if any(_line_formats(text) != journals.formats(text) for _, text in configs):
        rows = [r for r in conn.execute(
            "SELECT l.id, l.kind, l.target, l.to_page_id, p.slug, t.slug FROM links l JOIN pages p ON p.id = l.from_page_id "
            "LEFT JOIN pages t ON t.id = l.to_page_id WHERE l.to_page_id IS NULL OR t.slug LIKE ? ORDER BY l.id", ("%journals/%",)).fetchall()
            if r[5] is None or journals.graph_root(r[5]) is not None]
        update_links(conn, relink_updates(conn, [tuple(r)[:5] for r in rows]))
    return len(ids)


def _m73_logseq_file_names(conn: sqlite3.Connection) -> None:
    """(SQLite v73 / Postgres v78) a page of a Logseq graph's ``pages/`` folder is named by its
    file before an opening H1, as Logseq names it (``pages/Reading List.md`` opening with ``# Books
    I want`` is *Reading List*), a graph's journal by its day (``journals/2026_11_28.md`` opening
    with ``# Meeting notes`` is *Nov 28th, 2026*), and a graph's journal formats are read from
    ``config.edn`` as EDN: those pages derived again and those links resolved again
    (:func:`rederive_logseq_file_names`)."""
    rederive_logseq_file_names(conn)


def rederive_logseq_contents(conn) -> int:
    """Re-derive, from their stored text, a Logseq graph's ``pages/contents.*`` pages (right in the
    ``pages/`` folder beside a stored ``logseq/config.edn``, config ``property_syntax auto``:
    :data:`gbrain.page.markdown.LOGSEQ_CONTENTS_SYNTAX`) whose stored title is not ``Contents``,
    the name Logseq gives them, and a graph's journals whose stored title is not their day in
    the graph's title format (:func:`gbrain.page.markdown.journal_name` of their
    :func:`~gbrain.page.markdown.page_property_syntax`: a ``:journal/page-title-format`` other than
    Logseq's default, or a file name only Logseq's fixed day formats read, ``2026-11-28``); then
    the links named by either title resolved again, and the dangling links holding a digit
    (:func:`relink_journal_links`: a journal is found by its day in Logseq's day formats too,
    :func:`gbrain.page.links.journal_keys`). One query of the configs first: a
    brain with no graph (config ``auto``) reads no page. For SQLite v74 / Postgres v79, in the
    caller's transaction. Returns how many pages were parsed."""
    from ..page import journals
    from ..page.links import graph_roots
    from ..page.markdown import LOGSEQ_CONTENTS, LOGSEQ_CONTENTS_SYNTAX, journal_name, page_property_syntax
    from .derive import parse_settings

    setting = parse_settings(conn)[2]
    graphs = graph_roots(conn) if setting == "auto" else {}
    if not graphs:
        return 0
    ids = []
    for pid, path, slug, title in conn.execute("SELECT id, path, slug, title FROM pages WHERE path LIKE ? OR path LIKE ? ORDER BY id",
                                               ("%pages/contents.%", "%journals/%")).fetchall():
        syntax = page_property_syntax(path, setting, graphs)
        if syntax == LOGSEQ_CONTENTS_SYNTAX:
            if title != LOGSEQ_CONTENTS:
                ids.append(pid)
        elif syntax.startswith("logseq") and not syntax.startswith("logseq:") and journals.graph_root(slug) is not None:
            day = journal_name(path, syntax)
            if day and title != day:
                ids.append(pid)
    _rederive_and_relink_titles(conn, ids)
    relink_journal_links(conn)  # (a link naming a journal's day in one of Logseq's day formats)
    return len(ids)


def _m74_logseq_contents(conn: sqlite3.Connection) -> None:
    """(SQLite v74 / Postgres v79) a Logseq graph's ``pages/contents.md`` is titled ``Contents``,
    as Logseq names it, not ``contents``: those pages derived again and the links naming them
    resolved again (:func:`rederive_logseq_contents`)."""
    rederive_logseq_contents(conn)


def rederive_logseq_days(conn) -> int:
    """Re-derive, from their stored text, the pages of a Logseq graph whose name Logseq reads as a
    day and whose stored title is not that day in the graph's title format
    (:func:`gbrain.page.markdown.graph_title_format`): a graph's ``pages/2026-11-20.md`` (its file's
    Logseq name, or a stored ``title::``/frontmatter title, read as a day: ``Nov 20th, 2026``), a
    journal whose file name only cljs-time's leniency reads (``journals/2026-2-03.md``:
    :func:`gbrain.page.journals.logseq_day`), and under config ``property_syntax logseq`` a
    journal beside a config whose title format is not Logseq's default; then the links named by
    either title, the dangling links holding a digit and the links to a ``journals`` page holding
    one resolved again (a link's name is read as a day as leniently: ``[[2026-2-3]]``). One query of
    the configs first: a brain with no graph (config ``auto``) reads no page. For SQLite v75 /
    Postgres v80, in the caller's transaction. Returns how many pages were parsed."""
    from ..page import journals
    from ..page.links import graph_roots
    from ..page.markdown import graph_title_format, journal_name, logseq_file_title, page_property_syntax, reads_graphs
    from .derive import parse_settings, relink_updates, update_links

    setting = parse_settings(conn)[2]
    graphs = graph_roots(conn) if reads_graphs(setting) else {}
    if not graphs and setting != "logseq":
        return 0
    ids = []
    for pid, path, title in conn.execute("SELECT id, path, title FROM pages WHERE path LIKE ? OR path LIKE ? ORDER BY id",
                                         ("%pages/%", "%journals/%")).fetchall():
        syntax = page_property_syntax(path, setting, graphs)
        fmt = graph_title_format(path, syntax)
        if fmt is None:
            continue
        if syntax.startswith("logseq:"):
            names = (title, logseq_file_title(path, syntax) or "")
            days = [journals.logseq_day(n, fmt) for n in names if any(ch.isdigit() for ch in n)]
        else:  # a journals folder's page: its file name's day, or a title read as one
            days = [journals.logseq_day(title, fmt) if any(ch.isdigit() for ch in title) else None]
            own = journal_name(path, syntax)
            if own and own != title:
                ids.append(pid)
                continue
        if any(d is not None and journals.format_day(d, fmt) != title for d in days):
            ids.append(pid)
    _rederive_and_relink_titles(conn, ids)
    digit = re.compile(r"\d")
    rows = [tuple(r)[:5] for r in conn.execute(
        "SELECT l.id, l.kind, l.target, l.to_page_id, p.slug, t.slug FROM links l JOIN pages p ON p.id = l.from_page_id "
        "LEFT JOIN pages t ON t.id = l.to_page_id WHERE l.to_page_id IS NULL OR t.slug LIKE ? ORDER BY l.id", ("%journals/%",)).fetchall()
        if digit.search(r[2]) and (r[5] is None or journals.graph_root(r[5]) is not None)]
    if rows:
        update_links(conn, relink_updates(conn, rows))
    return len(ids)


def _m75_logseq_days(conn: sqlite3.Connection) -> None:
    """(SQLite v75 / Postgres v80) a Logseq graph's page whose name Logseq reads as a day is a
    journal titled as that day (``pages/2026-11-20.md`` is *Nov 20th, 2026*), names are read as
    days as leniently as Logseq's cljs-time does (``2026-2-03``, ``Nov 1th, 2026``), and under
    ``property_syntax logseq`` a journal takes its graph's title format: those pages derived again
    and those links resolved again (:func:`rederive_logseq_days`)."""
    rederive_logseq_days(conn)


def rederive_logseq_settings(conn) -> int:
    """Re-derive what a Logseq graph's ``config.edn`` settings read since v76 change: a config
    setting the legacy ``:date-formatter`` and no ``:journal/page-title-format`` (Logseq's
    graph-parser ``config.cljs``: ``(or (:journal/page-title-format c) (:date-formatter c) "MMM do,
    yyyy")``, :func:`gbrain.page.journals.settings`) titles its journals and its pages named as a
    day in that format: :func:`rederive_logseq_days` (those pages, then their links). A config
    setting ``:pages-directory``/``:journals-directory`` to another folder makes that folder's
    pages the graph's pages or journals, and its ``pages``/``journals`` folders a vault's (until
    v78: since, they stay the graph's too): every page of those four folders derived again, then every link resolved again
    (:func:`gbrain.storage.derive.relink_all`). One query of the configs first: a brain with no
    stored graph config holding ``:date-formatter`` or a folder setting reads no page. For SQLite v76 / Postgres v83, in the caller's transaction. Returns how many pages were
    parsed."""
    from ..page import journals
    from ..page.links import _config_text, is_graph_config
    from ..page.markdown import reads_graphs
    from .derive import parse_settings, relink_all

    legacy = False
    heads: list[str] = []  # the folders of the graphs whose pages/journals folders are others
    for path, data in conn.execute("SELECT path, data FROM files WHERE path LIKE ?", ("%" + journals.CONFIG,)).fetchall():
        if not is_graph_config(path):
            continue
        text = _config_text(data)
        if ":date-formatter" in text and journals.settings(text).title_format != _pre_v76_title_format(text):
            legacy = True
        st = journals.settings(text)
        if (st.pages_dir, st.journals_dir) != ("pages", journals.FOLDER):
            root = path[: -len(journals.CONFIG)]
            heads += [root + d + "/" for d in {"pages", journals.FOLDER, st.pages_dir, st.journals_dir}]
    parsed = rederive_logseq_days(conn) if legacy else 0
    if heads and reads_graphs(parse_settings(conn)[2]):
        ids = sorted({r[0] for h in sorted(set(heads)) for r in conn.execute(
            "SELECT id FROM pages WHERE substr(path, 1, ?) = ?", (len(h), h)).fetchall()})
        rederive_page_ids(conn, ids)
        relink_all(conn)  # (titles, aliases, journals and tags of those pages: rare, every link once)
        parsed += len(ids)
    return parsed


def _pre_v76_title_format(config_text: str) -> str:
    """The journal title format gbrain read from a ``config.edn`` before v76: its
    ``:journal/page-title-format`` alone (the legacy ``:date-formatter`` unread)."""
    from ..page import journals

    top: dict = {}
    items = journals._top_map(config_text)
    for key, value in zip(items[::2], items[1::2]):
        if isinstance(key, str):
            top.setdefault(key, value)
    return journals._edn_string(top.get(":journal/page-title-format")) or journals.TITLE_FORMAT


def _m76_logseq_settings(conn: sqlite3.Connection) -> None:
    """(SQLite v76 / Postgres v83) a Logseq graph's legacy ``:date-formatter`` is its journal
    title format where ``:journal/page-title-format`` is unset, as Logseq reads it, and its
    ``:pages-directory``/``:journals-directory`` name the folders of its pages and journals: the
    pages these change derived again and their links resolved again
    (:func:`rederive_logseq_settings`)."""
    rederive_logseq_settings(conn)



def rederive_logseq_old_folders(conn) -> int:
    """Re-derive what v78 changed: a Logseq graph whose ``config.edn`` names other folders
    (``:pages-directory``/``:journals-directory``, :func:`gbrain.page.journals.settings`) still
    reads its default ``pages/`` and ``journals/`` folders as its pages and journals folders
    (Logseq reads every file of the graph; the files it wrote there before the setting changed
    stay the graph's: :func:`gbrain.page.markdown.page_property_syntax`); before v78 they were a
    vault's. And a config Logseq's EDN reader refuses (an unclosed map, a duplicate key…) has
    Logseq's defaults, where gbrain read the settings written in it before
    (:func:`gbrain.page.journals.lenient_settings`). Every page of such a graph's
    ``pages/``/``journals/`` folder (one the config does not name), and of every folder of a
    refused config's graph under either reading, derived again, then every link resolved again
    (:func:`gbrain.storage.derive.relink_all`: their titles, aliases, tags and days may all change;
    rare). One query of the configs first: a brain with no stored graph config naming another
    folder or refused (or config ``property_syntax dataview``) reads no page. Independent of v77.
    For SQLite v78 / Postgres v86, in the caller's transaction. Returns how many pages were
    parsed."""
    from ..page import journals
    from ..page.links import _config_text, is_graph_config
    from ..page.markdown import reads_graphs
    from .derive import parse_settings, relink_all

    heads: set[str] = set()  # the folders whose pages are read again
    for path, data in conn.execute("SELECT path, data FROM files WHERE path LIKE ?", ("%" + journals.CONFIG,)).fetchall():
        if not is_graph_config(path):
            continue
        text = _config_text(data)
        st, before = journals.settings(text), journals.lenient_settings(text)
        dirs = (st.pages_dir, st.journals_dir)
        root = path[: -len(journals.CONFIG)]
        if st != before:  # a config Logseq's reader refuses: its defaults now, its settings as written before
            heads.update(root + d + "/" for d in {*dirs, before.pages_dir, before.journals_dir})
        elif dirs != ("pages", journals.FOLDER):  # a graph's default folders its config does not name
            heads.update(root + d + "/" for d in ("pages", journals.FOLDER) if d not in dirs)
    if not heads or not reads_graphs(parse_settings(conn)[2]):
        return 0
    ids = sorted({r[0] for h in sorted(heads) for r in conn.execute(
        "SELECT id FROM pages WHERE substr(path, 1, ?) = ?", (len(h), h)).fetchall()})
    if ids:
        rederive_page_ids(conn, ids)
        relink_all(conn)
    return len(ids)


def _m78_logseq_old_folders(conn: sqlite3.Connection) -> None:
    """(SQLite v78 / Postgres v86) a Logseq graph whose config names other folders reads its
    default ``pages/``/``journals/`` as its own (``journals/2026_11_22.md`` is *Nov 22nd, 2026*
    under ``:journals-directory "daily"``), and a config Logseq's reader refuses has Logseq's
    defaults: those pages derived again, then every link resolved again
    (:func:`rederive_logseq_old_folders`)."""
    rederive_logseq_old_folders(conn)


def _m79_unread_and_bare_text(conn: sqlite3.Connection) -> None:
    """(SQLite v79 / Postgres v87) the index reads a page's text without the HTML tags a rendered
    note does not show (``<span class="git-footer">``: ``search span`` found every obsidian-hub
    page) and with its words written with Arabic vowel marks or tatweel bare in place
    (``keyword.search_text``: a bare phrase finds ``كَتَبَ الطَّالِبُ``, each word counted as often
    as written; tatweel, U+0640, and ``أ إ آ`` → ``ا`` folded as harakat are, in a name's and a card's
    words too):
    :func:`rederive_unread_and_bare_pages`, then the canvas cards likewise
    (:func:`recard_unread_and_bare`); Postgres' did-you-mean vocabulary is made again where a
    page changed; the name keys of the pages named with tatweel are written again
    (:func:`refold_tatweel_names`)."""
    changed = rederive_unread_and_bare_pages(conn) + recard_unread_and_bare(conn)
    if changed and is_postgres(conn):
        conn.execute("DELETE FROM search_vocab_state")
    refold_tatweel_names(conn)


def _m80_client_machines(conn: sqlite3.Connection) -> None:
    """(SQLite v80 / Postgres v88) a sync client records the machine that syncs it:
    ``sync_root.machine`` (:func:`gbrain.sync.engine.machine_key`, 8 hex digits; '' unknown). A
    sync or watch of a client another machine's key holds is refused (two containers from one
    image share host name and folder path, so one client id: ``SyncEngine._claim_machine``); a
    client bound before (key '') is adopted by the first machine that syncs it."""
    if "machine" not in {r[1] for r in conn.execute("PRAGMA table_info(sync_root)")}:  # (a test's brain may have it)
        conn.execute("ALTER TABLE sync_root ADD COLUMN machine TEXT NOT NULL DEFAULT ''")


def _m81_raw_html_blocks(conn: sqlite3.Connection) -> None:
    """(SQLite v81 / Postgres v89) the index reads an HTML block raw, as CommonMark does (no
    backslash escape, code span or fence inside one: ``<div>\\<b>x</b></div>``'s ``<b>`` is a tag a
    reader does not see, ``keyword.tag_spans(raw_blocks=True)`` in ``search_text``): the pages and
    canvas cards whose indexed text that changes derived again (:func:`reindex_raw_html_blocks`);
    Postgres' did-you-mean vocabulary is made again where one changed."""
    if reindex_raw_html_blocks(conn) and is_postgres(conn):
        conn.execute("DELETE FROM search_vocab_state")


def _m82_yaml_nul_escapes(conn: sqlite3.Connection) -> None:
    """(SQLite v82 / Postgres v90) a frontmatter's YAML escape that loads to a NUL (``"T\\0"``,
    ``"\\x00"``, ``"\\u0000"``) is U+FFFD in the derived values (``markdown._storable_json``,
    ``canvas.UNSTORABLE``): the pages whose stored frontmatter JSON holds ``\\u0000`` (its only
    spelling of a NUL in ``json.dumps``; a title, tag, alias or property link holding one came from
    it) are derived again (:func:`rederive_pages`). Postgres never stored such a page (its import
    and put failed): pg_v90 is no change. So is a nav file's (``navfile.load_nav``): the files whose
    ``nav_entries`` hold a NUL get their rows again (:func:`write_nav_entries`)."""
    rederive_pages(conn, "SELECT id FROM pages WHERE frontmatter LIKE ? ORDER BY id", ("%\\u0000%",))
    nul = "instr(CAST(path || href || context || form AS BLOB), X'00') > 0"  # (SQLite's text functions stop at a NUL)
    for fid, path, data in conn.execute(f"SELECT f.id, f.path, f.data FROM files f WHERE f.pieces = 0 AND f.id IN "
                                        f"(SELECT file_id FROM nav_entries WHERE {nul}) ORDER BY f.id").fetchall():
        write_nav_entries(conn, fid, path, bytes(data))


def _m83_bare_headings_crlf_spans(conn: sqlite3.Connection) -> None:
    """(SQLite v83 / Postgres v91) a heading's words written with Arabic vowel marks, tatweel or
    ``أ إ آ`` are indexed bare in place (``keyword.bare_headings``, as the body since v79 and the
    query's words: a bare or tatweel-typed query lost a ``مـكـتـبـة`` heading's evidence), and a
    blank line or a fence's closing line ended by CRLF (or a lone CR) ends a code span or fence as
    LF's does (``keyword._code_ranges``: a CRLF page's tags after such a span were indexed as
    text): :func:`rebare_headings` from the stored column, :func:`reindex_crlf_code_spans` the
    pages and canvas cards whose code reads differently; Postgres' did-you-mean vocabulary is made
    again where one changed."""
    if (rebare_headings(conn) + reindex_crlf_code_spans(conn)) and is_postgres(conn):
        conn.execute("DELETE FROM search_vocab_state")


#: the characters :func:`gbrain.search.keyword.bare_headings` changes (``keyword._ARABIC_FOLDS``'
#: class: marks, tatweel, ``آ أ إ``), as a class SQLite's ``GLOB`` and Postgres' ``~`` both read
_BARE_HEADING_CLASS = "[\u0610-\u061a\u0622\u0623\u0625\u0640\u064b-\u065f\u0670\u06d6-\u06dc\u06df-\u06e4\u06e7\u06e8\u06ea-\u06ed]"
_BARE_HEADING_GLOB = "*" + _BARE_HEADING_CLASS + "*"


def rebare_headings(conn) -> int:
    """Write ``search_headings`` again, bare (:func:`gbrain.search.keyword.bare_headings`, a
    function of the stored column: no parse), for the pages whose headings hold a character it
    changes (selected by SQL: :data:`_BARE_HEADING_GLOB` on SQLite, the same class by ``~`` on
    Postgres); the FTS index (SQLite's trigger) and ``search_tsv`` (Postgres') follow. For SQLite
    v83 / Postgres v91, in the caller's transaction. Returns how many pages were written."""
    from ..search.keyword import bare_headings

    where = "search_headings ~ ?" if is_postgres(conn) else "search_headings GLOB ?"
    arg = _BARE_HEADING_CLASS if is_postgres(conn) else _BARE_HEADING_GLOB
    n = 0
    for rows in keyset_batches(conn, "pages", "id, search_headings", where, (arg,)):
        for pid, heads in rows:
            bare = bare_headings(heads or "")
            if bare != (heads or ""):
                conn.execute("UPDATE pages SET search_headings = ? WHERE id = ?", (bare, int(pid)))
                n += 1
    return n


#: the texts whose code ranges a CR may change (v83): a CR, a ``<`` (no tag, nothing to read
#: differently) and a backtick or ``~~~``; ``_CR_CODE_PARAMS`` its four patterns, once a column
_CR_CODE_TEXT = "({c} LIKE ? AND {c} LIKE ? AND ({c} LIKE ? OR {c} LIKE ?))"
_CR_CODE_PARAMS = ("%\r%", "%<%", "%`%", "%~~~%")


def cr_code_differs(text: str | None) -> bool:
    """Whether ``text``'s code spans and fences (:func:`gbrain.search.keyword._code_ranges`) are
    read differently with CR a line end (SQLite v83 / Postgres v91) than without (before: LF the
    only one; the same as reading each CR as another character), for a text holding a tag's ``<``."""
    from ..search.keyword import _code_ranges

    return bool(text) and "\r" in text and "<" in text and _code_ranges(text) != _code_ranges(text.replace("\r", "\x01"))


def reindex_crlf_code_spans(conn) -> int:
    """Derive again ``search_body``/``search_timeline`` of the pages, and ``search``/``words`` of
    the canvas cards, whose code ranges a CR line end changes (:func:`cr_code_differs`; the
    candidates selected by SQL, :data:`_CR_CODE_TEXT`), as :func:`reindex_raw_html_blocks` does
    (``rows=False``, the two columns only; a card's columns only where they change). For SQLite v83
    / Postgres v91, in the caller's transaction. Returns how many pages and cards were derived again."""
    where = " OR ".join(_CR_CODE_TEXT.format(c=c) for c in ("compiled_truth", "timeline"))
    ids = [r[0] for rows in keyset_batches(conn, "pages", "id, compiled_truth, timeline", where, _CR_CODE_PARAMS * 2)
           for r in rows if cr_code_differs(r[1]) or cr_code_differs(r[2])]
    n = rederive_page_ids(conn, ids, rows=False, only=("search_body", "search_timeline"))
    return n + _recard(conn, _CR_CODE_TEXT.format(c="text"), _CR_CODE_PARAMS, cr_code_differs)


def _recard(conn, where: str, params: tuple, differs) -> int:
    """Recompute ``search``/``words`` of the canvas cards ``where`` selects (SQL over
    ``canvas_cards``, ``?`` for ``params``) whose text ``differs`` (a Python check), writing only
    those whose columns change (:func:`_update_card`: SQLite's ``canvas_fts`` row deleted and
    written again; Postgres' ``tsv`` follows by its trigger). The migrations' shared card step
    (v79 :func:`recard_unread_and_bare`, v81, v83). Returns how many cards were written."""
    from ..search.keyword import card_words, search_text

    n = 0
    for rows in keyset_batches(conn, "canvas_cards", "id, text, search, words", where, params):
        for cid, text, search, words in rows:
            if not differs(text):
                continue
            new_search = search_text(text)
            new_words = card_words(text if new_search is None else new_search)
            if (new_search, new_words) == (search, words or ""):
                continue
            _update_card(conn, cid, "search = ?, words = ?", (new_search, new_words))
            n += 1
    return n



def _m84_crlf_tags(conn: sqlite3.Connection) -> None:
    """(SQLite v84 / Postgres v92) a CRLF or a lone CR in an HTML tag's white space is white space,
    as LF is (``keyword._HTML_TAG``; CommonMark's line endings: ``<span\\r\\nclass="x">`` is a tag
    pulldown-cmark renders, which a CRLF page's index and snippets read as text):
    :func:`reindex_crlf_tags`; Postgres' did-you-mean vocabulary is made again where one changed."""
    if reindex_crlf_tags(conn) and is_postgres(conn):
        conn.execute("DELETE FROM search_vocab_state")


def _m85_embed_claims(conn: sqlite3.Connection) -> None:
    """(SQLite v85 / Postgres v93) ``embed_claims``: the chunk texts each embed run is sending to
    its provider now, one row per run (``owner``: ``host:pid:token``) with the model, its Postgres
    backend's pid (``backend``, 0 on SQLite), when the claim lapses (``expires``, Unix seconds) and
    the texts' hashes (``hashes``, space-separated). Two embedders on one brain (two teammates'
    `embed --stale`, a watch's embedder and a manual run) send each text once: the other waits for
    the vector, or drops the claim once its owner is gone (``search/vectors.py`` ``_Claims``). A row
    lives for one group of a run: given back in the transaction storing the vectors."""
    conn.execute(EMBED_CLAIMS_SQL)


#: the table of migration v85 (SQLite) / v93 (Postgres, ``sql/pg_v93.sql``)
EMBED_CLAIMS_SQL = ("CREATE TABLE IF NOT EXISTS embed_claims (owner TEXT PRIMARY KEY, model TEXT NOT NULL, backend INTEGER NOT NULL DEFAULT 0, "
                    "expires REAL NOT NULL, hashes TEXT NOT NULL)")


def _m86_canvas_file_index(conn: sqlite3.Connection) -> None:
    """(SQLite v86 / Postgres v94) ``idx_files_canvas``: a partial index of the stored files whose
    path ends in ``.canvas`` (any case, as ``LIKE`` reads it), so a search in a brain with no canvas
    card reads whether it holds a canvas (an empty one the query may name:
    ``search/keyword.py`` ``CANVAS_FACT_SQL``) from that index, not a scan of every file's path
    (50,000 attachments: 0.8 → 7.7 ms CPU a search on SQLite, 1.0 → 24 ms on Postgres)."""
    conn.execute(CANVAS_INDEX_SQL)


#: the index of migration v86 (SQLite) / v94 (Postgres, ``sql/pg_v94.sql``: ``ILIKE``, as the
#: statement is translated); its ``WHERE`` is the term of ``keyword.CANVAS_FACT_SQL`` it serves
CANVAS_INDEX_SQL = "CREATE INDEX IF NOT EXISTS idx_files_canvas ON files(path) WHERE path LIKE '%.canvas'"


#: the texts a CR in a tag may change (v84): a CR and a ``<``; ``_CR_TAG_PARAMS`` its patterns
_CR_TAG_TEXT = "({c} LIKE ? AND {c} LIKE ?)"
_CR_TAG_PARAMS = ("%\r%", "%<%")


def cr_tag_differs(text: str | None) -> bool:
    """Whether ``text`` may hold a tag :data:`gbrain.search.keyword._HTML_TAG` reads differently
    since SQLite v84 / Postgres v92 (a CR its white space, not its unquoted value): a tag it
    matches, or the pattern before matched (:data:`_HTML_TAG_V83`, LF the only line end), holds a
    CR (a superset: a CR in a quoted value was read alike). Where no match of either holds one,
    each pattern's matches are the other's (the same paths in the same order, those through a CR
    failing), so the text reads as before."""
    from ..search.keyword import _HTML_TAG

    if not text or "\r" not in text or "<" not in text:
        return False
    global _HTML_TAG_V83
    if _HTML_TAG_V83 is None:
        _HTML_TAG_V83 = re.compile(_HTML_TAG.pattern.replace("\\r", ""))
    return any("\r" in m.group() for p in (_HTML_TAG, _HTML_TAG_V83) for m in p.finditer(text))


#: ``keyword._HTML_TAG`` before SQLite v84 / Postgres v92 (no CR in its white space), made when needed
_HTML_TAG_V83: "re.Pattern[str] | None" = None


def reindex_crlf_tags(conn) -> int:
    """Derive again ``search_body``/``search_timeline`` of the pages, and ``search``/``words`` of
    the canvas cards, that may hold a tag across a CR (:func:`cr_tag_differs`; the candidates
    selected by SQL, :data:`_CR_TAG_TEXT`), as :func:`reindex_crlf_code_spans` does. For SQLite
    v84 / Postgres v92, in the caller's transaction. Returns how many pages and cards were derived again."""
    where = " OR ".join(_CR_TAG_TEXT.format(c=c) for c in ("compiled_truth", "timeline"))
    ids = [r[0] for rows in keyset_batches(conn, "pages", "id, compiled_truth, timeline", where, _CR_TAG_PARAMS * 2)
           for r in rows if cr_tag_differs(r[1]) or cr_tag_differs(r[2])]
    n = rederive_page_ids(conn, ids, rows=False, only=("search_body", "search_timeline"))
    return n + _recard(conn, _CR_TAG_TEXT.format(c="text"), _CR_TAG_PARAMS, cr_tag_differs)

#: the texts an HTML block's raw reading may change (v81): a ``<`` escaped, or a ``<`` beside code
#: (a backtick or ``~~~``); ``ESCAPE '!'``: Postgres' ``LIKE`` reads a backslash as its escape
_RAW_BLOCK_TEXT = ("({c} LIKE '%\\<%' ESCAPE '!' OR ({c} LIKE '%<%' AND ({c} LIKE '%`%' OR {c} LIKE '%~~~%')))")


def reindex_raw_html_blocks(conn) -> int:
    """Derive again ``search_body``/``search_timeline`` of the pages, and ``search``/``words`` of
    the canvas cards, whose text holds a tag :func:`gbrain.search.keyword.tag_spans` reads
    differently with ``raw_blocks`` (an escaped or backticked tag inside an HTML block: SQLite v79 /
    Postgres v87 kept it as text): the candidates selected by SQL (:data:`_RAW_BLOCK_TEXT`: a
    ``\\<``, or a ``<`` beside a backtick or ``~~~``), those whose tags differ parsed again
    (:func:`rederive_page_ids`, ``rows=False``, the two columns only: 1 page of the 10,508 of the
    corpora), the cards' columns recomputed (:func:`_recard`, the FTS index kept). For SQLite v81
    / Postgres v89, in the caller's transaction. Returns how many pages and cards were derived
    again."""
    from ..search.keyword import tag_spans

    def differs(text: str | None) -> bool:
        return bool(text) and tag_spans(text, raw_blocks=True) != tag_spans(text)

    where = " OR ".join(_RAW_BLOCK_TEXT.format(c=c) for c in ("compiled_truth", "timeline"))
    ids = [r[0] for rows in keyset_batches(conn, "pages", "id, compiled_truth, timeline", where)
           for r in rows if differs(r[1]) or differs(r[2])]
    n = rederive_page_ids(conn, ids, rows=False, only=("search_body", "search_timeline"))
    return n + _recard(conn, _RAW_BLOCK_TEXT.format(c="text"), (), differs)


def refold_tatweel_names(conn) -> int:
    """Write again the ``name_folds`` rows of the pages whose file name, title, aliases or H1 name
    hold tatweel (U+0640), which the exact-name keys drop since SQLite v79 / Postgres v87
    (:func:`gbrain.page.slugs.drop_accents`): ``مـكـتـبـة`` is keyed ``مكتبة``. From the stored
    columns (:func:`gbrain.storage.derive.write_name_folds`, no parse; the pages selected by SQL's
    ``LIKE``, an exact match of a non-ASCII character on both engines), in the caller's transaction.
    Returns how many pages were written."""
    from .derive import write_name_folds

    like = "%\u0640%"
    pages = [(r[0], r[1], r[2], r[3] or "", r[4] or "") for r in conn.execute(
        "SELECT id, slug, title, search_aliases, h1_key FROM pages WHERE slug LIKE ? OR title LIKE ? OR search_aliases LIKE ? ORDER BY id",
        (like, like, like))]
    write_name_folds(conn, pages)
    return len(pages)


#: the search columns v79's rules (HTML tags, Arabic marks and tatweel) can change
_UNREAD_AND_BARE_COLUMNS = ("search_body", "search_timeline", "search_words", "search_cjk", "search_fold_names")


def rederive_unread_and_bare_pages(conn) -> int:
    """Derive again the search columns v79's rules can change for the pages they touch: a page
    whose text, title, aliases or frontmatter holds an Arabic vowel mark, tatweel or an alef with
    hamza or madda (``keyword._ARABIC_FOLDS``) is parsed again (:func:`rederive_page_ids`,
    ``rows=False``, :data:`_UNREAD_AND_BARE_COLUMNS`: its words and names' words change too); a
    page whose compiled truth or timeline holds an HTML tag a reader does not see
    (:func:`gbrain.search.keyword.tag_spans`) and no such letter has ``search_body`` /
    ``search_timeline`` computed from its stored text as a save computes them
    (``keyword.search_text`` with its Notion relation spans; no parse: a page's ``search_words``
    is no function of its tags), written where they differ. Postgres selects the candidates in the
    server (``LIKE '%<%'`` or the class), SQLite reads every page's texts by id
    (:func:`keyset_batches`) and looks in Python. For SQLite v79 / Postgres v87, in the caller's
    transaction. Returns how many pages were parsed or written."""
    from ..page.markdown import notion_relation_spans
    from ..search.keyword import _ARABIC_FOLDS, search_text, tag_spans

    marks = _ARABIC_FOLDS.search
    cols = "id, compiled_truth, timeline, frontmatter, title, search_aliases, path, search_body, search_timeline"
    if is_postgres(conn):
        where = ("compiled_truth LIKE '%<%' OR timeline LIKE '%<%' "
                 "OR concat_ws(' ', compiled_truth, timeline, frontmatter::text, title, search_aliases) ~ ?")
        params: tuple = (_ARABIC_FOLDS.pattern,)
    else:
        where, params = "", ()
    ids, updates = [], []
    for rows in keyset_batches(conn, "pages", cols, where, params):
        for r in rows:
            ct, tl = r[1] or "", r[2] or ""
            fm = r[3] if r[3] is None or isinstance(r[3], str) else json.dumps(r[3], ensure_ascii=False)  # (Postgres: jsonb)
            if any(x and not x.isascii() and marks(x) for x in (ct, tl, fm, r[4], r[5])):
                ids.append(r[0])
            elif tag_spans(ct) or tag_spans(tl):
                new = (search_text(ct, None, notion_relation_spans(ct, r[6])), search_text(tl))
                if new != (r[7], r[8]):
                    updates.append((*new, r[0]))
    n = _batched_update(conn, "UPDATE pages SET search_body = ?, search_timeline = ? WHERE id = ?", updates)
    return n + rederive_page_ids(conn, ids, rows=False, only=_UNREAD_AND_BARE_COLUMNS)


def recard_unread_and_bare(conn) -> int:
    """Recompute ``canvas_cards.search`` and ``words`` (``keyword.canvas_card_rows``' rule:
    :func:`gbrain.search.keyword.search_text`, then ``card_words``) of the cards whose text holds
    ``<`` or an Arabic vowel mark or tatweel (Postgres selects them in the server, SQLite in
    Python), writing the ones that differ and indexing them again (:func:`_recard`). For SQLite v79
    / Postgres v87. Returns how many changed."""
    from ..search.keyword import _ARABIC_FOLDS

    def touched(text: str | None) -> bool:
        return bool(text) and ("<" in text or (not text.isascii() and bool(_ARABIC_FOLDS.search(text))))

    pg = is_postgres(conn)
    return _recard(conn, "text LIKE '%<%' OR text ~ ?" if pg else "", (_ARABIC_FOLDS.pattern,) if pg else (), touched)


#: the pages an escaped ``\#`` may be in (v72): compiled truth or timeline holding a backslash
#: before ``#`` (``ESCAPE '!'``: Postgres' ``LIKE`` reads a backslash as its escape otherwise)
_ESCAPED_HASH_PAGES = ("SELECT id FROM pages WHERE compiled_truth LIKE ? ESCAPE '!' OR timeline LIKE ? ESCAPE '!' ORDER BY id",
                       ("%\\#%", "%\\#%"))


def rederive_escaped_hash_pages(conn) -> int:
    """Re-derive, from their stored text, the pages whose compiled truth or timeline holds ``\\#``
    (:data:`_ESCAPED_HASH_PAGES`, one query; a brain with none parses nothing): a backslash-escaped
    ``#`` starts no tag, as Obsidian reads it (``From \\#Tag``; the escape's token is marked
    ``escaped``, :class:`gbrain.page.mdparse._EscapeMarkingInline`, and
    :func:`gbrain.page.markdown._tag_text` hides it) (:func:`rederive_pages`). A page holding
    ``\\#`` only as ``\\\\#`` or in code is parsed to the same rows. For SQLite v72 / Postgres
    v77, in the caller's transaction. Returns how many pages were parsed."""
    return rederive_pages(conn, *_ESCAPED_HASH_PAGES)


def _m72_escaped_hashes(conn: sqlite3.Connection) -> None:
    """(SQLite v72 / Postgres v77) an escaped ``\\#`` is no tag (``#### From \\#Tag``,
    ``track \\#People`` in obsidian-hub's Dataview guide; trial 60): the pages whose text holds
    ``\\#`` derived again (:func:`rederive_escaped_hash_pages`)."""
    rederive_escaped_hash_pages(conn)


def _m68_script_letter_words(conn: sqlite3.Connection) -> None:
    """(SQLite v68 / Postgres v73) keyword search folds Russian ``ё`` to ``е`` and drops Greek
    accents (tonos, dialytika, polytonic marks: :data:`gbrain.page.slugs.SCRIPT_FOLD`), which
    unicode61 keeps: ``Ежик`` finds *Ёжик в тумане*, ``Ακροπολη`` a page writing ``Ακρόπολη``, and
    back. The query's words are read so (``search_form``); the pages holding such a letter get
    their words so in ``search_words`` (:func:`rederive_letter_words`) and their names' in
    ``search_fold_names`` (:func:`fill_fold_names`); the FTS5 trigger re-indexes the pages that
    change (Postgres: the ``pages_search_tsv`` trigger, and did-you-mean's vocabulary is made
    again when first asked, where a page changed)."""
    from ..page.slugs import SCRIPT_FOLD

    changed = rederive_letter_words(conn, SCRIPT_FOLD) + fill_fold_names(conn)
    if changed and is_postgres(conn):
        conn.execute("DELETE FROM search_vocab_state")


def _m64_bom_sidecars(conn: sqlite3.Connection) -> None:
    """(SQLite v64 / Postgres v68) a ``.raw`` sidecar starting with a UTF-8 byte order mark
    (Windows editors write one) is read as JSON past it: the rows of those stored before
    (:func:`fill_bom_sidecars`)."""
    fill_bom_sidecars(conn)


def fill_nav_entries(conn) -> int:
    """Write every stored nav file's ``nav_entries`` rows afresh from its bytes
    (:func:`gbrain.page.navfile.nav_rows`; a file in pieces or over ``NAV_MAX_BYTES`` has none), in
    the caller's transaction (SQLite v61 / Postgres v65). Returns how many rows were written."""
    from ..page import navfile

    conn.execute("DELETE FROM nav_entries")
    q = "SELECT id, path FROM files WHERE pieces = 0 AND size <= ? AND (" + " OR ".join(["path LIKE ?"] * len(navfile.NAV_LIKE)) + ") ORDER BY id"
    for fid, path in conn.execute(q, (navfile.NAV_MAX_BYTES, *navfile.NAV_LIKE)).fetchall():
        if navfile.is_nav_file(path):
            data = conn.execute("SELECT data FROM files WHERE id = ?", (fid,)).fetchone()[0]
            write_nav_entries(conn, fid, path, bytes(data))
    return conn.execute("SELECT count(*) FROM nav_entries").fetchone()[0]


def write_nav_entries(conn, file_id: int, path: str, data: bytes | None) -> str | None:
    """Replace the ``nav_entries`` rows of stored file ``file_id`` (at ``path``) by those of its
    bytes ``data`` (None, or a file that is no nav file: none), in the caller's transaction.
    Returns the parse's warning (:func:`gbrain.page.navfile.nav_entries`: YAML that does not load,
    a file over ``NAV_MAX_BYTES``)."""
    from ..page import navfile

    conn.execute("DELETE FROM nav_entries WHERE file_id = ?", (file_id,))
    if data is None or not navfile.is_nav_file(path):
        return None
    rows, warning = navfile.nav_rows(data, path)
    if rows:
        conn.executemany("INSERT INTO nav_entries(file_id, ord, path, path_key, href, context, form, line) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                         [(file_id, *r) for r in rows])
    return warning


def _m61_nav_entries(conn: sqlite3.Connection) -> None:
    """(SQLite v61 / Postgres v65) ``nav_entries``: the entries of each stored nav file (``TOC.yml``,
    ``_toc.yml``, ``mkdocs.yml``) naming a page, stored instead of parsed at every read: a CLI
    ``backlinks`` of a page 300 TOCs name parsed all 300 (436 ms CPU, ``benchmarks/nav_cost.py``).
    Rows are a function of the file's bytes and path, resolved against the pages when read, so no
    page write touches them; ``Brain.save_file`` writes them, the trigger ``files_nav_ad`` deletes
    them with the file. Filled here from the nav files already stored. Re-runnable."""
    _exec_script(conn, _NAV_ENTRIES_SQL + """
CREATE TRIGGER IF NOT EXISTS files_nav_ad AFTER DELETE ON files BEGIN
  DELETE FROM nav_entries WHERE file_id = old.id;
END;
""")
    fill_nav_entries(conn)


#: a block id ending a line (`` ^id``), for :func:`rederive_read_context_pages`
_BLOCK_ID_LINE = re.compile(r"(?m)(?:(?<=[ \t])|^)\^[A-Za-z0-9-]+[ \t]*\r?$")


def rederive_read_context_pages(conn) -> int:
    """Re-derive, from their stored text, the pages with links whose text holds an inline ``%%``
    comment, a callout (``[!``) or a block id ending a line: a link's context is the text a reader
    reads, those blanked (``markdown._read_text``; it held ``^lin See Ledger %% hushword %%``).
    For SQLite v62 / Postgres v66, in the caller's transaction. Returns how many pages were parsed."""
    rows = conn.execute("SELECT id, compiled_truth, timeline FROM pages WHERE id IN (SELECT from_page_id FROM links) ORDER BY id")
    ids = [r[0] for r in rows if any("%%" in t or "[!" in t or ("^" in t and _BLOCK_ID_LINE.search(t)) for t in (r[1] or "", r[2] or ""))]
    return rederive_page_ids(conn, ids)


def _m62_read_contexts(conn: sqlite3.Connection) -> None:
    """A link's context is the text a reader reads: no inline ``%%`` comment, block id or
    callout marker (trial 45): those pages derived again (:func:`rederive_read_context_pages`)."""
    rederive_read_context_pages(conn)


def fill_fold_names(conn) -> int:
    """Set ``pages.search_fold_names`` (:func:`gbrain.search.keyword.fold_name_words`: the
    title's and aliases' words in their search form where it differs, ``Łukasz`` → ``Lukasz``)
    from the stored title and ``search_aliases`` (no parse), writing only the rows that differ
    (ASCII names, nearly every page, have none). For SQLite v63 / Postgres v67 (whose trigger
    indexes the rows written), in the caller's transaction. Returns how many rows were written."""
    from ..search.keyword import fold_name_words

    updates = []
    for pid, title, aliases, have in conn.execute("SELECT id, title, search_aliases, search_fold_names FROM pages").fetchall():
        if (title or "").isascii() and (aliases or "").isascii():
            continue
        new = fold_name_words(title or "", aliases or "")
        if new != (have or ""):
            updates.append((new, pid))
    return _batched_update(conn, "UPDATE pages SET search_fold_names = ? WHERE id = ?", updates)


def _m63_fold_names(conn: sqlite3.Connection) -> None:
    """A name's words with letters no decomposition folds (``Łukasz``, ``Søren``, ``Straße``) are
    indexed in their search form at title weight (``pages.search_fold_names``, a ninth
    ``page_fts`` column: :func:`gbrain.search.keyword.fold_name_words`): `Łukasz` put *Lukasz
    Nowak* first (1.125 to 0.66), *Łukasz Nowak* holding ``lukasz`` only at body weight.
    ``page_fts`` is made again over the view with the new column and rebuilt."""
    if "search_fold_names" not in {r[1] for r in conn.execute("PRAGMA table_info(pages)")}:
        conn.execute("ALTER TABLE pages ADD COLUMN search_fold_names TEXT NOT NULL DEFAULT ''")
    _exec_script(conn,
        """
DROP TRIGGER IF EXISTS pages_ai;
DROP TRIGGER IF EXISTS pages_ad;
DROP TRIGGER IF EXISTS pages_au;
DROP TABLE IF EXISTS page_fts;
DROP VIEW IF EXISTS page_fts_src;
"""
    )
    fill_fold_names(conn)
    _create_fts_view(conn, _FTS_COLS_V63)


@functools.lru_cache(maxsize=1)
def _casefold_apart() -> re.Pattern:
    """The characters ``str.casefold`` and ``str.lower`` map apart (``ß``, ``ﬁ``, ``ς``, Cherokee
    small letters…: 297 in Python 3.11's Unicode 14), and ``Σ``, which lowercases to ``ς`` or ``σ``
    by its context (:func:`tag_identity_may_change`). Made when first asked (~0.3 s)."""
    apart = "".join(c for c in map(chr, range(0x110000)) if not 0xD800 <= ord(c) < 0xE000 and c.casefold() != c.lower())
    return re.compile("[" + re.escape(apart) + "\u03a3]")


#: a YAML double-quoted escape that may spell any character (``\xdf``, ``\u00df``, ``\U000000df``)
_YAML_ESCAPE = re.compile(r"\\[xuU]")


def _frontmatter_end(text: str) -> int:
    """Where the frontmatter block opening ``text`` (a ``---`` line) ends: after its closing
    ``---``/``...`` line (``len(text)`` when none closes it); an upper bound of
    ``markdown.split_frontmatter``'s."""
    m = re.search(r"\n(?:---|\.\.\.)[ \t]*\r?(?:\n|$)", text)
    return m.end() if m else len(text)


def tag_identity_may_change(text: str) -> bool:
    """Whether a page text may hold a tag whose identity ``casefold`` gave (before SQLite v65 /
    Postgres v69) and :func:`~gbrain.page.slugs.tag_identity` (NFC + lowercase) tell apart: its NFC
    form holds a character of :func:`_casefold_apart` in the frontmatter block (the ``tags``
    property) or a YAML escape that may spell one there (``"Stra\\u00dfe"``, ``"\\xdf"``: the
    text ASCII, the tag not), or on a line with a ``#`` before it (an inline tag, Bear's ``#a b#``, Logseq's
    ``#[[a b]]``) or holding ``tags`` in any case (Logseq's ``tags::``, Notion's ``Tags:``). A
    superset: the page is parsed again to know."""
    if text.startswith(("---", "\ufeff---")) and "\\" in text and _YAML_ESCAPE.search(text, 0, _frontmatter_end(text)):
        return True
    if text.isascii():
        return False
    t = unicodedata.normalize("NFC", text)
    fm_end = _frontmatter_end(t) if t.startswith(("---", "\ufeff---")) else -1
    for m in _casefold_apart().finditer(t):
        at = m.start()
        if at < fm_end:
            return True
        start = t.rfind("\n", 0, at) + 1
        end = t.find("\n", at)
        if "#" in t[start:at] or "tags" in t[start : len(t) if end < 0 else end].casefold():
            return True
    return False


def rederive_tag_identity_pages(conn) -> int:
    """Re-derive, from their stored text, the pages holding a tag whose identity is now NFC +
    lowercase as Obsidian's (:func:`~gbrain.page.slugs.tag_identity`) where it was NFC + casefold:
    ``#ß-tag`` beside ``#SS-tag`` is two tags, ``tags.tag_key`` ``ß-tag`` (was ``ss-tag``); a page
    writing both kept one row. The pages with a tag row whose text may hold one
    (:func:`tag_identity_may_change`), only their derived rows (no ``pages`` column reads a tag's
    identity). For SQLite v65 / Postgres v69, in the caller's transaction. Returns how many pages
    were parsed."""
    ids: list[int] = []
    for rows in page_text_batches(conn, "id IN (SELECT page_id FROM tags)"):  # (Postgres' cursor holds a whole answer)
        ids += [r[0] for r in rows if tag_identity_may_change("".join(x or "" for x in r[3:]))]
    return rederive_page_ids(conn, ids, only=())


def _m65_tag_identity(conn: sqlite3.Connection) -> None:
    """(SQLite v65 / Postgres v69) a tag's identity is Obsidian's, NFC + lowercase
    (:func:`~gbrain.page.slugs.tag_identity`), not NFC + casefold: ``#ß-tag`` and ``#SS-tag``
    are two tags, as Obsidian lists them (:func:`rederive_tag_identity_pages`)."""
    rederive_tag_identity_pages(conn)


MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [_m1_initial, _m2_search, _m3_sync, _m4_history, _m5_obsidian, _m6_fields, _m7_trash, _m8_clients, _m9_pieces, _m10_embed_stale, _m11_client_expiry, _m12_nearest_links, _m13_chunking, _m14_frontmatter_words, _m15_compat_words, _m16_writer, _m17_obsidian_trial, _m18_file_ids, _m19_property_links, _m20_source_refs, _m21_cjk_bigrams, _m22_inline_comments, _m23_table_rows, _m24_history_refs, _m25_lean_derived, _m26_logseq_properties, _m27_whole_titles, _m28_schema_guard, _m29_journal_vaults, _m30_template_tags, _m31_migrants, _m32_template_names, _m33_block_order, _m34_numeric_tags, _m35_file_refs, _m36_history_at, _m37_mixed_underlines, _m38_migrant_leftovers, _m39_search_text, _m40_raw_spans, _m41_dataview_fields, _m42_symbol_links, _m43_canvas_text, _m44_caret_links, _m45_notion_relation_text, _m46_canvas_cards_python, _m47_logseq_tag_links, _m48_window_splits, _m49_logseq_graphs, _m50_blank_tags, _m51_h1_names, _m52_brain_stamp, _m53_graphless_journals, _m54_letter_fold, _m55_link_labels, _m56_name_folds, _m57_labelled_links, _m58_put_lookups, _m59_visible_labels, _m60_obsidian_keys, _m61_nav_entries, _m62_read_contexts, _m63_fold_names, _m64_bom_sidecars, _m65_tag_identity, _m66_twin_sidecars, _m67_script_folds, _m68_script_letter_words, _m69_comment_rules, _m70_canvas_folds, _m71_logseq_names, _m72_escaped_hashes, _m73_logseq_file_names, _m74_logseq_contents, _m75_logseq_days, _m76_logseq_settings, _m77_other_spellings, _m78_logseq_old_folders, _m79_unread_and_bare_text, _m80_client_machines, _m81_raw_html_blocks, _m82_yaml_nul_escapes, _m83_bare_headings_crlf_spans, _m84_crlf_tags, _m85_embed_claims, _m86_canvas_file_index]
SCHEMA_VERSION = len(MIGRATIONS)
#: the chain :data:`FRESH_SQL` was made by (a test that sets :data:`MIGRATIONS` back gets the chain)
_CHAIN = tuple(MIGRATIONS)
#: what the whole chain leaves in an empty brain (its ``sqlite_master`` statements, the rows the
#: migrations insert, ``PRAGMA user_version``), generated by ``python -m gbrain.storage.fresh``:
#: a new brain is made from it in one transaction instead of replaying :data:`MIGRATIONS`
#: (:func:`migrate`); ``tests/test_fresh_schema.py`` fails when it is not what the chain leaves
FRESH_SQL = Path(__file__).parent / "sql" / "sqlite_fresh.sql"
#: the steps a new brain takes after :data:`FRESH_SQL` as the chain did: what differs per brain
#: (v52's random brain id) is never frozen into the file
FRESH_PER_BRAIN = (_m52_brain_stamp,)


@functools.lru_cache(maxsize=1)
def _fresh_file() -> "tuple[int, tuple[str, ...]] | None":
    """``(user_version, statements)`` of :data:`FRESH_SQL`, None when it cannot be read."""
    try:
        text = FRESH_SQL.read_text(encoding="utf-8")
    except OSError:
        return None
    m = re.search(r"^PRAGMA user_version = (\d+);$", text, re.M)
    if m is None:
        return None
    out, stmt = [], ""
    for line in text[:m.start()].splitlines(keepends=True):
        if not stmt and (not line.strip() or line.startswith("--")):
            continue
        stmt += line
        if sqlite3.complete_statement(stmt):
            out.append(stmt.strip())
            stmt = ""
    if stmt.strip():
        return None
    return int(m.group(1)), tuple(out)


def fresh_statements() -> "tuple[str, ...] | None":
    """The statements of :data:`FRESH_SQL` that make a new brain's schema, when the file is of this
    code's :data:`MIGRATIONS` (its ``user_version`` is :data:`SCHEMA_VERSION` and the chain is the
    module's own, not one a test set back); None otherwise: the brain is made by the chain."""
    snap = _fresh_file()
    if snap is None or snap[0] != SCHEMA_VERSION or len(MIGRATIONS) != len(_CHAIN) \
            or any(a is not b for a, b in zip(MIGRATIONS, _CHAIN)):
        return None
    return snap[1]


#: a ``--db`` that was meant as a URL but is not a Postgres one (``postgresq://``, ``mysql://``,
#: ``postgresql:/db``, ``postgresql//host``); a one-letter scheme is a Windows drive
_NEAR_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]+:/|postgres(?:ql)?//", re.I)
#: a libpq key/value connection string (``host=… dbname=… password=…``)
_LIBPQ_KV = re.compile(r"(?:^|\s)(?:host|hostaddr|dbname|user|password|port|sslmode|service)\s*=", re.I)


def resolve_db_path(db: str | os.PathLike | None = None) -> Path:
    """The database: ``db`` if given, else ``$GBRAIN_DB``, else ``./brain.db``. A path is a
    SQLite file (a ``Path``); a ``postgresql://`` URL gives a :class:`gbrain.storage.pg.DbUrl`
    (a ``str`` showing the URL with its password redacted). A leading ``~`` / ``~user`` of a
    path is expanded (an MCP host's JSON config has no shell to do it); nothing else is
    (``$HOME`` stays as written)."""
    target = db or os.environ.get("GBRAIN_DB") or DEFAULT_DB
    if is_url(target):
        from .pg import DbUrl

        return target if isinstance(target, DbUrl) else DbUrl(str(target))  # type: ignore[return-value]
    if isinstance(target, str) and (_NEAR_URL.match(target) or _LIBPQ_KV.search(target)):
        from ..errors import BadInput
        from .pg import redact

        raise BadInput(f"the brain {redact(target)} (--db or GBRAIN_DB) is neither a postgresql:// URL nor a brain file; "
                       "a Postgres brain is given as postgresql://user:password@host/database "
                       "(a key=value connection string is not taken)")
    try:
        return Path(target).expanduser()
    except RuntimeError:  # ~nosuchuser: the path as written ("no brain at ~nosuchuser/…")
        return Path(target)


def refuse_unusable(path: Path | str) -> None:
    """Refuse, before a long-running command starts (``serve``), a SQLite ``path`` that exists
    and cannot be a brain: a folder, an empty file (no ``-wal`` beside it: :func:`empty_file_refusal`), or a file that does not start with SQLite's
    16-byte header (``SQLite format 3\\0``, https://www.sqlite.org/fileformat.html §1.3). Reads at
    most 16 bytes; a Postgres URL (a ``str``) or a missing path passes. Raises
    :class:`BadInput` (exit 2: the path given is no brain), worded as opening the brain would be."""
    if isinstance(path, str) or not path.exists():
        return
    if path.is_dir():
        raise BadInput(f"{path} is not a usable brain database: it is a folder")
    try:
        with open(path, "rb") as fh:
            head = fh.read(16)
    except OSError as e:
        raise GBrainError(f"{path} is not a usable brain database: {e.strerror}") from None
    if head and head != b"SQLite format 3\x00":
        raise BadInput(f"{path} is not a usable brain database: file is not a database")
    if not head and not os.path.exists(str(path) + "-wal"):  # every call would be refused: say it once, now
        raise BadInput(empty_file_refusal(path))


def empty_file_refusal(p: Path) -> str:
    """The one message for a zero-byte ``--db`` file (no ``-wal`` beside it): no brain, and
    opening it must not silently make one (``gbrain init`` does, on purpose)."""
    return f"{p} is an empty file (0 bytes), not a brain; pass the right --db, or run `gbrain init {cmd_arg(p)}` to make it a new brain"


def is_url(target: object) -> bool:
    """Whether a ``--db`` value names a Postgres database (``postgresql://`` / ``postgres://``)
    rather than a SQLite file. (Checked without importing the Postgres code.)"""
    return isinstance(target, str) and target.startswith(("postgresql://", "postgres://"))


def is_postgres(conn) -> bool:
    """Whether ``conn`` is a Postgres connection (:class:`gbrain.storage.pg.PgConnection`)."""
    return getattr(conn, "dialect", "sqlite") == "postgres"


def change_stamp(conn) -> tuple:
    """What a cache of rows read on ``conn`` compares to know the database unchanged since:
    ``(conn, PRAGMA data_version, conn.total_changes)`` (another connection's or process's
    commit changes the first; this connection's writes the second), on Postgres with the schema
    version too (``max(version)`` of ``gbrain_schema``): its ``data_version`` is the newest
    history and embedding rows, which a migration deriving rows again (aliases, embed state,
    vectors dropped) in another process leaves as they were. Two stamps match when
    :func:`same_stamp`. Raises what the connection's queries raise."""
    stamp = (conn, conn.execute("PRAGMA data_version").fetchone()[0], conn.total_changes)
    if is_postgres(conn):
        stamp += (conn.execute("SELECT max(version) FROM gbrain_schema").fetchone()[0],)
    return stamp


def same_stamp(old: tuple | None, new: tuple) -> bool:
    """Whether :func:`change_stamp` ``old`` (None: no stamp kept) is ``new``: the same
    connection object (never its id, which a later connection could reuse), the same values."""
    return old is not None and old[0] is new[0] and old[1:] == new[1:]


def is_read_only(p: Path) -> bool:
    """Whether the database cannot be written here: a read-only mount (``statvfs``'s
    ``ST_RDONLY``), or a file or folder without write permission for this user (root ignores
    modes, so for root only the mount counts)."""
    try:
        if os.statvfs(p.parent if str(p.parent) else ".").f_flag & os.ST_RDONLY:
            return True
    except (OSError, AttributeError):
        pass
    if not p.exists():
        return False
    return not os.access(p, os.W_OK) or not os.access(p.parent if str(p.parent) else ".", os.W_OK | os.X_OK)


def one_line(e: object, limit: int = 200) -> str:
    """An error's text for one printable line: whitespace runs as one space, characters that
    are not printable (or U+FFFD, what bytes of a damaged page decode to) as ``?``, at most
    ``limit`` characters. SQLite may quote damaged data in its messages."""
    text = " ".join(str(e).split())
    text = "".join(c if c.isprintable() and c != "\ufffd" else "?" for c in text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def recovery_advice(p: Path | str, *, readable: bool = True) -> str:
    """How to recover from a damaged brain ``p``: save what is readable with ``export``, or
    rebuild it from the markdown folder; with ``readable`` False (the file cannot even be
    opened: nothing can be exported) only the rebuild, or a backup. Restoring a backup names the
    ``-wal``/``-shm`` files to remove first (SQLite would replay a killed writer's log onto it)."""
    # a killed writer's log left beside the file is replayed onto a backup copied back over it
    restore = f"with no gbrain running, remove {p}-wal and {p}-shm if there, then copy the backup over {p}"
    if not readable:
        return (f"nothing can be saved from it: rebuild the brain from your markdown folder with `gbrain import FOLDER --db NEW.db`, "
                f"or restore a backup ({restore})")
    return (f"to recover, save what is readable with `gbrain export --dir SAFE_FOLDER --db {cmd_arg(p)}`, "
            f"or rebuild the brain from your markdown folder with `gbrain import FOLDER --db NEW.db`, or restore a backup ({restore})")


def cut_short(p: Path | str) -> str:
    """``" (cut short: N of the M bytes its header counts)"`` when SQLite file ``p`` is shorter
    than the page count in its header says (a truncated copy, a full disk during a copy), else
    ``""`` (also when that cannot be told)."""
    try:
        with open(p, "rb") as f:
            head = f.read(100)
            size = os.fstat(f.fileno()).st_size
    except OSError:
        return ""
    if len(head) < 32 or not head.startswith(b"SQLite format 3\0"):
        return ""
    page = int.from_bytes(head[16:18], "big")
    page = 65536 if page == 1 else page
    want = page * int.from_bytes(head[28:32], "big")
    return f" (cut short: {size:,} of the {want:,} bytes its header counts)" if 0 < size < want else ""


def is_busy(e: BaseException, p: Path | str | None = None) -> bool:
    """Whether ``e`` is a busy brain: another connection holds the write lock past this one's wait
    (SQLite's SQLITE_BUSY, "database is locked": :func:`begin_write`'s wait ran out; Postgres'
    lock_timeout, deadlock or serialization failure, which ``pg._mapped`` words the same), so
    running the command again later may work (``errors.Busy``, kind ``busy``). Only a
    ``sqlite3.OperationalError`` saying that: not SQLITE_LOCKED ("database table is locked":
    this connection's own statements clash) nor another error whose text merely holds "locked"
    or "busy" (a lost connection to a database named so). With ``p`` (the brain): a SQLite
    brain whose disk is full is not busy (a full disk's reader holds the file exclusively,
    ``_connect_on_full_disk``). THE rule of :func:`db_error`, sync and watch."""
    if not isinstance(e, sqlite3.OperationalError):
        return False
    low = str(e).lower()
    if "database is locked" not in low and "database is busy" not in low:
        return False
    return p is None or is_url(str(p)) or not disk_full(p)


def db_error(e: sqlite3.Error, p: Path | str, *, wrote: bool = True, opening: bool = False, kept: str = "") -> GBrainError:
    """One clear line (a :class:`GBrainError`) for a SQLite error on database ``p``: damaged
    file (with how to recover), full disk, read-only file or mount, I/O error; the rest as is.
    ``wrote`` says whether the failing call was a write (its transaction was rolled back);
    ``opening`` that it came while opening the brain (a damaged file then has nothing readable:
    the advice is a rebuild or a backup, not an export); ``kept``: what the command committed
    before the write rolled back, said after it (a chunked sync's chunks: ``operations/sync.py``)."""
    from ..errors import Damaged

    msg = one_line(e)
    if is_url(str(p)):
        from .pg import Disconnected

        if isinstance(e, Disconnected):  # its own line: cannot reach / lost the connection to …
            msg = one_line(e, 400)
            return GBrainError(msg if e.unreachable else f"{msg}; run it again")
    low = msg.lower()
    if "newer than this gbrain" in low:  # the v28 guard: a process older than the brain's schema
        return GBrainError(f"{p}: {one_line(str(e).split('CONTEXT:')[0], 400)}")  # (Postgres' CONTEXT: the trigger's name)
    rolled = "; the unfinished write was rolled back (nothing half-written)" + (f"; {kept}" if kept else "") if wrote else ""
    # gbrain writes only valid UTF-8 as TEXT (other bytes are blobs): text that does not decode is damage
    if "malformed" in low or "not a database" in low or "corrupt" in low or "could not decode to utf-8" in low:
        if opening:
            return Damaged(f"{p} is damaged and cannot be opened (SQLite: {msg}){cut_short(p)}; {recovery_advice(p, readable=False)}")
        return Damaged(f"{p} is damaged (SQLite: {msg}); writes are refused; {recovery_advice(p)}")
    if ("vtable constructor failed" in low or "fts5 file format" in low) and not is_url(str(p)):
        # the search index's tables would not open or read: their rows (config, shadow tables)
        # damaged when SQLite's quick_check finds the file so (tests/test_faults.py, random bytes
        # at 60% after v62's layout)
        problem = _file_quick_check(p)
        if problem:
            return Damaged(f"{p} is damaged (SQLite: {msg}; {problem}); writes are refused; {recovery_advice(p)}")
    busy = is_busy(e, p)
    if busy and is_url(str(p)):
        from ..errors import Busy

        # pg._mapped: the server's lock_timeout ended the wait for the writers' advisory lock, or
        # it rolled the transaction back (a deadlock, a serialization failure)
        return Busy(f"the brain {p} is busy: another process holds its write lock past this connection's lock_timeout (or statement_timeout), "
                    f"or the server rolled the transaction back to be run again; nothing was written ({busy_cause(msg)}); run it again")
    if busy:
        from ..errors import Busy

        # begin_write waited WRITE_WAIT_S for another process's write transaction (trial 62: it
        # said only "database error on …: database is locked", kind error)
        return Busy(f"the brain {p} is busy: another process holds its write lock and kept it all the while this one waited "
                    f"(up to {WRITE_WAIT_S:.0f} s: a long import, sync or copy, or a stuck process; `fuser -v {cmd_arg(p)}` lists "
                    f"the processes that have it open); nothing was written (SQLite: {msg}); run it again when that one is done")
    if "disk is full" in low or "database or disk is full" in low:
        return GBrainError(f"the disk holding {p} is full (SQLite: {msg}){rolled}; free some space and run it again")
    if ("readonly" in low or "read-only" in low or "disk i/o error" in low) and not is_url(str(p)) and disk_full(p):
        return GBrainError(f"the disk holding {p} is full (SQLite: {msg}){rolled}; free some space and run it again")
    if "readonly" in low or "read-only" in low:
        stuck = [] if is_url(str(p)) or is_read_only(Path(p)) else [
            f for f in (f"{p}-wal", f"{p}-shm") if os.path.exists(f) and not os.access(f, os.W_OK)]
        if stuck:  # the file and its folder are writable: a log or WAL index another user's or left read-only
            return GBrainError(f"{p} cannot be written: {' and '.join(stuck)} beside it cannot (SQLite: {msg}){rolled}; "
                               f"with no gbrain running, give it the brain's owner and mode (or remove {p}-shm), then run it again")
        return GBrainError(f"{p} is read-only (SQLite: {msg}){rolled}; reads work, writes need write access to the file and its folder")
    if "disk i/o error" in low:
        cap = None if is_url(str(p)) else _file_size_limit()
        if cap is not None and _near_limit(p, cap):  # EFBIG past `ulimit -f` reads as an I/O error (trial 59)
            return GBrainError(f"cannot write {p}: this process's file size limit (`ulimit -f`) is {cap:,} bytes (SQLite: {msg}){rolled}; "
                               f"raise the limit (`ulimit -f unlimited`) and run it again")
        return GBrainError(f"disk I/O error on {p} (SQLite: {msg}){rolled}; check the disk, then run `gbrain check --db {cmd_arg(p)}`")
    return GBrainError(f"database error on {p}: {msg}")



def _file_size_limit() -> int | None:
    """This process's file size limit in bytes (``RLIMIT_FSIZE``, the shell's ``ulimit -f``), None
    when there is none or it cannot be read: a write past it fails EFBIG, which SQLite reports as a
    disk I/O error."""
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
    except (ImportError, OSError, ValueError, AttributeError):
        return None
    return None if soft == resource.RLIM_INFINITY or soft < 0 else int(soft)


def _near_limit(p: Path | str, cap: int) -> bool:
    """Whether the database ``p``, its ``-wal`` or ``-journal`` is within 1 MiB of ``cap`` bytes
    (a write past the file size limit failed, not the disk)."""
    for f in (str(p), f"{p}-wal", f"{p}-journal"):
        try:
            if os.path.getsize(f) + (1 << 20) >= cap:
                return True
        except OSError:
            pass
    return False


def where(p: Path) -> str:
    """``p`` as a message names a brain file: as given when absolute, else followed by the folder it
    is relative to (``brain.db in /home/ana/notes``: the default brain is the one where the command
    runs, trial 24); a ``postgresql://`` target (no local path) as its ``str``. Never raises (a folder
    gone from under the process: the path as given)."""
    if not isinstance(p, Path) or getattr(p, "url", None) or p.is_absolute():
        return str(p)
    try:
        return f"{p} in {os.getcwd()}"
    except OSError:
        return str(p)


#: the file beside the database whose shared lock says "a gbrain process has the brain open"
#: (``core/brain.py: _open_lock``): ``brain.db`` + this; sync and watch leave it out like ``-wal``
OPEN_LOCK_SUFFIX = "-gbrain.lock"

#: the temp folder of gbrain's lock files that cannot lie beside the database (the sync lock; the
#: open lock in a folder it cannot write): a fixed one, not ``$TMPDIR``, so processes with
#: different temp folders (an agent's MCP server or a service's watch, a shell's CLI) find one file
LOCK_TEMP = "/tmp"


def connect(path: str | os.PathLike, *, create: bool = True, allow_empty_file: bool = False) -> sqlite3.Connection:
    """Open (and migrate) a brain database.

    Sets WAL, foreign keys, a 10 s busy timeout and ``synchronous=NORMAL``. Runs pending
    migrations. A database that cannot be written (read-only file or mount, see
    :func:`is_read_only`) is opened read-only (``mode=ro``, or ``immutable=1`` when even the
    WAL index cannot be created) so reads work; writes then fail with a clear line.
    Raises :class:`GBrainError` when the file is missing and ``create`` is false, when it is a
    zero-byte file (not silently a new brain, unless ``allow_empty_file``: ``gbrain init``), when
    it is not a SQLite database, or when its schema is newer than this code.
    """
    if is_url(path):
        from . import pg

        return pg.connect(getattr(path, "url", None) or str(path))  # type: ignore[return-value]
    p = Path(path)
    if p.is_dir():
        raise BadInput(f"{p} is a folder; --db / GBRAIN_DB must name the database file, e.g. {p / DEFAULT_DB}")
    if not create and not p.exists():
        raise BadInput(f"no brain at {where(p)} (run `gbrain init` or `gbrain import DIR` first, or pass --db)")
    if p.parent and not p.parent.exists():
        raise BadInput(f"folder for the database does not exist: {p.parent}")
    try:
        empty = p.exists() and p.stat().st_size == 0 and not os.path.exists(str(p) + "-wal")
    except OSError:
        empty = False
    if empty and not allow_empty_file:
        raise BadInput(empty_file_refusal(p))
    ro = is_read_only(p) and p.exists()
    new = not p.exists()
    if new:
        _create_private(p)
    elif not ro:
        _companions_writable(p)
    try:
        conn = raw_connect(p, read_only=ro)
    except sqlite3.Error as e:
        raise GBrainError(f"cannot open the brain database {p}: {e}") from e
    try:
        set_up(conn, read_only=ro)
        if ro:
            v = conn.execute("PRAGMA user_version").fetchone()[0]
            if v < SCHEMA_VERSION:
                raise GBrainError(f"{p} is read-only and needs a schema upgrade (v{v} → v{SCHEMA_VERSION}) that writes; open it once with write access")
            if v > SCHEMA_VERSION:
                raise GBrainError(newer_schema(v, SCHEMA_VERSION, p))
        else:
            try:
                migrate(conn, p)
            except sqlite3.OperationalError as e:
                if not is_busy(e):
                    raise
                # the upgrade's write waited out begin_write behind another process's write (its
                # own upgrade, an import): a writer, not a full disk's reader (``held_alone``)
                from ..errors import Busy

                try:
                    v = f"v{conn.execute('PRAGMA user_version').fetchone()[0]} → "
                except sqlite3.Error:
                    v = ""
                raise Busy(f"the brain {p} is busy: another process was writing it all the while this one waited "
                           f"({WRITE_WAIT_S:g} s) to upgrade its schema ({v}v{SCHEMA_VERSION}; "
                           f"that process may be upgrading it too); nothing was done (SQLite: {one_line(e)}); run it again when that one is done") from e
    except sqlite3.DatabaseError as e:
        conn.close()
        if "malformed" in str(e).lower():
            raise db_error(e, p, wrote=False, opening=True) from e
        if not ro and any(k in str(e).lower() for k in ("i/o", "full", "unable to open")) and disk_full(p):
            if new:
                _drop_empty(p)  # a new brain the full disk refused: no empty file left behind
            return _connect_on_full_disk(p, e, new=new)
        if "file is not a database" in str(e).lower():  # not SQLite at all: the wrong file was named
            raise BadInput(f"{p} is not a usable brain database: {e}") from e
        if is_busy(e):
            raise held_alone(e, p) from e
        if not ro and "disk i/o error" in str(e).lower() and (cap := _file_size_limit()) is not None and _near_limit(p, cap):
            # EFBIG past `ulimit -f` while the schema was written or upgraded (a new brain's is ~400 KB):
            # named as such, not a damaged file; the schema's transaction rolled back
            raise db_error(e, p, wrote=True, opening=True) from e
        raise GBrainError(f"{p} is not a usable brain database: {e}") from e
    except GBrainError:
        conn.close()
        raise
    conn.row_factory = sqlite3.Row
    return conn


def set_up(conn: sqlite3.Connection, *, read_only: bool = False) -> None:
    """Give a new SQLite connection to a brain what every gbrain connection has: the busy timeout
    (:data:`BUSY_TIMEOUT_MS`), WAL (unless ``read_only``: a read-only open cannot set it), foreign
    keys, ``synchronous=NORMAL`` and the SQL functions (:func:`register_functions`). The one
    spelling :func:`connect` and the snapshot's chain (``storage/fresh.py: chain_brain``) share.
    Raises ``sqlite3.DatabaseError`` as the pragmas do (a file that is not a database)."""
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    if not read_only:
        conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA synchronous = NORMAL")
    register_functions(conn)


def held_alone(e: sqlite3.Error, p: Path) -> GBrainError:
    """The error for a brain ``p`` whose opening read waited SQLite's busy timeout
    (:data:`BUSY_TIMEOUT_MS`) and got "database is locked" (``e``): in WAL mode only a connection
    holding the file exclusively stops a reader, in practice a gbrain process that opened it on a
    full disk (:func:`_connect_on_full_disk`), until that process ends. On a full disk: the disk is
    full (kind error); with space again: the brain is busy (:class:`~gbrain.errors.Busy`). (It
    said "… is not a usable brain database: database is locked".) A process that opened the brain
    before such a reader never meets it: its own WAL index lets the reader open normally, and
    its write fails at once on the full disk, so :func:`begin_write` does not wait behind one.
    (A schema upgrade at open whose :func:`begin_write` waited out another process's write is
    another busy, said by :func:`connect`: a writer, not such a reader.)"""
    from ..errors import Busy

    msg, who = one_line(e), f"`fuser -v {cmd_arg(p)}` lists the processes that have it open"
    if disk_full(p):
        return GBrainError(f"the disk holding {p} is full, and another gbrain process that opened the brain on the full disk holds it alone "
                           f"(with no room for its WAL index it reads without one, keeping every other process off) until it ends "
                           f"(SQLite: {msg}); free some space and run it again once that one ended ({who})")
    return Busy(f"the brain {p} is busy: another process holds it alone past this one's wait of {BUSY_TIMEOUT_MS / 1000:g} s "
                f"(a gbrain process that opened it while its disk was full keeps it so until it ends; {who}); "
                f"nothing was done (SQLite: {msg}); run it again when that one is done")


def _companions_writable(p: Path) -> None:
    """Give ``p``'s ``-wal`` and ``-shm`` the database file's mode where they lack the owner's
    write bit and the file has it. A read of a read-only file (SQLite's ``mode=ro``) makes them
    with the file's mode then, 0444; once the user made the file writable again every write
    failed "read-only" (SQLite opens such a ``-shm`` read-only; trial 59). Never raises: a file
    this user may not change is left to SQLite's error (:func:`db_error` names it)."""
    try:
        mode = p.stat().st_mode & 0o777
    except OSError:
        return
    if not mode & 0o200:
        return
    for f in (Path(str(p) + "-wal"), Path(str(p) + "-shm")):
        try:
            if not f.stat().st_mode & 0o200:
                os.chmod(f, mode)
        except OSError:
            pass


def _create_private(p: Path) -> None:
    """Create the new database file ``p`` empty with mode 0600 (owner only, whatever the umask):
    it holds every version of every page (trial 21: 0644 let any user of the machine read a key
    pasted by mistake). SQLite gives the ``-wal`` and ``-shm`` it creates the database file's
    mode. A file made meanwhile by another process is left as it is; a failure is left to SQLite's
    own open, which says it."""
    try:
        os.close(os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except OSError:
        pass


def register_functions(conn: sqlite3.Connection) -> None:
    """SQL functions the history triggers call (migration v4): ``gb_pack(body, base)`` compresses a
    version, ``gb_keep(text, hash)`` packs a page text that stops being current (v24; NULL when it
    no longer hashes to ``hash``), ``gb_origin(i)`` is the writer's surface / operation / MCP client;
    ``gb_schema()`` is this code's schema version, which the v28 guard compares with the brain's. Every gbrain
    connection has them; writing pages without them fails rather than bypassing history."""
    from ..core.history import keep, pack
    from .origin import sql_field

    conn.create_function("gb_pack", 2, _interruptible(pack), deterministic=True)
    conn.create_function("gb_keep", 2, _interruptible(keep), deterministic=True)
    conn.create_function("gb_origin", 1, _interruptible(sql_field))
    code = SCHEMA_VERSION  # (this process's gbrain: a later upgrade of the brain does not change it)
    conn.create_function("gb_schema", 0, _interruptible(lambda: code), deterministic=True)


#: the KeyboardInterrupt (Ctrl-C; entry's ``Terminated``) that landed inside one of gbrain's SQL
#: functions, which SQLite turns into ``user-defined function raised exception`` (an
#: OperationalError): :func:`raise_interrupt` raises it again where that error is caught
_sql_interrupt: list[BaseException] = []
_UDF_RAISED = "user-defined function raised exception"


def _interruptible(fn: Callable) -> Callable:
    """``fn`` as a SQL function that remembers a KeyboardInterrupt raised inside it (:data:`_sql_interrupt`),
    and forgets an older one as it begins: that one's statement ended (a function that raises ends
    it), so it went elsewhere, raised in plain Python code and handled there or its error caught
    and dropped, and would turn this call's genuine failure into an interrupt (one taken at this
    call's first instruction, before the ``try``, stays: :func:`note_interrupt`)."""

    def call(*a):
        try:
            if _sql_interrupt:
                _sql_interrupt.clear()
            return fn(*a)
        except KeyboardInterrupt as e:
            _sql_interrupt[:] = [e]
            raise

    return call


def note_interrupt(e: BaseException) -> None:
    """Remember ``e``, the KeyboardInterrupt a signal handler is raising (entry's SIGINT/SIGTERM
    handlers), for :func:`raise_interrupt`: a signal taken as SQLite calls a gbrain SQL function
    raises at the function's first instruction, before :func:`_interruptible`'s ``try`` can see it
    (SQLite then reports only ``user-defined function raised exception``)."""
    _sql_interrupt[:] = [e]


def raise_interrupt(e: BaseException) -> None:
    """Raise the KeyboardInterrupt (Ctrl-C, SIGTERM's ``Terminated``) that SQLite made the error
    ``e`` of (it landed inside a gbrain SQL function: :func:`register_functions`), or that ``e`` was
    raised while handling (:func:`interrupt_behind`: a Postgres query the signal cut left the
    connection lost, and a clean-up statement then failed with ``pg.Disconnected``), so the command
    stops as interrupted (exit 130) instead of failing with a database error; return when ``e`` is
    another error (a connection lost before any signal stays that error). The statement's
    transaction fails as for any error (rolled back by its caller)."""
    if _sql_interrupt and _UDF_RAISED in str(e):
        k = _sql_interrupt.pop()
        raise k from None
    k = interrupt_behind(e)
    if k is not None:
        raise k from None


def interrupt_behind(e: BaseException) -> KeyboardInterrupt | None:
    """The KeyboardInterrupt (Ctrl-C, SIGTERM's ``Terminated``) that was being handled when ``e``
    was raised (in ``e``'s ``__context__``/``__cause__`` chain, ``from None`` too), else None.
    Python chains an exception only to those in flight when it is raised, so an error that came
    before the signal has none."""
    seen: set[int] = set()
    x = e.__cause__ or e.__context__
    while x is not None and id(x) not in seen:
        if isinstance(x, KeyboardInterrupt):
            return x
        seen.add(id(x))
        x = x.__cause__ or x.__context__
    return None


#: free bytes under which the disk holding a brain counts as full: the WAL index (``-shm``)
#: a connection creates needs 32 KiB
FULL_DISK_BYTES = 256 * 1024


def disk_full(p: Path | str) -> bool:
    """Whether the file system holding database ``p`` has (almost) no free space left for this
    user (under :data:`FULL_DISK_BYTES`, from ``statvfs``). False when that cannot be told."""
    try:
        st = os.statvfs(Path(p).parent if str(Path(p).parent) else ".")
    except (OSError, AttributeError):
        return False
    return st.f_bavail * st.f_frsize < FULL_DISK_BYTES


def _drop_empty(p: Path) -> None:
    """Remove ``p`` (and an empty ``-wal``/``-shm``/``-journal``) when this process just created
    it and it is still empty (0 bytes): an empty file left by a failed creation would be refused
    as "an empty file, not a brain" once there is space."""
    for f in (p, *(Path(str(p) + s) for s in ("-wal", "-shm", "-journal"))):
        try:
            if f.stat().st_size == 0 or f != p and not p.exists():
                f.unlink()
        except OSError:
            pass


def _connect_on_full_disk(p: Path, first: sqlite3.Error, *, new: bool = False) -> sqlite3.Connection:
    """A connection for reading a WAL brain on a full disk, where the WAL index file cannot be
    created: ``locking_mode=EXCLUSIVE`` before the first read keeps the index in memory (the
    WAL is still read), so reads work. The lock blocks other processes until the command ends;
    writes fail with "the disk … is full" (:func:`db_error`). Raises :class:`GBrainError`
    saying the disk is full when even that fails or the schema needs an upgrade (a write).
    ``new``: this process was creating ``p``; it says the new brain could not be created (a
    half-made file, some migrations committed, is left: the next run completes it)."""
    full = (f"the disk holding {p} is full (SQLite: {one_line(first)}); even reading needs a little "
            f"space for the WAL index; free some space and run it again")
    if new or not p.exists():  # a new brain: nothing to read, and creating it needs space
        left = " (the half-made file is left; running again completes it)" if p.exists() else ""
        raise GBrainError(f"the disk holding {p} is full (SQLite: {one_line(first)}); the new brain could not be created{left}; "
                          f"free some space and run it again")
    try:
        conn = sqlite3.connect(str(p), timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False)
    except sqlite3.Error as e:
        raise GBrainError(full) from e
    try:
        conn.execute("PRAGMA locking_mode = EXCLUSIVE")
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA foreign_keys = ON")
        register_functions(conn)
        v = conn.execute("PRAGMA user_version").fetchone()[0]
        conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
    except sqlite3.DatabaseError as e:
        conn.close()
        if "malformed" in str(e).lower():
            raise db_error(e, p, wrote=False, opening=True) from e
        raise GBrainError(full) from e
    if v != SCHEMA_VERSION:
        conn.close()
        if v > SCHEMA_VERSION:
            raise GBrainError(newer_schema(v, SCHEMA_VERSION, p))
        raise GBrainError(f"the disk holding {p} is full (SQLite: {one_line(first)}); this gbrain must upgrade the "
                          f"brain's schema (v{v} → v{SCHEMA_VERSION}) before reading it, which needs space; free some space and run it again")
    conn.row_factory = sqlite3.Row
    return conn


def on_full_disk(conn) -> bool:
    """Whether ``conn`` is the reader :func:`_connect_on_full_disk` made (SQLite
    ``locking_mode`` EXCLUSIVE: it keeps other connections, of this process too, off the file
    until it is closed). False for a Postgres connection."""
    if getattr(conn, "dialect", "sqlite") != "sqlite":
        return False
    try:
        return conn.execute("PRAGMA locking_mode").fetchone()[0] == "exclusive"
    except sqlite3.Error:
        return False


def raw_connect(p: Path, *, read_only: bool | None = None) -> sqlite3.Connection:
    """A connection to the SQLite file ``p`` as gbrain opens every one (autocommit, usable from
    any thread, :data:`BUSY_TIMEOUT_MS`), no pragmas set: read-only (:func:`_connect_read_only`)
    when ``read_only``, by default when the file exists and cannot be written (a read-only
    mount). :func:`connect` builds the brain's own connection on it; a second connection for
    another thread (a quick_check, export's readers) is this alone. Raises ``sqlite3.Error``."""
    if read_only is None:
        read_only = is_read_only(p) and p.exists()
    if read_only:
        return _connect_read_only(p)
    return sqlite3.connect(str(p), timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False)


def _connect_read_only(p: Path) -> sqlite3.Connection:
    """A read-only connection. ``mode=ro`` needs the WAL index (``-shm``) to exist or be
    creatable; on a read-only mount with neither, ``immutable=1`` (nobody can write there, so
    nothing can change under the reader)."""
    from urllib.parse import quote

    uri = "file:" + quote(str(p.absolute()))
    conn = sqlite3.connect(uri + "?mode=ro", uri=True, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False)
    try:
        conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        return conn
    except sqlite3.OperationalError:
        conn.close()
    if wal_has_frames(p):
        # immutable=1 would read the file without its log: the commits in it would be missing
        raise GBrainError(
            f"{p} has writes in its log {p}-wal that cannot be read here: SQLite needs to create {p.name}-shm "
            "beside it and this folder is read-only; run any gbrain command on it where it can be written "
            "(that folds the log into the file), or copy both files to a writable folder and open the copy"
        )
    return sqlite3.connect(uri + "?mode=ro&immutable=1", uri=True, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False)


def wal_has_frames(p: Path) -> bool:
    """Whether the write-ahead log beside the SQLite file ``p`` (``p-wal``) may hold commits: its
    32-byte header is a WAL header and the first 24-byte frame header carries the header's salts
    (a log reset by a later writer, or cut to its header, holds none). False when there is no log
    or it cannot be read. Never raises."""
    try:
        with open(str(p) + "-wal", "rb") as f:
            head = f.read(56)
    except OSError:
        return False
    if len(head) < 56 or head[:4] not in (b"\x37\x7f\x06\x82", b"\x37\x7f\x06\x83"):
        return False
    return head[32 + 8 : 32 + 16] == head[16:24]


def wait_note(limit: str, gives_up: bool = True) -> str:
    """The line :data:`on_wait` is called with: the write waits for another process's, for ``limit``
    (e.g. "up to 5 minutes"), then gives up (``gives_up``) or not (Postgres with no lock_timeout)."""
    after = "; then this one gives up, nothing written" if gives_up else ""
    return f"waiting for another gbrain process's write to the brain to finish ({limit}{after}); Ctrl-C stops it"


def busy_cause(e: BaseException) -> str:
    """The cause of a busy brain for a line that says "the brain is busy (CAUSE)": SQLite's
    "database is locked", or Postgres' own words ("Postgres: canceling statement due to lock
    timeout") without the "database is locked (…)" wrapping ``pg._mapped`` gives them."""
    s = str(e)
    m = re.fullmatch(r"database is (?:locked|busy) \((Postgres: .*)\)", s, re.S)
    return m.group(1) if m else s


def begin_write(conn) -> None:
    """``BEGIN IMMEDIATE``: start a write transaction, waiting for other writers as long as it takes,
    up to :data:`WRITE_WAIT_S` (then ``sqlite3.OperationalError`` "database is locked", as before).

    SQLite's busy handler is not fair: a waiter sleeps longer and longer between tries (up to
    100 ms), so a process that commits and begins again takes the lock back before the waiters
    wake, and a waiter gave up after the 10 s busy timeout (43 of 400 ``put``s of 4 writer
    processes under load, docs/storage.md). Here the busy handler is off while the lock is
    asked for and every waiter asks again after a short random pause (1–8 ms, jitter so waiters
    do not ask in step), so a free lock goes to a waiter within milliseconds, and a long
    transaction of another process (an import, a sync) is waited for instead of failing. On
    Postgres ``BEGIN IMMEDIATE`` takes the brain's advisory lock, whose waiters queue in order.
    A wait longer than :data:`WAIT_NOTE_S` says so once (:data:`on_wait`, :func:`wait_note`), on
    both engines."""
    if is_postgres(conn):
        conn.execute("BEGIN IMMEDIATE")
        return
    import random
    import time

    deadline = None
    note_at = 0.0
    conn.execute("PRAGMA busy_timeout = 0")
    try:
        while True:
            try:
                conn.execute("BEGIN IMMEDIATE")
                _began[id(conn)] = conn.total_changes
                return
            except sqlite3.OperationalError as e:
                if not is_busy(e):
                    raise
                now = time.monotonic()
                if deadline is None:
                    deadline = now + WRITE_WAIT_S
                    note_at = now + WAIT_NOTE_S
                elif now >= deadline:
                    raise
                elif note_at and now >= note_at:
                    note_at = 0.0
                    if on_wait is not None:
                        on_wait(wait_note(f"up to {WRITE_WAIT_S / 60:g} minutes" if WRITE_WAIT_S >= 60 else f"up to {WRITE_WAIT_S:g} s"))
            time.sleep(random.uniform(0.001, 0.008))
    finally:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")


#: ``PRAGMA application_id`` of a brain since v52 (:func:`_m52_brain_stamp`): its top byte
#: :data:`STAMP_MARK` (``g``), then a random brain id below :data:`STAMP_IDS`, then a count of
#: its write transactions modulo :data:`STAMP_COUNTS`. SQLite keeps it in the file's header on
#: page 1, which every gbrain commit writes (:func:`commit`), so a write-ahead log carries the
#: stamp of the brain and state it was written on.
STAMP_MARK = 0x67
STAMP_IDS = 1 << 12
STAMP_COUNTS = 1 << 12


def make_stamp(brain_id: int, count: int) -> int:
    return (STAMP_MARK << 24) | (brain_id % STAMP_IDS) << 12 | count % STAMP_COUNTS


def brain_stamp(application_id: int | None) -> tuple[int, int] | None:
    """``(brain id, count)`` of a header's ``application_id`` (:func:`make_stamp`), None when it
    carries no gbrain mark (a brain older than v52, another program's file)."""
    if application_id is None:
        return None
    a = application_id & 0xFFFFFFFF
    if a >> 24 != STAMP_MARK:
        return None
    return (a >> 12) % STAMP_IDS, a % STAMP_COUNTS


#: ``id(conn) → total_changes`` when :func:`begin_write` began its transaction (SQLite)
_began: dict[int, int] = {}


def commit(conn, *, stamp: bool | None = None) -> None:
    """``COMMIT`` a write transaction :func:`begin_write` began. On SQLite, one that changed
    rows (or ``stamp``) first moves the brain's commit count on (:data:`STAMP_MARK`): page 1
    is then in every log a gbrain writer leaves, with the state it was written on. On Postgres
    the ``COMMIT`` runs with gbrain's interrupts held (``pg.interrupts_held``): a Ctrl-C taken
    while psycopg waited for its answer made psycopg cancel it, and a transaction the server had
    committed (another process already saw its rows) was left uncounted by the caller
    (``Brain.transaction``), a sync's interrupted line missing its chunk; now the interrupt
    comes as the ``COMMIT`` returns, committed (``tests/test_interrupt_windows.py``)."""
    began = _began.pop(id(conn), None)
    if is_postgres(conn):
        from .pg import interrupts_held

        with interrupts_held():
            conn.execute("COMMIT")
        return
    if not is_postgres(conn) and conn.in_transaction and (stamp if stamp is not None else began is None or conn.total_changes != began):
        s = brain_stamp(conn.execute("PRAGMA application_id").fetchone()[0])
        if s is not None:
            conn.execute(f"PRAGMA application_id = {make_stamp(s[0], s[1] + 1)}")
    conn.execute("COMMIT")


def rollback(conn: sqlite3.Connection) -> None:
    """Roll back the open transaction, if SQLite has not already done it: after SQLITE_FULL or
    an I/O error SQLite may have rolled back itself, and a second ROLLBACK would replace the
    real error with "cannot rollback - no transaction is active"."""
    _began.pop(id(conn), None)
    if conn.in_transaction:
        try:
            conn.execute("ROLLBACK")
        except sqlite3.Error:
            pass


#: the tables a bulk write (import, copy) fills, vacuumed and analysed at its end
#: (:func:`vacuum_after_bulk`)
BULK_TABLES = ("pages", "aliases", "links", "tags", "timeline_entries", "files", "canvas_cards", "sync_state", "history", "history_bodies")


def vacuum_after_bulk(conn, written: int, before: int) -> bool:
    """On Postgres, ``VACUUM (ANALYZE)`` the :data:`BULK_TABLES` after a bulk write (import,
    copy) that wrote ``written`` pages into a brain that held ``before``, when that is more than
    autovacuum's own rule would re-analyse (50 + 10% of the table: Postgres' default
    ``autovacuum_analyze_threshold`` and ``_scale_factor``). Outside a transaction only; returns
    whether it ran.

    Right after a bulk import the search indexes' new entries sit in the GIN pending lists of
    ``pages.search_tsv`` and ``search_names_tsv`` (``fastupdate``: 374 + 208 pages for the
    7,471-page brain), which every search's index probe reads through whole; the visibility map
    is unset and the planner has no statistics (or those of an early batch). Autovacuum cleans
    that up, but up to a minute later (``autovacuum_naptime``), beside the first searches. A
    search right after the import took ~6 ms more CPU (26.7 vs 20.4 ms per query, docs/performance.md:
    the pending lists ~4 of it, ANALYZE ~1). The cost is ~1.5 s for the 7,471-page brain at
    load 5, work autovacuum would have done. SQLite: nothing (no such lists; no statistics unless
    asked)."""
    if not is_postgres(conn) or written <= 50 + before // 10 or conn.in_transaction:
        return False
    try:
        conn.execute("VACUUM (ANALYZE) " + ", ".join(BULK_TABLES))
    except Exception:  # (a lost connection: the write is committed, autovacuum comes later)
        return False
    return True


#: the keyword index's upkeep (:func:`fts_upkeep`): a merge step runs while the segments other
#: than the largest hold more leaf pages than it plus this slack (16 pages of ~4 KB)
FTS_SLACK_PAGES = 16
#: the leaf pages (~4 KB each) one upkeep step may write ('merge', -N): ~8 ms of CPU
FTS_MERGE_STEP = 64


def _varint(b: bytes, i: int) -> tuple[int, int]:
    """SQLite's varint at ``b[i:]`` (big-endian, 7 bits a byte, the ninth byte whole): (value, next i)."""
    v = 0
    for k in range(9):
        c = b[i]
        i += 1
        if k == 8:
            return (v << 8) | c, i
        v = (v << 7) | (c & 0x7F)
        if not c & 0x80:
            return v, i
    return v, i  # pragma: no cover (the loop returns)


def fts_levels(conn) -> list[tuple[int, list[int]]] | None:
    """``page_fts``'s segments by level: per level (the segments an ongoing merge takes as input,
    the sizes of its segments in leaf pages of ~4 KB), from FTS5's structure record
    (``page_fts_data`` row 10: a 4-byte cookie, the V2 marker ``FF 00 00 01`` of tables with
    tombstones, then varints: levels, segments, write counter, and per level its merge count,
    segment count and per segment id, first and last leaf page, V2 five more). ``[]`` for an
    empty index; None on Postgres, without the table, or for a record this code cannot read."""
    if is_postgres(conn):
        return None
    try:
        row = conn.execute("SELECT block FROM page_fts_data WHERE id = 10").fetchone()
    except sqlite3.Error:
        return None
    if row is None or not row[0]:
        return []
    b = bytes(row[0])
    try:
        v2 = b[4:8] == b"\xff\x00\x00\x01"
        i = 8 if v2 else 4
        nlevels, i = _varint(b, i)
        _, i = _varint(b, i)  # segments
        _, i = _varint(b, i)  # write counter
        levels = []
        for _lvl in range(nlevels):
            merging, i = _varint(b, i)
            nseg, i = _varint(b, i)
            sizes = []
            for _s in range(nseg):
                _, i = _varint(b, i)  # segment id
                first, i = _varint(b, i)
                last, i = _varint(b, i)
                for _x in range(5 if v2 else 0):
                    _, i = _varint(b, i)
                sizes.append(max(0, last - first + 1))
            levels.append((merging, sizes))
        return levels
    except IndexError:
        return None


def fts_segments(conn) -> list[int] | None:
    """The sizes of ``page_fts``'s segments in leaf pages (~4 KB each), lowest level first
    (:func:`fts_levels` flattened); ``[]`` empty, None where it cannot be read."""
    levels = fts_levels(conn)
    return None if levels is None else [n for _, sizes in levels for n in sizes]


def fts_upkeep(conn, step: int = FTS_MERGE_STEP) -> bool:
    """One bounded step of keeping ``page_fts`` compact, in the caller's write transaction
    (SQLite; nothing on Postgres, whose GIN indexes autovacuum keeps). Returns whether a step ran.

    Every save replaces a page's index entry: FTS5 (external content) writes a delete marker and
    the new entry into a new segment; the old entry leaves only when a merge reaches the segment
    holding it. Automerge merges a level once it holds 4 segments (``automerge``), so the large
    old segments, which hold most entries of a brain's busy pages in several versions, wait for
    as much again before they merge: after trial 20's year 2,515 leaf pages (10.1 MB) held what
    511 hold compact, and searches read through them (~20% more CPU). Here, while the segments
    besides the largest hold more pages than it plus :data:`FTS_SLACK_PAGES`, ``('merge', -step)``
    starts merging all segments as one level, writing up to ``step`` leaf pages; while a merge
    is under way, ``('merge', step)`` goes on with it (starting anew would merge its partial
    output again). So the index stays within about twice its compact size plus the slack, and
    the cost follows the writes: one step per write transaction at most, none when the index is
    compact (reading the one structure row: microseconds)."""
    levels = fts_levels(conn)
    if not levels:
        return False
    sizes = [n for _, ss in levels for n in ss]
    if len(sizes) < 2:
        return False
    if any(merging for merging, _ in levels):
        conn.execute("INSERT INTO page_fts(page_fts, rank) VALUES ('merge', ?)", (max(1, int(step)),))
        return True
    total, largest = sum(sizes), max(sizes)
    if total - largest <= largest + FTS_SLACK_PAGES:
        return False
    conn.execute("INSERT INTO page_fts(page_fts, rank) VALUES ('merge', ?)", (-max(1, int(step)),))
    return True


def _has_pieces(conn: sqlite3.Connection) -> bool:
    if is_postgres(conn):  # (Postgres answers quick_check itself: storage/pg.py)
        return False
    try:
        return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'blob_data'").fetchone() is not None and \
            conn.execute("SELECT 1 FROM blob_data LIMIT 1").fetchone() is not None
    except sqlite3.DatabaseError:
        return False


def _quick_check_but_pieces(conn: sqlite3.Connection) -> list[str]:
    """``quick_check`` of every table and its indexes but ``blob_data`` (the pieces of big files:
    most of a brain with attachments, checked by ``gbrain check``; a damaged piece still fails
    loudly when it is read). A brain with 2.3 GB of attachments then checks its ~50 MB of
    pages, not 3 GB, before its first write."""
    out: list[str] = []
    for (t,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name != 'blob_data'").fetchall():
        rows = [r[0] for r in conn.execute(f"PRAGMA quick_check('{t}')").fetchall()]
        if rows != ["ok"]:
            out += rows
    return out or ["ok"]


#: KiB of SQLite's page cache while a bulk import writes (:func:`bulk_cache`), against SQLite's
#: default of 2,000 KiB. A full import inserts every page row with its indexes, FTS5 index and
#: history rows, then every link, tag and timeline row, each child row's foreign keys looked up
#: in ``pages`` (a row per leaf page or more: page texts are stored in their rows); with 2 MB of
#: cache on a 78 MB brain those lookups and index inserts kept reading back pages the cache had
#: just dropped. The same rows are written whatever the cache's size. The cache fills and stays
#: full while the import runs, so its size adds to the import's peak memory (+31 MB): 32 MiB
#: took the SQL's CPU 0.81-0.84x, 16 MiB 0.95-1.00x (docs/performance.md, 2026-12-07 "the bulk
#: import's page cache, again"; one over blob pages too was reverted on 2026-12-03).
BULK_CACHE_KIB = 32 * 1024

#: KiB of page cache :func:`cache_at_most` leaves while a big file's pieces are written
#: (SQLite's default): a transaction's dirty pages stay in the cache until it is full, so a
#: larger cache would hold a big file's pieces in memory (``tests/test_big_files.py``).
DEFAULT_CACHE_KIB = 2000


def _cache_kib(conn) -> int:
    """The page cache's size of SQLite connection ``conn`` in KiB (``PRAGMA cache_size``: a
    negative value is KiB, a positive one pages)."""
    n = int(conn.execute("PRAGMA cache_size").fetchone()[0])
    return -n if n < 0 else n * int(conn.execute("PRAGMA page_size").fetchone()[0]) // 1024


@contextlib.contextmanager
def cache_size_kib(conn, kib: int, *, grow: bool):
    """Within the block, the SQLite connection ``conn``'s page cache is ``kib`` KiB when that is
    larger (``grow``) or smaller (not ``grow``) than its size now; it is put back after (the
    pages over the old size are freed once clean: after the commit). The rows written are the
    same whatever the cache; on Postgres (no such cache) it does nothing."""
    if is_postgres(conn):
        yield
        return
    old = int(conn.execute("PRAGMA cache_size").fetchone()[0])
    have = _cache_kib(conn)
    if (kib <= have) if grow else (kib >= have):
        yield
        return
    conn.execute(f"PRAGMA cache_size = {-int(kib)}")
    try:
        yield
    finally:
        conn.execute(f"PRAGMA cache_size = {old}")
        if grow:  # (the pages SQLite freed: back to the system, not kept by the C heap)
            trim_heap()


@functools.lru_cache(maxsize=1)
def _malloc_trim_fn():
    """glibc's ``malloc_trim`` (through ``ctypes``), or None (another C library, no glibc)."""
    try:
        import ctypes

        return getattr(ctypes.CDLL(None), "malloc_trim", None)
    except (OSError, ImportError):
        return None


def trim_heap() -> None:
    """Give the C heap's free memory back to the system (glibc's ``malloc_trim(0)``; nothing
    elsewhere). After :func:`bulk_cache` SQLite frees the pages over the connection's own cache
    size, but glibc keeps freed small blocks in the process (only the heap's top is returned by
    ``free``): a long-lived process that ran a bulk import (``watch``'s first sync of an empty
    brain, ``serve``'s import) kept ~32 MB more for the rest of its life (an in-process import of
    make_brain-7471: 162 MB of RSS after, against 128 without the bulk cache; 113 trimmed).
    ``malloc_trim`` walks the heap once: 13 ms of CPU after make_brain-7471's import (~8 CPU-s, load 2.5)."""
    fn = _malloc_trim_fn()
    if fn is not None:
        fn(0)


def bulk_cache(conn):
    """:func:`cache_size_kib` at :data:`BULK_CACHE_KIB` at least: what a bulk import runs in."""
    return cache_size_kib(conn, BULK_CACHE_KIB, grow=True)


def cache_at_most(conn):
    """:func:`cache_size_kib` at :data:`DEFAULT_CACHE_KIB` at most: what a big file's pieces are
    written in, so that a bulk import's larger cache does not hold them in memory."""
    return cache_size_kib(conn, DEFAULT_CACHE_KIB, grow=False)


#: pages of SQLite's page cache while :func:`quick_check` runs (128 KiB: it stays in the CPU's
#: L2 cache). The check reads every page of the file once or twice in b-tree order and keeps
#: none; with the default cache (2,000 KiB) each page read lands in a slot gone cold, and the
#: check cost 10-17% more CPU (measured on 23-83 MB brains, docs/performance.md). The same pages
#: are read and checked whatever the cache's size; only where their copies land differs.
CHECK_CACHE_PAGES = 32


def refuse_if_damaged(conn) -> None:
    """Raise ``sqlite3.DatabaseError`` ("database disk image is malformed: …", which the surfaces
    turn into the one "is damaged" line, exit 1) when :func:`quick_check` finds the SQLite file
    damaged; nothing on Postgres or a sound file. For a read that found the search index naming a
    page row that is not there: a stale index (warned, the hit left out) or a damaged pages table,
    whose rows then go missing without an error (tests/test_faults.py)."""
    if is_postgres(conn):
        return
    problem = quick_check(conn)
    if problem:
        raise sqlite3.DatabaseError(f"database disk image is malformed ({problem})")


def _file_quick_check(p: Path | str) -> str | None:
    """:func:`quick_check` of SQLite file ``p`` on a read-only connection of its own (an error
    path's look at a file whose own connection is mid-failure); None when sound or when it
    cannot be opened to tell."""
    try:
        c = _connect_read_only(Path(p))
    except (sqlite3.Error, OSError):
        return None
    try:
        return quick_check(c)
    except sqlite3.Error:
        return None
    finally:
        c.close()


def quick_check(conn: sqlite3.Connection) -> str | None:
    """SQLite's ``PRAGMA quick_check`` (O(database size): 43 ms for a 2,000-page, 19 MB brain):
    None when the file is sound, else the first problem it names. A brain holding big files in
    pieces skips the pieces' table (:func:`_quick_check_but_pieces`). Runs with a page cache of
    :data:`CHECK_CACHE_PAGES` pages; the connection's own cache size is put back after."""
    try:
        old = conn.execute("PRAGMA cache_size").fetchone()[0]
        conn.execute(f"PRAGMA cache_size = {CHECK_CACHE_PAGES}")
        try:
            rows = [r[0] for r in conn.execute("PRAGMA quick_check(5)").fetchall()] if not _has_pieces(conn) else _quick_check_but_pieces(conn)
        finally:
            conn.execute(f"PRAGMA cache_size = {int(old)}")
    except sqlite3.DatabaseError as e:
        if is_busy(e):
            raise  # another connection holds the file (a full disk's exclusive reader): no answer, no damage
        return str(e)
    if rows == ["ok"]:
        return None
    lines = [x.strip() for r in rows for x in r.splitlines() if x.strip()]
    first = next((x for x in lines if not x.startswith("***")), lines[0] if lines else "?")
    return "quick_check: " + " ".join(first.split())[:200]


#: called with one line when opening the brain found something to warn of (a write-ahead log
#: that does not fit the file, set aside: :func:`set_aside_misfit_wal`); the command line sets
#: it (a warning on stderr), None says nothing
on_warning: Callable[[str], None] | None = None

#: (device, inode) of the database files :func:`warn_hard_links` warned of in this process
_LINKS_WARNED: set[tuple[int, int]] = set()


def warn_hard_links(path) -> None:
    """Warn (:data:`on_warning`, once per file and process) when the database file ``path`` has
    more than one name (hard links): each name gets its own open lock and SQLite its own ``-wal``
    and ``-shm``, so processes opening it by different names do not see each other's log."""
    try:
        st = os.stat(path)
    except OSError:
        return
    if st.st_nlink < 2 or (st.st_dev, st.st_ino) in _LINKS_WARNED:
        return
    _LINKS_WARNED.add((st.st_dev, st.st_ino))
    if on_warning is not None:
        on_warning(f"{path} has {st.st_nlink} names (hard links): open it by one name only; each name has its own lock and "
                   "write-ahead log, so processes using different names do not see each other's writes under way")


#: :func:`_read_only_look`'s version when the file could not be read read-only at all
NOT_LOOKED = -2


def _read_only_look(path: Path, how: str, *, check: bool = True) -> tuple[str | None, int, int | None]:
    """:func:`quick_check` of ``path`` (with ``check``; else only its header and schema are read)
    on a connection that cannot write (``how``: ``mode=ro`` reads its WAL, ``immutable=1``
    ignores it), so nothing is checkpointed into the file: (the problem or None,
    ``user_version``, -1 when no gbrain brain is read: no ``pages`` table; its
    ``application_id``, None when not read)."""
    from urllib.parse import quote

    try:
        conn = sqlite3.connect(f"file:{quote(str(path))}?{how}", uri=True)
    except sqlite3.Error:
        return None, NOT_LOOKED, None
    try:
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.OperationalError as e:
            # a log with no -shm on a read-only mount cannot be read read-only (refused later,
            # naming the log), a writer's lock: no sign of what the log holds
            if not any(w in str(e) for w in ("malformed", "not a database")):
                return None, NOT_LOOKED, None
            if not check:
                return str(e), -1, None
        why = quick_check(conn) if check else None
        if why is not None:
            return why, -1, None
        app = int(conn.execute("PRAGMA application_id").fetchone()[0])
        if conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'pages'").fetchone() is None:
            return None, -1, app
        return None, int(conn.execute("PRAGMA user_version").fetchone()[0]), app
    except sqlite3.Error as e:
        return str(e), -1, None
    finally:
        conn.close()


#: frames of a write-ahead log :func:`wal_first_stamp` checks at most before its first frame of
#: page 1 (a checksum costs ~0.1 ms per 4 KiB frame in Python; gbrain's commits write their
#: pages in page order, so page 1 is the first frame of each)
WAL_SCAN_FRAMES = 2000


def _wal_sums(data: bytes, s0: int, s1: int, big: bool) -> tuple[int, int]:
    """SQLite's running WAL checksum over ``data`` (a multiple of 8 bytes), from ``(s0, s1)``."""
    import struct

    words = struct.unpack((">" if big else "<") + f"{len(data) // 4}I", data)
    it = iter(words)
    for a, b in zip(it, it):
        s0 = (s0 + a + s1) & 0xFFFFFFFF
        s1 = (s1 + b + s0) & 0xFFFFFFFF
    return s0, s1


def wal_first_stamp(path: Path) -> tuple[int | None, set[bytes], bytes]:
    """What the write-ahead log beside ``path`` says of the state it began on, read from the
    file as SQLite reads it (https://www.sqlite.org/fileformat2.html#walformat; before any
    connection reads it): the ``application_id`` in its first frame of page 1 (the header, with
    the brain's stamp: :data:`STAMP_MARK`) when every frame up to it carries the log header's
    salts and running checksum (a frame SQLite would take), else None; the digests of every
    page 1 its frames with the header's salts hold (a checkpoint copies such a page into the
    file as it is); and the digest of the file's own page 1 now. Never raises."""
    import struct

    none: tuple[int | None, set[bytes], bytes] = (None, set(), b"")
    try:
        fd = os.open(str(path) + "-wal", os.O_RDONLY)
    except OSError:
        return none
    try:
        head = os.pread(fd, 32, 0)
        if len(head) < 32:
            return none
        magic, _, ps, _, salt1, salt2, c1, c2 = struct.unpack(">8I", head)
        ps = 65536 if ps == 1 else ps
        if magic not in (0x377F0682, 0x377F0683) or ps < 512 or ps & (ps - 1):
            return none
        with open(path, "rb") as f:
            mine = hashlib.sha256(f.read(ps)).digest()
        big = bool(magic & 1)
        sums = _wal_sums(head[:24], 0, 0, big)
        first: int | None = None
        pages: set[bytes] = set()
        checking = sums == (c1, c2)
        off, n = 32, 0
        while True:
            fh = os.pread(fd, 24, off)
            if len(fh) < 24:
                break
            pgno, _, f1, f2, k1, k2 = struct.unpack(">6I", fh)
            if (f1, f2) != (salt1, salt2) or pgno == 0:
                break
            if checking or pgno == 1:
                page = os.pread(fd, ps, off + 24)
                if len(page) < ps:
                    break
                if pgno == 1:
                    pages.add(hashlib.sha256(page).digest())
                if checking:
                    sums = _wal_sums(page, *_wal_sums(fh[:8], *sums, big), big)
                    if sums != (k1, k2):
                        checking = False  # SQLite stops here: no stamp from this log
                    elif pgno == 1:
                        first = struct.unpack(">i", page[68:72])[0]
                        checking = False
                    elif n >= WAL_SCAN_FRAMES:
                        checking = False
            off += 24 + ps
            n += 1
        return first, pages, mine
    except OSError:
        return none
    finally:
        os.close(fd)


def stamp_misfit(file_app: int | None, wal_app: int | None, log: tuple[int | None, set[bytes], bytes]) -> str | None:
    """Why a write-ahead log is no log of the brain whose header holds ``file_app`` (its
    ``application_id`` without the log), or None when nothing says so: ``wal_app`` is the header
    as SQLite reads it with the log (its last frame of page 1), ``log`` what
    :func:`wal_first_stamp` read. A log of this brain began on the state the file holds (the
    file's commit count is the one before the log's first frame of page 1, or that one: a
    commit that did not count), or the file took part of it since (a checkpoint: the file's
    page 1 is one of the log's). Only for a brain with a stamp (v52, :data:`STAMP_MARK`). Not
    told apart: a copy of this brain at the very count the log began on, or whose page 1 is
    byte for byte one of the log's (the same count, page count and free list)."""
    mine = brain_stamp(file_app)
    if mine is None:
        return None
    first_app, pages, page1 = log
    for app in (wal_app, first_app):
        theirs = brain_stamp(app) if app is not None else mine
        if theirs is None or theirs[0] != mine[0]:
            return "a log of another brain" if theirs is None else f"a log of another brain: brain id {theirs[0]}, this brain's {mine[0]}"
    if first_app is None or page1 in pages:
        return None
    began = brain_stamp(first_app)[1]  # type: ignore[index]
    if mine[1] in (began, (began - 1) % STAMP_COUNTS):
        return None
    return (f"a log of another state of this brain: it began at commit {(began - 1) % STAMP_COUNTS}, the file is at {mine[1]} "
            "(a backup or another copy put in its place?)")


class WalLook(NamedTuple):
    """What :func:`set_aside_misfit_wal` found: the warning said (a log set aside), and, when
    ``checked``, the quick_check answer (``why``, None when sound) of the file as the brain opens
    now (with its log, or without the log set aside), taken in ``state`` (:func:`file_state`)
    at ``at`` (``time.time_ns()``)."""

    warning: str | None = None
    checked: bool = False
    why: str | None = None
    state: list | None = None
    at: int = 0


def set_aside_misfit_wal(path: Path) -> WalLook:
    """Before SQLite reads a write-ahead log left beside ``path`` (no process has the brain open:
    a crash, or a ``-wal`` copied from another machine or database): when the log is no log of
    this file, SQLite would replay its frames into the brain and the next close would
    checkpoint them in (trial 36: a 32 MB brain of 1,780 pages truncated to another file's
    372 KB; a backup restored beside the log of a later state read as pages of both states).
    The log is no log of the file when its page 1 says another brain or another state of this
    one (:func:`stamp_misfit`, since v52; the header only, no quick_check), or when the file
    reads damaged or as no gbrain brain with it and as a sound brain without it. Such a log is
    renamed ``NAME-wal.misfit-TIME`` (kept: nothing deleted) with its ``-shm`` before any
    connection reads it, and the warning is said (:data:`on_warning`). Runs quick_check once
    (with the log; without it too when the file is damaged with it), and hands its answer on
    (:class:`WalLook`) so the open does not check again."""
    wal = Path(str(path) + "-wal")
    try:
        if wal.stat().st_size == 0:
            return WalLook()
    except OSError:
        return WalLook()
    log = wal_first_stamp(path)
    _, version, wal_app = _read_only_look(path, "mode=ro", check=False)
    if version == NOT_LOOKED:
        return WalLook()
    base_why, base_version, file_app = _read_only_look(path, "immutable=1", check=False)
    if base_why is None and base_version >= 0 and version >= 0:
        why = stamp_misfit(file_app, wal_app, log)
        if why is not None:
            return WalLook(_set_aside(path, wal, why))
    at, state = time.time_ns(), file_state(path)
    why, version, _ = _read_only_look(path, "mode=ro")
    if version == NOT_LOOKED:
        return WalLook()
    if why is None and version >= 0:
        # a brain with its log (another schema too: an upgrade's last step, or a connection of
        # another program, sqlite3's shell, that has the log open and wrote it: never renamed)
        return WalLook(None, True, None, state, at)
    if base_why is not None or base_version < 0:
        return WalLook()  # damaged (or no brain) without it too: the file's own state, not the log's
    base_at, base_state = time.time_ns(), file_state(path)
    base_why, base_version, _ = _read_only_look(path, "immutable=1")
    if base_why is not None or base_version < 0:
        return WalLook(None, True, why, state, at) if why else WalLook()
    msg = _set_aside(path, wal, f"{why or 'no gbrain brain with it'}; without it a sound brain")
    # the file alone passed: its state without the log
    drop = [e for e in (base_state or []) if not e[0]] or None
    return WalLook(msg, True, None, drop, base_at)


def _set_aside(path: Path, wal: Path, why: str) -> str:
    """Rename the log ``wal`` of ``path`` (and its ``-shm``) ``…misfit-TIME``, warn, and return
    the warning; :class:`~gbrain.errors.Damaged` when it cannot be renamed."""
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
    kept = Path(f"{wal}.misfit-{stamp}")
    try:
        os.replace(wal, kept)
    except OSError as e:
        from ..errors import Damaged

        raise Damaged(f"the write-ahead log {wal} does not fit {path} ({one_line(why)}) and could not be set aside "
                      f"({e.strerror or e}): with no gbrain running, move {wal.name} and {wal.name[:-4]}-shm out of the folder, then run it again") from e
    shm = Path(str(path) + "-shm")
    try:
        os.replace(shm, Path(f"{shm}.misfit-{stamp}"))
    except FileNotFoundError:
        pass
    msg = (f"the write-ahead log {wal.name} beside {path} does not fit it ({one_line(why)}): "
           f"set aside as {kept.name}, the brain opened without it; if a gbrain process died while writing, "
           "its last writes are in that file: `gbrain check`, then `gbrain sync` your folder")
    if on_warning is not None:
        on_warning(msg)
    return msg


#: a file changed this recently is "racy": a later change in the same clock tick could leave
#: the same mtime and ctime, so its state is not recorded as checked (git's racy-clean rule)
RACY_NS = 1_000_000_000


def cache_dir() -> str:
    """gbrain's per-user cache folder: ``$GBRAIN_CACHE_DIR``, else ``$XDG_CACHE_HOME/gbrain``,
    else ``~/.cache/gbrain`` (may not exist yet)."""
    return os.environ.get("GBRAIN_CACHE_DIR") or os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "gbrain")


def check_record_path(path: str | os.PathLike) -> Path:
    """Where the last passing quick_check of the database at ``path`` is recorded:
    :func:`cache_dir` ``/checked/`` + a hash of the file's real path; outside any folder the
    brain syncs with."""
    base = cache_dir()
    key = hashlib.sha256(os.path.realpath(str(path)).encode("utf-8", "surrogateescape")).hexdigest()[:32]
    return Path(base) / "checked" / key


def file_state(path: str | os.PathLike, *, racy_ok: bool = True) -> list | None:
    """The identity and change stamps of the database file and of its WAL when it holds anything:
    ``[[is_wal, dev, inode, size, mtime_ns, ctime_ns], ...]`` (every write through the file
    system moves the ctime, which no tool can set back; a replaced file has a new inode).
    None when the file cannot be stat'ed, or (``racy_ok`` false) when a file changed less than
    :data:`RACY_NS` ago."""
    out = []
    now = time.time_ns()
    for wal, p in ((False, str(path)), (True, str(path) + "-wal")):
        try:
            st = os.stat(p)
        except FileNotFoundError:
            if wal:
                continue
            return None
        except OSError:
            return None
        if wal and st.st_size == 0:
            continue
        if not racy_ok and now - max(st.st_mtime_ns, st.st_ctime_ns) < RACY_NS:
            return None
        out.append([wal, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns])
    return out


def same_content(a: list | None, b: list | None) -> bool:
    """Whether two :func:`file_state` results say the same bytes: all alike but the log's ctime,
    which a connection's open moves with nothing written (SQLite run as root gives the ``-wal``
    the database's owner, ``fchown``)."""
    if not a or not b or len(a) != len(b):
        return False
    return all(x[:5] == y[:5] and (x[0] or x[5] == y[5]) for x, y in zip(a, b))


def record_sound(path: str | os.PathLike, state: list | None, *, at: int | None = None, by: str = "check") -> None:
    """Record that the database at ``path`` passed quick_check in ``state`` (:func:`file_state`
    taken before the check, not racy; or, ``by="import"``, the state an import's own commits
    left after a passing check of this process: :func:`settled_state`). ``at``: when that check
    ran (``time.time_ns()``; default now). Best effort: a cache that cannot be written records nothing."""
    if not state:
        return
    rec = check_record_path(path)
    try:
        rec.parent.mkdir(parents=True, exist_ok=True)
        tmp = rec.with_name(f"{rec.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"db": os.path.realpath(str(path)), "state": state, "at": time.time_ns() if at is None else at, "by": by}))
        os.replace(tmp, rec)
    except OSError:
        pass


def check_record(path: str | os.PathLike, *, max_age_s: float | None = None) -> dict | None:
    """The record of the passing quick_check the database at ``path`` is exactly as it left it
    (same file (device, inode), size, mtime and ctime, and the same WAL: :func:`record_sound`):
    ``{"at": ns, "by": "check" | "import", ...}``, else None. ``max_age_s``: only a check that
    ran at most that many seconds ago (a record without its time is then too old)."""
    try:
        rec = json.loads(check_record_path(path).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(rec, dict):
        return None
    if max_age_s is not None:
        at = rec.get("at")
        if not isinstance(at, int) or time.time_ns() - at > max_age_s * 1e9:
            return None
    state = file_state(path)
    return rec if state and rec.get("db") == os.path.realpath(str(path)) and rec.get("state") == state else None


def checked_as_is(path: str | os.PathLike, *, max_age_s: float | None = None) -> bool:
    """Whether the database at ``path`` is exactly as a passing quick_check left it: same file
    (device, inode), size, mtime and ctime, and the same WAL (:func:`record_sound`). A command
    that writes nothing may then skip re-reading the whole file; every write still checks."""
    return check_record(path, max_age_s=max_age_s) is not None


#: a state :func:`settled_state` records may be this close to the clock on a file system whose
#: change stamps are finer than 10 ms: any later write then gets a later stamp (the kernel's
#: coarse clock ticks at least every 10 ms)
SETTLE_NS = 20_000_000


def settled_state(path: str | os.PathLike) -> list | None:
    """:func:`file_state` of the database at ``path`` once no later write can leave the same
    stamps: a file changed :data:`RACY_NS` ago or more as it is; one changed just now (an
    import's last commit) on a file system with sub-10 ms stamps after waiting until the clock is
    :data:`SETTLE_NS` past its newest stamp, when it is still the same; else None (coarse stamps:
    a later write in the same second could leave the same ones)."""
    state = file_state(path)
    if not state:
        return None
    newest = max(max(e[4], e[5]) for e in state)
    gap = time.time_ns() - newest
    if gap >= RACY_NS:
        return state
    if newest % 10_000_000 == 0:  # stamps of 10 ms or coarser (FAT, some network file systems)
        return None
    if gap < SETTLE_NS:
        time.sleep((SETTLE_NS - gap) / 1e9)
    return state if file_state(path) == state else None


#: a brain of at least this many pages is told of (:data:`on_upgrade`) before its schema upgrade
#: runs: an upgrade re-derives pages (7,471 pages made at v4: 36 s, 16 CPU-s at load 5.6)
UPGRADE_NOTE_PAGES = 1000
#: called with one line before the schema upgrade of a brain of :data:`UPGRADE_NOTE_PAGES` pages or
#: more; the command line sets it (a note on stderr), None says nothing
on_upgrade: Callable[[str], None] | None = None


def upgrade_note(conn, have: int, want: int, engine: str = "") -> None:
    """Say through :data:`on_upgrade` that the brain on ``conn`` is upgraded from schema ``have``
    to ``want`` (``engine``: " (Postgres)" or ""), when it holds :data:`UPGRADE_NOTE_PAGES`
    pages or more; nothing for a new brain (``have`` 0) or one already at ``want``."""
    if on_upgrade is None or have <= 0 or have >= want:
        return
    n = conn.execute("SELECT count(*) FROM pages").fetchone()[0]
    if n >= UPGRADE_NOTE_PAGES:
        on_upgrade(f"upgrading the brain from schema{engine} v{have} to v{want} ({n:,} pages; once: it may take a minute)")


def newer_schema(version: int, code: int, name: object = None, engine: str = "") -> str:
    """The refusal of a brain whose schema ``version`` is newer than this gbrain's ``code``
    version, naming the brain ``name`` (a path as the user gave it, or a Postgres URL with its
    password shown as ``***``: a ``DbUrl``) like every other storage error; ``engine`` follows
    the version (`` (Postgres)``)."""
    of = f" of {name}" if name else ""
    return f"database schema v{version}{engine}{of} is newer than this gbrain (v{code}); upgrade gbrain"


def refuse_newer_schema(conn, name: object = None) -> None:
    """Raise :class:`GBrainError` (:func:`newer_schema`, naming the brain ``name``) when the
    brain on ``conn`` was upgraded past the gbrain that opened the connection (SQLite: its
    ``gb_schema()`` against ``user_version``; Postgres: ``code_schema`` against
    ``gbrain_schema``). A write is refused so by the guard anyway; this is for a long-running
    process that may write nothing for a long time (watch's rescan of a folder in sync)."""
    if getattr(conn, "dialect", "sqlite") == "postgres":
        from . import pg

        have, code, engine = pg.schema_version(conn), conn.code_schema, " (Postgres)"
    else:
        have, code = conn.execute("SELECT user_version, gb_schema() FROM pragma_user_version").fetchone()
        engine = ""
    if have > code:
        raise GBrainError(newer_schema(have, code, name, engine) + " (a newer one upgraded the brain while this process ran; nothing was written)")


def migrate(conn: sqlite3.Connection, name: object = None, *, replay: bool = False) -> int:
    """Apply pending migrations, each in its own transaction (a new brain's, v0, all in one: a
    full disk leaves no half-made brain, and 41 steps' write-ahead log outgrew a 1 MB disk);
    returns the final user_version. A new brain (v0, no tables) is made from the schema snapshot
    :data:`FRESH_SQL` (:func:`fresh_statements`) and :data:`FRESH_PER_BRAIN`, not by replaying
    the chain (~0.19 CPU-s), unless ``replay`` (what ``python -m gbrain.storage.fresh`` and the
    test of the snapshot build the file from) or the file is not this chain's. Raises
    :class:`GBrainError` for a brain newer than this code (naming the brain ``name``, its path
    as given, when passed)."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise GBrainError(newer_schema(version, SCHEMA_VERSION, name))
    upgrade_note(conn, version, SCHEMA_VERSION)
    if version == 0 and SCHEMA_VERSION:  # a new brain: every step in one transaction
        begin_write(conn)
        try:
            if conn.execute("PRAGMA user_version").fetchone()[0] == 0:  # (else another process made it)
                empty = conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchone() is None
                fresh = fresh_statements() if empty and not replay else None
                if fresh is not None:
                    for stmt in fresh:
                        conn.execute(stmt)
                    for step in FRESH_PER_BRAIN:
                        step(conn)
                else:
                    for step in MIGRATIONS:
                        step(conn)
                conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                commit(conn, stamp=True)
            else:
                conn.execute("ROLLBACK")
        except BaseException:
            rollback(conn)
            raise
        return migrate(conn, name)
    for i in range(version, SCHEMA_VERSION):
        begin_write(conn)
        try:
            if conn.execute("PRAGMA user_version").fetchone()[0] != i:  # another process migrated
                conn.execute("ROLLBACK")
                continue
            if i == version and i > 0:
                schema_guard(conn)  # (before the first step: no old process writes between two)
            MIGRATIONS[i](conn)
            conn.execute(f"PRAGMA user_version = {i + 1}")
            commit(conn, stamp=True)
        except BaseException:
            rollback(conn)
            raise
    return conn.execute("PRAGMA user_version").fetchone()[0]


def has_table(conn, name: str) -> bool:
    """Whether the brain on ``conn`` (either engine) has table ``name``."""
    if getattr(conn, "dialect", "sqlite") == "postgres":
        return conn.execute("SELECT to_regclass(?) IS NOT NULL", (name,)).fetchone()[0]
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)).fetchone() is not None
