"""The MCP client name recorded with a write (``gbrain/mcp/clientname.py``): a host's own
``clientInfo.name`` as it is; an SDK's default (``mcp``) or no name with the program that
started the server. Pure functions; the real SDK client is in tests/test_history.py."""
from __future__ import annotations

import pytest

from gbrain.mcp.clientname import MAX_LABEL, label, program_of

pytestmark = pytest.mark.engine_free


@pytest.mark.parametrize("name, starter, want", [
    ("claude-code", "agent.py", "claude-code"),  # a host's name is kept, whatever started it
    ("cursor-vscode", "", "cursor-vscode"),
    ("mcp", "agent.py", "mcp:agent.py"),  # the Python SDK's default: the program beside it
    ("MCP", "agent.py", "MCP:agent.py"),
    ("", "agent.py", "agent.py"),
    ("mcp", "", "mcp"),  # nothing more telling: the SDK's name is all there is
    ("", "", ""),
    ("a\tb\nc", "", "a b c"),  # one line
    ("mcp", "x" * 300, ("mcp:" + "x" * 300)[:MAX_LABEL]),
])
def test_label(name, starter, want):
    assert label(name, starter) == want


@pytest.mark.parametrize("argv, want", [
    (["/usr/bin/python3.12", "/home/ana/agents/agent.py", "--fast"], "agent.py"),
    (["python", "-u", "agent.py"], "agent.py"),
    (["python3", "-m", "my_agent.run"], "my_agent.run"),
    (["python3", "-c", "import x"], "python3"),
    (["node", "/opt/host/dist/index.js"], "index.js"),
    (["/Applications/Cursor.app/Contents/MacOS/Cursor"], "Cursor"),
    (["claude"], "claude"),
    (["C:\\Program Files\\Host\\host.exe"], "host.exe"),
    (["/bin/sh", "-c", "gbrain serve --db x"], None),  # a wrapper: look at its parent
    (["uv", "run", "gbrain", "serve"], None),
    (["npx", "-y", "some-launcher"], None),
    (["-bash"], ""),  # an interactive shell: a person, no program to name
    (["zsh"], ""),
    ([], None),
])
def test_program_of(argv, want):
    assert program_of(argv) == want
