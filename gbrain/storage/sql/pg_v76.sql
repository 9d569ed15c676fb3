-- gbrain Postgres schema v76 (SQLite v71, db.py _m71_logseq_names): a page of a Logseq graph's
-- pages/ folder is titled as Logseq names it from its file name, by the graph's
-- logseq/config.edn :file/name-format (pages/Project___Alpha.md is Project/Alpha).
-- No schema change: the Python step after this file (storage/pg.py _PY_STEPS; db.py
-- rederive_logseq_names) derives those pages again and resolves the links naming them.
SELECT 1;
