-- gbrain Postgres schema v85: RESERVED for another branch of session 55 (srch; SQLite v77,
-- db.py _m77_reserved). A no-op here so that pg_v86 runs in this branch; replaced by that branch's
-- file at merge, or dropped (then pg_v86 is renumbered pg_v85).
SELECT 1;
