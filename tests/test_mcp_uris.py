"""brain://index gives each page's ready-to-read URI, percent-encoded where a slug holds what a URI
reads otherwise (`#` a fragment, `?` a query, `%` an escape), and such an address reads the page
(trial 32: `brain://pages/notes/C# notes` was not found, and the index gave bare slugs), through the
official Python MCP client."""
from __future__ import annotations

import json

import anyio

from conftest import gbrain_in_process
from test_mcp import connect

NAMES = ["notes/C# notes", "notes/What?", "notes/100% sure", "notes/Café résumé", "notes/plain", "notes/a&b=c+d", "notes/x^y"]


def test_index_gives_each_page_a_uri_that_reads_it(db_path):
    for n, name in enumerate(NAMES):
        r = gbrain_in_process("--db", str(db_path), "put", name, input=f"# Page {n}\n\nText of {name}.\n")
        assert r.returncode == 0, r

    async def main():
        async with connect(db_path) as c:
            index = json.loads((await c.read_resource("brain://index")).contents[0].text)
            uris = [u for us in index["by_type"].values() for u in us]
            return index, {u: (await c.read_resource(u)).contents[0].text for u in uris}

    index, read = anyio.run(main)
    assert len(read) == len(NAMES), index
    assert sorted(read.values()) == sorted(f"# Page {n}\n\nText of {name}.\n" for n, name in enumerate(NAMES))
    assert "brain://pages/notes/C%23%20notes" in read or "brain://pages/notes/C%23 notes" in read, sorted(read)
    assert "brain://pages/notes/plain" in read  # a plain slug is its own address
