"""The ``gbrain`` entry point, without typer: global ``--db``, a fast path for plain commands,
and the pieces every command shares (run an operation, print its result, exit codes).

Start-up is part of the interface (``gbrain get`` from a shell or an agent's tool call runs a
whole process), so :func:`main` parses a command line that only uses a registry operation's
own arguments and options (``gbrain get SLUG``, ``gbrain search "x" --limit 5 --json``) itself,
from the same :class:`gbrain.operations.Param` list the typer commands are generated from, and
runs it without importing typer (whose parameter conversion imports pydantic). Anything else
(``--help``, groups, ``call``/``pipe``, an unknown option, a value that does not convert) goes
to the typer app in :mod:`gbrain.cli`, which gives the usual help and usage errors;
``GBRAIN_FAST_PATH=0`` sends everything there. ``serve`` skips typer as well.
"""
from __future__ import annotations

import json
import os
import re
import sys
from typing import Any, NoReturn

from . import operations as ops
from .errors import BadInput, GBrainError, error_fields

#: command groups of the typer app (``gbrain config get``, ``gbrain skills show``); cli.GROUPS
GROUP_NAMES = ops.CLI_GROUPS
#: commands the fast path leaves to typer (their own parsing lives in gbrain/cli.py)
TYPER_ONLY = {"call", "pipe"}

_STATE: dict[str, Any] = {"db": None}


#: what a terminal would act on instead of showing: C0/C1 controls (ESC sequences, backspace, a
#: lone CR; newline and tab are layout) and the bidi marks, embeddings, overrides and isolates
_UNSAFE_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]|\r(?!\n)")


def terminal_safe(text: str) -> str:
    """``text`` for a terminal: each character of :data:`_UNSAFE_RE` written as its escape
    (``\\x1b``, ``\\u202e``), so a title or tag cannot move the cursor, recolour the screen or
    reorder what follows. For human output only: ``--json`` and stored data are left as they are."""
    return _UNSAFE_RE.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


def styled(text: str, terminal: bool) -> str:
    """``text`` with the hit marks of text formatters (:data:`gbrain.operations.HIT_STYLE`) as bold
    on a ``terminal`` (unless ``NO_COLOR`` is set or ``TERM`` is ``dumb``), else dropped. Apply
    after :func:`terminal_safe`."""
    on, off = ops.HIT_STYLE
    bold = terminal and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"
    return text.replace(on, "\x1b[1m" if bold else "").replace(off, "\x1b[22m" if bold else "")


def _err(msg: str) -> None:
    """One message on stderr (terminal-safe). A stderr that cannot be written (closed, full,
    read-only) loses it: a diagnostic never turns into a traceback or another exit code."""
    try:
        sys.stderr.write(terminal_safe(msg.rstrip("\n")) + "\n")
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):
        pass


def fail(msg: str, code: int, as_json: bool = False, **extra) -> "NoReturn":
    """End the command with exit ``code`` (1 failure, 2 usage/bad input): ``error: msg`` on stderr,
    and under ``--json`` (or ``call``) also one JSON object ``{"error", "exit_code", **extra}`` on
    stdout, so a script always has one object to read (with a ``kind``, as every error object of
    :func:`gbrain.errors.error_fields` has: ``bad_input`` for exit 2, else ``error`` unless given)."""
    _err(f"error: {msg}")  # (first: a stdout that cannot be written must not hide it)
    if as_json:
        extra = {"kind": "bad_input" if code == 2 else "error", **extra}
        _out(json.dumps({"error": msg, "exit_code": code, **extra}, ensure_ascii=False) + "\n")
    raise SystemExit(code)


def fail_error(e: BaseException, as_json: bool = False) -> "NoReturn":
    """:func:`fail` with ``e``'s error object (:func:`gbrain.errors.error_fields`: message, kind,
    exit code, suggestions)."""
    f = error_fields(e)
    fail(f.pop("error"), f.pop("exit_code"), as_json, **f)


class OutputError(OSError):
    """Standard output could not be written (a full disk behind ``> file``, ``> /dev/full``, an
    I/O error): :func:`main` ends the command with one line on stderr and exit 1. A reader that
    went away is ``BrokenPipeError`` instead."""


def write_all(f, data: bytes) -> None:
    """Write every byte of ``data`` to the binary stream ``f``. A pipe's write returns a short count
    when its reader goes away mid-write (``| head -1`` after 64 KiB) or a signal lands: the rest is
    written again, so the reader's going is ``BrokenPipeError`` (exit 1), never a silent cut (trial 42)."""
    view = memoryview(data)
    while view:
        n = f.write(view)
        if n is None or n >= len(view):
            return
        if n <= 0:
            import errno

            raise OutputError(errno.EIO, "the output took no bytes")
        view = view[n:]


def _out(text: str) -> None:
    """Write text to stdout as UTF-8 bytes, whatever the locale; no newline translation.
    Raises :class:`OutputError` when stdout cannot take them (``BrokenPipeError`` as it is)."""
    data = text.encode("utf-8", errors="surrogateescape")
    if _STATE.get("stdout_closed"):
        import errno

        raise OutputError(errno.EBADF, os.strerror(errno.EBADF))
    try:
        sys.stdout.flush()
        write_all(sys.stdout.buffer, data)
        sys.stdout.buffer.flush()
    except AttributeError:  # captured streams in tests
        sys.stdout.write(text)
    except BrokenPipeError:
        raise
    except OSError as e:
        raise OutputError(e.errno, e.strerror) from None


#: seconds between two progress lines when stderr is not a terminal (a log file, a pipe, an
#: agent's shell): the first comes after this long, so a short command prints none
PLAIN_PROGRESS_S = 10.0


def _time_left(done: int, total: int, spent: float) -> str:
    """``", about 2.0 h left"``: the rate so far (``done`` items in ``spent`` seconds) extrapolated
    to the ``total - done`` items left; ``""`` before any item is done or once none is left."""
    if done <= 0 or total <= done or spent <= 0:
        return ""
    left = (total - done) * spent / done
    if left < 90:
        return f", about {left:.0f} s left"
    if left < 90 * 60:
        return f", about {left / 60:.0f} min left"
    return f", about {left / 3600:.1f} h left"


class _PlainProgress:
    """Progress as plain lines on stderr (``import: 2,000 / 8,411 files (24%), 12 s``) for a
    stderr that is not a terminal, at most one per ``GBRAIN_PROGRESS_EVERY`` seconds (default
    :data:`PLAIN_PROGRESS_S`); ``0`` prints every update. Quacks like rich's ``Progress`` for
    :func:`run_and_print` (``stop``)."""

    def __init__(self, ctx: "ops.Context", name: str):
        import time

        self._clock = time.monotonic
        self._t0 = self._last = self._clock()
        try:
            self._every = float(os.environ.get("GBRAIN_PROGRESS_EVERY", PLAIN_PROGRESS_S))
        except ValueError:
            self._every = PLAIN_PROGRESS_S
        self._label = name
        ctx.on_progress = self.update
        ctx.progress_label = self.label

    def label(self, s: str) -> None:
        if s != self._label:  # a new phase (embed's plan, then its run): its own time left
            self._t0 = self._clock()
        self._label = s

    def update(self, done: int, total: int) -> None:
        now = self._clock()
        if now - self._last < self._every:
            return
        self._last = now
        share = f" ({100 * done // total}%)" if total else ""
        spent = now - self._t0
        _err(f"{self._label}: {done:,} / {total:,}{share}, {spent:.0f} s{_time_left(done, total, spent)}")

    def stop(self) -> None:
        pass


def _progress_ctx(ctx: "ops.Context", name: str = "working"):
    """Attach a progress display for a long operation: a rich progress bar on stderr when stderr
    is a terminal, else plain lines every few seconds (:class:`_PlainProgress`); none for an
    agent's surfaces (``call``/``pipe``: one JSON object, no chatter)."""
    if not sys.stderr.isatty():
        return None if ctx.agent else _PlainProgress(ctx, name)
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn
    from rich.text import Text

    class Rate(ProgressColumn):
        """Items per second (rich's speed estimate), blank until it has one."""

        def render(self, task) -> Text:
            return Text(f"{task.speed:,.1f}/s" if task.speed else "")

    prog = Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), Rate(), TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
        console=Console(stderr=True), transient=True,
    )
    task = {"id": None, "label": "Working"}

    def label(s: str) -> None:
        if task["id"] is not None and s != task["label"]:  # a new phase (embed's plan, then its run): a bar of its own
            prog.remove_task(task["id"])
            task["id"] = None
        task["label"] = s

    def on_progress(done: int, total: int) -> None:
        if task["id"] is None:
            prog.start()
            task["id"] = prog.add_task(task["label"], total=total)
        prog.update(task["id"], completed=done, total=total)

    ctx.on_progress = on_progress
    ctx.progress_label = label
    return prog


#: ``--cursor`` of a paged command (``Operation.page``): its pages, as ``call`` with ``cursor`` gives them
CURSOR_HELP = "one page and next_cursor, as `call` with cursor answers ('' for the first page; next_cursor for the next)"


def run_and_print(o: "ops.Operation", args: dict, as_json: bool, surface: str = "cli") -> None:
    """Run an operation for the CLI and print its result; exits with the right code.
    ``surface`` is recorded as the origin of the versions written (``call`` passes its own)."""
    ctx = ops.Context(db=_STATE["db"], surface=surface)
    warnings: list[str] = []
    ctx.on_warning = warnings.append
    prog = _progress_ctx(ctx, o.name)
    from .storage.db import resolve_db_path

    db_path = resolve_db_path(_STATE["db"])
    new_db = o.db == "create" and not db_path.exists()
    said_new: list[bool] = []

    def say_new() -> None:  # once, as soon as the brain is open (a `watch` runs for hours)
        if new_db and not said_new and db_path.exists() and o.name != "init":
            said_new.append(True)
            _err(f"note: created a new brain at {db_path}")

    ctx.on_open = say_new
    try:
        # the note and text renderers read the arguments as the handler gets them (``"3"`` → 3,
        # defaults filled), never as given; a cursor is call/pipe's paging (ops.run_tool)
        shown = ops.check_args(o, {k: v for k, v in args.items() if k != "cursor"} if o.page and isinstance(args, dict) else args, cli=surface == "cli")
        run_args, limit = args, shown.get("limit") if isinstance(shown, dict) else None
        if (o.page == "limit" and not o.rank_depth and not o.page_key and o.note is not None and isinstance(args, dict)
                and "cursor" not in args and isinstance(limit, int) and limit > 0):
            run_args = dict(args, limit=limit + 1)  # one past the limit: was the listing cut (its note), or is that all?
        result = ops.run(o.name, run_args, ctx)
        if run_args is not args and isinstance(result, list):
            shown = dict(shown, more=len(result) > limit)
            result = result[:limit]
    except GBrainError as e:
        if prog:
            prog.stop()
        fail_error(e, as_json)
    except (FileNotFoundError, NotADirectoryError, PermissionError) as e:
        if prog:
            prog.stop()
        fail(str(e), 1, as_json, kind="os_error")
    except Exception as e:  # an agent (`call`) reads one JSON object, never a traceback
        if prog:
            prog.stop()
        if not ctx.agent:
            raise
        fail(f"internal error: {type(e).__name__}: {e}", 1, as_json, kind="internal")
    except BaseException:
        # Ctrl-C, SIGTERM: the bar (rich's live display) stops first, or the terminal keeps its
        # cursor hidden and the bar is drawn again below "interrupted"
        if prog:
            prog.stop()
        raise
    if prog:
        prog.stop()
    say_new()
    for key in ("warnings", "notes") if not as_json and isinstance(result, dict) else ():
        # a write's warnings (YAML that does not load, …) and query's notes (no embeddings, …) are
        # for the person, on stderr: stdout holds the result alone (`created notes/x`); --json
        # keeps them in the object
        if isinstance(result.get(key), list):
            warnings += [w for w in result[key] if isinstance(w, str) and w not in warnings]
    for w in warnings[:20]:
        _err(f"warning: {w}")
    if len(warnings) > 20:
        _err(f"warning: … and {len(warnings) - 20} more (see --json)")
    paged = surface == "cli" and bool(o.page) and isinstance(args, dict) and "cursor" in args and isinstance(result, dict)
    shown_result = result["items"] if paged and not o.page_key and o.page != "cut" else result  # what the text and note renderers take
    if paged:
        # --cursor: the page's own note (cut to the page size, a ranking's depth) and where the next page starts,
        # instead of the listing's "… the first N" (the page and next_cursor say it exactly)
        import shlex

        said = [result.get("note"), f"… more: the same command with --cursor {shlex.quote(result['next_cursor'])}" if result.get("next_cursor") else None]
        note = None if as_json else ("\n".join(x for x in said if x) or None)  # --json: the object holds both
    else:
        note = o.note(result, shown) if o.note is not None else None
    if note and ctx.agent:  # `call`: "`limit` 0 lists all", not --limit
        note = ops.tool_text(note, o)
    if note:
        _err(note)
    sys.stderr.flush()
    if as_json:
        _out(ops.dumps(result) + "\n")
    elif o.text is not None:
        text = o.text(shown_result, shown)
        if isinstance(text, ops.Nothing):  # an empty answer: said on stderr, stdout empty (`| wc -l` counts 0), exit 0
            _err(text)
        else:
            if not o.text_exact:
                text = styled(terminal_safe(text), sys.stdout.isatty())
            _out(text if (o.name == "get" or text.endswith("\n")) else text + "\n")
    else:
        _out(terminal_safe(json.dumps(result, ensure_ascii=False, indent=2, default=str)) + "\n")
    if isinstance(result, dict) and result.get("ok") is False:
        raise SystemExit(1)
    if isinstance(result, dict) and isinstance(result.get("exit_code"), int) and result["exit_code"]:
        raise SystemExit(result["exit_code"])  # e.g. sync: 3 when conflicts were found


def _read_stdin_or_file(path: str | None) -> str | None:
    """The text of ``--file path`` (``-``: standard input), else of standard input unless it is a
    terminal or closed (None: nothing given). Raises BadInput for a file that cannot be read and
    for bytes that are not UTF-8, and for an empty ``path`` (``--file ""``: never standard input)."""
    if path is not None:
        ops.refuse_empty_path(path, "--file")
    if path == "-":
        if _STATE.get("stdin_closed"):
            raise BadInput("--file -: standard input is closed")
        data = sys.stdin.buffer.read()
    elif path:
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as e:
            raise BadInput(f"cannot read {path}: {e.strerror}") from e
    elif not (_STATE.get("stdin_closed") or sys.stdin.isatty()):
        data = sys.stdin.buffer.read()
    else:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise BadInput(f"page content is not valid UTF-8 (byte {e.start})") from e


def _stdin_has_data() -> bool:
    """Whether standard input holds data now, without waiting: a regular file with bytes left, or
    a pipe or socket with a first byte ready (read, so call this only when stdin is not read
    otherwise). A terminal, ``/dev/null``, an empty or closed pipe and a pipe nobody writes to (an
    inherited stdin that never closes) hold none."""
    import select
    import stat

    try:
        fd = sys.stdin.fileno()
        mode = os.fstat(fd).st_mode
        if stat.S_ISREG(mode):
            return os.fstat(fd).st_size > os.lseek(fd, 0, os.SEEK_CUR)
        if not (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)) or not select.select([fd], [], [], 0)[0]:
            return False
        return os.read(fd, 1) != b""
    except (OSError, ValueError, AttributeError):
        return False


def invoke(o: "ops.Operation", args: dict, as_json: bool, file_: str | None = None, arguments: dict | None = None) -> None:
    """Run ``o`` for the CLI with the parsed command-line ``args`` (param name → value, None for
    not given) and ``arguments`` (the values given as arguments for options that are one too:
    ``ops.join_arguments``): parses ``object`` options as JSON, reads the stdin parameter from ``--file`` or
    standard input, then :func:`run_and_print`. Both the typer commands and :func:`fast_main` end here."""
    stdin_param = next((p for p in o.params if p.stdin), None)
    try:
        ops.join_arguments(o, args, arguments or {})
        for p in o.params:
            if p.type == "object" and isinstance(args.get(p.name), str):
                try:
                    args[p.name] = loads_request(args[p.name])
                except json.JSONDecodeError as e:
                    raise BadInput(f"{ops.cli_name(p)} is not valid JSON: {e}") from e
                except DuplicateKey as e:
                    raise BadInput(f"{ops.cli_name(p)} is not valid: {e}") from e
                if args[p.name] is None:  # typed `null`: not the same as leaving the option out
                    from .operations.registry import type_words

                    raise BadInput(f"{ops.cli_name(p)} takes {p.shape}; got null" if p.shape else f"{ops.cli_name(p)} must be {type_words(p.type)}, got null")
        if stdin_param and args.get(stdin_param.name) is None:
            has_partial = any(args.get(p.name) is not None for p in o.params if not p.positional and not p.modifier and p is not stdin_param)
            if file_ or not has_partial:
                args[stdin_param.name] = _read_stdin_or_file(file_)
        elif stdin_param and file_:
            raise BadInput(f"the page text came both from --file and as {ops.cli_name(stdin_param)}; give one")
        elif stdin_param and _stdin_has_data():
            raise BadInput(f"the page text came both on standard input and as {ops.cli_name(stdin_param)}; give one")
    except GBrainError as e:
        fail_error(e, as_json)
    args = {k: v for k, v in args.items() if v is not None}
    run_and_print(o, args, as_json)


def _pull_db(argv: list[str]) -> tuple[list[str], str | None]:
    """Take ``--db X`` / ``--db=X`` out of argv wherever it stands (before a ``--``), and move a
    ``--json`` given before the command name to after it (``gbrain --json stats``)."""
    argv = _move_leading_json(argv)
    out, db, i = [], None, 0
    while i < len(argv):
        a = argv[i]
        if a == "--":
            out += argv[i:]
            break
        if a == "--db":
            if i + 1 >= len(argv):
                out.append(a)
                break
            db = argv[i + 1]
            i += 2
            continue
        if a.startswith("--db="):
            db = a[5:]
            i += 1
            continue
        out.append(a)
        i += 1
    return out, db


def _move_leading_json(argv: list[str]) -> list[str]:
    i, seen_json = 0, False
    rest = []
    while i < len(argv) and argv[i].startswith("-") and argv[i] != "--":
        if argv[i] == "--json":
            seen_json = True
        else:
            rest.append(argv[i])
            if argv[i] == "--db" and i + 1 < len(argv):
                i += 1
                rest.append(argv[i])
        i += 1
    if not seen_json or i >= len(argv):
        return argv
    cmd_end = i + 1
    if argv[i] in GROUP_NAMES and cmd_end < len(argv) and not argv[cmd_end].startswith("-"):  # a command group: `config get`
        cmd_end += 1
    tail = argv[cmd_end:]
    if "--" in tail:
        k = tail.index("--")
        tail = tail[:k] + ["--json"] + tail[k:]
    else:
        tail = tail + ["--json"]
    return rest + argv[i:cmd_end] + tail


def _convert(p: "ops.Param", v: str) -> Any:
    """A command-line string as typer would convert it for ``p``; ValueError when typer would
    refuse it (the fast path then leaves the command line to typer for the usual message)."""
    if p.type == "integer":
        if not re.fullmatch(r"-?[0-9]+", v):  # plain digits only; typer decides anything fancier
            raise ValueError(v)
        return int(v)
    if p.type == "number":
        if not re.fullmatch(r"-?[0-9]+(\.[0-9]+)?", v):
            raise ValueError(v)
        return float(v)
    return v


def fast_parse(argv: list[str]) -> tuple["ops.Operation", dict, bool, str | None, dict] | None:
    """``(operation, args, as_json, file, arguments)`` for a command line the fast path can take, else None.

    Takes: a top-level registry command, its positional arguments in order, ``--opt value`` /
    ``--opt=value`` for its options, ``--flag`` for its boolean options, ``--json``, and
    ``--file``/``-f`` where the operation reads standard input; each at most once, every
    required argument present and every value converting as typer converts it. ``args`` holds
    what the typer command would receive (defaults included, None for not given); ``arguments``
    the arguments given for options that are one too (:func:`invoke`)."""
    if not argv or argv[0].startswith("-") or argv[0] in TYPER_ONLY or argv[0] in GROUP_NAMES:
        return None
    o = ops.REGISTRY.get(argv[0])
    if o is None or "-" in o.name and o.name.split("-", 1)[0] in GROUP_NAMES:
        return None
    cli_params = [p for p in o.params if p.cli]
    positional = [p for p in cli_params if p.positional or p.argument_too]
    options = {"--" + (p.flag or p.name).replace("_", "-"): p for p in cli_params if not p.positional}
    has_stdin = any(p.stdin for p in o.params)
    args: dict[str, Any] = {}
    as_json, file_, seen, pos = False, None, set(), []
    toks, i = argv[1:], 0
    while i < len(toks):
        t = toks[i]
        if not t.startswith("-") or t == "-":
            pos.append(t)
            i += 1
            continue
        name, eq, val = t.partition("=")
        if name in seen:
            return None
        seen.add(name)
        if name == "--json" and not eq:
            as_json = True
        elif name == "--cursor" and o.page:
            if not eq:
                if i + 1 >= len(toks):
                    return None
                i += 1
                val = toks[i]
            args["cursor"] = val
        elif name in ("--file", "-f") and has_stdin:
            if not eq:
                if i + 1 >= len(toks):
                    return None
                i += 1
                val = toks[i]
            file_ = val
        elif name in options:
            p = options[name]
            if p.type == "boolean":
                if eq:
                    return None
                args[p.name] = True
            else:
                if not eq:
                    if i + 1 >= len(toks):
                        return None
                    i += 1
                    val = toks[i]
                try:
                    args[p.name] = _convert(p, val)
                except ValueError:
                    return None
        else:
            return None  # --help, --, an unknown option: typer answers
        i += 1
    if len(pos) > len(positional):
        return None
    arguments: dict[str, Any] = {}
    for p, v in zip(positional, pos):
        try:
            (arguments if p.argument_too else args)[p.name] = _convert(p, v)
        except ValueError:
            return None
    for p in cli_params:
        if p.name in args:
            continue
        if p.required and not (p.argument_too and p.name in arguments):
            return None  # typer reports what is missing
        args[p.name] = bool(p.default) if (p.type == "boolean" and not p.positional) else (None if p.positional or p.argument_too else p.default)
    return o, args, as_json, file_, arguments


def fast_main(argv: list[str]) -> bool:
    """Run ``argv`` (``--db`` already taken out) without typer when :func:`fast_parse` takes it;
    returns False when it does not (nothing was run). Exits like the typer command would."""
    if os.environ.get("GBRAIN_FAST_PATH", "1") == "0":
        return False
    if argv[:1] == ["serve"] and set(argv[1:]) <= {"--create", "--read-only", "--json"} and len(set(argv[1:])) == len(argv[1:]):
        # --json is accepted as on every command: serve's stdout is JSON-RPC anyway
        try:
            from .mcp.handshake import serve_main

            serve_main(_STATE["db"], create="--create" in argv, read_only="--read-only" in argv)
        except ImportError as e:
            _err(f"error: the MCP server is not available: {e}")
            raise SystemExit(1)
        except GBrainError as e:  # e.g. no brain at --db (serve --create makes one)
            _err(f"error: {e}")
            raise SystemExit(e.exit_code)
        return True
    if argv[:1] in (["call"], ["pipe"]):
        # call and pipe parse their own few arguments: without typer (and pydantic), a call starts
        # in half the CPU (trial 32); anything else (--help, an unknown option, `--`) goes to typer
        rest = argv[1:]
        if rest.count("--json") == 1:
            rest.remove("--json")
        if argv[0] == "pipe" and not rest:
            run_pipe()
            return True
        if argv[0] == "call" and 1 <= len(rest) <= 2 and all(a == "-" or not a.startswith("-") for a in rest):
            run_call(rest[0], rest[1] if len(rest) == 2 else None)
            return True
        return False
    parsed = fast_parse(argv)
    if parsed is None:
        return False
    invoke(*parsed)
    return True


BOM = "\ufeff"
"""A byte order mark, which some editors and shells (PowerShell 5, Notepad) put before UTF-8 text:
no part of the JSON `call` and `pipe` read (RFC 8259 lets a reader ignore it)."""


#: commands of their own that are no operation: named so by call and pipe, not "unknown tool"
OWN_COMMANDS = {"serve": "runs until stopped (the MCP server on stdio)", "call": "is a command of its own", "pipe": "is a command of its own"}


class DuplicateKey(ValueError):
    """A JSON object naming one key twice (:func:`loads_request`): ``key`` is the key."""

    def __init__(self, key: str):
        super().__init__(f"duplicate key {key!r}")
        self.key = key


def _refuse_duplicates(pairs: list[tuple[str, object]]) -> dict:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for k, _ in pairs:
            if k in seen:
                raise DuplicateKey(k)
            seen.add(k)
    return out


def loads_request(text: str):
    """The JSON value ``text`` holds (a leading byte order mark ignored, :data:`BOM`), an object
    naming one key twice refused: RFC 8259 §4 leaves such names to the reader, and Python's json
    keeps the last, so a script that built ``{"slug": "a", "slug": "b"}`` would read ``b`` unsaid.
    Raises ``json.JSONDecodeError`` for text that is no JSON, :class:`DuplicateKey` for a repeated
    key (at any depth)."""
    return json.loads(text.removeprefix(BOM), object_pairs_hook=_refuse_duplicates)


def find_op(tool: str) -> "ops.Operation":
    """The operation ``call``/``pipe`` name; BadInput for a command of its own (``serve``)."""
    if isinstance(tool, str) and tool.removeprefix("brain_") in OWN_COMMANDS:
        name = tool.removeprefix("brain_")
        raise BadInput(f"{name} {OWN_COMMANDS[name]}: not through call or pipe; run `gbrain {name}` as a process of its own")
    return ops.find(tool)


def run_call(tool: str, params: str | None) -> None:
    """``gbrain call TOOL [PARAMS]`` (the typer command and the fast path both end here)."""
    piped = params is None and not sys.stdin.isatty()  # `echo '{…}' | gbrain call X`: not read (a `while read` loop's input is no one's parameters), but said
    try:
        text = sys.stdin.buffer.read().decode("utf-8") if params == "-" else params or "{}"
        if params == "-" and not text.strip():
            fail(f"no parameters: standard input is empty (`gbrain call {tool} -` reads a JSON object there; '{{}}' for none)", 2, True)
        args = loads_request(text)
    except UnicodeDecodeError as e:
        fail(f"parameters are not valid JSON: standard input is not UTF-8 (byte {e.start})", 2, True)
    except DuplicateKey as e:
        fail(f"parameters are not valid: {e}", 2, True)
    except json.JSONDecodeError as e:
        fail(f"parameters are not valid JSON: {e}", 2, True)
    try:
        o = find_op(tool)
    except GBrainError as e:
        fail_error(e, True)
    if piped:
        try:
            ops.check_args(o, args)
        except BadInput as e:
            if "missing required" in str(e):
                fail(f"{e} (no parameters given; `gbrain call {tool} -` reads them from standard input)", 2, True)
    run_and_print(o, args, True, surface="call")  # check_args rejects a non-object with a clear message


def run_pipe() -> None:
    """``gbrain pipe``: JSONL mode, one request per line on stdin, one answer per line on stdout (the
    typer command's help says the rest); exits with :func:`pipe_status`."""
    from .core.brain import Brain
    from .operations.registry import json_kind

    brain = None
    codes: set[int] = set()  # the exit codes of the answers (pipe_status)
    try:
        for n, line in enumerate(sys.stdin.buffer, 1):
            if not line.strip():
                continue
            rid = None
            try:
                try:  # only the parsing of the line is "bad JSON": a failure of the op below is the op's
                    req = loads_request(line.decode("utf-8").rstrip("\r\n"))
                except UnicodeDecodeError as e:
                    raise BadInput(f"bad JSON line {n} of the input: not UTF-8 (byte {e.start})") from e
                except DuplicateKey as e:
                    raise BadInput(f"bad JSON line {n} of the input: {e}") from e
                except json.JSONDecodeError as e:  # the line of the input, counted with blank ones: answers are one per request, not per line
                    raise BadInput(f"bad JSON line {n} of the input: {e.msg.removesuffix(' at')} at column {e.colno}") from e  # (json's "… starting at": one "at")
                if not isinstance(req, dict):
                    raise BadInput(f"bad request line {n} of the input: a request must be a JSON object, not {json_kind(req)}")
                rid = req.get("id")
                _check_request_keys(req, n)
                tool = req.get("tool") or req.get("name")
                if not isinstance(tool, str):
                    raise BadInput(f"bad request line {n} of the input: a request needs a 'tool' name (a string)")
                o = find_op(tool)
                if brain is None and o.db != "none":  # its arguments checked first: a refused line makes no brain
                    params = req.get("params", req.get("arguments"))
                    ops.check_args(o, {k: v for k, v in params.items() if k != "cursor"} if o.page and isinstance(params, dict) else params)
                    from .storage.db import resolve_db_path

                    db_path = resolve_db_path(_STATE["db"])
                    existed = db_path.exists()
                    brain = Brain.open(_STATE["db"], create=(o.db == "create"))
                    if not existed and db_path.exists():
                        _err(f"note: created a new brain at {db_path}")
                said: list[str] = []  # the request's warnings (a renamed page's old name followed, …): in its answer
                res = ops.run(tool, req.get("params", req.get("arguments")), ops.Context(db=_STATE["db"], surface="pipe", on_warning=said.append,
                                                                                     reads=_STATE.setdefault("reads", {})),
                              brain=brain if o.db != "none" else None)
                resp = {"id": rid, "ok": True, "result": res, **({"warnings": said} if said else {})}
                if isinstance(res, dict) and isinstance(res.get("exit_code"), int) and res["exit_code"]:
                    codes.add(res["exit_code"])  # sync's 3: conflicts found
            except Exception as e:  # the object `call` prints for it; a bad request never ends the stream
                resp = {"id": rid, "ok": False, **error_fields(e)}
                codes.add(-resp["exit_code"])  # a failure: outranks a code an ok answer carries
            _out(ops.dumps(resp) + "\n")
    finally:
        if brain is not None:
            brain.close()
    code = pipe_status(codes)
    if code:
        raise SystemExit(code)


#: the keys of a ``pipe`` request (``name``/``arguments``: MCP's tools/call spelling of ``tool``/``params``)
PIPE_KEYS = ("id", "tool", "params", "name", "arguments")


def _check_request_keys(req: dict, n: int) -> None:
    """Refuse (:class:`BadInput`, naming line ``n`` and the near key) a ``pipe`` request with a
    key it does not take: ``"parmas"`` ran the tool with no parameters, unsaid."""
    from .operations.registry import ascii_name, did_you_mean, near_names

    unknown = [k for k in req if k not in PIPE_KEYS]
    if unknown:
        near = list(dict.fromkeys(m for k in unknown for m in near_names(k, [x for x in PIPE_KEYS if x not in req], 1)))
        raise BadInput(f"bad request line {n} of the input: unknown key(s) {', '.join(repr(ascii_name(k)) for k in unknown)}; {did_you_mean(near)}"
                       "a request takes id, tool, params (or MCP's name, arguments)", suggestions=near)


def pipe_status(codes: set[int]) -> int:
    """``gbrain pipe``'s exit status from the exit codes of its answers (a failed answer's code
    negated, an ok answer's result's own ``exit_code`` as it is): 0 when there are none, else 2
    when a line was bad input, else 1 when one failed (any other failure code counts as 1), else
    the highest code an ok answer carried (sync's 3: conflicts found). Bad input outranks a
    failure (the script is wrong), and a failure outranks conflicts (a request did not run)."""
    failed = {-c for c in codes if c < 0}
    if failed:
        return 2 if 2 in failed else 1
    return max(codes, default=0)


#: long commands that commit as they go and pick up where they stopped when run again
_RESUMABLE = frozenset(("import", "sync", "export", "watch"))  # (embed says so itself)


def _json_errors(args: list[str]) -> bool:
    """True when the command line asks for JSON output (``--json`` before any ``--``, or ``call``):
    its errors are then reported as JSON on stdout as well."""
    head = args[: args.index("--")] if "--" in args else args
    return "--json" in head or head[:1] == ["call"]


def _no_args_is_help(group: str) -> bool:
    """Whether ``gbrain GROUP`` alone is a usage error that shows the group's help (``config``;
    ``skills`` alone lists the skills)."""
    from .cli import GROUPS

    return GROUPS[group].info.no_args_is_help is True


#: what a value of each kind of the validation library's errors must be (typer 0.29 converts
#: options with pydantic, whose own words are "Input should be a valid integer, unable to parse …")
_EXPECTED = {"int_parsing": "a whole number", "float_parsing": "a number", "bool_parsing": "true or false"}


def _plain_value_error(e: Exception) -> None:
    """Reword ``e``, typer's ``BadParameter`` for a value the validation library refused (its
    ``__cause__``), as what was given and what the option takes (``'x' is not a whole number``);
    any other error is left as it is."""
    cause = e.__cause__
    if type(cause).__name__ != "ValidationError" or not hasattr(e, "message"):
        return
    try:
        first = cause.errors()[0]  # type: ignore[attr-defined]
    except (AttributeError, IndexError, TypeError):
        return
    want = _EXPECTED.get(first.get("type", ""))
    if want is not None:
        e.message = f"'{first.get('input')}' is not {want}"  # type: ignore[attr-defined]  (_err escapes controls)


#: unknown command names that mean a command whose name does not end with them
_COMMAND_SYNONYMS = {"gc": "history-prune"}


def _name_the_command_it_ends(e: Exception) -> None:
    """An unknown command (typer's ``No such command 'NAME'.`` usage error, ``e``) that is the end
    of a command's name, ``prune`` of ``history-prune``, is offered that command first: typer's
    spelling guess alone offered ``purge``, which removes a text from every version for good
    (trial 47)."""
    m = re.match(r"No such command '([^']*)'\.(?: Did you mean (.*)\?)?$", str(getattr(e, "message", "")))
    ctx = getattr(e, "ctx", None)
    if not m or ctx is None:
        return
    name = m.group(1)
    names = list(getattr(ctx.command, "commands", {}) or {})
    ends = [c for c in names if c.endswith("-" + name)] + [c for c in [_COMMAND_SYNONYMS.get(name)] if c in names]
    if ends:
        guesses = re.findall(r"'([^']*)'", m.group(2) or "")
        offer = ", ".join(repr(c) for c in dict.fromkeys(ends + guesses))
        e.message = f"No such command {name!r}. Did you mean {offer}?"  # type: ignore[attr-defined]


def _command_path(app, args: list[str]) -> str:
    """The command line's command as help names it (``gbrain search``, ``gbrain config set``):
    the leading words of ``args`` that are commands of typer's ``app``, options skipped;
    ``gbrain`` when none is. For an error click raises without a context."""
    import typer

    cmd, path = typer.main.get_command(app), ["gbrain"]
    for a in args:
        if a.startswith("-"):
            continue
        sub = getattr(cmd, "commands", {}).get(a)
        if sub is None:
            break
        cmd = sub
        path.append(a)
    return " ".join(path)


def usage_error_text(e: Exception, app=None, args: list[str] | None = None) -> str:
    """One line for a usage error of typer's click (``e``: a ``ClickException``): its message
    with the first letter lowered and whitespace runs as one space, then the help to read
    (``(gbrain search --help)``; an error click raises with no context, an option missing its
    value, names it from ``args`` over typer's ``app``); an unknown one-dash option (``search -revenue``) of a command
    that takes an argument also says that an argument starting with ``-`` goes after ``--``."""
    _plain_value_error(e)
    _name_the_command_it_ends(e)
    msg = " ".join(str(e.format_message()).split()).rstrip(".")  # type: ignore[attr-defined]
    if type(e).__name__ == "NoArgsIsHelpError":  # `gbrain`, `gbrain config`: typer's help printed itself, its message is ''
        msg = "missing command"
    if msg[:1].isupper() and not msg[1:2].isupper():
        msg = msg[0].lower() + msg[1:]
    ctx = getattr(e, "ctx", None)
    path = ctx.command_path if ctx is not None else _command_path(app, args) if app is not None and args else "gbrain"
    hint = f"{path} --help"
    if type(e).__name__ == "NoSuchOption" and not str(getattr(e, "option_name", "--")).startswith("--") and ctx is not None and any(
        getattr(p, "param_type_name", "") == "argument" for p in ctx.command.params
    ):
        hint += f"; a value starting with '-' goes after --: {path} -- -value"
    return f"{msg} ({hint})"


def _stdout_utf8() -> None:
    """Make stdout's text layer UTF-8 as :func:`_out` writes bytes (typer's and rich's help go
    through it): ``PYTHONIOENCODING=ascii`` made ``gbrain copy --help`` a UnicodeEncodeError
    traceback on its ``↔``. stderr keeps its encoding (escapes for what it cannot show)."""
    try:
        if (sys.stdout.encoding or "").lower().replace("-", "") != "utf8":
            sys.stdout.reconfigure(encoding="utf-8", errors="surrogateescape")  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        pass


class Terminated(KeyboardInterrupt):
    """SIGTERM (``kill PID``, a service manager stopping gbrain) or SIGHUP (the terminal or ssh
    session closed), raised where the signal lands as Ctrl-C's KeyboardInterrupt is: transactions
    roll back, pools and temp folders are cleaned up, and the command ends with the interrupted
    line (``word``) and exit 128 + the signal's number (``code``: 143, 129)."""

    def __init__(self, word: str = "terminated", code: int = 143):
        super().__init__(word)
        self.word, self.code = word, code


def _terminate_as_interrupt() -> None:
    """Make SIGTERM and SIGHUP stop a command as SIGINT does (:class:`Terminated`), unless they
    were ignored when gbrain started; both record the exception they raise in ``_STATE["interrupt"]`` (typer
    turns one into a bare exit code 130: :func:`_main` raises it again to say it). ``watch`` and
    ``serve`` set their own handlers while they run."""
    import signal

    def on_term(signum, frame) -> None:
        signal.signal(signum, signal.SIG_DFL)  # a second one ends the process outright
        _STATE["interrupt"] = e = Terminated("terminated", 143) if signum == signal.SIGTERM else Terminated("hung up", 129)
        _note(e)
        raise e

    def on_int(signum, frame) -> None:
        _STATE["interrupt"] = e = KeyboardInterrupt()
        _note(e)
        raise e

    def _note(e: BaseException) -> None:  # (no SQL ran before gbrain.storage.db was imported)
        db = sys.modules.get("gbrain.storage.db")
        if db is not None:
            db.note_interrupt(e)

    try:
        for sig in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
            if sig is not None and signal.getsignal(sig) == signal.SIG_DFL:  # (nohup: SIGHUP ignored, stays so)
                signal.signal(sig, on_term)
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            signal.signal(signal.SIGINT, on_int)
    except (ValueError, OSError):  # not the main thread
        pass


def _closed_std_fds() -> None:
    """Give a standard descriptor the shell closed (``<&-``, ``>&-``, ``2>&-``) ``/dev/null`` and
    a stream, so no file gbrain opens later takes its number (a page written where stdout should
    be) and no code meets ``sys.stdin is None``. Closed stdin then reads as no input (as a
    terminal: ``put`` asks for content); closed stdout makes output an error, as coreutils do
    (:func:`_out`: ``cannot write the output: Bad file descriptor``)."""
    for fd, name, mode in ((0, "stdin", "r"), (1, "stdout", "w"), (2, "stderr", "w")):
        try:
            os.fstat(fd)
            continue
        except OSError:
            pass
        try:
            null = os.open(os.devnull, os.O_RDONLY if mode == "r" else os.O_WRONLY)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
            setattr(sys, name, open(fd, mode, encoding="utf-8", errors="surrogateescape" if fd < 2 else "backslashreplace", closefd=False))
        except OSError:
            continue
        _STATE[f"{name}_closed"] = True


def _utf8_mode() -> None:
    """Run this process again in Python's UTF-8 mode (``-X utf8``) when its file system encoding
    is not UTF-8: a locale such as ``LC_ALL=C`` with ``PYTHONUTF8=0`` (names and arguments as
    ASCII with surrogate escapes) or ISO-8859-1 (``josé`` read as ``josÃ©``). A brain's names are
    UTF-8 bytes whatever the locale (stdout is written as UTF-8 already, :func:`_out`), so its file
    names, arguments and stdin are read as UTF-8 too. The command line's bytes go through as they
    came (``os.execv`` encodes them back with the same encoding). POSIX only; once at most (the new
    process is in UTF-8 mode)."""
    if sys.flags.utf8_mode or os.name != "posix" or sys.getfilesystemencoding().lower().replace("-", "") == "utf8":
        return
    orig = getattr(sys, "orig_argv", None)
    if not orig or not sys.executable:
        return
    try:
        sys.stdout.flush()
        sys.stderr.flush()
        os.execv(sys.executable, [sys.executable, "-X", "utf8", *orig[1:]])
    except OSError:  # (cannot happen short of a vanished interpreter: go on as the locale says)
        return


def main(argv: list[str] | None = None) -> None:
    """Console entry point: the fast path when it takes the command line, else the typer app.

    A reader that goes away (``gbrain get X | head -1``) ends the command quietly with exit 1, as
    Python's documentation advises for SIGPIPE: stdout is pointed at devnull so that the flush at
    exit cannot fail again, and no traceback is printed."""
    if argv is None:
        _utf8_mode()
        _closed_std_fds()
        _terminate_as_interrupt()
        _stdout_utf8()
    try:
        _main(argv)
    except BrokenPipeError:
        _stdout_to_devnull()
        raise SystemExit(1)
    except OSError as e:
        if not (isinstance(e, OutputError) or _printing_help(e)):
            raise
        _stdout_to_devnull()
        _err(f"error: cannot write the output: {e.strerror or e} (stdout)")
        raise SystemExit(1)


def _stdout_to_devnull() -> None:
    """Point stdout at devnull, so the flush at exit cannot fail again (and print a traceback)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def _printing_help(e: OSError) -> bool:
    """Whether ``e`` was raised where typer, click or rich print (help, usage, completion): their
    only writes are to stdout and stderr."""
    tb = e.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is not None and tb.tb_frame.f_globals.get("__name__", "").split(".")[0] in ("typer", "click", "rich")


def _main(argv: list[str] | None) -> None:
    from .storage import db as storage_db

    storage_db.on_upgrade = lambda line: _err(f"note: {line}")  # (a big brain's schema upgrade)
    storage_db.on_warning = lambda line: _err(f"warning: {line}")  # (a misfit write-ahead log set aside)
    storage_db.on_wait = lambda line: _err(f"note: {line}")  # (a write waiting for another process's; serve says none)
    args, db = _pull_db(list(sys.argv[1:] if argv is None else argv))
    try:  # `--db ""` is no brain (nor "not given"); an empty $GBRAIN_DB is unset, a blank one is not
        ops.refuse_empty_path(db, "--db", "name a brain file or a postgresql:// URL, or leave --db out")
        ops.refuse_empty_path(os.environ.get("GBRAIN_DB") or None, "GBRAIN_DB", "name a brain file or a postgresql:// URL, or unset it")
    except BadInput as e:
        fail(str(e), e.exit_code, _json_errors(args))
    _STATE["db"] = db or None
    if _STATE["db"] or os.environ.get("GBRAIN_DB"):
        from .storage.db import resolve_db_path

        try:  # a mistyped URL (its password hidden) is bad input before any command runs
            resolve_db_path(_STATE["db"])
        except BadInput as e:
            fail(str(e), e.exit_code, _json_errors(args))
    if args in (["--version"], ["-V"]):
        from . import __version__

        _out(f"gbrain {__version__}\n")
        return
    try:
        if fast_main(args):
            return
        from .cli import app

        import typer

        as_json = _json_errors(args)
        rest = [a for a in args if a != "--json"]
        if as_json and (not rest or (len(rest) == 1 and rest[0] in GROUP_NAMES and _no_args_is_help(rest[0]))):
            # no command: the help would print itself on stdout before the error object
            fail(f"missing command ({' '.join(['gbrain', *rest])} --help)", 2, True)
        try:  # click's own error printing (a usage line, a hint, a framed box) is replaced by one line
            rc = app(args=args, prog_name="gbrain", standalone_mode=False)
        except typer.TyperException as e:  # typer's click: usage errors, bad parameters
            fail(usage_error_text(e, app, args), getattr(e, "exit_code", 2), as_json)
        except typer.Abort as e:
            if isinstance(e.__cause__, KeyboardInterrupt):
                raise e.__cause__ from None
            fail("aborted", 1, as_json)
        if rc == 130 and isinstance(_STATE.get("interrupt"), KeyboardInterrupt):
            raise _STATE["interrupt"]  # typer's click turned it into a bare 130
        if isinstance(rc, int) and rc:
            raise SystemExit(rc)
    except KeyboardInterrupt as e:
        word = e.word if isinstance(e, Terminated) else "interrupted"
        if getattr(e, "said", False):  # the command said what was kept and how to go on (embed)
            pass
        elif args[:1] and args[0] in _RESUMABLE:
            _err(f"{word}: what {args[0]} committed so far is kept; run the same command again to go on")
        else:
            _err(word)
        sys.exit(e.code if isinstance(e, Terminated) else 130)
