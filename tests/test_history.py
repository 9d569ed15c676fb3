"""Page history (issue 12): every replaced version is kept, with its origin; get --version,
diff, revert, changes, prune; sync's warning when a save empties a page; conflicts in history."""
from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
from pathlib import Path

import anyio
import pytest

from gbrain import operations as ops
from gbrain.core import history as h
from gbrain.core import purge as P
from gbrain.core.brain import Brain, render_row
from gbrain.errors import BadInput, NotFound
from gbrain.storage.blobs import file_bytes
from gbrain.sync.engine import SyncEngine

from conftest import SHARED, gbrain_in_process, writable_by_this_gbrain

# The CLI in the test's process: these tests are about what history, diff, get, revert, changes,
# prune, delete, restore and sync say and do, not about the process (none sets GBRAIN_USER per call)
cli = gbrain_in_process

ANA = "---\ntitle: Ana Lima\ntype: person\n---\nAna runs River AI.\n\n---\n\n- **2024-01-02** | meeting — Met Ana\n"


def run(b, name, surface="cli", **args):
    return ops.run(name, args, ops.Context(surface=surface), brain=b)


def current(b, slug):
    return b.get_text(slug)


def check_versions(b, slug, texts):
    """Each text in ``texts`` is a version of ``slug`` whose bytes come back exactly."""
    hist = h.versions(b, slug, limit=0)
    bodies = {}
    for v in hist["versions"]:
        if v["op"] not in ("delete",) and not (v["op"] == "move" and v["size"] == 0):
            bodies[run(b, "get", slug=slug, version=v["version"])["content"]] = v["version"]
    for t in texts:
        assert t in bodies, (slug, t[:80], list(bodies)[:3])
    return bodies


@pytest.mark.engine_free
def test_every_write_path_keeps_the_replaced_version(tmp_path, brain_tree):
    b = Brain.open(tmp_path / "brain.db")
    seen = []

    def snap(slug="people/ana"):
        seen.append(current(b, slug))

    run(b, "put", slug="people/ana", content=ANA); snap()
    run(b, "put", surface="mcp", slug="ana", compiled_truth="Ana left River AI."); snap()
    run(b, "put", surface="pipe", slug="ana", frontmatter={"status": "warm"}); snap()
    run(b, "put", surface="call", slug="ana", timeline_append="- **2024-03-04** | call — Called"); snap()
    run(b, "tag", slug="ana", tag="vip"); snap()
    run(b, "untag", slug="ana", tag="vip"); snap()
    run(b, "put", slug="people/bo", content="# Bo\n")
    run(b, "link", **{"from": "ana", "to": "bo", "context": "friends"}); snap()
    run(b, "unlink", **{"from": "ana", "to": "bo"}); snap()
    run(b, "timeline-add", slug="ana", date="2024-05-06", summary="Lunch"); snap()
    run(b, "raw", slug="ana", source="crm", data={"a": 1})
    sidecar = b.conn.execute("SELECT path, data FROM files WHERE kind = 'raw'").fetchone()
    first_raw = bytes(sidecar["data"])
    run(b, "raw", slug="ana", source="crm", data={"a": 2})
    ing = run(b, "ingest", content="# Notes\n\nhello\n", source_type="doc", source_ref="n/1")
    run(b, "delete", slug="ana")
    with pytest.raises(NotFound):
        b.resolve_slug("people/ana")
    # every version of the page comes back byte for byte, the deleted page included
    vers = check_versions(b, "people/ana", seen)
    assert h.versions(b, "ana")["live"] is False
    # the sidecar's replaced version too
    assert h.body(b.conn, h._version_row(b, "file", sidecar["path"], 1)["body_id"]) == first_raw
    # revert brings a deleted page back with the exact bytes of the chosen version
    for t in (seen[2], seen[-1]):
        r = run(b, "revert", slug="people/ana", to=vers[t])
        assert current(b, "people/ana") == t and r["changed"]
    # and origins were recorded
    ops_seen = [(c["surface"], c["operation"]) for c in h.changes(b, limit=0) if c["name"] == "people/ana"]
    for want in [("cli", "put"), ("mcp", "put compiled_truth"), ("pipe", "put frontmatter"), ("call", "put timeline_append"), ("cli", "tag"), ("cli", "untag"), ("cli", "link"),
                 ("cli", "unlink"), ("cli", "timeline-add"), ("cli", "delete"), ("cli", "revert")]:
        assert want in ops_seen, want
    assert any(c["name"] == ing["slug"] and c["operation"] == "ingest" for c in h.changes(b, limit=0))
    assert [c["name"] for c in run(b, "changes", origin="mcp")] == ["people/ana"]
    # restore from the trash is a write like any other
    run(b, "delete", slug="ana")
    run(b, "restore", slug="people/ana")
    assert h.changes(b, limit=1)[0]["operation"] == "restore"
    # the trash is the history: restore brings back the last version, byte for byte
    before = current(b, "people/ana")
    run(b, "delete", slug="ana")
    listed = run(b, "trash")
    assert listed[0]["slug"] == "people/ana" and listed[0]["deleted"] and listed[0]["reason"] == "delete (cli)"
    r = run(b, "restore", slug="people/ana")
    assert current(b, "people/ana") == before and r["version"] == listed[0]["version"]
    assert not any(t["slug"] == "people/ana" and t["deleted"] for t in run(b, "trash"))
    # import over a page: the brain's version stays in history
    dst = brain_tree / "people" / "ana-lima.md"
    with Brain.open(tmp_path / "imp.db") as b2:
        run(b2, "import", dir=str(brain_tree))
        orig = b2.get_text("people/ana-lima")
        run(b2, "put", slug="ana-lima", compiled_truth="changed in the brain")
        edited = b2.get_text("people/ana-lima")
        dst.write_bytes(dst.read_bytes() + b"\nfrom the folder\n")
        from gbrain.sync.importer import import_tree
        b2.conn.execute("DELETE FROM sync_root")  # imported elsewhere: no base, the file wins
        import_tree(b2, brain_tree)
        assert b2.get_text("people/ana-lima") == dst.read_text("utf-8")
        check_versions(b2, "people/ana-lima", [orig, edited])
        assert {c["surface"] for c in h.changes(b2, limit=0)} == {"import", "cli"}
    b.close()


@pytest.mark.engine_free
def test_history_diff_and_cli(tmp_path):
    db = str(tmp_path / "brain.db")
    assert cli("--db", db, "put", "people/ana", input=ANA).returncode == 0
    assert cli("--db", db, "tag", "ana", "vip").returncode == 0
    r = cli("--db", db, "history", "ana")
    out = r.stdout.decode()
    assert r.returncode == 0 and "people/ana: 2 version(s)" in out
    assert "cli tag" in out and "cli put" in out and "+2 -0" in out
    d = cli("--db", db, "diff", "ana").stdout.decode()
    head = d.splitlines()[:2]  # each version's time, origin and writer where diff(1) puts a file's time
    assert re.fullmatch(r"--- people/ana@v1\t\S+Z cli put by \S+", head[0]) and re.fullmatch(r"\+\+\+ people/ana@v2\t\S+Z cli tag by \S+", head[1]), head
    assert "+tags:\n+- vip\n" in d
    assert cli("--db", db, "get", "ana", "--version", "1").stdout.decode() == ANA
    r = cli("--db", db, "revert", "ana", "--to", "1")
    assert r.returncode == 0 and "version 1 brought back as version 3" in r.stdout.decode()
    assert cli("--db", db, "get", "ana").stdout.decode() == ANA
    bad = cli("--db", db, "get", "ana", "--version", "9")
    assert bad.returncode == 1 and "no version 9" in bad.stderr.decode()
    ch = json.loads(cli("--db", db, "changes", "--origin", "cli", "--json").stdout)
    assert [c["operation"] for c in ch] == ["revert", "tag", "put"]
    assert cli("--db", db, "changes", "--since", "soon").returncode == 2
    none = cli("--db", db, "changes", "--origin", "mcp")
    assert none.returncode == 0 and none.stdout == b"" and none.stderr.decode().strip() == "no changes by mcp since 24h"
    tree = tmp_path / "t"
    tree.mkdir()
    (tree / "x.md").write_text("# X\n")
    assert cli("--db", db, "import", str(tree)).returncode == 0
    out = cli("--db", db, "history", "x").stdout.decode()
    assert out.rstrip().endswith(" import") and "import import" not in out


def test_mcp_writes_carry_the_client_name(fixture_db):
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters, stdio_client
    from mcp_types import Implementation

    from test_mcp import server_env
    from conftest import ROOT
    import sys

    async def main():
        params = StdioServerParameters(command=sys.executable, args=["-m", "gbrain", "serve", "--db", str(fixture_db)], env=server_env(), cwd=str(ROOT))
        async with Client(stdio_client(params), read_timeout_seconds=120, client_info=Implementation(name="claude-code", version="1.0")) as c:
            r = await c.call_tool("brain_put", {"slug": "ana-lima", "compiled_truth": "Rewritten by an agent."})
            assert not r.is_error
            ch = await c.call_tool("brain_changes", {"origin": "claude-code"})
            hist = await c.call_tool("brain_history", {"slug": "ana-lima"})
            rev = await c.call_tool("brain_revert", {"slug": "ana-lima", "to": 1})
            return json.loads(ch.content[0].text)["items"], json.loads(hist.content[0].text), json.loads(rev.content[0].text)

    ch, hist, rev = anyio.run(main)
    assert ch[0]["name"] == "people/ana-lima" and ch[0]["origin"] == "mcp(claude-code) put compiled_truth"  # (an agent's row: origin holds surface, client, operation)
    assert hist["versions"][0]["client"] == "claude-code" and hist["versions"][-1]["op"] == "create"
    assert rev["reverted_to"] == 1 and rev["changed"]
    with Brain.open(fixture_db) as b:
        assert b.get_text("people/ana-lima") == (Path(__file__).parent.parent / "fixtures" / "brain" / "people" / "ana-lima.md").read_text("utf-8")


@pytest.mark.engine_free
def test_zero_byte_save_is_loud_and_one_revert_away(tmp_path):
    case = SHARED / "cases" / "zero-byte-save" / "input"
    if not case.exists():
        pytest.skip("../shared/cases/zero-byte-save not available")
    root = tmp_path / "notes"
    shutil.copytree(case, root)
    for p in root.rglob("*"):
        os.chmod(p, 0o755 if p.is_dir() else 0o644)
    os.chmod(root, 0o755)
    db = str(tmp_path / "brain.db")
    ana = root / "people" / "ana-lima.md"
    before = ana.read_bytes()
    assert cli("--db", db, "sync", str(root)).returncode == 0
    ana.write_bytes(b"")  # the crashed save
    r = cli("--db", db, "sync", str(root), "--json")
    err = r.stderr.decode()
    assert r.returncode == 0, err
    assert "people/ana-lima.md: the file is now empty (was 154 bytes)" in err and "gbrain revert people/ana-lima --to 1" in err
    rep = json.loads(r.stdout)
    assert rep["collapsed"][0]["revert"] == "gbrain revert people/ana-lima --to 1"
    assert cli("--db", db, "get", "people/ana-lima").stdout == b""
    assert cli("--db", db, "revert", "people/ana-lima", "--to", "1").returncode == 0
    assert cli("--db", db, "sync", str(root)).returncode == 0
    assert ana.read_bytes() == before  # the file follows the revert


def test_a_restored_page_leaves_the_trash_for_good(tmp_path, db_path):
    """Trial 47: `gbrain delete` of a watched page, watch removed its file (keeping the file's bytes:
    the last text, marked trashed 'deleted in brain'), then `restore` and an edit: `gbrain trash`
    listed the page again (`deleted in brain`, `deleted: false`) while `restore` said it is in the
    brain. A trashed version whose bytes a later version holds (a restore, a revert) was brought
    back: it is no longer only in the history."""
    root = tmp_path / "vault"
    root.mkdir()
    (root / "ana.md").write_text(ANA)
    (root / "bo.md").write_text("# Bo\n\nfirst\n")
    with Brain.open(db_path) as b:
        eng = SyncEngine(b, root)
        eng.bind()
        eng.sync()
        run(b, "delete", slug="ana")
        eng.sync()  # the file goes: its bytes (the deleted text) are kept, marked for the trash
        assert not (root / "ana.md").exists()
        assert [(t["slug"], t["deleted"]) for t in run(b, "trash")] == [("ana", True)]
        run(b, "restore", slug="ana")
        assert run(b, "trash") == []
        run(b, "tag", slug="ana", tag="later")  # an edit after the restore
        assert run(b, "trash") == [], run(b, "trash")
        # a replaced version is listed until a revert brings its bytes back
        (root / "bo.md").write_text("# Bo\n\nsecond\n")
        eng.sync()
        with b.transaction():
            h.keep_version(b.conn, "page", "bo", "bo.md", b"# Bo\n\nfirst\n", "replaced by import")
        assert [(t["slug"], t["deleted"]) for t in run(b, "trash")] == [("bo", False)]
        run(b, "revert", slug="bo", to=1)
        run(b, "tag", slug="bo", tag="again")
        assert run(b, "trash") == []
        eng.close()


def test_in_trash_is_the_trash_listings_rule_for_one_name(db_path):
    """``history.in_trash(conn, kind, name)`` (sync's swap asks it before passing a page through a
    temp name) says what ``trash`` lists as deleted: the name's newest history row is the deletion.
    A name moved away, brought back, written again or never written holds nothing deleted; a
    file is asked by its path."""
    with Brain.open(db_path) as b:
        for s in ("gone", "back", "again", "moved", "live"):
            run(b, "put", slug=s, content=f"# {s}\n\ntext\n")
        b.save_file("att/x.pdf", b"%PDF-1 x")
        b.save_file("att/y.pdf", b"%PDF-1 y")
        for s in ("gone", "back", "again"):
            run(b, "delete", slug=s)
        with b.transaction():
            b.delete_file("att/x.pdf")
        run(b, "restore", slug="back")
        run(b, "put", slug="again", content="# again\n\nwritten anew\n")
        with b.transaction():
            b.move_page("moved", "elsewhere")
        asked = [("page", s) for s in ("gone", "back", "again", "moved", "elsewhere", "live", "never")] + [("file", "att/x.pdf"), ("file", "att/y.pdf"), ("page", "att/x.pdf")]
        listed = {(t["kind"], t["slug"] or t["path"]) for t in h.trash_list(b, limit=0) if t["deleted"]}
        assert listed == {("page", "gone"), ("file", "att/x.pdf")}, listed
        assert {k for k in asked if h.in_trash(b.conn, *k)} == listed


def test_a_note_written_again_at_its_path_is_no_move_in_the_history(tmp_path, db_path):
    """Trial 47: a note deleted in the folder and saved again at the same path from an editor's
    buffer came back (its page from the trash, history continued) as `watch file moved`,
    though nothing moved. Saved at its own path it is the file changed; at another path, moved."""
    root = tmp_path / "vault"
    root.mkdir()
    (root / "ana.md").write_text(ANA)
    (root / "bo.md").write_text("# Bo\n")
    with Brain.open(db_path) as b:
        eng = SyncEngine(b, root)
        eng.bind()
        eng.sync()
        (root / "ana.md").unlink()
        eng.sync()
        (root / "ana.md").write_text(ANA + "typed after the delete\n")
        rep = eng.sync()
        assert rep["ok"] and b.get_text("ana") == ANA + "typed after the delete\n"
        newest = h.versions(b, "ana")["versions"][0]
        assert (newest["op"], newest["operation"], newest.get("detail")) == ("create", "file changed", None), newest
        eng.close()


def test_history_gives_each_versions_hash_and_a_revert_says_which_version(tmp_path, db_path):
    """Trial 47: checking that no version was lost took a `get --version N --json` per version
    (history gave no hash), and `history` showed a revert as `cli revert` alone, not which version
    it brought back (nor which of two reverts undid the other)."""
    import hashlib

    with Brain.open(db_path) as b:
        run(b, "put", slug="people/ana", content=ANA)
        run(b, "tag", slug="people/ana", tag="t1")
        run(b, "revert", slug="people/ana", to=1)
        run(b, "revert", slug="people/ana", to=2)  # the revert of the revert
        run(b, "revert", slug="people/ana", to=4)  # the same text: no new version, nothing said
        run(b, "delete", slug="people/ana")
        hist = run(b, "history", slug="people/ana", limit=0)
        assert [(v["version"], v["op"], v.get("detail")) for v in hist["versions"]] == [
            (5, "delete", None), (4, "update", "to v2"), (3, "update", "to v1"), (2, "update", None), (1, "create", None)]
        for v in hist["versions"]:
            if v["op"] == "delete":
                assert v["content_hash"] is None
            else:
                data = h.version_bytes(b, "page", "people/ana", v["version"])
                assert v["content_hash"] == hashlib.sha256(data).hexdigest() == run(b, "get", slug="people/ana", version=v["version"])["content_hash"]
        run(b, "restore", slug="people/ana")
    if not isinstance(db_path, str):
        out = cli("history", "people/ana", "--db", str(db_path)).stdout.decode()
        assert re.search(r"\n   4  \S+  update .* cli revert  to v2\n", out), out


def _conflict_on(b, root, slug: str) -> SyncEngine:
    """A :class:`SyncEngine` of ``root`` bound to brain ``b`` and synced, then ``slug``'s note
    (``one\\ntwo\\n``) edited on both sides on its second line (``brain two`` put in the brain,
    ``file two`` in its file): the engine's next sync finds the conflict and writes its copy."""
    eng = SyncEngine(b, root)
    eng.bind()
    eng.sync()
    b.put(slug, "one\nbrain two\n")
    (root / f"{slug}.md").write_text("one\nfile two\n")
    return eng


def test_history_names_the_open_conflict_copy_that_holds_a_version(tmp_path, db_path):
    """Trial 47: an editor's stale save that conflicted with a newer write was kept in
    `aoife-sato.conflict-….md`, but `history people/aoife-sato` (where one looks for a lost
    save) listed nothing of it: only `gbrain conflicts` knew. History now names the page's open
    conflict copies; once the copy is deleted (merged) it is no longer named."""
    root = tmp_path / "notes"
    root.mkdir()
    (root / "ana.md").write_text("one\ntwo\n")
    (root / "bo.md").write_text("# Bo\n")
    with Brain.open(db_path) as b:
        eng = _conflict_on(b, root, "ana")
        rep = eng.sync()
        cp = rep["conflicts"][0]["copy_path"]
        r = run(b, "history", slug="ana")
        assert r["conflict_copies"] == [cp], r
        assert "conflict_copies" not in run(b, "history", slug="bo")
        if not isinstance(db_path, str):
            out = cli("history", "ana", "--db", str(db_path)).stdout.decode()
            assert f"open conflict copy: {cp} (another version of this note" in out, out
        (root / cp).unlink()
        eng.sync()
        assert "conflict_copies" not in run(b, "history", slug="ana")
        eng.close()


def test_diff_compares_a_version_of_an_old_name_with_one_of_the_new_name(tmp_path, db_path):
    """Trial 47: after a rename, `diff NEW N M` numbers NEW's own versions and `diff OLD N M`
    OLD's: a version written under the old name could not be compared with one written under
    the new name in one command (two `get --version` and diff(1)). `--from-name OLD` (CLI)
    reads FROM_VERSION under a name the page had."""
    root = tmp_path / "v"
    root.mkdir()
    (root / "a.md").write_text("# A\n\nx\n")
    db = str(db_path)
    assert cli("--db", db, "sync", str(root)).returncode == 0
    assert cli("--db", db, "tag", "a", "t1").returncode == 0
    assert cli("--db", db, "sync", str(root)).returncode == 0
    (root / "sub").mkdir()
    (root / "a.md").rename(root / "sub" / "a.md")
    assert cli("--db", db, "sync", str(root)).returncode == 0
    (root / "sub" / "a.md").write_text((root / "sub" / "a.md").read_text() + "y\n")
    assert cli("--db", db, "sync", str(root)).returncode == 0
    r = cli("--db", db, "diff", "sub/a", "1", "--from-name", "a", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert (d["from_name"], d["from"], d["to"], d["added"], d["removed"]) == ("a", 1, 2, 5, 0), d
    assert d["diff"].startswith("--- a@v1\t") and "\n+++ sub/a@v2\t" in d["diff"] and "+y" in d["diff"] and "+- t1" in d["diff"], d["diff"]
    d = json.loads(cli("--db", db, "diff", "sub/a", "2", "1", "--from-name", "a", "--json").stdout)  # both numbers: TO is NEW's
    assert (d["from"], d["to"], d["diff"]) == (2, 1, ""), d
    r = cli("--db", db, "diff", "sub/a", "1", "--from-name", "zzz")
    assert r.returncode == 2 and "zzz is no name sub/a had (its names: sub/a, a;" in r.stderr.decode(), r.stderr
    # no FROM_VERSION: the old name's last version, the text it had when it moved away (trial 49: a look-up saved)
    r = cli("--db", db, "diff", "sub/a", "--from-name", "a", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert (d["from_name"], d["from"], d["to"], d["added"], d["removed"]) == ("a", 2, 2, 1, 0), d
    assert d["diff"].startswith("--- a@v2\t") and "\n+y\n" in d["diff"], d["diff"]


@pytest.mark.engine_free
def test_a_page_that_lost_most_of_its_bytes_is_reported(tmp_path):
    root = tmp_path / "notes"
    root.mkdir()
    (root / "big.md").write_text("x" * 1000 + "\n")
    with Brain.open(tmp_path / "brain.db") as b:
        eng = SyncEngine(b, root)
        eng.bind()
        eng.sync()
        (root / "big.md").write_text("x" * 100 + "\n")
        rep = eng.sync()
        assert rep["collapsed"][0]["old_size"] == 1001 and rep["collapsed"][0]["new_size"] == 101
        (root / "big.md").write_text("x" * 80 + "\n")  # a small page shrinking a little is no news
        assert "collapsed" not in eng.sync()
        eng.close()


@pytest.mark.engine_free
def test_conflict_keeps_both_versions_in_history(tmp_path):
    root = tmp_path / "notes"
    root.mkdir()
    (root / "ana.md").write_text("base\n")
    with Brain.open(tmp_path / "brain.db") as b:
        eng = SyncEngine(b, root)
        eng.bind()
        eng.sync()
        b.put("ana", "brain side\n")
        (root / "ana.md").write_text("file side\n")
        rep = eng.sync()
        assert rep["conflicts"] and rep["conflicts"][0]["copy_path"]
        cp = rep["conflicts"][0]["copy_path"]
        assert (root / cp).read_text() == "brain side\n"  # the copy file stays for Obsidian users
        vers = check_versions(b, "ana", ["base\n", "brain side\n", "file side\n"])
        assert h.versions(b, "ana")["versions"][0]["surface"] == "sync"
        # deleting the copy loses nothing
        (root / cp).unlink()
        eng.sync()
        assert b.page_row(cp[:-3]) is None
        run(b, "revert", slug="ana", to=vers["brain side\n"])
        eng.sync()
        assert (root / "ana.md").read_text() == "brain side\n"
        eng.close()


def test_history_and_diff_follow_a_page_across_folder_and_file_renames(tmp_path, db_path):
    """Issue: after a watched folder rename `history NEW` showed 1 version and `diff NEW` said
    "fewer than 2 versions with text"; the older versions were only under the old slug."""
    root = tmp_path / "vault"
    (root / "drafts").mkdir(parents=True)
    (root / "drafts" / "ana.md").write_text("# Ana\n\none\n")
    with Brain.open(db_path) as b:
        eng = SyncEngine(b, root)
        eng.bind()
        eng.sync()
        (root / "drafts" / "ana.md").write_text("# Ana\n\none\ntwo\n")
        eng.sync()
        (root / "drafts").rename(root / "people")  # a folder rename: the page moves
        rep = eng.sync()
        assert rep["ok"] and b.page_row("people/ana") is not None and b.page_row("drafts/ana") is None
        (root / "people" / "ana.md").rename(root / "people" / "ana-lima.md")  # and the file again
        eng.sync()
        v = h.versions(b, "people/ana-lima", limit=0)
        texts = [h.version_bytes(b, "page", x.get("name", v["name"]), x["version"]) for x in v["versions"] if x["size"] and x["op"] != "delete"]
        assert texts[-2:] == [b"# Ana\n\none\ntwo\n", b"# Ana\n\none\n"]  # the versions written as drafts/ana
        assert {x.get("name") for x in v["versions"]} == {None, "people/ana", "drafts/ana"}
        assert v["total"] == len(v["versions"])
        d = h.diff(b, "people/ana-lima")  # the newest against the one before it in `history`: the move's, same text
        assert d["diff"] == "" and d["from_name"] == "people/ana", d
        d = h.diff(b, "drafts/ana")  # the old name: its own last change
        assert d["added"] == 1 and d["removed"] == 0 and "+two" in d["diff"] and d["name"] == "drafts/ana"
        assert h.get_version(b, "people/ana-lima", 1)["content"] == "# Ana\n\none\ntwo\n"
        assert [x["version"] for x in h.versions(b, "drafts/ana")["versions"]]  # the old name keeps its own history
        eng.close()
    if not isinstance(db_path, str):  # the CLI prints the older versions with the name they are numbered under
        out = cli("history", "people/ana-lima", "--db", str(db_path)).stdout.decode()
        assert "  as drafts/ana, before it moved to people/ana (`gbrain get drafts/ana --version N`):" in out
        groups, nums = [], []  # every number shown once under its heading (was: two versions "1")
        for line in out.splitlines()[1:]:
            if line.startswith("  as "):
                groups.append(nums)
                nums = []
            elif line.strip()[:1].isdigit():
                nums.append(line.split()[0])
        groups.append(nums)
        assert len(groups) == 3 and all(len(g) == len(set(g)) for g in groups), out
        assert "+two" in cli("diff", "drafts/ana", "--db", str(db_path)).stdout.decode()


#: what the tests of a page renamed away and back (:func:`write_renames`) write first, as notes/a
RENAMED = "---\ntitle: A\n---\n# A\n\none\n"


def write_renames(b, *steps: str) -> None:
    """Put notes/a (:data:`RENAMED`), then each step in turn on the page where it is by then:
    ``"->SLUG"`` moves it to SLUG, any other text is appended to it."""
    slug = "notes/a"
    run(b, "put", slug=slug, content=RENAMED)
    for step in steps:
        if step.startswith("->"):
            run(b, "move", slug=slug, to=step[2:])
            slug = step[2:]
        else:
            run(b, "put", slug=slug, append=step)


def listing(b, slug: str, limit: int = 0, own=None) -> list[tuple]:
    """``(name, version, op, added, removed)`` of each version ``history slug --limit limit`` lists,
    newest first; ``name`` is the row's, ``own`` for a row without one."""
    return [(v.get("name", own), v["version"], v["op"], v["added"], v["removed"]) for v in h.versions(b, slug, limit=limit)["versions"]]


def assert_cut_listings_agree(b, slug: str, got: list[tuple], own=None) -> None:
    """A listing cut at each limit short of ``got`` (:func:`listing`, uncut) is its first rows:
    each line counted against the true version before it, listed or not."""
    for lim in range(1, len(got)):
        assert listing(b, slug, lim, own) == got[:lim], lim


def test_history_of_a_page_renamed_away_and_back_lists_its_versions_in_time_order(db_path):
    """Trial 65 (F3): put notes/a, append, move to notes/b, append, move back. `history notes/a`
    listed notes/b's versions as a block after notes/a's first one, so the line counts, each
    against the row listed next, were wrong (the create `+0 -4`, the move in `+9 -0`) and the
    header said notes/b's versions came "before it moved". Versions across names go in time order."""
    text = RENAMED
    with Brain.open(db_path) as b:
        write_renames(b, "two", "->notes/b", "three", "->notes/a")
        r = h.versions(b, "notes/a", limit=0)
        got = listing(b, "notes/a", own="notes/a")
        # (notes/a v3, its move away to notes/b, is not listed: the move in, notes/b v1, is; as of notes/b's v3)
        assert got == [("notes/a", 4, "move", 0, 0), ("notes/b", 2, "update", 2, 0), ("notes/b", 1, "move", 0, 0),
                       ("notes/a", 2, "update", 2, 0), ("notes/a", 1, "create", 6, 0)], got
        assert r["total"] == 5
        assert_cut_listings_agree(b, "notes/a", got, own="notes/a")
        out = ops.history._history_text(r, {})
        heads = [ln for ln in out.splitlines() if ln.startswith("  as ")]
        assert heads == ["  as notes/b, before it moved to notes/a (`gbrain get notes/b --version N`):",
                         "  as notes/a, before it moved to notes/b (`gbrain get notes/a --version N`):"], out
        d = h.diff(b, "notes/a")  # the version before the newest is notes/b's last, the text that moved back
        assert d["diff"] == "" and d["from_name"] == "notes/b", d
        assert h.diff(b, "notes/a", -2)["from_name"] == "notes/b"  # notes/b's append, not notes/a's
        assert "+three" in h.diff(b, "notes/a", -2)["diff"]
        assert h.get_version(b, "notes/a", 2)["content"] == text + "\ntwo\n"  # numbers stay each name's own
        assert h.get_version(b, "notes/b", 2)["content"].endswith("two\n\nthree\n")
        run(b, "revert", slug="notes/a", to=2)  # revert --to N: notes/a's own version 2
        assert b.get_text("notes/a") == text + "\ntwo\n"


def test_history_of_a_name_another_page_moved_onto_keeps_the_two_pages_apart(db_path):
    """Review of 0eb9e4b: notes/a moved to notes/b, then notes/c moved to notes/a. `history notes/a`
    (the name's history: both pages) interleaved the two pages' versions by time, each line count
    taken against the other page's text, under false headers ("as notes/a, before it moved to
    notes/c"). This page's versions come first in time order, the other page's after, labelled."""
    with Brain.open(db_path) as b:
        run(b, "put", slug="notes/a", content="# A\n\nP one\n")
        run(b, "put", slug="notes/c", content="# C\n\nQ one\n")
        run(b, "put", slug="notes/a", append="P two")
        run(b, "put", slug="notes/c", append="Q two")
        run(b, "move", slug="notes/a", to="notes/b")
        run(b, "move", slug="notes/c", to="notes/a")
        r = h.versions(b, "notes/a", limit=0)
        got = listing(b, "notes/a")
        assert got == [(None, 4, "move", 0, 0), ("notes/c", 2, "update", 2, 0), ("notes/c", 1, "create", 3, 0),
                       ("notes/a", 3, "move", 0, 0), ("notes/a", 2, "update", 2, 0), ("notes/a", 1, "create", 3, 0)], got
        assert_cut_listings_agree(b, "notes/a", got)
        heads = [ln for ln in ops.history._history_text(r, {}).splitlines() if ln.startswith("  as ")]
        assert heads == ["  as notes/c, before it moved to notes/a (`gbrain get notes/c --version N`):",
                         "  as notes/a, another page's, before this one moved in (`gbrain get notes/a --version N`):"], heads
        assert [v.get("name") for v in h.versions(b, "notes/b", limit=0)["versions"]] == [None, "notes/a", "notes/a"]


def test_history_of_a_page_moved_a_b_a_b_lists_every_version_across_its_names(db_path):
    """Review of 0eb9e4b: notes/a (create, 2 edits) moved to notes/b, edited, moved back to notes/a,
    edited, moved to notes/b again. `history notes/b` left out notes/a's first stretch (v1-v3):
    lineage's cycle guard stopped at the second notes/b, and notes/b v1 (the first move in) showed
    `+8 -0`, counted against nothing. Every version of the page, in time order, each counted
    against the version written before it; get --version, diff and revert --to keep working."""
    text = RENAMED
    with Brain.open(db_path) as b:
        write_renames(b, "two", "three", "->notes/b", "four", "->notes/a", "five", "->notes/b")
        r = h.versions(b, "notes/b", limit=0)
        got = listing(b, "notes/b", own="notes/b")
        assert got == [("notes/b", 4, "move", 0, 0), ("notes/a", 6, "update", 2, 0), ("notes/a", 5, "move", 0, 0),
                       ("notes/b", 2, "update", 2, 0), ("notes/b", 1, "move", 0, 0),
                       ("notes/a", 3, "update", 2, 0), ("notes/a", 2, "update", 2, 0), ("notes/a", 1, "create", 6, 0)], got
        assert r["total"] == 8  # (a move away is not listed, an older name's nor the key's own notes/b v3: the move in beside it is)
        assert_cut_listings_agree(b, "notes/b", got, own="notes/b")
        js = json.loads(cli("history", "notes/b", "--json", "--limit", "0", "--db", str(db_path)).stdout)
        assert [(v.get("name", "notes/b"), v["version"]) for v in js["versions"]] == [g[:2] for g in got], js
        out = ops.history._history_text(r, {})
        assert "+8 -0" not in out and "notes/a --version N" in out, out
        assert h.get_version(b, "notes/b", 2)["content"] == text + "\ntwo\n\nthree\n\nfour\n"  # numbers stay each name's own
        assert h.get_version(b, "notes/a", 1)["content"] == text
        assert h.version_bytes(b, "page", "notes/b", -7) == text.encode()  # counting back reaches notes/a's create
        assert "+five" in h.diff(b, "notes/b", -2)["diff"]  # notes/a's edit before the last move
        d = h.diff(b, "notes/b", -7)
        assert d["from_name"] == "notes/a" and "+two" in d["diff"] and "+five" in d["diff"], d
        assert "+four" in h.diff(b, "notes/b", 1, 2)["diff"]
        assert "+three" in h.diff(b, "notes/b", 2, from_name="notes/a")["diff"]  # notes/a's first stretch too
        assert h.diff(b, "notes/b", from_name="notes/a")["diff"] == ""  # (no number: its latest, v6, the text that moved)
        with pytest.raises(NotFound) as e:  # a number only notes/a has: both its stretches named
            h.get_version(b, "notes/b", 6)
        assert "(notes/a has versions 1 to 3, 5 to 6): `gbrain get notes/a --version 6`" in str(e.value), e.value
        run(b, "revert", slug="notes/b", to=2)  # revert --to N: notes/b's own version 2
        assert b.get_text("notes/b") == text + "\ntwo\n\nthree\n\nfour\n"


def test_history_of_a_page_renamed_away_and_back_keeps_apart_another_page_that_had_the_name_between(db_path):
    """X moved notes/a → notes/b; another page Y was written at notes/a and moved on to notes/y;
    X, edited, moved back to notes/a. `history notes/a` listed Y's versions among X's, under the
    header `as notes/a, before it moved to notes/b`, and counted each line against the other
    page's text: X's edit at notes/b `+3 -3` (against Y's; its own: `+1 -0`), Y's create `+1 -2`
    (against X's). Y's versions at the name go after X's, apart, as another page's (a name
    another page moved onto, `_moved_in_at`, alike), each counted against its own page's."""
    with Brain.open(db_path) as b:
        b.put("notes/a", "X one\nX two\n")
        b.move_page("notes/a", "notes/b")
        b.put("notes/a", "Y one\n")
        b.put("notes/a", "Y one\nY two\nY three\n")
        b.move_page("notes/a", "notes/y")
        b.put("notes/b", "X one\nX two\nX three\n")
        b.move_page("notes/b", "notes/a")
        r = h.versions(b, "notes/a", limit=0)
        got = listing(b, "notes/a")
        assert got == [(None, 6, "move", 0, 0), ("notes/b", 2, "update", 1, 0), ("notes/b", 1, "move", 0, 0), (None, 1, "create", 2, 0),
                       ("notes/a", 5, "move", 0, 0), ("notes/a", 4, "update", 2, 0), ("notes/a", 3, "create", 1, 0)], got
        assert r["total"] == len(got)
        assert_cut_listings_agree(b, "notes/a", got)
        heads = [ln.split(" (`")[0] for ln in ops.history._history_text(r, {}).splitlines() if ln.startswith("  as ")]
        assert heads == ["  as notes/b, before it moved to notes/a", "  as notes/a, before it moved to notes/b",
                         "  as notes/a, another page's, before this one moved in"], heads
        d = h.diff(b, "notes/a", -2)  # two back: X's move to notes/b, never one of Y's
        assert d["from_name"] == "notes/b" and "+X three" in d["diff"] and "Y " not in d["diff"], d
        assert h.version_bytes(b, "page", "notes/a", -3) == b"X one\nX two\n"  # counting back: X's own create, never Y's
        assert [(v.get("name"), v["version"]) for v in h.versions(b, "notes/y", limit=0)["versions"]] == [(None, 1), ("notes/a", 4), ("notes/a", 3)]


def test_history_of_a_page_renamed_away_and_back_keeps_apart_another_page_deleted_at_the_name_between(db_path):
    """Review of e03e6356: X moved notes/a → notes/b; another page Y was written at notes/a and
    deleted there (not moved on); X moved back to notes/a. `history notes/a` listed Y's versions
    among X's, without a name, Y's create counted against X's text (`+1 -2`) and X's edit at
    notes/b against Y's (`+3 -3`; its own: `+1 -0`), and `purge notes/a` took them: `_their_gaps` took X's newest stretch from the name's last move away,
    and Y left by a deletion. X's stretch starts at its move in; Y's go after, apart."""
    with Brain.open(db_path) as b:
        b.put("notes/a", "X one\nX two\n")
        b.move_page("notes/a", "notes/b")
        b.put("notes/a", "Y one\n")
        b.put("notes/a", "Y one\nY two\nY three\n")
        b.delete_page("notes/a")
        b.put("notes/b", "X one\nX two\nX three\n")
        b.move_page("notes/b", "notes/a")
        r = h.versions(b, "notes/a", limit=0)
        got = listing(b, "notes/a")
        assert got == [(None, 6, "move", 0, 0), ("notes/b", 2, "update", 1, 0), ("notes/b", 1, "move", 0, 0), (None, 1, "create", 2, 0),
                       ("notes/a", 5, "delete", 0, 0), ("notes/a", 4, "update", 2, 0), ("notes/a", 3, "create", 1, 0)], got
        assert r["total"] == len(got)
        assert_cut_listings_agree(b, "notes/a", got)
        assert h.version_bytes(b, "page", "notes/a", -3) == b"X one\nX two\n"  # counting back: X's own create, never Y's
        assert [sp[:2] for sp in h.page_spans(b.conn, "page", "notes/a")] == [("notes/a", 5), ("notes/b", 0), ("notes/a", 0)]


def test_history_of_a_page_that_moved_onto_a_name_twice_keeps_apart_the_page_there_before_it(db_path):
    """Review of e03e6356: X lived at notes/d and moved on to notes/x; Y moved notes/a → notes/d,
    back to notes/a, and onto notes/d again. `history notes/d` listed X's versions among Y's, without
    a name, and counted Y's create (notes/a v1) `+1 -2` against X's text: `_their_gaps` took the
    versions before the page's first stretch of the key for the name's whenever it came back, though
    that stretch began with a move in (one move in, `_moved_in_at`, listed them apart)."""
    with Brain.open(db_path) as b:
        b.put("notes/d", "X one\nX two\n")
        b.move_page("notes/d", "notes/x")
        b.put("notes/a", "Y one\n")
        b.move_page("notes/a", "notes/d")
        b.put("notes/d", "Y one\nY two\n")
        b.move_page("notes/d", "notes/a")
        b.move_page("notes/a", "notes/d")
        r = h.versions(b, "notes/d", limit=0)
        got = listing(b, "notes/d")
        assert got == [(None, 6, "move", 0, 0), ("notes/a", 3, "move", 0, 0), (None, 4, "update", 1, 0), (None, 3, "move", 0, 0),
                       ("notes/a", 1, "create", 1, 0), ("notes/d", 2, "move", 0, 0), ("notes/d", 1, "create", 2, 0)], got
        assert r["total"] == len(got)
        assert_cut_listings_agree(b, "notes/d", got)
        assert h.version_bytes(b, "page", "notes/d", -4) == b"Y one\n"  # counting back: Y's create, then X's


def test_history_of_a_renamed_page_deleted_and_restored_keeps_its_old_names(db_path):
    """Review of e03e6356: a page moved notes/a → notes/b, deleted, then restored (`restore`).
    `history notes/b` lost notes/a's versions (the walk back through the page's names stopped at
    the deletion: the restore, a create, is no move in) and counted its move in `+5 -0` against
    nothing. The restore brings back the same page: its history goes on through its old names."""
    with Brain.open(db_path) as b:
        b.put("notes/a", "one\n")
        b.put("notes/a", "one\ntwo\n")
        b.move_page("notes/a", "notes/b")
        b.put("notes/b", "one\ntwo\nthree\n")
        b.delete_page("notes/b")
        run(b, "restore", slug="notes/b")
        r = h.versions(b, "notes/b", limit=0)
        got = listing(b, "notes/b")
        assert got == [(None, 4, "create", 0, 0), (None, 3, "delete", 0, 0), (None, 2, "update", 1, 0), (None, 1, "move", 0, 0),
                       ("notes/a", 2, "update", 1, 0), ("notes/a", 1, "create", 1, 0)], got
        assert r["total"] == len(got)
        assert_cut_listings_agree(b, "notes/b", got)
        assert h.version_bytes(b, "page", "notes/b", -2) == b"one\ntwo\n"


def test_history_shows_each_move_of_a_page_renamed_a_b_a_b_c_once_whatever_name_is_asked(db_path):
    """A page moved a→b→a→b→c (an edit under each name). Each move is two rows, the move away at
    the old name and the move in at the new one; `history` lists the move in (`move from …`),
    and an older name's move away is not listed. But the name asked for listed its own move aways
    between its stretches: `history notes/b` showed `notes/b v3 move to notes/a` while notes/a's
    two moves away (v3, v6) were not, and `history notes/c` listed none of the four. Every stretch
    alike now: one row per move, its move in; the asked name's last row, the move that took the
    page on (`to notes/c`), stays, since no move in of it is listed. Counts against the true
    version before, header per stretch, total and every cut listing agree."""
    with Brain.open(db_path) as b:
        write_renames(b, "two", "->notes/b", "three", "->notes/a", "four", "->notes/b", "five", "->notes/c")
        page = [("notes/a", 1, "create", 6, 0), ("notes/a", 2, "update", 2, 0), ("notes/b", 1, "move", 0, 0), ("notes/b", 2, "update", 2, 0),
                ("notes/a", 4, "move", 0, 0), ("notes/a", 5, "update", 2, 0), ("notes/b", 4, "move", 0, 0), ("notes/b", 5, "update", 2, 0)]  # oldest first
        want = {
            "notes/c": [("notes/c", 1, "move", 0, 0)] + page[::-1],
            "notes/b": [("notes/b", 6, "move", 0, 0)] + page[::-1],  # (to notes/c: how the page left the name)
            "notes/a": [("notes/a", 6, "move", 0, 0)] + page[:6][::-1],  # (to notes/b)
        }
        for key, rows in want.items():
            r = h.versions(b, key, limit=0)
            got = listing(b, key, own=key)
            assert got == rows and r["total"] == len(rows), (key, got, r["total"])
            assert_cut_listings_agree(b, key, rows, own=key)
            heads = [ln.split(" (`")[0] for ln in ops.history._history_text(r, {}).splitlines() if ln.startswith("  as ")]
            names = [g[0] for g in rows]
            assert heads == [f"  as {n}, before it moved to {prev}" for prev, n in zip(names, names[1:]) if n != prev], (key, heads)
        for v in h.versions(b, "notes/b", limit=0)["versions"][1:]:  # every version listed holds text: a move in, an edit
            assert h.version_bytes(b, "page", v.get("name", "notes/b"), v["version"]).startswith(RENAMED.encode())


def test_diff_after_a_move_compares_with_the_version_before_it_and_old_numbers_are_named(tmp_path, db_path):
    """Trial (a git-kept vault moved into a folder): import, `tag a t1`, move a.md to sub/a.md, sync.
    `diff sub/a` compared the import (a@v1) with the newest and showed the tag as added, though
    a@v2 (listed just before the move in `history`) is byte-identical; `get sub/a --version 2`
    said "no version 2 … pruned ones are gone" though nothing was pruned (it is a's version 2),
    and `get a --version 2`, which `history` itself suggests, found sub/a by its suffix."""
    root = tmp_path / "v"
    root.mkdir()
    (root / "a.md").write_text("# A\n\nx\n")
    db = str(db_path)
    assert cli("--db", db, "import", str(root)).returncode == 0
    assert cli("--db", db, "tag", "a", "t1").returncode == 0
    assert cli("--db", db, "sync", str(root)).returncode == 0
    (root / "sub").mkdir()
    (root / "a.md").rename(root / "sub" / "a.md")
    assert cli("--db", db, "sync", str(root)).returncode == 0
    d = json.loads(cli("--db", db, "diff", "sub/a", "--json").stdout)
    assert (d["diff"], d["from_name"], d["from"], d["to"]) == ("", "a", 2, 1), d
    out = cli("--db", db, "diff", "sub/a").stdout.decode()
    assert out.startswith("version 2 of a and version 1 of sub/a are identical") and "`gbrain diff a`" in out, out
    assert cli("--db", db, "diff", "sub/a", "1").stdout.decode().startswith("versions 1 and 1 of sub/a are identical")
    tagged = cli("--db", db, "get", "a", "--version", "2")  # the old name's numbers, as `history sub/a` shows them
    assert tagged.returncode == 0 and "- t1" in tagged.stdout.decode(), tagged.stderr
    assert "+- t1" in cli("--db", db, "diff", "a").stdout.decode()  # the change before the move
    for args in (("get", "sub/a", "--version", "2"), ("diff", "sub/a", "1", "2")):
        r = cli("--db", db, *args)
        err = r.stderr.decode()
        assert r.returncode != 0 and "pruned" not in err and "`gbrain get a --version 2`" in err and "a has versions 1 to 2" in err, err


def test_a_version_no_name_of_a_moved_page_has_is_not_sent_to_an_old_name(tmp_path, db_path):
    """Trial 47: `get team/ana --version 999` (and brain_revert's `to: 999`) answered "the versions
    before it moved are numbered under the name it had then …: `gbrain get people/ana-lima-souza
    --version 999`", an old name that has versions 1 to 2: the hint sent the user to a second
    error. A number no name has is said to be none of them."""
    root = tmp_path / "v"
    root.mkdir()
    (root / "a.md").write_text("# A\n\nx\n")
    db = str(db_path)
    assert cli("--db", db, "sync", str(root)).returncode == 0
    assert cli("--db", db, "tag", "a", "t1").returncode == 0
    assert cli("--db", db, "sync", str(root)).returncode == 0
    (root / "sub").mkdir()
    (root / "a.md").rename(root / "sub" / "a.md")
    assert cli("--db", db, "sync", str(root)).returncode == 0
    for args in (("get", "sub/a", "--version", "9"), ("diff", "sub/a", "1", "9"), ("revert", "sub/a", "--to", "9")):
        r = cli("--db", db, *args)
        err = r.stderr.decode()
        assert r.returncode == 1 and "--version 9`" not in err and "`gbrain diff a N M`" not in err, err
        assert "sub/a has no version 9 (its own versions: 1 to 1; nor has a, the name it had before: versions 1 to 2" in err, err
    err = cli("--db", db, "get", "sub/a", "--version", "2").stderr.decode()  # a number an old name has: sent there, as before
    assert "`gbrain get a --version 2`" in err, err


def test_revert_new_name_to_an_old_names_number_names_the_revert_that_works(tmp_path, db_path):
    """Trial s59: a note renamed twice in the folder under watch (agent-loop → agent-loop-core →
    ideas/agent-loop-core); `revert ideas/agent-loop-core --to 23`, a number `history` lists under
    the first name, was refused naming `gbrain get concepts/agent-loop --version 23` and `gbrain
    diff …`, never the command that does what was asked: `revert concepts/agent-loop --to 23`
    brings that version back onto the renamed page. The hint names it; never while another page
    lives at the old name (a revert there would write that page)."""
    root = tmp_path / "v"
    root.mkdir()
    for n in ("a", "c"):
        (root / f"{n}.md").write_text(f"# {n.upper()}\n\nx\n")
    db = str(db_path)
    assert cli("--db", db, "sync", str(root)).returncode == 0
    for n in ("a", "c"):
        assert cli("--db", db, "tag", n, "t1").returncode == 0
    assert cli("--db", db, "sync", str(root)).returncode == 0
    (root / "sub").mkdir()
    for n, m in (("a", "b"), ("c", "d")):
        (root / f"{n}.md").rename(root / "sub" / f"{n}.md")
    assert cli("--db", db, "sync", str(root)).returncode == 0
    for n, m in (("a", "b"), ("c", "d")):
        (root / "sub" / f"{n}.md").rename(root / "sub" / f"{m}.md")
    (root / "c.md").write_text("# Another C\n")  # a new page at c's old name: a revert there would write it
    assert cli("--db", db, "sync", str(root)).returncode == 0
    r = cli("--db", db, "revert", "sub/b", "--to", "2")  # sub/b's own versions: 1 only; a has 1 to 2
    err = r.stderr.decode()
    assert r.returncode == 1 and "`gbrain get a --version 2`" in err and "`gbrain revert a --to 2`" in err, err
    ok = cli("--db", db, "revert", "a", "--to", "1")  # the hint's command: a's version 1 (untagged) back onto sub/b
    assert ok.returncode == 0 and "sub/b" in ok.stdout.decode(), (ok.stdout, ok.stderr)
    assert "t1" not in cli("--db", db, "get", "sub/b").stdout.decode()
    r = cli("--db", db, "revert", "sub/d", "--to", "2")
    err = r.stderr.decode()
    assert r.returncode == 1 and "`gbrain get c --version 2`" in err and "gbrain revert" not in err, err


def test_the_revert_hint_is_not_given_when_another_page_left_the_old_name_since(db_path):
    """The hint of trial s59 (`revert OLD --to N` brings it back onto NEW) was wrong when another
    page moved onto OLD after the page left it, and moved on: a → b, then c → a → d. `revert a
    --to 2` follows a's last move away, the other page's, and writes b's old text onto d. The
    hint names it only when the revert would go onto the page asked about."""
    db = str(db_path)
    for args, text in ((("put", "a"), "# P\n\nv1\n"), (("put", "a"), "# P\n\nv2\n"), (("move", "a", "b"), None),
                       (("put", "c"), "# Q\n\nq1\n"), (("move", "c", "a"), None)):
        assert cli("--db", db, *args, input=text).returncode == 0
    r = cli("--db", db, "revert", "b", "--to", "2")  # b's own version is 1, its move in: 2 is a's (a lives: no revert hint)
    assert r.returncode == 1 and "`gbrain get a --version 2`" in r.stderr.decode() and "gbrain revert" not in r.stderr.decode(), r.stderr
    assert cli("--db", db, "move", "a", "d").returncode == 0
    r = cli("--db", db, "revert", "b", "--to", "2")
    err = r.stderr.decode()
    assert r.returncode == 1 and "`gbrain get a --version 2`" in err and "gbrain revert" not in err, err
    assert cli("--db", db, "get", "d").stdout.decode() == "# Q\n\nq1\n"


def test_revert_of_a_renamed_page_by_its_old_name_goes_onto_the_page_not_into_a_copy(tmp_path, db_path):
    """A trial renamed a note twice under watch, then `revert OLD --to 1`: it made a second copy
    at the old path (and the alias became ambiguous). The old name's version now goes back onto
    the page under its new name."""
    root = tmp_path / "vault"
    root.mkdir()
    (root / "cafe.md").write_text("---\naliases: [Coffee log]\n---\none\n")
    with Brain.open(db_path) as b:
        eng = SyncEngine(b, root)
        eng.bind()
        eng.sync()
        (root / "cafe.md").write_text("---\naliases: [Coffee log]\n---\none\ntwo\n")
        eng.sync()
        (root / "cafe.md").rename(root / "coffee.md")
        eng.sync()
        (root / "coffee.md").rename(root / "coffee-shops.md")
        eng.sync()
        r = ops.run("revert", {"slug": "cafe", "to": 1}, brain=b)
        assert r["slug"] == "coffee-shops" and r["moved_from"] == "cafe" and r["changed"], r
        assert b.page_row("cafe") is None and b.get_text("coffee-shops") == "---\naliases: [Coffee log]\n---\none\n"
        assert b.resolve_slug("Coffee log")["slug"] == "coffee-shops"  # one page has the alias
        eng.close()


def test_revert_of_a_moved_attachment_by_its_old_path_goes_onto_the_file_not_into_a_copy(tmp_path, db_path):
    """Trial 41: `assets/` renamed to `media/` under watch, then `revert assets/big.bin --to 1`
    wrote a second copy at `assets/big.bin` (the renamed-away folder came back). A file's old
    path, like a page's old name, now brings its version back onto the file where it is now."""
    root = tmp_path / "vault"
    (root / "assets").mkdir(parents=True)
    (root / "assets" / "big.bin").write_bytes(b"\x00\xffone")
    with Brain.open(db_path) as b:
        eng = SyncEngine(b, root)
        eng.bind()
        eng.sync()
        (root / "assets" / "big.bin").write_bytes(b"\x00\xfftwo")
        eng.sync()
        (root / "assets").rename(root / "media")
        eng.sync()
        (root / "media").rename(root / "Media Files")
        eng.sync()
        r = ops.run("revert", {"slug": "assets/big.bin", "to": 1}, brain=b)
        assert r["path"] == "Media Files/big.bin" and r["moved_from"] == "assets/big.bin" and r["changed"], r
        assert [x[0] for x in b.conn.execute("SELECT path FROM files")] == ["Media Files/big.bin"]
        assert file_bytes(b.conn, "Media Files/big.bin") == b"\x00\xffone"
        assert "version 1 of assets/big.bin (renamed to this file since)" in ops.find("revert").text(r, {})
        eng.sync()
        assert not (root / "assets").exists() and not (root / "media").exists()
        assert (root / "Media Files" / "big.bin").read_bytes() == b"\x00\xffone"
        eng.close()


def test_revert_to_a_version_whose_links_name_nothing_now_says_so(tmp_path, db_path):
    """Trial 41: a note moved into a subfolder (Obsidian rewrote its `../assets/…` embed) and its
    attachments' folder renamed; `revert OLD --to 1` brought back the old text (byte for byte, as
    it must), whose relative embed and renamed `![[Pasted image …]]` name no file now, and said
    nothing: only `lint --check dead_attachments` showed them. The revert now warns of the links
    it brought back that name nothing (not those the replaced text had too)."""
    root = tmp_path / "vault"
    (root / "notes").mkdir(parents=True)
    (root / "assets").mkdir()
    (root / "assets" / "x.png").write_bytes(b"\x89PNGx")
    (root / "Pasted image 1.png").write_bytes(b"\x89PNGp")
    (root / "notes" / "a.md").write_text("# A\n\n![](../assets/x.png)\n![[Pasted image 1.png]]\n[[nowhere]]\n")
    with Brain.open(db_path) as b:
        eng = SyncEngine(b, root)
        eng.bind()
        eng.sync()
        (root / "assets").rename(root / "media")
        (root / "Pasted image 1.png").rename(root / "sketch.png")
        (root / "notes" / "sub").mkdir()
        (root / "notes" / "a.md").rename(root / "notes" / "sub" / "a.md")
        (root / "notes" / "sub" / "a.md").write_text("# A\n\n![](../../media/x.png)\n![[sketch.png]]\n[[nowhere]]\n")
        eng.sync()
        warned: list[str] = []
        r = ops.run("revert", {"slug": "notes/a", "to": 1}, ops.Context(surface="cli", on_warning=warned.append), brain=b)
        assert r["slug"] == "notes/sub/a" and r["changed"], r
        assert len(warned) == 1, warned
        w = warned[0]
        assert "2 link(s)" in w and "'../assets/x.png' (moved to media/x.png)" in w and "Pasted image 1.png" in w and "nowhere" not in w, w
        assert "sketch.png" in w and "gbrain lint --check dead_links,dead_attachments --slug notes/sub/a" in w, w
        warned.clear()  # reverting back: its links all name files
        ops.run("revert", {"slug": "notes/sub/a", "to": 2}, ops.Context(surface="cli", on_warning=warned.append), brain=b)
        assert warned == [], warned
        eng.close()


def test_restore_of_a_deleted_attachment_by_its_file_name_or_a_path_end(db_path):
    """Trial 41: a PDF deleted in the vault (Obsidian's trash) was listed by `gbrain trash` as
    media/papers/hermes-agent.pdf, but `gbrain restore hermes-agent.pdf` (the name `backlinks`
    takes) and `restore papers/hermes-agent.pdf` said "nothing named … in the trash", while a
    page's unique suffix restores. A file's unique name or path end restores it too; a name
    two deleted files have is refused naming both."""
    with Brain.open(db_path) as b:
        b.save_file("media/papers/hermes-agent.pdf", b"%PDF-1.4\n\xe2one")
        b.save_file("a/fig.png", b"\x89PNG1")
        b.save_file("b/fig.png", b"\x89PNG2")
        for p in ("media/papers/hermes-agent.pdf", "a/fig.png", "b/fig.png"):
            b.delete_file(p)
        assert run(b, "restore", slug="hermes-agent.pdf")["path"] == "media/papers/hermes-agent.pdf"
        b.delete_file("media/papers/hermes-agent.pdf")
        assert run(b, "restore", slug="Papers/Hermes-Agent.pdf")["restored"] == ["media/papers/hermes-agent.pdf"]
        assert file_bytes(b.conn, "media/papers/hermes-agent.pdf") == b"%PDF-1.4\n\xe2one"
        with pytest.raises(NotFound, match="a/fig.png, b/fig.png"):
            run(b, "restore", slug="fig.png")
        with pytest.raises(NotFound, match="nothing named 'agent.pdf'"):  # a path end, not a part of a name
            run(b, "restore", slug="agent.pdf")


def test_restore_by_another_case_of_a_non_ascii_name_and_no_wildcards(db_path):
    """Review of 500ce5e: "any case" was SQL's lower(), which on SQLite folds ASCII letters
    only (Postgres folds every letter): `restore été.pdf` of a deleted `media/Été.pdf` found
    nothing on SQLite and restored it on Postgres; and a page's name went into LIKE unescaped,
    so `restore a_b` restored the deleted page notes/a-b (``_`` is any one character there)."""
    with Brain.open(db_path) as b:
        b.save_file("media/Été Notes.pdf", b"%PDF-1.4 ete")
        b.delete_file("media/Été Notes.pdf")
        assert run(b, "restore", slug="été notes.pdf")["restored"] == ["media/Été Notes.pdf"]
        b.delete_file("media/Été Notes.pdf")
        assert run(b, "restore", slug="MEDIA/ÉTÉ NOTES.PDF")["restored"] == ["media/Été Notes.pdf"]
        b.put("notes/Ørsted", "# Ørsted\n")
        b.delete_page("notes/Ørsted")
        assert run(b, "restore", slug="ørsted")["slug"] == "notes/Ørsted"
        b.put("notes/a-b", "# A b\n")
        b.delete_page("notes/a-b")
        for wild in ("a_b", "a%", "%"):
            with pytest.raises(NotFound, match="nothing named"):
                run(b, "restore", slug=wild)
        assert run(b, "restore", slug="A-B")["slug"] == "notes/a-b"


@pytest.mark.engine_free
def test_prune_dry_run_then_apply_keeps_current_and_deleted_last_text(tmp_path):
    with Brain.open(tmp_path / "brain.db") as b:
        for i in range(5):
            b.put("a", f"a{i}\n")
        for i in range(3):
            b.put("gone", f"g{i}\n")
        run(b, "delete", slug="gone")
        with pytest.raises(BadInput):
            run(b, "history-prune")
        with pytest.raises(BadInput):  # history --prune is history-prune: it needs a rule too
            run(b, "history", slug="a", prune=True)
        with pytest.raises(BadInput):  # a rule without --prune is a mistake, not a listing
            run(b, "history", slug="a", keep_last=1)
        dry = run(b, "history-prune", keep_last=1)
        assert dry["applied"] is False and dry["versions"] == 4 + 2
        assert len(h.versions(b, "a", limit=0)["versions"]) == 5  # nothing went
        b.set_config("history_keep_last", "2")
        done = run(b, "history-prune", apply=True)
        assert done["applied"] and done["versions"] == 3 + 2
        assert [v["version"] for v in h.versions(b, "a", limit=0)["versions"]] == [5, 4]
        assert run(b, "get", slug="a", version=4)["content"] == "a3\n"
        assert [v["version"] for v in h.versions(b, "gone", limit=0)["versions"]] == [4, 3]
        run(b, "revert", slug="gone", to=3)
        assert b.get_text("gone") == "g2\n"
        # days: nothing is older than a day
        assert run(b, "history-prune", keep_days=1)["versions"] == 0
        n = b.conn.execute("SELECT COUNT(*) FROM history_bodies").fetchone()[0]
        assert n == b.conn.execute("SELECT COUNT(DISTINCT body_id) FROM history").fetchone()[0]


@pytest.mark.engine_free
def test_history_prune_spelling_of_the_issue_with_config_defaults(tmp_path):
    """`gbrain history --prune --keep-days N --keep-last K` (issue 12's spelling) is history-prune:
    a dry run first, --apply to do it; with a SLUG only that page's history, without one the
    whole brain; the config defaults history_keep_days / history_keep_last are used when the
    options are not given (a version goes when older than the days AND beyond the newest K)."""
    db = str(tmp_path / "brain.db")
    with Brain.open(db) as b:
        for i in range(4):
            b.put("a", f"a{i}\n")
            b.put("b", f"b{i}\n")
    n = lambda slug: len(json.loads(cli("--db", db, "history", slug, "--limit", "0", "--json").stdout)["versions"])  # noqa: E731
    r = cli("--db", db, "history", "--prune", "--keep-days", "0", "--keep-last", "2")
    assert r.returncode == 0 and r.stdout.decode().startswith("dry run: pruning would remove 4 version(s)"), r.stderr
    assert (n("a"), n("b")) == (4, 4)  # the dry run removed nothing
    r = cli("--db", db, "history", "a", "--prune", "--keep-last", "1", "--apply", "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["versions"] == 3 and json.loads(r.stdout)["name"] == "a"
    assert (n("a"), n("b")) == (1, 4)  # only a's history
    assert cli("--db", db, "get", "a").stdout == b"a3\n"
    # config defaults: keep_days 1 keeps everything (nothing is a day old), whatever keep_last says
    assert cli("--db", db, "config", "set", "history_keep_days", "1").returncode == 0
    assert cli("--db", db, "config", "set", "history_keep_last", "1").returncode == 0
    r = json.loads(cli("--db", db, "history", "--prune", "--apply", "--json").stdout)
    assert (r["keep_days"], r["keep_last"], r["versions"]) == (1, 1, 0)
    assert cli("--db", db, "config", "set", "history_keep_days", "0").returncode == 0
    r = json.loads(cli("--db", db, "history", "--prune", "--json").stdout)
    assert (r["keep_days"], r["keep_last"], r["versions"], r["applied"]) == (0, 1, 3, False)
    r = json.loads(cli("--db", db, "history", "--prune", "--keep-last", "2", "--apply", "--json").stdout)  # an option beats the config
    assert (r["keep_days"], r["keep_last"], r["versions"], r["applied"]) == (0, 2, 2, True)
    assert (n("a"), n("b")) == (1, 2)
    # the same through the registry's other surfaces: MCP/call get history_prune (history has no prune there)
    with Brain.open(db) as b:
        assert "prune" not in ops.find("history").input_schema()["properties"]
        assert run(b, "history-prune", slug="b", keep_last=1, surface="tool")["versions"] == 1
    for bad in (["history"], ["history", "a", "--keep-last", "1"]):
        r = cli("--db", db, *bad)
        assert r.returncode == 2 and r.stderr.decode().startswith("error:"), bad


@pytest.mark.engine_free
def test_prune_keeps_a_deleted_pages_last_text_unless_asked(tmp_path):
    """keep_days 0 (everything is old): a deleted page's last text and its deletion stay, and it
    stays in the trash; --include-deleted prunes them (dry run first); the current version of a
    live page stays whatever is asked."""
    db = str(tmp_path / "brain.db")
    with Brain.open(db) as b:
        for i in range(3):
            b.put("live", f"l{i}\n")
            b.put("gone", f"g{i}\n")
        run(b, "delete", slug="gone")
        done = run(b, "history-prune", keep_days=0, apply=True)
        assert done["versions"] == 2 + 2 and done["deleted_keys"] == 0
        assert [v["op"] for v in h.versions(b, "gone", limit=0)["versions"]] == ["delete", "update"]
        assert [t["slug"] for t in run(b, "trash")] == ["gone"]
    dry = cli("--db", db, "history-prune", "--keep-days", "0", "--include-deleted")
    out = dry.stdout.decode()
    assert dry.returncode == 0 and out.startswith("dry run: pruning would remove 2 version(s)") and "1 deleted page(s)/file(s) leave the trash" in out
    assert json.loads(cli("--db", db, "trash", "--json").stdout)[0]["slug"] == "gone"  # the dry run removed nothing
    r = cli("--db", db, "history-prune", "--keep-days", "0", "--include-deleted", "--apply", "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["deleted_keys"] == 1
    with Brain.open(db) as b:
        assert run(b, "trash") == [] and b.get_text("live") == "l2\n"
        assert [v["version"] for v in h.versions(b, "live", limit=0)["versions"]] == [3]
        with pytest.raises(NotFound):
            h.versions(b, "gone")
        assert b.conn.execute("SELECT COUNT(*) FROM history_bodies").fetchone()[0] == 1


@pytest.mark.engine_free
def test_a_v3_brain_gets_its_pages_as_version_one(tmp_path):
    from gbrain.storage import db as dbmod

    p = tmp_path / "old.db"
    c = sqlite3.connect(p, isolation_level=None)
    for m in dbmod.MIGRATIONS[:3]:
        m(c)
    c.execute("PRAGMA user_version = 3")
    text = "\ufeff---\ntitle: Old\n---\nbody\n"
    c.execute("INSERT INTO pages(slug, slug_key, name_key, path, type, title, compiled_truth, frontmatter_raw, bom, content_hash, size) VALUES "
              "('old', 'old', 'old', 'old.md', 'note', 'Old', 'body\n', '---\ntitle: Old\n---\n', 1, ?, ?)",
              (h.hashlib_sha(text), len(text.encode())))
    c.close()
    with Brain.open(p) as b:
        v = h.versions(b, "old")["versions"]
        assert [(x["version"], x["op"]) for x in v] == [(1, "baseline")]
        assert run(b, "get", slug="old", version=1)["content"] == text == render_row(b.page_row("old"))


@pytest.mark.engine_free
def test_v7_moves_the_old_trash_into_history_losing_nothing(tmp_path, monkeypatch):
    """A brain made with the v6 schema (history and a sync_trash table) holding trash rows of
    every kind the old code wrote: after migration v7 the table is gone, every trashed body is
    a version of its page or file, the trash lists the same entries and restore works."""
    from gbrain.storage import db as dbmod

    p = tmp_path / "old.db"
    monkeypatch.setattr(dbmod, "MIGRATIONS", dbmod.MIGRATIONS[:6])
    monkeypatch.setattr(dbmod, "SCHEMA_VERSION", 6)
    rows = []  # what the old code put in sync_trash: (path, slug, kind, data, reason)

    def old_trash(b, path, slug, kind, data, reason):
        b.conn.execute("INSERT INTO sync_trash(path, slug, kind, data, content_hash, reason, deleted_at) VALUES (?, ?, ?, ?, ?, ?, '2025-01-02T03:04:05Z')",
                       (path, slug, kind, data, h.hashlib_sha(data), reason))
        rows.append((path, slug, kind, data, reason))

    with Brain.open(p) as b:
        assert b.conn.execute("PRAGMA user_version").fetchone()[0] == 6
        writable_by_this_gbrain(b.conn)
        b.put("people/ana", "ana 1\n"); b.put("people/ana", "ana 2\n")
        old_trash(b, "people/ana.md", "people/ana", "page", b"ana 2\n", "replaced by import")  # in history already
        b.put("people/ana", "ana 3\n")
        b.put("notes/gone", "gone 1\n")
        old_trash(b, "notes/gone.md", "notes/gone", "page", b"gone 1\n", "deleted through gbrain")
        ops.run("delete", {"slug": "notes/gone"}, brain=b)
        old_trash(b, "old/pre.md", "old/pre", "page", b"deleted before history\n", "file deleted")  # no history at all
        old_trash(b, "people/.raw/x.json", None, "raw", b'{"a": 1}\n', "file deleted")
        b.put("people/bo", "bo now\n")
        old_trash(b, "people/bo.md", "people/bo", "page", b"bo before history\n", "replaced by import")
        old_trash(b, "old/twice.md", "old/twice", "page", b"twice 1\n", "file deleted")
        old_trash(b, "old/twice.md", "old/twice", "page", b"twice 2\n", "file deleted")
        old_trash(b, "notes/bin.png", None, "blob", b"\x89PNG\x00\xff", "deleted in brain")
    monkeypatch.undo()
    with Brain.open(p) as b:
        c = b.conn
        assert c.execute("PRAGMA user_version").fetchone()[0] == len(dbmod.MIGRATIONS)
        assert not c.execute("SELECT 1 FROM sqlite_master WHERE name = 'sync_trash'").fetchone()
        for path, slug, kind, data, reason in rows:  # every trashed body is a version of its key
            k, name = ("page", slug) if slug else ("file", path)
            bodies = [h.body(c, r[0]) for r in c.execute("SELECT body_id FROM history WHERE kind = ? AND name = ? AND body_id IS NOT NULL", (k, name))]
            assert data in bodies, (name, data)
        # live pages: the current text is still the newest version
        for slug, text in (("people/ana", "ana 3\n"), ("people/bo", "bo now\n")):
            assert b.get_text(slug) == text == run(b, "get", slug=slug, version=h.versions(b, slug)["versions"][0]["version"])["content"]
        trash = {(t["slug"] or t["path"], t["deleted"]): t for t in run(b, "trash", limit=0)}
        assert set(trash) == {("notes/gone", True), ("old/pre", True), ("people/.raw/x.json", True), ("old/twice", True), ("notes/bin.png", True),
                              ("people/ana", False), ("people/bo", False), ("old/twice", False)}  # its first deletion's text
        assert trash[("old/pre", True)]["reason"] == "file deleted" and trash[("old/pre", True)]["deleted_at"].startswith("2025-01-02T03:04:05")
        assert run(b, "get", slug="old/twice", version=trash[("old/twice", False)]["version"])["content"] == "twice 1\n"
        assert trash[("people/ana", False)]["version"] == 2 and trash[("people/ana", False)]["reason"] == "replaced by import"
        assert run(b, "get", slug="people/bo", version=trash[("people/bo", False)]["version"])["content"] == "bo before history\n"
        # restore brings back the newest trashed text of each deleted one
        assert run(b, "restore", slug="old/twice")["restored"] == ["old/twice.md"] and b.get_text("old/twice") == "twice 2\n"
        assert run(b, "restore", slug="pre")["path"] == "old/pre.md" and b.get_text("old/pre") == "deleted before history\n"
        run(b, "restore", slug="notes/bin.png")
        assert bytes(c.execute("SELECT data FROM files WHERE path = 'notes/bin.png'").fetchone()[0]) == b"\x89PNG\x00\xff"
        from gbrain.errors import Conflict
        with pytest.raises(Conflict, match="revert people/ana"):
            run(b, "restore", slug="people/ana")


# ---------------------------------------------------------------------------
# property: whatever sequence of writes, from whatever surface, every version seen comes back
# ---------------------------------------------------------------------------

from hypothesis import HealthCheck, example, given, settings, strategies as st  # noqa: E402

TEXT = st.lists(st.sampled_from(list("ab \n-*#:é\r\t✓") + ["---\n", "\ufeff", "title: x\n", "- **2024-01-02** | m — e\n"]), max_size=20).map("".join)
SURFACES = st.sampled_from(["cli", "mcp", "pipe", "call"])
STEP = st.one_of(
    st.tuples(st.just("put"), st.sampled_from(["n/a", "n/b"]), TEXT, SURFACES),
    st.tuples(st.just("truth"), st.sampled_from(["n/a", "n/b"]), TEXT.filter(lambda t: "---" not in t), SURFACES),
    st.tuples(st.just("tag"), st.sampled_from(["n/a", "n/b"]), st.sampled_from(["x", "y"]), SURFACES),
    st.tuples(st.just("timeline"), st.sampled_from(["n/a", "n/b"]), st.sampled_from(["met", "call"]), SURFACES),
    st.tuples(st.just("delete"), st.sampled_from(["n/a", "n/b"]), st.just(""), SURFACES),
    st.tuples(st.just("revert"), st.sampled_from(["n/a", "n/b"]), st.integers(1, 30), SURFACES),
    st.tuples(st.just("file"), st.sampled_from(["n/a", "n/b"]), TEXT, st.just("sync")),
    st.tuples(st.just("truncate"), st.sampled_from(["n/a", "n/b"]), st.just(""), st.just("sync")),
    st.tuples(st.just("sync"), st.just("n/a"), st.just(""), st.sampled_from(["sync", "watch"])),
    st.tuples(st.just("untag"), st.sampled_from(["n/a", "n/b"]), st.sampled_from(["x", "y"]), SURFACES),
    st.tuples(st.just("link"), st.sampled_from(["n/a", "n/b"]), st.sampled_from(["met at the fair", ""]), SURFACES),
    st.tuples(st.just("unlink"), st.sampled_from(["n/a", "n/b"]), st.just(""), SURFACES),
    st.tuples(st.just("raw"), st.sampled_from(["n/a", "n/b"]), st.integers(0, 3), SURFACES),
    st.tuples(st.just("restore"), st.sampled_from(["n/a", "n/b"]), st.just(""), SURFACES),
    st.tuples(st.just("import"), st.sampled_from(["n/a", "n/b"]), TEXT, st.just("import")),
)


@pytest.mark.engine_free
@settings(max_examples=int(os.environ.get("GBRAIN_HISTORY_EXAMPLES", "15")), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(STEP, min_size=1, max_size=14))
# a one-line note with no line break edited on both sides (a line break added through gbrain):
# sync died with a RecursionError in merge_edits (found by a seed sweep, 2026-12-04)
@example([("file", "n/a", "a", "sync"), ("put", "n/a", "a\n", "cli"), ("file", "n/a", "b", "sync")])
# a sync that deletes the folder's last note removes the emptied folder (docs/sync.md): the
# next "file" step saves into a folder that is gone, as an editor making it anew would
@example([("file", "n/a", "", "sync"), ("delete", "n/a", "", "cli"), ("truncate", "n/a", "", "sync"), ("file", "n/a", "", "sync")])
def test_property_every_version_comes_back_byte_for_byte(steps):
    import tempfile

    from gbrain.errors import GBrainError

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "notes"
        (root / "n").mkdir(parents=True)
        b = Brain.open(Path(tmp) / "brain.db")
        eng = SyncEngine(b, root)
        eng.bind()
        seen: dict[str, list[bytes]] = {"n/a": [], "n/b": []}
        raws: dict[str, list[bytes]] = {}  # sidecar path -> every version it had

        def note(slug):
            r = b.page_row(slug)
            if r is not None:
                seen[slug].append(render_row(r).encode("utf-8"))
            for path, data in b.conn.execute("SELECT path, data FROM files WHERE kind = 'raw'"):
                raws.setdefault(path, []).append(bytes(data))

        for kind, slug, arg, surface in steps:
            try:
                if kind == "put":
                    run(b, "put", surface, slug=slug, content=arg)
                elif kind == "truth":
                    run(b, "put", surface, slug=slug, compiled_truth=arg or "x")
                elif kind == "tag":
                    run(b, "tag", surface, slug=slug, tag=arg)
                elif kind == "timeline":
                    run(b, "timeline-add", surface, slug=slug, date="2024-05-06", summary=arg)
                elif kind == "delete":
                    run(b, "delete", surface, slug=slug)
                elif kind == "revert":
                    run(b, "revert", surface, slug=slug, to=arg)
                elif kind == "file":
                    (root / "n").mkdir(exist_ok=True)  # a sync removes the folder its last delete emptied
                    (root / (slug + ".md")).write_bytes(arg.encode("utf-8"))
                    eng.sync()
                elif kind == "truncate":
                    p = root / (slug + ".md")
                    if p.exists():
                        p.write_bytes(b"")
                    eng.sync()
                elif kind == "untag":
                    run(b, "untag", surface, slug=slug, tag=arg)
                elif kind == "link":
                    other = "n/b" if slug == "n/a" else "n/a"
                    run(b, "link", surface, **{"from": slug, "to": other, **({"context": arg} if arg else {})})
                elif kind == "unlink":
                    run(b, "unlink", surface, **{"from": slug, "to": "n/b" if slug == "n/a" else "n/a"})
                elif kind == "raw":
                    run(b, "raw", surface, slug=slug, source="crm", data={"v": arg})
                elif kind == "restore":
                    run(b, "restore", surface, slug=slug)
                elif kind == "import":  # a file imported over the page (the brain's version is replaced)
                    from gbrain.sync.importer import import_tree

                    other = Path(tmp) / "other"
                    (other / "n").mkdir(parents=True, exist_ok=True)
                    (other / (slug + ".md")).write_bytes(arg.encode("utf-8"))
                    import_tree(b, other)
                else:
                    eng.surface = surface  # the engine a watcher runs, as the watcher labels it
                    eng.sync()
            except GBrainError:
                pass  # a refused write (no such page, no such version, an edit the page's shape defeats)
            for s in seen:
                note(s)
        eng.close()
        for slug, texts in seen.items():
            if not texts:
                continue
            hist = h.versions(b, slug, limit=0)["versions"]
            have = {}
            for v in hist:
                if v["op"] == "delete" or (v["op"] == "move" and v["size"] == 0):
                    continue
                have.setdefault(h.body(b.conn, h._version_row(b, "page", slug, v["version"])["body_id"]), v["version"])
            for t in texts:
                assert t in have, (slug, t)
            for t in set(texts):
                try:
                    run(b, "revert", "cli", slug=slug, to=have[t])
                except GBrainError as e:  # only when the slug's path is now taken by another kind
                    assert "is a non-page file" in str(e) or "cannot also be" in str(e), e
                    continue
                assert render_row(b.page_row(slug)).encode("utf-8") == t
        for path, datas in raws.items():  # the .raw sidecars: every version too, and revert
            hist = h.versions(b, path, limit=0)["versions"]
            have = {h.version_bytes(b, "file", path, v["version"]): v["version"] for v in hist if v["op"] != "delete" and v["size"]}
            for d in datas:
                assert d in have, (path, d)
            for d in set(datas):
                run(b, "revert", "cli", slug=path, to=have[d])
                assert bytes(b.conn.execute("SELECT data FROM files WHERE path = ?", (path,)).fetchone()[0]) == d
        b.close()


_BYTES = st.binary(max_size=600) | st.text(max_size=400).map(lambda t: t.encode("utf-8"))


@pytest.mark.engine_free
@settings(max_examples=300, deadline=None)
@given(_BYTES, _BYTES, st.integers(0, 3), st.booleans())
def test_pack_round_trips_every_body_against_every_base(base, body, reps, chain):
    """Every encoding gb_pack picks (x: shared prefix/suffix + the changed span, d, z, r) gives the
    exact bytes back from the body it was packed against, also along a chain of bases."""
    base, body = base * (reps + 1), body * (reps + 1)
    assert h._unpack_one(h.pack(body, None), None) == body
    packed = h.pack(body, base)
    assert h._unpack_one(packed, base) == body
    if chain:
        third = body[: len(body) // 2] + b"+" + body[len(body) // 2:]
        assert h._unpack_one(h.pack(third, body), h._unpack_one(packed, base)) == third
    assert len(packed) <= len(body) + 1


@pytest.mark.engine_free
def test_a_one_place_edit_is_stored_as_the_changed_span():
    """The common edit (one line changed in a page) costs about the changed bytes, not the page."""
    old = ANA.encode() * 20
    new = old.replace(b"Met Ana", b"Met Ana again", 1)
    packed = h.pack(new, old)
    assert packed[:1] == b"x" and len(packed) < 40
    assert h._unpack_one(packed, old) == new
    long_span = old[:100] + bytes(range(256)) * 4 + old[100:]
    p2 = h.pack(long_span, old)
    assert p2[:1] == b"x" and h._unpack_one(p2, old) == long_span


def test_get_output_writes_a_binary_version_exactly_and_never_over_a_file(tmp_path, db_path):
    """Trial: `get media/big.pdf --version 1` said "binary … not text", and there was no way to
    read an old attachment version without reverting. `get --output FILE` (CLI) writes the exact
    bytes of the current file, a version or a page; an existing FILE only with --force; MCP
    stays text-only and its error names the CLI's --output."""
    root = tmp_path / "v"
    (root / "media").mkdir(parents=True)
    v1, v2 = bytes(range(256)) * 40 + b"\xff\xfe", b"%PDF\x00\x01 new"
    (root / "media" / "big.pdf").write_bytes(v1)
    (root / "p.md").write_bytes(b"\xef\xbb\xbf# P\r\n\r\nx\r\n")
    db = str(db_path)
    assert cli("--db", db, "import", str(root)).returncode == 0
    (root / "media" / "big.pdf").write_bytes(v2)
    assert cli("--db", db, "sync", str(root)).returncode == 0
    r = cli("--db", db, "get", "media/big.pdf", "--version", "1")
    assert r.returncode == 2 and "--output FILE" in r.stderr.decode(), r.stderr
    out = tmp_path / "out"
    r = cli("--db", db, "get", "media/big.pdf", "--version", "1", "--output", str(out / "v1.pdf"))
    assert r.returncode == 0 and (out / "v1.pdf").read_bytes() == v1, r.stderr
    assert r.stdout.decode() == f"wrote {len(v1):,} bytes of media/big.pdf (version 1) to {out / 'v1.pdf'} (created the folder {out})\n"
    assert cli("--db", db, "get", "media/big.pdf", "--output", str(out / "cur.pdf")).returncode == 0
    assert (out / "cur.pdf").read_bytes() == v2
    assert cli("--db", db, "get", "p", "--output", str(out / "p.md")).returncode == 0
    assert (out / "p.md").read_bytes() == (root / "p.md").read_bytes()
    r = cli("--db", db, "get", "media/big.pdf", "--version", "1", "--output", str(out / "cur.pdf"))  # no overwrite
    assert r.returncode == 2 and "exists" in r.stderr.decode() and (out / "cur.pdf").read_bytes() == v2
    r = cli("--db", db, "get", "media/big.pdf", "--version", "1", "--output", str(out / "cur.pdf"), "--force")
    assert r.returncode == 0 and (out / "cur.pdf").read_bytes() == v1
    assert sorted(x.name for x in out.iterdir()) == ["cur.pdf", "p.md", "v1.pdf"]  # no temporary file left
    with Brain.open(db_path) as b:  # agents: text only, and the error says where the bytes are
        with pytest.raises(BadInput, match="--output FILE.*MCP gives text only"):
            run(b, "get", surface="mcp", slug="media/big.pdf", version=1)


def test_get_output_writes_through_a_symlink_and_into_a_pipe(tmp_path, db_path, monkeypatch):
    """Researcher trial: `gbrain get papers/x.pdf --output /dev/stdout --force` (to pipe a PDF on)
    printed "wrote 52,428,812 bytes … to /dev/stdout" and put nothing on stdout: the temporary file
    took the name `/dev/stdout`, replacing the symlink to /proc/self/fd/1 by a 52 MB regular file
    (as root; anyone else got a permission error). A FILE that is a symlink is written through
    (with --force the file it points at takes the bytes, the link stays a link), and one that is no
    regular file (a pipe, a terminal, /dev/stdout) gets the bytes streamed into it, replacing
    nothing, the "wrote" line on stderr. Here a FIFO behind a symlink stands for /dev/stdout."""
    import threading

    root = tmp_path / "v"
    (root / "papers").mkdir(parents=True)
    data = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n" + bytes(range(256)) * 300
    (root / "papers" / "x.pdf").write_bytes(data)
    db = str(db_path)
    assert cli("--db", db, "import", str(root)).returncode == 0
    real = tmp_path / "real.pdf"
    real.write_bytes(b"old")
    link = tmp_path / "link.pdf"
    link.symlink_to(real)
    r = cli("--db", db, "get", "papers/x.pdf", "--output", str(link))  # an existing file behind it: --force
    assert r.returncode == 2 and "exists" in r.stderr.decode() and real.read_bytes() == b"old", r.stderr
    r = cli("--db", db, "get", "papers/x.pdf", "--output", str(link), "--force")
    assert r.returncode == 0, r.stderr
    assert link.is_symlink() and os.readlink(link) == str(real) and real.read_bytes() == data
    assert sorted(x.name for x in tmp_path.iterdir() if x.name.startswith(".")) == []  # no temporary file left

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    stdout_link = tmp_path / "stdout"  # as /dev/stdout -> /proc/self/fd/1
    stdout_link.symlink_to(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    try:
        r = cli("--db", db, "get", "papers/x.pdf", "--output", str(stdout_link), "--force")
    finally:
        reader.join(5)
        if reader.is_alive():  # nothing opened the pipe: let the reader go
            with open(fifo, "wb"):
                pass
            reader.join(5)
    assert stdout_link.is_symlink() and os.readlink(stdout_link) == str(fifo), "the link was replaced"
    assert r.returncode == 0 and got == [data], (r.stderr, [len(g) for g in got])
    assert r.stdout == b"" and f"wrote {len(data):,} bytes of papers/x.pdf to {stdout_link}".encode() in r.stderr, (r.stdout, r.stderr)
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()  # no --force needed: a pipe holds no file to replace
    try:
        r = cli("--db", db, "get", "papers/x.pdf", "--output", str(fifo))
    finally:
        reader.join(5)
        if reader.is_alive():
            with open(fifo, "wb"):
                pass
            reader.join(5)
    assert r.returncode == 0 and got[-1] == data and fifo.exists() and not fifo.is_file(), r.stderr
    monkeypatch.chdir(tmp_path)
    r = cli("--db", db, "get", "papers/x.pdf", "--output", "-")  # `-` is stdout, as pdftotext takes it
    assert r.returncode == 0 and r.stdout == data and not (tmp_path / "-").exists(), r.stderr
    assert f"wrote {len(data):,} bytes of papers/x.pdf to -".encode() in r.stderr, r.stderr


def test_get_output_writes_a_raw_sidecar_as_it_writes_an_attachment(tmp_path, db_path, monkeypatch):
    """README: `get --output` writes the bytes of "the current page or file"; `gbrain get
    x/.raw/y.json --output -` was refused (`it points into .raw/: … no page`, exit 2) before the
    stored files were looked at, though a sidecar is a stored file as an attachment is. Its bytes
    (current, or a version) go to the output; a plain `get` of it says how to read it (exit 1,
    as an attachment's), naming `raw` and `--output`."""
    db = str(db_path)
    assert cli("--db", db, "put", "people/ana", input="# Ana\n").returncode == 0
    assert cli("--db", db, "raw-put", "people/ana", "--source", "crm", "--data", '{"x": 1}').returncode == 0
    first = cli("--db", db, "get", "people/.raw/ana.json", "--output", "-")
    assert first.returncode == 0 and json.loads(first.stdout) == {"sources": {"crm": {"x": 1}}}, (first.stdout, first.stderr)
    assert b"wrote " in first.stderr and b"people/.raw/ana.json to -" in first.stderr, first.stderr
    out = tmp_path / "ana.json"
    r = cli("--db", db, "get", "people/.raw/ana.json", "--output", str(out))
    assert r.returncode == 0 and out.read_bytes() == first.stdout, r.stderr
    assert cli("--db", db, "raw-put", "people/ana", "--source", "web", "--data", '{"y": 2}').returncode == 0
    r = cli("--db", db, "get", "people/.raw/ana.json", "--version", "1", "--output", "-")
    assert r.returncode == 0 and r.stdout == first.stdout, (r.stdout, r.stderr)
    r = cli("--db", db, "get", "people/.raw/ana.json")  # text: what it is and how to read it
    err = r.stderr.decode()
    assert r.returncode == 1 and "raw-data sidecar" in err and "--output" in err and "gbrain raw people/ana" in err, err
    r = cli("--db", db, "get", "people/.raw/bob.json", "--output", "-")  # no such sidecar: as before
    assert r.returncode == 2 and "points into .raw/" in r.stderr.decode() and r.stdout == b"", r.stderr


def test_get_version_of_a_file_prints_its_text(db_path):
    """`gbrain get people/.raw/ana.json --version 1` (no --output) failed with a KeyError
    traceback since get --section (30eb7d0: a file's version answers `path`, not `slug`); it
    prints the version's text, as a page's version, for a sidecar with a byte order mark too."""
    db = str(db_path)
    assert gbrain_in_process("--db", db, "put", "people/ana", input="# Ana\n").returncode == 0
    assert gbrain_in_process("--db", db, "raw-put", "people/ana", "--source", "crm", "--data", '{"x": 1}').returncode == 0
    assert gbrain_in_process("--db", db, "raw-put", "people/ana", "--source", "web", "--data", '{"y": 2}').returncode == 0
    r = gbrain_in_process("--db", db, "get", "people/.raw/ana.json", "--version", "1")
    assert r.returncode == 0 and json.loads(r.stdout) == {"sources": {"crm": {"x": 1}}}, (r.stdout, r.stderr)
    r = gbrain_in_process("--db", db, "get", "people/.raw/ana.json", "--version", "1", "--json")
    got = json.loads(r.stdout)
    assert r.returncode == 0 and got["path"] == "people/.raw/ana.json" and json.loads(got["content"]) == {"sources": {"crm": {"x": 1}}}, r.stderr
    r = gbrain_in_process("--db", db, "get", "people/.raw/ana.json", "--version", "1", "--section", "x")
    assert r.returncode == 2 and b"is a file" in r.stderr and b"Traceback" not in r.stderr, r.stderr
    # a part of a file's version (as MCP's brain_get pages it), and an offset past its end
    with Brain.open(db_path) as b:
        got = ops.run("get", {"slug": "people/.raw/ana.json", "version": 2, "offset": 3, "max_chars": 4}, ops.Context(surface="cli"), brain=b)
        assert len(got["content"]) == 4 and got["path"] == "people/.raw/ana.json"
        with pytest.raises(BadInput, match="past the end of people/.raw/ana.json"):
            ops.run("get", {"slug": "people/.raw/ana.json", "version": 1, "offset": 999}, ops.Context(surface="cli"), brain=b)


def test_prune_counts_the_pieces_of_a_big_file_version_it_frees(db_path, monkeypatch):
    """Researcher trial: a 80 MB PDF replaced by a new version under watch, then
    `gbrain history papers/smith2024.pdf --prune --keep-last 1 --keep-days 0` said "would remove 1
    version(s) and 1 stored body(ies), 0.00 MB compressed" and, applied, freed 80 MB of pieces:
    the figure counted only the history bodies, and a big file's version is a one-byte marker
    whose bytes are its pieces. It now counts the pieces that go with it (those no file and no
    kept version names), and the text says so. (Files are "big" from 4,000 bytes here.)"""
    from gbrain.storage import blobs

    monkeypatch.setattr(blobs, "BIG", 4000)
    x1, x2, y1, y2 = (os.urandom(9000 + i) for i in range(4))
    with Brain.open(db_path, create=True) as b:
        b.save_file("papers/x.pdf", x1)
        b.save_file("papers/x.pdf", x2)
        b.save_file("papers/y.pdf", y1)
        b.save_file("papers/z.pdf", y1)  # z holds y's first bytes: they stay
        b.save_file("papers/y.pdf", y2)
        assert b.conn.execute("SELECT COUNT(*) FROM files WHERE pieces > 0").fetchone()[0] == 3
        data = lambda: b.conn.execute("SELECT COALESCE(SUM(length(data)), 0) FROM blob_data").fetchone()[0]
        before = data()
        dry = run(b, "history-prune", keep_last=1)
        done = h.prune(b, keep_days=None, keep_last=1, apply=True)
        freed = before - data()
        assert b"".join(blobs.iter_file(b.conn, "papers/z.pdf")) == y1
    assert freed == len(x1), freed
    assert dry["versions"] == 2 and dry["piece_bytes"] == len(x1) and len(x1) <= dry["bytes"] < len(x1) + 100, dry
    assert done["bytes"] == dry["bytes"] and done["applied"]
    text = ops.find("history-prune").text(dry, {})
    assert f"{dry['bytes'] / 1e6:.2f} MB ({len(x1) / 1e6:.2f} MB of them big files' versions)" in text, text


def test_stats_says_what_the_files_and_the_history_weigh(db_path, monkeypatch):
    """Researcher trial: `gbrain stats` on a brain of 4 notes and 17 attachments said "Other files:
    17" and "DB size: 216.4 MB", and after a 80 MB PDF was replaced, 195 MB: nothing said that the
    attachments weigh 183 MB, nor that the old versions (kept whole, README) are what grows.
    stats gives `files_bytes` (the stored files' sizes) and `history_bytes` (the stored old
    versions: history bodies, and the pieces of big files only the history holds), in the text too."""
    from gbrain.storage import blobs

    monkeypatch.setattr(blobs, "BIG", 4000)
    old, new, small = os.urandom(9000), os.urandom(7000), os.urandom(300)
    with Brain.open(db_path, create=True) as b:
        b.save_file("papers/x.pdf", old)
        b.save_file("figures/a.png", small)
        first = run(b, "stats")
        b.save_file("papers/x.pdf", new)
        r = run(b, "stats")
        text = ops.find("stats").text(r, {})
    assert first["files_bytes"] == len(old) + len(small) and r["files_bytes"] == len(new) + len(small), r
    assert len(old) <= r["history_bytes"] - first["history_bytes"] < len(old) + 200, (first, r)
    assert f"Other files: 2 ({r['files_bytes'] / 1e6:.1f} MB)" in text and f"History: {r['history_bytes'] / 1e6:.1f} MB" in text, text


def test_a_bad_time_names_the_option_it_was_given_to(fixture_db):
    # `gbrain changes --until garbage` said "since must be a span …": the option typed was --until
    r = cli("changes", "--until", "garbage", "--db", str(fixture_db))
    assert r.returncode == 2 and r.stderr.decode().startswith("error: --until must be a span"), r.stderr
    r = cli("changes", "--since", "garbage", "--db", str(fixture_db))
    assert r.returncode == 2 and r.stderr.decode().startswith("error: --since must be a span"), r.stderr
    for cmd in (["list"], ["lint"], ["undo"]):  # every command taking --since says it the same way
        r = cli(*cmd, "--since", "garbage", "--db", str(fixture_db))
        assert r.returncode == 2 and r.stderr.decode().startswith("error: --since must be a span"), (cmd, r.stderr)
    r = cli("call", "brain_changes", '{"until": "garbage"}', "--db", str(fixture_db))
    assert r.returncode == 2 and json.loads(r.stdout)["error"].startswith("until must be a span")


def test_a_deleted_page_named_by_its_short_name_says_it_is_in_the_trash(fixture_db):
    # `gbrain get bruno-okafor` worked, then after `gbrain delete people/bruno-okafor` it said only
    # "no page 'bruno-okafor'" (the full slug said "deleted on …, in the trash"), though
    # `gbrain restore bruno-okafor` takes the short name
    db = str(fixture_db)
    assert cli("delete", "people/bruno-okafor", "--db", db).returncode == 0
    for name in ("bruno-okafor", "people/bruno-okafor"):
        r = cli("get", name, "--db", db)
        assert r.returncode == 1
        assert b"people/bruno-okafor was deleted on " in r.stderr or b": it was deleted on " in r.stderr, r.stderr
        assert b"`gbrain restore people/bruno-okafor` brings it back" in r.stderr, r.stderr
    assert cli("restore", "bruno-okafor", "--db", db).returncode == 0


def test_get_output_into_a_missing_folder_says_it_created_it(tmp_path, db_path):
    """Trial: `get X --output path/in/missing/folder/x.md` created the missing folders without a
    word. It still creates them (as `export --dir` creates its folder), and says which, in the text
    and as `created_folders` in --json; a file in the way is a usage error naming it (was exit 1,
    "[Errno 20] Not a directory")."""
    root = tmp_path / "v"
    root.mkdir()
    (root / "p.md").write_text("# P\n\nx\n")
    db = str(db_path)
    assert cli("--db", db, "import", str(root)).returncode == 0
    dest = tmp_path / "out" / "a" / "p.md"
    r = cli("--db", db, "get", "p", "--output", str(dest))
    assert r.returncode == 0 and dest.read_bytes() == (root / "p.md").read_bytes(), r.stderr
    assert r.stdout.decode() == (f"wrote {dest.stat().st_size:,} bytes of p to {dest} "
                                 f"(created the folders {tmp_path / 'out'}, {tmp_path / 'out' / 'a'})\n")
    dest2 = tmp_path / "out" / "b" / "p.md"
    r = cli("--db", db, "get", "p", "--output", str(dest2), "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["created_folders"] == [str(dest2.parent)], r.stdout
    r = cli("--db", db, "get", "p", "--output", str(tmp_path / "out" / "c.md"))  # the folder is there: nothing said
    assert r.returncode == 0 and r.stdout.decode() == f"wrote {dest.stat().st_size:,} bytes of p to {tmp_path / 'out' / 'c.md'}\n"
    r = cli("--db", db, "get", "p", "--output", str(dest / "x" / "p.md"))  # a file where a folder should be
    assert r.returncode == 2 and r.stderr.decode() == f"error: {dest} is a file, not a folder: cannot write {dest / 'x' / 'p.md'}; nothing was written\n", r.stderr


@pytest.mark.engine_free
def test_changes_can_leave_out_an_origin(tmp_path):
    """An MCP agent trial (briefing skill 1.1): after an import, `brain_changes {"since": "24h"}`
    answered 100 import rows (27 KB) and the day's own edits had to be fetched origin by origin.
    `exclude_origin` leaves out the changes of one surface, MCP client name or operation."""
    db = str(tmp_path / "brain.db")
    tree = tmp_path / "t"
    tree.mkdir()
    for i in range(5):
        (tree / f"n{i}.md").write_text(f"# N{i}\n")
    assert cli("--db", db, "import", str(tree)).returncode == 0
    assert cli("--db", db, "put", "people/ana", input=ANA).returncode == 0
    assert cli("--db", db, "tag", "n1", "vip").returncode == 0
    ch = json.loads(cli("--db", db, "changes", "--exclude-origin", "import", "--json").stdout)
    assert [(c["name"], c["operation"]) for c in ch] == [("n1", "tag"), ("people/ana", "put")]
    ch = json.loads(cli("--db", db, "changes", "--exclude-origin", "put", "--json").stdout)
    assert {c["operation"] for c in ch} == {"import", "tag"} and len(ch) == 6


def test_advice_names_a_page_whose_name_has_spaces_so_the_command_runs_as_given(db_path):
    # trial7: Obsidian names hold spaces ("Weekly sync.md"); `gbrain delete "meetings/Weekly sync"`
    # advised `gbrain restore meetings/Weekly sync`, which the shell splits in two ("unexpected
    # extra argument"), and an agent got that CLI text instead of a brain_restore call
    import re
    import shlex

    db = str(db_path)
    name = "meetings/Weekly sync (Ana's team)"  # a space, brackets, a quote: each breaks a shell word
    assert cli("put", name, "--db", db, input="# Weekly sync\n\nNotes.\n").returncode == 0
    said = []
    r = cli("delete", name, "--db", db)
    assert r.returncode == 0, r.stderr
    said.append(r.stdout.decode())
    r = cli("delete", name, "--db", db)  # again: "already deleted, in the trash (`gbrain restore …`)"
    said.append(r.stdout.decode() + r.stderr.decode())
    r = cli("revert", name, "--to", "99", "--db", db)
    assert r.returncode == 1
    said.append(r.stderr.decode())  # `gbrain history …` lists them
    cmds = [m for s in said for m in re.findall(r"`(gbrain [^`]+)`", s)]
    assert any(c.startswith("gbrain restore ") for c in cmds) and any(c.startswith("gbrain history ") for c in cmds), said
    for c in sorted(set(cmds), key=lambda c: not c.startswith("gbrain history ")):  # history first: restore changes the page
        r = cli(*shlex.split(c)[1:], "--db", db)
        assert r.returncode == 0, (c, r.stderr)
    assert cli("get", name, "--db", db).stdout == b"# Weekly sync\n\nNotes.\n"
    # an agent is handed the tool call, with the whole name as the slug
    assert cli("call", "brain_delete", json.dumps({"slug": name}), "--db", db).returncode == 0
    r = cli("call", "brain_delete", json.dumps({"slug": name}), "--db", db)
    assert "`brain_restore " + json.dumps({"slug": name}) + "`" in json.loads(r.stdout)["note"], r.stdout


def test_diff_of_the_old_name_of_a_moved_page_points_at_its_new_name(tmp_path, db_path):
    # trial7: `mv people/ana-ibrahim.md people/ana-ibrahim-moved.md` under watch, then
    # `gbrain diff people/ana-ibrahim` said only "people/ana-ibrahim has fewer than 2 versions with
    # text" (its one text version, then the move): nothing said where the page and its diff are
    root = tmp_path / "vault"
    root.mkdir()
    (root / "ana.md").write_text("# Ana\n\none\n")
    with Brain.open(db_path) as b:
        eng = SyncEngine(b, root)
        eng.bind()
        eng.sync()
        (root / "ana.md").rename(root / "ana-moved.md")
        eng.sync()
        (root / "ana-moved.md").write_text("# Ana\n\none\ntwo\n")
        eng.sync()
        eng.close()
    r = cli("diff", "ana", "--db", str(db_path))
    assert r.returncode == 1
    err = r.stderr.decode()
    assert "ana moved to ana-moved" in err and "`gbrain diff ana-moved`" in err, err
    # a first version diffs against nothing now (`diff NEW` of a new page): never "fewer than 2 versions" (review)
    assert "fewer than" not in err and "its version with text is the first of ana-moved's" in err, err
    r = cli("diff", "ana-moved", "--db", str(db_path))
    assert r.returncode == 0 and b"+two" in r.stdout, r


def test_an_mcp_client_left_with_the_sdks_default_name_is_recorded_with_the_program_that_started_the_server(tmp_path, fixture_db):
    """trial9: a script on the Python SDK that passed no ``client_info`` was recorded as
    ``mcp(mcp) put``: ``mcp`` is the SDK's default ``clientInfo.name``, which tells nothing. Such
    a write now records the program that started `gbrain serve` beside it (``mcp:agent.py``; an
    empty name: ``agent.py``); a host's own name is kept as it is (the test above)."""
    import subprocess
    import sys

    from test_mcp import server_env
    from conftest import ROOT

    script = tmp_path / "agent.py"
    script.write_text(f"""
import json, sys
import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp_types import Implementation

async def main():
    params = StdioServerParameters(command=sys.executable, args=["-m", "gbrain", "serve", "--db", {str(fixture_db)!r}], env={server_env()!r}, cwd={str(ROOT)!r})
    for info, slug in ((None, "ana-lima"), (Implementation(name="", version="1"), "bruno-okafor")):
        async with Client(stdio_client(params), read_timeout_seconds=120, client_info=info) as c:
            r = await c.call_tool("brain_put", {{"slug": slug, "compiled_truth": "Rewritten by a script."}})
            assert not r.is_error, r

anyio.run(main)
""", encoding="utf-8")
    p = subprocess.run([sys.executable, str(script)], capture_output=True, timeout=300, cwd=str(tmp_path), env={**os.environ, **server_env()})
    assert p.returncode == 0, p.stderr.decode()[-3000:]
    with Brain.open(fixture_db) as b:
        got = {n: h.versions(b, n)["versions"][0] for n in ("people/ana-lima", "people/bruno-okafor")}
    assert got["people/ana-lima"]["client"] == "mcp:agent.py" and got["people/ana-lima"]["origin"] == "mcp(mcp:agent.py) put compiled_truth", got
    assert got["people/bruno-okafor"]["client"] == "agent.py", got


def test_stats_say_how_much_of_the_brain_is_history_and_what_pruning_left_free(db_path, engine):
    """A year in, the owner asks `stats` how big the history is: the number of versions and the
    bytes of the history tables (with their indexes) beside the DB size; on SQLite also the free
    pages a prune left inside the file (reused by later writes; only a VACUUM returns them)."""
    with Brain.open(db_path) as b:
        for i in range(60):
            b.put("a", f"version {i} " + "text of a page that changes, " * (40 + i) + "\n")
        s = run(b, "stats")
        assert s["history_versions"] == 60
        assert 0 < s["history_bytes"] < s["history_table_bytes"] < s["db_bytes"]
        before = s["history_table_bytes"]
        run(b, "history-prune", keep_last=1, apply=True)
        s = run(b, "stats")
        assert s["history_versions"] == 1
        if engine == "sqlite":
            assert s["history_table_bytes"] < before and s["free_bytes"] > 0
        text = ops.find("stats").text(s, {})
        assert "\n  1 version(s), the current ones included; with their rows and indexes " in text and "% of the DB" in text, text


def test_copy_of_a_brain_another_process_writes_meanwhile_is_one_moment_of_it(tmp_path, db_path):
    """`gbrain copy --from brain.db --to backup.db` (the backup of a live brain: watch or an agent
    writes while it runs) copies the source as it was at one moment: a page saved and another
    edited after the copy read `pages` are in neither the copy's pages nor its history, every
    version it holds reads back, and it reports the copy equal to what it read."""
    with Brain.open(db_path) as b:
        for i in range(30):
            b.put(f"p{i}", f"page {i}\n")
        b.put("p0", "page 0 edited\n")
        before = {r[0]: r[1] for r in b.conn.execute("SELECT slug, content_hash FROM pages")}
        hist_before = b.conn.execute("SELECT COUNT(*) FROM history").fetchone()[0]
    wrote, calls = [], []

    def write_meanwhile(done, total):
        calls.append(done)
        if len(calls) == 2 and not wrote:  # after config and pages, before the history
            with Brain.open(db_path) as w:  # another writer (its own connection), mid-copy
                w.put("p1", "page 1 edited while the copy ran\n")
                w.put("late", "a page saved while the copy ran\n")
                run(w, "delete", slug="p2")
            wrote.append(True)

    dst = tmp_path / "backup.db"
    r = ops.run("copy", {"from": str(db_path), "to": str(dst)}, ops.Context(on_progress=write_meanwhile))
    assert wrote and r["equal"], r
    with Brain.open(dst) as c:
        assert {r[0]: r[1] for r in c.conn.execute("SELECT slug, content_hash FROM pages")} == before
        assert c.conn.execute("SELECT COUNT(*) FROM history").fetchone()[0] == hist_before
        for slug, ver in c.conn.execute("SELECT name, version FROM history WHERE kind = 'page' AND body_id IS NOT NULL").fetchall():
            run(c, "get", slug=slug, version=ver)  # every version reads back
        assert c.get_text("p0") == "page 0 edited\n" and c.get_text("p2") == "page 2\n"


def test_copy_reads_the_tables_of_big_values_by_id_ranges_and_misses_no_row(tmp_path, db_path, monkeypatch):
    """`copy` reads files and history bodies a few rows per statement by id (``copy.SMALL_BATCH``,
    ``db.keyset_batches``: a cursor never holds more): each row comes across once, a batch of
    fewer than the batch size last, none left behind."""
    from gbrain.storage import copy as copymod

    with Brain.open(db_path) as b:
        for i in range(10):
            b.save_file(f"assets/f{i}.bin", bytes([i]) * (i + 1))
            b.put(f"p{i}", f"page {i}\n")
            b.put(f"p{i}", f"page {i} edited\n")
        want = {t: b.conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in ("files", "history_bodies")}
        hashes = sorted(r[0] for r in b.conn.execute("SELECT hash FROM history_bodies"))
    assert want["files"] == 10 and want["history_bodies"] > 8, want
    for t, k in want.items():  # a few rows a statement, the last statement's fewer
        monkeypatch.setitem(copymod.SMALL_BATCH, t, next(n for n in (3, 4, 5, 7) if k % n))
    dst = tmp_path / "copy.db"
    r = ops.run("copy", {"from": str(db_path), "to": str(dst)})
    assert r["equal"] and {t: r["tables"][t] for t in want} == want, r
    with Brain.open(dst) as c:
        assert {p: file_bytes(c.conn, p) for (p,) in c.conn.execute("SELECT path FROM files")} == {f"assets/f{i}.bin": bytes([i]) * (i + 1) for i in range(10)}
        assert sorted(r[0] for r in c.conn.execute("SELECT hash FROM history_bodies")) == hashes


def test_prune_frees_the_bodies_of_the_versions_it_drops_not_only_the_rows(db_path):
    """A page edited many times stores each version as a delta against the one before (a chain of
    bases). Pruning all but the newest few must free the dropped versions' bodies too: the oldest
    kept version is stored on its own, so the chain behind it goes; every kept version reads back."""
    base = "".join(f"line {i}: a long enough page that each edit is stored as a delta\n" for i in range(80))
    with Brain.open(db_path) as b:
        texts = []
        for v in range(40):
            texts.append(base + f"edit {v}\n")
            b.put("busy", texts[-1])
        c = b.conn
        assert c.execute("SELECT COUNT(*) FROM history_bodies WHERE base_id IS NOT NULL").fetchone()[0] > 0 or b.conn.dialect == "postgres"
        dry = run(b, "history-prune", keep_last=3)
        done = run(b, "history-prune", keep_last=3, apply=True)
        assert done["versions"] == 37 and done["bodies"] == dry["bodies"] == 37, (dry, done)
        used = c.execute("SELECT COUNT(DISTINCT body_id) FROM history WHERE body_id IS NOT NULL").fetchone()[0]
        assert c.execute("SELECT COUNT(*) FROM history_bodies").fetchone()[0] == used == 3
        assert [run(b, "get", slug="busy", version=v)["content"] for v in (38, 39, 40)] == texts[-3:]
        b.put("busy", base + "after the prune\n")  # a new version after the cut chain still reads back, and the one before it
        assert run(b, "get", slug="busy", version=40)["content"] == texts[-1]
        assert run(b, "get", slug="busy", version=41)["content"] == base + "after the prune\n"


def test_stats_history_lines_say_the_count_holds_the_current_versions(db_path):
    """Trial 24: after importing 1,780 notes `gbrain stats` said "History: 0.0 MB (the versions kept…)"
    over "1,787 version(s); with their rows and indexes 0.7 MB": two sizes for one history, and 1,787
    versions weighing nothing. The MB are the texts of versions since replaced or deleted (a current
    text is stored once, as its page); the count includes every page's current version. Both say so."""
    with Brain.open(db_path, create=True) as b:
        for n in ("a", "b", "c"):
            b.save_page(f"notes/{n}.md", f"# {n}\n\nfirst\n")
        fresh = ops.find("stats").text(run(b, "stats"), {})
        b.save_page("notes/a.md", "# a\n\nsecond\n")
        r = run(b, "stats")
        text = ops.find("stats").text(r, {})
    assert r["history_versions"] == 4 and r["history_bytes"] > 0, r
    assert "History: 0.0 MB (replaced and deleted versions' texts, compressed;" in fresh, fresh
    assert "  3 version(s), the current ones included;" in fresh, fresh
    assert "  4 version(s), the current ones included;" in text, text


def test_prune_without_include_deleted_leaves_the_trash_as_it_was(db_path, brain_tree):
    """A version an import replaced while the brain alone held it (an edit through gbrain the
    file then overwrote) is in the trash. `history-prune` without --include-deleted pruned it by
    age like any old version (trial 20's aged run: 2 trash entries gone): a user who did not ask
    for deleted things expects `trash` untouched. It stays listed, as it was (the write that
    replaced it says when and by whom), and reads back; --include-deleted prunes it."""
    db = str(db_path)
    cli("import", str(brain_tree), "--db", db)
    cli("tag", "people/ana-lima", "angel", "--db", db)
    edited = cli("get", "people/ana-lima", "--db", db).stdout.decode()
    ana = brain_tree / "people" / "ana-lima.md"
    ana.write_bytes(ana.read_bytes() + b"edited on disk\n")
    cli("import", str(brain_tree), "--db", db)
    cli("put", "people/ana-lima", "--timeline-append", "- **2026-12-04** | call — later", "--db", db)
    before = json.loads(cli("trash", "--json", "--db", db).stdout)
    assert [(e["slug"], e["deleted"]) for e in before] == [("people/ana-lima", False)], before
    r = cli("history-prune", "--keep-days", "0", "--keep-last", "1", "--apply", "--json", "--db", db)
    assert r.returncode == 0 and json.loads(r.stdout)["versions"] >= 1, r.stderr
    assert json.loads(cli("trash", "--json", "--db", db).stdout) == before
    got = cli("get", "people/ana-lima", "--version", str(before[0]["version"]), "--db", db)
    assert got.returncode == 0 and got.stdout.decode() == edited
    r = cli("history-prune", "--keep-days", "0", "--keep-last", "1", "--include-deleted", "--apply", "--json", "--db", db)
    assert r.returncode == 0 and json.loads(r.stdout)["versions"] == 1, r.stdout
    assert json.loads(cli("trash", "--json", "--db", db).stdout) == []
    # the version the last import took from the file stays: the folder's merge base (trial 69)
    assert json.loads(cli("history", "people/ana-lima", "--json", "--db", db).stdout)["total"] == 2


def test_diff_counts_a_line_that_begins_with_dashes_or_pluses(tmp_path, db_path):
    """diff's ``added``/``removed`` count every changed line: a removed timeline rule ``---`` (its
    diff line ``----``), a removed ``-- signature`` and an added ``++ x`` too, not only lines the
    file headers' ``---``/``+++`` do not begin (they are the first two lines alone)."""
    from gbrain.core import history as h

    with Brain.open(db_path, create=True) as b:
        b.put("notes/rule", "text\n\n---\n\n- **2026-01-02** | a\n-- sig\n")
        b.put("notes/rule", "text\n\n- **2026-01-02** | a\n++ x\n")
        d = h.diff(b, "notes/rule")
        assert (d["added"], d["removed"]) == (1, 3), d


def test_diff_from_name_refuses_a_version_another_page_wrote_under_that_name_later(tmp_path, db_path):
    """Review of trial 47's `diff --from-name`: after `a` moved to `sub/a`, a new page written
    at `a` numbers its versions on after the move; `diff sub/a N --from-name a` with such an N
    compared another page's text with sub/a's, as if it were sub/a's own past. Only the
    versions `a` wrote before it moved away are the page's (`history sub/a` lists those)."""
    root = tmp_path / "v"
    root.mkdir()
    (root / "a.md").write_text("# A\n\nx\n")
    db = str(db_path)
    assert cli("--db", db, "sync", str(root)).returncode == 0
    (root / "sub").mkdir()
    (root / "a.md").rename(root / "sub" / "a.md")
    assert cli("--db", db, "sync", str(root)).returncode == 0
    (root / "a.md").write_text("# Another page\n\nunrelated\n")  # the old name taken by another page
    assert cli("--db", db, "sync", str(root)).returncode == 0
    h = json.loads(cli("--db", db, "history", "a", "--json").stdout)
    mine = [v["version"] for v in json.loads(cli("--db", db, "history", "sub/a", "--json").stdout)["versions"] if v.get("name") == "a"]
    theirs = [v["version"] for v in h["versions"] if v["version"] not in mine and v["content_hash"]]
    assert mine and theirs, (mine, h)
    r = cli("--db", db, "diff", "sub/a", str(max(theirs)), "--from-name", "a", "--json")
    assert r.returncode != 0 and "unrelated" not in r.stdout.decode(), r.stdout
    assert f"versions 1 to {max(v for v in mine)}" in r.stderr.decode() or f"version {max(mine)}" in r.stderr.decode(), r.stderr
    assert cli("--db", db, "diff", "sub/a", str(max(mine)), "--from-name", "a").returncode == 0
    # no FROM_VERSION: the last version `a` wrote before it moved away, never the other page's (trial 49)
    r = cli("--db", db, "diff", "sub/a", "--from-name", "a", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["from"] == max(mine) and "unrelated" not in d["diff"], d


def test_history_names_only_the_conflict_copies_of_its_own_page_when_an_old_name_is_reused(tmp_path, db_path):
    """Review of trial 47: `history` names the conflict copies recorded at the path of any name
    the page had. After `ana` moved to `team/ana` and another page was written at `ana.md`, that
    other page's conflict copy was named in `history team/ana` as "another version of this
    note", and the moved page's own copy (from before the move) in the new `ana`'s history. A
    conflict belongs to the page whose versions hold its brain (or file) text."""
    root = tmp_path / "notes"
    root.mkdir()
    (root / "ana.md").write_text("one\ntwo\n")
    with Brain.open(db_path) as b:
        eng = _conflict_on(b, root, "ana")
        mine = eng.sync()["conflicts"][0]["copy_path"]
        (root / "team").mkdir()
        (root / "ana.md").rename(root / "team" / "ana.md")
        eng.sync()
        assert b.get_text("team/ana") is not None
        mine = "team/" + mine  # (its copy moved with it: tests/test_move.py)
        assert (root / mine).exists() and b.page_row(mine[:-3]) is not None
        (root / "ana.md").write_text("# Another Ana\nalpha\n")
        eng.sync()
        b.put("ana", "# Another Ana\nbrain alpha\n")
        (root / "ana.md").write_text("# Another Ana\nfile alpha\n")
        theirs = eng.sync()["conflicts"][0]["copy_path"]
        assert mine != theirs
        assert run(b, "history", slug="team/ana")["conflict_copies"] == [mine]
        assert run(b, "history", slug="ana")["conflict_copies"] == [theirs]
        eng.close()


def test_history_names_a_conflict_copy_of_an_earlier_stretch_of_a_name_the_page_had_twice(tmp_path, db_path):
    """`history` named the copies whose conflict's texts are versions of the page, read from one
    stretch per name (`lineage_spans` without `every`) and the key's own versions since its last
    move away only. A conflict copy made while the page was at `a`, then the page edited and moved
    a→b→a (→b): `history a` (`history b`) named the copy no more, though it still held a save of
    this note, moved with the page each time (`a.conflict-….md`). Every stretch of every name counts."""
    root = tmp_path / "notes"
    root.mkdir()
    (root / "a.md").write_text("one\ntwo\n")
    with Brain.open(db_path) as b:
        eng = _conflict_on(b, root, "a")
        cp = eng.sync()["conflicts"][0]["copy_path"]
        assert cp.startswith("a.conflict-") and run(b, "history", slug="a")["conflict_copies"] == [cp]
        b.put("a", "one\nfile two\nthree\n")  # the conflict's texts are no longer the newest's
        for src, dst in (("a", "b"), ("b", "a"), ("a", "b")):
            run(b, "move", slug=src, to=dst)
            eng.sync()
            cp = dst + cp[len(src):]  # (the copy moves with the page: tests/test_move.py)
            assert (root / cp).exists() and b.page_row(cp[:-3]) is not None
            assert run(b, "history", slug=dst).get("conflict_copies") == [cp], (src, dst)
        eng.close()


def test_history_leaves_out_the_conflict_copy_of_a_deleted_page_whose_name_another_page_moved_onto(tmp_path, db_path):
    """`a` had a conflict copy and was deleted; `c` moved onto `a`. `history a` lists the deleted
    page's versions apart (`another page's, before this one moved in`), but named its conflict copy
    as "another version of this note": the copies were read from every version since the name's
    last move away, the other page's too."""
    root = tmp_path / "notes"
    root.mkdir()
    (root / "a.md").write_text("one\ntwo\n")
    (root / "c.md").write_text("# C\nsee\n")
    with Brain.open(db_path) as b:
        eng = _conflict_on(b, root, "a")
        cp = eng.sync()["conflicts"][0]["copy_path"]
        run(b, "delete", slug="a")
        eng.sync()
        run(b, "move", slug="c", to="a")
        eng.sync()
        assert (root / cp).exists() and b.page_row(cp[:-3]) is not None  # the copy is still there
        r = run(b, "history", slug="a", limit=0)
        assert [v.get("name") for v in r["versions"]][-1] == "a", r  # (the deleted page's versions, apart)
        assert "conflict_copies" not in r, r
        eng.close()


def test_history_of_a_moved_page_leaves_out_an_earlier_page_that_left_its_old_name(tmp_path, db_path):
    """Review of trial 47: `a.md` moved to `x.md`; a new note written at `a.md` later moved to
    `sub/a.md`. `history sub/a` listed, as versions written under its old name `a`, those of
    the first page (which lives at `x`), and `diff sub/a 1 --from-name a` compared that other
    page's text. The old name's versions count from its last move away."""
    root = tmp_path / "v"
    root.mkdir()
    (root / "a.md").write_text("# First\n\nfirst page\n")
    db = str(db_path)
    assert cli("--db", db, "sync", str(root)).returncode == 0
    (root / "a.md").rename(root / "x.md")
    assert cli("--db", db, "sync", str(root)).returncode == 0
    (root / "a.md").write_text("# Second\n\nsecond page\n")
    assert cli("--db", db, "sync", str(root)).returncode == 0
    (root / "sub").mkdir()
    (root / "a.md").rename(root / "sub" / "a.md")
    assert cli("--db", db, "sync", str(root)).returncode == 0
    h = json.loads(cli("--db", db, "history", "sub/a", "--json").stdout)
    old = [v for v in h["versions"] if v.get("name") == "a"]
    assert old and all(v["version"] > 2 for v in old), h  # a's v1 (first page) and v2 (its move away) are x's
    x = json.loads(cli("--db", db, "history", "x", "--json").stdout)
    assert any(v.get("name") == "a" and v["version"] == 1 for v in x["versions"]), x
    r = cli("--db", db, "diff", "sub/a", "1", "--from-name", "a", "--json")
    assert r.returncode != 0 and "first page" not in r.stdout.decode(), r.stdout
    assert cli("--db", db, "diff", "sub/a", str(old[-1]["version"]), "--from-name", "a").returncode == 0


def test_origin_filter_takes_the_origin_as_history_and_changes_print_it(db_path):
    """trial 65: `changes`/`history` print an origin as `mcp(rewriter) put` or `watch file changed`;
    `changes --origin 'mcp(rewriter)'` (copied from that column) answered "no changes by
    mcp(rewriter)", exit 0, and `undo --origin 'mcp(rewriter)'` an empty plan: the agent's 40
    rewrites looked like nothing to undo. The printed form (surface, `(client)`, operation, any of the
    latter two) now selects those rows; one word still matches a surface, client or operation."""
    from gbrain.storage.origin import origin

    b = Brain.open(db_path)
    try:
        run(b, "put", slug="notes/a", content="# A\n\nfirst\n")
        run(b, "put", slug="notes/b", content="# B\n\nfirst\n")
        with origin(client="rewriter"):
            run(b, "put", surface="mcp", slug="notes/a", content="# A\n\nrewritten\n")
            run(b, "tag", surface="mcp", slug="notes/b", tag="x")
        with origin(client="other"):
            run(b, "put", surface="mcp", slug="notes/b", content="# B\n\nother agent\n")
        rows = h.changes(b, limit=0)
        shown = {(c["name"], c["version"]): c["origin"] for c in rows}
        assert shown[("notes/a", 2)] == "mcp(rewriter) put" and shown[("notes/b", 2)] == "mcp(rewriter) tag", shown

        def names(o, **kw):
            return sorted((c["name"], c["version"]) for c in h.changes(b, origin=o, limit=0, **kw))

        assert names("mcp(rewriter)") == [("notes/a", 2), ("notes/b", 2)]
        assert names("mcp(rewriter) put") == [("notes/a", 2)]
        assert names("mcp put") == [("notes/a", 2), ("notes/b", 3)]
        assert names("cli put") == [("notes/a", 1), ("notes/b", 1)]
        # one word as before: a surface, a client or an operation
        assert names("rewriter") == names("mcp(rewriter)") and len(names("mcp")) == 3 and len(names("put")) == 4
        assert names("mcp(nobody)") == [] and names("cli tag") == []
        # --exclude-origin takes the same spelling
        left = sorted((c["name"], c["version"]) for c in h.changes(b, exclude_origin="mcp(rewriter)", limit=0))
        assert left == [("notes/a", 1), ("notes/b", 1), ("notes/b", 3)]
        # and undo: the rewriter's writes, not the other agent's
        plan = h.undo_plan(b, since="2000-01-01T00:00:00Z", origin="mcp(rewriter)")
        acts = {p["name"]: p["action"] for p in plan}
        assert acts == {"notes/a": "revert", "notes/b": "skip"}, acts
    finally:
        b.close()


def test_restore_of_a_deleted_folder_names_what_lies_under_it_and_the_undo_that_brings_it_back(db_path):
    """trial 65: a script deleted a folder; `gbrain restore vault/comparisons/` (and without the
    slash) answered only "nothing named 'vault/comparisons/' in the trash", though its 3 notes were
    there. The miss now counts the deleted pages and files under that folder and names the undo
    (`--prefix FOLDER/`, from the first deletion) that brings the folder back, a dry run first."""
    b = Brain.open(db_path)
    try:
        for s in ("cmp/a", "cmp/b", "cmpx/c", "other/d"):
            run(b, "put", slug=s, content=f"# {s}\n")
        for s in ("cmp/a", "cmp/b", "cmpx/c"):
            run(b, "delete", slug=s)
        first = min(r["at"] for r in h.changes(b, limit=0) if r["op"] == "delete")
        for asked in ("cmp", "cmp/"):
            with pytest.raises(NotFound) as e:
                run(b, "restore", slug=asked)
            msg = str(e.value)
            assert f"nothing named '{asked}' in the trash" in msg
            assert "2 deleted page(s)/file(s) under cmp/" in msg, msg  # not cmpx/c: another folder
            assert f"gbrain undo --since {first} --prefix cmp/" in msg, msg
        # the undo it names brings the folder back
        plan = h.undo_plan(b, since=first, prefix="cmp/")
        assert sorted((p["name"], p["action"]) for p in plan) == [("cmp/a", "restore"), ("cmp/b", "restore")]
        with pytest.raises(NotFound) as e:
            run(b, "restore", slug="nowhere")
        assert "under" not in str(e.value)
    finally:
        b.close()


def test_a_version_without_text_is_not_found_as_a_missing_version_is(db_path):
    """Trial 65 (F5): `get --version N` of the deletion exited 2 (bad input), of a version that does
    not exist 1. Both name a version that holds no text: what was asked for is not there, as `get`
    of a missing page (1); 2 stays for what is no version number at all (`--version 0`)."""
    db = str(db_path)
    assert cli("--db", db, "put", "notes/x", input="# X\n\none\n").returncode == 0
    assert cli("--db", db, "move", "notes/x", "notes/y").returncode == 0  # notes/x v2: the move away, no text
    assert cli("--db", db, "put", "notes/y", input="# X\n\ntwo\n").returncode == 0
    assert cli("--db", db, "delete", "notes/y").returncode == 0  # notes/y v3: the deletion
    for args, says in ((("get", "notes/y", "--version", "3"), "version 3 of notes/y is the deletion; it has no text"),
                       (("get", "notes/x", "--version", "2"), "version 2 of notes/x is the move (to notes/y); it has no text"),
                       (("diff", "notes/y", "1", "3"), "version 3 of notes/y is the deletion"),
                       (("revert", "notes/y", "--to", "3"), "version 3 of notes/y is the deletion"),
                       (("get", "notes/y", "--version", "9"), "notes/y has no version 9"),
                       (("get", "notes/nobody"), "notes/nobody")):
        r = cli("--db", db, *args)
        assert r.returncode == 1 and says in r.stderr.decode(), (args, r.returncode, r.stderr)
    r = cli("--db", db, "get", "notes/y", "--version", "0")
    assert r.returncode == 2, r.stderr
    assert cli("--db", db, "get", "notes/y", "--version", "2").stdout.decode() == "# X\n\ntwo\n"


def test_a_listing_reads_each_version_s_body_once_not_its_whole_chain(db_path):
    """Review of e03e6356: `history --limit 0` of a page with 318 versions sent ~3,150 statements,
    ~10 a version: each body's chain of deltas (up to MAX_DEPTH + 1 links) was read again from its
    start for every version, though the version before, read just then, is its base. A listing
    reads a body once (`_body_whole`'s memo); the line counts are as before."""
    with Brain.open(db_path) as b:
        text = "".join(f"line {i}\n" for i in range(30))
        for i in range(60):
            b.put("notes/long", text + f"edit {i}\n")
        c = b.conn
        reads = []

        class Counting:  # the brain's connection, counting the statements that read a history body
            def execute(self, q, *a):
                if "FROM history_bodies WHERE id = ?" in q:
                    reads.append(q)
                return c.execute(q, *a)

            def __getattr__(self, k):
                return getattr(c, k)

        b.conn = Counting()
        try:
            r = h.versions(b, "notes/long", limit=0)
        finally:
            b.conn = c
        assert len(r["versions"]) == 60 and [(v["added"], v["removed"]) for v in r["versions"]] == [(1, 1)] * 59 + [(31, 0)]
        assert len(reads) <= 61, len(reads)


def test_history_of_a_deleted_page_reverted_to_a_version_before_its_move_away_and_back_keeps_every_stretch(db_path):
    """Review of e03e6356: a page at notes/c moved to notes/b and back, deleted, then `revert notes/c
    --to 1` (a version of its first stretch at notes/c). The walk back through its names went on from
    the stretch of the version brought back, so `history notes/c` lost notes/b's versions: the page
    deleted is the one brought back, its stretch before the deletion goes on."""
    with Brain.open(db_path) as b:
        b.put("notes/c", "one\n")
        b.move_page("notes/c", "notes/b")
        b.put("notes/b", "one\ntwo\n")
        b.move_page("notes/b", "notes/c")
        b.delete_page("notes/c")
        run(b, "revert", slug="notes/c", to=1)
        got = listing(b, "notes/c")
        assert got == [(None, 5, "create", 0, 1), (None, 4, "delete", 0, 0), (None, 3, "move", 0, 0), ("notes/b", 2, "update", 1, 0),
                       ("notes/b", 1, "move", 0, 0), (None, 1, "create", 1, 0)], got
        assert_cut_listings_agree(b, "notes/c", got)


def test_a_versions_line_count_is_against_its_own_pages_version_before_whatever_name_is_asked(db_path):
    """X written at notes/a, moved to notes/b; a new page Y written at notes/a, moved to notes/c.
    notes/a v3 (Y's create) read `+2 -2` under `history notes/a` (counted against X's text, the
    version listed before it) and `+3 -0` under `history notes/c`. A version's `+N -M` is against
    the same page's version before it, whatever name is asked: a new page's first version against
    nothing; `diff` without numbers compares the newest with that same version."""
    with Brain.open(db_path) as b:
        b.put("notes/a", "X one\nX two\n")
        b.move_page("notes/a", "notes/b")
        b.put("notes/a", "Y one\nY two\nY three\n")
        b.move_page("notes/a", "notes/c")
        assert listing(b, "notes/a") == [(None, 4, "move", 0, 0), (None, 3, "create", 3, 0), (None, 2, "move", 0, 0), (None, 1, "create", 2, 0)]
        assert listing(b, "notes/c") == [(None, 1, "move", 0, 0), ("notes/a", 3, "create", 3, 0)]
        assert listing(b, "notes/b") == [(None, 1, "move", 0, 0), ("notes/a", 1, "create", 2, 0)]
        b.put("notes/a", "Z one\n")  # a third page at the name: its newest version is its first
        assert listing(b, "notes/a")[:2] == [(None, 5, "create", 1, 0), (None, 4, "move", 0, 0)]
        d = h.diff(b, "notes/a")  # never Y's or X's text against Z's as if it were Z's edit: against nothing
        assert (d["from"], d["added"], d["removed"]) == (None, 1, 0) and d["diff"].startswith("--- /dev/null\n+++ notes/a@v5"), d
        assert h.diff(b, "notes/a", 3, 5)["removed"] == 3  # asked by number: any two versions of the name
        d = h.diff(b, "notes/c")  # the move in against the text it carried
        assert d["from_name"] == "notes/a" and d["from"] == 3 and d["diff"] == "", d


def test_revert_of_an_old_name_of_a_renamed_then_deleted_page_brings_the_page_back_at_its_last_name(db_path):
    """notes/a moved to notes/b, edited, then deleted; `revert notes/a --to 1` made a new page at
    notes/a (a second page of that text, its history cut from notes/b's, notes/b still in the
    trash). It brings the deleted page back where it was last, as `revert notes/b` and `restore`
    do: at notes/b, with notes/a's version 1, its history continuous through both names."""
    with Brain.open(db_path) as b:
        b.put("notes/a", "one\n")
        b.put("notes/a", "one\ntwo\n")
        b.move_page("notes/a", "notes/b")
        b.put("notes/b", "one\ntwo\nthree\n")
        b.delete_page("notes/b")
        r = run(b, "revert", slug="notes/a", to=1)
        assert r["slug"] == "notes/b" and r["moved_from"] == "notes/a" and r["changed"], r
        assert b.get_text("notes/b") == "one\n"
        assert b.conn.execute("SELECT COUNT(*) FROM pages WHERE slug = 'notes/a'").fetchone()[0] == 0
        assert listing(b, "notes/b") == [(None, 4, "create", 0, 2), (None, 3, "delete", 0, 0), (None, 2, "update", 1, 0), (None, 1, "move", 0, 0),
                                         ("notes/a", 2, "update", 1, 0), ("notes/a", 1, "create", 1, 0)]
        assert h.versions(b, "notes/b")["versions"][0]["detail"] == "to v1 of an older name"
        assert not any(t["slug"] in ("notes/a", "notes/b") for t in h.trash_list(b))
        b.put("notes/b", "taken\n")  # the last name taken by another page since: said, nothing written
        b.move_page("notes/b", "notes/c")
        b.delete_page("notes/c")
        b.put("notes/c", "another page\n")
        with pytest.raises(BadInput, match="notes/c"):
            run(b, "revert", slug="notes/a", to=1)
        assert b.conn.execute("SELECT COUNT(*) FROM pages WHERE slug = 'notes/a'").fetchone()[0] == 0


def test_history_of_a_name_written_again_names_the_conflict_copy_of_the_page_deleted_there(tmp_path, db_path):
    """X got a conflict copy at notes/x, was edited, moved to notes/plan (its copy with it) and
    deleted there; a new page Y was written at notes/plan. `history notes/plan` lists X's versions
    there (the name's history) but named X's copy only when the conflict's texts were versions
    written at notes/plan: this one's were notes/x's, so the copy was named nowhere (`history
    notes/x` neither: its record follows the page). The page deleted at the name is followed to
    its older names, as `purge notes/plan` takes them (`page_spans`: `_Walk(heir=True)`)."""
    root = tmp_path / "vault"
    (root / "notes").mkdir(parents=True)
    (root / "notes" / "x.md").write_text("one\ntwo\n")
    with Brain.open(db_path) as b:
        eng = _conflict_on(b, root, "notes/x")
        assert eng.sync()["conflicts"]
        eng.close()
        b.put("notes/x", "one\nfile two\nthree\n")
        b.move_page("notes/x", "notes/plan")
        (copy,) = [r[0] for r in b.conn.execute("SELECT copy_path FROM sync_conflicts")]
        assert run(b, "history", slug="notes/plan")["conflict_copies"] == [copy]
        b.delete_page("notes/plan")
        b.put("notes/plan", "Y one\n")
        assert run(b, "history", slug="notes/plan")["conflict_copies"] == [copy]


def test_restore_of_an_old_name_of_a_renamed_then_deleted_page_restores_it_at_its_last_name(db_path):
    """notes/a moved to notes/b, then deleted: `restore notes/a` said "nothing named 'notes/a' in the
    trash" (the trash lists notes/b), while `revert notes/a --to N` brings the page back at notes/b.
    It restores the page where it was deleted, as `restore notes/b` does (``moved_from``: the old
    name); a last name another page has now is refused, naming it, nothing written."""
    with Brain.open(db_path) as b:
        b.put("notes/a", "one\n")
        b.move_page("notes/a", "notes/b")
        b.put("notes/b", "one\ntwo\n")
        b.delete_page("notes/b")
        r = run(b, "restore", slug="notes/a")
        assert r["slug"] == "notes/b" and r["moved_from"] == "notes/a" and r["restored"] == ["notes/b.md"], r
        assert b.get_text("notes/b") == "one\ntwo\n"
        assert b.conn.execute("SELECT COUNT(*) FROM pages WHERE slug = 'notes/a'").fetchone()[0] == 0
        assert not any(t["name"] in ("notes/a", "notes/b") for t in h.trash_list(b))
        b.delete_page("notes/b")
        b.put("notes/b", "another page\n")  # the last name taken since: said, nothing written
        with pytest.raises(NotFound, match="notes/b"):
            run(b, "restore", slug="notes/a")
        assert b.conn.execute("SELECT COUNT(*) FROM pages WHERE slug = 'notes/a'").fetchone()[0] == 0
        assert b.get_text("notes/b") == "another page\n"


def test_a_prune_taking_a_renamed_pages_move_in_keeps_the_page_one_history(db_path):
    """notes/a (v1, v2) moved to notes/b, edited there four times; `history-prune notes/b
    --keep-last 2` took notes/b v1 (the move in) to v3: notes/b's history began at v4, notes/a's
    versions (kept: another name's) were listed nowhere, v4 counted against nothing (`+7 -0`),
    `revert notes/a --to 1` wrote a second page at notes/a and `purge notes/b` (deleted) left
    notes/a's text. The first version left at notes/b becomes the move in (`history.rejoin_labels`,
    as a text purge's)."""
    with Brain.open(db_path) as b:
        b.put("notes/a", "# a\n\none\n")
        b.put("notes/a", "# a\n\none\ntwo\n")
        b.move_page("notes/a", "notes/b")
        for i in range(4):
            b.put("notes/b", "# a\n\none\ntwo\n" + "".join(f"x{j}\n" for j in range(i + 1)))
        run(b, "history-prune", slug="notes/b", keep_last=2, keep_days=0, apply=True)
        assert listing(b, "notes/b") == [(None, 5, "update", 1, 0), (None, 4, "move", 3, 0), ("notes/a", 2, "update", 1, 0), ("notes/a", 1, "create", 3, 0)]
        r = run(b, "revert", slug="notes/a", to=1)
        assert r["slug"] == "notes/b" and not b.conn.execute("SELECT 1 FROM pages WHERE slug = 'notes/a'").fetchone(), r
        b.delete_page("notes/b")
        from gbrain.core import purge as purgemod

        _, items = purgemod.plan(b, key=("page", "notes/b"))
        assert {(x["name"], x["version"]) for x in items} == {("notes/a", 1), ("notes/a", 2), ("notes/a", 3)} | {("notes/b", v) for v in (4, 5, 6, 7)}, items


def test_diff_of_a_new_page_shows_its_whole_text_added(db_path):
    """`gbrain diff SLUG` of a page with one version exited 1, "fewer than 2 versions with text":
    users expect what `git show` of a root commit gives, and what `history` counts it (`+N -0`):
    the whole text added against nothing, exit 0 (docs/history.md)."""
    db = str(db_path)
    assert cli("put", "notes/new", "--db", db, input=b"# New\n\none\n").returncode == 0
    r = cli("diff", "notes/new", "--db", db)
    assert r.returncode == 0, r.stderr
    out = r.stdout.decode()
    assert out.startswith("--- /dev/null\n+++ notes/new@v1\t") and out.endswith("@@ -0,0 +1,3 @@\n+# New\n+\n+one\n"), out
    assert "+3 -0" in cli("history", "notes/new", "--db", db).stdout.decode()
    j = json.loads(cli("diff", "notes/new", "--json", "--db", db).stdout)
    assert (j["from"], j["to"], j["added"], j["removed"]) == (None, 1, 3, 0), j
    assert cli("put", "notes/empty", "--db", db, input=b"").returncode == 0  # an empty first version: said so
    r = cli("diff", "notes/empty", "--db", db)
    assert (r.returncode, r.stdout) == (0, b"version 1 of notes/empty is its first, and empty\n"), r


def test_history_revert_restore_and_purge_follow_a_case_only_rename(db_path):
    """A page renamed only in case (notes/Ana → notes/ana: two names, one file on a case-folding disk;
    on Postgres `LIKE` is `ILIKE`): history lists both names' versions, `revert`/`restore` of the old
    spelling come back under the new one, `purge` of either spelling takes the same rows (probe of
    2026-12-06: the property's names differ by more than case)."""
    with Brain.open(db_path) as b:
        run(b, "put", slug="notes/Ana", content="# Ana\n\nsecret one\n", if_hash="")
        run(b, "put", slug="notes/Ana", content="# Ana\n\nsecret one\ntwo\n")
        run(b, "move", slug="notes/Ana", to="notes/ana")
        out = []
        out.append([(v.get("name"), v["version"], v["op"], v["added"], v["removed"]) for v in h.versions(b, "notes/ana", limit=0)["versions"]])
        out.append([(v.get("name"), v["version"], v["op"]) for v in h.versions(b, "notes/Ana", limit=0)["versions"]])
        out.append(run(b, "revert", slug="notes/Ana", to=1)["slug"])
        run(b, "delete", slug="notes/ana")
        out.append([t["slug"] for t in h.trash_list(b)])
        out.append(sorted((x["name"], x["version"]) for x in P.plan(b, key=("page", "notes/Ana"))[1]))
        assert sorted((x["name"], x["version"]) for x in P.plan(b, key=("page", "notes/ana"))[1]) == out[-1]
        out.append(run(b, "restore", slug="notes/Ana")["slug"])
        out.append([(v.get("name"), v["version"], v["op"]) for v in h.versions(b, "notes/ana", limit=0)["versions"]])
        assert out == [
            [(None, 1, 'move', 0, 0), ('notes/Ana', 2, 'update', 1, 0), ('notes/Ana', 1, 'create', 3, 0)],
            [(None, 3, 'move'), (None, 2, 'update'), (None, 1, 'create')],
            'notes/ana', ['notes/ana'],
            [('notes/Ana', 1), ('notes/Ana', 2), ('notes/Ana', 3), ('notes/ana', 1), ('notes/ana', 2), ('notes/ana', 3)],
            'notes/ana',
            [(None, 4, 'create'), (None, 3, 'delete'), (None, 2, 'update'), (None, 1, 'move'), ('notes/Ana', 2, 'update'), ('notes/Ana', 1, 'create')]]


def test_history_follows_a_page_moved_into_a_logseq_graphs_pages_folder(db_path):
    """A page moved into a Logseq graph's `pages/` (its title then its file's Logseq name): history,
    `revert OLD`, `restore OLD` and `purge` of either name follow it by its names (probe of 2026-12-06)."""
    with Brain.open(db_path) as b:
        b.save_file("graph/logseq/config.edn", b"{:meta/version 1}\n")
        run(b, "put", slug="notes/reading", content="title:: Reading\n\nsecret one\n", if_hash="")
        run(b, "move", slug="notes/reading", to="graph/pages/Project___Alpha")
        run(b, "put", slug="graph/pages/Project___Alpha", content="title:: Reading\n\nsecret one\n- more\n")
        out = []
        out.append([(v.get("name"), v["version"], v["op"], v["added"], v["removed"]) for v in h.versions(b, "graph/pages/Project___Alpha", limit=0)["versions"]])
        out.append(run(b, "revert", slug="notes/reading", to=1)["slug"])
        run(b, "delete", slug="graph/pages/Project___Alpha")
        out.append(run(b, "restore", slug="notes/reading")["slug"])
        run(b, "delete", slug="graph/pages/Project___Alpha")
        out.append(sorted((x["name"], x["version"]) for x in P.plan(b, key=("page", "notes/reading"))[1]))
        out.append(sorted((x["name"], x["version"]) for x in P.plan(b, key=("page", "graph/pages/Project___Alpha"))[1]))
        assert out[0] == [(None, 2, "update", 1, 0), (None, 1, "move", 0, 0), ("notes/reading", 1, "create", 3, 0)]
        assert out[1] == out[2] == "graph/pages/Project___Alpha"
        assert out[3] == out[4] == [("graph/pages/Project___Alpha", v) for v in range(1, 7)] + [("notes/reading", 1), ("notes/reading", 2)]


def _synced_then_offline(db_path, tmp_path):
    """A folder synced with notes/a.md (five lines), the brain's page edited four times at its first
    line while the folder, offline, edits its last: ``(brain, engine, folder)``."""
    root = tmp_path / "vault"
    (root / "notes").mkdir(parents=True)
    t0 = "".join(f"line {i}\n" for i in range(5))
    (root / "notes/a.md").write_text(t0)
    b = Brain.open(db_path)
    e = SyncEngine(b, root)
    e.bind()
    assert e.sync()["exit_code"] == 0
    for i in range(4):
        run(b, "put", slug="notes/a", content=f"line 0 brain {i}\n" + t0.split("\n", 1)[1])
    (root / "notes/a.md").write_text(t0.replace("line 4\n", "line 4 folder\n"))
    return b, t0, root


def test_a_prune_keeps_the_merge_base_of_a_folder_that_comes_back(db_path, tmp_path):
    """Trial 69: a folder offline across `history-prune --keep-last 1` merges its edit with the
    brain's on return (its base, notes/a v1, kept), no conflict copy."""
    b, t0, root = _synced_then_offline(db_path, tmp_path)
    with b:
        run(b, "history-prune", keep_last=1, keep_days=0, apply=True)
        assert [v["version"] for v in h.versions(b, "notes/a", limit=0)["versions"]] == [5, 1]
        rep = SyncEngine(b, root).sync()
        assert rep["merged"] == ["notes/a.md"] and not rep["conflicts"], rep
        assert b.get_text("notes/a") == "line 0 brain 3\nline 1\nline 2\nline 3\nline 4 folder\n"


def test_a_prune_keeps_a_merge_base_once_not_every_version_of_its_text(db_path, tmp_path):
    """A folder's merge base is a text, read by its hash from any version holding it
    (``SyncEngine._base_bytes``): a prune kept every version of every page whose text equalled a
    base (another page made from the same template, the text a page went back to), for as long
    as the folder stays bound. One version holding it is kept: the folder's path's own, else the
    newest; none more when a version kept anyway holds it (the merge still merges)."""
    b, t0, root = _synced_then_offline(db_path, tmp_path)
    with b:
        run(b, "put", slug="notes/other", content=t0)  # the same text: a template
        for i in range(3):
            run(b, "put", slug="notes/other", content=t0 + f"more {i}\n")
        run(b, "put", slug="notes/third", content="x\n")
        run(b, "put", slug="notes/third", content=t0)  # a version of the base's text at another page
        run(b, "put", slug="notes/third", content="y\n")
        run(b, "history-prune", slug="notes/other", keep_last=1, keep_days=0, apply=True)  # another page's version holds it
        assert [v["version"] for v in h.versions(b, "notes/other", limit=0)["versions"]] == [4]
        run(b, "history-prune", keep_last=1, keep_days=0, apply=True)
        assert [v["version"] for v in h.versions(b, "notes/a", limit=0)["versions"]] == [5, 1]
        assert [v["version"] for v in h.versions(b, "notes/other", limit=0)["versions"]] == [4]
        assert [v["version"] for v in h.versions(b, "notes/third", limit=0)["versions"]] == [3]
        rep = SyncEngine(b, root).sync()
        assert rep["merged"] == ["notes/a.md"] and not rep["conflicts"], rep


def test_diff_of_a_binary_files_first_version_says_it_is_added(db_path):
    """A binary file's first version diffed against nothing said "Binary versions none and 1
    differ"; it says what `diff` of a text's first version shows: version 1 added, nothing before."""
    with Brain.open(db_path) as b:
        b.save_file("img/a.png", b"\x89PNG\r\n\x1a\n\x00\xff")
        r = run(b, "diff", slug="img/a.png")
        assert (r["from"], r["to"], r["diff"]) == (None, 1, "Binary version 1 of img/a.png is its first: added against nothing\n"), r
        b.save_file("img/a.png", b"\x89PNG\r\n\x1a\n\x00\xfe")
        assert run(b, "diff", slug="img/a.png")["diff"] == "Binary versions 1 and 2 differ\n"


def test_a_prune_with_include_deleted_keeps_the_merge_base_of_a_page_the_brain_renamed(db_path, tmp_path):
    """`history-prune --include-deleted` dropped every row of a name the page had moved away from
    (not live: treated as deleted), its merge base too: a folder offline across it came back with
    notes/a.md edited and got a `deleted-in-brain` conflict, notes/a.md left beside notes/b.md, where
    it merges (and does without --include-deleted). A page that lives on at another name keeps its
    base; a deleted one's goes with it (nothing to merge into)."""
    b, t0, root = _synced_then_offline(db_path, tmp_path)
    with b:
        run(b, "move", slug="notes/a", to="notes/b")
        run(b, "put", slug="notes/b", content="line 0 brain 9\n" + t0.split("\n", 1)[1])
        run(b, "put", slug="notes/c", content="# c\n")
        run(b, "delete", slug="notes/c")
        run(b, "history-prune", keep_last=1, keep_days=0, apply=True, include_deleted=True)
        assert h.trash_list(b) == []
        rep = SyncEngine(b, root).sync()
        assert rep["merged"] == ["notes/b.md"] and not rep["conflicts"], rep
        assert not (root / "notes/a.md").exists()
        assert b.get_text("notes/b") == "line 0 brain 9\nline 1\nline 2\nline 3\nline 4 folder\n"


def test_undo_of_a_page_whose_version_before_was_purged_never_says_pruned(db_path):
    """review: `undo`'s skip reason said "was pruned" when a `purge` took the version before the
    window's first write: it says the version was removed from the history, by either."""
    with Brain.open(db_path) as b:
        run(b, "put", slug="notes/a", content="# a\n\nsecret 7731\n")
        since = b.conn.execute("SELECT strftime('%Y-%m-%dT%H:%M:%fZ', 'now')").fetchone()[0]
        run(b, "put", slug="notes/a", content="# a\n\nclean\n")
        assert P.purge(b, text="secret 7731", apply=True)["versions"] >= 1
        plan = {p["name"]: p for p in h.undo_plan(b, since)}
        reason = plan["notes/a"]["reason"]
        assert plan["notes/a"]["action"] == "skip" and "was pruned" not in reason and "removed from the history" in reason, plan


def test_undo_of_a_page_whose_version_before_was_pruned_skips_it_not_deletes_it(db_path):
    """notes/a written four times; `history-prune --keep-last 1` took all but the last: `undo`
    (here `--by` the one writer, since before the last write) read the page as created in the
    window, no version before its first selected write being left, and put it in the trash. It
    skips it, saying the version before was pruned; a page created in the window still goes."""
    with Brain.open(db_path) as b:
        for i in range(3):
            run(b, "put", slug="notes/a", content="# a\n\n" + "".join(f"{j}\n" for j in range(i + 1)))
        since = b.conn.execute("SELECT strftime('%Y-%m-%dT%H:%M:%fZ', 'now')").fetchone()[0]
        run(b, "put", slug="notes/a", content="# a\n\n0\n1\n2\n3\n")
        run(b, "put", slug="notes/n", content="# n\n")
        run(b, "history-prune", keep_last=1, keep_days=0, apply=True)
        by = b.conn.execute("SELECT writer FROM history WHERE name = 'notes/a'").fetchone()[0] or None
        plan = {p["name"]: p for p in h.undo_plan(b, since, by=by)}
        assert plan["notes/a"]["action"] == "skip" and "removed from the history (`history-prune` or `purge`)" in plan["notes/a"]["reason"], plan
        assert plan["notes/n"]["action"] == "delete", plan


def test_a_trash_entry_left_of_a_move_away_says_where_it_moved_not_move_cli(db_path):
    """`move a b; delete b; history-prune b --include-deleted`: a's move away becomes the page's
    deletion (`history._ended_aways`), and the trash listed its reason as "move (cli)" (review):
    it says what happened, "moved to notes/b, then deleted there (cli)"."""
    with Brain.open(db_path) as b:
        run(b, "put", slug="notes/a", content="# a\n\none\n")
        run(b, "move", slug="notes/a", to="notes/b")
        run(b, "delete", slug="notes/b")
        h.prune(b, 0, 0, apply=True, include_deleted=True, key=("page", "notes/b"))
        t = [x for x in h.trash_list(b, limit=0) if x["slug"] == "notes/a"]
        assert len(t) == 1 and t[0]["reason"] == "moved to notes/b, then deleted there (cli)", h.trash_list(b, limit=0)


@pytest.mark.parametrize("how", ["delete", "sync"])
def test_a_prune_leaves_a_deleted_page_where_its_raw_sidecar_is(db_path, tmp_path, how):
    """`move a b` (its `.raw` sidecar follows to `b.json`), `delete b` (the sidecar stays live at
    `b.json`: `delete` keeps it; under sync both files deleted, the sidecar in the trash at
    `b.json`), then `history-prune b --keep-last 0 --include-deleted`: before 2026-12-06 the
    page's stretch at b went, a's move away became its deletion (`history._ended_aways`) and the
    page went back into the trash at a, its sidecar left behind at `b.json` (live, a sidecar of no
    page, or in the trash where `restore a` never looked). The page's end at b stays while a
    sidecar of it is left there (`history._sidecar_left`): `restore b` brings both back."""
    root = tmp_path / "v"
    (root / "notes" / ".raw").mkdir(parents=True)
    with Brain.open(db_path) as b:
        if how == "sync":
            (root / "notes" / "a.md").write_text("# a\n\none\n")
            (root / "notes" / ".raw" / "a.json").write_text('{"sources": {"src": {"x": 1}}}')
            eng = SyncEngine(b, root)
            eng.bind()
            eng.sync()
            (root / "notes" / "a.md").rename(root / "notes" / "b.md")
            (root / "notes" / ".raw" / "a.json").rename(root / "notes" / ".raw" / "b.json")
            assert eng.sync()["counts"]["moved"] == 2
            (root / "notes" / "b.md").unlink()
            (root / "notes" / ".raw" / "b.json").unlink()
            assert eng.sync()["counts"]["trashed"] == 2
            eng.close()
        else:
            run(b, "put", slug="notes/a", content="# a\n\none\n", if_hash="")
            run(b, "raw", slug="notes/a", source="src", data={"x": 1})
            run(b, "move", slug="notes/a", to="notes/b")
            run(b, "delete", slug="notes/b")
        live = b.conn.execute("SELECT 1 FROM files WHERE path = 'notes/.raw/b.json'").fetchone() is not None
        assert live == (how == "delete")
        h.prune(b, 0, 0, apply=True, include_deleted=True, key=("page", "notes/b"))
        assert [x["slug"] for x in h.trash_list(b, limit=0) if x["kind"] == "page"] == ["notes/b"], h.trash_list(b, limit=0)
        r = run(b, "restore", slug="notes/b")
        assert r["restored"] == ["notes/b.md"] + ([] if live else ["notes/.raw/b.json"]), r
        assert '"x": 1' in json.dumps(b.raw_get("notes/b"))


@pytest.mark.parametrize("to", ["notes/.raw/c.json", "archive/b.json"])
def test_a_raw_sidecar_moved_away_after_its_pages_delete_is_not_left_there(db_path, to):
    """`move a b` (its `.raw` sidecar follows to `b.json`), `delete b` (the sidecar stays live at
    `b.json`), then the sidecar moved away from `b.json` (to another page's sidecar name, or out of
    `.raw`): `history-prune b --keep-last 0 --include-deleted` kept the page's end at b as if its
    sidecar were left there (`history._sidecar_left` counted the sidecar's kept rows at `b.json`,
    its move away among them), so the page stayed in the trash at b, a name nothing of it is at. A
    sidecar whose newest row at the name is its move away is not left there: the stretch at b goes,
    a's move away becomes the page's deletion (`history._ended_aways`), `restore a` brings it back
    at a; the sidecar where it went is untouched."""
    with Brain.open(db_path) as b:
        run(b, "put", slug="notes/a", content="# a\n\none\n", if_hash="")
        run(b, "raw", slug="notes/a", source="src", data={"x": 1})
        run(b, "move", slug="notes/a", to="notes/b")
        run(b, "delete", slug="notes/b")
        assert b.conn.execute("SELECT 1 FROM files WHERE path = 'notes/.raw/b.json'").fetchone() is not None
        with b.transaction():
            b.move_stored("notes/.raw/b.json", to)
        h.prune(b, 0, 0, apply=True, include_deleted=True, key=("page", "notes/b"))
        t = [(x["slug"], x["reason"]) for x in h.trash_list(b, limit=0) if x["kind"] == "page"]
        assert t == [("notes/a", "moved to notes/b, then deleted there (cli)")], h.trash_list(b, limit=0)
        r = run(b, "restore", slug="notes/a")
        assert r["restored"] == ["notes/a.md"] and b.get_text("notes/a") == "# a\n\none\n", r
        assert b.conn.execute("SELECT 1 FROM files WHERE path = ?", (to,)).fetchone() is not None
