-- gbrain Postgres schema v35 (SQLite v35): non-page files' history by reference, as pg_v24 for
-- pages. A file body that is still the bytes of the files row that wrote it is not copied into
-- history_bodies: its data is the marker 'f' followed by the row's id (gb_fref), and
-- core/history.py reads the row's bytes (checked against the body's hash). The row's UPDATE (new
-- bytes) and DELETE triggers pack it (gb_keep over bytea: as gb_pack, when OLD's bytes still hash
-- to it; else the reference stays and reading it says the version is lost) the moment the row
-- stops holding it; a move keeps the row and its id. Bytes the history holds as a copy already (a
-- file restored, reverted, re-created) are taken back as a reference to the new row (any body but
-- a reference or 'c' stored in more than a quarter of its size: core/history.py COPY_SQL). Big
-- files keep their 'c' bodies. The
-- Python step (storage/db.py: file_refs_upgrade) turns the copies of current files into
-- references.
CREATE OR REPLACE FUNCTION gb_fref(id bigint) RETURNS bytea LANGUAGE sql IMMUTABLE AS
  $$ SELECT '\x66'::bytea || convert_to(id::text, 'UTF8') $$;
CREATE OR REPLACE FUNCTION gb_keep(body bytea, hx text) RETURNS bytea LANGUAGE sql IMMUTABLE AS
  $$ SELECT CASE WHEN encode(sha256(body), 'hex') = hx THEN gb_pack(body, NULL::bytea) END $$;
CREATE OR REPLACE FUNCTION files_history_ai_fn() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO history_bodies(hash, size, base_id, depth, data) SELECT new.content_hash, new.size, NULL, CASE WHEN new.pieces > 0 THEN 15 ELSE 0 END, CASE WHEN new.pieces > 0 THEN '\x63'::bytea ELSE gb_fref(new.id) END WHERE NOT EXISTS (SELECT 1 FROM history_bodies WHERE hash = new.content_hash);
  UPDATE history_bodies SET data = gb_fref(new.id), base_id = NULL, depth = 0 WHERE new.pieces = 0 AND hash = new.content_hash AND substr(data, 1, 1) NOT IN ('\x63'::bytea, '\x66'::bytea, '\x70'::bytea) AND length(data) * 4 > size;
  INSERT INTO history(kind, name, version, path, op, body_id, size, at, surface, operation, client, detail, writer) VALUES ('file', new.path, (SELECT COALESCE(MAX(version), 0) + 1 FROM history WHERE kind = 'file' AND name = new.path), new.path, 'create', (SELECT id FROM history_bodies WHERE hash = new.content_hash), new.size, gb_now_ms(), gb_origin(0), gb_origin(1), gb_origin(2), '', gb_origin(3));
  RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION files_history_au_fn() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF old.content_hash IS DISTINCT FROM new.content_hash OR old.path IS DISTINCT FROM new.path THEN
  INSERT INTO history(kind, name, version, path, op, body_id, size, at, surface, operation, client, detail, writer)
  SELECT 'file', old.path, (SELECT COALESCE(MAX(version), 0) + 1 FROM history WHERE kind = 'file' AND name = old.path), old.path, 'move', NULL, 0, gb_now_ms(), gb_origin(0), gb_origin(1), gb_origin(2), 'to ' || new.path, gb_origin(3) WHERE old.path IS DISTINCT FROM new.path;
  IF old.content_hash IS DISTINCT FROM new.content_hash THEN
    UPDATE history_bodies SET data = COALESCE(gb_keep(old.data, old.content_hash), data) WHERE hash = old.content_hash AND data = gb_fref(old.id);
  END IF;
  -- (bodies are stored as they are here, no deltas: the new version is a reference)
  INSERT INTO history_bodies(hash, size, base_id, depth, data) SELECT new.content_hash, new.size, NULL, CASE WHEN new.pieces > 0 THEN 15 ELSE 0 END, CASE WHEN new.pieces > 0 THEN '\x63'::bytea ELSE gb_fref(new.id) END WHERE NOT EXISTS (SELECT 1 FROM history_bodies WHERE hash = new.content_hash);
  UPDATE history_bodies SET data = gb_fref(new.id), base_id = NULL, depth = 0 WHERE old.content_hash IS DISTINCT FROM new.content_hash AND new.pieces = 0 AND hash = new.content_hash AND substr(data, 1, 1) NOT IN ('\x63'::bytea, '\x66'::bytea, '\x70'::bytea) AND length(data) * 4 > size;
  INSERT INTO history(kind, name, version, path, op, body_id, size, at, surface, operation, client, detail, writer) VALUES ('file', new.path, (SELECT COALESCE(MAX(version), 0) + 1 FROM history WHERE kind = 'file' AND name = new.path), new.path, CASE WHEN old.path IS DISTINCT FROM new.path THEN 'move' ELSE 'update' END, (SELECT id FROM history_bodies WHERE hash = new.content_hash), new.size, gb_now_ms(), gb_origin(0), gb_origin(1), gb_origin(2), CASE WHEN old.path IS DISTINCT FROM new.path THEN 'from ' || old.path ELSE '' END, gb_origin(3));
  END IF;
  RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION files_history_ad_fn() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE history_bodies SET data = COALESCE(gb_keep(old.data, old.content_hash), data) WHERE hash = old.content_hash AND data = gb_fref(old.id);
  INSERT INTO history(kind, name, version, path, op, body_id, size, at, surface, operation, client, detail, writer) VALUES ('file', old.path, (SELECT COALESCE(MAX(version), 0) + 1 FROM history WHERE kind = 'file' AND name = old.path), old.path, 'delete', NULL, 0, gb_now_ms(), gb_origin(0), gb_origin(1), gb_origin(2), '', gb_origin(3));
  RETURN NULL;
END $$;
