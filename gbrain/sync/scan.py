"""Scan a markdown tree: which files belong to the brain, with their size and mtime.

Skipped, and listed with a reason so nothing disappears silently: ``.git/`` (and other VCS
folders), editor temp and swap files, symlinks (never followed), non-regular files, the brain
database itself when it sits inside the tree, and anything matched by ``.gbrainignore``
(gitignore syntax, via ``pathspec``), and by default Obsidian's ``.obsidian/`` and ``.trash/``
(:data:`DEFAULT_IGNORE`; ``!.obsidian/`` in ``.gbrainignore`` brings one back).
"""
from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pathspec

IGNORE_FILE = ".gbrainignore"
VCS_DIRS = {".git", ".hg", ".svn"}
TMP_PREFIX = ".gbrain-tmp-"
#: editors' swap/backup/temp name endings (:func:`is_temp_name`)
TEMP_SUFFIXES = (".swp", ".swo", ".swx", ".swpx", "~", "___jb_tmp___", "___jb_old___", ".crswap")


def change_stamp(st: os.stat_result) -> int:
    """The stat value sync compares to decide a file may have changed (nanoseconds).

    ``max(st_mtime_ns, st_ctime_ns)``: an edit that restores the old mtime (``touch -d``,
    ``rsync -a``, ``cp -p``, a backup restore) still moves the ctime, which no user tool sets.
    """
    return max(st.st_mtime_ns, st.st_ctime_ns)


def is_temp_name(name: str) -> bool:
    """Editor temp/swap/backup files and gbrain's own atomic-write temp files. Called for every
    name of every walk: most names fail the first test (a temp name starts with ``.``, ``#`` or
    ``4`` or ends in one of :data:`TEMP_SUFFIXES`)."""
    if name[:1] not in ".#4" and not name.endswith(TEMP_SUFFIXES):
        return False
    return (
        name.startswith(TMP_PREFIX)
        or name.endswith(TEMP_SUFFIXES)
        or name.startswith(".#")
        or (name.startswith("#") and name.endswith("#"))
        or name == "4913"  # vim's write-permission probe
        or name.startswith(".~lock.")
    )


#: why a file or folder whose name is not valid UTF-8 is skipped (old zip or Samba trees)
NOT_UTF8 = "name is not valid UTF-8 (skipped; rename the file to bring it in)"


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


@dataclass
class FileInfo:
    path: str  # relative, '/'-separated, exact on-disk spelling
    abspath: str
    size: int
    mtime_ns: int  # change_stamp(): max of mtime and ctime


@dataclass
class Scan:
    root: Path
    files: list[FileInfo] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, reason)
    #: ``(path, size, change stamp)`` per file, instead of ``files`` (from ``SyncEngine.scan``)
    stats: list[tuple[str, int, int]] | None = None


#: ignored unless ``.gbrainignore`` says otherwise (``!.obsidian/``): Obsidian's settings, which
#: change on every click (workspace.json), and its trash. The user's lines come after these, so
#: a negation brings a folder back (gitignore's last-match-wins).
DEFAULT_IGNORE = (".obsidian/", ".trash/")


def load_ignore(root: Path) -> pathspec.PathSpec:
    """The ignore rules of ``root``: :data:`DEFAULT_IGNORE`, then ``root/.gbrainignore``
    (gitignore syntax, via ``pathspec``)."""
    lines = list(DEFAULT_IGNORE)
    f = root / IGNORE_FILE
    if f.is_file():
        lines += f.read_text(encoding="utf-8", errors="replace").splitlines()
    return pathspec.GitIgnoreSpec.from_lines(lines)


_NAMED_GROUP = re.compile(r"\(\?P<[A-Za-z_][A-Za-z0-9_]*>")


def ignore_matcher(spec: pathspec.PathSpec | None) -> Callable[[str], bool]:
    """``spec.match_file`` for relative ``'/'``-separated paths, screened by one regular
    expression: the alternation of every pattern's regex answers "does any pattern match?" in one
    C call, and only a path some pattern matches is handed to ``spec.match_file`` (which weighs
    negations and directory patterns). A path no pattern matches is not ignored, so the answer is
    ``spec.match_file``'s for every path (``tests/test_sync.py`` checks it over random patterns and
    paths). Falls back to ``spec.match_file`` alone when the patterns cannot be combined (mixed
    flags, back-references). ``None`` gives a matcher that ignores nothing."""
    if spec is None:
        return lambda rel: False
    match_file = spec.match_file
    parts, flags = [], set()
    for pat in spec.patterns:
        if getattr(pat, "include", None) is None:
            continue  # a no-op pattern (a comment, a blank line) never decides
        rx = getattr(pat, "regex", None)
        if rx is None or not isinstance(rx.pattern, str) or "(?P=" in rx.pattern:
            return match_file
        parts.append("(?:" + _NAMED_GROUP.sub("(?:", rx.pattern) + ")")
        flags.add(rx.flags)
    if not parts:
        return lambda rel: False
    if len(flags) != 1:
        return match_file
    try:
        screen = re.compile("|".join(parts), flags.pop()).search
    except re.error:
        return match_file

    def matcher(rel: str) -> bool:
        # normalize_file strips a leading '/' or './' first: leave such paths to pathspec
        if rel[:1] == "/" or rel[:2] == "./":
            return match_file(rel)
        return screen(rel) is not None and match_file(rel)

    return matcher


def ignore_reason(rel: str) -> str:
    """Why an ignored path is skipped, for the report (``rel`` ends with ``/`` for a folder)."""
    name = rel.rstrip("/").rsplit("/", 1)[-1] + "/"
    if name in DEFAULT_IGNORE:
        return f"ignored by default (Obsidian's {'settings' if name == '.obsidian/' else 'trash'}; `!{name}` in .gbrainignore syncs it)"
    return "ignored by .gbrainignore"


def scan_tree(root: str | os.PathLike, *, exclude_abs: set[str] | None = None) -> Scan:
    """List the brain files under ``root``.

    ``exclude_abs`` holds absolute paths never to include (the database and its -wal/-shm).
    Raises ``NotADirectoryError`` / ``FileNotFoundError`` / ``PermissionError`` for an unusable
    root; unreadable subfolders are reported in ``skipped``.
    """
    rootp = Path(root)
    if not rootp.exists():
        raise FileNotFoundError(f"no such directory: {rootp}")
    if not rootp.is_dir():
        raise NotADirectoryError(f"not a directory: {rootp}")
    os.listdir(rootp)  # raises PermissionError early
    spec = load_ignore(rootp)
    ignored = ignore_matcher(spec)  # spec.match_file's answers, screened by one regular expression
    excl = set()
    for p in exclude_abs or ():
        try:
            st = os.stat(p)
            excl.add((st.st_dev, st.st_ino))
        except OSError:
            pass
    out = Scan(root=rootp)
    root_s = str(rootp)

    # a depth-first walk in os.walk's top-down order (a folder's files, then its subfolders, each
    # sorted by name), on os.scandir: a DirEntry knows whether it is a folder or a link without a
    # system call, and its path comes joined
    stack: list[tuple[str, str]] = [(root_s, "")]
    while stack:
        dirpath, reldir = stack.pop()
        try:
            with os.scandir(dirpath) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as e:
            out.skipped.append((reldir.rstrip("/") or ".", f"unreadable folder: {e.strerror}"))
            continue
        files = []
        subdirs = []
        for entry in entries:
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            if not is_dir:
                files.append(entry)
                continue
            d = entry.name
            rel = reldir + d
            if d in VCS_DIRS:
                continue
            if not d.isascii() and undecodable(d):
                out.skipped.append((escaped(rel) + "/", NOT_UTF8))
                continue
            if entry.is_symlink():
                out.skipped.append((rel, "symlink (not followed)"))
                continue
            if ignored(rel + "/"):
                out.skipped.append((rel + "/", ignore_reason(rel + "/")))
                continue
            subdirs.append((entry.path, rel + "/"))
        for entry in files:
            name = entry.name
            rel = reldir + name
            if is_temp_name(name):
                continue
            if not name.isascii() and undecodable(name):
                out.skipped.append((escaped(rel), NOT_UTF8))
                continue
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError as e:
                out.skipped.append((rel, f"cannot stat: {e.strerror}"))
                continue
            if stat.S_ISLNK(st.st_mode):
                out.skipped.append((rel, "symlink (not followed)"))
                continue
            if not stat.S_ISREG(st.st_mode):
                out.skipped.append((rel, "not a regular file"))
                continue
            if excl and (st.st_dev, st.st_ino) in excl:
                continue
            if ignored(rel):
                out.skipped.append((rel, "ignored by .gbrainignore"))
                continue
            out.files.append(FileInfo(rel, entry.path, st.st_size, change_stamp(st)))
        stack.extend(reversed(subdirs))
    return out


def db_excludes(db_path: str | os.PathLike | None) -> set[str]:
    if not db_path or str(db_path).startswith(("postgresql://", "postgres://")):
        return set()
    p = os.path.realpath(str(db_path))
    return {p, p + "-wal", p + "-shm", p + "-journal"}
