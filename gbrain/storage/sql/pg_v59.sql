-- gbrain Postgres schema v59 (Postgres only: SQLite's FTS5 counts tokens already): BM25 measures a
-- page's length in tokens, as FTS5 does, where Postgres measured it in distinct lexemes
-- (length(search_tsv)): a short page of varied words (148 tokens, 74 lexemes: 0.44 of SQLite's
-- average length, 0.70 of Postgres') lost its advantage over a long page repeating its words
-- (1,143 tokens, 247 lexemes). pages.search_len is the page's tokens over the fields SQLite's
-- page_fts indexes (title, aliases, path, headings, body, timeline, words, CJK bigrams), each
-- counted as FTS5's unicode61 splits it: runs of characters other than ASCII punctuation, white
-- space and the common non-ASCII punctuation (gb_tokens: a regular expression without character
-- classes, so the count is that of any server locale). to_tsvector's positions count hyphenated
-- words and URLs' parts twice and stop at 16,383; on obsidian-help this count is FTS5's exactly
-- for 446 of 568 pages and within 4% for every one (docs/search.md "Page length").
-- The BEFORE trigger pages_search_tsv keeps it (a write of a field it reads), the v19 statement
-- triggers add it to search_stats_part.tokens, and search_totals sums it (tokens). The refill is
-- one UPDATE of the new column alone: pages_search_tsv does not fire (no field it reads is set),
-- no vector is computed again, and search_stats_au is off meanwhile (it would read every page's
-- vector twice to find no change) and the totals' tokens are counted once after.
-- Re-runnable.
-- gb_tokens_portable counts with regexp_matches (any Postgres gbrain runs on); gb_tokens is
-- regexp_count's one pass (Postgres 15+) where the server has it, else the portable
-- count: the same number either way (tests/test_pg_page_length.py compares them)
CREATE OR REPLACE FUNCTION gb_tokens_portable(t text) RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT count(*)::integer FROM regexp_matches(coalesce(t, ''), '[^\u0001-\u002f\u003a-\u0040\u005b-\u0060\u007b-\u00bf\u00d7\u00f7\u2000-\u206f\u3000-\u303f\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65]+', 'g')
$$;
DO $do$
BEGIN
  IF current_setting('server_version_num')::integer >= 150000 THEN
    EXECUTE $f$CREATE OR REPLACE FUNCTION gb_tokens(t text) RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $b$
      SELECT coalesce(regexp_count(t, '[^\u0001-\u002f\u003a-\u0040\u005b-\u0060\u007b-\u00bf\u00d7\u00f7\u2000-\u206f\u3000-\u303f\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65]+'), 0)
    $b$$f$;
  ELSE
    EXECUTE $f$CREATE OR REPLACE FUNCTION gb_tokens(t text) RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $b$
      SELECT gb_tokens_portable(t)
    $b$$f$;
  END IF;
END $do$;
CREATE OR REPLACE FUNCTION gb_page_tokens(p pages) RETURNS integer LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT gb_tokens(p.title) + gb_tokens(p.search_aliases) + gb_tokens(p.path) + gb_tokens(p.search_headings)
    + gb_tokens(coalesce(p.search_body, p.compiled_truth)) + gb_tokens(coalesce(p.search_timeline, p.timeline))
    + gb_tokens(p.search_words) + gb_tokens(p.search_cjk)
$$;
ALTER TABLE pages ADD COLUMN IF NOT EXISTS search_len integer NOT NULL DEFAULT 0;
ALTER TABLE search_stats_part ADD COLUMN IF NOT EXISTS tokens bigint NOT NULL DEFAULT 0;
CREATE OR REPLACE VIEW search_totals AS
SELECT coalesce(sum(pages), 0)::bigint AS pages, coalesce(sum(lexemes), 0)::bigint AS lexemes,
  coalesce(sum(tokens), 0)::bigint AS tokens FROM search_stats_part;

CREATE OR REPLACE FUNCTION pages_search_tsv_fn() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.search_names_tsv :=
    setweight(to_tsvector('english', gb_fold(NEW.title)), 'A') ||
    setweight(gb_alias_tsv(NEW.search_aliases), 'A') ||
    setweight(to_tsvector('simple', gb_fold(NEW.path)), 'B') ||
    setweight(to_tsvector('english', gb_fold(NEW.path)), 'B') ||
    setweight(to_tsvector('english', gb_fold(NEW.search_headings)), 'B');
  NEW.search_tsv := NEW.search_names_tsv ||
    setweight(to_tsvector('english', gb_fold(coalesce(NEW.search_body, NEW.compiled_truth))), 'C') ||
    setweight(to_tsvector('simple', gb_fold(NEW.search_words)), 'C') ||
    setweight(to_tsvector('english', gb_fold(coalesce(NEW.search_timeline, NEW.timeline))), 'D') ||
    setweight(to_tsvector('simple', NEW.search_cjk), 'C');
  NEW.search_len := gb_page_tokens(NEW);
  RETURN NEW;
END $$;

-- adds one change of the totals (pages, lexemes, tokens) and folds every row no other open
-- transaction holds into one (v19's, with the tokens)
CREATE OR REPLACE FUNCTION gb_search_stats_add(n bigint, l bigint, t bigint) RETURNS void LANGUAGE sql AS $$
  INSERT INTO search_stats_part (pages, lexemes, tokens) VALUES (n, l, t);
  WITH gone AS (
    DELETE FROM search_stats_part WHERE id IN (SELECT id FROM search_stats_part FOR UPDATE SKIP LOCKED)
    RETURNING pages, lexemes, tokens)
  INSERT INTO search_stats_part (pages, lexemes, tokens) SELECT sum(pages), sum(lexemes), sum(tokens) FROM gone HAVING count(*) > 0;
$$;
CREATE OR REPLACE FUNCTION search_stats_ai_fn() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM gb_search_stats_add(d.n, d.l, d.t)
  FROM (SELECT count(*) AS n, coalesce(sum(length(search_tsv)), 0) AS l, coalesce(sum(search_len), 0) AS t FROM gb_new) d WHERE d.n <> 0;
  RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION search_stats_ad_fn() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM gb_search_stats_add(-d.n, -d.l, -d.t)
  FROM (SELECT count(*) AS n, coalesce(sum(length(search_tsv)), 0) AS l, coalesce(sum(search_len), 0) AS t FROM gb_old) d WHERE d.n <> 0;
  RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION search_stats_au_fn() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM gb_search_stats_add(0, d.l, d.t)
  FROM (SELECT n.l - o.l AS l, n.t - o.t AS t
        FROM (SELECT coalesce(sum(length(search_tsv)), 0) AS l, coalesce(sum(search_len), 0) AS t FROM gb_new) n,
             (SELECT coalesce(sum(length(search_tsv)), 0) AS l, coalesce(sum(search_len), 0) AS t FROM gb_old) o) d
  WHERE d.l <> 0 OR d.t <> 0;
  RETURN NULL;
END $$;

-- the refill: every page's tokens, no vector computed again; the totals' tokens counted after
ALTER TABLE pages DISABLE TRIGGER search_stats_au;
UPDATE pages SET search_len = gb_page_tokens(pages);
ALTER TABLE pages ENABLE TRIGGER search_stats_au;
UPDATE search_stats_part SET tokens = 0;
SELECT gb_search_stats_add(0, 0, (SELECT coalesce(sum(search_len), 0) FROM pages));
