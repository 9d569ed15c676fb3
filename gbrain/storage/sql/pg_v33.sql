-- gbrain Postgres schema v33: blocks in document order. A block quote that a list, rule, fence or
-- HTML block ended with no blank line between came after the blocks parsed after it (mistune 3.4's
-- prepend_token; page/mdparse.py _SpanBlockParser.parse_block_quote keeps it first), so the page's
-- links came out of order and an inline %% comment opened below a quote hid its links. No column
-- changes; the Python step after this file (storage/pg.py _PY_STEPS; db.py rederive_quote_pages)
-- parses again the pages where a quote's line is followed at once by another kind of line.
-- SQLite v33 does the same.
SELECT 1;
