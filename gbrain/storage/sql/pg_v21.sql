-- gbrain Postgres schema v21: a word inside a run of CJK text is found (SQLite v21). The parser
-- makes a whole run of Han, kana or Hangul one word, as SQLite's unicode61 does, so '同期'
-- matched only where it stood alone. pages.search_cjk holds the overlapping character bigrams of
-- every CJK run of the page's title, aliases, folders, text and frontmatter values, and each
-- run's last character (search/keyword.py cjk_bigrams), C-weighted in search_tsv as body text; a
-- query's CJK run is the phrase of its bigrams. search_tsv is dropped and added again with the
-- column at its end (PG 16 has no SET EXPRESSION), with its GIN index; with search_cjk still ''
-- every page's tsvector is the one it had, so search_stats_part stays true. The Python step after
-- this file (storage/pg.py _PY_STEPS, db.py rederive_cjk) fills search_cjk for the pages whose
-- fields hold CJK (selected here with a regular expression: a brain without CJK sends no text);
-- its UPDATE keeps the totals through the v19 triggers.
ALTER TABLE pages ADD COLUMN IF NOT EXISTS search_cjk TEXT COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE pages DROP COLUMN search_tsv;
ALTER TABLE pages ADD COLUMN search_tsv tsvector GENERATED ALWAYS AS (
  setweight(to_tsvector('english', title), 'A') ||
  setweight(to_tsvector('simple', search_aliases), 'A') ||
  setweight(to_tsvector('simple', translate(path, '/-_.', '    ')), 'B') ||
  setweight(to_tsvector('english', translate(path, '/-_.', '    ')), 'B') ||
  setweight(to_tsvector('english', search_headings), 'B') ||
  setweight(to_tsvector('english', compiled_truth), 'C') ||
  setweight(to_tsvector('simple', search_words), 'C') ||
  setweight(to_tsvector('english', timeline), 'D') ||
  setweight(to_tsvector('simple', search_cjk), 'C')
) STORED;
CREATE INDEX idx_pages_search_tsv ON pages USING gin (search_tsv);
