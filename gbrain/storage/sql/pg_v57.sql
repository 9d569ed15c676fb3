-- gbrain Postgres schema v57 (Postgres only: SQLite's FTS5 porter-stems its aliases column
-- already): a page's aliases (and its H1 name, the last line of search_aliases since v53) are
-- indexed by their 'english' stems, as the title is, where they were indexed as written
-- ('simple'): "run notes" matched only "notes" of the alias "Running Notes" (SQLite: both words,
-- weight 5 each), and "runs" not at all. Weight A as before; an alias word that 'english' drops
-- (a stop word: "The Who", "IT") stays as written, as SQLite's porter keeps every word, so
-- each alias word is one occurrence, as on SQLite (gb_alias_tsv).
-- search_tsv and search_names_tsv were generated columns: a new expression recomputes every
-- page's tsvector (PG 16 has no SET EXPRESSION; it would rewrite the table as well). They become
-- plain columns (DROP EXPRESSION keeps the stored values, no rewrite) that the BEFORE trigger
-- pages_search_tsv computes on an insert and on an update of a column they read, as Postgres
-- recomputed them, with the same expressions but the aliases' (search_tsv = search_names_tsv ||
-- the body fields: the same concatenation, the same positions). Then only the pages holding an
-- alias are indexed again (their UPDATE keeps the BM25 totals through the v19 triggers); every
-- other page keeps its row. A later version that changes them replaces pages_search_tsv_fn.
-- Re-runnable.
CREATE OR REPLACE FUNCTION gb_alias_tsv(a text) RETURNS tsvector LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT CASE WHEN a = '' THEN ''::tsvector ELSE (
    SELECT e || ts_delete(s, ARRAY(SELECT l FROM unnest(tsvector_to_array(s)) AS l WHERE length(to_tsvector('english', l)) > 0))
    FROM (SELECT to_tsvector('english', f) AS e, to_tsvector('simple', f) AS s FROM (SELECT gb_fold(a) AS f) AS x) AS y) END
$$;
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
  RETURN NEW;
END $$;
ALTER TABLE pages ALTER COLUMN search_tsv DROP EXPRESSION IF EXISTS;
ALTER TABLE pages ALTER COLUMN search_names_tsv DROP EXPRESSION IF EXISTS;
DROP TRIGGER IF EXISTS pages_search_tsv ON pages;
CREATE TRIGGER pages_search_tsv BEFORE INSERT OR UPDATE OF title, search_aliases, path, search_headings, compiled_truth,
  search_body, search_words, timeline, search_timeline, search_cjk ON pages FOR EACH ROW EXECUTE FUNCTION pages_search_tsv_fn();
UPDATE pages SET search_aliases = search_aliases WHERE search_aliases <> '';
