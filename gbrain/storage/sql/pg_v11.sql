-- gbrain Postgres schema v11: search reads the frontmatter's words. pages.search_words (the
-- C-weighted words of search_tsv) gains every frontmatter string value but the title, aliases,
-- dates and URLs; the Python step after this file (storage/pg.py _PY_STEPS, derive.py
-- rederive_search_words) recomputes it for the stored pages, and the generated search_tsv
-- follows. SQLite v14 does the same.
SELECT 1;
