"""The CLI as a shell script meets it: locales that are not UTF-8, pipes closed early, a full
disk, closed stdin, signals. Real processes with the environment set (trial 22, the Unix purist)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import gbrain

pytestmark = pytest.mark.engine_free  # every test names its own brain file

#: an ASCII locale with Python's UTF-8 mode off (PEP 540 would turn it on for a bare LC_ALL=C):
#: the file system encoding is ascii, argv and file names come as surrogate escapes
ASCII = {"LANG": "C", "LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONIOENCODING": ""}


def _tree(tmp_path: Path) -> Path:
    tree = tmp_path / "tree"
    (tree / "people").mkdir(parents=True)
    (tree / "notes").mkdir()
    (tree / "people" / "josé-núñez.md").write_text("---\ntitle: José Núñez\n---\nFounder of a café in Zürich. See [[東京]].\n", encoding="utf-8")
    (tree / "notes" / "東京.md").write_text("# 東京\n\nNotes about Tokyo.\n", encoding="utf-8")
    (tree / "notes" / "plain.md").write_text("# Plain\n\nLinks [[josé-núñez]].\n", encoding="utf-8")
    return tree


def _latin1_env(tmp_path: Path) -> dict:
    """An ISO-8859-1 locale built into a private folder (``LOCPATH``), or skip where the system
    cannot build one."""
    loc = tmp_path / "locale"
    loc.mkdir()
    try:
        r = subprocess.run(["localedef", "-i", "en_US", "-f", "ISO-8859-1", str(loc / "en_US.ISO-8859-1")], capture_output=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        pytest.skip("no localedef")
    env = {"LOCPATH": str(loc), "LANG": "en_US.ISO-8859-1", "LC_ALL": "en_US.ISO-8859-1", "PYTHONUTF8": "", "PYTHONIOENCODING": ""}
    probe = subprocess.run([sys.executable, "-c", "import sys; print(sys.getfilesystemencoding())"], capture_output=True, env={**os.environ, **env})
    if r.returncode != 0 or probe.stdout.strip() != b"iso8859-1":
        pytest.skip("no ISO-8859-1 locale can be built here")
    return env


@pytest.mark.parametrize("locale_env", ["ascii", "latin1"])
def test_utf8_names_and_arguments_under_a_locale_that_is_not_utf8(tmp_path, locale_env):
    # under LC_ALL=C with PYTHONUTF8=0 every non-ASCII file was skipped as 'name not valid UTF-8'
    # and every non-ASCII argument refused as 'not valid Unicode'; under ISO-8859-1 the names
    # were stored as mojibake (people/josÃ©-nÃºÃ±ez) and their links dangled
    env = ASCII if locale_env == "ascii" else _latin1_env(tmp_path)
    db = str(tmp_path / "brain.db")
    tree = _tree(tmp_path)
    r = gbrain("--db", db, "import", str(tree), "--json", env=env)
    assert r.returncode == 0, r.stderr.decode()
    assert json.loads(r.stdout)["skipped"] == []
    listed = gbrain("--db", db, "list", env=env)
    assert sorted(line.split()[0] for line in listed.stdout.decode("utf-8").splitlines()) == ["notes/plain", "notes/東京", "people/josé-núñez"]
    got = gbrain("--db", db, "get", "josé-núñez", env=env)
    assert got.returncode == 0, got.stderr.decode()
    assert got.stdout == (tree / "people" / "josé-núñez.md").read_bytes()
    hits = json.loads(gbrain("--db", db, "search", "café", "--json", env=env).stdout)
    assert [h["slug"] for h in hits] == ["people/josé-núñez"]
    back = json.loads(gbrain("--db", db, "backlinks", "people/josé-núñez", "--json", env=env).stdout)
    assert [b["slug"] for b in back] == ["notes/plain"]
    # the same brain read in a UTF-8 locale agrees, and a put of a non-ASCII name from stdin lands
    assert gbrain("--db", db, "get", "notes/東京").returncode == 0
    assert gbrain("--db", db, "put", "notes/ünïcode", input="# Ünïcode\n", env=env).returncode == 0
    assert gbrain("--db", db, "get", "notes/ünïcode").stdout == "# Ünïcode\n".encode()
    out = tmp_path / "out"
    assert gbrain("--db", db, "export", "--dir", str(out), env=env).returncode == 0
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*.md")) == ["notes/plain.md", "notes/ünïcode.md", "notes/東京.md", "people/josé-núñez.md"]


def _brain(tmp_path: Path) -> str:
    db = str(tmp_path / "brain.db")
    assert gbrain("--db", db, "import", str(_tree(tmp_path))).returncode == 0
    return db


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
@pytest.mark.parametrize("args", [["list"], ["get", "notes/plain"], ["list", "--json"], ["get", "nope", "--json"], ["--version"], ["--help"], ["search", "--help"], ["--tools-json"], ["call", "brain_get", '{"slug": "notes/plain"}'], ["get", "notes/plain", "--output", "-"]])
def test_stdout_on_a_full_disk_is_one_error_line_and_exit_1(tmp_path, args):
    # `gbrain list > /dev/full` printed a traceback (OSError: [Errno 28]) from _out, rich or print
    db = _brain(tmp_path)
    with open("/dev/full", "wb") as full:
        r = subprocess.run([sys.executable, "-m", "gbrain", "--db", db, *args], stdout=full, stderr=subprocess.PIPE, timeout=120)
    assert r.returncode == 1
    lines = r.stderr.decode().splitlines()
    assert b"Traceback" not in r.stderr and lines[-1] == "error: cannot write the output: No space left on device (stdout)"
    if args[:2] == ["get", "nope"]:  # the command's own error is said first
        assert lines[0].startswith("error: no page 'nope'")


@pytest.mark.parametrize("args", [["list"], ["get", "notes/plain"], ["get", "notes/plain", "--output", "-"], ["--tools-json"], ["--help"]])
def test_a_reader_gone_before_the_output_ends_the_command_quietly(tmp_path, args):
    # `gbrain get X --output - | true` said 'error: Broken pipe: a file' where every other command
    # ends quietly (exit 1, as entry.main's docstring says)
    db = _brain(tmp_path)
    p = subprocess.Popen([sys.executable, "-m", "gbrain", "--db", db, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdout.close()  # the reader is gone before the command writes anything
    err = p.stderr.read()
    assert p.wait(timeout=120) == 1
    assert err == b""


@pytest.mark.parametrize("args", [["get", "notes/big"], ["get", "notes/big", "--output", "-"], ["list", "--limit", "0"]])
def test_a_reader_gone_in_the_middle_of_the_output_ends_the_command_with_1(tmp_path, args):
    # trial 42: `gbrain list --limit 0 | head -1` on a 1,780-page vault (114 KB of output) ended 0:
    # the pipe took 64 KiB, the write returned that short count and the rest was dropped unsaid
    tree = _tree(tmp_path)
    (tree / "notes" / "big.md").write_text("# Big\n\n" + "A line of the big page.\n" * 40_000, encoding="utf-8")
    for i in range(3000):
        (tree / "notes" / f"page-{i:04d}-with-a-long-enough-name.md").write_text(f"# Page {i}\n", encoding="utf-8")
    db = str(tmp_path / "brain.db")
    assert gbrain("--db", db, "import", str(tree)).returncode == 0
    p = subprocess.Popen([sys.executable, "-m", "gbrain", "--db", db, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert p.stdout.read(10)  # the command has begun writing, more than the pipe holds
    p.stdout.close()  # and the reader goes (`| head -1`)
    err = p.stderr.read()
    assert p.wait(timeout=120) == 1
    assert err == b""


def _on_a_terminal(args: list[str], env: dict) -> bytes:
    """What the command writes to stdout when stdout is a terminal (a pseudo-terminal here)."""
    import pty

    main, sub = pty.openpty()
    try:
        r = subprocess.run([sys.executable, "-m", "gbrain", *args], stdout=sub, stderr=subprocess.PIPE, env={**os.environ, **env}, timeout=120)
        os.close(sub)
        sub = -1
        assert r.returncode == 0, r.stderr
        out = b""
        while True:
            try:
                chunk = os.read(main, 65536)
            except OSError:  # EIO: the other end is closed and everything was read
                break
            if not chunk:
                break
            out += chunk
        return out
    finally:
        os.close(main)
        if sub >= 0:
            os.close(sub)


@pytest.mark.skipif(os.name != "posix", reason="a pseudo-terminal")
def test_search_marks_hits_in_bold_on_a_terminal_but_not_a_dumb_one(tmp_path):
    # TERM=dumb got ESC[1m … ESC[22m around every hit (rich's own output honours TERM=dumb)
    db = _brain(tmp_path)
    assert b"\x1b[1m" in _on_a_terminal(["--db", db, "search", "Tokyo"], {"TERM": "xterm", "NO_COLOR": ""})
    for env in ({"TERM": "dumb", "NO_COLOR": ""}, {"TERM": "xterm", "NO_COLOR": "1"}):
        out = _on_a_terminal(["--db", db, "search", "Tokyo"], env)
        assert b"notes/" in out and b"\x1b" not in out, env


def _run_closed(args: list[str], close: tuple[int, ...], stdin=None, stderr=subprocess.PIPE) -> subprocess.CompletedProcess:
    """The CLI with the descriptors ``close`` closed, as the shell's ``<&-``/``>&-``/``2>&-``
    leave them (the real interpreter: a shell-script shim would take a closed number itself)."""
    def closer():
        for fd in close:
            os.close(fd)
    return subprocess.run([sys.executable, "-m", "gbrain", *args], stdin=stdin, stdout=subprocess.PIPE, stderr=stderr, preexec_fn=closer, timeout=120)


@pytest.mark.skipif(os.name != "posix", reason="closed descriptors")
def test_closed_stdin_stdout_or_stderr(tmp_path):
    # `put X <&-`, `pipe <&-`, `call T - <&-` and `list >&-` printed tracebacks (sys.stdin/stdout
    # None); `serve <&-` one of EBADF
    db = _brain(tmp_path)
    r = _run_closed(["--db", db, "put", "notes/new"], (0,))
    assert r.returncode == 2 and r.stderr.startswith(b"error: nothing to write"), r.stderr
    r = _run_closed(["--db", db, "put", "notes/new", "--file", "-"], (0,))
    assert (r.returncode, r.stderr) == (2, b"error: --file -: standard input is closed\n")
    assert gbrain("--db", db, "get", "notes/new").returncode == 1  # nothing was created
    r = _run_closed(["--db", db, "pipe"], (0,))
    assert (r.returncode, r.stdout, r.stderr) == (0, b"", b"")  # no request
    r = _run_closed(["--db", db, "call", "brain_get", "-"], (0,))
    assert r.returncode == 2 and b"Traceback" not in r.stderr and json.loads(r.stdout)["kind"] == "bad_input"
    r = _run_closed(["--db", db, "serve"], (0,))
    assert r.returncode == 0 and b"Traceback" not in r.stderr
    r = _run_closed(["--db", db, "list"], (1,))
    assert (r.returncode, r.stderr) == (1, b"error: cannot write the output: Bad file descriptor (stdout)\n")
    r = _run_closed(["--db", db, "list", "--limit", "1"], (2,), stderr=None)
    assert (r.returncode, r.stdout) == (0, b"notes/plain  note  Plain\n")
    with open(os.devnull, "rb") as unwritable:  # a stderr that refuses writes (EBADF) loses its notes only
        r = subprocess.run([sys.executable, "-m", "gbrain", "--db", db, "list", "--limit", "1"], stdout=subprocess.PIPE, stderr=unwritable, timeout=120)
    assert (r.returncode, r.stdout) == (0, b"notes/plain  note  Plain\n")
    # and `--file -` reads stdin as the placeholder for it
    assert gbrain("--db", db, "put", "notes/new", "--file", "-", input="# New\n").returncode == 0
    assert gbrain("--db", db, "get", "notes/new").stdout == b"# New\n"


@pytest.mark.skipif(os.name != "posix", reason="signals")
@pytest.mark.parametrize("signame, code, word", [("SIGTERM", 143, b"terminated"), ("SIGHUP", 129, b"hung up")])
def test_sigterm_stops_a_command_as_ctrl_c_does(tmp_path, signame, code, word):
    # `kill PID` ended an import outright (exit -15: the parse pool's temp folder pymp-* left in
    # TMPDIR, "leaked semaphore objects" on stderr); it now unwinds as Ctrl-C: exit 143
    import signal

    db = _brain(tmp_path)
    p = subprocess.Popen([sys.executable, "-m", "gbrain", "--db", db, "pipe"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdin.write(b'{"id": 1, "tool": "brain_stats"}\n')
    p.stdin.flush()
    assert json.loads(p.stdout.readline())["id"] == 1  # running, waiting for the next request
    p.send_signal(getattr(signal, signame))  # SIGHUP: the terminal or ssh session closed
    err = p.stderr.read()
    assert p.wait(timeout=120) == code and err == word + b"\n"
    p.stdin.close()


@pytest.mark.skipif(os.name != "posix", reason="signals")
def test_sigterm_during_a_long_command_says_its_work_is_kept(monkeypatch, capsys):
    import gbrain.entry as entry

    def stop(argv):
        raise entry.Terminated

    monkeypatch.setattr(entry, "fast_main", stop)
    with pytest.raises(SystemExit) as e:
        entry.main(["import", "vault"])
    assert e.value.code == 143
    assert capsys.readouterr().err == "terminated: what import committed so far is kept; run the same command again to go on\n"


def test_version_option_is_listed_and_takes_json():
    # `gbrain --version --json` was 'no such option: --version (Possible options: --json)', exit 2,
    # and --help did not list it (only a bare `gbrain --version` was taken, by entry._main)
    from gbrain import __version__

    for args, out in ((["--version"], f"gbrain {__version__}\n"), (["-V"], f"gbrain {__version__}\n"),
                      (["--version", "--json"], json.dumps({"version": __version__}) + "\n"), (["--json", "--version"], json.dumps({"version": __version__}) + "\n")):
        r = gbrain(*args)
        assert (r.returncode, r.stdout.decode(), r.stderr) == (0, out, b""), args
    assert b"--version" in gbrain("--help").stdout
    err = gbrain("--verison").stderr
    assert b"Possible options:" in err and b"--version" in err


def test_help_under_an_ascii_io_encoding():
    # PYTHONIOENCODING=ascii: `gbrain copy --help` (its description holds ↔) was a
    # UnicodeEncodeError traceback from rich; stdout is UTF-8 as every other output is
    r = gbrain("copy", "--help", env={"PYTHONIOENCODING": "ascii"})
    assert r.returncode == 0 and b"Traceback" not in r.stderr
    assert "↔" in r.stdout.decode("utf-8")


@pytest.mark.skipif(os.name != "posix", reason="a newline in a file name")
def test_a_name_with_a_newline_or_tab_stays_on_its_line(tmp_path):
    # `changes`, `history` and `trash` printed a file named 'new\nline.md' raw: one item over two
    # lines (`gbrain changes | wc -l` counted it twice, a `while read` loop saw 'line.md …')
    tree = tmp_path / "tree"
    (tree / "notes").mkdir(parents=True)
    (tree / "notes" / "new\nline.md").write_text("# NL\n")
    (tree / "notes" / "tab\tx.md").write_text("# Tab\n")
    (tree / "notes" / "plain.md").write_text("# Plain\n")
    db = str(tmp_path / "brain.db")
    assert gbrain("--db", db, "import", str(tree)).returncode == 0
    out = gbrain("--db", db, "changes").stdout.decode()
    assert len(out.splitlines()) == 3 and "notes/new\\u000aline.md" in out and "notes/tab\\u0009x.md" in out
    out = gbrain("--db", db, "history", "notes/new\nline.md").stdout.decode()
    assert out.splitlines()[0] == "notes/new\\u000aline.md: 1 version(s)"
    (tree / "notes" / "new\nline.md").unlink()
    assert gbrain("--db", db, "sync", str(tree)).returncode == 0
    out = gbrain("--db", db, "trash").stdout.decode()
    assert len(out.splitlines()) == 1 and "notes/new\\u000aline.md" in out


def test_top_level_help_lists_each_command_on_one_line():
    # `gbrain --help` was 287 lines at 80 columns: every command's whole description in the list
    # (search alone 19 lines); the list now has each command's title, the rest is `gbrain CMD --help`
    from gbrain import operations as ops

    r = gbrain("--help", env={"COLUMNS": "80"})
    assert r.returncode == 0
    lines = r.stdout.decode().splitlines()
    start = next(i for i, line in enumerate(lines) if "Commands" in line)
    rows = [line for line in lines[start + 1:] if line.startswith("│")]
    assert all(line[2] != " " for line in rows), [line for line in rows if line[2] == " "][:3]  # no continuation lines
    top = [o for o in ops.REGISTRY.values() if "-" not in o.name or o.name.split("-", 1)[0] not in ops.CLI_GROUPS]
    for o in top:
        assert any(line.split()[1] == o.name and (o.title or "") in line for line in rows), o.name
    assert all(o.title for o in ops.REGISTRY.values())  # every command has its one line


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_a_stderr_that_cannot_be_written_does_not_stop_the_work(tmp_path):
    # `gbrain embed 2>/dev/full` (a log on a full disk) failed with exit 1 and embedded nothing:
    # its note on stderr ('no OPENAI_API_KEY: using the offline minilm model') raised ENOSPC
    db = str(tmp_path / "brain.db")
    assert gbrain("--db", db, "put", "notes/a", input="# A\n\nalpha\n").returncode == 0
    with open("/dev/full", "wb") as full:
        r = subprocess.run([sys.executable, "-m", "gbrain", "--db", db, "embed", "--dry-run"], stdout=subprocess.PIPE, stderr=full, timeout=120)
    assert (r.returncode, r.stdout.split(b":")[0]) == (0, b"would embed 1 page(s)")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_serve_with_its_log_on_a_full_disk_answers(tmp_path):
    # `gbrain serve 2>/dev/full` answered initialize (the fast handshake) and then died on its
    # 'gbrain MCP server running' line: exit 1, the tools/call never answered
    db = _brain(tmp_path)
    with open("/dev/full", "wb") as full:
        p = subprocess.Popen([sys.executable, "-m", "gbrain", "--db", db, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=full)
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    p.stdin.write((json.dumps(init) + "\n").encode())
    p.stdin.flush()
    assert json.loads(p.stdout.readline())["id"] == 1
    p.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
    p.stdin.write(b'{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "brain_stats", "arguments": {}}}\n')
    p.stdin.flush()
    answer = p.stdout.readline()
    p.stdin.close()
    assert p.wait(timeout=60) == 0
    assert json.loads(answer)["id"] == 2 and "result" in json.loads(answer), answer


def test_ctrl_c_under_a_progress_bar_gives_the_terminal_its_cursor_back(tmp_path, monkeypatch):
    """Review of the busy-wait session: `import` shows its bar from the first file now (0 done),
    not first at its first commit; a Ctrl-C under a bar (rich's live display) left it running:
    the cursor stayed hidden in the person's terminal (no ``ESC[?25h`` after the ``ESC[?25l``) and
    the bar was drawn again after "interrupted". run_and_print stopped it only for a gbrain error."""
    import io

    from gbrain import entry
    from gbrain.sync import importer

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    def interrupted(b, root, on_progress=None, **k):
        on_progress(0, 10)  # the bar is up
        raise KeyboardInterrupt

    (tmp_path / "tree").mkdir()
    (tmp_path / "tree" / "a.md").write_text("# A\n")
    err = Terminal()
    monkeypatch.setattr(sys, "stderr", err)
    monkeypatch.setattr(importer, "import_tree", interrupted)
    with pytest.raises(SystemExit) as e:
        entry._main(["import", str(tmp_path / "tree"), "--db", str(tmp_path / "b.db")])
    out = err.getvalue()
    assert e.value.code == 130 and "interrupted" in out, out
    assert "\x1b[?25l" in out and out.rfind("\x1b[?25h") > out.rfind("\x1b[?25l"), repr(out[-300:])
    assert out.rstrip().endswith("run the same command again to go on"), repr(out[-300:])  # (no bar after the line)
