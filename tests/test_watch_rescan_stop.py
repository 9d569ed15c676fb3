"""SIGTERM (or Ctrl-C) during a watch's periodic rescan stops it at the end of the chunk in flight,
as during its first sync (tests/test_watch_first_stop.py): the chunks committed are kept, the line
says what is left, exit 0 as a stopped watch.

Before: the rescan's pre-pass stopped between chunks, but the full sync after it then took every
file the rescan had found in one transaction before the watch stopped. The rescan finds the notes
as it does in life, edits the observer never heard of: each note rewritten in place through a hard
link outside the watched tree (inotify reports a write to the folder the file was opened through),
the watch held (SIGSTOP) meanwhile so that one rescan finds all of them. A real ``python -m gbrain
watch`` (``--rescan 1``, ``GBRAIN_WATCH_CHUNK``), a real signal sent once a chunk of the rescan
said its change lines (committed), on both engines."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading

import pytest

from gbrain.core.brain import Brain, render_row
from gbrain.sync.verify import fresh_import_differences

NOTES = 300
CHUNK = 5  # GBRAIN_WATCH_CHUNK: 60 chunks, each said once committed
TIMEOUT = 120.0  # (only a failing wait takes it whole)


def _note(i: int, edit: str = "") -> str:
    return f"# Note {i}\n\nSee [[n{(i + 1) % NOTES:04d}]].{edit}\n"


def _pages(db) -> dict[str, str]:
    with Brain.open(db) as b:
        rows = b.conn.execute("SELECT path, bom, frontmatter_raw, compiled_truth, separator, timeline FROM pages").fetchall()
        return {r[0]: render_row(r) for r in rows}


@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM"])
def test_a_stop_during_a_rescan_ends_it_after_the_chunk_in_flight_keeping_what_committed(db_path, tmp_path, sig):
    from test_watch import Watch

    root, outside = tmp_path / "vault", tmp_path / "outside"
    (root / "notes").mkdir(parents=True)
    outside.mkdir()
    old = {f"notes/n{i:04d}.md": _note(i) for i in range(NOTES)}
    new = {f"notes/n{i:04d}.md": _note(i, " Edited.") for i in range(NOTES)}
    for rel, text in old.items():
        (root / rel).write_text(text, encoding="utf-8")
        os.link(root / rel, outside / rel.split("/")[1])

    env = dict(os.environ, GBRAIN_DB=str(db_path), GBRAIN_WATCH_CHUNK=str(CHUNK), PYTHONFAULTHANDLER="1")
    p = subprocess.Popen([sys.executable, "-m", "gbrain", "watch", str(root), "--debounce", "50", "--rescan", "1"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    lines: list[str] = []
    watching, committed = threading.Event(), threading.Event()

    def read() -> None:
        for raw in p.stderr:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            lines.append(line)
            if line.startswith("watching "):
                watching.set()
            elif watching.is_set() and "→ db" in line:  # a rescan chunk's change lines: said once it committed
                committed.set()

    t = threading.Thread(target=read, daemon=True)
    t.start()
    try:
        assert watching.wait(TIMEOUT), "\n".join(lines[-30:])
        p.send_signal(signal.SIGSTOP)  # (no rescan while the notes are rewritten: one rescan finds them all)
        try:
            for rel, text in new.items():
                with open(outside / rel.split("/")[1], "r+", encoding="utf-8") as f:  # in place, the same inode
                    f.write(text)
                    f.truncate()
        finally:
            p.send_signal(signal.SIGCONT)
        assert committed.wait(TIMEOUT), "no rescan chunk committed:\n" + "\n".join(lines[-30:])
        p.send_signal(getattr(signal, sig))
        p.wait(timeout=TIMEOUT)  # (stderr is the reader thread's alone: communicate() would take lines from it)
        out = p.stdout.read()
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    t.join(timeout=5)
    said = "\n".join(lines)

    pages = _pages(db_path)
    edited = {rel for rel in pages if pages[rel] == new[rel]}
    # stopped at the next chunk's end: the rest of the rescan never ran
    assert 0 < len(edited) < NOTES - CHUNK, (len(edited), said[-3000:])
    assert all(pages[rel] == old[rel] for rel in set(pages) - edited)
    assert p.returncode == 0, said[-3000:]  # as a watch stopped in its loop: the summary, exit 0
    stop = [line for line in lines if line.startswith("stopped")]
    assert len(stop) == 1 and stop[0].startswith("stopped during a rescan:") and "kept" in stop[0], said[-3000:]
    assert f"{NOTES - len(edited):,} files left for the next start" in stop[0], (len(edited), stop)
    assert f"{NOTES + len(edited)} file→db" in out.decode(), out  # the summary counts the first sync and the chunks kept
    with Brain.open(db_path) as b:
        assert fresh_import_differences(b) == {}

    # the next start's first sync takes the rest: nothing lost
    w = Watch(root, db_path)
    try:
        code, _ = w.stop()
    finally:
        w.kill()
    assert code == 0, "\n".join(w.lines)
    assert _pages(db_path) == new


@pytest.mark.engine_free
@pytest.mark.parametrize("chunks, left, want", [
    (0, 7, "stopped during a rescan: nothing was committed yet; 7 files left for the next start (its first sync takes them)"),
    (2, 40, "stopped during a rescan: the 2 chunks it committed are kept; 40 files left for the next start (its first sync takes them)"),
])
def test_the_rescan_stop_line(chunks, left, want):
    from gbrain.sync.watch import first_stop_line

    assert first_stop_line(chunks, left, during="a rescan") == want
