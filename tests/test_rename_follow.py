"""A page's old name after a rename in the synced folder (a trial on an Obsidian vault): `put`
to the old name writes the renamed page (with a note saying so), as it did under plain `sync`
when the put came before the sync that saw the rename, and `get` of the old name says where the
page went. Both engines (``db_path``); under a real `gbrain watch` too.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from gbrain.core.brain import Brain
from gbrain.errors import BadInput, NotFound
from gbrain.operations import registry as ops
from gbrain.sync.engine import SyncEngine
from test_watch import brain, stop_ok, wait_for, watch  # noqa: F401 (fixtures)


def renamed_vault(root: Path, db_path) -> None:
    """T/ref20.md synced, renamed on disk to T/ref20-new.md, synced again (a `move` in the history)."""
    (root / "T").mkdir(parents=True)
    (root / "T" / "ref20.md").write_text("# Ref 20\n\nbody\n", encoding="utf-8")
    (root / "T" / "other.md").write_text("see [[ref20]]\n", encoding="utf-8")
    with Brain.open(db_path, create=True) as b:
        eng = SyncEngine(b, root)
        eng.bind()
        assert eng.sync()["ok"]
        os.rename(root / "T" / "ref20.md", root / "T" / "ref20-new.md")
        assert eng.sync()["moved"] == [{"from": "T/ref20.md", "to": "T/ref20-new.md"}]
        eng.close()


def test_put_to_the_old_name_of_a_renamed_page_writes_the_renamed_page(tmp_path, db_path):
    renamed_vault(tmp_path / "v", db_path)
    with Brain.open(db_path) as b:
        pid = b.page_row("T/ref20-new")["id"]
        r = ops.run("put", {"slug": "T/ref20", "content": "x\n"}, brain=b)
        assert r["slug"] == "T/ref20-new" and not r["created"]
        assert "T/ref20 was renamed to T/ref20-new on " in r["note"]
        assert b.page_row("T/ref20") is None and b.page_row("T/ref20-new")["id"] == pid
        assert b.get_text("T/ref20-new") == "x\n"
        # a partial put follows it too
        r = ops.run("put", {"slug": "T/ref20", "compiled_truth": "y\n"}, brain=b)
        assert r["slug"] == "T/ref20-new" and b.get_text("T/ref20-new") == "y\n"
        # --if-hash '' (only a new page) makes a new page at the old name
        r = ops.run("put", {"slug": "T/ref20", "content": "new at the old name\n", "if_hash": ""}, brain=b)
        assert r["slug"] == "T/ref20" and r["created"]
        assert b.page_row("T/ref20")["id"] != pid
        # once a page has the name again, put writes that page
        r = ops.run("put", {"slug": "T/ref20", "content": "again\n"}, brain=b)
        assert r["slug"] == "T/ref20" and not r.get("note")


def test_put_to_the_old_name_of_a_page_renamed_in_case_only_writes_the_renamed_page(tmp_path, db_path):
    """Trial 68: Obsidian renamed ``T/Ref20.md`` to ``T/ref20.md`` (case only: a move under sync
    and watch) and an agent that knew the old name put to it: refused, "differs only in case
    from the page T/ref20 … put does not create a name beside one", while ``tag`` and ``get`` of
    the old name followed the rename as the README says every write does. The put follows it
    too; a name that differs only in case and was never the page's (``T/REF20``) is still
    refused (a put of ``schema`` once replaced a vault's ``SCHEMA.md``), and so is ``if_hash ''``
    (a new page beside it would clash on macOS and Windows)."""
    root = tmp_path / "v"
    (root / "T").mkdir(parents=True)
    (root / "T" / "Ref20.md").write_text("# Ref 20\n\nbody\n", encoding="utf-8")
    with Brain.open(db_path, create=True) as b:
        eng = SyncEngine(b, root)
        eng.bind()
        assert eng.sync()["ok"]
        os.rename(root / "T" / "Ref20.md", root / "T" / "ref20.md")
        assert eng.sync()["moved"] == [{"from": "T/Ref20.md", "to": "T/ref20.md"}]
        eng.close()
        pid = b.page_row("T/ref20")["id"]
        r = ops.run("put", {"slug": "T/Ref20", "append": "the agent's line"}, brain=b)
        assert r["slug"] == "T/ref20" and not r["created"] and "T/Ref20 was renamed to T/ref20 on " in r["note"]
        assert "if_hash" not in r["note"], r["note"]  # (no new page beside it: refused below)
        assert b.get_text("T/ref20").endswith("the agent's line\n") and b.page_row("T/ref20")["id"] == pid
        r = ops.run("put", {"slug": "T/Ref20", "content": "# Ref 20\n\nwhole\n"}, brain=b)
        assert r["slug"] == "T/ref20" and b.get_text("T/ref20") == "# Ref 20\n\nwhole\n"
        for bad in ({"slug": "T/REF20", "append": "x"}, {"slug": "T/Ref20", "content": "x\n", "if_hash": ""}):
            with pytest.raises(BadInput, match="differs only in case"):
                ops.run("put", bad, brain=b)
        assert [r["slug"] for r in b.conn.execute("SELECT slug FROM pages")] == ["T/ref20"]
        # an old name of one page that differs only in case from another page's: which is meant? refused
        (root / "T" / "Abc.md").write_text("abc\n", encoding="utf-8")
        eng = SyncEngine(b, root)
        assert eng.sync()["ok"]
        os.rename(root / "T" / "Abc.md", root / "T" / "zzz.md")
        (root / "T" / "abc.md").write_text("another note\n", encoding="utf-8")
        assert eng.sync()["moved"] == [{"from": "T/Abc.md", "to": "T/zzz.md"}]
        eng.close()
        with pytest.raises(BadInput, match="differs only in case"):
            ops.run("put", {"slug": "T/Abc", "append": "x"}, brain=b)


def test_get_of_the_old_name_says_where_the_page_went(tmp_path, db_path):
    renamed_vault(tmp_path / "v", db_path)
    with Brain.open(db_path) as b:
        # the lookup (Brain.resolve_slug: history's suggestions, a read that cannot follow) says where the page went
        with pytest.raises(NotFound) as e:
            b.resolve_slug("T/ref20")
        assert "T/ref20 was renamed to T/ref20-new on " in str(e.value)
        assert e.value.suggestions[0] == "T/ref20-new"
        # a name never used is still a plain miss
        with pytest.raises(NotFound) as e:
            ops.run("get", {"slug": "T/ref21"}, brain=b)
        assert "renamed" not in str(e.value)


def test_reads_of_the_old_name_of_a_renamed_page_read_the_renamed_page_with_a_note(tmp_path, db_path):
    """The agent trial (trial9): a person renamed people/chen-kim.md during the day; the agent's
    writes to people/chen-kim followed the rename with a note, but brain_get and brain_timeline of
    the same name failed (not_found). The reads that take one page's slug follow it as the writes
    do: the answer is the page under its new name, with the note "OLD was renamed to NEW on …;
    read NEW" (get: in the result, whose slug is NEW; the lists: a warning). get --version of the
    old name stays that name's history; an unknown name is still a miss."""
    renamed_vault(tmp_path / "v", db_path)
    with Brain.open(db_path) as b:
        ops.run("timeline-add", {"slug": "T/ref20-new", "date": "2026-12-01", "summary": "met"}, brain=b)
        ops.run("tag", {"slug": "T/ref20-new", "tag": "t1"}, brain=b)
        ops.run("link", {"from": "T/ref20-new", "to": "T/other"}, brain=b)
        ops.run("link", {"from": "T/other", "to": "T/ref20-new"}, brain=b)
        ops.run("raw-put", {"slug": "T/ref20-new", "source": "s", "data": {"a": 1}}, brain=b)
        new_text = b.get_text("T/ref20-new")
        for surface in ("mcp", "cli"):
            for old in ("T/ref20", "ref20"):
                said: list[str] = []
                ctx = ops.Context(surface=surface, on_warning=said.append)
                r = ops.run("get", {"slug": old}, ctx, brain=b)
                assert r["slug"] == "T/ref20-new" and r["content"] == new_text, r
                assert r["content_hash"] == b.page_row("T/ref20-new")["content_hash"]
                assert "T/ref20 was renamed to T/ref20-new on " in r["note"] and r["note"].endswith("; read T/ref20-new"), r
                for name, args in (("timeline", {}), ("backlinks", {}), ("links", {}), ("tags", {}), ("raw", {})):
                    said.clear()
                    got = ops.run(name, {"slug": old, **args}, ctx, brain=b)
                    assert got == ops.run(name, {"slug": "T/ref20-new", **args}, ctx, brain=b) and got, (name, got)
                    assert any("T/ref20 was renamed to T/ref20-new on " in w and w.endswith("; read T/ref20-new") for w in said), (name, said)
        # nothing renamed: no note
        said = []
        r = ops.run("get", {"slug": "T/ref20-new"}, ops.Context(on_warning=said.append), brain=b)
        assert "note" not in r and not said
        ops.run("timeline", {"slug": "T/other"}, ops.Context(on_warning=said.append), brain=b)
        assert not said
        # the old name's history is still its own: version 1 is the text it had then
        v = ops.run("get", {"slug": "T/ref20", "version": 1}, brain=b)
        assert v["content"] == "# Ref 20\n\nbody\n", v
        # a name never used is still a miss, for every read
        for name in ("get", "timeline", "backlinks", "links", "raw"):
            with pytest.raises(NotFound) as e:
                ops.run(name, {"slug": "T/ref21"}, brain=b)
            assert "renamed" not in str(e.value), name
    # the command line: the page on stdout, the note on stderr
    from conftest import gbrain

    p = gbrain("--db", str(db_path), "get", "T/ref20")
    assert p.returncode == 0 and p.stdout.decode() == new_text, p
    assert b"T/ref20 was renamed to T/ref20-new on " in p.stderr, p
    p = gbrain("--db", str(db_path), "timeline", "T/ref20")
    assert p.returncode == 0 and b"met" in p.stdout and b"was renamed to T/ref20-new" in p.stderr, p


def test_graph_path_and_get_output_of_the_old_name_of_a_renamed_page_read_the_renamed_page(tmp_path, db_path):
    """After 3f47a4f the reads of one page followed a renamed page's old name, but `graph OLD`,
    `path OLD X`/`path X OLD` and `gbrain get OLD --output FILE` still failed "OLD was renamed to
    NEW". They follow it as the other reads do: graph's start and path's two ends are each
    followed with the note "OLD was renamed to NEW on …; read NEW" as a warning, the answer the
    one NEW gives; get --output writes NEW's bytes and says the note on stderr. A name never used
    is still a miss."""
    from conftest import gbrain_in_process

    renamed_vault(tmp_path / "v", db_path)
    with Brain.open(db_path) as b:
        ops.run("link", {"from": "T/other", "to": "T/ref20-new"}, brain=b)  # [[ref20]] dangles since the rename
        ops.run("put", {"slug": "T/third", "content": "see [[T/other]]\n"}, brain=b)
        for surface in ("mcp", "cli"):
            for old in ("T/ref20", "ref20"):
                said: list[str] = []
                ctx = ops.Context(surface=surface, on_warning=said.append)
                got = ops.run("graph", {"slug": old, "depth": 2}, ctx, brain=b)
                assert got == ops.run("graph", {"slug": "T/ref20-new", "depth": 2}, ctx, brain=b), got
                assert got["root"] == "T/ref20-new" and {n["slug"] for n in got["nodes"]} == {"T/ref20-new", "T/other", "T/third"}, got
                assert sum("T/ref20 was renamed to T/ref20-new on " in w and w.endswith("; read T/ref20-new") for w in said) == 1, said
                for args, want in (({"from": old, "to": "T/third"}, {"from": "T/ref20-new", "to": "T/third"}),
                                   ({"from": "T/third", "to": old}, {"from": "T/third", "to": "T/ref20-new"})):
                    said.clear()
                    got = ops.run("path", args, ctx, brain=b)
                    assert got == ops.run("path", want, ctx, brain=b) and got["found"] and got["hops"] == 2, got
                    assert sum("T/ref20 was renamed to T/ref20-new on " in w and w.endswith("; read T/ref20-new") for w in said) == 1, said
        # nothing renamed: no note
        said = []
        ops.run("graph", {"slug": "T/other"}, ops.Context(on_warning=said.append), brain=b)
        ops.run("path", {"from": "T/other", "to": "T/third"}, ops.Context(on_warning=said.append), brain=b)
        assert not said
        # a name never used is still a miss
        for name, args in (("graph", {"slug": "T/ref21"}), ("path", {"from": "T/ref21", "to": "T/third"}), ("path", {"from": "T/third", "to": "T/ref21"})):
            with pytest.raises(NotFound) as e:
                ops.run(name, args, brain=b)
            assert "renamed" not in str(e.value), name
        new_bytes = b.get_text("T/ref20-new").encode("utf-8")
    # the command line: graph and path say the note on stderr; get --output writes NEW's bytes
    p = gbrain_in_process("--db", str(db_path), "graph", "T/ref20")
    assert p.returncode == 0 and p.stdout.startswith(b"T/ref20-new") and b"T/ref20 was renamed to T/ref20-new on " in p.stderr, p
    p = gbrain_in_process("--db", str(db_path), "path", "T/third", "T/ref20")
    assert p.returncode == 0 and b"T/ref20-new" in p.stdout and b"T/ref20 was renamed to T/ref20-new on " in p.stderr, p
    out = tmp_path / "out.md"
    p = gbrain_in_process("--db", str(db_path), "get", "T/ref20", "--output", str(out))
    assert p.returncode == 0 and out.read_bytes() == new_bytes and b"T/ref20-new" in p.stdout, p
    assert b"T/ref20 was renamed to T/ref20-new on " in p.stderr, p
    p = gbrain_in_process("--db", str(db_path), "get", "T/ref21", "--output", str(tmp_path / "none.md"))
    assert p.returncode == 1 and not (tmp_path / "none.md").exists(), p
    # get --version of the old name with --output is still the old name's history
    p = gbrain_in_process("--db", str(db_path), "get", "T/ref20", "--version", "1", "--output", str(tmp_path / "v1.md"))
    assert p.returncode == 0 and (tmp_path / "v1.md").read_bytes() == b"# Ref 20\n\nbody\n", p


def test_under_watch_a_put_to_the_old_name_reaches_the_renamed_file(watch, brain, brain_tree, db_path):
    """The trial: under `watch`, `mv` then `put OLD` made a new page and a new file beside the
    renamed one; now the put writes the renamed page and watch writes its file."""
    from conftest import gbrain

    w = watch()
    pid = brain.page_row("people/ana-lima")["id"]
    old, new = brain_tree / "people" / "ana-lima.md", brain_tree / "people" / "ana-lima-new.md"
    os.rename(old, new)
    wait_for(lambda: brain.page_row("people/ana-lima-new"), "the moved page")
    r = gbrain("--db", str(db_path), "put", "people/ana-lima", input="# Ana Lima\n\nput to the old name\n")
    assert r.returncode == 0, r.stderr
    assert b"people/ana-lima was renamed to people/ana-lima-new on " in r.stdout + r.stderr
    wait_for(lambda: new.read_bytes() == b"# Ana Lima\n\nput to the old name\n", "the put to reach the renamed file")
    assert brain.page_row("people/ana-lima") is None and brain.page_row("people/ana-lima-new")["id"] == pid
    assert not old.exists()
    r = gbrain("--db", str(db_path), "get", "people/ana-lima")  # the read follows it too
    assert r.returncode == 0 and r.stdout == b"# Ana Lima\n\nput to the old name\n" and b"renamed to people/ana-lima-new" in r.stderr
    stop_ok(w)


def test_focused_writes_to_the_old_name_follow_the_renamed_page_as_put_does(tmp_path, db_path):
    """The trial: after a rename, `put OLD` wrote the page under its new name, but `tag OLD t3`
    and `timeline-add OLD …` failed ("no page 'OLD': OLD was renamed to NEW", exit 1). Every
    focused write now follows the page, with put's note."""
    renamed_vault(tmp_path / "v", db_path)
    with Brain.open(db_path) as b:
        pid = b.page_row("T/ref20-new")["id"]
        calls = [
            ("tag", {"slug": "T/ref20", "tag": "t3"}),
            ("timeline-add", {"slug": "T/ref20", "date": "2024-01-02", "summary": "met"}),
            ("link", {"from": "T/ref20", "to": "T/other"}),
            ("link", {"from": "T/other", "to": "T/ref20"}),
            ("unlink", {"from": "T/other", "to": "T/ref20"}),  # (after the dead [[ref20]], as written, below)
            ("raw-put", {"slug": "T/ref20", "source": "s", "data": {"k": 1}}),
            ("untag", {"slug": "T/ref20", "tag": "t3"}),
        ]
        for name, args in calls:
            if name == "unlink":  # a dead link written with the old name goes as written, no following
                r = ops.run(name, args, brain=b)
                assert r["slug"] == "T/other" and not r.get("note") and "[[ref20]]" not in b.get_text("T/other"), r
            r = ops.run(name, args, brain=b)
            assert "T/ref20 was renamed to T/ref20-new on " in r.get("note", ""), (name, r)
            assert r["slug"] in ("T/ref20-new", "T/other") and r["changed"], (name, r)
        assert b.page_row("T/ref20") is None and b.page_row("T/ref20-new")["id"] == pid
        text = b.get_text("T/ref20-new")
        assert "**2024-01-02**" in text and "other" in text and "t3" not in text
        assert b.raw_get("T/ref20-new", "s") == {"s": {"k": 1}}
    from conftest import gbrain

    r = gbrain("--db", str(db_path), "tag", "T/ref20", "t4")  # the CLI: exit 0, the note printed
    assert r.returncode == 0 and r.stdout.decode().startswith("updated T/ref20-new: T/ref20 was renamed to T/ref20-new on "), r


def test_the_short_old_name_of_a_renamed_page_is_followed_as_the_full_one(tmp_path, db_path):
    """The llm-wiki trial: `entities/ollama.md` renamed to `ollama-local.md` under watch; `get
    ollama` (the short name that found the page before the rename) said "no page 'ollama'" and its
    suggestions missed the page; `tag ollama x` failed; only `entities/ollama` was followed. A
    unique suffix of an old name is followed now as the old name is; one two renamed pages share
    is no answer (a plain miss, as before)."""
    renamed_vault(tmp_path / "v", db_path)
    with Brain.open(db_path) as b:
        pid = b.page_row("T/ref20-new")["id"]
        for short in ("ref20", "REF20"):
            with pytest.raises(NotFound) as e:
                b.resolve_slug(short)
            assert "T/ref20 was renamed to T/ref20-new on " in str(e.value)
            assert e.value.suggestions[0] == "T/ref20-new"
            r = ops.run("get", {"slug": short}, brain=b)
            assert r["slug"] == "T/ref20-new" and "T/ref20 was renamed to T/ref20-new on " in r["note"]
        r = ops.run("tag", {"slug": "ref20", "tag": "t5"}, brain=b)
        assert r["slug"] == "T/ref20-new" and "T/ref20 was renamed to T/ref20-new on " in r["note"]
        r = ops.run("put", {"slug": "ref20", "compiled_truth": "z\n"}, brain=b)
        assert r["slug"] == "T/ref20-new" and "was renamed" in r["note"]
        assert b.page_row("ref20") is None and b.page_row("T/ref20-new")["id"] == pid
        # a suffix that is no whole segment is no old name
        with pytest.raises(NotFound) as e:
            ops.run("get", {"slug": "f20"}, brain=b)
        assert "renamed" not in str(e.value)
    # a second page once named .../ref20, renamed too: the short name names neither
    root = tmp_path / "v"
    (root / "U").mkdir()
    (root / "U" / "ref20.md").write_text("# U 20\n\nother body\n", encoding="utf-8")
    with Brain.open(db_path) as b:
        eng = SyncEngine(b, root)
        assert eng.sync()["ok"]
        os.rename(root / "U" / "ref20.md", root / "U" / "ref20-b.md")
        assert eng.sync()["moved"] == [{"from": "U/ref20.md", "to": "U/ref20-b.md"}]
        eng.close()
        with pytest.raises(NotFound) as e:
            ops.run("get", {"slug": "ref20"}, brain=b)
        assert "renamed" not in str(e.value)
        r = ops.run("get", {"slug": "U/ref20"}, brain=b)
        assert r["slug"] == "U/ref20-b" and "U/ref20 was renamed to U/ref20-b on " in r["note"]


def test_lint_of_the_old_name_of_a_renamed_page_lints_the_renamed_page_with_a_note(tmp_path, db_path):
    """The agent trial (trial9): an agent lints "the pages I touched" by the names it wrote them
    under; one was a renamed page's old name, which every write follows with a note, and
    `brain_lint {"slug": [...]}` failed the whole call (not_found). Lint and lint-fix now follow
    the rename as the writes do and say so; a name never used is still an error with near names."""
    renamed_vault(tmp_path / "v", db_path)
    ctx = lambda: ops.Context(db=str(db_path), surface="mcp")  # noqa: E731
    for name in ("lint", "lint-fix"):
        r = ops.run(name, {"slug": ["T/ref20", "T/other"], "check": "dead_links", "dry_run": True} if name == "lint-fix"
                    else {"slug": ["T/ref20", "T/other"], "check": "dead_links"}, ctx())
        assert r["selected"] == 2, (name, r)
        assert "T/ref20 was renamed to T/ref20-new on " in r["note"] and "linted T/ref20-new" in r["note"], (name, r)
        # the dead [[ref20]] in T/other (written with the old name) is in scope, with where it went
        assert [(f["slug"], f.get("moved_to")) for f in r["items"]] == [("T/other", "T/ref20-new")], (name, r)
        # the short old name, as a comma-separated string, is followed too
        r = ops.run(name, {"slug": "ref20,T/other", "check": "dead_links"}, ctx())
        assert r["selected"] == 2 and "was renamed to T/ref20-new" in r["note"], (name, r)
        # nothing renamed: no note
        r = ops.run(name, {"slug": ["T/other"], "check": "dead_links"}, ctx())
        assert not r.get("note"), (name, r)
    # a name no page has or had: the whole call is refused, near names offered
    with pytest.raises(NotFound) as e:
        ops.run("lint", {"slug": ["T/ref20", "T/othr"]}, ctx())
    assert "T/othr" in str(e.value) and "T/other" in e.value.suggestions
    # the text report says it too
    from conftest import gbrain

    p = gbrain("--db", str(db_path), "lint", "--slug", "T/ref20", "--check", "dead_links")
    assert p.returncode in (0, 1) and b"T/ref20 was renamed to T/ref20-new on " in p.stdout + p.stderr, p


def test_pipe_answers_carry_the_rename_note_of_each_read_and_embed_follows_the_old_name(tmp_path, db_path):
    """A script reading several pages by the names it knows (`gbrain pipe`, a request per page):
    the reads of a renamed page's old name follow it, but the note saying so was a warning, and
    pipe dropped every warning (no stderr line either): the answer of `timeline OLD` looked like
    NEW's with nothing said. Each pipe answer now carries its request's warnings (``warnings``,
    beside ``result``), as MCP results and `call`'s stderr do; `get` keeps its ``note`` in the
    result. `embed OLD` (which failed "OLD was renamed to NEW") embeds NEW with the warning, as the
    writes follow a rename."""
    import json

    from conftest import gbrain_in_process

    renamed_vault(tmp_path / "v", db_path)
    with Brain.open(db_path) as b:
        ops.run("timeline-add", {"slug": "T/ref20-new", "date": "2026-12-01", "summary": "met"}, brain=b)
        b.set_config("embedding_model", "fake-8")
    reqs = [{"id": 1, "tool": "brain_timeline", "params": {"slug": "T/ref20"}},
            {"id": 2, "tool": "backlinks", "params": {"slug": "ref20"}},
            {"id": 3, "tool": "graph", "params": {"slug": "T/ref20"}},
            {"id": 4, "tool": "get", "params": {"slug": "T/ref20"}},
            {"id": 5, "tool": "timeline", "params": {"slug": "T/ref20-new"}},
            {"id": 6, "tool": "lint", "params": {"slug": ["T/ref20", "T/other"], "check": "dead_links"}}]
    p = gbrain_in_process("--db", str(db_path), "pipe", input="".join(json.dumps(r) + "\n" for r in reqs))
    assert p.returncode == 0, p
    got = {r["id"]: r for r in map(json.loads, p.stdout.decode().splitlines())}
    assert all(got[i]["ok"] for i in got), got
    for i in (1, 2, 3):
        assert [w for w in got[i].get("warnings", []) if "T/ref20 was renamed to T/ref20-new on " in w and w.endswith("; read T/ref20-new")], got[i]
    assert got[1]["result"][0]["summary"] == "met"
    assert "T/ref20 was renamed to T/ref20-new on " in got[4]["result"]["note"] and "warnings" not in got[4], got[4]
    assert "warnings" not in got[5], got[5]  # nothing renamed: nothing said
    assert "linted T/ref20-new" in got[6]["result"]["note"], got[6]
    # embed of the old name embeds the renamed page, saying so
    said: list[str] = []
    r = ops.run("embed", {"slug": "T/ref20"}, ops.Context(db=str(db_path), on_warning=said.append))
    assert r["embedded"] >= 1 and any("T/ref20 was renamed to T/ref20-new on " in w for w in said), (r, said)
    with Brain.open(db_path) as b:
        pid = b.page_row("T/ref20-new")["id"]
        assert b.conn.execute("SELECT COUNT(*) FROM page_embeddings WHERE page_id = ?", (pid,)).fetchone()[0] >= 1
    with pytest.raises(NotFound):
        ops.run("embed", {"slug": "T/ref21"}, ops.Context(db=str(db_path)))


def test_following_an_old_name_computes_no_near_names(tmp_path, db_path, monkeypatch):
    """Trial 55 (obsidian-hub, 6,571 notes, 25 notes renamed under watch): every read or write of
    an old name cost a did-you-mean scan of every page name (difflib, ~1 s CPU at 6,500 pages)
    before the history said where the page went; behind the MCP server's lock an agent's
    brain_timeline_add to an old name took 3-25 s on an idle brain. The rename is looked up first:
    no near names are computed for a name the history knows (the new name is the suggestion), and
    a write's check for a rename computes none either; a real miss still suggests."""
    renamed_vault(tmp_path / "v", db_path)
    calls: list[str] = []
    real = Brain.suggest

    def counting(self, slug, n=5, **kw):
        calls.append(slug)
        return real(self, slug, n, **kw)

    monkeypatch.setattr(Brain, "suggest", counting)
    with Brain.open(db_path) as b:
        with pytest.raises(NotFound) as e:
            b.resolve_slug("T/ref20")
        assert e.value.suggestions == ["T/ref20-new"] and "T/ref20 was renamed to T/ref20-new on " in str(e.value)
        for name, args in (("get", {}), ("timeline", {}), ("backlinks", {}), ("links", {}), ("tags", {}),
                           ("timeline-add", {"date": "2026-12-05", "summary": "agent entry"}), ("tag", {"tag": "t55"}),
                           ("put", {"append": "more\n"})):
            ops.run(name, {"slug": "T/ref20", **args}, brain=b)
            assert calls == [], (name, calls)
        assert "agent entry" in b.get_text("T/ref20-new") and "more" in b.get_text("T/ref20-new")
        with pytest.raises(NotFound) as e:  # a name no page has or had: near names, as before
            ops.run("get", {"slug": "T/ref20-nex"}, brain=b)
        assert calls and "T/ref20-new" in e.value.suggestions
