"""What git did to a folder, read from the files of its ``.git`` only (never a ``git`` process).

The mass-deletion guard (:meth:`gbrain.sync.engine.SyncEngine.vanished_folders`) refuses a
round that empties a folder, since an unmounted drive looks like that. A folder kept in git is
emptied just as well by ``git checkout``/``switch``/``reset``/``rebase`` of a branch without it;
those deletions are the user's, and every version stays in git's history and the brain's. This
module tells them apart:

* :func:`find`: the work tree holding a folder (the folder or a parent with a ``.git`` folder, or a
  ``.git`` file ``gitdir: PATH``: a linked worktree or a submodule), its git dir and common dir
  (``commondir``), found as git finds them (not across a file-system boundary);
* :func:`fingerprint`: ``HEAD``'s text, the commit it names, and the (inode, size, mtime) of
  ``HEAD``, ``ORIG_HEAD``, ``index``, the ref ``HEAD`` points to and ``packed-refs``: git
  rewrites one of them in every operation that changes the work tree;
* :func:`moved`: two fingerprints of the same git dir differ;
* :func:`index_paths`: the paths git's index lists (versions 2, 3 and 4), so a caller can check
  that git no longer tracks the notes gone (a checkout took them away; an ``rm -rf`` leaves them
  in the index);
* :func:`index_blobs` / :func:`index_cache` / :func:`blob_ids` / :func:`stat_cached`: the object
  id (and the file stat) git's index holds per path, and a text's ids as a blob, so a caller can
  tell a file git just wrote (``stash``, ``checkout``, ``reset --hard``, ``restore``: byte for
  byte what the index holds, with the stat git recorded writing it) from an editor's save (of
  the same bytes, maybe: a new mtime);
* :func:`describe`: a few words for the log (``git checkout main → other``);
* :func:`load` / :func:`save`: the fingerprint a sync recorded, kept per brain and folder
  outside the folder (``$GBRAIN_CACHE_DIR/git/``).
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import struct
from dataclasses import dataclass
from pathlib import Path

from ..storage.db import cache_dir

#: the files git rewrites when it changes the work tree (relative to the git dir; the ref HEAD
#: names and ``packed-refs`` are looked up in the common dir)
MARKERS = ("HEAD", "ORIG_HEAD", "index")


@dataclass(frozen=True)
class GitDir:
    """A work tree: ``top`` (the folder holding ``.git``), ``gitdir`` (HEAD, index, ORIG_HEAD)
    and ``common`` (refs, packed-refs, config: the main repository's git dir for a linked
    worktree, else ``gitdir``)."""

    top: Path
    gitdir: Path
    common: Path


def _read(p: Path, limit: int = 4096) -> bytes | None:
    try:
        with open(p, "rb") as fh:
            return fh.read(limit)
    except OSError:
        return None


def find(folder: str | os.PathLike) -> GitDir | None:
    """The git work tree holding ``folder`` (it or a parent has ``.git``), or None: no git, a
    ``.git`` that is not a repository (no ``HEAD``), or a parent on another file system (git
    stops there too, without ``GIT_DISCOVERY_ACROSS_FILESYSTEM``)."""
    try:
        d = Path(os.path.realpath(folder))
        dev = os.stat(d).st_dev
    except OSError:
        return None
    while True:
        dot = d / ".git"
        try:
            st = os.lstat(dot)
        except OSError:
            st = None
        gd = None
        if st is not None and stat.S_ISDIR(st.st_mode):
            gd = dot
        elif st is not None and stat.S_ISREG(st.st_mode):
            text = _read(dot)
            m = re.match(rb"gitdir:\s*(.+?)\s*$", text or b"")
            if m:
                gd = Path(os.path.normpath(d / os.fsdecode(m.group(1))))
        if gd is not None and os.path.isfile(gd / "HEAD"):
            common = gd
            c = _read(gd / "commondir")
            if c and c.strip():
                common = Path(os.path.normpath(gd / os.fsdecode(c.strip())))
            return GitDir(d, gd, common)
        parent = d.parent
        if parent == d:
            return None
        try:
            if os.stat(parent).st_dev != dev:
                return None
        except OSError:
            return None
        d = parent


def worktrees_inside(folder: str | os.PathLike) -> tuple[list[str], tuple | None]:
    """The linked worktrees (``git worktree add``) of the repository holding ``folder`` that lie
    inside it, as folder paths relative to it (``wt/``, ``.worktrees/fix/``): each is a second
    checkout of the same notes, not notes of its own (a trial's ``git worktree add wt-b3 b3``
    inside the watched folder made 1,516 second pages). Read from ``<common>/worktrees/*/gitdir``
    (the path of each worktree's ``.git`` file), no walk; a worktree whose ``.git`` is gone (its
    folder deleted, the entry not pruned yet) leaves nothing out. Also a stamp (None without
    ``<common>/worktrees``) that changes when a worktree is added, removed or deleted, and when
    git writes the ``gitdir`` of an entry it made a moment before (``git worktree add`` makes the
    entry first)."""
    g = find(folder)
    if g is None:
        return [], None
    admin = g.common / "worktrees"
    stamp = _stamp(admin)
    if stamp is None:
        return [], None
    top = os.path.realpath(folder)
    out = []
    try:
        names = sorted(os.listdir(admin))
    except OSError:
        return [], tuple(stamp)
    seen = []
    for name in names:
        raw = _read(admin / name / "gitdir")
        if not raw or not raw.strip():
            seen.append((name, None))
            continue
        dot = Path(os.fsdecode(raw.strip()))
        if not dot.is_absolute():
            dot = admin / name / dot
        wt = os.path.realpath(os.path.dirname(os.path.normpath(dot)))
        rel = os.path.relpath(wt, top)
        if rel in (".", os.pardir) or rel.startswith(os.pardir + os.sep) or os.path.isabs(rel):
            continue  # the folder itself, or outside it
        there = os.path.lexists(dot)
        seen.append((name, there))
        if there:
            out.append(rel.replace(os.sep, "/") + "/")
    return out, (*stamp, tuple(seen))


def _stamp(p: Path) -> list[int] | None:
    try:
        st = os.stat(p)
    except OSError:
        return None
    return [st.st_ino, st.st_size, st.st_mtime_ns]


def _resolve(g: GitDir, ref: str) -> str | None:
    """The object id ``ref`` (``refs/heads/main``) names: its loose file, else ``packed-refs``."""
    loose = _read(g.common / ref)
    if loose is not None and re.fullmatch(rb"[0-9a-f]{40,64}\s*", loose):
        return loose.strip().decode()
    try:
        with open(g.common / "packed-refs", "rb") as fh:
            for line in fh:
                parts = line.split()
                if len(parts) == 2 and parts[1].decode("utf-8", "surrogateescape") == ref:
                    return parts[0].decode()
    except OSError:
        pass
    return None


def fingerprint(folder: str | os.PathLike) -> dict | None:
    """The git state of the work tree holding ``folder`` (None when there is none):
    ``{"top", "gitdir": str, "head": HEAD's text ("ref: refs/heads/main" or an object id),
    "commit": the id HEAD names or None (an unborn branch), "markers": {name: [inode, size,
    mtime_ns] or None}}``. Plain JSON, so :func:`save` can keep it."""
    g = find(folder)
    if g is None:
        return None
    head_b = _read(g.gitdir / "HEAD")
    if head_b is None:
        return None
    head = head_b.decode("utf-8", "surrogateescape").strip()
    markers = {name: _stamp(g.gitdir / name) for name in MARKERS}
    markers["packed-refs"] = _stamp(g.common / "packed-refs")
    commit = None
    if head.startswith("ref:"):
        ref = head[4:].strip()
        if ref.startswith("refs/") and ".." not in ref.split("/"):
            markers["ref"] = _stamp(g.common / ref)
            commit = _resolve(g, ref)
    else:
        commit = head
    return {"top": str(g.top), "gitdir": str(g.gitdir), "head": head, "commit": commit, "markers": markers}


def moved(old: dict | None, new: dict | None) -> bool:
    """Whether git changed the work tree between fingerprints ``old`` and ``new``: both of the
    same git dir, and HEAD, the commit, or a marker file differs. False when either is None (no
    git then, or now: an unmounted drive takes its ``.git`` with it)."""
    if not old or not new or old.get("gitdir") != new.get("gitdir") or old.get("top") != new.get("top"):
        return False
    return old.get("head") != new.get("head") or old.get("commit") != new.get("commit") or old.get("markers") != new.get("markers")


def _branch(head: str) -> str:
    if head.startswith("ref:"):
        ref = head[4:].strip()
        return ref[len("refs/heads/"):] if ref.startswith("refs/heads/") else ref
    return head[:10]


def last_reflog(gitdir: str | os.PathLike, commit: str | None) -> str | None:
    """The message of the newest entry of HEAD's reflog (``logs/HEAD``: ``checkout: moving from
    main to other``, ``reset: moving to HEAD~3``, ``pull: Fast-forward``), when that entry moved
    HEAD to ``commit`` (the commit HEAD names now); else None (no reflog, or not that entry)."""
    try:
        with open(Path(gitdir) / "logs" / "HEAD", "rb") as fh:
            fh.seek(0, os.SEEK_END)
            fh.seek(max(0, fh.tell() - 8192))
            tail = fh.read()
    except OSError:
        return None
    lines = tail.rstrip(b"\n").split(b"\n")
    if not lines or b"\t" not in lines[-1]:
        return None
    head, msg = lines[-1].split(b"\t", 1)
    ids = head.split(b" ")
    if not commit or len(ids) < 2 or ids[1].decode("ascii", "replace") != commit:
        return None
    text = msg.decode("utf-8", "replace").strip()
    text = "".join(c if c.isprintable() else " " for c in text)
    return text[:120] or None


def reflog_stamp(gitdir: str | os.PathLike) -> list[int] | None:
    """The stat (inode, size, mtime) of HEAD's reflog, ``logs/HEAD``: it changes with every entry
    git adds (None without one)."""
    return _stamp(Path(gitdir) / "logs" / "HEAD")


def describe(old: dict, new: dict, *, reflog_old: bool = False) -> str:
    """A few words naming what git did between ``old`` and ``new`` (:func:`fingerprint`s): the
    newest entry of HEAD's reflog when it moved HEAD to ``new``'s commit (:func:`last_reflog`:
    ``git checkout main → other``, ``git reset: moving to HEAD~3``, ``git pull: Fast-forward``;
    under watch ``old`` may be hours old, so comparing the two named a checkout of then for a
    reset or pull of now: trial 44); else from the fingerprints: ``git checkout main → other``
    (HEAD names another branch or commit), ``git reset/rebase/merge on main`` (ORIG_HEAD
    rewritten: git wrote it before moving the branch), ``git commit on main`` (the branch moved),
    else ``git (the index changed)`` (``git rm``, ``git stash``). The reflog is read only when
    HEAD, its commit or ``ORIG_HEAD`` changed: an index change moves no HEAD, and the newest entry
    (``commit: …``, maybe a week old) would name what git did then. ``reflog_old``: the caller saw
    that entry long before these deletions (a watch's earlier round, :data:`engine.REFLOG_OLD_S`):
    when it still moved HEAD where it is, git did not move HEAD now, so the index changed (trial
    46: a ``git rm`` two minutes after a ``git reset`` under watch was said as the reset)."""
    om, nm = old.get("markers") or {}, new.get("markers") or {}
    head_moved = (old.get("head") != new.get("head") or old.get("commit") != new.get("commit")
                  or om.get("ORIG_HEAD") != nm.get("ORIG_HEAD"))
    msg = last_reflog(new.get("gitdir") or "", new.get("commit")) if head_moved else None
    if msg and reflog_old:
        return "git (the index changed)"
    if msg:
        m = re.fullmatch(r"checkout: moving from (.+) to (.+)", msg)
        if m:
            a, b = (x[:10] if re.fullmatch(r"[0-9a-f]{40,64}", x) else x for x in m.groups())
            return f"git checkout {a} → {b}"
        return f"git {msg}"
    oh, nh = old.get("head") or "", new.get("head") or ""
    if oh != nh:
        return f"git checkout {_branch(oh)} → {_branch(nh)}"
    if om.get("ORIG_HEAD") != nm.get("ORIG_HEAD"):
        return f"git reset/rebase/merge on {_branch(nh)}"
    if old.get("commit") != new.get("commit"):
        return f"git moved {_branch(nh)} to {str(new.get('commit') or '')[:10]}"
    return "git (the index changed)"


def _object_id_size(g: GitDir) -> int:
    cfg = _read(g.common / "config", 1 << 20) or b""
    return 32 if re.search(rb"(?im)^\s*objectformat\s*=\s*sha256\s*$", cfg) else 20


def _index_entries(g: GitDir) -> list[tuple[bytes, bytes, int, int, tuple[int, ...]]] | None:
    """git's index as ``(path, object id, flags, extended flags, cached stat)`` per entry (paths
    in bytes, relative to ``g.top``; the stat as git stores it, ten 32-bit fields: ctime s, ns,
    mtime s, ns, dev, ino, mode, uid, gid, size). None when the index is missing or not read: an
    unknown version, a split index (``link`` extension), a truncated file."""
    try:
        with open(g.gitdir / "index", "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    if len(data) < 12 or data[:4] != b"DIRC":
        return None
    version, count = struct.unpack(">II", data[4:12])
    if version not in (2, 3, 4):
        return None
    hl = _object_id_size(g)
    out: list[tuple[bytes, bytes, int, int, tuple[int, ...]]] = []
    pos = 12
    prev = b""
    try:
        for _ in range(count):
            # ctime, mtime (8 bytes each), dev, ino, mode, uid, gid, size (4 each), object id, flags (2)
            cached = struct.unpack(">10I", data[pos : pos + 40])
            oid = data[pos + 40 : pos + 40 + hl]
            (flags,) = struct.unpack(">H", data[pos + 40 + hl : pos + 42 + hl])
            p = pos + 42 + hl
            ext = 0
            if flags & 0x4000:  # extended flags (version 3 and later)
                (ext,) = struct.unpack(">H", data[p : p + 2])
                p += 2
            if version == 4:  # the name is the previous one less N bytes, plus a suffix
                c = data[p]
                p += 1
                strip = c & 0x7F
                while c & 0x80:
                    c = data[p]
                    p += 1
                    strip = ((strip + 1) << 7) | (c & 0x7F)
                end = data.index(b"\0", p)
                if strip > len(prev):
                    return None
                name = prev[: len(prev) - strip] + data[p:end]
                pos = end + 1
            else:  # NUL-terminated, padded with NULs to a multiple of 8 bytes
                end = data.index(b"\0", p)
                name = data[p:end]
                pos += ((p - pos) + len(name) + 8) & ~7
            prev = name
            if len(oid) != hl:
                return None
            out.append((name, oid, flags, ext, cached))
    except (struct.error, ValueError, IndexError):
        return None
    if data[pos : pos + 4] == b"link":  # split index: the entries live in a shared index too
        return None
    return out


#: how long a reader waits for git to write its index (``index.lock`` held: git writes the
#: work tree first, the index last) before reading the old one: :data:`LOCK_TRIES` pauses of
#: :data:`LOCK_PAUSE_S`
LOCK_PAUSE_S = 0.05
LOCK_TRIES = 60


def lock_pause(seconds: float) -> None:
    """Sleep ``seconds`` while git holds ``index.lock`` (a hook: tests let git finish here)."""
    import time

    time.sleep(seconds)


#: an ``index.lock`` last written longer ago than this is not waited for: git writes it when it
#: takes the lock (and the new index into it at the end), so a lock that old is left by a git
#: killed mid-operation, or held by a ``git commit`` whose editor is open: neither writes files
LOCK_OLD_S = 60.0


def wait_index(g: GitDir, given_up: set) -> None:
    """Wait (at most :data:`LOCK_TRIES` × :data:`LOCK_PAUSE_S`, 3 s) while ``index.lock`` is there:
    git is writing the work tree and will write its index when done. A lock last written over
    :data:`LOCK_OLD_S` ago is not waited for; one still there after the wait (git killed, a lock
    left, ``git commit``'s editor open) is recorded in ``given_up`` by its stat and not waited
    for again."""
    import time

    lock = g.gitdir / "index.lock"
    for _ in range(LOCK_TRIES):
        st = _stamp(lock)
        if st is None or tuple(st) in given_up:
            return
        if time.time() - st[2] / 1e9 > LOCK_OLD_S:
            given_up.add(tuple(st))
            return
        lock_pause(LOCK_PAUSE_S)
    st = _stamp(lock)
    if st is not None:
        given_up.add(tuple(st))


def index_paths(g: GitDir) -> set[bytes] | None:
    """The paths (bytes, relative to ``g.top``) git's index lists as in the work tree: entries
    with the skip-worktree bit (sparse checkout) left out. None when the index is missing or
    not read: an unknown version, a split index (``link`` extension), a truncated file."""
    entries = _index_entries(g)
    if entries is None:
        return None
    return {e[0] for e in entries if not e[3] & 0x4000}  # skip-worktree: kept out of the work tree


def index_blobs(g: GitDir) -> dict[bytes, bytes] | None:
    """The object id git's index holds for each path it keeps in the work tree, merged (stage
    0: a path mid-conflict has none) and not skip-worktree; None as :func:`index_paths`."""
    cache = index_cache(g)
    return None if cache is None else {name: oid for name, (oid, _st) in cache.items()}


def index_cache(g: GitDir) -> dict[bytes, tuple[bytes, tuple[int, ...]]] | None:
    """:func:`index_blobs` with each entry's cached stat (:func:`_index_entries`): ``path →
    (object id, stat)``; None as :func:`index_paths`."""
    entries = _index_entries(g)
    if entries is None:
        return None
    return {name: (oid, st) for name, oid, flags, ext, st in entries if not ext & 0x4000 and not flags & 0x3000}


def stat_cached(cached: tuple[int, ...], st: os.stat_result) -> bool:
    """Whether ``st``, a work tree file's stat, is the one git's index entry cached for it (what
    git recorded when it last wrote the file, ``checkout``/``stash``/``reset --hard``/
    ``restore``, or found it equal to the blob, ``add``/``status``): mtime seconds and
    nanoseconds, size and inode, each as git keeps it (the low 32 bits; nanoseconds 0 when git
    was built without them, inode 0 where it has none: then not compared). An editor's save of
    the same bytes is a new file or a new write, with another mtime (and often inode). ctime and
    device are not compared (``core.trustctime``, network file systems)."""
    _cs, _cn, ms, mn, _dev, ino, _mode, _uid, _gid, size = cached
    m32 = 0xFFFFFFFF
    if (st.st_mtime_ns // 1_000_000_000) & m32 != ms or st.st_size & m32 != size:
        return False
    if mn and st.st_mtime_ns % 1_000_000_000 != mn:
        return False
    return not ino or st.st_ino & m32 == ino


def blob_ids(g: GitDir, data: bytes) -> set[bytes]:
    """The object ids ``data`` has as a git blob (``git hash-object``: SHA-1, or SHA-256 in a
    repository of that object format), and, when it holds CRLF line ends, the id of its text
    with LF ends too (what ``core.autocrlf`` checks out as CRLF is stored with LF)."""
    algo = hashlib.sha256 if _object_id_size(g) == 32 else hashlib.sha1
    out = {algo(b"blob %d\0" % len(data) + data).digest()}
    if b"\r\n" in data:
        lf = data.replace(b"\r\n", b"\n")
        out.add(algo(b"blob %d\0" % len(lf) + lf).digest())
    return out


def key(brain_name: str, client: str, root: str | os.PathLike) -> str:
    """The name :func:`load`/:func:`save` keep a brain's and folder's recorded state under."""
    return hashlib.sha256("\0".join((brain_name, client, str(root))).encode("utf-8", "surrogateescape")).hexdigest()[:32]


def _record(k: str) -> Path:
    return Path(cache_dir()) / "git" / f"{k}.json"


def load(k: str) -> dict | None:
    """The fingerprint :func:`save` recorded under ``k``, or None (none, or unreadable)."""
    try:
        with open(_record(k), encoding="utf-8") as fh:
            v = json.load(fh)
    except (OSError, ValueError):
        return None
    return v if isinstance(v, dict) else None


def save(k: str, fp: dict | None) -> None:
    """Record ``fp`` under ``k`` (None removes the record). Best effort: a cache that cannot be
    written records nothing, and the guard then refuses as it would without git."""
    rec = _record(k)
    try:
        if fp is None:
            rec.unlink(missing_ok=True)
            return
        rec.parent.mkdir(parents=True, exist_ok=True)
        tmp = rec.with_name(f"{rec.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(fp), encoding="utf-8")
        os.replace(tmp, rec)
    except OSError:
        pass


__all__ = ["GitDir", "find", "fingerprint", "moved", "describe", "index_paths", "index_blobs", "index_cache", "stat_cached", "blob_ids", "last_reflog", "reflog_stamp", "worktrees_inside", "key", "load", "save"]
