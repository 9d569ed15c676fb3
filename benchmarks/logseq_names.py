#!/usr/bin/env python3
"""CPU of migration v71 (SQLite; Postgres v76 runs the same Python step): a Logseq graph's pages whose
file name Logseq decodes (``Project___Alpha.md`` → ``Project/Alpha``) derived again
(``db.rederive_logseq_names``). Each tree is imported once into ``--work``, the brain marked as made
before v71 (``PRAGMA user_version = 70``), and opened again in a subprocess: the open's CPU
(``time.process_time``) beside a second open of the same brain (nothing to migrate), and how many
pages the step parsed. Trees: the corpora as they are (no Logseq graph: the step's one query),
obsidian-hub's notes as a legacy Logseq graph's pages (``pages/…``, ``logseq/config.edn`` without
``:file/name-format``: every name holding ``.`` or ``%`` is parsed again), and a generated graph of
``--pages`` pages, a quarter of them namespaced (``A___B.md``, triple-lowbar), a third opening with an
H1, whose journals link them.

``--version 73`` measures v73 instead (Postgres v78, ``db.rederive_logseq_file_names``: a graph's
``pages/`` page whose title is not its file's Logseq name, as an opening H1 titled it, derived again;
journal links resolved again where the EDN reading of a config's journal formats differs): each tree
imported under ``property_syntax logseq`` (the H1 titles and file names as written the older page
model gave), the setting then dropped and the brain marked as made before v73.

``--version 74`` measures v74 (Postgres v79, ``db.rederive_logseq_contents``: a graph's
``pages/contents.md`` titled ``Contents``, its journals in the config's title format): the
generated graph gets a ``pages/contents.md`` and ``:journal/page-title-format "yyyy-MM-dd"``, each
tree is imported as it is and those pages' stored titles set back to the older page model's
(``contents``, ``Jan 1st, 2025``) before the brain is marked as made before v74.

``--version 75`` measures v75 (Postgres v80, ``db.rederive_logseq_days``: a graph's page whose
name Logseq reads as a day titled as that day, names read as days as leniently as cljs-time): the
generated graph gets ``pages/2025-3-5.md``-style pages (one in 20) and journals named
``2026-1-5.md`` (one in 4), linked by lenient spellings; each tree is imported as it is and those
pages' stored titles set back to their file names, the links to them dangling, as the older page
model left them, before the brain is marked as made before v75.

``--version 76`` measures v76 (Postgres v83, ``db.rederive_logseq_settings``: a graph's legacy
``:date-formatter`` its title format where ``:journal/page-title-format`` is unset): the generated
graph's config gets ``:date-formatter "yyyy-MM-dd"`` and every twentieth page is named as a day;
each tree is imported (no parse pool) by a gbrain that reads ``:date-formatter`` as unset, as
before v76, and the brain marked as made before v76. The corpora and the hub graph hold no
``:date-formatter``: the step's one query of the configs. ``--dirs``: the generated graph keeps its
pages in ``notes/`` and journals in ``daily/`` and its config says so (``:pages-directory``,
``:journals-directory``, unread before v76 too): every page of those folders parsed again, then
every link resolved again.

``--version 78`` measures v78 (Postgres v86, ``db.rederive_logseq_old_folders``: a graph whose
config names other folders still reads its default ``pages/``/``journals/`` as its own): the
generated graph as ``--dirs`` makes it, but half its pages left in ``pages/`` and half its journals
in ``journals/`` (written before the config named ``notes/``/``daily/``), imported by a gbrain that
reads those two folders as a vault's, as before v78 (``IMPORT_PRE_V78``); the corpora and the hub
graph name no other folder: the step's one query of the configs.

    python benchmarks/logseq_names.py [--pages 4000] [--work /tmp/logseq_names] [--version 71|73|74|75|76|78 [--dirs]]
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPORA = Path("/work/shared/corpora")

CHILD = r"""
import json, sys, time
from gbrain.core.brain import Brain
from gbrain.storage import db as dbmod
path = sys.argv[1]
calls = []
real = dbmod.rederive_page_ids
def counting(conn, ids, **kw):
    calls.append(len(ids))
    return real(conn, ids, **kw)
dbmod.rederive_page_ids = counting
t = time.process_time()
Brain.open(path).close()
first = time.process_time() - t
t = time.process_time()
Brain.open(path).close()
print(json.dumps({"open_cpu": first, "again_cpu": time.process_time() - t, "parsed": sum(calls)}))
"""


#: v76: an import as gbrain made it before v76 (``:date-formatter`` unread), in one process
IMPORT_PRE_V76 = r"""
import os, sys
os.environ["GBRAIN_PARSE_WORKERS"] = "1"
from pathlib import Path
from gbrain.page import journals
read = journals.settings
journals.settings = lambda text: read(text.replace(":date-formatter", ":unread-date-formatter").replace("-directory", "-directory-unread"))
from gbrain.core.brain import Brain
from gbrain.sync.importer import import_tree
with Brain.open(sys.argv[1], create=True) as b:
    import_tree(b, Path(sys.argv[2]))
"""


#: v78: an import as gbrain made it before v78 (a graph naming other folders: its default ones a vault's)
IMPORT_PRE_V78 = r"""
import os, sys
os.environ["GBRAIN_PARSE_WORKERS"] = "1"
from pathlib import Path
from gbrain.page import markdown
from gbrain.page.journals import split_dirs
from gbrain.sync import importer
new = markdown.page_property_syntax
def old(path, setting, graphs):
    for root, value in (graphs.items() if isinstance(graphs, dict) else ()):
        rest = path[len(root) + 1:] if root else path
        if (root and not path.startswith(root + "/")) or "/" not in rest:
            continue
        dirs, first = split_dirs(value), rest.split("/")[0]
        if dirs != ("pages", "journals") and first in ("pages", "journals") and first not in dirs:
            return "dataview" if setting == "auto" else setting
    return new(path, setting, graphs)
markdown.page_property_syntax = importer.page_property_syntax = old
from gbrain.core.brain import Brain
from gbrain.sync.importer import import_tree
with Brain.open(sys.argv[1], create=True) as b:
    import_tree(b, Path(sys.argv[2]))
"""


def graph(out: Path, n: int, contents: bool = False, days: bool = False, legacy: bool = False, dirs: bool = False,
          old: bool = False) -> Path:
    """A Logseq graph of ``n`` pages: every fourth ``Area___Topic N.md``; journals link them;
    ``contents``: and Logseq's ``pages/contents.md`` linking a few; ``days``: every twentieth page
    named as a day (``2025-3-5``), every fourth journal named ``2026-1-5.md``, linked by lenient
    spellings (``[[2025-03-5]]``, ``[[Jan 5th, 2026]]``); ``legacy``: ``:date-formatter "yyyy-MM-dd"``
    in its config; ``dirs``: its pages in ``notes/``, its journals in ``daily/``, as its config's
    ``:pages-directory``/``:journals-directory`` say; ``old``: and half its pages and journals
    left in Logseq's default ``pages/``/``journals/``."""
    (out / "logseq").mkdir(parents=True, exist_ok=True)
    (out / "logseq" / "config.edn").write_text("{:meta/version 1\n :file/name-format :triple-lowbar}\n")
    (out / "pages").mkdir(exist_ok=True)
    (out / "journals").mkdir(exist_ok=True)
    names = []
    for i in range(n):
        name = f"Area {i % 17}___Topic {i}" if i % 4 == 0 else f"Note {i}"
        if days and i % 20 == 10:
            name = f"2025-{1 + i // 20 % 12}-{1 + i // 240 % 28}"
        names.append(name.replace("___", "/"))
        head = f"# Heading {i}\n\n" if i % 3 == 0 else f"tags:: t{i % 9}\n\n"
        (out / "pages" / f"{name}.md").write_text(f"{head}- about [[Note {(i * 7) % n}]] #t{i % 5}\n  - more text {i}\n")
    for d in range(max(1, n // 10)):
        jname = f"2026-{1 + d // 28 % 12}-{1 + d % 28}" if days and d % 4 == 0 else f"2025_{1 + d // 28 % 12:02d}_{1 + d % 28:02d}"
        extra = f"- and [[2025-{1 + d % 12:02d}-{1 + d % 28}]] [[Jan {1 + d % 28}th, 2026]]\n" if days else ""
        (out / "journals" / f"{jname}.md").write_text(
            "".join(f"- met about [[{names[(d * 13 + k) % n]}]]\n" for k in range(5)) + extra)
    if contents:  # and a title format of its own: its journals titled 2025-01-01
        (out / "logseq" / "config.edn").write_text('{:meta/version 1\n :file/name-format :triple-lowbar\n :journal/page-title-format "yyyy-MM-dd"}\n')
        (out / "pages" / "contents.md").write_text("".join(f"- [[{names[k]}]]\n" for k in range(min(n, 10))))
    if legacy:
        (out / "logseq" / "config.edn").write_text('{:meta/version 1\n :file/name-format :triple-lowbar\n :date-formatter "yyyy-MM-dd"}\n')
    if dirs:
        (out / "pages").rename(out / "notes")
        (out / "journals").rename(out / "daily")
        text = (out / "logseq" / "config.edn").read_text()
        (out / "logseq" / "config.edn").write_text(text.replace("{:meta/version 1", '{:meta/version 1 :pages-directory "notes" :journals-directory "daily"'))
    if old:
        for new_dir, old_dir in (("notes", "pages"), ("daily", "journals")):
            (out / old_dir).mkdir(exist_ok=True)
            for k, f in enumerate(sorted((out / new_dir).iterdir())):
                if k % 2 == 0:
                    f.rename(out / old_dir / f.name)
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", type=int, default=4000)
    ap.add_argument("--work", default="/tmp/logseq_names")
    ap.add_argument("--version", type=int, choices=(71, 73, 74, 75, 76, 78), default=71)
    ap.add_argument("--dirs", action="store_true", help="v76: the generated graph's folders named by its config (notes/, daily/)")
    a = ap.parse_args()
    work = Path(a.work) / (f"v{a.version}" + ("-dirs" if a.dirs else ""))
    work.mkdir(parents=True, exist_ok=True)
    trees = {c.name: c for c in sorted(CORPORA.iterdir()) if c.is_dir() and c.name != "ir"}
    hub = work / "hub-graph"
    if not hub.exists():
        shutil.copytree(CORPORA / "obsidian-hub", hub / "pages")
        (hub / "logseq").mkdir()
        (hub / "logseq" / "config.edn").write_text("{:meta/version 1}\n")
    trees["obsidian-hub as a legacy graph"] = hub
    gen = work / f"graph-{a.pages}"
    if not gen.exists():
        graph(gen, a.pages, contents=a.version == 74, days=a.version in (75, 76), legacy=a.version == 76, dirs=a.dirs or a.version == 78,
              old=a.version == 78)
    trees[f"generated graph, {a.pages} pages"] = gen
    print(f"{'tree':38} {'pages':>6} {'parsed':>6} {f'v{a.version} open CPU s':>15} {'open again':>11} {'step':>7}")
    for name, tree in trees.items():
        db = work / (name.replace(" ", "_").replace(",", "") + ".db")
        if not db.exists():
            if a.version == 73:  # the older page model's titles: H1s, file names as written
                for cmd in (["init"], ["config", "set", "property_syntax", "logseq"]):
                    subprocess.run([sys.executable, "-m", "gbrain", "--db", str(db), *cmd], cwd=ROOT, check=True, capture_output=True)
            if a.version in (76, 78):
                subprocess.run([sys.executable, "-c", IMPORT_PRE_V76 if a.version == 76 else IMPORT_PRE_V78, str(db), str(tree)], cwd=ROOT,
                               check=True, capture_output=True)
            else:
                subprocess.run([sys.executable, "-m", "gbrain", "--db", str(db), "import", str(tree)], cwd=ROOT, check=True,
                               capture_output=True)
        import sqlite3
        c = sqlite3.connect(db)
        pages = c.execute("SELECT count(*) FROM pages").fetchone()[0]
        c.execute("DELETE FROM config WHERE key = 'property_syntax'")
        if a.version == 74:  # the older page model's title of a graph's contents page
            c.execute("UPDATE pages SET title = 'contents' WHERE path LIKE '%pages/contents.md'")
            from gbrain.page.journals import journal_title  # and journals in Logseq's default title format
            for pid, slug in c.execute("SELECT id, slug FROM pages WHERE slug LIKE 'journals/%'").fetchall():
                if journal_title(slug[9:]):
                    c.execute("UPDATE pages SET title = ? WHERE id = ?", (journal_title(slug[9:]), pid))
        if a.version == 75:  # the older page model: a page named as a day titled by its file name, its links dangling
            from gbrain.page.journals import logseq_day
            from gbrain.page.slugs import title_key
            for pid, path, slug in c.execute("SELECT id, path, slug FROM pages WHERE path LIKE '%pages/%' OR path LIKE '%journals/%'").fetchall():
                file_name = slug.rpartition("/")[2]
                if logseq_day(file_name) and not file_name.startswith("2025_"):
                    c.execute("UPDATE pages SET title = ?, title_key = ? WHERE id = ?", (file_name, title_key(file_name), pid))
                    c.execute("UPDATE links SET to_page_id = NULL WHERE to_page_id = ?", (pid,))
        c.execute(f"PRAGMA user_version = {a.version - 1}")
        c.commit()
        c.close()
        r = json.loads(subprocess.run([sys.executable, "-c", CHILD, str(db)], cwd=ROOT, check=True, capture_output=True, text=True).stdout)
        print(f"{name:38} {pages:>6} {r['parsed']:>6} {r['open_cpu']:>15.3f} {r['again_cpu']:>11.3f} {r['open_cpu'] - r['again_cpu']:>7.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
