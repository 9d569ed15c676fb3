-- v10 (SQLite v13, _m13_chunking): embed_state records the chunking version
-- (gbrain.search.embeddings.chunking_version) each page was embedded with, so `embed --stale`
-- re-chunks the pages cut by an older version of the model's chunking (minilm 2: its 220-token
-- chunks plus the ~500-token ones). Rows written before were cut with version 1.
ALTER TABLE embed_state ADD COLUMN IF NOT EXISTS chunking BIGINT NOT NULL DEFAULT 1;
