"""The second agent trial's findings (an agent driving `gbrain serve` through the MCP SDK and
following skills/*/SKILL.md): each test is one reported failure, driven the way the agent met it."""
from __future__ import annotations

import json

import anyio
import pytest

from gbrain import operations as ops
from gbrain.core.brain import Brain
from gbrain.errors import BadInput

from conftest import gbrain
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
    from gbrain.errors import NotFound

    with Brain.open(db_path, create=True) as b:
        ops.run("put", {"slug": "people/priya", "content": "# Priya\n"}, brain=b)
        with pytest.raises(NotFound, match=r"no page 'priyaa'; did you mean: people/priya") as e:
            ops.run("put", {"slug": "priyaa", **part}, brain=b)
        assert "compiled" in str(e.value)
        assert [r["slug"] for r in b.conn.execute("SELECT slug FROM pages")] == ["people/priya"]
        ops.run("put", {"slug": "people/new-one", "compiled_truth": "# New One\n", **part}, brain=b)  # compiled truth: created
        assert b.resolve_slug("people/new-one")["title"] == "New One"
    r = gbrain("--db", str(db_path), "call", "brain_put", json.dumps({"slug": "priyaa", **part}))
    assert r.returncode == 1 and b"did you mean: people/priya" in r.stdout + r.stderr
    args = ["--frontmatter", json.dumps(part["frontmatter"])] if "frontmatter" in part else ["--timeline-append", part["timeline_append"]]
    r = gbrain("--db", str(db_path), "put", "priyaa", *args)
    assert r.returncode == 1 and b"did you mean: people/priya" in r.stderr and b"--compiled-truth" in r.stderr
    with Brain.open(db_path) as b:
        assert b.conn.execute("SELECT count(*) FROM pages").fetchone()[0] == 2
