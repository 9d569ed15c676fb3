"""Search-layer fixes of nextrun (``--engine postgres`` runs this file on Postgres): an HTML block
is raw (no backslash escape, no code span inside it: CommonMark, pulldown-cmark the oracle), a
snippet's hit on a word with an inline tag inside it covers the whole word as written, the
``signals`` of a hit are the same on both engines, and a name written with tatweel is the bare
name's twin."""
from __future__ import annotations

import pytest

from gbrain.core.brain import Brain
from gbrain.search import keyword
from gbrain.sync import verify
from gbrain.sync.importer import import_tree

from conftest import gbrain_in_process, write_tree

pyromark = pytest.importorskip("pyromark")


# ---- 2. an HTML block is raw --------------------------------------------------------------------

#: (text, the tags a reader of the rendered note does not see): inside an HTML block a ``\\<`` is no
#: escape and backticks make no code span (pulldown-cmark's Html events hold them); outside one
#: they are, as before
RAW_BLOCKS = [
    ("<div>\\<b>x</b></div>\n", ["<div>", "<b>", "</b>", "</div>"]),
    ("<div>\n\\<b>x</b>\n</div>\n", ["<div>", "<b>", "</b>", "</div>"]),
    ("<div>\n`<b>x</b>`\n</div>\n", ["<div>", "<b>", "</b>", "</div>"]),
    ("> <div>\\<i>q</i>\n", ["<div>", "<i>", "</i>"]),
    ("- <div>\n  \\<b>y</b>\n", ["<div>", "<b>", "</b>"]),
    ("<table>\n```\n<td>z</td>\n```\n</table>\n", ["<table>", "<td>", "</td>", "</table>"]),
    # (not in an HTML block: an escape, a code span, a fence, as before)
    ("a \\<b>x</b>\n", ["</b>"]),
    ("a `<b>x</b>` c\n", []),
    ("<div>\n\n\\<b>x</b> and `<i>y</i>`\n", ["<div>", "</b>"]),
    ("```\n<div>\\<b>x</b></div>\n```\n", []),
    ("text <div>\\<b>x</b></div>\n", ["<div>", "</b>", "</div>"]),  # (an inline tag, no block: the escape holds)
]


@pytest.mark.engine_free
@pytest.mark.parametrize("text,tags", RAW_BLOCKS)
def test_a_tag_in_an_html_block_is_a_tag(text, tags):
    got = [text[a:z] for a, z, _ in keyword.tag_spans(text, raw_blocks=True)]
    assert got == tags, (text, got)


@pytest.mark.engine_free
@pytest.mark.parametrize("text,tags", RAW_BLOCKS)
def test_the_html_blocks_are_pulldown_cmarks(text, tags):
    # (the oracle: pulldown-cmark renders each tag we drop as HTML, not as escaped text)
    html = pyromark.html(text)
    for t in tags:
        assert t in html, (text, html)
    kept = [m.group() for m in keyword._HTML_TAG.finditer(text) if m.group() not in tags]
    for t in kept:
        assert t.replace("<", "&lt;").replace(">", "&gt;") in html or t.replace("<", "&lt;") in html, (text, t, html)


@pytest.mark.engine_free
def test_drop_tags_reads_an_html_block_raw():
    assert keyword.drop_tags("<div>\\<b>x</b></div>\n") == " \\x \n"
    assert keyword.drop_tags("<div>\n`<b>x</b>`\n</div>\n") == " \n`x`\n \n"
    assert keyword.drop_tags("a \\<b>x</b>\n") == "a \\<b>x\n"  # (outside one: the escape holds)


@pytest.mark.engine_free
def test_the_index_reads_an_html_block_raw():
    # (search_text is the index's text: since SQLite v81 / Postgres v89 an HTML block's \\<b> is a
    # tag there too, blanked; v79 / v87 kept it, ``\\<b>x``; outside a block the escape holds)
    assert keyword.search_text("<div>\\<b>x</b></div>\n") == " " * 5 + "\\" + " " * 3 + "x" + " " * 10 + "\n"
    assert keyword.search_text("a \\<b>x</b>\n") == "a \\<b>x    \n"


def test_a_snippet_of_an_html_block_drops_its_tags(tmp_path, db_path):
    # (a text holding harakat has its snippet cut from the text as written, as_written: drop_tags
    # reads its HTML block raw; a query's passage too, hybrid._passage)
    from gbrain.search.hybrid import _passage

    notes = {"h/a.md": "# A\n\n<div>\\<b>زَيت</b> swim</div>\n", "h/x.md": "# X\n\nother\n"}
    with Brain.open(db_path) as b:
        import_tree(b, write_tree(tmp_path / "v", notes))
        hit = keyword.search(b.conn, "swim")[0]
        assert hit["slug"] == "h/a" and "<b>" not in hit["snippet"] and "\\زَيت swim" in hit["snippet"], hit
    assert _passage("# A\n<div>\\<b>x</b> y</div>") == "\\x y"


def test_a_snippet_of_an_html_block_cut_from_the_index_drops_its_tags(tmp_path, db_path):
    notes = {"h/a.md": "# A\n\n<div>\\<b>zebrafish</b> swim</div>\n", "h/x.md": "# X\n\nother\n"}
    with Brain.open(db_path) as b:
        import_tree(b, write_tree(tmp_path / "v", notes))
        hit = keyword.search(b.conn, "swim")[0]
        assert hit["slug"] == "h/a" and "<b>" not in hit["snippet"] and "zebrafish swim" in hit["snippet"], hit


def _found(b, query: str) -> list[str]:
    return sorted(h["slug"] for h in keyword.search(b.conn, query) if h["type"] != "canvas")


def test_a_brain_made_before_v81_reads_its_html_blocks_raw_after_the_upgrade(tmp_path, db_path, monkeypatch):
    """A brain whose index read an HTML block's escaped or backticked tags as text (SQLite v80 /
    Postgres v88: ``quokka`` found ``<div>\\<b class="quokka">``) after the migration: those tags
    unindexed in the pages' body and timeline and in canvas cards, the rows a fresh import gives; an
    escape outside a block still text; the other pages untouched."""
    import json

    from conftest import assert_upgraded, brain_at_version, version_before
    from gbrain.storage import db as dbmod
    from gbrain.storage import pg

    notes = {"h/a.md": '# A\n\n<div>\\<b class="quokka">zebrafish</b> swim</div>\n',
             "h/t.md": "# T\n\nbody\n\n---\n\n- 2026-01-02: met\n\n<div>\n`<i class=\"wombat\">w</i>`\n</div>\n",
             "h/ar.md": '# ع\n\n<div>\\<span class="numbat">نَص</span></div>\n',
             "h/kept.md": '# K\n\nWrite \\<b class="kept"> for bold, `<i class="coded">` too.\n',
             "h/x.md": "# X\n\nother\n"}
    canvas = {"nodes": [{"id": "c1", "type": "text", "text": '<div>\\<b class="cardtag">Cardword</b></div>', "x": 0, "y": 0, "width": 9, "height": 9}],
              "edges": []}
    tags = keyword.tag_spans
    held = version_before(dbmod._m81_raw_html_blocks, pg._raw_html_blocks)  # (SQLite v80 / Postgres v88)
    with monkeypatch.context() as m:
        m.setattr(keyword, "tag_spans", lambda s, raw_blocks=False: tags(s))  # (the index before v81: no block raw)
        with brain_at_version(db_path, *held, made_now=True) as b:
            assert import_tree(b, write_tree(tmp_path / "v", notes))["ok"]
            b.save_file("boards/b.canvas", json.dumps(canvas, ensure_ascii=False).encode())
            assert _found(b, "quokka") == ["h/a"] and _found(b, "wombat") == ["h/t"] and _found(b, "numbat") == ["h/ar"]
            assert [h.get("node") for h in keyword.search(b.conn, "cardtag") if h["type"] == "canvas"] == ["c1"]
            untouched = b.conn.execute("SELECT slug, search_body, search_timeline, search_words FROM pages "
                                       "WHERE slug IN ('h/kept', 'h/x') ORDER BY slug").fetchall()
    with Brain.open(db_path) as b:
        c = b.conn
        assert_upgraded(c, *held)
        assert _found(b, "quokka") == _found(b, "wombat") == _found(b, "numbat") == []
        assert _found(b, "zebrafish") == ["h/a"] and _found(b, "نص") == ["h/ar"] and _found(b, "w") == ["h/t"]
        assert _found(b, "kept") == _found(b, "coded") == ["h/kept"]  # (outside a block: an escape, a code span)
        assert not [h for h in keyword.search(c, "cardtag") if h["type"] == "canvas"]
        assert [h.get("node") for h in keyword.search(c, "cardword") if h["type"] == "canvas"] == ["c1"]
        assert c.execute("SELECT slug, search_body, search_timeline, search_words FROM pages "
                         "WHERE slug IN ('h/kept', 'h/x') ORDER BY slug").fetchall() == untouched
        assert verify.fresh_import_differences(b) == {}


@pytest.mark.engine_free
def test_the_v81_candidates_are_the_pages_whose_tags_read_differently():
    # (the migration's SQL pre-filter, db._RAW_BLOCK_TEXT: every text whose tags differ with
    # raw_blocks holds ``\\<``, or ``<`` beside a backtick or ``~~~``, since only an escaped tag or one
    # in code is read differently)
    import sqlite3

    from gbrain.storage import db as dbmod

    texts = [t for t, _ in RAW_BLOCKS] + ["<div>\n~~~\n<b>x</b>\n~~~\n</div>\n", "plain <b>x</b>\n", "a \\<b> b\n"]
    c = sqlite3.connect(":memory:")
    for t in texts:
        differs = keyword.tag_spans(t, raw_blocks=True) != keyword.tag_spans(t)
        selected = c.execute(f"SELECT {dbmod._RAW_BLOCK_TEXT.format(c='?1')}", (t,)).fetchone()[0]
        assert selected or not differs, t


# ---- 3. a hit on a word with an inline tag inside it --------------------------------------------

def test_a_hit_on_a_word_with_a_tag_inside_it_covers_the_word(tmp_path, db_path):
    # (v79 keeps ``مك<b>تبة</b>`` one word, ``مكتبة``; a text holding harakat has its hits put back on
    # the text as written, as_written: the hit ended at the tag, ``مك``)
    notes = {"a/q.md": "# ق\n\nفي مك<b>تبة</b> كَبيرة\n", "a/t.md": "# ت\n\nفي مَك<i>تَبة</i>\n",
             "a/r.md": "# ر\n\n<b>bold</b>text كَ\n", "a/x.md": "# x\n\nنص\n"}
    with Brain.open(db_path) as b:
        import_tree(b, write_tree(tmp_path / "v", notes))
        hits = {h["slug"]: h for h in keyword.search(b.conn, "مكتبة")}
        for slug, word in (("a/q", "مكتبة"), ("a/t", "مَكتَبة")):
            h = hits[slug]
            assert [h["snippet"][x:y] for x, y in h["highlights"]] == [word], h
        h = keyword.search(b.conn, "boldtext")[0]
        assert [h["snippet"][x:y] for x, y in h["highlights"]] == ["boldtext"], h


@pytest.mark.engine_free
def test_as_written_widens_a_hit_over_a_glued_tag():
    text = "في مك<b>تبة</b> كَبيرة"
    indexed = keyword.search_text(text)
    at = indexed.index("مكتبة")
    marked = indexed[:at] + keyword.HIT_ON + "مكتبة" + keyword.HIT_OFF + indexed[at + 5:]
    assert keyword.as_written(marked, text) == "في " + keyword.HIT_ON + "مك<b>تبة" + keyword.HIT_OFF + "</b> كَبيرة"


# ---- 4. the same signals on both engines ----------------------------------------------------------

def test_signals_name_the_field_that_matched_on_both_engines(tmp_path, db_path):
    # (Postgres labelled every weight-A match ``title`` (aliases share the weight) and every weight-B
    # one ``path`` (headings share it); SQLite names the field)
    notes = {"s/plain.md": "---\naliases: [Zephyrine Plan]\n---\n# Other Name\n\nbody text\n",
             "s/head.md": "# Head\n\n## Quokkas apart\n\nbody\n",
             "s/quillwort.md": "# Some Title\n\ntext\n",
             "s/both.md": "---\naliases: [Marigold]\n---\n# Marigold Notes\n\ntext\n",
             "s/folded.md": "---\naliases: [Łukasz Nowak]\n---\n# Person\n\ntext\n",
             **{f"f/{i}.md": f"# Filler {i}\n\nwords {i}\n" for i in range(4)}}
    with Brain.open(db_path) as b:
        import_tree(b, write_tree(tmp_path / "v", notes))

        def signals(query, slug):
            return next(h["signals"] for h in keyword.search(b.conn, query) if h["slug"] == slug)

        assert signals("zephyrine", "s/plain") == ["alias"]
        assert signals("quokkas", "s/head") == ["body", "headings"]
        assert signals("quillwort", "s/quillwort") == ["path"]
        assert signals("marigold", "s/both") == ["alias", "body", "title"]
        assert signals("lukasz", "s/folded") == ["alias", "body"]
        assert signals("zephyrine plan", "s/plain") == ["alias"]


def test_signals_name_a_folded_word_beside_another_name_field_on_both_engines(tmp_path, db_path):
    # (Postgres labelled the names' folded words, search_fold_names, only when neither the title
    # nor an alias matched another query word: ``lukasz person`` lost ``alias``, ``soren
    # kierkegaard`` lost ``title``; SQLite labels each query word's fields)
    notes = {"s/b.md": "---\naliases: [Łukasz Kowal]\n---\n# Person Page\n\ntext\n",
             "s/c.md": "---\naliases: [Đorđe Plan]\n---\n# Quill Page\n\ntext\n",
             "s/d.md": "---\naliases: [Søren Kierkegaard]\n---\n# Søren\n\ntext\n",
             **{f"f/{i}.md": f"# Filler {i}\n\nwords {i}\n" for i in range(4)}}
    with Brain.open(db_path) as b:
        import_tree(b, write_tree(tmp_path / "v", notes))

        def signals(query, slug):
            return next(h["signals"] for h in keyword.search(b.conn, query) if h["slug"] == slug)

        assert signals("lukasz", "s/b") == ["alias", "body"]
        assert signals("lukasz person", "s/b") == ["alias", "body", "title"]
        assert signals("dorde quill", "s/c") == ["alias", "body", "title"]
        assert signals("soren", "s/d") == ["body", "title"]
        assert signals("soren kierkegaard", "s/d") == ["alias", "body", "title"]


# ---- 5. a name written with tatweel is the bare name's twin ---------------------------------------

def test_a_put_of_a_name_written_with_tatweel_beside_the_bare_name_is_refused(tmp_path, db_path):
    # (as ``zoë-kim`` beside ``zoe-kim``: tatweel, U+0640, stretches a word and is no letter of it;
    # slugs.drop_accents drops it since v79)
    with Brain.open(db_path) as b:
        import_tree(b, write_tree(tmp_path / "v", {"r/مكتبة.md": "# مكتبة\n\nنص\n"}))
    r = gbrain_in_process("--db", str(db_path), "put", "r/مـكـتـبـة", input="# مـكـتـبـة\n\nآخر\n")
    err = r.stderr.decode()
    assert r.returncode == 2 and "r/مكتبة" in err and "nothing was written" in err, (r.returncode, err)
    with Brain.open(db_path) as b:
        assert [s for (s,) in b.conn.execute("SELECT slug FROM pages")] == ["r/مكتبة"]
    r = gbrain_in_process("--db", str(db_path), "put", "r/مـكـتـبـة", "--if-hash", "", input="# مـكـتـبـة\n\nآخر\n")
    assert r.returncode == 0, r.stderr.decode()
    with Brain.open(db_path) as b:
        assert sorted(s for (s,) in b.conn.execute("SELECT slug FROM pages")) == ["r/مـكـتـبـة", "r/مكتبة"]
        assert verify.fresh_import_differences(b) == {}


def test_a_query_typed_with_tatweel_ranks_as_the_bare_query(tmp_path, db_path):
    # (tatweel, U+0640, only stretches a word in print: never meaning. A query typed with it named
    # only the page holding it as typed; the bare page, found by the bare alternative, was no title
    # hit: 1.29 on SQLite, 1.14 on Postgres, beside 2.5. Read as the bare query, it is (2.5 / 2.39),
    # in the body, a prefix and a phrase too)
    notes = {"r/bare.md": "# مكتبة\n\nنص\n", "r/tat.md": "# مـكـتـبـة\n\nنص\n",
             "r/body.md": "# كتاب\n\nفي مـكـتـبـة المدينة الكبيرة\n",
             **{f"f/{i}.md": f"# ف{i}\n\nنص {i}\n" for i in range(4)}}
    with Brain.open(db_path) as b:
        import_tree(b, write_tree(tmp_path / "v", notes))

        def ranked(q):
            return [(h["slug"], round(h["score"], 6), sorted(h["signals"])) for h in keyword.search(b.conn, q)]

        bare = ranked("مكتبة")
        assert [s for s, _, _ in bare][:2] == ["r/bare", "r/tat"] and "title" in bare[1][2], bare
        assert ranked("مـكـتـبـة") == bare
        assert ranked("مـكـتـ*") == ranked("مكت*")
        assert ranked('"مـكـتـبـة المدينة"') == ranked('"مكتبة المدينة"') != []
        assert ranked("كتاب مـكـتـبـة") == ranked("كتاب مكتبة")
        cand = keyword.keyword_candidates(b.conn, "مـكـتـبـة")
        assert cand == keyword.keyword_candidates(b.conn, "مكتبة"), cand


def test_a_query_word_typed_with_tatweel_is_held_by_the_page_holding_it_bare(tmp_path, db_path):
    # (search reads ``مكتبـة`` as ``مكتبة`` (harakat_bare drops tatweel from every word) and finds the
    # page; typo tolerance read it as typed and warned `did you mean: "مكتبة"? (no page holds
    # "مكتبـة")` above the page holding it; ``Helـlo`` likewise)
    from gbrain.search import spell

    with Brain.open(db_path) as b:
        import_tree(b, write_tree(tmp_path / "v", {"r/bare.md": "# مكتبة\n\nمكتبة المدينة. Hello world.\n"}))
        for typed in ("مكتبـة", "المـدينة", "Helـlo"):
            assert spell.holds(b.conn, typed), typed
            assert spell.suggest(b.conn, typed) is None, typed
            assert [h["slug"] for h in keyword.search(b.conn, typed)] == ["r/bare"], typed
        assert not spell.holds(b.conn, "ـــ")
