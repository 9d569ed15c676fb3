-- gbrain Postgres schema v27: a title is a name, not a path. pages.title_key of a title holding
-- '/' was the key of its last segment (title: TCP/IP was keyed 'ip': [[IP]] found the page, TCP/IP
-- and UDP/IP were duplicate titles); it is now the whole title's (page/slugs.py title_key:
-- 'tcp-ip'). No column changes; the Python step after this file (storage/pg.py _PY_STEPS,
-- db.py rekey_slash_titles) parses those pages again, rewrites their keys and derived rows and
-- resolves again the links the old or the new key names. SQLite v27 does the same.
SELECT 1;
