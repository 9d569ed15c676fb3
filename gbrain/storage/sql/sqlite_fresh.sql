-- gbrain: a new SQLite brain's schema v86, what the whole migration chain leaves in an empty brain.
-- GENERATED: do not edit; after adding or changing a migration run `python -m gbrain.storage.fresh`.
-- (gbrain/storage/fresh.py; tests/test_fresh_schema.py compares it with the chain)

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
, search_aliases TEXT NOT NULL DEFAULT '', search_headings TEXT NOT NULL DEFAULT '', search_words TEXT NOT NULL DEFAULT '', search_cjk TEXT NOT NULL DEFAULT '', search_body TEXT, search_timeline TEXT, h1_key TEXT NOT NULL DEFAULT '', search_fold_names TEXT NOT NULL DEFAULT '');
CREATE TABLE page_embeddings (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  page_id INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
  chunk_index INTEGER NOT NULL,
  chunk_text TEXT NOT NULL,
  embedding BLOB NOT NULL,                 -- little-endian float32
  model TEXT NOT NULL DEFAULT 'text-embedding-3-small',
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
, text_hash TEXT NOT NULL DEFAULT '', dims INTEGER NOT NULL DEFAULT 0);
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
CREATE TABLE files (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  path TEXT NOT NULL UNIQUE,
  kind TEXT NOT NULL,             -- raw (a .raw/*.json sidecar) | special (index/log/schema.md) | blob
  data BLOB NOT NULL,
  content_hash TEXT NOT NULL,
  size INTEGER NOT NULL,
  page_id INTEGER REFERENCES pages(id) ON DELETE SET NULL,  -- the page a sidecar belongs to
  updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
, pieces INTEGER NOT NULL DEFAULT 0);
CREATE TABLE embed_state (
  page_id INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
  model TEXT NOT NULL,
  content_hash TEXT NOT NULL,            -- pages.content_hash when the page was embedded
  chunks INTEGER NOT NULL DEFAULT 0,
  embedded_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')), chunking INTEGER NOT NULL DEFAULT 1, window_splits INTEGER NOT NULL DEFAULT 0,
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
CREATE TABLE sync_root (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  root TEXT NOT NULL,                 -- absolute path of the folder
  cursor INTEGER NOT NULL DEFAULT 0,  -- last change_log.seq applied to the folder
  bound_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
  synced_at TEXT
, client TEXT NOT NULL DEFAULT '', machine TEXT NOT NULL DEFAULT '');
CREATE TABLE sync_state (
  path TEXT PRIMARY KEY,              -- exact relative path, '/'-separated
  size INTEGER NOT NULL,              -- st_size when disk_hash was computed
  mtime_ns INTEGER NOT NULL,          -- change stamp max(st_mtime_ns, st_ctime_ns) then; 0 = racy, re-hash
  disk_hash TEXT NOT NULL,            -- sha256 of the file bytes at (size, mtime_ns)
  base_hash TEXT NOT NULL             -- sha256 last synced on both sides (file == DB)
, client TEXT NOT NULL DEFAULT '', file_id INTEGER);
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
CREATE TABLE change_log (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  path TEXT NOT NULL,
  op TEXT NOT NULL,                   -- insert | update | delete
  content_hash TEXT,                  -- NULL for delete
  at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
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
  detail TEXT NOT NULL DEFAULT '', trashed TEXT NOT NULL DEFAULT '', writer TEXT NOT NULL DEFAULT '',
  UNIQUE (kind, name, version)
);
CREATE TABLE blob_data (
  id INTEGER PRIMARY KEY,
  data BLOB NOT NULL                -- one piece, at most blobs.PIECE bytes
);
CREATE TABLE blob_pieces (
  hash TEXT NOT NULL,               -- sha256 hex of the whole file
  seq INTEGER NOT NULL,             -- 0, 1, ... in file order
  data_id INTEGER NOT NULL REFERENCES blob_data(id),
  PRIMARY KEY (hash, seq)
);
CREATE TABLE "links" (
  id INTEGER PRIMARY KEY,
  from_page_id INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
  to_page_id INTEGER REFERENCES pages(id) ON DELETE SET NULL,  -- NULL: unresolved (dangling)
  kind TEXT NOT NULL DEFAULT 'markdown',   -- markdown | wiki | embed | property (v19)
  target TEXT NOT NULL,                    -- as written, decoded, without .md / #anchor
  target_name TEXT NOT NULL DEFAULT '',    -- loose_key of the target's last segment, to re-resolve
  context TEXT NOT NULL DEFAULT '',
  count INTEGER NOT NULL DEFAULT 1,
  forms TEXT NOT NULL DEFAULT '[]', label TEXT NOT NULL DEFAULT '',
  UNIQUE(from_page_id, kind, target)
);
CREATE TABLE "tags" (
  id INTEGER PRIMARY KEY,
  page_id INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
  tag TEXT NOT NULL,
  tag_key TEXT NOT NULL DEFAULT '',
  inline INTEGER NOT NULL DEFAULT 0,
  UNIQUE(page_id, tag)
);
CREATE TABLE "aliases" (
  id INTEGER PRIMARY KEY,
  page_id INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
  alias TEXT NOT NULL,                 -- as written in the frontmatter (stripped)
  alias_key TEXT NOT NULL,             -- NFC + casefold: naming a page by its alias
  loose_key TEXT NOT NULL DEFAULT '',  -- slugified alias: [[Alias]] link resolution
  UNIQUE(page_id, alias_key)
);
CREATE TABLE "timeline_entries" (
  id INTEGER PRIMARY KEY,
  page_id INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
  date TEXT NOT NULL,
  source TEXT NOT NULL DEFAULT '',
  summary TEXT NOT NULL,
  detail TEXT NOT NULL DEFAULT ''
);
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
CREATE TABLE canvas_cards (
  id INTEGER PRIMARY KEY,
  file_id INTEGER NOT NULL,
  node TEXT NOT NULL,
  kind TEXT NOT NULL,
  text TEXT NOT NULL
, search TEXT, words TEXT NOT NULL DEFAULT '');
CREATE VIRTUAL TABLE canvas_fts USING fts5(text, words, content='canvas_fts_src', content_rowid='id', tokenize='porter unicode61');
CREATE TABLE name_folds (
  page_id INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
  kind TEXT NOT NULL,
  key TEXT NOT NULL,
  PRIMARY KEY (page_id, kind, key)
) WITHOUT ROWID;
CREATE TABLE nav_entries (
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
CREATE VIRTUAL TABLE page_fts USING fts5(
  title, search_aliases, path, search_headings, compiled_truth, timeline, search_words, search_cjk, search_fold_names,
  content='page_fts_src', content_rowid='id',
  tokenize='porter unicode61'
);
CREATE TABLE embed_claims (owner TEXT PRIMARY KEY, model TEXT NOT NULL, backend INTEGER NOT NULL DEFAULT 0, expires REAL NOT NULL, hashes TEXT NOT NULL);
CREATE VIEW raw_data(id, page_id, source, data, fetched_at) AS
  SELECT r.id, r.page_id, r.source,
         CASE WHEN r.data IS NOT NULL THEN r.data ELSE CAST(substr(f.data, r.start, r.len) AS TEXT) END,
         r.fetched_at
  FROM raw_spans r LEFT JOIN files f ON f.id = r.file_id;
CREATE VIEW canvas_fts_src AS SELECT id, coalesce(search, text) AS text, words AS words FROM canvas_cards;
CREATE VIEW page_fts_src AS SELECT id, title, search_aliases, path, search_headings, coalesce(search_body, compiled_truth) AS compiled_truth, coalesce(search_timeline, timeline) AS timeline, search_words, search_cjk, search_fold_names FROM pages;
CREATE INDEX idx_pages_type ON pages(type);
CREATE INDEX idx_pages_slug_key ON pages(slug_key);
CREATE INDEX idx_pages_name_key ON pages(name_key);
CREATE INDEX idx_pages_loose_key ON pages(loose_key);
CREATE INDEX idx_pages_title_key ON pages(title_key);
CREATE INDEX idx_pages_updated ON pages(updated_at);
CREATE INDEX idx_embeddings_page ON page_embeddings(page_id);
CREATE INDEX idx_files_page ON files(page_id);
CREATE INDEX idx_embeddings_model_hash ON page_embeddings(model, text_hash);
CREATE INDEX idx_embeddings_model_id ON page_embeddings(model, id);
CREATE INDEX idx_sync_state_base ON sync_state(base_hash);
CREATE INDEX idx_history_trash ON history(id) WHERE op = 'delete' OR trashed != '';
CREATE UNIQUE INDEX idx_sync_state_client_path ON sync_state(client, path);
CREATE INDEX idx_pages_path_hash ON pages(path, content_hash);
CREATE INDEX idx_files_path_hash ON files(path, content_hash, kind);
CREATE INDEX idx_pages_fm_error ON pages(frontmatter_error) WHERE frontmatter_error IS NOT NULL;
CREATE INDEX idx_sync_state_file_id ON sync_state(client, file_id);
CREATE INDEX idx_pages_source_ref ON pages(CASE WHEN json_valid(frontmatter) THEN CAST(json_extract(frontmatter, '$.source_ref') AS TEXT) END) WHERE slug LIKE 'sources/%';
CREATE INDEX idx_links_from ON links(from_page_id);
CREATE INDEX idx_links_to ON links(to_page_id);
CREATE INDEX idx_links_target_name ON links(target_name);
CREATE INDEX idx_tags_tag ON tags(tag);
CREATE INDEX idx_tags_page_id ON tags(page_id);
CREATE INDEX idx_tags_tag_key ON tags(tag_key);
CREATE INDEX idx_aliases_key ON aliases(alias_key);
CREATE INDEX idx_aliases_loose ON aliases(loose_key);
CREATE INDEX idx_timeline_page ON timeline_entries(page_id);
CREATE INDEX idx_timeline_date ON timeline_entries(date);
CREATE INDEX idx_history_at ON history(at);
CREATE INDEX idx_raw_spans_file ON raw_spans(file_id);
CREATE INDEX idx_canvas_cards_file ON canvas_cards(file_id);
CREATE INDEX idx_pages_h1_key ON pages(h1_key);
CREATE INDEX idx_name_folds_key ON name_folds(key);
CREATE INDEX idx_links_labelled ON links(to_page_id) WHERE label <> '';
CREATE INDEX idx_pages_loose_letters ON pages((replace(loose_key, '-', '')));
CREATE INDEX idx_pages_title_letters ON pages((replace(title_key, '-', '')));
CREATE INDEX idx_pages_spaced ON pages(slug) WHERE slug_key != trim(slug_key) OR slug_key LIKE '% /%' OR slug_key LIKE '%/ %';
CREATE INDEX idx_nav_entries_path ON nav_entries(path);
CREATE INDEX idx_nav_entries_key ON nav_entries(path_key);
CREATE INDEX idx_files_canvas ON files(path) WHERE path LIKE '%.canvas';
CREATE TRIGGER page_embeddings_retire AFTER DELETE ON page_embeddings WHEN old.text_hash != '' BEGIN
  INSERT OR IGNORE INTO embedding_cache(model, text_hash, dims, embedding)
  VALUES (old.model, old.text_hash, old.dims, old.embedding);
END;
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
CREATE TRIGGER pages_embed_stale AFTER UPDATE OF title, compiled_truth, timeline ON pages
WHEN old.title IS NOT new.title OR old.compiled_truth IS NOT new.compiled_truth OR old.timeline IS NOT new.timeline
BEGIN
  UPDATE embed_state SET content_hash = '' WHERE page_id = new.id AND content_hash != '';
END;
CREATE TRIGGER pages_embed_same_text AFTER UPDATE OF content_hash ON pages
WHEN old.content_hash IS NOT new.content_hash
  AND old.title IS new.title AND old.compiled_truth IS new.compiled_truth AND old.timeline IS new.timeline
BEGIN
  UPDATE embed_state SET content_hash = new.content_hash WHERE page_id = new.id AND content_hash = old.content_hash;
END;
CREATE TRIGGER change_log_expire AFTER INSERT ON change_log WHEN new.seq % 256 = 0 BEGIN
  UPDATE sync_root SET cursor = -1 WHERE cursor >= 0 AND CAST(COALESCE(NULLIF(TRIM((SELECT value FROM config WHERE key = 'sync_client_expire_days')), ''), '30') AS INTEGER) > 0 AND COALESCE(synced_at, bound_at) < strftime('%Y-%m-%dT%H:%M:%SZ', 'now', '-' || CAST(COALESCE(NULLIF(TRIM((SELECT value FROM config WHERE key = 'sync_client_expire_days')), ''), '30') AS INTEGER) || ' days');
  DELETE FROM change_log WHERE seq < new.seq AND seq <= COALESCE((SELECT MIN(cursor) FROM sync_root WHERE cursor >= 0), new.seq);
END;
CREATE TRIGGER pages_history_ai AFTER INSERT ON pages BEGIN
  INSERT INTO history_bodies(hash, size, base_id, depth, data) SELECT new.content_hash, new.size, NULL, 0, CAST('p' || new.id AS BLOB)
    WHERE NOT EXISTS (SELECT 1 FROM history_bodies WHERE hash = new.content_hash);
  INSERT INTO history(kind, name, version, path, op, body_id, size, at, surface, operation, client, detail, writer) VALUES ('page', new.slug, (SELECT COALESCE(MAX(version), 0) + 1 FROM history WHERE kind = 'page' AND name = new.slug), new.path, 'create', (SELECT id FROM history_bodies WHERE hash = new.content_hash), new.size, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), gb_origin(0), gb_origin(1), gb_origin(2), '', gb_origin(3));
END;
CREATE TRIGGER pages_history_au AFTER UPDATE OF slug, path, content_hash ON pages
  WHEN old.content_hash IS NOT new.content_hash OR old.slug IS NOT new.slug OR old.path IS NOT new.path BEGIN
  INSERT INTO history(kind, name, version, path, op, body_id, size, at, surface, operation, client, detail, writer)
    SELECT 'page', old.slug, (SELECT COALESCE(MAX(version), 0) + 1 FROM history WHERE kind = 'page' AND name = old.slug), old.path, 'move', NULL, 0, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), gb_origin(0), gb_origin(1), gb_origin(2), 'to ' || new.slug, gb_origin(3) WHERE old.slug IS NOT new.slug;
  UPDATE history_bodies SET data = COALESCE(gb_keep(CASE WHEN old.bom THEN char(65279) ELSE '' END || old.frontmatter_raw || old.compiled_truth || old.separator || old.timeline, old.content_hash), data) WHERE old.content_hash IS NOT new.content_hash AND hash = old.content_hash AND data = CAST('p' || old.id AS BLOB);
  INSERT INTO history_bodies(hash, size, base_id, depth, data)
    SELECT new.content_hash, new.size, CASE WHEN b.depth < 15 AND b.data IS NOT CAST('p' || old.id AS BLOB) THEN b.id END, CASE WHEN b.depth < 15 AND b.data IS NOT CAST('p' || old.id AS BLOB) THEN b.depth + 1 ELSE 0 END,
      CASE WHEN b.depth < 15 AND b.data IS NOT CAST('p' || old.id AS BLOB) THEN gb_pack(CASE WHEN new.bom THEN char(65279) ELSE '' END || new.frontmatter_raw || new.compiled_truth || new.separator || new.timeline, CASE WHEN old.bom THEN char(65279) ELSE '' END || old.frontmatter_raw || old.compiled_truth || old.separator || old.timeline) ELSE CAST('p' || new.id AS BLOB) END
    FROM (SELECT 1) LEFT JOIN history_bodies b ON b.hash = old.content_hash
    WHERE NOT EXISTS (SELECT 1 FROM history_bodies WHERE hash = new.content_hash);
  INSERT INTO history(kind, name, version, path, op, body_id, size, at, surface, operation, client, detail, writer) VALUES ('page', new.slug, (SELECT COALESCE(MAX(version), 0) + 1 FROM history WHERE kind = 'page' AND name = new.slug), new.path, CASE WHEN old.slug IS NOT new.slug THEN 'move' ELSE 'update' END, (SELECT id FROM history_bodies WHERE hash = new.content_hash), new.size, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), gb_origin(0), gb_origin(1), gb_origin(2), CASE WHEN old.slug IS NOT new.slug THEN 'from ' || old.slug ELSE '' END, gb_origin(3));
END;
CREATE TRIGGER pages_history_ad AFTER DELETE ON pages BEGIN
  UPDATE history_bodies SET data = COALESCE(gb_keep(CASE WHEN old.bom THEN char(65279) ELSE '' END || old.frontmatter_raw || old.compiled_truth || old.separator || old.timeline, old.content_hash), data) WHERE hash = old.content_hash AND data = CAST('p' || old.id AS BLOB);
  INSERT INTO history(kind, name, version, path, op, body_id, size, at, surface, operation, client, detail, writer) VALUES ('page', old.slug, (SELECT COALESCE(MAX(version), 0) + 1 FROM history WHERE kind = 'page' AND name = old.slug), old.path, 'delete', NULL, 0, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), gb_origin(0), gb_origin(1), gb_origin(2), '', gb_origin(3));
END;
CREATE TRIGGER pages_schema_guard_insert BEFORE INSERT ON pages WHEN gb_schema() < (SELECT user_version FROM pragma_user_version) BEGIN SELECT RAISE(ABORT, 'database schema is newer than this gbrain; upgrade gbrain (a newer one upgraded the brain while this process ran; nothing was written)'); END;
CREATE TRIGGER pages_schema_guard_update BEFORE UPDATE OF slug, path, content_hash ON pages WHEN gb_schema() < (SELECT user_version FROM pragma_user_version) BEGIN SELECT RAISE(ABORT, 'database schema is newer than this gbrain; upgrade gbrain (a newer one upgraded the brain while this process ran; nothing was written)'); END;
CREATE TRIGGER pages_schema_guard_delete BEFORE DELETE ON pages WHEN gb_schema() < (SELECT user_version FROM pragma_user_version) BEGIN SELECT RAISE(ABORT, 'database schema is newer than this gbrain; upgrade gbrain (a newer one upgraded the brain while this process ran; nothing was written)'); END;
CREATE TRIGGER files_schema_guard_insert BEFORE INSERT ON files WHEN gb_schema() < (SELECT user_version FROM pragma_user_version) BEGIN SELECT RAISE(ABORT, 'database schema is newer than this gbrain; upgrade gbrain (a newer one upgraded the brain while this process ran; nothing was written)'); END;
CREATE TRIGGER files_schema_guard_update BEFORE UPDATE OF path, content_hash ON files WHEN gb_schema() < (SELECT user_version FROM pragma_user_version) BEGIN SELECT RAISE(ABORT, 'database schema is newer than this gbrain; upgrade gbrain (a newer one upgraded the brain while this process ran; nothing was written)'); END;
CREATE TRIGGER files_schema_guard_delete BEFORE DELETE ON files WHEN gb_schema() < (SELECT user_version FROM pragma_user_version) BEGIN SELECT RAISE(ABORT, 'database schema is newer than this gbrain; upgrade gbrain (a newer one upgraded the brain while this process ran; nothing was written)'); END;
CREATE TRIGGER files_history_ai AFTER INSERT ON files BEGIN
  INSERT INTO history_bodies(hash, size, base_id, depth, data) SELECT new.content_hash, new.size, NULL,
    CASE WHEN new.pieces > 0 THEN 15 ELSE 0 END, CASE WHEN new.pieces > 0 THEN X'63' ELSE CAST('f' || new.id AS BLOB) END
    WHERE NOT EXISTS (SELECT 1 FROM history_bodies WHERE hash = new.content_hash);
  UPDATE history_bodies SET data = CAST('f' || new.id AS BLOB), base_id = NULL, depth = 0 WHERE new.pieces = 0 AND hash = new.content_hash AND substr(data, 1, 1) NOT IN (X'63', X'66', X'70') AND length(data) * 4 > size;
  INSERT INTO history(kind, name, version, path, op, body_id, size, at, surface, operation, client, detail, writer) VALUES ('file', new.path, (SELECT COALESCE(MAX(version), 0) + 1 FROM history WHERE kind = 'file' AND name = new.path), new.path, 'create', (SELECT id FROM history_bodies WHERE hash = new.content_hash), new.size, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), gb_origin(0), gb_origin(1), gb_origin(2), '', gb_origin(3));
END;
CREATE TRIGGER files_history_au AFTER UPDATE OF path, content_hash ON files
  WHEN old.content_hash IS NOT new.content_hash OR old.path IS NOT new.path BEGIN
  INSERT INTO history(kind, name, version, path, op, body_id, size, at, surface, operation, client, detail, writer)
    SELECT 'file', old.path, (SELECT COALESCE(MAX(version), 0) + 1 FROM history WHERE kind = 'file' AND name = old.path), old.path, 'move', NULL, 0, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), gb_origin(0), gb_origin(1), gb_origin(2), 'to ' || new.path, gb_origin(3) WHERE old.path IS NOT new.path;
  UPDATE history_bodies SET data = COALESCE(gb_keep(old.data, old.content_hash), data) WHERE old.content_hash IS NOT new.content_hash AND hash = old.content_hash AND data = CAST('f' || old.id AS BLOB);
  INSERT INTO history_bodies(hash, size, base_id, depth, data)
    SELECT new.content_hash, new.size, CASE WHEN k.p IS NOT NULL AND length(k.p) * 4 <= new.size THEN k.bid END,
      CASE WHEN new.pieces > 0 THEN 15 WHEN k.p IS NOT NULL AND length(k.p) * 4 <= new.size THEN k.depth + 1 ELSE 0 END,
      CASE WHEN new.pieces > 0 THEN X'63' WHEN k.p IS NOT NULL AND length(k.p) * 4 <= new.size THEN k.p ELSE CAST('f' || new.id AS BLOB) END
    FROM (SELECT b.id AS bid, b.depth AS depth, CASE WHEN new.pieces = 0 AND old.pieces = 0 AND b.depth < 15 AND b.data IS NOT CAST('f' || old.id AS BLOB) THEN gb_pack(new.data, old.data) END AS p
          FROM (SELECT 1) LEFT JOIN history_bodies b ON b.hash = old.content_hash WHERE NOT EXISTS (SELECT 1 FROM history_bodies WHERE hash = new.content_hash) LIMIT -1 OFFSET 0) k;
  UPDATE history_bodies SET data = CAST('f' || new.id AS BLOB), base_id = NULL, depth = 0 WHERE old.content_hash IS NOT new.content_hash AND new.pieces = 0 AND hash = new.content_hash AND substr(data, 1, 1) NOT IN (X'63', X'66', X'70') AND length(data) * 4 > size;
  INSERT INTO history(kind, name, version, path, op, body_id, size, at, surface, operation, client, detail, writer) VALUES ('file', new.path, (SELECT COALESCE(MAX(version), 0) + 1 FROM history WHERE kind = 'file' AND name = new.path), new.path, CASE WHEN old.path IS NOT new.path THEN 'move' ELSE 'update' END, (SELECT id FROM history_bodies WHERE hash = new.content_hash), new.size, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), gb_origin(0), gb_origin(1), gb_origin(2), CASE WHEN old.path IS NOT new.path THEN 'from ' || old.path ELSE '' END, gb_origin(3));
END;
CREATE TRIGGER files_history_ad AFTER DELETE ON files BEGIN
  UPDATE history_bodies SET data = COALESCE(gb_keep(old.data, old.content_hash), data) WHERE hash = old.content_hash AND data = CAST('f' || old.id AS BLOB);
  INSERT INTO history(kind, name, version, path, op, body_id, size, at, surface, operation, client, detail, writer) VALUES ('file', old.path, (SELECT COALESCE(MAX(version), 0) + 1 FROM history WHERE kind = 'file' AND name = old.path), old.path, 'delete', NULL, 0, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), gb_origin(0), gb_origin(1), gb_origin(2), '', gb_origin(3));
END;
CREATE TRIGGER raw_data_insert INSTEAD OF INSERT ON raw_data BEGIN
  INSERT INTO raw_spans(page_id, source, data, fetched_at)
  VALUES (NEW.page_id, NEW.source, NEW.data, coalesce(NEW.fetched_at, strftime('%Y-%m-%dT%H:%M:%SZ', 'now')));
END;
CREATE TRIGGER raw_data_delete INSTEAD OF DELETE ON raw_data BEGIN
  DELETE FROM raw_spans WHERE id = OLD.id;
END;
CREATE TRIGGER files_canvas_ad AFTER DELETE ON files WHEN old.path LIKE '%.canvas' BEGIN
  DELETE FROM canvas_cards WHERE file_id = old.id;
END;
CREATE TRIGGER files_canvas_au AFTER UPDATE OF path, data ON files WHEN old.path LIKE '%.canvas' OR new.path LIKE '%.canvas' BEGIN
  DELETE FROM canvas_cards WHERE file_id = old.id;
END;
CREATE TRIGGER canvas_cards_ai AFTER INSERT ON canvas_cards BEGIN
  INSERT INTO canvas_fts(rowid, text, words) VALUES (new.id, coalesce(new.search, new.text), new.words);
END;
CREATE TRIGGER canvas_cards_ad AFTER DELETE ON canvas_cards BEGIN
  INSERT INTO canvas_fts(canvas_fts, rowid, text, words) VALUES ('delete', old.id, coalesce(old.search, old.text), old.words);
END;
CREATE TRIGGER files_nav_ad AFTER DELETE ON files BEGIN
  DELETE FROM nav_entries WHERE file_id = old.id;
END;
CREATE TRIGGER pages_ai AFTER INSERT ON pages BEGIN
  INSERT INTO page_fts(rowid, title, search_aliases, path, search_headings, compiled_truth, timeline, search_words, search_cjk, search_fold_names) VALUES (new.id, new.title, new.search_aliases, new.path, new.search_headings, coalesce(new.search_body, new.compiled_truth), coalesce(new.search_timeline, new.timeline), new.search_words, new.search_cjk, new.search_fold_names);
END;
CREATE TRIGGER pages_ad AFTER DELETE ON pages BEGIN
  INSERT INTO page_fts(page_fts, rowid, title, search_aliases, path, search_headings, compiled_truth, timeline, search_words, search_cjk, search_fold_names) VALUES ('delete', old.id, old.title, old.search_aliases, old.path, old.search_headings, coalesce(old.search_body, old.compiled_truth), coalesce(old.search_timeline, old.timeline), old.search_words, old.search_cjk, old.search_fold_names);
END;
CREATE TRIGGER pages_au AFTER UPDATE OF title, search_aliases, path, search_headings, compiled_truth, timeline, search_words, search_cjk, search_fold_names, search_body, search_timeline ON pages BEGIN
  INSERT INTO page_fts(page_fts, rowid, title, search_aliases, path, search_headings, compiled_truth, timeline, search_words, search_cjk, search_fold_names) VALUES ('delete', old.id, old.title, old.search_aliases, old.path, old.search_headings, coalesce(old.search_body, old.compiled_truth), coalesce(old.search_timeline, old.timeline), old.search_words, old.search_cjk, old.search_fold_names);
  INSERT INTO page_fts(rowid, title, search_aliases, path, search_headings, compiled_truth, timeline, search_words, search_cjk, search_fold_names) VALUES (new.id, new.title, new.search_aliases, new.path, new.search_headings, coalesce(new.search_body, new.compiled_truth), coalesce(new.search_timeline, new.timeline), new.search_words, new.search_cjk, new.search_fold_names);
END;

INSERT INTO page_fts(page_fts) VALUES ('rebuild');
INSERT INTO "config" (key, value) VALUES ('version', '1');
INSERT INTO "config" (key, value) VALUES ('embedding_model', 'text-embedding-3-small');
INSERT INTO "config" (key, value) VALUES ('embedding_dimensions', '1536');
INSERT INTO "config" (key, value) VALUES ('chunk_strategy', 'section');
INSERT INTO "config" (key, value) VALUES ('timeline_split', 'rule');
INSERT INTO "sqlite_sequence" (name, seq) VALUES ('history', 0);

PRAGMA user_version = 86;
