"""Trial 21, "the user who must forget": a secret pasted into a page, then taken out, must be
removable from everything gbrain stores (history bodies, the search index, embeddings' chunk
texts, free pages of the file), and only by an explicit command of the user's."""
from __future__ import annotations

import os
from pathlib import Path

from gbrain.core import history as h
from gbrain.core.brain import Brain
from gbrain.operations import run

SECRET = "sk-proj-ZQX9k2LmN8pWvR4tYu7"
# what the search index keeps of it: unicode61 folds case and cuts at '-'
TOKEN = SECRET.rsplit("-", 1)[1].lower().encode()

BODY = "---\ntitle: Deploy notes\n---\n# Deploy\n\n" + "Staging runs on the small cluster; deploys go out at noon.\n" * 30


def page(with_secret: bool) -> str:
    return BODY + (f"Use key {SECRET} for the staging API.\n" if with_secret else "Use key (redacted) for the staging API.\n") + "More text.\n" * 20


def bodies_holding(b, needle: bytes) -> list[int]:
    """The ids of the history bodies whose decoded bytes hold ``needle``."""
    return [bid for (bid,) in b.conn.execute("SELECT id FROM history_bodies").fetchall()
            if needle in h.body(b.conn, bid)]


def stored_bytes(db) -> bytes:
    """Every byte the brain's storage holds on disk, case-folded: the SQLite file and its -wal,
    or the Postgres database's files."""
    if str(db).startswith("postgres"):
        import psycopg

        with psycopg.connect(str(db), autocommit=True) as c:
            c.execute("CHECKPOINT")
            ddir = c.execute("SHOW data_directory").fetchone()[0]
            oid = c.execute("SELECT oid FROM pg_database WHERE datname = current_database()").fetchone()[0]
        root = Path(ddir) / "base" / str(oid)
        return b"".join(p.read_bytes() for p in root.iterdir() if p.is_file()).lower()
    out = b""
    for suffix in ("", "-wal"):
        p = Path(str(db) + suffix)
        if p.exists():
            out += p.read_bytes()
    return out.lower()


def test_a_pruned_version_leaves_no_text_behind_in_the_bodies_kept(db_path):
    """history-prune of the version that held a secret: the version kept after it was stored as
    a delta against it, so the pruned body stayed as that delta's base and its bytes (deflated,
    invisible to `strings`) could still be decoded from the file."""
    with Brain.open(db_path) as b:
        b.put("ops/deploy", page(True))
        b.put("ops/deploy", page(False))
        b.put("ops/deploy", page(False) + "A line added later.\n")
        assert bodies_holding(b, SECRET.encode())
        done = run("history-prune", {"slug": "ops/deploy", "keep_last": 1, "keep_days": 0, "apply": True}, brain=b)
        assert done["applied"] and done["versions"] == 2
        assert bodies_holding(b, SECRET.encode()) == []
        # the kept version reads back exactly
        assert b.get_text("ops/deploy") == page(False) + "A line added later.\n"
        assert [v["version"] for v in h.versions(b, "ops/deploy", limit=0)["versions"]] == [3]
        assert run("get", {"slug": "ops/deploy", "version": 3}, brain=b)["content"] == page(False) + "A line added later.\n"
