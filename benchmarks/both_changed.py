"""Trial: pages changed on both sides since the last sync, before and after the three-way merge.

A make_brain tree is imported and synced; then, while no sync runs (sync off, a laptop away, two
machines of a team brain), pages are edited on both sides:

* ``entry/truth``: a person appends a timeline entry to the file (vim); an agent rewrites the
  first line of the compiled truth's ``## State`` paragraph (``Brain.put``, as MCP does);
* ``entry/entry``: both append a different timeline entry at the end (two machines' saves);
* ``tag/body``: the agent tags the page (a frontmatter edit); the person edits an open thread;
* ``overlap``: both rewrite the same ``## State`` line differently (a true conflict).

One ``sync`` then reconciles them. The same edits run twice in this process: "before" with the
merge turned off (``SyncEngine._both_merge`` answers None: every both-changed page is a conflict
copy, as before the change) and "after". Printed: conflict copies, merged pages, pages where an
edit of either side is missing from the page (and the file), the brain's equality with a fresh
import, and the sync round's CPU seconds (whole process tree, ``treecpu``). Targets: no conflict
copy for non-overlapping edits, every overlap still a conflict, nothing missing.

    python benchmarks/both_changed.py --pages 1000 --edits 240 --overlaps 60
    python benchmarks/both_changed.py --engine postgres   # a private pgserver, started here
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KINDS = ("entry/truth", "entry/entry", "tag/body")


def _state_line(text: str) -> str | None:
    """The first line of the ``## State`` paragraph, or None."""
    m = re.search(r"^## State\n\n(.+)$", text, re.M)
    return m.group(1) if m else None


def _thread_line(text: str) -> str | None:
    m = re.search(r"^## Open Threads\n\n(- .+)$", text, re.M)
    return m.group(1) if m else None


def run(tree: Path, db: Path | str, edits: list[tuple[str, str]], merge_on: bool) -> dict:
    """Import and sync ``tree``, make ``edits`` ((relative path, kind)) on both sides, sync once;
    returns the figures."""
    from benchmarks.treecpu import measure
    from gbrain.core.brain import Brain
    from gbrain.sync import engine as engine_mod
    from gbrain.sync.engine import SyncEngine
    from gbrain.sync.verify import fresh_import_differences

    saved = engine_mod.SyncEngine._both_merge
    if not merge_on:
        engine_mod.SyncEngine._both_merge = lambda self, p, f, b: None  # every both-changed page a conflict, as before
    try:
        brain = Brain.open(db)
        eng = SyncEngine(brain, tree)
        eng.bind()
        rep = eng.sync()
        assert rep["exit_code"] == 0, rep["problems"]
        expect: dict[str, list[str]] = {}  # path → lines the page must hold after the sync
        for i, (rel, kind) in enumerate(edits):
            f = tree / rel
            text = f.read_bytes().decode("utf-8")  # exact bytes: read_text would turn CRLF into LF
            slug = rel[:-3]
            entry_d = f"- **2026-12-{1 + i % 28:02d}** | vim — DISK {i} typed by a person\n"
            if kind == "entry/truth":
                line = _state_line(text)
                f.write_bytes((text + entry_d).encode("utf-8"))
                new = f"AGENT {i} rewrote this paragraph."
                brain.put(slug, text.replace(line, new, 1))
                expect[rel] = [entry_d.strip(), new]
            elif kind == "entry/entry":
                entry_b = f"- **2026-11-{1 + i % 28:02d}** | other machine — BRAIN {i} from a teammate\n"
                f.write_bytes((text + entry_d).encode("utf-8"))
                brain.put(slug, text + entry_b)
                expect[rel] = [entry_d.strip(), entry_b.strip()]
            elif kind == "tag/body":
                line = _thread_line(text)
                f.write_bytes(text.replace(line, line + f" (DISK {i} edited)", 1).encode("utf-8"))
                brain.tag(slug, f"merged-{i}")
                expect[rel] = [f"(DISK {i} edited)", f"merged-{i}"]
            else:  # overlap
                line = _state_line(text)
                f.write_bytes(text.replace(line, f"PERSON {i} wrote this.", 1).encode("utf-8"))
                brain.put(slug, text.replace(line, f"AGENT {i} wrote this.", 1))
        cpu, wall, rep = measure(eng.sync)
        copies = [p for p in (str(x.relative_to(tree)) for x in tree.rglob("*.md")) if ".conflict-" in p]
        missing = 0
        for rel, lines in expect.items():
            page = brain.get_text(rel[:-3])
            if (tree / rel).read_bytes().decode("utf-8") != page or not all(ln in page for ln in lines):
                missing += 1
        kinds = dict(edits)
        # the report lists at most verify.MAX_LISTED paths: count the merges in the history
        merged = brain.conn.execute("SELECT count(*) FROM history WHERE operation = ?", (engine_mod.BOTH_MERGED_OP,)).fetchone()[0]
        again = eng.sync()
        out = {
            "cpu": cpu, "wall": wall, "exit": rep["exit_code"], "merged": merged,
            "copies": len(copies),
            "copies_nonoverlap": sum(1 for c in rep["conflicts"] if c.get("copy_path") and kinds.get(c["path"]) != "overlap"),
            "copies_overlap": sum(1 for c in rep["conflicts"] if c.get("copy_path") and kinds.get(c["path"]) == "overlap"),
            "missing": missing,
            "not_merged": sorted((c["path"], kinds.get(c["path"])) for c in rep["conflicts"] if kinds.get(c["path"]) != "overlap"), "fresh_equal": fresh_import_differences(brain) == {}, "second_sync_changes": sum(again["counts"].values()),
        }
        eng.close()
        brain.close()
        return out
    finally:
        engine_mod.SyncEngine._both_merge = saved


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", type=int, default=1000)
    ap.add_argument("--edits", type=int, default=240, help="pages edited on both sides without overlap (split over three kinds)")
    ap.add_argument("--overlaps", type=int, default=60, help="pages edited on both sides at the same line")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--engine", choices=("sqlite", "postgres"), default="sqlite")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    from benchmarks.treecpu import WHAT, become_subreaper

    become_subreaper()
    tmp = Path(tempfile.mkdtemp(prefix="both-changed-"))
    srv = None
    try:
        if args.engine == "postgres":
            import pgserver
            import psycopg

            os.chmod(tmp, 0o755)  # pgserver's own user (when root) must reach its data folder
            srv = pgserver.get_server(tmp / "pg", cleanup_mode="stop")
            admin = srv.get_uri()

        def new_db(name: str) -> Path | str:
            if srv is None:
                return tmp / f"{name}.db"
            with psycopg.connect(admin, autocommit=True) as c:
                c.execute(f"CREATE DATABASE {name}")
            return admin.replace("/postgres?", f"/{name}?", 1)

        src = tmp / "src"
        subprocess.run([sys.executable, str(next(d / "shared" / "tools" / "make_brain.py" for d in ROOT.parents if (d / "shared" / "tools").is_dir())),
                        str(src), "--pages", str(args.pages), "--seed", str(args.seed)], check=True, stdout=subprocess.DEVNULL)
        fit = []
        for p in sorted(src.rglob("*.md")):
            t = p.read_bytes().decode("utf-8", "replace")
            # LF pages only (the edits are written with LF: a CRLF page would change every line)
            if _state_line(t) and _thread_line(t) and "\n## Timeline\n" in t and t.endswith("\n") and "\r" not in t:
                fit.append(str(p.relative_to(src)))
        n = args.edits + args.overlaps
        if len(fit) < n:
            raise SystemExit(f"only {len(fit)} pages fit; lower --edits/--overlaps or raise --pages")
        chosen = fit[:: max(1, len(fit) // n)][:n]
        edits = [(rel, KINDS[i % 3]) for i, rel in enumerate(chosen[: args.edits])] + [(rel, "overlap") for rel in chosen[args.edits:]]
        res = {}
        for name, on in (("before", False), ("after", True)):
            tree = tmp / name
            shutil.copytree(src, tree)
            res[name] = run(tree, new_db(name), edits, on)
        load = os.getloadavg()
        print(f"both_changed: {args.pages} make_brain pages ({len(fit)} with a State paragraph, open threads and a timeline); "
              f"{args.edits} pages edited on both sides without overlap ({args.edits // 3}+ each of {', '.join(KINDS)}), "
              f"{args.overlaps} with an overlap; one sync; {args.engine}; load average {load[0]:.1f}")
        print(WHAT + ("; Postgres server processes count only where they are descendants of this process (pgserver started here)" if srv else ""))
        rows = [
            ("conflict copies, non-overlapping edits", "copies_nonoverlap", "0"),
            ("conflict copies, overlapping edits", "copies_overlap", str(args.overlaps)),
            ("pages merged", "merged", str(args.edits)),
            ("pages missing an edit of either side", "missing", "0"),
            ("sync exit code", "exit", "3 (overlaps)"),
            ("brain equals a fresh import", "fresh_equal", "True"),
            ("changes made by a second sync", "second_sync_changes", "0"),
            ("sync round CPU s", "cpu", ""),
            ("sync round wall s", "wall", ""),
        ]
        print(f"| measure | before | after | target |\n|---|---|---|---|")
        for label, k, target in rows:
            b, a = res["before"][k], res["after"][k]
            fmt = (lambda v: f"{v:.2f}") if isinstance(b, float) else str
            print(f"| {label} | {fmt(b)} | {fmt(a)} | {target} |")
        print(f"after/before CPU: {res['after']['cpu'] / res['before']['cpu']:.2f}x")
        for rel, kind in res["after"]["not_merged"]:
            print(f"not merged ({kind}): {rel}")
        return 0
    finally:
        if srv is not None:
            from gbrain.storage.pg import close_pools

            close_pools()
            srv.cleanup()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
