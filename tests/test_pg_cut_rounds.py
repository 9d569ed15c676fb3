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

from gbrain.core.brain import Brain  # noqa: E402
from pg_cuts import Cutter, cut_syncs, cut_watch_env, cuts_made, process_cpu, sync  # noqa: E402

pytestmark = pytest.mark.engine_free  # names its own Postgres brain (pg_url): the SQLite run only

CHUNK = 20  # GBRAIN_SYNC_CHUNK
CUT_EVERY = 30  # the backend is terminated at the 30th path recorded since the last cut


def _fresh_equal(pg_url) -> None:
    from gbrain.sync.verify import fresh_import_differences

    with Brain.open(pg_url) as b:
        assert fresh_import_differences(b) == {}


DELETED, EDITED, NOTES = 150, 40, 400


def _vault(tmp_path, pg_url, notes: int, text: str = "# Note {i}\n\nbody {i}\n", hub: bool = False):
    """``tmp_path/vault``: ``notes`` notes ``notes/n-NNN.md`` of ``text`` (``{i}`` their number),
    with ``hub.md`` (``hub``), synced into ``pg_url`` (exit 0). Returns its root."""
    root = tmp_path / "vault"
    (root / "notes").mkdir(parents=True)
    if hub:
        (root / "hub.md").write_text("# Hub\n\nThe hub.\n")
    for i in range(notes):
        (root / "notes" / f"n-{i:03d}.md").write_text(text.format(i=i))
    assert sync(root, pg_url).returncode == 0
    return root


def _hub_vault(tmp_path, pg_url):
    """:func:`_vault` of NOTES notes linking to the hub: the deletion tests' start."""
    return _vault(tmp_path, pg_url, NOTES, "# Note {i}\n\nSee [[hub]].\n\nbody {i}\n", hub=True)


def _delete_and_edit(root) -> None:
    """The first DELETED notes of :func:`_hub_vault` deleted, the EDITED after them edited."""
    for i in range(DELETED):
        (root / "notes" / f"n-{i:03d}.md").unlink()
    for i in range(DELETED, DELETED + EDITED):
        (root / "notes" / f"n-{i:03d}.md").write_text(f"# Note {i}\n\nSee [[hub]].\n\nbody {i}, edited\n")


def _deleted_and_edited(b) -> int:
    """How many of :func:`_delete_and_edit`'s changes brain ``b`` holds (DELETED + EDITED: all)."""
    gone = DELETED - b.conn.execute("SELECT count(*) FROM pages WHERE slug LIKE 'notes/n-%' AND slug < 'notes/n-150'").fetchone()[0]
    return gone + _edited(b)


def _edited(b) -> int:
    """How many pages of brain ``b`` say ``edited``."""
    return b.conn.execute("SELECT count(*) FROM pages WHERE compiled_truth LIKE '%edited%'").fetchone()[0]


def test_a_sync_of_many_deletions_keeps_its_progress_while_the_backend_is_cut_inside_every_try(pg_server, pg_url, tmp_path):
    root = _hub_vault(tmp_path, pg_url)
    _delete_and_edit(root)
    cutter = Cutter(pg_server, lambda c: c.calls % CUT_EVERY == 0, names=("_record", "_forget"))  # a Wi-Fi/VPN drop inside the transaction, every time
    stored = cut_syncs(cutter, pg_url, root, CHUNK, _deleted_and_edited, (DELETED + EDITED) // CHUNK + 4)
    print(f"deletions: tries {len(stored)}, cuts {cutter.cuts}, paths recorded {cutter.calls} for {DELETED + EDITED} changes, stored after each try {stored}")
    assert stored[-1] == DELETED + EDITED, stored
    assert all(b > a for a, b in zip(stored, stored[1:])), stored  # each cut loses at most the chunk in flight
    _fresh_equal(pg_url)



def test_a_sync_after_one_that_recorded_its_rows_racy_keeps_its_progress_while_cut(pg_server, pg_url, tmp_path, monkeypatch):
    """The deletion round above on a fast machine (the stop-60 CI): the first try recorded its
    rows within RACY_NS of the edits, so racy (``mtime_ns`` 0: re-hashed next time). Every later
    try's full sync settled all those rows again beside the 20 changes left, one transaction
    of 190 paths that the cut at every 30th killed: no try ever finished ([170, 170, …]). The
    pre-pass now settles racy rows in chunks of their own, so each try commits progress."""
    import gbrain.sync.engine as engine

    root = _hub_vault(tmp_path, pg_url)
    _delete_and_edit(root)
    cutter = Cutter(pg_server, lambda c: c.calls % CUT_EVERY == 0, names=("_record", "_forget", "_settle"))  # (settling cut too)
    monkeypatch.setattr(engine, "RACY_NS", 10**15)  # the first try: every row it records is racy
    with cutter.patched():
        first = sync(root, pg_url, CHUNK)
    assert first.returncode == 1, first.stderr.decode()  # (cut in its last part, as on any machine)
    monkeypatch.setattr(engine, "RACY_NS", 1)  # later tries: the machine's clock has moved on
    stored = cut_syncs(cutter, pg_url, root, CHUNK, _deleted_and_edited, 6)
    assert stored[-1] == DELETED + EDITED, stored
    _fresh_equal(pg_url)


def _edited_vault(tmp_path, pg_url):
    """:func:`_vault` of NOTES // 4 notes, synced, then its first 3 * CHUNK notes edited: three
    chunks of plain edits for a chunked sync."""
    root = _vault(tmp_path, pg_url, NOTES // 4)
    for i in range(3 * CHUNK):
        (root / "notes" / f"n-{i:03d}.md").write_text(f"# Note {i}\n\nbody {i}, edited\n")
    return root


def test_one_cut_after_a_chunk_committed_costs_a_sync_only_that_chunk_run_again(pg_server, pg_url, tmp_path):
    """One cut inside the second chunk of ``gbrain sync``'s pre-pass (the first committed): the
    chunk is run again on a new connection, as watch runs a cut round again, and the sync
    finishes (exit 0, every change in) instead of failing with the rest left for another try."""
    root = _edited_vault(tmp_path, pg_url)
    with Cutter(pg_server, lambda c: c.calls == CHUNK + 3).patched():  # inside the second chunk
        r = sync(root, pg_url, CHUNK)
    assert r.returncode == 0, r.stderr.decode()
    with Brain.open(pg_url) as b:
        assert _edited(b) == 3 * CHUNK
    _fresh_equal(pg_url)


@pytest.mark.parametrize("when", ["running", "stopped"])
def test_a_watch_takes_many_deletions_while_its_backend_is_cut_inside_every_transaction(pg_url, tmp_path, monkeypatch, when):
    """A real ``gbrain watch`` on Postgres; 150 of 400 notes deleted and 40 edited in its folder
    while its backend is terminated at every 30th path a round records (a ``sitecustomize`` in the
    watch process). The deletions went in the batch's first chunk, one transaction every cut
    rolled back: now they go in chunks of CHUNK, each cut losing at most the chunk in flight; the
    brain ends as a fresh import of the tree, and the watch still runs. ``stopped``: made while no
    watch ran, taken by its first sync (the catch-up a start makes), whose cut full sync ended
    the watch ("lost the connection … run it again"); now it waits as a cut rescan does."""
    from test_watch import Watch, wait_for

    root = _hub_vault(tmp_path, pg_url)
    if when == "stopped":
        _delete_and_edit(root)
    cuts = cut_watch_env(tmp_path, monkeypatch, "gbrain.sync.engine.SyncEngine", "_record,_forget", CUT_EVERY, CHUNK)
    w = Watch(root, pg_url)
    try:
        if when == "running":
            _delete_and_edit(root)
        with Brain.open(pg_url) as b:
            wait_for(lambda: _deleted_and_edited(b) == DELETED + EDITED, f"the {DELETED} deletions and {EDITED} edits to reach the brain", timeout=240)
            n_cuts = cuts_made(cuts)
            assert n_cuts <= (DELETED + EDITED) // (CUT_EVERY - CHUNK) + 2, n_cuts
            from gbrain.sync.verify import fresh_import_differences

            assert fresh_import_differences(b) == {}
        assert w.p.poll() is None
        cpu = process_cpu(w.p.pid)
        print(f"watch: {DELETED} deletions + {EDITED} edits in after {n_cuts} cuts, {cpu:.2f} CPU-s so far, load {os.getloadavg()[0]:.1f}")
    except BaseException:
        print("\n".join(w.lines[-60:]))
        raise
    finally:
        w.stop()


@pytest.mark.parametrize("swallow", [False, True])
def test_a_chunk_cut_again_when_run_once_more_fails_the_sync_with_one_clear_line(pg_server, pg_url, tmp_path, swallow):
    """A chunk cut, and cut again on its second run: the sync fails (exit 1) with one line that
    says what was lost and to run it again once, not "…roll it back and run it again; run it
    again" (pg's message and db_error's suffix both said it), and the chunk before it kept."""
    root = _edited_vault(tmp_path, pg_url)
    # inside the second chunk, then inside its second run; swallow: a statement whose error was
    # caught (as pg_cuts.CUTTER's): the next finds the transaction lost
    with Cutter(pg_server, lambda c: c.calls in (CHUNK + 3, CHUNK + 4), own=swallow).patched():
        r = sync(root, pg_url, CHUNK)
    err = r.stderr.decode()
    print(err)
    assert r.returncode == 1, err
    assert err.count("run it again") == 1 and "again; run it again" not in err, err
    with Brain.open(pg_url) as b:
        assert _edited(b) == CHUNK


def test_a_chunk_cut_after_it_wrote_a_conflict_copy_is_run_once_more_without_a_second_copy(pg_server, pg_url, tmp_path):
    """The chunk run once more after a cut (``_sync_chunks``) had already written into the folder:
    a note edited on both sides saved the brain's text as a conflict copy, then the chunk's
    transaction was cut (the copy's record rolled back, the file kept). The second run must not
    save the brain's text a second time (two copies of one conflict), and the brain ends as a
    fresh import of the tree."""
    root = _vault(tmp_path, pg_url, NOTES // 4)
    with Brain.open(pg_url) as b:
        b.put("notes/n-030", "# Note 30\n\nbody 30 BRAIN\n")
    for i in range(3 * CHUNK):
        f = root / "notes" / f"n-{i:03d}.md"
        with open(f, "r+b") as fh:
            data = f.read_bytes()
            fh.truncate(0)
            fh.write(data.replace(b"body 30", b"body 30 DISK") if i == 30 else data + b"\nedited\n")
    with Cutter(pg_server, lambda c: not c.cuts and list((root / "notes").glob("n-030.conflict-*"))).patched() as cutter:
        r = sync(root, pg_url, CHUNK)
    err = r.stderr.decode()
    copies = sorted(p.name for p in (root / "notes").glob("n-030.conflict-*"))
    print(r.returncode, err, copies)
    assert cutter.cuts == 1, err
    assert r.returncode == 3 and len(copies) == 1, (r.returncode, err, copies)
    assert sync(root, pg_url).returncode == 0
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


def test_a_chunk_cut_after_it_wrote_a_merge_is_run_once_more_to_the_same_merge(pg_server, pg_url, tmp_path):
    """A note edited on both sides, on different lines: its chunk writes the merged text into the
    file inside its transaction, which is then cut (the file keeps the merge, its base and the
    brain's row rolled back). The chunk run once more must come to the same merge, not take the
    merge for a new save against the brain (a conflict, or the edits doubled)."""
    root = _vault(tmp_path, pg_url, NOTES // 4, "# Note {i}\n\nbody {i}\n\nmore {i}\n")
    with Brain.open(pg_url) as b:
        b.put("notes/n-030", "# Note 30 BRAIN\n\nbody 30\n\nmore 30\n")
    for i in range(3 * CHUNK):
        f = root / "notes" / f"n-{i:03d}.md"
        data = f.read_bytes()
        with open(f, "r+b") as fh:
            fh.truncate(0)
            fh.write(data + b"\nedited\n")
    f30 = root / "notes" / "n-030.md"
    with Cutter(pg_server, lambda c: not c.cuts and b"BRAIN" in f30.read_bytes()).patched() as cutter:
        r = sync(root, pg_url, CHUNK)
    out = r.stdout.decode() + r.stderr.decode()
    assert cutter.cuts == 1 and r.returncode == 0, (r.returncode, out)
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
    monkeypatch.setenv("GBRAIN_WATCH_CHUNK", "0")
    with Brain.open(pg_url) as b:
        w = Watcher(b, root, log=lambda s: None)
        w.engine.bind()
        assert w.engine.sync()["ok"]
        b.put("n06", "# N6\n\nBRAIN\n")
        with open(root / "n06.md", "r+b") as fh:
            fh.truncate(0)
            fh.write(b"# N6\n\nDISK\n")
        with Cutter(pg_server, lambda c: not c.cuts and list(root.glob("n06.conflict-*"))).patched() as cutter:
            for _ in range(3):  # (watch's retry: the same paths again until the round is done)
                if w._safe_batch({"n06.md"}, set(), retry={}, maybe_moved=set(), closed=set()):
                    break
                w._down = False
        copies = sorted(p.name for p in root.glob("n06.conflict-*"))
        assert cutter.cuts == 1 and len(copies) == 1, (cutter.cuts, copies)
        assert w.engine.sync()["ok"]
        from gbrain.sync.verify import fresh_import_differences

        assert fresh_import_differences(b) == {}
        w.engine.close()
