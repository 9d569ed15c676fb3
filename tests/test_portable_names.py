"""Names a copy of the folder on macOS or Windows could not hold (trial 15, the cross-platform
user): files whose paths differ only in letter case or Unicode form (one name on the default
case-insensitive file systems of macOS and Windows, where a checkout keeps one of them), a
folder spelled two ways, names Windows cannot hold (reserved device names, ``< > : " | ? *``, a
trailing dot, a path over ``MAX_PATH``). Import keeps every such file (Linux holds them) and
says so; ``lint``'s ``portable_names`` check lists them with what to do."""
from __future__ import annotations

import json
import re
import unicodedata

import pytest

from gbrain.page import slugs
from tests.conftest import gbrain_in_process as cli, write_tree
from tests.test_watch import watch  # noqa: F401  (a fixture)

NFC = unicodedata.normalize("NFC", "café")
NFD = unicodedata.normalize("NFD", "café")

TREE = {
    "Note.md": "# Upper\n\nSee [[note]].\n",
    "note.md": "# lower\n\nlower text\n",
    "People/ana.md": "# Ana\n",
    "people/Ana.md": "# Ana again\n",
    "people/bob.md": "# Bob\n\n[[ana]]\n",
    "ok/plain.md": "# Plain\n",
}


@pytest.mark.engine_free
def test_portability_problems_finds_case_unicode_folder_and_windows_names():
    paths = ["Note.md", "note.md", "People/ana.md", "people/Ana.md", "people/bob.md", f"{NFC}.md", f"{NFD}.md",
             "con.md", "sub/LPT\u00b9.txt", "CONOUT$.md", "a:b.md", "dir./x.md", "file.", "d/" + "x" * 300 + ".md", "ok/plain.md", "com0.md"]
    got = {(p["kind"], tuple(p["paths"])) for p in slugs.portability_problems(paths)}
    assert got == {
        ("case", ("Note.md", "note.md")),
        ("case", ("People/ana.md", "people/Ana.md")),
        ("case", tuple(sorted([f"{NFC}.md", f"{NFD}.md"]))),
        ("folder_case", ("People", "people")),
        ("windows", ("con.md",)), ("windows", ("sub/LPT\u00b9.txt",)), ("windows", ("CONOUT$.md",)), ("windows", ("a:b.md",)),
        ("windows", ("dir./x.md",)), ("windows", ("file.",)), ("windows", ("d/" + "x" * 300 + ".md",)),
    }
    assert slugs.portability_problems(["a.md", "b/a.md", "B.md/x"]) == []  # other folders, other names: no clash
    # windows_of: only those paths are judged for Windows (a sync round's new ones); clashes still all
    some = {(p["kind"], p["path"]) for p in slugs.portability_problems(paths, windows_of={"a:b.md"})}
    assert ("windows", "a:b.md") in some and ("windows", "con.md") not in some and ("folder_case", "People") in some
    long = slugs.windows_path_problem("d/" + "é" * 254 + ".md")  # counted in UTF-16 units, not bytes
    assert long and "259 characters" in long
    assert slugs.windows_path_problem("d/" + "x" * 250 + ".md") is None


def test_import_warns_of_names_another_system_cannot_hold_and_lint_lists_them(tmp_path, db_path):
    """Before, the import of a tree with Note.md beside note.md and People/ beside people/ said
    nothing, and lint said nothing: a git checkout of that vault on a Mac keeps one note of each
    pair (git reports the clash, the next sync there trashes the other). Now the import warns per
    clash (once: a re-import of the same tree is quiet), lint reports each with what to do, and
    nothing is lost on Linux."""
    write_tree(tmp_path / "v", TREE)
    (tmp_path / "v" / "CON.md").write_text("# con\n")
    (tmp_path / "v" / "q?.md").write_text("# q\n")
    r = cli("import", str(tmp_path / "v"), "--db", str(db_path), "--json")
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    assert rep["pages"] == 8
    warned = [w for w in rep["warnings"] if "macOS" in w or "Windows" in w]
    assert len(warned) == 4, warned
    assert warned[0].startswith("Note.md, note.md: 2 files whose names differ only in letter case")
    assert warned[1].startswith("People/ana.md, people/Ana.md: ")
    assert warned[2].startswith("People, people: one folder spelled 2 ways")
    assert warned[3].startswith("CON.md and 1 more file(s): names Windows cannot hold") and "gbrain lint --check portable_names" in warned[3]
    again = json.loads(cli("import", str(tmp_path / "v"), "--db", str(db_path), "--json").stdout)
    assert again["warning_count"] == 0, again["warnings"]

    r = cli("lint", "--check", "portable_names", "--db", str(db_path), "--json")
    assert r.returncode == 1
    items = json.loads(r.stdout)["items"]
    assert [(f["kind"], f["paths"], f["slug"]) for f in items] == [
        ("case", ["Note.md", "note.md"], "Note"),
        ("case", ["People/ana.md", "people/Ana.md"], "People/ana"),
        ("folder_case", ["People", "people"], "People/ana"),
        ("windows", ["CON.md"], "CON"),
        ("windows", ["q?.md"], "q?"),
    ]
    assert all(f["action"] for f in items)
    # --slug narrows to the findings of those pages
    scoped = json.loads(cli("lint", "--check", "portable_names", "--slug", "people/bob", "--db", str(db_path), "--json").stdout)["items"]
    assert [f["kind"] for f in scoped] == ["folder_case"]
    # the default lint runs it; a brain with portable names is clean of it
    assert json.loads(cli("lint", "--db", str(db_path), "--json").stdout)["counts"]["portable_names"] == 5


def test_an_nfd_twin_is_named_with_both_forms(tmp_path, db_path):
    """The NFD spelling of an NFC name is kept as a file (import's twin warning); lint's
    portable_names reports the pair as one name on macOS, each with its form (they look alike)."""
    write_tree(tmp_path / "v", {f"{NFC}.md": "# nfc\n", f"{NFD}.md": "# nfd\n"})
    assert cli("import", str(tmp_path / "v"), "--db", str(db_path)).returncode == 0
    items = json.loads(cli("lint", "--check", "portable_names", "--db", str(db_path), "--json").stdout)["items"]
    assert len(items) == 1 and items[0]["kind"] == "case"
    assert "(NFD: e + U+0301)" in items[0]["message"] and "(NFC: U+00E9)" in items[0]["message"], items[0]["message"]


def test_export_into_a_folder_that_ignores_case_refuses_names_it_would_merge(tmp_path, db_path, monkeypatch):
    """Export into a folder on a case-insensitive file system (a Mac's or Windows' default; a
    USB stick formatted exFAT) wrote Note.md, then found note.md "already there" (it is Note.md)
    and failed it as "appeared or changed on disk during the export", or, when the two notes had
    the same size and bytes, counted it unchanged; the check then reported files missing. Now
    export asks the folder first (a probe file in two spellings) and, when it ignores case and
    the brain holds names that are one name there, refuses before writing anything, naming
    them and what to do (exit 2). Linux's file systems here are case-sensitive, so the probe's
    answer is set; the probe itself is run for real on tmp_path (case-sensitive: False, and it
    leaves nothing behind)."""
    from gbrain.sync import exporter

    write_tree(tmp_path / "v", TREE)
    assert cli("import", str(tmp_path / "v"), "--db", str(db_path)).returncode == 0
    probe_dir = tmp_path / "probe"
    probe_dir.mkdir()
    assert exporter.folds_case(probe_dir) is False and list(probe_dir.iterdir()) == []
    assert exporter.folds_case(tmp_path / "probe" / "not" / "yet") is False  # a folder to be made: asked of its parent

    monkeypatch.setattr(exporter, "folds_case", lambda root: True)
    out = tmp_path / "out"
    r = cli("export", "--dir", str(out), "--db", str(db_path), "--json")
    assert r.returncode == 2, (r.stdout, r.stderr)
    err = json.loads(r.stdout)["error"]
    assert "ignores letter case" in err and "Note.md and note.md" in err and "People/ana.md and people/Ana.md" in err, err
    assert "portable_names" in err and "nothing was written" in err
    assert not out.exists() or list(out.rglob("*")) == []
    # a brain without such names exports there as usual
    write_tree(tmp_path / "w", {"ok/plain.md": "# Plain\n", "Other.md": "# o\n"})
    db2 = tmp_path / "two.db"
    assert cli("import", str(tmp_path / "w"), "--db", str(db2)).returncode == 0
    r = cli("export", "--dir", str(tmp_path / "out2"), "--db", str(db2))
    assert r.returncode == 0, r.stderr


def test_export_into_a_folder_that_ignores_case_refuses_one_folder_spelled_two_ways(tmp_path, db_path, monkeypatch):
    """`People/ana.md` and `people/bob.md` are no file clash, but in a folder that ignores case
    they are one folder: export wrote `People/`, then `people/bob.md` landed in it, and the
    check reported `people/bob.md` missing and `People/bob.md` extra (and a re-import would move
    the page). Export now refuses before writing anything, as for names of files (exit 2), naming
    the folder's spellings."""
    from gbrain.sync import exporter

    write_tree(tmp_path / "v", {"People/ana.md": "# Ana\n", "people/bob.md": "# Bob\n", "notes/x.md": "# X\n"})
    assert cli("import", str(tmp_path / "v"), "--db", str(db_path)).returncode == 0
    monkeypatch.setattr(exporter, "folds_case", lambda root: True)
    out = tmp_path / "out"
    r = cli("export", "--dir", str(out), "--db", str(db_path), "--json")
    assert r.returncode == 2, (r.stdout, r.stderr)
    err = json.loads(r.stdout)["error"]
    assert "ignores letter case" in err and "People/ and people/" in err and "nothing was written" in err, err
    assert not out.exists() or list(out.rglob("*")) == []


def test_a_link_written_with_backslashes_is_reported_with_the_page_it_meant(tmp_path, db_path):
    """A note written on Windows links `[Ana](people\\ana.md)`: no page has that name (a link's
    folders are separated by '/', in Obsidian and on GitHub too), and lint said "create the page
    (`gbrain put 'people\\ana'`)", a command put refuses (a backslash is no slug), with no
    suggestion. Now the finding suggests people/ana (the page the link means with '/'), says the
    separator is the problem, and advises no command that cannot work."""
    write_tree(tmp_path / "v", {"people/ana.md": "# Ana\n", "notes/win.md": "# Win\n\nSee [Ana](..\\people\\ana.md) and [B](people\\bob.md).\n",
                                "top.md": "# Top\n\n[Ana](people\\ana.md)\n"})
    assert cli("import", str(tmp_path / "v"), "--db", str(db_path)).returncode == 0
    items = json.loads(cli("lint", "--check", "dead_links", "--db", str(db_path), "--json").stdout)["items"]
    by = {(f["slug"], f["target"]): f for f in items}
    assert set(by) == {("notes/win", "..\\people\\ana"), ("notes/win", "people\\bob"), ("top", "people\\ana")}, list(by)
    for key in (("notes/win", "..\\people\\ana"), ("top", "people\\ana")):
        f = by[key]
        assert f["suggestions"][:1] == ["people/ana"], f
        assert "'/'" in f["message"] and "create the page" not in f["action"], f
    bob = by[("notes/win", "people\\bob")]
    assert "create the page" not in bob["action"] and "'/'" in bob["message"], bob
    # every put it advises names a slug put takes (before: `gbrain put 'people\\ana'`, refused)
    puts = [c for f in items for c in re.findall(r"gbrain put ([^`]*)`", f["action"])]
    assert puts and all("\\" not in c for c in puts), puts


def test_put_of_a_path_over_windows_max_path_warns(tmp_path, db_path):
    """put warned of reserved names and characters but not of a path longer than Windows'
    MAX_PATH (260 with the drive and the NUL), which git for Windows cannot check out by default;
    now it does, through the same warning (over MCP: the result's warnings)."""
    slug = "projects/" + "/".join(["a-rather-long-folder-name-for-a-project-area"] * 6) + "/meeting-notes-2026"
    assert len(slug) + 3 > 256
    out = json.loads(cli("put", slug, "--db", str(db_path), "--json", input="# x\n").stdout)
    assert out["created"] and any("MAX_PATH" in w and "Windows" in w for w in out["warnings"]), out
    out = json.loads(cli("put", "short/name", "--db", str(db_path), "--json", input="# x\n").stdout)
    assert out["created"] and out["warnings"] == [], out


def test_sync_and_watch_warn_of_a_new_note_that_clashes_on_macos_and_windows(synced, watch, brain_tree, db_path):
    """`read me.md` saved on Linux beside `Read me.md`: sync and watch imported both without a
    word (a checkout on a Mac keeps one). Now the sync round that brings the second name warns,
    naming both (a later edit of either says nothing again), and a running watch logs it."""
    from tests.test_watch import wait_for

    brain, eng, root = synced
    (root / "Read me.md").write_text("# Read me\n")
    rep = eng.sync()
    assert not [w for w in rep["warnings"] if "macOS" in w], rep["warnings"]
    (root / "read me.md").write_text("# read me, lower\n")
    rep = eng.sync()
    warned = [w for w in rep["warnings"] if "macOS" in w]
    assert len(warned) == 1 and warned[0].startswith("Read me.md, read me.md: 2 files whose names differ only in letter case"), rep["warnings"]
    assert sorted(p["slug"] for p in brain.list_pages(limit=0) if p["slug"].lower() == "read me") == ["Read me", "read me"]
    (root / "read me.md").write_text("# read me, edited\n")
    rep = eng.sync()
    assert not [w for w in rep["warnings"] if "macOS" in w], rep["warnings"]
    eng.close()  # (one sync of a folder at a time)

    w = watch()
    (brain_tree / "people" / "ANA-LIMA.md").write_text("# Ana, shouted\n")
    wait_for(lambda: w.saw("people/ANA-LIMA.md, people/ana-lima.md: 2 files whose names differ only in letter case"), "watch's warning")


@pytest.mark.parametrize("old,new", [(f"{NFC}.md", f"{NFD}.md"), ("notes/Plan.MD", "notes/Plan.md")])
def test_a_twin_kept_as_a_file_becomes_the_page_when_its_other_spelling_is_deleted(synced, old, new):
    """A file-sync tool bringing a Mac's rename (NFC → NFD), or an editor saving `Plan.MD` as
    `Plan.md`, may write the new name in one round and delete the old in the next. The new name
    arrived as a twin of a page and was kept as a file (right: one name, two files); then the old
    page was trashed, and the note stayed a file for good: not a page, not searched, its links
    dangling. Now the round that removes the page makes the twin the page, from its bytes."""
    brain, eng, root = synced
    (root / old).parent.mkdir(parents=True, exist_ok=True)
    (root / old).write_text("# Cafe plan\n\nnotes about coffee beans\n")
    (root / "links-here.md").write_text(f"see [[{old[:-3]}]]\n")
    assert eng.sync()["exit_code"] == 0
    (root / new).write_bytes((root / old).read_bytes())
    rep = eng.sync()
    assert any("kept as a file" in w for w in rep["warnings"]), rep["warnings"]
    (root / old).unlink()
    rep = eng.sync()
    assert rep["ok"] and rep["exit_code"] == 0, rep["problems"]
    row = brain.conn.execute("SELECT slug, path FROM pages WHERE path = ?", (new,)).fetchone()
    assert row is not None and row["slug"] == unicodedata.normalize("NFC", new[:-3]), row
    assert not brain.conn.execute("SELECT 1 FROM files WHERE path = ?", (new,)).fetchone()
    from gbrain.search.keyword import search

    assert [h["slug"] for h in search(brain.conn, "coffee beans")] == [row["slug"]]
    links = brain.conn.execute("SELECT to_page_id FROM links l JOIN pages p ON p.id = l.from_page_id WHERE p.slug = 'links-here'").fetchall()
    assert links and all(r[0] is not None for r in links)
    assert eng.sync()["exit_code"] == 0 and (root / new).read_text().startswith("# Cafe plan")
    from gbrain.sync.verify import fresh_import_differences
    assert fresh_import_differences(brain) == {}


def test_a_rename_that_only_changes_unicode_form_says_which_form_is_which(tmp_path, db_path):
    """A Mac (or a sync tool from one) renamed café.md from NFC to NFD: sync moved the page
    (right) and printed `Moved: café.md → café.md`, two names that look the same. Now each is
    shown with its form, as import's twin warning does."""
    write_tree(tmp_path / "v", {f"{NFC}.md": "# Cafe\n"})
    assert cli("sync", str(tmp_path / "v"), "--db", str(db_path)).returncode == 0
    (tmp_path / "v" / f"{NFC}.md").rename(tmp_path / "v" / f"{NFD}.md")
    r = cli("sync", str(tmp_path / "v"), "--db", str(db_path))
    assert r.returncode == 0, r.stderr
    assert f"Moved: {NFC}.md (NFC: U+00E9) → {NFD}.md (NFD: e + U+0301)" in r.stdout.decode(), r.stdout.decode()
    r = cli("sync", str(tmp_path / "v"), "--db", str(db_path))  # (a plain rename names no form)
    assert "(NFC" not in r.stdout.decode()


def test_markdown_under_another_extension_is_said_once_and_links_to_it_are_no_dead_links(tmp_path, db_path):
    """Notes saved as `.markdown` (some Windows editors, old Jekyll trees) are kept byte for
    byte as files, not pages (gbrain, like Obsidian, reads `.md`): the import said nothing, so
    the user wondered why search missed them; and lint called a link to such a file a dead link,
    advising `gbrain put Other.markdown` (a second copy, as Other.markdown.md). Now the import
    says it once (naming the first and how many), and a link to a file the brain holds is no
    dead link; a link to a missing one still is."""
    write_tree(tmp_path / "v", {"Other.markdown": "# Other\n", "b/More.MKD": "# more\n", "a.md": "# A\n\n[o](Other.markdown) [g](Gone.markdown)\n"})
    rep = json.loads(cli("import", str(tmp_path / "v"), "--db", str(db_path), "--json").stdout)
    said = [w for w in rep["warnings"] if ".md" in w and "kept as" in w]
    assert len(said) == 1 and said[0].startswith("Other.markdown and 1 more file(s): markdown"), rep["warnings"]
    again = json.loads(cli("import", str(tmp_path / "v"), "--db", str(db_path), "--json").stdout)
    assert again["warning_count"] == 0, again["warnings"]
    items = json.loads(cli("lint", "--check", "dead_links", "--db", str(db_path), "--json").stdout)["items"]
    assert [f["target"] for f in items] == ["Gone.markdown"], items


def test_sync_into_a_folder_that_ignores_case_names_the_clash_instead_of_retrying_forever(synced, monkeypatch):
    """A brain holding `Note` and `note` synced with a folder on a Mac (or Windows) disk: the
    folder can hold one of the two files. The round found `note.md` "there" (lstat ignores case:
    it is Note.md), left it alone (nothing overwritten: right) and said "changed on disk while
    syncing; will retry", every round, forever. Now it says what it is: the folder ignores case
    and Note.md holds that name. The engine's lstat is made to ignore case here (this machine's
    file systems do not); its folder listing shows the real names, as on such a disk."""
    import os as real_os
    import types

    from gbrain.sync import engine as engmod

    brain, eng, root = synced
    (root / "Note.md").write_text("# Note, upper\n")
    assert eng.sync()["exit_code"] == 0

    def lstat(path, *a, **k):
        try:
            return real_os.lstat(path, *a, **k)
        except FileNotFoundError:
            d, name = real_os.path.split(str(path))
            for n in real_os.listdir(d or "."):
                if n.casefold() == name.casefold():
                    return real_os.lstat(real_os.path.join(d, n))
            raise

    monkeypatch.setattr(engmod, "os", types.SimpleNamespace(**{**{k: getattr(real_os, k) for k in dir(real_os) if not k.startswith("__")}, "lstat": lstat}))
    # the twin arrives as from a Linux teammate's folder (put refuses a case-only twin itself)
    with brain.transaction():
        brain.save_page("note.md", "# note, lower\n")
    rep = eng.sync()
    assert (root / "Note.md").read_text() == "# Note, upper\n" and not (root / "note.md").exists()
    why = {u["path"]: u["reason"] for u in rep.get("unreadable", [])}
    assert "note.md" in why and "ignores letter case" in why["note.md"] and "Note.md" in why["note.md"], rep.get("unreadable")


def test_deleting_a_page_makes_its_twin_kept_as_a_file_the_page(tmp_path, db_path):
    """`gbrain delete café` (NFC) while the NFD café.md is kept as a file beside it: the page
    went, the twin stayed a file, while a fresh import of the folder (once sync removed the NFC
    file) makes it the page: derived views unlike a fresh import. Now delete makes the twin the
    page at once and says so (its note: delete again to remove that one too)."""
    write_tree(tmp_path / "v", {f"{NFC}.md": "# nfc\n", f"{NFD}.md": "# nfd twin\n\nbeans\n"})
    assert cli("import", str(tmp_path / "v"), "--db", str(db_path)).returncode == 0
    before = json.loads(cli("get", NFC, "--db", str(db_path), "--json").stdout)["content"]
    out = json.loads(cli("delete", NFC, "--db", str(db_path), "--json").stdout)
    assert out["changed"] and "kept as a file" in out.get("note", "") and "delete café again" in out["note"], out
    got = json.loads(cli("get", NFC, "--db", str(db_path), "--json").stdout)["content"]
    assert {before, got} == {"# nfc\n", "# nfd twin\n\nbeans\n"}, (before, got)  # the other file is the page now
    r = cli("delete", NFC, "--db", str(db_path))
    assert r.returncode == 0 and b"kept as a file" not in r.stdout  # the second: no twin left
    assert cli("get", NFC, "--db", str(db_path)).returncode == 1
