"""The second agent trial's findings (an agent driving `gbrain serve` through the MCP SDK and
following skills/*/SKILL.md): each test is one reported failure, driven the way the agent met it."""
from __future__ import annotations

import json

import anyio
import pytest

from gbrain import operations as ops
from gbrain.core.brain import Brain
from gbrain.errors import BadInput

from conftest import gbrain, gbrain_in_process
from test_mcp import connect, ok, text_of

#: a page longer than brain_get's default part (60,000 characters) whose compiled truth is long too
LONG = ("---\ntitle: Long\n---\n\n# Long\n\n" + "".join(f"## S{i}\n\n" + "Lorem ipsum. " * 60 + "\n\n" for i in range(120))
        + "---\n\n- **2026-01-01** | manual — first entry\n")
#: a long page whose compiled truth is short (the timeline makes it long)
LONG_TL = ("---\ntitle: Log\n---\n\n# Log\n\n> State.\n\n---\n\n"
           + "".join(f"- **2025-{1 + i % 12:02d}-{1 + i % 28:02d}** | call — entry {i} " + "x" * 80 + "\n" for i in range(900)))


def test_a_partial_read_cannot_be_put_back_as_the_whole_page_over_mcp(db_path):
    """The data loss: brain_get gave part of a long page with the whole page's content_hash; a put
    of the edited part with that if_hash cut the rest. A part's content_hash is a part token now:
    a whole-page put with it is refused (nothing written) with what to do instead; the partial
    updates a part allows still take it, and a whole read's hash writes as before."""
    gbrain("init", str(db_path))

    async def main():
        async with connect(db_path) as c:
            ok(await c.call_tool("brain_put", {"slug": "notes/long", "content": LONG}))
            ok(await c.call_tool("brain_put", {"slug": "notes/log", "content": LONG_TL}))
            part = ok(await c.call_tool("brain_get", {"slug": "notes/long"}))
            cut = await c.call_tool("brain_put", {"slug": "notes/long", "if_hash": part["content_hash"],
                                                  "content": part["content"].replace("# Long", "# Long\n\nEdited.")})
            ct = await c.call_tool("brain_put", {"slug": "notes/long", "if_hash": part["content_hash"], "compiled_truth": "# Long\n\nShort now.\n"})
            tl = ok(await c.call_tool("brain_put", {"slug": "notes/long", "if_hash": part["content_hash"],
                                                    "timeline_append": "- **2026-02-01** | manual — second entry"}))
            after = ok(await c.call_tool("brain_get", {"slug": "notes/long", "max_chars": 0}))
            # the second part of a page: a part token too
            p2 = ok(await c.call_tool("brain_get", {"slug": "notes/long", "offset": part["next_offset"]}))
            cut2 = await c.call_tool("brain_put", {"slug": "notes/long", "if_hash": p2["content_hash"], "content": p2["content"]})
            # a long page whose compiled truth the first part holds: a compiled_truth put with its token writes
            lp = ok(await c.call_tool("brain_get", {"slug": "notes/log"}))
            ct_ok = ok(await c.call_tool("brain_put", {"slug": "notes/log", "if_hash": lp["content_hash"], "compiled_truth": "# Log\n\n> New state.\n"}))
            whole = ok(await c.call_tool("brain_get", {"slug": "notes/long", "max_chars": 0}))
            full = ok(await c.call_tool("brain_put", {"slug": "notes/long", "if_hash": whole["content_hash"],
                                                      "content": whole["content"].replace("# Long", "# Long\n\nEdited.")}))
            final = ok(await c.call_tool("brain_get", {"slug": "notes/long", "max_chars": 0}))
            log = ok(await c.call_tool("brain_get", {"slug": "notes/log", "max_chars": 0}))
            return part, cut, ct, tl, after, p2, cut2, ct_ok, whole, full, final, log

    part, cut, ct, tl, after, p2, cut2, ct_ok, whole, full, final, log = anyio.run(main)
    assert part["truncated"] and part["content_hash"].startswith("part:")
    assert cut.is_error and "part" in text_of(cut) and "`max_chars`" in text_of(cut) and "`compiled_truth`" in text_of(cut)
    assert "nothing was written" in text_of(cut) and "gbrain " not in text_of(cut)
    assert ct.is_error and "compiled truth" in text_of(ct)  # its compiled truth runs past the part read
    assert tl["changed"] and "second entry" in after["content"] and "first entry" in after["content"]
    assert after["content"].replace("- **2026-02-01** | manual — second entry\n", "") == LONG
    assert p2["content_hash"].startswith("part:") and cut2.is_error
    assert ct_ok["changed"] and "New state." in log["content"] and log["content"].endswith(LONG_TL.split("---\n\n", 2)[2])
    assert not whole["content_hash"].startswith("part:") and full["changed"]
    assert "Edited." in final["content"] and "first entry" in final["content"] and "second entry" in final["content"]


def test_a_part_token_is_refused_for_a_whole_page_put_on_both_engines(db_path):
    """The operation-level rule (every surface: call, pipe, MCP, CLI): a get with an offset or a
    cap gives a part token; put with `content` refuses it (BadInput, exit 2); a stale part token
    is a conflict as a stale hash is."""
    with Brain.open(db_path, create=True) as b:
        ops.run("put", {"slug": "notes/long", "content": LONG}, brain=b)
        part = ops.run("get", {"slug": "notes/long", "max_chars": 1000}, brain=b)
        tail = ops.run("get", {"slug": "notes/long", "offset": 10}, brain=b)  # from an offset to the end: still a part
        whole = ops.run("get", {"slug": "notes/long"}, brain=b)
        assert part["content_hash"].startswith("part:") and tail["content_hash"].startswith("part:")
        assert whole["content_hash"] == b.resolve_slug("notes/long")["content_hash"]
        for tok in (part["content_hash"], tail["content_hash"]):
            with pytest.raises(BadInput, match="part of notes/long"):
                ops.run("put", {"slug": "notes/long", "content": part["content"], "if_hash": tok}, brain=b)
        assert b.get_text("notes/long") == LONG
        ops.run("put", {"slug": "notes/long", "frontmatter": {"updated": "2026-12-02"}, "if_hash": part["content_hash"]}, brain=b)
        from gbrain.errors import Conflict

        with pytest.raises(Conflict, match="changed since it was read"):  # the page moved on: the token is stale
            ops.run("put", {"slug": "notes/long", "timeline_append": "- **2026-02-01** | x", "if_hash": part["content_hash"]}, brain=b)
    r = gbrain("call", "brain_put", json.dumps({"slug": "notes/long", "content": "x", "if_hash": part["content_hash"]}), "--db", str(db_path))
    assert r.returncode == 2 and b"max_chars" in r.stdout + r.stderr


def test_an_unknown_parameter_names_the_tool_that_takes_it(fixture_db):
    """brain_ingest_meeting once said `brain_raw {slug, source, data}`: the error now names the
    tool that takes those parameters (brain_raw_put), and the prompt says brain_raw_put."""

    async def main():
        async with connect(fixture_db) as c:
            raw = await c.call_tool("brain_raw", {"slug": "people/ana-lima", "source": "meeting", "data": {"a": 1}})
            odd = await c.call_tool("brain_get", {"slug": "people/ana-lima", "nope": 1})
            prompt = await c.get_prompt("brain_ingest_meeting", {})
            return raw, odd, prompt.messages[0].content.text

    raw, odd, prompt = anyio.run(main)
    assert raw.is_error and "brain_raw_put takes data" in text_of(raw)
    assert odd.is_error and "takes" not in text_of(odd)  # no tool takes `nope`: no suggestion
    assert "brain_raw_put {slug, source, data}" in prompt


@pytest.mark.parametrize("part", [{"frontmatter": {"updated": "2026-12-02"}}, {"timeline_append": "- **2026-12-01** | call — x"},
                                  {"frontmatter": {"a": 1}, "timeline_append": "- **2026-12-01** | call — x"}])
def test_a_partial_put_of_a_page_that_does_not_exist_refuses_with_did_you_mean(db_path, part):
    """`put priyaa --frontmatter …` created a junk page holding only frontmatter; tag and
    timeline-add refuse a typo with `no page 'x'; did you mean: …`: a partial put with no
    compiled truth does too (nothing written), on every surface; content or compiled_truth still
    create a page."""
    cli = gbrain_in_process  # in-process: about put's refusal, not the process
    from gbrain.errors import NotFound

    with Brain.open(db_path, create=True) as b:
        ops.run("put", {"slug": "people/priya", "content": "# Priya\n"}, brain=b)
        with pytest.raises(NotFound, match=r"no page 'priyaa'; did you mean: people/priya") as e:
            ops.run("put", {"slug": "priyaa", **part}, brain=b)
        assert "compiled" in str(e.value)
        assert [r["slug"] for r in b.conn.execute("SELECT slug FROM pages")] == ["people/priya"]
        ops.run("put", {"slug": "people/new-one", "compiled_truth": "# New One\n", **part}, brain=b)  # compiled truth: created
        assert b.resolve_slug("people/new-one")["title"] == "New One"
    r = cli("--db", str(db_path), "call", "brain_put", json.dumps({"slug": "priyaa", **part}))
    assert r.returncode == 1 and b"did you mean: people/priya" in r.stdout + r.stderr
    args = ["--frontmatter", json.dumps(part["frontmatter"])] if "frontmatter" in part else ["--timeline-append", part["timeline_append"]]
    r = cli("--db", str(db_path), "put", "priyaa", *args)
    assert r.returncode == 1 and b"did you mean: people/priya" in r.stderr and b"--compiled-truth" in r.stderr
    with Brain.open(db_path) as b:
        assert b.conn.execute("SELECT count(*) FROM pages").fetchone()[0] == 2


@pytest.mark.parametrize("value,want", [("2026-11-29T15:00:00Z", "2026-11-29"), ("2026-11-29 15:00", "2026-11-29"),
                                        ('"2026-11-29T15:00:00+09:00"', "2026-11-29"), ("2026-11-29", "2026-11-29")])
def test_ingest_names_a_timestamped_document_by_its_date(db_path, value, want):
    """`date: 2026-11-29T15:00:00Z` gave sources/<today>-weekly-sync: the date part of a timestamp is the date."""
    with Brain.open(db_path, create=True) as b:
        r = ops.run("ingest", {"content": f"---\ntitle: Weekly sync\ndate: {value}\n---\n\nNotes.\n", "source_type": "meeting", "source_ref": "zoom-123"}, brain=b)
        assert r["slug"] == f"sources/{want}-weekly-sync" and r["warnings"] == []


@pytest.mark.parametrize("value", ["2026-13-45", "Nov 29 2026", "20261129", "next tuesday"])
def test_ingest_warns_when_the_date_is_no_date(db_path, value):
    """A `date:` that is no date: today's date in the slug, and a warning that says so (was silent)."""
    from gbrain.operations.agents import _today

    with Brain.open(db_path, create=True) as b:
        r = ops.run("ingest", {"content": f"---\ntitle: Weekly sync\ndate: {value}\n---\n\nNotes.\n"}, brain=b)
        assert r["slug"] == f"sources/{_today()}-weekly-sync"
        assert any("is no date" in w and _today() in w for w in r["warnings"]), r["warnings"]


def test_a_frontmatter_edit_of_a_page_with_an_impossible_date_keeps_it(db_path):
    """`date: 2026-13-45` (kept as text by the page model) made every frontmatter edit of the page
    fail ('month must be in 1..12'; ingest of such a document crashed): the edit now writes its
    key and leaves that line byte for byte."""
    page = "---\ntitle: Odd\ndate: 2026-13-45\n---\n# Odd\n"
    with Brain.open(db_path, create=True) as b:
        ops.run("put", {"slug": "notes/odd", "content": page}, brain=b)
        ops.run("put", {"slug": "notes/odd", "frontmatter": {"updated": "2026-12-02"}}, brain=b)
        ops.run("tag", {"slug": "notes/odd", "tag": "x"}, brain=b)
        assert b.get_text("notes/odd") == "---\ntitle: Odd\ndate: 2026-13-45\nupdated: 2026-12-02\ntags:\n- x\n---\n# Odd\n"


def test_put_timeline_append_refuses_an_impossible_date_as_timeline_add_does(db_path):
    """`put --timeline-append '- **2026-13-45** | …'` was taken (and sorted as the newest entry)
    while `timeline-add --date 2026-13-45` is refused `not a real date`: both refuse now, nothing
    written; a page written whole keeps its bytes (only the agent-facing appends check)."""
    with Brain.open(db_path, create=True) as b:
        ops.run("put", {"slug": "notes/n", "content": "# N\n"}, brain=b)
        for date in ("2026-13-45", "2026-02-30"):
            with pytest.raises(BadInput, match=f"not a real date: {date}"):
                ops.run("put", {"slug": "notes/n", "timeline_append": f"- **2026-01-02** | ok\n- **{date}** | call — impossible"}, brain=b)
            with pytest.raises(BadInput, match=f"not a real date: {date}"):
                ops.run("timeline-add", {"slug": "notes/n", "date": date, "summary": "impossible"}, brain=b)
        assert b.get_text("notes/n") == "# N\n"
        whole = "# N\n\n---\n\n- **2026-13-45** | written by hand\n"
        ops.run("put", {"slug": "notes/n", "content": whole}, brain=b)
        assert b.get_text("notes/n") == whole
    r = gbrain("--db", str(db_path), "put", "notes/n", "--timeline-append", "- **2026-13-45** | call — impossible")
    assert r.returncode == 2 and b"not a real date: 2026-13-45" in r.stderr


def test_lint_lists_conflict_copies_as_conflicts_not_as_orphans_or_duplicate_titles(tmp_path, db_path):
    """A conflict copy (`deals/bridge.conflict-…`, made by sync) was an orphan ("link it…") and a
    duplicate title ("make the titles distinct"): an agent following the maintain skill would
    link or retitle it. It is a `conflicts` finding now, with how to resolve it; briefings and
    maintenance reports (type briefing / report, records the skills leave unlinked) are no orphans."""
    cli = gbrain_in_process  # in-process: about the conflict copy and lint's findings, not the process
    c = tmp_path / "c"
    (c / "deals").mkdir(parents=True)
    f = c / "deals" / "bridge.md"
    f.write_text("---\ntitle: Bridge\n---\n\n# Bridge\n\n> Summary v1.\n\n---\n\n- **2026-01-01** | call — opened\n")
    db = str(db_path)
    assert cli("--db", db, "import", str(c)).returncode == 0
    assert cli("--db", db, "put", "deals/bridge", "--compiled-truth", "# Bridge\n\n> AGENT summary.\n").returncode == 0
    f.write_text(f.read_text().replace("Summary v1.", "HUMAN summary."))
    assert cli("--db", db, "sync", str(c)).returncode == 3  # a conflict
    for slug, kind in (("sources/briefing-2026-12-02", "briefing"), ("sources/maintenance-2026-12-02", "report")):
        assert cli("--db", db, "put", slug, input=f"---\ntitle: {slug}\ntype: {kind}\n---\n# R\n").returncode == 0
    with Brain.open(db_path) as b:
        copy = [r["slug"] for r in b.conn.execute("SELECT slug FROM pages WHERE slug LIKE '%conflict%'")]
        assert len(copy) == 1 and copy[0].startswith("deals/bridge.conflict-")
        r = ops.run("lint", {"check": "orphans,duplicate_titles,conflicts", "limit": 0}, brain=b)
        by = {}
        for x in r["items"]:
            by.setdefault(x["check"], []).append(x)
        assert "duplicate_titles" not in by, by
        assert {x["slug"] for x in by.get("orphans", [])} == {"deals/bridge"}  # the page itself: nobody links it
        [conf] = by["conflicts"]
        assert conf["slug"] == copy[0] and conf["original"] == "deals/bridge"
        assert "gbrain conflicts" in conf["action"] and "delete" in conf["action"] and "merge" in conf["action"]
        agent = ops.run("lint", {"check": "conflicts"}, ops.Context(db=db, surface="mcp"), brain=b)
        assert "brain_conflicts" in agent["items"][0]["action"] and "brain_delete" in agent["items"][0]["action"]
        # resolved: the copy deleted; nothing left to say
        ops.run("delete", {"slug": copy[0]}, brain=b)
        assert ops.run("lint", {"check": "conflicts"}, brain=b)["counts"]["conflicts"] == 0


def test_an_agent_put_without_if_hash_that_drops_a_long_pages_end_is_refused(db_path):
    """The same loss without `if_hash`: an agent puts back the first part of a long page (brain_get
    gives 60,000 characters by default). A whole-page put by an agent that would drop the end of a
    page longer than that (its last line is not in the new text) needs the `if_hash` of a whole
    read; with it, a deliberate shortening writes. The command line (a person's file) is not asked."""
    from gbrain.errors import BadInput as Bad

    agent = ops.Context(db=str(db_path), surface="mcp")
    with Brain.open(db_path, create=True) as b:
        ops.run("put", {"slug": "notes/long", "content": LONG}, brain=b)
        part = ops.run("get", {"slug": "notes/long", "max_chars": 60_000}, brain=b)
        with pytest.raises(Bad, match="`max_chars` 0"):
            ops.run("put", {"slug": "notes/long", "content": part["content"].replace("# Long", "# Long\n\nEdited.")}, agent, brain=b)
        assert b.get_text("notes/long") == LONG
        # an edit that keeps the end writes
        ops.run("put", {"slug": "notes/long", "content": LONG.replace("# Long", "# Long\n\nEdited.")}, agent, brain=b)
        whole = ops.run("get", {"slug": "notes/long"}, brain=b)
        ops.run("put", {"slug": "notes/long", "content": "# Long\n\nShort now.\n", "if_hash": whole["content_hash"]}, agent, brain=b)
        assert b.get_text("notes/long") == "# Long\n\nShort now.\n"
        ops.run("put", {"slug": "notes/long2", "content": LONG}, brain=b)
    r = gbrain("--db", str(db_path), "put", "notes/long2", input="# Long\n\nShort.\n")  # a person's put: as before
    assert r.returncode == 0, r.stderr
