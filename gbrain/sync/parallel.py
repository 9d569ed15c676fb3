"""Parse many pages on all cores.

Parsing (mistune + YAML) is the CPU-bound part of import and verify; SQLite writes stay in the
main process. Small batches are parsed in-process (a worker pool costs ~0.3 s to start).
"""
from __future__ import annotations

import gc
import multiprocessing as mp
import multiprocessing.pool
import os
import sys
import threading
from contextlib import contextmanager
from typing import Iterable, Iterator

from ..page.markdown import Page, parse_page

PARALLEL_MIN = 200  # use worker processes from this many pages
_LOADED_IN = os.getpid()  #: the process that imported this module (a pool worker: its forkserver)
GC_YOUNG = 100_000  #: objects allocated between young-generation collections while parsing in bulk


@contextmanager
def few_collections() -> Iterator[None]:
    """Run the body with Python's young-generation collection threshold raised to
    :data:`GC_YOUNG` (from 700), then put the thresholds back. Parsing and writing thousands of
    pages allocate millions of short-lived containers (tokens, rows), and each collection also
    walks the long-lived objects of the import (the scan, the hashes): on the 7,471-page brain
    collections took 0.3-0.5 of 5.9 CPU-s with the pool off. Garbage is freed by reference
    counting as before; only cycles wait longer (gbrain's page objects make none). Imports that
    overlap (threads) share one raise: the thresholds come back when the last of them ends."""
    global _raised, _saved
    with _gc_lock:
        if not _raised:
            _saved = gc.get_threshold()
            gc.set_threshold(max(_saved[0], GC_YOUNG), *_saved[1:])
        _raised += 1
    try:
        yield
    finally:
        with _gc_lock:
            _raised -= 1
            if not _raised:
                gc.set_threshold(*_saved)


_gc_lock = threading.Lock()
_raised = 0  # bodies of few_collections running now
_saved: tuple[int, ...] = (700, 10, 10)  # the thresholds before the first of them


def _worker_start() -> None:
    """A parse worker's start: the raised collection threshold (:func:`few_collections`), and
    SIGINT ignored. A terminal's Ctrl-C reaches the whole process group: the importing process
    handles it (keeps what it committed, says so) and ends the pool; a worker that took it too
    printed a traceback each (trial 71), and the pool started another in its place."""
    import signal

    gc.set_threshold(max(gc.get_threshold()[0], GC_YOUNG), *gc.get_threshold()[1:])
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        if hasattr(signal, "pthread_sigmask"):  # (a spawned worker inherits the mask of :func:`_signals_held`)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, _HELD)
    except (ValueError, OSError):  # (not the main thread: cannot happen in a pool worker)
        pass


_HELD = {getattr(__import__("signal"), n) for n in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(__import__("signal"), n)}


@contextmanager
def _signals_held() -> Iterator[None]:
    """Hold SIGINT, SIGTERM and SIGHUP (gbrain's interrupts: entry.py) while the body runs, then
    deliver any that came: the pool's start is not cut in the middle (trial 71: a Ctrl-C there
    left a started worker behind, ``Pool.__init__`` ends them only on an ``Exception``, and one
    that landed between connecting to the forkserver and sending it the worker's descriptors made
    the forkserver print an ``EOFError`` traceback). No-op where signals cannot be held (Windows)."""
    import signal

    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _mask_kept(start) -> None:
    """``start()`` (multiprocessing's forkserver or resource tracker start), the calling thread's
    signal mask as it was after it: the resource tracker's start, at a process's first pool,
    blocks SIGINT and SIGTERM while it spawns the tracker and then *unblocks* them (bpo-33613)
    rather than restoring the mask. Watch blocks both in every thread and takes them between
    chunks and rounds (``sigpending``/``sigtimedwait``); its first parse pool un-did that, and a
    stop signal went to a Python-level handler instead. A no-op wrapper where signals cannot be
    held (Windows)."""
    import signal

    if not hasattr(signal, "pthread_sigmask"):
        start()
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, ())
    try:
        start()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _parse_job(job: tuple[str, ...]) -> Page:
    path, text, split, *syntax = job  # (a job without its tag or property syntax: the default's)
    return parse_page(text, path, timeline_split=split, tag_syntax=syntax[0] if syntax else "obsidian",
                      property_syntax=syntax[1] if len(syntax) > 1 else "auto")


def _workers_can_start() -> bool:
    """Whether a forkserver/spawn worker can prepare this process's ``__main__``: it imports the
    main module by name, else runs the main script's file again. A script read on standard input
    (``python -``: ``<stdin>``) or one whose file is gone has neither; each worker then dies at
    start and ``multiprocessing.Pool`` starts another, forever (a hang at a full core)."""
    main = sys.modules.get("__main__")
    if getattr(getattr(main, "__spec__", None), "name", None):
        return True
    path = getattr(main, "__file__", None)
    if path is None:  # python -c, an interactive session: nothing to run again
        return True
    from multiprocessing import process

    return os.path.isfile(path if os.path.isabs(path) else os.path.join(process.ORIGINAL_DIR or os.getcwd(), path))


def _is_main_guard(node) -> bool:
    """Whether the statement ``node`` (an ``ast`` node) is ``if __name__ == "__main__":``."""
    import ast

    t = getattr(node, "test", None)
    if not isinstance(node, ast.If) or not isinstance(t, ast.Compare) or len(t.ops) != 1 or not isinstance(t.ops[0], ast.Eq):
        return False
    sides = [t.left, t.comparators[0]]
    names = [x for x in sides if isinstance(x, ast.Name) and x.id == "__name__"]
    mains = [x for x in sides if isinstance(x, ast.Constant) and x.value == "__main__"]
    return len(names) == 1 and len(mains) == 1


def _called_unguarded() -> bool:
    """Whether this call runs from a top-level statement of the main script that is not under
    ``if __name__ == "__main__":`` (the outermost frame of ``__main__``'s module code, its line
    found in the script's syntax tree). A forkserver or spawn worker imports the main module,
    which would run that statement again in every worker: an import there waits on the brain's
    write lock the importing process holds, for good. False when it cannot be told (no script
    file, a call from a thread, a file that no longer parses)."""
    import ast

    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    name = getattr(getattr(main, "__spec__", None), "name", None) or ""
    if not path or name.endswith(".__main__"):  # (python -m pkg: workers do not import a package's __main__)
        return False
    line = None
    f = sys._getframe(1)
    while f is not None:
        if f.f_code.co_name == "<module>" and f.f_globals is getattr(main, "__dict__", None):
            line = f.f_lineno
        f = f.f_back
    if line is None:
        return False
    try:
        with open(path, "rb") as fh:
            tree = ast.parse(fh.read())
    except (OSError, SyntaxError, ValueError):
        return False
    for node in tree.body:
        if node.lineno <= line <= (node.end_lineno or node.lineno):
            return not _is_main_guard(node)
    return False


class _Pool(multiprocessing.pool.Pool):
    """A process pool whose worker-keeping thread wakes only when a worker ends or the pool's
    state changes. ``multiprocessing.pool.Pool`` (3.8+) also has that thread wait on the result
    pipe (``_get_sentinels``), so every chunk of pages a worker sends wakes it, and it loops
    until the result thread has read the chunk: ~0.25 CPU-s of the importing process for the
    7,471-page brain, and GIL hand-overs taken from the thread that writes. Workers ending are
    still seen (their sentinels), as are close/terminate and the cache emptying (the change
    notifier): what ``ThreadPool`` waits on."""

    def _get_sentinels(self):
        return [self._change_notifier._reader]

    @classmethod
    def _terminate_pool(cls, taskqueue, inqueue, outqueue, pool, change_notifier,
                        worker_handler, task_handler, result_handler, cache):
        """``terminate()`` (and the pool's finalizer) that never waits on a worker: the workers
        are killed first, and no thread is left waiting on what a killed worker held.

        ``multiprocessing.pool.Pool``'s own (CPython 3.11) stops its result thread, puts a stop
        message into the result pipe, then ends the workers with SIGTERM and joins the threads. A
        worker sends a chunk of parsed pages (hundreds of KB, over a 64 KB pipe) holding the pipe's
        write lock: killed in the middle, it left its message cut, and the result thread, reading
        it, waited for the rest for good (a Ctrl-C of `gbrain import` that never ended: every
        thread's stack, tests/test_parse_pool.py); or the lock held for good, and the stop message
        waited on it. Here: no stop message (the task thread's is dropped too); the worker thread
        joined (no worker started behind this); every worker killed (SIGKILL) and reaped; the tasks
        the task thread still writes read away until it ends; then this process's own write end of
        the result pipe closed, the last one, so the result thread's read ends at end of file,
        wherever it was in a message. Called once (``util.Finalize``); after a ``close`` +
        ``join`` every step finds its part ended."""
        from multiprocessing.pool import TERMINATE

        outqueue.put = lambda obj: None  # (this queue object only: the workers hold their own)
        worker_handler._state = TERMINATE
        task_handler._state = TERMINATE
        result_handler._state = TERMINATE
        change_notifier.put(None)
        taskqueue.put(None)  # (the task thread's end, even when this runs in the worker thread, whose own comes after)
        if threading.current_thread() is not worker_handler:
            worker_handler.join()
        for p in pool:
            if p.exitcode is None:
                p.kill()
        for p in pool:
            p.join()
        while task_handler.is_alive() and threading.current_thread() is not task_handler:
            # the chunk it is writing into a full pipe, then its stop messages: bytes read away,
            # not messages (a worker killed while it read one left the rest of it there)
            if inqueue._reader.poll(0.05):
                os.read(inqueue._reader.fileno(), 1 << 16)
        outqueue._writer.close()
        if threading.current_thread() is not result_handler:
            result_handler.join()


_TERMINATE_ARGS = ("cls", "taskqueue", "inqueue", "outqueue", "pool", "change_notifier", "worker_handler", "task_handler",
                   "result_handler", "cache")  #: ``Pool._terminate_pool``'s parameters, CPython 3.8-3.13, as :class:`_Pool` takes them


def _terminate_fits(method) -> bool:
    """Whether ``method`` (``multiprocessing.pool.Pool._terminate_pool``, a classmethod) takes the
    parameters :meth:`_Pool._terminate_pool` takes (:data:`_TERMINATE_ARGS`): the finalizer calls
    it with ``Pool.__init__``'s arguments, so a CPython that changed them keeps its own teardown
    (it may hang on a killed worker's cut chunk, but it runs) rather than a ``TypeError`` at
    ``terminate`` and a pool never ended."""
    code = getattr(getattr(method, "__func__", method), "__code__", None)
    return code is not None and code.co_varnames[:code.co_argcount] == _TERMINATE_ARGS


if not _terminate_fits(multiprocessing.pool.Pool._terminate_pool):
    del _Pool._terminate_pool


def _preload() -> list[str]:
    """Modules the forkserver imports once, for every worker it forks to inherit: the parser,
    after :mod:`gbrain.sync.forkserver_init` (SIGINT ignored in the workers from their fork). A
    worker also runs the main script again (``spawn.prepare``); the ``gbrain`` console script
    imports only :mod:`gbrain.launch` at its top (nothing to preload: it imported ``gbrain.entry``,
    i.e. every operation, 0.15-0.18 CPU-s a worker, until launch took its place)."""
    return ["gbrain.sync.forkserver_init", "gbrain.sync.parallel"]


def chunk_size(jobs: int, workers: int) -> int:
    """Pages per message to and from a worker: few, large messages (each costs the main process
    a wake-up of the pool's result thread and a GIL hand-over: chunks of 16 pages cost 1.1 CPU-s
    of the main process for the 7,471-page brain, of ~125 0.5-0.7), still ~8 chunks per worker
    to share the work."""
    return max(16, jobs // (8 * workers))


MAX_WORKERS = 4  #: the pool's size at most, unless ``GBRAIN_PARSE_WORKERS`` says more
_warned_setting: set[str] = set()  # GBRAIN_PARSE_WORKERS values already warned about


def usable_cpus() -> int:
    """How many cores this process may run on: its CPU affinity (``taskset``, a container's
    cpuset), else ``os.cpu_count()``; at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def default_workers() -> int:
    """The parse pool's size: ``GBRAIN_PARSE_WORKERS`` when set to a whole number ≥ 0 (0 and 1:
    parse in the importing process, no pool), else ``min(MAX_WORKERS, usable_cpus())``. A value
    that is not such a number is ignored, with one warning on stderr."""
    raw = os.environ.get("GBRAIN_PARSE_WORKERS", "").strip()
    if raw:
        if raw.isdigit():
            return max(1, int(raw))
        if raw not in _warned_setting:
            _warned_setting.add(raw)
            print(f"warning: GBRAIN_PARSE_WORKERS={raw!r} is not a whole number of workers (0 or 1: no pool); ignored", file=sys.stderr)
    return min(MAX_WORKERS, usable_cpus())


class PageParser:
    """``with PageParser() as pp: for page in pp.parse(jobs)`` — jobs are ``(path, text, split[, tag syntax])``;
    pages come back in job order. The pool starts on first need and ends with the ``with``;
    ``workers``: its size (None: :func:`default_workers`; under 2, no pool)."""

    def __init__(self, workers: int | None = None):
        self.workers = workers or default_workers()
        self.pool = None

    def parse(self, jobs: list[tuple[str, ...]]) -> Iterator[Page]:
        if len(jobs) < PARALLEL_MIN or self.workers < 2:
            return map(_parse_job, jobs)
        if self.pool is None and not _workers_can_start():
            self.workers = 1  # (python - < script.py: parse in this process)
            return map(_parse_job, jobs)
        if self.pool is None and _called_unguarded():
            self.workers = 1
            print("note: parsing in one process: this script calls gbrain from a top-level statement, which each parse worker "
                  "would run again (Python's multiprocessing rule); put it under `if __name__ == \"__main__\":` to parse on all cores",
                  file=sys.stderr)
            return map(_parse_job, jobs)
        if self.pool is None:
            from multiprocessing import resource_tracker

            methods = mp.get_all_start_methods()
            ctx = mp.get_context("forkserver" if "forkserver" in methods else "spawn")
            try:
                if ctx.get_start_method() == "forkserver":
                    # (the forkserver's preload is process-wide; it applies when the forkserver
                    # starts, at the first pool of the process)
                    ctx.set_forkserver_preload(_preload())
                    from multiprocessing import forkserver

                    _mask_kept(forkserver.ensure_running)  # (before the signals are held: its workers inherit its signal mask)
                _mask_kept(resource_tracker.ensure_running)  # (spawn: started here, not inside the held signals)
                with _signals_held():  # a Ctrl-C meanwhile lands after: the pool is self.pool, and the with ends it
                    self.pool = _Pool(self.workers, initializer=_worker_start, context=ctx)
            except OSError:
                # the pool cannot start (its forkserver's Unix socket path under a long $TMPDIR
                # is over 108 bytes: "AF_UNIX path too long"): parse in this process instead
                self.workers = 1
                return map(_parse_job, jobs)
        return self.pool.imap(_parse_job, jobs, chunksize=chunk_size(len(jobs), self.workers))

    def __enter__(self) -> "PageParser":
        return self

    def __exit__(self, *exc) -> None:
        """End the pool: when the body finished, after the workers end (``close`` + ``join``);
        when it raised (Ctrl-C, a failure), at once (``terminate``): the pages still queued are
        not parsed for nothing, nor waited for."""
        if self.pool is not None:
            pool, self.pool = self.pool, None
            if not exc or exc[0] is None:
                pool.close()
            else:
                pool.terminate()
            pool.join()


def parse_all(jobs: Iterable[tuple[str, str, str]]) -> list[Page]:
    """Parse every job (in parallel when there are many); pages in job order."""
    jobs = list(jobs)
    with few_collections(), PageParser() as pp:
        return list(pp.parse(jobs))
