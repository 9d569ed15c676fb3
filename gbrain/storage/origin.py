"""Who is writing: the origin recorded with every version in the page history.

The surface (``cli``, ``mcp``, ``pipe``, ``call``, ``sync``, ``watch``, ``import``; ``api``
when gbrain is used as a library), the operation (``put``, ``tag``, ``revert``, ``file
changed``, …), over MCP the client's name from the ``initialize`` handshake, and the writer:
the person (or agent) on whose behalf this process writes (:func:`identity`: ``$GBRAIN_USER``,
else ``login@host``), so that a brain several people's machines or agents write tells their
edits apart.

It lives in a :class:`contextvars.ContextVar`, so each thread (the MCP server runs every tool
call in a worker thread) and each nested call sees its own value. The history triggers read it
through the SQL function ``gb_origin(i)`` that :func:`gbrain.storage.db.connect` registers on
every connection (on Postgres: the session setting ``gbrain.origin``, :func:`fields`), so the
origin lands in the writer's own transaction.
"""
from __future__ import annotations

import contextlib
import functools
import os
from contextvars import ContextVar
from typing import Iterator, NamedTuple


class Origin(NamedTuple):
    surface: str = "api"
    operation: str = ""
    client: str = ""
    user: str = ""  #: the writer; '' means this process's :func:`identity`


_CURRENT: ContextVar[Origin] = ContextVar("gbrain_origin", default=Origin())


def _clean(s: str) -> str:
    """``s`` on one line: control characters (a tab would split Postgres' ``gbrain.origin``)
    and runs of white space become one space; trimmed."""
    return " ".join("".join(ch if ch.isprintable() else " " for ch in s).split())


@functools.lru_cache(maxsize=1)
def identity() -> str:
    """The writer this process records with every version it writes: ``$GBRAIN_USER`` when set
    and not blank (cleaned to one line), else ``login@host`` — the OS login name
    (``getpass.getuser``: ``$LOGNAME``/``$USER``/… then the password database) and the host name
    up to its first dot (``socket.gethostname``: no network look-up). A login name that cannot
    be read (a container whose uid has no passwd entry) is ``uid<N>``; a host name that cannot,
    ``localhost``. Computed once per process (``identity.cache_clear()`` forgets it). Never raises."""
    env = _clean(os.environ.get("GBRAIN_USER", ""))
    if env:
        return env
    try:
        import getpass

        login = _clean(getpass.getuser())
    except Exception:  # KeyError / OSError: no passwd entry and no login variable
        login = ""
    if not login:
        login = f"uid{os.getuid()}" if hasattr(os, "getuid") else "unknown"
    try:
        import socket

        host = _clean(socket.gethostname()).split(".")[0]
    except Exception:
        host = ""
    return f"{login}@{host or 'localhost'}"


def current() -> Origin:
    """The origin writes made now are recorded with (``user`` '' is :func:`identity`)."""
    return _CURRENT.get()


def fields() -> tuple[str, str, str, str]:
    """``(surface, operation, client, writer)`` recorded now: :func:`current` with the writer
    filled in (what ``gb_origin(0..3)`` return)."""
    o = _CURRENT.get()
    return (o.surface, o.operation, o.client, o.user or identity())


@contextlib.contextmanager
def origin(surface: str | None = None, operation: str | None = None, client: str | None = None, user: str | None = None) -> Iterator[Origin]:
    """Record writes made inside the block with this origin; ``None`` keeps the outer value
    (``user``: the writer instead of this process's :func:`identity`)."""
    cur = _CURRENT.get()
    new = Origin(surface if surface is not None else cur.surface, operation if operation is not None else cur.operation,
                 client if client is not None else cur.client, _clean(user) if user is not None else cur.user)
    token = _CURRENT.set(new)
    try:
        yield new
    finally:
        _CURRENT.reset(token)


def sql_field(i: int) -> str:
    """``gb_origin(i)`` in SQL: field ``i`` (0 surface, 1 operation, 2 MCP client, 3 writer) of
    the current origin (:func:`fields`)."""
    i = int(i)
    if i == 3:
        return _CURRENT.get().user or identity()
    return _CURRENT.get()[i]
