"""`gbrain watch DIR` as a real subprocess with a real watchdog observer on temporary trees.

Waits are event-driven: poll the brain (or the file) until the expected state, fail after
:data:`TIMEOUT` seconds. After each scenario the tree and the brain verify equal and the trash
holds exactly what was deleted.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from gbrain.core.brain import Brain
from gbrain.core.history import trash_list, version_bytes
from gbrain.sync.scan import db_excludes, scan_tree
from gbrain.sync.verify import verify_tree

#: generous: only a failing wait takes it whole. A watch's start runs its first sync (a
#: killed watch's 79 renames left, chunk by chunk, took 14–28 s on Postgres at load 16–18, so
#: 20 s failed 7 in 9 runs of test_watch_chunks' kill test there)
TIMEOUT = 60.0


def wait_for(cond, what: str, timeout: float = TIMEOUT):
    """Poll ``cond()`` until it is truthy; fail with ``what`` after ``timeout`` seconds."""
    end = time.monotonic() + timeout
    last = None
    while time.monotonic() < end:
        try:
            last = cond()
        except Exception as e:  # the DB or the file may be mid-write
            last = e
        if last and not isinstance(last, Exception):
            return last
        time.sleep(0.02)
    pytest.fail(f"timed out after {timeout:.0f} s waiting for {what} (last: {last!r})")


class Watch:
    """A running ``gbrain watch`` subprocess; stderr lines are collected in ``lines``."""

    def __init__(self, root: Path, db: Path, *args: str, prefix: tuple[str, ...] = (), busy_ms: int | None = None):
        """``busy_ms``: the process's SQLite busy timeout (``db.BUSY_TIMEOUT_MS``, 10 s), for a
        test that sits through it (an open behind a full disk's reader)."""
        env = dict(os.environ, GBRAIN_DB=str(db), PYTHONFAULTHANDLER="1")
        run = ["-m", "gbrain"] if busy_ms is None else \
            ["-c", f"from gbrain.storage import db; db.BUSY_TIMEOUT_MS = {busy_ms}; from gbrain.entry import main; main()"]
        self.p = subprocess.Popen([*prefix, sys.executable, *run, "watch", str(root), "--debounce", "50", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        self.lines: list[str] = []
        self._t = threading.Thread(target=self._read, daemon=True)
        self._t.start()
        try:
            wait_for(lambda: any(line.startswith("watching ") for line in self.lines) or self.p.poll() is not None, "watch to start",
                     timeout=3 * TIMEOUT)  # (its first sync: a killed watch's 79 renames left, chunk by chunk, said 37 in 60 s at load 20-27)
        except pytest.fail.Exception as e:
            self.kill()  # (no caller holds it yet to kill it)
            raise pytest.fail.Exception(f"{e}; it said:\n" + "\n".join(self.lines[-50:])) from None
        if self.p.poll() is not None:
            pytest.fail("watch exited early: " + "\n".join(self.lines))

    def _read(self):
        for raw in self.p.stderr:
            self.lines.append(raw.decode("utf-8", "replace").rstrip("\n"))

    def saw(self, text: str) -> bool:
        return any(text in line for line in self.lines)

    def stop(self, sig=signal.SIGINT) -> tuple[int, dict]:
        self.p.send_signal(sig)
        try:
            try:
                self.p.wait(timeout=TIMEOUT / 2)
            except subprocess.TimeoutExpired:
                # Under heavy CPU load a first signal was seen to go unanswered about once in a
                # dozen runs (not even the C-level wakeup fd was written); a person presses Ctrl-C
                # again, and so does this test. A watch that ignores both still fails below.
                self.lines.append("(test: first signal unanswered after %d s; sending it again)" % (TIMEOUT / 2))
                self.p.send_signal(sig)
                self.p.wait(timeout=TIMEOUT / 2)
        except subprocess.TimeoutExpired:
            info = []
            try:
                for task in sorted(os.listdir(f"/proc/{self.p.pid}/task")):
                    st = open(f"/proc/{self.p.pid}/task/{task}/status").read()
                    info.append(task + " " + " ".join(ln for ln in st.splitlines() if ln.startswith(("Name", "SigPnd", "ShdPnd", "SigBlk", "SigIgn", "SigCgt"))))
            except OSError:
                pass
            self.lines.append("\n".join(info))
            self.p.send_signal(signal.SIGABRT)  # faulthandler prints every thread's stack
            self.p.wait(timeout=10)
            self._t.join(timeout=5)
            pytest.fail("watch did not stop within %d s:\n%s" % (TIMEOUT, "\n".join(self.lines[-200:])))
        out = self.p.stdout.read()
        self._t.join(timeout=5)
        return self.p.returncode, out

    def kill(self):
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()


@pytest.fixture
def brain(db_path):
    b = Brain.open(db_path)
    yield b
    b.close()


@pytest.fixture
def watch(brain_tree, db_path):
    started: list[Watch] = []

    def start(*args: str) -> Watch:
        w = Watch(brain_tree, db_path, *args)
        started.append(w)
        return w

    yield start
    for w in started:
        w.kill()


def text_of(brain: Brain, slug: str) -> str | None:
    row = brain.page_row(slug)
    from gbrain.core.brain import render_row

    return render_row(row) if row else None


def equal(brain: Brain, root: Path) -> dict | None:
    rep = verify_tree(brain, scan_tree(root, exclude_abs=db_excludes(brain.path)))
    return rep if rep["ok"] else None


def settle(brain: Brain, root: Path) -> dict:
    return wait_for(lambda: equal(brain, root), "the tree and the brain to verify equal")


def trash(brain: Brain) -> list[str]:
    return [t["path"] for t in reversed(trash_list(brain, limit=0))]


def trashed_bytes(brain: Brain, path: str) -> bytes | None:
    t = next((t for t in trash_list(brain, limit=0) if t["path"] == path), None)
    return None if t is None else version_bytes(brain, t["kind"], t["slug"] or t["path"], t["version"])


def stop_ok(w: Watch) -> dict:
    code, out = w.stop()
    assert code == 0, w.lines
    return out


def test_edit_create_delete(watch, brain, brain_tree):
    w = watch()
    f = brain_tree / "people" / "ana-lima.md"
    new = f.read_bytes() + b"\nEdited while watching.\n"
    f.write_bytes(new)
    wait_for(lambda: text_of(brain, "people/ana-lima") == new.decode(), "the edit to reach the brain")
    wait_for(lambda: w.saw("~ people/ana-lima.md → db"), "the log line")
    (brain_tree / "people" / "carla-new.md").write_text("# Carla\n\nNew person.\n", encoding="utf-8")
    wait_for(lambda: brain.page_row("people/carla-new"), "the new page")
    gone = brain_tree / "concepts" / "hybrid-retrieval.md"
    gone_bytes = gone.read_bytes()
    gone.unlink()
    wait_for(lambda: brain.page_row("concepts/hybrid-retrieval") is None, "the page to go")
    settle(brain, brain_tree)
    assert trash(brain) == ["concepts/hybrid-retrieval.md"]
    assert trashed_bytes(brain, "concepts/hybrid-retrieval.md") == gone_bytes
    summary = stop_ok(w)
    assert b"file" in summary


def test_atomic_saves_count_as_a_change_of_the_target(watch, brain, brain_tree):
    w = watch()
    pid = brain.page_row("people/ana-lima")["id"]
    target = brain_tree / "people" / "ana-lima.md"
    # 1. write a temp file, rename it over the target
    tmp = brain_tree / "people" / ".ana-lima.md.tmp-1234"
    v1 = target.read_bytes() + b"\nsave 1\n"
    tmp.write_bytes(v1)
    os.replace(tmp, target)
    wait_for(lambda: text_of(brain, "people/ana-lima") == v1.decode(), "save 1")
    # 2. vim: rename the target to a backup, write a new target, delete the backup
    backup = brain_tree / "people" / "ana-lima.md~"
    v2 = v1 + b"save 2 (vim)\n"
    os.rename(target, backup)
    target.write_bytes(v2)
    backup.unlink()
    wait_for(lambda: text_of(brain, "people/ana-lima") == v2.decode(), "save 2")
    # 3. JetBrains: ___jb_tmp___ then ___jb_old___
    v3 = v2 + b"save 3 (jetbrains)\n"
    jt = brain_tree / "people" / "ana-lima.md___jb_tmp___"
    jo = brain_tree / "people" / "ana-lima.md___jb_old___"
    jt.write_bytes(v3)
    os.rename(target, jo)
    os.rename(jt, target)
    jo.unlink()
    wait_for(lambda: text_of(brain, "people/ana-lima") == v3.decode(), "save 3")
    settle(brain, brain_tree)
    assert brain.page_row("people/ana-lima")["id"] == pid  # never deleted and re-created
    junk = [r[0] for r in brain.conn.execute("SELECT path FROM pages WHERE path LIKE '%tmp%' OR path LIKE '%~' OR path LIKE '%jb_%' UNION SELECT path FROM files WHERE path LIKE '%tmp%' OR path LIKE '%~' OR path LIKE '%jb_%'")]
    assert junk == [] and trash(brain) == []
    stop_ok(w)


def test_move_and_case_only_rename_keep_the_page(watch, brain, brain_tree):
    w = watch()
    pid = brain.page_row("people/bruno-okafor")["id"]
    tags = brain.tags("people/bruno-okafor")
    (brain_tree / "team").mkdir()
    os.rename(brain_tree / "people" / "bruno-okafor.md", brain_tree / "team" / "bruno-okafor.md")
    wait_for(lambda: brain.page_row("team/bruno-okafor"), "the moved page")
    assert brain.page_row("team/bruno-okafor")["id"] == pid and brain.tags("team/bruno-okafor") == tags
    os.rename(brain_tree / "team" / "bruno-okafor.md", brain_tree / "team" / "Bruno-Okafor.md")
    wait_for(lambda: brain.page_row("team/Bruno-Okafor"), "the case-renamed page")
    assert brain.page_row("team/Bruno-Okafor")["id"] == pid
    assert brain.page_row("people/bruno-okafor") is None and brain.page_row("team/bruno-okafor") is None
    settle(brain, brain_tree)
    assert trash(brain) == []
    wait_for(lambda: w.saw("> team/bruno-okafor.md → team/Bruno-Okafor.md (moved)"), "the move log line")
    stop_ok(w)


def test_two_notes_swapping_names_through_a_temp_name_are_two_moves_each_history_following_its_text(watch, brain, brain_tree, run):
    """a → tmp, b → a, tmp → b (a script, an editor's swap; trial 68 saw two edits: each name's
    history then held the other note's text as its next version). Each page moves with its text:
    ids swap names, ``gbrain history`` of each name lists the text it holds now (its earlier
    versions under the other name; the first page passed through ``NAME (swapping names)``), links resolve by name as Obsidian's do (``[[alpha]]`` opens
    what alpha.md holds), one line says it, and the brain equals a fresh import."""
    import hashlib

    from gbrain.sync.verify import fresh_import_differences

    n = brain_tree / "notes"
    n.mkdir()
    (n / "alpha.md").write_text("# Alpha\n\nAlpha's own text, about apples.\n")
    (n / "beta.md").write_text("# Beta\n\nBeta's own text, about bananas.\n")
    (n / "hub.md").write_text("# Hub\n\nSee [[alpha]] and [[beta]].\n")
    hashes = {s: hashlib.sha256((n / f"{s}.md").read_bytes()).hexdigest() for s in ("alpha", "beta")}
    w = watch()
    settle(brain, brain_tree)
    ids = {s: brain.page_row(f"notes/{s}")["id"] for s in ("alpha", "beta")}
    os.rename(n / "alpha.md", n / "tmp.md")
    os.rename(n / "beta.md", n / "alpha.md")
    os.rename(n / "tmp.md", n / "beta.md")
    wait_for(lambda: w.saw("> notes/alpha.md ↔ notes/beta.md (names swapped)"), "the swap said")
    settle(brain, brain_tree)
    assert {s: brain.page_row(f"notes/{s}")["id"] for s in ("alpha", "beta")} == {"alpha": ids["beta"], "beta": ids["alpha"]}
    assert not w.saw("notes/alpha.md → db") and not w.saw("notes/tmp.md") and not w.saw("swapping names"), w.lines
    for name, other in (("alpha", "beta"), ("beta", "alpha")):
        r = run("history", f"notes/{name}", "--json")
        vs = json.loads(r.stdout)["versions"]
        own = vs[: next(i for i, v in enumerate(vs) if v["op"] == "move" and (v.get("detail") or "").startswith("to "))]
        assert {v["content_hash"] for v in own} == {hashes[other]} and own[0]["detail"].startswith(f"from notes/{other}") and own[-1]["op"] == "create", vs
    assert [b["slug"] for b in brain.backlinks("notes/alpha")] == ["notes/hub"]
    assert trash(brain) == [] and fresh_import_differences(brain) == {}
    out = stop_ok(w)
    assert b"2 moved" in out, out


def test_a_file_renamed_while_the_page_is_edited_in_the_brain_stays_one_page(watch, brain, brain_tree):
    """The rename reaches watch as file events (held back by the debounce) while the brain's
    edit arrives through the change log at once: the log's round must not put the old file back
    (it used to: two "Ana Lima" pages). One page moves, keeps its id, and its new file gets the
    brain's text."""
    w = watch("--debounce", "1000")
    pid = brain.page_row("people/ana-lima")["id"]
    old, new = brain_tree / "people" / "ana-lima.md", brain_tree / "people" / "ana-lima-renamed.md"
    os.rename(old, new)
    brain.tag("people/ana-lima", "moved-edit")
    wait_for(lambda: brain.page_row("people/ana-lima-renamed"), "the moved page")
    wait_for(lambda: b"moved-edit" in new.read_bytes(), "the brain's text in the new file")
    settle(brain, brain_tree)
    assert brain.page_row("people/ana-lima-renamed")["id"] == pid and brain.page_row("people/ana-lima") is None
    assert "moved-edit" in brain.tags("people/ana-lima-renamed")
    assert not old.exists()
    assert brain.conn.execute("SELECT COUNT(*) FROM pages WHERE title = 'Ana Lima'").fetchone()[0] == 1
    assert brain.conn.execute("SELECT COUNT(*) FROM sync_conflicts").fetchone()[0] == 0
    assert trash(brain) == []
    wait_for(lambda: w.saw("> people/ana-lima.md → people/ana-lima-renamed.md (moved)"), "the move log line")
    stop_ok(w)


def test_folder_moved_out_and_back_in(watch, brain, brain_tree, tmp_path):
    w = watch()
    outside = tmp_path / "outside-people"
    before = {r[0] for r in brain.conn.execute("SELECT path FROM pages WHERE path LIKE 'people/%' UNION SELECT path FROM files WHERE path LIKE 'people/%'")}
    assert len(before) == 3
    original = {p: (brain_tree / p).read_bytes() for p in before}
    shutil.move(str(brain_tree / "people"), str(outside))
    wait_for(lambda: brain.conn.execute("SELECT COUNT(*) FROM pages WHERE path LIKE 'people/%'").fetchone()[0] == 0, "the folder's pages to go")
    settle(brain, brain_tree)
    assert set(trash(brain)) == before
    assert all(trashed_bytes(brain, p) == data for p, data in original.items())
    shutil.move(str(outside), str(brain_tree / "people"))
    wait_for(lambda: brain.conn.execute("SELECT COUNT(*) FROM pages WHERE path LIKE 'people/%'").fetchone()[0] == 2, "the folder's pages to return")
    settle(brain, brain_tree)
    assert brain.raw_get("people/ana-lima")  # the sidecar came back with its folder
    stop_ok(w)


def test_burst_of_1000_files_is_one_batch(watch, brain, brain_tree):
    w = watch()
    d = brain_tree / "burst"
    d.mkdir()
    for i in range(1000):
        (d / f"note-{i:04d}.md").write_text(f"# Note {i}\n\nBurst body {i}.\n", encoding="utf-8")
    # a bound for failing, not a speed figure: importing 1,000 pages took over 20 s on Postgres at
    # loadavg 29 on 2 cores (benchmarks/sync.py measures the burst)
    wait_for(lambda: brain.conn.execute("SELECT COUNT(*) FROM pages WHERE path LIKE 'burst/%'").fetchone()[0] == 1000, "1,000 pages", timeout=6 * TIMEOUT)
    settle(brain, brain_tree)
    code, out = w.stop()
    assert code == 0
    text = out.decode()
    batches = int(text.split(" batch(es)")[0].rsplit(" ", 1)[1])
    assert batches <= 4, text  # one batch (two when writing takes longer than the 2 s max wait), plus stragglers on a loaded machine
    assert sum(1 for line in w.lines if line.startswith("+ burst/")) == 1000


def test_writes_from_other_processes_reach_the_files(watch, brain, brain_tree, run):
    w = watch()
    f = brain_tree / "people" / "ana-lima.md"
    r = run("tag", "people/ana-lima", "watched-tag")
    assert r.returncode == 0, r.stderr
    wait_for(lambda: "watched-tag" in f.read_text(encoding="utf-8"), "the tag to reach the file")
    r = run("put", "concepts/from-agent", input="# From an agent\n\nWritten through gbrain put.\n")
    assert r.returncode == 0, r.stderr
    g = brain_tree / "concepts" / "from-agent.md"
    wait_for(lambda: g.exists() and g.read_text(encoding="utf-8").startswith("# From an agent"), "the new page's file")
    wait_for(lambda: w.saw("← db concepts/from-agent"), "the log line")
    r = run("delete", "concepts/from-agent")
    assert r.returncode == 0
    wait_for(lambda: not g.exists(), "the file to be removed")
    r = run("raw", "people/bruno-okafor", "--source", "crm", "--data", '{"stage": "lead"}')
    assert r.returncode == 0, r.stderr
    sc = brain_tree / "people" / ".raw" / "bruno-okafor.json"
    wait_for(lambda: sc.exists() and json.loads(sc.read_text())["sources"]["crm"] == {"stage": "lead"}, "the sidecar file")
    settle(brain, brain_tree)
    # no echo: nothing written by the brain came back as a file → db import
    live = w.lines[next(i for i, x in enumerate(w.lines) if x.startswith("watching ")) :]
    assert not any(line.startswith(("~ ", "+ ")) for line in live), live
    assert sum(1 for line in live if line.startswith("← db")) >= 3
    stop_ok(w)


def test_conflict_while_watch_was_down_and_restart_catch_up(watch, brain, brain_tree, run):
    w = watch()
    stop_ok(w)
    # while nobody watches: one path edited on both sides, others on one side each
    f = brain_tree / "people" / "ana-lima.md"
    file_v = f.read_bytes() + b"\nfile side\n"
    f.write_bytes(file_v)
    brain.put("people/ana-lima", text_of(brain, "people/ana-lima") + "\nbrain side\n")  # the same place: an overlap
    brain_v = text_of(brain, "people/ana-lima").encode()
    g = brain_tree / "people" / "bruno-okafor.md"
    g.write_bytes(g.read_bytes() + b"\nonly the file changed\n")
    brain.tag("companies/river-ai", "only-the-brain-changed")
    (brain_tree / "deals" / "river-ai-series-a.md").unlink()
    w = watch()
    assert w.saw("! conflict people/ana-lima.md")
    start = next(line for line in w.lines if line.startswith("watching "))
    assert "1 trashed" in start and "1 conflict(s)" in start and "file→db" in start and "db→file" in start, start
    settle(brain, brain_tree)
    copies = list((brain_tree / "people").glob("ana-lima.conflict-*.md"))
    assert len(copies) == 1 and copies[0].read_bytes() == brain_v
    assert f.read_bytes() == file_v and text_of(brain, "people/ana-lima").encode() == file_v
    assert "only the file changed" in text_of(brain, "people/bruno-okafor")
    assert "only-the-brain-changed" in (brain_tree / "companies" / "river-ai.md").read_text()
    assert trash(brain) == ["deals/river-ai-series-a.md"]
    r = run("conflicts", "--json")
    assert [c["status"] for c in json.loads(r.stdout)] == ["open"]
    stop_ok(w)


def test_half_written_file_ends_with_its_final_content(watch, brain, brain_tree):
    w = watch()
    f = brain_tree / "meetings" / "long-meeting.md"
    full = ("# Long meeting\n\n" + "".join(f"Paragraph {i} with ümlauts ✓.\n\n" for i in range(2000))).encode()
    with open(f, "wb") as fh:
        fh.write(full[: len(full) // 2 + 1])  # cut inside a multi-byte character, perhaps
        fh.flush()
        time.sleep(0.3)  # an editor pausing mid-write (longer than the debounce)
        fh.write(full[len(full) // 2 + 1 :])
    wait_for(lambda: text_of(brain, "meetings/long-meeting") == full.decode(), "the complete file")
    settle(brain, brain_tree)
    assert f.read_bytes() == full  # gbrain never wrote the half version back
    stop_ok(w)


def test_sigterm_stops_cleanly_with_a_summary(watch, brain, brain_tree):
    w = watch()
    (brain_tree / "people" / "dana.md").write_text("# Dana\n", encoding="utf-8")
    wait_for(lambda: brain.page_row("people/dana"), "the page")
    code, out = w.stop(signal.SIGTERM)
    assert code == 0 and b"watched " in out and b"12 file\xe2\x86\x92db" in out  # 11 at start + 1 live


def test_vanished_root_stops_with_an_error_and_deletes_nothing(watch, brain, brain_tree, tmp_path):
    w = watch()
    n = brain.stats()["pages"]
    shutil.move(str(brain_tree), str(tmp_path / "gone"))
    wait_for(lambda: w.p.poll() is not None, "watch to stop")
    w._t.join(timeout=5)
    assert w.p.returncode == 1
    assert w.saw("vanished")
    assert brain.stats()["pages"] == n and trash(brain) == []


@pytest.mark.sqlite_only("a brain file on disk that can be deleted")
@pytest.mark.parametrize("how", ["deleted", "replaced"])
def test_a_brain_file_deleted_or_replaced_under_watch_stops_it_with_an_error(brain_tree, db_path, tmp_path, how):
    """Trial 36: brain.db deleted (or replaced by a restored copy) while watch ran: watch went on
    saying `~ note.md → db` into the unlinked file, writes no file holds, and died later on a
    "disk I/O error ... check the disk" once another process made a brain at the path. It stops
    at once, exit 1, saying what happened; the notes on disk are untouched."""
    w = Watch(brain_tree, db_path)
    try:
        if how == "deleted":
            os.unlink(db_path)
        else:
            shutil.copy(db_path, tmp_path / "restored.db")
            os.replace(tmp_path / "restored.db", db_path)
        (brain_tree / "after.md").write_text("# After\n\nwritten once the brain file was gone\n")
        wait_for(lambda: w.p.poll() is not None, "watch to stop")
        w._t.join(timeout=5)
    finally:
        w.kill()
    assert w.p.returncode == 1, "\n".join(w.lines)
    assert w.saw(f"brain file {db_path} was deleted or replaced while watch ran"), "\n".join(w.lines)
    assert not w.saw("after.md → db"), "\n".join(w.lines)
    assert (brain_tree / "after.md").exists()


@pytest.mark.engine_free
def test_a_brain_file_inside_a_syncthing_folder_warns_and_its_replacement_names_the_tool(brain_tree, tmp_path):
    """Trial 52: brain.db kept inside the vault Syncthing syncs between two laptops: the tool put
    the other laptop's brain.db over this one's within a minute. Watch warns at its start and,
    when the file is replaced, says the tool did it and to keep the database outside."""
    (brain_tree / ".stfolder").mkdir()
    db = brain_tree / "brain.db"
    w = Watch(brain_tree, db)
    try:
        assert w.saw("which Syncthing syncs"), "\n".join(w.lines)
        shutil.copy(db, tmp_path / "other.db")
        os.replace(tmp_path / "other.db", db)
        (brain_tree / "after.md").write_text("# After\n\nwritten once the brain file was replaced\n")
        wait_for(lambda: w.p.poll() is not None, "watch to stop")
        w._t.join(timeout=5)
    finally:
        w.kill()
    assert w.p.returncode == 1, "\n".join(w.lines)
    stopped = [line for line in w.lines if "was deleted or replaced while watch ran" in line]
    assert stopped and "Syncthing" in stopped[0] and "outside the synced folder" in stopped[0], "\n".join(w.lines)


def test_watch_once_equals_sync(brain_tree, run):
    r = run("watch", str(brain_tree), "--once", "--json")
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    assert rep["ok"] and rep["counts"]["imported"] == 11


@pytest.mark.engine_free
def test_database_inside_the_watched_folder(brain_tree, run):
    db = brain_tree / "brain.db"
    w = Watch(brain_tree, db)
    try:
        r = run("put", "concepts/inside", input="# Inside\n", env={"GBRAIN_DB": str(db)})
        assert r.returncode == 0, r.stderr
        f = brain_tree / "concepts" / "inside.md"
        wait_for(f.exists, "the file")
        with Brain.open(db) as b:
            settle(b, brain_tree)
            assert not b.conn.execute("SELECT COUNT(*) FROM files WHERE path LIKE 'brain.db%'").fetchone()[0]
        code, out = w.stop()
        assert code == 0
        assert not any("brain.db" in line and not line.startswith("note: created a new brain") for line in w.lines), w.lines
    finally:
        w.kill()


def test_both_sides_busy_at_once(watch, brain, brain_tree, db_path):
    """Another connection writes one page 30 times while the file of another page is saved 30
    times: in the end both files and both pages hold the last versions, with no conflict."""
    w = watch()
    f = brain_tree / "people" / "ana-lima.md"
    base = f.read_bytes()
    errors = []

    def writer():
        try:
            with Brain.open(db_path) as other:
                for i in range(30):
                    other.put("concepts/busy", f"# Busy\n\nversion {i}\n")
                    time.sleep(0.01)
        except Exception as e:  # surfaced below
            errors.append(e)

    t = threading.Thread(target=writer)
    t.start()
    for i in range(30):
        f.write_bytes(base + f"\nfile version {i}\n".encode())
        time.sleep(0.01)
    t.join()
    assert not errors
    last_file = base + b"\nfile version 29\n"
    g = brain_tree / "concepts" / "busy.md"
    wait_for(lambda: g.exists() and g.read_bytes() == b"# Busy\n\nversion 29\n", "the last put on disk")
    wait_for(lambda: text_of(brain, "people/ana-lima") == last_file.decode(), "the last save in the brain")
    settle(brain, brain_tree)
    assert f.read_bytes() == last_file
    assert brain.conn.execute("SELECT COUNT(*) FROM sync_conflicts").fetchone()[0] == 0
    stop_ok(w)


def test_rescan_catches_a_change_the_observer_cannot_see(watch, brain, brain_tree, tmp_path):
    """A write through a hard link outside the tree changes the file without any event inside
    the watched folder; the periodic rescan still brings it in."""
    w = watch("--rescan", "1")
    f = brain_tree / "people" / "bruno-okafor.md"
    outside = tmp_path / "outside-link.md"
    os.link(f, outside)
    with open(outside, "ab") as fh:
        fh.write(b"\nWritten through a hard link.\n")
    wait_for(lambda: "Written through a hard link." in (text_of(brain, "people/bruno-okafor") or ""), "the rescan to import the change")
    settle(brain, brain_tree)
    stop_ok(w)


def test_a_file_truncated_to_zero_bytes_warns_and_one_revert_brings_it_back(watch, brain, brain_tree, db_path):
    """Issue 12, zero-byte-save under a real watcher: a crashed save leaves an empty note; watch
    imports it (the folder is the truth) but says so on stderr with the revert to run, the old
    text is a version in the history, and `gbrain revert` (another process) writes it back to
    the file through the running watch."""
    from conftest import gbrain

    w = watch()
    f = brain_tree / "people" / "ana-lima.md"
    before = f.read_bytes()
    assert len(before) > 0
    with open(f, "r+b") as fh:  # what a crashed save leaves: the same file, truncated
        fh.truncate(0)
    wait_for(lambda: text_of(brain, "people/ana-lima") == "", "the empty file to reach the brain")
    wait_for(lambda: w.saw("people/ana-lima.md: the file is now empty"), "the collapse warning on stderr")
    line = next(x for x in w.lines if "the file is now empty" in x)
    assert f"(was {len(before):,} bytes)" in line
    v = [x for x in h_versions(brain, "people/ana-lima") if x["size"] == len(before)][0]["version"]
    assert f"`gbrain revert people/ana-lima --to {v}`" in line
    r = gbrain("--db", str(db_path), "revert", "people/ana-lima", "--to", str(v))
    assert r.returncode == 0, r.stderr
    wait_for(lambda: f.read_bytes() == before, "the reverted text to reach the file")
    settle(brain, brain_tree)
    # the trash is the history: delete through gbrain, the watcher removes the file; restore
    # (another process) brings the page back and the watcher writes the file again
    assert gbrain("--db", str(db_path), "delete", "people/ana-lima").returncode == 0
    wait_for(lambda: not f.exists(), "the deleted page's file to go")
    assert trash(brain) == ["people/ana-lima.md"]
    r = gbrain("--db", str(db_path), "restore", "ana-lima")
    assert r.returncode == 0, r.stderr
    wait_for(lambda: f.exists() and f.read_bytes() == before, "the restored page's file to come back")
    settle(brain, brain_tree)
    stop_ok(w)


def h_versions(brain: Brain, slug: str) -> list[dict]:
    from gbrain.core.history import versions

    return versions(brain, slug, limit=0)["versions"]


@pytest.mark.engine_free
def test_an_emptied_subfolder_under_watch_is_refused_not_trashed(tmp_path):
    """Issue 11 item 2 under a real `gbrain watch`: a synced subfolder whose notes all vanish at
    once (an unmounted sub-volume; `.DS_Store` left) is not trashed: watch says which folder
    and how to confirm, the pages stay, and it goes on watching the rest (it used to exit, so
    later edits elsewhere were not synced); `--confirm-delete` then trashes them."""
    from gbrain.sync.engine import MASS_TRASH

    root, db = tmp_path / "v", tmp_path / "b.db"
    (root / "archive").mkdir(parents=True)
    (root / "keep.md").write_text("# Keep\n")
    for i in range(MASS_TRASH + 10):
        (root / "archive" / f"n{i}.md").write_text(f"# Note {i}\n")
    w = Watch(root, db)
    try:
        for p in (root / "archive").glob("*.md"):
            p.unlink()
        (root / "archive" / ".DS_Store").write_bytes(b"\0\0\0\1Bud1")
        wait_for(lambda: w.saw("archive") and w.saw("--confirm-delete") or w.p.poll() is not None, "watch to refuse")
        assert w.p.poll() is None, "\n".join(w.lines)
        with Brain.open(db) as b:
            assert b.stats()["pages"] == MASS_TRASH + 11 and trash(b) == []
        (root / "keep.md").write_text("# Keep\n\nEdited while the archive was refused.\n")
        (root / "new.md").write_text("# New\n")

        def synced():
            with Brain.open(db) as b:
                row = b.page_row("keep")
                return row is not None and "Edited" in b.get_text("keep") and b.page_row("new") is not None

        wait_for(lambda: synced() or w.p.poll() is not None, "the edits elsewhere to be synced")
        assert w.p.poll() is None, "\n".join(w.lines)
        with Brain.open(db) as b:
            assert b.stats()["pages"] == MASS_TRASH + 12 and trash(b) == []
        assert sum("archive" in line and "confirm-delete" in line for line in w.lines) == 1  # said once
    finally:
        w.kill()
    r = subprocess.run([sys.executable, "-m", "gbrain", "sync", str(root), "--db", str(db), "--confirm-delete"], capture_output=True)
    assert r.returncode == 0, r.stderr.decode()
    with Brain.open(db) as b:
        assert b.stats()["pages"] == 2 and len(trash(b)) == MASS_TRASH + 10


def test_recursive_or_exploding_frontmatter_does_not_stop_watch(watch, brain, brain_tree):
    """A note whose YAML refers to itself, nests 500 deep or is an alias bomb is stored as it is
    (frontmatter kept raw, with a warning); watch goes on indexing what comes next."""
    w = watch()
    bad = {
        "anchor.md": "---\ntitle: &a [*a]\n---\nbody\n",
        "deep.md": "---\na: " + "[" * 500 + "]" * 500 + "\n---\nbody\n",
        "bomb.md": "---\na0: &a0 [x]\n" + "".join(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]\n" for i in range(1, 8)) + "---\nbody\n",
    }
    for name, text in bad.items():
        (brain_tree / "notes" / name).parent.mkdir(parents=True, exist_ok=True)
        (brain_tree / "notes" / name).write_text(text, encoding="utf-8")
    for name, text in bad.items():
        slug = "notes/" + name[:-3]
        wait_for(lambda: text_of(brain, slug) == text, f"{name} to reach the brain")
        assert brain.page_row(slug)["frontmatter_error"]
    (brain_tree / "notes" / "after.md").write_text("# After\n", encoding="utf-8")
    wait_for(lambda: brain.page_row("notes/after"), "a later note to be indexed")
    settle(brain, brain_tree)
    stop_ok(w)


@pytest.mark.engine_free
def test_a_refused_folder_leaves_the_batch_and_the_rest_of_it_syncs(tmp_path):
    """In-process, the batch shapes the observer gives: the refused folder's own paths, a folder
    event above it (its walk must not bring the refused notes back into the batch) and paths
    elsewhere. The rest syncs; the refusal is said once; the refused pages stay."""
    from gbrain.sync.engine import MASS_TRASH
    from gbrain.sync.watch import Watcher

    root, db = tmp_path / "v", tmp_path / "b.db"
    (root / "a" / "b").mkdir(parents=True)
    (root / "a" / "top.md").write_text("# Top\n")
    (root / "keep.md").write_text("# Keep\n")
    for i in range(MASS_TRASH + 2):
        (root / "a" / "b" / f"n{i}.md").write_text(f"# N{i}\n")
    said = []
    with Brain.open(db) as b:
        w = Watcher(b, root, log=said.append)
        w.engine.bind()
        assert w.engine.sync()["ok"]
        for p in (root / "a" / "b").glob("*.md"):
            p.unlink()
        (root / "a" / "top.md").write_text("# Top\n\nedited\n")
        (root / "keep.md").write_text("# Keep\n\nedited\n")
        (root / "new.md").write_text("# New\n")
        gone = {f"a/b/n{i}.md" for i in range(MASS_TRASH + 2)}
        assert w._safe_batch(gone | {"keep.md", "new.md"}, {"a"}, retry={})
        assert w._safe_batch(gone, {"a/b"}, retry={})  # again: said once
        assert "edited" in b.get_text("keep") and "edited" in b.get_text("a/top") and b.page_row("new")
        assert all(b.page_row(f"a/b/n{i}") for i in range(MASS_TRASH + 2)) and trash(b) == []
        assert [s for s in said if "confirm-delete" in s] == [next(s for s in said if "a/b" in s and "confirm-delete" in s)]
        w.engine.close()


@pytest.mark.engine_free
def test_a_folder_gone_while_a_round_writes_into_it_is_retried_not_fatal(tmp_path, monkeypatch):
    """In-process: the folder a brain page is being written into is deleted between sync
    creating it and opening the temp file there (a FileNotFoundError inside a round). The round
    is rolled back and said once; watch goes on and the next try writes the page out."""
    import gbrain.sync.engine as engmod
    from gbrain.sync.watch import Watcher

    root, db = tmp_path / "v", tmp_path / "b.db"
    root.mkdir()
    (root / "keep.md").write_text("# Keep\n")
    said = []
    with Brain.open(db) as b:
        w = Watcher(b, root, log=said.append)
        w.engine.bind()
        assert w.engine.sync()["ok"]
        b.put("new/fresh", "# Fresh\n")
        real = engmod.atomic_write

        def folder_gone(target, data, **kw):
            raise FileNotFoundError(2, "No such file or directory", str(target.parent / ".gbrain-tmp-1"))

        seq = b.conn.execute("SELECT MAX(seq) FROM change_log").fetchone()[0]
        monkeypatch.setattr(engmod, "atomic_write", folder_gone)
        assert w._safe_batch(set(), set(), log_paths={"new/fresh.md"}, consumed_seq=seq, retry={}) is False
        assert [s for s in said if "went away while syncing" in s]
        monkeypatch.setattr(engmod, "atomic_write", real)
        assert w._safe_batch(set(), set(), log_paths={"new/fresh.md"}, consumed_seq=seq, retry={})
        assert (root / "new" / "fresh.md").read_text() == "# Fresh\n"
        w.engine.close()


def test_a_gbrainignore_edit_takes_effect_for_files_already_there(watch, brain, brain_tree):
    """An Obsidian trial: adding `!.trash/` to .gbrainignore while watching left the notes already
    in `.trash/` out of the brain until the 5-minute rescan (they send no event of their own)."""
    (brain_tree / ".trash").mkdir()
    (brain_tree / ".trash" / "old idea.md").write_text("# Old idea\n\nfrom the trash\n", encoding="utf-8")
    w = watch()  # the default rescan (every 300 s) is far beyond the wait below
    wait_for(lambda: w.saw("watching"), "watch to start")
    stored = "SELECT 1 FROM files WHERE path = '.trash/old idea.md'"  # a hidden note: a file, no page (slugs.HIDDEN_WHY)
    assert brain.conn.execute(stored).fetchone() is None
    (brain_tree / ".gbrainignore").write_text("!.trash/\n", encoding="utf-8")
    wait_for(lambda: brain.conn.execute(stored).fetchone() is not None, "the un-ignored note to reach the brain", timeout=60)
    assert brain.page_row(".trash/old idea") is None
    settle(brain, brain_tree)
    stop_ok(w)


@pytest.fixture
def small_fs(tmp_path):
    """A 30 MB tmpfs of the test's own (unmounted at the end)."""
    from conftest import unmount

    mnt = tmp_path / "small"
    mnt.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=30m", "tmpfs", str(mnt)], capture_output=True).returncode:
        pytest.skip("needs root to mount a small tmpfs")
    yield mnt
    unmount(mnt)


def fill_up(fs: Path) -> Path:
    """Write one file on ``fs`` until the disk is full; returns it (unlink it to free the space).
    Unbuffered: a buffered file kept the last write's unwritten bytes and raised ENOSPC again on
    close whenever the free space was not a multiple of the write's size (it failed every run once
    schema v25 made a new brain a few KB smaller)."""
    filler = fs / "filler"
    with open(filler, "wb", buffering=0) as f:
        try:
            while True:
                f.write(b"\0" * (1 << 16))
        except OSError:
            pass
    assert os.statvfs(fs).f_bavail == 0
    return filler


def assert_folder_full_said(line: str) -> None:
    """Trial 59: a file write into the watched folder refused for space (ENOSPC) said "nothing
    was lost (the round was rolled back)", but writing files is no transaction: the pages stay
    in the brain, a file written before stays (whole: written aside and renamed), and the rest
    of the round (files not written, the folder's changes not in the brain yet) comes with the
    next try. The line says that, and no rollback."""
    assert "rolled back" not in line, line
    assert "the disk holding the folder" in line and "nothing was lost" in line, line
    assert "every page stays in the brain" in line and "none half-written" in line, line
    assert "the files not written yet and the folder's changes not in the brain yet" in line and "tries again" in line, line


@pytest.mark.engine_free
@pytest.mark.parametrize("full", ["brain", "folder"])
def test_a_full_disk_pauses_watch_says_it_once_and_it_catches_up_when_space_returns(tmp_path, brain_tree, small_fs, full):
    if full == "brain":
        tree, db = brain_tree, small_fs / "b.db"
    else:
        tree, db = small_fs / "tree", tmp_path / "b.db"
        shutil.copytree(brain_tree, tree)
    Brain.open(db).close()
    w = Watch(tree, db)
    try:
        f = tree / "people" / "ana-lima.md"
        edited = f.read_bytes() + b"\nEdited on a full disk.\n"
        with Brain.open(db) as b:
            settle(b, tree)
        filler = fill_up(small_fs)
        if full == "brain":
            f.write_bytes(edited)  # file → brain: the brain's disk refuses the round
        else:
            with Brain.open(db) as b:  # brain → file: the folder's disk refuses the file
                b.put("notes/from-brain", "# From the brain\n\n" + "word " * 20_000)
        wait_for(lambda: w.saw("is full"), "watch to say the disk is full")
        assert w.p.poll() is None, w.lines  # still running
        assert not w.saw("~ people/ana-lima.md → db") and not w.saw("← db notes/from-brain"), w.lines  # nothing logged that did not happen
        said = next(x for x in w.lines if "is full" in x)
        if full == "brain":
            assert "nothing was lost (the round was rolled back)" in said, said
        else:
            assert_folder_full_said(said)
        filler.unlink()
        with Brain.open(db) as b:
            if full == "brain":
                wait_for(lambda: text_of(b, "people/ana-lima") == edited.decode(), "the edit to reach the brain", timeout=90)
                wait_for(lambda: w.saw("~ people/ana-lima.md → db"), "the log line, once committed")
            else:
                wait_for(lambda: (tree / "notes" / "from-brain.md").exists(), "the page to reach the folder", timeout=90)
            settle(b, tree)
        wait_for(lambda: w.saw("space on the disk again"), "watch to say it goes on")
        assert len([x for x in w.lines if "is full" in x]) == 1, w.lines
        assert not [p for p in tree.rglob(".gbrain-tmp-*")]
        assert stop_ok(w) is not None
    finally:
        w.kill()


@pytest.mark.engine_free
@pytest.mark.parametrize("bound", [True, False])
def test_a_brain_disk_full_at_start_is_said_and_watch_waits_for_space_instead_of_exiting(tmp_path, brain_tree, small_fs, bound, run):
    """`gbrain watch DIR` started on a brain whose disk is full exited (the catch-up sync's write
    failed; a brain never bound failed at binding): it says so once on stderr, that nothing is
    lost, keeps running (others can still read the brain meanwhile) and catches up with the same
    back-off once space returns."""
    db = small_fs / "b.db"
    if bound:
        assert run("sync", str(brain_tree), "--db", str(db)).returncode == 0
    else:
        Brain.open(db).close()
    filler = fill_up(small_fs)
    f = brain_tree / "people" / "ana-lima.md"
    edited = f.read_bytes() + b"\nEdited while the disk was full.\n"
    f.write_bytes(edited)
    w = Watch(brain_tree, db)
    try:
        wait_for(lambda: w.saw("is full"), "watch to say the disk is full")
        line = next(x for x in w.lines if "is full" in x)
        assert "nothing was lost" in line and "tries again" in line, line
        assert w.p.poll() is None, w.lines  # still running
        assert not w.saw("→ db"), w.lines  # nothing logged that did not happen
        r = run("stats", "--db", str(db))
        assert r.returncode == 0, r.stderr  # watch holds no lock that keeps readers out
        filler.unlink()
        with Brain.open(db) as b:
            wait_for(lambda: text_of(b, "people/ana-lima") == edited.decode(), "the edit to reach the brain", timeout=90)
            settle(b, brain_tree)
        wait_for(lambda: w.saw("space on the disk again"), "watch to say it goes on")
        assert len([x for x in w.lines if "is full" in x]) == 1, w.lines
        assert stop_ok(w) is not None
    finally:
        w.kill()


@pytest.mark.engine_free
def test_a_brain_that_cannot_even_be_opened_on_a_full_disk_is_waited_for(tmp_path, brain_tree, small_fs, run):
    """The open itself failed on a full disk (a new brain, which needs space to be made; the same
    for a schema upgrade or a reader the full disk refuses): watch exited with "the disk holding
    … is full" (and left an empty file that the next start refused as "not a brain"). It says
    it once, waits, and makes the brain and syncs once there is space."""
    db = small_fs / "new.db"
    filler = fill_up(small_fs)
    w = Watch(brain_tree, db)
    try:
        wait_for(lambda: w.saw("is full"), "watch to say the disk is full")
        line = next(x for x in w.lines if "is full" in x)
        assert "nothing was lost" in line and "tries again" in line, line
        assert w.p.poll() is None, w.lines  # still running
        assert not db.exists() or db.stat().st_size > 0  # no empty file that is no brain
        assert run("watch", str(brain_tree), "--once", "--db", str(db)).returncode != 0  # once: nothing to wait for
        filler.unlink()
        wait_for(lambda: db.exists() and db.stat().st_size > 0, "the brain to be made", timeout=90)
        with Brain.open(db) as b:
            wait_for(lambda: text_of(b, "people/ana-lima") is not None, "the folder to reach the brain", timeout=90)
            settle(b, brain_tree)
        assert len([x for x in w.lines if "is full" in x]) == 1, w.lines
        assert stop_ok(w) is not None
    finally:
        w.kill()


@pytest.mark.engine_free
def test_watch_waiting_for_space_waits_on_when_space_returns_but_a_full_disk_reader_still_holds_the_brain(tmp_path, brain_tree, small_fs, run):
    """Review of d646f5c: a watch started while another gbrain process reads the brain alone on the
    full disk (a full disk's reader, ``db._connect_on_full_disk``) waits for space (its open said
    the disk is full: ``db.held_alone``). Space came back while that reader still ran: watch's
    reconnect waited SQLite's busy timeout and got ``held_alone``'s kind busy, which it did not
    take for a wait, and watch exited. It says the brain is busy, waits on, and syncs once the
    reader ended."""
    import select

    db = small_fs / "b.db"
    assert run("sync", str(brain_tree), "--db", str(db)).returncode == 0
    filler = fill_up(small_fs)
    reader = subprocess.Popen([sys.executable, "-m", "gbrain", "--db", str(db), "pipe"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
    w = None
    try:
        reader.stdin.write(json.dumps({"id": 1, "tool": "brain_get", "params": {"slug": "people/ana-lima"}}).encode() + b"\n")
        reader.stdin.flush()
        assert select.select([reader.stdout], [], [], 120)[0], "the reader said nothing"
        assert json.loads(reader.stdout.readline())["ok"]  # (it holds the file alone now)
        f = brain_tree / "people" / "ana-lima.md"
        edited = f.read_bytes() + b"\nEdited while another process held the brain.\n"
        f.write_bytes(edited)
        w = Watch(brain_tree, db, busy_ms=1000)  # (each of its opens behind the reader waits its busy timeout)
        wait_for(lambda: w.saw("is full"), "watch to say the disk is full")
        filler.unlink()
        wait_for(lambda: w.saw("busy") or w.p.poll() is not None, "watch's reconnect to meet the reader", timeout=3 * TIMEOUT)
        assert not w.saw("error:") and w.p.poll() is None, w.lines  # still running
        reader.stdin.close()
        assert reader.wait(timeout=120) == 0
        with Brain.open(db) as b:
            wait_for(lambda: text_of(b, "people/ana-lima") == edited.decode(), "the edit to reach the brain", timeout=3 * TIMEOUT)
            settle(b, brain_tree)
        assert stop_ok(w) is not None
    finally:
        if w is not None:
            w.kill()
        if reader.poll() is None:
            reader.kill()


def test_a_folder_disk_full_at_start_is_said_and_watch_waits_for_space_instead_of_exiting(tmp_path, brain_tree, small_fs, db_path, run):
    """The catch-up sync at start writes a page of the brain into a folder whose disk is full:
    said once, watch goes on, and the file is written once space returns."""
    tree = small_fs / "tree"
    shutil.copytree(brain_tree, tree)
    assert run("sync", str(tree), "--db", str(db_path)).returncode == 0
    with Brain.open(db_path) as b:
        b.put("notes/from-brain", "# From the brain\n\n" + "word " * 20_000)
    filler = fill_up(small_fs)
    w = Watch(tree, db_path)
    try:
        wait_for(lambda: w.saw("is full"), "watch to say the disk is full")
        assert w.p.poll() is None, w.lines
        assert_folder_full_said(next(x for x in w.lines if "is full" in x))
        filler.unlink()
        wait_for(lambda: (tree / "notes" / "from-brain.md").exists(), "the page to reach the folder", timeout=90)
        with Brain.open(db_path) as b:
            settle(b, tree)
        assert len([x for x in w.lines if "is full" in x]) == 1, w.lines
        assert not [p for p in tree.rglob(".gbrain-tmp-*")]
        assert stop_ok(w) is not None
    finally:
        w.kill()


def test_the_summary_counts_a_put_back(watch, brain, brain_tree):
    """A page edited in the brain while its file was deleted is put back (a delete/edit conflict
    with no copy): the end-of-watch summary counts it as put back (it said `0 conflict(s)` and
    nothing else, though the log said `! conflict … file restored`)."""
    w = watch()
    stop_ok(w)
    brain.timeline_add("companies/river-ai", "2026-03-03", "brain side", "manual")
    (brain_tree / "companies" / "river-ai.md").unlink()
    w = watch()
    # (the line names who changed it: this test's writer)
    assert w.saw("! conflict companies/river-ai.md: deleted on disk but changed in the brain by ") and w.saw("; file restored")
    out = stop_ok(w)
    assert b"0 conflict(s), 1 put back" in out, out


def test_a_folder_emptied_by_a_brain_delete_goes_too_unless_it_holds_anything(watch, brain, brain_tree, run):
    """Under watch, a page deleted through gbrain takes its file and the folder it emptied with
    it (Obsidian would show the empty folder); a folder still holding a hidden file stays."""
    (brain_tree / "concepts" / ".DS_Store").write_bytes(b"x")
    w = watch()
    assert run("delete", "deals/river-ai-series-a").returncode == 0
    assert run("delete", "concepts/hybrid-retrieval").returncode == 0
    wait_for(lambda: not (brain_tree / "deals").exists(), "the emptied folder deals/ to go")
    wait_for(lambda: not (brain_tree / "concepts" / "hybrid-retrieval.md").exists(), "the file of the deleted page to go")
    assert (brain_tree / "concepts" / ".DS_Store").exists()
    settle(brain, brain_tree)
    # the page's slug, as `gbrain delete` advises it (trial 25: the path form here)
    assert w.saw("← db (deleted) deals/river-ai-series-a.md → trash: `gbrain restore deals/river-ai-series-a` brings it back")
    stop_ok(w)
    assert (brain_tree / "concepts").is_dir() and not (brain_tree / "deals").exists()


@pytest.mark.engine_free  # about the file observer; a Postgres socket is not reachable from the user namespace
@pytest.mark.parametrize("limit", ["max_inotify_watches=3", "max_inotify_watches=0", "max_inotify_instances=0"])
def test_an_inotify_limit_below_the_folder_count_is_said_and_every_folder_is_still_watched(tmp_path, brain_tree, limit):
    """The disaster-day trial: with fs.inotify.max_user_watches reached, watchdog (7.x) watches
    the folders it could and drops the rest without a word: `gbrain watch` said "watching",
    and a note saved in an unwatched folder waited for the rescan (300 s). Run here in a user
    namespace of its own whose limit is 3 watches (the machine's limit is left alone). With no
    watch at all (0) it said "error: no space left writing a file; … free some space" (inotify's
    ENOSPC taken for a full disk), with no inotify instance "inotify instance limit reached: a
    file"; both exit 1. Every case is one warning naming the limit, and polling."""
    name, n = limit.split("=")
    ns = ("unshare", "-U", "-r", "sh", "-c", f'echo {n} > /proc/sys/user/{name} && exec "$@"', "sh")
    if not shutil.which("unshare") or subprocess.run([*ns, "true"], capture_output=True).returncode:
        pytest.skip("needs unshare -U and a per-namespace inotify limit (Linux)")
    for i in range(8):
        (brain_tree / f"deep{i}" / "x").mkdir(parents=True)
    brain = Brain.open(tmp_path / "w.db")
    w = Watch(brain_tree, tmp_path / "w.db", prefix=ns)
    said = [ln for ln in w.lines if "fs.inotify.max_user_" in ln]
    assert len(said) == 1 and said[0].startswith("warning:") and "polling" in said[0], w.lines
    for i in range(8):
        (brain_tree / f"deep{i}" / "x" / "late.md").write_text(f"# Late {i}\n")
    for i in range(8):
        wait_for(lambda: text_of(brain, f"deep{i}/x/late"), f"deep{i}/x/late.md to reach the brain")
    stop_ok(w)
    brain.close()


@pytest.mark.engine_free  # about the file observer; a Postgres socket is not reachable from the user namespace
def test_a_folder_made_past_the_inotify_limit_while_watching_is_said_and_polled(tmp_path, brain_tree):
    """The limit is enough for the tree at start, then a folder is made while watch runs:
    watchdog (7.x) logged its own line ("Unable to watch b'…/new0/sub': [Errno 28] inotify
    watch limit reached") and left the folder unwatched, so a note saved there later waited for
    the rescan (300 s; off here). Now: one warning naming the limit, the sysctl and the
    polling interval; the tree is polled from then on and a full sync covers the switch."""
    from gbrain.sync.watch import folder_count

    n = folder_count(str(brain_tree))  # every folder of the tree at start, not one more
    ns = ("unshare", "-U", "-r", "sh", "-c", f'echo {n} > /proc/sys/user/max_inotify_watches && exec "$@"', "sh")
    if not shutil.which("unshare") or subprocess.run([*ns, "true"], capture_output=True).returncode:
        pytest.skip("needs unshare -U and a per-namespace inotify limit (Linux)")
    brain = Brain.open(tmp_path / "w.db")
    w = Watch(brain_tree, tmp_path / "w.db", "--rescan", "0", prefix=ns)
    try:
        assert not w.saw("fs.inotify"), w.lines  # the tree at start fits
        for i in range(3):
            (brain_tree / f"new{i}" / "sub").mkdir(parents=True)
            (brain_tree / f"new{i}" / "sub" / "first.md").write_text(f"# First {i}\n")
        wait_for(lambda: w.saw("fs.inotify.max_user_watches"), "watch to say the limit")
        for i in range(3):
            wait_for(lambda: text_of(brain, f"new{i}/sub/first"), f"new{i}/sub/first.md to reach the brain")
        # saved after the folder was made: no inotify watch holds new2/sub
        (brain_tree / "new2" / "sub" / "later.md").write_text("# Later\n")
        wait_for(lambda: text_of(brain, "new2/sub/later"), "a note saved later in the unwatched folder to reach the brain")
        said = [ln for ln in w.lines if "fs.inotify.max_user_" in ln]
        assert len(said) == 1 and said[0].startswith("warning: inotify could not watch the folder "), w.lines
        assert f"max_user_watches = {n}" in said[0] and "polling" in said[0] and "every 1 s" in said[0] and "sudo sysctl" in said[0], said
        assert not w.saw("Unable to watch"), w.lines  # watchdog's own line is no longer printed
        stop_ok(w)
    finally:
        w.kill()
        brain.close()


def read_only_mount(src: Path, at: Path) -> tuple[str, ...]:
    """A command prefix running a command where ``at`` is ``src`` mounted read-only (a user and
    mount namespace of its own: root there cannot write it, EROFS); skips where that is not
    possible. Edits made at ``src`` outside show at ``at`` inside (and inotify reports them)."""
    at.mkdir()
    ns = ("unshare", "-U", "-r", "-m", "sh", "-c", f'mount --bind "{src}" "{at}" && mount -o remount,bind,ro "{at}" && exec "$@"', "sh")
    if not shutil.which("unshare") or subprocess.run([*ns, "sh", "-c", f'! touch "{at}/probe"'], capture_output=True).returncode:
        pytest.skip("needs unshare -U -m and a read-only bind mount (Linux)")
    return ns


@pytest.mark.engine_free  # about the folder; a Postgres socket is not reachable from the user namespace
def test_a_read_only_folder_still_brings_edits_in_and_keeps_brain_writes_saying_so_once(tmp_path, brain_tree):
    """A vault on a read-only mount (a snapshot, a folder the user cannot write): watch stopped
    at the first write through gbrain ("error: [Errno 13] Permission denied: '…/notes'", exit 1;
    as a non-root user on a chmod'ed folder) and `sync` said the same. Now disk edits still reach
    the brain, a write through gbrain stays in the brain (said once, with export as the way out),
    an edit on both sides merges into the page, and `sync` names the paths not written, exit 1."""
    ro = tmp_path / "ro"
    ns = read_only_mount(brain_tree, ro)
    db = tmp_path / "w.db"
    brain = Brain.open(db)
    w = Watch(ro, db, "--rescan", "0", prefix=ns)
    try:
        ana = brain_tree / "people" / "ana-lima.md"
        ana.write_text(ana.read_text() + "\nsaved in the folder\n")
        wait_for(lambda: "saved in the folder" in (text_of(brain, "people/ana-lima") or ""), "a disk edit to reach the brain")
        brain.put("notes/brand-new", "# Brand new\n\nwritten by an agent\n")
        wait_for(lambda: w.saw("cannot be written"), "watch to say the folder cannot be written")
        concept = brain_tree / "concepts" / "hybrid-retrieval.md"
        old = concept.read_text()
        brain.put("concepts/hybrid-retrieval", old.replace("# Hybrid retrieval", "# Hybrid retrieval (brain)"))
        # the brain's edit cannot reach the file; the person's edit of the same note elsewhere
        concept.write_text(old + "\nA line from the folder.\n")
        wait_for(lambda: "A line from the folder." in (text_of(brain, "concepts/hybrid-retrieval") or ""), "the folder's edit to reach the brain")
        merged = text_of(brain, "concepts/hybrid-retrieval")
        assert merged.startswith("# Hybrid retrieval (brain)"), merged  # nothing of the brain's edit lost
        # … merged, not a conflict (under load a round once read the note between write_text's
        # truncation and its write: the page emptied, then the folder's text, the edit in a copy)
        assert not brain.conn.execute("SELECT 1 FROM pages WHERE path LIKE 'concepts/hybrid-retrieval.conflict-%'").fetchone(), w.lines
        assert text_of(brain, "notes/brand-new") == "# Brand new\n\nwritten by an agent\n"
        assert not (brain_tree / "notes").exists() and concept.read_text() == old + "\nA line from the folder.\n"
        # both sides change the same line: the conflict is as ever, its copy in the brain only
        brain.put("people/ana-lima", text_of(brain, "people/ana-lima").replace("saved in the folder", "changed by the agent"))
        ana.write_text(ana.read_text().replace("saved in the folder", "changed in the folder"))
        wait_for(lambda: "changed in the folder" in (text_of(brain, "people/ana-lima") or ""), "the folder's side of a conflict to reach the brain")
        copy = wait_for(lambda: brain.conn.execute("SELECT slug FROM pages WHERE path LIKE 'people/ana-lima.conflict-%'").fetchone(), "the conflict copy in the brain")
        assert "changed by the agent" in text_of(brain, copy[0]) and not list((brain_tree / "people").glob("*conflict*"))
        # (the line is said once the round committed: it may reach us a moment after the copy)
        wait_for(lambda: w.saw("saved as people/ana-lima.conflict-") and w.saw("(in the brain only: the folder refuses writes)"), "the conflict's line")
        said = [ln for ln in w.lines if "cannot be written" in ln]
        assert len(said) == 1 and "Read-only file system" in said[0] and "gbrain export --dir" in said[0] and "notes/brand-new.md" in said[0], w.lines
        assert w.p.poll() is None and not w.saw("Traceback") and not w.saw("MISMATCH"), w.lines
        assert b"change(s) kept in the brain, not written" in stop_ok(w)
    finally:
        w.kill()
        brain.close()
    # a watch started on those unwritten changes: its start-up sync says them once, in its own
    # words (not the sync report's line as well)
    w2 = Watch(ro, db, "--rescan", "0", prefix=ns)
    try:
        wait_for(lambda: w2.saw("cannot be written"), "the second watch to say the folder cannot be written")
        stop_ok(w2)
        assert len([ln for ln in w2.lines if "cannot be written" in ln]) == 1, w2.lines
        assert not w2.saw("could not be written to the folder"), w2.lines
    finally:
        w2.kill()
    r = subprocess.run([*ns, sys.executable, "-m", "gbrain", "sync", str(ro), "--db", str(db)], capture_output=True)
    out = r.stdout.decode() + r.stderr.decode()
    assert r.returncode == 1 and "Traceback" not in out, out
    assert "Not written (the folder refused it): notes/brand-new.md" in out and "Not written (the folder refused it): concepts/hybrid-retrieval.md" in out, out
    assert "could not be written to the folder" in out and "Read-only file system" in out and "unwritable 3" in out, out
    assert "Not written (the folder refused it): people/ana-lima.conflict-" in out, out


def test_a_canvas_edited_under_watch_moves_its_backlinks_as_a_fresh_import_has_them(watch, brain, brain_tree):
    """A canvas's links are read from its stored bytes (docs/storage.md "Canvases"): an Obsidian
    save of the canvas under watch moves `backlinks` of the notes it holds, equal to a fresh import."""
    from gbrain.sync.verify import fresh_import_differences

    w = watch()
    board = brain_tree / "Board.canvas"
    board.write_bytes(b'{"nodes":[\n\t{"id":"a","type":"file","file":"people/ana-lima.md","x":0,"y":0,"width":400,"height":400}\n]}')
    wait_for(lambda: [x["slug"] for x in brain.backlinks("people/ana-lima") if x["type"] == "canvas"] == ["Board.canvas"], "the canvas in ana-lima's backlinks")
    board.write_bytes(b'{"nodes":[\n\t{"id":"b","type":"text","text":"Read [[hybrid-retrieval]]","x":0,"y":0,"width":400,"height":400}\n]}')
    wait_for(lambda: [x["slug"] for x in brain.backlinks("concepts/hybrid-retrieval") if x["type"] == "canvas"] == ["Board.canvas"], "the card's link")
    settle(brain, brain_tree)
    assert [x for x in brain.backlinks("people/ana-lima") if x["type"] == "canvas"] == []
    assert fresh_import_differences(brain) == {}
    stop_ok(w)


def test_a_saved_sidecar_that_is_not_json_warns_once_per_save(watch, brain, brain_tree):
    """`gbrain raw` warns of a `.raw/*.json` sidecar that is not valid JSON (its bytes are kept);
    watch imported such a save silently. Now its log says so, once per save (not again each
    round: the file is imported once)."""
    w = watch()
    f = brain_tree / "people" / ".raw" / "ana-lima.json"
    bad = b'{"crm": {"stage": "lead",}\n'
    tmp = f.with_name("x.tmp")
    tmp.write_bytes(bad)
    os.rename(tmp, f)
    wait_for(lambda: w.saw("people/.raw/ana-lima.json: not valid JSON"), "the invalid JSON warning")
    settle(brain, brain_tree)
    assert sum("not valid JSON" in x for x in w.lines) == 1, w.lines
    # a second bad save (another error: the same line again within a minute is said once, as
    # every watch warning)
    f.write_bytes(b'{"crm": [1, 2,, 3]}\n')
    wait_for(lambda: sum("not valid JSON" in x for x in w.lines) == 2, "the second warning")
    f.write_bytes(b'{"crm": {"stage": "lead"}}\n')  # fixed: no warning
    wait_for(lambda: brain.raw_get("people/ana-lima").get("crm") == {"stage": "lead"}, "the fixed sidecar to be read")
    settle(brain, brain_tree)
    assert sum("not valid JSON" in x for x in w.lines) == 2, w.lines
    stop_ok(w)


@pytest.mark.engine_free
def test_a_new_brain_is_said_when_watch_starts(brain_tree, tmp_path):
    """Trial 52: `watch` on a database path that did not exist said `note: created a new brain at …`
    only when it exited (25 minutes later): the person learns it when it can still matter, at start."""
    db = tmp_path / "new" / "brain.db"
    db.parent.mkdir()
    w = Watch(brain_tree, db)
    try:
        assert w.saw("note: created a new brain at"), w.lines  # before `watching …`: Watch waited for that line
        w.stop()
        assert sum("created a new brain" in line for line in w.lines) == 1, w.lines
    finally:
        w.kill()


def _cut_connection(conn) -> None:
    """What ``PgConnection._run`` does when a signal cut a busy query inside a transaction: the
    psycopg connection let go, the transaction lost (every statement but ROLLBACK refused)."""
    conn._conn.close()
    conn._drop()
    conn._lost = True


def _interrupt(cut: str) -> KeyboardInterrupt:
    from gbrain.entry import Terminated

    return KeyboardInterrupt() if cut == "ctrl-c" else Terminated("hung up", 129)


@pytest.mark.parametrize("cut", ["ctrl-c", "hung up", "outage"])
def test_a_lost_connection_while_an_interrupt_unwinds_stops_the_round_and_a_real_one_is_retried(db_path, tmp_path, monkeypatch, cut):
    """A watch round (``Watcher._safe_one``) whose Postgres query a KeyboardInterrupt (Ctrl-C,
    or SIGHUP's ``Terminated``: watch takes SIGINT/SIGTERM itself, but not SIGHUP) cut leaves the
    connection lost, and a clean-up statement while it unwinds fails with ``Disconnected``: that
    error was taken for an outage and the round run again on a new connection, the signal
    swallowed (watch went on). The interrupt wins: raised, the round not run again, nothing
    said about the connection. A connection lost before any signal (``outage``) is still run
    again at once and commits."""
    if not str(db_path).startswith("postgres"):
        pytest.skip("a lost connection is Postgres' (PgConnection._lost)")
    from gbrain.sync.watch import Watcher

    root = tmp_path / "vault"
    root.mkdir()
    (root / "a.md").write_text("# A\n\none\n")
    said: list[str] = []
    with Brain.open(db_path) as b:
        w = Watcher(b, root, log=said.append)
        w.engine.bind()
        assert w.engine.sync()["ok"]
        (root / "a.md").write_text("# A\n\ntwo\n")
        real = w.engine.reconcile
        calls = [0]
        k = _interrupt(cut)

        def cutting(*a, **kw):
            calls[0] += 1
            if calls[0] > 1:
                return real(*a, **kw)
            conn = b.conn
            with b.transaction():
                conn.execute("SELECT COUNT(*) FROM pages")
                _cut_connection(conn)
                if cut == "outage":
                    conn.execute("SELECT COUNT(*) FROM pages")  # Disconnected, no signal behind it
                try:
                    raise k
                finally:
                    conn.execute("SELECT COUNT(*) FROM pages")  # a clean-up query: Disconnected

        monkeypatch.setattr(w.engine, "reconcile", cutting)
        try:
            if cut == "outage":
                assert w._safe_batch({"a.md"}, set(), retry={}) is True
                assert calls[0] == 2 and "two" in b.get_text("a")
            else:
                with pytest.raises(KeyboardInterrupt) as got:
                    w._safe_batch({"a.md"}, set(), retry={})
                assert got.value is k
                assert calls[0] == 1, "the interrupted round was run again"
                assert "two" not in b.get_text("a")
            assert not [s for s in said if "unreachable" in s or "lost the connection" in s], said
        finally:
            w.engine.close()


@pytest.mark.parametrize("cut", ["ctrl-c", "hung up", "outage"])
def test_a_lost_connection_while_an_interrupt_unwinds_stops_the_watch_loop(db_path, tmp_path, monkeypatch, cut):
    """The loop's own statements (here the alive mark, ``SyncEngine.touch``; the change-log read,
    a rescan) go to ``Watcher._brain_lost`` on ``Disconnected``: one raised while a
    KeyboardInterrupt unwound said the brain unreachable and waited for it, the interrupt
    swallowed. The interrupt wins: ``Watcher.run`` raises it. A real outage is still said and
    waited out (the brain is back a moment later)."""
    if not str(db_path).startswith("postgres"):
        pytest.skip("a lost connection is Postgres' (PgConnection._lost)")
    import gbrain.sync.watch as watchmod

    monkeypatch.setattr(watchmod, "TOUCH_S", 0.0)  # the alive mark every tick
    monkeypatch.setattr(watchmod, "BRAIN_RETRY_S", 0.05)
    from gbrain.sync.watch import Watcher

    root = tmp_path / "vault"
    root.mkdir()
    (root / "a.md").write_text("# A\n\none\n")
    said: list[str] = []
    k = _interrupt(cut)
    with Brain.open(db_path) as b:
        w = None

        def log(line: str) -> None:
            said.append(line)
            if "reachable again" in line or ("unreachable" in line and cut != "outage"):
                w.stop()  # (unfixed: the interrupt was taken for an outage; end the watch)

        w = Watcher(b, root, log=log, rescan=0)
        calls = [0]

        def touch() -> None:
            if not armed:
                return  # (the first sync's: SyncEngine.sync, its own test in test_sync_chunks)
            calls[0] += 1
            if calls[0] > 1:
                return
            conn = b.conn
            _cut_connection(conn)
            if cut == "outage":
                conn.execute("SELECT 1")  # Disconnected, no signal behind it
            try:
                raise k
            finally:
                conn.execute("SELECT 1")  # a clean-up query: Disconnected

        armed: list[bool] = []
        monkeypatch.setattr(w.engine, "touch", touch)
        if cut == "outage":
            w.run(ready=lambda rep: armed.append(True))
            # (a cut is said as such since 4e5153e8: "lost the connection …", not "unreachable")
            assert [s for s in said if "lost the connection" in s] and [s for s in said if "reachable again" in s], said
        else:
            with pytest.raises(KeyboardInterrupt) as got:
                w.run(ready=lambda rep: armed.append(True))
            assert got.value is k and calls[0] == 1
            assert not [s for s in said if "unreachable" in s], said


@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM"])
def test_ctrl_c_or_sigterm_during_a_round_never_cuts_it(db_path, tmp_path, monkeypatch, sig):
    """Watch takes SIGINT and SIGTERM itself (blocked in its threads, taken between rounds with
    ``sigtimedwait``, or a handler that only asks the loop to stop): a signal that comes in the
    middle of a round raises nothing there, so it never cuts a query (on Postgres that would
    leave the connection lost and the clean-up's ``Disconnected`` look like an outage): the
    round's statements after it run, it commits, and watch stops with its summary (``run``
    returns; the command exits 0)."""
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("watch sets its signal handlers in the main thread only")
    from gbrain.sync.watch import Watcher

    root = tmp_path / "vault"
    root.mkdir()
    (root / "a.md").write_text("# A\n\none\n")
    said: list[str] = []
    with Brain.open(db_path) as b:
        w = Watcher(b, root, log=said.append, rescan=0)
        real = w.engine.reconcile
        calls = [0]

        armed: list[bool] = []

        def signalled(paths, *a, **kw):
            if armed and "a.md" in paths:  # (a round of the loop's, not the first sync's)
                calls[0] += 1
                if calls[0] == 1:
                    os.kill(os.getpid(), getattr(signal, sig))
                    b.conn.execute("SELECT COUNT(*) FROM pages").fetchone()  # after the signal: not cut
            return real(paths, *a, **kw)

        monkeypatch.setattr(w.engine, "reconcile", signalled)
        try:
            summary = w.run(ready=lambda rep: (armed.append(True), (root / "a.md").write_text("# A\n\ntwo\n")))
        except KeyboardInterrupt as e:  # (raised where it landed: the round, a query, was cut)
            pytest.fail(f"the {sig} raised {e!r} inside watch's round; said: {said}")
        assert calls[0] == 1, said
        assert "two" in b.get_text("a") and summary["exit_code"] == 0, (summary, said)
        assert not [s for s in said if "unreachable" in s], said
