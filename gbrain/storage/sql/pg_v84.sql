-- gbrain Postgres schema v84 (Postgres only): a field too long for its whole 'simple' tsvector.
-- v81/v82 took a field's stop words from its whole to_tsvector('simple', …), which overflows
-- tsvector's 1 MB (program_limit_exceeded) before the 'english' one does (~60,000 distinct
-- 14-letter words, ~900 KB: 'english' stems are shorter): such a page or canvas card, which v80
-- indexed, no longer saved. A folded field over 200,000 bytes (its 'simple' tsvector, at most ~3×
-- its bytes for the shortest distinct words, cannot reach 1 MB below that) now takes its stop words
-- by gb_stop_long: the same lexemes and positions as the whole field's gb_stop_tsv (positions capped
-- at 16,383, 255 a lexeme), from the field's 'simple' tsvectors cut at whitespace (~50,000
-- characters each); only where a run without whitespace makes a piece over 300,000 bytes, none
-- (v80's vector). A field of at most 200,000 bytes is indexed as by v82, byte for byte, at the same
-- cost (one octet_length more). The pages and cards holding such a field are indexed again (a brain past v82
-- holds none that overflowed; the edited v81/v82 steps gave a longer one v80's vector). Re-runnable.
CREATE OR REPLACE FUNCTION gb_stop_long(f text) RETURNS tsvector LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
-- The stop words of f's to_tsvector('simple', f), as gb_stop_tsv gives them, without that whole
-- tsvector: each piece's stop words shifted past the words before it by ||, whose offset is its left
-- side's greatest position, so a marker lexeme (gbzq<N>) holds the words counted so far; a sentinel
-- word (gbzqend) ending a piece counts its words (a repeated lexeme keeps 255 positions, so the
-- greatest position is no count). A piece over 300,000 bytes (a run without whitespace past its
-- ~50,000 characters), whose 'simple' tsvector might not fit, gives '' for the whole field: no
-- exception block (a subtransaction, refused in a parallel worker).
DECLARE
  n int := length(f);
  i int := 1;
  len int;
  k int;
  m int;
  p int := 0;
  piece text;
  u tsvector;
  acc tsvector := '';
BEGIN
  WHILE i <= n LOOP
    len := least(n - i + 1, 50000);
    IF i + len <= n THEN  -- to the next whitespace, so no word is cut
      k := length(substring(substr(f, i + len, 1000) FROM '^\S*'));
      IF k = 1000 THEN
        k := length(substring(substr(f, i + len) FROM '^\S*'));
      END IF;
      len := len + k;
    END IF;
    piece := substr(f, i, len);
    IF octet_length(piece) > 300000 THEN
      RETURN ''::tsvector;
    END IF;
    u := to_tsvector('simple', piece || ' gbzqend');
    u := ts_delete(u, tsvector_to_array(ts_delete(u, gb_stop_words() || '{gbzqend}'::text[])));
    m := (SELECT x.positions[array_upper(x.positions, 1)] FROM unnest(u) AS x WHERE x.lexeme = 'gbzqend') - 1;
    IF m > 0 THEN
      p := p + 1;
      acc := ts_delete(acc || (ts_delete(u, 'gbzqend')::text || ' gbzq' || p || ':' || m)::tsvector, 'gbzq' || (p - 1));
    END IF;
    i := i + len;
  END LOOP;
  acc := ts_delete(acc, 'gbzq' || p);
  IF EXISTS (SELECT 1 FROM unnest(acc) AS x WHERE array_length(x.positions, 1) > 255) THEN
    -- (|| keeps 256 positions of a lexeme, to_tsvector 255; the lexemes are the stop list's words)
    acc := (SELECT string_agg(x.lexeme || ':' || array_to_string(x.positions[1:255], ','), ' ') FROM unnest(acc) AS x)::tsvector;
  END IF;
  RETURN acc;
END $$;
CREATE OR REPLACE FUNCTION gb_alias_tsv(a text) RETURNS tsvector LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
  f text;
  s tsvector;
BEGIN
  IF a = '' THEN
    RETURN ''::tsvector;
  END IF;
  f := gb_fold(a);
  IF octet_length(f) > 200000 THEN
    RETURN to_tsvector('english', f) || gb_stop_long(f);
  END IF;
  s := to_tsvector('simple', f);
  RETURN to_tsvector('english', f) || gb_stop_tsv(s);
END $$;
CREATE OR REPLACE FUNCTION canvas_cards_tsv_fn() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  f text := gb_fold(coalesce(NEW.search, NEW.text));
  s tsvector;
BEGIN
  IF octet_length(f) > 200000 THEN
    NEW.tsv := to_tsvector('english', f) || to_tsvector('simple', gb_fold(NEW.words)) || setweight(gb_stop_long(f), 'A');
    RETURN NEW;
  END IF;
  s := to_tsvector('simple', f);
  NEW.tsv := to_tsvector('english', f) || to_tsvector('simple', gb_fold(NEW.words)) || setweight(gb_stop_tsv(s), 'A');
  RETURN NEW;
END $$;
UPDATE pages SET search_headings = search_headings
 WHERE greatest(octet_length(title), octet_length(search_aliases), octet_length(path), octet_length(search_headings),
                octet_length(search_fold_names), octet_length(coalesce(search_body, compiled_truth)),
                octet_length(coalesce(search_timeline, timeline))) > 200000;
UPDATE canvas_cards SET text = text WHERE octet_length(coalesce(search, text)) > 200000;
