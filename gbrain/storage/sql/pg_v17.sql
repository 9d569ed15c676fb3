-- gbrain Postgres schema v17: links in Obsidian properties. A wiki link in a frontmatter string
-- value (related: "[[Acme]]", a list item, a nested value) is a link of kind 'property'. No
-- column changes; the Python step after this file (storage/pg.py _PY_STEPS, db.py
-- rederive_property_link_pages) parses again the pages whose frontmatter text holds '[[',
-- rewrites their derived columns and rows, and resolves their links. SQLite v19 does the same.
SELECT 1;
