"""Known-item search on a real vault: does `search` / `query` put the page a person means first?

    python benchmarks/known_items.py [--corpus ../shared/corpora/obsidian-help] [--model minilm] [--db postgresql://…/EMPTY] [--baseline OTHER/gbrain/search/keyword.py]
                                     [--keep brain.db --reuse] [--no-query] [--all-languages] [--coord-off]
                                     [--sides] [--vector-cache DIR]

Imports the English Obsidian Help vault (``en/``, with ``Release notes/`` and ``Sandbox/`` as
competitors: 364 long release notes mention most features in passing) into a temporary brain,
then runs the :data:`QUERIES` below through ``search`` (``gbrain search``) and ``query``
(``gbrain query``, hybrid, after embedding every page with ``--model``; default the offline
default). ``--all-languages`` imports the whole corpus folder (eight translated vaults).

The queries were written from reading the pages (titles, aliases, descriptions, headings) before
any search was run; none was changed after seeing a ranking. Kinds: ``keyword`` (a few words a
person types), ``alias`` (a frontmatter alias), ``question`` (a natural question), ``name`` (a
person or product named in a page), ``concept`` (a notion that index pages such as ``Core
plugins``, ``Glossary`` or ``Home`` also mention). A query may have several gold pages; the
rank of a query is the rank of its best gold page.

Metrics per method: hit@1, MRR@10 (reciprocal rank, 0 beyond 10), hit@5, beside the targets
(issue 13: hit@1 ≥ 0.80, MRR@10 ≥ 0.85, hit@5 ≥ 0.95). Every query whose gold page is not first
is printed with its rank (``>100`` when not in the first 100).

``--sides`` ranks ``query`` with both keyword sides in the same run, question by question in
turn (the order alternating): the shipped ``hybrid.KEYWORD_COORDINATE`` and the other (plain
BM25, or ``search``'s ranking with its coordination factor and phrase evidence), and prints each
side's figures and wall/CPU p50 per question. ``--vector-cache DIR`` takes the pages' vectors
from ``scifact.py``'s cache of texts (one folder per model), embedding only the texts it lacks.
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: ../shared of the repository (a git worktree may sit one level deeper)
SHARED = next((d / "shared" for d in ROOT.parents if (d / "shared" / "corpora").is_dir()), ROOT.parent / "shared")
sys.path.insert(0, str(ROOT))

from gbrain.search import hybrid, keyword as search  # noqa: E402
from gbrain.core.brain import Brain  # noqa: E402
from gbrain.search.embeddings import get_model, offline_model  # noqa: E402
from gbrain.search.vectors import VectorIndex, embed_pages, plan_embed, select_pages  # noqa: E402
from gbrain.sync.importer import import_tree  # noqa: E402

TARGETS = {"hit@1": 0.80, "MRR@10": 0.85, "hit@5": 0.95}
DEPTH = 100

E = "en/"
#: (query, gold paths, kind) — written from the pages, before any search was run
QUERIES: list[tuple[str, list[str], str]] = [
    # short keyword queries
    ("quick switcher", [E + "Plugins/Quick switcher.md"], "keyword"),
    ("graph view", [E + "Plugins/Graph view.md"], "keyword"),
    ("callouts", [E + "Editing and formatting/Callouts.md"], "keyword"),
    ("daily notes", [E + "Plugins/Daily notes.md"], "keyword"),
    ("hotkeys", [E + "User interface/Hotkeys.md"], "keyword"),
    ("canvas", [E + "Plugins/Canvas.md"], "keyword"),
    ("file recovery", [E + "Plugins/File recovery.md"], "keyword"),
    ("css snippets", [E + "Extending Obsidian/CSS snippets.md"], "keyword"),
    ("obsidian uri", [E + "Extending Obsidian/Obsidian URI.md"], "keyword"),
    ("refund policy", [E + "Licenses and payment/Refund policy.md"], "keyword"),
    ("sync regions", [E + "Obsidian Sync/Sync regions.md"], "keyword"),
    ("custom domains", [E + "Obsidian Publish/Custom domains.md"], "keyword"),
    ("word count", [E + "Plugins/Word count.md"], "keyword"),
    ("bookmarks", [E + "Plugins/Bookmarks.md"], "keyword"),
    ("web clipper templates", [E + "Obsidian Web Clipper/Templates.md"], "keyword"),
    ("templates plugin", [E + "Plugins/Templates.md"], "keyword"),
    ("import from notion", [E + "Import notes/Import from Notion.md"], "keyword"),
    ("evernote", [E + "Import notes/Import from Evernote.md"], "keyword"),
    ("catalyst license", [E + "Licenses and payment/Catalyst license.md"], "keyword"),
    ("symlinks", [E + "Files and folders/Symbolic links and junctions.md"], "keyword"),
    ("seo", [E + "Obsidian Publish/SEO.md"], "keyword"),
    ("2-factor authentication", [E + "Obsidian/2-factor authentication.md"], "keyword"),
    ("bases formulas", [E + "Bases/Formulas.md"], "keyword"),
    ("table view", [E + "Bases/Layouts/Table view.md"], "keyword"),
    # frontmatter aliases
    ("keyboard shortcuts", [E + "User interface/Hotkeys.md", E + "Editing and formatting/Editing shortcuts.md"], "alias"),
    ("sync history", [E + "Obsidian Sync/Version history.md"], "alias"),
    ("stacked tabs", [E + "User interface/Tabs.md"], "alias"),
    ("obsidian settings", [E + "User interface/Settings.md"], "alias"),
    ("linked pane", [E + "User interface/Tabs.md"], "alias"),
    ("interface language", [E + "User interface/Language settings.md"], "alias"),
    ("embedding files", [E + "Linking notes and files/Embed files.md"], "alias"),
    ("link to blocks", [E + "Linking notes and files/Internal links.md"], "alias"),
    # natural questions
    ("how do I add an alias to a note?", [E + "Linking notes and files/Aliases.md"], "question"),
    ("how can I get a refund?", [E + "Licenses and payment/Refund policy.md"], "question"),
    ("how do I restore a note from a snapshot?", [E + "Plugins/File recovery.md", E + "Obsidian Sync/Version history.md"], "question"),
    ("what file types does Obsidian support?", [E + "Files and folders/Accepted file formats.md"], "question"),
    ("how do I move my notes from Apple Notes to Obsidian?", [E + "Import notes/Import from Apple Notes.md"], "question"),
    ("how do I change the language of the interface?", [E + "User interface/Language settings.md"], "question"),
    ("is there a discount for students?", [E + "Licenses and payment/Education and non-profit discount.md"], "question"),
    ("where does Obsidian store my settings?", [E + "Files and folders/Configuration folder.md", E + "Files and folders/How Obsidian stores data.md"], "question"),
    ("how do I embed a web page in a note?", [E + "Editing and formatting/Embed web pages.md"], "question"),
    ("how do I create a table?", [E + "Editing and formatting/Advanced formatting syntax.md"], "question"),
    ("how do I write math equations?", [E + "Editing and formatting/Advanced formatting syntax.md"], "question"),
    ("who is on the core team?", [E + "Obsidian/Credits.md"], "question"),
    ("how do I enable two-factor authentication?", [E + "Obsidian/2-factor authentication.md"], "question"),
    ("how long do you keep the version history?", [E + "Obsidian Sync/Version history.md", E + "Obsidian Sync/Frequently asked questions.md"], "question"),
    ("how do I make a presentation from my notes?", [E + "Plugins/Slides.md"], "question"),
    ("how do I merge two notes?", [E + "Plugins/Note composer.md"], "question"),
    ("what is a vault?", [E + "Files and folders/Manage vaults.md", E + "Getting started/Create a vault.md", E + "Files and folders/How Obsidian stores data.md"], "question"),
    # names of people and products
    ("Steph Ango", [E + "Obsidian/Credits.md"], "name"),
    ("Roam Research", [E + "Import notes/Import from Roam Research.md"], "name"),
    ("Zettelkasten", [E + "Import notes/Import Zettelkasten notes.md", E + "Plugins/Unique note creator.md"], "name"),
    ("Google Keep", [E + "Import notes/Import from Google Keep.md"], "name"),
    # concepts that index pages (Core plugins, Glossary, Home, Import notes) also name
    ("backlinks", [E + "Plugins/Backlinks.md"], "concept"),
    ("list of headings in the active note", [E + "Plugins/Outline.md"], "concept"),
    ("tags", [E + "Editing and formatting/Tags.md"], "concept"),
    ("search operators", [E + "Plugins/Search.md"], "concept"),
    ("command palette", [E + "Plugins/Command palette.md"], "concept"),
    ("end-to-end encryption for sync", [E + "Obsidian Sync/Security and privacy.md", E + "Obsidian Sync/Upgrade Sync encryption.md"], "concept"),
    ("mobile toolbar", [E + "Getting started/Mobile app.md"], "concept"),
]


def ranks_for(results: list[str], gold: list[str]) -> int | None:
    """1-based rank of the first gold path in ``results``, None when absent."""
    for i, p in enumerate(results, 1):
        if p in gold:
            return i
    return None


def metrics(ranks: list[int | None]) -> dict[str, float]:
    n = len(ranks)
    return {
        "hit@1": sum(1 for r in ranks if r == 1) / n,
        "MRR@10": sum(1 / r for r in ranks if r and r <= 10) / n,
        "hit@5": sum(1 for r in ranks if r and r <= 5) / n,
    }


def report(name: str, ranks: list[int | None], ms: float) -> dict[str, float]:
    m = metrics(ranks)
    print(f"\n{name}: {len(ranks)} queries, {ms:.1f} ms/query")
    for k, target in TARGETS.items():
        ok = "ok" if m[k] >= target else "BELOW"
        print(f"  {k:<7} {m[k]:.3f}   target ≥ {target:.2f}  {ok}")
    misses = [(q, r, kind) for (q, _, kind), r in zip(QUERIES, ranks) if r != 1]
    by_kind: dict[str, list[int]] = {}
    for (_, _, kind), r in zip(QUERIES, ranks):
        by_kind.setdefault(kind, []).append(1 if r == 1 else 0)
    print("  hit@1 by kind: " + ", ".join(f"{k} {sum(v)}/{len(v)}" for k, v in by_kind.items()))
    for q, r, kind in misses:
        print(f"  miss: rank {r if r else '>' + str(DEPTH):>4}  [{kind}] {q!r}")
    return m


def query_sides(b: Brain, model, path_of: dict[str, str], rounds: int = 3) -> dict[str, dict[str, float]]:
    """``--sides``: :data:`QUERIES` through ``hybrid.query`` with each keyword side
    (``hybrid.KEYWORD_COORDINATE`` False: plain BM25; True: ``search``'s ranking), question by
    question in turn, the side that goes first alternating, ``rounds`` times; prints each side's
    figures and the p50 over questions of each question's median wall and CPU time, and the
    questions whose rank differs. Returns ``{"query, <side>": metrics}``."""
    keep = hybrid.KEYWORD_COORDINATE
    sides = {"plain BM25": False, "search's ranking": True}
    ranks: dict[str, list] = {s: [] for s in sides}
    wall: dict[str, list] = {s: [] for s in sides}
    cpu: dict[str, list] = {s: [] for s in sides}
    try:
        for i, (q, gold, _) in enumerate(QUERIES):
            tw: dict[str, list] = {s: [] for s in sides}
            tc: dict[str, list] = {s: [] for s in sides}
            for r in range(rounds):
                for s in (list(sides) if (i + r) % 2 == 0 else list(sides)[::-1]):
                    hybrid.KEYWORD_COORDINATE = sides[s]
                    t, c = time.perf_counter(), time.process_time()
                    hits = hybrid.query(b, q, limit=DEPTH, model=model)["hits"]
                    tw[s].append(time.perf_counter() - t)
                    tc[s].append(time.process_time() - c)
                    if r == 0:
                        ranks[s].append(ranks_for([path_of[h["slug"]] for h in hits], gold))
            for s in sides:
                wall[s].append(sorted(tw[s])[rounds // 2])
                cpu[s].append(sorted(tc[s])[rounds // 2])
    finally:
        hybrid.KEYWORD_COORDINATE = keep
    out = {}
    print(f"\nquery's keyword side, both in one run ({model.model_id}; {rounds} rounds, question by question, the order alternating):")
    for s in sides:
        m = metrics(ranks[s])
        out[f"query, {s}"] = m
        p50w, p50c = sorted(wall[s])[len(wall[s]) // 2] * 1000, sorted(cpu[s])[len(cpu[s]) // 2] * 1000
        print(f"  {s:<17} " + ", ".join(f"{k} {v:.3f}" for k, v in m.items()) + f"; p50 {p50w:.1f} ms wall, {p50c:.1f} ms CPU per query")
    for (q, _, _), a, c in zip(QUERIES, *ranks.values()):
        if a != c:
            print(f"  rank {a if a else '>' + str(DEPTH)} → {c if c else '>' + str(DEPTH)}  {q!r}")
    return out


def build(corpus: Path, db, reuse: bool, all_languages: bool) -> Brain:
    if not isinstance(db, str) and db.exists() and not reuse:
        db.unlink()
    b = Brain.open(db)
    if all_languages:
        src = corpus
    else:
        src = Path(tempfile.mkdtemp(prefix="gbrain-known-"))
        for part in ("en", "Release notes", "Sandbox"):
            shutil.copytree(corpus / part, src / part)
    t = time.perf_counter()
    import_tree(b, src)
    n = b.conn.execute("SELECT COUNT(*) FROM pages").fetchone()[0]
    print(f"obsidian-help: {n:,} pages imported in {time.perf_counter() - t:.1f} s", flush=True)
    if not all_languages:
        shutil.rmtree(src, ignore_errors=True)
    return b


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", default=str(SHARED / "corpora" / "obsidian-help"))
    ap.add_argument("--model", help="embedding model for `query` (default: the offline default)")
    ap.add_argument("--keep", help="keep the brain (with its embeddings) at this path")
    ap.add_argument("--reuse", action="store_true", help="with --keep: reuse that brain when it exists")
    ap.add_argument("--no-query", action="store_true", help="only `search` (no embedding)")
    ap.add_argument("--coord-off", action="store_true", help="also rank `search` without keyword search's coordination factor (keyword.COORD_POWER = 0), in the same run")
    ap.add_argument("--all-languages", action="store_true", help="import the whole corpus folder")
    ap.add_argument("--sides", action="store_true", help="also rank `query` with the other keyword side (hybrid.KEYWORD_COORDINATE flipped), interleaved, with p50 latency of each")
    ap.add_argument("--vector-cache", metavar="DIR", help="take the pages' vectors from this cache (scifact.py's Cache; one folder per model)")
    ap.add_argument("--db", metavar="URL", help="make the brain in this empty Postgres database (postgresql://…) instead of a temporary SQLite file")
    ap.add_argument("--baseline", metavar="KEYWORD_PY", help="another checkout's gbrain/search/keyword.py: its search ranks the same brain too")
    args = ap.parse_args()
    corpus = Path(args.corpus)
    for _, gold, _ in QUERIES:
        for g in gold:
            if not (corpus / g).is_file():
                sys.exit(f"gold page missing from the corpus: {g}")
    tmp = Path(tempfile.mkdtemp(prefix="gbrain-known-db-"))
    db = args.db or (Path(args.keep) if args.keep else tmp / "brain.db")
    b = build(corpus, db, bool(args.keep and args.reuse), args.all_languages)
    path_of = {r[0]: r[1] for r in b.conn.execute("SELECT slug, path FROM pages")}
    print(f"{len(QUERIES)} queries: " + ", ".join(f"{k} {sum(1 for *_, kk in QUERIES if kk == k)}" for k in dict.fromkeys(k for *_, k in QUERIES)))

    t = time.perf_counter()
    ranks = [ranks_for([path_of[h["slug"]] for h in search.search(b.conn, q, limit=DEPTH)], gold) for q, gold, _ in QUERIES]
    results = {"search": report(f"search (gbrain search, top {DEPTH} with snippets)", ranks, (time.perf_counter() - t) * 1000 / len(QUERIES))}
    t = time.perf_counter()
    for q, _, _ in QUERIES:
        search.search(b.conn, q, limit=20)
    print(f"  search at the CLI's default limit (20): {(time.perf_counter() - t) * 1000 / len(QUERIES):.1f} ms/query")
    if args.baseline:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from postgres import load_baseline

        base = load_baseline(args.baseline)
        t = time.perf_counter()
        ranks = [ranks_for([path_of[h["slug"]] for h in base(b.conn, q, limit=DEPTH)], gold) for q, gold, _ in QUERIES]
        results["search, --baseline"] = report(f"search, --baseline {args.baseline}", ranks, (time.perf_counter() - t) * 1000 / len(QUERIES))
    if args.coord_off:
        shipped_power = search.COORD_POWER
        search.COORD_POWER = 0.0
        try:
            t = time.perf_counter()
            ranks = [ranks_for([path_of[h["slug"]] for h in search.search(b.conn, q, limit=DEPTH)], gold) for q, gold, _ in QUERIES]
            results["search, coordination off"] = report(f"search, coordination off (COORD_POWER 0; shipped {shipped_power:g})", ranks, (time.perf_counter() - t) * 1000 / len(QUERIES))
        finally:
            search.COORD_POWER = shipped_power

    if not args.no_query:
        model = get_model(args.model or offline_model())
        t = time.perf_counter()
        plan, work = plan_embed(b.conn, model, select_pages(b.conn, model.model_id, "stale"))
        if plan.to_embed:
            if args.vector_cache:
                sys.path.insert(0, str(ROOT / "benchmarks"))
                from scifact import Cache, CachedModel

                embed_pages(b.conn, CachedModel(model, Cache(Path(args.vector_cache))), work, transaction=b.transaction)
            else:
                embed_pages(b.conn, model, work, transaction=b.transaction)
            dt = time.perf_counter() - t
            print(f"\n{plan.chunks:,} chunks embedded with {model.model_id} in {dt:.1f} s ({plan.to_embed / dt:,.1f} chunks/s)", flush=True)
        hybrid.query(b, "warm up", limit=1, model=model)
        t = time.perf_counter()
        ranks = [ranks_for([path_of[h["slug"]] for h in hybrid.query(b, q, limit=DEPTH, model=model)["hits"]], gold) for q, gold, _ in QUERIES]
        results["query"] = report(f"query (gbrain query, {model.model_id}, hybrid)", ranks, (time.perf_counter() - t) * 1000 / len(QUERIES))
        # each near-tie boost off in turn (issue 13: a boost stays only if it helps or is neutral)
        for name in ("TYPE_BOOST", "RECENT_BOOST"):
            keep = getattr(hybrid, name)
            setattr(hybrid, name, 0.0)
            try:
                off = [ranks_for([path_of[h["slug"]] for h in hybrid.query(b, q, limit=DEPTH, model=model)["hits"]], gold) for q, gold, _ in QUERIES]
            finally:
                setattr(hybrid, name, keep)
            m_off = metrics(off)
            print(f"  {name} off: " + ", ".join(f"{k} {v:.3f} ({results['query'][k] - v:+.3f} from the boost)" for k, v in m_off.items()))
        if getattr(model, "feedback_pages", None):  # minilm's second vector search, off (the ranking before it)
            off = [ranks_for([path_of[h["slug"]] for h in hybrid.query(b, q, limit=DEPTH, model=model, feedback=False)["hits"]], gold) for q, gold, _ in QUERIES]
            print("  feedback off: " + ", ".join(f"{k} {v:.3f} ({results['query'][k] - v:+.3f} from the feedback)" for k, v in metrics(off).items()))
        if args.sides:
            results.update(query_sides(b, model, path_of))
    b.close()
    VectorIndex.forget()
    shutil.rmtree(tmp, ignore_errors=True)
    print("\nsummary: " + "; ".join(f"{name} " + ", ".join(f"{k} {v:.3f}" for k, v in m.items()) for name, m in results.items()))
    print("load average %.2f %.2f %.2f (ranking figures do not depend on load; ms/query do)" % os.getloadavg())


if __name__ == "__main__":
    main()
