-- gbrain Postgres schema v56 (SQLite v54): keyword search spells the Latin letters no Unicode
-- decomposition folds in ASCII (ł ø đ ß æ œ ı þ ð ħ ŧ: 'Lukasz' finds 'Łukasz', 'Soren' finds
-- 'Søren', as Lucene's ASCIIFoldingFilter; trial 40): the query's words (search/keyword.py
-- search_form, before gb_fold) and, beside a page's own words, their ASCII spelling in
-- pages.search_words (keyword.compat_words; search_tsv follows, generated). No column changes;
-- the Python step after this file (storage/pg.py _PY_STEPS; db.py rederive_letter_words) derives
-- search_words again for the pages holding such a letter. SQLite v54 does the same.
SELECT 1;
