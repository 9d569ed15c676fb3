"""``gbrain serve``: the MCP server on stdio, generated from the operations registry.

Every operation registered with ``mcp=True`` in :data:`gbrain.operations.REGISTRY` becomes a
tool named ``brain_<name>`` with the operation's JSON schema; nothing here lists tools by hand.
Besides the tools the server offers two resources (``brain://index`` and the template
``brain://pages/{+slug}{?offset,max_chars,hash}``: a long page in parts) and two prompts (``brain_briefing``, ``brain_ingest_meeting``), and
each agent skill as a prompt (``gbrain-ingest``, …) and a resource ``brain://skills/<name>``.

Protocol facts (from the official ``mcp`` SDK 2.x source): :class:`mcp.server.mcpserver.MCPServer`
runs the stdio transport, which re-wraps fd 0/1 as UTF-8 whatever the locale and points fd 1 at
stderr while serving, so only JSON-RPC reaches stdout. Tool failures come back as results with
``isError: true``, the message as text and the error object of ``call``/``pipe`` as
``structuredContent`` (:func:`error_result`); resource failures as JSON-RPC errors.

Concurrency: the core is synchronous. One SQLite connection is opened per server (WAL, 10 s busy
timeout, ``check_same_thread=False``) and every request runs in a worker thread under one lock, so
requests arriving together are answered one after another while the event loop keeps reading. The
connection is in autocommit mode, so each request sees what other processes (CLI, ``watch``)
committed before it started; no page data is cached between requests.
"""
from __future__ import annotations

import io
import json
import logging
import re
import sys
import threading
import time
from typing import Annotated, Any, Callable
from urllib.parse import quote

import anyio.from_thread
import anyio.to_thread
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError
from mcp.server.lowlevel.helper_types import ReadResourceContents
from mcp.server.mcpserver.tools import Tool
from mcp.shared.exceptions import MCPError
from mcp.shared.tool_name_validation import validate_and_warn_tool_name
from mcp_types import INVALID_PARAMS, CallToolResult, TextContent, ToolAnnotations
from mcp_types.jsonrpc import INVALID_REQUEST, PARSE_ERROR
from pydantic import Field

try:  # the SDK's own path checks take `Q: open questions` for a Windows drive; gbrain's
    # check_slug/slug_problem already refuse absolute paths and `..` in every slug
    from mcp.server.mcpserver.resources import ResourceSecurity

    _SLUG_RESOURCE: dict = {"security": ResourceSecurity(exempt_params={"slug"})}
except ImportError:  # older SDKs have no such check
    _SLUG_RESOURCE = {}

from .. import __version__
from .. import operations as ops
from ..core.brain import Brain
from ..core.conflicts import RESOLVE
from ..errors import ERROR_SCHEMA, BadInput, GBrainError, NotFound, error_fields
from .clientname import SDK_DEFAULT_NAMES, label, starter_program
from .handshake import INSTRUCTIONS, PROMPTS, RESOURCES, SKILL_TASK, TEMPLATES, refuse_missing, serves_read_only, tool_operations, tool_output_schema

log = logging.getLogger("gbrain.mcp")



class BrainHost:
    """The one brain a server works on, and the lock that serialises access to it.

    :meth:`run` calls a synchronous function with the open :class:`Brain` in a worker thread.
    The database is opened lazily (first request), so spawn-to-ready does not wait for SQLite.
    """

    def __init__(self, db_path: str | None, create: bool = False, read_only: bool = False):
        self.db_path = db_path
        self.create = create
        #: open the brain so the database itself refuses writes (``serve --read-only``)
        self.read_only = read_only
        self._brain: Brain | None = None
        self._lock = threading.Lock()
        #: cancel events of the calls under way (set them all when the client goes away)
        self.running: set[threading.Event] = set()
        #: the client closed its input (stdin's end was read): calls ended now were not cancelled
        self.closing = False
        #: worker threads still working (a cancelled call's thread runs on to its next check)
        self.busy = 0
        self._busy_lock = threading.Lock()
        #: this session's reads (``ops.Context.reads``): a put of a page changed since merges
        self.reads: dict = {}

    def track(self, fn: Callable[[], Any]) -> Callable[[], Any]:
        """``fn`` counted in :attr:`busy` while it runs."""
        def run() -> Any:
            with self._busy_lock:
                self.busy += 1
            try:
                return fn()
            finally:
                with self._busy_lock:
                    self.busy -= 1
        return run

    def _open(self) -> Brain:
        if self._brain is None:
            self._brain = Brain.open(self.db_path, create=self.create)
            if self.read_only:
                self._brain.refuse_writes()
        return self._brain

    def call(self, fn: Callable[[Brain], Any]) -> Any:
        """Run ``fn(brain)`` under the lock (in the calling thread)."""
        with self._lock:
            b = self._open()
            b._config_cache = None  # config (e.g. timeline_split) may have changed in another process
            return fn(b)

    async def run(self, fn: Callable[[Brain], Any]) -> Any:
        """Run ``fn(brain)`` in a worker thread; returns its result or raises its exception."""
        return await anyio.to_thread.run_sync(self.call, fn)

    def shutdown(self, wait: float = 3.0) -> None:
        """Cancel the calls under way, give their threads ``wait`` seconds to stop at their next
        check, then close the brain (if its lock is free by then). The client went away without
        cancelling them, so a write about to commit commits (``closing``: ``Context.check_cancel``),
        and long reads and embed stop at their next step."""
        for ev in list(self.running):
            ev.closing = True  # type: ignore[attr-defined]
            ev.set()
        end = time.monotonic() + wait
        while self.busy and time.monotonic() < end:
            time.sleep(0.02)
        if self._lock.acquire(timeout=max(0.0, end - time.monotonic())):
            self._lock.release()
            self.close()

    def close(self) -> None:
        with self._lock:
            if self._brain is not None:
                self._brain.close()
                self._brain = None


def _error_text(e: BaseException) -> str:
    if isinstance(e, GBrainError):
        return f"error: {e}"
    if isinstance(e, (OSError, ValueError)):
        return f"error: {type(e).__name__}: {e}"
    return f"internal error: {type(e).__name__}: {e}"


def error_result(e: BaseException) -> CallToolResult:
    """A tool error: ``isError``, the message as text (:func:`_error_text`) and the error object
    ``call`` and ``pipe`` give (:func:`gbrain.errors.error_fields`: message, exit code, kind,
    suggestions) as ``structuredContent``, which every tool's outputSchema admits
    (:func:`tool_output_schema`)."""
    return CallToolResult(content=[TextContent(type="text", text=_error_text(e))], structured_content=error_fields(e), is_error=True)


class OperationTool(Tool):
    """An MCP tool backed by a registry operation. ``parameters`` is the operation's own JSON
    schema and ``out_schema`` its output schema; :meth:`run` checks arguments with
    :func:`gbrain.operations.check_args` and returns the structured result
    (:func:`gbrain.operations.run_tool`) both as ``structuredContent`` and as JSON text (for
    clients that read only text), or a tool error (:func:`error_result`)."""

    out_schema: dict | None = None

    @property
    def output_schema(self) -> dict | None:  # type: ignore[override]
        return self.out_schema

    async def run(self, arguments: dict[str, Any], context: Any, convert_result: bool = False) -> CallToolResult:
        return await self.fn(arguments, context)


#: progress notifications are sent at most this often (seconds); the last one always
PROGRESS_EVERY = 0.2


def _progress_sender(mcp_ctx: Any) -> Callable[[int, int], None]:
    """A ``(done, total)`` callback for a worker thread that sends ``notifications/progress``
    for the request (the SDK sends nothing when the client gave no progress token)."""
    last, sent = [0.0], [-1]

    def send(done: int, total: int) -> None:
        now = time.monotonic()
        if done <= sent[0] or (done < total and now - last[0] < PROGRESS_EVERY):
            return  # each notification's progress grows (the MCP spec's MUST): a count is sent once
        last[0], sent[0] = now, done
        try:
            anyio.from_thread.run(mcp_ctx.report_progress, float(done), float(total), f"{done:,} of {total:,}")
        except Exception:  # the call was cancelled or the client is gone: the work decides
            pass

    return send


def _client_name(context: Any) -> str:
    """The client's name for the history: ``clientInfo.name`` from the MCP ``initialize``
    handshake, or, when that is empty or an SDK's default (``mcp``), with the program that
    started the server (:func:`gbrain.mcp.clientname.label`: ``mcp:agent.py``); '' when none."""
    try:
        name = str(context.request_context.session.client_params.client_info.name or "")
    except AttributeError:
        return ""
    return label(name, starter_program() if name.strip().lower() in SDK_DEFAULT_NAMES | {""} else "")


class _Ending:
    """How a tool call that writes ended once its client gave it up, said on stderr (the
    ``gbrain.mcp`` log), since the client is sent no answer (MCP: a cancelled request gets none,
    and its sender ignores one). A cancel (``notifications/cancelled``): stopped before its commit
    (rolled back: nothing of it written; or after transactions it had committed, which stand), or
    done and committed before the cancel came, so its write stands. The client going away (its
    input closed) cancels nothing: the write under way completes (``closing``:
    ``Context.check_cancel``) and stands. Whichever of the worker (:meth:`watch`) and the request
    (:meth:`cancelled`) comes second says it, once."""

    def __init__(self, o: ops.Operation):
        self.o = o
        self._lock = threading.Lock()
        self._done = False
        self.closing = False

    def watch(self, fn: Callable[[], Any], cancel: threading.Event) -> Callable[[], Any]:
        """``fn`` that, when it ends after the cancel, says how."""
        def run() -> Any:
            try:
                result = fn()
            except ops.Cancelled as e:
                if self.o.mutating and getattr(e, "unstarted", False):  # given up while it waited for its turn (trial 26)
                    log.warning("%s: %s before its turn came; it was not run: nothing of it was written", self.o.tool_name, self._why(started=False))
                elif self.o.mutating:
                    log.warning("%s: %s; it stopped %s", self.o.tool_name, self._why(), f"after {e.committed} committed transaction(s), which stand, "
                                "and rolled back the one under way" if e.committed else "before its commit: nothing of it was written")
                raise
            with self._lock:
                self._done = True
                late = cancel.is_set()
            if late:
                self._stood()
            return result
        return run

    def cancelled(self, cancel: threading.Event, closing: bool = False) -> None:
        """The request was given up (``closing``: the client closed its input): tell the worker;
        say so if it had already finished."""
        with self._lock:
            if closing:
                self.closing = cancel.closing = True  # type: ignore[attr-defined]
            cancel.set()
            done = self._done
        if done:
            self._stood()

    def _why(self, started: bool = True) -> str:
        if not self.closing:
            return "cancelled by the client"
        return "the client went away (closed its input)" + (" while it ran" if started else "")

    def _stood(self) -> None:
        if self.o.mutating:
            if self.closing:
                log.warning("%s: %s; it completed: its write stands", self.o.tool_name, self._why())
            else:
                log.warning("%s: cancelled by the client after it had committed: its write stands (no answer is sent; read the brain to see it)",
                            self.o.tool_name)


_CALL_METADATA: list = []


def _call_metadata() -> Any:
    """The SDK's ``FuncMetadata`` of a tool's ``call`` (:func:`_make_tool`): one for every tool,
    since every ``call`` has the same name and signature (``Tool.from_function`` built a pydantic
    model and its JSON schema per tool: 77 → 51 ms of the first :func:`build_server`'s CPU; :meth:`OperationTool.run`
    never reads it, and the tool's ``parameters`` are the operation's own schema)."""
    if not _CALL_METADATA:
        async def call(arguments: dict, mcp_ctx: Any = None) -> CallToolResult:
            raise NotImplementedError

        _CALL_METADATA.append(Tool.from_function(call, name="brain_call", structured_output=False).fn_metadata)
    return _CALL_METADATA[0]


def _make_tool(o: ops.Operation, host: BrainHost) -> OperationTool:
    hidden = {p.name for p in o.params if not p.in_schema}

    async def call(arguments: dict, mcp_ctx: Any = None) -> CallToolResult:
        warnings: list[str] = []
        cancel = threading.Event()
        ctx = ops.Context(db=host.db_path, on_warning=warnings.append, surface="mcp", client=_client_name(mcp_ctx), cancel=cancel, reads=host.reads,
                          on_progress=_progress_sender(mcp_ctx) if mcp_ctx is not None else None)
        cli_only = sorted(set(arguments or {}) & hidden)
        if cli_only:  # e.g. ingest's FILE: agents send content, the server reads no local files for them
            expected = ", ".join([p.name for p in o.params if p.in_schema] + (["cursor"] if o.page else [])) or "none"
            routed = [ops.REGISTRY[o.routes[k]].tool_name for k in cli_only if k in o.routes]
            hint = f"; call {routed[0]} for that (without it)" if routed else ops.takes_hint(o, arguments, cli_only)
            return error_result(BadInput(f"{o.tool_name}: unknown parameter(s) {', '.join(cli_only)}; expected {expected}{hint}"))
        host.running.add(cancel)
        ended = _Ending(o)
        try:
            # each checks `cancel` first: a call the client gave up while it waited for its turn
            # (behind the lock) is not run when the turn comes
            def turn() -> None:  # the call's turn came: not run when it was given up meanwhile
                try:
                    ctx.check_cancel()
                except ops.Cancelled as e:
                    e.unstarted = True  # type: ignore[attr-defined]
                    raise

            if o.db == "none" or o.own_connection:
                # e.g. brain_embed for minutes: its own connection (WAL lets the others read,
                # and its writes come in short transactions), not the shared lock
                fn = lambda: (turn(), ops.run_tool(o.name, arguments, ctx))[1]  # noqa: E731
            else:
                fn = lambda: host.call(lambda b: (turn(), ops.run_tool(o.name, arguments, ctx, brain=b))[1])  # noqa: E731
            try:
                # abandon on cancel: the request ends at once; the work sees ``cancel`` at its
                # next check (a long read between its steps, a write before its commit, embed
                # after each batch) and stops, keeping what it committed
                result = await anyio.to_thread.run_sync(host.track(ended.watch(fn, cancel)), abandon_on_cancel=True)
            except anyio.get_cancelled_exc_class():
                ended.cancelled(cancel, closing=host.closing)
                raise
        except MCPError:
            raise
        except Exception as e:  # every failure is a tool error, never a crash of the server
            if not isinstance(e, GBrainError):
                log.exception("tool %s failed", o.tool_name)
            return error_result(e)
        finally:
            host.running.discard(cancel)
        if warnings and "warnings" not in result:
            result = {**result, "warnings": warnings}
        return CallToolResult(content=[TextContent(type="text", text=ops.dumps(result))], structured_content=json.loads(ops.dumps(result)))

    validate_and_warn_tool_name(o.tool_name)
    ann = o.annotations()
    return OperationTool(
        fn=call, name=o.tool_name, description=o.description, fn_metadata=_call_metadata(), is_async=True,
        context_kwarg=None,
        title=ann["title"],
        parameters=o.input_schema(),
        out_schema=tool_output_schema(o),
        annotations=ToolAnnotations(
            title=ann["title"], read_only_hint=ann["readOnlyHint"], destructive_hint=ann["destructiveHint"],
            idempotent_hint=ann["idempotentHint"], open_world_hint=ann["openWorldHint"],
        ),
    )


#: pages in one page of the brain://index resource (~55 characters each: ~14,000 tokens at most)
INDEX_PAGE = 1000


def page_uri(slug: str) -> str:
    """The ``brain://pages/{+slug}`` address that reads ``slug``: percent-encoded where a URI
    would read it otherwise (`#` a fragment, `?` a query, `%` an escape, white space and control
    characters), all else as written (`Café résumé` stays legible); the server decodes it."""
    return "brain://pages/" + "".join(c if c not in _URI_ESCAPE and c.isprintable() and not c.isspace() else quote(c, safe="") for c in slug)


_URI_ESCAPE = frozenset("#?%")


def _index(b: Brain, cursor: str | None = None) -> str:
    """One page of the index: ``{pages, by_type, next}`` with at most :data:`INDEX_PAGE` slugs,
    grouped by type in (type, slug) order; ``next`` is the URI of the next page (None: last)."""
    from types import SimpleNamespace

    key = SimpleNamespace(name="index", tool_name="brain://index")
    try:
        offset = ops.decode_cursor(key, {}, cursor)  # type: ignore[arg-type]
    except GBrainError as e:  # its text names a tool: say it as the resource's
        raise BadInput("brain://index: `cursor` is not one this resource gave in a page's `next` URI; start again from brain://index") from e
    total = b.conn.execute("SELECT count(*) FROM pages").fetchone()[0]
    by_type: dict[str, list[str]] = {}
    rows = b.conn.execute("SELECT slug, type FROM pages ORDER BY type, slug LIMIT ? OFFSET ?", (INDEX_PAGE, offset)).fetchall()
    for r in rows:
        by_type.setdefault(r["type"], []).append(page_uri(r["slug"]))
    end = offset + len(rows)
    nxt = f"brain://index?cursor={ops.encode_cursor(key, {}, end)}" if end < total else None  # type: ignore[arg-type]
    return json.dumps({"pages": total, "offset": offset, "by_type": by_type, "next": nxt}, ensure_ascii=False, indent=1)


class _PagePart(str):
    """A part of a long page that ``brain://pages/{+slug}`` gives (the text, byte for byte), with
    ``note``: the second text of the answer, saying where the rest starts and the URI that reads
    it, and ``meta`` (that text's ``_meta``: ``next``, ``next_offset``, ``total_chars``)."""

    note: str = ""
    meta: dict = {}


def _page_part(b: Brain, slug: str, offset: str = "", max_chars: str = "", hash: str = "", reads: dict | None = None) -> str:
    """The page resource: the page's markdown from ``offset`` (a character, as brain_get's), at
    most ``max_chars`` characters cut at a line end (brain_get's default part, ``PART_CHARS``;
    0: the whole page). A part that is not the page's end is a :class:`_PagePart` (trial 26: a
    3 MB page came whole, and a host attaching the resource pasted it all into the context):
    its ``content_hash`` is brain_get's part token, and its ``next`` URI carries the page's
    content hash (``?hash=``, a part token too): a read given one refuses, :class:`Conflict`,
    when the page changed since (parts of two versions would join silently otherwise). The page
    read whole is the session's read of it (``reads``, ``BrainHost.reads``), as a whole brain_get's:
    a later whole brain_put without if_hash merges from it (``operations/core.py: _merge_read``)."""
    from ..core.brain import render_row
    from ..errors import Conflict
    from ..operations.core import PART_CHARS, parse_part_token, part_end, part_token, remember_read

    def number(name: str, v: str, default: int) -> int:
        if v in ("", None):
            return default
        try:
            n = int(v)
        except ValueError:
            n = -1
        if n < 0:
            raise BadInput(f"brain://pages/…?{name}=: {v!r} is not a whole number of characters (0 or more)")
        return n

    start, cap = number("offset", offset, 0), number("max_chars", max_chars, PART_CHARS)
    row = b.resolve_slug(slug)
    text = render_row(row)
    if hash:
        token = parse_part_token(hash)
        was = token[2] if token else hash.strip().lower()
        if was != row["content_hash"]:
            again = page_uri(row["slug"])
            raise Conflict(f"{row['slug']} changed since the part read (content_hash {was[:16]}…, now {row['content_hash'][:16]}…): "
                           f"a part of this version would not join the parts read; read it again from the start: {again}")
    if start > len(text):
        raise BadInput(f"brain://pages/…?offset={start}: past the end of {row['slug']} ({len(text):,} characters)")
    end = part_end(text, start, cap)
    if end >= len(text):
        if not start:
            remember_read(reads, row["id"], row["content_hash"])  # the page whole (a part is no read of it)
        return text[start:] if start else text
    part = _PagePart(text[start:end])
    nxt = f"{page_uri(row['slug'])}?offset={end}&hash={row['content_hash']}"
    call = json.dumps({"slug": row["slug"], "offset": end}, ensure_ascii=False)
    part.note = (f"This is characters {start:,} to {end:,} of the {len(text):,} of {row['slug']} (cut at a line end): the page goes on. "
                 f"Read the rest at {nxt} (its hash: refused if the page changes meanwhile; or brain_get {call}); ?max_chars=0 reads the page whole.")
    part.meta = {"next": nxt, "next_offset": end, "total_chars": len(text), "content_hash": part_token(start, end, row["content_hash"])}
    return part


def _resource_error(e: Exception) -> Exception:
    """The JSON-RPC error for a failed resource read: not found, the caller's bad input
    (``-32602`` invalid params: a URI whose slug is unsafe, ``brain://pages/../x``), or another failure."""
    if isinstance(e, NotFound):
        return ResourceNotFoundError(str(e))
    if isinstance(e, BadInput):
        return MCPError(code=INVALID_PARAMS, message=str(e))
    if isinstance(e, GBrainError):
        return ResourceError(str(e))
    return e


#: what the briefing prompt lists at most: recent pages, open conflicts, ingests (it says when it cut)
BRIEFING_RECENT, BRIEFING_CONFLICTS, BRIEFING_INGESTS = 30, 20, 10


def _capped(lines: list[str], cap: int, cut: str, total: int | None = None) -> str:
    """At most ``cap`` of ``lines`` (``(none)`` for none), and when that left some out (``total``:
    how many there are, when ``lines`` holds only the first), a line saying so: ``cut`` with
    ``{shown}`` and ``{total}`` filled, e.g. ``(showing the newest 30 of 41 pages …)``, so the
    agent knows the list is not the whole and which call gives the rest."""
    total = len(lines) if total is None else total
    out = "\n".join(lines[:cap]) or "(none)"
    if total > min(cap, len(lines)):
        out += "\n(showing " + cut.replace("{shown}", str(min(cap, len(lines)))).replace("{total}", f"{total:,}") + ")"
    return out


BRIEFING_GUIDE = """Compile a briefing from the current state of my brain{focus}.

Recently updated pages (newest first, since {since}):
{recent}

Recent ingests:
{ingests}

Open conflicts (both versions of a page kept; the copy is not the page: """ + RESOLVE + """; brain_conflicts says how for each):
{conflicts}

Brain: {pages} pages ({types}).

How to work:
1. Read the pages that matter with brain_get (or the resource brain://pages/<slug>); look at their
   compiled truth (the state above the --- line) and the newest timeline entries.
2. Use brain_search for people, companies and deals named in them; brain_backlinks shows who links to a page.
3. Write the briefing: what changed, open threads and decisions pending, people to follow up with,
   upcoming dates. Cite pages by slug. Say plainly when the brain has no information on something.
   Name open conflicts as something to merge; never cite a .conflict- copy as the page.
"""


def briefing_text(b: Brain, since: str, focus: str = "") -> str:
    """The ``brain_briefing`` prompt's text for ``b``: pages updated since ``since`` (the newest
    :data:`BRIEFING_RECENT`; pages an import wrote last only counted), the last ingests, open
    conflicts and the brain's counts."""
    # neither conflict copies nor earlier briefings are news (skills/briefing, step 1.1); only the
    # pages shown are read, the rest counted (errors name `since`, the prompt's argument)
    recent, updated, imported = b.recent_news(ops._since(since, "since"), BRIEFING_RECENT)
    conflicts = ops.run("conflicts", {}, brain=b)
    ingests = b.conn.execute("SELECT timestamp, source_type, source_ref, summary FROM ingest_log ORDER BY id DESC LIMIT ?", (BRIEFING_INGESTS,)).fetchall()
    logged = b.conn.execute("SELECT count(*) FROM ingest_log").fetchone()[0] if len(ingests) == BRIEFING_INGESTS else len(ingests)
    listing = json.dumps({"sort": "updated", "since": since}, ensure_ascii=False)
    st = b.stats()
    return BRIEFING_GUIDE.format(
        focus=f", focused on: {focus}" if focus else "",
        since=since,
        recent=_capped([f"- {r['slug']} ({r['type']}) — {r['title']} — updated {r['updated_at']}" for r in recent], BRIEFING_RECENT,
                       "the newest {shown} of {total} pages updated since " + f"{since}; brain_list {listing} lists them all", total=updated)
        + (f"\n({imported:,} more pages updated since {since} were last written by an import: no news; brain_changes "
           + json.dumps({"since": since, "exclude_origin": "import"}, ensure_ascii=False) + " lists the other changes)" if imported else ""),
        conflicts=_capped([f"- {c['path']} ← copy {c['copy_path']}" for c in conflicts], BRIEFING_CONFLICTS,
                          "{shown} of {total} open conflicts; brain_conflicts lists them all"),
        ingests=_capped([f"- {r['timestamp']} {r['source_type']} {r['source_ref']} — {r['summary']}" for r in ingests], BRIEFING_INGESTS,
                        "the last {shown} of {total} ingests", total=logged),
        pages=st["pages"],
        types=", ".join(f"{t} {n}" for t, n in list(st["by_type"].items())[:8]) or "empty",
    )


INGEST_GUIDE = """Ingest this meeting into my brain.{ref_line}

Steps (each a tool call):
1. brain_ingest {{content, source_type: "meeting", source_ref}} stores the transcript as a sources/ page
   and logs it; keep the returned slug to cite.
2. Find every person, company and deal mentioned: brain_search by name; brain_get the page if it exists.
   A slug with .conflict-YYYYMMDDTHHMMSS in it is a conflict copy, not the page: use the slug without it.
3. Existing page: brain_put with compiled_truth (rewrite the state with what is new; the timeline and
   frontmatter stay byte-exact), frontmatter {{"updated": "YYYY-MM-DD"}} (the date you rewrote it), and
   if_hash: the content_hash brain_get returned, so an edit someone saved since your read is not
   overwritten (refused: read again, redo the edit). A long page comes in parts (truncated: true) and
   a part's content_hash is a part token: never put a part back as content (it would cut the rest);
   read it whole with max_chars 0 first, or use the partial updates. New entity worth a page: brain_put with full
   content (frontmatter with title and type, compiled truth, a --- line, then a timeline).
4. For each datable event: brain_timeline_add {{slug, date: YYYY-MM-DD, summary, source: "meeting"}}.
5. For each relationship between two pages: brain_link {{from, to, context}}.
6. Structured data (JSON from the meeting tool, action items): brain_raw_put {{slug, source, data}}
   (brain_raw {{slug, source}} reads it back).
7. Finish with a short list of the pages you created or changed.
{transcript}"""


class _Server(MCPServer):
    """MCPServer with JSON-RPC errors for an unknown prompt (the SDK answers code 0), and an
    unknown tool's error as every other tool error (:func:`error_result`: with the near names)."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None):  # type: ignore[override]
        if self._tool_manager.get_tool(name) is None:
            served = [t.name for t in self._tool_manager.list_tools()]
            o = next((x for x in ops.REGISTRY.values() if x.tool_name == name and x.mcp), None)
            if o is not None:  # a write tool of a read-only server
                e = BadInput(f"Unknown tool: {name}: this server is read-only (serve --read-only, or a brain it cannot write), "
                             "so it offers only the tools that change nothing")
            else:
                # compared without the `brain_` every tool name shares, as ops.find compares
                near = ["brain_" + x for x in ops.tool_near(str(name).removeprefix("brain_"), [t.removeprefix("brain_") for t in served])]
                e = BadInput(f"Unknown tool: {name}; {ops.did_you_mean(near)}tools/list lists the tools", suggestions=near)
            return error_result(e)
        return await super().call_tool(name, arguments, context)

    async def read_resource(self, uri: Any, context: Any = None):  # type: ignore[override]
        """A part of a long page (:class:`_PagePart`) is two texts: the part, byte for byte, and
        what follows it (where the rest starts, its URI)."""
        out = await super().read_resource(uri, context)
        first = next(iter(out), None) if isinstance(out, list) else None
        if first is not None and isinstance(first.content, _PagePart):
            part = first.content
            return [ReadResourceContents(content=str(part), mime_type=first.mime_type),
                    ReadResourceContents(content=part.note, mime_type="text/plain", meta=part.meta)]
        return out

    async def get_prompt(self, name: str, arguments: dict[str, Any] | None = None, context: Any = None):  # type: ignore[override]
        p = self._prompt_manager.get_prompt(name)
        if not p:
            known = ", ".join(sorted(p.name for p in self._prompt_manager.list_prompts()))
            raise MCPError(code=INVALID_PARAMS, message=f"unknown prompt '{name}'; prompts: {known}")
        # an argument the prompt does not take: named here (the SDK answers code 0 "Error rendering
        # prompt" and logs a traceback)
        takes = [a.name for a in (p.arguments or [])]
        unknown = [a for a in (arguments or {}) if a not in takes]
        if unknown:
            raise MCPError(code=INVALID_PARAMS, message=f"prompt {name}: unknown argument(s) {', '.join(map(str, unknown))}; "
                           f"it takes {', '.join(takes) or 'none'}")
        return await super().get_prompt(name, arguments, context)


#: the prompts' argument descriptions (:data:`gbrain.mcp.handshake.PROMPTS`, which the early
#: ``prompts/list`` answers from), by argument name
_ARG = {a: d for _, _, args in PROMPTS for a, d in args}


def build_server(db_path: str | None, create: bool = False, read_only: bool = False) -> tuple[MCPServer, BrainHost]:
    """An :class:`MCPServer` with a tool per MCP operation, the two resources and two prompts.

    ``read_only``: only the tools of operations that change nothing are offered, and the brain
    is opened so that the database refuses any write (SQLite ``PRAGMA query_only``), so an
    agent can read a shared brain but not change it. Returns the server and its
    :class:`BrainHost` (close it when done). Nothing is opened yet.
    """
    host = BrainHost(db_path, create=create, read_only=read_only)
    tools = [_make_tool(o, host) for o in tool_operations(read_only)]
    server = _Server(
        name="gbrain",
        version=__version__,
        instructions=INSTRUCTIONS,
        tools=tools,
        log_level="WARNING",
        warn_on_duplicate_tools=True,
        subscriptions=False,  # nothing is published: do not offer subscriptions/listen
    )

    def resource(uri: str, name: str, description: str, mime_type: str) -> Callable:  # handshake.RESOURCES / TEMPLATES
        return server.resource(uri, name=name, description=description, mime_type=mime_type, **(_SLUG_RESOURCE if name == "page" else {}))

    def prompt(name: str, description: str, args: tuple) -> Callable:  # handshake.PROMPTS
        return server.prompt(name=name, description=description)

    @resource(*RESOURCES[0])
    async def index() -> str:
        try:
            return await host.run(_index)
        except Exception as e:
            raise _resource_error(e) from e

    @resource(*TEMPLATES[0])
    async def index_page(cursor: str = "") -> str:
        try:
            return await host.run(lambda b: _index(b, cursor or None))
        except Exception as e:
            raise _resource_error(e) from e

    @resource(*TEMPLATES[1])
    async def page(slug: str, offset: str = "", max_chars: str = "", hash: str = "") -> str:
        try:
            return await host.run(lambda b: _page_part(b, slug, offset, max_chars, hash, host.reads))
        except Exception as e:
            raise _resource_error(e) from e

    @prompt(*PROMPTS[0])
    async def brain_briefing(
        since: Annotated[str, Field(description=_ARG["since"])] = "7d",
        focus: Annotated[str, Field(description=_ARG["focus"])] = "",
    ) -> str:
        try:
            return await host.run(lambda b: briefing_text(b, since, focus))
        except GBrainError as e:
            raise MCPError(code=INVALID_PARAMS, message=str(e)) from e

    @prompt(*PROMPTS[1])
    async def brain_ingest_meeting(
        transcript: Annotated[str, Field(description=_ARG["transcript"])] = "",
        source_ref: Annotated[str, Field(description=_ARG["source_ref"])] = "",
    ) -> str:
        return INGEST_GUIDE.format(
            ref_line=f" Source reference: {source_ref}." if source_ref else "",
            transcript=f"\nTranscript:\n\n{transcript}\n" if transcript else "",
        )

    _ = (index, index_page, page, brain_briefing, brain_ingest_meeting)
    _add_skills(server)
    return server, host


def _add_skills(server: MCPServer) -> None:
    """Each agent skill (``skills/*/SKILL.md``, see :mod:`gbrain.operations.skills`) as a prompt named
    after it (``gbrain-ingest``; optional ``task`` appended) and a resource
    ``brain://skills/<name>`` holding the SKILL.md exactly as shipped."""
    from ..operations.skills import load_skills

    for sk in load_skills():

        def make(sk=sk):
            async def prompt(task: Annotated[str, Field(description=SKILL_TASK)] = "") -> str:
                return sk.text + (f"\n## Task\n\n{task}\n" if task else "")

            async def resource() -> str:
                return sk.text

            return prompt, resource

        prompt, resource = make()
        server.prompt(name=sk.name, description=f"Skill: {sk.summary}")(prompt)
        server.resource(f"brain://skills/{sk.name}", name=sk.name, description=f"Skill (SKILL.md): {sk.summary}", mime_type="text/markdown")(resource)


def _request_id(errs: list[dict]) -> tuple[int | str | None, bool]:
    """``(id, loaded)`` of a line the SDK's parser refused, from its validation errors: the
    request's own ``id`` (an integer or a valid string; else None) when the line is a JSON object
    Python's ``json`` reads (it accepts lone surrogates, the SDK's parser does not), and whether it read it."""
    raw = errs[0].get("input") if errs else None
    if isinstance(raw, (str, bytes)):
        try:
            raw = json.loads(raw)
        except (ValueError, RecursionError):
            return None, False
    if not isinstance(raw, dict):
        return None, raw is not None
    rid = raw.get("id")
    if isinstance(rid, bool) or not isinstance(rid, (int, str)) or (isinstance(rid, str) and not ops.valid_unicode(rid)):
        return None, True
    return rid, True


#: an undecodable byte read with ``surrogateescape`` (U+DC80–U+DCFF): the line was not UTF-8
_NOT_UTF8 = re.compile("[\udc80-\udcff]")
#: a top-level-looking ``"id":`` whose value is no string or integer (null, a fraction, true, an
#: object); only a line it matches is loaded again to check that the key is the request's own
_ODD_ID = re.compile(r'"id"\s*:\s*(?:null|true|false|[\[{]|-?\d+(?:\.|[eE]))')


#: an ``"arguments":`` whose value is no object and not null (a list, a string, a number, true);
#: only a line it matches is loaded again to check that it is a tools/call's own
_ODD_ARGUMENTS = re.compile(r'"arguments"\s*:\s*(?![\s{]|null\b)')
_JSON_TYPE = {list: "an array", str: "a string", int: "a number", float: "a number", bool: "a boolean", type(None): "null"}


def line_problem(line: str) -> tuple[int, str, int | str | None] | None:
    """The JSON-RPC error ``(code, message, id)`` for a line of stdin the SDK's parser would take
    wrongly, or None. ``line`` was decoded as UTF-8 with ``surrogateescape``. Three cases: bytes that
    are not UTF-8 (the SDK's own reader decodes them as U+FFFD, so a page written from such a
    line would hold U+FFFD where the client meant another character): ``-32700`` with the
    request's id when the rest of the line is JSON; a request whose ``id`` is no string or
    integer (the SDK reads it as a notification and never answers): ``-32600``, id null; and a
    ``tools/call`` whose ``arguments`` is no object (the SDK's -32602 says only "Invalid request
    parameters"): ``-32602`` with the id, naming the tool; so is a ``prompts/get`` whose
    ``arguments`` is no object or holds a value that is not a string (prompt arguments are text)."""
    if not line.isascii() and _NOT_UTF8.search(line):
        rid, _ = _request_id([{"input": line}])
        return PARSE_ERROR, "Parse error: the line is not valid UTF-8 (JSON-RPC messages are UTF-8)", rid
    odd_id = _ODD_ID.search(line)
    if odd_id or (_ODD_ARGUMENTS.search(line) and "tools/call" in line) or '"prompts/get"' in line:
        try:
            raw = json.loads(line)
        except (ValueError, RecursionError):
            return None  # the SDK's parse error
        if isinstance(raw, dict) and "method" in raw and "id" in raw:
            rid = raw["id"]
            if rid is None or isinstance(rid, bool) or not isinstance(rid, (int, str)):
                return INVALID_REQUEST, "Invalid Request: a request's id must be a string or an integer", None
            params = raw.get("params")
            args = params.get("arguments") if raw["method"] == "tools/call" and isinstance(params, dict) else None
            if args is not None and not isinstance(args, dict):
                name = params.get("name")
                tool = name if isinstance(name, str) and ops.valid_unicode(name) else "tools/call"
                return (INVALID_PARAMS, f"Invalid params: {tool}: `arguments` must be a JSON object of the tool's parameters "
                        f"(got {_JSON_TYPE.get(type(args), 'another value')}); tools/list gives each tool's inputSchema", rid)
            args = params.get("arguments") if raw["method"] == "prompts/get" and isinstance(params, dict) else None
            if args is not None:
                name = params.get("name")
                prompt = f"prompt {name}" if isinstance(name, str) and ops.valid_unicode(name) else "prompts/get"
                if not isinstance(args, dict):
                    return (INVALID_PARAMS, f"Invalid params: {prompt}: `arguments` must be a JSON object of its arguments "
                            f"(got {_JSON_TYPE.get(type(args), 'another value')}); prompts/list gives each prompt's arguments", rid)
                bad = [f"{k} ({_JSON_TYPE.get(type(v), 'another value')})" for k, v in args.items() if not isinstance(v, str)]
                if bad:
                    return (INVALID_PARAMS, f"Invalid params: {prompt}: prompt arguments are strings, not {', '.join(bad)}", rid)
    return None


class _Unowned(io.TextIOWrapper):
    """A text layer whose close leaves the byte stream under it (``sys.stdin.buffer``) open."""

    def close(self) -> None:
        try:
            self.detach()
        except ValueError:
            pass


class _CheckedLines:
    """Stdin for the SDK's stdio transport: UTF-8 lines read with ``surrogateescape`` (the SDK's
    reader uses ``replace``), each checked by :func:`line_problem`; a line with a problem is
    answered through ``reply`` (set once the transport's write stream exists) and not handed on."""

    def __init__(self, on_end: Callable[[], None] | None = None) -> None:
        self.file = anyio.wrap_file(_Unowned(sys.stdin.buffer, encoding="utf-8", errors="surrogateescape", newline=None))
        self.ready = anyio.Event()
        self.reply: Callable[[int, str, Any], Any] | None = None
        #: called when stdin ends (before the SDK hears of it and ends the requests under way)
        self.on_end = on_end

    async def __aiter__(self):
        await self.ready.wait()
        async for line in self.file:
            if line.isspace():  # no message: nothing to answer (a stray newline of the host)
                continue
            problem = line_problem(line)
            if problem is None:
                yield line
            else:
                await self.reply(*problem)  # type: ignore[misc]
        if self.on_end is not None:
            self.on_end()


def _say(text: str) -> None:
    """``text`` on stderr (the host's log); a stderr that cannot take it (a full disk, closed)
    loses it, and the server goes on."""
    try:
        sys.stderr.write(text)
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def _client_gone(e: BaseException) -> bool:
    """True when ``e`` (an exception group too) says only that the client's end of stdout is
    closed: a broken pipe or a reset connection, or anyio's closed/broken stream."""
    if isinstance(e, BaseExceptionGroup):
        return all(_client_gone(x) for x in e.exceptions)
    return isinstance(e, (BrokenPipeError, ConnectionResetError, anyio.BrokenResourceError, anyio.ClosedResourceError))


async def _run_stdio(server: MCPServer, first_line: bytes = b"", answered: list | tuple = (), host: BrainHost | None = None) -> None:
    """The SDK's stdio transport, with two additions: a line that is not JSON (or not a JSON-RPC
    message) gets the JSON-RPC error reply the spec gives it (``-32700`` parse error or
    ``-32600`` invalid request; with the request's id when the line holds one: :func:`_request_id`) instead of silence; and ``first_line``, the first
    line of stdin already read by :func:`serve` before the SDK was imported, is handed to the SDK
    first. ``answered``: the ids of the requests among those lines already answered
    (:mod:`gbrain.mcp.handshake`: the ``initialize``, then early ``tools/list`` and ``ping``), so
    the SDK's own answer to each (the first response it writes with that id) is not written
    again. ``host``: told when stdin ends (:attr:`BrainHost.closing`), before the SDK
    ends the requests under way, so a write then running completes as it would have."""
    import mcp_types as types
    from mcp.server.stdio import stdio_server
    from mcp.shared.message import SessionMessage
    from mcp_types.jsonrpc import ErrorData, JSONRPCError

    low = server._lowlevel_server
    lines = _CheckedLines(on_end=(lambda: setattr(host, "closing", True)) if host is not None else None)
    async with stdio_server(stdin=lines) as (read, write):  # type: ignore[arg-type]

        async def reply(code: int, what: str, rid: Any) -> None:
            await write.send(SessionMessage(JSONRPCError(jsonrpc="2.0", id=rid, error=ErrorData(code=code, message=what))))

        lines.reply = reply
        lines.ready.set()
        send, recv = anyio.create_memory_object_stream(0)
        out_send, out_recv = anyio.create_memory_object_stream(0)
        firsts: list[Any] = []
        # the lines the SDK's reader would make of those bytes (UTF-8 with replacement,
        # universal newlines: a lone CR ends a line too), each validated as it does
        for text in io.StringIO(first_line.decode("utf-8", "surrogateescape"), newline=None).readlines():
            if text.isspace():  # as _CheckedLines: a blank line is no message
                continue
            problem = line_problem(text)
            if problem is not None:
                firsts.append(problem)
                continue
            try:
                firsts.append(SessionMessage(types.jsonrpc_message_adapter.validate_json(text, by_name=False)))
            except Exception as exc:
                firsts.append(exc)
        async def deliver(item: Any) -> None:
            if isinstance(item, tuple):  # line_problem's answer for a first line
                await reply(*item)
                return
            if isinstance(item, Exception):
                errs = getattr(item, "errors", lambda: [])()
                bad_json = any(e.get("type") == "json_invalid" for e in errs)
                code, what = (PARSE_ERROR, "Parse error: the line is not JSON") if bad_json else (INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 message")
                rid, loaded = _request_id(errs)
                if bad_json and loaded:  # Python reads it, the SDK's parser does not: a lone surrogate
                    what = "Parse error: a string in the line is not valid Unicode (a lone surrogate)"
                await reply(code, what, rid)
                return
            await send.send(item)

        async def pump() -> None:
            async with send:
                for item in firsts:
                    await deliver(item)
                async for item in read:
                    await deliver(item)

        async def forward() -> None:
            pending = list(answered)
            async with out_recv, write:  # the SDK closed out_send: close the transport's side
                async for msg in out_recv:
                    m = msg.message
                    rid = getattr(m, "id", None)
                    # a response (not a request of the server's own) to a request answered already
                    if pending and rid in pending and not hasattr(m, "method"):
                        pending.remove(rid)
                        if getattr(m, "error", None) is not None:
                            log.warning("the SDK refused a request answered before it loaded: %s", m)
                        continue
                    await write.send(msg)

        async with anyio.create_task_group() as outer:
            outer.start_soon(forward)  # ends when the server's side is closed, after its last message
            async with anyio.create_task_group() as tg:
                tg.start_soon(pump)
                async with out_send:
                    await low.run(recv, out_send, low.create_initialization_options())
                tg.cancel_scope.cancel()


class _LineFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return f"{record.levelname.lower()}: {super().format(record)}"


def _plain_log() -> None:
    """gbrain's own log messages (a cancelled or cut-off write: rolled back or standing) on stderr
    one line each, ``warning: brain_put: …``, as gbrain says everything else: the SDK's handler
    (rich) wrapped them over several lines at 80 columns with a time and the call's ``file.py:line``,
    which a host logging the server's stderr line by line cuts apart (trial 32)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_LineFormatter("%(message)s"))
    log.handlers = [handler]
    log.propagate = False
    log.setLevel(logging.WARNING)


def serve(db_path: str | None, create: bool = False, read_only: bool = False, first_line: bytes = b"", answered: list | tuple = (),
          built: tuple[MCPServer, BrainHost] | None = None) -> None:
    """Run the MCP server on stdin/stdout until stdin closes (the client went away) or Ctrl-C.
    Logs go to stderr only, as UTF-8. A ``db_path`` that does not exist is refused
    (:class:`BadInput`) unless ``create``. On the way out, calls still running are cancelled
    (embed stops after its batch in flight, keeping finished groups) and the process exits
    even when a worker thread is still blocked reading stdin. ``read_only``: see
    :func:`build_server`; a SQLite brain this process cannot write (``storage.db.is_read_only``)
    is served read-only too, with a note on stderr. ``first_line``/``answered``: the first lines of stdin, read (and the
    requests of ids ``answered`` answered) before the SDK was imported (:func:`gbrain.mcp.handshake.serve_main`); ``built``: the
    server and host :func:`build_server` made for these arguments meanwhile (used when its ``read_only`` is the one served)."""
    import os

    from ..storage import db as storage_db
    from ..storage.db import resolve_db_path

    # a write waiting for another process's says nothing here: no one reads serve's stderr at a
    # terminal (an MCP client keeps it as the server's log, or passes it to its own stderr: the SDK's
    # stdio client), and the tool's answer comes when the wait ends (kind busy after it)
    storage_db.on_wait = None
    path = resolve_db_path(db_path)
    refuse_missing(path, create)
    try:
        sys.stderr.reconfigure(encoding="utf-8", errors="backslashreplace")  # type: ignore[attr-defined]
    except (AttributeError, ValueError):
        pass
    if not read_only and serves_read_only(path, read_only):
        # write tools would each fail with "is read-only": offer what works, and say why
        read_only = True
        _say(f"note: {path} cannot be written here (a read-only file, folder or mount): serving the --read-only tool set\n")
    if built is not None and built[1].read_only == read_only:
        server, host = built
    else:
        server, host = build_server(db_path, create=create, read_only=read_only)
    _plain_log()
    names = ", ".join(o.tool_name for o in tool_operations(read_only))
    mode = " read-only" if read_only else ""
    _say(f"gbrain MCP server running{mode} (stdio) on {path}\ntools: {names}\n")
    import signal

    def stop(signum, frame) -> None:  # Ctrl-C / kill: the SDK's stdin thread would hold the exit
        host.shutdown(wait=1.0)
        _say("gbrain MCP server stopped\n")
        os._exit(130 if signum == signal.SIGINT else 143)

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    code = 0
    try:
        anyio.run(_run_stdio, server, first_line, answered, host)
    except KeyboardInterrupt:
        code = 130
    except BaseException as e:  # noqa: BLE001 - only the client going away is quiet
        if not _client_gone(e):
            raise
        # the client closed its end while an answer or a progress note was on its way: nobody
        # is left to read anything, so the server stops as when stdin closes, without a traceback
    finally:
        host.shutdown()
    sys.stderr.flush()
    os._exit(code)  # a worker thread may still block on stdin (the SDK reads it in a thread)
