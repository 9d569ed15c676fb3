-- gbrain Postgres schema v6 = SQLite migration v10 (_m10_embed_stale): embeddings go stale when the
-- text they were made from (title, compiled truth, timeline) changes, even when content_hash
-- does not (a move that changes a title taken from the file name, a new timeline_split), and stay
-- fresh when only the bytes outside that text change (a tag, another frontmatter edit).
CREATE FUNCTION pages_embed_stale_fn() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF old.title IS DISTINCT FROM new.title OR old.compiled_truth IS DISTINCT FROM new.compiled_truth
     OR old.timeline IS DISTINCT FROM new.timeline THEN
    UPDATE embed_state SET content_hash = '' WHERE page_id = new.id AND content_hash != '';
  ELSIF old.content_hash IS DISTINCT FROM new.content_hash THEN
    UPDATE embed_state SET content_hash = new.content_hash WHERE page_id = new.id AND content_hash = old.content_hash;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER pages_embed_stale AFTER UPDATE OF title, compiled_truth, timeline, content_hash ON pages
  FOR EACH ROW EXECUTE FUNCTION pages_embed_stale_fn();
UPDATE embed_state SET content_hash = '' WHERE content_hash != '' AND EXISTS (
  SELECT 1 FROM page_embeddings e JOIN pages p ON p.id = e.page_id
  WHERE e.page_id = embed_state.page_id AND e.model = embed_state.model
    AND p.title != '' AND p.title = btrim(p.title) AND strpos(p.title, '  ') = 0
    AND strpos(p.title, chr(9)) = 0 AND strpos(p.title, chr(10)) = 0 AND strpos(p.title, chr(13)) = 0 AND length(p.title) < 100
    AND substr(e.chunk_text, 1, length(p.title)) != p.title);
