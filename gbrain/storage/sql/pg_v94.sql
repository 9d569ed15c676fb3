-- gbrain Postgres schema v94 (SQLite v86, db.py _m86_canvas_file_index): idx_files_canvas, a partial
-- index of the stored files whose path ends in .canvas (any case), so a search in a brain with no canvas
-- card reads whether it holds a canvas (an empty one the query may name: search/keyword.py
-- CANVAS_FACT_SQL, whose LIKE the connection sends as ILIKE: the same term as this WHERE) from the index,
-- not a scan of every file's path (50,000 attachments: 1.0 -> 24 ms server CPU a search).
CREATE INDEX IF NOT EXISTS idx_files_canvas ON files (path) WHERE path ILIKE '%.canvas';
