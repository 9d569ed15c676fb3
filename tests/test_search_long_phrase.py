"""A quoted phrase past a long page's 16,383rd word is found (Postgres caps tsvector positions at
16,383: every later word stands at 16,383, so ``"a b"`` (``a <-> b``) matched no page holding it
there; SQLite's FTS5 keeps every position). Both engines find the same pages."""
from __future__ import annotations

import random

import pytest

from gbrain.core.brain import Brain
from gbrain.search import keyword
from gbrain.sync.importer import import_tree

from conftest import write_tree


def _filler(rnd: random.Random, n: int) -> str:
    vocab = [f"term{i}" for i in range(500)]
    lines, line = [], []
    for _ in range(n):
        line.append(rnd.choice(vocab))
        if len(line) == 12:
            lines.append(" ".join(line) + ".")
            line = []
    return "\n".join(lines + [" ".join(line)])


@pytest.fixture
def brain(tmp_path, db_path):
    rnd = random.Random(7)
    notes = {
        # the phrase at about word 20,000; each word of it also alone, earlier
        "long/far.md": "# Far\n\nA quokka here. " + _filler(rnd, 20_000)
                       + "\n\nThe quokka marmalade recipe is the one.\n\n" + _filler(rnd, 500) + " marmalade.\n",
        # the words past the limit too, in the other order: no phrase
        "long/reversed.md": "# Reversed\n\n" + _filler(rnd, 20_000) + "\n\nmarmalade quokka, not the phrase.\n",
        "short.md": "# Short\n\nA short note on quokka marmalade.\n",
        "other.md": "# Other\n\nmarmalade on toast; a quokka in the zoo.\n",
    }
    tree = write_tree(tmp_path / "vault", notes)
    with Brain.open(db_path) as b:
        import_tree(b, tree)
        yield b


def test_a_phrase_past_the_position_limit_is_found(brain):
    slugs = {h["slug"] for h in keyword.search(brain.conn, '"quokka marmalade"', limit=10)}
    assert slugs == {"long/far", "short"}, slugs


def test_the_phrase_among_other_terms(brain):
    hits = keyword.search(brain.conn, '"quokka marmalade" recipe', limit=10)
    assert hits[0]["slug"] == "long/far", [(h["slug"], h["score"]) for h in hits]
    assert "long/reversed" not in {h["slug"] for h in hits}


def test_a_long_phrase_past_the_limit(brain):
    slugs = {h["slug"] for h in keyword.search(brain.conn, '"the quokka marmalade recipe"', limit=10)}
    assert slugs == {"long/far"}, slugs


def test_the_far_phrase_is_scored_as_text(brain):
    # the page holding the phrase past the limit scores it as body text (not a 0 match), with its body signal
    hits = {h["slug"]: h for h in keyword.search(brain.conn, '"quokka marmalade"', limit=10)}
    assert hits["long/far"]["score"] > 0.01, hits
    assert "body" in hits["long/far"]["signals"], hits


def test_a_date_past_the_position_limit(tmp_path, db_path):
    rnd = random.Random(3)
    tree = write_tree(tmp_path / "v", {"notes/shipping.md": "# Shipping\n\n" + _filler(rnd, 20_000) + "\n\nShipped on 2025-03-04.\n",
                                       "note.md": "# Note\n\nterm1 2025 and 03 apart.\n"})
    with Brain.open(db_path) as b:
        import_tree(b, tree)
        slugs = [h["slug"] for h in keyword.search(b.conn, "March 4, 2025", limit=10)]
        quoted = [h["slug"] for h in keyword.search(b.conn, '"2025-03-04"', limit=10)]
    # (the date's numbers as a phrase: keyword.date_phrases; the short note holds two of them apart)
    assert set(slugs) == {"note", "notes/shipping"}, slugs
    assert quoted == ["notes/shipping"], quoted


def test_without_the_fallback_postgres_misses_it(brain, monkeypatch):
    # the test can fail: on Postgres with no page counted long the limit hides the phrase again
    # (SQLite has no such limit and needs no fallback)
    monkeypatch.setattr(keyword, "PG_POSITION_BYTES", 10 ** 12)
    slugs = {h["slug"] for h in keyword.search(brain.conn, '"quokka marmalade"', limit=10)}
    assert slugs == ({"short"} if getattr(brain.conn, "dialect", "sqlite") == "postgres" else {"long/far", "short"}), slugs


@pytest.mark.engine_free
def test_the_long_pages_index_has_the_checks_predicate():
    # Postgres lists the long pages from idx_pages_long (pg_v54.sql): its predicate must be the
    # one the check writes, or the planner reads every page holding the phrase's words
    from importlib import resources
    import re as _re
    sql = (resources.files("gbrain.storage") / "sql" / "pg_v54.sql").read_text(encoding="utf-8")
    pred = _re.search(r"WHERE (.*) >= (\d+);", sql)
    assert pred.group(1) == keyword._PG_FIELD_BYTES.replace("p.", "")
    assert int(pred.group(2)) == keyword.PG_POSITION_BYTES
