"""Trial 70's leftovers (an agent-heavy MCP trial driving `gbrain serve` through the official
client): `brain_list` paged by offset lost pages another writer touched between two pages,
conflict copies doubled the brain-wide timeline, a link paragraph landed under Open Threads."""
from __future__ import annotations

import anyio

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


def test_a_list_walk_while_another_writer_works_repeats_and_skips_no_unchanged_page(db_path):
    """Trial 70: `brain_list {"sort": "updated", "limit": 100}` over 328 people, 5 pages of later
    pages touched between page 1 and 2: 328 rows listed, 323 distinct, the 5 touched never. The
    cursor was an offset: the touched pages moved to the front and pushed 5 already listed
    rows onto page 2. A keyset cursor (the last row's sort key and slug) starts after that row
    wherever the others went: every page unchanged during the walk is listed exactly once, for
    every sort (a new page sorts first by `created`, and `New` before `people/…` by title)."""
    slugs = _people(db_path, 24)

    async def walk(c, sort, new):
        got, cursor, pages, touched = [], None, 0, []
        while True:
            r = ok(await c.call_tool("brain_list", {"type": "person", "sort": sort, "limit": 8, **({"cursor": cursor} if cursor else {})}))
            got += [x["slug"] for x in r["items"]]
            pages += 1
            if pages == 1:  # another writer touches 3 pages a later page would list, and adds one
                touched = [got[-1], *[x for x in slugs if x not in got][:2]]
                for s in touched:
                    ok(await c.call_tool("brain_put", {"slug": s, "append": "touched."}))
                ok(await c.call_tool("brain_put", {"slug": new, "content": "---\ntype: person\n---\n# New\n"}))
            cursor = r["next_cursor"]
            if not cursor:
                return got, pages, touched

    async def main():
        async with connect(db_path) as c:
            return {sort: await walk(c, sort, f"people/new-{sort}") for sort in ["updated", "slug", "created", "title"]}

    for sort, (got, pages, touched) in anyio.run(main).items():
        assert len(got) == len(set(got)), (sort, [s for s in got if got.count(s) > 1])
        missing = set(slugs) - set(touched) - set(got)
        assert not missing, (sort, missing)
        assert pages >= 3


LENDING = ("---\ntype: company\n---\n# Lending Pay\n\nA company.\n\n## Open Threads\n\n- 2026-12-01 ask about the round\n\n---\n\n"
           "- **2026-12-05** | call — Talked to the CEO\n- **2026-12-04** | Seed closed\n")
COPY = "companies/lending-pay.conflict-20261206T150355"


def test_conflict_copies_are_left_out_of_the_brain_wide_timeline_and_threads_saying_so(db_path):
    """Trial 70: `brain_timeline {"since": "yesterday"}` (the briefing's "what happened") listed
    every entry of companies/lending-pay twice, once for its `.conflict-…` copy, and
    brain_threads each open thread twice. Every page's timeline and threads leave conflict copies
    out, saying how many entries were left out and how to see them; the copy's own timeline
    still shows them (search keeps a copy, ranked below its page: it is found by name)."""
    from gbrain.core.brain import Brain

    with Brain.open(db_path, create=True) as b:
        b.put("companies/lending-pay", LENDING)
        b.put(COPY, LENDING)
        b.put("people/ana", "# Ana\n\n---\n\n- **2026-12-03** | Met Ana\n")

    async def main():
        async with connect(db_path) as c:
            return [ok(await c.call_tool(t, a)) for t, a in [
                ("brain_timeline", {"since": "2026-12-01"}), ("brain_timeline", {"slug": COPY}), ("brain_threads", {}),
                ("brain_timeline", {"slug": "companies/lending-pay"})]]

    tl, own, threads, page = anyio.run(main)
    assert [(e["slug"], e["summary"]) for e in tl["items"]] == [
        ("companies/lending-pay", "Talked to the CEO"), ("companies/lending-pay", "Seed closed"), ("people/ana", "Met Ana")]
    assert any("2 entries of 1 conflict copy" in w and "brain_conflicts" in w and "slug" in w for w in tl["warnings"]), tl
    assert [e["summary"] for e in own["items"]] == ["Talked to the CEO", "Seed closed"] and "warnings" not in own
    assert [t["slug"] for t in threads["items"]] == ["companies/lending-pay"]
    assert any("1 item of 1 conflict copy" in w for w in threads["warnings"]), threads
    assert len(page["items"]) == 2 and "warnings" not in page


def test_a_link_onto_a_page_ending_with_open_threads_goes_above_them(db_path):
    """Trial 70: brain_link onto a page whose compiled truth ends with its `## Open Threads` list
    wrote the link paragraph under that heading (the ingest skill: never into Open Threads); it
    now goes above the section. (Its timeline entry keeps `"detail": ""` on MCP as on call, pipe
    and --json: one shape on every surface, test_call_shapes.)"""
    import json

    from gbrain.core.brain import Brain

    from conftest import gbrain

    page = "# Lending Pay\n\nA company.\n\n## Open Threads\n\n- 2026-12-01 ask about the round\n- 2026-12-02 intro to Bo\n\n---\n\n- **2026-12-05** | call — Talked\n"
    with Brain.open(db_path, create=True) as b:
        b.put("companies/lending-pay", page)
        b.put("people/ana", "# Ana\n\nA person.\n")

    async def main():
        async with connect(db_path) as c:
            ok(await c.call_tool("brain_link", {"from": "companies/lending-pay", "to": "people/ana", "context": "Ana advises them."}))
            return (ok(await c.call_tool("brain_get", {"slug": "companies/lending-pay"}))["content"],
                    ok(await c.call_tool("brain_timeline", {"slug": "companies/lending-pay"})),
                    ok(await c.call_tool("brain_threads", {})))

    text, tl, threads = anyio.run(main)
    above, threads_on = text.split("## Open Threads", 1)
    assert "people/ana" in above.split("\n\n")[-2] or "ana" in above.split("\n\n")[-2].lower(), text
    assert "ana" not in threads_on.split("---")[0].lower(), text
    assert above.startswith("# Lending Pay\n\nA company.\n\n") and above.endswith("\n\n") and "\n\n\n" not in text, text
    assert threads_on.startswith("\n\n- 2026-12-01 ask about the round\n- 2026-12-02 intro to Bo\n\n---\n"), text
    assert len(threads["items"]) == 2
    assert tl["items"] == [{"date": "2026-12-05", "source": "call", "summary": "Talked", "detail": ""}]
    r = gbrain("--db", str(db_path), "timeline", "companies/lending-pay", "--json")
    assert json.loads(r.stdout)[0]["detail"] == ""
