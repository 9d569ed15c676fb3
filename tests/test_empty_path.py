"""An empty path is bad input on every surface (exit 2, one line saying so, nothing written).

A reviewer's `gbrain export ""` (a script's `gbrain export "$OUT"` with OUT unset) wrote 6 pages
into the source checkout it ran in: `""` read as the current folder, as it did for `import`,
`sync`, `watch`, `verify`, `sync-forget`, `skills install --project`; `init ""`, `copy --from ""`,
`get --output ""`, `put --file ""` and `--db ""` took it for "not given" (`put --file ""` with no
input wrote an empty page). Every filesystem-path parameter is marked (``Param.path`` or
``Param.directory``) and ``registry.check_args`` refuses an empty or blank one for every surface;
``--db`` and ``--file``, the command line's own, go through the same check."""
from __future__ import annotations

import hashlib
import json
import subprocess
import sys

import pytest

from gbrain import operations as ops

from conftest import gbrain, gbrain_in_process

pytestmark = pytest.mark.engine_free

#: every filesystem path the registry's operations take: (operation, parameter)
PATH_PARAMS = {
    ("init", "path"), ("get", "output"), ("import", "dir"), ("export", "dir"), ("verify", "dir"),
    ("copy", "from"), ("copy", "to"), ("copy", "folder"), ("ingest", "file"), ("sync", "dir"), ("watch", "dir"),
    ("sync-forget", "target"), ("skills-install", "project"),
}


def _state(root) -> dict:
    """Every file and folder under ``root``: relative path → the SHA-1 of its bytes (None: a folder)."""
    return {str(p.relative_to(root)): (hashlib.sha1(p.read_bytes()).hexdigest() if p.is_file() else None)
            for p in sorted(root.rglob("*"))}


@pytest.fixture
def here(tmp_path, own_fixture_db, monkeypatch):
    """A current folder holding only a sentinel file (the brain, own.db, is beside it); the test
    runs there, and in-process calls too."""
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    (cwd / "sentinel.txt").write_text("a checkout's file\n")
    monkeypatch.chdir(cwd)
    return cwd


def _refused(r, where, before, tmp_path, word="an empty path"):
    err = r.stderr.decode()
    assert r.returncode == 2, (r.returncode, err, r.stdout[:300])
    assert word in err and err.startswith("error: ") and err.count("\n") == 1, err
    assert r.stdout == b"", r.stdout[:300]
    assert _state(tmp_path) == before, f"{where}: something was written"


@pytest.mark.parametrize("argv", [
    ("export", ""), ("export", "--dir", ""), ("export", "--dir=  "), ("export", " \t"),
    ("import", ""), ("sync", ""), ("sync", " "), ("watch", "", "--once"),
], ids=lambda a: " ".join(repr(x) for x in a))
def test_an_empty_path_is_refused_by_the_command_line(argv, here, own_fixture_db, tmp_path):
    """Real processes in a folder holding a sentinel file: `export ""` wrote the brain's pages
    there, `import ""` imported the folder, `sync ""`/`watch ""` took it for the synced folder."""
    before = _state(tmp_path)
    r = gbrain("--db", str(own_fixture_db), *argv, cwd=here)
    _refused(r, argv, before, tmp_path)
    name = "DIR" if argv[0] in ("import", "sync", "watch") else "--dir"
    assert r.stderr.decode().startswith(f"error: {name} is an empty path: "), r.stderr


@pytest.mark.parametrize("argv", [
    ("verify", ""), ("sync-forget", ""), ("init", ""), ("get", "people/ana-lima", "--output", ""),
    ("copy", "--from", "", "--to", "copy.db"), ("copy", "--from", "{db}", "--to", " "), ("ingest", ""),
    ("skills", "install", "--project", ""), ("put", "people/new", "--file", ""),
    ("--json", "export", ""),
], ids=lambda a: " ".join(repr(x) for x in a))
def test_every_path_argument_refuses_an_empty_one(argv, here, own_fixture_db, tmp_path):
    """The other path arguments, in-process: each ran on the current folder or took `""` for
    "not given" (`init ""` answered for the default brain, `copy --from ""` copied it into the
    current folder, `put --file ""` read standard input: an empty page)."""
    before = _state(tmp_path)
    r = gbrain_in_process("--db", str(own_fixture_db), *(a.format(db=own_fixture_db) for a in argv))
    if argv[0] == "--json":
        assert r.returncode == 2 and r.stderr.decode().startswith("error: --dir is an empty path: "), r
        err = json.loads(r.stdout)
        assert err["kind"] == "bad_input" and "--dir is an empty path: " in err["error"], err
        assert _state(tmp_path) == before
        return
    _refused(r, argv, before, tmp_path)


@pytest.mark.parametrize("db", ["", "  "])
def test_an_empty_db_is_bad_input(db, here, own_fixture_db, tmp_path):
    """`--db ""` was "not given": $GBRAIN_DB's brain, else ./brain.db (a `db=create` command made
    one in the current folder). An empty `GBRAIN_DB` stays unset, as the default says (XDG's
    rule for an empty variable; `test_cli.test_missing_default_brain_names_the_folder_it_looked_in`)."""
    before = _state(tmp_path)
    for argv in (("--db", db, "stats"), (f"--db={db}", "import", str(here)), ("put", "x", "--db", db)):
        r = gbrain_in_process(*argv, input="# X\n", env={"GBRAIN_DB": str(own_fixture_db)})
        _refused(r, argv, before, tmp_path)
        assert r.stderr.decode().startswith("error: --db is an empty path: "), r.stderr
    r = gbrain_in_process("stats", env={"GBRAIN_DB": "  "})
    _refused(r, "GBRAIN_DB", before, tmp_path)
    assert r.stderr.decode().startswith("error: GBRAIN_DB is an empty path: "), r.stderr


def test_call_and_pipe_refuse_an_empty_path(here, own_fixture_db, tmp_path):
    """`call` and `pipe` answer the refusal in their shape (exit 2, kind bad_input); `pipe`
    refuses before it opens a brain (it made a new one at `--db` for a `sync` line it then
    refused: args are checked before the brain is opened, let alone created)."""
    before = _state(tmp_path)
    for tool, params in (("brain_export", {"dir": ""}), ("brain_sync", {"dir": " "}), ("brain_import", {"dir": ""}),
                         ("brain_sync_forget", {"target": ""}), ("brain_verify", {"dir": ""})):
        r = gbrain_in_process("--db", str(own_fixture_db), "call", tool, json.dumps(params))
        err = json.loads(r.stdout)
        assert r.returncode == 2 and err["kind"] == "bad_input", (tool, r)
        assert err["error"].startswith(f"{tool}: parameter '{next(iter(params))}' is an empty path: "), err
    lines = [{"id": 1, "tool": "export", "params": {"dir": ""}}, {"id": 2, "tool": "brain_watch", "params": {"dir": "", "once": True}},
             {"id": 3, "tool": "stats"}]
    r = gbrain_in_process("--db", str(own_fixture_db), "pipe", input="".join(json.dumps(x) + "\n" for x in lines))
    answers = [json.loads(x) for x in r.stdout.decode().splitlines()]
    assert [(a["id"], a["ok"], a.get("exit_code"), a.get("kind")) for a in answers] == [
        (1, False, 2, "bad_input"), (2, False, 2, "bad_input"), (3, True, None, None)], answers
    assert "parameter 'dir' is an empty path: " in answers[0]["error"] and r.returncode == 2
    assert _state(tmp_path) == before
    new = tmp_path / "new.db"
    r = gbrain_in_process("--db", str(new), "pipe", input=json.dumps({"tool": "sync", "params": {"dir": ""}}) + "\n")
    assert r.returncode == 2 and json.loads(r.stdout)["kind"] == "bad_input", r
    assert _state(tmp_path) == before, "pipe made a brain for a line it refused"


def test_an_agent_is_told_the_path_is_empty(own_fixture_db):
    """MCP: the tool error names the tool and its parameter."""
    for tool, params in (("brain_export", {"dir": ""}), ("brain_sync", {"dir": "\n"})):
        with pytest.raises(ops.BadInput, match=rf"^{tool}: parameter 'dir' is an empty path: "):
            ops.run_tool(tool, params, ops.Context(db=str(own_fixture_db), surface="mcp"))


def test_every_path_parameter_is_marked_and_refuses_an_empty_value():
    """Each filesystem path of the registry is a ``path``/``directory`` parameter (so the check
    reaches it), and check_args refuses `""` and white space for it on every surface, naming it
    as that surface does. A parameter named as a path elsewhere must be marked too."""
    marked = {(o.name, p.name) for o in ops.REGISTRY.values() for p in o.params if p.path or p.directory}
    assert marked == PATH_PARAMS
    named = {(o.name, p.name) for o in ops.REGISTRY.values() for p in o.params
             if p.name in ("dir", "path", "file", "output", "project", "folder", "target") and p.type == "string"}
    assert named <= marked, named - marked
    for name, pname in sorted(PATH_PARAMS):
        o = ops.REGISTRY[name]
        p = next(x for x in o.params if x.name == pname)
        others = {x.name: "x" for x in o.params if x.required and x is not p}  # (copy's other brain)
        for v in ("", "   ", "\t\n"):
            with pytest.raises(ops.BadInput, match=rf"^{ops.cli_name(p)} is an empty path: "):
                ops.check_args(o, {**others, pname: v}, cli=True)
            if p.in_schema:
                with pytest.raises(ops.BadInput, match=rf"^{o.tool_name}: parameter '{pname}' is an empty path: "):
                    ops.check_args(o, {**others, pname: v}, tool=True)


def test_a_path_with_blanks_around_it_is_a_path(tmp_path):
    """Only a path that is all white space is refused: ` notes` is a folder name."""
    d = tmp_path / " notes "
    d.mkdir()
    o = ops.REGISTRY["import"]
    assert ops.check_args(o, {"dir": str(d)}, cli=True)["dir"] == str(d)
    assert ops.check_args(ops.REGISTRY["export"], {"dir": " out"}, cli=True)["dir"] == " out"
