"""Big files are streamed into and out of the brain in pieces (gbrain/storage/blobs.py).

A ~50 MB file (3× ``blobs.BIG``) goes through import, no-change sync, a changed-file sync,
export and verify as real ``gbrain`` processes; each child's peak memory (its ``VmHWM``) must stay
below a ``gbrain init`` process's peak (the brain empty) plus half the file's size (a command
that held the file whole would be over by half the file at least), and the bytes must come back
equal. A v8 brain holding a big file
whole migrates to pieces without loss (file, history versions, export). Memory bounds, not
wall-clock thresholds.
"""
from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from gbrain.core.brain import Brain
from gbrain.core import history
from gbrain.storage import blobs, db as dbmod
from gbrain.sync.exporter import export_tree
from gbrain.sync.importer import import_tree

pytestmark = pytest.mark.engine_free  # the same on both engines: runs in the SQLite run only (conftest)

ROOT = Path(__file__).resolve().parent.parent
# 3× blobs.BIG (so stored in pieces), not a multiple of the piece size; a command that held it
# whole would peak at its start-up's RSS + SIZE or more, the bound below is start-up + SIZE / 2
SIZE = 48 * 1024 * 1024 + 12345


def _write_big(path: Path, size: int, seed: int) -> str:
    """A file of ``size`` pseudo-random (incompressible) bytes, written in pieces; its sha256."""
    h = hashlib.sha256()
    block = hashlib.sha256(str(seed).encode()).digest() * 32768  # 1 MiB
    rnd = bytearray(os.urandom(4096))
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as f:
        left = size
        k = 0
        while left:
            rnd[0:8] = k.to_bytes(8, "little")
            piece = (bytes(rnd) + block)[: min(left, 1 << 20)]
            f.write(piece)
            h.update(piece)
            left -= len(piece)
            k += 1
    return h.hexdigest()


def _sha(path: Path) -> str:
    return blobs.hash_file(path)[0]


_HWM = ("import atexit, runpy, sys\n"
        "out = sys.argv[1]\n"
        "def _hwm():\n"
        "    with open(out, 'w') as f:\n"
        "        f.write(next(l for l in open('/proc/self/status') if l.startswith('VmHWM')).split()[1])\n"
        "atexit.register(_hwm)\n"
        "sys.argv = ['gbrain'] + sys.argv[2:]\n"
        "runpy.run_module('gbrain', run_name='__main__')\n")


def _run(args: list[str], db: Path, tmp: Path) -> tuple[int, float, str]:
    """``(exit code, peak RSS in MB, stderr)`` of one ``gbrain`` process. The peak is the
    process's own ``VmHWM`` (read at exit): ``ru_maxrss`` of a child starts from its parent's
    RSS at fork (Linux keeps the pre-exec high-water mark), so it would measure pytest."""
    env = dict(os.environ, GBRAIN_DB=str(db), PYTHONPATH=str(ROOT))
    hwm = tmp / "hwm"
    hwm.unlink(missing_ok=True)
    p = subprocess.run([sys.executable, "-c", _HWM, str(hwm), *args], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return p.returncode, int(hwm.read_text()) / 1024 if hwm.exists() else float("inf"), p.stderr.decode("utf-8", "replace")


def test_the_peak_measure_sees_a_whole_read(tmp_path):
    """The measure can fail: a process that reads a 30 MB file whole has a VmHWM above 30 MB."""
    f = tmp_path / "f.bin"
    f.write_bytes(os.urandom(30 << 20))
    code = "import sys; d = open(sys.argv[1], 'rb').read(); print(next(l for l in open('/proc/self/status') if l.startswith('VmHWM')).split()[1])"
    p = subprocess.run([sys.executable, "-c", code, str(f)], capture_output=True, check=True)
    assert int(p.stdout) / 1024 > 30


def test_a_big_file_streams_through_import_sync_export_verify(tmp_path):
    tree = tmp_path / "tree"
    (tree / "notes").mkdir(parents=True)
    (tree / "notes" / "a.md").write_text("# A\n\nsee [[b]]\n", encoding="utf-8")
    big = tree / "attachments" / "data.bin"
    want = _write_big(big, SIZE, 1)
    db = tmp_path / "brain.db"
    peaks = {}
    # "well below the file size": a process's own start-up (`init` of the brain, which holds no
    # file yet) plus half the file, in MB (was a 100 MB file against half of it, ~27 MB of which
    # is the start-up)
    rc, start_up, err = _run(["init"], db, tmp_path)
    assert rc == 0, err
    limit = start_up + SIZE / 1e6 / 2

    rc, peaks["import"], err = _run(["import", str(tree)], db, tmp_path)
    assert rc == 0, err
    rc, peaks["sync (first)"], err = _run(["sync", str(tree)], db, tmp_path)
    assert rc == 0, err
    os.utime(big, (1_600_000_000, 1_600_000_000))  # out of the racy window: sync trusts size+mtime
    rc, _, err = _run(["sync", str(tree)], db, tmp_path)
    assert rc == 0, err
    rc, peaks["sync (no change)"], err = _run(["sync", str(tree)], db, tmp_path)
    assert rc == 0, err
    with sqlite3.connect(db) as c:
        n, pieces = c.execute("SELECT COUNT(*), MAX(pieces) FROM files WHERE path = 'attachments/data.bin' AND length(data) = 0").fetchone()
        assert n == 1 and pieces == (SIZE + blobs.PIECE - 1) // blobs.PIECE
        assert c.execute("SELECT data FROM history_bodies WHERE hash = ?", (want,)).fetchone()[0] == b"c"  # no second copy

    # a changed big file: sync streams the new one in, the old one stays a version
    want2 = _write_big(big, SIZE, 2)
    rc, peaks["sync (changed)"], err = _run(["sync", str(tree)], db, tmp_path)
    assert rc == 0, err

    out = tmp_path / "out"
    rc, peaks["export"], err = _run(["export", "--dir", str(out)], db, tmp_path)
    assert rc == 0, err
    assert _sha(out / "attachments" / "data.bin") == want2
    assert (out / "notes" / "a.md").read_bytes() == (tree / "notes" / "a.md").read_bytes()
    rc, peaks["verify"], err = _run(["verify", str(tree)], db, tmp_path)
    assert rc == 0, err
    rc, peaks["verify --deep"], err = _run(["verify", str(tree), "--deep"], db, tmp_path)
    assert rc == 0, err
    # get --output: the current bytes and an old version's, streamed to a file
    rc, peaks["get --output"], err = _run(["get", "attachments/data.bin", "--output", str(tmp_path / "cur.bin")], db, tmp_path)
    assert rc == 0 and _sha(tmp_path / "cur.bin") == want2, err
    rc, peaks["get --version 1 --output"], err = _run(["get", "attachments/data.bin", "--version", "1", "--output", str(tmp_path / "v1.bin")], db, tmp_path)
    assert rc == 0 and _sha(tmp_path / "v1.bin") == want, err
    for f in ("cur.bin", "v1.bin"):
        (tmp_path / f).unlink()

    # the first version is in the history, read back in pieces
    with Brain.open(db) as b:
        bid, vsize = b.conn.execute("SELECT body_id, size FROM history WHERE kind = 'file' AND name = ? AND version = 1", ("attachments/data.bin",)).fetchone()
        h = hashlib.sha256()
        for piece in history.body_pieces(b.conn, bid):
            h.update(piece)
        assert h.hexdigest() == want and vsize == SIZE
    print("peak RSS (MB):", peaks, "start-up:", start_up)
    over = {k: v for k, v in peaks.items() if v >= limit}
    assert not over, f"peak RSS (MB) not well below start-up ({start_up:.0f} MB) + the {SIZE / 1e6:.0f} MB file: {peaks}"


def _v8_brain(path: Path) -> sqlite3.Connection:
    """A brain at schema v8 (before pieces), as an older gbrain left it."""
    conn = sqlite3.connect(str(path), isolation_level=None)
    dbmod.register_functions(conn)
    for i in range(8):
        conn.execute("BEGIN IMMEDIATE")
        dbmod.MIGRATIONS[i](conn)
        conn.execute(f"PRAGMA user_version = {i + 1}")
        conn.execute("COMMIT")
    return conn


def test_v8_brain_with_a_big_file_migrates_to_pieces_without_loss(tmp_path):
    size = blobs.BIG + 3 * blobs.PIECE + 7
    src = tmp_path / "src.bin"
    data1 = bytes(range(256)) * (size // 256) + b"x" * (size % 256)
    data2 = data1[:-100] + b"y" * 100
    small = b"small attachment"
    path = tmp_path / "old.db"
    conn = _v8_brain(path)
    conn.execute("BEGIN")
    for p, d in (("big.bin", data1), ("small.png", small)):
        conn.execute("INSERT INTO files(path, kind, data, content_hash, size) VALUES (?, 'blob', ?, ?, ?)", (p, d, hashlib.sha256(d).hexdigest(), len(d)))
    conn.execute("UPDATE files SET data = ?, content_hash = ?, size = ? WHERE path = 'big.bin'", (data2, hashlib.sha256(data2).hexdigest(), len(data2)))
    conn.execute("COMMIT")
    conn.close()

    with Brain.open(path) as b:  # migrates to v9
        c = b.conn
        assert c.execute("PRAGMA user_version").fetchone()[0] == dbmod.SCHEMA_VERSION
        row = c.execute("SELECT pieces, length(data) FROM files WHERE path = 'big.bin'").fetchone()
        assert row[0] == (len(data2) + blobs.PIECE - 1) // blobs.PIECE and row[1] == 0
        assert c.execute("SELECT pieces FROM files WHERE path = 'small.png'").fetchone()[0] == 0
        assert blobs.file_bytes(c, "big.bin") == data2
        # both versions of the big file still read back exactly
        rows = c.execute("SELECT version, body_id FROM history WHERE kind = 'file' AND name = 'big.bin' ORDER BY version").fetchall()
        assert [history.body(c, r[1]) for r in rows] == [data1, data2]
        out = tmp_path / "out"
        rep = export_tree(b, out)
        assert rep["ok"], rep["problems"]
        assert (out / "big.bin").read_bytes() == data2 and (out / "small.png").read_bytes() == small
        # a new small version over the big one, and back: every version exact
        b.save_file("big.bin", b"now small")
        b.save_file("big.bin", data1)
        rows = c.execute("SELECT version, body_id FROM history WHERE kind = 'file' AND name = 'big.bin' AND body_id IS NOT NULL ORDER BY version").fetchall()
        assert [history.body(c, r[1]) for r in rows] == [data1, data2, b"now small", data1]
        assert c.execute("SELECT COUNT(DISTINCT hash) FROM blob_pieces").fetchone()[0] == 2  # data1's pieces stored once
    del src


def test_big_file_round_trip_in_process_and_prune_keeps_what_history_needs(tmp_path):
    tree = tmp_path / "tree"
    size = blobs.BIG + blobs.PIECE // 2
    want = _write_big(tree / "a" / "scan.pdf", size, 3)
    (tree / "p.md").write_text("# P\n", encoding="utf-8")
    with Brain.open(tmp_path / "b.db") as b:
        rep = import_tree(b, tree)
        assert rep["ok"], rep["problems"]
        assert b.conn.execute("SELECT pieces FROM files WHERE path = 'a/scan.pdf'").fetchone()[0] == 17
        rep = export_tree(b, tmp_path / "out")
        assert rep["ok"] and _sha(tmp_path / "out" / "a" / "scan.pdf") == want
        # a re-import of the same tree writes nothing
        rep = import_tree(b, tree)
        assert rep["counts"]["files_written"] == 0
        # the file gone from the brain: its pieces stay while the history names them
        b.delete_file("a/scan.pdf")
        history.prune(b, keep_days=None, keep_last=1, apply=True)
        assert blobs.has_pieces(b.conn, want)
        history.prune(b, keep_days=None, keep_last=1, apply=True, include_deleted=True)
        assert not blobs.has_pieces(b.conn, want)
        assert b.conn.execute("SELECT COUNT(*) FROM blob_data").fetchone()[0] == 0


@pytest.mark.parametrize("n", [0, 1, blobs.PIECE, blobs.PIECE + 1, 3 * blobs.PIECE - 1])
def test_store_stream_sizes(tmp_path, n):
    with Brain.open(tmp_path / "b.db") as b:
        data = os.urandom(n)
        b.conn.execute("BEGIN")
        hx, size, k = blobs.store_bytes(b.conn, data)
        assert (hx, size, k) == (hashlib.sha256(data).hexdigest(), n, (n + blobs.PIECE - 1) // blobs.PIECE)
        assert b"".join(blobs.iter_pieces(b.conn, hx)) == data
        assert blobs.store_bytes(b.conn, data) == (hx, n, k)  # stored once
        assert b.conn.execute("SELECT COUNT(*) FROM blob_data").fetchone()[0] == k
        b.conn.execute("COMMIT")


def test_quick_check_of_a_brain_with_pieces_skips_them_but_finds_damage_elsewhere(tmp_path):
    """check_sound's quick_check on a brain holding pieces checks every table but ``blob_data``
    (so a first write does not read gigabytes of attachments), and still finds a damaged page
    table; ``gbrain check`` (full integrity check) is unchanged."""
    db = tmp_path / "b.db"
    with Brain.open(db) as b:
        for i in range(300):
            b.put(f"notes/n{i}", f"# N{i}\n\n" + "text " * 200 + "\n")
        b.save_file("big.bin", os.urandom(blobs.BIG + 10))
        assert dbmod._has_pieces(b.conn) and dbmod.quick_check(b.conn) is None
        b.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        page = b.conn.execute("PRAGMA page_size").fetchone()[0]
        leaf = b.conn.execute("SELECT MAX(pageno) FROM dbstat WHERE name = 'pages' AND pagetype = 'leaf'").fetchone()[0]
        over = b.conn.execute("SELECT MIN(pageno) FROM dbstat WHERE name = 'blob_data' AND pagetype = 'overflow'").fetchone()[0]
    with open(db, "r+b") as f:  # a broken overflow chain in the pieces: not what check_sound reads
        f.seek((over - 1) * page)
        f.write(b"\xff\xff\xff\xf0")
    with sqlite3.connect(db) as c:
        assert c.execute("PRAGMA quick_check(5)").fetchall() != [("ok",)]
        assert dbmod.quick_check(c) is None
    with open(db, "r+b") as f:
        f.seek((leaf - 1) * page + 8)
        f.write(b"\xff" * 64)
    with sqlite3.connect(db) as c:
        assert dbmod.quick_check(c) is not None


def test_export_hashes_a_big_file_as_it_streams_out_and_finds_a_damaged_piece(tmp_path):
    """Export checks a big file by the hash of the pieces it wrote (not by reading the file back):
    a piece whose bytes changed inside the database makes the export's check fail for that file."""
    tree = tmp_path / "tree"
    _write_big(tree / "media" / "talk.mp4", blobs.BIG + blobs.PIECE, 5)
    (tree / "p.md").write_text("# P\n", encoding="utf-8")
    db = tmp_path / "b.db"
    with Brain.open(db) as b:
        assert import_tree(b, tree)["ok"]
        assert export_tree(b, tmp_path / "out1")["ok"]
    c = sqlite3.connect(db)
    (did,) = c.execute("SELECT MIN(id) FROM blob_data").fetchone()
    c.execute("UPDATE blob_data SET data = zeroblob(length(data)) WHERE id = ?", (did,))
    c.commit()
    c.close()
    with Brain.open(db) as b:
        rep = export_tree(b, tmp_path / "out2")
    assert not rep["ok"] and rep["hash_mismatches"] == ["media/talk.mp4"]


def test_export_of_a_brain_whose_big_file_pieces_are_unreadable_saves_the_rest_and_names_it(tmp_path):
    """trial6: a brain.db with garbage in the middle of its pieces (``blob_data``: a broken
    overflow chain, so reading the pieces raises "malformed") still exports every other file,
    and the error names the big file that could not be read and how many files were saved,
    instead of one line advising the very export that just ran."""
    from conftest import gbrain

    tree = tmp_path / "tree"
    _write_big(tree / "media" / "talk.mp4", blobs.BIG + blobs.PIECE, 7)
    for i in range(5):
        (tree / f"p{i}.md").write_text(f"# P{i}\n\ntext\n", encoding="utf-8")
    db = tmp_path / "b.db"
    with Brain.open(db) as b:
        assert import_tree(b, tree)["ok"]
        b.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        page = b.conn.execute("PRAGMA page_size").fetchone()[0]
        over = b.conn.execute("SELECT MIN(pageno) FROM dbstat WHERE name = 'blob_data' AND pagetype = 'overflow'").fetchone()[0]
    with open(db, "r+b") as f:  # the next-page number of an overflow page of the pieces: garbage
        f.seek((over - 1) * page)
        f.write(b"\xff\xff\xff\xf0")
    out = tmp_path / "out"
    r = gbrain("--db", str(db), "export", "--dir", str(out))
    assert r.returncode == 1, r
    err = r.stderr.decode("utf-8")
    assert "media/talk.mp4" in err, err
    assert "saved 5" in err or "5 file" in err, err
    assert "gbrain export --dir" not in err, err  # not advising the export that just ran
    for i in range(5):
        assert (out / f"p{i}.md").read_text(encoding="utf-8") == f"# P{i}\n\ntext\n"
    assert not (out / "media" / "talk.mp4").exists()  # never a half file, nor its temp
    assert not (out / "media").exists() or not list((out / "media").iterdir())
