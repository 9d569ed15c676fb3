-- gbrain Postgres schema v2 (SQLite migrations v7's history.trashed and v8): sync state per client, and a
-- notification on every change-log write so watchers wake without polling (issue 16).

-- SQLite v7: the trash is a view of the history; ``trashed`` says why a replaced version went
-- there (gbrain/core/history.py TRASH_SQL). (This schema's sync_trash is left as it is: nothing
-- writes it any more.)
ALTER TABLE history ADD COLUMN trashed TEXT COLLATE "C" NOT NULL DEFAULT '';
CREATE INDEX idx_history_trash ON history(id) WHERE op = 'delete' OR trashed <> '';

-- each folder that syncs with the brain (one per machine and folder: storage/db.py sync_client)
-- has its own binding row (root, cursor) and its own base hashes
ALTER TABLE sync_root DROP CONSTRAINT IF EXISTS sync_root_id_check;
ALTER TABLE sync_root ADD COLUMN client TEXT COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE sync_root ADD CONSTRAINT sync_root_client_key UNIQUE (client);
ALTER TABLE sync_state ADD COLUMN client TEXT COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE sync_state DROP CONSTRAINT sync_state_pkey;
ALTER TABLE sync_state ADD PRIMARY KEY (client, path);
DROP INDEX idx_sync_state_base;
CREATE INDEX idx_sync_state_base ON sync_state(client, base_hash);

-- LISTEN gbrain_changes: one notification per committed transaction that wrote the change log
-- (Postgres folds equal notifications of one transaction and delivers them at commit)
CREATE FUNCTION change_log_notify_fn() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('gbrain_changes', '');
  RETURN NULL;
END $$;
CREATE TRIGGER change_log_notify AFTER INSERT ON change_log FOR EACH STATEMENT EXECUTE FUNCTION change_log_notify_fn();
