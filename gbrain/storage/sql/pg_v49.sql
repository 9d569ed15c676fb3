-- gbrain Postgres schema v49 (SQLite v47): in a Logseq graph a tag is a reference to its page:
-- #budget and a bare tags:: item (tags:: project) are wiki links, as #[[budget]] was (page/markdown.py
-- logseq_tag_links). No column changes; the Python step after this file (storage/pg.py _PY_STEPS;
-- db.py rederive_logseq_tag_pages) derives the pages read as a Logseq graph's holding '#' or
-- 'tags::' again. SQLite v47 does the same.
SELECT 1;
