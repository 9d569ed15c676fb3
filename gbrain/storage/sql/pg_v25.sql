-- gbrain Postgres schema v25 (SQLite v25): the derived tables without what nothing needs.
-- links.created_at and timeline_entries.created_at (a gb_now() per row no code reads) are
-- dropped, and so are idx_aliases_page and idx_raw_data_page (the UNIQUE(page_id, ...) index
-- serves every lookup by page and the cascade from pages). idx_links_from and idx_tags_page_id
-- stay, as on SQLite (a page's links and tags are read in id order). The ids stay identity
-- columns: a sequence costs no catalog row per statement (SQLite's AUTOINCREMENT did) and never
-- gives an id back, which nothing needs either way.
DROP INDEX IF EXISTS idx_aliases_page;
DROP INDEX IF EXISTS idx_raw_data_page;
ALTER TABLE links DROP COLUMN IF EXISTS created_at;
ALTER TABLE timeline_entries DROP COLUMN IF EXISTS created_at;
