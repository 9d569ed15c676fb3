-- gbrain Postgres schema v28: a process whose gbrain is older than the brain's schema writes no
-- page or file. A `watch` or `serve` started before a teammate's newer gbrain upgraded the brain
-- went on saving pages with its old rules (derived rows no fresh import makes). Each session of
-- a gbrain from this version on says its code's schema version in the setting gbrain.schema
-- (storage/pg.py, with gbrain.origin before each write; migrate() for its own transaction); a
-- statement on pages or files that makes a version (the history triggers' events: a new row, a
-- new text or name, a deletion) from a session whose version is below the brain's is refused,
-- and a gbrain from before this version, which sets no gbrain.schema, is refused too. The
-- brain's version is read from gbrain_schema, so a later version needs no change here.
-- SQLite v28 does the same (storage/db.py _m28_schema_guard).
CREATE OR REPLACE FUNCTION gb_schema_guard() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  have integer := coalesce(nullif(current_setting('gbrain.schema', true), '')::integer, 0);
  need integer := (SELECT max(version) FROM gbrain_schema);
BEGIN
  IF have < need THEN
    RAISE EXCEPTION 'database schema v% (Postgres) is newer than this gbrain (%); upgrade gbrain (a newer one upgraded the brain while this process ran; nothing was written)',
      need, CASE WHEN have = 0 THEN 'an older version' ELSE 'v' || have END;
  END IF;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS pages_schema_guard ON pages;
CREATE TRIGGER pages_schema_guard BEFORE INSERT OR UPDATE OF slug, path, content_hash OR DELETE ON pages
  FOR EACH STATEMENT EXECUTE FUNCTION gb_schema_guard();
DROP TRIGGER IF EXISTS files_schema_guard ON files;
CREATE TRIGGER files_schema_guard BEFORE INSERT OR UPDATE OF path, content_hash OR DELETE ON files
  FOR EACH STATEMENT EXECUTE FUNCTION gb_schema_guard();
