-- gbrain Postgres schema v89 (SQLite v81, db.py _m81_raw_html_blocks): the index reads an HTML block
-- raw, as CommonMark does (no backslash escape, code span or fence inside one: <div>\<b>x</b></div>'s
-- <b> is a tag a reader does not see; search/keyword.py search_text, tag_spans raw_blocks). No schema
-- change: the Python step after this file (storage/pg.py _PY_STEPS; db.py reindex_raw_html_blocks)
-- derives search_body/search_timeline again for the pages whose tags read so differ (candidates
-- selected in the server: a \<, or a < beside a backtick or ~~~), and the canvas cards' search/words,
-- their vectors following by the triggers, and empties search_vocab_state where one changed.
SELECT 1;
