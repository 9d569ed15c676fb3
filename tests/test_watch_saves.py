"""Editors' saves under watch, with a gap between their steps: a real watchdog observer turns
real file operations into events (:class:`gbrain.sync.watch._Handler`), and the watch's pending
set is driven with made-up times (as ``tests/test_mass_delete.py`` does), so a gap of 0.3 s
between two steps of a save is exact however busy the machine is: nothing waits on a clock, the
tests wait only for the observer's events to arrive. Both engines (``db_path``).
"""
from __future__ import annotations

import os
import queue
from pathlib import Path

import pytest

from gbrain.core.brain import Brain
from gbrain.core.history import trash_list, version_bytes, versions
from gbrain.sync.scan import db_excludes, scan_tree
from gbrain.sync.verify import verify_tree
from gbrain.sync.watch import SETTLE_MAX_S, SETTLE_S, Pending, Watcher, _Handler, reports_closes
from test_watch import wait_for


class _Recording(_Handler):
    """watch's handler, also noting each ``closed`` event (after it is queued)."""

    def __init__(self, *a):
        super().__init__(*a)
        self.closed: list[str] = []

    def dispatch(self, event) -> None:
        super().dispatch(event)
        if event.event_type == "closed":
            self.closed.append(self._rel(event.src_path))


class Events:
    """A real observer on ``root`` whose events land in a queue; :meth:`feed` hands them to the
    watcher's pending set at a made-up time."""

    def __init__(self, root: Path):
        from watchdog.observers import Observer

        self.q: queue.SimpleQueue = queue.SimpleQueue()
        self.seen: list[tuple[str, str]] = []
        self.obs = Observer()
        self.handler = _Recording(str(root), self.q, set())
        self.obs.schedule(self.handler, str(root), recursive=True)
        self.obs.start()

    def feed(self, w: Watcher, t: float, until=None, closed: str | None = None) -> None:
        """Add every queued event to ``w.pending`` at time ``t``; with ``until`` (a predicate
        over ``(kind, rel)``), first wait until such an event arrived; with ``closed`` (a path
        just written and closed), until its close arrived where the observer reports closes
        (else until any event of it arrived)."""
        def drain():
            got = False
            while True:
                try:
                    kind, rel, _ = self.q.get_nowait()
                except queue.Empty:
                    return got
                self.seen.append((kind, rel))
                w.pending.add(kind, rel, t)
                got = got or (until is not None and until(kind, rel))

        if closed is not None:
            if reports_closes(self.obs):
                def drain_closed():
                    drain()
                    if closed in self.handler.closed:
                        self.handler.closed.remove(closed)
                        return True
                    return False

                wait_for(drain_closed, f"the close of {closed}")
                return
            until = lambda k, rel: rel == closed  # noqa: E731
        if until is None:
            drain()
        else:
            wait_for(drain, "the observer's event")

    def stop(self) -> None:
        self.obs.stop()
        self.obs.join(timeout=5)


def watcher(b: Brain, root: Path, said: list[str]) -> Watcher:
    w = Watcher(b, root, log=said.append, debounce=0.1, max_wait=2.0)
    w.engine.bind()
    assert w.engine.sync()["ok"]
    return w


def drive(w: Watcher, t: float) -> bool:
    """One tick of watch's loop at time ``t``: the batch due then (if any) is synced."""
    batch = w.pending.take(t, w._exists, w._emptied)
    if batch is None:
        return False
    paths, dirs = batch
    if paths or dirs:
        assert w._safe_batch(paths, dirs, retry={}, maybe_moved=set(w.pending.gone_paths))
    return True


def ops(b: Brain, slug: str) -> list[str]:
    return [v["op"] for v in reversed(versions(b, slug, limit=0)["versions"])]


def equal(b: Brain, root: Path) -> bool:
    return verify_tree(b, scan_tree(root, exclude_abs=db_excludes(b.path)))["ok"]


@pytest.fixture
def vault(tmp_path):
    root = tmp_path / "v"
    root.mkdir()
    (root / "note.md").write_text("hello\n", encoding="utf-8")
    (root / "other.md").write_text("see [[note]]\n", encoding="utf-8")
    return root


@pytest.mark.parametrize("backup", ["note.md~", "note.md.bak", "OUT"])
@pytest.mark.parametrize("closes", [False, True], ids=["no-closes", "closes"])
def test_a_save_that_renames_the_note_away_then_writes_it_keeps_the_page(tmp_path, db_path, vault, backup, closes):
    """The trial (r6): `mv note.md note.md~; sleep 0.3; write note.md; rm note.md~` under watch
    was a delete and a create (a `delete` version, a new page id, a dangling link meanwhile).
    The source of a move to a temp or backup name, or out of the folder, now waits like a
    deletion: the save is one `update`."""
    note = vault / "note.md"
    away = tmp_path / "elsewhere.md" if backup == "OUT" else vault / backup
    said: list[str] = []
    with Brain.open(db_path) as b:
        w = watcher(b, vault, said)
        pid = b.page_row("note")["id"]
        ev = Events(vault)
        w.pending.closes = closes and reports_closes(ev.obs)
        try:
            t = 100.0
            os.rename(note, away)
            ev.feed(w, t, until=lambda k, rel: rel == "note.md")
            drive(w, t + 0.3)  # the editor has not written the new file yet
            assert b.page_row("note") is not None and ops(b, "note") == ["create"], said
            note.write_text("hello again\n", encoding="utf-8")
            ev.feed(w, t + 0.3, closed="note.md")
            drive(w, t + 0.45)
            away.unlink()
            if backup == "note.md.bak":  # no temp name: the backup was a file for a moment
                ev.feed(w, t + 0.5, until=lambda k, rel: rel == backup and k == "gone")
            for dt in (0.6, 0.6 + SETTLE_S, 0.7 + SETTLE_S):
                ev.feed(w, t + dt)
                drive(w, t + dt)
            assert b.page_row("note")["id"] == pid
            assert b.get_text("note") == "hello again\n"
            assert ops(b, "note") == ["create", "update"], said
            assert "note.md" not in [x["path"] for x in trash_list(b, limit=0)]
            assert b.conn.execute("SELECT COUNT(*) FROM files").fetchone()[0] == 0
            assert equal(b, vault)
        finally:
            ev.stop()
            w.engine.close()


def test_a_note_renamed_to_another_note_is_still_one_move_at_once(tmp_path, db_path, vault):
    """A rename to another page name is not held back: the batch after the debounce moves it."""
    said: list[str] = []
    with Brain.open(db_path) as b:
        w = watcher(b, vault, said)
        pid = b.page_row("note")["id"]
        ev = Events(vault)
        try:
            t = 100.0
            os.rename(vault / "note.md", vault / "renamed.md")
            ev.feed(w, t, until=lambda k, rel: rel == "renamed.md")
            ev.feed(w, t)
            drive(w, t + 0.2)
            assert b.page_row("renamed")["id"] == pid and b.page_row("note") is None
            assert ops(b, "note") == ["create", "move"]
        finally:
            ev.stop()
            w.engine.close()


@pytest.mark.parametrize("closes", [False, True], ids=["no-closes", "closes"])
def test_an_in_place_save_truncated_then_written_stores_no_empty_version(tmp_path, db_path, vault, closes):
    """The trial: an in-place save whose truncate and write were 0.3 s apart stored an empty
    version (and warned "the file is now empty") before the full text. An emptied note now waits
    like a deletion; the save is one `update`."""
    note = vault / "note.md"
    said: list[str] = []
    with Brain.open(db_path) as b:
        w = watcher(b, vault, said)
        ev = Events(vault)
        w.pending.closes = closes and reports_closes(ev.obs)
        try:
            t = 100.0
            with open(note, "r+b") as fh:
                fh.truncate(0)
            ev.feed(w, t, closed="note.md")
            drive(w, t + 0.3)
            assert b.get_text("note") == "hello\n" and ops(b, "note") == ["create"], said
            with open(note, "r+b") as fh:
                fh.write(b"hello, saved in place\n")
            ev.feed(w, t + 0.3, closed="note.md")
            for dt in (0.45, 0.5 + SETTLE_S, 0.6 + SETTLE_S):
                ev.feed(w, t + dt)
                drive(w, t + dt)
            assert b.get_text("note") == "hello, saved in place\n"
            assert ops(b, "note") == ["create", "update"], said
            assert not any("is now empty" in s for s in said), said
            assert equal(b, vault)
        finally:
            ev.stop()
            w.engine.close()


@pytest.mark.parametrize("closes", [False, True], ids=["no-closes", "closes"])
def test_a_note_really_emptied_is_stored_once_the_wait_is_over(tmp_path, db_path, vault, closes):
    """…but a note the user empties is stored (with the warning and its revert) after the wait."""
    note = vault / "note.md"
    said: list[str] = []
    with Brain.open(db_path) as b:
        w = watcher(b, vault, said)
        ev = Events(vault)
        w.pending.closes = closes and reports_closes(ev.obs)
        try:
            t = 100.0
            note.write_bytes(b"")
            ev.feed(w, t, closed="note.md")
            drive(w, t + 0.3)
            assert b.get_text("note") == "hello\n"
            ev.feed(w, t + 0.3)
            drive(w, t + 0.3 + SETTLE_S)
            assert b.get_text("note") == "" and ops(b, "note") == ["create", "update"], said
            assert any("note.md: the file is now empty" in s for s in said), said
            assert not w.pending
            assert equal(b, vault)
        finally:
            ev.stop()
            w.engine.close()


def brain_round(w: Watcher, t: float = 100.0) -> None:
    """What watch's loop does at time ``t`` when another process committed: the change log after
    the cursor, as one brain → file round (the loop's step 3)."""
    rows = w.brain.conn.execute("SELECT seq, path FROM change_log WHERE seq > ? ORDER BY seq", (w.engine.cursor,)).fetchall()
    if rows:
        assert w._log_round({r[1] for r in rows}, rows[-1][0], {}, t)


@pytest.mark.parametrize("closes", [False, True], ids=["no-closes", "closes"])
def test_a_save_written_in_pieces_while_an_agent_writes_the_note_loses_neither(tmp_path, db_path, vault, closes):
    """The agent's-day trial (trial9): an in-place save wrote a third of the note, paused, then
    the rest through the same open file. Watch stored the third (warning "the file shrank"), an
    agent's timeline entry then wrote the page (the third + the entry) to the file by rename, and
    the editor's second write went to the old, unlinked file: the saved note was lost, the file
    held a third of it. A note that lost most of its bytes now waits as an emptied one does,
    and a brain → file round leaves a waiting note alone: the save, once whole, merges with the
    agent's entry."""
    note = vault / "note.md"
    body = "".join(f"Line {i} of a note long enough to be cut by a slow save.\n" for i in range(12))
    note.write_text("# Note\n\n" + body + "\n---\n\n- **2026-01-01** | call — first\n", encoding="utf-8")
    said: list[str] = []
    with Brain.open(db_path) as b:
        w = watcher(b, vault, said)
        ev = Events(vault)
        w.pending.closes = closes and reports_closes(ev.obs)
        try:
            t = 100.0
            full = note.read_text(encoding="utf-8").replace("# Note\n\n", "# Note\n\nTyped by the person.\n\n", 1)
            fh = open(note, "w", encoding="utf-8")
            fh.write(full[: len(full) // 3])
            fh.flush()
            ev.feed(w, t, until=lambda k, rel: rel == "note.md")
            drive(w, t + 0.3)
            assert "Typed by the person" not in b.get_text("note"), said  # the third is not stored
            b.timeline_add("note", "2026-12-03", "AGENT-ENTRY while the note was being saved", "meeting")
            brain_round(w)
            fh.write(full[len(full) // 3 :])
            fh.close()
            ev.feed(w, t + 0.5, closed="note.md")
            for dt in (0.65, 0.7 + SETTLE_S, 0.8 + SETTLE_S):
                ev.feed(w, t + dt)
                drive(w, t + dt)
            brain_round(w)
            text = note.read_text(encoding="utf-8")
            assert "Typed by the person" in text and "Line 11 of" in text and "AGENT-ENTRY" in text, (text, said)
            assert b.get_text("note") == text
            assert not any("shrank" in s for s in said), said
            assert equal(b, vault)
        finally:
            ev.stop()
            w.engine.close()


@pytest.mark.parametrize("via", ["log", "retry"])
def test_an_agents_write_read_against_a_save_that_has_only_truncated_the_note_merges_with_the_save(tmp_path, db_path, vault, via):
    """CI under load (test_watch.py's read-only folder test): an agent's put, then the person's
    save by `write_text` (open truncates, then write). Watch's brain → file round for the put ran
    between the two, before the observer's thread had queued the truncation's events: it read the
    empty file as the person's version, so the three-way plan (base, the put, empty) made the put
    a conflict copy and the page the empty file, then the save replaced that: the page lost the
    agent's edit (kept only in the copy and the history). A round that does not come through
    Pending (the change log's; a retry's) now leaves a note found emptied to Pending, as its
    events would have: the save, once written, merges with the put. Made-up times, no timing luck."""
    note = vault / "note.md"
    old = "# Note\n\nFirst paragraph.\n\nSecond paragraph.\n"
    note.write_text(old, encoding="utf-8")
    said: list[str] = []
    with Brain.open(db_path) as b:
        w = watcher(b, vault, said)
        ev = Events(vault)
        try:
            t = 100.0
            b.put("note", old.replace("# Note", "# Note (agent)"))
            fh = open(note, "w", encoding="utf-8")  # the save has truncated the note, not written it yet
            if via == "log":
                brain_round(w, t)
            else:  # (a path retried: a write the folder refused, a file unreadable a moment)
                w._file_round(t, {"note.md": t})
            assert b.get_text("note") == old.replace("# Note", "# Note (agent)"), said
            assert not b.conn.execute("SELECT COUNT(*) FROM sync_conflicts").fetchone()[0], said
            fh.write(old + "\nA line from the folder.\n")
            fh.close()
            ev.feed(w, t, closed="note.md")
            for dt in (0.15, 0.2 + SETTLE_S, 0.3 + SETTLE_S):
                ev.feed(w, t + dt)
                drive(w, t + dt)
            brain_round(w, t + 0.4 + SETTLE_S)
            merged = "# Note (agent)\n\nFirst paragraph.\n\nSecond paragraph.\n\nA line from the folder.\n"
            assert b.get_text("note") == merged and note.read_text(encoding="utf-8") == merged, said
            assert not b.conn.execute("SELECT COUNT(*) FROM sync_conflicts").fetchone()[0], said
            assert sorted(p.name for p in vault.iterdir()) == ["note.md", "other.md"], said
            assert 0 not in [v["size"] for v in versions(b, "note", limit=0)["versions"]], said  # no empty version
            assert not any("is now empty" in s for s in said), said
            assert equal(b, vault)
        finally:
            ev.stop()
            w.engine.close()


@pytest.mark.parametrize("via", ["log", "retry"])
def test_an_agents_write_read_against_a_save_written_in_part_keeps_the_whole_save_and_the_write(tmp_path, db_path, vault, via):
    """86c5906's case, but the save (truncate, then write in pieces) has written a first piece of
    70% of the old size when the round runs, before any event of it came: not emptied, nor shrunk
    by half, so the round read it as the person's version. The three-way merge (base, the put, the
    piece) gave the put's line + the piece, written to the file by rename, so the editor's next
    write went to the old, unlinked file: the save's tail was lost everywhere, the page ending
    mid-line. A round not started by Pending now leaves a note changed on disk since it was last
    synced (its stat) to Pending, as its events would: the save, once written, merges with the put."""
    note = vault / "note.md"
    old = "# Note\n\n" + "".join(f"Line {i} of a note that an editor saves in two pieces.\n" for i in range(8))
    note.write_text(old, encoding="utf-8")
    said: list[str] = []
    with Brain.open(db_path) as b:
        w = watcher(b, vault, said)
        ev = Events(vault)
        try:
            t = 100.0
            b.put("note", old.replace("# Note", "# Note (agent)"))
            new = old + "\nA line from the folder.\n"
            piece = new[: int(len(old) * 0.7)]
            assert len(old) // 2 < len(piece.encode()) < len(old)  # shrunk, by less than half
            fh = open(note, "w", encoding="utf-8")
            fh.write(piece)
            fh.flush()  # the save's first piece is on disk; no event of it handed to Pending yet
            if via == "log":
                brain_round(w, t)
            else:  # (a path retried: a write the folder refused, a file unreadable a moment)
                w._file_round(t, {"note.md": t})
            assert b.get_text("note") == old.replace("# Note", "# Note (agent)"), said
            fh.write(new[len(piece) :])
            fh.close()
            ev.feed(w, t, closed="note.md")
            for dt in (0.15, 0.2 + SETTLE_S, 0.3 + SETTLE_S):
                ev.feed(w, t + dt)
                drive(w, t + dt)
            brain_round(w, t + 0.4 + SETTLE_S)
            merged = new.replace("# Note", "# Note (agent)")
            assert b.get_text("note") == merged and note.read_text(encoding="utf-8") == merged, said
            assert not b.conn.execute("SELECT COUNT(*) FROM sync_conflicts").fetchone()[0], said
            assert sorted(p.name for p in vault.iterdir()) == ["note.md", "other.md"], said
            assert all(v["size"] >= len(old) for v in versions(b, "note", limit=0)["versions"]), said  # no torn version
            assert equal(b, vault)
        finally:
            ev.stop()
            w.engine.close()


def closing_events(w: Watcher, root: Path) -> Events:
    """:class:`Events` on an observer that reports closes-after-write (inotify), told to ``w``'s
    pending set as watch's loop tells it (:meth:`Watcher.run`); skips elsewhere."""
    from watchdog.observers import Observer

    try:
        from watchdog.observers.inotify import InotifyObserver
    except Exception:  # not Linux
        InotifyObserver = ()
    if not isinstance(Observer(), InotifyObserver):
        pytest.skip("this platform's observer reports no close-after-write (the 1 s rule's tests cover it)")
    ev = Events(root)
    w.pending.closes = True
    return ev


def test_a_save_written_in_pieces_with_a_pause_over_the_settle_while_an_agent_writes_loses_neither(tmp_path, db_path, vault):
    """trial9, the round f4a8589 still lost: the editor's pause between its two writes was over
    SETTLE_S (an agent's first MCP call takes ~1.5 s), so the shrunk note's hold had run out: watch
    stored the third, the agent's entry wrote the page to the file by rename, and the editor's
    rest went to the old, unlinked file. On an observer that reports closes, a note whose last
    event is a write without a close (its writer still has it open) waits for the close, and a
    brain → file round leaves it alone meanwhile."""
    note = vault / "note.md"
    body = "".join(f"Line {i} of a note long enough to be cut by a slow save.\n" for i in range(12))
    note.write_text("# Note\n\n" + body + "\n---\n\n- **2026-01-01** | call — first\n", encoding="utf-8")
    said: list[str] = []
    with Brain.open(db_path) as b:
        w = watcher(b, vault, said)
        ev = closing_events(w, vault)
        try:
            t = 100.0
            full = note.read_text(encoding="utf-8").replace("# Note\n\n", "# Note\n\nTyped by the person.\n\n", 1)
            fh = open(note, "w", encoding="utf-8")
            fh.write(full[: len(full) // 3])
            fh.flush()
            ev.feed(w, t, until=lambda k, rel: rel == "note.md")
            drive(w, t + 0.3)
            b.timeline_add("note", "2026-12-03", "AGENT-ENTRY while the note was being saved", "meeting")
            brain_round(w)
            for dt in (0.3 + SETTLE_S, 0.5 + SETTLE_S, 2.5):  # the editor's pause: 2.5 s
                ev.feed(w, t + dt)
                drive(w, t + dt)
                brain_round(w)
            assert "Typed by the person" not in b.get_text("note"), said  # the third is not stored
            fh.write(full[len(full) // 3 :])
            fh.close()
            ev.feed(w, t + 2.6, closed="note.md")
            drive(w, t + 2.75)  # at once after the close: no wait of SETTLE_S
            brain_round(w)
            text = note.read_text(encoding="utf-8")
            assert "Typed by the person" in text and "Line 11 of" in text and "AGENT-ENTRY" in text, (text, said)
            assert b.get_text("note") == text
            assert not any("shrank" in s for s in said), said
            assert not w.pending
            assert equal(b, vault)
        finally:
            ev.stop()
            w.engine.close()


@pytest.mark.parametrize("closes", [False, True], ids=["no-closes", "closes"])
def test_a_save_whose_close_was_seen_is_read_without_a_second_look(tmp_path, db_path, vault, monkeypatch, closes):
    """A round gives a file changed under a second ago a second look a moment later (a save in
    pieces between two pieces: ``SyncEngine._settle_young``), which costs save → searchable its
    pause; on an observer that reports closes, a note whose last event was its writer's close is
    done: its batch reads it at once (``Pending.closed`` → ``SyncEngine.closed``)."""
    import gbrain.sync.engine as engmod

    note = vault / "note.md"
    said: list[str] = []
    pauses: list[float] = []
    with Brain.open(db_path) as b:
        w = watcher(b, vault, said)
        ev = closing_events(w, vault) if closes else Events(vault)
        monkeypatch.setattr(engmod, "YOUNG_NS", 3600 * 10**9)  # (no load outruns the window)
        monkeypatch.setattr(engmod, "settle_pause", pauses.append)
        try:
            t = 100.0
            note.write_text("hello, saved\n", encoding="utf-8")
            ev.feed(w, t, closed="note.md")
            w._file_round(t + 0.15, {})
            assert b.get_text("note") == "hello, saved\n", said
            # (no closes: one look, after what is left of READ_SETTLE_S since the save: scan.settle_left)
            assert (pauses == []) if closes else (len(pauses) == 1 and 0 <= pauses[0] <= engmod.READ_SETTLE_S), pauses
            assert not w.pending.closed and equal(b, vault)
        finally:
            ev.stop()
            w.engine.close()


def test_a_note_being_written_waits_for_its_close_then_goes_at_once(tmp_path, db_path, vault):
    """Not only a shrunk note: one that grows while its writer still has it open is not stored
    half written (a first piece more than half the note is no less a part); its close releases
    it at the next batch."""
    note = vault / "note.md"
    said: list[str] = []
    with Brain.open(db_path) as b:
        w = watcher(b, vault, said)
        ev = closing_events(w, vault)
        try:
            t = 100.0
            fh = open(note, "a", encoding="utf-8")
            fh.write("a first piece\n")
            fh.flush()
            ev.feed(w, t, until=lambda k, rel: rel == "note.md")
            for dt in (0.3, 0.3 + SETTLE_S, 5.0):
                ev.feed(w, t + dt)
                drive(w, t + dt)
            assert b.get_text("note") == "hello\n", said
            assert w.pending and "note.md" in w.pending.writing()
            fh.write("and the rest\n")
            fh.close()
            ev.feed(w, t + 5.1, closed="note.md")
            drive(w, t + 5.25)
            assert b.get_text("note") == "hello\na first piece\nand the rest\n", said
            assert ops(b, "note") == ["create", "update"], said
            assert not w.pending
            assert equal(b, vault)
        finally:
            ev.stop()
            w.engine.close()


def test_a_note_held_open_too_long_is_released_after_the_max(tmp_path, db_path, vault):
    """A writer that never closes (a logger appending to a note) cannot hold it forever: it is
    stored SETTLE_MAX_S after it was first seen written, as it is then; the next write waits again."""
    note = vault / "note.md"
    said: list[str] = []
    with Brain.open(db_path) as b:
        w = watcher(b, vault, said)
        ev = closing_events(w, vault)
        fh = open(note, "a", encoding="utf-8")
        try:
            t = 100.0
            fh.write("line 1\n")
            fh.flush()
            ev.feed(w, t, until=lambda k, rel: rel == "note.md")
            drive(w, t + 0.3)
            drive(w, t + SETTLE_MAX_S - 0.05)
            assert b.get_text("note") == "hello\n", said
            drive(w, t + SETTLE_MAX_S)
            assert b.get_text("note") == "hello\nline 1\n", said
            assert not w.pending
            fh.write("line 2\n")
            fh.flush()
            ev.feed(w, t + SETTLE_MAX_S + 1, until=lambda k, rel: rel == "note.md")
            drive(w, t + SETTLE_MAX_S + 1.2)
            assert b.get_text("note") == "hello\nline 1\n", said  # waits again
            drive(w, t + 2 * SETTLE_MAX_S + 1)
            assert b.get_text("note") == "hello\nline 1\nline 2\n", said
            assert equal(b, vault)
        finally:
            fh.close()
            ev.stop()
            w.engine.close()


@pytest.mark.engine_free
def test_without_close_events_a_write_is_no_reason_to_wait():
    """Where the observer reports no close-after-write (macOS FSEvents, Windows, the polling
    observer), a written note is batched as before (a shrunk one waits SETTLE_S: the tests above
    with ``closes`` off); with closes it waits for its close, at most SETTLE_MAX_S."""
    p = Pending(0.1, 2.0)
    assert p.closes is False
    p.add("writing", "a.md", 0.0)
    assert p.take(0.2, lambda rel, d: True) == ({"a.md"}, set())
    q = Pending(0.1, 2.0, closes=True)
    q.add("writing", "a.md", 0.0)
    assert q.take(0.2, lambda rel, d: True) == (set(), set())
    assert q and q.writing() == {"a.md"}
    assert q.take(SETTLE_MAX_S - 0.01, lambda rel, d: True) is None
    assert q.take(SETTLE_MAX_S, lambda rel, d: True) == ({"a.md"}, set())
    assert not q
    q.add("writing", "b.md", 40.0)
    q.add("file", "b.md", 40.5)  # its close
    assert q.take(40.55, lambda rel, d: True) is None
    assert q.take(40.6, lambda rel, d: True) == ({"b.md"}, set())


@pytest.mark.engine_free
def test_a_note_waiting_for_its_close_is_released_when_watch_falls_back_to_polling():
    """watch switches to polling mid-run (inotify's watch limit reached by a new folder): the
    polling observer reports no closes, so a note held for its close would wait SETTLE_MAX_S
    (30 s) for nothing; it joins the next batch instead, and later writes are not held."""
    q = Pending(0.1, 2.0, closes=True)
    q.add("writing", "a.md", 0.0)
    assert q.take(0.2, lambda rel, d: True) == (set(), set()) and q.writing() == {"a.md"}
    q.release_open()
    assert q.writing() == set() and q.take(0.3, lambda rel, d: True) == ({"a.md"}, set())
    q.add("writing", "b.md", 1.0)
    assert q.take(1.2, lambda rel, d: True) == ({"b.md"}, set())


@pytest.mark.engine_free
def test_close_events_are_expected_from_inotify_only():
    """Detected per observer: inotify reports IN_CLOSE_WRITE (watchdog's ``closed``); the polling
    observer (and FSEvents, kqueue, Windows') do not."""
    from watchdog.observers.polling import PollingObserver

    assert reports_closes(PollingObserver()) is False
    try:
        from watchdog.observers.inotify import InotifyObserver
    except Exception:
        return
    assert reports_closes(InotifyObserver()) is True


def test_a_burst_of_saves_whose_events_lag_is_held_back_from_an_agents_rewrite(tmp_path, db_path, vault):
    """Trial 65's F1 shape: a person saves 10 notes within half a second, an agent rewrites all
    10 (whole puts of a stub) before the observer's thread has handed watch any event but the
    first's. The change log's brain → file round must write none of the 9 saves it has not
    imported (:meth:`Watcher._unsettled` → :meth:`Watcher._changed_on_disk`): each file keeps
    the person's bytes, goes to Pending, and its own round then keeps the save (merged with the
    put, or a conflict copy) and records it in the history. Events handed by hand at made-up
    times: no observer, no timing luck. (F1 itself was the trial's file list: 9 of its 10 paths
    named the SQLite run's folder, where the saves still were; this pins the invariant it
    suspected, on either engine.)"""
    names = [f"n{i}.md" for i in range(10)]
    old = {n: f"# N{n[1]}\n\n" + "".join(f"Line {j} of note {n}.\n" for j in range(6)) for n in names}
    for n in names:
        (vault / n).write_text(old[n], encoding="utf-8")
    said: list[str] = []
    with Brain.open(db_path) as b:
        w = watcher(b, vault, said)
        t = 100.0
        saved = {n: old[n] + "\nHuman note: checked in person.\n" for n in names}
        for n in names:
            with open(vault / n, "wb") as fh:  # an in-place save, whole
                fh.write(saved[n].encode())
        w.pending.add("file", "n0.md", t)  # only the first save's event came
        drive(w, t + 0.2)
        assert b.get_text("n0") == saved["n0.md"], said
        for n in names[1:]:
            assert b.get_text(n[:-3]) == old[n], said  # not imported yet
        for n in names:
            b.put(n[:-3], f"# N{n[1]}\n\nStub.\n")  # the agent's whole rewrite
        brain_round(w, t + 0.3)
        for n in names[1:]:
            assert (vault / n).read_text(encoding="utf-8") == saved[n], (n, said)  # not written over
            assert n in w.pending.paths, (n, said)  # handed to the file round
        for dt in (0.5, 0.6 + SETTLE_S, 0.7 + SETTLE_S):
            drive(w, t + dt)
        brain_round(w, t + 1.0 + SETTLE_S)
        for n in names:
            kept = [p.read_text(encoding="utf-8") for p in vault.iterdir() if p.name.startswith(n[:-3] + ".")]
            if n != "n0.md":  # (n0's save was imported before the put: the put replaced it, warned, in the history)
                assert any("Human note: checked in person." in x for x in kept), (n, kept, said)  # in its note or a copy
            held = [version_bytes(b, "page", n[:-3], v["version"]) for v in versions(b, n[:-3], limit=0)["versions"]]
            assert any(b"Human note: checked in person." in x for x in held), (n, said)  # and in the history
        assert equal(b, vault), said
        w.engine.close()
