"""Hidden notes on a team's Postgres brain with two synced folders (``slugs.HIDDEN_WHY``): folder
A's sync makes a page an older gbrain stored under a hidden name its file; folder B's next sync
keeps B's note (same bytes: nothing to do, no conflict copy; edited: B's edit comes in as the
file; deleted in B: the file is trashed, as any deletion)."""

from __future__ import annotations

import pytest

from gbrain.core.brain import Brain
from gbrain.sync.engine import SyncEngine

OLD = ".github/CONTRIBUTING.md"
TEXT = b"Contribute [[river]].\n"

pytestmark = pytest.mark.engine_free  # its own Postgres brain (pg_url)


@pytest.mark.parametrize("in_b", ["same", "edited", "deleted"])
def test_folder_b_after_folder_a_made_an_old_hidden_page_its_file(pg_url, tmp_path, monkeypatch, in_b):
    a, b_root = tmp_path / "a", tmp_path / "b"
    for root in (a, b_root):
        (root / ".github").mkdir(parents=True)
        (root / OLD).write_bytes(TEXT)
        (root / "river.md").write_bytes(b"# River\n")
    with Brain.open(pg_url) as b:
        with b.transaction():
            b.save_page(OLD, TEXT.decode())
        monkeypatch.setattr(SyncEngine, "_hidden_pages_to_files", lambda self, listed: None)  # the older gbrain
        engines = []
        for root in (a, b_root):
            engines.append(SyncEngine(b, root))
            engines[-1].bind()
            assert engines[-1].sync()["ok"]
        monkeypatch.undo()
        ea, eb = engines
        if in_b == "edited":
            (b_root / OLD).write_bytes(TEXT + b"B's line\n")
        elif in_b == "deleted":
            (b_root / OLD).unlink()
        ra = ea.sync()
        assert ra["ok"], ra["problems"]
        assert b.conn.execute("SELECT kind FROM files WHERE path = ?", (OLD,)).fetchone()[0] == "blob"
        rb = eb.sync()
        assert rb["ok"], rb["problems"]
        assert rb["counts"]["conflicts"] == 0, rb["counts"]
        assert not b.conn.execute("SELECT 1 FROM pages WHERE path = ?", (OLD,)).fetchone()
        want = {"same": TEXT, "edited": TEXT + b"B's line\n", "deleted": None}[in_b]
        held = b.conn.execute("SELECT content_hash FROM files WHERE path = ?", (OLD,)).fetchone()
        assert (held is None) == (want is None)
        ra = ea.sync()
        assert ra["ok"], ra["problems"]
        for root in (a, b_root):
            names = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())
            assert names == ([OLD] if want is not None else []) + ["river.md"], (root, names)
            if want is not None:
                assert (root / OLD).read_bytes() == want
        for e in engines:
            r = e.sync()
            assert r["ok"] and not any(r["counts"].values()), r["counts"]
            e.close()
