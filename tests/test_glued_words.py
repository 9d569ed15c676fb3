"""The glued words of a text: those an inline tag's blank (glue) sits inside (``<b>bold</b>text`` →
``boldtext``). ``keyword._glued_found`` finds them from the glue runs, for speed; it must find
exactly what the plain definition ``W(?:glue+W)+`` (``W`` a run of word characters and Arabic marks)
finds, and ``keyword._unglued`` write each such word without its glue, spaces after it. (Until
2026-12-07 a possessive regex, ``keyword._GLUED``, did the finding: it was held to the same
definition.)"""
from __future__ import annotations

import re

import pytest
from hypothesis import given, settings, strategies as st

from gbrain.search import keyword

pytestmark = pytest.mark.engine_free  # regexes over strings: the Postgres run repeated 1,000 examples for nothing

PLAIN = re.compile(f"{keyword._WORD_OR_MARK.pattern}(?:{keyword._GLUE}+{keyword._WORD_OR_MARK.pattern})+")

#: characters that make the cases: word letters and digits, underscore (not a word character here),
#: glue, tatweel and harakat (marks that join a word), a combining accent, Arabic letters, breaks
PIECES = ["a", "Z", "7", "é", "_", " ", "\n", "-", "*", keyword._GLUE, "\u0640", "\u064e", "\u0651", "\u0301", "ب", "ك", "字"]


def spans(rx: re.Pattern, text: str) -> list[tuple[int, int]]:
    return [m.span() for m in rx.finditer(text)]


def _joined(m: "re.Match[str]") -> str:
    """A glued word without its glue, as many spaces after it: what search reads for it."""
    w = m.group()
    b = w.replace(keyword._GLUE, "")
    return b + " " * (len(w) - len(b))


def test_glued_words_in_a_page_text():
    g = keyword._GLUE
    text = f"x <b>bold{g}{g}{g}text and H{g}{g}{g}{g}{g}2{g}{g}{g}{g}{g}{g}O, كَ{g}تَبَ, _{g}a, a{g} b"
    assert keyword._glued_found(text) == spans(PLAIN, text) != []
    assert keyword.search_text("x <b>bold</b>text y") == "x    boldtext     y"


#: long words too: :func:`keyword._word_start` reads back in windows of 32, 128… characters
WORDS = st.lists(st.one_of(st.sampled_from(PIECES), st.tuples(st.sampled_from(["a", "ب\u064e", "7"]), st.sampled_from([20, 40, 70])).map(lambda cn: cn[0] * cn[1])),
                 max_size=12).map("".join)


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.lists(st.sampled_from(PIECES), max_size=40).map("".join), WORDS))
def test_glued_found_is_the_plain_definition(text):
    """``_glued_found`` (from the glue runs) finds the spans the plain definition finds, and
    ``_unglued`` writes each without its glue, every other glue character a space."""
    assert keyword._glued_found(text) == spans(PLAIN, text)
    assert keyword._unglued(text) == PLAIN.sub(_joined, text).replace(keyword._GLUE, " ")


def test_glued_found_corners():
    g = keyword._GLUE
    for text in ["", g, g * 3, f"a{g}", f"{g}a", f"a{g}b", f"a{g}{g}b{g}c{g}", f"a{g}b {g}c{g}d", f"_{g}a{g}_", f"{'x' * 200}{g}y",
                 f"ك\u064e{g}\u0651ب", f"a{g}\u0301b", f"é{g}{g}字{g}7", f"a{g}b{g}{g} c{g}d{g}e"]:
        assert keyword._glued_found(text) == spans(PLAIN, text), text
