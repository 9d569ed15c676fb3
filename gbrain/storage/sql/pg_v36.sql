-- gbrain Postgres schema v36: an index of the versions' times. undo --since plans from the
-- versions written since a time (core/history.py undo_firsts_sql) and read the whole history for
-- it (trial 20: 99.6 ms CPU at 107,944 versions). SQLite v36 does the same.
CREATE INDEX IF NOT EXISTS idx_history_at ON history(at);
