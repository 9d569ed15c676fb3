-- gbrain Postgres schema v52 (SQLite v50): a tags list item holding a blank (tags: [Nested Folder]) is
-- no tag, as Obsidian reads none (page/markdown.py tag_items). No column changes; the Python step after
-- this file (storage/pg.py _PY_STEPS; db.py rederive_blank_tag_pages) derives again the pages holding
-- one. SQLite v50 does the same.
SELECT 1;
