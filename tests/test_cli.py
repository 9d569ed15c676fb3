"""The everyday CLI against a real brain.db: in this process (`gbrain` below, the same exit codes
and streams) where a test is about what a command does, a real subprocess where it is about the
process (`gbrain_process`)."""
from __future__ import annotations

import contextlib
import json
import os
import re
import sqlite3
import subprocess
import sys

import pytest

from conftest import FIXTURE_BRAIN, gbrain_in_process
from conftest import gbrain as gbrain_process
from gbrain import operations as ops
from gbrain.core.brain import Brain
from gbrain.errors import BadInput


@pytest.fixture
def imported(db_path):
    """fixtures/brain imported into the test's brain by the `import` command's operation, as the
    CLI runs it (surface cli), in this process: the tests that take it are about the commands they
    run next; `gbrain import` itself has its own tests (a CLI process costs ~0.25 CPU-s to start)."""
    r = ops.run("import", {"dir": str(FIXTURE_BRAIN)}, ops.Context(db=str(db_path), surface="cli"))
    assert r.get("ok") is not False and not r.get("exit_code"), r  # the CLI's exit 0 (entry.py)
    return db_path


@pytest.fixture
def own_imported(tmp_path, monkeypatch):
    """:func:`imported` into a SQLite brain of the test's own (``$GBRAIN_DB`` set to it), for an
    ``engine_free`` test: one about the command line itself (usage errors, refused names, where a
    folder or ``--json`` is taken, the process's locale and stdout), whose outcome the engine
    cannot change; the Postgres run leaves it out."""
    db = tmp_path / "own.db"
    monkeypatch.setenv("GBRAIN_DB", str(db))
    r = ops.run("import", {"dir": str(FIXTURE_BRAIN)}, ops.Context(db=str(db), surface="cli"))
    assert r.get("ok") is not False and not r.get("exit_code"), r
    return db


def marks(hit):
    """The words a search hit marks (its ``highlights`` in its ``snippet``)."""
    return [hit["snippet"][a:b] for a, b in hit["highlights"]]


def js(r):
    assert r.returncode == 0, (r.returncode, r.stderr.decode())
    return json.loads(r.stdout)


def gbrain(*args: str, input: str | bytes | None = None, env: dict | None = None, cwd=None) -> subprocess.CompletedProcess:
    """The CLI in this process (conftest.gbrain_in_process: the same exit code and stdout/stderr
    bytes as a process, ~0.25 CPU-s less a command), ``cwd`` the working folder for the call: the
    tests here are about what the commands do. Those about the process itself (the locale it
    starts in, a closed stdout, processes writing at once, serve's stdin) run real processes
    (``gbrain_process``, ``subprocess``)."""
    old = os.getcwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        return gbrain_in_process(*args, input=input, env=env)
    finally:
        os.chdir(old)


@contextlib.contextmanager
def exact_env(env: dict):
    """``os.environ`` is exactly ``env`` inside (as a process's ``env=``), restored after."""
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def runner(db: str, env: dict):
    """``run(*args, input=None, check=False)``: ``gbrain --db DB ARGS`` in this process with the
    environment exactly ``env`` as it is at the call (the dict may change between calls);
    ``check`` raises CalledProcessError on a non-zero exit, as ``subprocess.run`` does."""
    def run(*args: str, input: bytes | None = None, check: bool = False) -> subprocess.CompletedProcess:
        with exact_env(env):
            r = gbrain_in_process("--db", db, *args, input=input)
        if check and r.returncode:
            raise subprocess.CalledProcessError(r.returncode, r.args, r.stdout, r.stderr)
        return r
    return run


def test_get_prints_exact_bytes_and_finds_unique_suffix(imported):
    raw = (FIXTURE_BRAIN / "companies" / "river-ai.md").read_bytes()
    assert b"\r\n" in raw
    r = gbrain("get", "companies/river-ai")
    assert r.returncode == 0 and r.stdout == raw
    assert gbrain("get", "river-ai").stdout == raw
    assert gbrain("get", "companies/river-ai.md").stdout == raw


def test_get_miss_suggests_near_names_and_exits_1(imported):
    r = gbrain("get", "people/ana-lim")
    assert r.returncode == 1
    assert b"people/ana-lima" in r.stderr
    out = json.loads(gbrain("get", "ana-lmia", "--json").stdout)
    assert "people/ana-lima" in out["suggestions"]


def test_get_put_roundtrip_changes_nothing(imported):
    before = gbrain("get", "people/ana-lima").stdout
    r = gbrain("put", "people/ana-lima", input=before)
    assert r.returncode == 0 and b"unchanged" in r.stdout
    assert gbrain("get", "people/ana-lima").stdout == before


def test_put_creates_and_updates_from_stdin_and_file(imported, tmp_path):
    r = gbrain("put", "people/new-person", input="---\ntitle: New Person\n---\nHello [[Ana Lima]].\n")
    assert r.returncode == 0 and b"created people/new-person" in r.stdout
    f = tmp_path / "p.md"
    f.write_bytes(b"# Changed\r\n")
    assert gbrain("put", "people/new-person", "--file", str(f)).returncode == 0
    assert gbrain("get", "people/new-person").stdout == b"# Changed\r\n"


@pytest.mark.engine_free
@pytest.mark.parametrize("slug", ["../etc/passwd", "/abs/path", "a/../b", "a\x01b", "", "a//b", "./..", "people\\x"])
def test_unsafe_slugs_exit_2(own_imported, slug):
    r = gbrain("put", slug, input="x")
    assert r.returncode == 2, (slug, r.stderr)
    assert b"error:" in r.stderr
    assert gbrain("get", slug).returncode == 2


@pytest.mark.engine_free
def test_put_invalid_utf8_is_refused_with_exit_2(own_imported):
    r = gbrain("put", "people/bad", input=b"\xff\xfe bad")
    assert r.returncode == 2 and b"UTF-8" in r.stderr


@pytest.mark.parametrize(
    "q",
    ['"unbalanced', "-minus", "col:on", "star*", "AND", "NOT river", "a AND OR NOT", "NEAR(x y)", "知识库", "🧠 brain", "'", "(", ")", "^", "river-ai", "a:b:c -d \"e"],
)
def test_search_never_raises_fts_syntax_errors(imported, q):
    r = gbrain("search", "--json", "--", q)
    assert r.returncode == 0, r.stderr.decode()
    assert isinstance(json.loads(r.stdout), list)


def test_search_ranks_title_and_snippet(imported):
    hits = js(gbrain("search", "River AI", "--json"))
    assert hits[0]["slug"] == "companies/river-ai"
    assert all(set(h) == {"slug", "title", "type", "score", "snippet", "highlights", "signals"} for h in hits)
    assert js(gbrain("search", "river", "--type", "deal", "--json"))[0]["slug"] == "deals/river-ai-series-a"
    assert js(gbrain("search", "GPU inference", "--limit", "1", "--json")).__len__() == 1


def test_list_stats_tags(imported):
    people = js(gbrain("list", "--type", "person", "--json"))
    assert [p["slug"] for p in people] == ["people/ana-lima", "people/bruno-okafor"]
    assert [p["slug"] for p in js(gbrain("list", "--tag", "active", "--json"))] == ["deals/river-ai-series-a"]
    assert len(js(gbrain("list", "--limit", "2", "--json"))) == 2
    st = js(gbrain("stats", "--json"))
    assert st["pages"] == 6 and st["raw_data"] == 3 and st["timeline_entries"] == 6
    assert st["by_type"]["person"] == 2
    assert js(gbrain("tags", "people/ana-lima", "--json")) == ["founder", "yc-alum"]
    assert b"Pages: 6" in gbrain("stats").stdout


def test_tag_untag_edit_frontmatter(imported):
    assert gbrain("tag", "people/ana-lima", "priority").returncode == 0
    text = gbrain("get", "people/ana-lima").stdout.decode()
    assert "tags: [founder, yc-alum, priority]" in text
    assert js(gbrain("tags", "ana-lima", "--json")) == ["founder", "yc-alum", "priority"]
    assert gbrain("untag", "people/ana-lima", "founder").returncode == 0
    assert "tags: [yc-alum, priority]" in gbrain("get", "people/ana-lima").stdout.decode()
    r = gbrain("untag", "people/ana-lima", "nope")  # nothing to remove: said, no error (a retry is safe)
    assert r.returncode == 0 and "has no tag 'nope': nothing removed" in r.stdout.decode()
    r = gbrain("untag", "people/ana-lima", "yc-alumm")  # a typo: the page's tags are listed
    assert r.returncode == 0 and "its tags: yc-alum, priority" in r.stdout.decode()
    # comma-string tags on a CRLF page stay a CRLF comma string
    assert gbrain("tag", "companies/river-ai", "gpu").returncode == 0
    assert b"tags: ai, infra, gpu\r\n" in gbrain("get", "companies/river-ai").stdout


def test_timeline_add_appends_markdown_and_row(imported):
    r = gbrain("timeline-add", "people/bruno-okafor", "--date", "2025-04-01", "--summary", "Intro call with Ana", "--source", "call", "--detail", "Went well.\nFollow up in May.")
    assert r.returncode == 0, r.stderr
    text = gbrain("get", "people/bruno-okafor").stdout.decode()
    assert "- **2025-04-01** | call — Intro call with Ana\n  Went well.\n  Follow up in May.\n" in text
    tl = js(gbrain("timeline", "people/bruno-okafor", "--json"))
    assert tl[0] == {"date": "2025-04-01", "source": "call", "summary": "Intro call with Ana", "detail": "Went well.\nFollow up in May."}
    assert gbrain("timeline-add", "people/bruno-okafor", "--date", "2025-13-01", "--summary", "x").returncode == 2
    assert gbrain("timeline-add", "people/bruno-okafor", "--date", "yesterday", "--summary", "x").returncode == 2


def test_link_unlink_links_backlinks(imported):
    assert gbrain("link", "people/bruno-okafor", "deals/river-ai-series-a", "--context", "considering leading").returncode == 0
    text = gbrain("get", "people/bruno-okafor").stdout.decode()
    assert "[River AI Series A](../deals/river-ai-series-a.md) — considering leading" in text
    back = [b["slug"] for b in js(gbrain("backlinks", "deals/river-ai-series-a", "--json"))]
    assert "people/bruno-okafor" in back
    # linking again changes nothing
    assert b"unchanged" in gbrain("link", "people/bruno-okafor", "deals/river-ai-series-a").stdout
    links = js(gbrain("links", "people/ana-lima", "--json"))
    assert {"target": "Bruno Okafor", "to_slug": "people/bruno-okafor"}.items() <= next(x for x in links if x["kind"] == "wiki").items()
    assert gbrain("unlink", "people/bruno-okafor", "deals/river-ai-series-a").returncode == 0
    assert "people/bruno-okafor" not in [b["slug"] for b in js(gbrain("backlinks", "deals/river-ai-series-a", "--json"))]
    assert "River AI Series A — considering leading" in gbrain("get", "people/bruno-okafor").stdout.decode()


def test_dangling_link_resolves_when_page_appears(imported):
    links = js(gbrain("links", "concepts/hybrid-retrieval", "--json"))
    assert links == [{"target": "Agent memory", "to_slug": None, "kind": "wiki", "context": links[0]["context"], "count": 1, "forms": ["[[Agent memory]]"], "labels": []}]
    gbrain("put", "concepts/agent-memory", input="# Agent memory\n")
    assert js(gbrain("links", "concepts/hybrid-retrieval", "--json"))[0]["to_slug"] == "concepts/agent-memory"


def test_config_get_set_and_version(imported):
    assert gbrain("config", "get", "timeline_split").stdout.strip() == b"rule"
    assert gbrain("config", "set", "timeline_split", "bogus").returncode == 2
    assert gbrain("config", "set", "timeline_split", "heading").returncode == 0
    assert gbrain("config", "get", "timeline_split").stdout.strip() == b"heading"
    assert gbrain("config", "get", "nope").returncode == 2  # a key gbrain does not know: usage, as config set
    assert gbrain("version").stdout.startswith(b"gbrain ")
    assert js(gbrain("version", "--json"))["schema_version"] >= 1


@pytest.mark.engine_free
def test_db_flag_before_or_after_command_and_env(tmp_path):
    a, b = tmp_path / "a.db", tmp_path / "b.db"
    assert gbrain("--db", str(a), "init").returncode == 0
    assert gbrain("init", "--db", str(b)).returncode == 0
    assert a.exists() and b.exists()
    assert gbrain("put", "x/y", "--db", str(a), input="hi").returncode == 0
    assert gbrain("get", "x/y", env={"GBRAIN_DB": str(a)}).stdout == b"hi"
    assert gbrain("--db", str(b), "get", "x/y").returncode == 1


@pytest.mark.engine_free
def test_missing_db_is_a_clear_error(tmp_path):
    r = gbrain("get", "x", "--db", str(tmp_path / "none.db"))
    assert r.returncode == 2 and b"no brain at" in r.stderr  # a path that is no brain: bad input
    assert not (tmp_path / "none.db").exists()


@pytest.mark.engine_free
def test_missing_default_brain_names_the_folder_it_looked_in(tmp_path):
    """Trial 24: `gbrain search foo` in a folder other than the one the import ran in said "no brain
    at brain.db": the default is relative to where the command runs, and the line did not say
    where that was. A relative path is shown with the folder it was looked for in."""
    r = gbrain("search", "foo", cwd=tmp_path, env={"GBRAIN_DB": ""})
    assert r.returncode == 2, r.stderr
    assert r.stderr.decode().startswith(f"error: no brain at brain.db in {tmp_path} ("), r.stderr
    r = gbrain("get", "x", "--db", str(tmp_path / "none.db"))
    assert f"no brain at {tmp_path / 'none.db'} (".encode() in r.stderr, r.stderr  # an absolute path as given


@pytest.mark.engine_free
def test_not_a_database_is_a_clear_error(tmp_path):
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"this is not sqlite" * 100)
    r = gbrain("stats", "--db", str(bad))
    assert r.returncode == 2 and b"not a usable brain database" in r.stderr  # not a brain file: bad input


@pytest.mark.engine_free
def test_usage_errors_exit_2(own_imported):
    assert gbrain("nosuchcommand").returncode == 2
    assert gbrain("search").returncode == 2
    assert gbrain("list", "--limit", "abc").returncode == 2
    assert gbrain("import", "/no/such/dir").returncode == 2


@pytest.mark.engine_free
@pytest.mark.parametrize("args, words", [
    (("search", "revenue", "--limit", "abc"), "'--limit'"),
    (("search", "-revenue"), "no such option: -r"),
    (("search",), "QUERY"),
    (("nosuchcommand",), "nosuchcommand"),
    (("tag", "a", "b", "c", "d"), "unexpected extra argument"),
    (("config", "get", "--bogus"), "--bogus"),
])
def test_usage_errors_are_one_line(tmp_path, args, words):
    """typer/click printed a usage line, a hint and a framed multi-line box: now one line,
    ``error: …`` and the command's help to read, exit 2 as before."""
    r = gbrain("--db", str(tmp_path / "b.db"), *args)
    err = r.stderr.decode()
    assert r.returncode == 2, err
    assert len(err.splitlines()) == 1 and err.startswith("error: ") and "╭" not in err, err
    assert words.lower() in err.lower() and "--help" in err, err
    assert not (tmp_path / "b.db").exists()


@pytest.mark.engine_free
@pytest.mark.parametrize("args, want", [
    (("threads", "--older-than", "x"), "invalid value for '--older-than': 'x' is not a whole number (gbrain threads --help)"),
    (("list", "--limit", "1.5"), "invalid value for '--limit': '1.5' is not a whole number (gbrain list --help)"),
    (("graph", "a", "--depth", ""), "invalid value for '--depth': '' is not a whole number (gbrain graph --help)"),
])
def test_a_bad_number_says_so_in_gbrain_words(tmp_path, args, want):
    """`threads --older-than x` printed the validation library's words ("Input should be a valid
    integer, unable to parse string as an integer", trial18): now what was given and what the
    option takes, for every integer option."""
    r = gbrain_in_process("--db", str(tmp_path / "b.db"), *args)
    assert r.returncode == 2
    assert r.stderr.decode() == f"error: {want}\n"
    assert not (tmp_path / "b.db").exists()


@pytest.mark.engine_free
@pytest.mark.parametrize("args, want", [
    (("search", "x", "--limit"), "option '--limit' requires an argument (gbrain search --help)"),
    (("put", "a", "--timeline-append"), "option '--timeline-append' requires an argument (gbrain put --help)"),
    (("get", "a", "--version"), "option '--version' requires an argument (gbrain get --help)"),
])
def test_an_option_missing_its_value_names_the_commands_help(tmp_path, args, want):
    """`gbrain search x --limit` said `(gbrain --help)` (click raises that error with no command
    context; trial58), where every other usage error names the command's own help."""
    r = gbrain_in_process("--db", str(tmp_path / "b.db"), *args)
    err = r.stderr.decode()
    assert r.returncode == 2, err
    assert err.startswith("error: ") and err.endswith(f"{want}\n"), err
    assert not (tmp_path / "b.db").exists()


@pytest.mark.engine_free
@pytest.mark.parametrize("args, path", [((), "gbrain"), (("config",), "gbrain config")])
def test_no_command_shows_the_help_and_says_what_is_missing(tmp_path, args, path):
    """`gbrain` alone (and `gbrain config`) printed the help and then `error:  (gbrain --help)`:
    an empty message (typer's rich help prints itself, so click's message is ''). Now the help
    and one line naming what is missing, exit 2; under --json the error object too."""
    r = gbrain("--db", str(tmp_path / "b.db"), *args)
    assert r.returncode == 2 and b"Usage:" in r.stdout
    assert r.stderr.decode() == f"error: missing command ({path} --help)\n"
    j = gbrain("--db", str(tmp_path / "b.db"), *args, "--json")
    assert j.returncode == 2
    assert json.loads(j.stdout) == {"error": f"missing command ({path} --help)", "exit_code": 2, "kind": "bad_input"}


@pytest.mark.sqlite_only("opens the brain file with sqlite3: WAL journal mode, user_version, sqlite_master and the FTS5 tokenizer")
def test_schema_pragmas(imported):
    conn = sqlite3.connect(imported)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA user_version").fetchone()[0] >= 1
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")}  # (raw_data: a view since v40)
    assert {"pages", "page_fts", "page_embeddings", "links", "tags", "raw_data", "timeline_entries", "ingest_log", "config", "files"} <= tables
    assert "porter unicode61" in conn.execute("SELECT sql FROM sqlite_master WHERE name = 'page_fts'").fetchone()[0]


@pytest.mark.engine_free
def test_tools_json_lists_registry(own_imported):
    tools = json.loads(gbrain("--tools-json").stdout)
    names = {t["name"] for t in tools}
    assert {"brain_search", "brain_get", "brain_put", "brain_link", "brain_timeline", "brain_timeline_add", "brain_tags", "brain_tag", "brain_list", "brain_backlinks", "brain_stats", "brain_raw"} <= names
    assert all({"name", "description", "input_schema"} == set(t) for t in tools)


def test_call_and_raw(imported):
    r = js(gbrain("call", "brain_raw", json.dumps({"slug": "people/ana-lima", "source": "crustdata"})))
    assert r == {"crustdata": {"name": "Ana Lima", "title": "CEO", "connections": 812}}
    w = js(gbrain("call", "brain_raw", json.dumps({"slug": "people/bruno-okafor", "source": "exa", "data": {"hits": 3}})))
    assert w["changed"] and w["path"] == "people/.raw/bruno-okafor.json"
    assert js(gbrain("raw", "bruno-okafor", "--json")) == {"exa": {"hits": 3}}
    assert gbrain("call", "brain_nope", "{}").returncode == 2
    assert gbrain("call", "brain_get", "{not json").returncode == 2
    assert gbrain("call", "brain_get", '{"slug": "x", "extra": 1}').returncode == 2


def test_a_raw_write_says_what_it_wrote_in_words_as_every_write(imported):
    """Trial s59: `gbrain raw SLUG --source S --data JSON` (and `raw-put`) printed its result as a
    JSON object without `--json` ({"slug": …, "changed": true}), where every other write says
    `updated SLUG`. Now a line in words; `--json` keeps the object; a read still prints the JSON
    data, which is the content asked for."""
    for cmd in ("raw", "raw-put"):
        r = gbrain(cmd, "bruno-okafor", "--source", "exa", "--data", '{"hits": 3}')
        assert r.returncode == 0 and r.stdout.decode() in (
            "updated people/bruno-okafor: raw data exa in people/.raw/bruno-okafor.json\n",
            "unchanged people/bruno-okafor: raw data exa in people/.raw/bruno-okafor.json\n"), (cmd, r.stdout, r.stderr)
    assert gbrain("raw", "bruno-okafor", "--source", "exa", "--data", '{"hits": 3}').stdout.decode().startswith("unchanged ")
    assert js(gbrain("raw", "bruno-okafor", "--source", "exa", "--data", '{"hits": 4}', "--json"))["changed"] is True
    assert json.loads(gbrain("raw", "bruno-okafor").stdout) == {"exa": {"hits": 4}}


def test_a_raw_read_prints_the_json_as_stored_private_use_characters_too(imported):
    """Since raw's write got a line in words (83997a0f), a read went through the text renderer's
    hit marks (U+E000/U+E001, made bold or dropped): an icon font's code point in a provider's
    JSON (Material Icons start at U+E000) vanished from `gbrain raw SLUG`, which a script parses.
    The read prints the data it read: those characters as JSON escapes, loading to the same."""
    data = {"glyph": "\ue000x\ue001", "name": "Zoë"}
    assert gbrain("raw", "bruno-okafor", "--source", "icons", "--data", json.dumps(data)).returncode == 0
    assert json.loads(gbrain("raw", "bruno-okafor", "--source", "icons").stdout) == {"icons": data}
    assert json.loads(gbrain("raw", "bruno-okafor").stdout)["icons"] == data


def test_stdout_is_utf8_under_c_locale(imported):
    gbrain("put", "people/zoë", input="# Zoë 🧠\n")
    r = gbrain_process("get", "people/zoë", env={"LC_ALL": "C", "LANG": "C", "PYTHONIOENCODING": ""})  # the locale a process starts in
    assert r.returncode == 0 and r.stdout == "# Zoë 🧠\n".encode()
    assert os.environ.get("GBRAIN_DB")


def test_cjk_word_inside_a_run_is_found(imported):
    gbrain("put", "concepts/zh", input="# 中文笔记\n\n这是一个知识库系统，用于个人笔记。\n")
    hits = js(gbrain("search", "知识库", "--json"))
    assert [h["slug"] for h in hits] == ["concepts/zh"]
    assert [hits[0]["snippet"][a:b] for a, b in hits[0]["highlights"]] == ["知识库"]
    assert js(gbrain("search", "不存在的词", "--json")) == []


def test_partial_put_keeps_the_rest_byte_exact(imported):
    before = gbrain("get", "people/bruno-okafor").stdout.decode()
    r = gbrain("call", "brain_put", json.dumps({"slug": "people/bruno-okafor", "compiled_truth": "# Bruno Okafor\n\nNew truth."}))
    assert r.returncode == 0
    after = gbrain("get", "people/bruno-okafor").stdout.decode()
    fm_end = before.index("---\n", 4) + 4
    assert after[:fm_end] == before[:fm_end]
    assert after[fm_end:].startswith("\n# Bruno Okafor\n\nNew truth.\n\n---\n")
    assert after.endswith(before[before.index("\n---\n", fm_end):].split("\n---\n", 1)[1])


def test_timeline_append_on_a_new_page_is_a_real_timeline(imported):
    # timeline lines alone never create a page (a typo'd slug made junk pages): a compiled truth does
    r = gbrain("call", "brain_put", json.dumps({"slug": "concepts/fresh", "timeline_append": "- **2025-01-01** | note — first"}))
    assert r.returncode == 1 and b"no page 'concepts/fresh'" in r.stdout
    r = gbrain("call", "brain_put", json.dumps({"slug": "concepts/fresh", "compiled_truth": "# Fresh\n", "timeline_append": "- **2025-01-01** | note — first"}))
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["warnings"] == []
    assert js(gbrain("timeline", "concepts/fresh", "--json"))[0]["summary"] == "first"
    assert gbrain("timeline-add", "concepts/fresh", "--date", "2025-02-01", "--summary", "second").returncode == 0
    assert len(js(gbrain("timeline", "concepts/fresh", "--json"))) == 2


def test_search_snippet_on_a_huge_page(imported, tmp_path):
    f = tmp_path / "big.md"
    f.write_text("# Huge\n\n" + "filler words here " * 20000 + "the needle sits here " + "alpha beta " * 30000)
    assert gbrain("put", "notes/huge", "--file", str(f)).returncode == 0
    hits = js(gbrain("search", "needle", "--json"))
    assert hits[0]["slug"] == "notes/huge"
    h = hits[0]
    assert [h["snippet"][a:b] for a, b in h["highlights"]] == ["needle"] and len(h["snippet"]) < 400


def test_put_with_a_short_slug_updates_the_page_it_names(imported):
    before = gbrain("get", "ana-lima").stdout
    r = gbrain("put", "ana-lima", input=before + b"\nOne more line.\n")
    assert r.returncode == 0 and b"updated people/ana-lima" in r.stdout
    assert [p["slug"] for p in js(gbrain("list", "--json", "--limit", "0")) if p["slug"] in ("ana-lima", "people/ana-lima")] == ["people/ana-lima"]
    r = gbrain("call", "brain_put", json.dumps({"slug": "bruno-okafor", "content": "# Bruno\n"}))
    assert json.loads(r.stdout)["slug"] == "people/bruno-okafor"
    r = gbrain("call", "brain_put", json.dumps({"slug": "Bruno-Okafor", "content": "# Bruno\n"}))  # another case: refused
    assert r.returncode == 2 and "people/bruno-okafor" in json.loads(r.stdout)["error"]
    assert gbrain("put", "newname", input="# new\n").stdout.startswith(b"created newname")


@pytest.mark.engine_free
def test_db_that_is_a_folder_is_a_clear_error(own_imported, tmp_path):
    for args, env in ((["stats", "--db", str(tmp_path)], None), (["stats"], {"GBRAIN_DB": str(tmp_path)})):
        r = gbrain(*args, env=env)
        assert r.returncode == 2 and b"is a folder" in r.stderr and b"Traceback" not in r.stderr


def test_config_set_refuses_unknown_and_readonly_keys(imported):
    r = gbrain("config", "set", "timline_split", "heading")
    assert r.returncode == 2 and b"did you mean 'timeline_split'" in r.stderr
    assert gbrain("config", "set", "version", "99").returncode == 2
    r = gbrain("config", "set", "embedding_dimensions", "abc")
    assert r.returncode == 2 and b"expected a whole number" in r.stderr
    r = gbrain("config", "set", "timeline_split", "bogus")
    assert r.returncode == 2 and b"expected rule or heading" in r.stderr
    from gbrain.core.brain import SETTABLE_CONFIG

    assert all(isinstance(expects, str) and expects for _, expects in SETTABLE_CONFIG.values())  # every key's error says what it takes
    assert gbrain("config", "set", "embedding_dimensions", "512").returncode == 0
    assert gbrain("config", "get", "version").stdout.strip() == b"1"


def test_config_set_chunk_strategy_takes_only_the_chunking_gbrain_does(imported):
    # trial 42: `config set chunk_strategy paragraph` (or page) was stored and listed as the
    # setting, but nothing reads it: embed always chunks by section
    r = gbrain_in_process("config", "set", "chunk_strategy", "paragraph")
    assert r.returncode == 2 and b"expected section" in r.stderr, r.stderr
    assert gbrain_in_process("config", "get", "chunk_strategy").stdout.strip() == b"section"
    assert gbrain_in_process("config", "set", "chunk_strategy", "section").returncode == 0


def test_emoji_and_symbols_are_found_as_substrings(imported):
    gbrain("put", "notes/games", input="# 🎮 Video games\n\nDone ✅ today.\n")
    assert [h["slug"] for h in js(gbrain("search", "🎮", "--json"))] == ["notes/games"]
    assert [h["slug"] for h in js(gbrain("search", "✅", "--json"))] == ["notes/games"]
    assert js(gbrain("search", "🦄", "--json")) == []


def test_a_page_cannot_link_to_itself(imported):
    r = gbrain("link", "people/ana-lima", "ana-lima")
    assert r.returncode == 2 and b"itself" in r.stderr


def test_linking_pages_already_linked_says_so_and_that_the_context_was_not_written(imported):
    gbrain("link", "people/ana-lima", "companies/river-ai")  # linked now, whatever it was before
    before = gbrain("get", "people/ana-lima").stdout
    r = gbrain("link", "people/ana-lima", "companies/river-ai", "--context", "met at the fair")
    assert r.returncode == 0 and b"already links to companies/river-ai" in r.stdout and b"context was not written" in r.stdout, r.stdout
    assert gbrain("get", "people/ana-lima").stdout == before


@pytest.mark.engine_free
def test_json_flag_before_the_command(own_imported):
    assert json.loads(gbrain("--json", "stats").stdout)["pages"] == 6
    assert json.loads(gbrain("--json", "config", "get", "timeline_split").stdout) == "rule"
    assert json.loads(gbrain("--json", "--db", os.environ["GBRAIN_DB"], "tags", "ana-lima").stdout) == ["founder", "yc-alum"]


def test_list_says_when_it_stops_at_the_limit(imported):
    r = gbrain("list", "--limit", "2")
    assert b"the first 2; --limit 0 lists all" in r.stderr  # a note for the person: stdout holds the pages only
    assert b"--limit 0" not in gbrain("list").stderr


def test_a_listing_of_exactly_limit_items_is_not_said_cut(imported):
    """`list --limit 6` of a 6-page brain said "… the first 6; --limit 0 lists all" though there is no
    7th: a listing is fetched one past its limit to know whether it was cut."""
    n = len(gbrain("list", "--limit", "0").stdout.splitlines())
    r = gbrain("list", "--limit", str(n))
    assert r.returncode == 0 and len(r.stdout.splitlines()) == n and r.stderr == b"", r.stderr
    assert json.loads(gbrain("list", "--limit", str(n), "--json").stdout).__len__() == n
    r = gbrain("list", "--limit", str(n - 1))
    assert len(r.stdout.splitlines()) == n - 1 and f"the first {n - 1}; --limit 0 lists all".encode() in r.stderr, r.stderr
    assert len(json.loads(gbrain("list", "--limit", str(n - 1), "--json").stdout)) == n - 1
    c = len(gbrain("changes", "--limit", "0").stdout.splitlines())
    r = gbrain("changes", "--limit", str(c))
    assert r.returncode == 0 and len(r.stdout.splitlines()) == c and r.stderr == b"", r.stderr
    r = gbrain("call", "brain_list", json.dumps({"limit": n}))
    assert r.returncode == 0 and len(json.loads(r.stdout)["items"] if isinstance(json.loads(r.stdout), dict) else json.loads(r.stdout)) == n and b"lists all" not in r.stderr, r.stderr


@pytest.mark.sqlite_only("FTS5's snippet() chooses the fragment; Postgres' ts_headline chooses another one (labels are shown, not link syntax, on both)")
def test_snippets_show_link_labels_not_link_syntax(imported):
    hits = js(gbrain("search", "River AI", "--json"))
    bruno = next(h for h in hits if h["slug"] == "people/bruno-okafor")
    assert "[[" not in bruno["snippet"] and "](" not in bruno["snippet"]
    assert "the River AI round" in bruno["snippet"] and "River" in marks(bruno) and "AI" in marks(bruno)
    ana = next(h for h in hits if h["slug"] == "people/ana-lima")
    assert "CEO of River AI." in ana["snippet"] and ".md" not in ana["snippet"]


def test_parallel_writers_to_one_page_lose_nothing(imported):
    import subprocess
    import sys

    def spawn(*args):
        return subprocess.Popen([sys.executable, "-m", "gbrain", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    procs = [spawn("tag", "people/bruno-okafor", f"t{i}") for i in range(6)]
    procs += [spawn("timeline-add", "people/bruno-okafor", "--date", f"2025-02-{i + 10}", "--summary", f"e{i}") for i in range(6)]
    procs += [spawn("raw", "people/bruno-okafor", "--source", f"s{i}", "--data", "{}") for i in range(3)]
    for p in procs:
        assert p.wait(timeout=120) == 0, p.stderr.read()
    assert set(js(gbrain("tags", "people/bruno-okafor", "--json"))) >= {f"t{i}" for i in range(6)}
    assert {e["summary"] for e in js(gbrain("timeline", "people/bruno-okafor", "--json"))} >= {f"e{i}" for i in range(6)}
    assert set(js(gbrain("raw", "people/bruno-okafor", "--json"))) == {f"s{i}" for i in range(3)}


@pytest.mark.parametrize(
    "text,args",
    [
        ("intro\n```\nunclosed code\n", ("timeline-add", "--date", "2025-01-01", "--summary", "met")),
        ("---\n\nIntro paragraph about Ana.\n", ("timeline-add", "--date", "2025-01-01", "--summary", "met")),
        ("intro\n```\nunclosed code\n", ("link", "people/ana-lima")),
    ],
)
def test_an_edit_the_page_cannot_hold_is_refused_and_writes_nothing(imported, text, args):
    gbrain("put", "notes/odd", input=text)
    r = gbrain(args[0], "notes/odd", *args[1:])
    assert r.returncode == 1 and b"nothing was written" in r.stderr
    assert gbrain("get", "notes/odd").stdout.decode() == text


def test_timeline_add_in_heading_mode_creates_the_heading(imported):
    assert gbrain("config", "set", "timeline_split", "heading").returncode == 0
    gbrain("put", "notes/h", input="# H\n\nProse.\n")
    assert gbrain("timeline-add", "notes/h", "--date", "2025-01-01", "--summary", "first").returncode == 0
    assert gbrain("get", "notes/h").stdout.decode() == "# H\n\nProse.\n\n---\n\n## Timeline\n\n- **2025-01-01** | first\n"
    assert js(gbrain("timeline", "notes/h", "--json"))[0]["summary"] == "first"


@pytest.mark.parametrize(
    "text",
    [
        "# H\n\nIntro.\n\n---\n\nMore.\n\n## Timeline\n\n- **2025-01-01** | first\n",  # a plain rule above
        "# H\n\nIntro.\n\n## Timeline\n\n- **2025-01-01** | first\n",  # no rule at all
    ],
)
def test_timeline_add_in_heading_mode_uses_the_pages_own_timeline_heading(imported, text):
    assert gbrain("config", "set", "timeline_split", "heading").returncode == 0
    gbrain("put", "notes/h", input=text)
    assert gbrain("timeline-add", "notes/h", "--date", "2025-02-01", "--summary", "second").returncode == 0
    out = gbrain("get", "notes/h").stdout.decode()
    assert out.count("## Timeline") == 1 and out.endswith("- **2025-02-01** | second\n- **2025-01-01** | first\n")  # newest first
    assert out.replace("---\n## Timeline", "## Timeline") == text.replace("- **2025-01-01**", "- **2025-02-01** | second\n- **2025-01-01**")
    assert sorted(e["summary"] for e in js(gbrain("timeline", "notes/h", "--json"))) == ["first", "second"]


@pytest.mark.parametrize("text", ["# N\n\nIntro.\n", "# H\n\nIntro.\n\n## Timeline\n\n- **2025-01-01** | first\n"])
def test_put_timeline_append_in_heading_mode_writes_the_timeline_section_timeline_add_would(imported, text):
    """A trial: under timeline_split heading, `put --timeline-append` wrote a bare '---' before
    each entry and `timeline` then listed none; it now writes (or uses) the '## Timeline'
    section, as timeline-add does, and every entry is listed."""
    assert gbrain("config", "set", "timeline_split", "heading").returncode == 0
    gbrain("put", "notes/n", input=text)
    for d in ("2025-03-01", "2025-03-02"):
        r = gbrain("put", "notes/n", "--timeline-append", f"- **{d}** | entry {d}")
        assert r.returncode == 0, r.stderr
    out = gbrain("get", "notes/n").stdout.decode()
    assert out.count("---") == 1 and out.count("## Timeline") == 1, out
    want = {"entry 2025-03-01", "entry 2025-03-02"} | ({"first"} if "first" in text else set())
    assert {e["summary"] for e in js(gbrain("timeline", "notes/n", "--json"))} == want


def test_put_of_a_name_that_differs_only_in_case_refuses_and_names_the_page(imported):
    """`put meeting` over a page `Meeting` used to replace it ("updated Meeting": a vault's
    4 KB SCHEMA.md became 9 bytes from `put schema`). A name that differs only in case is
    another name: put refuses and names the page, whole or partial; the exact name and a
    unique suffix in its own case still update."""
    assert gbrain("put", "notes/Meeting", input="# Upper\n").returncode == 0
    for args, inp in ((("put", "notes/meeting"), "# lower\n"), (("put", "MEETING"), "# lower\n"),
                      (("put", "notes/meeting", "--timeline-append", "- **2025-01-01** | x"), None)):
        r = gbrain(*args, input=inp)
        assert r.returncode == 2, (args, r.stderr)
        assert b"notes/Meeting" in r.stderr and b"case" in r.stderr
    assert gbrain("get", "notes/Meeting").stdout == b"# Upper\n"
    assert gbrain("put", "Meeting", input="# Upper 2\n").returncode == 0  # a unique suffix, same case
    assert gbrain("get", "notes/Meeting").stdout == b"# Upper 2\n"
    assert gbrain("put", "river-ai", "--timeline-append", "- **2025-01-01** | x").returncode == 0


def test_put_of_another_spelling_of_a_pages_name_refuses_and_names_the_page(imported):
    """An agent trial: `brain_put people/priya_raman` (and `People/Priya Raman`) beside the page
    `people/priya-raman` created a second page, with no warning; the skills' slug rule turns both
    names into `people/priya-raman`. put refuses a new name that differs from a page's only in
    case, spaces, underscores or punctuation (each folder and the file name), names the page and
    writes nothing; `--if-hash ''` (only a new page) creates it anyway. Another folder with the
    same file name is another page."""
    for args, inp in ((("put", "people/ana_lima"), "# twin\n"), (("put", "People/Ana Lima"), "# twin\n"),
                      (("put", "people/Ana.Lima", "--compiled-truth", "# twin"), None)):
        r = gbrain(*args, input=inp)
        assert r.returncode == 2, (args, r.stderr)
        assert b"people/ana-lima" in r.stderr and b"--if-hash ''" in r.stderr, r.stderr
    listed = js(gbrain("list", "--json", "--limit", "0"))
    slugs = {p["slug"] for p in (listed["items"] if isinstance(listed, dict) else listed)}
    assert "people/ana-lima" in slugs and not slugs & {"people/ana_lima", "People/Ana Lima", "people/Ana.Lima"}
    assert gbrain("put", "people/ana_lima", "--if-hash", "", input="# another Ana\n").returncode == 0
    assert gbrain("get", "people/ana_lima").stdout == b"# another Ana\n"
    assert gbrain("put", "notes/ana-lima", input="# a note\n").returncode == 0  # another folder: another page


def test_put_of_a_name_with_other_symbols_is_a_new_page(imported):
    """The spelling-twin refusal (above) is for case and separators only: `lang/c++` or `lang/c#`
    beside `lang/c` is another page (a brain about programming languages has all three), though
    their loose keys (what links match by) are the same."""
    assert gbrain("put", "lang/c", input="# C\n").returncode == 0
    for name in ("lang/c++", "lang/c#", "lang/C-Sharp"):
        r = gbrain("put", name, input=f"# {name}\n")
        assert r.returncode == 0, (name, r.stderr)
    assert gbrain("get", "lang/c++").stdout == b"# lang/c++\n"
    r = gbrain("put", "lang/c_sharp", input="# twin\n")  # a separator apart from lang/C-Sharp: refused
    assert r.returncode == 2 and b"lang/C-Sharp" in r.stderr, r.stderr


def test_get_reads_the_roots_index_and_log_files(imported):
    """The root's index.md / log.md are files, not pages (the spec); `get index` answered "no
    page 'index'; did you mean …" though it is a wiki's main catalogue. It prints the file's
    bytes (JSON: type "file"); a file that is not UTF-8 text is still not a page."""
    raw = (FIXTURE_BRAIN / "index.md").read_bytes()
    for name in ("index", "index.md"):
        r = gbrain("get", name)
        assert r.returncode == 0 and r.stdout == raw, r.stderr
    out = js(gbrain("get", "index", "--json"))
    assert out["slug"] == "index.md" and out["type"] == "file" and out["content"].encode() == raw
    assert gbrain("get", "nosuchthing").returncode == 1


@pytest.mark.engine_free
@pytest.mark.parametrize("slug", [".git/hooks/pre-commit", "people/.raw/note", "a/.hg/x", "x" * 250, "notes/.gbrain-tmp-1-x"])
def test_slugs_that_cannot_round_trip_are_refused(own_imported, slug):
    r = gbrain("put", slug, input="# x\n")
    assert r.returncode == 2, (slug, r.stderr)


def test_put_refuses_paths_that_clash_with_stored_files(imported):
    r = gbrain("put", "people/ana-lima.md/child", input="# x\n")
    assert r.returncode == 2 and b"cannot also be a folder" in r.stderr
    assert gbrain("put", "people", input="# x\n").returncode == 0  # people.md beside people/ is fine
    r = gbrain("put", "index", input="# x\n")
    assert r.returncode == 2 and b"non-page file" in r.stderr


def test_put_refuses_a_page_over_16_mib(imported, tmp_path):
    f = tmp_path / "big.md"
    f.write_text("y" * (16 * 1024 * 1024 + 1))
    r = gbrain("put", "notes/huge", "--file", str(f))
    assert r.returncode == 2 and b"MiB" in r.stderr


@pytest.mark.engine_free
def test_export_of_a_long_name_and_an_unwritable_path_reports_and_goes_on(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    long = "z" * 250 + ".md"
    (src / long).write_text("long\n")
    (src / "a.md").write_text("a\n")
    db = str(tmp_path / "l.db")
    assert gbrain("import", str(src), "--db", db).returncode == 0
    out = tmp_path / "out"
    out.mkdir()
    (out / "a.md").mkdir()  # a folder where a page must go
    r = gbrain("export", "--dir", str(out), "--db", db, "--json")
    rep = json.loads(r.stdout)
    assert r.returncode == 1 and rep["counts"]["failed"] == 1 and rep["write_errors"][0]["path"] == "a.md"
    assert (out / long).read_text() == "long\n"


@pytest.mark.engine_free
@pytest.mark.parametrize("fast", ["1", "0"], ids=["fast-path", "typer"])
def test_export_takes_its_folder_as_an_argument_too(own_imported, tmp_path, fast):
    """Trial 25: `gbrain export out/` was refused (missing option '--dir') while import, sync,
    watch and verify take the folder as an argument. Both spellings mean the same; both given
    with two folders is bad input (nothing written), neither is a missing DIR."""
    env = {"GBRAIN_FAST_PATH": fast}
    a, b = tmp_path / "a", tmp_path / "b"
    r = gbrain("export", str(a), env=env)
    assert r.returncode == 0, r.stderr.decode()
    assert gbrain("export", "--dir", str(b), env=env).returncode == 0
    files = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    assert files and files == sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    assert all((a / f).read_bytes() == (b / f).read_bytes() for f in files)
    r = gbrain("export", str(a), "--dir", str(a), env=env)  # the same folder twice: as once
    assert r.returncode == 0, r.stderr.decode()
    c, d = tmp_path / "c", tmp_path / "d"
    r = gbrain("export", str(c), "--dir", str(d), env=env)
    err = r.stderr.decode()
    assert r.returncode == 2 and err.startswith("error: ") and str(c) in err and str(d) in err and "give one" in err, err
    assert not c.exists() and not d.exists()
    r = gbrain("export", "--dir", str(d), str(c), "--json", env=env)
    assert r.returncode == 2 and json.loads(r.stdout)["kind"] == "bad_input"
    r = gbrain("export", env=env)
    assert r.returncode == 2 and r.stderr.decode() == "error: missing argument 'DIR' (gbrain export --help)\n", r.stderr.decode()
    help_text = gbrain("export", "--help", env=env).stdout.decode()
    assert "DIR" in help_text and "--dir" in help_text


@pytest.mark.engine_free
@pytest.mark.parametrize("fast", ["1", "0"], ids=["fast-path", "typer"])
def test_export_folder_given_both_ways_is_compared_as_a_path(own_imported, tmp_path, fast):
    """Trial 29: `gbrain export out --dir out/` was refused as two values for one thing (the
    strings differ, the folder is one). A folder parameter compares normalised paths: a trailing
    slash, `./out` and the absolute path agree; two different folders are still refused (exit 2)."""
    env = {"GBRAIN_FAST_PATH": fast}
    for one, two in (("out", "out/"), ("./out", "out"), ("out", str(tmp_path / "out")), ("out/", "./out//")):
        r = gbrain("export", one, "--dir", two, env=env, cwd=tmp_path)
        assert r.returncode == 0, (one, two, r.stderr.decode())
        assert (tmp_path / "out").is_dir() and not (tmp_path / "out" / "out").exists()
    r = gbrain("export", "out", "--dir", "out2/", env=env, cwd=tmp_path)
    assert r.returncode == 2 and "give one" in r.stderr.decode(), r.stderr.decode()
    assert not (tmp_path / "out2").exists()


@pytest.mark.engine_free
def test_an_option_that_is_also_an_argument_leaves_the_tool_schemas_as_they_were():
    """Param.argument_too is the command line's: export's schema (call, pipe) keeps one `dir`,
    required; no MCP tool's schema gains or loses a thing (benchmarks/mcp_tools_size.py)."""
    o = ops.REGISTRY["export"]
    d = next(p for p in o.params if p.name == "dir")
    assert d.argument_too and not d.positional and d.required
    schema = o.input_schema()
    assert schema["required"] == ["dir"] and list(schema["properties"]) == ["dir", "overwrite", "prune"]
    with pytest.raises(BadInput, match="missing required parameter 'dir'"):
        ops.check_args(o, {})
    with pytest.raises(BadInput, match="give one"):
        ops.join_arguments(o, {"dir": "x"}, {"dir": "y"})
    assert ops.join_arguments(o, {"dir": None}, {"dir": "y"}) == {"dir": "y"}


@pytest.mark.engine_free
def test_a_long_imported_name_can_still_be_read(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / ("q" * 250 + ".md")).write_text("long\n")
    db = str(tmp_path / "q.db")
    assert gbrain("import", str(src), "--db", db).returncode == 0
    assert gbrain("get", "q" * 250, "--db", db).stdout == b"long\n"


@pytest.mark.engine_free
def test_delete_keeps_the_page_in_the_trash(tmp_path):
    db = str(tmp_path / "d.db")
    assert gbrain("put", "notes/tmp", "--db", db, input="# keep me\n").returncode == 0
    r = gbrain("delete", "notes/tmp", "--db", db)
    assert r.returncode == 0 and b"gbrain restore notes/tmp" in r.stdout
    assert gbrain("get", "notes/tmp", "--db", db).returncode == 1
    assert gbrain("restore", "notes/tmp", "--db", db).returncode == 0
    assert gbrain("get", "notes/tmp", "--db", db).stdout == b"# keep me\n"


@pytest.mark.engine_free
def test_a_write_that_creates_the_brain_says_so(tmp_path):
    db = tmp_path / "fresh.db"
    r = gbrain("put", "x", "--db", str(db), input="hi")
    assert r.returncode == 0 and b"created a new brain at" in r.stderr
    assert b"created a new brain" not in gbrain("put", "x", "--db", str(db), input="hi2").stderr


@pytest.mark.engine_free
def test_pipe_says_when_it_creates_the_brain(tmp_path):
    db = tmp_path / "fresh.db"
    line = json.dumps({"id": 1, "tool": "put", "params": {"slug": "x", "content": "hi"}}) + "\n"
    r = gbrain("pipe", "--db", str(db), input=line)
    assert r.returncode == 0 and json.loads(r.stdout)["ok"] is True
    assert r.stderr.count(b"created a new brain at") == 1
    r = gbrain("pipe", "--db", str(db), input=line)
    assert json.loads(r.stdout)["ok"] is True and b"created a new brain" not in r.stderr
    # a read-only stream on a missing brain creates nothing
    gone = tmp_path / "none.db"
    r = gbrain("pipe", "--db", str(gone), input=json.dumps({"id": 2, "tool": "get", "params": {"slug": "x"}}) + "\n")
    assert json.loads(r.stdout)["ok"] is False and not gone.exists() and b"created" not in r.stderr
    assert r.returncode == json.loads(r.stdout)["exit_code"] == 2  # no brain there: bad input, the stream's status


def test_unlink_removes_a_dead_link_by_its_target(imported):
    gbrain("put", "notes/dead", input="# Dead\n\nSee [Ghost](../people/ghost.md), [[Nobody Here]] and [[Ana Lima]].\n")
    assert len([x for x in js(gbrain("links", "notes/dead", "--json")) if x["to_slug"] is None]) == 2
    # the wiki target as written, or its slug form
    r = gbrain("unlink", "notes/dead", "nobody-here")
    assert r.returncode == 0, r.stderr
    # the markdown target as written, or the slug it points at
    assert gbrain("unlink", "notes/dead", "people/ghost").returncode == 0
    assert gbrain("get", "notes/dead").stdout.decode() == "# Dead\n\nSee Ghost, Nobody Here and [[Ana Lima]].\n"
    assert [x["to_slug"] for x in js(gbrain("links", "notes/dead", "--json"))] == ["people/ana-lima"]
    r = gbrain("unlink", "notes/dead", "people/ghost")
    assert r.returncode == 1 and b"does not link to" in r.stderr
    gbrain("put", "notes/dead2", input="[Ghost](../people/ghost.md)\n")
    assert gbrain("unlink", "notes/dead2", "../people/ghost.md").returncode == 0
    assert gbrain("get", "notes/dead2").stdout == b"Ghost\n"


def test_snippets_do_not_double_the_pages_own_bold(imported):
    gbrain("put", "notes/pw", input="# Security\n\nUse **Passwords** that are long, and a __password__ manager.\n")
    hit = next(h for h in js(gbrain("search", "password", "--json")) if h["slug"] == "notes/pw")
    assert "Use Passwords that are long, and a password manager." in hit["snippet"] and "*" not in hit["snippet"]
    assert marks(hit) == ["Passwords", "password"]


@pytest.mark.engine_free
def test_search_limit_must_be_positive_like_query(own_imported):
    r = gbrain("search", "River", "--limit", "0")
    assert r.returncode == 2 and b"limit must be a positive number" in r.stderr
    assert len(js(gbrain("search", "River", "--limit", "1", "--json"))) == 1


@pytest.mark.engine_free
def test_limit_errors_are_the_ones_the_readme_quotes(own_imported):
    """The command reference (docs/commands.md, moved there from the README) quotes each limit rule
    with the command that breaks it (a trial found it saying every limit takes 0 while search
    refused -1 as "not a positive number")."""
    from conftest import ROOT

    readme = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")
    for args, rule in ((("list", "--limit", "-2"), "--limit must be 0 (no limit) or more, got -2"),
                       (("search", "--limit", "-1", "foo"), "--limit must be a positive number, got -1")):
        r = gbrain(*args)
        assert r.returncode == 2 and r.stderr.decode() == f"error: {rule}\n", r.stderr
        assert f"`{' '.join(args[:3])}`: `{rule}`" in " ".join(readme.split()), rule


def test_a_limit_too_large_for_sqlite_is_a_usage_error(imported):
    for cmd in (["query", "banana"], ["search", "banana"], ["list"]):
        r = gbrain(*cmd, "--limit", "9223372036854775808")
        assert r.returncode == 2 and b"too large" in r.stderr and b"Traceback" not in r.stderr, (cmd, r.stderr)


@pytest.mark.engine_free
def test_python_cut_snippet_marks_words_and_looks_for_a_bounded_set():
    from gbrain.search.keyword import SNIPPET_WORDS, _cut_snippet

    text = "alpha " * 50 + "Needle in the hay, needle again." + " omega" * 50
    out = _cut_snippet(text, " ".join(["zzz"] * 5000 + ["needle"]))
    assert marks(out) == ["Needle", "needle"]  # 5,000 repeats of one word count once
    many = " ".join(f"w{i}" for i in range(SNIPPET_WORDS)) + " needle"
    assert _cut_snippet(text, many)["highlights"] == []  # the 33rd distinct word is not looked for


@pytest.mark.engine_free
def test_version_flag_prints_the_version():
    from gbrain import __version__

    for flag in ("--version", "-V"):
        r = gbrain(flag)
        assert r.returncode == 0 and r.stdout.decode() == f"gbrain {__version__}\n" and r.stderr == b""


@pytest.mark.engine_free
def test_config_get_embedding_model_says_which_model_is_in_use(tmp_path):
    """With no OPENAI_API_KEY the default OpenAI model is configured but an offline one is used:
    `config get embedding_model` prints the configured value and says on stderr what is in use."""
    db = str(tmp_path / "b.db")
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}
    run = runner(db, env)
    run("init", check=True)
    r = run("config", "get", "embedding_model")
    assert r.returncode == 0 and r.stdout.strip() == b"text-embedding-3-small"
    # nobody chose the default: a note says what is in effect and why, no warning (trial: a new
    # user was told their setting was overruled, though they had set nothing)
    assert b"warning" not in r.stderr and b"note: embedding_model text-embedding-3-small is the default (never set)" in r.stderr and b"is in effect" in r.stderr, r.stderr
    assert b"no OPENAI_API_KEY" in r.stderr, r.stderr
    env["OPENAI_API_KEY"] = "sk-test"
    r = run("config", "get", "embedding_model")
    assert r.returncode == 0 and b"in effect" not in r.stderr and b"in use" not in r.stderr, r.stderr
    # a model the person chose that is not in effect warns
    run("config", "set", "embedding_model", "text-embedding-3-small", check=True)
    del env["OPENAI_API_KEY"]
    r = run("config", "get", "embedding_model")
    assert r.returncode == 0 and r.stdout.strip() == b"text-embedding-3-small"
    assert b"warning: embedding_model text-embedding-3-small is stored but not in effect" in r.stderr and b"no OPENAI_API_KEY" in r.stderr, r.stderr
    # unset withdraws the choice: the default is nobody's choice again (the marker went with it)
    run("config", "unset", "embedding_model", check=True)
    r = run("config", "get")
    assert r.returncode == 0 and b"warning" not in r.stderr and b"not in effect" not in r.stdout + r.stderr, r.stdout + r.stderr


@pytest.mark.engine_free
def test_config_get_embedding_model_says_the_model_in_use_on_a_brain_embedded_offline(tmp_path):
    """A new user's brain, embedded with no OPENAI_API_KEY: `embed`, `query` and `stats` use the
    offline model, and `config get embedding_model` printed the stored default alone, saying
    nothing (resolve_model keeps its note for the default on a brain embedded offline). It says
    on stderr which model is in use and why, and stdout still holds the stored setting."""
    db = str(tmp_path / "b.db")
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL") and not k.startswith("GBRAIN_EMBEDDING")}
    run = runner(db, env)
    run("init", check=True)
    run("put", "a", input=b"# A\n\nhello world\n", check=True)
    r = run("embed", check=True)
    used = re.search(rb"with (\S+):", r.stdout).group(1)
    r = run("config", "get", "embedding_model")
    assert r.returncode == 0 and r.stdout.strip() == b"text-embedding-3-small"
    assert b"note: embedding_model text-embedding-3-small is the default (never set): " + used + b" is in effect" in r.stderr and b"no OPENAI_API_KEY" in r.stderr, r.stderr
    assert b"warning" not in r.stderr, r.stderr
    r = run("config", "get")
    assert r.returncode == 0 and r.stderr == b"", r.stderr  # the default nobody chose is no overruled setting
    assert b"embedding_model = " + used + b" (in effect: no OPENAI_API_KEY for the default text-embedding-3-small)" in r.stdout, r.stdout


def test_config_shows_the_value_in_effect_and_marks_a_stored_value_that_is_not(db_path, minilm):
    """With no OPENAI_API_KEY the offline minilm model is in use, and the stored
    `embedding_dimensions` 1536 (the default `init` writes) is not used: `config get` listed
    1536 and `text-embedding-3-small` as if they were in effect, and `config get
    embedding_dimensions` printed 1536 saying nothing. The listing shows the value in effect and
    why; `config get KEY` keeps the stored value on stdout (scripts read it) and says on stderr
    what is in effect: a note for the defaults `init` wrote (nobody chose them: a new user was
    told their setting was overruled), a warning for a value a person set; `--json` stays the
    stored values. Both engines."""
    db = str(db_path)
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL") and not k.startswith("GBRAIN_EMBEDDING")}
    run = runner(db, env)
    run("init", check=True)
    r = run("config", "get", "embedding_dimensions")
    assert r.returncode == 0 and r.stdout == b"1536\n", r
    err = r.stderr.decode()
    assert err.startswith("note: embedding_dimensions 1536 is the default (never set): 384 is in effect") and "minilm" in err and "warning" not in err, err
    r = run("config", "get", "embedding_model")
    assert r.returncode == 0 and r.stdout == b"text-embedding-3-small\n", r
    assert r.stderr.decode().startswith("note: embedding_model text-embedding-3-small is the default (never set): minilm is in effect (no OPENAI_API_KEY"), r.stderr
    r = run("config", "get")
    lines = dict(ln.split(" = ", 1) for ln in r.stdout.decode().splitlines() if " = " in ln)
    assert r.stderr == b"", r.stderr  # the listing says what is in effect and why; nothing to warn of
    assert lines["embedding_model"] == "minilm (in effect: no OPENAI_API_KEY for the default text-embedding-3-small)", lines
    assert lines["embedding_dimensions"] == "384 (in effect: minilm's own size)", lines
    assert lines["timeline_split"] == "rule", lines
    # values a person set that are not in effect: marked and warned of, once
    run("config", "set", "embedding_dimensions", "512", check=True)
    run("config", "set", "embedding_model", "text-embedding-3-small", check=True)
    r = run("config", "get")
    lines = dict(ln.split(" = ", 1) for ln in r.stdout.decode().splitlines() if " = " in ln)
    said = [ln for ln in r.stderr.decode().splitlines() if ln.strip()]
    assert len(said) == 1 and "not in effect" in said[0] and "no OPENAI_API_KEY" in said[0] and "minilm" in said[0], said
    assert lines["embedding_model"] == "minilm (in effect; stored text-embedding-3-small: not in effect)", lines
    assert lines["embedding_dimensions"] == "384 (in effect; stored 512: not in effect)", lines
    r = run("config", "get", "embedding_dimensions")
    assert r.stdout == b"512\n" and "warning: embedding_dimensions 512 is stored but not in effect" in r.stderr.decode() and "384" in r.stderr.decode(), r
    run("config", "set", "embedding_dimensions", "1536", check=True)
    stored = json.loads(run("config", "get", "--json").stdout)
    assert stored["embedding_model"] == "text-embedding-3-small" and stored["embedding_dimensions"] == "1536", stored
    assert json.loads(run("--json", "config", "get", "embedding_dimensions").stdout) == "1536"
    env["OPENAI_API_KEY"] = "sk-test"  # the stored settings are in effect: nothing is marked or said
    r = run("config", "get")
    lines = dict(ln.split(" = ", 1) for ln in r.stdout.decode().splitlines() if " = " in ln)
    assert lines["embedding_model"] == "text-embedding-3-small" and lines["embedding_dimensions"] == "1536", lines
    assert b"not in effect" not in r.stderr, r.stderr
    r = run("config", "get", "embedding_dimensions")
    assert r.stdout == b"1536\n" and b"not in effect" not in r.stderr, r
    run("config", "set", "embedding_model", "text-embedding-3-large", check=True)  # 1536 means "the model's own size" for it
    r = run("config", "get", "embedding_dimensions")
    assert r.stdout == b"1536\n" and b"embedding_dimensions 1536 is stored but not in effect" in r.stderr and b"3072" in r.stderr, r


def test_the_config_listing_is_one_line_per_key(db_path, tmp_path):
    """An import keeps the root index.md and schema.md in config (original_index, original_schema):
    the listing printed their text across lines of their own, which read as more settings (a
    `- [Ana Lima](…)` line, a blank one). Each key is one line; a value of several lines shows its
    first and says how to print it whole (`config get KEY`, which prints it byte for byte)."""
    tree = tmp_path / "t"
    tree.mkdir()
    (tree / "index.md").write_text("# Index\n\n- [Ana](ana.md)\nkey = not a setting\n")
    (tree / "ana.md").write_text("# Ana\n")
    db = str(db_path)
    assert gbrain("--db", db, "import", str(tree)).returncode == 0
    out = gbrain("--db", db, "config", "get").stdout.decode().splitlines()
    assert all(" = " in ln for ln in out) and not any(ln.startswith(("key =", "- [")) for ln in out), out
    [idx] = [ln for ln in out if ln.startswith("original_index = ")]
    assert idx == "original_index = # Index … (4 lines: `gbrain config get original_index` prints it)", idx
    assert gbrain("--db", db, "config", "get", "original_index").stdout.decode() == "# Index\n\n- [Ana](ana.md)\nkey = not a setting\n"


def test_config_get_shows_what_is_stored_when_no_model_can_be_made_from_it(db_path):
    """A stored value no model can be made from (written by hand, an older gbrain): `config get`
    is how a person finds it, so it still lists what is stored and says why it cannot tell what
    is in effect, not the error alone."""
    from gbrain.core.brain import Brain

    db = str(db_path)
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL") and not k.startswith("GBRAIN_EMBEDDING")}
    run = runner(db, env)
    run("init", check=True)
    run("config", "set", "embedding_base_url", "http://127.0.0.1:9", check=True)
    with Brain.open(db) as b, b.transaction():
        b.conn.execute("UPDATE config SET value = 'many' WHERE key = 'embedding_dimensions'")
    for argv in (["config", "get"], ["config", "get", "embedding_dimensions"]):
        r = run(*argv)
        assert r.returncode == 0 and b"many" in r.stdout, (argv, r)
        assert b"cannot be told" in r.stderr and b"embedding_dimensions must be a number" in r.stderr, (argv, r.stderr)


@pytest.mark.engine_free
def test_config_get_of_an_unknown_key_says_it_as_config_set_does(tmp_path):
    """`config get nosuchkey` exited 1 with "no config key", while `config set nosuchkey v` exits 2
    naming the nearest known key and all of them: a key gbrain does not know is a usage error
    either way; a known key that is not set says its default applies (exit 1)."""
    db = str(tmp_path / "b.db")
    run = runner(db, dict(os.environ))
    run("init", check=True)
    for verb in (["get", "timeline_splt"], ["set", "timeline_splt", "rule"]):
        r = run("config", *verb)
        err = r.stderr.decode()
        assert r.returncode == 2 and "unknown config key 'timeline_splt'" in err and "did you mean 'timeline_split'" in err, (verb, err)
        assert r.stdout == b""
    r = run("config", "get", "embedding_base_url")
    assert r.returncode == 1 and b"is not set (its default applies)" in r.stderr, r.stderr


@pytest.mark.engine_free
def test_an_interrupted_import_says_its_work_is_kept(monkeypatch, capsys):
    """Ctrl-C during a long command that commits as it goes says that nothing committed is lost
    and that running it again goes on (was: only "interrupted"); exit 130."""
    import gbrain.entry as entry

    def stop(argv):
        raise KeyboardInterrupt

    monkeypatch.setattr(entry, "fast_main", stop)
    for argv, words in ((["import", "vault"], "what import committed so far is kept; run the same command again"), (["stats"], "interrupted")):
        with pytest.raises(SystemExit) as e:
            entry.main(argv)
        assert e.value.code == 130 and words in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["get", "people/ana-lima"], ["search", "--json", "river"], ["list"], ["--tools-json"], ["pipe"]])
def test_a_closed_stdout_ends_quietly(imported, argv):
    """`gbrain get X | true`: the reader is gone before gbrain writes; no BrokenPipeError traceback
    (Python's advice: stdout to devnull, exit 1), nothing on stderr."""
    rd, wr = os.pipe()
    os.close(rd)  # the reader has gone before gbrain writes: every write fails with EPIPE
    try:
        r = subprocess.run([sys.executable, "-m", "gbrain", *argv], stdout=wr, stderr=subprocess.PIPE, timeout=300,
                           input=b'{"id": 1, "tool": "brain_stats"}\n')
    finally:
        os.close(wr)
    assert r.stderr == b"" and r.returncode == 1, (r.returncode, r.stderr.decode()[-2000:])


def test_truncation_hints_go_to_stderr_so_stdout_counts_items(imported):
    """`gbrain list | wc -l` counts pages: "… the first N; --limit 0 lists all" is a note on stderr."""
    r = gbrain("list", "--limit", "2")
    assert r.returncode == 0 and len(r.stdout.splitlines()) == 2, r.stdout
    assert b"the first 2; --limit 0 lists all" in r.stderr
    for i in range(3):
        assert gbrain("tag", "people/ana-lima", f"t{i}").returncode == 0
    r = gbrain("history", "people/ana-lima", "--limit", "2")
    assert r.returncode == 0 and b"--limit 0 lists all" in r.stderr and b"--limit 0" not in r.stdout, (r.stdout, r.stderr)
    # `changes` too (the llm-wiki trial: after an import of 1,606 files it stopped at its default
    # 100 rows with no word of the rest)
    r = gbrain("changes", "--limit", "2")
    assert r.returncode == 0 and len(r.stdout.splitlines()) == 2 and b"the newest 2; --limit 0 lists all" in r.stderr, (r.stdout, r.stderr)
    r = gbrain("changes", "--limit", "0")
    assert r.returncode == 0 and r.stderr == b"" and len(r.stdout.splitlines()) > 2
    r = gbrain("list", "--limit", "0")
    assert r.returncode == 0 and r.stderr == b""


@pytest.mark.sqlite_only("a file path: a postgresql:// URL has no ~")
def test_db_path_with_a_tilde_is_under_home(tmp_path):
    """MCP host configs have no shell to expand `~`: --db and GBRAIN_DB do it (only `~`, no $VARS)."""
    home = tmp_path / "home"
    home.mkdir()
    env = {"HOME": str(home), "GBRAIN_DB": ""}
    assert gbrain("--db", "~/x.db", "init", env=env).returncode == 0
    assert (home / "x.db").exists() and not (tmp_path / "~").exists()
    assert gbrain("put", "a", "--db", "~/x.db", input="# A\n", env=env).returncode == 0
    r = gbrain("list", "--json", env={**env, "GBRAIN_DB": "~/x.db"})
    assert r.returncode == 0, r.stderr
    assert [p["slug"] for p in json.loads(r.stdout)] == ["a"]
    r = gbrain("stats", "--db", "$HOME/x.db", env=env, cwd=tmp_path)
    assert r.returncode == 2 and b"$HOME/x.db" in r.stderr  # not a shell: variables stay as written


@pytest.mark.engine_free
@pytest.mark.parametrize("fast", ["1", "0"])
def test_json_is_accepted_by_serve_and_tools_json(tmp_path, fast):
    """The README: `--json` works on every command; serve's stdout is JSON-RPC and --tools-json
    is JSON anyway, so it changes nothing there (it was "No such option: --json", exit 2).
    Command-line parsing and a handshake, the same on either engine: a SQLite brain of its own."""
    own = tmp_path / "own.db"
    Brain.open(own).close()
    env = {"GBRAIN_FAST_PATH": fast, "GBRAIN_DB": str(own)}
    for argv in (["--json", "--tools-json"], ["--tools-json", "--json"]):
        r = gbrain(*argv, env=env)
        assert r.returncode == 0, (argv, r.stderr)
        assert [t["name"] for t in json.loads(r.stdout)][:1] == ["brain_get"]
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "ping"},
    ]
    data = "".join(json.dumps(m) + "\n" for m in lines)
    r = gbrain_process("--json", "serve", input=data, env=env)  # serve reads the process's stdin
    assert r.returncode == 0, r.stderr
    assert [json.loads(x)["id"] for x in r.stdout.splitlines()] == [1, 2], r.stdout
    for argv in (["serve", "--json"], ["serve", "--read-only", "--json"]):
        # answered: the options were taken (a refused one exits 2 writing nothing); the process
        # is killed then, before it loads the SDK (~2 of its ~2.3 CPU-s) at stdin's end
        assert _serve_answer_ids(argv, data, env, 2) == [1, 2], argv


def _serve_answer_ids(argv: list[str], data: str, env: dict, n: int) -> list:
    """The ids of the first ``n`` lines a real `gbrain ARGV` process writes to stdout given
    ``data`` on stdin (kept open); the process is killed then. Fails when stdout ends first."""
    p = subprocess.Popen([sys.executable, "-m", "gbrain", *argv], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, **env})
    try:
        p.stdin.write(data.encode())
        p.stdin.flush()
        ids = []
        while len(ids) < n:
            line = p.stdout.readline()
            if not line:  # stdout ended: the process refused something (or broke); say what it said
                p.wait(timeout=60)
                raise AssertionError((argv, ids, p.returncode, p.stderr.read()))
            ids.append(json.loads(line)["id"])
        return ids
    finally:
        p.kill()
        p.stdin.close()
        p.wait(timeout=60)
        p.stdout.close()
        p.stderr.close()


@pytest.mark.sqlite_only("prefix and phrase search are FTS5's; Postgres looks for the words (the help says so)")
def test_search_help_says_what_search_does(imported):
    """search --help said `*` is "treated as a word" and that "prefix* work": a prefix works."""
    r = gbrain("search", "--help")
    assert r.returncode == 0
    text = " ".join(r.stdout.decode().replace("│", " ").split())
    assert "*, AND/NOT are treated as words" not in text and "word* matches word starts" in text, text
    assert "companies/river-ai" in [h["slug"] for h in js(gbrain("search", "rive*", "--json"))]
    assert js(gbrain("search", "riv", "--json")) == []  # without the star, a word is whole
    # (a word of 4 letters or more that no page holds is a typo's: its near word is searched, said so)
    r = gbrain("search", "rive", "--json")
    assert 'no page holds "rive": showing the hits for "river"' in r.stderr.decode()
    assert js(gbrain("search", "NOT", "--json")) == js(gbrain("search", "not", "--json"))  # an operator is a plain word


def test_long_work_reports_progress_as_plain_lines_when_stderr_is_not_a_terminal(db_path, tmp_path):
    """A first import run from a script or a log (stderr not a terminal) said nothing until it
    ended; it now says how far it is as plain lines (every 10 s; ``GBRAIN_PROGRESS_EVERY=0``:
    every update), while ``call`` (one JSON object for an agent) stays silent."""
    tree = tmp_path / "tree"
    tree.mkdir()
    for i in range(30):
        (tree / f"note-{i}.md").write_text(f"# Note {i}\n\nbody {i}\n")
    r = gbrain("import", str(tree), env={"GBRAIN_PROGRESS_EVERY": "0"})
    assert r.returncode == 0, r.stderr.decode()
    lines = [ln for ln in r.stderr.decode().splitlines() if ln.startswith("Importing: ")]
    assert lines and lines[-1].startswith("Importing: 30 / 30 (100%)"), r.stderr.decode()
    assert "Importing" not in r.stdout.decode()
    r = gbrain("export", "--dir", str(tmp_path / "out"), env={"GBRAIN_PROGRESS_EVERY": "0"})
    assert r.returncode == 0 and "Exporting: " in r.stderr.decode(), r.stderr.decode()
    r = gbrain("call", "brain_verify", json.dumps({"dir": str(tree)}), env={"GBRAIN_PROGRESS_EVERY": "0"})
    assert r.returncode == 0 and json.loads(r.stdout)["ok"] and "Verifying" not in r.stderr.decode(), r.stderr.decode()
    r = gbrain("verify", str(tree))  # the default: the first line only after 10 s
    assert r.returncode == 0 and "Verifying" not in r.stderr.decode(), r.stderr.decode()


def test_plain_progress_lines_say_how_long_is_left(monkeypatch, capsys):
    """A new user's `gbrain embed --stale > log 2>&1` on a 6,572-note vault printed
    `Embedding (minilm): 1,035 / 19,623 (5%), 400 s` every 10 s and never how long was left
    (the terminal's bar has an ETA; its start-up estimate was 4x short at load 8): each plain line
    now extrapolates the rate so far, once some work is done."""
    import types

    from gbrain import entry

    monkeypatch.setenv("GBRAIN_PROGRESS_EVERY", "0")
    ctx = types.SimpleNamespace()
    p = entry._PlainProgress(ctx, "Embedding (minilm)")
    now = [0.0]
    p._clock = lambda: now[0]
    p._t0 = p._last = 0.0
    now[0] = 5.0
    p.update(0, 100)  # nothing done yet: no rate to extrapolate
    now[0] = 400.0
    p.update(1_035, 19_623)  # 2.6/s so far: 7,149 s for the 18,588 left
    now[0] = 410.0
    p.update(19_500, 20_000)  # 500 left at 47.6/s: 11 s
    now[0] = 420.0
    p.update(20_000, 20_000)  # done: nothing left to say
    lines = capsys.readouterr().err.splitlines()
    assert lines == [
        "Embedding (minilm): 0 / 100 (0%), 5 s",
        "Embedding (minilm): 1,035 / 19,623 (5%), 400 s, about 2.0 h left",
        "Embedding (minilm): 19,500 / 20,000 (97%), 410 s, about 11 s left",
        "Embedding (minilm): 20,000 / 20,000 (100%), 420 s",
    ], lines


def test_get_of_an_attachment_says_it_is_a_file_not_a_near_page(db_path, tmp_path):
    """An Obsidian trial: `gbrain get Attachments/img/chart.png` answered "no page …; did you
    mean: Caret ^ name" although the brain holds that file."""
    tree = tmp_path / "v"
    (tree / "img").mkdir(parents=True)
    (tree / "Caret ^ name.md").write_text("# Caret\n")
    (tree / "img" / "chart.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(40)))
    assert gbrain("import", str(tree)).returncode == 0
    r = gbrain("get", "img/chart.png")
    err = r.stderr.decode()
    assert r.returncode == 1 and "img/chart.png is a file (an attachment) of 48 bytes, not a page" in err and "did you mean" not in err, err


def test_get_of_a_markdown_file_kept_as_a_file_by_its_slug(db_path, tmp_path):
    """A chaos trial: ``bin.md`` with binary content is kept as a file; ``get bin.md`` said so,
    ``get bin`` (the slug the user would type) answered ``no page 'bin'``."""
    tree = tmp_path / "v"
    tree.mkdir()
    (tree / "bin.md").write_bytes(b"x\x00\xff\xfe")
    (tree / "note.md").write_text("# Note\n")
    assert gbrain("import", str(tree)).returncode == 0
    for slug in ("bin", "bin.md"):
        r = gbrain("get", slug)
        err = r.stderr.decode()
        assert r.returncode == 1 and "bin.md is a file" in err and "not a page" in err and "no page" not in err, err
        assert len(err.splitlines()) == 1


@pytest.mark.engine_free
def test_an_empty_search_is_bad_input_as_an_empty_question(tmp_path):
    """A chaos trial: ``search ''`` said ``no matches`` (exit 0), ``query ''`` ``error: the
    question is empty`` (exit 2). Empty input is bad input on both, and over MCP."""
    db = str(tmp_path / "b.db")
    assert gbrain("--db", db, "put", "n", input="# N\nrevenue\n").returncode == 0
    for cmd in ("search", "query"):
        for q in ("", "   "):
            r = gbrain("--db", db, cmd, q)
            assert r.returncode == 2 and r.stderr.decode().startswith("error: the ") and "is empty" in r.stderr.decode(), (cmd, q, r.stderr)
    with pytest.raises(BadInput):
        ops.run("search", {"query": " "}, ops.Context(db=db))


@pytest.mark.engine_free
def test_an_unknown_embedding_model_name_warns_with_the_nearest_name_and_the_next_step(tmp_path, monkeypatch):
    """`config set embedding_model minlm` (a typo) must name `minilm`; a model of the person's own
    server set before its base URL (trial8 L3: `embedding_model nomic-embed-text`, then
    `embedding_base_url`) must say how to name the server, not only that none is set; once a
    server is set, a name gbrain does not know is that server's business: no warning."""
    for k in ("OPENAI_BASE_URL", "GBRAIN_EMBEDDING_BASE_URL"):
        monkeypatch.delenv(k, raising=False)
    db = str(tmp_path / "b.db")
    ops.run("init", {}, ops.Context(db=db))
    said: list[str] = []
    ctx = ops.Context(db=db, on_warning=said.append)
    ops.run("config-set", {"key": "embedding_model", "value": "minlm"}, ctx)
    assert len(said) == 1 and "did you mean minilm?" in said[0], said
    said.clear()
    ops.run("config-set", {"key": "embedding_model", "value": "nomic-embed-text"}, ctx)
    assert len(said) == 1 and "gbrain config set embedding_base_url" in said[0] and "did you mean" not in said[0], said
    said.clear()
    monkeypatch.setenv("GBRAIN_EMBEDDING_BASE_URL", "http://127.0.0.1:9/v1")  # a server named by the environment (docs/search.md)
    ops.run("config-set", {"key": "embedding_model", "value": "nomic-embed-text"}, ctx)
    assert not [w for w in said if "not a model gbrain knows" in w], said
    monkeypatch.delenv("GBRAIN_EMBEDDING_BASE_URL")
    ops.run("config-set", {"key": "embedding_base_url", "value": "http://127.0.0.1:9/v1"}, ctx)
    ops.run("config-set", {"key": "embedding_model", "value": "nomic-embed-text"}, ctx)
    assert not [w for w in said if "not a model gbrain knows" in w], said


@pytest.mark.engine_free
def test_version_gives_the_schema_of_the_sqlite_file_named_not_only_its_own(tmp_path):
    """The disaster-day trial: every command on a brain from a newer gbrain said "database schema
    v99 is newer than this gbrain (v24)", but `gbrain version --db it` said "schema v24": the
    code's, whatever the file (a Postgres brain already gave its own). The file's version is
    given, and this gbrain's beside it when they differ; no file: this gbrain's, as before."""
    import sqlite3

    from gbrain.storage.db import SCHEMA_VERSION

    db = tmp_path / "b.db"
    assert gbrain("init", str(db)).returncode == 0
    assert js(gbrain("version", "--db", str(db), "--json"))["schema_version"] == SCHEMA_VERSION
    with sqlite3.connect(db) as c:
        c.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 75}")
    r = gbrain("version", "--db", str(db), "--json")
    got = js(r)
    assert r.returncode == 0 and got["schema_version"] == SCHEMA_VERSION + 75 and got["code_schema_version"] == SCHEMA_VERSION, got
    text = gbrain("version", "--db", str(db)).stdout.decode()
    assert f"schema v{SCHEMA_VERSION + 75}" in text and f"v{SCHEMA_VERSION}" in text, text
    assert js(gbrain("version", "--db", str(tmp_path / "none.db"), "--json"))["schema_version"] == SCHEMA_VERSION
    assert not (tmp_path / "none.db").exists()


def test_config_get_says_the_init_size_as_a_note_for_a_server_model(db_path):
    """trial39: with only `embedding_base_url` and `embedding_model hashbow` set (a model of an
    OpenAI-compatible server), `config get` warned `stored 1536: not in effect` for the size
    `init` wrote and nobody set. Only OpenAI's text-embedding-3 models take a size (1536 is "the
    model's own size" to every other: `embeddings._openai`), so it is a note, as the README says."""
    db = str(db_path)
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL") and not k.startswith("GBRAIN_EMBEDDING")}
    run = runner(db, env)
    run("init", check=True)
    run("config", "set", "embedding_base_url", "http://127.0.0.1:9/v1", check=True)
    run("config", "set", "embedding_model", "hashbow", check=True)
    r = run("config", "get")
    lines = dict(ln.split(" = ", 1) for ln in r.stdout.decode().splitlines() if " = " in ln)
    assert r.returncode == 0 and b"warning" not in r.stderr and b"not in effect" not in r.stderr, r.stderr
    assert lines["embedding_dimensions"] == "its own size (in effect: hashbow's own size)", lines
    r = run("config", "get", "embedding_dimensions")
    assert r.stdout == b"1536\n" and r.stderr.decode().startswith("note: embedding_dimensions 1536 is the default (never set)"), r
    run("config", "set", "embedding_dimensions", "512", check=True)  # a size a person set is still warned of
    r = run("config", "get", "embedding_dimensions")
    assert b"warning: embedding_dimensions 512 is stored but not in effect" in r.stderr, r


def test_a_page_command_on_a_non_page_file_says_what_the_name_is(imported):
    """`get index` reads the fixture's index.md (a non-page file); `tag index`, `timeline-add`,
    `link` and `history` said only "no page 'index'" (trial 54: agents tagging schema.md were told
    no such page exists while brain_get read it)."""
    assert gbrain("get", "index").returncode == 0
    for args in (("tag", "index", "x"), ("timeline-add", "index", "--date", "2026-12-05", "--summary", "hi"), ("link", "index", "ana-lima")):
        r = gbrain(*args)
        assert r.returncode == 1 and b"index.md is stored as a non-page file" in r.stderr, (args, r.stderr)
    assert b"index.md is stored as a non-page file" in gbrain("history", "index").stderr
