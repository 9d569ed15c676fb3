"""Obsidian's search operators typed into `gbrain search` (trial 71: a person coming from Obsidian
typed `tag:#moc`, `path:"05 - Concepts" para`, `file:PARA`): they are words here, as the help
says, and nothing told the person that `--tag` and `--prefix` do what they meant. Now a note says
so, naming the filter in the surface's own spelling; the hits are the same as before."""
from __future__ import annotations

import pytest
from conftest import gbrain_in_process as gbrain

from gbrain import operations as ops


@pytest.mark.parametrize("query,said", [
    ("tag:#founder", "--tag founder"),
    ("tag:yc-alum river", "--tag yc-alum"),
    ('path:"people" ana', '--prefix "people"'),
    ("path:people ana", "--prefix people"),
    ("file:river-ai", "file name"),
])
def test_an_obsidian_operator_is_searched_as_words_with_a_note_naming_the_filter(fixture_db, query, said):
    notes = []
    hits = ops.run("search", {"query": query}, ops.Context(db=str(fixture_db), on_warning=notes.append))
    plain = ops.run("search", {"query": query}, ops.Context(db=str(fixture_db)))
    assert hits == plain  # the note changes no hit
    assert len(notes) == 1 and "Obsidian" in notes[0] and said in notes[0], notes


def test_an_agent_is_told_the_parameter_not_the_flag(fixture_db):
    notes = []
    ops.run("search", {"query": "tag:founder"}, ops.Context(db=str(fixture_db), surface="mcp", on_warning=notes.append))
    assert len(notes) == 1 and '"tag": "founder"' in notes[0] and "--tag" not in notes[0], notes


@pytest.mark.parametrize("query", ["river ai", "ratio 3:1", "https://example.com/x", "C++", "meeting: Ana", "tags: founder"])
def test_a_colon_that_is_no_operator_says_nothing(fixture_db, query):
    notes = []
    ops.run("search", {"query": query}, ops.Context(db=str(fixture_db), on_warning=notes.append))
    assert not any("Obsidian" in n for n in notes), notes


def test_the_cli_says_it_on_stderr_and_exits_0(fixture_db):
    r = gbrain("--db", str(fixture_db), "search", "tag:founder")
    assert r.returncode == 0, r.stderr
    assert "--tag founder" in r.stderr.decode()


@pytest.mark.engine_free
@pytest.mark.parametrize("query", [
    "task: write the report", "file: settings", "section: intro", "content: policy", "line: 3", "path: to the file",
    "tag: founder", "10:30 meeting", "re: budget", r"C:\Users\ana\notes", "http://x", "会議：10:30 予定", "ملاحظة: اجتماع",
    '"tag:x"', "say \"file:x\" here",
])
def test_an_ordinary_query_with_a_colon_gets_no_note(query):
    """An English label with a colon and a space (``task: write the report``) is no operator:
    Obsidian's operators hold their value right after the colon (``tag:#x``, ``path:"a b"``,
    ``line:(…)``); quoted text is a phrase."""
    from gbrain.operations.core import obsidian_operator_note

    assert obsidian_operator_note(query, None) is None


@pytest.mark.engine_free
@pytest.mark.parametrize("query", ["line:(mix flour)", "-tag:#draft river", "(tag:moc)", "section:(intro)"])
def test_an_operator_value_in_parentheses_or_negated_still_gets_the_note(query):
    from gbrain.operations.core import obsidian_operator_note

    assert "Obsidian" in (obsidian_operator_note(query, None) or "")
