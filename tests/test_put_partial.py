"""brain_put partial updates (compiled_truth / timeline_append / frontmatter): the named part
changes, every other byte of the page stays as it was."""
from __future__ import annotations

import json

import pytest

from gbrain import operations as ops
from gbrain.core.brain import Brain
from gbrain.page.markdown import parse_page
from gbrain.errors import BadInput

WEIRD_FM = """---
title:   "Weird  Spacing"   # a comment
aliases:
    - one
    - 'two'
created: 2024-05-02
tags: [a,  b]
desc: >
  folded text
  here
empty:
nested: {x: 1, y: [1,2]}
---
# Weird

State text.

---

- **2025-01-02** | call — Talked.
"""


@pytest.fixture
def brain(db_path):
    with Brain.open(db_path) as b:
        yield b


def put(b: Brain, **args):
    return ops.run("put", args, brain=b)


def text(b: Brain, slug: str) -> str:
    return ops.run("get", {"slug": slug}, brain=b)["content"]


def test_frontmatter_update_keeps_other_keys_byte_exact(brain):
    put(brain, slug="notes/weird", content=WEIRD_FM)
    put(brain, slug="notes/weird", frontmatter={"status": "active"})
    new = text(brain, "notes/weird")
    head, rest = WEIRD_FM.split("---\n# Weird", 1)
    assert new == head + "status: active\n---\n# Weird" + rest
    assert parse_page(new).frontmatter["status"] == "active"


def test_frontmatter_set_and_remove_touch_only_those_keys(brain):
    put(brain, slug="notes/weird", content=WEIRD_FM)
    put(brain, slug="notes/weird", frontmatter={"aliases": None, "created": "2024-06-01", "tags": ["x", "y"]})
    new = text(brain, "notes/weird")
    lines = new.splitlines()
    assert 'title:   "Weird  Spacing"   # a comment' in lines
    assert "nested: {x: 1, y: [1,2]}" in lines
    assert "    - one" not in lines and "aliases:" not in lines
    fm = parse_page(new).frontmatter
    assert fm["created"] == "2024-06-01" and fm["tags"] == ["x", "y"] and "aliases" not in fm
    assert new.endswith(WEIRD_FM.split("---\n# Weird", 1)[1])  # body untouched
    assert brain.tags("notes/weird") == ["x", "y"]


def test_frontmatter_update_on_crlf_page_keeps_crlf(brain):
    crlf = WEIRD_FM.replace("\n", "\r\n")
    put(brain, slug="notes/crlf", content=crlf)
    put(brain, slug="notes/crlf", frontmatter={"status": "new"})
    new = text(brain, "notes/crlf")
    assert "\n" not in new.replace("\r\n", "")
    assert new == crlf.replace("nested: {x: 1, y: [1,2]}\r\n", "nested: {x: 1, y: [1,2]}\r\nstatus: new\r\n")


def test_timeline_append_on_new_page_makes_a_timeline(brain):
    from gbrain.errors import NotFound

    with pytest.raises(NotFound, match="no page 'notes/new'"):  # timeline lines alone make no page (a typo'd slug did)
        put(brain, slug="notes/new", timeline_append="- **2025-01-01** | manual — first")
    put(brain, slug="notes/new", compiled_truth="# New\n", timeline_append="- **2025-01-01** | manual — first")
    assert ops.run("timeline", {"slug": "notes/new"}, brain=brain) == [{"date": "2025-01-01", "source": "manual", "summary": "first", "detail": ""}]


def test_timeline_add_on_empty_page(brain):
    put(brain, slug="notes/empty", content="")
    ops.run("timeline-add", {"slug": "notes/empty", "date": "2025-02-03", "summary": "x"}, brain=brain)
    assert [e["date"] for e in ops.run("timeline", {"slug": "notes/empty"}, brain=brain)] == ["2025-02-03"]


def test_compiled_truth_keeps_frontmatter_and_timeline(brain):
    put(brain, slug="notes/weird", content=WEIRD_FM)
    put(brain, slug="notes/weird", compiled_truth="# Weird\n\nNew state — with ü.\n")
    new = text(brain, "notes/weird")
    fm_end = WEIRD_FM.index("---\n# Weird") + 4
    assert new == WEIRD_FM[:fm_end] + "# Weird\n\nNew state — with ü.\n\n---\n\n- **2025-01-02** | call — Talked.\n"


def test_compiled_truth_with_a_rule_line_is_refused(brain):
    put(brain, slug="notes/weird", content=WEIRD_FM)
    with pytest.raises(BadInput, match="---"):
        put(brain, slug="notes/weird", compiled_truth="# Weird\n\nabove\n\n---\n\nbelow\n")
    assert text(brain, "notes/weird") == WEIRD_FM


def test_compiled_truth_rule_inside_fenced_code_is_fine(brain):
    put(brain, slug="notes/weird", content=WEIRD_FM)
    put(brain, slug="notes/weird", compiled_truth="# Weird\n\n```\n---\n```\n")
    page = parse_page(text(brain, "notes/weird"))
    assert page.compiled_truth == "# Weird\n\n```\n---\n```\n\n"
    assert page.timeline == "\n- **2025-01-02** | call — Talked.\n"


def test_all_three_parts_at_once(brain):
    put(brain, slug="notes/weird", content=WEIRD_FM)
    put(brain, slug="weird", compiled_truth="# W\n", timeline_append="- **2025-01-03** | call — Again.", frontmatter={"status": "x"})
    page = parse_page(text(brain, "notes/weird"))
    assert page.compiled_truth == "# W\n\n"
    assert [e.date for e in page.timeline_entries] == ["2025-01-03", "2025-01-02"]  # newest first (the spec)
    assert page.frontmatter["status"] == "x" and 'title:   "Weird  Spacing"   # a comment\n' in page.frontmatter_raw


@pytest.mark.engine_free
def test_frontmatter_edits_on_real_corpora_touch_only_named_keys():
    """On real vaults, setting one key and removing another changes exactly those key blocks."""
    from conftest import CORPORA

    from gbrain.page.fmsplice import key_blocks
    from gbrain.page.markdown import edit_frontmatter, split_lines

    dirs = [CORPORA / "gbrain-style", CORPORA / "obsidian-hub"]
    if not all(d.exists() for d in dirs):
        pytest.skip("../shared/corpora not available")
    checked = 0
    for path in sorted(p for d in dirs for p in d.rglob("*.md"))[:600]:
        page = parse_page(path.read_text(encoding="utf-8", errors="replace"), path.name)
        keys = [k for k in page.frontmatter if isinstance(k, str)]
        if not page.frontmatter_raw or page.frontmatter_error or len(keys) < 2:
            continue
        change, drop = keys[len(keys) // 2], keys[0]
        new = parse_page(edit_frontmatter(page, {change: "new value", drop: None, "zz_added": 1}), path.name)
        old_body = split_lines(page.frontmatter_raw)[1:-1]
        blocks = key_blocks(old_body)
        gone = {i for k in (change, drop) for i in range(*blocks[k])}
        kept = [ln for i, ln in enumerate(old_body) if i not in gone]
        new_body = split_lines(new.frontmatter_raw)[1:-1]
        assert [ln for ln in new_body if ln in kept] == kept, path
        assert len(new_body) == len(kept) + 2, path
        assert new.frontmatter[change] == "new value" and drop not in new.frontmatter and new.frontmatter["zz_added"] == 1
        assert new.body == page.body
        checked += 1
    assert checked > 50


@pytest.mark.engine_free
def test_an_empty_put_never_wipes_a_page(tmp_path):
    """``gbrain put x < /dev/null`` (a script whose stdin was closed by mistake) must not empty a
    page: an empty or blank text over a page that has text is refused, on the CLI and over the
    registry alike, and the page is unchanged. A new page may still be created empty."""
    from conftest import gbrain

    db = tmp_path / "brain.db"
    with Brain.open(db) as b:
        b.put("notes/keep", "# Keep\n\nText that must stay.\n")
        with pytest.raises(BadInput, match="empty"):
            ops.run("put", {"slug": "notes/keep", "content": ""}, brain=b)
        with pytest.raises(BadInput, match="empty"):
            ops.run("put", {"slug": "notes/keep", "content": " \n\n"}, brain=b)
        assert b.get_text("notes/keep") == "# Keep\n\nText that must stay.\n"
        ops.run("put", {"slug": "notes/blank", "content": ""}, brain=b)  # a new empty page is fine
        assert b.get_text("notes/blank") == ""
    r = gbrain("--db", str(db), "put", "notes/keep", input=b"")
    assert r.returncode == 2 and b"empty" in r.stderr, r.stderr
    with Brain.open(db) as b:
        assert b.get_text("notes/keep") == "# Keep\n\nText that must stay.\n"
    # a new page from an empty input is made (an empty note is a page), but said (trial 32: `gbrain
    # put notes/x` from cron, whose stdin is /dev/null, made an empty page without a word)
    r = gbrain("--db", str(db), "put", "notes/fresh", input=b"")
    assert r.returncode == 0 and b"warning: notes/fresh: created as an empty page: the text given was empty" in r.stderr, r.stderr
    r = gbrain("--db", str(db), "call", "brain_put", '{"slug": "notes/fresh2", "content": ""}')
    assert r.returncode == 0 and "an empty page" in json.loads(r.stdout)["warnings"][0], r.stdout
    r = gbrain("--db", str(db), "put", "notes/fresh3", input=b"# Fresh\n")
    assert r.returncode == 0 and r.stderr == b"", r.stderr


def test_timeline_append_refuses_lines_that_are_not_timeline_entries(brain):
    """`put --timeline-append "not a timeline line"` wrote the text below the page's `---` as if
    it were an entry (new-user trial). An unindented line must be an entry; a detail line goes
    indented under one; nothing is written on a refusal."""
    put(brain, slug="notes/t", content="# T\n")
    with pytest.raises(BadInput, match="not a timeline line"):
        put(brain, slug="notes/t", timeline_append="not a timeline line")
    with pytest.raises(BadInput, match="not a timeline line"):
        put(brain, slug="notes/t", timeline_append="- **2025-01-01** | ok\nstray text")
    assert text(brain, "notes/t") == "# T\n"
    put(brain, slug="notes/t", timeline_append="- **2025-01-01** | call — ok\n  detail line\n\n- **2024-12-01** | older")
    assert [e.date for e in brain.parsed(brain.page_row("notes/t")).timeline_entries] == ["2025-01-01", "2024-12-01"]


def test_put_refuses_piped_text_beside_content(db_path):
    """``echo body | gbrain put x --content X``: two page texts; exit 2 and nothing written (was:
    stdin silently ignored). A stdin with nothing on it (closed, or a pipe nobody writes to and
    nobody closes) is no second text: --content is used and the command does not wait."""
    import subprocess
    import sys

    from conftest import gbrain

    r = gbrain("put", "people/x", "--content", "# X\n", input="# from stdin\n")
    assert r.returncode == 2 and b"standard input" in r.stderr and b"--content" in r.stderr, r.stderr
    g = gbrain("get", "people/x")  # nothing written: no page, or not even a brain (exit 2 then)
    assert (g.returncode, b"no brain" in g.stderr or b"no page" in g.stderr) in ((1, True), (2, True)), g.stderr
    assert gbrain("put", "people/x", "--content", "# X\n", input="").returncode == 0
    # an inherited stdin that never closes: no data ready, no wait
    p = subprocess.Popen([sys.executable, "-m", "gbrain", "put", "people/y", "--content", "# Y\n"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert p.wait(timeout=120) == 0, p.stderr.read()  # stdin still open: it did not wait for it
    finally:
        p.stdin.close()
        p.stdout.close()
        p.stderr.close()
    assert gbrain("get", "people/y").stdout == b"# Y\n"


@pytest.mark.engine_free
@pytest.mark.parametrize("writer", ["timeline_add", "put"])
def test_an_entry_already_under_the_pages_own_timeline_heading_is_not_added_twice(tmp_path, writer):
    """A page with no `---` keeps its timeline under `## Timeline`. `timeline-add` and
    `put --timeline-append` use one rule: an entry with the same date, source and summary that
    is already under that heading is not added again (a retried agent call), and the page stays
    byte-exact; a new entry lands under the heading."""
    from gbrain.core.brain import Brain
    from gbrain import operations as ops

    text = "# Ana\n\nWorks at River.\n\n## Timeline\n\n- **2025-01-02** | call — Met Ana\n"
    db = tmp_path / "b.db"
    with Brain.open(db, create=True) as b:
        b.put("people/ana", text)

        def add(date, summary):
            if writer == "timeline_add":
                return b.timeline_add("people/ana", date, summary, "call").as_dict()
            return ops.run("put", {"slug": "people/ana", "timeline_append": f"- **{date}** | call — {summary}"}, brain=b)

        again = add("2025-01-02", "Met Ana")
        assert again["changed"] is False and "already has" in again["note"]
        assert b.get_text("people/ana") == text
        new = add("2025-01-03", "Sent terms")
        assert new["changed"] is True
        after = b.get_text("people/ana")
        assert after.count("Met Ana") == 1 and after.index("## Timeline") < after.index("Sent terms")


def test_put_if_hash_never_overwrites_a_save_made_after_the_read(tmp_path, db_path):
    """Optimistic concurrency for people and agents sharing a brain (two new-user trials lost an
    edit this way: a vim save synced by `watch` between an agent's get and its put). `get`
    gives the page's content_hash; `put --if-hash H` writes only while the page is still H,
    else fails with a conflict (exit 1) and writes nothing; an empty --if-hash only creates.
    The same through every surface (the registry generates them): the CLI reads the page from
    standard input with --if-hash, and an agent gets the message in tool words."""
    import hashlib
    import json

    from conftest import gbrain_in_process

    cli = gbrain_in_process  # in-process: about what put --if-hash writes and says, not the process
    from gbrain.errors import Conflict
    from gbrain.sync.engine import SyncEngine

    root = tmp_path / "v"
    (root / "people").mkdir(parents=True)
    (root / "people" / "gus.md").write_text("# Gus\n\nbeta\n")
    with Brain.open(db_path, create=True) as b:
        eng = SyncEngine(b, root)
        eng.bind()
        assert eng.sync()["ok"]
        got = ops.run("get", {"slug": "gus"}, brain=b)
        assert got["content_hash"] == hashlib.sha256(got["content"].encode()).hexdigest()
        # the person saves in the folder; the sync imports it
        (root / "people" / "gus.md").write_text("# Gus\n\nbeta\n- important-user-line-42\n")
        assert eng.sync()["counts"]["imported"] == 1
        eng.close()
        agent = ops.Context(db=str(db_path), surface="mcp")
        with pytest.raises(Conflict, match="changed since it was read") as e:
            ops.run("put", {"slug": "gus", "content": got["content"].replace("beta", "gamma"), "if_hash": got["content_hash"]}, agent, brain=b)
        assert "brain_get" in str(e.value) and "gbrain" not in str(e.value)
        with pytest.raises(Conflict):  # a partial update too
            ops.run("put", {"slug": "gus", "timeline_append": "- **2025-01-01** | x", "if_hash": got["content_hash"]}, agent, brain=b)
        assert "important-user-line-42" in b.get_text("people/gus") and "gamma" not in b.get_text("people/gus")
        now = ops.run("get", {"slug": "gus"}, brain=b)["content_hash"]
    r = cli("put", "gus", "--if-hash", now, "--db", str(db_path), input="# Gus\n\ngamma\n- important-user-line-42\n")
    assert r.returncode == 0, r.stderr
    r = cli("put", "gus", "--if-hash", now, "--db", str(db_path), input="# Gus\n\nstale\n")
    assert r.returncode == 1 and b"changed since it was read" in r.stderr and b"gbrain get people/gus --json" in r.stderr
    assert json.loads(cli("get", "gus", "--json", "--db", str(db_path)).stdout)["content"] == "# Gus\n\ngamma\n- important-user-line-42\n"
    r = cli("put", "people/new", "--if-hash", "", "--db", str(db_path), input="# New\n")
    assert r.returncode == 0, r.stderr
    r = cli("put", "people/new", "--if-hash", "", "--db", str(db_path), input="# New again\n")
    assert r.returncode == 1 and b"exists already" in r.stderr


def test_file_beside_content_is_two_texts_too(db_path, tmp_path):
    """``gbrain put x --file page.md --content hi`` wrote 'hi' and dropped the file without a
    word (only standard input beside --content was refused): exit 2, nothing written."""
    from conftest import gbrain_in_process

    cli = gbrain_in_process  # in-process: about the options, not the process (stdin is test_put_refuses_piped_text_beside_content's)

    f = tmp_path / "page.md"
    f.write_text("# from the file\n")
    r = cli("put", "notes/x", "--file", str(f), "--content", "hi\n")
    assert r.returncode == 2 and b"--file" in r.stderr and b"--content" in r.stderr, r.stderr
    g = cli("get", "notes/x")
    assert g.returncode in (1, 2) and g.stdout == b""
    assert cli("put", "notes/x", "--file", str(f)).returncode == 0
    assert cli("get", "notes/x").stdout == b"# from the file\n"


def test_whole_text_beside_a_part_names_the_options_on_the_command_line(db_path, tmp_path):
    """`gbrain put x --file page.md --compiled-truth hi` said "give either content or
    compiled_truth/timeline_append/frontmatter, not both": the tool's names, not the options typed."""
    from conftest import gbrain_in_process

    cli = gbrain_in_process  # in-process: about the message, not the process

    f = tmp_path / "page.md"
    f.write_text("# from the file\n")
    r = cli("put", "notes/x", "--file", str(f), "--compiled-truth", "hi\n")
    assert r.returncode == 2 and b"--compiled-truth" in r.stderr and b"--content" in r.stderr and b"compiled_truth" not in r.stderr, r.stderr
    r = cli("call", "brain_put", '{"slug": "notes/x", "content": "a", "compiled_truth": "b"}')
    assert r.returncode == 2 and "content or compiled_truth" in r.stdout.decode()


def test_frontmatter_that_is_not_a_mapping_says_it_must_be_one(db_path):
    """Trial: `put X --frontmatter '[1]'` said "--frontmatter must be object, got list" (Python's
    names), and `--frontmatter null` was taken as no option at all (then the empty standard input
    was refused as an empty page). Each says the frontmatter must be a mapping of keys to values,
    exit 2, nothing written; so does the MCP tool."""
    import json

    from conftest import gbrain_in_process

    cli = gbrain_in_process  # in-process: about the message and the page, not the process

    db = str(db_path)
    assert cli("--db", db, "put", "people/x", "--content", "---\nrole: x\n---\n# X\n").returncode == 0
    for given, kind in (("[1]", "an array"), ('"a string"', "a string"), ("42", "a number"), ("null", "null")):
        r = cli("--db", db, "put", "people/x", "--frontmatter", given, input="")
        assert r.returncode == 2, (given, r.stderr)
        assert r.stderr.decode() == ('error: --frontmatter must be a mapping of keys to values (a JSON object: {"key": value, …}), '
                                     f"got {kind}\n"), r.stderr
    assert cli("--db", db, "get", "people/x").stdout == b"---\nrole: x\n---\n# X\n"
    r = cli("--db", db, "call", "brain_put", json.dumps({"slug": "people/x", "frontmatter": [1]}))
    assert r.returncode == 2 and json.loads(r.stdout)["error"] == (
        "brain_put: parameter 'frontmatter' must be a mapping of keys to values (a JSON object: {\"key\": value, …}), got an array"), r.stdout


HEADING_STYLE = """---
type: person
title: Alice Example
---

# Alice Example

CEO at [[companies/cobalt-platform]].

## Timeline

- 2024-06-05 joined [[companies/cobalt-platform]]
- 2026-01-26 promoted to CEO
"""


def test_compiled_truth_put_that_drops_a_timeline_heading_section_warns(brain):
    """Trial 33: a gbrain-style page keeps its history under `## Timeline` with no `---` above it,
    so all of it is compiled truth; an agent following the ingest skill (rewrite the compiled
    truth, then add the timeline entry) replaced it and the dated lines left the page without a
    word. The put still writes (the agent may mean it), and says what went and how to get it back."""
    put(brain, slug="people/alice", content=HEADING_STYLE)
    out = ops.run("put", {"slug": "people/alice", "compiled_truth": "# Alice Example\n\n> CEO of Cobalt Platform.\n"},
                  ops.Context(surface="mcp"), brain=brain)
    assert out["changed"]
    warn = " ".join(out.get("warnings", []))
    assert "## Timeline" in warn and "2 dated lines" in warn, out
    assert "brain_timeline_add" in warn and "brain_revert" in warn and "gbrain " not in warn, warn
    # keeping the section, or a page whose compiled truth has none, says nothing
    put(brain, slug="people/bob", content=HEADING_STYLE.replace("Alice", "Bob"))
    kept = ops.run("put", {"slug": "people/bob", "compiled_truth": "# Bob Example\n\n> New summary.\n\n## Timeline\n\n"
                           "- 2024-06-05 joined [[companies/cobalt-platform]]\n- 2026-01-26 promoted to CEO\n"}, ops.Context(surface="mcp"), brain=brain)
    assert not kept.get("warnings"), kept
    plain = put(brain, slug="notes/weird", content=WEIRD_FM)
    again = put(brain, slug="notes/weird", compiled_truth="# Weird\n\nOther state.\n")
    assert plain["created"] and not again.get("warnings"), again


def test_a_partial_put_is_recorded_as_the_part_it_wrote_in_history_and_diff(db_path):
    """A put of part of a page (compiled_truth / timeline_append / frontmatter) is recorded with
    its own operation, `put timeline_append` …, not as a whole `put`: `history` (CLI text and
    MCP/--json), `diff`'s headers and `changes` say what happened; `changes --origin put` still
    lists every put."""
    from conftest import gbrain

    from gbrain.core import history as h

    db = str(db_path)
    with Brain.open(db_path) as b:
        run = lambda surface, **a: ops.run("put", a, ops.Context(surface=surface), brain=b)  # noqa: E731
        run("cli", slug="people/ana", content=WEIRD_FM)
        run("mcp", slug="people/ana", compiled_truth="# Weird\n\nNew state.\n")
        run("call", slug="people/ana", timeline_append="- **2025-02-03** | mail — Wrote.")
        run("pipe", slug="people/ana", frontmatter={"status": "warm"})
        run("mcp", slug="people/ana", frontmatter={"status": "cold"}, timeline_append="- **2025-02-04** | call — Called.")
        vs = h.versions(b, "people/ana", limit=0)["versions"]
        assert [v["operation"] for v in reversed(vs)] == ["put", "put compiled_truth", "put timeline_append", "put frontmatter",
                                                          "put timeline_append+frontmatter"], vs
        assert [v["origin"] for v in reversed(vs)][1:3] == ["mcp put compiled_truth", "call put timeline_append"], vs
        assert {c["version"] for c in h.changes(b, origin="put", limit=0) if c["name"] == "people/ana"} == {1, 2, 3, 4, 5}
        assert [c["version"] for c in h.changes(b, origin="put frontmatter", limit=0)] == [4]
        assert not [c for c in h.changes(b, exclude_origin="put", limit=0) if c["name"] == "people/ana"]
    r = gbrain("--db", db, "history", "people/ana")
    assert r.returncode == 0, r.stderr
    assert "call put timeline_append" in r.stdout.decode() and "mcp put compiled_truth" in r.stdout.decode(), r.stdout
    r = gbrain("--db", db, "diff", "people/ana", "2", "3")
    assert r.returncode == 0, r.stderr
    head = r.stdout.decode().splitlines()[:2]
    assert head[0].startswith("--- people/ana@v2\t") and " mcp put compiled_truth by " in head[0], head
    assert head[1].startswith("+++ people/ana@v3\t") and " call put timeline_append by " in head[1], head
