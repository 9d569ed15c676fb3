"""The import's parse pool (``gbrain/sync/parallel.py``) gives every derived view exactly as
parsing in the importing process does: the same tree imported with the pool forced on (two
forkserver workers, from the second page) and with it off gives equal ``derived_snapshot``s and
the same report. And the pool's own machinery: the worker handler
does not wake for every chunk of results, the workers inherit the parser from the forkserver."""
import os
import shutil

import pytest

from conftest import CORPORA, FIXTURE_BRAIN, make_brain, tree_pages
from corpus_sample import FULL_CORPUS, sample_pages
from gbrain.core.brain import Brain
from gbrain.sync import importer, parallel
from gbrain.sync.verify import derived_snapshot

pytestmark = pytest.mark.engine_free  # the pool is the same on both engines: the SQLite run only (conftest)

EDGE_PAGES = {
    "edge/bom.md": "\ufeff---\ntitle: With a BOM\ntags: [a, B]\n---\n# Body\n\nSee [[people/ana-lima]].\n",
    "edge/crlf.md": "---\r\ntitle: CRLF\r\n---\r\nText with #inline-tag and [x](../people/ana-lima.md).\r\n\r\n---\r\n\r\n- **2025-01-02** | note — An entry\r\n",
    "edge/bad-yaml.md": "---\ntitle: [unclosed\n---\nBody [[Nowhere]].\n",
    "edge/recursive.md": "---\ntitle: &a [*a]\n---\nBody.\n",
    "edge/property.md": '---\nrelated: "[[people/ana-lima]]"\naliases: [Edge Prop, ep]\n---\n# Property\n\n```\n[[not a link]]\n```\n',
    "edge/timeline.md": "# T\n\nText.\n\n---\n\n- **2024-05-06** | call — First\n  detail line\n- **2024-05-07** | email — Second\n",
    "edge/cjk.md": "# データ同期\n\n日本語の本文 [[データ]] #タグ\n",
    "edge/empty.md": "",
}


def tree(tmp_path):
    """fixtures/brain, a make_brain brain of 300 pages, obsidian-help's pages when present (a
    deterministic sample of them in CI, corpus_sample.sample_pages: links to the pages left out
    dangle alike both ways; all of it with GBRAIN_FULL_CORPUS=1),
    and the edge pages above (BOM, CRLF, bad and recursive YAML, property links, timeline, CJK,
    empty)."""
    root = tmp_path / "tree"
    shutil.copytree(FIXTURE_BRAIN, root)
    make_brain(root / "made", 300)
    help_root = CORPORA / "obsidian-help"
    if help_root.is_dir():
        if FULL_CORPUS:
            shutil.copytree(help_root, root / "help")
        else:
            for rel, _text in sample_pages(tree_pages(help_root)):
                (root / "help" / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(help_root / rel, root / "help" / rel)
    for rel, text in EDGE_PAGES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(text.encode("utf-8"))
    return root


def import_with(root, db, pool: bool, monkeypatch):
    used = []

    class Spy(parallel.PageParser):
        def __init__(self):
            super().__init__(workers=2)

        def parse(self, jobs):
            out = super().parse(jobs)
            used.append(self.pool is not None)
            return out

    monkeypatch.setattr(parallel, "PARALLEL_MIN", 2 if pool else 10**9)
    monkeypatch.setattr(importer, "PageParser", Spy)
    warned = []
    with Brain.open(db) as b:
        rep = importer.import_tree(b, root, on_warning=warned.append)
        snap = derived_snapshot(b)
    assert used and all(u == pool for u in used), used  # the pool ran (or did not) as asked
    return rep, snap, warned


def test_pool_on_and_off_give_the_same_derived_views(tmp_path, monkeypatch):
    root = tree(tmp_path)
    rep_on, on, warned_on = import_with(root, tmp_path / "on.db", True, monkeypatch)
    rep_off, off, warned_off = import_with(root, tmp_path / "off.db", False, monkeypatch)
    assert rep_on["ok"] and rep_off["ok"]
    assert rep_on["counts"]["pages_written"] > 500
    assert sorted(on) == sorted(off)
    for view in off:
        assert on[view] == off[view], view
    assert warned_on == warned_off
    for k in ("counts", "links", "problems"):
        if k in rep_off:
            assert rep_on[k] == rep_off[k], k


def jobs(n):
    return [(f"p{i}.md", f"# Page {i}\n\nSee [[p{i + 1}]] and #t{i % 7}.\n", "rule") for i in range(n)]


def titles(pages):
    return [p.title for p in pages]


def test_the_worker_handler_does_not_wake_for_every_chunk(monkeypatch):
    """multiprocessing's Pool also waits on its result pipe in the thread that keeps the workers:
    each chunk of pages arriving woke it (and it spun until the result thread had read the
    chunk), ~0.25 CPU-s of the importing process on the 7,471-page brain."""
    monkeypatch.setattr(parallel, "PARALLEL_MIN", 2)
    wakes = []
    import multiprocessing.pool

    real = multiprocessing.pool.Pool._maintain_pool  # (the thread runs Pool._handle_workers: Pool's)

    def counted(*a, **kw):
        wakes.append(1)
        return real(*a, **kw)

    monkeypatch.setattr(multiprocessing.pool.Pool, "_maintain_pool", staticmethod(counted))
    n = 16 * 8 * 2  # 16 pages a chunk: 16 chunks per worker
    monkeypatch.setattr(parallel, "chunk_size", lambda jobs, workers: 16)
    with parallel.PageParser(workers=2) as pp:
        assert len(list(pp.parse(jobs(n)))) == n
        before = len(wakes)
        assert len(list(pp.parse(jobs(n)))) == n
        during = len(wakes) - before
    assert during < 4, during  # was one or more per chunk of results (32 chunks)


PROBE = """
import os, sys
from gbrain.sync import parallel
def loaded_in(_):
    return os.getpid(), parallel._LOADED_IN, "gbrain.entry" in sys.modules
"""

CHILD = """
import probe
from gbrain.sync import parallel
parallel.PARALLEL_MIN = 2
if __name__ == "__main__":
    with parallel.PageParser(workers=2) as pp:
        pp.parse([(f"p{i}.md", f"# P{i}\\n", "rule") for i in range(300)])
        print(pp.pool.map(probe.loaded_in, range(8)))
"""


@pytest.mark.parametrize("as_script", [False, True])
def test_workers_inherit_the_parser_from_the_forkserver(tmp_path, as_script):
    """The forkserver imports the parser (``set_forkserver_preload``): a worker starts with it
    (the module was loaded in another process, the forkserver), not importing it again; run from
    a script (as the ``gbrain`` console script runs) too; gbrain.entry (every operation) is
    imported by neither: the console script's top imports only gbrain.launch, all a worker running
    the script again loads. A new process: the forkserver starts with it."""
    import ast
    import subprocess
    import sys

    (tmp_path / "probe.py").write_text(PROBE)
    script = tmp_path / "main.py"
    script.write_text(CHILD)
    argv = [sys.executable, str(script)] if as_script else [sys.executable, "-c", CHILD]
    from pathlib import Path

    import gbrain

    checkout = Path(gbrain.__file__).resolve().parent.parent  # the gbrain under test, first
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(checkout)]))
    r = subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stderr[-2000:]
    seen = ast.literal_eval(r.stdout.strip().splitlines()[-1])
    assert all(pid != loaded for pid, loaded, _ in seen), seen
    assert not any(entry for *_, entry in seen), seen


def test_pool_size_follows_the_cpus_this_process_may_use_and_the_setting(monkeypatch, capsys):
    """The pool had min(4, os.cpu_count()) workers: a process pinned to one core (`taskset -c 0`,
    a container's cpuset) still started two or more workers on it, pure overhead (~0.3 s to
    start, the pages pickled both ways), and nobody could limit it on a shared machine. Now the
    cores this process may run on count (``os.sched_getaffinity``), and ``GBRAIN_PARSE_WORKERS``
    (0 or 1: parse in this process) wins over both; a value that is not a whole number ≥ 0 is
    ignored with a warning on stderr."""
    monkeypatch.delenv("GBRAIN_PARSE_WORKERS", raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 8)
    if hasattr(os, "sched_getaffinity"):
        monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0})
        assert parallel.PageParser().workers == 1
        monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2})
        assert parallel.PageParser().workers == 3
        monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(8)))
    assert parallel.PageParser().workers == 4
    monkeypatch.setenv("GBRAIN_PARSE_WORKERS", "1")
    pp = parallel.PageParser()
    assert pp.workers == 1
    jobs = [(f"p{i}.md", f"# P{i}\n", "rule") for i in range(parallel.PARALLEL_MIN + 5)]
    monkeypatch.setattr(parallel, "_Pool", None)  # starting a pool would fail
    assert [p.title for p in pp.parse(jobs)] == [f"P{i}" for i in range(len(jobs))] and pp.pool is None
    monkeypatch.setenv("GBRAIN_PARSE_WORKERS", "0")
    assert parallel.PageParser().workers == 1
    monkeypatch.setenv("GBRAIN_PARSE_WORKERS", "6")
    assert parallel.PageParser().workers == 6
    for bad in ("two", "-1", "1.5"):
        monkeypatch.setenv("GBRAIN_PARSE_WORKERS", bad)
        assert parallel.PageParser().workers == 4, bad
        assert f"GBRAIN_PARSE_WORKERS={bad!r}" in capsys.readouterr().err
    parallel.PageParser()
    assert capsys.readouterr().err == ""  # once per value
    assert parallel.PageParser(workers=2).workers == 2  # an explicit count (tests) wins


UNGUARDED = '''import sys
from gbrain.core.brain import Brain
from gbrain.sync.importer import import_tree
print("body ran", flush=True)
with Brain.open(sys.argv[1], create=True) as b:
    r = import_tree(b, sys.argv[2])
print("pages", r["pages_written"] if isinstance(r, dict) and "pages_written" in r else "?", flush=True)
'''


@pytest.mark.parametrize("guarded", [False, True])
def test_a_script_calling_gbrain_at_its_top_level_does_not_hang(tmp_path, guarded):
    """A library script without ``if __name__ == "__main__":`` that imports 200 pages or more
    hung for good at no CPU: each forkserver worker ran the script again (Python's rule for
    multiprocessing: the main module is imported by every worker), opened the brain and waited
    for the importing process's write lock, and the importing process waited for its workers.
    Such a call (the main module's top-level line running it is not under a ``__main__``
    guard) now parses in the importing process, saying so once on stderr; a guarded script
    keeps the pool. Either way the script's body runs once."""
    import subprocess
    import sys
    from pathlib import Path

    import gbrain

    make_brain(tmp_path / "tree", 250)
    body = UNGUARDED
    if guarded:
        lines = body.splitlines()
        body = "\n".join(lines[:3]) + "\nif __name__ == '__main__':\n" + "\n".join("    " + ln for ln in lines[3:]) + "\n"
    script = tmp_path / "script.py"
    script.write_text(body)
    checkout = Path(gbrain.__file__).resolve().parent.parent
    env = dict(os.environ, PYTHONPATH=str(checkout))
    env.pop("GBRAIN_PARSE_WORKERS", None)
    r = subprocess.run([sys.executable, str(script), str(tmp_path / "b.db"), str(tmp_path / "tree")], capture_output=True, text=True,
                       timeout=120, cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.count("body ran") == 1, r.stdout
    assert ("__main__" in r.stderr) != guarded, r.stderr
    if guarded:  # `python -m gbrain` (its __main__.py has no guard: workers never import a package's __main__) keeps the pool
        r = subprocess.run([sys.executable, "-m", "gbrain", "import", str(tmp_path / "tree"), "--db", str(tmp_path / "m.db")], capture_output=True,
                           text=True, timeout=120, cwd=tmp_path, env=env)
        assert r.returncode == 0 and "one process" not in r.stderr, r.stderr[-2000:]


CTRL_C = r'''
import sys, time
from gbrain.sync import parallel

if __name__ == "__main__":
    jobs = [(f"p{i}.md", "# P\n\n" + "word " * 4000 + "\n", "rule") for i in range(int(sys.argv[1]))]
    try:
        with parallel.PageParser(workers=2) as pp:
            pages = pp.parse(jobs)
            next(pages)  # the workers are up and have parsed
            print("ready", flush=True)
            time.sleep(60)
    except KeyboardInterrupt:
        print("interrupted", flush=True)
        sys.exit(130)
'''


def test_ctrl_c_while_the_pool_parses_prints_no_worker_tracebacks_and_ends_at_once(tmp_path):
    """Trial 71: Ctrl-C in a terminal sends SIGINT to the whole process group, the parse pool's
    workers too; each printed a Python traceback (``multiprocessing/pool.py … task = get() …
    KeyboardInterrupt``), ~40 lines above import's own "interrupted: what import committed so far
    is kept" that read as a crash. The workers ignore SIGINT (the importing process handles it),
    and a parse abandoned by an exception ends the pool (``terminate``) instead of waiting for
    the pages still queued (``close`` + ``join``): the process ends while most pages are unparsed."""
    import signal
    import subprocess
    import sys
    from pathlib import Path

    import gbrain

    script = tmp_path / "ctrlc.py"
    script.write_text(CTRL_C)
    checkout = Path(gbrain.__file__).resolve().parent.parent
    env = dict(os.environ, PYTHONPATH=str(checkout))
    p = subprocess.Popen([sys.executable, str(script), "4000"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         cwd=tmp_path, env=env, start_new_session=True)
    try:
        assert p.stdout.readline().strip() == "ready"
        os.killpg(p.pid, signal.SIGINT)  # as a terminal's Ctrl-C: the whole foreground process group
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err[-3000:]
    assert out.strip() == "interrupted" and p.returncode == 130, (out, err[-2000:])


def _descendants(pid: int) -> list[int]:
    """The processes below ``pid`` (Linux: read from /proc), children first."""
    kids: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            kids.setdefault(ppid, []).append(int(d))
    out, todo = [], [pid]
    while todo:
        for k in kids.get(todo.pop(), []):
            out.append(k)
            todo.append(k)
    return out


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads the process tree from /proc")
def test_ctrl_c_of_gbrain_import_while_it_parses_says_one_line_and_the_next_import_goes_on(tmp_path):
    """The command as a person runs it (trial 71): `gbrain import` of 3,000 pages, Ctrl-C (SIGINT
    to the process group) once the parse workers run: import's own line, exit 130, no worker
    traceback; the same command again completes, Validation OK. (It hung once in stop 58's CI:
    ``Pool.terminate``, test_ctrl_c_while_a_worker_sends_its_chunk_ends_the_pool.)"""
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path

    import gbrain

    make_brain(tmp_path / "tree", 3000)
    checkout = Path(gbrain.__file__).resolve().parent.parent
    env = dict(os.environ, PYTHONPATH=str(checkout), GBRAIN_PARSE_WORKERS="2")
    argv = [sys.executable, "-m", "gbrain", "import", str(tmp_path / "tree"), "--db", str(tmp_path / "b.db")]
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path, env=env, start_new_session=True)
    try:
        # the workers are up: the forkserver's children (main → forkserver → workers; a resource tracker beside)
        while p.poll() is None and len(_descendants(p.pid)) < 4:
            time.sleep(0.01)
        assert p.poll() is None, "the import ended before its workers were seen"
        os.killpg(p.pid, signal.SIGINT)
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
    assert p.returncode == 130, (p.returncode, err[-3000:])
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err[-3000:]
    assert "interrupted: what import committed so far is kept" in err, err[-2000:]
    r = subprocess.run(argv, capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)
    assert r.returncode == 0 and "Validation: OK" in r.stdout, (r.stdout[-1000:], r.stderr[-2000:])


CTRL_C_AT_START = r'''
import os, signal, sys
from multiprocessing import reduction
from gbrain.sync import parallel

sent = []
real = reduction.sendfds


def sendfds(sock, fds):
    sent.append(1)
    if len(sent) == 2:  # Ctrl-C while the pool starts its second worker: connected to the forkserver, nothing sent yet
        os.killpg(os.getpgrp(), signal.SIGINT)
    return real(sock, fds)


reduction.sendfds = sendfds

if __name__ == "__main__":
    jobs = [(f"p{i}.md", "# P\n\nword\n", "rule") for i in range(400)]
    try:
        with parallel.PageParser(workers=2) as pp:
            list(pp.parse(jobs))
        print("not interrupted", flush=True)
    except KeyboardInterrupt:
        print("interrupted", flush=True)
        sys.exit(130)
'''


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads the process tree from /proc")
def test_ctrl_c_while_the_pool_starts_leaves_no_worker_and_no_traceback(tmp_path):
    """A Ctrl-C that lands while the pool starts its workers (``Pool.__init__`` ends only its
    workers on an ``Exception``, not on a KeyboardInterrupt, and a send to the forkserver cut in
    the middle made it print an ``EOFError`` traceback): SIGINT waits until the pool stands, then
    interrupts the parse as anywhere else: exit 130, no traceback, no worker left behind."""
    import signal
    import subprocess
    import sys
    from pathlib import Path

    import gbrain

    script = tmp_path / "start.py"
    script.write_text(CTRL_C_AT_START)
    checkout = Path(gbrain.__file__).resolve().parent.parent
    env = dict(os.environ, PYTHONPATH=str(checkout))
    p = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         cwd=tmp_path, env=env, start_new_session=True)
    try:
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
    assert out.strip() == "interrupted" and p.returncode == 130, (out, err[-3000:])
    assert "Traceback" not in err, err[-3000:]


HALF_SENT = r'''
import os, struct, sys, time
from multiprocessing import connection

if __name__ != "__main__":  # a parse worker (it imports this script as __mp_main__): it stops in the middle of its first result
    real = connection.Connection._send_bytes

    def _send_bytes(self, buf):
        if len(buf) > 100_000:  # a chunk of parsed pages: half of it written, holding the result pipe's write lock
            self._send(struct.pack("!i", len(buf)))
            self._send(buf[: len(buf) // 2])
            open(sys.argv[1], "a").close()
            time.sleep(3600)
        return real(self, buf)

    connection.Connection._send_bytes = _send_bytes

if __name__ == "__main__":
    from gbrain.sync import parallel

    body = "".join(f"Line {i} with [[link {i}]] and #tag{i % 9}.\n" for i in range(40))
    jobs = [(f"p{i}.md", f"# P{i}\n\n{body}", "rule") for i in range(400)]
    try:
        with parallel.PageParser(workers=2) as pp:
            it = pp.parse(jobs)
            while not os.path.exists(sys.argv[1]):
                time.sleep(0.01)
            raise KeyboardInterrupt  # (Ctrl-C while a worker is in the middle of sending its chunk)
    except KeyboardInterrupt:
        print("interrupted", flush=True)
        sys.exit(130)
'''


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads the process tree from /proc")
def test_ctrl_c_while_a_worker_sends_its_chunk_ends_the_pool(tmp_path):
    """The hang of a Ctrl-C'd `gbrain import` (stop 58's CI; found by a loop at load 15: every
    thread's stack): ``Pool.terminate`` put a stop message into the result pipe under its write
    lock, which a worker held while it sent a chunk of parsed pages no thread read any more (or
    killed the worker in the middle of one, and the result thread then waited for the rest for
    good). Here each worker stops for good in the middle of its first chunk, as a worker the
    terminate comes upon: the pool ends (its workers killed), exit 130."""
    import signal
    import subprocess
    import sys
    from pathlib import Path

    import gbrain

    script = tmp_path / "half.py"
    script.write_text(HALF_SENT)
    checkout = Path(gbrain.__file__).resolve().parent.parent
    env = dict(os.environ, PYTHONPATH=str(checkout))
    p = subprocess.Popen([sys.executable, str(script), str(tmp_path / "sent-half")], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, cwd=tmp_path, env=env, start_new_session=True)
    try:
        out, err = p.communicate(timeout=60)  # (before: never, the main thread waiting on the result thread)
    finally:
        try:
            os.killpg(p.pid, signal.SIGKILL)  # (a worker the old terminate left asleep)
        except ProcessLookupError:
            pass
    assert out.strip() == "interrupted" and p.returncode == 130, (out, err[-3000:])
    assert "Traceback" not in err, err[-3000:]


INT_AT_WORKER_START = r'''
import os, signal, sys, time

if __name__ != "__main__":  # a parse worker (it imports this script as __mp_main__ before it runs its initializer)
    from gbrain.sync import parallel

    real = parallel._worker_start

    def _worker_start():  # a Ctrl-C to the process group landing between the worker's fork and its initializer
        try:
            os.close(os.open(sys.argv[1], os.O_CREAT | os.O_EXCL))
        except FileExistsError:
            return real()
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)
        return real()

    parallel._worker_start = _worker_start

if __name__ == "__main__":
    from gbrain.sync import parallel

    jobs = [(f"p{i}.md", "# P\n\nword\n", "rule") for i in range(400)]
    with parallel.PageParser(workers=2) as pp:
        print(len(list(pp.parse(jobs))), flush=True)
'''


@pytest.mark.skipif(not hasattr(__import__("signal"), "SIGINT") or "forkserver" not in __import__("multiprocessing").get_all_start_methods(),
                    reason="the forkserver's workers")
def test_a_ctrl_c_before_a_worker_ran_its_initializer_is_ignored_by_it(tmp_path):
    """A Ctrl-C to the process group (the Ctrl-C test above sends it as the second worker appears)
    that reaches a worker before its initializer ignored SIGINT: the forkserver gave each worker
    Python's own handler back, so it printed a KeyboardInterrupt traceback and the pool started
    another. The forkserver now ignores SIGINT from its first preload on, and its workers from
    their fork: no traceback, every page parsed."""
    import subprocess
    import sys
    from pathlib import Path

    import gbrain

    script = tmp_path / "int_at_start.py"
    script.write_text(INT_AT_WORKER_START)
    checkout = Path(gbrain.__file__).resolve().parent.parent
    r = subprocess.run([sys.executable, str(script), str(tmp_path / "sent")], capture_output=True, text=True, cwd=tmp_path,
                       env=dict(os.environ, PYTHONPATH=str(checkout)), timeout=120)
    assert (tmp_path / "sent").exists()  # (a worker did send itself the SIGINT)
    assert r.returncode == 0 and r.stdout.strip() == "400", (r.stdout, r.stderr[-3000:])
    assert "Traceback" not in r.stderr and "KeyboardInterrupt" not in r.stderr, r.stderr[-3000:]


@pytest.mark.skipif(not hasattr(__import__("signal"), "SIGINT") or "forkserver" not in __import__("multiprocessing").get_all_start_methods(),
                    reason="the forkserver's workers")
def test_a_process_of_the_host_program_on_the_forkserver_still_takes_ctrl_c():
    """gbrain used as a library: the forkserver is the process's own, shared with the host
    program's processes (``multiprocessing.get_context("forkserver")``). Its preload ignored SIGINT
    for every process it forks, so a host's process never saw a Ctrl-C (no ``KeyboardInterrupt``,
    exit code 0). Only the parse workers ignore it from their fork: the host's raises it as Python
    does (exit code 1)."""
    import multiprocessing as mp
    import signal

    with parallel.PageParser(workers=2) as pp:  # (a process's first pool starts the forkserver, with gbrain's preload)
        assert len(list(pp.parse([(f"p{i}.md", "# P\n", "rule") for i in range(parallel.PARALLEL_MIN)]))) == parallel.PARALLEL_MIN
        assert pp.pool is not None
    p = mp.get_context("forkserver").Process(target=signal.raise_signal, args=(signal.SIGINT,))
    p.start()
    p.join(120)
    assert p.exitcode == 1, p.exitcode  # (its traceback goes to the stderr the forkserver had when it started)


def test_the_pool_teardown_is_ours_only_where_cpython_calls_it_with_the_arguments_it_takes():
    """``_Pool._terminate_pool`` replaces CPython's (3.8-3.13: the same nine arguments): on this
    Python it is in effect; a CPython whose ``Pool.__init__`` passed other arguments keeps its own."""
    import multiprocessing.pool

    assert parallel._terminate_fits(multiprocessing.pool.Pool._terminate_pool)
    assert "_terminate_pool" in vars(parallel._Pool)

    class Later(multiprocessing.pool.Pool):
        @classmethod
        def _terminate_pool(cls, taskqueue, inqueue, outqueue, pool, change_notifier, worker_handler, task_handler,
                            result_handler, cache, timeout):
            pass

    assert not parallel._terminate_fits(Later._terminate_pool)
    assert not parallel._terminate_fits(None)
