-- gbrain Postgres schema v86 (SQLite v78, db.py _m78_logseq_old_folders): a Logseq graph whose
-- config.edn names other folders (:pages-directory/:journals-directory) still reads its default
-- pages/ and journals/ folders as its own, as Logseq reads every file of the graph (the files it
-- wrote there before the setting changed). No schema change: the Python step after this file
-- (storage/pg.py _PY_STEPS; db.py rederive_logseq_old_folders) derives those folders' pages again,
-- then resolves every link again (a brain with no graph config naming another folder: nothing).
SELECT 1;
