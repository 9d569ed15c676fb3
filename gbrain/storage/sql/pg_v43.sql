-- gbrain Postgres schema v43 (SQLite v42): a link to a name of no letter or digit ([[📚📚📚]],
-- [[★]]: links.target_name '') resolves by the file name or an alias as written, never by the empty
-- loose key every such name shares (it found any such page) and is resolved again when such a page
-- comes or goes. No column changes; the Python step after this file (storage/pg.py _PY_STEPS;
-- db.py relink_symbol_links) resolves those links again. SQLite v42 does the same.
SELECT 1;
