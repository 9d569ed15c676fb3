"""Start-up: a command imports only what it needs, and the fast path (gbrain/entry.py) behaves
exactly like the typer commands it stands in for. Speed itself is measured in
benchmarks/startup.py, not asserted here."""
from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys

import pytest

from gbrain import entry

from conftest import ROOT

HEAVY = ("typer", "click", "pydantic", "rich", "mistune", "ruamel", "numpy", "openai", "mcp", "anyio", "watchdog")


def imported_by(argv: list[str], extra: str = "", modules: tuple[str, ...] = ()) -> set[str]:
    """The HEAVY top-level packages (and the ``modules`` named in full) loaded after running
    ``gbrain ARGV`` in a fresh interpreter."""
    code = (
        "import sys\n"
        "from gbrain.entry import main\n"
        f"{extra}\n"
        "try:\n"
        f"    main({argv!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        f"sys.stderr.write('MODULES ' + ' '.join(sorted(({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r})) | (set(sys.modules) & set({modules!r})))) + '\\n')\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    line = [ln for ln in p.stderr.splitlines() if ln.startswith("MODULES")]
    assert line, p.stderr
    return set(line[-1].split()[1:])


def test_reading_commands_import_no_cli_framework_parser_or_model(fixture_db):
    """`gbrain get` (and other plain reads) run without typer/pydantic, mistune or ruamel."""
    for argv in (["get", "people/ana-lima"], ["search", "Series A", "--limit", "3", "--json"], ["get", "nobody"], ["stats"], ["--json", "stats"]):
        assert imported_by(["--db", str(fixture_db), *argv]) == set(), argv


def test_query_and_search_on_a_brain_with_no_vectors_import_no_numpy(fixture_db, engine):
    """`gbrain query` on a brain with no embeddings falls back to keyword search: it loaded
    numpy (hybrid.py imported it at its top) for no vector, and on SQLite the Postgres module
    (vectors.py imported pgvector's helpers at its top; `stats` too); neither is imported now."""
    pg = () if engine == "postgres" else ("gbrain.storage.pg",)
    for argv in (["query", "Series A"], ["--json", "query", "who raised a seed round", "--limit", "3"], ["search", "Series A"], ["stats"]):
        assert imported_by(["--db", str(fixture_db), *argv], modules=pg) == set(), argv


@pytest.mark.parametrize("model", ["fake-16", "minilm"])
def test_query_with_a_local_model_imports_no_openai(fixture_db, model, request):
    """The openai package costs a cold `query` 0.6–0.7 CPU-s to import (its ``__init__`` builds
    every API type's pydantic model): a brain whose model runs here (``minilm``, ``fake-N``)
    never loads it (nor pydantic), only a server model does, when it sends the question."""
    from gbrain import operations as ops
    from gbrain.core.brain import Brain

    if model == "minilm":
        request.getfixturevalue("minilm")  # (skipped without its weights)
    with Brain.open(fixture_db) as b:
        b.set_config("embedding_model", model)
        assert ops.run("embed", {}, brain=b)["pages"] > 0
    got = imported_by(["--db", str(fixture_db), "--json", "query", "who raised a seed round", "--limit", "3"])
    assert got == {"numpy"}, got


def test_call_and_pipe_import_no_cli_framework(fixture_db):
    """Trial 32 (a scripter looping over `gbrain call`): `call` and `pipe` went through typer,
    whose import (pydantic with it) doubled a call's start-up (0.50 CPU-s against 0.25 for
    `get --json`); the fast path takes them too."""
    db = str(fixture_db)
    assert imported_by(["--db", db, "call", "brain_get", '{"slug": "people/ana-lima"}']) == set()
    assert imported_by(["--db", db, "--json", "call", "brain_list", "{\"limit\": 2}"]) == set()
    stdin = ("import io, types\n"
             "sys.stdin = types.SimpleNamespace(buffer=io.BytesIO(b'{\"id\": 1, \"tool\": \"brain_get\", \"params\": {\"slug\": \"ana-lima\"}}\\n'), isatty=lambda: False)")
    assert imported_by(["--db", db, "pipe"], extra=stdin) == set()


def test_help_and_other_command_lines_still_reach_typer(fixture_db):
    assert "typer" in imported_by(["--db", str(fixture_db), "get", "--help"])
    assert "typer" in imported_by(["--db", str(fixture_db), "config", "get"])


@pytest.mark.engine_free
def test_serve_imports_neither_typer_nor_the_heavy_optional_parts():
    """`serve` skips typer too; the MCP SDK (with pydantic) is what it needs."""
    code = "import sys, gbrain.entry, gbrain.mcp.server; print(sorted(m for m in ('typer', 'mistune', 'numpy', 'openai', 'watchdog') if m in sys.modules))"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"


# ---------------------------------------------------------------------------
# the fast path gives what typer gives, byte for byte
# ---------------------------------------------------------------------------

def _free(argv):
    """A command line whose fast-path and typer answers cannot turn on the engine (a usage error,
    an option's spelling or place, a version or skills listing, a malformed call): engine_free,
    on a SQLite brain of the test's own (:func:`read_brain`)."""
    return pytest.param(argv, marks=pytest.mark.engine_free)


#: the command lines compared; the reads of the brain itself run on both engines
READS = [
    ["get", "ana-lima"],
    ["get", "people/ana-lima", "--json"],
    ["get", "people/nobody"],
    _free(["get", "--json", "nobody"]),
    _free(["get"]),
    _free(["get", "a", "b"]),
    ["search", "Series A", "--limit", "2"],
    _free(["search", "--limit=2", "Series A", "--json"]),
    _free(["search", "x", "--limit", "two"]),
    _free(["search", "x", "--limit", "3", "--limit", "4"]),
    _free(["search", "x", "--limit", " 3"]),
    _free(["search", "x", "--limit", "1_0"]),
    _free(["search", "x", "--limit", "-1"]),
    ["list", "--type", "person", "--json"],
    _free(["list", "--bogus"]),
    ["stats"],
    ["backlinks", "companies/river-ai"],
    ["timeline", "people/ana-lima", "--limit", "2"],
    ["tags"],
    _free(["version", "--json"]),
    _free(["skills-list"]),
    ["call", "brain_get", '{"slug": "ana-lima"}'],
    _free(["call", "--json", "brain_stats"]),
    _free(["call", "brain_stats", "{}", "--json"]),
    _free(["call", "brain_get", "{not json"]),
    _free(["call", "brain_get", "[1]"]),
    _free(["call", "brain_get"]),
    _free(["call", "brain_nope", "{}"]),
    _free(["call", "brain_get", '{"slug": "x"}', "extra"]),
    _free(["call", "brain_get", '{"slug": "x"}', "--limit", "3"]),
    _free(["call", "brain_get", "--json", "--json"]),
    _free(["call"]),
    _free(["call", "--help"]),
    ["pipe"],
    ["pipe", "--json"],
    _free(["pipe", "--bogus"]),
]

WRITES = [
    (["put", "people/zed"], b"---\ntitle: Zed\ntype: person\n---\n# Zed\n"),
    (["put", "people/zed", "--file", "PAGE"], None),
    (["tag", "people/ana-lima", "fair"], None),
    (["timeline-add", "people/ana-lima", "--date", "2025-04-01", "--summary", "Coffee"], None),
    (["put", "people/ana-lima", "--frontmatter", '{"status": "warm"}'], None),
    (["put", "people/ana-lima", "--frontmatter", "{not json"], None),
]


class _Stdin:
    def __init__(self, data: bytes | None):
        self.buffer = io.BytesIO(data or b"")
        self._tty = data is None

    def isatty(self) -> bool:
        return self._tty


def _run(argv, fast: bool, monkeypatch, capfdbinary, stdin: bytes | None = None):
    monkeypatch.setenv("GBRAIN_FAST_PATH", "1" if fast else "0")
    monkeypatch.setattr(sys, "stdin", _Stdin(stdin))
    code = 0
    try:
        entry.main(argv)
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    out, err = capfdbinary.readouterr()
    return code, out, err


@pytest.fixture
def read_brain(request):
    """The brain the comparisons read: :func:`conftest.fixture_db` (both engines), or for an
    ``engine_free`` case :func:`conftest.own_fixture_db` (a SQLite file of its own)."""
    free = request.node.get_closest_marker("engine_free") is not None
    return request.getfixturevalue("own_fixture_db" if free else "fixture_db")


@pytest.mark.parametrize("argv", READS, ids=lambda a: " ".join(a) or "none")
def test_fast_path_equals_typer_for_reads(argv, read_brain, monkeypatch, capfdbinary):
    full = ["--db", str(read_brain), *argv]
    taken = entry.fast_parse(argv) is not None
    slow = _run(full, False, monkeypatch, capfdbinary)
    fast = _run(full, True, monkeypatch, capfdbinary)
    assert fast == slow, (taken, fast, slow)


@pytest.mark.parametrize("argv, data", [
    pytest.param(["call", "brain_get", "-"], b'\xef\xbb\xbf{"slug": "ana-lima"}', marks=pytest.mark.engine_free),
    pytest.param(["call", "brain_get", "-"], b"\xff", marks=pytest.mark.engine_free),
    (["call", "brain_get"], b'{"slug": "ana-lima"}'),
    pytest.param(["pipe"], b'{"id": 1, "tool": "brain_get", "params": {"slug": "ana-lima"}}\n\nnot json\n{"id": 2, "tool": "stats"}\n{"id": 3, "tool": "get", "params": {"slug": "nobody"}}\n', marks=pytest.mark.engine_free),
    (["pipe"], b'{"id": 1, "tool": "brain_stats"}\n'),
])
def test_fast_path_equals_typer_for_call_and_pipe_with_input(argv, data, read_brain, monkeypatch, capfdbinary):
    full = ["--db", str(read_brain), *argv]
    slow = _run(full, False, monkeypatch, capfdbinary, stdin=data)
    fast = _run(full, True, monkeypatch, capfdbinary, stdin=data)
    assert fast == slow, (fast, slow)


@pytest.mark.sqlite_only("copies the SQLite brain file (shutil.copy) so the fast path and typer write a brain each; the fast path does not depend on the engine")
def test_fast_path_equals_typer_for_writes(fixture_db, tmp_path, monkeypatch, capfdbinary):
    page = tmp_path / "page.md"
    page.write_bytes(b"---\ntitle: Zed\ntype: person\n---\n# Zed\n\nFrom a file.\n")
    dbs = {}
    for fast in (False, True):
        db = tmp_path / f"{'fast' if fast else 'slow'}.db"
        shutil.copy(fixture_db, db)
        dbs[fast] = db
    results = {True: [], False: []}
    for argv, data in WRITES:
        argv = [str(page) if a == "PAGE" else a for a in argv]
        for fast in (False, True):
            results[fast].append(_run(["--db", str(dbs[fast]), *argv], fast, monkeypatch, capfdbinary, stdin=data))
    assert results[True] == results[False]
    assert any(code == 2 for code, _o, _e in results[True])  # the bad JSON
    for fast in (False, True):
        _run(["--db", str(dbs[fast]), "get", "people/ana-lima"], fast, monkeypatch, capfdbinary)
    pages = [_run(["--db", str(dbs[f]), "get", slug], True, monkeypatch, capfdbinary)[1] for slug in ("people/ana-lima", "people/zed") for f in (False, True)]
    assert pages[0] == pages[1] and pages[2] == pages[3] and b"From a file." in pages[2]
    assert json.loads(_run(["--db", str(dbs[True]), "tags", "people/ana-lima", "--json"], True, monkeypatch, capfdbinary)[1]).count("fair") == 1


@pytest.mark.engine_free
def test_what_the_fast_path_takes():
    assert entry.fast_parse(["get", "x"])[0].name == "get"
    for argv in (["get", "--help"], ["get", "-h"], ["config", "get"], ["call", "brain_get"], ["skills"], ["search", "--", "-x"], ["nope"], ["--tools-json"]):
        assert entry.fast_parse(argv) is None, argv
