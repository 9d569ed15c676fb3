"""A big sync keeps its progress while the Postgres connection is cut again and again (trial 69,
bug 2): 173 notes copied into a vault never reached the team while the backend was terminated
every few seconds, since the catch-up was one whole-tree transaction (new notes always went in
its first chunk) and each cut rolled it back whole. New notes that can pair with nothing are
committed in chunks too (``SyncEngine.plain_chunks``), so each cut loses at most the chunk in
flight and the next sync goes on from there. A real ``gbrain sync`` on a real server; the cut is
a real ``pg_terminate_backend`` of the sync's backend, after every K page saves."""
from __future__ import annotations

import pytest

psycopg = pytest.importorskip("psycopg")

from gbrain.core.brain import Brain  # noqa: E402
from pg_cuts import Cutter, cut_syncs, cut_watch_env, cuts_made, process_cpu, sync  # noqa: E402

pytestmark = pytest.mark.engine_free  # names its own Postgres brain (pg_url): the SQLite run only

NEW = 100  # new notes copied into the vault
CHUNK = 20  # GBRAIN_SYNC_CHUNK
CUT_EVERY = 30  # the backend is terminated before the 30th page save since the last cut


def _hub(tmp_path, pg_url):
    """``tmp_path/vault`` holding ``hub.md`` alone, synced into ``pg_url`` (exit 0)."""
    root = tmp_path / "vault"
    root.mkdir()
    (root / "hub.md").write_text("# Hub\n\nThe hub.\n")
    assert sync(root, pg_url).returncode == 0
    return root


def _copied(b) -> int:
    """How many of the copied notes brain ``b`` holds."""
    return b.conn.execute("SELECT count(*) FROM pages WHERE slug LIKE 'copied-%'").fetchone()[0]


def test_a_big_sync_of_new_notes_keeps_its_progress_while_the_backend_is_cut_inside_every_try(pg_server, pg_url, tmp_path):
    root = _hub(tmp_path, pg_url)
    for i in range(NEW):
        (root / f"copied-{i:03d}.md").write_text(f"# Copied {i}\n\nSee [[hub]].\n\nbody {i}\n")

    cutter = Cutter(pg_server, lambda c: c.calls % CUT_EVERY == 0, owner=Brain, names=("save_page",))  # a Wi-Fi/VPN drop inside the transaction, every time
    stored = cut_syncs(cutter, pg_url, root, CHUNK, _copied, NEW // CHUNK + 3)
    saves, cuts = cutter.calls, cutter.cuts
    assert stored[-1] == NEW, stored
    # every try that was cut kept what it committed, and the next did not save it again: a cut
    # loses at most the chunk in flight
    assert all(b > a for a, b in zip(stored, stored[1:])), stored
    assert saves - NEW <= cuts * CHUNK, (saves, cuts, stored)
    print(f"tries {len(stored)}, cuts {cuts}, page saves {saves} for {NEW} new notes, stored after each try {stored}")
    with Brain.open(pg_url) as b:
        from gbrain.sync.verify import fresh_import_differences

        assert fresh_import_differences(b) == {}


def test_a_watch_takes_a_big_copy_while_its_backend_is_cut_inside_every_transaction(pg_url, tmp_path, monkeypatch):
    """Trial 69's s17 made deterministic: a real ``gbrain watch`` on Postgres; 100 notes copied
    into its folder; the watch's backend terminated at every 30th page save (a ``sitecustomize``
    in the watch process: the cut lands inside whatever transaction is saving, every time).
    Each cut loses at most the chunk in flight (20 notes): the copy reaches the brain after a
    bounded number of cuts, nothing doubled, and the watch still runs."""
    import resource

    from test_watch import Watch, wait_for

    root = _hub(tmp_path, pg_url)
    cuts = cut_watch_env(tmp_path, monkeypatch, "gbrain.core.brain.Brain", "save_page", CUT_EVERY, CHUNK)
    w = Watch(root, pg_url)
    try:
        for i in range(NEW):
            (root / f"copied-{i:03d}.md").write_text(f"# Copied {i}\n\nSee [[hub]].\n\nbody {i}\n")
        with Brain.open(pg_url) as b:
            wait_for(lambda: _copied(b) == NEW, f"the {NEW} copied notes to reach the brain (cuts so far: see cuts.txt)", timeout=240)
            n_cuts = cuts_made(cuts)
            assert n_cuts <= NEW // (CUT_EVERY - CHUNK) + 2, n_cuts
            assert fresh_import_equal(b)
        assert w.p.poll() is None
        cpu = process_cpu(w.p.pid)
        print(f"watch: {NEW} copied notes in after {n_cuts} cuts, {cpu:.2f} CPU-s so far; said: "
              f"{sum('unreachable' in line for line in w.lines)} unreachable")
    except BaseException:
        print("\n".join(w.lines[-60:]))
        raise
    finally:
        w.stop()
    del resource


def fresh_import_equal(b) -> bool:
    from gbrain.sync.verify import fresh_import_differences

    d = fresh_import_differences(b)
    assert d == {}, d
    return True
