"""Scan a markdown tree: which files belong to the brain, with their size and mtime.

Skipped, and listed with a reason so nothing disappears silently: ``.git/`` (and other VCS
folders), editor temp and swap files, symlinks (never followed), non-regular files, the brain
database itself when it sits inside the tree, and anything matched by ``.gbrainignore``
(gitignore syntax, via ``pathspec``), and by default Obsidian's ``.obsidian/`` and ``.trash/``
(:data:`DEFAULT_IGNORE`; ``!.obsidian/`` in ``.gbrainignore`` brings one back).

Every other hidden folder or file (a name starting with a dot: ``.github/``, ``.hermes/``) is
walked and stored, byte for byte, so import → export and sync keep it; a markdown note there is
kept as a file, never a page (``page.slugs.HIDDEN_WHY``: Obsidian never shows it), which is no
ignore rule: ignoring it would drop it from export and leave it unsynced.
"""
from __future__ import annotations

import operator
import os
import re
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pathspec

from ..storage.blobs import is_symlink_refusal, open_nofollow

IGNORE_FILE = ".gbrainignore"
VCS_DIRS = {".git", ".hg", ".svn"}
TMP_PREFIX = ".gbrain-tmp-"
#: editors' swap/backup/temp name endings (:func:`is_temp_name`): vim's swap files, the ``~``
#: backups of vim, emacs, nano and Kate, JetBrains' safe-write files, Chrome's ``.crswap``, the
#: ``.tmp`` of atomic saves (Syncthing's ``.syncthing.NAME.tmp`` too), Kate's swap, downloads
#: in progress (Chrome's ``.crdownload``, Firefox's and KIO's ``.part``)
TEMP_SUFFIXES = (".swp", ".swo", ".swx", ".swpx", "~", "___jb_tmp___", "___jb_old___", ".crswap",
                 ".tmp", ".kate-swp", ".crdownload", ".part")
#: temp name beginnings: gbrain's own, emacs' lock links, LibreOffice's locks, GIO's atomic
#: replace (gedit, GNOME Text Editor: ``.goutputstream-XXXXXX``, renamed over the note)
TEMP_PREFIXES = (TMP_PREFIX, ".#", ".~lock.", ".goutputstream-")
#: in a hidden name, what Nextcloud's and ownCloud's clients put between the file's name and a
#: random suffix in the file they download into (``.note.md.~1a2b3c``, renamed over the note)
PARTIAL_MARK = ".~"


def change_stamp(st: os.stat_result) -> int:
    """The stat value sync compares to decide a file may have changed (nanoseconds).

    ``max(st_mtime_ns, st_ctime_ns)``: an edit that restores the old mtime (``touch -d``,
    ``rsync -a``, ``cp -p``, a backup restore) still moves the ctime, which no user tool sets.
    """
    return max(st.st_mtime_ns, st.st_ctime_ns)


def file_id(st: os.stat_result) -> int:
    """The identity of the file behind ``st``, its device and inode, folded into one integer that
    fits a signed 64-bit column (SQLite ``INTEGER``, Postgres ``BIGINT``): what sync records in
    ``sync_state.file_id`` to pair a renamed file with its old path (``mv`` and renames keep the
    inode). A fold, so two files could share one in theory: pairing also asks that the contents
    agree (:func:`gbrain.sync.plan.decide`)."""
    return ((st.st_dev * 0x9E3779B97F4A7C15) ^ st.st_ino) & 0x7FFFFFFFFFFFFFFF


def is_temp_name(name: str) -> bool:
    """Editor temp/swap/backup files, atomic-save temp files, downloads in progress (a
    browser's; a sync client's: Syncthing's ``.syncthing.NAME.tmp``, Nextcloud's ``.NAME.~XXXX``) and
    gbrain's own atomic-write temp files: never part of the brain, not even for a moment (no
    ``.gbrainignore`` line brings them in; a backup a person may keep, ``*.bak``, is a default
    ignore rule instead: :data:`DEFAULT_IGNORE`). Called for every name of every walk: most
    names fail the first test (a temp name starts with ``.``, ``#`` or ``4`` or ends in one of
    :data:`TEMP_SUFFIXES`)."""
    if name[:1] not in ".#4" and not name.endswith(TEMP_SUFFIXES):
        return False
    return (
        name.startswith(TEMP_PREFIXES)
        or name.endswith(TEMP_SUFFIXES)
        or (name.startswith("#") and name.endswith("#"))
        or name == "4913"  # vim's write-permission probe
        or (name[:1] == "." and PARTIAL_MARK in name[1:])  # a sync client's download in progress
    )


#: kinds of :class:`Why`: the user's choice, never a failure (a sync keeps the page as it was,
#: names it, exit 0): a symlink or a path in a symlinked folder, and a path ``.gbrainignore`` or
#: the default rules ignore; a name that is not UTF-8; anything else (cannot read, stat or
#: remove it, changed while read, not a regular file, …): left alone this time, exit 1; a file
#: deleted or moved away between the listing and its read (:data:`VANISHED`): a person's race with
#: the sync, no failure (exit 0, named): the next round sees it gone
SYMLINK, IGNORED, BAD_NAME, UNREADABLE, VANISHED = "symlink", "ignored", "bad-name", "unreadable", "vanished"
#: a write through gbrain the folder refused (read-only mount, no permission): the brain keeps
#: the change, the file stays as it is (exit 1 for sync: the two differ; watch says it once)
UNWRITABLE = "unwritable"
#: a file whose bytes are exactly a version ``gbrain purge`` removed (config ``purge_log``): not
#: imported, so the purge is not undone (import, sync, watch; ``--include-purged`` takes it):
#: the user's choice, as an ignored file is (exit 0, named, never retried)
PURGED = "purged"


class Why(str):
    """Why a path is left alone: its text is for people (reports, logs), its ``kind`` (one of
    :data:`SYMLINK`, :data:`IGNORED`, :data:`BAD_NAME`, :data:`UNREADABLE`, :data:`VANISHED`) is what code decides
    on, never the wording. ``within``: left alone because a folder above it is
    (:func:`inside`)."""

    kind: str
    within: bool
    shown: str | None

    def __new__(cls, text: str, kind: str = UNREADABLE, within: bool = False, shown: str | None = None) -> "Why":
        self = super().__new__(cls, text)
        self.kind, self.within, self.shown = kind, within, shown
        return self


def kind_of(why: str) -> str:
    """The kind of a reason: a plain string is :data:`UNREADABLE`."""
    return getattr(why, "kind", UNREADABLE)


def report_kind(why: str) -> str:
    """The kind a report counts ``why`` under: :func:`kind_of`, but for a reason that says more
    than its kind (:data:`NOT_REGULAR`: ``not-regular``, a pipe, socket or device, left alone as
    an unreadable file is but never a read that failed)."""
    return getattr(why, "shown", None) or kind_of(why)


def inside(why: str) -> Why:
    """The reason of a path inside a folder left alone for ``why``: of the same kind."""
    return Why(f"in a skipped folder: {why}", kind_of(why), True)


#: a pipe, socket or device file: never read (a read could block), left alone as an unreadable
#: file is (sync, watch) and counted apart in reports (:func:`report_kind`)
NOT_REGULAR = Why("not a regular file", UNREADABLE, shown="not-regular")
#: a symlink is never followed (sync, watch, import, export)
NOT_FOLLOWED = Why("symlink (not followed)", SYMLINK)
#: a path under a symlinked folder
IN_LINKED_FOLDER = Why("inside a symlinked folder (not followed)", SYMLINK)
#: a file the walk listed, deleted or moved away before (or while) it was read: the person's
#: change, no failure (the next round takes the deletion or pairs the move)
GONE_WHILE_READ = Why("vanished while being read", VANISHED)


def read_failure(e: OSError) -> Why:
    """What a failed read of a file the walk listed is, the one reading of it for sync's rounds,
    watch's and import: :data:`GONE_WHILE_READ` (``FileNotFoundError``), :data:`NOT_FOLLOWED` (a
    symlink now, or a folder on the way one: the open refused to follow it,
    ``blobs.is_symlink_refusal``; left alone as the walk leaves one), else a failure to read,
    kind :data:`UNREADABLE`: ``cannot read: ERROR``, the bare error in ``.error``. An ``e``
    raised while a KeyboardInterrupt (Ctrl-C, SIGTERM's ``Terminated``) unwound, a clean-up that
    failed, is that interrupt, raised (``db.raise_interrupt``): never a file called unreadable and
    the sync going on."""
    from ..storage.db import raise_interrupt

    raise_interrupt(e)
    if isinstance(e, FileNotFoundError):
        return GONE_WHILE_READ
    if is_symlink_refusal(e):
        return NOT_FOLLOWED
    err = e.strerror or str(e)
    why = Why(f"cannot read: {err}", UNREADABLE)
    why.error = err
    return why
#: why a file or folder whose name is not valid UTF-8 is skipped (old zip or Samba trees)
NOT_UTF8 = Why("name is not valid UTF-8 (skipped; rename the file to bring it in)", BAD_NAME)


def undecodable(name: str) -> bool:
    """True when a name from the OS is not valid UTF-8: Python carries its bad bytes as lone
    surrogates (``surrogateescape``), which SQLite and JSON cannot store."""
    try:
        name.encode("utf-8")
        return False
    except UnicodeEncodeError:
        return True


def escaped(rel: str) -> str:
    """A printable spelling of ``rel`` for reports: bytes that are not UTF-8 as ``\\xNN``
    (``caf\\xe9.md``)."""
    return os.fsencode(rel).decode("utf-8", "backslashreplace")


#: a file's size and change stamp when the scan did not take them (``scan_tree(sizes=False)``)
NOT_TAKEN = -1


@dataclass
class FileInfo:
    path: str  # relative, '/'-separated, exact on-disk spelling
    abspath: str
    size: int  # bytes, or NOT_TAKEN
    mtime_ns: int  # change_stamp(): max of mtime and ctime, or NOT_TAKEN


@dataclass
class Scan:
    root: Path
    files: list[FileInfo] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, reason)
    #: ``(path, size, change stamp)`` per file, instead of ``files`` (from ``SyncEngine.scan``)
    stats: list[tuple[str, int, int]] | None = None
    #: False when the files' sizes and change stamps were not taken (``scan_tree(sizes=False)``)
    sizes: bool = True
    #: ``(absolute, relative path)`` of gbrain's own atomic-write temp files found (``TMP_PREFIX``)
    temps: list[tuple[str, str]] = field(default_factory=list)


#: files an operating system leaves in folders it shows: Finder's ``.DS_Store``, AppleDouble
#: ``._name`` (one per file on exFAT, FAT and SMB volumes), a custom folder icon's ``Icon\r``,
#: Windows Explorer's ``Thumbs.db``, ``ehthumbs.db`` and ``desktop.ini``: gitignore patterns
SYSTEM_METADATA = (".DS_Store", "._*", "Icon[\r]", "Thumbs.db", "ehthumbs.db", "desktop.ini")

#: what file-sync tools keep in the folders they sync, gitignore patterns: their own folders
#: (:data:`SYNC_TOOL_DIRS`, which hold copies of notes: Syncthing's old versions in
#: ``.stversions/``, Dropbox's ``.dropbox.cache/``) and files: Syncthing's ``.stignore``,
#: Dropbox's ``.dropbox`` and ``.dropbox.attr``, Nextcloud's and ownCloud's sync journals and
#: logs, and iCloud Drive's placeholder ``.NAME.icloud`` of a file it evicted from this device
#: (:func:`icloud_placeholder`)
SYNC_TOOL_DIRS = {".stversions/": "Syncthing's old versions", ".stfolder/": "Syncthing's folder marker",
                  ".dropbox.cache/": "Dropbox's cache"}
SYNC_TOOL_FILES = (".stignore", ".dropbox", ".dropbox.attr", ".sync_*.db*", ".csync_journal.db*",
                   ".owncloudsync.log*", ".nextcloudsync.log*", ".*.icloud")
SYNC_TOOL_METADATA = tuple(SYNC_TOOL_DIRS) + SYNC_TOOL_FILES

#: ignored unless ``.gbrainignore`` says otherwise (``!.obsidian/``, ``!.DS_Store``): Obsidian's
#: settings, which change on every click (workspace.json), its trash,
#: :data:`SYSTEM_METADATA` and :data:`SYNC_TOOL_METADATA`. The user's lines come after these, so
#: a negation brings one back (gitignore's last-match-wins).
DEFAULT_IGNORE = (".obsidian/", ".trash/") + SYSTEM_METADATA + SYNC_TOOL_METADATA + ("*.bak", "*.orig")

#: backups an editor or a tool leaves beside a file (``note.md.bak``; ``note.md.orig`` from a
#: merge or ``patch``): ignored by default, as an editor's save that renames the note to its
#: backup would store it for a moment, but a person may keep them on purpose: ``!*.bak`` in
#: ``.gbrainignore`` brings them in
BACKUP_SUFFIXES = (".bak", ".orig")


def is_system_metadata(name: str) -> bool:
    """Whether the file name ``name`` is one of :data:`SYSTEM_METADATA`'s or of a sync tool's
    files (:data:`SYNC_TOOL_FILES`), so a walk leaves it out without a line in the report when
    the ignore rules skip it."""
    return name in _SYSTEM_NAMES or name[:2] == "._" or is_sync_tool_file(name)


_SYSTEM_NAMES = frozenset((".DS_Store", "Icon\r", "Thumbs.db", "ehthumbs.db", "desktop.ini"))
_SYNC_TOOL_FILE = re.compile(r"\.(?:stignore|dropbox|dropbox\.attr|sync_.*\.db.*|csync_journal\.db.*|(?:own|next)cloudsync\.log.*|.+\.icloud)", re.DOTALL)


def is_sync_tool_file(name: str) -> bool:
    """Whether the file name ``name`` matches one of :data:`SYNC_TOOL_FILES` (``.stignore``,
    ``.sync_1a2b.db-wal``, ``.note.md.icloud``)."""
    return name[:1] == "." and _SYNC_TOOL_FILE.fullmatch(name) is not None


#: the end of iCloud Drive's placeholder name: ``.NAME.icloud`` stands for ``NAME``
ICLOUD_SUFFIX = ".icloud"


def icloud_placeholder(rel: str) -> str:
    """The path of iCloud Drive's placeholder for the relative path ``rel`` (``a/Note.md`` →
    ``a/.Note.md.icloud``): what the folder holds instead of the file when iCloud evicted it
    from this device (Optimize Mac Storage) to download it again when it is opened."""
    d, _, name = rel.rpartition("/")
    return f"{d}/.{name}{ICLOUD_SUFFIX}" if d else f".{name}{ICLOUD_SUFFIX}"


#: the beginning of the reason a path the brain holds is left as it is while only iCloud's
#: placeholder is on disk (:func:`evicted`)
EVICTED = "evicted by iCloud Drive"


def evicted(root: str | os.PathLike, rel: str) -> Why | None:
    """Why the file ``rel`` (relative to the tree at ``root``), absent from disk, is no
    deletion: iCloud Drive's placeholder for it (:func:`icloud_placeholder`) is there, so iCloud
    evicted it from this device and downloads it again when it is opened. A reason of kind
    :data:`IGNORED` (its page stays in the brain as it was, neither trashed nor written back,
    where iCloud would keep both as ``NAME 2``), or None when there is no placeholder. One
    ``lstat``."""
    ph = icloud_placeholder(rel)
    if not os.path.lexists(os.path.join(os.fspath(root), *ph.split("/"))):
        return None
    return Why(f"{EVICTED} (only its placeholder {ph.rsplit('/', 1)[-1]} is on this device): kept in the brain as it was until the file is back", IGNORED)


def is_evicted(why: str) -> bool:
    """Whether a reason is :func:`evicted`'s."""
    return str(why).startswith(EVICTED)


def load_ignore(root: Path) -> pathspec.PathSpec:
    """The ignore rules of ``root``: :data:`DEFAULT_IGNORE`, the linked git worktrees inside it
    (:func:`gitstate.worktrees_inside`: a second checkout of the same notes), then
    ``root/.gbrainignore`` (gitignore syntax, via ``pathspec``; ``!wt/`` brings a worktree in).
    The spec carries ``worktrees`` (those folders), ``worktrees_stamp`` and ``lines`` (every
    rule, in order)."""
    from .gitstate import worktrees_inside

    lines = list(DEFAULT_IGNORE)
    trees, stamp = worktrees_inside(root)
    lines += ["/" + glob_escape(t) for t in trees]
    f = root / IGNORE_FILE
    if f.is_file():
        lines += f.read_text(encoding="utf-8", errors="replace").splitlines()
    spec = pathspec.GitIgnoreSpec.from_lines(lines)
    spec.worktrees = frozenset(trees)
    spec.worktrees_stamp = stamp
    spec.lines = tuple(lines)  # what it was made of: two specs of equal lines and worktrees ignore alike
    return spec


def glob_escape(rel: str) -> str:
    """``rel`` as a gitignore pattern that matches only itself (``*?[\\`` and a leading ``#``/``!``
    escaped, trailing blanks kept)."""
    out = re.sub(r"([*?\[\\])", r"\\\1", rel)
    if out[:1] in ("#", "!"):
        out = "\\" + out
    if out.rstrip(" ") != out:
        out = out.rstrip(" ") + "\\ " * (len(out) - len(out.rstrip(" ")))
    return out


_NAMED_GROUP = re.compile(r"\(\?P<[A-Za-z_][A-Za-z0-9_]*>")
_ANY_DIR = "^(?:.+/)?"  # how pathspec begins the regex of a pattern that matches in any folder


def ignore_matcher(spec: pathspec.PathSpec | None) -> Callable[[str], bool]:
    """``spec.match_file`` for relative ``'/'``-separated paths, screened by one regular
    expression: the alternation of every pattern's regex answers "does any pattern match?" in one
    C call, and only a path some pattern matches is handed to ``spec.match_file`` (which weighs
    negations and directory patterns). A path no pattern matches is not ignored, so the answer is
    ``spec.match_file``'s for every path (``tests/test_sync.py`` checks it over random patterns and
    paths). Falls back to ``spec.match_file`` alone when the patterns cannot be combined (mixed
    flags, back-references). ``None`` gives a matcher that ignores nothing.

    A matcher of folder patterns (``build/``) and name patterns (``*.log``, ``._*``: no ``/``)
    only, no negation (the defaults alone are such), carries ``file_names``: what
    :func:`walk_tree` asks about each file instead (:func:`_file_names`)."""
    if spec is None:
        return _file_names(lambda rel: False, [], 0)
    m = _ignore_matcher(spec)
    trees = getattr(spec, "worktrees", None)
    if trees:
        try:
            m.worktrees = trees
        except AttributeError:  # a bound method (spec.match_file): wrap it
            inner = m
            m = lambda rel: inner(rel)  # noqa: E731
            m.worktrees = trees
    return m


def _ignore_matcher(spec: pathspec.PathSpec) -> Callable[[str], bool]:
    match_file = spec.match_file
    parts, anywhere, flags, names = [], [], set(), []
    screenable = True
    for pat in spec.patterns:
        if getattr(pat, "include", None) is None:
            continue  # a no-op pattern (a comment, a blank line) never decides
        rx = getattr(pat, "regex", None)
        if rx is None or not isinstance(rx.pattern, str) or "(?P=" in rx.pattern:
            return match_file
        one = _NAMED_GROUP.sub("(?:", rx.pattern)
        if one.startswith(_ANY_DIR):
            anywhere.append("(?:" + one[len(_ANY_DIR):] + ")")
        else:
            parts.append("(?:" + one + ")")
        flags.add(rx.flags)
        if pat.include is not True:
            screenable = False  # a negation: pathspec weighs it per file
        elif rx.pattern.endswith(_FOLDER_END):
            pass  # matches a file only below a folder it matches
        elif rx.pattern.startswith(_ANY_DIR) and rx.pattern.endswith(_NAME_END) and "/" not in rx.pattern[len(_ANY_DIR):-len(_NAME_END)].replace("[^/]", ""):
            names.append("(?:" + _NAMED_GROUP.sub("(?:", rx.pattern[len(_ANY_DIR):-len(_NAME_END)]) + ")")
        else:
            screenable = False  # anchored or with a '/' inside: asked about every file
    if anywhere:
        # the patterns that match in any folder (``^(?:.+/)?rest``: every pattern without a
        # '/' but at its end), screened as one: ``rest`` at the start or after any '/'. That
        # matches wherever one of them does (and where ``.+`` could not cross a newline), so
        # it still only screens; ~40% less than each pattern backtracking over the path
        parts.insert(0, "(?:^|/)(?:" + "|".join(anywhere) + ")")
    if not parts:
        return _file_names(lambda rel: False, [], 0)
    if len(flags) != 1:
        return match_file
    fl = flags.pop()
    try:
        screen = re.compile("|".join(parts), fl).search
    except re.error:
        return match_file

    def matcher(rel: str) -> bool:
        # normalize_file strips a leading '/' or './' first: leave such paths to pathspec
        if rel[:1] == "/" or rel[:2] == "./":
            return match_file(rel)
        return screen(rel) is not None and match_file(rel)

    return _file_names(matcher, names, fl) if screenable else matcher


#: how pathspec's regex of a folder pattern (``build/``, ``a/**/b/``) ends: it matches a path only
#: through a folder prefix ending at that ``/`` (nothing after it is looked at)
_FOLDER_END = "(?P<ps_d>/)"
#: how the regex of a name pattern (``*.log``, ``build``: no ``/`` in it) ends, after
#: :data:`_ANY_DIR`: the end or a ``/`` (a folder of that name, and what is below it)
_NAME_END = "(?:(?P<ps_d>/)|$)"


def _file_names(matcher: Callable[[str], bool], names: list[str], flags: int) -> Callable[[str], bool]:
    """Give ``matcher`` (of folder and name patterns only, no negation) a ``file_names`` attribute:
    None when no file can match but below a folder it matches, else the ``match`` of a regex over
    a file's name (the names' regexes, then ``$``). A folder pattern's regex matches a path only through a prefix ending in
    ``/``, a folder of the path that it matches too; a name pattern's through such a prefix or
    by the whole last name; and without negations ``match_file`` is "some pattern matches". So a
    file in folders the matcher did not match is ignored only when ``file_names`` matches its
    name (and then ``matcher`` gives the answer): :func:`walk_tree` asks no more of it."""
    rx = None
    if names:
        try:  # ending as pathspec's do ('$' also before a last newline: "a.md\n" matches *.md)
            rx = re.compile("(?:" + "|".join(names) + ")$", flags).match
        except re.error:
            return matcher
    matcher.file_names = rx  # type: ignore[attr-defined]
    return matcher


def ignore_reason(rel: str, worktrees: frozenset[str] | tuple = ()) -> Why:
    """Why an ignored path is skipped, for the report (``rel`` ends with ``/`` for a folder;
    ``worktrees``: the linked git worktrees the rules leave out, :func:`load_ignore`)."""
    t = next((t for t in worktrees if rel.startswith(t)), None)
    if t is not None:
        return Why(f"a linked git worktree (a second checkout of this repository; `!{t}` in .gbrainignore syncs it)", IGNORED)
    name = rel.rstrip("/").rsplit("/", 1)[-1] + "/"
    if name in SYNC_TOOL_DIRS:
        return Why(f"ignored by default ({SYNC_TOOL_DIRS[name]}; `!{name}` in .gbrainignore syncs it)", IGNORED)
    if not rel.endswith("/") and is_sync_tool_file(name[:-1]):
        return Why(f"ignored by default (a sync tool's file; `!{escaped(name[:-1])}` in .gbrainignore syncs it)", IGNORED)
    if name in DEFAULT_IGNORE:
        return Why(f"ignored by default (Obsidian's {'settings' if name == '.obsidian/' else 'trash'}; `!{name}` in .gbrainignore syncs it)", IGNORED)
    if not rel.endswith("/") and is_system_metadata(name[:-1]):
        return Why(f"ignored by default (a system metadata file; `!{escaped(name[:-1])}` in .gbrainignore syncs it)", IGNORED)
    if name[:-1].endswith(BACKUP_SUFFIXES):  # (a folder too: `*.bak` is a gitignore name pattern)
        ext = name[:-1][name[:-1].rfind("."):]
        return Why(f"ignored by default (a backup; `!*{ext}` in .gbrainignore syncs it)", IGNORED)
    return IGNORED_BY_FILE


IGNORED_BY_FILE = Why("ignored by .gbrainignore", IGNORED)


_NAME = operator.attrgetter("name")


@dataclass
class TreeWalk:
    """What :func:`walk_tree` found under one folder."""

    #: ``(relative path, size in bytes, change stamp in ns)`` per brain file, in
    #: ``os.walk``'s top-down order when ordered: a folder's files by name, then its subfolders
    #: by name (an import gives its pages ids in that order)
    files: list[tuple[str, str, int, int]] = field(default_factory=list)
    #: ``(path, reason)`` per name left out that the user should hear of (a folder's ends in ``/``)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    #: ``(relative folder + "/", strerror)`` per subfolder that could not be listed
    unreadable: list[tuple[str, str]] = field(default_factory=list)
    #: ``(absolute path, relative path)`` of gbrain's own atomic-write temp files seen
    temps: list[tuple[str, str]] = field(default_factory=list)

    def reported(self) -> list[tuple[str, str]]:
        """``skipped`` and then each unreadable subfolder as ``(folder, "unreadable folder: …")``:
        the list a whole-tree scan reports (:func:`scan_tree`, ``SyncEngine.scan``)."""
        return self.skipped + [(d.rstrip("/"), f"unreadable folder: {why}") for d, why in self.unreadable]


def walk_tree(
    root: str,
    reldir: str,
    ignored: Callable[[str], bool],
    excl: set[tuple[int, int]],
    *,
    report_ignored: bool = True,
    ordered: bool = True,
    sizes: bool = True,
    excl_names: set[str] | frozenset[str] = frozenset(),
    excl_copies: set[str] | frozenset[str] = frozenset(),
) -> TreeWalk:
    """Walk the folder ``reldir`` (``""`` or ``"a/b/"``) of the tree at absolute path ``root``
    under the brain's rules: the one walk behind :func:`scan_tree` (import, export, verify) and
    ``SyncEngine``'s whole-tree and per-folder scans (sync, watch).

    Left out silently: VCS folders (:data:`VCS_DIRS`, and a ``.git`` file: a linked worktree's
    or submodule's ``gitdir:`` pointer), temp and swap files
    (:func:`is_temp_name`; gbrain's own are listed in ``temps``), the files whose
    ``(st_dev, st_ino)`` is in ``excl`` (the database and its -wal/-shm), a file-sync tool's
    conflict copy of one of them (``excl_copies``: their paths relative to ``root``,
    :func:`db_copy_of`), a file that vanished
    before its stat. Left out and listed in ``skipped``: names that are not valid UTF-8,
    symlinks (never followed), non-regular files, files that cannot be stat-ed, and what
    ``ignored`` (a matcher of relative paths, a folder's ending in ``/``) matches unless
    ``report_ignored`` is false. Subfolders that cannot be listed go to ``unreadable``.
    ``ordered=False`` leaves each folder's entries in the file system's order (sorting them is
    ~15% of a whole-tree walk; sync compares the files as sets).

    ``sizes=False`` (``verify``, which reads every file whole anyway and learns its size from
    the read) takes no ``lstat`` of a file: its kind comes from its folder entry (``d_type``;
    an ``lstat`` only where the file system does not say), its size and change stamp are
    :data:`NOT_TAKEN`, and it is matched against ``excl`` only when its entry's inode number or
    its name (``excl_names``: the excluded files' names) is one of theirs (then by an ``lstat``,
    as always). The same files are listed and skipped with the same reasons, except that a
    file which vanishes after the listing is listed (its reader meets the absence). The
    ``lstat`` of every file was 0.15-0.2× of ``verify``'s read + sha256 floor
    (docs/performance.md).

    An ``ignored`` with :func:`ignore_matcher`'s ``file_names`` is asked about a file only when
    that screen of its name matches (56,000 calls fewer in a 50,000-page walk).

    Uses ``os.scandir``: an entry knows whether it is a folder or a link without a system
    call. Raises the ``OSError`` of listing ``reldir`` itself.
    """
    out = TreeWalk()
    skipped, add = out.skipped, out.files.append
    # a matcher of folder and name patterns (ignore_matcher's file_names) is asked about a file
    # only when its name may match: the folders below reldir are asked before they are entered,
    # reldir's own here
    screened = hasattr(ignored, "file_names")
    if screened and reldir:
        parts = reldir.rstrip("/").split("/")
        screened = not any(ignored("/".join(parts[: i + 1]) + "/") for i in range(len(parts)))
    names = getattr(ignored, "file_names", None) if screened else None
    trees = getattr(ignored, "worktrees", ())  # the linked git worktrees the rules leave out (ignore_reason)
    excl_inos = {ino for _, ino in excl} if excl else set()
    S_ISREG, S_ISLNK = stat.S_ISREG, stat.S_ISLNK
    top = os.path.join(root, *reldir.rstrip("/").split("/")) if reldir else root
    stack: list[tuple[str, str]] = [(top, reldir)]
    first = True
    while stack:
        dirpath, rd = stack.pop()
        try:
            with os.scandir(dirpath) as it:
                entries = sorted(it, key=_NAME) if ordered else list(it)
        except OSError as e:
            if first:
                raise
            out.unreadable.append((rd, e.strerror or str(e)))
            continue
        first = False
        subdirs = []
        for entry in entries:
            name = entry.name
            rel = rd + name
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                is_dir = False
            if is_dir:
                if name in VCS_DIRS:
                    continue
                if not name.isascii() and undecodable(name):
                    skipped.append((escaped(rel) + "/", NOT_UTF8))
                elif ignored(rel + "/"):
                    if report_ignored:
                        skipped.append((rel + "/", ignore_reason(rel + "/", trees)))
                else:
                    subdirs.append((entry.path, rel + "/"))
                continue
            if is_temp_name(name):
                if name.startswith(TMP_PREFIX):
                    out.temps.append((entry.path, rel))
                continue
            if name in VCS_DIRS and entry.is_file(follow_symlinks=False):
                continue  # a `.git` file: a linked worktree's or submodule's pointer to its git dir
            if excl_copies and db_copy_of(rel, excl_copies):
                continue
            if not name.isascii() and undecodable(name):
                skipped.append((escaped(rel), NOT_UTF8))
                continue
            if not sizes:
                try:
                    if not entry.is_file(follow_symlinks=False):  # rare: the reason from its lstat, as below
                        st = entry.stat(follow_symlinks=False)
                        if not S_ISREG(st.st_mode):
                            skipped.append((rel, NOT_FOLLOWED if S_ISLNK(st.st_mode) else NOT_REGULAR))
                            continue
                    if excl and (entry.inode() in excl_inos or name in excl_names):
                        st = entry.stat(follow_symlinks=False)
                        if (st.st_dev, st.st_ino) in excl:
                            continue
                except FileNotFoundError:
                    continue
                except OSError as e:
                    skipped.append((rel, f"cannot stat: {e.strerror}"))
                    continue
                if (not screened or (names is not None and names(name) is not None)) and ignored(rel):
                    if report_ignored and not is_system_metadata(name):  # as below
                        skipped.append((rel, ignore_reason(rel, trees)))
                    continue
                add((rel, NOT_TAKEN, NOT_TAKEN))
                continue
            try:
                st = entry.stat(follow_symlinks=False)
            except FileNotFoundError:
                continue
            except OSError as e:
                skipped.append((rel, f"cannot stat: {e.strerror}"))
                continue
            if not S_ISREG(st.st_mode):
                skipped.append((rel, NOT_FOLLOWED if S_ISLNK(st.st_mode) else NOT_REGULAR))
                continue
            if excl and (st.st_dev, st.st_ino) in excl:
                continue
            if (not screened or (names is not None and names(name) is not None)) and ignored(rel):
                if report_ignored and not is_system_metadata(name):  # one per folder: no news
                    skipped.append((rel, ignore_reason(rel, trees)))
                continue
            m, c = st.st_mtime_ns, st.st_ctime_ns
            add((rel, st.st_size, m if m > c else c))  # change_stamp(st), inlined
        stack.extend(reversed(subdirs))
    return out


#: why a conflict copy of the database's own files is no part of the brain (:func:`db_copy_of`)
DB_COPY = "a conflict copy of the brain database"


def db_rels(root: str | os.PathLike, paths) -> frozenset[str]:
    """The paths relative to ``root`` (``/``-separated) of those of ``paths`` (absolute: the
    database's files, :func:`db_excludes`) that lie inside it, for :func:`db_copy_of`."""
    top = os.path.join(os.path.realpath(str(root)), "")
    return frozenset(os.path.relpath(p, top).replace(os.sep, "/") for p in paths or () if str(p).startswith(top))


def db_copy_of(rel: str, db_paths) -> bool:
    """Whether ``rel`` is a file-sync tool's (or gbrain's) conflict copy of one of the database's
    own files ``db_paths`` (relative, :func:`db_rels`): ``brain.sync-conflict-…-DEVICE.db-wal``,
    ``brain (conflicted copy 2026-12-05).db``, which Syncthing or Dropbox make of a brain.db kept
    inside the folder it syncs (trial 52). A database's file, never a note."""
    if "onflict" not in rel:
        return False
    from ..page.slugs import copy_original

    return copy_original(rel) in db_paths


#: the marks of a folder a file-sync tool syncs, in the folder or a folder above it (name, the
#: tool): Syncthing's folder marker, Dropbox's, Nextcloud's and ownCloud's sync journals
SYNC_TOOL_MARKS = ((".stfolder", "Syncthing"), (".dropbox", "Dropbox"), (".dropbox.cache", "Dropbox"),
                   (".sync_*.db", "Nextcloud"), ("._sync_*.db", "ownCloud"), (".csync_journal.db", "ownCloud"))


def synced_by(folder: str | os.PathLike) -> tuple[str, str] | None:
    """``(tool, marker path)`` when a file-sync tool syncs ``folder``: one of
    :data:`SYNC_TOOL_MARKS` in it or a folder above it (the nearest), else None. A few
    listings (one per folder up to the file system's root)."""
    import fnmatch

    d = os.path.realpath(str(folder))
    while True:
        try:
            names = os.listdir(d)
        except OSError:
            names = []
        for mark, tool in SYNC_TOOL_MARKS:
            hit = next((n for n in names if fnmatch.fnmatchcase(n, mark)), None)
            if hit:
                return tool, os.path.join(d, hit)
        up = os.path.dirname(d)
        if up == d:
            return None
        d = up


def excluded_ids(paths) -> set[tuple[int, int]]:
    """``(st_dev, st_ino)`` of those of ``paths`` that exist (files matched by identity, which is
    cheaper than resolving every path of a walk)."""
    ids = set()
    for p in paths or ():
        try:
            st = os.stat(p)
            ids.add((st.st_dev, st.st_ino))
        except OSError:
            pass
    return ids


def scan_tree(root: str | os.PathLike, *, exclude_abs: set[str] | None = None, sizes: bool = True, ordered: bool = True) -> Scan:
    """List the brain files under ``root`` (:func:`walk_tree`'s rules and order).

    ``exclude_abs`` holds absolute paths never to include (the database and its -wal/-shm).
    ``sizes=False``: no ``lstat`` per file, each file's size and change stamp are
    :data:`NOT_TAKEN` (:func:`walk_tree`; for a caller that reads every file whole).
    ``ordered=False``: the files in the file system's order within each folder (``verify``,
    which compares them as a set: sorting every folder's entries by name was ~15% of the
    walk); ``skipped`` is then sorted by path, so what is reported does not depend on it.
    Raises ``NotADirectoryError`` / ``FileNotFoundError`` / ``PermissionError`` for an unusable
    root; unreadable subfolders are reported in ``skipped``.
    """
    rootp = Path(root)
    if not rootp.exists():
        raise FileNotFoundError(f"no such directory: {rootp}")
    if not rootp.is_dir():
        raise NotADirectoryError(f"not a directory: {rootp}")
    names = {os.path.basename(p) for p in exclude_abs} if exclude_abs and not sizes else frozenset()
    w = walk_tree(str(rootp), "", ignore_matcher(load_ignore(rootp)), excluded_ids(exclude_abs), sizes=sizes, excl_names=names, ordered=ordered,
                  excl_copies=db_rels(rootp, exclude_abs))
    prefix = os.path.join(str(rootp), "")  # os.path.join(root, rel) for every relative rel
    return Scan(
        root=rootp,
        files=[FileInfo(rel, prefix + rel, size, stamp) for rel, size, stamp in w.files],
        skipped=w.reported() if ordered else sorted(w.reported()),
        sizes=sizes,
        temps=w.temps,
    )


#: reads of a file whose stat moves while it is read (sync's rounds and import alike)
READ_TRIES = 3
#: a file read whose change stamp was this recent (ns) may be a save still being written in
#: pieces (a stat that agrees before and after a read made between two pieces): it is looked at
#: again after :data:`READ_SETTLE_S` (sync's rounds: ``SyncEngine._settle_young``; import:
#: ``importer._settle_young``)
YOUNG_NS = 1_000_000_000
#: the pause before that second look (s), once per round (import: per window of files) that read such files
READ_SETTLE_S = 0.05


#: a file's change stamp comes from the kernel's coarse clock, which ticks at least this often
#: (ns): the write it records may be up to this much later than the stamp
STAMP_SLACK_NS = 10_000_000


def settle_left(stamps, settle: float) -> float:
    """The pause (s) before the second look at files read with change stamps ``stamps`` (ns):
    what is left of ``settle`` seconds after the newest stamp (+ :data:`STAMP_SLACK_NS`), so that
    the look, finding a stat unmoved, has seen each file quiet ``settle`` seconds at least; never
    more than ``settle``. A stamp that is a multiple of 10 ms (FAT, some network file systems: the
    write may lie anywhere in its tick) gets the whole ``settle`` after the read, as before."""
    stamps = [s for s in stamps if s]
    if not stamps or not settle or any(s % 10_000_000 == 0 for s in stamps):
        return settle
    left = (max(stamps) + STAMP_SLACK_NS - time.time_ns()) / 1e9 + settle
    return min(settle, max(0.0, left))


def settle_pause(seconds: float) -> None:
    """The pause before a round (or an import) looks again at the files it read young (tests replace it)."""
    time.sleep(seconds)


def read_settled(full: str, f) -> tuple[bytes, bool]:
    """Read the file ``full`` whose size and change stamp were seen as ``f.size`` /
    ``f.mtime_ns`` (a scan's ``FileInfo`` or sync's ``DiskFile``): ``(bytes, True)`` when its
    stat after the read is the one seen before it; else ``f`` takes the new stat (and, a moment
    later, a fresh ``lstat``'s) and it is read again, up to :data:`READ_TRIES` times, then
    ``(bytes of the last read, False)``. An editor saving in place (truncate, then write) leaves
    half a note, or none, for a moment: the caller never takes such a read for the file (sync
    leaves the path to a later round, import records it as racy). Never read through a symlink
    (``blobs.open_nofollow``: a file swapped for one after the walk raises ``OSError``,
    ``blobs.is_symlink_refusal``). Raises ``OSError`` from the open or the read, and
    ``FileNotFoundError`` when the file is gone between reads."""
    for attempt in range(READ_TRIES):
        with open_nofollow(full) as fh:
            data = fh.read()
            st = os.fstat(fh.fileno())
        if st.st_size == len(data) == f.size and change_stamp(st) == f.mtime_ns:
            return data, True
        f.size, f.mtime_ns = st.st_size, change_stamp(st)
        if attempt < READ_TRIES - 1:
            time.sleep(0.02 * (attempt + 1))  # only for a file that changed since it was seen
            try:
                st = os.lstat(full)
            except OSError as e:
                raise FileNotFoundError(e.errno, e.strerror, full) from e
            f.size, f.mtime_ns = st.st_size, change_stamp(st)
    return data, False


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` exists (this one does)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


#: the part of a temp file's name (``.gbrain-tmp-<pid>-swap-<hash>[.EXT]``) saying it is whole and
#: about to be swapped with the note: after the swap it may hold an editor's save (:func:`swap_temp`)
SWAP_MARK = "swap-"
_SWAP_RE = re.compile(re.escape(TMP_PREFIX) + r"\d+-" + SWAP_MARK + r"([0-9a-f]{16})(\.[A-Za-z0-9]{1,16})?")


def _name_hash(name: str) -> str:
    import hashlib

    return hashlib.blake2b(name.encode("utf-8", "surrogateescape"), digest_size=8).hexdigest()


def swap_temp(folder: str, name: str) -> str:
    """The name a whole temp file takes before it is swapped with ``folder/name``: it names its
    note by a stable hash of ``name`` (and keeps a short extension), so the cleanup after a
    process killed within the swap finds the note of a save left there (:func:`remove_dead_temps`)."""
    _, dot, ext = name.rpartition(".")
    ext = "." + ext if dot and 0 < len(ext) <= 16 and ext.isascii() and ext.isalnum() else ""
    return os.path.join(folder, f"{TMP_PREFIX}{os.getpid()}-{SWAP_MARK}{_name_hash(name)}{ext}")


def keep_beside(path: str, target: str) -> str:
    """Keep the save at ``path`` as a file of the folder next to ``target``, ``NAME.unseen-N.EXT``
    (a new name: never over a file), which a round imports. Returns its path (paths split and
    joined by ``os.path``: the system's separators)."""
    folder, name = os.path.split(target)
    stem, dot, ext = name.rpartition(".")
    if not stem:
        stem, dot, ext = name, "", ""
    n = 1
    while True:
        keep = os.path.join(folder, f"{stem}.unseen-{n}{dot}{ext}")
        try:
            os.link(path, keep)
        except FileExistsError:
            n += 1
            continue
        except OSError:
            if os.path.lexists(keep):
                n += 1
                continue
            os.rename(path, keep)
            return keep
        os.unlink(path)
        return keep


def _swap_note(full: str, h: str, ext: str) -> str:
    """The note a dead swap temp was for: the file of its folder whose name hashes to ``h``
    (else a made-up name there, so the save is still kept)."""
    folder = os.path.dirname(full)
    try:
        names = os.listdir(folder)
    except OSError:
        names = []
    for n in names:
        if not n.startswith(TMP_PREFIX) and _name_hash(n) == h:
            return os.path.join(folder, n)
    return os.path.join(folder, f"saved-during-gbrain-write{ext}")


def _same_bytes(a: str, b: str, size: int) -> bool:
    """Whether the regular files ``a`` and ``b`` (both ``size`` bytes) hold the same bytes."""
    with open_nofollow(a) as fa, open_nofollow(b) as fb:
        left = size
        while left > 0:
            x, y = fa.read(min(left, 1 << 20)), fb.read(min(left, 1 << 20))
            if x != y or not x:
                return False
            left -= len(x)
        return fa.read(1) == fb.read(1) == b""


def _kept_already(full: str, note: str) -> str | None:
    """The file beside the dead swap temp ``full`` that holds its save already: its note, or a
    copy kept beside the note (``NAME.unseen-N.EXT``, :func:`keep_beside`), the same file or the
    same bytes: a run killed after putting the save there and before removing ``full``. None
    when none does (the save is nowhere else)."""
    try:
        st = os.lstat(full)
    except OSError:
        return None
    folder, name = os.path.split(note)
    stem, dot, ext = name.rpartition(".")
    if not stem:
        stem, dot, ext = name, "", ""
    pre, post = stem + ".unseen-", dot + ext
    try:
        names = os.listdir(folder)
    except OSError:
        names = []
    copies = [os.path.join(folder, n) for n in names
              if n.startswith(pre) and n.endswith(post) and n[len(pre):len(n) - len(post)].isdigit()]
    for c in [note] + sorted(copies):
        try:
            cs = os.lstat(c)
            if not stat.S_ISREG(cs.st_mode) or cs.st_size != st.st_size:
                continue
            if (cs.st_dev, cs.st_ino) == (st.st_dev, st.st_ino) or _same_bytes(full, c, st.st_size):
                return c
        except OSError:
            continue
    return None


def remove_dead_temps(temps: list[tuple[str, str]], own: Callable[[str], bool] | None = None,
                      kept: list[tuple[str, str, object]] | None = None,
                      take_back: Callable[[str, str], object] | None = None) -> list[str]:
    """Remove gbrain's own atomic-write temp files (``.gbrain-tmp-<pid>-…``, ``(absolute,
    relative)`` pairs) left by a process that died mid-write (its pid is gone): partial copies
    of bytes the brain still holds (sync's folder, an export's). A live writer's temp file is
    left alone. A dead swap temp (:func:`swap_temp`) may hold an editor's save the swap took
    from the note (the process killed before putting it back): removed only when ``own`` says
    the brain holds its bytes; else ``take_back(temp, note)`` (absolute paths) may put it back
    into its note straight from its temp name (a true answer: done), and it is kept beside its
    note otherwise (:func:`keep_beside`). Either way ``(relative path: the kept file's, or the
    temp's when taken back, the note's relative path, take_back's answer or None)`` is appended
    to ``kept``. A dead swap temp whose save is in its note or a copy kept beside it already (a
    run killed after putting it there, before removing the temp: :func:`_kept_already`) is
    removed, listed in ``kept`` as put back (the note's lstat) or kept (that copy), never kept
    a second time. An error of ``take_back`` other than ``OSError`` is raised with the save still
    under its temp name (the next run takes it back). Returns the relative paths removed."""
    removed = []
    for full, rel in temps:
        base = os.path.basename(full)
        m = re.match(re.escape(TMP_PREFIX) + r"(\d+)-", base)
        if not m or pid_alive(int(m.group(1))):
            continue
        try:
            s = _SWAP_RE.match(base)
            if s is not None and not (own is not None and own(full)):
                note = _swap_note(full, s.group(1), s.group(2) or "")
                d = rel.rpartition("/")[0]
                d = d + "/" if d else ""
                there = _kept_already(full, note)
                if there is not None:
                    os.unlink(full)
                    back = os.lstat(note) if there == note else None
                    if kept is not None:
                        kept.append((d + os.path.basename(there), d + os.path.basename(note), back))
                    continue
                back = take_back(full, note) if take_back is not None else None
                at = full if back else keep_beside(full, note)
                if kept is not None:
                    kept.append((d + os.path.basename(at), d + os.path.basename(note), back or None))
                continue
            os.unlink(full)
            removed.append(rel)
        except OSError:
            pass
    return removed


def db_excludes(db_path: str | os.PathLike | None) -> set[str]:
    if not db_path or str(db_path).startswith(("postgresql://", "postgres://")):
        return set()
    from ..storage.db import OPEN_LOCK_SUFFIX

    p = os.path.realpath(str(db_path))
    return {p, p + "-wal", p + "-shm", p + "-journal", p + OPEN_LOCK_SUFFIX}
