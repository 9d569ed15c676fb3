"""`move` (MCP `brain_move`): an agent renames a page or moves it to another folder (trial 48: an
agent used to a memory server's move_note had only put-new + delete-old, which split the page's
history, sent the old name to the trash and left the links to it dead, lint-fix unable to mend
them: a delete and a create is no move). The page keeps its row and history (a `move` in it),
its .raw sidecar follows it, and the links to it in other pages (and its own relative links)
are rewritten as lint-fix rewrites links to a moved page. Both engines (``db_path``).
"""
from __future__ import annotations

import json
import os
import unicodedata

import pytest

from gbrain.core.brain import Brain
from gbrain.errors import BadInput, Conflict, NotFound
from gbrain import operations as ops
from gbrain.sync.engine import SyncEngine
from gbrain.sync.verify import fresh_import_differences

from conftest import gbrain_in_process


def _window_start(b) -> str:
    """A ``since`` for an undo window starting now: the clock past the millisecond of the
    brain's newest history row (a write just before could share it on a fast machine)."""
    from gbrain.core import history as h

    last = b.conn.execute("SELECT MAX(at) FROM history").fetchone()[0]
    while h._now() <= last:
        pass
    return h._now()


def _brain(db_path) -> Brain:
    b = Brain.open(db_path, create=True)
    b.put("meetings/sync", "---\ntitle: Sync\ntype: meeting\n---\n\n# Sync\n\nWith [Ana](../people/ana.md) and [[Bo]].\n")
    b.put("people/ana", "# Ana\n\nSee [the sync](../meetings/sync.md) and [[meetings/sync|notes]].\n\n---\n\n- **2026-01-02** | meeting — [[sync]]\n")
    b.put("people/bo", "# Bo\n\nNo links here.\n")
    b.raw_put("meetings/sync", "crm", {"id": 7})
    return b


def test_move_renames_the_page_with_its_history_sidecar_and_links(db_path):
    with _brain(db_path) as b:
        pid = b.page_row("meetings/sync")["id"]
        text = b.get_text("meetings/sync")
        r = ops.run("move", {"slug": "meetings/sync", "to": "meetings/2026/sync"}, brain=b)
        assert r["slug"] == "meetings/2026/sync" and r["from"] == "meetings/sync" and r["path"] == "meetings/2026/sync.md"
        assert b.page_row("meetings/sync") is None and b.page_row("meetings/2026/sync")["id"] == pid
        # its own relative link follows the new folder; the wiki link by name is unchanged
        assert b.get_text("meetings/2026/sync") == text.replace("(../people/ana.md)", "(../../people/ana.md)")
        assert r["content_hash"] == b.page_row("meetings/2026/sync")["content_hash"]
        # the links to it from other pages are rewritten, each in its own style
        assert b.get_text("people/ana") == ("# Ana\n\nSee [the sync](../meetings/2026/sync.md) and [[meetings/2026/sync|notes]].\n\n"
                                            "---\n\n- **2026-01-02** | meeting — [[sync]]\n")
        assert r["relinked"] == ["people/ana"]
        assert not b.conn.execute("SELECT 1 FROM links WHERE to_page_id IS NULL").fetchall()
        # the sidecar went with it
        assert b.raw_get("meetings/2026/sync") == {"crm": {"id": 7}}
        assert b.conn.execute("SELECT path FROM files WHERE kind = 'raw'").fetchall()[0][0] == "meetings/2026/.raw/sync.json"
        # one history: its creation, the move, then the edit of its own relative link; no deletion in the trash
        h = ops.run("history", {"slug": "meetings/2026/sync"}, brain=b)
        assert [v["op"] for v in h["versions"]] == ["update", "move", "create"], h
        assert ops.run("trash", {}, brain=b) == []
        # the old name is the history's: a read of it says where the page went
        assert fresh_import_differences(b) == {}


def test_move_refuses_a_taken_name_and_changes_nothing(db_path):
    with _brain(db_path) as b:
        before = {s: b.get_text(s) for s in ("meetings/sync", "people/ana", "people/bo")}
        with pytest.raises(Conflict) as e:
            ops.run("move", {"slug": "meetings/sync", "to": "people/bo"}, brain=b)
        assert "people/bo" in str(e.value)
        with pytest.raises(NotFound):
            ops.run("move", {"slug": "meetings/nope", "to": "x/y"}, brain=b)
        with pytest.raises(BadInput):
            ops.run("move", {"slug": "meetings/sync", "to": "../out"}, brain=b)
        assert {s: b.get_text(s) for s in before} == before


def test_move_refuses_a_name_too_long_for_a_file_as_put_does(db_path):
    # trial 66: brain_move took a 300-byte (and a 100,000-byte) name that put refuses; export could
    # not write the page's file after (Validation: FAILED), and every read of the name failed
    # with "database error: LIKE or GLOB pattern too complex" (exit 1, not bad input)
    with _brain(db_path) as b:
        before = {s: b.get_text(s) for s in ("meetings/sync", "people/ana", "people/bo")}
        for to in ("long/" + "y" * 300, "x" * 100_000):
            with pytest.raises(BadInput) as e:
                ops.run("move", {"slug": "meetings/sync", "to": to}, brain=b)
            assert "bytes" in str(e.value)
        assert {s: b.get_text(s) for s in before} == before
        for tool, params in (("get", {}), ("put", {"content": "x"}), ("move", {"to": "a/b"})):
            with pytest.raises(BadInput) as e:
                ops.run(tool, {"slug": "x" * 100_000, **params}, brain=b)
            assert "bytes" in str(e.value) and len(str(e.value)) < 500  # the name cut, not a 100 KB error line


def test_move_by_suffix_and_a_case_only_rename(db_path):
    with _brain(db_path) as b:
        r = ops.run("move", {"slug": "bo", "to": "people/Bo"}, brain=b)
        assert r["slug"] == "people/Bo" and b.page_row("people/Bo")["path"] == "people/Bo.md"
        r = ops.run("move", {"slug": "people/Bo", "to": "people/Bo"}, brain=b)
        assert r["changed"] is False


def test_a_synced_folder_follows_the_move(tmp_path, db_path):
    root = tmp_path / "v"
    root.mkdir()
    with _brain(db_path) as b:
        eng = SyncEngine(b, root)
        eng.bind()
        assert eng.sync()["ok"]
        ops.run("move", {"slug": "meetings/sync", "to": "archive/sync"}, brain=b)
        out = eng.sync()
        assert out["ok"]
        eng.close()
        assert not (root / "meetings" / "sync.md").exists()
        assert (root / "archive" / "sync.md").read_text(encoding="utf-8") == b.get_text("archive/sync")
        assert (root / "archive" / ".raw" / "sync.json").exists() and not (root / "meetings" / ".raw" / "sync.json").exists()
        assert "(../archive/sync.md)" in (root / "people" / "ana.md").read_text(encoding="utf-8")
        assert ops.run("trash", {}, brain=b) == []


def test_move_on_every_surface(db_path):
    _brain(db_path).close()
    r = gbrain_in_process("--db", str(db_path), "move", "meetings/sync", "done/sync")
    assert r.returncode == 0, r.stderr
    assert b"meetings/sync" in r.stdout and b"done/sync" in r.stdout
    r = gbrain_in_process("--db", str(db_path), "call", "move", json.dumps({"slug": "done/sync", "to": "meetings/sync"}))
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["slug"] == "meetings/sync"
    assert "brain_move" in {t["name"] for t in ops.tools_json()}


def test_a_link_the_move_did_not_break_stays_as_written(db_path):
    """A link by the page's title (`[[Ana Lima]]`, its file `ana-lima.md`) found it before the move and
    after; no file of that name opened it before either: moving the page to another folder leaves it
    as written (the trial's move rewrote `[[Ana Yilmaz]]` to `[[ana-yilmaz]]`). A link by the old
    file name does change on a rename (`[[bo]]` → `[[robert]]`)."""
    with Brain.open(db_path, create=True) as b:
        b.put("people/ana-lima", "---\ntitle: Ana Lima\n---\n# Ana Lima\n")
        b.put("people/bo", "# Bo\n")
        b.put("notes/x", "Met [[Ana Lima]] and [[bo]].\n")
        r = ops.run("move", {"slug": "people/ana-lima", "to": "people/team/ana-lima"}, brain=b)
        assert r["relinked"] == [] and b.get_text("notes/x") == "Met [[Ana Lima]] and [[bo]].\n"
        r = ops.run("move", {"slug": "people/bo", "to": "people/robert"}, brain=b)
        assert r["relinked"] == ["notes/x"] and b.get_text("notes/x") == "Met [[Ana Lima]] and [[robert]].\n"


def test_a_move_under_watch_moves_the_file_and_trashes_nothing(brain_tree, db_path, run):
    """`gbrain move` while `gbrain watch` runs on the folder: the file (and its sidecar) follow,
    the old file's disappearance is no deletion (nothing in the trash, no second page), and the
    tree then equals the brain and a fresh import of it."""
    from test_watch import Watch, settle, stop_ok, trash, wait_for

    r = run("import", str(brain_tree))
    assert r.returncode == 0, r.stderr
    r = run("raw", "people/ana-lima", "--source", "crm", "--data", '{"id": 3}')
    assert r.returncode == 0, r.stderr
    w = Watch(brain_tree, db_path)
    try:
        with Brain.open(db_path) as b:
            pid = b.page_row("people/ana-lima")["id"]
        r = run("move", "people/ana-lima", "team/ana-lima")
        assert r.returncode == 0, r.stderr
        old, new = brain_tree / "people" / "ana-lima.md", brain_tree / "team" / "ana-lima.md"
        wait_for(lambda: new.exists() and not old.exists() and (brain_tree / "team" / ".raw" / "ana-lima.json").exists(), "the files to follow the move")
        with Brain.open(db_path) as b:
            settle(b, brain_tree)
            assert b.page_row("people/ana-lima") is None and b.page_row("team/ana-lima")["id"] == pid
            assert trash(b) == []
            assert [s for (s,) in b.conn.execute("SELECT slug FROM pages WHERE slug LIKE '%/ana-lima'")] == ["team/ana-lima"]
            assert not (brain_tree / "people" / ".raw" / "ana-lima.json").exists()
            assert fresh_import_differences(b) == {}
        assert not any(line.startswith("- ") for line in w.lines), w.lines
    finally:
        stop_ok(w)


def test_a_rename_under_watch_takes_the_note_s_conflict_copy_along(brain_tree, db_path, run):
    """A note renamed in the folder while `gbrain watch` runs: its conflict copy (here Syncthing's)
    follows it in the folder and the brain, as sync's round moves it; nothing is trashed."""
    from test_watch import Watch, settle, stop_ok, trash, wait_for

    tool = ".sync-conflict-20261202-015712-ABCDEFG.md"
    (brain_tree / "people" / f"ana-lima{tool}").write_text("# Ana\n\nThe other machine's.\n", encoding="utf-8")
    r = run("import", str(brain_tree))
    assert r.returncode == 0, r.stderr
    w = Watch(brain_tree, db_path)
    try:
        (brain_tree / "team").mkdir()
        os.rename(brain_tree / "people" / "ana-lima.md", brain_tree / "team" / "ana-lima.md")
        new_cp, old_cp = brain_tree / "team" / f"ana-lima{tool}", brain_tree / "people" / f"ana-lima{tool}"
        wait_for(lambda: new_cp.exists() and not old_cp.exists(), "the copy to follow the rename")
        with Brain.open(db_path) as b:
            settle(b, brain_tree)
            assert b.page_row("team/ana-lima") and b.get_text(f"team/ana-lima{tool[:-3]}") == "# Ana\n\nThe other machine's.\n"
            assert b.page_row(f"people/ana-lima{tool[:-3]}") is None and trash(b) == []
            assert fresh_import_differences(b) == {}
        assert not any(line.startswith("- ") for line in w.lines), w.lines
    finally:
        stop_ok(w)


def test_a_sidecar_already_at_the_new_name_is_refused_not_mixed(db_path):
    """The new name's `.raw/` sidecar is stored already (a sidecar whose page is gone): the move
    would leave the page's own sidecar behind, its raw data then another file's than a fresh
    import reads. Refused; nothing changes."""
    with _brain(db_path) as b:
        b.save_file("archive/.raw/sync.json", b'{"sources": {"crm": {"id": 99}}}\n')
        before = b.get_text("meetings/sync")
        with pytest.raises(Conflict, match=r"archive/\.raw/sync\.json"):
            ops.run("move", {"slug": "meetings/sync", "to": "archive/sync"}, brain=b)
        assert b.get_text("meetings/sync") == before and b.page_row("archive/sync") is None
        assert b.raw_get("meetings/sync") == {"crm": {"id": 7}}
        # a page without a sidecar of its own would take that one's data: refused too
        with pytest.raises(Conflict):
            ops.run("move", {"slug": "people/bo", "to": "archive/sync"}, brain=b)
        assert fresh_import_differences(b) == {}


def test_the_moved_page_s_own_relative_links_to_files_follow_it(db_path):
    """A relative path the moved page wrote to an attachment (an image, a PDF) or a page names it
    from the page's new folder after the move (`../img/a.png` → `../../img/a.png`); a bare file
    name (found in any folder), a path from the root, an external URL and a link in code stay."""
    with Brain.open(db_path, create=True) as b:
        b.save_file("img/a.png", b"\x89PNG\r\n")
        b.save_file("people/files/cv 1.pdf", b"%PDF-1.4\n")
        b.put("people/ana", "# Ana\n")
        text = ("# Bo\n\n![a](../img/a.png) [cv](files/cv%201.pdf#page=2) [cv2](<./files/cv 1.pdf>) ![[a.png]] [top](/img/a.png)\n"
                "[ana](./ana.md) [web](https://x.org/a.png)\n\n```\n![a](../img/a.png)\n```\n")
        b.put("people/bo", text)
        r = ops.run("move", {"slug": "people/bo", "to": "team/x/bo"}, brain=b)
        assert b.get_text("team/x/bo") == text.replace("(../img/a.png) [cv](files/cv%201.pdf", "(../../img/a.png) [cv](../../people/files/cv%201.pdf") \
            .replace("(<./files/cv 1.pdf>)", "(<../../people/files/cv 1.pdf>)").replace("(./ana.md)", "(../../people/ana.md)")
        assert r["content_hash"] == b.page_row("team/x/bo")["content_hash"]
        assert ops.run("lint", {"check": "dead_links,dead_attachments"}, brain=b)["counts"] == {"dead_links": 0, "dead_attachments": 0}
        assert [v["op"] for v in ops.run("history", {"slug": "team/x/bo"}, brain=b)["versions"]] == ["update", "move", "create"]
        assert fresh_import_differences(b) == {}


def test_a_move_onto_another_spelling_of_a_page_s_name_is_refused(db_path):
    """`people/ana_lima` beside `people/ana-lima` is the same name to the skills' slug rule (put
    refuses to create it); a move there is refused too, but a re-spelling of the page's own name
    is its own business."""
    with Brain.open(db_path, create=True) as b:
        b.put("people/ana-lima", "# Ana Lima\n")
        b.put("people/x", "# X\n")
        with pytest.raises(BadInput, match="people/ana-lima") as e:  # (it was a Conflict, exit 1, where put's is bad input, exit 2)
            ops.run("move", {"slug": "people/x", "to": "people/Ana_Lima"}, brain=b)
        assert e.value.exit_code == 2 and e.value.suggestions == ["people/ana-lima"]
        assert b.page_row("people/x") is not None
        with pytest.raises(BadInput, match="differs only in case") as e:  # (a Conflict, exit 1, from the name's slug key)
            ops.run("move", {"slug": "people/x", "to": "People/Ana-Lima"}, brain=b)
        assert e.value.exit_code == 2 and e.value.suggestions == ["people/ana-lima"]
        b.put("people/zoë-kim", "# Zoë Kim\n")
        with pytest.raises(Conflict, match="exists"):  # the name itself in NFD: the same name (slugs are NFC), taken
            ops.run("move", {"slug": "people/x", "to": unicodedata.normalize("NFD", "people/zoë-kim")}, brain=b)
    for argv in (["move", "people/x", "people/ANA LIMA"], ["call", "move", json.dumps({"slug": "people/x", "to": "people/ana.lima"})],
                 ["call", "move", json.dumps({"slug": "people/x", "to": "PEOPLE/ANA-LIMA"})], ["put", "people/Ana_Lima"]):
        out = gbrain_in_process("--db", str(db_path), *argv, input=b"# X\n")
        assert out.returncode == 2 and b"people/ana-lima" in out.stderr + out.stdout, (argv, out)
        if argv[0] == "call":  # MCP's error object: kind bad_input, exit_code 2, the page as a suggestion
            err = json.loads(out.stdout)
            assert (err["kind"], err["exit_code"], err["suggestions"]) == ("bad_input", 2, ["people/ana-lima"]), err
    with Brain.open(db_path) as b:
        assert b.page_row("people/x") is not None
        r = ops.run("move", {"slug": "people/ana-lima", "to": "people/ana_lima"}, brain=b)
        assert r["slug"] == "people/ana_lima"


def test_a_move_onto_another_spelling_of_its_own_name_renames_it(db_path):
    """The twin refusal (exit 2) is for another page's name: fixing the capitalisation, accents'
    Unicode form or separators of a page's own name moves it (exit 0), also where another page
    is already a separator twin of the page (people/ana_lima beside people/ana-lima)."""
    with Brain.open(db_path, create=True) as b:
        b.put("people/ana", "# Ana\n")
        b.put("people/zoë-kim", "# Zoë Kim\n")
        b.put("people/ana-lima", "# Ana Lima\n")
        ops.run("put", {"slug": "people/ana_lima", "content": "# Ana L\n", "if_hash": ""}, brain=b)
    for old, new in (("people/ana", "people/Ana"), ("people/Ana", "People/ANA"), ("people/zoë-kim", unicodedata.normalize("NFD", "people/Zoë-Kim")),
                     ("people/ana-lima", "people/Ana-Lima")):
        out = gbrain_in_process("--db", str(db_path), "--json", "move", old, new)
        assert out.returncode == 0, (old, new, out.stderr)
        assert json.loads(out.stdout)["slug"] == unicodedata.normalize("NFC", new)
    with Brain.open(db_path) as b:
        assert sorted(r[0] for r in b.conn.execute("SELECT slug FROM pages")) == ["People/ANA", "people/Ana-Lima", "people/Zoë-Kim", "people/ana_lima"]


def test_a_canvas_or_nav_file_that_named_the_page_is_said_not_silently_left_dead(db_path):
    """gbrain never rewrites a canvas or a nav file; a move of a page one lists by path left it
    pointing at nothing while `relinked` was empty and nothing said so (review48): the answer
    names each, with where to point it."""
    with Brain.open(db_path, create=True) as b:
        b.put("people/bo", "# Bo\n")
        b.put("docs/index", "# Index\n")
        b.save_file("board.canvas", json.dumps({"nodes": [{"id": "1", "type": "file", "file": "people/bo.md", "x": 0, "y": 0, "width": 9, "height": 9}],
                                                "edges": []}).encode())
        b.save_file("mkdocs.yml", b"site_name: x\ndocs_dir: .\nnav:\n  - Bo: people/bo.md\n  - Index: docs/index.md\n")
        r = ops.run("move", {"slug": "people/bo", "to": "team/bo"}, brain=b)
        assert [(s["slug"], "team/bo.md" in s["reason"]) for s in r["skipped"]] == [("board.canvas", True), ("mkdocs.yml", True)]
        r = ops.run("move", {"slug": "docs/index", "to": "docs/start"}, brain=b)
        assert [s["slug"] for s in r["skipped"]] == ["mkdocs.yml"]
    out = gbrain_in_process("--db", str(db_path), "move", "team/bo", "team/robert")
    assert out.returncode == 0 and b"left as written: board.canvas" not in out.stdout  # (it named people/bo.md: dead since the first move)


def test_reference_style_links_to_and_from_the_moved_page_follow_it(db_path):
    """`[Bo][r]` with `[r]: ../people/bo.md`: lint-fix's rewrites do not read a link reference
    definition, so the move left it dead and said only 'left as written' (review48); the
    definition is a path like any other: repointed, in the linking pages and in the moved one."""
    with Brain.open(db_path, create=True) as b:
        b.save_file("img/a.png", b"\x89PNG\r\n")
        b.put("people/bo", "# Bo\n\n![photo][p]\n\n[p]: ../img/a.png\n")
        b.put("notes/x", "# X\n\nSee [Bob][r] and [Bo][s].\n\n[r]: ../people/bo.md\n[s]: <../people/bo.md> \"Bo\"\n\n    [q]: ../people/bo.md\n")
        r = ops.run("move", {"slug": "people/bo", "to": "team/x/robert"}, brain=b)
        assert r["relinked"] == ["notes/x"] and "skipped" not in r, r
        assert b.get_text("notes/x") == ("# X\n\nSee [Bob][r] and [Bo][s].\n\n[r]: ../team/x/robert.md\n[s]: <../team/x/robert.md> \"Bo\"\n\n"
                                         "    [q]: ../people/bo.md\n")
        assert b.get_text("team/x/robert") == "# Bo\n\n![photo][p]\n\n[p]: ../../img/a.png\n"
        assert not b.conn.execute("SELECT 1 FROM links WHERE to_page_id IS NULL").fetchall()
        assert fresh_import_differences(b) == {}


def test_undo_leaves_the_links_a_move_rewrote_while_the_move_stands(db_path):
    """undo skips a move (move it back first); it took back the move's rewrites of the links to
    the page all the same, pointing them at a name no page has (review48): skipped too."""
    with _brain(db_path) as b:
        since = b.conn.execute("SELECT max(at) FROM history").fetchone()[0]
        ops.run("move", {"slug": "meetings/sync", "to": "archive/sync"}, brain=b)
        plan = {i["name"]: i for i in ops.run("undo", {"since": since}, brain=b)["plan"]}
        assert plan["people/ana"]["action"] == "skip" and "move" in plan["people/ana"]["reason"]
        ops.run("undo", {"since": since, "apply": True}, brain=b)
        assert not b.conn.execute("SELECT 1 FROM links WHERE to_page_id IS NULL").fetchall()
        assert fresh_import_differences(b) == {}


def test_undo_after_a_move_and_its_move_back_takes_the_window_back(db_path):
    """undo says "move it back first, then undo again" of a page moved in its window; once it was
    moved back (its links rewritten back with it), the same undo still skipped it, its sidecar and
    the pages whose links the two moves rewrote, for ever. A move and its move back cancel out:
    undo then takes back the window's other writes (an edit between the moves) and finds the rest
    as it was."""
    with _brain(db_path) as b:
        since = _window_start(b)
        before = {s: b.get_text(s) for s in ("meetings/sync", "people/ana", "people/bo")}
        ops.run("move", {"slug": "meetings/sync", "to": "archive/sync"}, brain=b)
        b.put("archive/sync", before["meetings/sync"] + "\nAn edit while it was away.\n")
        ops.run("move", {"slug": "archive/sync", "to": "meetings/sync"}, brain=b)
        assert b.get_text("people/ana") == before["people/ana"]
        plan = {i["name"]: i for i in ops.run("undo", {"since": since}, brain=b)["plan"]}
        assert {n: (i["action"], i["reason"]) for n, i in plan.items()} == {
            "meetings/sync": ("revert", ""), "archive/sync": ("none", ""), "people/ana": ("none", ""),
            "meetings/.raw/sync.json": ("none", ""), "archive/.raw/sync.json": ("none", "")}, plan
        ops.run("undo", {"since": since, "apply": True}, brain=b)
        assert {s: b.get_text(s) for s in before} == before
        assert not b.conn.execute("SELECT 1 FROM links WHERE to_page_id IS NULL").fetchall()
        assert fresh_import_differences(b) == {}


def test_undo_of_a_page_made_in_its_window_moved_and_moved_back_deletes_it(db_path):
    """An agent's ingest made people/x, linked it, moved it to people/finance/x and back: the move
    and its move back cancel out only for a name that held a page before the window, so undo
    still said "move it back first, then undo again" of people/x, for ever, and skipped the
    page whose links the moves rewrote (skilltrial, s61). A name's page made in the window is the
    page it held: undo deletes it and takes the link back."""
    with _brain(db_path) as b:
        since = _window_start(b)
        before = b.get_text("people/ana")
        b.put("people/x", "# X\n")
        ops.run("link", {"from": "people/ana", "to": "people/x"}, brain=b)
        ops.run("move", {"slug": "people/x", "to": "people/finance/x"}, brain=b)
        ops.run("move", {"slug": "people/finance/x", "to": "people/x"}, brain=b)
        plan = {i["name"]: (i["action"], i["reason"]) for i in ops.run("undo", {"since": since}, brain=b)["plan"]}
        assert plan == {"people/x": ("delete", ""), "people/finance/x": ("none", ""), "people/ana": ("revert", "")}, plan
        ops.run("undo", {"since": since, "apply": True}, brain=b)
        assert b.get_text("people/ana") == before and b.page_row("people/x") is None
        assert fresh_import_differences(b) == {}


def test_undo_of_a_page_deleted_made_again_moved_and_moved_back_in_its_window(db_path):
    """people/bo deleted, a new people/bo written, moved away and moved back, all in the window:
    the name's first row in the window is the deletion, so it "held a page before", not the new
    one the moves carried back, and undo asked "move it back first, then undo again" for ever
    (242c7d5a mended only a name whose first row is the creation). The moves cancel out: undo
    brings the old people/bo back, the new one's versions kept."""
    with _brain(db_path) as b:
        since = _window_start(b)
        before = b.get_text("people/bo")
        ops.run("delete", {"slug": "people/bo"}, brain=b)
        b.put("people/bo", "# Bo, again\n")
        ops.run("move", {"slug": "people/bo", "to": "archive/bo"}, brain=b)
        ops.run("move", {"slug": "archive/bo", "to": "people/bo"}, brain=b)
        plan = {i["name"]: (i["action"], i["reason"]) for i in ops.run("undo", {"since": since}, brain=b)["plan"]}
        assert plan == {"people/bo": ("revert", ""), "archive/bo": ("none", "")}, plan
        ops.run("undo", {"since": since, "apply": True}, brain=b)
        assert b.get_text("people/bo") == before
        assert any(v.get("content_hash") for v in ops.run("history", {"slug": "people/bo"}, brain=b)["versions"] if v["op"] == "create")
        assert fresh_import_differences(b) == {}


def test_undo_by_one_origin_keeps_another_origins_edit_made_while_the_page_was_away(db_path):
    """A page moved and moved back in the window by the agent (mcp), edited by hand (cli) at its
    other name meanwhile: `undo --origin mcp` skipped the other name (written by another origin)
    but, the moves cancelling out, reverted the page's own name (a page made before the window)
    or deleted it (made in the window: 242c7d5a), taking the hand edit back with it; it looked
    for another origin's writes at the name only, never at the names the page passed through."""
    mcp = ops.Context(surface="mcp")
    with _brain(db_path) as b:
        since = _window_start(b)
        ops.run("put", {"slug": "people/x", "content": "# X\n"}, mcp, brain=b)
        for slug, away in (("people/x", "archive/x"), ("people/bo", "archive/bo")):
            ops.run("move", {"slug": slug, "to": away}, mcp, brain=b)
            b.put(away, "# By hand\n\nKept.\n")  # (the cli's origin)
            ops.run("move", {"slug": away, "to": slug}, mcp, brain=b)
        plan = {i["name"]: i for i in ops.run("undo", {"since": since, "origin": "mcp", "apply": True}, brain=b)["plan"]}
        for slug, away in (("people/x", "archive/x"), ("people/bo", "archive/bo")):
            assert plan[slug]["action"] == "skip" and "another origin" in plan[slug]["reason"] and away in plan[slug]["reason"], plan[slug]
            assert b.get_text(slug) == "# By hand\n\nKept.\n"


def test_links_in_code_the_text_scan_misses_are_never_rewritten(db_path):
    """The moved page's relative paths and the reference definitions to it were found by a text
    scan that does not see an indented code block (4 spaces, a tab) or a fence inside a quote:
    a link written there as an example was rewritten, a change of the page nobody asked for
    (review48). Only the links the parser reads move; code keeps every byte."""
    with Brain.open(db_path, create=True) as b:
        b.save_file("img/a.png", b"\x89PNG\r\n")
        b.put("people/bo", "# Bo\n")
        own = ("# Ana\n\n![a](../img/a.png) ![[../img/a.png]]\n\n    ![a](../img/a.png) [r]: ../img/a.png\n\n\t![[../img/a.png]]\n\n"
               "> ```\n> ![a](../img/a.png)\n> ```\n")
        b.put("people/ana", own)
        other = ("# X\n\nSee [Bo](../people/bo.md) and [B][r].\n\n[r]: ../people/bo.md\n\n    [Bo](../people/bo.md)\n\n"
                 "\t[Bo](../people/bo.md)\n\n> ```\n> [Bo](../people/bo.md)\n> ```\n")
        b.put("notes/x", other)
        ops.run("move", {"slug": "people/ana", "to": "team/x/ana"}, brain=b)
        assert b.get_text("team/x/ana") == own.replace("![a](../img/a.png) ![[../img/a.png]]", "![a](../../img/a.png) ![[../../img/a.png]]", 1)
        r = ops.run("move", {"slug": "people/bo", "to": "team/bo"}, brain=b)
        assert r["relinked"] == ["notes/x"], r
        assert b.get_text("notes/x") == other.replace("See [Bo](../people/bo.md)", "See [Bo](../team/bo.md)").replace(
            "[r]: ../people/bo.md", "[r]: ../team/bo.md")
        assert not b.conn.execute("SELECT 1 FROM links WHERE to_page_id IS NULL").fetchall()
        assert fresh_import_differences(b) == {}


def test_a_relative_link_by_bare_name_follows_the_page_to_another_folder(db_path):
    """`[Bo](bo.md)` in people/ana.md names people/bo.md by its relative path: gbrain and Obsidian
    still find bo by name after bo moved to team/, so nothing rewrote it, but on GitHub or in any
    markdown viewer the path was simply wrong (review48). A relative path (markdown or a wiki
    link written with ../ or ./) that named the moved file is rewritten in its style."""
    with Brain.open(db_path, create=True) as b:
        b.put("people/bo", "# Bo\n\n## Work\n")
        b.put("people/ann lee", "# Ann\n")
        text = ("# Ana\n\n[Bo](bo.md) [B2](./bo.md#work) [B3](<bo.md>) [B4](bo) [[../people/bo|Bo]] [[./bo#Work]] [[bo]] "
                "[Ann](ann%20lee.md) [A2](<./ann lee.md>)\n")
        b.put("people/ana", text)
        r = ops.run("move", {"slug": "people/bo", "to": "team/bo"}, brain=b)
        assert r["relinked"] == ["people/ana"], r
        assert b.get_text("people/ana") == text.replace("[Bo](bo.md) [B2](./bo.md#work) [B3](<bo.md>) [B4](bo) [[../people/bo|Bo]] [[./bo#Work]]",
                                                        "[Bo](../team/bo.md) [B2](../team/bo.md#work) [B3](<../team/bo.md>) [B4](../team/bo) "
                                                        "[[../team/bo|Bo]] [[../team/bo#Work]]")
        r = ops.run("move", {"slug": "people/ann lee", "to": "team/ann lee"}, brain=b)
        assert b.get_text("people/ana").endswith("[Ann](../team/ann%20lee.md) [A2](<../team/ann lee.md>)\n")
        assert not b.conn.execute("SELECT 1 FROM links WHERE to_page_id IS NULL").fetchall()
        assert fresh_import_differences(b) == {}


def test_the_moved_page_s_own_bare_relative_links_follow_it(db_path):
    """`[Ana](ana.md)` and `![p](p.png)` in people/bo.md named people/ana.md and people/p.png by
    relative path; after bo moves to team/ the same text names team/ana.md, a file that is not
    there (GitHub, any markdown viewer), so the move rewrites them from the new folder. A wiki
    name (`[[ana]]`, found by name in any folder), a self-link and a bare name that named no
    file before the move stay as written."""
    with Brain.open(db_path, create=True) as b:
        b.save_file("people/p.png", b"\x89PNG\r\n")
        b.put("people/ana", "# Ana\n")
        text = "# Bo\n\n[Ana](ana.md) ![p](p.png) [[ana]] [me](bo.md#top) [gone](nobody.md)\n"
        b.put("people/bo", text)
        ops.run("move", {"slug": "people/bo", "to": "team/bo"}, brain=b)
        assert b.get_text("team/bo") == text.replace("(ana.md)", "(../people/ana.md)").replace("(p.png)", "(../people/p.png)")
        assert fresh_import_differences(b) == {}


def test_move_with_if_hash_moves_only_the_page_as_read(db_path):
    """An agent that read a page and moves it could not be sure it moved what it read (review48):
    `if_hash` (the content_hash of its read, or a part token's) moves only that version; a page
    changed since is a conflict, nothing moved, the links as they were."""
    with _brain(db_path) as b:
        read = ops.run("get", {"slug": "meetings/sync"}, brain=b)["content_hash"]
        b.put("meetings/sync", b.get_text("meetings/sync") + "\nMore.\n")
        ana = b.get_text("people/ana")
        with pytest.raises(Conflict, match="changed since it was read"):
            ops.run("move", {"slug": "meetings/sync", "to": "archive/sync", "if_hash": read}, brain=b)
        assert b.page_row("archive/sync") is None and b.get_text("people/ana") == ana
        now = b.page_row("meetings/sync")["content_hash"]
        r = ops.run("move", {"slug": "meetings/sync", "to": "archive/sync", "if_hash": now.upper()}, brain=b)
        assert r["slug"] == "archive/sync"
    out = gbrain_in_process("--db", str(db_path), "move", "archive/sync", "meetings/sync", "--if-hash", read)
    assert out.returncode != 0 and b"changed since it was read" in out.stderr, out


def test_the_sync_after_a_move_counts_it_as_a_move_in_the_brain(tmp_path, db_path):
    """trial 50: the sync after a ``move`` said "exported 1, removed 1, moved 0" (the new file
    written and the old one removed), the next line explaining it. Its Files: line counts it as a
    move done in the brain; ``--json``'s counts keep exported/removed as they were and add
    ``moved_in_brain``."""
    root = tmp_path / "v"
    root.mkdir()
    (root / "n3.md").write_text("# N3\n\nText.\n", encoding="utf-8")
    (root / "a.md").write_text("# A\n\nOther.\n", encoding="utf-8")
    db = str(db_path)
    assert gbrain_in_process("--db", db, "sync", str(root)).returncode == 0
    assert gbrain_in_process("--db", db, "move", "n3", "arch/n3").returncode == 0
    r = gbrain_in_process("--db", db, "sync", str(root))
    assert r.returncode == 0, r.stderr
    out = r.stdout.decode().splitlines()
    (files,) = [x for x in out if x.startswith("Files:")]
    assert "exported 0," in files and "removed 0," in files and "moved 1 (in the brain)," in files, files
    assert "Removed (renamed in the brain): n3.md → arch/n3.md" in out
    # a move in the folder beside one in the brain, in JSON
    assert gbrain_in_process("--db", db, "move", "arch/n3", "n3").returncode == 0
    (root / "a.md").rename(root / "b.md")
    r = gbrain_in_process("--db", db, "sync", str(root), "--json")
    rep = json.loads(r.stdout)
    assert r.returncode == 0 and rep["counts"]["moved_in_brain"] == 1 and rep["counts"]["moved"] == 1, rep["counts"]
    assert rep["counts"]["exported"] == 1 and rep["counts"]["removed"] == 1 and rep["moved_in_brain_count"] == 1
    from gbrain.operations.registry import _report_text

    (files,) = [x for x in _report_text(rep, {}).splitlines() if x.startswith("Files:")]
    assert "exported 0," in files and "removed 0," in files and "moved 2 (1 in the brain)," in files, files


# conflict copies: gbrain's (`NAME.conflict-…`) and a file-sync tool's (Syncthing, Dropbox) are a record of
# what someone saved: a move never rewrites a link in one, nor does lint-fix (trial 49: a move relinked 13 copies)
COPIES = {
    "meetings/sync.conflict-20261202T015712": "# Sync\n\nWith [Ana](../people/ana.md) and [[people/ana]] and [[ana]].\n",
    "meetings/sync.sync-conflict-20261202-015712-ABCDEFG": "# Sync\n\nWith [Ana](../people/ana.md) and [[people/ana]].\n",
    "meetings/sync (conflicted copy 2026-12-02)": "# Sync\n\nWith [Ana](../people/ana.md) and [[people/ana|Ana]].\n",
}


def test_move_never_rewrites_a_link_in_a_conflict_copy(db_path):
    with _brain(db_path) as b:
        for slug, text in COPIES.items():
            b.put(slug, text)
        hashes = {s: b.page_row(s)["content_hash"] for s in COPIES}
        r = ops.run("move", {"slug": "people/ana", "to": "people/ana-lima"}, brain=b)
        assert r["relinked"] == ["meetings/sync"], r
        assert b.get_text("meetings/sync") == "---\ntitle: Sync\ntype: meeting\n---\n\n# Sync\n\nWith [Ana](../people/ana-lima.md) and [[Bo]].\n"
        for slug, text in COPIES.items():
            assert b.get_text(slug) == text and b.page_row(slug)["content_hash"] == hashes[slug], slug
            assert [v["op"] for v in ops.run("history", {"slug": slug}, brain=b)["versions"]] == ["create"]
        # each is said, with why
        assert sorted(s["slug"] for s in r["skipped"]) == sorted(COPIES), r
        assert all("conflict copy" in s["reason"] for s in r["skipped"])
        # lint-fix afterwards leaves them alone too, and lint's dead_links does not offer to fix them
        f = ops.run("lint-fix", {}, brain=b)
        for slug, text in COPIES.items():
            assert b.get_text(slug) == text, slug
        assert not [x for x in f["fixed"] if x["slug"] in COPIES], f["fixed"]
        lint = ops.run("lint", {"check": "dead_links"}, brain=b)
        assert not [x for x in lint["items"] if x["slug"] in COPIES], lint["items"]


def test_the_moved_page_s_conflict_copies_move_with_it_and_are_said(db_path):
    """A page's conflict copies move with it (they stayed in the old folder, beside no page), under
    the copy name of its new path, their relative links written for the new folder (below): the answer lists each
    under ``moved``. A file-sync tool's copy whose new name is taken (no ``-2`` for its mark)
    stays, said under ``skipped`` with the page to merge it into."""
    with _brain(db_path) as b:
        for slug, text in COPIES.items():
            b.put(slug, text)
        b.put("meetings/2026/sync (conflicted copy 2026-12-02)", "# An older page's copy\n")
        r = ops.run("move", {"slug": "meetings/sync", "to": "meetings/2026/sync"}, brain=b)
        moved = {m["from"][:-3]: m["to"][:-3] for m in r["moved"]}
        assert moved == {s: s.replace("meetings/sync", "meetings/2026/sync") for s in COPIES if "(conflicted" not in s}, r
        for old, new in moved.items():
            assert b.get_text(new) == COPIES[old].replace("(../people/ana.md)", "(../../people/ana.md)") and b.page_row(old) is None, new
        dropbox = "meetings/sync (conflicted copy 2026-12-02)"
        assert b.get_text(dropbox) == COPIES[dropbox]
        [said] = [s for s in r["skipped"] if s["slug"] == dropbox]
        assert "conflict copy of meetings/sync" in said["reason"] and "merge it into meetings/2026/sync" in said["reason"], said
        assert fresh_import_differences(b) == {}
    out = gbrain_in_process("--db", str(db_path), "move", "meetings/2026/sync", "meetings/sync")
    assert out.returncode == 0 and out.stdout.count(b"moved with it: ") == 2, out
    assert b"meetings/2026/sync.conflict-20261202T015712.md \xe2\x86\x92 meetings/sync.conflict-20261202T015712.md" in out.stdout, out


def test_lint_fix_alone_never_rewrites_a_link_in_a_conflict_copy(db_path):
    with _brain(db_path) as b:
        ops.run("move", {"slug": "people/ana", "to": "people/ana-lima"}, brain=b)
        # copies written after the move (a sync conflict of an offline edit) with the old name
        for slug, text in COPIES.items():
            b.put(slug, text)
        b.put("notes/later", "# Later\n\nAsk [[people/ana]].\n")
        f = ops.run("lint-fix", {}, brain=b)
        assert [x["slug"] for x in f["fixed"]] == ["notes/later"], f["fixed"]
        assert b.get_text("notes/later") == "# Later\n\nAsk [[people/ana-lima]].\n"
        for slug, text in COPIES.items():
            assert b.get_text(slug) == text, slug
        assert not [x for x in f["items"] + f["skipped"] if x.get("slug") in COPIES and x["check"] == "dead_links"], f


def test_a_note_written_offline_with_the_old_name_is_offered_the_new_one(tmp_path, db_path):
    """Trial 49: a note written in a synced folder while its sync/watch was stopped, after a
    `move`, links the old name; the next sync imports it as written. lint's dead_links names the
    new name (the history knows the move), lint-fix rewrites it, and the sync that imported it
    says so (as after a round that moved pages)."""
    root = tmp_path / "v"
    root.mkdir()
    with _brain(db_path) as b:
        assert ops.run("sync", {"dir": str(root)}, brain=b)["ok"]
        ops.run("move", {"slug": "people/bo", "to": "people/robert"}, brain=b)
        assert ops.run("sync", {"dir": str(root)}, brain=b)["ok"]
        (root / "notes").mkdir()
        (root / "notes" / "offline.md").write_text("# Offline\n\nAsk [[people/bo]] and [Bo](../people/bo.md).\n", encoding="utf-8")
        r = ops.run("sync", {"dir": str(root)}, brain=b)
        assert r["renamed_links"] == {"links": 2, "pages": 1}, r.get("renamed_links")
        lint = ops.run("lint", {"check": "dead_links"}, brain=b)
        assert {(x["slug"], x.get("moved_to")) for x in lint["items"]} == {("notes/offline", "people/robert")}, lint["items"]
        f = ops.run("lint-fix", {"check": "dead_links"}, brain=b)
        assert [x["slug"] for x in f["fixed"]] == ["notes/offline"], f
        assert b.get_text("notes/offline") == "# Offline\n\nAsk [[people/robert]] and [Bo](../people/robert.md).\n"
        # a later round that imports nothing linking an old name says nothing
        (root / "notes" / "more.md").write_text("# More\n\n[[people/robert]]\n", encoding="utf-8")
        assert "renamed_links" not in ops.run("sync", {"dir": str(root)}, brain=b)


def test_a_page_named_like_a_copy_but_for_its_last_dot_is_relinked(db_path):
    """A copy's mark may end a file's name before its extension: a page's slug has none, so
    ``x.sync-conflict-….old`` (the file ``x.sync-conflict-….old.md``, no copy: ``gbrain conflicts``
    does not list it) was taken for one by its slug: a move never relinked it and dead_links
    never named its links, said nowhere."""
    odd = "notes/plan.sync-conflict-20261202-015712.old"
    with _brain(db_path) as b:
        b.put(odd, "# Old plan\n\nWith [[people/ana]].\n")
        assert not [c for c in ops.run("lint", {"check": "conflicts"}, brain=b)["items"] if c["slug"] == odd]
        r = ops.run("move", {"slug": "people/ana", "to": "people/ana-lima"}, brain=b)
        assert odd in r["relinked"] and odd not in [s["slug"] for s in r.get("skipped", [])], r
        assert b.get_text(odd) == "# Old plan\n\nWith [[people/ana-lima]].\n"
        b.put(odd, "# Old plan\n\nWith [[people/nobody-here]].\n")
        lint = ops.run("lint", {"check": "dead_links"}, brain=b)
        assert [x["slug"] for x in lint["items"]] == [odd], lint["items"]


def test_a_link_in_code_the_scan_cannot_tell_leaves_only_itself_as_written(db_path):
    """A page linking the moved page by name twice, and once more in an indented code block (the
    text scan finds it, the parser reads no link there): the scan's count and the parser's
    disagreed, so none of the page's links to it was rewritten. The links the parser confirms
    are; the one in code stays, said under `skipped`."""
    with Brain.open(db_path, create=True) as b:
        b.put("people/bo", "# Bo\n")
        text = "# X\n\nSee [[bo]] and [[bo|Bob]].\n\n    [[bo]] as an example\n"
        b.put("notes/x", text)
        r = ops.run("move", {"slug": "people/bo", "to": "people/robert"}, brain=b)
        assert b.get_text("notes/x") == text.replace("See [[bo]] and [[bo|", "See [[robert]] and [[robert|"), b.get_text("notes/x")
        assert r["relinked"] == ["notes/x"] and [s["slug"] for s in r["skipped"]] == ["notes/x"], r
        assert "parser reads no link" in r["skipped"][0]["reason"], r
        assert not b.conn.execute("SELECT 1 FROM links WHERE to_page_id IS NULL").fetchall()
        assert fresh_import_differences(b) == {}


def test_a_reference_definition_nothing_uses_follows_the_move_on_any_page(db_path):
    """`[id]: ../people/bo.md` that no `[text][id]` uses is no link (the parser reads none), so a
    page holding only such a definition was not among the pages linking the moved one and kept
    the old path, while the same definition on a page that also linked it was rewritten. Every
    page's definitions naming the moved file follow it (parser-checked: code keeps every byte)."""
    with Brain.open(db_path, create=True) as b:
        b.put("people/bo", "# Bo\n")
        lone = ("# D\n\nNothing links Bo here.\n\n[id]: ../people/bo.md\n[other]: ../people/ana.md\n\n"
                "    [code]: ../people/bo.md\n\n```\n[fence]: ../people/bo.md\n```\n")
        b.put("notes/d", lone)
        near = "# E\n\n[bo]: bo.md \"Bo\"\n"  # a bare name beside it, as a linking page's is rewritten
        b.put("people/e", near)
        both = "# F\n\nSee [[people/bo]].\n\n[id]: ../people/bo.md\n"
        b.put("notes/f", both)
        r = ops.run("move", {"slug": "people/bo", "to": "team/bo"}, brain=b)
        assert b.get_text("notes/d") == lone.replace("[id]: ../people/bo.md", "[id]: ../team/bo.md"), b.get_text("notes/d")
        assert b.get_text("people/e") == near.replace("bo.md", "../team/bo.md"), b.get_text("people/e")
        assert b.get_text("notes/f") == "# F\n\nSee [[team/bo]].\n\n[id]: ../team/bo.md\n", b.get_text("notes/f")
        assert r["relinked"] == ["notes/d", "notes/f", "people/e"], r
        assert fresh_import_differences(b) == {}


def test_a_reference_definition_naming_the_moved_file_in_another_case_follows_it(db_path):
    """`[y]: ../people/BO.md` names people/bo.md as gbrain reads links (lint-fix rewrote it after
    a rename), but `move` compared the path exactly: on a page linking nothing else it kept the old
    path, dead. It follows the move, in another case too; where a page of that exact name exists
    the definition names that page and stays."""
    with Brain.open(db_path, create=True) as b:
        b.put("people/bo", "# Bo\n")
        idle = "# X\n\n[y]: ../people/BO.md\n[z]: ../people/bob.md\n"
        b.put("notes/x", idle)
        r = ops.run("move", {"slug": "people/bo", "to": "team/robert"}, brain=b)
        assert b.get_text("notes/x") == idle.replace("../people/BO.md", "../team/robert.md"), b.get_text("notes/x")
        assert r["relinked"] == ["notes/x"], r
        assert fresh_import_differences(b) == {}


def test_a_definition_naming_another_page_of_the_name_in_another_case_stays(tmp_path, db_path):
    """Two pages whose names differ only in case (a Linux folder holds both): a definition naming
    the one that did not move, exactly, keeps its path."""
    from conftest import write_tree
    from gbrain.sync.engine import SyncEngine

    twin = "# T\n\n[a]: ../people/AL.md\n"
    write_tree(tmp_path / "v", {"people/al.md": "# Al\n", "people/AL.md": "# Other Al\n", "notes/t.md": twin})
    with Brain.open(db_path, create=True) as b:
        eng = SyncEngine(b, tmp_path / "v")
        eng.bind()
        assert eng.sync()["ok"]
        eng.close()
        ops.run("move", {"slug": "people/al", "to": "team/al"}, brain=b)
        assert b.get_text("notes/t") == twin, b.get_text("notes/t")


def test_conflicts_and_lint_advise_merging_a_moved_page_s_copies_into_its_new_name(db_path):
    """Copies of the old name that arrive after a move (another machine's sync, offline meanwhile)
    stay where they arrive, and ``gbrain conflicts`` and lint's ``conflicts`` check named the old
    name to merge into, a page no longer there: they follow the renames."""
    with _brain(db_path) as b:
        ops.run("move", {"slug": "meetings/sync", "to": "meetings/2026/sync"}, brain=b)
        for slug, text in COPIES.items():
            b.put(slug, text)
        r = ops.run("move", {"slug": "meetings/2026/sync", "to": "meetings/2026/weekly-sync"}, brain=b)
        assert not r.get("moved"), r  # (copies of meetings/sync, not of meetings/2026/sync)
        found = [f for f in ops.run("lint", {"check": "conflicts"}, brain=b)["items"] if f["slug"] in COPIES]
        listed = [c for c in ops.run("conflicts", {}, brain=b) if (c.get("copy_path") or "")[:-3] in COPIES]
        assert len(found) == len(listed) == len(COPIES), (found, listed)
        for x in found + listed:
            assert "gbrain put meetings/2026/weekly-sync" in x["action"] and "meetings/sync`" not in x["action"], x
            assert "lacks into meetings/2026/weekly-sync" in x["action"] and "put meetings/sync" not in x["action"], x
        for f in found:
            assert f["original"] == "meetings/2026/weekly-sync" and "meetings/2026/weekly-sync" in f["message"], f


# a page's own conflict copies travel with it (as its .raw sidecar does): gbrain's `NAME.conflict-TS.md`
# (with its sync_conflicts row), a file-sync tool's (`NAME.sync-conflict-…`, `NAME (conflicted copy …)`: no
# row, known by name) and its sidecar's (`.raw/NAME.json.conflict-TS`), each under the copy name of the new
# path, its mark kept; a name taken there gets the `-2` rule of conflict_copy_path
def _conflicted(b, root):
    """Sync ``b`` to ``root`` and make a real both-changed conflict on meetings/sync: its copy path."""
    eng = SyncEngine(b, root)
    eng.bind()
    assert eng.sync()["ok"]
    f = root / "meetings" / "sync.md"
    f.write_bytes(f.read_bytes() + b"\nFile side.\n")
    b.put("meetings/sync", b.get_text("meetings/sync") + "\nBrain side.\n")
    rep = eng.sync()
    assert rep["exit_code"] == 3, rep
    [c] = rep["conflicts"]
    return eng, c["copy_path"]


TOOL_COPIES = {"meetings/sync.sync-conflict-20261202-015712-ABCDEFG": "# Sync\n\nTheirs.\n",
               "meetings/sync (conflicted copy 2026-12-02)": "# Sync\n\nDropbox's.\n"}


def test_move_takes_the_page_s_conflict_copies_along(tmp_path, db_path):
    root = tmp_path / "v"
    root.mkdir()
    with _brain(db_path) as b:
        eng, cp = _conflicted(b, root)
        mark = cp[len("meetings/sync"):-3]  # `.conflict-TS`
        for slug, text in TOOL_COPIES.items():
            b.put(slug, text)
        b.save_file("meetings/.raw/sync.json.conflict-20261202T015712", b'{"crm": {"id": 6}}\n')
        # a copy of an older page of the new name, stored at the name the moved copy would take
        b.put(f"meetings/2026/sync{mark}", "# Sync\n\nAn older page's copy.\n")
        assert eng.sync()["ok"]
        before = {p: b.page_row(p[:-3])["content_hash"] for p in (cp, *(s + ".md" for s in TOOL_COPIES))}
        texts = {s: b.get_text(s) for s in (cp[:-3], *TOOL_COPIES)}
        r = ops.run("move", {"slug": "meetings/sync", "to": "meetings/2026/sync"}, brain=b)
        want = {cp: f"meetings/2026/sync{mark}-2.md",
                "meetings/sync.sync-conflict-20261202-015712-ABCDEFG.md": "meetings/2026/sync.sync-conflict-20261202-015712-ABCDEFG.md",
                "meetings/sync (conflicted copy 2026-12-02).md": "meetings/2026/sync (conflicted copy 2026-12-02).md",
                "meetings/.raw/sync.json.conflict-20261202T015712": "meetings/2026/.raw/sync.json.conflict-20261202T015712"}
        # said under moved, none under skipped
        assert sorted((m["from"], m["to"]) for m in r["moved"]) == sorted(want.items()), r
        assert not [s for s in r.get("skipped") or [] if "conflict copy of" in s["reason"]], r
        # each copy is at its new name with its bytes and history (a move, not a delete + create)
        for old, new in want.items():
            assert not b.conn.execute("SELECT 1 FROM pages WHERE path = ? UNION ALL SELECT 1 FROM files WHERE path = ?", (old, old)).fetchone(), old
            if new.endswith(".md"):
                relinked = texts[old[:-3]].replace("(../people/ana.md)", "(../../people/ana.md)")  # (gbrain's copy holds the page's link)
                assert b.get_text(new[:-3]) == relinked, new
                ops_ = [v["op"] for v in ops.run("history", {"slug": new[:-3]}, brain=b)["versions"]]
                if relinked == texts[old[:-3]]:
                    assert b.page_row(new[:-3])["content_hash"] == before[old] and ops_[0] == "move" and ops_[-1] == "create", (new, ops_)
                else:  # its links rewritten for the new folder, after the move
                    assert ops_[:2] == ["update", "move"] and ops_[-1] == "create", (new, ops_)
        assert b.get_text(f"meetings/2026/sync{mark}") == "# Sync\n\nAn older page's copy.\n"
        assert ops.run("trash", {}, brain=b) == []
        # its sync record names the new places, and `conflicts` and lint say merge the new copy into the new name
        row = b.conn.execute("SELECT path, copy_path FROM sync_conflicts").fetchall()
        assert [tuple(x) for x in row] == [("meetings/2026/sync.md", want[cp])], row
        listed = {c["copy_path"]: c for c in ops.run("conflicts", {}, brain=b)}
        for old, new in want.items():
            assert new in listed and listed[new]["path"] in ("meetings/2026/sync.md", "meetings/2026/.raw/sync.json"), (new, listed)
            assert "meetings/sync" not in listed[new]["action"], listed[new]
        assert listed[want[cp]]["kept_by"] and listed[want[cp]]["copy_by"], listed[want[cp]]
        found = {f["slug"] for f in ops.run("lint", {"check": "conflicts"}, brain=b)["items"]}
        assert {n[:-3] for n in want.values() if n.endswith(".md")} <= found and not {o[:-3] for o in want} & found, found
        assert fresh_import_differences(b) == {}
        # the folder follows: the copies' files move, nothing is trashed, a second round has nothing to do
        rep = eng.sync()
        assert rep["ok"] and rep["exit_code"] == 0, rep
        for old, new in want.items():
            assert not (root / old).exists() and (root / new).exists(), (old, new)
        assert (root / want[cp]).read_text(encoding="utf-8") == texts[cp[:-3]].replace("(../people/ana.md)", "(../../people/ana.md)")
        assert ops.run("trash", {}, brain=b) == []
        rep = eng.sync()
        assert rep["exit_code"] == 0 and not rep["changed"]["imported"] and not rep["changed"]["exported"], rep
        eng.close()
    out = gbrain_in_process("--db", str(db_path), "move", "meetings/2026/sync", "meetings/sync")
    assert out.returncode == 0 and b"moved with it: meetings/2026/sync.sync-conflict-20261202-015712-ABCDEFG" in out.stdout, out


def test_a_rename_in_the_folder_takes_the_page_s_conflict_copies_along(tmp_path, db_path):
    """The same gap in sync (and watch, whose rounds are sync's): a note renamed in the folder left
    its copies in the old folder, beside no page; they follow it, on disk and in the brain."""
    root = tmp_path / "v"
    root.mkdir()
    with _brain(db_path) as b:
        eng, cp = _conflicted(b, root)
        mark = cp[len("meetings/sync"):-3]
        b.put("meetings/sync.sync-conflict-20261202-015712-ABCDEFG", "# Sync\n\nTheirs.\n")
        assert eng.sync()["ok"]
        copy_text = (root / cp).read_bytes().replace(b"(../people/ana.md)", b"(../../people/ana.md)")  # (its links follow: below)
        (root / "meetings" / "2026").mkdir()
        os.rename(root / "meetings" / "sync.md", root / "meetings" / "2026" / "sync.md")
        rep = eng.sync()
        assert rep["ok"], rep
        new_cp = f"meetings/2026/sync{mark}.md"
        assert b.page_row("meetings/2026/sync") and not (root / cp).exists() and (root / new_cp).read_bytes() == copy_text
        assert (root / "meetings/2026/sync.sync-conflict-20261202-015712-ABCDEFG.md").exists()
        assert not (root / "meetings/sync.sync-conflict-20261202-015712-ABCDEFG.md").exists()
        assert b.get_text(new_cp[:-3]).encode("utf-8") == copy_text and not b.page_row(cp[:-3])
        assert [tuple(x) for x in b.conn.execute("SELECT path, copy_path FROM sync_conflicts")] == [("meetings/2026/sync.md", new_cp)]
        assert ops.run("trash", {}, brain=b) == []
        rep = eng.sync()
        assert rep["exit_code"] == 0 and not rep["changed"]["imported"] and not rep["changed"]["exported"], rep
        eng.close()
        assert fresh_import_differences(b) == {}


def test_a_case_only_rename_takes_its_copy_along_without_a_number(db_path):
    """``people/bo`` → ``people/Bo``: the copy's new name differs from its own only in case, which
    is no taken name (no ``-2``)."""
    with _brain(db_path) as b:
        b.put("people/bo.conflict-20261202T015712", "# Bo\n\nOld.\n")
        r = ops.run("move", {"slug": "people/bo", "to": "people/Bo"}, brain=b)
        assert r["moved"] == [{"from": "people/bo.conflict-20261202T015712.md", "to": "people/Bo.conflict-20261202T015712.md"}], r
        assert b.get_text("people/Bo.conflict-20261202T015712") == "# Bo\n\nOld.\n"
        assert fresh_import_differences(b) == {}


def test_a_folder_renamed_in_the_folder_looks_for_copies_only_where_some_are(tmp_path, db_path, monkeypatch):
    """A sync round that renames many notes (a folder renamed whole) looked for each note's conflict
    copies with a scan of every stored path (``copy_renames``): a round of N moves over a brain of
    M pages read N × M rows (1,272 moves of a 5,000-page make_brain brain: 1,272 scans, 1.9
    CPU-s in ``copy_renames``). The round now reads the copies once and asks ``copy_renames`` only for a note whose
    folder (or its ``.raw``) holds one; the copy there still follows its note."""
    import gbrain.sync.engine as engine

    root = tmp_path / "v"
    (root / "a").mkdir(parents=True)
    (root / "b").mkdir()
    for i in range(5):
        (root / "a" / f"n{i}.md").write_text(f"# N{i}\n\nText {i}.\n", encoding="utf-8")
    (root / "b" / "ana.md").write_text("# Ana\n\nMine.\n", encoding="utf-8")
    (root / "b" / "ana.sync-conflict-20261202-015712-ABCDEFG.md").write_text("# Ana\n\nTheirs.\n", encoding="utf-8")
    calls = []
    real = engine.copy_renames
    monkeypatch.setattr(engine, "copy_renames", lambda b, src, dst, **kw: calls.append(src) or real(b, src, dst, **kw))
    with _brain(db_path) as b:
        eng = SyncEngine(b, root)
        eng.bind()
        eng.sync()
        os.rename(root / "a", root / "a2")
        (root / "c").mkdir()
        os.rename(root / "b" / "ana.md", root / "c" / "ana.md")
        rep = eng.sync()
        assert rep["ok"] and len(rep["moved"]) >= 6, rep
        assert calls == ["b/ana.md"], calls
        assert (root / "c" / "ana.sync-conflict-20261202-015712-ABCDEFG.md").exists()
        assert not (root / "b" / "ana.sync-conflict-20261202-015712-ABCDEFG.md").exists()
        eng.close()
        assert fresh_import_differences(b) == {}


def test_a_moved_conflict_copy_s_relative_links_name_from_its_new_folder_what_they_named(db_path):
    """A copy that travels with its page into another folder kept its relative links as written, so
    from there they named nothing (`../people/ana.md` from meetings/2026/) while the page's own were
    rewritten: they are rewritten the same way, the copy's bytes otherwise as saved (its links by
    name, `[[people/ana]]`, unchanged), the text as saved kept in its history. A link to the page
    that moved names it where it is now."""
    with _brain(db_path) as b:
        copies = dict(COPIES)
        copies["meetings/sync.conflict-20261202T015712"] += "Back to [the note](sync.md) and ![a chart](img/c.png).\n"
        b.save_file("meetings/img/c.png", b"\x89PNG\r\n")
        for slug, text in copies.items():
            b.put(slug, text)
        r = ops.run("move", {"slug": "meetings/sync", "to": "meetings/2026/sync"}, brain=b)
        assert len(r["moved"]) == 3, r
        for old, text in copies.items():
            new = old.replace("meetings/sync", "meetings/2026/sync")
            want = text.replace("(../people/ana.md)", "(../../people/ana.md)").replace("(img/c.png)", "(../img/c.png)")
            assert b.get_text(new) == want and b.page_row(old) is None, new
            h = ops.run("history", {"slug": new}, brain=b)["versions"]
            assert [v["op"] for v in h] == ["update", "move", "create"], (new, h)
            assert ops.run("get", {"slug": new, "version": h[1]["version"]}, brain=b)["content"] == text, new
            # its links resolve from the new folder: none left dead
            pid = b.page_row(new)["id"]
            assert not b.conn.execute("SELECT target FROM links WHERE from_page_id = ? AND to_page_id IS NULL", (pid,)).fetchall(), new
        assert ops.run("trash", {}, brain=b) == []
        assert fresh_import_differences(b) == {}


def test_a_rename_in_the_folder_rewrites_the_moved_copy_s_relative_links_on_disk_too(tmp_path, db_path):
    """The same under sync (and watch): a note renamed into another folder takes its copy along
    (SyncEngine._move_copies), whose file then holds the rewritten links, as the brain does; the
    next round has nothing to do."""
    root = tmp_path / "v"
    root.mkdir()
    with _brain(db_path) as b:
        eng, cp = _conflicted(b, root)
        mark = cp[len("meetings/sync"):-3]
        old_text = (root / cp).read_bytes()
        assert b"(../people/ana.md)" in old_text
        (root / "meetings" / "2026").mkdir()
        os.rename(root / "meetings" / "sync.md", root / "meetings" / "2026" / "sync.md")
        rep = eng.sync()
        assert rep["ok"], rep
        new_cp = f"meetings/2026/sync{mark}.md"
        want = old_text.replace(b"(../people/ana.md)", b"(../../people/ana.md)")
        assert not (root / cp).exists() and (root / new_cp).read_bytes() == want
        assert b.get_text(new_cp[:-3]).encode("utf-8") == want
        rep = eng.sync()
        assert rep["exit_code"] == 0 and not rep["changed"]["imported"] and not rep["changed"]["exported"], rep
        eng.close()
        assert fresh_import_differences(b) == {}


def _noted_and_resolved(b, root):
    """A brain synced to ``root`` with two conflicts of meetings/sync that have no copy in the brain:
    one resolved (its copy merged and deleted), one noted (deleted on disk, edited in the brain:
    put back, no copy). The engine."""
    eng, cp = _conflicted(b, root)
    ops.run("delete", {"slug": cp[:-3]}, brain=b)
    assert eng.sync()["ok"]
    (root / "meetings" / "sync.md").unlink()
    b.put("meetings/sync", b.get_text("meetings/sync") + "\nEdited while deleted.\n")
    rep = eng.sync()
    assert rep["exit_code"] == 3 and (root / "meetings" / "sync.md").exists(), rep
    rows = {r["status"]: r["path"] for r in ops.run("conflicts", {"all": True}, brain=b)}
    assert rows == {"resolved": "meetings/sync.md", "noted": "meetings/sync.md"}, rows
    return eng


def test_conflicts_without_a_copy_follow_a_moved_page(tmp_path, db_path):
    """A page's sync_conflicts rows that have no copy to move (resolved, or noted: no copy made)
    kept its old path after `move`, so `gbrain conflicts --all` named a page no longer there."""
    root = tmp_path / "v"
    root.mkdir()
    with _brain(db_path) as b:
        eng = _noted_and_resolved(b, root)
        ops.run("move", {"slug": "meetings/sync", "to": "meetings/2026/sync"}, brain=b)
        rows = {r["status"]: r["path"] for r in ops.run("conflicts", {"all": True}, brain=b)}
        assert rows == {"resolved": "meetings/2026/sync.md", "noted": "meetings/2026/sync.md"}, rows
        assert eng.sync()["exit_code"] == 0
        eng.close()


def test_conflicts_without_a_copy_follow_a_note_renamed_in_the_folder(tmp_path, db_path):
    root = tmp_path / "v"
    root.mkdir()
    with _brain(db_path) as b:
        eng = _noted_and_resolved(b, root)
        (root / "meetings" / "2026").mkdir()
        os.rename(root / "meetings" / "sync.md", root / "meetings" / "2026" / "sync.md")
        assert eng.sync()["ok"]
        assert b.page_row("meetings/2026/sync")
        rows = {r["status"]: r["path"] for r in ops.run("conflicts", {"all": True}, brain=b)}
        assert rows == {"resolved": "meetings/2026/sync.md", "noted": "meetings/2026/sync.md"}, rows
        eng.close()


def test_a_copy_or_sidecar_not_the_stored_one_stays_where_it_is(tmp_path, db_path, monkeypatch):
    """A note renamed in the folder takes its conflict copy and ``.raw`` sidecar along only when
    each file is exactly the stored version (``SyncEngine._rename_stored``): one rewritten between
    the round's look and its move stays at its old name with its bytes."""
    root = tmp_path / "v"
    root.mkdir()
    with _brain(db_path) as b:
        eng, cp = _conflicted(b, root)
        warned: list[str] = []
        eng._warn = warned.append
        side = "meetings/.raw/sync.json"
        for name in ("_move_sidecar", "_move_copies"):  # the file is rewritten just before its move
            real = getattr(SyncEngine, name)

            def edit_first(self, old, *a, _real=real, **kw):
                p = root / (old if old.startswith("meetings/.raw/") else cp)
                p.write_bytes(p.read_bytes() + b"\nedited meanwhile\n")
                return _real(self, old, *a, **kw)

            monkeypatch.setattr(SyncEngine, name, edit_first)
        (root / "meetings" / "2026").mkdir()
        os.rename(root / "meetings" / "sync.md", root / "meetings" / "2026" / "sync.md")
        rep = eng.sync()
        assert b.page_row("meetings/2026/sync"), rep
        moved = {(m["from"], m["to"]) for m in rep["moved"]}
        assert moved == {("meetings/sync.md", "meetings/2026/sync.md")}, rep
        for old in (side, cp):
            assert (root / old).read_bytes().endswith(b"\nedited meanwhile\n"), old
        assert not (root / "meetings/2026/.raw/sync.json").exists() and not list((root / "meetings" / "2026").glob("sync.conflict-*")), rep
        assert not warned, warned


def test_a_copy_or_sidecar_whose_rename_fails_is_warned_and_left_as_it_is(tmp_path, db_path, monkeypatch):
    """The rename of a copy or sidecar following its page fails: a warning naming it, the file and
    the brain's row stay at the old name (``SyncEngine._rename_stored``)."""
    root2 = tmp_path / "v"
    root2.mkdir()
    with _brain(db_path) as b:
        eng, cp = _conflicted(b, root2)
        warned = []
        eng._warn = warned.append
        real_rename = os.rename

        def refuse(src, dst, *a, **kw):
            if os.fspath(src).endswith(("/meetings/.raw/sync.json", cp)):
                raise PermissionError(13, "Permission denied")
            return real_rename(src, dst, *a, **kw)

        (root2 / "meetings" / "2026").mkdir()
        real_rename(root2 / "meetings" / "sync.md", root2 / "meetings" / "2026" / "sync.md")
        monkeypatch.setattr(os, "rename", refuse)
        rep = eng.sync()
        assert sorted(warned) == sorted([f"{cp}: could not move the conflict copy with its page (Permission denied); left as it is",
                                  "meetings/.raw/sync.json: could not rename the sidecar with its page (Permission denied); left as it is"]), warned
        assert (root2 / cp).exists() and (root2 / "meetings/.raw/sync.json").exists()
        assert b.conn.execute("SELECT 1 FROM files WHERE path = 'meetings/.raw/sync.json'").fetchone()
        assert b.page_row(cp[:-3]), rep
