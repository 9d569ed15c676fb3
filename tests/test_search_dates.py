"""A month written in words finds the pages dated in it (trial23: ``release notes March 2022``
put none of the eleven notes "Released on 2022/03/…" in the top 3, ``what happened with X in
March 2025`` found X's entries of 2025-03 only by X's name). Pages and timelines write dates as
ISO 8601 numbers (``2025-03-04``, the timeline's ``**YYYY-MM-DD**``), people ask in words, so a
month and a year in a query also search the date's numbers (``keyword.date_phrases``). Runs on
both engines (``--engine postgres``)."""
from __future__ import annotations

import pytest

from gbrain.core.brain import Brain
from gbrain.search import hybrid, keyword
from gbrain.sync.importer import import_tree

from conftest import write_tree

FILLER = "Budget lines, hiring plan and the pilot were reviewed; action items were assigned to the owners."


def _notes() -> dict[str, str]:
    notes = {}
    # three syncs alike but for their date; March's is the longest (the lowest BM25 without the date)
    for slug, date, extra in (("jan", "2025-01-14", 1), ("mar", "2025-03-04", 4), ("may", "2025-05-20", 1)):
        notes[f"meetings/river-sync-{slug}.md"] = (f"# River AI sync\n\nHeld on {date}.\n\n" + (FILLER + "\n\n") * extra)
    notes["companies/river-ai.md"] = (
        "# River AI\n\nPayments for rivers.\n\n---\n\n"
        "- **2025-06-10** | meeting — Board call.\n- **2024-11-02** | email — Intro from Ana.\n")
    # dates written with slashes (obsidian-help's "Released on 2022/03/14"); April's notes are shorter
    for v, date, extra in (("1.2", "2022/02/20", 1), ("1.3", "2022/03/14", 3), ("1.4", "2022/04/02", 1), ("1.5", "2022/04/28", 1)):
        notes[f"release/v{v}.md"] = f"Released on {date}.\n\n## Fixed\n\n" + "- The editor no longer freezes.\n" * extra
    for i in range(12):
        notes[f"notes/n{i}.md"] = f"# Note {i}\n\nNothing about that company, written {2020 + i % 5}.\n"
    return notes


@pytest.fixture
def brain(tmp_path, db_path):
    tree = write_tree(tmp_path / "vault", _notes())
    with Brain.open(db_path) as b:
        import_tree(b, tree)
        yield b


@pytest.mark.parametrize("query", ["River AI sync March 2025", "river ai sync in mar 2025", "River AI sync 4 March 2025",
                                   "River AI sync March 4th, 2025", "River AI sync 2025 March"])
def test_a_month_in_words_finds_the_page_dated_in_it(brain, query):
    hits = keyword.search(brain.conn, query, limit=5)
    assert hits[0]["slug"] == "meetings/river-sync-mar", [h["slug"] for h in hits]


def test_a_date_written_with_slashes_is_found_too(brain):
    hits = keyword.search(brain.conn, "release notes March 2022", limit=5)
    assert hits[0]["slug"] == "release/v1.3", [h["slug"] for h in hits]


def test_the_keyword_side_of_query_finds_it_too(brain):
    slug = {r[0]: r[1] for r in brain.conn.execute("SELECT id, slug FROM pages")}
    top = keyword.keyword_candidates(brain.conn, "River AI sync March 2025", limit=5)
    assert slug[top[0]["id"]] == "meetings/river-sync-mar"


@pytest.mark.engine_free
def test_date_phrases():
    assert keyword.date_phrases("what happened in March 2025") == ["2025 03"]
    assert keyword.date_phrases("Sept. 3, 2024 and 12 dec 2023") == ["2024 09 03", "2023 12 12"]
    assert keyword.date_phrases("2025 march") == ["2025 03"]
    # a month name with no year, a year alone, a day out of range, a word that only starts like a month
    assert keyword.date_phrases("march of progress") == []
    assert keyword.date_phrases("2025") == []
    assert keyword.date_phrases("March 40, 2025") == ["2025 03"]
    assert keyword.date_phrases("marching 2025") == []
    # a date in a quoted phrase is what the phrase says, nothing more
    assert keyword.fts_parts('"March 2025"') == ['"March 2025"']


@pytest.mark.engine_free
def test_a_query_without_a_month_reads_the_same_terms():
    assert keyword.fts_parts("River AI sync 2025") == ['"River"', '"AI"', '"sync"', '"2025"']
