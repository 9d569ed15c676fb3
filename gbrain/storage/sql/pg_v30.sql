-- gbrain Postgres schema v30: a template's placeholder in a tags property (`tags: daily,
-- <% tp.file.folder() %>`, `{{date:YYYY}}`) is no tag, nor are its words. No column changes; the
-- Python step after this file (storage/pg.py _PY_STEPS, db.py rederive_template_tag_pages)
-- parses again the pages whose frontmatter holds '<%' or '{{'. SQLite v30 does the same.
SELECT 1;
