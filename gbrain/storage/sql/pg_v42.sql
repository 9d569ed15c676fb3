-- gbrain Postgres schema v42 (SQLite v41): the key:: value lines opening a page are Logseq page
-- properties (title::, alias::, tags:: title, alias and tag it) only in a Logseq graph (config
-- property_syntax, auto: a page in a pages or journals folder); in an Obsidian vault they are
-- Dataview inline fields, which title, alias and tag nothing. No column changes; the Python step
-- after this file (storage/pg.py _PY_STEPS; db.py rederive_dataview_pages) parses again the pages
-- they named or tagged. SQLite v41 does the same.
SELECT 1;
