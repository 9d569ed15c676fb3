-- v12 (Postgres only: SQLite has no `vec` column): pgvector's `vec` kept in the row (storage
-- MAIN) instead of out of line in the TOAST table (the type's default, EXTERNAL). A 384-float
-- vector is 1,544 bytes: with the float32 copy in `embedding` beside it the row passes the
-- 2 KB TOAST threshold, and every vector read (the score of each HNSW hit, the feedback's
-- re-scoring of a ranking's pages) cost a TOAST index look-up and a second heap read. MAIN
-- moves `embedding` and `chunk_text` out first (EXTENDED) and keeps `vec` inline while the row
-- fits (a vector of more than ~500 floats still goes out of line, as before). Only the catalog
-- changes: rows written from now on are stored so; rows already stored stay out of line until
-- rewritten (`VACUUM FULL page_embeddings`, which also rebuilds the HNSW indexes; docs/storage.md).
ALTER TABLE page_embeddings ALTER COLUMN vec SET STORAGE MAIN;
