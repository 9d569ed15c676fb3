"""A name typed without its accents or its own letters is still the page's exact name: "Zoe Kim"
names the page titled "Zoë Kim" and "Lukasz Nowak" the page "Łukasz Nowak" (the exact-name bonus,
at :data:`~gbrain.search.keyword.PLURAL_EXACT_SHARE` of it: a page named as typed comes first),
by its title, file name, aliases and H1 name, through the indexed folded keys of ``name_folds``
(``slugs.fold_name``: NFKC without its accents, ``drop_accents``, since v67 / v72 no other mark, ``fold_letters``,
casefold; SQLite v56, Postgres v60).
The put's accent-twin check reads the same keys. Both engines (``--engine postgres``)."""
from __future__ import annotations

import pytest

from gbrain.core.brain import Brain
from gbrain.page.slugs import fold_loose_key, fold_name, fold_title_key
from gbrain.search import keyword
from gbrain.sync.importer import import_tree
from gbrain.sync.verify import fresh_import_differences

from conftest import search_brain, search_hits as hits, search_slugs as slugs, write_tree

NOTES = {
    "people/zoë-kim.md": "# Zoë Kim\n\nEngineer at Chip Pay.\n",
    # close competitors: the name's words in their titles, and many times in their text
    "notes/kim-zoe.md": "# Kim and Zoe sync\n\nZoe Kim and Kim Lee. Zoe Kim again.\n",
    "notes/zoe-kimball-notes.md": "# Zoe Kimball notes\n\n" + "Zoe Kim said the launch slips. Kim agreed with Zoe Kim.\n" * 6,
    "people/łukasz-nowak.md": "# Łukasz Nowak\n\nPartner.\n",
    "notes/lukasz-nowak-calls.md": "# Lukasz Nowak calls\n\n" + "Lukasz Nowak called about the Nowak Lukasz deal.\n" * 6,
    # an alias and an H1 name with accents, a file name with one
    "people/ss.md": "---\naliases: [Søren Iyer]\n---\n# Sam S\n\nSoren Iyer met Soren Iyer at Soren Iyer's.\n",
    "notes/d-hal.md": "---\ntitle: DH\n---\n# Đorđe Hal\n\nDorde Hal visits.\n",
    "notes/dorde-hal-visits.md": "# Dorde Hal visits\n\n" + "Dorde Hal came; Dorde Hal left.\n" * 5,
    "places/straße.md": "---\ntitle: Office\n---\nWhere the office is.\n",
    "notes/strasse-notes.md": "# Strasse notes\n\nstrasse strasse strasse\n",
    # trial 42: a note writing "Wroclaw" three times ranked above the page titled Wrocław
    "places/Wrocław.md": "A city in Poland.\n",
    "notes/trip.md": "# Trip\n\nWroclaw, then Wroclaw again, and Wroclaw.\n",
}


brain = search_brain(NOTES)


def score(b, query: str, slug: str) -> float:
    return next(h["score"] for h in hits(b, query, 10) if h["slug"] == slug)


@pytest.mark.engine_free
def test_the_folded_keys():
    assert fold_name("Zoë Kim") == "zoe kim" and fold_name("Łukasz Straße Æther") == "lukasz strasse aether"
    assert fold_title_key("Zoë Kim") == "zoe-kim" == fold_title_key("ZOE KIM")
    assert fold_title_key("TCP/ÏP") == "tcp-ip" and fold_loose_key("TCP/ÏP") == "ip"
    assert fold_loose_key("people/Søren Iyer.md") == "soren-iyer"


def test_a_name_typed_without_its_accents_is_the_pages_exact_name(brain):
    assert slugs(brain, "Zoe Kim")[0] == "people/zoë-kim"
    # the bonus at PLURAL_EXACT_SHARE: the rest of the score is the same as the accented query's
    shortfall = (1 - keyword.PLURAL_EXACT_SHARE) * keyword.EXACT_WEIGHT
    assert score(brain, "Zoe Kim", "people/zoë-kim") == pytest.approx(score(brain, "Zoë Kim", "people/zoë-kim") - shortfall, abs=1e-6)
    assert "title" in hits(brain, "zoe kim")[0]["signals"]


def test_letters_no_decomposition_folds_too(brain):
    """Lost before: "Lukasz Nowak calls" (its words in the title and six times in the text) ranked first."""
    assert slugs(brain, "Lukasz Nowak")[0] == "people/łukasz-nowak"
    assert slugs(brain, "Łukasz Nowak")[0] == "people/łukasz-nowak"
    assert slugs(brain, "Wroclaw")[:2] == ["places/Wrocław", "notes/trip"]


def test_an_alias_an_h1_name_and_a_file_name_fold(brain):
    top = hits(brain, "Soren Iyer")[0]
    assert top["slug"] == "people/ss" and "alias" in top["signals"]
    top = hits(brain, "Dorde Hal")[0]
    assert top["slug"] == "notes/d-hal" and "alias" in top["signals"]
    top = hits(brain, "strasse")[0]
    assert top["slug"] == "places/straße" and "path" in top["signals"]


def test_a_page_named_as_typed_comes_before_its_accent_twin(brain):
    brain.put("people/zoe-kim", "# Zoe Kim\n\nEngineer at Chip Pay.\n")
    assert slugs(brain, "Zoe Kim")[:2] == ["people/zoe-kim", "people/zoë-kim"]
    assert slugs(brain, "Zoë Kim")[:2] == ["people/zoë-kim", "people/zoe-kim"]


def test_saves_renames_and_deletes_keep_the_keys(brain):
    def folds(slug: str) -> list[tuple]:
        return sorted(tuple(r) for r in brain.conn.execute("SELECT f.kind, f.key FROM name_folds f JOIN pages p ON p.id = f.page_id WHERE p.slug = ?", (slug,)))

    assert folds("people/zoë-kim") == [("path", "zoe-kim"), ("title", "zoe-kim")]
    brain.put("people/zoë-kim", "---\ntitle: Zoë Park\naliases: [Zoë P, Zoe Q]\n---\n\n# Zoë Kim-Park\n\nEngineer.\n")
    assert folds("people/zoë-kim") == [("alias", "zoe-p"), ("h1", "zoe-kim-park"), ("path", "zoe-kim"), ("title", "zoe-park")]
    assert slugs(brain, "Zoe Park")[0] == "people/zoë-kim" and slugs(brain, "zoe p")[0] == "people/zoë-kim"
    brain.put("people/zoë-kim", "# Zoe Kim\n")
    assert folds("people/zoë-kim") == [("path", "zoe-kim")]
    brain.delete_page("people/łukasz-nowak")
    assert "people/łukasz-nowak" not in slugs(brain, "Lukasz Nowak")
    assert not brain.conn.execute("SELECT 1 FROM name_folds f LEFT JOIN pages p ON p.id = f.page_id WHERE p.id IS NULL").fetchall()
    assert fresh_import_differences(brain) == {}


def test_an_upgraded_brain_fills_the_keys_and_equals_a_fresh_import(tmp_path, db_path):
    """A brain made before (SQLite v55 / Postgres v59) has no ``name_folds``: on open they are
    filled for every page (only that table: the other rows keep their ids), and the brain equals
    a fresh import of its tree."""
    from test_obsidian_trial import _rewind

    from gbrain.storage import db as dbmod
    from gbrain.storage import pg

    with Brain.open(db_path, create=True) as b:
        import_tree(b, write_tree(tmp_path / "v", NOTES))
        ids = b.conn.execute("SELECT max(id) FROM tags").fetchone()[0], b.conn.execute("SELECT max(id) FROM links").fetchone()[0]
        with b.transaction():
            b.conn.execute("DROP TABLE name_folds")
            _rewind(b.conn, pg._name_folds, dbmod._m56_name_folds)
    with Brain.open(db_path) as b:
        assert slugs(b, "Lukasz Nowak")[0] == "people/łukasz-nowak"
        assert b.conn.execute("SELECT count(*) FROM name_folds").fetchone()[0] >= 5
        assert (b.conn.execute("SELECT max(id) FROM tags").fetchone()[0], b.conn.execute("SELECT max(id) FROM links").fetchone()[0]) == ids
        assert fresh_import_differences(b) == {}


def test_the_put_twin_check_reads_the_folded_keys(brain):
    """A put to a name that is a page's but for accents or letters is refused naming the page
    (``operations/core.py: _letter_twins``), by file name in a folder and by title for a bare name."""
    from gbrain.errors import BadInput
    from gbrain.operations.core import _letter_twins, _check_spelling_twin

    class Ctx:
        agent = True

        def flag(self, name):
            return name

    for slug, page in (("people/zoe-kim", "people/zoë-kim"), ("people/lukasz-nowak", "people/łukasz-nowak"),
                       ("Zoe Kim", "people/zoë-kim"), ("places/strasse", "places/straße"), ("Dorde Hal", None)):
        if page is None:
            _check_spelling_twin(brain, {"slug": slug}, Ctx())  # an H1 name is no name a put writes to
            continue
        with pytest.raises(BadInput) as e:
            _check_spelling_twin(brain, {"slug": slug}, Ctx())
        assert f"give '{page}'" in str(e.value), str(e.value)
    brain.put("people/zoe-kim", "# Zoe Kim\n")
    with pytest.raises(BadInput) as e:  # the ASCII page is the accented name's twin too
        _check_spelling_twin(brain, {"slug": "people/zoé-kim"}, Ctx())
    assert "people/zoe-kim" in e.value.suggestions and "people/zoë-kim" in e.value.suggestions
    assert _letter_twins(brain, "people/zoe-kimura", ["people", "zoe-kimura"]) == []


def test_verify_compares_the_keys_with_the_text(brain):
    """``verify`` (``derived_check``) re-derives a page's ``name_folds`` rows and names a page
    whose stored rows differ (view ``name folds``)."""
    from gbrain.sync.verify import derived_check

    assert derived_check(brain)["views_differing"] == {}
    with brain.transaction():
        brain.conn.execute("DELETE FROM name_folds WHERE page_id = (SELECT id FROM pages WHERE slug = 'people/zoë-kim')")
    res = derived_check(brain)
    assert res["views_differing"] == {"name folds": 1} and res["mismatched_pages"] == ["people/zoë-kim"]


def test_the_fold_weighs_alike_both_ways(brain):
    """A page named by the query only but for its accents or its own letters gets the bonus at
    PLURAL_EXACT_SHARE whichever side has them: "Łukasz Nowak" gave the ASCII page *Lukasz
    Nowak* the whole bonus (the query's search_form, ``ł`` spelled ``l``, counted as typed) while
    "Lukasz Nowak" gave *Łukasz Nowak* 0.9. A page named exactly as typed stays first."""
    shortfall = (1 - keyword.PLURAL_EXACT_SHARE) * keyword.EXACT_WEIGHT
    brain.delete_page("people/łukasz-nowak")
    brain.put("people/lukasz-nowak", "# Lukasz Nowak\n\nPartner.\n")
    assert slugs(brain, "Łukasz Nowak")[0] == "people/lukasz-nowak"
    assert score(brain, "Łukasz Nowak", "people/lukasz-nowak") == pytest.approx(score(brain, "Lukasz Nowak", "people/lukasz-nowak") - shortfall, abs=1e-6)
    brain.put("people/łukasz-nowak", "# Łukasz Nowak\n\nPartner.\n")
    assert slugs(brain, "Łukasz Nowak")[:2] == ["people/łukasz-nowak", "people/lukasz-nowak"]
    assert slugs(brain, "Lukasz Nowak")[:2] == ["people/lukasz-nowak", "people/łukasz-nowak"]
    # (an accent that decomposes was alike both ways already)
    brain.delete_page("people/zoë-kim")
    brain.put("people/zoe-kim", "# Zoe Kim\n\nEngineer at Chip Pay.\n")
    assert score(brain, "Zoë Kim", "people/zoe-kim") == pytest.approx(score(brain, "Zoe Kim", "people/zoe-kim") - shortfall, abs=1e-6)


def test_pages_named_but_for_a_fold_keep_their_order_below_the_typed_name(tmp_path, db_path):
    """:func:`keyword._typed_names_first` lowers each fold/plural twin scoring above the page
    named as typed to just below it, keeping the twins' own order: it gave them all one score,
    so they came back in BM25's order (*Lukasz Nowaks* above *Lukasz Nowak*, which pages link as
    "Łukasz Nowak" and which scored higher). Pages and offsets alike."""
    # (a longer text than the twins': since v63 its name's folded word is at title weight, so a
    # short page named *Łukasz Nowak* scored above *Lukasz Nowaks* without the rule already)
    notes = {"people/łukasz-nowak.md": "# Łukasz Nowak\n\nPartner at a fund, with a long text about many other things, deals, calls and meetings, "
                                       "and more of the same words here.\n",
             "people/lukasz-nowak.md": "# Lukasz Nowak\n\nA partner at a fund, with a long text about many other things, deals, calls and meetings.\n",
             "people/lukasz-nowaks.md": "# Lukasz Nowaks\n\nLukasz Nowak.\n",
             "notes/a.md": "# A\n\nMet [[people/lukasz-nowak|Łukasz Nowak]] today.\n",
             **{f"filler/f{i}.md": f"# Filler {i}\n\nNothing here {i}.\n" for i in range(60)}}
    with Brain.open(db_path) as b:
        import_tree(b, write_tree(tmp_path / "vault", notes))
        first, spelled = keyword._typed_names_first, keyword.TYPED_SPELLINGS_FIRST
        try:  # (the typed-spelling evidence off too: its text holds "Łukasz" as typed)
            keyword._typed_names_first, keyword.TYPED_SPELLINGS_FIRST = (lambda *a: None), False
            before = slugs(b, "Łukasz Nowak")
        finally:
            keyword._typed_names_first, keyword.TYPED_SPELLINGS_FIRST = first, spelled
        assert before[:3] == ["people/lukasz-nowak", "people/lukasz-nowaks", "people/łukasz-nowak"]
        got = hits(b, "Łukasz Nowak")
        assert [h["slug"] for h in got][:3] == ["people/łukasz-nowak", "people/lukasz-nowak", "people/lukasz-nowaks"]
        assert got[0]["score"] >= got[1]["score"] >= got[2]["score"]
        assert [h["slug"] for i in range(3) for h in keyword.search(b.conn, "Łukasz Nowak", limit=1, offset=i)] == [h["slug"] for h in got[:3]]


WORDS = {
    "people/Łukasz Nowak.md": "---\ntags: [investor]\n---\n# Łukasz Nowak\n\nPartner at Vistula Ventures in Warsaw. Leads seed rounds in Polish fintech.\n",
    "people/Lukasz Nowak.md": "# Lukasz Nowak\n\nPlumber in Chicago.\n",
    # the word as typed, five times in a note's text
    "notes/fund calls.md": "# Calls with the fund\n\nLukasz asked about the runway. Lukasz wants the memo; I told Lukasz.\nLukasz again: Lukasz is fine.\n",
    "people/Søren Kierkegaard.md": "# Søren Kierkegaard\n\nDanish philosopher.\n",
    "people/Soren Lund.md": "# Soren Lund\n\nDesigner on the mobile team.\n",
    "people/Bjørn Dæhlie.md": "# Bjørn Dæhlie\n\nNorwegian skier.\n",
    "people/Björn Borg.md": "# Björn Borg\n\nSwedish tennis player.\n",
    "notes/ski notes.md": "# Ski notes\n\nBjorn Daehlie races. Daehlie skated; Bjorn Daehlie trained.\n",
    "people/lstrzepek.md": "---\naliases: [Łucja Strzępek]\n---\n# lstrzepek\n\nAuthor of a plugin.\n",
    **{f"filler/f{i}.md": f"# Filler {i}\n\nNothing here {i}, a memo and a call.\n" for i in range(40)},
}


@pytest.fixture
def words_brain(tmp_path, db_path):
    with Brain.open(db_path) as b:
        import_tree(b, write_tree(tmp_path / "vault", WORDS))
        yield b


def test_a_word_typed_with_or_without_its_letters_ranks_both_names_typed_first(words_brain):
    """Where no page is named exactly, `Łukasz` put *Lukasz Nowak* first and *Łukasz Nowak* third
    (1.125 to 0.66: ``lukasz`` was in its body-weight ``search_words`` only), below a note saying
    Lukasz five times; `Søren` did not list *Søren Kierkegaard* in its first 3. The names' folded
    words are indexed at title weight (``search_fold_names``, v63 / Postgres v67) and the page
    whose name holds the word as typed comes first (:func:`keyword._typed_words_first`)."""
    b = words_brain
    assert slugs(b, "Łukasz")[:2] == ["people/Łukasz Nowak", "people/Lukasz Nowak"]
    assert slugs(b, "Lukasz")[:2] == ["people/Lukasz Nowak", "people/Łukasz Nowak"]
    assert slugs(b, "Søren")[:2] == ["people/Søren Kierkegaard", "people/Soren Lund"]
    assert slugs(b, "Soren")[:2] == ["people/Soren Lund", "people/Søren Kierkegaard"]
    assert slugs(b, "Bjørn")[:2] == ["people/Bjørn Dæhlie", "people/Björn Borg"]
    assert slugs(b, "Daehlie")[0] == "people/Bjørn Dæhlie"  # (above the note saying it three times)
    assert slugs(b, "Łukasz partner")[0] == "people/Łukasz Nowak"
    assert "title" in next(h for h in hits(b, "Lukasz", 5) if h["slug"] == "people/Łukasz Nowak")["signals"]
    # an alias's folded word: a name too (signal alias; Postgres says title for either, its weight A)
    top = hits(b, "Lucja", 3)[0]
    assert top["slug"] == "people/lstrzepek" and {"alias", "title"} & set(top["signals"])
    assert b.conn.execute("SELECT search_fold_names FROM pages WHERE slug = 'people/Mærsk'").fetchone() is None
    assert b.conn.execute("SELECT search_fold_names FROM pages WHERE slug = 'people/Bjørn Dæhlie'").fetchone()[0] == "Bjorn Daehlie"
    assert b.conn.execute("SELECT search_fold_names FROM pages WHERE slug = 'people/lstrzepek'").fetchone()[0] == "Lucja"
    assert fresh_import_differences(b) == {}


def test_the_typed_rule_off_gives_the_fold_order(words_brain, monkeypatch):
    """Without :data:`keyword.TYPED_WORDS_FIRST` both names still rank as names (title weight),
    in BM25's order: the short *Lukasz Nowak* first for `Łukasz` too."""
    monkeypatch.setattr(keyword, "TYPED_WORDS_FIRST", False)
    monkeypatch.setattr(keyword, "TYPED_SPELLINGS_FIRST", False)  # (its text holds "Łukasz" as typed)
    assert slugs(words_brain, "Łukasz")[:2] == ["people/Lukasz Nowak", "people/Łukasz Nowak"]


def test_an_upgraded_brain_indexes_the_folded_name_words_as_a_fresh_import(tmp_path, db_path, monkeypatch):
    """A brain made before (SQLite v62 / Postgres v66) has no ``search_fold_names``: on open it is
    filled for the pages whose names are not ASCII and indexed (SQLite: ``page_fts`` made again
    with its ninth column), and the brain equals a fresh import and ranks as one."""
    from test_obsidian_trial import _rewind

    from gbrain.storage import db as dbmod
    from gbrain.storage import pg

    with Brain.open(db_path, create=True) as b:
        import_tree(b, write_tree(tmp_path / "v", WORDS))
        want = {q: slugs(b, q) for q in ("Łukasz", "Lukasz", "Søren", "Daehlie")}
        with b.transaction():
            b.conn.execute("UPDATE pages SET search_fold_names = ''")
            _rewind(b.conn, pg._fold_names, dbmod._m63_fold_names)
        with monkeypatch.context() as m:  # (the typed-spelling evidence, later than v63, off)
            m.setattr(keyword, "TYPED_SPELLINGS_FIRST", False)
            assert slugs(b, "Łukasz")[0] == "people/Lukasz Nowak"  # (as before v63)
    with Brain.open(db_path) as b:
        assert b.conn.execute("SELECT count(*) FROM pages WHERE search_fold_names <> ''").fetchone()[0] == 4
        assert {q: slugs(b, q) for q in want} == want
        assert fresh_import_differences(b) == {}


def test_a_moved_page_takes_its_new_names_folded_words(tmp_path, db_path):
    """A page titled by its file name moved to a name with such a letter (``Brain.move_page``,
    ``rename_page_row``: the search fields follow the path) is found by the new name's folded
    word at title weight, and equals a fresh import."""
    with Brain.open(db_path) as b:
        import_tree(b, write_tree(tmp_path / "vault", {"people/Soren Lund.md": "Designer.\n", **{f"f/n{i}.md": f"# N{i}\n\nSoren said {i}.\n" for i in range(8)}}))
        b.move_page("people/Soren Lund", "people/Søren Lund")
        assert b.conn.execute("SELECT search_fold_names FROM pages WHERE slug = 'people/Søren Lund'").fetchone()[0] == "Soren"
        assert slugs(b, "Soren")[0] == "people/Søren Lund"
        assert fresh_import_differences(b) == {}


LETTERS = {
    "companies/Maersk.md": "# Maersk\n\nContainer shipping company (A.P. Moller - Maersk). Our freight partner for Asia.\n",
    "people/Mærsk Mc-Kinney Møller.md": "# Mærsk Mc-Kinney Møller\n\nDanish shipping magnate, ran the Maersk group for decades.\n",
    "places/Ærø.md": "# Ærø\n\nDanish island in the Baltic; ferries from Svendborg.\n",
    "companies/Aero Bikes.md": "# Aero Bikes\n\nBicycle shop that services the team bikes.\n",
    "people/Zoe.md": "# Zoe\n\nEngineer.\n",
    "people/Zoë Kim-Park.md": "# Zoë Kim-Park\n\nDesigner.\n",
    **{f"filler/f{i}.md": f"# Filler {i}\n\nNothing here {i}, a ship and a bike.\n" for i in range(30)},
}


def test_a_word_typed_with_its_letters_ranks_the_name_holding_it_so_first(tmp_path, db_path, monkeypatch):
    """`Mærsk` ranked the company *Maersk* (the query's whole name but for a letter: the exact
    bonus at PLURAL_EXACT_SHARE, 2.4) above *Mærsk Mc-Kinney Møller*, whose title holds the word
    as typed (0.995): letters the user typed weigh more than the fold's bonus
    (:data:`keyword.TYPED_LETTERS_WIN`); an ASCII query keeps it (`Maersk`, `Aero`: the page named
    but for the letters first)."""
    with Brain.open(db_path) as b:
        import_tree(b, write_tree(tmp_path / "vault", LETTERS))
        assert slugs(b, "Mærsk")[:2] == slugs(b, "mærsk")[:2] == ["people/Mærsk Mc-Kinney Møller", "companies/Maersk"]
        assert slugs(b, "Maersk")[:2] == ["companies/Maersk", "people/Mærsk Mc-Kinney Møller"]
        assert slugs(b, "Aero")[:2] == ["places/Ærø", "companies/Aero Bikes"]
        assert slugs(b, "Ærø")[0] == "places/Ærø"
        # an accent too: `Zoë` names *Zoë Kim-Park* as typed, *Zoe* whole but for the accent
        assert slugs(b, "Zoë")[:2] == ["people/Zoë Kim-Park", "people/Zoe"]
        assert slugs(b, "Zoe")[:2] == ["people/Zoe", "people/Zoë Kim-Park"]
        monkeypatch.setattr(keyword, "TYPED_LETTERS_WIN", False)
        assert slugs(b, "Mærsk")[:2] == ["companies/Maersk", "people/Mærsk Mc-Kinney Møller"]
        assert slugs(b, "Zoë")[:2] == ["people/Zoe", "people/Zoë Kim-Park"]


MIXED = {
    "companies/Maersk.md": "# Maersk\n\nContainer shipping company. Our freight partner for Asia.\n",
    "people/mj1.md": "# Mærsk José\n\nA shipping heir.\n",
    "orgs/mjf.md": "# Mærsk Jose Foundation\n\nA fund for sailors.\n",
    "cafes/Café.md": "# Café\n\nThe corner coffee house.\n",
    "cafes/Cafe Racer.md": "# Cafe Racer\n\nA motorcycle.\n",
    **{f"filler/f{i}.md": f"# Filler {i}\n\nNothing here {i}, a ship, a coffee and a fund.\n" for i in range(30)},
}


def test_only_letters_typed_take_the_folds_bonus(tmp_path, db_path):
    """TYPED_LETTERS_WIN takes the exact-name bonus from a page named only but for the letters
    the user typed, not for every letter: full-width ASCII (an IME's ``ＣＡＦＥ``) is ASCII typed
    (NFKC), so it ranks as ``cafe`` does, the fold's bonus kept (*Café* first; it put *Cafe
    Racer* first); and in a query mixing a word typed with such letters and an ASCII word, a page
    holding the first as typed and the other but for an accent the user did not type keeps its
    bonus (``Mærsk Jose`` names *Mærsk José* whole: it ranked *Mærsk Jose Foundation* first)."""
    with Brain.open(db_path) as b:
        import_tree(b, write_tree(tmp_path / "vault", MIXED))
        assert slugs(b, "cafe")[:2] == ["cafes/Café", "cafes/Cafe Racer"]
        assert slugs(b, "ＣＡＦＥ")[:2] == slugs(b, "ｃａｆｅ")[:2] == ["cafes/Café", "cafes/Cafe Racer"]
        assert slugs(b, "Mærsk Jose")[:2] == ["people/mj1", "orgs/mjf"]
        # (the rule itself stands: a word typed with its letters puts the name holding it so first)
        assert slugs(b, "Café Racer")[0] == "cafes/Cafe Racer"
        assert slugs(b, "Mærsk José")[:2] == ["people/mj1", "orgs/mjf"]
        assert slugs(b, "Mærsk")[0] != "companies/Maersk"


# the fold drops accents only (SQLite v67 / Postgres v72): a mark that makes another letter or
# sound stays. Before, NFKD without every combining mark made ガンダム nearly the exact name of a
# page titled カンタム (a different word), Айда of Аида (й is a letter, not и with an accent)
SCRIPTS = {
    "companies/カンタム.md": "# カンタム\n\nカンタムは大阪の精密部品メーカー。\n",
    "notes/robot-show.md": "# ロボット展\n\n横浜でガンダムの模型を見た。ガンダムは高い。\n",
    "topics/パン.md": "# パン\n\nパンは小麦粉で作る。\n",
    "topics/バン.md": "# バン\n\n社用車のバン。\n",
    "notes/bakery.md": "# 週末のパン屋\n\n駅前のパン屋。パンを三つ買った。\n",
    "topics/Аида.md": "# Аида\n\nОпера Верди.\n",
    "people/Айда.md": "# Айда\n\nДизайнер из Баку.\n",
    "notes/opera.md": "# Вечер в опере\n\nАида в третьем акте. Аида и Радамес.\n",
    "people/Андрей.md": "# Андрей\n\nРазработчик.\n",
    "people/Алёна Петрова.md": "# Алёна Петрова\n\nБухгалтер.\n",
    "people/José Martínez.md": "# José Martínez\n\nLisbon office.\n",
    "places/Αθήνα.md": "# Αθήνα\n\nΗ πρωτεύουσα.\n",
    "ar/إنشاء قاعدة بيانات.md": "# إنشاء قاعدة بيانات\n\nخطوات.\n",
    "he/שָׁלוֹם.md": "# שָׁלוֹם\n\nמילה.\n",
}


@pytest.mark.engine_free
def test_the_fold_drops_accents_not_letters():
    # Japanese voicing marks (dakuten, handakuten: NFD カ + U+3099) make other kana
    assert fold_title_key("ガンダム") != fold_title_key("カンタム") and fold_title_key("パン") != fold_title_key("ハン")
    assert fold_title_key("ｶﾞﾝﾀﾞﾑ") == fold_title_key("ガンダム") == "ガンダム"  # (half-width: NFKC)
    # Cyrillic: й ї ў are letters (NFD и + U+0306, і + U+0308); ё is written е, a stress mark is an accent
    assert fold_name("Андрей") != fold_name("Андреи") and fold_name("Київ") != fold_name("Кіів")
    assert fold_name("Алёна") == fold_name("Алена") == "алена" and fold_name("Ёлка") == "елка"
    assert fold_name("моло\u0301ко") == "молоко" and fold_name("и\u0306") == "й"  # (a decomposed й is й)
    # Latin and Greek accents still fold; other scripts' marks stay (Devanagari virama, Hebrew points, Thai tones)
    assert fold_name("José Martínez") == "jose martinez" and fold_name("Việt Nam") == "viet nam" and fold_name("Αθήνα") == "αθηνα"
    for word in ("नमस्ते", "ตั้ง", "الثنائية", "ۓ"):
        assert fold_name(word) == word
    # Hebrew points and Arabic harakat are written or left out at will; so is the hamza on an alef
    assert fold_name("שָׁלוֹם") == "שלום" and fold_name("مُحَمَّد") == "محمد" and fold_name("إنشاء") == "انشاء"
    # search's name evidence folds alike
    assert keyword._fold("ガンダム") == "ガンダム" and keyword._fold("Айда") == "айда" and keyword._fold("Алёна") == "алена"
    assert keyword._fold("José") == "jose"


def test_a_mark_that_makes_a_letter_is_no_accent_on_both_engines(tmp_path, db_path):
    with Brain.open(db_path, create=True) as b:
        import_tree(b, write_tree(tmp_path / "v", SCRIPTS))
        assert slugs(b, "ガンダム") == ["notes/robot-show"]  # (カンタム took the near-exact bonus, first)
        assert slugs(b, "パン") == ["topics/パン", "notes/bakery"]  # (バン came second)
        assert slugs(b, "Аида") == ["topics/Аида", "notes/opera"]  # (Айда came second)
        assert "topics/Аида" not in slugs(b, "Айда")
        # (Андреи, the plural, finds Андрей by its Russian stem, but is not its exact name)
        from gbrain.storage.filters import PageFilter

        assert keyword._exact_names(b.conn, ["Андреи"], PageFilter()) == ({}, set())
        assert keyword._exact_names(b.conn, ["ガンダム"], PageFilter()) == ({}, set())
        assert keyword._exact_names(b.conn, ["Алена Петрова"], PageFilter())[0]
        # the accents that are folded still are
        assert slugs(b, "Алена Петрова")[0] == "people/Алёна Петрова"
        assert slugs(b, "Jose Martinez")[0] == "people/José Martínez" and slugs(b, "Αθηνα")[0] == "places/Αθήνα"
        assert slugs(b, "ｶﾝﾀﾑ")[0] == "companies/カンタム"
        assert slugs(b, "انشاء قاعدة بيانات")[0] == "ar/إنشاء قاعدة بيانات" and slugs(b, "שלום")[0] == "he/שָׁלוֹם"
        assert b.conn.execute("SELECT count(*) FROM name_folds f JOIN pages p ON p.id = f.page_id WHERE p.slug LIKE 'topics/%'").fetchone()[0] == 0


def test_an_upgraded_brain_keys_marks_as_a_fresh_import(tmp_path, db_path):
    """A brain made before (SQLite v66 / Postgres v71) holds keys without any mark (カンタム's
    page keyed by ガンダム's fold): on open they are written again, and the brain equals a fresh import."""
    from test_obsidian_trial import _rewind

    from gbrain.storage import db as dbmod
    from gbrain.storage import pg

    with Brain.open(db_path, create=True) as b:
        import_tree(b, write_tree(tmp_path / "v", SCRIPTS))
        with b.transaction():  # the rows the fold before v67 wrote
            pid = b.conn.execute("SELECT id FROM pages WHERE slug = 'topics/バン'").fetchone()[0]
            b.conn.execute("INSERT INTO name_folds (page_id, kind, key) VALUES (?, 'title', 'ハン'), (?, 'path', 'ハン')", (pid, pid))
            _rewind(b.conn, pg._name_folds, dbmod._m67_script_folds)
        assert "topics/バン" in slugs(b, "ハン")
    with Brain.open(db_path) as b:
        assert "topics/バン" not in slugs(b, "ハン")
        assert fresh_import_differences(b) == {}
