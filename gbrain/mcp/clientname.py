"""The MCP client's name recorded with each write (``history.client``: ``mcp(NAME) put``).

A host names itself in the ``initialize`` handshake (``clientInfo.name``: Claude Code, Cursor,
…). A script on the Python SDK that does not pass ``client_info`` sends the SDK's default,
``mcp``, which tells nothing (``mcp(mcp) put``); an empty name tells less. For those the label
adds the program that started ``gbrain serve`` over stdio: the host's own program, or the
script an interpreter runs (``python agent.py`` → ``agent.py``), found from the parent process
through shell and launcher wrappers (``sh -c``, ``uv run``, ``npx``): ``mcp:agent.py``, or
``agent.py`` for an empty name. When no program can be found the SDK's name is kept as it is.
"""
from __future__ import annotations

import functools
import os
import re
import subprocess
import sys

#: ``clientInfo.name`` values that name an SDK's default, not a host: the Python SDK's
#: ``ClientSession`` sends ``Implementation(name="mcp", version="0.1.0")`` when given none
SDK_DEFAULT_NAMES = frozenset({"mcp"})

#: the longest label recorded
MAX_LABEL = 100

_INTERPRETER = re.compile(r"^(python|pypy|node|nodejs|deno|bun|ruby|perl|php)[0-9.]*(\.exe)?$", re.I)
_SHELL = re.compile(r"^-?(sh|bash|zsh|dash|ksh|fish|cmd|powershell|pwsh)(\.exe)?$", re.I)
_LAUNCHER = re.compile(r"^(env|uv|uvx|npx|npm|pnpm|yarn|pipx|poetry|hatch|nohup|timeout|nice|sudo|doas|script)(\.exe)?$", re.I)


def _one_line(s: str) -> str:
    return " ".join("".join(ch if ch.isprintable() else " " for ch in s).split())


def label(name: str, starter: str) -> str:
    """The client name to record: ``name`` (``clientInfo.name``, cleaned to one line) unless it is
    empty or an SDK's default (:data:`SDK_DEFAULT_NAMES`); then ``NAME:STARTER`` (``mcp:agent.py``),
    or ``STARTER`` alone for an empty name, where ``starter`` is the program that started the
    server (:func:`starter_program`; '' when unknown: ``name`` as it is). At most
    :data:`MAX_LABEL` characters. Pure."""
    name = _one_line(name or "")
    starter = _one_line(starter or "")
    if name and name.lower() not in SDK_DEFAULT_NAMES or not starter:
        return name[:MAX_LABEL]
    return (f"{name}:{starter}" if name else starter)[:MAX_LABEL]


def program_of(argv: list[str]) -> str | None:
    """What the command line ``argv`` of a process runs, for a label: a script's file name
    (``python3 /x/agent.py`` → ``agent.py``), a module (``python -m pkg.tool`` → ``pkg.tool``),
    else the program's file name (``/usr/bin/claude`` → ``claude``); None for a wrapper to look
    through (a shell running ``-c``, a launcher: ``uv run``, ``npx``, ``env``) and '' for an
    interactive shell (a person at a terminal: no program to name). Pure."""
    if not argv or not argv[0]:
        return None
    base = re.split(r"[\\/]", argv[0])[-1]
    if _SHELL.match(base):
        return None if "-c" in argv[1:] or len(argv) > 1 and not argv[1].startswith("-") else ""
    if _LAUNCHER.match(base):
        return None
    if _INTERPRETER.match(base):
        args = iter(argv[1:])
        for a in args:
            if a == "-m":
                return next(args, "") or base
            if a in ("-c", "-e", "--eval", "-"):
                return base
            if a.startswith("-"):
                continue
            return re.split(r"[\\/]", a)[-1] or base
        return base
    return base


def _proc(pid: int) -> tuple[list[str], int] | None:
    """``(argv, parent pid)`` of process ``pid``: from ``/proc`` on Linux, else from ``ps``
    (macOS, the BSDs; its command is split at white space); None when neither tells."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            argv = [a.decode("utf-8", "replace") for a in f.read().split(b"\0") if a]
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read().decode("utf-8", "replace")
        return argv, int(stat[stat.rindex(")") + 2:].split()[1])
    except (OSError, ValueError, IndexError):
        pass
    if sys.platform.startswith("win"):
        return None
    try:
        out = subprocess.run(["ps", "-o", "ppid=", "-o", "command=", "-p", str(pid)], capture_output=True, text=True, timeout=2).stdout.strip()
        ppid, _, cmd = out.partition(" ")
        return cmd.split(), int(ppid)
    except (OSError, ValueError, subprocess.SubprocessError):
        return None


@functools.lru_cache(maxsize=1)
def starter_program() -> str:
    """The program that started this process (:func:`program_of` of the parent, looked through
    up to 4 wrappers); '' when it cannot be told. Once per process; never raises."""
    try:
        pid = os.getppid()
        for _ in range(5):
            if pid <= 1:
                return ""
            got = _proc(pid)
            if got is None:
                return ""
            prog = program_of(got[0])
            if prog is not None:
                return prog
            pid = got[1]
    except Exception:  # a label is never worth a failed write
        pass
    return ""
