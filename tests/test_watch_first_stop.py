"""Ctrl-C (SIGINT) or SIGTERM during `gbrain watch`'s first sync stops it at the end of the chunk
in flight, not at the end of the whole sync.

Before: watch blocked both signals before its first sync and took them in its loop only; the
first sync's pre-pass stopped between chunks, but the full sync after it still took everything
left in one transaction (obsidian-hub's 6,572 notes into an empty brain: stopped 97 s after the
Ctrl-C, load 8). A real ``python -m gbrain watch`` on a tree of many small chunks
(``GBRAIN_WATCH_CHUNK``), a real signal sent once a chunk's change lines were said (committed),
on both engines."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading

import pytest

from gbrain.core.brain import Brain, render_row
from gbrain.sync.verify import fresh_import_differences

NOTES = 600
CHUNK = 5  # GBRAIN_WATCH_CHUNK: 120 chunks, each said once committed
TIMEOUT = 120.0  # (only a failing wait takes it whole)


def _note(i: int) -> str:
    return (f"---\ntags: [t{i % 7}]\n---\n# Note {i}\n\nSee [[n{(i + 1) % NOTES:04d}]] and [[n{(i * 7) % NOTES:04d}]].\n\n"
            f"---\n\n- 2026-01-{i % 28 + 1:02d}: event {i}\n")


def _pages(db) -> dict[str, str]:
    with Brain.open(db) as b:
        rows = b.conn.execute("SELECT path, bom, frontmatter_raw, compiled_truth, separator, timeline FROM pages").fetchall()
        return {r[0]: render_row(r) for r in rows}


@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM"])
def test_a_stop_during_watchs_first_sync_ends_it_after_the_chunk_in_flight_keeping_what_committed(db_path, tmp_path, sig):
    from test_watch import Watch

    root = tmp_path / "vault"
    (root / "notes").mkdir(parents=True)
    texts = {f"notes/n{i:04d}.md": _note(i) for i in range(NOTES)}
    for rel, text in texts.items():
        (root / rel).write_text(text, encoding="utf-8")

    env = dict(os.environ, GBRAIN_DB=str(db_path), GBRAIN_WATCH_CHUNK=str(CHUNK), PYTHONFAULTHANDLER="1")
    p = subprocess.Popen([sys.executable, "-m", "gbrain", "watch", str(root), "--debounce", "50"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    lines: list[str] = []
    committed = threading.Event()

    def read() -> None:
        for raw in p.stderr:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            lines.append(line)
            if "→ db" in line:  # a chunk's change lines: said once it committed
                committed.set()

    t = threading.Thread(target=read, daemon=True)
    t.start()
    try:
        assert committed.wait(TIMEOUT), "no chunk committed:\n" + "\n".join(lines[-30:])
        p.send_signal(getattr(signal, sig))
        # (not communicate(): it reads stderr too, and took the "stopped" line from the reader now and then)
        p.wait(timeout=TIMEOUT)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    t.join(timeout=TIMEOUT)
    out = p.stdout.read()  # (the summary: a few lines, never a full pipe)
    said = "\n".join(lines)

    pages = _pages(db_path)
    # stopped at the next chunk's end: the rest of the first sync never ran
    assert 0 < len(pages) < NOTES - CHUNK, (len(pages), said[-3000:])
    assert p.returncode == 0, said[-3000:]  # as a watch stopped in its loop: the summary, exit 0
    assert not any(line.startswith("watching ") for line in lines), said[-3000:]
    stop = [line for line in lines if line.startswith("stopped")]
    assert stop and "kept" in stop[0], said[-3000:]
    assert f"{NOTES - len(pages):,} files left for the next start" in stop[0], (len(pages), stop)
    assert f"{len(pages)} file→db" in out.decode(), out  # the summary counts the chunks kept
    # nothing half-written: each page kept is its note's text, the tree untouched, and the brain
    # equals a fresh import of its own pages
    assert all(pages[rel] == texts[rel] for rel in pages), [rel for rel in pages if pages[rel] != texts[rel]][:5]
    assert {str(f.relative_to(root)): f.read_text(encoding="utf-8") for f in root.rglob("*.md")} == texts
    with Brain.open(db_path) as b:
        assert fresh_import_differences(b) == {}

    # the next start's first sync takes the rest: nothing lost
    w = Watch(root, db_path)
    try:
        code, _ = w.stop()
    finally:
        w.kill()
    assert code == 0, "\n".join(w.lines)
    assert _pages(db_path) == texts
    with Brain.open(db_path) as b:
        assert fresh_import_differences(b) == {}


@pytest.mark.engine_free
@pytest.mark.parametrize("chunks, left, want", [
    (0, 7, "stopped during the first sync: nothing was committed yet; 7 files left for the next start (its first sync takes them)"),
    (0, None, "stopped during the first sync: nothing was committed yet; the rest left for the next start (its first sync takes them)"),
    (1, 1, "stopped during the first sync: the 1 chunk it committed is kept; 1 file left for the next start (its first sync takes them)"),
    (3, 1_200, "stopped during the first sync: the 3 chunks it committed are kept; 1,200 files left for the next start (its first sync takes them)"),
])
def test_the_first_stop_line_says_zero_and_one_chunk_properly(chunks, left, want):
    """A stop before any chunk committed said "the 0 chunk(s) it committed are kept"."""
    from gbrain.sync.watch import first_stop_line

    assert first_stop_line(chunks, left) == want
