-- gbrain on PostgreSQL, schema v5: the rest of SQLite migration v7 (storage/db.py: _m7_trash; v2
-- added history.trashed). The trash is a view of the history (core/history.py): every row of the
-- old sync_trash table becomes a version of its page or file, at the time it was trashed
-- (origin 'migrate', the old reason as operation), as
-- core/history.py: keep_version does it on SQLite: bytes the history already holds for that
-- page/file are marked; bytes it lacks are added as a version followed by the current text
-- again (a live page) or by a deletion. Nothing is renumbered; sync_trash is dropped.
DO $$
DECLARE
  t record;
  k text;
  n text;
  hx text;
  live text;
  at_ text;
  hit bigint;
  last bigint;
  bid bigint;
  cur_id bigint;
  cur_size bigint;
  cur_path text;
BEGIN
  FOR t IN SELECT * FROM sync_trash ORDER BY id LOOP
    IF t.kind = 'page' AND t.slug IS NOT NULL AND t.slug <> '' THEN k := 'page'; n := t.slug; ELSE k := 'file'; n := t.path; END IF;
    hx := encode(sha256(t.data), 'hex');
    at_ := CASE WHEN length(t.deleted_at) = 20 THEN replace(t.deleted_at, 'Z', '.000Z') ELSE coalesce(nullif(t.deleted_at, ''), gb_now_ms()) END;
    IF k = 'page' THEN SELECT content_hash, path INTO live, cur_path FROM pages WHERE slug = n;
    ELSE SELECT content_hash, path INTO live, cur_path FROM files WHERE path = n; END IF;
    IF NOT FOUND THEN live := NULL; cur_path := NULL; END IF;
    CONTINUE WHEN live IS NOT DISTINCT FROM hx;
    SELECT h.id INTO hit FROM history h JOIN history_bodies b ON b.id = h.body_id
      WHERE h.kind = k AND h.name = n AND b.hash = hx ORDER BY h.version DESC LIMIT 1;
    IF FOUND THEN
      UPDATE history SET trashed = t.reason WHERE id = hit AND trashed = '';
      CONTINUE;
    END IF;
    INSERT INTO history_bodies(hash, size, base_id, depth, data) VALUES (hx, length(t.data), NULL, 0, gb_pack(t.data, NULL::bytea))
      ON CONFLICT (hash) DO NOTHING;
    SELECT id INTO bid FROM history_bodies WHERE hash = hx;
    SELECT coalesce(max(version), 0) INTO last FROM history WHERE kind = k AND name = n;
    INSERT INTO history(kind, name, version, path, op, body_id, size, at, surface, operation, client, detail, trashed)
      VALUES (k, n, last + 1, t.path, CASE WHEN last > 0 THEN 'update' ELSE 'create' END, bid, length(t.data), at_, 'migrate', t.reason, '', 'kept from the trash', t.reason);
    IF live IS NOT NULL THEN
      SELECT id, size INTO cur_id, cur_size FROM history_bodies WHERE hash = live;
      IF NOT FOUND THEN  -- the current text predates history (not after v1's triggers): store it
        IF k = 'page' THEN
          INSERT INTO history_bodies(hash, size, base_id, depth, data)
            SELECT content_hash, size, NULL, 0, gb_pack(CASE WHEN bom <> 0 THEN chr(65279) ELSE '' END || frontmatter_raw || compiled_truth || separator || timeline, NULL::text)
            FROM pages WHERE slug = n RETURNING id, size INTO cur_id, cur_size;
        ELSE
          INSERT INTO history_bodies(hash, size, base_id, depth, data)
            SELECT content_hash, size, NULL, 0, gb_pack(data, NULL::bytea) FROM files WHERE path = n RETURNING id, size INTO cur_id, cur_size;
        END IF;
      END IF;
      INSERT INTO history(kind, name, version, path, op, body_id, size, at, surface, operation, client, detail, trashed)
        VALUES (k, n, last + 2, cur_path, 'update', cur_id, cur_size, at_, 'migrate', t.reason, '', 'the current text again', '');
    ELSE
      INSERT INTO history(kind, name, version, path, op, body_id, size, at, surface, operation, client, detail, trashed)
        VALUES (k, n, last + 2, t.path, 'delete', NULL, 0, at_, 'migrate', t.reason, '', '', '');
    END IF;
  END LOOP;
END $$;

DROP TABLE sync_trash;
