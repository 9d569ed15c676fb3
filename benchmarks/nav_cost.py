"""CPU of reading nav files at query time (docs/storage.md "Navigation files"): a make_brain brain
of --pages pages plus --tocs DocFX ``TOC.yml`` files (``toc/NNN/TOC.yml``, each listing its share of
the pages, ~17 for 5,000 / 300, in nested sections, by ``../../folder/page.md``; every TOC also lists
``people/`` page 0, a page all of them name). Imports it, then prints CPU-ms (``time.process_time``,
in process) of:

* ``backlinks`` of a page one TOC lists, of a page no TOC lists, of the page every TOC lists: cold
  (``_NAV_PARSED`` empty: a CLI command's process) and warm (a ``serve``/``watch`` process);
* lint's ``orphans`` check and ``dead_nav_entries``, cold and warm, and the default ``lint``;
* ``graph`` depth 1 and 2 of the page one TOC lists, cold and warm.

    PYTHONPATH=. python benchmarks/nav_cost.py [--pages 5000] [--tocs 300] [--keep DIR]
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
MAKE_BRAIN = next((p for p in (ROOT.parent / "shared", ROOT.parent.parent / "shared") if (p / "tools" / "make_brain.py").exists()), ROOT.parent / "shared") / "tools" / "make_brain.py"

from gbrain import operations as ops  # noqa: E402
from gbrain.core import brain as brainmod  # noqa: E402
from gbrain.core import lint as lintmod  # noqa: E402
from gbrain.core.brain import Brain  # noqa: E402
from gbrain.page import navfile  # noqa: E402
from gbrain.sync.importer import import_tree  # noqa: E402


def write_tocs(tree: Path, n: int) -> tuple[str, str, str]:
    """``n`` TOCs over the tree's pages; returns (a page one TOC lists, one none lists, one all list)."""
    pages = sorted(p.relative_to(tree).as_posix() for p in tree.rglob("*.md") if "/" in p.relative_to(tree).as_posix())
    listed = pages[: len(pages) - 50]  # the last 50 pages: no TOC lists them
    everyone = next(p for p in pages if p.startswith("people/"))
    per = max(1, len(listed) // n)
    for i in range(n):
        part = listed[i * per : (i + 1) * per] if i < n - 1 else listed[i * per :]
        lines = [f"- name: Section {i}", "  href: ../../" + everyone, "  items:"]
        for j in range(0, len(part), 5):
            lines += [f"  - name: Group {j // 5}", "    items:"]
            lines += [f"    - name: {Path(p).stem}\n      href: ../../{p}" for p in part[j : j + 5]]
        d = tree / "toc" / f"{i:03d}"
        d.mkdir(parents=True, exist_ok=True)
        (d / "TOC.yml").write_text("\n".join(lines) + "\n")
    one = listed[per + 1]
    return one[:-3], pages[-1][:-3], everyone[:-3]


def cpu(fn, cold: bool) -> float:
    if cold:
        brainmod._NAV_PARSED.clear()
        brainmod._CANVAS_PARSED.clear()
        getattr(navfile, "_PARSED", {}).clear()
    t = time.process_time()
    fn()
    return (time.process_time() - t) * 1000


def both(name: str, fn) -> None:
    c = cpu(fn, True)
    w = min(cpu(fn, False) for _ in range(3))
    print(f"{name:<44} cold {c:8.1f} ms   warm {w:8.1f} ms")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", type=int, default=5000)
    ap.add_argument("--tocs", type=int, default=300)
    ap.add_argument("--keep", help="build in this folder and keep it")
    a = ap.parse_args()
    work = Path(a.keep) if a.keep else Path(tempfile.mkdtemp(prefix="gbrain-nav-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        tree, db = work / "tree", work / "brain.db"
        if tree.exists():
            shutil.rmtree(tree)
        db.unlink(missing_ok=True)
        subprocess.run([sys.executable, str(MAKE_BRAIN), str(tree), "--pages", str(a.pages), "--seed", "1"], check=True, capture_output=True)
        one, none, every = write_tocs(tree, a.tocs)
        with Brain.open(db, create=True) as b:
            import_tree(b, tree)
        with Brain.open(db) as b:
            navs = b.nav_files()
            size = sum(b.conn.execute("SELECT size FROM files WHERE path = ?", (p,)).fetchone()[0] for p in navs)
            print(f"{b.conn.execute('SELECT COUNT(*) FROM pages').fetchone()[0]:,} pages, {len(navs)} nav files, {size:,} bytes of nav")
            both(f"backlinks {one} (1 TOC)", lambda: b.backlinks(one))
            both(f"backlinks {none} (no TOC)", lambda: b.backlinks(none))
            both(f"backlinks {every} (all TOCs)", lambda: b.backlinks(every))
            both("lint orphans", lambda: lintmod._orphans(b))
            if hasattr(lintmod, "_dead_nav_entries"):
                both("lint dead_nav_entries", lambda: lintmod._dead_nav_entries(b))
            both("lint (default checks)", lambda: lintmod.lint(b))
        ctx = ops.Context(db=str(db))
        both(f"graph {one} depth 1", lambda: ops.run("graph", {"slug": one, "depth": 1}, ctx))
        both(f"graph {one} depth 2", lambda: ops.run("graph", {"slug": one, "depth": 2}, ctx))
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
