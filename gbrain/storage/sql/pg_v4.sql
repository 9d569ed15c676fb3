-- gbrain Postgres schema v4: keyword search ranks a bounded candidate set (search/keyword.py
-- _rank_pg). A word in most pages matched thousands of rows, each read and ranked
-- (ts_rank_cd over every match: ~300 ms under load on 7,471 pages); now the GIN index alone
-- counts and lists matches, and only a few hundred candidates are ranked.

-- the names of a page (title and aliases A, path and headings B: the same parts, configurations
-- and weights as in search_tsv), small enough to stay in the row: every page that has a query
-- word in a name is a candidate, however common the word is in bodies
ALTER TABLE pages ADD COLUMN search_names_tsv tsvector GENERATED ALWAYS AS (
  setweight(to_tsvector('english', title), 'A') ||
  setweight(to_tsvector('simple', search_aliases), 'A') ||
  setweight(to_tsvector('simple', translate(path, '/-_.', '    ')), 'B') ||
  setweight(to_tsvector('english', search_headings), 'B')
) STORED;
CREATE INDEX idx_pages_search_names_tsv ON pages USING gin (search_names_tsv);

-- matches straight from the GIN index (a bitmap scan: no row's tsvector is read or rechecked
-- for a plain-word query). Without the settings the planner takes a sequential scan for a word
-- in most pages, and evaluates @@ on every row (~70 ms for one count on 7,471 pages).
CREATE FUNCTION gb_match_count(q tsquery) RETURNS bigint LANGUAGE sql STABLE
SET enable_seqscan = off SET enable_indexscan = off
AS $$ SELECT count(*) FROM pages WHERE search_tsv @@ q $$;

-- the first ``lim`` pages matching ``q`` in table order, from the index (no ORDER BY: the scan
-- stops after ``lim`` rows instead of reading every match: 1 ms instead of 5 for a word in
-- 5,800 of 7,471 pages)
CREATE FUNCTION gb_match_ids(q tsquery, lim bigint) RETURNS SETOF bigint LANGUAGE sql STABLE
SET enable_seqscan = off SET enable_indexscan = off
AS $$ SELECT id FROM pages WHERE search_tsv @@ q LIMIT lim $$;

-- pages with a word of ``q`` in a name (title, alias, path, heading)
CREATE FUNCTION gb_name_ids(q tsquery, lim bigint) RETURNS SETOF bigint LANGUAGE sql STABLE
SET enable_seqscan = off SET enable_indexscan = off
AS $$ SELECT id FROM pages WHERE search_names_tsv @@ q LIMIT lim $$;
