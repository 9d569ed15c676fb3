"""The engine_free mark's guard (tests/conftest.py): a marked test that opens the brain the engine
chooses ($GBRAIN_DB), even only to be told there is none, or asks which engine runs, fails in the
SQLite run; ``--engine-free-report`` lists the tests that could take the mark. Run as a pytest of
its own in a subprocess, over a copy of the conftest."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.engine_free  # the brains are the inner run's

ROOT = Path(__file__).resolve().parent.parent

INNER = '''
import os, subprocess, sys
import pytest
from gbrain.core.brain import Brain


@pytest.mark.engine_free
def test_pure():
    assert sorted("ba") == ["a", "b"]


@pytest.mark.engine_free
def test_own_brain(tmp_path):
    Brain.open(tmp_path / "mine.db").close()


@pytest.mark.engine_free
def test_opens_engine_brain():
    Brain.open().close()


@pytest.mark.engine_free
def test_cli_makes_brain():
    r = subprocess.run([sys.executable, "-m", "gbrain", "put", "a", "--content", "# A\\n"], capture_output=True)
    assert r.returncode == 0, r.stderr


@pytest.mark.engine_free
def test_cli_finds_no_brain():
    r = subprocess.run([sys.executable, "-m", "gbrain", "get", "a"], capture_output=True)
    assert r.returncode == 2 and b"no brain" in r.stderr  # passes on SQLite alone


@pytest.fixture(scope="module")
def which(request):
    return request.config.getoption("--engine")


@pytest.mark.engine_free
def test_asks_engine(which):
    assert which


def test_unmarked_pure():
    pass


def test_unmarked_cli():
    r = subprocess.run([sys.executable, "-m", "gbrain", "get", "a"], capture_output=True)
    assert r.returncode == 2


def test_unmarked_own_brain(tmp_path):
    Brain.open(tmp_path / "mine.db").close()
'''


def test_marked_tests_that_open_the_engines_brain_fail_and_the_report_lists_candidates(tmp_path):
    inner = tmp_path / "inner"
    inner.mkdir()
    (inner / "pytest.ini").write_text("[pytest]\naddopts = -p no:cacheprovider\n")
    for helper in ("conftest.py", "assert_cache.py"):  # (conftest imports assert_cache at configure)
        (inner / helper).write_bytes((ROOT / "tests" / helper).read_bytes())
    (inner / "test_inner.py").write_text(INNER)
    report = tmp_path / "report.jsonl"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "GBRAIN_DB"))}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    r = subprocess.run([sys.executable, "-m", "pytest", "-rA", "-q", "-p", "no:randomly", f"--engine-free-report={report}",
                        f"--basetemp={tmp_path / 'base'}", "test_inner.py"],
                       cwd=inner, env=env, capture_output=True, text=True, timeout=600)
    out = r.stdout
    status = {}
    for ln in out.splitlines():
        word, _, rest = ln.partition(" ")
        if word in ("PASSED", "FAILED", "ERROR") and "::" in rest:
            name = rest.split("::", 1)[1].split(" ", 1)[0]
            status.setdefault(name, set()).add(word)
    assert status.get("test_pure") == {"PASSED"}, out + r.stderr
    assert status.get("test_own_brain") == {"PASSED"}, out
    for name in ("test_opens_engine_brain", "test_cli_makes_brain", "test_asks_engine"):
        assert "ERROR" in status.get(name, set()), (name, out)
    assert "marked engine_free, but it made brain.db" in out and "asks which engine runs" in out, out
    if sys.platform.startswith("linux"):  # inotify sees the open lock a failed open takes and drops
        assert "ERROR" in status.get("test_cli_finds_no_brain", set()), out
        assert "brain.db-gbrain.lock" in out, out
    assert r.returncode == 1, out
    lines = {json.loads(ln)["nodeid"].split("::")[-1]: json.loads(ln) for ln in report.read_text().splitlines()}
    assert {n for n, v in lines.items() if v["candidate"]} == {"test_unmarked_pure", "test_unmarked_own_brain"}, lines
    assert lines["test_unmarked_cli"]["passed"] and lines["test_unmarked_cli"]["made"], lines
    assert lines["test_pure"]["marks"] == ["engine_free"] and not lines["test_pure"]["candidate"]
