-- gbrain Postgres schema v46 (SQLite v44): a wiki link splits at its first '#' only, as Obsidian's
-- parseLinktext: [[x^y]] names the note x^y (before: the note x and a block), [[Target^blk]] a note
-- Target^blk; a block reference is [[Note#^id]], unchanged. No column changes; the Python step after
-- this file (storage/pg.py _PY_STEPS; db.py rederive_caret_link_pages) derives the pages holding such
-- a link again. SQLite v44 does the same.
SELECT 1;
