-- gbrain Postgres schema v40: keyword search reads what a reader reads, a link's label and not its
-- address (SQLite v39): 'deal' matched 458 of a 1,000-page make_brain brain's pages, most through
-- links written (../deals/x.md). pages.search_body / search_timeline hold the compiled truth /
-- timeline with the addresses blanked (search/keyword.py search_text: a link's URL or relative
-- path, an aliased wiki link's target, an attachment embed's name, a URL's scheme), NULL where
-- there is none, and search_tsv reads them in place of the text (coalesce). search_tsv is dropped
-- and added again (PG 16 has no SET EXPRESSION), with its GIN index; with both columns NULL
-- every page's tsvector is the one it had (the totals are counted again below all the same). The Python step after
-- this file (storage/pg.py _PY_STEPS, db.py rederive_search_text) fills the columns of the pages
-- holding '[' or '://'; its UPDATE keeps the totals through the v19 triggers. Re-runnable.
ALTER TABLE pages ADD COLUMN IF NOT EXISTS search_body TEXT COLLATE "C";
ALTER TABLE pages ADD COLUMN IF NOT EXISTS search_timeline TEXT COLLATE "C";
ALTER TABLE pages DROP COLUMN search_tsv;
ALTER TABLE pages ADD COLUMN search_tsv tsvector GENERATED ALWAYS AS (
  setweight(to_tsvector('english', gb_fold(title)), 'A') ||
  setweight(to_tsvector('simple', gb_fold(search_aliases)), 'A') ||
  setweight(to_tsvector('simple', gb_fold(path)), 'B') ||
  setweight(to_tsvector('english', gb_fold(path)), 'B') ||
  setweight(to_tsvector('english', gb_fold(search_headings)), 'B') ||
  setweight(to_tsvector('english', gb_fold(coalesce(search_body, compiled_truth))), 'C') ||
  setweight(to_tsvector('simple', gb_fold(search_words)), 'C') ||
  setweight(to_tsvector('english', gb_fold(coalesce(search_timeline, timeline))), 'D') ||
  setweight(to_tsvector('simple', search_cjk), 'C')
) STORED;
CREATE INDEX idx_pages_search_tsv ON pages USING gin (search_tsv);
-- (the BM25 totals counted again: a brain whose columns were filled already, re-run or written by
-- a newer gbrain while held back, has tsvectors the drop and add changed without an UPDATE)
DELETE FROM search_stats_part;
INSERT INTO search_stats_part (pages, lexemes)
SELECT count(*), coalesce(sum(length(search_tsv)), 0) FROM pages;
