"""The MCP ``initialize`` answer, written before the MCP SDK is imported (issue 14, item 5).

Importing the SDK (``mcp`` with its pydantic models of every protocol revision) costs ~0.9 s,
and an MCP host waits for the answer to ``initialize`` before it sends anything else. So
``gbrain serve`` starts importing the SDK in a background thread, reads the first line of stdin
itself (one byte at a time, so not a byte past that line leaves fd 0 before the SDK claims it),
and when that line is an ``initialize`` request this module can answer exactly as the SDK
would, writes the answer at once. The SDK then gets the same line first (its session records
the client and the negotiated version as if it had answered) and its own answer to it is
dropped (:func:`gbrain.mcp.server._run_stdio`); everything after goes to the SDK as before.

The answer is the one the SDK builds (``mcp.server.runner: _handle_initialize``): the protocol
version the client asked for when it is one of :data:`HANDSHAKE_VERSIONS`, else the newest of
them; the capabilities gbrain's server has (tools, resources without subscriptions, prompts, none
of them announcing list changes); ``serverInfo`` and the instructions. Anything this module does
not recognise as a plain, valid ``initialize`` (not JSON, another method, a batch, an id that is
neither an integer nor a string, params of another shape) is not answered here: the SDK answers
it, as it would without this module. ``tests/test_mcp.py`` checks that the bytes written here
equal the SDK's own answer (``GBRAIN_FAST_INIT=0`` turns this path off) and that
:data:`HANDSHAKE_VERSIONS` is the SDK's list.

Imports nothing beyond the standard library and :mod:`gbrain` (for the version).
"""
from __future__ import annotations

import json
import os

from .. import __version__

INSTRUCTIONS = (
    "gbrain is a personal knowledge brain: markdown pages (people/, companies/, deals/, meetings/, …) "
    "with YAML frontmatter, a compiled-truth section above the first '---' line and an append-only "
    "timeline below it. Search with brain_search, read with brain_get, write with brain_put "
    "(partial updates keep the rest of the page byte-exact), add dated facts with brain_timeline_add, "
    "cross-reference with brain_link, store sources with brain_ingest. Slugs look like people/ana-lima; "
    "a unique suffix such as ana-lima also works. Workflows (ingest, query, maintain, enrich, briefing) are "
    "the prompts gbrain-<name>, also readable as resources brain://skills/gbrain-<name>."
)
"""The server's ``instructions`` (shown to the agent by the host)."""

HANDSHAKE_VERSIONS: tuple[str, ...] = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
"""Protocol revisions negotiated by ``initialize``, oldest first (the SDK's
``mcp_types.version.HANDSHAKE_PROTOCOL_VERSIONS``); the last is offered for any other request."""

CAPABILITIES: dict = {
    "prompts": {"listChanged": False},
    "resources": {"listChanged": False, "subscribe": False},
    "tools": {"listChanged": False},
}
"""What :func:`gbrain.mcp.server.build_server` offers, as the SDK announces it."""

def enabled() -> bool:
    """False when ``GBRAIN_FAST_INIT=0``: the SDK answers ``initialize`` itself."""
    return os.environ.get("GBRAIN_FAST_INIT", "1") != "0"


def read_first_line(fd: int = 0) -> bytes:
    """The bytes of ``fd`` up to and including the first ``\\n`` (or to end of input), read one
    byte at a time so nothing after it is consumed. ``b""`` when the input is already closed."""
    out = bytearray()
    while True:
        try:
            b = os.read(fd, 1)
        except InterruptedError:
            continue
        if not b:
            break
        out += b
        if b == b"\n":
            break
    return bytes(out)


def _plain_id(v: object) -> bool:
    return (isinstance(v, int) and not isinstance(v, bool)) or isinstance(v, str)


def initialize_answer(line: bytes) -> bytes | None:
    """The JSON-RPC line (ending in ``\\n``) answering ``line`` when it is a valid ``initialize``
    request, exactly as the SDK would write it; None for anything else (the SDK answers it)."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if "\r" in text.removesuffix("\r\n"):  # the SDK reads a lone CR as the end of a line
        return None
    try:
        msg = json.loads(text)
    except ValueError:
        return None
    if not isinstance(msg, dict) or set(msg) != {"jsonrpc", "id", "method", "params"}:
        return None
    if msg["jsonrpc"] != "2.0" or msg["method"] != "initialize" or not _plain_id(msg["id"]):
        return None
    params = msg["params"]
    if not isinstance(params, dict) or set(params) != {"protocolVersion", "capabilities", "clientInfo"}:
        return None
    version, caps, info = params["protocolVersion"], params["capabilities"], params["clientInfo"]
    if not isinstance(version, str) or not isinstance(caps, dict) or not isinstance(info, dict):
        return None
    # client capabilities the SDK accepts as any object; a value of another shape could fail
    # its validation, so only objects (or nothing) are answered here
    if not all(isinstance(v, dict) for v in caps.values()):
        return None
    if not (isinstance(info.get("name"), str) and isinstance(info.get("version"), str)):
        return None
    if not set(info) <= {"name", "version", "title"} or not isinstance(info.get("title", ""), str):
        return None
    result = {
        "capabilities": CAPABILITIES,
        "instructions": INSTRUCTIONS,
        "protocolVersion": version if version in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1],
        "serverInfo": {"name": "gbrain", "version": __version__},
    }
    reply = {"jsonrpc": "2.0", "id": msg["id"], "result": result}
    return (json.dumps(reply, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


def write_all(fd: int, data: bytes) -> None:
    """Write every byte of ``data`` to ``fd``."""
    view = memoryview(data)
    while view:
        try:
            n = os.write(fd, view)
        except InterruptedError:
            continue
        view = view[n:]


def refuse_missing(path, create: bool) -> None:
    """Refuse to serve a brain that is not there, before the server says it runs: a SQLite file
    that does not exist (unless ``create``) or a Postgres database that does not exist
    (:class:`gbrain.errors.BadInput`, exit 2); a folder, an empty file or a file that is not a brain
    (``storage.db.refuse_unusable``: BadInput, exit 2; a file it cannot read, exit 1) too; a
    Postgres server that cannot be reached raises :class:`gbrain.errors.GBrainError` (exit 1). Postgres is asked once (one connection, which
    the server goes on using); a SQLite file costs a ``stat`` and at most 16 bytes read."""
    from ..errors import BadInput

    if not create and not path.exists():
        from ..storage.db import where

        raise BadInput(f"no brain at {where(path)}; give the path of an existing brain with --db, or add --create to start a new one there")
    from ..storage.db import refuse_unusable

    refuse_unusable(path)  # a file that is not a brain: said now, not at every tool call
    if getattr(path, "url", None):
        from ..storage import pg

        pg.probe(path.url)


def serve_main(db_path: str | None, create: bool = False, read_only: bool = False) -> None:
    """``gbrain serve`` as the entry point runs it: import the SDK (:mod:`gbrain.mcp.server`) in a
    background thread while this thread reads the first line of stdin and answers it when it
    is an ``initialize`` request (:func:`initialize_answer`), then hand the line and the rest
    of stdin to :func:`gbrain.mcp.server.serve`. A missing brain (without ``create``) is refused
    before anything is read (:func:`refuse_missing`); an SDK that cannot be imported
    raises its ImportError here. ``GBRAIN_FAST_INIT=0``: the SDK is imported first and answers
    everything itself."""
    import threading

    from ..storage.db import resolve_db_path

    if not enabled():
        from .server import serve

        serve(db_path, create=create, read_only=read_only)
        return
    refuse_missing(resolve_db_path(db_path), create)
    loaded: dict = {}

    def load() -> None:
        try:
            from . import server

            loaded["server"] = server
        except BaseException as e:  # reported by the main thread
            loaded["error"] = e

    t = threading.Thread(target=load, name="gbrain-mcp-import", daemon=True)
    t.start()
    line = read_first_line(0)
    answer = initialize_answer(line) if line else None
    if answer is not None:
        write_all(1, answer)
    t.join()
    if "error" in loaded:
        raise loaded["error"]
    loaded["server"].serve(db_path, create=create, read_only=read_only, first_line=line, answered=answer is not None)
