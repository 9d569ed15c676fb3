"""Words written with combining marks, Arabic vowel marks, ``đ``/``dj`` and stop words find the
same pages on both engines (``--engine postgres`` runs this file on Postgres).

SQLite's unicode61 reads a combining mark of a script (a Devanagari vowel sign or virama, an
Arabic haraka, a Thai vowel) as a separator: ``हिन्दी`` is indexed as the tokens ``ह न द``, where
Postgres' parser keeps it one word. A query word with such marks was searched as its pieces OR-ed
(``हिन्दी`` found a page writing only ``दिन``, ``द न``, on SQLite only); it is one FTS5 string now,
which FTS5 reads as the phrase of its pieces. The misses that needed the index re-derived (a bare
word for a text with harakat, ``djo*`` for ``Đorđe``, a Thai prefix inside a run) are found since
SQLite v77 / Postgres v85 (``keyword._other_spellings``, ``thai_tokens``)."""
from __future__ import annotations

import json

import pytest

from gbrain.core.brain import Brain
from gbrain.search import keyword
from gbrain.sync import verify
from gbrain.sync.importer import import_tree

from conftest import search_brain, writable_by_this_gbrain, write_tree

NOTES = {
    "hi/hindi.md": "# भाषा\n\nमैं हिन्दी में लिखता हूँ। किताब पढ़ना अच्छा है।\n",
    "hi/day.md": "# आज\n\nआज का दिन अच्छा था\n",
    "ar/marked.md": "# درس\n\nكَتَبَ الطَّالِبُ الدَّرْسَ فِي المَكْتَبَةِ\n",
    "ar/bare.md": "# بيت\n\nكتب المعلم الكتاب في البيت\n",
    "sr/dj.md": "# Djordje notes\n\nDjordje visited Novi Sad.\n",
    "sr/d.md": "# Đorđe Balašević\n\nĐorđe wrote songs.\n",
    "th/learn.md": "# เรียน\n\nภาษาไทย เป็นภาษาราชการ การเรียนรู้\n",
    "th/boat.md": "# เรือ\n\nเรือลำใหญ่\n",
    "en/rules.md": "# Rules\n\nPlease don't touch the oven. It's hot, before noon.\n",
    "en/apple.md": "# Apple\n\nAn apple keeps doctors away.\n",
}


brain = search_brain(NOTES)


def found(b, query: str) -> list[str]:
    """The slugs ``search`` finds for ``query``, sorted; the hybrid query's keyword leg finds the same."""
    hits = sorted(h["slug"] for h in keyword.search(b.conn, query, limit=50))
    slug = {r[0]: r[1] for r in b.conn.execute("SELECT id, slug FROM pages")}
    assert sorted(slug[h["id"]] for h in keyword.keyword_candidates(b.conn, query, limit=50)) == hits, query
    return hits


def postgres(request) -> bool:
    return request.config.getoption("--engine") == "postgres"


def test_a_devanagari_word_is_its_pieces_in_order(brain):
    # (SQLite: ``हिन्दी`` was ``"ह" OR "न" OR "द"``, and the page of ``दिन`` held ``द`` and ``न``)
    assert found(brain, "हिन्दी") == ["hi/hindi"]
    assert found(brain, "दिन") == ["hi/day"]
    assert found(brain, "पढ़ना") == ["hi/hindi"]
    assert found(brain, "किताब*") == ["hi/hindi"]
    # a prefix ending in a vowel sign: the piece before it whole (SQLite cannot see which sign)
    assert found(brain, "हि*") == ["hi/hindi"]
    assert found(brain, '"हिन्दी में"') == ["hi/hindi"]
    assert found(brain, '"हिन्दी किताब"') == []


@pytest.mark.engine_free
def test_a_prefix_ending_in_a_mark_is_its_last_piece_whole_on_sqlite_only():
    # (FTS5 reads ``"हि"*`` as the prefix ``ह*``, which ``हम`` and every word of ``ह`` hold too;
    # Postgres' parser keeps the sign in the word, so its prefix stays one)
    assert keyword.fts_parts("हि*") == ['"हि"']
    assert keyword.fts_parts('हिन्दी "हि"*') == ['"हिन्दी"', '"हि"']
    assert keyword.fts_parts("हम* abc*") == ['"हम"*', '"abc"*']
    assert keyword.fts_parts("हि*", rx=keyword._pg_word_rx("हि*")) == ['"हि"*']


def test_an_arabic_word_with_vowel_marks(brain):
    # as written: the marked page only (SQLite read it as pieces and found a page by ``ل`` alone)
    assert found(brain, "الطَّالِبُ") == ["ar/marked"]
    # the marks are optional in writing: a query with them finds the text without them too
    assert found(brain, "المُعَلِّمُ") == ["ar/bare"]
    assert found(brain, "كَتَبَ") == ["ar/bare", "ar/marked"]
    assert found(brain, "كتب") == ["ar/bare"] or found(brain, "كتب") == ["ar/bare", "ar/marked"]


def test_a_quoted_arabic_word_with_vowel_marks(brain):
    # (review of 7c5f13d: the bare spelling was searched for a word outside quotes only; in quotes
    # ``"المُعَلِّمُ"`` found nothing where ``المُعَلِّمُ`` found the page)
    assert found(brain, '"المُعَلِّمُ"') == ["ar/bare"]
    assert found(brain, '"الطَّالِبُ"') == ["ar/marked"]
    assert found(brain, '"المُعَلِّمُ الكِتَابَ"') == ["ar/bare"]
    assert found(brain, '"كَتَبَ الطَّالِبُ"') == ["ar/marked"]
    assert found(brain, '"المُعَلِّمُ الكِتَابَ"*') == ["ar/bare"]
    assert found(brain, '"كَتَبَ المُعَلِّمُ"') == ["ar/bare"]


def test_harakat_rank_as_the_bare_word_where_no_page_writes_them(tmp_path, db_path):
    # (review of 7c5f13d: the bare spelling found the pages, but the ranking read the marked
    # word's pieces, ``الم ل ح ظ ات``: no name evidence, no coordination; on obsidian-help's
    # unmarked ar pages ``المُلاحَظات`` put the page titled *ملحن الملاحظات* fifth, the bare
    # word first. A word with harakat no page writes so is ranked as its bare spelling)
    notes = {"ar/composer.md": "# ملحن الملاحظات\n\nدمج الملاحظات في ملف واحد.\n",
             "ar/sync.md": "# المزامنة\n\nالملاحظات والملاحظات والملاحظات تتزامن بين الأجهزة. الملاحظات.\n",
             "ar/daily.md": "# يومية\n\nاكتب الملاحظات كل يوم في ملاحظة يومية.\n",
             "ar/marked.md": "# درس\n\nكَتَبَ الطَّالِبُ الدَّرْسَ\n"}
    with Brain.open(db_path) as b:
        import_tree(b, write_tree(tmp_path / "ar", notes))
        for marked, bare in (("المُلاحَظات", "الملاحظات"), ("مُلاحَظَة يَوْمِيَّة", "ملاحظة يومية"), ('"مُلاحَظَة يَوْمِيَّة"', '"ملاحظة يومية"')):
            want = [(h["slug"], h["score"]) for h in keyword.search(b.conn, bare)]
            assert want and [(h["slug"], h["score"]) for h in keyword.search(b.conn, marked)] == want, marked
            assert keyword.keyword_candidates(b.conn, marked) == keyword.keyword_candidates(b.conn, bare), marked
        # a word some page writes with its marks is searched so too (the bare spelling beside it)
        assert [h["slug"] for h in keyword.search(b.conn, "الطَّالِبُ")] == ["ar/marked"]
        assert verify.fresh_import_differences(b) == {}


def test_an_arabic_word_without_marks_finds_the_marked_text(brain):
    assert found(brain, "الطالب") == ["ar/marked"]


def test_a_title_written_with_harakat_is_named_by_the_bare_word(tmp_path, db_path):
    # (SQLite v77 / Postgres v85: a text's words with harakat are indexed bare beside them, a name's at
    # the title's weight; the marked query finds the marked title as before, and ranks as the bare one)
    notes = {"ar/student.md": "# الطَّالِبُ\n\nنص قصير.\n",
             "ar/note.md": "# ملاحظة\n\nالطالب والطالب والطالب في المدرسة.\n",
             "ar/final.md": "# يوم\n\nجاء المهندسُ اليوم.\n",
             **{f"ar/f{i}.md": f"# صفحة {i}\n\nنص آخر {i}.\n" for i in range(6)}}
    with Brain.open(db_path) as b:
        import_tree(b, write_tree(tmp_path / "ar", notes))
        # (a word with a final mark only: unicode61 holds its bare piece already, Postgres the marked word)
        assert [h["slug"] for h in keyword.search(b.conn, "المهندس")] == ["ar/final"]
        bare = keyword.search(b.conn, "الطالب")
        assert [h["slug"] for h in bare] == ["ar/student", "ar/note"], bare
        assert "title" in bare[0]["signals"] or "folds" in bare[0]["signals"], bare[0]
        assert [h["slug"] for h in keyword.search(b.conn, "الطَّالِبُ")] == ["ar/student", "ar/note"]
        assert [h["slug"] for h in keyword.search(b.conn, '"الطَّالِبُ"')][:1] == ["ar/student"]
        assert verify.fresh_import_differences(b) == {}


def test_a_brain_made_before_v77_finds_the_other_spellings_as_a_fresh_import(tmp_path, db_path, monkeypatch, request):
    """A brain made at SQLite v76 / Postgres v84 (words with harakat indexed as written only, words
    with ``đ`` without their ``dj`` spelling, no Thai bigrams) finds the bare word, the ``dj`` prefix
    and a Thai prefix inside a run after the migration, in pages, names and canvas cards, with the
    rows a fresh import gives; a Latin page's index rows are the ones before, a Latin query's first
    hit and hits too."""
    import json
    import re

    from conftest import assert_upgraded, brain_at_version, version_before
    from gbrain.page import slugs
    from gbrain.storage import db as dbmod
    from gbrain.storage import pg

    notes = {**NOTES, "en/oven.md": "# Oven notes\n\nThe oven and the apple pie, before noon.\n",
             "en/pie.md": "# Pie\n\nApple pie, apple pie, an oven.\n", "sr/m.md": "# Međugorje\n\nA trip.\n"}
    tree = write_tree(tmp_path / "vault", notes)
    canvas = {"nodes": [{"id": "c1", "type": "text", "text": "يَكْتُبُ الدَّرْسَ", "x": 0, "y": 0, "width": 10, "height": 10},
                        {"id": "c2", "type": "text", "text": "Pesme Đorđa", "x": 0, "y": 20, "width": 10, "height": 10}], "edges": []}
    latin = ("apple", "oven", "apple pie", "noon", "rules")
    held = version_before(dbmod._m77_other_spellings, pg._other_spellings)  # (SQLite v76 / Postgres v84)
    if postgres(request):
        db_path = request.getfixturevalue("pg_url")  # (a new, empty database: the brain made at v84)
    with monkeypatch.context() as m:
        m.setattr(keyword, "_other_spellings", lambda text, marks=True: [])  # (the index before v77: no other spellings,
        m.setattr(keyword, "_bare_in_place", lambda text: text)  # no bare text (v79),
        m.setattr(keyword, "_THAI_CHAR", re.compile("(?!)"))  # no Thai bigrams)
        m.setenv("GBRAIN_PARSE_WORKERS", "0")
        with brain_at_version(db_path, *held) as b:  # (SQLite v76 / Postgres v84)
            assert import_tree(b, tree)["ok"]
            b.save_file("boards/b.canvas", json.dumps(canvas, ensure_ascii=False).encode())
            assert found(b, "الطالب") == [] and found(b, "djo*") == ["sr/dj"]
            before = {q: [h["slug"] for h in keyword.search(b.conn, q)] for q in latin}
            rows = b.conn.execute(f"SELECT slug, search_words, search_cjk, search_fold_names FROM pages WHERE slug LIKE 'en/%' ORDER BY slug").fetchall()
    with Brain.open(db_path) as b:
        c = b.conn
        assert_upgraded(c, *held)
        assert found(b, "الطالب") == ["ar/marked"]
        assert sorted(h["slug"] for h in keyword.search(c, "djo*") if h["type"] != "canvas") == ["sr/d", "sr/dj"]
        assert found(b, "medjugorje") == ["sr/m"]
        assert found(b, "เรี*") == ["th/learn"]
        assert [h.get("node") for h in keyword.search(c, "يكتب") if h["type"] == "canvas"] == ["c1"]
        assert [h.get("node") for h in keyword.search(c, "djordja") if h["type"] == "canvas"] == ["c2"]
        # (the Latin pages' index rows are the same; the brain's average length moved with the other pages'
        # new words, so a near tie may turn: the first hit and the hits are the same)
        assert c.execute(f"SELECT slug, search_words, search_cjk, search_fold_names FROM pages WHERE slug LIKE 'en/%' ORDER BY slug").fetchall() == rows
        after = {q: [h["slug"] for h in keyword.search(c, q)] for q in latin}
        assert {q: (v[0], sorted(v)) for q, v in after.items()} == {q: (v[0], sorted(v)) for q, v in before.items()}
        assert verify.fresh_import_differences(b) == {}


def test_a_d_with_stroke_finds_its_dj_spelling(brain):
    assert found(brain, "djordje") == ["sr/d", "sr/dj"]
    assert found(brain, "Đorđe") == ["sr/d", "sr/dj"]
    assert found(brain, "đorđe") == ["sr/d", "sr/dj"]
    assert found(brain, "dorde") == ["sr/d"]  # (the fold's own: no dj spelling looked up)
    # the page named as typed stays first
    assert keyword.search(brain.conn, "Đorđe Balašević")[0]["slug"] == "sr/d"
    assert keyword.search(brain.conn, "Djordje notes")[0]["slug"] == "sr/dj"


def test_a_page_named_as_typed_stays_first_beside_its_dj_spelling(tmp_path, db_path):
    # (review of 7c5f13d: the query was ranked as respelled, ``Djordje Đorđe``, a name no page has:
    # the page named *Djordje* fell below *Đorđe* and a note writing the name often, and
    # ``Đorđe`` lost its exact-name bonus once a page held ``Djordje``; the names are the query's
    # as typed, its other spelling a name but for a letter)
    notes = {"people/đorđe.md": "# Đorđe\n\nA singer from Novi Sad.\n",
             "people/djordje.md": "# Djordje\n\nA painter from Belgrade.\n",
             "notes/meeting.md": "# Meeting\n\nDjordje and Djordje met Djordje again; Djordje said hi. Đorđe too.\n",
             "notes/trip.md": "# Trip\n\nWe saw Djordje Djordje Djordje at the lake. Djordje.\n"}
    with Brain.open(db_path) as b:
        import_tree(b, write_tree(tmp_path / "dj", notes))
        slug = {r[0]: r[1] for r in b.conn.execute("SELECT id, slug FROM pages")}
        for query, first, second in (("Djordje", "people/djordje", "people/đorđe"), ("djordje", "people/djordje", "people/đorđe"),
                                     ("Đorđe", "people/đorđe", "people/djordje"), ("đorđe", "people/đorđe", "people/djordje")):
            hits = [h["slug"] for h in keyword.search(b.conn, query)]
            assert hits[:2] == [first, second], (query, hits)
            assert [slug[h["id"]] for h in keyword.keyword_candidates(b.conn, query)][:2] == [first, second], query
        assert verify.fresh_import_differences(b) == {}


def test_a_dj_prefix_finds_the_d_with_stroke(brain):
    assert found(brain, "djo*") == ["sr/d", "sr/dj"]


def test_a_thai_prefix_with_a_vowel_mark(brain):
    # (SQLite: unicode61 splits Thai at its vowel marks, ``การเรียนรู้`` is ``การเร ยนร``, so ``เรี*`` was the
    # piece ``เร`` whole, which ``เรือ`` begins with and the body's word does not; since v77 a Thai run is
    # also indexed as bigrams with its marks kept, search_cjk, and such a prefix is their phrase.
    # Postgres' parser keeps the marks in the word)
    assert found(brain, "เรี*") == ["th/learn"]
    assert found(brain, "เรื*") == ["th/boat"]
    assert found(brain, "รู้*") == ["th/learn"]
    assert keyword.fts_parts("เร*") == ['"เร"*']  # (a Thai prefix without a mark: as before, both engines)


def test_thai_words(brain):
    assert found(brain, "ภาษาไทย") == ["th/learn"]
    assert found(brain, "เรือ") == ["th/boat"]


def test_stop_words_of_postgres(brain):
    # (Postgres' 'english' configuration drops its stop words, `don`, `its`, `an`, `before`; since
    # pg_v81 they are indexed as written beside its stems, as SQLite's FTS5 keeps every word)
    assert found(brain, "don't") == ["en/rules"]
    assert found(brain, "it's") == ["en/rules"]
    assert found(brain, "before") == ["en/rules"]
    assert found(brain, "an*") == ["en/apple"]
    assert found(brain, "don*") == ["en/rules"]


@pytest.mark.engine_free
def test_postgres_v81_indexes_stop_words(tmp_path, pg_url, monkeypatch):
    """A brain made at v80 (stop words out of search_tsv) finds them after the migration, every
    page's vectors those a write gives now, the BM25 totals following, the vocabulary made again."""
    from gbrain.search import spell
    from gbrain.storage import pg

    tree = write_tree(tmp_path / "vault", {k: v for k, v in NOTES.items() if k.startswith("en/")})
    monkeypatch.setattr(pg, "PG_SCHEMA_VERSION", 80)
    with Brain.open(pg_url, create=True) as b:
        writable_by_this_gbrain(b.conn)  # (an import binds: v88's sync_root.machine)
        import_tree(b, tree)
        assert found(b, "before") == []  # (as before v81)
        spell.suggest(b.conn, "aple")
        assert b.conn.execute("SELECT count(*) FROM search_vocab_state").fetchone()[0] == 1
    monkeypatch.undo()
    with Brain.open(pg_url) as b:
        c = b.conn
        assert pg.schema_version(c) == pg.PG_SCHEMA_VERSION >= 81
        assert c.execute("SELECT count(*) FROM search_vocab_state").fetchone()[0] == 0
        after = c.execute("SELECT slug, search_tsv::text, search_names_tsv::text, search_len FROM pages ORDER BY slug").fetchall()
        with b.transaction():  # what a write gives every page now
            c.execute("UPDATE pages SET title = title")
        assert c.execute("SELECT slug, search_tsv::text, search_names_tsv::text, search_len FROM pages ORDER BY slug").fetchall() == after
        fresh = tuple(map(int, c.execute("SELECT count(*), sum(length(search_tsv)), sum(search_len) FROM pages").fetchone()))
        assert tuple(map(int, c.execute("SELECT pages, lexemes, tokens FROM search_totals").fetchone())) == fresh
        assert found(b, "before") == ["en/rules"]
        assert found(b, "an*") == ["en/apple"]


@pytest.mark.engine_free
def test_postgres_v82_stop_words_as_v81_read_them(pg_url):
    """pg_v82's gb_alias_tsv (a field's 'simple' lexemes in the fixed list gb_stop_words()) gives
    the vector v81's gave (pg_v57's: 'english' asked about each lexeme), positions and all, on
    texts of every stop word, apostrophes, digits, other scripts and case mappings; every word of
    the list is one 'english' drops on this server."""
    from importlib import resources

    import re

    v57 = re.search(r"CREATE OR REPLACE FUNCTION gb_alias_tsv\(.*?\$\$.*?\$\$;",
                    (resources.files("gbrain.storage") / "sql" / "pg_v57.sql").read_text(encoding="utf-8"), re.S).group(0)
    stop = "i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself it its itself " \
        "they them their theirs themselves what which who whom this that these those am is are was were be been being have has had having " \
        "do does did doing a an the and but if or because as until while of at by for with about against between into through during " \
        "before after above below to from up down in out on off over under again further then once here there when where why how all any " \
        "both each few more most other some such no nor not only own same so than too very s t can will just don should now"
    texts = [stop, stop.upper(), "Don't touch the oven. It's hot, before noon; an apple a day", "the-who of_a now2 2now 1e5 don't've",
             "İT IS Ünïcode straße Ångström ΣΟΦΙΑ the Ελληνικά и в не на русском", "हिन्दी में the लिखता", "データ the 同期 a",
             "a " * 3000 + "end", "", "   ...  ", "The wills of the will: ones, haves, doing does"]
    with Brain.open(pg_url, create=True) as b:
        c = b.conn
        assert sorted(c.execute("SELECT unnest(gb_stop_words())").fetchall()) == sorted((w,) for w in stop.split())
        with b.transaction():
            c.execute(v57.replace("FUNCTION gb_alias_tsv(", "FUNCTION gb_alias_tsv_v57("))
            for t in texts:
                got = c.execute("SELECT gb_alias_tsv(?)::text, gb_alias_tsv_v57(?)::text", (t, t)).fetchone()
                assert got[0] == got[1], t[:60]
            c.execute("DROP FUNCTION gb_alias_tsv_v57(text)")


def test_stop_words_alike_on_both(brain):
    # (what both engines find today: a stop word as a prefix also meets the words it begins)
    assert found(brain, "a*") == ["ar/bare", "ar/marked", "en/apple"]  # (``ar`` of a path)
    assert found(brain, "apple*") == ["en/apple"]


def test_still_a_fresh_import(brain):
    assert verify.fresh_import_differences(brain) == {}


@pytest.mark.engine_free
def test_postgres_a_page_of_many_distinct_words_saves_and_migrates(pg_url, monkeypatch):
    """A page of ~60,000 distinct words (a word list, a glossary), which v80 indexed ('english'
    stems fit the 1 MB tsvector): the current schema opens a v80 brain holding it, and saves it."""
    from test_canvas_search import _many_distinct_words

    from gbrain.storage import pg

    text = "# Word list\n\n" + _many_distinct_words() + " before now\n"
    monkeypatch.setattr(pg, "PG_SCHEMA_VERSION", 80)
    with Brain.open(pg_url, create=True) as b:
        b.put("Words", text)
    monkeypatch.undo()
    with Brain.open(pg_url) as b:
        assert pg.schema_version(b.conn) == pg.PG_SCHEMA_VERSION
        b.put("Words2", text)
        assert b.conn.execute("SELECT count(*) FROM pages WHERE search_tsv <> ''").fetchone()[0] == 2
        # (its stop words too, as written: the long field's taken piece by piece, gb_stop_long)
        assert b.conn.execute("SELECT count(*) FROM pages WHERE search_tsv @@ 'before & now'::tsquery").fetchone()[0] == 2
        assert found(b, "before") == ["Words", "Words2"]


@pytest.mark.engine_free
def test_postgres_a_long_fields_stop_words_as_its_whole_simple_vector(pg_url):
    """gb_stop_long (a field over 200,000 bytes: its 'simple' tsvector taken piece by piece, cut at
    whitespace) gives what gb_stop_tsv of the whole field's gives where that fits: the same lexemes and
    positions, past the 16,383rd word (the positions' cap) and a stop word's 255 positions, with
    newlines, words too long to index (2,047+ bytes), letters of other scripts; a text too long for
    the 'simple' tsvector gets its stop words too, and gb_alias_tsv the 'english' vector with them;
    a run without whitespace too long for a piece gets none (v80's vector), and no error."""
    import random

    from test_canvas_search import _many_distinct_words

    rnd = random.Random(5)
    stops = "the a an of to in and or before after now don it its is was not no how what".split()

    def text(n: int, longest: int, stop_share: float, newlines: float = 0.05) -> str:
        out = []
        for _ in range(n):
            out.append(rnd.choice(stops) if rnd.random() < stop_share else
                       "".join(rnd.choice("abcdefghijklmnopqrstuvwxyzé") for _ in range(rnd.randint(1, longest))))
            out.append("\n" if rnd.random() < newlines else rnd.choice([" ", " ", ", ", ". ", " - "]))
        return "".join(out)

    texts = [text(40_000, 8, 0.3), text(60_000, 12, 0.02), text(45_000, 6, 0.5, 0.3), text(120_000, 3, 0.4),
             "word " * 5000 + text(50_000, 10, 0.1), "the " * 60_000, ("x" * 3000 + " the ") * 100,
             text(30_000, 9, 0.3) + "ŁŻ" * 30_000 + text(30_000, 9, 0.3), "a" * 250_000 + " the an " * 10]
    with Brain.open(pg_url, create=True) as b:
        c = b.conn
        for t in texts:
            f = c.execute("SELECT gb_fold(?)", (t,)).fetchone()[0]
            assert len(f.encode()) > 200_000
            whole, pieces = c.execute("SELECT gb_stop_tsv(to_tsvector('simple', ?))::text, gb_stop_long(?)::text", (f, f)).fetchone()
            assert pieces == whole, t[:60]
        words = _many_distinct_words() + " before the now"
        assert c.execute("SELECT gb_stop_long(gb_fold(?))::text", (words,)).fetchone()[0] == "'before':16383 'now':16383 'the':16383"
        assert c.execute("SELECT gb_alias_tsv(?) = to_tsvector('english', gb_fold(?)) || 'before:16383 now:16383 the:16383'::tsvector",
                         (words, words)).fetchone()[0]
        # a run without whitespace making a piece over 300,000 bytes: no stop words (v80's vector), no error
        run = "the an " + "データの同期" * 20_000
        assert c.execute("SELECT gb_stop_long(?)::text, gb_alias_tsv(?) = to_tsvector('english', ?)", (run, run, run)).fetchone() == ("", True)
        # no exception block (a subtransaction, refused in a parallel worker)
        c.execute("SET debug_parallel_query = on")
        assert c.execute("SELECT gb_stop_long(repeat('the cat ', 40000) || x) FROM generate_series(1, 2) x").fetchall()
        c.execute("RESET debug_parallel_query")


def test_a_thai_prefix_never_finds_private_use_icons(tmp_path, db_path, request):
    # (review of v77: a Thai prefix with a mark is the phrase of its bigrams in private-use letters,
    # U+E001–E04E, which any field may hold as text: Nerd Fonts' Pomicons sit at U+E000–E00A,
    # Material Icons at U+E000–E04E. The phrase matched a page writing such icons, `ก* เรี*` put it first.
    # A Thai bigram is searched in search_cjk only)
    notes = {"th/learn.md": "# เรียน\n\nการเรียนรู้ กีฬา\n",
             "icons/pomo.md": "# Pomodoro\n\nStatus \ue001\ue035 done \ue001 \ue040\ue023 \ue023\ue035\n",
             "boards/icons.canvas": json.dumps({"nodes": [{"id": "a", "type": "text", "text": "Status \ue001\ue035 \ue040\ue023 \ue023\ue035",
                                                           "x": 0, "y": 0, "width": 9, "height": 9},
                                                          {"id": "b", "type": "text", "text": "การเรียนรู้", "x": 0, "y": 20, "width": 9, "height": 9}],
                                               "edges": []})}
    with Brain.open(db_path) as b:
        import_tree(b, write_tree(tmp_path / "v", notes))
        slug = {r[0]: r[1] for r in b.conn.execute("SELECT id, slug FROM pages")}
        for q in ("เรี*", "กี*", "ก* เรี*"):
            assert [slug[h["id"]] for h in keyword.keyword_candidates(b.conn, q)] == ["th/learn"], q
            # (a canvas card writing the icons neither; the card writing the Thai word is found)
            # (Postgres: a prefix begins a word, and the card's word is การเรียนรู้, which ก* begins)
            card = [("boards/icons.canvas", "b")] if ("เรี" in q and not postgres(request)) or q == "ก* เรี*" else []
            assert [(h["slug"], h.get("node")) for h in keyword.search(b.conn, q)] == [("th/learn", None), *card], q


def test_sync_edits_renames_and_canvases_with_other_spellings_stay_a_fresh_import(tmp_path, db_path, request):
    # (review of v77: the other spellings and Thai bigrams written by incremental writes, sync's
    # edits, renames and canvas writes and a put, equal a fresh import's, on both engines)
    from gbrain.sync.engine import SyncEngine

    v = write_tree(tmp_path / "v", {"a.md": "# Notes\n\nplain\n", "b.md": "# Đorđe\n\nĐorđe wrote.\n"})
    with Brain.open(db_path) as b:
        eng = SyncEngine(b, v)
        eng.bind()
        try:
            assert eng.sync()["ok"]
            (v / "a.md").write_text("# الطَّالِبُ\n\nكَتَبَ الطَّالِبُ การเรียนรู้ Međugorje\n", encoding="utf-8")
            (v / "b.md").rename(v / "c.md")
            (v / "d.canvas").write_text(json.dumps({"nodes": [{"id": "n", "type": "text", "text": "الطَّالِبُ การเรียนรู้ Đorđe",
                                                                "x": 0, "y": 0, "width": 9, "height": 9}], "edges": []}), encoding="utf-8")
            rep = eng.sync()
            assert rep["ok"], rep["problems"]
            b.put("e", "---\ntitle: Međa\n---\n# Međa\n\nكَتَبَ e\n")
            assert found(b, "medj*") == ["a", "e"]
            for q, hits in (("الطالب", {"a", "d.canvas"}), ("djo*", {"c", "d.canvas"}), ("เรี*", {"a", "d.canvas"})):
                if q != "เรี*" or not postgres(request):  # (Postgres: a prefix begins a word, การเรียนรู้)
                    assert {h["slug"] for h in keyword.search(b.conn, q)} == hits, q
            assert verify.fresh_import_differences(b) == {}
            (v / "a.md").write_text("# Notes\n\nplain again\n", encoding="utf-8")
            (v / "d.canvas").write_text(json.dumps({"nodes": [], "edges": []}), encoding="utf-8")
            assert eng.sync()["ok"]
            assert found(b, "الطالب") == [] and found(b, "เรี*") == [] and found(b, "djo*") == ["c"]
            assert verify.fresh_import_differences(b) == {}
        finally:
            eng.close()


def test_a_word_written_with_tatweel_is_found_by_the_plain_word(tmp_path, db_path):
    # (review of v77: tatweel, U+0640, only stretches a word in print, as harakat are optional; both
    # engines read it as a letter inside the word, so ``العربية`` never met ``العـــربية`` nor the title
    # ``عـربـي``; harakat are indexed bare since v77, tatweel not: a migration must write those pages'
    # words again, as _m77_other_spellings did)
    notes = {"ar/t.md": "# عـربـي\n\nالعـــربية لغة جميلة\n", "ar/x.md": "# بيت\n\nنص آخر\n"}
    with Brain.open(db_path) as b:
        import_tree(b, write_tree(tmp_path / "v", notes))
        assert found(b, "العربية") == ["ar/t"]
        assert found(b, "عربي") == ["ar/t"]
        # and the other way: a query typed with tatweel finds the plain word
        assert found(b, "البـيـت") == [] and found(b, "بـيت") == ["ar/x"]
        assert found(b, "لـغة") == ["ar/t"] and found(b, '"العـربية لغة"') == ["ar/t"]
        assert verify.fresh_import_differences(b) == {}


def test_a_bare_phrase_finds_the_text_written_with_harakat(tmp_path, db_path):
    # (review of v77: a page's bare words are in search_words once each, after the title's (dict.fromkeys),
    # and a word written without marks is not there at all, so a quoted bare phrase met marked text
    # only when its words happened to stand side by side there: ``"كتب الطالب"`` found the page
    # titled درس, not the one titled الطَّالِبُ, nor ``كتب الطَّالِبُ`` (one word marked). A phrase over the
    # text needs the text's bare form indexed as text: a schema version)
    notes = {"ar/a.md": "# الطَّالِبُ\n\nكَتَبَ الطَّالِبُ الدَّرْسَ\n", "ar/b.md": "# درس\n\nكتب الطَّالِبُ الدرس\n",
             "ar/x.md": "# بيت\n\nكتب المعلم الكتاب في البيت. الطالب هنا\n"}
    with Brain.open(db_path) as b:
        import_tree(b, write_tree(tmp_path / "v", notes))
        assert found(b, '"كتب الطالب"') == ["ar/a", "ar/b"]
        assert found(b, '"كتب الطَّالِبُ"') == ["ar/a", "ar/b"]
        assert found(b, '"الطالب الدرس"') == ["ar/a", "ar/b"]
        assert found(b, '"الدرس كتب"') == []
        assert verify.fresh_import_differences(b) == {}


def test_a_bare_word_counts_each_time_a_text_writes_it_with_harakat(tmp_path, db_path):
    # (review of v77: the bare spellings were search_words' distinct words, so a page writing
    # ``الطَّالِبُ`` three times held ``الطالب`` once, as a page writing it once: a tie)
    notes = {"ar/three.md": "# أ\n\nالطَّالِبُ الطَّالِبُ الطَّالِبُ كتب\n", "ar/one.md": "# ب\n\nالطَّالِبُ كتب كتب كتب\n",
             **{f"ar/f{i}.md": f"# ت{i}\n\nنص آخر هنا {i}\n" for i in range(4)}}
    with Brain.open(db_path) as b:
        import_tree(b, write_tree(tmp_path / "v", notes))
        score = {h["slug"]: h["score"] for h in keyword.search(b.conn, "الطالب")}
        assert set(score) == {"ar/three", "ar/one"} and score["ar/three"] > 1.05 * score["ar/one"], score


def test_a_brain_made_before_v79_reads_its_text_as_a_fresh_import(tmp_path, db_path, monkeypatch, request):
    """A brain made at SQLite v78 / Postgres v86 (HTML tags indexed, words with harakat bare in
    ``search_words`` once each, tatweel a letter) after the migration: no page by a word only in a
    tag, a bare phrase over harakat, tatweel folded in pages, names and canvas cards, with the rows a
    fresh import gives; a page with neither keeps its rows."""
    import re

    from conftest import assert_upgraded, brain_at_version, version_before
    from gbrain.page import slugs
    from gbrain.storage import db as dbmod
    from gbrain.storage import pg

    notes = {**NOTES, "ar/t.md": "# عـربـي\n\nالعـــربية لغة جميلة\n", "ar/tـa.md": "---\naliases: [دفـتـر]\n---\n# ت\n\nنص\n", "ar/p.md": "# ص\n\nكتب الطَّالِبُ\n", "ar/h.md": "# إسلام\n\nفي آسيا\n",
             "web/hub.md": '# Hub\n\n<span class="git-footer">Edit this note</span> and `<b class="kept">` code\n',
             "en/oven.md": "# Oven notes\n\nThe oven and the apple pie, before noon.\n",
             "web/code.md": '# Code\n\nSee:\n\n    <div class="codetag">x</div>\n\nand $<b class="mathtag">$, <b class="gone">y</b>\n'}
    tree = write_tree(tmp_path / "vault", notes)
    canvas = {"nodes": [{"id": "c1", "type": "text", "text": "نص العـــربية", "x": 0, "y": 0, "width": 10, "height": 10},
                        {"id": "c2", "type": "text", "text": '<div class="cardtag">Cardword</div>', "x": 0, "y": 20, "width": 10, "height": 10}],
              "edges": []}
    if postgres(request):
        db_path = request.getfixturevalue("pg_url")
    compat = keyword.compat_words
    held = version_before(dbmod._m79_unread_and_bare_text, pg._unread_and_bare_text)  # (SQLite v78 / Postgres v86)
    with monkeypatch.context() as m:
        m.setattr(keyword, "tag_spans", lambda s, raw_blocks=False: [])  # (the index before v79: tags read,
        m.setattr(keyword, "_bare_in_place", lambda text: text)  # marked words as written in the text,
        m.setattr(keyword, "compat_words", lambda text, marks=True: compat(text))  # their bare forms in search_words,
        m.setattr(keyword, "_ARABIC_MARK", re.compile(keyword._ARABIC_MARK.pattern.replace("\u0640", "")))  # no tatweel)
        m.setattr(keyword, "_SPELT", re.compile(re.sub("[\u0640\u0622\u0623\u0625]", "", keyword._SPELT.pattern)))
        m.setattr(keyword, "_ARABIC_FOLDS", re.compile(re.sub("[\u0640\u0622\u0623\u0625]", "", keyword._ARABIC_FOLDS.pattern)))
        m.setattr(keyword, "_ALEF_FOLD", {})
        m.setattr(slugs, "_SCRIPT_ACCENT_TABLE", str.maketrans(slugs.SCRIPT_ACCENTS))  # (name keys kept tatweel)
        keyword._fold.cache_clear()
        m.setenv("GBRAIN_PARSE_WORKERS", "0")
        with brain_at_version(db_path, *held) as b:  # (SQLite v78 / Postgres v86)
            assert import_tree(b, tree)["ok"]
            b.save_file("boards/b.canvas", json.dumps(canvas, ensure_ascii=False).encode())
            assert found(b, "footer") == ["web/hub"] and found(b, "gone") == ["web/code"] and found(b, "العربية") == [] and found(b, '"كتب الطالب"') == ["ar/marked"]
            assert found(b, "اسيا") == []  # (its title was found by its exact-name key already, which folds أ)
            rows = b.conn.execute("SELECT slug, search_body, search_words, search_cjk, search_fold_names FROM pages "
                                  "WHERE slug LIKE 'en/%' OR slug LIKE 'hi/%' ORDER BY slug").fetchall()
            assert not b.conn.execute("SELECT 1 FROM name_folds f JOIN pages p ON p.id = f.page_id WHERE p.slug LIKE 'ar/t%'").fetchall()
    keyword._fold.cache_clear()
    with Brain.open(db_path) as b:
        c = b.conn
        assert_upgraded(c, *held)
        assert found(b, "footer") == [] and found(b, "edit") == ["web/hub"] and found(b, "kept") == ["web/hub"]
        assert found(b, "codetag") == found(b, "mathtag") == ["web/code"] and found(b, "gone") == []  # (code, math: as written)
        assert sorted(h["slug"] for h in keyword.search(c, "العربية") if h["type"] != "canvas") == ["ar/t"] and found(b, "عربي") == ["ar/t"]
        assert found(b, '"كتب الطالب"') == ["ar/marked", "ar/p"]
        assert found(b, "اسلام") == ["ar/h"] and found(b, "اسيا") == ["ar/h"]
        assert "title" in next(h for h in keyword.search(c, "عربي") if h["slug"] == "ar/t")["signals"]  # (its name keys fold tatweel)
        cards = {h.get("node") for h in keyword.search(c, "العربية") if h["type"] == "canvas"}
        assert cards == {"c1"} and not [h for h in keyword.search(c, "cardtag") if h["type"] == "canvas"]
        assert [h.get("node") for h in keyword.search(c, "cardword") if h["type"] == "canvas"] == ["c2"]
        assert c.execute("SELECT slug, search_body, search_words, search_cjk, search_fold_names FROM pages "
                         "WHERE slug LIKE 'en/%' OR slug LIKE 'hi/%' ORDER BY slug").fetchall() == rows
        assert verify.fresh_import_differences(b) == {}


def test_an_alef_with_hamza_or_madda_is_found_by_the_bare_alef(tmp_path, db_path):
    # (``أ إ آ`` are often written as plain ``ا``, as harakat are left out: folded the same way, on both
    # sides, since SQLite v79 / Postgres v87, keyword.arabic_bare; a decomposed ``إ`` is ``ا`` + U+0655,
    # a mark dropped already)
    notes = {"ar/h.md": "# إسلام\n\nتاريخ الإسلام في آسيا\n", "ar/p.md": "# تاريخ\n\nالاسلام واسيا\n", "ar/x.md": "# بيت\n\nنص\n"}
    with Brain.open(db_path) as b:
        import_tree(b, write_tree(tmp_path / "v", notes))
        assert found(b, "اسلام") == ["ar/h"] and found(b, "إسلام") == ["ar/h"]
        assert found(b, "الاسلام") == ["ar/h", "ar/p"] and found(b, "الإسلام") == ["ar/h", "ar/p"]
        assert found(b, "اسيا") == ["ar/h"] and found(b, "آسيا") == ["ar/h"] and found(b, "أسيا") == ["ar/h"]
        assert found(b, '"الاسلام في اسيا"') == ["ar/h"]
        assert keyword.search(b.conn, "اسلام")[0]["signals"] != ["body"]  # (its title names it)
        assert verify.fresh_import_differences(b) == {}


def test_a_snippet_shows_the_text_as_written_with_its_harakat(tmp_path, db_path):
    # (v79 indexes such words bare in place, and a snippet is cut from the indexed text: it showed
    # ``كتب الطالب`` for ``كَتَبَ الطَّالِبُ``; the hits are mapped back onto the text as written,
    # each over its whole word)
    notes = {"ar/a.md": "# درس\n\nكَتَبَ الطَّالِبُ الدَّرْسَ في العـــربية [رابط](https://x.org/a)\n", "ar/x.md": "# بيت\n\nنص\n"}
    with Brain.open(db_path) as b:
        import_tree(b, write_tree(tmp_path / "v", notes))
        for query, words in (("الطالب", ["الطَّالِبُ"]), ("العربية", ["العـــربية"]), ('"كتب الطالب"', ["كَتَبَ", "الطَّالِبُ"])):
            hit = keyword.search(b.conn, query)[0]
            assert hit["slug"] == "ar/a" and "كَتَبَ الطَّالِبُ الدَّرْسَ في العـــربية رابط" in hit["snippet"], (query, hit)
            # (SQLite marks a phrase as one hit, Postgres each word)
            assert " ".join(hit["snippet"][x:y] for x, y in hit["highlights"]) == " ".join(words), (query, hit)


def test_the_v79_migration_reads_frontmatter_of_either_engine(tmp_path, db_path):
    # (Postgres hands jsonb back as a dict: the page selected by its frontmatter's tatweel is parsed
    # again, its value's bare word found; a page with a tag only gets its indexed text, no parse)
    from gbrain.storage import db as dbmod

    notes = {"ar/f.md": "---\nsubject: العـــربية\n---\n# نص\n\nنص\n", "web/t.md": "# T\n\n<div class=\"box\">Visible</div>\n"}
    with Brain.open(db_path) as b:
        import_tree(b, write_tree(tmp_path / "v", notes))
        fresh = b.conn.execute("SELECT slug, search_body, search_words FROM pages ORDER BY slug").fetchall()
        b.conn.execute("UPDATE pages SET search_body = NULL, search_words = ''")
        b.conn.commit()
        assert found(b, "العربية") == [] and found(b, "box") == ["web/t"]
        assert dbmod.rederive_unread_and_bare_pages(b.conn) == 2
        b.conn.commit()
        assert b.conn.execute("SELECT slug, search_body, search_words FROM pages ORDER BY slug").fetchall() == fresh
        assert found(b, "العربية") == ["ar/f"] and found(b, "box") == [] and found(b, "visible") == ["web/t"]
