-- gbrain Postgres schema v14 (SQLite v16): who wrote each version. history.writer is the
-- writer's identity (storage/origin.py identity: $GBRAIN_USER, else login@host), the fourth
-- field of the session setting gbrain.origin that storage/pg.py sets before each write
-- (gb_origin(3)); every history trigger function is replaced to fill it in the writer's own
-- transaction. Rows written before stay '' (unknown: no guess).
ALTER TABLE history ADD COLUMN IF NOT EXISTS writer TEXT COLLATE "C" NOT NULL DEFAULT '';
CREATE OR REPLACE FUNCTION pages_history_ai_fn() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO history_bodies(hash, size, base_id, depth, data) SELECT new.content_hash, new.size, NULL, 0, gb_pack(CASE WHEN new.bom <> 0 THEN chr(65279) ELSE '' END || new.frontmatter_raw || new.compiled_truth || new.separator || new.timeline, NULL) WHERE NOT EXISTS (SELECT 1 FROM history_bodies WHERE hash = new.content_hash);
  INSERT INTO history(kind, name, version, path, op, body_id, size, at, surface, operation, client, detail, writer) VALUES ('page', new.slug, (SELECT COALESCE(MAX(version), 0) + 1 FROM history WHERE kind = 'page' AND name = new.slug), new.path, 'create', (SELECT id FROM history_bodies WHERE hash = new.content_hash), new.size, gb_now_ms(), gb_origin(0), gb_origin(1), gb_origin(2), '', gb_origin(3));
  RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION pages_history_au_fn() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF old.content_hash IS DISTINCT FROM new.content_hash OR old.slug IS DISTINCT FROM new.slug OR old.path IS DISTINCT FROM new.path THEN
  INSERT INTO history(kind, name, version, path, op, body_id, size, at, surface, operation, client, detail, writer)
  SELECT 'page', old.slug, (SELECT COALESCE(MAX(version), 0) + 1 FROM history WHERE kind = 'page' AND name = old.slug), old.path, 'move', NULL, 0, gb_now_ms(), gb_origin(0), gb_origin(1), gb_origin(2), 'to ' || new.slug, gb_origin(3) WHERE old.slug IS DISTINCT FROM new.slug;
  INSERT INTO history_bodies(hash, size, base_id, depth, data) SELECT new.content_hash, new.size, CASE WHEN b.depth < 15 THEN b.id END, CASE WHEN b.depth < 15 THEN b.depth + 1 ELSE 0 END, gb_pack(CASE WHEN new.bom <> 0 THEN chr(65279) ELSE '' END || new.frontmatter_raw || new.compiled_truth || new.separator || new.timeline, CASE WHEN b.depth < 15 THEN CASE WHEN old.bom <> 0 THEN chr(65279) ELSE '' END || old.frontmatter_raw || old.compiled_truth || old.separator || old.timeline END) FROM (SELECT 1) AS one LEFT JOIN history_bodies b ON b.hash = old.content_hash WHERE NOT EXISTS (SELECT 1 FROM history_bodies WHERE hash = new.content_hash);
  INSERT INTO history(kind, name, version, path, op, body_id, size, at, surface, operation, client, detail, writer) VALUES ('page', new.slug, (SELECT COALESCE(MAX(version), 0) + 1 FROM history WHERE kind = 'page' AND name = new.slug), new.path, CASE WHEN old.slug IS DISTINCT FROM new.slug THEN 'move' ELSE 'update' END, (SELECT id FROM history_bodies WHERE hash = new.content_hash), new.size, gb_now_ms(), gb_origin(0), gb_origin(1), gb_origin(2), CASE WHEN old.slug IS DISTINCT FROM new.slug THEN 'from ' || old.slug ELSE '' END, gb_origin(3));
  END IF;
  RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION pages_history_ad_fn() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO history(kind, name, version, path, op, body_id, size, at, surface, operation, client, detail, writer) VALUES ('page', old.slug, (SELECT COALESCE(MAX(version), 0) + 1 FROM history WHERE kind = 'page' AND name = old.slug), old.path, 'delete', NULL, 0, gb_now_ms(), gb_origin(0), gb_origin(1), gb_origin(2), '', gb_origin(3));
  RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION files_history_ai_fn() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO history_bodies(hash, size, base_id, depth, data) SELECT new.content_hash, new.size, NULL, CASE WHEN new.pieces > 0 THEN 15 ELSE 0 END, CASE WHEN new.pieces > 0 THEN '\x63'::bytea ELSE gb_pack(new.data, NULL) END WHERE NOT EXISTS (SELECT 1 FROM history_bodies WHERE hash = new.content_hash);
  INSERT INTO history(kind, name, version, path, op, body_id, size, at, surface, operation, client, detail, writer) VALUES ('file', new.path, (SELECT COALESCE(MAX(version), 0) + 1 FROM history WHERE kind = 'file' AND name = new.path), new.path, 'create', (SELECT id FROM history_bodies WHERE hash = new.content_hash), new.size, gb_now_ms(), gb_origin(0), gb_origin(1), gb_origin(2), '', gb_origin(3));
  RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION files_history_au_fn() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF old.content_hash IS DISTINCT FROM new.content_hash OR old.path IS DISTINCT FROM new.path THEN
  INSERT INTO history(kind, name, version, path, op, body_id, size, at, surface, operation, client, detail, writer)
  SELECT 'file', old.path, (SELECT COALESCE(MAX(version), 0) + 1 FROM history WHERE kind = 'file' AND name = old.path), old.path, 'move', NULL, 0, gb_now_ms(), gb_origin(0), gb_origin(1), gb_origin(2), 'to ' || new.path, gb_origin(3) WHERE old.path IS DISTINCT FROM new.path;
  INSERT INTO history_bodies(hash, size, base_id, depth, data) SELECT new.content_hash, new.size, NULL, CASE WHEN new.pieces > 0 THEN 15 ELSE 0 END, CASE WHEN new.pieces > 0 THEN '\x63'::bytea ELSE gb_pack(new.data, NULL) END WHERE NOT EXISTS (SELECT 1 FROM history_bodies WHERE hash = new.content_hash);
  INSERT INTO history(kind, name, version, path, op, body_id, size, at, surface, operation, client, detail, writer) VALUES ('file', new.path, (SELECT COALESCE(MAX(version), 0) + 1 FROM history WHERE kind = 'file' AND name = new.path), new.path, CASE WHEN old.path IS DISTINCT FROM new.path THEN 'move' ELSE 'update' END, (SELECT id FROM history_bodies WHERE hash = new.content_hash), new.size, gb_now_ms(), gb_origin(0), gb_origin(1), gb_origin(2), CASE WHEN old.path IS DISTINCT FROM new.path THEN 'from ' || old.path ELSE '' END, gb_origin(3));
  END IF;
  RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION files_history_ad_fn() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO history(kind, name, version, path, op, body_id, size, at, surface, operation, client, detail, writer) VALUES ('file', old.path, (SELECT COALESCE(MAX(version), 0) + 1 FROM history WHERE kind = 'file' AND name = old.path), old.path, 'delete', NULL, 0, gb_now_ms(), gb_origin(0), gb_origin(1), gb_origin(2), '', gb_origin(3));
  RETURN NULL;
END $$;
