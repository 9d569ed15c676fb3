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
