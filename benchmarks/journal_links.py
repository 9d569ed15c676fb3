#!/usr/bin/env python3
"""CPU of saving and moving a Logseq graph's page that holds many links naming days
(``[[2026-11-20]]``, ``[[Nov 20th, 2026]]``) no page has: each such dangling name is read as a day
and looked up among the graph's journals (``links.journal_keys``: the config's formats, then the
graph's ``pages``/``journals`` pages read once). A generated graph of ``--pages`` pages
(``pages/Topic N.md``, a tenth of them journals ``journals/2026_MM_DD.md``) is imported into a fresh
brain (SQLite, or ``--db postgresql://…``), then a page with ``--links`` dangling day links (half
``yyyy-MM-dd``, half ``MMM do, yyyy``, days no journal has) is saved, edited, moved and moved back;
printed: the CPU (``time.process_time``) of each step and how many times the journal pages were
read (``JournalIndex``'s load).

    python benchmarks/journal_links.py [--pages 2000] [--links 200] [--work /tmp/journal_links]
"""
from __future__ import annotations

import argparse
import datetime as dt
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gbrain.core.brain import Brain  # noqa: E402
from gbrain.page import links  # noqa: E402
from gbrain.page.journals import format_day  # noqa: E402
from gbrain.sync.importer import import_tree  # noqa: E402

CONFIG = (Path(__file__).resolve().parents[1] / "tests" / "data" / "logseq" / "config.edn").read_text(encoding="utf-8")


def make_graph(root: Path, pages: int) -> None:
    """``pages`` pages under ``root``: a tenth journals of 2026, the rest ``pages/Topic N.md``."""
    (root / "logseq").mkdir(parents=True)
    (root / "logseq" / "config.edn").write_text(CONFIG, encoding="utf-8")
    (root / "pages").mkdir()
    (root / "journals").mkdir()
    start = dt.date(2026, 1, 1)
    for i in range(pages):
        if i % 10 == 0:
            day = start + dt.timedelta(days=i // 10)
            (root / "journals" / f"{day:%Y_%m_%d}.md").write_text(f"- day {i} [[Topic {i + 1}]]\n", encoding="utf-8")
        else:
            (root / "pages" / f"Topic {i}.md").write_text(f"- topic {i}\n- see [[Topic {i - 1}]]\n", encoding="utf-8")


def day_links(n: int) -> str:
    """A page body with ``n`` links naming days of 2030 (no journal has them)."""
    out = []
    for i in range(n):
        day = dt.date(2030, 1, 1) + dt.timedelta(days=i)
        out.append(f"- [[{day:%Y-%m-%d}]]" if i % 2 else f"- [[{format_day(day, 'MMM do, yyyy')}]]")
    return "\n".join(out) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", type=int, default=2000)
    ap.add_argument("--links", type=int, default=200)
    ap.add_argument("--work", default="/tmp/journal_links")
    ap.add_argument("--db", default=None, help="a postgresql:// URL (default: a SQLite file in --work)")
    a = ap.parse_args()
    work = Path(a.work)
    shutil.rmtree(work, ignore_errors=True)
    make_graph(work / "graph", a.pages)
    loads = [0]
    orig = links.JournalIndex.__init__

    def counting(self, days, formats=(), load=None):
        def counted():
            loads[0] += 1
            return load()
        orig(self, days, formats, counted if load else None)

    links.JournalIndex.__init__ = counting
    with Brain.open(a.db or str(work / "brain.db"), create=True) as b:
        t = time.process_time()
        import_tree(b, work / "graph")
        print(f"import {a.pages} pages: {time.process_time() - t:.2f} CPU-s, journal reads {loads[0]}")
        body = day_links(a.links)
        steps = [("save", lambda: b.save_page("pages/Plan.md", body)),
                 ("edit", lambda: b.save_page("pages/Plan.md", body + "- more\n")),
                 ("move", lambda: b.move_page("pages/Plan", "pages/Plan2")),
                 ("move back", lambda: b.move_page("pages/Plan2", "pages/Plan"))]
        for name, step in steps:
            loads[0] = 0
            t = time.process_time()
            step()
            print(f"{name} of a page of {a.links} dangling day links: {time.process_time() - t:.3f} CPU-s, journal reads {loads[0]}")


if __name__ == "__main__":
    main()
