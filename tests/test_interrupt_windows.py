"""A Ctrl-C (SIGINT; SIGTERM's ``Terminated``) landing at an unlucky instruction is still the
interrupt: never turned into another error, nor lost.

``blobs.open_nofollow`` opened the descriptor, then built the file object over it
(``open(fd, "rb")``, which owns it) and closed the descriptor itself on any exception. A
KeyboardInterrupt raised just after ``open`` returned (Python runs a signal's handler between
instructions, and the end of a call is one) dropped the file object, which closed the
descriptor, and the handler closed it again: ``OSError(EBADF)`` replaced the interrupt, and a
sync's read of a note said ``cannot read: Bad file descriptor`` and went on to the end (a
clean-clone CI's ``gbrain sync`` given SIGINT between chunks took all 200 changes, exit 1);
or, had another thread opened a file in between, the second close closed that file. Here the
signal's moment is made exact: ``open`` as the module calls it builds the file, drops it and
raises KeyboardInterrupt (and, in one case, opens another file first, which takes the freed
number)."""
from __future__ import annotations

import builtins
import os
from pathlib import Path

import pytest

from gbrain.core.brain import Brain
from gbrain.storage import blobs
from gbrain.sync.engine import SyncEngine


def _late_interrupt(monkeypatch, *, reuse: list | None = None, at: int = 1) -> list[int]:
    """Make the ``at``-th ``open`` of :mod:`gbrain.storage.blobs` raise KeyboardInterrupt just
    after the file object was built (dropped: its descriptor closed), as a signal taken at the
    end of the call does. ``reuse``: a list that gets the descriptor of another file opened
    between the drop and the raise (the lowest free number: the one just closed). Returns the
    count of calls so far (one int)."""
    calls = [0]

    def late(*a, **k):
        f = builtins.open(*a, **k)
        calls[0] += 1
        if calls[0] != at:
            return f
        del f  # (the file object goes as the unwinding drops it: its descriptor is closed)
        if reuse is not None:
            reuse.append(os.open(os.devnull, os.O_RDONLY))
        raise KeyboardInterrupt

    monkeypatch.setattr(blobs, "open", late, raising=False)
    return calls


@pytest.mark.engine_free
def test_a_ctrl_c_as_open_nofollow_returns_is_the_interrupt_not_a_bad_descriptor(tmp_path, monkeypatch):
    f = tmp_path / "n.md"
    f.write_bytes(b"# N\n")
    _late_interrupt(monkeypatch)
    with pytest.raises(KeyboardInterrupt):
        blobs.open_nofollow(f)


@pytest.mark.engine_free
def test_a_ctrl_c_as_open_nofollow_returns_never_closes_a_file_that_took_the_number(tmp_path, monkeypatch):
    f = tmp_path / "n.md"
    f.write_bytes(b"# N\n")
    other: list[int] = []
    _late_interrupt(monkeypatch, reuse=other)
    try:
        with pytest.raises(KeyboardInterrupt):
            blobs.open_nofollow(f)
        os.fstat(other[0])  # (closed by the second close: OSError EBADF)
    finally:
        if other:
            try:
                os.close(other[0])
            except OSError:
                pass


def test_a_ctrl_c_as_a_syncs_read_opens_a_note_stops_the_sync(db_path, tmp_path, monkeypatch):
    """The sync's reads (the scan's ``read_file``): the interrupt stops the sync, no note is
    called unreadable, and the next sync takes every change."""
    root = tmp_path / "vault"
    root.mkdir()
    for i in range(6):
        (root / f"n{i}.md").write_text(f"# N{i}\n\nbody {i}\n")
    said: list[str] = []
    with Brain.open(db_path) as b:
        eng = SyncEngine(b, root, warn=said.append)
        eng.bind()
        try:
            calls = _late_interrupt(monkeypatch, at=3)
            with pytest.raises(KeyboardInterrupt):
                eng.sync()
            assert calls[0] >= 3, calls  # (the reads go through blobs.open_nofollow)
            assert not any("cannot read" in s for s in said), said
        finally:
            eng.close()
        monkeypatch.undo()
        eng = SyncEngine(b, root, warn=said.append)
        eng.bind()
        try:
            rep = eng.sync()
        finally:
            eng.close()
        assert rep["ok"], rep
        assert sorted(r[0] for r in b.conn.execute("SELECT path FROM pages")) == [f"n{i}.md" for i in range(6)]


@pytest.mark.engine_free
def test_a_ctrl_c_as_a_confined_read_closes_a_folder_on_the_way_is_the_interrupt(tmp_path, monkeypatch):
    """``blobs.confined``'s read of ``a/b/n.md`` opens ``a``, then ``b``, closing ``a``: a Ctrl-C
    taken as that close returned left ``a``'s closed descriptor to the ``finally``, which closed
    it again (EBADF in place of the interrupt, or another thread's file closed)."""
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / "n.md").write_bytes(b"# N\n")
    real_close = os.close
    armed = [True]

    def close(fd):
        real_close(fd)
        if armed[0]:
            armed[0] = False
            raise KeyboardInterrupt

    with blobs.confined(tmp_path):
        monkeypatch.setattr(os, "close", close)
        try:
            with pytest.raises(KeyboardInterrupt):
                blobs.open_nofollow(tmp_path / "a" / "b" / "n.md")
        finally:
            monkeypatch.undo()
        assert not armed[0]  # (the close of a folder on the way was the first)


def test_a_read_failure_raised_while_a_ctrl_c_unwound_is_the_interrupt(db_path, tmp_path, monkeypatch):
    """Any clean-up that fails (an ``OSError``) while a Ctrl-C unwinds a sync's read is that
    Ctrl-C (``scan.read_failure``: ``db.raise_interrupt``), not a note called unreadable."""
    import errno

    root = tmp_path / "vault"
    root.mkdir()
    for i in range(4):
        (root / f"n{i}.md").write_text(f"# N{i}\n")

    def failing_clean_up(*a, **k):
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt:
            raise OSError(errno.EIO, "the clean-up failed") from None  # (from None: still its __context__)

    said: list[str] = []
    with Brain.open(db_path) as b:
        eng = SyncEngine(b, root, warn=said.append)
        eng.bind()
        try:
            monkeypatch.setattr(blobs, "open", failing_clean_up, raising=False)
            with pytest.raises(KeyboardInterrupt):
                eng.sync()
            assert not any("cannot read" in s for s in said), said
        finally:
            monkeypatch.undo()
            eng.close()


# Watch blocks SIGINT and SIGTERM in every thread and takes them between chunks and rounds
# (sigpending/sigtimedwait: watch.Watcher.run); a thread that does not block them takes a
# process-directed signal instead, left to a Python-level handler (a stop once missed that way).

_INTERRUPTS = ("SIGHUP", "SIGINT", "SIGTERM")


def _blocked(status: str) -> set[str]:
    """The interrupts a ``/proc/.../status`` text's ``SigBlk`` mask blocks."""
    import signal

    mask = int(next(line for line in status.splitlines() if line.startswith("SigBlk:")).split()[1], 16)
    return {n for n in _INTERRUPTS if mask >> (getattr(signal, n) - 1) & 1}


def _tasks() -> set[str]:
    return set(os.listdir("/proc/self/task"))


@pytest.mark.engine_free
@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="reads the threads' signal masks in /proc")
def test_the_postgres_pools_threads_never_take_an_interrupt(pg_url):
    """The connection pool's threads, started at a brain's first open, block SIGINT, SIGTERM and
    SIGHUP (they were started unblocked, before watch blocks them)."""
    before = _tasks()
    with Brain.open(pg_url) as b:
        b.conn.execute("SELECT 1").fetchone()
        new = _tasks() - before
        assert new  # (the pool's scheduler and workers)
        for t in new:
            try:
                status = Path(f"/proc/self/task/{t}/status").read_text()
            except OSError:
                continue  # (a thread that ended)
            assert _blocked(status) == set(_INTERRUPTS), (t, status)


CHILD = """
import signal, sys
from gbrain.sync import parallel
if __name__ == "__main__":
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    with parallel.PageParser(workers=2) as pp:
        assert len(list(pp.parse([(f"p{i}.md", f"# P{i}\\\\n", "rule") for i in range(parallel.PARALLEL_MIN)]))) == parallel.PARALLEL_MIN
        assert pp.pool is not None
        print(parallel.__file__.startswith(sys.argv[1]), sorted(s.name for s in signal.pthread_sigmask(signal.SIG_BLOCK, ()) if s.name in ("SIGINT", "SIGTERM")))
"""


@pytest.mark.engine_free
@pytest.mark.skipif(not hasattr(__import__("signal"), "pthread_sigmask"), reason="no signal masks")
def test_a_parse_pool_keeps_the_callers_blocked_stop_signals_blocked(tmp_path):
    """A process's first parse pool starts multiprocessing's resource tracker, which unblocked
    SIGINT and SIGTERM in the calling thread (it blocks them while it spawns the tracker, then
    unblocks them): watch's mask was undone by its first pool. A new process (the tracker starts
    once per process)."""
    import subprocess
    import sys

    script = tmp_path / "child.py"
    script.write_text(CHILD)
    repo = str(Path(__file__).resolve().parent.parent)  # (this checkout's gbrain, not an installed one)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([repo, *filter(None, [os.environ.get("PYTHONPATH")])]))
    r = subprocess.run([sys.executable, str(script), repo], capture_output=True, text=True, timeout=120, cwd=repo, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "True ['SIGINT', 'SIGTERM']", (r.stdout, r.stderr)


def test_a_ctrl_c_as_a_commit_returns_counts_the_commit(db_path, monkeypatch):
    """A Ctrl-C taken just as a transaction's ``COMMIT`` returned: the transaction committed, and
    ``Brain.commits`` counts it (a sync's interrupted line counts its chunks by it: the chunk
    committed last was missing, the line the command line's own)."""
    from gbrain.storage import db as dbmod

    real = dbmod.commit

    def commit_then_interrupt(conn, **k):
        real(conn, **k)
        raise KeyboardInterrupt

    with Brain.open(db_path) as b:
        before = b.commits
        monkeypatch.setattr(dbmod, "commit", commit_then_interrupt)
        with pytest.raises(KeyboardInterrupt):
            b.put("note", "# Note\n")
        monkeypatch.undo()
        assert b.commits == before + 1
        assert b.get_text("note") == "# Note\n"


@pytest.mark.engine_free
def test_a_ctrl_c_during_a_postgres_commit_lets_it_commit(pg_url, monkeypatch):
    """Postgres: a SIGINT that comes while the ``COMMIT`` is under way is taken once it returned
    (``db.commit`` holds the interrupts): the transaction is committed and counted, not cancelled
    by psycopg (or cut before it was sent) while another process may already see its rows."""
    import signal
    import threading

    from gbrain.storage import pg

    real = pg.PgConnection.execute

    def execute(self, sql, *a, **k):
        if sql == "COMMIT":
            # (to this thread, which holds the signal: a process-directed kill may go to a thread that does not
            # hold it — xdist's — and Python's handler then ran before the COMMIT was sent: a stop-58 CI failure)
            signal.pthread_kill(threading.get_ident(), signal.SIGINT)
        return real(self, sql, *a, **k)

    with Brain.open(pg_url) as b:
        before = b.commits
        monkeypatch.setattr(pg.PgConnection, "execute", execute)
        try:
            with pytest.raises(KeyboardInterrupt):
                b.put("note", "# Note\n")
        finally:
            monkeypatch.undo()
        assert b.commits == before + 1
    with Brain.open(pg_url) as other:
        assert other.get_text("note") == "# Note\n"
