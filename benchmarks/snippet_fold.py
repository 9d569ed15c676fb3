#!/usr/bin/env python3
"""CPU of one Python-cut snippet of a ~3 MB page (``keyword._cut_snippet``: what ``search`` and
MCP ``brain_search`` make for a page past ``SNIPPET_MAX_CHARS``), its one hit at the start, the
middle and the end, the page folded in windows around the hit (``keyword._fold_hits``, now: the
blocks before the hit skipped by one expression over the text as written, ``_FoldBlocks``)
beside the whole page folded (``FOLD_WINDOW_MIN`` set past the page: the code of two versions
before) and beside the windows with each block before the hit folded by ``str.translate``
(``_FoldBlocksTranslate``: the code before), same run, alternated. The page's lines are those of ``tests/test_mcp.py::test_big_page_unicode_separators_under_c_locale``
(accented letters, CJK, U+2028/U+2029, an emoji: every line folded piece by piece), or
``--line TEXT``. Checks the two snippets are equal; prints CPU seconds (``time.process_time``,
best and median of ``--rounds``) and the load average (2 shared cores: CPU is the steadier figure).

    python benchmarks/snippet_fold.py [--mb 3] [--rounds 3] [--query quetzalcoatl]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gbrain.search import keyword  # noqa: E402

LINE = "Ünïcödé ✓ 日本語 \u2028 next\u2029 para — emoji 🧠\n"


def page(mb: float, where: str, line: str) -> str:
    body = line * (int(mb * 1_000_000) // len(line.encode("utf-8")) + 1)
    at = {"start": 0, "middle": len(body) // 2, "end": len(body)}[where]
    cut = body.rfind("\n", 0, at) + 1
    return "# Big\n\n" + body[:cut] + "Ends with a quetzalcoatl.\n" + body[cut:]


def cpu(text: str, query: str, whole: bool, translate: bool = False) -> tuple[float, dict]:
    old = keyword.FOLD_WINDOW_MIN, keyword._FoldBlocks
    keyword.FOLD_WINDOW_MIN = float("inf") if whole else old[0]
    if translate:
        keyword._FoldBlocks = keyword._FoldBlocksTranslate
    try:
        t = time.process_time()
        out = keyword._cut_snippet(text, query)
        return time.process_time() - t, out
    finally:
        keyword.FOLD_WINDOW_MIN, keyword._FoldBlocks = old


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mb", type=float, default=3.0)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--query", default="quetzalcoatl")
    ap.add_argument("--line", default=LINE)
    a = ap.parse_args()
    keyword._cut_snippet("warm ﬁ quetzalcoatl\n", a.query)  # (the regex classes made once)
    print(f"page ~{a.mb} MB of {a.line!r} lines; query {a.query!r}; load {os.getloadavg()[0]:.1f} (2 cores)")
    print(f"{'hit at':8} {'whole fold s':>14} {'blocks translated s':>20} {'windows s':>12} {'ratio':>7}  (best / median of {a.rounds})")
    for where in ("start", "middle", "end"):
        text = page(a.mb, where, a.line)
        before, mid, after = [], [], []
        for _ in range(a.rounds):
            t0, s0 = cpu(text, a.query, whole=True)
            tm, sm = cpu(text, a.query, whole=False, translate=True)
            t1, s1 = cpu(text, a.query, whole=False)
            assert s0 == s1 == sm, (where, s0, s1, sm)
            before.append(t0)
            mid.append(tm)
            after.append(t1)
        print(f"{where:8} {min(before):7.3f} / {statistics.median(before):5.3f} {min(mid):12.3f} / {statistics.median(mid):5.3f}"
              f" {min(after):5.3f} / {statistics.median(after):5.3f} {min(before) / max(min(after), 1e-9):6.1f}x")
    print(f"load {os.getloadavg()[0]:.1f} at the end; characters {len(text):,}")


if __name__ == "__main__":
    main()
