-- gbrain Postgres schema v64 (SQLite v60): a string of aliases is split at its commas, as
-- Obsidian reads it (aliases: Apollo, Project Apollo is two aliases), the tags/aliases keys in any
-- letter case (Tags:), and a footnote definition
-- ([^1]: Measured on ...) is no link reference definition for search (its first word was blanked
-- as a URL). No schema change: the Python step (storage/pg.py _obsidian_key_pages,
-- db.rederive_obsidian_key_pages) derives those pages again.
SELECT 1;
