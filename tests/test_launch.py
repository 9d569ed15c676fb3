"""The console script's first step (gbrain/launch.py): a Ctrl-C while the command's modules are
still loading (the first ~0.1–0.3 s of every `gbrain` process, longer on a loaded machine) printed
a KeyboardInterrupt traceback from deep inside the standard library and exited -2 (killed by the
signal); it is an interruption like any other: one line on stderr, exit 130."""
from __future__ import annotations

import importlib.abc
import sys

import pytest

pytestmark = pytest.mark.engine_free


class _CtrlCOnImport(importlib.abc.MetaPathFinder):
    """Raises KeyboardInterrupt when ``name`` is imported, as Ctrl-C landing in its import does."""

    def __init__(self, name: str):
        self.name = name

    def find_spec(self, fullname, path, target=None):
        if fullname == self.name:
            raise KeyboardInterrupt
        return None


def test_ctrl_c_while_the_modules_load_is_exit_130_without_a_traceback(monkeypatch, capsys):
    from gbrain import launch

    monkeypatch.delitem(sys.modules, "gbrain.entry", raising=False)
    monkeypatch.delattr(sys.modules["gbrain"], "entry", raising=False)
    monkeypatch.setattr(sys, "meta_path", [_CtrlCOnImport("gbrain.entry"), *sys.meta_path])
    with pytest.raises(SystemExit) as e:
        launch.main()
    assert e.value.code == 130
    assert capsys.readouterr().err == "interrupted\n"


def test_the_console_script_and_python_m_start_at_launch():
    """pip's `gbrain` script and `python -m gbrain` both go through launch.main."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    assert 'gbrain = "gbrain.launch:main"' in (root / "pyproject.toml").read_text()
    assert "from .launch import main" in (root / "gbrain" / "__main__.py").read_text()
