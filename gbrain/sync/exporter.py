"""Export brain.db to a markdown tree, byte for byte (the git escape hatch).

Writes every page (its exact rendered bytes) and every other stored file (sidecars, special
files, blobs) to ``OUT/<path>``. Only files whose bytes differ are written; each write is
atomic (a temp file in the same folder, then ``os.replace``), so a crash never leaves a torn
file. Files in OUT that the DB does not know are left alone (and reported by the verification).

Export never destroys bytes it did not write: before writing anything it compares every target
that already exists with the brain's bytes (by hash). Targets that differ are refused (BadInput,
nothing written) unless ``overwrite`` is given; then their bytes are first kept as a version in
the page's or file's history (listed in the trash, ``revert --to`` brings them back), in one
transaction, and only then replaced. A folder the brain syncs with is refused: ``sync`` is the
command that merges both sides there.
"""
from __future__ import annotations

import errno
import hashlib
import os
import sqlite3
import stat
import sys
from pathlib import Path
from typing import Callable, Iterable

from ..core.brain import Brain, render_row, sha256
from ..errors import GBrainError
from ..page.slugs import cmd_arg
from ..storage import blobs
from . import verify
from .folders import make_folders
from .scan import TMP_PREFIX, change_stamp, db_excludes, keep_beside, remove_dead_temps, scan_tree, swap_temp


#: errnos of a full disk or an exhausted quota
_NO_SPACE = {errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)}

#: a stored file at least this big is hashed and written by a writer thread (smaller ones, and
#: pages, in the exporting thread: a hand-off costs more than they do)
POOL_MIN = 128 << 10
#: writer threads (sha256, ``write`` and SQLite's reads all release the GIL)
WRITERS = 2
#: bytes read from the brain and handed to the writers, not yet written (bounds the memory)
IN_FLIGHT = 64 << 20


class _Readers:
    """One read connection to the brain's SQLite file per writer thread, for the pieces of big
    files (a connection is used by one thread at a time; pieces are content-addressed, so any
    connection reads the same bytes under a hash)."""

    def __init__(self, path: Path) -> None:
        import threading

        self.path = path
        self.local = threading.local()
        self.all: list = []
        self.lock = threading.Lock()

    def conn(self):
        c = getattr(self.local, "conn", None)
        if c is None:
            from ..storage import db as dbmod

            c = dbmod.raw_connect(self.path)
            self.local.conn = c
            with self.lock:
                self.all.append(c)
        return c

    def close(self) -> None:
        for c in self.all:
            c.close()


def _saved(n: int, root: Path) -> str:
    """What an export of a damaged brain saved: ``n`` files to ``root`` (0: nothing, said so)."""
    if n == 0:
        return f"nothing could be saved to {root} (no file of it was readable)"
    return f"saved {n:,} readable file(s) to {root}"


def safe_join(root: Path, rel: str) -> Path:
    """``root/rel``, refusing absolute paths and ``..`` segments (a corrupt or hostile DB)."""
    parts = rel.split("/")
    if rel.startswith("/") or any(p in ("", ".", "..") for p in parts) or "\x00" in rel:
        raise GBrainError(f"refusing to write outside the export folder: {rel!r}")
    return root.joinpath(*parts)


def symlink_on_the_way(root: Path, rel: str) -> str | None:
    """The first folder or file of ``rel`` under ``root`` (``root`` itself is the user's choice)
    that is a symlink, as a relative path, or None. Writing there would land outside the folder
    or change a file the link points at."""
    parts = rel.split("/")
    cur = root
    for k, part in enumerate(parts):
        cur = cur / part
        try:
            if os.path.islink(cur):
                return "/".join(parts[: k + 1])
        except OSError:
            return None
        if not cur.exists():
            return None
    return None


def atomic_write(target: Path, data: bytes | Iterable[bytes], *, fsync: bool = False,
                 unchanged: Callable[[os.stat_result | None], bool] | None = None) -> bool:
    """Write ``data`` (bytes, or an iterable of pieces: a big file streamed from the brain) to
    ``target`` via a temp file + rename; keeps an existing file's mode.

    Readers see the old or the new bytes, never a torn file. ``fsync`` also forces the data to
    disk before the rename (slow; export leaves it off since the DB stays the source of truth).
    ``unchanged``: write only over the file it accepts (:func:`_replace_file`); False when not
    written."""
    target.parent.mkdir(parents=True, exist_ok=True)
    mode = None
    try:
        mode = target.stat().st_mode & 0o7777
    except FileNotFoundError:
        pass
    return _replace_file(str(target), data, mode, fsync=fsync, unchanged=unchanged)


def _replace_file(target: str, data: bytes | Iterable[bytes], mode: int | None, *, fsync: bool = False,
                  unchanged: Callable[[os.stat_result | None], bool] | None = None) -> bool:
    """:func:`atomic_write` once the folder exists and the mode to keep (None: a new file) is known.

    ``unchanged`` (sync and watch): the test of the file now at ``target`` (its lstat, None: no
    file) that says it is still the one the round planned from; the new bytes then go in with
    :func:`_swap_in`, never over a save made meanwhile (False returned: nothing written, the
    file as the editor left it)."""
    folder, name = os.path.split(target)
    # a short temp name: a 250-byte file name plus a prefix would exceed the 255-byte limit
    tmp = os.path.join(folder, f"{TMP_PREFIX}{os.getpid()}-{abs(hash(name)) % 10**10}")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
    except OSError as e:
        _name_target(e, tmp, target)
        raise
    mine: os.stat_result | None = None
    try:
        with os.fdopen(fd, "wb") as f:
            if isinstance(data, (bytes, bytearray, memoryview)):
                f.write(data)
            else:
                for piece in data:
                    f.write(piece)
            if fsync:
                f.flush()
                os.fsync(f.fileno())
            if unchanged is not None:
                mine = os.fstat(f.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        if unchanged is not None:
            assert mine is not None
            # whole now: renamed to its swap name, so a cleanup after a kill within the swap
            # knows it may hold a save and never removes one (scan.remove_dead_temps)
            swap = swap_temp(folder, name)
            os.rename(tmp, swap)
            tmp = swap
            if not _swap_in(tmp, target, unchanged, mine):
                _drop_ours(tmp, target, mine)
                return False
        else:
            os.replace(tmp, target)
    except BaseException as e:
        if mine is None:
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass
        else:  # after a swap ``tmp`` may hold the file taken from ``target``: back into it, never removed
            _restore(tmp, target, mine)
        if isinstance(e, OSError):
            _name_target(e, tmp, target)
        raise
    return True


def _restore(tmp: str, target: str, mine: os.stat_result) -> None:
    """The error path of a write whose swap (:func:`_swap_in`) may have begun: a file it took
    from ``target`` (an editor's save, or the file checked), at ``tmp`` or renamed aside
    (``tmp~was``, ``…~ours``), goes back into ``target`` while our own file ``mine`` is there
    (:func:`_put_back`: a newer save found there stays, the older one is kept beside it), as the
    normal path does: the note holds it, not ``NAME.unseen-N`` (a stray page; a killed round's
    save likewise goes back: ``SyncEngine._take_back``). Our own file is removed. Raises
    nothing: a save that cannot be put back stays under its temp name, listed in
    :data:`left_saves` (the engine warns of it, naming where its bytes are, and puts it back in
    its next round: ``SyncEngine._left_saves``; a dead process's is the next run's cleanup's,
    ``scan.remove_dead_temps``)."""
    for p in (tmp, tmp + "~was", tmp + "~ours", tmp + "~was~ours"):
        try:
            st = _lstat(p)
            if st is None:
                continue
            if _is_ours(st, mine):
                os.unlink(p)
            else:
                _put_back(p, target, mine)
        except OSError as e:
            try:
                st = os.lstat(p)
            except FileNotFoundError:
                continue
            except OSError:
                st = None
            if not _is_ours(st, mine):
                left_saves[p] = (target, e.strerror or str(e))


#: saves a failed write could not put back into their note (:func:`_restore`): the absolute path
#: holding the save → (the note's absolute path, the error). The engine of the note's folder
#: warns of each and puts it back in its next round (``SyncEngine._left_saves``): a live
#: process's temp is no dead one for ``scan.remove_dead_temps``, so none else would.
left_saves: dict[str, tuple[str, str]] = {}


def _drop_ours(tmp: str, target: str, mine: os.stat_result) -> None:
    """Remove ``tmp`` when it is still our own file ``mine`` (the brain has its bytes); any other
    file there (a save a swap took from ``target``) is kept (:func:`~gbrain.sync.scan.keep_beside`)."""
    try:
        st = os.lstat(tmp)
    except FileNotFoundError:
        return
    if (st.st_dev, st.st_ino) == (mine.st_dev, mine.st_ino):
        os.unlink(tmp)
    else:
        keep_beside(tmp, target)


#: called with the target between :func:`_swap_in`'s last look at the file and its swap (tests
#: put an editor's save there: the window a round's check leaves before its write)
before_swap: Callable[[str], None] | None = None
#: called with the target right after :func:`_swap_in`'s swap, before it looks at what the swap
#: took (tests raise there: a round failing with an editor's save in its hands)
after_swap: Callable[[str], None] | None = None

_RENAME_NOREPLACE, _RENAME_EXCHANGE, _AT_FDCWD = 1, 2, -100


def _load_renameat2():
    """Linux's ``renameat2`` (glibc 2.28+) through ctypes, or None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes
        fn = ctypes.CDLL(None, use_errno=True).renameat2
    except (ImportError, OSError, AttributeError):
        return None
    fn.argtypes = (ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint)
    fn.restype = ctypes.c_int
    return lambda src, dst, flags: 0 if fn(_AT_FDCWD, os.fsencode(src), _AT_FDCWD, os.fsencode(dst), flags) == 0 else ctypes.get_errno()


_renameat2 = _load_renameat2()
#: errnos of a ``renameat2`` flag the system or the file system does not offer: the portable way
_NO_FLAG = {errno.ENOSYS, errno.EINVAL, getattr(errno, "EOPNOTSUPP", errno.EINVAL), getattr(errno, "ENOTSUP", errno.EINVAL)}


def _same_file(a: os.stat_result, b: os.stat_result) -> bool:
    """The same file with the same bytes as far as a stat tells (a rename moves the ctime only)."""
    return (a.st_dev, a.st_ino, a.st_size, a.st_mtime_ns) == (b.st_dev, b.st_ino, b.st_size, b.st_mtime_ns)


def _swap_in(tmp: str, target: str, unchanged: Callable[[os.stat_result | None], bool], mine: os.stat_result) -> bool:
    """Rename ``tmp`` to ``target`` when the file at ``target`` is still the one ``unchanged``
    accepts, without losing a save that lands at ``target`` meanwhile (an editor's temp file +
    rename between the round's check and this rename: such a save was clobbered unseen, the
    stale_saves race benchmark lost 0-2 typed lines in 30 rounds). True: written.

    On Linux the file at ``target`` is swapped with ``tmp`` in one step (``renameat2``
    ``RENAME_EXCHANGE``; a new file with ``RENAME_NOREPLACE``), so whatever was there at that
    instant lands at ``tmp``: the file checked (removed), or a save made since, which is swapped
    back to ``target`` (False: the next round finds it and merges it as any stale save). Without
    them the file is renamed aside and ``tmp`` hard-linked in (a link never replaces), the aside
    looked at the same way; where hard links fail too, a plain ``os.replace`` right after the
    check (a window of two system calls)."""
    try:
        before: os.stat_result | None = os.lstat(target)
    except FileNotFoundError:
        before = None
    if not unchanged(before):
        return False
    if before_swap is not None:
        before_swap(target)
    if before is None:
        return _place_new(tmp, target)
    err = _renameat2(tmp, target, _RENAME_EXCHANGE) if _renameat2 is not None else errno.ENOSYS
    if err == errno.ENOENT:  # the file went meanwhile (deleted or moved): the next round sees it
        return False
    if err == 0:
        aside = tmp
    elif err not in _NO_FLAG:
        raise OSError(err, os.strerror(err), target)
    else:
        aside = tmp + "~was"
        try:
            os.rename(target, aside)
        except FileNotFoundError:
            return False
        try:
            os.link(tmp, target)
        except FileExistsError:  # a save landed at target in between: it stays there
            _settle_aside(aside, before, target)
            return False
        except OSError:  # no hard links here: put the file back, then the plain way
            os.rename(aside, target)
            if not _same_file(os.lstat(target), before):
                return False
            os.replace(tmp, target)
            return True
        os.unlink(tmp)
    if after_swap is not None:
        after_swap(target)
    old = os.lstat(aside)
    if _same_file(old, before):
        os.unlink(aside)
        return True
    # a save made since the check: it goes back to target, and this write is not done
    _put_back(aside, target, mine)
    return False


def _is_ours(st: os.stat_result | None, mine: os.stat_result) -> bool:
    """Whether ``st`` (an lstat) is our own file ``mine``."""
    return st is not None and (st.st_dev, st.st_ino) == (mine.st_dev, mine.st_ino)


def _lstat(path: str) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None


def _put_back(aside: str, target: str, mine: os.stat_result) -> None:
    """Put the file at ``aside`` (a save that our swap took from ``target``) back at ``target``,
    where our own file ``mine`` now is. A save found at ``target`` instead of our file landed
    after the one at ``aside`` (our swap took that one first): the newest, it stays in the note
    and the older save is kept beside it (:func:`~gbrain.sync.scan.keep_beside`), as a killed
    round's save is beside a note saved again since (``SyncEngine._take_back``); one landing
    between that look and the exchange is swapped back in once more. Nothing is removed but our
    own file."""
    cur = _lstat(target)
    if cur is not None and not _is_ours(cur, mine):
        keep_beside(aside, target)  # a newer save is in the note already
        return
    err = _renameat2(aside, target, _RENAME_EXCHANGE) if _renameat2 is not None else errno.ENOSYS
    if err == 0:
        left = aside
        came = _lstat(left)
        if came is not None and not _is_ours(came, mine):
            # a newer save landed between the look and the exchange: it goes back into the note,
            # the older one comes out to ``left`` (kept beside below; should this fail, both stay)
            _renameat2(left, target, _RENAME_EXCHANGE)
    else:
        left = aside + "~ours"
        try:
            os.rename(target, left)
        except FileNotFoundError:
            left = None
        try:
            os.link(aside, target)
            os.unlink(aside)
        except FileExistsError:  # yet another save at target: both stay
            keep_beside(aside, target)
    if left is not None:
        _drop_ours(left, target, mine)  # our bytes (the brain has them) removed, a save kept


def _into_place(path: str, target: str) -> bool:
    """Move the file at ``path`` to ``target`` when no file is there, never over one (a save
    landing meanwhile stays). True: moved."""
    if os.path.lexists(target):
        return False
    return _place_new(path, target)


def _place_new(src: str, target: str) -> bool:
    """Rename ``src`` to ``target`` where no file is, never over one (a save landing meanwhile
    stays; False: not moved, ``src`` where it was). ``renameat2(RENAME_NOREPLACE)``; where the
    system or the file system lacks it, a hard link (a link never replaces) and ``src`` removed;
    where hard links fail too, a last look, then the plain rename: the one window left (two
    system calls)."""
    err = _renameat2(src, target, _RENAME_NOREPLACE) if _renameat2 is not None else errno.ENOSYS
    if err == 0:
        return True
    if err == errno.EEXIST:
        return False
    if err not in _NO_FLAG:
        raise OSError(err, os.strerror(err), target)
    try:
        os.link(src, target)
    except FileExistsError:
        return False
    except OSError:  # no hard links here: a last look, then the plain rename (the window)
        if os.path.lexists(target):
            return False
        os.replace(src, target)
        return True
    os.unlink(src)
    return True


def _settle_aside(aside: str, before: os.stat_result, target: str) -> None:
    """The file renamed aside when a save took ``target`` before our link: removed when it is
    the file the round checked, kept when it is another save."""
    if _same_file(os.lstat(aside), before):
        os.unlink(aside)
    else:
        keep_beside(aside, target)



def _name_target(e: OSError, tmp: str, target: str) -> None:
    """Make an error about the temp file ``tmp`` name ``target`` instead: a message (read-only
    file system, full disk) names the file being written, never gbrain's own temp file."""
    if e.filename == tmp:
        e.filename = target
    if e.filename2 == tmp:
        e.filename2 = target


def same_bytes(target: Path, data: bytes) -> bool:
    try:
        st = target.stat()
    except (FileNotFoundError, NotADirectoryError):
        return False
    if st.st_size != len(data):
        return False
    with open(target, "rb") as f:
        return f.read() == data


def _read(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def _raise(e: BaseException):
    raise e


def _rows(brain: Brain, table: str, cols: str, unreadable: list[str]):
    """Rows of ``table`` in path order; on a damaged database (SQLite: malformed), every row
    that can still be read, one by one by id, noting the ids that cannot in ``unreadable``:
    export is how a person saves what is readable from a damaged brain."""
    try:
        rows = brain.conn.execute(f"SELECT {cols} FROM {table} ORDER BY path").fetchall()
        yield from rows
        return
    except sqlite3.DatabaseError:
        pass
    try:
        ids = [r[0] for r in brain.conn.execute(f"SELECT id FROM {table}")]
    except sqlite3.DatabaseError:
        try:
            top = brain.conn.execute("SELECT seq FROM sqlite_sequence WHERE name = ?", (table,)).fetchone()
            ids = list(range(1, (top[0] if top else 0) + 1))
        except sqlite3.DatabaseError:
            ids = []
            unreadable.append(f"{table}: every row")
    for i in ids:
        try:
            r = brain.conn.execute(f"SELECT {cols} FROM {table} WHERE id = ?", (i,)).fetchone()
        except sqlite3.DatabaseError:
            unreadable.append(f"{table} #{i}")
            continue
        if r is not None:
            yield r


def synced_folder(brain: Brain, root: Path) -> str | None:
    """The folder the brain is bound to for ``sync`` when it is ``root`` (same real path), else None."""
    try:
        rows = brain.conn.execute("SELECT root FROM sync_root").fetchall()
    except sqlite3.DatabaseError:
        return None
    real = os.path.realpath(root)
    for r in rows:
        if r[0] and os.path.realpath(r[0]) == real:
            return str(r[0])
    return None


def holds_bytes_of(brain: Brain, path: str) -> bool:
    """Whether the bytes of the file at ``path`` are a text the brain holds (a page's or file's,
    now or in the history, by sha256): a dead temp file that is gbrain's own, never a save."""
    try:
        hx = verify.sha256_file(path)
    except OSError:
        return False
    try:
        return any(brain.conn.execute(q, (hx,)).fetchone() is not None for q in (
            "SELECT 1 FROM history_bodies WHERE hash = ?", "SELECT 1 FROM pages WHERE content_hash = ?",
            "SELECT 1 FROM files WHERE content_hash = ?"))
    except sqlite3.DatabaseError:
        return False


def _in_history(brain: Brain, rel: str, hx: str) -> bool:
    """Whether the history of the page/file at ``rel`` holds a version with sha256 ``hx``."""
    from ..core.history import key_for_path

    try:
        b = brain.conn.execute("SELECT id FROM history_bodies WHERE hash = ?", (hx,)).fetchone()
        if b is None:
            return False
        kind, name = key_for_path(brain.conn, rel)
        return brain.conn.execute("SELECT 1 FROM history WHERE kind = ? AND name = ? AND body_id = ? LIMIT 1", (kind, name, b[0])).fetchone() is not None
    except sqlite3.DatabaseError:
        return False


def differing_targets(brain: Brain, root: Path, known: set[str] | None = None) -> dict[str, int]:
    """Files under ``root`` that export would replace with bytes the brain never had:
    ``{path: size on disk}`` for every page/file row whose target exists (as a file), whose
    sha256 is not the row's ``content_hash`` and is no version in that page's/file's history (an
    earlier export of an older version is replaced freely: the history keeps it). Reads each
    existing target once; missing targets cost one ``stat``. ``known`` (when given) receives the
    paths whose differing bytes the history already holds."""
    out: dict[str, int] = {}
    unreadable: list[str] = []
    for table in ("pages", "files"):
        for r in _rows(brain, table, "path, content_hash", unreadable):
            rel = str(r["path"])
            try:
                target = safe_join(root, rel)
                if symlink_on_the_way(root, rel):
                    continue  # refused later, one path at a time, without writing
                st = target.stat()
            except (OSError, GBrainError):
                continue
            if not os.path.isfile(target):
                continue
            try:
                hx = blobs.hash_file(target)[0]
            except OSError:
                continue
            if hx != r["content_hash"]:
                if not _in_history(brain, rel, hx):
                    out[rel] = st.st_size
                elif known is not None:
                    known.add(rel)
    return out


def _prune_extras(brain: Brain, root: Path, extras: dict[str, str]) -> tuple[list[str], list[str]]:
    """Remove the files of ``root`` the brain does not hold (``extras``: relative path → sha256)
    whose bytes are a version in the history of the page or file at that path (what an earlier
    export of this brain wrote there: a page deleted or renamed since); then the folders that
    removal emptied. A file whose bytes the history lacks, a symlink, anything not a plain file
    is left. Returns ``(removed, left)``, sorted."""
    removed: list[str] = []
    left: list[str] = []
    for rel in sorted(extras):
        target = root.joinpath(*rel.split("/"))
        try:
            st = os.lstat(target)
        except OSError:
            continue
        if not stat.S_ISREG(st.st_mode) or not _in_history(brain, rel, extras[rel]) or blobs.hash_file(target)[0] != extras[rel]:
            left.append(rel)
            continue
        os.unlink(target)
        removed.append(rel)
        folder = target.parent
        while folder != root:  # the folders this removal emptied (an old export's renamed folder)
            try:
                folder.rmdir()
            except OSError:
                break
            folder = folder.parent
    return removed, left


def line_ending_only(brain: Brain, root: Path, paths: Iterable[str]) -> tuple[list[str], list[str]]:
    """Of ``paths`` (files under ``root`` that differ from the brain: :func:`differing_targets`),
    the ones whose bytes equal the brain's once every CRLF is read as LF (what git's
    ``core.autocrlf`` or a ``.gitattributes`` ``eol`` does at checkout): ``(crlf_on_disk,
    crlf_in_brain)``, sorted: the folder's copy holds CRLF where the brain holds LF, or the other
    way. Reads each file and its stored bytes once; files over ``blobs.BIG`` and files that
    cannot be read are left out (never counted). Raises nothing."""
    on_disk: list[str] = []
    in_brain: list[str] = []
    for rel in sorted(paths):
        try:
            target = safe_join(root, rel)
            if target.stat().st_size > blobs.BIG:
                continue
            disk = target.read_bytes()
            row = brain.conn.execute("SELECT bom, frontmatter_raw, compiled_truth, separator, timeline FROM pages WHERE path = ?", (rel,)).fetchone()
            if row is not None:
                stored = render_row(row).encode("utf-8")
            else:
                n = brain.conn.execute("SELECT size FROM files WHERE path = ?", (rel,)).fetchone()
                stored = blobs.file_bytes(brain.conn, rel) if n is not None and n[0] <= blobs.BIG else None
        except (OSError, GBrainError, sqlite3.DatabaseError, UnicodeError):
            continue
        if stored is None or disk == stored or disk.replace(b"\r\n", b"\n") != stored.replace(b"\r\n", b"\n"):
            continue
        (on_disk if disk.count(b"\r\n") > stored.count(b"\r\n") else in_brain).append(rel)
    return on_disk, in_brain


def _line_ending_note(brain: Brain, root: Path, paths: dict[str, int]) -> tuple[str, bool]:
    """``(sentence, all)`` for export's refusal: a sentence saying how many of ``paths`` differ
    only in line endings and what to do ('' when none do), and whether all of them do."""
    on_disk, in_brain = line_ending_only(brain, root, paths)
    if not on_disk and not in_brain:
        return "", False
    n = len(on_disk) + len(in_brain)
    who = "all of them" if n == len(paths) else f"{n:,} of them"
    if on_disk and not in_brain:
        how = "CRLF in the folder, LF in the brain"
    elif in_brain and not on_disk:
        how = "LF in the folder, CRLF in the brain"
    else:
        how = f"{len(on_disk):,} with CRLF in the folder, {len(in_brain):,} with CRLF in the brain"
    advice = ("git converts line endings when it checks files out (`core.autocrlf`, a `.gitattributes` `eol`): "
              "export into a clone made without the conversion (`git clone -c core.autocrlf=false …`)")
    return f" {who[0].upper()}{who[1:]} differ only in line endings ({how}): {advice}.", n == len(paths)


def _keep_replaced(brain: Brain, root: Path, paths: dict[str, int]) -> None:
    """Make the bytes on disk at ``paths`` versions in the history (and the trash) before export
    replaces them, in one transaction. Files over ``blobs.BIG`` are not read whole: refused."""
    from ..core.history import keep_version, key_for_path
    from ..errors import BadInput
    from ..page.slugs import shown
    from ..storage.origin import origin

    big = [p for p, n in paths.items() if n > blobs.BIG]
    if big:
        raise BadInput(
            f"{len(big):,} file(s) in {root} over {blobs.BIG // 2**20} MiB differ from the brain and cannot be kept in its history "
            f"({', '.join(shown(p) for p in big[:5])}); move them away, then export again; nothing was written"
        )
    with brain.transaction(), origin(operation="replaced by export --overwrite"):
        for rel in sorted(paths):
            data = safe_join(root, rel).read_bytes()
            keep_version(brain.conn, *key_for_path(brain.conn, rel), rel, data, "replaced by export --overwrite")


def _cannot_write(root: Path, e: OSError | str) -> str:
    """One line: export cannot write into ``root`` (``e``: the error, or why), nothing written."""
    from ..page.slugs import shown

    why = e if isinstance(e, str) else (e.strerror or str(e)).lower()
    if not isinstance(e, str) and e.errno in _NO_SPACE:
        return f"the disk holding {shown(str(root))} is full; nothing was written: free some space and run it again"
    return f"cannot write into {shown(str(root))} ({why}); nothing was written: export into a folder you can write"


def _check_writable(root: Path) -> None:
    """Raise :class:`GBrainError` (:func:`_cannot_write`) when the folder ``root`` is on a
    read-only mount or this user may not create files in it (root ignores modes: the mount
    counts), so an export says so once instead of failing every file."""
    try:
        if os.statvfs(root).f_flag & os.ST_RDONLY:
            raise GBrainError(_cannot_write(root, "a read-only file system"))
    except (OSError, AttributeError):
        pass
    if not os.access(root, os.W_OK | os.X_OK):
        raise GBrainError(_cannot_write(root, "permission denied"))


def folds_case(root: Path) -> bool:
    """Whether the folder ``root`` (or, when it does not exist yet, its nearest existing parent,
    where it will be made) is on a file system that ignores letter case (macOS's and Windows'
    defaults, exFAT, a casefolded ext4 folder): a probe file made under a mixed-case temp name,
    looked for under its lower-case spelling, then removed. False when the folder cannot be
    written (export's own check says so next)."""
    folder = Path(root)
    while not folder.is_dir():
        if folder.parent == folder:
            return False
        folder = folder.parent
    name = f"{TMP_PREFIX}{os.getpid()}-CaseProbe"
    probe = folder / name
    try:
        fd = os.open(probe, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except OSError:
        return False
    try:
        os.close(fd)
        return os.path.lexists(folder / name.lower())
    finally:
        try:
            os.unlink(probe)
        except OSError:
            pass


def _case_clashes(brain: Brain, root: Path) -> None:
    """Refuse (:class:`BadInput`, nothing written) an export into a folder that ignores letter
    case (:func:`folds_case`) of a brain holding paths that are one name there
    (:func:`gbrain.page.slugs.portability_problems`, kind ``case``: one file of each group would
    take the other's place) or a folder spelled two ways (kind ``folder_case``: their files
    would meet under one spelling, unlike the brain's paths). The folder is probed only when the brain holds such names."""
    from ..errors import BadInput
    from ..page.slugs import portability_problems, shown

    paths = [r[0] for r in brain.conn.execute("SELECT path FROM pages UNION ALL SELECT path FROM files")]
    # windows_of=set(): only the case groups are wanted here; the Windows-name check of every
    # path (~10 ms on obsidian-hub's 6,572, four fifths of the call) would be thrown away
    # a folder spelled two ways (People/, people/) is one folder there: its files meet, and the
    # check (and a re-import) reads them under one spelling
    clashes = [pr["paths"] if pr["kind"] == "case" else [f"{p}/" for p in pr["paths"]]
               for pr in portability_problems(paths, windows_of=set()) if pr["kind"] in ("case", "folder_case")]
    if not clashes or not folds_case(root):
        return
    names = "; ".join(" and ".join(shown(p) for p in group) for group in clashes[:5]) + (f"; and {len(clashes) - 5:,} more" if len(clashes) > 5 else "")
    raise BadInput(f"{root} ignores letter case (and Unicode form), and {len(clashes):,} group(s) of the brain's files or folders are one name there: {names}; "
                   "export would write one file of each; nothing was written. Rename all but one of each "
                   "(`gbrain lint --check portable_names` lists them, with how), or export into a folder on a case-sensitive file system")


def export_tree(brain: Brain, out: str | os.PathLike, *, on_progress: Callable[[int, int], None] | None = None, check: bool = True,
                overwrite: bool = False, prune: bool = False) -> dict:
    """Write the brain to ``out``; return the verification report of ``out`` against the DB.

    The check compares the tree with the hashes stored in the brain (:func:`verify.report`):
    every stored path must be in ``out`` with its stored hash, and every file of ``out`` must be
    stored. The hash of each file is taken from the bytes as they are written (a big file's
    pieces hashed as they stream to disk, so a damaged piece shows as a mismatch) or as they
    were found identical on disk; the final scan re-reads only a file whose size or change stamp
    moved since it was written (someone else wrote it meanwhile) and files export did not write.
    So the check costs a walk of ``out``, not a second read of every byte (nor a parse of every
    ``.raw`` sidecar's JSON: export writes no raw_data row; ``gbrain verify`` counts them).

    Raises :class:`BadInput` (nothing written) when ``out`` is the folder the brain syncs with,
    or when files there differ from the brain's bytes and ``overwrite`` is False (the message
    lists them). With ``overwrite``, those files' bytes are kept in the history first (see the
    module docstring). Raises :class:`Damaged` after saving what is readable from a damaged brain,
    and :class:`GBrainError` (one line, no check) when the disk of ``out`` filled up: the files
    written are complete (atomic writes), the others were not written; also (nothing written)
    when ``out`` cannot be made or written at all (read-only mount, no permission).

    ``prune`` (with ``check``): files of ``out`` the brain does not hold are removed when their
    bytes are a version in the history of the page or file at their path (an earlier export of
    a page deleted or renamed since: :func:`_prune_extras`), never any other file; the report
    lists them (``pruned``) and the ones left (``not_pruned``)."""
    from ..errors import BadInput
    from ..page.slugs import shown

    root = Path(out)
    bound = synced_folder(brain, root)
    if not bound:
        _case_clashes(brain, root)
    in_hist: set[str] = set()
    clobber = differing_targets(brain, root, in_hist) if root.is_dir() else {}
    names = ", ".join(shown(p) for p in sorted(clobber)[:10]) + (f" and {len(clobber) - 10:,} more" if len(clobber) > 10 else "")
    if bound:
        differ = f"; {len(clobber):,} file(s) there differ from the brain: {names}" if clobber else ""
        raise BadInput(f"{bound} is the folder this brain imports from / syncs with: run `gbrain sync {cmd_arg(bound)}` (it merges the edits of both "
                       f"sides, conflicts kept){differ}; export writes a copy into another folder; nothing was written")
    if clobber and not overwrite:
        note, only_eol = _line_ending_note(brain, root, clobber)
        first = "Export" if only_eol else "Import them first (`gbrain import FOLDER`), export"  # importing CRLF copies would be no edit
        raise BadInput(f"{len(clobber):,} file(s) in {root} differ from the brain and export would replace them: {names}; nothing was written.{note} "
                       f"{first} into an empty folder, or pass --overwrite "
                       "(the replaced bytes are kept in the history and listed in `gbrain trash`)")
    if clobber:
        _keep_replaced(brain, root, clobber)
    try:
        created = make_folders(root)
    except OSError as e:
        raise GBrainError(_cannot_write(root, e)) from None
    _check_writable(root)
    total = brain.conn.execute("SELECT (SELECT COUNT(*) FROM pages) + (SELECT COUNT(*) FROM files)").fetchone()[0]
    written = unchanged = 0
    known: dict[str, tuple[int, int, str]] = {}  # path → (size, change stamp, sha256) as written
    i = 0

    failed: list[dict] = []
    no_space: list[str] = []  # paths refused by a full disk (or quota)

    def fresh(target: Path | str, rel: str) -> bool:
        """True when ``target`` may be (re)written: it was checked above, or is still missing."""
        if rel in clobber or rel in in_hist or not os.path.lexists(target):
            return True
        raise GBrainError("appeared or changed on disk during the export; left as it is")

    base = str(root)
    ready: set[str] = set()  # folders (relative) found real, or made, by this export

    def place(rel: str) -> tuple[str, os.stat_result | None]:
        """``OUT/rel`` as a string and its ``lstat`` (None: missing), its folders made. Each
        folder is looked at once per export (a symlink on the way is refused: export writes
        through no link it did not create), not once per file under it."""
        safe_join(root, rel)  # refuses absolute paths, "..", empty segments
        folder = rel.rpartition("/")[0]
        if folder and folder not in ready:
            link = symlink_on_the_way(root, folder)
            if link:
                raise GBrainError(f"{link} is a symlink; export does not write through links it did not create")
            os.makedirs(f"{base}/{folder}", exist_ok=True)
            while folder and folder not in ready:
                ready.add(folder)
                folder = folder.rpartition("/")[0]
        target = f"{base}/{rel}"
        try:
            st = os.lstat(target)
        except FileNotFoundError:
            return target, None
        if stat.S_ISLNK(st.st_mode):
            raise GBrainError(f"{rel} is a symlink; export does not write through links it did not create")
        return target, st

    unreadable: list[str] = []
    mismatched: list[str] = []  # rows whose bytes no longer match the hash stored with them

    def make(rel: str, target: str, st: os.stat_result | None, data: bytes | None, want: str, size: int, hx: str | None = None,
             conn=None) -> tuple[str, str, os.stat_result | None]:
        """Make ``target`` hold a stored file's bytes: ``data`` (whose sha256 ``hx`` is taken here
        when not given, and must be ``want``, the hash stored with the row), or, with ``data``
        None, the pieces stored under ``want`` read on ``conn``, hashed on their way to disk.
        Returns ``(status, sha256 of what the file now holds, its lstat)``, status "written",
        "unchanged" or "mismatch" (nothing written). Runs in this thread or a writer thread: it
        touches nothing shared but the file and reads only ``clobber``/``in_hist``."""
        mode = stat.S_IMODE(st.st_mode) if st is not None else None
        same = st is not None and stat.S_ISREG(st.st_mode) and st.st_size == size
        if data is not None:
            if hx is None:
                hx = sha256(data)
            if hx != want:
                return "mismatch", hx, None
            if same and _read(target) == data:
                status = "unchanged"
            else:
                if st is not None:
                    fresh(target, rel)
                _replace_file(target, data, mode)
                status = "written"
        elif same and blobs.hash_file(target)[0] == want:
            status, hx = "unchanged", want
        else:
            if st is not None:
                fresh(target, rel)
            h = hashlib.sha256()

            def pieces():
                for piece in blobs.iter_pieces(conn, want):
                    h.update(piece)  # the bytes written, hashed on their way to disk
                    yield piece

            _replace_file(target, pieces(), mode)
            status, hx = "written", h.hexdigest()
        return status, hx, os.lstat(target)

    def done(rel: str, result: Callable[[], tuple[str, str, os.stat_result | None]]) -> None:
        """Count one file's outcome (in this thread, in the order the files were read)."""
        nonlocal written, unchanged, i
        try:
            status, hx, st = result()
            if status == "mismatch":
                mismatched.append(rel)
            else:
                if status == "written":
                    written += 1
                else:
                    unchanged += 1
                known[rel] = (st.st_size, change_stamp(st), hx)
        except sqlite3.DatabaseError:  # a big file's pieces unreadable in a damaged brain: named, the rest saved
            unreadable.append(rel)
        except (OSError, GBrainError, ValueError) as e:  # one unwritable path must not stop the rest
            failed.append({"path": rel, "error": getattr(e, "strerror", None) or str(e)})
            if getattr(e, "errno", None) in _NO_SPACE:
                no_space.append(rel)
        i += 1
        if on_progress and (i % 100 == 0 or i == total):
            on_progress(i, total)

    # big files and files of POOL_MIN bytes or more are hashed and written by WRITERS threads
    # while this one reads the next rows; their outcomes are counted in row order
    from collections import deque

    threads = WRITERS if (os.cpu_count() or 1) > 1 else 0
    readers = _Readers(brain.path) if threads and isinstance(brain.path, Path) and getattr(brain.conn, "dialect", "sqlite") == "sqlite" else None
    pool = None
    pending: deque = deque()
    inflight = 0

    def drain(upto: int) -> None:
        nonlocal inflight
        while pending and (inflight > upto or len(pending) > 4 * threads):
            rel, n, fut = pending.popleft()
            inflight -= n
            done(rel, fut.result)

    def hand_off(rel: str, n: int, fn, *args) -> None:
        nonlocal pool, inflight
        if pool is None:
            from concurrent.futures import ThreadPoolExecutor

            pool = ThreadPoolExecutor(threads, thread_name_prefix="gbrain-export")
        pending.append((rel, n, pool.submit(fn, *args)))
        inflight += n
        drain(IN_FLIGHT)

    stored: set[str] = set()  # every path the brain holds (what --prune keeps)

    def put(rel: str, data: bytes | None, want: str, size: int, hx: str | None = None) -> None:
        stored.add(rel)
        try:
            target, st = place(rel)
        except (OSError, GBrainError) as e:
            done(rel, lambda: _raise(e))
            return
        if data is None:  # a big file: streamed from its pieces, never whole in memory
            if readers is not None:
                hand_off(rel, blobs.PIECE, lambda: make(rel, target, st, None, want, size, conn=readers.conn()))
            else:
                done(rel, lambda: make(rel, target, st, None, want, size, conn=brain.conn))
        elif threads and len(data) >= POOL_MIN:
            hand_off(rel, len(data), make, rel, target, st, data, want, size, hx)
        else:
            done(rel, lambda: make(rel, target, st, data, want, size, hx))

    try:
        for r in _rows(brain, "pages", "path, bom, frontmatter_raw, compiled_truth, separator, timeline, content_hash", unreadable):
            data = render_row(r).encode("utf-8")
            hx = sha256(data)
            if hx != r["content_hash"]:
                mismatched.append(str(r["path"]))
                continue
            put(r["path"], data, hx, len(data), hx)
        for r in _rows(brain, "files", "id, path, pieces, content_hash, size", unreadable):
            if r["pieces"]:
                put(r["path"], None, r["content_hash"], r["size"])
                continue
            try:
                d = brain.conn.execute("SELECT data FROM files WHERE id = ?", (r["id"],)).fetchone()
            except sqlite3.DatabaseError:
                unreadable.append(f"files #{r['id']}")
                continue
            data = bytes(d[0])
            put(r["path"], data, r["content_hash"], len(data))
        drain(-1)
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
        if readers is not None:
            readers.close()
    if unreadable:
        failed.append({"path": "(database)", "error": f"{len(unreadable)} row(s) could not be read from the damaged database: " + ", ".join(unreadable[:5])})
    if mismatched or unreadable:  # never saved as good: damaged rows are named, not exported
        from ..errors import Damaged
        from ..page.slugs import shown

        parts = []
        if mismatched:
            names = ", ".join(shown(x) for x in mismatched[:3]) + (f" and {len(mismatched) - 3:,} more" if len(mismatched) > 3 else "")
            parts.append(f"{len(mismatched):,} row(s) no longer match the hash stored with them and were not saved ({names})")
        if unreadable:
            parts.append(f"{len(unreadable):,} row(s) could not be read ({', '.join(unreadable[:3])})")
        raise Damaged(
            f"{brain.path} is damaged: {'; '.join(parts)}; {_saved(written + unchanged, root)}; "
            f"take the rest from your markdown folder (`gbrain import FOLDER --db NEW.db` rebuilds the brain) and run `gbrain check --db {cmd_arg(brain.path)}`"
        )
    if no_space:
        # a full disk is no difference between the brain and the folder (the check would call the
        # files not written "not on disk" and advise a sync): one line, the way on
        raise GBrainError(f"no space left on device: {len(failed):,} file(s) not written to {root} (the files written are complete); "
                          "free space and run export again")
    counts = {"written": written, "unchanged": unchanged, "failed": len(failed)}
    made = {"created_folders": created} if created else {}  # said first in the report: a mistyped --dir shows
    if not check:
        return {"ok": True, "counts": counts, "root": os.path.abspath(root), **made}
    scan = scan_tree(root, exclude_abs=db_excludes(brain.path))
    # the partial temp files of an export (or sync) killed mid-write: never left for a `git add -A`
    cleaned = remove_dead_temps(scan.temps, own=lambda p: holds_bytes_of(brain, p))
    disk, errors = verify.hash_tree(scan, known=known)
    pruned: list[str] = []
    not_pruned: list[str] = []
    if prune:
        pruned, not_pruned = _prune_extras(brain, root, {p: h for p, h in disk.items() if p not in stored})
        if pruned:  # the tree changed: walk it again (the files written keep their known hashes)
            scan = scan_tree(root, exclude_abs=db_excludes(brain.path))
            disk, errors = verify.hash_tree(scan, known=known)
    try:
        # the sidecars' JSON is not parsed again (``raw_check``): their bytes are checked by hash
        # like every file's, and export changes no raw_data row (``verify`` counts them)
        rep = verify.report(brain, scan, disk, deep=False, extra={"counts": counts}, raw_check=False)
    except sqlite3.DatabaseError as e:  # a damaged brain: the files written are what could be saved
        lost = f"; not saved: {failed[-1]['error']}" if unreadable else ""
        from ..storage.db import one_line

        raise GBrainError(f"{brain.path} is damaged ({one_line(e)}); {_saved(written + unchanged, root)}{lost}") from e
    if not rep.get("ok", True) and not failed and not errors:
        # the tree written disagrees with the brain though every row read was sound: a damaged
        # index hid rows from the export's reads (one quick_check tells)
        brain.check_sound(raise_=False)
        if brain.damaged:
            from ..errors import Damaged
            from ..storage.db import one_line

            raise Damaged(
                f"{brain.path} is damaged (SQLite: {one_line(brain.damaged)}); {_saved(written + unchanged, root)}, "
                f"but the export does not match the brain ({one_line('; '.join(rep.get('problems', [])[:2]))}); take the rest from your markdown folder "
                f"(`gbrain import FOLDER --db NEW.db` rebuilds the brain) and run `gbrain check --db {cmd_arg(brain.path)}`"
            )
    if cleaned:
        rep["cleaned_temps"] = cleaned[: verify.MAX_LISTED]
    if prune:
        rep["pruned"], rep["pruned_count"] = pruned[: verify.MAX_LISTED], len(pruned)
        rep["not_pruned"] = not_pruned[: verify.MAX_LISTED]
    if rep.get("missing_in_db"):  # export deletes only with --prune: files of pages deleted or moved since an earlier export
        def say(p: str) -> str:
            n = p.split()[0]
            if prune:
                return (f"{n} file(s) in {root} are not in the brain and hold bytes its history never had at their path: --prune left them "
                        "(no export of this brain wrote them); remove them yourself, or export into an empty folder")
            return (f"{n} file(s) in {root} are not in the brain (left from an earlier export of pages deleted or renamed since?); "
                    "export deletes nothing unless given --prune (it removes only files whose bytes are a version of the page or file "
                    "at their path: an earlier export's); or remove them yourself, or export into an empty folder")

        rep["problems"] = [say(p) if "not in the DB" in p else p for p in rep["problems"]]
    if failed:
        rep["ok"] = False
        rep["write_errors"] = failed[: verify.MAX_LISTED]
        rep["problems"].append(f"{len(failed)} file(s) could not be written: " + "; ".join(f"{f['path']}: {f['error']}" for f in failed[:3]))
    if errors:
        rep["ok"] = False
        rep["problems"].append(f"{len(errors)} file(s) could not be read back")
    return {**made, **rep}
