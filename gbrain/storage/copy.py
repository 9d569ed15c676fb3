"""Copy a whole brain between databases of either engine (``gbrain copy --from A --to B``).

Every table is copied row for row with its ids (pages, files, derived rows, raw data, history (with
its trash: deletions and `trashed` marks) and
its bodies, embeddings and their cache, the sync state and change log, config), so the target is
the same brain: same export tree, same history (``get --version N`` gives the same bytes), same
vectors, same sync binding. History bodies are copied as stored (SQLite's deflate chains or
Postgres' plain bodies, and v24's references to a page by its id, which the copy keeps): :func:`gbrain.core.history.body` reads either encoding on either engine.

The target must be empty (no page, no file, no history). The copy runs in one transaction on the
target: a failure leaves it as it was. Inserting pages and files fires the target's history and
change-log triggers; those rows are replaced by the source's own before commit. The source is
read in one read transaction (:func:`read_snapshot`): a brain that `watch`, an agent or a person
writes meanwhile is copied as it was at one moment, so a copy of a live brain is a backup.
"""
from __future__ import annotations

import contextlib
import os
from typing import Callable, Iterator

from .db import begin_write, commit, keyset_batches, vacuum_after_bulk

#: tables in the order they are filled (a row's parents first); history and sync state after
#: the pages and files whose triggers would otherwise write them
TABLES = [
    "config", "pages", "blob_data", "blob_pieces", "files", "canvas_cards", "nav_entries", "links", "tags", "aliases", "name_folds", "raw_spans", "timeline_entries", "ingest_log",
    "page_embeddings", "embed_state", "embedding_cache",
    "history_bodies", "history", "change_log", "sync_root", "sync_state", "sync_conflicts",
]
#: columns each engine computes itself (Postgres: the tsvectors and a page's tokens, ``search_len``, ``canvas_cards.tsv`` too;
#: pgvector's column is filled from the float32 bytes)
COMPUTED = {"search_tsv", "search_names_tsv", "search_len", "tsv", "vec"}
BATCH = 500
#: rows per round trip of tables with big values (a ``blob_data`` piece is up to 1 MiB; a file row
#: up to 16 MiB): read by id ranges, so neither engine's cursor holds more than this many
SMALL_BATCH = {"blob_data": 4, "files": 8, "history_bodies": 64}


def _columns(conn, table: str) -> list[str]:
    return [r[1] for r in conn.execute(f"PRAGMA table_info({table})").fetchall()]


def _is_pg(conn) -> bool:
    return getattr(conn, "dialect", "sqlite") == "postgres"


def is_empty(conn) -> bool:
    """Whether a brain holds no page, file or history yet (a new one: ``init`` or first open)."""
    return not any(conn.execute(f"SELECT 1 FROM {t} LIMIT 1").fetchone() for t in ("pages", "files", "history"))


@contextlib.contextmanager
def read_snapshot(conn) -> Iterator[None]:
    """Read ``conn`` inside one read transaction: every statement in the block sees the database
    as it was at the block's first read (SQLite WAL: the snapshot of a deferred transaction, taken
    at its first read; Postgres: ``REPEATABLE READ``), whatever other connections commit
    meanwhile, and none of them waits for it. Nothing is written; the transaction is rolled back
    at the end. Inside a transaction already, the block reads in that one."""
    if conn.in_transaction:
        yield
        return
    conn.execute("BEGIN")
    try:
        if _is_pg(conn):
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        else:
            conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()  # the snapshot starts here
        yield
    finally:
        conn.rollback() if _is_pg(conn) else _sqlite_rollback(conn)


def copy_tables(src, dst, on_progress: Callable[[int, int], None] | None = None, keep: str | None = None) -> dict[str, int]:
    """Copy every table of :data:`TABLES` from connection ``src`` to the empty brain on ``dst``
    in one transaction, reading ``src`` as of one moment (:func:`read_snapshot`); returns
    ``{table: rows copied}``. ``keep``: a Postgres source's sync client a SQLite target keeps
    (:func:`sqlite_client`, its default when None). Raises ``ValueError`` when ``dst`` is not
    empty (nothing is written)."""
    from .pg import ensure_hnsw_index, pg_vector_text

    if not is_empty(dst):
        raise ValueError("the target brain is not empty")
    with read_snapshot(src):
        return _copy_tables(src, dst, on_progress, keep)


def _copy_tables(src, dst, on_progress: Callable[[int, int], None] | None, keep: str | None = None) -> dict[str, int]:
    from .pg import ensure_hnsw_index, pg_vector_text

    counts: dict[str, int] = {}
    tables = [t for t in TABLES if _columns(src, t) and _columns(dst, t)]
    total = sum(src.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in tables)
    done = 0
    keep = (keep or sqlite_client(src)) if _is_pg(src) and not _is_pg(dst) else None
    begin_write(dst)
    try:
        for t in tables:
            if t in ("config", "history_bodies", "history", "change_log"):
                dst.execute(f"DELETE FROM {t}")  # defaults of a new brain / rows its triggers wrote
            have = set(_columns(dst, t))
            cols = [c for c in _columns(src, t) if c in have and c not in COMPUTED]
            vec = t == "page_embeddings" and _is_pg(dst)
            names = cols + (["vec"] if vec else [])
            marks = ", ".join(["?"] * len(cols) + (["?::vector"] if vec else []))
            ins = f"INSERT INTO {t}({', '.join(names)}) VALUES ({marks})"
            sel = f"SELECT {', '.join(cols)} FROM {t} ORDER BY 1"
            if keep is not None and t in ("sync_root", "sync_state") and "client" in cols:
                # a SQLite brain syncs with one folder: the Postgres client of this machine
                # (the first one) becomes it, as client '' (and id 1); other machines' bases stay behind
                exprs = ["1" if (c == "id" and t == "sync_root") else ("''" if c == "client" else c) for c in cols]
                sel = f"SELECT {', '.join(exprs)} FROM {t} WHERE client = ? ORDER BY 1"
            paged = t in SMALL_BATCH and cols and cols[0] == "id" and "WHERE client" not in sel
            if paged:  # by id ranges: big values, one small batch in memory at a time
                batches = keyset_batches(src, t, ", ".join(cols), n=SMALL_BATCH[t])
            else:
                batches = _fetched(src.execute(sel, (keep,)) if "WHERE client" in sel else src.execute(sel), BATCH)
            n = 0
            shapes: set[tuple[str, int]] = set()
            for rows in batches:
                if vec:
                    i_emb, i_model, i_dims = cols.index("embedding"), cols.index("model"), cols.index("dims")
                    batch = [tuple(r) + (pg_vector_text(r[i_emb]),) for r in rows]
                    shapes |= {(r[i_model], int(r[i_dims])) for r in rows}
                else:
                    batch = [tuple(r) for r in rows]
                dst.executemany(ins, batch)
                n += len(rows)
                done += len(rows)
                if on_progress:
                    on_progress(done, total)
            for model, dims in shapes:
                ensure_hnsw_index(dst, model, dims)
            counts[t] = n
        if _is_pg(dst):  # identities continue after the copied ids
            for t in TABLES:
                col = "seq" if t == "change_log" else "id"
                if col in _columns(dst, t):
                    dst.execute(f"SELECT setval(pg_get_serial_sequence('{t}', '{col}'), coalesce((SELECT max({col}) FROM {t}), 0) + 1, false)")
        commit(dst)
    except BaseException:
        dst.rollback() if _is_pg(dst) else _sqlite_rollback(dst)
        raise
    vacuum_after_bulk(dst, counts.get("pages", 0), 0)  # a Postgres target's search indexes and planner statistics
    return counts


def _fetched(cur, n: int) -> Iterator[list]:
    """The rows of the cursor ``cur``, ``n`` at a time (``fetchmany``), until none is left."""
    while True:
        rows = cur.fetchmany(n)
        if not rows:
            return
        yield rows


def sqlite_client(src, folder: str | None = None) -> str:
    """The Postgres sync client a copy to SQLite keeps (a SQLite brain syncs with one folder):
    the one of ``folder`` on this machine (``host:/absolute/folder``, :func:`db.sync_client`) when
    given (or the client id ``folder`` names, as ``gbrain sync-clients`` lists it), else the first
    one of this machine, else the first one (``''`` when none). Raises
    :class:`~gbrain.errors.BadInput` naming the brain's folders when ``folder`` is none of them."""
    import socket

    rows = [r[0] for r in src.execute("SELECT client FROM sync_root ORDER BY id").fetchall()] if _columns(src, "sync_root") else []
    if folder:
        from ..errors import BadInput

        if str(folder) in rows:  # (a client id as `gbrain sync-clients` lists it, host:/folder, as sync-forget takes it)
            return str(folder)
        want = f"{socket.gethostname()}:{os.path.abspath(os.path.expanduser(str(folder)))}"
        if want not in rows:
            raise BadInput(f"{folder} is not a folder this brain syncs with on this machine; its folders: "
                           + (", ".join(rows) or "none") + " (nothing was written)")
        return want
    mine = [c for c in rows if c.startswith(socket.gethostname() + ":")]
    return (mine or rows or [""])[0]


def _sqlite_rollback(conn) -> None:
    from .db import rollback

    rollback(conn)
