-- gbrain Postgres schema v80 (SQLite v75, db.py _m75_logseq_days): a Logseq graph's page whose
-- name Logseq reads as a day is a journal titled as that day (pages/2026-11-20.md is "Nov 20th,
-- 2026"), names are read as days as leniently as Logseq's cljs-time parser (2026-2-03, Nov 1th,
-- 2026), and under property_syntax logseq a journal takes its graph's title format.
-- No schema change: the Python step after this file (storage/pg.py _PY_STEPS; db.py
-- rederive_logseq_days) derives those pages again and resolves those links again.
SELECT 1;
