-- gbrain Postgres schema v90 (SQLite v82, db.py _m82_yaml_nul_escapes): a frontmatter's YAML escape
-- that loads to a NUL ("T\0", "\x00", "\u0000") or a lone surrogate is U+FFFD in the derived
-- values (page/markdown.py _storable_json, page/canvas.py UNSTORABLE), a nav file's entries too (navfile.load_nav).
-- SQLite stored the NUL and re-derives those pages and nav files; Postgres refused them (its import failed whole, put too), so it holds
-- none: no change, the version kept in step.
SELECT 1;
