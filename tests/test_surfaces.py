"""One registry, every surface: the CLI (`--json`), `gbrain call`, `gbrain pipe` and `--tools-json`
list the same operations and give the same results; `gbrain ingest`."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
import typer

from conftest import gbrain, gbrain_in_process
from gbrain import operations as ops
from gbrain.core.brain import Brain


def j(r) -> object:
    assert r.returncode == 0, r.stderr.decode()
    return json.loads(r.stdout.decode("utf-8"))


def pipe(db: Path, lines: list[str | dict], code: int | None = None) -> list[dict]:
    """The answers of one real `gbrain pipe` process to ``lines``; its exit status must be
    ``code`` (None: the status its answers call for, :func:`pipe_status`)."""
    data = "".join((x if isinstance(x, str) else json.dumps(x, ensure_ascii=False)) + "\n" for x in lines)
    r = gbrain("--db", str(db), "pipe", input=data, env={"LC_ALL": "C", "LANG": "C"})
    out = [json.loads(x) for x in r.stdout.decode("utf-8").splitlines()]
    assert r.returncode == (pipe_status(out) if code is None else code), (r.returncode, r.stderr.decode())
    return out


def pipe_status(answers: list[dict]) -> int:
    """The exit status `gbrain pipe` promises for ``answers``: 2 when a line was bad input, else 1
    when one failed, else 3 when a sync found conflicts, else 0."""
    failed = {a["exit_code"] for a in answers if not a["ok"]}
    if failed:
        return 2 if 2 in failed else 1
    return 3 if any(isinstance(a["result"], dict) and a["result"].get("exit_code") == 3 for a in answers) else 0


@pytest.mark.engine_free
def test_every_operation_is_on_every_surface():
    from gbrain.cli import GROUPS, app

    root = typer.main.get_command(app)
    commands = set(root.commands)
    for o in ops.REGISTRY.values():
        assert o.description.strip(), o.name
        group, _, sub = o.name.partition("-")
        if group in GROUPS:  # `config-get` → `gbrain config get`, `skills-show` → `gbrain skills show`
            assert sub in root.commands[group].commands, o.name
        else:
            assert o.name in commands, o.name
        assert ops.find(o.tool_name) is o and ops.find(o.name) is o
    r = gbrain("--tools-json", env={"LC_ALL": "C", "LANG": "C"})
    tools = j(r)
    assert "…".encode("utf-8") in r.stdout  # UTF-8 whatever the locale
    assert [t["name"] for t in tools] == [o.tool_name for o in ops.REGISTRY.values() if o.mcp]
    for t in tools:
        assert set(t) == {"name", "description", "input_schema"}
        assert t["input_schema"] == ops.find(t["name"]).input_schema()
        assert t["input_schema"]["type"] == "object" and t["input_schema"]["additionalProperties"] is False
    assert {"call", "pipe", "serve"} <= commands


READS = [
    ("get", {"slug": "ana-lima"}, ["get", "ana-lima"]),
    ("search", {"query": "Series A", "limit": 3}, ["search", "Series A", "--limit", "3"]),
    ("list", {"type": "person"}, ["list", "--type", "person"]),
    ("tags", {"slug": "people/ana-lima"}, ["tags", "people/ana-lima"]),
    ("links", {"slug": "people/ana-lima"}, ["links", "people/ana-lima"]),
    ("backlinks", {"slug": "companies/river-ai"}, ["backlinks", "companies/river-ai"]),
    ("timeline", {"slug": "ana-lima", "limit": 2}, ["timeline", "ana-lima", "--limit", "2"]),
    ("stats", {}, ["stats"]),
]


def test_reads_are_equal_through_cli_call_and_pipe(fixture_db, brain_tree):
    """The CLI and call answers are taken in-process (conftest.gbrain_in_process: the same bytes
    and exit codes, without a process start-up per read); pipe runs as a real process, in the C
    locale."""
    db = str(fixture_db)
    cli = [j(gbrain_in_process("--db", db, *argv, "--json")) for _, _, argv in READS]
    call = [j(gbrain_in_process("--db", db, "call", ops.find(name).tool_name, json.dumps(args))) for name, args, _ in READS]
    piped = pipe(fixture_db, [{"id": i, "tool": name, "params": args} for i, (name, args, _) in enumerate(READS)])
    with Brain.open(fixture_db) as b:
        inproc = [json.loads(ops.dumps(ops.run(name, args, brain=b))) for name, args, _ in READS]
    assert [p["id"] for p in piped] == list(range(len(READS))) and all(p["ok"] for p in piped)
    if str(fixture_db).startswith("postgres"):  # the server's database size moves by itself (autovacuum, statistics)
        for r in (cli, call, [p["result"] for p in piped], inproc):
            for k in ("db_bytes", "history_table_bytes"):
                r[[n for n, _, _ in READS].index("stats")].pop(k, None)
    for i, (name, _, _) in enumerate(READS):
        assert cli[i] == call[i] == piped[i]["result"] == inproc[i], name
    assert cli[0]["content"] == Path(brain_tree / "people" / "ana-lima.md").read_text(encoding="utf-8")


SOURCE = "# Call with Zoë\n\nZoë wants an intro to Ana — soon.\n"


def writes(src_file: Path) -> list[tuple[str, dict, list[str], str | None]]:
    """(operation, call params, CLI argv, CLI stdin) for a run of writes."""
    page = "---\ntitle: Zoë New\ntype: person\n---\n# Zoë New\n\nMet at the fair.\n"
    return [
        ("put", {"slug": "people/zoe-new", "content": page}, ["put", "people/zoe-new"], page),
        ("put", {"slug": "zoe-new", "frontmatter": {"status": "warm"}}, ["put", "zoe-new", "--frontmatter", '{"status": "warm"}'], None),
        ("put", {"slug": "zoe-new", "compiled_truth": "# Zoë New\n\nState: warm lead.\n"}, ["put", "zoe-new", "--compiled-truth", "# Zoë New\n\nState: warm lead.\n"], None),
        ("tag", {"slug": "zoe-new", "tag": "fair"}, ["tag", "zoe-new", "fair"], None),
        ("timeline-add", {"slug": "zoe-new", "date": "2025-04-01", "summary": "Coffee", "source": "meeting"}, ["timeline-add", "zoe-new", "--date", "2025-04-01", "--summary", "Coffee", "--source", "meeting"], None),
        ("link", {"from": "zoe-new", "to": "ana-lima", "context": "introduced"}, ["link", "zoe-new", "ana-lima", "--context", "introduced"], None),
        ("raw", {"slug": "zoe-new", "source": "crustdata", "data": {"title": "CEO"}}, ["raw", "zoe-new", "--source", "crustdata", "--data", '{"title": "CEO"}'], None),
        ("tag", {"slug": "zoe-new", "tag": "fair", "remove": True}, ["tag", "zoe-new", "fair", "--remove"], None),
        ("ingest", {"content": SOURCE, "source_type": "meeting", "source_ref": "meet/42"}, ["ingest", str(src_file), "--type", "meeting", "--ref", "meet/42"], None),
    ]


@pytest.mark.sqlite_only("copies the SQLite brain file (shutil.copy) to give each surface a brain of its own; the surfaces do not depend on the engine")
def test_writes_are_equal_through_cli_call_and_pipe(fixture_db, tmp_path):
    src = tmp_path / "call.md"
    src.write_text(SOURCE, encoding="utf-8")
    dbs = {}
    for surface in ("cli", "call", "pipe"):
        dbs[surface] = tmp_path / f"{surface}.db"
        shutil.copy(fixture_db, dbs[surface])
    steps = writes(src)
    results: dict[str, list] = {"cli": [], "call": []}
    for name, args, argv, stdin in steps:
        # the CLI in-process (conftest.gbrain_in_process: the same bytes and exit codes); call in a
        # real process in the C locale where its argument holds non-ASCII text (argv decoding is
        # the process's), in-process otherwise; pipe below is a real process in the C locale
        results["cli"].append(j(gbrain_in_process("--db", str(dbs["cli"]), *argv, "--json", input=stdin)))
        params = json.dumps(args, ensure_ascii=False)
        run = gbrain if not params.isascii() else gbrain_in_process
        results["call"].append(j(run("--db", str(dbs["call"]), "call", ops.find(name).tool_name, params, env={"LC_ALL": "C", "LANG": "C"})))
    piped = pipe(dbs["pipe"], [{"id": f"w{i}", "tool": ops.find(name).tool_name, "params": args} for i, (name, args, _, _) in enumerate(steps)])
    assert all(p["ok"] for p in piped), piped
    results["pipe"] = [p["result"] for p in piped]
    assert results["cli"] == results["call"] == results["pipe"]
    pages = {}
    for s, db in dbs.items():
        with Brain.open(db) as b:
            pages[s] = (b.get_text("people/zoe-new"), b.get_text(results["cli"][-1]["slug"]), b.stats()["ingest_log"], b.raw_get("zoe-new"))
    assert pages["cli"] == pages["call"] == pages["pipe"]
    text = pages["cli"][0]
    assert text.startswith("---\ntitle: Zoë New\ntype: person\nstatus: warm\n---\n# Zoë New\n\nState: warm lead.\n\n[Ana Lima](ana-lima.md) — introduced")
    assert "- **2025-04-01** | meeting — Coffee" in text and "fair" not in text
    assert pages["cli"][1].endswith(SOURCE)


@pytest.mark.engine_free
def test_pipe_bad_lines_get_errors_and_the_stream_goes_on(own_fixture_db):
    out = pipe(own_fixture_db, [
        {"id": 1, "tool": "brain_get", "params": {"slug": "ana-lima"}},
        "this is not json",
        "[1, 2]",
        {"id": "x", "tool": "brain_nope"},
        {"id": 4, "tool": "get", "params": {"slug": "nobody"}},
        {"id": 5, "tool": "brain_get", "params": {"slug": 7}},
        {"id": 6},
        "",
        {"id": 7, "tool": "stats"},
    ])
    assert [o["id"] for o in out] == [1, None, None, "x", 4, 5, 6, 7]
    assert [o["ok"] for o in out] == [True, False, False, False, False, False, False, True]
    assert out[0]["result"]["slug"] == "people/ana-lima"
    assert "bad JSON line" in out[1]["error"]
    assert "line 3 of the input: a request must be a JSON object" in out[2]["error"]
    assert "unknown tool 'brain_nope'" in out[3]["error"]
    assert "no page 'nobody'" in out[4]["error"]
    assert "must be a string" in out[5]["error"]
    assert "needs a 'tool'" in out[6]["error"]
    assert out[7]["result"]["pages"] == 6
    for o in out:  # suggestions: a page lookup's near names (none here), as `call` prints them
        assert set(o) == ({"id", "ok", "result"} if o["ok"] else {"id", "ok", "error", "exit_code", "kind"} | ({"suggestions"} if o["id"] == 4 else set()))


@pytest.mark.engine_free
def test_pipe_and_call_take_json_that_starts_with_a_byte_order_mark(own_fixture_db):
    """Trial 32 (a scripter): a batch file or parameters written by PowerShell 5 (`Out-File
    -Encoding utf8`) or Notepad start with a UTF-8 byte order mark; `pipe` refused the first
    line and `call TOOL -` its parameters ("Unexpected UTF-8 BOM"). JSON (RFC 8259) lets a
    reader ignore it: a mark at the start of a line or of the parameters is skipped, anything
    else in the text stays as sent."""
    cli = gbrain_in_process  # in-process: about how the input is read, not the process
    db = str(own_fixture_db)
    bom = b"\xef\xbb\xbf"
    lines = bom + json.dumps({"id": 1, "tool": "brain_stats"}).encode() + b"\r\n" + bom + json.dumps({"id": 2, "tool": "brain_get", "params": {"slug": "ana-lima"}}).encode() + b"\n"
    r = cli("--db", db, "pipe", input=lines)
    out = [json.loads(x) for x in r.stdout.decode().splitlines()]
    assert r.returncode == 0 and [o["ok"] for o in out] == [True, True], out
    assert out[0]["result"]["pages"] == 6 and out[1]["result"]["slug"] == "people/ana-lima"
    r = cli("--db", db, "call", "brain_get", "-", input=bom + b'{"slug": "ana-lima"}')
    assert r.returncode == 0 and json.loads(r.stdout)["slug"] == "people/ana-lima", r.stderr
    r = cli("--db", db, "call", "brain_get", bom.decode() + '{"slug": "ana-lima"}')
    assert r.returncode == 0 and json.loads(r.stdout)["slug"] == "people/ana-lima", r.stderr


@pytest.mark.engine_free
def test_pipe_names_the_line_a_bad_json_request_is_on(own_fixture_db):
    """Trial 32: a truncated request in a 1,000-line batch was answered `bad JSON line: Expecting
    value: line 2 column 1 (char 53)`, with id null: "line 2" was the line's own newline, and
    nothing said which line of the batch it was. The answer names the line of the input (blank
    lines counted, though they get no answer) and the column in it."""
    data = b"\n".join([json.dumps({"id": 1, "tool": "brain_stats"}).encode(), b"", b'{"id": 3, "tool": "brain_get", "params": {"slug": ',
                        b"\xff{}", json.dumps({"id": 5, "tool": "brain_stats"}).encode()]) + b"\n"
    r = gbrain_in_process("--db", str(own_fixture_db), "pipe", input=data)  # in-process: about the answers, not the process
    out = [json.loads(x) for x in r.stdout.decode().splitlines()]
    assert r.returncode == 2, r.stderr
    assert [o["id"] for o in out] == [1, None, None, 5]
    assert out[1]["error"] == "bad JSON line 3 of the input: Expecting value at column 51", out[1]
    assert out[2]["error"].startswith("bad JSON line 4 of the input: not UTF-8"), out[2]


def test_pipe_names_the_line_of_a_request_that_is_no_object_and_refuses_unknown_keys(fixture_db):
    """Busy-wait review, item 4: a line that is JSON but no object (``[1]``, ``"x"``, ``3``) was
    answered "a request must be a JSON object", without the line number a bad JSON line gets; and a
    request key pipe does not take was ignored: ``"parmas"`` (a typo of ``params``) ran the tool
    with no parameters, unsaid (a put with no content, a search for nothing). Each names its line
    now, and an unknown key is bad input (exit 2) naming it and the near key, the tool not run, as
    an unknown tool parameter is."""
    data = b"\n".join([b"[1]", b'"x"', b"", b"3", json.dumps({"id": 5, "tool": "brain_get", "parmas": {"slug": "ana-lima"}}).encode(),
                        json.dumps({"id": 6, "tool": "brain_stats", "params": {}, "note": "x"}).encode(),
                        json.dumps({"id": 7, "name": "brain_get", "arguments": {"slug": "ana-lima"}}).encode(),
                        json.dumps({"id": 8, "params": {}}).encode(), json.dumps({"id": 9, "tool": 5}).encode()]) + b"\n"
    r = gbrain_in_process("--db", str(fixture_db), "pipe", input=data)
    out = [json.loads(x) for x in r.stdout.decode().splitlines()]
    assert r.returncode == 2, r.stderr
    assert [o["id"] for o in out] == [None, None, None, 5, 6, 7, 8, 9], out
    assert [o["error"] for o in out[:3]] == [f"bad request line {n} of the input: a request must be a JSON object, not {k}"
                                             for n, k in ((1, "an array"), (2, "a string"), (4, "a number"))], out
    assert out[3]["error"].startswith("bad request line 5 of the input: unknown key(s) 'parmas'; did you mean: params; "), out[3]
    assert out[3]["exit_code"] == 2 and out[3]["kind"] == "bad_input" and out[3]["suggestions"] == ["params"], out[3]
    assert out[4]["error"].startswith("bad request line 6 of the input: unknown key(s) 'note'; ") and "suggestions" not in out[4], out[4]
    assert out[5]["ok"] and out[5]["result"]["slug"] == "people/ana-lima", out[5]  # (MCP's spelling is taken)
    # trial 66: a request with no tool name (or not a string) said so without its line
    assert [o["error"] for o in out[6:]] == [f"bad request line {n} of the input: a request needs a 'tool' name (a string)" for n in (8, 9)], out


@pytest.mark.engine_free
def test_pipe_bad_json_message_says_at_once(own_fixture_db):
    """Trial 62: a request cut inside a string was answered `Unterminated string starting at at
    column 16`: json's own message ends with "at" for the errors that name where a thing
    starts (an unterminated string, a control character), and `at column N` was added again."""
    data = b'{"id": 1, "tool": "brain_st\n{"id": 2, "tool": "brain_stats", "x": "a\tb"}\n'
    r = gbrain_in_process("--db", str(own_fixture_db), "pipe", input=data)
    out = [json.loads(x) for x in r.stdout.decode().splitlines()]
    assert [o["error"] for o in out] == ["bad JSON line 1 of the input: Unterminated string starting at column 19",
                                         "bad JSON line 2 of the input: Invalid control character at column 41"], out


def test_pipe_errors_carry_what_call_prints(fixture_db):
    """Trial of agents writing through the CLI: ``pipe`` said ``did you mean`` only inside the
    message; its error objects now hold the fields ``call`` prints (``suggestions`` too), for an
    unknown page, tool or parameter."""
    cli = gbrain_in_process  # call in-process (the pipe above is a real process): about the error fields, not the process
    db = str(fixture_db)
    requests = [
        ("brain_get", {"slug": "people/ana-lim"}),
        ("brain_gett", {"slug": "people/ana-lima"}),
        ("timeline-ad", {}),
        ("brain_get", {"slugg": "people/ana-lima"}),
        ("brain_search", {"query": "ana", "limitt": 2}),
    ]
    out = pipe(fixture_db, [{"id": i, "tool": t, "params": p} for i, (t, p) in enumerate(requests)])
    for (tool, params), o in zip(requests, out):
        r = cli("--db", db, "call", tool, json.dumps(params))
        printed = json.loads(r.stdout)
        assert r.returncode == printed["exit_code"] and o == {"id": o["id"], "ok": False, **printed}, (o, printed)
    assert [o["suggestions"][0] for o in out] == ["people/ana-lima", "brain_get", "timeline-add", "slug", "limit"]
    assert "did you mean: brain_get" in out[1]["error"] and "did you mean: slug;" in out[3]["error"]


def test_pipe_exits_with_the_status_its_worst_answer_calls_for(fixture_db, tmp_path):
    """`gbrain pipe` exited 0 whatever its lines did (a trial: a script's `gbrain pipe < batch ||
    …` never saw a failed request). Every line is still answered; the exit status is 0 when all
    were ok, 1 when one failed (a page not found), 2 when one was bad input (bad input outranks a
    failure: the script itself is wrong), and 3 when none failed but a sync found conflicts
    (as `gbrain sync` and `call sync` exit)."""
    good = {"id": 1, "tool": "brain_get", "params": {"slug": "ana-lima"}}
    missing = {"id": 2, "tool": "brain_get", "params": {"slug": "nobody"}}
    bad = {"id": 3, "tool": "brain_get", "params": {"slug": 7}}
    assert [o["ok"] for o in pipe(fixture_db, [good, {"id": 4, "tool": "stats"}], code=0)] == [True, True]
    assert [o["ok"] for o in pipe(fixture_db, [good, missing, good], code=1)] == [True, False, True]
    assert [o["ok"] for o in pipe(fixture_db, [missing, bad, good], code=2)] == [False, False, True]
    assert [o["ok"] for o in pipe(fixture_db, ["not json", good], code=2)] == [False, True]
    assert pipe(fixture_db, [], code=0) == []
    # a sync that found a conflict: the page changed in the brain and on disk since the last sync
    tree, db = tmp_path / "notes", tmp_path / "s.db"
    tree.mkdir()
    (tree / "a.md").write_text("# A\n\nfirst\n")
    assert gbrain("--db", str(db), "import", str(tree)).returncode == 0
    assert gbrain("--db", str(db), "put", "a", input="# A\n\nchanged in the brain\n").returncode == 0
    (tree / "a.md").write_text("# A\n\nchanged on disk\n")
    out = pipe(db, [{"id": 1, "tool": "sync", "params": {"dir": str(tree)}}], code=3)
    assert out[0]["ok"] and out[0]["result"]["exit_code"] == 3
    out = pipe(db, [{"id": 1, "tool": "sync", "params": {"dir": str(tree)}}, missing], code=1)  # a failure outranks conflicts


def test_json_is_taken_before_or_after_call_and_pipe(fixture_db):
    """``gbrain --json call TOOL`` was refused (``no such option: --json``) while every other
    command takes ``--json`` before or after its name: call and pipe print JSON anyway."""
    cli = gbrain_in_process  # in-process: about where --json is taken on the command line (entry.main parses it), not the process
    db = str(fixture_db)
    for argv in (["--json", "call", "brain_stats"], ["call", "--json", "brain_stats"], ["call", "brain_stats", "{}", "--json"]):
        assert j(cli("--db", db, *argv))["pages"] == 6, argv
    r = cli("--db", db, "--json", "call", "brain_get", '{"slug": "people/ana-lim"}')
    assert r.returncode == 1 and json.loads(r.stdout)["suggestions"] == ["people/ana-lima"]
    for argv in (["--json", "pipe"], ["pipe", "--json"]):
        r = cli("--db", db, *argv, input=json.dumps({"id": 1, "tool": "brain_stats"}) + "\n")
        assert r.returncode == 0 and json.loads(r.stdout)["result"]["pages"] == 6, r.stderr


def test_call_errors_and_exit_codes(fixture_db):
    db = str(fixture_db)
    r = gbrain("--db", db, "call", "brain_get", "{not json")
    assert r.returncode == 2 and b"not valid JSON" in r.stderr
    r = gbrain("--db", db, "call", "brain_nope", "{}")
    assert r.returncode == 2 and b"unknown tool 'brain_nope'" in r.stderr
    r = gbrain("--db", db, "call", "brain_get", "[1]")
    assert r.returncode == 2 and b"must be a JSON object" in r.stderr
    r = gbrain("--db", db, "call", "brain_get", '{"slug": "people/ana-lim"}')
    assert r.returncode == 1 and b"did you mean: people/ana-lima" in r.stderr
    assert json.loads(r.stdout)["suggestions"] == ["people/ana-lima"]
    r = gbrain("--db", db, "call", "brain_stats")
    assert r.returncode == 0 and json.loads(r.stdout)["pages"] == 6


def test_call_and_pipe_take_every_argument_the_tool_list_shows(fixture_db):
    """``--tools-json`` lists ``cursor`` for paged tools: ``call`` and ``pipe`` take it (empty for
    the first page) and answer as the MCP tool does; without it they answer whole."""
    cli = gbrain_in_process  # call in-process (the pipe below is a real process): about the arguments taken, not the process
    db = str(fixture_db)
    tools = {t["name"]: t for t in j(cli("--tools-json"))}
    assert "cursor" in tools["brain_list"]["input_schema"]["properties"]
    whole = j(cli("--db", db, "call", "brain_list", "{}"))
    assert isinstance(whole, list) and len(whole) == 6
    seen, cursor = [], ""
    while cursor is not None:
        page = j(cli("--db", db, "call", "brain_list", json.dumps({"limit": 4, "cursor": cursor})))
        assert len(page["items"]) <= 4
        seen += page["items"]
        cursor = page["next_cursor"]
    assert seen == whole
    [r] = pipe(fixture_db, [{"id": 1, "tool": "brain_list", "params": {"limit": 4, "cursor": ""}}])
    assert r["ok"] and r["result"]["items"] == whole[:4] and r["result"]["next_cursor"]


def test_ingest_cli(fixture_db, tmp_path):
    db = str(fixture_db)
    src = tmp_path / "2025-03-04 Ana call.txt"
    src.write_bytes("Ana: we close by Q2.\r\nBruno: ok — ünïcode.\r\n".encode("utf-8"))
    r = gbrain("--db", db, "ingest", str(src), "--type", "meeting", "--ref", "zoom/123")
    assert r.returncode == 0, r.stderr
    slug = r.stdout.decode().strip()
    assert slug.startswith("sources/") and slug.endswith("-ana-we-close-by-q2")  # titled by its text (as through call), not the file name
    with Brain.open(fixture_db) as b:
        text = b.get_text(slug)
        row = b.conn.execute("SELECT source_type, source_ref, pages_updated FROM ingest_log ORDER BY id DESC LIMIT 1").fetchone()
        logged = b.stats()["ingest_log"]
    assert text.endswith(src.read_bytes().decode("utf-8"))  # the source's bytes, CRLF and all
    assert "\r\nsource_type: meeting\r\nsource_ref: zoom/123\r\n" in text
    assert tuple(row) == ("meeting", "zoom/123", json.dumps([slug]))
    r = gbrain("--db", db, "stats")
    assert f"Ingest log: {logged:,}".encode() in r.stdout
    # the same source again: the same page, nothing new logged
    again = j(gbrain("--db", db, "ingest", str(src), "--type", "meeting", "--ref", "zoom/123", "--json"))
    assert again["slug"] == slug and again["created"] is False and again["logged"] is False
    assert j(gbrain("--db", db, "stats", "--json"))["ingest_log"] == logged
    # from standard input, default type doc; a source with its own frontmatter keeps it
    own = "---\ntitle: Paper\ntags: [ml]\n---\nBody.\n"
    res = j(gbrain("--db", db, "ingest", "-", "--ref", "https://example.org/p", "--json", input=own))
    assert res["source_type"] == "doc" and res["slug"].endswith("-paper")
    with Brain.open(fixture_db) as b:
        t = b.get_text(res["slug"])
    assert t.startswith("---\ntitle: Paper\ntags: [ml]\n") and t.endswith("---\nBody.\n") and "source_ref: https://example.org/p" in t
    # bad input: exit 2, nothing written
    for argv, msg in [
        (["ingest", str(tmp_path / "missing.txt")], b"cannot read"),
        (["ingest", str(src), "--type", "podcast"], b"must be one of"),
        (["ingest"], b"nothing to ingest"),
        (["ingest", str(tmp_path)], b"is a directory"),
    ]:
        r = gbrain("--db", db, *argv)
        assert r.returncode == 2 and msg in r.stderr, (argv, r.stderr)
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"  \n")
    r = gbrain("--db", db, "ingest", str(empty))
    assert r.returncode == 2 and b"empty" in r.stderr
    assert j(gbrain("--db", db, "stats", "--json"))["ingest_log"] == logged + 1


@pytest.mark.engine_free
def test_ingest_prints_only_the_slug_on_stdout(tmp_path):
    src = tmp_path / "m.md"
    src.write_text("---\ntitle: [bad\n---\nMeeting notes\n")
    r = gbrain("ingest", str(src), "--type", "meeting", "--ref", "r1", "--db", str(tmp_path / "i.db"))
    assert r.returncode == 0
    assert r.stdout.decode().strip().startswith("sources/") and "\n" not in r.stdout.decode().strip()
    assert b"warning:" in r.stderr


@pytest.mark.engine_free
def test_json_mode_reports_every_error_as_json_on_stdout(own_fixture_db):
    """Under --json (and `call`), a script reads one JSON object on stdout whatever went wrong:
    usage errors (exit 2), bad input (2), not found (1); the human message stays on stderr."""
    db = str(own_fixture_db)
    cases = [
        (("search", "--json", "--limit", "abc", "x"), 2, "--limit"),  # typer usage error
        (("search", "--json"), 2, "QUERY"),  # missing argument
        (("--json", "bogus"), 2, "bogus"),  # no such command
        (("get", "--json", "people/ana-lim"), 1, "no page"),
        (("get", "--json", "../etc/passwd"), 2, ""),  # unsafe slug: bad input
        (("call", "brain_get", "{not json"), 2, "not valid JSON"),
        (("call", "brain_nope", "{}"), 2, "unknown tool"),
        (("call", "brain_get", "[1]"), 2, "JSON object"),
    ]
    for args, code, words in cases:
        r = gbrain("--db", db, *args)
        assert r.returncode == code, (args, r.returncode, r.stderr)
        out = json.loads(r.stdout)
        assert isinstance(out, dict) and out["exit_code"] == code, (args, r.stdout)
        assert words in out["error"], (args, out)
        assert r.stderr.strip(), args  # the human message is still on stderr


def _help_texts():
    """(operation, its CLI help text) for every command, rendered as `gbrain CMD --help` shows it."""
    import click

    from gbrain.cli import GROUPS, app

    root = typer.main.get_command(app)
    for o in ops.REGISTRY.values():
        group, _, sub = o.name.partition("-")
        cmd = root.commands[group].commands[sub] if group in GROUPS else root.commands[o.name]
        with click.Context(cmd, info_name=o.name) as c:
            yield o, "\n".join([cmd.help or ""] + [getattr(p, "help", None) or "" for p in cmd.params])


@pytest.mark.engine_free
def test_cli_help_names_no_parameter_the_command_lacks():
    """trial18: `gbrain get --help` said a long page "comes in parts … (pass it as `offset`) …
    `max_chars` 0 reads it whole": the command has neither option and prints the whole page (the
    parts are an agent's, `tool_defaults`). A sentence of the description about a parameter the
    command line does not take (``Param(cli=False)``) is left out of its help; the tool keeps it."""
    helps = dict((o.name, h) for o, h in _help_texts())
    for o in ops.REGISTRY.values():
        agent_only = {p.name for p in o.params if not p.cli}
        named = set(re.findall(r"`([a-z_]+)`", helps[o.name])) & agent_only
        assert not named, (o.name, named, helps[o.name])
    assert helps["get"].startswith("Read a page: its markdown exactly as stored") and "for `put`'s if_hash" in helps["get"]
    tool = next(t for t in ops.tools_json() if t["name"] == "brain_get")
    assert "`max_chars` 0 reads it whole" in tool["description"]


@pytest.mark.engine_free
def test_cli_help_speaks_commands_and_flags_mcp_speaks_tools_and_parameters():
    """The descriptions are written for agents (brain_untag, `include_deleted`); the CLI's help
    shows the command and option names (untag, --include-deleted) instead, translated in one place."""
    helps = dict((o.name, h) for o, h in _help_texts())
    for name, h in helps.items():
        assert "brain_" not in h, (name, h)
    assert "`untag` removes one" in helps["tag"]
    assert "`--include-deleted`" in helps["history-prune"] and "`--apply`" in helps["history-prune"]
    assert "`--depth`" in helps["graph"]
    tools = {t["name"]: t for t in ops.tools_json()}
    assert "brain_untag removes one" in tools["brain_tag"]["description"]
    assert "`include_deleted`" in tools["brain_history_prune"]["description"]
    for t in tools.values():  # MCP: no command-line flags in a tool's description or its parameters'
        texts = [t["description"]] + [p.get("description", "") for p in t["input_schema"]["properties"].values()]
        for text in texts:
            assert not re.search(r"(?<![-\w])--[a-z]", text), (t["name"], text)
    r = gbrain("tag", "--help")
    assert r.returncode == 0 and b"brain_" not in r.stdout and b"untag" in r.stdout


#: what every session of an agent pays for the tool list before the user says anything: the bytes
#: of each tool's name, description and input schema (a host puts those into the model's context;
#: outputSchema it keeps for validation). 36,070 at 95dd4fb, 27,121 after the trim
#: (benchmarks/mcp_tools_size.py measures the served answer). A new tool or text that needs
#: more: shorten elsewhere, or move what a person needs into ``details`` (CLI --help only)
TOOLS_BUDGET = 28_000
#: one tool's description, one parameter's (the longest: lint's `check`, which lists the checks)
DESCRIPTION_MAX, PARAM_DESCRIPTION_MAX = 450, 250


@pytest.mark.engine_free
def test_every_tool_and_parameter_is_described_and_the_list_stays_lean():
    """Every tool has a description and every parameter of its schema one (cursor too); the
    descriptions are short (the longer form is the CLI's help: ``details``, never a second copy)."""
    tools = ops.tools_json()
    for t in tools:
        assert t["description"].strip(), t["name"]
        assert len(t["description"]) <= DESCRIPTION_MAX, (t["name"], len(t["description"]))
        for k, p in t["input_schema"]["properties"].items():
            assert isinstance(p.get("description"), str) and p["description"].strip(), (t["name"], k)
            assert len(p["description"]) <= PARAM_DESCRIPTION_MAX, (t["name"], k, len(p["description"]))
    size = sum(len(json.dumps(t, ensure_ascii=False, separators=(",", ":")).encode("utf-8")) for t in tools)
    assert size <= TOOLS_BUDGET, size
    # the details reach the command line's help only: search's ranking words, lint's checks
    helps = dict((o.name, h) for o, h in _help_texts())
    for name, words in (("search", "BM25"), ("lint", "dead_anchors (a [[Page#Heading]]"), ("put", "standard input")):
        assert words in helps[name], name
        assert words not in ops.REGISTRY[name].description, name


@pytest.mark.engine_free
def test_boolean_flags_have_no_metavar_in_help():
    r = gbrain("tag", "--help")
    assert r.returncode == 0 and b"<bool>" not in r.stdout and b"--json" in r.stdout and b"<str>" in r.stdout
    r = gbrain("--help")
    assert r.returncode == 0 and b"<bool>" not in r.stdout


@pytest.mark.engine_free
def test_an_integer_sent_as_a_whole_float_is_taken_as_the_schema_allows(own_fixture_db):
    """Trial 32: the tool schemas say `"type": "integer"`, which JSON Schema meets with `10.0`
    (a number whose fraction is zero), but `call`, `pipe` and MCP refused it (`must be an
    integer, got a number`): a Python script's `json.dumps(total / 5)` sends `10.0`. A whole
    float is taken as its integer; a fraction, infinity and NaN are still refused."""
    import jsonschema

    o = ops.find("brain_list")
    schema = o.input_schema()
    for v in (10.0, 1e1, -0.0):
        jsonschema.validate({"limit": abs(v)}, schema)
        got = ops.check_args(o, {"limit": abs(v)})["limit"]
        assert got == abs(v) and type(got) is int, v
    for v in (10.5, float("inf"), float("nan")):
        with pytest.raises(ops.BadInput, match="must be an integer, got a number"):
            ops.check_args(o, {"limit": v})
    r = gbrain_in_process("--db", str(own_fixture_db), "call", "brain_list", '{"limit": 2.0}')
    assert r.returncode == 0 and len(json.loads(r.stdout)) == 2, r.stderr
    r = gbrain_in_process("--db", str(own_fixture_db), "call", "brain_search", '{"query": "ana", "limit": 1e0}')
    assert r.returncode == 0 and len(json.loads(r.stdout)) == 1, r.stderr


def test_pipe_says_the_embedding_model_note_once(fixture_db):
    """Trial 32: every `brain_embed` line of a `pipe` printed `note: no OPENAI_API_KEY: using the
    offline minilm model …` on stderr again (1,000 lines: 1,000 notes). The note is for the
    person, said once per process; each answer still carries it in its result's `note`."""
    lines = "".join(json.dumps({"id": i, "tool": "brain_embed", "params": {"slug": "ana-lima", "dry_run": True}}) + "\n" for i in range(3))
    r = gbrain("--db", str(fixture_db), "pipe", input=lines, env={"OPENAI_API_KEY": "", "GBRAIN_EMBEDDING_API_KEY": "", "OPENAI_BASE_URL": "", "GBRAIN_EMBEDDING_BASE_URL": ""})
    out = [json.loads(x) for x in r.stdout.decode().splitlines()]
    assert r.returncode == 0 and [o["ok"] for o in out] == [True] * 3, r.stderr
    assert all("no OPENAI_API_KEY" in o["result"]["note"] for o in out), out
    assert r.stderr.decode().count("no OPENAI_API_KEY") == 1, r.stderr.decode()


@pytest.mark.engine_free
def test_an_unknown_command_that_ends_a_commands_name_is_pointed_at_it():
    """Trial 47: `gbrain prune` (a founder trimming the history) answered "Did you mean 'purge'?",
    the command that removes a text from every version for good, and never named `history-prune`.
    A command whose name ends with `-NAME` comes first; the spelling guesses follow."""
    r = gbrain_in_process("prune")
    err = r.stderr.decode()
    assert r.returncode == 2 and "'history-prune'" in err and err.index("history-prune") < err.find("purge") % 10**6, err
    r = gbrain_in_process("gc")
    assert r.returncode == 2 and "'history-prune'" in r.stderr.decode(), r.stderr.decode()
    r = gbrain_in_process("serach")  # a misspelling keeps click's guess
    assert r.returncode == 2 and "'search'" in r.stderr.decode(), r.stderr.decode()


@pytest.mark.engine_free
def test_an_unknown_tool_that_ends_a_tools_name_is_pointed_at_it():
    """Review of trial 47: the CLI's `prune` was fixed to offer `history-prune` first, but an
    agent's `pipe`/`call` tool `prune` still got "did you mean: purge" alone (and `gc` nothing)."""
    with pytest.raises(ops.BadInput) as e:
        ops.find("prune")
    assert e.value.suggestions[0] == "history-prune", e.value.suggestions
    with pytest.raises(ops.BadInput) as e:
        ops.find("brain_gc")
    assert e.value.suggestions == ["brain_history_prune"], e.value.suggestions
    with pytest.raises(ops.BadInput) as e:
        ops.find("serach")  # a misspelling keeps the spelling guess
    assert e.value.suggestions[0] == "search", e.value.suggestions


@pytest.mark.engine_free
def test_a_duplicate_key_and_an_empty_standard_input_are_named(own_fixture_db):
    """Trial 66, left: a pipe line or call parameters naming one key twice (``{"slug": "a", "slug":
    "b"}``) silently took the last, as Python's json does (RFC 8259 leaves it to the reader); a
    script that built the object by string concatenation read the wrong page with exit 0. And
    ``gbrain call TOOL -`` with nothing on standard input said "Expecting value: line 1 column 1".
    Each is bad input (exit 2) naming the key, or saying the input was empty; nothing runs."""
    db = str(own_fixture_db)
    r = gbrain_in_process("--db", db, "call", "brain_get", '{"slug": "nobody", "slug": "ana-lima"}')
    assert r.returncode == 2 and json.loads(r.stdout)["kind"] == "bad_input", (r.returncode, r.stdout)
    assert "duplicate key 'slug'" in r.stderr.decode() and "slug" not in json.loads(r.stdout), r.stderr
    r = gbrain_in_process("--db", db, "put", "notes/dup", "--frontmatter", '{"type": "note", "type": "person"}', input=b"text\n")
    assert r.returncode == 2 and "--frontmatter is not valid: duplicate key 'type'" in r.stderr.decode(), r.stderr
    assert gbrain_in_process("--db", db, "get", "notes/dup").returncode != 0  # (nothing written)
    r = gbrain_in_process("--db", db, "call", "brain_get", "-", input=b"")
    assert r.returncode == 2 and "standard input is empty" in r.stderr.decode(), r.stderr
    r = gbrain_in_process("--db", db, "call", "brain_get", "-", input=b'{"slug": "ana-lima"}')
    assert r.returncode == 0 and json.loads(r.stdout)["slug"] == "people/ana-lima", r.stderr
    data = b"\n".join([b'{"id": 1, "tool": "brain_get", "params": {"slug": "x", "slug": "ana-lima"}}',
                       b'{"id": 2, "id": 3, "tool": "brain_stats"}', b'{"id": 4, "tool": "brain_get", "params": {"slug": "ana-lima"}}']) + b"\n"
    r = gbrain_in_process("--db", db, "pipe", input=data)
    out = [json.loads(x) for x in r.stdout.decode().splitlines()]
    assert r.returncode == 2, r.stderr
    assert [o.get("id") for o in out] == [None, None, 4], out
    assert out[0]["error"] == "bad JSON line 1 of the input: duplicate key 'slug'", out[0]
    assert out[1]["error"] == "bad JSON line 2 of the input: duplicate key 'id'", out[1]
    assert out[2]["ok"] and out[2]["result"]["slug"] == "people/ana-lima", out[2]


@pytest.mark.engine_free
def test_import_verify_export_and_sync_report_the_folder_as_one_path(tmp_path, monkeypatch):
    """Trial 66, left: `import --json` (and verify's, export's) `root` was the folder as typed
    (`g`), `sync --json`'s the whole path (`/tmp/…/g`): a script keying reports by folder saw two
    folders. Each now gives the absolute path (symlinks as typed, as sync's engine)."""
    (tmp_path / "g").mkdir()
    (tmp_path / "g" / "a.md").write_text("# A\n\ntext\n")
    monkeypatch.chdir(tmp_path)
    db = str(tmp_path / "b.db")
    want = str(tmp_path / "g")
    roots = {}
    for cmd in (["import", "g"], ["verify", "g"], ["sync", "g"], ["export", "--dir", "out"]):
        r = gbrain_in_process("--db", db, *cmd, "--json")
        assert r.returncode == 0, (cmd, r.stderr)
        roots[cmd[0]] = json.loads(r.stdout)["root"]
    assert roots == {"import": want, "verify": want, "sync": want, "export": str(tmp_path / "out")}, roots
