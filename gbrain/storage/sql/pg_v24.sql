-- gbrain Postgres schema v24 (SQLite v24): history bodies by reference. A page body that is still
-- the current text of the page that wrote it is not copied into history_bodies: its data is the
-- marker 'p' followed by the page's id (gb_ref), and core/history.py reads the page's text (checked
-- against the body's hash). The page's UPDATE and DELETE triggers pack it (gb_keep: as gb_pack
-- alone, when OLD's text still hashes to it; else the reference stays and reading it says the
-- version is lost) the moment that page stops holding it. Bodies stored before stay as they are.
CREATE OR REPLACE FUNCTION gb_ref(id bigint) RETURNS bytea LANGUAGE sql IMMUTABLE AS
  $$ SELECT '\x70'::bytea || convert_to(id::text, 'UTF8') $$;
CREATE OR REPLACE FUNCTION gb_keep(body text, hx text) RETURNS bytea LANGUAGE sql IMMUTABLE AS
  $$ SELECT CASE WHEN encode(sha256(convert_to(body, 'UTF8')), 'hex') = hx THEN gb_pack(body, NULL::text) END $$;
CREATE OR REPLACE FUNCTION pages_history_ai_fn() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO history_bodies(hash, size, base_id, depth, data) SELECT new.content_hash, new.size, NULL, 0, gb_ref(new.id) WHERE NOT EXISTS (SELECT 1 FROM history_bodies WHERE hash = new.content_hash);
  INSERT INTO history(kind, name, version, path, op, body_id, size, at, surface, operation, client, detail, writer) VALUES ('page', new.slug, (SELECT COALESCE(MAX(version), 0) + 1 FROM history WHERE kind = 'page' AND name = new.slug), new.path, 'create', (SELECT id FROM history_bodies WHERE hash = new.content_hash), new.size, gb_now_ms(), gb_origin(0), gb_origin(1), gb_origin(2), '', gb_origin(3));
  RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION pages_history_au_fn() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF old.content_hash IS DISTINCT FROM new.content_hash OR old.slug IS DISTINCT FROM new.slug OR old.path IS DISTINCT FROM new.path THEN
  INSERT INTO history(kind, name, version, path, op, body_id, size, at, surface, operation, client, detail, writer)
  SELECT 'page', old.slug, (SELECT COALESCE(MAX(version), 0) + 1 FROM history WHERE kind = 'page' AND name = old.slug), old.path, 'move', NULL, 0, gb_now_ms(), gb_origin(0), gb_origin(1), gb_origin(2), 'to ' || new.slug, gb_origin(3) WHERE old.slug IS DISTINCT FROM new.slug;
  IF old.content_hash IS DISTINCT FROM new.content_hash THEN
    UPDATE history_bodies SET data = COALESCE(gb_keep(CASE WHEN old.bom <> 0 THEN chr(65279) ELSE '' END || old.frontmatter_raw || old.compiled_truth || old.separator || old.timeline, old.content_hash), data) WHERE hash = old.content_hash AND data = gb_ref(old.id);
  END IF;
  INSERT INTO history_bodies(hash, size, base_id, depth, data) SELECT new.content_hash, new.size, CASE WHEN b.depth < 15 AND b.data IS DISTINCT FROM gb_ref(old.id) THEN b.id END, CASE WHEN b.depth < 15 AND b.data IS DISTINCT FROM gb_ref(old.id) THEN b.depth + 1 ELSE 0 END, CASE WHEN b.depth < 15 AND b.data IS DISTINCT FROM gb_ref(old.id) THEN gb_pack(CASE WHEN new.bom <> 0 THEN chr(65279) ELSE '' END || new.frontmatter_raw || new.compiled_truth || new.separator || new.timeline, CASE WHEN old.bom <> 0 THEN chr(65279) ELSE '' END || old.frontmatter_raw || old.compiled_truth || old.separator || old.timeline) ELSE gb_ref(new.id) END FROM (SELECT 1) AS one LEFT JOIN history_bodies b ON b.hash = old.content_hash WHERE NOT EXISTS (SELECT 1 FROM history_bodies WHERE hash = new.content_hash);
  INSERT INTO history(kind, name, version, path, op, body_id, size, at, surface, operation, client, detail, writer) VALUES ('page', new.slug, (SELECT COALESCE(MAX(version), 0) + 1 FROM history WHERE kind = 'page' AND name = new.slug), new.path, CASE WHEN old.slug IS DISTINCT FROM new.slug THEN 'move' ELSE 'update' END, (SELECT id FROM history_bodies WHERE hash = new.content_hash), new.size, gb_now_ms(), gb_origin(0), gb_origin(1), gb_origin(2), CASE WHEN old.slug IS DISTINCT FROM new.slug THEN 'from ' || old.slug ELSE '' END, gb_origin(3));
  END IF;
  RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION pages_history_ad_fn() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE history_bodies SET data = COALESCE(gb_keep(CASE WHEN old.bom <> 0 THEN chr(65279) ELSE '' END || old.frontmatter_raw || old.compiled_truth || old.separator || old.timeline, old.content_hash), data) WHERE hash = old.content_hash AND data = gb_ref(old.id);
  INSERT INTO history(kind, name, version, path, op, body_id, size, at, surface, operation, client, detail, writer) VALUES ('page', old.slug, (SELECT COALESCE(MAX(version), 0) + 1 FROM history WHERE kind = 'page' AND name = old.slug), old.path, 'delete', NULL, 0, gb_now_ms(), gb_origin(0), gb_origin(1), gb_origin(2), '', gb_origin(3));
  RETURN NULL;
END $$;
