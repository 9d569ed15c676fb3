"""A `gbrain serve` session remembers what it read (team trial 34): the agent read a page whole
(brain_get), bob saved a line into it, the agent put its whole edit of what it had read with no
``if_hash``: bob's line left the page. Now that put merges three ways (base: the version the
session read; theirs: the page now; ours: the put), as sync merges a page both sides changed;
edits that clash leave the put's text as the page and the replaced version as a conflict copy.
A put of a page the session never read whole, and a put with ``if_hash``, are as before."""
from __future__ import annotations

import json

import anyio

from conftest import gbrain_in_process as gbrain  # what the commands do, not the process: no process per call (~0.25 CPU-s each)
from test_mcp import connect, ok, text_of

from gbrain.core.brain import Brain
from gbrain.storage.origin import origin

START = "# Release plan\n\n- ship 2.0 on Friday\n- write the notes\n- tell support\n"


def _teammate(db, slug: str, text: str) -> None:
    """bob's save through another connection to the brain."""
    b = Brain.open(str(db))
    try:
        with origin(surface="cli", operation="put", user="bob"):
            b.put(slug, text)
    finally:
        b.close()


def _make(db, slug: str, text: str = START) -> None:
    r = gbrain("--db", str(db), "put", slug, input=text, env={"GBRAIN_USER": "ana"})
    assert r.returncode == 0, r.stderr


def _page(db, slug: str) -> str:
    r = gbrain("--db", str(db), "get", slug)
    assert r.returncode == 0, r.stderr
    return r.stdout.decode()


BOBS = START.replace("- write the notes\n", "- write the notes\n- bob: test the Windows installer first\n")
MINE = START.replace("# Release plan\n", "# Release plan (v2)\n")


def test_a_put_after_a_read_merges_a_teammates_save_and_only_then(db_path):
    for slug in ("notes/merge", "notes/blind", "notes/hashed", "notes/part"):
        _make(db_path, slug)

    async def main():
        async with connect(db_path, env={"GBRAIN_USER": "agent-ana"}) as c:
            got = {}
            for slug in ("notes/merge", "notes/hashed"):
                got[slug] = ok(await c.call_tool("brain_get", {"slug": slug}))
            part = ok(await c.call_tool("brain_get", {"slug": "notes/part", "max_chars": 30}))
            assert part["truncated"] and part["content_hash"].startswith("part:")
            for slug in ("notes/merge", "notes/blind", "notes/hashed", "notes/part"):
                await anyio.to_thread.run_sync(lambda s=slug: _teammate(db_path, s, BOBS))
            merged = ok(await c.call_tool("brain_put", {"slug": "notes/merge", "content": MINE}))
            blind = ok(await c.call_tool("brain_put", {"slug": "notes/blind", "content": MINE}))
            hashed = await c.call_tool("brain_put", {"slug": "notes/hashed", "content": MINE, "if_hash": got["notes/hashed"]["content_hash"]})
            parted = ok(await c.call_tool("brain_put", {"slug": "notes/part", "content": MINE}))
            # the merged put is this session's read now: a second edit merges nothing
            again = ok(await c.call_tool("brain_put", {"slug": "notes/merge", "content": _merged().replace("tell support", "tell support today")}))
            return merged, blind, hashed, parted, again

    merged, blind, hashed, parted, again = anyio.run(main)
    assert merged["merged"] is True and merged["changed"], merged
    assert "bob" in merged["note"] and "test the Windows installer first" in merged["note"], merged
    assert not [w for w in merged["warnings"] if "bob" in w], merged  # nothing of bob's went
    assert "merged" not in again and _page(db_path, "notes/merge") == _merged().replace("tell support", "tell support today")
    # never read in this session: replaced as before (with the overwrite warning)
    assert "merged" not in blind and _page(db_path, "notes/blind") == MINE
    assert [w for w in blind["warnings"] if "bob" in w], blind
    # if_hash keeps its meaning: refused, nothing written
    assert hashed.is_error and hashed.structured_content["kind"] == "conflict" and "changed since it was read" in text_of(hashed), text_of(hashed)
    assert _page(db_path, "notes/hashed") == BOBS
    # a part read is no read of the page
    assert "merged" not in parted and _page(db_path, "notes/part") == MINE


def _merged() -> str:
    return BOBS.replace("# Release plan\n", "# Release plan (v2)\n")


def test_a_put_whose_edit_clashes_with_a_teammates_keeps_theirs_as_a_conflict_copy(db_path):
    _make(db_path, "notes/clash")
    bobs = START.replace("on Friday", "on Thursday")
    mine = START.replace("on Friday", "on Monday")

    async def main():
        async with connect(db_path, env={"GBRAIN_USER": "agent-ana"}) as c:
            ok(await c.call_tool("brain_get", {"slug": "notes/clash", "max_chars": 0}))
            await anyio.to_thread.run_sync(lambda: _teammate(db_path, "notes/clash", bobs))
            return ok(await c.call_tool("brain_put", {"slug": "notes/clash", "content": mine}))

    out = anyio.run(main)
    assert out["merged"] is False and out["conflict_copy"].startswith("notes/clash.conflict-"), out
    said = [w for w in out["warnings"] if w.startswith("conflict:")]
    assert len(said) == 1 and "bob" in said[0] and out["conflict_copy"] in said[0], out
    assert _page(db_path, "notes/clash") == mine
    assert _page(db_path, out["conflict_copy"]) == bobs  # nothing lost
    r = gbrain("--db", str(db_path), "call", "conflicts", "{}")
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    rows = rows["items"] if isinstance(rows, dict) else rows
    row = next(x for x in rows if x["copy_path"] == out["conflict_copy"] + ".md")
    assert row["path"] == "notes/clash.md" and row["copy_by"] == "bob" and row["status"] == "open", row


def test_a_pipe_process_remembers_its_reads_too(db_path):
    """`gbrain pipe` keeps one memory for its requests: read, bob's save, put → merged."""
    import os
    import subprocess
    import sys

    _make(db_path, "notes/piped")
    p = subprocess.Popen([sys.executable, "-m", "gbrain", "--db", str(db_path), "pipe"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         env={**os.environ, "GBRAIN_USER": "agent-ana"})
    try:
        p.stdin.write(b'{"id": 1, "tool": "brain_get", "params": {"slug": "notes/piped"}}\n')
        p.stdin.flush()
        assert json.loads(p.stdout.readline())["ok"]
        _teammate(db_path, "notes/piped", BOBS)
        p.stdin.write((json.dumps({"id": 2, "tool": "brain_put", "params": {"slug": "notes/piped", "content": MINE}}) + "\n").encode())
        p.stdin.close()
        out = json.loads(p.stdout.readline())
    finally:
        p.wait(timeout=120)
    assert out["ok"] and out["result"]["merged"] is True, out
    assert _page(db_path, "notes/piped") == _merged()


def test_a_whole_read_of_the_page_resource_counts_as_the_sessions_read(db_path):
    """resources/read of ``brain://pages/SLUG`` (the page whole: a short page, or ``?max_chars=0``)
    is a read of the page as brain_get's: bob's save after it is merged into the session's blind
    whole put. A part of the page through the resource (``?max_chars=30``) is no read of it."""
    for slug in ("notes/res", "notes/res-whole", "notes/res-part"):
        _make(db_path, slug)

    async def main():
        async with connect(db_path, env={"GBRAIN_USER": "agent-ana"}) as c:
            res = await c.read_resource("brain://pages/notes/res")
            assert res.contents[0].text == START
            await c.read_resource("brain://pages/notes/res-whole?max_chars=0")
            part = await c.read_resource("brain://pages/notes/res-part?max_chars=30")
            assert len(part.contents) == 2 and part.contents[0].text != START  # a part, and the text saying where the rest starts
            for slug in ("notes/res", "notes/res-whole", "notes/res-part"):
                await anyio.to_thread.run_sync(lambda s=slug: _teammate(db_path, s, BOBS))
            return [ok(await c.call_tool("brain_put", {"slug": slug, "content": MINE})) for slug in ("notes/res", "notes/res-whole", "notes/res-part")]

    res, whole, part = anyio.run(main)
    for out, slug in ((res, "notes/res"), (whole, "notes/res-whole")):
        assert out.get("merged") is True and "bob" in out["note"], out
        assert _page(db_path, slug) == _merged()
    assert "merged" not in part and _page(db_path, "notes/res-part") == MINE
    assert [w for w in part["warnings"] if "bob" in w], part

def test_conflicts_says_which_side_is_where_when_one_login_wrote_both(db_path):
    """Trial 38: a consultant's note saved in the folder (watch) and their agent's clashing
    brain_put, both under one login: the put's text is the page and the folder's save the copy,
    but `gbrain conflicts` said "← brain's version in …conflict-….md" (the label of sync's
    both-changed conflict, whose copy is the brain's side). Now it names each side by how it
    was written (``kept_origin``/``copy_origin`` in JSON)."""
    _make(db_path, "notes/one")
    saved = START.replace("on Friday", "on Thursday")

    def folder_save():
        b = Brain.open(str(db_path))
        try:
            with origin(surface="watch", operation="file changed", user="ana"):
                b.put("notes/one", saved)
        finally:
            b.close()

    async def main():
        async with connect(db_path, env={"GBRAIN_USER": "ana"}) as c:
            ok(await c.call_tool("brain_get", {"slug": "notes/one"}))
            await anyio.to_thread.run_sync(folder_save)
            return ok(await c.call_tool("brain_put", {"slug": "notes/one", "content": START.replace("on Friday", "on Monday")}))

    out = anyio.run(main)
    cp = out["conflict_copy"] + ".md"
    assert _page(db_path, out["conflict_copy"]) == saved
    r = gbrain("--db", str(db_path), "conflicts")
    text = r.stdout.decode()
    assert r.returncode == 0 and "brain's version in" not in text, text
    row = json.loads(gbrain("--db", str(db_path), "--json", "conflicts").stdout)[0]
    assert row["kept_origin"].startswith("mcp(") and row["kept_origin"].endswith(" put") and row["copy_origin"] == "watch file changed", row
    assert f"notes/one.md holds {row['kept_origin']}'s version; the folder's version is in {cp}" in text, text


def test_watch_names_the_put_its_save_lost_to_and_counts_it(db_path, tmp_path):
    """Trial 38: under one login watch said "your save conflicted with root@vm's; root@vm's
    version was kept" (the person's own login on both sides) and its summary counted "0
    conflict(s)". Now the line names the side kept by how it was written (the agent's put) and
    the round counts the conflict."""
    from conftest import write_tree
    from gbrain.sync.engine import SyncEngine

    root = write_tree(tmp_path / "vault", {"notes/one.md": START})
    b = Brain.open(str(db_path))
    lines: list[str] = []
    eng = SyncEngine(b, root, log=lines.append)
    eng.surface = "watch"
    try:
        with origin(user="ana"):
            eng.bind()
            eng.sync()

        async def main():
            async with connect(db_path, env={"GBRAIN_USER": "ana"}) as c:
                ok(await c.call_tool("brain_get", {"slug": "notes/one"}))
                (root / "notes/one.md").write_text(START.replace("on Friday", "on Thursday"), encoding="utf-8")
                with origin(user="ana"):
                    await anyio.to_thread.run_sync(eng.sync)
                return ok(await c.call_tool("brain_put", {"slug": "notes/one", "content": START.replace("on Friday", "on Monday")}))

        out = anyio.run(main)
        cp = out["conflict_copy"] + ".md"
        with origin(user="ana"):
            rep = eng.sync()
        said = [ln for ln in lines if "your save conflicted" in ln]
        assert len(said) == 1 and "ana's" not in said[0], lines
        assert said[0].startswith("! notes/one.md: your save conflicted with mcp(") and f"put; that put's version was kept, yours is in {cp}" in said[0], said
        assert rep["counts"]["conflicts"] == 1, rep["counts"]
    finally:
        eng.close()
        b.close()
