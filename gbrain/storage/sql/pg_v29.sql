-- gbrain Postgres schema v29: the daily-journal trial's page-model fixes. A tags string is split
-- at white space as at commas (`tags: journal daily` is two tags, as Obsidian reads it) and an
-- embed of an Excalidraw drawing note (`![[Sketch.excalidraw]]`, the file Sketch.excalidraw.md)
-- is a link to that page. No column changes; the Python step after this file (storage/pg.py
-- _PY_STEPS, db.py rederive_journal_pages) parses again the pages either may change. SQLite v29
-- does the same.
SELECT 1;
