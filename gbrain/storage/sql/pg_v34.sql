-- gbrain Postgres schema v34: a tag holds a character that is not a digit (Obsidian Help, "Tags":
-- #1984 is no tag), in the tags property as inline: tags: [2026] is no tag now. No column changes;
-- the Python step after this file (storage/pg.py _PY_STEPS; db.py rederive_numeric_tag_pages)
-- parses again the pages holding a tag of digits and '/' only. SQLite v34 does the same.
SELECT 1;
