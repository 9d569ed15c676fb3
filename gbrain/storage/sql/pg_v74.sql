-- gbrain Postgres schema v74 (SQLite v69, db.py _m69_comment_rules): a '---' line below an Obsidian
-- %% comment left open above it is inside the comment (Obsidian hides the rest of the note), so it
-- is no timeline separator (page/markdown.py _in_inline_comment). No schema change: the Python
-- step after this file (storage/pg.py _PY_STEPS; db.py resplit_comment_pages) splits the pages
-- with a separator and a %% in their compiled truth again from the same bytes, writing their
-- slices, derived rows and search columns where the split changes (content_hash and the history
-- unchanged).
SELECT 1;
