"""Stale saves: an editor saving a buffer older than what gbrain last wrote to the file.

Under ``gbrain watch`` an agent's write reaches the file (brain → file) while an editor still
holds the file's older text; when the editor then saves its buffer (plus what the person typed),
the plain three-way rule sees "file changed, brain unchanged since the base" and the file wins:
the agent's write would vanish from the page with no conflict. The engine therefore asks, for a
file change whose base was written by gbrain (:meth:`gbrain.sync.engine.SyncEngine._stale_view`
gathers the versions), which version the saved bytes were based on, and merges three ways.

Everything here is pure (bytes in, bytes out; no I/O) so it can be tested on its own
(``tests/test_stale_save.py``). Lines are compared as exact byte strings with their line endings
(``bytes.splitlines(keepends=True)``), so a merge keeps every byte of both sides as written.

Why no library: ``merge3`` (breezy's, the usual choice in Python) is GPL-2.0-or-later and gbrain
is MIT; ``three-merge`` merges characters with no notion of a conflict. The merge below is the
textbook diff3 over :class:`difflib.SequenceMatcher` opcodes (stdlib): each side's changes
against the ancestor are hunks; hunks of the two sides that overlap or touch form one region,
taken from the side that changed it (or either, when both made the same change); a region both
sides changed differently is a conflict, except two pure insertions at the same place (both
appended a line at the end of the timeline), which are kept both: the brain's lines, then the
file's (when one insertion is the other plus more lines before or after it, only the longer one:
it holds the shorter).

The same merge serves the ``both-changed`` case of a sync (:func:`merge_edits`): the file and the
brain both changed a page since the last sync, and their base is in the page history. There two
insertions at one place are kept both only where that cannot be a guess: inside the base's
timeline section, and each side's new lines whole timeline entries (an append-only list);
anywhere else they are a conflict, as in git.

A page's ``.raw/<name>.json`` sidecar is no text to merge by lines: it is a map of sources, each
written whole by ``raw_put`` (an agent's enrichment) or by a person in an editor, and two new
sources both land at the end of the map, which the line merge must call a conflict. Its
both-changed merge (:func:`merge_sidecar`) compares the sources as JSON values instead and writes
the brain's changed ones into the file's text as ``raw_put`` writes them.
"""
from __future__ import annotations

import difflib
import json
import os
import re
from dataclasses import dataclass
from typing import Callable, Sequence

from ..page.jsonsplice import set_member
from ..page.markdown import _TIMELINE_HEADING_RE, parse_page, parse_timeline_entries
from ..page.slugs import page_slug_for_sidecar
from ..storage import rawspans

#: pages bigger than this (bytes, any side) are not examined: the plain rules apply
MAX_BYTES = 512 * 1024


def _lines(b: bytes) -> list[bytes]:
    return b.splitlines(keepends=True)


def _hunks(base: list[bytes], side: list[bytes]) -> list[tuple[int, int, list[bytes]]]:
    """``side``'s changes against ``base``: ``(i1, i2, replacement lines)``, ``base[i1:i2]``
    replaced, in order and disjoint."""
    sm = difflib.SequenceMatcher(None, base, side, autojunk=False)
    return [(i1, i2, side[j1:j2]) for tag, i1, i2, j1, j2 in sm.get_opcodes() if tag != "equal"]


def distance(a: bytes, b: bytes) -> int:
    """Lines removed plus lines added from ``a`` to ``b`` (a changed line counts twice): 0 when equal."""
    return sum(i2 - i1 + len(r) for i1, i2, r in _hunks(_lines(a), _lines(b)))


def _added(a: bytes, b: bytes) -> set[bytes]:
    """The lines ``b`` added to ``a`` (stripped; blank lines, which say nothing, left out)."""
    return {ln.strip() for _i1, _i2, r in _hunks(_lines(a), _lines(b)) for ln in r if ln.strip()}


#: a line a save added that is at least this alike (difflib ratio) to a line gbrain's write
#: added, and more alike to it than to the lines the save replaced, is an edit of that line
EDITED_LINE_MIN = 0.85
#: a line a save added that holds the whole of a line gbrain's write changed (not a new line;
#: words put in at one place: the line's start and end kept, :func:`keeps`) of at least this many characters, at
#: least half alike to it and more alike to it than to the lines the save replaced, is an edit of
#: that line too, unless gbrain only cut words from a line to make it (team trial 34: words added
#: into a teammate's short heading are under EDITED_LINE_MIN)
KEPT_LINE_MIN_CHARS = 16
#: pairs of added lines compared at most (beyond, the check is skipped: a save or a write of
#: hundreds of lines is judged by whole lines only)
EDITED_PAIRS_MAX = 10_000


def alike(a: bytes, b: bytes) -> float:
    """difflib's similarity ratio of two lines, a float in 0..1 (1.0 equal):
    ``alike(b"- **2026-12-04** | Call w/ Ana Lima", b"- **2026-12-04** | Call with Ana Lima")``
    → 0.94. Lines as ``bytes``, usually stripped (no line ending); compared byte by byte, no
    junk heuristic. A pair whose quick upper bounds are under
    :data:`EDITED_LINE_MIN` is 0.0 without the full ratio: read it as "at least that alike, or
    not alike" (what the stale-save and dropped-save checks ask), not as a ratio below the
    bar. Pure."""
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return sm.ratio() if sm.real_quick_ratio() >= EDITED_LINE_MIN and sm.quick_ratio() >= EDITED_LINE_MIN else 0.0


#: a word (letters, digits, ``_``; any script) or one other non-space character
_TOKEN = re.compile(r"\w+|[^\w\s]")

#: what a ``names`` callable (:func:`another_line`) answers of a word: the name of a page of the
#: brain (its title, file name or an alias), or a person's (such a name of a person's page, or
#: the first word of its title: ``Jan`` of ``Jan Novak``); ``""`` for none. ``True`` is a name of
#: no known kind (read as a person's: never taken for a misspelt name fixed)
PAGE_NAME, PERSON_NAME = "page", "person"


def _typo(old: str, new: str) -> bool:
    """Whether ``new`` (a run of tokens, spaces left out) is ``old`` with a typo fixed: equal but
    for case, or one edit (a letter put in, taken out, changed, two swapped) away, two when the
    longer is 6 or more characters; never when a digit changed (another number or identifier)."""
    if old.casefold() == new.casefold():
        return True
    if [c for c in old if c.isdigit()] != [c for c in new if c.isdigit()]:
        return False
    from rapidfuzz.distance import OSA  # (optimal string alignment: a swap of two neighbours one edit; as spell.py and brain's near names)

    return OSA.distance(old.casefold(), new.casefold()) <= (2 if max(len(old), len(new)) >= 6 else 1)


def another_line(mine: bytes, w: bytes, names: Callable[[str], str | bool] | None = None,
                 kept: frozenset[str] | set[str] = frozenset()) -> bool:
    """Whether the line ``mine``, however alike (:func:`alike`) to the line ``w``, is another line
    of the same template rather than ``w`` edited: where it puts words in place of words of ``w``,
    one such place is no typo fix (:func:`_typo`: another name, another number: ``- [ ] standup
    (bob)`` beside ``- [ ] standup (alice)``, ``MK-bob-0048`` beside ``MK-alice-0041``; or a
    word put for another, ``w/`` for ``with``), or puts one name for another however few letters
    apart (:func:`_renamed`: ``Jon`` for ``Jan`` inside a sentence, ``@rob`` for ``@bob``,
    ``(Alicia)`` for ``(alice)``; with ``names``, a word the brain names a page by for another
    such word: ``(rob)`` for ``(bob)``). Words put in or cut, a letter's case, a typo
    (``recieved`` → ``received``, ``teh`` → ``the``, ``Standup`` → ``Stand-up``, two letters of a
    name swapped, ``Lmia`` → ``Lima``) are edits, and
    so is a name put for another inside a link's target (``[[Bob Stone]]`` → ``[[Carol Stone]]``:
    an editor retargeting a link gbrain had just rewritten after a move), and so is a name written
    as one put for a word the brain names nothing by when ``names`` says it names a page that is
    no person's (``met Postgress team`` → ``met Postgres team``: a misspelt name fixed; a person's
    name, ``Jon`` → ``Jan``, stays another line: a teammate's line about someone else must not
    leave the page, and two lines are only a duplicate).
    Both ``bytes`` lines, usually stripped (UTF-8; bad bytes read as U+FFFD). ``names``: what
    a word (as written) names in the brain: :data:`PAGE_NAME`, :data:`PERSON_NAME` (a person
    page's name or its title's first word: ``Jan`` of ``Jan Novak``, what a timeline summary
    starts with), or falsy (a bool is read as it says, ``True`` as a person's); called only for
    a place that reads as a typo fix otherwise. ``kept``: the words (casefolded) of the lines of
    the save's base that ``mine`` took the place of: a name among them is the person's own word,
    and its change a fix of it (``Postgress`` → ``Postgres`` in their own line gbrain's write had
    added words to), never another person's name. Team trial 54: a
    teammate's look-alike line from a stale buffer was read as a typo fix of the line that had
    just arrived, and that line left the page unseen. Pure but for ``names``."""
    wt, mt = w.decode("utf-8", "replace"), mine.decode("utf-8", "replace")
    a, a_link, a_at = _tokens(wt)
    b, b_link, b_at = _tokens(mt)
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag != "replace" or (all(a_link[i1:i2]) and all(b_link[j1:j2])):
            continue
        old, new = "".join(a[i1:i2]), "".join(b[j1:j2])
        if not _typo(old, new):
            return True
        if not _renamed(old, new) or (kept and all(t.casefold() in kept for t in _words(a[i1:i2]))):
            continue
        was, now = " ".join(_words(a[i1:i2])), " ".join(_words(b[j1:j2]))
        if any(_name_at(wt, a[k], a_at[k]) for k in range(i1, i2)) or any(_name_at(mt, b[k], b_at[k]) for k in range(j1, j2)):
            # written as a name: another name, unless it fixed a word no page is named by to a
            # page's name that is no person's (a misspelt name: ``Postgress`` → ``Postgres``)
            if not (names is not None and was and now and names(now) == PAGE_NAME and not names(was)):
                return True
        elif names is not None and was and now and names(was) and names(now):
            return True
    return False


def _renamed(old: str, new: str) -> bool:
    """Whether a typo-close place (:func:`_typo`) may still be one name put for another: its
    letters differ beyond case and not only by two neighbours swapped (``Lmia`` → ``Lima``, the
    commonest slip, which two names rarely are)."""
    x, y = old.casefold(), new.casefold()
    if x == y:
        return False
    if len(x) == len(y):
        diff = [k for k in range(len(x)) if x[k] != y[k]]
        if len(diff) == 2 and diff[1] == diff[0] + 1 and x[diff[0]] == y[diff[1]] and x[diff[1]] == y[diff[0]]:
            return False
    return True


def _words(toks: list[str]) -> list[str]:
    """The word tokens (letters, digits, ``_``) of ``toks``."""
    return [t for t in toks if t[:1].isalnum() or t[:1] == "_"]


#: the text of a line before a word that starts a sentence: nothing, or list, heading, quote and
#: checkbox marks (``- [ ] ``, ``1. ``, ``## ``, ``> ``), or anything ending with a sentence's or a
#: field's end (``. ! ? : |``, maybe closed by emphasis, quotes or brackets), or a dash between
#: clauses (an em or en dash, ``--`` or `` - `` between spaces: gbrain's timeline line is
#: ``- **DATE** | source — Summary``, its summary's first word capitalised as a sentence's)
_SENTENCE_START = re.compile(r"(?:[\s>#*+\-]*(?:\d+[.)]\s*)?(?:\[[ xX]?\]\s*)?|.*[.!?:|][*_\"')\]]*\s*"
                             r"|.*[\u2014\u2013]\s*|.*\s--?\s+)")


def _name_at(line: str, tok: str, at: int) -> bool:
    """Whether the token ``tok`` at offset ``at`` of ``line`` is written as a name: an @handle
    (``@bob``), or a word with a capital letter first inside a sentence (not its first word,
    whose capital says nothing: ``Call``), one lower-case letter at least (no acronym)."""
    if at > 0 and line[at - 1] == "@" and tok[:1].isalnum():
        return True
    return (tok[:1].isupper() and any(c.islower() for c in tok[1:])
            and not _SENTENCE_START.fullmatch(line[:at]) and not _title_case(line))


def _title_case(line: str) -> bool:
    """Whether ``line`` is a heading in title case (``## Team Quarterly Review``): three words of
    four letters or more at least, each with a capital first; there a capital says nothing of a
    name (a letter fixed in such a heading gbrain wrote was read as another name: two headings)."""
    if not line.lstrip(" ").startswith("#"):
        return False
    long = [w for w in re.findall(r"[^\W\d_]{4,}", line)]
    return len(long) >= 3 and all(w[0].isupper() for w in long)


#: a wiki link's target or a markdown link's: a name put for another there is a link
#: retargeted (an editor rewriting a link gbrain had just rewritten after a move), an edit
_LINK_TARGET = re.compile(r"\[\[[^\]\n]*\]\]|\]\([^)\n]*\)")


def _tokens(line: str) -> tuple[list[str], list[bool], list[int]]:
    """The tokens of ``line`` (:data:`_TOKEN`), for each whether it is in a link's target, and
    each one's offset in ``line``."""
    spans = [m.span() for m in _LINK_TARGET.finditer(line)]
    toks, inside, at = [], [], []
    for m in _TOKEN.finditer(line):
        toks.append(m.group())
        inside.append(any(lo <= m.start() and m.end() <= hi for lo, hi in spans))
        at.append(m.start())
    return toks, inside, at


def _edits_a_line_gbrain_added(older: bytes, wrote: set[bytes], disk: bytes, changed: set[bytes] = frozenset(),
                                must: set[bytes] | None = None, earlier: frozenset[bytes] | set[bytes] = frozenset(),
                                names: Callable[[str], str | bool] | None = None) -> bool:
    """Whether a (non-blank) line the save ``disk`` added to ``older`` is an edit of one of the
    lines gbrain's write added to it (``wrote``, stripped: :func:`_added`): at least :data:`EDITED_LINE_MIN` alike to it (or
    holding the whole of it, :func:`keeps`, and half alike), and more alike to it than to every line the save replaced there. Such a save was made after seeing
    the write (a person fixing an agent's typo, an editor rewriting a link gbrain had just
    rewritten), though by whole lines it is as far from ``older`` as from gbrain's write.
    The caller leaves out of ``wrote`` the lines gbrain only cut words from (:func:`_own_lines`).
    ``changed``: those of ``wrote`` that replaced lines of ``older`` (not new lines): only they
    count for the words-put-in rule (:func:`keeps`): a stale line that begins with a new line of
    gbrain's is the same event told alike (both logged the call), no sign of having seen it.
    ``must`` (default ``wrote``): every line gbrain's write added; the save must hold each of them
    but those its lines edit (a person who saw the write has them): a line alike by chance (two
    entries of one day share their date) would otherwise drop the agent's other lines unseen.
    ``earlier``: lines (stripped) of earlier versions: a save line among them is no edit.
    A line of the same template with another name or number (:func:`another_line`) is no edit
    either, however alike: another person's entry typed in a stale buffer (team trial 54);
    ``names``: as :func:`another_line` takes it."""
    if not wrote:
        return False
    old = _lines(older)
    hunks = _hunks(old, _lines(disk))
    if len(wrote) * sum(len(r) for _i1, _i2, r in hunks) > EDITED_PAIRS_MAX:
        return False
    edited: set[bytes] = set()
    for i1, i2, r in hunks:
        replaced = [ln.strip() for ln in old[i1:i2] if ln.strip()]
        own = {t.casefold() for x in replaced for t in _TOKEN.findall(x.decode("utf-8", "replace"))}  # (another_line's ``kept``)
        for ln in r:
            mine = ln.strip()
            if not mine or mine in earlier or mine in wrote:
                continue  # old text a stale buffer kept; a line gbrain's write added, held as it is, is no edit of it (:func:`saw_write` asks :func:`telling_line`)
            # (a line of the same template with another name or number in it is no edit: :func:`another_line`)
            to_write, w = max(((r, w) for w in wrote if (r := alike(mine, w)) >= EDITED_LINE_MIN and not another_line(mine, w, names, own)),
                              default=(0.0, b""))
            if to_write >= EDITED_LINE_MIN and to_write > max((alike(mine, x) for x in replaced), default=0.0):
                edited.add(w)
                continue
            kept, w = max(((_ratio(mine, w), w) for w in changed if keeps(mine, w)), default=(0.0, b""))
            if kept >= 0.5 and kept > max((_ratio(mine, x) for x in replaced), default=0.0):
                edited.add(w)
    if not edited:
        return False
    held = {ln.strip() for ln in _lines(disk)}
    return not ((wrote if must is None else must) - edited - held)


def _ratio(a: bytes, b: bytes) -> float:
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()


def keeps(mine: bytes, w: bytes) -> bool:
    """Whether the line ``mine`` is the line ``w`` with words put in at one place (``w``'s start
    and end kept as they are; the place may be its end or its start), ``w`` at least
    :data:`KEPT_LINE_MIN_CHARS` long: ``keeps(b"# Obsidian (bob; cat) Help", b"# Obsidian (bob) Help")``
    is True. Both ``bytes``, usually stripped lines; a ``w`` that long is kept by itself too.
    Not any order-keeping scatter of ``w``'s characters: an entry of the day typed in a stale
    buffer holds the agent's entry of the day so. Pure."""
    return len(w) >= KEPT_LINE_MIN_CHARS and _one_gap(mine, w)


def _one_gap(longer: bytes, w: bytes) -> bool:
    """Whether ``longer`` is ``w`` with bytes put in at one place (or ``w`` itself)."""
    n = len(w)
    if len(longer) < n:
        return False
    pre = len(os.path.commonprefix([longer, w]))
    return pre >= n or pre + len(os.path.commonprefix([longer[::-1], w[::-1]])) >= n


def telling_line(line: bytes) -> bool:
    """Whether a line (stripped) a save shares with gbrain's write shows the save saw the write:
    :data:`KEPT_LINE_MIN_CHARS` or more and no heading (``## Next steps``, a short line: typed
    alike by habit or template in a stale buffer too). ``line``: ``bytes``, stripped. Pure; also
    sync's test of a late save holding a version whole (``engine._holds_whole``)."""
    return len(line) >= KEPT_LINE_MIN_CHARS and not line.startswith(b"#")


def _own_lines(wrote: set[bytes], cut: set[bytes]) -> set[bytes]:
    """The lines of ``wrote`` (what gbrain's write added, stripped) that are no cut of a line it
    replaced (``cut``; :func:`_one_gap`): a line gbrain only cut words from is held by a stale
    buffer too (and cut so by a person who cut the same words), so it shows no save saw the
    write. All of ``wrote`` when the pairs to compare pass :data:`EDITED_PAIRS_MAX`."""
    if len(wrote) * len(cut) > EDITED_PAIRS_MAX:
        return wrote
    return {w for w in wrote if not any(_one_gap(x, w) for x in cut)}


def _text(base: list[bytes], hunks: list[tuple[int, int, list[bytes]]], lo: int, hi: int) -> list[bytes]:
    """``base[lo:hi]`` with ``hunks`` (all inside it) applied."""
    out: list[bytes] = []
    pos = lo
    for i1, i2, r in hunks:
        out += base[pos:i1]
        out += r
        pos = i2
    out += base[pos:hi]
    return out


def _only_touch(sides: list[list[tuple[int, int, list[bytes]]]]) -> bool:
    """Whether two sides' hunks that touch (one ends where another begins, as :func:`merge3`
    groups them) merge into one text only: one side's hunks there only remove lines (no
    replacement lines), and no hunk of one side changes a base line the other's changes or
    inserts between two lines the other removed (:func:`merge3`'s ``a2 <= b1 or b2 <= a1``: an
    insertion at a removed block's edge is apart from it, one inside it is not). Then the side
    that adds lines adds all there is, so no order of two sides' new lines is guessed (what
    makes git's xdiff, and diff3, call touching changes a conflict: a replacement and an
    insertion at its edge, or two insertions at one place, have two orders); the one text is
    the adding side's with the removed lines taken out. A line inserted at a deleted section's
    edge stays in the page, next to what is left (it may have belonged to the section: the
    person deletes it again; a conflict would have kept the deletion only in a copy). Pure."""
    if not any(all(not r for _i1, _i2, r in side) for side in sides):
        return False
    return all(a2 <= b1 or b2 <= a1 for a1, a2, _r in sides[0] for b1, b2, _s in sides[1])


def _holds(longer: list[bytes], shorter: list[bytes]) -> bool:
    """Whether ``longer`` is ``shorter`` plus lines before or after it."""
    n = len(shorter)
    return len(longer) > n and (longer[:n] == shorter or longer[len(longer) - n:] == shorter)


#: what a ``keep_both`` of :func:`merge3` returns to keep two insertions at one place with
#: ``theirs`` first
THEIRS_FIRST = "theirs first"


def merge3(base: bytes, ours: bytes, theirs: bytes, keep_both: Callable[[int, list[bytes], list[bytes]], bool] | None = None) -> bytes | None:
    """Three-way merge of ``ours`` and ``theirs``, both edited from ``base``: the merged bytes,
    or None when a region was changed differently on the two sides (a conflict).

    Two insertions at one place (``base`` line index ``at``, nothing removed) that differ are
    both kept, ``ours`` first, when ``keep_both(at, our_lines, their_lines)`` is true (None:
    always; :data:`THEIRS_FIRST`: ``theirs`` first), else they are a conflict; when one insertion is the other plus lines before or
    after it, the longer one is taken (it holds the other: a merge made before, merged again).
    Changes that only touch (one ends where the other begins) are a conflict, as git's, unless
    one side there only removed lines (:func:`_only_touch`: a person deleted a section, an agent
    wrote a line at its edge): then both are taken.
    Pure; raises nothing but what ``keep_both`` raises."""
    b = _lines(base)
    tagged = sorted([(i1, i2, 0, r) for i1, i2, r in _hunks(b, _lines(ours))] + [(i1, i2, 1, r) for i1, i2, r in _hunks(b, _lines(theirs))],
                    key=lambda h: (h[0], h[1], h[2]))
    out: list[bytes] = []
    pos = 0
    k = 0
    while k < len(tagged):
        lo, hi = tagged[k][0], tagged[k][1]
        group = [tagged[k]]
        k += 1
        # hunks that overlap or touch the region join it (as diff3 does)
        while k < len(tagged) and tagged[k][0] <= hi:
            group.append(tagged[k])
            hi = max(hi, tagged[k][1])
            k += 1
        out += b[pos:lo]
        pos = hi
        sides = [[(i1, i2, r) for i1, i2, s, r in group if s == n] for n in (0, 1)]
        if not sides[1]:
            out += _text(b, sides[0], lo, hi)
            continue
        if not sides[0]:
            out += _text(b, sides[1], lo, hi)
            continue
        mine, yours = _text(b, sides[0], lo, hi), _text(b, sides[1], lo, hi)
        if mine == yours:
            out += mine
        elif lo == hi and (_holds(mine, yours) or _holds(yours, mine)):
            out += mine if len(mine) > len(yours) else yours
        elif lo == hi and (keep := (keep_both is None or keep_both(lo, mine, yours))):
            # both inserted at the same place and removed nothing: keep both (``theirs`` first
            # when keep_both says so)
            out += yours + mine if keep == THEIRS_FIRST else mine + yours
        elif _only_touch(sides):
            # one side only removed lines and the two only touch: one text holds both changes
            out += _text(b, sorted(sides[0] + sides[1], key=lambda h: (h[0], h[1])), lo, hi)
        else:
            return None
    out += b[pos:]
    return b"".join(out)


@dataclass(frozen=True)
class StaleView:
    """What a stale save looks like: the file's bytes were based on ``older[ancestor]`` (an
    earlier version the file held), not on the brain's current version. ``merged`` is the
    three-way merge (ancestor, brain, file), or None when it conflicts."""

    ancestor: int
    merged: bytes | None


def saw_write(before: bytes, after: bytes, disk: bytes, old: frozenset[bytes] | set[bytes] = frozenset(),
              names: Callable[[str], str | bool] | None = None) -> bool:
    """Whether the save ``disk`` shows it was made after seeing the write that turned ``before``
    into ``after`` (both page texts; ``disk`` the saved bytes): it holds a telling line
    (:func:`telling_line`) the write added that is no cut of a line the write replaced
    (:func:`_own_lines`), or its lines edit a line the write added (fix a typo in it, put words
    into it: :func:`_edits_a_line_gbrain_added`). Evidence from the lines the write alone has
    (``after``'s and not ``before``'s), never from what the save lacks: a save lacking a line
    ``before`` had (both removed it) and one lacking the write's line (never saw it) look alike
    by distance. ``old``: the lines (stripped) of versions older than ``before``: a save line
    among them is old text a stale buffer kept, no sign of having seen the write (an agent's
    counter line 730 → 759 → 760: a buffer's 730 looked like an edit of 760, trial 51).
    ``names``: what a word names in the brain (:func:`another_line`). Pure but for it."""
    base = _lines(before)
    gh = _hunks(base, _lines(after))
    added = {ln.strip() for _i1, _i2, r in gh for ln in r if ln.strip()}  # (:func:`_added`)
    if not added:
        return False
    # (a line gbrain only cut words from says nothing: a stale buffer that cut the same holds it)
    wrote = _own_lines(added, {ln.strip() for i1, i2, _r in gh for ln in base[i1:i2] if ln.strip()})
    if any(telling_line(w) for w in (wrote & _added(before, disk)) - old):
        return True
    changed = wrote & {ln.strip() for i1, i2, r in gh if i2 > i1 for ln in r}
    return _edits_a_line_gbrain_added(before, wrote, disk, changed, added, earlier=old, names=names)


def stale_view(disk: bytes, brain: bytes, older: Sequence[bytes], names: Callable[[str], str | bool] | None = None) -> StaleView | None:
    """Whether the file's new bytes ``disk`` were saved from an older version than ``brain``
    (the version gbrain wrote to the file, which is also the base): ``older`` are the earlier
    versions the file may have held since it last fed the brain, newest first (the last one
    the file's own, or the oldest looked at).

    The ancestor is the newest version whose write the save shows it saw (:func:`saw_write`:
    it holds a telling line that write added, or edits one), walking from ``brain`` back: each
    write ``older[k]`` → ``older[k-1]`` (``brain`` for k = 0) is asked in turn; a save that saw
    none is based on the oldest, ``older[-1]``. Not the version closest by lines
    (:func:`distance`), as before: a save that made the same change as gbrain's write (both
    removed a stale section) is closer by lines to gbrain's version though it never saw the
    line that write added, and counted as an edit of it: the file won and the agent's line
    left the page with no conflict (the same one version back: the merge with a middle version
    took the save's missing line of it for a deletion). An ancestor older than the buffer's
    only merges more (a line the person deleted from a version after it comes back) or
    conflicts (the save is a copy), which loses nothing; a newer one drops gbrain's lines.
    So a save that only removed what gbrain's write added (saw it, deleted every line of it)
    and changed anything else is merged (the lines come back), as the old rule did for most
    such saves too.

    None (the plain rules apply: the file's save is an edit of the newest version) when the
    save saw ``brain``'s own write (it holds a telling line that write added: deleting one of
    an agent's two lines is an edit of the newest version; or it edits a line the write added:
    fixing a typo in an agent's line), when ``disk`` equals the version before ``brain`` exactly
    and saw the write that made that one (or it is the only older version): the save only
    undid gbrain's newest write, taken as meant, as a person who deletes an agent's line and
    saves does (vim asks before writing an unmodified buffer over a changed file). A save equal
    to an older version still is no undo: a buffer of a middle version whose person deleted what
    that version's write added equals the version before it, never having seen the newest write
    (the merge brings the deleted lines back: nothing is lost). Or when the
    merge would give back ``disk`` unchanged (the save holds every change of gbrain's writes
    since its ancestor: nothing to merge), or when a side is bigger than :data:`MAX_BYTES`.
    ``names``: what a word names in the brain (:func:`another_line`; None: none is
    asked). Pure but for ``names``; raises nothing but what it raises."""
    if not older or max(len(disk), len(brain), *(len(o) for o in older)) > MAX_BYTES:
        return None
    versions = [brain, *older]
    # the lines of the versions older than each write's ``before`` (versions[k + 2:])
    olds: list[frozenset[bytes]] = [frozenset()] * len(versions)
    acc: set[bytes] = set()
    for k in range(len(versions) - 3, -1, -1):
        acc |= {ln.strip() for ln in _lines(versions[k + 2])}
        olds[k] = frozenset(acc)
    if disk == older[0] and (len(older) == 1 or saw_write(older[1], older[0], disk, olds[1], names)):
        return None  # undid the newest write, having seen the one before: taken as meant
    best = len(older) - 1
    for k in range(len(older)):
        if saw_write(versions[k + 1], versions[k], disk, olds[k], names):
            best = k - 1  # saw the write that made versions[k]: based on it (or a newer one)
            break
    if best < 0:
        return None  # the save saw the newest write: an edit of the brain's version
    merged = merge3(older[best], brain, disk)
    if merged == disk or merged is None and _own_edits_only(older[best], brain, disk):
        return None
    return StaleView(best, merged)


def _own_edits_only(ancestor: bytes, brain: bytes, disk: bytes) -> bool:
    """Whether ``disk`` is ``brain`` with edits of the save's own alone: it lacks no line
    gbrain's writes since ``ancestor`` added and brings back none they removed (lines stripped,
    blank ones aside). Then the save kept every change of gbrain's, whichever version it was
    based on, and the three-way merge with ``ancestor`` could only give ``disk`` back, or conflict
    where a line gbrain's write changed touches the save's own: a write that only cut letters
    from a line (a move to a shorter name rewriting a link, ``[[people/robert-ng]]`` →
    ``[[people/rob-ng]]``) is no sign the save saw it (:func:`_own_lines`), so a person typing
    below that line had each save taken as stale and kept as a conflict copy (trial 49: 13
    copies of one note). Pure."""
    a, b = _lines(ancestor), _lines(brain)
    gh = _hunks(a, b)
    added = {ln.strip() for _i1, _i2, r in gh for ln in r if ln.strip()}
    removed = {ln.strip() for i1, i2, _r in gh for ln in a[i1:i2] if ln.strip()}
    dh = _hunks(b, _lines(disk))
    lost = {ln.strip() for i1, i2, _r in dh for ln in b[i1:i2] if ln.strip()}
    back = {ln.strip() for _i1, _i2, r in dh for ln in r if ln.strip()}
    return not (lost & added or back & removed)


def _timeline_start(base: str, path: str, timeline_split: str) -> int | None:
    """The index of the first line after the timeline separator of the page ``base`` (in the
    lines of its UTF-8 bytes, as :func:`merge3` counts them), or None when it has no timeline."""
    page = parse_page(base, path, timeline_split=timeline_split)
    if not page.separator:
        return None
    head = ("\ufeff" if page.bom else "") + page.frontmatter_raw + page.compiled_truth + page.separator
    return len(_lines(head.encode("utf-8")))


def _past_heading(lines: list[bytes]) -> list[bytes]:
    """``lines`` (a timeline section's, from the line after its ``---``) past the blank lines and
    the ``## Timeline`` / ``## History`` heading that open it under ``timeline_split heading``
    (``markdown._TIMELINE_HEADING_RE``; what `timeline-add` writes there); unchanged without one."""
    i = next((k for k, ln in enumerate(lines) if ln.strip()), len(lines))
    if i < len(lines) and _TIMELINE_HEADING_RE.match(lines[i].decode("utf-8")):
        return lines[i + 1:]
    return lines


def _whole_entries(lines: list[bytes]) -> bool:
    """Whether ``lines`` (one side's insertion) are whole timeline entries: every non-blank
    line an entry line (``- **YYYY-MM-DD** | …``) or an indented detail line under one, the
    first non-blank line an entry line."""
    text = b"".join(lines).decode("utf-8")
    tops = [ln for ln in text.splitlines() if ln.strip() and ln[:1] not in (" ", "\t")]
    first = next((ln for ln in text.splitlines() if ln.strip()), "")
    return bool(tops) and first[:1] not in (" ", "\t") and len(parse_timeline_entries(text)) == len(tops)


def line_endings(text: bytes) -> str:
    """``"crlf"`` when every line of ``text`` ends with CRLF, ``"lf"`` when none does, ``"mixed"``
    otherwise; ``"none"`` for a text without a line break."""
    n = text.count(b"\n")
    crlf = text.count(b"\r\n")
    return "none" if n == 0 else "crlf" if crlf == n else "lf" if crlf == 0 else "mixed"


def merge_edits(base: bytes, brain: bytes, disk: bytes, path: str = "", timeline_split: str = "rule") -> bytes | None:
    """The ``both-changed`` merge: the page at ``path`` changed in the brain (``brain``) and in
    its file (``disk``) since the version both had at the last sync (``base``, from the page
    history). Returns the merged bytes, or None when the edits cannot be merged without a
    guess: a region both changed differently, two insertions at one place outside the base's
    timeline section (``timeline_split``: the brain's setting, ``rule`` or ``heading``) or not
    made of whole timeline entries, a side that is not UTF-8 text, or a side bigger than
    :data:`MAX_BYTES`. Two sides' timeline entries inserted at one place are both kept, the
    brain's first. Pure; raises nothing."""
    if max(len(base), len(brain), len(disk)) > MAX_BYTES:
        return None
    if page_slug_for_sidecar(path) is not None:
        return merge_sidecar(base, brain, disk)
    was, mine, yours = line_endings(base), line_endings(brain), line_endings(disk)
    # a base with no line break had no ending to convert (a side that has line breaks added
    # them); before, such a side counted as converted, the texts made LF were the same texts and
    # this function called itself with them until the stack ran out
    turned = {e for e in (mine, yours) if e != was and e in ("lf", "crlf")} if was != "none" else set()
    if turned:
        # a side converted every line ending (git's core.autocrlf at a checkout on Windows, an
        # editor's setting): every line differs, but not its text; the texts merge with LF
        # endings, and the merge takes that side's endings. Two sides converted apart: no guess
        if len(turned) > 1 or {mine, yours} - turned - {was}:
            return None
        lf = [b.replace(b"\r\n", b"\n") for b in (base, brain, disk)]
        out = _merge_texts(*lf, path, timeline_split)
        if out is None or turned == {"lf"}:
            return out
        return out.replace(b"\n", b"\r\n")
    return _merge_texts(base, brain, disk, path, timeline_split)


def _merge_texts(base: bytes, brain: bytes, disk: bytes, path: str, timeline_split: str) -> bytes | None:
    """:func:`merge_edits` past its size, sidecar and line-ending steps: the line merge of three
    UTF-8 texts (None when a side is not UTF-8 or the edits overlap)."""
    try:
        base_text = base.decode("utf-8")
        brain.decode("utf-8")
        disk.decode("utf-8")
    except UnicodeDecodeError:
        return None
    start = _timeline_start(base_text, path, timeline_split)
    base_lines = _lines(base)

    def in_timeline(at: int, mine: list[bytes], yours: list[bytes]) -> bool | str:
        if start is None and at == len(base_lines) and base.endswith(b"\n"):
            # the base has no timeline and both appended at its end: the brain's lines begin a
            # timeline (timeline-add on a page without one) and the file's are text with no
            # separator (a paragraph typed at the bottom): the paragraph goes above the timeline
            opened = _timeline_start(b"".join(base_lines + mine).decode("utf-8"), path, timeline_split)
            if opened is not None and opened > len(base_lines) and _whole_entries(_past_heading(b"".join(base_lines + mine).splitlines(keepends=True)[opened:])) \
                    and _timeline_start(b"".join(base_lines + yours).decode("utf-8"), path, timeline_split) is None:
                return THEIRS_FIRST
            return False
        if start is None or at < start:
            return False
        if at < len(base_lines) and base_lines[at][:1] in (b" ", b"\t"):
            return False  # inside an entry, before its indented detail
        return _whole_entries(mine) and _whole_entries(yours)

    return merge3(base, brain, disk, keep_both=in_timeline)


_ABSENT = object()


def _same(a, b) -> bool:
    """Whether two loaded JSON values (or :data:`_ABSENT`) are the same value (``1`` is not
    ``true`` nor ``1.0`` here, as they are not in the file)."""
    if a is _ABSENT or b is _ABSENT:
        return a is b
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _merge_members(text: str, path: list[str], base: dict, brain: dict, disk: dict) -> str | None:
    """``text`` (the file's JSON text) with each member of the object at ``path`` that the brain
    changed since ``base`` and the file did not written in, as ``raw_put`` writes a source
    (:func:`gbrain.page.jsonsplice.set_member`). None when a member changed on both sides to
    different values, or the brain removed one (a splice adds or replaces, never deletes)."""
    for key in list(brain) + [k for k in base if k not in brain]:
        b0, mine, yours = base.get(key, _ABSENT), brain.get(key, _ABSENT), disk.get(key, _ABSENT)
        if _same(mine, b0) or _same(mine, yours):
            continue  # the brain left it alone, or both made the same change
        if not _same(yours, b0) or mine is _ABSENT:
            return None
        text = set_member(text, path, key, mine)
    return text


def _sidecar_members(data: bytes) -> dict | None:
    """A ``.raw`` sidecar's members as :func:`merge_sidecar` merges them: ``("sources", name)``
    for each source of a ``sources`` object, ``("", key)`` for each other top-level member (every
    one when there is no ``sources`` object). None when it is not a UTF-8 JSON object."""
    try:
        obj = rawspans.loads(data)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    if not isinstance(obj, dict):
        return None
    out = {("", k): v for k, v in obj.items() if not (k == "sources" and isinstance(v, dict))}
    if isinstance(obj.get("sources"), dict):
        out.update({("sources", k): v for k, v in obj["sources"].items()})
    return out


def _holds_field(before, after, mine) -> bool:
    """Whether ``mine`` (a source's value in a save) holds a field, at any depth of objects,
    that the write turning ``before`` into ``after`` changed or added, with the value that write
    gave it, or every item the write added to a list: a save that edits one field of a source an agent's ``raw-put`` changed saw that
    write (review of trial 47: it was taken as a stale save and conflicted)."""
    if isinstance(before, list) and isinstance(after, list) and isinstance(mine, list):
        # a list the write added items to (a career, a list of posts): the save holds every one
        was = [json.dumps(x, sort_keys=True) for x in before]
        added = [x for x in (json.dumps(y, sort_keys=True) for y in after) if x not in was]
        has = {json.dumps(y, sort_keys=True) for y in mine}
        return bool(added) and all(x in has for x in added)
    if not (isinstance(before, dict) and isinstance(after, dict) and isinstance(mine, dict)):
        return False
    return any(not _same(v, before.get(k, _ABSENT)) and k in mine and (_same(mine[k], v) or _holds_field(before.get(k), v, mine[k]))
               for k, v in after.items())


def _same_members(a: dict, b: dict) -> bool:
    """Whether two :func:`_sidecar_members` results hold the same members with the same values."""
    return a.keys() == b.keys() and all(_same(v, b[k]) for k, v in a.items())


def stale_sidecar(disk: bytes, brain: bytes, older: Sequence[bytes]) -> StaleView | None:
    """:func:`stale_view` for a ``.raw/<name>.json`` sidecar, by member rather than by line: the
    save saw a write when it holds a member (a source) that write changed, with the value the
    write gave it, or one that write added (with any value: an edit of it), or a field inside a
    source that write changed, as written (:func:`_holds_field`: a hand edit of another field of
    the source an agent just changed); the ancestor is the newest version whose write it saw (the oldest
    of ``older`` when it saw none), and the merge is :func:`merge_sidecar` (ancestor, brain,
    file): each source from the side that changed it, a conflict (``merged`` None) when both
    changed one differently. None (the plain rules: an edit of the newest version) when the save
    saw ``brain``'s own write, only undid it (it equals ``older[0]``, or holds its members, an
    editor having re-formatted it, having seen the write before, or that is the only one), a side is not a JSON object or is bigger than
    :data:`MAX_BYTES`, or the merge gives back the save unchanged. Trial 47: an editor's save of
    a sidecar it held since before an agent's ``raw-put`` dropped that source, unsaid. Pure."""
    if not older or max(len(disk), len(brain), *(len(o) for o in older)) > MAX_BYTES:
        return None
    versions = [brain, *older]
    members = [_sidecar_members(v) for v in versions]
    mine = _sidecar_members(disk)
    if mine is None or any(m is None for m in members):
        return None

    def saw(k: int) -> bool:  # the save shows the write that turned versions[k + 1] into versions[k]:
        after, before = members[k], members[k + 1]  # it holds a member that write changed, as written,
        return any(not _same(v, before.get(key, _ABSENT)) and (_same(mine.get(key, _ABSENT), v)  # or one it added,
                                                                 or key not in before and key in mine  # or a field the write
                                                                 or _holds_field(before.get(key), v, mine.get(key)))  # changed in it
                   for key, v in after.items())

    if (disk == older[0] or _same_members(mine, members[1])) and (len(older) == 1 or saw(1)):
        return None  # undid the newest write (by member: an editor may re-format), having seen the one before: taken as meant
    best = len(older) - 1
    for k in range(len(older)):
        if saw(k):
            best = k - 1
            break
    if best < 0:
        return None  # saw the newest write: an edit of the brain's version
    merged = merge_sidecar(older[best], brain, disk)
    if merged == disk:
        return None
    return StaleView(best, merged)


def merge_sidecar(base: bytes, brain: bytes, disk: bytes) -> bytes | None:
    """The ``both-changed`` merge of a ``.raw/<name>.json`` sidecar: each of its sources (the
    members of its ``sources`` object, or of the top-level object when no side has one, as
    ``raw_put`` reads it) and each other top-level member is taken from the side that changed
    it since ``base``. Starts from the file's bytes and writes in only the members the brain
    changed, each value re-dumped in the file's layout (the file's other bytes, line endings
    included, are kept). Returns None, the conflict as before, when a member changed on both
    sides to different values, the brain removed one, a side is not a UTF-8 JSON object (or
    the sides disagree on having a ``sources`` object), or the result would not read back as
    the merged value. Pure; raises nothing."""
    try:
        marked = [rawspans.json_text(x) for x in (base, brain, disk)]  # (read past a byte order mark; the file's kept)
        texts = [t for _, t in marked]
        objs = [json.loads(t) for t in texts]
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    if not all(isinstance(o, dict) for o in objs):
        return None
    nested = [isinstance(o.get("sources"), dict) for o in objs]
    if len(set(nested)) != 1:
        return None
    b0, mine, yours = objs
    text: str | None = texts[2]
    try:
        if nested[0]:
            outer = [{k: v for k, v in o.items() if k != "sources"} for o in objs]
            text = _merge_members(text, [], *outer)
            if text is not None:
                text = _merge_members(text, ["sources"], b0["sources"], mine["sources"], yours["sources"])
        else:
            text = _merge_members(text, [], b0, mine, yours)
        if text is None:
            return None
        got = json.loads(text)
    except (ValueError, RecursionError):
        return None
    # what the merge means: the file's object with the brain's changes; the text must say it
    want = dict(yours)
    if nested[0]:
        want["sources"] = dict(yours["sources"])
        for k, v in mine["sources"].items():
            if not _same(v, b0["sources"].get(k, _ABSENT)):
                want["sources"][k] = v
    for k, v in mine.items():
        if (k != "sources" or not nested[0]) and not _same(v, b0.get(k, _ABSENT)):
            want[k] = v
    return (marked[2][0] + text).encode("utf-8") if _same(got, want) else None


__all__ = ["MAX_BYTES", "THEIRS_FIRST", "StaleView", "alike", "distance", "keeps", "merge3", "merge_edits", "merge_sidecar", "saw_write", "stale_view"]
