-- gbrain Postgres schema v67 (SQLite v63): a name's words with letters no Unicode decomposition
-- folds (Łukasz, Søren, Straße, Mærsk) are indexed in their search form at the title's weight:
-- pages.search_fold_names (search/keyword.py fold_name_words: the title's and aliases' words
-- whose search_form differs, Łukasz → Lukasz), weight A of search_names_tsv (so of search_tsv),
-- read as an alias is (gb_alias_tsv: 'english' stems, a stop word as written), counted in the
-- page's tokens (gb_page_tokens, as FTS5 counts its ninth column). Before, a page named *Łukasz
-- Nowak* held 'lukasz' only among its body-weight search_words, so 'Łukasz' ranked *Lukasz Nowak*
-- first. The trigger pages_search_tsv fires on the new column too; the Python step after this
-- file (storage/pg.py _PY_STEPS; db.py fill_fold_names) fills it for the pages whose names are
-- not ASCII, and the trigger indexes those rows again (their totals kept by the v19 triggers).
ALTER TABLE pages ADD COLUMN IF NOT EXISTS search_fold_names text NOT NULL DEFAULT '';
CREATE OR REPLACE FUNCTION gb_page_tokens(p pages) RETURNS integer LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT gb_tokens(p.title) + gb_tokens(p.search_aliases) + gb_tokens(p.path) + gb_tokens(p.search_headings)
    + gb_tokens(coalesce(p.search_body, p.compiled_truth)) + gb_tokens(coalesce(p.search_timeline, p.timeline))
    + gb_tokens(p.search_words) + gb_tokens(p.search_cjk) + gb_tokens(p.search_fold_names)
$$;
CREATE OR REPLACE FUNCTION pages_search_tsv_fn() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.search_names_tsv :=
    setweight(to_tsvector('english', gb_fold(NEW.title)), 'A') ||
    setweight(gb_alias_tsv(NEW.search_aliases), 'A') ||
    setweight(to_tsvector('simple', gb_fold(NEW.path)), 'B') ||
    setweight(to_tsvector('english', gb_fold(NEW.path)), 'B') ||
    setweight(to_tsvector('english', gb_fold(NEW.search_headings)), 'B') ||
    setweight(gb_alias_tsv(NEW.search_fold_names), 'A');
  NEW.search_tsv := NEW.search_names_tsv ||
    setweight(to_tsvector('english', gb_fold(coalesce(NEW.search_body, NEW.compiled_truth))), 'C') ||
    setweight(to_tsvector('simple', gb_fold(NEW.search_words)), 'C') ||
    setweight(to_tsvector('english', gb_fold(coalesce(NEW.search_timeline, NEW.timeline))), 'D') ||
    setweight(to_tsvector('simple', NEW.search_cjk), 'C');
  NEW.search_len := gb_page_tokens(NEW);
  RETURN NEW;
END $$;
DROP TRIGGER IF EXISTS pages_search_tsv ON pages;
CREATE TRIGGER pages_search_tsv BEFORE INSERT OR UPDATE OF title, search_aliases, path, search_headings, compiled_truth,
  search_body, search_words, timeline, search_timeline, search_cjk, search_fold_names ON pages FOR EACH ROW EXECUTE FUNCTION pages_search_tsv_fn();
