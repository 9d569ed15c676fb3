"""A NUL character (U+0000) in a page text given to a write: refused on both engines alike,
exit 2, one message, nothing written (import keeps a file holding NUL bytes as a blob, a
non-page file). Before: ``put`` refused it ("page content contains a NUL byte"), but
``timeline-add`` and ``link``'s context wrote it into the page on SQLite (where ``LIKE`` scans
read it) and failed on Postgres with a database error, exit 1; a ``--frontmatter`` value holding
one (written as YAML's ``"\\0"``) likewise."""
from __future__ import annotations

import json

import pytest

from conftest import gbrain_in_process
from gbrain import operations as ops
from gbrain.core.brain import NUL_TEXT
from gbrain.errors import BadInput

WANT = "error: " + NUL_TEXT.format(what="page text")


def _state(db: str) -> tuple:
    r = gbrain_in_process("--db", db, "get", "a", "--json")
    h = gbrain_in_process("--db", db, "history", "a", "--json")
    return json.loads(r.stdout)["content"], h.stdout


@pytest.fixture
def two(db_path):
    db = str(db_path)
    for s in ("a", "b"):
        assert gbrain_in_process("--db", db, "put", s, "--content", f"# {s.upper()}\n\nhello\n").returncode == 0
    return db


CALLS = {
    "call whole": ("brain_put", {"slug": "a", "content": "# A\n\nhe\u0000llo\n"}),
    "compiled truth": ("brain_put", {"slug": "a", "compiled_truth": "x\u0000"}),
    "append": ("brain_put", {"slug": "a", "append": "x\u0000"}),
    "replace": ("brain_put", {"slug": "a", "replace": {"hello": "he\u0000"}}),
    "timeline append": ("brain_put", {"slug": "a", "timeline_append": "- **2025-01-01** | x\u0000"}),
    "frontmatter value": ("brain_put", {"slug": "a", "frontmatter": {"k": "x\u0000y"}}),
    "frontmatter list": ("brain_put", {"slug": "a", "frontmatter": {"k": ["ok", {"n": "\u0000"}]}}),
    "frontmatter key": ("brain_put", {"slug": "a", "frontmatter": {"k\u0000": "v"}}),
    "timeline-add summary": ("timeline-add", {"slug": "a", "date": "2025-01-01", "summary": "x\u0000y"}),
    "timeline-add source": ("timeline-add", {"slug": "a", "date": "2025-01-01", "summary": "xy", "source": "s\u0000"}),
    "timeline-add detail": ("timeline-add", {"slug": "a", "date": "2025-01-01", "summary": "xy", "detail": "d\u0000"}),
    "link context": ("link", {"from": "a", "to": "b", "context": "c\u0000"}),
}


@pytest.mark.parametrize("case", list(CALLS))
def test_a_nul_in_a_write_is_refused_alike_and_nothing_is_written(two, case):
    tool, args = CALLS[case]
    before = _state(two)
    r = gbrain_in_process("--db", two, "call", tool, json.dumps(args))
    assert r.returncode == 2, (r.stdout, r.stderr)
    want = WANT.replace("page text", "the frontmatter given") if case.startswith("frontmatter") else WANT
    assert r.stderr.decode().strip() == want, r.stderr
    assert _state(two) == before
    with pytest.raises(BadInput, match="contains a NUL character"):  # the MCP surface
        ops.run_tool(tool if tool.startswith("brain_") else "brain_" + tool.replace("-", "_"), args, ops.Context(db=two, surface="mcp"))
    assert _state(two) == before


def test_put_of_a_file_or_stdin_with_a_nul_is_refused(two, tmp_path):
    f = tmp_path / "f.md"
    f.write_bytes(b"# x\n\nhe\x00llo\n")
    before = _state(two)
    for r in (gbrain_in_process("--db", two, "put", "a", "--file", str(f)),
              gbrain_in_process("--db", two, "put", "a", input=f.read_bytes()),
              gbrain_in_process("--db", two, "put", "new", "--file", str(f))):
        assert r.returncode == 2 and r.stderr.decode().strip() == WANT, r.stderr
    assert _state(two) == before
    assert gbrain_in_process("--db", two, "get", "new").returncode != 0


@pytest.mark.sqlite_only("a page holding NUL: only a SQLite brain a timeline-add or link wrote before could have one")
def test_a_page_that_already_holds_a_nul_can_still_be_edited(two):
    """The refusal is of a NUL the edit adds: a SQLite page an older gbrain's timeline-add left
    one in keeps taking edits (and stays byte-exact), so nothing is stuck."""
    from gbrain.core.brain import Brain

    with Brain.open(two) as b:
        b.save_page("c.md", "# C\n\nx\u0000y\n")
    r = gbrain_in_process("--db", two, "timeline-add", "c", "--date", "2025-01-02", "--summary", "later")
    assert r.returncode == 0, r.stderr
    r = gbrain_in_process("--db", two, "call", "timeline-add", json.dumps({"slug": "c", "date": "2025-01-03", "summary": "z\u0000"}))
    assert r.returncode == 2 and r.stderr.decode().strip() == WANT, r.stderr
    assert json.loads(gbrain_in_process("--db", two, "get", "c", "--json").stdout)["content"] == (
        "# C\n\nx\u0000y\n\n---\n\n- **2025-01-02** | later\n")


#: YAML double-quoted escapes that load to a character no engine stores in text (the page text
#: itself holds none): the derived values read U+FFFD there, as a canvas card (canvas.UNSTORABLE)
ESCAPES = {"zero": "\\0", "x00": "\\x00", "u0000": "\\u0000", "U00000000": "\\U00000000", "surrogate": "\\ud800"}


@pytest.mark.parametrize("esc", list(ESCAPES))
def test_a_yaml_nul_escape_in_frontmatter_imports_alike(db_path, tmp_path, esc):
    """Before: Postgres' import failed whole (exit 1, no page stored), SQLite stored the NUL in
    the title and frontmatter JSON (a lone surrogate failed the import on both)."""
    from conftest import write_tree

    e = ESCAPES[esc]
    text = f'---\ntitle: "T{e}"\nk: ["a{e}", ok]\n"k{e}": 1\n---\nbody\n'
    root = write_tree(tmp_path / "t", {"a.md": "# A\n\nok\n", "c.md": text})
    r = gbrain_in_process("--db", str(db_path), "import", str(root))
    assert r.returncode == 0, r.stderr
    got = json.loads(gbrain_in_process("--db", str(db_path), "get", "c", "--json").stdout)
    assert got["content"] == text and got["title"] == "T\ufffd"
    assert gbrain_in_process("--db", str(db_path), "get", "a").returncode == 0
    r = gbrain_in_process("--db", str(db_path), "put", "d", "--content", text)
    assert r.returncode == 0, r.stderr
    r = gbrain_in_process("--db", str(db_path), "tag", "c", "x")
    assert r.returncode == 0, r.stderr
    got = json.loads(gbrain_in_process("--db", str(db_path), "get", "c", "--json").stdout)
    assert got["title"] == "T\ufffd" and f'"T{e}"' in got["content"]
    out = tmp_path / "out"
    assert gbrain_in_process("--db", str(db_path), "export", str(out)).returncode == 0
    assert (out / "d.md").read_text() == text
    from gbrain.core.brain import Brain
    from gbrain.sync.verify import fresh_import_differences

    with Brain.open(str(db_path)) as b:
        fm = b.conn.execute("SELECT frontmatter FROM pages WHERE slug = 'd'").fetchone()[0]
        assert (json.loads(fm) if isinstance(fm, str) else fm) == {"title": "T\ufffd", "k": ["a\ufffd", "ok"], "k\ufffd": 1}
        assert fresh_import_differences(b) == {}


@pytest.mark.sqlite_only("a page whose frontmatter loaded to a NUL: only SQLite stored one (Postgres' import and put failed)")
def test_v82_rederives_a_stored_yaml_nul_escape(db_path, monkeypatch):
    """A SQLite brain before v82 holds the NUL its YAML escape loaded to (title, frontmatter JSON,
    tags): the upgrade derives those pages again, U+FFFD there, as a fresh import gives."""
    from conftest import assert_upgraded, brain_at_version
    from gbrain.core.brain import Brain
    from gbrain.page import markdown, navfile
    from gbrain.sync.verify import fresh_import_differences

    text = '---\ntitle: "T\\0"\ntags: ["a\\x00b"]\n---\nbody\n'
    with monkeypatch.context() as m:  # the load before v82: the NUL kept
        m.setattr(markdown, "_storable_json", lambda v: v)
        m.setattr(navfile, "_storable_json", lambda v: v)
        with brain_at_version(str(db_path), 81, 89, made_now=True) as b:
            b.save_page("c.md", text)
            b.save_file("toc.yml", b'- name: "Sec\\0"\n  href: c.md\n')
            assert b.conn.execute("SELECT context FROM nav_entries").fetchone()[0] == "Sec\x00"
            b.save_page("plain.md", "---\ntitle: P\n---\nx\n")
            assert b.conn.execute("SELECT title FROM pages WHERE slug = 'c'").fetchone()[0] == "T\x00"
    navfile._PARSED.clear()  # (the old gbrain's parse of the nav file, cached by its bytes in this process)
    with Brain.open(str(db_path)) as b:
        assert_upgraded(b.conn, 81, 89)
        row = b.conn.execute("SELECT title, frontmatter FROM pages WHERE slug = 'c'").fetchone()
        assert row[0] == "T\ufffd" and json.loads(row[1]) == {"title": "T\ufffd", "tags": ["a\ufffdb"]}
        assert [r[0] for r in b.conn.execute("SELECT t.tag FROM tags t JOIN pages p ON p.id = t.page_id WHERE p.slug = 'c'")] == ["a\ufffdb"]
        assert b.get_text("c") == text
        assert b.conn.execute("SELECT context FROM nav_entries").fetchone()[0] == "Sec\ufffd"
        assert fresh_import_differences(b) == {}


def test_a_yaml_nul_escape_in_a_nav_file_imports_alike(db_path, tmp_path):
    """A TOC.yml's YAML escape loading to a NUL: its entries' section path reads U+FFFD there
    (before: SQLite stored the NUL in ``nav_entries``), the file's bytes kept."""
    from conftest import write_tree
    from gbrain.core.brain import Brain

    toc = '- name: "Sec\\0"\n  items:\n  - name: "A\\u0000"\n    href: a.md\n'
    root = write_tree(tmp_path / "t", {"a.md": "# A\n\nok\n", "toc.yml": toc})
    r = gbrain_in_process("--db", str(db_path), "import", str(root))
    assert r.returncode == 0, r.stderr
    with Brain.open(str(db_path)) as b:
        assert [tuple(x) for x in b.conn.execute("SELECT path, context FROM nav_entries")] == [("a", "Sec\ufffd › A\ufffd")]
