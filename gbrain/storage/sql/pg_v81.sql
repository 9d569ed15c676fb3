-- gbrain Postgres schema v81 (Postgres only: SQLite's FTS5 keeps every word): the words the
-- 'english' configuration drops (its stop words: don, its, an, the, before, after, now…) are
-- indexed as written ('simple') beside a field's 'english' stems, as aliases (v57) and paths
-- (v70) are, for the title, headings, body and timeline too (gb_alias_tsv, at the field's
-- weight): `search "before"`, `don't`, `an*` found nothing on Postgres. A query's 'simple' form
-- (keyword._PG_WORD, _PG_PART) reaches them; a word 'english' keeps has no 'simple' lexeme here,
-- so an ordinary query's tsquery and ranking are unchanged (a page's length is its tokens,
-- search_len, not its lexemes). Every page is indexed again (one UPDATE of search_headings, as
-- v70) and the did-you-mean vocabulary (v45) is made again at its next use. Re-runnable.
CREATE OR REPLACE FUNCTION pages_search_tsv_fn() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.search_names_tsv :=
    setweight(gb_alias_tsv(NEW.title), 'A') ||
    setweight(gb_alias_tsv(NEW.search_aliases), 'A') ||
    setweight(gb_alias_tsv(NEW.path), 'B') ||
    setweight(gb_alias_tsv(NEW.search_headings), 'B') ||
    setweight(gb_alias_tsv(NEW.search_fold_names), 'A');
  NEW.search_tsv := NEW.search_names_tsv ||
    setweight(gb_alias_tsv(coalesce(NEW.search_body, NEW.compiled_truth)), 'C') ||
    setweight(to_tsvector('simple', gb_fold(NEW.search_words)), 'C') ||
    setweight(gb_alias_tsv(coalesce(NEW.search_timeline, NEW.timeline)), 'D') ||
    setweight(to_tsvector('simple', NEW.search_cjk), 'C');
  NEW.search_len := gb_page_tokens(NEW);
  RETURN NEW;
END $$;
UPDATE pages SET search_headings = search_headings;
DELETE FROM search_vocab_state;
