-- gbrain Postgres schema v92 (SQLite v84, db.py _m84_crlf_tags): a CRLF or a lone CR in an HTML tag's
-- white space is white space, as LF is (search/keyword.py _HTML_TAG: <span CRLF class="x"> is a tag
-- pulldown-cmark renders, which a CRLF page's index and snippets read as text). No schema change: the
-- Python step after this file (storage/pg.py _PY_STEPS; db.py reindex_crlf_tags) derives
-- search_body/search_timeline again for the pages, and search/words for the canvas cards, that may hold
-- a tag across a CR (candidates: a CR and a <), their vectors following by the triggers, and empties
-- search_vocab_state where one changed.
SELECT 1;
