"""tests/assert_cache.py: an xdist run's controller rewrites the test modules' asserts once, ahead
of the workers, writing the pyc pytest itself would write and read (not plain compiled code: the
asserts would lose their explanations), and again only for a module changed since."""
from __future__ import annotations

import sys
from types import SimpleNamespace

import pytest

import assert_cache

pytestmark = pytest.mark.engine_free  # the test modules' bytecode: no brain


SOURCE = "def test_x():\n    a = 1\n    assert a == 2, 'no'\n"


def test_rewrite_ahead_writes_the_pyc_pytest_reads_and_again_after_a_change(tmp_path, pytestconfig, monkeypatch):
    from _pytest.assertion import rewrite as rw

    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    (tmp_path / "sub").mkdir()
    mods = [tmp_path / "test_one.py", tmp_path / "sub" / "test_two.py", tmp_path / "conftest.py"]
    for m in mods:
        m.write_text(SOURCE)
    (tmp_path / "helper.py").write_text(SOURCE)  # not a test module: pytest does not rewrite it
    # the run's config as rewrite_ahead reads it: an xdist controller with two workers
    config = SimpleNamespace(option=SimpleNamespace(numprocesses=2, assertmode="rewrite"), args=[str(tmp_path)],
                             invocation_params=SimpleNamespace(dir=tmp_path), getini=pytestconfig.getini,
                             get_verbosity=pytestconfig.get_verbosity, stash=pytestconfig.stash)

    def pyc(m):
        return rw.get_cache_dir(m) / (m.name[:-3] + rw.PYC_TAIL)

    assert sorted(assert_cache.modules_to_rewrite(config)) == sorted(mods)
    assert assert_cache.rewrite_ahead(config) == 3
    assert not (tmp_path / "__pycache__" / ("helper" + rw.PYC_TAIL)).exists()
    for m in mods:
        code = rw._read_pyc(m, pyc(m))
        # what pytest's import hook reads is its own rewriting of the module
        assert code is not None and code == rw._rewrite_test(m, config)[1], m
        assert code != compile(SOURCE, str(m), "exec", dont_inherit=True)
    assert assert_cache.modules_to_rewrite(config) == [] and assert_cache.rewrite_ahead(config) == 0
    mods[0].write_text(SOURCE + "\n\ndef test_y():\n    assert 1\n")  # changed: its pyc is out of date
    assert assert_cache.modules_to_rewrite(config) == [mods[0]]
    assert assert_cache.rewrite_one.__module__ == "assert_cache"
    assert_cache._CONFIG[:] = [config]
    assert assert_cache.rewrite_one(str(mods[0]))
    assert rw._read_pyc(mods[0], pyc(mods[0])) == rw._rewrite_test(mods[0], config)[1]


def test_rewrite_ahead_does_nothing_in_a_run_without_workers(tmp_path, pytestconfig):
    (tmp_path / "test_one.py").write_text(SOURCE)
    (tmp_path / "test_two.py").write_text(SOURCE)
    for n in (None, 0):
        config = SimpleNamespace(option=SimpleNamespace(numprocesses=n, assertmode="rewrite"), args=[str(tmp_path)],
                                 invocation_params=SimpleNamespace(dir=tmp_path), getini=pytestconfig.getini)
        assert assert_cache.rewrite_ahead(config) == 0
    assert not (tmp_path / "__pycache__").exists()
