"""Imported by the parse pool's forkserver alone, first of its preloads (:func:`parallel._preload`):
a SIGINT handler for the forkserver and every process it forks, which ignores the signal in a parse
worker (from its fork on) and raises ``KeyboardInterrupt`` as Python's own handler does in any other
process.

CPython's forkserver (3.11-3.13) saves the signal handlers it finds once its preloads are imported,
ignores SIGINT itself, and gives each process it forks the saved handlers back
(``forkserver._serve_one``): a worker took a Ctrl-C to the process group with Python's own handler from
its fork until its initializer (:func:`parallel._worker_start`) ignored it, printed a
``KeyboardInterrupt`` traceback, and the pool started another in its place. The forkserver is the
process's own, though: a program using gbrain as a library forks its own processes from it
(``multiprocessing.get_context("forkserver")``), and a plain ``SIG_IGN`` here took Ctrl-C from every
one of them. Never import it elsewhere."""
import signal
import sys
from multiprocessing import pool, process

_SERVER = process.current_process()  #: the forkserver's process object: a forked child's until it starts its own


def _on_sigint(signum, frame):
    """Ignore SIGINT in a process not started yet (between its fork and its ``Process._bootstrap``:
    what it is cannot be told) and in a parse worker (``pool.worker`` run with gbrain's
    initializer); elsewhere raise ``KeyboardInterrupt`` (``signal.default_int_handler``)."""
    me = process.current_process()
    if me is _SERVER:
        return
    if getattr(me, "_target", None) is pool.worker:
        args = getattr(me, "_args", ())
        mod = sys.modules.get("gbrain.sync.parallel")
        if len(args) > 2 and mod is not None and args[2] is getattr(mod, "_worker_start", None):
            return
    signal.default_int_handler(signum, frame)


signal.signal(signal.SIGINT, _on_sigint)
