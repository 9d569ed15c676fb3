-- gbrain Postgres schema v51 (SQLite v49): a pages/ or journals/ folder is a Logseq graph's only
-- beside the graph's logseq/config.edn (page/markdown.py page_property_syntax); an Obsidian vault's
-- own pages/ folder is none. No column changes; the Python step after this file (storage/pg.py
-- _PY_STEPS; db.py rederive_graphless_pages) derives again the pages of such folders with no
-- config beside them holding '::' or '#', and keys link targets and aliases ending with '/' by their
-- last segment (db.py rekey_slash_end_names: /training/foo/ is foo). SQLite v49 does the same.
SELECT 1;
