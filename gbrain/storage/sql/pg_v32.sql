-- gbrain Postgres schema v32: a template's placeholder is no title or alias (a template opening
-- with `# <% tp.date.now("YYYY-MM-DD") %>` or `# {{title}}` is titled by its file name, as Obsidian
-- shows it; `aliases: ['<% tp.date.now("dddd") %>']` names nothing). No column changes; the Python
-- step after this file (storage/pg.py _PY_STEPS, db.py rederive_template_name_pages) parses again
-- the pages whose title or an alias holds '<%' or '{{'. SQLite v32 does the same.
SELECT 1;
