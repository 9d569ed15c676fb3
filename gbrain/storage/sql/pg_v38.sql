-- gbrain Postgres schema v38: a Notion page's relation property (Company: Acme (../Companies%20<id>/Acme%20<id>.md))
-- links its pages, a Logseq journal (journals/2026_11_28.md) is titled as Logseq shows it (Nov 28th, 2026),
-- and in a brain set to Bear's syntax (config tag_syntax bear) a heading link [[Note/Heading]] links
-- the note, and [[Team Wiki/Engineering]] finds a Notion page by the path of titles Notion shows. No
-- column changes; the Python step after this file (storage/pg.py _PY_STEPS; db.py
-- rederive_migrant_leftovers, relink_title_paths) parses again the pages these may change and
-- resolves again the dangling wiki links holding a '/'. SQLite v38 does the same.
SELECT 1;
