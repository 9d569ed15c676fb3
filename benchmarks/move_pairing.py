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

Then two rounds of notes created *after* the deletion was carried out (the pages in the trash,
``SyncEngine.recent_trash``; the engine's clock is held still, so the rounds stay within
``RECENT_TRASH_S`` whatever the machine's load):

* **D, late unrelated**: as many notes of a third seed created: the scorer's worst case against
  the trashed texts (``SyncEngine._trashed_similar``); no note should pair;
* **E, late move + edit**: every trashed note written again at a new path, edited (a line
  added): each should come back from the trash as its page (``revived_moves``).

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
    """Wraps ``SyncEngine._similar`` and ``_trashed_similar``: CPU seconds spent in them and
    pairs scored, per round."""

    def __init__(self):
        self.cpu = 0.0
        self.pairs = 0
        me = self

        def wrap(orig):
            def wrapped(eng, *args):
                t = time.process_time()
                out = orig(eng, *args)
                me.cpu += time.process_time() - t
                me.pairs += len(out)
                return out
            return wrapped

        SyncEngine._similar = wrap(SyncEngine._similar)
        SyncEngine._trashed_similar = wrap(SyncEngine._trashed_similar)

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
        tree, other, third, db = tmp_p / "tree", tmp_p / "other", tmp_p / "third", tmp_p / "brain.db"
        subprocess.run([sys.executable, str(MAKE_BRAIN), str(tree), "--pages", str(a.pages)], check=True, capture_output=True)
        subprocess.run([sys.executable, str(MAKE_BRAIN), str(other), "--pages", str(a.pages), "--seed", "7"], check=True, capture_output=True)
        subprocess.run([sys.executable, str(MAKE_BRAIN), str(third), "--pages", str(a.pages), "--seed", "11"], check=True, capture_output=True)
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
                p.parent.mkdir(parents=True, exist_ok=True)  # (an emptied folder may be gone)
                p.write_text(text.replace("](../", "](../../", 1).replace("\n", "\n\nMoved back (benchmark).\n", 1), encoding="utf-8")
            wb, cb, rep = round_(eng, timed)
            assert rep["ok"], rep["problems"]
            rows.append(("B move + edit", wb, cb, timed.cpu, timed.pairs, rep["counts"]["moved"], rep["counts"]["trashed"]))
            # C: every note deleted, as many unrelated notes created
            late = {p: p.read_text(encoding="utf-8") for p in md}
            for p in md:
                os.unlink(p)
            eng.clock = lambda: 1000.0  # D and E stay within RECENT_TRASH_S of C's deletions
            for p in notes(other):
                dst = tree / "new" / p.relative_to(other)  # (no name in common with a gone note's path)
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(p, dst)
            eng.confirm_delete = True
            wc, cc, rep = round_(eng, timed)
            assert rep["ok"], rep["problems"]
            rows.append(("C unrelated", wc, cc, timed.cpu, timed.pairs, rep["counts"]["moved"], rep["counts"]["trashed"]))
            assert len(eng.recent_trash) == len(md)
            # D: later, as many unrelated notes of a third seed created
            for p in notes(third):
                dst = tree / "third" / p.relative_to(third)
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(p, dst)
            wd, cd, rep = round_(eng, timed)
            assert rep["ok"], rep["problems"]
            rows.append(("D late unrelated", wd, cd, timed.cpu, timed.pairs, rep["counts"]["moved"], rep["counts"]["trashed"]))
            # E: every trashed note written again at a new path, edited
            for p, text in late.items():
                dst = tree / "late" / p.relative_to(tree)
                dst.parent.mkdir(parents=True, exist_ok=True)
                dst.write_text(text.replace("\n", "\n\nWritten again (benchmark).\n", 1), encoding="utf-8")
            we, ce, rep = round_(eng, timed)
            assert rep["ok"], rep["problems"]
            rows.append(("E late move+edit", we, ce, timed.cpu, timed.pairs, rep["counts"]["moved"], rep["counts"]["trashed"]))
            left = len(brain.conn.execute("SELECT 1 FROM history d WHERE d.op = 'delete' AND d.version = "
                                          "(SELECT MAX(version) FROM history m WHERE m.kind = d.kind AND m.name = d.name)").fetchall())
            eng.close()
        print(f"\n{'round':16} {'wall s':>8} {'CPU s':>8} {'pairing CPU s':>14} {'pairs scored':>13} {'moved':>7} {'trashed':>8}")
        for name, w, c, pc, ps, mv, tr in rows:
            print(f"{name:16} {w:8.2f} {c:8.2f} {pc:14.2f} {ps:13,} {mv:7,} {tr:8,}")
        n = len(md)
        print(f"\nB: moved pages {rows[1][5]:,} of {n:,} notes (target: all); round CPU {cb / ca:.2f}x the plain move's (baseline A)")
        print(f"B: pairing {rows[1][3] / max(1, n) * 1000:.2f} ms CPU per moved+edited note (target ≤ 5 ms)")
        print(f"C: false moves {rows[2][5]:,} (target 0); pairing {rows[2][3]:.2f} CPU s for {n:,} × {n:,} notes, "
              f"{rows[2][3] / max(1e-9, cc) * 100:.0f}% of the round (target ≤ 50%)")
        print(f"D: false moves {rows[3][5]:,} (target 0); pairing {rows[3][3]:.2f} CPU s against {n:,} trashed notes, "
              f"{rows[3][3] / max(1e-9, cd) * 100:.0f}% of the round (target ≤ 50%)")
        print(f"E: pages back from the trash {rows[4][5]:,} of {n:,} (target all); pairing {rows[4][3] / max(1, n) * 1000:.2f} ms CPU per note; "
              f"deletions left in the trash {left:,}")
        print(f"load average {os.getloadavg()[0]:.1f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
