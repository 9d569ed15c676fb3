-- gbrain Postgres schema v93 (SQLite v85, db.py _m85_embed_claims): embed_claims, the chunk texts each
-- embed run is sending to its provider now: one row per run (owner host:pid:token), its model, backend
-- (its pg_backend_pid()), expires (Unix seconds) and hashes (the texts' hashes, space-separated). Two
-- embedders on one brain send each text once: the other waits for the vector, or drops the claim once
-- the owner's backend is gone or the claim lapsed (search/vectors.py _Claims). A row lives for one group
-- of a run: given back in the transaction storing the vectors.
CREATE TABLE IF NOT EXISTS embed_claims (
  owner TEXT COLLATE "C" PRIMARY KEY,
  model TEXT COLLATE "C" NOT NULL,
  backend INTEGER NOT NULL DEFAULT 0,
  expires DOUBLE PRECISION NOT NULL,
  hashes TEXT COLLATE "C" NOT NULL
);
