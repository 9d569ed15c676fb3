"""Bad input found by a new-user test (issue 11's bar): one clear line, the right exit code,
nothing lost, never a traceback."""
from __future__ import annotations

import json
import os
import sqlite3

import pytest

from conftest import gbrain, gbrain_in_process, unmount
from gbrain import operations as ops
from gbrain.page.markdown import FM_MAX_DEPTH, FrontmatterUnloadable, parse_page, to_json_value

SELF_ALIAS = "---\ntitle: &a [*a]\n---\nbody\n"


def nested(n: int) -> str:
    return "---\na: " + "[" * n + "]" * n + "\n---\nbody\n"


def laughs(levels: int) -> str:
    """~400 bytes of YAML whose aliases expand to 10**levels values."""
    lines = ["a0: &a0 [lol]"]
    for i in range(1, levels + 1):
        lines.append(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]")
    return "---\n" + "\n".join(lines) + "\n---\nbody\n"


def no_traceback(r) -> None:
    assert b"Traceback" not in r.stderr and b"RecursionError" not in r.stderr, r.stderr.decode()[-2000:]


# ---- 1. recursive or deeply nested frontmatter ------------------------------------------------


@pytest.mark.engine_free
def test_self_referencing_alias_is_unloadable_frontmatter_kept_exactly():
    p = parse_page(SELF_ALIAS, "anchor.md")
    assert p.render() == SELF_ALIAS
    assert p.frontmatter == {} and "contains itself" in p.frontmatter_error
    assert p.warnings == [p.frontmatter_error]
    x: list = []
    x.append(x)
    with pytest.raises(FrontmatterUnloadable):
        to_json_value(x)
    d: dict = {}
    d["me"] = {"again": d}
    with pytest.raises(FrontmatterUnloadable):
        to_json_value(d)


@pytest.mark.engine_free
def test_shared_but_not_recursive_aliases_still_load():
    text = "---\nbase: &b {x: 1}\nboth: [*b, *b]\n---\nbody\n"
    p = parse_page(text)
    assert p.frontmatter_error is None
    assert p.frontmatter["both"] == [{"x": 1}, {"x": 1}]


@pytest.mark.engine_free
@pytest.mark.parametrize("n", [FM_MAX_DEPTH - 1, FM_MAX_DEPTH + 1, 500, 60_000])
def test_deep_nesting_loads_up_to_the_limit_and_is_unloadable_beyond(n):
    text = nested(n)
    p = parse_page(text, "deep.md")
    assert p.render() == text
    if n < FM_MAX_DEPTH:
        assert p.frontmatter_error is None
    else:
        assert p.frontmatter == {} and f"deeper than {FM_MAX_DEPTH}" in p.frontmatter_error


@pytest.mark.engine_free
def test_deep_block_nesting_and_alias_chains_are_bounded_too():
    block = "---\na:\n" + "- " * (FM_MAX_DEPTH + 5) + "x\n---\nbody\n"
    assert f"deeper than {FM_MAX_DEPTH}" in parse_page(block).frontmatter_error
    chain = ["a0: &a0 [x]"] + [f"a{i}: &a{i} [*a{i - 1}]" for i in range(1, FM_MAX_DEPTH + 5)]
    text = "---\n" + "\n".join(chain) + "\n---\nbody\n"
    p = parse_page(text)
    assert p.render() == text and p.frontmatter == {} and p.frontmatter_error
    deep: list = ["x"]
    for _ in range(FM_MAX_DEPTH + 5):  # what a chain of aliases loads as: no deep YAML text
        deep = [deep]
    with pytest.raises(FrontmatterUnloadable, match="deeper than"):
        to_json_value(deep)


@pytest.mark.engine_free
def test_import_with_recursive_and_deep_frontmatter_warns_and_imports_everything(tmp_path):
    v, db = tmp_path / "v", tmp_path / "a.db"
    v.mkdir()
    (v / "anchor.md").write_text(SELF_ALIAS)
    (v / "deep.md").write_text(nested(500))
    (v / "ok.md").write_text("# ok\n")
    r = gbrain("import", str(v), "--db", str(db))
    no_traceback(r)
    assert r.returncode == 0
    err = r.stderr.decode()
    assert "anchor.md: frontmatter YAML has an alias that contains itself" in err
    assert f"deep.md: frontmatter YAML does not load: it nests deeper than {FM_MAX_DEPTH}" in err
    for slug, name in [("anchor", "anchor.md"), ("deep", "deep.md"), ("ok", "ok.md")]:
        got = gbrain("get", slug, "--db", str(db))
        assert got.returncode == 0 and got.stdout == (v / name).read_bytes()
    with sqlite3.connect(db) as c:
        rows = dict(c.execute("SELECT slug, frontmatter_error FROM pages").fetchall())
    assert rows["ok"] is None and "contains itself" in rows["anchor"] and "deeper" in rows["deep"]
    # sync of the same tree into another brain: the same
    r = gbrain("sync", str(v), "--db", str(tmp_path / "s.db"))
    no_traceback(r)
    assert r.returncode == 0


@pytest.mark.engine_free
def test_put_of_recursive_frontmatter_is_stored_with_a_warning_like_other_bad_yaml(tmp_path):
    db = str(tmp_path / "a.db")
    r = gbrain("put", "p1", "--db", db, input=SELF_ALIAS)
    no_traceback(r)
    assert r.returncode == 0 and b"warning: frontmatter YAML has an alias that contains itself" in r.stdout + r.stderr
    assert gbrain("get", "p1", "--db", db).stdout == SELF_ALIAS.encode()
    # the operation every surface (MCP brain_put too) calls
    out = ops.run_tool("put", {"slug": "p2", "content": nested(500)}, ops.Context(db=db, surface="mcp"))
    assert out["created"] is True
    assert "deeper than" in json.dumps(out)


# ---- 2. alias expansion ("billion laughs") --------------------------------------------------------


@pytest.mark.engine_free
@pytest.mark.parametrize("levels", [7, 8])
def test_alias_bomb_is_refused_and_the_import_stays_small(tmp_path, levels):
    v, db = tmp_path / "v", tmp_path / "a.db"
    v.mkdir()
    text = laughs(levels)
    assert len(text) < 600
    (v / "bomb.md").write_text(text)
    (v / "ok.md").write_text("# ok\n")
    r = gbrain("import", str(v), "--db", str(db))
    no_traceback(r)
    assert r.returncode == 0 and b"bomb.md: frontmatter YAML aliases expand to too much data" in r.stderr
    assert gbrain("get", "bomb", "--db", str(db)).stdout == text.encode()
    with sqlite3.connect(db) as c:
        fm, err = c.execute("SELECT frontmatter, frontmatter_error FROM pages WHERE slug = 'bomb'").fetchone()
    assert json.loads(fm) == {} and "too much data" in err
    wal = db.with_name(db.name + "-wal")
    size = os.path.getsize(db) + (os.path.getsize(wal) if wal.exists() else 0)
    assert size < 2_000_000  # was 80 MB at 7 levels


@pytest.mark.engine_free
def test_alias_budget_counts_values_and_characters():
    with pytest.raises(FrontmatterUnloadable):
        to_json_value([["x" * 100] * 100] * 10, budget=50_000)
    assert to_json_value([["x" * 100] * 100] * 4, budget=50_000)
    # YAML without aliases never meets the budget, however long
    big = "---\n" + "".join(f"k{i}: [{', '.join(['v'] * 50)}]\n" for i in range(400)) + "---\n"
    assert parse_page(big).frontmatter_error is None


@pytest.mark.engine_free
@pytest.mark.parametrize("value", ['!!bool "0O17"', "!!bool ''", '!!int ""', "!!int -"])
def test_a_tagged_value_its_tag_cannot_read_is_bad_yaml_kept_raw(value):
    # found by tests/test_frontmatter_quick.py: ruamel raised KeyError/IndexError out of parse_page
    text = f"---\ntitle: {value}\n---\nbody\n"
    p = parse_page(text, "tagged.md")
    assert p.render() == text and p.frontmatter == {}
    assert p.frontmatter_error.startswith("frontmatter YAML does not load: ") and "\n" not in p.frontmatter_error


# ---- 3. reads on a completely full disk -------------------------------------------------------------


def _mount_tmpfs(mnt, size: str) -> bool:
    import subprocess

    if os.geteuid() != 0:
        return False
    return subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "none", str(mnt)], capture_output=True).returncode == 0


def _fill(folder) -> None:
    fd = os.open(folder / "fill", os.O_WRONLY | os.O_CREAT)
    try:
        while True:
            os.write(fd, b"\0" * 4096)
    except OSError:
        pass
    finally:
        os.close(fd)
    assert os.statvfs(folder).f_bavail == 0


@pytest.mark.engine_free
def test_full_disk_reads_work_and_writes_say_the_disk_is_full(tmp_path):
    import shutil
    import subprocess

    src = tmp_path / "v"
    src.mkdir()
    (src / "ok.md").write_text("# Okapi\n\nstriped legs\n")
    (src / "two.md").write_text("# Two\n\nsecond page\n")
    small = tmp_path / "small.db"
    assert gbrain("import", str(src), "--db", str(small)).returncode == 0
    assert not os.path.exists(str(small) + "-wal")  # closed cleanly: only the main file
    mnt = tmp_path / "tiny"
    mnt.mkdir()
    if not _mount_tmpfs(mnt, "1200k"):
        pytest.skip("needs root to mount a small tmpfs")
    try:
        shutil.copy(small, mnt / "b.db")
        _fill(mnt)
        db = str(mnt / "b.db")
        r = gbrain("get", "ok", "--db", db)
        assert r.returncode == 0 and r.stdout == b"# Okapi\n\nstriped legs\n", r.stderr
        r = gbrain("search", "striped", "--db", db, "--json")
        assert r.returncode == 0 and json.loads(r.stdout)[0]["slug"] == "ok", r.stderr
        r = gbrain("put", "new", "--db", db, input="# New\n")
        no_traceback(r)
        err = r.stderr.decode()
        assert r.returncode == 1 and "is full" in err and "not a usable" not in err and "damaged" not in err
        assert len(err.strip().splitlines()) == 1
    finally:
        unmount(mnt)


@pytest.mark.engine_free
def test_an_io_error_on_a_full_disk_is_reported_as_full_not_damaged(tmp_path, monkeypatch):
    import sqlite3 as sq

    from gbrain.storage import db as dbmod

    monkeypatch.setattr(dbmod, "disk_full", lambda p: True)
    msg = str(dbmod.db_error(sq.OperationalError("disk I/O error"), tmp_path / "b.db"))
    assert "is full" in msg and "check the disk" not in msg
    monkeypatch.setattr(dbmod, "disk_full", lambda p: False)
    assert "disk I/O error" in str(dbmod.db_error(sq.OperationalError("disk I/O error"), tmp_path / "b.db"))


# ---- 4. control and bidi characters in human output --------------------------------------------------

EVIL_TITLE = "Evil \x1b[31mred\x1b[0m \u202eslidoc\u202c title\x07"
EVIL_PAGE = f"---\ntitle: \"{EVIL_TITLE.encode('unicode_escape').decode()}\"\ntags: [\"bad\\e[2Jtag\", \"rlo\\u202etag\"]\n---\nEvil page about okapis\n"


@pytest.mark.engine_free
def test_control_and_bidi_characters_are_escaped_in_human_output_only(tmp_path):
    db = str(tmp_path / "a.db")
    assert gbrain("put", "evil", "--db", db, input=EVIL_PAGE).returncode == 0
    for cmd in (["list"], ["tags"], ["tags", "evil"], ["search", "okapis"], ["search", "evil"]):
        r = gbrain(*cmd, "--db", db)
        assert r.returncode == 0, (cmd, r.stderr)
        out = r.stdout.decode()
        for c in ("\x1b", "\u202e", "\u202c", "\x07"):
            assert c not in out, (cmd, out)
        assert "\\x1b" in out or "\\u202e" in out, (cmd, out)
    assert "Evil \\x1b[31mred\\x1b[0m \\u202eslidoc\\u202c title\\x07" in gbrain("list", "--db", db).stdout.decode()
    # --json and get keep the data as stored
    listed = json.loads(gbrain("list", "--db", db, "--json").stdout)
    assert listed[0]["title"] == EVIL_TITLE
    assert sorted(json.loads(gbrain("tags", "evil", "--db", db, "--json").stdout)) == ["bad\x1b[2Jtag", "rlo\u202etag"]
    assert gbrain("get", "evil", "--db", db).stdout == EVIL_PAGE.encode()


# ---- 5. queries with no words ---------------------------------------------------------------------


@pytest.fixture
def symbols_db(tmp_path):
    v = tmp_path / "s"
    v.mkdir()
    (v / "a.md").write_text("# Paren (one) (two)\n\nx^2 and (y)\n")
    (v / "b.md").write_text("# Emoji 🧠\n\n🧠🧠 *bold*\n")
    (v / "c.md").write_text("# Plain\n\n(z)\n")
    db = str(tmp_path / "s.db")
    assert gbrain("import", str(v), "--db", db).returncode == 0
    return db


@pytest.mark.engine_free
@pytest.mark.parametrize("q,want", [("(", ["a", "c"]), ("^", ["a"]), ("🧠", ["b"])])
def test_symbol_queries_match_substrings_with_scores_like_any_search(symbols_db, q, want):
    r = gbrain("search", "--db", symbols_db, "--json", "--", q)
    assert r.returncode == 0, r.stderr
    hits = json.loads(r.stdout)
    assert [h["slug"] for h in hits] == want
    # as documented (docs/search.md): the best match scores 1, the others less; signals say where
    assert hits[0]["score"] == 1 and all(0 < h["score"] <= 1 for h in hits)
    assert all(h["signals"] and set(h["signals"]) <= {"title", "body"} for h in hits)
    text = gbrain("search", "--db", symbols_db, "--", q).stdout.decode()
    assert "(1.00; " in text


@pytest.mark.engine_free
def test_symbol_signals_name_the_fields_that_matched(symbols_db):
    hits = {h["slug"]: h for h in json.loads(gbrain("search", "--db", symbols_db, "--json", "--", "(").stdout)}
    assert hits["a"]["signals"] == ["title", "body"] and hits["c"]["signals"] == ["body"]
    for q in ("   ", "*"):  # empty (a lone * is no syntax and no word): bad input, as query's
        r = gbrain("search", "--db", symbols_db, "--json", "--", q)
        assert r.returncode == 2 and json.loads(r.stdout) == {"error": "the query is empty", "exit_code": 2, "kind": "bad_input"}


def test_an_open_task_box_is_searched_as_written_not_bracket_by_bracket(tmp_path, db_path):
    """`search "[ ]"` (a person looking for open tasks) found every page holding a `[` and a `]`
    (each link), the task page second (trial17); `- [ ]` the same. A query of punctuation only is
    one string, as typed: the pages with an open task box, on both engines, `query` too.
    (The CLI in-process: a process of its own on Postgres costs ~0.9 CPU-s, psycopg's import.)"""
    v = tmp_path / "v"
    v.mkdir()
    (v / "tasks.md").write_text("# Tasks\n\n- [ ] buy milk\n- [ ] call Ana\n- [x] pay rent\n")
    (v / "done.md").write_text("# Done\n\n- [x] all of it\n")
    (v / "links.md").write_text("# Links\n\nSee [[tasks]], [[done]] and [the list](tasks.md) [a] [b].\n")
    assert gbrain_in_process("import", str(v), "--db", str(db_path)).returncode == 0
    for q in ("[ ]", "- [ ]", '"[ ]"'):
        r = gbrain_in_process("search", "--db", str(db_path), "--json", "--", q)
        assert r.returncode == 0, r.stderr
        hits = json.loads(r.stdout)
        assert [h["slug"] for h in hits] == ["tasks"], (q, hits)
        assert "[ ] buy milk" in hits[0]["snippet"]
    r = gbrain_in_process("query", "--db", str(db_path), "--json", "--", "[ ]")
    assert r.returncode == 0, r.stderr
    assert [h["slug"] for h in json.loads(r.stdout)["items"]] == ["tasks"]
    # one bracket is still each page holding it
    r = gbrain_in_process("search", "--db", str(db_path), "--json", "--", "[")
    assert sorted(h["slug"] for h in json.loads(r.stdout)) == ["done", "links", "tasks"]


def test_a_checked_task_box_is_searched_as_written_in_either_case(tmp_path, db_path):
    """`search "[x]"` (a person looking for done tasks) searched the word `x`: every page holding
    an `x` word, not the checked boxes. A query of one task box, `[x]`/`[X]` with punctuation
    around it (`- [x]`), is one string, as `[ ]` is, and either letter finds both (Obsidian and
    GitHub check a box with either); the letter alone still searches the word."""
    v = tmp_path / "v"
    v.mkdir()
    (v / "tasks.md").write_text("# Tasks\n\n- [ ] buy milk\n- [x] pay rent\n")
    (v / "done.md").write_text("# Done\n\n- [X] all of it\n")
    (v / "open.md").write_text("# Open\n\n- [ ] nothing yet\n")
    (v / "axis.md").write_text("# Axis\n\nThe x axis and the y axis; x marks the spot. See [tasks x](tasks.md).\n")
    assert gbrain_in_process("import", str(v), "--db", str(db_path)).returncode == 0
    for q in ("[x]", "[X]", "- [x]", '"[x]"', " [X] "):
        r = gbrain_in_process("search", "--db", str(db_path), "--json", "--", q)
        assert r.returncode == 0, r.stderr
        hits = json.loads(r.stdout)
        assert sorted(h["slug"] for h in hits) == ["done", "tasks"], (q, hits)
        by = {h["slug"]: h for h in hits}
        assert "[x] pay rent" in by["tasks"]["snippet"] and "[X] all of it" in by["done"]["snippet"], (q, hits)
    r = gbrain_in_process("query", "--db", str(db_path), "--json", "--", "[x]")
    assert r.returncode == 0, r.stderr
    assert sorted(h["slug"] for h in json.loads(r.stdout)["items"]) == ["done", "tasks"]
    # the letter alone is still the word (the boxes' letters are words too; axis has the most):
    # axis's link calling tasks "tasks x" weighs x's IDF (3 of 4 pages hold it: little), not the
    # whole link-text weight (it put tasks first: keyword.ANCHOR_REF_IDF)
    r = gbrain_in_process("search", "--db", str(db_path), "--json", "--", "x")
    assert [h["slug"] for h in json.loads(r.stdout)][0] == "axis"


@pytest.mark.engine_free
def test_full_disk_and_an_old_schema_says_the_upgrade_needs_space(tmp_path, monkeypatch):
    import sqlite3 as sq

    from gbrain.errors import GBrainError
    from gbrain.storage import db as dbmod

    p = tmp_path / "old.db"
    c = sq.connect(p)
    c.execute("PRAGMA journal_mode = WAL")
    c.execute("CREATE TABLE t (x)")
    c.execute(f"PRAGMA user_version = {dbmod.SCHEMA_VERSION - 1}")
    c.close()
    with pytest.raises(GBrainError) as e:
        dbmod._connect_on_full_disk(p, sq.OperationalError("disk I/O error"))
    msg = str(e.value)
    assert "is full" in msg and f"v{dbmod.SCHEMA_VERSION - 1} → v{dbmod.SCHEMA_VERSION}" in msg and "damaged" not in msg


@pytest.mark.engine_free
def test_a_new_brain_the_full_disk_stopped_half_made_says_it_could_not_be_created(tmp_path, monkeypatch):
    """Trial 6, F10: creating a new brain on a nearly full disk said "this gbrain must upgrade the
    brain's schema (v2 → v22) before reading it" for the brain it was creating. The disk fills
    after the first migrations committed (as a small tmpfs does): the message says the new brain
    could not be created, and the half-made file is left (it is completed once there is space)."""
    import sqlite3 as sq

    from gbrain.errors import GBrainError
    from gbrain.storage import db as dbmod

    real = dbmod.migrate

    def migrate_until_full(conn, name=None):  # v1 and v2 commit, then the disk is full
        for i in range(2):
            dbmod.begin_write(conn)
            dbmod.MIGRATIONS[i](conn)
            conn.execute(f"PRAGMA user_version = {i + 1}")
            conn.execute("COMMIT")
        raise sq.OperationalError("database or disk is full")

    monkeypatch.setattr(dbmod, "migrate", migrate_until_full)
    monkeypatch.setattr(dbmod, "disk_full", lambda p: True)
    p = tmp_path / "new.db"
    with pytest.raises(GBrainError) as e:
        dbmod.connect(p)
    msg = str(e.value)
    assert "is full" in msg and "new brain" in msg and "could not be created" in msg, msg
    assert "upgrade" not in msg and "before reading it" not in msg, msg
    # with space again, the same command completes the half-made brain
    monkeypatch.setattr(dbmod, "migrate", real)
    monkeypatch.setattr(dbmod, "disk_full", lambda p: False)
    c = dbmod.connect(p)
    assert c.execute("PRAGMA user_version").fetchone()[0] == dbmod.SCHEMA_VERSION
    c.close()


@pytest.mark.engine_free
def test_the_nfc_nfd_twin_warning_says_which_name_is_decomposed(tmp_path):
    """Trial 6, F8: `café-nfd.md: same page name as café-nfd.md after Unicode normalisation`
    showed two names that look identical. Each name not in NFC shows its decomposition
    (``e + U+0301``); the composed one its code point. Import and sync say it alike."""
    from gbrain.core.brain import Brain
    from gbrain.sync.engine import SyncEngine
    from gbrain.sync.importer import import_tree

    nfc_name, nfd_name = "caf\u00e9.md", "cafe\u0301.md"
    tree = tmp_path / "t"
    tree.mkdir()
    (tree / nfc_name).write_bytes(b"# composed\n")
    (tree / nfd_name).write_bytes(b"# decomposed\n")
    with Brain.open(tmp_path / "b.db") as b:
        rep = import_tree(b, tree)
    w = [x for x in rep["warnings"] if "after Unicode normalisation" in x]
    assert len(w) == 1, rep["warnings"]
    assert "(NFD: e + U+0301)" in w[0] and "(NFC: U+00E9)" in w[0], w[0]
    # sync (a second vault synced into a brain that holds the other spelling)
    tree2 = tmp_path / "t2"
    tree2.mkdir()
    (tree2 / nfc_name).write_bytes(b"# composed\n")
    with Brain.open(tmp_path / "b2.db") as b:
        eng = SyncEngine(b, tree2)
        assert eng.sync()["ok"]
        (tree2 / nfd_name).write_bytes(b"# decomposed\n")
        rep = eng.sync()
        eng.close()
    w = [x for x in rep["warnings"] if "after Unicode normalisation" in x]
    assert len(w) == 1 and "(NFD: e + U+0301)" in w[0] and "(NFC: U+00E9)" in w[0], rep["warnings"]



@pytest.mark.engine_free
def test_a_twin_name_warning_starts_with_the_path_and_names_the_real_difference(tmp_path):
    """The twin warnings name the path first (``path: …``, as every other import warning, which
    scripts and the property test ``test_every_page_import_accepts_can_be_got_and_put_back`` read),
    and say why the names clash: two names that differ only in the letter case of ``.md``
    (``aéaaaaaaaa.md`` / ``aéaaaaaaaa.MD``, a hypothesis example) are not a Unicode-form clash,
    though both hold an é (4fbca92 said "after Unicode normalisation" with each name's NFC form)."""
    from gbrain.core.brain import Brain
    from gbrain.sync.importer import import_tree

    tree = tmp_path / "t"
    tree.mkdir()
    (tree / "a\u00e9aaaaaaaa.md").write_bytes(b"# a\n\nBody 0.\n")
    (tree / "a\u00e9aaaaaaaa.MD").write_bytes(b"# a\n\nBody 1.\n")
    (tree / "caf\u00e9.md").write_bytes(b"# composed\n")
    (tree / "cafe\u0301.md").write_bytes(b"# decomposed\n")
    with Brain.open(tmp_path / "b.db") as b:
        rep = import_tree(b, tree)
    twins = [w for w in rep["warnings"] if "same page name as" in w]
    assert len(twins) == 2, rep["warnings"]
    kept = {w.split(": ", 1)[0] for w in twins}  # each warning starts with the path kept as a file
    assert len(kept) == 2 and all((tree / k).is_file() for k in kept), twins
    case = next(w for w in twins if "aaaa" in w)
    assert "Unicode" not in case and "NFC" not in case and "letter case" in case, case
    form = next(w for w in twins if "caf" in w)
    assert "after Unicode normalisation" in form and "(NFD: e + U+0301)" in form and "(NFC: U+00E9)" in form, form


# ---- strings that are not valid Unicode (lone surrogates) ----------------------------------------

NOT_UTF8 = "caf\udce9"  # argv b"caf\xe9" as Python hands it over (surrogateescape)


@pytest.mark.parametrize(
    "argv, name",
    [
        (["get", NOT_UTF8], "SLUG"),
        (["history", NOT_UTF8], "SLUG"),
        (["tag", "people/ana-lima", NOT_UTF8], "TAG"),
        (["list", "--tag", NOT_UTF8], "--tag"),
        (["list", "--type", NOT_UTF8], "--type"),
        (["put", NOT_UTF8], "SLUG"),
        (["search", NOT_UTF8], "QUERY"),
    ],
)
def test_argv_that_is_not_utf8_is_bad_input_naming_the_parameter(fixture_db, argv, name):
    for as_json in (False, True):
        r = gbrain("--db", str(fixture_db), *argv, *(["--json"] if as_json else []), input="# x\n")
        no_traceback(r)
        assert r.returncode == 2, (argv, r.stderr)
        assert b"is not valid Unicode" in r.stderr and name.encode() in r.stderr, r.stderr
        if as_json:
            out = json.loads(r.stdout)
            assert out["exit_code"] == 2 and "not valid Unicode" in out["error"]
        else:
            assert r.stdout == b""


@pytest.mark.parametrize(
    "tool, args, name",
    [
        ("brain_put", {"slug": "sur", "content": "# a \ud800 b\n"}, "content"),
        ("brain_search", {"query": "a\ud800"}, "query"),
        ("brain_tag", {"slug": "ana-lima", "tag": "\udfff"}, "tag"),
        ("brain_raw_put", {"slug": "ana-lima", "source": "s", "data": {"k": ["ok", "x\ud800"]}}, "data"),
        ("brain_raw_put", {"slug": "ana-lima", "source": "s", "data": {"\ud800": 1}}, "data"),
    ],
)
def test_json_strings_with_lone_surrogates_are_bad_input_on_call_and_pipe(fixture_db, tool, args, name):
    db = str(fixture_db)
    r = gbrain("--db", db, "call", tool, json.dumps(args))
    no_traceback(r)
    assert r.returncode == 2, r.stderr
    out = json.loads(r.stdout)
    assert out["exit_code"] == 2 and f"parameter '{name}' is not valid Unicode" in out["error"], out
    line = json.dumps({"id": 7, "tool": tool, "params": args}) + "\n"
    r = gbrain("--db", db, "pipe", input=line)
    assert r.returncode == 2, r.stderr  # its one line was bad input
    res = json.loads(r.stdout)
    assert res["id"] == 7 and res["ok"] is False and f"parameter '{name}' is not valid Unicode" in res["error"], res
    with pytest.raises(ops.BadInput, match=f"parameter '{name}' is not valid Unicode"):
        ops.run_tool(tool, args, ops.Context(db=db, surface="mcp"))


# ---- a mistyped folder (chaos trial 2026-12-02) ------------------------------------------------


@pytest.mark.engine_free
@pytest.mark.parametrize("cmd", [["watch"], ["sync"], ["import"], ["watch", "--once"]])
def test_a_mistyped_folder_creates_no_brain(tmp_path, cmd):
    """``gbrain --db nb.db watch nosuchdir`` said ``no such directory`` (exit 2) but left a new
    311 KB nb.db behind: the folder is checked before the brain is created."""
    db = tmp_path / "nb.db"
    r = gbrain("--db", str(db), *cmd, str(tmp_path / "nosuchdir"))
    assert r.returncode == 2
    assert r.stderr.decode().strip().splitlines() == [f"error: no such directory: {tmp_path / 'nosuchdir'}"]
    assert not db.exists() and not list(tmp_path.iterdir())
    (tmp_path / "afile").write_text("x")
    r = gbrain("--db", str(db), *cmd, str(tmp_path / "afile"))
    assert r.returncode == 2 and "not a directory" in r.stderr.decode()
    assert not db.exists()


def test_a_raw_source_with_a_slash_is_refused_saying_why(fixture_db):
    """A trial: `source: "../evil"` was refused as "must be a non-empty name", which it is."""
    from gbrain.errors import BadInput

    with pytest.raises(BadInput) as e:
        ops.run("raw-put", {"slug": "ana-lima", "source": "../evil", "data": {"a": 1}}, ops.Context(db=str(fixture_db)))
    assert "holds '/'" in str(e.value) and "non-empty" not in str(e.value)
    with pytest.raises(BadInput) as e:
        ops.run("raw-put", {"slug": "ana-lima", "source": "  ", "data": {"a": 1}}, ops.Context(db=str(fixture_db)))
    assert "non-empty" in str(e.value)


@pytest.mark.engine_free
def test_reading_raw_data_of_a_sidecar_that_is_not_json_says_so(tmp_path):
    """trial6: `gbrain raw bom` of a page whose `.raw/bom.json` is not valid JSON (a sidecar cut
    short by an editor) printed `{}`, exit 0, nothing on stderr: as if the page had no raw data
    (a write refuses it: "not valid JSON; refusing to overwrite it"). The read says it too."""
    tree = tmp_path / "tree"
    (tree / ".raw").mkdir(parents=True)
    (tree / "bom.md").write_bytes(b"# BOM page\n")
    (tree / ".raw" / "bom.json").write_bytes(b'{"sources": {"x": ')
    db = str(tmp_path / "b.db")
    assert gbrain("--db", db, "import", str(tree)).returncode == 0
    r = gbrain("--db", db, "raw", "bom")
    err = r.stderr.decode()
    assert r.returncode == 0 and json.loads(r.stdout) == {}, err
    assert ".raw/bom.json is not valid JSON" in err and "kept as bytes" in err, err
    r = gbrain("--db", db, "raw", "bom", "--source", "x")
    assert r.returncode == 1 and ".raw/bom.json is not valid JSON" in r.stderr.decode(), r.stderr


@pytest.mark.engine_free
def test_a_write_warning_goes_to_stderr_so_stdout_holds_only_the_result(tmp_path):
    # A new user's `gbrain put notes/bad --file bad.md` printed 'created notes/bad' and then the
    # YAML warning on stdout (stderr empty): a script reading stdout got the warning as output.
    db = str(tmp_path / "a.db")
    bad = "---\ntitle: [unclosed\ntags: a\n---\nbody\n"
    r = gbrain("put", "notes/bad", "--db", db, input=bad)
    assert r.returncode == 0
    assert r.stdout == b"created notes/bad\n"
    assert b"warning: frontmatter YAML does not load" in r.stderr
    j = gbrain("put", "notes/bad2", "--db", db, "--json", input=bad)  # --json keeps them in the object
    assert "does not load" in json.loads(j.stdout)["warnings"][0]


# ---- names Windows cannot hold (trial 6, F11) ----------------------------------------------------


@pytest.mark.engine_free
@pytest.mark.parametrize("slug,why", [("con", "reserved"), ("notes/NUL", "reserved"), ("lpt1", "reserved"), ("x:y", "':'"),
                                      ("q?", "'?'"), ("dir./a", "ends with"), ("a<b", "'<'")])
def test_put_of_a_new_name_windows_cannot_hold_saves_it_with_a_warning(tmp_path, slug, why):
    """put creates such a page (a Linux or macOS vault may hold it, and import keeps it) but
    says, in the result's warnings (stderr on the command line), that a Windows copy cannot
    hold the name. A page with a portable name, or an update of an existing page, says nothing."""
    cli = gbrain_in_process  # in-process: about put's and import's warnings, not the process
    db = str(tmp_path / "b.db")
    r = cli("put", slug, "--db", db, "--json", input="# x\n")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["created"] and any("Windows" in w and why in w for w in out["warnings"]), out
    r = cli("put", slug, "--db", db, input="# x\n\nagain\n")
    assert r.returncode == 0 and b"Windows" not in r.stderr, r.stderr  # an update: said once, at creation
    r = cli("put", "plain-name", "--db", db, input="# y\n")
    assert r.returncode == 0 and b"Windows" not in r.stderr
    # a folder holding such a name still imports it (the user's vault), with one line saying a
    # Windows copy would lack it (trial 15: the vault moves between systems), naming lint's check
    tree = tmp_path / "t"
    (tree / "dir.").mkdir(parents=True) if why == "ends with" else tree.mkdir()
    (tree / (slug + ".md")).parent.mkdir(parents=True, exist_ok=True)
    (tree / (slug + ".md")).write_bytes(b"# z\n")
    r = cli("import", str(tree), "--db", str(tmp_path / "c.db"), "--json")
    rep = json.loads(r.stdout)
    assert r.returncode == 0 and rep["pages"] == 1 and rep["warning_count"] == 1, r.stdout
    assert rep["warnings"][0].startswith(f"{slug}.md: names Windows cannot hold") and "portable_names" in rep["warnings"][0]


@pytest.mark.engine_free
def test_import_names_the_path_length_limit_it_applies(tmp_path):
    """A new user's import said "a path over 260 characters" of a path the check flags at 257
    (256 is what MAX_PATH's 260 leaves for a path in a folder at a drive's root, ``C:\\`` and the
    NUL among them): a 258-character path drew a warning its own text ruled out."""
    from gbrain.page.slugs import WINDOWS_PATH_MAX

    tree = tmp_path / "t"
    rel = "a" * 120 + "/" + "b" * (WINDOWS_PATH_MAX + 2 - 121 - 3) + ".md"  # 258 characters
    assert len(rel) == WINDOWS_PATH_MAX + 2
    (tree / rel).parent.mkdir(parents=True)
    (tree / rel).write_bytes(b"# long\n")
    r = gbrain_in_process("import", str(tree), "--db", str(tmp_path / "c.db"), "--json")
    rep = json.loads(r.stdout)
    assert r.returncode == 0 and rep["warning_count"] == 1, r.stdout
    w = rep["warnings"][0]
    assert "names Windows cannot hold" in w and f"a path over {WINDOWS_PATH_MAX} characters" in w, w


# ---- white space around a new name ---------------------------------------------------------------


@pytest.mark.engine_free
@pytest.mark.parametrize("slug,where", [(" lead", "starts"), ("trail ", "ends"), ("notes/ both ", "starts")])
def test_put_keeps_the_spaces_around_a_new_name_as_import_does_and_says_so(tmp_path, slug, where):
    """`put ' lead'` created the page `lead`: the spaces the name was given with were dropped
    without a word, while import keeps a file ` lead.md` as the page ` lead`. put (and MCP
    brain_put, the same operation) now saves the name as given, with a warning naming the space,
    and export writes the file import would read back under that name."""
    cli = gbrain_in_process  # in-process: about the name put saves and says, not the process
    db = str(tmp_path / "b.db")
    r = cli("put", slug, "--db", db, "--json", input="# x\n")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["created"] and out["slug"] == slug, out
    assert any(f"{where} with a space" in w and repr(slug) in w for w in out["warnings"]), out
    assert [p["slug"] for p in json.loads(cli("list", "--db", db, "--json").stdout)] == [slug]
    r = cli("put", slug, "--db", db, input="# x\n\nagain\n")  # the same page again: an update, said once
    assert r.returncode == 0 and b"space" not in r.stderr, r.stderr
    assert cli("export", "--db", db, "--dir", str(tmp_path / "out")).returncode == 0
    assert (tmp_path / "out" / (slug + ".md")).read_text() == "# x\n\nagain\n"
    other = slug.replace("lead", "lead2").replace("trail", "trail2").replace("both", "both2")  # the same spaces
    tool = ops.run_tool("put", {"slug": other, "content": "# y\n"}, ops.Context(db=db, surface="mcp"))
    assert tool["created"] and tool["slug"] == other and any(f"{where} with a space" in w for w in tool["warnings"]), tool
