"""Every write of a page answers with the page's new ``content_hash`` (trial 40: an agent's
brain_timeline_add before an ``if_hash`` put changed the page, the put was refused, and the
timeline_add's answer gave no hash to chain with: one more brain_get), and a put the caller
cancelled leaves the session's memory of what it read as it was."""
from __future__ import annotations

import threading

import anyio
import pytest

from test_mcp import connect, ok, text_of

from gbrain import operations as ops
from gbrain.core.brain import Brain
from gbrain.storage.origin import origin

ANA = "people/ana-lima"


def _hash(db, slug: str) -> str:
    with Brain.open(db) as b:
        return b.page_row(slug)["content_hash"]


def test_each_page_write_answers_with_the_new_content_hash_to_put_with(fixture_db):
    async def main():
        async with connect(fixture_db) as c:
            tools = {t.name: t for t in (await c.list_tools()).tools}
            read = ok(await c.call_tool("brain_get", {"slug": ANA}))
            added = ok(await c.call_tool("brain_timeline_add", {"slug": ANA, "date": "2026-12-04", "source": "call", "summary": "Talked terms"}))
            stale = await c.call_tool("brain_put", {"slug": ANA, "if_hash": read["content_hash"], "frontmatter": {"status": "active"}})
            put = ok(await c.call_tool("brain_put", {"slug": ANA, "if_hash": added["content_hash"], "frontmatter": {"status": "active"}}))
            answers = [put]
            for name, args in (("brain_tag", {"slug": ANA, "tag": "hash-test"}), ("brain_tag", {"slug": ANA, "tag": "hash-test"}),
                               ("brain_untag", {"slug": ANA, "tag": "hash-test"}),
                               ("brain_link", {"from": ANA, "to": "concepts/hybrid-retrieval"}),
                               ("brain_unlink", {"from": ANA, "to": "concepts/hybrid-retrieval"}),
                               ("brain_timeline_add", {"slug": ANA, "date": "2026-12-04", "source": "call", "summary": "Talked terms"})):
                answers.append(ok(await c.call_tool(name, args)))
                assert answers[-1]["content_hash"] == answers[-2]["content_hash"] or answers[-1]["changed"], (name, answers[-1])
            whole = ok(await c.call_tool("brain_put", {"slug": ANA, "if_hash": answers[-1]["content_hash"], "content": "# Ana Lima\n\nRewritten.\n"}))
            return tools, read, added, stale, answers, whole

    tools, read, added, stale, answers, whole = anyio.run(main)
    assert added["changed"] and added["content_hash"] != read["content_hash"], added
    assert stale.is_error and stale.structured_content["kind"] == "conflict", text_of(stale)
    assert answers[0]["changed"] and answers[0]["content_hash"] != added["content_hash"]
    assert [a["changed"] for a in answers[1:]] == [True, False, True, True, True, False], answers  # a tag again, an entry again: unchanged, same hash
    assert whole["changed"] and whole["content_hash"] == _hash(fixture_db, ANA)
    for name in ("brain_put", "brain_tag", "brain_untag", "brain_link", "brain_unlink", "brain_timeline_add"):
        assert "content_hash" in tools[name].output_schema["anyOf"][0]["properties"], name


def test_a_cancelled_put_is_no_read_of_the_page(db_path):
    """A session read a page whole; its put was cancelled before the commit (nothing written),
    yet the session remembered the put's text as its read of the page, so its next whole put,
    after a teammate's save, was a plain put (the teammate's line went, with only a warning)
    instead of the three-way merge from what the session read."""
    start = "# Plan\n\n- ship on Friday\n- write the notes\n- tell support\n"
    with Brain.open(db_path, create=True) as b:
        b.put("notes/plan", start)
    reads: dict = {}
    cancel = threading.Event()
    ctx = ops.Context(db=str(db_path), surface="pipe", reads=reads, cancel=cancel)
    with Brain.open(db_path) as b:
        got = ops.run("get", {"slug": "notes/plan", "max_chars": 0}, ctx, brain=b)
        before = dict(reads)
        cancel.set()
        with pytest.raises(ops.Cancelled):
            ops.run("put", {"slug": "notes/plan", "content": start + "- a line never written\n"}, ctx, brain=b)
        cancel.clear()
        assert reads == before and b.page_row("notes/plan")["content_hash"] == got["content_hash"], reads
        with origin(surface="cli", operation="put", user="bob"):
            b.put("notes/plan", start.replace("- tell support\n", "- tell support\n- bob: test the installer\n"))
        mine = ops.run("put", {"slug": "notes/plan", "content": start.replace("# Plan\n", "# Plan (v2)\n")}, ctx, brain=b)
        text = b.get_text("notes/plan")
    assert mine.get("merged") is True, mine
    assert "# Plan (v2)" in text and "bob: test the installer" in text, text


def test_revert_and_ingest_answer_with_the_pages_content_hash_too(fixture_db):
    ctx = ops.Context(db=str(fixture_db), surface="call")
    with Brain.open(fixture_db) as b:
        ops.run("put", {"slug": "notes/rev", "content": "# One\n"}, ctx, brain=b)
        ops.run("put", {"slug": "notes/rev", "content": "# Two\n"}, ctx, brain=b)
        back = ops.run("revert", {"slug": "notes/rev", "to": 1}, ctx, brain=b)
        assert back["changed"] and back["content_hash"] == b.page_row("notes/rev")["content_hash"], back
        again = ops.run("put", {"slug": "notes/rev", "if_hash": back["content_hash"], "compiled_truth": "# Three\n"}, ctx, brain=b)
        assert again["changed"], again
        src = {"content": "# Call with Ana\n\nNotes.\n", "source_type": "meeting", "source_ref": "call-42"}
        first, same = (ops.run("ingest", dict(src), ctx, brain=b) for _ in range(2))
        assert first["changed"] and not same["changed"], (first, same)
        assert first["content_hash"] == same["content_hash"] == b.page_row(first["slug"])["content_hash"], (first, same)


def test_restore_answers_with_each_restored_pages_content_hash(db_path):
    """`restore` (one page, or `--all`) answered no `content_hash`, where every other page write
    does: an agent restoring pages had to read each again before an `if_hash` put. One page's
    restore gives its `content_hash`; `--all` gives `content_hashes`, slug → hash, per page (a
    file restored has none)."""
    import json

    from conftest import gbrain

    db = str(db_path)
    for slug in ("notes/one", "notes/two", "notes/three"):
        assert gbrain("--db", db, "put", slug, input=f"# {slug}\n").returncode == 0
        assert gbrain("--db", db, "delete", slug).returncode == 0
    r = gbrain("--db", db, "restore", "notes/one", "--json")
    one = json.loads(r.stdout)
    assert r.returncode == 0 and one["content_hash"] == _hash(db_path, "notes/one"), (one, r.stderr)
    r = gbrain("--db", db, "restore", "--all", "--json")
    every = json.loads(r.stdout)
    assert r.returncode == 0 and sorted(every["restored_all"]) == ["notes/three.md", "notes/two.md"], (every, r.stderr)
    assert every["content_hashes"] == {s: _hash(db_path, s) for s in ("notes/two", "notes/three")}, every
    r = gbrain("--db", db, "put", "notes/two", "--if-hash", every["content_hashes"]["notes/two"], input="# two, edited\n")
    assert r.returncode == 0, r.stderr
    props = ops.REGISTRY["restore"].output["properties"]
    assert "content_hash" in props and "content_hashes" in props, props
