"""A sync round with deletions or a folder renamed keeps its progress while the Postgres
connection is cut again and again (the rest of trial 69's bug 2: ``test_pg_cut_progress`` made
new notes go in committed chunks; a round with deletions, 150 notes deleted beside 40 edits,
was still one first chunk that every cut rolled back whole; a folder of 200 notes renamed was
not: its exact renames are committed CHUNK // 2 pairs a chunk, ten a try here). A
real ``gbrain sync`` on a real server; the cut is a real ``pg_terminate_backend`` of the sync's
backend at every K-th path the round records (``sync_state`` written or dropped: an import, a
move, a deletion), inside its transaction: deterministic, no timing."""
from __future__ import annotations

import os

import pytest

psycopg = pytest.importorskip("psycopg")

from conftest import gbrain_in_process  # noqa: E402
from gbrain.core.brain import Brain  # noqa: E402
from gbrain.sync.engine import SyncEngine  # noqa: E402

pytestmark = pytest.mark.engine_free  # names its own Postgres brain (pg_url): the SQLite run only

CHUNK = 20  # GBRAIN_SYNC_CHUNK
CUT_EVERY = 30  # the backend is terminated at the 30th path recorded since the last cut


def _cut_syncs(pg_server, pg_url, root, monkeypatch, count, tries: int) -> tuple[list[int], int, int]:
    """``gbrain sync`` of ``root`` again and again while the backend is cut at every
    CUT_EVERY-th ``sync_state`` write: ``(count() after each try, cuts, paths recorded)``."""
    admin = psycopg.connect(pg_server, autocommit=True)
    steps, cuts = [0], [0]

    def cutting(real):
        def step(self, *a, **kw):
            steps[0] += 1
            if steps[0] % CUT_EVERY == 0:  # a Wi-Fi/VPN drop inside the transaction, every time
                pid = self.conn.execute("SELECT pg_backend_pid()").fetchone()[0]
                admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
                cuts[0] += 1
            return real(self, *a, **kw)
        return step

    monkeypatch.setattr(SyncEngine, "_record", cutting(SyncEngine._record))
    monkeypatch.setattr(SyncEngine, "_forget", cutting(SyncEngine._forget))
    stored = []
    import resource
    import time

    cpu0, t0 = resource.getrusage(resource.RUSAGE_SELF), time.monotonic()
    try:
        for _ in range(tries):
            r = gbrain_in_process("sync", str(root), "--db", pg_url, env={"GBRAIN_SYNC_CHUNK": str(CHUNK)})
            with Brain.open(pg_url) as b:
                stored.append(count(b))
            if r.returncode == 0:
                break
        else:
            pytest.fail(f"no sync finished: changes in the brain after each try {stored}, {cuts[0]} cuts, {steps[0]} paths recorded")
    finally:
        monkeypatch.undo()
        admin.close()
    cpu1 = resource.getrusage(resource.RUSAGE_SELF)
    print(f"syncs' CPU {cpu1.ru_utime + cpu1.ru_stime - cpu0.ru_utime - cpu0.ru_stime:.2f} s (this process), wall {time.monotonic() - t0:.1f} s, "
          f"load {os.getloadavg()[0]:.1f}")
    return stored, cuts[0], steps[0]


def _fresh_equal(pg_url) -> None:
    from gbrain.sync.verify import fresh_import_differences

    with Brain.open(pg_url) as b:
        assert fresh_import_differences(b) == {}


DELETED, EDITED, NOTES = 150, 40, 400


def test_a_sync_of_many_deletions_keeps_its_progress_while_the_backend_is_cut_inside_every_try(pg_server, pg_url, tmp_path, monkeypatch):
    root = tmp_path / "vault"
    (root / "notes").mkdir(parents=True)
    (root / "hub.md").write_text("# Hub\n\nThe hub.\n")
    for i in range(NOTES):
        (root / "notes" / f"n-{i:03d}.md").write_text(f"# Note {i}\n\nSee [[hub]].\n\nbody {i}\n")
    assert gbrain_in_process("sync", str(root), "--db", pg_url).returncode == 0
    for i in range(DELETED):
        (root / "notes" / f"n-{i:03d}.md").unlink()
    for i in range(DELETED, DELETED + EDITED):
        (root / "notes" / f"n-{i:03d}.md").write_text(f"# Note {i}\n\nSee [[hub]].\n\nbody {i}, edited\n")

    def done(b) -> int:
        gone = DELETED - b.conn.execute("SELECT count(*) FROM pages WHERE slug LIKE 'notes/n-%' AND slug < 'notes/n-150'").fetchone()[0]
        edited = b.conn.execute("SELECT count(*) FROM pages WHERE compiled_truth LIKE '%edited%'").fetchone()[0]
        return gone + edited

    stored, cuts, steps = _cut_syncs(pg_server, pg_url, root, monkeypatch, done, (DELETED + EDITED) // CHUNK + 4)
    print(f"deletions: tries {len(stored)}, cuts {cuts}, paths recorded {steps} for {DELETED + EDITED} changes, stored after each try {stored}")
    assert stored[-1] == DELETED + EDITED, stored
    assert all(b > a for a, b in zip(stored, stored[1:])), stored  # each cut loses at most the chunk in flight
    _fresh_equal(pg_url)



def test_one_cut_after_a_chunk_committed_costs_a_sync_only_that_chunk_run_again(pg_server, pg_url, tmp_path, monkeypatch):
    """One cut inside the second chunk of ``gbrain sync``'s pre-pass (the first committed): the
    chunk is run again on a new connection, as watch runs a cut round again, and the sync
    finishes (exit 0, every change in) instead of failing with the rest left for another try."""
    root = tmp_path / "vault"
    (root / "notes").mkdir(parents=True)
    for i in range(NOTES // 4):
        (root / "notes" / f"n-{i:03d}.md").write_text(f"# Note {i}\n\nbody {i}\n")
    assert gbrain_in_process("sync", str(root), "--db", pg_url).returncode == 0
    for i in range(3 * CHUNK):
        (root / "notes" / f"n-{i:03d}.md").write_text(f"# Note {i}\n\nbody {i}, edited\n")
    admin = psycopg.connect(pg_server, autocommit=True)
    steps = [0]
    real = SyncEngine._record

    def once(self, *a, **kw):
        steps[0] += 1
        if steps[0] == CHUNK + 3:  # inside the second chunk
            admin.execute("SELECT pg_terminate_backend(%s)", (self.conn.execute("SELECT pg_backend_pid()").fetchone()[0],))
        return real(self, *a, **kw)

    monkeypatch.setattr(SyncEngine, "_record", once)
    try:
        r = gbrain_in_process("sync", str(root), "--db", pg_url, env={"GBRAIN_SYNC_CHUNK": str(CHUNK)})
    finally:
        monkeypatch.undo()
        admin.close()
    assert r.returncode == 0, r.stderr.decode()
    with Brain.open(pg_url) as b:
        assert b.conn.execute("SELECT count(*) FROM pages WHERE compiled_truth LIKE '%edited%'").fetchone()[0] == 3 * CHUNK
    _fresh_equal(pg_url)


CUTTER = '''
import os
import sys

sys.path.insert(0, os.environ["GBRAIN_TEST_SRC"])  # (site runs before -m puts the folder first: this checkout's gbrain)
from gbrain.sync.engine import SyncEngine  # noqa: E402

_steps = [0]


def _cutting(real):
    def step(self, *a, **kw):
        _steps[0] += 1
        if _steps[0] % int(os.environ["GBRAIN_TEST_CUT_EVERY"]) == 0:  # the connection drops inside the transaction
            with open(os.environ["GBRAIN_TEST_CUTS"], "a") as f:
                f.write(f"{_steps[0]}\\n")
            try:
                self.conn.execute("SELECT pg_terminate_backend(pg_backend_pid())").fetchall()
            except Exception:
                pass  # (the cut: its own statement is the first to meet it)
        return real(self, *a, **kw)
    return step


SyncEngine._record = _cutting(SyncEngine._record)
SyncEngine._forget = _cutting(SyncEngine._forget)
'''


@pytest.mark.parametrize("when", ["running", "stopped"])
def test_a_watch_takes_many_deletions_while_its_backend_is_cut_inside_every_transaction(pg_url, tmp_path, monkeypatch, when):
    """A real ``gbrain watch`` on Postgres; 150 of 400 notes deleted and 40 edited in its folder
    while its backend is terminated at every 30th path a round records (a ``sitecustomize`` in the
    watch process). The deletions went in the batch's first chunk, one transaction every cut
    rolled back: now they go in chunks of CHUNK, each cut losing at most the chunk in flight; the
    brain ends as a fresh import of the tree, and the watch still runs. ``stopped``: made while no
    watch ran, taken by its first sync (the catch-up a start makes), whose cut full sync ended
    the watch ("lost the connection … run it again"); now it waits as a cut rescan does."""
    from pathlib import Path

    from test_watch import Watch, wait_for

    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(CUTTER)
    cuts = tmp_path / "cuts.txt"
    root = tmp_path / "vault"
    (root / "notes").mkdir(parents=True)
    (root / "hub.md").write_text("# Hub\n\nThe hub.\n")
    for i in range(NOTES):
        (root / "notes" / f"n-{i:03d}.md").write_text(f"# Note {i}\n\nSee [[hub]].\n\nbody {i}\n")
    assert gbrain_in_process("sync", str(root), "--db", pg_url).returncode == 0

    def change() -> None:
        for i in range(DELETED):
            (root / "notes" / f"n-{i:03d}.md").unlink()
        for i in range(DELETED, DELETED + EDITED):
            (root / "notes" / f"n-{i:03d}.md").write_text(f"# Note {i}\n\nSee [[hub]].\n\nbody {i}, edited\n")

    if when == "stopped":
        change()
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH", "")) if p))
    monkeypatch.setenv("GBRAIN_TEST_SRC", str(Path(__file__).resolve().parent.parent))
    monkeypatch.setenv("GBRAIN_TEST_CUT_EVERY", str(CUT_EVERY))
    monkeypatch.setenv("GBRAIN_TEST_CUTS", str(cuts))
    monkeypatch.setenv("GBRAIN_WATCH_CHUNK", str(CHUNK))
    w = Watch(root, pg_url)
    try:
        if when == "running":
            change()
        with Brain.open(pg_url) as b:
            def done() -> int:
                gone = DELETED - b.conn.execute("SELECT count(*) FROM pages WHERE slug LIKE 'notes/n-%' AND slug < 'notes/n-150'").fetchone()[0]
                return gone + b.conn.execute("SELECT count(*) FROM pages WHERE compiled_truth LIKE '%edited%'").fetchone()[0]

            wait_for(lambda: done() == DELETED + EDITED, f"the {DELETED} deletions and {EDITED} edits to reach the brain", timeout=240)
            n_cuts = len(cuts.read_text().splitlines()) if cuts.exists() else 0
            assert n_cuts <= (DELETED + EDITED) // (CUT_EVERY - CHUNK) + 2, n_cuts
            from gbrain.sync.verify import fresh_import_differences

            assert fresh_import_differences(b) == {}
        assert w.p.poll() is None
        with open(f"/proc/{w.p.pid}/stat") as f:
            ticks = f.read().rsplit(")", 1)[1].split()
        cpu = (int(ticks[11]) + int(ticks[12])) / os.sysconf("SC_CLK_TCK")
        print(f"watch: {DELETED} deletions + {EDITED} edits in after {n_cuts} cuts, {cpu:.2f} CPU-s so far, load {os.getloadavg()[0]:.1f}")
    except BaseException:
        print("\n".join(w.lines[-60:]))
        raise
    finally:
        w.stop()


@pytest.mark.parametrize("swallow", [False, True])
def test_a_chunk_cut_again_when_run_once_more_fails_the_sync_with_one_clear_line(pg_server, pg_url, tmp_path, monkeypatch, swallow):
    """A chunk cut, and cut again on its second run: the sync fails (exit 1) with one line that
    says what was lost and to run it again once, not "…roll it back and run it again; run it
    again" (pg's message and db_error's suffix both said it), and the chunk before it kept."""
    root = tmp_path / "vault"
    (root / "notes").mkdir(parents=True)
    for i in range(NOTES // 4):
        (root / "notes" / f"n-{i:03d}.md").write_text(f"# Note {i}\n\nbody {i}\n")
    assert gbrain_in_process("sync", str(root), "--db", pg_url).returncode == 0
    for i in range(3 * CHUNK):
        (root / "notes" / f"n-{i:03d}.md").write_text(f"# Note {i}\n\nbody {i}, edited\n")
    admin = psycopg.connect(pg_server, autocommit=True)
    steps = [0]
    real = SyncEngine._record

    def twice(self, *a, **kw):
        steps[0] += 1
        if steps[0] in (CHUNK + 3, CHUNK + 4):  # inside the second chunk, then inside its second run
            if swallow:  # a statement whose error was caught (as CUTTER's): the next finds the transaction lost
                try:
                    self.conn.execute("SELECT pg_terminate_backend(pg_backend_pid())").fetchall()
                except Exception:
                    pass
            else:
                admin.execute("SELECT pg_terminate_backend(%s)", (self.conn.execute("SELECT pg_backend_pid()").fetchone()[0],))
        return real(self, *a, **kw)

    monkeypatch.setattr(SyncEngine, "_record", twice)
    try:
        r = gbrain_in_process("sync", str(root), "--db", pg_url, env={"GBRAIN_SYNC_CHUNK": str(CHUNK)})
    finally:
        monkeypatch.undo()
        admin.close()
    err = r.stderr.decode()
    print(err)
    assert r.returncode == 1, err
    assert err.count("run it again") == 1 and "again; run it again" not in err, err
    with Brain.open(pg_url) as b:
        assert b.conn.execute("SELECT count(*) FROM pages WHERE compiled_truth LIKE '%edited%'").fetchone()[0] == CHUNK


def test_a_chunk_cut_after_it_wrote_a_conflict_copy_is_run_once_more_without_a_second_copy(pg_server, pg_url, tmp_path, monkeypatch):
    """The chunk run once more after a cut (``_sync_chunks``) had already written into the folder:
    a note edited on both sides saved the brain's text as a conflict copy, then the chunk's
    transaction was cut (the copy's record rolled back, the file kept). The second run must not
    save the brain's text a second time (two copies of one conflict), and the brain ends as a
    fresh import of the tree."""
    root = tmp_path / "vault"
    (root / "notes").mkdir(parents=True)
    for i in range(NOTES // 4):
        (root / "notes" / f"n-{i:03d}.md").write_text(f"# Note {i}\n\nbody {i}\n")
    assert gbrain_in_process("sync", str(root), "--db", pg_url).returncode == 0
    with Brain.open(pg_url) as b:
        b.put("notes/n-030", "# Note 30\n\nbody 30 BRAIN\n")
    for i in range(3 * CHUNK):
        f = root / "notes" / f"n-{i:03d}.md"
        with open(f, "r+b") as fh:
            data = f.read_bytes()
            fh.truncate(0)
            fh.write(data.replace(b"body 30", b"body 30 DISK") if i == 30 else data + b"\nedited\n")
    admin = psycopg.connect(pg_server, autocommit=True)
    cut = [0]
    real = SyncEngine._record

    def at_copy(self, *a, **kw):
        if not cut[0] and list((root / "notes").glob("n-030.conflict-*")):
            cut[0] += 1
            admin.execute("SELECT pg_terminate_backend(%s)", (self.conn.execute("SELECT pg_backend_pid()").fetchone()[0],))
        return real(self, *a, **kw)

    monkeypatch.setattr(SyncEngine, "_record", at_copy)
    try:
        r = gbrain_in_process("sync", str(root), "--db", pg_url, env={"GBRAIN_SYNC_CHUNK": str(CHUNK)})
    finally:
        monkeypatch.undo()
        admin.close()
    err = r.stderr.decode()
    copies = sorted(p.name for p in (root / "notes").glob("n-030.conflict-*"))
    print(r.returncode, err, copies)
    assert cut[0] == 1, err
    assert r.returncode == 3 and len(copies) == 1, (r.returncode, err, copies)
    assert gbrain_in_process("sync", str(root), "--db", pg_url).returncode == 0
    _fresh_equal(pg_url)


@pytest.mark.parametrize("unreachable", [False, True])
def test_a_watch_whose_connection_was_cut_says_so_not_that_the_database_is_unreachable(unreachable):
    """A cut (the server answering again at once) was logged as "the brain database X is
    unreachable (lost the connection to the brain database X during a transaction, …)": the
    database named twice, and called unreachable when it was not. A cut now says it lost the
    connection, once; an unreachable server still says unreachable."""
    from types import SimpleNamespace

    from gbrain.storage.pg import Disconnected
    from gbrain.sync.watch import Watcher

    url = "postgresql://u:***@/gb?host=/run/pg"
    w = Watcher.__new__(Watcher)
    said: list[str] = []
    w.brain = SimpleNamespace(path=url, conn=SimpleNamespace(rollback=lambda: None))
    w.log, w._down, w._cut_said = said.append, False, False
    w._cuts, w._back_said, w._down_wait = 0, False, 0.5
    if unreachable:
        e = Disconnected(f"cannot reach the brain database {url}: connection refused", unreachable=True)
    else:
        e = Disconnected(f"lost the connection to the brain database {url} during a transaction, which was not committed")
    w._brain_lost(e)
    assert len(said) == 1 and said[0].count(url) == 1, said
    if unreachable:
        assert said[0].startswith(f"warning: the brain database {url} is unreachable (connection refused); retrying"), said
    else:
        assert said[0].startswith(f"warning: lost the connection to the brain database {url} during a transaction, which was not committed; retrying"), said
        assert "unreachable" not in said[0], said
        w._brain_lost(e)  # cut again in the same outage: not said again
        w._brain_lost(Disconnected(f"cannot reach the brain database {url}: connection refused", unreachable=True))
        w._brain_lost(Disconnected(f"cannot reach the brain database {url}: connection refused", unreachable=True))
        assert len(said) == 2 and said[1].startswith(f"warning: the brain database {url} is unreachable (connection refused); retrying"), said


def test_a_watch_cut_again_and_again_backs_off_until_a_round_commits_and_says_it_once_per_streak(monkeypatch):
    """A connection cut at every try of the catch-up (a flapping Wi-Fi/VPN: every 3rd path a round
    records): each "reachable again" reset the back-off to 0.5 s, so the catch-up ran again about
    once a second (3.5–4.5 CPU-s a minute at load 11–12) and two lines were said per cut. The
    back-off now grows over the cuts (0.5 s doubling to BRAIN_RETRY_MAX_S) and resets only once a
    round commits; the log says the streak once with a count (at 2, 4, 8 … cuts in a row), not
    two lines per cut. Driven as the loop drives it, on a fake clock: 40 cuts."""
    from types import SimpleNamespace

    from gbrain.storage.pg import Disconnected
    from gbrain.sync import watch as watchmod
    from gbrain.sync.watch import BRAIN_RETRY_MAX_S, BRAIN_RETRY_S, Watcher

    url = "postgresql://u:***@/gb?host=/run/pg"
    clock = [1000.0]
    monkeypatch.setattr(watchmod, "_now", lambda: clock[0])
    w = Watcher.__new__(Watcher)
    said: list[str] = []
    brain = SimpleNamespace(path=url, commits=0, conn=SimpleNamespace(rollback=lambda: None, execute=lambda *a: SimpleNamespace(fetchone=lambda: (1,))))
    w.brain, w.log = brain, said.append
    w._down, w._cut_said, w._down_at, w._down_wait, w._catch_up = False, False, 0.0, BRAIN_RETRY_S, False
    w._cuts, w._back_said = 0, False
    w._lines, w._full_said = None, False
    cut = Disconnected(f"lost the connection to the brain database {url} during a transaction, which was not committed")
    waits = []
    for _ in range(40):
        w._brain_lost(cut)  # the catch-up's round cut (a chunk of it)
        w._brain_lost(cut)  # … and the full sync after it, the same try: one step of the back-off
        waits.append(w._down_at - clock[0])
        clock[0] = w._down_at - 0.01
        assert not w._brain_back()  # not yet due
        clock[0] = w._down_at
        assert w._brain_back() and w._catch_up  # the server answers: a catch-up is due, tried (and cut) again
    print(f"waits {waits}, {len(said)} lines: {said}")
    assert waits[:7] == [0.5, 1, 2, 4, 8, 16, BRAIN_RETRY_MAX_S] and set(waits[7:]) == {BRAIN_RETRY_MAX_S}, waits
    assert len(said) == 2 + 5, said  # the first cut and its "reachable again"; then at 2, 4, 8, 16 and 32 cuts in a row
    assert sum("reachable again" in s for s in said) == 1, said
    assert said[-1].startswith(f"warning: lost the connection to the brain database 32 times in a row, no round committed since; next try in {BRAIN_RETRY_MAX_S:g} s"), said
    # a round reading only (nothing committed) resets nothing
    w._round(lambda: None)
    w._brain_lost(cut)
    assert w._down_at - clock[0] == BRAIN_RETRY_MAX_S
    clock[0] = w._down_at
    assert w._brain_back()
    # a round that commits ends the streak: said with its count, and the next cut starts again at 0.5 s

    def commit():
        brain.commits += 1

    n = len(said)
    w._round(commit)
    assert len(said) == n + 1 and "41 times in a row" in said[-1], said[n:]
    w._brain_lost(cut)
    assert w._down_at - clock[0] == BRAIN_RETRY_S
    assert len(said) == n + 2 and said[-1].startswith(f"warning: lost the connection to the brain database {url} during a transaction"), said[n:]


def test_a_chunk_cut_after_it_wrote_a_merge_is_run_once_more_to_the_same_merge(pg_server, pg_url, tmp_path, monkeypatch):
    """A note edited on both sides, on different lines: its chunk writes the merged text into the
    file inside its transaction, which is then cut (the file keeps the merge, its base and the
    brain's row rolled back). The chunk run once more must come to the same merge, not take the
    merge for a new save against the brain (a conflict, or the edits doubled)."""
    root = tmp_path / "vault"
    (root / "notes").mkdir(parents=True)
    for i in range(NOTES // 4):
        (root / "notes" / f"n-{i:03d}.md").write_text(f"# Note {i}\n\nbody {i}\n\nmore {i}\n")
    assert gbrain_in_process("sync", str(root), "--db", pg_url).returncode == 0
    with Brain.open(pg_url) as b:
        b.put("notes/n-030", "# Note 30 BRAIN\n\nbody 30\n\nmore 30\n")
    for i in range(3 * CHUNK):
        f = root / "notes" / f"n-{i:03d}.md"
        data = f.read_bytes()
        with open(f, "r+b") as fh:
            fh.truncate(0)
            fh.write(data + b"\nedited\n")
    admin = psycopg.connect(pg_server, autocommit=True)
    cut = [0]
    real = SyncEngine._record
    f30 = root / "notes" / "n-030.md"

    def at_merge(self, *a, **kw):
        if not cut[0] and b"BRAIN" in f30.read_bytes():
            cut[0] += 1
            admin.execute("SELECT pg_terminate_backend(%s)", (self.conn.execute("SELECT pg_backend_pid()").fetchone()[0],))
        return real(self, *a, **kw)

    monkeypatch.setattr(SyncEngine, "_record", at_merge)
    try:
        r = gbrain_in_process("sync", str(root), "--db", pg_url, env={"GBRAIN_SYNC_CHUNK": str(CHUNK)})
    finally:
        monkeypatch.undo()
        admin.close()
    out = r.stdout.decode() + r.stderr.decode()
    assert cut[0] == 1 and r.returncode == 0, (r.returncode, out)
    assert f30.read_bytes() == b"# Note 30 BRAIN\n\nbody 30\n\nmore 30\n\nedited\n", f30.read_bytes()
    assert not list((root / "notes").glob("n-030.conflict-*")), out
    with Brain.open(pg_url) as b:
        assert b.get_text("notes/n-030") == "# Note 30 BRAIN\n\nbody 30\n\nmore 30\n\nedited\n"
    _fresh_equal(pg_url)


def test_a_watch_round_cut_after_it_wrote_a_conflict_copy_is_run_again_without_a_second_copy(pg_server, pg_url, tmp_path, monkeypatch):
    """Watch runs a round cut on Postgres again at once (``_safe_one``); the round had written the
    brain's version of a note edited on both sides as a conflict copy, whose record the cut rolled
    back. The second run named only the note, not the copy (watch's own write), and wrote a second
    copy of the same bytes (before this merge too): it takes the copy it left now
    (``SyncEngine._copy_left``). In-process watcher, a real backend cut."""
    from gbrain.sync.watch import Watcher

    root = tmp_path / "vault"
    root.mkdir()
    for i in range(8):
        (root / f"n{i:02d}.md").write_text(f"# N{i}\n\nbody {i}\n")
    admin = psycopg.connect(pg_server, autocommit=True)
    monkeypatch.setenv("GBRAIN_WATCH_CHUNK", "0")
    with Brain.open(pg_url) as b:
        w = Watcher(b, root, log=lambda s: None)
        w.engine.bind()
        assert w.engine.sync()["ok"]
        b.put("n06", "# N6\n\nBRAIN\n")
        with open(root / "n06.md", "r+b") as fh:
            fh.truncate(0)
            fh.write(b"# N6\n\nDISK\n")
        real, cut = SyncEngine._record, [0]

        def rec(self, *a, **kw):
            if not cut[0] and list(root.glob("n06.conflict-*")):
                cut[0] = 1
                admin.execute("SELECT pg_terminate_backend(%s)", (self.conn.execute("SELECT pg_backend_pid()").fetchone()[0],))
            return real(self, *a, **kw)

        monkeypatch.setattr(SyncEngine, "_record", rec)
        try:
            for _ in range(3):  # (watch's retry: the same paths again until the round is done)
                if w._safe_batch({"n06.md"}, set(), retry={}, maybe_moved=set(), closed=set()):
                    break
                w._down = False
        finally:
            monkeypatch.setattr(SyncEngine, "_record", real)
            admin.close()
        copies = sorted(p.name for p in root.glob("n06.conflict-*"))
        assert cut[0] == 1 and len(copies) == 1, (cut, copies)
        assert w.engine.sync()["ok"]
        from gbrain.sync.verify import fresh_import_differences

        assert fresh_import_differences(b) == {}
        w.engine.close()
