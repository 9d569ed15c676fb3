-- gbrain Postgres schema v79 (SQLite v74, db.py _m74_logseq_contents): a Logseq graph's
-- pages/contents.md is titled "Contents", as Logseq names it (get-page-name), not "contents".
-- No schema change: the Python step after this file (storage/pg.py _PY_STEPS; db.py
-- rederive_logseq_contents) derives those pages again and resolves the links naming them again.
SELECT 1;
