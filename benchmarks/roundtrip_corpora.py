#!/usr/bin/env python3
"""Round-trip every corpus in ../shared/corpora and make_brain trees through import → export.

Prints, per tree: files, pages, other files, links (resolved/dangling), timeline entries,
tags (of which inline-only) and aliases,
frontmatter kept raw, whether the exported tree is byte-identical (every file compared),
and whether `verify` of the source tree against the DB reports zero mismatches.
Exits 1 if any tree is not byte-identical.

    python benchmarks/roundtrip_corpora.py [--pages 200 7471] [--corpora obsidian-hub]
"""
from __future__ import annotations

import argparse
import filecmp
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gbrain.core.brain import Brain  # noqa: E402
from gbrain.sync.exporter import export_tree  # noqa: E402
from gbrain.sync.importer import import_tree  # noqa: E402
from gbrain.sync.scan import scan_tree  # noqa: E402
from gbrain.sync.verify import verify_tree  # noqa: E402

SHARED = ROOT.parent / "shared"
CORPORA = ["obsidian-help", "obsidian-hub", "llm-wiki-ob-vault", "msdocs-ad-identity", "gbrain-style"]


def identical(a: Path, b: Path) -> bool:
    for dp, dn, fn in os.walk(a):
        dn[:] = [d for d in dn if d != ".git"]
        rel = Path(dp).relative_to(a)
        for f in fn:
            if not filecmp.cmp(Path(dp, f), b / rel / f, shallow=False):
                return False
    n_a = sum(len(f) for _, _, f in os.walk(a))
    n_b = sum(len(f) for _, _, f in os.walk(b))
    return n_a == n_b


def run(name: str, src: Path, tmp: Path) -> bool:
    t = time.perf_counter()
    with Brain.open(tmp / f"{name}.db") as b:
        rep = import_tree(b, src)
        out = tmp / f"{name}-out"
        exp = export_tree(b, out)
        ver = verify_tree(b, scan_tree(src))
    same = identical(src, out)
    lk = rep["links"]
    print(
        f"{name:<22} files {rep['files_seen']:>6,}  pages {rep['pages']:>6,}  other {rep['other_files']:>4,}  "
        f"links {lk['resolved']:>6,}/{lk['dangling']:<5,}  timeline {rep['timeline_entries']['stored']:>6,}  "
        f"tags {rep['tags']['stored']:>6,} (inline {rep['tags'].get('inline', 0):,})  aliases {rep.get('aliases', {}).get('stored', 0):>5,}  "
        f"raw-yaml {rep['frontmatter_errors']:>3}  import {'ok' if rep['ok'] else 'FAIL'}  export {'ok' if exp['ok'] else 'FAIL'}  "
        f"verify {'0 mismatches' if ver['ok'] else ver['problems']}  bytes {'IDENTICAL' if same else 'DIFFERENT'}  {time.perf_counter() - t:5.1f}s"
    )
    return same and rep["ok"] and exp["ok"] and ver["ok"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", type=int, nargs="*", default=[200, 7471])
    ap.add_argument("--corpora", nargs="*", default=CORPORA, help="which corpora to run (default: all)")
    a = ap.parse_args()
    ok = True
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        for c in a.corpora:
            src = SHARED / "corpora" / c
            if src.exists():
                ok &= run(c, src, tmp)
        for n in a.pages:
            made = tmp / f"made-{n}"
            subprocess.run([sys.executable, str(SHARED / "tools" / "make_brain.py"), str(made), "--pages", str(n)], check=True, capture_output=True)
            ok &= run(f"make_brain-{n}", made, tmp)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
