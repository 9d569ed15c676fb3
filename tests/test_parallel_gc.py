"""parallel.few_collections raises the young-generation GC threshold for an import and puts the
process's thresholds back when the last import that raised it ends, however imports overlap
(the MCP server may run two in threads)."""
import gc

from gbrain.sync import parallel
import pytest

pytestmark = pytest.mark.engine_free  # the same on both engines: runs in the SQLite run only (conftest)


def test_thresholds_come_back_after_overlapping_imports():
    before = gc.get_threshold()
    a, b = parallel.few_collections(), parallel.few_collections()
    a.__enter__()
    assert gc.get_threshold()[0] >= parallel.GC_YOUNG
    b.__enter__()
    a.__exit__(None, None, None)  # the first one ends while the second still runs
    assert gc.get_threshold()[0] >= parallel.GC_YOUNG
    b.__exit__(None, None, None)
    assert gc.get_threshold() == before


def test_thresholds_come_back_after_an_error():
    before = gc.get_threshold()
    try:
        with parallel.few_collections():
            raise RuntimeError("x")
    except RuntimeError:
        pass
    assert gc.get_threshold() == before


def test_import_parses_in_process_when_the_pool_cannot_start_under_a_long_tmpdir(tmp_path):
    """A $TMPDIR so long that the forkserver's Unix socket path is over 108 bytes ("AF_UNIX path
    too long"): import of enough pages for the pool parses them in its own process instead."""
    import os
    import subprocess
    import sys

    from gbrain.sync.parallel import PARALLEL_MIN

    long_tmp = tmp_path / ("t" * 60) / ("u" * 60)
    long_tmp.mkdir(parents=True)
    src = tmp_path / "src"
    src.mkdir()
    for i in range(PARALLEL_MIN + 10):
        (src / f"p{i}.md").write_text(f"# Page {i}\n\nText {i}.\n")
    env = dict(os.environ, TMPDIR=str(long_tmp), GBRAIN_DB=str(tmp_path / "b.db"))
    r = subprocess.run([sys.executable, "-m", "gbrain", "import", str(src)], env=env, capture_output=True, timeout=300)
    assert r.returncode == 0, r.stderr.decode()[-2000:]


def test_parse_all_from_a_script_read_on_standard_input_ends(tmp_path):
    """trial14: `python - < script.py` that called ``fresh_import_differences`` (an import of
    300+ pages) never ended: each forkserver worker of the parse pool prepares the parent's
    ``__main__`` by running its file again, ``<stdin>`` is no file, the worker died at start and
    ``multiprocessing.Pool`` started another, for 50 minutes, at a full core. Such a process now
    parses in itself; a script with a file still gets the pool."""
    import os
    import signal
    import subprocess
    import sys

    script = ("import os\n"
              "from gbrain.sync import parallel\n"
              "jobs = [(f'p{i}.md', f'# Page {i}\\n\\nSee [[Page {i + 1}]].\\n', 'rule') for i in range(parallel.PARALLEL_MIN + 10)]\n"
              "pages = parallel.parse_all(jobs)\n"
              "print(len(pages), pages[7].title)\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    p = subprocess.Popen([sys.executable, "-"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         cwd=tmp_path, env=env, start_new_session=True)
    try:
        out, err = p.communicate(script.encode(), timeout=120)  # (a hang, not a speed: it ends in ~1 s)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)  # the pool's forkserver and workers too
        p.communicate()
        pytest.fail("parse_all from a script on standard input did not end")
    assert p.returncode == 0 and out.decode().split() == [str(parallel.PARALLEL_MIN + 10), "Page", "7"], err.decode()[-2000:]
    assert parallel._workers_can_start()  # this process (python -m pytest) keeps its pool
