"""Vectors: embedding pages into ``page_embeddings`` and searching them in memory.

Storage (migration ``_m2_search``): one ``page_embeddings`` row per chunk and model with the
chunk text, its sha256 (``text_hash``), ``dims`` and the unit vector as little-endian float32
bytes; ``embed_state`` remembers which page content each model last embedded, and with which
chunking version (:func:`~.embeddings.chunking_version`, migration ``_m13_chunking``);
``embedding_cache`` keeps the vectors of deleted rows. Before a chunk is sent to a provider its
(model, text_hash) is looked up in both tables, so unchanged text is never embedded twice.

Search (:class:`VectorIndex`): all rows of one model as a float32 matrix, loaded once per
process and kept valid across writes by reading only what changed (rows with a higher id are
appended, deleted ids are masked; ids are AUTOINCREMENT, so they only grow). A query is one
matrix-vector product, ``argpartition`` for the top candidates and the best chunk per page.
"""
from __future__ import annotations

import contextlib
import functools
import re
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable

from .lazynumpy import np

from ..errors import GBrainError, InputRefused, ProviderError
from .chunking import Chunk
from .embeddings import (MINILM_MODEL, OFFLINE_MODEL, EmbeddingModel, chunking_of, chunking_version, length_refusal, model_page_chunks,
                         resolve_model, split_chunks, to_blob)
from ..storage.db import change_stamp, in_parts, is_postgres, same_stamp
from ..storage.filters import PageFilter
# (Postgres: pgvector's helpers in ..storage.pg are imported where a Postgres path needs them: not
# by a SQLite brain's query or stats, tests/test_startup.py)

#: most chunks sent to the provider per write transaction (a killed run loses at most one group)
GROUP_CHUNKS = 512
#: a group holds about this many seconds of the provider's measured work (at least
#: GROUP_MIN chunks): a slow local model (minilm at 2-7 chunks/s on a busy machine) made a
#: group of 512 chunks 1-4 minutes of work that Ctrl-C or a kill threw away
GROUP_SECONDS = 10
GROUP_MIN = 16
#: the first group, before any speed is measured
GROUP_FIRST = 32
_clock = time.perf_counter
#: Unix time (claims' ``expires``: compared across machines) and the wait between two looks at another run's claims
_wall, _sleep = time.time, time.sleep
#: chunks timed by :func:`sample_rate` for `embed`'s estimate
SAMPLE_CHUNKS = 32
#: a sample timed faster than this (a fast model: wordllama's 32 chunks in ~0.08 s, mostly the
#: call's own start) is followed by one SAMPLE_GROW times larger, which alone gives the rate
SAMPLE_SECONDS = 0.5
SAMPLE_GROW = 8
#: retired vectors kept in embedding_cache per model
CACHE_KEEP = 100_000
#: a claim on chunk texts being sent (``embed_claims``, :class:`_Claims`) lapses after this many
#: seconds: what another embedder waits at most for a claimer it cannot see die (a machine cut off
#: the network); a group's provider work, retries of a busy server included, is far shorter
CLAIM_S = 900.0
#: seconds between two looks at the chunks another live embedder is sending
CLAIM_POLL_S = 0.5
#: seconds of waiting for another embedder's chunks before the run says so (once)
CLAIM_NOTE_S = 2.0


# ---------------------------------------------------------------------------
# embedding pages
# ---------------------------------------------------------------------------


@dataclass
class EmbedPlan:
    """What an embed run will do: pages, chunks, how many need the provider, their tokens."""

    model: str
    pages: int = 0
    chunks: int = 0
    to_embed: int = 0
    tokens: int = 0
    #: US$, None for a paid model of unknown price
    cost: float | None = 0.0
    paid: bool = False
    #: chunks split for the model's window by its own tokenizer (``embeddings.window_fit``)
    split: int = 0

    def as_dict(self) -> dict:
        return {"model": self.model, "pages": self.pages, "chunks": self.chunks, "to_embed": self.to_embed, "tokens": self.tokens,
                "estimated_cost_usd": None if self.cost is None else round(self.cost, 6), "paid": self.paid, "split": self.split}


@dataclass
class _PageWork:
    page_id: int
    content_hash: str
    chunks: list[Chunk] = field(default_factory=list)
    #: the text the chunks were made from (title, compiled truth, timeline), checked again when
    #: they are stored: a page moved or re-split meanwhile keeps its content hash but not its text
    source: tuple[str, str, str] | None = None


#: a page ``p`` is stale for a model when its ``embed_state`` row ``s`` (joined on the model) is
#: missing, was made from other page content, or with another chunking version (parameter)
STALE_WHERE = "s.content_hash IS NULL OR s.content_hash != p.content_hash OR s.chunking != ?"


def select_pages(conn: sqlite3.Connection, model: str, mode: str, page_ids: list[int] | None = None, chunking: int | None = None) -> list[sqlite3.Row]:
    """Pages to embed: ``all``, ``stale`` (never embedded with ``model``, changed since, or cut
    with another chunking version than ``chunking``, by default ``model``'s own:
    :func:`~.embeddings.chunking_of` gives a brain's, whose config may set the chunk budget) or
    ``ids`` (the given ``page_ids``). Rows carry id, title, compiled_truth, timeline, content_hash, slug."""
    cols = "p.id, p.title, p.compiled_truth, p.timeline, p.content_hash, p.slug"
    if mode == "ids":
        ph = ",".join("?" * len(page_ids or []))
        return conn.execute(f"SELECT {cols} FROM pages p WHERE p.id IN ({ph}) ORDER BY p.id", list(page_ids or [])).fetchall()
    if mode == "all":
        return conn.execute(f"SELECT {cols} FROM pages p ORDER BY p.id").fetchall()
    if mode == "stale":
        return conn.execute(
            f"SELECT {cols} FROM pages p LEFT JOIN embed_state s ON s.page_id = p.id AND s.model = ? "
            f"WHERE {STALE_WHERE} ORDER BY p.id",
            (model, chunking if chunking is not None else chunking_version(model)),
        ).fetchall()
    raise ValueError(f"unknown page selection {mode!r}")


_STALE: dict[tuple, tuple] = {}


def embedded_counts(conn: sqlite3.Connection, models: tuple[str, ...] = ("minilm", "wordllama")) -> dict[str, int]:
    """Chunks stored per model, for ``models`` (by default the offline ones), by an index-only
    count on ``idx_embeddings_model_id``; when there are none, the pages ``embed_state`` records
    per model (rows written without chunks)."""
    marks = ",".join("?" * len(models))
    counts = {m: n for m, n in conn.execute(f"SELECT model, COUNT(*) FROM page_embeddings WHERE model IN ({marks}) GROUP BY model", models)}
    if not counts:
        counts = {m: n for m, n in conn.execute(f"SELECT model, COUNT(*) FROM embed_state WHERE model IN ({marks}) GROUP BY model", models)}
    return counts


def active_model(conn: sqlite3.Connection, config: dict) -> tuple[EmbeddingModel, str | None]:
    """The provider ``embed``, ``query`` and ``lint`` use for this brain, and a note when it is
    not the configured one: :func:`~.embeddings.resolve_model` with the brain's counts."""
    name = (config.get("embedding_model") or "").strip()
    models = (MINILM_MODEL, OFFLINE_MODEL) + ((name,) if name and name not in (MINILM_MODEL, OFFLINE_MODEL) else ())
    return resolve_model(config, embedded=embedded_counts(conn, models))


def stale_count(conn: sqlite3.Connection, model: str, chunking: int | None = None) -> int:
    """How many pages were never embedded with ``model``, changed since or were cut with another
    chunking than ``chunking`` (default: ``model``'s own) (memoised until the database changes:
    :func:`~gbrain.storage.db.change_stamp`)."""
    chunking = chunking if chunking is not None else chunking_version(model)
    key = (id(conn), model, chunking)
    stamp = change_stamp(conn)
    hit = _STALE.get(key)
    if hit is not None and same_stamp(hit[0], stamp):
        return hit[1]
    if len(_STALE) > 64:
        _STALE.clear()
    n = conn.execute(
        f"SELECT COUNT(*) FROM pages p LEFT JOIN embed_state s ON s.page_id = p.id AND s.model = ? WHERE {STALE_WHERE}",
        (model, chunking),
    ).fetchone()[0]
    _STALE[key] = (stamp, n)
    return n


class DimsChanged(ProviderError):
    """A model's provider answers vectors of another size than the brain stores for it (a local
    server whose model changed under the same name): vectors of two sizes cannot be searched
    together, so ``embed`` refuses to store them (``embed --force`` replaces the model's vectors)
    and ``query`` falls back to keyword search. The message names the fix."""


def dims_changed_message(model: str, new: int, old: int) -> str:
    """The one explanation of a size change (``embed``, ``query``): what happened and the fix."""
    return (f"{model} now answers {new}-dimensional vectors, but this brain's {model} vectors have {old}: "
            f"vectors of two sizes cannot be searched together. Re-embed every page with `gbrain embed --force` "
            f"(it replaces {model}'s vectors once the server's first answer is in), or give the new vectors "
            f"another model name (`gbrain config set embedding_model NAME`) and drop the old ones (`gbrain embed-drop {model}`)")


def stored_dims(conn: sqlite3.Connection, model: str) -> int | None:
    """The vector size of ``model``'s first stored chunk (index ``(model, id)``), None without
    any. ``embed`` keeps one size per model, so the first row speaks for all
    (:func:`mixed_dims` finds brains where that was broken)."""
    r = conn.execute("SELECT dims FROM page_embeddings WHERE model = ? ORDER BY id LIMIT 1", (model,)).fetchone()
    return int(r[0]) if r else None


def mixed_dims(conn: sqlite3.Connection) -> dict[str, dict[int, int]]:
    """``{model: {dims: chunks}}`` for each model whose stored vectors have more than one size
    (``query`` cannot use them; ``embed --force`` repairs). One scan of ``page_embeddings``."""
    by: dict[str, dict[int, int]] = {}
    for m, d, n in conn.execute("SELECT model, dims, COUNT(*) FROM page_embeddings GROUP BY model, dims"):
        by.setdefault(m, {})[int(d)] = int(n)
    return {m: v for m, v in by.items() if len(v) > 1}


def drop_vectors(conn: sqlite3.Connection, model: str) -> dict:
    """Delete every stored vector of ``model``: its chunks, its ``embed_state`` rows and its cached
    vectors, and on Postgres its HNSW indexes (:func:`~gbrain.storage.pg.drop_hnsw_indexes`)
    (call inside a write transaction). Returns ``{"chunks", "pages", "cached"}`` removed."""
    chunks = conn.execute("SELECT COUNT(*) FROM page_embeddings WHERE model = ?", (model,)).fetchone()[0]
    pages = conn.execute("SELECT COUNT(*) FROM embed_state WHERE model = ?", (model,)).fetchone()[0]
    conn.execute("DELETE FROM page_embeddings WHERE model = ?", (model,))
    conn.execute("DELETE FROM embed_state WHERE model = ?", (model,))
    # after the chunks: their delete trigger retires each vector into the cache
    cached = conn.execute("SELECT COUNT(*) FROM embedding_cache WHERE model = ?", (model,)).fetchone()[0]
    conn.execute("DELETE FROM embedding_cache WHERE model = ?", (model,))
    if is_postgres(conn):
        from ..storage.pg import drop_hnsw_indexes

        drop_hnsw_indexes(conn, model)  # with its vectors: a later embed makes it again
    return {"chunks": int(chunks), "pages": int(pages), "cached": max(0, int(cached) - int(chunks))}


_SIZE_WORDS = re.compile(r"too many|batch|inputs|array|at most \d+|maximum\b.*\b(?:items|inputs|elements)|payload too large|request (?:entity )?too large", re.I)


def _size_refusal(e: InputRefused) -> bool:
    """Whether the provider refused a request for how many inputs it held (HTTP 413, or a 400 whose
    message says so), not for one input's text."""
    msg = str(e)
    if length_refusal(msg):
        return False  # one input too long (TEI answers it with HTTP 413): no batch limit
    if getattr(e, "status", None) == 413:
        return True
    return bool(_SIZE_WORDS.search(msg)) and not re.search(r"context|token", msg, re.I)


def _embed_splitting(model: EmbeddingModel, texts: list[str], on_batch: Callable[[int], None] | None) -> tuple[list, dict[int, str]]:
    """``(vectors, refused)``: the vectors of ``texts`` (None for a refused one) and ``{index:
    the server's error}`` for each text the provider refused (:class:`InputRefused`). A refused
    batch is halved until the refused texts stand alone (bisection: about ``2·log2(n)`` more
    requests per refused text); other errors propagate."""
    out: list = [None] * len(texts)
    refused: dict[int, str] = {}

    def go(lo: int, hi: int) -> None:
        try:
            vecs = model.embed_multi(texts[lo:hi], on_batch=on_batch)
        except InputRefused as e:
            if hi - lo == 1:
                refused[lo] = str(e)
                return
            if _size_refusal(e) and model.batch_size > 1:
                # a gateway's inputs-per-request limit (trial 28: bisecting every group doubled the
                # requests, silently): the batch is halved for the rest of the run, said once
                size = max(1, min(model.batch_size, hi - lo) // 2)
                model.batch_size = size
                if hasattr(model, "group_chunks"):
                    model.group_chunks = max(512, size * max(1, getattr(model, "max_in_flight", 1)))
                if not getattr(model, "_size_said", False) and getattr(model, "on_retry", None):
                    model._size_said = True
                    model.on_retry(f"the server refused a batch for its size ({e}); sending at most {size} inputs "
                                   f"per request from now on: `gbrain config set embedding_batch_size {size}` keeps it")
                go(lo, hi)
                return
            mid = (lo + hi) // 2
            go(lo, mid)
            go(mid, hi)
            return
        out[lo:hi] = list(vecs)

    go(0, len(texts))
    return out, refused


def _known_hashes(conn: sqlite3.Connection, model: str) -> set[str]:
    live = {r[0] for r in conn.execute("SELECT DISTINCT text_hash FROM page_embeddings WHERE model = ? AND text_hash != ''", (model,))}
    return live | {r[0] for r in conn.execute("SELECT text_hash FROM embedding_cache WHERE model = ?", (model,))}


def _blobs(conn: sqlite3.Connection, model: str, hashes: list[str]) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    for part, ph in in_parts(hashes):
        for h, b in conn.execute(f"SELECT text_hash, embedding FROM embedding_cache WHERE model = ? AND text_hash IN ({ph})", [model, *part]):
            out[h] = b
        for h, b in conn.execute(f"SELECT text_hash, embedding FROM page_embeddings WHERE model = ? AND text_hash IN ({ph})", [model, *part]):
            out[h] = b
    return out


#: pages between two progress reports of :func:`plan_embed`
PLAN_PROGRESS_PAGES = 200


def plan_embed(conn: sqlite3.Connection, model: EmbeddingModel, rows: list[sqlite3.Row], *, max_tokens: int | None = None, force: bool = False,
               on_progress: Callable[[int, int], None] | None = None) -> tuple[EmbedPlan, list[_PageWork]]:
    """Chunk ``rows`` and count what the provider must embed (texts not cached for the model).
    Chunks are :func:`~.embeddings.model_page_chunks`: at the brain's chunk budget when it set
    one (config ``embedding_chunk_tokens``, the model's ``chunk_tokens``), else
    :func:`~.chunking.model_chunks` at ``max_tokens`` (default: the model's
    ``max_chunk_tokens``, else :data:`~.chunking.MAX_TOKENS`): a model with a short input window
    sees all of each chunk cut at its budget, and also reads each long section's ~500-token
    chunks (the version :func:`~.embeddings.chunking_of` records). ``force``: no text
    counts as cached (``embed --force``). ``on_progress(pages done, pages)``: at the start, every
    :data:`PLAN_PROGRESS_PAGES` pages and at the end (a big brain's plan takes a while: 15 CPU-s
    for obsidian-hub's 6,572 pages with minilm, trial 71)."""
    known = set() if force else _known_hashes(conn, model.model_id)
    if on_progress:
        on_progress(0, len(rows))
    plan = EmbedPlan(model=model.model_id, paid=model.paid)
    work: list[_PageWork] = []
    new: set[str] = set()
    for r in rows:
        chunks = model_page_chunks(model, r["title"], r["compiled_truth"], r["timeline"], max_tokens=max_tokens)
        work.append(_PageWork(r["id"], r["content_hash"], chunks, (r["title"], r["compiled_truth"], r["timeline"])))
        plan.pages += 1
        plan.chunks += len(chunks)
        plan.split += split_chunks(chunks)
        for c in chunks:
            h = c.hash
            if h not in known and h not in new:
                new.add(h)
                plan.to_embed += 1
                plan.tokens += c.tokens
        if on_progress and (plan.pages % PLAN_PROGRESS_PAGES == 0 or plan.pages == len(rows)):
            on_progress(plan.pages, len(rows))
    plan.cost = model.estimate_cost(plan.tokens)
    return plan, work


#: seconds a process may seem to have started after a claim of its own (:func:`_started` is
#: whole seconds of boot time plus clock ticks; the boot time read moves with clock adjustments)
_START_SLACK_S = 2.0


@functools.lru_cache(maxsize=1)
def _boot_time() -> float | None:
    """This host's boot time, Unix seconds (Linux ``/proc/stat`` ``btime``); None elsewhere."""
    try:
        with open("/proc/stat", "rb") as f:
            for line in f:
                if line.startswith(b"btime "):
                    return float(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return None


def _started(pid: int) -> float | None:
    """When process ``pid`` of this host started, Unix seconds (Linux: ``/proc/PID/stat`` field 22,
    clock ticks after boot, proc(5)); None when unknown (no ``/proc``, the process gone)."""
    import os

    boot = _boot_time()
    if boot is None:
        return None
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()  # (field 2, the name, may hold blanks and ')')
        return boot + int(fields[19]) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


#: the owners (``host:pid:token``) of this process's embed runs under way (:class:`_Claims`)
_RUNS: set[str] = set()


class _Claims:
    """One embed run's claim on the chunk texts it is sending (``embed_claims``, SQLite v85 /
    Postgres v93), so that two embedders on one brain (two teammates' `embed --stale`, a watch's
    embedder and a manual run) send each text to the provider once. Before a group's texts are
    sent, :meth:`busy` and :meth:`hold` run in one write transaction (every writer's lock: SQLite's
    ``BEGIN IMMEDIATE``, Postgres' advisory ``WRITE_LOCK``): a page with a text another live run
    holds waits (its vector comes when that run stores it), the group's other texts are claimed;
    the claim is given back (:meth:`give_back`) in the transaction that stores their vectors, and
    one left at the run's end by :meth:`give_back_all`. A run holds one row at a time (its group
    in flight: ``hashes``, the texts' hashes space-separated), so a lone embedder writes and
    deletes one row per group and reads an empty table.

    A claim is another run's while it has not lapsed (``expires``, :data:`CLAIM_S`) and its owner
    lives: on Postgres its server backend (``pg_backend_pid()``, in ``pg_stat_activity``: a killed
    process's backend ends with its connection, on any machine); on SQLite its process on this host
    (``os.kill(pid, 0)``, and started before the claim was made: a pid given again is another
    process's; another host's is trusted until it lapses); one of this process's own pid
    only while a run of this process holds it (:data:`_RUNS`). A dead owner's claim is
    dropped by the next :meth:`busy`: nothing it claimed is lost, it is sent once more."""

    def __init__(self, conn: sqlite3.Connection, model: str):
        import os
        import secrets
        import socket

        self.conn = conn
        self.model = model
        self.host = socket.gethostname()
        self.owner = f"{self.host}:{os.getpid()}:{secrets.token_hex(6)}"
        self.pg = is_postgres(conn)
        self.held = False
        _RUNS.add(self.owner)

    def busy(self, hashes: Iterable[str]) -> set[str]:
        """Of ``hashes``, those another live run holds now; the claims of dead runs are dropped
        (call in the write transaction that then calls :meth:`hold`)."""
        rows = [tuple(r) for r in self.conn.execute(
            "SELECT owner, backend, expires, hashes FROM embed_claims WHERE model = ? AND owner != ?", (self.model, self.owner))]
        if not rows:
            return set()
        now = _wall()
        live_pids: set[int] = set()
        pids = sorted({int(r[1]) for r in rows if r[1]})
        if self.pg and pids:
            for part, ph in in_parts(pids):
                live_pids |= {int(p) for (p,) in self.conn.execute(f"SELECT pid FROM pg_stat_activity WHERE pid IN ({ph})", part)}
        out: set[str] = set()
        want = set(hashes)
        for owner, backend, expires, held in rows:
            if self.pg and backend:  # its server backend decides (any machine: a host name and pid may repeat)
                lives = float(expires) > now and int(backend) in live_pids
            else:
                mine = self._of_this_process(owner)
                lives = float(expires) > now and (mine if mine is not None else self._lives(owner, float(expires) - CLAIM_S))
            if lives:
                out |= want.intersection(held.split())
            else:
                self.conn.execute("DELETE FROM embed_claims WHERE owner = ?", (owner,))
        return out

    def _of_this_process(self, owner: str) -> bool | None:
        """For a claim of this host and this process's pid: whether a run of this process holds it
        (:data:`_RUNS`; one that could not give it back at its end, or a process before this one
        with the same pid, a container restarted as pid 1, holds nothing); None for another
        process's."""
        import os

        parts = owner.rsplit(":", 2)
        if len(parts) != 3 or parts[0] != self.host or parts[1] != str(os.getpid()):
            return None
        return owner in _RUNS

    def _lives(self, owner: str, made: float) -> bool:
        """Whether the process of ``owner`` (``host:pid:token``), whose claim was last made at Unix
        time ``made``, may live: False only for a process of this host that is gone, or whose pid
        a process started since holds (:func:`_started`: the claimer died, its pid given again)."""
        import os

        parts = owner.rsplit(":", 2)
        if len(parts) != 3 or parts[0] != self.host or not parts[1].isdigit():
            return True
        try:
            os.kill(int(parts[1]), 0)
        except ProcessLookupError:
            return False
        except OSError:
            pass  # (another user's: it lives, unless started after the claim)
        started = _started(int(parts[1]))
        return started is None or started <= made + _START_SLACK_S

    def hold(self, hashes: Iterable[str]) -> None:
        """Claim ``hashes`` for this run in place of what it held (call in the write transaction
        of :meth:`busy`)."""
        hashes = sorted(set(hashes))
        if not hashes:
            return
        backend = "pg_backend_pid()" if self.pg else "0"
        self.conn.execute(
            f"INSERT INTO embed_claims(owner, model, backend, expires, hashes) VALUES (?, ?, {backend}, ?, ?) "
            "ON CONFLICT(owner) DO UPDATE SET model = excluded.model, backend = excluded.backend, expires = excluded.expires, hashes = excluded.hashes",
            (self.owner, self.model, _wall() + CLAIM_S, " ".join(hashes)))
        self.held = True

    def give_back(self) -> None:
        """Drop this run's claim (in the transaction storing its texts' vectors; call
        :meth:`given_back` once that transaction committed: until then :meth:`give_back_all` gives
        it back again, a store rolled back keeps no claim)."""
        if self.held:
            self.conn.execute("DELETE FROM embed_claims WHERE owner = ?", (self.owner,))

    def given_back(self) -> None:
        """The transaction of :meth:`give_back` committed: this run holds nothing."""
        self.held = False

    def give_back_all(self, tx: Callable) -> None:
        """Drop the claim this run still holds (its end, an error, a cancel), in a transaction of
        ``tx``; a failure here is left to the owner check of the next run's :meth:`busy` (this
        run is over: to this process's later runs its claim is dead at once)."""
        try:
            if self.held:
                with tx():
                    self.give_back()
                self.given_back()
        except Exception:
            pass
        finally:
            _RUNS.discard(self.owner)


def _model_held(fn: Callable) -> Callable:
    """``fn(conn, model, ...)`` run inside ``model.held()`` (:meth:`EmbeddingModel.held`: minilm's
    BLAS limit set once for the whole run, not restored between its groups' encodes)."""
    @functools.wraps(fn)
    def run(conn, model, *args, **kwargs):
        held = getattr(model, "held", None)  # (a test's stand-in model may have none)
        with held() if held is not None else contextlib.nullcontext():
            return fn(conn, model, *args, **kwargs)

    return run


@_model_held
def embed_pages(
    conn: sqlite3.Connection,
    model: EmbeddingModel,
    work: list[_PageWork],
    *,
    on_progress: Callable[[int, int], None] | None = None,
    transaction: Callable | None = None,
    check_stop: Callable[[], None] | None = None,
    force: bool = False,
    until: float | None = None,
    sampled: set[str] | None = None,
) -> dict:
    """Embed the chunks of ``work`` and store them in groups, one write transaction per group
    (so a killed run keeps every finished group and ``embed --stale`` continues after it). A
    group holds about :data:`GROUP_SECONDS` of the provider's work at the speed the last group
    measured (the first :data:`GROUP_FIRST` chunks; at least :data:`GROUP_MIN`, at most
    :data:`GROUP_CHUNKS` or the provider's ``group_chunks``, when larger, so several requests
    can be in flight).

    For each page: chunks whose (model, hash) is known reuse the stored vector; the others go
    to the provider (each distinct text once); the page's rows of this model are replaced only
    when its chunk list changed; ``embed_state`` records the page content embedded. A page whose
    text changed since it was chunked is skipped (it stays stale for the next run). Returns
    ``{pages, chunks, embedded, cached, repeated}`` (``repeated``: further copies of a text
    embedded once in this run; ``stored``: the ids of the pages stored; ``changed``: how many pages
    were not, written or deleted since their chunks were cut, ``changed_ids`` their ids). Provider errors propagate (:class:`GBrainError`) after the
    finished groups are committed. ``check_stop()`` is called after each provider batch and
    each group and may raise to stop the run (a cancelled MCP call); finished groups stay.
    ``until``: a time on :func:`_clock`; the run stops after the first group that ends past it
    (an agent's call within its client's request timeout) and ``unreached`` counts the pages of
    ``work`` it did not come to (no such key when it finished). ``sampled``: the hashes of texts this
    run sent before (:func:`sample_rate`'s, kept in the cache): counted as new, not from cache.

    A chunk the provider refuses (:class:`~gbrain.errors.InputRefused`: too long for a local
    server's context) is found by halving its batch; its page is skipped (it stays stale) and
    listed in ``skipped`` (``[{page_id, slug, chunk, heading, tokens, error}]``: ``tokens`` the chunk's estimate); the rest is stored.

    One size per model: vectors of another size than the model's stored ones raise
    :class:`DimsChanged` before anything of the group is stored. ``force``: every chunk goes
    to the provider (no cached vector reused), every page's rows are rewritten, and when the
    first answer has another size than the stored vectors, the model's old vectors are dropped
    in the first group's transaction (``dropped``: chunks removed).
    """
    mid = model.model_id
    total = sum(len(w.chunks) for w in work)
    done = 0
    stats = {"pages": 0, "chunks": 0, "embedded": 0, "cached": 0, "repeated": 0, "skipped": [], "dropped": 0, "changed": 0, "split": 0, "stored": [],
             "changed_ids": []}
    reached = 0
    tx = transaction or _plain_tx(conn)
    ref = stored_dims(conn, mid)
    # Postgres: look for the model's HNSW index again in this run (another process's
    # embed-drop may have dropped it since this connection made it)
    if is_postgres(conn):
        from ..storage.pg import forget_hnsw_indexes

        forget_hnsw_indexes(conn)
    said = [-1]  # the count last said: each is said once, rising (MCP wants progress to grow)

    def report(n: int) -> None:
        if on_progress and n > said[0]:
            said[0] = n
            on_progress(n, total)

    report(0)
    cap = max(GROUP_CHUNKS, getattr(model, "group_chunks", 0) or 0)
    size = [min(cap, GROUP_FIRST)]
    claims = None if force else _Claims(conn, mid)  # (force: every text is sent again, by design)
    pending: list[_PageWork] = list(work)
    waiting: list[_PageWork] = []  # pages with a text another live embedder is sending
    waited, said_wait = None, False
    try:
        while pending or waiting:
            if not pending:  # each page left waits for a text another run sends: its vector comes when that run stores it
                if until is not None and _clock() >= until:
                    stats["unreached"] = len(work) - reached
                    break
                waited = waited if waited is not None else _clock()
                say = getattr(model, "on_retry", None)  # (embed's notes: its stderr; watch's log)
                if say and not said_wait and _clock() - waited >= CLAIM_NOTE_S:
                    said_wait = True
                    say(f"{len(waiting):,} page(s) wait for chunks another embed run is sending now: their vectors are reused once it stores them")
                _sleep(CLAIM_POLL_S)
                if check_stop:
                    check_stop()
                pending, waiting = waiting, []
            group, pending = _next_group(pending, size[0])
            t0 = _clock()
            hashes = sorted({c.hash for w in group for c in w.chunks})
            have = {} if force else _blobs(conn, mid, hashes)
            todo: dict[str, str] = {}
            for w in group:
                for c in w.chunks:
                    if c.hash not in have and c.hash not in todo:
                        todo[c.hash] = c.text
            if todo and claims is not None:
                # claim the texts to send, in one write transaction with every other embedder's claims
                with tx():
                    have.update(_blobs(conn, mid, list(todo)))  # stored by another run meanwhile
                    todo = {h: t for h, t in todo.items() if h not in have}
                    busy = claims.busy(todo)
                    if busy:  # (a chunk's hash is a sha256 of its text: computed again only here)
                        keys = [{c.hash for c in w.chunks} for w in group]
                        waiting += [w for w, k in zip(group, keys) if k & busy]
                        group = [w for w, k in zip(group, keys) if not k & busy]
                        left = set().union(*(k for k in keys if not k & busy))
                        hashes = sorted(left)
                        todo = {h: t for h, t in todo.items() if h in left}
                    claims.hold(todo)
                if not group:
                    continue
            fresh: dict[str, bytes] = {}
            if check_stop:
                check_stop()
            if todo:
                texts = list(todo.values())
                group_n = sum(len(w.chunks) for w in group)
                sent = [0]

                def on_batch(n: int) -> None:
                    if check_stop:
                        check_stop()
                    sent[0] = min(len(texts), sent[0] + n)  # a halved batch sends some texts again
                    # chunks of the group, in proportion to the texts sent so far; the group's end
                    # is said once it is stored (below), not twice
                    if sent[0] < len(texts):
                        report(done + group_n * sent[0] // len(texts))

                vecs, refused = _embed_splitting(model, texts, on_batch)
                keys = list(todo.keys())
                bad = {keys[i]: err for i, err in refused.items()}
                fresh = {h: to_blob(v) for h, v in zip(keys, vecs) if v is not None}
            else:
                bad = {}
            have.update(fresh)
            sizes = {len(b) // 4 for b in have.values()}
            drop_first = False
            if sizes and (len(sizes) > 1 or (ref is not None and sizes != {ref})):
                new_size = next(iter({len(b) // 4 for b in fresh.values()} or sizes - {ref} or sizes))
                if not (force and len(sizes) == 1):
                    raise DimsChanged(dims_changed_message(mid, new_size, ref if ref is not None else min(sizes - {new_size} or sizes)))
                drop_first = True
            kept = [w for w in group if not any(c.hash in bad for c in w.chunks)]
            for w in group:
                if len(kept) == len(group):
                    break
                for c in w.chunks:
                    if c.hash in bad:
                        stats["skipped"].append({"page_id": w.page_id, "chunk": c.index, "heading": c.heading or "", "tokens": c.tokens,
                                                 "error": bad[c.hash]})
                        break
            with tx():
                if drop_first:
                    stats["dropped"] += drop_vectors(conn, mid)["chunks"]
                    ref = next(iter(sizes))
                stored_w = []
                for w in kept:
                    if _store_page(conn, mid, w, have, replace=force, chunking=chunking_of(model)):
                        stored_w.append(w)
                        stats["stored"].append(w.page_id)
                        stats["pages"] += 1
                        stats["chunks"] += len(w.chunks)
                        stats["split"] += split_chunks(w.chunks)
                    else:  # deleted or changed since its chunks were cut: it stays to embed
                        stats["changed"] += 1
                        stats["changed_ids"].append(w.page_id)
                if hashes:
                    for part, marks in in_parts(hashes):
                        conn.execute(f"DELETE FROM embedding_cache WHERE model = ? AND text_hash IN ({marks})", [mid, *part])
                if claims is not None:
                    claims.give_back()  # stored now (a refused text: free again)
                # the vectors a skipped page's other chunks got (sent and paid for, or from the cache)
                # wait in the cache for its next run: only the refused text goes to the server again
                stored = {c.hash for w in stored_w for c in w.chunks}
                kept_ids = {id(w) for w in stored_w}
                spare = {c.hash for w in group if id(w) not in kept_ids for c in w.chunks if c.hash in have and c.hash not in stored}
                if spare and not drop_first:
                    conn.executemany(
                        "INSERT OR IGNORE INTO embedding_cache(model, text_hash, dims, embedding) VALUES (?, ?, ?, ?)",
                        [(mid, h, len(have[h]) // 4, have[h]) for h in sorted(spare)],
                    )
            if claims is not None:
                claims.given_back()
            # counted over the chunks stored: a skipped page's are neither new nor from cache
            used = [c.hash for w in stored_w for c in w.chunks]
            sent_now = set(fresh)
            if sampled:  # the time sample's texts, sent by this run: new (once), not from cache (trial 39)
                took = {h for h in used if h in sampled and h not in sent_now}
                sampled -= took
                sent_now |= took
            new = len({h for h in used if h in sent_now})
            stats["embedded"] += new
            n = sum(len(w.chunks) for w in group)
            # the next group: about GROUP_SECONDS of work at this group's speed (all cached: the cap)
            dt = _clock() - t0
            size[0] = cap if not todo or dt <= 0 else min(cap, max(GROUP_MIN, int(n * GROUP_SECONDS / dt)))
            # a text repeated within the run is embedded once: its other copies are not "from cache"
            repeated = sum(1 for h in used if h in sent_now) - new
            stats["repeated"] += repeated
            stats["cached"] += len(used) - new - repeated
            done += n
            if ref is None and sizes:
                ref = next(iter(sizes))
            report(done)
            reached += len(group)
            if until is not None and reached < len(work) and _clock() >= until:
                stats["unreached"] = len(work) - reached
                break
    finally:
        if claims is not None:
            claims.give_back_all(tx)
    prune_cache(conn, mid, tx)
    for sk in stats["skipped"]:
        r = conn.execute("SELECT slug FROM pages WHERE id = ?", (sk["page_id"],)).fetchone()
        sk["slug"] = r[0] if r else None
    return stats


def sample_rate(conn: sqlite3.Connection, model: EmbeddingModel, work: list[_PageWork], n: int | None = None, transaction: Callable | None = None,
                sent: set[str] | None = None) -> tuple[float, int]:
    """Time the embedding of up to ``n`` (:data:`SAMPLE_CHUNKS`) chunks of ``work`` that need the
    provider, spread over the run, on this machine now, after one more chunk embedded untimed to
    warm the model up (its load is paid once per run, not per chunk); a sample that took less than
    :data:`SAMPLE_SECONDS` (a fast model, whose call start outweighs 32 chunks: wordllama's
    estimate said 28 s for a 6.5 s run) is then followed by one :data:`SAMPLE_GROW` times larger,
    whose time alone is the rate. ``(approx tokens per second, chunks timed)``; ``(0.0, 0)``
    when nothing needs embedding, or when the provider refused a chunk of the sample
    (:class:`~gbrain.errors.InputRefused`: the run bisects and skips it). The vectors are kept in
    ``embedding_cache``, so the run that follows reuses them (nothing is embedded twice); their
    hashes are added to ``sent`` (give it to :func:`embed_pages` as ``sampled``: counted as new). Other
    provider errors propagate."""
    n = n or SAMPLE_CHUNKS
    known = _known_hashes(conn, model.model_id)
    todo: dict[str, object] = {}
    for w in work:
        for c in w.chunks:
            if c.hash not in known and c.hash not in todo:
                todo[c.hash] = c
    if not todo:
        return 0.0, 0
    pool = list(todo.values())
    step = max(1, len(pool) // (n + 1))
    tx = transaction or _plain_tx(conn)
    # the sample's texts are claimed as a run's group is (another embedder sends each once)
    claims = _Claims(conn, model.model_id)
    held: list = []

    def claim(cands: list) -> list:
        """Of ``cands``, those neither stored nor held by another run now, claimed beside ``held``."""
        with tx():
            have = _blobs(conn, model.model_id, [c.hash for c in cands])
            busy = claims.busy([c.hash for c in cands if c.hash not in have])
            ok = [c for c in cands if c.hash not in have and c.hash not in busy]
            claims.hold([c.hash for c in held + ok])
        held.extend(ok)
        return ok

    try:
        sample = claim(pool[::step][: n + 1])
        if not sample:
            return 0.0, 0
        # the first chunk warms the model up untimed (a local model loads its weights on first use:
        # wordllama's load made the estimate 10-16x too long); the others are timed (a sample of one
        # chunk is timed with the load, all there is)
        vecs: list = []
        done: list = []
        timed = sample[1:] or sample
        try:
            if len(sample) > 1:
                vecs += list(model.embed_multi([sample[0].text]))
                done.append(sample[0])
            t = time.perf_counter()
            vecs += list(model.embed_multi([c.text for c in timed]))
            done += timed
            dt = max(time.perf_counter() - t, 1e-6)
            if dt < SAMPLE_SECONDS:
                taken = {c.hash for c in done}
                rest = [c for c in pool if c.hash not in taken]
                more = rest[:: max(1, len(rest) // (n * SAMPLE_GROW))][: n * SAMPLE_GROW]
                if len(more) > len(timed):
                    more = claim(more)
                if len(more) > len(timed):  # a larger sample there is: it alone is timed
                    t = time.perf_counter()
                    vecs += list(model.embed_multi([c.text for c in more]))
                    dt = max(time.perf_counter() - t, 1e-6)
                    done += more
                    timed = more
        except InputRefused:
            return 0.0, 0  # a chunk of the sample refused: no estimate; the run finds and skips it
        with tx():
            conn.executemany(
                "INSERT OR IGNORE INTO embedding_cache(model, text_hash, dims, embedding) VALUES (?, ?, ?, ?)",
                [(model.model_id, c.hash, len(v), to_blob(v)) for c, v in zip(done, vecs)],
            )
            claims.give_back()
        claims.given_back()
    finally:
        claims.give_back_all(tx)
    if sent is not None:
        sent.update(c.hash for c in done)
    return sum(c.tokens for c in timed) / dt, len(timed)


def _store_page(conn: sqlite3.Connection, model: str, w: _PageWork, blobs: dict[str, bytes], replace: bool = False, chunking: int | None = None) -> bool:
    """Store page ``w``'s vectors; False (nothing stored) when it was deleted or changed since its chunks were cut."""
    now = conn.execute("SELECT title, compiled_truth, timeline, content_hash FROM pages WHERE id = ?", (w.page_id,)).fetchone()
    if not now:
        return False  # deleted while we were embedding
    if now[3] != w.content_hash or (w.source is not None and tuple(now[:3]) != w.source):
        return False  # changed while we were embedding (a move can change the title alone): stays stale
    cur = conn.execute("SELECT chunk_index, text_hash FROM page_embeddings WHERE page_id = ? AND model = ? ORDER BY chunk_index", (w.page_id, model)).fetchall()
    if replace or [(r[0], r[1]) for r in cur] != [(c.index, c.hash) for c in w.chunks]:
        conn.execute("DELETE FROM page_embeddings WHERE page_id = ? AND model = ?", (w.page_id, model))
        if is_postgres(conn):  # the same vector for pgvector too
            from ..storage.pg import ensure_hnsw_index, pg_vector_text

            conn.executemany(
                "INSERT INTO page_embeddings(page_id, chunk_index, chunk_text, embedding, model, text_hash, dims, vec) VALUES (?, ?, ?, ?, ?, ?, ?, ?::vector)",
                [(w.page_id, c.index, c.text, blobs[c.hash], model, c.hash, len(blobs[c.hash]) // 4, pg_vector_text(blobs[c.hash])) for c in w.chunks],
            )
            for d in {len(blobs[c.hash]) // 4 for c in w.chunks}:
                ensure_hnsw_index(conn, model, d)
        else:
            conn.executemany(
                "INSERT INTO page_embeddings(page_id, chunk_index, chunk_text, embedding, model, text_hash, dims) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(w.page_id, c.index, c.text, blobs[c.hash], model, c.hash, len(blobs[c.hash]) // 4) for c in w.chunks],
            )
    conn.execute(
        "INSERT INTO embed_state(page_id, model, content_hash, chunks, chunking, window_splits, embedded_at) VALUES (?, ?, ?, ?, ?, ?, strftime('%Y-%m-%dT%H:%M:%SZ', 'now')) "
        "ON CONFLICT(page_id, model) DO UPDATE SET content_hash = excluded.content_hash, chunks = excluded.chunks, chunking = excluded.chunking, "
        "window_splits = excluded.window_splits, embedded_at = excluded.embedded_at",
        (w.page_id, model, w.content_hash, len(w.chunks), chunking if chunking is not None else chunking_version(model), split_chunks(w.chunks)),
    )
    return True


def prune_cache(conn: sqlite3.Connection, model: str, tx: Callable | None = None, keep: int = CACHE_KEEP) -> int:
    """Drop the oldest retired vectors of ``model`` beyond ``keep``; returns how many."""
    n = conn.execute("SELECT COUNT(*) FROM embedding_cache WHERE model = ?", (model,)).fetchone()[0]
    if n <= keep:
        return 0
    with (tx or _plain_tx(conn))():
        conn.execute(
            "DELETE FROM embedding_cache WHERE id IN (SELECT id FROM embedding_cache WHERE model = ? ORDER BY id LIMIT ?)",
            (model, n - keep),
        )
    return n - keep


def _next_group(pages: list[_PageWork], size: int) -> tuple[list[_PageWork], list[_PageWork]]:
    """``(group, rest)``: the first pages of ``pages`` up to the one reaching ``size`` chunks (all
    of them when they hold fewer) and the pages after: :func:`embed_pages`' next group (``size``
    read as each group is cut: the speed of the group before sets it)."""
    n = 0
    for i, w in enumerate(pages):
        n += len(w.chunks)
        if n >= size:
            return pages[: i + 1], pages[i + 1 :]
    return pages, []


def _plain_tx(conn: sqlite3.Connection):
    import contextlib

    @contextlib.contextmanager
    def tx():
        from ..storage.db import begin_write, commit, rollback

        begin_write(conn)
        try:
            yield
        except BaseException:
            rollback(conn)
            raise
        commit(conn)

    return tx


# ---------------------------------------------------------------------------
# the in-memory index
# ---------------------------------------------------------------------------


#: rows read per block while loading an index (:meth:`VectorIndex._load_new`)
LOAD_BLOCK = 2048


class VectorIndex:
    """All vectors of one model in one brain, as a float32 matrix (rows = chunks).

    :meth:`get` returns the process-wide instance for (database file, model) and brings it up
    to date (:meth:`refresh`): a ``COUNT``/``MAX(id)`` probe; new rows (id above the highest
    loaded) are appended to a buffer that grows by doubling; when rows were deleted, the live
    ids are read and the dead rows masked. Rows whose vector length differs from the first
    row's are skipped. Thread-safe.
    """

    _instances: dict[tuple[str, str], "VectorIndex"] = {}
    _glock = threading.Lock()

    def __init__(self, model: str):
        self.model = model
        self.dims = 0
        self.n = 0
        self.max_id = 0
        self.count = 0
        self.ids = np.zeros(0, dtype=np.int64)
        self.page_ids = np.zeros(0, dtype=np.int64)
        self.alive = np.zeros(0, dtype=bool)
        self.mat = np.zeros((0, 0), dtype=np.float32)
        self._lock = threading.Lock()
        self._stamp: tuple | None = None

    @classmethod
    def get(cls, conn: sqlite3.Connection, db_key: str, model: str) -> "VectorIndex":
        with cls._glock:
            idx = cls._instances.get((db_key, model))
            if idx is None:
                idx = cls._instances[(db_key, model)] = cls(model)
        idx.refresh(conn)
        return idx

    @classmethod
    def forget(cls) -> None:
        """Drop every loaded index (tests, benchmarks)."""
        with cls._glock:
            cls._instances.clear()

    @property
    def size(self) -> int:
        """Live rows."""
        return int(self.alive[: self.n].sum())

    def nbytes(self) -> int:
        return int(self.mat.nbytes + self.ids.nbytes + self.page_ids.nbytes + self.alive.nbytes)

    def refresh(self, conn: sqlite3.Connection) -> None:
        """Bring the matrix up to date with the database (see the class docstring).

        Skipped without a query when this connection has written nothing and no other
        connection has committed anything since the last refresh, nor a migration run
        (:func:`~gbrain.storage.db.change_stamp`)."""
        with self._lock:
            # the connection itself (not its id, which a later connection could reuse) is kept
            stamp = change_stamp(conn)
            if same_stamp(self._stamp, stamp):
                return
            count, max_id = conn.execute("SELECT COUNT(*), COALESCE(MAX(id), 0) FROM page_embeddings WHERE model = ?", (self.model,)).fetchone()
            if count == self.count and max_id == self.max_id:
                self._stamp = stamp
                return
            if self.dims and max_id > self.max_id:
                d = stored_dims(conn, self.model)
                if d is not None and d != self.dims:  # the model's vectors were replaced by another size (embed --force)
                    self.__init__(self.model)
            if max_id > self.max_id:
                self._load_new(conn)
                self.max_id = max_id
            if int(self.alive[: self.n].sum()) != count:
                live = np.fromiter((r[0] for r in conn.execute("SELECT id FROM page_embeddings WHERE model = ?", (self.model,))), dtype=np.int64)
                self.alive[: self.n] &= np.isin(self.ids[: self.n], live)
                if self.n and self.size < self.n * 0.75:
                    self._compact()
            self.count = count
            self._stamp = stamp

    def _load_new(self, conn: sqlite3.Connection) -> None:
        """Append the rows with an id above ``max_id``, written straight into the buffer.
        Reads through a memory map (``PRAGMA mmap_size``) while loading: large blobs span
        overflow pages, and mapped reads avoid copying each page."""
        new = conn.execute("SELECT COUNT(*) FROM page_embeddings WHERE model = ? AND id > ?", (self.model, self.max_id)).fetchone()[0]
        if not new:
            return
        old_mmap = conn.execute("PRAGMA mmap_size").fetchone()[0]
        conn.execute("PRAGMA mmap_size = 4294967296")
        try:
            rows = conn.execute("SELECT id, page_id, embedding FROM page_embeddings WHERE model = ? AND id > ? ORDER BY id", (self.model, self.max_id))
            block = rows.fetchmany(LOAD_BLOCK)
            if not block:
                return
            if not self.dims:
                self.dims = len(block[0][2]) // 4
                self.mat = np.zeros((0, self.dims), dtype=np.float32)
            self._reserve(self.n + new)
            i = self.n
            end = self.n + new
            mat, ids, pids, d4 = self.mat, self.ids, self.page_ids, self.dims * 4
            while block and i < end:
                # a block of rows at once: one join and one copy, no numpy call per row (58,000 rows:
                # ~0.11 CPU-s, was ~0.18 with one frombuffer per row; benchmarks/query_latency.py --cold)
                block = block[: end - i]  # (rows added meanwhile wait for the next refresh)
                rid, pid, blobs = zip(*block)
                if set(map(len, blobs)) != {d4}:  # another model's shape under the same name: skipped
                    block = [r for r in block if len(r[2]) == d4]
                    rid, pid, blobs = zip(*block) if block else ((), (), ())
                data = b"".join(blobs)
                k = len(block)
                if k:
                    mat[i : i + k] = np.frombuffer(data, dtype="<f4").reshape(k, self.dims)
                    ids[i : i + k] = rid
                    pids[i : i + k] = pid
                    i += k
                block = rows.fetchmany(LOAD_BLOCK)
            self.alive[self.n : i] = True
            self.n = i
        finally:
            conn.execute(f"PRAGMA mmap_size = {int(old_mmap)}")

    def _reserve(self, need: int) -> None:
        if need <= self.mat.shape[0]:
            return
        cap = max(need, self.mat.shape[0] * 2 if self.n else need)
        self.mat = _grow(self.mat, cap, self.n)
        self.ids = _grow(self.ids, cap, self.n)
        self.page_ids = _grow(self.page_ids, cap, self.n)
        self.alive = _grow(self.alive, cap, self.n)

    def _compact(self) -> None:
        keep = np.flatnonzero(self.alive[: self.n])
        self._stamp = None
        self.mat = np.ascontiguousarray(self.mat[keep])
        self.ids = self.ids[keep]
        self.page_ids = self.page_ids[keep]
        self.alive = np.ones(len(keep), dtype=bool)
        self.n = len(keep)

    def scores(self, qvec: np.ndarray) -> np.ndarray:
        """Cosine similarity of every loaded row with the unit vector ``qvec`` (dead rows -inf)."""
        q = np.asarray(qvec, dtype=np.float32).reshape(-1)
        if self.n == 0:
            return np.zeros(0, dtype=np.float32)
        if q.shape[0] != self.dims:
            raise GBrainError(f"question vector has {q.shape[0]} dims, stored vectors of {self.model} have {self.dims}")
        s = self.mat[: self.n] @ q
        s[~self.alive[: self.n]] = -np.inf
        return s

    def top_pages(self, scores: np.ndarray, k: int, allowed: np.ndarray | None = None) -> list[tuple[int, float, int]]:
        """Best ``k`` pages as ``(page_id, score, row_id)``, each page's best chunk, best first.

        ``allowed``: optional sorted array of page ids to keep (a filter: type, tag, folder). Takes the top
        ``4k`` chunks by ``argpartition`` and widens ×4 until ``k`` distinct pages are found or
        every row was looked at.
        """
        if self.n == 0 or k <= 0:
            return []
        s = scores
        if allowed is not None:
            s = np.where(np.isin(self.page_ids[: self.n], allowed), s, -np.inf)
        n = s.shape[0]
        m = min(n, max(4 * k, 16))
        while True:
            cand = np.argpartition(-s, m - 1)[:m] if m < n else np.arange(n)
            cand = cand[np.argsort(-s[cand], kind="stable")]
            out: list[tuple[int, float, int]] = []
            seen: set[int] = set()
            for i in cand:
                if not np.isfinite(s[i]):
                    break
                pid = int(self.page_ids[i])
                if pid in seen:
                    continue
                seen.add(pid)
                out.append((pid, float(s[i]), int(self.ids[i])))
                if len(out) == k:
                    return out
            if m >= n:
                return out
            m = min(n, m * 4)

    def _best(self, scores: np.ndarray, page_id: int) -> int | None:
        """Matrix index of one page's best live chunk by ``scores`` (ties: the first stored), or None."""
        rows = np.flatnonzero((self.page_ids[: self.n] == page_id) & self.alive[: self.n])
        if rows.size == 0:
            return None
        return int(rows[np.argmax(scores[rows])])

    def best_row(self, scores: np.ndarray, page_id: int) -> tuple[int, float] | None:
        """``(row_id, score)`` of the best live chunk of one page, or None."""
        i = self._best(scores, page_id)
        return None if i is None else (int(self.ids[i]), float(scores[i]))

    def best_vectors(self, scores: np.ndarray, page_ids) -> np.ndarray:
        """The vectors of the best live chunk (by ``scores``, the question's cosines) of each of
        ``page_ids`` that has one, in that order: float32 ``(found, dims)``."""
        found = [i for i in (self._best(scores, int(p)) for p in page_ids) if i is not None]
        return self.mat[found].copy() if found else np.zeros((0, self.dims), dtype=np.float32)

    def best_rows(self, scores: np.ndarray, page_ids) -> dict[int, tuple[int, float]]:
        """``{page_id: (row_id, score)}``: :meth:`best_row` of each of ``page_ids`` that has a
        live chunk."""
        out = {}
        for pid in page_ids:
            r = self.best_row(scores, pid)
            if r is not None:
                out[int(pid)] = r
        return out


def _grow(a: np.ndarray, cap: int, n: int) -> np.ndarray:
    shape = (cap,) + a.shape[1:]
    b = np.zeros(shape, dtype=a.dtype)
    b[:n] = a[:n]
    return b


# ---------------------------------------------------------------------------
# Postgres: pgvector
# ---------------------------------------------------------------------------


class PgVectors:
    """Vector search on Postgres through pgvector's HNSW index (:func:`~gbrain.storage.pg.ensure_hnsw_index`), with
    the part of :class:`VectorIndex`'s interface that query uses: :meth:`top_pages` and
    :meth:`best_row`. Scores are cosine similarities, as with the numpy index."""

    def __init__(self, conn, model: str, qvec: np.ndarray, text: str | None = None):
        """``qvec``: the question's vector; ``text``: its pgvector text when already made
        (:func:`~gbrain.storage.pg.pg_vector_text` of ``qvec``; 384 floats take ~0.3 ms to format)."""
        self.conn = conn
        self.model = model
        self.dims = int(len(qvec))
        from ..storage.pg import pg_vector_text

        self.q = text if text is not None else pg_vector_text(qvec)
        lit = model.replace("'", "''")
        self._expr = f"vec::vector({self.dims})"
        self._where = f"model = '{lit}' AND dims = {self.dims}"

    def top_pages(self, k: int, only=None) -> list[tuple[int, float, int]]:
        """``[(page_id, cosine, row_id)]`` of the ``k`` best pages (each by its best chunk); with
        a filter ``only`` (a :class:`~gbrain.storage.filters.PageFilter`, or a type name), of
        the pages it selects (an exact scan of their chunks when the index's nearest chunks hold
        fewer than ``k`` such pages)."""
        if isinstance(only, str):
            only = PageFilter(type=only)
        n = max(40, int(k) * 4)
        ef = min(1000, n)
        # a round trip only when the pooled connection's session has another value
        self.conn.set_ef_search(ef)
        sql = (f"SELECT e.id, e.page_id, 1 - ({self._expr} <=> ?::vector({self.dims})) FROM page_embeddings e "
               f"WHERE {self._where} ORDER BY {self._expr} <=> ?::vector({self.dims}) LIMIT ?")
        best: dict[int, tuple[float, int]] = {}
        for rid, pid, sc in self.conn.execute(sql, (self.q, self.q, n)):
            if pid not in best or sc > best[pid][0]:
                best[pid] = (float(sc), int(rid))
        if only and best:
            cond, args = only.sql()
            keep = {r[0] for r in self.conn.execute(f"SELECT p.id FROM pages p WHERE p.id IN ({','.join(map(str, best))}){cond}", args)}
            best = {p: v for p, v in best.items() if p in keep}
            if len(best) < int(k):
                # HNSW gave the nearest chunks of every page and too few were of the filter's (pgvector
                # filters after the index scan): rank its pages' chunks exactly (`+ 0` keeps the
                # planner off the index), so the filter applies before the bound
                sql = (f"SELECT e.id, e.page_id, 1 - ({self._expr} <=> ?::vector({self.dims})) FROM page_embeddings e "
                       f"JOIN pages p ON p.id = e.page_id WHERE {self._where}{cond} "
                       f"ORDER BY ({self._expr} <=> ?::vector({self.dims})) + 0 LIMIT ?")
                best = {}
                for rid, pid, sc in self.conn.execute(sql, (self.q, *args, self.q, n)):
                    if pid not in best or sc > best[pid][0]:
                        best[pid] = (float(sc), int(rid))
        out = sorted(((p, s, r) for p, (s, r) in best.items()), key=lambda t: (-t[1], t[0]))
        return out[: int(k)]

    def best_row(self, scores, page_id: int) -> tuple[int, float] | None:
        """``(row_id, cosine)`` of ``page_id``'s chunk nearest the question, or None."""
        r = self.conn.execute(
            f"SELECT id, 1 - ({self._expr} <=> ?::vector({self.dims})) AS s FROM page_embeddings WHERE page_id = ? AND {self._where} ORDER BY s DESC LIMIT 1",
            (self.q, int(page_id)),
        ).fetchone()
        return (int(r[0]), float(r[1])) if r else None

    def best_rows(self, scores, page_ids) -> dict[int, tuple[int, float]]:
        """``{page_id: (row_id, cosine)}``: :meth:`best_row` of each of ``page_ids`` that has a
        vector, in one statement (ties: the lowest row id)."""
        ids = sorted({int(p) for p in page_ids})
        if not ids:
            return {}
        sql = (f"SELECT DISTINCT ON (page_id) page_id, id, 1 - ({self._expr} <=> ?::vector({self.dims})) AS s FROM page_embeddings "
               f"WHERE page_id = ANY(?) AND {self._where} ORDER BY page_id, s DESC, id")
        return {int(r[0]): (int(r[1]), float(r[2])) for r in self.conn.execute(sql, (self.q, ids))}

    def passages(self, row_ids, page_ids) -> tuple[dict[int, int], dict[int, str]]:
        """``({page_id: row_id}, {row_id: chunk_text})`` in one statement: the texts of the chunks
        ``row_ids``, and for each of ``page_ids`` that has a vector its chunk nearest the question
        (as :meth:`best_rows` picks it) with that chunk's text."""
        rids, pids = sorted({int(r) for r in row_ids}), sorted({int(p) for p in page_ids})
        if not rids and not pids:
            return {}, {}
        sql = (f"SELECT 0, id, page_id, chunk_text FROM page_embeddings WHERE id = ANY(?) UNION ALL "
               f"SELECT 1, id, page_id, chunk_text FROM (SELECT DISTINCT ON (page_id) page_id, id, chunk_text, "
               f"1 - ({self._expr} <=> ?::vector({self.dims})) AS s FROM page_embeddings "
               f"WHERE page_id = ANY(?) AND {self._where} ORDER BY page_id, s DESC, id) AS b")
        best, texts = {}, {}
        for part, rid, pid, text in self.conn.execute(sql, (rids, self.q, pids)):
            texts[int(rid)] = text
            if part:
                best[int(pid)] = int(rid)
        return best, texts

    def best_vectors(self, scores, page_ids) -> np.ndarray:
        """:meth:`VectorIndex.best_vectors` in one statement: the stored vector of the chunk
        nearest the question of each of ``page_ids`` that has one, in that order (ties: the
        lowest row id)."""
        ids = [int(p) for p in page_ids]
        if not ids:
            return np.zeros((0, self.dims), dtype=np.float32)
        sql = (f"SELECT DISTINCT ON (page_id) page_id, embedding FROM page_embeddings "
               f"WHERE page_id = ANY(?) AND {self._where} ORDER BY page_id, {self._expr} <=> ?::vector({self.dims}), id")
        got = {int(r[0]): np.frombuffer(bytes(r[1]), dtype="<f4") for r in self.conn.execute(sql, (sorted(set(ids)), self.q))}
        found = [got[p] for p in ids if p in got]
        return np.stack(found).astype(np.float32) if found else np.zeros((0, self.dims), dtype=np.float32)
