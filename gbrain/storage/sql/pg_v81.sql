-- gbrain Postgres schema v81 (Postgres only: SQLite's FTS5 keeps every word): the words the
-- 'english' configuration drops (its stop words: don, its, an, the, before, after, now…) are
-- indexed as written ('simple') beside a field's 'english' stems, as aliases (v57) and paths
-- (v70) are, for the title, headings, body and timeline too (gb_alias_tsv, at the field's
-- weight): `search "before"`, `don't`, `an*` found nothing on Postgres. A query's 'simple' form
-- (keyword._PG_WORD, _PG_PART) reaches them; a word 'english' keeps has no 'simple' lexeme here,
-- so an ordinary query's tsquery and ranking are unchanged (a page's length is its tokens,
-- search_len, not its lexemes). Every page is indexed again (one UPDATE of search_headings, as
-- v70) and the did-you-mean vocabulary (v45) is made again at its next use. Re-runnable.
-- (Edited after release: a field over 200,000 bytes is indexed here by its 'english' stems alone,
-- v80's vector: pg_v57's gb_alias_tsv takes the whole field's 'simple' tsvector, which overflows
-- tsvector's 1 MB before the 'english' one does, so a brain at v80 holding such a page could not be
-- opened. A brain past this version never runs it again; the version that brings gb_stop_long
-- indexes those pages again, with their stop words.)
CREATE OR REPLACE FUNCTION gb_alias_tsv(a text) RETURNS tsvector LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT CASE WHEN a = '' THEN ''::tsvector WHEN octet_length(a) > 200000 THEN to_tsvector('english', gb_fold(a)) ELSE (
    SELECT e || ts_delete(s, ARRAY(SELECT l FROM unnest(tsvector_to_array(s)) AS l WHERE length(to_tsvector('english', l)) > 0))
    FROM (SELECT to_tsvector('english', f) AS e, to_tsvector('simple', f) AS s FROM (SELECT gb_fold(a) AS f) AS x) AS y) END
$$;
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
