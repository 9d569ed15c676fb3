"""An agent's realistic mistakes over MCP (trial 26: a developer wiring gbrain into an agent,
driving `gbrain serve` with the official Python SDK client while following the skills): each
gets an answer that says the fix, and nothing the agent writes lands where it did not mean it."""
from __future__ import annotations

import json

import anyio
import pytest

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


def test_a_long_pages_sections_are_an_outline_sized_for_the_part(fixture_db):
    """brain_get of a long page lists its headings (`sections`) to jump to: the first 500 of the
    page whatever the part, each up to 200 characters, so a page of 20,000 headings gave 41 KB of
    sections beside a 60,000-character part, and 42 KB beside a part asked for with `max_chars`
    1,000; the cut was not said, and `# comment` lines of a fenced code block were headings.
    Now the list fits a share of the part: the outline's top levels, then the next level's
    headings from the part on (else the top level's from the part on); `sections_total` says how
    many the page has when the list is cut."""
    many = "---\ntitle: Many\n---\n\n" + "".join(f"## Heading number {i} about something long enough\n\nshort.\n\n" for i in range(20000))
    book = "".join(f"# Chapter {c}\n\n" + "".join(f"## Part {c}.{i}\n\ntext {c} {i}.\n\n" for i in range(200)) for c in range(30))
    code = "# Setup\n\n```bash\n# install it\npip install x\n```\n\n## Use\n\n" + "words\n" * 20000

    async def main():
        async with connect(fixture_db) as c:
            for slug, text in (("notes/many", many), ("notes/book", book), ("notes/code", code)):
                ok(await c.call_tool("brain_put", {"slug": slug, "content": text}))
            first = await c.call_tool("brain_get", {"slug": "notes/many"})
            small = await c.call_tool("brain_get", {"slug": "notes/many", "max_chars": 1000})
            later = ok(await c.call_tool("brain_get", {"slug": "notes/many", "offset": 600_000}))
            outline = ok(await c.call_tool("brain_get", {"slug": "notes/book"}))
            at = book.index("# Chapter 20\n")
            later_outline = ok(await c.call_tool("brain_get", {"slug": "notes/book", "offset": at}))
            fenced = ok(await c.call_tool("brain_get", {"slug": "notes/code"}))
            return first, small, later, outline, later_outline, fenced

    first, small, later, outline, later_outline, fenced = anyio.run(main)
    got = ok(first)
    assert len(got["content"]) <= 60_000 and len(json.dumps(got["sections"])) <= 8_000, len(json.dumps(got["sections"]))
    assert got["sections_total"] == 20000
    assert len(text_of(small)) <= 2_500, len(text_of(small))
    assert ok(small)["sections_total"] == 20000 and ok(small)["sections"]
    # the headings from the part on: the first one listed is the one the part starts in or after
    assert later["sections"][0]["offset"] <= 600_000 < later["sections"][1]["offset"], later["sections"][:2]
    # every chapter, and in the room left the parts from the one the read starts in
    heads = [s["heading"] for s in outline["sections"]]
    assert [h for h in heads if h.startswith("# ")] == [f"# Chapter {c}" for c in range(30)] and outline["sections_total"] == 30 * 201
    assert heads[:3] == ["# Chapter 0", "## Part 0.0", "## Part 0.1"] and 30 < len(heads) < 30 * 201, heads
    later_book = [s["heading"] for s in later_outline["sections"]]
    assert "## Part 20.0" in later_book and "## Part 0.0" not in later_book and "# Chapter 0" in later_book, later_book
    assert [s["heading"] for s in fenced["sections"]] == ["# Setup", "## Use"] and "sections_total" not in fenced


def test_arguments_a_model_sends_in_another_json_shape_are_taken_or_refused_saying_the_shape(fixture_db):
    """A model sends the shape its host serialised: an object as JSON text (`"frontmatter":
    "{\\"updated\\": …}"`), a list for a string the tool joins itself (lint's comma-separated
    `check`, put's `timeline_append` lines). "5" for an integer and "true" for a boolean were
    taken already; these were refused (`must be a string, got an array`) without the fix. Now
    they are taken as meant; a string that is no JSON object, or a list of another string, is
    refused saying what to send."""
    async def main():
        async with connect(fixture_db) as c:
            lint = ok(await c.call_tool("brain_lint", {"check": ["dead_links", "orphans"], "slug": ["people/ana-lima"]}))
            lines = ok(await c.call_tool("brain_put", {"slug": "people/ana-lima", "timeline_append": [
                "- **2026-12-01** | call — First of two", "- **2026-12-02** | call — Second of two"]}))
            fm = ok(await c.call_tool("brain_put", {"slug": "people/ana-lima", "frontmatter": '{"updated": "2026-12-04"}'}))
            raw = ok(await c.call_tool("brain_raw_put", {"slug": "people/ana-lima", "source": "crustdata", "data": '{"valid": true}'}))
            page = ok(await c.call_tool("brain_get", {"slug": "people/ana-lima", "max_chars": 0}))["content"]
            stored = ok(await c.call_tool("brain_raw", {"slug": "people/ana-lima", "source": "crustdata"}))
            yaml_text = await c.call_tool("brain_put", {"slug": "people/ana-lima", "frontmatter": "updated: 2026-12-05"})
            summary = await c.call_tool("brain_timeline_add", {"slug": "people/ana-lima", "date": "2026-12-04", "summary": ["a", "b"]})
            return lint, lines, fm, raw, page, stored, yaml_text, summary

    lint, lines, fm, raw, page, stored, yaml_text, summary = anyio.run(main)
    assert lint["checks"] == ["dead_links", "orphans"]
    assert lines["changed"] and "| call — First of two\n" in page and "| call — Second of two\n" in page
    assert fm["changed"] and "\nupdated: 2026-12-04\n" in page
    assert raw["changed"] and json.dumps(stored).count('"valid": true') == 1, stored
    err = yaml_text.structured_content["error"]
    assert yaml_text.is_error and "a JSON object" in err and "got a string" in err and "not JSON or YAML text" in err, err
    err = summary.structured_content["error"]
    assert summary.is_error and "must be a string, got an array" in err and "one string" in err, err


@pytest.mark.engine_free
def test_a_page_of_results_cut_by_its_size_says_so(tmp_path):
    """`brain_list {"limit": 1000}` on a 2,000-page brain answered 326 items and a next_cursor,
    with nothing saying the page was cut to ~40,000 characters rather than ending at the limit:
    a model takes 326 for the count it asked for. A page cut by size now says so in `note`
    (how many of how many asked, and to pass next_cursor as cursor); a page its limit ended says
    nothing."""
    from conftest import gbrain

    tree = tmp_path / "tree"
    tree.mkdir()
    entries = "".join(f"- **2024-01-{1 + i % 28:02d}** | call — entry {i} " + "word " * 80 + "\n" for i in range(200))
    (tree / "long.md").write_text("# Long\n\nA page with a long timeline.\n\n---\n\n" + entries, encoding="utf-8")
    db = tmp_path / "brain.db"
    assert gbrain("import", str(tree), "--db", str(db)).returncode == 0

    async def main():
        async with connect(db) as c:
            return (ok(await c.call_tool("brain_timeline", {"slug": "long", "limit": 200})),
                    ok(await c.call_tool("brain_timeline", {"slug": "long", "limit": 5})))

    cut, small = anyio.run(main)
    n = len(cut["items"])
    assert 0 < n < 200 and cut["next_cursor"]
    assert f"{n} of the 200 asked" in cut["note"] and "next_cursor" in cut["note"], cut.get("note")
    assert len(small["items"]) == 5 and "note" not in small


@pytest.mark.engine_free
def test_a_put_whose_page_was_deleted_or_renamed_since_the_read_says_which_and_what_to_do(tmp_path):
    """The person deleted (or renamed) the note in their editor while the agent worked; the
    agent's put with the if_hash of its read said "there is no such page (it was deleted or
    renamed since it was read, or never existed)", nothing on what to do, so the trial's agent
    put again without if_hash and made a new page of its compiled truth alone (the frontmatter
    and timeline left in the trash). Now a deletion says so, with brain_restore and to ask first;
    a rename is followed as put follows one (the page under its new name, a note saying so)."""
    from conftest import gbrain

    tree = tmp_path / "vault"
    (tree / "people").mkdir(parents=True)
    for name in ("ana-lima", "bruno-okafor"):
        (tree / "people" / f"{name}.md").write_text(f"---\ntitle: {name}\n---\n# {name}\n\nText.\n\n---\n\n- **2026-01-01** | call — met\n", encoding="utf-8")
    db = tmp_path / "brain.db"
    assert gbrain("sync", str(tree), "--db", str(db)).returncode == 0

    async def main():
        async with connect(db) as c:
            ana = ok(await c.call_tool("brain_get", {"slug": "people/ana-lima"}))
            bruno = ok(await c.call_tool("brain_get", {"slug": "people/bruno-okafor"}))
            (tree / "people" / "ana-lima.md").unlink()  # the person's editor, then a sync (watch)
            (tree / "people" / "bruno-okafor.md").rename(tree / "people" / "bruno-okafor-jr.md")
            assert gbrain("sync", str(tree), "--db", str(db)).returncode == 0
            new_ct = "# Agent\n\nRewritten.\n"
            return (await c.call_tool("brain_put", {"slug": "people/ana-lima", "if_hash": ana["content_hash"], "compiled_truth": new_ct}),
                    await c.call_tool("brain_put", {"slug": "people/bruno-okafor", "if_hash": bruno["content_hash"], "compiled_truth": new_ct}))

    deleted, renamed = anyio.run(main)
    err = deleted.structured_content["error"]
    assert deleted.is_error and "was deleted" in err and '`brain_restore {"slug": "people/ana-lima"}`' in err and "nothing was written" in err, err
    # a rename is followed, as put follows one: the page under its new name, the note saying so
    moved = ok(renamed)
    assert moved["slug"] == "people/bruno-okafor-jr" and "renamed to people/bruno-okafor-jr" in moved["note"], moved


def test_a_read_by_a_name_two_pages_have_names_the_other(fixture_db):
    """make_brain's people/ana-cruz and people/ana-cruz-88 are both titled "Ana Cruz":
    brain_get "Ana Cruz" read the first (its file name), saying nothing of the other, and the
    agent wrote the meeting's facts to it. The read now warns, naming the other page(s); a read
    by the slug says nothing."""
    async def main():
        async with connect(fixture_db) as c:
            ok(await c.call_tool("brain_put", {"slug": "people/ana-lima-2", "content": "---\ntitle: Ana Lima\ntype: person\n---\n# Ana Lima\n\nAnother.\n"}))
            return (ok(await c.call_tool("brain_get", {"slug": "Ana Lima"})),
                    ok(await c.call_tool("brain_get", {"slug": "people/ana-lima"})))

    by_name, by_slug = anyio.run(main)
    assert by_name["slug"] == "people/ana-lima"
    assert any("people/ana-lima-2" in w and "Ana Lima" in w for w in by_name.get("warnings", [])), by_name.get("warnings")
    assert not by_slug.get("warnings")


def test_an_unknown_parameter_that_is_part_of_a_known_one_is_suggested(fixture_db):
    """`brain_diff {"from": 1, "to": 2}` (as brain_revert's `to`) said "unknown parameter(s)
    from, to; expected slug, from_version, to_version" with no did-you-mean: difflib finds no
    match that short. A word of a parameter's name is suggested now."""
    async def main():
        async with connect(fixture_db) as c:
            return await c.call_tool("brain_diff", {"slug": "people/ana-lima", "from": 1, "to": 2})

    r = anyio.run(main)
    err = r.structured_content
    assert r.is_error and err["suggestions"] == ["from_version", "to_version"] and "did you mean: from_version, to_version" in err["error"], err


def test_a_write_queued_when_the_client_goes_away_is_said_as_not_run(fixture_db, caplog):
    """A script piped its requests to `gbrain serve` and closed its input: the writes queued
    behind a running call were not run (as a call given up while it waits), and stderr said
    "brain_ingest: the client went away (closed its input) while it ran; it stopped before its
    commit" — it had never started. Now stderr says it was not run."""
    import logging

    from gbrain import operations as ops
    from gbrain.core.brain import Brain
    from gbrain.mcp import server as mcp_server

    server, host = mcp_server.build_server(str(fixture_db))
    put = mcp_server._make_tool(ops.REGISTRY["put"], host)
    with Brain.open(fixture_db) as b:
        text = b.get_text("people/ana-lima")

    async def main():
        host._lock.acquire()  # another call is running
        try:
            with anyio.move_on_after(0.3):
                host.closing = True  # the client closed its input while the put waited for its turn
                await put.fn({"slug": "people/ana-lima", "content": "---\ntitle: Gone\n---\nnot run\n"}, None)
        finally:
            host._lock.release()
        for _ in range(200):
            if not host.busy:
                break
            await anyio.sleep(0.02)

    with caplog.at_level(logging.WARNING, logger="gbrain.mcp"):
        try:
            anyio.run(main)
        finally:
            host.close()
    with Brain.open(fixture_db) as b:
        assert b.get_text("people/ana-lima") == text
    said = [r.getMessage() for r in caplog.records if r.name == "gbrain.mcp"]
    assert any("brain_put" in m and "before its turn came" in m and "not run" in m for m in said), said
    assert not any("while it ran" in m for m in said), said


def test_a_whole_put_that_drops_the_timeline_and_frontmatter_warns_how_to_get_them_back(fixture_db):
    """The agent rewrote a person's summary and put it back as `content` (the compiled truth
    alone): the page lost its frontmatter and every timeline entry, the answer said
    `"warnings": []`. The versions are in the history, but nothing told the agent. Now the answer
    warns what was dropped, with the calls that show and bring back the old text, and points at
    `compiled_truth`; a whole put that keeps them says nothing."""
    async def main():
        async with connect(fixture_db) as c:
            before = ok(await c.call_tool("brain_get", {"slug": "people/ana-lima", "max_chars": 0}))
            kept = ok(await c.call_tool("brain_put", {"slug": "people/ana-lima", "content": before["content"].replace("# Ana Lima", "# Ana Lima\n\nOne more line.", 1)}))
            versions = ok(await c.call_tool("brain_history", {"slug": "people/ana-lima"}))["total"]
            dropped = ok(await c.call_tool("brain_put", {"slug": "people/ana-lima", "content": "# Ana Lima\n\n> Summary only.\n"}))
            back = ok(await c.call_tool("brain_revert", {"slug": "people/ana-lima", "to": versions}))
            after = ok(await c.call_tool("brain_get", {"slug": "people/ana-lima", "max_chars": 0}))
            return before, kept, versions, dropped, back, after

    before, kept, versions, dropped, back, after = anyio.run(main)
    assert not kept.get("warnings")
    w = " ".join(dropped.get("warnings", []))
    assert "timeline entr" in w and "frontmatter" in w and "title" in w, w
    assert f'`brain_revert {{"slug": "people/ana-lima", "to": {versions}}}`' in w and "compiled_truth" in w, w
    assert back["changed"] and after["content"].startswith("---\ntitle: Ana Lima")


def test_a_source_or_choice_in_another_case_is_taken_or_named(fixture_db):
    """The enrich flow: `brain_raw {"source": "Crustdata"}` said "has no raw data from
    'Crustdata'" (the page has crustdata), naming none of the sources it has; `brain_ingest
    {"source_type": "Meeting"}` was refused though only the case differs. A choice (an enum) in
    another case is taken; a missing source names the page's sources, the near one suggested."""
    async def main():
        async with connect(fixture_db) as c:
            ok(await c.call_tool("brain_raw_put", {"slug": "people/ana-lima", "source": "crustdata", "data": {"valid": True}}))
            miss = await c.call_tool("brain_raw", {"slug": "people/ana-lima", "source": "Crustdata"})
            ing = ok(await c.call_tool("brain_ingest", {"content": "# Call\n\nWith Ana.\n", "source_type": "Meeting", "source_ref": "zoom/1"}))
            return miss, ing

    miss, ing = anyio.run(main)
    err = miss.structured_content
    assert miss.is_error and "it has raw data from crustdata" in err["error"] and err["suggestions"] == ["crustdata"], err
    assert ing["source_type"] == "meeting"


@pytest.mark.engine_free
def test_query_and_question_are_suggested_for_each_other():
    """Trial 30: an agent on the official SDK called `brain_query {"query": …}` (brain_search's
    name for it) and was told `unknown parameter(s) query; expected question, …; brain_search
    takes query`: pointed at the keyword tool, away from the one it chose. The two names of the
    same thing are suggested for each other (`did you mean: question`), as a near spelling is."""
    import pytest

    from gbrain.errors import BadInput
    from gbrain.operations import registry as reg

    for tool, given, meant in (("query", "query", "question"), ("search", "question", "query")):
        with pytest.raises(BadInput) as e:
            reg.check_args(reg.REGISTRY[tool], {given: "mixture of experts"}, tool=True)
        assert f"did you mean: {meant}; " in str(e.value) and e.value.suggestions == [meant], (str(e.value), e.value.suggestions)


def test_a_put_to_a_name_spelled_without_its_accents_makes_no_second_page(fixture_db):
    """Trial 40: a transcript says "Zoe Kim", "Lukasz Novak", "Soren Iyer"; the brain has
    people/zoë-kim, people/łukasz-novak, people/søren-iyer (brain_search "Soren Iyer" did not
    even list søren-iyer in its first five). The ingest skill's slug rule made people/zoe-kim and
    the put created a second page of the person beside the first, silently, though `people/zoe_kim`
    beside `people/zoe-kim` is refused. Now the put names the page and writes nothing;
    `if_hash ''` still makes a new page of that name on purpose."""
    async def main():
        async with connect(fixture_db) as c:
            for s, t in (("people/zoë-kim", "Zoë Kim"), ("people/łukasz-novak", "Łukasz Novak"), ("people/søren-iyer", "Søren Iyer")):
                ok(await c.call_tool("brain_put", {"slug": s, "content": f"---\ntitle: {t}\ntype: person\n---\n\n# {t}\n\n> CEO.\n"}))
            refused = [await c.call_tool("brain_put", {"slug": s, "content": "---\ntype: person\n---\n\n# X\n\n> New.\n"})
                       for s in ("people/zoe-kim", "people/lukasz-novak", "People/Soren Iyer", "Zoe Kim")]
            listed = [i["slug"] for i in ok(await c.call_tool("brain_list", {"type": "person", "limit": 500}))["items"]]
            forced = ok(await c.call_tool("brain_put", {"slug": "people/zoe-kim", "if_hash": "", "content": "# Zoe Kim\n"}))
            other = ok(await c.call_tool("brain_put", {"slug": "people/zoe-kimura", "content": "# Zoe Kimura\n"}))
            return refused, listed, forced, other

    refused, listed, forced, other = anyio.run(main)
    for r, page in zip(refused, ("people/zoë-kim", "people/łukasz-novak", "people/søren-iyer", "people/zoë-kim"), strict=True):
        assert r.is_error, text_of(r)
        err = r.structured_content["error"]
        assert f"give '{page}'" in err and "nothing was written" in err and "if_hash ''" in err, err
    assert not {"people/zoe-kim", "people/lukasz-novak", "People/Soren Iyer", "Zoe Kim"} & set(listed)
    assert forced["created"] and other["created"]


def test_a_put_to_a_name_that_breaks_an_apostrophe_otherwise_makes_no_second_page(fixture_db):
    """Trial 40: people/gus-o-brien is "Gus O'Brien"; the transcript says "Gus OBrien" and the
    slug rule made people/gus-obrien: a second page of the person (an apostrophe is no accent).
    Names that differ only in where words break are one name when a title (the page's, or the
    new text's) has a mark inside a word there, both ways; a break no title explains is another
    name (`tools/re-act` beside `tools/react`)."""
    pages = (("people/gus-o-brien", "Gus O'Brien"), ("people/dara-obrien", "Dara O’Brien"), ("people/sam-oneil", "Sam ONeil"),
             ("tools/react", "React"), ("tools/re-act", "Re-Act"))

    async def main():
        async with connect(fixture_db) as c:
            for s, t in pages:
                ok(await c.call_tool("brain_put", {"slug": s, "content": f"---\ntitle: {t}\n---\n\n# {t}\n"}))
            refused = [await c.call_tool("brain_put", {"slug": s, "content": text}) for s, text in (
                ("people/gus-obrien", "# Gus\n"), ("Gus OBrien", "# Gus\n"), ("people/dara-o-brien", "# Dara\n"),
                ("people/sam-o-neil", "# Sam O'Neil\n"))]
            made = [await c.call_tool("brain_put", {"slug": s, "content": text}) for s, text in (
                ("people/sam-o-neil-2", "# Sam O'Neil\n"), ("tools/re-act-2", "# ReAct\n"), ("tools/reac-t", "# Reac T\n"))]
            forced = await c.call_tool("brain_put", {"slug": "people/gus-obrien", "if_hash": "", "content": "# Gus\n"})
            return refused, made, forced

    refused, made, forced = anyio.run(main)
    for r, page in zip(refused, ("people/gus-o-brien", "people/gus-o-brien", "people/dara-obrien", "people/sam-oneil"), strict=True):
        assert r.is_error, text_of(r)
        err = r.structured_content["error"]
        assert f"give '{page}'" in err and "nothing was written" in err and "if_hash ''" in err, err
    for r in [*made, forced]:
        assert ok(r)["created"], r


def test_lints_stale_compiled_truth_action_puts_with_the_hash_read(fixture_db):
    """Trial 40: the skills insist a compiled-truth rewrite is put with the content_hash read
    (`if_hash`: the person may be editing the note), but brain_lint's stale_compiled_truth action
    offered `brain_put {"slug", "compiled_truth", "frontmatter"}` without it, and an agent that
    follows the action overwrites an edit saved after its read. It now carries `if_hash` and says
    where the hash comes from (brain_get)."""
    async def main():
        async with connect(fixture_db) as c:
            ok(await c.call_tool("brain_timeline_add", {"slug": "people/ana-lima", "date": "2099-01-02", "source": "meeting", "summary": "Later news"}))
            return ok(await c.call_tool("brain_lint", {"check": "stale_compiled_truth", "slug": ["people/ana-lima"]}))

    items = anyio.run(main)["items"]
    assert items and items[0]["slug"] == "people/ana-lima", items
    action = items[0]["action"]
    assert '"if_hash": HASH' in action and 'brain_get {"slug": "people/ana-lima"}' in action and "gbrain" not in action, action


def test_lints_stale_compiled_truth_action_for_an_agent_says_no_command_line_words(fixture_db):
    """Trial 70: an agent working through `brain_lint {"check": "stale_compiled_truth", "limit":
    50}` on a 2,000-page brain got 31,790 B, 16,096 B of it the same 322-byte action per finding,
    ending "; --json on the command line)": advice for a shell user (tools always answer JSON)
    the agent reads 50 times. Its action now names the calls alone (`gbrain get SLUG --json`
    becomes `brain_get {"slug": ...}`), and the command line's still says `--json`."""
    from conftest import gbrain_in_process

    async def main():
        async with connect(fixture_db) as c:
            ok(await c.call_tool("brain_timeline_add", {"slug": "people/ana-lima", "date": "2099-01-02", "source": "meeting", "summary": "Later news"}))
            return ok(await c.call_tool("brain_lint", {"check": "stale_compiled_truth", "slug": ["people/ana-lima"]}))

    action = anyio.run(main)["items"][0]["action"]
    assert "--" not in action and "command line" not in action and "gbrain" not in action, action
    assert 'brain_get {"slug": "people/ana-lima"}' in action and '"if_hash": HASH' in action, action
    assert len(action.encode()) <= 240, (len(action.encode()), action)
    cli = gbrain_in_process("--db", str(fixture_db), "lint", "--check", "stale_compiled_truth", "--slug", "people/ana-lima", "--json")
    (finding,) = json.loads(cli.stdout)["items"]
    assert "`gbrain get people/ana-lima --json`" in finding["action"], finding


def test_a_lint_cut_by_its_limit_says_how_to_list_the_rest(fixture_db):
    """Trial 70: `brain_lint {"check": "orphans", "limit": 20}` on a 2,000-page brain listed 20
    findings with `next_cursor: null` and `truncated: {"orphans": 91}`, and no word on how to
    reach the other 91 (`limit` caps each check before the pages are cut, so no cursor leads to
    them; the command line's text says "--limit 0 shows all"). The answer now says it, as a
    tool call's parameter."""
    async def main():
        async with connect(fixture_db) as c:
            for n in (1, 2, 3):
                ok(await c.call_tool("brain_put", {"slug": f"notes/lonely-{n}", "content": f"# Lonely {n}\n"}))
            return ok(await c.call_tool("brain_lint", {"check": "orphans", "limit": 1}))

    r = anyio.run(main)
    assert len(r["items"]) == 1 and r["truncated"]["orphans"] >= 2 and r["next_cursor"] is None, r
    note = r.get("note", "")
    assert f"{r['truncated']['orphans']:,} more orphans" in note and "`limit` 0" in note and "--" not in note, note


def test_a_frontmatter_put_of_tags_says_which_tags_it_took_off(fixture_db):
    """Trial 70: an agent adding a tag by `brain_put {"frontmatter": {"tags": ["cfo"]}}` replaced
    the page's `tags: [founder, finance]` with `[cfo]`: two tags gone, answer `warnings: []`.
    `frontmatter` sets a key whole (as documented), so the write stands; the answer now names
    the tags it removed and brain_tag, which adds one and keeps the rest."""
    async def main():
        async with connect(fixture_db) as c:
            ok(await c.call_tool("brain_put", {"slug": "people/priya-n", "content": "---\ntitle: Priya N\ntags: [founder, Finance]\n---\n# Priya N\n"}))
            dropped = ok(await c.call_tool("brain_put", {"slug": "people/priya-n", "frontmatter": {"tags": ["cfo", "finance"]}}))
            kept = ok(await c.call_tool("brain_put", {"slug": "people/priya-n", "frontmatter": {"tags": ["cfo", "finance", "ops"]}}))
            page = ok(await c.call_tool("brain_get", {"slug": "people/priya-n"}))
            return dropped, kept, page

    dropped, kept, page = anyio.run(main)
    assert "founder" not in page["content"] and "cfo" in page["content"], page
    (w,) = dropped["warnings"]
    assert "founder" in w and "Finance" not in w and "brain_tag" in w and "gbrain" not in w, w
    assert kept["warnings"] == [], kept


def test_a_link_to_a_page_not_yet_written_says_to_create_it_first(fixture_db):
    """Trial 70: following the ingest skill (a person named as a next step gets a short page;
    link the pages), an agent's `brain_link` to the page it had not written yet answered only
    "no page 'people/jordan-blake'": not which side was missing nor what to do. It now says the
    target is missing and to create it first with brain_put; a missing `from` is unchanged."""
    async def main():
        async with connect(fixture_db) as c:
            ok(await c.call_tool("brain_put", {"slug": "people/priya-n", "content": "# Priya N\n"}))
            to = await c.call_tool("brain_link", {"from": "people/priya-n", "to": "people/jordan-blake-new"})
            frm = await c.call_tool("brain_link", {"from": "people/jordan-blake-new", "to": "people/priya-n"})
            return to, frm

    to, frm = anyio.run(main)
    assert to.is_error and frm.is_error
    err = to.structured_content["error"]
    assert "people/jordan-blake-new" in err and 'brain_put {"slug": "people/jordan-blake-new"' in err and "nothing was written" in err, err
    assert "brain_put" not in frm.structured_content["error"], frm.structured_content


def test_a_dead_links_action_offers_only_puts_that_can_succeed(fixture_db):
    """Trial 70: brain_lint's dead_links action offered `brain_put {"slug": "jordan-blake"}` to
    create the page and `brain_put {"slug": "people/priya-n"}` to correct the link text: both
    refused as given (a put needs something to write). Each put it offers now carries what it
    writes: a compiled truth for the new page, a `replace` of the link text."""
    import re

    async def main():
        async with connect(fixture_db) as c:
            ok(await c.call_tool("brain_put", {"slug": "people/priya-n", "content": "# Priya N\n\nIntroduced by [[Jordan Blake]].\n"}))
            return ok(await c.call_tool("brain_lint", {"check": "dead_links", "slug": ["people/priya-n"]}))

    (item,) = anyio.run(main)["items"]
    puts = re.findall(r"`brain_put (\{[^`]*\})`", item["action"])
    assert len(puts) == 2, item["action"]
    for p in puts:
        assert re.search(r'"(compiled_truth|content|replace|append)": ', p), (p, item["action"])
    assert '"replace": {"OLD": "NEW"}' in item["action"], item["action"]


def test_an_accent_twin_in_a_folder_named_with_a_capital_accent_is_refused_on_both_engines(db_path):
    """Review: the twin check read the folder's pages by SQL's lower(), which on SQLite folds
    ASCII letters only: in `Équipe/` (`lower` keeps the `É`) it read no page, so `Équipe/zoe-kim`
    was made beside `Équipe/zoë-kim` on SQLite and refused on Postgres, whose lower() folds every
    letter."""
    import pytest

    from gbrain import operations as ops
    from gbrain.core.brain import Brain
    from gbrain.errors import BadInput

    with Brain.open(db_path) as b:
        b.put("Équipe/zoë-kim", "# Zoë Kim\n")
        b.put("Ünits/gus-o-brien", "# Gus O'Brien\n")
        ctx = ops.Context(surface="mcp")
        for slug, page in (("Équipe/zoe-kim", "Équipe/zoë-kim"), ("Ünits/gus-obrien", "Ünits/gus-o-brien")):
            with pytest.raises(BadInput, match=f"give '{page}'"):
                ops.run("put", {"slug": slug, "content": "# New\n"}, ctx, brain=b)
            assert b.page_row(slug) is None
        assert ops.run("put", {"slug": "Équipe/zoe-kimura", "content": "# Zoe Kimura\n"}, ctx, brain=b)["created"]


def test_the_put_twin_check_is_indexed_lookups_on_both_engines(db_path, monkeypatch):
    """The put's twin check of a new name (``_check_spelling_twin``) read every page twice: the
    break-twin check (``_letter_twins``: ``people/gus-obrien`` beside *Gus O'Brien*) compared
    every page's keys with their breaks taken out, ``replace(loose_key, '-', '')``, and
    ``resolve_slug`` listed the pages with a space around a segment for every name no page has
    (20,000 make_brain pages: 25 and 23 ms CPU a put, SQLite); on Postgres the accent lookup's
    ``loose_key = ? OR id IN (SELECT … name_folds …)`` was a scan too. Every statement is now an
    indexed lookup (SQLite v58 / Postgres v62: ``idx_pages_loose_letters``,
    ``idx_pages_title_letters``, the partial ``idx_pages_spaced``), ``_letter_twins`` one
    statement, on a brain made before them too (they come on open)."""
    import pytest

    from gbrain.core.brain import Brain
    from gbrain.errors import BadInput
    from gbrain.operations.core import _check_spelling_twin
    from gbrain.storage import db as dbmod

    class Ctx:
        agent = True

        def flag(self, name):
            return name

    def plans(b) -> list[str]:
        pg = getattr(b.conn, "dialect", "sqlite") == "postgres"
        out = []
        for slug, twin in (("people/gus-obrien", "people/gus-o-brien"), ("Gus OBrien", "people/gus-o-brien"), ("Équipe/gus-obrien", None),
                           ("people/zoe-kim", "people/zoë-kim"), ("people/new-one", None)):
            sent: list = []
            if pg:
                execute = b.conn.execute
                monkeypatch.setattr(b.conn, "execute", lambda sql, args=(): sent.append((sql, args)) or execute(sql, args))
            else:
                b.conn.set_trace_callback(lambda sql: sent.append((sql, ())))
            try:
                if twin:
                    with pytest.raises(BadInput, match=f"give '{twin}'"):
                        _check_spelling_twin(b, {"slug": slug}, Ctx())
                else:
                    _check_spelling_twin(b, {"slug": slug}, Ctx())
            finally:
                monkeypatch.undo() if pg else b.conn.set_trace_callback(None)
            assert sum("replace(loose_key" in sql for sql, _ in sent) == 1
            for sql, args in sent:
                if pg:
                    with b.transaction():  # (a few rows: only with seq scans off does the plan tell whether an index serves it)
                        b.conn.execute("SET LOCAL enable_seqscan = off")
                        out.append(" ".join(str(r[0]) for r in b.conn.execute("EXPLAIN " + sql, args)))
                elif sql.startswith("SELECT"):
                    out.append(" | ".join(str(r[-1]) for r in b.conn.execute("EXPLAIN QUERY PLAN " + sql)))
        return out

    def scans(plan: str) -> bool:  # a pass over every page (or every entry of one of its full indexes)
        return "Seq Scan on pages" in plan or any(p.startswith("SCAN pages") and "idx_pages_spaced" not in p for p in plan.split(" | "))

    with Brain.open(db_path) as b:
        for i in range(30):
            b.put(f"people/p{i}", f"# Person {i}\n")
        b.put("people/gus-o-brien", "# Gus O'Brien\n")
        b.put("people/zoë-kim", "# Zoë Kim\n")
        b.put("notes/Draft plan /x", "# X\n")
        assert [p for p in plans(b) if scans(p)] == []
        assert b.resolve_slug("notes/Draft plan/x")["slug"] == "notes/Draft plan /x"  # (the spaced name still found)
        with b.transaction():  # as a brain before v58 / Postgres v62
            for ix in ("idx_pages_loose_letters", "idx_pages_title_letters", "idx_pages_spaced"):
                b.conn.execute(f"DROP INDEX {ix}")
            if getattr(b.conn, "dialect", "sqlite") == "postgres":
                b.conn.execute("DELETE FROM gbrain_schema WHERE version >= 62")
            else:
                b.conn.execute(f"PRAGMA user_version = {dbmod.MIGRATIONS.index(dbmod._m58_put_lookups)}")
    with Brain.open(db_path) as b:
        assert [p for p in plans(b) if scans(p)] == []


@pytest.mark.parametrize("tool, params", [("brain_lint", {"slug": [None]}), ("brain_lint", {"slug": [5]}),
                                          ("brain_lint_fix", {"slug": ["people/ana-lima", {"a": 1}]})])
def test_a_list_holding_other_than_strings_is_bad_input_not_an_internal_error(fixture_db, tool, params):
    # trial 66: the schema says items are strings; [null] failed inside lint with
    # "internal error: AttributeError: 'NoneType' object has no attribute 'strip'" (exit 1)
    from conftest import gbrain_in_process

    r = gbrain_in_process("--db", str(fixture_db), "call", tool, json.dumps(params))
    out = json.loads(r.stdout)
    assert r.returncode == 2 and out["kind"] == "bad_input", out
    assert "slug" in out["error"] and "strings" in out["error"], out
