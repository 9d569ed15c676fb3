-- gbrain Postgres schema v7 (Postgres only): keyword search with a type filter (search --type,
-- query --type) draws its bounded candidate set from the pages of that type. With v4's lists
-- the first PG_CANDIDATES matches of every type were taken and filtered afterwards, so a word in
-- more than that many bodies could leave out every page of the type asked for.

-- the first ``lim`` pages of type ``t`` matching ``q``, in table order (as gb_match_ids)
CREATE FUNCTION gb_match_ids_of(q tsquery, t text, lim bigint) RETURNS SETOF bigint LANGUAGE sql STABLE
SET enable_seqscan = off SET enable_indexscan = off
AS $$ SELECT id FROM pages WHERE search_tsv @@ q AND type = t COLLATE "C" LIMIT lim $$;

-- pages of type ``t`` with a word of ``q`` in a name (as gb_name_ids)
CREATE FUNCTION gb_name_ids_of(q tsquery, t text, lim bigint) RETURNS SETOF bigint LANGUAGE sql STABLE
SET enable_seqscan = off SET enable_indexscan = off
AS $$ SELECT id FROM pages WHERE search_names_tsv @@ q AND type = t COLLATE "C" LIMIT lim $$;
