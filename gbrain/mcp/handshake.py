"""The MCP ``initialize`` answer, written before the MCP SDK is imported (issue 14, item 5).

Importing the SDK (``mcp`` with its pydantic models of every protocol revision) costs ~0.9 s,
and an MCP host waits for the answer to ``initialize`` before it sends anything else. So
``gbrain serve`` starts importing the SDK in a background thread, reads the first line of stdin
itself (one byte at a time, so not a byte past that line leaves fd 0 before the SDK claims it),
and when that line is an ``initialize`` request this module can answer exactly as the SDK
would, writes the answer at once. The SDK then gets the same line first (its session records
the client and the negotiated version as if it had answered) and its own answer to it is
dropped (:func:`gbrain.mcp.server._run_stdio`); everything after goes to the SDK as before.
Until the SDK has loaded, plain ``tools/list``, ``prompts/list``, ``resources/list``,
``resources/templates/list`` and ``ping`` requests after it are answered here too
(:func:`answer_early`).

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
from typing import NoReturn

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

#: the prompts :func:`gbrain.mcp.server.build_server` registers before the skills', in order: name,
#: description, and each argument's (name, description); every argument is optional
PROMPTS: tuple = (
    ("brain_briefing", "Compile a briefing from the current brain state",
     (("since", "pages updated since: a span like 24h / 7d, or an ISO date"), ("focus", "a topic, person or company to focus on"))),
    ("brain_ingest_meeting", "Guide for ingesting a meeting transcript",
     (("transcript", "the meeting transcript or notes"), ("source_ref", "meeting id or URL, recorded in the ingest log"))),
)
#: a skill prompt's one argument (``task``)
SKILL_TASK = "what to apply the workflow to (a question, a document, a page)"
#: the resources and resource templates :func:`gbrain.mcp.server.build_server` registers before
#: the skills', in order: (uri or template, name, description, MIME type)
RESOURCES: tuple = (("brain://index", "index", "Every page's brain://pages URI (percent-encoded where needed), grouped by type (JSON)", "application/json"),)
TEMPLATES: tuple = (
    ("brain://index{?cursor}", "index-page", "The next page of brain://index (its `next` URI)", "application/json"),
    ("brain://pages/{+slug}{?offset,max_chars,hash}", "page",
     "A page's markdown exactly as stored; a long one in parts of 60,000 characters (a second text gives the next part's URI, "
     "whose ?hash= refuses a page changed since; ?max_chars=0: whole)", "text/markdown"),
)


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
    """An id this module answers: an integer JSON-RPC peers read alike (64 bits) or a string
    that is valid Unicode (no lone surrogate, which the SDK's parser refuses)."""
    if isinstance(v, int) and not isinstance(v, bool):
        return -(2**63) <= v < 2**63
    if isinstance(v, str):
        try:
            v.encode("utf-8")
        except UnicodeEncodeError:
            return False
        return True
    return False


def _no_twins(pairs: list) -> dict:
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):  # which one a parser keeps is its own choice
        raise ValueError("a key twice")
    return dict(pairs)


def _message(line: bytes) -> dict | None:
    """``line`` as a JSON object when it is one read alike by every JSON-RPC parser (UTF-8, no
    lone CR, no key twice); None for anything else."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if "\r" in text.removesuffix("\r\n"):  # the SDK reads a lone CR as the end of a line
        return None
    try:
        msg = json.loads(text, object_pairs_hook=_no_twins)
    except (ValueError, RecursionError):
        return None
    return msg if isinstance(msg, dict) else None


def _dumps(msg: dict) -> bytes:
    """``msg`` as the SDK writes a message: compact JSON, UTF-8, one line."""
    return (json.dumps(msg, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


def initialize_answer(line: bytes) -> bytes | None:
    """The JSON-RPC line (ending in ``\\n``) answering ``line`` when it is a valid ``initialize``
    request, exactly as the SDK would write it; None for anything else (the SDK answers it)."""
    msg = _message(line)
    if msg is None or set(msg) != {"jsonrpc", "id", "method", "params"}:
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
    return _dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result})


def tool_output_schema(o) -> dict:
    """The tool's ``outputSchema``: the operation's result (``Operation.output_schema``) or
    a tool error's object (:data:`gbrain.errors.ERROR_SCHEMA`). The error arm is there because
    the TypeScript SDK's 1.x client (``@modelcontextprotocol/sdk``) validates
    ``structuredContent`` against the schema on ``isError`` results too and throws (-32602)
    instead of handing the error over when it does not conform; its 2.x client and the Python
    SDK's skip error results. With the union both readings of the spec ("structured results
    conform to the schema") hold."""
    from ..errors import ERROR_SCHEMA

    return {"type": "object", "anyOf": [o.output_schema(), ERROR_SCHEMA]}


def tool_operations(read_only: bool = False) -> list:
    """The operations exposed as MCP tools, in registry order; with ``read_only`` only those
    that change nothing (``serve --read-only``)."""
    from .. import operations as ops

    return [o for o in ops.REGISTRY.values() if o.mcp and not (read_only and o.mutating)]


_TOOLS: dict[bool, dict] = {}

#: the fields of the SDK's ``InputSchema``/``OutputSchema`` wire models, in their order: the SDK
#: writes them first, then the schema's other keys as given (``None`` values left out)
_SCHEMA_FIELDS = ("$schema", "properties", "required", "type")


def _wire_schema(schema: dict) -> dict:
    """``schema`` with its keys in the order the SDK writes a tool's input or output schema."""
    out = {k: schema[k] for k in _SCHEMA_FIELDS if schema.get(k) is not None}
    out.update((k, v) for k, v in schema.items() if k not in _SCHEMA_FIELDS and v is not None)
    return out



def tools_list_result(read_only: bool = False) -> dict:
    """The ``tools/list`` result as the SDK writes it for the server
    :func:`gbrain.mcp.server.build_server` builds (every handshake version alike; no pagination):
    each tool's keys in the order of the SDK's wire model (``mcp_types``' ``Tool``: by name), the
    schemas' keys as :func:`_wire_schema` orders them, ``None`` values left out."""
    if read_only in _TOOLS:
        return _TOOLS[read_only]
    tools = []
    for o in tool_operations(read_only):
        ann = {k: v for k, v in sorted(o.annotations().items()) if v is not None}
        tool = {"annotations": ann, "description": o.description, "inputSchema": _wire_schema(o.input_schema()), "name": o.tool_name,
                "outputSchema": _wire_schema(tool_output_schema(o)), "title": ann.get("title")}
        tools.append({k: v for k, v in tool.items() if v is not None})
    return _TOOLS.setdefault(read_only, {"tools": tools})


_LISTS: dict[str, dict] = {}


def _entry(uri_key: str, uri: str, name: str, description: str, mime: str) -> dict:
    return {"description": description, "mimeType": mime, "name": name, uri_key: uri}


def list_result(method: str) -> dict:
    """The result of ``prompts/list``, ``resources/list`` or ``resources/templates/list`` as the
    SDK writes it for the server :func:`gbrain.mcp.server.build_server` builds (in the order it
    registers them: :data:`PROMPTS`, :data:`RESOURCES`, :data:`TEMPLATES`, then the skills'; the
    keys of the SDK's wire models by name; no pagination; the same with ``--read-only``)."""
    if method in _LISTS:
        return _LISTS[method]
    from ..operations.skills import load_skills

    skills = load_skills()
    if method == "prompts/list":
        def prompt(name: str, description: str, args) -> dict:
            return {"arguments": [{"description": d, "name": a, "required": False} for a, d in args], "description": description, "name": name}

        out = {"prompts": [prompt(*p) for p in PROMPTS] + [prompt(sk.name, f"Skill: {sk.summary}", (("task", SKILL_TASK),)) for sk in skills]}
    elif method == "resources/list":
        out = {"resources": [_entry("uri", *r) for r in RESOURCES]
               + [_entry("uri", f"brain://skills/{sk.name}", sk.name, f"Skill (SKILL.md): {sk.summary}", "text/markdown") for sk in skills]}
    else:
        out = {"resourceTemplates": [_entry("uriTemplate", *t) for t in TEMPLATES]}
    return _LISTS.setdefault(method, out)


_EARLY_LISTS = ("prompts/list", "resources/list", "resources/templates/list")


def early_answer(msg: dict | None, read_only: bool) -> tuple[str, bytes | None]:
    """What the early path does with a message read after an answered ``initialize``:
    ``("pass", None)`` for a plain ``notifications/initialized`` (the SDK gets it in order),
    ``("answer", line)`` for a plain ``tools/list``, ``prompts/list``, ``resources/list`` or
    ``resources/templates/list`` (no params but ``{}``: no cursor, no ``_meta``) or ``ping``, and ``("stop", None)`` for anything else: that message and every one
    after it is the SDK's alone."""
    if msg is None or msg.get("jsonrpc") != "2.0" or msg.get("params", {}) != {}:
        return "stop", None
    keys = set(msg) - {"params"}
    if keys == {"jsonrpc", "method"} and msg["method"] == "notifications/initialized":
        return "pass", None
    if keys != {"jsonrpc", "id", "method"} or not _plain_id(msg["id"]):
        return "stop", None
    if msg["method"] == "ping":
        return "answer", _dumps({"jsonrpc": "2.0", "id": msg["id"], "result": {}})
    if msg["method"] == "tools/list":
        return "answer", _dumps({"jsonrpc": "2.0", "id": msg["id"], "result": tools_list_result(read_only)})
    if msg["method"] in _EARLY_LISTS:
        return "answer", _dumps({"jsonrpc": "2.0", "id": msg["id"], "result": list_result(msg["method"])})
    return "stop", None


def _wait_readable(fd: int, loaded) -> bool:
    """Wait until ``fd`` has bytes (or its end) to read: True; False when ``loaded`` (an
    Event) is set first. Where ``select`` cannot watch ``fd`` (a Windows pipe), True at once
    (the read then blocks until the host writes)."""
    import select

    while not loaded.is_set():
        try:
            ready, _, _ = select.select([fd], [], [], 0.05)
        except (OSError, ValueError):
            return True
        if ready:
            return True
    return False


def answer_early(read_only: bool, loaded, fd: int = 0, out: int = 1) -> tuple[list[bytes], list]:
    """After an answered ``initialize``, while the SDK loads (until ``loaded`` is set): read
    stdin line by line and answer what :func:`early_answer` answers. Returns the lines read
    (for the SDK, in order) and the ids answered (the SDK's own answers to them are dropped).
    Stops at stdin's end, at a message it does not answer, or once the SDK is loaded (between
    lines)."""
    lines: list[bytes] = []
    ids: list = []
    while _wait_readable(fd, loaded):
        line = read_first_line(fd)
        if not line:
            break
        lines.append(line)
        msg = _message(line)
        what, answer = early_answer(msg, read_only)
        if what == "stop":
            break
        if answer is not None:
            write_all(out, answer)
            ids.append(msg["id"])  # type: ignore[index]
    return lines, ids


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


def serves_read_only(path, read_only: bool) -> bool:
    """Whether ``serve`` offers the read-only tool set: asked to (``--read-only``), or a SQLite
    brain this process cannot write (``storage.db.is_read_only``)."""
    from ..storage.db import is_read_only

    return read_only or (not isinstance(path, str) and path.exists() and is_read_only(path))


def stop_while_loading(e: KeyboardInterrupt, loaded: dict, done) -> NoReturn:
    """End ``serve`` stopped by a signal while the loader thread of :func:`serve_main` may still
    import the SDK or build the server: close the server it built (if it finished: ``done`` set),
    say so on stderr as :func:`gbrain.mcp.server.serve`'s own handler does, and leave with
    ``os._exit`` (130 for Ctrl-C, the signal's code for ``entry.Terminated``: 143, 129).

    Never an ordinary interpreter exit: finalizing the interpreter while that daemon thread was
    inside an import or a Postgres connect ended the process with SIGABRT or SIGSEGV instead of
    130 (the flaky ``test_ctrl_c_stops_serve`` on Postgres)."""
    code = getattr(e, "code", 130)
    if done.is_set() and "built" in loaded:
        try:
            loaded["built"][1].shutdown(wait=1.0)
        except Exception:  # noqa: BLE001 - stopping anyway; the signal's exit code is what is said
            pass
    try:
        os.write(2, b"gbrain MCP server stopped\n")
    except OSError:
        pass
    os._exit(code if isinstance(code, int) else 130)


def serve_main(db_path: str | None, create: bool = False, read_only: bool = False) -> None:
    """``gbrain serve`` as the entry point runs it: import the SDK (:mod:`gbrain.mcp.server`) and
    build the server (:func:`gbrain.mcp.server.build_server`) in a background thread while this thread reads the first line of stdin and answers it when it
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
    path = resolve_db_path(db_path)
    refuse_missing(path, create)
    loaded: dict = {}

    done = threading.Event()

    def load() -> None:
        try:
            from .. import operations  # noqa: F401 - first: the early tools/list waits for it alone
            from . import server

            loaded["server"] = server
            # the server object too (its tools, prompts, resources: ~0.05 CPU-s), here rather than
            # after the join: a host that calls a tool a moment after the handshake waits less
            loaded["built"] = server.build_server(db_path, create=create, read_only=serves_read_only(path, read_only))
        except BaseException as e:  # reported by the main thread
            loaded["error"] = e
        finally:
            done.set()

    t = threading.Thread(target=load, name="gbrain-mcp-import", daemon=True)
    t.start()
    try:
        line = read_first_line(0)
        answer = initialize_answer(line) if line else None
        lines, ids = [line], []
        if answer is not None:
            write_all(1, answer)
            ids.append(json.loads(line)["id"])
            more, answered = answer_early(serves_read_only(path, read_only), done)
            lines += more
            ids += answered
        t.join()
    except KeyboardInterrupt as e:  # Ctrl-C, SIGTERM or SIGHUP before the server took over its signals
        stop_while_loading(e, loaded, done)
    if "error" in loaded:
        raise loaded["error"]
    loaded["server"].serve(db_path, create=create, read_only=read_only, first_line=b"".join(lines), answered=ids, built=loaded["built"])
