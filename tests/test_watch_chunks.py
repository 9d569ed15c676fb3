"""Watch cuts a big file round of plain in-place edits into chunks, each its own committed
transaction (``Watcher._chunks``, ``CHUNK_PATHS``, ``GBRAIN_WATCH_CHUNK``), so another writer
waits about one chunk instead of the whole round (trial 55: an Obsidian rename's link update
rewrote 2,207 notes in one round; an agent's write waited 84.7 s behind it). The outcome is the
one big round's: moves are still paired, a stale save in a later chunk is still merged, a fresh
import of the brain equals it and the files equal it.

In-process, through the batch shapes the observer gives (as tests/test_watch.py's in-process
tests); one test runs a real ``gbrain watch`` subprocess. Both engines."""
from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

import pytest

from gbrain.core.brain import Brain
from gbrain.sync.verify import fresh_import_differences
from gbrain.sync.watch import Watcher

sys.path.insert(0, str(Path(__file__).parent))
from test_sync import verify_equal  # noqa: E402
from test_watch import settle, stop_ok, wait_for, watch, text_of  # noqa: E402,F401

NOTES = 24
CHUNK = "5"


def make_tree(root: Path) -> None:
    root.mkdir(parents=True, exist_ok=True)
    (root / "hub.md").write_text("# Hub\n\nThe hub note, linked from every other note.\n")
    (root / "old name.md").write_text("# Old name\n\nA note renamed and edited in the storm.\n\nline two\nline three\n")
    for i in range(NOTES):
        (root / f"n{i:02d}.md").write_text(f"# N{i}\n\nSee [[hub]] and [[old name]].\n\nbody {i}\n")


def in_place(f: Path, data: bytes) -> None:
    """Write ``data`` into ``f`` itself (the same inode), as Obsidian's link updater does."""
    with open(f, "r+b") as fh:
        fh.truncate(0)
        fh.write(data)


def storm(root: Path) -> set[str]:
    """Obsidian renames two notes (one edited too) and rewrites every link in place: the paths
    the observer's batch names."""
    os.rename(root / "hub.md", root / "hub (moved).md")
    os.rename(root / "old name.md", root / "new name.md")
    in_place(root / "new name.md", (root / "new name.md").read_bytes() + b"edited after the rename\n")
    paths = {"hub.md", "hub (moved).md", "old name.md", "new name.md"}
    for i in range(NOTES):
        f = root / f"n{i:02d}.md"
        in_place(f, f.read_bytes().replace(b"[[hub]]", b"[[hub (moved)]]").replace(b"[[old name]]", b"[[new name]]") + b"ZZEDITZZ\n")
        paths.add(f.name)
    return paths


@pytest.fixture
def started(db_path, tmp_path):
    root = tmp_path / "vault"
    make_tree(root)
    said: list[str] = []
    with Brain.open(db_path) as b:
        w = Watcher(b, root, log=said.append)
        w.engine.bind()
        assert w.engine.sync()["ok"]
        yield b, w, root, said
        w.engine.close()


@pytest.mark.parametrize("chunk", ["0", CHUNK])
def test_a_big_round_of_in_place_edits_commits_chunk_by_chunk_with_the_outcome_of_one_round(started, db_path, monkeypatch, chunk):
    """Chunking off (0) and on give the same outcome: both moves recognised (the page ids
    kept), every note imported, a fresh import equal, the files equal the brain. On, another
    connection sees the first chunk committed before the rest, and its own writes between the
    chunks go through (the write lock is free there) and are kept."""
    b, w, root, said = started
    monkeypatch.setenv("GBRAIN_WATCH_CHUNK", chunk)
    ids = {s: b.page_row(s)["id"] for s in ("hub", "old name")}
    paths = storm(root)
    seen: list[int] = []  # after each transaction of the round: notes another connection sees edited
    real = w.engine.reconcile
    with Brain.open(db_path) as other:

        def spy(*a, **kw):
            out = real(*a, **kw)
            seen.append(other.conn.execute("SELECT COUNT(*) FROM pages WHERE compiled_truth LIKE '%ZZEDITZZ%'").fetchone()[0])
            other.put(f"writer/w{len(seen)}", f"# W{len(seen)}\n\nwritten between two chunks\n")  # another writer gets in
            return out

        monkeypatch.setattr(w.engine, "reconcile", spy)
        assert w._safe_batch(paths, set(), retry={}, maybe_moved=set(), closed=set())
    if chunk == "0":
        assert seen == [NOTES]  # one transaction
    else:
        n = int(chunk)
        assert len(seen) == -(-NOTES // n) and seen[0] == n and seen == sorted(seen) and seen[-1] == NOTES, seen
    assert sorted(w.moved) == [("hub.md", "hub (moved).md"), ("old name.md", "new name.md")]
    assert b.page_row("hub (moved)")["id"] == ids["hub"] and b.page_row("new name")["id"] == ids["old name"]
    assert "edited after the rename" in b.get_text("new name")
    assert all("ZZEDITZZ" in b.get_text(f"n{i:02d}") for i in range(NOTES))
    assert w.batches == 1  # the summary counts the round once
    # the change lines: each note once, the moves as moves
    assert sum(1 for s in said if s.startswith("> ")) == 2, said
    assert sorted(s for s in said if s.startswith("~ ") or s.startswith("+ ")) == sorted({s for s in said if s.startswith("~ ") or s.startswith("+ ")})
    assert {f"n{i:02d}.md" for i in range(NOTES)} <= {s.split(" ", 2)[1] for s in said if s[:2] in ("~ ", "+ ")}, said
    w.engine.reconcile = real
    rep = w.engine.sync()  # the writer's pages reach the folder; nothing else left to do
    assert rep["ok"] and rep["counts"]["imported"] == 0 and rep["counts"]["moved"] == 0, rep
    verify_equal(b, root)
    assert fresh_import_differences(b) == {}


def test_a_stale_save_in_a_later_chunk_is_still_merged(started, monkeypatch):
    """An agent's entry reached a note's file; the editor then saves its older buffer plus a typed
    line in place, in the same round as many other in-place edits, the note sorted into a later
    chunk: merged as in one round, both lines kept."""
    b, w, root, said = started
    monkeypatch.setenv("GBRAIN_WATCH_CHUNK", CHUNK)
    last = root / f"n{NOTES - 1:02d}.md"
    buf = last.read_bytes()  # the editor holds the note
    b.timeline_add(f"n{NOTES - 1:02d}", "2026-12-05", "AGENT-ENTRY", "agent")
    assert w.engine.sync()["changed"]["exported"] == [last.name]
    assert b"AGENT-ENTRY" in last.read_bytes()
    paths = set()
    for i in range(NOTES - 1):
        f = root / f"n{i:02d}.md"
        in_place(f, f.read_bytes() + b"ZZEDITZZ\n")
        paths.add(f.name)
    in_place(last, buf + b"user typed this\n")
    paths.add(last.name)
    chunks = w._chunks(paths, set(), {})
    assert len(chunks) > 1 and last.name not in chunks[0]
    assert w._safe_batch(paths, set(), retry={}, maybe_moved=set(), closed=set())
    page = text_of(b, f"n{NOTES - 1:02d}")
    assert "AGENT-ENTRY" in page and "user typed this" in page
    assert last.read_bytes() == page.encode()
    assert last.name in w.merged or any(last.name in s for s in w.merged), (w.merged, said)
    verify_equal(b, root)
    assert fresh_import_differences(b) == {}


def test_what_could_pair_into_a_move_and_folder_events_stay_in_the_first_chunk(started, monkeypatch):
    """New and gone files, a folder event's notes, paths held back as deletions, a note replaced
    by another inode beside them: all in the first chunk; only plain in-place edits are cut."""
    b, w, root, said = started
    monkeypatch.setenv("GBRAIN_WATCH_CHUNK", "3")
    paths = {f"n{i:02d}.md" for i in range(NOTES)}
    for p in paths:
        in_place(root / p, (root / p).read_bytes() + b"x\n")
    assert len(w._chunks(paths, set(), {})) == -(-NOTES // 3)
    (root / "fresh.md").write_text("# Fresh\n")
    os.remove(root / "hub.md")
    tmp = root / "n05.md.tmp"
    tmp.write_bytes((root / "n05.md").read_bytes() + b"y\n")
    os.rename(tmp, root / "n05.md")  # another inode: could pair with the gone hub.md
    sub = root / "sub"
    sub.mkdir()
    chunks = w._chunks(paths | {"fresh.md", "hub.md"}, {"sub"}, {"maybe_moved": {"old name.md"}})
    assert {"fresh.md", "hub.md", "n05.md"} <= chunks[0] and all("n05.md" not in c for c in chunks[1:])
    assert set().union(*chunks) == paths | {"fresh.md", "hub.md"} and sum(map(len, chunks)) == len(paths) + 2
    # the temp + rename save alone in a round of edits: plain
    assert len(w._chunks(paths, set(), {})) == -(-NOTES // 3)
    # the change log's rounds and the whole tree are never cut
    assert w._chunks(paths, set(), {"log_paths": {"hub.md"}}) == [paths]
    assert w._chunks(paths, {""}, {}) == [paths]
    monkeypatch.setenv("GBRAIN_WATCH_CHUNK", "0")
    assert w._chunks(paths, set(), {}) == [paths]


def test_watch_commits_a_big_round_in_chunks_and_ends_equal(brain_tree, db_path, monkeypatch):
    """A real ``gbrain watch``: 40 notes rewritten in place at once, chunks of 5. Every note
    said once, one batch in the summary, the tree and the brain equal, a fresh import equal."""
    from test_watch import Watch

    monkeypatch.setenv("GBRAIN_WATCH_CHUNK", CHUNK)
    d = brain_tree / "storm"
    d.mkdir()
    for i in range(40):
        (d / f"s{i:02d}.md").write_text(f"# S{i}\n\nbody\n")
    w = Watch(brain_tree, db_path)
    try:
        with Brain.open(db_path) as b:
            wait_for(lambda: b.conn.execute("SELECT COUNT(*) FROM pages WHERE path LIKE 'storm/%'").fetchone()[0] == 40, "40 pages")
            settle(b, brain_tree)
            before = len(w.lines)
            for i in range(40):
                in_place(d / f"s{i:02d}.md", f"# S{i}\n\nbody\nZZEDITZZ\n".encode())
            wait_for(lambda: b.conn.execute("SELECT COUNT(*) FROM pages WHERE path LIKE 'storm/%' AND compiled_truth LIKE '%ZZEDITZZ%'").fetchone()[0] == 40, "40 edits")
            settle(b, brain_tree)
            out = stop_ok(w).decode()
            lines = [s for s in w.lines[before:] if s.startswith("~ storm/")]
            assert sorted(lines) == sorted(set(lines)) and len(lines) == 40, w.lines
            assert fresh_import_differences(b) == {}
            assert "0 conflict(s)" in out, out
    finally:
        w.kill()


def test_a_stop_between_chunks_leaves_the_rest_to_the_next_sync(started, monkeypatch):
    """Ctrl-C while a big round runs: the round ends after the chunk that is running; the notes
    left are in the retry list and, watch stopped, the next start's first sync takes them: nothing
    lost, a fresh import equal."""
    b, w, root, said = started
    monkeypatch.setenv("GBRAIN_WATCH_CHUNK", CHUNK)
    paths = {f"n{i:02d}.md" for i in range(NOTES)}
    for p in paths:
        in_place(root / p, (root / p).read_bytes() + b"ZZEDITZZ\n")
    calls = []
    real = w.engine.reconcile

    def spy(*a, **kw):
        calls.append(1)
        out = real(*a, **kw)
        w.stop()  # Ctrl-C during the first chunk
        return out

    monkeypatch.setattr(w.engine, "reconcile", spy)
    retry: dict[str, float] = {}
    assert w._safe_batch(paths, set(), retry=retry, maybe_moved=set(), closed=set())
    assert len(calls) == 1
    done = {p for p in paths if "ZZEDITZZ" in b.get_text(p[:-3])}
    assert len(done) == int(CHUNK) and set(retry) == paths - done
    rep = real.__self__.sync()  # the next start's first sync
    assert sorted(rep["changed"]["imported"]) == sorted(paths - done), rep["changed"]
    verify_equal(b, root)
    assert fresh_import_differences(b) == {}


def _between_chunks(w, monkeypatch, act) -> list[int]:
    """Run ``act()`` once, after the round's first chunk committed (a reconcile spy)."""
    real = w.engine.reconcile
    calls: list[int] = []

    def spy(*a, **kw):
        out = real(*a, **kw)
        calls.append(1)
        if len(calls) == 1:
            act()
        return out

    monkeypatch.setattr(w.engine, "reconcile", spy)
    return calls


def test_a_save_begun_between_chunks_is_left_to_its_events_not_read_half_written(started, db_path, monkeypatch):
    """A later chunk's note was stat'ed when the round was cut, then (between two chunks, seconds
    later on a big round) an agent's put changed its page and the editor began a new save of it:
    truncate, a first piece of 70%, the file still open. Its events wait in the queue behind the
    round, and the batch's close (``closed``, from the storm's save) is stale: read now, the piece
    was merged with the put and written by rename, the editor's rest going to the unlinked file
    (f22fcc3's loss). A note whose stat moved since the round was cut leaves the round (Pending
    takes it, as its events would): the whole save then merges with the put, nothing lost."""
    b, w, root, said = started
    monkeypatch.setenv("GBRAIN_WATCH_CHUNK", CHUNK)
    slug = f"n{NOTES - 2:02d}"
    note = root / f"{slug}.md"
    in_place(note, ("# " + slug.upper() + "\n\n" + "".join(f"Line {i} of a note an editor saves in two pieces.\n" for i in range(10))).encode())
    assert w.engine.sync()["ok"]
    paths = {f"n{i:02d}.md" for i in range(NOTES)}
    for p in paths:
        in_place(root / p, (root / p).read_bytes() + b"ZZEDITZZ\n")
    chunks = w._chunks(paths, set(), {})
    assert note.name not in chunks[0]
    old = note.read_text(encoding="utf-8")
    new = old + "A line from the folder.\n"
    piece = new[: int(len(old) * 0.7)]
    fh = open(note, "r+", encoding="utf-8")

    def agent_and_save():
        with Brain.open(db_path) as other:
            other.put(slug, text_of(other, slug).replace(f"# {slug.upper()}", f"# {slug.upper()} (agent)", 1))
        fh.truncate(0)
        fh.write(piece)
        fh.flush()

    calls = _between_chunks(w, monkeypatch, agent_and_save)
    try:
        assert w._safe_batch(paths, set(), retry={}, maybe_moved=set(), closed=set(paths))
    finally:
        fh.write(new[len(piece):])  # the editor's rest: into the file it has open
        fh.close()
    assert len(calls) == len(chunks)
    handed = set(w.pending.paths)
    w.engine.reconcile = w.engine.__class__.reconcile.__get__(w.engine)
    assert w._safe_batch({note.name}, set(), retry={}, maybe_moved=set(), closed=set())  # its events' round
    want = new.replace(f"# {slug.upper()}", f"# {slug.upper()} (agent)", 1)
    assert note.read_text(encoding="utf-8") == want, said
    assert text_of(b, slug) == want, said
    torn = b.conn.execute("SELECT COUNT(*) FROM history_bodies WHERE hash = ?", (hashlib.sha256(piece.encode()).hexdigest(),)).fetchone()[0]
    assert not torn  # no version of the half-written save
    assert note.name in handed  # handed to Pending: its events decide it once they settle
    verify_equal(b, root)
    assert fresh_import_differences(b) == {}


def test_a_note_renamed_between_chunks_is_a_move_not_a_deletion(started, monkeypatch):
    """A later chunk's note renamed away (Obsidian, the user) after the round was cut: read by its
    chunk it was gone with no new path beside it, so the chunk trashed it (``- … → trash``), the
    held-back deletion of Pending never asked. It leaves the round instead; its events (the old
    path gone, the new one created) make it the move they are."""
    b, w, root, said = started
    monkeypatch.setenv("GBRAIN_WATCH_CHUNK", CHUNK)
    slug = f"n{NOTES - 1:02d}"
    pid = b.page_row(slug)["id"]
    paths = {f"n{i:02d}.md" for i in range(NOTES)}
    for p in paths:
        in_place(root / p, (root / p).read_bytes() + b"ZZEDITZZ\n")
    assert f"{slug}.md" not in w._chunks(paths, set(), {})[0]
    _between_chunks(w, monkeypatch, lambda: os.rename(root / f"{slug}.md", root / "renamed.md"))
    assert w._safe_batch(paths, set(), retry={}, maybe_moved=set(), closed=set())
    assert not [s for s in said if s.startswith("- ")], said
    assert w.counts["trashed"] == 0
    assert f"{slug}.md" in w.pending.paths and f"{slug}.md" in w.pending.deleted  # a deletion Pending holds back
    assert w._safe_batch({f"{slug}.md", "renamed.md"}, set(), retry={}, maybe_moved=set(), closed=set())
    assert (f"{slug}.md", "renamed.md") in w.moved and b.page_row("renamed")["id"] == pid, said
    assert "ZZEDITZZ" in b.get_text("renamed")
    verify_equal(b, root)
    assert fresh_import_differences(b) == {}


@pytest.mark.parametrize("chunk", ["0", CHUNK])
def test_a_moved_pages_sidecar_and_conflict_copy_edited_in_the_same_round_move_with_it(started, monkeypatch, chunk):
    """A page renamed in the folder while its ``.raw`` sidecar and a conflict copy of it were
    rewritten in place in the same round (a link updater rewrote the copy's links): in one round
    both are imported, then follow the page (:meth:`SyncEngine._move_sidecar`, ``_move_copies``:
    only a file holding its stored bytes moves). Sorted into a later chunk they were still the old
    bytes when the move's chunk ran: left at the old names, the raw data cut from its page. They
    stay with the first chunk; chunks on and off give one outcome."""
    b, w, root, said = started
    (root / "zz").mkdir()
    (root / "zz" / "p.md").write_text("# P\n\nThe page that moves.\n")
    (root / "zz" / "p.conflict-20261205T120000.md").write_text("# P\n\nAn old copy, see [[hub]].\n")
    assert w.engine.sync()["ok"]
    b.raw_put("zz/p", "crm", {"v": 1})
    assert w.engine.sync()["ok"]
    side = root / "zz" / ".raw" / "p.json"
    assert side.exists()
    monkeypatch.setenv("GBRAIN_WATCH_CHUNK", chunk)
    paths = {f"n{i:02d}.md" for i in range(NOTES)}
    for p in paths:
        in_place(root / p, (root / p).read_bytes() + b"ZZEDITZZ\n")
    os.rename(root / "zz" / "p.md", root / "zz" / "q.md")
    in_place(side, side.read_bytes().replace(b'"v": 1', b'"v": 2'))
    copy = root / "zz" / "p.conflict-20261205T120000.md"
    in_place(copy, copy.read_bytes().replace(b"[[hub]]", b"[[hub]] (edited)"))
    paths |= {"zz/p.md", "zz/q.md", "zz/.raw/p.json", copy.relative_to(root).as_posix()}
    assert w._safe_batch(paths, set(), retry={}, maybe_moved=set(), closed=set())
    assert ("zz/p.md", "zz/q.md") in w.moved, said
    assert b.raw_get("zz/q") == {"crm": {"v": 2}}, said
    assert (root / "zz" / ".raw" / "q.json").exists() and not side.exists(), said
    assert (root / "zz" / "q.conflict-20261205T120000.md").exists() and not copy.exists(), said
    assert "(edited)" in (root / "zz" / "q.conflict-20261205T120000.md").read_text()
    verify_equal(b, root)
    assert fresh_import_differences(b) == {}


def test_a_round_failed_in_a_later_chunk_and_retried_is_counted_once(started, monkeypatch):
    """A chunk after the first finds the brain busy (another writer held it past the busy
    timeout): the round returns False and every path of it is retried (as ``_file_round`` does).
    The chunks committed before are found in sync then; the summary counts each note once and
    the round as one batch, as without chunks."""
    import sqlite3

    b, w, root, said = started
    monkeypatch.setenv("GBRAIN_WATCH_CHUNK", CHUNK)
    paths = {f"n{i:02d}.md" for i in range(NOTES)}
    for p in paths:
        in_place(root / p, (root / p).read_bytes() + b"ZZEDITZZ\n")
    real = w.engine.reconcile
    calls: list[int] = []

    def spy(*a, **kw):
        calls.append(1)
        if len(calls) == 3:
            raise sqlite3.OperationalError("database is locked")
        return real(*a, **kw)

    monkeypatch.setattr(w.engine, "reconcile", spy)
    retry: dict[str, float] = {}
    assert not w._safe_batch(paths, set(), retry=retry, maybe_moved=set(), closed=set())
    assert w._safe_batch(paths, set(), retry=retry, maybe_moved=set(), closed=set())  # the retry of the round
    assert all("ZZEDITZZ" in b.get_text(p[:-3]) for p in paths)
    assert w.counts["imported"] == NOTES, w.counts
    assert w.summary()["counts"]["imported"] == NOTES
    assert w.batches == 1, w.batches
    assert sum(1 for s in said if s.startswith("~ ")) == NOTES, said
    verify_equal(b, root)
    assert fresh_import_differences(b) == {}


def test_a_first_sync_failed_after_its_chunks_counts_what_they_committed_once(started, monkeypatch):
    """The full sync after a first sync's chunks fails (the brain busy): the chunks committed
    and are in no report, so this watch's totals count them (each a batch); the sync run again
    reports the rest: the summary counts each note once (``Watcher._sync``: a chunk's outcome is
    counted with its report, else by itself, never both)."""
    import sqlite3

    b, w, root, said = started
    monkeypatch.setenv("GBRAIN_WATCH_CHUNK", CHUNK)
    for i in range(NOTES):
        f = root / f"n{i:02d}.md"
        in_place(f, f.read_bytes() + b"ZZEDITZZ\n")
    real = w.engine.sync

    def busy(*a, **kw):
        raise sqlite3.OperationalError("database is locked")

    monkeypatch.setattr(w.engine, "sync", busy)
    with pytest.raises(sqlite3.OperationalError):
        w._sync()
    done = sum("ZZEDITZZ" in b.get_text(f"n{i:02d}") for i in range(NOTES))
    assert 0 < done < NOTES, done
    assert w.counts["imported"] == done and w.batches == -(-done // int(CHUNK)), (w.counts, w.batches, done)
    monkeypatch.setattr(w.engine, "sync", real)
    rep = w._sync()
    assert rep["ok"] and rep["counts"]["imported"] == NOTES - done, rep["counts"]
    w._add_initial(rep)
    assert w.counts["imported"] == NOTES and w.summary()["counts"]["imported"] == NOTES, w.counts
    verify_equal(b, root)
    assert fresh_import_differences(b) == {}


CHUNK_HOLD_HOOK = """
import importlib.machinery, os, sys, time
if os.environ.get("GBRAIN_TEST_CHUNK_GATE"):
    _gate = os.environ["GBRAIN_TEST_CHUNK_GATE"]

    class _Hook:
        def find_spec(self, name, path=None, target=None):
            if name != "gbrain.sync.engine":
                return None
            sys.meta_path.remove(self)
            spec = importlib.machinery.PathFinder.find_spec(name, path)
            real = spec.loader.exec_module

            def exec_module(module):
                real(module)
                inner = module.SyncEngine.reconcile

                def reconcile(self, *a, **kw):
                    out = inner(self, *a, **kw)
                    end = time.monotonic() + 120
                    while os.path.exists(_gate) and time.monotonic() < end:
                        time.sleep(0.01)
                    return out

                module.SyncEngine.reconcile = reconcile

            spec.loader.exec_module = exec_module
            return spec

    sys.meta_path.insert(0, _Hook())
"""


class _Gate:
    """The gate of a ``gbrain watch`` started by :func:`_watch_held_after_chunks`: while it is
    shut (``shut()``: a file exists) the watch holds after each chunk it commits, so a stop or kill
    the test sends once it sees the first chunk lands between chunks however loaded the machine
    (under load 18 all 60 chunks were seen to commit before the test's poll saw the first); the
    test opens it (``open()``) after sending the signal. Shut only once the watch's first sync is
    done: a fixed pause after every chunk, the first sync's too, made each test wait 15-24 s."""

    def __init__(self, path: Path):
        self.path = path

    def shut(self) -> None:
        self.path.write_bytes(b"")

    def open(self) -> None:
        self.path.unlink(missing_ok=True)


def _watch_held_after_chunks(brain_tree, db_path, monkeypatch):
    """A ``gbrain watch`` whose every chunk's commit is followed by a hold while its gate
    (:class:`_Gate`, returned beside it) is shut (a sitecustomize hook). A watch started after it
    does not hold."""
    from test_watch import Watch

    hook = brain_tree.parent / "chunk_hold_hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(CHUNK_HOLD_HOOK)
    gate = _Gate(brain_tree.parent / "chunk_gate")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(x for x in (str(hook), os.environ.get("PYTHONPATH")) if x))
    monkeypatch.setenv("GBRAIN_TEST_CHUNK_GATE", str(gate.path))
    try:
        return Watch(brain_tree, db_path), gate
    finally:
        monkeypatch.delenv("GBRAIN_TEST_CHUNK_GATE")


def test_a_stop_between_chunks_says_how_many_notes_are_left_and_the_next_start_takes_them(brain_tree, db_path, monkeypatch):
    """A real ``gbrain watch`` stopped (SIGINT) while a big round's chunks run: it says on stderr
    how many notes it left for the next start, and the next start's first sync takes each of
    them: nothing lost, a fresh import equal. The stop is sent once the first chunk committed
    (a note of it is in the brain); chunks of 1 over 60 notes, the watch held after each while
    its gate is shut, make it land between chunks."""
    import re
    import signal

    from test_watch import Watch

    monkeypatch.setenv("GBRAIN_WATCH_CHUNK", "1")
    d = brain_tree / "storm"
    d.mkdir()
    for i in range(60):
        (d / f"s{i:02d}.md").write_text(f"# S{i}\n\nbody\n")
    w, gate = _watch_held_after_chunks(brain_tree, db_path, monkeypatch)
    try:
        with Brain.open(db_path) as b:
            wait_for(lambda: b.conn.execute("SELECT COUNT(*) FROM pages WHERE path LIKE 'storm/%'").fetchone()[0] == 60, "60 pages")
            settle(b, brain_tree)
            gate.shut()
            for i in range(60):
                in_place(d / f"s{i:02d}.md", f"# S{i}\n\nbody\nZZEDITZZ\n".encode())

            def edited() -> int:
                return b.conn.execute("SELECT COUNT(*) FROM pages WHERE path LIKE 'storm/%' AND compiled_truth LIKE '%ZZEDITZZ%'").fetchone()[0]

            wait_for(lambda: edited() > 0, "the first chunk")
            w.p.send_signal(signal.SIGINT)
            gate.open()  # (the signal is pending: the watch stops before its next chunk)
            w.p.wait(timeout=60)
            w._t.join(timeout=5)
            text = "\n".join(w.lines)
            left = 60 - edited()
            assert left > 0, text  # (the stop landed between chunks)
            m = re.search(r"stopped: ([\d,]+) files? left for the next start", text)
            assert m and int(m.group(1).replace(",", "")) == left, text
        # the next start takes them
        w2 = Watch(brain_tree, db_path)
        try:
            with Brain.open(db_path) as b:
                wait_for(lambda: b.conn.execute("SELECT COUNT(*) FROM pages WHERE path LIKE 'storm/%' AND compiled_truth LIKE '%ZZEDITZZ%'").fetchone()[0] == 60, "60 edits")
                stop_ok(w2)
                verify_equal(b, brain_tree)
                assert fresh_import_differences(b) == {}
        finally:
            w2.kill()
    finally:
        w.kill()


def test_the_files_left_at_a_sigterm_are_the_files_the_next_start_takes_an_evicted_note_none(brain_tree, db_path, monkeypatch):
    """Trial 68: SIGTERM during a find-and-replace round said "534 files left for the next
    start" and the restart took 533: the one more was a note iCloud Drive had evicted (only its
    placeholder ``.NAME.md.icloud`` on disk), its ``sync_state`` row counted as a file gone while
    every sync leaves it alone. A real watch, stopped by SIGTERM between chunks: the number said
    is the number the next start's first sync takes (``at start: N file→db``)."""
    import re
    import signal

    from test_watch import Watch
    from gbrain.sync.scan import icloud_placeholder

    monkeypatch.setenv("GBRAIN_WATCH_CHUNK", "1")
    d = brain_tree / "storm"
    d.mkdir()
    for i in range(60):
        (d / f"s{i:02d}.md").write_text(f"# S{i}\n\nbody\n")
    (d / "away.md").write_text("# Away\n\nkept in the cloud\n")
    w, gate = _watch_held_after_chunks(brain_tree, db_path, monkeypatch)
    try:
        with Brain.open(db_path) as b:
            wait_for(lambda: b.conn.execute("SELECT COUNT(*) FROM pages WHERE path LIKE 'storm/%'").fetchone()[0] == 61, "61 pages")
            settle(b, brain_tree)
            (brain_tree / icloud_placeholder("storm/away.md")).write_bytes(b"bplist00")  # iCloud evicts it
            (d / "away.md").unlink()
            wait_for(lambda: w.saw("storm/away.md: evicted by iCloud Drive"), "the eviction said")
            gate.shut()
            for i in range(60):
                in_place(d / f"s{i:02d}.md", f"# S{i}\n\nbody\nZZEDITZZ\n".encode())

            def edited() -> int:
                return b.conn.execute("SELECT COUNT(*) FROM pages WHERE path LIKE 'storm/%' AND compiled_truth LIKE '%ZZEDITZZ%'").fetchone()[0]

            wait_for(lambda: edited() > 0, "the first chunk")
            w.p.send_signal(signal.SIGTERM)
            gate.open()  # (the signal is pending: the watch stops before its next chunk)
            w.p.wait(timeout=60)
            w._t.join(timeout=5)
            text = "\n".join(w.lines)
            left = 60 - edited()
            assert left > 0, text  # (the stop landed between chunks)
            m = re.search(r"stopped: ([\d,]+) files? left for the next start", text)
            assert m and int(m.group(1).replace(",", "")) == left, text
        w2 = Watch(brain_tree, db_path)
        try:
            assert w2.saw(f"at start: {left} file→db)"), w2.lines
            stop_ok(w2)
        finally:
            w2.kill()
    finally:
        w.kill()


@pytest.mark.parametrize("chunk,notes_events", [("0", True), (CHUNK, True), (CHUNK, False)])
def test_a_folder_renamed_commits_its_moves_in_chunks_each_move_whole(started, db_path, monkeypatch, chunk, notes_events):
    """A folder of many notes renamed (the observer's batch: the folder's two names and every
    note's two ends): each note a move (page id, history and backlinks kept), chunks on and off
    alike. On, no transaction carries more than a chunk's moves: each rename stays whole (both
    ends in one chunk), another connection sees them arrive a few at a time and its writes
    between them go through. So when the batch has the folder's events alone (the observer's
    events of its notes came later, in another batch: the folder's walk takes them)."""
    b, w, root, said = started
    fold = root / "fold"
    fold.mkdir()
    for i in range(NOTES):
        (fold / f"f{i:02d}.md").write_text(f"# F{i}\n\nIn the folder, see [[hub]].\n")
    (root / "contents.md").write_text("# Contents\n\n" + "".join(f"- [[f{i:02d}]]\n" for i in range(NOTES)))
    assert w.engine.sync()["ok"]
    ids = {i: b.page_row(f"fold/f{i:02d}")["id"] for i in range(NOTES)}
    monkeypatch.setenv("GBRAIN_WATCH_CHUNK", chunk)
    os.rename(fold, root / "moved")
    paths = {f"fold/f{i:02d}.md" for i in range(NOTES)} | {f"moved/f{i:02d}.md" for i in range(NOTES)} if notes_events else set()
    real = w.engine.reconcile
    seen: list[int] = []
    with Brain.open(db_path) as other:

        def spy(*a, **kw):
            out = real(*a, **kw)
            rows = other.conn.execute("SELECT path FROM pages WHERE path LIKE 'fold/%' OR path LIKE 'moved/%'").fetchall()
            assert len(rows) == NOTES  # each move whole: never a page at both names, nor at none
            seen.append(sum(1 for (p,) in rows if p.startswith("moved/")))
            other.put(f"writer/w{len(seen)}", f"# W{len(seen)}\n\nwritten between two chunks\n")
            return out

        monkeypatch.setattr(w.engine, "reconcile", spy)
        assert w._safe_batch(paths, {"fold", "moved"}, retry={}, maybe_moved=set(), closed=set())
    if chunk == "0":
        assert seen == [NOTES]
    else:
        steps = [b2 - a2 for a2, b2 in zip([0, *seen], seen)]
        assert max(steps) <= max(1, int(chunk) // 2) and seen[-1] == NOTES and len(seen) > NOTES // int(chunk), seen
    assert sorted(w.moved) == sorted((f"fold/f{i:02d}.md", f"moved/f{i:02d}.md") for i in range(NOTES)), said
    assert w.counts["moved"] == NOTES and w.counts["trashed"] == 0 and w.counts["imported"] == 0, w.counts
    assert w.batches == 1
    for i in range(NOTES):
        assert b.page_row(f"moved/f{i:02d}")["id"] == ids[i]
        assert [r["slug"] for r in b.backlinks(f"moved/f{i:02d}")] == ["contents"]
    hist = b.conn.execute("SELECT COUNT(*) FROM history WHERE path LIKE 'fold/%'").fetchone()[0]
    assert hist >= NOTES  # the old names' versions kept
    w.engine.reconcile = real
    rep = w.engine.sync()
    assert rep["ok"] and rep["counts"]["imported"] == 0 and rep["counts"]["moved"] == 0 and rep["counts"]["trashed"] == 0, rep
    verify_equal(b, root)
    assert fresh_import_differences(b) == {}


def test_saves_by_temp_and_rename_beside_renames_are_cut_too(started, monkeypatch):
    """Many notes saved by temp + rename (another inode each) in the round of two exact renames:
    the renames go first, each pair whole in a chunk; the saves, with nothing left
    they could pair with, are cut as plain edits. Beside a deletion that pairs with nothing
    they stay in the first chunk (the deleted note could be any of them, moved)."""
    b, w, root, said = started
    monkeypatch.setenv("GBRAIN_WATCH_CHUNK", CHUNK)
    paths = set()
    for i in range(NOTES):
        f = root / f"n{i:02d}.md"
        tmp = root / f".n{i:02d}.md.tmp"
        tmp.write_bytes(f.read_bytes() + b"ZZEDITZZ\n")
        os.rename(tmp, f)
        paths.add(f.name)
    os.rename(root / "hub.md", root / "hub2.md")
    os.rename(root / "old name.md", root / "new name.md")
    paths |= {"hub.md", "hub2.md", "old name.md", "new name.md"}
    moves, rest = w._move_chunks(paths, set(), {})
    assert moves == [{"hub.md", "hub2.md", "old name.md", "new name.md"}] and rest == paths - moves[0]  # (two pairs a chunk of 5)
    chunks = w._chunks(rest, set(), {})
    assert len(chunks) == -(-NOTES // int(CHUNK)) and max(map(len, chunks)) == int(CHUNK)
    sizes: list[int] = []
    real = w.engine.reconcile

    def spy(paths=(), *a, **kw):
        sizes.append(len(set(paths)))
        return real(paths, *a, **kw)

    monkeypatch.setattr(w.engine, "reconcile", spy)
    assert w._safe_batch(paths, set(), retry={}, maybe_moved=set(), closed=set())
    assert max(sizes) <= int(CHUNK) and sum(sizes) == len(paths), sizes
    assert sorted(w.moved) == [("hub.md", "hub2.md"), ("old name.md", "new name.md")]
    assert all("ZZEDITZZ" in b.get_text(f"n{i:02d}") for i in range(NOTES))
    monkeypatch.setattr(w.engine, "reconcile", real)
    os.remove(root / "hub2.md")  # a deletion beside them: the saves stay in the first chunk
    for i in range(NOTES):
        f = root / f"n{i:02d}.md"
        tmp = root / f".n{i:02d}.md.tmp"
        tmp.write_bytes(f.read_bytes() + b"again\n")
        os.rename(tmp, f)
    again = {f"n{i:02d}.md" for i in range(NOTES)} | {"hub2.md"}
    assert w._move_chunks(again, set(), {}) == ([], again)
    assert len(w._chunks(again, set(), {})) == 1
    assert w._safe_batch(again, set(), retry={}, maybe_moved=set(), closed=set())
    verify_equal(b, root)
    assert fresh_import_differences(b) == {}


@pytest.mark.parametrize("chunk", ["0", CHUNK])
def test_the_first_sync_after_a_storm_while_stopped_commits_its_big_parts_in_chunks(started, db_path, monkeypatch, chunk):
    """While watch was stopped, every note was rewritten in place and a folder renamed; a note
    deleted and one created beside them. The next start's first sync (and a rescan, the same
    code) commits the renames and the plain edits a chunk at a time before its full sync, which
    does the rest: another connection's writes get in between, and the outcome is the one sync's
    (moves kept as moves, the deletion trashed, the new note imported, the start line's counts
    whole, one batch)."""
    b, w, root, said = started
    fold = root / "fold"
    fold.mkdir()
    for i in range(NOTES):
        (fold / f"f{i:02d}.md").write_text(f"# F{i}\n\nIn the folder.\n")
    assert w.engine.sync()["ok"]
    ids = {i: b.page_row(f"fold/f{i:02d}")["id"] for i in range(NOTES)}
    monkeypatch.setenv("GBRAIN_WATCH_CHUNK", chunk)
    for i in range(NOTES):
        f = root / f"n{i:02d}.md"
        in_place(f, f.read_bytes() + b"ZZEDITZZ\n")
    os.rename(fold, root / "moved")
    os.remove(root / "hub.md")
    (root / "fresh.md").write_text("# Fresh\n")
    real_rec, real_sync = w.engine.reconcile, w.engine.sync
    seen: list[tuple[int, int]] = []  # after each transaction: (notes edited, notes moved) as another connection sees them
    with Brain.open(db_path) as other:

        def look():
            c = other.conn
            seen.append((c.execute("SELECT COUNT(*) FROM pages WHERE compiled_truth LIKE '%ZZEDITZZ%'").fetchone()[0],
                         c.execute("SELECT COUNT(*) FROM pages WHERE path LIKE 'moved/%'").fetchone()[0]))
            other.put(f"writer/w{len(seen)}", f"# W{len(seen)}\n\nwritten between two chunks\n")

        def rec(*a, **kw):
            out = real_rec(*a, **kw)
            look()
            return out

        def sync(*a, **kw):
            out = real_sync(*a, **kw)
            look()
            return out

        monkeypatch.setattr(w.engine, "reconcile", rec)
        monkeypatch.setattr(w.engine, "sync", sync)
        rep = w._first_sync()
    assert rep["ok"], rep
    if chunk == "0":
        assert seen == [(NOTES, NOTES)], seen
    else:
        steps = [(b2[0] - a2[0]) + (b2[1] - a2[1]) for a2, b2 in zip([(0, 0), *seen], seen)]
        assert len(seen) > 2 * NOTES // int(chunk) and max(steps) <= int(chunk) and seen[-1] == (NOTES, NOTES), seen
    assert rep["counts"]["imported"] == NOTES + 1 and rep["counts"]["moved"] == NOTES and rep["counts"]["trashed"] == 1, rep["counts"]
    assert sorted((m["from"], m["to"]) for m in rep["moved"]) == sorted((f"fold/f{i:02d}.md", f"moved/f{i:02d}.md") for i in range(NOTES))
    w._add_initial(rep)
    assert w.counts["imported"] == NOTES + 1 and w.counts["moved"] == NOTES and len(w.moved) == NOTES and w.batches == 1, (w.counts, w.batches)
    assert all(b.page_row(f"moved/f{i:02d}")["id"] == ids[i] for i in range(NOTES))
    assert b.page_row("hub") is None and b.page_row("fresh") is not None
    monkeypatch.setattr(w.engine, "reconcile", real_rec)
    monkeypatch.setattr(w.engine, "sync", real_sync)
    again = w.engine.sync()
    assert again["ok"] and again["counts"]["imported"] == 0 and again["counts"]["moved"] == 0, again
    verify_equal(b, root)
    assert fresh_import_differences(b) == {}


def test_a_folder_renamed_into_an_ignored_name_is_still_refused_as_a_mass_deletion(started, monkeypatch):
    """A folder of many notes renamed to a name ``.gbrainignore`` leaves out: for the brain its
    notes were deleted, not moved. No rename chunk takes them (the ignored new paths are no
    move target), so the round's deletions meet the mass-deletion guard together, as without
    chunks: refused, the pages kept."""
    b, w, root, said = started
    fold = root / "fold"
    fold.mkdir()
    for i in range(NOTES):
        (fold / f"f{i:02d}.md").write_text(f"# F{i}\n\nIn the folder.\n")
    (root / ".gbrainignore").write_text("archive/\n")
    assert w.engine.sync()["ok"]
    w.engine.reload_ignore()
    monkeypatch.setenv("GBRAIN_WATCH_CHUNK", CHUNK)
    os.rename(fold, root / "archive")
    paths = {f"fold/f{i:02d}.md" for i in range(NOTES)} | {f"archive/f{i:02d}.md" for i in range(NOTES)}
    assert w._move_chunks(paths, {"fold", "archive"}, {}) == ([], paths)
    assert w._safe_batch(paths, {"fold", "archive"}, retry={}, maybe_moved=set(), closed=set())
    assert w.counts["trashed"] == 0 and any("confirm-delete" in s for s in said), said
    assert all(b.page_row(f"fold/f{i:02d}") is not None for i in range(NOTES))


@pytest.mark.parametrize("chunk,at_start", [("0", False), (CHUNK, False), ("0", True), (CHUNK, True)])
def test_renames_into_a_folder_emptied_in_the_same_round_do_not_dilute_the_mass_deletion_guard(started, monkeypatch, chunk, at_start):
    """Every note of ``a/`` deleted and, in the same round, more notes renamed into ``a/`` from
    ``b/``. The one round weighs the deletions against ``a/``'s notes before the round (all of
    them gone: refused). Committing the renames first would have counted the notes moved in as
    ``a/``'s, and the deletions, now under half of the folder, went through: trashed with no
    confirmation. Chunks on and off alike, in a round and in the first sync after it happened
    while watch was stopped: refused, nothing trashed."""
    b, w, root, said = started
    for i in range(NOTES):
        (root / "a").mkdir(exist_ok=True)
        (root / "a" / f"old{i:02d}.md").write_text(f"# Old {i}\n\nA note of a.\n")
    moving = NOTES + 6
    for i in range(moving):
        (root / "b").mkdir(exist_ok=True)
        (root / "b" / f"m{i:02d}.md").write_text(f"# M{i}\n\nA note of b, moved into a.\n")
    assert w.engine.sync()["ok"]
    monkeypatch.setenv("GBRAIN_WATCH_CHUNK", chunk)
    paths = set()
    for i in range(NOTES):
        os.remove(root / "a" / f"old{i:02d}.md")
        paths.add(f"a/old{i:02d}.md")
    for i in range(moving):
        os.rename(root / "b" / f"m{i:02d}.md", root / "a" / f"m{i:02d}.md")
        paths |= {f"b/m{i:02d}.md", f"a/m{i:02d}.md"}
    if at_start:
        rep = w._first_sync()
        assert rep["counts"].get("trashed", 0) == 0, rep["counts"]
    else:
        assert w._safe_batch(paths, set(), retry={}, maybe_moved=set(), closed=set())
        assert w.counts["trashed"] == 0, w.counts
    assert any("confirm-delete" in s for s in said), said
    assert all(b.page_row(f"a/old{i:02d}") is not None for i in range(NOTES))


def test_a_watch_killed_between_rename_chunks_leaves_the_rest_to_the_next_start(brain_tree, db_path, monkeypatch):
    """A real ``gbrain watch`` killed (SIGKILL: no stop, no cleanup) once the first rename chunk
    of a folder renamed committed: the next start's first sync takes every rename left as a
    move (page ids kept, nothing trashed, no page left at an old name), the files equal the
    brain and a fresh import equals it. Chunks of one pair over 80 notes, each followed by a
    hold in the killed watch while its gate is shut (``_watch_held_after_chunks``), make the kill
    land between chunks."""
    import signal

    from test_watch import Watch, trash

    monkeypatch.setenv("GBRAIN_WATCH_CHUNK", "2")
    d = brain_tree / "storm"
    d.mkdir()
    for i in range(80):
        (d / f"s{i:02d}.md").write_text(f"# S{i}\n\nbody, see [[s{(i + 1) % 80:02d}]]\n")
    w, gate = _watch_held_after_chunks(brain_tree, db_path, monkeypatch)
    try:
        with Brain.open(db_path) as b:
            def count(prefix: str) -> int:
                return b.conn.execute("SELECT COUNT(*) FROM pages WHERE path LIKE ?", (prefix + "/%",)).fetchone()[0]

            wait_for(lambda: count("storm") == 80, "80 pages")
            settle(b, brain_tree)
            ids = dict(b.conn.execute("SELECT path, id FROM pages WHERE path LIKE 'storm/%'").fetchall())
            gate.shut()
            os.rename(d, brain_tree / "moved")
            wait_for(lambda: count("moved") > 0, "the first rename chunk")
            w.p.send_signal(signal.SIGKILL)
            w.p.wait(timeout=60)
            gate.open()
            assert count("moved") < 80 and count("storm") + count("moved") == 80  # (killed between chunks: each move whole)
        w2 = Watch(brain_tree, db_path)
        try:
            with Brain.open(db_path) as b:
                wait_for(lambda: count("moved") == 80, "80 moves")
                stop_ok(w2)
                assert count("storm") == 0
                now = dict(b.conn.execute("SELECT path, id FROM pages WHERE path LIKE 'moved/%'").fetchall())
                assert now == {p.replace("storm/", "moved/", 1): i for p, i in ids.items()}
                assert not [t for t in trash(b) if t.startswith(("storm/", "moved/"))], w2.lines
                verify_equal(b, brain_tree)
                assert fresh_import_differences(b) == {}
        finally:
            w2.kill()
    finally:
        w.kill()


def test_the_files_left_at_a_stop_count_a_rename_once(started):
    """A stop with renames not yet committed (a folder renamed, its rename chunks cut short)
    says each renamed note once in ``stopped: N files left``, not its two names (the old one
    gone, the new one not in ``sync_state``): the same inode at both is one file."""
    b, w, root, said = started
    os.mkdir(root / "fold")
    for i in range(NOTES):
        (root / "fold" / f"f{i:02d}.md").write_text(f"# F{i}\n")
    assert w.engine.sync()["ok"]
    os.rename(root / "fold", root / "moved")
    in_place(root / "n00.md", b"# N0\n\nedited\n")
    (root / "fresh.md").write_text("# Fresh\n")
    w._say_left({"fold/f00.md"})
    assert any(f"stopped: {NOTES + 2} files left for the next start" in s for s in said), said


def _walks(w, monkeypatch) -> list[int]:
    n = [0]
    real = w.engine.scan

    def scan():
        n[0] += 1
        return real()

    monkeypatch.setattr(w.engine, "scan", scan)
    return n


@pytest.mark.parametrize("edited", [0, 2])
def test_a_first_sync_whose_pre_pass_ran_no_chunk_walks_the_tree_once(started, monkeypatch, edited):
    """Watch's first sync (a rescan alike) with no chunk to commit hands its pre-pass's scan to
    the full sync (`SyncEngine.hand_scan`): the tree is walked once, and the report is the one a
    sync walking it again gives (no change, or a few edits, fewer than a chunk)."""
    b, w, root, said = started
    monkeypatch.setenv("GBRAIN_WATCH_CHUNK", CHUNK)
    for i in range(edited):
        f = root / f"n{i:02d}.md"
        in_place(f, f.read_bytes() + b"ZZEDITZZ\n")
    walks = _walks(w, monkeypatch)
    rep = w._first_sync()
    assert walks[0] == 1 and w.engine.prescan is None
    assert rep["ok"] and rep["counts"]["imported"] == edited and rep["files_seen"] == NOTES + 2, rep
    again = w._first_sync()
    assert walks[0] == 2 and again["ok"] and again["counts"]["imported"] == 0 and again["files_seen"] == NOTES + 2, again
    assert b.conn.execute("SELECT COUNT(*) FROM pages WHERE compiled_truth LIKE '%ZZEDITZZ%'").fetchone()[0] == edited
    verify_equal(b, root)
    assert fresh_import_differences(b) == {}


def test_a_handed_scan_is_not_taken_when_the_rules_changed_or_a_save_waits_to_be_put_back(started, monkeypatch):
    """The full sync walks the tree itself when `.gbrainignore` changed after the pre-pass's scan
    (its rules, read again, would not have listed the same files) or a failed write's save of
    this process waits to be put back into the tree (`exporter.left_saves`)."""
    from gbrain.sync import exporter

    b, w, root, said = started
    monkeypatch.setenv("GBRAIN_WATCH_CHUNK", CHUNK)
    walks = _walks(w, monkeypatch)
    real_hand = w.engine.hand_scan

    def hand(*a):
        real_hand(*a)
        (root / ".gbrainignore").write_text("n00.md\n")

    monkeypatch.setattr(w.engine, "hand_scan", hand)
    rep = w._first_sync()
    # the new rules' scan: n00.md ignored, .gbrainignore (written after the pre-pass's scan) seen
    assert walks[0] == 2 and rep["ok"] and rep["changed"]["imported"] == [".gbrainignore"] and rep["comparison"]["left_alone"] == 1, rep
    monkeypatch.setattr(w.engine, "hand_scan", real_hand)
    monkeypatch.setitem(exporter.left_saves, "/nowhere/.x.gbrain-tmp", ("/nowhere/x.md", ""))
    rep = w._first_sync()
    assert walks[0] == 4 and rep["ok"], rep
    monkeypatch.delitem(exporter.left_saves, "/nowhere/.x.gbrain-tmp")
    rep = w._first_sync()
    assert walks[0] == 5 and rep["ok"], rep


def test_the_files_left_at_a_stop_count_no_row_the_next_sync_leaves_alone(started, tmp_path):
    """`stopped: N files left` counts what the next start's first sync takes: a synced note now
    ignored by `.gbrainignore`, and the notes of a folder now a symlink, are left alone by it
    (kept in the brain, never trashed), so none of them is a file left; the new `.gbrainignore`
    and an edited note are."""
    b, w, root, said = started
    os.mkdir(root / "fold")
    for i in range(3):
        (root / "fold" / f"f{i}.md").write_text(f"# F{i}\n")
    assert w.engine.sync()["ok"]
    (root / ".gbrainignore").write_text("n00.md\n")
    os.rename(root / "fold", tmp_path / "elsewhere")
    os.symlink(tmp_path / "elsewhere", root / "fold")
    in_place(root / "n01.md", b"# N1\n\nedited\n")
    w.engine.reload_ignore()
    w._say_left({"n01.md"})
    assert any("stopped: 2 files left for the next start" in s for s in said), said


def test_notes_swapping_names_in_a_storm_stay_in_one_chunk_and_move(started):
    """Two notes swap names (a → tmp, b → a, tmp → b) while many notes are edited in place: a
    chunked sync (``gbrain sync``'s pre-pass, watch's first sync) leaves no temp name in its paths,
    and the two replaced files (each holding the other's recorded inode) were plain edits cut
    into different chunks, each then imported as an edit. They stay together in the first chunk:
    both pages move with their text (``Plan.swaps``) in the full sync after the chunks, the rest
    chunk as before."""
    b, w, root, said = started
    ids = {n: b.page_row(n)["id"] for n in ("n03", "n20")}
    os.rename(root / "n03.md", root / "tmp.md")
    os.rename(root / "n20.md", root / "n03.md")
    os.rename(root / "tmp.md", root / "n20.md")
    for i in range(NOTES):
        if i not in (3, 20):
            f = root / f"n{i:02d}.md"
            in_place(f, f.read_bytes() + b"ZZEDITZZ\n")
    w.engine.chunk = int(CHUNK)
    rounds = []
    real = w.engine.reconcile

    def spy(paths, *a, **kw):
        rounds.append(set(paths) if paths is not None else None)
        return real(paths, *a, **kw)

    w.engine.reconcile = spy
    rep = w.engine.sync()
    assert rep["ok"], rep
    assert len(rounds) >= 2 and not any(r & {"n03.md", "n20.md"} for r in rounds), rounds  # chunks; the pair left to the full sync together
    assert {n: b.page_row(n)["id"] for n in ("n03", "n20")} == {"n03": ids["n20"], "n20": ids["n03"]}, said
    assert sorted((m["from"], m["to"]) for m in rep["moved"]) == [("n03.md", "n20.md"), ("n20.md", "n03.md")], rep["moved"]
    verify_equal(b, root)
    assert fresh_import_differences(b) == {}


@pytest.mark.parametrize("chunk", ["0", CHUNK])
@pytest.mark.parametrize("gone", ["n03.md", "hub.md"])
def test_a_note_deleted_among_lone_deletions_and_back_under_a_new_name_later_is_a_move(started, monkeypatch, tmp_path, chunk, gone):
    """Twelve notes deleted in one batch, nothing to pair them with, so chunked (``_lone_gone``,
    chunk 5) or not: one of them (a plain note, or ``hub.md`` that every note links to) was moved
    out of the folder and comes back under a new name in a later batch. Chunked as one round: the
    page comes back as a late move (``_revive``: its id, a move in the history), the links to it
    resolving as before, a fresh import equal."""
    b, w, root, said = started
    monkeypatch.setenv("GBRAIN_WATCH_CHUNK", chunk)
    pid = b.page_row(gone[:-3])["id"]
    away = tmp_path / "away.md"
    os.rename(root / gone, away)
    paths = {gone}
    for i in range(12):
        if f"n{i:02d}.md" != gone:
            (root / f"n{i:02d}.md").unlink()
            paths.add(f"n{i:02d}.md")
    commits = b.commits
    assert w._safe_batch(paths, set(), retry={}, maybe_moved=set(), closed=set())
    assert b.page_row(gone[:-3]) is None and b.page_row("n11") is None
    assert chunk == "0" or b.commits - commits > 1, b.commits - commits  # (chunked: more than one transaction)
    new = "back " + gone
    os.rename(away, root / new)
    assert w._safe_batch({new}, set(), retry={}, maybe_moved=set(), closed=set())
    row = b.page_row(new[:-3])
    assert row is not None and row["id"] == pid, (row and row["id"], pid, said[-20:])
    assert any(s.startswith("> ") and new in s for s in said), said[-20:]
    assert fresh_import_differences(b) == {}
    verify_equal(b, root)
