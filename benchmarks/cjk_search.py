#!/usr/bin/env python3
"""CJK words inside runs (schema v21, ``pages.search_cjk``): found pages against grep, English
output unchanged, and the cost, this checkout beside a baseline checkout, in one run.

    python benchmarks/cjk_search.py found   --db BRAIN.db [--baseline CHECKOUT=BRAIN.db] --tree DIR [WORD ...]
    python benchmarks/cjk_search.py english --db BRAIN.db --baseline CHECKOUT=BRAIN.db [QUERY ...]
    python benchmarks/cjk_search.py cpu     --db BRAIN.db [--baseline CHECKOUT=BRAIN.db] [--rounds 3] [QUERY ...]
    python benchmarks/cjk_search.py import  --tree DIR [--baseline CHECKOUT] [--rounds 3]

Each brain is a database its own checkout imported from the same tree (schemas differ between
commits); each checkout runs in its own process (``CHECKOUT`` is a directory holding a ``gbrain``
package: a worktree, or ``git archive COMMIT gbrain | tar -x -C DIR``).

* ``found``: for each word, the pages ``gbrain search WORD --limit 1000`` finds and the pages whose
  file text or path (without ``.md``) holds the word (grep over the tree, pages of the brain only):
  counts, and the pages missed or extra;
* ``english``: each query's ``search`` JSON (top 20, every field) of both checkouts, compared byte
  for byte (a corpus with CJK pages: BM25's average length counts their bigrams since v21);
* ``cpu``: search CPU per query (``time.process_time``, warm), p50 and mean per checkout, rounds
  interleaved;
* ``import``: the CPU seconds of ``gbrain import TREE`` into a new brain (the child's user + system
  time), per checkout, rounds interleaved.

Prints the load average: 2 cores shared with other work; CPU-seconds are the steadier figure.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORDS = ["同期", "同步", "插件", "設定", "笔记", "노트", "동기화", "링크", "検索", "搜索", "データ", "保管庫", "ファイル",
         "核心插件", "プラグイン", "文件夹", "키보드", "设置", "リンク", "属性"]
ENGLISH = ["sync", "plugins", "canvas", "how to link notes", "graph view", "\"command palette\"", "hotkeys", "publish custom domain",
           "backlinks", "daily notes", "templates", "embed files", "vault", "themes css", "search operators", "file recovery",
           "properties", "bases", "web clipper", "mobile app", "attachments folder", "outline", "tag*", "callouts", "math"]
CJK_QUERIES = ["同期", "データ同期", "保管庫", "笔记", "核心插件", "노트", "設定", "猫", "プラグイン 設定", "Obsidianの同期"]


def child(mode: str, checkout: str, db: str, queries: list[str]) -> None:
    sys.path.insert(0, checkout)
    from gbrain.core.brain import Brain
    from gbrain.search.keyword import search

    with Brain.open(db) as brain:
        if mode == "found":
            print(json.dumps({q: sorted(h["slug"] for h in search(brain.conn, q, limit=1000)) for q in queries}, ensure_ascii=False))
        elif mode == "english":
            print(json.dumps({q: search(brain.conn, q, limit=20) for q in queries}, ensure_ascii=False))
        elif mode == "paths":
            print(json.dumps(dict(brain.conn.execute("SELECT slug, path FROM pages").fetchall()), ensure_ascii=False))
        else:
            for q in queries[:5]:
                search(brain.conn, q, limit=20)
            cpu = []
            for q in queries * 3:
                c = time.process_time()
                search(brain.conn, q, limit=20)
                cpu.append(time.process_time() - c)
            print(f"{statistics.median(cpu) * 1000:.2f} {statistics.mean(cpu) * 1000:.2f}")


def run_child(mode: str, checkout: str, db: str, queries: list[str]) -> str:
    out = subprocess.run([sys.executable, __file__, "--child", mode, checkout, db, *queries], cwd="/", capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": checkout})
    if out.returncode:
        raise SystemExit(f"{checkout}: {out.stderr.strip()[-2000:]}")
    return out.stdout


def load() -> tuple:
    return tuple(round(x, 1) for x in os.getloadavg())


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("mode", choices=("found", "english", "cpu", "import"))
    ap.add_argument("queries", nargs="*")
    ap.add_argument("--db")
    ap.add_argument("--tree")
    ap.add_argument("--baseline", action="append", default=[], metavar="CHECKOUT=DB")
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_intermixed_args()
    print(f"{a.mode}; load {load()}")
    if a.mode == "import":
        checkouts = [("this", str(ROOT))] + [(b.split("=", 1)[0], b.split("=", 1)[0]) for b in a.baseline]
        cpu: dict[str, list[float]] = {n: [] for n, _ in checkouts}
        for rnd in range(a.rounds):
            for name, checkout in checkouts:
                tmp = tempfile.mkdtemp(prefix="gbrain-cjk-")
                try:
                    before = resource.getrusage(resource.RUSAGE_CHILDREN)
                    r = subprocess.run([sys.executable, "-m", "gbrain", "--db", os.path.join(tmp, "b.db"), "import", a.tree], cwd="/",
                                       capture_output=True, text=True, env={**os.environ, "PYTHONPATH": checkout})
                    after = resource.getrusage(resource.RUSAGE_CHILDREN)
                    if r.returncode:
                        raise SystemExit(f"{name}: {r.stderr[-2000:]}")
                    size = os.path.getsize(os.path.join(tmp, "b.db"))
                finally:
                    shutil.rmtree(tmp, ignore_errors=True)
                c = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
                cpu[name].append(c)
                print(f"round {rnd + 1}  {name:<30} import CPU {c:6.2f} s  brain.db {size / 1e6:.1f} MB  load {load()}")
        for name, _ in checkouts[1:]:
            print(f"this / {name}: median import CPU {statistics.median(cpu['this']) / statistics.median(cpu[name]):.3f}x")
        return
    runs = [("this", str(ROOT), a.db)] + [(b.split("=", 1)[0], *b.split("=", 1)) for b in a.baseline]
    if a.mode == "found":
        words = a.queries or WORDS
        paths = json.loads(run_child("paths", str(ROOT), a.db, []))
        texts = {slug: (Path(a.tree) / path).read_text(encoding="utf-8", errors="replace") for slug, path in paths.items()}
        found = {name: json.loads(run_child("found", checkout, db, words)) for name, checkout, db in runs}
        print("| query | grep | " + " | ".join(name for name, _, _ in runs[::-1]) + " | missed | extra |")
        print("|---|---|" + "---|" * len(runs) + "---|---|")
        for w in words:
            want = sorted(s for s, path in paths.items() if w in texts[s] or w in path[:-3])
            got = found["this"][w]
            print(f"| {w} | {len(want)} | " + " | ".join(str(len(found[n][w])) for n, _, _ in runs[::-1])
                  + f" | {len(set(want) - set(got))} | {len(set(got) - set(want))} |")
        return
    if a.mode == "english":
        qs = a.queries or ENGLISH
        outs = {name: run_child("english", checkout, db, qs) for name, checkout, db in runs}
        this = json.loads(outs["this"])
        for name, _, _ in runs[1:]:
            other = json.loads(outs[name])
            same = [q for q in qs if json.dumps(this[q], ensure_ascii=False) == json.dumps(other[q], ensure_ascii=False)]
            print(f"this vs {name}: {len(same)} of {len(qs)} queries byte-identical")
            for q in qs:
                if q not in same:
                    a_, b_ = this[q], other[q]
                    order = [h["slug"] for h in a_] == [h["slug"] for h in b_]
                    print(f"  differs: {q!r} (same order: {order}; scores {[h['score'] for h in a_[:3]]} vs {[h['score'] for h in b_[:3]]})")
        return
    qs = a.queries or CJK_QUERIES
    p50: dict[str, list[float]] = {name: [] for name, _, _ in runs}
    for rnd in range(a.rounds):
        for name, checkout, db in runs:
            med, mean = map(float, run_child("cpu", checkout, db, qs).split())
            p50[name].append(med)
            print(f"round {rnd + 1}  {name:<30} p50 {med:6.2f} ms  mean {mean:6.2f} ms")
    for name, _, _ in runs[1:]:
        print(f"this / {name}: p50 {statistics.median(p50['this']) / statistics.median(p50[name]):.2f}x")
    print(f"load {load()}")


if __name__ == "__main__":
    main()
