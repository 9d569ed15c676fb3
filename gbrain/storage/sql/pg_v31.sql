-- gbrain Postgres schema v31: a link to a Logseq journal by the title Logseq shows resolves
-- ([[Nov 28th, 2026]] is journals/2026_11_28.md, by the graph's logseq/config.edn formats or
-- Logseq's defaults: page/journals.py, page/links.py resolve). No column changes; the Python
-- step after this file (storage/pg.py _PY_STEPS, db.py relink_journal_links) resolves again the
-- dangling links whose target holds a digit. SQLite v31 does the same.
SELECT 1;
