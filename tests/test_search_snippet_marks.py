"""Snippet marks of whole words (session 51): ``don't`` marked ``don`` only (the tokenizer reads
``don`` and ``t``, and ``t`` is a stop word); a Hindi word was marked in pieces split at its vowel
signs and virama (combining marks, Mc/Mn: Python's ``\\w`` and unicode61 both read them as
separators, so the query ``हिन्दी`` is the pieces ``ह न द``), and ``goo*`` marked the whole glued run
``GoogleでSEOを追跡`` (the glued word ``Google`` is what the index holds beside the run:
``_glued_runs``). The texts are short notes written for these tests (no corpus holds Hindi).
Both engines (``--engine postgres``)."""
from __future__ import annotations

import unicodedata

import pytest

from gbrain.search import keyword

from conftest import search_brain

NOTES = {
    "en/contractions.md": "# Build notes\n\nI don't know why the build fails; we won't ship it, we won’t.\n",
    "fr/homme.md": "# Droits\n\nLa Déclaration des droits de l'homme et du citoyen.\n",
    "hi/bhasha.md": "# भाषा\n\nहिन्दी भारत की राजभाषा है। मैं हिन्दी में लिखता हूँ।\n",
    "jp/seo.md": "# SEO\n\nGoogleでSEOを追跡するには登録してください。\n",
    **{f"filler/f{i}.md": f"# Note {i}\n\nPlain text {i} about work and the weather.\n" for i in range(8)},
}


def shown(marked: str) -> str:
    return marked.replace(keyword.HIT_ON, "[").replace(keyword.HIT_OFF, "]")


brain = search_brain(NOTES)


def marks(b, query: str, slug: str) -> list[str]:
    h = next(h for h in keyword.search(b.conn, query, limit=10) if h["slug"] == slug)
    return [h["snippet"][a:z] for a, z in h["highlights"]]


def whole(snippet: str, a: int, z: int) -> bool:
    """Whether ``[a, z)`` neither begins nor ends inside a word (no combining mark at its edges)."""
    return not (z < len(snippet) and unicodedata.category(snippet[z]).startswith("M")) and not (
        unicodedata.category(snippet[a]).startswith("M"))


@pytest.mark.engine_free
def test_python_marks_of_a_word_with_an_apostrophe_a_hindi_word_and_a_glued_prefix():
    assert shown(keyword._mark_words("I don't know. Don’t go.", "don't")) == "I [don't] know. [Don’t] go."
    assert shown(keyword._mark_words("हिन्दी भारत की राजभाषा है।", "हिन्दी")).startswith("[हिन्दी] भारत")
    assert shown(keyword._mark_words("GoogleでSEOを追跡", "goo*")) == "[Google]でSEOを追跡"
    assert shown(keyword._mark_words("GoogleでSEOを追跡 goodness", "goo*")) == "[Google]でSEOを追跡 [goodness]"


def test_a_search_marks_a_word_with_an_apostrophe_whole(brain):
    """(``don't`` is searched as ``don`` on SQLite; Postgres' 'english' configuration drops ``don``
    and ``t`` as stop words from the index and the query: no page is found there, left alone.)"""
    got = marks(brain, "won't", "en/contractions")
    assert "won't" in got and "won’t" in got, got
    assert "l'homme" in marks(brain, "l'homme", "fr/homme")
    # (a prefix written with an apostrophe marks its word whole too: ``l’hom*`` marked ``homme``)
    assert "l'homme" in marks(brain, "l’hom*", "fr/homme"), marks(brain, "l’hom*", "fr/homme")


def test_a_search_marks_hindi_words_whole(brain):
    h = next(h for h in keyword.search(brain.conn, "हिन्दी", limit=10) if h["slug"] == "hi/bhasha")
    got = [h["snippet"][a:z] for a, z in h["highlights"]]
    assert "हिन्दी" in got, got
    assert all(whole(h["snippet"], a, z) for a, z in h["highlights"]), got


def test_a_latin_prefix_marks_its_glued_word_only(brain):
    assert marks(brain, "goo*", "jp/seo") == ["Google"]
