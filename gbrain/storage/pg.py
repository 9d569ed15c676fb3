"""gbrain on PostgreSQL (+ pgvector): the connection behind ``--db postgresql://…``.

The storage seam (see ``docs/storage.md``): :func:`gbrain.storage.db.open_connection` gives
every layer one connection object. For a path it is a ``sqlite3.Connection``; for a
``postgresql://`` URL it is a :class:`PgConnection` — a psycopg 3 connection (taken from a
``psycopg_pool`` pool per URL) that speaks the DB-API subset gbrain's SQL was written against:

* ``execute`` / ``executemany`` / ``commit`` / ``rollback`` / ``in_transaction`` /
  ``total_changes`` / ``close``; rows indexable by position and by column name (``sqlite3.Row``);
* portable SQL is shared: :func:`translate` rewrites the few SQLite spellings gbrain uses
  (``?``/``:name`` placeholders, ``INSERT OR IGNORE``, ``LIKE`` (case-insensitive: ``ILIKE``), ``GROUP_CONCAT``, ``BEGIN IMMEDIATE``, ``strftime(…, 'now')``,
  ``instr``, ``json_extract``, ``char``, ``X'..'`` literals, ``IS NOT`` between values) and
  refuses (``NotImplementedError``) the ones it cannot (``INSERT OR REPLACE``);
* what differs by engine is explicit at the call site (``conn.dialect``): keyword search
  (``search/keyword.py``: weighted ``tsvector``), ``PRAGMA`` checks;
* errors come out as the ``sqlite3`` exception classes (:func:`_mapped`), so the one fault
  mapping (``storage/db.py: db_error``) serves both engines; every message is passed through
  :func:`redact` first: a password in the URL is never printed or logged.

``BEGIN IMMEDIATE`` becomes ``BEGIN`` + a transaction-scoped advisory lock, so read-modify-write
operations are serialised per brain as SQLite serialises them per file. History and the sync
change log are plpgsql triggers (``sql/pg_v1.sql``) in the writer's transaction; the writer's
origin (:mod:`gbrain.storage.origin`) reaches them through the session setting
``gbrain.origin`` (surface, operation, client and writer, :func:`gbrain.storage.origin.fields`),
set before each write when it changed.

Schema versions live in ``gbrain_schema(version)``; ``sql/pg_vN.sql`` is version N, applied in
one transaction under an advisory lock (several processes may open a new brain at once).
"""
from __future__ import annotations

import os
import re
import sqlite3
import threading
import weakref
from decimal import Decimal
from functools import lru_cache
from typing import Any, Iterable, Sequence
from urllib.parse import urlsplit, urlunsplit

from ..errors import GBrainError

#: the advisory lock key of a brain's writers (BEGIN IMMEDIATE) and of its migrations
WRITE_LOCK = 0x6762_7261  # 'gbra'
MIGRATE_LOCK = 0x6762_7269
PG_SCHEMA_VERSION = 94


def is_url(db: object) -> bool:
    """Whether ``db`` (a ``--db`` value) names a Postgres database rather than a SQLite file."""
    s = str(db or "")
    return s.startswith(("postgresql://", "postgres://"))


_PW_QUERY = re.compile(r"(?i)(password=)[^&\s]*")
_PW_KV = re.compile(r"(?i)(password\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)")


def redact(text: object, url: str | None = None) -> str:
    """``text`` with every password of a connection string replaced by ``***``: the
    ``user:password@`` part of a URL, ``password=`` in a URL query or a libpq key/value string,
    and the literal password of ``url`` wherever it appears. Safe on any text."""
    s = str(text)
    if url:
        try:
            pw = urlsplit(url).password
        except ValueError:
            pw = None
        if pw:
            s = s.replace(pw, "***")
            from urllib.parse import quote

            s = s.replace(quote(pw, safe=""), "***")
    # any scheme (a mistyped ``postgresq://`` too); up to the last ``@`` of the word, so a
    # password with an unencoded ``@`` is hidden whole
    s = re.sub(r"([A-Za-z][A-Za-z0-9+.-]*(?::/{1,2}|//)[^:/@\s]*):\S*@", r"\1:***@", s)
    s = _PW_QUERY.sub(r"\1***", s)
    return _PW_KV.sub(r"\1***", s)


class DbUrl(str):
    """The ``path`` of a Postgres brain: its URL with the password redacted (what messages show),
    keeping the real URL in :attr:`url`. Answers the few ``Path`` questions callers ask."""

    url: str

    def __new__(cls, url: str) -> "DbUrl":
        s = super().__new__(cls, redact(url))
        s.url = url
        return s

    def exists(self) -> bool:
        return True

    def resolve(self) -> "DbUrl":
        return self


# ---------------------------------------------------------------------------
# SQL translation
# ---------------------------------------------------------------------------

_TOKEN = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|--[^\n]*|::|:[A-Za-z_]\w*|\?|%|[^'\"?%:-]+|-|:")


@lru_cache(maxsize=2048)
def translate(sql: str) -> str:
    """gbrain's SQLite SQL as Postgres SQL with psycopg ``%s`` placeholders (see the module
    docstring for what is rewritten). Raises ``NotImplementedError`` for SQLite-only forms."""
    s = sql
    if re.search(r"(?i)\bINSERT\s+OR\s+REPLACE\b", s):
        raise NotImplementedError("INSERT OR REPLACE has no Postgres form here; write ON CONFLICT (...) DO UPDATE")
    ignore = re.search(r"(?i)\bINSERT\s+OR\s+IGNORE\s+INTO\b", s)
    if ignore:
        s = re.sub(r"(?i)\bINSERT\s+OR\s+IGNORE\s+INTO\b", "INSERT INTO", s)
        m = re.search(r"(?i)\bRETURNING\b", s)
        s = (s[: m.start()] + "ON CONFLICT DO NOTHING " + s[m.start():]) if m else re.sub(r"--[^\n']*$", "", s.rstrip()).rstrip().rstrip(";") + " ON CONFLICT DO NOTHING"
    s = re.sub(r"strftime\('%Y-%m-%dT%H:%M:%SZ',\s*'now'\)", "gb_now()", s)
    s = re.sub(r"strftime\('%Y-%m-%dT%H:%M:%fZ',\s*'now'\)", "gb_now_ms()", s)
    if "strftime(" in s:
        raise NotImplementedError("strftime with this format has no Postgres translation: " + s[:120])
    s = re.sub(r"FROM sqlite_master WHERE type = 'table' AND name =", "FROM information_schema.tables WHERE table_schema = current_schema() AND table_name =", s)
    s = re.sub(r"\bWHERE 1\b(?!\s*[=<>!])", "WHERE TRUE", s)  # SQLite's integer truth
    s = re.sub(r"(?i)\bGROUP_CONCAT\(", "string_agg(", s)
    s = re.sub(r"\bLIKE\b", "ILIKE", s)  # SQLite's LIKE ignores (ASCII) case
    s = re.sub(r"\binstr\(", "strpos(", s)
    s = re.sub(r"\bchar\(", "chr(", s)
    s = re.sub(r"json_valid\(([\w.]+)\)", r"(\1 IS JSON)", s)
    s = re.sub(r"json_extract\(([\w.]+),\s*'\$\.(\w+)'\)", r"(\1::jsonb ->> '\2')", s)
    s = re.sub(r"X'([0-9A-Fa-f]*)'", r"'\\x\1'::bytea", s)
    s = re.sub(r"(?i)\bIS NOT (?!NULL\b)", "IS DISTINCT FROM ", s)
    out = []
    for tok in _TOKEN.findall(s):
        if tok == "?":
            out.append("%s")
        elif tok[0] == ":" and len(tok) > 1 and tok != "::":
            out.append(f"%({tok[1:]})s")
        elif tok == "%":
            out.append("%%")
        elif tok.startswith("'"):
            out.append(tok.replace("%", "%%"))
        else:
            out.append(tok)
    return "".join(out)


# ---------------------------------------------------------------------------
# rows and cursors
# ---------------------------------------------------------------------------


class Row(tuple):
    """A result row like ``sqlite3.Row``: by position, by column name (case-insensitive), ``keys()``."""

    _index: dict[str, int]
    _names: list[str]

    def __getitem__(self, k):  # type: ignore[override]
        if isinstance(k, str):
            try:
                return tuple.__getitem__(self, self._index[k.lower()])
            except KeyError:
                raise IndexError(f"no such column: {k}") from None
        return tuple.__getitem__(self, k)

    def keys(self) -> list[str]:
        return list(self._names)


def _plain(v: Any) -> Any:
    """Values as SQLite gives them: numeric → int/float, memoryview → bytes."""
    if isinstance(v, Decimal):
        return int(v) if v == v.to_integral_value() else float(v)
    if isinstance(v, memoryview):
        return bytes(v)
    return v


#: column types whose values :func:`_plain` may change (numeric → Decimal, bytea → memoryview):
#: the other columns' values are passed on as psycopg gives them
_CONVERTED = frozenset({1700, 17})


def _row_factory(cur):
    """Rows as :class:`Row`, with :func:`_plain` applied to the columns of a type that can need
    it (numeric, bytea) and to no other (a query's rows are built in the calling thread, which
    holds the GIL meanwhile: 650 keyword rows of six columns were 26,000 calls per query).

    The ``Row`` class of a result shape (its columns' names and types, as the result gives them)
    is made once per process (:data:`_ROW_MAKERS`): ``cur.description`` builds a ``Column`` per
    column and ``type()`` a class, per query (~1/8 of the client's CPU in the Postgres run of
    test_fresh_equal's state machine)."""
    res = cur.pgresult
    if not _has_rows(cur):
        return _values
    key = tuple((res.fname(i), res.ftype(i)) for i in range(res.nfields))
    make = _ROW_MAKERS.get(key)
    if make is None:
        if len(_ROW_MAKERS) > 4096:  # shapes are the queries' (a few hundred): a bound all the same
            _ROW_MAKERS.clear()
        make = _ROW_MAKERS[key] = _row_maker(cur.description)
    return make


#: libpq's result statuses of a query that returns tuples (PGRES_TUPLES_OK, PGRES_SINGLE_TUPLE,
#: PGRES_TUPLES_CHUNK): with them ``cursor.description`` is a list even for no column (``SELECT ;``)
_TUPLES = frozenset({2, 9, 12})
#: a result shape's row maker (:func:`_row_factory`): ((name bytes, type oid) per column) → maker
_ROW_MAKERS: dict[tuple, Any] = {}


def _values(values):
    return values


def _has_rows(cur) -> bool:
    """``cur.description is not None`` (the current result has columns, or says it has tuples),
    without building the description's ``Column`` objects."""
    res = cur.pgresult
    return bool(res) and bool(res.nfields or res.status in _TUPLES)


def _row_maker(desc) -> Any:
    """The row maker of a result whose ``cursor.description`` is ``desc``."""
    names = [d.name for d in desc]
    cls = type("Row", (Row,), {"_names": names, "_index": {n.lower(): i for i, n in reversed(list(enumerate(names)))}})
    conv = [i for i, d in enumerate(desc) if d.type_code in _CONVERTED]
    if not conv:
        return cls
    if len(conv) == len(desc):
        return lambda values: cls(_plain(v) for v in values)

    def make(values):
        values = list(values)
        for i in conv:
            values[i] = _plain(values[i])
        return cls(values)

    return make


def _param(v: Any) -> Any:
    if isinstance(v, bool):
        return int(v)
    return v


class PgCursor:
    """What ``execute`` returns: ``fetchone``/``fetchall``/iteration, ``rowcount``, ``description``,
    ``lastrowid`` (only for ``INSERT … RETURNING id``: write that instead)."""

    def __init__(self, cur, rows: list | None = None):
        self._cur = cur
        self._rows = rows
        self.lastrowid = None

    @property
    def description(self):
        return self._cur.description if self._cur is not None else None

    @property
    def rowcount(self) -> int:
        return self._cur.rowcount if self._cur is not None else -1

    def fetchone(self):
        if self._rows is not None:
            return self._rows.pop(0) if self._rows else None
        if self._cur is None or not _has_rows(self._cur):
            return None
        return self._cur.fetchone()

    def fetchall(self) -> list:
        if self._rows is not None:
            r, self._rows = self._rows, []
            return r
        if self._cur is None or not _has_rows(self._cur):
            return []
        return self._cur.fetchall()

    def fetchmany(self, n: int = 1) -> list:
        if self._rows is not None:
            r, self._rows = self._rows[:n], self._rows[n:]
            return r
        return self._cur.fetchmany(n) if self._cur is not None and _has_rows(self._cur) else []

    def __iter__(self):
        return iter(self.fetchall())

    def close(self) -> None:
        if self._cur is not None:
            self._cur.close()


# ---------------------------------------------------------------------------
# errors
# ---------------------------------------------------------------------------


def _mapped(e: Exception, url: str) -> sqlite3.Error:
    """A psycopg error as the ``sqlite3`` exception the rest of gbrain handles, message redacted."""
    import psycopg
    from psycopg import errors as pe

    msg = redact(str(e).strip(), url)
    if isinstance(e, pe.ReadOnlySqlTransaction):
        return sqlite3.OperationalError(f"attempt to write a readonly database (Postgres: {msg})")
    if isinstance(e, pe.DiskFull):
        return sqlite3.OperationalError(f"database or disk is full (Postgres: {msg})")
    if isinstance(e, (pe.LockNotAvailable, pe.DeadlockDetected, pe.SerializationFailure)):
        # a wait for a lock the server's ``lock_timeout`` ended (the writers' advisory lock:
        # BEGIN IMMEDIATE), or a transaction the server rolled back to be run again: SQLite's
        # busy brain, as sync/watch and db_error read it (errors.Busy, kind busy)
        return sqlite3.OperationalError(f"database is locked (Postgres: {msg})")
    if isinstance(e, psycopg.IntegrityError):
        return sqlite3.IntegrityError(msg)
    if isinstance(e, (psycopg.ProgrammingError, psycopg.DataError)):
        return sqlite3.OperationalError(msg)
    if isinstance(e, psycopg.OperationalError):
        return sqlite3.OperationalError(msg)
    return sqlite3.DatabaseError(msg)


class Disconnected(sqlite3.OperationalError):
    """The brain's Postgres connection broke (the server restarted or terminated the backend: a
    pooler, an idle timeout, a failover, the network) or cannot be made (``unreachable``: the
    server is down or refuses connections). The message is one line, password redacted.

    What may be run again: :class:`PgConnection` runs a read (or ``BEGIN``) that found its
    connection broken outside a transaction once more on a new connection itself; a transaction
    cut by the break never committed (it is refused until rolled back), so the caller may run it
    again whole (``operations.registry._guarded`` does for a read-only operation, or one that
    committed nothing on this connection: :attr:`PgConnection.commits`; ``gbrain watch`` retries
    its round, which rolls back whole)."""

    def __init__(self, msg: str, unreachable: bool = False):
        super().__init__(msg)
        self.unreachable = unreachable


def _why(e: object, url: str) -> str:
    """A psycopg error's text on one line (libpq's are several), password redacted."""
    return " ".join(redact(str(e), url).split()) or type(e).__name__


def _cannot_connect(e: object, url: str) -> GBrainError:
    """The error for a failed connect to ``url``: ``cannot connect to the brain database URL: WHY``
    on one line, password redacted. A database that does not exist is :class:`BadInput` (exit 2,
    as a SQLite brain's missing folder), saying to create it: gbrain makes its tables, never the
    database (a team's first ``copy --to postgresql://…/team`` into a name nobody created only
    printed the server's ``database "team" does not exist``, exit 1)."""
    from ..errors import BadInput

    msg = f"cannot connect to the brain database {redact(url)}: {_why(e, url)}"
    m = re.search(r'database "([^"]*)" does not exist', msg)
    if m is None:
        return GBrainError(msg)
    return BadInput(f"{msg}; gbrain makes its tables, not the database: create it first (`{createdb_line(url, m.group(1))}`, "
                    f"or `CREATE DATABASE \"{m.group(1)}\"` in psql), or name an existing one")


def createdb_line(url: str, name: str) -> str:
    """The `createdb` command line that makes database ``name`` on the server of ``url``: its host
    (or Unix socket folder: pgserver's), port and user as ``-h``/``-p``/``-U`` where the URL gives
    them (a bare `createdb NAME` goes to the default server, not a socket elsewhere: team trial
    s60), each shell-quoted; never the password."""
    import shlex

    from psycopg.conninfo import conninfo_to_dict

    try:
        given = conninfo_to_dict(url)
    except Exception:
        given = {}
    args = ["createdb"]
    for flag, key in (("-h", "host"), ("-p", "port"), ("-U", "user")):
        if given.get(key):
            args += [flag, str(given[key])]
    return " ".join(shlex.quote(a) for a in args + [name])


def _broken(c) -> bool:
    """Whether psycopg connection ``c`` is unusable (closed, or lost its server)."""
    return bool(c.closed or getattr(c, "broken", False))


def _quiet_pool_log() -> None:
    """psycopg_pool logs a broken connection it discards (``discarding closed connection: …``)
    as a warning, which Python's last-resort handler would print raw on the user's terminal:
    gbrain says itself what happened (``Disconnected``), so the pool's logger is silenced."""
    import logging

    lg = logging.getLogger("psycopg.pool")
    if not any(isinstance(h, logging.NullHandler) for h in lg.handlers):
        lg.addHandler(logging.NullHandler())
    lg.propagate = False


# ---------------------------------------------------------------------------
# the connection
# ---------------------------------------------------------------------------

#: libpq settings gbrain gives every connection unless the URL sets its own (the URL wins):
#: ``connect_timeout`` (seconds) bounds a connect to an unreachable host; TCP keepalives (idle
#: 60 s, then a probe every 10 s, 5 unanswered: a peer gone silently, after a NAT or firewall
#: dropped the flow or its host died, is found in ~2 minutes instead of the kernel's 2 hours) and
#: ``tcp_user_timeout`` (ms: data sent and not acknowledged for 2 minutes closes the connection)
#: turn a connection that hangs into :class:`Disconnected`, which gbrain recovers from. libpq
#: applies the TCP settings to TCP connections only (a Unix socket ignores them). Source: the
#: PostgreSQL manual, "Parameter Key Words" (libpq connection parameters).
CONN_DEFAULTS: dict[str, int] = {
    "connect_timeout": 10,
    "keepalives": 1,
    "keepalives_idle": 60,
    "keepalives_interval": 10,
    "keepalives_count": 5,
    "tcp_user_timeout": 120_000,
}


def conn_kwargs(url: str, **extra: Any) -> dict[str, Any]:
    """The keyword arguments for ``psycopg.connect(url, **kw)``: :data:`CONN_DEFAULTS` less the
    parameters ``url`` sets itself (a URL or ``key=value`` string: its own ``connect_timeout``
    or ``keepalives_idle`` wins), plus ``extra``. A URL libpq cannot parse gets the defaults (the
    connect then reports the URL's error)."""
    from psycopg.conninfo import conninfo_to_dict

    try:
        given = conninfo_to_dict(url)
    except Exception:
        given = {}
    kw: dict[str, Any] = {k: v for k, v in CONN_DEFAULTS.items() if k not in given}
    kw.update(extra)
    return kw


_POOLS: dict[str, Any] = {}
_POOLS_LOCK = threading.Lock()
_WRITE = re.compile(r"(?is)^\s*(INSERT|UPDATE|DELETE)\b")


def _pool(url: str):
    """The process's pool for ``url`` (made on first use). Before the pool is made, one plain
    connection is opened and closed, so a wrong URL, password or unreachable server fails at once
    with the server's reason (the pool would retry in the background until its timeout)."""
    import psycopg
    from psycopg_pool import ConnectionPool

    with _POOLS_LOCK:
        p = _POOLS.get(url)
        if p is None:
            try:
                psycopg.connect(url, **conn_kwargs(url)).close()
            except psycopg.Error as e:
                raise _cannot_connect(e, url) from None
            _quiet_pool_log()
            with interrupts_held():  # (the pool's threads inherit the mask: they never take a Ctrl-C)
                p = ConnectionPool(url, min_size=0, max_size=8, kwargs=conn_kwargs(url, autocommit=True), open=True, timeout=30, name="gbrain")
                _POOLS[url] = p
        return p


class interrupts_held:
    """``with interrupts_held():`` SIGINT, SIGTERM and SIGHUP (gbrain's interrupts: entry.py)
    blocked in the calling thread while the body runs, then the mask as it was (a signal that
    came meanwhile is taken then). The threads the body starts inherit the blocked mask, so a
    process-directed signal never goes to them: the pool's worker threads were started unblocked
    at the first open, and watch, which blocks the stop signals in every thread and takes them
    between chunks and rounds (``sigpending``/``sigtimedwait``), had them taken by a pool thread
    instead, left to a Python-level handler. A no-op where signals cannot be held (Windows)."""

    def __enter__(self) -> None:
        import signal

        self._old = None
        if hasattr(signal, "pthread_sigmask"):
            held = {getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, n)}
            self._old = signal.pthread_sigmask(signal.SIG_BLOCK, held)

    def __exit__(self, *exc) -> None:
        if self._old is not None:
            import signal

            signal.pthread_sigmask(signal.SIG_SETMASK, self._old)


def probe(url: str) -> None:
    """Connect to ``url`` once, cheaply (``gbrain serve`` before it says it runs), making the
    process's pool. Raises :class:`~gbrain.errors.BadInput` (exit 2, as a missing SQLite file)
    when the database does not exist, :class:`GBrainError` (exit 1) when the server cannot be
    reached or refuses; one line, password redacted."""
    try:
        import psycopg  # noqa: F401
        import psycopg_pool  # noqa: F401
    except ImportError:
        raise GBrainError("a postgresql:// brain needs psycopg 3 and psycopg-pool: pip install 'psycopg[binary]' psycopg-pool") from None
    _pool(url)  # a database that does not exist: BadInput (_cannot_connect)


def close_pools() -> None:
    """Close every pool of this process (their idle connections end at once)."""
    with _POOLS_LOCK:
        pools = list(_POOLS.values())
        _POOLS.clear()
    for p in pools:
        try:
            p.close(timeout=2)
        except Exception:
            pass


def close_pool(url: str) -> None:
    """Close this process's pool for ``url`` (its idle connections end at once), if it has one:
    before the database is dropped."""
    with _POOLS_LOCK:
        p = _POOLS.pop(url, None)
    if p is not None:
        try:
            p.close(timeout=2)
        except Exception:
            pass


import atexit  # noqa: E402

atexit.register(close_pools)


#: seconds a new connection waits for the pool before connecting on its own (the pool retries a
#: failed connect with back-off, which would keep a call waiting past the server's return)
POOL_WAIT_S = 5.0

#: hnsw.ef_search of each pooled psycopg connection whose session holds it (PgConnection.set_ef_search)
_EF_SEARCH: "weakref.WeakKeyDictionary[Any, int]" = weakref.WeakKeyDictionary()


class _WaitNote:
    """The wait note of one write's ``BEGIN IMMEDIATE`` on Postgres (``db.on_wait``): said at most
    once, ``db.WAIT_NOTE_S`` after the write first asked for the lock (a try again on a new
    connection after a dropped one neither says it again nor starts the clock again), and never
    once the lock came: the timer's thread says it holding :attr:`_mutex`, and the waiting thread
    marks the lock taken (:meth:`taken`) under the same mutex before it goes on, so a note being
    said when the lock's answer arrives is finished first and a note due later is dropped. (The
    server may grant the lock while the note is said, its answer still on its way: the note
    then comes before the write goes on, never after.)"""

    def __init__(self) -> None:
        import time

        self.start = time.monotonic()
        self.said = False
        self.got = False
        self._mutex = threading.Lock()

    def due(self) -> float:
        """Seconds from now until the note is due (0 when it is)."""
        import time

        from . import db as dbmod

        return max(0.0, dbmod.WAIT_NOTE_S - (time.monotonic() - self.start))

    def say(self, say, line: str, stop: threading.Event | None = None) -> None:
        """``say(line)`` unless said already, the lock came, or this try's wait ended (``stop``
        set: :meth:`ended`) (the timer's thread)."""
        with self._mutex:
            if self.said or self.got or (stop is not None and stop.is_set()):
                return
            self.said = True
            say(line)

    def ended(self, stop: threading.Event) -> None:
        """One try's wait ended, the lock come or not (an error, a cancel, Ctrl-C): its timer says
        nothing from now on (``stop``), and a note being said ends first, so no note comes after
        the error goes on. A try again on a new connection may still say it (its own ``stop``)."""
        with self._mutex:
            stop.set()

    def taken(self) -> None:
        """The lock came: no note from now on (waits for one being said)."""
        with self._mutex:
            self.got = True


class PgConnection:
    """A Postgres connection shaped like the ``sqlite3.Connection`` gbrain uses (module docstring).

    It outlives the server connection under it: when that breaks (:class:`Disconnected`), the
    next statement outside a transaction runs on a new one (a plain connection, made at once or
    refused at once when the server is away, not a pooled one the pool would retry for 30 s);
    a statement that found the connection broken outside a transaction and only reads (or is
    ``BEGIN``) is run again there; a transaction the break cut is refused until rolled back.
    ``PRAGMA query_only`` (``serve --read-only``) is set again on every new connection."""

    dialect = "postgres"

    def __init__(self, url: str):
        import psycopg

        self.url = url
        self.path = DbUrl(url)
        self._pool = _pool(url)
        #: whether ``_conn`` came from the pool (one made after a break did not)
        self._pooled = True
        try:
            self._conn = self._pool.getconn(timeout=POOL_WAIT_S)
        except Exception:  # PoolTimeout: the pool's own connects fail, or wait out its back-off
            # one plain connect now: it is refused at once while the server is away (the pool
            # would have kept this call waiting 30 s, and past the server's return), and
            # succeeds at once when the server is back before the pool's next try
            try:
                self._conn = psycopg.connect(url, **conn_kwargs(url, autocommit=True))
            except psycopg.Error as e:
                raise GBrainError(f"cannot reach the brain database {self.path}: {_why(e, url)}") from None
            self._pooled = False
        self._conn.row_factory = _row_factory
        #: a transaction lost with its connection: every statement but BEGIN/ROLLBACK refused
        self._lost = False
        #: ``PRAGMA query_only = ON`` was set: a new connection gets it again
        self._read_only = False
        #: statements sent that may have committed (COMMIT, a write outside a transaction): an
        #: operation that saw this unchanged committed nothing and may run again whole
        self.commits = 0
        self._origin: str | None = None
        #: this code's schema version, said with the origin before each write (``gbrain.schema``):
        #: pg_v28's guard refuses a write from a session older than the brain's schema
        self.code_schema = PG_SCHEMA_VERSION
        #: ``gbrain_schema`` exists (:func:`migrate` saw it to this code's version): a write
        #: transaction then checks the brain is no newer (``execute``'s BEGIN IMMEDIATE)
        self.schema_known = False
        #: a session setting other than hnsw.ef_search may have changed: close() runs RESET ALL
        self._reset = False
        self.total_changes = 0
        self.row_factory = None  # accepted, ignored: rows are always Row
        self._psycopg = psycopg

    # the connection under it ---------------------------------------------------------

    def _live(self):
        """The psycopg connection to use: a new one when the last broke (outside a transaction).
        Raises :class:`Disconnected` while a lost transaction is not rolled back, or when no
        connection can be made."""
        if self._lost:
            raise Disconnected(f"lost the connection to the brain database {self.path} during a transaction, which was not committed")  # (db_error adds "; run it again": the caller rolls it back)
        if self._conn is None:
            try:
                c = self._psycopg.connect(self.url, **conn_kwargs(self.url, autocommit=True))
            except self._psycopg.Error as e:
                raise Disconnected(f"cannot reach the brain database {self.path}: {_why(e, self.url)}", unreachable=True) from None
            c.row_factory = _row_factory
            self._conn, self._pooled, self._origin = c, False, None
            if self._read_only:
                try:
                    c.execute("SET default_transaction_read_only = on")
                except self._psycopg.Error as e:
                    self._drop()
                    raise Disconnected(f"cannot reach the brain database {self.path}: {_why(e, self.url)}", unreachable=True) from None
        return self._conn

    def _drop(self) -> None:
        """Let go of a broken connection (the pool discards it: its log line is silenced)."""
        c, self._conn = self._conn, None
        if c is None:
            return
        _EF_SEARCH.pop(c, None)
        try:
            if self._pooled:
                self._pool.putconn(c)
                self._pool.check()  # the pool's idle connections likely broke with it
            else:
                c.close()
        except Exception:
            pass

    def _run(self, fn, *, again: bool):
        """``fn(psycopg connection)`` with errors mapped (:func:`_mapped`); a broken connection
        becomes :class:`Disconnected`, after one more try on a new connection when ``again``
        (the statement only reads) and no transaction was open."""
        c = self._live()
        idle = c.info.transaction_status == 0  # IDLE
        try:
            return fn(c)
        except (KeyboardInterrupt, SystemExit):
            # a Ctrl-C that landed after psycopg sent a query but before it waited for the answer
            # (its own cancel did not run) leaves the connection busy: every statement after it,
            # the rollback and the clean-up too, would fail with "another command is already in
            # progress" and replace the interrupt. Let go of it (the server rolls back what it
            # ran); a transaction it cut is refused until rolled back, as a lost one's
            if c.info.transaction_status == 1:  # ACTIVE
                try:
                    c.close()
                except Exception:
                    pass
                self._drop()
                self._lost = not idle
            raise
        except self._psycopg.Error as e:
            if not _broken(c):
                raise _mapped(e, self.url) from None
            self._drop()
            why = _why(e, self.url)
            if not idle:
                self._lost = True
                raise Disconnected(f"lost the connection to the brain database {self.path} ({why}); the transaction in progress was not committed") from None
            if not again:
                raise Disconnected(f"lost the connection to the brain database {self.path} ({why}); the write may not have been applied") from None
        c = self._live()
        try:
            return fn(c)
        except self._psycopg.Error as e:
            if not _broken(c):
                raise _mapped(e, self.url) from None
            self._drop()
            raise Disconnected(f"lost the connection to the brain database {self.path} ({_why(e, self.url)})") from None

    # sqlite3.Connection's surface ------------------------------------------------

    @property
    def in_transaction(self) -> bool:
        if self._lost:
            return True  # (so that the caller rolls it back)
        if self._conn is None:
            return False
        return self._conn.info.transaction_status != 0  # IDLE

    def _set_origin(self, c) -> None:
        from .origin import fields

        o = "\t".join(fields())
        if o != self._origin:
            self._reset = True
            c.execute("SELECT set_config('gbrain.origin', %s, false), set_config('gbrain.schema', %s, false)", (o, str(self.code_schema)))
            self._origin = o

    def set_ef_search(self, ef: int) -> None:
        """``SET hnsw.ef_search`` (pgvector's HNSW breadth) to ``ef`` unless this session has it
        already. Outside a transaction the value is remembered with the pooled connection and
        kept when it goes back to the pool (:meth:`close` resets only other settings), so a query
        on a connection that ran one before needs no round trip for it; inside a transaction it
        is set every time (a rollback undoes it)."""
        ef = int(ef)
        if self.in_transaction:
            self.execute(f"SET hnsw.ef_search = {ef}")  # (marks the session for RESET ALL)
            return

        def run(c):
            if _EF_SEARCH.get(c) != ef:
                _EF_SEARCH.pop(c, None)
                c.execute(f"SET hnsw.ef_search = {ef}")
                _EF_SEARCH[c] = ef

        self._run(run, again=True)

    def execute(self, sql: str, params: Sequence[Any] | dict = ()) -> PgCursor:
        head = sql.lstrip()[:16].upper()
        if head.startswith("PRAGMA"):
            return self._pragma(sql)
        if head.startswith(("COMMIT", "END")):
            self.commit()
            return PgCursor(None)
        if head.startswith("ROLLBACK") and "TO" not in head:
            self.rollback()
            return PgCursor(None)
        if head.startswith(("SET", "RESET")) or "set_config" in sql:
            self._reset = True  # a session setting: reset when the connection goes back to the pool
        if head.startswith("BEGIN"):
            self._lost = False  # a new transaction: the lost one is abandoned (it never committed)
            lock = "IMMEDIATE" in head or "EXCLUSIVE" in head
            # one wait note for the write, its try on a new connection (``again``) included
            note = _WaitNote() if lock else None

            def begin(c):
                c.execute("BEGIN")
                if lock:
                    # the brain's schema read with the lock (one round trip): a process older than
                    # it is refused here, before its first statement, which a schema change may
                    # have broken (a prepared ``SELECT *`` of pages after v40 added columns:
                    # "cached plan must not change result type"), as pg_v28's guard refuses a write
                    v = self._write_lock(c, note)
                    if v is not None and int(v) > self.code_schema:
                        c.execute("ROLLBACK")
                        raise sqlite3.OperationalError(
                            f"database schema v{v} (Postgres) of {self.path} is newer than this gbrain (v{self.code_schema}); upgrade gbrain "
                            "(a newer one upgraded the brain while this process ran; nothing was written)")

            self._run(begin, again=True)
            return PgCursor(None)
        q = translate(sql)
        write = bool(_WRITE.match(sql))
        args = [_param(p) for p in params] if not isinstance(params, dict) else params

        def run(c):
            if write:
                self._set_origin(c)
                if c.info.transaction_status == 0:
                    self.commits += 1  # autocommit: it commits by itself
            return c.execute(q, args)

        cur = self._run(run, again=not write)
        if write and cur.rowcount > 0:
            self.total_changes += cur.rowcount
        return PgCursor(cur)

    def _write_lock(self, c, note: _WaitNote | None = None) -> Any:
        """Take the brain's writers' advisory lock (``BEGIN IMMEDIATE``) in the transaction ``c``
        just began; returns the brain's schema version read with it (None when
        :attr:`schema_known` is false: not read). ``note``: the write's :class:`_WaitNote` (its
        try again on a new connection after a dropped one passes the same: one note a write).

        When the command line listens (``db.on_wait``), the lock is first tried without waiting,
        in the same round trip as before; only a brain another process is writing waits, as long
        as the server's ``lock_timeout``/``statement_timeout`` let it (none by default: as long as
        it takes), and a timer says so once after ``db.WAIT_NOTE_S`` (from another thread, while
        this one waits: the write keeps its place in the lock's queue; a 2 s ``lock_timeout`` step
        and a new transaction put it behind every writer that came meanwhile). A
        ``statement_timeout`` that ends the wait is a busy brain (``database is locked (Postgres:
        …)``), as a ``lock_timeout`` is: the statement only waits for the lock."""
        from psycopg import errors as pe

        from . import db as dbmod

        schema = ", (SELECT max(version) FROM gbrain_schema)" if self.schema_known else ""

        def take() -> Any:
            row = c.execute(f"SELECT pg_advisory_xact_lock(%s){schema}", (WRITE_LOCK,)).fetchone()
            return row[-1] if schema else None

        try:
            say = dbmod.on_wait
            if note is None:
                note = _WaitNote()
            if say is None or note.said:
                return take()
            row = c.execute(f"SELECT pg_try_advisory_xact_lock(%s){schema}", (WRITE_LOCK,)).fetchone()
            if row[0]:
                return row[-1] if schema else None
            lock_ms, statement_ms = c.execute(
                "SELECT (SELECT setting::bigint FROM pg_settings WHERE name = 'lock_timeout'),"
                " (SELECT setting::bigint FROM pg_settings WHERE name = 'statement_timeout')").fetchone()
            due = note.due()
            # what is left of the server's timeouts once the note is due (the wait's statement starts now)
            left = [(t - int(due * 1000), name) for t, name in ((lock_ms, "lock_timeout"), (statement_ms, "statement_timeout")) if t]
            if left and min(left)[0] <= 0:
                return take()  # (the server's timeout ends the wait before the note would be due)
            ms, name = min(left, default=(0, ""))
            line = dbmod.wait_note(f"up to {ms / 1000:g} s more, the server's {name}" if ms else
                                   "as long as it takes: the server sets no lock_timeout", gives_up=bool(ms))
            stop = threading.Event()
            timer = threading.Timer(due, note.say, (say, line, stop))
            timer.daemon = True
            timer.start()
            try:
                got = take()
                note.taken()  # (waits for a note being said: none starts once the lock came)
                return got
            finally:
                timer.cancel()
                note.ended(stop)  # (the same when the wait failed: no note after the error)
        except pe.QueryCanceled as e:
            if "statement timeout" not in str(e):
                raise  # (a cancel: Ctrl-C)
            c.execute("ROLLBACK")
            raise sqlite3.OperationalError(f"database is locked (Postgres: {redact(str(e).strip(), self.url)} "
                                           "while waiting for another process's write)") from None

    def executemany(self, sql: str, seq: Iterable[Sequence[Any]]) -> PgCursor:
        rows = [[_param(p) for p in r] for r in seq]
        if not rows:
            return PgCursor(None, [])
        write = bool(_WRITE.match(sql))

        def run(c):
            if write:
                self._set_origin(c)
            if c.info.transaction_status == 0:
                self.commits += 1
            with c.cursor() as cur:
                cur.executemany(translate(sql), rows)
                return cur.rowcount

        n = self._run(run, again=False)
        if n > 0:
            self.total_changes += n
        return PgCursor(None, [])

    def executescript(self, script: str) -> None:
        self._reset = True

        def run(c):
            if c.info.transaction_status == 0:
                self.commits += 1
            c.execute(script.replace("%", "%%"))

        self._run(run, again=False)

    def commit(self) -> None:
        if self._lost:
            self._live()  # raises Disconnected
        if self.in_transaction:
            self.commits += 1
            try:
                self._run(lambda c: c.execute("COMMIT"), again=False)
            except Disconnected as e:  # cut at its COMMIT: the server may have committed it
                raise Disconnected(str(e).replace("the transaction in progress was not committed", "the transaction may or may not have committed")) from None

    def rollback(self) -> None:
        if self._lost:
            self._lost = False
            return
        self._origin = None  # (a set_config in the rolled-back transaction is undone with it)
        if self.in_transaction:
            try:
                self._conn.execute("ROLLBACK")
            except self._psycopg.Error:
                if _broken(self._conn):
                    self._drop()

    def close(self) -> None:
        self._lost = False
        c, self._conn = getattr(self, "_conn", None), None
        if c is None:
            return
        if not self._pooled:
            try:
                c.close()
            except Exception:
                pass
            return
        if not _broken(c):
            try:
                if c.info.transaction_status != 0:
                    self._reset = True  # (a SET in it may or may not be rolled back)
                    c.execute("ROLLBACK")
                if self._reset:
                    _EF_SEARCH.pop(c, None)
                    c.execute("RESET ALL")
            except Exception:
                _EF_SEARCH.pop(c, None)
        try:
            self._pool.putconn(c)
        except Exception:
            pass

    def create_function(self, *a, **k) -> None:
        """SQLite's Python SQL functions have SQL definitions in the Postgres schema."""

    # PRAGMAs -----------------------------------------------------------------------

    def _one(self, sql: str, params: Sequence[Any] = ()):
        """The first row of a read (run again on a new connection if the old one broke)."""
        return self._run(lambda c: c.execute(sql, params).fetchone(), again=True)

    def _pragma(self, sql: str) -> PgCursor:
        m = re.match(r"(?is)\s*PRAGMA\s+(\w+)\s*(?:\((.*?)\))?\s*(?:=\s*(\S+))?", sql)
        name = (m.group(1) if m else "").lower()
        val = m.group(3) if m else None
        if name in ("quick_check", "integrity_check"):
            return PgCursor(None, [Row(("ok",))])
        if name == "foreign_key_check":
            return PgCursor(None, [])
        if name == "query_only":
            self._reset = True
            on = str(val).upper() in ("ON", "1", "TRUE")
            self._read_only = on
            self._run(lambda c: c.execute("SET default_transaction_read_only = " + ("on" if on else "off")), again=True)
            return PgCursor(None, [])
        if name == "data_version":
            # changes when any writer committed: the newest history row (every page/file write
            # adds one) and the newest embedding row
            r = self._one("SELECT (SELECT coalesce(max(id), 0) FROM history) * 1000003 + (SELECT coalesce(max(id), 0) FROM page_embeddings)")
            return PgCursor(None, [Row((_plain(r[0]),))])
        if name == "user_version":
            return PgCursor(None, [Row((schema_version(self),))])
        if name == "table_info":
            t = m.group(2).strip("'\" ") if m and m.group(2) else ""
            rows = self._run(lambda c: c.execute("SELECT ordinal_position - 1, column_name FROM information_schema.columns WHERE table_name = %s ORDER BY ordinal_position", (t,)).fetchall(), again=True)
            return PgCursor(None, [Row((r[0], r[1])) for r in rows])
        # busy_timeout, journal_mode, foreign_keys, synchronous, mmap_size: SQLite file settings
        # (reading one gives 0, setting one does nothing)
        return PgCursor(None, [] if val is not None else [Row((0,))])


#: the channel the change-log trigger of ``pg_v2.sql`` notifies on every committed write
CHANGES_CHANNEL = "gbrain_changes"


#: the server-side TCP keepalives of a LISTEN connection (session settings, SET once it is made):
#: a machine that crashed or lost its network stops answering the server's probes,
#: and the server ends the connection after ``idle`` + ``count`` × ``interval`` s (2 min) instead of
#: the system default (Linux: 2 h 11 min), so that a dead watch stops counting as running
#: (``sync-forget``, ``sync-clients``). A Unix socket ignores them. Source: the PostgreSQL manual,
#: "Connection Settings" (``tcp_keepalives_idle``, ``_interval``, ``_count``: user-settable).
LISTEN_KEEPALIVES = {"tcp_keepalives_idle": 60, "tcp_keepalives_interval": 10, "tcp_keepalives_count": 6}


def listen_settings(url: str) -> dict:
    """The settings of :data:`LISTEN_KEEPALIVES` a LISTEN connection to ``url`` SETs once it is
    made: those the URL's own startup ``options`` do not give (the URL's win). SET, not sent as
    startup ``options`` of our own: a pooler in session mode (PgBouncer, where LISTEN works)
    refuses a startup packet carrying ``options`` it was not told to ignore."""
    from psycopg.conninfo import conninfo_to_dict

    try:
        given = str(conninfo_to_dict(url).get("options") or "")
    except Exception:
        given = ""
    return {k: v for k, v in LISTEN_KEEPALIVES.items() if k not in given}


class Listener:
    """``LISTEN gbrain_changes`` on a connection of its own (not from the pool: a pooled
    connection would hand the notifications to whoever borrows it next). Another process's commit
    that wrote the change log (any page or file write while a folder is bound) arrives as one
    notification; :meth:`poll` reads what arrived without a round trip to the server.
    The connection's ``application_name`` is ``name``, by default ``gbrain-listen:<pid>`` (visible in
    ``pg_stat_activity``; a watch's: ``SyncEngine.listen_name``, which names its sync client and
    machine). The server probes it with its own TCP keepalives, :data:`LISTEN_KEEPALIVES`. Raises
    :class:`GBrainError` (password redacted) when the server cannot be reached."""

    def __init__(self, url: str, channel: str = CHANGES_CHANNEL, name: str | None = None):
        import psycopg

        self.url = url
        self.seen = 0
        try:
            self._conn = psycopg.connect(url, **conn_kwargs(url, autocommit=True, application_name=name or f"gbrain-listen:{os.getpid()}"))
            for k, v in listen_settings(url).items():
                try:
                    self._conn.execute(f"SET {k} = {int(v)}")
                except psycopg.Error:  # (a server or pooler that refuses it: listened to all the same)
                    pass
            self._conn.execute(f"LISTEN {channel}")
        except psycopg.Error as e:
            raise GBrainError(f"cannot listen for changes on {redact(url)}: {_why(e, url)}") from None

    def poll(self) -> int:
        """The number of notifications received so far (this call reads those already on the
        socket and never waits). Raises ``sqlite3.OperationalError`` when the connection broke."""
        try:
            for _ in self._conn.notifies(timeout=0):
                self.seen += 1
        except self._psycopg_error() as e:
            raise sqlite3.OperationalError(f"lost the change notifications connection: {_why(e, self.url)}") from None
        return self.seen

    def fileno(self) -> int:
        """The LISTEN connection's socket (readable when a notification, or the server's close,
        arrived): for ``select``."""
        return self._conn.fileno()

    def _psycopg_error(self):
        import psycopg

        return psycopg.Error

    def close(self) -> None:
        try:
            self._conn.close()
        except Exception:
            pass


# ---------------------------------------------------------------------------
# opening and migrating
# ---------------------------------------------------------------------------


def schema_version(conn: PgConnection) -> int:
    """The brain's Postgres schema version (``gbrain_schema``; 0: none yet)."""
    r = conn._one("SELECT to_regclass('gbrain_schema') IS NOT NULL")
    if not r[0]:
        return 0
    return int(conn._one("SELECT coalesce(max(version), 0) FROM gbrain_schema")[0])


def _schema_sql(v: int) -> str:
    from importlib import resources

    return (resources.files("gbrain.storage") / "sql" / f"pg_v{v}.sql").read_text(encoding="utf-8")


def _relink(conn: "PgConnection") -> None:
    from .derive import relink_all

    relink_all(conn)


def _search_words(conn: "PgConnection") -> None:
    from .db import rederive_search_words

    rederive_search_words(conn)


def _compat_words(conn: "PgConnection") -> None:
    from .db import rederive_compat_words

    rederive_compat_words(conn)


def _trial_pages(conn: "PgConnection") -> None:
    from .db import rederive_trial_pages

    rederive_trial_pages(conn)


def _comment_pages(conn: "PgConnection") -> None:
    from .db import rederive_comment_pages

    rederive_comment_pages(conn)


def _property_links(conn: "PgConnection") -> None:
    from .db import rederive_property_link_pages

    rederive_property_link_pages(conn)


def _cjk(conn: "PgConnection") -> None:
    from .db import rederive_cjk

    rederive_cjk(conn)


def _table_pages(conn: "PgConnection") -> None:
    from .db import rederive_table_pages

    rederive_table_pages(conn)


def _logseq_pages(conn: "PgConnection") -> None:
    from .db import rederive_logseq_pages, relink_title_paths

    rederive_logseq_pages(conn)
    relink_title_paths(conn)


def _slash_titles(conn: "PgConnection") -> None:
    from .db import rekey_slash_titles

    rekey_slash_titles(conn)


def _journal_pages(conn: "PgConnection") -> None:
    from .db import rederive_journal_pages

    rederive_journal_pages(conn)


def _template_tag_pages(conn: "PgConnection") -> None:
    from .db import rederive_template_tag_pages

    rederive_template_tag_pages(conn)


def _migrants(conn: "PgConnection") -> None:
    from .db import rederive_notion_pages, relink_journal_links

    rederive_notion_pages(conn)
    relink_journal_links(conn)


def _template_name_pages(conn: "PgConnection") -> None:
    from .db import rederive_template_name_pages

    rederive_template_name_pages(conn)


def _quote_order_pages(conn: "PgConnection") -> None:
    from .db import rederive_quote_pages

    rederive_quote_pages(conn)


def _numeric_tag_pages(conn: "PgConnection") -> None:
    from .db import rederive_numeric_tag_pages

    rederive_numeric_tag_pages(conn)


def _file_refs(conn: "PgConnection") -> None:
    from .db import file_refs_upgrade

    file_refs_upgrade(conn)


def _mixed_underline_pages(conn: "PgConnection") -> None:
    from .db import rederive_mixed_underline_pages

    rederive_mixed_underline_pages(conn)


def _migrant_leftovers(conn: "PgConnection") -> None:
    from .db import rederive_migrant_leftovers, relink_title_paths

    rederive_migrant_leftovers(conn)
    relink_title_paths(conn)


def _search_text(conn: "PgConnection") -> None:
    from .db import rederive_search_text

    rederive_search_text(conn)


def _raw_spans(conn: "PgConnection") -> None:
    from .rawspans import to_spans

    to_spans(conn)


def _dataview_pages(conn: "PgConnection") -> None:
    from .db import rederive_dataview_pages

    rederive_dataview_pages(conn)


def _symbol_links(conn: "PgConnection") -> None:
    from .db import relink_symbol_links

    relink_symbol_links(conn)


def _caret_links(conn: "PgConnection") -> None:
    from .db import rederive_caret_link_pages

    rederive_caret_link_pages(conn)


def _notion_relation_text(conn: "PgConnection") -> None:
    from .db import rederive_notion_relation_pages

    rederive_notion_relation_pages(conn)


def _canvas_cards(conn: "PgConnection") -> None:
    from .db import refill_canvas_cards

    refill_canvas_cards(conn)


def _logseq_tag_links(conn: "PgConnection") -> None:
    from .db import rederive_logseq_tag_pages

    rederive_logseq_tag_pages(conn)


def _logseq_graphs(conn: "PgConnection") -> None:
    from .db import rederive_graphless_pages, rekey_slash_end_names

    rederive_graphless_pages(conn)
    rekey_slash_end_names(conn)


def _blank_tag_pages(conn: "PgConnection") -> None:
    from .db import rederive_blank_tag_pages

    rederive_blank_tag_pages(conn)


def _h1_names(conn: "PgConnection") -> None:
    from .db import rederive_h1_pages

    rederive_h1_pages(conn)


def _graphless_journals(conn: "PgConnection") -> None:
    from .db import rederive_graphless_journals

    rederive_graphless_journals(conn)


def _letter_fold(conn: "PgConnection") -> None:
    from .db import rederive_letter_words

    rederive_letter_words(conn)


def _link_labels(conn: "PgConnection") -> None:
    from .db import fill_link_labels

    fill_link_labels(conn)


def _visible_labels(conn: "PgConnection") -> None:
    from .db import relabel_visible

    relabel_visible(conn)


def _read_context_pages(conn: "PgConnection") -> None:
    from .db import rederive_read_context_pages

    rederive_read_context_pages(conn)


def _obsidian_key_pages(conn: "PgConnection") -> None:
    from .db import rederive_obsidian_key_pages

    rederive_obsidian_key_pages(conn)


def _name_folds(conn: "PgConnection") -> None:
    from .db import fill_name_folds

    fill_name_folds(conn)


def _script_folds(conn: "PgConnection") -> None:
    from .db import fill_name_folds

    fill_name_folds(conn)


def _fold_names(conn: "PgConnection") -> None:
    from .db import fill_fold_names

    fill_fold_names(conn)


def _nav_entries(conn: "PgConnection") -> None:
    from .db import fill_nav_entries

    fill_nav_entries(conn)


def _bom_sidecars(conn: "PgConnection") -> None:
    from .db import fill_bom_sidecars

    fill_bom_sidecars(conn)


def _tag_identity_pages(conn: "PgConnection") -> None:
    from .db import rederive_tag_identity_pages

    rederive_tag_identity_pages(conn)


def _twin_sidecars(conn: "PgConnection") -> None:
    from .db import fill_twin_sidecars

    fill_twin_sidecars(conn)


def _comment_rules(conn: "PgConnection") -> None:
    from .db import resplit_comment_pages

    resplit_comment_pages(conn)


def _other_spellings(conn: "PgConnection") -> None:
    from .db import _m77_other_spellings

    _m77_other_spellings(conn)


#: schema versions whose SQL is followed by a Python step, in the same transaction
def _script_letter_words(conn: "PgConnection") -> None:
    from .db import _m68_script_letter_words

    _m68_script_letter_words(conn)


def _canvas_folds(conn: "PgConnection") -> None:
    from .db import _m70_canvas_folds

    _m70_canvas_folds(conn)


def _logseq_names(conn: "PgConnection") -> None:
    from .db import _m71_logseq_names

    _m71_logseq_names(conn)


def _escaped_hashes(conn: "PgConnection") -> None:
    from .db import _m72_escaped_hashes

    _m72_escaped_hashes(conn)


def _logseq_file_names(conn: "PgConnection") -> None:
    from .db import _m73_logseq_file_names

    _m73_logseq_file_names(conn)


def _logseq_contents(conn: "PgConnection") -> None:
    from .db import _m74_logseq_contents

    _m74_logseq_contents(conn)


def _logseq_days(conn: "PgConnection") -> None:
    from .db import _m75_logseq_days

    _m75_logseq_days(conn)


def _logseq_settings(conn: "PgConnection") -> None:
    from .db import _m76_logseq_settings

    _m76_logseq_settings(conn)


def _logseq_old_folders(conn: "PgConnection") -> None:
    from .db import _m78_logseq_old_folders

    _m78_logseq_old_folders(conn)


def _unread_and_bare_text(conn: "PgConnection") -> None:
    from .db import _m79_unread_and_bare_text

    _m79_unread_and_bare_text(conn)


def _raw_html_blocks(conn: "PgConnection") -> None:
    from .db import _m81_raw_html_blocks

    _m81_raw_html_blocks(conn)


def _bare_headings_crlf_spans(conn: "PgConnection") -> None:
    from .db import _m83_bare_headings_crlf_spans

    _m83_bare_headings_crlf_spans(conn)


def _crlf_tags(conn: "PgConnection") -> None:
    from .db import _m84_crlf_tags

    _m84_crlf_tags(conn)


_PY_STEPS = {9: _relink,  # v9: links resolve to the nearest page of a shared name (SQLite v12)
             11: _search_words,  # v11: search reads the frontmatter's words (SQLite v14)
             13: _compat_words,  # v13: compatibility characters' NFKC words (SQLite v15)
             15: _trial_pages,  # v15: the Obsidian trial's page-model fixes re-derived (SQLite v17)
             17: _property_links,  # v17: links in Obsidian properties (SQLite v19)
             21: _cjk,  # v21: CJK bigrams (SQLite v21)
             22: _comment_pages,  # v22: no links in inline %% comments (SQLite v22)
             23: _table_pages,  # v23: a link in a table has its row as context (SQLite v23)
             26: _logseq_pages,  # v26: Logseq page properties, #[[tags]], [[a/b]] by title (SQLite v26)
             27: _slash_titles,  # v27: a title holding '/' keyed whole (SQLite v27)
             29: _journal_pages,  # v29: tags strings split at white space, excalidraw embeds (SQLite v29)
             30: _template_tag_pages,  # v30: a template's placeholder in the tags is no tag (SQLite v30)
             31: _migrants,  # v31: Notion's Tags: property, [[Nov 28th, 2026]] finds a Logseq journal (SQLite v31)
             32: _template_name_pages,  # v32: a template's placeholder is no title or alias (SQLite v32)
             33: _quote_order_pages,  # v33: a quote a list ends stays before the list's next blocks (SQLite v33)
             34: _numeric_tag_pages,  # v34: a tag of digits only (tags: [2026]) is no tag (SQLite v34)
             35: _file_refs,  # v35: the history's copies of current files become references (SQLite v35)
             37: _mixed_underline_pages,  # v37: a paragraph over a line of '=' and '-' mixed is a heading (SQLite v37)
             38: _migrant_leftovers,  # v38: Notion relation properties, Logseq journal titles, Bear's [[Note/Heading]] (SQLite v38)
             40: _search_text,  # v40: search reads a link's label, not its address (SQLite v39)
             41: _raw_spans,  # v41: a sidecar's sources are spans of its bytes (SQLite v40)
             42: _dataview_pages,  # v42: opening key:: lines outside a Logseq graph are Dataview fields (SQLite v41)
             43: _symbol_links,  # v43: a name of no letter or digit resolves by itself, not by the empty loose key (SQLite v42)
             46: _caret_links,  # v46: [[x^y]] names the note x^y, as Obsidian (SQLite v44)
             47: _notion_relation_text,  # v47: a Notion relation's paths are no searched text nor context (SQLite v45)
             48: _canvas_cards,  # v48: a canvas's cards read by Python, both engines alike (SQLite v46)
             49: _logseq_tag_links,  # v49: a Logseq tag (#budget, tags:: project) is a link to its page (SQLite v47)
             51: _logseq_graphs,  # v51: a pages/journals folder is a Logseq graph's only beside its logseq/config.edn (SQLite v49)
             52: _blank_tag_pages,  # v52: a tags item holding a blank (Nested Folder) is no tag (SQLite v50)
             53: _h1_names,  # v53: a page's first H1 other than its title is a name search weighs as an alias (SQLite v51)
             55: _graphless_journals,  # v55: a vault's journals/ folder (no logseq/config.edn) has no Logseq journal titles (SQLite v53)
             56: _letter_fold,  # v56: ł ø ß æ… spelled in ASCII for search: Lukasz finds Łukasz (SQLite v54)
             58: _link_labels,  # v58: links.label, what the linking page calls its target (SQLite v55)
             60: _name_folds,  # v60: names keyed but for accents: "Zoe Kim" is the exact name of "Zoë Kim" (SQLite v56)
             63: _visible_labels,  # v63: a link's label is its visible text, [**Sarah** fund] Sarah fund (SQLite v59)
             64: _obsidian_key_pages,  # v64: aliases: a, b is two aliases, Tags:/Aliases: read, [^1]: a footnote's first word searched (SQLite v60)
             65: _nav_entries,  # v65: a nav file's entries stored, not parsed at every backlinks (SQLite v61)
             66: _read_context_pages,  # v66: a link's context has no %% comment, block id or callout marker (SQLite v62)
             67: _fold_names,  # v67: a name's folded words (Łukasz → Lukasz) at the title's weight (SQLite v63)
             68: _bom_sidecars,  # v68: a .raw sidecar starting with a byte order mark read as JSON past it (SQLite v64)
             69: _tag_identity_pages,  # v69: a tag's identity is NFC + lowercase, as Obsidian: #ß-tag and #SS-tag two tags (SQLite v65)
             71: _twin_sidecars,  # v71: a page with two .raw sidecars takes its rows from the one raw/raw-put use (SQLite v66)
             72: _script_folds,  # v72: a name's folded key drops accents only: ガンダム is not カンタム, Айда not Аида (SQLite v67)
             73: _script_letter_words,  # v73: search folds ё to е and Greek accents: Ежик finds Ёжик, Αθηνα Αθήνα (SQLite v68)
             74: _comment_rules,  # v74: a '---' below a %% comment left open is inside it: such pages split again (SQLite v69)
             75: _canvas_folds,  # v75: ѐ ѝ fold to е и; canvas cards get their folded words (SQLite v70)
             76: _logseq_names,  # v76: a Logseq graph's pages/Project___Alpha.md is titled Project/Alpha (SQLite v71)
             77: _escaped_hashes,  # v77: an escaped \# is no tag (SQLite v72)
             78: _logseq_file_names,  # v78: a Logseq graph's page named by its file, a journal by its day, before an H1; journal formats read as EDN (SQLite v73)
             79: _logseq_contents,  # v79: a Logseq graph's pages/contents.md is titled Contents (SQLite v74)
             80: _logseq_days,  # v80: a graph's page named as a day is a journal; days read as Logseq does (SQLite v75)
             83: _logseq_settings,  # v83: a graph's legacy :date-formatter is its journal title format, its folder settings read (SQLite v76)
             85: _other_spellings,  # v85: words with harakat indexed bare, words with đ in their dj spelling, Thai runs as bigrams (SQLite v77)
             86: _logseq_old_folders,  # v86: a graph naming other folders reads its default pages/, journals/ too (SQLite v78)
             87: _unread_and_bare_text,  # v87: HTML tags unindexed, words with Arabic marks or tatweel bare in place (SQLite v79)
             89: _raw_html_blocks,  # v89: an HTML block read raw: its escaped or backticked tags unindexed too (SQLite v81)
             91: _bare_headings_crlf_spans,  # v91: headings indexed bare; a CRLF blank line ends a code span (SQLite v83)
             92: _crlf_tags}  # v92: a CR in a tag's white space is white space, as LF (SQLite v84)


def migrate(conn: PgConnection) -> int:
    """Apply pending schema versions (``sql/pg_vN.sql``), each in one transaction under an
    advisory lock; returns the version. Raises :class:`GBrainError` for a newer schema."""
    v = schema_version(conn)
    if v > PG_SCHEMA_VERSION:
        from .db import newer_schema

        raise GBrainError(newer_schema(v, PG_SCHEMA_VERSION, conn.path, " (Postgres)"))
    if v == PG_SCHEMA_VERSION:
        conn.schema_known = True
        return v
    from .db import upgrade_note

    upgrade_note(conn, v, PG_SCHEMA_VERSION, " (Postgres)")
    c = conn._live()
    try:
        c.execute("BEGIN")
        c.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATE_LOCK,))
        c.execute("SELECT set_config('gbrain.schema', %s, true)", (str(PG_SCHEMA_VERSION),))  # (v28's guard)
        c.execute("CREATE TABLE IF NOT EXISTS gbrain_schema (version integer PRIMARY KEY, applied_at text NOT NULL DEFAULT now()::text)")
        v = int(c.execute("SELECT coalesce(max(version), 0) FROM gbrain_schema").fetchone()[0])
        for i in range(v + 1, PG_SCHEMA_VERSION + 1):
            c.execute(_schema_sql(i))
            if i in _PY_STEPS and v > 0:  # (a new brain has nothing to redo)
                _PY_STEPS[i](conn)
            c.execute("INSERT INTO gbrain_schema(version) VALUES (%s)", (i,))
        c.execute("COMMIT")
    except conn._psycopg.Error as e:
        c.execute("ROLLBACK")
        raise GBrainError(f"cannot set up the brain schema on {conn.path}: {redact(e, conn.url)}") from None
    conn.schema_known = True
    return PG_SCHEMA_VERSION


def database_schema_version(url: str) -> int:
    """The gbrain schema version of the Postgres database at ``url`` (0: no brain there yet), read
    on one short connection without migrating. Raises :class:`GBrainError` (password redacted)
    when it cannot be reached."""
    import psycopg

    try:
        with psycopg.connect(url, **conn_kwargs(url)) as c:
            if not c.execute("SELECT to_regclass('gbrain_schema') IS NOT NULL").fetchone()[0]:
                return 0
            return int(c.execute("SELECT coalesce(max(version), 0) FROM gbrain_schema").fetchone()[0])
    except psycopg.Error as e:
        raise _cannot_connect(e, url) from None


def brain_exists(url: str) -> bool:
    """Whether the database at ``url`` already holds a gbrain schema. Raises :class:`GBrainError`
    (password redacted) when it cannot be reached."""
    import psycopg

    try:
        with psycopg.connect(url, **conn_kwargs(url)) as c:
            return bool(c.execute("SELECT to_regclass('gbrain_schema') IS NOT NULL").fetchone()[0])
    except psycopg.Error as e:
        raise _cannot_connect(e, url) from None


def connect(url: str) -> PgConnection:
    """Open (and migrate) the Postgres brain at ``url``. Raises :class:`GBrainError` (password
    redacted) when the server cannot be reached or the schema cannot be set up."""
    try:
        import psycopg  # noqa: F401
        import psycopg_pool  # noqa: F401
    except ImportError:
        raise GBrainError("a postgresql:// brain needs psycopg 3 and psycopg-pool: pip install 'psycopg[binary]' psycopg-pool") from None
    conn = PgConnection(url)
    try:
        migrate(conn)
    except BaseException:
        conn.close()
        raise
    return conn


# ---------------------------------------------------------------------------
# pgvector
# ---------------------------------------------------------------------------


def pg_vector_text(v) -> str:
    """A vector (little-endian float32 bytes or an array) as pgvector's text form ``[x,y,…]``."""
    import numpy as np

    a = np.frombuffer(v, dtype="<f4") if isinstance(v, (bytes, bytearray, memoryview)) else np.asarray(v, dtype=np.float32)
    return "[" + ",".join(f"{x:.9g}" for x in a.tolist()) + "]"  # 9 significant digits: every float32 exactly


def hnsw_index_name(model: str, dims: int) -> str:
    import hashlib

    return "idx_vec_hnsw_" + hashlib.sha1(f"{model}\0{dims}".encode("utf-8")).hexdigest()[:12]


def ensure_hnsw_index(conn, model: str, dims: int) -> None:
    """Postgres: an HNSW index (pgvector, cosine distance; Malkov & Yashunin 2018) over the
    vectors of ``model`` with ``dims`` dimensions, made once (a partial expression index: the
    ``vec`` column holds vectors of any size, an HNSW index needs one). The connection remembers
    the indexes it found until :func:`forget_hnsw_indexes` (each embed run starts with it, as
    another process may have dropped one: :func:`drop_hnsw_indexes`); an index that exists
    costs one catalog lookup, not the table lock ``CREATE INDEX`` takes even when it exists."""
    name = hnsw_index_name(model, dims)
    seen = conn.__dict__.setdefault("_hnsw", set())
    if name in seen:
        return
    if conn.execute("SELECT to_regclass(?) IS NULL", (name,)).fetchone()[0]:
        lit = model.replace("'", "''")
        conn.execute(f"CREATE INDEX IF NOT EXISTS {name} ON page_embeddings USING hnsw ((vec::vector({int(dims)})) vector_cosine_ops) WHERE model = '{lit}' AND dims = {int(dims)}")
    seen.add(name)


def forget_hnsw_indexes(conn) -> None:
    """Forget the HNSW indexes ``conn`` saw (:func:`ensure_hnsw_index` looks again)."""
    conn.__dict__.pop("_hnsw", None)


def drop_hnsw_indexes(conn, model: str) -> list[str]:
    """Postgres: drop the HNSW indexes of ``model`` (every vector size), as ``embed-drop`` deletes
    its vectors (in its transaction): an index left behind is not empty but holds every deleted
    vector until a VACUUM (whose repair of the graph walks them all), and the planner weighs it
    for every vector query. A later embed of the model makes it again (:func:`ensure_hnsw_index`).
    Returns the names dropped."""
    dropped = []
    rows = conn.execute("SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() "
                        "AND tablename = 'page_embeddings' AND starts_with(indexname, 'idx_vec_hnsw_')").fetchall()
    for name, idef in rows:
        m = re.search(r"vector\((\d+)\)", idef)
        if m and name == hnsw_index_name(model, int(m.group(1))):
            conn.execute(f"DROP INDEX IF EXISTS {name}")
            dropped.append(name)
    conn.__dict__.get("_hnsw", set()).difference_update(dropped)
    return dropped
