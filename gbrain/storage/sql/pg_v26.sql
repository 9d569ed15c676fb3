-- gbrain Postgres schema v26: a Logseq page's properties (title::, alias::, tags:: lines opening
-- the page) and #[[multi word tag]] name and tag it, and a wiki link [[a/b]] that no path matches
-- finds the page titled a/b. No column changes; the Python step after this file (storage/pg.py
-- _PY_STEPS, db.py rederive_logseq_pages, relink_title_paths) parses again the pages whose text
-- holds '::' or '#[[', rewrites their derived rows and resolves their links, then resolves again
-- the dangling links (not markdown paths) whose target holds '/'. SQLite v26 does the same.
SELECT 1;
