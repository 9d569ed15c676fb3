"""Large files in pieces: a file bigger than :data:`BIG` never passes through memory whole.

Storage (migration v9 in :mod:`gbrain.storage.db`, ``sql/pg_v3.sql`` on Postgres)
------------------------------------------------------------------------------------
* ``blob_data(id, data)``: one piece of at most :data:`PIECE` bytes;
* ``blob_pieces(hash, seq, data_id)``: the pieces of the file whose sha256 is ``hash``, in
  order (``seq`` 0, 1, …). Content-addressed: the same bytes are stored once, whichever file or
  history version holds them;
* ``files.pieces``: 0 when the file's bytes are in ``files.data`` (every file up to :data:`BIG`),
  else the number of pieces under ``files.content_hash`` (``files.data`` is then empty);
* a history body of such a file is the one-byte marker ``c`` (``history_bodies.data``) meaning
  "the pieces under this hash" (:mod:`gbrain.core.history`), never a second copy; its ``depth``
  is the chain maximum, so it is never used as a deflate dictionary.

A piece set is written before the ``files`` row that names it (the history trigger only marks),
and pieces are only removed by ``history-prune`` when neither a file nor a history body names
their hash any more. Writers stream from a file object (:func:`store_stream`), readers get an
iterator of pieces (:func:`iter_file`); each piece is fetched by its own query, so neither
engine's cursor ever holds more than one piece.
"""
from __future__ import annotations

import errno
import hashlib
import io
import os
import stat
import threading
from pathlib import Path
from typing import BinaryIO, Iterator

PIECE = 1 << 20  #: bytes per stored piece (1 MiB)
BIG = 16 << 20  #: files larger than this (16 MiB, the largest page) are streamed and stored in pieces
READ = 1 << 20  #: bytes per read when hashing or copying a big file

MIGRATION_SQL = """
CREATE TABLE IF NOT EXISTS blob_data (
  id INTEGER PRIMARY KEY,
  data BLOB NOT NULL                -- one piece, at most blobs.PIECE bytes
);
CREATE TABLE IF NOT EXISTS blob_pieces (
  hash TEXT NOT NULL,               -- sha256 hex of the whole file
  seq INTEGER NOT NULL,             -- 0, 1, ... in file order
  data_id INTEGER NOT NULL REFERENCES blob_data(id),
  PRIMARY KEY (hash, seq)
);
"""
#: 0: the bytes are in ``files.data``; n: n pieces under ``files.content_hash``
PIECES_COLUMN = "ALTER TABLE files ADD COLUMN pieces INTEGER NOT NULL DEFAULT 0"


def is_big(size: int) -> bool:
    """Whether a file of ``size`` bytes is streamed and stored in pieces."""
    return size > BIG


#: the flags of every read of a file in a folder sync or import reads (:func:`open_nofollow`):
#: never through a symlink, where the platform has ``O_NOFOLLOW``
O_READ_NOFOLLOW = os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_NOFOLLOW", 0)
#: what an ``O_NOFOLLOW`` open of a symlink fails with: ELOOP (Linux, macOS), EMLINK (FreeBSD),
#: EFTYPE (NetBSD)
_LINK_ERRNOS = frozenset({errno.ELOOP, errno.EMLINK, getattr(errno, "EFTYPE", errno.ELOOP)})


def _open_looked_at(path: str | os.PathLike, flags: int) -> int:
    """``os.open`` where the platform has no ``O_NOFOLLOW`` (Windows), which follows a link: the
    path is looked at after the open, and a symlink there, or another file than the one opened
    (swapped between the open and the look), is refused as ``O_NOFOLLOW`` refuses it (ELOOP,
    :func:`is_symlink_refusal`). Returns the descriptor."""
    fd = os.open(path, flags)
    try:
        st = os.lstat(path)
        if stat.S_ISLNK(st.st_mode) or not os.path.samestat(st, os.fstat(fd)):
            raise OSError(errno.ELOOP, "the file is a symbolic link (not followed)", os.fspath(path))
    except BaseException:
        os.close(fd)
        raise
    return fd


#: the open of a file by its path: ``os.open``, or where ``O_NOFOLLOW`` is missing :func:`_open_looked_at`
_plain_open = os.open if getattr(os, "O_NOFOLLOW", 0) else _open_looked_at
#: the open of each folder below a confined root (:func:`_open_below`): never through a link
_O_DIR = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
#: folders whose files are read one folder at a time (:func:`confined`): ``(root + separator,
#: descriptor of root)``; a tuple replaced whole, so a reading thread never sees it half made
_confined: tuple[tuple[str, int], ...] = ()
_confined_count: dict[str, int] = {}
_confined_lock = threading.Lock()
#: where a descriptor relative open of folders is possible (not Windows)
_CAN_CONFINE = bool(getattr(os, "O_NOFOLLOW", 0)) and os.open in os.supports_dir_fd


class confined:
    """``with confined(root):`` every read of a file under ``root`` (:func:`os_open`, so
    :func:`open_nofollow` and verify's hashing) opens the folders below ``root`` one at a time,
    none through a symlink (``O_NOFOLLOW`` on each, relative to the one above), then the file
    with ``O_NOFOLLOW``: a folder of the tree swapped for a symlink between a walk and a read
    (the walk never goes into one) is refused as a symlinked file is (ELOOP,
    :func:`is_symlink_refusal`), never read through out of the folder. ``root`` itself is the
    user's choice (it may be reached through a link); it is opened once here. Sync's rounds,
    import and verify read their folder within it; nested uses of one root share it. Without
    ``O_NOFOLLOW`` or descriptor-relative opens (Windows) it does nothing."""

    def __init__(self, root: str | os.PathLike):
        self.key = os.path.join(str(Path(os.fspath(root))), "")  # as a scan joins its paths
        self.fd: int | None = None

    def __enter__(self) -> "confined":
        if _CAN_CONFINE:
            with _confined_lock:
                self._enter()
        return self

    def _enter(self) -> None:
        global _confined
        n = _confined_count.get(self.key, 0)
        if n == 0:
            try:
                self.fd = os.open(self.key, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
            except OSError:  # an unusable root: its reads fail as before
                return
            _confined = _confined + ((self.key, self.fd),)
        _confined_count[self.key] = n + 1
        self.entered = True

    def __exit__(self, *exc) -> None:
        if getattr(self, "entered", False):
            with _confined_lock:
                self._exit()

    def _exit(self) -> None:
        global _confined
        n = _confined_count.get(self.key, 0)
        if n == 0:
            return
        if n > 1:
            _confined_count[self.key] = n - 1
            return
        del _confined_count[self.key]
        fd = next(f for k, f in _confined if k == self.key)
        _confined = tuple(c for c in _confined if c[0] != self.key)
        os.close(fd)


def _open_below(rootfd: int, rel: str, flags: int) -> int:
    """Open ``rel`` (``/``-separated, below the folder open at ``rootfd``) with ``flags``, each
    folder on the way opened without following a link (:class:`confined`). A symlinked folder
    raises ELOOP (Linux says ENOTDIR for a link opened with ``O_DIRECTORY``: looked at again)."""
    parts = rel.split(os.sep)
    d = rootfd
    try:
        for part in parts[:-1]:
            try:
                nd = os.open(part, _O_DIR, dir_fd=d)
            except NotADirectoryError:
                if stat.S_ISLNK(os.lstat(part, dir_fd=d).st_mode):
                    raise OSError(errno.ELOOP, "a folder on the way is a symbolic link (not followed)", part) from None
                raise
            old, d = d, nd  # (d names an open folder whatever instruction a Ctrl-C lands at: never closed twice)
            if old != rootfd:
                os.close(old)
        return os.open(parts[-1], flags, dir_fd=d)
    finally:
        if d != rootfd:
            os.close(d)


def os_open(path: str | os.PathLike, flags: int) -> int:
    """The open of every read of a folder's file (:func:`open_nofollow`, verify's hashing) with
    :data:`O_READ_NOFOLLOW`: below a :class:`confined` root, folder by folder (:func:`_open_below`),
    else by its path (:data:`_plain_open`)."""
    if _confined:
        p = os.fspath(path)
        for key, fd in _confined:
            if p.startswith(key):
                try:
                    return _open_below(fd, p[len(key):], flags)
                except OSError as e:
                    if e.filename is not None:
                        e.filename = p
                    raise
    return _plain_open(path, flags)


def open_nofollow(path: str | os.PathLike) -> BinaryIO:
    """Open the file at ``path`` to read its bytes, never through a symlink: a walk lstat-s a
    folder's files and leaves a symlink alone (``scan.NOT_FOLLOWED``), but a file swapped for a
    link to a file elsewhere between the walk and the read was read through it (the outside
    file's bytes imported). The open of a symlink fails instead (:func:`is_symlink_refusal`);
    only the last part of the path is checked (a walk never goes into a symlinked folder; without
    ``O_NOFOLLOW``, Windows, the path is looked at after the open: :data:`os_open`).
    Raises ``OSError``.

    The descriptor is opened by ``open``'s ``opener``, so the file object owns it from the
    start: a KeyboardInterrupt (Ctrl-C) taken as ``open`` returns drops the file, which closes it
    once. (Opened first and closed again by an ``except`` around ``open(fd)``, it was closed
    twice there: ``OSError(EBADF)`` replaced the interrupt, a sync calling the note ``cannot
    read: Bad file descriptor`` and going on; or another thread's file that took the number was
    closed. ``tests/test_interrupt_windows.py``.)"""
    return open(path, "rb", opener=_open_nofollow_fd)


def _open_nofollow_fd(path: str | os.PathLike, flags: int) -> int:
    """:func:`open_nofollow`'s ``opener``: :func:`os_open` with :data:`O_READ_NOFOLLOW`
    (``open``'s own ``flags`` for ``"rb"`` ignored)."""
    return os_open(path, O_READ_NOFOLLOW)


def is_symlink_refusal(e: OSError) -> bool:
    """Whether ``e``, from :func:`open_nofollow` (or any ``O_NOFOLLOW`` open), says the path is
    a symlink: the file became one after the walk, and is left alone as the walk leaves one."""
    return e.errno in _LINK_ERRNOS


def hash_file(path: str | os.PathLike) -> tuple[str, int]:
    """``(sha256 hex, size)`` of a file, read :data:`READ` bytes at a time; never through a
    symlink (:func:`open_nofollow`)."""
    h = hashlib.sha256()
    n = 0
    with open_nofollow(path) as fh:
        while True:
            b = fh.read(READ)
            if not b:
                break
            h.update(b)
            n += len(b)
    return h.hexdigest(), n


def has_pieces(conn, hx: str) -> int:
    """How many pieces are stored under ``hx`` (0: none)."""
    r = conn.execute("SELECT COUNT(*) FROM blob_pieces WHERE hash = ?", (hx,)).fetchone()
    return int(r[0]) if r else 0


def store_stream(conn, fh: BinaryIO) -> tuple[str, int, int]:
    """Store everything ``fh`` yields as pieces (in the caller's transaction); returns
    ``(sha256 hex, size, pieces)``. Bytes already stored under the same hash are not kept twice
    (the pieces just written are dropped again). Peak memory: one piece, and SQLite's default
    page cache (:func:`gbrain.storage.db.cache_at_most`: a bulk import's larger one would keep the
    transaction's pieces in it)."""
    from .db import cache_at_most

    h = hashlib.sha256()
    size = 0
    ids: list[int] = []
    with cache_at_most(conn):
        while True:
            b = fh.read(PIECE)
            if not b:
                break
            h.update(b)
            size += len(b)
            ids.append(conn.execute("INSERT INTO blob_data(data) VALUES (?) RETURNING id", (b,)).fetchone()[0])
            del b
    hx = h.hexdigest()
    have = has_pieces(conn, hx)
    if have:
        conn.executemany("DELETE FROM blob_data WHERE id = ?", [(i,) for i in ids])
        return hx, size, have
    conn.executemany("INSERT INTO blob_pieces(hash, seq, data_id) VALUES (?, ?, ?)", [(hx, k, i) for k, i in enumerate(ids)])
    return hx, size, len(ids)


def store_bytes(conn, data: bytes) -> tuple[str, int, int]:
    """:func:`store_stream` over bytes already in memory (a revert, a move of a big file)."""
    return store_stream(conn, io.BytesIO(data))


def iter_pieces(conn, hx: str) -> Iterator[bytes]:
    """The pieces stored under ``hx``, in order, one query each."""
    n = has_pieces(conn, hx)
    for k in range(n):
        r = conn.execute("SELECT d.data FROM blob_pieces p JOIN blob_data d ON d.id = p.data_id WHERE p.hash = ? AND p.seq = ?", (hx, k)).fetchone()
        if r is None:
            raise ValueError(f"piece {k} of {hx} is missing")
        yield bytes(r[0])


def iter_file(conn, path: str) -> Iterator[bytes] | None:
    """The bytes of stored file ``path`` as an iterator of pieces (one piece for a small file);
    None when no such file is stored."""
    r = conn.execute("SELECT pieces, content_hash FROM files WHERE path = ?", (path,)).fetchone()
    if r is None:
        return None
    if not r[0]:
        d = conn.execute("SELECT data FROM files WHERE path = ?", (path,)).fetchone()
        return iter([bytes(d[0])])
    return iter_pieces(conn, r[1])


def file_bytes(conn, path: str) -> bytes | None:
    """The whole bytes of stored file ``path`` (None: not stored). For the callers that need
    them whole anyway (a ``.raw`` sidecar's JSON, ``log.md``); big files go through
    :func:`iter_file`."""
    it = iter_file(conn, path)
    return None if it is None else b"".join(it)


def write_pieces(pieces: Iterator[bytes], dest: Path) -> tuple[str, int]:
    """Write ``pieces`` to ``dest`` (open file object semantics: the caller makes it atomic);
    returns ``(sha256 hex, size)`` of what was written."""
    h = hashlib.sha256()
    n = 0
    with open(dest, "wb") as out:
        for b in pieces:
            h.update(b)
            n += len(b)
            out.write(b)
    return h.hexdigest(), n


_UNUSED = ("SELECT hash FROM blob_pieces WHERE hash NOT IN (SELECT content_hash FROM files WHERE pieces > 0) "
           "AND hash NOT IN (SELECT hash FROM history_bodies WHERE substr(data, 1, 1) = X'63')")


def prune_unused(conn) -> int:
    """Delete the pieces no file and no history body names any more (after ``history-prune``
    removed bodies); returns how many pieces went. Runs in the caller's transaction."""
    gone = [r[0] for r in conn.execute(f"SELECT data_id FROM blob_pieces WHERE hash IN ({_UNUSED})").fetchall()]
    conn.execute(f"DELETE FROM blob_pieces WHERE hash IN ({_UNUSED})")
    conn.executemany("DELETE FROM blob_data WHERE id = ?", [(i,) for i in gone])
    return len(gone)


__all__ = ["PIECE", "BIG", "is_big", "hash_file", "store_stream", "store_bytes", "iter_pieces", "iter_file", "file_bytes", "write_pieces", "has_pieces", "prune_unused"]
