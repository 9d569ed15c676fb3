-- gbrain Postgres schema v19: the search statistics without a shared row. v18's search_stats was
-- one row that every statement writing pages updated from its trigger, so two writers that do not
-- hold gbrain's advisory lock (two processes on one team brain writing different pages) waited
-- on each other until the first committed, and could deadlock (each holding a pages row the
-- other wanted after the stats row). Now each such statement adds a row of its own (its pages
-- and lexemes, positive or negative: an INSERT waits on nobody), the view search_totals sums
-- them, and the same statement folds the rows it can take without waiting (FOR UPDATE SKIP
-- LOCKED: rows another open transaction is folding are left to it) into one, so the table stays
-- a few rows long. A reader sees the committed rows: the same totals as v18's row.
-- (re-runnable: a re-run counts again. A re-run of v18 before it makes its table and functions
-- again; this drops the table and replaces the functions again)
DROP TABLE IF EXISTS search_stats;
CREATE TABLE IF NOT EXISTS search_stats_part (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  pages bigint NOT NULL,
  lexemes bigint NOT NULL
);
DELETE FROM search_stats_part;
INSERT INTO search_stats_part (pages, lexemes)
SELECT count(*), coalesce(sum(length(search_tsv)), 0) FROM pages;
-- (dropped first: a re-run after v59, whose view adds tokens, cannot narrow it in place)
DROP VIEW IF EXISTS search_totals;
CREATE VIEW search_totals AS
SELECT coalesce(sum(pages), 0)::bigint AS pages, coalesce(sum(lexemes), 0)::bigint AS lexemes FROM search_stats_part;

-- adds one change of the totals and folds every row no other open transaction holds into one
CREATE OR REPLACE FUNCTION gb_search_stats_add(n bigint, l bigint) RETURNS void LANGUAGE sql AS $$
  INSERT INTO search_stats_part (pages, lexemes) VALUES (n, l);
  WITH gone AS (
    DELETE FROM search_stats_part WHERE id IN (SELECT id FROM search_stats_part FOR UPDATE SKIP LOCKED)
    RETURNING pages, lexemes)
  INSERT INTO search_stats_part (pages, lexemes) SELECT sum(pages), sum(lexemes) FROM gone HAVING count(*) > 0;
$$;

CREATE OR REPLACE FUNCTION search_stats_ai_fn() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM gb_search_stats_add(d.n, d.l)
  FROM (SELECT count(*) AS n, coalesce(sum(length(search_tsv)), 0) AS l FROM gb_new) d WHERE d.n <> 0;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION search_stats_ad_fn() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM gb_search_stats_add(-d.n, -d.l)
  FROM (SELECT count(*) AS n, coalesce(sum(length(search_tsv)), 0) AS l FROM gb_old) d WHERE d.n <> 0;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION search_stats_au_fn() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM gb_search_stats_add(0, d.l)
  FROM (SELECT coalesce(sum(length(n.search_tsv)), 0) - (SELECT coalesce(sum(length(search_tsv)), 0) FROM gb_old) AS l FROM gb_new n) d
  WHERE d.l <> 0;
  RETURN NULL;
END $$;
-- (the triggers of v18 call these functions; a later version that rebuilds search_tsv without
-- an UPDATE must count search_stats_part again)
