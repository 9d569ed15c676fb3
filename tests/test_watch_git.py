"""A brain folder kept in git while an agent writes through gbrain (trial 44).

git's own ways of discarding uncommitted changes (``git stash``, ``git checkout -f``, ``git reset
--hard``, ``git restore``) rewrite a note with an older version: byte for byte the blob git's
index holds. When the changes discarded were writes through gbrain (an agent's puts, which watch
had written to the file), the stale-save rule took git's rewrite for an editor saving an old
buffer and merged the agent's lines back: the tree was dirty again at once, and ``git stash pop``
failed ("Your local changes … would be overwritten"). A file equal to git's index blob is git's
write, taken as the user's (the brain's replaced version stays in the history); an editor's stale
save (the buffer plus typed lines) is still merged.

Real ``git`` makes the repositories; the engine runs on both engines (``--engine postgres``),
and one scenario runs ``gbrain watch`` as a real process with a real observer.
"""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from gbrain.core.brain import Brain
from gbrain.core.history import trash_list
from gbrain.sync.engine import SyncEngine
from gbrain.sync.gitstate import blob_ids, find, index_blobs

from test_git_folder import GIT_ENV, equal, git, pytestmark  # noqa: F401  (skips without git)
from test_watch import Watch, wait_for
from conftest import gbrain

PATH = "notes/a.md"
SLUG = "notes/a"
HEAD_TEXT = "# A\n\nA note kept in git.\n\n## Timeline\n\n- **2026-12-01** | user | committed\n"


def repo(root: Path) -> None:
    (root / "notes").mkdir(parents=True)
    (root / PATH).write_text(HEAD_TEXT, encoding="utf-8")
    (root / "notes" / "b.md").write_text("# B\n\nanother note\n", encoding="utf-8")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "init")


def agent_writes(b: Brain, n: int = 2) -> list[str]:
    """``n`` writes through gbrain (an agent's timeline entries); returns their lines."""
    lines = []
    for i in range(n):
        summary = f"agent entry number {i} about the quarterly plan"
        b.timeline_add(SLUG, f"2026-12-0{2 + i}", summary, "agent")
        lines.append(summary)
    return lines


def git_ok(root: Path, *args: str) -> subprocess.CompletedProcess:
    import os

    return subprocess.run(["git", "-c", "core.autocrlf=false", *args], cwd=root, capture_output=True, text=True,
                          env={**os.environ, **GIT_ENV})


def versions(b: Brain) -> list[str]:
    from gbrain.core.history import version_bytes

    n = b.conn.execute("SELECT MAX(version) FROM history WHERE kind = 'page' AND name = ?", (SLUG,)).fetchone()[0]
    return [version_bytes(b, "page", SLUG, v).decode("utf-8") for v in range(1, n + 1)
            if b.conn.execute("SELECT body_id FROM history WHERE kind = 'page' AND name = ? AND version = ?", (SLUG, v)).fetchone()[0]]


@pytest.mark.engine_free
def test_blob_ids_are_git_s_object_ids(tmp_path):
    root = tmp_path / "r"
    repo(root)
    g = find(root)
    blobs = index_blobs(g)
    assert blobs[PATH.encode()].hex() == git(root, "rev-parse", f"HEAD:{PATH}").strip()
    assert blobs[PATH.encode()] in blob_ids(g, HEAD_TEXT.encode())
    assert blobs[PATH.encode()] in blob_ids(g, HEAD_TEXT.replace("\n", "\r\n").encode())  # autocrlf's checkout
    assert blobs[PATH.encode()] not in blob_ids(g, HEAD_TEXT.encode() + b"x")


@pytest.mark.engine_free
def test_the_index_caches_the_stat_of_the_file_git_wrote(tmp_path):
    """`gitstate.stat_cached`: the stat git's index entry holds is the file's after git wrote it
    (here `checkout -f`), not after an editor rewrote the same bytes; a git command that
    refreshes the index (`git status`) caches the new stat (the rule's known limit)."""
    import os

    from gbrain.sync.gitstate import index_cache, stat_cached

    root = tmp_path / "r"
    repo(root)
    (root / PATH).write_text(HEAD_TEXT + "agent\n", encoding="utf-8")
    git(root, "checkout", "-q", "-f", "HEAD")
    oid, cached = index_cache(find(root))[PATH.encode()]
    assert oid in blob_ids(find(root), HEAD_TEXT.encode())
    assert stat_cached(cached, os.stat(root / PATH))
    (root / PATH).write_text(HEAD_TEXT + "agent\n", encoding="utf-8")
    save_buffer(root / PATH, HEAD_TEXT, "inplace")
    assert not stat_cached(index_cache(find(root))[PATH.encode()][1], os.stat(root / PATH))
    save_buffer(root / PATH, HEAD_TEXT, "rename")  # a new inode: git's own check sees it (an in-place
    assert not stat_cached(index_cache(find(root))[PATH.encode()][1], os.stat(root / PATH))  # write
    git(root, "status", "--porcelain")  # in the same second may not be, git built without USE_NSEC)
    assert stat_cached(index_cache(find(root))[PATH.encode()][1], os.stat(root / PATH))


@pytest.mark.parametrize("how", ["stash", "reset", "restore", "checkout-f"])
def test_git_discarding_an_agent_s_writes_is_the_user_s_edit(tmp_path, db_path, how):
    """Two writes through gbrain reach the file; git puts back the committed text: the page is
    git's text (not merged with the agent's lines), the tree stays clean, the agent's versions
    stay in the history, and ``git stash pop`` brings them back."""
    root = tmp_path / "brain"
    repo(root)
    with Brain.open(db_path) as b:
        eng = SyncEngine(b, root)
        eng.bind()
        try:
            eng.sync()
            lines = agent_writes(b)
            rep = eng.sync()
            assert rep["changed"]["exported"] == [PATH], rep
            agent_text = (root / PATH).read_text(encoding="utf-8")
            assert all(x in agent_text for x in lines)
            if how == "stash":
                git(root, "stash", "-q")
            elif how == "reset":
                git(root, "reset", "-q", "--hard")
            elif how == "restore":
                git(root, "restore", PATH)
            else:
                git(root, "checkout", "-q", "-f", "HEAD")
            assert (root / PATH).read_text(encoding="utf-8") == HEAD_TEXT
            rep = eng.sync()
            assert rep["merged"] == [] and rep["conflicts"] == [], rep
            assert (root / PATH).read_text(encoding="utf-8") == HEAD_TEXT
            assert b.get_text(SLUG) == HEAD_TEXT
            assert git(root, "status", "--porcelain") == ""
            assert agent_text in versions(b)  # the discarded text is kept
            assert equal(b, root)
            if how == "stash":
                r = git_ok(root, "stash", "pop")
                assert r.returncode == 0, r.stderr
                eng.sync()
                assert b.get_text(SLUG) == agent_text
        finally:
            eng.close()


def test_an_editor_s_stale_save_in_a_git_folder_is_still_merged(tmp_path, db_path):
    """The rule above is git's blob only: an editor's old buffer plus a typed line (not what git
    holds) is a stale save, merged with the agent's writes as anywhere else."""
    root = tmp_path / "brain"
    repo(root)
    with Brain.open(db_path) as b:
        eng = SyncEngine(b, root)
        eng.bind()
        try:
            eng.sync()
            lines = agent_writes(b)
            eng.sync()
            (root / PATH).write_text(HEAD_TEXT + "typed by the person\n", encoding="utf-8")
            rep = eng.sync()
            assert rep["merged"] == [PATH], rep
            page = b.get_text(SLUG)
            assert all(x in page for x in lines) and "typed by the person" in page
        finally:
            eng.close()


def test_git_stash_and_pop_of_an_agent_s_writes_under_a_running_watch(tmp_path, db_path):
    """`gbrain watch` as a real process with a real observer: an agent's two puts reach the
    note, `git stash` leaves the tree at HEAD (not merged back: the trial's `stash pop` failed
    with "Your local changes … would be overwritten"), `git stash pop` brings them back."""
    root = tmp_path / "brain"
    repo(root)
    w = Watch(root, db_path)
    try:
        with Brain.open(db_path) as b:
            wait_for(lambda: b.get_text(SLUG) == HEAD_TEXT, "the first sync")
            lines = agent_writes(b)
            wait_for(lambda: all(x in (root / PATH).read_text(encoding="utf-8") for x in lines), "the agent's writes to reach the note")
            agent_text = b.get_text(SLUG)
            git(root, "stash", "-q")
            wait_for(lambda: b.get_text(SLUG) == HEAD_TEXT, "the stash to reach the brain")
            wait_for(lambda: equal(b, root), "the tree and the brain to verify equal")
            assert (root / PATH).read_text(encoding="utf-8") == HEAD_TEXT
            assert not w.saw("merged your save")
            r = git_ok(root, "stash", "pop")
            assert r.returncode == 0, r.stderr
            wait_for(lambda: b.get_text(SLUG) == agent_text, "the popped writes to reach the brain")
            wait_for(lambda: equal(b, root), "the tree and the brain to verify equal")
        code, _ = w.stop()
        assert code == 0, "\n".join(w.lines)
    finally:
        w.kill()


def test_the_git_line_names_what_git_did_last_not_the_checkout_of_the_recorded_state(tmp_path, db_path):
    """Watch judges git's deletions against the git state of its start-up sync, maybe hours old:
    the trial's `git reset --hard HEAD~3` on `feature` (and a `git pull`) were said as `git
    checkout reorg → feature`, the checkout of that old state. The line now names the newest entry
    of HEAD's reflog when it moved HEAD where it is (`gitstate.last_reflog`)."""
    from gbrain.sync.engine import MASS_TRASH
    from gbrain.sync.gitstate import fingerprint

    from test_git_folder import notes

    root = tmp_path / "brain"
    repo(root)
    with Brain.open(db_path) as b:
        eng = SyncEngine(b, root)
        eng.bind()
        try:
            eng.sync()
            started = eng.git_base  # a watch started here, on main
            assert started and fingerprint(root)["head"] == "ref: refs/heads/main"
            git(root, "checkout", "-qb", "feature")
            gone = notes(root, "journal", MASS_TRASH + 5)
            git(root, "add", "-A")
            git(root, "commit", "-qm", "journal")
            eng.sync()
            eng.git_base = started  # as under watch: no whole-tree sync since its start
            git(root, "reset", "-q", "--hard", "HEAD~1")
            rep = eng.sync()
            assert sorted(t["path"] for t in trash_list(b, limit=0)) == sorted(gone)
            assert len(rep["git"]) == 1 and rep["git"][0].startswith("git reset: moving to HEAD~1: "), rep["git"]
            assert "checkout" not in rep["git"][0]
        finally:
            eng.close()


def test_gitignore_is_not_read_and_gbrainignore_takes_its_lines(tmp_path, db_path):
    """docs/sync.md, "Brains in git": a gitignored note is imported (git's history is not the brain);
    the same lines in `.gbrainignore` leave it out."""
    root = tmp_path / "brain"
    repo(root)
    (root / ".gitignore").write_text("private/\nnode_modules/\n", encoding="utf-8")
    (root / "private").mkdir()
    (root / "private" / "diary.md").write_text("# Diary\n", encoding="utf-8")
    (root / "node_modules" / "pkg").mkdir(parents=True)
    (root / "node_modules" / "pkg" / "README.md").write_text("# pkg\n", encoding="utf-8")
    with Brain.open(db_path) as b:
        eng = SyncEngine(b, root)
        eng.bind()
        try:
            eng.sync()
            slugs = {r[0] for r in b.conn.execute("SELECT slug FROM pages")}
            assert {"private/diary", "node_modules/pkg/README"} <= slugs
        finally:
            eng.close()
    other = tmp_path / "other"
    repo(other)
    (other / ".gitignore").write_text("private/\n", encoding="utf-8")
    (other / ".gbrainignore").write_text((other / ".gitignore").read_text())
    (other / "private").mkdir()
    (other / "private" / "diary.md").write_text("# Diary\n", encoding="utf-8")
    r = gbrain("import", str(other), "--db", str(tmp_path / "other.db"))
    assert r.returncode == 0, r.stderr
    with Brain.open(tmp_path / "other.db") as b2:
        assert b2.conn.execute("SELECT COUNT(*) FROM pages WHERE slug LIKE 'private/%'").fetchone()[0] == 0


def test_a_linked_worktree_inside_the_folder_is_left_out(tmp_path, db_path):
    """`git worktree add wt other` inside the brain folder is a second checkout of the same notes
    (the trial's made 1,516 second pages): import and sync leave it out, said as a worktree;
    `!wt/` in `.gbrainignore` brings it in."""
    root = tmp_path / "brain"
    repo(root)
    git(root, "branch", "other")
    git(root, "worktree", "add", "-q", "wt", "other")
    git(root, "worktree", "add", "-q", str(tmp_path / "beside"), "-b", "beside")  # outside: nothing to leave out
    assert (root / "wt" / PATH).is_file()
    r = gbrain("import", str(root), "--json", env={"GBRAIN_DB": str(db_path)})
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    skipped = {s["path"]: s["reason"] for s in rep["skipped"]} if isinstance(rep["skipped"][0], dict) else dict(rep["skipped"])
    assert "linked git worktree" in skipped.get("wt/", ""), rep["skipped"]
    with Brain.open(db_path) as b:
        assert b.conn.execute("SELECT COUNT(*) FROM pages WHERE slug LIKE 'wt/%'").fetchone()[0] == 0
        eng = SyncEngine(b, root)
        eng.bind()
        try:
            rep = eng.sync()
            assert rep["ok"] and rep["counts"]["imported"] == 0, rep
            assert eng.excluded("wt/notes/a.md").startswith("a linked git worktree")
            (root / ".gbrainignore").write_text("!wt/\n", encoding="utf-8")
            eng.reload_ignore()
            eng.sync()
            assert b.conn.execute("SELECT COUNT(*) FROM pages WHERE slug LIKE 'wt/%'").fetchone()[0] == 2
        finally:
            eng.close()


def test_a_worktree_added_under_a_running_watch_is_left_out(tmp_path, db_path):
    """`gbrain watch` as a real process: `git worktree add` inside the folder while it runs; the
    worktree's notes never become pages (a note written after it does), and `git worktree
    remove` trashes nothing."""
    root = tmp_path / "brain"
    repo(root)
    git(root, "branch", "other")
    w = Watch(root, db_path)
    try:
        with Brain.open(db_path) as b:
            wait_for(lambda: b.get_text(SLUG) == HEAD_TEXT, "the first sync")
            git(root, "worktree", "add", "-q", "wt", "other")
            (root / "after.md").write_text("# After\n", encoding="utf-8")
            wait_for(lambda: b.get_text("after") is not None, "the note written after the worktree")
            wait_for(lambda: equal(b, root), "the tree and the brain to verify equal")
            assert b.conn.execute("SELECT COUNT(*) FROM pages WHERE slug LIKE 'wt/%'").fetchone()[0] == 0
            git(root, "worktree", "remove", "wt")
            (root / "later.md").write_text("# Later\n", encoding="utf-8")
            wait_for(lambda: b.get_text("later") is not None, "a note written after the removal")
            assert trash_list(b, limit=0) == []
        code, _ = w.stop()
        assert code == 0, "\n".join(w.lines)
        assert not any("wt/" in line for line in w.lines), w.lines
    finally:
        w.kill()


def test_a_file_git_wrote_before_its_index_is_judged_on_the_index_git_then_writes(tmp_path, db_path, monkeypatch):
    """git writes the work tree first and its index last (under `index.lock`): a round that runs
    in between (a checkout longer than watch's 2 s batch wait) met the old index, took the file
    git had just written for an editor's stale save and merged the agent's lines back. While
    `index.lock` is there the round waits for git (`gitstate.lock_pause`, a hook: here it lets git
    finish at its first call, so no clock is involved)."""
    import gbrain.sync.gitstate as gs

    root = tmp_path / "brain"
    repo(root)
    git(root, "checkout", "-qb", "other")
    other_text = HEAD_TEXT.replace("A note kept in git.", "A note kept in git, as branch other has it.")
    (root / PATH).write_text(other_text, encoding="utf-8")
    git(root, "commit", "-qam", "other")
    git(root, "checkout", "-q", "main")
    with Brain.open(db_path) as b:
        eng = SyncEngine(b, root)
        eng.bind()
        try:
            eng.sync()
            agent_writes(b)
            eng.sync()
            # git mid-checkout of `other`: the file written, the index not yet (its lock held)
            lock = root / ".git" / "index.lock"
            lock.write_bytes(b"")
            (root / PATH).write_text(other_text, encoding="utf-8")
            calls = []

            def git_finishes(seconds):
                calls.append(seconds)
                lock.unlink()
                git(root, "checkout", "-q", "-f", "other")

            monkeypatch.setattr(gs, "lock_pause", git_finishes, raising=False)
            rep = eng.sync()
            assert calls, "the round did not wait for git's index"
            assert rep["merged"] == [] and rep["conflicts"] == [], rep
            assert b.get_text(SLUG) == other_text == (root / PATH).read_text(encoding="utf-8")
            assert git(root, "status", "--porcelain") == ""
        finally:
            eng.close()


def save_buffer(path: Path, text: str, how: str) -> None:
    """An editor saving its buffer: ``rename`` writes a new file and renames it over the note (vim
    with ``backupcopy=auto``, most editors), ``inplace`` rewrites the note's own inode (vim with
    ``backupcopy=yes``)."""
    if how == "rename":
        tmp = path.with_name(path.name + ".swp-save")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
    else:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)


@pytest.mark.parametrize("how", ["rename", "inplace"])
def test_an_editor_s_unchanged_buffer_of_the_committed_text_is_still_a_stale_save(tmp_path, db_path, how):
    """The user commits, opens the note in vim (the committed text), an agent appends timeline
    lines through gbrain (the note follows), and the user saves the unchanged buffer (`:w`): the
    save is byte for byte git's index blob, but git did not write it (the index entry's cached
    stat, the file's mtime/inode/size as git last wrote or refreshed it, is not the file's), so it
    is an editor's stale save, merged: the agent's lines stay in the page and the note."""
    root = tmp_path / "brain"
    repo(root)
    with Brain.open(db_path) as b:
        eng = SyncEngine(b, root)
        eng.bind()
        try:
            eng.sync()
            buffer = (root / PATH).read_text(encoding="utf-8")  # vim opens the committed note
            lines = agent_writes(b)
            rep = eng.sync()
            assert rep["changed"]["exported"] == [PATH], rep
            save_buffer(root / PATH, buffer, how)  # `:w` of the unchanged buffer
            rep = eng.sync()
            assert rep["merged"] == [PATH], rep
            page = b.get_text(SLUG)
            assert all(x in page for x in lines), page
            assert (root / PATH).read_text(encoding="utf-8") == page
        finally:
            eng.close()


def test_an_editor_s_unchanged_buffer_under_a_running_watch_keeps_the_agent_s_lines(tmp_path, db_path):
    """The case above with `gbrain watch` as a real process and a real observer."""
    root = tmp_path / "brain"
    repo(root)
    w = Watch(root, db_path)
    try:
        with Brain.open(db_path) as b:
            wait_for(lambda: b.get_text(SLUG) == HEAD_TEXT, "the first sync")
            buffer = (root / PATH).read_text(encoding="utf-8")
            lines = agent_writes(b)
            wait_for(lambda: all(x in (root / PATH).read_text(encoding="utf-8") for x in lines), "the agent's writes to reach the note")
            save_buffer(root / PATH, buffer, "rename")
            wait_for(lambda: w.saw("merged your save"), "watch to merge the stale save")
            wait_for(lambda: equal(b, root), "the tree and the brain to verify equal")
            page = b.get_text(SLUG)
            assert all(x in page for x in lines), page
        code, _ = w.stop()
        assert code == 0, "\n".join(w.lines)
    finally:
        w.kill()


@pytest.mark.parametrize("age_s", [0, 3600])
def test_a_lock_git_left_stalls_no_round(tmp_path, db_path, monkeypatch, age_s):
    """An `index.lock` that never goes away (git killed mid-operation; or `git commit` holding it
    while its editor is open) must not make every round wait: a lock an hour old is not waited
    for at all (git's checkout would have ended), a fresh one once per lock (`gitstate.wait_index`'s
    pauses counted by its hook, no clock), and the editor's stale save is still merged."""
    import os

    import gbrain.sync.gitstate as gs

    root = tmp_path / "brain"
    repo(root)
    lock = root / ".git" / "index.lock"
    lock.write_bytes(b"")
    if age_s:
        old = lock.stat().st_mtime - age_s
        os.utime(lock, (old, old))
    calls = []
    monkeypatch.setattr(gs, "lock_pause", lambda seconds: calls.append(seconds), raising=False)
    with Brain.open(db_path) as b:
        eng = SyncEngine(b, root)
        eng.bind()
        try:
            eng.sync()
            for round_ in range(2):
                buffer = (root / PATH).read_text(encoding="utf-8")
                lines = [f"agent entry of round {round_}"]
                b.timeline_add(SLUG, f"2026-12-0{2 + round_}", lines[0], "agent")
                eng.sync()
                save_buffer(root / PATH, buffer + f"typed in round {round_}\n", "rename")
                rep = eng.sync()
                assert rep["merged"] == [PATH], rep
                assert all(x in b.get_text(SLUG) for x in lines)
                if round_ == 0:
                    assert len(calls) == (0 if age_s else gs.LOCK_TRIES), len(calls)
            assert len(calls) == (0 if age_s else gs.LOCK_TRIES), "a lock waited for again"
        finally:
            eng.close()


def test_worktree_rules_follow_git_s_admin_entries(tmp_path, db_path):
    """`.git/worktrees/*` as git leaves it, read for the default ignore rule
    (`gitstate.worktrees_inside`): a worktree named `..wt` inside the folder is inside it; an
    admin entry met before git wrote its `gitdir` (`git worktree add` makes the entry first) is
    read again once git has (watch asks `worktrees_moved` before each batch); a worktree folder
    deleted without `git worktree prune` (its entry left, prunable) leaves nothing out, so notes
    made there later are synced."""
    import shutil

    root = tmp_path / "brain"
    repo(root)
    git(root, "branch", "other")
    git(root, "branch", "third")
    git(root, "worktree", "add", "-q", "..wt", "other")
    with Brain.open(db_path) as b:
        eng = SyncEngine(b, root)
        eng.bind()
        try:
            rep = eng.sync()
            assert (eng.excluded("..wt/notes/a.md") or "").startswith("a linked git worktree"), rep
            assert b.conn.execute("SELECT COUNT(*) FROM pages WHERE slug LIKE '%wt/%'").fetchone()[0] == 0
            # git mid-`worktree add`: the admin entry made, its gitdir not yet written
            admin = root / ".git" / "worktrees" / "late"
            admin.mkdir()
            eng.worktrees_moved()
            (admin / "gitdir").write_text(str(root / "late" / ".git") + "\n", encoding="utf-8")
            (root / "late").mkdir()
            (root / "late" / ".git").write_text(f"gitdir: {admin}\n", encoding="utf-8")
            (root / "late" / "x.md").write_text("# X\n", encoding="utf-8")
            assert eng.worktrees_moved()
            assert (eng.excluded("late/x.md") or "").startswith("a linked git worktree")
            eng.sync()
            assert b.conn.execute("SELECT COUNT(*) FROM pages WHERE slug LIKE 'late/%'").fetchone()[0] == 0
            # the worktree folder deleted, its admin entry left (prunable): a folder made there later is notes
            shutil.rmtree(root / "late")
            assert eng.worktrees_moved()
            (root / "late").mkdir()
            (root / "late" / "y.md").write_text("# Y\n", encoding="utf-8")
            assert eng.excluded("late/y.md") is None
            eng.sync()
            assert b.get_text("late/y") == "# Y\n"
        finally:
            eng.close()


def test_the_git_line_of_an_index_change_names_no_old_reflog_entry(tmp_path, db_path):
    """`git rm -r journal` moves no HEAD: the newest reflog entry (`commit: journal`, maybe a week
    old) is not what git did now; the line says the index changed."""
    from gbrain.sync.engine import MASS_TRASH

    from test_git_folder import notes

    root = tmp_path / "brain"
    repo(root)
    gone = notes(root, "journal", MASS_TRASH + 5)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "journal")
    with Brain.open(db_path) as b:
        eng = SyncEngine(b, root)
        eng.bind()
        try:
            eng.sync()
            git(root, "rm", "-rq", "journal")
            rep = eng.sync()
            assert sorted(t["path"] for t in trash_list(b, limit=0)) == sorted(gone)
            assert len(rep["git"]) == 1 and rep["git"][0].startswith("git (the index changed)"), rep["git"]
        finally:
            eng.close()


def test_the_git_line_of_a_git_rm_after_a_reset_under_watch_names_no_reset(tmp_path, db_path):
    """Trial 46: under watch (the recorded state its start-up sync's), a `git reset --hard HEAD~1`
    was said rightly, and a `git rm -r meetings` a while later was said as that reset again: HEAD
    had moved since the recorded state, and the reflog's newest entry still moved HEAD where it
    is. An entry a round already saw longer than SETTLE_MAX_S ago names nothing done now."""
    from gbrain.sync.engine import MASS_TRASH

    from test_git_folder import notes

    root = tmp_path / "brain"
    repo(root)
    meetings = notes(root, "meetings", MASS_TRASH + 5)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "meetings")
    now = [1000.0]
    with Brain.open(db_path) as b:
        eng = SyncEngine(b, root)
        eng.clock = lambda: now[0]
        eng.bind()
        try:
            eng.sync()
            started = eng.git_base  # a watch started here
            later = notes(root, "later", MASS_TRASH + 2)
            git(root, "add", "-A")
            git(root, "commit", "-qm", "later")
            eng.sync()
            eng.git_base = started  # as under watch: no whole-tree sync since its start
            git(root, "reset", "-q", "--hard", "HEAD~1")
            rep = eng.sync()
            assert len(rep["git"]) == 1 and rep["git"][0].startswith("git reset: moving to HEAD~1: "), rep["git"]
            eng.git_base = started
            now[0] += 120.0  # the user's next git command, two minutes later
            git(root, "rm", "-rq", "meetings")
            rep = eng.sync()
            assert sorted(t["path"] for t in trash_list(b, limit=0)) == sorted(later + meetings)
            assert len(rep["git"]) == 1 and rep["git"][0].startswith("git (the index changed): "), rep["git"]
        finally:
            eng.close()
