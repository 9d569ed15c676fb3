-- gbrain Postgres schema v37: a paragraph over a line of '=' and '-' mixed (--=, -=-=-) is a setext
-- heading, as mistune (the reference parser) reads it; the fast parser (pulldown-cmark) had read a
-- paragraph, so such a page's title and headings differed from a fresh parse. No column changes; the
-- Python step after this file (storage/pg.py _PY_STEPS; db.py rederive_mixed_underline_pages)
-- parses again the pages with such a line. SQLite v37 does the same.
SELECT 1;
