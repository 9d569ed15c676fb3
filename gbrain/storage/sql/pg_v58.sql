-- gbrain Postgres schema v58 (SQLite v55): a link's label, what the linking page calls its
-- target when that is not the target's name ([[acme|Acme, the seed fund]], [Sarah's fund](acme.md)):
-- links.label, each distinct one per line (page/markdown.py Link.labels), '' for none; keyword
-- search weighs a page's incoming labels as evidence (search/keyword.py anchor_evidence). The
-- Python step after this file (storage/pg.py _PY_STEPS; db.py fill_link_labels) sets the label
-- of the stored links from the pages that may hold one, no other column or row touched.
ALTER TABLE links ADD COLUMN IF NOT EXISTS label text NOT NULL DEFAULT '';
