"""An idle ``watch`` sleeps: with nothing under way its loop waits :data:`IDLE_TICK_S` for its
next event instead of polling the brain every :data:`TICK_S` (trial 68: ~47 wake-ups a second,
0.8% of a core at idle), and on SQLite another process's commit (its write to the brain's
``-wal``) wakes it at once, so an agent's write still reaches the file without waiting out the
tick. A real watchdog observer, a :class:`Watcher` in a thread; the waits are on what it does
(a wait it starts, a file's text, a row), never on a clock. Both engines (``db_path``): on
Postgres a thread waits on the LISTEN connection's socket and a notification wakes the loop
(``watch._SocketWake``), through a reconnect too.
"""
from __future__ import annotations

import threading
from pathlib import Path

import pytest

from gbrain.core.brain import Brain
from gbrain.sync import watch as watchmod
from gbrain.sync.watch import TICK_S, Watcher
from test_watch import wait_for


class _Waits:
    """``Watcher.q`` standing in: the real queue, noting the timeout of every blocking ``get``."""

    def __init__(self, q, state=lambda: None):
        self.q = q
        self.timeouts: list[float] = []
        #: ``(timeout, state())`` of every blocking ``get``: ``state`` read in the watch's own
        #: thread as it starts the wait (not the test's, racing the watch)
        self.seen: list[tuple[float, object]] = []
        self._state = state

    def put(self, item) -> None:
        self.q.put(item)

    def get_nowait(self):
        return self.q.get_nowait()

    def get(self, timeout=None):
        self.seen.append((timeout, self._state()))
        self.timeouts.append(timeout)
        return self.q.get(timeout=timeout)


def _sqlite(db_path) -> bool:
    return not str(db_path).startswith("postgres")


@pytest.fixture
def running(tmp_path, db_path, request):
    """``start(root, db)`` runs a Watcher of ``db`` on ``root`` in a thread until the test ends;
    returns ``(watcher, waits, said)``. The watch's own Brain is not handed out: a read of it from
    the test's thread while the watch writes on the same connection was seen to hang (stop 55); a
    test reads the brain through a connection of its own (``Brain.open(db)``)."""
    started = []

    def start(root: Path, db) -> tuple[Watcher, _Waits, list[str]]:
        b = Brain.open(db)
        said: list[str] = []
        w = Watcher(b, root, log=said.append, rescan=0)
        waits = _Waits(w.q, lambda: w._sock_wake)
        w.q = waits
        ready = threading.Event()
        t = threading.Thread(target=w.run, kwargs={"ready": lambda rep: ready.set()}, daemon=True)
        t.start()
        started.append((w, t, b))
        wait_for(ready.is_set, "watch to start")
        return w, waits, said

    yield start
    for w, t, b in started:
        w.stop()
        t.join(timeout=30)
        assert not t.is_alive(), "watch did not stop once asked (its idle wait must end at stop())"
        assert w._sock_wake is None, "the LISTEN socket's thread is ended at stop"
        b.close()


@pytest.mark.parametrize("where", ["beside", "inside", "symlink"])
def test_an_idle_watch_waits_long_and_a_commit_or_a_save_wakes_it(tmp_path, db_path, running, monkeypatch, where):
    """Idle, the loop's wait is long (here an hour, so only a wake-up can end it); an agent's
    write through another connection still reaches the file, a save still reaches the brain, and
    ``stop()`` ends the watch. The brain beside the folder (its folder watched too) or inside it
    (seen by the tree's own watch), or a symlink to a brain in another folder (SQLite keeps its
    ``-wal`` beside the file the link names)."""
    if where != "beside" and not _sqlite(db_path):
        pytest.skip("a Postgres brain is no file")
    monkeypatch.setattr(watchmod, "IDLE_TICK_S", 3600.0, raising=False)
    root = tmp_path / "vault"
    root.mkdir()
    (root / "a.md").write_text("# A\n\none\n")
    db = {"beside": db_path, "inside": root / ".brain" / "brain.db", "symlink": tmp_path / "link.db"}[where]
    if where == "inside":
        db.parent.mkdir()
    if where == "symlink":
        (tmp_path / "elsewhere").mkdir()
        Brain.open(tmp_path / "elsewhere" / "brain.db").close()
        db.symlink_to(tmp_path / "elsewhere" / "brain.db")
    w, waits, said = running(root, db)
    wait_for(lambda: 3600.0 in waits.timeouts, "the loop's idle wait")
    with Brain.open(db) as agent:
        agent.put("a", "# A\n\none\n\nthe agent's line\n")
    wait_for(lambda: "the agent's line" in (root / "a.md").read_text(), f"the agent's write in the file (said: {said})")
    (root / "a.md").write_text("# A\n\none\n\nthe agent's line\n\nmy save\n")
    with Brain.open(db) as reader:  # (not the watch's own connection, from this thread: seen to deadlock)
        wait_for(lambda: "my save" in reader.get_text("a"), f"the save in the brain (said: {said})")


def test_a_busy_watch_keeps_its_short_tick(tmp_path, db_path, running, monkeypatch):
    """While a save is pending (its events not settled) the loop waits :data:`TICK_S`, as ever."""
    monkeypatch.setattr(watchmod, "IDLE_TICK_S", 3600.0, raising=False)
    root = tmp_path / "vault"
    root.mkdir()
    (root / "a.md").write_text("# A\n\none\n")
    w, waits, said = running(root, db_path)
    wait_for(lambda: waits.timeouts, "the loop's first wait")
    n = len(waits.timeouts)
    monkeypatch.setattr(watchmod, "DEBOUNCE_S", 0.1)
    (root / "a.md").write_text("# A\n\ntwo\n")
    with Brain.open(db_path) as reader:  # (not the watch's own connection, from this thread: seen to deadlock)
        wait_for(lambda: "two" in reader.get_text("a"), f"the save in the brain (said: {said})")
    assert TICK_S in waits.timeouts[n:], "a pending save is taken at the short tick"


def test_an_idle_postgres_watch_listens_again_and_sleeps_again(tmp_path, db_path, running, monkeypatch):
    """Postgres: the LISTEN connection's backend is terminated while the loop sleeps; the socket
    wakes the loop, which reconnects (a new backend), sleeps again, and a later commit through
    another connection still wakes it and reaches the file."""
    if _sqlite(db_path):
        pytest.skip("Postgres' LISTEN connection")
    import psycopg

    monkeypatch.setattr(watchmod, "IDLE_TICK_S", 3600.0, raising=False)
    root = tmp_path / "vault"
    root.mkdir()
    (root / "a.md").write_text("# A\n\none\n")
    w, waits, said = running(root, db_path)
    wait_for(lambda: 3600.0 in waits.timeouts, "the loop's idle wait")
    first, first_wake = w._listener, w._sock_wake
    assert first_wake is not None and first_wake.alive
    n = len(waits.timeouts)  # the loop sleeps (an hour): only the socket can wake it
    with psycopg.connect(str(db_path), autocommit=True) as admin:
        pid = first._conn.info.backend_pid
        admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
    # an idle wait on the new socket's thread, as the watch's thread saw it when it began the wait
    # (read from this thread, the new connection and its thread, set one after the other, were
    # seen half set under load: _sock_wake still None)
    wait_for(lambda: any(t == 3600.0 and sw is not None and sw is not first_wake for t, sw in waits.seen[n:]),
             f"the loop's idle wait on a new LISTEN connection's socket (said: {said})")
    new_wake = next(sw for t, sw in waits.seen[n:] if t == 3600.0 and sw is not None and sw is not first_wake)
    assert w._listener is not first and not first_wake._thread.is_alive() and new_wake.alive
    with Brain.open(db_path) as agent:
        agent.put("a", "# A\n\none\n\nafter the reconnect\n")
    wait_for(lambda: "after the reconnect" in (root / "a.md").read_text(), f"the agent's write in the file (said: {said})")
