-- gbrain Postgres schema v13: keyword search folds Unicode compatibility characters (NFKC).
-- A page whose text holds ligatures (ﬁnancial), full-width letters (ＧＰＴ４), superscripts or
-- circled digits is indexed under their plain words too: they join pages.search_words (the
-- C-weighted 'simple' words of search_tsv; search/keyword.py compat_words), and queries are
-- folded the same way (search_form). No column changes; the Python step after this file
-- (storage/pg.py _PY_STEPS, db.py rederive_compat_words) recomputes search_words of the pages
-- that are not NFKC (selected here with IS NFKC NORMALIZED: a brain with none sends no text)
-- and the generated columns follow. SQLite v15 does the same.
SELECT 1;
