"""An agent's whole put with no ``if_hash`` that removes lines a teammate wrote moments ago says
so (team trial 34, finding 3): the agent read the page, bob saved a line, the agent put its
edit of the text it had read; bob's line left the page and the agent's answer said nothing
(``warnings: []``), so nobody who could put it back knew (bob's own watch tells him, if he runs
one; another agent, a `gbrain put` or an MCP write tell no one)."""
from __future__ import annotations

import json

from conftest import gbrain_in_process as gbrain  # what the commands do, not the process: no process per call

START = "# Release plan\n\n- ship 2.0 on Friday\n"


def _as(who: str) -> dict:
    return {"GBRAIN_USER": who}


def _agent_put(db: str, content: str, **extra) -> dict:
    r = gbrain("--db", db, "call", "put", json.dumps({"slug": "notes/plan", "content": content, **extra}), env=_as("agent-ana"))
    assert r.returncode == 0, r.stdout + r.stderr
    return json.loads(r.stdout)


def test_an_agents_put_that_drops_a_teammates_fresh_lines_names_them_and_the_way_back(db_path):
    db = str(db_path)
    assert gbrain("--db", db, "put", "notes/plan", input=START, env=_as("ana")).returncode == 0
    read = json.loads(gbrain("--db", db, "call", "get", '{"slug": "notes/plan"}', env=_as("agent-ana")).stdout)
    bobs = START + "- bob: test the Windows installer first\n"
    assert gbrain("--db", db, "put", "notes/plan", input=bobs, env=_as("bob")).returncode == 0
    out = _agent_put(db, read["content"] + "- agent: draft the release notes\n")
    said = [w for w in out["warnings"] if "bob" in w]
    assert len(said) == 1, out
    w = said[0]
    assert "1 line" in w and "test the Windows installer first" in w, w
    assert "if_hash" in w and "revert" in w and '"to": 2' in w, w  # the call's spelling of `revert --to 2`
    # the page is as the agent put it (a warning, not a refusal): bob's line is in version 2
    assert b"Windows installer" not in gbrain("--db", db, "get", "notes/plan").stdout


def test_no_warning_when_the_put_keeps_the_lines_or_replaces_its_own_writers_version(db_path):
    db = str(db_path)
    assert gbrain("--db", db, "put", "notes/plan", input=START, env=_as("ana")).returncode == 0
    bobs = START + "- bob: test the Windows installer first\n"
    assert gbrain("--db", db, "put", "notes/plan", input=bobs, env=_as("bob")).returncode == 0
    out = _agent_put(db, bobs + "- agent: draft the release notes\n")  # read bob's version: keeps his line
    assert not [w for w in out["warnings"] if "bob" in w], out
    out = _agent_put(db, START + "- agent: only this\n")  # its own version replaced: its own lines
    assert not [w for w in out["warnings"] if "agent-ana" in w or "bob" in w], out


def test_a_teammates_line_under_the_agents_own_later_write_is_still_named(db_path):
    """Trial 34 over MCP: the agent read the page, bob saved a line, the agent added a timeline
    entry (its own version now the newest: a targeted edit, which reads nothing), then put its
    whole edit of the text it had read: bob's line went, and the warning looked only at the
    newest version (the agent's own). (A partial brain_put with timeline_append alike, below.)"""
    db = str(db_path)
    start = START + "\n---\n\n- **2026-12-01** | ana — plan made\n"
    assert gbrain("--db", db, "put", "notes/plan", input=start, env=_as("ana")).returncode == 0
    read = json.loads(gbrain("--db", db, "call", "get", '{"slug": "notes/plan"}', env=_as("agent-ana")).stdout)
    bobs = start.replace("- ship 2.0 on Friday\n", "- ship 2.0 on Friday\n- bob: test the Windows installer first\n")
    assert gbrain("--db", db, "put", "notes/plan", input=bobs, env=_as("bob")).returncode == 0
    r = gbrain("--db", db, "call", "timeline-add", json.dumps({"slug": "notes/plan", "date": "2026-12-04", "summary": "checked"}),
               env=_as("agent-ana"))
    assert r.returncode == 0, r.stdout + r.stderr
    out = _agent_put(db, read["content"].replace("# Release plan\n", "# Release plan (v2)\n"))
    said = [w for w in out["warnings"] if "bob" in w]
    assert len(said) == 1 and "test the Windows installer first" in said[0], out
    assert '"to": 3' in said[0], said[0]  # the version before this put holds bob's line


def test_a_pages_first_text_is_no_teammates_line_laid_over_a_read(db_path):
    """ana makes the page; the agent reads it and rewrites a line of it a second later: nothing
    to say (the first text is what any reader read)."""
    db = str(db_path)
    assert gbrain("--db", db, "put", "notes/plan", input=START, env=_as("ana")).returncode == 0
    out = _agent_put(db, START.replace("on Friday", "on Monday"))
    assert not [w for w in out["warnings"] if "ana" in w], out


def test_a_teammates_write_that_holds_the_lock_when_the_put_begins_is_named(db_path, monkeypatch):
    """The overwrite warning reads the history under the put's write lock: bob's write, made on a
    second real connection that holds the lock when the agent's put asks for it (a deterministic
    hook, no sleeps), commits first; the put then reads bob's version and names his line. A read
    of the history before the lock (the put's `_last_version` outside its transaction) would miss
    it: the put would still replace bob's line, and say nothing."""
    import threading

    from gbrain import operations as ops
    from gbrain.core.brain import Brain
    from gbrain.storage import db as dbmod
    from gbrain.storage.origin import origin

    slug = "notes/race"
    agent, bob = Brain.open(str(db_path)), Brain.open(str(db_path))
    try:
        with origin(surface="cli", operation="put", user="ana"):
            bob.put(slug, START)
        asking = threading.Event()
        real = dbmod.begin_write

        def begin_write(conn):
            if conn is agent.conn:
                asking.set()  # the agent's put asks for the write lock now: bob holds it
            real(conn)

        monkeypatch.setattr(dbmod, "begin_write", begin_write)
        out: dict = {}
        t = threading.Thread(target=lambda: out.update(ops.run("put", {"slug": slug, "content": START + "- agent: draft the notes\n"},
                                                               ops.Context(surface="mcp"), brain=agent)))
        with origin(surface="cli", operation="put", user="bob"), bob.transaction():
            bob.put(slug, START + "- bob: test the Windows installer first\n")
            t.start()
            assert asking.wait(60)
        t.join(60)
        assert not t.is_alive() and out, out
        said = [w for w in out.get("warnings", []) if "bob" in w]
        assert len(said) == 1 and "test the Windows installer first" in said[0], out
    finally:
        agent.close()
        bob.close()


def test_the_agents_own_partial_put_of_timeline_lines_does_not_hide_a_teammates_line(db_path):
    """As its timeline-add: a brain_put of timeline_append alone (recorded as `put
    timeline_append`) reads nothing of the page, so the look back passes over it to bob's save
    and the agent's later blind whole put names bob's line."""
    db = str(db_path)
    start = START + "\n---\n\n- **2026-12-01** | ana — plan made\n"
    assert gbrain("--db", db, "put", "notes/plan", input=start, env=_as("ana")).returncode == 0
    read = json.loads(gbrain("--db", db, "call", "get", '{"slug": "notes/plan"}', env=_as("agent-ana")).stdout)
    bobs = start.replace("- ship 2.0 on Friday\n", "- ship 2.0 on Friday\n- bob: test the Windows installer first\n")
    assert gbrain("--db", db, "put", "notes/plan", input=bobs, env=_as("bob")).returncode == 0
    r = gbrain("--db", db, "call", "put", json.dumps({"slug": "notes/plan", "timeline_append": "- **2026-12-04** | agent — checked"}),
               env=_as("agent-ana"))
    assert r.returncode == 0, r.stdout + r.stderr
    out = _agent_put(db, read["content"].replace("# Release plan\n", "# Release plan (v2)\n"))
    said = [w for w in out["warnings"] if "bob" in w]
    assert len(said) == 1 and "test the Windows installer first" in said[0], out


def test_a_save_in_the_folder_under_the_agents_own_login_is_named_too(db_path, tmp_path):
    """Trial 38: a consultant and their agent under one login (no GBRAIN_USER: both root@vm).
    The agent read the meeting note, the consultant saved a line into it in Obsidian (the sync
    took it in), the agent put its edit of what it had read: the line left the page and the put
    said nothing, since the version was "its own writer's". A version a sync, watch or import
    wrote is a save in the folder, whoever's login: named, as a teammate's line is."""
    db = str(db_path)
    vault = tmp_path / "vault"
    (vault / "notes").mkdir(parents=True)
    note = vault / "notes" / "plan.md"
    note.write_text(START)
    assert gbrain("--db", db, "sync", str(vault), env=_as("ana")).returncode == 0
    read = json.loads(gbrain("--db", db, "call", "get", '{"slug": "notes/plan"}', env=_as("ana")).stdout)
    note.write_text(START + "- ask Maria for the sample emails\n")
    assert gbrain("--db", db, "sync", str(vault), env=_as("ana")).returncode == 0
    r = gbrain("--db", db, "call", "put", json.dumps({"slug": "notes/plan", "content": read["content"] + "- agent: draft the notes\n"}),
               env=_as("ana"))
    assert r.returncode == 0, r.stdout + r.stderr
    out = json.loads(r.stdout)
    said = [w for w in out["warnings"] if "sample emails" in w]
    assert len(said) == 1 and "in the folder" in said[0] and "revert" in said[0], out
    # the agent's own put replaced by its own put: still nothing to say
    r = gbrain("--db", db, "call", "put", json.dumps({"slug": "notes/plan", "content": START + "- agent: only this\n"}), env=_as("ana"))
    assert json.loads(r.stdout)["warnings"] == [], r.stdout


def test_a_cli_put_that_drops_a_fresh_save_warns_on_stderr_and_writes(db_path, tmp_path):
    """Trial 38: Claude Code runs `gbrain put` through Bash; an agent that forgot --if-hash and
    overwrote the person's fresh save in the folder was told nothing (the check was the agent
    surfaces' only). Now a CLI put warns the same way on stderr: exit 0, the text written."""
    db = str(db_path)
    vault = tmp_path / "vault"
    (vault / "notes").mkdir(parents=True)
    note = vault / "notes" / "plan.md"
    note.write_text(START)
    assert gbrain("--db", db, "sync", str(vault), env=_as("ana")).returncode == 0
    read = gbrain("--db", db, "get", "notes/plan", env=_as("ana")).stdout.decode()
    note.write_text(START + "- ask Maria for the sample emails\n")
    assert gbrain("--db", db, "sync", str(vault), env=_as("ana")).returncode == 0
    r = gbrain("--db", db, "put", "notes/plan", input=read + "- agent: draft the notes\n", env=_as("ana"))
    err = r.stderr.decode()
    assert r.returncode == 0 and "sample emails" in err and "in the folder" in err, err
    assert "gbrain diff notes/plan 2" in err and "gbrain revert notes/plan --to 2" in err and "--if-hash" in err, err
    assert gbrain("--db", db, "get", "notes/plan").stdout.decode() == read + "- agent: draft the notes\n"
    # a teammate's line, and a put keeping it: said, then not
    bobs = read + "- bob: test the Windows installer first\n"
    assert gbrain("--db", db, "put", "notes/plan", input=bobs, env=_as("bob")).returncode == 0
    r = gbrain("--db", db, "put", "notes/plan", input=read + "- mine\n", env=_as("ana"))
    assert r.returncode == 0 and "Windows installer" in r.stderr.decode(), r.stderr
    r = gbrain("--db", db, "put", "notes/plan", input=read + "- mine\n- again\n", env=_as("ana"))
    assert r.returncode == 0 and b"removed" not in r.stderr, r.stderr
