"""What the Postgres cut tests share (``test_pg_cut_progress.py``, ``test_pg_cut_rounds.py``): a
real ``pg_terminate_backend`` of a sync's or a watch's backend from inside its transaction,
when a wrapped method is called (deterministic, no timing), in this process (:class:`Cutter`,
:func:`cut_syncs`) or in a ``gbrain watch`` process (:func:`cut_watch_env`, a ``sitecustomize``);
and a watch process's CPU (:func:`process_cpu`). Not a test module: imported by them."""
from __future__ import annotations

import contextlib
import os
import resource
import time
from pathlib import Path
from typing import Callable

import pytest

from conftest import gbrain_in_process
from gbrain.core.brain import Brain


def terminate(admin, conn) -> None:
    """Terminate the backend of ``conn`` (a brain's connection) from ``admin`` (an autocommit
    psycopg connection to the server): a Wi-Fi/VPN drop inside the transaction."""
    admin.execute("SELECT pg_terminate_backend(%s)", (conn.execute("SELECT pg_backend_pid()").fetchone()[0],))


def terminate_own(conn) -> None:
    """Terminate the backend of ``conn`` by its own statement, whose error is swallowed (the next
    statement finds the transaction lost)."""
    try:
        conn.execute("SELECT pg_terminate_backend(pg_backend_pid())").fetchall()
    except Exception:
        pass


class Cutter:
    """Methods ``names`` of class ``owner`` wrapped (:meth:`patched`) so that a call for which
    ``when(cutter)`` is true cuts the backend of the caller's ``self.conn`` before running it:
    from an admin connection to ``pg_server`` (:func:`terminate`), or ``own`` (:func:`terminate_own`).
    ``calls``: the wrapped calls so far (this one included when ``when`` is asked); ``cuts``: the
    cuts made."""

    def __init__(self, pg_server: str, when: Callable[["Cutter"], object], owner=None, names=("_record",), own: bool = False):
        from gbrain.sync.engine import SyncEngine

        self.pg_server, self.when, self.owner, self.names, self.own = pg_server, when, owner or SyncEngine, names, own
        self.calls = self.cuts = 0

    def _wrap(self, real):
        def step(obj, *a, **kw):
            self.calls += 1
            if self.when(self):
                if self.own:
                    terminate_own(obj.conn)
                else:
                    terminate(self.admin, obj.conn)
                self.cuts += 1
            return real(obj, *a, **kw)
        return step

    @contextlib.contextmanager
    def patched(self):
        """The methods wrapped and the admin connection open while the block runs."""
        import psycopg

        self.admin = psycopg.connect(self.pg_server, autocommit=True)
        try:
            with pytest.MonkeyPatch.context() as m:
                for name in self.names:
                    m.setattr(self.owner, name, self._wrap(getattr(self.owner, name)))
                yield self
        finally:
            self.admin.close()


def sync(root: Path, pg_url: str, chunk: int | None = None):
    """``gbrain sync ROOT --db PG_URL`` in this process (``chunk``: ``GBRAIN_SYNC_CHUNK``): its
    CompletedProcess."""
    env = None if chunk is None else {"GBRAIN_SYNC_CHUNK": str(chunk)}
    return gbrain_in_process("sync", str(root), "--db", pg_url, env=env)


def cut_syncs(cutter: Cutter, pg_url: str, root: Path, chunk: int, count: Callable, tries: int) -> list[int]:
    """``gbrain sync`` of ``root`` (``GBRAIN_SYNC_CHUNK`` ``chunk``) again and again, up to
    ``tries`` times, under ``cutter`` until one exits 0 (else the test fails): ``count(brain)``
    after each try. Prints the tries' CPU (this process) and the load."""
    stored: list[int] = []
    cpu0, t0 = resource.getrusage(resource.RUSAGE_SELF), time.monotonic()
    with cutter.patched():
        for _ in range(tries):
            r = sync(root, pg_url, chunk)
            with Brain.open(pg_url) as b:
                stored.append(count(b))
            if r.returncode == 0:
                break
        else:
            pytest.fail(f"no sync finished: the count after each try {stored}, {cutter.cuts} cuts, {cutter.calls} calls")
    cpu1 = resource.getrusage(resource.RUSAGE_SELF)
    print(f"syncs' CPU {cpu1.ru_utime + cpu1.ru_stime - cpu0.ru_utime - cpu0.ru_stime:.2f} s (this process), wall {time.monotonic() - t0:.1f} s, "
          f"load {os.getloadavg()[0]:.1f}")
    return stored


#: a ``sitecustomize`` for a ``gbrain watch`` process: methods ``$GBRAIN_TEST_CUT_METHODS`` (comma-separated)
#: of class ``$GBRAIN_TEST_CUT_CLASS`` (module.Class) cut their own backend at every
#: ``$GBRAIN_TEST_CUT_EVERY``-th call, each cut's call number a line of ``$GBRAIN_TEST_CUTS``
CUTTER = '''
import importlib
import os
import sys

sys.path.insert(0, os.environ["GBRAIN_TEST_SRC"])  # (site runs before -m puts the folder first: this checkout's gbrain)
_module, _name = os.environ["GBRAIN_TEST_CUT_CLASS"].rsplit(".", 1)
_owner = getattr(importlib.import_module(_module), _name)
_calls = [0]


def _cutting(real):
    def step(self, *a, **kw):
        _calls[0] += 1
        if _calls[0] % int(os.environ["GBRAIN_TEST_CUT_EVERY"]) == 0:  # the connection drops inside the transaction
            with open(os.environ["GBRAIN_TEST_CUTS"], "a") as f:
                f.write(f"{_calls[0]}\\n")
            try:
                self.conn.execute("SELECT pg_terminate_backend(pg_backend_pid())").fetchall()
            except Exception:
                pass  # (the cut: its own statement is the first to meet it; the transaction is refused until rolled back)
        return real(self, *a, **kw)
    return step


for _method in os.environ["GBRAIN_TEST_CUT_METHODS"].split(","):
    setattr(_owner, _method, _cutting(getattr(_owner, _method)))
'''


def cut_watch_env(tmp_path: Path, monkeypatch, owner: str, methods: str, every: int, chunk: int) -> Path:
    """Set the environment (``monkeypatch``) so that a ``gbrain watch`` started after cuts its own
    backend (:data:`CUTTER`, in ``tmp_path/site``) at every ``every``-th call of ``methods``
    (comma-separated) of ``owner`` (``module.Class``), with ``GBRAIN_WATCH_CHUNK`` ``chunk``.
    Returns the file each cut adds a line to (absent until the first)."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(CUTTER)
    cuts = tmp_path / "cuts.txt"
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH", "")) if p))
    monkeypatch.setenv("GBRAIN_TEST_SRC", str(Path(__file__).resolve().parent.parent))
    monkeypatch.setenv("GBRAIN_TEST_CUT_CLASS", owner)
    monkeypatch.setenv("GBRAIN_TEST_CUT_METHODS", methods)
    monkeypatch.setenv("GBRAIN_TEST_CUT_EVERY", str(every))
    monkeypatch.setenv("GBRAIN_TEST_CUTS", str(cuts))
    monkeypatch.setenv("GBRAIN_WATCH_CHUNK", str(chunk))
    return cuts


def cuts_made(cuts: Path) -> int:
    """How many cuts the watch's :data:`CUTTER` made (lines of ``cuts``)."""
    return len(cuts.read_text().splitlines()) if cuts.exists() else 0


def process_cpu(pid: int) -> float:
    """CPU seconds (user + system) process ``pid`` has used so far (``/proc/PID/stat``)."""
    with open(f"/proc/{pid}/stat") as f:
        ticks = f.read().rsplit(")", 1)[1].split()
    return (int(ticks[11]) + int(ticks[12])) / os.sysconf("SC_CLK_TCK")
