"""The query syntax of keyword search is the same on both engines (the suite runs this file on
Postgres with ``--engine postgres``): "a quoted phrase" matches its words in order, ``word*``
matches word starts, and nothing else is syntax. FTS5 and tsquery operators typed by a user
(``&``, ``|``, ``!``, ``:``, ``<->``, ``AND``, ``NOT``, ``-``), unbalanced quotes and stray ``*``
never reach the engine as syntax: they degrade to the plain words. A new-user trial on Postgres
found ``bench*`` matching nothing and ``"Series A 2025"`` ranking a Series B page level with it."""
from __future__ import annotations

import re

import pytest

from gbrain.search import keyword

from conftest import search_brain

NOTES = {
    "perf/alpha.md": "# Benchmark alpha\n\nBenchmarks of the import path.\n",
    "perf/beta.md": "# Beta run\n\nWe benchmarked the sync engine.\n",
    "perf/gamma.md": "# Gamma\n\nA benchmarking note about latency.\n",
    "notes/garage.md": "# Garage\n\nThe bench is in the garage.\n",
    "deals/runway.md": "# Runway Series A 2025\n\nRunway raised its Series A 2025 round in March.\n",
    "deals/genomics.md": "# Genomics Series B 2025\n\nGenomics closed a Series B 2025 round, not a Series A.\n",
    "notes/ru.md": "# заметка\n\nотчёт о производительности сервера за март\n",
}
BENCH = ["notes/garage", "perf/alpha", "perf/beta", "perf/gamma"]


brain = search_brain(NOTES)


def found(b, query: str) -> list[str]:
    """The slugs ``search`` finds for ``query``, sorted."""
    return sorted(h["slug"] for h in keyword.search(b.conn, query, limit=50))


def candidates(b, query: str) -> list[str]:
    """The slugs of the hybrid query's keyword leg for ``query``, sorted."""
    slug = {r[0]: r[1] for r in b.conn.execute("SELECT id, slug FROM pages")}
    return sorted(slug[h["id"]] for h in keyword.keyword_candidates(b.conn, query, limit=50))


def test_prefix_matches_word_starts(brain):
    assert found(brain, "bench*") == BENCH
    assert found(brain, "bench") == ["notes/garage"]  # without the star, the word itself
    assert found(brain, "Bench*") == BENCH
    assert found(brain, "benchmark*") == BENCH[1:]
    assert found(brain, "производ*") == ["notes/ru"]  # non-Latin text
    assert candidates(brain, "bench*") == BENCH


def test_phrase_matches_the_words_in_order(brain):
    assert found(brain, '"Series A 2025"') == ["deals/runway"]
    assert found(brain, '"series b 2025"') == ["deals/genomics"]
    assert found(brain, '"Series A"') == ["deals/genomics", "deals/runway"]  # "not a Series A."
    assert found(brain, '"2025 Series A"') == []
    assert found(brain, '"производительности сервера"') == ["notes/ru"]
    assert found(brain, '"сервера производительности"') == []
    assert candidates(brain, '"Series A 2025"') == ["deals/runway"]
    hits = keyword.search(brain.conn, '"Series A 2025" runway')
    assert hits[0]["slug"] == "deals/runway" and [h["slug"] for h in hits] == ["deals/runway"]


def test_phrase_prefix_and_words_mix(brain):
    assert found(brain, '"Series A 2025" bench*') == sorted(["deals/runway", *BENCH])
    assert found(brain, 'latency "import path"') == ["perf/alpha", "perf/gamma"]
    assert candidates(brain, '"Series B 2025" benchmark*') == sorted(["deals/genomics", *BENCH[1:]])


def plain(query: str) -> str:
    """``query`` with everything but its words (and prefix stars on them) taken out."""
    return " ".join(re.findall(r"[^\W_]+\*?", query.replace('"', " ")))


@pytest.mark.parametrize("query", [
    '"Series A 2025',  # unbalanced quotes: plain words
    'Series A 2025"',
    '"Series "A 2025',  # a phrase "Series ", then the word A and 2025
    "bench**", "** bench", "*bench", "bench *", "*", "**", '"', '""', '" "', '"*"',
    "runway & series", "runway | genomics", "!runway", "runway:*", "runway:A", "runway:*A",
    "runway <-> raised", "runway <2> raised", "(runway", "runway)", "'runway'", "runway\\", "runway''",
    "runway AND NOT genomics", "-runway", "NEAR(runway series)", "series:runway", "{title}: runway",
    "& | ! <->", ":*", "'", "\\", "bench*:*", "bench:* & series", "!bench*", '"bench*"', '"Series & A"',
    "отчёт | сервер", "производ*:*",
])
def test_user_text_is_never_query_syntax(brain, query):
    hits = keyword.search(brain.conn, query, limit=50)
    keyword.keyword_candidates(brain.conn, query, limit=50)
    words = plain(query)
    if words:  # the words alone find the same pages
        assert sorted(h["slug"] for h in hits) == found(brain, words if query.count('"') != 2 else query.replace("&", " ")), query


def test_operators_are_plain_words(brain):
    assert found(brain, "runway & genomics") == ["deals/genomics", "deals/runway"]  # not AND
    assert found(brain, "!runway") == ["deals/runway"]  # not NOT
    assert found(brain, "runway:*") == ["deals/runway"]  # not a prefix of ':'
    assert found(brain, "rai:*") == []  # nor here: `:*` is no prefix mark, `*` is
    assert found(brain, "rai*") == ["deals/runway"]
