"""The one registry of operations.

Each :class:`Operation` has a name, a description, JSON-schema parameters and a handler that
returns plain data. The CLI commands (``gbrain/cli.py``), ``gbrain call``, ``gbrain pipe``,
``gbrain --tools-json`` and the MCP tools (``gbrain/mcp/``) are all generated from
:data:`REGISTRY`; adding an operation here adds it everywhere.

Handlers get ``(brain, args, ctx)``: ``args`` is a dict already checked against the schema
(:func:`check_args`), ``ctx`` carries optional progress/warning callbacks from the surface.
Errors are raised as :mod:`gbrain.errors` exceptions; surfaces map them to exit codes or
tool errors.
"""
from __future__ import annotations

import json
import os
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from . import __version__
from .core.brain import Brain
from .core.search import search as fts_search
from .errors import Ambiguous, BadInput, GBrainError, NotFound

JSON_TYPES = {"string": str, "integer": int, "number": (int, float), "boolean": bool, "object": dict, "array": list}


@dataclass
class Param:
    """One parameter. ``positional`` makes it a CLI argument (else ``--option``);
    ``stdin`` lets the CLI read it from standard input or ``--file``."""

    name: str
    type: str = "string"
    description: str = ""
    required: bool = False
    default: Any = None
    positional: bool = False
    enum: list | None = None
    stdin: bool = False
    cli: bool = True  # shown as a CLI argument/option
    in_schema: bool = True  # in the JSON schema (MCP, call, pipe, --tools-json); False: CLI-only
    flag: str | None = None  # CLI option name when it differs from ``name`` (``type`` → ``--type``)
    #: bounds of an integer/number (JSON schema ``minimum``/``maximum``), checked by check_args
    #: for every surface alike. Every integer parameter declares a ``minimum`` (a test checks it).
    minimum: int | None = None
    maximum: int | None = None

    def schema(self) -> dict:
        s: dict = {"type": self.type, "description": self.description}
        if self.enum:
            s["enum"] = self.enum
        if self.minimum is not None:
            s["minimum"] = self.minimum
        if self.maximum is not None:
            s["maximum"] = self.maximum
        if self.default is not None:
            s["default"] = self.default
        if self.type == "array":
            s["items"] = {"type": "string"}
        return s


class Cancelled(GBrainError):
    """The caller cancelled the operation (MCP ``notifications/cancelled``, client gone).
    Work finished before the check is kept."""


@dataclass
class Context:
    """What a surface lends a handler: progress and warning callbacks, the DB path.

    ``surface`` (cli, mcp, call, pipe, …) is recorded as the origin of versions written; an agent's
    surface (:attr:`agent`) also changes messages that name a flag or a parameter, and confirmations. ``cancel`` is
    set by the surface when the caller gives up; long handlers call :meth:`check_cancel`
    between units of work (each unit is committed before the check)."""

    db: str | None = None
    on_progress: Callable[[int, int], None] | None = None
    on_warning: Callable[[str], None] | None = None
    progress_label: Callable[[str], None] | None = None
    #: who is calling, recorded with every version written (cli, mcp, pipe, call; see core/origin.py)
    surface: str | None = None
    client: str | None = None  # the MCP client's name from the initialize handshake
    cancel: threading.Event | None = None

    def check_cancel(self) -> None:
        """Raise :class:`Cancelled` when the caller has cancelled."""
        if self.cancel is not None and self.cancel.is_set():
            raise Cancelled("cancelled by the client; finished work is kept")

    def flag(self, name: str) -> str:
        """How the person or agent names parameter ``name``: ``--dry-run`` on the CLI, ``dry_run`` for tools."""
        return name if self.agent else "--" + name.replace("_", "-")

    @property
    def agent(self) -> bool:
        """True for an agent's call (MCP, ``call``, ``pipe``): no person at a terminal."""
        return self.surface in ("mcp", "call", "pipe")


@dataclass
class Operation:
    name: str
    description: str
    handler: Callable[[Brain, dict, Context], Any]
    params: list[Param] = field(default_factory=list)
    mcp: bool = True  # exposed as an MCP tool and in --tools-json
    db: str = "existing"  # existing | create | none
    text: Callable[[Any, dict], str] | None = None  # CLI text rendering
    mutating: bool = False
    #: long-running: the MCP server runs it on a connection of its own, so other calls go on
    own_connection: bool = False
    # --- MCP tool annotations (https://modelcontextprotocol.io: ToolAnnotations) -------------
    title: str = ""
    #: may delete or overwrite what exists (False: only adds, or reads)
    destructive: bool = False
    #: calling again with the same arguments changes nothing more
    idempotent: bool = False
    #: may call something outside the brain (a remote embedding endpoint)
    open_world: bool = False
    #: JSON schema of the structured result (an object); list results are wrapped as
    #: ``{"items": [...]}`` and ``item`` is the schema of one element
    output: dict | None = None
    item: dict | None = None
    #: paging for agents: ``limit`` (the op's own ``limit`` parameter counts items; the page is cut
    #: from a fetch of offset + limit + 1) or ``slice`` (the result's list is cut as it is);
    #: ``page_key`` names the list in a dict result (None: the result is the list)
    page: str | None = None
    page_key: str | None = None
    page_size: int = 50
    #: defaults that differ for agents (MCP, call, pipe) from the CLI's, e.g. get's max_chars
    tool_defaults: dict = field(default_factory=dict)

    @property
    def tool_name(self) -> str:
        return "brain_" + self.name.replace("-", "_").replace(" ", "_")

    @property
    def read_only(self) -> bool:
        return not self.mutating

    def input_schema(self) -> dict:
        props = {p.name: p.schema() for p in self.params if p.in_schema}
        for k, v in self.tool_defaults.items():
            if k in props:
                props[k] = {**props[k], "default": v}
        if self.page:
            props["cursor"] = {"type": "string", "description": "next_cursor from the previous answer: the next page"}
        return {
            "type": "object",
            "properties": props,
            "required": [p.name for p in self.params if p.required and p.in_schema],
            "additionalProperties": False,
        }

    def annotations(self) -> dict:
        """MCP tool annotations: title and the four hints, from the registry entry."""
        return {
            "title": self.title or self.name.replace("-", " ").capitalize(),
            "readOnlyHint": self.read_only,
            "destructiveHint": self.destructive,
            "idempotentHint": self.read_only or self.idempotent,
            "openWorldHint": self.open_world,
        }

    def output_schema(self) -> dict:
        """JSON schema of the tool's structured result (always an object)."""
        if self.item is not None or self.page:
            items = {"type": "array", "items": self.item or {}}
            if self.page_key:
                base = self.output or {"type": "object", "properties": {}}
                props = {**base.get("properties", {}), self.page_key: items}
            else:
                props = {"items": items}
            if self.page:
                props["next_cursor"] = {"type": ["string", "null"], "description": "pass as cursor for the next page; null: no more"}
            return {"type": "object", "properties": props, "required": [self.page_key or "items"]}
        return self.output or {"type": "object"}


REGISTRY: dict[str, Operation] = {}


def op(name: str, description: str, params: list[Param] | None = None, **kw) -> Callable:
    """Decorator: register ``handler`` as an operation."""

    def deco(fn: Callable) -> Callable:
        if name in REGISTRY:
            raise RuntimeError(f"operation {name} registered twice")
        REGISTRY[name] = Operation(name=name, description=description, handler=fn, params=params or [], **kw)
        return fn

    return deco


def find(name: str) -> Operation:
    """Look an operation up by CLI name (``timeline-add``) or tool name (``brain_timeline_add``)."""
    if name in REGISTRY:
        return REGISTRY[name]
    for o in REGISTRY.values():
        if o.tool_name == name:
            return o
    raise BadInput(f"unknown tool '{name}'; see `gbrain --tools-json`")


#: integers beyond this are refused (SQLite holds 64-bit integers; no count or limit comes near)
MAX_INT = 2**53


def check_args(o: Operation, args: Any) -> dict:
    """Validate ``args`` against the operation's schema; fill defaults. Raises BadInput."""
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise BadInput(f"{o.tool_name}: arguments must be a JSON object")
    known = {p.name: p for p in o.params}
    unknown = [k for k in args if k not in known]
    if unknown:
        raise BadInput(f"{o.tool_name}: unknown parameter(s) {', '.join(sorted(unknown))}; expected {', '.join(known) or 'none'}")
    out = {}
    for p in o.params:
        v = args.get(p.name)
        if v is None:
            if p.required:
                raise BadInput(f"{o.tool_name}: missing required parameter '{p.name}'")
            out[p.name] = p.default
            continue
        t = JSON_TYPES[p.type]
        if p.type == "integer" and isinstance(v, str) and v.strip().lstrip("-").isdigit():
            v = int(v)
        if p.type == "boolean" and isinstance(v, str) and v.lower() in ("true", "false", "1", "0"):
            v = v.lower() in ("true", "1")
        if (p.type in ("integer", "number") and isinstance(v, bool)) or not isinstance(v, t):
            raise BadInput(f"{o.tool_name}: parameter '{p.name}' must be {p.type}, got {type(v).__name__}")
        if p.enum and v not in p.enum:
            raise BadInput(f"{o.tool_name}: parameter '{p.name}' must be one of {', '.join(map(str, p.enum))}")
        if p.type == "integer" and abs(v) > MAX_INT:
            raise BadInput(f"{o.tool_name}: parameter '{p.name}' is too large (at most {MAX_INT:,})")
        if (p.minimum is not None and v < p.minimum) or (p.maximum is not None and v > p.maximum):
            raise BadInput(f"{o.tool_name}: {p.name} must be {_bounds_text(p)}, got {v}")
        out[p.name] = v
    return out


def _bounds_text(p: Param) -> str:
    """``a positive number`` / ``0 or more`` / ``between 0 and 60000``: the rule a bounded
    parameter breaks, worded the same for every operation."""
    lo, hi = p.minimum, p.maximum
    if hi is not None:
        return f"between {lo} and {hi}" if lo is not None else f"at most {hi}"
    if lo == 1:
        return "a positive number"
    if lo == 0:
        return "0 (no limit) or more" if p.name == "limit" else "0 or more"
    return f"at least {lo}"


def limit_param(default: int | None, description: str, *, minimum: int = 0) -> Param:
    """The ``limit`` parameter every listing operation shares: an integer, at least
    ``minimum`` (0 means "all" where the operation says so), checked by :func:`check_args`."""
    return Param("limit", "integer", description, default=default, minimum=minimum)


def run(name: str, args: dict | None, ctx: Context | None = None, brain: Brain | None = None) -> Any:
    """Run an operation by name with JSON arguments; opens the brain unless one is given."""
    from .core.origin import origin

    o = find(name)
    ctx = ctx or Context()
    a = check_args(o, args)
    with origin(surface=ctx.surface, operation=o.name, client=ctx.client):
        if o.db == "none":
            return o.handler(None, a, ctx)  # type: ignore[arg-type]
        if brain is not None:
            return _guarded(o, brain, a, ctx)
        with Brain.open(ctx.db, create=(o.db == "create")) as b:
            return _guarded(o, b, a, ctx)


def _guarded(o: Operation, b: Brain, a: dict, ctx: Context) -> Any:
    """Run a handler; SQLite errors become one clear line (damaged file with how to recover,
    full disk, read-only brain). A write to a damaged brain is refused before it starts."""
    import sqlite3

    from .core.db import db_error

    if o.mutating:
        b.check_sound()
    elif b.damaged and ctx.on_warning:
        ctx.on_warning(f"{b.path} is damaged (SQLite: {b.damaged}); what is read may be incomplete; run `gbrain check`")
    try:
        return o.handler(b, a, ctx)
    except sqlite3.Error as e:
        err = db_error(e, b.path, wrote=o.mutating)
        if "malformed" in str(e).lower():
            b.damaged = b.damaged or str(e)
        raise err from e
    except OSError as e:
        import errno

        if e.errno == errno.ENOSPC or e.errno == getattr(errno, "EDQUOT", -1):
            raise GBrainError(f"no space left writing {e.filename or 'a file'}; what was written is complete (atomic writes), free some space and run it again") from e
        if e.errno == errno.EROFS:
            raise GBrainError(f"{e.filename or 'the folder'} is on a read-only file system; nothing was written there") from e
        raise


#: an agent's page of results stays under this many characters of JSON (~10,000 tokens; hosts
#: such as Claude Code warn at 25,000 tokens); at least one item is always returned
PAGE_CHARS = 40_000


def _cursor_key(o: Operation, args: dict) -> str:
    import hashlib

    return hashlib.sha1(dumps([o.name, sorted(args.items())]).encode()).hexdigest()[:8]


def encode_cursor(o: Operation, args: dict, offset: int) -> str:
    """An opaque cursor: the offset of the next item, bound to the other arguments."""
    import base64

    return base64.urlsafe_b64encode(f"{offset}:{_cursor_key(o, args)}".encode()).decode().rstrip("=")


def decode_cursor(o: Operation, args: dict, cursor: str | None) -> int:
    """The offset a cursor from :func:`encode_cursor` stands for. Raises BadInput for a cursor
    that is malformed or was made for other arguments."""
    import base64

    if not cursor:
        return 0
    try:
        off, key = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode().split(":")
        offset = int(off)
    except (ValueError, UnicodeDecodeError) as e:
        raise BadInput(f"{o.tool_name}: parameter 'cursor' is not a cursor this tool returned") from e
    if key != _cursor_key(o, args) or offset < 0:
        raise BadInput(f"{o.tool_name}: parameter 'cursor' belongs to a call with other arguments; repeat those arguments, or drop cursor to start over")
    return offset


def run_tool(name: str, args: dict | None, ctx: Context | None = None, brain: Brain | None = None) -> dict:
    """Run an operation for an agent (MCP): the structured result, always an object.

    Lists come back as ``{"items": [...]}``; a paged operation (``Operation.page``) returns one
    page — its ``limit`` (or ``page_size``) items, cut further to :data:`PAGE_CHARS` of JSON — and
    ``next_cursor`` (None on the last page). ``tool_defaults`` fill arguments not given."""
    o = find(name)
    ctx = ctx or Context(surface="mcp")
    args = dict(args) if isinstance(args, dict) else args
    cursor = None
    if isinstance(args, dict):
        if o.page:
            cursor = args.pop("cursor", None)
            if cursor is not None and not isinstance(cursor, str):
                raise BadInput(f"{o.tool_name}: parameter 'cursor' must be string, got {type(cursor).__name__}")
        for k, v in o.tool_defaults.items():
            args.setdefault(k, v)
    if not o.page:
        result = run(name, args, ctx, brain)
        return result if isinstance(result, dict) else {"items": result}
    a = check_args(o, args)
    key_args = {k: v for k, v in a.items() if v is not None}
    offset = decode_cursor(o, key_args, cursor)
    if o.page == "limit":
        want = a.get("limit") or 0  # 0: all (bounded by PAGE_CHARS below)
        fetch = dict(a, limit=offset + want + 1 if want else 0)
        result = run(name, fetch, ctx, brain)
    else:
        want = o.page_size
        result = run(name, a, ctx, brain)
    items = result[o.page_key] if o.page_key else result
    page = items[offset : offset + want] if want else items[offset:]
    used = 0
    for i, it in enumerate(page):
        used += len(dumps(it)) + 1
        if used > PAGE_CHARS and i:
            page = page[:i]
            break
    more = offset + len(page) < len(items)
    nxt = encode_cursor(o, key_args, offset + len(page)) if more else None
    if o.page_key:
        return {**result, o.page_key: page, "next_cursor": nxt}
    return {"items": page, "next_cursor": nxt}


def tools_json() -> list[dict]:
    """Tool discovery in the format Claude Code reads: name, description, input_schema."""
    return [{"name": o.tool_name, "description": o.description, "input_schema": o.input_schema()} for o in REGISTRY.values() if o.mcp]


# ---------------------------------------------------------------------------
# text renderers
# ---------------------------------------------------------------------------


def _rows(rows: list[dict], cols: list[str]) -> str:
    if not rows:
        return "(none)"
    return "\n".join("  ".join(str(r.get(c, "")) for c in cols) for r in rows)


def _saved(r: dict, a: dict) -> str:
    verb = "created" if r.get("created") else ("updated" if r.get("changed") else "unchanged")
    out = f"{verb} {r['slug']}" + (f": {r['note']}" if r.get("note") else "")
    for w in r.get("warnings") or []:
        out += f"\nwarning: {w}"
    return out


def _report_text(r: dict, a: dict) -> str:
    lines = []
    c = r.get("counts")
    if c:
        lines.append("Files: " + ", ".join(f"{k.replace('_', ' ')} {v:,}" for k, v in c.items()))
    lines.append(f"Files seen {r['files_seen']:,} → stored {r['files_stored']:,} (pages {r['pages']:,}, other files {r['other_files']:,})")
    n = lambda k, word: f"{k:,} {word}{'' if k == 1 else 's'}"  # noqa: E731
    lines.append(f"Content hashes checked: {r['hashes_checked']:,}, mismatches: {len(r['hash_mismatches'])}")
    lk = r["links"]
    line = f"Links: {lk['stored']:,} stored ({lk['resolved']:,} resolved, {lk['dangling']:,} dangling)"
    if r["pages_reparsed"]:
        line += f"; {lk['parsed_checked']:,} parsed vs {lk['stored_checked']:,} stored in {n(r['pages_reparsed'], 'checked page')}"
    lines.append(line)
    lines.append(f"Timeline entries: {r['timeline_entries']['stored']:,}; Tags: {r['tags']['stored']:,}")
    raw = r["raw"]
    lines.append(f"Raw sidecars: {raw['sidecars']:,} ({raw['raw_rows_stored']:,} source rows)")
    if r.get("frontmatter_errors"):
        lines.append(f"Frontmatter kept raw (YAML did not load): {n(r['frontmatter_errors'], 'page')}")
    if r.get("skipped_count"):
        lines.append(f"Skipped: {r['skipped_count']:,} (symlinks, ignored, unreadable; see --json)")
        from .sync.scan import NOT_UTF8

        bad = [s["path"] for s in r.get("skipped") or [] if isinstance(s, dict) and s.get("reason") == NOT_UTF8]
        if bad:
            lines.append(f"  names not valid UTF-8 (rename to bring them in): {', '.join(bad[:10])}" + (" …" if len(bad) > 10 else ""))
    if r.get("kept_brain_edits"):
        lines.append(f"Kept the brain's version of {n(len(r['kept_brain_edits']), 'file')} edited through gbrain since the last import (`gbrain sync DIR` writes them out)")
    if r.get("kept_not_in_tree"):
        lines.append(f"Note: {n(r['kept_not_in_tree'], 'page or file')} in the DB not in this folder; kept (see missing_on_disk in --json)")
    for p in r["problems"]:
        lines.append(f"MISMATCH: {p}")
    for key in ("missing_in_db", "missing_on_disk", "hash_mismatches", "derived_mismatches"):
        for p in r.get(key) or []:
            lines.append(f"  {key}: {p}")
    lines.append("Validation: OK ✓" if r["ok"] else "Validation: FAILED")
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# operations
# ---------------------------------------------------------------------------

def obj(*required: str, **props: str | dict) -> dict:
    """A JSON schema object for a result: ``obj("slug", slug="string", note="string?")`` — a
    trailing ``?`` allows null; a dict is used as the property's schema as it is."""
    def one(t):
        if isinstance(t, dict):
            return t
        if t.endswith("?"):
            return {"type": [t[:-1], "null"]}
        return {"type": t}

    return {"type": "object", "properties": {k: one(v) for k, v in props.items()}, "required": list(required)}


#: what a page write returns (``SaveResult.as_dict``)
SAVED = obj("slug", "changed", slug="string", path="string", changed="boolean", created="boolean", warnings="array", note="string")
PAGE_REF = dict(slug="string", title="string?", type="string?")

SLUG = Param("slug", description="page slug, e.g. people/pedro-franceschi (a unique suffix such as pedro-franceschi works)", required=True, positional=True)
LIMIT = limit_param(20, "maximum number of results", minimum=1)
TYPE = Param("type", description="only pages of this type (person, company, deal, …)")


@op("init", "Create a new, empty brain database (default ./brain.db).", [Param("path", description="where to create the database (default: --db, $GBRAIN_DB or ./brain.db)", positional=True)], mcp=False, db="none", text=lambda r, a: f"{'created' if r['created'] else 'exists'} {r['path']} (schema v{r['schema_version']})")
def _init(_b, a, ctx):
    from .core.db import SCHEMA_VERSION, resolve_db_path

    path = Path(a["path"]) if a["path"] else resolve_db_path(ctx.db)
    existed = path.exists() and path.stat().st_size > 0
    with Brain.open(path, create=True, allow_empty_file=True):
        pass
    return {"path": str(path), "created": not existed, "schema_version": SCHEMA_VERSION}


@op("version", "Print gbrain's version and database schema version.", [], mcp=False, db="none", text=lambda r, a: f"gbrain {r['version']} (schema v{r['schema_version']}, Python {r['python']})")
def _version(_b, a, ctx):
    from .core.db import SCHEMA_VERSION

    return {"version": __version__, "schema_version": SCHEMA_VERSION, "python": sys.version.split()[0]}


@op(
    "get",
    "Read a page by slug; returns its markdown exactly as stored (with version: as it was in that version of its history). A long page comes in parts for agents: "
    "`truncated` is true, `next_offset` is where the rest starts (pass it as offset) and `sections` lists "
    "the headings with their offsets, to jump to one.",
    [
        SLUG,
        Param("version", "integer", "a version number from `history` (a deleted page's too)", minimum=1),
        Param("offset", "integer", "start at this character of the page (next_offset of the previous part, or a section's offset)", default=0, minimum=0, cli=False),
        Param("max_chars", "integer", "at most this many characters, cut at a line end (0: the whole page)", minimum=0, cli=False),
    ],
    text=lambda r, a: r["content"],
    title="Read a page",
    output=obj("slug", "content", **PAGE_REF, content="string", truncated="boolean", offset="integer", next_offset="integer?", total_chars="integer", sections="array"),
    tool_defaults={"max_chars": 60_000},
)
def _get(b, a, ctx):
    if a.get("version") is not None:
        from .core.history import get_version

        out = get_version(b, a["slug"], a["version"])
    else:
        row = b.resolve_slug(a["slug"])
        from .core.brain import render_row

        out = {"slug": row["slug"], "title": row["title"], "type": row["type"], "content": render_row(row)}
    offset, cap = a.get("offset") or 0, a.get("max_chars") or 0
    text = out["content"]
    if offset == 0 and (not cap or len(text) <= cap):
        return out
    return {**out, **_part(text, offset, cap)}


def _part(text: str, offset: int, cap: int) -> dict:
    """``text[offset:]`` cut to at most ``cap`` characters at a line end (0: no cap), with the
    offset the rest starts at and the page's headings (``#`` lines) with their offsets."""
    import re

    end = len(text) if not cap else min(len(text), offset + cap)
    if end < len(text):
        nl = text.rfind("\n", offset, end)
        if nl > offset:
            end = nl + 1
    sections = [{"heading": m.group(0).strip()[:200], "offset": m.start()} for m in re.finditer(r"(?m)^#{1,6} [^\n]*", text)][:500]
    return {"content": text[offset:end], "truncated": end < len(text) or offset > 0, "offset": offset,
            "next_offset": end if end < len(text) else None, "total_chars": len(text), "sections": sections}


@op(
    "put",
    "Create or update a page from its full markdown (CLI: standard input or --file; MCP: `content`), or update "
    "parts: `compiled_truth` (replaces the text above the --- line), `timeline_append` (lines added to the timeline), "
    "`frontmatter` (keys to set; null removes a key). Everything not named stays byte-exact.",
    [
        SLUG,
        Param("content", description="full page markdown (CLI: standard input or --file)", stdin=True),
        Param("compiled_truth", description="new compiled truth (text above the --- separator)"),
        Param("timeline_append", description="timeline lines to add, e.g. '- **2025-03-04** | meeting — Met Ana'"),
        Param("frontmatter", "object", "frontmatter keys to set (JSON object; null removes a key)"),
    ],
    db="create",
    text=_saved,
    mutating=True,
    title="Write a page",
    destructive=True,  # replaces the text it is given parts of (the old bytes are not kept)
    idempotent=True,  # the same content again: changed is false
    output=SAVED,
)
def _put(b, a, ctx):
    with b.transaction():  # read, edit and write the page with no other writer in between
        return _put_locked(b, a, ctx)


def _put_locked(b, a, ctx):
    from .core.markdown import BOM, append_timeline, edit_frontmatter

    parts = [k for k in ("compiled_truth", "timeline_append", "frontmatter") if a.get(k) is not None]
    if a.get("content") is not None:
        if parts:
            raise BadInput("give either content or compiled_truth/timeline_append/frontmatter, not both")
        return b.put(a["slug"], a["content"]).as_dict()
    if not parts:
        raise BadInput("nothing to write: give content (CLI: on standard input or --file) or a partial update" if not ctx.agent
                       else "brain_put: nothing to write: give content, or compiled_truth / timeline_append / frontmatter")
    from .core.slugs import check_slug

    try:
        row = b.resolve_slug(a["slug"])  # exact as written first, then the usual lookup
    except Ambiguous:
        raise  # refused like get: never create a page beside the ones meant
    except NotFound:
        row = None
    slug = row["slug"] if row else check_slug(a["slug"])
    text = b.get_text(row["slug"]) if row else ""
    from .core.markdown import parse_page

    page = parse_page(text, row["path"] if row else slug + ".md", timeline_split=b.timeline_split)
    nl = page.newline
    if a.get("frontmatter") is not None:
        try:
            text = edit_frontmatter(page, a["frontmatter"])
        except ValueError as e:
            raise GBrainError(str(e)) from e
        page = parse_page(text, page.path, timeline_split=b.timeline_split)
    if a.get("compiled_truth") is not None:
        ct = a["compiled_truth"].replace("\r\n", "\n").replace("\n", nl)
        old = page.compiled_truth
        lead = old[: len(old) - len(old.lstrip("\r\n"))]  # keep the blank line(s) under the frontmatter
        ct = lead + ct.lstrip("\r\n")
        if page.separator and not ct.endswith(nl):
            ct += nl + nl
        elif page.separator and not ct.endswith(nl + nl):
            ct += nl
        text = (BOM if page.bom else "") + page.frontmatter_raw + ct + page.separator + page.timeline
        timeline = page.timeline
        page = parse_page(text, page.path, timeline_split=b.timeline_split)
        if page.compiled_truth != ct or page.timeline != timeline:
            raise BadInput("compiled_truth has a line that is exactly '---', which would start the timeline; "
                           "use another rule (***) or rewrite the whole page with content")
    if a.get("timeline_append") is not None:
        lines = a["timeline_append"].replace("\r\n", "\n").strip("\n")
        if lines:
            text = append_timeline(page, lines.replace("\n", nl) + nl)
    return b.put(row["slug"] if row else slug, text).as_dict()


@op("delete", "Delete a page; its bytes stay in the trash (`gbrain restore SLUG` brings it back). Its sidecar file stays.", [SLUG], mcp=False, text=lambda r, a: f"deleted {r['slug']} (in the trash: gbrain restore {r['slug']})", mutating=True)
def _delete(b, a, ctx):
    from .sync.importer import trash_copy

    with b.transaction():
        row = b.resolve_slug(a["slug"])
        # always now, synced brain or not: a page that never reached the folder has no file for
        # the next sync to trash (that sync skips a second copy of the same bytes)
        trash_copy(b, row["path"], "deleted through gbrain")
        return {"slug": b.delete_page(row["slug"])}


@op(
    "list",
    "List pages with filters, sorted by slug or by last update.",
    [
        TYPE,
        Param("tag", description="only pages with this tag (any case or Unicode form; a parent tag also selects its nested tags: area finds area/sub)"),
        limit_param(50, "maximum number of pages (0: all)"),
        Param("sort", description="slug | updated | created | title", default="slug", enum=["slug", "updated", "created", "title"]),
        Param("since", description="only pages updated since: an ISO date/time or a span like 24h, 7d"),
    ],
    title="List pages",
    item=obj("slug", **PAGE_REF, updated_at="string?"),
    page="limit",
    text=lambda r, a: _rows(r, ["slug", "type", "title"]) + (f"\n… the first {len(r)}; --limit 0 lists all" if r and a.get("limit") and len(r) >= a["limit"] else ""),
)
def _list(b, a, ctx):
    since = _since(a.get("since"))
    return b.list_pages(type=a.get("type"), tag=a.get("tag"), limit=a.get("limit"), sort=a.get("sort") or "slug", since=since)


def _since(v: str | None) -> str | None:
    if not v:
        return None
    import re
    import time

    m = re.fullmatch(r"\s*(\d+)\s*([smhdw])\s*", v)
    if m:
        secs = int(m.group(1)) * {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}[m.group(2)]
        return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - secs))
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}(T[\d:]+Z?)?", v.strip()):
        return v.strip()
    raise BadInput(f"since must be a span like 24h / 7d or an ISO date, got {v!r}")


def _hits_text(hits: list[dict]) -> str:
    """Search hits as text, with the score (comparable within one search: the best keyword
    match alone scores 1, a page named by the query more) and the fields that matched."""
    if not hits:
        return "no matches"
    return "\n".join(
        f"{h['slug']}  ({h['score']:.2f}" + (f"; {', '.join(h['signals'])}" if h.get("signals") else "") + f")  {h['title']}\n    {h['snippet']}"
        for h in hits
    )


def _stats_text(r: dict, a: dict) -> str:
    lines = [f"Pages: {r['pages']:,}"] + [f"  {t}: {n:,}" for t, n in r["by_type"].items()]
    lines += [
        f"Links: {r['links']:,} ({r['links_resolved']:,} resolved, {r['links_dangling']:,} dangling)",
        f"Tags: {r['tags']:,} ({r['unique_tags']:,} unique)",
        f"Raw data: {r['raw_data']:,}",
        f"Timeline entries: {r['timeline_entries']:,}",
        f"Embeddings: {r['embeddings']:,} chunks" + (" (" + ", ".join(f"{m}: {n:,}" for m, n in r.get("embeddings_by_model", {}).items()) + ")" if len(r.get("embeddings_by_model", {})) > 1 else ""),
        f"Other files: {r['files']:,}",
        f"Ingest log: {r['ingest_log']:,}",
        f"DB size: {r['db_bytes'] / 1e6:.1f} MB",
    ]
    return "\n".join(lines)


@op("stats", "Brain statistics: pages by type, links, tags, raw data, timeline entries, embeddings.", [], text=_stats_text, title="Brain statistics",
    output=obj("pages", pages="integer", by_type="object", links="integer", tags="integer", timeline_entries="integer", embeddings="integer", db_bytes="integer"))
def _stats(b, a, ctx):
    return b.stats()


@op(
    "search",
    "Full-text keyword search (FTS5 BM25 over title, aliases, path, headings and text; a page whose title, alias "
    "or file name the query names comes first). Each hit lists the fields that matched (signals). Any text is safe: quotes, -, :, *, AND/NOT are treated as words.",
    [Param("query", description="search words; \"quoted phrase\" and prefix* work", required=True, positional=True), TYPE, LIMIT],
    text=lambda r, a: _hits_text(r),
    title="Keyword search",
    item=obj("slug", **PAGE_REF, score="number", snippet="string"),
    page="limit",
)
def _search(b, a, ctx):
    return fts_search(b.conn, a["query"], type=a.get("type"), limit=a["limit"])


def _tags_text(r, a) -> str:
    if r and isinstance(r[0], str):
        return "\n".join(r)
    rows = [{**t, "spellings": ", ".join(t["spellings"]) if len(t["spellings"]) > 1 else ""} for t in r]
    return _rows(rows, ["tag", "pages", "spellings"])


@op(
    "tags",
    "List the tags of a page, frontmatter and inline #tags (no slug: every tag once, matched ignoring case and Unicode form, with its page count and spellings).",
    [Param("slug", description="page slug", positional=True)],
    title="List tags",
    item={"type": ["string", "object"]},
    text=_tags_text,
)
def _tags(b, a, ctx):
    if a.get("slug"):
        return b.tags(a["slug"])
    return b.all_tags()


@op(
    "tag",
    "Add a tag to a page (brain_untag removes one); edits the page's frontmatter `tags`. Adding a tag the page has changes nothing.",
    [SLUG, Param("tag", required=True, positional=True, description="tag to add"), Param("remove", "boolean", "remove the tag instead (same as `gbrain untag`)", default=False, in_schema=False)],
    text=_saved,
    mutating=True,
    title="Add a tag",
    idempotent=True,
    output=SAVED,
)
def _tag(b, a, ctx):
    if a.get("remove"):
        return b.untag(a["slug"], a["tag"]).as_dict()
    return b.tag(a["slug"], a["tag"]).as_dict()


@op("untag", "Remove a tag from a page; edits the page's frontmatter `tags`.", [SLUG, Param("tag", required=True, positional=True, description="tag to remove")], text=_saved, mutating=True,
    title="Remove a tag", destructive=True, idempotent=True, output=SAVED)
def _untag(b, a, ctx):
    return b.untag(a["slug"], a["tag"]).as_dict()


@op(
    "link",
    "Link one page to another: writes [Title](relative.md) into the source page's compiled truth.",
    [
        Param("from", required=True, positional=True, description="slug of the page that links"),
        Param("to", required=True, positional=True, description="slug of the page linked to"),
        Param("context", description="a short sentence saying why (added after the link)", default=""),
    ],
    text=_saved,
    mutating=True,
    title="Link two pages",
    output=SAVED,
)
def _link(b, a, ctx):
    return b.link(a["from"], a["to"], a.get("context") or "").as_dict()


@op(
    "unlink",
    "Remove the links from one page to another (the link text stays as plain text).",
    [Param("from", required=True, positional=True, description="slug of the page that links"), Param("to", required=True, positional=True, description="slug linked to")],
    text=_saved,
    mutating=True,
    title="Unlink two pages",
    destructive=True,
    idempotent=True,
    output=SAVED,
)
def _unlink(b, a, ctx):
    return b.unlink(a["from"], a["to"]).as_dict()


@op(
    "links",
    "Outbound links of a page, one per linked page (resolved or dangling), with how many times and in which forms it is linked.",
    [SLUG, limit_param(100, "maximum number of links (0: all)")],
    title="Links from a page",
    item=obj("target", target="string", to_slug="string?", kind="string", context="string", count="integer", forms="array"),
    page="limit",
    text=lambda r, a: "\n".join(f"{x['to_slug'] or '(dangling) ' + x['target']}  x{x['count']} {' '.join(x['forms'])}  {x['context']}" for x in r) or "(no links)",
)
def _links(b, a, ctx):
    out = b.links(a["slug"])
    return out[: a["limit"]] if a.get("limit") else out


@op(
    "backlinks",
    "Pages linking to a page, each once, with how many times and in which forms it links.",
    [SLUG, limit_param(100, "maximum number of pages (0: all)")],
    title="Backlinks of a page",
    item=obj("slug", **PAGE_REF, context="string", count="integer", forms="array"),
    page="limit",
    text=lambda r, a: "\n".join(f"{x['slug']}  x{x['count']} {' '.join(x['forms'])}  {x['context']}" for x in r) or "(no backlinks)",
)
def _backlinks(b, a, ctx):
    out = b.backlinks(a["slug"])
    return out[: a["limit"]] if a.get("limit") else out


@op(
    "timeline",
    "Structured timeline entries of a page, newest first.",
    [SLUG, limit_param(None, "maximum number of entries (0 or none: all)")],
    title="Timeline of a page",
    item=obj("date", "summary", date="string", source="string", summary="string", detail="string"),
    page="limit",
    text=lambda r, a: "\n".join(f"{e['date']}  {e['source'] + ' — ' if e['source'] else ''}{e['summary']}" for e in r) or "(no timeline entries)",
)
def _timeline(b, a, ctx):
    return b.timeline(a["slug"], a.get("limit") or None)


@op(
    "timeline-add",
    "Add a timeline entry: appends `- **DATE** | source — summary` to the page's timeline (creating the --- section if needed).",
    [
        SLUG,
        Param("date", required=True, description="YYYY-MM-DD"),
        Param("summary", required=True, description="one-line summary"),
        Param("source", description="meeting, email, call, manual, …", default=""),
        Param("detail", description="longer detail, indented under the entry", default=""),
    ],
    text=_saved,
    mutating=True,
    title="Add a timeline entry",
    idempotent=True,  # the same date, source and summary again adds nothing
    output=SAVED,
)
def _timeline_add(b, a, ctx):
    return b.timeline_add(a["slug"], a["date"], a["summary"], a.get("source") or "", a.get("detail") or "").as_dict()


@op(
    "raw",
    "Read the raw enrichment JSON of a page (.raw/<name>.json sidecar): every source, or one. "
    "brain_raw_put stores data (CLI: `gbrain raw SLUG --source S --data JSON`).",
    [SLUG, Param("source", description="source name, e.g. crustdata"), Param("data", "object", "JSON to store under --source (write mode)", in_schema=False)],
    title="Read raw data",
    output={"type": "object", "description": "source name → the JSON stored for it"},
)
def _raw(b, a, ctx):
    if a.get("data") is not None:
        return _raw_put(b, a, ctx)
    return b.raw_get(a["slug"], a.get("source"))


@op(
    "raw-put",
    "Store raw enrichment JSON for a page under a source name (.raw/<name>.json sidecar); replaces what that source had.",
    [SLUG, Param("source", required=True, description="source name, e.g. crustdata"), Param("data", "object", "the JSON to store", required=True)],
    mcp=True,
    mutating=True,
    title="Store raw data",
    destructive=True,
    idempotent=True,
    output=obj("slug", "changed", slug="string", source="string", path="string", changed="boolean"),
)
def _raw_put(b, a, ctx):
    if not a.get("source"):
        raise BadInput(f"writing raw data needs {ctx.flag('source')}")
    return b.raw_put(a["slug"], a["source"], a["data"])


@op("config-get", "Read a config value (no key: all of them).", [Param("key", positional=True, description="config key")], mcp=False, text=lambda r, a: r if isinstance(r, str) else "\n".join(f"{k} = {v if len(v) < 80 else v[:77] + '...'}" for k, v in r.items()))
def _config_get(b, a, ctx):
    if not a.get("key"):
        return b.config()
    v = b.get_config(a["key"])
    if v is None:
        from .errors import NotFound

        raise NotFound(f"no config key '{a['key']}'")
    return v


@op("config-set", "Set a config value (e.g. timeline_split rule|heading, embedding_model).", [Param("key", required=True, positional=True), Param("value", required=True, positional=True)], mcp=False, text=lambda r, a: f"{r['key']} = {r['value']}", mutating=True)
def _config_set(b, a, ctx):
    b.set_config(a["key"], a["value"])
    if a["key"] == "embedding_model" and ctx.on_warning:
        w = _unknown_model_warning(a["value"], b.config())
        if w:
            ctx.on_warning(w)
    return {"key": a["key"], "value": a["value"]}


def _unknown_model_warning(name: str, config: dict) -> str | None:
    """A warning for an embedding model name that only an OpenAI-compatible server could serve
    when no such server is configured (a typo such as ``minlm``), else None."""
    import difflib

    from .core import embeddings as emb

    name = name.strip()
    if not emb.is_openai_name(name) or name in emb.OPENAI_MODELS or config.get("embedding_base_url") or os.environ.get("OPENAI_BASE_URL"):
        return None
    known = [emb.MINILM_MODEL, emb.OFFLINE_MODEL, *emb.OPENAI_MODELS]
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    hint = f"did you mean {close[0]}? " if close else ""
    return (f"'{name}' is not a model gbrain knows; it would be asked of an OpenAI-compatible server, and none is set "
            f"(config embedding_base_url or OPENAI_BASE_URL). {hint}Offline models: {emb.MINILM_MODEL}, {emb.OFFLINE_MODEL}")


def _dir_arg(v: str) -> Path:
    p = Path(v).expanduser()
    if not p.exists():
        raise BadInput(f"no such directory: {p}")
    if not p.is_dir():
        raise BadInput(f"not a directory: {p}")
    return p


@op(
    "import",
    "Import a markdown tree into the brain (lossless, incremental by content hash) and print a validation report.",
    [Param("dir", required=True, positional=True, description="the markdown folder to import")],
    mcp=False,
    db="create",
    text=_report_text,
    mutating=True,
)
def _import(b, a, ctx):
    from .sync.importer import import_tree

    root = _dir_arg(a["dir"])
    if ctx.progress_label:
        ctx.progress_label("Importing")
    return import_tree(b, root, on_progress=ctx.on_progress, on_warning=ctx.on_warning)


@op(
    "export",
    "Export the brain to a markdown tree, byte for byte (only changed files are written), then verify it.",
    [Param("dir", required=True, description="output folder (created if missing)")],
    mcp=False,
    text=_report_text,
)
def _export(b, a, ctx):
    from .sync.exporter import export_tree

    if ctx.progress_label:
        ctx.progress_label("Exporting")
    return export_tree(b, Path(a["dir"]).expanduser(), on_progress=ctx.on_progress)


@op("verify", "Compare a markdown tree with the brain (hashes, counts, links) without writing anything.", [Param("dir", required=True, positional=True, description="the markdown folder")], mcp=False, text=_report_text)
def _verify(b, a, ctx):
    from .sync.scan import db_excludes, scan_tree
    from .sync.verify import verify_tree

    root = _dir_arg(a["dir"])
    if ctx.progress_label:
        ctx.progress_label("Verifying")
    return verify_tree(b, scan_tree(root, exclude_abs=db_excludes(b.path)), on_progress=ctx.on_progress)


def _check_text(r: dict, a: dict) -> str:
    if r["ok"]:
        return f"{r['database']}: OK (integrity_check, search index, foreign keys)"
    return "\n".join([f"{r['database']}: DAMAGED"] + [f"  {p}" for p in r["problems"]] + [r["advice"]])


@op("check", "Check the brain database file itself: SQLite's integrity_check, the search index against the pages, and foreign keys. Exit 1 with how to recover when it is damaged.", [], mcp=False, text=_check_text)
def _check(b, a, ctx):
    from .core.db import recovery_advice
    from .sync.verify import db_integrity

    problems = db_integrity(b, full=True)
    return {"ok": not problems, "database": str(b.path), "problems": problems, "advice": recovery_advice(b.path) if problems else ""}


def dumps(obj: Any) -> str:
    """JSON for stdout: UTF-8 text, non-ASCII kept, U+2028/U+2029 escaped."""
    return json.dumps(obj, ensure_ascii=False, default=str).replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


__all__ = ["REGISTRY", "Operation", "Param", "Context", "limit_param", "find", "run", "check_args", "tools_json", "dumps"]
from . import ops_lint  # noqa: E402,F401
from . import ops_agents  # noqa: E402,F401
from . import ops_sync  # noqa: E402,F401
from . import ops_search  # noqa: E402,F401
from . import ops_graph  # noqa: E402,F401
from . import ops_skills  # noqa: E402,F401
from . import ops_history  # noqa: E402,F401
