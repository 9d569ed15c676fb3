"""What the chunk claims (``embed_claims``, SQLite v85 / Postgres v93: two embedders send each text
once) cost one embedder alone: ``embed_pages`` over every page of a synthetic brain, with the claims
(A) beside the same run with a claims stand-in that claims nothing (B, the code before), alternated
in one process, on SQLite and on a private pgserver.

The provider is a real OpenAI-compatible server in a subprocess on 127.0.0.1 answering at once (the
worst case for the claims: the provider's time, which they do not touch, is nearly nil), so this
process's CPU is the embedder's own (``resource.getrusage``: planning excluded, the store and the
claims included; Postgres' backend CPU is not counted). Each round drops the model's vectors and
cache first, so every chunk is sent again. Prints CPU-s and wall per round, the medians and B/A.

``--pair N``: first N rounds each way of two `gbrain embed --stale` processes started at once
(the inputs the server received, all and distinct, and the wall until both ended; ``--delay``
seconds per input makes the provider slower, as a real one is).

    python benchmarks/embed_claims.py [--pages 1500] [--rounds 5] [--engine sqlite|postgres|both] [--pair 2] [--delay 0.002]
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(HERE))

SERVER = r'''
import base64, hashlib, json, struct, sys, time
SEEN = {}
DELAY = float(sys.argv[1]) if len(sys.argv) > 1 else 0.0
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def do_GET(self):
        if self.path in ("/count", "/reset"):
            out = json.dumps({"inputs": sum(SEEN.values()), "distinct": len(SEEN)}).encode()
            if self.path == "/reset":
                SEEN.clear()
            self.send_response(200); self.send_header("Content-Length", str(len(out))); self.end_headers(); self.wfile.write(out)
            return
        self.send_response(404); self.send_header("Content-Length", "0"); self.end_headers()
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        inp = body["input"] if isinstance(body["input"], list) else [body["input"]]
        for t in inp:
            SEEN[t] = SEEN.get(t, 0) + 1
        if DELAY:
            time.sleep(DELAY * len(inp))
        data = []
        for i, t in enumerate(inp):
            d = hashlib.sha256(t.encode()).digest() * 2
            v = [(b - 128) / 128 for b in d]
            data.append({"object": "embedding", "index": i, "embedding": base64.b64encode(struct.pack("<64f", *v)).decode()
                         if body.get("encoding_format") == "base64" else v})
        out = json.dumps({"object": "list", "data": data, "model": body["model"], "usage": {"prompt_tokens": 1, "total_tokens": 1}}).encode()
        self.send_response(200); self.send_header("Content-Type", "application/json"); self.send_header("Content-Length", str(len(out)))
        self.end_headers(); self.wfile.write(out)
s = ThreadingHTTPServer(("127.0.0.1", 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()
'''


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


class NoClaims:
    """The claims stand-in of round B: claims nothing, as embed_pages did before v85."""

    def __init__(self, conn, model):
        self.held = False

    def busy(self, hashes):
        return set()

    def hold(self, hashes):
        pass

    def give_back(self):
        pass

    def given_back(self):
        pass

    def give_back_all(self, tx):
        pass


def make_brain(db: str, pages: int, url: str) -> None:
    from gbrain.core.brain import Brain

    with Brain.open(db, create=True) as b:
        b.set_config("embedding_base_url", url)
        b.set_config("embedding_model", "bench-embed")
        with b.transaction():
            for i in range(pages):
                sections = "\n\n".join(f"## Part {k}\n\nPage {i} part {k}: " + " ".join(hashlib.md5(f"{i}.{k}.{j}".encode()).hexdigest()[:7]
                                                                                    for j in range(40)) for k in range(3))
                b.put(f"notes/p{i:05d}", f"# Page {i}\n\n{sections}\n")


def one_round(db: str, claims: bool) -> tuple[float, float, dict]:
    from gbrain.core.brain import Brain
    from gbrain.search import vectors

    real = vectors._Claims
    with Brain.open(db) as b:
        model, _ = vectors.active_model(b.conn, b.config())
        with b.transaction():
            vectors.drop_vectors(b.conn, model.model_id)
        rows = vectors.select_pages(b.conn, model.model_id, "stale", chunking=vectors.chunking_of(model))
        _, work = vectors.plan_embed(b.conn, model, rows)
        vectors._Claims = real if claims else NoClaims
        try:
            c0, t0 = cpu(), time.perf_counter()
            st = vectors.embed_pages(b.conn, model, work, transaction=b.transaction)
            c1, t1 = cpu(), time.perf_counter()
        finally:
            vectors._Claims = real
    return c1 - c0, t1 - t0, {k: st[k] for k in ("pages", "chunks", "embedded")}


#: a process running `gbrain embed --stale` (argv[1]: the brain) with the claims (argv[2] "A") or the stand-in ("B")
PAIR_CHILD = r'''
import sys
sys.path.insert(0, sys.argv[3])
sys.path.insert(0, sys.argv[3] + "/benchmarks")
from gbrain.search import vectors
import embed_claims
if sys.argv[2] == "B":
    vectors._Claims = embed_claims.NoClaims
from gbrain.entry import main
main(["--db", sys.argv[1], "embed", "--stale", "--json"])
'''


def _get(url: str, path: str) -> dict:
    import urllib.request

    with urllib.request.urlopen(url.rsplit("/v1", 1)[0] + path) as r:
        return json.loads(r.read())


def pair_round(db: str, url: str, claims: bool) -> dict:
    """Two `gbrain embed --stale` processes started at once on the brain (its vectors dropped
    first): the inputs the server received in all and distinct, and the wall until both ended."""
    from gbrain.core.brain import Brain
    from gbrain.search import vectors

    with Brain.open(db) as b:
        model, _ = vectors.active_model(b.conn, b.config())
        with b.transaction():
            vectors.drop_vectors(b.conn, model.model_id)
    _get(url, "/reset")
    t0 = time.perf_counter()
    procs = [subprocess.Popen([sys.executable, "-c", PAIR_CHILD, db, "A" if claims else "B", str(HERE)], stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE) for _ in range(2)]
    errs = [p.communicate()[1] for p in procs]
    wall = time.perf_counter() - t0
    for p, e in zip(procs, errs):
        if p.returncode:
            raise SystemExit(f"embed failed: {e.decode()[-500:]}")
    return {**_get(url, "/count"), "wall": round(wall, 2)}


def run_engine(name: str, db: str, pages: int, rounds: int, url: str, pair: int = 0) -> None:
    make_brain(db, pages, url)
    one_round(db, True)  # warm-up: imports, the server's first answer, the HNSW index on Postgres
    for r in range(pair):
        for claims in ((True, False) if r % 2 == 0 else (False, True)):
            print(f"  {name} pair {r + 1} {'A claims' if claims else 'B none  '}: {json.dumps(pair_round(db, url, claims))}  "
                  f"load {os.getloadavg()[0]:.1f}", flush=True)
    res = {True: [], False: []}
    for r in range(rounds):
        for claims in ((True, False) if r % 2 == 0 else (False, True)):
            c, w, st = one_round(db, claims)
            res[claims].append((c, w))
            print(f"  {name} round {r + 1} {'A claims' if claims else 'B none  '}: {c:6.3f} CPU-s {w:6.3f} s wall  {json.dumps(st)}  "
                  f"load {os.getloadavg()[0]:.1f}", flush=True)
    if not rounds:
        return
    a = statistics.median(c for c, _ in res[True])
    bb = statistics.median(c for c, _ in res[False])
    aw = statistics.median(w for _, w in res[True])
    bw = statistics.median(w for _, w in res[False])
    print(f"{name}: median CPU-s A (claims) {a:.3f} / B (none) {bb:.3f} = A/B {a / bb:.3f}; wall {aw:.3f} / {bw:.3f} = {aw / bw:.3f}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pages", type=int, default=1500)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--engine", choices=("sqlite", "postgres", "both"), default="both")
    ap.add_argument("--pair", type=int, default=0, help="rounds of two `gbrain embed --stale` processes at once, first (inputs sent)")
    ap.add_argument("--delay", type=float, default=0.0, help="the server's seconds per input (a slower provider)")
    args = ap.parse_args()
    srv = subprocess.Popen([sys.executable, "-c", SERVER, str(args.delay)], stdout=subprocess.PIPE, text=True)
    try:
        url = f"http://127.0.0.1:{srv.stdout.readline().strip()}/v1"
        print(f"{args.pages} pages x 3 chunks, {args.rounds} rounds each way, load {os.getloadavg()[0]:.1f}", flush=True)
        with tempfile.TemporaryDirectory(prefix="embed_claims_") as tmp:
            if args.engine in ("sqlite", "both"):
                run_engine("sqlite", str(Path(tmp) / "brain.db"), args.pages, args.rounds, url, args.pair)
            if args.engine in ("postgres", "both"):
                import pgserver

                pg = pgserver.get_server(str(Path(tmp) / "pg"), cleanup_mode="stop")
                try:
                    run_engine("postgres", pg.get_uri(), args.pages, args.rounds, url, args.pair)
                finally:
                    pg.cleanup()
    finally:
        srv.kill()


if __name__ == "__main__":
    main()
