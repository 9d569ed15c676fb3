-- gbrain Postgres schema v18: keyword search ranks with BM25, as SQLite's FTS5 does
-- (search/keyword.py _rank_pg). ts_rank_cd has no inverse document frequency and no length
-- normalisation against the brain's average, so a word in most pages counted as much as a word
-- in one ("hiring freeze" buried the only page saying "freeze"). BM25 needs each term's pages
-- (the GIN index counts them: gb_match_count), each page's length (length(search_tsv): its
-- distinct lexemes, read from the tsvector's header) and the brain's average: this table keeps
-- the page count and the sum of the lengths, updated in the writer's transaction by statement
-- triggers, so after any edits it equals a fresh count over every page.
-- (re-runnable, as v14–v16 are: a re-run counts again)
CREATE TABLE IF NOT EXISTS search_stats (
  one boolean PRIMARY KEY DEFAULT true CHECK (one),
  pages bigint NOT NULL,
  lexemes bigint NOT NULL
);
INSERT INTO search_stats (one, pages, lexemes)
SELECT true, count(*), coalesce(sum(length(search_tsv)), 0) FROM pages
ON CONFLICT (one) DO UPDATE SET pages = EXCLUDED.pages, lexemes = EXCLUDED.lexemes;

-- once per statement over its rows (an import's multi-row INSERT is one update of the row); a
-- statement that changed no page's length takes no lock on it
CREATE OR REPLACE FUNCTION search_stats_ai_fn() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE search_stats s SET pages = s.pages + d.n, lexemes = s.lexemes + d.l
  FROM (SELECT count(*) AS n, coalesce(sum(length(search_tsv)), 0) AS l FROM gb_new) d
  WHERE d.n <> 0;
  RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER search_stats_ai AFTER INSERT ON pages REFERENCING NEW TABLE AS gb_new
FOR EACH STATEMENT EXECUTE FUNCTION search_stats_ai_fn();

CREATE OR REPLACE FUNCTION search_stats_ad_fn() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE search_stats s SET pages = s.pages - d.n, lexemes = s.lexemes - d.l
  FROM (SELECT count(*) AS n, coalesce(sum(length(search_tsv)), 0) AS l FROM gb_old) d
  WHERE d.n <> 0;
  RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER search_stats_ad AFTER DELETE ON pages REFERENCING OLD TABLE AS gb_old
FOR EACH STATEMENT EXECUTE FUNCTION search_stats_ad_fn();

-- (a trigger with transition tables takes no column list, so every UPDATE of pages fires it)
CREATE OR REPLACE FUNCTION search_stats_au_fn() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE search_stats s SET lexemes = s.lexemes + d.l
  FROM (SELECT coalesce(sum(length(n.search_tsv)), 0) - (SELECT coalesce(sum(length(search_tsv)), 0) FROM gb_old) AS l FROM gb_new n) d
  WHERE d.l <> 0;
  RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER search_stats_au AFTER UPDATE ON pages REFERENCING OLD TABLE AS gb_old NEW TABLE AS gb_new
FOR EACH STATEMENT EXECUTE FUNCTION search_stats_au_fn();

-- (a later version that rebuilds search_tsv without an UPDATE, as v11's DROP/ADD COLUMN did,
-- must count search_stats.lexemes again)
