#!/usr/bin/env python3
"""CPU of one ``keyword._code_ranges`` and one ``keyword.drop_tags`` call on a ~3 MB text of ~40,000
code spans and no ``~~~`` (paragraphs of a sentence with one code span and a ``<b>`` tag), beside a
baseline ref's ``gbrain/search/keyword.py`` (``git show REF:…``, loaded beside this checkout's),
same run. The baseline searched the next ``~~~`` and the next blank line to the end of the text
for every run of backticks (quadratic); now each is remembered while the scan passes it.
Checks both give the same answers; prints CPU seconds (``time.process_time``) and the load
average (2 shared cores: CPU is the steadier figure).

    python benchmarks/code_ranges.py [--mb 3] [--spans 40000] [--baseline 89d40c4e] [--shape paragraphs|line]
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gbrain.search import keyword  # noqa: E402


def baseline(ref: str):
    src = subprocess.run(["git", "-C", str(ROOT), "show", f"{ref}:gbrain/search/keyword.py"],
                         check=True, capture_output=True, text=True).stdout
    spec = importlib.util.spec_from_loader("gbrain.search._keyword_baseline", loader=None)
    mod = importlib.util.module_from_spec(spec)
    mod.__package__ = "gbrain.search"
    exec(compile(src, f"{ref}:keyword.py", "exec"), mod.__dict__)
    return mod


def text(mb: float, spans: int, shape: str) -> str:
    size = int(mb * 1_000_000)
    sep = "\n\n" if shape == "paragraphs" else " "
    body = "x" * max(1, size // spans - len(f"Text `code{spans}` and <b>tag</b> .{sep}"))
    return "".join(f"Text `code{i}` and <b>tag</b> {body}.{sep}" for i in range(spans))


def cpu(f, s):
    t = time.process_time()
    out = f(s)
    return time.process_time() - t, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mb", type=float, default=3.0)
    ap.add_argument("--spans", type=int, default=40_000)
    ap.add_argument("--baseline", default="89d40c4e", help="git ref of the code before (default: nextrun's base)")
    ap.add_argument("--shape", choices=("paragraphs", "line"), default="paragraphs")
    a = ap.parse_args()
    s = text(a.mb, a.spans, a.shape)
    base = baseline(a.baseline)
    print(f"text {len(s) / 1e6:.2f} M characters, {s.count('`') // 2} code spans, {a.shape}; "
          f"load {os.getloadavg()[0]:.1f} (2 cores)")
    for name in ("_code_ranges", "drop_tags"):
        now, got = cpu(getattr(keyword, name), s)
        before, want = cpu(getattr(base, name), s)
        assert got == want, name
        print(f"{name:12} now {now:7.3f} CPU-s   {a.baseline} {before:8.2f} CPU-s   ×{before / max(now, 1e-6):,.0f}")


if __name__ == "__main__":
    main()
