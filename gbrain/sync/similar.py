"""How alike two versions of a note are, for pairing a moved *and edited* note with its old path.

Pure functions (no I/O, no database): :class:`gbrain.sync.engine.SyncEngine` reads the texts of the
pages gone from disk and of the notes new on disk in one round, :func:`candidates` picks the few
pairs worth scoring, :func:`similarity` scores them, and :func:`gbrain.sync.plan.decide` pairs
them (best first, one to one, at :data:`SIMILAR_MIN` or more).

The measure is git's idea of a rename ("similarity index", ``git diff -M``, default 50%: the share
of the bytes of the two files that are the same), computed with the standard library's
:mod:`difflib` at two levels so that it stays cheap and still sees a one-character edit:
``SequenceMatcher`` over the lines of both texts finds the blocks of identical lines (fast: it
hashes lines), and each block of replaced lines is compared again character by character (a
rewritten link ``(../Other.md)`` → ``(Other.md)`` costs its few characters, not its whole line, which
matters for short notes: git's line measure gives a two-line note with one link rewritten 28%).
The score is ``2 × matching characters / (len(a) + len(b))``, difflib's ``ratio``, in 0…1.
difflib fits: it is in the standard library, deterministic, and ``ratio`` is the textbook
measure; no third-party diff library would change the answer, only its speed, and the line level
keeps that bounded (figures in docs/sync.md, ``benchmarks/move_pairing.py``).
"""
from __future__ import annotations

import difflib
import posixpath
import re
from typing import Iterable, Mapping

#: a new note pairs with a vanished one when its similarity is at least this (measured: see
#: docs/sync.md; git's default rename threshold is 0.5)
SIMILAR_MIN = 0.6
#: a note that kept its inode (``mv``, a rename in Obsidian) pairs with its old path down to this
#: similarity, git's default (an inode the file system gave again to an unrelated new note: unrelated
#: make_brain notes score at most 0.43, docs/sync.md)
INODE_MIN = 0.5
#: a replaced block of lines longer than this (characters, either side) is compared word by word,
#: not character by character (difflib is quadratic in the worst case: this bounds its work)
CHAR_BLOCK = 400
_WORD = re.compile(r"\S+\s*|\s+")
#: at most this many vanished notes are scored per new note (the ones sharing the most rare lines)
SHORTLIST = 4
#: a candidate scoring this much ends the scoring of a new note's shortlist
SURE = 0.9
#: a line present in more than this many vanished notes says nothing about which one moved
COMMON_LINE = 8
#: a vanished note is shortlisted by its lines only when the rare lines it shares make up at
#: least this share of the new note's characters (an unrelated note sharing a name or a date
#: line is not worth a comparison; a moved and edited note shares most of its lines)
MIN_SHARED = 0.1
#: a pair is scored only when its two texts share a line of at least this many characters
MIN_LINE = 3
#: below this many characters (the shorter text) a pair needs a shared line (:func:`evidence`)
SHORT = 64


def similarity(a: str, b: str) -> float:
    """difflib's ``ratio`` of ``a`` and ``b`` (0…1), computed over lines and then within each
    replaced block of lines: character by character when both sides are at most
    :data:`CHAR_BLOCK` characters, else word by word (a word with the white space after it, its
    characters counted). 1.0 for equal texts, 0.0 when one is empty and the other not.
    Deterministic; raises nothing."""
    if a == b:
        return 1.0
    total = len(a) + len(b)
    if not a or not b:
        return 0.0
    la, lb = a.splitlines(keepends=True), b.splitlines(keepends=True)
    sm = difflib.SequenceMatcher(None, la, lb, autojunk=False)
    same = 0
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            same += sum(len(x) for x in la[i1:i2])
        elif tag == "replace":
            xa, xb = "".join(la[i1:i2]), "".join(lb[j1:j2])
            if len(xa) <= CHAR_BLOCK and len(xb) <= CHAR_BLOCK:
                m = difflib.SequenceMatcher(None, xa, xb, autojunk=False)
                same += sum(blk.size for blk in m.get_matching_blocks())
            else:
                wa, wb = _WORD.findall(xa), _WORD.findall(xb)
                m = difflib.SequenceMatcher(None, wa, wb)
                same += sum(len(w) for blk in m.get_matching_blocks() for w in wa[blk.a : blk.a + blk.size])
    return 2.0 * same / total


def size_bound(na: int, nb: int) -> float:
    """The highest similarity two texts of ``na`` and ``nb`` characters can have."""
    if na + nb == 0:
        return 1.0
    return 2.0 * min(na, nb) / (na + nb)


def _lines(text: str) -> set[str]:
    return {x.strip() for x in text.splitlines() if x.strip()}


def shortlist(gone: Mapping[str, str], new: Mapping[str, str], threshold: float = SIMILAR_MIN) -> dict[str, list[str]]:
    """For each new note (``new``: path → text), the vanished notes (``gone``: path → text) worth
    scoring, most promising first: up to :data:`SHORTLIST` sharing the most characters of rare
    lines with it, at least :data:`MIN_SHARED` of its characters (a line found in more than
    :data:`COMMON_LINE` vanished notes, a template's ``type: person``, is not counted), then
    those with the same file name; only notes whose size
    allows ``threshold`` (:func:`size_bound`). Deterministic (ties by path). Cost: one pass over
    the lines of every text plus dictionary look-ups; no text is compared here."""
    index: dict[str, list[str]] = {}
    by_name: dict[str, list[str]] = {}
    for q in sorted(gone):
        for ln in _lines(gone[q]):
            index.setdefault(ln, []).append(q)
        by_name.setdefault(posixpath.basename(q).casefold(), []).append(q)
    out: dict[str, list[str]] = {}
    for p in sorted(new):
        n = len(new[p])
        shared: dict[str, int] = {}
        for ln in _lines(new[p]):
            qs = index.get(ln)
            if qs is None or len(qs) > COMMON_LINE:
                continue
            for q in qs:
                shared[q] = shared.get(q, 0) + len(ln)
        picked = [q for q in sorted(shared, key=lambda q: (-shared[q], q))
                  if shared[q] >= MIN_SHARED * n and size_bound(len(gone[q]), n) >= threshold][:SHORTLIST]
        picked += [q for q in by_name.get(posixpath.basename(p).casefold(), ()) if q not in picked and size_bound(len(gone[q]), n) >= threshold]
        if picked:
            out[p] = picked
    return out


def evidence(a: str, b: str) -> float:
    """:func:`similarity`, but 0.0 when the shorter text has fewer than :data:`SHORT` characters
    and the two share no line (stripped, at least :data:`MIN_LINE` characters): two short notes
    alike by coincidence (``# N3`` and ``# New`` match in 4 of their 5 and 6 characters, 0.73)
    are no evidence of a move, while a short note moved and edited keeps some line (its title)
    as it was. Past :data:`SHORT` characters coincidence stays far below the thresholds
    (unrelated make_brain notes: at most 0.43), so a one-paragraph note with a link rewritten
    still pairs."""
    if a != b and min(len(a), len(b)) < SHORT and not any(len(x) >= MIN_LINE for x in _lines(a) & _lines(b)):
        return 0.0
    return similarity(a, b)


def score_pairs(gone: Mapping[str, str], new: Mapping[str, str], short: Mapping[str, list[str]], extra: Iterable[tuple[str, str]] = ()) -> dict[tuple[str, str], float]:
    """``{(gone path, new path): score}`` (:func:`evidence`): every ``extra`` pair (same inode),
    and each new note's :func:`shortlist` in order until one scores :data:`SURE` or more (a note
    edited a little; its other candidates are not scored). Deterministic."""
    out: dict[tuple[str, str], float] = {}
    for q, p in extra:
        if q in gone and p in new:
            out[(q, p)] = evidence(gone[q], new[p])
    for p in sorted(short):
        for q in short[p]:
            sc = out.get((q, p))
            if sc is None:
                sc = out[(q, p)] = evidence(gone[q], new[p])
            if sc >= SURE:
                break
    return out
