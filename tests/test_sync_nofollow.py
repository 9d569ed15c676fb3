"""A file swapped for a symlink between a walk and its read is never read through the link.

The walk lstat-s every path and leaves a symlink alone (``scan.NOT_FOLLOWED``), but the reads
came later with a plain ``open``: a note (or an attachment) replaced by a link to a file outside
the folder in between was read through it, so `gbrain import` stored the outside file's bytes
(its stat never matched the walk's, and import keeps a file still changing as last read) and a
sync round called the note unreadable (exit 1) where the walk calls it a symlink (exit 0). Now
every read of sync and import opens with ``O_NOFOLLOW`` (``blobs.open_nofollow``): the open
fails (ELOOP) and the path is a symlink left alone, as the walk leaves one. The swap happens
in a hook run right after the walk (no timing luck). Both engines (``db_path``)."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from gbrain.core.brain import Brain, sha256
from gbrain.storage import blobs
from gbrain.sync import engine as engine_mod
from gbrain.sync import importer
from gbrain.sync.importer import import_tree

sys.path.insert(0, str(Path(__file__).parent))
from test_sync import all_versions  # noqa: E402

NOTE = "people/ana-lima.md"
ATTACHMENT = "assets/photo.bin"

pytestmark = pytest.mark.skipif(not getattr(os, "O_NOFOLLOW", 0), reason="no O_NOFOLLOW on this platform")


@pytest.fixture(autouse=True)
def no_second_look(monkeypatch):
    """The second look at a file read young (``scan.YOUNG_NS``) lstat-s it again and would drop a
    symlink by itself: off here, so the read alone is tested."""
    from gbrain.sync import scan

    monkeypatch.setattr(scan, "YOUNG_NS", 0)
    monkeypatch.setattr(engine_mod, "YOUNG_NS", 0)


def secret_file(tmp_path: Path, page: bool, big: bool = False) -> Path:
    """A file outside the folder: a page-like text or bytes, of another size than the file it
    stands in for."""
    s = tmp_path / ("outside-secret.md" if page else "outside-secret.bin")
    body = b"# Secret\n\nAPI key 0xDEADBEEF and much more text to differ in size.\n" if page else b"\x00SECRET\xff" * 40
    s.write_bytes(body * (300 if big else 1))
    return s


def relink_after(monkeypatch, module, name: str, path: Path, target: Path) -> list:
    """Wrap ``module.name`` (the walk) so that right after it ran, ``path`` becomes a symlink to
    ``target`` (once)."""
    real = getattr(module, name)
    done: list = []

    def walk(*a, **k):
        r = real(*a, **k)
        if not done:
            done.append(path)
            path.unlink()
            os.symlink(target, path)
        return r
    walk.__wrapped__ = real
    monkeypatch.setattr(module, name, walk)
    return done


def never_stored(brain: Brain, secret: Path) -> None:
    h = sha256(secret.read_bytes())
    assert not brain.conn.execute("SELECT 1 FROM history_bodies WHERE hash = ?", (h,)).fetchone()
    assert not brain.conn.execute("SELECT 1 FROM pages WHERE content_hash = ? UNION ALL SELECT 1 FROM files WHERE content_hash = ?",
                                  (h, h)).fetchone()


@pytest.mark.parametrize("what", ["page", "attachment", "big attachment"])
def test_import_never_reads_a_file_swapped_for_a_symlink_after_the_walk(brain_tree, db_path, monkeypatch, tmp_path, what):
    page = what == "page"
    if what == "big attachment":
        monkeypatch.setattr(blobs, "BIG", 1024)  # streamed into pieces (save_file_from's other read)
    rel = NOTE if page else ATTACHMENT
    f = brain_tree / rel
    if not page:
        f.parent.mkdir(exist_ok=True)
        f.write_bytes(b"\x89PNG first\n" * 200)
    secret = secret_file(tmp_path, page, big=what == "big attachment")
    with Brain.open(db_path) as brain:
        assert import_tree(brain, brain_tree)["ok"]
        before = brain.conn.execute("SELECT content_hash FROM pages WHERE path = ? UNION ALL SELECT content_hash FROM files WHERE path = ?",
                                    (rel, rel)).fetchone()[0]
        edited = f.read_bytes() + (b"\nEdited.\n" if page else b"edited\n")
        f.write_bytes(edited)
        hit = relink_after(monkeypatch, importer, "scan_tree", f, secret)
        rep = import_tree(brain, brain_tree)
        assert hit and f.is_symlink()
        never_stored(brain, secret)
        now = brain.conn.execute("SELECT content_hash FROM pages WHERE path = ? UNION ALL SELECT content_hash FROM files WHERE path = ?",
                                 (rel, rel)).fetchone()[0]
        assert now == before  # kept as it was stored, as the walk leaves a symlink
        # left alone as a symlink is (the walk's), never a read error
        assert "read_errors" not in rep and rep["ok"], rep
        assert before in all_versions(brain, brain_tree)  # nothing lost


@pytest.mark.parametrize("what", ["page", "attachment", "big attachment"])
def test_a_sync_round_never_reads_a_file_swapped_for_a_symlink_after_the_walk(synced, monkeypatch, tmp_path, what):
    brain, eng, root = synced
    page = what == "page"
    if what == "big attachment":
        monkeypatch.setattr(blobs, "BIG", 1024)
    rel = NOTE if page else ATTACHMENT
    f = root / rel
    if not page:
        f.parent.mkdir(exist_ok=True)
        f.write_bytes(b"\x89PNG first\n" * 200)
        assert eng.sync()["exit_code"] == 0
    secret = secret_file(tmp_path, page, big=what == "big attachment")
    before = brain.conn.execute("SELECT content_hash FROM pages WHERE path = ? UNION ALL SELECT content_hash FROM files WHERE path = ?",
                                (rel, rel)).fetchone()[0]
    f.write_bytes(f.read_bytes() + (b"\nEdited.\n" if page else b"edited\n"))
    hit = relink_after(monkeypatch, engine_mod, "walk_tree", f, secret)
    rep = eng.sync()
    assert hit and f.is_symlink()
    never_stored(brain, secret)
    now = brain.conn.execute("SELECT content_hash FROM pages WHERE path = ? UNION ALL SELECT content_hash FROM files WHERE path = ?",
                             (rel, rel)).fetchone()[0]
    assert now == before
    # what the walk says of a symlink: named, the page kept, exit 0 (never "could not read", exit 1)
    assert [s["path"] for s in rep.get("symlinked", [])] == [rel], rep
    assert rep["exit_code"] == 0 and "unreadable" not in rep, rep
    assert before in all_versions(brain, root)
    monkeypatch.setattr(engine_mod, "walk_tree", hit and engine_mod.walk_tree.__wrapped__)
    rep = eng.sync()  # the next round's walk finds the symlink itself: the same
    assert [s["path"] for s in rep["symlinked"]] == [rel] and rep["exit_code"] == 0, rep
    never_stored(brain, secret)


@pytest.mark.engine_free
def test_open_nofollow_refuses_a_symlink_and_reads_a_file(tmp_path):
    f, link = tmp_path / "f", tmp_path / "l"
    f.write_bytes(b"bytes\n")
    os.symlink(f, link)
    with blobs.open_nofollow(f) as fh:
        assert fh.read() == b"bytes\n"
    with pytest.raises(OSError) as e:
        blobs.open_nofollow(link)
    assert blobs.is_symlink_refusal(e.value)
    assert blobs.hash_file(f) == (sha256(b"bytes\n"), 6)
    with pytest.raises(OSError) as e:
        blobs.hash_file(link)
    assert blobs.is_symlink_refusal(e.value)


def test_a_sync_rounds_second_look_finding_a_symlink_leaves_it_alone(synced, monkeypatch, tmp_path):
    """A note read young (``engine.YOUNG_NS``) and replaced by a symlink during the pause before
    the round's second look (``SyncEngine._settle_young``) is a symlink left alone, as the walk
    leaves one (named, the page kept, exit 0), no longer "changed meanwhile" (exit 1)."""
    brain, eng, root = synced
    monkeypatch.setattr(engine_mod, "YOUNG_NS", 3600 * 10**9)
    f = root / NOTE
    secret = secret_file(tmp_path, True)
    before = brain.page_row("people/ana-lima")["content_hash"]
    f.write_bytes(f.read_bytes() + b"\nEdited.\n")

    def relink(s):
        if not f.is_symlink():
            f.unlink()
            os.symlink(secret, f)
    monkeypatch.setattr(engine_mod, "settle_pause", relink)
    rep = eng.sync()
    assert f.is_symlink()
    never_stored(brain, secret)
    assert brain.page_row("people/ana-lima")["content_hash"] == before
    assert [s["path"] for s in rep.get("symlinked", [])] == [NOTE] and rep["exit_code"] == 0, rep
    assert before in all_versions(brain, root)


@pytest.mark.engine_free
def test_without_o_nofollow_a_symlink_is_refused_by_a_look_after_the_open(tmp_path, monkeypatch):
    """Where the platform has no ``O_NOFOLLOW`` (Windows) the open follows a link: the path is
    looked at after the open (``blobs.os_open``: an lstat naming a symlink, or another file than
    the one opened, refuses it as ``O_NOFOLLOW`` would, ``is_symlink_refusal``), for
    ``open_nofollow`` and verify's hashing alike. Run here with ``O_NOFOLLOW`` taken out."""
    from gbrain.sync import verify

    outside = secret_file(tmp_path, page=True)
    link = tmp_path / "note.md"
    os.symlink(outside, link)
    plain = tmp_path / "plain.md"
    plain.write_bytes(b"# Plain\n")
    monkeypatch.setattr(blobs, "O_READ_NOFOLLOW", os.O_RDONLY)
    monkeypatch.setattr(blobs, "os_open", blobs._open_looked_at)
    with pytest.raises(OSError) as e:
        blobs.open_nofollow(link)
    assert blobs.is_symlink_refusal(e.value)
    with blobs.open_nofollow(plain) as fh:
        assert fh.read() == b"# Plain\n"
    with pytest.raises(OSError) as e:
        verify.sha256_file(str(link))
    assert blobs.is_symlink_refusal(e.value)
    assert verify.sha256_file(str(plain)) == sha256(b"# Plain\n")


def folder_relinked_after(monkeypatch, module, name: str, folder: Path, away: Path, target: Path) -> list:
    """Wrap ``module.name`` (the walk) so that right after it ran, ``folder`` is moved to
    ``away`` and becomes a symlink to the folder ``target`` (once)."""
    real = getattr(module, name)
    done: list = []

    def walk(*a, **k):
        r = real(*a, **k)
        if not done:
            done.append(folder)
            os.rename(folder, away)
            os.symlink(target, folder)
        return r
    walk.__wrapped__ = real
    monkeypatch.setattr(module, name, walk)
    return done


def outside_folder(tmp_path: Path) -> Path:
    """A folder outside the brain's holding a note of the same name as NOTE's, other bytes."""
    d = tmp_path / "outside-folder"
    d.mkdir()
    (d / os.path.basename(NOTE)).write_bytes(b"# Secret\n\nAPI key 0xDEADBEEF, a folder away, of another size.\n")
    return d


def test_import_never_reads_through_a_folder_swapped_for_a_symlink_after_the_walk(brain_tree, db_path, monkeypatch, tmp_path):
    """Each read opened the file with ``O_NOFOLLOW``, which looks at the last part of the path
    only: a folder of the tree swapped for a symlink to a folder outside it between the walk and
    the reads was read through (its file's stat differed from the walk's, the read was tried
    again and the outside file's bytes stored). Now a read under the folder being imported opens
    each folder on the way without following a link (``blobs.confined``): refused, the page kept
    as stored, the path left alone as a symlink is."""
    f = brain_tree / NOTE
    outside = outside_folder(tmp_path)
    secret = outside / f.name
    with Brain.open(db_path) as brain:
        assert import_tree(brain, brain_tree)["ok"]
        before = brain.page_row("people/ana-lima")["content_hash"]
        f.write_bytes(f.read_bytes() + b"\nEdited.\n")
        hit = folder_relinked_after(monkeypatch, importer, "scan_tree", f.parent, tmp_path / "people-away", outside)
        rep = import_tree(brain, brain_tree)
        assert hit and f.parent.is_symlink()
        never_stored(brain, secret)
        assert brain.page_row("people/ana-lima")["content_hash"] == before
        assert "read_errors" not in rep and rep["ok"], rep


def test_a_sync_round_never_reads_through_a_folder_swapped_for_a_symlink_after_the_walk(synced, monkeypatch, tmp_path):
    """As import: a round reads no file through a folder of the tree swapped for a symlink after
    its walk; the note is a symlink left alone (named, its page kept, exit 0), and the next
    round's walk finds the symlinked folder itself."""
    brain, eng, root = synced
    f = root / NOTE
    outside = outside_folder(tmp_path)
    secret = outside / f.name
    before = brain.page_row("people/ana-lima")["content_hash"]
    f.write_bytes(f.read_bytes() + b"\nEdited.\n")
    hit = folder_relinked_after(monkeypatch, engine_mod, "walk_tree", f.parent, tmp_path / "people-away", outside)
    rep = eng.sync()
    assert hit and f.parent.is_symlink()
    never_stored(brain, secret)
    assert brain.page_row("people/ana-lima")["content_hash"] == before
    assert NOTE in [s["path"] for s in rep.get("symlinked", [])] and rep["exit_code"] == 0, rep
    assert before in all_versions(brain, root)
    monkeypatch.setattr(engine_mod, "walk_tree", engine_mod.walk_tree.__wrapped__)
    rep = eng.sync()
    assert rep["exit_code"] == 0, rep
    never_stored(brain, secret)
    assert brain.page_row("people/ana-lima")["content_hash"] == before


@pytest.mark.engine_free
def test_a_confined_read_refuses_a_symlinked_folder_on_the_way_and_only_under_its_root(tmp_path):
    """``blobs.confined(root)``: a read of a file under ``root`` (``open_nofollow``, ``os_open``:
    every read of sync, import and verify) opens each folder below ``root`` without following a
    link; ``root`` itself may be a link (the user's choice), and a path outside it reads as before."""
    from gbrain.sync import verify

    real = tmp_path / "real"
    (real / "a" / "b").mkdir(parents=True)
    (real / "a" / "b" / "n.md").write_bytes(b"inside\n")
    (real / "top.md").write_bytes(b"top\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "n.md").write_bytes(b"outside\n")
    os.symlink(real, tmp_path / "root")  # the folder reached through a link: the user's choice
    root = tmp_path / "root"
    os.symlink(outside, real / "a" / "c")
    with blobs.confined(root):
        with blobs.open_nofollow(root / "a" / "b" / "n.md") as fh:
            assert fh.read() == b"inside\n"
        with blobs.open_nofollow(root / "top.md") as fh:
            assert fh.read() == b"top\n"
        with pytest.raises(OSError) as e:
            blobs.open_nofollow(root / "a" / "c" / "n.md")
        assert blobs.is_symlink_refusal(e.value), e.value
        with pytest.raises(OSError) as e:
            verify.sha256_file(str(root / "a" / "c" / "n.md"))
        assert blobs.is_symlink_refusal(e.value)
        with pytest.raises(FileNotFoundError):
            blobs.open_nofollow(root / "a" / "none" / "n.md")
        with blobs.open_nofollow(outside / "n.md") as fh:  # not under the root: as before
            assert fh.read() == b"outside\n"
    with blobs.open_nofollow(root / "a" / "c" / "n.md") as fh:  # no longer confined
        assert fh.read() == b"outside\n"
