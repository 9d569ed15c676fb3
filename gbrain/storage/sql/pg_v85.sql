-- gbrain Postgres schema v85 (SQLite v77, db.py _m77_other_spellings): a page's words written with
-- Arabic vowel marks (harakat) are indexed bare beside them, and its words written with đ in their
-- dj spelling (search/keyword.py compat_words, _other_spellings; in pages.search_words, a name's in
-- search_fold_names): the bare query word finds a text written with harakat (the parser keeps the
-- marked word whole), djo* finds Đorđe. No schema change: the Python step after this file
-- (storage/pg.py _PY_STEPS; db.py rederive_letter_words, fill_fold_names, refold_canvas_cards)
-- writes those pages' and canvas cards' words again (the pages selected in the server by a regular
-- expression of the characters: a brain with none sends no text), their vectors following by the
-- triggers, and empties search_vocab_state where a page changed.
SELECT 1;
