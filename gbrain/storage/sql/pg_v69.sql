-- gbrain Postgres schema v69 (SQLite v65): a tag's identity is Obsidian's, NFC + lowercase
-- (page/slugs.py tag_identity: JavaScript's toLowerCase, Python's str.lower), no longer NFC +
-- casefold: #ß-tag and #SS-tag are two tags, tags.tag_key 'ß-tag' (was 'ss-tag'). No schema
-- change: the Python step after this file (storage/pg.py _PY_STEPS; db.py
-- rederive_tag_identity_pages) re-derives the rows of the pages that may hold such a tag.
SELECT 1;
