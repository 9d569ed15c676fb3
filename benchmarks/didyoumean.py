"""Typo tolerance (gbrain/search/spell.py): hit rate and cost of "did you mean".

    python /work/shared/tools/make_brain.py /tmp/mb --pages 5000
    gbrain --db /tmp/mb.db import /tmp/mb;  gbrain --db /tmp/hub.db import ../shared/corpora/obsidian-hub
    python benchmarks/didyoumean.py --mb /tmp/mb.db --hub /tmp/hub.db [--rounds 3]
    (a postgresql://… URL for either: the same on Postgres, plus its vocabulary's build time and size)

Prints, per brain: the misspellings of ``didyoumean_set.py`` (written from reading pages before
any search) whose first suggestion is the word meant; ``suggest`` wall and CPU p50 over them (the
cost a query with a missing word adds); the cost ``suggest`` adds to a query whose words all
exist (one existence look-up per word: what every ``search`` pays), over the brain's titles; on
Postgres, ``search_vocab``'s rebuild time and size."""
from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from didyoumean_set import CASES, HELD_OUT  # noqa: E402

from gbrain.search import spell  # noqa: E402
from gbrain.storage import db  # noqa: E402


def _timed(f, *a):
    t, c = time.perf_counter(), time.process_time()
    r = f(*a)
    return r, time.perf_counter() - t, time.process_time() - c


def run(name: str, target: str, corpus: str, rounds: int, held_out: bool = False) -> None:
    conn = db.connect(target)
    pg = getattr(conn, "dialect", "sqlite") == "postgres"
    if pg:
        conn.execute("DELETE FROM search_vocab_state")
        _, w, _ = _timed(lambda: conn.execute("SELECT gb_vocab_rebuild(?)", [spell.PG_VOCAB_LOCK]))
        n, size = conn.execute("SELECT count(*), pg_total_relation_size('search_vocab') FROM search_vocab").fetchone()
        print(f"{name}: search_vocab rebuilt in {w * 1000:.0f} ms wall: {n:,} terms, {size / 1e6:.2f} MB with its index")
    else:
        print(f"{name}: SQLite reads FTS5's fts5vocab (nothing stored; the file {os.path.getsize(target) / 1e6:.1f} MB as before)")
    spell.suggest(conn, "zzqxvw warmup")
    cases = [c for c in (HELD_OUT if held_out else CASES) if c[2] == corpus]
    hits, walls, cpus = 0, [], []
    for r in range(rounds):
        for q, meant, _ in cases:
            s, w, c = _timed(spell.suggest, conn, q)
            walls.append(w)
            cpus.append(c)
            if r == 0:
                ok = bool(s) and any(x == meant for _, x in s.words)
                hits += ok
                if not ok:
                    print(f"  miss: {q!r} meant {meant!r}, got {s.words if s else None}")
    print(f"  top suggestion = the word meant: {hits}/{len(cases)}; suggest p50 {statistics.median(walls) * 1000:.1f} ms wall, "
          f"{statistics.median(cpus) * 1000:.1f} ms CPU (p90 {sorted(walls)[int(0.9 * len(walls))] * 1000:.1f} ms wall)")
    titles = [t for (t,) in conn.execute("SELECT title FROM pages ORDER BY id").fetchall() if t]
    random.Random(7).shuffle(titles)
    held = []
    for t in titles[:60]:
        s, w, c = _timed(spell.suggest, conn, t)
        held.append(c)
    print(f"  a query of titles (every word held): suggest adds p50 {statistics.median(held) * 1000:.2f} ms CPU")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--mb", help="a make_brain brain (5,000 pages): SQLite file or Postgres URL")
    ap.add_argument("--hub", help="obsidian-hub imported: SQLite file or Postgres URL")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--held-out", action="store_true", help="the second set (HELD_OUT), written after the first had tuned spell.py")
    a = ap.parse_args()
    print(f"loadavg {' '.join('%.1f' % x for x in os.getloadavg())}")
    for name, target, corpus in (("make_brain", a.mb, "mb"), ("obsidian-hub", a.hub, "hub")):
        if target:
            run(name, target, corpus, a.rounds, a.held_out)


if __name__ == "__main__":
    main()
