-- gbrain Postgres schema v54 (Postgres only: SQLite's FTS5 keeps every position): an index of the
-- pages long enough to hold words past the tsvector's 16,383-position limit (every later word
-- stands at 16,383, so a phrase there matched nothing: search/keyword.py _pg_far_phrases checks
-- such a page's text instead). Its predicate is keyword._PG_FIELD_BYTES >= PG_POSITION_BYTES
-- (the fields' bytes; tests/test_search_long_phrase.py keeps them equal): the check lists the long
-- pages from it, not every page holding the phrase's words (a date's numbers: 25 ms a query on a
-- 5,000-page brain). No derived rows; built from the stored columns.
CREATE INDEX IF NOT EXISTS idx_pages_long ON pages (id) WHERE (octet_length(title) + coalesce(octet_length(search_aliases), 0) + 2 * octet_length(path) + coalesce(octet_length(search_headings), 0) + octet_length(coalesce(search_body, compiled_truth)) + coalesce(octet_length(search_words), 0) + octet_length(coalesce(search_timeline, timeline)) + coalesce(octet_length(search_cjk), 0)) >= 32000;
