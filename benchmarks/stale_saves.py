"""Trial: agents' writes through gbrain against an editor's stale saves under `gbrain watch`.

Each round: the "editor" reads the note, an "agent" adds a timeline entry (in-process, through
``Brain.timeline_add``, another connection than watch's), then the editor saves its old buffer
plus one typed line by temp file + rename (as vim does), either after the agent's entry reached
the file (``--mode repro``: the deterministic case) or after a random 0–60 ms (``--mode race``).
At the end it counts where each agent entry and each typed line ended up: in the page (and the
file), only in a conflict copy, only in the history, or nowhere. Target: every agent entry and
every typed line in the page or a conflict copy (0 only in history, 0 lost).

    python benchmarks/stale_saves.py --rounds 30 --mode race
"""
from __future__ import annotations

import argparse
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: the gbrain checkout to run (GBRAIN_ROOT: another one, to measure a baseline)
ROOT = Path(os.environ.get("GBRAIN_ROOT") or Path(__file__).resolve().parent.parent)


def wait_for(cond, timeout: float = 30.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            if cond():
                return True
        except OSError:
            pass
        time.sleep(0.01)
    return False


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--mode", choices=("repro", "race"), default="race")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    from gbrain.core.brain import Brain
    from gbrain.core.history import body
    from gbrain.errors import NotFound

    rnd = random.Random(args.seed)
    tmp = Path(tempfile.mkdtemp(prefix="stale-saves-"))
    tree = tmp / "tree"
    (tree / "team").mkdir(parents=True)
    f = tree / "team" / "ana.md"
    f.write_text("# Ana\n\nNotes.\n\n---\n\n- **2026-01-01** | seed\n", encoding="utf-8")
    db = tmp / "brain.db"
    env = dict(os.environ, GBRAIN_DB=str(db), PYTHONPATH=str(ROOT))
    w = subprocess.Popen([sys.executable, "-m", "gbrain", "watch", str(tree), "--debounce", "50"], stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, env=env, text=True)
    started = time.monotonic()
    line = "-"
    while line and not line.startswith("watching"):
        line = w.stderr.readline()
    assert line.startswith("watching"), "watch did not start: " + w.stderr.read()
    b = Brain.open(db)

    def text(slug: str) -> str:
        try:
            return b.get_text(slug)
        except NotFound:  # a conflict copy on disk that the brain has not imported yet
            return ""
    try:
        for i in range(args.rounds):
            buf = f.read_bytes()
            b.timeline_add("team/ana", "2026-12-02", f"AGENT-{i:03d}", "agent")
            if args.mode == "repro":
                wait_for(lambda: f"AGENT-{i:03d}".encode() in f.read_bytes())
            else:
                time.sleep(rnd.uniform(0, 0.06))
            tmpf = f.with_name(".ana.md.swp")
            tmpf.write_bytes(buf + f"USER-{i:03d}\n".encode())
            os.rename(tmpf, f)
            # the next round's editor opens the file once this save is through
            wait_for(lambda: f"USER-{i:03d}".encode() in text("team/ana").encode() or
                     any(f"USER-{i:03d}" in (text("team/" + p[:-3]) or "") for p in os.listdir(tree / "team") if ".conflict-" in p), 10)
        wait_for(lambda: f.read_bytes().decode() == text("team/ana"), 10)
    finally:
        w.send_signal(signal.SIGINT)
        w.wait(timeout=60)
    page = text("team/ana")
    copies = "".join(text("team/" + p[:-3]) or "" for p in os.listdir(tree / "team") if ".conflict-" in p)
    hist = b"".join(body(b.conn, r[0]) for r in b.conn.execute("SELECT body_id FROM history WHERE body_id IS NOT NULL")).decode("utf-8", "replace")
    for what in ("AGENT", "USER"):
        tags = [f"{what}-{i:03d}" for i in range(args.rounds)]
        in_page = sum(t in page for t in tags)
        in_copy = sum(t not in page and t in copies for t in tags)
        only_hist = sum(t not in page and t not in copies and t in hist for t in tags)
        lost = sum(t not in page and t not in copies and t not in hist for t in tags)
        print(f"{what.lower()} lines ({args.mode}, {args.rounds} rounds): in the page {in_page}, only in a conflict copy {in_copy}, "
              f"only in history {only_hist} (target 0), lost {lost} (target 0)")
    conflicts = b.conn.execute("SELECT COUNT(*) FROM sync_conflicts").fetchone()[0]
    merged = b.conn.execute("SELECT COUNT(*) FROM history WHERE operation = 'stale save merged'").fetchone()[0]
    print(f"merged saves {merged}, conflicts {conflicts}; {time.monotonic() - started:.1f} s; load {os.getloadavg()[0]:.1f}")
    b.close()
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
