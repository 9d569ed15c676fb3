"""export and verify hand large files to threads (issue 14, the 2.3 GB brain): the answers must
be the ones the one-thread path gives. The thresholds are lowered here so a small tree takes the
threaded paths, and a spy checks that threads did the work (a silently sequential path would
pass every other assertion)."""
from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path

import pytest

from gbrain.core.brain import Brain
from gbrain.errors import Damaged
from gbrain.sync import exporter, verify
from gbrain.sync.exporter import export_tree
from gbrain.sync.importer import import_tree
from gbrain.sync.scan import scan_tree

pytestmark = pytest.mark.engine_free  # the same on both engines: runs in the SQLite run only (conftest)


def _tree(root: Path) -> dict[str, bytes]:
    files = {"index.md": b"# Index\n\nSee [[alpha]].\n", "notes/alpha.md": b"---\ntitle: Alpha\n---\n# Alpha\n\nText.\n"}
    for i in range(12):
        files[f"att/img-{i:02d}.png"] = b"\x89PNG\r\n\x1a\n" + os.urandom(3000 + 997 * i)
    files["att/deep/er/doc.pdf"] = b"%PDF-1.7\n" + os.urandom(20000)
    for rel, data in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    return files


def _imported(tmp_path: Path) -> tuple[Path, dict[str, bytes], Path]:
    """``(tree, files, db)``: :func:`_tree` under ``tmp_path/tree`` imported into
    ``tmp_path/b.db`` (closed again)."""
    tree, db = tmp_path / "tree", tmp_path / "b.db"
    files = _tree(tree)
    with Brain.open(db) as b:
        assert import_tree(b, tree)["ok"]
    return tree, files, db


@pytest.fixture
def threaded(monkeypatch):
    """Thresholds low enough that every file over 1 KiB goes to a thread; returns the names of
    the threads that hashed (verify) or wrote (export) a file."""
    names: list[str] = []
    monkeypatch.setattr(verify, "PARALLEL_BYTES", 0)
    monkeypatch.setattr(verify, "WHOLE_READ", 1024)
    monkeypatch.setattr(exporter, "POOL_MIN", 1024)
    monkeypatch.setattr(exporter, "WRITERS", 2)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    real_hash, real_write = verify._sha256_sized, exporter._replace_file
    monkeypatch.setattr(verify, "_sha256_sized", lambda path, size, *buf: (names.append(threading.current_thread().name), real_hash(path, size, *buf))[1])
    monkeypatch.setattr(exporter, "_replace_file", lambda *a, **k: (names.append(threading.current_thread().name), real_write(*a, **k))[1])
    return names


def test_verify_with_threads_finds_every_changed_missing_and_extra_file(tmp_path, threaded):
    tree, files, db = _imported(tmp_path)
    with Brain.open(db) as b:
        threaded.clear()
        rep = verify.verify_tree(b, scan_tree(tree))
        assert rep["ok"], rep["problems"]
        assert rep["hashes_checked"] == len(files)
        assert any(n.startswith("gbrain-hash") for n in threaded)
        changed = tree / "att/img-05.png"
        data = bytearray(changed.read_bytes())
        data[-1] ^= 1  # same size, one bit
        changed.write_bytes(bytes(data))
        (tree / "att/deep/er/doc.pdf").unlink()
        (tree / "att/extra.png").write_bytes(os.urandom(5000))
        rep = verify.verify_tree(b, scan_tree(tree))
    assert not rep["ok"]
    assert rep["hash_mismatches"] == ["att/img-05.png"]
    assert rep["missing_on_disk"] == ["att/deep/er/doc.pdf"]
    assert rep["missing_in_db"] == ["att/extra.png"]


def test_hash_tree_with_threads_equals_one_thread(tmp_path, threaded):
    tree = tmp_path / "tree"
    _tree(tree)
    scan = scan_tree(tree)
    got = verify.TreeHashes(scan).result()
    one = verify.TreeHashes(scan, threads=1).result()
    assert got == one
    assert list(got[0]) == [f.path for f in scan.files]  # scan order
    assert got[0] == {f.path: verify.sha256_file(f.abspath) for f in scan.files}


def test_verify_with_threads_still_fails_on_a_damaged_database(tmp_path, threaded):
    tree, _, db = _imported(tmp_path)
    with Brain.open(db) as b:
        b.damaged = "quick_check: a page is damaged"  # as a failed check leaves it
        with pytest.raises(Damaged):
            verify.verify_tree(b, scan_tree(tree))


def test_export_with_writer_threads_is_byte_exact_and_checked(tmp_path, threaded):
    _, files, db = _imported(tmp_path)
    with Brain.open(db) as b:
        threaded.clear()
        rep = export_tree(b, tmp_path / "out")
        assert rep["ok"], rep["problems"]
        assert rep["counts"] == {"written": len(files), "unchanged": 0, "failed": 0}
        assert any(n.startswith("gbrain-export") for n in threaded)
        for rel, data in files.items():
            assert (tmp_path / "out" / rel).read_bytes() == data
        threaded.clear()
        rep = export_tree(b, tmp_path / "out")  # again: every file found identical, none written
        assert rep["ok"] and rep["counts"] == {"written": 0, "unchanged": len(files), "failed": 0}
        assert threaded == []


def test_export_with_writer_threads_names_a_damaged_row_and_saves_the_rest(tmp_path, threaded):
    _, files, db = _imported(tmp_path)
    c = sqlite3.connect(db)
    c.execute("UPDATE files SET data = zeroblob(length(data)) WHERE path = 'att/img-07.png'")
    c.commit()
    c.close()
    with Brain.open(db) as b:
        with pytest.raises(Damaged) as e:
            export_tree(b, tmp_path / "out")
    assert "img-07.png" in str(e.value)
    assert not (tmp_path / "out" / "att/img-07.png").exists()
    for rel, data in files.items():
        if rel != "att/img-07.png":
            assert (tmp_path / "out" / rel).read_bytes() == data


def test_export_with_writer_threads_reports_a_file_it_cannot_write(tmp_path, threaded):
    _, files, db = _imported(tmp_path)
    out = tmp_path / "out"
    (out / "att" / "img-03.png").mkdir(parents=True)  # a folder where a file goes
    with Brain.open(db) as b:
        rep = export_tree(b, out)
    assert not rep["ok"]
    assert [f["path"] for f in rep["write_errors"]] == ["att/img-03.png"]
    for rel, data in files.items():
        if rel != "att/img-03.png":
            assert (out / rel).read_bytes() == data


def _walk_reference(root: Path) -> list[str]:
    """The files of ``root`` in os.walk's top-down order, folders and files sorted by name."""
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in (".git", ".obsidian") and not os.path.islink(os.path.join(dirpath, d)))
        rel = os.path.relpath(dirpath, root).replace(os.sep, "/")
        for f in sorted(filenames):
            p = os.path.join(dirpath, f)
            if not os.path.islink(p) and not f.endswith("~"):
                out.append(f if rel == "." else f"{rel}/{f}")
    return out


def test_scan_lists_files_in_os_walk_order_and_skips_what_it_skipped(tmp_path):
    root = tmp_path / "t"
    for rel in ("b.md", "a/z.md", "a/b/c.md", "a/b/c/d.md", "A.md", "a/B/x.md", "z/y.md", ".git/HEAD", ".obsidian/app.json", "a/notes.md~", "c/q.md"):
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("# x\n", encoding="utf-8")
    os.symlink(root / "z", root / "a" / "link-dir")
    os.symlink(root / "b.md", root / "a" / "link.md")
    s = scan_tree(root)
    assert [f.path for f in s.files] == _walk_reference(root)
    assert all(f.abspath == str(root / f.path) and f.size == 4 for f in s.files)
    assert sorted(s.skipped) == sorted([
        (".obsidian/", "ignored by default (Obsidian's settings; `!.obsidian/` in .gbrainignore syncs it)"),
        ("a/link-dir", "symlink (not followed)"),
        ("a/link.md", "symlink (not followed)"),
    ])


def test_hashes_of_a_scan_without_sizes_equal_the_sized_ones_big_files_go_to_threads(tmp_path, threaded, monkeypatch):
    """``scan_tree(sizes=False)``: each file's size comes from its read (``read_sizes``, and so
    the sample's budget); a file over ``WHOLE_READ`` is read on in a thread; a file that vanished
    after the listing is left out as the scan would have left it out; the hashes are the sized
    scan's."""
    from gbrain.sync.scan import NOT_TAKEN

    tree, files, db = _imported(tmp_path)
    sized = scan_tree(tree)
    want = verify.hash_tree(sized)
    bare = scan_tree(tree, sizes=False)
    assert {f.size for f in bare.files} == {NOT_TAKEN}
    names: list[str] = []
    real = verify._sha256_rest
    monkeypatch.setattr(verify, "_sha256_rest", lambda fd, h: (names.append(threading.current_thread().name), real(fd, h))[1])
    job = verify.TreeHashes(bare)
    job.hash_here()
    assert job.read_sizes == {i: len(files[f.path]) for i, f in enumerate(bare.files)}
    assert verify.sample_budget(bare, job.read_sizes) == verify.sample_budget(sized)
    assert job.result() == want
    assert want[0] and not want[1] and len(want[0]) == len(files)
    big = [f.path for f in bare.files if len(files[f.path]) > verify.WHOLE_READ]
    assert big and len(names) == len(big) and all(n.startswith("gbrain-hash") for n in names)  # each read on in a thread
    (tree / "att/img-03.png").unlink()  # gone after the listing: left out, no read error
    got, errors = verify.TreeHashes(bare).result()
    assert errors == [] and set(got) == set(want[0]) - {"att/img-03.png"}
    with Brain.open(db) as b:
        rep = verify.verify_tree(b, bare)
    assert not rep["ok"] and rep["missing_on_disk"] == ["att/img-03.png"] and "read_errors" not in rep


def test_verify_cli_scan_without_sizes_hashes_big_files_in_threads(tmp_path, threaded, monkeypatch):
    """The ``verify`` operation scans without sizes: large files still go to the hashing threads
    (counted by a spy on the thread that reads on), and a one-bit change is still found."""
    from gbrain.operations.core import _verify

    names: list[str] = []
    real = verify._sha256_rest
    monkeypatch.setattr(verify, "_sha256_rest", lambda fd, h: (names.append(threading.current_thread().name), real(fd, h))[1])
    tree, files, db = _imported(tmp_path)

    seen: list[tuple[int, int]] = []

    class Ctx:
        progress_label = None
        on_progress = staticmethod(lambda done, total: seen.append((done, total)))

    with Brain.open(db) as b:
        rep = _verify(b, {"dir": str(tree)}, Ctx())
        assert rep["ok"], rep["problems"]
        assert any(n.startswith("gbrain-hash") for n in names)
        assert seen and seen[-1] == (len(files), len(files))  # the progress reaches every file
        changed = tree / "att/img-07.png"
        data = bytearray(changed.read_bytes())
        data[5] ^= 1
        changed.write_bytes(bytes(data))
    with Brain.open(db) as b:
        rep = _verify(b, {"dir": str(tree)}, Ctx())
    assert not rep["ok"] and rep["hash_mismatches"] == ["att/img-07.png"]
