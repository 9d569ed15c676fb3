-- gbrain Postgres schema v8 = SQLite migration v11 (_m11_client_expiry): sync clients expire. A
-- folder not synced for config sync_client_expire_days (default 30; 0 = never) days gets
-- cursor = -1 and no longer holds the change log back; its base hashes stay, so when it comes
-- back its sync compares every path three ways and it is live again. Run by a trigger on every
-- 256th change-log row (in the writer's transaction: the log stays bounded even when only
-- `put`s write) and by every sync round (storage/db.py expire_sync_clients).
CREATE FUNCTION gb_expire_clients(upto bigint) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  d bigint := COALESCE(NULLIF(btrim((SELECT value FROM config WHERE key = 'sync_client_expire_days')), '')::bigint, 30);
BEGIN
  IF d > 0 THEN
    UPDATE sync_root SET cursor = -1 WHERE cursor >= 0 AND COALESCE(synced_at, bound_at) <
      (to_char((statement_timestamp() AT TIME ZONE 'UTC') - make_interval(days => d::int), 'YYYY-MM-DD"T"HH24:MI:SS"Z"') COLLATE "C");
  END IF;
  DELETE FROM change_log WHERE seq < upto AND seq <= COALESCE((SELECT min(cursor) FROM sync_root WHERE cursor >= 0), upto);
END $$;

CREATE FUNCTION change_log_expire_fn() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM gb_expire_clients(new.seq);
  RETURN NULL;
END $$;
CREATE TRIGGER change_log_expire AFTER INSERT ON change_log FOR EACH ROW WHEN (new.seq % 256 = 0) EXECUTE FUNCTION change_log_expire_fn();
