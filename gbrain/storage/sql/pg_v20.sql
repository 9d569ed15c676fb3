-- gbrain Postgres schema v20: an index of the sources' refs (SQLite v20). `ingest` finds the page
-- of a source_ref by it instead of loading the frontmatter JSON of every page under sources/.
-- gb_source_ref is the frontmatter's source_ref as text (NULL when there is none, or when the
-- text is no JSON `json` takes); the index is partial: pages under sources/ only. A query uses it
-- with `gb_source_ref(frontmatter) = ...` and `slug ILIKE 'sources/%'` (what gbrain's
-- `slug LIKE 'sources/%'` is translated to). (re-runnable)
CREATE OR REPLACE FUNCTION gb_source_ref(fm text) RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN fm::json ->> 'source_ref';
EXCEPTION WHEN others THEN
  RETURN NULL;
END $$;
CREATE INDEX IF NOT EXISTS idx_pages_source_ref ON pages (gb_source_ref(frontmatter)) WHERE slug ILIKE 'sources/%';
