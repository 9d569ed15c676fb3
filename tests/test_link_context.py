"""A link's context is its sentence: found in time linear in the paragraph, not per link.

A note of thousands of lines with a link on each and no sentence end (one paragraph) made
``watch`` spend 20+ minutes on it: every link re-scanned and re-split the whole paragraph.
"""
from __future__ import annotations

import re

from hypothesis import given, settings, strategies as st

import gbrain.page.markdown as md
from gbrain.page.markdown import parse_page
import pytest

pytestmark = pytest.mark.engine_free  # the same on both engines: runs in the SQLite run only (conftest)

_END = re.compile(r"(?<=[.!?])\s+|\n(?=[ \t]*\|)|(?<=\|)[ \t]*\n")  # v23: table rows too


def _sentence_before(text: str, start: int, end: int) -> str:
    """The context rule as it was (the oracle): the sentence holding [start, end), ≤ 300 chars."""
    lo = 0
    for m in _END.finditer(text):
        if m.end() <= start:
            lo = m.end()
        elif m.start() >= end:
            hi = m.start()
            break
    else:
        hi = len(text)
    s = " ".join(text[lo:hi].split())
    return s if len(s) <= 300 else s[:297] + "..."


_CHARS = st.sampled_from(list("ab .!?\n\t  xyz|") + ["\u00a0", "\u3000", "é"])


@settings(max_examples=400, deadline=None)
@given(st.text(_CHARS, max_size=900), st.data())
def test_every_span_gets_the_sentence_the_old_rule_gave(text, data):
    spans = md._Sentences(text)
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    assert spans.around(start, end) == _sentence_before(text, start, end)


def test_a_long_sentence_is_cut_as_before():
    text = "word " * 5000 + "end. Next one."
    s = md._Sentences(text)
    for a, b in ((0, 4), (12_000, 12_004), (len(text) - 4, len(text))):
        assert s.around(a, b) == _sentence_before(text, a, b)


def test_a_paragraph_of_many_links_finds_its_sentence_ends_once(monkeypatch):
    """Each link of one paragraph used to run the sentence-end search over the whole paragraph."""
    calls = []
    real = md._SENTENCE_END_RE

    class Counting:
        def finditer(self, text):
            calls.append(len(text))
            return real.finditer(text)

    monkeypatch.setattr(md, "_SENTENCE_END_RE", Counting())
    text = "".join(f"Line {i} lorem ipsum [[Home]] #bigtag word{i}\n" for i in range(3000))
    page = parse_page(text, "Huge.md")
    [link] = page.links
    assert link.count == 3000 and link.context.startswith("Line 0 lorem ipsum Home #bigtag word0 Line 1")
    assert len(calls) == 1, f"{len(calls)} scans of the paragraph"


def test_a_repeated_link_gets_its_context_once(monkeypatch):
    """A page of 1.5 million ``[[x]]`` took 123 s and 2.3 GB to save: every repeat built a
    context and a Link that the de-duplication then dropped. Only the first occurrence of a
    target's context is kept, so only it is computed."""
    calls = []
    real = md._Sentences.around

    def counting(self, start, end):
        calls.append(start)
        return real(self, start, end)

    monkeypatch.setattr(md._Sentences, "around", counting)
    page = parse_page("word [[x]] " * 2000 + "\n\nand [[y]] [[X]] ![[x]] [[x#h]] [[x#h]] [x](x.md)\n", "P.md")
    assert [(ln.kind, ln.target, ln.count, ln.forms) for ln in page.links] == [
        ("wiki", "x", 2004, ["[[x]]", "[[X]]", "![[x]]", "[[x#h]]"]),
        ("wiki", "y", 1, ["[[y]]"]),
        ("markdown", "x", 1, ["(x.md)"]),
    ]
    assert page.links[0].context.startswith("word x word x")
    assert len(calls) == 3, f"{len(calls)} contexts built for 3 links"


TABLE = ("# Team\n\nIntro para.\n\n| Name | Role | Notes |\n|---|---|---|\n"
         "| [[Ana Lima]] | CEO | met at the meetup in Lisbon |\n"
         "| [[Bo Chen]] | CTO | builds the platform. Ships weekly |\n"
         "| Cy | [Dee](people/dee.md) | x |\n")


def test_a_link_in_a_table_has_its_row_as_context():
    """A user trial: a backlink from a table showed the whole table (up to 300 characters) as its
    context; it is the row holding the link (a line of the paragraph that starts or ends with
    ``|`` is a unit of its own, split into sentences as any text)."""
    got = {ln.target: ln.context for ln in parse_page(TABLE, "team.md").links}
    assert got == {"Ana Lima": "| Ana Lima | CEO | met at the meetup in Lisbon |",
                   "Bo Chen": "| Bo Chen | CTO | builds the platform.",
                   "people/dee": "| Cy | Dee | x |"}, got

