-- gbrain Postgres schema v26: a Logseq page's properties (title::, alias::, tags:: lines opening
-- the page) and #[[multi word tag]] name and tag it. No column changes; the Python step after this
-- file (storage/pg.py _PY_STEPS, db.py rederive_logseq_pages) parses again the pages whose text
-- holds '::' or '#[[', rewrites their derived rows and resolves their links. SQLite v26 does the same.
SELECT 1;
