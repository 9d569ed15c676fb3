-- gbrain Postgres schema v68 (SQLite v64): a .raw sidecar starting with a UTF-8 byte order mark
-- (Windows editors write one) is read as JSON past the mark (storage/rawspans.py json_text; its
-- spans start past the mark's 3 bytes). Before, its JSON was not read: no raw rows, `raw` showed no
-- sources. No schema change: the Python step after this file (storage/pg.py _PY_STEPS;
-- db.py fill_bom_sidecars) derives the rows of the sidecars stored with a mark.
SELECT 1;
