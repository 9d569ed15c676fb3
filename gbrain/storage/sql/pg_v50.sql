-- v50 (SQLite v48, _m48_window_splits): embed_state.window_splits, how many of the page's chunks
-- were split for the model's window by its own tokenizer (minilm's 256 word pieces), the figure
-- `stats` and `embed` report. Rows written before hold 0.
ALTER TABLE embed_state ADD COLUMN IF NOT EXISTS window_splits INTEGER NOT NULL DEFAULT 0;
