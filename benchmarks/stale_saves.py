"""Trial: agents' writes through gbrain against an editor's stale saves under `gbrain watch`.

Each round: the "editor" reads the note, an "agent" adds a timeline entry (in-process, through
``Brain.timeline_add``, another connection than watch's), then the editor saves its old buffer
plus one typed line by temp file + rename (as vim does), either after the agent's entry reached
the file (``--mode repro``: the deterministic case) or after a random 0–60 ms (``--mode race``).
``--edits``: half the agent's writes are a cleanup (a put that removes an older entry of its own
and adds one) and half the saves also delete an entry or typed line the buffer shows (the stale
saves whose base matters: `merge.stale_view`); lines deleted on purpose are counted apart (how
many came back into the page).
At the end it counts where each agent entry and each typed line ended up: in the page (and the
file), only in a conflict copy, only in the history, or nowhere. Target: every agent entry and
every typed line in the page or a conflict copy (0 only in history, 0 lost).
It also prints the merged saves, the conflicts by kind, and the watch's ``stale_view`` calls and
their CPU (the thread's, ``time.thread_time``: the machine's load does not count).

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
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: the gbrain checkout to run (GBRAIN_ROOT: another one, to measure a baseline)
ROOT = Path(os.environ.get("GBRAIN_ROOT") or Path(__file__).resolve().parent.parent)


#: runs ``python -m gbrain`` with ``gbrain.sync.engine.stale_view`` timed (the CPU of the thread
#: that calls it, ``time.thread_time``): after each call the calls so far, their CPU seconds and
#: how many said "stale" (a view, not None) are written to ``$STALE_CPU_FILE``
TIMED_WATCH = """
import os, runpy, sys, time
import gbrain.sync.engine as e
real, n, cpu, views = e.stale_view, 0, 0.0, 0
def timed(*a, **k):
    global n, cpu, views
    t = time.thread_time()
    try:
        v = real(*a, **k)
    finally:
        cpu += time.thread_time() - t
        n += 1
    views += v is not None
    with open(os.environ['STALE_CPU_FILE'], 'w') as fh:
        fh.write(f'{n} {cpu} {views}')
    return v
e.stale_view = timed
sys.argv[0] = 'gbrain'
runpy.run_module('gbrain', run_name='__main__', alter_sys=True)
"""


def stale_cpu(path: Path) -> str:
    """The ``stale_view`` figures a timed watch wrote to ``path`` (:data:`TIMED_WATCH`)."""
    try:
        n, cpu, views = path.read_text().split()
    except (OSError, ValueError):
        return "stale_view calls 0"
    n, cpu = int(n), float(cpu)
    return f"stale_view calls {n} (stale {views}), CPU {cpu * 1000:.1f} ms, {cpu * 1000 / max(n, 1):.2f} ms/call"


def summary(b, started: float) -> str:
    """Merged saves, conflict copies (by kind) and the run's time and load."""
    merged = b.conn.execute("SELECT COUNT(*) FROM history WHERE operation = 'stale save merged'").fetchone()[0]
    kinds = b.conn.execute("SELECT kind, COUNT(*), COUNT(copy_path) FROM sync_conflicts GROUP BY kind ORDER BY kind").fetchall()
    total = sum(r[1] for r in kinds)
    by = ", ".join(f"{k} {n} ({c} with a copy)" for k, n, c in kinds)
    return (f"merged saves {merged}, conflicts {total}" + (f" ({by})" if by else "")
            + f"; {time.monotonic() - started:.1f} s; load {os.getloadavg()[0]:.1f}")


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
    ap.add_argument("--edits", action="store_true", help="race/repro: half the agent's writes a cleanup put (one older entry of its "
                    "own removed, one added), half the saves also delete a line the buffer shows; lines deleted on purpose are "
                    "counted apart")
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
    env = dict(os.environ, GBRAIN_DB=str(db), PYTHONPATH=str(ROOT), STALE_CPU_FILE=str(tmp / "stale_cpu"))
    w = subprocess.Popen([sys.executable, "-c", TIMED_WATCH, "watch", str(tree), "--debounce", "50"], stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, env=env, text=True,
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
    deleted: set[str] = set()  # the lines someone deleted on purpose (AGENT-007, USER-003)
    try:
        for i in range(args.rounds):
            buf = f.read_bytes()
            if args.edits and rnd.random() < 0.5:
                # the agent's cleanup: one put that removes an older entry of its own and adds one
                cur = text("team/ana")
                olds = [ln for ln in cur.splitlines(keepends=True) if "AGENT-" in ln]
                if olds:
                    gone = rnd.choice(olds)
                    deleted.add(re.search(r"AGENT-\d{3}", gone)[0])
                    cur = cur.replace(gone, "", 1)
                b.put("team/ana", cur + f"- **2026-12-02** | AGENT-{i:03d}\n")
            else:
                b.timeline_add("team/ana", "2026-12-02", f"AGENT-{i:03d}", "agent")
            if args.mode == "repro":
                wait_for(lambda: f"AGENT-{i:03d}".encode() in f.read_bytes())
            else:
                time.sleep(rnd.uniform(0, 0.06))
            tmpf = f.with_name(".ana.md.swp")
            if args.edits and rnd.random() < 0.5:
                # the person also deletes an entry or typed line its buffer shows
                mine = [ln for ln in buf.splitlines(keepends=True) if b"AGENT-" in ln or b"USER-" in ln]
                if mine:
                    gone = rnd.choice(mine)
                    deleted.add(re.search(rb"(?:AGENT|USER)-\d{3}", gone)[0].decode())
                    buf = buf.replace(gone, b"", 1)
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
        tags = [t for t in (f"{what}-{i:03d}" for i in range(args.rounds)) if t not in deleted]
        gone = [t for t in (f"{what}-{i:03d}" for i in range(args.rounds)) if t in deleted]
        if gone:
            print(f"{what.lower()} lines deleted on purpose {len(gone)}: back in the page {sum(t in page for t in gone)}")
        in_page = sum(t in page for t in tags)
        in_copy = sum(t not in page and t in copies for t in tags)
        only_hist = sum(t not in page and t not in copies and t in hist for t in tags)
        lost = sum(t not in page and t not in copies and t not in hist for t in tags)
        print(f"{what.lower()} lines ({args.mode}, {args.rounds} rounds): in the page {in_page}, only in a conflict copy {in_copy}, "
              f"only in history {only_hist} (target 0), lost {lost} (target 0)")
    print(summary(b, started) + "; " + stale_cpu(tmp / "stale_cpu"))
    b.close()
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


def start_watch(folder: Path, env: dict) -> subprocess.Popen:
    w = subprocess.Popen([sys.executable, "-c", TIMED_WATCH, "watch", str(folder), "--debounce", "50"], stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, env=env, text=True,
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
        watchers.append(start_watch(a, dict(env, GBRAIN_USER="alice", STALE_CPU_FILE=str(tmp / "stale_cpu_alice"))))
        watchers.append(start_watch(bdir, dict(env, GBRAIN_USER="bob", STALE_CPU_FILE=str(tmp / "stale_cpu_bob"))))
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
        print(summary(b, started) + "; alice's watch " + stale_cpu(tmp / "stale_cpu_alice") + "; bob's watch " + stale_cpu(tmp / "stale_cpu_bob"))
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
