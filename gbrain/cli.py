"""The ``gbrain`` command line: generated from the operations registry, plus call/pipe/serve.

Thin by design: parse arguments, call :func:`gbrain.operations.run`, format the result.
Text by default, ``--json`` on every command. Errors go to stderr; exit codes are
0 ok, 1 failure, 2 usage or bad input. ``--db PATH`` is accepted before or after the command.
"""
from __future__ import annotations

import inspect
import json
from typing import Any, Optional

import typer

from . import operations as ops
from .entry import CURSOR_HELP, GROUP_NAMES, _STATE, _err, _move_leading_json, _out, _pull_db, _read_stdin_or_file, fail, fail_error, invoke, main, pipe_status, run_and_print, run_call, run_pipe  # noqa: F401
from .errors import GBrainError

app = typer.Typer(
    name="gbrain",
    help="A personal knowledge brain in one SQLite file, with a byte-exact markdown twin.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)
config_app = typer.Typer(help="Read or set brain config values. " + ops.core.config_keys_said(), no_args_is_help=True)
app.add_typer(config_app, name="config", short_help="Read or set brain config values")
skills_app = typer.Typer(help="The agent skills shipped with gbrain: list (the default), show NAME, install.")
app.add_typer(skills_app, name="skills", short_help="List, show or install the agent skills")
#: operations named ``<group>-<sub>`` become ``gbrain <group> <sub>``
GROUPS = {"config": config_app, "skills": skills_app}

def _flag_type(self, ctx):
    """No ``<bool>`` beside a flag in help (``--json``, ``--help``): a flag takes no value."""
    return None if self.is_flag else _typer_display_type(self, ctx)


# typer 0.29 shows every option's type, flags too; one override for every command's help
_typer_display_type = typer.core.TyperOption.display_type_rich
typer.core.TyperOption.display_type_rich = _flag_type  # type: ignore[method-assign]

PY_TYPES = {"string": str, "integer": int, "number": float, "boolean": bool, "object": str, "array": str}


def _make_command(o: ops.Operation):
    params = []
    annotations: dict[str, Any] = {}
    pymap: dict[str, str] = {}
    argmap: dict[str, str] = {}  # an option's argument spelling (Param.argument_too): export's DIR beside --dir
    for p in o.params:
        if not p.cli:
            continue
        py = p.name if p.name not in ("from", "type", "import") else p.name + "_"
        pymap[py] = p.name
        t = PY_TYPES[p.type]
        if p.positional:
            default = typer.Argument(... if p.required else None, help=o.cli_text(p.help), show_default=False, metavar=p.name.upper())
            ann = t if p.required else Optional[t]
        elif p.type == "boolean":
            default = typer.Option(bool(p.default), f"--{(p.flag or p.name).replace('_', '-')}", help=o.cli_text(p.help))
            ann = bool
        else:
            required = p.required and not p.argument_too  # (either spelling: ops.join_arguments says when neither came)
            default = typer.Option(... if required else p.default, f"--{(p.flag or p.name).replace('_', '-')}", help=o.cli_text(p.help) + (" (JSON)" if p.type == "object" else ""), show_default=p.default not in (None, ""))
            ann = t if (required or p.default is not None) else Optional[t]
        params.append(inspect.Parameter(py, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=ann))
        annotations[py] = ann
        if p.argument_too:
            argmap[py + "_arg"] = p.name
            helptext = o.cli_text(p.help) + f" (or {ops.cli_name(p)} {p.name.upper()})"
            params.append(inspect.Parameter(py + "_arg", inspect.Parameter.KEYWORD_ONLY, annotation=Optional[t],
                                            default=typer.Argument(None, help=helptext, show_default=False, metavar=p.name.upper())))
            annotations[py + "_arg"] = Optional[t]
    stdin_param = next((p for p in o.params if p.stdin), None)
    if stdin_param:
        params.append(inspect.Parameter("file_", inspect.Parameter.KEYWORD_ONLY, default=typer.Option(None, "--file", "-f", help="read the content from this file instead of standard input (- is standard input)"), annotation=Optional[str]))
        annotations["file_"] = Optional[str]
    if o.page:  # one page and next_cursor, as `call` with `cursor` answers (entry.run_and_print)
        params.append(inspect.Parameter("cursor_", inspect.Parameter.KEYWORD_ONLY, default=typer.Option(None, "--cursor", help=CURSOR_HELP, show_default=False), annotation=Optional[str]))
        annotations["cursor_"] = Optional[str]
        pymap["cursor_"] = "cursor"  # (invoke drops it when not given)
    params.append(inspect.Parameter("json_", inspect.Parameter.KEYWORD_ONLY, default=typer.Option(False, "--json", help="print JSON"), annotation=bool))
    annotations["json_"] = bool

    def command(**kw):
        as_json = kw.pop("json_", False)
        file_ = kw.pop("file_", None)
        arguments = {argmap[k]: kw.pop(k) for k in list(kw) if k in argmap}
        invoke(o, {pymap[k]: v for k, v in kw.items()}, as_json, file_, arguments)

    command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    command.__annotations__ = annotations
    command.__name__ = o.name.replace("-", "_")
    command.__doc__ = o.cli_text(o.help)
    return command


for _o in ops.REGISTRY.values():
    _group = GROUPS.get(_o.name.split("-", 1)[0]) if "-" in _o.name else None
    if _group is not None:
        _group.command(_o.name.split("-", 1)[1], help=_o.cli_text(_o.help), short_help=_o.title or None)(_make_command(_o))
    else:  # the list of commands shows each one's title (one line); `gbrain CMD --help` the whole text
        app.command(_o.name, help=_o.cli_text(_o.help), short_help=_o.title or None)(_make_command(_o))


@skills_app.callback(invoke_without_command=True)
def _skills_root(ctx: typer.Context, json_: bool = typer.Option(False, "--json", help="print JSON")) -> None:
    """`gbrain skills` alone lists the skills (as `gbrain skills list`)."""
    if ctx.invoked_subcommand is None:
        run_and_print(ops.REGISTRY["skills-list"], {}, json_)


@app.command("call", short_help="Call one operation with JSON parameters")
def call_cmd(
    tool: str = typer.Argument(..., help="tool name, e.g. brain_search or search"),
    params: str | None = typer.Argument(None, help="JSON object of parameters (default {}); - reads it from standard input (no argument-length limit)"),
    json_: bool = typer.Option(False, "--json", help="accepted as on every command (call prints JSON anyway)"),
) -> None:
    """Call one operation with JSON parameters (`-`: read them from standard input); prints the JSON result."""
    run_call(tool, params)


@app.command("pipe", short_help="Run JSON requests, one per line")
def pipe_cmd(json_: bool = typer.Option(False, "--json", help="accepted as on every command (pipe answers in JSON anyway)")) -> None:
    """JSONL mode: one request per line on stdin ({"id", "tool", "params"}), one response per line on stdout
    ({"id", "ok", "result" | "error", "exit_code"}: the code `call` would exit with, 1 failure, 2 bad
    input; "warnings": what the operation warned of, when it did). A bad line (not JSON, no object, a key other than
    id/tool/params) gets an error object naming its line and the stream goes on.
    Exit status: 0 when every answer was ok, else 2 when a line was bad input, 1 when one failed, 3 when a sync found conflicts."""
    run_pipe()


@app.command("serve", short_help="Start the MCP server on stdio")
def serve_cmd(
    create: bool = typer.Option(False, "--create", help="create the brain when --db names one that does not exist"),
    read_only: bool = typer.Option(False, "--read-only", help="offer only the tools that change nothing; the database refuses writes"),
    json_: bool = typer.Option(False, "--json", help="accepted as on every command (stdout is JSON-RPC anyway)"),
) -> None:
    """Start the MCP server on stdio (JSON-RPC on stdout; logs on stderr). Ctrl-C stops it."""
    try:
        from .mcp.server import serve
    except ImportError as e:
        _err(f"error: the MCP server is not available: {e}")
        raise typer.Exit(1)
    try:
        serve(_STATE["db"], create=create, read_only=read_only)
    except GBrainError as e:
        _err(f"error: {e}")
        raise typer.Exit(e.exit_code)


@app.callback(invoke_without_command=True)
def _root(
    ctx: typer.Context,
    db: Optional[str] = typer.Option(None, "--db", help="brain database (default: $GBRAIN_DB or ./brain.db); accepted before or after the command"),
    tools_json: bool = typer.Option(False, "--tools-json", help="print the tool list (name, description, input_schema) as JSON and exit"),
    json_: bool = typer.Option(False, "--json", help="JSON output: before a command, the same as its own --json (--tools-json is JSON anyway)"),
    version: bool = typer.Option(False, "--version", "-V", help="print gbrain's version and exit (`gbrain version` adds the brain's schema)"),
) -> None:
    if db:
        _STATE["db"] = db
    if version and ctx.invoked_subcommand is None:
        from . import __version__

        _out(json.dumps({"version": __version__}) + "\n" if json_ else f"gbrain {__version__}\n")
        raise typer.Exit(0)
    if tools_json:
        _out(json.dumps(ops.tools_json(), ensure_ascii=False, indent=2) + "\n")
        raise typer.Exit(0)
    if ctx.invoked_subcommand is None:
        _out(ctx.get_help() + "\n")


assert set(GROUPS) == set(GROUP_NAMES), "keep gbrain.entry.GROUP_NAMES in step with GROUPS"


if __name__ == "__main__":
    main()
