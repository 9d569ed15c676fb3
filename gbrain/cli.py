"""The ``gbrain`` command line: generated from the operations registry, plus call/pipe/serve.

Thin by design: parse arguments, call :func:`gbrain.operations.run`, format the result.
Text by default, ``--json`` on every command. Errors go to stderr; exit codes are
0 ok, 1 failure, 2 usage or bad input. ``--db PATH`` is accepted before or after the command.
"""
from __future__ import annotations

import inspect
import json
import sys
from typing import Any, Optional

import typer

from . import operations as ops
from .errors import BadInput, GBrainError, NotFound

app = typer.Typer(
    name="gbrain",
    help="A personal knowledge brain in one SQLite file, with a byte-exact markdown twin.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)
config_app = typer.Typer(help="Read or set brain config values.", no_args_is_help=True)
app.add_typer(config_app, name="config")
skills_app = typer.Typer(help="The agent skills shipped with gbrain: list (the default), show NAME, install.")
app.add_typer(skills_app, name="skills")
#: operations named ``<group>-<sub>`` become ``gbrain <group> <sub>``
GROUPS = {"config": config_app, "skills": skills_app}

_STATE: dict[str, Any] = {"db": None}

PY_TYPES = {"string": str, "integer": int, "number": float, "boolean": bool, "object": str, "array": str}


def _err(msg: str) -> None:
    sys.stderr.write(msg.rstrip("\n") + "\n")
    sys.stderr.flush()


def _out(text: str) -> None:
    """Write text to stdout as UTF-8 bytes, whatever the locale; no newline translation."""
    data = text.encode("utf-8", errors="surrogateescape")
    try:
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    except AttributeError:  # captured streams in tests
        sys.stdout.write(text)


def _progress_ctx(ctx: ops.Context):
    """Attach a rich progress bar on stderr (only when stderr is a terminal)."""
    if not sys.stderr.isatty():
        return None
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    prog = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=Console(stderr=True), transient=True)
    task = {"id": None, "label": "Working"}

    def label(s: str) -> None:
        task["label"] = s

    def on_progress(done: int, total: int) -> None:
        if task["id"] is None:
            prog.start()
            task["id"] = prog.add_task(task["label"], total=total)
        prog.update(task["id"], completed=done, total=total)

    ctx.on_progress = on_progress
    ctx.progress_label = label
    return prog


def run_and_print(o: ops.Operation, args: dict, as_json: bool) -> None:
    """Run an operation for the CLI and print its result; exits with the right code."""
    ctx = ops.Context(db=_STATE["db"])
    warnings: list[str] = []
    ctx.on_warning = warnings.append
    prog = _progress_ctx(ctx)
    from .core.db import resolve_db_path

    db_path = resolve_db_path(_STATE["db"])
    new_db = o.db == "create" and not db_path.exists()
    try:
        result = ops.run(o.name, args, ctx)
    except NotFound as e:
        if prog:
            prog.stop()
        if as_json:
            _out(ops.dumps({"error": str(e), "suggestions": e.suggestions}) + "\n")
        _err(f"error: {e}")
        raise typer.Exit(1)
    except GBrainError as e:
        if prog:
            prog.stop()
        _err(f"error: {e}")
        raise typer.Exit(e.exit_code)
    except (FileNotFoundError, NotADirectoryError, PermissionError) as e:
        if prog:
            prog.stop()
        _err(f"error: {e}")
        raise typer.Exit(1)
    if prog:
        prog.stop()
    if new_db and db_path.exists() and o.name != "init":
        _err(f"note: created a new brain at {db_path}")
    for w in warnings[:20]:
        _err(f"warning: {w}")
    if len(warnings) > 20:
        _err(f"warning: … and {len(warnings) - 20} more (see --json)")
    sys.stderr.flush()
    if as_json:
        _out(ops.dumps(result) + "\n")
    elif o.text is not None:
        text = o.text(result, args)
        _out(text if (o.name == "get" or text.endswith("\n")) else text + "\n")
    else:
        _out(json.dumps(result, ensure_ascii=False, indent=2, default=str) + "\n")
    if isinstance(result, dict) and result.get("ok") is False:
        raise typer.Exit(1)
    if isinstance(result, dict) and isinstance(result.get("exit_code"), int) and result["exit_code"]:
        raise typer.Exit(result["exit_code"])  # e.g. sync: 3 when conflicts were found


def _read_stdin_or_file(path: str | None) -> str | None:
    if path:
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as e:
            raise BadInput(f"cannot read {path}: {e.strerror}") from e
    elif not sys.stdin.isatty():
        data = sys.stdin.buffer.read()
    else:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise BadInput(f"page content is not valid UTF-8 (byte {e.start})") from e


def _make_command(o: ops.Operation):
    params = []
    annotations: dict[str, Any] = {}
    pymap: dict[str, str] = {}
    for p in o.params:
        if not p.cli:
            continue
        py = p.name if p.name not in ("from", "type", "import") else p.name + "_"
        pymap[py] = p.name
        t = PY_TYPES[p.type]
        if p.positional:
            default = typer.Argument(... if p.required else None, help=p.description, show_default=False)
            ann = t if p.required else Optional[t]
        elif p.type == "boolean":
            default = typer.Option(bool(p.default), f"--{(p.flag or p.name).replace('_', '-')}", help=p.description)
            ann = bool
        else:
            default = typer.Option(... if p.required else p.default, f"--{(p.flag or p.name).replace('_', '-')}", help=p.description + (" (JSON)" if p.type == "object" else ""), show_default=p.default not in (None, ""))
            ann = t if (p.required or p.default is not None) else Optional[t]
        params.append(inspect.Parameter(py, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=ann))
        annotations[py] = ann
    stdin_param = next((p for p in o.params if p.stdin), None)
    if stdin_param:
        params.append(inspect.Parameter("file_", inspect.Parameter.KEYWORD_ONLY, default=typer.Option(None, "--file", "-f", help="read the content from this file instead of standard input"), annotation=Optional[str]))
        annotations["file_"] = Optional[str]
    params.append(inspect.Parameter("json_", inspect.Parameter.KEYWORD_ONLY, default=typer.Option(False, "--json", help="print JSON"), annotation=bool))
    annotations["json_"] = bool

    def command(**kw):
        as_json = kw.pop("json_", False)
        file_ = kw.pop("file_", None)
        args = {pymap[k]: v for k, v in kw.items()}
        try:
            for p in o.params:
                if p.type == "object" and isinstance(args.get(p.name), str):
                    try:
                        args[p.name] = json.loads(args[p.name])
                    except json.JSONDecodeError as e:
                        raise BadInput(f"--{p.name} is not valid JSON: {e}") from e
            if stdin_param and args.get(stdin_param.name) is None:
                has_partial = any(args.get(p.name) is not None for p in o.params if not p.positional and p is not stdin_param)
                if file_ or not has_partial:
                    args[stdin_param.name] = _read_stdin_or_file(file_)
        except GBrainError as e:
            _err(f"error: {e}")
            raise typer.Exit(e.exit_code)
        args = {k: v for k, v in args.items() if v is not None}
        run_and_print(o, args, as_json)

    command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    command.__annotations__ = annotations
    command.__name__ = o.name.replace("-", "_")
    command.__doc__ = o.description
    return command


for _o in ops.REGISTRY.values():
    _group = GROUPS.get(_o.name.split("-", 1)[0]) if "-" in _o.name else None
    if _group is not None:
        _group.command(_o.name.split("-", 1)[1], help=_o.description)(_make_command(_o))
    else:
        app.command(_o.name, help=_o.description)(_make_command(_o))


@skills_app.callback(invoke_without_command=True)
def _skills_root(ctx: typer.Context, json_: bool = typer.Option(False, "--json", help="print JSON")) -> None:
    """`gbrain skills` alone lists the skills (as `gbrain skills list`)."""
    if ctx.invoked_subcommand is None:
        run_and_print(ops.REGISTRY["skills-list"], {}, json_)


@app.command("call")
def call_cmd(tool: str = typer.Argument(..., help="tool name, e.g. brain_search or search"), params: str = typer.Argument("{}", help="JSON object of parameters")) -> None:
    """Call one operation with JSON parameters; prints the JSON result."""
    try:
        args = json.loads(params)
    except json.JSONDecodeError as e:
        _err(f"error: parameters are not valid JSON: {e}")
        raise typer.Exit(2)
    try:
        o = ops.find(tool)
    except GBrainError as e:
        _err(f"error: {e}")
        raise typer.Exit(2)
    run_and_print(o, args, True)  # check_args rejects a non-object with a clear message


@app.command("pipe")
def pipe_cmd() -> None:
    """JSONL mode: one request per line on stdin ({"id", "tool", "params"}), one response per line on stdout
    ({"id", "ok", "result" | "error"}). A bad line gets an error object and the stream goes on."""
    from .core.brain import Brain

    brain = None
    try:
        for line in sys.stdin.buffer:
            if not line.strip():
                continue
            rid = None
            try:
                req = json.loads(line.decode("utf-8"))
                if not isinstance(req, dict):
                    raise BadInput("a request must be a JSON object")
                rid = req.get("id")
                tool = req.get("tool") or req.get("name")
                if not isinstance(tool, str):
                    raise BadInput("request needs a 'tool' name")
                o = ops.find(tool)
                if brain is None and o.db != "none":
                    from .core.db import resolve_db_path

                    db_path = resolve_db_path(_STATE["db"])
                    existed = db_path.exists()
                    brain = Brain.open(_STATE["db"], create=(o.db == "create"))
                    if not existed and db_path.exists():
                        _err(f"note: created a new brain at {db_path}")
                res = ops.run(tool, req.get("params", req.get("arguments")), ops.Context(db=_STATE["db"]), brain=brain if o.db != "none" else None)
                resp = {"id": rid, "ok": True, "result": res}
            except (UnicodeDecodeError, json.JSONDecodeError) as e:
                resp = {"id": rid, "ok": False, "error": f"bad JSON line: {e}"}
            except GBrainError as e:
                resp = {"id": rid, "ok": False, "error": str(e)}
            except Exception as e:  # a bad request never ends the stream
                resp = {"id": rid, "ok": False, "error": f"{type(e).__name__}: {e}"}
            _out(ops.dumps(resp) + "\n")
    finally:
        if brain is not None:
            brain.close()


@app.command("serve")
def serve_cmd() -> None:
    """Start the MCP server on stdio (JSON-RPC on stdout; logs on stderr)."""
    try:
        from .mcp.server import serve
    except ImportError as e:
        _err(f"error: the MCP server is not available: {e}")
        raise typer.Exit(1)
    serve(_STATE["db"])


@app.callback(invoke_without_command=True)
def _root(
    ctx: typer.Context,
    db: Optional[str] = typer.Option(None, "--db", help="brain database (default: $GBRAIN_DB or ./brain.db); accepted before or after the command"),
    tools_json: bool = typer.Option(False, "--tools-json", help="print the tool list (name, description, input_schema) as JSON and exit"),
) -> None:
    if db:
        _STATE["db"] = db
    if tools_json:
        _out(json.dumps(ops.tools_json(), ensure_ascii=False, indent=2) + "\n")
        raise typer.Exit(0)
    if ctx.invoked_subcommand is None:
        _out(ctx.get_help() + "\n")


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
    if argv[i] in GROUPS and cmd_end < len(argv) and not argv[cmd_end].startswith("-"):  # a command group: `config get`
        cmd_end += 1
    tail = argv[cmd_end:]
    if "--" in tail:
        k = tail.index("--")
        tail = tail[:k] + ["--json"] + tail[k:]
    else:
        tail = tail + ["--json"]
    return rest + argv[i:cmd_end] + tail


def main(argv: list[str] | None = None) -> None:
    """Console entry point."""
    args, db = _pull_db(list(sys.argv[1:] if argv is None else argv))
    _STATE["db"] = db or None
    try:
        app(args=args, prog_name="gbrain", standalone_mode=True)
    except KeyboardInterrupt:
        _err("interrupted")
        sys.exit(130)


if __name__ == "__main__":
    main()
