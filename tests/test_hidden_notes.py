"""Notes under a hidden name (a file or folder starting with a dot: ``.github/``, ``.hermes/``,
``notes/.draft.md``), which Obsidian never shows: kept as files byte for byte (import, export,
sync, watch), never pages (search, list, links); a page a brain stored there before is made the
file it now is, its versions kept, and said (``slugs.HIDDEN_WHY``). ``.raw/`` sidecars unchanged."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from gbrain.core.brain import Brain
from gbrain.core.history import trash_list
from gbrain.errors import BadInput
from gbrain.page.slugs import check_slug, exact_slug, is_hidden_path, slug_problem
from gbrain.sync.exporter import export_tree
from gbrain.sync.importer import import_tree

from conftest import gbrain_in_process
from test_watch import brain, settle, stop_ok, wait_for, watch  # noqa: F401 (fixtures)

TREE = {
    "people/ana.md": "# Ana\n\nWorks on [[river]] with Bo.\n",
    "people/.raw/ana.json": json.dumps({"sources": {"crustdata": {"headcount": 23}}}) + "\n",
    "river.md": "# River\n\nA project.\n",
    ".github/ISSUE_TEMPLATE.md": "---\nname: Bug\n---\nDescribe zanzibarquux; see [[river]] and [[ana]].\n",
    ".hermes/plans/p.md": "plan zanzibarquux [[river]]\n",
    "notes/.draft.md": "# Draft\n\nzanzibarquux [[ana]]\n",
    ".hermes/state.json": "{}\n",
}


def write_tree(root: Path, tree: dict[str, str]) -> Path:
    for rel, text in tree.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(text.encode())
    return root


def files_of(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def pages(b: Brain) -> set[str]:
    return {r[0] for r in b.conn.execute("SELECT slug FROM pages")}


def files(b: Brain) -> dict[str, str]:
    return {r[0]: r[1] for r in b.conn.execute("SELECT path, kind FROM files")}


def backlinks(b: Brain, slug: str) -> set[str]:
    return {r[0] for r in b.conn.execute(
        "SELECT p.slug FROM links l JOIN pages p ON p.id = l.from_page_id JOIN pages t ON t.id = l.to_page_id WHERE t.slug = ?", (slug,))}


HIDDEN = (".github/ISSUE_TEMPLATE.md", ".hermes/plans/p.md", "notes/.draft.md")


@pytest.mark.engine_free
def test_a_name_with_a_segment_starting_with_a_dot_is_no_page_name_but_an_old_page_is_still_found():
    for slug in (".github/ISSUE_TEMPLATE", ".hermes/plans/p", "notes/.draft", ".draft"):
        why = slug_problem(slug)
        assert why and "hidden in Obsidian" in why, slug
        assert is_hidden_path(slug + ".md")
        with pytest.raises(BadInput, match="hidden in Obsidian"):
            check_slug(slug)
        assert exact_slug(slug) == slug  # a page a brain holds there from before is still found
    assert "raw-data sidecar" in slug_problem("people/.raw/ana")  # .raw keeps its own reason
    assert slug_problem("people/ana.v2") is None and slug_problem("people/ana.") is None  # a dot inside a name is no hidden name
    assert not is_hidden_path("people/ana.v2.md")


@pytest.mark.engine_free
def test_slug_problem_says_the_hidden_rule_in_its_answer_not_only_in_its_words():
    """Callers (import's classify, exact_slug) told the hidden rule by the end of the message's
    text (a rewording would have made every hidden note a page no command could name): the answer
    carries it, with the hidden segment; a text that only reads like it is not it."""
    from gbrain.page.slugs import HIDDEN_WHY, is_hidden_why

    why = slug_problem("notes/.drafts/x")
    assert is_hidden_why(why) and why.hidden == ".drafts" and why == HIDDEN_WHY.format(part=".drafts")
    assert not is_hidden_why(HIDDEN_WHY.format(part=".drafts"))  # words alone
    assert not is_hidden_why(slug_problem(".x/../river")) and not is_hidden_why(None)


@pytest.mark.engine_free
def test_a_hidden_folder_never_masks_a_worse_problem_of_a_later_segment():
    """The hidden rule is the mildest: a name it would let a lookup find as written
    (:func:`exact_slug`, for a page an older gbrain stored there) must pass every other rule of
    every segment. ``.x/../river`` was a valid slug (the loop returned at ``.x``), so were
    ``.x/.git/config``, ``.x//y`` and ``.x/.raw/y``, each said to be merely hidden."""
    for slug, said in ((".x/../river", "'..' segment"), (".x//y", "empty"), (".x/.git/config", "keeps out of the brain"),
                       (".x/.gbrain-tmp-y", "temporary-file prefix"), (".x/.raw/y", "raw-data sidecar"),
                       (".x/" + "b" * 300, "longer than")):
        why = slug_problem(slug)
        assert why and said in why and "hidden in Obsidian" not in why, (slug, why)
        assert exact_slug(slug) is None, slug
        with pytest.raises(BadInput, match=said.replace(".", r"\.")):
            check_slug(slug)
    assert exact_slug(".x/y/.z") == ".x/y/.z"  # hidden only: still found


def test_import_keeps_hidden_notes_as_files_out_of_search_list_and_links_and_export_gives_them_back(db_path, tmp_path):
    src = write_tree(tmp_path / "v", TREE)
    (src / ".obsidian").mkdir()
    (src / ".obsidian" / "app.json").write_text("{}")  # ignored by default, as before
    warned: list[str] = []
    with Brain.open(db_path) as b:
        rep = import_tree(b, src, on_warning=warned.append)
        assert rep["ok"], rep
        assert pages(b) == {"people/ana", "river"}
        fs = files(b)
        for p in HIDDEN:
            assert fs.get(p) == "blob", (p, fs)
        assert "people/.raw/ana.json" in fs and ".hermes/state.json" in fs
        assert b.raw_get("people/ana")["crustdata"] == {"headcount": 23}  # sidecars as before
        assert backlinks(b, "river") == {"people/ana"} and backlinks(b, "people/ana") == set()
        assert not b.conn.execute("SELECT 1 FROM links l JOIN pages p ON p.id = l.from_page_id WHERE p.path LIKE '%.%/%' AND p.path NOT LIKE 'people/%'").fetchall()
        assert sorted(w.split(":")[0] for w in warned) == sorted(HIDDEN), warned
        with pytest.raises(BadInput, match="hidden in Obsidian"):
            b.put(".hermes/new", "x\n")
        out = tmp_path / "out"
        export_tree(b, out)
    want = files_of(src)
    del want[".obsidian/app.json"]
    assert files_of(out) == want  # byte-exact, dot-folders and sidecars included


def test_search_and_list_find_no_hidden_note(db_path, tmp_path):
    src = write_tree(tmp_path / "v", TREE)
    assert gbrain_in_process("import", str(src)).returncode == 0
    r = gbrain_in_process("search", "zanzibarquux")
    assert b"ISSUE" not in r.stdout and b"draft" not in r.stdout and b"plans" not in r.stdout, r.stdout
    lst = gbrain_in_process("list").stdout.decode()
    assert sorted(line.split()[0] for line in lst.splitlines()) == ["people/ana", "river"]
    got = gbrain_in_process("get", ".hermes/plans/p")  # says why it is a file: its hidden name, not "not UTF-8 or unusable"
    assert got.returncode == 1 and b"is a hidden note" in got.stderr and b"--output FILE" in got.stderr, got.stderr


def _old_hidden_page(b: Brain, path: str, text: str) -> None:
    """A page stored under a hidden name, as gbrain before the hidden-note rule did."""
    b.save_page(path, text)
    assert path[:-3] in pages(b)


def test_a_page_an_older_import_stored_under_a_hidden_name_becomes_the_file_with_its_versions_kept(db_path, tmp_path):
    src = write_tree(tmp_path / "v", TREE)
    with Brain.open(db_path) as b:
        assert import_tree(b, src)["ok"]
        for p in HIDDEN:  # as the older gbrain left them: pages, the files no longer stored
            b.conn.execute("DELETE FROM files WHERE path = ?", (p,))
            _old_hidden_page(b, p, TREE[p])
        b.conn.commit()
        warned: list[str] = []
        rep = import_tree(b, src, on_warning=warned.append)  # the tree as it was: the stat unchanged
        assert rep["ok"], rep
        assert pages(b) == {"people/ana", "river"}
        assert {p: files(b).get(p) for p in HIDDEN} == {p: "blob" for p in HIDDEN}
        for p in HIDDEN:
            assert any(w.startswith(p) and "it was a page" in w for w in warned), (p, warned)
            versions = b.conn.execute("SELECT COUNT(*) FROM history WHERE kind = 'page' AND name = ?", (p[:-3],)).fetchone()[0]
            assert versions >= 2  # its creation and its deletion: `gbrain history` lists them
        assert not {t["path"] for t in trash_list(b, limit=0)} & set(HIDDEN)  # no deleted page: each lives on as its file
        warned.clear()
        assert import_tree(b, src, on_warning=warned.append)["ok"] and not warned  # said once
        out = tmp_path / "out"
        export_tree(b, out)
    assert files_of(out) == files_of(src)


def test_sync_keeps_hidden_notes_as_files_and_makes_an_old_hidden_page_the_file(synced, tmp_path):
    brain, eng, tree = synced
    write_tree(tree, {k: v for k, v in TREE.items() if k in HIDDEN})
    rep = eng.sync()
    assert rep["ok"], rep["problems"]
    assert not pages(brain) & {p[:-3] for p in HIDDEN}
    assert {p: files(brain).get(p) for p in HIDDEN} == {p: "blob" for p in HIDDEN}
    # a page an older gbrain stored at a hidden note, file and brain alike: the next sync makes it the file
    old = ".github/CONTRIBUTING.md"
    (tree / old).write_text("Contribute [[river]].\n")
    with brain.transaction():
        _old_hidden_page(brain, old, "Contribute [[river]].\n")
    said: list[str] = []
    eng._warn = said.append
    rep = eng.sync()
    assert rep["ok"], rep["problems"]
    assert old[:-3] not in pages(brain) and files(brain).get(old) == "blob"
    assert (tree / old).read_text() == "Contribute [[river]].\n"
    assert [w for w in said if "it was a page" in w] == [f"{old}: " + slug_problem(old[:-3]) + f"; it was a page: its versions stay in `gbrain history {old[:-3]}`"]
    # the note edited in the folder: the file takes the edit; deleted there: trashed as a file
    (tree / ".hermes/plans/p.md").write_text("plan v2\n")
    assert eng.sync()["ok"]
    assert files(brain).get(".hermes/plans/p.md") == "blob" and not pages(brain) & {".hermes/plans/p"}
    assert (tree / ".hermes/plans/p.md").read_text() == "plan v2\n"
    out = tmp_path / "out"
    export_tree(brain, out)
    assert files_of(out) == files_of(tree)


def test_watch_makes_an_old_hidden_page_a_file_and_never_writes_a_hidden_note(watch, brain, brain_tree):
    old = ".github/ISSUE_TEMPLATE.md"
    write_tree(brain_tree, {old: TREE[old]})
    with brain.transaction():
        _old_hidden_page(brain, old, TREE[old])
    w = watch()
    wait_for(lambda: files(brain).get(old) == "blob" and old[:-3] not in pages(brain), "the old hidden page to become its file")
    assert w.saw("it was a page")
    new = brain_tree / ".hermes" / "notes.md"
    new.parent.mkdir()
    new.write_text("# Notes\n\nzanzibarquux [[ana-lima]]\n")
    wait_for(lambda: files(brain).get(".hermes/notes.md") == "blob", "the hidden note to come in as a file")
    new.write_text("# Notes\n\nedited\n")
    wait_for(lambda: brain.conn.execute("SELECT 1 FROM files WHERE path = '.hermes/notes.md' AND content_hash = ?",
                                        (hashlib.sha256(b"# Notes\n\nedited\n").hexdigest(),)).fetchone(), "the edit")
    settle(brain, brain_tree)
    assert ".hermes/notes" not in pages(brain)
    assert new.read_text() == "# Notes\n\nedited\n" and (brain_tree / old).read_text() == TREE[old]
    stop_ok(w)



def test_watch_says_a_note_moved_into_a_hidden_folder_and_keeps_it_out_of_the_trash(watch, brain, brain_tree):
    (brain_tree / "plans").mkdir()
    (brain_tree / "plans" / "x.md").write_text("# X\n\nplan\n")
    w = watch()
    wait_for(lambda: "plans/x" in pages(brain), "the note to come in as a page")
    (brain_tree / "plans").rename(brain_tree / ".plans")
    wait_for(lambda: files(brain).get(".plans/x.md") == "blob" and "plans/x" not in pages(brain), "the note to become a file")
    wait_for(lambda: w.saw("moved into a hidden folder"), "the move said")
    assert not any(t["path"] == "plans/x.md" for t in trash_list(brain, limit=0))
    summary = stop_ok(w)  # (its end-of-watch summary counted the note's file imported, and the move nowhere: no longer trashed)
    assert b"1 moved into or out of a hidden folder" in summary, summary


def test_a_hidden_note_with_no_history_yet_is_keyed_as_a_file(db_path):
    """``history.key_for_path`` of a hidden note the history has not seen is the file's key, as
    its rows will be (sync asks it for a new note's earlier versions), not a page's."""
    from gbrain.core.history import key_for_path

    with Brain.open(db_path) as b:
        assert key_for_path(b.conn, ".hermes/x.md") == ("file", ".hermes/x.md")
        assert key_for_path(b.conn, "notes/x.md") == ("page", "notes/x")


def test_restore_or_revert_of_a_deleted_old_hidden_page_brings_it_back_as_its_file(db_path):
    """A page an older gbrain stored under a hidden name, deleted since: `restore` (and `revert`
    of the deleted page) gave it back as a page at the hidden name, which the hidden rule says
    no page has (no folder's sync may ever turn it back, an MCP-only brain kept it a page); it
    comes back as the file it now is, its exact bytes, with its `.raw` sidecar."""
    text = "---\nname: Bug\n---\nold [[river]]\n"
    with Brain.open(db_path) as b:
        with b.transaction():
            _old_hidden_page(b, ".github/y.md", text)
            _old_hidden_page(b, ".github/z.md", "z v1\n")
            b.save_page(".github/z.md", "z v2\n")
            b.save_file(".github/.raw/y.json", b'{"sources": {}}\n', "raw")
    for name in (".github/y", ".github/z"):
        assert gbrain_in_process("delete", name).returncode == 0
    r = gbrain_in_process("restore", ".github/y")
    assert r.returncode == 0, r.stderr
    assert b"as a file" in r.stdout, r.stdout
    r = gbrain_in_process("revert", ".github/z", "--to", "1")
    assert r.returncode == 0, r.stderr
    assert b"as a file" in r.stdout, r.stdout
    with Brain.open(db_path) as b:
        assert not pages(b) & {".github/y", ".github/z"}
        fs = files(b)
        assert fs.get(".github/y.md") == "blob" and fs.get(".github/z.md") == "blob" and fs.get(".github/.raw/y.json") == "raw", fs
        from gbrain.storage.blobs import file_bytes

        assert file_bytes(b.conn, ".github/y.md") == text.encode() and file_bytes(b.conn, ".github/z.md") == b"z v1\n"


def test_trash_offers_no_old_hidden_page_that_lives_on_as_its_file(db_path, tmp_path):
    """An old hidden page made its file by import (or a deleted one `restore` brought back as
    its file) is no deleted page: the name holds its bytes as a file. `trash` listed it as
    deleted while `restore` refused ("exists in the brain again"); now the trash leaves it out,
    `restore` says where it lives, and once the file is deleted the trash lists that file once."""
    src = write_tree(tmp_path / "v", {k: v for k, v in TREE.items() if k in HIDDEN[:1] or k == "river.md"})
    p = HIDDEN[0]
    with Brain.open(db_path) as b:
        with b.transaction():
            _old_hidden_page(b, p, TREE[p])
        assert import_tree(b, src)["ok"]
        assert files(b).get(p) == "blob" and not trash_list(b, limit=0)
    assert p[:-3].encode() not in gbrain_in_process("trash").stdout
    r = gbrain_in_process("restore", p[:-3])
    assert r.returncode != 0 and b"lives on as the file " + p.encode() in r.stderr, r.stderr
    with Brain.open(db_path) as b:
        with b.transaction():
            b.delete_file(p)
        assert [(t["kind"], t["path"]) for t in trash_list(b, limit=0)] == [("file", p)]
    r = gbrain_in_process("restore", p[:-3])
    assert r.returncode == 0, r.stderr
    with Brain.open(db_path) as b:
        assert files(b).get(p) == "blob" and not trash_list(b, limit=0)


def test_restore_as_a_file_leaves_nothing_in_the_trash(db_path):
    text = "old [[river]]\n"
    with Brain.open(db_path) as b:
        with b.transaction():
            _old_hidden_page(b, ".github/y.md", text)
    assert gbrain_in_process("delete", ".github/y").returncode == 0
    with Brain.open(db_path) as b:
        assert [t["slug"] for t in trash_list(b, limit=0)] == [".github/y"]
    assert gbrain_in_process("restore", ".github/y").returncode == 0
    with Brain.open(db_path) as b:
        assert not trash_list(b, limit=0)


def test_writes_refuse_an_old_hidden_page_and_move_takes_it_out(db_path):
    """A page an older gbrain stored under a hidden name, not yet made its file (no import or
    sync since, or a brain without a folder): `put`, `tag`, `link`, … edited it as a page, which
    the hidden rule says it is not. They refuse as `put` of a new hidden name does, nothing
    written (its text stays, the next import/sync makes it the file); `get` reads it, `delete`
    trashes it and `move` gives it a shown name, a page again."""
    text = "---\ntags: [foo]\n---\n# X\n\nhello [[river]]\n"
    with Brain.open(db_path) as b:
        with b.transaction():
            _old_hidden_page(b, ".github/x.md", text)
            b.save_page("river.md", "# River\n")
            b.save_page("sea.md", "# Sea\n")
    s = ".github/x"
    for args, stdin in ((("put", s), b"# X\n\nnew\n"), (("tag", s, "bar"), None), (("untag", s, "foo"), None),
                        (("link", s, "sea"), None), (("unlink", s, "river"), None),
                        (("timeline-add", s, "--date", "2026-01-01", "--summary", "hi"), None), (("revert", s, "--to", "1"), None)):
        r = gbrain_in_process(*args, input=stdin) if stdin is not None else gbrain_in_process(*args)
        assert r.returncode == 2 and b"hidden in Obsidian" in r.stderr and b"gbrain move" in r.stderr, (args, r.stdout, r.stderr)
    with Brain.open(db_path) as b:
        assert b.conn.execute("SELECT COUNT(*) FROM history WHERE kind = 'page' AND name = ?", (s,)).fetchone()[0] == 1
    assert gbrain_in_process("get", s).stdout == text.encode()
    r = gbrain_in_process("move", s, "notes/x")
    assert r.returncode == 0, r.stderr
    assert gbrain_in_process("tag", "notes/x", "foo").returncode == 0


def test_sync_says_a_note_moved_into_a_hidden_folder_became_a_file_and_loses_nothing(synced):
    """`plans/x.md` → `.plans/x.md`: the page ends (no page has a hidden name), the note is kept
    as a file. Sync said "Trashed (deleted in the folder)" and the trash offered a page whose
    bytes live on as the file: it says the move now, the trash leaves it out (`restore` says
    where it lives), and the page's versions stay in its history; a page linking it keeps its text."""
    from gbrain.operations.sync import _sync_text

    brain, eng, tree = synced
    write_tree(tree, {"plans/x.md": "# X\n\nplan zanzibarquux\n", "plans/w.md": "# W\n\nstays\n", "y.md": "# Y\n\nsee [[plans/x]]\n"})
    assert eng.sync()["ok"]
    brain.save_page("plans/x.md", "# X\n\nplan zanzibarquux v2\n")
    assert eng.sync()["ok"]
    (tree / ".plans").mkdir()
    (tree / "plans/x.md").rename(tree / ".plans/x.md")
    (tree / "plans/w.md").unlink()
    rep = eng.sync()
    assert rep["ok"], rep["problems"]
    assert rep["moved_hidden"] == [{"from": "plans/x.md", "to": ".plans/x.md"}]
    assert rep["changed"]["trashed"] == ["plans/w.md"] and rep["counts"]["trashed"] == 1
    text = _sync_text(rep, {})
    assert "Trashed (deleted in the folder): plans/x.md" not in text and "Trashed (deleted in the folder): plans/w.md" in text
    assert "Moved into a hidden folder: plans/x.md → .plans/x.md (now a file" in text and "gbrain history plans/x" in text, text
    assert "plans/x" not in pages(brain) and files(brain).get(".plans/x.md") == "blob"
    assert [t["path"] for t in trash_list(brain, limit=0)] == ["plans/w.md"]
    ops = [r[0] for r in brain.conn.execute("SELECT op FROM history WHERE kind = 'page' AND name = 'plans/x' ORDER BY version")]
    assert ops == ["create", "update", "delete"]  # every version of the page kept
    assert (tree / "y.md").read_text() == "# Y\n\nsee [[plans/x]]\n" and not (tree / "plans/x.md").exists()
    r = gbrain_in_process("restore", "plans/x")
    assert r.returncode != 0 and b"lives on as the file .plans/x.md" in r.stderr, r.stderr
    # moved back out: a page again (no "Trashed" either), its history one, the link found again
    (tree / ".plans/x.md").rename(tree / "plans/x.md")
    rep = eng.sync()
    assert rep["ok"], rep["problems"]
    assert rep["moved_hidden"] == [{"from": ".plans/x.md", "to": "plans/x.md"}] and not rep["changed"]["trashed"], rep["changed"]
    assert "Moved out of a hidden folder: .plans/x.md → plans/x.md (a page again" in _sync_text(rep, {})
    assert [t["path"] for t in trash_list(brain, limit=0)] == ["plans/w.md"]
    ops = [r[0] for r in brain.conn.execute("SELECT op FROM history WHERE kind = 'page' AND name = 'plans/x' ORDER BY version")]
    assert ops == ["create", "update", "delete", "create"]
    assert backlinks(brain, "plans/x") == {"y"}
    r = gbrain_in_process("restore", ".plans/x.md")
    assert r.returncode != 0 and b"lives on as the page plans/x" in r.stderr, r.stderr


def test_sync_pairs_a_note_moved_into_a_hidden_folder_by_its_name_not_by_its_bytes_alone(synced):
    """Two notes of one text (a template's, an empty note's): one deleted, the other moved into a
    hidden folder in the same round. The pairing went by the bytes alone, so the deleted note was
    said moved (``a.md → .hid/b.md``), its deletion left out of the trash (`restore` refused: "lives
    on as the file"), and the moved one trashed: a move keeps its note's name (a leading dot aside)."""
    brain, eng, tree = synced
    write_tree(tree, {"tpl/a.md": "TEMPLATE\n", "tpl/b.md": "TEMPLATE\n", "tpl/c.md": "# C\n\nc\n"})
    assert eng.sync()["ok"]
    (tree / ".hid").mkdir()
    (tree / "tpl/b.md").rename(tree / ".hid/b.md")
    (tree / "tpl/c.md").rename(tree / "tpl/.c.md")  # (a hidden file name: the dot is the only change)
    (tree / "tpl/a.md").unlink()
    rep = eng.sync()
    assert rep["ok"], rep["problems"]
    assert sorted(rep["moved_hidden"], key=str) == [{"from": "tpl/b.md", "to": ".hid/b.md"}, {"from": "tpl/c.md", "to": "tpl/.c.md"}]
    assert rep["changed"]["trashed"] == ["tpl/a.md"], rep["changed"]
    assert [t["path"] for t in trash_list(brain, limit=0)] == ["tpl/a.md"]


def test_raw_put_refuses_an_old_hidden_page_as_the_other_writes_do(db_path):
    """`raw-put` of a page an older gbrain stored under a hidden name wrote its `.raw` sidecar
    (`.github/.raw/x.json`) while `put`, `tag`, `link`, … refuse it (`slugs.hidden_page_write`):
    a hidden note has no page to enrich, so the sidecar would be left beside the file it becomes."""
    with Brain.open(db_path) as b:
        with b.transaction():
            _old_hidden_page(b, ".github/x.md", "# X\n")
    r = gbrain_in_process("raw-put", ".github/x", "--source", "crustdata", "--data", '{"a": 1}')
    assert r.returncode == 2 and b"hidden in Obsidian" in r.stderr and b"gbrain move" in r.stderr, (r.stdout, r.stderr)
    with Brain.open(db_path) as b:
        assert files(b) == {} and not b.conn.execute("SELECT 1 FROM history WHERE kind = 'file'").fetchone()


def test_move_leaves_an_old_hidden_page_linking_it_as_written(db_path):
    """`move river stream` rewrote the links of a page an older gbrain stored under a hidden name
    (a new version of it: the write every edit of one refuses, and the next sync wrote the hidden
    note in the folder); a hidden note is a file, whose links gbrain never rewrites: it is left as
    written and said under `skipped`, as a conflict copy is."""
    text = "# X\n\nsee [[river]] and [r](../river.md)\n"
    with Brain.open(db_path) as b:
        with b.transaction():
            _old_hidden_page(b, ".github/x.md", text)
            b.save_page("river.md", "# River\n")
            b.save_page("y.md", "# Y\n\n[[river]]\n")
    r = gbrain_in_process("move", "river", "stream", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["relinked"] == ["y"] and [s["slug"] for s in out.get("skipped", [])] == [".github/x"], out
    assert gbrain_in_process("get", ".github/x").stdout == text.encode()
    with Brain.open(db_path) as b:
        assert b.conn.execute("SELECT COUNT(*) FROM history WHERE kind = 'page' AND name = '.github/x'").fetchone()[0] == 1


def test_lint_fix_leaves_an_old_hidden_page_as_written(db_path):
    """`lint-fix` rewrote a page an older gbrain stored under a hidden name: its link to a
    renamed page (`[[river]]` → `[[stream]]`) and its tag spellings (`Foo` → `foo`), the edits
    every write of one refuses (`slugs.hidden_page_write`); a shown page's are still fixed."""
    text = "---\ntags: [Foo]\n---\n[[river]]\n"
    with Brain.open(db_path) as b:
        with b.transaction():
            _old_hidden_page(b, ".github/x.md", text)
            b.save_page("river.md", "# R\n")
            b.save_page("w.md", "---\ntags: [Foo]\n---\nw\n")
            for p in ("y.md", "z.md", "v.md"):
                b.save_page(p, "---\ntags: [foo]\n---\nthe same\n")
    assert gbrain_in_process("move", "river", "stream").returncode == 0  # (it leaves the hidden page's link dead: said)
    gbrain_in_process("lint-fix")
    assert gbrain_in_process("get", ".github/x").stdout == text.encode()
    assert gbrain_in_process("get", "w").stdout == b"---\ntags: [foo]\n---\nw\n"
    with Brain.open(db_path) as b:
        assert b.conn.execute("SELECT COUNT(*) FROM history WHERE kind = 'page' AND name = '.github/x'").fetchone()[0] == 1


def test_undo_skips_an_old_hidden_page_and_takes_back_the_rest(db_path):
    """An undo whose window holds a write of a page an older gbrain stored under a hidden name
    (an older gbrain's edit of it, an agent's): its dry run offered to revert it, and `--apply`
    refused the whole undo (exit 2, `slugs.hidden_page_write` from `revert`), nothing taken back.
    The page is skipped with the reason; the other writes are undone."""
    with Brain.open(db_path) as b:
        with b.transaction():
            _old_hidden_page(b, ".github/x.md", "# X\n\nv1\n")
            b.save_page("river.md", "# River\n")
        with b.transaction():
            b.save_page(".github/x.md", "# X\n\nv2\n")
            b.save_page("river.md", "# River\n\nagent\n")
        since = b.conn.execute("SELECT at FROM history WHERE kind = 'page' AND name = '.github/x' AND version = 2").fetchone()[0]
    r = gbrain_in_process("undo", "--since", since, "--apply", "--json")
    assert r.returncode == 0, r.stderr
    items = {i["name"]: i for i in json.loads(r.stdout)["plan"]}
    assert items[".github/x"]["action"] == "skip" and "hidden" in items[".github/x"]["reason"], items
    assert items["river"]["action"] == "revert", items
    assert gbrain_in_process("get", "river").stdout == b"# River\n"
    assert gbrain_in_process("get", ".github/x").stdout == b"# X\n\nv2\n"


def test_a_chunked_sync_pairs_each_note_moved_into_a_hidden_folder_once(synced):
    """`gbrain sync`'s pre-pass in chunks (`GBRAIN_SYNC_CHUNK`): each chunk's round pairs its
    moves into a hidden folder, then the full sync pairs its whole outcome again, where the
    hidden note a chunk paired was still on offer: a note of the same name and bytes deleted in
    another folder was said moved to it too, its deletion out of the trash."""
    brain, eng, tree = synced
    write_tree(tree, {"ya/x.md": "# Index\n", "yb/x.md": "# Index\n", **{f"yc/n{i}.md": f"# N{i}\n" for i in range(4)}})
    assert eng.sync()["ok"]
    (tree / ".h").mkdir()
    (tree / "ya/x.md").rename(tree / ".h/x.md")
    (tree / "yb/x.md").unlink()
    write_tree(tree, {f"yc/n{i}.md": f"# N{i}\n\nedited\n" for i in range(4)})
    eng.chunk = 1
    rep = eng.sync()
    assert rep["ok"], rep["problems"]
    assert rep["moved_hidden"] == [{"from": "ya/x.md", "to": ".h/x.md"}], rep["moved_hidden"]
    assert rep["changed"]["trashed"] == ["yb/x.md"] and [t["path"] for t in trash_list(brain, limit=0)] == ["yb/x.md"]
