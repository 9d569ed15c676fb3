"""A bulk import writes with a larger SQLite page cache (32 MiB) (``db.bulk_cache``), gives the connection
its own size back after, and writes a big file's pieces under SQLite's default cache
(``db.cache_at_most``), so their transaction's dirty pages are not held in memory.
The rows written do not depend on the cache (docs/performance.md, 2026-12-07)."""
from __future__ import annotations

import io
import os

import pytest

from gbrain.core.brain import Brain
from gbrain.storage import blobs, db
from gbrain.sync.importer import import_tree

pytestmark = pytest.mark.sqlite_only("SQLite's page cache (PRAGMA cache_size): Postgres has none, and bulk_cache does nothing there")


def test_a_bulk_cache_grows_the_cache_and_gives_the_old_size_back(db_path):
    with Brain.open(db_path) as b:
        c = b.conn
        before = c.execute("PRAGMA cache_size").fetchone()[0]
        assert db._cache_kib(c) < db.BULK_CACHE_KIB
        with db.bulk_cache(c):
            assert db._cache_kib(c) == db.BULK_CACHE_KIB
            with db.cache_at_most(c):
                assert db._cache_kib(c) == db.DEFAULT_CACHE_KIB
            assert db._cache_kib(c) == db.BULK_CACHE_KIB
        assert c.execute("PRAGMA cache_size").fetchone()[0] == before
        # a cache already larger is left as it is, and one already small enough too
        c.execute(f"PRAGMA cache_size = {-2 * db.BULK_CACHE_KIB}")
        with db.bulk_cache(c):
            assert db._cache_kib(c) == 2 * db.BULK_CACHE_KIB
        c.execute("PRAGMA cache_size = 100")  # pages, not KiB
        with db.cache_at_most(c):
            assert c.execute("PRAGMA cache_size").fetchone()[0] == 100
        assert c.execute("PRAGMA cache_size").fetchone()[0] == 100


def test_an_import_writes_pages_with_the_bulk_cache_and_big_pieces_with_the_default(db_path, tmp_path, monkeypatch):
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "a.md").write_text("# A\n\nsee [[b]]\n", encoding="utf-8")
    (tree / "b.md").write_text("# B\n", encoding="utf-8")
    seen: dict[str, list[int]] = {"pages": [], "pieces": []}
    real_save, real_store = Brain.save_new_pages, blobs.store_stream

    def save_new_pages(self, *a, **kw):
        seen["pages"].append(db._cache_kib(self.conn))
        return real_save(self, *a, **kw)

    class Reader(io.BytesIO):
        def __init__(self, data: bytes, conn) -> None:
            super().__init__(data)
            self.conn = conn

        def read(self, n=-1):
            seen["pieces"].append(db._cache_kib(self.conn))
            return super().read(n)

    def store_stream(conn, fh):
        return real_store(conn, Reader(fh.read(), conn))

    monkeypatch.setattr(Brain, "save_new_pages", save_new_pages)
    monkeypatch.setattr(blobs, "store_stream", store_stream)
    monkeypatch.setattr(blobs, "BIG", 1000)  # a small file stored in pieces, as one over 16 MiB
    (tree / "data.bin").write_bytes(bytes(range(256)) * 20)
    with Brain.open(db_path) as b:
        before = b.conn.execute("PRAGMA cache_size").fetchone()[0]
        assert import_tree(b, tree)["ok"]
        assert b.conn.execute("PRAGMA cache_size").fetchone()[0] == before
        assert b.conn.execute("SELECT pieces FROM files WHERE path = 'data.bin'").fetchone()[0] > 0
    assert seen["pages"] and set(seen["pages"]) == {db.BULK_CACHE_KIB}
    assert seen["pieces"] and set(seen["pieces"]) == {db.DEFAULT_CACHE_KIB}


def _rss_mib() -> float:
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS")) / 1024


def _glibc() -> bool:
    import ctypes

    try:
        return hasattr(ctypes.CDLL(None), "malloc_trim") and os.path.exists("/proc/self/status")
    except OSError:
        return False


@pytest.mark.skipif(not _glibc(), reason="glibc's malloc_trim (Linux): the C heap's free pages given back to the system")
def test_the_bulk_caches_memory_is_given_back_to_the_system_after(db_path):
    """A long-lived process (``watch``'s first sync of an empty brain, ``serve``'s import) keeps
    running after the bulk import: once the cache is back at its size, the pages SQLite freed are
    given back to the system, not kept by the C heap (glibc kept them: +32 MiB of RSS for the rest
    of the process, measured after an in-process import of make_brain-7471: 162 MB against 128)."""
    with Brain.open(db_path) as b:
        c = b.conn
        c.execute("CREATE TABLE scratch (x BLOB)")
        before = _rss_mib()
        with db.bulk_cache(c):
            db.begin_write(c)
            c.executemany("INSERT INTO scratch VALUES (?)", ((os.urandom(3000),) for _ in range(16000)))  # ~48 MB, no overflow pages
            db.commit(c)
        after = _rss_mib()
        assert after - before < db.BULK_CACHE_KIB / 1024 / 4, (before, after)  # (kept: +17.6 MiB; given back: +2.1)
