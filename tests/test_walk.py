"""The one walk of a tree (``scan.walk_tree``): import/export/verify's ``scan_tree``, sync's
whole-tree ``SyncEngine.scan`` and watch's per-folder ``SyncEngine.walk`` see the same files and
skip the same names for the same reasons (they were three walks that had drifted apart: a symlink
with a VCS folder's name, a temp file whose name is not UTF-8, a file deleted mid-walk)."""
from __future__ import annotations

import os

from gbrain.core.brain import Brain
from gbrain.sync.engine import SyncEngine
from gbrain.sync.scan import NOT_UTF8, db_excludes, scan_tree, walk_tree
import pytest

pytestmark = pytest.mark.engine_free  # the same on both engines: runs in the SQLite run only (conftest)


def _tree(root) -> None:
    for rel in ("a.md", "b/c.md", "b/d/e.md", "b/img.png", ".git/HEAD", ".obsidian/app.json",
                "drafts/x.md", "b/old.bak.md", "b/note.md~", "b/.gbrain-tmp-999999-1-c.md", "4913"):
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(b"# x\n")
    (root / ".gbrainignore").write_text("drafts/\n*.bak.md\n", encoding="utf-8")
    os.symlink(root / "b", root / "link-dir")
    os.symlink(root / "a.md", root / "b" / "link.md")
    os.symlink(root / "b", root / ".hg")  # a link with a VCS folder's name is a link: reported
    os.mkfifo(root / "b" / "pipe.md")
    bad = os.fsencode(str(root / "b")) + b"/caf\xe9.md"
    with open(bad, "wb") as f:
        f.write(b"# x\n")
    os.mkdir(os.fsencode(str(root)) + b"/d\xe9j\xe0")
    with open(os.fsencode(str(root)) + b"/.#caf\xe9.md", "wb") as f:  # an emacs lock of a bad name: a temp file
        f.write(b"x")


def test_scan_sync_and_watch_walks_agree(tmp_path):
    root = tmp_path / "v"
    root.mkdir()
    _tree(root)
    db = root / "brain.db"  # inside the tree: never a brain file
    with Brain.open(db) as b:
        eng = SyncEngine(b, root)
        eng.bind()
        s = scan_tree(root, exclude_abs=db_excludes(db))
        e = eng.scan()
        files, skipped, bad = eng.walk("")
    want = [".gbrainignore", "a.md", "b/c.md", "b/img.png", "b/d/e.md"]  # a folder's files by name, then its folders
    assert [f.path for f in s.files] == want
    assert sorted(x[0] for x in e.stats) == sorted(want) == sorted(f.path for f in files)
    assert {f.path: (f.size, f.mtime_ns) for f in s.files} == {p: (n, m) for p, n, m in e.stats} == {f.path: (f.size, f.mtime_ns) for f in files}
    expect = {
        (".obsidian/", "ignored by default (Obsidian's settings; `!.obsidian/` in .gbrainignore syncs it)"),
        ("drafts/", "ignored by .gbrainignore"),
        ("b/old.bak.md", "ignored by .gbrainignore"),
        ("link-dir", "symlink (not followed)"),
        (".hg", "symlink (not followed)"),
        ("b/link.md", "symlink (not followed)"),
        ("b/pipe.md", "not a regular file"),
        ("b/caf\\xe9.md", NOT_UTF8),
        ("d\\xe9j\\xe0/", NOT_UTF8),
    }
    assert set(s.skipped) == set(e.skipped) == expect
    assert len(s.skipped) == len(expect)
    # watch's walk leaves ignored paths out without a word
    assert set(skipped) == {x for x in expect if "ignored" not in x[1]} and bad == []
    # gbrain's own temp file is seen (a dead writer's is cleaned up by sync), never listed
    assert [r for _, r in eng.leftover_temps] == ["b/.gbrain-tmp-999999-1-c.md"]


def test_walk_of_a_folder_is_that_part_of_the_whole_walk(tmp_path):
    root = tmp_path / "v"
    root.mkdir()
    _tree(root)
    with Brain.open(tmp_path / "b.db") as b:
        eng = SyncEngine(b, root)
        eng.bind()
        whole = {p: (n, m) for p, n, m in eng.scan().stats}
        files, skipped, bad = eng.walk("b")
    assert {f.path: (f.size, f.mtime_ns) for f in files} == {p: v for p, v in whole.items() if p.startswith("b/")}
    assert ("b/link.md", "symlink (not followed)") in skipped and bad == []


def test_a_missing_folder_raises_and_a_vanished_file_is_not_a_skip(tmp_path, monkeypatch):
    import pytest

    with pytest.raises(FileNotFoundError):
        walk_tree(str(tmp_path / "nope"), "", lambda rel: False, set())
    root = tmp_path / "v"
    (root / "s").mkdir(parents=True)
    for n in ("a.md", "b.md"):
        (root / "s" / n).write_text("x", encoding="utf-8")
    real = os.scandir

    class Gone:
        """An entry whose file was deleted between the listing and its stat."""

        def __init__(self, e):
            self._e, self.name, self.path = e, e.name, e.path

        def is_dir(self, follow_symlinks=True):
            return False

        def stat(self, follow_symlinks=True):
            raise FileNotFoundError(2, "No such file or directory")

    class It:
        def __init__(self, p):
            self._it = real(p)

        def __enter__(self):
            return self

        def __exit__(self, *a):
            self._it.close()

        def __iter__(self):
            return (Gone(e) if e.name == "a.md" else e for e in self._it)

    monkeypatch.setattr(os, "scandir", It)
    w = walk_tree(str(root), "", lambda rel: False, set())
    assert [f[0] for f in w.files] == ["s/b.md"] and w.skipped == []


def test_a_scan_without_sizes_lists_and_skips_exactly_what_a_scan_with_sizes_does(tmp_path):
    """``scan_tree(sizes=False)`` (verify: no lstat per file, the reads give the sizes) takes each
    file's kind from its folder entry: the same files, in the same order, the same skips with the
    same reasons, and the database left out by identity even under another name (a hard link)."""
    from gbrain.sync.scan import NOT_TAKEN

    root = tmp_path / "v"
    root.mkdir()
    _tree(root)
    db = root / "brain.db"
    with Brain.open(db):
        pass
    os.link(db, root / "b" / "same-inode.md")  # the database under another name
    excl = db_excludes(db)
    sized = scan_tree(root, exclude_abs=excl)
    bare = scan_tree(root, exclude_abs=excl, sizes=False)
    assert [(f.path, f.abspath) for f in bare.files] == [(f.path, f.abspath) for f in sized.files]
    assert [f.path for f in bare.files] == [".gbrainignore", "a.md", "b/c.md", "b/img.png", "b/d/e.md"]
    assert bare.skipped == sized.skipped and len(bare.skipped) == 9
    assert {(f.size, f.mtime_ns) for f in bare.files} == {(NOT_TAKEN, NOT_TAKEN)}
    assert all(f.size == 4 or f.path == ".gbrainignore" for f in sized.files)


def test_walk_with_a_screened_matcher_skips_what_pathspec_skips(tmp_path):
    """A matcher of folder and name patterns only (ignore_matcher gives it ``file_names``: the
    default rules alone are such) is asked about a file only when its name may match; the walk
    still leaves out exactly what pathspec's own match_file, asked about every file, leaves out:
    from the top and from a folder below an ignored one (watch's per-folder walk), with sizes
    and without."""
    import pathspec
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from gbrain.sync.scan import DEFAULT_IGNORE, ignore_matcher

    root = tmp_path / "v"
    for rel in ("a.md", "build", "build.md", "doc/x.md", "doc/build/y.md", "a/b/z.md", "a/build/q.md", "a/x/b/w.md", "top.md",
                ".obsidian/app.json", "n/.trash/t.md", "x.png", "doc/sub/deep/k.md", "b.md/inner.md", "._a.md", "doc/.DS_Store",
                "doc/Icon\r", "a/Thumbs.db", "._d/e.md", "x.log/f.md", "a/y.log", "a/c.md", "doc/nl.md\n", "n\nl/.DS_Store", "n\nl/m.md"):
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(b"# x\n")
    pats = ["build/", "doc/", "a/**/b/", "/a/", "b.md/", "!build/", "*.md", "!doc/x.md", "build", "x.*", "doc/sub/", "# c", "",
            "!.obsidian/", "*.log", "/top.md", "a/*.md", "!._*", "[xy].png", "**/z.md", "Thumbs.db", "?.md", "**/a/*.md"]
    starts = ["", "doc/", "doc/build/", "a/", "a/x/b/", "doc/sub/deep/", "n/.trash/", "._d/", "x.log/", "n\nl/"]

    def walked(matcher, reldir, sizes):
        w = walk_tree(str(root), reldir, matcher, set(), sizes=sizes)
        return sorted(f[0] for f in w.files), sorted(w.skipped)

    @settings(max_examples=150, deadline=None)
    @given(st.lists(st.sampled_from(pats), max_size=4), st.booleans())
    def check(lines, defaults):
        spec = pathspec.GitIgnoreSpec.from_lines((list(DEFAULT_IGNORE) if defaults else []) + lines)
        fast = ignore_matcher(spec)
        for reldir in starts:
            for sizes in (True, False):
                assert walked(fast, reldir, sizes) == walked(spec.match_file, reldir, sizes), (lines, reldir, sizes)

    check()

    def screen(lines):
        return getattr(ignore_matcher(pathspec.GitIgnoreSpec.from_lines(lines)), "file_names", "absent")

    assert screen(list(DEFAULT_IGNORE)) is not None and screen(list(DEFAULT_IGNORE)) != "absent"
    assert screen([".obsidian/", "build/"]) is None and ignore_matcher(None).file_names is None  # no file can match
    assert screen(list(DEFAULT_IGNORE) + ["!x/"]) == "absent" and screen(["/top.md"]) == "absent" and screen(["a/*.md"]) == "absent"


def test_a_scan_without_sizes_leaves_system_metadata_out_silently_as_with_sizes(tmp_path):
    """verify's scan (``sizes=False``) says nothing of a ``.DS_Store`` or ``._note.md`` the default
    rules skip, as import's and sync's scans say nothing (it listed each one as 'ignored by
    .gbrainignore')."""
    root = tmp_path / "v"
    (root / "a").mkdir(parents=True)
    for rel in ("a/x.md", "a/.DS_Store", "a/._x.md", "Thumbs.db"):
        (root / rel).write_bytes(b"# x\n")
    sized, bare = scan_tree(root), scan_tree(root, sizes=False)
    assert [f.path for f in bare.files] == [f.path for f in sized.files] == ["a/x.md"]
    assert bare.skipped == sized.skipped == []


def test_verify_scans_without_sorting_and_sees_the_same_files_and_skips(tmp_path, monkeypatch):
    """``gbrain verify`` scans each folder in the file system's order (``scan_tree(ordered=False)``:
    sorting every folder's entries by name was ~15% of the walk, and verify compares the tree
    with the brain as a set): the same files and abspaths as the ordered scan, with and without
    sizes, and the same skips with the same reasons, sorted by path, so the report does not
    depend on the file system's order."""
    from gbrain.operations import core as ops_core
    from gbrain.sync import scan as scan_mod

    root = tmp_path / "v"
    root.mkdir()
    _tree(root)
    for i in range(40):  # enough names that a directory's own order is not the sorted one
        (root / "b" / f"n{(i * 7919) % 97:03d}.md").write_bytes(b"# n\n")
    db = tmp_path / "brain.db"
    excl = db_excludes(db)
    for sizes in (True, False):
        ordered = scan_tree(root, exclude_abs=excl, sizes=sizes)
        loose = scan_tree(root, exclude_abs=excl, sizes=sizes, ordered=False)
        files = lambda s: sorted((f.path, f.abspath, f.size, f.mtime_ns) for f in s.files)  # noqa: E731
        assert files(loose) == files(ordered) and len(loose.files) == len(ordered.files) == 45
        assert loose.skipped == sorted(ordered.skipped) and len(loose.skipped) == 9

    seen = []
    real = scan_mod.scan_tree

    def spy(*a, **k):
        seen.append(k)
        return real(*a, **k)

    monkeypatch.setattr(scan_mod, "scan_tree", spy)
    with Brain.open(db) as b:
        from gbrain.sync.importer import import_tree

        import_tree(b, root)
        rep = ops_core._verify(b, {"dir": str(root)}, type("Ctx", (), {"progress_label": None, "on_progress": None})())
    assert rep["ok"], rep["problems"]
    assert seen and seen[-1].get("ordered") is False and seen[-1].get("sizes") is False
    assert [s["path"] for s in rep["skipped"]] == sorted(s["path"] for s in rep["skipped"])
