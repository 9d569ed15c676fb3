"""Typo tolerance: "did you mean" for the query words no page holds (both engines).

A query word that is in no page of the brain (``Kaprathy``, ``obsdian``) is compared with the
brain's own vocabulary, the terms of its keyword index with their page counts. The index's terms
are stems (FTS5's porter on SQLite, the 'english' stems and 'simple' words of ``search_tsv`` on
Postgres), so first the strings one edit from the word (:func:`edits1`) are stemmed by the
engine's own stemmer (:func:`stems`): an edit whose stem is a term, and which is written in a page
holding it (:func:`written`), is offered, the likelier kind of edit first, then the term in the
most pages (``robtics`` → ``robotics``, stem ``robot``). When none is, the terms within
:func:`max_edits` (1 for a word of up to 5 letters, 2 for a longer one) of the word or its stem
by Damerau-Levenshtein distance (its optimal-string-alignment form, a swap of two neighbours one
edit: rapidfuzz's ``OSA``), fewest edits then most pages, shown as a word written in a page
holding the term (:func:`_surface`: ``receiv`` → ``receive``). A word some page holds is never
corrected, however rare; quoted phrases, ``word*`` prefixes, words with digits, stop words and
words under :data:`MIN_LEN` letters are left alone. Candidates are the terms beginning with the
word's first or second letter (a typo in the first letter that keeps neither is not found: the
first letter is seldom the wrong one, Pollock & Zamora, CACM 1984), read by range from the
index's vocabulary:

* SQLite: FTS5's ``fts5vocab`` over ``page_fts`` (a temporary virtual table, no storage: it reads
  the index itself, so it is always current);
* Postgres: the table ``search_vocab`` (schema v45), made from ``ts_stat`` over ``search_tsv``
  by the first search that needs it, and made again when the brain's totals (``search_totals``)
  moved by more than :data:`PG_STALE` or changed at all a day after it was made (``ts_stat``
  reads every page: ~0.2 s on 5,000 pages). A word written since is offered after that; a term
  deleted since is never offered (each suggestion is checked against the index).
"""
from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass, field

from ..storage.db import is_postgres
from . import russian
from .keyword import STOP_WORDS, _CJK_RUN, _PHRASE, _WORD, _fold, _quote, search_form

#: the shortest word corrected (a word of 3 letters has too many neighbours to guess from)
MIN_LEN = 4
#: the longest word corrected (a longer one is no typo of a word: a pasted hash or blob, whose
#: one-edit strings would be ~100 x its length squared in characters: 20 CPU-s at 3,000 letters;
#: German and Finnish compounds of 60+ letters are real words: ~0.03 CPU-s at 64)
MAX_LEN = 64
#: at most this many of a query's words are looked up
MAX_WORDS = 8
#: Postgres: ``search_vocab`` is made again when the brain's pages or lexemes moved by this share
PG_STALE = 0.01
#: the advisory lock key of the vocabulary's rebuild (one rebuild at a time; others read the old)
PG_VOCAB_LOCK = 0x6762_766F_6361_62  # 'gbvocab'
#: the candidates tried for one word, best first
CANDIDATES = 5
#: candidates' surface forms are read from at most this many pages holding the term
SURFACE_PAGES = 3
#: ... and from at most this many characters of each
SURFACE_CHARS = 200_000

_LETTERS = re.compile(r"[^\W\d_]+")


def max_edits(word: str) -> int:
    """The edits allowed to correct ``word``: 1 up to 5 letters, else 2."""
    return 1 if len(word) <= 5 else 2


@dataclass
class Suggestion:
    """``words``: (typed, suggested) pairs; ``query``: the query with those words replaced."""
    words: list[tuple[str, str]] = field(default_factory=list)
    query: str = ""

    def note(self, searched: bool) -> str:
        """What a surface says: ``searched``, the hits shown are the corrected query's (the
        query as typed found nothing); else the correction is offered."""
        missing = ", ".join(f'"{w}"' for w, _ in self.words)
        if searched:
            return f'no page holds {missing}: showing the hits for "{self.query}" (did you mean it?)'
        return f'did you mean: "{self.query}"? (no page holds {missing})'


def _candidate_words(query: str) -> list[tuple[int, int, str]]:
    """The (start, end, word) of the words of ``query`` that may be corrected: outside quoted
    phrases, no ``*`` prefix, letters only, :data:`MIN_LEN` to :data:`MAX_LEN` long, no stop word, no CJK."""
    masked = _PHRASE.sub(lambda m: " " * len(m.group(0)), query)
    out: list[tuple[int, int, str]] = []
    seen: set[str] = set()
    for m in _WORD.finditer(masked):
        w = m.group(0)
        if w.endswith("*") or not _LETTERS.fullmatch(w) or not MIN_LEN <= len(w) <= MAX_LEN or _CJK_RUN.search(w):
            continue
        f = _fold(w)
        if f in STOP_WORDS or f in seen:
            continue
        seen.add(f)
        out.append((m.start(), m.end(), w))
        if len(out) == MAX_WORDS:  # (the rest are not looked up: a 100,000-character query read on compared each word with every other, 152 CPU-s)
            break
    return out


def holds(conn, word: str) -> bool:
    """Whether some page, or a stored canvas's card (``canvas_cards``), holds ``word`` as search
    matches it (its stem or, on Postgres, its 'simple' form too; a Russian word by its stem's
    prefix, :func:`russian.prefix`: ``сетями`` is held by a page writing ``сетях``), read in
    the query's :func:`~gbrain.search.keyword.search_form` as search reads it (``ёлки`` is held
    by a page writing ``елки``, ``Łukasz`` by one writing ``Lukasz``), tatweel (U+0640) dropped
    as search drops it (:func:`~gbrain.search.keyword.harakat_bare`: ``مكتبـة`` is held by a page
    writing ``مكتبة``; before 2026-12-06 typo tolerance warned that no page held it), or a stored
    canvas's file name names it as search reads a canvas's name (:func:`~gbrain.search.keyword.canvases_named`)."""
    word = search_form(word)
    if "\u0640" in word:
        word = word.replace("\u0640", "") or word
    pre = russian.prefix(word)
    if is_postgres(conn):
        from .keyword import _PG_PART, _PG_WORD
        term, args = (_PG_PART["prefix"], [pre, pre]) if pre else (_PG_WORD, [word, word])
        if conn.execute(f"SELECT EXISTS (SELECT 1 FROM gb_match_ids({term}, 1))", args).fetchone()[0]:
            return True
        canvas = (f"SELECT EXISTS (SELECT 1 FROM canvas_cards WHERE tsv @@ {term})", args)
    else:
        q = _quote(pre) + "*" if pre else _quote(word)
        if conn.execute("SELECT 1 FROM page_fts WHERE page_fts MATCH ? LIMIT 1", [q]).fetchone() is not None:
            return True
        canvas = ("SELECT EXISTS (SELECT 1 FROM canvas_fts WHERE canvas_fts MATCH ?)", [q])
    try:
        if conn.execute(*canvas).fetchone()[0]:
            return True
    except Exception:  # noqa: BLE001 - a brain before canvases were indexed (a read-only file of an older schema)
        return False
    # a canvas's name is evidence as a page's title (keyword._canvas_names): a word it holds is no typo
    from .keyword import canvases_named, query_words

    words = query_words(word)
    return bool(words) and next(canvases_named(conn, words), None) is not None


def stems(conn, words: list[str]) -> dict[str, str]:
    """Each of ``words`` (folded) as the engine's index stems it (a stop word on Postgres:
    itself)."""
    words = list(dict.fromkeys(words))
    if not words:
        return {}
    if is_postgres(conn):
        rows = conn.execute("SELECT w, coalesce((ts_lexize('english_stem', w))[1], w) FROM unnest(string_to_array(?, ' ')) AS w",
                            [" ".join(words)]).fetchall()
        return {w: s for w, s in rows}
    mem = sqlite3.connect(":memory:")
    try:
        mem.execute("CREATE VIRTUAL TABLE s USING fts5(w, tokenize='porter unicode61')")
        mem.executemany("INSERT INTO s(rowid, w) VALUES (?, ?)", list(enumerate(words, 1)))
        mem.execute("CREATE VIRTUAL TABLE v USING fts5vocab(s, 'instance')")
        got = {doc: term for doc, term in mem.execute("SELECT doc, term FROM v")}
    finally:
        mem.close()
    return {w: got.get(i, w) for i, w in enumerate(words, 1)}


def _sqlite_vocab(conn: sqlite3.Connection) -> sqlite3.Connection | None:
    """Make the temporary ``fts5vocab`` tables on ``conn``; on a connection that refuses every
    write, even of a temporary table (``PRAGMA query_only``: ``serve --read-only``), on a second,
    read-only connection to the same file, returned (the caller closes it); None when neither can."""
    sql = ("CREATE VIRTUAL TABLE IF NOT EXISTS temp.gb_vocab USING fts5vocab(main, page_fts, 'row')",
           "CREATE VIRTUAL TABLE IF NOT EXISTS temp.gb_vocab_i USING fts5vocab(main, page_fts, 'instance')")
    try:
        for q in sql:
            conn.execute(q)
        return conn
    except sqlite3.OperationalError:
        path = next((r[2] for r in conn.execute("PRAGMA database_list") if r[1] == "main"), "")
        if not path:
            return None
        from pathlib import Path

        from ..storage.db import raw_connect

        side = raw_connect(Path(path), read_only=True)
        for q in sql:
            side.execute(q)
        return side


def _pg_vocab_fresh(conn) -> bool:
    """Make ``search_vocab`` again when it is missing or stale (module docstring). False when it
    was never made and cannot be now (a brain this process may not write: a read-only role or
    ``serve --read-only``; or a caller's open transaction, which a failed rebuild would end): then
    the vocabulary is read from the index itself (``ts_stat``) for this call. A stale one that
    cannot be made again is read as it is."""
    state = "SELECT t.pages, t.lexemes, s.pages, s.lexemes, s.built_at < now() - interval '1 day' FROM search_totals t LEFT JOIN search_vocab_state s ON true"
    pages, lexemes, sp, sl, old = conn.execute(state).fetchone()
    if sp is not None and abs(pages - sp) <= PG_STALE * max(sp, 1) and abs(lexemes - sl) <= PG_STALE * max(sl, 1) and not (
            old and (pages, lexemes) != (sp, sl)):
        return True
    if not conn.in_transaction:
        try:
            conn.execute("SELECT gb_vocab_rebuild(?)", [PG_VOCAB_LOCK])
        except Exception:  # noqa: BLE001 - read-only: the vocabulary there is, or the index's own
            pass
    return conn.execute("SELECT EXISTS (SELECT 1 FROM search_vocab_state)").fetchone()[0]


class _Vocab:
    """The vocabulary's terms by first letter, each range read once: ``terms(lo)`` → {term: pages}."""

    def __init__(self, conn, live: bool = False):
        self.conn, self.live, self.got = conn, live, {}

    def terms(self, lo: str) -> dict[str, int]:
        if lo not in self.got:
            self.got[lo] = {t: int(n) for t, n in self._range(lo)}
        return self.got[lo]

    def _range(self, lo: str) -> list[tuple[str, int]]:
        hi = lo[:-1] + chr(ord(lo[-1]) + 1)
        if self.live:  # (Postgres, no cache: every page's tsvector read, per range)
            return self.conn.execute("SELECT word, ndoc FROM ts_stat('SELECT search_tsv FROM pages') "
                                     "WHERE word COLLATE \"C\" >= ? AND word COLLATE \"C\" < ?", [lo, hi]).fetchall()
        if is_postgres(self.conn):
            return self.conn.execute("SELECT term, pages FROM search_vocab WHERE term >= ? AND term < ?", [lo, hi]).fetchall()
        return self.conn.execute("SELECT term, doc FROM temp.gb_vocab WHERE term >= ? AND term < ?", [lo, hi]).fetchall()


def edits1(word: str) -> dict[str, int]:
    """The strings one edit from ``word`` (Norvig, "How to Write a Spelling Corrector", 2007:
    ``edits1``; letters a-z and ``word``'s own), each with its kind's rank, the likelier typo
    first: 0 a letter left out (inserted here), 1 two neighbours swapped, 2 a letter too many
    (deleted here), 3 a letter mistyped (replaced). ``breadcrums`` is ``breadcrumbs`` (0)
    before ``breadcrumb`` (3)."""
    letters = "".join(sorted(set("abcdefghijklmnopqrstuvwxyz") | set(word)))
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    out: dict[str, int] = {}
    for rank, edits in enumerate((
            (a + c + b for a, b in splits for c in letters),
            (a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1),
            (a + b[1:] for a, b in splits if b),
            (a + c + b[1:] for a, b in splits if b for c in letters))):
        for e in edits:
            out.setdefault(e, rank)
    out.pop(word, None)
    return out


def _closest(conn, word: str, stem: str, ranges: _Vocab) -> list[tuple[int, int, str, tuple[str, ...]]]:
    """Candidates for ``word`` (folded; ``stem`` its stem): (edits, -pages, term, words), best
    first. First the index's terms that are the stem of a string one edit away (``words``: those
    strings; ``robtics`` → ``robotics``, stem ``robot``; a string that is no word may stem to a
    term too, ``etherou`` → ``ether``: :func:`written` tells); when there is none, the index's
    terms within :func:`max_edits` of the word or its stem (a term not beginning with the word's
    first letter counts one edit more), no ``words``: :func:`_surface` finds one."""
    from rapidfuzz.distance import OSA

    firsts = list(dict.fromkeys(x for x in (word[:1], word[1:2]) if x))
    kinds = edits1(word)
    near = sorted((e for e in kinds if e[:1] in firsts), key=lambda e: (kinds[e], e))
    st = stems(conn, near)
    found: dict[str, tuple[int, int, str, tuple[str, ...]]] = {}
    for e in near:
        t = st.get(e, e)
        if t[:1] not in firsts:
            continue
        n = ranges.terms(t[:1]).get(t)
        if n:
            found[t] = (1, -n, t, found[t][3] + (e,) if t in found else (e,))
    if found:
        return sorted(found.values())
    k = max_edits(word)
    forms = {word, stem}
    for lo in firsts:
        for term, n in ranges.terms(lo).items():
            if term in forms or not _LETTERS.fullmatch(term):
                continue
            extra = 0 if term[:1] == word[:1] else 1
            d = min((OSA.distance(f, term, score_cutoff=k) for f in forms if abs(len(term) - len(f)) <= k), default=k + 1) + extra
            if d <= k and (term not in found or found[term][0] > d):
                found[term] = (d, -n, term, ())
    return sorted(found.values())


#: :func:`written` reads at most this many of the pages holding the term
WRITTEN_PAGES = 200


def written(conn, term: str, word: str) -> bool:
    """Whether ``word`` (folded, ASCII) is written in a page holding index term ``term`` (as
    part of a word: ``robot`` in ``robotics`` too), among the first :data:`WRITTEN_PAGES`."""
    if is_postgres(conn):
        return conn.execute(
            "SELECT EXISTS (SELECT 1 FROM (SELECT id FROM pages WHERE search_tsv @@ quote_literal(?)::tsquery LIMIT ?) AS x JOIN pages p "
            "USING (id) WHERE strpos(lower(gb_fold(concat_ws(' ', p.title, p.search_aliases, p.path, p.search_headings, p.compiled_truth, "
            "p.timeline, p.search_words))), ?) > 0)", [term, WRITTEN_PAGES, word]).fetchone()[0]
    return conn.execute(
        "SELECT 1 FROM pages p WHERE p.id IN (SELECT DISTINCT doc FROM temp.gb_vocab_i WHERE term = ? LIMIT ?) AND instr(lower("
        "p.title || ' ' || coalesce(p.search_aliases, '') || ' ' || p.path || ' ' || coalesce(p.search_headings, '') || ' ' || "
        "p.compiled_truth || ' ' || p.timeline || ' ' || coalesce(p.search_words, '')), ?) > 0 LIMIT 1", [term, WRITTEN_PAGES, word]).fetchone() is not None


def _pages_of(conn, term: str) -> list[int]:
    if is_postgres(conn):
        return [r[0] for r in conn.execute("SELECT id FROM pages WHERE search_tsv @@ quote_literal(?)::tsquery LIMIT ?",
                                           [term, SURFACE_PAGES]).fetchall()]
    return [r[0] for r in conn.execute("SELECT DISTINCT doc FROM temp.gb_vocab_i WHERE term = ? LIMIT ?", [term, SURFACE_PAGES])]


def _surface(conn, typed: str, term: str) -> str | None:
    """A word written in a page holding index term ``term`` that the index reads as ``term``
    (folded), the one closest to ``typed``, then the most written; None when the term is in
    no page now, or no word of its length give or take :func:`max_edits` is written so (the
    stem alone, ``occurr`` of ``occurrences``, is no word to offer)."""
    from rapidfuzz.distance import OSA

    ids = _pages_of(conn, term)
    if not ids:
        return None
    counts: dict[str, int] = {}
    for i in ids:
        r = conn.execute("SELECT title, search_aliases, search_headings, path, compiled_truth, timeline FROM pages WHERE id = ?", [i]).fetchone()
        text = "\n".join(x for x in r if x)[:SURFACE_CHARS]
        for w in _LETTERS.findall(text):
            f = _fold(w)
            if f[:1] == term[:1] and abs(len(f) - len(typed)) <= max_edits(typed):
                counts[f] = counts.get(f, 0) + 1
    if term in counts:
        return term
    st = stems(conn, list(counts))
    same = [w for w in counts if st.get(w) == term]
    if not same:  # no word written near the typed one reads as the term: never offer the stem itself (trial 43: "occurr")
        return None
    return min(same, key=lambda w: (OSA.distance(typed, w), -counts[w], w))


def _correct(conn, f: str, stem: str, ranges: _Vocab) -> str | None:
    """The word to offer for ``f`` (a folded word no page holds), or None: the best candidate
    (:func:`_closest`) whose one-edit word is written in a page holding its term, else the first
    whose :func:`_surface` is within :func:`max_edits` of ``f``."""
    from rapidfuzz.distance import OSA

    cands = _closest(conn, f, stem, ranges)[:CANDIDATES]
    for _d, _n, term, edits in cands:
        got = next((x for x in edits if x.isascii() and written(conn, term, x)), None)
        if got:
            return got
    for _d, _n, term, _edits in cands:
        s = _surface(conn, f, term)
        if s and OSA.distance(f, s) <= max_edits(f):
            return s
    return None


#: the shortest word looked for inside the brain's longer words (:func:`inside`)
INSIDE_MIN = 5
#: at most this many of the words holding it are searched, those in the most pages first
INSIDE_TERMS = 8


@dataclass
class Inside:
    """``words``: (typed, [index words holding it]) pairs; ``query``: the query with each such
    word replaced by those words as prefixes (``Haftpflicht`` → ``haftpflichtversicherung*
    betriebshaftpflichtversicherung*``)."""
    words: list[tuple[str, list[str]]] = field(default_factory=list)
    query: str = ""

    def note(self) -> str:
        return "; ".join(f'no page holds "{w}" as a word: searched inside the words holding it ({", ".join(t[:INSIDE_TERMS])})'
                         for w, t in self.words)


def _written_form(conn, term: str) -> str:
    """A word written in a page holding index term ``term`` that begins with it (folded), the
    most written (``bahnhofstrass``, a stem, → ``bahnhofstrasse``); the term when none does."""
    counts: dict[str, int] = {}
    for i in _pages_of(conn, term):
        r = conn.execute("SELECT title, search_aliases, search_headings, compiled_truth, timeline FROM pages WHERE id = ?", [i]).fetchone()
        for w in _LETTERS.findall("\n".join(x for x in r if x)[:SURFACE_CHARS]):
            if len(w) >= len(term) and _fold(w).startswith(term):
                counts[w] = counts.get(w, 0) + 1
    return max(counts, key=lambda w: (counts[w], -len(w), w)) if counts else term


def inside(conn, query: str, skip: frozenset[str] | set[str] = frozenset(), memo: dict | None = None) -> Inside | None:
    """The words of ``query`` no page holds as a word (:func:`holds`) that the brain's index
    holds inside longer words, and the query searching those instead: a part of a compound
    (German ``Haftpflicht`` in ``Betriebshaftpflichtversicherung``, ``Bahnhof`` in
    ``Hauptbahnhof``, as Obsidian's substring search finds them; trial 43); None when no word
    is so. Words of :data:`INSIDE_MIN` letters or more, as :func:`_candidate_words` picks them
    (no phrase, prefix, digit, stop word, CJK); the index's words (their stems, folded) holding
    the folded word, the :data:`INSIDE_TERMS` in the most pages. Read from the vocabulary as
    typos are (one scan of it per such word, only for a word no page holds: on SQLite ~50 ms CPU
    on obsidian-help's 1,780 pages, as fts5vocab reads every term's pages; the caller skips the
    words :func:`suggest` corrects, ``skip``, so a typo costs no scan)."""
    missing = [(a, b, w) for a, b, w in _candidate_words(query) if len(w) >= INSIDE_MIN and w not in skip and not _held(conn, w, memo)]
    if not missing:
        return None
    if is_postgres(conn):
        vc = conn
        sql = "SELECT term FROM search_vocab WHERE strpos(term, ?) > 0 AND term <> ? ORDER BY pages DESC, term LIMIT ?"
        if not _pg_vocab_fresh(conn):
            sql = ("SELECT word FROM ts_stat('SELECT search_tsv FROM pages') WHERE strpos(word, ?) > 0 AND word <> ? "
                   "ORDER BY ndoc DESC, word LIMIT ?")
    else:
        vc = _sqlite_vocab(conn)
        if vc is None:
            return None
        sql = "SELECT term FROM temp.gb_vocab WHERE instr(term, ?) > 0 AND term <> ? ORDER BY doc DESC, term LIMIT ?"
    out = Inside()
    text, shift = query, 0
    try:
        for a, b, w in missing:
            f = _fold(w)
            terms = [r[0] for r in vc.execute(sql, [f, f, INSIDE_TERMS]).fetchall() if _LETTERS.fullmatch(r[0])]
            if not terms:
                continue
            out.words.append((w, [_written_form(vc, t) for t in terms]))
            s = " ".join(t + "*" for t in terms)
            text = text[: a + shift] + s + text[b + shift:]
            shift += len(s) - (b - a)
    finally:
        if vc is not conn:
            vc.close()
    if not out.words:
        return None
    out.query = text
    return out


def _held(conn, word: str, memo: dict | None) -> bool:
    """:func:`holds`, remembered in ``memo`` (one look-up per word when a search asks twice)."""
    if memo is None:
        return holds(conn, word)
    if word not in memo:
        memo[word] = holds(conn, word)
    return memo[word]


def suggest(conn, query: str, memo: dict | None = None) -> Suggestion | None:
    """The corrections of ``query``'s words that no page holds (module docstring), and the
    query with them; None when every word is held or none has a near term. ``memo``: the
    :func:`holds` answers already read (shared with :func:`inside`)."""
    missing = [(a, b, w) for a, b, w in _candidate_words(query) if not _held(conn, w, memo)]
    if not missing:
        return None
    if is_postgres(conn):
        return _suggest(conn, query, missing, _Vocab(conn, live=not _pg_vocab_fresh(conn)))
    vc = _sqlite_vocab(conn)
    if vc is None:
        return None
    try:
        return _suggest(vc, query, missing, _Vocab(vc))
    finally:
        if vc is not conn:
            vc.close()


def _suggest(conn, query: str, missing: list[tuple[int, int, str]], ranges: _Vocab) -> Suggestion | None:
    st = stems(conn, [_fold(w) for _, _, w in missing])
    out = Suggestion()
    text, shift = query, 0
    for a, b, w in missing:
        f = _fold(w)
        s = _correct(conn, f, st.get(f, f), ranges)
        if s and holds(conn, s):
            out.words.append((w, s))
            text = text[: a + shift] + s + text[b + shift:]
            shift += len(s) - (b - a)
    if not out.words:
        return None
    out.query = text
    return out
