"""pytest's assert rewriting of the test modules done once, ahead of the xdist workers.

pytest rewrites each test module's asserts when it imports it and keeps the result in
``__pycache__/NAME.cpython-3X-pytest-V.pyc``. In a clean clone there is none yet, and every xdist
worker imports (collects) every test module at once: each rewrote all ~3.3 MB of them (~27 CPU-s
cold against ~6 warm, per worker), the same work per worker. :func:`rewrite_ahead`, called by the
controller before it starts the workers (``conftest.pytest_configure``), writes the missing or
out-of-date ones with pytest's own functions, in as many processes as there are workers, so each
worker finds them written. Anything unexpected (another pytest whose private functions differ)
leaves the rewriting to the workers, as before."""
from __future__ import annotations

import multiprocessing
import os
import sys
from pathlib import Path
from types import SimpleNamespace

#: the config of the run, for the forked rewriting processes (set by rewrite_ahead)
_CONFIG: list = []


def stale_pyc(source: Path, pyc: Path) -> bool:
    """Whether pytest would rewrite ``source`` again: ``pyc`` missing, or its header not the
    header ``_pytest.assertion.rewrite._read_pyc`` accepts (magic, no flags, the source's mtime
    and size, each as 32 bits little-endian)."""
    import importlib.util

    try:
        st = source.stat()
        with open(pyc, "rb") as f:
            head = f.read(16)
    except OSError:
        return True
    want = importlib.util.MAGIC_NUMBER + b"\0\0\0\0" + (int(st.st_mtime) & 0xFFFFFFFF).to_bytes(4, "little") + (st.st_size & 0xFFFFFFFF).to_bytes(4, "little")
    return head != want


def rewrite_one(source: str) -> bool:
    """Rewrite one test module's asserts as pytest does on import and write its pyc where pytest
    reads it; True when written."""
    from _pytest.assertion import rewrite as rw

    fn = Path(source)
    cache_dir = rw.get_cache_dir(fn)
    if not rw.try_makedirs(cache_dir):
        return False
    stat, co = rw._rewrite_test(fn, _CONFIG[0])
    return rw._write_pyc(SimpleNamespace(trace=lambda *_: None), co, stat, cache_dir / (fn.name[:-3] + rw.PYC_TAIL))


def modules_to_rewrite(config) -> list[Path]:
    """The test modules (``test_*.py``, ``conftest.py``) under the run's arguments (files or
    folders; ``tests`` by default) whose rewritten pyc is missing or out of date, biggest first."""
    from _pytest.assertion import rewrite as rw

    found: set[Path] = set()
    for arg in config.args:
        p = Path(str(arg).split("::")[0])
        if not p.is_absolute():
            p = Path(config.invocation_params.dir) / p
        if p.is_dir():
            found.update(p.rglob("test_*.py"))
            found.update(p.rglob("conftest.py"))
        elif p.suffix == ".py" and p.is_file():
            found.add(p)
            if (p.parent / "conftest.py").is_file():
                found.add(p.parent / "conftest.py")
    out = [p for p in found if "__pycache__" not in p.parts and stale_pyc(p, rw.get_cache_dir(p) / (p.name[:-3] + rw.PYC_TAIL))]
    return sorted(out, key=lambda p: -p.stat().st_size)


def rewrite_ahead(config) -> int:
    """In the controller of an xdist run (``-n N``, N ≥ 1) with assert rewriting on and bytecode
    written: rewrite the test modules' asserts in N forked processes before the workers start
    (:func:`modules_to_rewrite`). Returns how many pycs it wrote (0: nothing to do, or not such
    a run, or pytest's private functions not as expected)."""
    n = getattr(config.option, "numprocesses", None)
    if not isinstance(n, int) or n < 1 or hasattr(config, "workerinput") or sys.dont_write_bytecode:
        return 0
    if getattr(config.option, "assertmode", "rewrite") != "rewrite":
        return 0
    try:
        from _pytest.assertion import rewrite as rw

        if not all(hasattr(rw, f) for f in ("_rewrite_test", "_write_pyc", "get_cache_dir", "try_makedirs", "PYC_TAIL")):
            return 0
        todo = modules_to_rewrite(config)
        if len(todo) < 2:
            return 0
        _CONFIG[:] = [config]
        with multiprocessing.get_context("fork").Pool(min(n, len(todo), os.cpu_count() or 1)) as pool:
            return sum(pool.imap_unordered(rewrite_one, [str(p) for p in todo]))
    except Exception:  # noqa: BLE001 — an optimisation only: the workers rewrite what is left
        return 0
