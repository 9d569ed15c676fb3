"""The registry machinery: :class:`Operation`, :class:`Param`, :func:`op`, :func:`run`.

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

import base64
import dataclasses
import json
import os
import re
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from ..core.brain import Brain
from ..errors import Ambiguous, BadInput, Conflict, GBrainError, NotFound

JSON_TYPES = {"string": str, "integer": int, "number": (int, float), "boolean": bool, "object": dict, "array": list}


@dataclass
class Param:
    """One parameter. ``positional`` makes it a CLI argument (else ``--option``);
    ``stdin`` lets the CLI read it from standard input or ``--file``."""

    name: str
    type: str = "string"
    #: what an agent needs to pass it right, short: every tool's schema is in the agent's
    #: context at every session start (benchmarks/mcp_tools_size.py)
    description: str = ""
    required: bool = False
    default: Any = None
    positional: bool = False
    #: an option the command line also takes as an argument, with the same meaning (export's
    #: folder: ``gbrain export OUT`` is ``gbrain export --dir OUT``, as import, sync, watch and
    #: verify take theirs); both given with two values is bad input (:func:`join_arguments`).
    #: The command line's only: the JSON schema has the one parameter, as before
    argument_too: bool = False
    enum: list | None = None
    stdin: bool = False
    cli: bool = True  # shown as a CLI argument/option
    in_schema: bool = True  # in the JSON schema (MCP, call, pipe, --tools-json); False: CLI-only
    flag: str | None = None  # CLI option name when it differs from ``name`` (``type`` → ``--type``)
    #: bounds of an integer/number (JSON schema ``minimum``/``maximum``), checked by check_args
    #: for every surface alike. Every integer parameter declares a ``minimum`` (a test checks it).
    minimum: int | None = None
    maximum: int | None = None
    #: required of agents (the schema's ``required``, checked for every surface but the command
    #: line) unless a CLI-only parameter is given instead (ingest's FILE: the command line,
    #: ``call`` and ``pipe`` take it; MCP refuses every CLI-only parameter before this check, so
    #: a server never reads a local file for a remote agent)
    tool_required: bool = False
    #: what a value must be, said for a person, where the JSON type's words say too little (put's
    #: ``replace``: ``{old text: new text}, e.g. …``); a value of another type is refused "takes …"
    shape: str | None = None
    #: a condition on the write (put's ``if_hash``), not a part of the page: the CLI still reads
    #: the page text from standard input when it is given
    modifier: bool = False
    #: a folder that must exist (import, export's source, sync, watch, verify): checked by
    #: check_args, so before the brain is opened, let alone created (a mistyped folder once
    #: left a new empty brain behind)
    directory: bool = False
    #: a filesystem path, a folder's or a file's (export's ``dir``, which need not exist; copy's
    #: brains; any ``directory`` is one too): ``""`` or only white space is refused by check_args
    #: for every surface (:func:`refuse_empty_path`: a script's ``gbrain export "$OUT"`` with OUT
    #: unset wrote into the current folder); given both as an argument and as an option, two
    #: spellings of one place (``out/``, ``./out``, the absolute path) are one value
    #: (join_arguments, :func:`same_place`)
    path: bool = False
    #: more for the command line's ``--help`` only, after ``description`` (:attr:`help`)
    details: str = ""
    #: a string the handler splits itself (lint's comma-separated ``check``: ``","``; put's
    #: ``timeline_append`` lines: ``"\n"``): an array of strings a model sends for it is joined
    #: with this (check_args); None: an array is refused, saying to send one string
    joins: str | None = None

    @property
    def help(self) -> str:
        """The command line's help: ``description``, then ``details``."""
        return f"{self.description}; {self.details}" if self.details else self.description

    def schema(self) -> dict:
        s: dict = {"type": self.type, "description": self.description}
        if self.enum:
            s["enum"] = self.enum
        if self.minimum is not None:
            s["minimum"] = self.minimum
        # its own bound only: check_args also refuses an integer past MAX_INT (JSON's exact integers), which
        # no count comes near; as "maximum" it cost every agent's context ~25 bytes per integer parameter
        if self.maximum is not None:
            s["maximum"] = self.maximum
        if self.default is not None:
            s["default"] = self.default
        if self.type == "array":
            s["items"] = {"type": "string"}
        return s


class Cancelled(GBrainError):
    """The caller cancelled the operation (MCP ``notifications/cancelled``, client gone).
    Work finished before the check is kept; the write transaction under way is rolled back
    (``Brain.transaction`` checks before its commit). ``committed``: how many transactions the
    call had committed before it stopped (set by ``_guarded``; 0: nothing of it was written)."""

    kind = "cancelled"
    committed = 0


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
    #: called once the handler's brain is open, before the handler runs (the CLI says a brain it
    #: just created then, not when a long `watch` ends)
    on_open: Callable[[], None] | None = None
    progress_label: Callable[[str], None] | None = None
    #: who is calling, recorded with every version written (cli, mcp, pipe, call; see storage/origin.py)
    surface: str | None = None
    client: str | None = None  # the MCP client's name from the initialize handshake
    cancel: threading.Event | None = None
    #: one agent session's reads (``gbrain serve``: one per server; ``pipe``: one per process):
    #: page id → the content_hash its last whole brain_get or whole put gave; a whole put with no
    #: ``if_hash`` of a page changed since merges three ways (``operations/core.py: _merge_read``)
    reads: dict | None = None
    #: a keyset page's position (:attr:`Operation.page_seek`): the sort key of the last item the
    #: page before showed, as ``page_seek`` gave it; the handler lists only what comes after it
    after: list | None = None
    #: a keyset handler whose items do not carry their own positions (backlinks: which part of
    #: the list an item is in) appends each returned item's here, in order; else ``page_seek``'s
    seeks: list | None = None
    #: a ranked page's position (:attr:`Operation.rank_skip`): the hits before it, which the
    #: handler leaves out (their snippets not made); its ``limit`` counts from there
    skip: int = 0

    def check_cancel(self, commit: bool = False) -> None:
        """Raise :class:`Cancelled` when the caller has cancelled. ``commit``: asked just before a
        write commits (``Brain.transaction``): a caller that went away without cancelling (the
        surface marks :attr:`cancel` ``closing``: MCP's client closed its input) lets it commit,
        as before it had a say; an explicit cancel rolls it back."""
        if self.cancel is not None and self.cancel.is_set():
            if commit and getattr(self.cancel, "closing", False):
                return
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
    #: the tool's description (MCP, ``--tools-json``): what it does and returns, and what an agent
    #: must know to call it right the first time, short (every tool's is in an agent's context at
    #: every session start: benchmarks/mcp_tools_size.py). Advice for a moment (a refused write,
    #: a next step) belongs in the error or the result's ``note``; workflows in skills/*/SKILL.md
    description: str
    handler: Callable[[Brain, dict, Context], Any]
    params: list[Param] = field(default_factory=list)
    mcp: bool = True  # exposed as an MCP tool and in --tools-json
    db: str = "existing"  # existing | create | none
    text: Callable[[Any, dict], str] | None = None  # CLI text rendering
    #: the CLI text is content to print byte for byte (``get``): control and bidi characters are
    #: not escaped as they are in every other human output (``entry.terminal_safe``)
    text_exact: bool = False
    #: a note for the person (``… the first 50; --limit 0 lists all``) from ``(result, args)``, or
    #: None: printed on stderr, so that stdout holds only the items (``gbrain list | wc -l``)
    note: Callable[[Any, dict], str | None] | None = None
    mutating: bool = False
    #: a mutating operation that reads a lot before its first write (``sync``: the walk of the
    #: folder): the database check (``Brain.check_sound``, O(file size)) runs in a thread beside
    #: it (``Brain.start_check``) instead of before it; every write still waits for the answer
    #: (a write transaction checks first; the handler calls ``check_sound`` before writing
    #: anything else, e.g. files) and a damaged file still fails the command; a command that
    #: writes nothing on a file exactly as a passing check left it is not checked again
    #: (``Brain.finish_check``)
    check_beside: bool = False
    #: a SQLite brain that cannot be opened because its disk is full (not even for reading: a new
    #: brain, a schema upgrade, the full-disk reader refused) is handed over unopened
    #: (``Brain.offline``, :attr:`Brain.offline_reason` says why) instead of failing: ``watch``
    #: says it once and opens it once there is space
    waits_for_space: bool = False
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
    #: the name the list had before it became ``page_key`` (query's ``hits``, now ``items``): for
    #: one release the result holds the same list under it too on the script surfaces (CLI
    #: ``--json``, ``call``, ``pipe``: :func:`with_alias`), so scripts reading the old key go on
    #: working (a page counts its items twice against :data:`PAGE_CHARS`); an MCP result and its
    #: output schema carry ``page_key`` alone (the copy halved what an agent's page holds)
    page_alias: str | None = None
    page_size: int = 50
    #: ``page="cut"``: the result is one object whose lists all count against :data:`PAGE_CHARS`
    #: (graph's nodes and their links): ``cut(result, offset, budget)`` gives the part of it that
    #: starts at item ``offset`` and fits in ``budget`` characters, and the offset of the next
    #: part (None: the last); run_tool adds ``next_cursor`` and, when cut, a ``note``
    cut: Callable[[dict, int, int], tuple[dict, int | None]] | None = None
    #: a ranked list (``page="limit"``): the depth within which a ranking asked for more items
    #: begins with the ranking asked for fewer (query ranks ``hybrid.CANDIDATES`` per side up to
    #: it; search's every ranking starts every deeper one: :data:`ANY_DEPTH`). Every page of one
    #: paged call is cut from one ranking of at most ``max(rank_depth, limit)`` items, so an agent
    #: following ``next_cursor`` sees each hit once and none skipped; the pages end there (the
    #: last one's ``note`` says so). 0: not ranked.
    rank_depth: int = 0
    #: the handler of a ranked list honours :attr:`Context.skip` (search: a page past the 1,000th
    #: hit made every snippet before it), so each page ranks the hits before it but makes only its own
    rank_skip: bool = False
    #: a log listed newest first (``page="limit"``: changes): the identity of one of its items. A
    #: cursor carries the last item's, and the next page starts after that item wherever it stands
    #: now (rows written between two pages come before it), so each item is seen once. A
    #: ``page="slice"`` list whose items an agent removes between pages (lint's findings, fixed):
    #: the cursor carries the last :data:`PAGE_ANCHORS` items its page showed, and the next page
    #: starts after the last of them still listed, or, all gone, at the first item listed (some
    #: may repeat, none is skipped: :func:`_resume`)
    page_anchor: Callable[[dict], str] | None = None
    #: ``page="slice"`` of a list a write reorders (tags, most used first): its cursor carries the
    #: whole list's :func:`answer_print`, and a next page of a list that changed is refused
    #: (Conflict), as ``page="cut"``'s is: an offset into it would skip or repeat items
    page_pin: bool = False
    #: ``page="limit"`` of a list a write reorders (list's sorts): a keyset cursor. ``page_seek(args,
    #: item)`` is the item's position in the order ``args`` ask for (its sort key, then a unique
    #: one: the slug); the cursor carries the last item's, and the handler, given it as
    #: :attr:`Context.after`, lists only the items after it. An item unchanged during a walk is
    #: listed once, wherever items written meanwhile went; one written meanwhile may move behind
    #: the walk (``sort: updated``: to the front) and not be listed. A handler whose items do not
    #: carry their position (timeline, backlinks) appends each to :attr:`Context.seeks` instead
    page_seek: Callable[[dict, dict], list | None] | None = None
    #: defaults that differ for agents (MCP, call, pipe) from the CLI's, e.g. get's max_chars
    tool_defaults: dict = field(default_factory=dict)
    #: CLI-only boolean flags that run another operation with the other arguments
    #: (``history --prune`` → ``history-prune``, ``lint --fix-safe`` → ``lint-fix``): advice naming
    #: the command line becomes that operation's tool call (:func:`tool_text`), and an agent that
    #: passes the flag is told which tool to call
    routes: dict = field(default_factory=dict)
    #: a function of the arguments: True when the call runs until stopped (``watch`` without
    #: ``once``): refused on ``call``/``pipe`` (it would never answer, nor the lines after it)
    until_stopped: Callable | None = None
    #: more for the command line's ``--help`` (and people) only, after ``description``: the
    #: longer form, never a second copy of the short one (:attr:`help`)
    details: str = ""

    @property
    def help(self) -> str:
        """The command line's help text (before :meth:`cli_text`): ``description``, then ``details``."""
        return f"{self.description} {self.details}" if self.details else self.description

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
            props["cursor"] = {"type": "string", "description": "the previous page's next_cursor"}
        return {
            "type": "object",
            "properties": props,
            "required": [p.name for p in self.params if (p.required or p.tool_required) and p.in_schema],
            "additionalProperties": False,
        }

    @property
    def cli_command(self) -> str:
        """The command line's name: ``untag``; a ``<group>-<sub>`` op of a group is ``config get``."""
        group, _, sub = self.name.partition("-")
        return f"{group} {sub}" if sub and group in CLI_GROUPS else self.name

    def cli_text(self, text: str) -> str:
        """A description written for agents, as the command line's help shows it: each tool
        name (``brain_untag``) becomes its command (`` `untag` ``) and each of this operation's
        parameters written in backticks (`` `include_deleted` ``) its argument or option
        (`` `--include-deleted` ``, `` `SLUG` ``). The one translation between the surfaces'
        vocabularies: descriptions name tools and parameters, never flags. A sentence naming a
        parameter the command line lacks (``Param(cli=False)``: get's `max_chars`) is an agent's
        and is left out."""
        import re

        def tool(m: "re.Match") -> str:
            o = next((x for x in REGISTRY.values() if x.tool_name == m[1]), None)
            return f"`{o.cli_command}`" if o is not None else m[0]

        params = {p.name: p for p in self.params if p.cli}
        agent_only = {p.name for p in self.params if not p.cli}
        if agent_only:
            sentences = re.split(r"(?<=\.)\s+(?=[A-Z`{(])", text)
            text = " ".join(x for x in sentences if not set(re.findall(r"`([a-z_]+)`", x)) & agent_only)
        # parameters first: a command named as a parameter (untag's "where brain_tag writes it": `tag`) stays a command
        text = re.sub(r"`([a-z_]+)`", lambda m: f"`{cli_name(params[m[1]])}`" if m[1] in params else m[0], text)
        return re.sub(r"`?\b(brain_[a-z_]+)\b`?", tool, text)

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
        if self.page == "cut":
            base = self.output or {"type": "object", "properties": {}}
            return {**base, "properties": {**base.get("properties", {}), "next_cursor": {"type": ["string", "null"]}, "note": {"type": "string"}}}
        if self.item is not None or self.page:
            items = {"type": "array", "items": self.item or {}}
            if self.page_key:
                base = self.output or {"type": "object", "properties": {}}
                props = {**base.get("properties", {}), self.page_key: items}  # MCP: no page_alias (with_alias)
            else:
                props = {"items": items}
            if self.page:
                props["next_cursor"] = {"type": ["string", "null"]}  # the input's cursor says what it is for
            return {"type": "object", "properties": props, "required": [self.page_key or "items"]}
        return self.output or {"type": "object"}


REGISTRY: dict[str, Operation] = {}
#: command groups of the CLI: an op named ``<group>-<sub>`` is ``gbrain <group> <sub>`` (cli.GROUPS)
CLI_GROUPS = ("config", "skills")


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
    # compared without the ``brain_`` every tool name shares; named as the caller named it
    shown = {o.tool_name.removeprefix("brain_"): o.tool_name if name.startswith("brain_") else o.name for o in REGISTRY.values()}
    near = [shown[x] for x in tool_near(name.removeprefix("brain_").replace("-", "_"), list(shown))]
    raise BadInput(f"unknown tool '{name}'; {did_you_mean(near)}see `gbrain --tools-json`", suggestions=near)


def near_names(name: str, names: list[str], n: int = 3) -> list[str]:
    """At most ``n`` of ``names`` close to the unknown ``name`` (difflib's ratio 0.6 and up,
    best first; a letter's case does not count), else the one name ``name`` is a ``_``-word of
    (``from`` → ``from_version``): the suggestions of an unknown tool or parameter."""
    import difflib

    by_key: dict[str, str] = {}
    for x in names:
        by_key.setdefault(x.lower(), x)
    near = [by_key[k] for k in difflib.get_close_matches(str(name).lower(), list(by_key), n=n)]
    if not near:  # a word of a name (brain_diff's `from` for `from_version`): too short for difflib
        parts = [x for k, x in by_key.items() if "_" in k and str(name).lower() in k.split("_")]
        near = parts[:n] if len(parts) == 1 else []
    return near


#: unknown tool names that mean a tool whose name does not end with them (as the CLI's ``gc``)
TOOL_SYNONYMS = {"gc": "history_prune"}


def tool_near(name: str, names: list[str], n: int = 3) -> list[str]:
    """:func:`near_names` of an unknown tool, after the tools whose name ends with ``_NAME``
    (``prune`` → ``history_prune``) and its synonym (``gc``): the spelling guess alone offered
    ``purge``, which removes a text from every version for good (trial 47's CLI fix, for
    ``pipe``, ``call`` and MCP too)."""
    key = str(name).lower().replace("-", "_")
    ends = [x for x in names if x.lower().endswith("_" + key) or x.lower() == TOOL_SYNONYMS.get(key)]
    return list(dict.fromkeys(ends + near_names(name, names, n)))[:n]


def did_you_mean(near: list[str]) -> str:
    """``"did you mean: a, b; "`` for the suggestions ``near`` (the phrase page lookups use),
    '' for none."""
    return f"did you mean: {', '.join(near)}; " if near else ""


#: parameter names that mean the same thing in two tools: an unknown one suggests the other
SAME_MEANING = {"query": "question", "question": "query"}

#: integers beyond this are refused (SQLite holds 64-bit integers; no count or limit comes near)
MAX_INT = 2**53


def takes_hint(o: Operation, args: dict, unknown: list[str]) -> str:
    """For an unknown-parameter error: the tools (at most two, MCP ones) that take every argument
    given, the one whose name shares most with ``o``'s first (``brain_raw {slug, source, data}``
    → ``"; brain_raw_put takes data"``); '' when none does."""
    import os.path

    fits = [x for x in REGISTRY.values() if x is not o and x.mcp and all(k in {p.name for p in x.params if p.in_schema} for k in args)]
    if not fits:
        return ""
    fits.sort(key=lambda x: (-len(os.path.commonprefix([x.name, o.name])), len(x.params), x.name))
    names = ", ".join(sorted(map(ascii_name, unknown)))
    return "; " + " and ".join(f"{x.tool_name} takes {names}" for x in fits[:2])


def json_kind(v: Any) -> str:
    """What a JSON value is, in JSON's words (never Python's ``list``/``str``): ``an array``."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, (int, float)):
        return "a number"
    return {dict: "an object", list: "an array", str: "a string"}.get(type(v), type(v).__name__)


def type_words(t: str) -> str:
    """What a parameter of JSON type ``t`` must be, said for a person: an object is a mapping
    (a page's frontmatter, a sidecar's data: keys to values), whatever YAML or JSON it came as."""
    if t == "object":
        return 'a mapping of keys to values (a JSON object: {"key": value, …})'
    return {"array": "an array", "integer": "an integer"}.get(t, f"a {t}")


def _json_object_text(v: str, what: str, shape: str | None = None) -> Any:
    """An object parameter given as JSON text (``"{\\"updated\\": \\"2026-12-04\\"}"``: hosts and
    models that serialise nested arguments): the object it holds; anything else is refused, saying
    to send the object itself."""
    try:
        got = json.loads(v)
    except ValueError:
        got = None
    if isinstance(got, dict):
        return got
    if shape:
        raise BadInput(f"{what} takes {shape}; got a string: send the object itself, not JSON or YAML text")
    raise BadInput(f"{what} must be {type_words('object')}, got a string: send the object itself, not JSON or YAML text")


def check_args(o: Operation, args: Any, cli: bool = False, tool: bool = False) -> dict:
    """Validate ``args`` against the operation's schema; fill defaults. Raises BadInput.

    Every string (also inside an array or object, keys included) must be valid Unicode: a lone
    surrogate (``"\\ud800"`` in JSON, or an argv byte that is not UTF-8, which Python hands over
    surrogate-escaped) cannot be stored or printed. ``cli``: the messages name the command line's
    argument or option (``SLUG``, ``--type``) instead of the tool and its parameter
    (``brain_ingest: parameter 'source_type'``): this is the one place that words a parameter
    for a person or an agent. ``tool``: an MCP call, whose unknown-parameter error names only the
    tool's schema (not the command line's own options, which the MCP server refuses)."""
    if args is None:
        args = {}
    where = "" if cli else f"{o.tool_name}: "
    if not isinstance(args, dict):
        raise BadInput(f"{where}arguments must be a JSON object")
    known = {p.name: p for p in o.params}
    unknown = [k for k in args if k not in known]
    if unknown:
        expected = [p.name for p in o.params if p.in_schema or not tool] + (["cursor"] if o.page and not cli else [])
        hint = "" if cli else takes_hint(o, args, unknown)
        near = [m for k in sorted(unknown, key=str) for m in near_names(k, [x for x in expected if x not in args], 1)]
        # a name another tool gives the same thing (brain_search's `query` is brain_query's
        # `question`: trial 30's agent was pointed at brain_search by the hint alone)
        same = [SAME_MEANING[k] for k in unknown if SAME_MEANING.get(k) in expected and SAME_MEANING[k] not in args]
        if same:
            near, hint = same + near, ""
        near = list(dict.fromkeys(near))
        raise BadInput(f"{where}unknown parameter(s) {', '.join(sorted(map(ascii_name, unknown)))}; {did_you_mean(near)}expected {', '.join(expected) or 'none'}{hint}",
                       suggestions=near)
    out = {}
    for p in o.params:
        v = args.get(p.name)
        name = cli_name(p) if cli else p.name
        what = name if cli else f"parameter '{name}'"
        if v is None:
            if p.required or (p.tool_required and not cli and not any(args.get(q.name) is not None for q in o.params if not q.in_schema)):
                raise BadInput(f"{where}missing required {'argument' if cli and p.positional else 'option' if cli else 'parameter'} '{name}'")
            out[p.name] = p.default
            continue
        t = JSON_TYPES[p.type]
        if p.type == "integer" and isinstance(v, str) and v.strip().lstrip("-").isdigit():
            v = int(v)
        if p.type == "integer" and isinstance(v, float) and v.is_integer() and abs(v) <= MAX_INT:
            v = int(v)  # 10.0 is an integer to JSON Schema (a Python script's `total / 5`; trial 32)
        if p.type == "boolean" and isinstance(v, str) and v.lower() in ("true", "false", "1", "0"):
            v = v.lower() in ("true", "1")
        if p.type == "string" and p.joins is not None and isinstance(v, list) and v and all(isinstance(x, str) for x in v):
            v = p.joins.join(v)  # a model's list for a string the handler splits (trial 26)
        if p.type == "object" and isinstance(v, str) and not cli:
            v = _json_object_text(v, f"{where}{what}", p.shape)  # an object a host sent as JSON text
        if p.type == "array" and isinstance(v, str):
            pass  # one string for a list (the command line's `--slug a,b`): the handler splits it
        elif (p.type in ("integer", "number") and isinstance(v, bool)) or not isinstance(v, t):
            fix = "; give one string" if p.type == "string" and isinstance(v, list) else ""
            if p.shape:
                raise BadInput(f"{where}{what} takes {p.shape}; got {json_kind(v)}")
            raise BadInput(f"{where}{what} must be {type_words(p.type)}, got {json_kind(v)}{fix}")
        if p.type == "array" and isinstance(v, list):  # items are strings (the schema's "items")
            bad = next((x for x in v if not isinstance(x, str)), "")
            if not isinstance(bad, str):
                raise BadInput(f"{where}{what} must be an array of strings, got {json_kind(bad)} in it")
        if not valid_unicode(v):
            raise BadInput(f"{where}{what} is not valid Unicode (a lone surrogate / bytes that are not UTF-8)")
        if p.enum and v not in p.enum and isinstance(v, str):  # `Meeting` for meeting (trial 26)
            v = next((e for e in p.enum if isinstance(e, str) and e.casefold() == v.casefold()), v)
        if p.enum and v not in p.enum:
            raise BadInput(f"{where}{what} must be one of {', '.join(map(str, p.enum))}")
        if p.type == "integer" and abs(v) > MAX_INT:
            raise BadInput(f"{where}{what} is too large (at most {MAX_INT:,})")
        if (p.minimum is not None and v < p.minimum) or (p.maximum is not None and v > p.maximum):
            raise BadInput(f"{where}{name} must be {_bounds_text(p)}, got {v}")
        if p.path or p.directory:
            refuse_empty_path(v, f"{where}{what}")
        if p.directory:
            _dir_arg(v)
        out[p.name] = v
    return out


_CMD_RE = None


def tool_text(text: str, o: "Operation | None" = None) -> str:
    """``text`` (an error, warning, note or lint action worded for the command line) as an agent
    using the tools reads it: each command in backticks (`` `gbrain revert people/x --to N` ``),
    or the whole text when it is one command (lint's ``gbrain embed --stale``), becomes the
    tool call (`` `brain_revert {"slug": "people/x", "to": N}` ``; an UPPERCASE placeholder or
    ``...`` stays as it is), and an option of ``o`` written alone (``--keep-days``) its
    parameter (`` `keep_days` ``). A command with no MCP tool (``gbrain check``), or with an
    option no tool takes, is left as it is. The inverse of :meth:`Operation.cli_text`."""
    import re

    global _CMD_RE
    if "gbrain " not in text and "--" not in text:
        return text
    if _CMD_RE is None:
        _CMD_RE = re.compile(r"`gbrain ([^`]+)`")
    whole = text.startswith("gbrain ") and "`" not in text and re.fullmatch(r"gbrain [^\s,;()]+(?: [^\s,;()]+)*", text)
    if whole:
        call = _tool_call(text[len("gbrain "):])
        if call is not None:
            return call
    text = _CMD_RE.sub(lambda m: (lambda c: f"`{c}`" if c is not None else m[0])(_tool_call(m[1])), text)
    if o is not None and "--" in text:
        names = {cli_name(p): p.name for p in o.params if p.in_schema and not p.positional}

        def param(m: "re.Match") -> str:
            return f"`{names[m[1]]}`" if m[1] in names else m[0]

        text = re.sub(r"`?(?<![\w-])(--[a-z][a-z-]*)\b`?", param, text)
    return text


def _tool_call(cmd: str) -> str | None:
    """``revert people/x --to N`` (a command line after ``gbrain``) as a tool call,
    ``brain_revert {"slug": "people/x", "to": N}`` (``--json`` dropped: a tool answers JSON);
    None when it names no MCP tool or has an argument the tool does not take."""
    import re
    import shlex

    try:
        toks = shlex.split(cmd)
    except ValueError:
        toks = cmd.split()
    if not toks:
        return None
    o = REGISTRY.get(toks[0]) if toks[0] not in CLI_GROUPS else REGISTRY.get("-".join(toks[:2]))
    if o is None or not o.mcp:
        return None
    toks = toks[1 if toks[0] not in CLI_GROUPS else 2:]
    for flag, target in o.routes.items():  # `lint --fix-safe …` is a call of lint-fix
        p = next(p for p in o.params if p.name == flag)
        if cli_name(p) in toks:
            toks = [t for t in toks if t != cli_name(p)]
            o = REGISTRY[target]
            if not o.mcp:
                return None
            break
    options = {cli_name(p): p for p in o.params if not p.positional}
    positional = [p for p in o.params if p.positional or p.argument_too]
    args: dict[str, str] = {}

    def value(p: Param, v: str) -> str:
        if re.fullmatch(r"[A-Z][A-Z_]*|\.\.\.|…", v) or (p.type in ("integer", "number") and re.fullmatch(r"-?\d+(\.\d+)?", v)):
            return v
        if p.type in ("object", "array"):
            try:
                return json.dumps(json.loads(v), ensure_ascii=False)
            except ValueError:
                pass
        return json.dumps(v, ensure_ascii=False)

    i = 0
    while i < len(toks):
        t = toks[i]
        name, eq, val = t.partition("=")
        if t == "--json" and "--json" not in options:  # a tool always answers JSON
            i += 1
            continue
        if name in options:
            p = options[name]
            if not p.in_schema:
                return None
            if p.type == "boolean" and not eq:
                args[p.name] = "true"
            else:
                if not eq:
                    i += 1
                    if i >= len(toks):
                        return None
                    val = toks[i]
                args[p.name] = value(p, val)
        elif t.startswith("--") or not positional:
            return None
        else:
            p = positional.pop(0)
            args[p.name] = value(p, t)
        i += 1
    return o.tool_name + (" {" + ", ".join(f'"{k}": {v}' for k, v in args.items()) + "}" if args else "")


#: the keys of a result whose strings are advice worded for the command line (tool_text
#: translates them for agents); page text never sits under these keys (``reason``: why undo
#: skips a page, why lint-fix skipped one, why a file was skipped: gbrain's own words)
ADVICE_KEYS = frozenset(("note", "notes", "action", "message", "hint", "warnings", "reason"))


def _advice_for_tools(o: "Operation", result: Any) -> Any:
    """``result`` with the strings under :data:`ADVICE_KEYS` (in nested dicts and lists too)
    passed through :func:`tool_text`; the same object when nothing changes."""
    if isinstance(result, list):
        out = [_advice_for_tools(o, x) for x in result]
        return result if all(a is b for a, b in zip(out, result)) else out
    if isinstance(result, dict):
        changed = {}
        for k, v in result.items():
            if k in ADVICE_KEYS and isinstance(v, str):
                nv = tool_text(v, o)
            elif k in ADVICE_KEYS and isinstance(v, list) and all(isinstance(x, str) for x in v):
                nv = [tool_text(x, o) for x in v]
            elif isinstance(v, (dict, list)) and k not in ("content",):
                nv = _advice_for_tools(o, v)
            else:
                continue
            if nv is not v and nv != v:
                changed[k] = nv
        return {**result, **changed} if changed else result
    return result


def join_arguments(o: "Operation", args: dict, arguments: dict) -> dict:
    """``args`` (an operation's command-line options, None for one not given) with the values
    ``arguments`` holds for its options that the command line also takes as an argument
    (:attr:`Param.argument_too`: name → the argument given, or None). The same value both ways
    is given once; two values are :class:`BadInput` naming both; neither, for a required one, is
    a missing argument (the command line's word: ``gbrain export`` alone, as ``gbrain import``)."""
    for p in o.params:
        if not p.argument_too:
            continue
        given, opt = arguments.get(p.name), args.get(p.name)
        if given is None:
            if opt is None and p.required:
                raise BadInput(f"missing argument '{p.name.upper()}' (gbrain {o.cli_command} --help)")
            continue
        if opt is not None and opt != given and not ((p.path or p.directory) and same_place(opt, given)):
            raise BadInput(f"{p.name.upper()} '{given}' and {cli_name(p)} '{opt}' are two values for one thing; give one")
        args[p.name] = given
    return args


def same_place(a, b) -> bool:
    """Whether two path strings name one place: equal once normalised (``out/``, ``./out``, the
    absolute path, a leading ``~``), or, both existing, the same file (a symlink to it)."""
    if not (isinstance(a, str) and isinstance(b, str)):
        return False
    try:
        na, nb = (os.path.normpath(os.path.abspath(os.path.expanduser(x))) for x in (a, b))
        if na == nb or os.path.realpath(na) == os.path.realpath(nb):
            return True
        return os.path.exists(na) and os.path.exists(nb) and os.path.samefile(na, nb)
    except (OSError, ValueError):
        return False


def cli_name(p: Param) -> str:
    """How the command line names ``p``: ``SLUG`` for an argument, ``--include-deleted`` for an option."""
    return p.name.upper() if p.positional else "--" + (p.flag or p.name).replace("_", "-")


def ascii_name(s: str) -> str:
    """``s`` for an error message; a string that is not valid Unicode (JSON's ``"\\ud800"``) is shown escaped."""
    return s if valid_unicode(s) else s.encode("utf-8", "backslashreplace").decode("utf-8")


def valid_unicode(v: Any) -> bool:
    """False when a string in ``v`` (a string, or nested in lists and dicts at any depth, keys
    included) holds a surrogate code point, which UTF-8 cannot encode; other values are valid."""
    todo = [v]
    while todo:
        x = todo.pop()
        if isinstance(x, str):
            if not x.isascii():
                try:
                    x.encode("utf-8")
                except UnicodeEncodeError:
                    return False
        elif isinstance(x, list):
            todo += x
        elif isinstance(x, dict):
            todo += x.keys()
            todo += x.values()
    return True


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


def limit_param(default: int | None, description: str, *, minimum: int = 0, details: str = "") -> Param:
    """The ``limit`` parameter every listing operation shares: an integer, at least
    ``minimum``, checked by :func:`check_args` on every surface. ``minimum=0`` (listings: 0
    means "all" where the operation says so) is refused as ``limit must be 0 (no limit) or more,
    got -2``; ``minimum=1`` (the rankings, search and query, which have no "all") as ``limit
    must be a positive number, got 0`` (:func:`_bounds_text`). Say the bound in ``description``."""
    return Param("limit", "integer", description, default=default, minimum=minimum, details=details)


def cut_note(r: list, a: dict, first: str = "first") -> str | None:
    """The note (stderr; ``call`` speaks of `limit`) of a listing ``r`` its ``limit`` cut:
    ``… the first 100; --limit 0 lists all`` (a person met in 1,100 daily notes gets the first 100
    backlinks and is told so), else None. ``a["more"]``, when given, says whether items were left
    out (``entry.run_and_print`` fetches one past the limit to know: a listing of exactly the limit
    is not cut); without it, a listing as long as its limit counts as cut. For an op's ``note=``."""
    cut = a["more"] if "more" in a else bool(a.get("limit") and len(r) >= a["limit"])
    return f"… the {first} {len(r)}; --limit 0 lists all" if r and cut else None


def read_slug(b, slug: str, ctx=None) -> tuple[str, str | None]:
    """The name a read of one page (get, get --output, timeline, backlinks, links, tags, raw;
    graph's start, each end of path; embed's page) reads: ``slug`` itself, or, when no page has it and it is a
    renamed page's old name (:meth:`Brain.renamed`), the page's name now, as every write follows
    it; with the note "OLD was renamed to NEW on …; read NEW" (None when nothing was followed),
    also given to ``ctx.on_warning`` when ``ctx`` has one (the lists carry it there). An
    ambiguous name, or one no page has or had, is returned as given: the read then fails as
    before. Raises nothing of its own."""
    try:
        b.resolve_slug(slug, suggest=False)
        return slug, None
    except Ambiguous:
        return slug, None
    except (NotFound, BadInput):
        moved = b.renamed(slug)
    if moved is None:
        return slug, None
    note = f"{moved['words']}; read {moved['slug']}"
    if ctx is not None and ctx.on_warning is not None:
        ctx.on_warning(note)
    return moved["slug"], note


def run(name: str, args: dict | None, ctx: Context | None = None, brain: Brain | None = None) -> Any:
    """Run an operation by name with JSON arguments; opens the brain unless one is given.

    Returns the handler's whole result. A paged operation given a ``cursor`` (as its
    ``--tools-json`` schema allows; ``""`` for the first page) answers as the MCP tool does
    instead: one page and ``next_cursor`` (:func:`run_tool`), so ``call`` and ``pipe`` take
    every argument the tool list shows."""
    o = find(name)
    if o.page and isinstance(args, dict) and "cursor" in args:
        return run_tool(name, args, ctx or Context(), brain)
    ctx = ctx or Context()
    a = check_args(o, args, cli=ctx.surface == "cli", tool=ctx.surface == "mcp")
    if ctx.surface in ("call", "pipe") and o.until_stopped and o.until_stopped(a):
        raise BadInput(f"{o.name} runs until stopped: not through call or pipe (it would never answer); run `gbrain {o.name}` as a process of its own")
    result = _run_checked(o, a, ctx, brain) if not ctx.agent else _run_agent(o, a, ctx, brain)
    if ctx.surface in ("call", "pipe") and not o.page and isinstance(result, list):
        # the tool's shape (run_tool): an unpaged list tool has no cursor to ask for it (trial 32: brain_conflicts)
        return {"items": result}
    return with_alias(o, result, ctx)


def with_alias(o: Operation, result: Any, ctx: Context) -> Any:
    """``result`` with its list under ``o.page_alias`` too (the list's name before it became
    ``o.page_key``: query's ``hits``, lint's ``findings``), on every surface but MCP: scripts
    reading the old key (``--json``, ``call``, ``pipe``) go on working for one release, while an
    agent's result holds each item once. The one place the alias is made."""
    if o.page_alias and ctx.surface != "mcp" and isinstance(result, dict) and o.page_key in result:
        return {**result, o.page_alias: result[o.page_key]}
    return result


def _run_agent(o: Operation, a: dict, ctx: Context, brain: Brain | None) -> Any:
    # an agent reads advice in tools and parameters: errors, warnings and the result's notes
    import dataclasses

    if ctx.on_warning is not None:
        warn = ctx.on_warning
        ctx = dataclasses.replace(ctx, on_warning=lambda w: warn(tool_text(w, o)))
    try:
        return _advice_for_tools(o, _run_checked(o, a, ctx, brain))
    except GBrainError as e:
        if e.args and isinstance(e.args[0], str):
            e.args = (tool_text(e.args[0], o),) + e.args[1:]
        raise


def _run_checked(o: Operation, a: dict, ctx: Context, brain: Brain | None) -> Any:
    from ..storage.origin import origin

    with origin(surface=ctx.surface, operation=o.name, client=ctx.client):
        if o.db == "none":
            return o.handler(None, a, ctx)  # type: ignore[arg-type]
        if brain is not None:
            return _guarded(o, brain, a, ctx)
        try:
            opened = Brain.open(ctx.db, create=(o.db == "create"))
        except GBrainError as e:
            if not (o.waits_for_space and _full_at_open(e, ctx.db)):
                raise
            opened = Brain.offline(ctx.db, str(e))
        if ctx.on_open is not None:
            ctx.on_open()
        with opened as b:
            return _guarded(o, b, a, ctx)


def _full_at_open(e: GBrainError, db) -> bool:
    """Whether opening the brain ``db`` failed because the disk holding its SQLite file is full
    (``storage/db.py: connect`` says "the disk holding … is full")."""
    from ..storage.db import disk_full, is_url, resolve_db_path

    path = resolve_db_path(db)
    return not is_url(str(path)) and "is full" in str(e) and disk_full(path)


def _handled(o: Operation, b: Brain, a: dict, ctx: Context) -> Any:
    """``o.handler(b, a, ctx)``, run once more when the brain's Postgres connection broke
    (``storage.pg.Disconnected``: a server restart, a terminated backend) and running it again
    is safe: the operation only reads, or nothing it did on this connection may have committed
    (``PgConnection.commits`` unchanged: its transaction was cut, and rolled back whole). The
    second try runs on a new connection; when the server is away it fails too, with one line."""
    conn = getattr(b, "conn", None)
    if getattr(conn, "dialect", "sqlite") != "postgres":
        return o.handler(b, a, ctx)
    from ..storage.db import raise_interrupt
    from ..storage.pg import Disconnected

    mark = conn.commits
    try:
        return o.handler(b, a, ctx)
    except Disconnected as e:
        conn.rollback()
        raise_interrupt(e)  # (lost while a Ctrl-C unwound: the interrupt, never a second run)
        if e.unreachable or (o.mutating and conn.commits != mark):
            raise
    return o.handler(b, a, ctx)


def _guarded(o: Operation, b: Brain, a: dict, ctx: Context) -> Any:
    """Run a handler; SQLite errors become one clear line (damaged file with how to recover,
    full disk, read-only brain). A write to a damaged brain is refused before it starts. A call
    the caller can cancel (``ctx.cancel``) lends the brain its stop check for the run
    (``Brain.stop_hook``); its :class:`Cancelled` says how many transactions it committed."""
    if ctx.cancel is not None and b is not None:
        # the call can be cancelled (MCP): the brain's transactions check it before they commit,
        # and long reads between their steps (Brain.check_stop); told apart after: Cancelled.committed
        prev, mark = b.stop_hook, b.commits
        b.stop_hook = ctx.check_cancel
        try:
            return _guarded_run(o, b, a, ctx)
        except Cancelled as e:
            e.committed = b.commits - mark
            raise
        finally:
            b.stop_hook = prev
    return _guarded_run(o, b, a, ctx)


def _guarded_run(o: Operation, b: Brain, a: dict, ctx: Context) -> Any:
    """:func:`_guarded`'s work: check the brain (beside or before a write), run, map the faults."""
    import sqlite3

    from ..storage.db import db_error, raise_interrupt

    if getattr(b, "offline_reason", None):
        pass  # not open (a full disk): the handler opens it once there is space
    elif o.mutating and o.check_beside:
        b.start_check()
    elif o.mutating:
        b.check_sound()
    elif b.damaged and ctx.on_warning:
        ctx.on_warning(f"{b.path} is damaged (SQLite: {b.damaged}); what is read may be incomplete; run `gbrain check`")
    try:
        result = _handled(o, b, a, ctx)
        if o.mutating and o.check_beside:
            b.finish_check()  # a damaged file fails the command, as when checked first
        return result
    except NotFound:
        # "no such page" from a damaged index would be a wrong answer: a miss costs one
        # quick_check (once per process), a damaged file says so instead
        if b is not None and getattr(getattr(b, "conn", None), "dialect", "sqlite") != "postgres":
            b.check_sound(raise_=False)
            if b.damaged:
                from ..errors import Damaged
                from ..storage.db import recovery_advice

                raise Damaged(f"{b.path} is damaged (SQLite: {b.damaged}); the page may be there but cannot be found; {recovery_advice(b.path)}") from None
        raise
    except sqlite3.Error as e:
        raise_interrupt(e)  # (a Ctrl-C that landed inside a gbrain SQL function: still the interrupt)
        err = db_error(e, b.path, wrote=o.mutating)
        if "malformed" in str(e).lower():
            b.damaged = b.damaged or str(e)
        raise err from e
    except BrokenPipeError:
        raise  # a reader that went away (`| head -1`): the entry point ends quietly, no file to name
    except OSError as e:
        import errno

        if e.errno == errno.ENOSPC or e.errno == getattr(errno, "EDQUOT", -1):
            raise GBrainError(f"no space left writing {e.filename or 'a file'}; what was written is complete (atomic writes), free some space and run it again") from e
        if e.errno == errno.EROFS:
            raise GBrainError(f"{e.filename or 'the folder'} is on a read-only file system; nothing was written there") from e
        if isinstance(e, (FileNotFoundError, NotADirectoryError, PermissionError)):
            raise  # the surfaces say these themselves
        # any other file-system refusal (a name too long, an I/O error, too many links): one
        # line naming the file, never a traceback
        raise GBrainError(f"{e.strerror or type(e).__name__}: {e.filename or 'a file'}" + (f" → {e.filename2}" if e.filename2 else "")) from e
    except (KeyError, IndexError, TypeError, ValueError, AttributeError) as e:
        # rows that disagree with each other (a page id one query found and the next did not)
        # come from a damaged file more often than from a bug: one quick_check tells which, and a
        # damaged file says so in one line instead of a traceback
        if isinstance(e, GBrainError) or b is None or getattr(getattr(b, "conn", None), "dialect", "sqlite") == "postgres":
            raise
        b.check_sound(raise_=False)
        if b.damaged:
            from ..errors import Damaged
            from ..storage.db import recovery_advice

            raise Damaged(f"{b.path} is damaged (SQLite: {b.damaged}); what it holds cannot be read consistently; {recovery_advice(b.path)}") from None
        raise


#: the rank_depth of query: hybrid query ranks CANDIDATES (300, gbrain.search.hybrid) per side
#: for any limit up to it, so within 300 a longer ranking starts with a shorter one (its vector
#: side and the fusion's scale follow a deeper ask). Keyword search re-scores its best RERANK
#: BM25 candidates whatever the limit and ranks the rest by BM25 after them, so every ranking is
#: the start of every deeper one: its depth is :data:`ANY_DEPTH` (tests/test_ranked_paging.py)
RANK_DEPTH = 300
#: a rank_depth no ranking reaches: pages go on to the last hit
ANY_DEPTH = 1 << 62


#: an agent's page of results stays under this many characters of JSON (~10,000 tokens; hosts
#: such as Claude Code warn at 25,000 tokens); at least one item is always returned
PAGE_CHARS = 40_000


def _cursor_key(o: Operation, args: dict) -> str:
    import hashlib

    return hashlib.sha1(dumps([o.name, sorted(args.items())]).encode()).hexdigest()[:8]


def encode_cursor(o: Operation, args: dict, offset: int, answer: str = "") -> str:
    """An opaque cursor: the offset of the next item, bound to the other arguments (and, for a
    ``page="cut"`` operation, to ``answer``: :func:`answer_print` of the whole answer it cuts)."""
    import base64

    return base64.urlsafe_b64encode(f"{offset}:{_cursor_key(o, args)}{':' + answer if answer else ''}".encode()).decode().rstrip("=")


def answer_print(result) -> str:
    """A short fingerprint of a whole answer (``page="cut"``: brain_graph): its cursor carries
    it, and a next page cut from an answer that changed meanwhile (a page or link written) is
    refused, since its offset no longer falls where the last page ended: items would repeat or
    be skipped (:func:`run_tool`)."""
    import hashlib

    return hashlib.sha1(dumps(result).encode()).hexdigest()[:12]


#: what a ``page="slice"`` anchored cursor carries: :func:`_anchor_prints`, dot-joined
_ANCHORS_RE = re.compile(r"[0-9a-f]{8}(?:\.[0-9a-f]{8})*")

#: how many of a ``page="slice"`` page's last items its cursor names (:attr:`Operation.page_anchor`):
#: 9 characters each (a 120-item page's every item made the cursor 1,440 characters)
PAGE_ANCHORS = 20


def _anchor_prints(o: Operation, items: list) -> Iterator[str]:
    """Short fingerprints of ``items``' identities (:attr:`Operation.page_anchor`), one per item,
    in order (lazily), the n-th item of one identity after the first told from the others of it
    by its number; what a cursor carries: a ``page="slice"`` page's last :data:`PAGE_ANCHORS`
    items' (8 hex characters each), a ``page="limit"`` log's page its last item's (12: one print
    looked for among every row of a long log, :func:`run_tool`)."""
    import hashlib

    chars = 8 if o.page == "slice" else 12
    seen: dict[str, int] = {}
    for it in items:
        k = o.page_anchor(it)  # type: ignore[misc]
        n = seen[k] = seen.get(k, -1) + 1
        yield hashlib.sha1((f"{k}\0{n}" if n else k).encode()).hexdigest()[:chars]


def _resume(prints: list[str], shown: str) -> int | None:
    """Where the page after one that showed the items of fingerprints ``shown`` (dot-joined:
    :func:`_anchor_prints`) starts in a list of ``prints`` now: after the last of them still
    listed (items added meanwhile before the next come first); None when none is listed."""
    at = {p: i for i, p in enumerate(prints)}
    for p in reversed(shown.split(".")):
        if p in at:
            return at[p] + 1
    return None


def _hit_print(hit: dict) -> str:
    """A ranked hit's print in a cursor (:attr:`Operation.rank_skip`): 8 hex digits of its slug
    (and a canvas hit's card), so the next page can tell whether the hit before it is still the
    one the cursor's page ended with (a page written between two pages moves the ranking)."""
    import hashlib

    return hashlib.sha1(f"{hit.get('slug')}\0{hit.get('node') or ''}".encode()).hexdigest()[:8]


def _cursor_answer(cursor: str) -> str | None:
    """The answer fingerprint a cursor carries (None: none; a cursor :func:`decode_cursor` took)."""
    import base64

    parts = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode().split(":")
    return parts[2] if len(parts) == 3 else None


def decode_cursor(o: Operation, args: dict, cursor: str | None) -> int:
    """The offset a cursor from :func:`encode_cursor` stands for. Raises BadInput for a cursor
    that is malformed or was made for other arguments."""
    import base64

    if not cursor:
        return 0
    try:
        off, key, *answer = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode().split(":")
        offset = int(off)
        if len(answer) > 1:
            raise ValueError(cursor)
    except (ValueError, UnicodeDecodeError) as e:
        raise BadInput(f"{o.tool_name}: parameter 'cursor' is not a cursor this tool returned") from e
    if key != _cursor_key(o, args) or offset < 0:
        raise BadInput(f"{o.tool_name}: parameter 'cursor' belongs to a call with other arguments; repeat those arguments, or drop cursor to start over")
    return offset


def _seek_of(o: Operation, cursor: str) -> list:
    """The sort key a keyset cursor carries (:attr:`Operation.page_seek`). Raises BadInput for a
    cursor that carries none (an older gbrain's offset cursor)."""
    shown = _cursor_answer(cursor) or ""
    try:
        key = json.loads(base64.urlsafe_b64decode(shown + "=" * (-len(shown) % 4)).decode()) if shown else None
    except (ValueError, UnicodeDecodeError):
        key = None
    if not isinstance(key, list):
        raise BadInput(f"{o.tool_name}: parameter 'cursor' names no row its page showed (a cursor of an older gbrain?); "
                       "call again without cursor to read from the start")
    return key


def run_tool(name: str, args: dict | None, ctx: Context | None = None, brain: Brain | None = None) -> dict:
    """Run an operation for an agent (MCP): the structured result, always an object.

    Lists come back as ``{"items": [...]}``; a paged operation (``Operation.page``) returns one
    page — its ``limit`` (or ``page_size``) items, cut further to :data:`PAGE_CHARS` of JSON — and
    ``next_cursor`` (None on the last page; the last page of a ranking that reached its
    ``rank_depth`` has a ``note`` saying more pages may match). ``tool_defaults`` fill arguments not given."""
    o = find(name)
    ctx = ctx or Context(surface="mcp")
    args = dict(args) if isinstance(args, dict) else args
    cursor = None
    defaulted: set[str] = set()  # the tool_defaults the caller did not give (a cut by one is said: note)
    if isinstance(args, dict):
        if o.page:
            cursor = args.pop("cursor", None)
            if cursor is not None and not isinstance(cursor, str):
                raise BadInput(f"{o.tool_name}: parameter 'cursor' must be string, got {type(cursor).__name__}")
        for k, v in o.tool_defaults.items():
            if args.get(k) is None:
                defaulted.add(k)
            args.setdefault(k, v)
    if not o.page:
        result = run(name, args, ctx, brain)
        return result if isinstance(result, dict) else {"items": result}
    a = check_args(o, args, tool=ctx.surface == "mcp")
    key_args = {k: v for k, v in a.items() if v is not None}
    offset = decode_cursor(o, key_args, cursor)
    ranked = 0  # the depth of the ranking the pages are cut from (search, query)
    moved = False  # (rank_skip) the hit the cursor's page ended with is no longer where it stood
    base = 0  # the items the handler left out (rank_skip): ``result`` starts at that one
    if o.page == "cut":
        whole = run(name, a, ctx, brain)
        fp = answer_print(whole)
        if cursor and _cursor_answer(cursor) not in (None, fp):
            raise Conflict(f"{o.tool_name}: the answer changed since the page this cursor came from (a page or link written meanwhile): "
                           f"its next page would repeat or skip items; call again without cursor to read it from the start")
        part, end = o.cut(whole, offset, PAGE_CHARS)  # type: ignore[misc]
        nxt = encode_cursor(o, key_args, end, fp) if end is not None else None
        if nxt and "note" not in part:
            part["note"] = f"cut at ~{PAGE_CHARS:,} characters; pass next_cursor as cursor for the rest"
        return {**part, "next_cursor": nxt}
    if o.page == "limit" and o.rank_depth:
        # one ranking for every page: within rank_depth a shorter ranking is the start of a
        # longer one, so each page asks only for what it shows (+1: is there more); a limit
        # beyond it ranks at that limit on every page
        want = a.get("limit") or o.page_size
        depth = max(o.rank_depth, want)
        if o.rank_skip and depth == o.rank_depth:
            # (the cursor names its page's last hit: read from that one, which must still be there)
            shown = _cursor_answer(cursor) if cursor and offset else None
            back = 1 if shown else 0
            result = run(name, dict(a, limit=min(depth - offset + back, want + 1 + back)), dataclasses.replace(ctx, skip=offset - back), brain)
            if back:
                moved = not result or _hit_print(result[0]) != shown
                result = result[1:]
            base, offset = offset, 0
        else:
            result = run(name, dict(a, limit=min(depth, offset + want + 1) if depth == o.rank_depth else depth), ctx, brain)
        ranked = depth
    elif o.page == "limit" and o.page_seek:
        # keyset: the items after the last one shown, wherever items written since went
        want = a.get("limit") or 0  # 0: all (bounded by PAGE_CHARS below)
        after = _seek_of(o, cursor) if cursor else None
        seeks: list = []
        result = run(name, dict(a, limit=want + 1 if want else 0), dataclasses.replace(ctx, after=after, seeks=seeks), brain)
        offset = 0
    elif o.page == "limit":
        want = a.get("limit") or 0  # 0: all (bounded by PAGE_CHARS below)
        n = offset + want + 1 if want else 0
        result = run(name, dict(a, limit=n), ctx, brain)
        anchor = o.page_anchor and cursor and _cursor_answer(cursor)
        if o.page_anchor and cursor and not re.fullmatch(r"[0-9a-f]{12}", anchor or ""):
            # an older gbrain's offset cursor: rows written since (newest first) would repeat rows
            raise BadInput(f"{o.tool_name}: parameter 'cursor' names no row its page showed (a cursor of an older gbrain?); "
                           "call again without cursor to read from the start")
        while anchor:  # start after the last item shown, where it stands now
            got = result[o.page_key] if o.page_key else result
            j = next((i for i, p in enumerate(_anchor_prints(o, got)) if p == anchor), None)
            whole = not n or len(got) < n
            if j is not None and (whole or j + want + 2 <= n):
                offset = j + 1
                break
            if j is None and whole:
                raise Conflict(f"{o.tool_name}: the item this cursor's page ended with is gone (history pruned meanwhile?); "
                               "call again without cursor to read it from the start")
            n = max(n * 2, j + want + 2 if j is not None else 0)
            result = run(name, dict(a, limit=n), ctx, brain)
    else:
        want = o.page_size
        result = run(name, a, ctx, brain)
    prints = list(_anchor_prints(o, result[o.page_key] if o.page_key else result)) if o.page == "slice" and o.page_anchor else None
    restarted = 0  # every item the cursor named (its page's last ones) is gone: this page starts at the first (said: note)
    if prints is not None and cursor:
        shown = _cursor_answer(cursor) or ""
        if not _ANCHORS_RE.fullmatch(shown):  # an older gbrain's offset cursor (it skipped one item per item fixed), or none of ours
            raise BadInput(f"{o.tool_name}: parameter 'cursor' names none of the items its page showed (a cursor of an older gbrain?); "
                           "call again without cursor to read from the start")
        at = _resume(prints, shown)
        restarted = len(shown.split(".")) if at is None and prints else 0
        offset = at or 0
    pin = answer_print(result) if o.page_pin else ""
    if pin and cursor and _cursor_answer(cursor) not in (None, pin):
        raise Conflict(f"{o.tool_name}: the list changed since the page this cursor came from (a page written meanwhile): "
                       f"its next page would repeat or skip items; call again without cursor to read it from the start")
    items = result[o.page_key] if o.page_key else result
    page = items[offset : offset + want] if want else items[offset:]
    alias = o.page_alias if o.page_key and o.page_alias in result else None  # with_alias: not for MCP
    used = 0
    sized = None  # the page was cut to PAGE_CHARS before its limit: say so (trial 26)
    for i, it in enumerate(page):
        used += (len(dumps(it)) + 1) * (2 if alias else 1)
        if used > PAGE_CHARS and i:
            asked = a.get("limit") if o.page == "limit" else None
            sized = (f"{i:,} of the {asked:,} asked" if asked else f"{i:,} items") + (
                f" (a page holds ~{PAGE_CHARS:,} characters); pass next_cursor as cursor for the next")
            page = page[:i]
            break
    more = offset + len(page) < len(items)
    mark = pin
    if o.page_anchor and page:  # the prints of the page's last PAGE_ANCHORS items (a log's page: its last item's)
        upto = prints if prints is not None else list(_anchor_prints(o, items[: offset + len(page)]))
        mark = ".".join(upto[offset : offset + len(page)][-(PAGE_ANCHORS if prints is not None else 1):])
    if o.page_seek and page:  # the last item's sort key (base64 JSON: no ':' in a cursor's part)
        seek = seeks[len(page) - 1] if seeks else o.page_seek(a, page[-1])
        mark = base64.urlsafe_b64encode(dumps(seek).encode()).decode().rstrip("=")
    if o.rank_skip and page:  # the page's last hit (the next page checks it is still there)
        mark = _hit_print(page[-1])
    nxt = encode_cursor(o, key_args, base + offset + len(page), mark) if more else None
    # the last page of a ranking that reached its depth: more pages may match than it ranked
    cut = {"note": tool_text(f"the best {ranked} hits end here (the ranking's depth); more pages may match: narrow the search "
                             "(`type`, `tag`, `prefix`, other words) or rank deeper with a larger `limit`", o)} if ranked and not more and base + len(items) >= ranked else {}
    if sized and not cut:
        cut = {"note": sized}
    if restarted and not cut:
        cut = {"note": f"the last {restarted} items the page this cursor came from listed are all gone (fixed meanwhile): this page "
                       "starts again at the first one left; some may repeat"}
    if moved and not cut:
        cut = {"note": "the ranking changed since the page this cursor came from (a page written meanwhile): some hits may repeat "
                       "or be missed; call again without cursor to read it from the start"}
    if nxt and not cut and "limit" in defaulted:  # an agent's default limit cut the list (brain_changes: 20)
        cut = {"note": f"the first {len(page):,} (`limit` {a['limit']} by default); pass next_cursor as cursor for more, or a larger `limit`"}
    if o.page_key:
        if cut and result.get("note"):  # the answer's own note (lint's renamed `slug`) and the page's: both said
            cut = {"note": f"{result['note']}; {cut['note']}"}
        return {**result, o.page_key: page, **({alias: page} if alias else {}), "next_cursor": nxt, **cut}
    return {"items": page, "next_cursor": nxt, **cut}


def tools_json() -> list[dict]:
    """Tool discovery in the format Claude Code reads: name, description, input_schema."""
    return [{"name": o.tool_name, "description": o.description, "input_schema": o.input_schema()} for o in REGISTRY.values() if o.mcp]


# ---------------------------------------------------------------------------
# text renderers
# ---------------------------------------------------------------------------


def copy_mark(slug: str) -> str:
    """What a text answer writes after a hit's title when the hit is a conflict copy (sync's
    ``NAME.conflict-…`` or a file-sync tool's: :func:`~gbrain.page.slugs.copy_original`):
    ``"  (conflict copy of people/solo)"``; ``""`` for any other page. A copy whose page is no
    candidate keeps its rank (docs/search.md), told apart from a page by its name alone before."""
    from ..page.slugs import copy_original

    orig = copy_original(slug)
    return f"  (conflict copy of {orig})" if orig else ""


class Nothing(str):
    """What a text renderer answers for an empty answer (``(none)``, ``no matches``, ``the trash
    is empty``): the CLI says it on stderr and prints nothing on stdout, so a script counting lines
    (``gbrain list --tag x | wc -l``) counts 0; the exit code stays 0 (``entry.run_and_print``)."""


def _rows(rows: list[dict], cols: list[str]) -> str:
    if not rows:
        return Nothing("(none)")
    lines = []
    for r in rows:
        vals = [str(r.get(c, "")) for c in cols]
        while len(vals) > 1 and vals[-1] == "":  # no padding after the last value (a value's own spaces stay)
            vals.pop()
        lines.append("  ".join(vals))
    return "\n".join(lines)


def _saved(r: dict, a: dict) -> str:
    verb = "created" if r.get("created") else ("updated" if r.get("changed") else "unchanged")
    return f"{verb} {r['slug']}" + (f": {r['note']}" if r.get("note") else "")  # warnings: stderr (entry.run_and_print)


#: how many skipped paths a text report names (with their reasons)
SKIPPED_SHOWN = 10


def created_folders_text(folders: list[str]) -> str:
    """``the folder X`` / ``the folders X, Y``: what ``export --dir`` and ``get --output`` made."""
    return ("the folder " if len(folders) == 1 else "the folders ") + ", ".join(folders)


def _count(k: int, word: str) -> str:
    """``1 file`` / ``1,204 files``: a count and its noun, plural by an ``s``."""
    return f"{k:,} {word}{'' if k == 1 else 's'}"


def _comparison_lines(r: dict) -> list[str]:
    """The folder and the brain compared (``verify``, ``export``), in words: how many files are
    the same, which differ, which are only in the brain, which only in the folder."""
    cmp = r["comparison"]
    lines = [f"Compared {r['root']} ({_count(cmp['in_folder'], 'file')}) with the brain "
             f"({cmp['in_brain']:,}: {_count(r['pages'], 'page')}, {_count(r['other_files'], 'other file')}):",
             f"  the same in both: {cmp['same']:,}"]
    for key, words in (("different", "different (in both, other bytes)"), ("only_in_brain", "only in the brain (not in the folder)"),
                       ("only_in_folder", "only in the folder (not in the brain)")):
        if cmp[key]:
            shown = r.get(key) or []
            names = ", ".join(shown[:SKIPPED_SHOWN])
            more = f" and {cmp[key] - len(shown[:SKIPPED_SHOWN]):,} more" + (" (--json lists more)" if len(shown) > SKIPPED_SHOWN else "") \
                if cmp[key] > len(shown[:SKIPPED_SHOWN]) else ""
            lines.append(f"  {words}: {cmp[key]:,}: {names}{more}")
    if cmp.get("left_alone") and r.get("left_alone"):  # verify: the brain's notes it could not read in the folder
        lines.append(f"  left alone {cmp['left_alone']:,} ({_by_kind(r['left_alone'])}): in the brain, not read in the folder")
    return lines


#: the kinds of paths sync leaves alone (``sync/scan.py: Why``), in the words its summary uses
LEFT_ALONE_WORDS = {"symlink": "symlink", "ignored": "ignored", "unreadable": "unreadable", "not-regular": "special file",
                    "bad-name": "name not UTF-8", "vanished": "deleted or moved while read",
                    "unwritable": "unwritable",

                    "purged": "purged version"}
#: the kinds whose word takes a plural ``s``
_COUNTED_NOUNS = frozenset(("symlink", "not-regular", "purged"))
_LEFT_ORDER = {k: i for i, k in enumerate(LEFT_ALONE_WORDS)}


#: the words of a report's ``counts`` keys where the key alone misleads: sync's ``symlinked`` and
#: ``ignored`` count the brain's files it left alone as they were (their path a symlink, or under
#: an ignore rule, now), never the folder's paths its walk did not read (:data:`NOT_READ`): "ignored
#: 3" beside "Skipped: 2 (2 ignored)" read as a contradiction
COUNT_WORDS = {"symlinked": "kept while symlinked", "ignored": "kept while ignored"}
#: the label of the folder's paths a walk did not read (``skipped_count``, by kind)
NOT_READ = "Not read in the folder:"


def _by_kind(counts: dict[str, int]) -> str:
    """``{"symlink": 2, "bad-name": 1}`` → ``"2 symlinks, 1 name not UTF-8"``: paths left alone
    counted by their kind (``scan.report_kind``: a pipe or socket is a ``special file``), in :data:`LEFT_ALONE_WORDS`' order."""
    return ", ".join(f"{n:,} {LEFT_ALONE_WORDS.get(k, k)}{'s' if k in _COUNTED_NOUNS and n != 1 else ''}"
                     for k, n in sorted(counts.items(), key=lambda kv: _LEFT_ORDER.get(kv[0], 9)))


def _compare_text(r: dict, a: dict) -> str:
    """``verify`` and ``export``: the report, its counts said as a comparison of the two sides."""
    return _report_text(r, a, compare=True)


def _count_items(r: dict, c: dict) -> list[tuple[str, str]]:
    """A report's ``counts`` as its Files: line says them. Sync's pages renamed in the brain
    (``counts.moved_in_brain``: the old file removed, the new one written, which ``exported`` and
    ``removed`` count, as they always did in JSON) are said as moves (``moved 1 (in the brain)``,
    ``moved 3 (1 in the brain)``), not an export and a removal beside "moved 0" (trial 50)."""
    mib = c.get("moved_in_brain") or 0
    out = []
    for k, v in c.items():
        if k == "moved_in_brain":
            continue
        if mib and k == "removed":
            v -= mib
        elif mib and k == "exported":
            v -= r.get("moved_in_brain_exported", 0)
        elif mib and k == "moved":
            out.append((k, f"{v + mib:,} ({'' if not v else f'{mib:,} '}in the brain)"))
            continue
        out.append((k, f"{v:,}"))
    if mib and "moved" not in c:
        out.append(("moved", f"{mib:,} (in the brain)"))
    return out


def _report_text(r: dict, a: dict, compare: bool = False) -> str:
    lines = []
    if r.get("created_folders"):  # export --dir into a folder that was not there
        lines.append("Created " + created_folders_text(r["created_folders"]))
    c = r.get("counts")
    if c:
        lines.append("Files: " + ", ".join(f"{COUNT_WORDS.get(k) or k.replace('_', ' ')} {v}" for k, v in _count_items(r, c)))
    compare = compare and "comparison" in r
    if compare:
        lines += _comparison_lines(r)
    elif (r.get("comparison") or {}).get("left_alone"):  # sync: pages/files it left alone count in the brain's total
        why = _by_kind(r.get("left_alone") or {})
        lines.append(f"Files seen {r['files_seen']:,} → stored {r['files_stored']:,}; left alone {r['comparison']['left_alone']:,} ({why}): "
                     f"the brain holds {r['pages'] + r['other_files']:,} (pages {r['pages']:,}, other files {r['other_files']:,})")
    elif r.get("kept_not_in_tree"):  # the brain holds more than this folder: say whose counts are whose
        lines.append(f"Files seen {r['files_seen']:,} → stored {r['files_stored']:,}; the brain now holds {r['pages']:,} pages and {r['other_files']:,} other files")
    else:
        lines.append(f"Files seen {r['files_seen']:,} → stored {r['files_stored']:,} (pages {r['pages']:,}, other files {r['other_files']:,})")
    if not compare:
        lines.append(f"Content hashes checked: {r['hashes_checked']:,}, mismatches: {len(r['hash_mismatches'])}")
    lk = r["links"]
    site = f", of which {lk['site_paths']:,} a docs site's own paths outside the brain like /training/…, no broken links" if lk.get("site_paths") else ""
    line = f"Links: {lk['stored']:,} stored ({lk['resolved']:,} resolved, {lk['dangling']:,} dangling{site})"
    if r["pages_reparsed"]:
        line += f"; {lk['parsed_checked']:,} parsed vs {lk['stored_checked']:,} stored in {_count(r['pages_reparsed'], 'checked page')}"
        if r.get("pages_sampled"):
            line += " (drawn at random; --deep checks every page)"
    lines.append(line)
    if r["pages_reparsed"] and r.get("pages_sampled"):
        # what plain verify does not cover: bytes of a stored text changed inside the database
        # file (quick_check does not read them) are seen only in a page drawn
        lines.append(f"Stored page texts hashed: {r['pages_reparsed']:,} of {r['pages']:,} (drawn at random; "
                     f"`gbrain check` or `verify --deep` hashes every stored page text)")
    lines.append(f"Timeline entries: {r['timeline_entries']['stored']:,}; Tags: {r['tags']['stored']:,}")
    dbf = r.get("database_file")  # verify: how the database file itself was checked
    if dbf:
        if dbf.get("checked") == "record":
            by = " but for the writes of the import that ran it" if dbf.get("by") == "import" else ""
            lines.append(f"Database file: passed quick_check at {dbf['passed_at']}, unchanged since{by}; not read again "
                         f"(`verify --check-db` checks it now)")
        else:
            lines.append(f"Database file: {dbf.get('check', 'quick_check')} passed, checked now")
    raw = r["raw"]
    lines.append(f"Raw sidecars: {raw['sidecars']:,} ({raw['raw_rows_stored']:,} source rows)")
    lines += [f"  {n}" for n in raw.get("sidecars_of_one_page") or []]  # a page with two: which one is read
    if r.get("frontmatter_errors"):
        lines.append(f"Frontmatter kept raw (YAML did not load): {_count(r['frontmatter_errors'], 'page')}")
    if r.get("skipped_count"):
        kinds = r.get("skipped_kinds") or {}
        lines.append(f"{NOT_READ} {r['skipped_count']:,} ({_by_kind(kinds)})" if kinds else f"{NOT_READ} {r['skipped_count']:,}")
        from ..sync.scan import NOT_UTF8

        listed = [s for s in r.get("skipped") or [] if isinstance(s, dict)]
        # each named with its reason, up to SKIPPED_SHOWN (--json lists more)
        for s in listed[:SKIPPED_SHOWN]:
            if s.get("reason") != NOT_UTF8:
                lines.append(f"  {s['path']}: {s.get('reason') or 'skipped'}")
        bad = [s["path"] for s in listed[:SKIPPED_SHOWN] if s.get("reason") == NOT_UTF8]
        if bad:
            lines.append(f"  names not valid UTF-8 (rename to bring them in): {', '.join(bad)}")
        if r["skipped_count"] > min(len(listed), SKIPPED_SHOWN):
            lines.append(f"  … and {r['skipped_count'] - min(len(listed), SKIPPED_SHOWN):,} more (--json lists {len(listed):,})")
    if r.get("purged_skipped_count"):  # import, sync: a file holding exactly a purged version's bytes
        n = r["purged_skipped_count"]
        more = f" and {n - len(r['purged_skipped']):,} more (see --json)" if n > len(r["purged_skipped"]) else ""
        lines.append(f"Not imported (exactly the bytes of a version `gbrain purge` removed: config purge_log; --include-purged "
                     f"takes them): {_count(n, 'file')}: {', '.join(r['purged_skipped'])}{more}")
    if r.get("ignored_in_brain_count"):
        lines.append(f"Ignored now, kept in the brain as they were: {r['ignored_in_brain_count']:,} (e.g. {r['ignored_in_brain'][0]}; not synced while the ignore rule stands)")
    if r.get("evicted_count"):
        lines.append(f"Evicted by iCloud Drive (only a placeholder on this device), kept in the brain as they were: {r['evicted_count']:,} (e.g. {r['evicted'][0]}; synced again once the file is back)")
    if r.get("kept_brain_edits"):
        n = len(r["kept_brain_edits"])
        other = min(n, r.get("kept_other_folder_count", 0))
        why = []
        if n > other:
            why.append(f"{'' if not other else _count(n - other, 'file') + ' '}edited through gbrain since the last import: `gbrain sync DIR` writes them out")
        if other:
            why.append(f"{'' if n == other else _count(other, 'file') + ' '}another folder's page at the same path: see the warnings")
        lines.append(f"Kept the brain's version of {_count(n, 'file')} ({'; '.join(why)})")
    if r.get("kept_not_in_tree"):
        lines.append(f"Note: {_count(r['kept_not_in_tree'], 'path')} of the brain not in this folder; kept (listed as missing_on_disk in --json)")
    if r.get("cleaned_temps"):  # export after a killed one
        lines.append(f"Removed {_count(len(r['cleaned_temps']), 'partial temp file')} of a gbrain run that died: {', '.join(r['cleaned_temps'])}")
    if r.get("pruned_count"):  # export --prune
        more = f" and {r['pruned_count'] - len(r['pruned']):,} more (see --json)" if r["pruned_count"] > len(r["pruned"]) else ""
        lines.append(f"Pruned (removed: not in the brain, an earlier export's bytes): {r['pruned_count']:,} file(s): {', '.join(r['pruned'])}{more}")
    for p in r["problems"]:
        lines.append(f"MISMATCH: {p}")
    for key in ("missing_in_db", "missing_on_disk", "hash_mismatches", "derived_mismatches"):
        if compare and key != "derived_mismatches":
            continue  # named in the comparison above
        if key == "missing_on_disk" and r.get("kept_not_in_tree"):
            continue  # pages kept on purpose (noted above; listed in --json)
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


#: the marks a text formatter puts around a search hit; the CLI turns them into bold on a
#: terminal and drops them elsewhere (``entry.styled``); snippets never hold them
#: (``search/keyword.py: _NOT_SHOWN``)
HIT_STYLE = ("\ue000", "\ue001")

#: what a page write returns (``SaveResult.as_dict``)
SAVED = obj("slug", "changed", slug="string", path="string", changed="boolean", created="boolean", content_hash="string", warnings="array", note="string")
PAGE_REF = dict(slug="string", title="string?", type="string?")

SLUG = Param("slug", description="page slug (people/ana-lima) or a unique suffix (ana-lima)", required=True, positional=True)
LIMIT = limit_param(20, "maximum number of results (1 or more)", minimum=1, details="a ranking has no 'all'")
TYPE = Param("type", description="only pages of this type (person, company, deal, …)")
TAG = Param("tag", description="only pages with this tag (any case; a parent tag selects its nested tags: area finds area/sub)", details="any Unicode form too")
#: a folder filter (``storage/filters.py: folder_sql``, the folders lint takes)
PREFIX = Param("prefix", description="only pages under this folder (people/; subfolders included)", details="people/ or people, any case")
#: search's and query's time filter (``PageFilter.since``: ``updated_at``), as ``list``'s
SINCE = Param("since", description="only pages updated since: 24h, 7d, a date", details="also today, yesterday, an ISO date/time, a month (YYYY-MM) or a year (YYYY)")



def month_or_year(s: str) -> tuple[int, int | None] | None:
    """``s`` (the whole text, ASCII digits) as a month ``YYYY-MM`` or a year ``YYYY``: ``(year,
    month)``, month None for a year; None for any other text. Raises ValueError for a month
    outside 01-12. The one reading of a month or a year every `since`/`until` takes: as an
    instant (:func:`_since`) and as a timeline's date bound (``operations.core._date_bound``)."""
    m = re.fullmatch(r"([0-9]{4})(?:-([0-9]{2}))?", s)
    if not m:
        return None
    if m[2] and not 1 <= int(m[2]) <= 12:
        raise ValueError(f"no month (01-12): {s!r}")
    return int(m[1]), int(m[2]) if m[2] else None


def _since(v: str | None, name: str = "since", end: bool = False) -> str | None:
    """A time as `--since`/`--until` take it (a span back from now, today, yesterday, an ISO date,
    a month or a year as timeline's `since` takes them: ``2026-12`` its first day) as an ISO instant in UTC; ``name`` is the parameter as the caller names it (`ctx.flag`).
    ``end``: an upper bound (excluded), where a month or a year is through its end as timeline's
    `until` takes it (``2026-12`` → ``2027-01-01``: `changes --until 2026-12` left December out).
    An instant is written as the history writes its times, with milliseconds (``…T07:45:38.000Z``):
    it is compared as text with them and with ``pages.updated_at`` (``…T07:45:38Z``), and
    ``…T07:45:38Z`` sorted after every time of that second (``.`` and ``:`` before ``Z``), so
    `changes`/`undo --since` left out the writes of its second (minute: ``…T07:45Z``); a clock
    with no zone stays as given (a prefix of every time it names), as does a day (``Z`` too); a
    day with another offset is its midnight there (``2026-12-05+02:00`` → ``…12-04T22:00:00.000Z``)."""
    if not v:
        return None
    import re
    import time

    m = re.fullmatch(r"\s*(\d+)\s*([smhdw])\s*", v)
    day = v.strip().lower()
    if day in ("today", "yesterday"):  # local midnight, as an instant in UTC (history times are UTC)
        lt = time.localtime(time.time() - (86400 if day == "yesterday" else 0))
        return time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(time.mktime((lt.tm_year, lt.tm_mon, lt.tm_mday, 0, 0, 0, 0, 0, -1))))
    if m:
        secs = int(m.group(1)) * {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}[m.group(2)]
        try:
            return time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(time.time() - secs))
        except (OverflowError, ValueError, OSError):  # past the platform's clock (time_t)
            raise BadInput(f"{name} {v!r} is further back than the clock reaches") from None
    s = v.strip()
    try:
        ym = month_or_year(s)
    except ValueError:
        raise BadInput(f"{name} {v!r} is no month (01-12)") from None
    if ym:  # a month or a year, as timeline's `since` takes them: from its first day (UTC)
        y, mo = ym
        if end:  # the first day after it
            nxt = (mo or 12) + 1
            y, mo = (y + 1, 1) if nxt > 12 else (y, nxt)
            return f"{y:04}-{mo:02}-01" if y <= 9999 else "9999-12-31T99"  # (text above every time of 9999)
        return f"{y:04}-{mo or 1:02}-01"
    iso = re.fullmatch(r"(\d{4}-\d{2}-\d{2})(?:[Tt ](\d{2}(?::\d{2}(?::\d{2}(?:\.\d+)?)?)?))?([Zz]|[+-]\d{2}(?::?\d{2})?)?", s)
    if iso:  # a time as `changes --json` prints it too; compared as text with the stored UTC times
        from datetime import datetime, timezone

        day, clock, zone = iso.groups()
        if zone and zone not in "Zz" and not clock:  # a day in another zone: its midnight there (review r4: the offset was dropped)
            clock = "00:00"
        try:
            dt = datetime.fromisoformat(day + (f"T{clock}" + (zone.upper() if zone else "") if clock else ""))
        except ValueError:
            raise BadInput(f"{name} {v!r} is no date and time (month 01-12, a day the month has, hour 00-23)") from None
        if zone and clock:  # a UTC instant (another zone's time converted): as the history writes times
            try:
                u = dt.astimezone(timezone.utc)
            except OverflowError:  # 0001-01-01T00:30+01:00: before year 1 in UTC
                raise BadInput(f"{name} {v!r} is outside years 0001-9999 in UTC") from None
            return u.strftime("%Y-%m-%dT%H:%M:%S") + f".{u.microsecond // 1000:03d}Z"
        return day + (f"T{clock}" if clock else "")  # a day (`2026-12-05Z` too), a clock with no zone: prefixes
    raise BadInput(f"{name} must be a span like 24h / 7d, today, yesterday or an ISO date (YYYY-MM-DD, a month YYYY-MM, a year YYYY), got {v!r}")


def refuse_empty_path(v: Any, what: str, give: str = "name a folder or file") -> None:
    """Raise :class:`BadInput` (exit 2) when ``v``, a filesystem path the caller gave, is ``""``
    or only white space: never the current folder nor "not given" (``gbrain export "$OUT"`` with
    OUT unset wrote the brain's pages into the folder it ran in). ``what`` names it as the
    surface does (``--dir``, ``DIR``, ``brain_export: parameter 'dir'``); ``give``: what to give
    instead. The one check of every path parameter (:attr:`Param.path`, :attr:`Param.directory`),
    of ``--db``/``$GBRAIN_DB`` and of ``--file`` (``gbrain/entry.py``). A path with white space
    around other characters (`` notes``) is a path."""
    if isinstance(v, str) and not v.strip():
        shown = f"{v!r} is only white space" if v else "an unset variable in a script gives ''"
        raise BadInput(f"{what} is an empty path: {give} ({shown})")


def _dir_arg(v: str) -> Path:
    p = Path(v).expanduser()
    if not p.exists():
        raise BadInput(f"no such directory: {p}")
    if not p.is_dir():
        import zipfile

        if zipfile.is_zipfile(p):  # a tool's export (Notion, Bear, Logseq) comes as a .zip
            raise BadInput(f"not a directory: {p}; it is a zip archive: unzip it, then give the folder it makes")
        raise BadInput(f"not a directory: {p}")
    return p


def dumps(obj: Any) -> str:
    """JSON for stdout: UTF-8 text, non-ASCII kept, U+2028/U+2029 escaped."""
    return json.dumps(obj, ensure_ascii=False, default=str).replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
