-- gbrain Postgres schema v22: a link inside an inline Obsidian comment (a %%[[x]]%% b) is no
-- link. No column changes; the Python step after this file (storage/pg.py _PY_STEPS, db.py
-- rederive_comment_pages) parses again the pages whose body holds '%%', rewrites their derived
-- rows and resolves their links. SQLite v22 does the same.
SELECT 1;
