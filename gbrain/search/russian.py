"""Russian inflection for keyword search: a query word's stem, searched as a prefix.

A Russian noun has six cases and two numbers, an adjective more forms still (``Москва``,
``Москвы``, ``Москве``, ``Москву``, ``Москвой``; ``нейронные``, ``нейронных``, ``нейронными``),
and a note writes whichever form its sentence needs. Neither engine's index stems Russian (FTS5's
porter and Postgres' 'english' stem English only), so a query word matched only the form as
written: ``Москвы`` missed the page *Москва* (trial 43). :func:`stem` is the Snowball Russian
stemmer (Porter's algorithm, snowballstem.org/algorithms/russian/stemmer.html, its steps 1–4 over
the word's RV and R2 regions) and :func:`prefix` the stem search looks for as a prefix
(``keyword._terms``: ``"москв"*``), which matches every form of the word the stem begins,
and the form as typed. Only words of Cyrillic letters are stemmed: no other query changes.
"""
from __future__ import annotations

import re

VOWELS = "аеиоуыэюя"
#: a word of Cyrillic letters only (the Russian alphabet, ``ё`` included)
_RUSSIAN = re.compile(r"[а-яё]+")
#: the shortest stem searched as a prefix (a shorter one begins too many other words)
MIN_STEM = 3

_GERUND1 = ("вшись", "вши", "в")
_GERUND2 = ("ившись", "ывшись", "ивши", "ывши", "ив", "ыв")
_ADJECTIVE = ("ими", "ыми", "его", "ого", "ему", "ому", "ее", "ие", "ые", "ое", "ей", "ий", "ый", "ой", "ем", "им", "ым",
              "ом", "их", "ых", "ую", "юю", "ая", "яя", "ою", "ею")
_PARTICIPLE1 = ("ем", "нн", "вш", "ющ", "щ")
_PARTICIPLE2 = ("ивш", "ывш", "ующ")
_REFLEXIVE = ("ся", "сь")
_VERB1 = ("ете", "йте", "ешь", "нно", "ла", "на", "ли", "ем", "ло", "но", "ет", "ют", "ны", "ть", "й", "л", "н")
_VERB2 = ("ейте", "уйте", "ила", "ыла", "ена", "ите", "или", "ыли", "ило", "ыло", "ено", "ует", "уют", "ены", "ить", "ыть",
          "ишь", "ей", "уй", "ил", "ыл", "им", "ым", "ен", "ят", "ит", "ыт", "ую", "ю")
_NOUN = ("иями", "ями", "ами", "ией", "иям", "ием", "иях", "ев", "ов", "ие", "ье", "еи", "ии", "ей", "ой", "ий", "ям", "ем",
         "ам", "ом", "ах", "ях", "ию", "ью", "ия", "ья", "а", "е", "и", "й", "о", "у", "ы", "ь", "ю", "я")
_SUPERLATIVE = ("ейше", "ейш")
_DERIVATIONAL = ("ость", "ост")


def _regions(w: str) -> tuple[int, int]:
    """(RV, R2) start offsets: RV after the first vowel; R1 after the first non-vowel that
    follows a vowel, R2 the same within R1."""
    rv = next((i + 1 for i, c in enumerate(w) if c in VOWELS), len(w))

    def after(start: int) -> int:
        for i in range(start + 1, len(w)):
            if w[i] not in VOWELS and w[i - 1] in VOWELS:
                return i + 1
        return len(w)
    r1 = after(0)
    return rv, after(r1)


def _cut(w: str, rv: int, endings: tuple[str, ...], after_a: bool = False) -> str | None:
    """``w`` without its longest ending of ``endings`` that lies in RV (and, ``after_a``, follows
    an ``а`` or ``я`` in RV, which stays); None when none does."""
    for e in sorted(endings, key=len, reverse=True):
        if w.endswith(e) and len(w) - len(e) >= rv:
            if after_a and not (len(w) - len(e) - 1 >= rv and w[len(w) - len(e) - 1] in "ая"):
                continue
            return w[: len(w) - len(e)]
    return None


def stem(word: str) -> str:
    """The Snowball Russian stem of ``word`` (casefolded; ``ё`` read as ``е``); the word itself
    when it is not Russian letters only."""
    w = word.casefold().replace("ё", "е")
    if not _RUSSIAN.fullmatch(w):
        return w
    rv, r2 = _regions(w)
    # step 1: a perfective gerund, else a reflexive ending and then an adjectival, verb or noun one
    x = _cut(w, rv, _GERUND1, True) or _cut(w, rv, _GERUND2)
    if x is not None:
        w = x
    else:
        w = _cut(w, rv, _REFLEXIVE) or w
        x = _cut(w, rv, _ADJECTIVE)
        if x is not None:
            w = _cut(x, rv, _PARTICIPLE1, True) or _cut(x, rv, _PARTICIPLE2) or x
        else:
            w = _cut(w, rv, _VERB1, True) or _cut(w, rv, _VERB2) or _cut(w, rv, _NOUN) or w
    # step 2: a final и
    if w.endswith("и") and len(w) - 1 >= rv:
        w = w[:-1]
    # step 3: a derivational ending in R2
    x = _cut(w, max(rv, r2), _DERIVATIONAL)
    if x is not None:
        w = x
    # step 4: нн → н, or a superlative ending (then нн → н), or a final ь
    if w.endswith("нн") and len(w) - 2 >= rv:
        return w[:-1]
    x = _cut(w, rv, _SUPERLATIVE)
    if x is not None:
        return x[:-1] if x.endswith("нн") and len(x) - 2 >= rv else x
    if w.endswith("ь") and len(w) - 1 >= rv:
        return w[:-1]
    return w


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
