"""Sentences and exact phrases: does `search` put the page a pasted or typed passage comes from first?

    python benchmarks/phrases.py [--corpora ../shared/corpora] [--keep DIR --reuse] [--baseline OTHER/gbrain/search/keyword.py]
                                 [--phrase-off] [--query MODEL [--vector-cache DIR]] [--corpus NAME]

A user trial on the Microsoft Learn AD docs found ``search "lists the LDF files that include the
changes that Adprep.exe makes"`` putting the page holding that sentence third, behind pages
that share its words but not its order. These :data:`QUERIES` were written on 2026-12-03 from
reading pages of ``msdocs-ad-identity`` (imported whole) and of the English Obsidian Help vault
(``en/`` with ``Release notes/`` and ``Sandbox/`` as competitors, as ``known_items.py`` imports
it), before any search was run over either, and were not changed after a ranking was seen. Each
is a sentence or a phrase copied from a page (some as a reader sees it rendered: link targets,
``_emphasis_`` and the like gone; some a part of a sentence; a few short phrases of 3–5
words); its gold pages are every page of that corpus holding it (``grep -F``, case-insensitive).

Metrics: hit@1, MRR@10, hit@5 (``known_items``' definitions). ``--baseline`` ranks the same
brains with another checkout's ``keyword.py`` too (before/after a change, one run);
``--phrase-off`` ranks without the phrase signal (``keyword.PHRASE_WEIGHT = 0``) in the same run.
``--query MODEL`` also embeds the brains with MODEL (``--vector-cache DIR``: vectors of texts
already embedded taken from ``scifact.py``'s cache) and ranks through ``gbrain query`` (hybrid)
with each keyword side: plain BM25 (``hybrid.KEYWORD_COORDINATE = False``) and ``search``'s
ranking (``True``, coordination factor and phrase evidence). ``--corpus`` takes one corpus only.
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
SHARED = next((d / "shared" for d in ROOT.parents if (d / "shared" / "corpora").is_dir()), ROOT.parent / "shared")
sys.path.insert(0, str(ROOT))

from gbrain.core.brain import Brain  # noqa: E402
from gbrain.search import keyword as search  # noqa: E402
from gbrain.sync.importer import import_tree  # noqa: E402

sys.path.insert(0, str(ROOT / "benchmarks"))
from known_items import metrics, ranks_for  # noqa: E402  (one definition of the ranking measures)

DEPTH = 100
MS = "identity/ad-ds/"
MX = "identity-extra/identity/"
E = "en/"
#: corpus → [(query, gold paths, kind)] — written from the pages, before any search was run;
#: kind ``sentence`` (a whole sentence or most of one), ``part`` (a clause of one),
#: ``phrase`` (3–5 words), ``rendered`` (as the page reads rendered, not as its markdown source)
QUERIES: dict[str, list[tuple[str, list[str], str]]] = {
    "msdocs-ad-identity": [
        # the trial's query: the page reads "lists the LDF (Log Database File) files that include …"
        ("lists the LDF files that include the changes that Adprep.exe makes", [MS + "deploy/Schema-Updates.md"], "part"),
        ("Site links reflect the intersite connectivity and method used to transfer replication traffic.", [MS + "plan/Creating-a-Site-Link-Design.md"], "sentence"),
        ("Policy settings are never shared or inherited across policy key roots.", [MX + "laps/laps-management-policy-settings.md"], "sentence"),
        ("The dcpromo answer file is an ASCII text file that provides automated user input", [MS + "deploy/dcpromo.md"], "part"),
        ("you can import it to another device that requires the certificate with private key", [MX + "ad-cs/export-certificate-private-key.md"], "part"),
        ("Every forest starts with a single domain.", [MS + "plan/Determining-the-Number-of-Domains-Required.md"], "sentence"),
        ("The KCC uses cost to determine the least expensive route for replication between two sites", [MS + "plan/Setting-Site-Link-Properties.md"], "sentence"),
        ("The core vulnerability that allows credential theft attacks to succeed", [MS + "plan/security-best-practices/Attractive-Accounts-for-Credential-Theft.md"], "part"),
        ("walks you through how to find the schema version", [MS + "deploy/find-active-directory-schema.md"], "part"),
        ("Simplified management of Microsoft Windows-based networks that contain large numbers of objects", [MS + "plan/Designing-the-Logical-Structure.md"], "sentence"),
        ("SMTP replication will not be supported in future versions", [MS + "plan/Creating-a-Site-Link-Design.md", MS + "get-started/replication/Active-Directory-Replication-Concepts.md"], "part"),
        ("we have found IT employees using a single account for all of their work", [MS + "plan/security-best-practices/Attractive-Accounts-for-Credential-Theft.md"], "part"),
        ("a summary of the installation actions and the permissions requirements", [MS + "deploy/upgrade-domain-controllers.md"], "part"),
        ("slowest link connecting a domain controller", [MS + "plan/Determining-the-Number-of-Domains-Required.md"], "phrase"),
        ("Inter-Site Transports container", [MS + "plan/Creating-a-Site-Link-Design.md"], "phrase"),
        ("New users join the forest at a rate of 20 percent per year", [MS + "plan/Determining-the-Number-of-Domains-Required.md"], "sentence"),
    ],
    "obsidian-help": [
        ("lets you create notes with time-based names, also known as Zettelkasten notes", [E + "Plugins/Unique note creator.md"], "part"),
        ("If a note with the same name exists, the new note uses the next available timestamp.", [E + "Plugins/Unique note creator.md"], "sentence"),
        ("Use callouts to include additional content without breaking the flow of your notes.", [E + "Editing and formatting/Callouts.md"], "sentence"),
        ("lets you merge two notes or extract part of a note into a new note", [E + "Plugins/Note composer.md"], "part"),
        ("An alias is an alternative name for a note.", [E + "Linking notes and files/Aliases.md"], "sentence"),
        ("We offer full refunds within 7 days of purchase with no questions asked", [E + "Licenses and payment/Refund policy.md"], "sentence"),
        ("Notes and attachments appear in chronological order based on their creation time.", [E + "Plugins/Graph view.md"], "sentence"),
        ("a local Graph view shows you notes connected to the active note", [E + "Plugins/Graph view.md"], "part"),
        ("Tabs in sidebars only show the icon.", [E + "User interface/Tabs.md"], "sentence"),
        ("To change the order of your tabs, drag the tab along the tabs in the tab group.", [E + "User interface/Tabs.md"], "sentence"),
        ("Once a property type is assigned to a property name", [E + "Editing and formatting/Properties.md"], "part"),
        ("YAML is a popular format that is easy for both humans and computers to read.", [E + "Editing and formatting/Properties.md"], "sentence"),
        ("A regular expression is a set of characters that describe a text pattern.", [E + "Plugins/Search.md"], "sentence"),
        ("that means you're currently doing a case sensitive search", [E + "Plugins/Search.md"], "part"),
        ("we recommend that you don't create vaults within vaults", [E + "Files and folders/How Obsidian stores data.md"], "part"),
        ("Obsidian automatically refreshes your vault to keep up with any external changes.", [E + "Files and folders/How Obsidian stores data.md"], "sentence"),
        ("Obsidian stores your notes as Markdown-formatted plain text files in a vault.", [E + "Files and folders/How Obsidian stores data.md"], "rendered"),
        ("Slides is a core plugin that lets you create presentations from your notes.", [E + "Plugins/Slides.md"], "rendered"),
        ("reduce latency and make the syncing process faster", [E + "Obsidian Sync/Sync regions.md"], "phrase"),
    ],
}


def build(corpora: Path, name: str, db: Path, reuse: bool) -> Brain:
    """The brain of corpus ``name`` at ``db`` (imported unless ``reuse`` finds it filled)."""
    if db.exists() and not reuse:
        db.unlink()
    b = Brain.open(db)
    if b.conn.execute("SELECT 1 FROM pages LIMIT 1").fetchone():
        return b
    src = Path(tempfile.mkdtemp(prefix="gbrain-phrases-"))
    if name == "obsidian-help":
        for part in ("en", "Release notes", "Sandbox"):
            shutil.copytree(corpora / name / part, src / part)
    else:
        shutil.copytree(corpora / name, src / name, ignore=shutil.ignore_patterns("SOURCE.md"))
        src = src / name
    t = time.perf_counter()
    import_tree(b, src)
    print(f"{name}: {b.conn.execute('SELECT COUNT(*) FROM pages').fetchone()[0]:,} pages imported in {time.perf_counter() - t:.1f} s", flush=True)
    shutil.rmtree(src if name == "obsidian-help" else src.parent, ignore_errors=True)
    return b


def run(brains: dict[str, Brain], name: str, searcher=None) -> dict[str, float]:
    """Rank every corpus' :data:`QUERIES` with ``searcher`` (default: this checkout's
    ``keyword.search``), print the metrics and each miss; return the metrics over all."""
    searcher = searcher or search.search
    ranks, kinds, misses = [], [], []
    t = time.process_time()
    for corpus, b in brains.items():
        path_of = {r[0]: r[1] for r in b.conn.execute("SELECT slug, path FROM pages")}
        for q, gold, kind in QUERIES[corpus]:
            hits = searcher(b.conn, q, limit=DEPTH)
            r = ranks_for([path_of[h["slug"]] for h in hits], gold)
            ranks.append(r)
            kinds.append(kind)
            if r != 1:
                misses.append((corpus, q, r, [path_of[h["slug"]] for h in hits[:2]]))
    cpu = (time.process_time() - t) * 1000 / len(ranks)
    m = metrics(ranks)
    print(f"\n{name}: {len(ranks)} queries, {cpu:.1f} ms CPU/query (top {DEPTH} with snippets)")
    print("  " + ", ".join(f"{k} {v:.3f}" for k, v in m.items()))
    by_kind: dict[str, list[int]] = {}
    for k, r in zip(kinds, ranks):
        by_kind.setdefault(k, []).append(1 if r == 1 else 0)
    print("  hit@1 by kind: " + ", ".join(f"{k} {sum(v)}/{len(v)}" for k, v in by_kind.items()))
    for corpus, q, r, top in misses:
        print(f"  miss: rank {r if r else '>' + str(DEPTH):>4}  [{corpus}] {q!r}  (first: {top[0] if top else '-'})")
    return m


def query_sides(brains: dict[str, Brain], model_name: str, cache_dir: str | None) -> dict[str, dict[str, float]]:
    """``--query``: embed every brain with ``model_name`` (through the vector cache when given),
    then rank the queries with ``hybrid.query`` with each keyword side (``run``'s report each)."""
    from gbrain.search import hybrid
    from gbrain.search.embeddings import get_model
    from gbrain.search.vectors import VectorIndex, embed_pages, plan_embed, select_pages

    model = get_model(model_name)
    for corpus, b in brains.items():
        plan, work = plan_embed(b.conn, model, select_pages(b.conn, model.model_id, "stale"))
        if plan.to_embed:
            t = time.perf_counter()
            if cache_dir:
                from scifact import Cache, CachedModel

                embed_pages(b.conn, CachedModel(model, Cache(Path(cache_dir))), work, transaction=b.transaction)
            else:
                embed_pages(b.conn, model, work, transaction=b.transaction)
            print(f"{corpus}: {plan.chunks:,} chunks embedded with {model.model_id} in {time.perf_counter() - t:.0f} s", flush=True)
    by_conn = {id(b.conn): b for b in brains.values()}

    def searcher(conn, q, limit):
        return hybrid.query(by_conn[id(conn)], q, limit=limit, model=model)["hits"]

    out, keep = {}, hybrid.KEYWORD_COORDINATE
    try:
        for label, coord in (("plain BM25", False), ("search's ranking", True)):
            hybrid.KEYWORD_COORDINATE = coord
            out[f"query {label}"] = run(brains, f"query ({model.model_id}, hybrid), keyword side {label} (KEYWORD_COORDINATE {coord})", searcher)
    finally:
        hybrid.KEYWORD_COORDINATE = keep
    VectorIndex.forget()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpora", default=str(SHARED / "corpora"))
    ap.add_argument("--keep", help="keep the brains in this folder")
    ap.add_argument("--reuse", action="store_true", help="with --keep: reuse the brains there")
    ap.add_argument("--baseline", metavar="KEYWORD_PY", help="another checkout's gbrain/search/keyword.py: its search ranks the same brains too")
    ap.add_argument("--phrase-off", action="store_true", help="also rank without the phrase signal (keyword.PHRASE_WEIGHT = 0)")
    ap.add_argument("--query", metavar="MODEL", help="also rank with gbrain query (hybrid, this embedding model) with each keyword side")
    ap.add_argument("--vector-cache", metavar="DIR", help="with --query: take the pages' vectors from this cache (scifact.py's Cache; one folder per model)")
    ap.add_argument("--corpus", choices=list(QUERIES), help="only this corpus")
    args = ap.parse_args()
    corpora = Path(args.corpora)
    if args.corpus:
        for c in [c for c in QUERIES if c != args.corpus]:
            del QUERIES[c]
    for corpus, qs in QUERIES.items():
        for _, gold, _ in qs:
            for g in gold:
                if not (corpora / corpus / g).is_file():
                    sys.exit(f"gold page missing from the corpus: {corpus}/{g}")
    tmp = Path(tempfile.mkdtemp(prefix="gbrain-phrases-db-"))
    folder = Path(args.keep) if args.keep else tmp
    folder.mkdir(parents=True, exist_ok=True)
    brains = {c: build(corpora, c, folder / f"{c}.db", bool(args.keep and args.reuse)) for c in QUERIES}
    out = {"search": run(brains, "search (this checkout)")}
    if args.baseline:
        sys.path.insert(0, str(ROOT / "benchmarks"))
        from postgres import load_baseline

        out["baseline"] = run(brains, f"search, --baseline {args.baseline}", load_baseline(args.baseline))
    if args.phrase_off and hasattr(search, "PHRASE_WEIGHT"):
        keep = search.PHRASE_WEIGHT
        search.PHRASE_WEIGHT = 0.0
        try:
            out["phrase off"] = run(brains, "search, phrase signal off (PHRASE_WEIGHT = 0)")
        finally:
            search.PHRASE_WEIGHT = keep
    if args.query:
        out.update(query_sides(brains, args.query, args.vector_cache))
    for b in brains.values():
        b.close()
    shutil.rmtree(tmp, ignore_errors=True)
    print("\nsummary: " + "; ".join(f"{n} " + ", ".join(f"{k} {v:.3f}" for k, v in m.items()) for n, m in out.items()))
    print("load average %.2f %.2f %.2f (ranking figures do not depend on load; CPU ms do)" % os.getloadavg())


if __name__ == "__main__":
    main()
