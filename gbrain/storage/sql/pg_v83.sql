-- gbrain Postgres schema v83 (SQLite v76, db.py _m76_logseq_settings): a Logseq graph's legacy
-- :date-formatter is its journal title format where :journal/page-title-format is unset, as
-- Logseq's graph-parser reads it ((or (:journal/page-title-format c) (:date-formatter c)
-- "MMM do, yyyy")), and its :pages-directory/:journals-directory name the folders of its pages and
-- journals. No schema change: the Python step after this file (storage/pg.py _PY_STEPS;
-- db.py rederive_logseq_settings) derives that graph's journals and pages named as a day again
-- and resolves their links again, and a graph naming other folders has every page of its four
-- folders derived again, then every link resolved again (a brain with no graph config holding
-- :date-formatter or a folder setting: nothing).
SELECT 1;
