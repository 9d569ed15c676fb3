-- gbrain Postgres schema v71 (SQLite v66): a page with more than one .raw sidecar (ana.json beside
-- ana.JSON, or one name in NFC and NFD) takes its raw rows from the one raw and raw-put read and
-- write (page/slugs.py chosen_sidecar: the one named as its page). Before, from the one stored
-- last. No schema change: the Python step after this file (storage/pg.py _PY_STEPS; db.py
-- fill_twin_sidecars) derives those pages' rows again.
SELECT 1;
