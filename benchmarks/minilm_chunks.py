"""What cutting each long section twice costs ``minilm``: chunk counts and embedding CPU.

    python benchmarks/minilm_chunks.py [--pages 7471] [--sample 160] [--corpus DIR]

Since chunking version 2 (``chunking.model_chunks``), a model whose window is below
``chunking.MAX_TOKENS`` (``minilm``: 220) embeds each page's 220-token chunks and its ~500-token
chunks, each text once per page; version 1 was the 220-token chunks alone. For SciFact's 5,183
abstracts (``--corpus``, the BEIR folder) and a ``make_brain`` brain of ``--pages`` pages, both
imported with gbrain's importer, this prints:

* chunks under version 1 (baseline, the same run) and version 2, their ratio, and the new texts
  (by sha256 over the brain: what the embedding cache does not hold after a version-1 embed, so
  what ``gbrain embed --stale`` sends to the model when it re-chunks the brain);
* embedding CPU-seconds (``time.process_time`` of this process: the encoder runs in it; BLAS on
  one thread, so a busy machine's spinning BLAS threads are not counted): a random sample
  (seed 0) of ``--sample`` version-1 texts and as many new texts is embedded with ``minilm``,
  slices of the two taken in turn, and the per-text CPU scales each set to its full count (an
  estimate: ± the standard error over the slices, printed); a fresh embed under version 2 is the
  sum of both.

Target (issue 13, docs/search.md "New chunk text"): SciFact 12,665 -> 18,114 chunks, 5,449 new
texts. Load average printed at the end: the machine is shared.
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import scifact as S  # noqa: E402
from gbrain.core.brain import Brain  # noqa: E402
from gbrain.search.chunking import approx_tokens, chunk_page, model_chunks, text_hash  # noqa: E402
from gbrain.search.embeddings import get_model  # noqa: E402
from gbrain.sync.importer import import_tree  # noqa: E402

BUDGET = 220  # minilm's max_chunk_tokens


def counts(b: Brain) -> dict:
    """Chunk lists of every page under versions 1 and 2, and the distinct texts of each."""
    v1: list[str] = []
    v2: list[str] = []
    for t, ct, tl in b.conn.execute("SELECT title, compiled_truth, timeline FROM pages ORDER BY id"):
        v1 += [c.text for c in chunk_page(t, ct, tl, max_tokens=BUDGET)]
        v2 += [c.text for c in model_chunks(t, ct, tl, max_tokens=BUDGET)]
    old = {text_hash(x): x for x in v1}
    new = {h: x for h, x in ((text_hash(x), x) for x in v2) if h not in old}
    return {"pages": b.conn.execute("SELECT COUNT(*) FROM pages").fetchone()[0], "v1": v1, "v2": v2, "old": list(old.values()), "new": list(new.values())}


def cpu_per_text(model, sets: list[list[str]], n: int, rng: random.Random) -> list[tuple[float, float, int]]:
    """``[(CPU-s per text, standard error, texts timed)]`` for each of ``sets``: a random sample of
    ``n`` texts of each, embedded in 8 slices taken in turn from each set (so a change in the
    machine's load falls on all alike; the spread of the slices gives the error), after a
    warm-up that loads the model."""
    model.embed_multi(["warm up the encoder"] * 4)
    samples = [rng.sample(texts, min(n, len(texts))) for texts in sets]
    per: list[list[float]] = [[] for _ in sets]
    slices = 8
    for j in range(slices):
        for i, sample in enumerate(samples):
            k = -(-len(sample) // slices)
            part = sample[j * k : (j + 1) * k]
            if not part:
                continue
            t = time.process_time()
            model.embed_multi(part)
            per[i].append((time.process_time() - t) / len(part))
    out = []
    for p, sample in zip(per, samples):
        if not p:
            out.append((0.0, 0.0, 0))
            continue
        se = statistics.stdev(p) / len(p) ** 0.5 if len(p) > 1 else 0.0
        out.append((statistics.mean(p), se, len(sample)))
    return out


def report(name: str, c: dict, model, n: int) -> None:
    v1, v2, old, new = c["v1"], c["v2"], c["old"], c["new"]
    tok = lambda xs: sum(approx_tokens(x) for x in xs)  # noqa: E731
    print(f"\n{name}: {c['pages']:,} pages")
    print(f"  chunks  version 1 (220 only, baseline) {len(v1):,}   version 2 (220 + 500) {len(v2):,}   ratio {len(v2) / max(1, len(v1)):.2f}x")
    print(f"  distinct texts  version 1 {len(old):,}   new in version 2 {len(new):,} (~{tok(new):,} tokens; version 1 ~{tok(old):,})")
    if model is None:
        return
    (a, ase, an), (bb, bse, bn) = cpu_per_text(model, [old, new], n, random.Random(0))
    full1 = a * len(old)
    extra = bb * len(new)
    print(f"  minilm CPU per text  version-1 texts {a * 1000:.1f} ± {ase * 1000:.1f} ms ({an} timed)   new texts {bb * 1000:.1f} ± {bse * 1000:.1f} ms ({bn} timed)")
    print(f"  embedding CPU (estimate)  fresh version 1 {full1:,.0f} CPU-s (baseline)   re-chunk (`embed --stale`, new texts only) {extra:,.0f} CPU-s   "
          f"fresh version 2 {full1 + extra:,.0f} CPU-s = {(full1 + extra) / max(full1, 1e-9):.2f}x")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", default=str(S.SHARED / "corpora" / "ir" / "scifact"))
    ap.add_argument("--pages", type=int, default=7471, help="make_brain pages (0: skip)")
    ap.add_argument("--sample", type=int, default=160, help="texts timed per set (0: counts only)")
    args = ap.parse_args()
    model = get_model("minilm") if args.sample else None
    from threadpoolctl import threadpool_limits

    threadpool_limits(1, user_api="blas")
    tmp = Path(tempfile.mkdtemp(prefix="gbrain-minilm-chunks-"))
    if Path(args.corpus, "corpus.jsonl").exists():
        docs, _, _ = S.load(Path(args.corpus))
        S.write_tree(docs, tmp / "scifact")
        with Brain.open(tmp / "scifact.db") as b:
            import_tree(b, tmp / "scifact")
            report("SciFact", counts(b), model, args.sample)
        print("  target: 12,665 -> 18,114 chunks, 5,449 new texts (docs/search.md)")
    if args.pages:
        tool = S.SHARED / "tools" / "make_brain.py"
        subprocess.run([sys.executable, str(tool), str(tmp / "mb"), "--pages", str(args.pages)], check=True, capture_output=True)
        with Brain.open(tmp / "mb.db") as b:
            import_tree(b, tmp / "mb")
            report(f"make_brain --pages {args.pages}", counts(b), model, args.sample)
    print("\nload average %.2f %.2f %.2f" % os.getloadavg())


if __name__ == "__main__":
    main()
