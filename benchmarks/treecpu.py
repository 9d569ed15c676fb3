"""CPU-seconds of a whole process tree: this process and every process started under it while
a figure is measured, wherever the process ended up (shared by the benchmarks).

``resource.getrusage(RUSAGE_SELF) + getrusage(RUSAGE_CHILDREN)`` misses work done by processes
this one has not reaped: the import parse pool is a multiprocessing *forkserver* pool
(``gbrain/sync/parallel.py``), whose workers are children of the forkserver, and the forkserver
lives (unreaped) until this process exits; a ``gbrain import`` CLI child leaves its own
forkserver behind, which Linux then hands to init. So :func:`tree_cpu` counts

* this process (user + system) and every child it has reaped (``RUSAGE_CHILDREN``);
* every live (or zombie, not yet reaped) descendant: its own user + system time plus the time
  of the children *it* has reaped (``/proc/PID/stat`` ``cutime``/``cstime``, via psutil).

Each ended process is counted exactly once: in its reaper's children time (a reaper that is
itself a descendant is counted in turn), or as a live/zombie descendant. For that to hold every
orphan must stay in the tree: :func:`tree_cpu` first makes this process a *child subreaper*
(Linux ``prctl(PR_SET_CHILD_SUBREAPER)``), so an orphaned forkserver is re-parented here
instead of to init; it stays a zombie here (its times still readable) until the benchmark ends.

:func:`measure` gives ``(cpu_s, wall_s, result)`` of a call; :data:`WHAT` says what is counted,
for a benchmark's output.
"""
from __future__ import annotations

import ctypes
import resource
import time

import psutil

WHAT = ("CPU = user+system seconds of the whole process tree (this process, its children, the "
        "parse pool's forkserver and workers, orphans kept as a subreaper)")

_PR_SET_CHILD_SUBREAPER = 36
_subreaper = False


def become_subreaper() -> bool:
    """Make this process the reaper of its orphaned descendants (Linux; idempotent). True when
    that is in force: otherwise an orphan's CPU (a CLI's forkserver) is lost to init."""
    global _subreaper
    if not _subreaper:
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            _subreaper = libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
        except (OSError, AttributeError):
            _subreaper = False
    return _subreaper


def _proc_total(p: psutil.Process) -> float:
    t = p.cpu_times()
    return t.user + t.system + t.children_user + t.children_system


def tree_cpu() -> float:
    """CPU-seconds (user + system) used so far by this process's whole tree, as described in
    the module docstring. Monotone; differences between two calls are the figures."""
    become_subreaper()
    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    total = s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime
    try:
        kids = psutil.Process().children(recursive=True)
    except psutil.Error:
        kids = []
    for p in kids:
        try:
            total += _proc_total(p)
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            # reaped between the listing and the read: its time is now in its reaper's
            # children time (read above if the reaper is this process: a rare, small miss)
            pass
    return total


def measure(fn) -> tuple[float, float, object]:
    """``(cpu_s, wall_s, result)`` of ``fn()``: CPU of the whole process tree (:func:`tree_cpu`)."""
    c, t = tree_cpu(), time.perf_counter()
    r = fn()
    return tree_cpu() - c, time.perf_counter() - t, r



def burn(seconds: float) -> float:
    """Spin until this process has used ``seconds`` of CPU; returns the CPU-seconds used (a
    known load for checking the meter: ``tests/test_treecpu.py``, ``python benchmarks/treecpu.py``)."""
    c = time.process_time()
    while time.process_time() - c < seconds:
        pass
    return time.process_time() - c


if __name__ == "__main__":
    import multiprocessing as mp

    c0, s0 = tree_cpu(), resource.getrusage(resource.RUSAGE_SELF)
    with mp.get_context("forkserver").Pool(2) as pool:
        used = sum(pool.map(burn, [0.5, 0.5]))
    s1, c1 = resource.getrusage(resource.RUSAGE_SELF), tree_cpu()
    print(f"two forkserver workers burnt {used:.2f} CPU-s; tree_cpu counted {c1 - c0:.2f}; "
          f"this process alone {s1.ru_utime + s1.ru_stime - s0.ru_utime - s0.ru_stime:.2f}")
