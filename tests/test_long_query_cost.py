"""A long query (a pasted passage, a script's bug) costs time linear in its length: no step of
a search compares each of its words with every other (review of trial 66: 100,000 characters of
Devanagari took 152 CPU-s in the typo look-up's word list, 12,000 CJK characters 74 CPU-s in the
phrase evidence's pairs, 10 in the FTS5 query's dedupe). The figures are operation counts, never
times (benchmarks/search_cpu.py gives the CPU)."""
from __future__ import annotations

import random

import pytest

from gbrain.search import keyword, spell

pytestmark = pytest.mark.engine_free


def _words(n: int, k: int = 8, seed: int = 1) -> list[str]:
    rnd = random.Random(seed)
    return ["".join(rnd.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(k)) for _ in range(n)]


def test_the_typo_look_up_reads_only_the_words_it_may_correct(monkeypatch):
    words = _words(3000)
    q = " ".join(words)
    calls = []
    real = spell._fold
    monkeypatch.setattr(spell, "_fold", lambda w: calls.append(w) or real(w))
    got = spell._candidate_words(q)
    assert [w for _, _, w in got] == words[: spell.MAX_WORDS]
    assert len(calls) < 20 * spell.MAX_WORDS, len(calls)  # (before: ~4.5 million for 3,000 words)


def test_the_typo_look_up_words_are_as_before_with_repeats_and_stop_words():
    q = "Obsdian the obsdian OBSDIAN notes cat graph vaults linking canvas plugins themes sync publish"
    got = [w for _, _, w in spell._candidate_words(q)]
    assert got == ["Obsdian", "notes", "graph", "vaults", "linking", "canvas", "plugins", "themes"]


def test_phrase_pairs_of_a_long_query_are_its_first_pairs_bounded():
    words = _words(20_000)
    pairs = keyword.phrase_pairs(" ".join(words))
    assert len(pairs) == keyword.PHRASE_MAX_PAIRS  # (before: 19,999, each compiled once per page read)
    assert pairs == list(zip(words, words[1:]))[: keyword.PHRASE_MAX_PAIRS]
    # each pair's expression is compiled once per search: the cache holds every pair of one
    assert keyword._pair_regex.cache_info().maxsize >= keyword.PHRASE_MAX_PAIRS


def test_phrase_pairs_keep_each_pair_once_in_order():
    q = "graph view graph view canvas graph view"
    assert keyword.phrase_pairs(q) == [("graph", "view"), ("view", "graph"), ("view", "canvas"), ("canvas", "graph")]


class _Counted(str):
    eqs = 0

    def __eq__(self, other):
        _Counted.eqs += 1
        return str.__eq__(self, other)

    __hash__ = str.__hash__


@pytest.mark.parametrize("text", [" ".join(_words(3000)), " ".join("".join(chr(0x4E00 + (i * 7919 + j) % 20000) for j in range(3)) for i in range(3000))],
                         ids=["words", "cjk"])
def test_the_fts_query_keeps_each_term_once_without_comparing_every_pair(monkeypatch, text):
    real = keyword._terms
    monkeypatch.setattr(keyword, "_terms", lambda *a, **k: [_Counted(t) for t in real(*a, **k)])
    _Counted.eqs = 0
    parts = keyword.fts_parts(text)
    assert parts == list(dict.fromkeys(parts)) and len(parts) > 1
    assert _Counted.eqs < 4 * len(parts), _Counted.eqs  # (before: every term with every earlier one)


def test_a_long_cjk_run_is_searched_by_its_first_bigrams():
    run = "".join(chr(0x4E00 + (i * 7919) % 20000) for i in range(30_000))
    (phrase,) = keyword._cjk_terms(run)
    assert phrase == '"' + " ".join(run[i : i + 2] for i in range(keyword.CJK_MAX_BIGRAMS)) + '"'
    assert len(keyword.cjk_loosened(run).split()) == keyword.CJK_MAX_BIGRAMS
    assert len(keyword._cjk_phrase([run[:100], run[100:]])[1:-1].split()) == keyword.CJK_MAX_BIGRAMS
    short = run[: keyword.CJK_MAX_BIGRAMS + 1]  # (a run at the cap: every bigram, as before)
    assert keyword._cjk_terms(short) == ['"' + " ".join(short[i : i + 2] for i in range(len(short) - 1)) + '"']
    assert keyword.cjk_loosened(short).split() == [short[i : i + 2] for i in range(len(short) - 1)]
