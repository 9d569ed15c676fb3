-- gbrain Postgres schema v88 (SQLite v80, db.py _m80_client_machines): a sync client records the
-- machine that syncs it (sync_root.machine: sync/engine.py machine_key, 8 hex digits; '' unknown).
-- A sync or watch of a client whose recorded machine is another is refused (two containers or VMs
-- from one image share host name and folder path, so one client id: SyncEngine._claim_machine);
-- a client bound before this version has '' and is adopted by the first machine that syncs it.
ALTER TABLE sync_root ADD COLUMN IF NOT EXISTS machine TEXT COLLATE "C" NOT NULL DEFAULT '';
