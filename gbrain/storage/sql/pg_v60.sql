-- gbrain Postgres schema v60 (SQLite v56, db.py _m56_name_folds): a name typed without its accents
-- or its own letters is the page's name ("Zoe Kim" names the page titled "Zoë Kim", "Lukasz Nowak"
-- "Łukasz Nowak") in search's exact-name bonus and the put's accent-twin check: name_folds, one
-- row per name (kind title, path (the file name), h1 (an H1 name) or alias) whose folded key
-- (page/slugs.py fold_title_key / fold_loose_key) differs from its own key, indexed by key; written
-- with the page's columns (storage/derive.py write_name_folds). The Python step after this file
-- (storage/pg.py _PY_STEPS; db.py fill_name_folds) fills it from the stored columns.
CREATE TABLE IF NOT EXISTS name_folds (
  page_id BIGINT NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
  kind TEXT COLLATE "C" NOT NULL,
  key TEXT COLLATE "C" NOT NULL,
  PRIMARY KEY (page_id, kind, key)
);
CREATE INDEX IF NOT EXISTS idx_name_folds_key ON name_folds(key);
