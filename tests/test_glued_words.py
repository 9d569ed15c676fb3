"""``keyword._GLUED``, the words an inline tag's blank sits inside (``<b>bold</b>text`` → ``boldtext``),
is written for speed: each word tried once from its first character, possessive. It must find exactly
what the plain definition ``W(?:glue+W)+`` (``W`` a run of word characters and Arabic marks) finds."""
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


@settings(max_examples=1000, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=40).map("".join))
def test_glued_finds_what_the_plain_definition_finds(text):
    assert spans(keyword._GLUED, text) == spans(PLAIN, text)
    assert keyword._GLUED.sub(keyword._glued_word, text) == PLAIN.sub(keyword._glued_word, text)


def test_glued_words_in_a_page_text():
    g = keyword._GLUE
    text = f"x <b>bold{g}{g}{g}text and H{g}{g}{g}{g}{g}2{g}{g}{g}{g}{g}{g}O, كَ{g}تَبَ, _{g}a, a{g} b"
    assert spans(keyword._GLUED, text) == spans(PLAIN, text) != []
    assert keyword.search_text("x <b>bold</b>text y") == "x    boldtext     y"
