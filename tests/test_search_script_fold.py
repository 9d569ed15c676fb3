"""Russian ``ё`` and Greek accents (tonos, dialytika) fold in keyword search, both ways, on both
engines (SQLite v68 / Postgres v73): Russian is nearly always typed with ``е`` for ``ё`` (``еж``,
``елка``, ``Королев``) and Greek without its tonos (``Αθηνα``, capitals drop it anyway), so a
query typed either way finds the page written the other way (unicode61's ``remove_diacritics``
folds Latin letters only, and Postgres' ``gb_fold`` the same characters). The query's words are
read so (``keyword.search_form``) and a page's words holding such a letter are indexed beside
them so (``compat_words`` in ``search_words``; a name's in ``search_fold_names``); the page text
is never folded. Both engines (``--engine postgres``)."""
from __future__ import annotations

import re

import pytest

from gbrain.core.brain import Brain
from gbrain.search import keyword
from gbrain.sync.importer import import_tree
from gbrain.sync.verify import fresh_import_differences

from conftest import search_brain, search_slugs as slugs, write_tree

# the pages, written before any search; each query below names the page it must find
NOTES = {
    "films/Ёжик в тумане.md": "# Ёжик в тумане\n\nМультфильм Юрия Норштейна, 1975. Ёжик идёт к Медвежонку считать звёзды.\n",
    "animals/ёж.md": "# Ёж обыкновенный\n\nЁж — ночное животное, ест жуков и червей.\n",
    "people/Сергей Королёв.md": "# Сергей Королёв\n\nГлавный конструктор ракетно-космических систем, руководил запуском спутника.\n",
    "notes/новый-год.md": "# Новый год\n\nНаряжаем ёлку во дворе. Ёлка стоит до января.\n",
    "notes/лес.md": "# Зимний лес\n\nВ лесу растут елки и сосны, под ними еж нашел грибы.\n",
    "places/Αθήνα.md": "# Αθήνα\n\nΗ πρωτεύουσα της Ελλάδας, με την Ακρόπολη και τον Παρθενώνα.\n",
    "notes/ταξίδι.md": "# Ταξίδι\n\nΤο καλοκαίρι πήγαμε στη Θεσσαλονίκη και στο Ηράκλειο με το πλοίο.\n",
    "notes/ΟΔΗΓΟΣ.md": "# ΟΔΗΓΟΣ ΠΟΛΗΣ\n\nΤΟ ΚΕΝΤΡΟ ΤΗΣ ΠΟΛΗΣ ΚΑΙ ΤΑ ΜΟΥΣΕΙΑ.\n",
    **{f"filler/f{i}.md": f"# Заметка {i}\n\nОбычный текст {i} про работу и погоду, λίγο κείμενο.\n" for i in range(12)},
}


brain = search_brain(NOTES)


def test_russian_typed_with_e_finds_the_page_written_with_yo(brain):
    assert slugs(brain, "ежик в тумане")[0] == "films/Ёжик в тумане"
    assert slugs(brain, "Ежик")[0] == "films/Ёжик в тумане"
    assert slugs(brain, "еж")[:2] == ["animals/ёж", "notes/лес"] or set(slugs(brain, "еж")[:2]) == {"animals/ёж", "notes/лес"}
    assert slugs(brain, "елка")[0] == "notes/новый-год"  # (ёлку, Ёлка; the Russian stem's prefix елк*)
    assert slugs(brain, "звезды")[0] == "films/Ёжик в тумане"
    assert slugs(brain, "Королев")[0] == "people/Сергей Королёв"
    assert slugs(brain, "Сергей Королев")[0] == "people/Сергей Королёв"


def test_russian_typed_with_yo_finds_the_page_written_with_e(brain):
    assert "notes/лес" in slugs(brain, "ёлки")
    assert "notes/лес" in slugs(brain, "ёж")
    assert slugs(brain, "Ёжик")[0] == "films/Ёжик в тумане"  # (as typed still first)
    assert slugs(brain, "Королёв")[0] == "people/Сергей Королёв"


def test_greek_with_or_without_tonos(brain):
    assert slugs(brain, "Ακροπολη")[0] == "places/Αθήνα"
    assert slugs(brain, "παρθενωνα")[0] == "places/Αθήνα"
    assert slugs(brain, "Θεσσαλονικη Ηρακλειο")[0] == "notes/ταξίδι"
    assert slugs(brain, "Αθηνα")[0] == "places/Αθήνα"
    # a query typed with tonos finds text written without (Greek capitals drop it)
    assert slugs(brain, "κέντρο")[0] == "notes/ΟΔΗΓΟΣ"
    assert slugs(brain, "Μουσεία")[0] == "notes/ΟΔΗΓΟΣ"
    assert slugs(brain, "Οδηγός")[0] == "notes/ΟΔΗΓΟΣ"


def test_the_snippet_marks_the_word_as_the_page_writes_it(brain):
    h = keyword.search(brain.conn, "звезды", limit=1)[0]
    marked = [h["snippet"][a:z] for a, z in h["highlights"]]
    assert marked == ["звёзды"], h
    h = keyword.search(brain.conn, "Ακροπολη", limit=1)[0]
    assert [h["snippet"][a:z] for a, z in h["highlights"]] == ["Ακρόπολη"], h


def test_a_name_typed_with_its_letters_comes_first(tmp_path, db_path):
    """Both spellings of a name are pages: each query puts the one spelled as typed first, the
    other second (``TYPED_LETTERS_WIN`` for ``ё`` as for ``æ``)."""
    notes = {
        "people/Сергей Королёв.md": "# Сергей Королёв\n\nКонструктор ракет.\n",
        "people/Сергей Королев.md": "# Сергей Королев\n\nБухгалтер из Твери.\n",
        "places/Αθήνα.md": "# Αθήνα\n\nΠρωτεύουσα.\n",
        "places/Αθηνα.md": "# Αθηνα\n\nΧωριό.\n",
        **{f"filler/f{i}.md": f"# Заметка {i}\n\nТекст {i}.\n" for i in range(10)},
    }
    with Brain.open(db_path) as b:
        import_tree(b, write_tree(tmp_path / "vault", notes))
        assert slugs(b, "Сергей Королёв")[:2] == ["people/Сергей Королёв", "people/Сергей Королев"]
        assert slugs(b, "Сергей Королев")[:2] == ["people/Сергей Королев", "people/Сергей Королёв"]
        assert slugs(b, "Королёв")[:2] == ["people/Сергей Королёв", "people/Сергей Королев"]
        assert slugs(b, "Αθήνα")[:2] == ["places/Αθήνα", "places/Αθηνα"]
        assert slugs(b, "Αθηνα")[:2] == ["places/Αθηνα", "places/Αθήνα"]
        assert fresh_import_differences(b) == {}


def test_the_page_text_is_never_folded(brain):
    text = brain.conn.execute("SELECT compiled_truth FROM pages WHERE slug = 'animals/ёж'").fetchone()[0]
    assert "Ёж — ночное" in text
    assert fresh_import_differences(brain) == {}


def test_an_upgraded_brain_folds_as_a_fresh_import(tmp_path, db_path):
    """A brain made before (SQLite v67 / Postgres v72) holds no folded words for ``ё`` and Greek
    accents: on open the pages holding such a letter get them (``search_words``,
    ``search_fold_names``), the others are not written, and the brain equals a fresh import."""
    from test_obsidian_trial import _rewind

    from gbrain.storage import db as dbmod
    from gbrain.storage import pg

    with Brain.open(db_path, create=True) as b:
        import_tree(b, write_tree(tmp_path / "v", {**NOTES, "notes/plain.md": "---\nstatus: draft\n---\nPlain text, über alles.\n"}))
        want = {q: slugs(b, q) for q in ("Ежик", "елка", "Ακροπολη", "κέντρο", "Королев")}
        with b.transaction():  # the words the search fold before v68 wrote: none for these letters
            b.conn.execute("UPDATE pages SET search_words = '', search_fold_names = '' WHERE slug <> 'notes/plain'")
            _rewind(b.conn, pg._script_letter_words, dbmod._m68_script_letter_words)
        assert slugs(b, "Ежик") == []
        plain = b.conn.execute("SELECT search_words FROM pages WHERE slug = 'notes/plain'").fetchone()[0]
        assert plain == "draft"
    with Brain.open(db_path) as b:
        assert {q: slugs(b, q) for q in want} == want
        assert b.conn.execute("SELECT search_fold_names FROM pages WHERE slug = 'films/Ёжик в тумане'").fetchone()[0] == "Ежик"
        assert fresh_import_differences(b) == {}


def test_a_word_search_finds_folded_is_no_typo(tmp_path, db_path):
    """did-you-mean reads a word as search does (``search_form``): ``ёлки`` over a brain writing
    ``елки``, ``κέντρο`` over ``ΚΕΝΤΡΟ`` and ``Łukasz`` over ``Lukasz`` are found, so no page
    lacks them (it said `did you mean: "елки"? (no page holds "ёлки")` beside the hit)."""
    from gbrain import operations as ops
    from gbrain.search import spell

    notes = {"les.md": "# Зимний лес\n\nВ лесу растут елки и сосны.\n", "od.md": "# ΟΔΗΓΟΣ\n\nΤΟ ΚΕΝΤΡΟ ΤΗΣ ΠΟΛΗΣ.\n",
             "lu.md": "# Lukasz\n\nLukasz notes.\n"}
    with Brain.open(db_path) as b:
        import_tree(b, write_tree(tmp_path / "vault", notes))
        for query, slug in (("ёлки", "les"), ("κέντρο", "od"), ("Łukasz", "lu")):
            said: list[str] = []
            r = ops.run_tool("search", {"query": query}, ops.Context(surface="mcp", on_warning=said.append), brain=b)
            assert [h["slug"] for h in r["items"]] == [slug] and said == [], (query, said)
            assert spell.holds(b.conn, query) and spell.suggest(b.conn, query) is None
        assert spell.suggest(b.conn, "сосбы") is not None  # (a typo still is)


@pytest.mark.engine_free
def test_the_fold_map_one_for_one_equals_piece_by_piece(monkeypatch):
    """``_fold_map`` folds a text (or run) whole where that is one character for one (Cyrillic,
    Greek, accented text: 611 → 60 ms over obsidian-help's 173 Russian pages, now marked in Python
    for their ``ё``); the map is the one the piece-by-piece loop gives."""
    texts = ["Ёжик идёт к Медвежонку считать звёзды.", "Η Ακρόπολη, ΐ ΰ ἀρχή ᾳ", "Łódź Straße ﬁnancial ＧＰＴ４ x²",
             "моло\u0301ко и\u0306 e\u0301 café", "mixed Björn 重跑gen-itgc后 …  end", "𝐀𝐁 😀 ё", "ß ẞ Σίσυφος ς", ""]
    fast = [keyword._fold_map(t) for t in texts]
    monkeypatch.setattr(keyword, "_fold_run", lambda run: None)
    slow = [keyword._fold_map(t) for t in texts]
    for t, (f1, s1, e1), (f2, s2, e2) in zip(texts, fast, slow):
        assert (f1, list(s1), list(e1)) == (f2, list(s2), list(e2)), t
    assert fast[0][0] == "ежик идет к медвежонку считать звезды."


def test_a_quoted_phrase_holding_a_folded_letter_finds_the_page_as_typed(tmp_path, db_path):
    """A quoted phrase is searched in its folded form (``"елочные игрушки"``) and as typed
    (``"ёлочные игрушки"``): the folded words a page holds (``search_words``) are no phrase, so
    the phrase typed as the page writes it found nothing after the fold (it did before v68); the
    same for ``ß`` (``"Straße financial"``) and Greek accents. Both engines."""
    notes = {"a.md": "# Alpha\n\nМы ели ёлочные игрушки. Straße financial world.\n",
             "g.md": "# Gamma\n\nἩ Ἀκρόπολη τῆς πόλης.\n",
             "e.md": "# Epsilon\n\nНовые елочные игрушки в коробке.\n",
             **{f"f{i}.md": f"# Заметка {i}\n\nТекст {i} погода.\n" for i in range(8)}}
    with Brain.open(db_path) as b:
        import_tree(b, write_tree(tmp_path / "vault", notes))
        for query, want in (('"ёлочные игрушки"', "a"), ('"Straße financial"', "a"), ('"Ἀκρόπολη τῆς"', "g"),
                            ('"елочные игрушки"', "e"), ('"ёлочные игрушки" коробке', "a")):
            hits = keyword.search(b.conn, query, limit=5)
            assert want in [h["slug"] for h in hits], (query, hits)
            h = next(h for h in hits if h["slug"] == want)
            assert h["highlights"], (query, h)
        assert {h["slug"] for h in keyword.search(b.conn, '"ёлочные игрушки"', limit=5)} == {"a", "e"}


def test_a_page_marked_in_python_marks_the_russian_forms_search_found(tmp_path, db_path):
    """A Russian query word is searched as its stem's prefix (``игрушкам`` → ``игрушк*``): a page
    holding ``ё`` (marked in Python, ``_mark_words``) marks the form it writes, as a page without
    is marked by the engine (it found the page and marked nothing: ``игрушки``, ``звёзды``)."""
    notes = {"a.md": "# Alpha\n\nМы купили ёлочные игрушки и звёзды.\n", "b.md": "# B\n\nКупили новые игрушки в магазине.\n",
             **{f"f{i}.md": f"# Заметка {i}\n\nТекст {i} погода.\n" for i in range(8)}}
    with Brain.open(db_path) as b:
        import_tree(b, write_tree(tmp_path / "vault", notes))
        for query, want in (("игрушкам", ["игрушки"]), ("звездам", ["звёзды"]), ("ёлочной", ["ёлочные"])):
            h = next(h for h in keyword.search(b.conn, query, limit=5) if h["slug"] == "a")
            assert [h["snippet"][x:y] for x, y in h["highlights"]] == want, (query, h)


def test_a_quoted_phrase_typed_folded_finds_the_page_writing_it_with_the_letter(tmp_path, db_path):
    """A quoted phrase typed without ``ё`` or Greek accents (``"елочные игрушки"``, ``"κεντρο της
    πολης"``) finds the page writing the phrase with them (``ёлочные игрушки``): the phrase is
    searched in every spelling the index holds of its words (``keyword.phrase_spellings``); it
    found only the pages writing it folded (the page's folded words in ``search_words`` are no
    phrase). Both engines."""
    notes = {"a.md": "# Alpha\n\nМы ели ёлочные игрушки. Straße financial world.\n",
             "e.md": "# Epsilon\n\nНовые елочные игрушки в коробке.\n",
             "k.md": "# Kappa\n\nΤο κέντρο της πόλης είναι μικρό.\n",
             "n.md": "# Nu\n\nОни ели игрушки и елочные шары.\n",  # (the words apart: no phrase)
             **{f"f{i}.md": f"# Заметка {i}\n\nТекст {i} погода.\n" for i in range(8)}}
    with Brain.open(db_path) as b:
        import_tree(b, write_tree(tmp_path / "vault", notes))
        assert {h["slug"] for h in keyword.search(b.conn, '"елочные игрушки"', limit=5)} == {"a", "e"}
        assert {h["slug"] for h in keyword.search(b.conn, '"Елочные Игрушки" коробке', limit=5)} >= {"a", "e"}
        assert [h["slug"] for h in keyword.search(b.conn, '"κεντρο της πολης"', limit=5)] == ["k"]
        assert [h["slug"] for h in keyword.search(b.conn, '"ΚΕΝΤΡΟ ΤΗΣ"', limit=5)] == ["k"]
        h = next(h for h in keyword.search(b.conn, '"елочные игрушки"', limit=5) if h["slug"] == "a")
        assert [h["snippet"][x:y] for x, y in h["highlights"]] == ["ёлочные", "игрушки"], h


CANVAS = {"nodes": [
    {"id": "c1", "type": "text", "text": "Купить ёлочные игрушки до праздника", "x": 0, "y": 0, "width": 300, "height": 60},
    {"id": "c2", "type": "text", "text": "Επίσκεψη στην Ακρόπολη το πρωί", "x": 0, "y": 100, "width": 300, "height": 60},
    {"id": "c3", "type": "text", "text": "Поход в горы вѐчер, ѝ планѝна", "x": 0, "y": 200, "width": 300, "height": 60}]}


def _canvas_brain(tmp_path, db_path):
    import json
    notes = {f"f{i}.md": f"# Заметка {i}\n\nТекст {i} погода, λίγο κείμενο.\n" for i in range(8)}
    b = Brain.open(db_path)
    import_tree(b, write_tree(tmp_path / "vault", notes))
    b.save_file("boards/Праздник.canvas", json.dumps(CANVAS, ensure_ascii=False).encode())
    return b


def _canvas_nodes(b, query: str) -> list[str]:
    return [h.get("node") for h in keyword.search(b.conn, query, limit=5) if h["type"] == "canvas"]


def test_canvas_cards_fold_as_pages(tmp_path, db_path):
    """A canvas's text cards are searched with the pages' fold: a word typed without ``ё`` or a
    Greek accent finds the card writing it with one, and a quoted phrase is searched folded, as
    typed and in the spellings the cards hold (it was searched folded only: ``"ёлочные
    игрушки"`` found no card writing it). Both engines."""
    with _canvas_brain(tmp_path, db_path) as b:
        for query, node in (("елочные", "c1"), ("Ακροπολη", "c2"), ('"ёлочные игрушки"', "c1"), ('"елочные игрушки"', "c1"),
                            ('"Ακρόπολη το"', "c2"), ('"ακροπολη το πρωι"', "c2")):
            assert _canvas_nodes(b, query) == [node], query
            h = next(h for h in keyword.search(b.conn, query, limit=5) if h["type"] == "canvas")
            assert h["highlights"], (query, h)


def test_an_upgraded_brain_folds_canvas_cards_as_a_fresh_import(tmp_path, db_path):
    """Cards stored before SQLite v70 / Postgres v75 (v68/v73 re-derived pages only) get their
    folded words on open (``canvas_cards.words``), as a fresh import writes them."""
    from test_obsidian_trial import _rewind

    from gbrain.storage import db as dbmod
    from gbrain.storage import pg

    with _canvas_brain(tmp_path, db_path) as b:
        want = {q: _canvas_nodes(b, q) for q in ("елочные", "Ακροπολη", "вечер", "планина")}
        assert all(want.values()), want
        with b.transaction():
            for (cid,) in b.conn.execute("SELECT id FROM canvas_cards").fetchall():
                dbmod.set_card_words(b.conn, cid, "")
            _rewind(b.conn, pg._canvas_folds, dbmod._m70_canvas_folds)
        assert _canvas_nodes(b, "елочные") == []
    with Brain.open(db_path) as b:
        assert {q: _canvas_nodes(b, q) for q in want} == want
        assert fresh_import_differences(b) == {}


def test_a_prefix_query_marks_the_words_it_found(brain):
    """A prefix query (``ёж*``, ``Ακρ*``) marks in a page marked in Python the whole words the
    search matched, folded too (it marked only the letters typed: ``Ёж`` of ``Ёжик``)."""
    for query, slug, want in (("ёж*", "films/Ёжик в тумане", {"Ёжик"}), ("еж*", "films/Ёжик в тумане", {"Ёжик"}),
                              ("Ακρ*", "places/Αθήνα", {"Ακρόπολη"}), ("ακροπ*", "places/Αθήνα", {"Ακρόπολη"})):
        h = next(h for h in keyword.search(brain.conn, query, limit=10) if h["slug"] == slug)
        assert {h["snippet"][x:y] for x, y in h["highlights"]} == want, (query, h)


def test_macedonian_and_bulgarian_grave_accents_fold(tmp_path, db_path):
    """``ѐ ѝ`` (and ``Ѐ Ѝ``: a grave marking stress in Macedonian and Bulgarian) are ``е и`` with an
    accent and fold as Greek accents do, both ways (SQLite v70 / Postgres v75); ``й ї ў`` are
    letters of their own and stay."""
    notes = {"m.md": "# Охрид\n\nВо вѐчер одиме на планѝна. ЃАЛЕРИЈА Ѐ ОТВОРЕНА\n",
             "b.md": "# Вечер\n\nТихая вечер в горах, планина спит.\n",
             "y.md": "# Мой\n\nМой дом и мои книги.\n",
             **{f"f{i}.md": f"# Заметка {i}\n\nТекст {i} погода.\n" for i in range(8)}}
    with Brain.open(db_path) as b:
        import_tree(b, write_tree(tmp_path / "vault", notes))
        assert {h["slug"] for h in keyword.search(b.conn, "вечер", limit=5)} == {"m", "b"}
        assert {h["slug"] for h in keyword.search(b.conn, "вѐчер", limit=5)} == {"m", "b"}
        assert {h["slug"] for h in keyword.search(b.conn, "планина", limit=5)} == {"m", "b"}
        assert {h["slug"] for h in keyword.search(b.conn, "ПЛАНЍНА", limit=5)} == {"m", "b"}
        h = next(h for h in keyword.search(b.conn, "планина", limit=5) if h["slug"] == "m")
        assert [h["snippet"][x:y] for x, y in h["highlights"]] == ["планѝна"], h
        assert fresh_import_differences(b) == {}


@pytest.mark.engine_free
def test_letters_of_their_own_do_not_fold():
    from gbrain.page.slugs import SCRIPT_FOLD, fold_letters

    assert fold_letters("ѐѝЀЍ") == "еиЕИ"
    assert not set("йЙїЇўЎ") & set(SCRIPT_FOLD)
    assert fold_letters("мой її ўсё") == "мой її ўсе"


@pytest.mark.engine_free
def test_a_phrase_words_spellings_reach_its_last_letters():
    """Every one-letter spelling of a phrase word comes before the two-letter ones, so the cap
    (``WORD_SPELLINGS``) keeps ``ё`` late in a word of many ``е``."""
    spellings = keyword._word_spellings("переименованиееееееее")
    assert len(spellings) <= keyword.WORD_SPELLINGS and "переименованиееееееёе" in spellings
    assert keyword._word_spellings("елочные")[:2] == ["ёлочные", "ѐлочные"] and keyword._word_spellings("мой") == []


def test_a_phrases_spellings_are_looked_up_once_a_search_and_only_for_held_words(tmp_path, db_path, monkeypatch):
    """A search reads a quoted phrase's spellings once (the ranking and the canvases took them
    again: three lookups of every spelling a search), and looks up only the spellings of the
    folded words some page or card holds (a page holding ``ёлочные`` holds ``елочные`` in its
    search words): a phrase of words no page holds cost ~15 ms CPU a phrase on obsidian-help
    (64 spellings a word, a term lookup each), 20 such phrases 845 ms a search (13 before
    v70). The phrase is still found in the spelling the card and the page write. Both engines."""
    asked: list[list[str]] = []
    real = keyword._held_terms
    monkeypatch.setattr(keyword, "_held_terms", lambda c, terms: asked.append(list(terms)) or real(c, terms))
    with _canvas_brain(tmp_path, db_path) as b:
        b.put("toys", "# Toys\n\nКупили ёлочные игрушки вчера.\n")
        asked.clear()
        hits = keyword.search(b.conn, '"елочные игрушки" "пелене неведения"', limit=5)
        assert {h["slug"] for h in hits} == {"toys", "boards/Праздник.canvas"}, hits
        assert len(asked) == 2, asked  # the folded words, then the spellings of those held
        assert asked[0] == ["елочные", "игрушки", "пелене", "неведения"], asked
        fold = str.maketrans({"ё": "е", "ѐ": "е", "ѝ": "и"})
        assert {w.translate(fold) for w in asked[1]} <= {"елочные", "игрушки"}, asked[1]
        asked.clear()
        many = " ".join(f'"пелене неведения слово{i} менее веселее"' for i in range(20))
        keyword.search(b.conn, many, limit=5)
        assert sum(map(len, asked)) <= keyword.NAME_WORDS, asked


def test_the_card_refold_reads_the_cards_in_batches_and_misses_none(tmp_path, db_path):
    """``db.refold_canvas_cards`` (SQLite v70 / Postgres v75) reads the cards 500 at a time by id
    (``db.keyset_batches``: Postgres' cursor holds a whole answer in memory; it read every card's
    text in one answer) and still writes the words of each card whose words differ, first batch or
    last, and no other; SQLite's ``canvas_fts`` stays sound and the brain equals a fresh import."""
    import json

    from gbrain.storage import db as dbmod

    nodes = [{"id": f"n{i}", "type": "text", "text": f"Карточка {i}: ёлка номер {i}" if i % 3 else f"card {i} ascii",
              "x": 0, "y": i * 10, "width": 100, "height": 10} for i in range(1203)]
    changed = (1, 499, 500, 502, 1001, 1202)
    with Brain.open(db_path) as b:
        import_tree(b, write_tree(tmp_path / "vault", {f"f{i}.md": f"# F{i}\n\nТекст {i}.\n" for i in range(4)}))
        b.save_file("boards/big.canvas", json.dumps({"nodes": nodes}, ensure_ascii=False).encode())
        ids = [r[0] for r in b.conn.execute("SELECT id FROM canvas_cards ORDER BY id")]
        assert len(ids) == 1203
        with b.transaction():
            for i in changed:
                dbmod.set_card_words(b.conn, ids[i], "")
        conn, reads = b.conn, []

        class Counting:  # counts the rows each read of the cards hands back
            dialect = getattr(conn, "dialect", "sqlite")

            def execute(self, sql, params=()):
                if not (sql.startswith("SELECT") and "FROM canvas_cards" in sql and "words" in sql.split("FROM")[0]):
                    return conn.execute(sql, params)
                rows = conn.execute(sql, params).fetchall()
                reads.append(len(rows))
                return _Rows(rows)

        with b.transaction():
            assert dbmod.refold_canvas_cards(Counting()) == len(changed)
        assert max(reads) <= 500 and sum(reads) == 1203, reads
        if getattr(conn, "dialect", "sqlite") == "sqlite":
            conn.execute("INSERT INTO canvas_fts(canvas_fts, rank) VALUES ('integrity-check', 1)")
        assert fresh_import_differences(b) == {}


class _Rows(list):
    def fetchall(self):
        return list(self)

    def fetchone(self):
        return self[0] if self else None


@pytest.mark.engine_free
def test_a_prefix_marks_to_its_words_end_only_where_the_engine_reads_one_word():
    """A prefix query marks the words it matched to their end (``ёж*`` → ``Ёжик``), but a CJK run
    is no word (it is searched as bigrams: ``日本*`` matches the bigram ``日本``, never the run),
    and ``_`` ends a word for the tokenizer: ``日本*`` marked the whole run ``日本語の説明文です``,
    ``ab*`` the whole ``ab_cd``."""
    def marked(text: str, query: str) -> list[str]:
        m = keyword._mark_words(text, query)
        return re.findall("\x02(.*?)\x03", m or "")

    assert marked("日本語の説明文です。東京も。", "日本*") == ["日本"]
    assert marked("ab_cd abcd", "ab*") == ["ab", "abcd"]
    assert marked("Ёжик и ежи", "ёж*") == ["Ёжик", "ежи"]
    assert marked("the cabinet", "abi*") == []


@pytest.mark.engine_free
def test_a_phrases_spellings_push_no_query_word_out_of_postgres_terms():
    """On Postgres each spelling of a phrase is a term of its own (:func:`keyword.pg_parts`), and
    the terms were cut at ``NAME_WORDS`` (16) together: two phrases in their eight spellings each
    (``keyword.PHRASE_SPELLINGS``) left out the query's other words, which SQLite (one term a
    phrase: ``("…" OR "…")``) searched. The words the query writes count; a phrase's other
    spellings come with it, at most ``NAME_WORDS`` of them."""
    text = '"все ее это еще" "где ее нет тоже" коробке'
    alts = ["всё её это ещё", "всё ее это ещё", "все её это ещё", "всё её это еще", "все ее это ещё", "всё ее это еще", "все её это еще", "всё её эту ещё"]
    alts2 = ["где её нет тоже", "где её нёт тоже", "где ее нёт тоже", "где её нет тожё", "гдё её нет тоже", "где ее нет тожё", "гдё ее нет тоже", "гдё её нёт тоже"]
    spellings = (text, *(f'"{a}" "{b}" коробке' for a, b in zip(alts, alts2)))
    parts = keyword.pg_parts(text, spellings)
    assert ("prefix", "коробк") in parts, parts  # (a Russian word: its stem's prefix)
    assert ("phrase", "все ее это еще") in parts and ("phrase", "где ее нет тоже") in parts, parts
    assert len(parts) <= 2 * keyword.NAME_WORDS and ("phrase", "всё её это ещё") in parts, parts


def test_a_long_phrase_spells_only_the_words_it_looks_up(tmp_path, db_path, monkeypatch):
    """A phrase's words past its first ``NAME_WORDS`` are never looked up in other spellings, so
    none is spelled (every word of a 3,000-word phrase got its 64 spellings: 135 ms CPU of a
    237 ms search on obsidian-help); the phrase is still found as the page writes it. Both engines."""
    spelled: list[str] = []
    real = keyword._word_spellings
    monkeypatch.setattr(keyword, "_word_spellings", lambda w: spelled.append(w) or real(w))
    with Brain.open(db_path) as b:
        import_tree(b, write_tree(tmp_path / "vault", {"a.md": "# A\n\nМы ели ёлочные игрушки.\n",
                                                       **{f"f{i}.md": f"# F{i}\n\nТекст {i}.\n" for i in range(4)}}))
        long = '"' + " ".join(["мелет"] * 200 + ["ели", "елочные", "игрушки"]) + '"'
        keyword.search(b.conn, long, limit=5)
        assert len(spelled) <= keyword.NAME_WORDS, len(spelled)
        assert [h["slug"] for h in keyword.search(b.conn, '"ели елочные игрушки"', limit=5)] == ["a"]
