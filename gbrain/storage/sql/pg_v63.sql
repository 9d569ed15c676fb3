-- gbrain Postgres schema v63 (SQLite v59): a link's label is the text a reader sees
-- (page/markdown.py visible_label: [**Sarah** fund](acme.md) was stored "**Sarah** fund", now
-- "Sarah fund"; emphasis, strikethrough and highlight marks and HTML tags dropped, character
-- references read, NFKC). No schema change: the Python step (storage/pg.py _visible_labels,
-- db.relabel_visible) writes again the labels that may change, every link row keeping its id.
SELECT 1;
