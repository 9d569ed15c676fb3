"""Editor backup, swap and lock files, atomic-save temp files, downloads in progress and system
metadata never reach the brain: not through `gbrain watch` (a real watchdog observer in a
subprocess on real files), not through `gbrain import`. A temp file that became a page (or a
stored file) for a moment would leave a creation and a deletion in the history.

Two kinds (``sync/scan.py``): temp names (:func:`gbrain.sync.scan.is_temp_name`), never part of
the brain; and the default ignore rules (:data:`gbrain.sync.scan.DEFAULT_IGNORE`), which
``.gbrainignore`` can undo (``!*.bak``): backups (``*.bak``, ``*.orig``) may be a person's own
files.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from gbrain.core.brain import Brain
from gbrain.sync.scan import DEFAULT_IGNORE, is_temp_name, load_ignore
from test_watch import Watch, settle, stop_ok, wait_for

#: names every watch and import leaves out (the folder's own files beside a note)
TEMP = [
    "note.md~",  # vim / emacs / nano backup
    ".note.md.swp", ".note.md.swx", ".note.md.swo",  # vim swap
    "#note.md#",  # emacs auto-save
    "4913",  # vim's write test
    "note.md.tmp", ".syncthing.note.md.tmp",  # atomic-save temps, Syncthing's
    "report.pdf.crdownload", "report.pdf.part",  # Chrome's and Firefox's downloads in progress
    ".goutputstream-Q1ZJ2Z",  # GIO's atomic replace (gedit, GNOME Text Editor)
    "note.md.kate-swp",  # Kate's swap
    "~syncthing~note.md.tmp",  # older Syncthing's download
    ".note.md.~1a2b3c",  # Nextcloud's and ownCloud's download in progress
]
#: names the default ignore rules leave out (a `!` line in .gbrainignore brings them back)
IGNORED = ["note.md.bak", "note.md.orig", ".DS_Store",
           # sync tools' files: Syncthing's, Dropbox's, Nextcloud's journal and log, iCloud's placeholder
           ".stignore", ".dropbox", ".dropbox.attr", ".sync_0123abcd.db", ".sync_0123abcd.db-wal",
           ".csync_journal.db", ".owncloudsync.log", ".note.md.icloud"]


def junk_tree(root):
    for name in TEMP + IGNORED:
        (root / "concepts" / name).write_bytes(b"# junk\n\nnot a note\n")
    (root / "concepts" / ".#note.md").symlink_to("root@host.4242:1700000000")  # emacs' lock


def stored(b: Brain) -> set[str]:
    """Every path the brain ever held a page or file at (its history)."""
    return {r[0] for r in b.conn.execute("SELECT path FROM history")} | {r[0] for r in b.conn.execute("SELECT path FROM files")}


@pytest.mark.engine_free
@pytest.mark.parametrize("name", TEMP)
def test_temp_names(name):
    assert is_temp_name(name)


@pytest.mark.engine_free
@pytest.mark.parametrize("name", ["notes.md", "4913.md", "backup.md", "temp.md", "a~b.md", "#tag.md", ".gbrainignore", "draft.tmpl", "part.md"])
def test_notes_are_not_temp_names(name):
    assert not is_temp_name(name)
    assert not load_ignore(Path("/nonexistent")).match_file(name)


@pytest.mark.engine_free
@pytest.mark.parametrize("name", ["stversions.md", "dropbox.md", "sync_notes.db.md", "note.icloud.md", ".icloud", "~notes.md", "a.~b.md"])
def test_notes_named_like_sync_tools_files_are_notes(name):
    assert not is_temp_name(name)
    assert not load_ignore(Path("/nonexistent")).match_file(name)


def test_sync_tools_folders_hold_no_pages(brain_tree, db_path, run):
    """Syncthing keeps old versions of notes in `.stversions/` (and marks the folder with
    `.stfolder/`), Dropbox its downloads in `.dropbox.cache/`: copies of notes that would become
    pages with the notes' titles. Ignored by default (listed as such), a negation brings one back
    (its notes as files: a hidden folder holds no pages)."""
    note = (brain_tree / "people" / "ana-lima.md").read_bytes()
    for d in (".stversions/people", ".dropbox.cache/2025-01-01", ".stfolder"):
        (brain_tree / d).mkdir(parents=True)
    (brain_tree / ".stversions/people/ana-lima~20250101-120000.md").write_bytes(note)
    (brain_tree / ".dropbox.cache/2025-01-01/ana-lima.md").write_bytes(note)
    (brain_tree / ".stfolder/syncthing-folder-abc123.txt").write_text("x", encoding="utf-8")
    r = run("sync", str(brain_tree), "--db", str(db_path), "--json")
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    why = dict((s["path"], s["reason"]) if isinstance(s, dict) else tuple(s) for s in rep.get("skipped", []))
    assert "Syncthing's old versions" in why.get(".stversions/", ""), rep
    assert ".dropbox.cache/" in why and ".stfolder/" in why, rep
    with Brain.open(db_path) as b:
        assert not {p for p in stored(b) if p.startswith((".stversions/", ".dropbox.cache/", ".stfolder/"))}
    (brain_tree / ".gbrainignore").write_text("!.stversions/\n", encoding="utf-8")
    r = run("sync", str(brain_tree), "--db", str(db_path))
    assert r.returncode == 0, r.stderr
    with Brain.open(db_path) as b:  # stored, byte for byte, as the hidden note it is: a file, no page (slugs.HIDDEN_WHY)
        assert b.page_row(".stversions/people/ana-lima~20250101-120000") is None
        assert b.conn.execute("SELECT kind FROM files WHERE path = ?", (".stversions/people/ana-lima~20250101-120000.md",)).fetchone()[0] == "blob"


@pytest.mark.engine_free
def test_backups_are_ignored_by_default_and_a_negation_brings_them_back(tmp_path, run):
    assert "*.bak" in DEFAULT_IGNORE and "*.orig" in DEFAULT_IGNORE
    root = tmp_path / "v"
    root.mkdir()
    (root / "keep.md").write_text("# Keep\n", encoding="utf-8")
    (root / "old.md.bak").write_text("# Old\n", encoding="utf-8")
    (root / "merge.md.orig").write_text("# Orig\n", encoding="utf-8")
    db = tmp_path / "b.db"
    r = run("import", str(root), "--db", str(db), "--json")
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    why = dict((s["path"], s["reason"]) if isinstance(s, dict) else tuple(s) for s in rep.get("skipped", []))
    assert "!*.bak" in why.get("old.md.bak", ""), rep  # the report says how to bring them in
    with Brain.open(db) as b:
        assert stored(b) == {"keep.md"}
    (root / ".gbrainignore").write_text("!*.bak\n!*.orig\n", encoding="utf-8")
    r = run("sync", str(root), "--db", str(db))
    assert r.returncode == 0, r.stderr
    with Brain.open(db) as b:
        assert {"old.md.bak", "merge.md.orig"} <= stored(b)


def test_import_leaves_them_out(brain_tree, db_path, run):
    junk_tree(brain_tree)
    r = run("import", str(brain_tree), "--db", str(db_path))
    assert r.returncode == 0, r.stderr
    with Brain.open(db_path) as b:
        assert not {p for p in stored(b) if p.startswith("concepts/") and p.rsplit("/", 1)[1] in TEMP + IGNORED + [".#note.md"]}


def test_watch_never_stores_them_even_for_a_moment(brain_tree, db_path):
    """Each name is written (and left there) while watch runs, then a note after them: once the
    note is in the brain every event before it was handled, and none of them left a version."""
    with Brain.open(db_path) as b:
        pass
    w = Watch(brain_tree, db_path)
    try:
        junk_tree(brain_tree)
        (brain_tree / "concepts" / "marker.md").write_text("# Marker\n", encoding="utf-8")
        with Brain.open(db_path) as b:
            wait_for(lambda: b.page_row("concepts/marker") is not None, "the marker note to reach the brain")
            settle(b, brain_tree)
            assert not {p for p in stored(b) if p.rsplit("/", 1)[-1] in TEMP + IGNORED + [".#note.md"]}, w.lines
            # an editor's save: backup, then write, then the backup goes
            note = brain_tree / "concepts" / "marker.md"
            for name in ("marker.md~", "marker.md.bak", ".goutputstream-ABC123", "marker.md.tmp"):
                (brain_tree / "concepts" / name).write_bytes(note.read_bytes())
            (brain_tree / "concepts" / ".goutputstream-ABC123").replace(note)
            (brain_tree / "concepts" / "marker.md.tmp").write_text("# Marker\n\nsaved\n", encoding="utf-8")
            (brain_tree / "concepts" / "marker.md.tmp").replace(note)
            for name in ("marker.md~", "marker.md.bak"):
                (brain_tree / "concepts" / name).unlink()
            wait_for(lambda: "saved" in (b.get_text("concepts/marker") or ""), "the save to reach the brain")
            settle(b, brain_tree)
            assert not {p for p in stored(b) if "marker.md." in p or "goutputstream" in p or p.endswith("~")}, w.lines
        assert stop_ok(w) is not None
    finally:
        w.kill()
