"""Trial: agents' writes through gbrain against an editor's stale saves under `gbrain watch`.

Each round: the "editor" reads the note, an "agent" adds a timeline entry (in-process, through
``Brain.timeline_add``, another connection than watch's), then the editor saves its old buffer
plus one typed line by temp file + rename (as vim does), either after the agent's entry reached
the file (``--mode repro``: the deterministic case) or after a random 0–60 ms (``--mode race``).
At the end it counts where each agent entry and each typed line ended up: in the page (and the
file), only in a conflict copy, only in the history, or nowhere. Target: every agent entry and
every typed line in the page or a conflict copy (0 only in history, 0 lost).

``--mode team``: two founders on one Postgres brain (a private pgserver), each running
``gbrain watch`` on a folder of their own (``GBRAIN_USER`` alice / bob). Each round Bob's editor
reads his copy of the note, Alice appends a line in her folder, the line reaches Bob's file
through gbrain, then Bob's editor saves its old buffer plus a typed line (temp file + rename).
Alice's lines are counted as the agent entries are in the other modes.

    python benchmarks/stale_saves.py --rounds 30 --mode race
    python benchmarks/stale_saves.py --rounds 20 --mode team
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
    ap.add_argument("--mode", choices=("repro", "race", "team"), default="race")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    from gbrain.core.brain import Brain
    from gbrain.core.history import body
    from gbrain.errors import NotFound

    if args.mode == "team":
        return team(args)
    rnd = random.Random(args.seed)
    tmp = Path(tempfile.mkdtemp(prefix="stale-saves-"))
    tree = tmp / "tree"
    (tree / "team").mkdir(parents=True)
    f = tree / "team" / "ana.md"
    f.write_text("# Ana\n\nNotes.\n\n---\n\n- **2026-01-01** | seed\n", encoding="utf-8")
    db = tmp / "brain.db"
    env = dict(os.environ, GBRAIN_DB=str(db), PYTHONPATH=str(ROOT))
    w = subprocess.Popen([sys.executable, "-m", "gbrain", "watch", str(tree), "--debounce", "50"], stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, env=env, text=True,
                         cwd=str(ROOT))  # `-m gbrain` takes the current folder first: GBRAIN_ROOT's
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


def start_watch(folder: Path, env: dict) -> subprocess.Popen:
    w = subprocess.Popen([sys.executable, "-m", "gbrain", "watch", str(folder), "--debounce", "50"], stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, env=env, text=True,
                         cwd=str(ROOT))  # `-m gbrain` takes the current folder first: GBRAIN_ROOT's
    line = "-"
    while line and not line.startswith("watching"):
        line = w.stderr.readline()
    assert line.startswith("watching"), "watch did not start: " + w.stderr.read()
    return w


def team(args) -> int:
    """``--mode team`` (see the module's docstring): two watchers, one Postgres brain."""
    import pgserver
    import psycopg

    from gbrain.core.brain import Brain
    from gbrain.core.history import body
    from gbrain.errors import NotFound

    tmp = Path(tempfile.mkdtemp(prefix="stale-saves-team-", dir="/tmp"))
    os.chmod(tmp, 0o755)  # as root, pgserver runs the server as its own user
    (tmp / "pg").mkdir()
    os.chmod(tmp / "pg", 0o755)
    srv = pgserver.get_server(str(tmp / "pg"), cleanup_mode="stop")
    with psycopg.connect(srv.get_uri(), autocommit=True) as c:
        c.execute("CREATE DATABASE stale_team")
    url = srv.get_uri().replace("/postgres?", "/stale_team?", 1)
    a, bdir = tmp / "alice", tmp / "bob"
    (a / "team").mkdir(parents=True)
    bdir.mkdir()
    fa, fb = a / "team" / "ana.md", bdir / "team" / "ana.md"
    fa.write_text("# Ana\n\nNotes.\n\n---\n\n- **2026-01-01** | seed\n", encoding="utf-8")
    env = dict(os.environ, GBRAIN_DB=url, PYTHONPATH=str(ROOT))
    started = time.monotonic()
    watchers = []
    b = None
    try:
        watchers.append(start_watch(a, dict(env, GBRAIN_USER="alice")))
        watchers.append(start_watch(bdir, dict(env, GBRAIN_USER="bob")))
        b = Brain.open(url)

        def text(slug: str) -> str:
            try:
                return b.get_text(slug)
            except NotFound:
                return ""

        def copies() -> str:
            return "".join(text("team/" + p[:-3]) for p in os.listdir(bdir / "team") if ".conflict-" in p)

        assert wait_for(lambda: fb.read_bytes() == fa.read_bytes(), 60), "bob's folder did not get the note"
        for i in range(args.rounds):
            buf = fb.read_bytes()  # Bob's editor reads his copy of the note
            with open(fa, "ab") as fh:  # Alice appends a line in her folder
                fh.write(f"- **2026-12-02** | ALICE-{i:03d}\n".encode())
            wait_for(lambda: f"ALICE-{i:03d}".encode() in fb.read_bytes())
            time.sleep(0.15)  # Bob keeps typing a moment after Alice's line reached his file
            tmpf = fb.with_name(".ana.md.swp")
            tmpf.write_bytes(buf + f"USER-{i:03d}\n".encode())
            os.rename(tmpf, fb)
            wait_for(lambda: f"USER-{i:03d}" in text("team/ana") or f"USER-{i:03d}" in copies(), 10)
            # the next round starts once both folders hold the page
            wait_for(lambda: fa.read_bytes() == fb.read_bytes() == text("team/ana").encode(), 10)
        page = text("team/ana")
        held = copies()
        hist = b"".join(body(b.conn, r[0]) for r in b.conn.execute("SELECT body_id FROM history WHERE body_id IS NOT NULL")).decode("utf-8", "replace")
        for what in ("ALICE", "USER"):
            tags = [f"{what}-{i:03d}" for i in range(args.rounds)]
            in_page = sum(t in page for t in tags)
            in_copy = sum(t not in page and t in held for t in tags)
            only_hist = sum(t not in page and t not in held and t in hist for t in tags)
            lost = sum(t not in page and t not in held and t not in hist for t in tags)
            label = "alice's lines" if what == "ALICE" else "bob's typed lines"
            print(f"{label} (team, {args.rounds} rounds): in the page {in_page}, only in a conflict copy {in_copy}, "
                  f"only in history {only_hist} (target 0), lost {lost} (target 0)")
        conflicts = b.conn.execute("SELECT COUNT(*) FROM sync_conflicts").fetchone()[0]
        merged = b.conn.execute("SELECT COUNT(*) FROM history WHERE operation = 'stale save merged'").fetchone()[0]
        print(f"merged saves {merged}, conflicts {conflicts}; {time.monotonic() - started:.1f} s; load {os.getloadavg()[0]:.1f}")
    finally:
        for w in watchers:
            w.send_signal(signal.SIGINT)
        for w in watchers:
            try:
                w.wait(timeout=60)
            except subprocess.TimeoutExpired:
                w.kill()
        if b is not None:
            b.close()
        from gbrain.storage.pg import close_pools

        close_pools()
        srv.cleanup()
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
