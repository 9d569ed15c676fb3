-- gbrain Postgres schema v11: search reads the frontmatter's words, and a path's words by their
-- stems too.
-- 1. pages.search_words (the C-weighted words of search_tsv) gains every frontmatter string
--    value but the title, aliases, dates and URLs; the Python step after this file
--    (storage/pg.py _PY_STEPS, db.py rederive_search_words) recomputes it for the stored
--    pages, and the generated columns follow. SQLite v14 does the same.
-- 2. The path is indexed under 'english' as well as 'simple' (SQLite's porter tokenizer stems
--    every column): "company" finds companies/…, "meeting" meetings/…, as on SQLite. The
--    generated columns are dropped and added again (PG 16 has no SET EXPRESSION), with their
--    GIN indexes; gb_match_* / gb_name_ids name the columns at run time only.
ALTER TABLE pages DROP COLUMN search_tsv;
ALTER TABLE pages DROP COLUMN search_names_tsv;
ALTER TABLE pages ADD COLUMN search_tsv tsvector GENERATED ALWAYS AS (
  setweight(to_tsvector('english', title), 'A') ||
  setweight(to_tsvector('simple', search_aliases), 'A') ||
  setweight(to_tsvector('simple', translate(path, '/-_.', '    ')), 'B') ||
  setweight(to_tsvector('english', translate(path, '/-_.', '    ')), 'B') ||
  setweight(to_tsvector('english', search_headings), 'B') ||
  setweight(to_tsvector('english', compiled_truth), 'C') ||
  setweight(to_tsvector('simple', search_words), 'C') ||
  setweight(to_tsvector('english', timeline), 'D')
) STORED;
ALTER TABLE pages ADD COLUMN search_names_tsv tsvector GENERATED ALWAYS AS (
  setweight(to_tsvector('english', title), 'A') ||
  setweight(to_tsvector('simple', search_aliases), 'A') ||
  setweight(to_tsvector('simple', translate(path, '/-_.', '    ')), 'B') ||
  setweight(to_tsvector('english', translate(path, '/-_.', '    ')), 'B') ||
  setweight(to_tsvector('english', search_headings), 'B')
) STORED;
CREATE INDEX idx_pages_search_tsv ON pages USING gin (search_tsv);
CREATE INDEX idx_pages_search_names_tsv ON pages USING gin (search_names_tsv);
