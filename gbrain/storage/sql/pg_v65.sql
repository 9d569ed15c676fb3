-- gbrain Postgres schema v65 (SQLite v61): nav_entries, the entries of each stored nav file
-- (TOC.yml, _toc.yml, mkdocs.yml nav:) naming a page, a function of the file's bytes and path
-- (page/navfile.py nav_rows), written by Brain.save_file, resolved against the pages when read;
-- the trigger on files only deletes. Filled by a Python step (storage/db.py fill_nav_entries).
CREATE TABLE IF NOT EXISTS nav_entries (
  file_id BIGINT NOT NULL,
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
CREATE OR REPLACE FUNCTION files_nav_fn() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM nav_entries WHERE file_id = OLD.id;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS files_nav_ad ON files;
CREATE TRIGGER files_nav_ad AFTER DELETE ON files FOR EACH ROW EXECUTE FUNCTION files_nav_fn();
