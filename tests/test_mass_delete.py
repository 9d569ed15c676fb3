"""The mass-deletion guard (docs/sync.md: "If 20 or more notes vanish from one folder …") against the
shapes a real trial produced: an ``rm -rf`` that reaches watch file by file while other files
change, a folder held back by the guard and then partly restored, and most of a folder deleted
with some markdown left. Every test runs on both engines (``db_path``); watch is driven
in-process (its pending set with injected times, then :meth:`Watcher._safe_batch`), so nothing
waits on a clock.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from gbrain.core.brain import Brain
from gbrain.core.history import trash_list
from gbrain.sync.engine import MASS_TRASH, MassDeleteRefused, SyncEngine
from gbrain.sync.scan import db_excludes, scan_tree
from gbrain.sync.verify import verify_tree
from gbrain.sync.watch import SETTLE_MAX_S, SETTLE_S, Watcher


def notes(root: Path, folder: str, n: int, stem: str = "n") -> list[str]:
    d = root / folder if folder else root
    d.mkdir(parents=True, exist_ok=True)
    out = []
    for i in range(n):
        (d / f"{stem}{i}.md").write_text(f"# {stem} {i}\n\nin {folder or 'root'}\n", encoding="utf-8")
        out.append(f"{folder}/{stem}{i}.md" if folder else f"{stem}{i}.md")
    return out


def trash(b: Brain) -> list[str]:
    return [t["path"] for t in trash_list(b, limit=0)]


def equal(b: Brain, root: Path) -> bool:
    return verify_tree(b, scan_tree(root, exclude_abs=db_excludes(b.path)))["ok"]


def watcher(b: Brain, root: Path, said: list[str]) -> Watcher:
    w = Watcher(b, root, log=said.append, debounce=0.1, max_wait=2.0)
    w.engine.bind()
    assert w.engine.sync()["ok"]
    return w


def drive(w: Watcher, t: float) -> bool:
    """One tick of watch's loop at time ``t``: the batch due then (if any) is synced."""
    batch = w.pending.take(t, w._exists)
    if batch is None:
        return False
    paths, dirs = batch
    if paths or dirs:
        assert w._safe_batch(paths, dirs, retry={})
    return True


# ---- (a) watch: an rm -rf that arrives file by file ----------------------------------------


def test_an_rm_rf_arriving_file_by_file_while_other_files_change_is_refused_whole(tmp_path, db_path):
    """The trial: `rm -rf meetings` while a script appends to notes elsewhere. Batches ran every
    ``max_wait`` mid-rm, each trashing what was gone so far (markdown was still left), until the
    last one was refused with "nothing was trashed". Gone paths now wait until deletions stop
    arriving; the edits elsewhere are not delayed."""
    root = tmp_path / "v"
    meetings = notes(root, "meetings", MASS_TRASH * 4)
    notes(root, "meetings/2024", MASS_TRASH)
    notes(root, "", 3, "keep")
    said: list[str] = []
    with Brain.open(db_path) as b:
        w = watcher(b, root, said)
        t = 100.0
        for i, p in enumerate(meetings):  # rm removes one file per tick; the script appends
            (root / p).unlink()
            w.pending.add("gone", p, t)
            if i % 10 == 0:
                k = f"keep{i % 3}.md"
                with open(root / k, "a", encoding="utf-8") as fh:
                    fh.write(f"line {i}\n")
                w.pending.add("file", k, t)
            drive(w, t)
            t += 0.05
        assert "line 30" in b.get_text("keep1") + b.get_text("keep0") + b.get_text("keep2")  # not delayed
        assert trash(b) == [] and b.page_row("meetings/n0")
        shutil.rmtree(root / "meetings")
        for i in range(MASS_TRASH):
            w.pending.add("gone", f"meetings/2024/n{i}.md", t)
        w.pending.add("gonedir", "meetings/2024", t)
        w.pending.add("gonedir", "meetings", t)
        drive(w, t + 0.5)
        assert trash(b) == []  # still arriving a moment ago
        assert drive(w, t + SETTLE_S)  # then one round over the whole folder
        assert trash(b) == [] and b.stats()["pages"] == MASS_TRASH * 5 + 3
        refusal = [s for s in said if "confirm-delete" in s]
        assert len(refusal) == 1 and "meetings" in refusal[0] and "nothing was trashed" in refusal[0]
        w.engine.close()


def test_deferred_deletes_are_synced_after_the_cap_even_if_deletions_never_stop(tmp_path, db_path):
    """A gone path is not deferred forever: after ``SETTLE_MAX_S`` it is reconciled (an ordinary
    delete of a few notes is trashed) even while other deletions keep arriving."""
    root = tmp_path / "v"
    notes(root, "", 10)
    notes(root, "other", 80)  # under PARALLEL_MIN: no pool (its socket path would be too long here)
    with Brain.open(db_path) as b:
        w = watcher(b, root, [])
        t = 0.0
        (root / "n0.md").unlink()
        w.pending.add("gone", "n0.md", t)
        i = 0
        while t < SETTLE_MAX_S + 1:
            t += SETTLE_S * 0.9
            drive(w, t)
            if trash(b):
                break
            i += 1
            (root / "other" / f"n{i}.md").unlink()  # a slow trickle of deletions elsewhere
            w.pending.add("gone", f"other/n{i}.md", t)
        assert "n0.md" in trash(b) and t >= SETTLE_MAX_S
        w.engine.close()


def test_a_slow_rm_past_the_cap_is_still_refused_by_the_share_rule(tmp_path, db_path):
    """An rm -rf slower than the cap: the round at the cap finds most of the folder gone with
    markdown still left there; that is refused too, and so is the rest when it follows."""
    root = tmp_path / "v"
    gone = notes(root, "big", MASS_TRASH * 3)
    notes(root, "", 2, "keep")
    said: list[str] = []
    with Brain.open(db_path) as b:
        w = watcher(b, root, said)
        t, step = 0.0, SETTLE_MAX_S / (len(gone) * 0.8)
        for p in gone:
            (root / p).unlink()
            w.pending.add("gone", p, t)
            drive(w, t)
            t += step
        w.pending.add("gonedir", "big", t)
        drive(w, t + SETTLE_S)
        assert trash(b) == [] and b.stats()["pages"] == MASS_TRASH * 3 + 2
        assert any("big" in s and "confirm-delete" in s for s in said)
        w.engine.close()


# ---- (b) watch: a held-back folder partly restored ------------------------------------------


def test_restoring_part_of_a_held_back_folder_never_trashes_the_rest(tmp_path, db_path):
    """The trial: `rm -rf hub` (held back, good), then `git checkout -- "hub/00 - Start here.md"`
    trashed hub's other root notes and all of hub/inbox (under 20 there). Bringing notes back
    never deletes others; a rescan does not either; notes that come back are synced again."""
    root = tmp_path / "v"
    top = notes(root, "hub", 5, "top")
    inbox = notes(root, "hub/inbox", 15)
    deep = notes(root, "hub/projects", MASS_TRASH + 5)
    notes(root, "", 2, "keep")
    saved = {p: (root / p).read_bytes() for p in top + inbox + deep}
    said: list[str] = []
    with Brain.open(db_path) as b:
        w = watcher(b, root, said)
        shutil.rmtree(root / "hub")
        assert w._safe_batch(set(saved), {"hub", "hub/inbox", "hub/projects"}, retry={})
        assert trash(b) == [] and len([s for s in said if "confirm-delete" in s]) == 1
        # one file comes back (git checkout makes the folder again)
        (root / "hub").mkdir()
        (root / top[0]).write_bytes(saved[top[0]])
        assert w._safe_batch({top[0]}, {"hub"}, retry={})
        assert trash(b) == []
        # most of it comes back: the few still missing stay held, not trashed
        for p in top + deep[:-3]:
            (root / p).parent.mkdir(parents=True, exist_ok=True)
            (root / p).write_bytes(saved[p])
        assert w._safe_batch(set(top + deep[:-3]), {"hub/projects"}, retry={})
        assert trash(b) == []
        assert w.engine.sync()["ok"]  # the periodic rescan: held paths are no problem either
        assert trash(b) == [] and b.stats()["pages"] == len(saved) + 2
        # an edit of a restored note syncs as usual
        (root / deep[0]).write_text("# edited\n", encoding="utf-8")
        assert w._safe_batch({deep[0]}, set(), retry={})
        assert b.get_text(deep[0][:-3]) == "# edited\n"
        # everything back: in sync, nothing held any more
        for p in inbox + deep[-3:]:
            (root / p).parent.mkdir(parents=True, exist_ok=True)
            (root / p).write_bytes(saved[p])
        assert w._safe_batch(set(inbox + deep[-3:]), {"hub/inbox"}, retry={})
        assert w.engine.held == set() and trash(b) == [] and equal(b, root)
        w.engine.close()


def test_restore_all_after_a_partial_trash_does_not_trash_the_held_notes(tmp_path, db_path):
    """The trial's second case: some notes of a folder were trashed, the rest held back;
    `gbrain restore --all` brings the trashed ones back (the folder holds markdown again): the
    held ones must stay."""
    root = tmp_path / "v"
    first = notes(root, "m", 10, "a")
    rest = notes(root, "m", MASS_TRASH * 2, "b")
    notes(root, "", 2, "keep")
    said: list[str] = []
    with Brain.open(db_path) as b:
        w = watcher(b, root, said)
        for p in first:  # an ordinary delete of a few: trashed
            (root / p).unlink()
        assert w._safe_batch(set(first), set(), retry={})
        assert len(trash(b)) == 10
        shutil.rmtree(root / "m")
        assert w._safe_batch(set(rest), {"m"}, retry={})
        msg = next(s for s in said if "confirm-delete" in s)
        assert "nothing was trashed" not in msg and "10" in msg and "gbrain restore" in msg
        from gbrain.core.history import restore

        for p in first:
            restore(b, p[:-3])
        (root / "m").mkdir()
        for p in first:  # the files follow the restore (the brain → file half of a round)
            (root / p).write_bytes(b.get_text(p[:-3]).encode())
        assert w._safe_batch(set(first), {"m"}, log_paths=set(first), retry={})
        assert all(b.page_row(p[:-3]) for p in rest) and b.stats()["pages"] == len(first) + len(rest) + 2
        w.engine.close()


# ---- (b) the engine rule: most of a folder at once, markdown left ---------------------------


def test_most_of_a_folder_deleted_with_markdown_left_is_refused_until_confirmed(tmp_path, db_path):
    root = tmp_path / "v"
    big = notes(root, "big", MASS_TRASH * 2)
    notes(root, "", 3, "keep")
    with Brain.open(db_path) as b:
        eng = SyncEngine(b, root)
        eng.bind()
        assert eng.sync()["ok"]
        saved = {p: (root / p).read_bytes() for p in big}
        for p in big[: MASS_TRASH + 5]:  # 25 of 40: most of the folder, 15 left
            (root / p).unlink()
        with pytest.raises(MassDeleteRefused, match="big") as e:
            eng.sync()
        assert "nothing was trashed" in str(e.value) and "--put-back" in str(e.value)
        with pytest.raises(MassDeleteRefused):  # a partial round (watch) too
            eng.reconcile(paths=big[: MASS_TRASH + 5])
        assert trash(b) == [] and b.stats()["pages"] == MASS_TRASH * 2 + 3
        # the way back without confirming: the files are written again from the brain
        eng.put_back = True
        rep = eng.sync()
        assert rep["ok"] and rep["counts"]["trashed"] == 0
        assert all((root / p).read_bytes() == saved[p] for p in big) and equal(b, root)
        eng.put_back = False
        for p in big[: MASS_TRASH + 5]:
            (root / p).unlink()
        eng.confirm_delete = True
        assert eng.sync()["counts"]["trashed"] == MASS_TRASH + 5
        eng.close()


def test_most_of_a_nested_folder_deleted_is_named_once(tmp_path, db_path):
    """Run while checking the README's rule (s59): half of `a/x/`'s 40 notes deleted, nothing else
    in the folder. The root and `a/` each lost the same 20 of 40, each narrowed to `a/x/`, so the
    refusal said "20 of the 40 synced notes of …/a/x are gone at once" twice (and listed the folder
    twice in ``folders``, `--json`'s)."""
    root = tmp_path / "v"
    x = notes(root, "a/x", MASS_TRASH * 2)
    with Brain.open(db_path) as b:
        eng = SyncEngine(b, root)
        eng.bind()
        assert eng.sync()["ok"]
        for p in x[:MASS_TRASH]:
            (root / p).unlink()
        with pytest.raises(MassDeleteRefused) as e:
            eng.sync()
        assert e.value.folders == [("a/x/", MASS_TRASH)] and str(e.value).count("synced notes of") == 1, (str(e.value), e.value.folders)
        eng.close()


def test_many_deleted_but_not_most_of_the_folder_is_an_ordinary_delete(tmp_path, db_path):
    root = tmp_path / "v"
    many = notes(root, "", MASS_TRASH * 3)
    few = notes(root, "small", MASS_TRASH - 1)
    notes(root, "other", MASS_TRASH * 3)
    with Brain.open(db_path) as b:
        eng = SyncEngine(b, root)
        eng.bind()
        eng.sync()
        for p in many[: MASS_TRASH + 5] + few:  # 25 of 60 root notes; all 19 of small/; 44 of 139 in all
            (root / p).unlink()
        assert eng.sync()["counts"]["trashed"] == MASS_TRASH + 5 + MASS_TRASH - 1
        eng.close()


def test_put_back_rewrites_an_emptied_folder_from_the_brain(tmp_path, db_path, run):
    """The documented way back from a refusal (besides `gbrain restore` for notes trashed
    earlier): `gbrain sync DIR --put-back` writes the held-back notes to their files again."""
    root = tmp_path / "v"
    gone = notes(root, "archive/2024", MASS_TRASH + 1)
    notes(root, "", 2, "keep")
    saved = {p: (root / p).read_bytes() for p in gone}
    assert run("sync", str(root), "--db", str(db_path)).returncode == 0
    shutil.rmtree(root / "archive")
    r = run("sync", str(root), "--db", str(db_path))
    err = r.stderr.decode()
    assert r.returncode == 1 and "--put-back" in err and "nothing was trashed" in err, err
    r = run("sync", str(root), "--put-back", "--db", str(db_path))
    assert r.returncode == 0, r.stderr.decode()
    assert {p: (root / p).read_bytes() for p in gone} == saved
    # the report counts them as put back (a trial: "put back 0" while it wrote 25 files back)
    assert f"exported 0, trashed 0, removed 0, moved 0, conflicts 0, put back {len(gone)}," in r.stdout.decode(), r.stdout.decode()


def test_a_watch_started_after_the_folder_went_holds_it_back_and_syncs_the_rest(tmp_path, db_path):
    """The start-up sync of a watch refuses as a batch does: said once, held back, the rest
    synced (it used to stop the watch), and a note that then comes back is synced again."""
    root = tmp_path / "v"
    gone = notes(root, "old", MASS_TRASH + 3)
    notes(root, "", 2, "keep")
    with Brain.open(db_path) as b:
        eng = SyncEngine(b, root)
        eng.bind()
        assert eng.sync()["ok"]
        eng.close()
        saved = (root / gone[0]).read_bytes()
        shutil.rmtree(root / "old")
        (root / "keep0.md").write_text("# keep 0\n\nedited while no watch ran\n", encoding="utf-8")
        said: list[str] = []
        w = Watcher(b, root, log=said.append)
        w.engine.bind()
        rep = w._first_sync()
        assert rep["ok"] and rep["counts"]["imported"] == 1 and trash(b) == []
        assert len([s for s in said if "confirm-delete" in s and "old" in s]) == 1
        (root / "old").mkdir()
        (root / gone[0]).write_bytes(saved)
        assert w._safe_batch({gone[0]}, {"old"}, retry={})
        assert trash(b) == [] and b.stats()["pages"] == len(gone) + 2 and w.engine.held == set(gone[1:])
        w.engine.close()


def test_an_ordinary_delete_elsewhere_is_not_held_because_a_big_folder_is(tmp_path, db_path):
    """Held notes are judged when they went: with most of the vault held back, deleting a few
    notes elsewhere is an ordinary delete."""
    root = tmp_path / "v"
    hub = notes(root, "hub", MASS_TRASH * 3)
    other = notes(root, "other", 10)
    said: list[str] = []
    with Brain.open(db_path) as b:
        w = watcher(b, root, said)
        shutil.rmtree(root / "hub")
        assert w._safe_batch(set(hub), {"hub"}, retry={})
        for p in other[:3]:
            (root / p).unlink()
        assert w._safe_batch(set(other[:3]), set(), retry={})
        assert sorted(trash(b)) == sorted(other[:3]) and len([s for s in said if "confirm-delete" in s]) == 1
        w.engine.close()


def test_a_folder_obsidian_moved_into_its_trash_is_an_ordinary_delete(tmp_path, db_path):
    """An Obsidian trial: deleting a folder of 25 notes in Obsidian (which moves it into the
    vault's `.trash/`, ignored by default) tripped the "unmounted drive?" guard. Notes found in
    `.trash/` under their own name, at the size last synced, were deleted on purpose; the same
    folder removed outright is still refused, and so is one whose `.trash/` copies differ."""
    root = tmp_path / "v"
    gone = notes(root, "Projects/Bulk Renamed", MASS_TRASH + 5)
    notes(root, "", 3, "keep")
    (root / ".trash").mkdir()
    with Brain.open(db_path) as b:
        eng = SyncEngine(b, root)
        eng.bind()
        assert eng.sync()["ok"]
        shutil.move(str(root / "Projects/Bulk Renamed"), str(root / ".trash" / "Bulk Renamed"))
        rep = eng.sync()
        assert rep["ok"] and rep["counts"]["trashed"] == len(gone), rep["problems"]
        assert sorted(trash(b)) == sorted(gone)
        # the control: a folder deleted outright, and one whose trash copies are not the notes
        other = notes(root, "Areas/Many", MASS_TRASH + 5)
        assert eng.sync()["ok"]
        shutil.rmtree(root / "Areas/Many")
        with pytest.raises(MassDeleteRefused, match="Areas"):
            eng.sync()
        (root / ".trash" / "Many").mkdir()
        for p in other:
            (root / ".trash" / "Many" / Path(p).name).write_text("not the same note\n")
        with pytest.raises(MassDeleteRefused, match="Areas"):
            eng.sync()
        eng.close()


def test_the_report_of_a_rescan_counts_held_back_paths_apart_from_the_missing(tmp_path, db_path):
    """Busy-wait edges, item 3: the report of a full sync under a watch holding a refused folder
    back notes the held paths (``held_back_count``), not as missing; ``SyncEngine.report`` read
    the missing count back out of the problem's words (a regex over "N path(s) in the DB are not
    on disk") and put the rest back as a shorter sentence without its advice. The count is data
    now (``verify.report(held_back=…)``): the held paths are taken out of the whole missing list
    before it is cut and counted, and a path missing besides them is the problem a sync without
    held paths says, word for word."""
    from gbrain.sync import verify
    from gbrain.sync.engine import Outcome
    from gbrain.sync.scan import scan_tree

    root = tmp_path / "v"
    hub = notes(root, "hub", MASS_TRASH + 2)
    other = notes(root, "other", 3)
    said: list[str] = []
    with Brain.open(db_path) as b:
        w = watcher(b, root, said)
        shutil.rmtree(root / "hub")
        assert w._safe_batch(set(hub), {"hub"}, retry={})
        assert w.engine.held == set(hub) and trash(b) == []
        (root / other[0]).unlink()  # gone besides, not held (the report is asked before a round sees it)
        stored = verify.stored_hashes(b)
        on_disk = {p: stored[p] for p in other[1:]}
        rep = w.engine.report(scan_tree(root, exclude_abs=db_excludes(b.path)), Outcome(disk_hashes=on_disk))
        plain = SyncEngine(b, root).report(scan_tree(root, exclude_abs=db_excludes(b.path)), Outcome(disk_hashes={**on_disk}))
        w.engine.close()
    assert rep["held_back_count"] == len(hub) and rep["missing_on_disk"] == [other[0]], rep
    missing_one = "1 path(s) in the DB are not on disk (written through gbrain, or deleted from the folder? `gbrain sync DIR` reconciles both sides)"
    assert rep["problems"] == [missing_one] and not rep["ok"], rep["problems"]
    # a sync holding nothing back says every missing path: the held ones too
    assert plain["problems"] == [f"{len(hub) + 1} path(s) in the DB are not on disk (written through gbrain, or deleted from the folder? "
                                 "`gbrain sync DIR` reconciles both sides)"] and "held_back_count" not in plain, plain["problems"]


@pytest.mark.parametrize("fault", ["full", "cut"])
def test_a_round_rolled_back_after_trashing_leaves_no_note_counted_as_trashed_earlier(tmp_path, db_path, fault, monkeypatch):
    """``SyncEngine.trashed_paths`` and ``recent_trash`` were filled inside the round's transaction:
    a round that trashed notes and was then rolled back (a full disk; on Postgres a cut connection)
    left them, and a later refused mass deletion of the folder said "N other notes … were trashed
    earlier" of notes still in the brain (and a new note could be paired with a page never trashed).
    They follow the transaction now: rolled back with it."""
    if fault == "cut" and not str(db_path).startswith("postgresql"):
        pytest.skip("a cut connection is Postgres'")
    import errno

    root = tmp_path / "v"
    meetings = notes(root, "meetings", MASS_TRASH * 2)
    notes(root, "", 3, "keep")
    gone = meetings[:5]
    said: list[str] = []
    with Brain.open(db_path) as b:
        w = watcher(b, root, said)
        eng = w.engine
        for p in gone:
            (root / p).unlink()
        real, n = SyncEngine._forget, [0]

        def failing(self, p):
            real(self, p)
            if p in gone:
                n[0] += 1
                if n[0] == len(gone):  # every one trashed in this round, then it fails before its commit
                    if fault == "full":
                        raise OSError(errno.ENOSPC, "No space left on device")
                    try:
                        self.conn.execute("SELECT pg_terminate_backend(pg_backend_pid())").fetchall()
                    except Exception:
                        pass

        monkeypatch.setattr(SyncEngine, "_forget", failing)
        with pytest.raises(Exception):
            eng.sync()
        monkeypatch.undo()
        b.conn.rollback()
        assert trash(b) == [] and all(b.page_row(p[:-3]) for p in gone)
        assert eng.trashed_paths == set() and eng.recent_trash == {}, (eng.trashed_paths, eng.recent_trash)
        shutil.rmtree(root / "meetings")  # the whole folder goes: refused, none of it trashed before
        with pytest.raises(MassDeleteRefused) as e:
            eng.sync()
        assert "nothing was trashed" in str(e.value) and "earlier" not in str(e.value), str(e.value)
        eng.close()
