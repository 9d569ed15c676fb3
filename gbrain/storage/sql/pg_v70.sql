-- gbrain Postgres schema v70 (Postgres only: SQLite's FTS5 holds a path's word once already): a
-- page's path is indexed by its 'english' stems, and as written ('simple') only for a word
-- 'english' drops (a stop word), as aliases are since v57 (gb_alias_tsv), where it was indexed
-- in both configurations: each word of a path was two occurrences of weight B, so a file name
-- counted twice in BM25 (SQLite once): `lukasz` put a note *calls with lukasz* above the page
-- *Łukasz Nowak* on Postgres only. Every page is indexed again (one UPDATE of search_headings,
-- a column the BEFORE trigger pages_search_tsv reads and no history, change-log or embedding
-- trigger watches; the v19 statement trigger keeps the BM25 totals), and the did-you-mean
-- vocabulary (v45) is made again at its next use. Re-runnable.
CREATE OR REPLACE FUNCTION pages_search_tsv_fn() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.search_names_tsv :=
    setweight(to_tsvector('english', gb_fold(NEW.title)), 'A') ||
    setweight(gb_alias_tsv(NEW.search_aliases), 'A') ||
    setweight(gb_alias_tsv(NEW.path), 'B') ||
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
UPDATE pages SET search_headings = search_headings;
DELETE FROM search_vocab_state;
