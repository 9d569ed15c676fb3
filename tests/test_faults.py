"""Faults of issue 11: emptied folders, damaged or read-only databases, full disks, crash
leftovers, hostile export folders and slugs that look like something else."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import shutil
from pathlib import Path

import pytest

from conftest import gbrain, gbrain_in_process, unmount
from gbrain import operations as ops
from gbrain.core.brain import Brain
from gbrain.core.history import trash_list
from gbrain.errors import GBrainError
from gbrain.sync.engine import MASS_TRASH, MassDeleteRefused, SyncEngine


def notes(root: Path, folder: str, n: int) -> None:
    d = root / folder if folder else root
    d.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        (d / f"n{i}.md").write_text(f"# Note {i}\n\nin {folder or 'root'}\n", encoding="utf-8")


# ---- 2. the empty-folder guard -------------------------------------------------------------


@pytest.mark.engine_free
@pytest.mark.parametrize("left", ["nothing", "ds_store", "obsidian"])
def test_root_with_only_non_markdown_left_is_refused_until_confirmed(tmp_path, left):
    root, db = tmp_path / "v", tmp_path / "b.db"
    notes(root, "", MASS_TRASH + 5)
    notes(root, "sub", 3)
    assert gbrain("sync", str(root), "--db", str(db)).returncode == 0
    shutil.rmtree(root)
    root.mkdir()
    if left == "ds_store":
        (root / ".DS_Store").write_bytes(b"\0\0\0\1Bud1")
    elif left == "obsidian":
        (root / ".obsidian").mkdir()
        (root / ".obsidian" / "app.json").write_text("{}")
    r = gbrain("sync", str(root), "--db", str(db))
    err = r.stderr.decode()
    assert r.returncode == 1 and len(err.strip().splitlines()) == 1, err
    assert "every synced note is gone" in err and "--confirm-delete" in err
    with Brain.open(db) as b:
        assert b.stats()["pages"] == MASS_TRASH + 8
        assert trash_list(b) == []
    # the error's own advice works
    r = gbrain("sync", str(root), "--confirm-delete", "--db", str(db))
    assert r.returncode == 0, r.stderr.decode()
    with Brain.open(db) as b:
        assert b.stats()["pages"] == 0
        assert len([t for t in trash_list(b, limit=0) if t["kind"] == "page" and t["deleted"]]) == MASS_TRASH + 8


@pytest.mark.engine_free
def test_emptied_subfolder_is_refused_but_the_rest_of_the_tree_is_not_blocked_forever(tmp_path):
    """An unmounted sub-volume: `archive/` is an empty folder now, the root still has notes."""
    root, db = tmp_path / "v", tmp_path / "b.db"
    notes(root, "", 4)
    notes(root, "archive/2024", MASS_TRASH + 1)
    with Brain.open(db) as b:
        eng = SyncEngine(b, root)
        eng.bind()
        assert eng.sync()["ok"]
        shutil.rmtree(root / "archive")
        (root / "archive").mkdir()
        (root / "n0.md").unlink()
        with pytest.raises(MassDeleteRefused, match="archive"):
            eng.sync()
        assert b.stats()["pages"] == 4 + MASS_TRASH + 1  # nothing happened, not even n0
        # a partial round (watch) judges the folder by looking at it on disk
        paths = [f"archive/2024/n{i}.md" for i in range(MASS_TRASH + 1)]
        with pytest.raises(MassDeleteRefused):
            eng.reconcile(paths=paths)
        eng.confirm_delete = True
        assert eng.sync()["counts"]["trashed"] == MASS_TRASH + 2
        eng.close()


@pytest.mark.engine_free
def test_many_notes_deleted_while_others_stay_in_the_folder_is_not_a_vanished_tree(tmp_path):
    """25 of 60: many, but not most of the folder (most of it at once is refused:
    tests/test_mass_delete.py)."""
    root, db = tmp_path / "v", tmp_path / "b.db"
    notes(root, "", MASS_TRASH * 3)
    with Brain.open(db) as b:
        eng = SyncEngine(b, root)
        eng.bind()
        eng.sync()
        for i in range(MASS_TRASH + 5):
            (root / f"n{i}.md").unlink()
        assert eng.sync()["counts"]["trashed"] == MASS_TRASH + 5
        eng.close()


@pytest.mark.engine_free
def test_deleting_the_last_notes_of_a_small_vault_one_by_one_never_gets_stuck(tmp_path):
    root, db = tmp_path / "v", tmp_path / "b.db"
    notes(root, "", 3)
    (root / "pic.png").write_bytes(b"\x89PNG")
    assert gbrain("sync", str(root), "--db", str(db)).returncode == 0
    for f in ["n0.md", "n1.md", "pic.png", "n2.md"]:
        (root / f).unlink()
        r = gbrain("sync", str(root), "--db", str(db))
        assert r.returncode == 0, (f, r.stderr.decode())
    assert sorted(os.listdir(root)) == []
    r = gbrain("sync", str(root), "--db", str(db))  # nothing left to trash: still fine
    assert r.returncode == 0, r.stderr.decode()


# ---- 3. a damaged brain.db ---------------------------------------------------------------------
# The tests of what commands answer on a damaged brain run them in this process
# (``gbrain_in_process``: the same exit codes and bytes, without a process's start-up, ~0.2 CPU-s a
# command): they waited on nothing (strace), their time was ~10 start-ups each. A crash of SQLite's
# C code on a damaged file would take the test run down, loudly.


def damage(db: Path, at: float = 0.5, n: int = 4096 * 3) -> None:
    """Overwrite ``n`` bytes at the middle of the file with random bytes (a bad sector, a torn copy)."""
    size = db.stat().st_size
    with open(db, "r+b") as f:
        f.seek(int(size * at) // 4096 * 4096)
        f.write(os.urandom(n))


def page_rows_at(db: Path) -> float:
    """Where the middle database page of the ``pages`` table lies, as a fraction of the file (for
    :func:`damage`): what is in the middle of the file depends on the order rows were written."""
    import sqlite3

    c = sqlite3.connect(db)
    try:
        nos = sorted(r[0] for r in c.execute("SELECT pageno FROM dbstat WHERE name = 'pages'"))
        n = c.execute("PRAGMA page_count").fetchone()[0]
    finally:
        c.close()
    return (nos[len(nos) // 2] - 1) / n


def stored_once(data: bytes, text: str, n: int) -> bytes:
    """``n`` bytes of ``text`` (a page's compiled truth) found exactly once in the database file
    ``data``: the page row's own copy. Since v39 the indexed copy (``search_body``) repeats the
    text with link addresses blanked, so a slice holding an address is the row's alone."""
    raw = text.encode()
    for i in range(0, max(1, len(raw) - n + 1)):
        part = raw[i:i + n]
        if len(part) == n and data.count(part) == 1:
            return part
    raise AssertionError("no slice of the page's text is stored once")


def one_line_error(r) -> str:
    err = r.stderr.decode()
    assert "Traceback" not in err, err
    lines = [x for x in err.splitlines() if x.startswith("error:")]
    assert len(lines) == 1, err
    return lines[0]


@pytest.fixture
def brain300(tmp_path):
    from conftest import make_brain

    tree = make_brain(tmp_path / "tree", 300)
    db = tmp_path / "b.db"
    with Brain.open(db) as b:
        from gbrain.sync.importer import import_tree

        import_tree(b, tree)
    return tree, db


@pytest.mark.engine_free
def test_damaged_db_refuses_writes_says_how_to_recover_and_export_saves_what_is_readable(tmp_path, brain300):
    tree, db = brain300
    damage(db, page_rows_at(db))  # in the page rows: export must meet it
    r = gbrain_in_process("put", "people/new-one", "--db", str(db), input="# New\n")
    line = one_line_error(r)
    assert r.returncode == 1 and "is damaged" in line and "gbrain export" in line and "gbrain import" in line
    r = gbrain_in_process("tag", "people/" + sorted(p for p in os.listdir(tree / "people") if p.endswith(".md"))[0][:-3], "x", "--db", str(db))
    assert r.returncode == 1 and "is damaged" in one_line_error(r)
    r = gbrain_in_process("check", "--db", str(db))
    assert r.returncode == 1 and "DAMAGED" in r.stdout.decode()
    r = gbrain_in_process("verify", str(tree), "--db", str(db))
    assert r.returncode == 1 and "is damaged" in one_line_error(r)
    out = tmp_path / "saved"
    r = gbrain_in_process("export", "--dir", str(out), "--db", str(db))
    line = one_line_error(r)
    assert r.returncode == 1 and "readable file(s)" in line
    saved = [p for p in out.rglob("*") if p.is_file()]
    assert len(saved) > 100
    for p in saved:  # what was saved is exact
        assert p.read_bytes() == (tree / p.relative_to(out)).read_bytes()


@pytest.mark.engine_free
def test_a_sound_db_passes_check_and_verify(brain300):
    tree, db = brain300
    r = gbrain("check", "--db", str(db))
    assert r.returncode == 0 and "OK" in r.stdout.decode()


@pytest.mark.engine_free
def test_zero_byte_db_file_is_not_silently_a_new_brain(tmp_path):
    db = tmp_path / "empty.db"
    db.write_bytes(b"")
    for argv in (["stats"], ["put", "a"], ["import", str(tmp_path)]):
        r = gbrain(*argv, "--db", str(db), input="# A\n")
        assert r.returncode == 2 and "empty file (0 bytes)" in one_line_error(r), argv
        assert db.stat().st_size == 0
    r = gbrain("init", str(db))
    assert r.returncode == 0 and "created" in r.stdout.decode()
    assert gbrain("stats", "--db", str(db)).returncode == 0


KILLED_WRITER = """
import os, signal, sys
from gbrain.core.brain import Brain
b = Brain.open(sys.argv[1])
b.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
b.put("notes/last", "# Last\\n")   # a write left in the WAL
os.kill(os.getpid(), signal.SIGKILL)
"""


@pytest.mark.engine_free
def test_open_after_an_unclean_shutdown_checks_the_file(tmp_path, brain300):
    tree, db = brain300
    r = __import__("subprocess").run([__import__("sys").executable, "-c", KILLED_WRITER, str(db)], capture_output=True)
    assert r.returncode == -9
    assert os.path.getsize(str(db) + "-wal") > 0
    damage(db)
    r = gbrain("get", "notes/last", "--db", str(db))  # a read still answers, with a warning
    assert r.returncode == 0 and r.stdout.decode() == "# Last\n"
    assert "is damaged" in r.stderr.decode() and "gbrain check" in r.stderr.decode()


@pytest.fixture(scope="module")
def clean_closed(tmp_path_factory):
    """A 200-page brain imported and closed cleanly (no WAL left), and the answers of every read
    command on it: what a damaged copy must either give exactly or refuse (the commands run in
    this process, as the damaged copies' do: :func:`conftest.gbrain_in_process`)."""
    from conftest import make_brain
    from gbrain.sync.importer import import_tree

    d = tmp_path_factory.mktemp("clean")
    tree = make_brain(d / "tree", 200)
    db = d / "clean.db"
    with Brain.open(db) as b:
        import_tree(b, tree)
        slugs = [r[0] for r in b.conn.execute("SELECT slug FROM pages ORDER BY id")]
    assert not os.path.exists(str(db) + "-wal") or os.path.getsize(str(db) + "-wal") == 0
    reads = [["get", slugs[0]], ["get", slugs[len(slugs) // 2]], ["get", slugs[-1]], ["search", "robotics"], ["list"], ["stats"],
             ["backlinks", slugs[1]], ["tags"]]
    want = {tuple(c): gbrain_in_process(*c, "--db", str(db)) for c in reads}
    assert all(r.returncode == 0 for r in want.values())
    return tree, db, want


# Known limit (issue 11 item 3, left open): derived rows carry no hash of their own, so bytes that
# land inside them without breaking SQLite's structure can change an answer built from them
# (here `backlinks` shows a link context with one byte changed); `gbrain check` finds the file
# damaged. Pages and files are covered by their stored hashes.
DERIVED_ROWS_HIT = pytest.mark.xfail(reason="damage inside derived rows (a link's context) is not detected by backlinks", strict=False)


# Open (found after rebasing onto v9's covering indexes; not fixed before the deadline): with 8 KiB
# at 15% a read command exits 1 without the one "damaged" line; at 30% a read command ends in a
# traceback (KeyError in the fast path of gbrain/entry.py).


@pytest.mark.engine_free
# (which offsets land in the link rows depends on the file's layout: since v35 the sidecars' first
# versions are no copies in history_bodies, the file is smaller, and 30% lands where 45% did;
# since v36's index of the history's times, 15% lands in a link's context too)
@pytest.mark.parametrize("at,n", [(at, n) for at in (0.15, 0.3, 0.45, 0.6, 0.75, 0.9) for n in (64, 4096 * 2) if (at, n) not in ((0.15, 8192), (0.3, 8192), (0.45, 8192))]
                         + [pytest.param(0.15, 8192, marks=DERIVED_ROWS_HIT), pytest.param(0.3, 8192, marks=DERIVED_ROWS_HIT),
                            pytest.param(0.45, 8192, marks=DERIVED_ROWS_HIT)])
def test_random_bytes_in_a_cleanly_closed_brain_never_give_a_wrong_answer_or_a_traceback(tmp_path, clean_closed, at, n):
    """Issue 11 item 3: random bytes written into the middle of a brain.db closed cleanly. Each
    read command either answers exactly as on the sound file, or exits 1 with one line saying the
    brain is damaged and how to recover; export saves only rows whose text matches its stored hash
    and names the rest; a write is refused when SQLite finds the file malformed."""
    import random

    tree, clean, want = clean_closed
    db = tmp_path / "d.db"
    shutil.copy(clean, db)
    size = db.stat().st_size
    rng = random.Random(f"{at}-{n}")
    with open(db, "r+b") as f:
        f.seek(int(size * at) // 4096 * 4096 + rng.randrange(0, 4096 - 64))
        f.write(rng.randbytes(n))
    for argv, good in want.items():
        r = gbrain_in_process(*argv, "--db", str(db))
        if r.returncode == 0:
            assert r.stdout == good.stdout, (argv, "a wrong answer from a damaged brain")
        else:
            line = one_line_error(r)
            assert r.returncode == 1 and "is damaged" in line and "gbrain export" in line, (argv, line)
    out = tmp_path / "saved"
    r = gbrain_in_process("export", "--dir", str(out), "--db", str(db))
    if r.returncode != 0:
        line = one_line_error(r)
        assert r.returncode == 1 and "is damaged" in line, line
    for p in (x for x in out.rglob("*") if x.is_file()):  # what export saved is exact
        assert p.read_bytes() == (tree / p.relative_to(out)).read_bytes(), p
    if r.returncode == 0:
        assert sorted(x.relative_to(out) for x in out.rglob("*") if x.is_file()) == sorted(x.relative_to(tree) for x in tree.rglob("*") if x.is_file())
    with Brain.open(db, create=False) as b:
        malformed = __import__("gbrain.storage.db", fromlist=["quick_check"]).quick_check(b.conn)
    r = gbrain_in_process("put", "notes/new-one", "--db", str(db), input="# New\n")
    if malformed:
        assert r.returncode == 1 and "is damaged" in one_line_error(r)


@pytest.mark.engine_free
def test_a_page_whose_bytes_changed_inside_the_file_is_not_returned_as_good(tmp_path, clean_closed):
    """Random bytes that land inside a page's text leave SQLite's structure sound (quick_check
    passes), so only the hash stored with the row can tell: get refuses the page with one line,
    export saves every other file and names the damaged one."""
    import sqlite3

    tree, clean, _ = clean_closed
    db = tmp_path / "d.db"
    shutil.copy(clean, db)
    c = sqlite3.connect(db)
    slug, path, body = c.execute("SELECT slug, path, compiled_truth FROM pages WHERE length(compiled_truth) > 200 ORDER BY id LIMIT 1").fetchone()
    c.close()
    data = db.read_bytes()
    at = data.find(stored_once(data, body, 60))
    assert at > 0
    with open(db, "r+b") as f:
        f.seek(at + 10)
        f.write(b"QQQQ")
    r = gbrain("get", slug, "--db", str(db))
    line = one_line_error(r)
    assert r.returncode == 1 and "is damaged" in line and repr(slug) in line
    out = tmp_path / "saved"
    r = gbrain("export", "--dir", str(out), "--db", str(db))
    line = one_line_error(r)
    assert r.returncode == 1 and "is damaged" in line and path in line
    assert not (out / path).exists()
    saved = sorted(x.relative_to(out) for x in out.rglob("*") if x.is_file())
    assert saved == sorted(x.relative_to(tree) for x in tree.rglob("*") if x.is_file() and x.relative_to(tree).as_posix() != path)
    for p in saved:
        assert (out / p).read_bytes() == (tree / p).read_bytes()


def _damage_ana(tmp_path, brain_tree) -> str:
    """A brain of fixtures/brain whose people/ana-lima text was changed in place (its stored
    content_hash left as it was): what random bytes inside the text do, without the randomness."""
    import sqlite3

    db = str(tmp_path / "hb.db")
    assert gbrain_in_process("import", str(brain_tree), "--db", db).returncode == 0
    c = sqlite3.connect(db)
    c.execute("UPDATE pages SET compiled_truth = replace(compiled_truth, 'Co-founder', 'Co-fXunder') WHERE slug = 'people/ana-lima'")
    c.commit()
    c.close()
    return db


@pytest.mark.engine_free
@pytest.mark.parametrize("args", [
    ["tag", "ana-lima", "x"], ["untag", "ana-lima", "founder"], ["link", "ana-lima", "concepts/hybrid-retrieval"], ["unlink", "ana-lima", "companies/river-ai"],
    ["timeline-add", "ana-lima", "--date", "2025-01-01", "--summary", "met"],
    ["put", "ana-lima", "--timeline-append", "- **2025-01-01** | met"],
])
def test_a_partial_write_to_a_page_whose_text_fails_its_hash_is_refused(tmp_path, brain_tree, args):
    db = _damage_ana(tmp_path, brain_tree)
    versions = gbrain_in_process("history", "ana-lima", "--db", db, "--json").stdout
    r = gbrain_in_process(*args, "--db", db)
    line = one_line_error(r)
    assert r.returncode == 1 and "is damaged" in line and "'people/ana-lima'" in line and "nothing was written" in line, line
    assert gbrain_in_process("history", "ana-lima", "--db", db, "--json").stdout == versions
    assert gbrain_in_process("get", "ana-lima", "--db", db).returncode == 1  # still refused, not made good


@pytest.mark.engine_free
def test_check_names_pages_whose_text_fails_its_hash(tmp_path, brain_tree):
    db = _damage_ana(tmp_path, brain_tree)
    r = gbrain_in_process("check", "--db", db)
    assert r.returncode == 1 and b"people/ana-lima" in r.stdout + r.stderr, r
    assert b"1 page(s)" in r.stdout + r.stderr


@pytest.mark.engine_free
def test_a_full_put_repairs_a_damaged_page_and_keeps_the_damaged_text_in_the_history(tmp_path, brain_tree):
    db = _damage_ana(tmp_path, brain_tree)
    good = (brain_tree / "people" / "ana-lima.md").read_bytes()
    r = gbrain_in_process("put", "ana-lima", "--db", db, input=good)  # the same bytes as the stored hash
    assert r.returncode == 0, r.stderr
    assert gbrain_in_process("get", "ana-lima", "--db", db).stdout == good
    assert gbrain_in_process("check", "--db", db).returncode == 0
    trash = json.loads(gbrain_in_process("trash", "--json", "--db", db).stdout)
    kept = [t for t in trash if t["slug"] == "people/ana-lima"]
    assert kept and "damaged" in kept[0]["reason"]
    old = gbrain_in_process("get", "ana-lima", "--version", str(kept[0]["version"]), "--db", db).stdout
    assert b"Co-fXunder" in old


# ---- 4. full disk and read-only ------------------------------------------------------------------


def _mount(args: list[str]) -> bool:
    import subprocess

    if os.geteuid() != 0:
        return False
    return subprocess.run(["mount", *args], capture_output=True).returncode == 0


@pytest.fixture
def tiny_fs(tmp_path):
    mnt = tmp_path / "tiny"
    mnt.mkdir()
    if not _mount(["-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mnt)]):
        pytest.skip("needs root to mount a small tmpfs")
    yield mnt
    unmount(mnt)


@pytest.mark.engine_free
def test_full_disk_during_import_is_one_clear_line_and_the_brain_stays_sound(tmp_path, tiny_fs):
    from conftest import make_brain

    tree = make_brain(tmp_path / "tree", 300)
    db = tiny_fs / "b.db"
    r = gbrain("import", str(tree), "--db", str(db))
    line = one_line_error(r)
    assert r.returncode == 1 and "is full" in line and "cannot rollback" not in r.stderr.decode()
    with Brain.open(db) as b:  # what was committed before is intact
        assert not __import__("gbrain.sync.verify", fromlist=["x"]).db_integrity(b, full=True)


@pytest.mark.engine_free
def test_full_vault_during_sync_is_one_clear_line(tmp_path, tiny_fs):
    db = tmp_path / "b.db"
    (tiny_fs / "a.md").write_text("# A\n")
    assert gbrain("sync", str(tiny_fs), "--db", str(db)).returncode == 0
    with Brain.open(db) as b:
        b.put("big", "# Big\n\n" + "word " * 400_000)  # 2 MB: does not fit
    r = gbrain("sync", str(tiny_fs), "--db", str(db))
    line = one_line_error(r)
    assert r.returncode == 1 and "no space left" in line
    assert not [p for p in os.listdir(tiny_fs) if p.startswith(".gbrain-tmp-")]


@pytest.mark.engine_free
def test_sync_on_a_brain_whose_disk_is_full_at_start_is_one_clear_line_not_damage(tmp_path, small_fs):
    """A one-shot `sync` started on a full disk says the disk is full and exits 1. (It said
    "is damaged (SQLite: database is locked)" with advice to rebuild the brain: the quick_check
    beside the walk could not read past the full-disk connection's exclusive lock.)"""
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "a.md").write_text("# A\n")
    db = small_fs / "b.db"
    assert gbrain("sync", str(tree), "--db", str(db)).returncode == 0
    (tree / "b.md").write_text("# B\n")
    filler = fill(small_fs, 0)
    for _ in range(2):  # the second run finds the first one's WAL index file
        r = gbrain("sync", str(tree), "--db", str(db))
        line = one_line_error(r)
        assert r.returncode == 1 and "is full" in line and "damaged" not in line, line
    filler.unlink()
    r = gbrain("sync", str(tree), "--db", str(db))
    assert r.returncode == 0, r.stderr
    assert gbrain("get", "b", "--db", str(db)).stdout == b"# B\n"


#: a `gbrain` process whose SQLite busy timeout is this short (ms; the product's is
#: ``db.BUSY_TIMEOUT_MS``, 10 s): a test that must sit through it (an open behind a full disk's
#: reader) waits 1 s, not 10
SHORT_BUSY_MS = 1000


def short_busy_gbrain(*args: str, input: str | None = None) -> subprocess.CompletedProcess:
    """:func:`conftest.gbrain`, the process's busy timeout :data:`SHORT_BUSY_MS`."""
    code = f"from gbrain.storage import db; db.BUSY_TIMEOUT_MS = {SHORT_BUSY_MS}; from gbrain.entry import main; main()"
    return subprocess.run([sys.executable, "-c", code, *args], input=input.encode() if input is not None else None, capture_output=True, timeout=300)


@pytest.mark.engine_free
def test_a_brain_a_full_disk_reader_holds_alone_is_named_so_not_unusable(tmp_path, small_fs):
    """Busy-wait edges, item 2: a gbrain process that opens the brain on a full disk reads it
    alone (``db._connect_on_full_disk``: no room for the WAL index, SQLite's exclusive locking
    mode), keeping every other process off the file until it ends. A process that opened the
    brain before cannot meet it (its own WAL index lets the late reader open normally: its write
    then fails at once, "the disk … is full"), so ``begin_write`` never waits behind it; a process
    that opens the brain meanwhile waits SQLite's busy timeout at its open and said "… is not a
    usable brain database: database is locked", as if the file were not a brain. It says the
    disk is full and another process holds the brain alone; once there is space again (that
    process still running) that the brain is busy, kind ``busy``."""
    import select

    db = small_fs / "b.db"
    assert gbrain("put", "people/ana", "--db", str(db), input="# Ana\n\nA.\n").returncode == 0
    filler = fill(small_fs, 0)
    reader = subprocess.Popen([sys.executable, "-m", "gbrain", "--db", str(db), "pipe"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
    try:
        reader.stdin.write(json.dumps({"id": 1, "tool": "brain_get", "params": {"slug": "people/ana"}}).encode() + b"\n")
        reader.stdin.flush()
        assert select.select([reader.stdout], [], [], 120)[0], "the reader said nothing"
        assert json.loads(reader.stdout.readline())["ok"]  # (it holds the file now: a full disk's reader)
        r = short_busy_gbrain("put", "people/ana", "--json", "--db", str(db), input="# Ana\n\nB.\n")  # (it waits its busy timeout)
        err = json.loads(r.stdout)
        assert r.returncode == 1 and "not a usable" not in err["error"], err
        assert "is full" in err["error"] and "another gbrain process" in err["error"] and "alone" in err["error"], err
        filler.unlink()
        r = short_busy_gbrain("put", "people/ana", "--json", "--db", str(db), input="# Ana\n\nB.\n")
        err = json.loads(r.stdout)
        assert r.returncode == 1 and err["kind"] == "busy" and "holds it alone" in err["error"] and "not a usable" not in err["error"], err
    finally:
        reader.stdin.close()
        reader.wait(timeout=120)
    assert gbrain("put", "people/ana", "--db", str(db), input="# Ana\n\nB.\n").returncode == 0


@pytest.mark.engine_free
def test_an_open_that_waited_out_another_writer_to_upgrade_the_schema_is_busy_not_a_brain_held_alone(tmp_path, monkeypatch):
    """Review of d646f5c: ``db.held_alone`` named every busy at open a full disk's reader holding
    the brain alone ("another process holds it alone past this one's wait of 10 s (a gbrain
    process that opened it while its disk was full …)"). An open whose schema upgrade waited
    out :func:`begin_write` (``WRITE_WAIT_S``, 300 s) behind another process's write (that
    process's own upgrade of a big brain, an import) meets a writer, not such a reader: kind
    busy, saying another process was writing, never a full disk's reader nor the 10 s."""
    import sqlite3

    from gbrain.errors import Busy
    from gbrain.storage import db as dbmod

    db = tmp_path / "b.db"
    Brain.open(db).close()
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute(f"PRAGMA user_version = {dbmod.SCHEMA_VERSION - 1}")  # (this process must upgrade it)
    holder.execute("BEGIN IMMEDIATE")  # another process writes (upgrades) it
    monkeypatch.setattr(dbmod, "WRITE_WAIT_S", 0.1)
    try:
        with pytest.raises(Busy) as e:
            dbmod.connect(db)
    finally:
        holder.execute("ROLLBACK")
        holder.execute(f"PRAGMA user_version = {dbmod.SCHEMA_VERSION}")
        holder.close()
    msg = str(e.value)
    assert "alone" not in msg and "disk" not in msg and "10 s" not in msg, msg
    assert "writing" in msg and "upgrade" in msg, msg


@pytest.fixture
def read_only_brain(tmp_path, brain300):
    tree, db = brain300
    mnt = tmp_path / "ro"
    mnt.mkdir()
    if not _mount(["--bind", str(db.parent), str(mnt)]):
        pytest.skip("needs root for a read-only bind mount")
    if not _mount(["-o", "remount,ro,bind", str(mnt)]):
        unmount(mnt)
        pytest.skip("cannot remount read-only")
    yield tree, mnt / "b.db"
    unmount(mnt)


@pytest.mark.engine_free
def test_read_commands_work_on_a_read_only_mount_and_writes_get_one_line(read_only_brain):
    tree, db = read_only_brain
    slug = "people/" + sorted(p for p in os.listdir(tree / "people") if p.endswith(".md"))[0][:-3]
    for argv in (["stats"], ["get", slug], ["search", "the"], ["list"], ["backlinks", slug], ["check"], ["verify", str(tree)]):
        r = gbrain(*argv, "--db", str(db))
        assert r.returncode == 0, (argv, r.stderr.decode())
    assert gbrain("get", slug, "--db", str(db)).stdout == (tree / (slug + ".md")).read_bytes()
    for argv in (["tag", slug, "x"], ["put", "notes/n"], ["timeline-add", slug, "--date", "2025-01-01", "--summary", "s"]):
        r = gbrain(*argv, "--db", str(db), input="# N\n")
        assert r.returncode == 1 and "is read-only" in one_line_error(r), argv


# ---- 7. slugs that look like something else ------------------------------------------------------


@pytest.mark.engine_free
@pytest.mark.parametrize("slug", ["people/x\n", "people/x\r", "\npeople/x", "people/\u202egpj.exe", "a\u200bb", "x\ty", "\u2066x\u2069", "x\u00ady", "x\u2028y", "x\x7fy", "x\u0085y"])
def test_slugs_with_control_bidi_or_invisible_characters_are_refused(tmp_path, slug):
    db = str(tmp_path / "b.db")
    with pytest.raises(GBrainError) as e:
        ops.run("put", {"slug": slug, "content": "# X\n"}, ops.Context(db=db))
    assert e.value.exit_code == 2 and "invisible or control character" in str(e.value)
    with Brain.open(db) as b:
        assert b.stats()["pages"] == 0


@pytest.mark.engine_free
def test_emoji_and_joiners_stay_valid_slugs(tmp_path):
    db = str(tmp_path / "b.db")
    for slug in ["notes/family-\U0001F468\u200d\U0001F469\u200d\U0001F467", "notes/\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"]:
        assert ops.run("put", {"slug": slug, "content": "# X\n"}, ops.Context(db=db))["created"]
    r = gbrain("put", "people/x\n", "--db", db, input="# X\n")
    assert r.returncode == 2 and "U+000A" in r.stderr.decode()


ON_DISK = ["people/x\u202egpj.md", "people/a\u200bb.md", "notes/\u2066y\u2069.md", "notes/soft\u00adhyphen.md", "notes/bom\ufeff.md", "notes/ltr\u200emark.md"]


@pytest.mark.engine_free
@pytest.mark.parametrize("how", ["import", "sync"])
def test_files_named_with_bidi_or_invisible_characters_are_kept_as_files_not_pages(tmp_path, how):
    """Issue 11 item 7, files already on disk: a note whose name holds a right-to-left override,
    a zero-width or another bidi/invisible character is not silently a page with that slug: it
    is kept byte for byte as a file (with a warning naming the character) and exported back."""
    v = tmp_path / "v"
    (v / "people").mkdir(parents=True)
    (v / "notes").mkdir()
    (v / "people/ok.md").write_text("# Ok\n")
    for i, name in enumerate(ON_DISK):
        (v / name).write_bytes(f"# Evil {i}\n".encode())
    db = str(tmp_path / "b.db")
    r = gbrain(how, str(v), "--db", db)
    assert r.returncode == 0, r.stderr.decode()
    out = r.stdout.decode() + r.stderr.decode()
    for name in ON_DISK:  # named with the character shown as an escape, never printed raw
        shown = "".join(c if c.isprintable() else f"\\u{ord(c):04x}" for c in name)
        assert shown in out and name not in out, (shown, out)
    assert "invisible or control character" in out
    with Brain.open(db) as b:
        assert [r[0] for r in b.conn.execute("SELECT slug FROM pages")] == ["people/ok"]
        assert sorted(r[0] for r in b.conn.execute("SELECT path FROM files")) == sorted(ON_DISK)
    back = tmp_path / "back"
    assert gbrain("export", "--dir", str(back), "--db", db).returncode == 0
    for i, name in enumerate(ON_DISK):
        assert (back / name).read_bytes() == f"# Evil {i}\n".encode()
    r = gbrain("verify", str(v), "--db", db)
    assert r.returncode == 0, r.stdout.decode()


# ---- 5. crash leftovers ------------------------------------------------------------------------


@pytest.mark.engine_free
def test_a_conflict_copy_left_by_a_killed_sync_is_taken_not_duplicated(tmp_path, monkeypatch):
    from gbrain.sync import engine as engmod
    from gbrain.sync.engine import conflict_list

    root, db = tmp_path / "v", tmp_path / "b.db"
    notes(root, "", 2)
    with Brain.open(db) as b:
        eng = SyncEngine(b, root)
        eng.bind()
        eng.sync()
        (root / "n0.md").write_text("# Note 0\n\nedited in the folder\n")
        b.put("n0", "# Note 0\n\nedited in the brain\n")

        def die(*a, **k):  # the process dies after writing the copy, before its transaction
            raise KeyboardInterrupt

        monkeypatch.setattr(engmod.SyncEngine, "_db_side_in_tx", die)
        with pytest.raises(KeyboardInterrupt):
            eng.sync()
        monkeypatch.undo()
        copies = sorted(p.name for p in root.glob("n0.conflict-*"))
        assert len(copies) == 1
        rep = eng.sync()
        assert rep["ok"] and rep["counts"]["conflicts"] == 1, rep["problems"]
        assert sorted(p.name for p in root.glob("n0.conflict-*")) == copies  # no second copy
        assert any("died" in c for c in rep["cleaned"])
        assert [c["copy_path"] for c in conflict_list(b)] == copies
        assert (root / copies[0]).read_text() == "# Note 0\n\nedited in the brain\n"
        eng.close()


@pytest.mark.engine_free
def test_conflicts_lists_a_copy_without_a_record(tmp_path):
    from gbrain.sync.engine import conflict_list

    db = tmp_path / "b.db"
    with Brain.open(db) as b:
        b.put("people/ana", "# Ana\n")
        b.put("people/ana.conflict-20260101T101010", "# Ana (brain)\n")
        assert [(c["path"], c["copy_path"], c["status"]) for c in conflict_list(b)] == [("people/ana.md", "people/ana.conflict-20260101T101010.md", "open")]


@pytest.mark.engine_free
def test_partial_temp_files_of_a_dead_run_are_cleaned_and_listed(tmp_path):
    import subprocess
    import sys

    root, db = tmp_path / "v", tmp_path / "b.db"
    notes(root, "sub", 2)
    assert gbrain("sync", str(root), "--db", str(db)).returncode == 0
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True).stdout.strip()
    partial = root / "sub" / f".gbrain-tmp-{dead}-123456"
    partial.write_bytes(b"# Note 1\n\nin s")  # torn: the writer was killed mid-write
    alive = root / f".gbrain-tmp-{os.getpid()}-42"  # a live writer's temp file stays
    alive.write_bytes(b"x")
    r = gbrain("sync", str(root), "--db", str(db))
    assert r.returncode == 0, r.stderr.decode()
    assert not partial.exists() and alive.exists()
    assert f"Cleaned: sub/{partial.name}" in r.stdout.decode()


# ---- 6. export never writes through a symlink it did not create -----------------------------------


def test_export_into_a_folder_with_symlinks_writes_nothing_outside(tmp_path, fixture_db):
    out, outside = tmp_path / "out", tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.md").write_text("mine\n")
    out.mkdir()
    (out / "people").symlink_to(outside, target_is_directory=True)  # a symlinked subfolder in --dir
    (out / "companies").mkdir()
    with Brain.open(fixture_db) as b:
        slug = b.conn.execute("SELECT slug FROM pages WHERE slug LIKE 'companies/%' LIMIT 1").fetchone()[0]
    (out / f"{slug}.md").symlink_to(outside / "keep.md")  # a symlinked file
    r = gbrain("export", "--dir", str(out), "--db", str(fixture_db))
    assert r.returncode == 1
    assert sorted(os.listdir(outside)) == ["keep.md"] and (outside / "keep.md").read_text() == "mine\n"
    assert (out / f"{slug}.md").is_symlink()
    assert "does not write through links" in (r.stdout + r.stderr).decode()
    assert any((out / "concepts").rglob("*.md"))  # the rest of the tree was written


# ---- 8. known open ends: fixed, or limits with nothing lost -----------------------------------------


def _engine(tmp_path, files: dict[str, str]):
    root, db = tmp_path / "v", tmp_path / "b.db"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    b = Brain.open(db)
    eng = SyncEngine(b, root)
    eng.bind()
    assert eng.sync()["ok"]
    return b, eng, root


@pytest.mark.engine_free
def test_limit_rename_plus_edit_leaves_the_sidecar_under_the_old_name_and_loses_nothing(tmp_path):
    """A file renamed *and* edited between syncs is a delete plus a new page (no content to match
    the move by); the `.raw` sidecar stays where it was, as a file, with its bytes."""
    sidecar = '{"sources": {"crm": {"id": 7}}}'
    b, eng, root = _engine(tmp_path, {"people/ana.md": "# Ana\n", "people/.raw/ana.json": sidecar})
    os.rename(root / "people/ana.md", root / "people/ana-lima.md")
    (root / "people/ana-lima.md").write_text("# Ana Lima\n")
    rep = eng.sync()
    assert rep["ok"], rep["problems"]
    assert (root / "people/.raw/ana.json").read_text() == sidecar  # kept on disk…
    assert bytes(b.conn.execute("SELECT data FROM files WHERE path = 'people/.raw/ana.json'").fetchone()[0]).decode() == sidecar  # …and in the brain
    assert [t["slug"] for t in trash_list(b, limit=0) if t["slug"] == "people/ana" and t["deleted"]] == ["people/ana"]  # old page restorable
    from gbrain.sync.verify import fresh_import_differences

    assert fresh_import_differences(b) == {}
    eng.close()
    b.close()


@pytest.mark.engine_free
def test_pending_brain_edit_plus_disk_rename_is_one_moved_page(tmp_path):
    """The brain edited ana while the file was renamed on disk (bytes unchanged): a move whose
    brain side changed. One page at the new path with the brain's edit, written to the new
    file; no conflict (this was a limit: the edit was put back at the old path, two pages)."""
    from gbrain.sync.engine import conflict_list

    b, eng, root = _engine(tmp_path, {"people/ana.md": "# Ana\n"})
    pid = b.page_row("people/ana")["id"]
    b.put("people/ana", "# Ana\n\nedited in the brain\n")
    os.rename(root / "people/ana.md", root / "people/ana-lima.md")
    rep = eng.sync()
    assert rep["ok"], rep["problems"]
    assert not (root / "people/ana.md").exists()
    assert (root / "people/ana-lima.md").read_text() == "# Ana\n\nedited in the brain\n"
    assert b.page_row("people/ana") is None and b.page_row("people/ana-lima")["id"] == pid
    assert conflict_list(b, all=True) == []
    eng.close()
    b.close()


HEADING_PAGE = "# Ana\n\nFounder.\n\n---\n\nMore about Ana.\n\n---\n\n## Timeline\n\n- **2025-01-02** | call — Met\n"


@pytest.mark.engine_free
def test_changing_timeline_split_re_derives_every_page_like_a_fresh_import(tmp_path):
    from gbrain.sync.verify import derived_snapshot, fresh_import_differences

    with Brain.open(tmp_path / "b.db") as b:
        b.put("people/ana", HEADING_PAGE)
        assert "More about" not in b.page_row("people/ana")["compiled_truth"]  # rule: the first '---'
        b.set_config("timeline_split", "heading")
        assert "More about" in b.page_row("people/ana")["compiled_truth"]  # heading: the '---' before '## Timeline'
        assert len(b.timeline("people/ana")) == 1
        assert fresh_import_differences(b) == {}
        before = derived_snapshot(b)
    # limit: the setting lives in the brain, not in the tree; an export imported elsewhere
    # needs it set again, and then equals the original (the bytes never changed)
    out = tmp_path / "out"
    ops.run("export", {"dir": str(out)}, ops.Context(db=str(tmp_path / "b.db")))
    with Brain.open(tmp_path / "c.db") as c:
        from gbrain.sync.importer import import_tree

        import_tree(c, out)
        assert c.get_text("people/ana") == HEADING_PAGE
        c.set_config("timeline_split", "heading")
        assert derived_snapshot(c) == before


@pytest.mark.engine_free
def test_export_refuses_every_file_under_a_symlinked_folder_deep_in_the_path(tmp_path):
    """Export looks at each folder once per run (not once per file): a symlink anywhere on the
    way still refuses every file beneath it, and the folders it made itself are reused."""
    from gbrain.sync.exporter import export_tree
    from gbrain.sync.importer import import_tree

    src, out, outside = tmp_path / "src", tmp_path / "out", tmp_path / "outside"
    for rel in ("a/b/one.md", "a/b/two.md", "a/c/three.md", "d/e/f/four.md", "d/e/f/five.md"):
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_text(f"# {rel}\n")
    outside.mkdir()
    (out / "a").mkdir(parents=True)
    (out / "a" / "b").symlink_to(outside, target_is_directory=True)
    with Brain.open(tmp_path / "b.db") as b:
        import_tree(b, src)
        rep = export_tree(b, out)
    assert os.listdir(outside) == []
    failed = {f["path"] for f in rep["write_errors"]}
    assert failed == {"a/b/one.md", "a/b/two.md"}
    for rel in ("a/c/three.md", "d/e/f/four.md", "d/e/f/five.md"):
        assert (out / rel).read_text() == f"# {rel}\n"


def _lock_files(db) -> list[str]:
    """The open lock's file beside ``db`` (``Brain.open``'s ``_open_lock``), if any."""
    from gbrain.storage.db import OPEN_LOCK_SUFFIX

    name = os.path.basename(os.path.realpath(str(db))) + OPEN_LOCK_SUFFIX
    return [n for n in os.listdir(os.path.dirname(os.path.realpath(str(db)))) if n == name]


HOLDER = """
import sys, time
from gbrain.core.brain import Brain
b = Brain.open(sys.argv[1])
print("open", flush=True)
sys.stdin.readline()
b.close()
"""


@pytest.mark.engine_free
def test_the_open_lock_file_is_removed_by_the_last_process_that_closes_the_brain(tmp_path):
    import subprocess
    import sys

    db = tmp_path / "b.db"
    with Brain.open(db):
        assert _lock_files(db)
    assert not _lock_files(db)  # (tests open thousands of brains: the temp folder kept them all)
    p = subprocess.Popen([sys.executable, "-c", HOLDER, str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert p.stdout.readline() == b"open\n"
        with Brain.open(db) as b:
            b.put("notes/a", "# A\n")
        assert _lock_files(db)  # the other process still has it open: its lock stays
        with Brain.open(db) as b:  # and a new open finds it held: no unclean-shutdown check
            assert b.damaged is None
    finally:
        p.communicate(b"\n", timeout=60)
    assert p.returncode == 0 and not _lock_files(db)
    # a killed process leaves its file; the next open still sees the unclean shutdown
    r = subprocess.run([sys.executable, "-c", KILLED_WRITER, str(db)], capture_output=True)
    assert r.returncode == -9 and _lock_files(db)
    with Brain.open(db) as b:
        assert b._checked and b.conn.execute("SELECT 1 FROM pages WHERE slug = ?", ("notes/last",)).fetchone()
    assert not _lock_files(db)


@pytest.mark.engine_free
def test_serve_on_a_read_only_brain_offers_the_read_only_tools(read_only_brain):
    """`serve` on a brain it cannot write (a read-only mount; a 0444 file for a user other than
    root) offers the `--read-only` tool set and says so on stderr, instead of write tools that
    each fail with "is read-only"."""
    import json
    import subprocess
    import sys

    from gbrain.mcp.server import tool_operations

    tree, db = read_only_brain
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    r = subprocess.run([sys.executable, "-m", "gbrain", "serve", "--db", str(db)], input="".join(json.dumps(m) + "\n" for m in lines).encode(),
                       capture_output=True, timeout=300)
    assert r.returncode == 0, r.stderr.decode()
    replies = {m["id"]: m for m in map(json.loads, r.stdout.splitlines())}
    names = [t["name"] for t in replies[2]["result"]["tools"]]
    assert names == [o.tool_name for o in tool_operations(read_only=True)] and "brain_put" not in names
    assert b"read-only" in r.stderr and b"cannot be written" in r.stderr, r.stderr


# ---- chaos trial 2026-12-02: damage that quick_check does not see ------------------------------


def _stale_fts_row(db) -> None:
    """A search index row for a page id that does not exist (what a stale ``-wal`` restored
    beside an older brain.db leaves): quick_check passes, FTS5's integrity check does not."""
    import sqlite3

    c = sqlite3.connect(db)
    c.execute("INSERT INTO page_fts(rowid, title, search_aliases, path, search_headings, compiled_truth, timeline, search_words) "
              "VALUES (99999, 'zzqx', '', '', '', 'zzqx', '', 'zzqx')")
    c.commit()
    c.close()


@pytest.mark.engine_free
def test_a_search_index_row_of_a_missing_page_is_skipped_with_one_warning_and_reindex_repairs_it(brain300):
    tree, db = brain300
    _stale_fts_row(db)
    for argv in (["search", "zzqx"], ["query", "zzqx"], ["search", "zzqx", "--json"]):
        r = gbrain(*argv, "--db", str(db))
        err = r.stderr.decode()
        assert r.returncode == 0 and "Traceback" not in err, (argv, err)
        warns = [x for x in err.splitlines() if "search index" in x]
        assert len(warns) == 1 and "`gbrain reindex` rebuilds it" in warns[0] and "gbrain check" in warns[0], (argv, err)
        assert b"zzqx" not in r.stdout or b"no matches" in r.stdout, (argv, r.stdout)
    r = gbrain("check", "--db", str(db))
    out = r.stdout.decode()
    assert r.returncode == 1 and "search index" in out and "gbrain reindex" in out, out
    assert "gbrain export" not in out  # the pages are sound: nothing to save
    # the pages are sound, so writes go on (the damage is only a derived index)
    assert gbrain("put", "notes/after", "--db", str(db), input="# After\n\nzzqx later\n").returncode == 0
    r = gbrain("reindex", "--db", str(db))
    assert r.returncode == 0, r.stderr.decode()
    assert gbrain("check", "--db", str(db)).returncode == 0
    r = gbrain("search", "zzqx", "--db", str(db))
    assert r.returncode == 0 and r.stderr == b"" and r.stdout.decode().startswith("notes/after"), (r.stdout, r.stderr)


@pytest.fixture
def small_fs(tmp_path):
    """A 30 MB tmpfs of the test's own (unmounted at the end)."""
    mnt = tmp_path / "small"
    mnt.mkdir()
    if not _mount(["-t", "tmpfs", "-o", "size=30m", "tmpfs", str(mnt)]):
        pytest.skip("needs root to mount a small tmpfs")
    yield mnt
    unmount(mnt)


def fill(fs: Path, leave: int) -> Path:
    """Fill ``fs`` with one file until about ``leave`` bytes are free; returns the filler."""
    st = os.statvfs(fs)
    filler = fs / "filler"
    filler.write_bytes(b"\0" * max(0, st.f_bavail * st.f_frsize - leave))
    return filler


@pytest.mark.engine_free
def test_full_disk_during_export_is_one_line_without_sync_advice_and_what_was_written_is_complete(tmp_path, small_fs, brain300):
    tree, db = brain300
    filler = fill(small_fs, 300 * 1024)  # ~300 KB left of the tree's ~1.7 MB: some files fit
    out = small_fs / "out"
    r = gbrain("export", "--dir", str(out), "--db", str(db))
    line = one_line_error(r)
    assert r.returncode == 1, r.stdout
    assert line.startswith("error: no space left on device") and "not written" in line and "run export again" in line, line
    assert "sync" not in r.stdout.decode() + r.stderr.decode()
    saved = [p for p in out.rglob("*") if p.is_file()]
    assert saved and not [p for p in saved if p.name.startswith(".gbrain-tmp-")]
    for p in saved:  # the files written are complete
        assert p.read_bytes() == (tree / p.relative_to(out)).read_bytes()
    filler.unlink()
    r = gbrain("export", "--dir", str(out), "--db", str(db))
    assert r.returncode == 0 and r.stderr == b"", r.stderr


@pytest.mark.engine_free
def test_a_truncated_brain_advises_a_rebuild_or_a_backup_not_an_export_that_saves_nothing(tmp_path, brain300):
    tree, db = brain300
    size = db.stat().st_size
    os.truncate(db, size * 44 // 100)
    out = tmp_path / "safe"
    for argv in (["stats"], ["search", "the"], ["check"], ["put", "notes/n"], ["export", "--dir", str(out)]):
        r = gbrain(*argv, "--db", str(db), input="# N\n")
        line = one_line_error(r)
        assert r.returncode == 1, argv
        assert "cannot be opened" in line and "cut short" in line and f"{size:,} bytes" in line, line
        assert "gbrain import FOLDER" in line and "backup" in line and "gbrain export" not in line, line
    assert not out.exists() or not [p for p in out.rglob("*") if p.is_file()]


@pytest.mark.engine_free
def test_plain_verify_says_how_many_stored_texts_it_hashed_and_check_and_deep_catch_an_overwritten_text(brain300):
    """Page text bytes overwritten inside brain.db (quick_check cannot see them) are caught by
    plain verify only when the page is drawn: its report says how many stored texts it hashed
    and what checks every one (issue 14 keeps verify near read + sha256 of the tree)."""
    import sqlite3

    tree, db = brain300
    c = sqlite3.connect(db)
    slug, text = c.execute("SELECT slug, compiled_truth FROM pages WHERE length(compiled_truth) > 40 ORDER BY slug LIMIT 1").fetchone()
    total = c.execute("SELECT COUNT(*) FROM pages").fetchone()[0]
    c.close()
    raw = db.read_bytes()
    old = stored_once(raw, text, 20)
    at = raw.index(old)  # the page row's bytes (the history keeps its text compressed)
    with open(db, "r+b") as f:  # the same length, in place: no SQL, no trigger, no new hash
        f.seek(at)
        f.write(b"Z" * len(old))
    r = gbrain("verify", str(tree), "--db", str(db))
    out = r.stdout.decode()
    line = next(x for x in out.splitlines() if x.startswith("Stored page texts hashed:"))
    n = int(line.split(":")[1].split(" of ")[0].replace(",", ""))
    assert 0 < n < total and f" of {total:,} " in line and "gbrain check" in line and "--deep" in line, line
    if r.returncode == 0:  # the page was not drawn
        assert "Validation: OK" in out
    else:
        assert slug in out
    r = gbrain("check", "--db", str(db))
    assert r.returncode == 1 and slug in r.stdout.decode() and "1 page(s)" in r.stdout.decode(), (r.stdout, r.stderr)
    r = gbrain("verify", str(tree), "--deep", "--db", str(db))
    # FTS5's integrity check sees a changed indexed text first ("is damaged"); the bytes changed
    # here hold a link's address, which the index does not read (v39), so the hash names the page
    said = r.stdout.decode() + r.stderr.decode()
    assert r.returncode == 1 and ("is damaged" in said or slug in said), said


@pytest.mark.engine_free
def test_a_search_index_row_of_a_missing_page_over_mcp_is_a_warning_not_an_internal_error(brain300):
    tree, db = brain300
    _stale_fts_row(db)
    for tool, args in (("search", {"query": "zzqx"}), ("query", {"question": "zzqx"})):
        warned: list[str] = []
        out = ops.run_tool(tool, args, ops.Context(db=db, surface="mcp", on_warning=warned.append))
        assert not (out.get("items") or out.get("hits")), out
        # once, as a warning (search) or in the answer's notes (query's notes are said there only: 130dc43)
        said = [w for w in warned + list(out.get("notes") or []) if "search index" in w]
        assert len(said) == 1 and "`brain_reindex` rebuilds it" in said[0] and "gbrain check" in said[0], (warned, out.get("notes"))  # (check is a CLI command: no tool)


@pytest.mark.engine_free
def test_sync_into_a_read_only_tree_names_the_file_not_a_temp_file(tmp_path):
    """A chaos trial: ``error: /tmp/…/t/.gbrain-tmp-24017-6750811373 is on a read-only file
    system`` named gbrain's own temp file; the file it was writing is named instead (and, since
    watch and sync keep going past a folder that refuses writes, listed as not written)."""
    tree = tmp_path / "t"
    tree.mkdir()
    (tree / "a.md").write_text("# A\n")
    db = str(tmp_path / "b.db")
    assert gbrain("--db", db, "sync", str(tree)).returncode == 0
    assert gbrain("--db", db, "put", "newnote", input="# New\n").returncode == 0
    mnt = tmp_path / "ro"
    mnt.mkdir()
    if not _mount(["--bind", str(tree), str(mnt)]):
        pytest.skip("needs root for a read-only bind mount")
    try:
        if not _mount(["-o", "remount,ro,bind", str(mnt)]):
            pytest.skip("cannot remount read-only")
        r = gbrain("--db", db, "sync", "--rebind", str(mnt))
        # since 036342d a write the folder refuses is no failure of the whole sync: the round goes
        # on, the path is listed with the folder's reason, the brain keeps its version, exit 1
        out, err = r.stdout.decode(), r.stderr.decode()
        assert r.returncode == 1 and "Traceback" not in err, err
        assert "read-only file system" in out.lower() and "Not written (the folder refused it): newnote.md" in out, out
        assert ".gbrain-tmp-" not in out + err, out + err
        assert gbrain("--db", db, "get", "newnote").stdout.decode() == "# New\n"
    finally:
        # a bind mount of the same file system is no mount point to os.path.ismount (unmount's
        # test): unmount it by name
        subprocess.run(["umount", str(mnt)], capture_output=True)
        assert str(mnt) not in open("/proc/mounts").read()


@pytest.mark.engine_free
def test_a_read_only_brain_whose_wal_index_is_gone_is_refused_not_read_without_its_log(tmp_path):
    """The disaster-day trial: a writer killed after its commit leaves ``b.db-wal``; with no
    ``b.db-shm`` in a folder nobody may write, SQLite can open the file only ``immutable``,
    which skips the log: ``get`` said "no page" for a page the writer had committed and
    ``check`` said OK. A log with frames in it is refused, naming it and the way out."""
    d = tmp_path / "d"
    d.mkdir()
    db = d / "b.db"
    assert gbrain("put", "notes/early", "--db", str(db), input="# Early\n").returncode == 0
    script = (
        "import os, sys\nfrom gbrain.core.brain import Brain\n"
        "b = Brain.open(sys.argv[1])\nb.put('notes/late', '# Late\\n\\ncommitted before the crash\\n')\nos._exit(0)\n"
    )
    subprocess.run([__import__("sys").executable, "-c", script, str(db)], check=True)
    assert (d / "b.db-wal").stat().st_size > 32, "the killed writer left its log"
    (d / "b.db-shm").unlink()
    mnt = tmp_path / "ro"
    mnt.mkdir()
    if not _mount(["--bind", str(d), str(mnt)]):
        pytest.skip("needs root for a read-only bind mount")
    try:
        if not _mount(["-o", "remount,ro,bind", str(mnt)]):
            pytest.skip("cannot remount read-only")
        for argv in (["get", "notes/late"], ["check"], ["stats"]):
            r = gbrain(*argv, "--db", str(mnt / "b.db"))
            if r.returncode == 0:  # read whole, the log's page included
                assert argv != ["get", "notes/late"] or r.stdout.startswith(b"# Late"), r.stdout
                continue
            err = one_line_error(r)
            assert r.returncode == 1 and "b.db-wal" in err and "no page" not in err, (argv, err)
    finally:
        subprocess.run(["umount", str(mnt)], capture_output=True)
        assert str(mnt) not in open("/proc/mounts").read()
    with Brain.open(db) as b:  # writable again: nothing was lost
        assert b.page_row("notes/late") is not None


def test_a_file_deleted_while_import_reads_it_is_the_users_change_not_a_failure(tmp_path, db_path, monkeypatch):
    """The disaster-day trial: files deleted or renamed in the folder while `import` ran gave
    "cannot read (No such file or directory); left as it was in the DB", "MISMATCH: 26 file(s)
    could not be read", "Validation: FAILED" and exit 1, where `sync` says "deleted or moved
    while read" and exits 0. A note and an attachment that vanish between the scan and their
    read are said once each as such, nothing else is lost, and the import exits 0."""
    from conftest import gbrain_in_process
    from gbrain.sync import importer

    tree = tmp_path / "t"
    tree.mkdir()
    for n in "abc":
        (tree / f"{n}.md").write_text(f"# {n.upper()}\n\nsee [[a]]\n")
    (tree / "pic.png").write_bytes(b"\x89PNG" + bytes(range(256)))
    assert gbrain_in_process("import", str(tree), "--db", str(db_path)).returncode == 0
    (tree / "b.md").write_text("# B\n\nedited\n")
    (tree / "pic.png").write_bytes(b"\x89PNG other")
    (tree / "d.md").write_text("# D\n")

    real_read, real_save = importer._read_stable, Brain.save_file_from

    def read_gone(f):
        if f.path in ("b.md", "d.md"):
            os.unlink(f.abspath)  # deleted between the scan and the read
        return real_read(f)

    def save_gone(self, path, source, *a, **kw):
        if path == "pic.png":
            os.unlink(source)  # hashed, then deleted before it is stored
        return real_save(self, path, source, *a, **kw)

    monkeypatch.setattr(importer, "_read_stable", read_gone)
    monkeypatch.setattr(Brain, "save_file_from", save_gone)
    r = gbrain_in_process("import", str(tree), "--db", str(db_path))
    out, err = r.stdout.decode(), r.stderr.decode()
    assert r.returncode == 0, (out, err)
    assert "could not be read" not in out + err and "FAILED" not in out, out
    for p in ("b.md", "d.md", "pic.png"):
        assert sum(p in ln and "deleted or moved" in ln for ln in (out + err).splitlines()) >= 1, (p, out, err)
    monkeypatch.undo()
    with Brain.open(db_path) as b:  # the brain's versions stay as they were (sync takes the deletions)
        assert b.get_text("b") == "# B\n\nsee [[a]]\n" and b.page_row("d") is None
        assert b.conn.execute("SELECT COUNT(*) FROM files WHERE path = 'pic.png'").fetchone()[0] == 1
    assert gbrain_in_process("sync", str(tree), "--db", str(db_path)).returncode == 0


def test_export_into_a_folder_it_cannot_write_is_one_line_and_writes_nothing(tmp_path, fixture_db):
    """The disaster-day trial: `export --dir out` into a folder the user may not write tried every
    file ("MISMATCH: 1683 file(s) could not be written: …", and "… not on disk … `gbrain sync DIR`
    reconciles both sides", advice for another command), and `--dir out/sub` under it gave
    "error: [Errno 13] Permission denied: 'out/sub'". Both are one line naming the folder."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine\n")
    mnt = tmp_path / "ro"
    mnt.mkdir()
    if not _mount(["--bind", str(out), str(mnt)]):
        pytest.skip("needs root for a read-only bind mount")
    try:
        if not _mount(["-o", "remount,ro,bind", str(mnt)]):
            pytest.skip("cannot remount read-only")
        for target in (mnt, mnt / "sub" / "deeper"):
            r = gbrain("export", "--dir", str(target), "--db", str(fixture_db))
            err = one_line_error(r)
            assert r.returncode == 1 and r.stdout == b"", (target, r.stdout.decode()[:300])
            assert "read-only" in err and str(target) in err and "nothing was written" in err, err
            assert "[Errno" not in err and "sync" not in err, err
    finally:
        subprocess.run(["umount", str(mnt)], capture_output=True)
        assert str(mnt) not in open("/proc/mounts").read()
    assert sorted(os.listdir(out)) == ["keep.txt"]


@pytest.mark.engine_free
def test_a_damaged_brain_says_to_restore_a_backup_without_the_old_log_beside_it(tmp_path):
    """The disaster-day trial: a writer killed after its commits leaves ``b.db-wal``; a backup
    copied over ``b.db`` then is opened with that log replayed onto it (a 40-page backup read
    as 33 pages of the crashed brain, DAMAGED; on a bigger brain "malformed database schema",
    cannot be opened), and the advice said to restore a backup (the same again) or nothing of
    backups. SQLite cannot tell the log is another file's; the advice names the log and index
    files to remove before a backup is copied back, and doing so gives the backup. Since trial 36
    gbrain tells it (damaged with the log, sound without): the log is set aside, named in a
    warning, before anything reads it, and the backup opens as it was."""
    import sys

    other, db = tmp_path / "other.db", tmp_path / "b.db"
    for path, n in ((other, 40), (db, 3)):
        assert gbrain("import", str(make_notes(tmp_path / f"t{n}", n)), "--db", str(path)).returncode == 0
    script = (
        "import os, sys\nfrom gbrain.core.brain import Brain\nb = Brain.open(sys.argv[1])\n"
        "for i in range(30):\n    b.put(f'notes/crash{i}', f'# Crash {i}\\n' + 'x' * 2000)\nos._exit(0)\n"
    )
    subprocess.run([sys.executable, "-c", script, str(db)], check=True)
    assert (tmp_path / "b.db-wal").stat().st_size > 32
    backup = tmp_path / "backup.db"
    shutil.copy(other, backup)
    shutil.copy(backup, db)  # "restore a backup": the killed writer's log is still beside it
    r = gbrain("check", "--db", str(db))  # the log is no log of the backup's: set aside, not replayed
    said = (r.stdout + r.stderr).decode()
    assert r.returncode == 0 and "b.db-wal" in said and "set aside" in said, said
    assert len(list(tmp_path.glob("b.db-wal.misfit-*"))) == 1
    assert js_pages(gbrain("stats", "--db", str(db), "--json")) == 40
    shutil.copy(backup, db)
    for leftover in ("b.db-wal", "b.db-shm"):
        (tmp_path / leftover).unlink(missing_ok=True)
    assert gbrain("check", "--db", str(db)).returncode == 0
    assert js_pages(gbrain("stats", "--db", str(db), "--json")) == 40


def js_pages(r) -> int:
    return json.loads(r.stdout)["pages"]


def make_notes(root: Path, n: int) -> Path:
    notes(root, "", n)
    return root


@pytest.mark.engine_free
def test_check_names_stored_files_whose_bytes_fail_their_hash(tmp_path, brain_tree):
    """Since v35 an attachment's current version is held once, in its ``files`` row (the history
    refers to it): bytes changed in place there lose that version, yet `check` hashed only the
    pages and said OK. It now hashes every stored file too (a big file's pieces streamed),
    names the damaged ones and exits 1."""
    import sqlite3

    (brain_tree / "img").mkdir()
    (brain_tree / "img" / "chart.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 40)
    db = str(tmp_path / "fb.db")
    assert gbrain("import", str(brain_tree), "--db", db).returncode == 0
    assert gbrain("check", "--db", db).returncode == 0
    c = sqlite3.connect(db)
    data = bytearray(c.execute("SELECT data FROM files WHERE path = 'img/chart.png'").fetchone()[0])
    data[100] ^= 0xFF
    c.execute("UPDATE files SET data = ? WHERE path = 'img/chart.png'", (bytes(data),))
    c.commit()
    c.close()
    r = gbrain("check", "--db", db)
    out = (r.stdout + r.stderr).decode()
    assert r.returncode == 1 and "img/chart.png" in out and "1 file(s)" in out, out


# ---- trial 36: an unlucky user's machine ------------------------------------------------------


def _as_nobody() -> list[str] | None:
    """The command prefix running a process as the user ``nobody`` (root only: as root a mode
    of 000 reads all the same), or None."""
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        return None
    return ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]


@pytest.mark.engine_free
@pytest.mark.parametrize("how", ["fifo", "no_permission"])
def test_verify_reports_a_note_it_cannot_read_as_left_alone_not_as_gone_from_the_folder(tmp_path, how):
    """Trial 36: a note on disk that verify cannot read (a FIFO where it was, a file and a folder
    of mode 000) was listed "only in the brain (not in the folder)" with the advice to sync, which
    says a note is gone that is there; sync (rightly) leaves such paths alone. Verify says them
    left alone, as sync does, and still fails (the folder could not be compared whole)."""
    import sys
    import tempfile

    if how == "no_permission":
        if not _as_nobody():
            pytest.skip("needs root to run gbrain as another user")
        # (pytest's own temp folders are 0700: nobody could not reach one)
        tmp_path = Path(tempfile.mkdtemp(prefix="gbrain-t36-", dir="/tmp"))
        tmp_path.chmod(0o755)
    try:
        _verify_unreadable(tmp_path, how, sys.executable)
    finally:
        if how == "no_permission":
            shutil.rmtree(tmp_path, ignore_errors=True)


def _verify_unreadable(tmp_path: Path, how: str, python: str) -> None:
    root, db = tmp_path / "v", tmp_path / "b.db"
    (root / "sub").mkdir(parents=True)
    for rel in ("a.md", "b.md", "sub/c.md"):
        (root / rel).write_text(f"# {rel}\n", encoding="utf-8")
    prefix: list[str] = []
    if how == "no_permission":
        prefix = _as_nobody() or []
        shutil.chown(tmp_path, "nobody")
        for p in [root, *root.rglob("*")]:
            shutil.chown(p, "nobody")
    env = {**os.environ, "GBRAIN_CACHE_DIR": str(tmp_path / "cache"), "HOME": str(tmp_path)}
    cwd = Path(__file__).resolve().parents[1]
    if how == "no_permission":
        # nobody runs a copy of this checkout's package: the checkout may sit under a folder only
        # root can enter (a CI clone in mktemp's 0700 folder: "Permission denied: …/gbrain/__init__.py")
        cwd = tmp_path / "pkg"
        shutil.copytree(Path(__file__).resolve().parents[1] / "gbrain", cwd / "gbrain", ignore=shutil.ignore_patterns("__pycache__"))
        env["PYTHONPATH"] = str(cwd)

    def run(*args):
        return subprocess.run([*prefix, python, "-m", "gbrain", *args, "--db", str(db)], capture_output=True, env=env, cwd=cwd)

    r = run("sync", str(root))
    assert r.returncode == 0, r.stderr.decode()
    if how == "fifo":
        (root / "a.md").unlink()
        os.mkfifo(root / "a.md")
    else:
        os.chmod(root / "a.md", 0)
        os.chmod(root / "sub", 0)
    try:
        r = run("verify", str(root), "--json")
        out = run("verify", str(root)).stdout.decode()
    finally:
        if how != "fifo":
            os.chmod(root / "sub", 0o755)
            os.chmod(root / "a.md", 0o644)
    assert r.returncode == 1, r.stderr.decode()
    rep = json.loads(r.stdout)
    left = 1 if how == "fifo" else 2
    assert rep["comparison"]["only_in_brain"] == 0 and rep["comparison"]["left_alone"] == left, rep["comparison"]
    assert not any("not on disk" in p for p in rep["problems"]), rep["problems"]
    assert "only in the brain" not in out and f"left alone {left}" in out, out


@pytest.mark.engine_free
def test_a_write_ahead_log_of_another_database_beside_the_brain_never_overwrites_it(tmp_path):
    """Trial 36: a stale `brain.db-wal` from another database (another machine's, a synced folder's)
    beside a cleanly closed brain: SQLite replayed its frames into the brain on open and the
    first close checkpointed them, truncating a 32 MB brain of 1,780 pages to the other file's
    372 KB. The log is set aside (kept, named in a warning) before SQLite reads it, when the brain
    reads sound without it and damaged with it; the brain is as it was."""
    import sqlite3
    import sys

    db, src = tmp_path / "b.db", tmp_path / "v"
    (src / "notes").mkdir(parents=True)
    for i in range(30):
        (src / "notes" / f"n{i}.md").write_text(f"# Note {i}\n\n{'text ' * 400}\n", encoding="utf-8")
    r = gbrain("import", str(src), "--db", str(db))
    assert r.returncode == 0, r.stderr.decode()
    assert not Path(str(db) + "-wal").exists()
    before = db.read_bytes()
    other = tmp_path / "other.db"
    c = sqlite3.connect(other)
    c.execute("PRAGMA journal_mode=WAL")
    c.execute("PRAGMA wal_autocheckpoint=0")
    c.execute("CREATE TABLE zz(x)")
    c.executemany("INSERT INTO zz VALUES (?)", [(str(i) * 50,) for i in range(3000)])
    c.commit()
    shutil.copy(str(other) + "-wal", str(db) + "-wal")
    shutil.copy(str(other) + "-shm", str(db) + "-shm")
    c.close()
    foreign = Path(str(db) + "-wal").read_bytes()

    r = gbrain("get", "notes/n7", "--db", str(db))
    err = r.stderr.decode()
    assert r.returncode == 0 and r.stdout.decode().startswith("# Note 7"), err
    assert "warning:" in err and "b.db-wal" in err and "set aside" in err, err
    kept = [p for p in tmp_path.iterdir() if p.name.startswith("b.db-wal.")]
    assert len(kept) == 1 and kept[0].read_bytes() == foreign and kept[0].name in err, err
    r = gbrain("check", "--db", str(db))
    assert r.returncode == 0, r.stdout.decode() + r.stderr.decode()
    with Brain.open(db) as b:
        assert b.stats()["pages"] == 30
    assert len(db.read_bytes()) >= len(before)


@pytest.mark.engine_free
def test_a_search_index_whose_tables_will_not_open_says_the_brain_is_damaged(tmp_path, clean_closed):
    """Bytes over the root page of the search index's config table: SQLite answers a search
    with "vtable constructor failed: page_fts", which said "database error" (the CI run of
    2026-12-05, random bytes at 60% after v62's layout); the file fails quick_check, so the
    search exits 1 with the one "is damaged" line and how to recover."""
    import sqlite3

    _tree, clean, _ = clean_closed
    db = tmp_path / "d.db"
    shutil.copy(clean, db)
    c = sqlite3.connect(db)
    page = c.execute("PRAGMA page_size").fetchone()[0]
    root = c.execute("SELECT rootpage FROM sqlite_master WHERE name = 'page_fts_config'").fetchone()[0]
    c.close()
    with open(db, "r+b") as f:
        f.seek((root - 1) * page + 8)
        f.write(bytes(range(256)) * ((page - 16) // 256))
    r = gbrain("search", "robotics", "--db", str(db))
    line = one_line_error(r)
    assert r.returncode == 1 and "is damaged" in line and "gbrain export" in line, line


SERVER_LIKE = """
import sys
from gbrain.core.brain import Brain
b = Brain.open(sys.argv[1])
b.put("notes/h1", "# H1\\n")
b.put("notes/h2", "# H2\\n")
print("open", flush=True)
for line in sys.stdin:
    if line.startswith("checkpoint"):
        b.conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
    elif line.startswith("list"):
        print(" ".join(r[0] for r in b.conn.execute("SELECT slug FROM pages ORDER BY slug")))
    else:
        break
    print("done", flush=True)
b.close()
"""


@pytest.mark.engine_free
def test_an_open_beside_a_process_with_another_temp_folder_leaves_its_log_alone(tmp_path, monkeypatch):
    """A brain open in a process whose TMPDIR differs (an MCP server started by an agent, the CLI
    from a shell: `tests/test_mcp.py` runs exactly that) is open: another process's open takes
    no unclean-shutdown look at the live write-ahead log. That look, made while the server
    checkpointed (a commit past 1,000 log pages), read the checkpointed file as another state of
    the brain, renamed the live log aside, and the two processes then wrote to two logs: the
    server never saw the CLI's pages (the flaky `test_server_and_cli_write_at_the_same_time`)."""
    import sys

    from gbrain.storage import db as dbmod

    db = tmp_path / "b.db"
    with Brain.open(db) as b:
        b.put("notes/first", "# First\n")
    other_tmp = tmp_path / "server-tmp"
    other_tmp.mkdir()
    server = subprocess.Popen([sys.executable, "-c", SERVER_LIKE, str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              env={**os.environ, "TMPDIR": str(other_tmp)})

    def ask(cmd: str) -> list[bytes]:
        server.stdin.write(cmd.encode() + b"\n")
        server.stdin.flush()
        out = [server.stdout.readline()]
        while out[-1] not in (b"done\n", b""):
            out.append(server.stdout.readline())
        return out[:-1]

    try:
        assert server.stdout.readline() == b"open\n"
        assert os.path.getsize(str(db) + "-wal") > 0
        real = dbmod.wal_first_stamp

        def first_stamp_then_the_server_checkpoints(path):
            got = real(path)
            ask("checkpoint")  # the server's commit checkpoints now, in the middle of the look
            return got

        monkeypatch.setattr(dbmod, "wal_first_stamp", first_stamp_then_the_server_checkpoints)
        with Brain.open(db) as b:
            assert not b._checked  # the brain is open elsewhere: no unclean-shutdown check
            b.put("notes/cli", "# CLI\n")
        assert not [n for n in os.listdir(tmp_path) if ".misfit-" in n]
        assert ask("list") == [b"notes/cli notes/first notes/h1 notes/h2\n"]  # the server sees the CLI's page
    finally:
        server.communicate(b"quit\n", timeout=60)
    assert server.returncode == 0


@pytest.mark.engine_free
def test_the_look_at_a_log_left_by_a_dead_process_holds_the_open_lock_alone(tmp_path, monkeypatch):
    """An unclean open looks at the log left (and may set it aside) before any other gbrain
    process opens the brain: one that opened meanwhile would write that log (a checkpoint there
    made the look take the live log for another state's and rename it)."""
    import fcntl
    import sys

    from gbrain.storage import db as dbmod

    db = tmp_path / "b.db"
    with Brain.open(db) as b:
        b.put("notes/first", "# First\n")
    r = subprocess.run([sys.executable, "-c", KILLED_WRITER, str(db)], capture_output=True)
    assert r.returncode == -9 and os.path.getsize(str(db) + "-wal") > 0
    real, others = dbmod.wal_first_stamp, []

    def another_opener_tries(path):
        fd = os.open(str(db) + dbmod.OPEN_LOCK_SUFFIX, os.O_RDWR)
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)  # what another process's open takes
            others.append("got in")
        except OSError:
            others.append("waits")
        finally:
            os.close(fd)
        return real(path)

    monkeypatch.setattr(dbmod, "wal_first_stamp", another_opener_tries)
    with Brain.open(db) as b:
        assert b._checked and b.conn.execute("SELECT 1 FROM pages WHERE slug = 'notes/last'").fetchone()
        fd = os.open(str(db) + dbmod.OPEN_LOCK_SUFFIX, os.O_RDWR)
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)  # once open, the lock is shared again
        finally:
            os.close(fd)
    assert others == ["waits"]


def _killed_writer_left_a_log(db) -> None:
    import sys

    with Brain.open(db) as b:
        b.put("notes/first", "# First\n")
    r = subprocess.run([sys.executable, "-c", KILLED_WRITER, str(db)], capture_output=True)
    assert r.returncode == -9 and os.path.getsize(str(db) + "-wal") > 0


def _holder(db, tmpdir) -> subprocess.Popen:
    import sys

    p = subprocess.Popen([sys.executable, "-c", HOLDER, str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         env={**os.environ, "TMPDIR": str(tmpdir)})
    assert p.stdout.readline() == b"open\n"
    return p


def _other_temp_folder(monkeypatch, tmpdir) -> None:
    import tempfile

    monkeypatch.setenv("TMPDIR", str(tmpdir))
    monkeypatch.setattr(tempfile, "tempdir", None)  # gettempdir() reads TMPDIR again


@pytest.mark.engine_free
def test_two_processes_on_a_brain_in_a_read_only_folder_see_each_other_whatever_their_temp_folders(tmp_path, monkeypatch):
    """Where the database's folder cannot hold the open lock (a read-only mount) it lies in a
    temp folder named after the database: a fixed one (/tmp), not each process's $TMPDIR, or a
    server and a CLI with different TMPDIRs do not see each other there either."""
    db_dir = tmp_path / "d"
    db_dir.mkdir()
    db = db_dir / "b.db"
    _killed_writer_left_a_log(db)
    mnt = tmp_path / "ro"
    mnt.mkdir()
    if not _mount(["--bind", str(db_dir), str(mnt)]):
        pytest.skip("needs root for a read-only bind mount")
    try:
        if not _mount(["-o", "remount,ro,bind", str(mnt)]):
            pytest.skip("cannot remount read-only")
        tmp_a, tmp_b = tmp_path / "tmp-a", tmp_path / "tmp-b"
        tmp_a.mkdir(), tmp_b.mkdir()
        p = _holder(mnt / "b.db", tmp_a)
        try:
            _other_temp_folder(monkeypatch, tmp_b)
            with Brain.open(mnt / "b.db") as b:
                assert not b._checked  # the holder has it open: no unclean-shutdown look
                assert b.conn.execute("SELECT 1 FROM pages WHERE slug = 'notes/last'").fetchone()
        finally:
            p.communicate(b"\n", timeout=60)
        assert p.returncode == 0
    finally:
        unmount(mnt)


OLD_GBRAIN = """
import fcntl, hashlib, os, sys, tempfile
real = os.path.realpath(sys.argv[1])
name = os.path.join(tempfile.gettempdir(), "gbrain-open-" + hashlib.sha256(real.encode()).hexdigest()[:16] + ".lock")
fd = os.open(name, os.O_RDWR | os.O_CREAT, 0o600)
try:
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    print("alone", flush=True)
except OSError:
    fcntl.flock(fd, fcntl.LOCK_SH)
    print("shared", flush=True)
fcntl.flock(fd, fcntl.LOCK_SH)
sys.stdin.readline()
"""


@pytest.mark.engine_free
def test_an_open_beside_an_older_gbrain_that_locks_in_the_temp_folder_sees_it(tmp_path, monkeypatch):
    """gbrain before 2026-12 took the open lock in the temp folder only: for a release an open
    takes that one too, so an older server's live log is not looked at (and set aside) as a dead
    process's, and an older CLI sees a newer server."""
    import sys

    db = tmp_path / "b.db"
    _killed_writer_left_a_log(db)
    tmp_a = tmp_path / "tmp-a"
    tmp_a.mkdir()
    _other_temp_folder(monkeypatch, tmp_a)
    old = subprocess.Popen([sys.executable, "-c", OLD_GBRAIN, str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert old.stdout.readline() == b"alone\n"
        with Brain.open(db) as b:
            assert not b._checked  # the older process has it open
    finally:
        old.communicate(b"\n", timeout=60)
    with Brain.open(db) as b:  # the newer one open: the older one sees it
        old = subprocess.Popen([sys.executable, "-c", OLD_GBRAIN, str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        try:
            assert old.stdout.readline() == b"shared\n"
        finally:
            old.communicate(b"\n", timeout=60)
    assert not os.listdir(tmp_a)  # the last to close removes the temp folder's file too


@pytest.mark.engine_free
def test_a_symlink_at_the_open_lock_path_is_not_followed(tmp_path):
    """A symlink at ``brain.db-gbrain.lock`` (a folder synced in, a planted link) is not
    followed: the open creates no file where it points."""
    db = tmp_path / "b.db"
    with Brain.open(db) as b:
        b.put("notes/a", "# A\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside / "made", str(db) + "-gbrain.lock")
    with Brain.open(db) as b:
        b.put("notes/b", "# B\n")
    assert not (outside / "made").exists() and os.path.islink(str(db) + "-gbrain.lock")
    os.unlink(str(db) + "-gbrain.lock")
    os.mkdir(str(db) + "-gbrain.lock")  # a folder there: the brain still opens
    assert gbrain("get", "notes/b", "--db", str(db)).stdout == b"# B\n"


SLOW_LOOKER = """
import sys, time
from gbrain.storage import db as dbmod
def stuck(path):
    print("looking", flush=True)
    time.sleep(600)
dbmod.wal_first_stamp = stuck
from gbrain.core.brain import Brain
Brain.open(sys.argv[1])
"""

OPENER = """
import sys
from gbrain.core.brain import Brain
b = Brain.open(sys.argv[1])
print("checked" if b._checked else "not checked", b.conn.execute("SELECT count(*) FROM pages WHERE slug = 'notes/last'").fetchone()[0], flush=True)
b.close()
"""


def _waiting_for_flock(path) -> bool:
    """True when a process waits for a flock on ``path`` (a ``->`` line of /proc/locks)."""
    ino = os.stat(path).st_ino
    with open("/proc/locks") as f:
        return any(ln.split()[1:3] == ["->", "FLOCK"] and ln.split()[6].endswith(f":{ino}") for ln in f)


@pytest.mark.engine_free
def test_an_opener_that_waited_for_a_look_killed_midway_looks_itself(tmp_path):
    """A process killed -9 during an unclean open's look at the log (holding the open lock
    exclusively) releases it, and the opener that waited for it takes the look itself: it
    is alone with a dead process's log (it opened with no look and no check)."""
    import signal
    import sys
    import time

    if not os.path.exists("/proc/locks"):
        pytest.skip("needs /proc/locks")
    db = tmp_path / "b.db"
    _killed_writer_left_a_log(db)
    looker = subprocess.Popen([sys.executable, "-c", SLOW_LOOKER, str(db)], stdout=subprocess.PIPE)
    opener = None
    try:
        assert looker.stdout.readline() == b"looking\n"
        opener = subprocess.Popen([sys.executable, "-c", OPENER, str(db)], stdout=subprocess.PIPE)
        lock = str(db) + "-gbrain.lock"
        while not _waiting_for_flock(lock):
            assert opener.poll() is None
            time.sleep(0.05)
        os.kill(looker.pid, signal.SIGKILL)
        out, _ = opener.communicate(timeout=120)
        assert out == b"checked 1\n"
    finally:
        if looker.poll() is None:
            looker.kill()
        looker.wait()
        if opener is not None and opener.poll() is None:
            opener.kill()
            opener.wait()


@pytest.mark.engine_free
def test_a_brain_whose_name_is_another_brains_open_lock_path_is_left_alone(tmp_path):
    """The open lock is an empty file: a file with content at its path (another brain whose name
    happens to be ``b.db-gbrain.lock``) is neither locked as it nor removed by the last close."""
    db = tmp_path / "b.db"
    other = tmp_path / "b.db-gbrain.lock"
    with Brain.open(other) as b:
        b.put("notes/other", "# Other\n")
    size = other.stat().st_size
    with Brain.open(db) as b:
        b.put("notes/a", "# A\n")
    assert other.stat().st_size == size
    assert gbrain("get", "notes/other", "--db", str(other)).stdout == b"# Other\n"


@pytest.mark.engine_free
def test_a_folder_whose_file_system_refuses_flock_still_opens_the_brain(tmp_path, monkeypatch):
    """A database on a file system whose locks fail (NFS without its lock daemon: ENOLCK) opens:
    its open lock goes to the next place (/tmp), as where the folder cannot hold the file. Since
    the lock moved beside the database, every command failed there with "No locks available"."""
    import errno
    import fcntl

    from gbrain.storage.db import OPEN_LOCK_SUFFIX

    db = tmp_path / "b.db"
    real = fcntl.flock

    def no_locks_beside_the_db(fd, op):
        if os.readlink(f"/proc/self/fd/{fd}").endswith(OPEN_LOCK_SUFFIX):
            raise OSError(errno.ENOLCK, os.strerror(errno.ENOLCK))
        return real(fd, op)

    monkeypatch.setattr(fcntl, "flock", no_locks_beside_the_db)
    with Brain.open(db) as b:
        b.put("notes/a", "# A\n")
    with Brain.open(db) as b:
        assert b.conn.execute("SELECT 1 FROM pages WHERE slug = 'notes/a'").fetchone()


OPEN_AS = """
import sys
from gbrain.core.brain import Brain
b = Brain.open(sys.argv[1])
b.put("notes/" + sys.argv[2], "# Live\\n")  # its log is live
print("open", flush=True)
sys.stdin.readline()
b.close()
"""


@pytest.mark.engine_free
def test_root_and_the_brains_owner_see_each_others_open_lock(tmp_path):
    """The open lock file beside the database gets the database's owner and mode (as SQLite
    gives its -wal and -shm): a lock file root made (a `sudo gbrain check` killed, or running)
    shut the brain's owner out of it, whose processes then held no lock root could see, and root's
    next open took the owner's live log for a dead process's."""
    import pwd
    import signal
    import sys
    import tempfile

    from conftest import SYSTEM_TMP
    from gbrain.core.brain import open_lock_names

    if os.geteuid() != 0 or not shutil.which("runuser"):
        pytest.skip("needs root and runuser")
    nobody = pwd.getpwnam("nobody")
    d = Path(tempfile.mkdtemp(dir=SYSTEM_TMP, prefix="gbrain-test-owner-"))
    procs = []
    try:
        os.chmod(d, 0o755)
        os.chown(d, nobody.pw_uid, nobody.pw_gid)
        db = d / "b.db"
        import gbrain

        src = os.path.dirname(os.path.dirname(os.path.abspath(gbrain.__file__)))  # this checkout, not an installed one
        env_n = {**os.environ, "TMPDIR": str(d), "GBRAIN_CACHE_DIR": str(d / "cache"), "HOME": str(d), "PYTHONPATH": src}

        def as_nobody(*args):
            p = subprocess.Popen(["runuser", "-u", "nobody", "--", sys.executable, *args], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, env=env_n, cwd=str(d))
            procs.append(p)
            return p

        probe = subprocess.run(["runuser", "-u", "nobody", "--", sys.executable, "-c", "import gbrain"], env=env_n, cwd=str(d),
                               capture_output=True)
        if probe.returncode != 0:  # a checkout in a folder only root may enter (a clean clone under mktemp -d: 0700)
            pytest.skip("user nobody cannot import this checkout: " + probe.stderr.decode(errors="replace")[-200:])
        first = as_nobody("-c", OPEN_AS, str(db), "first")
        assert first.stdout.readline() == b"open\n"
        first.communicate(b"\n", timeout=60)
        assert db.stat().st_uid == nobody.pw_uid
        root_holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        procs.append(root_holder)
        assert root_holder.stdout.readline() == b"open\n"
        os.kill(root_holder.pid, signal.SIGKILL)  # leaves its lock file beside the database
        root_holder.wait()
        owner = as_nobody("-c", OPEN_AS, str(db), "live")  # the owner's server: its log is live
        assert owner.stdout.readline() == b"open\n"
        assert os.path.getsize(str(db) + "-wal") > 0
        with Brain.open(db) as b:  # root again
            assert not b._checked  # the owner has it open
        owner.communicate(b"\n", timeout=60)
        assert owner.returncode == 0
        assert not [n for n in os.listdir(d) if ".misfit-" in n]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        for name in open_lock_names(d / "b.db")[1:]:
            if os.path.exists(name) and os.path.dirname(name) != str(d):
                os.unlink(name)
        shutil.rmtree(d)


@pytest.mark.engine_free
def test_the_open_lock_file_is_writable_by_those_who_may_write_the_brain(tmp_path):
    """A brain its group may write (0660) gets a lock file its group may open; a brain others may
    only read (0644) does not give them its lock (one holding it exclusively would stall every open)."""
    import stat

    db = tmp_path / "b.db"
    with Brain.open(db) as b:
        b.put("notes/a", "# A\n")
    for mode, want in ((0o660, 0o660), (0o644, 0o600), (0o600, 0o600)):
        os.chmod(db, mode)
        with Brain.open(db):
            assert stat.S_IMODE(os.stat(str(db) + "-gbrain.lock").st_mode) == want, oct(mode)


@pytest.mark.engine_free
def test_a_brain_file_with_two_hard_linked_names_warns_once(tmp_path, monkeypatch):
    """Two hard-linked names of one brain.db each get their own open lock and SQLite its own
    -wal: processes using the two names would not see each other's log. An open warns (once per
    process, on stderr) to use one name; a file of one name says nothing."""
    import gbrain.storage.db as dbmod

    db, other = tmp_path / "brain.db", tmp_path / "same.db"
    said: list[str] = []
    monkeypatch.setattr(dbmod, "on_warning", said.append)
    monkeypatch.setattr(dbmod, "_LINKS_WARNED", set())
    with Brain.open(db) as b:
        b.put("notes/a", "# A\n")
    assert said == []
    os.link(db, other)
    for name in (db, other, db):
        with Brain.open(name) as b:
            assert b.conn.execute("SELECT 1 FROM pages WHERE slug = 'notes/a'").fetchone()
    assert len(said) == 1 and "2 names" in said[0] and "hard link" in said[0], said
    r = gbrain("stats", "--db", str(other))
    assert r.returncode == 0, r.stderr
    assert r.stderr.count(b"hard link") == 1 and b"warning:" in r.stderr and b"hard link" not in r.stdout, r.stderr


@pytest.mark.engine_free
def test_a_brain_made_writable_again_is_written_though_a_reader_left_its_wal_index_read_only(tmp_path):
    """The unlucky-day trial (59): a read of a brain whose file was read-only (chmod 444) made
    ``b.db-wal`` and ``b.db-shm`` with the file's mode, 0444; once the user made the file writable
    again (chmod 644, the folder writable all along) every write still failed, "b.db is read-only
    ... writes need write access to the file and its folder", which it had. Opening the brain for
    writing gives the companions the database file's mode again (only theirs: the user's chmod)."""
    db = tmp_path / "b.db"
    assert gbrain("put", "notes/a", "--db", str(db), input="# A\n").returncode == 0
    mode = db.stat().st_mode & 0o777
    db.chmod(0o444)  # a read-only reader (SQLite's mode=ro, as gbrain opens a file it cannot write) makes them 0444
    c = __import__("sqlite3").connect(f"file:{db}?mode=ro", uri=True)
    c.execute("SELECT COUNT(*) FROM pages").fetchone()
    c.close()
    assert Path(str(db) + "-shm").stat().st_mode & 0o777 == 0o444
    db.chmod(mode)
    # as the user: a writer's open gives them the file's mode (root ignores modes, so the modes are the check)
    with Brain.open(db) as b:
        b.put("notes/b", "# B\n")
        for suffix in ("-wal", "-shm"):  # (the last close removes them)
            f = Path(str(db) + suffix)
            assert f.stat().st_mode & 0o777 == mode, (suffix, oct(f.stat().st_mode))
    if os.geteuid() != 0:
        return
    # end to end as another user: read while read-only, made writable, then written
    d = Path(__import__("tempfile").mkdtemp(prefix="t59ro-", dir="/tmp"))
    try:
        import pwd

        try:
            nobody = pwd.getpwnam("nobody")
        except KeyError:
            pytest.skip("no user nobody")
        os.chmod(d, 0o755)
        os.chown(d, nobody.pw_uid, nobody.pw_gid)
        odb = d / "b.db"
        run = lambda *a, input=None: subprocess.run(  # noqa: E731
            [__import__("sys").executable, "-m", "gbrain", *a, "--db", str(odb)], input=input, capture_output=True,
            user=nobody.pw_uid, group=nobody.pw_gid, cwd=os.getcwd(), timeout=120,
            env={**os.environ, "PYTHONPATH": os.getcwd()})
        r = run("put", "notes/a", input=b"# A\n")
        if r.returncode != 0:
            pytest.skip(f"user nobody cannot run gbrain here: {r.stderr.decode()[-300:]}")
        odb.chmod(0o444)
        assert run("stats").returncode == 0
        odb.chmod(0o644)
        r = run("put", "notes/b", input=b"# B\n")
        assert r.returncode == 0, r.stderr.decode()
        # a WAL index this user cannot change (root's, read-only): the line names it, not "the file is read-only"
        shm = Path(str(odb) + "-shm")
        shm.write_bytes(bytes(32768))
        shm.chmod(0o444)
        r = run("put", "notes/c", input=b"# C\n")
        err = one_line_error(r)
        assert r.returncode == 1 and f"{shm} beside it cannot" in err and "is read-only" not in err, err
    finally:
        shutil.rmtree(d, ignore_errors=True)


@pytest.mark.engine_free
def test_a_file_size_limit_reached_is_named_not_a_disk_to_check(tmp_path):
    """The unlucky-day trial (59): under `ulimit -f` (RLIMIT_FSIZE) a write past the limit fails
    EFBIG, which SQLite reports as a disk I/O error: the line said "check the disk", which was
    sound. It names the process's file size limit; the unfinished write is rolled back."""
    import resource
    import sys

    tree, db = tmp_path / "t", tmp_path / "b.db"
    tree.mkdir()
    for i in range(60):
        (tree / f"n{i}.md").write_text(f"# Note {i}\n\n" + f"words of note {i} " * 400 + "\n", encoding="utf-8")
    with Brain.open(tmp_path / "fresh.db", create=True):
        pass
    # room for a new brain's schema (its size grows with the migrations: 400 KiB flat was reached
    # by v86's index, the error then the opening's), not for the 60 notes' ~460 KB
    limit = (tmp_path / "fresh.db").stat().st_size + 100 * 1024

    def cap():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    r = subprocess.run([sys.executable, "-m", "gbrain", "import", str(tree), "--db", str(db)], capture_output=True,
                       preexec_fn=cap, timeout=300)
    err = one_line_error(r)
    assert r.returncode == 1 and "ulimit -f" in err and f"{limit:,} bytes" in err, err
    assert gbrain("check", "--db", str(db)).returncode == 0


def test_a_file_size_limit_below_a_new_brains_schema_is_named_and_leaves_nothing_in_the_way(tmp_path):
    """Under `ulimit -f` smaller than a new brain's schema (~400 KB), creating the brain fails
    EFBIG, which SQLite reports as a disk I/O error while the schema is written: the line said
    "not a usable brain database: disk I/O error" (a damaged file?). It names the file size limit,
    and once the limit is raised the same command makes the brain (nothing half made left in its way)."""
    import resource
    import sys

    tree, db = tmp_path / "t", tmp_path / "b.db"
    tree.mkdir()
    (tree / "n.md").write_text("# Note\n\nwords\n", encoding="utf-8")
    limit = 64 * 1024

    def cap():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    r = subprocess.run([sys.executable, "-m", "gbrain", "import", str(tree), "--db", str(db)], capture_output=True,
                       preexec_fn=cap, timeout=300)
    err = one_line_error(r)
    assert r.returncode == 1 and "ulimit -f" in err and f"{limit:,} bytes" in err and "not a usable" not in err, err
    r = gbrain("import", str(tree), "--db", str(db))
    assert r.returncode == 0, r.stderr
    assert gbrain("check", "--db", str(db)).returncode == 0
