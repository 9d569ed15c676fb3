-- gbrain Postgres schema v78 (SQLite v73, db.py _m73_logseq_file_names): a page of a Logseq
-- graph's pages/ folder is named by its file before an opening H1, as Logseq names it
-- (pages/Reading List.md opening with "# Books I want" is "Reading List"), a graph's journal by its
-- day (journals/2026_11_28.md opening with "# Meeting notes" is "Nov 28th, 2026"), and a graph's
-- journal formats are read from logseq/config.edn as EDN, not with a line regex.
-- No schema change: the Python step after this file (storage/pg.py _PY_STEPS; db.py
-- rederive_logseq_file_names) derives those pages again and resolves those links again.
SELECT 1;
