"""Slugs: the one mapping between file paths and page names.

A slug is the page's path relative to the brain root, with ``/`` separators and without the
``.md`` suffix, NFC-normalised (macOS writes NFD names; lookups must not care). The stored
``path`` keeps the exact on-disk spelling so export recreates the same bytes.
"""
from __future__ import annotations

import os
import posixpath
import re
import unicodedata
from functools import lru_cache
from typing import Iterable

from ..errors import BadInput


#: folders a page slug may not point into: version control and the raw-sidecar folders
RESERVED_DIRS = {".git", ".hg", ".svn", ".raw"}
#: longest file-name segment (bytes) a slug may have: 255 (ext4, APFS) less ".md" and margin
MAX_NAME_BYTES = 240
#: longest file-name segment (bytes) any file system here holds (ext4, APFS, NTFS): a longer one
#: is no page's name, read or written (:func:`slug_problem`)
NAME_MAX = 255


def nfc(s: str) -> str:
    return unicodedata.normalize("NFC", s)


def unicode_form(name: str) -> str:
    """How ``name`` is spelled where NFC and NFD differ, for a message naming two spellings that
    look alike: ``" (NFD: e + U+0301)"`` for a decomposed name (each base letter with its combining
    marks, up to three), ``" (NFC: U+00E9)"`` for a composed one, ``""`` when neither applies."""
    if name != nfc(name):
        groups: list[str] = []
        for i, c in enumerate(name):
            if unicodedata.combining(c) and i and not unicodedata.combining(name[i - 1]):
                groups.append(name[i - 1])
            if unicodedata.combining(c):
                groups[-1:] = [f"{groups[-1] if groups else ''} + U+{ord(c):04X}"]
        return f" (NFD: {', '.join(groups[:3])})" if groups else " (not NFC)"
    composed = [f"U+{ord(c):04X}" for c in name if unicodedata.normalize("NFD", c) != c]
    return f" (NFC: {', '.join(composed[:3])})" if composed else ""



def twin_warning(path: str, other: str) -> str:
    """The warning for a markdown file ``path`` kept as a file because ``other`` already holds its
    page name: ``"path: same page name as other …; kept as a file, not indexed"``, the path first
    as in every import warning. Names alike after Unicode normalisation show each one's form
    (:func:`unicode_form`); names that differ in letter case (``a.md`` / ``a.MD``) say so."""
    forms = f"{path}{unicode_form(path) or ' (NFC)'}, {other}{unicode_form(other) or ' (NFC)'}"
    if nfc(path) == nfc(other):
        why = f"after Unicode normalisation ({forms})"
    elif nfc(path[:-3]) == nfc(other[:-3]) and path[:-3] != other[:-3]:
        why = f"(their .md extensions differ in letter case, and their Unicode forms: {forms})"
    else:
        why = "(their .md extensions differ in letter case)"
    return f"{path}: same page name as {other} {why}; kept as a file, not indexed"


def move_text(old: str, new: str) -> str:
    """``"old → new"`` for a message about a rename, each name :func:`shown`; when the two look
    the same (they differ only in Unicode form: a Mac's NFD rename of an NFC name), each with
    its form (:func:`unicode_form`)."""
    if old != new and nfc(old) == nfc(new):
        return f"{shown(old)}{unicode_form(old) or ' (NFC)'} → {shown(new)}{unicode_form(new) or ' (NFC)'}"
    return f"{shown(old)} → {shown(new)}"


def identity_key(name: str) -> str:
    """The identity of an alias or a link's target: NFC-normalised and casefolded (``Café``/``café``
    → one). A tag's is :func:`tag_identity`."""
    return nfc(name).casefold()


def tag_identity(tag: str) -> str:
    """The identity of a tag (without its ``#``), as Obsidian tells tags apart: NFC, then
    lowercased as JavaScript's ``toLowerCase()`` does (Python's ``str.lower()``: the same mapping,
    final sigma in context too, ``ΣΑΣ`` → ``σας``; a character a later Unicode than Python's
    assigned is left to that version). ``Tag``/``TAG``/``tag`` and an NFC/NFD pair are one tag;
    ``ß-tag``/``SS-tag``, ``ﬁle``/``file``, ``σας``/``σασ`` are two (``casefold``, the key before
    SQLite v65 / Postgres v69, folded them into one). Source: Obsidian Help, "Tags" ("Tags are
    case-insensitive. For example, #tag and #TAG will be treated as identical"; obsidian-help
    PR #649); which case mapping is not written anywhere found (the app is closed source), so
    JavaScript's ``toLowerCase()``, what a JavaScript app and the plugins matching its tag pane
    use, is an assumption (``tests/test_tag_identity.py`` checks ``lower()`` against node's). Nor
    does it say anything of Unicode forms: NFC is gbrain's, as for page names. ``tags.tag_key`` holds it; every tag comparison (listing, ``--tag``, tag and
    untag, lint) goes through it. Idempotent; never makes or removes a ``/``."""
    return nfc(tag).lower()


def tag_merge_form(tag: str) -> str:
    """A tag's normalised form (without its ``#``): its identity (:func:`tag_identity`) with runs
    of white space, ``_`` and ``-`` joined into one ``-`` (``YC Alum`` / ``yc_alum`` →
    ``yc-alum``); never casefolded: ``ß-fm`` and ``ss-fm`` (two tags, a casefold letter apart) only
    look alike, and which one a page means is a person's choice (trial 53). The spellings of one
    form are the ones lint's ``--fix-safe`` merges (``lint.tag_groups``) and ``Brain.tag`` writes as one."""
    return re.sub(r"[\s_\-]+", "-", tag_identity(tag.strip().lstrip("#"))).strip("-")


def tag_spelling_rank(spelling: str, pages: int) -> tuple:
    """The sort key of one spelling of a tag among its others (``pages``: how many pages write it),
    best first: the spelling most pages use, on a tie the one written in its normalised form
    (:func:`tag_merge_form`: ``cfo-candidate`` before ``CFO-Candidate``, the brain's lower-case
    convention), then the smallest by code point (never a database's collation: the engines
    agree). The one rule of ``gbrain tags``' spelling, the spelling ``gbrain tag`` writes and lint's
    canonical spelling (``tag_duplicates``, ``--fix-safe``)."""
    return (-pages, spelling != tag_merge_form(spelling), spelling)


def is_markdown(path: str) -> bool:
    return path.lower().endswith(".md")


#: the mark sync puts in a conflict copy's name: ``name.conflict-YYYYMMDDTHHMMSS[-N].md``
#: (``sync/engine.conflict_copy_path``; a file other than markdown gets it appended)
CONFLICT_MARK = re.compile(r"\.conflict-\d{8}T\d{6}(?:-\d+)?")
_MARK_AT_END = re.compile(CONFLICT_MARK.pattern + r"(?=(?:\.md)?$)", re.IGNORECASE)


def conflict_original(path: str) -> str | None:
    """The path ``path`` is a conflict copy of (``people/ana.conflict-20261202T015712.md`` →
    ``people/ana.md``), or None when its name has no conflict mark at its end."""
    m = _MARK_AT_END.search(path)
    return path[: m.start()] + path[m.end() :] if m else None


#: the marks file-sync tools put in the name of a conflict copy (two machines changed a file
#: before they synced), before its extension: Syncthing's ``NAME.sync-conflict-YYYYMMDD-HHMMSS-DEVICE``
#: (older: no device), Dropbox's ``NAME (conflicted copy YYYY-MM-DD)`` and ``NAME (Who's
#: conflicted copy YYYY-MM-DD (N))``, Nextcloud's ``NAME (conflicted copy YYYY-MM-DD HHMMSS)``,
#: ownCloud's ``NAME_conflict-YYYYMMDD-HHMMSS``
_EXT_AFTER = r"(?=(?:\.[^./ ]+)?$)"  # the mark ends the name, or only an extension follows
_TOOL_MARKS_AT_END = tuple((tool, re.compile(mark + _EXT_AFTER)) for tool, mark in (
    ("Syncthing", r"\.sync-conflict-\d{8}-\d{6}(?:-[A-Z0-9]{7})?"),
    ("Nextcloud", r" \(conflicted copy \d{4}-\d{2}-\d{2} \d{6}\)"),
    ("Dropbox", r" \((?:[^()/]+'s )?conflicted copy \d{4}-\d{2}-\d{2}(?: \(\d+\))?\)"),
    ("ownCloud", r"_conflict-\d{8}-\d{6}"),
))


def sync_tool_copy(path: str) -> tuple[str, str] | None:
    """``(original path, tool)`` when ``path`` is the name a file-sync tool gives a conflict copy
    of ``original`` (``people/ana.sync-conflict-20250101-123456-ABCDEFG.md`` →
    ``("people/ana.md", "Syncthing")``; tools: ``Syncthing``, ``Dropbox``, ``Nextcloud``,
    ``ownCloud``), else None. gbrain's own copies are :func:`conflict_original`'s. Names other
    tools give copies (OneDrive's ``NAME-COMPUTER``, iCloud's ``NAME 2``) are a person's names
    as well, so they are not recognised."""
    t = _tool_mark(path)
    return (t[0], t[2]) if t else None


def _tool_mark(path: str) -> tuple[str, str, str] | None:
    """``(original path, mark, tool)`` when ``path``'s name ends in a file-sync tool's conflict
    mark (:data:`_TOOL_MARKS_AT_END`; the mark as written, never the whole name), else None.
    For :func:`sync_tool_copy` and :func:`copy_mark`. Pure."""
    if "onflict" not in path:  # every mark holds it: most paths stop here
        return None
    d, _, name = path.rpartition("/")
    for tool, rx in _TOOL_MARKS_AT_END:
        m = rx.search(name)
        if m and m.start() > 0:
            orig = name[: m.start()] + name[m.end():]
            return (f"{d}/{orig}" if d else orig), m.group(0), tool
    return None


def copy_mark(path: str) -> tuple[str, str, str | None] | None:
    """``(original path, mark, tool)`` of the conflict copy ``path``: the mark as written in its
    name (gbrain's ``.conflict-20261202T015712-2``, tool None; a file-sync tool's
    `` (conflicted copy 2026-12-02)``, ``.sync-conflict-…``, tool named as :func:`sync_tool_copy`
    does), or None when ``path`` names no copy. Pure."""
    m = _MARK_AT_END.search(path)
    if m:
        return path[: m.start()] + path[m.end() :], m.group(0), None
    return _tool_mark(path)


def tool_copy_name(original: str, mark: str) -> str:
    """The name a file-sync tool gives its copy of ``original`` with ``mark`` (as
    :func:`copy_mark` reads it): the mark before the name's extension (``people/ana.md`` →
    ``people/ana.sync-conflict-….md``); :func:`sync_tool_copy` reads it back. Pure."""
    d, _, name = original.rpartition("/")
    m = re.search(_EXT_AFTER, name)
    at = m.start() if m and m.start() > 0 else len(name)
    return (f"{d}/" if d else "") + name[:at] + mark + name[at:]


def copy_original(path: str) -> str | None:
    """The path ``path`` (or a slug) is a conflict copy of, gbrain's own copy
    (:func:`conflict_original`) or a file-sync tool's (:func:`sync_tool_copy`), else None.
    Pure."""
    orig = conflict_original(path)
    if orig is None:
        hit = sync_tool_copy(path)
        orig = hit[0] if hit else None
    return orig


#: the name a swap of two notes' names passes its first page through (``SyncEngine._swap``),
#: as :func:`swap_temp_name` writes it and :func:`swap_temp_of` reads it back: no number, or the
#: n-th try's, ASCII digits from 2 without a leading zero (not `` 1``, `` 02``, ``\d``'s ``٣``)
_SWAP_TEMP = re.compile(r"(.+) \(swapping names(?: [2-9]| [1-9][0-9]+)?\)")


def swap_temp_name(stem: str, ext: str, n: int) -> str:
    """The temp name sync's swap of two notes' names passes the first through (``SyncEngine._swap``):
    ``STEM (swapping names)EXT`` for ``n`` 1, ``STEM (swapping names N)EXT`` for the ``n``-th try
    when the ones before are taken (``people/ana``, ``.md``, 2 → ``people/ana (swapping names 2).md``).
    :func:`swap_temp_of` reads it back (without ``ext``). Pure."""
    return f"{stem} (swapping names{'' if n == 1 else f' {n}'}){ext}"


def swap_temp_of(name: str) -> str | None:
    """The name whose swap temp name ``name`` is (:func:`swap_temp_name` without an extension: a
    page slug, ``people/ana (swapping names 2)`` → ``people/ana``), or None when ``name`` is not
    one. Pure."""
    m = _SWAP_TEMP.fullmatch(name)
    return m.group(1) if m else None


def is_copy(path: str) -> bool:
    """Whether ``path`` (or a slug) names a conflict copy, gbrain's own
    (:func:`conflict_original`) or a file-sync tool's (:func:`sync_tool_copy`)."""
    return copy_original(path) is not None


def is_page_copy(slug: str) -> bool:
    """Whether the page ``slug`` is a conflict copy: :func:`is_copy` of its file (``slug.md``), as
    ``gbrain conflicts`` reads it. The slug alone has no extension, so its last ``.part`` would be
    taken for one (``plan.sync-conflict-….old`` is the file ``plan.sync-conflict-….old.md``: no copy)."""
    return is_copy(slug + ".md")


def slug_for_path(path: str) -> str:
    """``people/Ana Lima.md`` → ``people/Ana Lima`` (NFC). ``path`` is a POSIX relative path: a
    backslash is part of a file name (``a\\b.md`` is not ``a/b``; :func:`slug_problem` refuses it)."""
    p = path
    if is_markdown(p):
        p = p[:-3]
    return nfc(p)


def slug_key(slug: str) -> str:
    """Case-insensitive lookup key of a slug, or of any relative path or file name: NFC and
    casefolded, so two names with one key are one name on a file system blind to letter case
    and Unicode form (macOS's, Windows')."""
    return nfc(slug).casefold()


def name_key(slug: str) -> str:
    """Case-insensitive key of the slug's last segment (Obsidian resolves ``[[Name]]`` by it)."""
    return slug_key(posixpath.basename(slug))


#: a run of characters that are not ``str.isalnum()`` (``\\w`` is exactly isalnum or ``_``)
_NOT_ALNUM = re.compile(r"[\W_]+")


@lru_cache(maxsize=1 << 16)
def loose_key(name: str) -> str:
    """``Bruno Okafor`` / ``bruno_okafor`` / ``Bruno-Okafor.md`` → ``bruno-okafor``: the key wiki links
    and titles are matched by when no exact path or file name matches (each run of characters
    that are not letters or digits becomes one ``-``; leading and trailing ``-`` dropped). A name
    ending with ``/`` (a site's folder URL, ``/training/foo/``) is keyed by its last segment, ``foo``."""
    return title_key(posixpath.basename(name.rstrip("/") if name.endswith("/") else name))  # (NFC and casefold never make or take a "/")


@lru_cache(maxsize=1 << 16)
def title_key(title: str) -> str:
    """``TCP/IP`` / ``tcp-ip`` / ``TCP IP`` → ``tcp-ip``: the key a page's title is matched by
    (``pages.title_key``: ``[[Title]]``, duplicate titles, search's exact names). A title is a
    name, not a path: the whole title is keyed as :func:`loose_key` keys a file name (a ``/`` is
    punctuation like any other; a trailing ``.md`` dropped), so ``TCP/IP`` and ``UDP/IP`` differ
    and ``IP`` names neither. Equal to :func:`loose_key` for a title without ``/``. An alias keeps
    :func:`loose_key` (its last segment): a translated vault aliases a page by the path of its
    original (Obsidian Help: ``zh/Bases/公式`` aliased ``Bases/Formulas``, 430 such aliases), and
    keyed whole that alias took ``bases formulas`` from the English page in search."""
    t = nfc(title).casefold()
    if t.endswith(".md"):
        t = t[:-3]
    return _NOT_ALNUM.sub("-", t).strip("-")


#: Latin letters with no Unicode decomposition (so neither NFKD, unicode61 nor ``gb_fold`` folds
#: them), read as Lucene's ASCIIFoldingFilter reads them, so an English keyboard's ``Lukasz`` finds
#: ``Łukasz`` and ``Soren`` finds ``Søren`` (trial 40): search's words
#: (``search/keyword.py: search_form``, ``compat_words``) and the folded name keys (:func:`fold_name`)
LETTER_FOLD = {"ł": "l", "Ł": "L", "ø": "o", "Ø": "O", "đ": "d", "Đ": "D", "ß": "ss", "ẞ": "SS", "æ": "ae",
               "Æ": "AE", "œ": "oe", "Œ": "OE", "ı": "i", "þ": "th", "Þ": "TH", "ð": "d", "Ð": "D",
               "ħ": "h", "Ħ": "H", "ŧ": "t", "Ŧ": "T", "ŀ": "l", "Ŀ": "L"}


def _greek_bases() -> dict[str, str]:
    """Every Greek letter with marks (NFD: a Greek letter and combining marks: ``ά έ ή ί ό ύ ώ ϊ
    ϋ ΐ ΰ``, their capitals, the polytonic letters of Greek Extended) → that letter, case kept."""
    out = {}
    for cp in (*range(0x0370, 0x0400), *range(0x1F00, 0x2000)):
        c = chr(cp)
        d = unicodedata.normalize("NFD", c)
        if (c.isalpha() and len(d) > 1 and unicodedata.name(d[0], "").startswith("GREEK")
                and all(unicodedata.combining(m) for m in d[1:])):
            out[c] = d[0]
    return out


#: letters of other scripts whose marks a writer leaves out, folded for search beside
#: :data:`LETTER_FOLD` (SQLite v68 / Postgres v73; unicode61's ``remove_diacritics`` and so
#: ``gb_fold`` fold Latin letters only): Russian ``ё`` → ``е`` (Russian is nearly always typed and
#: printed with ``е``; Snowball's Russian stemmer reads it so) and Greek's tonos, dialytika and
#: polytonic marks (``ά`` → ``α``, ``ΐ`` → ``ι``, ``ἀ`` → ``α``: Greek is often typed without them
#: and capitals drop them, as Lucene's GreekLowerCaseFilter folds them); since SQLite v70 /
#: Postgres v75 Macedonian and Bulgarian ``ѐ ѝ`` (a grave marking stress or telling ``сѐ`` from
#: ``се``, ``ѝ`` from ``и``: typed without it mostly) → ``е и``, as the Greek accents. ``й ї ў``
#: are letters of their own and stay. The name keys drop them already (:func:`drop_accents`)
SCRIPT_FOLD = {"ё": "е", "Ё": "Е", "ѐ": "е", "Ѐ": "Е", "ѝ": "и", "Ѝ": "И", **_greek_bases()}
_LETTER_MAP = {**LETTER_FOLD, **SCRIPT_FOLD}


def _letter_of(m: "re.Match[str]") -> str:
    return _LETTER_MAP[m.group()]


#: a character :func:`fold_letters` changes
LETTERS = re.compile("[" + "".join(LETTER_FOLD) + "".join(SCRIPT_FOLD) + "]")


def fold_letters(text: str) -> str:
    """``text`` with the letters of :data:`LETTER_FOLD` spelled in ASCII (``Łukasz Søren Straße``
    → ``Lukasz Soren Strasse``) and those of :data:`SCRIPT_FOLD` without their marks (``Ёжик``
    → ``Ежик``, ``Αθήνα`` → ``Αθηνα``); every other character as it is."""
    # (a regex's substitution of the few letters found: str.translate looks every character of a
    # long non-ASCII text up in its table, ~4 ms for a 40,000-character Russian page)
    return text if text.isascii() or not LETTERS.search(text) else LETTERS.sub(_letter_of, text)


#: the scripts whose combining marks are accents (:func:`drop_accents`), by the first word of a
#: letter's Unicode name (``LATIN SMALL LETTER E WITH ACUTE``), marks a writer may leave out:
#: Latin and Greek (``é``, ``ñ``, ``ά``: an ASCII keyboard, as Lucene's ASCIIFoldingFilter and
#: GreekLowerCaseFilter drop them) and Hebrew (its points, niqqud and cantillation: most text is
#: written unpointed). Cyrillic's marks left after composition (a stress mark, ``а́``) go too,
#: while a Cyrillic letter Unicode composes with its mark is a letter of its own (``й`` is not
#: ``и``, ``ї`` not ``і``, ``ў`` not ``у``), but for :data:`SCRIPT_ACCENTS`; Arabic's vowel
#: marks (harakat) go, its other marks stay. Every other script's marks make letters or sounds
#: and stay: Japanese voicing (``ガ`` is not ``カ``, nor ``パ`` ``ハ``), Devanagari's virama and
#: nukta, Thai tone marks
ACCENT_SCRIPTS = ("LATIN", "GREEK", "HEBREW")
#: the letters of other scripts whose mark is an accent (lower case: :func:`drop_accents` reads
#: casefolded text): ``ё`` (Russian writes ``е`` for it; Snowball's Russian stemmer reads it so),
#: ``ѐ`` ``ѝ`` (a grave that marks stress, Bulgarian and Macedonian), and Arabic's alef with a
#: hamza or madda (``أ إ آ`` → ``ا``, as Lucene's ArabicNormalizer after Larkey et al. 2002: often
#: typed without it; a hamza on another letter, ``ؤ ئ``, stays)
SCRIPT_ACCENTS = {"ё": "е", "ѐ": "е", "ѝ": "и", "أ": "ا", "إ": "ا", "آ": "ا"}
#: Arabic's tatweel (U+0640, kashida): it only stretches a word in print (``مـكـتـبـة`` is
#: ``مكتبة``), as search's words read it (``keyword.arabic_bare``); Unicode calls it a letter (Lm),
#: so :func:`drop_accents` drops it by name (the name keys since SQLite v79 / Postgres v87)
TATWEEL = "\u0640"
_SCRIPT_ACCENT_TABLE = str.maketrans({**SCRIPT_ACCENTS, TATWEEL: None})
#: the bases whose combining marks :func:`drop_accents` drops: the accent scripts, Cyrillic (its
#: marks no letter composes), and none (a mark on no letter: a spacing ``´`` or ``΄``, NFKC ``' ́'``)
_ACCENT_BASES = (*ACCENT_SCRIPTS, "CYRILLIC", "")
#: Arabic's vowel marks (harakat: fathatan … sukun, and the superscript alef), dropped on an Arabic letter
_HARAKAT = re.compile("[\u064b-\u0652\u0670]")


@lru_cache(maxsize=4096)
def _letter_script(ch: str) -> str:
    """The first word of ``ch``'s Unicode name (``LATIN``, ``GREEK``, ``CYRILLIC``, ``KATAKANA``…), ``''`` for none."""
    return unicodedata.name(ch, " ").split(" ", 1)[0]


@lru_cache(maxsize=4096)
def _bare(ch: str) -> str:
    """A Latin or Greek character without its marks (NFD, combining marks dropped)."""
    return "".join(c for c in unicodedata.normalize("NFD", ch) if not unicodedata.combining(c))


def drop_accents(text: str) -> str:
    """``text`` (casefolded) NFKC, without its accents, NFC: every combining mark of a Latin,
    Greek or Hebrew letter (:data:`ACCENT_SCRIPTS`: ``josé`` → ``jose``, ``αθήνα`` → ``αθηνα``,
    ``việt`` → ``viet``, ``שָׁלוֹם`` → ``שלום``), a Cyrillic letter's mark no letter composes (a
    stress mark), Arabic's harakat and tatweel (:data:`TATWEEL`), a mark on no letter, and
    :data:`SCRIPT_ACCENTS` (``алёна`` → ``алена``, ``إنشاء`` → ``انشاء``, ``مـكـتـبـة`` → ``مكتبة``);
    a mark any other letter takes, or one Cyrillic composes a letter with, stays (``ガンダム``,
    ``андрей``, ``नमस्ते`` as they are). The fold
    of the exact-name keys (:func:`fold_name`) and of search's name evidence (``keyword._fold``)."""
    if text.isascii():
        return text
    s = unicodedata.normalize("NFKC", text)
    if s.isascii():
        return s
    s = s.translate(_SCRIPT_ACCENT_TABLE)
    out: list[str] = []
    base = ""  # the script of the letter the marks read now sit on ('' after no letter)
    for ch in s:
        if ch.isascii():
            base = "LATIN" if ch.isalpha() else ""
            out.append(ch)
            continue
        cat = unicodedata.category(ch)
        if cat[0] == "M":  # a mark NFKC left after its base (no letter composes them), or a vowel sign
            if not (unicodedata.combining(ch) and (base in _ACCENT_BASES or (base == "ARABIC" and _HARAKAT.match(ch)))):
                out.append(ch)
            continue
        base = _letter_script(ch) if cat[0] == "L" else ""
        out.append(_bare(ch) if base in ACCENT_SCRIPTS else ch)
    return unicodedata.normalize("NFC", "".join(out))


def fold_name(text: str) -> str:
    """``text`` as a name is compared but for accents and case: casefolded, NFKC without its
    accents (:func:`drop_accents`: a Latin or Greek letter's marks, a Cyrillic stress mark and
    ``ё``; not Japanese voicing nor ``й``), the letters no decomposition folds spelled in ASCII
    (:func:`fold_letters`), casefolded (``Zoë Kim`` → ``zoe kim``, ``Łukasz Straße`` → ``lukasz
    strasse``; ``ガンダム`` is not ``カンタム``). ASCII text is its lower case."""
    if text.isascii():
        return text.lower()
    return fold_letters(drop_accents(text.casefold())).casefold()


def fold_title_key(title: str) -> str:
    """:func:`title_key` of :func:`fold_name`: the key a title (or an H1 name) is named by but for
    accents (``Zoë Kim`` → ``zoe-kim``; ``name_folds``, search's exact names)."""
    return title_key(fold_name(title)) if not title.isascii() else title_key(title)


def fold_loose_key(name: str) -> str:
    """:func:`loose_key` of :func:`fold_name` of the last segment: the key a file name or an
    alias is named by but for accents (``people/Søren Iyer.md`` → ``soren-iyer``)."""
    if name.isascii():
        return loose_key(name)
    return title_key(fold_name(posixpath.basename(name.rstrip("/") if name.endswith("/") else name)))


#: a URL's scheme and ``//`` (``memory://``, ``https://``): :func:`slug_problem` names the slug after it
_URL_RE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")


def slug_problem(slug: str) -> str | None:
    """Why ``slug`` (already normalised: no ``.md``, NFC) cannot name a page, or None when it can.

    The one rule shared by import/sync (a markdown file whose slug breaks it is kept as a file
    and reported) and by every command (:func:`check_slug`): no empty name, no NUL, control,
    bidi or invisible character (:data:`INVISIBLE`: a right-to-left override or a zero-width
    space makes a name look like another), no absolute path or drive (``C:/`` — ``1: Weekly plan`` is a name), no ``.``,
    ``..`` or empty segment, no segment over :data:`NAME_MAX` bytes as a file, no backslash, nothing inside ``.git/``/``.raw/`` or with gbrain's
    temporary-file prefix, no segment starting with a dot (a hidden note, :data:`HIDDEN_WHY`). Spaces, colons, ``#`` and every other character are allowed.
    """
    if not isinstance(slug, str) or not slug.strip():
        return "the name is empty"
    m = _SOMETHING_ELSE.search(slug)  # the first character _looks_like_something_else accepts
    bad = m.group() if m else None
    if bad is not None:
        return f"it contains an invisible or control character (U+{ord(bad):04X} {unicodedata.name(bad, 'control')})"
    if "\\" in slug:
        return "it contains a backslash; use '/' between folders"
    if slug.startswith("/") or (len(slug) > 1 and slug[0].isascii() and slug[0].isalpha() and slug[1] == ":" and (len(slug) == 2 or slug[2] == "/")):
        return "it is an absolute path; slugs are relative to the brain, e.g. people/ana-lima"
    parts = slug.split("/")
    hidden = None  # the first segment starting with a dot: said only when no segment has a worse problem
    for i, part in enumerate(parts):
        if len(part.encode("utf-8", "surrogatepass")) > NAME_MAX - (3 if i == len(parts) - 1 else 0):
            # no file system holds such a name (its file is NAME.md); said before any look-up reads it
            # (a 100,000-byte name failed reads with "LIKE or GLOB pattern too complex": trial 66)
            return f"a name longer than {NAME_MAX} bytes (with .md) cannot be a file"
        if part.strip() in ("", ".", ".."):
            url = _URL_RE.match(slug)
            if url and url.end() < len(slug):  # memory://people/ana (another memory server's URLs: trial 48)
                return f"it is a URL; a slug has no scheme: give {slug[url.end():]}"
            return "it has an empty, blank, '.' or '..' segment"
        if part == ".raw":
            return _raw_problem(slug)
        if part in RESERVED_DIRS:
            return f"it points into {part}/, which gbrain keeps out of the brain"
        if part.startswith(".gbrain-tmp-"):
            return "it uses gbrain's temporary-file prefix"
        if part.startswith(".") and hidden is None:
            hidden = part
    # the mildest rule last: exact_slug finds a hidden name as written (an older gbrain's page),
    # so it must pass every other rule of every segment (`.x/../river`, `.x/.git/config`)
    return HiddenName.of(hidden) if hidden is not None else None


#: :func:`slug_problem`'s reason for a name with a segment starting with a dot (``.github/x``,
#: ``.hermes/notes``, ``.draft``). Obsidian (and every file manager) hides such files and folders,
#: so a vault's user never sees the notes there: they are kept as files, byte for byte, exported
#: and synced like an attachment, but are no pages (no search, list, links, lint). A fixed rule of
#: the name, not of a folder's ``.gbrainignore``: a page's name means the same to every command,
#: MCP client and synced folder of the brain (a team's Postgres brain has several), and a tree
#: imported into a new brain gives the same pages. Rename the folder without its dot to make its
#: notes pages (Obsidian shows them then too). ``.raw/`` keeps its own reason (:func:`_raw_problem`).
HIDDEN_WHY = "its name or a folder of it starts with a dot ({part}), hidden in Obsidian: kept as a file, not a page"


class HiddenName(str):
    """:func:`slug_problem`'s answer when the hidden rule (:data:`HIDDEN_WHY`) is the name's only
    problem: the message, a ``str`` as every other answer, with ``hidden``, the first segment
    starting with a dot (``.github``). :func:`is_hidden_why` reads the type, not the words."""

    hidden: str

    @classmethod
    def of(cls, part: str) -> "HiddenName":
        """The answer for a name whose first hidden segment is ``part``."""
        h = cls(HIDDEN_WHY.format(part=part))
        h.hidden = part
        return h


#: device names Windows reserves in every folder, with any extension (``con.md`` too): the
#: ports 1-9 and the superscript digits ¹ ² ³, which Windows reads as digits (COM0 and LPT0 are
#: creatable), and the console's ``CONIN$``/``CONOUT$``
WINDOWS_RESERVED = {"con", "prn", "aux", "nul", "conin$", "conout$", *(f"{p}{d}" for p in ("com", "lpt") for d in "123456789\u00b9\u00b2\u00b3")}
#: the characters no Windows file name holds: ``< > : " | ? *``, a backslash (a separator there) and the controls
_WINDOWS_BAD = re.compile('[<>:"|?*\\\\\x00-\x1f]')
#: the longest relative path Windows' default limit (``MAX_PATH``: 260 UTF-16 units, the
#: drive's ``C:\`` and the closing NUL among them) lets a file have in a folder at a drive's root
WINDOWS_PATH_MAX = 256


def windows_problem(slug: str) -> str | None:
    """Why the file of page ``slug`` could not exist on Windows (a reserved device name such as
    ``con``, one of ``< > : " | ? *``, a folder ending in ``.`` or a space), or None. Not a
    :func:`slug_problem`: Linux and macOS hold these names, and import keeps such files; only
    ``put``, making a new name, warns with it."""
    m = _WINDOWS_BAD.search(slug)
    if m:
        return f"{m.group()!r} is not allowed in a file name there" if m.group() < " " or m.group() == "\\" else f"'{m.group()}' is not allowed in a file name there"
    parts = slug.split("/")
    for i, part in enumerate(parts):
        if part.split(".")[0].rstrip(" ").lower() in WINDOWS_RESERVED:
            return f"'{part}' is a reserved device name there"
        if i < len(parts) - 1 and part.endswith((".", " ")):
            return f"the folder '{part}' ends with {'a dot' if part.endswith('.') else 'a space'}, which Windows drops"
    return None


def windows_path_problem(path: str) -> str | None:
    """Why the file at ``path`` (relative, ``/`` between folders; any file, a page's with its
    ``.md``) could not be checked out as it is on Windows: :func:`windows_problem`, a file name
    ending in ``.`` or a space (Windows drops it), or a path longer than
    :data:`WINDOWS_PATH_MAX` UTF-16 units (over ``MAX_PATH`` even at a drive's root). None when
    none of these holds."""
    why = windows_problem(path)
    if why:
        return why
    name = path.rpartition("/")[2]
    if name.endswith((".", " ")):
        return f"its name ends with {'a dot' if name.endswith('.') else 'a space'}, which Windows drops"
    units = len(path.encode("utf-16-le")) // 2
    if units > WINDOWS_PATH_MAX:
        return f"its path is {units:,} characters long, over Windows' 260-character limit (MAX_PATH) even in a folder at a drive's root"
    return None


def portability_problems(paths: Iterable[str], windows_of: "set[str] | None" = None) -> list[dict]:
    """The names among ``paths`` (every file of a brain, relative) that a copy of the folder on
    another system could not hold as they are (a git checkout or a file-sync tool on macOS or
    Windows, whose file systems ignore letter case and, on macOS, Unicode normalisation by
    default). Each problem is a dict with ``kind``, ``path`` (the first name, sorted), ``paths``
    (every name involved) and ``why``:

    - ``case``: files whose paths are one name there (``Note.md``/``note.md``, ``People/ana.md``/
      ``people/Ana.md``, NFC/NFD spellings): one of them would be lost in such a copy;
    - ``folder_case``: a folder spelled two ways (``People/``, ``people/``): one folder there, its
      notes merged, and the next sync on that machine reads their paths in one spelling;
    - ``windows``: a name Windows cannot hold (:func:`windows_path_problem`), one path each.

    ``windows_of``: only these paths are checked for ``windows`` (the paths a sync round added;
    None: every path). Pure; the order is by kind, then path."""
    files: dict[str, list[str]] = {}
    folders: dict[str, set[str]] = {}
    windows = []
    dirs = set()
    for p in paths:
        files.setdefault(slug_key(p), []).append(p)
        dirs.add(p.rpartition("/")[0])
        if windows_of is None or p in windows_of:
            why = windows_path_problem(p)
            if why:
                windows.append({"kind": "windows", "path": p, "paths": [p], "why": why})
    seen = set()
    for d in dirs:  # each folder spelling once (a brain has far fewer folders than files)
        while d and d not in seen:
            seen.add(d)
            folders.setdefault(slug_key(d), set()).add(d)
            d = d.rpartition("/")[0]
    out = []
    for group in files.values():
        if len(group) > 1:
            group.sort()
            out.append({"kind": "case", "path": group[0], "paths": group,
                        "why": f"{len(group)} files whose names differ only in letter case or Unicode form: one name on macOS and Windows, "
                               "where a copy of the folder keeps one of them"})
    case = sorted(out, key=lambda f: f["path"])
    fold = []
    for spellings in folders.values():
        if len(spellings) > 1:
            group = sorted(spellings)
            fold.append({"kind": "folder_case", "path": group[0], "paths": group,
                         "why": f"one folder spelled {len(group)} ways: one folder on macOS and Windows, where their files meet "
                                "(and a sync there reads them under one spelling: moves)"})
    return case + sorted(fold, key=lambda f: f["path"]) + sorted(windows, key=lambda f: f["path"])


def check_slug(slug: str, *, keep_spaces: bool = False) -> str:
    """Validate a user-given slug and return it normalised (NFC; surrounding whitespace, a
    leading ``./`` and a ``.md`` suffix removed; ``keep_spaces``: the whitespace kept, the name
    of a new page ``put`` creates, as import names a file `` lead.md``: :func:`space_problem`).

    Raises :class:`BadInput` when :func:`slug_problem` finds the slug unsafe: it would write
    outside the brain or to an ambiguous file. Lookups try the slug exactly as given first
    (:func:`exact_slug`), so a page named ``Draft plan `` or ``x.md`` is still reachable, and so is a page
    a brain held under a hidden name (``.github/x``) before import/sync made such notes files.
    """
    if not isinstance(slug, str) or not slug.strip():
        raise BadInput("slug is empty")
    bad = next((c for c in slug if _looks_like_something_else(c)), None)
    if bad is not None:  # checked before stripping: `people/x\n` is not silently `people/x`
        raise BadInput(f"slug {slug!r} contains an invisible or control character (U+{ord(bad):04X} {unicodedata.name(bad, 'control')}); a name must look like what it is")
    s = slug if keep_spaces else slug.strip()
    while s.startswith("./"):
        s = s[2:]
    if is_markdown(s):
        s = s[:-3]
    why = slug_problem(s)
    if why:
        said = repr(slug) if len(slug) <= 300 else f"{slug[:200]!r}… ({len(slug):,} characters)"  # no 100 KB error line
        raise BadInput(f"slug {said}: {why}")
    return nfc(s)


def space_problem(slug: str) -> str | None:
    """Which segment of ``slug`` starts or ends with white space (``' lead'``, ``'notes/trail '``),
    said as ``"starts with a space"`` / ``"the folder 'a ' ends with a space"``, or None. No
    :func:`slug_problem`: import keeps such a file name as its page's name, and so does ``put``
    (it warns: the space is easy to add by mistake and hard to see)."""
    parts = slug.split("/")
    for i, part in enumerate(parts):
        where = "starts" if part[:1].isspace() else "ends" if part[-1:].isspace() else None
        if where:
            return f"{'its name' if i == len(parts) - 1 else f'the folder {part!r}'} {where} with a space"
    return None


def exact_slug(slug: str) -> str | None:
    """``slug`` exactly as given (NFC), when it is a valid slug: the first name every lookup
    tries, so names ending in a space, starting with ``./``-free dots or ending in ``.md``
    (file ``x.md.md``) are found as written. None when it is not a valid slug."""
    if not isinstance(slug, str):
        return None
    s = nfc(slug)
    why = slug_problem(s)
    return s if why is None or is_hidden_why(why) else None  # a page a brain held before the hidden rule: still found


def is_hidden_path(path: str) -> bool:
    """Whether the relative path (or slug) ``path`` has a segment starting with a dot
    (``.github/x.md``, ``notes/.draft.md``): a markdown file there is kept as a file, no page
    (:data:`HIDDEN_WHY`). A ``.raw/`` sidecar's path is one too (its own rule keeps it no page)."""
    return "/." in "/" + path


def hidden_page_note(path: str) -> str:
    """What import and sync add to a hidden note's warning when a page an older gbrain stored
    there became its file (``; it was a page: its versions stay in `gbrain history SLUG```)."""
    return f"; it was a page: its versions stay in `gbrain history {cmd_arg(slug_for_path(path))}`"


def hidden_page_write(slug: str) -> str:
    """The refusal of a write (``put``, ``tag``, ``link``, ``timeline-add``, ``revert``, …) of
    ``slug``, a page an older gbrain stored under a hidden name (:data:`HIDDEN_WHY`) that no
    import or sync has made its file yet: no page has such a name, so none is edited; its text
    stays as it is (the next import or sync of its folder makes it the file, its versions kept)
    and ``move`` gives it a name Obsidian shows, a page again."""
    return (f"{slug}: {slug_problem(slug)}; a page an older gbrain stored there: nothing was written "
            f"(the next import or sync of its folder makes it that file, its versions kept; "
            f"`gbrain move {cmd_arg(slug)} NEW` makes it a page under a shown name)")


def is_hidden_why(why: str | None) -> bool:
    """Whether :func:`slug_problem`'s answer ``why`` is the hidden-note rule (:data:`HIDDEN_WHY`):
    a :class:`HiddenName` (its type, not its words: a text that only reads like it is not it)."""
    return isinstance(why, HiddenName)


def segments_key(slug: str) -> str:
    """Case-insensitive key with the spaces around each segment dropped: ``notes/Draft plan ``
    and ``notes/draft plan`` meet (the last lookup before suggestions)."""
    return "/".join(part.strip() for part in slug_key(slug).split("/"))


#: bidi overrides/isolates/marks and invisible characters that make a name display as another
#: (the "Trojan Source" family, CVE-2021-42574); ZWJ/ZWNJ stay allowed (emoji, Persian, Indic)
INVISIBLE = set("\u061c\u200b\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068\u2069\ufeff\u00ad\u180e\u2028\u2029")


def _looks_like_something_else(c: str) -> bool:
    """A control character (C0, DEL, C1), a line/paragraph separator, or one of :data:`INVISIBLE`."""
    return c in INVISIBLE or unicodedata.category(c) in ("Cc", "Zl", "Zp")


#: the characters :func:`_looks_like_something_else` accepts, as one class: category Cc is
#: U+0000-001F and U+007F-009F, Zl is U+2028 alone, Zp U+2029 alone (tests/test_slugs_chars.py
#: checks the class against the function over every code point)
_SOMETHING_ELSE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029" + "".join(sorted(INVISIBLE)) + "]")


def shown(text: str) -> str:
    """``text`` for a message: each control, bidi or invisible character (as
    :func:`slug_problem` judges them) written as a ``\\uXXXX`` escape, so a name printed to a
    terminal looks like what it is (a right-to-left override would reorder the line)."""
    if not any(_looks_like_something_else(c) for c in text):
        return text
    return "".join(f"\\u{ord(c):04x}" if _looks_like_something_else(c) else c for c in text)


#: characters a POSIX shell reads as something other than part of a word (white space,
#: quotes, globs, redirections, ``$``, ``#``, ``~``, ``!``): a name holding one is quoted in advice
_SHELL_SPECIAL = re.compile(r"[\s'\"\\$`!*?\[\]{}()<>|&;#~^]")


def cmd_arg(name: "str | os.PathLike[str]") -> str:
    """``name`` (a slug, path or folder) as one word of a command line quoted in advice
    (`` `gbrain restore NAME` ``): as it is when a shell reads it as one word (letters of any
    script, digits, ``-_./:,@%+=``), else single-quoted as :func:`shlex.quote` does
    (``'meetings/Weekly sync'``), so the command runs when pasted into a shell and
    ``registry.tool_text`` (``shlex.split``) gives an agent the whole name. Pure."""
    name = os.fspath(name)
    if name and not name.startswith("-") and not _SHELL_SPECIAL.search(name):
        return name
    return "'" + name.replace("'", "'\"'\"'") + "'"


def _raw_problem(slug: str) -> str:
    """:func:`slug_problem`'s reason for a name inside a ``.raw/`` folder: the sidecars there
    hold pages' raw data, are no pages, and are read and written through the page (``raw``);
    a sidecar's conflict copy is merged that way and deleted in the synced folder."""
    orig = conflict_original(slug) or slug
    page = page_slug_for_sidecar(orig)
    if page is None:
        return "it points into .raw/, where pages keep their raw-data sidecars, which are no pages (`gbrain raw SLUG` reads a page's)"
    why = f"it points into .raw/: a raw-data sidecar is no page; `gbrain raw {cmd_arg(page)}` reads {page}'s raw data"
    if orig != slug:
        why += (f" and `gbrain raw-put {cmd_arg(page)} --source SOURCE --data JSON` stores a source from this conflict copy, "
                "which is deleted in the synced folder (no command deletes a file that is not a page)")
    return why


def path_for_slug(slug: str) -> str:
    return slug + ".md"


def sidecar_path(slug: str) -> str:
    """``people/ana`` → ``people/.raw/ana.json``."""
    d, name = posixpath.split(slug)
    return posixpath.join(d, ".raw", name + ".json")


def page_slug_for_sidecar(path: str) -> str | None:
    """``people/.raw/ana.json`` → ``people/ana``; None when ``path`` is not a sidecar."""
    d, name = posixpath.split(path)
    if posixpath.basename(d) != ".raw" or not name.lower().endswith(".json"):
        return None
    return nfc(posixpath.join(posixpath.dirname(d), name[:-5]))


def _stem(page_path: str) -> str:
    """A page's path without its ``.md``, as written (no NFC: a sidecar's name keeps the form)."""
    return page_path[:-3] if is_markdown(page_path) else page_path


def page_sidecar_path(page_path: str) -> str:
    """The ``.raw`` sidecar named as the page at ``page_path`` is, as written (``people/Ana.md`` →
    ``people/.raw/Ana.json``): what ``raw-put`` writes for a page that has none."""
    return sidecar_path(_stem(page_path))


def sidecar_ranges(page_path: str) -> list[tuple[str, str]]:
    """Ranges of paths (``lo <= path < hi``, code-point order: SQLite's and gbrain's Postgres
    collation) holding every sidecar of the page at ``page_path`` (``people/.raw/ana.`` to
    ``people/.raw/ana/``: ``ana.json``, ``ana.JSON``, and names of other pages, ``ana.b.json``,
    to filter with :func:`page_slug_for_sidecar`): one per spelling of its file name, as
    written, NFC and NFD (a name mixing both forms is left out: no file system or tool writes
    one)."""
    stem = _stem(page_path)
    pre = {sidecar_path(s)[: -len(".json")] for s in (stem, nfc(stem), unicodedata.normalize("NFD", stem))}
    return sorted((p + ".", p + "/") for p in pre)


def moved_sidecar_path(path: str, old_page_path: str, new_page_path: str) -> str:
    """Where the ``.raw`` sidecar ``path`` of the page at ``old_page_path`` goes when the page moves
    to ``new_page_path``: the new page's sidecar folder and file name, in the Unicode form the
    sidecar's name had beside its page's (as written, NFC or NFD) and with its extension spelled
    as it was (``ana.JSON`` → ``bob.JSON``). Two sidecars may get one name (``josé.json`` in NFC
    and NFD moved to ``bob``): the caller moves the one :func:`chosen_sidecar` takes first."""
    old, new = _stem(old_page_path), _stem(new_page_path)
    name = posixpath.basename(path)
    stem, ext = name[:-5], name[-5:]
    old_name, new_name = posixpath.basename(old), posixpath.basename(new)
    if stem != old_name:
        for form in ("NFD", "NFC"):
            if stem == unicodedata.normalize(form, old_name):
                new_name = unicodedata.normalize(form, new_name)
                break
    return posixpath.join(posixpath.dirname(sidecar_path(new)), new_name + ext)


def chosen_sidecar(paths: Iterable[str], page_path: str) -> str:
    """Of several ``.raw`` sidecars of one page (``ana.json`` beside ``ana.JSON``, or one name in
    NFC and NFD: :func:`page_slug_for_sidecar` gives each the page's slug), the one gbrain reads
    and writes (``raw``, ``raw-put``, the page's raw rows): the one named as its page is (the
    page's file name ``page_path`` less ``.md``, plus ``.json``: what ``raw-put`` writes), else
    one ending in ``.json`` in lower case, else the first in code-point order. The others are
    kept as they are (export writes them) but not read. Pure: it depends on the names alone."""
    own = page_sidecar_path(page_path)
    return min(paths, key=lambda p: (p != own, not p.endswith(".json"), p))


def sidecar_twins_note(slug: str, paths: Iterable[str], page_path: str) -> str:
    """``"2 sidecars for people/ana: ana.JSON, ana.json — using ana.json (…)"``: the words every
    surface (import's report and warnings, lint, raw, raw-put) gives for a page with more than one
    ``.raw`` sidecar, naming the one :func:`chosen_sidecar` takes and why. Names that look alike
    show their Unicode form."""
    paths = sorted(paths)
    chosen = chosen_sidecar(paths, page_path)
    alike = len({nfc(p) for p in paths}) < len(paths)
    why = ("named as its page" if chosen == page_sidecar_path(page_path) else "none is named as its page: the first ending in .json"
           if chosen.endswith(".json") else "none is named as its page: the first by name")
    others = "the other is" if len(paths) == 2 else "the others are"

    def name(p: str) -> str:
        return shown(posixpath.basename(p)) + ((unicode_form(p) or " (NFC)") if alike else "")

    return (f"{len(paths)} sidecars for {shown(slug)}: {', '.join(name(p) for p in paths)} — using {name(chosen)} "
            f"({why}; raw and raw-put read and write it, {others} kept and exported but not read)")
