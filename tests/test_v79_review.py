"""Review of search v79 / Postgres v87 (rsrch2): what a reader sees is what the index reads, and
snippets show the text as written (``--engine postgres`` runs this file on Postgres)."""
from __future__ import annotations

import pytest

from gbrain.core.brain import Brain
from gbrain.search import keyword
from gbrain.sync import verify
from gbrain.sync.importer import import_tree

from conftest import write_tree


def found(b, query):
    hits = sorted(h["slug"] for h in keyword.search(b.conn, query, limit=50))
    slug = {r[0]: r[1] for r in b.conn.execute("SELECT id, slug FROM pages")}
    assert sorted(slug[h["id"]] for h in keyword.keyword_candidates(b.conn, query, limit=50)) == hits, query
    return hits


def test_a_snippet_without_a_hit_in_the_text_shows_it_as_written(tmp_path, db_path):
    # (v79 review: a page found by its alias alone got the start of its indexed text as its snippet,
    # on Postgres, where the words written with harakat or tatweel are bare in place: ``عربي نص`` for
    # the text ``# عـربـي\n\nنص``; the hits were put back on the text as written, a text without any not)
    notes = {"a/t.md": "---\naliases: [مـكـتـبـة]\n---\n# عـربـي\n\nنَصٌّ هنا\n", "a/x.md": "# بيت\n\nنص\n"}
    with Brain.open(db_path) as b:
        import_tree(b, write_tree(tmp_path / "v", notes))
        hit = next(h for h in keyword.search(b.conn, "مكتبة") if h["slug"] == "a/t")
        assert "عربي" not in hit["snippet"] and "نص " not in hit["snippet"], hit
        assert hit["snippet"].startswith("عـربـي"), hit


def test_an_inline_tag_inside_a_word_leaves_one_word(tmp_path, db_path):
    # (v79 review: ``<b>bold</b>text`` renders as ``boldtext`` and ``H<sub>2</sub>O`` as ``H2O``; the
    # tags blanked in place left two words, ``bold`` and ``text``: the blanks go after the word, as a
    # word's Arabic marks do, so the word is whole and every position outside it stays)
    notes = {"e/b.md": "# B\n\n<b>bold</b>text and H<sub>2</sub>O, <span>x</span> <em>apart</em> y<br>z\n",
             "e/x.md": "# X\n\nbold text\n"}
    with Brain.open(db_path) as b:
        import_tree(b, write_tree(tmp_path / "v", notes))
        assert found(b, "boldtext") == ["e/b"] and found(b, "H2O") == ["e/b"]
        assert found(b, "apart") == ["e/b"] and found(b, "z") == ["e/b"] and found(b, "yz") == []
        hit = keyword.search(b.conn, "boldtext")[0]
        assert [hit["snippet"][x:y] for x, y in hit["highlights"]] == ["boldtext"], hit
        assert "boldtext and H2O" in hit["snippet"], hit
        assert verify.fresh_import_differences(b) == {}
    assert keyword.search_text("<b>bold</b>text") == "   boldtext    "
    assert keyword.search_text("a <i>b</i> c") == "a    b     c"
    # (a tag with attributes is read as a break: a styled badge beside a name, obsidian-help's
    # ``argentum<span class='flair'>Team Little Silvers</span>``, is found by the name)
    assert keyword.search_text("argentum<span class='flair'>Team</span>") == "argentum" + " " * 20 + "Team" + " " * 7
    assert keyword.search_text('<a href="x.md">De</a>als') == " " * 15 + "Deals    "


def test_a_title_written_with_tatweel_is_the_bare_name(tmp_path, db_path):
    # (v79 review: the exact-name keys, slugs.drop_accents, kept tatweel, U+0640, a letter to Unicode
    # (Lm): a title written with it had no folded key in name_folds, no exact-name bonus (1.49 to the
    # bare title's 2.5), and SQLite's names_word called it an alias; drop_accents drops it now)
    from gbrain.page.slugs import drop_accents, fold_loose_key, fold_title_key

    assert drop_accents("مـكـتـبـة") == "مكتبة" and fold_title_key("مَـكْـتَـبَـة") == "مكتبة" == fold_loose_key("r/مـكـتـبـة.md")
    notes = {"r/bare.md": "# مكتبة\n\nنص\n", "r/tat.md": "# مـكـتـبـة\n\nنص\n",
             "r/al.md": "---\naliases: [دفـتـر]\n---\n# س\n\nنص\n", "r/كـتـاب.md": "نص\n",
             **{f"f/{i}.md": f"# ف{i}\n\nنص {i}\n" for i in range(4)}}
    with Brain.open(db_path) as b:
        import_tree(b, write_tree(tmp_path / "v", notes))
        hits = {h["slug"]: h for h in keyword.search(b.conn, "مكتبة")}
        assert "title" in hits["r/tat"]["signals"] and "alias" not in hits["r/tat"]["signals"], hits
        assert hits["r/tat"]["score"] > 0.9 * hits["r/bare"]["score"], hits
        hits = {h["slug"]: h for h in keyword.search(b.conn, "مـكـتـبـة")}  # (and the other way: named, below the page as typed)
        assert "title" in hits["r/bare"]["signals"] and hits["r/bare"]["score"] > 1.0, hits
        assert "alias" in keyword.search(b.conn, "دفتر")[0]["signals"] and keyword.search(b.conn, "دفتر")[0]["slug"] == "r/al"
        assert "path" in keyword.search(b.conn, "كتاب")[0]["signals"] and keyword.search(b.conn, "كتاب")[0]["slug"] == "r/كـتـاب"
        folds = b.conn.execute("SELECT p.slug, f.kind, f.key FROM name_folds f JOIN pages p ON p.id = f.page_id ORDER BY 1, 2").fetchall()
        assert [tuple(r) for r in folds] == [("r/al", "alias", "دفتر"), ("r/tat", "title", "مكتبة"), ("r/كـتـاب", "path", "كتاب"), ("r/كـتـاب", "title", "كتاب")]
        assert verify.fresh_import_differences(b) == {}


def test_a_tag_in_an_indented_code_block_or_math_or_escaped_is_text(tmp_path, db_path):
    # (v79 review: tag_spans knew fenced code and code spans only; a tag in an indented code block
    # (top level, under a list item, in a quote), in ``$…$`` or ``$$…$$`` math, or written ``\\<b>``
    # (a literal ``<b>``) is shown as written, and was blanked: ``indented`` found nothing)
    notes = {"e/c.md": "# C\n\nSee:\n\n    <div class=\"indented\">x</div>\n\nafter\n",
             "e/l.md": "# L\n\n- item\n\n      <span class=\"listed\">y</span>\n",
             "e/q.md": "# Q\n\n>     <span class=\"quoted\">z</span>\n",
             "e/m.md": "# M\n\nInline $a<span class=\"inlinemath\">$ here.\n",
             "e/d.md": "# D\n\n$$\n<div class=\"displaymath\">\n\n</div>\n$$\n",
             "e/e.md": "# E\n\nWrite \\<b class=\"escaped\"> for bold.\n",
             # not code: a continuation line of a list item's paragraph, no blank line above; money
             "e/p.md": "# P\n\n- item\n    <span class=\"continued\">w</span>\n\nIt cost $5 or <b class=\"price\">$6</b>.\n",
             "e/x.md": "# X\n\nnothing\n"}
    with Brain.open(db_path) as b:
        import_tree(b, write_tree(tmp_path / "v", notes))
        for word, page in (("indented", "e/c"), ("listed", "e/l"), ("quoted", "e/q"), ("inlinemath", "e/m"),
                           ("displaymath", "e/d"), ("escaped", "e/e")):
            assert found(b, word) == [page], word
        assert found(b, "continued") == [] and found(b, "price") == [] and found(b, "class") == [
            "e/c", "e/d", "e/e", "e/l", "e/m", "e/q"]
        assert verify.fresh_import_differences(b) == {}
    assert keyword.drop_tags("a\n\n    <b>x</b>\n") == "a\n\n    <b>x</b>\n"
    assert keyword.drop_tags("$<b>x</b>$ and <b>y</b>") == "$<b>x</b>$ and y"
    assert keyword.drop_tags("\\<b>x</b>") == "\\<b>x"
    assert keyword.drop_tags("\\\\<b>x</b>") == "\\\\x"  # (an escaped backslash: the tag is one)
    assert keyword.drop_tags("- a\n    <b>x</b>") == "- a\n    x"


@pytest.mark.engine_free
def test_literal_spans_are_character_offsets_of_code_and_math():
    from gbrain.page.fastparse import literal_spans

    def texts(s):
        return [s[a:z] for a, z in literal_spans(s)]

    assert texts("é `c` ü $m$ ö\n\n    code ß\n") == ["`c`", "$m$", "code ß\n"]
    assert texts("a\r\n\r\n$$\r\n<b>x</b>\r\n\r\ny\r\n$$\r\n") == ["$$\r\n<b>x</b>\r\n\r\ny\r\n$$\r\n"]
    assert texts("cost $5 or <b>$6</b>") == [] and texts("- a\n    <b>x</b>\n") == []
    assert texts("> x\n>\n>     <b>q</b>\n") == ["<b>q</b>\n"]
    assert keyword.drop_tags("é\r\n\r\n    <b>ü</b>\r\n<b>x</b>") == "é\r\n\r\n    <b>ü</b>\r\nx"


def test_a_hamza_written_decomposed_is_the_composed_letter(tmp_path, db_path):
    # (v79 review: ``ؤ ئ`` keep their hamza, as Lucene's ArabicNormalizer keeps them (it folds only the
    # alef's seat), but a text or query written decomposed (NFD, macOS file names: ``و`` + U+0654) had
    # the hamza dropped as a mark, ``مسوول``, and never met the composed ``مسؤول``; composed first now)
    import unicodedata

    nfd = unicodedata.normalize("NFD", "مسؤول")
    assert keyword.arabic_bare(nfd) == "مسؤول" and keyword.arabic_bare("مسؤول") == "مسؤول"
    assert keyword.arabic_bare(unicodedata.normalize("NFD", "إسلام")) == "اسلام"
    notes = {"a/nfd.md": f"# ن\n\nالمدير {nfd} هنا\n", "a/nfc.md": "# م\n\nالمدير مسؤول هناك\n", "a/x.md": "# بيت\n\nنص\n"}
    with Brain.open(db_path) as b:
        import_tree(b, write_tree(tmp_path / "v", notes))
        assert found(b, "مسؤول") == ["a/nfc", "a/nfd"] and found(b, nfd) == ["a/nfc", "a/nfd"]
        assert found(b, '"المدير مسؤول"') == ["a/nfc", "a/nfd"] and found(b, "مسوول") == []
        hit = next(h for h in keyword.search(b.conn, "مسؤول") if h["slug"] == "a/nfd")
        assert [hit["snippet"][x:y] for x, y in hit["highlights"]] == [nfd], hit
        assert verify.fresh_import_differences(b) == {}
