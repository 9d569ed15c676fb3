-- gbrain Postgres schema v62 (SQLite v58): the lookups of a put of a new name, indexed
-- (storage/db.py: _m58_put_lookups). The pages' file-name and title keys without their '-', as
-- expressions (LETTERS_KEYS_SQL): the put's break-twin check (operations/core.py: _letter_twins,
-- `people/gus-obrien` beside "Gus O'Brien") looks a name's letters and digits up in them instead
-- of reading every page's keys.
CREATE INDEX IF NOT EXISTS idx_pages_loose_letters ON pages((replace(loose_key, '-', '')));
CREATE INDEX IF NOT EXISTS idx_pages_title_letters ON pages((replace(title_key, '-', '')));
-- The pages with a space around a segment of their name (SPACED_WHERE, as pg.translate spells its
-- LIKE): core/brain.py resolve_slug lists them for every name no page has, by a scan before.
CREATE INDEX IF NOT EXISTS idx_pages_spaced ON pages(slug) WHERE slug_key != trim(slug_key) OR slug_key ILIKE '% /%' OR slug_key ILIKE '%/ %';
