"""Keyword search: FTS5 with BM25 ranking over weighted fields, safe for any user text.

User text is never passed to FTS5 as query syntax. :func:`fts_query` turns it into a query
of quoted terms: each word becomes a string literal (``"word"``), text in double quotes stays a
phrase, a trailing ``*`` on a word keeps prefix search, and the terms are joined with ``OR``
so ranking is classic BM25 over all query terms (Robertson & Zaragoza 2009; FTS5 ``bm25()``).
FTS5 operators typed by the user (``AND``, ``NOT``, ``NEAR``, ``-``, ``:``) are plain words.
Quoting rule: FTS5 spec §3.1, a string is enclosed in ``"`` with embedded ``"`` doubled.
Postgres reads the same terms (:func:`pg_parts`): a word and a phrase through ``plainto_tsquery``
/ ``phraseto_tsquery``, a prefix as ``plainto_tsquery``'s lexeme marked ``:*``; tsquery
operators typed by the user (``&``, ``|``, ``!``, ``<->``, ``:*``) are separators there too.

Fields (``page_fts`` columns, migration v6): title, aliases, path, headings, compiled truth,
timeline, and the ASCII words glued to CJK text. BM25 weights them (:data:`WEIGHTS`); stop
words of a query that has other words count in the body fields only (a question's "are" or
"you" never matches a title).

Known-item ranking (:func:`rank`): FTS5's BM25 normalises by the length of the whole page, so
a title match in a long note weighs little, and a long note that mentions every word in passing
can outrank the note *named* by the query. The best :data:`RERANK` candidates by coordinated
BM25 (``cbm25``: BM25 times the coordination factor below) are re-scored as
``cbm25 / max_cbm25 + NAME_WEIGHT · name + HEADING_WEIGHT · heading + EXACT_WEIGHT ·
exact`` where ``name`` is the IDF-weighted share of the query's words found in the title,
aliases or path (Robertson's IDF; the idea of per-field evidence is BM25F's, Robertson,
Zaragoza & Taylor, CIKM 2004), ``heading`` the same share in the headings, and ``exact`` is 1
when the whole query is the page's title, an alias or its file name; a short query holding a
page's whole name adds ``CONTAINED_WEIGHT`` × the share its name covers (:func:`_contained_name`:
``PARA`` for "PARA method"). A name field counts only
for the query words it holds as written (:func:`names_word`: ``atomically`` shares ``Atom``'s
porter stem but does not name it; such a field weighs 0 in the page's BM25); a word the path
holds only in its folders, in more than :data:`FOLDER_NAME_MAX` pages' paths, names nothing (a
folder's name is no name of its pages); ``name`` is times the name's precision squared, taken
against the shortest title or alias holding a query word (:func:`_holding_length`); both engines
(:func:`_name_len`, :func:`_precision`, :func:`_folder_names`). The name evidence does not
depend on the page's length, so notes of very different sizes compete on what they are called.
Scores are comparable within one query (the best coordinated BM25 match alone scores 1).

Coordination: the terms are OR-ed and BM25 has no term for how many of them a page holds; its
length normalisation lets a short page with one common query word twice outscore a long page
holding every word once (a user trial: ``xylophonic sentinel protocol``). So a page's BM25 is
multiplied by ``share ** COORD_POWER`` (:data:`COORD_POWER` 0.5), ``share`` being the
IDF-weighted part of the query's terms the page holds (BM25's IDF as FTS5 computes it; a term
in half the pages or more weighs nothing, as in BM25 itself: :func:`_coord_idf`);
this is Lucene's classic ``coord(q, d)`` factor (matched clauses / query clauses,
``ClassicSimilarity``), weighted by IDF and softened by the root, since unweighted and linear it
cost SciFact 0.026 nDCG@10 (docs/search.md, "Coordination"). The factor is at most 1, so the
bounded candidate search stays exact (:func:`_bm25_top`). Hybrid ``query`` asks for plain BM25
(``coordinate=False``): its fusion was tuned on it. Postgres computes the same BM25 and
factor from ``ts_rank_cd`` of each term alone (its weighted frequency), the GIN index (each
term's pages) and ``search_totals`` (the brain's pages and tokens): :func:`_rank_pg`.

Phrases (:func:`_phrase_evidence`, both engines alike): a typed or pasted sentence should put
the page it comes from first, but BM25 and the name evidence ignore word order (a user trial on
the Microsoft Learn AD docs put the page saying "lists the LDF (Log Database File) files that
include the changes that Adprep.exe makes" third for that sentence). So ``search`` (not hybrid
``query``, whose fusion was tuned on plain BM25) reads the title and text of its best
:data:`PHRASE_DEPTH` candidates and adds ``PHRASE_WEIGHT · share ** PHRASE_POWER``, ``share``
being the part of the query's word pairs (:func:`phrase_pairs`: each two neighbouring words,
pairs of two stop words left out) the page holds next to each other, in order, as written
(:func:`phrase_share`; link syntax between two words is skipped, so a passage copied from the
rendered page matches). This is the ordered-window feature of the sequential dependence model
(Metzler & Croft, SIGIR 2005) as a bounded re-rank; a query of fewer than
:data:`PHRASE_MIN_PAIRS` pairs (one or two words) is left as it was. The same Python check of
the same page text runs on both engines, so a page's evidence is equal on SQLite and Postgres.
Over the same read, a query of at most :data:`FORM_MAX_WORDS` words takes exact-form evidence
(:func:`_form_gain`): a word some candidate holds only through another word of its stem (porter
and 'english' index ``wording`` as ``word``) lifts the candidates holding it as written.

Unicode: a query is read in its compatibility form (:func:`search_form`: NFKC, then casefolded
as a tokenizer does), and a page whose text has compatibility characters (``ﬁ`` ligatures from
PDFs, full-width ``ＧＰＴ４`` from East-Asian input methods, superscripts, circled digits) is
indexed under their NFKC words too (:func:`compat_words`, in ``search_words``), so ``financial``
finds ``ﬁnancial`` and ``ＧＰＴ`` finds ``GPT``. The page text is never changed; where the search
engine marks no hit (it sees ``ﬁnancial``), the snippet's hits are found in the folded text and
mapped back to the original characters (:func:`_fold_map`).
"""
from __future__ import annotations

import bisect
import collections
import functools
import os
import json
import math
import operator
import re
import sqlite3
import threading
import unicodedata
from collections.abc import Iterator, Sequence

from ..errors import BadInput
from ..page.linkedit import address_spans
from ..page.slugs import LETTER_FOLD, LETTERS, copy_original, drop_accents, fold_letters, fold_loose_key, fold_title_key, loose_key, title_key
from ..storage.db import is_postgres, refuse_if_damaged
from ..storage.filters import PageFilter
from . import russian

TITLE_WEIGHT = 5.0
#: bm25 column weights, in page_fts order: title, aliases, path, headings, compiled_truth,
#: timeline, glued words, CJK bigrams, the names' folded words (:func:`fold_name_words`, v63:
#: weighed as the title)
WEIGHTS = (TITLE_WEIGHT, TITLE_WEIGHT, 2.0, 2.0, 1.0, 1.0, 1.0, 1.0, TITLE_WEIGHT)
COLUMNS = ("title", "search_aliases", "path", "search_headings", "compiled_truth", "timeline", "search_words", "search_cjk", "search_fold_names")
#: known-item re-scoring (module docstring)
NAME_WEIGHT = 0.5
#: the name evidence's share is the IDF of the query words a name holds over the query's, or over
#: this when that is less (as the link text's :data:`ANCHOR_REF_IDF`): a one-word query of a common
#: word would name a page as fully as a rare one. 0: off (measured 2026-12-05, docs/search.md)
NAME_REF_IDF = 0.0
HEADING_WEIGHT = 0.25
EXACT_WEIGHT = 1.0
#: contained-name evidence (:func:`_contained_name`): a page whose whole name the query holds
#: (``PARA`` for "PARA method") earns this times the IDF share of the query its name covers, the
#: exact-name bonus graded by coverage (0: off, the ranking before 2026-12-06)
CONTAINED_WEIGHT = EXACT_WEIGHT
#: only a query of at most this many words, stop words too (:func:`typed_word_count`), takes it: a
#: known item is asked for by a few words, a question ("how do I create a table?") names
#: its topic among grammar words and a page titled *Table* is not the one asked for
CONTAINED_MAX_WORDS = 3
#: exponent on the name's precision (matched words / words of the shortest name holding a query word)
PRECISION_POWER = 2.0
#: the name's precision is taken against the shortest title or alias that holds a query word as
#: written (False: the shortest of all, the ranking before 2026-12-02 evening: a page's short
#: title in another script made a long alias's partial match look exact)
PRECISION_OF_HOLDING = True
#: a query word found only in the folders of a page's path (``people`` in ``people/ana-lima``)
#: names the page only when at most this many pages' paths hold it: a folder's name in every
#: one of its pages' paths made each of them look named (0: always, the ranking before)
FOLDER_NAME_MAX = 20
#: coordination (module docstring): a page's BM25 is multiplied by its IDF-weighted share of the
#: query's terms to this power (0: off; chosen by measurement, docs/search.md)
COORD_POWER = 0.5
#: BM25 candidates re-scored
RERANK = 100
#: query words looked up for name evidence
NAME_WORDS = 16
#: name evidence needs the query word as written in the name (:func:`names_word`), not only its
#: porter stem (False: the ranking before 2026-12-02, for benchmarks' before/after rows)
NAME_AS_WRITTEN = True
#: with :data:`NAME_AS_WRITTEN`, a name field holding query words only by their stem weighs 0 in BM25
STEM_FIELDS_UNWEIGHTED = True
#: a name word in a field that matched the query word by stem, with its first three letters, names it when the
#: shorter of the two is at least this part of the longer (`edited` names `Edit`, `atomically` not `Atom`: SciFact)
STEM_LENGTH_RATIO = 0.6

#: English function words: in a query with other words they only count in the body fields
STOP_WORDS = frozenset(
    """a an the and or but nor not no so if then than that this these those there here
    is are was were be been being am do does did done doing have has had having can could
    shall should will would may might must i me my mine we us our ours you your yours he him his
    she her hers it its they them their theirs what which who whom whose when where why how
    of to in on at by for from with about into onto over under as up down out off s t
    all any some each every both either neither few more most much many other such own same
    too very just also only""".split()
) | frozenset(
    # the function words of Russian (Snowball's list, the commonest), German and French questions
    # (``Wer kümmert sich um …``, ``Qui s'occupe de l'…``, ``Кто занимается …``) that no English
    # word spells but in names and loans (``de``, ``des``, ``um``); ``die``, ``war``, ``also``,
    # ``son``, ``plus``, ``pour`` stay words
    """и в во не что он на я с со как а то все всё она так его но да ты к у же вы за бы по ее её мне было
    от меня еще ещё нет о об из ему когда ли если уже или ни быть был него до вас там себя ей может они тут
    где есть для мы тебя их чем была сам без чего себе под будет тогда кто этот того потому этого какой
    здесь этом почти мой тем чтобы нее сейчас были куда зачем всех можно при про какая это эти эта
    der das dem ein eine einer eines einem einen und oder ist sind wer wie warum sich nicht auch um
    ich du wir ihr sie zu zum zur mit von für auf bei aus nach dass wird werden wurde sein
    le la les de des du un une et est sont qui que quoi où dans avec en sur au aux ce cette ces il elle ils elles
    nous vous je tu ne pas leur leurs qu l d c j n m""".split()
)
_BODY_FILTER = "{compiled_truth timeline search_words search_cjk}"
STOP_WORDS_DROPPED = True
#: (column, signal) of the name fields
_NAME_COLUMNS = (("title", "title"), ("search_aliases", "alias"), ("path", "path"), ("search_headings", "headings"),
                 ("search_fold_names", "folds"))
#: their positions in :data:`COLUMNS`
_NAME_INDEX = tuple(COLUMNS.index(c) for c, _ in _NAME_COLUMNS)
#: their FTS5 column filter
_NAME_FILTER = "{" + " ".join(c for c, _ in _NAME_COLUMNS) + "}"

_WORD = re.compile(r"[^\W_]+(?:\*)?|\*", re.UNICODE)
_PHRASE = re.compile(r'"([^"]*)"')
#: a word of text (letters and digits), without the query's prefix ``*``
_PLAIN_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_ASCII_RUNS = re.compile(r"[\x00-\x7f]+|[^\x00-\x7f]+")


#: Latin letters with no Unicode decomposition, spelled in ASCII, and Russian ``ё`` and Greek
#: letters with accents, without them (``page/slugs.py``: ``LETTER_FOLD``, ``SCRIPT_FOLD``; the name
#: keys fold them too): the query's words are read so (:func:`search_form`) and a page's words holding
#: one are indexed so beside them (:func:`compat_words`, in ``search_words``; SQLite v54, Postgres v56;
#: ``ё`` and Greek since SQLite v68, Postgres v73)
_LETTERS = LETTERS


def search_form(text: str) -> str:
    """``text`` in the form keyword search reads a query in: Unicode NFKC (compatibility
    composition: ``ﬁ`` → ``fi``, ``ＧＰＴ４`` → ``GPT4``, ``x²`` → ``x2``, ``①`` → ``1``, a
    no-break or ideographic space → a space; NFD accents composed, as NFC does), and the letters
    no decomposition folds spelled in ASCII, Russian ``ё`` as ``е`` and Greek without its accents
    (:func:`fold_letters`: ``Ёжик`` → ``Ежик``, ``Αθήνα`` → ``Αθηνα``; unicode61 folds Latin
    accents only). Pages are indexed in this form too (:func:`compat_words`). Case is folded later, word by word."""
    return fold_letters(unicodedata.normalize("NFKC", text or ""))


def typed_form(text: str) -> str:
    """``text`` as typed, in the one Unicode form :func:`search_form` starts from (NFKC), its
    letters unfolded: the spelling a quoted phrase is searched in too (:func:`fts_parts`)."""
    return unicodedata.normalize("NFKC", text or "")


def _unfold_table() -> dict[str, str]:
    """Each lower-case letter :data:`~gbrain.page.slugs.SCRIPT_FOLD` folds another to → the
    letters folded to it (``е`` → ``ёѐ``, ``α`` → ``ά``; monotonic Greek only: a polytonic
    spelling is found as typed): the spellings :func:`phrase_spellings` looks for."""
    from ..page.slugs import SCRIPT_FOLD

    out: dict[str, str] = {}
    for c, base in SCRIPT_FOLD.items():
        if c.islower() and not "\u1f00" <= c <= "\u1fff":
            out[base] = out.get(base, "") + c
    return out


_UNFOLD = _unfold_table()
_DIALYTIKA = frozenset("ϊϋΐΰ")
#: a phrase word's letters :func:`phrase_spellings` spells otherwise, at most
SPELLING_CHANGES = 2
#: spellings of one phrase word looked up, at most; and of one phrase searched (besides its folded one)
WORD_SPELLINGS, PHRASE_SPELLINGS = 64, 8


def _greek_marked() -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """``(breathing, accented)``: each lower-case Greek vowel (and ``ρ``) → its polytonic
    letters with a breathing (``α`` → ``ἀ ἁ ἄ ἅ…``, an accent or iota subscript beside it allowed),
    and each vowel → its letters with an accent and no breathing (``ά ὰ ᾶ ᾳ…``), NFC, the
    commoner marks first (acute, circumflex, grave; iota subscript and dialytika after; length
    marks, never typed, left out)."""
    import unicodedata as ud

    rank = {"\u0301": 0, "\u0342": 1, "\u0300": 2, "\u0345": 3, "\u0308": 4}
    breathing: dict[str, list[str]] = {}
    accented: dict[str, list[str]] = {}
    for cp in (*range(0x0370, 0x0400), *range(0x1F00, 0x2000)):
        c = ud.normalize("NFC", chr(cp))
        d = ud.normalize("NFD", c)
        if len(c) != 1 or not c.islower() or len(d) < 2 or not "\u03b1" <= d[0] <= "\u03c9":
            continue
        ms = d[1:]
        if any(m not in rank and m not in "\u0313\u0314" for m in ms):
            continue
        key = (sum(rank.get(m, 0) + 1 for m in ms), cp)
        table = breathing if ("\u0313" in ms or "\u0314" in ms) else accented
        table.setdefault(d[0], []).append((key, c))
    return ({b: list(dict.fromkeys(c for _, c in sorted(v))) for b, v in breathing.items()},
            {b: list(dict.fromkeys(c for _, c in sorted(v))) for b, v in accented.items()})


_BREATHING, _ACCENTED = _greek_marked()
#: a word beginning with one of these diphthongs has its breathing on the second vowel (``οὐ``, ``εἰ``)
_DIPHTHONGS = frozenset(("αι", "ει", "οι", "υι", "αυ", "ευ", "ου", "ηυ"))


def _polytonic_spellings(word: str) -> list[str]:
    """The polytonic spellings of lower-case Greek ``word`` without marks (``αρχη`` → ``ἀρχῇ``,
    ``ο`` → ``ὁ``, ``ουρανοις`` → ``οὐρανοῖς``), as polytonic text writes a word: a breathing
    on its first vowel (the second of a diphthong that begins it; ``ῥ``), with an accent there
    or on one other vowel, or an accent alone; at most :data:`WORD_SPELLINGS`. ``[]`` for a
    word with a mark already or no Greek vowel."""
    if not word or not all("\u03b1" <= c <= "\u03c9" for c in word):
        return []
    b = 1 if word[:2] in _DIPHTHONGS else 0
    b = b if word[b] in _BREATHING else None
    out: list[str] = []
    if b is not None:
        for x in _BREATHING[word[b]]:
            out.append(word[:b] + x + word[b + 1:])
        plain = [x for x in _BREATHING[word[b]] if len(unicodedata.normalize("NFD", x)) == 2]
        for x in plain:
            w1 = word[:b] + x + word[b + 1:]
            out += [w1[:j] + a + w1[j + 1:] for j, c in enumerate(word) if j != b for a in _ACCENTED.get(c, ())]
    # (an accent alone beyond the monotonic tonos, _word_spellings' own: grave, circumflex, iota)
    out += [word[:j] + a + word[j + 1:] for j, c in enumerate(word) for a in _ACCENTED.get(c, ())[1:]]
    return list(dict.fromkeys(out))[:WORD_SPELLINGS]


#: Latin letters with no decomposition (:data:`~gbrain.page.slugs.LETTER_FOLD`) a word typed in
#: ASCII may stand for, looked up for a quoted phrase (:func:`phrase_spellings`; one a word): the
#: letters of languages that write them in words (Polish ``ł``, Danish and Norwegian ``ø æ``,
#: German ``ß``, South Slavic ``đ``, Icelandic ``ð þ``, French ``œ``); ``ı ħ ŧ ŀ`` are left out
#: (``i``, ``h``, ``t`` stand in nearly every word: their lookups would cost every ASCII phrase)
_LATIN_UNFOLD = (("ss", "ß"), ("ae", "æ"), ("oe", "œ"), ("th", "þ"), ("l", "ł"), ("o", "ø"), ("d", "đð"))
#: spellings of one ASCII phrase word looked up, at most
LATIN_SPELLINGS = 8


def _dj_spellings(word: str) -> list[str]:
    """The spellings of lower-case ASCII ``word`` with each ``dj`` it holds written ``đ`` or left
    (``djordje`` → ``đorđe``, ``đordje``, ``djorđe``: every mix but the word itself, the word with
    all of them first), at most :data:`LATIN_SPELLINGS`; ``[]`` for a word without ``dj``. ``dj``
    is the usual ASCII spelling of South Slavic ``đ`` (*Đorđe* → *Djordje*), which search folds
    to ``d`` (:data:`~gbrain.page.slugs.LETTER_FOLD`): the fold alone never meets it."""
    at = [i for i in range(len(word) - 1) if word.startswith("dj", i)]
    if not at:
        return []
    import itertools

    out: list[str] = []
    for pick in itertools.islice(itertools.product(("đ", "dj"), repeat=len(at)), LATIN_SPELLINGS + 1):
        if "đ" not in pick:
            continue
        pieces, pos = [], 0
        for i, x in zip(at, pick):
            pieces += [word[pos:i], x]
            pos = i + 2
        out.append("".join(pieces) + word[pos:])
    return out[:LATIN_SPELLINGS]


def _latin_spellings(word: str) -> list[str]:
    """The spellings of lower-case ASCII ``word`` with its ``dj`` written ``đ``
    (:func:`_dj_spellings`), then with one of its letters (or ``ss``, ``ae``…) written as a
    letter of :data:`_LATIN_UNFOLD` (``lodz`` → ``łodz``, ``strasse`` → ``straße``), at most
    :data:`LATIN_SPELLINGS`."""
    out: list[str] = _dj_spellings(word)
    for a, bs in _LATIN_UNFOLD:
        i = word.find(a)
        while i >= 0:
            out += [word[:i] + x + word[i + len(a):] for x in bs]
            i = word.find(a, i + 1)
    return out[:LATIN_SPELLINGS]


_DJ = re.compile("[Dd][Jj]")
_DJ_OR_D = re.compile("[Dd][Jj]|[đĐ]")
#: the distinct ``dj`` words of a query :func:`dj_spelled` looks up, at most (each with up to
#: :data:`LATIN_SPELLINGS` spellings: one statement of at most 144 terms)
DJ_WORDS = 16
#: a word of a query (no prefix ``*`` after it): ASCII, or with other letters (``Djordjević``)
_DJ_WORD = re.compile(r"(?<![^\W_])[^\W_]+(?![^\W_]|\*)")


def _like_case(typed: str, spelling: str) -> str:
    """``spelling`` in the case ``typed`` is written in: all capitals, a capital first, or as it is."""
    if len(typed) > 1 and typed.isupper():
        return spelling.upper()
    return spelling[:1].upper() + spelling[1:] if typed[:1].isupper() else spelling


def dj_spelled(conn, query: str, memo: dict | None = None) -> str:
    """``query`` with each word it writes with ``dj`` (ASCII, or with other letters: ``Djordjević``; outside a quoted phrase of
    several words, and not a prefix ``w*``) that no page or canvas card holds, but some holds in
    a spelling with ``đ`` (:func:`_dj_spellings`, looked up in one statement: :func:`_held_terms`),
    written in that spelling, as if typed so (``djordje`` → ``đorđe``: *Đorđe* is found, its
    snippet marked; ``đ`` folds to ``d``, so ``dorde`` found it and ``djordje`` not); a word some
    page holds as typed too is followed by that spelling (``djordje đorđe``: a brain writing the
    name both ways); a word written with ``đ`` is followed by its ``dj`` spelling where some page
    holds that (``Đorđe`` → ``Đorđe Djordje``: the fold alone, ``dorde``, never met it). The query
    as ranked is in ``memo`` under :data:`DJ_RANKED` (a dj word some page holds as typed, alone). A phrase of
    several words is spelled by :func:`phrase_spellings`. A query without ``dj`` or ``đ`` is returned at once (one regular-expression search); the first :data:`DJ_WORDS`
    distinct such words are looked up, the others stay as typed; ``memo``: as in
    :func:`phrase_spellings`."""
    if not _DJ_OR_D.search(query or ""):
        return query
    key = ("dj_spelled", query)
    if memo is not None and key in memo:
        return memo[key]
    spans = [m.span(1) for m in _PHRASE.finditer(query) if len(_WORD.findall(m.group(1))) > 1]
    found = [m for m in _DJ_WORD.finditer(query) if _DJ_OR_D.search(m.group()) and not any(a <= m.start() < b for a, b in spans)]
    # (a word written with ``đ``, ``Đorđe``: followed by its ``dj`` spelling where a page holds that,
    # ``Đorđe Djordje``; the word itself is found by its fold, ``dorde``)
    options = {m.group().lower(): [m.group().lower().replace("đ", "dj")] if "đ" in m.group().lower() else _dj_spellings(m.group().lower())
               for m in found}
    # (the first DJ_WORDS words with a spelling are looked up, the rest stay as typed: a pasted text
    # of 1,000 such words looked up 9,000 terms, ~0.6 CPU-s on SQLite, ~1.2 s of Postgres' time)
    spelt = [w for w, sp in options.items() if sp][:DJ_WORDS]
    options = {w: sp if w in spelt else [] for w, sp in options.items()}
    held = _held_terms(conn, list(dict.fromkeys(x for w, sp in options.items() if sp for x in (w, *sp)))) if any(options.values()) else set()
    out, pos = [], 0
    respelled = []  # (the query with each such word in its other spelling only: a name the query gives, DJ_TYPED)
    ranked = []  # (the query each such word spelled once, as ranked: DJ_RANKED)
    for m in found:
        w = m.group().lower()
        spelling = next((x for x in options[w] if x in held), None)
        if spelling is None:
            continue
        spelling = _like_case(m.group(), spelling)
        quoted = m.start() > 0 and query[m.start() - 1] == '"' and query[m.end():m.end() + 1] == '"'
        both = f'{m.group()}" "{spelling}' if quoted else f"{m.group()} {spelling}"
        out += [query[pos:m.start()], both if w in held or "đ" in w else spelling]
        respelled += [query[pos:m.start()], spelling]
        # (since v77 a page writing the word with ``đ`` holds its dj spelling too: a dj word some
        # page holds finds both kinds of page as typed, each holding it once; searched both ways,
        # such a page held two of the query's words, ~9x the score of a page writing it as typed.
        # A word typed with ``đ`` keeps both: its pages first, _typed_spellings_first)
        ranked += [query[pos:m.start()], m.group() if w in held and "đ" not in w else out[-1]]
        pos = m.end()
    out.append(query[pos:])
    answer = "".join(out)
    if memo is not None:
        memo[key] = answer
        if answer != query:
            memo[(DJ_TYPED, answer)] = (query, "".join(respelled) + query[pos:])
            memo[(DJ_RANKED, answer)] = rank_as = "".join(ranked) + query[pos:]
            memo[(DJ_TYPED, rank_as)] = memo[(DJ_TYPED, answer)]
    return answer


def harakat_bare(conn, query: str, memo: dict | None = None) -> str:
    """``query`` with each word it writes with Arabic vowel marks (:data:`_ARABIC_MARK`; not a
    prefix ``w*``) that no page or canvas card holds as written (one statement:
    :func:`_held_terms`) written without them, as if typed so: ranked as the bare word (its
    name evidence and coordination read the query's words; the marked word's were the pieces
    unicode61 splits it into, ``الم ل ح ظ ات``). A word some page holds with its marks stays
    (searched bare too: :func:`_terms`). A query without such marks is returned at once (one
    regular-expression search); ``memo``: as in :func:`dj_spelled`. Tatweel (U+0640) is dropped
    from every word first, held or not, a prefix or in a phrase too (:func:`_drop_tatweel`: it
    only stretches a word in print, never meaning, and the index reads it bare): a query typed
    with it ranks as the bare query (``مـكـتـبـة`` named only the page titled so; the page titled
    ``مكتبة`` was no title hit, 1.29 to 2.5)."""
    if not query or query.isascii() or not _ARABIC_FOLDS.search(query):
        return query
    key = ("harakat_bare", query)
    if memo is not None and key in memo:
        return memo[key]
    typed = query
    if "\u0640" in query:
        query = _drop_tatweel(query)
        if not _ARABIC_FOLDS.search(query):
            if memo is not None:
                memo[key] = query
            return query
    word = _script_marks()[1]
    marked = [m for m in word.finditer(query) if not m.group().endswith("*") and _ARABIC_FOLDS.search(m.group())
              and arabic_bare(m.group())]
    held = _held_terms(conn, list(dict.fromkeys(m.group().lower() for m in marked[:NAME_WORDS]))) if marked else set()
    out, pos = [], 0
    for m in marked[:NAME_WORDS]:  # (the first NAME_WORDS such words; the others stay as typed)
        if m.group().lower() in held:
            continue
        out += [query[pos:m.start()], arabic_bare(m.group())]
        pos = m.end()
    answer = "".join(out) + query[pos:]
    if memo is not None:
        memo[("harakat_bare", typed)] = answer
    return answer


def _drop_tatweel(query: str) -> str:
    """``query`` with tatweel (U+0640) dropped from each word holding another letter (a run of
    :data:`_WORD_OR_MARK`; a word of tatweel alone stays: it is no word the index holds either way)."""
    return _WORD_OR_MARK.sub(lambda m: (m.group().replace("\u0640", "") or m.group()) if "\u0640" in m.group() else m.group(), query)


#: the ``memo`` key (with the answer) under which :func:`dj_spelled` keeps ``(query as typed, query
#: respelled)``: :func:`_rank` names pages by those, not by the answer (``Djordje Đorđe`` names no
#: page; the page named *Djordje* fell below *Đorđe* and a note writing the name often)
DJ_TYPED = "dj_typed"
#: the ``memo`` key (with the answer) under which :func:`dj_spelled` keeps the query as ranked: a
#: dj word some page holds as typed, not followed by its ``đ`` spelling (every page writing it with
#: ``đ`` holds the dj one too since v77: a page is not counted twice for holding both); the answer
#: marks the snippets and finds the canvas cards
DJ_RANKED = "dj_ranked"


def _word_spellings(word: str) -> list[str]:
    """The spellings of lower-case ``word`` (folded) with up to :data:`SPELLING_CHANGES` of its
    letters unfolded (``елочные`` → ``ёлочные``, ``елочныё``…), at most :data:`WORD_SPELLINGS`;
    then a Greek word's polytonic ones (:func:`_polytonic_spellings`) and an ASCII word's with a
    Latin letter of its own (:func:`_latin_spellings`)."""
    if word.isascii():
        return _latin_spellings(word)
    # (a word with ``dj`` and another letter, ``djordjević``: its ``đ`` spellings first)
    return _dj_spellings(word) + _unfolded_spellings(word) + _polytonic_spellings(word)


def _unfolded_spellings(word: str) -> list[str]:
    at = [i for i, c in enumerate(word) if c in _UNFOLD]
    # (every one-letter spelling first, then the two-letter ones: the cap cuts the rarer)
    out = [word[:i] + a + word[i + 1:] for i in at for a in _UNFOLD[word[i]]]
    if SPELLING_CHANGES > 1:
        for i in at:
            for a in _UNFOLD[word[i]]:
                w1 = word[:i] + a + word[i + 1:]
                for j in at:
                    if j > i:
                        # (a Greek word takes one accent: two marks only where one is a
                        # dialytika, ``προϊόν``)
                        out += [w1[:j] + b + w1[j + 1:] for b in _UNFOLD[word[j]]
                                if not ("\u0370" <= b <= "\u03ff" and a not in _DIALYTIKA and b not in _DIALYTIKA)]
                if len(out) >= WORD_SPELLINGS:
                    return out[:WORD_SPELLINGS]
    return out[:WORD_SPELLINGS]


def phrase_spellings(conn, text: str, typed: str | None, memo: dict | None = None) -> "str | tuple[str, ...] | None":
    """``typed`` (the :func:`typed_form` of the query whose :func:`search_form` is ``text``), or,
    when a quoted phrase of ``text`` has words a fold may have changed (``е``, ``и``, a Greek
    vowel), ``(typed, *others)``: ``text`` with each such phrase spelled as the index holds its
    words (the spellings of :func:`_word_spellings` some page or canvas card holds, looked up in
    one statement, :func:`_held_terms`), at most :data:`PHRASE_SPELLINGS` a phrase; for
    :func:`fts_parts`. So ``"елочные игрушки"`` finds a page writing ``ёлочные игрушки``: its
    folded words in ``search_words`` are no phrase. A page or card holding a spelling holds the
    folded word too (``search_words``, ``canvas_cards.words``), so only the spellings of the folded
    words held are looked up (a second statement). ``memo``: a dict kept for one search (its
    ``facts``): the answer is computed once for ``(text, typed)`` and read there after."""
    phrases = list(_PHRASE.finditer(text or ""))
    if not phrases:
        return typed
    if memo is not None:
        key = ("phrase_spellings", text, typed)
        if key not in memo:
            memo[key] = _phrase_spellings(conn, text, typed, phrases)
        return memo[key]
    return _phrase_spellings(conn, text, typed, phrases)


def _phrase_spellings(conn, text: str, typed: str | None, phrases: list) -> "str | tuple[str, ...] | None":
    import itertools

    options: list[list[list[str]]] = []
    probe: dict[str, None] = {}
    stars: list[list[str]] = []
    for m in phrases:
        raw = [w for w in _WORD.findall(m.group(1)) if w.strip("*")]
        words = [w.rstrip("*") for w in raw]
        stars.append(["*" if w.endswith("*") else "" for w in raw])
        many = len(words) > 1 and not any(map(_CJK_RUN.search, words))
        # (the first NAME_WORDS words only: the others' spellings are never looked up)
        opts = [[w] + (_word_spellings(w.lower()) if many and i < NAME_WORDS else []) for i, w in enumerate(words)]
        options.append(opts)
    # (a spelling some page or card holds: its folded word is held too, so those are looked up
    # first; the first NAME_WORDS of the query's phrases, as the ranking reads NAME_WORDS words.
    # An ASCII word's spelling folds back to it but for ``dj``: ``đorđe`` is held as ``dorde``)
    def base(word: str, spelling: str) -> str:
        return fold_letters(spelling) if word.isascii() or "đ" in spelling else word

    folded = list(dict.fromkeys(x for opts in options for o in opts[:NAME_WORDS] if len(o) > 1
                                for x in (o[0].lower(), *(base(o[0], y) for y in o[1:]))))[:2 * NAME_WORDS]
    known = _held_terms(conn, folded) if folded else set()
    for opts in options:
        for o in opts[:NAME_WORDS]:
            probe.update(dict.fromkeys(y for y in o[1:] if base(o[0].lower(), y) in known))
    if not probe:
        return typed
    held = _held_terms(conn, list(probe))
    if not held:
        return typed
    alts: list[list[str]] = []
    for opts, star in zip(options, stars):
        # (each word's held spellings before its folded one: the first spelling of the phrase has
        # every word as the index holds it, as polytonic Greek changes every word: ``ὁ λόγος``;
        # the phrase all folded, searched anyway, is left out; a prefix word keeps its ``*``)
        kept = [[x for x in o[1:] if x in held] + [o[0]] for o in opts]
        spelt = (f for f in itertools.product(*kept) if any(x is not o[0] for x, o in zip(f, opts)))
        alts.append([" ".join(x + st for x, st in zip(f, star)) for f in itertools.islice(spelt, PHRASE_SPELLINGS)])
    out = [typed if typed else text]
    for j in range(max(map(len, alts))):
        pieces, pos = [], 0
        for m, forms in zip(phrases, alts):
            pieces += [text[pos : m.start(1)], forms[j] if j < len(forms) else m.group(1)]
            pos = m.end(1)
        out.append("".join(pieces) + text[pos:])
    return tuple(out)


def _held_terms(conn, terms: list[str]) -> set[str]:
    """The words of ``terms`` (lower case) some page or canvas card holds: SQLite a ``MATCH`` of
    each in ``page_fts`` and ``canvas_fts`` (a term lookup each, one statement a 200; porter reads
    the term's stem), Postgres a ``search_tsv`` / ``tsv`` match of each in its 'english' and
    'simple' forms (GIN; one statement: a title's word may be indexed by its 'english' stem only,
    ``đorđe`` as ``đorđ``)."""
    if not terms:
        return set()
    if is_postgres(conn):
        one = "(plainto_tsquery('english', gb_fold(v)) || plainto_tsquery('simple', gb_fold(v)))"
        rows = conn.execute(f"SELECT v FROM unnest(?::text[]) AS v WHERE EXISTS (SELECT 1 FROM pages WHERE search_tsv @@ {one}) "
                            f"OR EXISTS (SELECT 1 FROM canvas_cards WHERE tsv @@ {one})", (terms,)).fetchall()
        return {r[0] for r in rows}
    out: set[str] = set()
    for i in range(0, len(terms), 200):  # (SQLite's compound SELECT: at most 500 terms)
        part = terms[i : i + 200]
        sql = " UNION ALL ".join("SELECT ? WHERE EXISTS (SELECT 1 FROM page_fts WHERE page_fts MATCH ?) "
                                 "OR EXISTS (SELECT 1 FROM canvas_fts WHERE canvas_fts MATCH ?)" for _ in part)
        try:
            out |= {r[0] for r in conn.execute(sql, [x for t in part for x in (t, _quote(t), _quote(t))])}
        except sqlite3.OperationalError:  # (a brain before canvas_fts)
            return out
    return out


def _compat_free(text: str) -> bool:
    """Whether ``text`` is its own :func:`search_form` (ASCII always is: O(1) for an ASCII ``str``)."""
    return text.isascii() or (not _LETTERS.search(text) and unicodedata.is_normalized("NFKC", text))


@functools.lru_cache(maxsize=1)
def _wordless() -> re.Pattern:
    """Runs of the BMP characters whose NFKC form differs but can change no word: neither they
    nor their NFKC form hold a word character (``\\w``) or a combining mark (no composition with
    a neighbour): no-break and other spaces, full-width and small-form punctuation (``（``,
    ``：``), ``…``, ``‼``… (163 with Python 3.11's Unicode 14; computed once, ~10 ms)."""
    word = re.compile(r"\w")

    def stable(x: str) -> bool:
        return not word.match(x) and not unicodedata.category(x).startswith("M")

    chars = []
    for cp in range(0x10000):
        if 0xD800 <= cp < 0xE000:
            continue
        c = chr(cp)
        f = unicodedata.normalize("NFKC", c)
        if f != c and stable(c) and all(map(stable, f)):
            chars.append(re.escape(c))
    return re.compile("[" + "".join(chars) + "]+")


def _no_compat_words(text: str) -> bool:
    """Whether ``text``'s :func:`search_form` has the same words as ``text`` for certain: it
    holds no letter :func:`fold_letters` changes and is NFKC, or is once its :func:`_wordless`
    characters are removed (a page with no-break spaces or full-width punctuation only: most
    non-NFKC pages of real vaults, 95–99%)."""
    return text.isascii() or (not _LETTERS.search(text) and (
        unicodedata.is_normalized("NFKC", text) or unicodedata.is_normalized("NFKC", _wordless().sub("", text))))


def compat_words(text: str, marks: bool = True) -> list[str]:
    """The words of ``text``'s NFKC form (:func:`search_form`) that are not words of ``text``
    itself, in order (repeats kept): ``"ﬁnancial ＧＰＴ４ H₂O"`` → ``["financial", "GPT4", "H2O"]``;
    ``[]`` for text that is already NFKC (nearly every page: checked first, in C). A word glued
    to CJK text gives its non-CJK runs (as :func:`search_words`' glued words). Indexing these
    beside the text lets a plain query find compatibility characters, which neither unicode61
    nor Postgres' parser fold. Then, for a text holding an Arabic vowel mark or ``đ``
    (:data:`_SPELT`), its words' other spellings (:func:`_other_spellings`: ``الطَّالِبُ`` →
    ``الطالب``, ``Đorđe`` → ``Djordje``; SQLite v77 / Postgres v85). ``marks=False``: not the
    bare spellings of words with Arabic marks (a page's compiled truth and timeline, whose indexed
    text has them bare in place since SQLite v79 / Postgres v87: :func:`search_text`)."""
    if text.isascii():
        return []
    # (one search for both kinds of letter, as _no_compat_words searched for its letters alone)
    if not _LETTERS_SPELT.search(text):
        if unicodedata.is_normalized("NFKC", text) or unicodedata.is_normalized("NFKC", _wordless().sub("", text)):
            return []
        spelt = False
    else:
        spelt = _SPELT.search(text) is not None
    out: list[str] = []
    if not (spelt and _no_compat_words(text)):
        have = set(_PLAIN_WORD.findall(text))
        for tok in _PLAIN_WORD.findall(search_form(text)):
            if tok in have:
                continue
            if _UNSPACED.search(tok):
                out += [w for w in _UNSPACED.split(tok) if w and w not in have]
            else:
                out.append(tok)
    if spelt:
        out += _other_spellings(text, marks)
    return out


def _other_spellings(text: str, marks: bool = True) -> list[str]:
    """The other spellings a query may write ``text``'s words in, in order, repeats kept (SQLite
    v77 / Postgres v85): a word written with Arabic vowel marks (:data:`_ARABIC_MARK`, harakat:
    optional in writing) bare (``الطَّالِبُ`` → ``الطالب``: unicode61 splits the marked word at its
    marks, Postgres' parser keeps it whole with them, so neither met the bare query word; a word
    with a final mark only too, ``الطالبُ``, which Postgres keeps whole), read in NFKC (a decomposed
    ``ؤ`` stays ``ؤ``, as the query is read); and a word written with ``đ`` in its ``dj`` spelling,
    folded as :func:`search_form` folds (``Đorđe`` → ``Djordje``: ``djo*`` finds it; the fold
    alone, ``Dorde``, never met a ``dj`` prefix). Work grows with the marks and ``đ`` words found,
    not the text (a text's words are not listed)."""
    out: list[str] = []
    if marks and _ARABIC_FOLDS.search(text):
        form = text if unicodedata.is_normalized("NFKC", text) else unicodedata.normalize("NFKC", text)
        end = 0
        for m in _ARABIC_FOLDS.finditer(form):
            i = m.start()
            if i < end:  # (a mark of the word just taken)
                continue
            a = i
            while a > 0 and _WORD_OR_MARK.match(form, a - 1, a):
                a -= 1
            end = _WORD_OR_MARK.match(form, i).end()
            bare = arabic_bare(form[a:end])
            if bare:
                out.append(bare)
    if "đ" in text or "Đ" in text:
        out += [fold_letters(w.replace("đ", "dj").replace("Đ", "Dj")) for w in _DJ_TEXT_WORD.findall(text)]
    return out


@functools.lru_cache(maxsize=1)
def _combining() -> re.Pattern:
    """A character of the BMP with a nonzero combining class, or any character past it (made
    once, ~0.1 s; a class holding characters past the BMP is searched by ranges one by one, ~0.6
    µs per character, where a BMP class is a table)."""
    marks = "".join(re.escape(chr(cp)) for cp in range(0x10000) if not 0xD800 <= cp < 0xE000 and unicodedata.combining(chr(cp)))
    return re.compile(f"[{marks}]|[\U00010000-\U0010ffff]")


def _fold_run(run: str) -> str | None:
    """``run`` folded whole as :func:`_fold_map` folds it piece by piece, when that is one
    character for one: NFKC already and without combining marks (so each character is its own
    piece, NFKC-stable), and no fold makes a character two (``ß`` → ``ss``; the folds never drop
    one, so equal lengths mean one for one); else None (folded piece by piece; so is a run with a
    character past the BMP)."""
    if not unicodedata.is_normalized("NFKC", run) or _combining().search(run):
        return None
    f = fold_letters(fold_accents(run)).casefold()
    return f if len(f) == len(run) else None


def _fold_map(text: str) -> tuple[str, Sequence[int], Sequence[int]]:
    """``(folded, starts, ends)``: ``text`` NFKC-folded, accents folded (:func:`fold_accents`:
    ``Björn`` is marked for ``bjorn``, as unicode61 matches it) and casefolded piece by piece (a
    character with the combining marks after it), and for each character of ``folded`` the ``[start, end)``
    in ``text`` of the piece it came from, so a match in ``folded`` maps back to the original
    characters (a match inside a ligature covers the whole ligature). ASCII runs cost a slice."""
    f = _fold_run(text)
    if f is not None:  # (the whole text one for one: Cyrillic, Greek, most accented text; no loop)
        return f, range(len(text)), range(1, len(text) + 1)
    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    for m in _ASCII_RUNS.finditer(text):
        a, run = m.start(), m.group()
        if run.isascii():
            out.append(run.lower())
            starts.extend(range(a, a + len(run)))
            ends.extend(range(a + 1, a + len(run) + 1))
            continue
        f = _fold_run(run) if len(run) > 1 else None
        if f is not None:  # (one character for one)
            out.append(f)
            starts.extend(range(a, a + len(run)))
            ends.extend(range(a + 1, a + len(run) + 1))
            continue
        i, n = 0, len(run)
        while i < n:
            j = i + 1
            while j < n and unicodedata.combining(run[j]):
                j += 1
            f = fold_letters(fold_accents(unicodedata.normalize("NFKC", run[i:j]))).casefold()
            out.append(f)
            starts.extend([a + i] * len(f))
            ends.extend([a + j] * len(f))
            i = j
    return "".join(out), starts, ends


SNIPPET_MAX_CHARS = 200_000
#: distinct query words a Python-cut snippet looks for
SNIPPET_WORDS = 32


#: hit marks while a snippet is built (FTS5 ``highlight``, ``ts_headline``, Python marking);
#: the snippet a caller gets has none: its hits are offsets (:func:`_readable`)
HIT_ON, HIT_OFF = "\x02", "\x03"
#: characters of the page text never shown in a snippet: the build's marks and the ones the
#: CLI styles hits with (``entry.styled``), so no text of the page can pass for a hit
_NOT_SHOWN = re.compile("[\x02\x03\ue000\ue001]")
#: width of a snippet in characters (plus the words cut at its ends, and ``…``)
SNIPPET_WIDTH = 160

# (each pattern but the heading's and the quote's begins with a literal or a set of characters,
# so the regex engine skips to its candidates: a look-behind is written after that character)
_COMMENT = re.compile(r"%%.*?(?:%%|\Z)|<!--.*?(?:-->|\Z)", re.S)
_MD_LINK = re.compile(r"(?:!\[|\[)([^\]\n]*)\]\(([^()\n]*)\)")
_WIKI_LINK = re.compile(r"(?:!\[\[|\[\[)([^\]|\n]*)(?:\|([^\]\n]*))?\]\]")
#: ``**``, ``~~``, ``==``, and ``__`` not after a word character or ``\``, or not before a word character
#: an embed's size in place of its alias (``![[img.png|300]]``, ``|640x480``): no text, the file's name shows
_EMBED_SIZE = re.compile(r"\s*\d+(?:\s*x\s*\d+)?\s*")
_EMPH_RUN = re.compile(r"\*\*|~~|==|__(?:(?<![\w\\]__)|(?!\w))")
#: a pair of ``*`` or ``_`` (the first not after a word character, ``*`` or ``\``) around text
#: that neither begins nor ends with white space, ``*`` or ``_``, the second not before a word character or ``*``
_EMPH_ONE = re.compile(r"([*_])(?<![\w*\\][*_])(?=[^\s*_])(.+?)(?<=[^\s*_])\1(?![\w*])")
_HEADING = re.compile(r"(?m)^[ \t]{0,3}#{1,6}[ \t]+")
#: an Obsidian block id: ``^`` and Latin letters, digits or dashes ending a line, after white space or alone
_BLOCK_ID = re.compile(r"(?m)\^(?:(?<=[ \t]\^)|(?<=^\^))[A-Za-z0-9-]+(?=[ \t]*$)")
_QUOTE = re.compile(r"(?m)^[ \t]{0,3}(?:>[ \t]?)+")
_HIT = re.compile(f"{HIT_ON}([^{HIT_ON}{HIT_OFF}]*){HIT_OFF}")


#: a character reference markdown reads as its character: numeric, or one of XML's five names
_CHAR_REF = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|lt|gt|amp|quot|apos);")


def _char_refs(s: str) -> str:
    """``s`` with its character references (:data:`_CHAR_REF`: ``&#40;``, ``&lt;``) as their
    characters, outside backtick code (where they are text as written); a reference to no
    printable character (``&#0;``, a control, a surrogate) stays."""
    import html

    def one(m: "re.Match[str]") -> str:
        c = html.unescape(m.group(0))
        return m.group(0) if len(c) != 1 or c == "\ufffd" or unicodedata.category(c)[0] == "C" else c  # (no control: &#2; is no hit mark)
    parts = s.split("`")
    return "`".join(_CHAR_REF.sub(one, p) if i % 2 == 0 and "&" in p else p for i, p in enumerate(parts))


#: HTML element names (WHATWG's, and obsolete ones notes still write): a tag of one of these is
#: dropped from a snippet even without attributes (:func:`drop_tags`; ``<name>`` is a placeholder)
_HTML_NAMES = frozenset(
    "a abbr address area article aside audio b base bdi bdo big blockquote body br button canvas caption center cite "
    "code col colgroup data datalist dd del details dfn dialog div dl dt em embed fieldset figcaption figure font "
    "footer form h1 h2 h3 h4 h5 h6 head header hgroup hr html i iframe img input ins kbd label legend li link main map "
    "mark marquee menu meta meter nav nobr noscript object ol optgroup option output p param picture pre progress q "
    "rp rt ruby s samp script search section select slot small source span strike strong style sub summary sup svg "
    "table tbody td template textarea tfoot th thead time title tr track tt u ul var video wbr".split())
#: the elements read inline: their tags go without a space (``<b>bold</b>text``, ``<kbd>Ctrl</kbd>+``)
_INLINE_NAMES = frozenset("a abbr b bdi bdo big cite code data del dfn em font i ins kbd label mark nobr q s samp "
                          "small span strike strong sub sup time tt u var wbr".split())
# a tag as CommonMark reads raw HTML (open, self-closing or closing; its attributes' names and
# values; its white space may hold a line end, LF, CRLF or a lone CR: before SQLite v84 /
# Postgres v92 LF only, so a CRLF page's tag across lines was indexed and shown as text), a hit
# mark (FTS5's, ts_headline's: around a word) anywhere a word can stand in it
_M = "\x02\x03"
_HTML_TAG = re.compile(
    rf"<(?:/[{_M}]*(?P<close>[A-Za-z][A-Za-z0-9{_M}-]*)[ \t\r\n]*"
    rf"|[{_M}]*(?P<name>[A-Za-z][A-Za-z0-9{_M}-]*)"
    rf"(?P<attrs>(?:[ \t\r\n]+[A-Za-z_:{_M}][A-Za-z0-9_.:{_M}-]*(?:[ \t\r\n]*=[ \t\r\n]*(?:[^ \t\r\n\"'=<>`]+|'[^']*'|\"[^\"]*\"))?)*)"
    r"[ \t\r\n]*/?)>")
#: a run of backticks, of tildes (:func:`_code_ranges`)
_TICK_RUN = re.compile(r"`+")
_TILDE_RUN = re.compile(r"~+")
#: a blank line (CommonMark's line ends: LF, CRLF, a lone CR; a CR before an LF is one line end
#: with it, so ``\r\n`` alone is none; before SQLite v83 / Postgres v91 LF's only)
_BLANK_LINE = re.compile(r"(?:\r\n|\r(?!\n)|\n)[ \t]*[\r\n]")
#: a blank line of a text without CR (nearly every page): LF's pattern, whose literal first character
#: the regex engine skips to (the one above, ~15x its CPU over a text without a blank line)
_BLANK_LF = re.compile(r"\n[ \t]*\n")


def _fence_closer(run: str, cr: bool = True) -> "re.Pattern[str]":
    """The line that closes a fence opened by ``run`` (three or more backticks or tildes): at
    most three blanks, at least as many of the same character, blanks to the line's end (a line
    ended by LF, CRLF or a lone CR; searched from the start of a line). ``cr=False``: for a text
    without CR, LF's pattern (``(?m)^…$``, the same matches there, ~1/4 of the CPU)."""
    pat = _FENCE_CLOSERS.get((run, cr))
    if pat is None:
        if len(_FENCE_CLOSERS) >= 256:  # (a bounded cache: a text may open fences of every length)
            _FENCE_CLOSERS.clear()
        c = f"{re.escape(run[0])}{{{len(run)},}}"
        pat = _FENCE_CLOSERS[run, cr] = re.compile(rf"(?:(?<=[\n\r])|\A)[ \t]{{0,3}}{c}[ \t]*(?=[\r\n]|\Z)" if cr else rf"(?m)^[ \t]{{0,3}}{c}[ \t]*$")
    return pat


_FENCE_CLOSERS: dict[tuple[str, bool], "re.Pattern[str]"] = {}


def _code_ranges(s: str) -> list[tuple[int, int]]:
    """The ``[start, end)`` spans of ``s`` that are code as CommonMark reads it, in order: a
    fenced block (a line opening with at most three blanks and three or more backticks or tildes,
    to a line of at least as many of the same, or the end) and a code span (a run of backticks to
    the next run of as many, within its paragraph). A hit mark in the text counts as a character.
    A line ends with LF, CRLF or a lone CR (CommonMark's line endings: a CRLF blank line ends a
    span, a CRLF fence's closing line closes it; before SQLite v83 / Postgres v91 only LF did, so
    a CRLF page's tags after such a span or fence were indexed and shown as text).

    Linear in ``len(s)`` (CPU, ``tests/test_code_ranges_linear.py`` counts the characters scanned):
    every run of backticks is found once (``str.find``), a span's closer by its length
    (``bisect``); the next ``~~~``, the next blank line and the line around a run are each
    remembered while the scan passes them (each was searched to the end of ``s`` for every run:
    a 3 MB text with 40,000 code spans took ~29 CPU-s, docs/performance.md)."""
    out: list[tuple[int, int]] = []
    n = len(s)
    starts: list[int] = []  # (every run of backticks: start, length; and by length, the starts)
    lengths: list[int] = []
    by_len: dict[int, list[int]] = {}
    b = s.find("`")
    while b >= 0:
        e = _TICK_RUN.match(s, b).end()
        starts.append(b)
        lengths.append(e - b)
        by_len.setdefault(e - b, []).append(b)
        b = s.find("`", e)
    cr = "\r" in s  # (a line may end with CR: CRLF or a lone CR, CommonMark's line ends; else LF's patterns)
    k = 0  # (the first run of backticks not yet passed)
    tilde = -2  # (the next ``~~~`` at or after the position it was searched from; -1: none; -2: not searched)
    blank: "re.Match[str] | None | bool" = False  # (the next blank line, likewise; False: not searched)
    line_at, line = 0, 0  # (the start of the line holding ``line_at``)
    i = 0
    while True:
        # the next run: of backticks, or of three or more tildes
        while k < len(starts) and starts[k] < i:
            k += 1
        while True:
            if tilde == -2 or 0 <= tilde < i:
                tilde = s.find("~~~", i)
            b = starts[k] if k < len(starts) else -1
            if b < 0 and tilde < 0:
                return out
            if tilde < 0 or 0 <= b < tilde:
                a, e = b, b + lengths[k]
                break
            e = _TILDE_RUN.match(s, tilde).end()
            if tilde == 0 or s[tilde - 1] != "~":
                a = tilde
                break
            i = e  # (inside a longer run found before: not reached, kept for safety)
            while k < len(starts) and starts[k] < i:
                k += 1
        tick = s[a] == "`"
        if e - a >= 3:
            if a > line_at:
                nl = max(s.rfind("\n", line_at, a), s.rfind("\r", line_at, a)) if cr else s.rfind("\n", line_at, a)
                if nl >= 0:
                    line = nl + 1
                line_at = a
            if a - line <= 3 and not s[line:a].strip(" \t"):
                eol = s.find("\n", e)
                if cr:  # (the line's end: its CR, a CRLF's or a lone one, where before its LF)
                    r = s.find("\r", e, eol if eol >= 0 else n)
                    if r >= 0:
                        eol = r
                if not (tick and "`" in s[e:eol if eol >= 0 else n]):
                    if eol < 0:
                        out.append((a, n))
                        return out
                    c = _fence_closer(s[a:e], cr).search(s, eol + 1)
                    z = c.end() if c else n
                    out.append((a, z))
                    i = z
                    continue
        if not tick:
            i = e
            continue
        # a span: the next run of exactly as many backticks before a blank line
        if blank is False or (blank is not None and blank.start() < e):
            blank = (_BLANK_LINE if cr else _BLANK_LF).search(s, e)
        end = blank.start() if blank else n
        same = by_len[e - a]
        j = bisect.bisect_left(same, e)
        if j == len(same) or same[j] >= end:
            i = e  # (no closer: the backticks are text)
            continue
        z = same[j] + e - a
        out.append((a, z))
        i = z


def drop_tags(s: str) -> str:
    """``s`` without its HTML tags, the text between them kept, as a reader of the rendered
    note sees it: a tag (:data:`_HTML_TAG`, CommonMark's raw HTML: ``<span class="git-footer">``,
    ``</button>``, ``<br/>``) of an HTML element (:data:`_HTML_NAMES`) or with an attribute given a
    value (``<path d="…"/>``) goes, an inline element's (:data:`_INLINE_NAMES`) for nothing,
    another's for a space; code (spans, fences, indented blocks) and math keep theirs as
    written (:func:`tag_spans`), and plain text its ``<`` (an escaped ``\\<b>`` too) (``a < b``, ``x<y``, ``List<String>``, a placeholder
    ``<name>``, an autolink ``<https://…>``); in an HTML block, raw, every tag goes
    (``<div>\\<b>x</b></div>``, a backticked one too). A hit mark inside a dropped tag goes with
    it. HTML comments are not looked at here (:data:`_COMMENT`). The tags are :func:`tag_spans`'
    with ``raw_blocks`` (the index leaves out the same, :func:`search_text`, since SQLite v81 /
    Postgres v89)."""
    spans = tag_spans(s, raw_blocks=True)
    if not spans:
        return s
    out: list[str] = []
    at = 0
    for a, z, inline in spans:
        out.append(s[at:a])
        out.append("" if inline else " ")
        at = z
    out.append(s[at:])
    return "".join(out)


def tag_spans(s: str, raw_blocks: bool = False) -> list[tuple[int, int, bool]]:
    """The HTML tags of ``s`` a reader of the rendered note does not see, in order, as
    ``(start, end, inline)`` (``s[start:end]`` the tag; ``inline``: an inline element's,
    :data:`_INLINE_NAMES`, read without a space in its place): the rules of :func:`drop_tags`
    (a tag of an HTML element or with an attribute given a value, outside code and math; a
    plain ``<`` is text, and so is a ``<`` escaped by a backslash, ``\\<b>``). Code spans and
    fences are :func:`_code_ranges`'; indented code blocks (any depth) and ``$…$`` / ``$$…$$``
    math are the parser's (:func:`gbrain.page.fastparse.literal_spans`), asked only when a tag
    could be in one: ``s`` holds ``$``, or the tag's line holds four spaces or a tab before it.
    ``raw_blocks``: an HTML block is raw, as CommonMark reads it (no escape, code span or fence
    inside one: ``<div>\\<b>x</b></div>``'s ``<b>`` is a tag; the parser's blocks,
    :func:`gbrain.page.fastparse.literal_and_html_spans`, asked only for a tag read as escaped
    or code on a text a line of which may open one, :data:`_HTML_BLOCK_AT`): what snippets show
    (:func:`drop_tags`) and the index reads (:func:`search_text`, since SQLite v81 / Postgres v89;
    v79 / v87 read without it).
    ``[]`` for a text without ``<`` (one ``in``)."""
    if "<" not in s:
        return []
    out: list[tuple[int, int, bool]] = []
    code: list[tuple[int, int]] | None = None
    parsed: tuple[list[tuple[int, int]], list[tuple[int, int]]] | None = None  # (literal, HTML blocks)
    blocks: bool | None = None  # (whether a line of ``s`` may open an HTML block)
    dollar: bool | None = None
    ls_at = ls = 0  # (the start of the line holding ``ls_at``: the tags come in order, each line read once)
    deep = False  # (whether ``s[ls:ls_at]`` holds four spaces or a tab)
    for m in _HTML_TAG.finditer(s):
        name = (m.group("close") or m.group("name")).replace(HIT_ON, "").replace(HIT_OFF, "").lower()
        if name not in _HTML_NAMES and "=" not in (m.group("attrs") or ""):
            continue
        if code is None:
            code = _code_ranges(s) if "`" in s or "~~~" in s else []
        a = m.start()
        if _inside(code, a) or (a and s[a - 1] == "\\" and _backslashed(s, a)):
            # (inside code, or ``\\<``: text as written, a literal ``<``; not in an HTML block)
            if raw_blocks:
                if blocks is None:
                    blocks = _HTML_BLOCK_AT.search(s) is not None
                if blocks:
                    if parsed is None:
                        parsed = _parsed_ranges(s)
                    if _inside(parsed[1], a):
                        out.append((a, m.end(), name in _INLINE_NAMES))
            continue
        if parsed is None:
            if dollar is None:
                dollar = "$" in s
            if not dollar:
                nl = max(s.rfind("\n", ls_at, a), s.rfind("\r", ls_at, a))
                seg = s[nl + 1:a] if nl >= 0 else s[max(ls, ls_at - 3):a]
                deep = ("    " in seg or "\t" in seg) or (nl < 0 and deep)
                ls, ls_at = (nl + 1 if nl >= 0 else ls), a
            if dollar or deep:
                parsed = _parsed_ranges(s)
        if parsed and _inside(parsed[0], a):
            continue  # (in an indented code block or math)
        out.append((a, m.end(), name in _INLINE_NAMES))
    return out


#: a line that may open an HTML block (:func:`tag_spans`): ``<`` after blanks and container marks
#: (a quote's ``>``, a list item's ``-``, ``*``, ``+``, ``1.``, ``1)``) alone
_HTML_BLOCK_AT = re.compile(r"(?:^|(?<=[\n\r]))[ \t>*+\-.)0-9]*<")


def _backslashed(s: str, at: int) -> bool:
    """Whether ``s[at]`` follows an odd run of backslashes (CommonMark's backslash escape)."""
    i = at
    while i and s[i - 1] == "\\":
        i -= 1
    return (at - i) % 2 == 1


def _inside(spans: list[tuple[int, int]], at: int) -> bool:
    """Whether offset ``at`` lies in one of ``spans`` (sorted, disjoint)."""
    k = bisect.bisect_right(spans, (at, 1 << 62)) - 1
    return k >= 0 and spans[k][1] > at


def _parsed_ranges(s: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """:func:`gbrain.page.fastparse.literal_and_html_spans` of ``s``, the literal spans merged
    (sorted, disjoint); ``([], [])`` without pyromark."""
    try:
        from ..page.fastparse import literal_and_html_spans
    except ImportError:  # (without pyromark: fenced code and code spans only)
        return [], []
    literal, html = literal_and_html_spans(s)
    out: list[tuple[int, int]] = []
    for a, z in literal:
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(z, out[-1][1]))
        else:
            out.append((a, z))
    return out, html


def _shown(name: str, hidden: str) -> str:
    """A link's shown ``name``, the whole of it marked as a hit when its ``hidden`` part (the URL,
    an aliased target) holds one and the name holds none."""
    if HIT_ON in hidden and HIT_ON not in name and name.strip():
        return HIT_ON + name + HIT_OFF
    return name


def readable(marked: str) -> str:
    """Page text (hits between :data:`HIT_ON` and :data:`HIT_OFF`) as it reads: Obsidian ``%% %%``
    and HTML comments and block ids (`` ^id`` ending a line) dropped, HTML tags outside code dropped
    (:func:`drop_tags`), a wiki link shown as its alias or else its target as written (an
    embed's size, ``![[img.png|300]]``, is no alias), a
    markdown link or image as its label (a hit inside a URL or an aliased target is dropped with
    it, and the name is marked instead), emphasis marks (``**``, ``__``, ``~~``, ``==``, a pair of
    ``*``/``_``), heading and quote marks dropped, character references read (``&#40;`` → ``(``,
    outside backtick code), white space collapsed. Marks are kept (a pair never split)."""
    s = _COMMENT.sub(" ", marked) if "%%" in marked or "<!--" in marked else marked
    s = drop_tags(s)
    if "^" in s:
        s = _BLOCK_ID.sub("", s)
    s = _WIKI_LINK.sub(lambda m: m.group(1) if m.group(2) is None or (m.group(0)[0] == "!" and _EMBED_SIZE.fullmatch(m.group(2)))
                       else _shown(m.group(2), m.group(1)), s)
    s = _MD_LINK.sub(lambda m: _shown(m.group(1), m.group(2)), s)
    if "#" in s:
        s = _HEADING.sub("", s)
    if ">" in s:
        s = _QUOTE.sub("", s)
    s = _EMPH_RUN.sub("", s)
    s = _EMPH_ONE.sub(r"\2", s)
    # a mark without its partner (its other half was in dropped syntax) is no hit
    s = _HIT.sub(lambda m: "\x00" + m.group(1) + "\x01", s).replace(HIT_ON, "").replace(HIT_OFF, "")
    s = s.replace("\x00", HIT_ON).replace("\x01", HIT_OFF)
    if "&" in s:
        s = _char_refs(s)
    return " ".join(s.split())


def snippet_of(marked: str, width: int = SNIPPET_WIDTH) -> dict:
    """``{snippet, highlights}`` from page text with its hits marked (:data:`HIT_ON`/:data:`HIT_OFF`,
    the page's own characters of :data:`_NOT_SHOWN` removed first by the caller's marking): the
    :func:`readable` text cut to about ``width`` characters (at word ends, ``…`` where cut) around
    the place with the most distinct hit words (the first such), and ``highlights``: the hits as
    ``[start, end)`` offsets in code points into ``snippet``, in order. No hit: the start of the text."""
    s = readable(marked)
    hits = [(m.start(), m.end(), m.group(1).casefold()) for m in _HIT.finditer(s)][:500]
    best, best_n = 0, (0, 0)
    for i, (a, _, _) in enumerate(hits):
        inside = [w for _, y, w in hits[i:] if y <= a + width - width // 4]
        n = (len(set(inside)), len(inside))
        if n > best_n:
            best, best_n = i, n
    a = hits[best][0] if hits else 0
    back = max(width // 4, a + width - len(s))  # near the end: more of what comes before
    start = 0 if a <= back else s.rfind(" ", 0, a - back) + 1
    if a > back and a - back - start > 40 and _UNSPACED.search(s, start, a - back):
        # text written without spaces (CJK): cut inside it, never inside a hit
        start = a - back
        o, c = s.rfind(HIT_ON, 0, start), s.rfind(HIT_OFF, 0, start)
        start = o if o > c else start
    end = start + width
    if end < len(s):
        sp = s.find(" ", end)
        if not ((sp < 0 or sp > end + 40) and _UNSPACED.search(s, end, end + 41)):  # (no space near: cut inside it)
            end = len(s) if sp < 0 or sp > end + 40 else sp
        while True:  # never end inside a hit
            o, c = s.rfind(HIT_ON, start, end), s.rfind(HIT_OFF, start, end)
            if o <= c:
                break
            end = s.find(HIT_OFF, o) + 1
    part = s[start:end]
    text, spans, pos = [], [], 0
    lead = "…" if start > 0 else ""
    for m in _HIT.finditer(part):
        text.append(part[pos : m.start()])
        at = len(lead) + sum(map(len, text))
        text.append(m.group(1))
        spans.append([at, at + len(m.group(1))])
        pos = m.end()
    text.append(part[pos:])
    return {"snippet": lead + "".join(text).strip() + ("…" if end < len(s) else ""), "highlights": spans}


def _starts_word(text: str, m: "re.Match[str]") -> bool:
    """Whether match ``m`` of a query word begins where a word of ``text`` begins, as the engine
    matches words (``ο`` is not ``πρὸς``'s ``ὸ``, nor ``cat`` ``concat``'s end), or is a run of an
    unspaced script (CJK, Thai: a word anywhere), or follows one (``GoogleでSEOを``: the engine
    reads a word glued to CJK text as its own, :func:`_glued_runs`). A query word is word
    characters only, so a match refused holds no word start the next match could begin at."""
    at = m.start()
    return (at == 0 or not _PLAIN_WORD.match(text, at - 1) or _UNSPACED.match(text, at) is not None
            or _UNSPACED.match(text, at - 1) is not None or _CJK_CHAR.match(text, at - 1) is not None)


@functools.lru_cache(maxsize=2)
def _marks_class(scripts_only: bool = False) -> str:
    """A regular-expression class of the combining marks (categories Mn, Mc, Me) of the BMP: a
    Devanagari vowel sign or virama, a decomposed accent (made once, ~20 ms); ``scripts_only``:
    but the diacritics of U+0300–U+036F (Latin, Greek and Cyrillic accents)."""
    out, start = [], None
    for cp in range(0x10001):
        m = (cp < 0x10000 and not 0xD800 <= cp < 0xE000 and not (scripts_only and 0x300 <= cp <= 0x36F)
             and unicodedata.category(chr(cp)).startswith("M"))
        if m and start is None:
            start = cp
        elif not m and start is not None:
            out.append(re.escape(chr(start)) + ("-" + re.escape(chr(cp - 1)) if cp - 1 > start else ""))
            start = None
    return "[" + "".join(out) + "]"


@functools.lru_cache(maxsize=1)
def _mark_edges() -> tuple[re.Pattern, re.Pattern]:
    """``(right, left)``: a mark's end followed by a combining mark and the rest of its word, and
    a word's letters and marks ending in a combining mark right before a mark's start."""
    m = _marks_class()
    wm = rf"(?:[^\W_]|{m})"
    return (re.compile(rf"{HIT_OFF}({m}{wm}*)"), re.compile(rf"(?<![^\W_\x02\x03])((?:[^\W_]|{m})*{m}){HIT_ON}"))


@functools.lru_cache(maxsize=1)
def _script_marks() -> tuple[re.Pattern, re.Pattern]:
    """``(mark, word)``: a combining mark other than the diacritics of U+0300–U+036F (a Devanagari
    vowel sign or virama, a Thai vowel), and a query word (:data:`_WORD`) whose combining marks stay
    in it."""
    return re.compile(_marks_class(True)), re.compile(rf"[^\W_](?:[^\W_]|{_marks_class()})*(?:\*)?|\*")


#: Arabic vowel and Quranic marks (harakat, shadda, sukun, superscript alef…) and tatweel (U+0640,
#: which only stretches a word in print; since SQLite v79 / Postgres v87): optional in writing, so a
#: query word written with them is searched without them too (:func:`_terms`), a page's text written
#: with them is indexed bare in their place (:func:`search_text`, v79 / v87: phrases and term
#: frequency as the text's), and a name, frontmatter value or canvas card's words bare beside them
#: (:func:`compat_words`, SQLite v77 / Postgres v85)
_ARABIC_MARK = re.compile("[\u0610-\u061a\u0640\u064b-\u065f\u0670\u06d6-\u06dc\u06df-\u06e4\u06e7\u06e8\u06ea-\u06ed]")
#: the alef written with a hamza or madda (``أ إ آ``) → the bare alef ``ا``, as harakat are dropped
#: (SQLite v79 / Postgres v87: ``اسلام`` finds ``إسلام``; their decomposed forms are ``ا`` with a mark
#: of :data:`_ARABIC_MARK`, U+0653–0655, bare already; the exact-name keys fold them too, ``SCRIPT_ACCENTS``)
_ALEF_FOLD = str.maketrans("\u0622\u0623\u0625", "\u0627\u0627\u0627")
#: a character :func:`arabic_bare` drops or folds: an Arabic mark or tatweel, an alef with hamza or madda
_ARABIC_FOLDS = re.compile(_ARABIC_MARK.pattern[:-1] + "\u0622\u0623\u0625]")
#: a run of word characters and Arabic vowel marks (:func:`_other_spellings`: a marked word)
_WORD_ATOM = "(?:[^\\W_]|" + _ARABIC_MARK.pattern + ")"  #: one character of a word or an Arabic mark
_WORD_OR_MARK = re.compile(_WORD_ATOM + "+")


def arabic_bare(word: str) -> str:
    """``word`` as search reads Arabic (SQLite v79 / Postgres v87 for tatweel and the alefs; v77 /
    v85 harakat): its vowel marks and tatweel dropped (:data:`_ARABIC_MARK`), ``أ إ آ`` as ``ا``
    (:data:`_ALEF_FOLD`): ``الطَّالِبُ`` → ``الطالب``, ``العـــربية`` → ``العربية``, ``إسلام`` → ``اسلام``;
    other characters as they are; a hamza or madda written decomposed (U+0653–0655 after its letter,
    NFD: macOS file names) composed first (NFC), so ``و`` + U+0654 is ``ؤ`` as typed composed (kept,
    as Lucene's ArabicNormalizer keeps a hamza on waw or yeh) and ``ا`` + U+0654 is ``أ`` → ``ا``.
    Used for the query's words and the index's alike."""
    if _HAMZA_MARK.search(word):
        word = unicodedata.normalize("NFC", word)
    return _ARABIC_MARK.sub("", word).translate(_ALEF_FOLD)


#: a madda or hamza above or below (combining: :func:`arabic_bare` composes them with their letter)
_HAMZA_MARK = re.compile("[\u0653-\u0655]")
#: a word of text holding ``đ`` or ``Đ`` (:func:`_other_spellings`)
_DJ_TEXT_WORD = re.compile("(?<![^\\W_])[^\\W_]*[\u0111\u0110][^\\W_]*")
#: a character whose words :func:`compat_words` also indexes in another spelling
#: (:func:`_other_spellings`): an Arabic vowel mark, ``đ``, ``Đ``
_SPELT = re.compile("[\u0610-\u061a\u0622\u0623\u0625\u0640\u064b-\u065f\u0670\u06d6-\u06dc\u06df-\u06e4\u06e7\u06e8\u06ea-\u06ed\u0111\u0110]")
#: a character :func:`compat_words` looks for: a letter :data:`_LETTERS` folds or one of :data:`_SPELT`
_LETTERS_SPELT = re.compile(_LETTERS.pattern[:-1] + _SPELT.pattern[1:])


def _pg_word_rx(query: str) -> re.Pattern:
    """What a word of ``query`` is on Postgres: :data:`_WORD`, or, when ``query`` holds a combining
    mark of a script (``हिन्दी``), a word with its marks: Postgres' parser reads ``हिन्दी`` as one
    word, where unicode61 and Python's ``\\w`` split it at its vowel signs (``ह न द``, as SQLite indexes it)."""
    if query.isascii():
        return _WORD
    mark, word = _script_marks()
    return word if mark.search(query) else _WORD


@functools.lru_cache(maxsize=64)
def _apostrophe_words(query: str) -> re.Pattern | None:
    """A pattern of ``query``'s words written with an apostrophe (``don't``, ``O'Brien``, either
    ``'`` or ``’``; a prefix ``l’hom*`` to its word's end) in a marked text, its marks anywhere in
    it; None when it has none."""
    words = re.findall(r"([^\W_]+(?:['’][^\W_]+)+)(\*?)", query or "")
    if not words:
        return None
    opt = f"{HIT_ON}?{HIT_OFF}?"
    # (a prefix, ``l’hom*``, to its word's end: ``l’homme``)
    rest = f"(?:[^\\W_]|{HIT_ON}|{HIT_OFF})*"
    alts = [opt + opt.join(r"['’]" if c in "'’" else re.escape(c) for c in w) + opt + (rest if star else "")
            for w, star in sorted(set(words), key=lambda x: (len(x[0]), x[1]), reverse=True)]
    return re.compile(r"(?<![^\W_])(?:" + "|".join(alts) + r")(?![^\W_])", re.I)


def _mark_at_edge(marked: str) -> bool:
    """Whether a mark of ``marked`` begins right after a combining mark or ends right before one
    (a look at each mark's edges, not a scan of the text)."""
    for sym, off in ((HIT_ON, -1), (HIT_OFF, 1)):
        i = marked.find(sym)
        while i >= 0:
            j = i + off
            if 0 <= j < len(marked) and unicodedata.category(marked[j])[0] == "M":
                return True
            i = marked.find(sym, i + 1)
    return False


def _whole_marks(marked: str, query: str, glued: bool = True) -> str:
    """``marked`` (text with :data:`HIT_ON`/:data:`HIT_OFF` marks, the engine's or
    :func:`_mark_words`') with each mark over whole written words: a word of ``query`` written
    with an apostrophe marked whole (``don't``: the tokenizer reads ``don`` and ``t``, a stop word);
    a mark ending or beginning inside a word at a combining mark (a Devanagari vowel sign or
    virama: Python's ``\\w`` and unicode61 read them as separators, so ``हिन्दी`` is found as ``ह न द``)
    widened to the word, marks meeting there one; and, ``glued`` and a query with no CJK text, a
    mark over a Latin word glued to CJK text (``GoogleでSEOを追跡``: one token for the engines)
    narrowed to the query's words in it (:func:`_mark_words`: the glued word the index holds).
    ASCII text without an apostrophe word costs one call."""
    rx = _apostrophe_words(query)
    if rx is not None:
        marked = rx.sub(lambda m: m.group() if HIT_ON not in m.group() and HIT_OFF not in m.group() or m.group().count(HIT_ON) != m.group().count(HIT_OFF)
                        else HIT_ON + m.group().replace(HIT_ON, "").replace(HIT_OFF, "") + HIT_OFF, marked)
    if marked.isascii():
        return marked
    if _mark_at_edge(marked):
        right, left = _mark_edges()
        marked = left.sub(HIT_ON + r"\1", right.sub(r"\1" + HIT_OFF, marked))
        marked = marked.replace(HIT_OFF + HIT_ON, "")
    if glued and not _CJK_CHAR.search(query or "") and _GLUED_MARK.search(marked):
        marked = _GLUED_MARK.sub(lambda m: _mark_words(m.group(1), query, around=0) or m.group(1), marked)
    return marked


#: a text at least this long is folded for a Python-marked snippet in windows around its hits
#: (:func:`_fold_hits`), a shorter one whole (:func:`_fold_hits_whole`)
FOLD_WINDOW_MIN = 65_536
#: characters of text a window of :func:`_fold_hits` begins with (cut at a line end); a window
#: grows by doubling
FOLD_BLOCK = 16_384


def _scan_hits(folded: str, starts: Sequence[int], ends: Sequence[int], shift: int, text: str, alt: re.Pattern,
               at: int, around: int) -> tuple[list[tuple[int, int]], int, int] | None:
    """The hits :func:`_mark_words` marks in folded text (:func:`_fold_map` of ``text`` from
    ``shift`` on): the first query word of ``alt`` from ``folded[at:]`` that begins a word, the whole
    lines about ``around`` characters either side of it, ``[a, b)`` of ``text``, and the words in
    them as ``[start, end)`` spans of ``text`` (two in one folded piece one span); None when no word is."""
    spans: list[tuple[int, int]] = []
    a = b = -1
    for h in alt.finditer(folded, at):
        if not _starts_word(folded, h):
            continue
        x, y = shift + starts[h.start()], shift + ends[h.end() - 1]
        if not spans:
            a = text.rfind("\n", 0, max(0, x - around)) + 1
            b = text.find("\n", y + around)
            b = len(text) if b < 0 else b
        elif y > b:
            break
        if spans and x < spans[-1][1]:  # two hits in one piece: one mark
            spans[-1] = (spans[-1][0], max(y, spans[-1][1]))
        else:
            spans.append((x, y))
    return (spans, a, b) if spans else None


def _fold_hits_whole(text: str, together: re.Pattern | None, alt: re.Pattern, around: int) -> tuple[list[tuple[int, int]], int, int] | None:
    """:func:`_mark_words`' hits in ``text`` folded whole (:func:`_fold_map`): from the first place
    ``together`` matches (else the start), as :func:`_scan_hits`; None when no word is found."""
    folded, starts, ends = _fold_map(text)
    m = together.search(folded) if together else None
    return _scan_hits(folded, starts, ends, 0, text, alt, m.start() if m else 0, around)


def _safe_cut(text: str, pos: int) -> int:
    """The first place at or after ``pos`` (> 0) where :func:`_fold_map` of ``text`` is the fold of
    the text before it followed by the fold of the text after it: after a line end that no combining
    mark follows (a mark makes one piece with the line end), else ``len(text)``."""
    n = len(text)
    while pos < n:
        i = text.find("\n", max(pos - 1, 0))
        if i < 0 or i + 1 >= n:
            return n
        if not unicodedata.combining(text[i + 1]):
            return i + 1
        pos = i + 2
    return n


def _char_fold(c: str) -> str:
    """One character folded as :func:`_fold_map` folds a piece of one character (a non-ASCII one:
    ASCII stays as it is for :class:`_FoldBlocks`' case-insensitive test)."""
    return fold_letters(fold_accents(unicodedata.normalize("NFKC", c))).casefold()


class _FoldBlocksTranslate:
    """Line-aligned blocks of a long ``text`` and which may hold a query word once folded: the
    block's exact fold (each character folded as :func:`_fold_map` folds a piece of one character, by
    ``str.translate``: no per-character Python) searched for the words, ``literals`` (casefolded and
    folded, case-insensitively); a block holding a combining mark (a piece of several characters) is
    always taken. Its cost goes with the text before the hit (``str.translate`` looks each character
    up in a dict, ~0.2 µs); :class:`_FoldBlocks` answers the same by a regular expression and falls
    back to this one where that expression would be too long."""

    def __init__(self, text: str, literals: Sequence[str]):
        self.text = text
        chars = set(text)
        marks = [c for c in chars if unicodedata.combining(c)]
        self.marks = re.compile("[" + "".join(map(re.escape, marks)) + "]") if marks else None
        self.table = {ord(c): _char_fold(c) for c in chars if not c.isascii()}
        self.words = re.compile("|".join(map(re.escape, sorted(set(literals), key=len, reverse=True))), re.I)

    def next_from(self, pos: int) -> int | None:
        """The start of the first block at or after ``pos`` (a :func:`_safe_cut`) whose fold may
        hold a word; None when none does: no word begins in the fold of ``text[pos:]`` before it."""
        text, n = self.text, len(self.text)
        while pos < n:
            end = _safe_cut(text, pos + FOLD_BLOCK)
            block = text[pos:end]
            if (self.marks is not None and self.marks.search(block)) or self.words.search(block.translate(self.table)):
                return pos
            pos = end
        return None


#: the longest expression :class:`_FoldBlocks` compiles (characters of pattern); past it (words
#: with many letters a character folds to several of: ``ß``, ``ﬃ``), :class:`_FoldBlocksTranslate`
FOLD_RX_MAX = 20_000


class _FoldBlocks:
    """:class:`_FoldBlocksTranslate`'s blocks and answers (the same block starts, the same test:
    a block is taken when it holds a combining mark or when a word of ``literals`` matches its
    per-character fold case-insensitively) without folding the blocks: one regular expression over
    the text as written, whose classes hold the characters whose fold spells each letter of a
    word (a character folding to several letters, ``ß`` → ``ss``, a step over as many), so the
    scan to a hit runs in C (~ns a character) whatever its place. Only the characters of the text
    read so far are classified (each once: its fold, whether a mark); a character not yet seen
    stops the scan, the characters from there are read (a block's the first time, the whole
    rest's the next: the expression is made three times at most) and the expression made again."""

    def __init__(self, text: str, literals: Sequence[str]):
        self.text = text
        self.literals = sorted(set(literals), key=len, reverse=True)
        chars = {c for w in self.literals for c in w}
        # (a character whose fold holds none of the words' letters is in no word's match; an
        # alternation of letters, not a class: a class under re.I may match other characters)
        self.relevant = re.compile("|".join(map(re.escape, sorted(chars))), re.I) if chars else None
        self.eq: dict[tuple[str, str], bool] = {}
        self.known: set[str] = set()  # every non-ASCII character classified
        self.marks: set[str] = set()
        self.folds: dict[str, set[str]] = {}  # fold → the characters (ASCII ones too) folding to it
        for c in map(chr, range(128)):
            if self.relevant is not None and self.relevant.search(c):
                self.folds.setdefault(c, set()).add(c)
        self.rest_from: int | None = None  # where the first character not seen stood
        self.fallback: _FoldBlocksTranslate | None = None
        if "" in self.literals:  # (matches everywhere)
            self.fallback = _FoldBlocksTranslate(text, self.literals)
        else:
            self._compile()

    def _same(self, word: str, fold: str) -> bool:
        """Whether ``word`` (a part of a literal) matches ``fold`` case-insensitively as ``re`` matches it, letter by letter."""
        if len(word) != len(fold):
            return False
        for a, b in zip(word, fold):
            k = (a, b)
            if k not in self.eq:
                self.eq[k] = re.fullmatch(re.escape(a), b, re.I) is not None
            if not self.eq[k]:
                return False
        return True

    def _word_rx(self, word: str) -> list[tuple[set[str], str]]:
        """Where ``word`` begins in the fold of the text as written (its first character's fold may
        hold letters before the word's first), as ``[(first characters, expression of the rest)]``;
        ``[]`` when no known character can begin it."""
        k = len(word)
        steps: list[dict[int, set[str]]] = [{} for _ in range(k)]  # letters matched → {letters after it (k: done): chars}
        for f, cs in self.folds.items():
            m = len(f)
            for o in range(m):  # the first character: the word from any letter of its fold on
                r = f[o:]
                if len(r) >= k:
                    if self._same(word, r[:k]):
                        steps[0].setdefault(k, set()).update(cs)
                elif self._same(word[: len(r)], r):
                    steps[0].setdefault(len(r), set()).update(cs)
            for i in range(1, k):  # the next ones: from their fold's first letter
                if m >= k - i:
                    if self._same(word[i:], f[: k - i]):
                        steps[i].setdefault(k, set()).update(cs)
                elif self._same(word[i : i + m], f):
                    steps[i].setdefault(i + m, set()).update(cs)
        memo: dict[int, str | None] = {k: ""}

        def rest(i: int) -> str | None:
            if i not in memo:
                alts = [_class_of(cs) + after for j, cs in sorted(steps[i].items(), reverse=True) if (after := rest(j)) is not None]
                memo[i] = None if not alts else alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
            return memo[i]

        return [(cs, after) for j, cs in sorted(steps[0].items(), reverse=True) if (after := rest(j)) is not None]

    def _compile(self) -> None:
        # one class of every character a hit may begin with (a mark, one not seen yet, a word's
        # first), then a branch for each, chosen by a one-character look behind: re's search skips
        # to such a character in C (a branch first would be tried at every character)
        firsts = set(self.marks)
        words = []
        for w in self.literals:
            for cs, after in self._word_rx(w):
                firsts |= cs
                words.append(f"(?<={_class_of(cs)}){after}")
        if sum(map(len, words)) > FOLD_RX_MAX:
            self.fallback = _FoldBlocksTranslate(self.text, self.literals)
            return
        branches = [f"(?<=[^\\x00-\\x7f{_escaped(self.known)}])"]  # (not seen yet)
        if self.marks:
            branches.append(f"(?<={_class_of(self.marks)})")
        others = [c for c in map(chr, range(128)) if c not in firsts] + sorted(self.known - firsts)
        first = f"[^{_escaped(others)}]" if others else r"[\s\S]"
        self.rx = re.compile(f"{first}(?:{'|'.join(branches + words)})")

    def _learn(self, at: int) -> None:
        """Classify the characters not seen yet from ``at`` (where one stands) on: those of a block
        the first time, those of the whole rest of the text the next (found by one expression:
        no string made of a character already known), then make the expression again."""
        if self.rest_from is None:
            self.rest_from = at
            new = set(self.text[at : at + FOLD_BLOCK])
        else:
            new = set(re.compile(f"[^\\x00-\\x7f{_escaped(self.known)}]").findall(self.text, at))
        for c in new - self.known:
            if c.isascii():
                continue
            self.known.add(c)
            if unicodedata.combining(c):
                self.marks.add(c)
                continue
            f = _char_fold(c)
            if self.relevant is not None and self.relevant.search(f):
                self.folds.setdefault(f, set()).add(c)
        self._compile()

    def next_from(self, pos: int) -> int | None:
        """As :meth:`_FoldBlocksTranslate.next_from`: the start of the first block at or after ``pos``
        whose fold may hold a word, None when none does."""
        if self.fallback is not None:
            return self.fallback.next_from(pos)
        text, n = self.text, len(self.text)
        while pos < n:
            end = _safe_cut(text, pos + FOLD_BLOCK)
            while (m := self.rx.search(text, pos, end)) is not None:
                c = text[m.start()]
                if c.isascii() or c in self.known:
                    return pos
                self._learn(m.start())  # a character not seen yet
                if self.fallback is not None:
                    return self.fallback.next_from(pos)
            pos = end
        return None


def _escaped(chars: "set[str] | Sequence[str]") -> str:
    """``chars`` sorted, for a regular-expression class (the ASCII ones escaped: no other
    character is special there)."""
    return "".join(re.escape(c) if c.isascii() else c for c in sorted(chars))


def _class_of(chars: "set[str] | Sequence[str]") -> str:
    """A regular-expression class of exactly ``chars``."""
    return "[" + _escaped(chars) + "]"


def _fold_hits(text: str, together: re.Pattern | None, alt: re.Pattern, literals: Sequence[str],
               around: int) -> tuple[list[tuple[int, int]], int, int] | None:
    """What :func:`_fold_hits_whole` gives, ``(spans, a, b)`` or None, folding only windows of a long
    ``text`` (:data:`FOLD_WINDOW_MIN`): blocks whose fold holds none of ``literals`` (every word
    ``alt`` and ``together`` begin with) are skipped (:class:`_FoldBlocks`), a window begins after a
    line end (:func:`_safe_cut`: its fold is the whole fold's slice there) and grows until the
    hits' lines end in it and no ``together`` match could run past its end. A snippet's cost goes
    with the text around its hit, not the page's size."""
    n = len(text)
    if n < FOLD_WINDOW_MIN:
        return _fold_hits_whole(text, together, alt, around)
    blocks = _FoldBlocks(text, literals)

    def window(s: int, e: int) -> tuple[int, int, str, Sequence[int], Sequence[int]]:
        return (s, e, *_fold_map(text[s:e]))

    win, at = None, 0
    if together is not None:
        # the first match of ``together``: a window with none, nor the start of one running past
        # its end (its words to a word before the end, then separators only), holds no start of one
        ws = together.pattern.split(r"[\W_]+")
        tails = re.compile("(?:" + "|".join(r"[\W_]+".join(ws[:k]) for k in range(1, len(ws))) + r")\Z", re.I)
        pos = 0
        while win is None and (s := blocks.next_from(pos)) is not None:
            w = window(s, _safe_cut(text, s + FOLD_BLOCK))
            while True:
                folded = w[2]
                m = together.search(folded)
                i = len(folded)
                while i and _PLAIN_WORD.match(folded, i - 1) is None:
                    i -= 1
                if w[1] >= n or not tails.search(folded, 0, i):
                    break
                w = window(s, _safe_cut(text, w[1] + (w[1] - s)))
            if m is not None:
                win, at = w, m.start()
            pos = w[1]
    if win is None:
        s = blocks.next_from(0)
        if s is None:
            return None
        win = window(s, _safe_cut(text, s + FOLD_BLOCK))
    while True:
        s, e, folded, starts, ends = win
        hits = _scan_hits(folded, starts, ends, s, text, alt, at, around)
        if hits is None:  # (a word never runs past a line end: none in this window)
            s = blocks.next_from(e) if e < n else None
            if s is None:
                return None
            win, at = window(s, _safe_cut(text, s + FOLD_BLOCK)), 0
            continue
        if hits[2] < e or e >= n:
            return hits
        win = window(s, _safe_cut(text, hits[2] + 1))


def _mark_words(text: str, query: str, around: int = 2000, phrase: str | None = None) -> str | None:
    """``text`` near the first place its query words stand together as written (separated by
    punctuation or white space only: a phrase, an OID), else near its first query word (case-insensitive; at most :data:`SNIPPET_WORDS` distinct
    words looked for, in one pass) with the words marked for :func:`snippet_of`; whole lines of
    about ``around`` characters either side (a comment begun before them kept a comment);
    ``None`` when no word is found. A word is marked where a word begins only (:func:`_starts_word`:
    ``ο`` never marks ``πρὸς``'s ``ὸ``). The query is read in :func:`search_form`; text with
    compatibility characters is matched in its folded form (:func:`_fold_map`), the marks put
    around the original characters (``financial`` marks ``ﬁnancial``)."""
    def folded_words(q: str) -> list[str]:
        return [fold_accents(x.casefold()) for w in _WORD.findall(search_form(q)) if w.rstrip("*") for x in _glued_runs(w.rstrip("*"))]
    words = list(dict.fromkeys(folded_words(query)))[:SNIPPET_WORDS]
    seq = folded_words(phrase) if phrase else folded_words(query)  # (``phrase``: the query as typed, when ``query`` is its words)
    if not words:
        return None
    # a Russian word is searched as its stem's prefix (_terms: ``игрушкам`` → ``игрушк*``): marked
    # so, to its word's end, as the engine marks the form the page writes (``игрушки``); so is a
    # prefix the query writes (``ёж*`` marks ``Ёжик``, ``ежи``: the words the search matched)
    stems = {w: fold_accents(s) for w in words if (s := russian.prefix(w)) and w.casefold() not in STOP_WORDS}
    prefixes = {x for w in _WORD.findall(search_form(query)) if w.endswith("*") and w.rstrip("*")
                for x in _glued_runs(fold_accents(w.rstrip("*").casefold()))}
    # (to the word's end as the tokenizer reads one: ``_`` ends it; a CJK run is bigrams, no word)
    prefixes -= {w for w in prefixes if _CJK_RUN.search(w)}
    # (a Latin prefix stops where glued CJK text begins: ``goo*`` marks ``Google`` of ``GoogleでSEO``,
    # the glued word the index holds, _glued_runs)
    alt = "|".join(re.escape(stems[w]) + r"\w*" if w in stems else re.escape(w) + _PREFIX_REST if w in prefixes else re.escape(w)
                   for w in sorted(words, key=len, reverse=True))
    # the first place the words stand together as written (`1.2.840.113556.1.4.944`, a phrase), else the first word
    together = re.compile(r"[\W_]+".join(map(re.escape, seq[:SNIPPET_WORDS])), re.I) if 1 < len(seq) else None
    spans: list[tuple[int, int]] = []
    # (ASCII first, then a foldable character, most often met near the start, before the NFKC
    # test, which reads the whole text: the same answer as _no_compat_words(text) and not _FOLDABLE…)
    if text.isascii() or (not _FOLDABLE.search(text) and _no_compat_words(text)):
        rx = re.compile(alt, re.I)
        m = (together.search(text) if together else None) or next((h for h in rx.finditer(text) if _starts_word(text, h)), None)
        if m is None:
            return None
        a = text.rfind("\n", 0, max(0, m.start() - around)) + 1
        b = text.find("\n", m.end() + around)
        b = len(text) if b < 0 else b
        spans = [h.span() for h in rx.finditer(text, a, b) if _starts_word(text, h)]
    else:
        lits = [stems.get(w, w) for w in words] + seq[:SNIPPET_WORDS]
        hits = _fold_hits(text, together, re.compile(alt), lits, around)
        if hits is None:
            return None
        spans, a, b = hits
    parts, pos = [], a
    for x, y in spans:
        parts += [_NOT_SHOWN.sub("", text[pos:x]), HIT_ON, _NOT_SHOWN.sub("", text[x:y]), HIT_OFF]
        pos = y
    parts.append(_NOT_SHOWN.sub("", text[pos:b]))
    region = _whole_marks("".join(parts), query, glued=False)
    if text.count("%%", 0, a) % 2:
        region = "%%" + region
    if text.count("<!--", 0, a) > text.count("-->", 0, a):
        region = "<!--" + region
    return region


def _property_snippet(frontmatter_raw: str, query: str) -> dict | None:
    """The snippet of a page found by its properties' words alone: the first frontmatter line
    holding a query word (``author: robinharwood``), its words marked; None when none does."""
    marked = _mark_words(frontmatter_raw, query, around=0) if frontmatter_raw else None
    if marked is None:
        return None
    key = ""
    for ln in frontmatter_raw.splitlines():  # (the title and aliases are names, shown as such: no snippet)
        m = re.match(r"[^\s#:-][^:]*:", ln)
        key = m.group(0)[:-1].strip() if m else key
        if key in FRONTMATTER_NAMED or key == "":
            continue
        hit = _mark_words(ln, query, around=0)
        if hit is not None:
            return snippet_of(hit)
    return None


def _cut_snippet(text: str, query: str, width: int = SNIPPET_WIDTH) -> dict:
    """:func:`snippet_of` around the first query word found in ``text`` (:func:`_mark_words`);
    the start of the text, unmarked, when none is."""
    marked = _mark_words(text, query)
    return snippet_of(marked if marked is not None else _NOT_SHOWN.sub("", text[:4 * width]), width)


#: characters that are query syntax (or read as such in other search tools) and nothing else: a
#: query of only these and white space (``*``, ``""``, ``- :``, ``& | !``, ``<->``) has nothing
#: to search for; brackets, ``^`` and other symbols are looked for as written (substring search)
_SYNTAX_ONLY = re.compile(r'[\s*"\-:&|!<>]*')


def empty_query(text: str | None) -> bool:
    """Whether ``text`` has nothing to search for: empty, white space, or only the marks the
    query syntax drops (a stray ``*``, quotes) or reads as plain separators (``-``, ``:``,
    ``&``, ``|``, ``!``, ``<->``). Every surface refuses such a query as empty (``search``:
    "the query is empty", ``query``: "the question is empty", exit 2)."""
    return _SYNTAX_ONLY.fullmatch(text or "") is not None


def _quote(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


def _term(word: str, prefixes: "set[str] | frozenset[str]" = frozenset()) -> str:
    """``word`` as one FTS5 term: quoted, and with FTS5's prefix ``*`` when the query wrote it
    as a prefix (``word`` in ``prefixes``, casefolded)."""
    return _quote(word) + ("*" if word in prefixes else "")


def _stem_prefixes(words: list[str], prefixes: "set[str]") -> dict[str, str]:
    """``{word: stem prefix}`` of the query ``words`` the search matched by their Russian stem's
    prefix (``коты`` → ``кот``: the stem is among the ``prefixes`` the search's parts hold, and the
    word is not itself written as a prefix): :func:`_stem_terms` (SQLite) and :func:`_rank_pg`'s
    per-word name tsqueries."""
    return {w: s for w in words if w not in prefixes and (s := russian.prefix(w)) and s in prefixes}


def _stem_terms(words: list[str], prefixes: "set[str]") -> "Callable[[str], str]":
    """The FTS5 term of each query word as :func:`fts_parts` searched it: :func:`_term`, but a
    Russian word searched by its stem's prefix (``коты`` → ``"кот"*``: the stem is among the
    ``prefixes`` the parts hold, and the word is not itself written as a prefix) by that prefix.
    ``words``: :func:`query_words`' casefolded words."""
    stems = _stem_prefixes(words, prefixes)
    return lambda word: _term(stems[word], prefixes) if word in stems else _term(word, prefixes)


def fts_query(text: str, typed: "str | Sequence[str] | None" = None) -> str:
    """Build a safe FTS5 MATCH expression from free user text; ``''`` when it has no words.

    When the text has a word that is not in :data:`STOP_WORDS`, its stop words match the body
    fields only (``{compiled_truth timeline search_words} : "are"``). ``typed``: as in
    :func:`fts_parts`."""
    return " OR ".join(fts_parts(text, typed))


def fts_parts(text: str, typed: "str | Sequence[str] | None" = None, rx: re.Pattern = _WORD) -> list[str]:
    """The terms :func:`fts_query` joins with ``OR``, in order, each once (FTS5 strings: a
    quoted word, a quoted phrase, a quoted prefix ``"wor"*``); ``[]`` when the text has no words.
    ``typed``: the query ``text`` is the :func:`search_form` of, NFKC (:func:`typed_form`), or
    several such spellings of it (:func:`phrase_spellings`: the typed one and those the index
    holds): a quoted phrase its fold changed is searched in each, one term ``("елочные игрушки"
    OR "ёлочные игрушки")`` (a page's folded words, ``search_words``, are no phrase: the phrase
    is found by the spellings searched only). ``rx``: what a word is (:data:`_WORD`; Postgres' parser
    keeps a word's combining marks in it: :func:`_pg_word_rx`). With :data:`_WORD` (SQLite), a word
    holding a combining mark of a script (``हिन्दी``, ``الطَّالِبُ``) stays one FTS5 string too, which
    FTS5 reads as the phrase of the pieces unicode61 splits it into (``ह न द``): its pieces OR-ed
    found a page holding any of them (``दिन``: ``द न``); as a prefix ending in a mark, ``हि*``, its
    last piece whole (the index cannot tell which mark followed it)."""
    parts: list[str] = []
    pos = 0
    # (SQLite, a query holding a combining mark of a script: a word with its marks, one FTS5 string
    # read as the phrase of its unicode61 pieces; _terms ends a prefix after a mark at its piece)
    pieces = rx is _WORD and not text.isascii() and _script_marks()[0].search(text) is not None
    if pieces:
        rx = _script_marks()[1]
    spellings = [typed] if isinstance(typed, str) else list(typed or ())
    spelled = [[m.group(1) for m in _PHRASE.finditer(t)] for t in spellings if t and t != text]
    for k, m in enumerate(_PHRASE.finditer(text)):
        parts += _terms(text[pos : m.start()], rx, pieces=pieces)
        # (a star after the closing quote makes the phrase's last word a prefix, as FTS5 reads it)
        after = text.startswith("*", m.end())
        raw = _phrase_words(m.group(1), after, rx)
        words = [w.rstrip("*") for w in raw]
        if len(words) > 1 and all(_CJK_RUN.fullmatch(w) for w in words):
            parts.append(_cjk_phrase(words))
        elif len(words) == 1 and _CJK_RUN.search(words[0]):
            parts += _terms(words[0])
        elif len(words) == 1:
            # (a word with Arabic vowel marks: as typed or without them, as outside quotes)
            parts += _terms(raw[0], rx, stem=False, pieces=pieces)
        elif words:
            forms = [raw]
            bare = [w if w.isascii() else arabic_bare(w) for w in raw]
            if bare != raw and all(w.strip("*") for w in bare):  # (Arabic vowel marks are optional: the phrase without them too)
                forms.append(bare)
            for sp in spelled:
                as_typed = _phrase_words(sp[k], after, rx) if k < len(sp) else raw
                if len(as_typed) > 1 and as_typed not in forms and not any(map(_CJK_RUN.search, as_typed)):
                    forms.append(as_typed)
            if len(forms) > 1:
                parts.append("(" + " OR ".join(map(_phrase_term, forms)) + ")")
            else:
                parts.append(_phrase_term(raw))
        pos = m.end() + after
    parts += _terms(text[pos:].replace('"', " "), rx, pieces=pieces)
    parts += [_quote(d) for d in date_phrases(_PHRASE.sub(" ", text))]
    parts += [_quote(v) for v in version_phrases(_PHRASE.sub(" ", text))]
    seen = list(dict.fromkeys(parts))  # (each once, in order: not each compared with every other, trial 66's review)
    if any(not _is_stop(p) for p in seen):
        seen = [p for p in seen if not _is_stop(p)] if STOP_WORDS_DROPPED else [f"{_BODY_FILTER} : {p}" if _is_stop(p) else p for p in seen]
    return seen


def _phrase_words(inside: str, after: bool = False, rx: re.Pattern = _WORD) -> list[str]:
    """The words of a quoted phrase's text ``inside``, a prefix word with its ``*`` (``"lodz*
    fabryczna"``); ``after``: a ``*`` follows the closing quote, so the last word is a prefix."""
    words = [w for w in rx.findall(inside) if w.strip("*")]
    if after and words and not words[-1].endswith("*"):
        words[-1] += "*"
    return words


def _phrase_term(words: list[str]) -> str:
    """The FTS5 term of a phrase of ``words`` (a prefix word ends with ``*``): ``"w1 w2"``, or,
    with a prefix word, its words' strings joined into one phrase by ``+``, each prefix one
    followed by ``*`` (``("lodz"* + "fabryczna")``: FTS5 reads a ``*`` inside a string as no
    syntax, and marks the last token of a string followed by ``*`` a prefix)."""
    if not any(w.endswith("*") for w in words):
        return _quote(" ".join(words))
    return "(" + " + ".join(_quote(w.rstrip("*")) + ("*" if w.endswith("*") else "") for w in words) + ")"


_FTS_STRING = re.compile(r'"((?:[^"]|"")*)"(\*?)|( OR )')


def _phrase_alternatives(term: str) -> list[str]:
    """The phrases of an FTS5 term :func:`fts_parts` made of phrases (``("a b" OR "c d")``,
    ``("lodz"* + "fabryczna")``, ``(("a"* + "b") OR ("c"* + "b"))``), each as its words joined
    by spaces, a prefix word with its ``*`` (``lodz* fabryczna``), in order."""
    out: list[list[str]] = [[]]
    for m in _FTS_STRING.finditer(term):
        if m.group(3):
            out.append([])
        else:
            out[-1].append(m.group(1).replace('""', '"') + m.group(2))
    return [" ".join(x) for x in out if x]


#: month names and their usual abbreviations (English), as a date written in words names them
_MONTHS = {m: i for i, names in enumerate((
    "january jan", "february feb", "march mar", "april apr", "may", "june jun", "july jul",
    "august aug", "september sept sep", "october oct", "november nov", "december dec"), 1) for m in names.split()}
_MONTH = "(" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(\d{4})"
#: a date in words: ``March 2025``, ``March 4th, 2025``, ``4 March 2025``, ``2025 March (4)``
_DATE_WORDS = re.compile(
    r"(?<![^\W_])(?:"
    + _DAY + r"\s+(?:of\s+)?" + _MONTH + r",?\s+" + _YEAR
    + "|" + _MONTH + r"\s+(?:" + _DAY + r",?\s+)?" + _YEAR
    + "|" + _YEAR + r",?\s+" + _MONTH + r"(?:\s+" + _DAY + r")?"
    + r")(?![^\W_])", re.I)


def date_phrases(text: str) -> list[str]:
    """The ISO 8601 numbers of the dates ``text`` writes with a month name and a year, as phrases
    of words (``"March 2025"`` → ``["2025 03"]``, ``"4 March 2025"`` → ``["2025 03 04"]``; a day
    outside 1–31 is left out), in order, each once; ``[]`` when it has none.

    Pages and timelines write dates as numbers (``2025-03-04``, ``2022/03/14``: the tokens
    ``2025 03 04``), people ask in words, so :func:`fts_parts` adds these phrases as terms of the
    query beside its words: a month of a year then finds the pages dated in it. This is query
    expansion of a temporal expression to the document's normal form (ISO 8601), as temporal IR
    normalises dates before matching (Alonso, Gertz & Baeza-Yates, "On the value of temporal
    information in information retrieval", SIGIR Forum 2007)."""
    out: list[str] = []
    for m in _DATE_WORDS.finditer(text):
        g = m.groups()
        day, month, year = (g[0], g[1], g[2]) if g[1] else (g[4], g[3], g[5]) if g[3] else (g[8], g[7], g[6])
        phrase = f"{year} {_MONTHS[month.casefold()]:02d}"
        if day and 1 <= int(day) <= 31:
            phrase += f" {int(day):02d}"
        if phrase not in out:
            out.append(phrase)
    return out


#: a version number as people write it: ``0.14``, ``v0.14.6``, ``V2.1`` (a word of its own)
_VERSION = re.compile(r"(?<![^\W_])[vV]?(\d+(?:\.\d+)+)(?![^\W_]|\.\d)")


def version_phrases(text: str) -> list[str]:
    """The phrases a version number in ``text`` is also searched as, with and without its ``v``
    (``"v0.14.6"`` → ``["0 14 6", "v0 14 6"]``), in order, each once. Both engines split
    ``v0.14.6`` at its dots (unicode61; Postgres since v39, ``gb_fold``) into ``v0 14 6``, whose
    ``v0`` is not the ``0`` of ``0.14``: so ``0.14`` finds ``v0.14.6`` by the phrase ``v0 14``,
    and ``v0.14.6`` finds ``0.14.6``, the words next to each other ranking first."""
    out: list[str] = []
    for m in _VERSION.finditer(text):
        num = m.group(1).replace(".", " ")
        for v in (num, "v" + num):
            if v not in out:
                out.append(v)
    return out


def _is_stop(term: str) -> bool:
    """A quoted single word (no prefix star) that is a stop word."""
    return term.startswith('"') and term.endswith('"') and term[1:-1].casefold() in STOP_WORDS


def _terms(text: str, rx: re.Pattern = _WORD, stem: bool = True, pieces: bool = False) -> list[str]:
    """The FTS5 terms of the words of ``text`` outside quotes (:func:`fts_parts`): each quoted, a
    prefix with its ``*``, a word with Arabic vowel marks as typed or without them, CJK text as
    :func:`_cjk_terms`, a Russian word by its stem (not with ``stem=False``: a quoted word).
    ``pieces``: ``rx`` reads a word with its combining marks for SQLite, whose unicode61 splits it
    into pieces (:func:`fts_parts`): a prefix ending in a mark is its last piece whole."""
    out = []
    for w in rx.findall(text):
        prefix = w.endswith("*")
        w = w.rstrip("*")
        if not w:
            continue
        bare = w if w.isascii() else arabic_bare(w)
        star = "*" if prefix else ""
        if pieces and prefix and _THAI_RUN.fullmatch(w):
            # (SQLite, a Thai prefix written with a mark: the phrase of its Thai bigrams, marks kept,
            # which begin anywhere in a run, search_cjk; its unicode61 pieces start only after a mark)
            out.append(_thai_term(w))
            continue
        if pieces and prefix and unicodedata.category(w[-1])[0] == "M":
            prefix = False  # (SQLite: ``हि*`` is the piece ``ह`` whole, as unicode61 ends it at the sign)
        if bare != w and bare:  # (Arabic vowel marks are optional in writing: the word as typed or without them)
            out.append(f"({_quote(w)}{'*' if prefix else ''} OR {_quote(bare)}{star})")
            continue
        if not w.isascii() and _CJK_RUN.search(w):
            out += _cjk_terms(w, prefix)
            continue
        if stem and not prefix and not w.isascii() and w.casefold() not in STOP_WORDS:
            stem = russian.prefix(w)  # a Russian word: every form of it (``Москвы`` → ``"москв"*``)
            if stem:
                out.append(_quote(stem) + "*")
                continue
        out.append(_quote(w) + ("*" if prefix else ""))
    return out


#: the characters of CJK text (Han, kana, Hangul) that FTS5's unicode61 tokenizer reads as
#: letters (so does Postgres' parser): a run of them is one token there, so a word inside it was
#: never found. Such runs are indexed as overlapping character bigrams (:func:`cjk_bigrams`,
#: ``pages.search_cjk``) and queried as a phrase of bigrams (:func:`_cjk_terms`). Left out: the
#: kana middle dot ``・``, ``゠`` and the voicing marks ``゛゜`` and U+3099–309A (separators for
#: unicode61; NFKC composes the combining ones), and Thai (no CJK; unicode61 splits it at its vowel
#: marks), which keeps the substring fallback (:data:`_UNSPACED`) and is indexed beside it in
#: private-use letters, its marks kept (:func:`thai_tokens`, SQLite v77 / Postgres v85)
_CJK_CHARS = ("\u1100-\u11ff\u3005-\u3007\u3041-\u3096\u309d-\u309f\u30a1-\u30fa\u30fc-\u30ff\u3131-\u318e"
              "\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7a3\uf900-\ufaff\U00020000-\U0003134f")
#: characters not in :data:`_CJK_CHARS` whose NFKC form may be (Kangxi radicals, enclosed and
#: squared CJK ``㈱ ㌔``, half-width kana and Hangul)
_CJK_COMPAT = "\u2e80-\u2fdf\u3190-\u33ff\uff66-\uffdc"
_CJK_RUN = re.compile(f"[{_CJK_CHARS}]+")
#: one CJK character: a text has a run of :data:`_CJK_RUN` exactly when it has one of these, and
#: the search for one character skips ahead by its character set (3× faster than for the run)
_CJK_CHAR = re.compile(f"[{_CJK_CHARS}]")
_CJK_SPLIT = re.compile(f"([{_CJK_CHARS}]+)")
#: a mark holding CJK text (:func:`_whole_marks`)
_GLUED_MARK = re.compile(f"{HIT_ON}([^{HIT_ON}{HIT_OFF}]*[{_CJK_CHARS}][^{HIT_ON}{HIT_OFF}]*){HIT_OFF}")
#: the rest of a Latin prefix's word: letters and digits, not CJK text glued to it
_PREFIX_REST = rf"[^\W_{_CJK_CHARS}]*"


def _cjk_tokens(run: str) -> list[str]:
    """The index tokens of one CJK run (:func:`cjk_bigrams`): its overlapping bigrams, then its
    last character (``データ`` → ``デー ータ タ``; ``猫`` → ``猫``)."""
    return [run[i : i + 2] for i in range(len(run) - 1)] + [run[-1]]


def cjk_bigrams(*texts: str) -> str:
    """The ``pages.search_cjk`` text of ``texts``: for every CJK run (:data:`_CJK_RUN`) of each
    text's :func:`search_form` (NFKC: half-width ``ｶﾀｶﾅ`` and decomposed kana are indexed as
    their composed letters, as a query is read), its overlapping character bigrams and its last
    character, space-separated, in order, repeats kept (``データ同期処理`` → ``デー ータ タ同 同期
    期処 処理 理``): a word inside the run is the phrase of its bigrams (:func:`_cjk_terms`), and
    each character begins a token (a one-character query is a prefix). Two runs never make a
    bigram across what separates them, so no phrase matches across it. Then the Thai runs'
    tokens (:func:`thai_tokens`, SQLite v77 / Postgres v85). ``''`` for text without
    CJK or Thai (ASCII text costs one ``isascii``)."""
    out: list[str] = []
    for text in texts:
        if not text or text.isascii():
            continue
        if not _compat_free(text):
            text = search_form(text)
        m = _CJK_OR_THAI.search(text)
        if m is None:  # (most non-ASCII texts: accents, dashes, quotes)
            continue
        if _CJK_CHAR.search(text, m.start()):
            for run in _CJK_RUN.findall(text, m.start()):
                out += _cjk_tokens(run)
        if _THAI_CHAR.search(text, m.start()):
            out += thai_tokens(text[m.start():])
    return " ".join(out)


#: Thai letters and their combining marks (a run of them is written without spaces), as inclusive
#: code point ranges, and as the body of a regular-expression class (:data:`_THAI_CHARS`, as
#: :data:`_CJK_CHARS`): the one spelling of Thai's characters here
_THAI_RANGES = ((0x0E01, 0x0E3A), (0x0E40, 0x0E4E))
_THAI_CHARS = "".join(f"{chr(a)}-{chr(z)}" for a, z in _THAI_RANGES)
_THAI_RUN = re.compile(f"[{_THAI_CHARS}]+")
_THAI_CHAR = re.compile(f"[{_THAI_CHARS}]")
_CJK_OR_THAI = re.compile(f"[{_CJK_CHARS}{_THAI_CHARS}]")
#: each character of a Thai run (:data:`_THAI_RUN`: letters and combining marks, above and below
#: vowels, tone marks…) → the private-use character U+E0xx of its code point U+0Exx: unicode61 reads
#: private-use characters as letters (category Co), so a run is one token of letters and marks in
#: ``search_cjk`` (:func:`thai_tokens`; it splits Thai itself at its marks), while Postgres' parser
#: reads them as blanks: its ``search_tsv`` (which keeps the marks in Thai words and finds them)
#: gets nothing from them, no lexeme nor length
_THAI_PUA = str.maketrans({chr(c): chr(0xE000 + c - 0x0E00) for a, z in _THAI_RANGES for c in range(a, z + 1)})


def thai_tokens(text: str) -> list[str]:
    """The ``search_cjk`` tokens of the Thai runs of ``text`` (its :func:`search_form`): each run
    (:data:`_THAI_RUN`) in private-use letters, its marks too (:data:`_THAI_PUA`), cut as a CJK
    run is (:func:`_cjk_tokens`: overlapping bigrams, then the last character), so a Thai word
    beginning inside an unspaced run is found with its marks (SQLite v77: ``เรี*`` finds
    ``การเรียนรู้``, not ``เรือ``; unicode61 splits Thai at its vowel marks, ``การเร ยนร``, so the
    prefix was the piece ``เร`` whole, which ``เรือ``'s first piece is)."""
    return [t for run in _THAI_RUN.findall(text) for t in _cjk_tokens(run.translate(_THAI_PUA))]


def _thai_term(word: str) -> str:
    """The FTS5 term of a Thai query word with its marks (:func:`thai_tokens`): the phrase of
    its bigrams (a word of one character: that character as a prefix, as a CJK one), read in its
    :func:`search_form` as the index reads the text (NFKC: ``ำ`` is ``ํา``), in ``search_cjk``
    only (:data:`_THAI_FILTER`: ``{search_cjk} : "…"``)."""
    tokens = thai_tokens(search_form(word))
    if len(tokens) <= 1:
        return _THAI_FILTER + " : " + _quote(tokens[0] if tokens else word) + "*"
    return _THAI_FILTER + " : " + _quote(" ".join(tokens[:-1][:CJK_MAX_BIGRAMS]))


#: the column a Thai bigram is searched in (:func:`_thai_term`): its private-use letters are text
#: any other field may hold (Nerd Fonts' Pomicons at U+E000–E00A, Material Icons at U+E000–E04E),
#: which a Thai prefix must not find; a canvas card's are its ``words`` (:func:`_card_part`)
_THAI_FILTER = "{search_cjk}"


def _card_part(part: str) -> str:
    """An :func:`fts_parts` term as ``canvas_fts`` reads it: a page column filter dropped, a Thai
    bigram phrase's (:data:`_THAI_FILTER`) in the cards' ``words`` column, where their bigrams are."""
    if part.startswith(_THAI_FILTER + " : "):
        return "{words} : " + part[len(_THAI_FILTER) + 3:]
    return part.rsplit(" : ", 1)[-1]


def _page_part(card_part: str) -> str:
    """A :func:`_card_part` term as ``page_fts`` reads it (the pages' count of a card's term)."""
    return _THAI_FILTER + card_part[7:] if card_part.startswith("{words} : ") else card_part


def search_cjk(title: str, aliases: str, path: str, compiled_truth: str, timeline: str, words: str) -> str:
    """The ``search_cjk`` column of a page (body weight in the FTS index: :data:`WEIGHTS`): the
    CJK bigrams (:func:`cjk_bigrams`; Thai's too, :func:`thai_tokens`) of its title, aliases (``search_aliases``), the folders of
    its path, compiled truth, timeline and ``search_words`` (the frontmatter's values). A function
    of the stored columns alone, so a migration can compute it without a parse."""
    return cjk_bigrams(title, aliases, path.rpartition("/")[0], compiled_truth, timeline, words)


#: a CJK run of a query is searched by its first this many bigrams (its first 129 characters: a
#: phrase of them, or, :func:`cjk_loosened`, each apart; a quoted phrase of CJK runs likewise,
#: :func:`_cjk_phrase`): a pasted passage of 30,000 characters was one phrase of 29,999 bigrams,
#: which Postgres refused ("stack depth limit exceeded"), and SQLite took 20 CPU-s over 100,000
#: (docs/search.md, "CJK text"). A run of at most 129 characters is searched as before.
CJK_MAX_BIGRAMS = 128


def _cjk_terms(word: str, prefix: bool = False) -> list[str]:
    """The FTS5 terms of a query word holding CJK text: each CJK run a phrase of its bigrams
    (``同期`` → ``"同期"``, ``データ同期`` → ``"デー ータ タ同 同期"``: it matches inside
    ``データ同期処理``), a run of one character that character as a prefix (``"猫"*``: every
    token beginning with it, :func:`cjk_bigrams`), and the other runs of a word glued to CJK text
    as words (``重跑gen`` → ``"重跑"``, ``"gen"``; the last a prefix with ``prefix``, as indexed
    in ``search_words``)."""
    out = []
    pieces = [x for x in _CJK_SPLIT.split(word) if x]
    for i, x in enumerate(pieces):
        if _CJK_RUN.fullmatch(x):
            out.append(_quote(x) + "*" if len(x) == 1 else _quote(" ".join(_cjk_tokens(x[: CJK_MAX_BIGRAMS + 1])[:-1])))
        else:
            out.append(_quote(x) + ("*" if prefix and i == len(pieces) - 1 else ""))
    return out


def cjk_loosened(query: str) -> str | None:
    """``query`` with every CJK run of three characters or more outside quotes written as its
    bigrams apart (``对话太长时如何压缩`` → ``对话 话太 太长 …``), or ``None`` when it has none.
    :func:`search` and :func:`keyword_candidates` search it when the query as written finds
    nothing: a CJK question typed as one run (Chinese and Japanese are written without spaces) is
    the phrase of all its bigrams, which no page holds; apart, BM25 and the coordination factor put
    the pages holding more of its words first (trial37). A quoted phrase stays as asked."""
    if query.isascii() or not _CJK_CHAR.search(query):
        return None
    changed = False

    def loosen(text: str) -> str:
        nonlocal changed

        def run(m: re.Match) -> str:
            nonlocal changed
            x = m.group(0)
            if len(x) < 3:
                return x
            changed = True
            return " " + " ".join(x[i : i + 2] for i in range(min(len(x) - 1, CJK_MAX_BIGRAMS))) + " "
        return _CJK_RUN.sub(run, text)

    out, pos = [], 0
    for m in _PHRASE.finditer(query):
        out += [loosen(query[pos : m.start()]), m.group(0)]
        pos = m.end()
    out.append(loosen(query[pos:]))
    return "".join(out) if changed else None


def _glued_runs(word: str) -> list[str]:
    """``[word]``, or for a word mixing CJK and other letters its CJK and other runs."""
    if word.isascii() or not _CJK_RUN.search(word) or _CJK_RUN.fullmatch(word):
        return [word]
    return [x for x in _CJK_SPLIT.split(word) if x]


def _cjk_phrase(words: list[str]) -> str:
    """A quoted phrase of CJK runs (``"データ 同期"``) as one FTS5 phrase over their bigrams:
    every run but the last ends where the next begins, so it is all its tokens (its last
    character too: ``デー ータ タ``), the last its bigrams (a one-character last run: that
    character, which then must end a run)."""
    tokens = [t for w in words[:-1] for t in _cjk_tokens(w)]
    last = _cjk_tokens(words[-1])
    return _quote(" ".join((tokens + (last[:-1] if len(last) > 1 else last))[:CJK_MAX_BIGRAMS]))


#: a page's first H1 that differs from its title is a name of the page: search weighs it as an
#: alias (the alias field, name evidence, the exact-name bonus through ``pages.h1_key``); False:
#: the rule before (SQLite v51 / Postgres v53), the H1 a heading like the others
H1_NAMES = True


def h1_name(page) -> str:
    """The page's first H1 (``Page.first_h1``, white space runs one space) as a name search
    weighs as it weighs an alias: a Microsoft Learn page titled "Group Policy scope in Windows"
    whose text opens with "# Group Policy scope". ``''`` when there is none, when it is the title
    or an alias but for case and punctuation (:func:`~gbrain.page.slugs.title_key`), or a
    template's placeholder (``# {{title}}``). Not a link name: ``[[H1]]`` resolves as before."""
    from ..page.markdown import has_placeholder

    h1 = " ".join(page.first_h1.split()) if H1_NAMES else ""
    if not h1 or has_placeholder(h1):
        return ""
    k = title_key(h1)
    if not k or k == title_key(page.title) or any(title_key(a) == k for a in page.aliases):
        return ""
    return h1


def search_fields(page) -> dict[str, str]:
    """The derived ``pages`` columns the FTS index reads besides title, path and text:
    ``{search_body, search_timeline, search_aliases, search_headings, h1_key, search_words, search_cjk,
    search_fold_names}``
    (strings, one item per line / space). An H1 name (:func:`h1_name`) is the last line of
    ``search_aliases`` (not of ``search_headings``) and keyed in ``h1_key`` (``''``: none).

    ``page`` is a parsed :class:`~gbrain.page.markdown.Page`. Aliases: ``page.aliases``, the
    page model's one rule (:func:`~gbrain.page.markdown.aliases_from_frontmatter`), so the names
    search weighs are exactly the names that resolve links and commands. Extra words
    (:func:`search_words`): the non-CJK runs of CJK-glued tokens and the frontmatter's words.
    CJK bigrams (:func:`search_cjk`): a word inside a run of CJK text is found."""
    from ..page.markdown import notion_relation_spans  # (loaded already: ``page`` was parsed)

    aliases = "\n".join(page.aliases)
    h1 = h1_name(page)
    h1k = title_key(h1) if h1 else ""
    words = search_words(page.compiled_truth, page.timeline, page.frontmatter, (page.title, page.path))
    names = aliases + ("\n" if aliases else "") + h1 if h1 else aliases
    return {
        # the text indexed in place of the compiled truth / timeline, None where it is that text
        "search_body": search_text(page.compiled_truth, page.part_unread("compiled_truth"), notion_relation_spans(page.compiled_truth, page.path)),
        "search_timeline": search_text(page.timeline, page.part_unread("timeline")),
        # the frontmatter's aliases, then the first H1 when it names the page otherwise (h1_name)
        "search_aliases": names,
        # the heading that is the title is indexed as the title already (an H1 name stays a heading
        # too: out of the headings it lost their evidence, and a page its title names gained nothing);
        # each word with Arabic marks or tatweel bare, as the body's and the query's (bare_headings)
        "search_headings": bare_headings("\n".join(h for h in page.headings if h != page.title)),
        "h1_key": h1k,
        "search_words": words,
        "search_cjk": search_cjk(page.title, aliases, page.path, page.compiled_truth, page.timeline, words),
        # the title's and aliases' words in their search form where it differs (Łukasz → Lukasz): title weight
        "search_fold_names": fold_name_words(page.title, names),
    }


def bare_headings(text: str) -> str:
    """The ``search_headings`` column from a page's headings (``text``, one per line): each word
    written with Arabic vowel marks or tatweel (:data:`_ARABIC_MARK`) or ``أ إ آ`` written bare in
    place, its marks as spaces after it (:func:`_bare_in_place`: the same length and lines), as the
    body is indexed since SQLite v79 / Postgres v87 and the query's words are read
    (:func:`harakat_bare`, :func:`arabic_bare`). Since SQLite v83 / Postgres v91: a heading
    ``مـكـتـبـة`` kept its tatweel in the index, so the bare query (or one typed with tatweel, read
    bare) found it in the body only and the page lost its heading evidence (0.63 beside 1.25).
    ``text`` itself when it holds no such letter (one test for ASCII, one search)."""
    if not text or text.isascii() or _ARABIC_FOLDS.search(text) is None:
        return text
    return _bare_in_place(text)


def fold_name_words(title: str, aliases: str) -> str:
    """The ``search_fold_names`` column (SQLite v63 / Postgres v67; title weight in the FTS
    index, weight A on Postgres): the words of the title and of ``aliases`` (``search_aliases``:
    the aliases and an H1 name) whose :func:`search_form` differs, in that form, each once, space
    separated (``Łukasz Nowak`` → ``Lukasz``, ``Mærsk Mc-Kinney Møller`` → ``Maersk Moller``,
    ``ＧＰＴ４`` → ``GPT4``); ``''`` for names already in that form (nearly every page). unicode61
    folds no ``ł`` and ``search_form`` spells the query ``Łukasz`` as ``Lukasz``: before, a page
    named *Łukasz Nowak* held ``lukasz`` only among its body-weight ``search_words``, so `Łukasz`
    put *Lukasz Nowak* first (1.125 to 0.66). A function of the stored columns alone."""
    out: list[str] = []
    for text in (title, aliases):
        if text and not text.isascii():
            out += compat_words(text)
    return " ".join(dict.fromkeys(out))


#: a page's body as the index reads it (:func:`search_text`), its two parts joined by ``sep`` (SQL)
_INDEXED_TEXT = "coalesce(search_body, compiled_truth) || {sep} || coalesce(search_timeline, timeline)"
_PG_HEAD_TEXT = _INDEXED_TEXT.format(sep="E'\\n'")


def search_text(text: str, unread: list | None = None, extra: list | tuple = ()) -> str | None:
    """The text the FTS index reads in place of ``text`` (a page's compiled truth or timeline, a
    canvas card's text): ``text`` with what a reader does not read blanked, each character a
    space (:func:`gbrain.page.linkedit.address_spans`: a link's URL or relative path, an aliased
    wiki link's target, an attachment embed's file name, a URL's scheme; and, since SQLite v79 /
    Postgres v87, the HTML tags a rendered note does not show, :func:`tag_spans`: ``<span
    class="git-footer">``'s ``span`` and ``class`` found every obsidian-hub page; since SQLite v81 /
    Postgres v89 an HTML block read raw, ``raw_blocks``: ``<div>\\<b>x</b></div>``'s ``<b>`` too; an inline tag
    without attributes inside a word leaves the word whole, its blanks after it: ``<b>bold</b>text``
    → ``   boldtext    ``, :data:`_GLUE`), and each
    word written with Arabic vowel marks or tatweel (:data:`_ARABIC_MARK`) written bare, its marks
    moved after it as spaces (:func:`_bare_in_place`: ``كَتَبَ`` → ``كتب   ``), so the same length
    and the same lines; None when nothing changes (the index reads ``text`` itself:
    ``pages.search_body`` and ``search_timeline`` are NULL, ``page_fts``'s content view and
    Postgres' ``search_tsv`` take ``coalesce``). Search matches a link's label, not ``deals`` in
    ``(../deals/acme.md)``, and a bare phrase a text written with harakat, each word as often as
    written. ``unread``: the text's blocks the parser reads no link in, from the page's parse
    (:meth:`~gbrain.page.markdown.Page.part_unread`; None: parsed again where needed).
    ``extra``: more address spans (a Notion relation's paths,
    :func:`gbrain.page.markdown.notion_relation_spans`)."""
    spans = address_spans(text, unread)
    tags = tag_spans(text, raw_blocks=True)
    glue = _GLUE if tags and _GLUE not in text else " "
    if extra or tags:
        spans = sorted([*((a, z, " ") for a, z in (*spans, *extra)), *((a, z, glue if inline and _BARE_TAG.fullmatch(text, a, z) else " ") for a, z, inline in tags)])
    else:
        spans = [(a, z, " ") for a, z in spans]
    bare = not text.isascii() and _ARABIC_FOLDS.search(text) is not None
    if not spans:
        return _bare_in_place(text) if bare else None
    out, at = [], 0
    for a, z, fill in spans:
        if z <= at:  # (inside a span already blanked: a scheme in a link's URL)
            continue
        a = max(a, at)
        out.append(text[at:a])
        out.append(fill * (z - a))
        at = z
    out.append(text[at:])
    read = "".join(out)
    if glue != " " and glue in read:  # (an inline tag inside a word: the word whole, the blanks after it)
        read = _unglued(read)
    return _bare_in_place(read) if bare else read


#: an inline tag's blank while :func:`search_text` reads a text (a character no page text holds
#: when used: checked), and a word with such tags inside it (``<b>bold</b>text`` renders ``boldtext``,
#: ``H<sub>2</sub>O`` ``H2O``): only a tag without attributes (:data:`_BARE_TAG`) joins the text either
#: side of it; one with attributes is read as a break (``argentum<span class='flair'>Team``: a styled
#: badge, whose name obsidian-help's credits are searched by)
_GLUE = "\x00"
_BARE_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9]*>")
_GLUE_RUN = re.compile(_GLUE + "+")
_ATOM_ONE = re.compile(_WORD_ATOM)


def _glued_found(text: str) -> list[tuple[int, int]]:
    """The ``[start, end)`` spans of the glued words in ``text``: the matches of ``W(?:glue+W)+``
    (``W`` a run of :data:`_WORD_OR_MARK`, greedy, left to right), found from the glue runs
    instead of a regex tried at every character (``_GLUED``, until 2026-12-07): a
    match is a maximal chain of word runs (:data:`_WORD_OR_MARK`, each whole) joined by runs of
    glue. A glue run is a joint when a word character (or Arabic mark) is on both sides of it; a
    chain starts where the word run before its first joint starts and goes on while the word
    run after a joint ends where the next joint begins. obsidian-hub's 6,548 glued texts (14.3 M
    characters, 46,192 glue characters): the regex's character walk took ~1.3 CPU-s.
    ``tests/test_glued_words.py`` holds it to that plain definition."""
    runs = [m.span() for m in _GLUE_RUN.finditer(text)]
    out: list[tuple[int, int]] = []
    n, k, size = len(runs), 0, len(text)
    atom, word = _ATOM_ONE.match, _WORD_OR_MARK.match
    while k < n:
        g, h = runs[k]
        k += 1
        if g == 0 or h >= size or atom(text, g - 1) is None or atom(text, h) is None:
            continue
        start = _word_start(text, g)
        end = word(text, h).end()
        while k < n and runs[k][0] == end and runs[k][1] < size and atom(text, runs[k][1]) is not None:
            end = word(text, runs[k][1]).end()
            k += 1
        out.append((start, end))
    return out


def _word_start(text: str, at: int) -> int:
    """Where the run of word characters and Arabic marks (:data:`_WORD_OR_MARK`) ending at ``at``
    (exclusive) starts: read backwards in windows of growing size (a word is short)."""
    w = 32
    while True:
        lo = max(0, at - w)
        back = _WORD_OR_MARK.match(text[lo:at][::-1])
        n = back.end() if back else 0
        if n < at - lo or lo == 0:
            return at - n
        w *= 4


def _unglued(read: str) -> str:
    """What :func:`search_text` reads for a text with glue: each glued word
    (:func:`_glued_found`) with its glue taken out and as many spaces after it, every other glue
    character a space."""
    out: list[str] = []
    at = 0
    for a, z in _glued_found(read):
        w = read[a:z].replace(_GLUE, "")
        out.append(read[at:a])
        out.append(w)
        out.append(" " * (z - a - len(w)))
        at = z
    out.append(read[at:])
    return "".join(out).replace(_GLUE, " ")


def _bare_word(m: "re.Match[str]") -> str:
    w = m.group()
    b = arabic_bare(w)
    return b + " " * (len(w) - len(b))


def _bare_in_place(text: str) -> str:
    """``text`` with each word holding an Arabic vowel mark or tatweel (:data:`_ARABIC_MARK`; a
    run of :data:`_WORD_OR_MARK`) written bare, as many spaces after it as it had marks (same
    length, same lines: :func:`search_text`). unicode61 split such a word at its marks and
    Postgres' parser kept it whole with them, so neither met the bare query word."""
    return _WORD_OR_MARK.sub(lambda m: _bare_word(m) if _ARABIC_FOLDS.search(m.group()) else m.group(), text)


#: a hit mark (:func:`as_written`)
_HIT_SPLIT = re.compile(f"([{HIT_ON}{HIT_OFF}])")
#: an Arabic letter or mark (:func:`_with_snippets`: a marked text that may have been indexed bare)
_ARABIC_CHAR = re.compile("[\u0600-\u06ff]")


def as_written(marked: str, original: str) -> str:
    """``marked`` (the text the index read, :func:`search_text`'s, with hit marks) with its hits
    put on ``original`` (the text as written, of the same length: an address or tag blanked and a
    word written bare in place keep every position), each hit ending inside a word of ``original``
    (a word written with Arabic marks, found bare; or one with an inline tag inside it, read as one
    word, :func:`_glued_spans`) widened to the word's end: a snippet shows ``كَتَبَ الطَّالِبُ``,
    not ``كتب الطالب``, and all of ``مك<b>تبة</b>``. ``marked`` itself when the lengths differ."""
    if len(marked) - marked.count(HIT_ON) - marked.count(HIT_OFF) != len(original):
        return marked
    out: list[str] = []
    at = i = 0  # (characters of original written; position in the indexed text, marks not counted)
    glued: list[tuple[int, int]] | None = None
    for piece in _HIT_SPLIT.split(marked):
        if piece == HIT_ON or piece == HIT_OFF:
            if piece == HIT_OFF and 0 < at < len(original):
                end = at
                if _WORD_OR_MARK.fullmatch(original, at - 1, at + 1) is not None:
                    end = _WORD_OR_MARK.match(original, at).end()  # (the hit ends inside a word: to its end)
                if "<" in original:  # (a word with an inline tag inside it, read as one: to its end too)
                    if glued is None:
                        glued = _glued_spans(original)
                    k = bisect.bisect_right(glued, (end, 1 << 62)) - 1
                    if k >= 0 and glued[k][0] < end < glued[k][1]:
                        end = glued[k][1]
                out.append(original[at:end])
                at = end
            out.append(piece)
            continue
        i += len(piece)
        if i > at:
            out.append(original[at:i])
            at = i
    out.append(original[at:])
    return "".join(out)


def _glued_spans(text: str) -> list[tuple[int, int]]:
    """The ``[start, end)`` spans of the words of ``text`` :func:`search_text` reads whole across
    an inline tag without attributes inside them (``مك<b>تبة``, ``<b>bold</b>text``'s
    ``bold</b>text``: :func:`_glued_found`), sorted; the tags alone are looked at (an address span
    inside such a word, which the index blanks, is not). ``[]`` when there is none."""
    tags = tag_spans(text, raw_blocks=True)
    if not tags or _GLUE in text:
        return []
    parts: list[str] = []
    at = 0
    for a, z, inline in tags:
        parts.append(text[at:a])
        parts.append((_GLUE if inline and _BARE_TAG.fullmatch(text, a, z) else " ") * (z - a))
        at = z
    parts.append(text[at:])
    return _glued_found("".join(parts))


#: frontmatter keys whose values search reads elsewhere (the title and alias name fields)
FRONTMATTER_NAMED = frozenset({"title", "aliases", "alias"})
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ][0-9:.+\-Z]*)?")
_URL = re.compile(r"[a-z][a-z0-9+.\-]*://", re.I)


def search_words(compiled_truth: str, timeline: str, frontmatter: dict, names: tuple[str, ...] = ()) -> str:
    """The ``search_words`` column (body weight in the FTS index), space-separated, each word or
    value once, in order:

    * glued words: the non-CJK runs of a token that mixes CJK and other letters (``重跑gen-itgc后``
      → ``gen itgc``), which unicode61 cannot split;
    * the frontmatter's words: every string value (also inside lists and mappings: ``tags``,
      ``status``, ``author``…), so a note is found by what its properties say, as in Obsidian,
      which searches the whole file. Left out: ``title`` / ``aliases`` (indexed as names), dates
      (``2024-01-31``…) and URLs (their parts would match everywhere). ``frontmatter`` is the
      page's frontmatter as stored (the JSON view: dates are ISO strings already).

    * compatibility words (:func:`compat_words`): the NFKC words of the text, of every
      frontmatter string (title and aliases too) and of ``names`` (the page's title and path, as
      stored) that differ from the words as written (``ﬁnancial`` → ``financial``, ``ＧＰＴ４``
      → ``GPT4``), so a query in plain characters finds them (the page text itself is never
      changed). Nothing for text already in NFKC.

    A function of the stored columns alone, so a migration can recompute it without a parse."""
    words: list[str] = []
    compat: list[str] = []
    for text in (compiled_truth, timeline):
        if not text.isascii() and _UNSPACED.search(text):  # (no ASCII character is unspaced)
            for tok in _WORD.findall(text):
                if _UNSPACED.search(tok) and not _UNSPACED.fullmatch(tok):
                    words += [w for w in _UNSPACED.split(tok) if w]
        compat += compat_words(text, marks=False)  # (its words with Arabic marks are bare in search_text's text)
    for text in names:
        compat += compat_words(text or "")
    values: list[str] = []

    def walk(v, named: bool = False) -> None:
        if isinstance(v, str):
            if not v.isascii():
                compat.extend(compat_words(v))
            if named:
                return
            v = " ".join(v.split())
            if v and not _ISO_DATE.fullmatch(v) and not _URL.match(v):
                values.append(v)
        elif isinstance(v, list):
            for x in v:
                walk(x, named)
        elif isinstance(v, dict):
            for x in v.values():
                walk(x, named)

    if isinstance(frontmatter, dict):
        for k, v in frontmatter.items():
            walk(v, isinstance(k, str) and k.casefold() in FRONTMATTER_NAMED)
    return " ".join(dict.fromkeys(words + values + compat))


#: the characters FTS5's unicode61 tokenizer (``remove_diacritics``, ``page_fts``) folds to another letter and
#: the letter, by Unicode block (``tests/test_search_fold.py`` derives them from SQLite itself):
#: a Latin letter with one diacritic to its base letter, and a few case forms. ``ł``, ``ø``, ``ß``,
#: ``æ``, ``đ`` are letters of their own there (no decomposition), as is a letter with two
#: diacritics (``ệ``: unicode61's ``remove_diacritics=1``). Postgres' ``gb_fold`` (schema v39)
#: holds the same pairs: :func:`fold_accents`. No Cyrillic or Greek accent is here: ``ё`` and
#: ``ά`` are folded by :func:`search_form` and :func:`compat_words` on both engines (``SCRIPT_FOLD``)
FOLD_BLOCKS = (
    ("µÀÁÂÃÄÅÇÈÉÊËÌÍÎÏÑÒÓÔÕÖÙÚÛÜÝàáâãäåçèéêëìíîïñòóôõöùúûüýÿ",
     "μaaaaaaceeeeiiiinooooouuuuyaaaaaaceeeeiiiinooooouuuuyy"),  # Latin-1
    ("ĀāĂăĄąĆćĈĉĊċČčĎďĒēĔĕĖėĘęĚěĜĝĞğĠġĢģĤĥĨĩĪīĬĭĮįİĴĵĶķĹĺĻļĽľŃńŅņŇňŌōŎŏŐőŔŕŖŗŘřŚśŜŝŞşŠšŢţŤťŨũŪūŬŭŮůŰűŲųŴŵŶŷŸŹźŻżŽžſƠơƯưǍǎǏǐǑǒǓǔǦǧǨǩǪǫǰǴǵǸǹȀȁȂȃȄȅȆȇȈȉȊȋȌȍȎȏȐȑȒȓȔȕȖȗȘșȚțȞȟȦȧȨȩȮȯȲȳ",
     "aaaaaaccccccccddeeeeeeeeeegggggggghhiiiiiiiiijjkkllllllnnnnnnoooooorrrrrrssssssssttttuuuuuuuuuuuuwwyyyzzzzzzsoouuaaiioouuggkkoojggnnaaaaeeeeiiiioooorrrruuuusstthhaaeeooyy"),  # Latin Extended-A and -B
    ("ςϐϑϕϖϰϱϵιÅ",
     "σβθφπκρειa"),  # Greek case forms, ι, Å
    ("ḀḁḂḃḄḅḆḇḊḋḌḍḎḏḐḑḒḓḘḙḚḛḞḟḠḡḢḣḤḥḦḧḨḩḪḫḬḭḰḱḲḳḴḵḶḷḺḻḼḽḾḿṀṁṂṃṄṅṆṇṈṉṊṋṔṕṖṗṘṙṚṛṞṟṠṡṢṣṪṫṬṭṮṯṰṱṲṳṴṵṶṷṼṽṾṿẀẁẂẃẄẅẆẇẈẉẊẋẌẍẎẏẐẑẒẓẔẕẖẗẘẙẛẠạẢảẸẹẺẻẼẽỈỉỊịỌọỎỏỤụỦủỲỳỴỵỶỷỸỹ",
     "aabbbbbbddddddddddeeeeffgghhhhhhhhhhiikkkkkkllllllmmmmmmnnnnnnnnpppprrrrrrssssttttttttuuuuuuvvvvwwwwwwwwwwxxxxyyzzzzzzhtwysaaaaeeeeeeiiiioooouuuuyyyyyyyy"),  # Latin Extended Additional
)
_FOLD_TABLE = str.maketrans("".join(f for f, _ in FOLD_BLOCKS), "".join(t for _, t in FOLD_BLOCKS))
#: a character of :data:`FOLD_BLOCKS` (:func:`fold_accents` substitutes those found: a regex scans
#: a long Cyrillic or Greek text in C, where ``str.translate`` looks each character up)
_FOLD_CHAR = re.compile("[" + "".join(f for f, _ in FOLD_BLOCKS) + "]")
_FOLD_MAP = {f: t for fs, ts in FOLD_BLOCKS for f, t in zip(fs, ts)}


def _folded_char(m: "re.Match[str]") -> str:
    return _FOLD_MAP[m.group()]


#: a character :func:`fold_accents` changes, or a combining mark (a decomposed accent: NFKC composes it)
_FOLDABLE = re.compile("[" + "".join(f for f, _ in FOLD_BLOCKS) + "\u0300-\u036f]")


def fold_accents(text: str) -> str:
    """``text`` with the characters unicode61 folds (:data:`FOLD_BLOCKS`) replaced by their letter
    (``Björn`` → ``Bjorn``, ``Łódź`` → ``Łodz``); other characters, case included, as they are.
    The same map as Postgres' ``gb_fold`` (which also makes ASCII punctuation a space)."""
    if text.isascii() or not _FOLD_CHAR.search(text):
        return text
    return _FOLD_CHAR.sub(_folded_char, text)


@functools.lru_cache(maxsize=4096)
def _fold(word: str) -> str:
    """``word`` as names are compared but without stemming: NFKC, casefolded, accents dropped
    as the exact-name keys drop them (:func:`~gbrain.page.slugs.drop_accents`: a Latin or Greek
    letter's marks, a Cyrillic stress mark and ``ё``; not Japanese voicing, ``ガ`` is no ``カ``, nor ``й``)."""
    word = search_form(word).casefold()
    if word.isascii():
        return word
    return drop_accents(word)


def name_words(name: str) -> set[str]:
    """The words of a name (a title, an alias, a path) as :func:`names_word` compares them:
    :func:`_fold` of each word of its :func:`search_form` (``nfc-nfd/Café.md`` →
    ``{"nfc", "nfd", "cafe", "md"}``)."""
    if not name:
        return set()
    if name.isascii():  # its own NFKC form, folded whole (lower case keeps the word boundaries)
        return set(_PLAIN_WORD.findall(name.lower()))
    return {_fold(w) for w in _PLAIN_WORD.findall(search_form(name))}


def names_word(word: str, words: set[str], prefix: bool = False) -> bool:
    """Whether a query ``word`` names one of a name's ``words`` (:func:`name_words`) as written:
    the same word folded (case, accents, NFKC), or the same but for a plural ``s``/``es`` on
    either side (``theme`` names ``Themes``). A shared porter stem alone is not naming:
    ``atomically`` does not name ``Atom`` (a user trial; the stem match still counts as BM25
    text evidence). A ``prefix`` word (``atom*``) names every word it begins."""
    w = _fold(word)
    if w in words or (prefix and any(v.startswith(w) for v in words)):
        return True
    # (a shared first letter is the least a common prefix of any positive share needs)
    if STEM_LENGTH_RATIO and any(v[:1] == w[:1] and len(os.path.commonprefix([v, w])) >= STEM_LENGTH_RATIO * max(len(v), len(w)) for v in words):
        return True
    return any(v in words for v in (w + "s", w + "es")) or (
        len(w) > 3 and w.endswith("s") and (w[:-1] in words or (w.endswith("es") and w[:-2] in words)))


def query_words(query: str, rx: re.Pattern = _WORD) -> list[str]:
    """The distinct casefolded words of ``query`` that carry meaning: its words minus
    :data:`STOP_WORDS` (all of them when every word is a stop word), at most :data:`NAME_WORDS`.
    A word glued to CJK text gives its CJK and other runs (``重跑gen`` → ``重跑``, ``gen``), as
    :func:`fts_parts` reads it."""
    words = list(dict.fromkeys(x.casefold() for w in rx.findall((query or "").replace('"', " ")) if w.rstrip("*")
                               for x in _glued_runs(w.rstrip("*"))))
    return ([w for w in words if w not in STOP_WORDS] or words)[:NAME_WORDS]


def _meaning_words(query: str) -> str:
    """:func:`query_words` of ``query``, space separated, a prefix the query writes (``ёж*``)
    with its ``*`` (so :func:`_mark_words` marks the words it matched, to their end)."""
    prefixes = {w.rstrip("*").casefold() for w in _WORD.findall((query or "").replace('"', " ")) if w.endswith("*")}
    return " ".join(w + "*" if w in prefixes else w for w in query_words(query))


def rank(conn: sqlite3.Connection, query: str, *, type: str | None = None, limit: int = 20, weights: tuple[float, ...] | None = None,
         coordinate: bool = True, tag: str | None = None, prefix: str | None = None, facts: dict | None = None, since: str | None = None) -> list[dict]:
    """Known-item ranking of pages for ``query`` (module docstring).

    Returns ``[{id, score, bm25, signals}]``, best first, at most ``limit``: ``score`` the
    re-scored value (higher is better; its BM25 part is coordinated: ``cbm25``, "Coordination"
    in the module docstring), ``bm25`` FTS5's ``-bm25`` with :data:`WEIGHTS` (a name field holding
    the query's words only by their porter stem weighted 0: :func:`names_word`), before the
    coordination factor (0 for a page found only by its exact name), ``signals`` the fields that matched, from ``title``,
    ``alias``, ``path``, ``headings``, ``body``. ``[]`` when the query has no indexable word.
    ``query`` is ranked in its :func:`search_form` (NFKC); an exact name is looked up both as
    given (NFC) and in that form. ``coordinate=False`` leaves the coordination factor out (plain
    BM25: the keyword side of hybrid ``query``, whose fusion was tuned on it; both engines).
    ``type``, ``tag``, ``prefix``: only pages of that type, with that tag (nested ones too) and
    under that folder (:class:`~gbrain.storage.filters.PageFilter`, as ``list`` and lint select
    them), applied inside the ranking, before the limit: every candidate list holds only such
    pages, so the best ``limit`` of them come back whatever outranks them outside the filter.
    ``facts``: a dict given ``"canvas"``, whether any canvas card is stored, when the ranking read
    it with its statistics (no statement of its own: :func:`canvas_hits`'s ``present``).
    """
    out, body = _rank(conn, query, only=PageFilter(type, tag, prefix, since), limit=limit, weights=weights, coordinate=coordinate, facts=facts,
                      rerank=max(int(limit), RERANK))
    if body is not None:
        _with_body_signal(conn, out, body)
    return out


def _rank(conn: sqlite3.Connection, query: str, *, only: PageFilter, limit: int, weights: tuple[float, ...] | None,
          coordinate: bool, facts: dict | None = None, rerank: int = RERANK) -> tuple[list[dict], tuple[str, int, int] | None]:
    """:func:`rank`'s hits and, on SQLite, ``(body_q, scan, terms)`` for their body signal, not
    yet in their ``signals`` (sets): the FTS5 query of the body fields (:func:`_body_only`), the
    pages its terms match, summed (a pass over its matches reads about that many entries), and
    its terms (:func:`_body_rows`); ``None`` on Postgres, whose hits are complete (signals
    sorted lists).

    ``rerank``: the BM25 candidates re-scored (known-item evidence), whatever ``limit``; the hits
    past them follow in BM25 order (:func:`_past_rescored`), so every ranking is the start of
    every deeper one and pages cut from rankings of different limits never repeat or skip a hit
    (tests/test_ranked_paging.py). A re-scored depth that followed the limit let ``limit 150``
    lift a page named by the query from the 130th candidate into the top 30."""
    # the query's compatibility form (search_form): ``ＧＰＴ`` ranks as ``GPT``; an exact name is
    # looked up in both forms (a title written ``ＧＰＴ４`` is still named by ``ＧＰＴ４``). Its
    # NFKC form is a spelling as typed; the letters search_form spells in ASCII (``Łukasz`` →
    # ``Lukasz``) are a fold, as accents are: the page *Lukasz Nowak* is named by "Łukasz Nowak"
    # but for a letter (PLURAL_EXACT_SHARE), as *Łukasz Nowak* is by "Lukasz Nowak"
    # A query dj_spelled rewrote (``Djordje`` → ``Djordje Đorđe``) names pages as typed, and in
    # its other spelling but for a letter (DJ_TYPED); it is searched as rewritten
    as_typed, respelled = (facts or {}).get((DJ_TYPED, query)) or (query, None)
    names = [unicodedata.normalize("NFC", as_typed or "")]
    nfkc = unicodedata.normalize("NFKC", names[0])
    if nfkc != names[0]:
        names.append(nfkc)
    typed = len(names)  # (the spellings as typed; then the folded one and those but for a plural s/es)
    typed_words = _typed_words(names)
    nfkc = unicodedata.normalize("NFKC", unicodedata.normalize("NFC", query or ""))
    for other in (search_form(as_typed), *((respelled, search_form(respelled)) if respelled else ())):
        if other not in names:
            names.append(other)
    query = search_form(query)
    names += [v for n in list(names) for v in plural_names(n) if v not in names]
    q = fts_query(query or "", nfkc)
    if not q or limit <= 0:
        return [], None
    nfkc = phrase_spellings(conn, query, nfkc, facts)  # (a phrase in every spelling the index holds; once a search: facts)
    q = fts_query(query or "", nfkc)
    if is_postgres(conn):
        return _rank_pg(conn, query, only=only, limit=limit, names=names, typed=typed, coordinate=coordinate, facts=facts,
                        typed_words=typed_words, spelled=nfkc, rerank=rerank), None
    w = ", ".join(str(x) for x in (weights or WEIGHTS))
    depth = max(int(limit), RERANK)
    parts = fts_parts(query or "", nfkc)
    counts: dict[str, int] = {}
    words = query_words(query)
    n_pages = _fts_rows(conn, facts)
    # each word's pages (its IDF); words in no page are no evidence for or against any page
    word_idf: dict[str, float] = {}
    # (a word the query writes as a prefix, ``invadop*``, counts and names the pages of its words)
    prefixes = {p[1:-2].replace('""', '"').casefold() for p in parts if p.endswith('"*')}
    # (a Russian word the query searched by its stem's prefix, ``коты`` → ``"кот"*``, :func:`_terms`:
    # counted, coordinated and looked up in the names by that term, as BM25 matched it; a name holding
    # only another word the stem begins, *Котёнок*, is no naming: :func:`names_word`)
    term = _stem_terms(words, prefixes)
    for word in words:
        df = _match_count(conn, term(word), counts)
        if df:
            word_idf[word] = math.log(1 + (n_pages - df + 0.5) / (df + 0.5))
    total = sum(word_idf.values())
    cover: dict[int, float] = {}
    ranked, bounded = _bm25_top(conn, q, parts, w, only, depth, counts, n_pages, [term(x) for x in word_idf], cover=cover if coordinate else None)
    if bounded and facts is not None:  # (a window of the matches ranked, not every one: search says so at its end)
        facts[BOUNDED] = True
    bm = dict(ranked)
    # the BM25 part, coordinated: times the page's share of the query's terms (_bm25_top ranks by it)
    cbm = {pid: v * _coord(cover[pid]) if pid in cover else v for pid, v in ranked}
    exact, near = _exact_names(conn, names, only, typed)
    # the re-scored candidates: the best ``rerank`` by BM25, then the pages named exactly, as a
    # ranking ``rerank`` deep reads them (an exact name past the depth: BM25 0); the others follow
    rescored = [pid for pid, _ in ranked[: max(int(rerank), 0)]]
    first = set(rescored)
    for pid in exact:
        if pid not in first:
            rescored.append(pid)
            bm[pid] = cbm[pid] = 0.0
    if not bm:
        return [], None
    exact_w = _exact_weights(exact, near)
    ids = list(bm)
    signals: dict[int, set[str]] = {pid: set() for pid in ids}
    name = {pid: 0.0 for pid in ids}
    head = {pid: 0.0 for pid in ids}
    matched: dict[str, set[int]] = {}
    # which name fields of the candidates hold each word: a weight-1-on-one-column bm25 is
    # above 0 exactly when that column has the word (one pass over the word's pages; one column
    # filter per column would take one pass per column). The pass is filtered to the name
    # columns, so FTS5 hands SQLite only the pages named by the word (a common word is in most
    # pages' bodies: a 50K brain's name-evidence passes took 45% less CPU)
    cols = ", ".join("bm25(page_fts, " + ", ".join("1" if j == i else "0" for j in range(len(COLUMNS))) + ")" for i in _NAME_INDEX)
    ids_json = json.dumps(ids)
    # the candidates' names: the words of their title, aliases and path (a name word must be the
    # query word as written, not one sharing its porter stem: names_word), and the precision of
    # the name: how much of the page's shortest name (title or alias) the matched words make
    # up, so a long title sharing a few words with a long question counts little
    name_len: dict[int, int] = {}
    texts: dict[int, tuple[str, str, str, str, str]] = {}
    name_rows = []
    for r in conn.execute(f"SELECT id, title, search_aliases, path, search_headings, search_fold_names FROM pages WHERE id IN ({','.join(map(str, ids))})"):
        texts[r[0]] = (r[1], r[2] or "", r[3], r[4] or "", r[5] or "")
        name_rows.append(tuple(r))
    written: dict[tuple[int, str], set[str]] = {}

    def written_of(pid: int, sig: str) -> set[str]:
        # the words of one name field as written (:func:`name_words`), for the pages the passes
        # below find only (most candidates hold no query word in a name)
        key = (pid, sig)
        if key not in written:
            written[key] = name_words(texts[pid][_NAME_SIGNALS.index(sig)])
        return written[key]

    # (the pages whose path holds a word: FTS5's path column, porter stems as BM25 reads it)
    folder_name = _folder_names(lambda word: _match_count(conn, "{path} : " + _quote(word), counts))

    def folder_only(pid: int, word: str) -> bool:
        return folder_name(texts[pid][2], word, word in prefixes)

    stem_only: dict[int, set[str]] = {}
    as_written: dict[int, set[str]] = {}
    index = _names_index(name_rows) if word_idf and len(name_rows) == len(ids) else None
    passed: set[tuple[str, int, str]] = set()  # (word, page, name field) the pass below found
    titled: dict[int, set[str]] = {}  # page → the query words its title or an alias holds as written (or folded)
    for word, idf in word_idf.items():
        named: set[int] = set()
        matched[word] = named
        if index is not None:
            hits = index.execute(f"SELECT rowid, {_NAMES_COLS} FROM names WHERE names MATCH ?", [term(word)])
        else:
            sql = f"SELECT rowid, {cols} FROM page_fts WHERE page_fts MATCH ? AND +rowid IN (SELECT value FROM json_each(?))"
            hits = conn.execute(sql, [_NAME_FILTER + " : " + term(word), ids_json])
        for r in hits:
            pid = int(r[0])
            for (_col, sig), v in zip(_NAME_COLUMNS, r[1:]):
                if v:
                    # (the names' folded words: the title's or an alias's, whichever holds the word)
                    shown = sig if sig != "folds" else "title" if pid not in texts or names_word(word, written_of(pid, "title"), word in prefixes) else "alias"
                    signals[pid].add(shown)
                    passed.add((word, pid, sig))
                    if NAME_AS_WRITTEN and pid in texts and not names_word(word, written_of(pid, sig), word in prefixes):
                        stem_only.setdefault(pid, set()).add(sig)
                        continue
                    as_written.setdefault(pid, set()).add(sig)
                    if sig == "headings":
                        head[pid] += idf
                        continue
                    if sig != "path":  # (the names _typed_words_first compares: a title, an alias)
                        titled.setdefault(pid, set()).add(word)
                    if pid not in named and not (sig == "path" and pid in texts and folder_only(pid, word)):
                        named.add(pid)
                        name[pid] += idf
    # a name field (title, alias, path, headings) that holds query words only by their porter
    # stem (``Atom`` for ``atomically``) is no evidence of its own: the page's BM25 is re-scored
    # with that field's weight 0, so only its body's matches (stem ones too) count; scores only
    # fall, so the candidates found stay the best ones
    reweigh: dict[tuple[float, ...], list[int]] = {}
    for pid, sigs in stem_only.items() if STEM_FIELDS_UNWEIGHTED else ():
        sigs = sigs - as_written.get(pid, set())
        if sigs:
            ww = list(weights or WEIGHTS)
            for i, (_col, sig) in zip(_NAME_INDEX, _NAME_COLUMNS):
                if sig in sigs:
                    ww[i] = 0.0
            reweigh.setdefault(tuple(ww), []).append(pid)
    for ww, pids in reweigh.items():
        sql = (f"SELECT rowid, -bm25(page_fts, {', '.join(str(x) for x in ww)}) FROM page_fts "
               "WHERE page_fts MATCH ? AND +rowid IN (SELECT value FROM json_each(?))")
        for pid, v in conn.execute(sql, [q, json.dumps(pids)]):
            if pid in bm and bm[pid]:
                cbm[pid] = cbm[pid] * v / bm[pid]
                bm[pid] = v
    # a CJK word inside a name (``同期`` in the title ``同期設定``): unicode61 keeps the name's run as
    # one token, so the pass above finds it only where it is the whole run; it names the page as a
    # Latin word does when the name's text holds it (NFKC, casefolded), and weighs its characters
    # by two (a bigram: about a word) in the name's precision (_cjk_precision)
    cjk_named: set[int] = set()
    cjk = [w for w in words if _CJK_RUN.fullmatch(w)] if CJK_NAMES else []
    for word in cjk:
        idf = word_idf.get(word)
        if idf is None:  # a run of three or more characters: its pages are those of its bigram phrase
            df = _match_count(conn, _cjk_terms(word)[0], counts)
            if not df:
                continue
            idf = word_idf[word] = math.log(1 + (n_pages - df + 0.5) / (df + 0.5))
            total += idf
        named = matched.setdefault(word, set())
        w = search_form(word).casefold()
        for pid in ids:
            if pid in named or pid not in texts:
                continue
            for i, sig in enumerate(_NAME_SIGNALS):
                if (word, pid, sig) in passed or sig == "folds":  # found (and weighed) by the pass above
                    continue
                field = texts[pid][i]
                if sig == "path":
                    field = field.rpartition("/")[2]  # the file name: a folder is no name of the page
                if not field or field.isascii() or w not in search_form(field).casefold():
                    continue
                signals[pid].add(sig)
                if sig in ("title", "alias"):
                    titled.setdefault(pid, set()).add(word)
                if sig == "headings":
                    head[pid] += idf
                elif pid not in named:
                    named.add(pid)
                    name[pid] += idf
                    cjk_named.add(pid)
    hits_in_name = {pid: sum(1 for w in words if pid in matched.get(w, ())) for pid in ids}
    for pid, n in hits_in_name.items():
        if n and pid in texts:  # (a page no word names has no name evidence to weigh)
            name_len[pid] = _name_len(texts[pid][0], texts[pid][1], list(word_idf), prefixes)
    top = max(cbm[pid] for pid in rescored) or 1.0
    n_typed = typed_word_count(query)  # (the query's words, stop words too: _contained_name)
    out = []
    for pid in ids:
        ex = pid in exact
        if ex:
            signals[pid].add(exact[pid])
        if pid in cjk_named:
            precision = _cjk_precision(texts[pid][0], texts[pid][1], [w for w in words if pid in matched.get(w, ())])
        else:
            precision = _precision(hits_in_name[pid], name_len.get(pid, 1))
        score = cbm[pid] / top + (NAME_WEIGHT * precision * name[pid] / max(total, NAME_REF_IDF) + HEADING_WEIGHT * head[pid] / total if total else 0.0) + exact_w.get(pid, 0.0)
        whole = precision >= 1.0 and n_typed <= CONTAINED_MAX_WORDS and pid in texts and _name_held_whole(texts[pid][0], texts[pid][1], list(word_idf), prefixes)
        score += _contained_name(whole, name[pid], total, ex, n_typed)
        out.append({"id": pid, "score": score, "bm25": bm[pid], "signals": signals[pid], "top": top})
    out, rest = _rescored_split(out, rescored)
    ids = list(rescored)
    if coordinate:  # (search; hybrid query's keyword side stays plain BM25: its fusion was tuned on it)
        _phrase_evidence(conn, query, out, word_idf, typed=names[typed - 1])
        ids += anchor_evidence(conn, out, word_idf, only)
    _typed_words_first(out, {pid: frozenset(ws) for pid, ws in titled.items()}, {pid: t[:2] for pid, t in texts.items()}, typed_words, exact_w, near)
    _typed_names_first(out, exact, near)
    if coordinate:
        _exact_names_above(out, exact, near)
    _best_first(conn, out, ids)
    return _past_rescored(out, rest, int(limit)), (_body_only(q), sum(_match_count(conn, p, counts) for p in parts), len(parts))


#: :func:`_rank`'s ``facts`` key: True when the ranking read a window of the matching pages, not
#: every one (a word in more pages than :data:`RANK_BOUND` / :data:`PG_RANK_BOUND`), so a ranking
#: shorter than asked is no sign of the last match (:func:`search` says so)
BOUNDED = "bounded"


def _rescored_split(out: list[dict], rescored: list[int]) -> tuple[list[dict], list[dict]]:
    """``out`` (scored hits in candidate order, BM25 best first) as ``(the re-scored ones in
    the order of rescored, the others in candidate order)``: :func:`_rank`'s and
    :func:`_rank_pg`'s head and tail."""
    by = {h["id"]: h for h in out}
    first = set(rescored)
    return [by[pid] for pid in rescored if pid in by], [h for h in out if h["id"] not in first]


def _past_rescored(out: list[dict], rest: list[dict], limit: int) -> list[dict]:
    """The ranking ``limit`` long: the re-scored hits ``out`` (best first), then the candidates
    past the re-scored depth ``rest`` in BM25 order (those the head holds already, an anchor's
    page, left out), each scored at most as the hit before it: the list stays best first by
    score (the canvases merge into it by score) and a deeper list only adds hits at its end."""
    out = out[:limit]
    if len(out) < limit and rest:
        shown = {h["id"] for h in out}
        floor = out[-1]["score"] if out else math.inf
        for h in rest:
            if len(out) >= limit:
                break
            if h["id"] in shown:
                continue
            h["score"] = floor = min(h["score"], floor)
            out.append(h)
    return out


#: phrase evidence (module docstring, "Phrases"; docs/search.md, step 4): the weight of the share of the query's word
#: pairs a page holds next to each other, in order (0: off, the ranking before 2026-12-03)
PHRASE_WEIGHT = 1.5
#: the share is taken to this power: most of a sentence in order counts nearly whole, a few
#: common pairs (``the changes``, ``changes that``) little
PHRASE_POWER = 2.0
#: the best candidates (by the score before it) whose text is read for phrase evidence
PHRASE_DEPTH = 30
#: a query needs at least this many word pairs (:func:`phrase_pairs`) for phrase evidence
PHRASE_MIN_PAIRS = 2
#: a hit holding at least this share of the query's pairs says ``phrase`` in its ``signals``
PHRASE_SIGNAL = 0.5
#: what may stand between two words of a phrase in a page's markdown: characters that are no
#: word (white space, punctuation, emphasis, ``_``), a markdown link's ``](target)`` and a wiki
#: link's ``[[target|`` (a passage copied from the rendered page shows neither); possessive
#: (``++``: never given back), so text such as ``](/)](/)…`` cannot make the scan backtrack
_PHRASE_GAP = r"(?:\]\([^()\n]*\)|\[\[[^\]|\n]*\||[\W_])++"


#: phrase evidence reads at most a query's first this many pairs (each pair's expression is compiled
#: once per search and scanned over each of :data:`PHRASE_DEPTH` pages: 12,000 CJK characters, as
#: many pairs, took 74 CPU-s; review of trial 66); :func:`_pair_regex`'s cache holds them all
PHRASE_MAX_PAIRS = 128


def phrase_pairs(query: str) -> list[tuple[str, str]]:
    """The word pairs of ``query`` that phrase evidence looks for: each two words next to each
    other in the query (its :func:`search_form`, casefolded; quotes dropped), in order, each pair
    once, the first :data:`PHRASE_MAX_PAIRS`; a pair of two :data:`STOP_WORDS` (``of the``) and a pair with a prefix word (``wor*``)
    left out. ``"lists the LDF files"`` → ``[("lists", "the"), ("the", "ldf"), ("ldf", "files")]``."""
    words = _WORD.findall(search_form(query or "").replace('"', " ").casefold())
    out: dict[tuple[str, str], None] = {}
    for a, b in zip(words, words[1:]):
        if a.endswith("*") or b.endswith("*") or (a in STOP_WORDS and b in STOP_WORDS):
            continue
        out[(a, b)] = None
        if len(out) == PHRASE_MAX_PAIRS:
            break
    return list(out)


#: phrase evidence takes a word with a plural ``s``/``es`` more or less, as :func:`names_word`
#: names a title (trial 30: ``game engine comparison`` did not find the phrase in the title
#: *Open Source Game Engines Comparison*; False: the words as written only, the rule before)
PHRASE_PLURALS = True


#: a query that is a page's whole name but for a plural ``s``/``es`` on its last word names the
#: page (the exact-name bonus; trial 30: ``diffusion model`` and the note *Diffusion Models*)
EXACT_PLURALS = True
_LAST_WORD = re.compile(r"([A-Za-z]+)\s*$")


def plural_names(name: str) -> list[str]:
    """The spellings of ``name`` whose last word (ASCII letters, 3 or more, no stop word) takes
    or loses a plural ``s``/``es`` as :func:`names_word` allows: ``diffusion model`` →
    ``diffusion models``, ``diffusion modeles``; ``Boxes`` → ``Boxeses``, ``Boxe``, ``Box``
    (a spelling no page has finds nothing). ``[]`` for any other name."""
    m = _LAST_WORD.search(name or "") if EXACT_PLURALS else None
    if not m or len(m.group(1)) < 3 or m.group(1).casefold() in STOP_WORDS:
        return []
    head, w = name[: m.start(1)], m.group(1)
    out = [head + w + "s", head + w + "es"]
    if len(w) > 3 and w[-1] in "sS":
        out.append(head + w[:-1])
        if w[-2] in "eE":
            out.append(head + w[:-2])
    return out


def _plural_forms(w: str) -> str:
    """A regular expression of the casefolded word ``w`` in its :func:`names_word` spellings:
    ``w``, ``w`` + ``s``/``es``, and ``w`` without its ``s``/``es`` (a word of more than 3
    letters). Its literal common prefix comes first, so the scan still starts from a literal.
    Words of fewer than 3 characters and stop words stay as written (``is``, ``as``, ``the``)."""
    if not PHRASE_PLURALS or len(w) < 3 or w in STOP_WORDS or not w.isalpha():
        return re.escape(w)
    forms = {w, w + "s", w + "es"}
    if len(w) > 3 and w.endswith("s"):
        forms.add(w[:-1])
        if w.endswith("es"):
            forms.add(w[:-2])
    stem = os.path.commonprefix(sorted(forms))
    tails = sorted((f[len(stem):] for f in forms), key=lambda t: (-len(t), t))
    return re.escape(stem) + "(?:" + "|".join(re.escape(t) for t in tails) + ")"


@functools.lru_cache(maxsize=256)
def _pair_regex(a: str, b: str) -> re.Pattern:
    """``a`` then ``b`` (each in its :func:`_plural_forms`) with only :data:`_PHRASE_GAP` between
    them, ``b`` ending a word (the caller checks that ``a`` begins one: a look-behind first would
    cost the literal-prefix scan; the gap, which needs a character that is no word's, ends ``a``)."""
    return re.compile(_plural_forms(a) + _PHRASE_GAP + _plural_forms(b) + r"(?![^\W_])")


def _holds_pair(low: str, a: str, b: str) -> bool:
    """Whether the casefolded text ``low`` holds the words ``a`` and ``b`` next to each other (:func:`_pair_regex`)."""
    for m in _pair_regex(a, b).finditer(low):
        at = m.start()
        if at == 0 or not _PLAIN_WORD.match(low, at - 1):
            return True
    return False


def phrase_share(text: str, pairs: list[tuple[str, str]]) -> float:
    """The share (0–1) of ``pairs`` (:func:`phrase_pairs`) that ``text`` (a page's title and
    text) holds next to each other, in order, as written (case and compatibility folded; no
    stemming, but a plural ``s``/``es`` more or less: :func:`_plural_forms`). One regular-expression scan per pair, from its first word's literal: a page of
    1.4 MB costs ~2 ms for a dozen pairs."""
    if not pairs:
        return 0.0
    low = (text if _compat_free(text) else search_form(text)).casefold()
    return sum(1 for a, b in pairs if _holds_pair(low, a, b)) / len(pairs)


def _phrase_evidence(conn, query: str, out: list[dict], idf: dict[str, float] | None = None, typed: str | None = None) -> None:
    """Add ``PHRASE_WEIGHT · phrase_share`` to the score of each of the best :data:`PHRASE_DEPTH`
    hits of ``out`` (by their score so far), and ``phrase`` to the ``signals`` of those holding at
    least :data:`PHRASE_SIGNAL` of the pairs, both engines alike: the same pairs, the same page
    text (title, compiled truth, timeline) read by id, the same Python check. Nothing when the
    query has fewer than :data:`PHRASE_MIN_PAIRS` pairs or the weight is 0. Then, over the
    best :data:`FORM_DEPTH` hits by the same order (their score before either) and the same
    read, the exact-form evidence (:func:`_form_gain`; ``idf``: the query words' IDF), and over
    the same the typed-spelling evidence (:func:`_typed_spellings_first`; ``typed``: the query
    as typed, NFKC)."""
    if not out:
        return
    marked = _typed_marks(typed) if TYPED_SPELLINGS_FIRST and typed and not typed.isascii() and len(out) > 1 else ([], [])
    if not TYPED_SPELLING_WEIGHT:  # (unquoted words weigh nothing: neither read nor checked)
        marked = ([], marked[1])
    pairs = phrase_pairs(query) if PHRASE_WEIGHT else []
    if len(pairs) < max(1, PHRASE_MIN_PAIRS):
        pairs = []
    # (one candidate gains nothing: the one holding a word only by its stem is the one not holding it)
    forms = [w for w in form_words(query) if (idf or {}).get(w)] if FORM_WEIGHT and len(out) > 1 and len(query_words(query)) <= FORM_MAX_WORDS and typed_word_count(query) <= FORM_MAX_TYPED else []
    if not pairs and not forms and not any(marked):
        return
    top = sorted(out, key=lambda h: -h["score"])[: max(PHRASE_DEPTH if pairs else 0, FORM_DEPTH if forms or any(marked) else 0)]
    ids = ",".join(str(int(h["id"])) for h in top)
    rows = {int(r[0]): tuple(r[1:]) for r in conn.execute(
        f"SELECT id, title, compiled_truth, timeline, search_aliases, path, search_words FROM pages WHERE id IN ({ids})")}
    gain: dict[int, float] = {}
    if forms:
        in_form = {int(h["id"]) for h in top[:FORM_DEPTH]}
        gain = _form_gain({pid: "\n".join(x or "" for x in r) for pid, r in rows.items() if pid in in_form}, forms, idf or {},
                          getattr(conn, "dialect", "sqlite"))
    for h in top[:PHRASE_DEPTH] if pairs else ():
        r = rows.get(int(h["id"]))
        got = phrase_share(f"{r[0]}\n{r[1]}\n{r[2]}", pairs) if r else 0.0
        h["score"] += PHRASE_WEIGHT * got ** PHRASE_POWER
        if got >= PHRASE_SIGNAL:
            sig = h["signals"]  # a set while SQLite's ranking runs (sorted later), a sorted list on Postgres
            if isinstance(sig, set):
                sig.add("phrase")
            elif "phrase" not in sig:
                h["signals"] = sorted([*sig, "phrase"])
    for h in top[:FORM_DEPTH] if gain else ():
        h["score"] += gain.get(int(h["id"]), 0.0)
    if any(marked):
        _typed_spellings_first(top[:FORM_DEPTH], {pid: "\n".join(x or "" for x in r[:5]) for pid, r in rows.items()}, *marked, idf or {})


#: a query typed with a letter the fold drops (``ё``, a Greek accent or breathing, ``ł ø ß``, a
#: Latin accent: :func:`search_form`, unicode61) puts the pages writing its words so first
#: (:func:`_typed_spellings_first`): BM25 reads both spellings as one word, so ``"ёлочные
#: игрушки"`` ranked a page writing ``елочные игрушки`` three times above the one writing the
#: phrase as typed. An ASCII query (no such letter) is ranked as before. False: the ranking before
#: (2026-12-05)
TYPED_SPELLINGS_FIRST = True
#: the share of the query's IDF an unquoted word typed with such a letter gives a page writing it
#: so (a quoted phrase's pages come first: :func:`_typed_spellings_first`). 0: off, the default:
#: measured 1.0 (benchmarks/questions.py, questions_letter_names.jsonl, 2026-12-05) put the note
#: saying ``Paweł`` above the person *Pawel Zielinski* for `Paweł` (order 0.978 → 0.957), the
#: names' own rules (:func:`_typed_words_first`) already order pages named so; questions_yo_help
#: was 1.000 either way
TYPED_SPELLING_WEIGHT = 0.0


def _typed_key(text: str) -> str:
    """``text`` (NFKC) as typed spellings are compared: lower case (not casefolded: ``ß`` stays),
    final sigma as ``σ`` (``ΟΔΥΣΣΕΥΣ`` and ``Οδυσσεύς`` end alike)."""
    return text.lower().replace("ς", "σ")


def _typed_marks(typed: str) -> tuple[list[str], list[str]]:
    """``(words, phrases)`` of the query ``typed`` (NFKC) that hold a letter the fold drops
    (:func:`_fold` changes them but for case): its unquoted such words and its quoted phrases
    holding one, each in :func:`_typed_key` form; ``([], [])`` for a query without."""
    def marked(w: str) -> bool:
        return not w.isascii() and _fold(w) != _typed_key(w)

    phrases = []
    for m in _PHRASE.finditer(typed):
        ws = _PLAIN_WORD.findall(m.group(1))
        if len(ws) > 1 and any(map(marked, ws)) and not _UNSPACED.search(m.group(1)):
            phrases.append(" ".join(_typed_key(w) for w in ws))
    rest = _PHRASE.sub(" ", typed)
    words = list(dict.fromkeys(_typed_key(w) for w in _PLAIN_WORD.findall(rest) if marked(w) and not _UNSPACED.search(w)))
    return words[:NAME_WORDS], phrases


def _typed_spellings_first(top: list[dict], texts: dict[int, str], words: list[str], phrases: list[str],
                           idf: dict[str, float]) -> None:
    """The typed-spelling evidence (:data:`TYPED_SPELLINGS_FIRST`) over ``top`` (the best hits,
    scores changed in place; ``texts``: their title, text, timeline, aliases and path): each of
    ``words`` (:func:`_typed_marks`) some of them hold as typed (a word beginning with it, or
    with its Russian stem: the forms search matched) and some only but for the fold
    gives those holding it :data:`TYPED_SPELLING_WEIGHT` times its IDF's share of the query's
    (``idf``, by folded word); then the hits holding every one of ``phrases`` as typed (words
    apart by white space, punctuation or link syntax only) come before those that do not, in
    their order: raised together to :data:`COPY_GAP` above the best that does not, where it
    scored as much. Both engines (one Python check of the texts read)."""
    if not top:
        return
    # (an ASCII text holds no such word: not read; the others as they are, any case, with no
    # lower-cased copy: most of a search's CPU would be copying the candidates' texts)
    keys = {pid: t if unicodedata.is_normalized("NFKC", t) else unicodedata.normalize("NFKC", t)
            for pid, t in texts.items() if not t.isascii()}
    total = sum(idf.values())

    def pattern(w: str) -> str:
        return re.escape(w).replace("σ", "[σς]")

    def holds(rx: re.Pattern, pid: int, whole: bool = True) -> bool:
        t = keys.get(pid)
        return t is not None and any(_starts_word(t, m) and not (whole and _PLAIN_WORD.match(t, m.end())) for m in rx.finditer(t))

    for w in words:
        # (a word of the text beginning with it: the forms search found, ``учёт`` → ``учёта``,
        # a Russian word by its stem's prefix, ``удалённое`` → ``удалённого``, as _terms searches it)
        rx = re.compile(pattern(russian.prefix(w) or w), re.I)
        have = {int(h["id"]) for h in top if holds(rx, int(h["id"]), whole=False)}
        if not have or len(have) == len(top):
            continue
        # (a Russian word searched by its stem's prefix has no IDF of its own: an even share)
        f = _fold(w)
        share = idf[f] / total if f in idf and total else 1.0 / (len(idf) + 1)
        for h in top:
            if int(h["id"]) in have:
                h["score"] += TYPED_SPELLING_WEIGHT * share
    if phrases:
        rxs = [re.compile(_PHRASE_GAP.join(map(pattern, p.split())), re.I) for p in phrases]
        first = [h for h in top if all(holds(rx, int(h["id"])) for rx in rxs)]
        rest = [h["score"] for h in top if h not in first]
        if first and rest:
            lift = max(rest) + COPY_GAP - min(h["score"] for h in first)
            for h in first if lift > 0 else ():
                h["score"] += lift


#: link text as evidence for its target (anchor text: Craswell, Hawking & Robertson, SIGIR 2001;
#: docs/search.md, step 5): the best :data:`ANCHOR_DEPTH` hits gain ``ANCHOR_WEIGHT`` times the
#: IDF-weighted share of the query's words the labels of the links to them hold (``links.label``:
#: ``[[acme|Sarah's fund]]``; a label that is one of the page's names left out; :func:`anchor_evidence`).
#: 0: off, the ranking before v55. Measured (2026-12-05, benchmarks/questions.py, SQLite): 0.5 the
#: largest weight tried (0.25, 0.5, 0.75, 1) that lowered no figure of any set; the labels' share of
#: the words a page's names do not hold (the offline re-rank measured before) did worse on every set
ANCHOR_WEIGHT = 0.5
ANCHOR_DEPTH = 100
#: informativeness: the labels' words weigh their IDF over the query's total, or over this when the
#: query's total is less (a query of common words: a word in 3 of 4 pages, IDF 0.36, gives a
#: label holding it 0.06, not the whole 0.5; ``search x`` put *tasks*, which a link calls "tasks
#: x", above *axis*, which writes x three times). 3 ≈ one word in 1 page of 20. 0: off, the
#: share alone. Measured (2026-12-05, every relevance set, both engines): 0 to 6 gave the same
#: figures but known items' nDCG@10 (0.975 → 0.979 from 3); from 8 the anchor set fell (0.825 → 0.806)
ANCHOR_REF_IDF = 3.0


def _anchor_forms(word: str) -> frozenset[str]:
    """The :func:`name_words` forms that hold the query ``word`` for :func:`anchor_evidence`: the
    word folded (:func:`_fold`), with ``s``/``es`` added, and without a plural ``s``/``es``."""
    w = _fold(word)
    out = {w, w + "s", w + "es"}
    if len(w) > 3 and w.endswith("s"):
        out.add(w[:-1])
        if w.endswith("es"):
            out.add(w[:-2])
    return frozenset(out)


def anchor_evidence(conn, out: list[dict], idf: dict[str, float], only: PageFilter | None = None) -> list[int]:
    """Add ``ANCHOR_WEIGHT · share`` to the score of each of the best :data:`ANCHOR_DEPTH` hits
    of ``out`` (by their score so far) that other pages link with a label (``links.label``, read
    by ``idx_links_to``; a page's links to itself left out), ``share`` the
    IDF (``idf``: the query's words) of the query words the labels hold (:func:`_anchor_forms`) over
    the query's, or over :data:`ANCHOR_REF_IDF` when that is more (common words weigh less), a label that is one of the page's names (title, alias, H1 name:
    :func:`~gbrain.page.slugs.title_key`) left out; ``link_text`` joins its ``signals``. A page those best hits link with a label
    holding a query word is a hit too, with that evidence alone (``bm25`` 0), when ``only``
    selects it: what other pages call a page finds it (``[Sarah's fund](acme.md)`` finds
    ``acme`` for "Sarah's fund"). Returns the ids of the hits it added. Both engines alike: the
    same rows (:func:`_anchor_reads`; on Postgres one statement, :func:`_anchor_reads_pg`), the
    same Python check."""
    total = sum(idf.values())
    if not ANCHOR_WEIGHT or not out or not total:
        return []
    total = max(total, ANCHOR_REF_IDF)
    top = sorted(out, key=lambda h: -h["score"])[:ANCHOR_DEPTH]
    have = {int(h["id"]) for h in out}
    # each query word's forms a label may hold it in: folded (case, accents, NFKC), a plural
    # s/es more or less (names_word's rule without its shared-prefix test: a set look-up each)
    forms = {w: _anchor_forms(w) for w in idf}
    every = frozenset().union(*forms.values())
    # (an ASCII label holds a query word only if its lower case holds the word's shortest form:
    # one substring test in C spares most labels the word split)
    least = [min(f, key=len) for f in forms.values()]

    def may_hold(label: str) -> bool:
        return not label.isascii() or any(x in label.lower() for x in least)

    def share(labels: list[str]) -> float:
        held = name_words("\n".join(x for x in labels if may_hold(x)))
        return sum(x for w, x in idf.items() if not held.isdisjoint(forms[w])) / total

    def holds(label: str) -> bool:  # a label of a link from a best hit that makes its target a hit
        return may_hold(label) and not every.isdisjoint(name_words(label))

    more, labels, names_of = (_anchor_reads_pg if is_postgres(conn) else _anchor_reads)(conn, [int(h["id"]) for h in top], have, holds, least, only)
    as_set = isinstance(top[0]["signals"], set)
    new = [{"id": pid, "score": 0.0, "bm25": 0.0, "signals": set() if as_set else [], "top": top[0].get("top", 1.0)} for pid in sorted(more)]
    for pid, (title, aliases) in names_of.items():  # a label that is one of the page's names (its title, an alias, its H1 name) says nothing new
        names = {title_key(x) for x in (title, *(aliases or "").split("\n"))}
        labels[pid] = [x for x in labels[pid] if title_key(x) not in names]
    for h in top + new:
        got = labels.get(int(h["id"]))
        gain = ANCHOR_WEIGHT * share(got) if got else 0.0
        if not gain:
            continue
        h["score"] += gain
        sig = h["signals"]  # a set while SQLite's ranking runs (sorted later), a sorted list on Postgres
        if isinstance(sig, set):
            sig.add("link_text")
        elif "link_text" not in sig:
            h["signals"] = sorted([*sig, "link_text"])
    out += [h for h in new if h["score"]]
    return [int(h["id"]) for h in new if h["score"]]


def _anchor_reads(conn, top: list[int], have: set[int], holds, least: list[str], only: PageFilter | None) -> tuple[set[int], dict[int, list[str]], dict[int, tuple]]:
    """:func:`anchor_evidence`'s reads (SQLite: statements in the process, by id): ``(more,
    labels, names)``: the pages ``only`` selects, not in ``have``, that the pages ``top`` link
    with a label ``holds`` accepts; the labels (one a line) of the links to ``top`` and those
    (``{page_id: [label]}``, a page's links to itself left out); and ``{page_id: (title,
    search_aliases)}`` of the pages with labels."""
    more = {int(t) for t, label in conn.execute(
        f"SELECT to_page_id, label FROM links WHERE from_page_id IN ({','.join(map(str, top))}) AND label <> '' "
        "AND to_page_id IS NOT NULL AND to_page_id <> from_page_id") if int(t) not in have and holds(label)}
    if more:
        fsql, fargs = (only or PageFilter()).sql("p")
        more = {int(r[0]) for r in conn.execute(f"SELECT p.id FROM pages p WHERE p.id IN ({','.join(map(str, more))}){fsql}", fargs)}
    labels: dict[int, list[str]] = {}
    for pid, label in conn.execute(f"SELECT to_page_id, label FROM links WHERE to_page_id IN "
                                   f"({','.join(map(str, [*top, *sorted(more)]))}) AND label <> '' AND from_page_id <> to_page_id"):
        labels.setdefault(int(pid), []).extend(label.split("\n"))
    names = {int(pid): (title, aliases) for pid, title, aliases in conn.execute(
        f"SELECT id, title, search_aliases FROM pages WHERE id IN ({','.join(map(str, labels))})")} if labels else {}
    return more, labels, names


def _anchor_reads_pg(conn, top: list[int], have: set[int], holds, least: list[str], only: PageFilter | None) -> tuple[set[int], dict[int, list[str]], dict[int, tuple]]:
    """:func:`_anchor_reads` on Postgres in one statement (each read a round trip: the labels
    from and to the best hits were two more statements of every search). The links from ``top``
    are narrowed in SQL to the labels that may hold a query word (non-ASCII, or holding a word's
    shortest form ``least`` in any case: ``may_hold``'s test), so the labels and names read
    beside them are those of few pages more than the ones ``holds`` then takes."""
    fsql, fargs = (only or PageFilter()).sql("p")
    pats = ["%" + x.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%" for x in least]
    sql = ("WITH f AS (SELECT l.to_page_id AS id, l.label FROM links l WHERE l.from_page_id = ANY(?::bigint[]) AND l.label <> '' "
           "AND l.to_page_id IS NOT NULL AND l.to_page_id <> l.from_page_id AND NOT l.to_page_id = ANY(?::bigint[]) "
           "AND (octet_length(l.label) <> char_length(l.label) OR l.label LIKE ANY(?::text[]))), "
           "ids AS (SELECT unnest(?::bigint[]) AS id UNION SELECT id FROM f) "
           "SELECT 0, f.id, f.label, NULL::text, NULL::text, NULL::boolean FROM f "
           "UNION ALL SELECT 1, l.to_page_id, l.label, NULL, NULL, NULL FROM ids JOIN links l ON l.to_page_id = ids.id "
           "AND l.label <> '' AND l.from_page_id <> l.to_page_id "
           f"UNION ALL SELECT 2, p.id, NULL, p.title, p.search_aliases, (TRUE{fsql}) FROM ids JOIN pages p ON p.id = ids.id")
    cand: set[int] = set()
    got: dict[int, list[str]] = {}
    pages: dict[int, tuple] = {}
    selected: set[int] = set()
    for kind, pid, label, title, aliases, ok in conn.execute(sql, [top, sorted(have), pats, top, *fargs]):
        pid = int(pid)
        if kind == 0:
            if holds(label):
                cand.add(pid)
        elif kind == 1:
            got.setdefault(pid, []).extend(label.split("\n"))
        else:
            pages[pid] = (title, aliases)
            if ok:
                selected.add(pid)
    more = cand & selected
    keep = set(top) | more
    labels = {pid: x for pid, x in got.items() if pid in keep}
    return more, labels, {pid: pages[pid] for pid in labels if pid in pages}


#: exact-form evidence (docs/search.md, step 4): porter (SQLite) and 'english' (Postgres) index
#: ``wording``, ``words`` and ``word`` all as ``word``, so the query ``wording`` put pages about a
#: "word count" above the page saying "wording of the contract". For each query word that one of
#: the best :data:`FORM_DEPTH` candidates holds only through another word sharing its stem
#: (:func:`form_holding`), the candidates holding the word as written (case, accents and NFKC
#: folded, a plural ``s``/``es`` more or less, as a name is named) gain ``FORM_WEIGHT`` times
#: its IDF's share of the query's (as the name evidence weighs words). The stem's matches are
#: still found and ranked (recall kept); a query whose words no candidate holds by their stem
#: only is ranked as before. Lucene's "exact + stemmed fields" summed, as a bounded re-rank of
#: the page text (no index of unstemmed words). 0: off, the ranking before.
FORM_WEIGHT = 1.0
#: the best candidates (by the score before the text evidence) whose text is read for it
FORM_DEPTH = 30
#: only a query of at most this many words (:func:`query_words`) takes it: a question or a pasted
#: sentence writes its words in whatever form the grammar asks, a term typed is the form meant
FORM_MAX_WORDS = 3
#: nor a query of more than this many words as typed, stop words too (:func:`typed_word_count`):
#: a question's few content words are in its grammar's form (known items' "how do I write math
#: equations?", 6 words, 3 content words, put *Advanced formatting syntax* 6th with the evidence,
#: 3rd without); as the contained-name evidence counts words (:data:`CONTAINED_MAX_WORDS`)
FORM_MAX_TYPED = 3
#: the endings taken off a query word to find the words that may share its stem (porter's
#: common suffixes, longest first): a word of the text beginning with what is left (3 letters at
#: least) and not the query word's form is another word of its stem (an approximation that only
#: decides whether a word's form tells candidates apart: ``word`` → ``wording``, ``wordy``)
_FORM_SUFFIXES = tuple(sorted(set((
    "ational", "tional", "ization", "ation", "ations", "ator", "ators", "iveness", "fulness", "ousness", "alism",
    "ness", "ment", "ments", "ement", "ence", "ance", "ably", "ibly", "ally", "ities", "ity", "ing", "ings",
    "edly", "ed", "er", "ers", "est", "ly", "ies", "ied", "es", "s", "ive", "ives", "ize", "izes", "ized",
    "ise", "ised", "ful", "ous", "ion", "ions", "al", "als", "ic", "ical", "able", "ible", "ant", "ent", "ism",
    "ist", "ists", "ate", "ates", "ated", "y", "e")), key=lambda x: (-len(x), x)))


def form_words(query: str) -> list[str]:
    """The words of ``query`` the exact-form evidence weighs: those of :func:`query_words` (its
    IDF's key) of 3 letters or more, no digit, no prefix (``wor*``), no stop word, no CJK."""
    prefixes = {w.rstrip("*").casefold() for w in _WORD.findall((query or "").replace('"', " ")) if w.endswith("*")}
    return [w for w in query_words(query) if len(w) >= 3 and w.isalpha() and w not in STOP_WORDS
            and w not in prefixes and not _CJK_CHAR.search(w)]


@functools.lru_cache(maxsize=512)
def _form_regexes(word: str) -> tuple[re.Pattern, re.Pattern, re.Pattern, frozenset[str], str]:
    """For ``word`` (folded: :func:`_fold`): the regular expressions (any case) of its forms
    (itself, a plural ``s``/``es`` more or less: :func:`_plural_forms`' spellings) as whole words,
    of the other words beginning as it does without its ending (:data:`_FORM_SUFFIXES`), and of
    every word so beginning; its forms; and that beginning (each expression's literal start)."""
    w = _fold(word)
    head = w
    for suffix in _FORM_SUFFIXES:
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            head = w[: -len(suffix)]
            break
    forms = {w, w + "s", w + "es"}
    if len(w) > 3 and w.endswith("s"):
        forms.add(w[:-1])
        if w.endswith("es"):
            forms.add(w[:-2])
    # (every form begins with the head: the ending taken off is at least the s/es a form drops).
    # The head's literal comes first (the scan starts from it; a look-behind first, or any case,
    # would try every position): the text is lower-cased and the word's start checked after
    tails = sorted((f[len(head):] for f in forms), key=lambda t: (-len(t), t))
    alt = "|".join(re.escape(t) for t in tails)
    end = r"(?![^\W_])"
    h = re.escape(head)
    return (re.compile(f"{h}(?:{alt}){end}"), re.compile(f"{h}(?!(?:{alt}){end})"),
            re.compile(f"{h}[^\\W_]*"), frozenset(forms), head)


def form_holding(text: str, word: str, dialect: str = "sqlite") -> tuple[bool, bool]:
    """Whether ``text`` holds ``word`` as written (case, accents and NFKC folded, :func:`_fold`;
    a plural ``s``/``es`` more or less), and whether it holds another word of its stem: one
    beginning as it does (:func:`_form_regexes`) that the engine's stemmer (``dialect``
    ``"sqlite"``: porter, as FTS5's; ``"postgres"``: Snowball english, as the 'english'
    configuration's, :func:`_form_stem`) stems as it stems ``word``: ``("the wording", "word")``
    → ``(False, True)``; ``("a methodology", "method")`` → ``(False, False)`` (``methodologi``
    is no stem match of ``method``). The text's words are found by the query word's beginning in
    any case (``Wording``; a text not in NFKC is read in its NFKC form); a word whose beginning
    differs from the query's only by an accent is not seen."""
    return _form_held(text if _compat_free(text) else search_form(text), word, dialect=dialect)


#: the Snowball stemmer (``snowballstemmer``) each engine's index stems English words as: FTS5's
#: ``porter`` tokenizer is Porter's 1980 algorithm, Postgres' 'english' configuration Snowball's
#: English (Porter2)
_FORM_STEMMERS = {"sqlite": "porter", "postgres": "english"}


@functools.lru_cache(maxsize=4096)
def _form_stem(dialect: str, word: str) -> str:
    """``word`` (folded, :func:`_fold`) as ``dialect``'s index stems it (:data:`_FORM_STEMMERS`)."""
    return _form_stemmer(dialect).stemWord(word)


@functools.lru_cache(maxsize=2)
def _form_stemmer(dialect: str):
    """The ``snowballstemmer`` stemmer of ``dialect`` (one per process; the package is a
    dependency, search/russian.py's, imported by the first check that needs it)."""
    import snowballstemmer
    return snowballstemmer.stemmer(_FORM_STEMMERS.get(dialect, "porter"))


def _at_start(low: str, rx: re.Pattern) -> bool:
    """Whether ``rx`` matches ``low`` where a word begins."""
    for m in rx.finditer(low):
        at = m.start()
        if at == 0 or not _PLAIN_WORD.match(low, at - 1):
            return True
    return False


def _form_held(text: str, word: str, low: str | None = None, dialect: str = "sqlite") -> tuple[bool, bool]:
    """:func:`form_holding` of a text in NFKC; ``low``: ``text.lower()`` when the caller has it
    (one per text, whatever the number of words)."""
    rx_form, rx_other, rx_words, forms, head = _form_regexes(word)
    low = text.lower() if low is None else low
    if head not in low:  # (every expression begins with it: neither held; a plain find, not two scans)
        return False, False
    form = _at_start(low, rx_form)
    if not _at_start(low, rx_other):  # (no other word of the beginning: none of its stem)
        return form, False
    # each word of the beginning, folded as the index folds it (an accented text: ``Café`` is the
    # form ``cafe``, which the regular expressions do not see), another word only when the
    # engine's stemmer stems it as the query word (``methodology`` begins as ``method`` does and
    # is not matched by it: it lifted every page writing ``method`` for "PARA method")
    key = _form_stem(dialect, _fold(word))
    form = form and text.isascii()
    other = False
    for m in rx_words.finditer(low):
        at = m.start()
        if at and _PLAIN_WORD.match(low, at - 1):
            continue
        got = _fold(m.group())
        if got in forms:
            form = True
        elif not other and _form_stem(dialect, got) == key:
            other = True
        if form and other:
            break
    return form, other


def _form_gain(texts: dict[int, str], words: list[str], idf: dict[str, float], dialect: str = "sqlite") -> dict[int, float]:
    """``{page: gain}`` of the exact-form evidence (:data:`FORM_WEIGHT`) over ``texts`` (the best
    candidates' title, text, timeline, aliases, path and frontmatter words): for each of ``words``
    that one of them holds only through another word of its stem (as ``dialect``'s index stems
    it: :func:`form_holding`), each holding it as written gains ``FORM_WEIGHT · idf[word] / Σ idf``
    (``idf``: every query word's)."""
    total = sum(idf.values())
    if not total or not texts:
        return {}
    # (a text whose search_form has the same words, _no_compat_words: no-break spaces, full-width
    # punctuation, is read as it is: the words and what stands between them are all the check sees)
    texts = {pid: t if _no_compat_words(t) else search_form(t) for pid, t in texts.items()}
    lows = {pid: t.lower() for pid, t in texts.items()}
    gain: dict[int, float] = {}
    for w in words:
        held = {pid: _form_held(t, w, lows[pid], dialect) for pid, t in texts.items()}
        if not any(other and not form for form, other in held.values()):
            continue  # (no candidate holds the word by its stem only: its form tells none apart)
        for pid, (form, _other) in held.items():
            if form:
                gain[pid] = gain.get(pid, 0.0) + FORM_WEIGHT * idf[w] / total
    return gain


#: a CJK word inside a title, alias, heading or file name is name evidence (SQLite's ranking;
#: False: only where it is the name's whole run, the ranking before)
CJK_NAMES = True


def _cjk_weight(word: str) -> float:
    """How many words a word counts for in a name's precision: a CJK run its characters by two
    (a bigram is about a word; at least 1), any other word 1."""
    return max(1.0, len(word) / 2) if _CJK_RUN.fullmatch(word) else 1.0


def _cjk_precision(title: str, aliases: str, hits: list[str]) -> float:
    """:func:`_precision` of a page a CJK word names (:data:`CJK_NAMES`): the query words naming it
    (``hits``), weighed by :func:`_cjk_weight`, against its shortest title or alias holding one of
    them (by substring, CJK runs weighed the same way; the shortest of all when none does), so
    ``同期`` in the title ``同期設定`` weighs as ``sync`` in ``Sync settings``: a half."""
    names = [title, *aliases.split("\n")] if aliases else [title]
    folded = [search_form(n).casefold() for n in names]
    holding = [n for n, f in zip(names, folded) if any(search_form(w).casefold() in f for w in hits)] or names

    def length(name: str) -> float:
        words = {w.casefold() for w in _WORD.findall(search_form(name))} - STOP_WORDS
        return max(1.0, sum(_cjk_weight(x) for w in words for x in _glued_runs(w)))

    got = sum(_cjk_weight(w) for w in hits)
    return min(1.0, got / min(length(n) for n in holding)) ** PRECISION_POWER


def _name_length(name: str) -> int:
    """The words of a name (a title, an alias) that the name's precision divides by: its
    distinct casefolded words but stop words, at least 1."""
    return max(1, len({w.casefold() for w in _WORD.findall(name)} - STOP_WORDS))


def _name_len(title: str, aliases: str, words: list[str], prefixes: set[str]) -> int:
    """The words a page's name precision divides by, both engines: :func:`_holding_length`, or
    with :data:`PRECISION_OF_HOLDING` off the :func:`_name_length` of its shortest title or
    alias of all (the rule before)."""
    if PRECISION_OF_HOLDING:
        return _holding_length(title, aliases, words, prefixes)
    return min(_name_length(n) for n in ([title, *aliases.split("\n")] if aliases else [title]))


def typed_word_count(query: str) -> int:
    """The words of ``query`` as typed, stop words too (``how do I create a table?`` → 6)."""
    return len(_PLAIN_WORD.findall(query or ""))


def _name_held_whole(title: str, aliases: str, words: list[str], prefixes: set[str]) -> bool:
    """Whether the query ``words`` (:func:`query_words`; ``prefixes`` those typed with ``*``)
    hold every word but stop words of the page's shortest name (``title`` or one of the
    ``aliases``, one per line) holding the most of them (:func:`_holding_length`'s name), each
    as :func:`names_word` names it but by a word typed whole (``zet*`` does not hold ``ZetabS``),
    a word the name says twice by two query words (``1.6`` does not hold ``1.6.6``;
    :func:`query_words` are distinct, so a name repeating a word takes only the exact-name bonus). ``PARA`` is held whole by "PARA method", ``PARA Starter Kit`` is not; nor is ``Đorđe notes`` by "met Đorđe" searched as "met Đorđe Djordje" (two query
    words naming one word of it: the precision counts it named whole). Both engines."""
    names = [title, *aliases.split("\n")] if aliases else [title]
    held = [sum(1 for w in words if names_word(w, name_words(n), w in prefixes)) for n in names]
    most = max(held)
    if not most:
        return False
    name = min((n for n, k in zip(names, held) if k == most), key=_name_length)
    # (each time the name says a word: ``1.6`` does not hold ``1.6.6``, nor "bora trip" ``Bora Bora``)
    # (each word of it named by a word the query types whole: a prefix ``zet*`` names any word it
    # begins, ``ZetabS``; and as often as the name says it)
    need = collections.Counter(v for v in _name_word_list(name) if v not in STOP_WORDS)
    return bool(need) and all(sum(1 for w in words if _holds_name_word(w, v)) >= k for v, k in need.items())


def _holds_name_word(word: str, name_word: str) -> bool:
    """Whether the query ``word`` holds the name's word ``name_word`` (:func:`name_words`'s form)
    whole, for :func:`_name_held_whole`: it names it (:func:`names_word`) and the name's word is not
    the query word with more letters after it, but for a plural ``s``/``es`` (``theme`` holds
    ``Themes``, ``edited`` holds ``Edit``, ``sherlocked`` holds ``Sherlocking``: two forms of one
    stem): ``inbox`` names ``Inboxer`` by their shared start (:data:`STEM_LENGTH_RATIO`) but does
    not hold it, so the one-word query "inbox" is no query holding the name *Inboxer* (whose
    contained-name bonus, the exact-name bonus's equal, put it before *Inbox* on obsidian-hub,
    2026-12-07), nor ``codegen`` *CodeGen2*. A query word ending in ``s``/``es`` is read as its
    singular too (as :func:`names_word` reads it; not one ending in ``ss``: ``class``):
    ``inboxes`` does not hold ``Inboxer`` (``inbox`` + ``er``; it put *Inboxer* before *Inbox*,
    the page named but for the plural), nor ``uses`` ``User``, nor ``status`` ``Statue``. Both engines."""
    if not names_word(word, {name_word}):
        return False
    w = _fold(word)
    if name_word in (w + "s", w + "es"):
        return True
    bases = [w]
    if len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
        bases.append(w[:-1])
        if w.endswith("es"):
            bases.append(w[:-2])
    return not any(len(name_word) > len(b) and name_word.startswith(b) and name_word not in (b + "s", b + "es") for b in bases)


def _name_word_list(name: str) -> list[str]:
    """The words of a name as :func:`name_words` folds them, in order, each as often as the name
    says it (``1.6.6`` → ``["1", "6", "6"]``)."""
    if not name:
        return []
    if name.isascii():
        return _PLAIN_WORD.findall(name.lower())
    return [_fold(w) for w in _PLAIN_WORD.findall(search_form(name))]


def _contained_name(whole: bool, named: float, total: float, exact: bool, words: int) -> float:
    """The contained-name evidence of a page, both engines: :data:`CONTAINED_WEIGHT` times
    ``named / total`` (the IDF of the query words naming the page over the query's) when the
    query holds the page's name whole (``whole``: its name precision is 1, :func:`_precision`,
    and :func:`_name_held_whole`), is not that name (``exact``: the exact-name bonus,
    :data:`EXACT_WEIGHT`, is this at a coverage of 1) and is of at most
    :data:`CONTAINED_MAX_WORDS` words (``words``: :func:`typed_word_count`); else 0.

    The name evidence alone (:data:`NAME_WEIGHT` · share) left the one-line stub *PARA* 8th for
    "PARA method" on obsidian-hub, below plugin pages named ``PARA Workflower`` that say both
    words: a name matched whole was worth half as much as BM25 from a body holding every word,
    and nothing more than a name matched in part once the query held a word it lacks. Field
    practice scores the name on its own: BM25F (Robertson, Zaragoza & Taylor, CIKM 2004)
    normalises a field's term frequency by that field's length, so a rare query word that is a
    one-word title's whole field scores as high as a title match can, whatever words the body
    lacks; Elasticsearch's ``multi_match`` ``best_fields`` (a ``dis_max`` of the fields, the best
    field's ``_score`` plus ``tie_breaker`` × the others', "Tuning best fields queries", The
    Definitive Guide) takes that field's score whole rather than diluted by the fields the
    other words are in; Omnisearch (MiniSearch BM25 per field, the file name boosted,
    ``weightBasename``) likewise ranks a note whose short file name holds the rare word. Here the
    name's share of the query is its field's score; a name holding more of the query (``PARA
    Starter Kit`` for "PARA starter kit", exact) earns more, so a whole title still beats a
    partial one (docs/search.md, "Contained names")."""
    if exact or not whole or not total or not CONTAINED_WEIGHT or words > CONTAINED_MAX_WORDS:
        return 0.0
    return CONTAINED_WEIGHT * named / total


def _precision(hits: int, length: int) -> float:
    """A name's precision factor, both engines: the share of the page's name (``length``:
    :func:`_name_len`) that the ``hits`` query words naming it make up, at most 1, to the power
    :data:`PRECISION_POWER`."""
    return min(1.0, hits / length) ** PRECISION_POWER


def _in_folders_only(path: str, word: str, prefix: bool = False) -> bool:
    """Whether ``path`` holds ``word`` (:func:`names_word`) only in its folders, not in its file
    name (``people`` in ``people/ana-lima.md``)."""
    if "/" not in path:
        return False
    folder, _, file = path.rpartition("/")
    return not names_word(word, name_words(file), prefix) and names_word(word, name_words(folder), prefix)


def _folder_names(paths_holding):
    """The folder rule (:data:`FOLDER_NAME_MAX`), both engines: a function ``(path, word,
    prefix) → bool``, true when ``word`` is in ``path`` only in its folders
    (:func:`_in_folders_only`) and ``paths_holding(word)`` (the engine's count of the pages
    whose path holds it; asked once per word, and only for such a word) is above
    :data:`FOLDER_NAME_MAX`: a folder's name, no name of the page."""
    memo: dict[str, bool] = {}

    def folder_only(path: str, word: str, prefix: bool = False) -> bool:
        if not FOLDER_NAME_MAX or not _in_folders_only(path, word, prefix):
            return False
        if word not in memo:
            memo[word] = paths_holding(word) > FOLDER_NAME_MAX
        return memo[word]
    return folder_only


#: the name precision's denominator is the shortest of the names holding the most query words,
#: not the shortest holding any (2026-12-04: a page whose title held four words of the query and
#: whose four-word H1 name held two was weighed as named whole, 4/4)
PRECISION_OF_MOST = True


def _holding_length(title: str, aliases: str, words: list[str], prefixes: set[str]) -> int:
    """The name precision's denominator of a page (:data:`PRECISION_OF_HOLDING`): the
    :func:`_name_length` of its shortest name (``title`` or one of the ``aliases``, one per
    line: an H1 name too) holding the most of the query ``words`` as written (:func:`names_word`;
    any of them with :data:`PRECISION_OF_MOST` off); of its shortest
    name of all when none does (the words named it by its path only). A page titled
    ``快速切换器`` with the alias ``Quick switcher`` is named by ``quick switcher`` through that
    alias: its two words, not the title's one, are what the query's two are weighed against."""
    names = [title, *aliases.split("\n")] if aliases else [title]
    held = [sum(1 for w in words if names_word(w, name_words(n), w in prefixes)) for n in names]
    most = max(held)
    if PRECISION_OF_MOST and most:  # the shortest of the names holding the most query words
        return min(_name_length(n) for n, k in zip(names, held) if k == most)
    return min(_name_length(n) for n, k in zip(names, held) if k) if most else min(_name_length(n) for n in names)


#: FTS5's tokenizer of ``page_fts`` (storage/db.py; ``tests/test_search_scale.py`` checks they agree)
FTS_TOKENIZE = "porter unicode61"
_NAME_SIGNALS = tuple(sig for _, sig in _NAME_COLUMNS)
#: the name-evidence pass's columns over :func:`_names_index`'s table: one ``bm25`` per name column
_NAMES_COLS = ", ".join("bm25(names, " + ", ".join("1" if j == i else "0" for j in range(len(_NAME_COLUMNS))) + ")"
                        for i in range(len(_NAME_COLUMNS)))
_names_local = threading.local()


def _names_index(rows: list[tuple]) -> sqlite3.Connection | None:
    """A private in-memory SQLite connection (one per thread) whose FTS5 table ``names`` holds
    the name columns of the candidates ``rows`` (``(id, title, search_aliases, path,
    search_headings, search_fold_names)``, the texts ``page_fts`` indexed: storage/db.py's triggers copy the page
    row's columns as they are) under ``page_fts``'s tokenizer, rowid = page id.

    The name-evidence pass of :func:`_rank` asks it which name columns of the candidates hold a
    query word instead of ``page_fts``: a column holds the word in one index exactly when it
    does in the other (the same text, the same tokenizer: a weight-1-on-one-column ``bm25`` is
    not 0 exactly when that column has the word, whatever the word's IDF), but a pass over
    ``page_fts`` reads the word's whole doclist (twice: ``bm25()`` first counts the pages of
    each phrase), which grows with the brain (a word in most of 50,000 pages: 3-7 ms per query
    word), and this one only the candidates' (~100 short rows). ``None`` when it cannot be
    built (then ``page_fts`` is asked, as before). Nothing of the brain's connection is touched
    (no temp table: its ``total_changes`` stamps the vector index cache, and a read-only brain
    refuses writes)."""
    mem = None
    try:
        mem = getattr(_names_local, "conn", None)
        if mem is None:
            mem = sqlite3.connect(":memory:", isolation_level=None)
            # contentless (bm25 needs only the index): 'delete-all' empties it at no cost, where
            # a DELETE reads every row back, and a new table costs ~1 ms
            mem.execute(f"CREATE VIRTUAL TABLE names USING fts5({', '.join(c for c, _ in _NAME_COLUMNS)}, content='', tokenize='{FTS_TOKENIZE}')")
            _names_local.conn = mem
        mem.execute("BEGIN")
        mem.execute("INSERT INTO names(names) VALUES('delete-all')")
        mem.executemany(f"INSERT INTO names(rowid, {', '.join(c for c, _ in _NAME_COLUMNS)}) VALUES (?{', ?' * len(_NAME_COLUMNS)})", rows)
        mem.execute("COMMIT")
        return mem
    except sqlite3.Error:
        if mem is not None:
            mem.close()
        _names_local.conn = None
        return None


def _body_rows(conn: sqlite3.Connection, body: tuple[str, int, int], ids: list[int], marked: bool = False):
    """The rows of ``ids`` (page ids) whose body fields match ``body`` (``(body_q, scan, terms)`` of
    :func:`_rank`), as ``(id, marked)`` rows: with ``marked``, the compiled truth and the timeline
    (joined by a newline) with FTS5 ``highlight()``'s marks (:data:`HIT_ON`, :data:`HIT_OFF`;
    linear in the text), else ``None``. FTS5 runs a MATCH once per value of ``rowid IN (…)``
    (about :data:`PROBE_COST` page entries per term and id), so few ids are probed one at a time
    and many read in one pass over the matches (``scan`` entries), whichever costs less: the same
    rows either way."""
    if not ids:
        return
    body_q, scan, terms = body
    ct, tl = COLUMNS.index("compiled_truth"), COLUMNS.index("timeline")
    col = (f"highlight(page_fts, {ct}, char(2), char(3)) || char(10) || highlight(page_fts, {tl}, char(2), char(3))"
           if marked else "NULL")
    if scan <= PROBE_COST * len(ids) * max(1, terms):
        yield from conn.execute(f"SELECT rowid, {col} FROM page_fts WHERE page_fts MATCH ? AND +rowid IN (SELECT value FROM json_each(?))",
                                [body_q, json.dumps(ids)])
        return
    sql = f"SELECT rowid, {col} FROM page_fts WHERE page_fts MATCH ? AND rowid = ?"
    for i in ids:
        r = conn.execute(sql, [body_q, i]).fetchone()
        if r is not None:
            yield r


def _with_body_signal(conn: sqlite3.Connection, out: list[dict], body: tuple[str, int, int], probed: set[int] = frozenset(),
                      found: set[int] = frozenset()) -> None:
    """Add ``body`` to the ``signals`` of the hits ``out`` whose body fields match ``body``
    (:func:`_rank`'s) and sort them; the ids in ``probed`` are known already (those matching in
    ``found``), the others are probed (:func:`_body_rows`)."""
    found = set(found)
    found.update(int(r[0]) for r in _body_rows(conn, body, [h["id"] for h in out if h["id"] not in probed]))
    for h in out:
        if h["id"] in found:
            h["signals"].add("body")
        h["signals"] = sorted(h["signals"])


#: FTS5's cost of one ``rowid = ?`` MATCH per term, in entries of a pass over a term's pages
#: (make_brain 50K pages: ~35 µs per id and term vs ~0.08 µs per entry read)
PROBE_COST = 400


#: how far below its original a conflict copy is put (:func:`copies_below_originals`)
COPY_GAP = 1e-6
#: the paths that may be a conflict copy's, gbrain's (``.conflict-``) or a file-sync tool's
#: (``.sync-conflict-``, ``(conflicted copy``, ``_conflict-``): SQL ``LIKE``;
#: :func:`~gbrain.page.slugs.copy_original` decides
COPY_LIKE = "%onflict%"


def _best_first(conn: sqlite3.Connection, out: list[dict], ids: list[int], copies: dict[int, str] | None = None) -> None:
    """Sort the scored hits ``out`` (``{id, score, …}``) best first, ties in candidate order
    ``ids``, each conflict copy's score lowered below its page's first
    (:func:`copies_below_originals`; ``copies``: the conflict copies among ``out`` with their
    paths when the caller read them already). Both engines' rankings end with it."""
    below = copies_below_originals(conn, {h["id"]: h["score"] for h in out}, copies)
    for h in out:
        h["score"] = below.get(h["id"], h["score"])
    order = {pid: i for i, pid in enumerate(ids)}
    out.sort(key=lambda h: (-h["score"], order[h["id"]]))


def copies_below_originals(conn: sqlite3.Connection, scores: dict[int, float], copies: dict[int, str] | None = None) -> dict[int, float]:
    """New scores for the conflict copies among ``scores`` (``{page_id: score}``, higher is
    better) that score at least as high as the page they are a copy of, which is among the
    candidates too: the original's score less :data:`COPY_GAP`, so the copy ranks right below
    it. A copy holds the same words as its original (both versions of one page), so it ties
    with it or beats it, and an agent taking the first hit for a name edited the copy. A copy
    whose original is not a candidate keeps its score (it may be the only version that matches).
    ``{}`` when no candidate is a copy (one indexed look-up of the candidates' paths).
    ``copies``: ``{page_id: path}`` of the candidates whose path is ``LIKE`` :data:`COPY_LIKE`,
    when the caller read them already (no look-up then)."""
    if not scores:
        return {}
    if copies is None:
        # the ids written into the SQL (integers): hundreds of ``?`` cost psycopg a parse of the
        # statement per call (its cache holds one text per count of parameters)
        ids = ",".join(str(int(i)) for i in scores)
        copies = {int(r[0]): r[1] for r in conn.execute(f"SELECT id, path FROM pages WHERE id IN ({ids}) AND path LIKE '{COPY_LIKE}'")}
    originals = {pid: copy_original(p) for pid, p in copies.items()}
    want = sorted({o for o in originals.values() if o})
    if not want:
        return {}
    by_path = {r[1]: int(r[0]) for r in conn.execute(f"SELECT id, path FROM pages WHERE path IN ({','.join('?' * len(want))})", want)}
    out: dict[int, float] = {}
    for pid, orig in originals.items():
        oid = by_path.get(orig) if orig else None
        if oid is not None and oid in scores and scores[pid] >= scores[oid]:
            out[pid] = scores[oid] - COPY_GAP
    return out


#: SQLite: a search computes BM25 for at most about this many pages per candidate list
#: (:func:`_bm25_top`); below it the ranking is FTS5's over every match
RANK_BOUND = 5000
#: SQLite: pages in table order added to the candidates when the bound is hit (per list)
RANK_WINDOW = 1000
#: FTS5 bm25()'s k1 (fts5_aux.c): one term adds less than ``(k1 + 1) · idf`` to a page's score
_K1 = 1.2


def _match_count(conn: sqlite3.Connection, term: str, memo: dict[str, int]) -> int:
    """Pages matching the FTS5 expression ``term`` (memoised in ``memo``; ASCII case is one
    key: the tokenizer folds it)."""
    key = term.lower() if term.isascii() else term
    if key not in memo:
        memo[key] = int(conn.execute("SELECT COUNT(*) FROM page_fts WHERE page_fts MATCH ?", [term]).fetchone()[0])
    return memo[key]


def _fts_rows(conn: sqlite3.Connection, facts: dict | None = None) -> int:
    """The rows of ``page_fts`` as FTS5 counts them for BM25 (the first varint of its averages
    record, ``page_fts_data`` row 1, in SQLite's varint encoding: FTS5's file format); the
    pages' ``COUNT(*)`` when that record cannot be read. At least 1. ``facts``: given
    ``"canvas"``, whether any canvas card is stored, read by the same statement (:data:`CANVAS_FACT_SQL`, :func:`rank`)."""
    r = None
    if facts is not None:
        try:
            r = conn.execute(f"SELECT (SELECT block FROM page_fts_data WHERE id = 1), {CANVAS_FACT_SQL}").fetchone()
            facts["canvas"] = int(r[1])
        except sqlite3.Error:  # (a brain before v43 has no canvas_cards: read as below)
            r = None
    if r is None:
        try:
            r = conn.execute("SELECT block FROM page_fts_data WHERE id = 1").fetchone()
        except sqlite3.Error:
            r = None
    if r and isinstance(r[0], bytes) and r[0]:
        blk, v = r[0], 0
        for i, x in enumerate(blk[:9]):
            if i == 8:
                v = (v << 8) | x
                break
            v = (v << 7) | (x & 0x7F)
            if not x & 0x80:
                break
        return max(1, v)
    return max(1, int(conn.execute("SELECT COUNT(*) FROM pages").fetchone()[0]))


def _fts_idf(n_rows: int, df: int) -> float:
    """FTS5 bm25()'s IDF of a term in ``df`` of ``n_rows`` rows (fts5_aux.c: floored at 1e-6)."""
    idf = math.log((n_rows - df + 0.5) / (df + 0.5))
    return idf if idf > 0 else 1e-6


def _coord_idf(n_rows: int, df: int) -> float:
    """A term's weight in the coordination factor: BM25's IDF as FTS5 computes it,
    ``ln((N − df + 0.5) / (df + 0.5))``, and 0 for a term in half the pages or more (FTS5 floors
    its IDF at 1e-6 there: such a term adds nothing to BM25, so it neither coordinates; its
    pages are never probed, which keeps common words cheap)."""
    return max(0.0, math.log((n_rows - df + 0.5) / (df + 0.5)))


def _coord(share: float) -> float:
    """The coordination factor (0–1) of a page matching the IDF-weighted ``share`` (0–1) of the
    query's terms: ``share ** COORD_POWER`` (1 for every page when the power is 0)."""
    return share ** COORD_POWER if COORD_POWER else 1.0


def _best_order(pairs) -> list[tuple[int, float]]:
    """``(page_id, score)`` pairs (distinct ids) by score, highest first, ties by id (two C-keyed
    sorts, the second stable: the order of ``key=(-score, id)`` without a Python key call each)."""
    out = sorted(pairs, key=_FIRST)
    out.sort(key=_SECOND, reverse=True)
    return out


_FIRST, _SECOND = operator.itemgetter(0), operator.itemgetter(1)


def _bm25_top(conn: sqlite3.Connection, q: str, parts: list[str], w: str, only: PageFilter, depth: int,
              counts: dict[str, int], n_rows: int, words: list[str], *, cover: dict[int, float] | None = None
              ) -> tuple[list[tuple[int, float]], bool]:
    """``([(page_id, -bm25)], bounded)``: the best ``depth`` pages for the FTS5 query ``q`` (= ``parts``
    joined with ``OR``) by bm25 with column weights ``w`` times the coordination factor
    (:func:`_coord` of the page's share of ``parts``, each weighted by :func:`_coord_idf`: parts
    in no page or in half the pages or more weigh 0), best first, ties by id; only pages ``only`` selects (every
    list below is filtered before its bound or window, so a filter keeps the list full); ``bounded``
    is True when the list may differ from that ranking of every match (case 3 below). ``cover``
    (filled when given) gets each returned page's share; without it, with fewer than two parts
    of weight above 0, or with :data:`COORD_POWER` 0, the factor is 1 (plain bm25).

    FTS5 computes BM25 for every match before ``ORDER BY … LIMIT``, so the cost follows the
    matches (a word in most of 50,000 pages: tens of ms). Bounded here, the ranking unchanged
    wherever it can be proven:

    1. every part's page count (df); when they sum to at most :data:`RANK_BOUND`, FTS5 ranks
       every match (the plain ranking);
    2. else the rarest parts whose counts sum to at most :data:`RANK_BOUND` name the
       candidates, scored with the whole query's phrases in ``q``'s order (``(rare) AND
       (common)`` and ``(rare) NOT (common)``: the same floats as ``MATCH q``, read from the
       rare parts' pages only; the parts are put rarest first in every case, so the order is
       the same whichever case ranks). A page
       with none of those parts scores less than ``rest``, the sum over the other parts of
       ``(k1 + 1) · idf`` (BM25's saturation: MaxScore, Turtle & Flood 1995) times the factor
       of their share (such a page has at most that share), so when the ``depth``-th
       candidate scores more, these are exactly the plain ranking's best;
    3. else (a common word, or common words only) the bound is hit: the candidates grow by the
       first :data:`RANK_WINDOW` pages (table order) with every part, with any part, and with
       every one of ``words`` (FTS5 strings of the query's words found in some page) in a
       title, alias or path, and the best of those by the same scores are returned.

    The factor is at most 1, so it never lifts a page above its bm25: the pages are read in
    bm25 order (case 1: FTS5's ``ORDER BY``, read only as far as needed; cases 2–3: the
    scored candidates) and their shares found (one pass over each part's matches per batch of
    pages) until the next page's bm25 is below the ``depth``-th best factored score (threshold
    stopping, as in Fagin's threshold algorithm), so the pages not read cannot enter the list.
    """
    dfs = [_match_count(conn, p, counts) for p in parts]
    # the parts rarest first (ties in query order), in every case: bm25() adds the phrases'
    # terms in the expression's order, and the rare parts' pages of case 2 are scored by
    # expressions that name the rare parts first, so the same order gives the same floats
    perm = sorted(range(len(parts)), key=lambda i: (dfs[i], i))
    if perm != list(range(len(parts))):
        parts, dfs = [parts[i] for i in perm], [dfs[i] for i in perm]
        q = " OR ".join(parts)
    weight = [_coord_idf(n_rows, df) if df else 0.0 for df in dfs]
    total = sum(weight)
    coord = bool(cover is not None and COORD_POWER and sum(1 for x in weight if x > 0) > 1)
    share: dict[int, float] = {}

    #: the pages of some parts, when read whole (the rare parts of cases 2–3)
    known: dict[int, set[int]] = {}

    def shares(ids: list[int]) -> None:
        # each page's share of the parts: one pass over each part's matches, among ``ids``
        ids = [i for i in ids if i not in share]
        if not ids:
            return
        have = dict.fromkeys(ids, 0.0)
        probe = json.dumps(ids)
        for j, p in enumerate(parts):
            if not weight[j]:
                continue
            if j in known:
                hit = [i for i in ids if i in known[j]]
            else:
                hit = [i for (i,) in conn.execute("SELECT rowid FROM page_fts WHERE page_fts MATCH ? AND +rowid IN (SELECT value FROM json_each(?))", [p, probe])]
            for i in hit:
                have[i] += weight[j]
        for i, v in have.items():
            share[i] = v / total

    def factored(kv: tuple[int, float]) -> float:
        return kv[1] * _coord(share[kv[0]])

    def best_of(stream, first: int | None = None) -> list[tuple[int, float]]:
        # the best ``depth`` by factored score of ``stream`` ((id, bm25) by bm25 desc, ties by id);
        # ``first``: pages read in the first round (default ``depth``)
        if not coord:
            return [kv for _, kv in zip(range(depth), stream)]
        read: list[tuple[int, float]] = []
        top: list[tuple[int, float]] = []
        batch = [kv for _, kv in zip(range(first or depth), stream)]
        while batch:
            read += batch
            shares([i for i, _ in batch])
            top = sorted(read, key=lambda kv: (-factored(kv), kv[0]))[:depth]
            floor = factored(top[-1]) if len(top) >= depth else -math.inf
            batch = []
            for kv in stream:  # a page not read yet scores at most its bm25, which is below the last read
                if kv[1] < floor:  # neither this page nor any after it can enter the list
                    break
                batch.append(kv)  # (all of them at once: the floor only rises, so two rounds at most)
        cover.update((i, share[i]) for i, _ in top)
        return top

    if sum(dfs) <= RANK_BOUND:
        sql = f"SELECT page_fts.rowid, -bm25(page_fts, {w}) FROM page_fts"
        if only:
            cond, fargs = only.sql()
            sql += f" JOIN pages p ON p.id = page_fts.rowid WHERE page_fts MATCH ?{cond}"
            args: list = [q, *fargs]
        else:
            sql += " WHERE page_fts MATCH ?"
            args = [q]
        if not coord:
            rows = conn.execute(sql + f" ORDER BY bm25(page_fts, {w}), page_fts.rowid LIMIT ?", [*args, depth]).fetchall()
            return [(int(r[0]), float(r[1])) for r in rows], False
        cur = conn.execute(sql + f" ORDER BY bm25(page_fts, {w}), page_fts.rowid", args)
        try:
            return best_of((int(r[0]), float(r[1])) for r in cur), False
        finally:
            cur.close()
    order = list(range(len(parts)))  # (the parts are rarest first since the sort above)
    m = tot = 0
    while m < len(order) and tot + dfs[order[m]] <= RANK_BOUND:
        tot += dfs[order[m]]
        m += 1
    rest = sum((_K1 + 1) * _fts_idf(n_rows, dfs[i]) for i in order[m:])
    if coord:  # a page with none of the rare parts has at most the others' share
        rest *= _coord(sum(weight[i] for i in order[m:]) / total)
    scored: dict[int, float] = {}

    def score(ids) -> None:
        ids = [i for i in ids if i not in scored]
        if only and ids:
            cond, fargs = only.sql()
            ids = [r[0] for r in conn.execute(f"SELECT p.id FROM pages p WHERE p.id IN (SELECT value FROM json_each(?)){cond}", [json.dumps(ids), *fargs])]
        if ids:
            # (the rowid range FTS5 seeks to, then each id by SQLite: FTS5 takes no IN list)
            sql = (f"SELECT rowid, -bm25(page_fts, {w}) FROM page_fts WHERE page_fts MATCH ? AND rowid BETWEEN ? AND ? "
                   "AND +rowid IN (SELECT value FROM json_each(?))")
            scored.update(conn.execute(sql, [q, min(ids), max(ids), json.dumps(ids)]))  # (rowid: int, -bm25: float) rows

    def score_rare(ids: list[int]) -> None:
        # every page of the rare parts ``parts[:m]`` (``ids``), scored in two statements that
        # FTS5 drives from those parts' pages, seeking in the common parts' lists: the pages
        # with a common part too (AND), and those without (NOT). Both name the phrases of ``q``
        # in its order, and a phrase absent from a page adds exactly 0.0, so each page gets
        # the float ``q`` gives it (``score`` reads every page of ``q`` in the ids' range:
        # ~38,000 rows for 1,555 ids at 50,000 pages)
        if only:
            cond, fargs = only.sql()
            ids = [r[0] for r in conn.execute(f"SELECT p.id FROM pages p WHERE p.id IN (SELECT value FROM json_each(?)){cond}", [json.dumps(ids), *fargs])]
        if not ids:
            return
        rare, common = " OR ".join(parts[:m]), " OR ".join(parts[m:])
        sql = f"SELECT rowid, -bm25(page_fts, {w}) FROM page_fts WHERE page_fts MATCH ?"
        args: list = []
        if only:
            sql += " AND +rowid IN (SELECT value FROM json_each(?))"
            args = [json.dumps(ids)]
        for expr in (f"({rare}) AND ({common})", f"({rare}) NOT ({common})"):
            scored.update(conn.execute(sql, [expr, *args]))  # (rowid: int, -bm25: float) rows

    def best() -> list[tuple[int, float]]:
        items = _best_order(scored.items())
        first = None
        if coord and known and len(items) > depth:
            # the rare parts' pages give each page a share it has at least, so a floor the
            # final one cannot be under: every page at or above it is read in one round (a
            # common part's pass costs the same for a few pages as for many)
            lo = dict.fromkeys(scored, 0.0)
            for j, got in known.items():
                for i in got:
                    if i in lo:
                        lo[i] += weight[j]
            low = sorted((bm * _coord(lo[i] / total) for i, bm in items), reverse=True)[depth - 1]
            first = sum(1 for _, bm in items if bm >= low)
        return best_of(iter(items), first)

    def proven(top: list[tuple[int, float]]) -> bool:
        # every page outside the candidates scores below ``rest`` (margin for rounding)
        return len(top) >= depth and (factored(top[-1]) if coord else top[-1][1]) > rest * (1 + 1e-9) + 1e-12

    if m:
        if coord:  # each rare part's pages (at most RANK_BOUND in all): their shares without a probe
            for i in order[:m]:
                if dfs[i]:  # (weight 0 too: in a small brain a part in half its pages can be rare)
                    known[i] = {r[0] for r in conn.execute("SELECT rowid FROM page_fts WHERE page_fts MATCH ?", [parts[i]])}
            score_rare(sorted(set().union(*known.values())) if known else [])
        else:
            rare = " OR ".join(parts[i] for i in order[:m])
            score_rare([int(r[0]) for r in conn.execute("SELECT rowid FROM page_fts WHERE page_fts MATCH ?", [rare])])
        top = best()
        if proven(top):
            return top, False
    # the bound is hit: the first pages in table order with every part and with any part (the
    # same phrases as ``q``: the same scores), and those named by every word
    # (found without bm25() and scored in one statement: every statement calling bm25() first
    # counts the pages of each of its phrases, a pass over every part's doclist, which grows
    # with the brain: one per query, not one per list)
    # (with a filter, the first pages in table order that it selects: a window of every page
    # could hold none of them)
    complete = False
    window: list[int] = []
    cond, fargs = only.sql()
    first = (f"SELECT page_fts.rowid FROM page_fts JOIN pages p ON p.id = page_fts.rowid WHERE page_fts MATCH ?{cond} "
             "ORDER BY page_fts.rowid LIMIT ?") if only else "SELECT rowid FROM page_fts WHERE page_fts MATCH ? ORDER BY rowid LIMIT ?"
    for expr in ([" AND ".join(parts)] if len(parts) > 1 else []) + [q]:
        rows = conn.execute(first, [expr, *fargs, RANK_WINDOW]).fetchall()
        complete = len(rows) < RANK_WINDOW  # for ``q``: every match is a candidate
        window += [int(r[0]) for r in rows]
    if words:
        named = "{title search_aliases path} : (" + " AND ".join(words) + ")"
        window += [int(r[0]) for r in conn.execute(first, [named, *fargs, RANK_WINDOW])]
    score(list(dict.fromkeys(window)))
    top = best()
    return top, not (complete or proven(top))


#: Postgres: tsvector weights of the signals (storage/sql/pg_v1.sql builds pages.search_tsv)
_PG_SIGNALS = (("title", "A"), ("path", "B"), ("body", "CD"))


#: Postgres: one word's tsquery, its 'english' and 'simple' forms OR-ed, or one of them when they
#: are the same ('2024', 'chip'): a repeated operand matches the same pages and gives the same
#: ``ts_rank_cd`` (the ranker merges equal operands), but costs the ranker time on every page
_PG_WORD = ("(SELECT CASE WHEN e = s THEN e ELSE e || s END FROM "
            "(SELECT plainto_tsquery('english', gb_fold(?)) AS e, plainto_tsquery('simple', gb_fold(?)) AS s) AS w)")


def _pg_tsquery(words: list[str], merged: bool = True) -> tuple[str, list[str]]:
    """SQL for a tsquery matching any of ``words`` (each through ``plainto_tsquery`` in the
    'english' and 'simple' configurations: user text is never query syntax), and its arguments.
    ``merged``: a word's two forms once when equal (:data:`_PG_WORD`); ``False`` keeps both
    (``ts_headline`` picks its fragment by the operands, so the snippets keep that form)."""
    one = _PG_WORD if merged else "plainto_tsquery('english', gb_fold(?)) || plainto_tsquery('simple', gb_fold(?))"
    parts = " || ".join(one for _ in words)
    return f"({parts})", [x for w in words for x in (w, w)]


def pg_parts(query: str, typed: "str | Sequence[str] | None" = None) -> list[tuple[str, str]]:
    """The terms of :func:`fts_parts` for Postgres, as ``[(kind, text)]`` in order, each once, at
    most :data:`NAME_WORDS` and as many of its phrases' other spellings: ``("word", w)``, ``("prefix", w)`` (``w*``), ``("phrase", "w1 w2 …")`` (a prefix word with its ``*``: ``"lodz* fabryczna"``)
    or ``("date", "2025-03")`` (:func:`date_phrases`, :data:`_PG_DATE`) (casefolded; the text
    holds letters, digits and single spaces or a date's ``-`` only: never tsquery syntax). The same parse as SQLite's: quotes that
    pair make phrases, a trailing ``*`` a prefix, every other character (``&``, ``|``, ``!``, ``:``, ``<->``, an unpaired quote, a lone ``*``)
    separates words. ``typed``: as in :func:`fts_parts` (a phrase its fold changed is two phrase
    parts, folded and as typed)."""
    out: list[tuple[str, str]] = []
    other: list[bool] = []  # (whether each of out is a phrase's other spelling)
    # a date's numbers (date_phrases), kept apart from a phrase (:data:`_PG_DATE`): ``2025-03-04``
    dates = set(date_phrases(_PHRASE.sub(" ", query or "")))
    split: list[tuple[str, bool]] = []
    for p in fts_parts(query or "", typed, _pg_word_rx(query or "")):
        if p.startswith("("):  # a phrase folded and as typed (or as the index spells it): each its own phrase part
            folded, *as_typed = _phrase_alternatives(p)
            split += [(_alternative(folded), False)] + [(_alternative(x), True) for x in as_typed]
        else:
            split.append((p, False))
    seen: set[tuple[str, str]] = set()
    for p, spelled in split:
        if not p.startswith('"'):  # stop words kept in the body fields only (STOP_WORDS_DROPPED off)
            p = p.rsplit(" : ", 1)[-1]
        prefix = p.endswith('"*')
        # (the phrase as typed is lowercased only: casefold folds too, ``ß`` → ``ss``; a phrase's
        # prefix word keeps its ``*``: ``lodz* fabryczna``)
        text = p[1 : -2 if prefix else -1].lower() if spelled else p[1 : -2 if prefix else -1].casefold()
        date = text in dates
        if date:
            text = text.replace(" ", "-")
        part = ("prefix" if prefix else "date" if date else "phrase" if " " in text else "word", text)
        if part not in seen:  # (a set: a list's look-up compared each term with every other, 16 CPU-s at 20,000 words)
            seen.add(part)
            out.append(part)
            other.append(spelled)
    # (the terms the query writes, NAME_WORDS; a phrase's other spellings with their phrase, as
    # many more at most: they pushed the query's words out, which SQLite searches, one term a phrase)
    kept: list[tuple[str, str]] = []
    n = m = 0
    for part, spelled in zip(out, other):
        if not spelled:
            n += 1
            if n > NAME_WORDS:
                break
        elif m < NAME_WORDS:
            m += 1
        else:
            continue
        kept.append(part)
    return kept


def _alternative(words: str) -> str:
    """One alternative of :func:`_phrase_alternatives` as an FTS5 string of :func:`fts_parts`: a
    phrase quoted (a prefix word keeps its ``*`` inside), a single prefix word ``"w"*``."""
    if " " not in words and words.endswith("*"):
        return f'"{words[:-1]}"*'
    return f'"{words}"'


def _pg_syntax(parts: list[tuple[str, str]]) -> bool:
    """Whether ``parts`` (:func:`pg_parts`) hold a phrase, a prefix or a word written with Arabic
    vowel marks (with its bare spelling, a part the query's words do not hold: :func:`_terms`)
    (plain words take the word-list SQL of :func:`_pg_tsquery`)."""
    return any(kind != "word" or _ARABIC_FOLDS.search(text) for kind, text in parts)


#: Postgres: a prefix's tsquery in one configuration: the word as ``plainto_tsquery`` reads it
#: (stemmed under 'english', as SQLite's porter tokenizer stems a prefix), its last lexeme marked
#: ``:*``; the text cast back to tsquery is plainto_tsquery's own output, so it is always valid
_PG_PREFIX_IN = "(SELECT CASE WHEN numnode(x) = 0 THEN x ELSE (x::text || ':*')::tsquery END FROM (SELECT plainto_tsquery('{cfg}', gb_fold(?)) AS x) AS x0)"
#: Postgres: one part's tsquery (its 'english' and 'simple' forms, once when equal: :data:`_PG_WORD`)
_PG_PART = {
    "word": _PG_WORD,
    "prefix": ("(SELECT CASE WHEN e = s THEN e ELSE e || s END FROM (SELECT "
               + _PG_PREFIX_IN.format(cfg="english") + " AS e, " + _PG_PREFIX_IN.format(cfg="simple") + " AS s) AS w)"),
    "phrase": ("(SELECT CASE WHEN e = s THEN e ELSE e || s END FROM "
               "(SELECT phraseto_tsquery('english', gb_fold(?)) AS e, phraseto_tsquery('simple', gb_fold(?)) AS s) AS w)"),
}
#: Postgres: a date's numbers (:func:`date_phrases`, ``d`` = ``2025-03`` or ``2025-03-04``) as the
#: index reads a date since schema v39 (``gb_fold``: ASCII punctuation is a space, as unicode61
#: reads it): ``2025-03-04`` and ``2022/03/14`` are the words ``2025 03 04`` (the phrase of ``d``
#: folded); numbers only, so the 'english' and 'simple' forms are the same
_PG_DATE = "(SELECT phraseto_tsquery('simple', gb_fold(d)) FROM (SELECT ?::text AS d{}) AS d0)"
_PG_PART["date"] = _PG_DATE.format(", ?::text AS d2")
#: Postgres: a part's 'english' form alone (the all-parts query, as plain words use)
_PG_ENGLISH = {
    "date": _PG_DATE.format(""),
    "word": "plainto_tsquery('english', gb_fold(?))",
    "prefix": _PG_PREFIX_IN.format(cfg="english"),
    "phrase": "phraseto_tsquery('english', gb_fold(?))",
}
#: Postgres: the text a phrase is checked against when 'english' dropped one of its words (a stop
#: word leaves only a gap: ``"Series A 2025"`` is ``'seri' <2> '2025'``, which "Series B 2025"
#: matches too): every field, matched with a regular expression of the words (no tsvector of the
#: text is built, so a page of any size is read: to_tsvector refuses over 1 MB of lexemes)
#: Postgres: ``q`` (a tsquery) with every operand restricted to weights C and D (the body fields:
#: ``'w':CD``, a prefix ``'w':*CD``): ``search_tsv @@`` it is ``ts_filter(search_tsv, '{c,d}') @@ q``
#: without a filtered copy of the tsvector (a phrase's operands too: positions are matched by weight)
_PG_CD = ("(CASE WHEN numnode(q) = 0 THEN q ELSE "
          r"regexp_replace(q::text, '(''(?:[^'']|'''')*'')(:(\*))?', '\1:\3CD', 'g')::tsquery END)")
_PG_ALL_TEXT = ("gb_fold(concat_ws(E'\\n', p.title, p.search_aliases, p.path, p.search_headings, coalesce(p.search_body, p.compiled_truth), "
                "p.search_words, coalesce(p.search_timeline, p.timeline)))")
_PG_NOT_WORD = "[^[:alnum:]]"


def _phrase_regex(phrase: str) -> str:
    """A Postgres regular expression (``~*``) for ``phrase``'s words (:func:`pg_parts`: letters and
    digits) next to each other, in order, as whole words (a prefix word ``w*`` any word beginning
    so), accents folded (:func:`fold_accents`, against the text through ``gb_fold``: :data:`_PG_ALL_TEXT`)."""
    words = [re.sub(r"([^\w])", r"\\\1", w.rstrip("*")) + ("[[:alnum:]]*" if w.endswith("*") else "") for w in fold_accents(phrase).split()]
    return f"(^|{_PG_NOT_WORD})" + f"{_PG_NOT_WORD}+".join(words) + f"({_PG_NOT_WORD}|$)"


def _pg_phrase_sql(text: str, cfg: str) -> tuple[str, list[str]]:
    """Postgres: SQL for phrase ``text``'s tsquery in configuration ``cfg``, and its arguments:
    ``phraseto_tsquery``, or, when a word is a prefix (``lodz* fabryczna``), its words' tsqueries
    (a prefix one as :data:`_PG_PREFIX_IN`) joined by ``tsquery_phrase`` (``'lodz':* <-> 'fabryczna'``;
    a stop word 'english' drops leaves no gap: :func:`_pg_phrase_check` reads the text then)."""
    if "*" not in text:
        return f"phraseto_tsquery('{cfg}', gb_fold(?))", [text]
    sql, args = "", []
    for w in text.split():
        one = _PG_PREFIX_IN.format(cfg=cfg) if w.endswith("*") else f"plainto_tsquery('{cfg}', gb_fold(?))"
        sql = f"tsquery_phrase({sql}, {one})" if sql else one
        args.append(w.rstrip("*"))
    return sql, args


def _pg_part_sql(kind: str, text: str, merged: bool = True) -> tuple[str, list[str]]:
    """Postgres: SQL for one part's tsquery (:data:`_PG_PART`; a phrase with a prefix word:
    :func:`_pg_phrase_sql`), and its arguments; ``merged=False``: a word's two forms both kept."""
    if kind == "phrase" and "*" in text:
        e, ea = _pg_phrase_sql(text, "english")
        s_, sa = _pg_phrase_sql(text, "simple")
        return f"(SELECT CASE WHEN e = s THEN e ELSE e || s END FROM (SELECT {e} AS e, {s_} AS s) AS w)", [*ea, *sa]
    one = _PG_PART[kind] if merged or kind != "word" else "(plainto_tsquery('english', gb_fold(?)) || plainto_tsquery('simple', gb_fold(?)))"
    return one, [text, text]


def _pg_parts_tsquery(parts: list[tuple[str, str]], merged: bool = True) -> tuple[str, list[str]]:
    """SQL for a tsquery matching any of ``parts`` (:func:`pg_parts`), and its arguments: a word
    as :func:`_pg_tsquery`, a prefix ``w*`` as ``'w':*`` and a phrase through ``phraseto_tsquery``
    (``<->``), each in the 'english' and 'simple' configurations. User text is only ever an
    argument of ``plainto_tsquery``/``phraseto_tsquery``, never parsed as tsquery syntax.
    ``merged=False``: a word's two forms both kept (for ``ts_headline``)."""
    sql, args = [], []
    for kind, text in parts:
        one, a = _pg_part_sql(kind, text, merged)
        sql.append(one)
        args += a
    return "(" + " || ".join(sql) + ")", args


def _pg_all_parts(parts: list[tuple[str, str]]) -> tuple[str, list[str]]:
    """SQL for the tsquery of pages with every one of ``parts`` (their 'english' forms, ``&&``),
    and its arguments."""
    sql, args = [], []
    for k, t in parts:
        one, a = _pg_phrase_sql(t, "english") if k == "phrase" else (_PG_ENGLISH[k], [t])
        sql.append(one)
        args += a
    return "(" + " && ".join(sql) + ")", args


def _pg_phrase_check(parts: list[tuple[str, str]]) -> tuple[str, list[str]]:
    """A SQL condition on ``p`` (a ``pages`` row) and its arguments: the page matches ``parts``
    with every phrase read strictly. A phrase whose 'english' form lost a word (a stop word: ``a``
    in ``"Series A 2025"``) must appear word for word in the page's text (:data:`_PG_ALL_TEXT`,
    computed only for a page that matches no other part); ``("", [])`` when there is none."""
    phrases = [t for k, t in parts if k == "phrase"]
    if not phrases:
        return "", []
    others = [x for x in parts if x[0] != "phrase"]
    sql, args = [], []
    if others:
        q, a = _pg_parts_tsquery(others)
        sql.append(f"p.search_tsv @@ {q}")
        args += a
    for t in phrases:
        e, ea = _pg_phrase_sql(t, "english")
        s_, sa = _pg_phrase_sql(t, "simple")
        sql.append("(SELECT CASE WHEN numnode(e) = numnode(s) THEN p.search_tsv @@ (e || s) "
                   f"ELSE p.search_tsv @@ s OR (p.search_tsv @@ e AND {_PG_ALL_TEXT} ~* ?) END "
                   f"FROM (SELECT {e} AS e, {s_} AS s) AS w)")
        args += [_phrase_regex(t), *ea, *sa]
    return " AND (" + " OR ".join(sql) + ")", args


#: Postgres keeps at most 16,383 positions in a tsvector (every later word stands at 16,383:
#: https://www.postgresql.org/docs/current/textsearch-limitations.html), so a phrase (``<->``)
#: past a long page's 16,383rd word matched nothing there; SQLite's FTS5 keeps every position. A
#: page whose fields hold at least this many bytes may have words past the limit (16,383 words
#: take 32,765 characters at least; the fields' positions add up in ``search_tsv``): such a page
#: holding a phrase's words but not its tsquery is held to the phrase word for word in its text
#: (:func:`_pg_far_phrases`)
PG_POSITION_BYTES = 32_000
_PG_FIELD_BYTES = ("(octet_length(p.title) + coalesce(octet_length(p.search_aliases), 0) + 2 * octet_length(p.path)"
                   " + coalesce(octet_length(p.search_headings), 0) + octet_length(coalesce(p.search_body, p.compiled_truth))"
                   " + coalesce(octet_length(p.search_words), 0) + octet_length(coalesce(p.search_timeline, p.timeline))"
                   " + coalesce(octet_length(p.search_cjk), 0))")


def _pg_far_phrases(parts: list[tuple[str, str]], osql: str, oargs: list) -> list[tuple[int, str, list]]:
    """Postgres: for each phrase or date of ``parts`` (:func:`pg_parts`; not a CJK one, whose
    bigrams are no text), ``(index, sql, args)``: an ``ARRAY`` of the pages (the filter ``osql``
    selects; at most :data:`PG_RANK_BOUND`) long enough to have words past the tsvector's
    position limit (:data:`PG_POSITION_BYTES`) that hold its words (GIN index) but not its
    tsquery, and its words next to each other in order in their text (:func:`_phrase_regex`
    over :data:`_PG_ALL_TEXT`): the pages the limit hid the phrase of."""
    out = []
    for i, (kind, text) in enumerate(parts):
        if kind not in ("phrase", "date") or _CJK_CHAR.search(text):
            continue
        words = text.replace("-", " ") if kind == "date" else text
        # (a prefix word of a phrase: the GIN condition holds its other words)
        whole = " ".join(w for w in words.split() if not w.endswith("*"))
        if all(w in STOP_WORDS for w in whole.split()):
            continue  # ('english' keeps none of them: the tsquery of its words would be empty)
        cfg = "simple" if kind == "date" else "english"
        q, qa = _pg_part_sql(kind, text)
        sql = (f"ARRAY(SELECT p.id FROM pages p WHERE p.search_tsv @@ plainto_tsquery('{cfg}', gb_fold(?)) "
               f"AND {_PG_FIELD_BYTES} >= {PG_POSITION_BYTES} AND NOT p.search_tsv @@ {q} AND {_PG_ALL_TEXT} ~* ?{osql} "
               f"LIMIT {PG_RANK_BOUND})")
        out.append((i, sql, [whole, *qa, _phrase_regex(words), *oargs]))
    return out


#: Postgres: pages in table order added to the candidates per list (every query term, every
#: word) when a term is too common to rank all its pages (see :func:`_rank_pg`)
PG_CANDIDATES = 400
#: Postgres: the rarest terms whose pages number at most this many together have all their pages
#: ranked (see :func:`_rank_pg`)
PG_RANK_BOUND = 2000
#: FTS5 bm25()'s b (fts5_aux.c): how much a page's length, against the average, discounts a term
_B = 0.75
#: Postgres: ``ts_rank_cd`` weights ``{D, C, B, A}`` that make one term's rank its weighted
#: frequency (:data:`WEIGHTS` / 5: timeline 1, body 1, path and headings 2, title and aliases 5;
#: a weight must be at most 1) and the factor that scales it back
_PG_TF_WEIGHTS = "'{0.2,0.2,0.4,1.0}'::float4[]"
_PG_TF_SCALE = 5.0


#: Postgres takes SQLite's headings evidence (HEADING_WEIGHT) too (2026-12-04)
PG_HEADINGS = True
#: Postgres measures a page's length for BM25 in tokens as FTS5 does (``pages.search_len``, schema
#: v59; its average from ``search_totals.tokens``); False: in distinct lexemes, ``length(search_tsv)``,
#: the ranking before (2026-12-05, docs/search.md "Page length")
PG_TOKEN_LENGTH = True


def _pg_len_sql() -> tuple[str, str, str]:
    """Postgres: a page's length for BM25 (:data:`PG_TOKEN_LENGTH`) as (the column of the inner
    SELECT that reads ``search_tsv`` into ``v``, the outer ``dl`` expression, the ``search_totals``
    column of the brain's length)."""
    if PG_TOKEN_LENGTH:
        return "p.search_len AS dl, ", "dl", "tokens"
    return "", "length((v).f1) AS dl", "lexemes"


def _rank_pg(conn, query: str, *, only: PageFilter, limit: int, names: list[str] | None = None, typed: int | None = None,
             coordinate: bool = True, facts: dict | None = None, typed_words: set[str] | None = None,
             spelled: "str | Sequence[str] | None" = None, rerank: int = RERANK) -> list[dict]:
    """:func:`rank` on Postgres: BM25 as FTS5 computes it (k1 1.2, b 0.75, FTS5's IDF over the
    brain's pages) over the weighted ``pages.search_tsv`` (A title and aliases ×5, B path and
    headings ×2, C body and D timeline ×1: :data:`WEIGHTS`), times the same coordination factor
    (:func:`_coord`; not with ``coordinate=False``), normalised by the best hit, plus the same
    name evidence (share of the query's words in the title, an alias or the path, weighted by
    IDF, times the name's precision: :func:`_precision` of :func:`_name_len`; a folder's word
    of many pages' paths names none: :func:`_folder_names` over :func:`_paths_holding_pg`) and
    exact-name bonus and headings evidence as on SQLite (an alias by its 'english' stems: schema v57). As on SQLite
    (:data:`NAME_AS_WRITTEN`), a word names a page only when the title, an alias or the path
    holds it as written (:func:`names_word`, not by a shared 'english' stem), and a weight
    (A, B) whose fields hold the query's words only by their stem
    weighs 0 in the page's BM25 (:func:`_unweigh_pg`). Same result shape (``bm25``: the page's BM25 before the
    coordination factor).

    Each term's weighted frequency in a page is ``ts_rank_cd`` of that term alone with weights
    :data:`_PG_TF_WEIGHTS` (cover density of a one-term query sums the weights of its
    occurrences: tsrank.c), a page's length is its tokens as FTS5 counts them (``pages.search_len``,
    schema v59, kept by the trigger that computes ``search_tsv``), the brain's pages and tokens
    come from ``search_totals`` (schema v19: the sums of per-statement rows kept by triggers) and each term's pages from the GIN
    index (``gb_match_count``). So a common word adds almost nothing and a rare one decides.
    Each candidate is read once, by id; when the rare terms' pages number at least ``depth``
    and the ``depth``-th of them outscores any page without a rare term, the windows below are
    not read (the same ranking).

    Candidates (Postgres schema v4/v18): every page of the rarest terms whose pages are at most
    :data:`PG_RANK_BOUND` together (read from the GIN index), so a page with a rare word is always
    ranked; when a term is more common than that, also the first :data:`PG_CANDIDATES` pages in
    table order with every term and with any term, and every page with a query word in its
    title, an alias, its path or a heading (``search_names_tsv``). When every term is within the
    bound the ranking is that of every match. With a filter ``only``, every list holds pages it
    selects only (the filter comes before the bound: a type through ``gb_match_ids_of`` /
    ``gb_name_ids_of``, a tag or folder as the same lists' SQL with :meth:`PageFilter.sql`). ``names``: the spellings of the query an exact
    name is looked up by (default ``[query]``).

    A query with a phrase or a prefix (:func:`pg_parts`) ranks its terms' tsqueries
    (:func:`_pg_parts_tsquery`; all terms: :func:`_pg_all_parts`; a phrase's frequency is its
    covers' harmonic-mean weight each), the ranked candidates held to the phrases word for word
    (:func:`_pg_phrase_check`); name evidence and its IDF stay per query word, as on SQLite.
    ``facts``: given ``"canvas"`` (:func:`rank`), read by the counts statement."""
    words = query_words(query, _pg_word_rx(query))
    if not words:
        return []
    parts = pg_parts(query, spelled)  # (``spelled``: the query as typed, NFKC: typed_form)
    syntax = _pg_syntax(parts)
    if syntax:  # a phrase or a prefix: the same SQL over their tsqueries
        terms = parts
        tsq, targs = _pg_parts_tsquery(parts)
        andq, aargs = _pg_all_parts(parts)
        check, cargs = _pg_phrase_check(parts)  # (the pages of ``far`` pass it too: below)
    else:
        terms = [("word", w) for w in words]
        tsq, targs = _pg_tsquery(words)
        andq, aargs = "plainto_tsquery('english', gb_fold(?))", [" ".join(words)]
        check, cargs = "", []
    per_term = [_pg_parts_tsquery([t]) for t in terms]
    # name evidence: per query word; a Russian word by the stem prefix it was searched by (``коты``
    # → ``'кот':*``, as SQLite's _stem_terms): the names then tell a form of it from another word
    pre = {t for k, t in parts if k == "prefix"}
    stems = _stem_prefixes(words, pre)
    per = [_pg_parts_tsquery([("prefix", stems[w])]) if w in stems else _pg_tsquery([w]) for w in words]
    wargs = [x for _, wa in per for x in wa]
    depth = max(int(limit), RERANK)
    osql, oargs = only.sql()

    def listed(q: str, a: list, n: int, fn: str = "gb_match_ids", col: str = "search_tsv") -> tuple[str, list]:
        # the first ``n`` pages (table order) matching ``q`` that the filter selects
        if only.beyond_type:  # (a tag or folder: no function of the schema takes them)
            return f"(SELECT p.id FROM pages p WHERE p.{col} @@ {q}{osql} LIMIT ?)", [*a, *oargs, n]
        if only.type:
            return f"SELECT {fn}_of({q}, ?, ?)", [*a, only.type, n]
        return f"SELECT {fn}({q}, ?)", [*a, n]
    # 1. one round trip, from the GIN index and one row: the pages and their tokens, whether any
    #    canvas card is stored, each term's pages (its IDF; each word's too when terms are phrases
    #    or prefixes) and the pages named exactly by the query (_exact_names)
    ex_sql, ex_args = _exact_names_pg(names or [query], only, typed)
    counted = per_term + (per if syntax else [])
    # (the pages of a phrase past the tsvector's position limit: _pg_far_phrases)
    far_q = _pg_far_phrases(terms, osql, oargs) if syntax else []
    far_sql = "".join(", " + f for _i, f, _a in far_q)
    # (one term: whether the tsquery of any term is that of every term: the windows' two lists one)
    same_sql, same_args = (f", {andq} = {tsq}", [*aargs, *targs]) if len(terms) == 1 else ("", [])
    # (the canvas column only when the caller asked: a brain set back before pg_v44 has no canvas_cards)
    canvas_sql = CANVAS_FACT_SQL if facts is not None else "NULL"  # (sent as ILIKE: pg_v94's partial index)
    in_dl, out_dl, total_col = _pg_len_sql()
    sql = (f"SELECT s.pages, s.{total_col}, {canvas_sql}, " + ", ".join(f"gb_match_count({q})" for q, _ in counted)
           + f"{ex_sql}{same_sql}{far_sql} FROM search_totals s")
    r = conn.execute(sql, [*(x for _, a in counted for x in a), *ex_args, *same_args, *(x for _i, _f, a in far_q for x in a)]).fetchone()
    far: dict[int, list[int]] = {}  # term → the pages holding it only past the position limit
    if far_q:
        for (i, _f, _a), ids_ in zip(far_q, r[len(r) - len(far_q):]):
            if ids_:
                far[i] = sorted(int(x) for x in ids_)
        r = r[: len(r) - len(far_q)]
    same = bool(same_sql and r[-1])
    n_pages, total_len = max(1, int(r[0])), max(0, int(r[1]))
    if facts is not None:
        facts["canvas"] = int(r[2])
    dfs = [int(x) + len(far.get(i, ())) for i, x in enumerate(r[3 : 3 + len(terms)])]
    wdfs = [int(x) for x in r[3 + len(terms) : 3 + len(counted)]] if syntax else dfs
    k = 3 + len(counted)
    exact, near = _exact_pg_rows(r[k], r[k + 1], r[k + 2]) if ex_sql else ({}, set())
    live = [i for i, df in enumerate(dfs) if df]
    if not live and not exact:
        return []
    if far and check:
        check = check[:-1] + " OR p.id = ANY(?::bigint[]))"
        cargs = [*cargs, sorted({x for ids_ in far.values() for x in ids_})]
    # 2. the candidates: every page of the rarest terms (at most PG_RANK_BOUND together), and
    #    when a term is more common, the windows in table order and the pages it names
    order = sorted(live, key=dfs.__getitem__)
    rare, tot = [], 0
    for i in order:
        if tot + dfs[i] > PG_RANK_BOUND:
            break
        rare.append(i)
        tot += dfs[i]
    if len(rare) < len(live) and facts is not None:  # (windows of the common terms' pages, not every match: search says so at its end)
        facts[BOUNDED] = True
    rlists, rargs = [], []  # every page of the rare terms
    for i in rare:
        lsql, la = listed(*per_term[i], PG_RANK_BOUND)
        rlists.append(lsql)
        rargs += la
    wlists, winargs = [], []  # the windows, when a term is more common
    for i, ids_ in far.items():  # (already filtered)
        (rlists if i in rare else wlists).append("SELECT unnest(?::bigint[])")
        (rargs if i in rare else winargs).append(ids_)
    if len(rare) < len(live):
        for q, a, n in ((andq, aargs, PG_CANDIDATES), (tsq, targs, PG_CANDIDATES))[: 1 if same else 2]:
            lsql, la = listed(q, a, n)
            wlists.append(lsql)
            winargs += la
        lsql, la = listed(tsq, targs, 10 * PG_CANDIDATES, "gb_name_ids", "search_names_tsv")
        wlists.append(lsql)
        winargs += la
    # 3. one round trip: each candidate's BM25 and coordination factor from its terms' weighted
    #    frequencies, the best ``depth`` (and the exact names) kept, their signals and name
    #    evidence read
    idf = [_fts_idf(n_pages, df) if df else 0.0 for df in dfs]
    cw = [_coord_idf(n_pages, df) if df else 0.0 for df in dfs]
    total_cw = sum(cw)
    coord = bool(coordinate and COORD_POWER and sum(1 for x in cw if x > 0) > 1)
    avgdl = total_len / n_pages if total_len else 1.0
    a_len, b_len = _K1 * (1 - _B), _K1 * _B / avgdl
    fcols = "".join(f", ts_rank_cd({_PG_TF_WEIGHTS}, (v).f1, {q})::float8 * {_PG_TF_SCALE!r}"
                    + (" + CASE WHEN id = ANY(?::bigint[]) THEN 1.0 ELSE 0 END" if i in far else "") + f" AS f{i}"
                    for i, (q, _) in enumerate(per_term) if i in live)
    # (a page holding a phrase only past the position limit: one occurrence, as body text)
    fargs = [x for i, (_, a) in enumerate(per_term) if i in live for x in [*a, *([far[i]] if i in far else [])]]
    bm25 = " + ".join(f"{idf[i]!r}::float8 * f{i} * {_K1 + 1!r} / (f{i} + {a_len!r} + {b_len!r} * dl)" for i in live) or "0::float8"
    if coord:
        share = " + ".join(f"CASE WHEN f{i} > 0 THEN {cw[i]!r}::float8 ELSE 0 END" for i in live if cw[i] > 0)
        factor = f"power(({share}) / {total_cw!r}, {COORD_POWER!r})"
    else:
        factor = "1"
    # (nf.na, nf.nb: the A and B lexemes of the page's names, filtered once per page; per query
    # word, whether its title/aliases (A) and its path/headings (B) hold it)
    names_cols = "".join(f", bool_or(nf.{n} @@ {wq})" for n in ("na", "nb") for wq, _ in per)

    def scored(lists: list[str], largs: list, also: str = "") -> tuple[str, list]:
        """A SELECT of the pages of ``lists`` (``also``: a further condition) with their id,
        length, terms' weighted frequencies (``f{i}``), BM25 (``bm``) and coordinated BM25
        (``r``), and its arguments."""
        return (f"SELECT *, bm * {factor} AS r FROM (SELECT *, {bm25} AS bm FROM (SELECT id, {out_dl}{fcols} "
                f"FROM (SELECT p.id, {in_dl}ROW(p.search_tsv) AS v FROM pages p WHERE p.id = ANY(ARRAY({' UNION '.join(lists)})){osql}{check}{also} "
                f"OFFSET 0) AS x OFFSET 0) AS y OFFSET 0) AS z"), [*fargs, *largs, *oargs, *cargs]

    # a page's length: its tokens (search_len, v59; distinct lexemes, length(), until v57).
    # The candidates are read by their ids (an index probe each: a join let the planner scan
    # every page), and a page's search_tsv is read once: a tsvector over ~2 KB is stored out of
    # line (TOAST), and every function reading the column fetches it again (length and one
    # ts_rank_cd per term: 3 fetches for two words). ROW() puts the fetched value inline in a
    # composite (a composite never holds an out-of-line value) that the functions read from;
    # OFFSET 0 keeps the planner from merging the subquery back (2026-12-02: the statement's CPU
    # 18.8 → 11.3 ms per query, docs/performance.md)
    if rlists and wlists:
        # the windows' pages without a rare term score below ``bound`` (each term's BM25 is under
        # idf · (k1 + 1), the coordination factor at most that of the common terms' share): when
        # the ``depth``-th best page with a rare term scores above it, none of them can be in the
        # best ``depth``, and they are not read (the ranking is the same)
        common = [i for i in live if i not in rare]
        bound = sum(idf[i] for i in common) * (_K1 + 1)
        if coord:
            bound *= (sum(cw[i] for i in common) / total_cw) ** COORD_POWER
        bound = bound * (1 + 1e-6) + 1e-300  # above float8 rounding
        rsql, ra = scored(rlists, rargs)
        wsql, wa = scored(wlists, winargs, " AND NOT p.id = ANY(ARRAY(SELECT id FROM dr))"
                          " AND coalesce((SELECT r FROM dr ORDER BY r DESC LIMIT 1 OFFSET ?) <= ?, true)")
        head = f"WITH dr AS MATERIALIZED ({rsql}), d AS (SELECT * FROM dr UNION ALL {wsql}), "
        hargs = [*ra, *wa, depth - 1, bound]
    else:
        dsql, hargs = scored(rlists + wlists or ["SELECT NULL::bigint WHERE false"], rargs + winargs)
        head = f"WITH d AS ({dsql}), "
    sql = (f"{head}top AS ((SELECT id, r, bm FROM d ORDER BY r DESC, id LIMIT ?) "
           f"UNION ALL (SELECT id, 0, 0 FROM pages p WHERE id = ANY(?))) "
           f"SELECT top.id, max(top.r), max(top.bm), bool_or(nf.na @@ q), "
           f"bool_or(nf.nb @@ q), bool_or(p.search_tsv @@ qcd OR top.id = ANY(?::bigint[])){names_cols}, "
           f"max(CASE WHEN p.path LIKE '{COPY_LIKE}' THEN p.path END), p.title, p.search_aliases, p.path, p.search_headings, p.search_fold_names "
           f"FROM top JOIN pages p ON p.id = top.id, (SELECT q, {_PG_CD} AS qcd FROM (SELECT {tsq} AS q) AS q0) AS qq, "
           f"LATERAL (SELECT ts_filter(p.search_names_tsv, '{{a}}') AS na, ts_filter(p.search_names_tsv, '{{b}}') AS nb OFFSET 0) AS nf "
           f"GROUP BY top.id, p.id ORDER BY max(top.r) DESC, top.id")
    args = [*hargs, depth, sorted(exact), sorted({x for ids_ in far.values() for x in ids_}), *wargs, *wargs, *targs]
    widf = [math.log(1 + (n_pages - df + 0.5) / (df + 0.5)) if df else 0.0 for df in wdfs]
    total = sum(widf)
    cbm: dict[int, float] = {}
    bm: dict[int, float] = {}
    signals: dict[int, set[str]] = {}
    name: dict[int, float] = {}
    nw = len(words)
    prefixes = {x for kind, x in parts if kind == "prefix"}
    folded = [_fold(w) for w in words]
    unweigh: dict[int, str] = {}  # page → the tsvector weights ("A", "B") holding query words only by their stem
    flags: dict[int, tuple] = {}  # page → (its A flag per query word, its B flag, its B flag per query word)
    hits: dict[int, int] = {}  # page → the query words naming it (its name's precision: _precision)
    contained: dict[int, float] = {}  # page → the IDF of the query words naming it, when they are its whole name (_contained_name)
    head: dict[int, float] = {}  # page → the IDF of the query words its headings hold as written (SQLite's headings evidence)
    copies: dict[int, str] = {}  # the candidates that may be conflict copies, with their paths (_best_first)
    texts = []  # the names (title, aliases, path, headings) of the pages a name field matched
    named_by: dict[int, frozenset] = {}  # page → the query words naming it (_typed_words_first)
    fields: dict[int, tuple] = {}
    recheck: dict[int, tuple] = {}  # page → (weight A matched, B matched, its title): _pg_name_signals
    for r in conn.execute(sql, args):
        r = tuple(r)
        pid = int(r[0])
        cbm[pid], bm[pid] = float(r[1]), float(r[2])
        if r[-6] is not None:
            copies[pid] = r[-6]
        signals[pid] = {"body"} if r[5] else set()
        if r[3] or r[4] or r[-1]:  # (which name field matched: read for the hits returned only, _pg_name_signals)
            recheck[pid] = (bool(r[3]), bool(r[4]), r[-5])
        a_on, b_words = r[6 : 6 + nw], r[6 + nw : 6 + 2 * nw]
        name[pid] = 0.0
        if r[4] or any(a_on):
            flags[pid] = (a_on, r[4], b_words)
            texts.append((pid, *r[-5:]))
    # the re-scored candidates (as on SQLite, _rank): the best ``rerank`` by BM25, then the pages
    # named exactly, as a ranking ``rerank`` deep reads them (past it: BM25 0, after them by id)
    rescored = [pid for pid in cbm if pid not in exact or cbm[pid]][: max(int(rerank), 0)]
    first = set(rescored)
    for pid in sorted(exact):
        if pid in cbm and pid not in first:
            rescored.append(pid)
            cbm[pid] = bm[pid] = 0.0
    # as on SQLite (_rank): a query word names the page only when its title, an alias or its
    # path holds it as written (names_word), not a word sharing its 'english' stem, and not a
    # word its path holds only in a folder of many pages (_folder_names); the name evidence is
    # times the name's precision (_precision of _name_len); a weight whose fields hold the
    # query's words only by their stem weighs 0 in the page's BM25. The names' texts of the
    # pages a name field matched come with the ranking's rows (no statement of their own)
    folder_name = _folder_names(lambda word: _paths_holding_pg(conn, word))
    for pid, title, aliases, path, headings, fold_names in texts:
        a_on, b_on, b_words = flags[pid]
        stem = ""
        named = [False] * nw
        # (folded[j] in held: the word as written, names_word's first test, without a call)
        if any(a_on):  # A (title, aliases): per query word, as on SQLite; the names' folded words too (weight A,
            # SQLite's ``folds`` signal: a title's ``dj`` spelling, ``Đorđe`` → ``Djordje``, names it as written)
            held = name_words(title) | name_words(aliases or "") | (name_words(fold_names) if fold_names else set())
            for j, word in enumerate(words):
                named[j] = bool(a_on[j] and (not NAME_AS_WRITTEN or folded[j] in held or names_word(word, held, word in prefixes)))
            stem += "" if any(named) else "A"
        named_by_a = list(named)
        if any(b_words):  # the path names the page by a word it holds as written, but a folder's
            held = name_words(path)
            for j, word in enumerate(words):
                if b_words[j] and not named[j] and (folded[j] in held or names_word(word, held, word in prefixes)):
                    named[j] = not folder_name(path, word, word in prefixes)
        if PG_HEADINGS and any(b_words) and headings:  # the headings evidence, as on SQLite: each query word a heading holds as written
            held = name_words(headings)
            head[pid] = sum(w for j, (w, word) in enumerate(zip(widf, words))
                            if b_words[j] and (folded[j] in held or names_word(word, held, word in prefixes)))
        if b_on:  # B (path, headings) matched a query term: stem-only when it holds no query word as written
            held = name_words(path) | name_words(headings or "")
            if held.isdisjoint(folded) and not any(names_word(word, held, word in prefixes) for word in words):
                stem += "B"
        if any(named[:nw]) and any(a_on):  # (the words the title or an alias names it by: _typed_words_first)
            named_by[pid] = frozenset(word for j, word in enumerate(words) if a_on[j] and named_by_a[j])
            fields[pid] = (title, aliases or "")
        if any(named):
            name[pid] = sum(w for w, on in zip(widf, named) if on)
            hits[pid] = sum(named)
            precision = _precision(hits[pid], _name_len(title, aliases or "", [w for w, df in zip(words, wdfs) if df], prefixes))
            name[pid] *= precision
            if precision >= 1.0 and _name_held_whole(title, aliases or "", [w for w, df in zip(words, wdfs) if df], prefixes):
                contained[pid] = name[pid]  # (the query holds the name whole: _contained_name)
        if NAME_AS_WRITTEN and STEM_FIELDS_UNWEIGHTED and stem and bm[pid]:
            unweigh[pid] = stem
    if unweigh:
        _unweigh_pg(conn, unweigh, [(i, per_term[i]) for i in live], idf, a_len, b_len, bm, cbm, far)
    if not bm:
        return []
    ids = list(bm)
    top = max(cbm[pid] for pid in rescored) or 1.0
    n_typed = typed_word_count(query)  # (the query's words, stop words too: _contained_name)
    exact_w = _exact_weights(exact, near)
    out = []
    for pid in ids:
        sig = signals.get(pid, set())
        ex = pid in exact
        if ex:
            sig.add(exact[pid])
        score = cbm[pid] / top + (NAME_WEIGHT * name[pid] / max(total, NAME_REF_IDF) + HEADING_WEIGHT * head.get(pid, 0.0) / total if total else 0.0) + exact_w.get(pid, 0.0)
        score += _contained_name(pid in contained, contained.get(pid, 0.0), total, ex, n_typed)
        out.append({"id": pid, "score": score, "bm25": bm[pid], "signals": sorted(sig), "top": top})
    out, rest = _rescored_split(out, rescored)
    ids = list(rescored)
    if coordinate:  # (search; hybrid query's keyword side stays plain BM25: its fusion was tuned on it)
        _phrase_evidence(conn, query, out, {w: x for w, x in zip(words, widf) if x}, typed=names[typed - 1] if names and typed else None)
        ids += anchor_evidence(conn, out, {w: x for w, x in zip(words, widf) if x}, only)
    _typed_words_first(out, named_by, fields, typed_words or set(), exact_w, near)
    _typed_names_first(out, exact, near)
    if coordinate:
        _exact_names_above(out, exact, near)
    _best_first(conn, out, ids, copies)
    out = _past_rescored(out, rest, int(limit))
    _pg_name_signals(conn, out, recheck, (tsq, targs), per, words, prefixes)
    return out


def _pg_name_signals(conn, hits: list[dict], recheck: dict[int, tuple], tsq: tuple[str, list], per: list[tuple[str, list]],
                     words: list[str], prefixes: set[str]) -> None:
    """Postgres: add to the ``signals`` (sorted lists) of :func:`_rank_pg`'s returned ``hits``
    the name fields that matched, as SQLite names them (``title``, ``alias``, ``path``,
    ``headings``), in one statement over those hits alone (the fields are tokenized again,
    ``gb_alias_tsv``: over every ranked row, up to ``RERANK``, it cost +20% of the server's CPU
    per query, docs/performance.md). ``recheck``: page → (its weight A matched the query ``tsq``
    (sql, args), its weight B matched, its title), for the ranked pages a name field or the
    names' folded words may have matched; ``per``: each query word's tsquery (``words``,
    ``prefixes``: the query's words and those written as a prefix). Weight A is the title's, the
    aliases' and the names' folded words (``search_fold_names``: per query word they hold, the
    title when it holds the word as written, else an alias; a weight-A match no field explains,
    a prefix's: the title when it holds any query word, else an alias); B the path's and the
    headings' (``search_names_tsv``, pg_v81.sql): each field read only where its weight matched."""
    ids = [int(h["id"]) for h in hits if int(h["id"]) in recheck]
    if not ids:
        return
    # (each page's weights that matched as bits, 1 A and 2 B, beside its id: two arrays to send,
    # psycopg's dumping of arrays being most of the statement's client CPU)
    cols = "".join(f", CASE WHEN t.f & {bit} <> 0 THEN gb_alias_tsv(p.{c}) @@ qq.q END"
                   for bit, c in ((1, "title"), (1, "search_aliases"), (2, "path"), (2, "search_headings")))
    cols += "".join(f", CASE WHEN p.search_fold_names <> '' THEN gb_alias_tsv(p.search_fold_names) @@ {wq} END" for wq, _ in per)
    sql = (f"SELECT p.id{cols} FROM unnest(?::bigint[], ?::int[]) AS t(id, f) JOIN pages p ON p.id = t.id, "
           f"(SELECT {tsq[0]} AS q) AS qq")
    args = [*(x for _, wa in per for x in wa), ids, [recheck[i][0] + 2 * recheck[i][1] for i in ids], *tsq[1]]
    found: dict[int, set[str]] = {}
    for r in conn.execute(sql, args):
        pid = int(r[0])
        a_on, _b_on, title = recheck[pid]
        sig = found[pid] = {s for s, on in zip(("title", "alias", "path", "headings"), r[1:5]) if on}
        for w, on in zip(words, r[5:]):
            if on:
                sig.add("title" if names_word(w, name_words(title), w in prefixes) else "alias")
        if a_on and not sig & {"title", "alias"}:
            sig.add("title" if any(names_word(w, name_words(title), w in prefixes) for w in words) else "alias")
    for h in hits:
        more = found.get(int(h["id"]))
        if more:
            h["signals"] = sorted({*h["signals"], *more})


def _paths_holding_pg(conn, word: str) -> int:
    """Postgres: the pages whose path holds ``word`` (its 'english' stem or itself, as BM25's B
    weight reads the path; SQLite's FTS5 path column), counted up to :data:`FOLDER_NAME_MAX` + 1
    (:func:`_folder_names` asks no more): the pages a name field holds it in (GIN index), their
    paths checked."""
    path = "gb_fold(p.path)"
    sql = (f"SELECT count(*) FROM (SELECT 1 FROM pages p, (SELECT {_PG_WORD} AS q) AS w WHERE p.search_names_tsv @@ w.q "
           f"AND (to_tsvector('simple', {path}) || to_tsvector('english', {path})) @@ w.q LIMIT ?) AS x")
    return int(conn.execute(sql, [word, word, FOLDER_NAME_MAX + 1]).fetchone()[0])


def _unweigh_pg(conn, unweigh: dict[int, str], terms: list[tuple[int, tuple[str, list]]], idf: list[float],
                a_len: float, b_len: float, bm: dict[int, float], cbm: dict[int, float], far: dict[int, list[int]] | None = None) -> None:
    """:func:`_rank_pg`'s BM25 of the pages of ``unweigh`` (``{page_id: "A", "B" or "AB"}``: the
    tsvector weights whose fields hold the query's words only by their stem) again, with those
    weights 0 (:data:`_PG_TF_WEIGHTS` order ``{D, C, B, A}``), in one statement; ``bm`` and
    ``cbm`` (the coordination factor kept, as SQLite's ``_rank`` keeps it) updated in place.
    Scores only fall. ``far``: the pages holding a term only past the position limit (one
    occurrence as body text, as :func:`_rank_pg` counts it)."""
    ws = {"A": "{0.2,0.2,0.4,0}", "B": "{0.2,0.2,0,1.0}", "AB": "{0.2,0.2,0,0}"}
    ids = sorted(unweigh)
    fcols = "".join(f", ts_rank_cd(x.w, (x.v).f1, {q})::float8 * {_PG_TF_SCALE!r}" for _i, (q, _a) in terms)
    in_dl, out_dl, _total = _pg_len_sql()
    sql = (f"SELECT x.id, {out_dl.replace('(v)', '(x.v)')}{fcols} FROM (SELECT p.id, {in_dl}u.w::float4[] AS w, ROW(p.search_tsv) AS v "
           "FROM unnest(?::bigint[], ?::text[]) AS u(id, w) JOIN pages p ON p.id = u.id OFFSET 0) AS x")
    args = [x for _i, (_q, a) in terms for x in a] + [ids, [ws[unweigh[i]] for i in ids]]
    for r in conn.execute(sql, args):
        pid, dl = int(r[0]), float(r[1])
        fs = [float(f) + (1.0 if far and pid in far.get(i, ()) else 0.0) for (i, _), f in zip(terms, r[2:])]
        v = sum(idf[i] * f * (_K1 + 1) / (f + a_len + b_len * dl) for (i, _), f in zip(terms, fs))
        if bm.get(pid):
            cbm[pid] = cbm[pid] * v / bm[pid]
            bm[pid] = v


def _body_only(q: str) -> str:
    """``q`` restricted to the body fields (already-filtered stop-word terms included)."""
    return f"{_BODY_FILTER} : (" + q.replace(f"{_BODY_FILTER} : ", "") + ")"


class _NameKeys:
    """The keys the query's spellings ``names`` name a page by (:func:`_exact_names`): ``tkeys``
    (:func:`~gbrain.page.slugs.title_key`, a title or an H1 name) and ``keys``
    (:func:`~gbrain.page.slugs.loose_key`, a file name or an alias) of every spelling, each with
    its folded key (:func:`~gbrain.page.slugs.fold_title_key`, ``fold_loose_key``: ``Zoe Kim``
    and ``Zoë Kim`` alike), the folded keys alone (``ftkeys``, ``fkeys``: ``name_folds``), and
    the keys of the first ``typed`` spellings as typed (``typed_t``, ``typed_k``: a page they
    name gets the whole bonus)."""

    def __init__(self, names: list[str], typed: int | None) -> None:
        typed = len(names) if typed is None else typed
        self.ftkeys = list(dict.fromkeys(k for k in map(fold_title_key, names) if k))
        self.fkeys = list(dict.fromkeys(k for k in map(fold_loose_key, names) if k))
        self.tkeys = list(dict.fromkeys([*(k for k in map(title_key, names) if k), *self.ftkeys]))
        self.keys = list(dict.fromkeys([*(k for k in map(loose_key, names) if k), *self.fkeys]))
        self.typed_t = {k for k in map(title_key, names[:typed]) if k}
        self.typed_k = {k for k in map(loose_key, names[:typed]) if k}


#: ``name_folds.kind`` → the signal of an exact name (an H1 name is weighed as an alias)
_FOLD_SIGNAL = {"title": "title", "path": "path", "h1": "alias", "alias": "alias"}
#: the ``name_folds`` rows naming a page by the query's folded keys (a title or an H1 name by its
#: whole title key, a file name or an alias by its last segment's)
_FOLD_MATCH = "((f.kind IN ('title', 'h1') AND f.key IN ({t})) OR (f.kind IN ('path', 'alias') AND f.key IN ({k})))"


#: the most pages one query's exact names (titles, file names, H1 names) are looked up for
#: (:func:`_exact_names`, :func:`_exact_names_pg`), as aliases and folded names are: 20 until
#: 2026-12-07, so the 21st note of a vault's 25 named *Meeting* had no exact-name bonus and came
#: after *Meetings*, named only but for the plural (:data:`EXACT_NAMES_FIRST`)
EXACT_NAME_PAGES = 200


def _exact_names(conn: sqlite3.Connection, names: list[str], only: PageFilter, typed: int | None = None) -> tuple[dict[int, str], set[int]]:
    """``({page_id: signal}, near)``: the pages whose title (``title``), file name (``path``),
    an alias or H1 name (``alias``) is one of ``names`` (the query's spellings: as typed, NFC,
    its :func:`search_form` when that differs, then those but for a plural s/es), compared by
    :func:`~gbrain.page.slugs.title_key` (the whole title: "TCP/IP" names the page titled so,
    "IP" does not) with titles and H1 names and by :func:`~gbrain.page.slugs.loose_key` with
    file names and aliases, or but for accents and case (:class:`_NameKeys`: a folded key of
    the query against a page's own key, or against ``name_folds``: "Zoe Kim" names "Zoë Kim",
    "Zoë Kim" names "Zoe Kim"); ``near`` the pages of them no spelling of the first ``typed``
    names as typed (named only but for a plural or accents: :func:`_exact_weights`). Pages
    ``only`` selects. Indexed lookups only (pages' keys, ``aliases.loose_key``, ``name_folds.key``)."""
    nk = _NameKeys(names, typed)
    if not nk.keys:
        return {}, set()
    t, targs = only.sql()
    marks, tmarks = ", ".join("?" * len(nk.keys)), ", ".join("?" * len(nk.tkeys))
    out: dict[int, str] = {}
    as_typed: set[int] = set()
    # (an H1 name, ``h1_key``: keyed whole as a title; signal ``alias``, the field search weighs it in)
    for r in conn.execute(f"SELECT p.id, p.title_key, p.loose_key, p.h1_key FROM pages p WHERE (p.title_key IN ({tmarks}) OR p.loose_key IN ({marks}) "
                          f"OR p.h1_key IN ({tmarks})){t} LIMIT {EXACT_NAME_PAGES}", (*nk.tkeys, *nk.keys, *nk.tkeys, *targs)):
        out[int(r[0])] = "title" if r[1] in nk.tkeys else "path" if r[2] in nk.keys else "alias"
        if r[1] in nk.typed_t or r[2] in nk.typed_k or r[3] in nk.typed_t:
            as_typed.add(int(r[0]))
    # a name whose folded key differs from its own (``Zoë Kim``): its ``name_folds`` row
    folded = [*nk.ftkeys, *nk.fkeys]
    if folded:
        fm, ftm, fkm = ", ".join("?" * len(folded)), ", ".join("?" * len(nk.ftkeys) or "?"), ", ".join("?" * len(nk.fkeys) or "?")
        sql = "SELECT f.page_id, f.kind FROM name_folds f" + (" JOIN pages p ON p.id = f.page_id" if only else "")
        sql += f" WHERE f.key IN ({fm}) AND {_FOLD_MATCH.format(t=ftm, k=fkm)}{t} LIMIT 200"
        for pid, kind in conn.execute(sql, (*folded, *(nk.ftkeys or [""]), *(nk.fkeys or [""]), *targs)):
            out.setdefault(int(pid), _FOLD_SIGNAL[kind])
    # aliases: the page model's alias rows (the frontmatter's names of ``search_aliases``), keyed by
    # loose_key and indexed, so an exact alias costs one index probe, not a scan of every page
    sql = "SELECT a.page_id, a.loose_key FROM aliases a"
    sql += f" JOIN pages p ON p.id = a.page_id WHERE a.loose_key IN ({marks}){t}" if only else f" WHERE a.loose_key IN ({marks})"
    for pid, key in conn.execute(sql + " LIMIT 200", (*nk.keys, *targs)):
        out.setdefault(int(pid), "alias")
        if key in nk.typed_k:
            as_typed.add(int(pid))
    return out, set(out) - as_typed


#: the exact-name bonus of a page named by the query only but for a plural s/es
#: (:func:`plural_names`) or but for accents and case (:class:`_NameKeys`: "Zoe Kim" for "Zoë
#: Kim", or "Łukasz Nowak" for *Lukasz Nowak*: alike both ways), as a share of :data:`EXACT_WEIGHT`:
#: below a page named as typed (``boxes`` puts *Boxes* above *Box*, "Zoe Kim" *Zoe Kim* above
#: *Zoë Kim*; :func:`_typed_names_first` keeps it so), above every other name evidence
PLURAL_EXACT_SHARE = 0.9


def _exact_weights(exact: dict[int, str], near: set[int]) -> dict[int, float]:
    """The exact-name bonus of each page of ``exact``: :data:`EXACT_WEIGHT`, or its
    :data:`PLURAL_EXACT_SHARE` for a page of ``near`` (named only by a plural spelling of the
    query, or but for accents: :func:`_exact_names`). Both engines."""
    return {pid: EXACT_WEIGHT * PLURAL_EXACT_SHARE if pid in near else EXACT_WEIGHT for pid in exact}


def _typed_words(names: list[str]) -> set[str]:
    """The words of the query's spellings as typed (``names`` up to its NFKC form: :func:`_rank`),
    NFC and casefolded, not folded: ``Łukasz`` is ``łukasz``, not ``lukasz``."""
    return {unicodedata.normalize("NFC", w.casefold()) for n in names for w in _PLAIN_WORD.findall(n)}


#: a page whose names hold a query word as typed comes before one holding it only but for a fold
#: (accents, ``ł ø ß…``: :func:`_typed_words_first`); False: the ranking before (2026-12-05)
TYPED_WORDS_FIRST = True
#: a query holding letters a fold drops (``æ``, ``ł``, accents) puts a page whose title or alias
#: holds its words so before one it names only but for them (:func:`_typed_words_first`); False:
#: the ranking before (2026-12-05: `Mærsk` ranked the company *Maersk* first)
TYPED_LETTERS_WIN = True


def _typed_words_first(out: list[dict], named_by: dict[int, frozenset], fields: dict[int, tuple], typed: set[str],
                       exact_w: dict[int, float], near: set[int] = frozenset()) -> None:
    """Among the hits of ``out`` named by the same query words (``named_by``: the words the
    title or an alias names the page by, :func:`names_word`; a file name is left out: a note's
    file name ``calls with lukasz`` is no name of a person) and of the same exact-name bonus,
    one whose names (``fields``: title, aliases) hold more of those words as typed
    (``typed``: :func:`_typed_words`) comes first: raised, where it scores no more, to
    :data:`COPY_GAP` above the next. ``Łukasz`` names *Łukasz Nowak* as typed and *Lukasz
    Nowak* but for a letter; ``Lukasz`` the other way; both rank as names (the folded words of a
    name are indexed at title weight, ``search_fold_names``), the one typed so first, as
    :func:`_typed_names_first` does for a whole name. A query whose words name no page but as
    typed (an ASCII query over ASCII names) is left as it is.

    A query typed with letters a fold drops (``Mærsk``, ``Łukasz``, ``Zoë``: :data:`TYPED_LETTERS_WIN`)
    weighs a page it names only but for them (``near``: the company *Maersk*, its exact-name
    bonus at :data:`PLURAL_EXACT_SHARE`) as a page it does not name exactly, so *Mærsk
    Mc-Kinney Møller*, whose title holds the word as typed, comes first (2.4 to 0.995
    before). An ASCII query keeps the fold's bonus (``Aero`` names *Ærø* first, before *Aero
    Bikes*: the letters may not be on the keyboard). Both engines."""
    if not TYPED_WORDS_FIRST or not typed or not named_by:
        return
    # the words typed with letters a fold drops; a word with compatibility characters is left
    # out (its NFKC spelling is in ``typed`` too): full-width ``ＣＡＦＥ`` is ASCII typed
    marked = {t for t in typed if _fold(t) != t and unicodedata.is_normalized("NFKC", t)} if TYPED_LETTERS_WIN else set()

    def held_words(pid: int) -> set[str]:
        return {unicodedata.normalize("NFC", x.casefold()) for f in fields[pid] for x in _PLAIN_WORD.findall(f or "")}

    def lacks_typed(pid: int) -> bool:
        # named but for letters the user typed: its names hold a marked word only folded (not
        # a page named but for an accent of an ASCII word only: ``Mærsk Jose``, *Mærsk José*)
        held = held_words(pid)
        folds = {_fold(x) for x in held}
        return any(m not in held and _fold(m) in folds for m in marked)

    groups: dict[tuple, list[dict]] = {}
    for h in out:
        ws = named_by.get(h["id"])
        if ws:
            ex = 0.0 if marked and h["id"] in near and lacks_typed(h["id"]) else exact_w.get(h["id"], 0.0)
            groups.setdefault((ws, ex), []).append(h)
    for (ws, _ex), hs in groups.items():
        if len(hs) < 2:
            continue
        spelled = {w: {t for t in typed if _fold(t) == _fold(w)} for w in ws}

        def as_typed(h: dict) -> int | None:
            # how many of the words its names hold as typed; None when one is held only by a
            # plural, a stem or a prefix (names_word): no fold to tell apart, left as it is
            held = held_words(h["id"])
            folds = {_fold(x) for x in held}
            if any(_fold(w) not in folds for w in ws):
                return None
            return sum(1 for w in ws if spelled[w] & held)

        n = {h["id"]: as_typed(h) for h in hs}
        hs = [h for h in hs if n[h["id"]] is not None]
        if len({n[h["id"]] for h in hs}) < 2:
            continue
        after = None
        for h in reversed(sorted(hs, key=lambda h: (-n[h["id"]], -h["score"]))):
            if after is not None and h["score"] <= after:
                h["score"] = after + COPY_GAP
            after = h["score"]


def _typed_names_first(out: list[dict], exact: dict[int, str], near: set[int]) -> None:
    """Lower the score of each hit of ``out`` named by the query only but for a fold or a plural
    (``near``) that scores at least as high as a hit it names as typed (``exact`` less ``near``)
    to the lowest such hit's less :data:`COPY_GAP`: a page named exactly as typed stays first.
    The bonus alone (:data:`PLURAL_EXACT_SHARE`) cannot keep it so: BM25 reads the query in its
    :func:`search_form`, ``Łukasz`` as ``lukasz``, which the title *Łukasz Nowak* holds only
    among its compatibility words (unicode61 folds no ``ł``), so "Łukasz Nowak" put *Lukasz
    Nowak* first by BM25 alone. The twins so lowered keep their order among themselves (best
    first, a tie in the order of ``out``), each a share of :data:`COPY_GAP` below the one
    before: one score for all put them back in candidate (BM25) order. Both engines."""
    typed = [h["score"] for h in out if h["id"] in exact and h["id"] not in near]
    if not typed or not near:
        return
    floor = min(typed) - COPY_GAP
    above = sorted((h for h in out if h["id"] in near and h["score"] > floor), key=lambda h: -h["score"])
    for i, h in enumerate(above):
        h["score"] = floor - COPY_GAP * i / len(above)


#: a page the query names as typed comes before every page it does not name (:func:`_exact_names_above`);
#: False: the ranking before 2026-12-07, where a contained name (its bonus the exact one's equal),
#: BM25 and link text could put another page first
EXACT_NAMES_FIRST = True


def _exact_names_above(out: list[dict], exact: dict[int, str], near: set[int]) -> None:
    """Raise the hits of ``out`` the query names as typed (``exact`` less ``near``:
    :func:`_exact_names`) by one amount, so the lowest of them is :data:`COPY_GAP` above the best
    hit it names in no way (not in ``exact``): their order among themselves, and every other
    hit's, stays the ranking's. ``search`` only (hybrid ``query``'s keyword side keeps its plain
    scores). Both engines.

    The exact-name bonus (:data:`EXACT_WEIGHT`) is only equalled by other evidence: a contained
    name at full coverage (:func:`_contained_name`), or name, link-text and BM25 evidence together.
    On obsidian-hub "MOC" put the template *T - MOCs* (held whole: ``T`` is a stop word, ``MOCs``
    the plural; its body says MOC often, links labelled "MOC" point to it) before *Maps of Content
    (MOC)*, whose alias is the query, and "inbox" *Inboxer* before *Inbox*. A known item typed by
    its name is that page, as Obsidian's quick switcher and Omnisearch put a note whose name is
    the query first; a page named only but for a plural or a fold (``near``) keeps its place
    (:func:`_typed_names_first` keeps it below those named as typed)."""
    if not EXACT_NAMES_FIRST:
        return
    typed = [h for h in out if h["id"] in exact and h["id"] not in near]
    others = [h["score"] for h in out if h["id"] not in exact]
    if not typed or not others:
        return
    lift = max(others) + COPY_GAP - min(h["score"] for h in typed)
    if lift > 0:
        for h in typed:
            h["score"] += lift


def _exact_names_pg(names: list[str], only: PageFilter, typed: int | None = None) -> tuple[str, list]:
    """:func:`_exact_names` on Postgres as three more columns of a ``SELECT`` (leading comma) and
    their arguments: ``[[page_id, 1 if the title else 0 (the file name) else 2 (an H1 name), 1 if
    named as typed]]`` (at most 20), the alias matches ``[[page_id, 1 if as typed]]`` (at most
    200) and the ``name_folds`` matches ``[[page_id, kind as in the first]]`` (at most 200);
    ``("", [])`` for a query with no name key. Pages ``only`` selects (:func:`_exact_pg_rows`
    reads them)."""
    nk = _NameKeys(names, typed)
    if not nk.keys:
        return "", []
    t, targs = only.sql()
    a = f" JOIN pages p ON p.id = a.page_id WHERE a.loose_key = ANY(?){t}" if only else " WHERE a.loose_key = ANY(?)"
    f = " JOIN pages p ON p.id = f.page_id" if only else ""
    tt, tk = sorted(nk.typed_t), sorted(nk.typed_k)
    fold = _FOLD_MATCH.replace("IN ({t})", "= ANY(?)").replace("IN ({k})", "= ANY(?)")
    sql = (f", ARRAY(SELECT ARRAY[p.id, CASE WHEN p.title_key = ANY(?) THEN 1 WHEN p.loose_key = ANY(?) THEN 0 ELSE 2 END, "
           f"CASE WHEN p.title_key = ANY(?) OR p.loose_key = ANY(?) OR p.h1_key = ANY(?) THEN 1 ELSE 0 END] FROM pages p "
           f"WHERE (p.title_key = ANY(?) OR p.loose_key = ANY(?) OR p.h1_key = ANY(?)){t} LIMIT {EXACT_NAME_PAGES})"
           f", ARRAY(SELECT ARRAY[a.page_id, CASE WHEN a.loose_key = ANY(?) THEN 1 ELSE 0 END] FROM aliases a{a} LIMIT 200)"
           f", ARRAY(SELECT ARRAY[f.page_id, CASE f.kind WHEN 'title' THEN 1 WHEN 'path' THEN 0 ELSE 2 END] FROM name_folds f{f} "
           f"WHERE f.key = ANY(?) AND {fold}{t} LIMIT 200)")
    return sql, [nk.tkeys, nk.keys, tt, tk, tt, nk.tkeys, nk.keys, nk.tkeys, *targs, tk, nk.keys, *targs,
                 [*nk.ftkeys, *nk.fkeys], nk.ftkeys, nk.fkeys, *targs]


def _exact_pg_rows(pages, aliases, folds) -> tuple[dict[int, str], set[int]]:
    """:func:`_exact_names`' answer from the three columns of :func:`_exact_names_pg`."""
    out: dict[int, str] = {}
    as_typed: set[int] = set()
    for pid, kind, typed in pages:  # (1 the title, 0 the file name, 2 an H1 name)
        out[int(pid)] = "title" if kind == 1 else "path" if kind == 0 else "alias"
        if typed:
            as_typed.add(int(pid))
    for pid, kind in folds:
        out.setdefault(int(pid), "title" if kind == 1 else "path" if kind == 0 else "alias")
    for pid, typed in aliases:
        out.setdefault(int(pid), "alias")
        if typed:
            as_typed.add(int(pid))
    return out, set(out) - as_typed


def stale_index_warning(n: int) -> str:
    """The warning for ``n`` hits of the search index whose page row does not exist (a stale
    ``-wal`` restored beside an older brain.db, a torn copy): those hits are left out."""
    return (f"the search index lists {n:,} page(s) that do not exist (left out of the results): the search index is damaged; "
            "`gbrain reindex` rebuilds it from the pages (`gbrain check` checks the rest)")


def score_value(x: float) -> float:
    """A hit's score as answered: 4 decimals, but 3 significant digits below 0.001, so a real
    match of tiny score (a page holding only a word in half the pages or more, whose BM25 IDF is
    FTS5's floor, 1e-6: trial 30's ``ai town``) is never 0.0."""
    return round(x, 4) if not x or abs(x) >= 1e-3 else float(f"{x:.3g}")


def search(conn: sqlite3.Connection, query: str, *, type: str | None = None, limit: int = 20, offset: int = 0,
           warn=None, tag: str | None = None, prefix: str | None = None, since: str | None = None) -> list[dict]:
    """Rank pages for ``query`` (:func:`rank`: BM25 over weighted fields, known-item re-scoring).

    Returns ``[{slug, title, type, score, snippet, highlights, signals}]``, best first; ``score`` is
    :func:`rank`'s (higher is better, comparable within one query), ``snippet`` readable text around
    the hits (:func:`snippet_of`: no link syntax, comments or emphasis marks), ``highlights`` the
    hits in it as ``[start, end)`` code-point offsets, ``signals`` the fields that matched. Raises :class:`BadInput` for a non-positive limit.
    ``offset``: the hits from that one on (0: the first), the same as ``[offset:]`` of the ranking
    ``limit + offset`` long (every ranking is the start of every deeper one: :func:`_rank`), with
    snippets made for those only.
    A hit of the search index whose page row does not exist is left out, and ``warn`` (a
    callable taking one line) is told once (:func:`stale_index_warning`). ``type``, ``tag``,
    ``prefix``, ``since`` (an ISO time: pages updated since): only the pages that filter selects
    (:func:`rank`), the substring fallback too.
    A canvas whose cards hold the words is a hit too (:func:`canvas_hits`: ``type`` ``canvas``,
    ``node``), merged by score; ``prefix`` selects canvases as well, ``type`` or ``tag`` none.
    """
    if limit is None or int(limit) <= 0:
        raise BadInput("limit must be a positive number")
    offset = int(offset or 0)
    # one Unicode form: a query typed decomposed (NFD: macOS file names, some keyboards) finds the
    # precomposed text (unicode61 keeps a combining accent in the token; é and e+◌́ differ), and
    # its compatibility form (search_form: ``ＧＰＴ`` → ``GPT``, ``ﬁ`` → ``fi``) is what is ranked
    query = unicodedata.normalize("NFC", query or "")
    facts: dict = {}  # (what the ranking and the canvases read once: whether cards exist, a phrase's spellings)
    query = dj_spelled(conn, harakat_bare(conn, query, facts), facts)  # (``djordje`` as the index spells it: ``đorđe``; harakat no page writes: bare)
    folded = search_form(query)
    spelled = phrase_spellings(conn, folded, typed_form(query), facts)  # (a quoted phrase is searched as typed and as the index spells it: fts_parts)
    q = fts_query(folded, spelled)
    only = PageFilter(type, tag, prefix, since)
    if not q or task_box_query(query):
        # no indexable word (emoji, symbols): unicode61 drops them, so match them as substrings
        # (a query of only `*`, quotes or separators is empty and finds nothing: empty_query);
        # a checked task box `[x]` too: its letter is no word to look for
        return [] if empty_query(query) else _substring_search(conn, query, only, int(limit) + offset)[offset:]
    ranked, body = _rank(conn, facts.get((DJ_RANKED, query), query), only=only, limit=int(limit) + offset, weights=None, coordinate=True, facts=facts)
    loose = cjk_loosened(folded) if not ranked else None
    if loose:  # a CJK run no page holds as written: its words apart (cjk_loosened)
        ranked, body = _rank(conn, loose, only=only, limit=int(limit) + offset, weights=None, coordinate=True, facts=facts)
        if ranked:
            if warn:
                warn(f"no page holds {query.strip()!r} as written: pages holding its words apart (put it in quotes for that text only)")
            query, folded, spelled, q = loose, loose, loose, fts_query(loose)
    if warn and facts.get(BOUNDED) and len(ranked) < int(limit) + offset:
        # the ranking ended before the hits asked, but it read a window of a common word's pages
        # (_bm25_top's case 3, _rank_pg's windows), not every match: its last page says so
        warn(f"the hits end at {len(ranked):,} but more pages match: a word in most pages is ranked over a window of its "
             "pages, not every one; narrow the search (type, tag, prefix, other words)")
    # a canvas's cards (docs/storage.md "Canvases"): ranked beside the pages by score; a type or
    # tag selects pages only, a folder canvases too
    canvases = [] if only.type or only.tag or only.since else canvas_hits(conn, query, limit=int(limit) + offset, prefix=prefix,
                                                            top=ranked[0].get("top") if ranked else None, present=facts.get("canvas"),
                                                            facts=facts)
    if canvases:
        both = sorted([(h["score"], 0, i, h) for i, h in enumerate(ranked)] + [(h["score"], 1, i, h) for i, h in enumerate(canvases)],
                      key=lambda x: (-x[0], x[1], x[2]))[offset : offset + int(limit)]
        pages = [x[3] for x in both if x[1] == 0]
        done = {h["slug"]: h for h in (_with_snippets(conn, folded, q, pages, warn, body, spelled) if pages else [])}
        slugs = _slugs_of(conn, [h["id"] for h in pages])
        return [done[slugs[x[3]["id"]]] if x[1] == 0 else x[3] for x in both if x[1] == 1 or slugs.get(x[3]["id"]) in done]
    if not ranked and _UNSPACED.search(folded):
        return _substring_search(conn, query, only, int(limit) + offset)[offset:]
    ranked = ranked[offset:]
    if not ranked:
        return []
    try:
        return _with_snippets(conn, folded, q, ranked, warn, body, spelled)
    except sqlite3.OperationalError as e:
        # a TEXT value that is not UTF-8: gbrain never stores one (invalid UTF-8 is a blob), so the
        # file's bytes changed; reported as a damaged brain (storage/db.py: db_error), not as is
        if "decode" not in str(e).lower():
            raise
        raise sqlite3.DatabaseError(f"database disk image is malformed ({e})") from e


def _slugs_of(conn, ids: list[int]) -> dict[int, str]:
    if not ids:
        return {}
    return {int(r[0]): r[1] for r in conn.execute(f"SELECT id, slug FROM pages WHERE id IN ({','.join(str(int(i)) for i in ids)})")}


def _with_snippets(conn, query: str, q: str, ranked: list[dict], warn=None, body: tuple[str, int, int] | None = None,
                   spelled: "str | Sequence[str] | None" = None) -> list[dict]:
    """:func:`search`'s hits: ``ranked`` (:func:`rank`'s, non-empty; or :func:`_rank`'s, whose
    body signal ``body`` is added here, found by the same FTS5 pass that marks the snippets' hits)
    with their rows and snippets (:func:`snippet_of`); hits with no page row are left out
    (``warn`` told once). ``spelled``: the query as typed (:func:`typed_form`, :func:`pg_parts`)."""
    ids = [h["id"] for h in ranked]
    idin = f"p.id IN ({','.join(map(str, ids))})"
    snip: dict[int, dict] = {}
    # (the words marked in Python: a phrase found in a spelling the index holds marks that
    # spelling's words too, ``"djordje balasevic"`` → ``Đorđe``: _spelled_words)
    marks = _spelled_words(query, spelled)
    cjk = not query.isascii() and _CJK_RUN.search(query) is not None

    def written(pid: int, marked: str) -> str:
        # (a text holding Arabic may have been indexed with words bare in place, search_text: its
        # hits put on the text as written, as_written; one read of the page's text, for such hits only)
        if marked.isascii() or not _ARABIC_CHAR.search(marked):
            return marked
        r = conn.execute("SELECT compiled_truth, timeline FROM pages WHERE id = ?", (int(pid),)).fetchone()
        original = (r[0] or "") + "\n" + (r[1] or "") if r is not None else ""
        return as_written(marked, original) if _ARABIC_FOLDS.search(original) else marked

    if is_postgres(conn):
        # Postgres marks the (stemmed) query words in the whole text (ts_headline, HighlightAll),
        # read with the rows themselves (one round trip); snippet_of picks the place
        parts = pg_parts(query, spelled)
        tsq, targs = _pg_parts_tsquery(parts, merged=False) if _pg_syntax(parts) else _pg_tsquery(query_words(query, _pg_word_rx(query)), merged=False)
        sql = (f"SELECT p.id, p.slug, p.title, p.type, p.size, CASE WHEN p.size <= {int(SNIPPET_MAX_CHARS) if not cjk else -1} THEN "
               f"ts_headline('english', {_PG_HEAD_TEXT}, {tsq}, "
               f"'StartSel=\x02, StopSel=\x03, HighlightAll=true') END AS head FROM pages p WHERE {idin}")
        meta = {}
        for r in conn.execute(sql, targs):
            meta[r["id"]] = r
            # (a text holding a letter fold_letters spells in ASCII is marked in Python: the
            # engine's marks miss `Łukasz` found as `lukasz`)
            if r["head"] is not None and HIT_ON in r["head"] and not cjk and not _LETTERS.search(r["head"]):
                snip[int(r["id"])] = snippet_of(_whole_marks(written(r["id"], r["head"]), query))
        small = []
    else:
        meta = {r["id"]: r for r in conn.execute(f"SELECT p.id, p.slug, p.title, p.type, p.size FROM pages p WHERE {idin}")}
    if len(meta) < len(ids):
        # the index names a page row that is not there (the index is damaged, the pages are not):
        # those hits are left out, and said once
        missing = [i for i in ids if i not in meta]
        refuse_if_damaged(conn)  # (rows of a damaged pages table go missing without an error)
        if warn is not None:
            warn(stale_index_warning(len(missing)))
        ranked = [h for h in ranked if h["id"] in meta]
        ids = [i for i in ids if i in meta]
    if not is_postgres(conn):
        # (a query with CJK text is marked in Python: the engine marks a CJK word only where it
        # stands alone, not inside a run, where its bigrams matched)
        small = [i for i in ids if meta[i]["size"] <= SNIPPET_MAX_CHARS] if not cjk else []
    found: set[int] = set()
    if small:
        # FTS5 marks the hits of the whole text (highlight(): linear in the text; snippet() is
        # quadratic-ish in the hits of a document, and cuts link syntax); pages over
        # SNIPPET_MAX_CHARS are marked in Python instead. A row is a page whose body matches:
        # its body signal
        body_of = body or (_body_only(q), math.inf, 1)
        for i, text in _body_rows(conn, body_of, small, marked=True):
            found.add(i)
            if HIT_ON in text and not _LETTERS.search(text):  # (as on Postgres, above; each mark over whole words: _whole_marks)
                snip[i] = snippet_of(_whole_marks(written(i, text), query))
    if body is not None:
        _with_body_signal(conn, ranked, body, set(small), found)
    big = [i for i in ids if i not in snip]
    if big:
        pg = is_postgres(conn)
        words = _meaning_words(marks) if pg else marks  # (Postgres: meaningful words only, no stop words)
        for r in conn.execute(f"SELECT id, title, size, frontmatter_raw, {_INDEXED_TEXT.format(sep='char(10)')} AS head FROM pages WHERE id IN ({','.join(map(str, big))})"):
            marked = _mark_words(r["head"], words, phrase=query) if pg or r["size"] > SNIPPET_MAX_CHARS or _matches_text(r["head"], marks) else None
            if marked is not None:
                snip[r["id"]] = snippet_of(written(r["id"], marked))
            else:  # found by a property's words alone (search_words): that property
                snip[r["id"]] = _property_snippet(r["frontmatter_raw"] or "", words) or (
                    snippet_of(_NOT_SHOWN.sub("", written(r["id"], r["head"])[: 4 * SNIPPET_WIDTH])) if pg or r["size"] > SNIPPET_MAX_CHARS else {"snippet": r["title"], "highlights": []})
    none = {"snippet": "", "highlights": []}
    return [
        {"slug": meta[h["id"]]["slug"], "title": meta[h["id"]]["title"], "type": meta[h["id"]]["type"], "score": score_value(h["score"]), **snip.get(h["id"], none), "signals": h["signals"]}
        for h in ranked
    ]


def _spelled_words(query: str, spelled: "str | Sequence[str] | None") -> str:
    """``query`` (a :func:`search_form`) followed by the words of its other spellings the index
    holds (:func:`phrase_spellings`' ``(typed, *others)``) that it does not write: the words a
    snippet marks in Python (``"djordje balasevic"`` found as ``"đorđe balasevic"``: ``đorđe``,
    which folds to ``dorde``, as *Đorđe* does; ``djordje`` never meets it). ``query`` itself when
    ``spelled`` is one spelling (a string or ``None``): no cost for a query without such a phrase."""
    if isinstance(spelled, str) or not spelled or len(spelled) < 2:
        return query
    have = {w.casefold() for w in _WORD.findall(query)}
    extra = [w for s in spelled[1:] for w in _WORD.findall(search_form(s)) if w.rstrip("*") and w.casefold() not in have]
    return query + " " + " ".join(dict.fromkeys(extra)) if extra else query


def _matches_text(text: str, query: str) -> bool:
    """Whether a meaningful word of ``query`` (:func:`query_words`) is in ``text``, case folded
    (and compatibility and accent folded, :func:`search_form`, :func:`fold_accents`, when
    ``text`` is not NFKC or holds a letter :func:`fold_letters` spells in ASCII)."""
    # (a Russian word is searched as its stem's prefix: _terms; ``игрушкам`` is in ``игрушки``'s text)
    words = [russian.prefix(w) or w if w.casefold() not in STOP_WORDS else w for w in query_words(search_form(query))]
    low = text.casefold()
    if any(w in low for w in words):
        return True
    # (accents folded too, as the tokenizer folds them: ``lodz`` is in ``Łódź``)
    if _no_compat_words(text):
        return False
    folded = fold_accents(search_form(text)).casefold()
    return any(fold_accents(w) in folded for w in words)


#: scripts written without spaces between words (CJK, kana, Thai, …): unicode61 makes one token of
#: a whole run, so a word inside it never matches; those queries fall back to substring search
_UNSPACED = re.compile(r"[\u0e00-\u0e7f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")


#: a query of ASCII punctuation and blanks only (``[ ]``, ``- [ ]``, ``=>``): looked for as one
#: string, as typed; its parts one by one are in most pages (every link holds ``[`` and ``]``)
_PUNCTUATION_ONLY = re.compile(r"[\s!-/:-@\[-`{-~]+")


#: a task box checked with either letter (Obsidian and GitHub read ``[x]`` and ``[X]`` alike)
_CHECKED_BOX = re.compile(r"\[[xX]\]")


def task_box_query(query: str) -> bool:
    """Whether ``query`` is a checked task box with punctuation and blanks only around it
    (``[x]``, ``- [X]``, ``"[x]"``): looked for as one string, as ``[ ]`` is
    (:func:`_substring_parts`), in either case (:func:`_spellings`), never as the word ``x``."""
    return bool(_CHECKED_BOX.search(query)) and _PUNCTUATION_ONLY.fullmatch(_CHECKED_BOX.sub("[ ]", query)) is not None


def _spellings(part: str) -> list[str]:
    """The spellings substring search accepts for ``part``: itself, and for a checked task box
    (:func:`task_box_query`) the same with the box's letter in the other case."""
    if not task_box_query(part):
        return [part]
    return list(dict.fromkeys((part, _CHECKED_BOX.sub("[x]", part), _CHECKED_BOX.sub("[X]", part))))


def _substring_parts(query: str) -> list[str]:
    """The whitespace-separated parts of ``query`` that substring search looks for (quotes and
    prefix stars dropped; a query of nothing else, such as ``*``, is looked for as written). A
    query of ASCII punctuation and blanks only is one part, itself without its outer blanks and
    quotes (``[ ]`` finds an open task box ``- [ ]``, not every page holding ``[`` and ``]``)."""
    if _PUNCTUATION_ONLY.fullmatch(query):
        whole = query.strip().strip('"').strip()
        if whole:
            return [whole]
    return [p.strip("*") for p in query.replace('"', " ").split() if p.strip("*")] or query.split()


def _substring_rows(conn: sqlite3.Connection, query: str, only: PageFilter, limit: int) -> list[tuple[sqlite3.Row, float]]:
    """``[(page row, score)]`` of pages containing every whitespace-separated part of ``query``
    as a substring, best first, scored by the number of occurrences (title hits count ×5)
    (:func:`_substring_match`)."""
    return _substring_match(conn, query, only, limit)[1]


def _substring_match(conn: sqlite3.Connection, query: str, only: PageFilter, limit: int) -> tuple[str, list[tuple[sqlite3.Row, float]]]:
    """``(spelling, rows)``: :func:`_substring_rows_of` for the query's :func:`search_form`
    (half-width ``ｶﾀｶﾅ`` finds ``カタカナ``), else, when that finds nothing, for the query as
    given (``ｶﾀｶﾅ`` as written); ``spelling`` is the one that found the rows."""
    folded = search_form(query)
    rows = _substring_rows_of(conn, folded, only, limit)
    if rows or folded == query:
        return folded, rows
    return query, _substring_rows_of(conn, query, only, limit)


def _substring_rows_of(conn: sqlite3.Connection, query: str, only: PageFilter, limit: int) -> list[tuple[sqlite3.Row, float]]:
    """:func:`_substring_rows` for ``query`` exactly as given."""
    parts = _substring_parts(query)
    if not parts:
        return []
    alts = [_spellings(p) for p in parts]
    sql = "SELECT p.id, p.slug, p.title, p.type, p.compiled_truth, p.timeline FROM pages p"
    where = " AND ".join("(" + " OR ".join("instr(p.title || ' ' || p.compiled_truth || ' ' || p.timeline, ?) > 0" for _ in a) + ")" for a in alts)
    cond, oargs = only.sql()
    args: list = [*(s for a in alts for s in a), *oargs]
    sql += " WHERE " + where + cond
    out = []
    for r in conn.execute(sql, args):
        body = r["compiled_truth"] + " " + r["timeline"]
        out.append((r, float(sum(body.count(p) + 5 * r["title"].count(p) for a in alts for p in a))))
    out.sort(key=lambda rs: (-rs[1], rs[0]["slug"]))
    return out[:limit]


def _substring_search(conn: sqlite3.Connection, query: str, only: PageFilter, limit: int) -> list[dict]:
    """:func:`_substring_rows` as search hits (with a snippet around the first part). Used when
    FTS5 finds nothing for CJK text or symbols. ``score`` is the page's occurrences relative to
    the best hit's (the best scores 1, as the best BM25 match does in :func:`search`);
    ``signals`` is ``title`` and/or ``body``, where a part was found."""
    hits = []
    query, rows = _substring_match(conn, query, only, limit)
    parts = [s for p in _substring_parts(query) for s in _spellings(p)]
    firsts = _spellings((_substring_parts(query) or [""])[0])
    best = max((sc for _, sc in rows), default=0.0) or 1.0
    for r, score in rows:
        body = r["compiled_truth"] + "\n" + r["timeline"]
        # the first part in the spelling this page holds first (a checked box: [x] or [X])
        i, first = min(((body.find(f), f) for f in firsts if f in body), default=(-1, firsts[0]))
        if i >= 0:
            a = body.rfind("\n", 0, max(0, i - 2000)) + 1
            e = body.find("\n", i + 2000)
            region = _NOT_SHOWN.sub("", body[a : len(body) if e < 0 else e])
            snip = snippet_of(region.replace(first, HIT_ON + first + HIT_OFF) if first and "*" not in first else region)
        else:
            snip = {"snippet": r["title"], "highlights": []}
        signals = [f for f, text in (("title", r["title"]), ("body", body)) if any(p in text for p in parts)]
        hits.append({"slug": r["slug"], "title": r["title"], "type": r["type"], "score": score_value(score / best), **snip, "signals": signals})
    return hits


def keyword_candidates(conn: sqlite3.Connection, query: str, *, type: str | None = None, limit: int = 100, weights: tuple[float, ...] | None = None,
                       coordinate: bool = True, tag: str | None = None, prefix: str | None = None, facts: dict | None = None,
                       since: str | None = None) -> list[dict]:
    """``[{id, score, signals}]`` of the best ``limit`` pages for ``query``, best first: the same
    ranking as :func:`search` (:func:`rank`), without snippets, and the same substring fallback
    for CJK text and symbols (``score``: occurrences, ``signals``: ``["body"]``);
    ``coordinate=False``: without the coordination factor (:func:`rank`); ``type``, ``tag``,
    ``prefix``, ``facts``, ``since``: those of :func:`rank`."""
    if limit <= 0 or empty_query(query):
        return []
    query = unicodedata.normalize("NFC", query or "")  # the form pages are indexed in (see search)
    facts = {} if facts is None else facts  # (dj_spelled's query as typed, for rank: DJ_TYPED)
    query = dj_spelled(conn, harakat_bare(conn, query, facts), facts)  # (as in search)
    has_words = bool(fts_query(search_form(query))) and not task_box_query(query)  # (rank reads the query's search_form)
    out = rank(conn, facts.get((DJ_RANKED, query), query), type=type, limit=int(limit), weights=weights, coordinate=coordinate, tag=tag, prefix=prefix,
               facts=facts, since=since) if has_words else []
    loose = cjk_loosened(search_form(query)) if has_words and not out else None
    if loose:  # as in search(): a CJK run no page holds as written, its words apart
        out = rank(conn, loose, type=type, limit=int(limit), weights=weights, coordinate=coordinate, tag=tag, prefix=prefix, facts=facts, since=since)
    if not out and (not has_words or _UNSPACED.search(search_form(query))):
        # as in search(): a word inside a CJK run is no FTS5 token; symbols are no word at all
        return [{"id": int(r["id"]), "score": sc, "signals": ["body"]} for r, sc in _substring_rows(conn, query or "", PageFilter(type, tag, prefix, since), int(limit))]
    return out


def fts_candidates(conn: sqlite3.Connection, query: str, *, type: str | None = None, limit: int = 100, weights: tuple[float, ...] | None = None,
                   coordinate: bool = True, tag: str | None = None, prefix: str | None = None) -> list[tuple[int, float]]:
    """:func:`keyword_candidates` as ``[(page_id, score)]``."""
    return [(h["id"], h["score"]) for h in keyword_candidates(conn, query, type=type, limit=limit, weights=weights, coordinate=coordinate,
                                                              tag=tag, prefix=prefix)]


#: the highest score of a canvas hit: a page's body score (1 for the best page) plus its name evidence (:data:`NAME_WEIGHT`)
CANVAS_MAX = 1.0 + NAME_WEIGHT
#: the cards one canvas search reads at most (best BM25 first), before grouping by canvas
CANVAS_CARDS_READ = 200

#: the search statistics' column of what canvases a brain holds (:func:`rank`'s ``facts["canvas"]``,
#: :func:`canvas_hits`' ``present``): 1 some card is stored, 2 no card but a canvas (its name
#: may still be named by the query: an empty one, :func:`_canvas_names`), 0 none. A ``CASE``:
#: the files are read only in a brain with no card, through the partial index of canvas paths
#: (``idx_files_canvas``, SQLite v86 / Postgres v94, whose ``WHERE`` is this ``LIKE`` term)
CANVAS_FACT_SQL = ("CASE WHEN EXISTS (SELECT 1 FROM canvas_cards) THEN 1 "
                   "WHEN EXISTS (SELECT 1 FROM files WHERE path LIKE '%.canvas') THEN 2 ELSE 0 END")


def canvas_hits(conn, query: str, *, limit: int, prefix: str | None = None, top: float | None = None, present: bool | None = None,
                facts: dict | None = None) -> list[dict]:
    """The stored canvases whose text cards or group labels (``canvas_cards``, docs/storage.md
    "Canvases") hold words of ``query``, best first, each once by its best card:
    ``[{slug (the canvas's path), title (its file name), type "canvas", node (the card's id),
    score, snippet, highlights, signals ["canvas"]}]``. ``score`` is BM25 (each card a document
    of its own length, FTS5's k1 and b; a term's IDF that of the pages and cards together, so a
    word is as rare in a card as in the brain) times the coordination factor of the query's terms
    the card holds (:func:`_coord`), over ``top``: the best page's coordinated BM25 (:func:`_rank`'s
    ``top``: a page's body score is its BM25 over it), else the best card's: the scale of a page
    matched in its body, at most :data:`CANVAS_MAX`. ``prefix``: only the canvases under that folder.
    ``present``: whether any card is stored, when the ranking read it (:func:`rank`'s ``facts``,
    :data:`CANVAS_FACT_SQL`: a brain without canvases pays no statement for them; 2: no card, but
    a canvas, found by its name alone); ``None``: read here. A canvas the query names with no
    card (an empty one) is a hit of its own: ``node`` None, no snippet. ``facts``: the
    ranking's (a phrase's spellings read once a search, :func:`phrase_spellings`' ``memo``)."""
    from ..page.slugs import slug_key
    from ..storage.filters import folder_key

    query = unicodedata.normalize("NFC", query or "")
    folded = search_form(query)
    parts = [_card_part(p) for p in fts_parts(folded)]
    if not parts or limit <= 0 or (present is not None and not present):
        return []
    # (a quoted phrase as typed and as the index spells it too, as for pages: fts_parts)
    spelled = phrase_spellings(conn, folded, typed_form(query), facts)
    parts = [_card_part(p) for p in fts_parts(folded, spelled)]
    try:
        if present is None and not conn.execute("SELECT 1 FROM canvas_cards LIMIT 1").fetchone():
            present = 2  # (no card: a canvas named by the query is still one)
    except Exception:  # a brain before v43 (a read-only file of an older schema)
        return []
    pg = is_postgres(conn)
    cards = [] if present == 2 else _canvas_cards_pg(conn, folded, spelled) if pg else _canvas_cards_sqlite(conn, parts)
    under = folder_key(prefix) if prefix else None
    best: dict[str, dict] = {}
    for c in cards:
        if under is not None and not slug_key(c["path"]).startswith(under):
            continue
        h = best.get(c["path"])
        if h is None or c["score"] > h["score"]:
            best[c["path"]] = c
    scale = top or max((c["score"] for c in best.values()), default=0.0) or 1.0
    named = _canvas_names(conn, query, under)
    for path, (_bonus, card) in named.items():
        if path not in best:  # (named, no card holding the words: its first card shown; no card at all: none)
            best[path] = {"id": card[0], "node": card[1], "text": card[2], "path": path, "score": 0.0} if card is not None else \
                {"id": None, "node": None, "text": "", "path": path, "score": 0.0}
    for c in best.values():  # (at most CANVAS_MAX: a card whose words are far rarer than the best page's still ranks below a page the query names)
        c["score"] = min(c["score"] / scale, CANVAS_MAX) + named.get(c["path"], (0.0,))[0]
    out = sorted(best.values(), key=lambda c: (-c["score"], c["path"]))[:limit]
    ids = [c["id"] for c in out if c.get("id") is not None] if not pg else []
    if ids and not pg:  # the hits' cards marked by FTS5 (the words it matched, stems too)
        marked = dict(conn.execute(f"SELECT rowid, highlight(canvas_fts, 0, ?, ?) FROM canvas_fts WHERE canvas_fts MATCH ? "
                                   f"AND rowid IN ({','.join(str(int(i)) for i in ids)})", (HIT_ON, HIT_OFF, " OR ".join(parts))))
        for c in out:
            c["marked"] = marked.get(c["id"])
    hits = []
    for c in out:
        snip = snippet_of(c["marked"]) if c.get("marked") and HIT_ON in c["marked"] else _cut_snippet(c["text"], _meaning_words(query) if pg else query)
        name = c["path"].rsplit("/", 1)[-1]
        hits.append({"slug": c["path"], "title": name[: -len(".canvas")] if name.lower().endswith(".canvas") else name, "type": "canvas",
                     "node": c["node"], "score": score_value(c["score"]), **snip, "signals": ["canvas", "title"] if c["path"] in named else ["canvas"]})
    return hits


def canvases_named(conn, words: list[str]) -> Iterator[tuple[str, str, set[str]]]:
    """The stored canvases whose name (the file name but ``.canvas``, as a page's title) holds
    every one of ``words`` (:func:`query_words`' casefolded words, each as :func:`names_word`
    reads a name): ``(path, name, the name's words)`` in table order, one statement over the
    files' paths ending ``.canvas``. What :func:`_canvas_names` ranks by and
    :func:`gbrain.search.spell.holds` counts as held (no typo)."""
    for (path,) in conn.execute("SELECT path FROM files WHERE lower(path) LIKE '%.canvas'"):
        name = path.rsplit("/", 1)[-1][: -len(".canvas")]
        held = name_words(name)
        if held and all(names_word(w, held) for w in words):
            yield path, name, held


def _canvas_names(conn, query: str, under: str | None) -> dict[str, tuple[float, tuple | None]]:
    """The canvases whose name (the file name but ``.canvas``, as a page's title) holds every
    word of ``query`` (:func:`query_words`, each as :func:`names_word` reads a name), under the
    folder key ``under`` when given: ``{path: (bonus, (card id, node, text) of its first card or
    None)}``. ``bonus``: :data:`NAME_WEIGHT` times the name's precision (:func:`_precision`: the
    query's words over the name's), plus :data:`EXACT_WEIGHT` when the name is the query (folded:
    :func:`search_form`, case): a canvas was found by its cards' words only, so ``Roadmap.canvas``
    was no hit for "roadmap" (its cards never say it) and ranked below the page *Q3 roadmap*.
    The canvases from :func:`canvases_named`."""
    from ..page.slugs import slug_key

    words = query_words(search_form(query))
    if not words:
        return {}
    want = " ".join(search_form(query).split()).casefold()
    bonus: dict[str, float] = {}
    for path, name, held in canvases_named(conn, words):
        if under is not None and not slug_key(path).startswith(under):
            continue
        exact = " ".join(search_form(name).split()).casefold() == want
        bonus[path] = NAME_WEIGHT * _precision(len(words), len(held)) + (EXACT_WEIGHT if exact else 0.0)
    if not bonus:
        return {}
    first: dict[str, tuple] = {}
    marks = ",".join("?" * len(bonus))
    for r in conn.execute(f"SELECT f.path, c.id, c.node, c.text FROM canvas_cards c JOIN files f ON f.id = c.file_id "
                          f"WHERE f.path IN ({marks}) ORDER BY c.id", list(bonus)):
        first.setdefault(r[0], (r[1], r[2], r[3]))
    return {path: (b, first.get(path)) for path, b in bonus.items()}


def _canvas_cards_sqlite(conn, parts: list[str]) -> list[dict]:
    n_rows = conn.execute("SELECT count(*) FROM canvas_cards").fetchone()[0]
    rows = conn.execute(
        "SELECT c.id, c.node, coalesce(c.search, c.text), f.path, -bm25(canvas_fts) AS s "
        "FROM canvas_fts JOIN canvas_cards c ON c.id = canvas_fts.rowid JOIN files f ON f.id = c.file_id "
        "WHERE canvas_fts MATCH ? ORDER BY bm25(canvas_fts) LIMIT ?", (" OR ".join(parts), CANVAS_CARDS_READ)).fetchall()
    if not rows:
        return []
    cand = {r[0] for r in rows}
    held: dict[int, float] = {}
    bm: dict[int, float] = {}
    total = 0.0
    n_pages, memo = _fts_rows(conn), {}
    for p in parts:
        # each term's BM25 part, FTS5's own (IDF of the cards alone), then with the IDF of the pages
        # and cards together; and the coordination factor: the IDF-weighted share of the terms a card holds
        df = conn.execute("SELECT count(*) FROM canvas_fts WHERE canvas_fts MATCH ?", (p,)).fetchone()[0]
        df_all = df + _match_count(conn, _page_part(p), memo)
        own, idf, w = _fts_idf(n_rows, df), _fts_idf(n_rows + n_pages, df_all), _coord_idf(n_rows + n_pages, df_all)
        total += w
        # (every card the term matches, kept when a candidate: FTS5 answers `rowid IN (…)` with a MATCH per rowid, ~30× slower here)
        for i, part in conn.execute("SELECT rowid, -bm25(canvas_fts) FROM canvas_fts WHERE canvas_fts MATCH ?", (p,)):
            if i not in cand:
                continue
            held[i] = held.get(i, 0.0) + w
            bm[i] = bm.get(i, 0.0) + part / own * idf
    return [{"id": r[0], "node": r[1], "text": r[2], "path": r[3],
             "score": bm.get(r[0], 0.0) * (_coord(held.get(r[0], 0.0) / total) if total else 1.0)} for r in rows]


#: BM25's constants (FTS5's)
_K1, _B = 1.2, 0.75


#: a canvas card's BM25 length on Postgres: its lexemes of weight D, the 'english' stems and words
#: (pg_v82 adds the text's stop words as written at weight A: counted as before, so an ordinary
#: query's scores stay; a card of an older schema is all D)
_CARD_LEN = "length(ts_filter(tsv, '{d}'))"
#: ``ts_rank`` weights ``{D, C, B, A}`` choosing the cards :func:`_canvas_cards_pg` reads: a card's
#: words (D) as by the default weights, its stop words (A since pg_v82) next to nothing, so a
#: stop word ``search`` keeps (``now``, ``before``: no :data:`STOP_WORDS`), held by most cards, never
#: pushes a card of the query's other words out of the :data:`CANVAS_CARDS_READ` read (the default
#: weights count A 10× D)
_CARD_PICK_WEIGHTS = "'{0.1, 0.2, 0.4, 0.0001}'::float4[]"


def _canvas_cards_pg(conn, query: str, spelled: "str | Sequence[str] | None" = None) -> list[dict]:
    """The cards of :func:`canvas_hits` on Postgres: BM25 computed from the cards' tsvectors (a
    term's frequency: its lexemes' positions; a card's length: its lexemes, :data:`_CARD_LEN`, as
    reading every position of every card for the average cost ~50 ms a query on 3,100 cards); a
    term's IDF over the pages (``search_totals``, ``gb_match_count``) and cards together, read
    in one statement. ``query``: in :func:`search_form`; ``spelled``: as :func:`pg_parts` takes it."""
    parts = pg_parts(query, spelled)
    syntax = _pg_syntax(parts)
    tsq, targs = _pg_parts_tsquery(parts) if syntax else _pg_tsquery(query_words(query, _pg_word_rx(query)))
    if not targs:
        return []
    ones = [_pg_parts_tsquery([p]) for p in parts]
    stats = conn.execute(
        f"SELECT s.pages, (SELECT count(*) FROM canvas_cards), (SELECT coalesce(avg({_CARD_LEN}), 0) FROM canvas_cards)"
        + "".join(f", gb_match_count({q}) + (SELECT count(*) FROM canvas_cards WHERE tsv @@ {q})" for q, _ in ones) + " FROM search_totals s",
        [x for _, a in ones for x in (*a, *a)]).fetchone()
    n_pages, n_rows, avgdl, dfs = int(stats[0]), int(stats[1]), float(stats[2] or 0), [int(x) for x in stats[3:]]
    rows = conn.execute(
        f"SELECT c.id, c.node, coalesce(c.search, c.text), f.path, {_CARD_LEN.replace('tsv', 'c.tsv')} AS dl "
        f"FROM canvas_cards c JOIN files f ON f.id = c.file_id WHERE c.tsv @@ {tsq} ORDER BY ts_rank({_CARD_PICK_WEIGHTS}, c.tsv, {tsq}) DESC, c.id LIMIT ?",
        [*targs, *targs, CANVAS_CARDS_READ]).fetchall()
    if not rows:
        return []
    ids = ",".join(str(int(r[0])) for r in rows)
    score = {int(r[0]): 0.0 for r in rows}
    held = {int(r[0]): 0.0 for r in rows}
    dl = {int(r[0]): float(r[4] or 0) for r in rows}
    total = 0.0
    avgdl = avgdl or 1.0
    for (kind, text), (one, oargs), df in zip(parts, ones, dfs):  # a term's IDF: that of the pages and cards together
        idf, w = _fts_idf(n_rows + n_pages, df), _coord_idf(n_rows + n_pages, df)
        total += w
        if kind == "word":
            tf = dict(conn.execute(
                f"SELECT c.id, sum(array_length(u.positions, 1)) FROM canvas_cards c CROSS JOIN LATERAL unnest(c.tsv) u WHERE c.id IN ({ids}) "
                "AND u.lexeme = ANY(tsvector_to_array(to_tsvector('english', gb_fold(?)) || to_tsvector('simple', gb_fold(?)))) GROUP BY c.id",
                (text, text)).fetchall())
        else:  # a phrase, prefix or date: once where it matches
            tf = {int(i): 1 for (i,) in conn.execute(f"SELECT id FROM canvas_cards WHERE id IN ({ids}) AND tsv @@ {one}", oargs)}
        for i, f in tf.items():
            f = float(f or 0)
            if f <= 0:
                continue
            i = int(i)
            score[i] += idf * f * (_K1 + 1) / (f + _K1 * (1 - _B + _B * dl[i] / avgdl))
            held[i] += w
    return [{"node": r[1], "text": r[2], "path": r[3],
             "score": score[int(r[0])] * (_coord(held[int(r[0])] / total) if total else 1.0)} for r in rows]


def canvas_card_rows(data: bytes | None) -> list[tuple[str, str, str, str | None, str]]:
    """The ``canvas_cards`` rows of a canvas's bytes, ``[(node, kind, text, search, words)]``: its
    cards as Python reads them (:func:`gbrain.page.canvas.canvas_cards`), the same on both engines;
    ``search``, the text the index reads in place of ``text``, as a page's (:func:`search_text`:
    a link's address blanked; None where nothing is); ``words``, the extra words a page's index
    holds for such text (:func:`card_words`). None for ``None`` (a canvas stored in pieces, over
    ``blobs.BIG``: never read whole)."""
    from ..page.canvas import canvas_cards

    out = []
    for node, kind, text in canvas_cards(data) if data else ():
        search = search_text(text)
        out.append((node, kind, text, search, card_words(text if search is None else search)))
    return out


def card_words(text: str) -> str:
    """The extra index words of a canvas card's indexed text (``canvas_cards.words``), as a page
    has them for its compiled truth: the CJK bigrams of its CJK runs (:func:`cjk_bigrams`, a page's
    ``search_cjk``: a word inside a run is the phrase of its bigrams, :func:`_cjk_terms`), then
    the words glued to CJK text and the compatibility words (:func:`search_words` with no
    frontmatter, a page's ``search_words``); ``''`` for ASCII text."""
    if text.isascii():
        return ""
    return " ".join(x for x in (cjk_bigrams(text), search_words(text, "", {})) if x)


def write_canvas_cards(conn, file_id: int, data: bytes | None) -> int:
    """Replace the ``canvas_cards`` rows of stored file ``file_id`` by those of ``data``
    (:func:`canvas_card_rows`), in the caller's transaction (``canvas_fts`` follows by its
    triggers; Postgres' ``tsv`` by one). Returns the rows written."""
    conn.execute("DELETE FROM canvas_cards WHERE file_id = ?", (int(file_id),))
    rows = canvas_card_rows(data)
    insert_canvas_cards(conn, [(int(file_id), *r) for r in rows])
    return len(rows)


#: rows per statement of :func:`insert_canvas_cards` (6 values each, under SQLite's variable limit)
CARDS_PER_INSERT = 500


def insert_canvas_cards(conn, rows: list[tuple]) -> None:
    """Insert ``canvas_cards`` rows ``(file_id, node, kind, text, search, words)``, in order, with
    one multi-row statement per :data:`CARDS_PER_INSERT` rows: FTS5 writes its pending terms out at
    every statement's savepoint, so a row per statement (``executemany``) cost 3-4× the CPU
    (3,100 cards: 100-170 ms against 30-35 ms in one statement)."""
    for i in range(0, len(rows), CARDS_PER_INSERT):
        part = rows[i : i + CARDS_PER_INSERT]
        conn.execute("INSERT INTO canvas_cards(file_id, node, kind, text, search, words) VALUES " + ", ".join(["(?, ?, ?, ?, ?, ?)"] * len(part)),
                     [v for r in part for v in r])
