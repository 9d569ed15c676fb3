#!/usr/bin/env python3
"""CPU of one ``get --section`` lookup (``page/sections.find``, its per-text caches cleared: what
one ``gbrain get SLUG --section H`` call costs beyond reading the page) of this checkout beside a
baseline checkout, in the same run.

Pages: a generated one of ``--headings`` headings (default 1,500) where the section reader's
quick scan (pulldown-cmark) and the page model (mistune) disagree at both ends (a line under a
quote's rule that pulldown-cmark reads as a setext heading and mistune as text: the heading
alignment could not cut its equal ends off), the same page without them (they agree), and a
normal page (obsidian-help's ``Basic formatting syntax``, 27 headings, when ../shared/corpora is
there). Each figure is CPU seconds per call (``time.process_time``), the best of ``--rounds``;
baseline and this checkout run in their own subprocesses (``PYTHONPATH`` set), alternating order.

    python benchmarks/get_section.py [--base-ref main | --base /path/to/checkout] [--rounds 3]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NORMAL = ROOT.parent.parent / "shared" / "corpora" / "obsidian-help" / "en" / "Editing and formatting" / "Basic formatting syntax.md"
if not NORMAL.exists():
    NORMAL = Path("/work/shared/corpora/obsidian-help/en/Editing and formatting/Basic formatting syntax.md")


def big_page(n: int, disagree: bool = True) -> str:
    """A page of ``n`` ``##`` headings with a paragraph (and a wiki link) under each; with
    ``disagree`` a ``>   ---`` / ``text`` / `` ---`` block first and last, whose ``text`` is a
    heading to pulldown-cmark and none to the page model."""
    parts = [">   ---\nfirst\n ---\n\n"] if disagree else []
    parts += [f"## Heading {i}\n\nSome words about item {i} with a [[link {i}]].\n\n" for i in range(n)]
    if disagree:
        parts.append(">   ---\nlast\n ---\n")
    return "".join(parts)


CHILD = r"""
import json, sys, time
from gbrain.page import sections
texts = json.load(open(sys.argv[1]))
out = {}
for name, (text, want, calls) in texts.items():
    best = None
    for _ in range(calls):
        for f in (sections._parse, getattr(sections, "_opaque", None), getattr(sections, "_ast", None)):
            if f is not None and hasattr(f, "cache_clear"):
                f.cache_clear()
        sections._plain.cache_clear()
        c = time.process_time()
        got = sections.find(text, want)
        c = time.process_time() - c
        best = c if best is None else min(best, c)
    out[name] = {"cpu": best, "found": [got.start, got.end] if got else None,
                 "headings": [(h.level, h.text, h.start, h.end) for h in sections.headings(text)]}
print(json.dumps(out))
"""


def child(checkout: Path, pages: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(checkout))
    out = subprocess.run([sys.executable, "-c", CHILD, str(pages)], env=env, cwd=str(checkout),
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", help="a baseline checkout (its root folder)")
    ap.add_argument("--base-ref", default="main", help="else this git ref of this repository, exported to a temporary folder")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--headings", type=int, default=1500)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        base = Path(a.base) if a.base else tmp / "base"
        if not a.base:
            base.mkdir()
            tar = subprocess.run(["git", "-C", str(ROOT), "archive", a.base_ref, "gbrain"], check=True, capture_output=True).stdout
            subprocess.run(["tar", "-x", "-C", str(base)], input=tar, check=True)
        mid = f"Heading {a.headings // 2}"
        pages = {"big, ends disagree": [big_page(a.headings), mid, 1],
                 "big, all agree": [big_page(a.headings, disagree=False), mid, 1]}
        if NORMAL.exists():
            pages["normal (Basic formatting syntax)"] = [NORMAL.read_text(encoding="utf-8"), "Headings", 5]
        pages_json = tmp / "pages.json"
        pages_json.write_text(json.dumps(pages))
        figures: dict[str, dict[str, list]] = {}
        for r in range(a.rounds):
            order = [("base", base), ("this", ROOT)] if r % 2 == 0 else [("this", ROOT), ("base", base)]
            for who, checkout in order:
                for name, got in child(checkout, pages_json).items():
                    figures.setdefault(name, {}).setdefault(who, []).append(got)
        print(f"get --section: CPU per call (best of {a.rounds}), baseline {a.base or a.base_ref} vs this checkout; load {os.getloadavg()[0]:.1f}")
        for name, by in figures.items():
            b, t = min(x["cpu"] for x in by["base"]), min(x["cpu"] for x in by["this"])
            same = by["base"][0]["found"] == by["this"][0]["found"] and by["base"][0]["headings"] == by["this"][0]["headings"]
            print(f"  {name:36} baseline {b * 1000:8.1f} ms   this {t * 1000:8.1f} ms   x{b / t if t else float('inf'):6.1f}   same answers: {same}")


if __name__ == "__main__":
    main()
