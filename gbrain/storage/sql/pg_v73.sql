-- gbrain Postgres schema v73 (SQLite v68, db.py _m68_script_letter_words): keyword search folds
-- Russian ё to е and drops Greek accents (tonos, dialytika, polytonic marks: page/slugs.py
-- SCRIPT_FOLD), which gb_fold (unicode61's Latin folds) keeps: 'Ежик' finds 'Ёжик', 'Αθηνα'
-- finds 'Αθήνα', and back. The query's words (search/keyword.py search_form, before gb_fold) and,
-- beside a page's own words, their folded spelling in pages.search_words (keyword.compat_words)
-- and a name's in search_fold_names. No column changes: the Python step after this file
-- (storage/pg.py _PY_STEPS; db.py rederive_letter_words, fill_fold_names) derives them again for
-- the pages holding such a letter; the pages_search_tsv trigger indexes them again, and where a
-- page changed search_vocab_state is emptied (did-you-mean's vocabulary made again when asked).
SELECT 1;
