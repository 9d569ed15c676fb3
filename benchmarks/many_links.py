"""A page of very many links: ``put`` and ``import`` of ``'word [[x]] ' * N`` beside a page of
the same size without links (the baseline, measured in the same run).

The chaos trial's page (N = 1,500,000, 16.5 MB, under the 16 MiB page cap) took 123 s and
2.3 GB to ``put`` (a 15 MB page without links: 2.2 s, 160 MB): every repeat of ``[[x]]`` built
a context sentence, a Link and two token dictionaries that de-duplication then dropped.

Prints, per N and command: CPU-seconds of the process tree (``treecpu``), wall seconds, peak
RSS (MB, the largest process), the same for the page without links, and the ratios. Target:
CPU and RSS per link linear, and within 3x / 4x of the link-less page.

    python benchmarks/many_links.py [N ...]     (default 150000 300000)
"""
from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from treecpu import WHAT, measure  # noqa: E402


def _run(args: list[str], stdin_path: str | None = None) -> tuple[float, float, float]:
    """(CPU s, wall s, peak RSS MB of the largest child so far) of one gbrain command."""
    def go():
        with open(stdin_path or os.devnull, "rb") as f:
            subprocess.run([sys.executable, "-m", "gbrain", *args], stdin=f, check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    cpu, wall, _ = measure(go)
    return cpu, wall, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def main() -> None:
    ns = [int(a) for a in sys.argv[1:]] or [150_000, 300_000]
    print(WHAT)
    print(f"load average {os.getloadavg()[0]:.1f}")
    for n in ns:
        with tempfile.TemporaryDirectory(prefix="many-links-") as tmp:
            rows = {}
            for name, text in (("links", "word [[x]] " * n), ("plain", "word xxxxx " * n)):
                tree = os.path.join(tmp, name)
                os.makedirs(tree)
                page = os.path.join(tree, "big.md")
                with open(page, "w") as f:
                    f.write(text)
                # each figure in a fresh child so ru_maxrss is its own: run via a sub-benchmark
                put = _child(["--db", os.path.join(tmp, name + "-put.db"), "put", "big"], page)
                imp = _child(["--db", os.path.join(tmp, name + "-imp.db"), "import", tree], None)
                rows[name] = (put, imp)
            for i, cmd in enumerate(("put", "import")):
                (lc, lw, lr), (pc, pw, pr) = rows["links"][i], rows["plain"][i]
                print(f"N={n:>9,} {cmd:<6} links: CPU {lc:6.2f} s, wall {lw:6.2f} s, RSS {lr:6.0f} MB | "
                      f"no links: CPU {pc:6.2f} s, RSS {pr:6.0f} MB | ratio CPU {lc / pc:4.1f}x (target 3x), "
                      f"RSS {lr / pr:4.1f}x (target 4x)")
        print(f"load average {os.getloadavg()[0]:.1f}")


def _child(args: list[str], stdin_path: str | None) -> tuple[float, float, float]:
    """Measure one command from a fresh Python process, so its peak RSS is its own."""
    out = subprocess.run([sys.executable, __file__, "--one", repr((args, stdin_path))],
                         check=True, capture_output=True, text=True).stdout
    return tuple(float(x) for x in out.split())  # type: ignore[return-value]


if __name__ == "__main__":
    if sys.argv[1:2] == ["--one"]:
        import ast

        a, p = ast.literal_eval(sys.argv[2])
        print(*_run(a, p))
    else:
        main()
