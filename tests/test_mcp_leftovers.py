"""Trial 26's leftovers (an agent driving `gbrain serve` through the official MCP client): a page
resource read in parts, a graph answer whose links count against the page size, a timeline
entry's summary of several lines and source of several words, embed progress said once."""
from __future__ import annotations

import json
from urllib.parse import quote

import anyio
import pytest

from gbrain import operations as ops

from test_mcp import connect, ok, text_of


def test_a_page_resource_of_a_long_page_comes_in_parts_saying_how_to_read_on(db_path):
    """brain://pages/{slug} gave a 3 MB page in one read: a host that attaches the resource
    pasted it whole into the model's context. It now gives brain_get's part (60,000 characters,
    cut at a line end) byte for byte, and a second text saying where the rest starts, with the
    URI that reads it (`?offset=`, and the page's `?hash=`); `?max_chars=0` reads the page whole.
    A short page is one text, as before."""
    import hashlib

    from gbrain.core.brain import Brain

    long_text = "---\ntitle: Long notes\n---\n\n# Long notes\n\n" + "".join(f"Line {i}: some words about the topic at hand.\n" for i in range(5000))
    with Brain.open(db_path, create=True) as b:
        b.put("notes/Long notes", long_text)
        b.put("notes/short", "# Short\n\nOne line.\n")

    async def main():
        from mcp.shared.exceptions import MCPError  # here, not at module level: collection skips the SDK (~2 CPU-s)
        async with connect(db_path) as c:
            uri = "brain://pages/" + quote("notes/Long notes")
            reads = []
            while uri and len(reads) < 10:
                r = await c.read_resource(uri)
                reads.append(r)
                uri = r.contents[1].meta["next"] if len(r.contents) > 1 else None
            whole = await c.read_resource("brain://pages/" + quote("notes/Long notes") + "?max_chars=0")
            short = await c.read_resource("brain://pages/notes/short")
            small = await c.read_resource("brain://pages/notes/short?offset=2&max_chars=5")
            try:
                await c.read_resource("brain://pages/notes/short?offset=999")
                past = None
            except MCPError as e:
                past = e
            return reads, whole, short, small, past

    reads, whole, short, small, past = anyio.run(main)
    first = reads[0]
    assert len(first.contents) == 2, [x.text[:80] for x in first.contents]
    part, note = first.contents
    assert part.mime_type == "text/markdown" and len(part.text) <= 60_000 and long_text.startswith(part.text) and part.text.endswith("\n")
    nxt = "brain://pages/" + quote("notes/Long notes") + f"?offset={len(part.text)}&hash={hashlib.sha256(long_text.encode()).hexdigest()}"
    assert note.meta["next"] == nxt and note.meta["next_offset"] == len(part.text) and note.meta["total_chars"] == len(long_text)
    assert nxt in note.text and f"{len(long_text):,}" in note.text and '"offset": ' in note.text  # the brain_get call too
    assert "".join(r.contents[0].text for r in reads) == long_text  # the parts join into the page, byte for byte
    assert 2 < len(reads) < 10
    assert len(reads[-1].contents) == 1  # the last part: nothing more to read
    assert [x.text for x in whole.contents] == [long_text]
    assert [x.text for x in short.contents] == ["# Short\n\nOne line.\n"]
    assert small.contents[0].text == "Short" and "offset=7" in small.contents[1].text
    assert past is not None and past.error.code == -32602 and "past the end" in past.error.message


def test_a_later_part_of_the_page_resource_says_the_page_changed_since_the_first(db_path):
    """brain://pages/… in parts: a page changed between two reads gave part 2 of the new version
    after part 1 of the old, joined silently into a text no version had. Each part carries the
    page's content hash (`content_hash`: brain_get's part token; the `next` URI's `?hash=`), and
    a read given it refuses when the page changed since, naming the two hashes and where to read
    again; unchanged, the parts join as before. A brain_get part token is taken as `hash` too."""
    import hashlib

    from gbrain.core.brain import Brain

    v1 = "# Long\n\n" + "".join(f"Line {i}: first version of the words.\n" for i in range(3000))
    v2 = v1.replace("Line 7:", "Line seven:")
    h1, h2 = (hashlib.sha256(t.encode()).hexdigest() for t in (v1, v2))
    with Brain.open(db_path, create=True) as b:
        b.put("notes/long", v1)

    async def main():
        from mcp.shared.exceptions import MCPError  # here, not at module level: collection skips the SDK (~2 CPU-s)
        async with connect(db_path) as c:
            first = await c.read_resource("brain://pages/notes/long")
            same = await c.read_resource(first.contents[1].meta["next"])
            token = ok(await c.call_tool("brain_get", {"slug": "notes/long"}))["content_hash"]
            by_token = await c.read_resource(f"brain://pages/notes/long?offset={len(first.contents[0].text)}&hash={token}")
            with Brain.open(db_path) as b:
                b.put("notes/long", v2)
            errs = []
            for uri in (first.contents[1].meta["next"], same.contents[1].meta["next"] if len(same.contents) > 1 else None):
                if uri is None:
                    continue
                try:
                    await c.read_resource(uri)
                    errs.append(None)
                except MCPError as e:
                    errs.append(e)
            fresh = await c.read_resource("brain://pages/notes/long")
            return first, same, by_token, errs, fresh

    first, same, by_token, errs, fresh = anyio.run(main)
    part, note = first.contents
    assert note.meta["content_hash"] == f"part:0-{len(part.text)}:{h1}"
    assert note.meta["next"].endswith(f"&hash={h1}")
    assert v1.startswith(part.text + same.contents[0].text)  # unchanged: the parts join
    assert by_token.contents[0].text == same.contents[0].text
    assert errs and all(e is not None for e in errs), errs
    for e in errs:
        assert "changed since" in e.error.message and h1[:16] in e.error.message and h2[:16] in e.error.message
        assert "brain://pages/notes/long" in e.error.message
    assert fresh.contents[1].meta["content_hash"].endswith(h2)


def _graph_brain(db_path) -> None:
    """A hub and 60 pages that each link to it and to 12 of the others, every link in a long
    sentence: brain_graph depth 2 reaches 60 pages and ~800 links (~250 KB of them)."""
    from gbrain.core.brain import Brain

    words = "met at the offsite to talk about the plan for next year and the budget that goes with it " * 2
    with Brain.open(db_path, create=True) as b:
        b.put("hub", "# Hub\n\nThe hub.\n")
        for i in range(60):
            links = " ".join(f"With [P{j}](p{j}.md) {words}." for j in range(i + 1, i + 13) if j < 60)
            b.put(f"p{i}", f"# P{i}\n\nPart of [Hub](hub.md) {words}. {links}\n")


def test_a_graph_answer_counts_its_links_against_the_page_size_and_pages_on(db_path):
    """brain_graph's links (`edges`) did not count against the ~40,000 characters an agent's page
    of results keeps (trial 26: 42.6 KB at depth 3; here 250 KB). They count now: the answer is
    cut, says so in `note`, and `next_cursor` reads on; the pages together hold every page and
    link of the whole answer (`gbrain call`), each once."""
    from gbrain.core.brain import Brain

    _graph_brain(db_path)
    args = {"slug": "hub", "depth": 2}
    with Brain.open(db_path) as b:
        whole = ops.run("graph", args, ops.Context(surface="call"), brain=b)
    assert len(json.dumps(whole)) > 100_000, len(json.dumps(whole))

    async def main():
        async with connect(db_path) as c:
            pages = [await c.call_tool("brain_graph", args)]
            while ok(pages[-1]).get("next_cursor") and len(pages) < 30:
                pages.append(await c.call_tool("brain_graph", {**args, "cursor": ok(pages[-1])["next_cursor"]}))
            return pages

    pages = anyio.run(main)
    first = ok(pages[0])
    assert len(text_of(pages[0])) <= ops.PAGE_CHARS + 2_000, len(text_of(pages[0]))
    assert first["next_cursor"] and "next_cursor" in first["note"] and "links" in first["note"], first.get("note")
    assert first["nodes"][0]["slug"] == "hub" and first["root"] == "hub"
    got_nodes = [n for p in pages for n in ok(p)["nodes"]]
    got_edges = [e for p in pages for e in ok(p)["edges"]]
    assert got_nodes == whole["nodes"]
    assert sorted(map(json.dumps, got_edges)) == sorted(map(json.dumps, whole["edges"]))  # each link once
    assert ok(pages[-1])["next_cursor"] is None
    for p in pages:
        assert len(text_of(p)) <= ops.PAGE_CHARS + 2_000
        # a page's links join pages listed on it or before it
        seen = {n["slug"] for q in pages[: pages.index(p) + 1] for n in ok(q)["nodes"]}
        assert all(e["from"] in seen and e["to"] in seen for e in ok(p)["edges"])


def test_following_every_graph_cursor_gives_each_page_and_link_exactly_once(tmp_path, db_path):
    """brain_graph's pages (`next_cursor`) are cut from the whole answer computed again for each
    page: a page or link written between two pages moved the cut, and the next page repeated
    links the last had given (make_brain, 300 pages: 2 links given twice after one new page
    linking the start). On a brain 300 pages big, following every cursor gives each page and
    link of the whole answer exactly once; after a write that changes the answer, the cursor is
    refused (saying so, start again) instead of giving items again or skipping them."""
    from conftest import gbrain, make_brain

    from gbrain.core.brain import Brain

    tree = make_brain(tmp_path / "tree", 300)
    assert gbrain("import", str(tree)).returncode == 0
    with Brain.open(db_path) as b:
        hubs = [r[0] for r in b.conn.execute(
            "SELECT p.slug FROM pages p JOIN links l ON l.to_page_id = p.id GROUP BY p.id, p.slug ORDER BY count(*) DESC, p.slug LIMIT 3")]
        calls = [{"slug": s, "depth": d} for s in hubs for d in (2, 3)] + [{"slug": hubs[0], "depth": 3, "type": "person", "limit": 300}]
        wholes = [ops.run("graph", dict(a), ops.Context(surface="call"), brain=b) for a in calls]

    async def follow(c, args):
        pages = [await c.call_tool("brain_graph", args)]
        while ok(pages[-1]).get("next_cursor") and len(pages) < 100:
            pages.append(await c.call_tool("brain_graph", {**args, "cursor": ok(pages[-1])["next_cursor"]}))
        return [ok(p) for p in pages]

    async def main():
        async with connect(db_path) as c:
            got = [await follow(c, a) for a in calls]
            first = ok(await c.call_tool("brain_graph", calls[0]))
            put = await c.call_tool("brain_put", {"slug": "aaa/new-note", "content": f"# New note\n\nSee [[{hubs[0]}]].\n"})
            after = await c.call_tool("brain_graph", {**calls[0], "cursor": first["next_cursor"]})
            again = await follow(c, calls[0])
            return got, first, put, after, again

    got, first, put, after, again = anyio.run(main)
    cut = 0
    for args, whole, pages in zip(calls, wholes, got):
        cut += len(pages) > 1
        nodes = [n for p in pages for n in p["nodes"]]
        edges = [json.dumps(e, sort_keys=True) for p in pages for e in p["edges"]]
        assert nodes == whole["nodes"], args
        assert len(edges) == len(set(edges)) and sorted(edges) == sorted(json.dumps(e, sort_keys=True) for e in whole["edges"]), args
    assert cut >= 3, "the graphs must be big enough to be cut"
    assert first["next_cursor"] and not put.is_error
    assert after.is_error and "changed since" in text_of(after) and "without cursor" in text_of(after)
    nodes = [n["slug"] for p in again for n in p["nodes"]]
    edges = [json.dumps(e, sort_keys=True) for p in again for e in p["edges"]]
    assert "aaa/new-note" in nodes and len(nodes) == len(set(nodes)) and len(edges) == len(set(edges))


def test_a_timeline_summary_of_several_lines_or_a_source_of_several_words_is_said(fixture_db):
    """brain_timeline_add folded a summary of several lines into one line and took a `source` of
    two words (the ingest skill asks for one short word), both silently. A folded summary is
    written with a warning (no word is lost; longer text goes in `detail`); one whose next line
    is another entry (two events in one call) is refused, as folding would make them one. A
    source of several words is written as given with a warning (hand-written brains hold
    `office hours`); one the timeline line cannot hold as its source (over 60 characters, or a
    `[`: read back as part of the summary, so a retry added the entry again) is refused."""
    async def main():
        async with connect(fixture_db) as c:
            base = {"slug": "people/ana-lima", "date": "2026-12-04"}
            folded = await c.call_tool("brain_timeline_add", {**base, "source": "meeting", "summary": "Met Ana.\nShe agreed on the terms."})
            again = await c.call_tool("brain_timeline_add", {**base, "source": "meeting", "summary": "Met Ana.\nShe agreed on the terms."})
            two = await c.call_tool("brain_timeline_add", {**base, "source": "meeting", "summary": "Met Ana\n- **2026-12-05** | call — Called Bruno"})
            words = await c.call_tool("brain_timeline_add", {**base, "source": "Zoom meeting", "summary": "Talked pricing"})
            long_src = await c.call_tool("brain_timeline_add", {**base, "source": "x" * 61, "summary": "Talked terms"})
            bracket = await c.call_tool("brain_timeline_add", {**base, "source": "[notes](x.md)", "summary": "Talked terms"})
            entries = ok(await c.call_tool("brain_timeline", {"slug": "people/ana-lima", "limit": 20}))
            return folded, again, two, words, long_src, bracket, entries

    folded, again, two, words, long_src, bracket, entries = anyio.run(main)
    f = ok(folded)
    assert f["changed"] and any("one line" in w and "detail" in w for w in f.get("warnings", [])), f
    assert not ok(again)["changed"]  # a retry of the same call adds nothing
    assert two.is_error and two.structured_content["kind"] == "bad_input", text_of(two)
    assert "2026-12-05" in two.structured_content["error"] and "nothing was written" in two.structured_content["error"]
    w = ok(words)
    assert w["changed"] and any("Zoom meeting" in x and "one short word" in x for x in w.get("warnings", [])), w
    for r in (long_src, bracket):
        assert r.is_error and r.structured_content["kind"] == "bad_input" and "source" in r.structured_content["error"], text_of(r)
    rows = entries["items"] if "items" in entries else entries
    summaries = [(e["source"], e["summary"]) for e in rows if e["date"] == "2026-12-04"]
    assert sorted(summaries) == sorted([("meeting", "Met Ana. She agreed on the terms."), ("Zoom meeting", "Talked pricing")]), summaries


def test_embed_progress_says_each_count_once(db_path):
    """brain_embed's progress sent "130 of 130" twice: the last provider batch reported the
    group's end, and the group's commit reported it again (MCP wants each notification's
    progress to grow). Each count comes once, rising, ending at the total."""
    from gbrain.core.brain import Brain

    with Brain.open(db_path, create=True) as b:
        for i in range(30):
            b.put(f"notes/n{i}", f"# Note {i}\n\n" + "".join(f"## Part {j}\n\nText about topic {i} and part {j}.\n\n" for j in range(4)))
        b.set_config("embedding_model", "fake-16")

    async def main():
        seen: list[tuple[float, float | None, str | None]] = []

        async def progress(p, total, message):
            seen.append((p, total, message))

        async with connect(db_path) as c:
            ok(await c.call_tool("brain_embed", {}, progress_callback=progress))
        return seen

    seen = anyio.run(main)
    done = [p for p, _, _ in seen]
    total = seen[-1][1]
    assert total and done[-1] == total, seen
    assert done == sorted(set(done)), seen  # rising, each once
    assert [m for _, _, m in seen].count(f"{int(total):,} of {int(total):,}") == 1


@pytest.mark.engine_free
def test_embed_pages_reports_each_count_once(tmp_path):
    """The same at the source, for the command line's bar and line too."""
    from gbrain.core.brain import Brain
    from gbrain.search import embeddings as emb
    from gbrain.search.vectors import embed_pages, plan_embed, select_pages

    with Brain.open(tmp_path / "b.db", create=True) as b:
        for i in range(20):
            b.put(f"notes/n{i}", f"# Note {i}\n\nText {i}.\n\n## More\n\nMore text {i}.\n")
        model = emb.FakeEmbedding("fake-8", 8)
        plan, work = plan_embed(b.conn, model, select_pages(b.conn, model.model_id, "all"))
        seen: list[int] = []
        embed_pages(b.conn, model, work, on_progress=lambda d, t: seen.append(d))
    assert seen[0] == 0 and seen[-1] == plan.chunks and seen == sorted(set(seen)), seen


def test_query_says_the_brain_is_not_embedded_once(db_path):
    """brain_query on a brain with no vectors answered its note twice: in `notes` and again in
    `warnings` (MCP, `pipe`), or in `notes` and on stderr (`call`, `query --json`). The answer
    says it once: in `notes` where the answer is JSON, on stderr where it is text."""
    from gbrain.core.brain import Brain

    from conftest import gbrain_in_process

    with Brain.open(db_path, create=True) as b:
        b.put("notes/alpha", "# Alpha\n\nx marks the alpha spot.\n")
    said = "no embeddings for"

    async def main():
        async with connect(db_path) as c:
            return ok(await c.call_tool("brain_query", {"question": "alpha"}))

    r = anyio.run(main)
    assert r["items"] and json.dumps(r).count(said) == 1, r
    db = ["--db", str(db_path)]
    for argv in (["call", "brain_query", '{"question": "alpha"}'], ["query", "alpha", "--json"], ["query", "alpha"], ["--json", "query", "alpha"]):
        p = gbrain_in_process(*db, *argv)
        assert p.returncode == 0, p.stderr
        out, err = p.stdout.decode(), p.stderr.decode()
        assert (out + err).count(said) == 1, (argv, out, err)
        assert said in (err if argv == ["query", "alpha"] else out), (argv, out, err)
    p = gbrain_in_process(*db, "pipe", input='{"id": 1, "tool": "brain_query", "params": {"question": "alpha"}}\n')
    assert p.returncode == 0 and (p.stdout + p.stderr).decode().count(said) == 1, p
