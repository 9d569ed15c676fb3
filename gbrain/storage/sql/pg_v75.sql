-- gbrain Postgres schema v75 (SQLite v70, db.py _m70_canvas_folds): keyword search folds
-- Macedonian and Bulgarian ѐ ѝ (Ѐ Ѝ) to е и as the Greek accents (page/slugs.py SCRIPT_FOLD).
-- No schema change: the Python step after this file (storage/pg.py _PY_STEPS; db.py
-- rederive_letter_words, fill_fold_names) derives the search words of the pages holding one
-- again, and refold_canvas_cards writes the folded words of canvas cards (v73 re-derived pages
-- only); the pages_search_tsv and canvas_cards_tsv triggers index them again.
SELECT 1;
