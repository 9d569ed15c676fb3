"""Russian inflection for keyword search: a query word's stem, searched as a prefix.

A Russian noun has six cases and two numbers, an adjective more forms still (``Москва``,
``Москвы``, ``Москве``, ``Москву``, ``Москвой``; ``нейронные``, ``нейронных``, ``нейронными``),
and a note writes whichever form its sentence needs. Neither engine's index stems Russian (FTS5's
porter and Postgres' 'english' stem English only), so a query word matched only the form as
written: ``Москвы`` missed the page *Москва* (trial 43). :func:`stem` is the Snowball Russian
stemmer (Porter's algorithm, snowballstem.org/algorithms/russian/stemmer.html, as the
``snowballstemmer`` package implements it) and :func:`prefix` the stem search looks for as a prefix
(``keyword._terms``: ``"москв"*``), which matches every form of the word the stem begins,
and the form as typed. Only words of Cyrillic letters are stemmed: no other query changes.
"""
from __future__ import annotations

import re

#: a word of Cyrillic letters only (the Russian alphabet, ``ё`` included)
_RUSSIAN = re.compile(r"[а-яё]+")
#: the shortest stem searched as a prefix (a shorter one begins too many other words)
MIN_STEM = 3
_STEMMER = None


def stem(word: str) -> str:
    """The Snowball Russian stem of ``word`` (casefolded; ``ё`` read as ``е``), from the
    ``snowballstemmer`` package's Russian stemmer; the word itself (casefolded) when it is not
    Russian letters only."""
    global _STEMMER
    w = word.casefold().replace("ё", "е")
    if not _RUSSIAN.fullmatch(w):
        return w
    if _STEMMER is None:
        import snowballstemmer  # imported by the first Russian query word only

        _STEMMER = snowballstemmer.stemmer("russian")
    return _STEMMER.stemWord(w)


def prefix(word: str) -> str | None:
    """The prefix keyword search looks ``word`` up by: its first letters as typed (casefolded)
    as many as its :func:`stem` has, when that stem is shorter than the word and at least
    :data:`MIN_STEM` letters; None for a word that is not Russian letters only, or has no
    shorter stem (``Москвы`` → ``москв``; ``дом`` → None)."""
    w = word.casefold()
    if not _RUSSIAN.fullmatch(w):
        return None
    n = len(stem(w))
    return w[:n] if MIN_STEM <= n < len(w) else None
