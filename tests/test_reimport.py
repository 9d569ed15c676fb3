"""A second import of a folder reads only the files whose stat moved since it was last hashed
(issue 14: "re-read a page only where it changed"), by the rule sync trusts: the stat
``sync_state`` recorded, unless racy. On both engines (``--engine postgres``: ``db_path``)."""
from __future__ import annotations

import os
import types

import pytest

import gbrain.sync.importer as importer
from gbrain.core.brain import Brain
from gbrain.sync import scan, verify
from gbrain.sync.importer import import_tree
from gbrain.sync.scan import change_stamp, scan_tree


@pytest.fixture
def reads(monkeypatch):
    """The relative paths import read or hashed (pages through ``open_nofollow``, in scan.read_settled; other files
    through verify's hashers), in order."""
    seen: list[str] = []

    def note(path) -> None:
        seen.append(os.fspath(path))

    real_open, sized, whole = scan.open_nofollow, verify._sha256_sized, verify.sha256_file

    def counting_open(path, *a, **k):
        note(path)
        return real_open(path, *a, **k)

    monkeypatch.setattr(scan, "open_nofollow", counting_open)
    monkeypatch.setattr(verify, "_sha256_sized", lambda path, size, *a: (note(path), sized(path, size, *a))[1])
    monkeypatch.setattr(verify, "sha256_file", lambda path: (note(path), whole(path))[1])
    return seen


def rel(tree, paths) -> set[str]:
    return {os.path.relpath(p, tree).replace(os.sep, "/") for p in paths}


def stable(monkeypatch) -> None:
    """Files written before the import are not racy (the tests' trees are seconds old)."""
    monkeypatch.setattr(importer, "RACY_NS", 0)


def test_reimport_reads_only_the_changed_file(db_path, brain_tree, reads, monkeypatch):
    stable(monkeypatch)
    with Brain.open(db_path) as b:
        first = import_tree(b, brain_tree)
        n = len(reads)
        assert n == first["files_seen"] == 11  # a first import reads every file
        again = import_tree(b, brain_tree)
        assert reads[n:] == []  # nothing moved: nothing read
        assert again["ok"] and again["counts"] == {"pages_written": 0, "files_written": 0, "unchanged": 11}
        assert again["hashes_checked"] == 11 and again["hash_mismatches"] == []
        assert [again["links"][k] for k in ("stored", "resolved", "dangling")] == [first["links"][k] for k in ("stored", "resolved", "dangling")]
        p = brain_tree / "people" / "bruno-okafor.md"
        p.write_text(p.read_text() + "\n- **2025-05-01** | email — New entry\n")
        one = import_tree(b, brain_tree)
        assert rel(brain_tree, reads[n:]) == {"people/bruno-okafor.md"}
        assert one["ok"] and one["counts"] == {"pages_written": 1, "files_written": 0, "unchanged": 10}
        assert one["links"]["parsed_checked"] > 0 and one["raw"] == first["raw"]
        assert b.timeline("people/bruno-okafor")[0]["summary"] == "New entry"
        assert verify.stored_hashes(b)["people/bruno-okafor.md"] == verify.sha256_file(str(p))


def frozen_stats(monkeypatch):
    """A file system whose clock ticks coarsely: every later scan gives each file the size and
    change stamp the first scan saw (an edit of the same size within one tick leaves both)."""
    real = importer.scan_tree
    first: dict[str, int] = {}

    def scan(*a, **k):
        s = real(*a, **k)
        for f in s.files:
            f.mtime_ns = first.setdefault(f.path, f.mtime_ns)
        return s

    monkeypatch.setattr(importer, "scan_tree", scan)


def same_size_edit(tree):
    p = tree / "people" / "ana-lima.md"
    text = p.read_bytes()
    p.write_bytes(text.replace(b"a", b"e", 1))
    assert len(p.read_bytes()) == len(text)
    return p


def test_a_racy_file_is_read_again_though_its_stat_is_the_same(db_path, brain_tree, reads, monkeypatch):
    """Recorded within RACY_NS of the import's start, a file is hashed again next time: a same-size
    edit in the same clock tick leaves its stat as it was, and is found all the same."""
    frozen_stats(monkeypatch)
    monkeypatch.setattr(importer, "RACY_NS", 10**15)  # every file is "just written"
    with Brain.open(db_path) as b:
        import_tree(b, brain_tree)
        p = same_size_edit(brain_tree)
        n = len(reads)
        rep = import_tree(b, brain_tree)
        # all racy: every file read again (the edited one twice: its real stat is not the
        # frozen one this scan gives, so import's read_stable reads it again)
        assert len(set(reads[n:])) == 11 and len(reads) - n <= 12
        assert rep["ok"] and rep["counts"]["pages_written"] == 1
        assert verify.stored_hashes(b)["people/ana-lima.md"] == verify.sha256_file(str(p))


def test_a_file_not_racy_is_trusted_by_its_stat(db_path, brain_tree, reads, monkeypatch):
    """The other side of the rule above (and what makes that test mean something): recorded
    long after its stamp, a file whose stat did not move is not read, as sync does not read it."""
    frozen_stats(monkeypatch)
    stable(monkeypatch)
    with Brain.open(db_path) as b:
        import_tree(b, brain_tree)
        same_size_edit(brain_tree)
        n = len(reads)
        rep = import_tree(b, brain_tree)
        assert reads[n:] == [] and rep["counts"]["pages_written"] == 0


def test_racy_is_judged_from_before_the_reads_not_the_end_of_the_import(db_path, brain_tree, monkeypatch):
    """A file stamped less than RACY_NS before the import began is racy, however long the import
    took: a write just after its read could keep its stamp. (Judged at the end of the import, as
    before, a long import recorded such a file as trusted.)"""
    stamps = [change_stamp(os.lstat(p)) for p in brain_tree.rglob("*") if p.is_file()]
    oldest, newest = min(stamps), max(stamps)
    # a racy window every stamp of the tree falls in, however long the fixture took to write it
    # (RACY_NS // 2 after the newest stamp failed when the copy took more than half a second)
    monkeypatch.setattr(importer, "RACY_NS", 2 * (newest - oldest) + importer.RACY_NS)
    start = newest + importer.RACY_NS // 2  # the clock when the import begins; a minute later once it has walked the tree
    walked = []
    real = importer.scan_tree
    monkeypatch.setattr(importer, "scan_tree", lambda *a, **k: (walked.append(1), real(*a, **k))[1])
    monkeypatch.setattr(importer, "time", types.SimpleNamespace(time_ns=lambda: start + (60 * importer.RACY_NS if walked else 0)))
    with Brain.open(db_path) as b:
        import_tree(b, brain_tree)
        stamps = [r[0] for r in b.conn.execute("SELECT mtime_ns FROM sync_state")]
    assert len(stamps) == 11 and set(stamps) == {0}


def test_a_brain_edit_since_the_last_import_is_kept_without_reading_the_file(db_path, brain_tree, reads, monkeypatch):
    stable(monkeypatch)
    with Brain.open(db_path) as b:
        import_tree(b, brain_tree)
        b.tag("people/ana-lima", "precious")
        edited = b.page_row("people/ana-lima")["content_hash"]
        n = len(reads)
        rep = import_tree(b, brain_tree)
        assert reads[n:] == []
        assert rep["ok"] and rep["kept_brain_edits"] == ["people/ana-lima.md"]
        assert rep["counts"] == {"pages_written": 0, "files_written": 0, "unchanged": 10}
        assert b.page_row("people/ana-lima")["content_hash"] == edited and "precious" in b.tags("people/ana-lima")
        assert any("edited in the brain since the last import" in w for w in rep["warnings"])


def test_a_trusted_file_the_brain_lost_is_read_and_imported(db_path, brain_tree, reads, monkeypatch):
    """A file whose stat did not move but which must be written (its page was deleted through
    gbrain: import never deletes, it brings the page back) is read: the bytes read are stored."""
    stable(monkeypatch)
    with Brain.open(db_path) as b:
        import_tree(b, brain_tree)
        b.delete_page("people/ana-lima")
        n = len(reads)
        rep = import_tree(b, brain_tree)
        assert rel(brain_tree, reads[n:]) == {"people/ana-lima.md"}
        assert rep["ok"] and rep["counts"]["pages_written"] == 1
        assert b.page_row("people/ana-lima")["content_hash"] == verify.sha256_file(str(brain_tree / "people" / "ana-lima.md"))


def test_another_folder_is_read_whole(db_path, brain_tree, tmp_path, reads, monkeypatch):
    """Only the folder the brain is bound to has stats to trust: a second folder is read whole."""
    import shutil

    stable(monkeypatch)
    other = tmp_path / "other"
    shutil.copytree(brain_tree, other)
    with Brain.open(db_path) as b:
        import_tree(b, brain_tree)
        n = len(reads)
        import_tree(b, other)
        assert len(reads) - n == 11


class _WrittenDuringRead:
    """A real file object whose ``read`` returns what the file held, then (once) lets an editor
    write the rest of the note, as an editor saving in place does while import reads."""

    def __init__(self, fh, path, rest: bytes):
        self.fh, self.path, self.rest = fh, path, rest

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.fh.close()

    def fileno(self):
        return self.fh.fileno()

    def read(self, *a):
        data = self.fh.read(*a)
        with open(self.path, "ab") as other:  # the editor's own descriptor
            other.write(self.rest)
        return data


def test_a_note_written_while_import_reads_it_is_read_again_not_stored_half(tmp_path, db_path, monkeypatch):
    """trial6: an editor writing a note in place while `gbrain import` read it left the brain
    with the half the import read (an empty page, or the first lines), while the report said
    "Validation: OK" and a `verify` right after said the file differed. Import now reads a page
    again when the file's stat moved during the read (as sync's ``read_stable`` does): the brain
    holds the note as saved, and the import's record of its stat is the one its bytes had."""
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "a.md").write_text("# A\n", encoding="utf-8")
    note = tree / "note.md"
    first, rest = b"# Note\n\nfirst half\n", b"second half, saved while import read the first\n"
    note.write_bytes(first)
    real_open = scan.open_nofollow
    armed = [True]

    def editing_open(path, *a, **k):
        fh = real_open(path, *a, **k)
        if armed[0] and os.fspath(path) == str(note):
            armed[0] = False
            return _WrittenDuringRead(fh, note, rest)
        return fh

    monkeypatch.setattr(scan, "open_nofollow", editing_open)
    with Brain.open(db_path) as b:
        rep = import_tree(b, tree)
        assert not armed[0]  # the editor did write during the read
        assert rep["ok"]
        assert b.get_text("note").encode("utf-8") == first + rest
        monkeypatch.setattr(scan, "open_nofollow", real_open)
        assert verify.verify_tree(b, scan_tree(tree))["ok"]


def test_a_brain_edit_replaced_by_a_file_that_is_no_longer_a_page_is_said_and_kept(tmp_path, db_path):
    """trial6: a page edited in the brain, whose file an editor then saved in Windows-1252 (not
    UTF-8: the file becomes a blob), was replaced by import with only "not valid UTF-8, kept as a
    file": the brain's edit went to the history unnamed. It is said now, as for a file that stays
    a page: the brain's version is in the trash, with the command that brings it back."""
    from conftest import gbrain

    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "n.md").write_bytes(b"# Note\n\noriginal\n")
    db = str(db_path)
    assert gbrain("--db", db, "import", str(tree)).returncode == 0
    assert gbrain("--db", db, "put", "n", input="# Note\n\nBRAIN EDIT\n").returncode == 0
    (tree / "n.md").write_bytes(b"# Note\n\ncaf\xe9 saved by a Windows editor\n")
    r = gbrain("--db", db, "import", str(tree))
    err = r.stderr.decode("utf-8")
    assert r.returncode == 0, err
    assert "n.md: the brain's version differed from the file and was replaced; it is in the trash" in err, err
    assert "gbrain revert n --to 2" in err, err
    assert gbrain("--db", db, "get", "n", "--version", "2").stdout == b"# Note\n\nBRAIN EDIT\n"


def test_an_import_that_writes_nothing_still_checks_the_raw_rows(db_path, brain_tree, monkeypatch):
    """An import that writes nothing still validates the raw rows against the sidecars: raw rows
    lost out of band (a hand DELETE, a restore of part of a database) were said on a re-import
    ("raw data: N sources in sidecars but M rows", Validation FAILED) until 45290a09 skipped the
    check when nothing was written, so the re-import said "Validation: OK"; its ``raw`` keys are
    the same as a writing import's (``import --json``)."""
    stable(monkeypatch)
    with Brain.open(db_path) as b:
        first = import_tree(b, brain_tree)
        assert first["ok"] and first["raw"]["raw_rows_expected"] == first["raw"]["raw_rows_stored"] > 0, first
        again = import_tree(b, brain_tree)
        assert again["counts"]["pages_written"] == again["counts"]["files_written"] == 0, again["counts"]
        assert again["ok"] and sorted(again["raw"]) == sorted(first["raw"]), again["raw"]
        b.conn.execute("DELETE FROM raw_data WHERE id = (SELECT MIN(id) FROM raw_data)")
        b.conn.commit()
        damaged = import_tree(b, brain_tree)
        assert damaged["counts"]["pages_written"] == damaged["counts"]["files_written"] == 0, damaged["counts"]
        assert not damaged["ok"], damaged["raw"]
        want = f"raw data: {first['raw']['raw_rows_expected']} sources in sidecars but {first['raw']['raw_rows_stored'] - 1} rows"
        assert want in damaged["problems"], damaged["problems"]
