"""``gbrain watch DIR``: keep a folder and brain.db equal while both are being edited.

One foreground process, one loop (the watchdog observer runs in its own thread and only queues
paths):

* **Start**: bind, start the observer, then run a full :meth:`SyncEngine.sync` (the catch-up after
  downtime, through the same three-way rules). Events that arrive meanwhile are handled after it.
* **File → brain**: every created/modified/moved/deleted/closed-after-write event marks its path
  (and a move's destination) dirty; a folder event marks the folder dirty (a folder moved out of
  the tree becomes a folder whose known paths are gone: its pages go to the trash by prefix; one
  moved in is walked). Events are coalesced per path; a batch runs once no event arrived for
  ``debounce`` seconds (or ``max_wait`` after the first pending one), so a ``git checkout`` of
  1,000 files is one batch in one transaction. A path found gone from disk (and a folder gone)
  waits while deletions are still arriving: it joins a batch once no delete event came for
  :data:`SETTLE_S` (at most :data:`SETTLE_MAX_S` after it was first held), so an ``rm -rf`` of a
  folder reaches the brain as one round and the mass-deletion guard sees the folder as it ends
  up, not piecemeal; edits and new files are not delayed (:class:`Pending`). So waits a note
  moved to a temp or backup name, a name that is no note, or out of the tree (an editor's
  "rename away, write anew, delete the backup" save: the page keeps its id and the save is one
  update), and a note found empty whose last synced version had bytes (a save that truncates,
  then writes: no empty version in between; one the user really emptied is stored after the wait).
  Where the observer reports closes after writes (inotify: :func:`reports_closes`), a file whose
  last event is a write with no close since (its writer still has it open: a save in pieces, a
  slow one) waits for the close, at most :data:`SETTLE_MAX_S`; brain → file rounds leave such a
  note alone meanwhile (:meth:`Pending.writing`), so they never replace, by rename, a file being
  written into; they and retried paths hand a note written on disk since it was last synced (its
  stat: a save maybe still under way) whose events have not come yet to :class:`Pending`
  (:meth:`Watcher._unsettled`). A note whose last event is its writer's close is read at once;
  any other file a round reads that changed within the last second gets a second look a moment
  later (``SyncEngine.read_settle``). A batch offers the
  deletions held back to its round as the old paths of moves only (``maybe_moved``), so a note a
  checkout deleted and created again elsewhere, edited, is still a move; one created only after the
  deletion was carried out (the page in the trash) pairs with the page the engine trashed
  (``SyncEngine.recent_trash``, :data:`~gbrain.sync.engine.RECENT_TRASH_S`): the page comes back
  from the trash at the new path, its id and history kept; and one created (imported as a new
  page) before the deletion's round is taken by the deleted page (``SyncEngine.recent_new``,
  ``_adopt``): one page, the old id and history. Editors' temp files (``.swp``, ``~``,
  ``___jb_tmp___``, ``4913``…) are never imported; a save through rename shows up as a change of
  the target, because reconciliation looks at each path's state, not at the event type.
* **Brain → file**: each tick reads ``PRAGMA data_version`` (SQLite) or the notifications of
  ``LISTEN gbrain_changes`` already on the socket (Postgres: the change-log trigger notifies at
  commit; no query per tick); when another connection committed, the change log after this
  folder's cursor names the paths to reconcile. Writes by ``gbrain put``, ``gbrain tag``, the
  MCP server or another machine's watcher reach the file within a tick.
* **No echo**: a file gbrain wrote is recorded with its stat and hash, so its own events find the
  file equal to the brain; a page imported from a file logs a change whose hash equals the file.
* **Safety net**: every :data:`RESCAN_S` seconds (when no event is pending) a full sync runs,
  so an event the observer dropped (inotify queue overflow) is caught within minutes.
* **Mass deletions**: a round the engine refuses (:class:`MassDeleteRefused`: a folder emptied,
  or most of its notes gone at once) is said once; its paths are held back (``SyncEngine.held``:
  no later round, rescans included, trashes them) until each file comes back, or until watch is
  started again with ``--confirm-delete``; the rest of the batch syncs and watching goes on.
* **Robustness**: a half-written or unreadable file is retried on the next batches; a vanished root
  stops the watch with an error before anything is deleted. A Postgres brain whose connection
  broke (a server restart, a terminated backend: ``storage.pg.Disconnected``) is not fatal: the
  round is rolled back whole and run again on a new connection; while the server cannot be
  reached the watch says so once and tries again with back-off (:data:`BRAIN_RETRY_S` doubling
  up to :data:`BRAIN_RETRY_MAX_S`; a flapping connection, cut again before any round commits,
  is one outage: the back-off resets only once a round commits, :meth:`Watcher._steady`), events
  go on being collected, and once it is back a full sync catches up (what was saved in the
  folder meanwhile reaches the brain). A full disk (the
  brain's or the folder's) is handled the same way: said once, tried again with back-off
  (:data:`FULL_RETRY_S` doubling up to :data:`FULL_RETRY_MAX_S`), a full sync once a round
  commits. A round's change lines are said once it committed (:meth:`Watcher._round`). SIGINT/SIGTERM finish the batch in
  flight, then stop; a summary is returned.
"""
from __future__ import annotations

import errno
import os
import queue
import selectors
import signal
import sqlite3
import sys
import threading
import time
from typing import Callable

from ..core.brain import Brain
from ..errors import GBrainError
from ..page.slugs import is_markdown, shown
from ..storage.pg import Disconnected
from ..storage.db import OPEN_LOCK_SUFFIX, busy_cause, is_busy, refuse_newer_schema
from .engine import TOUCH_S, chunk_size, MassDeleteRefused, Outcome, SyncEngine, SyncError, unwritable_problem
from .scan import IGNORE_FILE, NOT_UTF8, UNREADABLE, UNWRITABLE, VANISHED, VCS_DIRS, escaped, is_temp_name, kind_of, synced_by, undecodable

DEBOUNCE_S = 0.1
MAX_WAIT_S = 2.0
TICK_S = 0.02
#: the loop's wait for the next event while nothing is under way (no event pending, nothing to
#: retry, no line due) on a SQLite brain whose file and log the observer watches too: another
#: process's commit (it writes the brain's ``-wal``) wakes the loop at once, so the ``PRAGMA
#: data_version`` poll need not run every :data:`TICK_S` (trial 68: ~47 wake-ups a second,
#: 0.8% of a core at idle); on Postgres the LISTEN socket wakes it (:class:`_SocketWake`); the root check (:data:`ROOT_CHECK_S`) and a stop signal wait at most this long
IDLE_TICK_S = 0.5
STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM}
ROOT_CHECK_S = 0.5
RETRY_S = 0.5
RETRY_MAX_S = 30.0
#: Postgres: after a lost LISTEN connection, the first reconnect is at once, then after 0.5 s,
#: 1 s, 2 s … at most 30 s apart (changes are read by polling until one succeeds)
LISTEN_RETRY_S = 0.5
LISTEN_RETRY_MAX_S = 30.0
#: Postgres: while the brain's server cannot be reached, it is tried again after 0.5 s, 1 s, 2 s …
#: at most 30 s apart
BRAIN_RETRY_S = 0.5
BRAIN_RETRY_MAX_S = 30.0


def _now() -> float:
    """Monotonic seconds of the brain back-off (:meth:`Watcher._brain_lost`; tests set a fake clock)."""
    return time.monotonic()


#: a full disk (the brain's or the folder's): tried again after 0.5 s, 1 s, 2 s … at most 30 s apart
FULL_RETRY_S = 0.5
FULL_RETRY_MAX_S = 30.0
RESCAN_S = 300.0  # full sync every 5 minutes while watching (0: never)
#: a path gone from disk is synced once no delete event came for this long (s)…
SETTLE_S = 1.0
#: …or this long after it was first held back, while deletions keep coming; also the longest a
#: note whose writer still has it open waits for its close (:class:`Pending`, ``closes``): a save
#: takes milliseconds, a slow one on a network disk or written in pieces a few seconds (an agent's
#: first MCP call between two pieces ~1.5 s), so 30 s outlasts any save, while a writer that never
#: closes (a logger appending to a note) still has its note stored at least every 30 s
SETTLE_MAX_S = 30.0
#: the line on links that still name a moved note by its old name is said once no batch changed
#: anything for this long (s), counted then: Obsidian rewrites the linking notes itself right
#: after a rename, one by one (trial 31: 2,206 notes for 11 s), and said at the move it counted
#: links about to be rewritten and advised a fix racing Obsidian's own
HINT_SETTLE_S = 3.0




#: a sync's counts (:meth:`SyncOutcome.counts` keys) in the words watch prints, in order: the
#: start line names those that happened, the end line (``gbrain watch``'s summary) the first
#: :data:`SUMMARY_WORDS` (every change, put-backs included: a delete/edit conflict logged as
#: ``! conflict … file restored`` has no copy, so ``conflict(s)`` does not count it)
CHANGE_WORDS = [("imported", "file→db"), ("exported", "db→file"), ("moved", "moved"), ("trashed", "trashed"),
                ("removed", "removed"), ("conflicts", "conflict(s)"), ("put_back", "put back"), ("unreadable", "unreadable"),
                ("unwritable", "not written (folder refuses writes)")]
SUMMARY_WORDS = 7


def start_summary(counts: dict) -> str:
    """The start-of-watch sync in words, from :meth:`SyncOutcome.counts`-shaped ``counts``:
    ``"in sync at start"`` when nothing changed, else e.g. ``"at start: 1 file→db, 1 trashed"``
    (every kind of change that happened, trashed and moved files included)."""
    parts = [f"{counts[k]:,} {w}" for k, w in CHANGE_WORDS if counts.get(k)]
    return "at start: " + ", ".join(parts) if parts else "in sync at start"

class Pending:
    """What waits for the next file → brain batch, and when it is due (no clock of its own:
    every time is given, so tests drive it with made-up times).

    :meth:`add` takes one event: ``kind`` is ``file`` or ``dir`` (a change), ``writing`` (a file
    written, no close seen after it), ``gone`` or ``gonedir`` (a file or folder deleted), ``rel``
    the path, ``t`` its monotonic time in seconds. A batch is due ``debounce`` seconds after the last event, or ``max_wait`` after the
    first pending one. :meth:`take` returns it, less the paths (and folders) whose last event was
    a delete and that are absent from disk while deletions are still arriving: those are held until no delete event
    came for ``settle`` seconds, or ``settle_max`` seconds after the first was held, and then
    join a batch together. With an ``emptied(rel)`` test, a file found empty whose last synced
    version had bytes (a save that truncates, then writes) is held the same way: until no event
    came for it for ``settle`` seconds (then it is stored empty, as the user left it); an event
    for it meanwhile puts it back with the changes.

    ``closes``: the observer reports a file's close after a write (inotify's IN_CLOSE_WRITE,
    :func:`reports_closes`; sent as ``closed``, a change). Then a file whose last event is
    ``writing`` is one a writer still has open (a save in progress, in pieces or slow): it waits
    for its close (which brings it back at once, the emptied rule above then counting from the
    close) or at most ``settle_max`` seconds after it was first seen written, and is in
    :meth:`writing` meanwhile; one whose last event is its close is in :attr:`closed` (its
    round needs no second look at it: ``SyncEngine.read_settle``). Without ``closes`` (FSEvents,
    Windows, polling) ``writing`` and ``closed`` are ``file``."""

    def __init__(self, debounce: float, max_wait: float, settle: float = SETTLE_S, settle_max: float = SETTLE_MAX_S,
                 closes: bool = False):
        self.debounce, self.max_wait, self.settle, self.settle_max = debounce, max_wait, settle, settle_max
        self.closes = closes
        self.paths: dict[str, float] = {}
        self.dirs: dict[str, float] = {}
        self.gone_paths: set[str] = set()  # held back: absent while deletions still came
        self.deleted: set[str] = set()  # pending paths and folders whose last event was a delete
        self.gone_dirs: set[str] = set()
        self.first = 0.0  # first event of the pending (not held) paths
        self.last = 0.0  # last event
        self.last_gone = float("-inf")  # last delete event
        self.held_since: float | None = None  # when the first of the held paths was held
        self.empty_held: dict[str, float] = {}  # held back: emptied, path → time of its last event
        self.open_since: dict[str, float] = {}  # closes: last event a write, path → time of the first such
        self.open_held: set[str] = set()  # held back: still open (keys of open_since)
        self.closed: set[str] = set()  # closes: paths whose last event is a close after a write

    def __bool__(self) -> bool:
        return bool(self.paths or self.dirs or self.gone_paths or self.gone_dirs or self.empty_held or self.open_held)

    def writing(self) -> set[str]:
        """The notes a save may still be writing into: held back as emptied or shrunk, or (with
        ``closes``) written and not closed since. A brain → file round leaves them alone
        (:meth:`Watcher._log_round`)."""
        return set(self.empty_held) | set(self.open_since)

    def add(self, kind: str, rel: str, t: float) -> None:
        """One event (see the class)."""
        if kind == "closed":  # a change, the writer done with it
            kind = "file"
            if self.closes:
                self.closed.add(rel)
        else:
            self.closed.discard(rel)
        if not self.paths and not self.dirs:
            self.first = t
        self.last = max(self.last, t)
        if kind in ("gone", "gonedir"):
            self.last_gone = max(self.last_gone, t)
            self.deleted.add(rel)
        else:
            self.deleted.discard(rel)
        self.empty_held.pop(rel, None)
        self.open_held.discard(rel)
        if kind == "writing" and self.closes:
            self.open_since.setdefault(rel, t)
        else:
            self.open_since.pop(rel, None)
        if kind in ("dir", "gonedir"):
            self.dirs[rel] = t
        else:
            self.paths[rel] = t

    def release_open(self) -> None:
        """The observer no longer reports closes (watch fell back to polling): no note waits for
        its close any more; those held for it join the next batch."""
        self.closes = False
        for p, t in self.open_since.items():
            self.paths[p] = t
        self.open_since.clear()
        self.open_held.clear()
        self.closed.clear()

    def take(self, now: float, exists: Callable[[str, bool], bool],
             emptied: Callable[[str], bool] | None = None) -> tuple[set[str], set[str]] | None:
        """The batch due at ``now`` as ``(paths, folders)`` (either may be empty when all of it
        was held back), or None when none is due. ``exists(rel, is_folder)`` looks at the disk;
        ``emptied(rel)`` (optional) says whether a file is empty on disk but had bytes when last
        synced."""
        settled = now - self.last_gone >= self.settle or (self.held_since is not None and now - self.held_since >= self.settle_max)
        due = bool(self.paths or self.dirs) and (now - self.last >= self.debounce or now - self.first >= self.max_wait)
        release = bool(self.gone_paths or self.gone_dirs) and settled
        ripe = {p for p, t in self.empty_held.items() if now - t >= self.settle}
        ripe_open = {p for p in self.open_held if now - self.open_since[p] >= self.settle_max}
        if not due and not release and not ripe and not ripe_open:
            return None
        paths: set[str] = ripe | ripe_open
        dirs: set[str] = set()
        for p in ripe:
            del self.empty_held[p]
        for p in ripe_open:  # open too long: stored as it is now; a later write waits again
            self.open_held.discard(p)
            del self.open_since[p]
        if due:
            times = dict(self.paths)
            paths |= set(self.paths)
            dirs = set(self.dirs)
            deleted = self.deleted
            self.paths.clear()
            self.dirs.clear()
            self.deleted = set()
            if not settled:
                gone = {p for p in paths if p in deleted and not exists(p, False)}
                gone_dirs = {d for d in dirs if d in deleted and not exists(d, True)}
                if gone or gone_dirs:
                    if self.held_since is None:
                        self.held_since = now
                    self.gone_paths |= gone
                    self.gone_dirs |= gone_dirs
                    paths -= gone
                    dirs -= gone_dirs
            for p in [p for p in times if p in paths and p in self.open_since]:
                if now - self.open_since[p] < self.settle_max:
                    self.open_held.add(p)  # its writer still has it open: its close brings it back
                    paths.discard(p)
                else:
                    del self.open_since[p]
            if emptied is not None:
                for p in [p for p in times if p in paths and p not in deleted and now - times[p] < self.settle and emptied(p)]:
                    self.empty_held[p] = times[p]
                    paths.discard(p)
        if settled and (self.gone_paths or self.gone_dirs):
            paths |= self.gone_paths
            dirs |= self.gone_dirs
            self.gone_paths, self.gone_dirs, self.held_since = set(), set(), None
        return paths, dirs


def _opening(reason: str) -> str:
    """What SQLite said when the brain could not be opened on a full disk: the ``(SQLite: …)`` of
    ``reason`` (``storage/db.py: connect``'s error), else ``reason`` on one line."""
    from ..storage.db import one_line

    i = reason.find("(SQLite: ")
    j = reason.find(")", i)
    return reason[i + 1 : j] if i >= 0 and j > i else one_line(reason)


def reports_closes(observer) -> bool:
    """Whether the watchdog ``observer`` sends a ``closed`` event when a file opened for writing
    is closed: inotify's (Linux) does, for every local writer on any file system (the kernel
    reports it where the file is released); FSEvents (macOS), kqueue, Windows' and the polling
    observer do not. :class:`Pending` holds a note still open only where this is True."""
    try:
        from watchdog.events import EVENT_TYPE_CLOSED  # noqa: F401  (watchdog ≥ 2.1)
        from watchdog.observers.inotify import InotifyObserver
    except Exception:  # not Linux (or no libc inotify): no close events
        return False
    return isinstance(observer, InotifyObserver)


def inotify_watches() -> int | None:
    """How many inotify watches this process holds (Linux: the ``inotify wd:`` lines of
    ``/proc/self/fdinfo`` of its inotify descriptors); None where that cannot be read, it
    holds no inotify descriptor or none is listed. Never raises."""
    n, seen = 0, False
    try:
        fds = os.listdir("/proc/self/fd")
    except OSError:
        return None
    for fd in fds:
        try:
            if os.readlink(f"/proc/self/fd/{fd}") != "anon_inode:inotify":
                continue
            with open(f"/proc/self/fdinfo/{fd}", encoding="ascii", errors="replace") as fh:
                n += sum(1 for ln in fh if ln.startswith("inotify wd:"))
            seen = True
        except OSError:
            continue
    # (an observer holds its root's watch at least: none listed is a kernel that does not list them)
    return n if seen and n else None


def folder_count(root: str) -> int:
    """The folders a recursive inotify observer of ``root`` watches: ``root`` and every folder
    below it that is not a symlink (nor under one). Unreadable folders count (they need a watch
    as much). Never raises.

    A walk of its own, kept on purpose (``benchmarks/watch_startup.py``, docs/performance.md): 3–10 ms
    CPU once per watch, 2–6% of its start; the catch-up sync's scan cannot count for it (it
    leaves out the ``.git``, ``.obsidian`` and ignored folders inotify watches, and runs after this
    check, so that it covers what changed before a fallback to polling)."""
    n = 1
    for top, dirs, _ in os.walk(root):
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(top, d))]
        n += len(dirs)
    return n


def _limit_said(kind: str = "watches") -> str:
    """`` = N``: the inotify limit of ``kind`` (``watches`` or ``instances``) in force (the
    smaller of the system's and this user namespace's), or '' where it cannot be read."""
    got = []
    for f in (f"/proc/sys/fs/inotify/max_user_{kind}", f"/proc/sys/user/max_inotify_{kind}"):
        try:
            with open(f, encoding="ascii") as fh:
                got.append(int(fh.read()))
        except (OSError, ValueError):
            pass
    return f" = {min(got):,}" if got else ""


#: how often watchdog's PollingObserver (the fallback when inotify's limits are reached) lists
#: every folder of the tree: its default, said in the warning
POLL_S = 1.0


def limit_error(e: BaseException | None) -> str | None:
    """``watches`` or ``instances`` when ``e`` is inotify running out of one of its limits
    (watchdog raises ``OSError(ENOSPC, "inotify watch limit reached")``, which is no full disk,
    or ``OSError(EMFILE, "inotify instance limit reached")``), else None."""
    if not isinstance(e, OSError) or e.errno not in (errno.ENOSPC, errno.EMFILE) or "inotify" not in str(e):
        return None
    return "instances" if e.errno == errno.EMFILE else "watches"


class _LimitLog:
    """A ``logging`` handler on watchdog's inotify logger. While watch runs, watchdog (7.x)
    meets the watch limit when a folder is made (or moved in, or the watches are rebuilt after
    a queue overflow), logs "Unable to watch PATH: [Errno 28] inotify watch limit reached" and
    leaves that folder unwatched: the record is queued as ``("unwatched", what, t)`` for the
    loop (:meth:`Watcher._poll_instead`) instead of printed. Other records are said as
    warnings (printed by Python's last-resort handler before)."""

    def __init__(self, q: "queue.SimpleQueue", say: Callable[[str], None]):
        import logging

        class H(logging.Handler):
            def emit(h, record):  # noqa: N805
                try:
                    e = record.exc_info[1] if record.exc_info else next((a for a in (record.args or ()) if isinstance(a, BaseException)), None)
                    kind = limit_error(e)
                    if kind is not None:
                        path = next((a for a in (record.args or ()) if isinstance(a, (str, bytes))), b"")
                        path = os.fsdecode(path) if isinstance(path, bytes) else path
                        q.put(("unwatched", (kind, path, e.strerror or str(e)), time.monotonic()))
                    elif record.levelno >= logging.WARNING:
                        say(f"warning: {record.getMessage()}")
                except Exception:  # a log line never stops the observer
                    pass

        self.logger = logging.getLogger("watchdog.observers.inotify")
        self.handler = H(logging.WARNING)
        self.logger.addHandler(self.handler)

    def close(self) -> None:
        self.logger.removeHandler(self.handler)


class _Handler:
    """watchdog handler: turns events into dirty relative paths / folders on a queue
    (``(kind, rel, t)``, kinds as :meth:`Pending.add` takes them: a file's ``modified`` is
    ``writing``, its ``closed`` (after a write) and other changes ``file``)."""

    KINDS = {"created", "modified", "moved", "deleted", "closed"}

    def __init__(self, root: str, q: "queue.SimpleQueue", ignore_abs: set[str]):
        self.root = root.rstrip(os.sep)
        self.q = q
        self.ignore_abs = ignore_abs
        #: absolute paths (the SQLite brain file and its ``-wal``) whose change only wakes the
        #: loop: ``("brain", "", t)`` is queued (:data:`IDLE_TICK_S`)
        self.wake_abs: frozenset[str] = frozenset()

    def _rel(self, path: str | bytes) -> str | None:
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        if path == self.root:
            return ""
        if not path.startswith(self.root + os.sep):
            return None
        if path in self.ignore_abs:
            return None
        rel = path[len(self.root) + 1 :].replace(os.sep, "/")
        if any(p in VCS_DIRS for p in rel.split("/")):
            return None
        return rel

    def _away(self, src: str | bytes, dest: str | bytes | None) -> bool:
        """Whether a file moved from ``src`` to ``dest`` is a note leaving its name for no note:
        ``dest`` is out of the tree (or none), an editor's temp or backup name, or not markdown."""
        rel = self._rel(src)
        if rel is None or not is_markdown(rel):
            return False
        to = self._rel(dest) if dest else None
        return to is None or is_temp_name(to.rsplit("/", 1)[-1]) or not is_markdown(to)

    def dispatch(self, event) -> None:
        et = event.event_type
        if et not in self.KINDS:
            return  # opened / closed_no_write: our own reads must not wake us
        now = time.monotonic()
        dest = getattr(event, "dest_path", None) if et == "moved" else None
        paths = [event.src_path] + ([dest] if dest else [])
        if self.wake_abs and any(os.fsdecode(p) in self.wake_abs for p in paths):
            self.q.put(("brain", "", now))  # another process committed (or the file was replaced)
            return
        # a note moved to a temp or backup name, to a name that is no note, or out of the tree
        # (an editor's "rename away, write anew, delete the backup" save) waits like a deletion
        # (:data:`SETTLE_S`): the new file usually follows and the page keeps its id
        away = et == "moved" and not event.is_directory and self._away(event.src_path, dest)
        for i, p in enumerate(paths):
            rel = self._rel(p)
            if rel is None:
                continue
            # deleted (not moved: a move's source goes in the batch of its destination, which
            # makes it a move; a folder moved out of the tree is one event, judged whole)
            gone = et == "deleted" or (away and i == 0)
            if event.is_directory:
                if et == "modified":
                    continue
                self.q.put(("gonedir" if gone else "dir", rel, now))
            else:
                if is_temp_name(rel.rsplit("/", 1)[-1]):
                    continue
                # a write (IN_MODIFY) tells apart from the close after it (``closed``: the save is
                # done); only an observer that reports closes sends closes (Pending.closes)
                self.q.put(("gone" if gone else "writing" if et == "modified" else "closed" if et == "closed" else "file", rel, now))


class _SocketWake:
    """A daemon thread that waits (``select``) on a socket ``fd`` (Postgres' LISTEN connection)
    and calls ``wake()`` when it becomes readable (a notification, or the server closing it), so
    an idle watch loop may sleep :data:`IDLE_TICK_S` on Postgres too. After a wake it waits until
    :meth:`rearm` (the loop read the socket: ``Listener.poll``) before it selects again, so
    bytes not yet read never spin it. :meth:`close` ends it (a pipe wakes its ``select``) before
    the connection is closed; it never holds up the process's exit. ``OSError`` from ``os.pipe``
    or a bad ``fd`` (``ValueError``) is raised by the constructor."""

    def __init__(self, fd: int, wake: Callable[[], None]):
        self._sel = selectors.DefaultSelector()
        self._r, self._w = os.pipe()
        try:
            self._sel.register(fd, selectors.EVENT_READ, "sock")
            self._sel.register(self._r, selectors.EVENT_READ, "stop")
        except BaseException:
            self._release()
            raise
        self._wake = wake
        self._armed = threading.Event()
        self._armed.set()
        self._stopped = False
        self.broken = False
        self._thread = threading.Thread(target=self._run, name="gbrain-listen-wake", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        if hasattr(signal, "pthread_sigmask"):  # the loop takes SIGINT/SIGTERM (sigtimedwait), not this thread
            signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
        try:
            while not self._stopped:
                got = {key.data for key, _ in self._sel.select()}
                if "stop" in got or self._stopped:
                    return
                self._armed.clear()
                self._wake()
                self._armed.wait()
        except (OSError, ValueError):
            self.broken = True
            self._wake()  # (the loop then reads the socket every tick: its read says what broke)

    def rearm(self) -> None:
        """The loop read the socket: wait on it again."""
        self._armed.set()

    def close(self) -> None:
        """End the thread (waits for it at most 5 s) and free its pipe."""
        self._stopped = True
        self._armed.set()
        try:
            os.write(self._w, b"x")
        except OSError:
            pass
        self._thread.join(timeout=5)
        if not self._thread.is_alive():
            self._release()

    def _release(self) -> None:
        self._sel.close()
        for fd in (self._r, self._w):
            try:
                os.close(fd)
            except OSError:
                pass

    @property
    def alive(self) -> bool:
        """Whether the thread still waits on the socket (False once its ``select`` failed: the
        loop then ticks every :data:`TICK_S` until the next reconnect)."""
        return not self.broken and self._thread.is_alive()


def first_stop_line(chunks: int, left: int | None, during: str = "the first sync") -> str:
    """The line :meth:`Watcher._first_stopped` says: a stop ``during`` the first sync (or ``"a
    rescan"``) after ``chunks`` committed (0: nothing yet), ``left`` files for the next start
    (None: not counted, "the rest")."""
    count = "the rest" if left is None else f"{left:,} file{'s' if left != 1 else ''}"
    kept = ("nothing was committed yet" if chunks == 0 else "the 1 chunk it committed is kept" if chunks == 1
            else f"the {chunks:,} chunks it committed are kept")
    return f"stopped during {during}: {kept}; {count} left for the next start (its first sync takes them)"


class _FirstSyncStopped(Exception):
    """A stop (SIGINT/SIGTERM, :meth:`Watcher.stop`) between the chunks of the first sync or of a
    rescan: ``chunks`` committed and kept, the full sync after them not run (:meth:`Watcher._sync`)."""

    def __init__(self, chunks: int):
        super().__init__(chunks)
        self.chunks = chunks


class Watcher:
    """The watch loop. ``run()`` blocks until :meth:`stop` (or a signal) and returns the summary."""

    def __init__(self, brain: Brain, root: str | os.PathLike, *, debounce: float = DEBOUNCE_S, max_wait: float = MAX_WAIT_S, log: Callable[[str], None] | None = None, rebind: bool = False, rescan: float = RESCAN_S,
                 embed: bool = False):
        self.brain = brain
        #: ``--embed``: a :class:`~gbrain.sync.embedder.EmbedKeeper` keeps the embeddings current
        self.embed = embed
        self.keeper = None
        self.rescan = rescan
        out = log or (lambda s: (sys.stderr.write(s + "\n"), sys.stderr.flush()))
        self.log = lambda s: out(shown(s))  # a file name cannot print a line of its own
        self._warned: dict[str, float] = {}
        self._lines: list[str] | None = None  # a round's change lines, said once it committed
        self.engine = SyncEngine(brain, root, log=self._engine_log, warn=self._warn)
        self.engine.surface = "watch"
        self._said_bad: set[str] = set()
        self._said_refused: set[tuple[str, ...]] = set()
        self.rebind = rebind
        self.debounce = debounce
        self.max_wait = max_wait
        self.q: queue.SimpleQueue = queue.SimpleQueue()
        self.pending = Pending(debounce, max_wait)
        self._stop = threading.Event()
        self._masked = False  # SIGINT/SIGTERM blocked and polled with sigtimedwait (main thread)
        self.counts: dict[str, int] = {k: 0 for k in Outcome().counts()}
        self.conflicts: list[dict] = []
        self.merged: list[str] = []  # pages merged three ways (a stale save, or both sides' edits)
        self.moved: list[tuple[str, str]] = []
        self.moved_hidden: list[tuple[str, str]] = []  # notes moved into or out of a hidden folder (SyncEngine._moved_hidden)
        self.warning_count = 0
        self.collapsed: list[dict] = []  # pages a saved file emptied or shrank (revert hints)
        self.batches = 0
        self.started = 0.0
        self.initial: dict | None = None
        self.error: str | None = None
        self._tries: dict[str, int] = {}
        #: paths a round held or left (``Outcome.held``, ``Outcome.deferred``) still waiting in
        #: ``retry``: retried together, so a move's two ends, one left by a file round and the
        #: other held by the change log's round, meet in one round (:meth:`_batch`)
        self._together: set[str] = set()
        #: the later chunks' paths of the round being cut (:meth:`_chunks`) → (size, change stamp,
        #: file id) as stat'ed then: a path whose file moved on since leaves the round (:meth:`_still_plain`)
        self._chunk_seen: dict[str, tuple[int, int, int]] = {}
        #: the outcomes of a full sync's chunks (:meth:`_sync`) while they run, else None
        self._collect: list[Outcome] | None = None
        #: the new paths of the round's exact renames (:meth:`_move_chunks`) → (old path, (size,
        #: change stamp, file id) as stat'ed when cut) (:meth:`_still_renamed`)
        self._move_seen: dict[str, tuple[str, tuple[int, int, int]]] = {}
        #: the paths of a chunked round that failed after one of its chunks committed (and counted
        #: the round's batch): their retry is that round still, no second batch (:meth:`_count_round`)
        self._counted: set[str] = set()
        self._listener = None  # Postgres: LISTEN gbrain_changes (storage/pg.py Listener)
        self._listen = False  # Postgres: listen for changes (reconnect when the listener is lost)
        self._sock_wake = None  # Postgres: the thread waiting on the LISTEN socket (_SocketWake)
        self._listen_epoch = 0  # one more per LISTEN connection made
        self._listen_at = 0.0  # monotonic time of the next reconnect attempt
        self._listen_wait = LISTEN_RETRY_S
        self._down = False  # Postgres: the brain's server cannot be reached (or the connection broke)
        self._cut_said = False  # the outage said is a cut: the server found unreachable after it is said too
        self._db_id: tuple[int, int] | None = None  # the SQLite brain file opened (run): see _check_brain_file
        self._down_at = 0.0  # monotonic time of the next try while down
        self._down_wait = BRAIN_RETRY_S
        #: connections lost since a round last committed (a streak: a flapping Wi-Fi/VPN cuts the
        #: catch-up again and again; the back-off grows over it, :meth:`_brain_lost`, :meth:`_steady`)
        self._cuts = 0
        self._back_said = False  # "reachable again" said in this streak
        self._catch_up = False  # back after an outage: a full sync is due
        self._full = False  # a disk (the brain's or the folder's) is full: paused until _full_at
        self._full_said = False  # … and that was said (once per episode)
        self._full_at = 0.0
        self._full_wait = FULL_RETRY_S
        #: the brain was opened on a full disk (``storage.db.on_full_disk``: a reader holding an
        #: exclusive lock): its connection is closed until the disk has space (:meth:`_reconnect`)
        self._offline = False
        self._bound = False  # SyncEngine.bind done (a full disk may put it off: :meth:`_bind`)
        self._observer = None  # the watchdog observer running (inotify, or polling: :meth:`_poll_instead`)
        self._polling = False  # inotify's limits reached: the tree is polled
        self._wakes = False  # the brain's commits wake the loop (:meth:`_wake_on_brain`)
        self._resync = False  # a full sync is due once the events settle (the switch to polling)
        #: paths whose brain → file write the folder refused (read-only): kept in the brain, said once
        self.unwritten: set[str] = set()
        self._unwritable_said = False
        self._hint_at = 0.0  # when the renamed-links line is due (0: none): :meth:`_renamed_links_hint`
        #: the paths the moves since that line's last count went to: the links to those pages it counts
        self._hint_moved: set[str] = set()

    def _warn(self, msg: str) -> None:
        """Log a warning, but the same one at most once a minute (a file that stays unreadable is
        retried with back-off, and must not flood the log)."""
        now = time.monotonic()
        if now - self._warned.get(msg, -1e9) >= 60:
            self._warned[msg] = now
            self.log(f"warning: {msg}")

    def stop(self) -> None:
        """Ask the loop to stop after the round in flight (from another thread); it wakes at once."""
        self._stop.set()
        self.q.put(("brain", "", time.monotonic()))  # (an idle loop waits up to IDLE_TICK_S)

    def _engine_log(self, line: str) -> None:
        """The engine's change lines: held while a round runs (:meth:`_round`), else said."""
        if self._lines is not None:
            self._lines.append(line)
        else:
            self.log(line)

    def _round(self, fn: Callable, *args, **kw):
        """Run one engine round (``fn``), saying its change lines only once it committed: a
        round rolled back (a full disk, a busy brain, a file that went away) changed nothing in
        the brain and is run again, so its ``→ db`` lines would be false. Lines of files written
        to the folder (``← db …``: written before the brain's transaction) are said either way."""
        self._lines = []
        commits = getattr(self.brain, "commits", None)
        try:
            r = fn(*args, **kw)
        except BaseException:
            lines, self._lines = self._lines, None
            for line in lines:
                if line.startswith("← db"):
                    self.log(line)
            raise
        lines, self._lines = self._lines, None
        if commits is not None and self.brain.commits != commits:
            self._steady()  # (a round that only read proves nothing about a flapping connection)
        for line in lines:
            self.log(line)
        # a round that wrote nothing proves nothing about the disk: space is back once one wrote
        wrote = r.changed() if isinstance(r, Outcome) else bool(isinstance(r, dict) and any((r.get("counts") or {}).get(k) for k in ("imported", "exported", "trashed", "removed", "moved", "conflicts")))
        if self._full_said and wrote:
            self._full_said = False
            self.log("there is space on the disk again: syncing goes on")
        return r

    def _no_space(self, e: BaseException) -> bool:
        """Whether ``e`` says a disk is full: ENOSPC / EDQUOT writing a file of the folder,
        SQLite's "database or disk is full" (or an I/O error on a brain whose disk is full)."""
        import errno

        from ..storage.db import disk_full, is_url

        if isinstance(e, OSError) and e.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
            return True
        low = str(e).lower()
        if isinstance(e, (sqlite3.Error, GBrainError)):
            if " is full" in low or "no space left" in low:
                return True
            if isinstance(e, sqlite3.Error) and ("disk i/o error" in low or "readonly" in low) and not is_url(str(self.brain.path)):
                return disk_full(self.brain.path)
        return False

    def _disk_full(self, e: BaseException | None, *, why: str | None = None) -> None:
        """A round failed on a full disk (the brain's or the folder's; ``e`` None: the brain was
        opened on one and nothing was tried): roll back what is open, say it once, pause
        file → brain and brain → file rounds and try again with back-off (:data:`FULL_RETRY_S`
        doubling up to :data:`FULL_RETRY_MAX_S`); the events go on being collected, and the
        first round that commits after it is followed by a full sync. At start (the catch-up
        sync, the binding) the same: watch starts and waits."""
        from ..storage.db import one_line, rollback

        if not self._offline:
            rollback(self.brain.conn)
        if not self._full_said:
            self._full_said, self._full_wait = True, FULL_RETRY_S
            where = f"the folder {self.engine.root}" if isinstance(e, OSError) else f"the brain database {self.brain.path}"
            why = f" ({one_line(e)})" if e is not None else f" ({_opening(why)})" if why else ""
            if isinstance(e, OSError):
                # a file write is no transaction: the files written before it stay (each whole:
                # written aside and renamed); the round's brain side, if it had begun, was rolled back
                done = (": every page stays in the brain as written, and the files written before the disk filled are kept (none half-written); "
                        "the files not written yet and the folder's changes not in the brain yet are synced when watch")
            else:
                done = f" ({'the round was rolled back' if e is not None else 'nothing was written yet'}); watch"
            self.log(f"warning: the disk holding {where} is full{why}; nothing was lost{done} goes on and tries again "
                     f"with back-off, up to every {FULL_RETRY_MAX_S:g} s: free some space and it catches up")
        self._pause()

    def _pause(self) -> None:
        """Pause rounds until the next try of the full-disk back-off (events are still
        collected); a full sync follows the first round that commits."""
        self._full, self._catch_up = True, True
        self._full_at = time.monotonic() + self._full_wait
        self._full_wait = min(FULL_RETRY_MAX_S, 2 * self._full_wait)

    def _bind(self) -> bool:
        """Bind the engine to the folder (:meth:`SyncEngine.bind`, which writes for a brain
        never bound). True when done; False when the brain's disk is full (said once, tried
        again with the back-off: :meth:`_resume`); other errors are raised."""
        from ..storage.db import on_full_disk

        if not self._offline and self.brain.offline_reason:
            # not even opened (a new brain, a schema upgrade, a reader refused: all need space)
            self.engine.prepare()
            self._offline = True
            self._disk_full(None, why=self.brain.offline_reason)
            return False
        if not self._offline and on_full_disk(self.brain.conn):
            # opened on a full disk: a reader whose exclusive lock would keep every other
            # process off the brain for as long as watch waits; closed until there is space
            self.engine.prepare()
            self._offline = True
            self.brain.conn.close()
            self._disk_full(None)
            return False
        try:
            self.engine.bind(rebind=self.rebind)
        except (sqlite3.Error, OSError, GBrainError) as e:
            if not self._no_space(e):
                raise
            self.engine.prepare()  # the lock and the rules all the same: watching starts
            self._disk_full(e)
            return False
        self._bound = True
        return True

    def _reconnect(self) -> bool:
        """While :attr:`_offline`: once the brain's disk has space, open the brain's connection
        again (a normal one) for the brain and the engine. False (back-off again, not said
        again) while the disk is still full."""
        from ..errors import Busy
        from ..storage.db import connect, disk_full, on_full_disk

        if disk_full(self.brain.path):
            self._pause()
            return False
        try:
            conn = connect(self.brain.path)
        except (sqlite3.Error, GBrainError) as e:
            if isinstance(e, Busy) or is_busy(e):
                # space is back but a full disk's reader still holds the brain alone
                # (``db.held_alone``): waited for as a full disk is, with the same back-off
                self._warn(f"the brain is busy ({busy_cause(e)}); will retry")
                self._pause()
                return False
            if not self._no_space(e):
                raise
            self._pause()
            return False
        if on_full_disk(conn):  # full again meanwhile
            conn.close()
            self._pause()
            return False
        self.brain.conn = self.engine.conn = conn
        self.brain.offline_reason = None
        self._offline = False
        if self.keeper is not None:
            self.keeper.poke()  # pages stale from before this watch
        return True

    def _resume(self) -> bool:
        """A try of the full-disk back-off is due: connect again and bind where a full disk put
        that off. True when rounds can run (a full sync is due)."""
        if self._offline and not self._reconnect():
            return False
        return self._bound or self._bind()

    def _brain_lost(self, e: Disconnected) -> None:
        """The brain's connection broke or cannot be made: roll back what was cut, say it once
        per outage (a cut as "lost the connection …", the server then unreachable said too), and
        try again later (back-off). An ``e`` raised while a KeyboardInterrupt
        unwound (SIGHUP's ``Terminated``, or a Ctrl-C where watch's handlers are not set: it cut
        a query, a clean-up statement then met the lost connection) is that interrupt, raised
        (:func:`db.raise_interrupt`): never an outage to wait out."""
        from ..storage.db import raise_interrupt

        self.brain.conn.rollback()
        raise_interrupt(e)
        now = _now()
        if self._down and now < self._down_at and not (e.unreachable and self._cut_said):
            return  # the same try lost again (its chunk, then the full sync after it): one step of the back-off
        if not self._down:
            self._cuts += 1  # a connection that answered, lost (a try while down is no new cut)
        if not self._down and self._cuts == 1 or e.unreachable and self._cut_said:
            self._down = True
            self._back_said = False
            why = str(e)
            said = f"cannot reach the brain database {self.brain.path}: "
            self._cut_said = not e.unreachable and why.startswith("lost the connection to the brain database ")
            if self._cut_said:
                what = why  # a cut (the server may answer at once): said as such, the database named once
            else:
                why = why[len(said):] if why.startswith(said) else why
                what = f"the brain database {self.brain.path} is unreachable ({why})"
            self.log(f"warning: {what}; retrying with back-off, up to every {BRAIN_RETRY_MAX_S:g} s; "
                     "edits in the folder are kept and synced once it is back")
        elif not self._down:
            self._down = True
            if self._cuts & (self._cuts - 1) == 0:  # 2, 4, 8 … cuts in a row: said, not each one
                self.log(f"warning: lost the connection to the brain database {self._cuts} times in a row, no round committed since; "
                         f"next try in {self._down_wait:g} s")
        self._down_at = now + self._down_wait
        self._down_wait = min(BRAIN_RETRY_MAX_S, 2 * self._down_wait)

    def _brain_back(self) -> bool:
        """While down and a try is due: whether the brain answers again (then a full sync is due)."""
        if _now() < self._down_at:
            return False
        try:
            self.brain.conn.execute("SELECT 1").fetchone()
        except Disconnected as e:
            self._brain_lost(e)
            return False
        self._down, self._catch_up = False, True
        if not self._back_said:  # (once a streak: its back-off resets once a round commits, _steady)
            self._back_said = True
            self.log("the brain database is reachable again; catching up")
        return True

    def _steady(self) -> None:
        """A round committed (or a full sync ran to its end): a streak of lost connections is over,
        said with its count when there were several, and the brain back-off starts again at
        :data:`BRAIN_RETRY_S`. A connection that merely opens again resets nothing: a flapping
        one cut the catch-up every time, run again about once a second."""
        if self._cuts > 1:
            self.log(f"the brain database takes commits again, after losing the connection {self._cuts} times in a row")
        self._cuts, self._back_said, self._down_wait = 0, False, BRAIN_RETRY_S

    def _add(self, out: Outcome) -> None:
        """Count a round's outcome into this watch's totals; a chunk of a full sync's
        (:meth:`_sync` collecting) is only collected: the full sync's report counts it."""
        if self._collect is not None:
            self._collect.append(out)
            if out.changed() and self.keeper is not None:
                self.keeper.poke()
            return
        self._total(out)

    def _total(self, out: Outcome) -> None:
        """Add ``out`` to this watch's totals (counts, lists, batches) and poke the embedder."""
        for k, v in out.counts().items():
            self.counts[k] = self.counts.get(k, 0) + v
        self.conflicts += out.conflicts
        self.merged += out.merged
        self.moved += out.moved
        self.moved_hidden += out.hidden_moved
        self.collapsed += out.collapsed
        self.warning_count += len(out.warnings)
        if out.changed():
            self.batches += 1
            if self.keeper is not None:
                self.keeper.poke()

    def run(self, *, ready: Callable[[dict], None] | None = None) -> dict:
        """Bind, start the observer, catch up with a full sync, then loop. Returns the summary."""
        from watchdog.observers import Observer

        eng = self.engine
        self._db_id = self._brain_file_id()  # the file opened: deleted or replaced, watch stops
        self._bind()  # a full disk puts it off (said; the loop tries again)
        if getattr(self.brain.conn, "dialect", "sqlite") == "postgres":
            from ..storage.pg import Listener

            # before the catch-up sync: a commit by another machine meanwhile is not missed
            self._listening(Listener(self.brain.conn.url, name=eng.listen_name()))
            self._listen = True
        self.started = time.monotonic()
        root = str(eng.root)
        ignore_abs = set(eng.excl) | {os.path.abspath(str(self.brain.path)) + s for s in ("", "-wal", "-shm", "-journal", OPEN_LOCK_SUFFIX)}
        handler = _Handler(root, self.q, ignore_abs)
        old = {}
        self._masked = False
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                old[sig] = signal.signal(sig, lambda *_: self._stop.set())
            # Block the stop signals in this thread before the observer threads start (they
            # inherit the mask), and take them with sigtimedwait in the loop: a Python-level
            # handler alone was seen to miss a SIGINT under load (~1 in 12 runs), the loop
            # polling on with the signal consumed.
            if hasattr(signal, "pthread_sigmask") and hasattr(signal, "sigtimedwait"):
                signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
                self._masked = True
        short = None  # (limit kind, what happened) when inotify cannot watch the whole tree
        self._root_handler = handler
        self._limit_log = _LimitLog(self.q, self.log)
        try:
            observer = Observer()
            self.pending.closes = reports_closes(observer)
            observer.schedule(handler, root, recursive=True)
            observer.start()
        except OSError as e:
            # inotify's own limits (EMFILE: no instance left, ENOSPC: no watch left), never a full disk
            if limit_error(e) is None:
                self._limit_log.close()
                raise
            observer = None
            short = (limit_error(e), f"inotify could not start ({e.strerror or e})")
        self._observer = observer
        if observer is not None and self._db_id is not None:
            self._wake_on_brain(observer, handler, root)
        if self.pending.closes and short is None:
            have, need = inotify_watches(), folder_count(root)
            if have is not None and have < need:
                # a watchdog that drops the folders over the limit without a word
                short = ("watches", f"inotify could watch only {have:,} of the {need:,} folders of {root}")
        if short is not None:
            self._poll_instead(*short)
        try:
            if self._bound:
                try:
                    self.initial = self._first_sync()
                except _FirstSyncStopped as e:
                    self._first_stopped(e.chunks)
                    return self.summary()  # (no loop: the next start's first sync goes on)
                except Disconnected as e:
                    # cut (a flaky connection, a server restart) after the chunks it committed:
                    # watching starts, and the catch-up runs the full sync once the brain answers,
                    # as after a cut rescan (an interrupt behind it is raised: _brain_lost)
                    self._brain_lost(e)
                except (sqlite3.Error, OSError, GBrainError) as e:
                    if not self._no_space(e):
                        raise
                    self._disk_full(e)  # watching starts; the loop syncs once there is space
            if self.initial is not None:
                self._add_initial(self.initial)
            if self.embed:
                from .embedder import EmbedKeeper

                self.keeper = EmbedKeeper(self.brain.path, self.log)
                self.keeper.start()
                if not self._offline:
                    self.keeper.poke()  # pages stale from before this watch
            if self.initial is None:
                self.log(f"watching {root} (the first sync waits for {'the brain database' if self._down else 'space on the disk'}) — Ctrl-C to stop")
            else:
                files = self.initial["files_seen"]
                self.log(f"watching {root} ({files:,} files; {start_summary(self.initial['counts'])}) — Ctrl-C to stop")
                if not self.initial["ok"]:
                    self._problems(self.initial)
                if self.initial.get("changed", {}).get("imported"):  # notes written while it was stopped, with a moved page's old name (trial 49)
                    self._renamed_links_hint(self.initial["changed"]["imported"])
            if ready:
                ready(self.initial)
            self._loop()
        except GBrainError as e:
            self.error = str(e)
            raise
        finally:
            self._observer.stop()
            self._limit_log.close()
            if self.keeper is not None:
                self.keeper.stop()
            if self._masked:
                signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
            for sig, h in old.items():
                signal.signal(sig, h)
            self._observer.join(timeout=5)
            self._listening(None)
            eng.close()
        return self.summary()

    def _wake_on_brain(self, observer, handler: "_Handler", root: str) -> None:
        """Have the inotify ``observer`` wake the loop when the SQLite brain file or its ``-wal``
        changes (another process's commit), so that an idle loop may wait :data:`IDLE_TICK_S`
        for its next event rather than :data:`TICK_S`: the brain's folder is watched too (not
        recursively), unless the tree's own watch holds it. Nothing is said when that folder
        cannot be watched (a limit reached): the loop then polls every :data:`TICK_S`, as before."""
        db = os.path.abspath(str(self.brain.path))
        real, real_root = os.path.realpath(db), os.path.realpath(root)
        names = {db, real}
        try:
            if os.path.commonpath([real, real_root]) == real_root:
                names.add(os.path.join(handler.root, os.path.relpath(real, real_root)))  # as the tree's events name it
            else:
                observer.schedule(handler, os.path.dirname(real), recursive=False)
        except (OSError, ValueError):
            return
        handler.wake_abs = frozenset(names | {n + "-wal" for n in names})
        self._wakes = True

    def _listening(self, listener) -> None:
        """Make ``listener`` (a new LISTEN connection, or None) the one whose socket wakes the loop
        (:class:`_SocketWake`): the previous one's thread is ended, then its connection closed."""
        if self._sock_wake is not None:
            self._sock_wake.close()
            self._sock_wake = None
        if self._listener is not None and self._listener is not listener:
            self._listener.close()
        self._listener = listener
        if listener is not None:
            try:
                self._sock_wake = _SocketWake(listener.fileno(), lambda: self.q.put(("brain", "", time.monotonic())))
            except (OSError, ValueError, GBrainError) as e:  # (no socket: the loop keeps its short tick)
                self._sock_wake = None
                self._warn(f"cannot wait on the notifications connection ({e}); polling every {TICK_S:g} s")

    def _tick(self, retry: dict, dv) -> float:
        """How long the loop may wait for its next event (s): :data:`IDLE_TICK_S` when the brain
        wakes it (SQLite: :meth:`_wake_on_brain`; Postgres: the LISTEN connection's socket,
        :class:`_SocketWake`, not while it reconnects; not while the tree is polled) and nothing
        is under way (no event pending, no note waiting for its close, nothing to retry, no
        change-log read to do again, no outage, no line due); else :data:`TICK_S`."""
        wakes = self._sock_wake is not None and self._sock_wake.alive if self._listen else self._wakes
        if (not wakes or self._polling or self.pending or self.pending.open_since or retry
                or dv is None or self._down or self._full or self._catch_up or self._resync or self._hint_at):
            return TICK_S
        return IDLE_TICK_S

    def _poll_instead(self, kind: str, what: str) -> None:
        """inotify cannot watch the whole tree (``kind``: its ``watches`` or ``instances`` limit
        is reached; ``what`` says how): watch the tree with watchdog's ``PollingObserver``
        instead (every :data:`POLL_S` s; no close events), said once with the sysctl that
        raises the limit. At start, before the catch-up sync; while watching (a folder made
        past the limit: :class:`_LimitLog`), the polling observer starts first, the inotify
        one stops, and a full sync follows (:attr:`_resync`), so an edit made in the unwatched
        folder meanwhile is not missed."""
        from watchdog.observers.polling import PollingObserver

        if self._polling:
            return
        self._polling = True
        new = PollingObserver(timeout=POLL_S)
        new.schedule(self._root_handler, str(self.engine.root), recursive=True)
        new.start()
        old, self._observer = self._observer, new
        if old is not None:
            old.stop()
            old.join(timeout=5)
        self.pending.closes = False
        self.pending.release_open()
        name = "fs.inotify.max_user_" + kind
        self.log(f"warning: {what} (the system's {name}{_limit_said(kind)} is reached); watching the whole tree by polling instead "
                 f"(watchdog's PollingObserver lists every folder every {POLL_S:g} s: edits still arrive, a second or so later, at more CPU): "
                 f"raise the limit (e.g. `sudo sysctl {name}={524288 if kind == 'watches' else 1024}`; "
                 f"`{name} = …` in /etc/sysctl.d/ keeps it) and restart watch")

    def _first_sync(self) -> dict:
        """The catch-up sync at start. A refused mass deletion (a folder emptied while no watch
        ran, or one a watch held back before this one started) is said once, its paths are held
        back as a batch's would be, and the rest is synced. A stop between its chunks raises
        :class:`_FirstSyncStopped` (:meth:`_sync`)."""
        eng = self.engine
        for _ in range(3):
            try:
                return self._sync()
            except MassDeleteRefused as e:
                self._refused(e)
                if not e.paths - eng.held:
                    raise
                eng.held |= e.paths
        return self._sync()

    def _first_stopped(self, chunks: int, during: str = "the first sync") -> None:
        """Say that a stop ended the first sync (or a rescan: ``during``) after ``chunks``
        committed chunks (kept) and how many files the next start takes
        (:meth:`SyncEngine.files_left`), taking the pending SIGINT/SIGTERM (masked: the loop that
        would take it does not run)."""
        if self._masked:
            signal.sigtimedwait(STOP_SIGNALS, 0)
        try:
            left = self.engine.files_left()
        except Exception:  # (a brain that cannot be read to count)
            left = None
        self.log(first_stop_line(chunks, left, during))

    def _sync(self) -> dict:
        """A full sync (the first, a rescan), its big parts first in chunks: the tree's exact
        renames (:meth:`_move_chunks`) and plain in-place edits past the first chunk
        (:meth:`_chunks`), each a committed transaction as in a file round, found on disk by one
        stat of every file against ``sync_state`` (a storm while watch was stopped: 2,000 notes
        rewritten or a folder renamed held every other writer for the whole sync). The full sync
        (``SyncEngine.sync``, one transaction) then does the rest, the mass-deletion guard and
        move pairing over the whole tree as before; what the chunks did it finds in sync. Its
        report counts the chunks' changes too (one batch). A chunk that fails leaves the rest to
        the full sync; a stop (the first sync's or a rescan's) ends it there
        instead, :class:`_FirstSyncStopped` (the chunks kept, counted in this watch's totals): the
        full sync would take all the rest in one transaction before the watch stopped."""
        outs: list[Outcome] = []
        self._collect = outs  # (the chunks' outcomes: the full sync's report counts them, SyncEngine._sync)
        self.engine.prescan = None
        try:
            try:
                done = self._sync_chunks()
            finally:
                self._collect = None
            if self._stopping():  # (SIGINT/SIGTERM: not the whole rest in one transaction)
                raise _FirstSyncStopped(done)
            try:
                rep = self._round(self.engine.sync)
            finally:
                self.engine.prescan = None  # (taken once, by this sync only)
                self.engine.chunk_outs = None
        except BaseException:
            for out in outs:  # committed, in no report: this watch's totals count them
                self._total(out)
            raise
        self._steady()  # the whole tree in sync: an outage's streak is over, committed or not
        return rep

    def _sync_chunks(self) -> int:
        """The chunks :meth:`_sync` runs before its full sync: :meth:`SyncEngine.chunk_prepass`,
        each chunk a file round of its own (:meth:`_safe_one`), a stop ending it. Returns the
        chunks committed."""
        together = self._together  # (the loop's paths waiting to meet: a chunk's round must not drop them)
        try:
            return self.engine.chunk_prepass(self.chunk_size(), lambda part: self._safe_one(part, set(), retry={}), self._stopping, hold=together)
        finally:
            self._together = together

    def _add_initial(self, rep: dict) -> None:
        c = rep.get("counts", {})
        if any(c.get(k) for k, _ in CHANGE_WORDS[:SUMMARY_WORDS]):
            self.batches += 1
            if self.keeper is not None:
                self.keeper.poke()
        for k, v in c.items():
            if k != "moved_in_brain":  # (sync's text alone; watch's rounds count Outcome.counts())
                self.counts[k] = self.counts.get(k, 0) + v
        self.moved += [(m["from"], m["to"]) for m in rep["moved"]]
        self.moved_hidden += [(m["from"], m["to"]) for m in rep.get("moved_hidden", [])]
        self.conflicts += rep["conflicts"]
        self.merged += rep.get("merged", [])
        self.collapsed += rep.get("collapsed", [])
        self.warning_count += rep.get("warning_count", 0)

    def _loop(self) -> None:
        eng = self.engine
        conn = self.brain.conn
        pending = self.pending
        retry: dict[str, float] = {}  # path → when to retry (half-written / unreadable)
        dv = None  # read the log once at start: a commit during the initial sync is not missed
        log_retry_at = 0.0  # a log round that could not finish is tried again from then on
        next_root_check = time.monotonic() + ROOT_CHECK_S
        next_rescan = time.monotonic() + (self.rescan or 0)
        next_touch = time.monotonic() + TOUCH_S
        expired = False  # this folder's client was expired (unseen too long): rescan it whole
        rules_changed = False  # .gbrainignore changed: rescan it whole
        said_left = False  # a stop during a rescan said the files left (the whole tree's count)
        while not self._stop.is_set():
            if self._masked and signal.sigtimedwait(STOP_SIGNALS, 0) is not None:
                break  # SIGINT/SIGTERM: stop after the batch that just finished
            # 1. drain events (block briefly for the first one)
            try:
                item = self.q.get(timeout=self._tick(retry, dv))
                items = [item]
                while True:
                    try:
                        items.append(self.q.get_nowait())
                    except queue.Empty:
                        break
            except queue.Empty:
                items = []
            woke = bool(items)
            items = [i for i in items if i[0] != "brain"]  # (a commit: read below, as each tick does)
            for kind, rel, t in items:
                if kind == "unwatched":  # a folder inotify could not watch (its limit reached)
                    lim, path, _why = rel
                    self._poll_instead(lim, f"inotify could not watch the folder {path}" if path else "inotify could not watch a new folder")
                    self._resync = True
                    continue
                if undecodable(rel):  # an old zip/Samba name: said once, never synced
                    if rel not in self._said_bad:
                        self._said_bad.add(rel)
                        self.log(f"! skipped {escaped(rel)}{'/' if kind == 'dir' else ''}: {NOT_UTF8}")
                    continue
                if kind in ("dir", "gonedir") and rel == "":
                    next_root_check = 0.0
                    continue
                pending.add(kind, rel, t)
                if rel == IGNORE_FILE:
                    # new rules: files they now let in (or leave out) send no event of their
                    # own, so a full sync follows once the events settle
                    eng.reload_ignore()
                    rules_changed = True
            if items and eng.worktrees_moved():
                # `git worktree add` inside the folder: its checkout is left out from its first
                # event (`gitstate.worktrees_inside`); removed: a full sync as for new rules
                rules_changed = True
            now = time.monotonic()
            # 2. the root must still be there, and the brain file the one watch has open
            if now >= next_root_check:
                next_root_check = now + ROOT_CHECK_S
                if not os.path.isdir(eng.root):
                    raise SyncError(f"the folder {eng.root} vanished; watch stopped and nothing was deleted")
                self._check_brain_file()
            elif woke:
                self._check_brain_file()
            if self._down and not self._brain_back():
                continue  # Postgres server away: events are still collected (above)
            if self._full:
                if now < self._full_at:
                    continue  # a disk is full: events are still collected (above)
                self._full = False  # try again (a round that fails the same way pauses again)
                if not self._resume():
                    continue
                conn = self.brain.conn  # (a new connection after an offline wait)
            if self._catch_up:  # back after an outage: the change log and a full sync
                self._catch_up, expired, dv = False, True, None
            # 3. brain → file: another process committed (SQLite: data_version changed; Postgres:
            #    a notification from the change-log trigger, read from the socket without a query)
            try:
                v = self._changes(conn)
            except Disconnected as e:
                self._brain_lost(e)
                continue
            if v != dv and now >= log_retry_at:
                dv = v
                cur = eng.cursor
                if cur < 0:  # expired while this watch was away (a laptop asleep for weeks): the
                    expired = True  # log rows it missed may be gone; a full sync needs none
                    rows = []
                else:
                    try:
                        rows = conn.execute("SELECT seq, path FROM change_log WHERE seq > ? ORDER BY seq", (cur,)).fetchall()
                    except Disconnected as e:
                        self._brain_lost(e)
                        dv = None
                        continue
                if rows:
                    consumed = rows[-1][0]
                    paths = {r[1] for r in rows}
                    # a commit by someone else during this batch changes data_version again,
                    # so the next tick reads the log once more (our own commits do not)
                    if not self._log_round(paths, consumed, retry, now):
                        dv = None  # the brain was busy, or a file went away: read the log again soon
                        log_retry_at = now + RETRY_S
            if self._resync:  # the tree is polled now: what changed before its first listing
                self._resync, rules_changed = False, True
            # 4. a full rescan now and then catches what the observer may have dropped
            #    (inotify queue overflow, network file systems)
            #    and a client expired meanwhile catches up with one
            if (expired or rules_changed or (self.rescan and now >= next_rescan)) and not pending:
                next_rescan = now + self.rescan
                try:
                    # a brain upgraded past this gbrain stops the watch here, though the rescan
                    # may write nothing (a folder in sync: the write guard never asked)
                    refuse_newer_schema(self.brain.conn, self.brain.path)
                    rep = self._sync()
                except _FirstSyncStopped as e:  # the rest is the next start's: said, no other line
                    self._first_stopped(e.chunks, "a rescan")
                    said_left = True
                    break
                except Disconnected as e:
                    self._brain_lost(e)  # (expired stays: the full sync runs once it is back)
                    if not expired:
                        self._catch_up = True
                except MassDeleteRefused as e:
                    self._refused(e)  # its paths are held back now: the rest syncs at the next tick
                    if e.paths - eng.held:
                        eng.held |= e.paths
                        next_rescan = now
                except (sqlite3.Error, OSError, GBrainError) as e:
                    if self._no_space(e):
                        self._disk_full(e)  # the full sync runs again once there is space
                    elif is_busy(e):
                        # (as a batch's: any other error, a brain upgraded past this gbrain, stops the watch)
                        self._warn(f"the brain is busy ({busy_cause(e)}); rescan skipped")
                    elif isinstance(e, FileNotFoundError):
                        self._warn(f"{e.filename or e} went away during the rescan; rescan skipped")
                    else:
                        raise
                else:
                    expired = rules_changed = False
                    next_touch = now + TOUCH_S
                    self._add_initial(rep)
                    self._problems(rep, "rescan: ")
            # this client is alive: recorded now and then, so it is never expired while it runs
            if now >= next_touch:
                next_touch = now + TOUCH_S
                try:
                    eng.touch()
                except Disconnected as e:
                    self._brain_lost(e)
                except sqlite3.OperationalError as e:
                    if self._no_space(e):
                        self._disk_full(e)
                    else:
                        self._warn(f"the brain is busy ({busy_cause(e)}); will retry")
            # 5. file → brain, once the events settled
            self._file_round(now, retry)
            if self._hint_at and now >= self._hint_at and not pending.paths and not pending.dirs:
                self._hint_at = 0.0
                self._renamed_links_hint()
        if self._hint_at:  # stopped before the changes settled: said now
            self._hint_at = 0.0
            self._renamed_links_hint()
        if not said_left:
            self._say_left(set(retry) | set(pending.paths) | pending.gone_paths | set(pending.empty_held) | set(pending.open_since))

    def _say_left(self, paths: set[str]) -> None:
        """At the stop, when something was still to do (``paths``: a round cut short between its
        chunks, retries, events not yet in a round; or events still queued): how many files the
        next start's first sync will take, said on stderr (``stopped: N files left for the next
        start``). Counted as that sync finds them (:meth:`SyncEngine.files_left`): the observer's
        events of a storm trail behind it, so the paths watch heard of are fewer. A brain that
        cannot be read: ``paths`` counted."""
        while True:
            try:
                kind, rel, _t = self.q.get_nowait()
            except queue.Empty:
                break
            if kind in ("file", "writing", "closed", "gone", "dir", "gonedir") and isinstance(rel, str):
                paths.add(rel)
        if not paths:
            return
        left = self.engine.files_left(paths)
        if left:
            self.log(f"stopped: {left:,} file{'s' if left != 1 else ''} left for the next start (its first sync takes them)")

    def _file_round(self, now: float, retry: dict[str, float]) -> None:
        """The loop's file → brain step at ``now``: the batch :meth:`Pending.take` gives, with
        the paths whose retry is due (``retry``: path → when), or those alone. A retried note a
        save is writing (:meth:`_unsettled`) goes to Pending instead, as its events would."""
        pending = self.pending
        due_retry = {p for p, t in retry.items() if t <= now}
        batch = pending.take(now, self._exists, self._emptied)
        if batch is not None:
            paths, dirs = batch
            closed = paths & pending.closed  # (their writer closed them: no second look)
            pending.closed -= paths
            for p in due_retry:
                retry.pop(p, None)
            due_retry -= self._unsettled_retry(due_retry - paths, now)
            # deletions held back may be the old paths of notes this batch sees created (a
            # checkout deletes and creates a moved and edited note): offered as moves only
            held_gone = set(pending.gone_paths)
            if (paths or dirs or due_retry) and not self._safe_batch(paths | due_retry, dirs, retry=retry, maybe_moved=held_gone, closed=closed - due_retry):
                for p in paths | due_retry:
                    retry[p] = now + RETRY_S
                for d in dirs:
                    pending.add("dir", d, now)
        elif due_retry and not pending.paths and not pending.dirs:
            for p in due_retry:
                retry.pop(p, None)
            due_retry -= self._unsettled_retry(due_retry, now)
            if due_retry and not self._safe_batch(due_retry, set(), retry=retry):
                for p in due_retry:
                    retry[p] = now + RETRY_S

    def _unsettled_retry(self, due: set[str], now: float) -> set[str]:
        """:meth:`_unsettled` of the retried paths ``due``; a path retried together with a held
        one (the two ends of a move a round left, :attr:`_together`) goes to Pending with it, so
        the two still meet in one round."""
        held = self._unsettled(due, now)
        if held & self._together:
            for p in (due & self._together) - held:
                held.add(p)
                if p not in self.pending.paths:
                    self.pending.add("file", p, now)
        return held

    def _brain_file_id(self) -> tuple[int, int] | None:
        """The device and inode of the SQLite brain file at its path (None on Postgres, or when
        no file is there)."""
        if getattr(self.brain.conn, "dialect", "sqlite") != "sqlite":
            return None
        try:
            st = os.stat(str(self.brain.path))
        except OSError:
            return None
        return st.st_dev, st.st_ino

    def _check_brain_file(self) -> None:
        """Stop when the brain file watch opened was deleted or replaced (a restored copy moved
        over it): its writes would go on into a file no path names, lost when watch stops, while
        it says `→ db` (trial 36). Checked with the folder (every :data:`ROOT_CHECK_S`) and on
        each tick that brought events, before their round."""
        if self._db_id is not None and self._brain_file_id() != self._db_id:
            tool = synced_by(self.engine.root) if self.engine.excl else None
            if tool:  # trial 52: the file-sync tool put the other machine's brain.db over this one
                raise SyncError(f"the brain file {self.brain.path} was deleted or replaced while watch ran; watch stopped "
                                f"(its writes would have gone to a file no path names): it lies inside {self.engine.root}, which {tool[0]} "
                                f"syncs ({tool[1]}), and the tool copies it between machines; the notes are as they were: start watch "
                                f"again with the database outside the synced folder (`--db` a new path outside it: its first sync takes the notes in)")
            raise SyncError(f"the brain file {self.brain.path} was deleted or replaced while watch ran; watch stopped "
                            f"(its writes would have gone to a file no path names); the notes in {self.engine.root} are as they were: "
                            f"start watch again (a new brain takes them in with its first sync)")

    def _changes(self, conn):
        """A value that changes when another connection committed a write: SQLite's
        ``PRAGMA data_version``; on Postgres ``(connection number, notifications so far)`` of the
        ``LISTEN gbrain_changes`` connection. A lost LISTEN connection is made again, at once and
        then with back-off (:data:`LISTEN_RETRY_S` doubling up to :data:`LISTEN_RETRY_MAX_S`);
        until one succeeds the ``data_version`` stamp is polled. A new connection gives a new
        value, so the change log is read once more: a commit made while nobody listened is not
        missed (it is in the log, after this folder's cursor)."""
        if not self._listen:
            return conn.execute("PRAGMA data_version").fetchone()[0]
        from ..storage.pg import Listener

        if self._listener is not None:
            try:
                return (self._listen_epoch, self._listener.poll())
            except sqlite3.OperationalError as e:
                self._warn(f"{e}; reconnecting (changes are read by polling meanwhile)")
                self._listening(None)
                self._listen_at, self._listen_wait = 0.0, LISTEN_RETRY_S
            finally:
                if self._sock_wake is not None:
                    self._sock_wake.rearm()  # what was on the socket is read: wait on it again
        now = time.monotonic()
        if now >= self._listen_at:
            try:
                self._listening(Listener(conn.url, name=self.engine.listen_name()))
            except GBrainError as e:
                self._listen_at = now + self._listen_wait
                self._warn(f"{e}; trying again in {self._listen_wait:g} s")
                self._listen_wait = min(LISTEN_RETRY_MAX_S, 2 * self._listen_wait)
            else:
                self._listen_epoch += 1
                self.log("listening for changes again")
                return (self._listen_epoch, self._listener.poll())
        return ("polled", conn.execute("PRAGMA data_version").fetchone()[0])

    def _exists(self, rel: str, folder: bool) -> bool:
        """Whether ``rel`` is on disk (a folder when ``folder``): :meth:`Pending.take` asks."""
        p = os.path.join(str(self.engine.root), *rel.split("/"))
        return os.path.isdir(p) if folder else os.path.lexists(p)

    def _emptied(self, rel: str) -> bool:
        """Whether the file ``rel`` is empty on disk, or lost over half of the bytes of a note of
        at least :data:`~gbrain.core.history.COLLAPSE_MIN_BYTES` (the rule of the "shrank"
        warning), while the version last synced from or to it had them (``sync_state``):
        :meth:`Pending.take` holds it back a moment (a save that truncates, then writes, at
        once or in pieces). One stat and one indexed query."""
        from ..core.history import COLLAPSE_MIN_BYTES

        found = self._on_disk({rel})
        if rel not in found:
            return False
        st, row = found[rel]
        old = row[0] if row and row[0] else 0
        return bool(old) and (st.st_size == 0 or (old >= COLLAPSE_MIN_BYTES and st.st_size * 2 < old))

    def _on_disk(self, rels: set[str]) -> dict[str, tuple[os.stat_result, tuple | None]]:
        """:meth:`SyncEngine.on_disk`."""
        return self.engine.on_disk(rels)

    def _changed_on_disk(self, rels: set[str]) -> set[str]:
        """The files of ``rels`` whose stat is not the one ``sync_state`` recorded when they were
        last synced (size, change stamp unless recorded racy, device and inode): written since,
        by a save that may not be over. One lstat each and one query; a path with no file or no
        row is none (a new file's round pairs moves: Pending's batch or the retry takes it)."""
        from .scan import change_stamp, file_id

        out = set()
        for rel, (st, row) in self._on_disk(rels).items():
            if row is None:
                continue
            size, mtime_ns, fid = row[0], row[1], row[4]
            if size != st.st_size or (mtime_ns and mtime_ns != change_stamp(st)) or (fid is not None and fid != file_id(st)):
                out.add(rel)
        return out

    def _unsettled(self, paths: set[str], now: float) -> set[str]:
        """The notes of ``paths`` that a round not started by :meth:`Pending.take` (the change
        log's brain → file round, a retry) must leave alone: those Pending holds as a save still
        being written (:meth:`Pending.writing`), and those written on disk since they were last
        synced (:meth:`_changed_on_disk`) though Pending has no event of theirs yet: the
        observer's thread runs behind the log's rounds under load, and a round reading a note
        between a save's truncation and its write took the empty file (or the first piece of a
        save in pieces: any size) for the person's version (the three-way plan: base, the
        brain's edit, the part; a conflict, or a merge written to the file by rename, the
        editor's next write then going to the old, unlinked file). Those are handed to Pending
        as changed at ``now``: the file round decides them once their events settle (with
        closes: once the file is closed), both sides from their hashes."""
        held = self.pending.writing() & paths
        for p in self._changed_on_disk(paths - held):
            held.add(p)
            if p not in self.pending.paths:  # (its events came: their batch is due soon)
                self.pending.add("file", p, now)
        return held

    def _log_round(self, paths: set[str], consumed: int, retry: dict, now: float | None = None) -> bool:
        """The brain → file round of the change log's ``paths`` (up to ``consumed``) at ``now``
        (monotonic seconds; None: now), leaving out a note held back as emptied or shrunk
        (:meth:`_emptied`) or written and not closed since (:meth:`Pending.writing`: a save still
        being written; writing the brain's version over it would replace the file the editor is
        writing into, and its next write would go to the old file), or found so before its events
        came (:meth:`_unsettled`). The held note's round, once its events settle, takes both
        sides from their hashes. False as :meth:`_safe_batch` (run it again)."""
        held = self._unsettled(paths, time.monotonic() if now is None else now)
        if held:
            paths = paths - held
            if not paths:
                return True  # the log is read again at the next commit; the held note's round comes
        return self._safe_batch(set(), set(), log_paths=paths, consumed_seq=consumed, retry=retry)

    def _safe_batch(self, paths: set[str], dirs: set[str], **kw) -> bool:
        """:meth:`_safe_one` over the round's chunks: its exact renames first (:meth:`_move_chunks`),
        then :meth:`_chunks` of the rest: each a transaction of its
        own, committed (and its lines said) before the next begins, so other writers get the
        brain between them. The round counts as one batch in the summary. False when a chunk
        must be run again (as :meth:`_safe_one`; the caller retries every path of the round:
        those of the chunks done are found in sync at once). A stop (Ctrl-C, :meth:`stop`)
        between chunks ends the round there: the paths left are still newer on disk than their
        base, so the next round (or the next watch's first sync) takes them."""
        batches = self.batches
        again = bool(self._counted & (paths | set(kw.get("log_paths") or ())))  # the retry of a round a chunk of which committed
        moves, rest_paths = self._move_chunks(paths, dirs, kw)
        chunks = self._chunks(rest_paths, dirs, kw)
        if len(chunks) == 1 and not moves:
            ok = False
            try:
                ok = self._safe_one(paths, dirs, **kw)
            finally:
                self._count_round(batches, again, paths, ok, False)
            return ok
        ok = False
        first = len(moves)  # the renames first (each pair whole, in no other chunk), then the first chunk, then the plain edits
        chunks = [*moves, *chunks]
        try:
            for i, part in enumerate(chunks):
                if i and self._stopping():
                    retry = kw.get("retry")
                    if retry is not None:
                        at = time.monotonic() + RETRY_S
                        for rest in chunks[i:]:
                            for p in rest:
                                retry.setdefault(p, at)
                        if i <= first:  # (the first chunk's folder events: its own paths are in retry; a folder's are walked again by a rescan)
                            for d in dirs:
                                self.pending.add("dir", d, time.monotonic())
                    return True
                if i < first:
                    part = self._still_renamed(part, chunks[first])
                    ok = not part or self._safe_one(part, set(), retry=kw.get("retry", {}), closed=set(kw.get("closed") or ()) & part)
                elif i == first:
                    ok = self._safe_one(part, dirs, **kw)
                else:
                    part = self._still_plain(part)
                    ok = not part or self._safe_one(part, set(), retry=kw.get("retry", {}), closed=set(kw.get("closed") or ()) & part)
                if not ok:
                    return False
            return True
        finally:
            self._count_round(batches, again, paths, ok, True)

    def _count_round(self, batches: int, again: bool, paths: set[str], ok: bool, chunked: bool) -> None:
        """One batch in the summary for a round: its chunks, and its runs again after a chunk
        failed (``batches``: the count before this run of it; ``again``: such a run again). A
        chunked round that failed after a chunk committed and counted the batch leaves its
        ``paths`` in :attr:`_counted`: their run again counts no second batch (each note is
        counted once anyway: the chunks committed are found in sync then)."""
        self.batches = min(self.batches, batches + 1)  # the round's chunks are one batch
        if again:
            self.batches = batches  # (counted by the run a chunk of which failed)
        if ok:
            self._counted -= paths
        elif chunked and self.batches > batches:
            self._counted |= paths

    def _still_plain(self, part: set[str]) -> set[str]:
        """The paths of a later chunk ``part`` whose file is the one :meth:`_chunks` stat'ed
        (size, change stamp, file id): a plain in-place edit still. The others changed on disk
        since the round was cut, seconds ago on a big round (a save begun meanwhile, maybe still
        being written in pieces: its events and close wait in the queue behind the round, the
        batch's ``closed`` is stale; a note renamed or deleted: no deletion Pending held back);
        read now, a save's first piece was taken for the note (merged with a put and written by
        rename, the editor's rest lost: f22fcc3's case) and a renamed note trashed. They leave
        the round and go to Pending as their events would (``gone`` when no file is there): it
        decides them once their events settle."""
        keep, moved = self.engine.still_plain(part, self._chunk_seen)
        now = time.monotonic()
        for rel, st in moved.items():
            if st is None:
                self.pending.add("gone", rel, now)
            elif rel not in self.pending.paths and rel not in self.pending.open_since:  # (held for its close: it stays so)
                self.pending.add("file", rel, now)
        return keep

    def _stopping(self) -> bool:
        """Whether a stop is asked (:meth:`stop`, or a SIGINT/SIGTERM pending while masked: the
        loop takes it after this round), without taking the signal."""
        if self._stop.is_set():
            return True
        return bool(self._masked and hasattr(signal, "sigpending") and STOP_SIGNALS & signal.sigpending())

    def chunk_size(self) -> int:
        """Paths per chunk of a file round's plain in-place edits: ``GBRAIN_WATCH_CHUNK`` when it
        is a whole number (0: no chunks), else :data:`CHUNK_PATHS` (:func:`engine.chunk_size`)."""
        return chunk_size("GBRAIN_WATCH_CHUNK")

    def _move_chunks(self, paths: set[str], dirs: set[str], kw: dict) -> tuple[list[set[str]], set[str]]:
        """The round's exact renames cut into transactions of their own, run before the rest of
        the round: ``(chunks, the other paths)`` (:meth:`SyncEngine.move_chunks`; each pair whole;
        the ends held back, ``maybe_moved``, or waiting to meet, ``_together``, left with the
        rest). ``([], paths)`` for the change log's rounds and with chunking off."""
        if kw.get("log_paths"):
            return [], paths
        hold = set(kw.get("maybe_moved") or ()) | self._together
        chunks, rest, self._move_seen = self.engine.move_chunks(paths, dirs, self.chunk_size(), hold)
        return chunks, rest

    def _still_renamed(self, part: set[str], first: set[str]) -> set[str]:
        """The pairs of a rename chunk ``part`` still as cut (:meth:`SyncEngine.still_renamed`); a
        pair that changed since joins the round's first chunk ``first`` (run after the renames),
        which decides it with the rest."""
        keep, changed = self.engine.still_renamed(part, self._move_seen)
        first |= changed
        return keep

    def _chunks(self, paths: set[str], dirs: set[str], kw: dict) -> list[set[str]]:
        """The file round over ``paths`` and ``dirs`` cut into transactions: ``[first, *rest]``
        (:meth:`SyncEngine.plain_chunks`: only plain in-place edits in ``rest``; the paths held
        back, ``maybe_moved``, or waiting to meet, ``_together``, in ``first``). One chunk
        (``[paths]``) for a round that is small, or driven by the change log, or when chunking
        is off."""
        if kw.get("log_paths"):
            return [paths]
        chunks, self._chunk_seen = self.engine.plain_chunks(paths, dirs, self.chunk_size(), kw.get("maybe_moved") or (), self._together)
        return chunks

    def _safe_one(self, paths: set[str], dirs: set[str], **kw) -> bool:
        """:meth:`_batch`, but a brain locked by another writer for longer than the busy timeout
        (10 s) is not fatal: the batch is rolled back whole and False is returned to retry it.
        Nor is a lost Postgres connection (:class:`Disconnected`): the round never committed
        (or, cut at its commit, is found done by the three-way rules when run again); it is
        run again at once on a new connection, and when the server is away False is returned
        (:meth:`_brain_lost`: said once, tried again with back-off).

        Nor is a file or folder that went away while the round worked on it (FileNotFoundError:
        deleted or renamed the moment it was written or read): rolled back, said once a minute,
        False returned to retry it.

        A refused mass deletion (:class:`MassDeleteRefused`: a folder whose notes all vanished,
        or most of them, at once) is not fatal either: it is said once, its paths are held back
        (``SyncEngine.held``: their pages stay in the brain, their files stay gone, no later
        round trashes them until each file is back) and the batch is synced without them;
        watching goes on.

        A ``Disconnected`` raised while a KeyboardInterrupt unwound (SIGHUP's ``Terminated``: watch
        takes SIGINT/SIGTERM itself, between rounds) is that interrupt, raised: the round is not
        run again (:func:`db.raise_interrupt`)."""
        from ..storage.db import raise_interrupt

        lost = False
        for _ in range(4):
            try:
                self._round(self._batch, paths, dirs, **kw)
                return True
            except Disconnected as e:
                self.brain.conn.rollback()
                raise_interrupt(e)  # (lost while an interrupt unwound: the interrupt, never run again)
                if e.unreachable or lost or self._cuts:  # (cut again before a commit: a flapping connection, backed off)
                    self._brain_lost(e)
                    return False
                lost = True  # once more, on a new connection
                continue
            except sqlite3.OperationalError as e:
                if self._no_space(e):
                    self._disk_full(e)
                    return False
                if not is_busy(e):
                    raise
                self._warn(f"the brain is busy ({busy_cause(e)}); will retry")
                return False
            except FileNotFoundError as e:
                # a file or folder went away while the round worked on it (deleted or renamed the
                # moment sync wrote or read it): the round's transaction was rolled back, and the
                # paths are looked at again shortly (the gone file then is a delete or a move)
                self._warn(f"{e.filename or e} went away while syncing; will retry")
                return False
            except MassDeleteRefused as e:
                self._refused(e)
                if not e.paths - self.engine.held:
                    return True  # nothing new to hold back (cannot happen: the engine skips held paths)
                self.engine.held |= e.paths
            except (sqlite3.Error, OSError, GBrainError) as e:
                # a full disk, the brain's (SQLite: "database or disk is full") or the folder's
                # (ENOSPC writing a file): rolled back, said once, tried again with back-off
                if not self._no_space(e):
                    raise
                self._disk_full(e)
                return False
        return True

    def _refused(self, e: MassDeleteRefused) -> None:
        """Say a mass-delete refusal once per set of folders, with how to confirm it."""
        key = tuple(sorted(p for p, _ in e.folders)) or (str(e),)
        if key in self._said_refused:
            return
        self._said_refused.add(key)
        self.log(f"warning: {e} (stop this watch first; or start it again with --confirm-delete). "
                 "Watching goes on; those notes stay in the brain, and a file that comes back is synced again")

    def _batch(self, paths: set[str], dirs: set[str], *, log_paths: set[str] = frozenset(), consumed_seq: int | None = None, retry: dict,
               maybe_moved: set[str] = frozenset(), closed: set[str] = frozenset()) -> Outcome:
        """One round of the engine over ``paths`` and ``dirs`` (file events), or the change log's
        ``log_paths`` up to ``consumed_seq``; ``closed``: paths whose last event was their
        writer's close (Pending.closed), read without the second look at a young file
        (``SyncEngine.closed``). Paths to try again go in ``retry``."""
        eng = self.engine
        if not os.path.isdir(eng.root):
            raise SyncError(f"the folder {eng.root} vanished; watch stopped and nothing was deleted")
        # a round driven by the change log alone holds back a page deleted on disk but edited in
        # the brain: the file may have been renamed, its events not yet in a batch; the retry
        # (a file round, after them) makes it a move, or puts the file back
        eng.closed = closed
        try:
            out = eng.reconcile(paths, dirs, log_paths=log_paths, consumed_seq=consumed_seq, hold_gone_edits=not paths and not dirs,
                                maybe_moved=maybe_moved - paths)
        finally:
            eng.closed = frozenset()
        self._add(out)
        for _old, new in out.own_moves():
            self._hint_moved.add(new)
        if out.own_moves() or (self._hint_at and out.changed()):  # (a move that only followed another folder's rename: not this watch's to mend)
            self._hint_at = time.monotonic() + HINT_SETTLE_S  # said once the changes settle
        now = time.monotonic()
        wait = set(out.held) | set(out.deferred)  # (deferred: another writer's commit landed under the round)
        self._together = {p for p in self._together if p in retry} | wait
        if wait:
            due = now + max(RETRY_S, self.debounce)
            for p in self._together:
                retry[p] = max(retry.get(p, 0.0), due)
        refused = [(p, why) for p, why in out.unreadable if kind_of(why) == UNWRITABLE]
        if refused:
            self._unwritable(sorted(p for p, _ in refused), str(refused[0][1]).rsplit(": ", 1)[-1])
        self.unwritten.difference_update(out.exported, out.removed, out.put_back)
        for p, why in out.unreadable:
            if kind_of(why) not in (UNREADABLE, VANISHED, UNWRITABLE) or getattr(why, "within", False):  # the user's (symlink, ignored, bad name) or under such a folder (a vanished file: retried, its events may lag)
                continue
            n = self._tries.get(p, 0) + 1
            self._tries[p] = n
            retry[p] = now + min(RETRY_MAX_S, RETRY_S * 2 ** (n - 1))  # 0.5 s, 1 s, 2 s … 30 s
        unread = {p for p, _ in out.unreadable}
        for p in list(self._tries):
            if p not in unread and (p in paths or p in log_paths):
                del self._tries[p]
        bad = eng.verify_paths(out)
        for p in bad:
            self.log(f"MISMATCH after sync: {p} differs between the folder and the brain")
            retry[p] = now + RETRY_S
        return out

    def _unwritable(self, paths: list[str], why: str) -> None:
        """Writes through gbrain the folder refused (a read-only mount or snapshot, a folder the
        user cannot write: ``why`` is the system's word): the brain keeps them, the files keep
        their bytes, disk edits still come in. Said once per watch; the paths are retried with
        back-off (up to every :data:`RETRY_MAX_S` s), and a write that succeeds later (the folder
        made writable) is logged as usual. The end summary counts the paths still unwritten."""
        self.unwritten |= set(paths)
        if self._unwritable_said:
            return
        self._unwritable_said = True
        first = ", ".join(paths[:3]) + (f" and {len(paths) - 3:,} more" if len(paths) > 3 else "")
        self.log(f"warning: the folder {self.engine.root} cannot be written ({why}): edits in the folder still reach the brain, "
                 f"but changes made through gbrain cannot be written to their files ({first}). They stay in the brain, nothing is lost: "
                 f"`gbrain export --dir OTHER` copies them out; once the folder is writable, watch writes them "
                 f"(tried again up to every {RETRY_MAX_S:g} s; this is said once)")

    def _problems(self, rep: dict, prefix: str = "") -> None:
        """A full sync's report problems as warnings; the folder refusing writes said once
        (:meth:`_unwritable`), not with every rescan."""
        self.unwritten = set(rep.get("unwritable") or ())  # a full sync tried every path again
        if rep.get("unwritable"):
            self._unwritable(list(rep["unwritable"]), rep.get("unwritable_reason") or "the folder refused the write")
        said = (unwritable_problem(rep.get("unwritable_count", len(rep["unwritable"])), rep.get("unwritable_reason") or "", self.engine.root)
                if rep.get("unwritable") else None)  # the report's own line for them (engine: the same function)
        for p in rep["problems"]:
            if p != said:
                self._warn(f"{prefix}{p}")

    def _renamed_links_hint(self, paths: "list[str] | None" = None) -> None:
        """After batches that moved notes, once no batch changed anything for
        :data:`HINT_SETTLE_S` (or at the stop): one line when links still name a moved page by
        its old name (:func:`gbrain.core.lint.renamed_links`), with the command that mends them
        (none when the editor rewrote them meanwhile, as Obsidian does). ``paths``: the links of
        the pages there only (the first sync's imports: notes written while the watch was stopped);
        else the links to the notes moved since the last count (:attr:`_hint_moved`), not every
        old name in the brain again (trial 68)."""
        from ..core.lint import renamed_links, renamed_links_in

        moved, self._hint_moved = self._hint_moved, set()
        try:
            rl = renamed_links(self.brain, to_paths=moved) if paths is None else renamed_links_in(self.brain, paths)
        except (sqlite3.Error, GBrainError) as e:  # (a busy or unreachable brain: a hint, not worth a failure)
            self._warn(f"could not count the links to moved notes ({e})")
            return
        if rl["links"]:
            other = f" ({rl['elsewhere']:,} now open another page with that file name)" if rl.get("elsewhere") else ""
            self._engine_log(f"{rl['links']:,} link(s) in {rl['pages']:,} page(s) still name a moved page by its old name{other}: "
                     "`gbrain lint --check dead_links --fix-safe` rewrites them")

    def summary(self) -> dict:
        """``{root, seconds, batches, counts, conflicts, merged, moved, moved_hidden, moved_hidden_count, warning_count,
        initial_ok, ok, exit_code}`` (``merged``: paths merged three ways, also counted as imported and exported;
        ``moved_hidden``: the first 50 notes moved into or out of a hidden folder, no longer counted as trashed)."""
        return {
            "root": str(self.engine.root),
            "seconds": round(time.monotonic() - self.started, 3) if self.started else 0,
            "batches": self.batches,
            "counts": dict(self.counts),
            "conflicts": self.conflicts,
            "merged": self.merged,
            "moved": [{"from": a, "to": b} for a, b in self.moved],
            "moved_hidden": [{"from": a, "to": b} for a, b in self.moved_hidden[:50]],
            "moved_hidden_count": len(self.moved_hidden),
            "collapsed": self.collapsed,
            "unwritten": sorted(self.unwritten)[:50],
            "unwritten_count": len(self.unwritten),
            "warning_count": self.warning_count,
            "initial_ok": bool(self.initial and self.initial["ok"]),
            "ok": True,
            "exit_code": 0,
        }


def watch(brain: Brain, root: str | os.PathLike, **kw) -> dict:
    """Run :class:`Watcher` on ``root`` until interrupted; return its summary."""
    return Watcher(brain, root, **kw).run()


__all__ = ["Watcher", "Pending", "watch", "reports_closes", "DEBOUNCE_S", "MAX_WAIT_S", "SETTLE_S", "SETTLE_MAX_S"]
