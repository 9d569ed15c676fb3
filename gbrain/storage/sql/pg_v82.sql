-- gbrain Postgres schema v82 (Postgres only): the same vectors as v81 at ~0.6 of its trigger's
-- CPU, and a canvas card's stop words indexed too. v81's gb_alias_tsv (v57: an SQL function) asked
-- 'english' about each distinct lexeme of a field (a to_tsvector per word) and ran through the SQL
-- function executor for every field of every write; this one (plpgsql) takes the field's 'simple'
-- lexemes that are 'english' stop words by one fixed list, gb_stop_words() (PostgreSQL's
-- tsearch_data/english.stop, the list english_stem reads; each word checked here to be one on this
-- server, so the list holds no word 'english' keeps): ts_delete of the list gives the words that are
-- no stop words, ts_delete of those the stop words, each with its positions (gb_stop_tsv). The same lexemes and
-- positions as v81's (a simple lexeme is a whole word of letters and digits: gb_fold made ASCII
-- punctuation spaces, so 'english' parses it again as the same one word; benchmarks/pg_trigger.py
-- --check compares every page's vectors and search results), so no page is indexed again.
-- canvas_cards.tsv: a card's text's stop words as written too (gb_stop_tsv), after its 'english'
-- stems and words (weight A, the rest D: a card's BM25 length is its other lexemes, ts_filter(tsv, '{d}'),
-- keyword._canvas_cards_pg, so an ordinary query's scores stay); every card indexed again.
-- Re-runnable.
DO $do$
BEGIN
  EXECUTE format($f$CREATE OR REPLACE FUNCTION gb_stop_words() RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $b$ SELECT %L::text[] $b$$f$,
    (SELECT coalesce(array_agg(w ORDER BY w), '{}') FROM unnest(ARRAY[
  'i', 'me', 'my', 'myself', 'we', 'our', 'ours', 'ourselves', 'you', 'your', 'yours', 'yourself',
  'yourselves', 'he', 'him', 'his', 'himself', 'she', 'her', 'hers', 'herself', 'it', 'its', 'itself',
  'they', 'them', 'their', 'theirs', 'themselves', 'what', 'which', 'who', 'whom', 'this', 'that',
  'these', 'those', 'am', 'is', 'are', 'was', 'were', 'be', 'been', 'being', 'have', 'has', 'had',
  'having', 'do', 'does', 'did', 'doing', 'a', 'an', 'the', 'and', 'but', 'if', 'or', 'because', 'as',
  'until', 'while', 'of', 'at', 'by', 'for', 'with', 'about', 'against', 'between', 'into', 'through',
  'during', 'before', 'after', 'above', 'below', 'to', 'from', 'up', 'down', 'in', 'out', 'on', 'off',
  'over', 'under', 'again', 'further', 'then', 'once', 'here', 'there', 'when', 'where', 'why', 'how',
  'all', 'any', 'both', 'each', 'few', 'more', 'most', 'other', 'some', 'such', 'no', 'nor', 'not',
  'only', 'own', 'same', 'so', 'than', 'too', 'very', 's', 't', 'can', 'will', 'just', 'don', 'should',
  'now'
    ]) AS w WHERE to_tsvector('english', w) = ''::tsvector));
END $do$;
-- (an SQL function the planner inlines where its argument is a variable: one expression)
CREATE OR REPLACE FUNCTION gb_stop_tsv(s tsvector) RETURNS tsvector LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT ts_delete(s, tsvector_to_array(ts_delete(s, gb_stop_words())))
$$;
CREATE OR REPLACE FUNCTION gb_alias_tsv(a text) RETURNS tsvector LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
  f text;
  s tsvector;
BEGIN
  IF a = '' THEN
    RETURN ''::tsvector;
  END IF;
  f := gb_fold(a);
  IF octet_length(f) > 200000 THEN  -- (edited after release: see canvas_cards_tsv_fn)
    RETURN to_tsvector('english', f);
  END IF;
  s := to_tsvector('simple', f);
  RETURN to_tsvector('english', f) || gb_stop_tsv(s);
END $$;
CREATE OR REPLACE FUNCTION canvas_cards_tsv_fn() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  f text := gb_fold(coalesce(NEW.search, NEW.text));
  s tsvector;
BEGIN
  -- (Edited after release: a text over 200,000 bytes gets v81's vector, no stop words: its whole
  -- 'simple' tsvector overflows tsvector's 1 MB before the 'english' one does, so a brain at v81
  -- holding such a card could not be opened. A brain past this version never runs it again; the
  -- version that brings gb_stop_long indexes those cards and pages again, with their stop words.)
  IF octet_length(f) > 200000 THEN
    NEW.tsv := to_tsvector('english', f) || to_tsvector('simple', gb_fold(NEW.words));
    RETURN NEW;
  END IF;
  s := to_tsvector('simple', f);
  NEW.tsv := to_tsvector('english', f) || to_tsvector('simple', gb_fold(NEW.words)) || setweight(gb_stop_tsv(s), 'A');
  RETURN NEW;
END $$;
UPDATE canvas_cards SET text = text;
