"""A big sync keeps its progress while the Postgres connection is cut again and again (trial 69,
bug 2): 173 notes copied into a vault never reached the team while the backend was terminated
every few seconds, since the catch-up was one whole-tree transaction (new notes always went in
its first chunk) and each cut rolled it back whole. New notes that can pair with nothing are
committed in chunks too (``SyncEngine.plain_chunks``), so each cut loses at most the chunk in
flight and the next sync goes on from there. A real ``gbrain sync`` on a real server; the cut is
a real ``pg_terminate_backend`` of the sync's backend, after every K page saves."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

psycopg = pytest.importorskip("psycopg")

from conftest import gbrain_in_process  # noqa: E402
from gbrain.core.brain import Brain  # noqa: E402

pytestmark = pytest.mark.engine_free  # names its own Postgres brain (pg_url): the SQLite run only

NEW = 100  # new notes copied into the vault
CHUNK = 20  # GBRAIN_SYNC_CHUNK
CUT_EVERY = 30  # the backend is terminated before the 30th page save since the last cut


def test_a_big_sync_of_new_notes_keeps_its_progress_while_the_backend_is_cut_inside_every_try(pg_server, pg_url, tmp_path, monkeypatch):
    root = tmp_path / "vault"
    root.mkdir()
    (root / "hub.md").write_text("# Hub\n\nThe hub.\n")
    assert gbrain_in_process("sync", str(root), "--db", pg_url).returncode == 0
    for i in range(NEW):
        (root / f"copied-{i:03d}.md").write_text(f"# Copied {i}\n\nSee [[hub]].\n\nbody {i}\n")

    admin = psycopg.connect(pg_server, autocommit=True)
    saves, cuts = [0], [0]
    real = Brain.save_page

    def cutting(self, *a, **kw):
        saves[0] += 1
        if saves[0] % CUT_EVERY == 0:  # a Wi-Fi/VPN drop inside the transaction, every time
            pid = self.conn.execute("SELECT pg_backend_pid()").fetchone()[0]
            admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
            cuts[0] += 1
        return real(self, *a, **kw)

    monkeypatch.setattr(Brain, "save_page", cutting)
    stored = []
    try:
        for _ in range(NEW // CHUNK + 3):
            r = gbrain_in_process("sync", str(root), "--db", pg_url, env={"GBRAIN_SYNC_CHUNK": str(CHUNK)})
            with Brain.open(pg_url) as b:
                stored.append(b.conn.execute("SELECT count(*) FROM pages WHERE slug LIKE 'copied-%'").fetchone()[0])
            if r.returncode == 0:
                break
        else:
            pytest.fail(f"no sync finished: copied notes in the brain after each try {stored}, {cuts[0]} cuts, {saves[0]} saves")
    finally:
        monkeypatch.undo()
        admin.close()
    assert stored[-1] == NEW, stored
    # every try that was cut kept what it committed, and the next did not save it again: a cut
    # loses at most the chunk in flight
    assert all(b > a for a, b in zip(stored, stored[1:])), stored
    assert saves[0] - NEW <= cuts[0] * CHUNK, (saves[0], cuts[0], stored)
    print(f"tries {len(stored)}, cuts {cuts[0]}, page saves {saves[0]} for {NEW} new notes, stored after each try {stored}")
    with Brain.open(pg_url) as b:
        from gbrain.sync.verify import fresh_import_differences

        assert fresh_import_differences(b) == {}


CUTTER = '''
import os
import sys

sys.path.insert(0, os.environ["GBRAIN_TEST_SRC"])  # (site runs before -m puts the folder first: this checkout's gbrain)
from gbrain.core.brain import Brain  # noqa: E402

_real, _saves = Brain.save_page, [0]


def _cutting(self, *a, **kw):
    _saves[0] += 1
    if _saves[0] % int(os.environ["GBRAIN_TEST_CUT_EVERY"]) == 0:  # the connection drops inside the transaction
        with open(os.environ["GBRAIN_TEST_CUTS"], "a") as f:
            f.write(f"{_saves[0]}\\n")
        try:
            self.conn.execute("SELECT pg_terminate_backend(pg_backend_pid())").fetchall()
        except Exception:
            pass  # (the cut: its own statement is the first to meet it; the transaction is refused until rolled back)
    return _real(self, *a, **kw)


Brain.save_page = _cutting
'''


def test_a_watch_takes_a_big_copy_while_its_backend_is_cut_inside_every_transaction(pg_url, tmp_path, monkeypatch):
    """Trial 69's s17 made deterministic: a real ``gbrain watch`` on Postgres; 100 notes copied
    into its folder; the watch's backend terminated at every 30th page save (a ``sitecustomize``
    in the watch process: the cut lands inside whatever transaction is saving, every time).
    Each cut loses at most the chunk in flight (20 notes): the copy reaches the brain after a
    bounded number of cuts, nothing doubled, and the watch still runs."""
    import resource

    from test_watch import Watch, wait_for

    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(CUTTER)
    cuts = tmp_path / "cuts.txt"
    root = tmp_path / "vault"
    root.mkdir()
    (root / "hub.md").write_text("# Hub\n\nThe hub.\n")
    assert gbrain_in_process("sync", str(root), "--db", pg_url).returncode == 0
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH", "")) if p))
    monkeypatch.setenv("GBRAIN_TEST_SRC", str(Path(__file__).resolve().parent.parent))
    monkeypatch.setenv("GBRAIN_TEST_CUT_EVERY", str(CUT_EVERY))
    monkeypatch.setenv("GBRAIN_TEST_CUTS", str(cuts))
    monkeypatch.setenv("GBRAIN_WATCH_CHUNK", str(CHUNK))
    w = Watch(root, pg_url)
    try:
        for i in range(NEW):
            (root / f"copied-{i:03d}.md").write_text(f"# Copied {i}\n\nSee [[hub]].\n\nbody {i}\n")
        with Brain.open(pg_url) as b:
            def stored() -> int:
                return b.conn.execute("SELECT count(*) FROM pages WHERE slug LIKE 'copied-%'").fetchone()[0]

            wait_for(lambda: stored() == NEW, f"the {NEW} copied notes to reach the brain (cuts so far: see cuts.txt)", timeout=240)
            n_cuts = len(cuts.read_text().splitlines()) if cuts.exists() else 0
            assert n_cuts <= NEW // (CUT_EVERY - CHUNK) + 2, n_cuts
            assert fresh_import_equal(b)
        assert w.p.poll() is None
        with open(f"/proc/{w.p.pid}/stat") as f:
            ticks = f.read().rsplit(")", 1)[1].split()
        cpu = (int(ticks[11]) + int(ticks[12])) / os.sysconf("SC_CLK_TCK")
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
