"""Trial 70's leftovers (an agent-heavy MCP trial driving `gbrain serve` through the official
client): `brain_list` paged by offset lost pages another writer touched between two pages,
conflict copies doubled the brain-wide timeline, a link paragraph landed under Open Threads."""
from __future__ import annotations

import anyio
import pytest

from test_mcp import connect, ok


def _people(db, n: int) -> list[str]:
    """``n`` person pages whose updated_at / created_at are one second apart, oldest first
    (the walk's order is well defined, whatever the clock did during the import)."""
    from gbrain.core.brain import Brain

    slugs = [f"people/p{i:02d}" for i in range(n)]
    with Brain.open(db, create=True) as b:
        for s in slugs:
            b.put(s, f"---\ntype: person\n---\n# {s}\n\nA person.\n")
        for i, s in enumerate(slugs):
            t = f"2026-01-01T00:{i // 60:02d}:{i % 60:02d}Z"
            b.conn.execute("UPDATE pages SET updated_at = ?, created_at = ? WHERE slug = ?", (t, t, s))
        b.conn.commit()
    return slugs


@pytest.mark.parametrize("sort", ["updated", "slug", "created", "title"])
def test_a_list_walk_while_another_writer_works_repeats_and_skips_no_unchanged_page(db_path, sort):
    """Trial 70: `brain_list {"sort": "updated", "limit": 100}` over 328 people, 5 pages of later
    pages touched between page 1 and 2: 328 rows listed, 323 distinct, the 5 touched never. The
    cursor was an offset: the touched pages moved to the front and pushed 5 already listed
    rows onto page 2. A keyset cursor (the last row's sort key and slug) starts after that row
    wherever the others went: every page unchanged during the walk is listed exactly once."""
    slugs = _people(db_path, 24)

    async def main():
        async with connect(db_path) as c:
            got, cursor, pages, touched = [], None, 0, []
            while True:
                r = ok(await c.call_tool("brain_list", {"type": "person", "sort": sort, "limit": 8, **({"cursor": cursor} if cursor else {})}))
                got += [x["slug"] for x in r["items"]]
                pages += 1
                if pages == 1:  # another writer touches 3 pages a later page would list, and adds one
                    touched = [got[-1], *[x for x in slugs if x not in got][:2]]
                    for s in touched:
                        ok(await c.call_tool("brain_put", {"slug": s, "append": "touched."}))
                    ok(await c.call_tool("brain_put", {"slug": "people/p99", "content": "---\ntype: person\n---\n# New\n"}))
                cursor = r["next_cursor"]
                if not cursor:
                    return got, pages, touched

    got, pages, touched = anyio.run(main)
    assert len(got) == len(set(got)), [s for s in got if got.count(s) > 1]
    unchanged = set(slugs) - set(touched)
    missing = unchanged - set(got)
    assert not missing, missing
    assert pages >= 3
