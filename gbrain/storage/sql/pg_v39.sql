-- gbrain Postgres schema v39: words are read as SQLite's FTS5 (unicode61) reads them, on both
-- sides of a match (no schema change on SQLite, whose tokenizer already does this).
-- 1. Accents: unicode61 (remove_diacritics) folds a Latin letter with one diacritic to its base
--    letter, so 'Bjorn' finds 'Björn' and 'café' finds 'cafe'; Postgres' parser kept them apart
--    ('Bjorn' ranked the page about Björn 7th, SQLite 1st). The pgserver wheel (and many hosts)
--    has no unaccent extension, so gb_fold maps the very characters unicode61 folds
--    (search/keyword.py FOLD_BLOCKS; tests/test_search_fold.py derives them from SQLite), one
--    translate() per Unicode block, each only when the text holds one of its characters
--    (translate's cost grows with its list: ~0.45 ms per 1,000 characters for all 387 at once).
--    'ł', 'ø', 'ß' stay letters of their own, as in unicode61. (An NFD pass dropping one combining
--    mark after an ASCII letter gives the same map but was slower: ~490 vs ~350 ms per MB of
--    French text.)
-- 2. Word boundaries: unicode61 separates words at every ASCII punctuation character; Postgres'
--    parser kept 'v0.14.6' (a file name), '0.14.2' (a version), 'example.com' (a host),
--    'ana@example.org', 'open-source', '2025-03-04' ('2025 -03 -04') and '<tags>' as tokens of
--    their own, which the query's words ('v0 14 6', a user's text split as SQLite splits it) did
--    not match. gb_fold makes them spaces first (one regexp_replace: ~45 ms per MB, a quarter of
--    a translate() of the 32 characters).
-- Every to_tsvector of search_tsv and search_names_tsv reads gb_fold(field) (but search_cjk:
-- bigrams only), and every query string is read through gb_fold too (search/keyword.py), so the
-- index and the query fold alike. The generated columns are dropped and added again (PG 16 has no
-- SET EXPRESSION), with their GIN indexes, and the BM25 totals (v19) counted again.
CREATE OR REPLACE FUNCTION gb_fold(t text) RETURNS text LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
BEGIN
  IF t ~ '[µ-ỹÅ]' THEN  -- (one scan of an ASCII text)
    IF t ~ '[µÀÁÂÃÄÅÇÈÉÊËÌÍÎÏÑÒÓÔÕÖÙÚÛÜÝàáâãäåçèéêëìíîïñòóôõöùúûüýÿ]' THEN t := translate(t, 'µÀÁÂÃÄÅÇÈÉÊËÌÍÎÏÑÒÓÔÕÖÙÚÛÜÝàáâãäåçèéêëìíîïñòóôõöùúûüýÿ', 'μaaaaaaceeeeiiiinooooouuuuyaaaaaaceeeeiiiinooooouuuuyy'); END IF;  -- Latin-1
    IF t ~ '[ĀāĂăĄąĆćĈĉĊċČčĎďĒēĔĕĖėĘęĚěĜĝĞğĠġĢģĤĥĨĩĪīĬĭĮįİĴĵĶķĹĺĻļĽľŃńŅņŇňŌōŎŏŐőŔŕŖŗŘřŚśŜŝŞşŠšŢţŤťŨũŪūŬŭŮůŰűŲųŴŵŶŷŸŹźŻżŽžſƠơƯưǍǎǏǐǑǒǓǔǦǧǨǩǪǫǰǴǵǸǹȀȁȂȃȄȅȆȇȈȉȊȋȌȍȎȏȐȑȒȓȔȕȖȗȘșȚțȞȟȦȧȨȩȮȯȲȳ]' THEN t := translate(t, 'ĀāĂăĄąĆćĈĉĊċČčĎďĒēĔĕĖėĘęĚěĜĝĞğĠġĢģĤĥĨĩĪīĬĭĮįİĴĵĶķĹĺĻļĽľŃńŅņŇňŌōŎŏŐőŔŕŖŗŘřŚśŜŝŞşŠšŢţŤťŨũŪūŬŭŮůŰűŲųŴŵŶŷŸŹźŻżŽžſƠơƯưǍǎǏǐǑǒǓǔǦǧǨǩǪǫǰǴǵǸǹȀȁȂȃȄȅȆȇȈȉȊȋȌȍȎȏȐȑȒȓȔȕȖȗȘșȚțȞȟȦȧȨȩȮȯȲȳ', 'aaaaaaccccccccddeeeeeeeeeegggggggghhiiiiiiiiijjkkllllllnnnnnnoooooorrrrrrssssssssttttuuuuuuuuuuuuwwyyyzzzzzzsoouuaaiioouuggkkoojggnnaaaaeeeeiiiioooorrrruuuusstthhaaeeooyy'); END IF;  -- Latin Extended-A and -B
    IF t ~ '[ςϐϑϕϖϰϱϵιÅ]' THEN t := translate(t, 'ςϐϑϕϖϰϱϵιÅ', 'σβθφπκρειa'); END IF;  -- Greek case forms, ι, Å
    IF t ~ '[ḀḁḂḃḄḅḆḇḊḋḌḍḎḏḐḑḒḓḘḙḚḛḞḟḠḡḢḣḤḥḦḧḨḩḪḫḬḭḰḱḲḳḴḵḶḷḺḻḼḽḾḿṀṁṂṃṄṅṆṇṈṉṊṋṔṕṖṗṘṙṚṛṞṟṠṡṢṣṪṫṬṭṮṯṰṱṲṳṴṵṶṷṼṽṾṿẀẁẂẃẄẅẆẇẈẉẊẋẌẍẎẏẐẑẒẓẔẕẖẗẘẙẛẠạẢảẸẹẺẻẼẽỈỉỊịỌọỎỏỤụỦủỲỳỴỵỶỷỸỹ]' THEN t := translate(t, 'ḀḁḂḃḄḅḆḇḊḋḌḍḎḏḐḑḒḓḘḙḚḛḞḟḠḡḢḣḤḥḦḧḨḩḪḫḬḭḰḱḲḳḴḵḶḷḺḻḼḽḾḿṀṁṂṃṄṅṆṇṈṉṊṋṔṕṖṗṘṙṚṛṞṟṠṡṢṣṪṫṬṭṮṯṰṱṲṳṴṵṶṷṼṽṾṿẀẁẂẃẄẅẆẇẈẉẊẋẌẍẎẏẐẑẒẓẔẕẖẗẘẙẛẠạẢảẸẹẺẻẼẽỈỉỊịỌọỎỏỤụỦủỲỳỴỵỶỷỸỹ', 'aabbbbbbddddddddddeeeeffgghhhhhhhhhhiikkkkkkllllllmmmmmmnnnnnnnnpppprrrrrrssssttttttttuuuuuuvvvvwwwwwwwwwwxxxxyyzzzzzzhtwysaaaaeeeeeeiiiioooouuuuyyyyyyyy'); END IF;  -- Latin Extended Additional
  END IF;
  RETURN regexp_replace(t, '[!-/:-@[-`{-~]', ' ', 'g');  -- every ASCII punctuation character
END
$$;
ALTER TABLE pages DROP COLUMN search_tsv;
ALTER TABLE pages DROP COLUMN search_names_tsv;
ALTER TABLE pages ADD COLUMN search_tsv tsvector GENERATED ALWAYS AS (
  setweight(to_tsvector('english', gb_fold(title)), 'A') ||
  setweight(to_tsvector('simple', gb_fold(search_aliases)), 'A') ||
  setweight(to_tsvector('simple', gb_fold(path)), 'B') ||
  setweight(to_tsvector('english', gb_fold(path)), 'B') ||
  setweight(to_tsvector('english', gb_fold(search_headings)), 'B') ||
  setweight(to_tsvector('english', gb_fold(compiled_truth)), 'C') ||
  setweight(to_tsvector('simple', gb_fold(search_words)), 'C') ||
  setweight(to_tsvector('english', gb_fold(timeline)), 'D') ||
  setweight(to_tsvector('simple', search_cjk), 'C')
) STORED;
ALTER TABLE pages ADD COLUMN search_names_tsv tsvector GENERATED ALWAYS AS (
  setweight(to_tsvector('english', gb_fold(title)), 'A') ||
  setweight(to_tsvector('simple', gb_fold(search_aliases)), 'A') ||
  setweight(to_tsvector('simple', gb_fold(path)), 'B') ||
  setweight(to_tsvector('english', gb_fold(path)), 'B') ||
  setweight(to_tsvector('english', gb_fold(search_headings)), 'B')
) STORED;
CREATE INDEX idx_pages_search_tsv ON pages USING gin (search_tsv);
CREATE INDEX idx_pages_search_names_tsv ON pages USING gin (search_names_tsv);
DELETE FROM search_stats_part;
INSERT INTO search_stats_part (pages, lexemes)
SELECT count(*), coalesce(sum(length(search_tsv)), 0) FROM pages;
