-- gbrain Postgres schema v23: a link in a table has its row as context, not the whole table. No
-- column changes; the Python step after this file (storage/pg.py _PY_STEPS, db.py
-- rederive_table_pages) parses again the pages a stored link context of which holds '|' or was
-- cut, rewrites their derived rows and resolves their links. SQLite v23 does the same.
SELECT 1;
