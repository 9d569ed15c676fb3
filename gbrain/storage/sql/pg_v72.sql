-- gbrain Postgres schema v72 (SQLite v67, db.py _m67_script_folds): a name's folded key (page/slugs.py
-- fold_name, drop_accents) drops only accents: a Latin or Greek letter's marks, a Cyrillic stress
-- mark and ё; not Japanese voicing marks (ガンダム is no カンタム), not the breve of й (Айда is no
-- Аида), nor any other script's marks. No schema change: the Python step after this file
-- (storage/pg.py _PY_STEPS; db.py fill_name_folds) writes name_folds again from the stored columns.
SELECT 1;
