-- gbrain Postgres schema v61 (SQLite v57): idx_links_labelled, the links holding a label by
-- target (a partial index of those rows only): search's link-text evidence (search/keyword.py
-- anchor_evidence) reads the labels of the links to its best 100 hits, which idx_links_to
-- found only by visiting every row linking there.
CREATE INDEX IF NOT EXISTS idx_links_labelled ON links(to_page_id) WHERE label <> '';
