-- gbrain Postgres schema v48 (SQLite v46): a canvas's cards are read by Python (page/canvas.py
-- load_canvas, canvas_cards), not by jsonb, so both engines hold the same rows whatever the JSON
-- (a key given twice: its last value; \u0000 or a lone surrogate: U+FFFD; nesting too deep, NaN:
-- none). Brain.save_file writes them (search/keyword.py write_canvas_cards); the triggers on files
-- only delete a canvas's rows when it changes or goes. search: the text indexed in place of text,
-- a link's address blanked as in a page (search/keyword.py search_text; NULL where nothing is);
-- words: its CJK bigrams and words glued to CJK text, as a page's search_cjk / search_words
-- (card_words), read with 'simple' as the pages read theirs.
-- tsv is set from the row by a trigger (any INSERT: a copy's rows too). The Python step after this file (storage/pg.py _PY_STEPS) writes
-- every canvas's rows again. Re-runnable (v44 run again before it, as a set-back test does).
DROP TRIGGER IF EXISTS files_canvas_ai ON files;
CREATE OR REPLACE FUNCTION files_canvas_fn() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM canvas_cards WHERE file_id = OLD.id;
  RETURN NULL;
END $$;
DROP FUNCTION IF EXISTS gb_canvas_cards(bigint, bytea);
ALTER TABLE canvas_cards ADD COLUMN IF NOT EXISTS search TEXT;
ALTER TABLE canvas_cards ADD COLUMN IF NOT EXISTS words TEXT NOT NULL DEFAULT '';
CREATE OR REPLACE FUNCTION canvas_cards_tsv_fn() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.tsv := to_tsvector('english', gb_fold(coalesce(NEW.search, NEW.text))) || to_tsvector('simple', gb_fold(NEW.words));
  RETURN NEW;
END $$;
ALTER TABLE canvas_cards ALTER COLUMN tsv SET DEFAULT ''::tsvector;
CREATE OR REPLACE TRIGGER canvas_cards_tsv BEFORE INSERT OR UPDATE ON canvas_cards FOR EACH ROW EXECUTE FUNCTION canvas_cards_tsv_fn();
DELETE FROM canvas_cards;
