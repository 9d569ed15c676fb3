"""Do the near-tie boosts earn their place? Known-item queries over a people/company brain.

    python benchmarks/boosts.py [--corpus ../shared/corpora/gbrain-style] [--model minilm]

Writes gbrain-evals' ``world-v2`` records (53 people, 18 companies, 20 concepts, 44 meetings;
LLM-written prose with dated timelines) as gbrain pages (frontmatter ``type``/``title``,
compiled truth, ``---``, timeline), imports them, and sets each page's ``updated_at`` from its
newest timeline date, shifted so that the brain's newest event is today (so "updated in the last
30 days" picks the pages with the latest events, not every page of a fresh import). Embeds with
``--model`` and runs :data:`QUERIES` through ``gbrain query`` with both boosts, with the type
boost off and with the recency boost off, printing hit@1 / MRR@10 / hit@5 for each.

The queries were written from reading the records (titles, the Anchor Codec page, a person
page, a meeting) before any search was run on this corpus. Some ``who`` questions have a person
as gold (the type boost should help or be neutral), some a meeting or a company (it must not
hurt).
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = next((d / "shared" for d in ROOT.parents if (d / "shared" / "corpora").is_dir()), ROOT.parent / "shared")
sys.path.insert(0, str(ROOT))

from gbrain.search import hybrid  # noqa: E402
from gbrain.core.brain import Brain  # noqa: E402
from gbrain.search.embeddings import get_model, offline_model  # noqa: E402
from gbrain.search.vectors import VectorIndex, embed_pages, plan_embed, select_pages  # noqa: E402
from gbrain.sync.importer import import_tree  # noqa: E402

sys.path.insert(0, str(ROOT / "benchmarks"))
from known_items import TARGETS, metrics, ranks_for  # noqa: E402

#: (query, gold slugs, kind)
QUERIES: list[tuple[str, list[str], str]] = [
    ("who is the CTO of Anchor Codec?", ["people/dani-osei"], "who→person"),
    ("who founded Forge Build?", ["people/bex-leclerc"], "who→person"),
    ("who is the CEO of Keel Networks?", ["people/jin-castillo"], "who→person"),
    ("who runs Vellum Systems?", ["people/lev-fernandez"], "who→person"),
    ("who founded Prism Protocol?", ["people/ora-hashimoto"], "who→person"),
    ("who is the founder of Quasar Labs?", ["people/sol-mensah"], "who→person"),
    ("who is Anchor's security advisor?", ["people/alex-petrov"], "who→person"),
    ("who heads marketing at Anchor?", ["people/emery-castillo"], "who→person"),
    ("who is the VP of engineering?", ["people/jasper-moreau"], "who→person"),
    ("who leads developer relations?", ["people/wren-johansson"], "who→person"),
    ("who is the head of sales?", ["people/paz-santos"], "who→person"),
    ("who worked at the NSA?", ["people/alex-petrov"], "who→person"),
    ("who is the head of partnerships?", ["people/reese-abebe"], "who→person"),
    ("who is the data engineer at Anchor Codec?", ["people/tatum-nguyen"], "who→person"),
    ("who led Anchor's seed round?", ["people/ora-yamamoto", "companies/anchor"], "who→person/company"),
    ("who was interviewed for the CTO role?", ["meetings/hiring-panel-0-2026-03-20"], "who→meeting"),
    ("who attended the Q1 2026 all-hands?", ["meetings/all-hands-2026-04-01"], "who→meeting"),
    ("who did Seren Voss meet one on one on 2026-11-30?", ["meetings/oneonone-10-2026-11-30"], "who→meeting"),
    ("which company is building single-pass compression and authentication?", ["companies/anchor"], "company"),
    ("Prism Ventures term sheet discussion", ["meetings/investor-call-4-2026-10-14"], "meeting"),
    ("Helios Corp expansion call", ["meetings/customer-call-4-2027-08-20"], "meeting"),
    ("post-quantum migration", ["concepts/post-quantum-migration"], "concept"),
    ("Seren Voss", ["people/seren-voss"], "name"),
    ("Anchor Codec", ["companies/anchor"], "name"),
]


def write_tree(src: Path, tree: Path) -> dict[str, str]:
    """Pages from world-v2 records; returns {slug: newest timeline date}."""
    newest = {}
    for f in sorted(src.glob("*/*.json")):
        if f.name.startswith("_"):
            continue
        d = json.loads(f.read_text(encoding="utf-8"))
        tl = d["timeline"] if isinstance(d["timeline"], list) else d["timeline"].splitlines()
        dates = [ln.split("**")[1] for ln in tl if ln.count("**") >= 2]
        newest[d["slug"]] = max(dates) if dates else "2026-01-01"
        p = tree / f"{d['slug']}.md"
        p.parent.mkdir(parents=True, exist_ok=True)
        title = d["title"].replace('"', "'")
        p.write_text(f'---\ntype: {d["type"]}\ntitle: "{title}"\n---\n{d["compiled_truth"].strip()}\n\n---\n\n' + "\n".join(tl) + "\n", encoding="utf-8")
    return newest


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", default=str(SHARED / "corpora" / "gbrain-style"))
    ap.add_argument("--model", help="embedding model (default: the offline default)")
    args = ap.parse_args()
    src = Path(args.corpus) / "gbrain-evals" / "eval" / "data" / "world-v2"
    tmp = Path(tempfile.mkdtemp(prefix="gbrain-boosts-"))
    newest = write_tree(src, tmp / "tree")
    b = Brain.open(tmp / "brain.db")
    import_tree(b, tmp / "tree")
    top = max(dt.date.fromisoformat(v) for v in newest.values())
    today = dt.datetime.now(dt.timezone.utc).date()
    with b.transaction():
        for slug, day in newest.items():
            when = today - (top - dt.date.fromisoformat(day))
            b.conn.execute("UPDATE pages SET updated_at = ? WHERE slug = ?", (when.isoformat() + "T12:00:00Z", slug))
    recent = b.conn.execute("SELECT COUNT(*) FROM pages WHERE updated_at >= ?", ((today - dt.timedelta(days=hybrid.RECENT_DAYS)).isoformat(),)).fetchone()[0]
    for q, gold, _ in QUERIES:
        for g in gold:
            if g not in newest:
                sys.exit(f"gold page missing: {g}")
    model = get_model(args.model or offline_model())
    plan, work = plan_embed(b.conn, model, select_pages(b.conn, model.model_id, "all"))
    embed_pages(b.conn, model, work, transaction=b.transaction)
    print(f"world-v2: {len(newest)} pages, {recent} updated in the last {hybrid.RECENT_DAYS} days (simulated), {plan.chunks:,} {model.model_id} chunks; {len(QUERIES)} queries")
    runs = {}
    for label, off in (("both boosts", ()), ("type boost off", ("TYPE_BOOST",)), ("recency boost off", ("RECENT_BOOST",)), ("no boosts", ("TYPE_BOOST", "RECENT_BOOST"))):
        keep = {n: getattr(hybrid, n) for n in off}
        for n in off:
            setattr(hybrid, n, 0.0)
        try:
            runs[label] = [ranks_for([h["slug"] for h in hybrid.query(b, q, limit=100, model=model)["hits"]], gold) for q, gold, _ in QUERIES]
        finally:
            for n, v in keep.items():
                setattr(hybrid, n, v)
        m = metrics(runs[label])
        print(f"  query, {label:<18} " + ", ".join(f"{k} {v:.3f}" for k, v in m.items()) + "   targets " + ", ".join(f"{k} ≥ {v:.2f}" for k, v in TARGETS.items()))
    for (q, _, kind), *rs in zip(QUERIES, *runs.values()):
        if len(set(rs)) > 1 or rs[0] != 1:
            print(f"  {q!r} [{kind}]: rank " + " / ".join(f"{lab} {r}" for lab, r in zip(runs, rs)))
    print("load average %.2f %.2f %.2f" % os.getloadavg())
    b.close()
    VectorIndex.forget()
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
