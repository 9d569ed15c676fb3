"""Who is writing: the origin recorded with every version in the page history.

The surface (``cli``, ``mcp``, ``pipe``, ``call``, ``sync``, ``watch``, ``import``; ``api``
when gbrain is used as a library), the operation (``put``, ``tag``, ``revert``, ``file
changed``, …) and, over MCP, the client's name from the ``initialize`` handshake.

It lives in a :class:`contextvars.ContextVar`, so each thread (the MCP server runs every tool
call in a worker thread) and each nested call sees its own value. The history triggers of
migration v4 read it through the SQL function ``gb_origin(i)`` that :func:`gbrain.storage.db.connect`
registers on every connection, so the origin lands in the writer's own transaction.
"""
from __future__ import annotations

import contextlib
from contextvars import ContextVar
from typing import Iterator, NamedTuple


class Origin(NamedTuple):
    surface: str = "api"
    operation: str = ""
    client: str = ""


_CURRENT: ContextVar[Origin] = ContextVar("gbrain_origin", default=Origin())


def current() -> Origin:
    """The origin writes made now are recorded with."""
    return _CURRENT.get()


@contextlib.contextmanager
def origin(surface: str | None = None, operation: str | None = None, client: str | None = None) -> Iterator[Origin]:
    """Record writes made inside the block with this origin; ``None`` keeps the outer value."""
    cur = _CURRENT.get()
    new = Origin(surface if surface is not None else cur.surface, operation if operation is not None else cur.operation, client if client is not None else cur.client)
    token = _CURRENT.set(new)
    try:
        yield new
    finally:
        _CURRENT.reset(token)


def sql_field(i: int) -> str:
    """``gb_origin(i)`` in SQL: field ``i`` (0 surface, 1 operation, 2 client) of the current origin."""
    return _CURRENT.get()[int(i)]
