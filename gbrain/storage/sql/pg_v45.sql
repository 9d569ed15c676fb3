-- gbrain Postgres schema v45 (SQLite: no change): typo tolerance's vocabulary (search/spell.py).
-- search_vocab holds the words of search_tsv (its 'english' stems and 'simple' words, letters
-- only, 3 to 40 characters) with their page counts: "did you mean" reads the terms near a word
-- that no page holds by range (COLLATE "C": byte order, as FTS5's fts5vocab on SQLite). A cache,
-- not a derived view: made from ts_stat (every page's tsvector read: ~0.2 s on 5,000 pages) by
-- the first search that needs it, and made again when search_totals moved by 1% (or changed at
-- all a day later); search_vocab_state holds the totals it was made at. Empty until then.
-- (IF NOT EXISTS, OR REPLACE: a test runs the versions again from an older one)
CREATE TABLE IF NOT EXISTS search_vocab (
  term text COLLATE "C" PRIMARY KEY,
  pages integer NOT NULL
);
CREATE TABLE IF NOT EXISTS search_vocab_state (
  id integer PRIMARY KEY CHECK (id = 1),
  pages bigint NOT NULL,
  lexemes bigint NOT NULL,
  built_at timestamptz NOT NULL DEFAULT now()
);
-- one rebuild at a time (a transaction-scoped advisory lock taken without waiting: a search
-- that finds another one rebuilding reads the vocabulary there is)
CREATE OR REPLACE FUNCTION gb_vocab_rebuild(lock_key bigint) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  IF NOT pg_try_advisory_xact_lock(lock_key) THEN
    RETURN false;
  END IF;
  DELETE FROM search_vocab;
  INSERT INTO search_vocab (term, pages)
    SELECT word, ndoc FROM ts_stat('SELECT search_tsv FROM pages')
    WHERE length(word) BETWEEN 3 AND 40 AND word ~ '^[[:alpha:]]+$';
  INSERT INTO search_vocab_state (id, pages, lexemes, built_at)
    SELECT 1, t.pages, t.lexemes, now() FROM search_totals t
  ON CONFLICT (id) DO UPDATE SET pages = excluded.pages, lexemes = excluded.lexemes, built_at = excluded.built_at;
  RETURN true;
END $$;
