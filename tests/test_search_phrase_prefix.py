"""A prefix star inside a quoted phrase (session 51). ``"lodz* fabryczna"`` dropped its ``*``: the
phrase ``lodz fabryczna`` was searched. FTS5 reads a ``*`` inside a string as no syntax (the
tokenizer drops it), but a phrase may hold prefix tokens: ``"lodz"* + "fabryczna"`` (a string
followed by ``*`` marks its last token a prefix; ``+`` joins strings into one phrase), and
``"warszawa centr"*`` makes the last word one. So a word of a quoted phrase written with ``*``
(anywhere in it), and the last word of a phrase with ``*`` after its closing quote, is a prefix
inside the phrase, on SQLite (``"w1"* + "w2"``) and Postgres (``'w1':* <-> 'w2'``) alike. The
queries and the pages each must find were written before any search ran. Both engines
(``--engine postgres``)."""
from __future__ import annotations

import pytest

from gbrain.search import keyword

from conftest import search_brain, search_slugs

NOTES = {
    "places/Łódź.md": "# Łódź\n\nMiasto w Polsce, dworzec Łódź Fabryczna.\n",
    "places/station.md": "# Station list\n\nThe line stops at Lodzka Fabryczna and Warszawa Centralna.\n",
    "notes/fabric.md": "# Fabric\n\nFabryczna street runs past the Lodz museum.\n",
    "notes/project.md": "# Project\n\nThe project plan was reviewed, and the projected cost approved.\n",
    **{f"filler/f{i}.md": f"# Note {i}\n\nPlain text {i} about work and the weather.\n" for i in range(12)},
}


brain = search_brain(NOTES)


def slugs(b, query: str, limit: int = 10) -> set[str]:
    return set(search_slugs(b, query, limit))


def test_a_star_inside_a_quoted_phrase_makes_that_word_a_prefix(brain):
    """``"lodz* fabryczna"`` finds *Łódź Fabryczna* and *Lodzka Fabryczna*, not a page holding
    both words apart; without the star only the first."""
    assert slugs(brain, '"lodz* fabryczna"') == {"places/Łódź", "places/station"}
    assert slugs(brain, '"lodz fabryczna"') == {"places/Łódź"}
    assert slugs(brain, '"project* plan"') == {"notes/project"}
    assert slugs(brain, '"the project* cost"') == {"notes/project"}


def test_the_last_word_of_a_phrase_as_a_prefix(brain):
    """The last word: ``"warszawa centr*"``, and FTS5's own ``"warszawa centr"*``."""
    assert slugs(brain, '"warszawa centr*"') == {"places/station"}
    assert slugs(brain, '"warszawa centr"*') == {"places/station"}
    assert slugs(brain, '"warszawa centr"') == set()
    assert slugs(brain, '"lodz*"') == {"places/Łódź", "places/station", "notes/fabric"}


def test_the_snippet_marks_the_words_the_prefix_matched(brain):
    h = next(h for h in keyword.search(brain.conn, '"lodz* fabryczna"', limit=5) if h["slug"] == "places/station")
    marked = " ".join(h["snippet"][a:z] for a, z in h["highlights"])  # (FTS5 marks a phrase as one span)
    assert "Lodzka" in marked and "Fabryczna" in marked, h


@pytest.mark.engine_free
def test_the_fts5_term_of_a_phrase_with_a_prefix():
    assert keyword.fts_parts('"lodz* fabryczna"') == ['("lodz"* + "fabryczna")']
    assert keyword.fts_parts('"warszawa centr"*') == ['("warszawa" + "centr"*)']
    assert keyword.fts_parts('"lodz fabryczna"') == ['"lodz fabryczna"']
    assert keyword.pg_parts('"lodz* fabryczna"') == [("phrase", "lodz* fabryczna")]
