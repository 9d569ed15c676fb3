"""``minilm`` embedding CPU per chunk on SciFact abstracts, where it goes, beside a baseline, one run.

    python benchmarks/minilm_speed.py [--pages 200] [--base REF] [--rounds 2] [--modes default,env1]

The first ``--pages`` SciFact abstracts (BEIR folder, ``scifact.write_tree``'s page shape) are
imported with gbrain's importer and cut as ``gbrain embed`` cuts them for ``minilm``
(``chunking.model_chunks`` at 220: the 220-token chunks and the ~500-token ones, each text once
per page). Each mode then embeds every chunk text in a fresh child process
(``MiniLMEmbedding.embed_multi``, the call ``gbrain embed`` makes, after a warm-up that loads the
weights), rounds alternated so a change in the machine's load falls on all alike. Printed per
mode: CPU-s of the child process (``time.process_time``: every thread), chunks per CPU-second,
the share of threads other than the ones that ran Python (OpenBLAS's own threads, tokenizers'
rayon threads: spinning or working), the tokenizer's CPU alone, and the vectors' max abs
difference from the first mode's. Modes:

* ``default``: this checkout as shipped;
* ``env1``: this checkout with ``OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1`` set before start
  (trial 64's side by side);
* ``base``: the checkout of ``--base REF`` (``git archive`` into a temp folder), as shipped.

Load average printed at the end: the machine is shared, and CPU time inflates under load too.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def thread_cpu() -> dict[int, float]:
    """CPU-s (user + system) of each thread of this process, by thread id (Linux /proc)."""
    tick = os.sysconf("SC_CLK_TCK")
    out = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            f = open(f"/proc/self/task/{tid}/stat").read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        out[int(tid)] = (int(f[11]) + int(f[12])) / tick
    return out


def child(texts_file: str, out_file: str) -> None:
    """Embed the texts of ``texts_file`` (JSON list) with minilm; write the vectors (.npy) and a
    JSON line of figures to stdout."""
    import threading

    import numpy as np

    from gbrain.search.embeddings import get_model

    texts = json.loads(Path(texts_file).read_text())
    model = get_model("minilm")
    model.embed_multi(["warm up the encoder"] * 4)
    enc = model._encoder()
    python_tids = set()
    real_forward = type(enc)._forward

    def spy(self, ids):  # the threads that run the forward pass (Python threads)
        python_tids.add(threading.get_native_id())
        return real_forward(self, ids)

    type(enc)._forward = spy
    t0 = time.process_time()
    tok = enc.tokenize(texts)
    t_tok = time.process_time() - t0
    before = thread_cpu()
    w0, c0 = time.perf_counter(), time.process_time()
    vecs = model.embed_multi(texts)
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    after = thread_cpu()
    python_tids.add(threading.get_native_id())
    delta = {t: after[t] - before.get(t, 0.0) for t in after}
    other = sum(v for t, v in delta.items() if t not in python_tids)
    np.save(out_file, vecs)
    lens = [len(x) for x in tok]
    from threadpoolctl import threadpool_info

    print(json.dumps({
        "cpu": cpu, "wall": wall, "tok_cpu": t_tok, "other_threads_cpu": other, "threads": len(after),
        "pieces": sum(lens), "max_pieces": max(lens), "blas": [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"],
    }))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import scifact as S

    ap.add_argument("--corpus", default=str(S.SHARED / "corpora" / "ir" / "scifact"))
    ap.add_argument("--pages", type=int, default=200)
    ap.add_argument("--base", default=None, help="git ref of the baseline checkout (mode base)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--modes", default="default,env1")
    args = ap.parse_args()
    modes = args.modes.split(",")
    if args.base and "base" not in modes:
        modes.insert(0, "base")

    sys.path.insert(0, str(ROOT))
    from gbrain.core.brain import Brain
    from gbrain.search.chunking import model_chunks
    from gbrain.sync.importer import import_tree

    tmp = Path(tempfile.mkdtemp(prefix="gbrain-minilm-speed-"))
    docs, _, _ = S.load(Path(args.corpus))
    S.write_tree(docs[: args.pages], tmp / "scifact")
    texts: list[str] = []
    with Brain.open(tmp / "scifact.db") as b:
        import_tree(b, tmp / "scifact")
        for t, ct, tl in b.conn.execute("SELECT title, compiled_truth, timeline FROM pages ORDER BY id"):
            texts += list(dict.fromkeys(c.text for c in model_chunks(t, ct, tl, max_tokens=220)))
    (tmp / "texts.json").write_text(json.dumps(texts))
    roots = {m: ROOT for m in modes}
    if "base" in modes:
        base = tmp / "base"
        base.mkdir()
        subprocess.run(f"git -C {ROOT} archive {args.base} | tar -x -C {base}", shell=True, check=True)
        roots["base"] = base
    print(f"{args.pages} SciFact pages, {len(texts):,} chunk texts (minilm, 220 + ~500)")
    res: dict[str, list[dict]] = {m: [] for m in modes}
    for r in range(args.rounds):
        for m in modes:
            env = dict(os.environ, PYTHONPATH=str(roots[m]))
            if m == "env1":
                env.update(OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
            p = subprocess.run([sys.executable, __file__, "--child", str(tmp / "texts.json"), str(tmp / f"{m}.npy")],
                               env=env, cwd=roots[m], capture_output=True, text=True)
            if p.returncode:
                sys.exit(f"{m}: {p.stderr}")
            res[m].append(json.loads(p.stdout.strip().splitlines()[-1]))
    import numpy as np

    ref = np.load(tmp / f"{modes[0]}.npy")
    n = len(texts)
    for m in modes:
        rs = res[m]
        cpu = statistics.mean(x["cpu"] for x in rs)
        diff = float(np.abs(np.load(tmp / f"{m}.npy") - ref).max())
        print(f"  {m:8} CPU {cpu:7.1f} s ({', '.join('%.1f' % x['cpu'] for x in rs)})  {n / cpu:5.2f} chunks per CPU-s  "
              f"wall {statistics.mean(x['wall'] for x in rs):6.1f} s  other threads {statistics.mean(x['other_threads_cpu'] for x in rs):5.1f} CPU-s  "
              f"tokenizer {statistics.mean(x['tok_cpu'] for x in rs):.2f} CPU-s  threads {rs[-1]['threads']} blas {rs[-1]['blas']}  "
              f"max|Δv| vs {modes[0]} {diff:.2e}")
    print(f"  word pieces {res[modes[0]][0]['pieces']:,} (max {res[modes[0]][0]['max_pieces']} per text)")
    print("load average %.2f %.2f %.2f" % os.getloadavg())


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        sys.path.insert(0, os.getcwd())
        child(sys.argv[2], sys.argv[3])
    else:
        main()
