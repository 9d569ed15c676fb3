#!/usr/bin/env python3
"""The Obsidian-trial migration (SQLite v17 / Postgres v15) beside a floor, same run.

A make_brain.py brain of ``--pages`` pages is imported twice: as generated (``none``: no footnote,
``tag:`` key, ``$…#`` or frontmatter error, so the migration's selection finds no page) and with
``--share`` of its pages given one of the shapes the fixes change (``some``: a footnote, a
singular ``tag:`` key, inline math with a ``#``, or an impossible date, in turn). The
migration's step (``db.rederive_trial_pages``: the selection query, a parse of each selected
page, its derived columns and rows rewritten, every link resolved again) is timed in its own
transaction, in CPU-seconds of this process (no pool runs) and wall seconds, best of
``--runs``. The floor, measured alternately with it: one read of every page's text
(``SELECT id, compiled_truth, timeline, frontmatter, title, path FROM pages``), what a
re-derivation of all pages must at least do. Target: ``none`` ≤ 2× the floor (it selects and
writes nothing); ``some`` grows with the selected pages only (a full re-derivation parses all).

On Postgres (``--postgres``: a private pgserver) the selection runs in the server (its CPU is
not this process's: wall seconds are the figure there). The load average is printed beside them.

    python benchmarks/trial_migration.py [--pages 2000] [--share 0.05] [--runs 3] [--postgres]
"""
from __future__ import annotations

import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gbrain.storage import db as dbmod  # noqa: E402
from compat_migration import measure  # noqa: E402  (the harness both migration benchmarks share)

SHAPES = [
    ("body", "\n\nA claim.[^1]\n\n[^1]: Roadmap, see [[Elsewhere]]\n"),
    ("fm", "tag: trial-tag\n"),
    ("body", "\n\nEnergy $E = mc^2 #mathtag$ here.\n"),
    ("fm", "created: 2024-02-30\n"),
]


def spoil(tree: Path, share: float, seed: int = 1) -> int:
    """Give ``share`` of the pages one of :data:`SHAPES` (in turn): a body shape is appended to
    the compiled truth (before any timeline), a frontmatter line is added to the frontmatter
    (one is made when the page has none)."""
    rng = random.Random(seed)
    n = 0
    for p in sorted(tree.rglob("*.md")):
        if rng.random() >= share:
            continue
        kind, add = SHAPES[n % len(SHAPES)]
        t = p.read_text(encoding="utf-8")
        has_fm = t.startswith("---\n") and t.find("\n---\n", 3) >= 0
        if kind == "fm":
            t = "---\n" + add + t[4:] if has_fm else "---\n" + add + "---\n" + t
        else:
            start = t.find("\n---\n", 3) + 5 if has_fm else 0
            i = t.find("\n---\n", start)
            t = t + add if i < 0 else t[:i] + add + t[i:]
        p.write_text(t, encoding="utf-8")
        n += 1
    return n


def main() -> None:
    measure(__doc__, spoil, dbmod.rederive_trial_pages, what="with a trial shape", count_label="parsed", name="trial")


if __name__ == "__main__":
    main()
