"""No benchmark script may shadow an installed package: tests put benchmarks/ on sys.path to
import a script (test_minilm_chunks, test_treecpu), and a `benchmarks/mcp.py` there once made a
later `from mcp import Client` in the same test worker fail (test_pg_reconnect, seen by a helper)."""
from __future__ import annotations

import importlib.util
from pathlib import Path
import pytest

pytestmark = pytest.mark.engine_free  # the same on both engines: runs in the SQLite run only (conftest)

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"


def test_no_benchmark_script_is_named_like_an_importable_package():
    clash = []
    for f in sorted(BENCH.glob("*.py")):
        spec = importlib.util.find_spec(f.stem) if f.stem not in ("__init__",) else None
        if spec is not None and spec.origin and Path(spec.origin).resolve().parent != BENCH:
            clash.append(f"{f.name} shadows {spec.origin}")
    assert not clash, clash
