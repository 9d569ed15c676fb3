"""Known-item name evidence (keyword.rank, step 3 of docs/search.md "How search ranks"): a
folder's name is no page's name, and a name's precision is taken against the name that holds
the query's words. Both engines (``--engine postgres``: keyword._rank_pg takes the same rules)."""
from __future__ import annotations

import pytest

from gbrain.core.brain import Brain
from gbrain.search import keyword


def _top(b, q, n=3):
    return [h["slug"] for h in keyword.search(b.conn, q, limit=n)]


#: one-word titles: a folder word named each such page with precision 1
CALLS = ("kickoff standup review retro planning sync demo triage onboarding offsite debrief checkin huddle briefing "
         "interview workshop summit roundtable brainstorm postmortem handoff walkthrough showcase townhall lunch").split()


@pytest.fixture
def folders(db_path):
    """25 call notes under ``meetings/`` (each mentions the budget once), a 3-page ``apollo/``
    folder, 60 fillers, and the note a person means by ``meetings budget``."""
    b = Brain.open(db_path)
    for w in CALLS:
        b.put(f"meetings/{w}", f"# {w.title()}\n\nWe went over the budget sheet. " + "Notes and other words here. " * 3 + "\n")
    for i in range(3):
        b.put(f"apollo/part-{i}", f"# Part {i}\n\nA piece of the plan, number {i}.\n")
    for i in range(60):
        b.put(f"other/filler-{i:02d}", f"# Filler {i}\n\nNothing here but words {i} and more words.\n")
    # (``meetings`` twice: Postgres' BM25 counts a path's words twice, its 'simple' and 'english'
    # lexemes (pg_v11), so the call notes' folder weighs more there than on SQLite)
    b.put("notes/spending", "# Spending plan\n\nThe budget for our meetings: budget lines, budget owners, and who signs off at meetings.\n")
    yield b
    b.close()


def test_a_folder_name_in_many_paths_names_no_page(folders, monkeypatch):
    """``meetings`` is in the path of 25 pages, only as their folder: it named each of them (name
    evidence with precision 1: their titles are one word), so 25 call notes that mention the
    budget once came before the note about the meetings' budget. Now a word only in the folders
    of more than ``FOLDER_NAME_MAX`` (20) paths counts as text (BM25's path field), not as a name."""
    assert _top(folders, "meetings budget", 1) == ["notes/spending"]
    kickoff = folders.page_row("meetings/kickoff")["id"]
    on = {h["id"]: h for h in keyword.rank(folders.conn, "meetings budget", limit=100)}
    monkeypatch.setattr(keyword, "FOLDER_NAME_MAX", 0)  # the rule before
    off = {h["id"]: h for h in keyword.rank(folders.conn, "meetings budget", limit=100)}
    # the folder named each call note: name evidence, precision 1 (a one-word title), for
    # ``meetings``, one of the query's two words of about the same IDF: about half NAME_WEIGHT
    assert off[kickoff]["score"] - on[kickoff]["score"] > 0.4 * keyword.NAME_WEIGHT, (on[kickoff], off[kickoff])
    assert off[kickoff]["bm25"] == on[kickoff]["bm25"]


def test_a_small_folder_still_names_its_pages(folders):
    """A folder of 20 or fewer pages is a name (``apollo/part-1``: the project's parts)."""
    hits = keyword.rank(folders.conn, "apollo", limit=5)
    assert len(hits) == 3 and all("path" in h["signals"] for h in hits)
    assert all(h["score"] > 1.1 for h in hits), hits  # the best BM25 (1) plus name evidence


def test_the_name_precision_is_that_of_the_name_holding_the_words(db_path, monkeypatch):
    """A page whose short title holds none of the query's words (``QS``, or a title in another
    script) was scored as if the query named all of it (precision: matched words / words of
    the shortest name, 2/1 capped at 1) through a long alias holding two of five words; the
    page titled with exactly those words came second. Now the precision is taken against the
    shortest title or alias that holds a query word: 2/5, squared."""
    with Brain.open(db_path) as b:
        b.put("a/qs", "---\naliases: [Quick switcher tips tricks shortcuts]\n---\n# QS\n\n"
              + "The quick switcher opens notes; quick switcher keys, quick switcher history.\n" * 3)
        b.put("b/quick-switcher", "# Quick switcher\n\nOpen any note by its name with the quick switcher.\n" + "Other text. " * 40)
        b.put("c/kuaisu", "---\naliases: [Quick switcher]\n---\n# 快速切换器\n\n用快速切换器打开笔记。\n" + "更多 文字 " * 40)
        for i in range(30):
            b.put(f"z/f{i}", f"# F {i}\n\nA quick note {i}.\n")
        got = _top(b, "quick switcher guide", 3)
        # (c/kuaisu's place against a/qs is BM25's: since v21 the bigrams of its Chinese text count
        # in its length, and it is the longer page)
        assert got[0] == "b/quick-switcher" and set(got) == {"a/qs", "b/quick-switcher", "c/kuaisu"}, got
        # (the bonuses below are the name evidence alone: phrase evidence, which all three pages'
        # "quick switcher" earns, is another term: tests/test_phrase_search.py; so is the
        # contained-name evidence two of them earn, the query holding their names whole:
        # tests/test_search_engine_parity.py)
        monkeypatch.setattr(keyword, "PHRASE_WEIGHT", 0.0)
        monkeypatch.setattr(keyword, "CONTAINED_WEIGHT", 0.0)
        # the Chinese title with an English alias is named by it as fully as the English title
        # is (precision 2/2): the whole name bonus, NAME_WEIGHT (the query's third word is in
        # no page, so the two are its whole weight)
        bonus = {h["id"]: h["score"] - h["bm25"] / max(x["bm25"] for x in keyword.rank(b.conn, "quick switcher", limit=3))
                 for h in keyword.rank(b.conn, "quick switcher guide", limit=3)}
        assert bonus[b.page_row("c/kuaisu")["id"]] == pytest.approx(keyword.NAME_WEIGHT, abs=0.01), bonus
        # a/qs is named by two of its alias's five words: (2/5)² of the bonus
        qs = b.page_row("a/qs")["id"]
        assert bonus[qs] == pytest.approx(keyword.NAME_WEIGHT * (2 / 5) ** 2, abs=0.01), bonus
        monkeypatch.setattr(keyword, "PRECISION_OF_HOLDING", False)  # the rule before: as if named whole by ``QS``
        before = {h["id"]: h["score"] - h["bm25"] / max(x["bm25"] for x in keyword.rank(b.conn, "quick switcher", limit=3))
                  for h in keyword.rank(b.conn, "quick switcher guide", limit=3)}
        assert before[qs] == pytest.approx(keyword.NAME_WEIGHT, abs=0.01), before
        # (which page that puts first is BM25's: Postgres counts b/quick-switcher's path words twice,
        # 'simple' and 'english' lexemes (pg_v11), and keeps it first there)
        if getattr(b.conn, "dialect", "sqlite") == "sqlite":
            assert _top(b, "quick switcher guide", 1) == ["a/qs"]


@pytest.mark.engine_free
def test_holding_length():
    assert keyword._holding_length("快速切换器", "Quick switcher", ["quick", "switcher"], set()) == 2
    assert keyword._holding_length("QS", "Quick switcher tips tricks shortcuts", ["quick", "switcher"], set()) == 5
    # no name holds a word (a path named the page): the shortest of all, as before
    assert keyword._holding_length("QS", "Quick switcher tips", ["zebra"], set()) == 1
