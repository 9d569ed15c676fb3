-- gbrain Postgres schema v47 (SQLite v45): a Notion relation property's paths
-- (Company: Acme (../Companies%20<id>/Acme%20<id>.md)) are addresses, as a markdown link's URL: search
-- reads the names only (pages.search_body blanks the paths; search_tsv follows) and the links'
-- context is the line as Notion shows it (Company: Acme). No column changes; the Python step after
-- this file (storage/pg.py _PY_STEPS; db.py rederive_notion_relation_pages) derives the Notion pages
-- holding '.md)' again. SQLite v45 does the same.
SELECT 1;
