-- gbrain Postgres schema v15: page-model fixes from an Obsidian user trial. A timestamp that is
-- no real date (created: 2024-02-30) is kept as text instead of dropping the whole frontmatter;
-- footnote definitions ([^1]: text) are no link reference definitions; the singular tag: key is
-- read like tags:; inline $…$ math hides tags. No column changes; the Python step after this
-- file (storage/pg.py _PY_STEPS, db.py rederive_trial_pages) parses again the pages those can
-- change (a frontmatter_error, a '[^', a "tag" key, a '$' before a '#'), rewrites their derived
-- columns and rows, and resolves every link again. SQLite v17 does the same.
SELECT 1;
