"""A long page's snippet folds windows around its hits (``keyword._fold_hits``), never the
whole page: the marked text must equal the whole-page fold's (``_fold_hits_whole``) for every
text, wherever its hit stands, with folding-sensitive characters (ß, ligatures, NFKC forms,
combining marks, Devanagari, Thai, CJK, astral) around it. The windows are forced small here
(``FOLD_WINDOW_MIN = 0``, blocks of a few characters) so every cut and growth is exercised;
the speed is ``benchmarks/snippet_fold.py``'s."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gbrain.search import keyword

pytestmark = pytest.mark.engine_free  # a pure function

WORDS = ["quetzal", "Quetzal", "QUETZALCOATL", "ﬁnancial", "financial", "Ｆｉｎａｎｃｉａｌ", "straße", "STRASSE",
         "Björn", "Bjo\u0301rn", "bjorn", "игрушки", "Ёжик", "ежи", "हिन्दी", "हिन्द", "ภาษาไทย", "日本語", "Google",
         "GoogleでSEOを", "ǆungla", "K\u212aelvin", "ſtraße", "İstanbul", "ﬃ", "x²", "①", "ὸ", "πρὸς", "don't", "O’Brien"]
SEPS = [" ", " ", "\n", "\n", "\n\n", ", ", ". ", " — ", "\u0301", "\n\u0301", "🧠", "\u2028", "_", "-", "%%", "<!--", "**"]
QUERIES = ["quetzal", "quetzalcoatl", "financial", "strasse", "bjorn", "игрушкам", "ёж*", "हिन्दी", "日本語", "ภาษา",
           "quetzal financial", "financial strasse bjorn", "goo*", "seo", "kelvin", "istanbul", "ffi", "x2", "dzungla",
           "don't", "obrien", "πρoς"]


def _text(parts: list[str]) -> str:
    return "".join(parts)


texts = st.lists(st.one_of(st.sampled_from(WORDS), st.sampled_from(SEPS), st.text(max_size=3)), max_size=60).map(_text)


def _marks(text: str, query: str, around: int, phrase: str | None, window_min: float, block: int) -> str | None:
    old = keyword.FOLD_WINDOW_MIN, keyword.FOLD_BLOCK
    keyword.FOLD_WINDOW_MIN, keyword.FOLD_BLOCK = window_min, block
    try:
        return keyword._mark_words(text, query, around=around, phrase=phrase)
    finally:
        keyword.FOLD_WINDOW_MIN, keyword.FOLD_BLOCK = old


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(before=texts, after=texts, hit=st.sampled_from(WORDS), query=st.sampled_from(QUERIES),
       around=st.sampled_from([0, 1, 7, 40, 2000]), as_phrase=st.booleans(), block=st.integers(1, 40))
def test_windowed_fold_marks_as_the_whole_fold(before, after, hit, query, around, as_phrase, block):
    text = before + hit + after
    phrase = query if as_phrase else None
    whole = _marks(text, query, around, phrase, float("inf"), block)
    assert _marks(text, query, around, phrase, 0, block) == whole


@settings(max_examples=30, deadline=None)
@given(pos=st.floats(0, 1), query=st.sampled_from(["quetzal", "quetzal financial", "strasse", "bjorn", "हिन्दी", "日本語"]),
       line=st.sampled_from(["Ünïcödé ✓ 日本語 \u2028 next\u2029 para — emoji 🧠\n", "ﬁnal Straße e\u0301 हिन्दी\n",
                             "plain ascii line\n", "quetzal\n\u0301financial\n"]))
def test_long_page_hit_anywhere(pos, query, line):
    """A page past ``FOLD_WINDOW_MIN`` with real block sizes: the hit at the start, middle or end."""
    body = line * (2 * keyword.FOLD_WINDOW_MIN // len(line) + 1)
    cut = body.rfind("\n", 0, int(pos * len(body))) + 1
    text = body[:cut] + "Here a quetzal, straße, हिन्दी, 日本語 and the ﬁnancial Björn.\n" + body[cut:]
    whole = _marks(text, query, 2000, None, float("inf"), keyword.FOLD_BLOCK)
    assert whole is not None
    assert _marks(text, query, 2000, None, keyword.FOLD_WINDOW_MIN, keyword.FOLD_BLOCK) == whole


LITERALS = ["quetzal", "quetzalcoatl", "financial", "strasse", "ss", "s", "bjorn", "игрушк", "еж", "हिन्दी", "日本語", "ภาษา",
            "goo", "seo", "kelvin", "k", "istanbul", "i", "ffi", "fi", "x2", "dzungla", "don", "obrien", "προς", "σ", "1"]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=texts, lits=st.lists(st.one_of(st.sampled_from(LITERALS), st.text(min_size=1, max_size=3)), min_size=1, max_size=4),
       block=st.integers(1, 40))
def test_block_filter_answers_as_the_folded_blocks(text, lits, block):
    """``_FoldBlocks`` (one expression over the text as written, its characters classified as they
    are met) takes exactly the blocks ``_FoldBlocksTranslate`` (each block folded by str.translate,
    the words searched case-insensitively: the code before) takes, from every block start."""
    old = keyword.FOLD_BLOCK
    keyword.FOLD_BLOCK = block
    try:
        new, ref = keyword._FoldBlocks(text, lits), keyword._FoldBlocksTranslate(text, lits)
        pos, got, want = 0, [], []
        while pos < len(text):
            got.append(new.next_from(pos))
            want.append(ref.next_from(pos))
            pos = keyword._safe_cut(text, pos + block)
        assert got == want
    finally:
        keyword.FOLD_BLOCK = old


def test_block_filter_learns_characters_met_late():
    """A character first met far into the page (after the expression was made) is classified
    there: an accented spelling of the word at the end is found, a block of only new unrelated
    characters is not taken."""
    body = "plain line\n" * 5000
    for tail, lits in [("Ｑｕｅｔｚａｌ\n", ["quetzal"]), ("ſtraße\n", ["strasse"]), ("ﬁnancial\n", ["financial"]),
                       ("日本語\n", ["quetzal"]), ("e\u0301\n", ["quetzal"])]:
        for text in (body + tail, "Ünï ✓\n" + body + tail):  # (met first, or after the first block's characters)
            a, b = keyword._FoldBlocks(text, lits), keyword._FoldBlocksTranslate(text, lits)
            assert a.next_from(0) == b.next_from(0) and a.fallback is None, (tail, lits)
            if tail == "日本語\n":
                assert a.next_from(0) is None
            else:  # the last block, not before
                assert a.next_from(0) is not None and len(text) - a.next_from(0) < 2 * keyword.FOLD_BLOCK


def test_block_filter_too_long_an_expression_folds_the_blocks(monkeypatch):
    """Past ``FOLD_RX_MAX`` (words of many letters a character folds to several of) the blocks are
    folded by str.translate, with the same answers."""
    text = "plain line\n" * 3000 + "ſtraße\n"
    monkeypatch.setattr(keyword, "FOLD_RX_MAX", 0)
    a = keyword._FoldBlocks(text, ["strasse"])
    assert a.fallback is not None and a.next_from(0) == keyword._FoldBlocksTranslate(text, ["strasse"]).next_from(0) is not None


# characters whose fold is several letters, case-folding oddities, regular-expression metacharacters
# (as written and full-width), marks, a replacement character and a lone surrogate (text decoded with
# errors), CRLF: the expression's classes and escapes must answer as the folded blocks do
ODD = list("ßẞﬁﬂﬃﬀǆǅæÆŒœℌ²³¹ⁿİıςσΣ\u212aſŉǰΐĳ①⑴⒜℡™…‥ᾈＡａＫｋＳｓ．＋［＼＾＄｜（\ufffd\ud800\u2028\u0301\u0345")
ODD_TEXT = st.lists(st.one_of(st.sampled_from(ODD), st.sampled_from(list("abfikns.+[\\^$|()*?{}-' \n\r")),
                              st.sampled_from(["\r\n", "Straße", "ﬁnancial", "ǆungla", "Œuvre", "Ｋｅｌｖｉｎ", "x²", "İstanbul",
                                               "ſtraſſe", "\u212aelvin", "ΣΑΣ ς", "a.b", "c++"])), max_size=80).map(_text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=ODD_TEXT, lits=st.lists(st.text(alphabet=ODD + list("abfikns.+[\\^$|()-"), min_size=1, max_size=3), min_size=1, max_size=3),
       block=st.integers(1, 12))
def test_block_filter_odd_folds_and_metacharacters(text, lits, block):
    """:class:`keyword._FoldBlocks` against :class:`keyword._FoldBlocksTranslate` where a letter is a
    regex metacharacter, a character folds to several letters or case-folds oddly (K, ſ, İ, ς)."""
    old = keyword.FOLD_BLOCK
    keyword.FOLD_BLOCK = block
    try:
        new, ref = keyword._FoldBlocks(text, lits), keyword._FoldBlocksTranslate(text, lits)
        pos = 0
        while pos < len(text):
            assert new.next_from(pos) == ref.next_from(pos), pos
            pos = keyword._safe_cut(text, pos + block)
    finally:
        keyword.FOLD_BLOCK = old


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=ODD_TEXT, query=st.sampled_from(["strasse", "ss", "s", "fi", "ffi", "dzungla", "ae", "oeuvre", "h", "kelvin", "k",
                                              "i", "istanbul", "σας", "x2", "a.b", "c++", "n", "1", "strasse financial", "k*"]),
       around=st.sampled_from([0, 1, 40]), as_phrase=st.booleans(), block=st.integers(1, 15))
def test_windowed_marks_odd_folds(text, query, around, as_phrase, block):
    """The windowed marks equal the whole fold's on text of such characters, CRLF lines too."""
    phrase = query if as_phrase else None
    assert _marks(text, query, around, phrase, 0, block) == _marks(text, query, around, phrase, float("inf"), block)
