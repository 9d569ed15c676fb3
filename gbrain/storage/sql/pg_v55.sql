-- gbrain Postgres schema v55 (SQLite v53): a journals/ folder is a Logseq graph's only as its pages'
-- properties are, beside the graph's logseq/config.edn (page/markdown.py page_property_syntax): an
-- Obsidian vault's journals/2026_11_28.md is not titled "Nov 28th, 2026" nor found by [[Nov 28th, 2026]]
-- (page/links.py journal_keys). No column changes; the Python step after this file (storage/pg.py
-- _PY_STEPS; db.py rederive_graphless_journals) derives those pages again and resolves the links to
-- them again. SQLite v53 does the same.
SELECT 1;
