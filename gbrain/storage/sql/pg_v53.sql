-- v53 (SQLite v51, _m51_h1_names): a page's first H1 that differs from its title names the page in
-- search as an alias does (search/keyword.py h1_name): the last line of search_aliases (a heading
-- too; search_tsv and search_names_tsv follow, generated) and pages.h1_key, its
-- title_key ('' for none), indexed for the exact-name bonus. The Python step after this file
-- (storage/pg.py _PY_STEPS; db.py rederive_h1_pages) derives again the pages that may hold an H1.
ALTER TABLE pages ADD COLUMN IF NOT EXISTS h1_key TEXT COLLATE "C" NOT NULL DEFAULT '';
CREATE INDEX IF NOT EXISTS idx_pages_h1_key ON pages(h1_key);
