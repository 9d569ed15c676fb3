-- gbrain Postgres schema v16: move pairing by file identity. sync_state.file_id is the file's
-- device and inode (folded into one integer, gbrain/sync/scan.py file_id) when its base was
-- recorded; NULL until the path is synced again. A rename keeps the inode, so it pairs with its
-- old path even when its text changed or another note has the same text (gbrain/sync/plan.py).
-- SQLite v18 does the same.
ALTER TABLE sync_state ADD COLUMN IF NOT EXISTS file_id BIGINT;
CREATE INDEX IF NOT EXISTS idx_sync_state_file_id ON sync_state(client, file_id);
