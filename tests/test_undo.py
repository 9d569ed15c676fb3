"""`undo`: take back every write since a time by one origin / writer / under a folder (a bulk
change made by a script or an agent), as a dry run first; all or nothing; itself undoable."""
from __future__ import annotations

import json

import pytest

from gbrain import operations as ops
from gbrain.core import history as h
from gbrain.core.brain import Brain
from gbrain.errors import BadInput
from gbrain.storage.origin import identity, origin

from conftest import gbrain_in_process as gbrain  # what the commands do, not the process: no process per call (~0.25 CPU-s each)


def run(b, name, surface="cli", **args):
    return ops.run(name, args, ops.Context(surface=surface), brain=b)


def first_at(b, origin):
    """The time of ``origin``'s first write (``changes`` lists newest first)."""
    return h.changes(b, origin=origin, limit=0)[-1]["at"]


def past_last_change(b):
    """Wait until the clock has left the millisecond of the brain's newest change (the times in
    history are milliseconds, and ``since`` takes its own millisecond in: on a fast machine the
    write just before could share it)."""
    last = h.changes(b, limit=1)[0]["at"]
    while h._now() <= last:
        pass


def setup(b):
    run(b, "put", slug="projects/alpha", content="---\ntitle: Alpha\n---\nAlpha, as written.\n")
    run(b, "put", slug="projects/beta", content="Beta, as written.\n")
    run(b, "put", slug="people/ana", content="Ana, as written.\n")
    run(b, "raw-put", slug="people/ana", source="crm", data={"email": "ana@example.com"})


def script(b):
    """A bad bulk change through MCP: rewrites, a deletion, a new page, a sidecar rewrite."""
    run(b, "put", surface="mcp", slug="projects/alpha", content="---\ntitle: Alpha\n---\nBROKEN\n")
    run(b, "put", surface="mcp", slug="projects/alpha", content="---\ntitle: Alpha\n---\nBROKEN twice\n")
    run(b, "delete", surface="mcp", slug="projects/beta")
    run(b, "put", surface="mcp", slug="projects/junk", content="junk\n")
    run(b, "put", surface="mcp", slug="people/ana", content="Ana, BROKEN.\n")
    run(b, "raw-put", surface="mcp", slug="people/ana", source="crm", data={"email": "wrong@example.com"})


def snapshot(b):
    pages = {r["slug"]: b.get_text(r["slug"]) for r in b.conn.execute("SELECT slug FROM pages")}
    files = {r["path"]: bytes(r["data"]) for r in b.conn.execute("SELECT path, data FROM files")}
    return pages, files


def test_undo_takes_a_bulk_change_back_exactly_and_a_dry_run_writes_nothing(db_path):
    with Brain.open(db_path) as b:
        setup(b)
        before = snapshot(b)
        script(b)
        after = snapshot(b)
        since = first_at(b, "mcp")
        dry = run(b, "undo", since=since, origin="mcp")
        assert dry["applied"] is False and snapshot(b) == after
        actions = {it["name"]: it["action"] for it in dry["plan"]}
        assert actions == {"projects/alpha": "revert", "projects/beta": "restore", "projects/junk": "delete",
                           "people/ana": "revert", "people/.raw/ana.json": "revert"}, actions
        assert {it["name"]: it["writes"] for it in dry["plan"]}["projects/alpha"] == 2
        done = run(b, "undo", since=since, origin="mcp", apply=True)
        assert done["applied"] and done["counts"] == {"revert": 3, "restore": 1, "delete": 1}
        assert snapshot(b) == before  # every page and sidecar byte for byte as before the script
        # the junk page and the bad texts are not lost: the history has them
        assert "junk\n" in {h.get_version(b, "projects/junk", v["version"])["content"] for v in h.versions(b, "projects/junk")["versions"] if v["op"] != "delete"}
        # the undo is undoable
        again = run(b, "undo", since=since, origin="undo", apply=True)
        assert again["counts"] == {"revert": 3, "restore": 1, "delete": 1}
        assert snapshot(b) == after


def test_undo_skips_a_page_someone_else_wrote_since_and_keeps_their_text(db_path):
    with Brain.open(db_path) as b:
        setup(b)
        script(b)
        since = first_at(b, "mcp")
        run(b, "put", surface="cli", slug="projects/alpha", content="---\ntitle: Alpha\n---\nFixed by hand.\n")
        r = run(b, "undo", since=since, origin="mcp", apply=True)
        alpha = next(it for it in r["plan"] if it["name"] == "projects/alpha")
        assert alpha["action"] == "skip" and "another origin" in alpha["reason"] and "cli" in alpha["reason"]
        assert b.get_text("projects/alpha").endswith("Fixed by hand.\n")
        assert b.get_text("projects/beta") == "Beta, as written.\n"  # the rest was undone


def test_undo_says_a_write_by_another_between_the_undone_ones_lies_between_them(db_path):
    """Trial 38: "written again since by another origin (… version 4)" for a version between the
    agent's v3 and v5 read as a write after them all. The reason says where it lies, and names
    a writer, not an origin, when the undo selects by writer."""
    with Brain.open(db_path) as b:
        setup(b)
        past_last_change(b)
        since_first = h._now()
        run(b, "put", surface="mcp", slug="projects/alpha", content="---\ntitle: Alpha\n---\nBROKEN\n")
        run(b, "put", surface="cli", slug="projects/alpha", content="---\ntitle: Alpha\n---\nFixed by hand.\n")
        run(b, "put", surface="mcp", slug="projects/alpha", content="---\ntitle: Alpha\n---\nBROKEN again\n")
        run(b, "put", surface="cli", slug="people/ana", content="Ana, by hand.\n")
        run(b, "put", surface="mcp", slug="people/ana", content="Ana, BROKEN.\n")
        run(b, "put", surface="cli", slug="people/ana", content="Ana, by hand again.\n")
        vs = [v["version"] for v in h.versions(b, "projects/alpha")["versions"]]
        plan = {it["name"]: it for it in run(b, "undo", since=since_first, origin="mcp")["plan"]}
        alpha, ana = plan["projects/alpha"], plan["people/ana"]
        assert alpha["action"] == ana["action"] == "skip", plan
        assert f"in between (cli put, version {sorted(vs)[-2]} " in alpha["reason"] and "another origin" in alpha["reason"], alpha["reason"]
        assert f"between versions {sorted(vs)[-3]} and {sorted(vs)[-1]} of these writes" in alpha["reason"], alpha["reason"]
        assert "since (cli put, version" in ana["reason"] and "in between" not in ana["reason"], ana["reason"]
        with origin(user="bob"):
            run(b, "put", slug="projects/beta", content="Beta, by bob.\n")
        run(b, "put", slug="projects/beta", content="Beta, mine.\n")
        with origin(user="bob"):
            run(b, "put", slug="projects/beta", content="Beta, by bob again.\n")
        beta = next(it for it in run(b, "undo", since=since_first, by=identity())["plan"] if it["name"] == "projects/beta")
        assert beta["action"] == "skip" and "written by another writer since (cli put, version" in beta["reason"], beta


def test_undo_of_a_folder_only_and_of_a_deleted_folder(db_path):
    with Brain.open(db_path) as b:
        setup(b)
        script(b)
        since = first_at(b, "mcp")
        r = run(b, "undo", since=since, prefix="projects/", apply=True)
        assert {it["name"] for it in r["plan"]} == {"projects/alpha", "projects/beta", "projects/junk"}
        assert b.get_text("people/ana") == "Ana, BROKEN.\n"  # outside the folder: untouched
        # a whole folder deleted by mistake comes back with one command
        past_last_change(b)  # (the first undo's own writes are not in it)
        t = None
        for slug in ("projects/alpha", "projects/beta"):
            run(b, "delete", surface="call", slug=slug)
            t = t or h.changes(b, origin="call", limit=1)[0]["at"]
        assert not b.conn.execute("SELECT 1 FROM pages WHERE slug LIKE 'projects/%'").fetchone()
        r = run(b, "undo", since=t, prefix="projects/", apply=True)
        assert r["counts"] == {"restore": 2}
        assert b.get_text("projects/beta") == "Beta, as written.\n"


def test_undo_is_all_or_nothing_when_a_path_is_taken(db_path):
    with Brain.open(db_path) as b:
        run(b, "put", slug="notes/a", content="A\n")
        run(b, "delete", surface="mcp", slug="notes/a")
        run(b, "put", surface="mcp", slug="notes/b", content="B\n")
        since = first_at(b, "mcp")
        # the deleted page's path is taken by a non-page file since: restoring it cannot be done,
        # so deleting notes/b (which could be done) is not done either
        b.save_file("notes/a.md.bak", b"x")
        with b.transaction():
            b.conn.execute("UPDATE files SET path = 'notes/a.md' WHERE path = 'notes/a.md.bak'")
        with pytest.raises(BadInput):
            run(b, "undo", since=since, origin="mcp", apply=True)
        assert b.get_text("notes/b") == "B\n"  # nothing was undone


@pytest.mark.engine_free
def test_undo_needs_since_and_says_so_on_the_cli(tmp_path):
    db = str(tmp_path / "b.db")
    p = gbrain("--db", db, "undo")
    assert p.returncode == 2 and b"since" in p.stderr
    assert gbrain("--db", db, "put", "notes/x", "--content", "x").returncode == 0
    p = gbrain("--db", db, "undo", "--since", "1h", "--json")
    assert p.returncode == 0, p.stderr
    r = json.loads(p.stdout)
    assert r["applied"] is False and [it["action"] for it in r["plan"]] == ["delete"]
    assert gbrain("--db", db, "get", "notes/x").returncode == 0  # a dry run
    p = gbrain("--db", db, "undo", "--since", "1h", "--apply")
    assert p.returncode == 0 and b"undone: delete 1" in p.stdout
    assert gbrain("--db", db, "get", "notes/x").returncode == 1


def test_changes_between_two_times_and_by_day_names(db_path):
    with Brain.open(db_path) as b:
        run(b, "put", slug="notes/a", content="A\n")
        past_last_change(b)  # the two writes in one millisecond: `until` t held neither (failed 1 run in 4)
        run(b, "put", surface="mcp", slug="notes/b", content="B\n")
        t = first_at(b, "mcp")
        names = lambda **a: [c["name"] for c in run(b, "changes", **a)]  # noqa: E731
        assert names(since="2000-01-01", until=t) == ["notes/a"]
        assert names(since=t) == ["notes/b"]
        assert set(names(since="today")) == {"notes/a", "notes/b"}
        assert names(since="yesterday", until="today") == []
        with pytest.raises(BadInput):
            run(b, "changes", since="last tuesday")


def test_get_of_a_deleted_page_says_it_is_in_the_trash(db_path):
    """A trial: after brain_delete, brain_get said only "no page …; did you mean …", and an agent
    following the ingest skill would write the page anew instead of restoring it."""
    from gbrain.errors import NotFound

    with Brain.open(db_path) as b:
        run(b, "put", slug="notes/timing", content="Timing.\n")
        run(b, "delete", slug="notes/timing")
        with pytest.raises(NotFound) as e:
            run(b, "get", surface="mcp", slug="notes/timing")
        assert "is in the trash" in str(e.value) and "brain_restore" in str(e.value)
        with pytest.raises(NotFound) as e:
            run(b, "get", slug="notes/never-was")
        assert "trash" not in str(e.value)


def test_get_of_a_version_gives_its_hash_and_the_current_one_for_if_hash(db_path):
    """A trial: brain_get with `version` had no content_hash, so an agent passing "the content_hash
    you read" as if_hash sent nothing and its put went through unguarded."""
    from gbrain.errors import Conflict

    with Brain.open(db_path) as b:
        run(b, "put", slug="notes/h", content="one\n")
        run(b, "put", slug="notes/h", content="two\n")
        old = run(b, "get", surface="mcp", slug="notes/h", version=1)
        now = run(b, "get", surface="mcp", slug="notes/h")
        assert old["content"] == "one\n" and old["current_hash"] == now["content_hash"] != old["content_hash"]
        with pytest.raises(Conflict):  # the old version's hash is stale: refused, nothing lost
            run(b, "put", surface="mcp", slug="notes/h", content="three\n", if_hash=old["content_hash"])
        run(b, "put", surface="mcp", slug="notes/h", content="three\n", if_hash=old["current_hash"])
        assert b.get_text("notes/h") == "three\n"


def test_undo_text_names_each_planned_action_once(db_path):
    # Trial: the dry run's lines said the action twice ("delete   projects/junk  delete (created
    # since; …)", "revert   projects/alpha  back to version …"); the action column says it once
    with Brain.open(db_path) as b:
        setup(b)
        script(b)
        since = first_at(b, "mcp")
    p = gbrain("--db", str(db_path), "undo", "--since", since, "--origin", "mcp")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.decode().splitlines()
    assert sorted(lines[:-1]) == sorted([
        "revert   projects/alpha  to version 1  (2 writes)",
        "restore  projects/beta  version 1 (deleted since)  (1 write)",
        "delete   projects/junk  (created since; it stays in the trash)  (1 write)",
        "revert   people/ana  to version 1  (1 write)",
        "revert   people/.raw/ana.json  to version 1  (1 write)",
    ]), lines
    assert lines[-1] == "dry run (delete 1, restore 1, revert 3); run again with --apply to do it"
    for line in lines[:-1]:
        action = line.split()[0]
        assert line.split().count(action) == 1, line


def test_a_long_undo_plan_lists_its_first_lines_then_says_how_many_more(db_path):
    """The llm-wiki trial: `undo --since 1h` right after an import printed 1,607 plan lines before
    the one summary line. The text lists the first UNDO_SHOWN, then how many more (`--json`
    lists every one), then the summary; `--json` keeps the whole plan."""
    from gbrain.operations.history import UNDO_SHOWN

    with Brain.open(db_path) as b:
        for i in range(UNDO_SHOWN + 7):
            run(b, "put", slug=f"bulk/p{i:03d}", content=f"page {i}\n")
        since = first_at(b, "cli")
    p = gbrain("--db", str(db_path), "undo", "--since", since)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.decode().splitlines()
    assert len(lines) == UNDO_SHOWN + 2, lines[-3:]
    assert lines[-2] == "… 7 more (`--json` lists every one)"
    assert lines[-1] == f"dry run (delete {UNDO_SHOWN + 7}); run again with --apply to do it"
    p = gbrain("--db", str(db_path), "--json", "undo", "--since", since)
    assert len(json.loads(p.stdout)["plan"]) == UNDO_SHOWN + 7


def test_the_command_that_takes_an_undo_back_takes_back_only_that_undo(db_path):
    """Team trial 25: carol's `undo --since 10m --by agent-dave --apply` ended with "`gbrain undo
    --since <10 minutes ago> --origin undo --apply` takes it back": every undo of those ten minutes,
    bob's too, whose undo then came undone (his page went back to the agent's broken text). The
    command names the undo's own first write and its writer."""
    import re

    db = str(db_path)

    # in-process: each call names its writer as a process would only because gbrain_in_process
    # forgets the cached identity (origin.identity) around each call; without that bob's undo is
    # recorded as the agent's, carol's undo of the agent's writes takes it back and alpha ends BROKEN
    process = gbrain

    def as_(user, *args, input=None):
        r = process("--db", db, *args, input=input, env={"GBRAIN_USER": user})
        assert r.returncode == 0, r.stderr
        return r.stdout.decode()

    as_("ana", "put", "alpha", input="Alpha, as written.\n")
    as_("ana", "put", "beta", input="Beta, as written.\n")
    with Brain.open(db_path) as b:
        past_last_change(b)
        t0 = h._now()
    as_("agent", "put", "alpha", input="Alpha BROKEN.\n")
    as_("bob", "undo", "--since", t0, "--by", "agent", "--apply")  # bob takes the agent's write back
    as_("agent", "put", "beta", input="Beta BROKEN.\n")
    out = as_("carol", "undo", "--since", t0, "--by", "agent", "--apply")
    with Brain.open(db_path) as b:
        assert b.get_text("alpha") == "Alpha, as written.\n" and b.get_text("beta") == "Beta, as written.\n"
    cmd = re.search(r"`gbrain (undo [^`]*)` takes it back", out)
    assert cmd, out
    args = cmd.group(1).split()
    assert "--by" in args and args[args.index("--by") + 1] == "carol", args
    as_("carol", *args)
    with Brain.open(db_path) as b:
        assert b.get_text("beta") == "Beta BROKEN.\n"  # carol's undo taken back
        assert b.get_text("alpha") == "Alpha, as written.\n"  # bob's stays


def test_an_applied_undo_that_finds_nothing_to_do_says_nothing_was_undone(db_path):
    """Trial 59: `undo --apply` whose plan held only `none` (already as it was) printed
    `undone: none 1. The undo is in the history too: … takes it back` though nothing was
    written (there is nothing to take back). It says nothing was undone; exit 0, as `nothing to
    undo: no writes` (an empty plan) answers: nothing to do is no failure."""
    db = str(db_path)
    assert gbrain("--db", db, "put", "notes/x", "--content", "x").returncode == 0
    p = gbrain("--db", db, "undo", "--since", "1h", "--apply")
    assert p.returncode == 0 and b"undone: delete 1" in p.stdout and b"takes it back" in p.stdout
    p = gbrain("--db", db, "undo", "--since", "1h", "--apply")  # the page is in the trash already
    assert p.returncode == 0, p.stderr
    out = p.stdout.decode()
    assert "none     notes/x  (already as it was)" in out
    assert "undone:" not in out and "takes it back" not in out and "--origin undo" not in out
    assert out.splitlines()[-1] == "nothing undone (none 1): every page and file was already as it was; nothing was written"
