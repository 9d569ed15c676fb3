-- gbrain Postgres schema v66 (SQLite v62): a link's context is the text a reader reads: an
-- inline %% comment, a block id ending a line (^id) and a callout's marker ([!warning]-) are
-- blanked (page/markdown.py _read_text). No schema change: the Python step (storage/pg.py
-- _read_context_pages, db.rederive_read_context_pages) derives those pages again.
SELECT 1;
