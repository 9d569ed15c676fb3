-- gbrain Postgres schema v31: what Notion and Logseq migrants expect. A page of a Notion export
-- (its file name ends with a space and Notion's 32-hex id) is tagged by its Tags: property line
-- and, without an opening H1, titled by its file name without the id (page/markdown.py
-- notion_properties, notion_name); a link to a Logseq journal by the title Logseq shows resolves
-- ([[Nov 28th, 2026]] is journals/2026_11_28.md, by the graph's logseq/config.edn formats or
-- Logseq's defaults: page/journals.py, page/links.py resolve). No column changes; the Python step
-- after this file (storage/pg.py _PY_STEPS; db.py rederive_notion_pages, relink_journal_links)
-- parses the Notion-shaped pages again and resolves again the dangling links whose target holds
-- a digit. SQLite v31 does the same.
SELECT 1;
