-- v9 (SQLite v12): a link whose name several pages share resolves to the one sharing the most
-- leading folders with the linking page; gbrain.storage.pg._PY_STEPS re-resolves every stored link.
SELECT 1;
