"""The repository's root holds the project's own files only.

A helper's reproduction of ``gbrain export ""`` (b295e43e) once wrote fixtures/brain's pages into
the worktree, and they were committed with the change: people/, companies/, index.md … at the root
of the repository. This test lists what git tracks at the root and refuses anything else.
"""
import shutil
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.engine_free  # what git tracks: no brain

ROOT = Path(__file__).resolve().parent.parent

#: Every name git may track at the repository's root.
ALLOWED = {
    ".ci", ".gitignore", "CLAUDE.md", "MANIFEST.in", "README.md", "benchmarks", "docs",
    "fixtures", "gbrain", "pyproject.toml", "setup.py", "skills", "tests",
}


def _tracked_roots() -> set[str]:
    out = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True, check=True).stdout
    return {p.split(b"/", 1)[0].decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p}


@pytest.mark.skipif(shutil.which("git") is None or not (ROOT / ".git").exists(), reason="not a git checkout")
def test_the_repository_root_tracks_only_the_projects_own_files():
    stray = sorted(_tracked_roots() - ALLOWED)
    assert stray == [], f"files tracked at the repository's root that are not the project's: {stray}"
