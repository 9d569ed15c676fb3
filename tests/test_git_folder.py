"""A brain folder kept in git (docs/sync.md, "Brains in git"): git operations on the folder are the
user's, not an unmounted drive.

A. the mass-deletion guard lets through the deletions of a ``git checkout``/``switch``/``reset``
   (the folder is a git work tree and git moved: HEAD, its ref, ORIG_HEAD or the index changed
   since the last sync, and git's index no longer lists the notes gone) and still refuses an
   emptied folder when git did not move (``gbrain/sync/gitstate.py``);
B. ``gbrain import DIR`` run again after ``git mv a.md b.md`` moves the page (same id, history,
   tags) as ``sync`` does, instead of adding a second page.

Real ``git`` makes the repositories (product code reads ``.git`` by its files only). Engine-level
tests run on both engines (``--engine postgres``); watch is driven in-process (its pending set
with made-up times, then ``Watcher._safe_batch``), so nothing waits on a clock.
"""
from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from gbrain.core.brain import Brain
from gbrain.core.history import trash_list
from gbrain.sync.engine import MASS_TRASH, MassDeleteRefused, SyncEngine
from gbrain.sync.importer import import_tree
from gbrain.sync.scan import db_excludes, scan_tree
from gbrain.sync.verify import fresh_import_differences, verify_tree
from gbrain.sync.watch import SETTLE_S, Watcher

from conftest import gbrain

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs the git command to make repositories")

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org", "GIT_CONFIG_NOSYSTEM": "1", "HOME": "/nonexistent"}


def git(cwd: Path, *args: str) -> str:
    r = subprocess.run(["git", "-c", "init.defaultBranch=main", "-c", "core.autocrlf=false", *args], cwd=cwd,
                       capture_output=True, text=True, env={**os.environ, **GIT_ENV})
    assert r.returncode == 0, f"git {' '.join(args)}: {r.stderr}"
    return r.stdout


def notes(root: Path, folder: str, n: int, stem: str = "n") -> list[str]:
    d = root / folder if folder else root
    d.mkdir(parents=True, exist_ok=True)
    out = []
    for i in range(n):
        (d / f"{stem}{i}.md").write_text(f"# {stem} {i}\n\nin {folder or 'root'}, note number {i} of {n}\n", encoding="utf-8")
        out.append(f"{folder}/{stem}{i}.md" if folder else f"{stem}{i}.md")
    return out


def repo_with_branch(root: Path, n: int = MASS_TRASH + 5) -> list[str]:
    """A repository at ``root``: branch ``main`` with ``meetings/`` (``n`` notes) and 3 other
    notes; branch ``other`` without ``meetings/``. ``main`` is checked out."""
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q")
    gone = notes(root, "meetings", n)
    notes(root, "", 3, "keep")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "main")
    git(root, "checkout", "-qb", "other")
    git(root, "rm", "-rq", "meetings")
    git(root, "commit", "-qm", "no meetings")
    git(root, "checkout", "-q", "main")
    return gone


def trash(b: Brain) -> list[str]:
    return [t["path"] for t in trash_list(b, limit=0)]


def equal(b: Brain, root: Path) -> bool:
    return verify_tree(b, scan_tree(root, exclude_abs=db_excludes(b.path)))["ok"]


def sync(b: Brain, root: Path, **kw) -> dict:
    eng = SyncEngine(b, root)
    for k, v in kw.items():
        setattr(eng, k, v)
    eng.bind()
    try:
        return eng.sync()
    finally:
        eng.close()


# ---- A. the mass-deletion guard -----------------------------------------------------------


@pytest.mark.parametrize("how", [("checkout", "other"), ("switch", "other")])
def test_a_checkout_of_a_branch_without_a_folder_is_an_ordinary_delete(tmp_path, db_path, how):
    root = tmp_path / "brain"
    gone = repo_with_branch(root)
    with Brain.open(db_path) as b:
        assert sync(b, root)["ok"]
        git(root, *how)
        rep = sync(b, root)
        assert rep["ok"], rep["problems"]
        assert rep["counts"]["trashed"] == len(gone)
        assert sorted(trash(b)) == sorted(gone)
        assert rep["git"] and "main → other" in rep["git"][0] and f"{len(gone)} notes" in rep["git"][0], rep["git"]
        assert "history" in rep["git"][0]
        assert equal(b, root)
        # and back: the notes come back as pages again
        git(root, "checkout", "-q", "main")
        rep = sync(b, root)
        assert rep["ok"] and rep["counts"]["imported"] == len(gone)


def test_a_reset_hard_that_drops_a_folder_is_an_ordinary_delete(tmp_path, db_path):
    """`git reset --hard HEAD~1` on the branch itself (HEAD's ref and ORIG_HEAD move, HEAD's text
    does not)."""
    root = tmp_path / "brain"
    root.mkdir()
    git(root, "init", "-q")
    notes(root, "", 3, "keep")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "one")
    gone = notes(root, "wiki", MASS_TRASH + 2)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "two")
    with Brain.open(db_path) as b:
        assert sync(b, root)["ok"]
        git(root, "reset", "-q", "--hard", "HEAD~1")
        rep = sync(b, root)
        assert rep["ok"] and sorted(trash(b)) == sorted(gone)
        assert "reset" in rep["git"][0] or "moved" in rep["git"][0], rep["git"]


def test_an_emptied_folder_is_still_refused_when_git_did_not_move(tmp_path, db_path):
    root = tmp_path / "brain"
    repo_with_branch(root)
    with Brain.open(db_path) as b:
        assert sync(b, root)["ok"]
        shutil.rmtree(root / "meetings")  # rm -rf, git untouched
        with pytest.raises(MassDeleteRefused):
            sync(b, root)
        assert trash(b) == []


def test_a_commit_does_not_let_an_rm_rf_of_tracked_notes_through(tmp_path, db_path):
    """git moved (a commit elsewhere), but git's index still lists the notes gone: not git's doing."""
    root = tmp_path / "brain"
    repo_with_branch(root)
    with Brain.open(db_path) as b:
        assert sync(b, root)["ok"]
        (root / "keep0.md").write_text("# keep 0\n\nedited\n", encoding="utf-8")
        git(root, "commit", "-qam", "edit")
        shutil.rmtree(root / "meetings")
        with pytest.raises(MassDeleteRefused):
            sync(b, root)
        assert trash(b) == []


def test_an_unmounted_repository_is_still_refused(tmp_path, db_path):
    """The drive holding the folder (and its .git) is gone: only a stub is left where it was
    mounted. No git state can be read, so git cannot vouch for anything."""
    root = tmp_path / "brain"
    gone = repo_with_branch(root)
    with Brain.open(db_path) as b:
        assert sync(b, root)["ok"]
        for p in list(root.iterdir()):
            shutil.rmtree(p) if p.is_dir() else p.unlink()
        (root / ".DS_Store").write_bytes(b"\0")
        with pytest.raises(MassDeleteRefused):
            sync(b, root)
        assert trash(b) == []
        assert len(gone) == MASS_TRASH + 5


def test_git_rm_of_a_folder_is_an_ordinary_delete(tmp_path, db_path):
    """`git rm -r meetings`: only the index moved, and it no longer lists the notes."""
    root = tmp_path / "brain"
    gone = repo_with_branch(root)
    with Brain.open(db_path) as b:
        assert sync(b, root)["ok"]
        git(root, "rm", "-rq", "meetings")
        rep = sync(b, root)
        assert rep["ok"] and sorted(trash(b)) == sorted(gone)


def test_a_folder_inside_a_bigger_repository_and_a_linked_worktree(tmp_path, db_path):
    """The brain is ``vault/`` of a repository, checked out in a linked worktree (``.git`` is a
    file there, naming the worktree's git dir); the ``.git`` file is no note or file of the brain."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    gone = notes(repo, "vault/meetings", MASS_TRASH + 1)
    notes(repo, "vault", 2, "keep")
    (repo / "code.py").write_text("x = 1\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "main")
    git(repo, "branch", "other")
    git(repo, "checkout", "-q", "other")
    git(repo, "rm", "-rq", "vault/meetings")
    git(repo, "commit", "-qm", "no meetings")
    git(repo, "checkout", "-q", "main")
    wt = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", str(wt), "-b", "work", "main")
    assert (wt / ".git").is_file()
    with Brain.open(db_path) as b:
        rep = sync(b, wt)
        assert rep["ok"]
        assert not b.conn.execute("SELECT 1 FROM files WHERE path = '.git'").fetchone()
        git(wt, "reset", "-q", "--hard", "other")
        rep = sync(b, wt)
        assert rep["ok"], rep["problems"]
        assert sorted(trash(b)) == sorted("vault/" + p[len("vault/"):] for p in gone)
    # a brain folder below the work tree's top (git's index names its notes from the top)
    git(wt, "reset", "-q", "--hard", "main")
    with Brain.open(tmp_path / "vault.db") as b2:
        assert sync(b2, wt / "vault")["ok"]
        git(wt, "reset", "-q", "--hard", "other")
        rep = sync(b2, wt / "vault")
        assert rep["ok"] and len(trash(b2)) == len(gone)
        git(wt, "reset", "-q", "--hard", "main")
        assert sync(b2, wt / "vault")["ok"]
        shutil.rmtree(wt / "vault" / "meetings")  # and an rm -rf there is still refused
        with pytest.raises(MassDeleteRefused):
            sync(b2, wt / "vault")


def watcher(b: Brain, root: Path, said: list[str]) -> Watcher:
    w = Watcher(b, root, log=said.append, debounce=0.1, max_wait=2.0)
    w.engine.bind()
    assert w.engine.sync()["ok"]
    return w


def drive(w: Watcher, t: float) -> bool:
    batch = w.pending.take(t, w._exists)
    if batch is None:
        return False
    paths, dirs = batch
    if paths or dirs:
        assert w._safe_batch(paths, dirs, retry={}, maybe_moved=set(w.pending.gone_paths))
    return True


def test_watch_takes_a_checkout_s_deletions_as_the_user_s(tmp_path, db_path):
    root = tmp_path / "brain"
    gone = repo_with_branch(root)
    said: list[str] = []
    with Brain.open(db_path) as b:
        w = watcher(b, root, said)
        try:
            git(root, "checkout", "-q", "other")
            t = 100.0
            for p in gone:
                w.pending.add("gone", p, t)
            w.pending.add("gonedir", "meetings", t)
            drive(w, t + 0.2)  # deletions still settling: nothing trashed yet
            assert trash(b) == []
            drive(w, t + SETTLE_S + 0.1)
            assert sorted(trash(b)) == sorted(gone)
            assert not w.engine.held
            assert any("git" in s and "main → other" in s for s in said), said
            assert not any("unmounted" in s for s in said), said
            assert equal(b, root)
        finally:
            w.engine.close()


def test_watch_still_holds_back_an_emptied_folder_when_git_did_not_move(tmp_path, db_path):
    root = tmp_path / "brain"
    gone = repo_with_branch(root)
    said: list[str] = []
    with Brain.open(db_path) as b:
        w = watcher(b, root, said)
        try:
            shutil.rmtree(root / "meetings")
            t = 100.0
            for p in gone:
                w.pending.add("gone", p, t)
            drive(w, t + SETTLE_S + 0.1)
            assert trash(b) == []
            assert w.engine.held == set(gone)
        finally:
            w.engine.close()


def test_watch_start_after_a_checkout_it_did_not_see(tmp_path, db_path):
    """A checkout while no watch ran: the start-up sync compares with the state the last sync
    recorded (kept outside the folder, per brain and folder)."""
    root = tmp_path / "brain"
    gone = repo_with_branch(root)
    with Brain.open(db_path) as b:
        assert sync(b, root)["ok"]
        git(root, "checkout", "-q", "other")
        said: list[str] = []
        w = Watcher(b, root, log=said.append, debounce=0.1, max_wait=2.0)
        w.engine.bind()
        try:
            rep = w._first_sync()
            assert rep["ok"] and sorted(trash(b)) == sorted(gone)
        finally:
            w.engine.close()


@pytest.mark.engine_free
def test_the_watcher_ignores_git_s_own_files(tmp_path):
    from gbrain.sync.watch import _Handler

    import queue

    q: queue.SimpleQueue = queue.SimpleQueue()
    h = _Handler(str(tmp_path), q, set())
    assert h._rel(str(tmp_path / ".git" / "index")) is None
    assert h._rel(str(tmp_path / ".git")) is None
    assert h._rel(str(tmp_path / "a.md")) == "a.md"


# ---- reading .git by its files ------------------------------------------------------------


@pytest.mark.engine_free
@pytest.mark.parametrize("version", [2, 3, 4])
def test_the_index_reader_lists_what_git_ls_files_lists(tmp_path, version):
    root = tmp_path / "r"
    root.mkdir()
    git(root, "init", "-q")
    names = notes(root, "a/b", 5) + notes(root, "a", 3, "x") + notes(root, "", 2, "é ü")
    (root / "long").mkdir()
    (root / "long" / ("n" * 200 + ".md")).write_text("x")
    git(root, "add", "-A")
    if version > 2:  # intent-to-add: an entry with extended flags (git then writes version 3 at least)
        (root / "new.md").write_text("intent\n")
        git(root, "add", "-N", "new.md")
    git(root, "update-index", "--index-version", str(version))
    assert struct.unpack(">I", (root / ".git" / "index").read_bytes()[4:8])[0] == version
    from gbrain.sync import gitstate

    want = set(git(root, "-c", "core.quotepath=off", "ls-files", "-z").split("\0")) - {""}
    g = gitstate.find(root)
    assert g is not None
    got = gitstate.index_paths(g)
    assert got is not None
    assert {p.decode("utf-8") for p in got} == want
    assert set(names) <= want


@pytest.mark.engine_free
def test_git_state_by_files_only(tmp_path):
    root = tmp_path / "r"
    repo_with_branch(root)
    from gbrain.sync import gitstate

    a = gitstate.fingerprint(root / "meetings")  # a folder inside the work tree
    assert a is not None and a["head"] == "ref: refs/heads/main"
    assert gitstate.fingerprint(root) == a or gitstate.fingerprint(root)["markers"] == a["markers"]
    git(root, "checkout", "-q", "other")
    c = gitstate.fingerprint(root)
    assert gitstate.moved(a, c) and gitstate.describe(a, c).startswith("git checkout main → other")
    assert not gitstate.moved(c, gitstate.fingerprint(root))
    assert gitstate.fingerprint(tmp_path / "nothing-here") is None
    plain = tmp_path / "plain"
    plain.mkdir()
    assert gitstate.fingerprint(plain) is None


# ---- B. import again after a rename ---------------------------------------------------------


def test_import_again_after_git_mv_moves_the_page(tmp_path, db_path):
    root = tmp_path / "brain"
    root.mkdir()
    git(root, "init", "-q")
    (root / "people").mkdir()
    (root / "people" / "ana.md").write_text("---\ntags: [friend]\n---\n# Ana\n\nWorks with [[bruno]].\n", encoding="utf-8")
    (root / "bruno.md").write_text("# Bruno\n\nKnows [[ana]].\n", encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "one")
    with Brain.open(db_path) as b:
        assert import_tree(b, root)["ok"]
        pid = b.conn.execute("SELECT id FROM pages WHERE path = 'people/ana.md'").fetchone()[0]
        git(root, "mv", "people/ana.md", "people/ana-lima.md")
        rep = import_tree(b, root)
        assert rep["ok"], rep["problems"]
        rows = b.conn.execute("SELECT id, path FROM pages ORDER BY path").fetchall()
        assert [tuple(r) for r in rows] == [(rows[0][0], "bruno.md"), (pid, "people/ana-lima.md")]
        assert rep["moved"] == [{"from": "people/ana.md", "to": "people/ana-lima.md"}]
        assert trash(b) == []
        # the history chain goes on: the move is a version of the same page
        r = gbrain("history", "people/ana-lima", "--json", env={"GBRAIN_DB": str(db_path)})
        assert r.returncode == 0, r.stderr
        ops = [(v["op"], v["path"]) for v in json.loads(r.stdout)["versions"]]
        assert ops[0] == ("move", "people/ana-lima.md") and ("create", "people/ana.md") in ops, ops
        assert fresh_import_differences(b) == {}
        # and a rename with an edit (similar text), without git
        os.rename(root / "bruno.md", root / "people" / "bruno-okafor.md")
        with open(root / "people" / "bruno-okafor.md", "a", encoding="utf-8") as fh:
            fh.write("\nMet in 2024.\n")
        bid = rows[0][0]
        rep = import_tree(b, root)
        assert rep["ok"], rep["problems"]
        assert b.conn.execute("SELECT id FROM pages WHERE path = 'people/bruno-okafor.md'").fetchone()[0] == bid
        assert not b.conn.execute("SELECT 1 FROM pages WHERE path = 'bruno.md'").fetchone()
        assert fresh_import_differences(b) == {}
        assert equal(b, root)


def test_import_again_never_trashes_or_writes_files(tmp_path, db_path):
    """Import stays additive: a deleted file's page is kept; a page edited in the brain whose
    file was renamed moves with the brain's version, which is not written to the new file (that
    is `gbrain sync`'s job)."""
    root = tmp_path / "brain"
    notes(root, "", 4)
    with Brain.open(db_path) as b:
        assert import_tree(b, root)["ok"]
        (root / "n0.md").unlink()
        os.rename(root / "n1.md", root / "m1.md")
        b.put("n2", "# n 2\n\nedited in the brain\n")
        os.rename(root / "n2.md", root / "m2.md")
        before = {p.name: p.read_bytes() for p in root.iterdir()}
        rep = import_tree(b, root)
        assert {p.name: p.read_bytes() for p in root.iterdir()} == before
        paths = {r[0] for r in b.conn.execute("SELECT path FROM pages")}
        assert "n0.md" in paths and "m1.md" in paths and "n1.md" not in paths
        assert trash(b) == []
        assert rep["moved"] == [{"from": "n1.md", "to": "m1.md"}, {"from": "n2.md", "to": "m2.md"}]
        assert b.get_text("m2") == "# n 2\n\nedited in the brain\n" and "n2.md" not in paths



def test_a_checkout_under_a_running_watch(tmp_path, db_path):
    """`gbrain watch` as a real process with a real observer: `git checkout other` trashes the
    folder the branch lacks (said as git's), `git checkout main` brings it back; `.git/` never
    reaches the brain. Waits on conditions only."""
    from test_watch import Watch, wait_for

    root = tmp_path / "brain"
    gone = repo_with_branch(root)
    w = Watch(root, db_path)
    try:
        with Brain.open(db_path) as b:
            git(root, "checkout", "-q", "other")
            wait_for(lambda: sorted(trash(b)) == sorted(gone), "the checkout's deletions to be trashed")
            wait_for(lambda: w.saw("git checkout main → other"), "watch to say git made them")
            assert not w.saw("unmounted")
            git(root, "checkout", "-q", "main")
            wait_for(lambda: b.conn.execute("SELECT COUNT(*) FROM pages WHERE path LIKE 'meetings/%'").fetchone()[0] == len(gone), "the notes back")
            wait_for(lambda: equal(b, root), "the tree and the brain to verify equal")
            assert not b.conn.execute("SELECT 1 FROM files WHERE path LIKE '.git%'").fetchone()
        code, _ = w.stop()
        assert code == 0, "\n".join(w.lines)
    finally:
        w.kill()


def test_import_again_moves_a_renamed_page_s_sidecar_with_it(tmp_path, db_path):
    root = tmp_path / "brain"
    (root / "people" / ".raw").mkdir(parents=True)
    (root / "people" / "ana.md").write_text("# Ana\n\nA founder.\n", encoding="utf-8")
    (root / "people" / ".raw" / "ana.json").write_text('{"sources": {"crm": {"id": 7}}}\n', encoding="utf-8")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "one")
    with Brain.open(db_path) as b:
        assert import_tree(b, root)["ok"]
        pid = b.conn.execute("SELECT id FROM pages WHERE path = 'people/ana.md'").fetchone()[0]
        git(root, "mv", "people/ana.md", "people/ana-lima.md")
        rep = import_tree(b, root)
        assert rep["ok"], rep["problems"]
        assert b.conn.execute("SELECT id FROM pages WHERE path = 'people/ana-lima.md'").fetchone()[0] == pid
        assert (root / "people" / ".raw" / "ana-lima.json").exists() and not (root / "people" / ".raw" / "ana.json").exists()
        assert b.conn.execute("SELECT COUNT(*) FROM raw_data WHERE page_id = ?", (pid,)).fetchone()[0] == 1
        assert fresh_import_differences(b) == {}
        assert equal(b, root)
