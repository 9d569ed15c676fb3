-- gbrain Postgres schema v77 (SQLite v72, db.py _m72_escaped_hashes): an escaped \# is no tag,
-- as Obsidian reads it (obsidian-hub's "#### From \#Tag", "track \#People").
-- No schema change: the Python step after this file (storage/pg.py _PY_STEPS; db.py
-- rederive_escaped_hash_pages) derives again the pages whose text holds a backslash before '#'.
SELECT 1;
