"""benchmarks/treecpu.py counts the CPU of a whole process tree, including forkserver pool
workers (children of the forkserver, not of the measuring process) and the forkserver a CLI
child leaves behind. CPU amounts with loose bounds, no wall-clock thresholds. Each case runs in
a process of its own: the meter makes its process a child subreaper, which pytest's should not be."""
from __future__ import annotations

import json
import multiprocessing as mp
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"

pytestmark = [pytest.mark.engine_free, pytest.mark.skipif(not sys.platform.startswith("linux") or "forkserver" not in mp.get_all_start_methods(),
                                reason="Linux forkserver accounting")]

PRELUDE = f"""
import json, multiprocessing as mp, resource, subprocess, sys
sys.path.insert(0, {str(BENCH)!r})
import treecpu

def rusage():  # the old meter: this process and the children it reaped
    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime

def pool_burn():
    pool = mp.get_context("forkserver").Pool(2)
    used = sum(pool.map(treecpu.burn, [0.4, 0.4]))
    pool.close()
    pool.join()
    return used
"""


def run(body: str, tmp_path: Path) -> dict:
    script = tmp_path / "case.py"
    script.write_text(PRELUDE + textwrap.dedent(body))
    out = subprocess.run([sys.executable, str(script)], check=True, capture_output=True, text=True, cwd=tmp_path).stdout
    return json.loads(out.strip().splitlines()[-1])


def test_counts_forkserver_pool_workers(tmp_path):
    r = run("""
        if __name__ == "__main__":
            old, before = rusage(), treecpu.tree_cpu()
            used = pool_burn()
            print(json.dumps({"used": used, "counted": treecpu.tree_cpu() - before, "rusage": rusage() - old}))
    """, tmp_path)
    assert r["used"] >= 0.8
    assert r["rusage"] < r["used"] / 2  # the bug the meter fixes: the workers are not our children
    assert r["used"] * 0.95 <= r["counted"] <= r["used"] * 1.4 + 0.4  # each worker counted, once


def test_counts_the_forkserver_an_exited_cli_leaves_behind(tmp_path):
    (tmp_path / "cli.py").write_text(PRELUDE + textwrap.dedent("""
        if __name__ == "__main__":
            print(pool_burn())
    """))
    r = run("""
        if __name__ == "__main__":
            before = treecpu.tree_cpu()
            used = float(subprocess.run([sys.executable, "cli.py"], check=True, capture_output=True, text=True).stdout)
            print(json.dumps({"used": used, "counted": treecpu.tree_cpu() - before}))
    """, tmp_path)
    assert r["used"] * 0.95 <= r["counted"] <= r["used"] * 1.4 + 0.8


def test_measure_returns_cpu_wall_and_result(tmp_path):
    r = run("""
        cpu, wall, used = treecpu.measure(lambda: treecpu.burn(0.05))
        print(json.dumps({"cpu": cpu, "wall": wall, "used": used}))
    """, tmp_path)
    assert r["used"] >= 0.05 and r["cpu"] >= r["used"] * 0.95 and r["wall"] > 0
