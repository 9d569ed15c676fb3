#!/usr/bin/env python3
"""The cost of pairing moved *and edited* notes (gbrain/sync/similar.py, plan.py) on a big round.

On a make_brain tree (``--pages``, default 2,000) imported into a SQLite brain, three sync rounds,
each with every note of the tree gone from its path and a note at a new path:

* **A, plain move** (the baseline, measured in the same run): every note moved to another folder
  with its bytes unchanged: paired by hash, no text is compared;
* **B, move + edit**: every note moved back and edited (a relative link rewritten, as Obsidian
  does, and a line added): paired by similarity; every note should pair;
* **C, unrelated**: every note deleted and as many unrelated notes (another make_brain seed)
  created: the scorer's worst case, where no candidate reaches ``SURE`` and every shortlisted
  pair is compared; no note should pair (``--confirm-delete``: the notes go to the trash).

Printed per round: wall and CPU seconds of the whole sync round (this process: sync runs no pool),
the CPU of the pairing step alone (``SyncEngine._similar``: reading the texts, the shortlist,
the scoring), the pairs scored and the moves found, beside the targets.

    python benchmarks/move_pairing.py [--pages 2000]
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gbrain.core.brain import Brain  # noqa: E402
from gbrain.sync import engine as engmod  # noqa: E402
from gbrain.sync.engine import SyncEngine  # noqa: E402
from gbrain.sync.importer import import_tree  # noqa: E402

#: ../shared beside the repository (a worktree under wt/ finds it one level up)
MAKE_BRAIN = next((d / "shared" / "tools" / "make_brain.py" for d in (ROOT.parent, ROOT.parent.parent) if (d / "shared" / "tools" / "make_brain.py").exists()),
                  ROOT.parent / "shared" / "tools" / "make_brain.py")


def notes(tree: Path) -> list[Path]:
    """The notes in folders (the root's index.md, log.md, schema.md are special files, not pages
    a person moves)."""
    return sorted(p for p in tree.rglob("*.md") if ".raw" not in p.parts and p.parent != tree)


class Timed:
    """Wraps ``SyncEngine._similar``: CPU seconds spent in it and pairs scored, per round."""

    def __init__(self):
        self.cpu = 0.0
        self.pairs = 0
        self.orig = SyncEngine._similar
        me = self

        def wrapped(eng, states, disk):
            t = time.process_time()
            out = me.orig(eng, states, disk)
            me.cpu += time.process_time() - t
            me.pairs += len(out)
            return out

        SyncEngine._similar = wrapped

    def reset(self):
        self.cpu, self.pairs = 0.0, 0


def round_(eng: SyncEngine, timed: Timed) -> tuple[float, float, dict]:
    timed.reset()
    w, c = time.perf_counter(), time.process_time()
    rep = eng.sync()
    # pages moved (the report also lists the .raw sidecars that moved with them)
    rep["counts"]["moved"] = sum(1 for m in rep["moved"] if "/.raw/" not in "/" + m["to"])
    return time.perf_counter() - w, time.process_time() - c, rep


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", type=int, default=2000)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="gbrain-moves-bench-") as tmp:
        tmp_p = Path(tmp)
        tree, other, db = tmp_p / "tree", tmp_p / "other", tmp_p / "brain.db"
        subprocess.run([sys.executable, str(MAKE_BRAIN), str(tree), "--pages", str(a.pages)], check=True, capture_output=True)
        subprocess.run([sys.executable, str(MAKE_BRAIN), str(other), "--pages", str(a.pages), "--seed", "7"], check=True, capture_output=True)
        md = notes(tree)
        print(f"tree: make_brain --pages {a.pages:,}: {len(md):,} notes; load average {os.getloadavg()[0]:.1f} at the start")
        timed = Timed()
        with Brain.open(db) as brain:
            import_tree(brain, tree)
            eng = SyncEngine(brain, tree)
            eng.bind()
            assert eng.sync()["ok"]
            rows = []
            # A: every note moved into moved/, bytes unchanged
            for p in md:
                dst = tree / "moved" / p.relative_to(tree)
                dst.parent.mkdir(parents=True, exist_ok=True)
                os.rename(p, dst)
            wa, ca, rep = round_(eng, timed)
            assert rep["ok"], rep["problems"]
            rows.append(("A plain move", wa, ca, timed.cpu, timed.pairs, rep["counts"]["moved"], rep["counts"]["trashed"]))
            # B: moved back, each edited: a relative link rewritten and a line added
            for p in md:
                src = tree / "moved" / p.relative_to(tree)
                text = src.read_text(encoding="utf-8")
                os.unlink(src)
                p.write_text(text.replace("](../", "](../../", 1).replace("\n", "\n\nMoved back (benchmark).\n", 1), encoding="utf-8")
            wb, cb, rep = round_(eng, timed)
            assert rep["ok"], rep["problems"]
            rows.append(("B move + edit", wb, cb, timed.cpu, timed.pairs, rep["counts"]["moved"], rep["counts"]["trashed"]))
            # C: every note deleted, as many unrelated notes created
            for p in md:
                os.unlink(p)
            for p in notes(other):
                dst = tree / "new" / p.relative_to(other)  # (no name in common with a gone note's path)
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(p, dst)
            eng.confirm_delete = True
            wc, cc, rep = round_(eng, timed)
            assert rep["ok"], rep["problems"]
            rows.append(("C unrelated", wc, cc, timed.cpu, timed.pairs, rep["counts"]["moved"], rep["counts"]["trashed"]))
            eng.close()
        print(f"\n{'round':16} {'wall s':>8} {'CPU s':>8} {'pairing CPU s':>14} {'pairs scored':>13} {'moved':>7} {'trashed':>8}")
        for name, w, c, pc, ps, mv, tr in rows:
            print(f"{name:16} {w:8.2f} {c:8.2f} {pc:14.2f} {ps:13,} {mv:7,} {tr:8,}")
        n = len(md)
        print(f"\nB: moved pages {rows[1][5]:,} of {n:,} notes (target: all); round CPU {cb / ca:.2f}x the plain move's (baseline A)")
        print(f"B: pairing {rows[1][3] / max(1, n) * 1000:.2f} ms CPU per moved+edited note (target ≤ 5 ms)")
        print(f"C: false moves {rows[2][5]:,} (target 0); pairing {rows[2][3]:.2f} CPU s for {n:,} × {n:,} notes, "
              f"{rows[2][3] / max(1e-9, cc) * 100:.0f}% of the round (target ≤ 50%)")
        print(f"load average {os.getloadavg()[0]:.1f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
