"""An agent's realistic mistakes over MCP (trial 26: a developer wiring gbrain into an agent,
driving `gbrain serve` with the official Python SDK client while following the skills): each
gets an answer that says the fix, and nothing the agent writes lands where it did not mean it."""
from __future__ import annotations

import json

import anyio

from test_mcp import connect, ok, text_of


def test_a_put_to_the_name_a_read_found_the_page_by_makes_no_second_page(fixture_db):
    """brain_get "Ana Lima" reads people/ana-lima (a name as [[Ana Lima]] resolves); the agent
    then put to the same name. A put names a new page as given, so the write made a new page
    `Ana Lima.md` at the root beside the person's (compiled_truth), or said "there is no such
    page" (with the if_hash of the page it read) and "no page 'Ana Lima'" with no suggestion
    (frontmatter alone) though the read had just found it. Each now names the page to write."""
    async def main():
        async with connect(fixture_db) as c:
            got = ok(await c.call_tool("brain_get", {"slug": "Ana Lima"}))
            new_ct = "# Ana Lima\n\n> Raising a Series A (2026-12).\n"
            with_hash = await c.call_tool("brain_put", {"slug": "Ana Lima", "if_hash": got["content_hash"], "compiled_truth": new_ct})
            no_hash = await c.call_tool("brain_put", {"slug": "Ana Lima", "compiled_truth": new_ct})
            whole = await c.call_tool("brain_put", {"slug": "Ana Lima", "content": "---\ntitle: Ana Lima\n---\n" + new_ct})
            fm = await c.call_tool("brain_put", {"slug": "Ana Lima", "frontmatter": {"updated": "2026-12-04"}})
            listed = [i["slug"] for i in ok(await c.call_tool("brain_list", {"limit": 500}))["items"]]
            # the fix each error says: write the page by its slug, with the hash read
            done = ok(await c.call_tool("brain_put", {"slug": "people/ana-lima", "if_hash": got["content_hash"], "compiled_truth": new_ct}))
            # a new page of that name on purpose: if_hash '' (only a new page), as for a spelling twin
            forced = ok(await c.call_tool("brain_put", {"slug": "Ana Lima", "if_hash": "", "compiled_truth": new_ct}))
            return got, [with_hash, no_hash, whole, fm], listed, done, forced

    got, refused, listed, done, forced = anyio.run(main)
    assert got["slug"] == "people/ana-lima"
    for r in refused:
        assert r.is_error, text_of(r)
        err = r.structured_content
        assert "people/ana-lima" in err["error"] and "nothing was written" in err["error"], err
        assert err["suggestions"][0] == "people/ana-lima", err
        assert err["kind"] == "bad_input", err
    assert "if_hash ''" in refused[1].structured_content["error"]
    assert "Ana Lima" not in listed and "people/ana-lima" in listed
    assert done["slug"] == "people/ana-lima" and done["changed"]
    assert forced["slug"] == "Ana Lima" and forced["created"]
