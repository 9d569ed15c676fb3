"""Two-way sync between a markdown folder and brain.db: three-way reconciliation against a base.

The guarantee: after a reconciliation every path is either equal on both sides or listed in the
report (unreadable, half-written, or a conflict whose losing version was kept in full). Nothing is
merged silently (the merges, of an editor's stale save with a newer write through gbrain and of
a page both sides changed with edits that do not overlap, are logged and reported:
:mod:`gbrain.sync.merge`), nothing is deleted because it could not be read,
and no file is written that no change through gbrain asked for.

State (tables of migration ``_m3_sync`` in :mod:`gbrain.storage.db`)
-------------------------------------------------------------------
* ``sync_root``: one row per sync client (a folder syncing with the brain: ``client`` is ``''``
  on SQLite, one folder per brain file; ``host:/folder`` on Postgres, where many machines keep
  their own copies, see :func:`gbrain.storage.db.sync_client`): its ``root`` and ``cursor``, the
  last ``change_log.seq`` already applied to that folder. The log is kept until every live
  client has applied it; a client not synced for ``sync_client_expire_days`` is expired
  (``cursor = -1``, :func:`gbrain.storage.db.expire_sync_clients`) and compares every path
  three ways when it comes back (it keeps its base hashes).
* ``sync_state``: per client and path, the stat of the file when it was last hashed (``size``, ``mtime_ns``,
  ``disk_hash``) and ``base_hash``, the sha256 both sides had when they were last equal. A scan
  stats every file and reads only those whose (size, mtime_ns) differ from the row; a file whose
  mtime was within :data:`RACY_NS` of the moment it was recorded is stored with ``mtime_ns = 0``
  and re-hashed next time (git's "racily clean" rule: a second write in the same clock tick
  would otherwise go unseen).
* ``change_log``: one row per insert/update/delete of a page or file, written by SQLite triggers
  in the writer's own transaction while the brain is bound. ``gbrain watch`` polls
  ``PRAGMA data_version`` (it changes when another connection commits; on Postgres it listens
  for the ``gbrain_changes`` notification instead) and reads the log after its cursor to learn
  which paths another process (``gbrain put``, the MCP server, another machine) changed.
* ``sync_conflicts``: see below (a conflict copy a file-sync tool made has no row: it is known by
  its name, :func:`~gbrain.page.slugs.sync_tool_copy`; kind ``sync-tool`` in the round it arrives
  and in :func:`conflict_list` while it is in the brain). The trash is a view of the page history (:mod:`gbrain.core.history`):
  a page the sync removes keeps its versions and its deletion there.

The rules (per path; D = hash on disk, S = hash the DB stores, B = base; None = absent)
are decided by the pure function :func:`gbrain.sync.plan.decide`; this module gathers the states
and carries the plan out.
-----------------------------------------------------------------------------------------
==================  =======================================================================
D == S              in sync: record the base (or forget the path when absent on both sides)
D == B, S != B      the brain changed: write the file atomically (temp file + rename), or,
                    when the page was deleted through gbrain, remove the file; it is removed
                    only if it still has the base hash, and its bytes go to the trash
S == B, D != B      the file changed: import it, or, when the file was deleted, move the page
                    (or file) to the trash, from where ``gbrain restore SLUG`` brings it back;
                    a stale save (saved from a version older than the one gbrain last wrote to
                    the file, :meth:`SyncEngine._stale_view`) is merged three ways, or is a
                    ``stale-save`` conflict (carried out as ``no-base``) when that conflicts
both changed        merged three ways when the base's text is in the history and the two edits
                    do not overlap (:meth:`SyncEngine._both_merge`, plan action ``merged``: the
                    merged text becomes the file and the page, no copy); else
                    a conflict (``no-base`` when B is None: the brain's version stays, the file's
                    is the copy, see below); otherwise the file's version becomes the page; the brain's version is
                    written in full next to it as ``name.conflict-YYYYMMDDTHHMMSS.md`` (UTC),
                    which is then a page like any other, and a ``sync_conflicts`` row is added.
                    Deleted on one side and edited on the other: the edit wins, the path is
                    restored, and a conflict row records it.
==================  =======================================================================

With no base (first sync of a path) ``B`` is None, so a file only on disk is imported, a page
only in the brain is written, equal content is simply recorded and differing content is a
``no-base`` conflict: this folder never agreed with the brain on the path (a new machine, a
restored backup, an old copy of the vault), so the brain's version stays the page and is written
to the file, and the file's version is kept as the conflict copy (on disk and in the brain).
Unless the history has the file's bytes (:meth:`SyncEngine._disk_history`): an older version of
the page is just old (the brain's version is written, no copy), and a version of a page deleted
or moved away before this folder was bound is an old copy, removed from the folder (never
brought back). A folder a removal or move away empties is removed too (:meth:`SyncEngine._prune_dirs`). A
file at the old name of a page renamed in the brain (another folder's round saw the rename) is
removed as a move, not trashed: the page's history has its bytes. Moves: a path that vanished from disk while the DB still has it, plus a new path on
disk with nothing in the DB and the old path's recorded inode (``sync_state.file_id``), or its
base hash (or the DB's current hash), or a similar text (:mod:`gbrain.sync.similar`, scored by
:meth:`SyncEngine._similar`), is a rename (:func:`gbrain.sync.plan.decide`; a similar text is
a ``changed_moves`` pair: the row moves, then takes the file's text): the page row keeps its id (hence its tags, raw data,
embeddings, history and timeline rows) and gets the new slug; its outbound links and every link
that pointed at it are resolved again. A case-only rename is the same. When the DB edited the
page since the base and the new file holds the base (the disk side only moved it), the DB's
text is first written to the new path (step 2, like any brain → file write), then the row moves.
When the DB edited the page and the new file is similar to the base (renamed and edited on both
sides: a ``git pull`` of a teammate's rename while an agent edited the page), the row moves with the
DB's text, the new path keeps the old base, and the next round (:meth:`SyncEngine._then_both`)
merges the two edits or keeps the DB's version as the conflict copy, as for a path that did not move.
A new note that comes after the deletion of its old path was carried out (the page went to the
trash in an earlier round of this engine, at most :data:`RECENT_TRASH_S` before: watch's
deletions settle first, a sync client writes the new path seconds later) pairs with that page by
the same evidence (:attr:`SyncEngine.recent_trash`, the plan's ``revived_moves``): the page comes
back from the trash at the new path with its id, its history continued (:meth:`SyncEngine._revive`).

Order of a reconciliation, chosen so that a crash at any point loses nothing:
1. read: the DB hashes and ``MAX(change_log.seq)`` in one read snapshot, then stat/hash the files;
2. write to disk: conflict copies first, then brain → file writes and removals, each one only
   after re-checking that the file still has the stat it was planned from;
3. one ``BEGIN IMMEDIATE`` transaction: imports, deletions (to the trash), renames, conflict rows and new bases.
   A path whose DB hash changed since step 1 is skipped (a later round sees it).
4. verification of every touched path (:mod:`gbrain.sync.verify` for a full sync).

A path that cannot be read, is still being written (its stat changed while it was read, or, for a
file changed within :data:`YOUNG_NS` of the read, in the :data:`READ_SETTLE_S` after it:
:meth:`SyncEngine._settle_young`; read again, up to three looks), is a symlink or ignored, or lies in an unreadable folder is left alone on both sides and reported.
A vanished or unreadable root raises :class:`~gbrain.errors.GBrainError`; so does a round that
would trash :data:`MASS_TRASH` or more notes from one folder (or the root) with no markdown left
in it (an unmounted drive or sub-volume looks like that), or that are :data:`MASS_SHARE` or more
of the folder's synced notes (most of it deleted at once, or the rest of a held-back folder after
part of it came back), until a person confirms with ``--confirm-delete``
(:class:`MassDeleteRefused`, :meth:`SyncEngine.vanished_folders`). ``put_back`` (``gbrain sync
--put-back``) is the other way out: the files deleted from the folder are written again from the
brain instead of trashing their notes. ``held`` (set by watch after a refusal) names gone paths
that no round trashes until their file comes back.
"""
from __future__ import annotations

import difflib
import errno
import fcntl
import json
import operator
import os
import posixpath
import re
import stat
import time
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Callable, Iterable, Iterator

import pathspec

from ..core.brain import Brain, _same_file, file_kind, render_row, sha256
from ..storage.db import LOCK_TEMP
from ..storage import blobs
from ..storage.db import bind_client, expire_sync_clients, in_parts, sync_client, tuple_rows
from ..storage.origin import origin
from ..page.markdown import FOLDER_TYPES
from ..page.slugs import CONFLICT_MARK, cmd_arg, conflict_original, copy_mark, hidden_page_note, is_hidden_path, is_markdown, slug_problem, loose_key, move_text, moved_sidecar_path, tool_copy_name, nfc, sync_tool_copy, page_slug_for_sidecar, shown, slug_for_path, slug_key, swap_temp_name, twin_warning
from ..errors import BadInput, GBrainError
from . import verify
from .exporter import atomic_write, holds_bytes_of, safe_join
from ..core.conflicts import SYNC_TOOL, copies, copy_at, resolve_how, tool_copies_among, tool_copy_made, tool_copy_said
from ..core.history import BECAME_FILE, BECAME_PAGE, body as history_body, has_writer, in_trash, key_for_path, keep_version, moved_away, record_move, record_page_move, version_origin, version_writer
from .importer import classify
from .merge import EDITED_LINE_MIN, EDITED_PAIRS_MAX, MAX_BYTES as MERGE_MAX_BYTES, PAGE_NAME, PERSON_NAME, alike, another_line, keeps, merge_edits, stale_sidecar, stale_view, telling_line
from .plan import Created, PathState, Trashed, decide
from . import gitstate
from . import similar as sim
from .scan import DB_COPY, db_copy_of, db_rels, synced_by, YOUNG_NS, READ_SETTLE_S, settle_left, settle_pause, evicted, is_evicted, IGNORED, PURGED, UNWRITABLE, IN_LINKED_FOLDER, VANISHED, Why, keep_beside, read_failure, GONE_WHILE_READ, NOT_FOLLOWED, NOT_REGULAR, NOT_UTF8, SYMLINK, inside, kind_of, READ_TRIES, TMP_PREFIX, read_settled, remove_dead_temps, VCS_DIRS, Scan, change_stamp, db_excludes, escaped, excluded_ids, file_id, ignore_matcher, ignore_reason, is_temp_name, load_ignore, undecodable, walk_tree

MASS_TRASH = 20  # trashing this many files from a now-empty folder needs a human…
MASS_SHARE = 0.5  # …and so does trashing this many of a folder's synced notes (markdown left or not)
#: a client records that it is alive (``sync_root.synced_at``) at most this often (s): sync runs
#: and a running watch, so only a folder nobody syncs any more is expired
TOUCH_S = 600
RACY_NS = 1_000_000_000  # a file modified less than 1 s before it was recorded is re-hashed next time
KEEP_BYTES = 4 * 1024 * 1024  # bytes read while hashing are kept for the import up to this size…
KEEP_TOTAL = 128 * 1024 * 1024  # …and up to this much in all per round
# YOUNG_NS, READ_SETTLE_S, settle_pause (from .scan): a file a round read whose change stamp was
# that recent is looked at again after ``SyncEngine.read_settle`` (tests replace
# engine.settle_pause; import's own second look calls scan.settle_pause)


#: why a path is left to a later round: its file changed between the plan and the write
CHANGED_MEANWHILE = "changed on disk while syncing; will retry"
#: what a folder that refuses writes says: a read-only mount (EROFS), no permission (EACCES),
#: an immutable file or a file system that forbids the operation (EPERM)
REFUSED_WRITE = (errno.EROFS, errno.EACCES, errno.EPERM)


def refused_write(e: BaseException) -> bool:
    """Whether ``e`` is the folder refusing a write (:data:`REFUSED_WRITE`), never a full disk."""
    return isinstance(e, OSError) and e.errno in REFUSED_WRITE


def unwritable_problem(n: int, why: str, root) -> str:
    """The sync report's line (and watch's warning) for ``n`` paths the folder refused to be written."""
    return (f"{n:,} path(s) could not be written to the folder {root} ({why}): changes made through gbrain stay in the brain, "
            f"nothing is lost; the files keep their bytes until the folder is writable, then the next sync or watch writes them "
            f"(`gbrain export --dir OTHER` copies the brain's version out meanwhile)")


def unwritable(e: OSError) -> Why:
    """The reason a path's brain → file write was refused: kind :data:`~gbrain.sync.scan.UNWRITABLE`."""
    return Why(f"cannot write to the folder: {e.strerror or e}", UNWRITABLE)


def note_refused(out, path: str, e: OSError) -> None:
    """In an ``except OSError as e`` of a brain → file write: a write the folder refused
    (:func:`refused_write`) is listed in ``out.unreadable`` under ``path`` (:func:`unwritable`),
    for the caller to leave that path out of the round; any other error is raised again."""
    if not refused_write(e):
        raise e
    out.unreadable.append((path, unwritable(e)))


#: a new note at the old name of a page another folder renamed (:meth:`SyncEngine._late_save_of`)
#: is a late save of it (an editor's buffer) when at least this alike to a version the old name
#: had: an editor's buffer plus what the person typed scores 0.92-0.96 on a short meeting note;
#: a new note from the same template as the renamed one 0.76 (above the move pairing's SIMILAR_MIN)
LATE_SAVE_MIN = 0.85
#: stale saves (:mod:`gbrain.sync.merge`): a file change is compared with the versions gbrain
#: wrote since the file last fed the brain (at most this many, and only when gbrain's newest
#: write is at most STALE_WINDOW_S old): an editor's buffer can only hold a version the file held
STALE_VERSIONS = 64
STALE_WINDOW_S = 3600
#: how many versions the brain may be past a both-changed page's base for a stale save of the
#: base to be looked for (:meth:`SyncEngine._stale_base`)
BOTH_STALE_NEWER = 64
#: titles at most read to tell whether a word is the first word of a person page's title
#: (:meth:`SyncEngine._page_name`); a word more titles start with reads as a person's; and (+ 1)
#: the pages each of its exact lookups (file name, title, alias) reads at most
FIRST_WORD_ROWS = 32


def _folder_type(t: str) -> str:
    """SQL: the type :func:`gbrain.page.markdown.page_type` gives a page of table ``t`` whose
    frontmatter names none (its first folder's, ``FOLDER_TYPES``, else ``note``), from its
    ``slug_key``: a page whose type is that one names no other (``_page_name``)."""
    whens = " ".join(f"WHEN {t}.slug_key LIKE '{folder}/%' THEN '{typ}'" for folder, typ in FOLDER_TYPES.items())
    return f"CASE {whens} ELSE 'note' END"
#: history origins (surface, operation) of versions that came from a synced folder's file: the
#: person's own saves, never taken for a write through gbrain
_FROM_FILE = {"file changed", "conflict: file kept", "file moved", "conflict copy", "conflict copy: the file's version"}
#: notes larger than this are not compared for move pairing (a moved and edited one is a new page)
SIMILAR_MAX_BYTES = 1024 * 1024
#: a page this engine trashed (its file deleted) pairs with a note created later, as a move, for
#: this long (s; :attr:`SyncEngine.recent_trash`, the plan's ``revived_moves``): a deletion waits
#: in watch up to ``watch.SETTLE_MAX_S`` (30 s) and the creation may come after it was carried out
#: (a sync client writes the new path seconds after it deleted the old, a big ``git checkout``, a
#: slow network drive); twice that covers them, and a note written anew a minute after its
#: deletion is taken for what it looks like, a new page (``gbrain restore`` brings the old back)
RECENT_TRASH_S = 60.0
#: HEAD's newest reflog entry that a round already saw this long ago names no deletion found now
#: (:meth:`SyncEngine._by_git`): one git command's deletions reach watch's round within its
#: ``SETTLE_MAX_S`` (30 s) of that command; a later ``git rm`` moved no HEAD (trial 46)
REFLOG_OLD_S = 60.0


# ---------------------------------------------------------------------------
# small records
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class HashOnly:
    """A removed big file's bytes, by hash only: the history holds them already."""

    hx: str


@dataclass
class DiskFile:
    """A file on disk as seen by this round: its stat and (once known) its sha256."""

    path: str
    size: int
    mtime_ns: int
    hash: str | None = None
    data: bytes | None = None  # kept when it was read for hashing and is small
    fid: int | None = None  # device and inode (scan.file_id) when known


@dataclass
class Outcome:
    """What one reconciliation did. Lists hold relative paths; ``log`` holds the one-line messages."""

    imported: list[str] = field(default_factory=list)
    exported: list[str] = field(default_factory=list)
    trashed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    moved: list[tuple[str, str]] = field(default_factory=list)
    #: ``(old, new)``: a page's note moved into a hidden folder (``plans/x.md`` → ``.plans/x.md``),
    #: now a file (``slugs.HIDDEN_WHY``), or a hidden note out of one, a page again: out of
    #: ``trashed``, :meth:`SyncEngine._moved_hidden`
    hidden_moved: list[tuple[str, str]] = field(default_factory=list)
    conflicts: list[dict] = field(default_factory=list)
    unreadable: list[tuple[str, str]] = field(default_factory=list)  # (path, why): left alone
    warnings: list[str] = field(default_factory=list)
    mismatches: list[str] = field(default_factory=list)
    parsed_counts: dict[str, tuple[int, int, int]] = field(default_factory=dict)
    disk_hashes: dict[str, str] = field(default_factory=dict)  # final disk hash of every path considered
    sidecar_moves: list[tuple[str, str, int]] = field(default_factory=list)  # (old, new, page id) to rename
    page_moves: list[tuple[str, str]] = field(default_factory=list)  # (old, new) page paths whose conflict copies follow
    collapsed: list[dict] = field(default_factory=list)  # pages a file emptied or shrank (see _check_collapse)
    cleaned: list[str] = field(default_factory=list)  # leftovers of a run that died, cleaned up (one line each)
    #: paths gone from disk but edited in the brain, left for a later round instead of being put
    #: back (``reconcile(hold_gone_edits=True)``: the file may have moved, its events still on their way)
    held: list[str] = field(default_factory=list)
    #: pages merged three ways (also in ``imported`` and ``exported``): stale saves merged with a
    #: newer write through gbrain, and pages both sides changed whose edits do not overlap
    merged: list[str] = field(default_factory=list)
    #: files deleted from the folder that ``put_back`` (``sync --put-back``) wrote again from the
    #: brain (not in ``exported``; counted with the delete/edit conflicts as ``put_back``)
    put_back: list[str] = field(default_factory=list)
    #: this folder's saves that lost a conflict another folder's round found (Postgres: a
    #: teammate saved the same note at the same time), told when the winner's text reaches the
    #: file: ``{path, copy_path, kept_by, kept_origin}`` (:meth:`SyncEngine._overruled`)
    overruled: list[dict] = field(default_factory=list)
    #: a brain → file write that removed lines this folder's save added (a write from an older
    #: read): ``{path, by, lines, first}`` (:meth:`SyncEngine._save_dropped`)
    saves_dropped: list[dict] = field(default_factory=list)
    #: deletions the mass-deletion guard let through because git made them (one line each:
    #: ``git checkout main → other: 25 notes removed from …, kept in history …``)
    git: list[str] = field(default_factory=list)
    #: no base, the file held an older version of its page: the brain's written (also in ``exported``)
    old_replaced: list[str] = field(default_factory=list)
    #: ``(path, why)``: no base, the file held a version of a page the brain deleted or moved away:
    #: removed from the folder (also in ``removed``)
    old_removed: list[tuple[str, str]] = field(default_factory=list)
    #: ``(path, new path)``: a file whose page was renamed in the brain (another folder's round
    #: saw the rename): removed from the folder as a move, nothing trashed (also in ``removed``)
    moved_in_brain: list[tuple[str, str]] = field(default_factory=list)
    #: files of pages deleted in the brain whose bytes a ``gbrain purge`` removed: removed from the
    #: folder without a copy in the trash (also in ``removed``): keeping them would undo the purge
    purged_removed: list[str] = field(default_factory=list)
    #: the new paths of ``both_moves`` pairs carried out (also in ``moved``): the next round merges
    #: both sides' edits (or keeps the brain's as the conflict copy): :meth:`SyncEngine._run` runs it
    both_moved: list[str] = field(default_factory=list)
    #: moves this folder's file made to follow a rename made in the brain by another folder
    #: (an edit or a late save at the old name: :meth:`SyncEngine._follow_brain_moves`,
    #: :meth:`SyncEngine._follow_late_saves`; also in ``moved``): the rename is not this folder's,
    #: so the line on links it left dangling is not said here (trial 34: every watch said it)
    followed: list[tuple[str, str]] = field(default_factory=list)
    #: paths this round imported that the brain did not hold before (their names are checked
    #: for copies on macOS and Windows: :meth:`SyncEngine._portable`)
    new_paths: list[str] = field(default_factory=list)
    #: paths this round left to the next because the brain changed under it (another writer's
    #: commit between the round's read and its write transaction), both ends of such a move: not
    #: a mismatch (:meth:`SyncEngine.verify_paths`); watch runs them again
    deferred: list[str] = field(default_factory=list)
    #: where each path of ``imported`` stands in a round's order, so the rounds of one sync (a
    #: pre-pass's chunks, then the full sync) list them as one round over all their paths does
    #: (:func:`_one_round_order`): ``(0, i)`` before the round's plain imports (moves, revived
    #: pages: the i-th), ``(1, sidecar, path)`` a plain import (pages before ``.raw`` sidecars, each
    #: by path), ``(2, kept, both, path)`` a merge (written before kept in the brain only, a stale
    #: save's before a both-changed one's, each by path), ``(3, i)`` a round run after it
    #: (:meth:`SyncEngine._then_both`); a path missing is ``(0, i)``
    import_rank: dict[str, tuple] = field(default_factory=dict)

    def own_moves(self) -> list[tuple[str, str]]:
        """``moved`` but the moves that only followed another folder's rename (``followed``)."""
        return [m for m in self.moved if m not in self.followed] if self.followed else self.moved

    def changed(self) -> int:
        return (len(self.imported) + len(self.exported) + len(self.trashed) + len(self.removed) + len(self.moved) + len(self.hidden_moved)
                + len(self.conflicts) + len(self.put_back))

    def counts(self) -> dict:
        return {
            "imported": len(self.imported),
            "exported": len(self.exported),
            "trashed": len(self.trashed),
            "removed": len(self.removed),
            "moved": len(self.moved),
            # conflicts with both versions kept (a copy `gbrain conflicts` lists) apart from
            # delete/edit conflicts, where the edited version was simply put back (noted only)
            "conflicts": sum(1 for c in self.conflicts if c.get("copy_path")) + len(self.overruled),  # (+ this folder's saves that lost one elsewhere)
            "put_back": sum(1 for c in self.conflicts if not c.get("copy_path")) + len(self.put_back),
            # left alone: could not be read (retried), and the user's own choices (kept, exit 0)
            "unreadable": sum(1 for _, w in self.unreadable if kind_of(w) not in (SYMLINK, IGNORED, VANISHED, UNWRITABLE, PURGED)),
            # brain → file writes the folder refused (read-only): kept in the brain, exit 1
            "unwritable": sum(1 for _, w in self.unreadable if kind_of(w) == UNWRITABLE),
            "vanished": sum(1 for _, w in self.unreadable if kind_of(w) == VANISHED),
            "symlinked": sum(1 for _, w in self.unreadable if kind_of(w) == SYMLINK),
            "ignored": sum(1 for _, w in self.unreadable if kind_of(w) == IGNORED),
        }


def _prefixes(p: str) -> list[str]:
    """The folders holding path ``p``, outermost first: ``''`` (the root), ``'a/'``, ``'a/b/'``."""
    parts = p.split("/")[:-1]
    return ["".join(x + "/" for x in parts[:i]) for i in range(len(parts) + 1)]


class SyncError(GBrainError):
    """Sync stopped before changing anything it could not vouch for (vanished root, lock held…)."""

    kind = "sync_error"


_MACHINE_KEY: list[str] = []
#: whether :func:`machine_key` came from a random number (no machine id, no MAC address: a
#: ``uuid.getnode`` with the multicast bit set), so differs on every start
_MACHINE_RANDOM: list[bool] = []


def machine_key() -> str:
    """This machine's identity, 8 hex digits: of ``/etc/machine-id`` (else
    ``/var/lib/dbus/machine-id``, else the MAC address, ``uuid.getnode``), read once per process.
    It tells apart two machines whose sync clients have one id (one host name, one folder path:
    :meth:`SyncEngine._other_machine`); the same on every start of this machine, so a LISTEN
    connection a killed watch of it left on the server is not another machine."""
    if not _MACHINE_KEY:
        import hashlib

        raw = b""
        for f in ("/etc/machine-id", "/var/lib/dbus/machine-id"):
            try:
                raw = open(f, "rb").read().strip()
            except OSError:
                continue
            if raw:
                break
        if not raw:
            import uuid

            node = uuid.getnode()
            raw = str(node).encode()
            _MACHINE_RANDOM.append(bool((node >> 40) & 1))
        _MACHINE_KEY.append(hashlib.sha256(raw).hexdigest()[:8])
    return _MACHINE_KEY[0]


def machine_key_stable() -> bool:
    """Whether :func:`machine_key` is this machine's on every start (False: made from a random
    number, no machine id and no MAC address found): only a stable key is recorded with a sync
    client (``sync_root.machine``, :meth:`SyncEngine._claim_machine`)."""
    machine_key()
    return not any(_MACHINE_RANDOM)


def client_tag(client: str) -> str:
    """12 hex digits naming sync client ``client`` (``host:/folder``) in a connection's
    ``application_name`` (at most 63 bytes: a folder path does not fit)."""
    import hashlib

    return hashlib.sha256(client.encode("utf-8", "surrogateescape")).hexdigest()[:12]


class MassDeleteRefused(SyncError):
    """A folder lost all its markdown, or most of its notes, at once (see
    :meth:`SyncEngine.vanished_folders`); a person confirms with ``--confirm-delete``.
    ``folders``: the ``(prefix, notes)`` refused (a prefix ends in ``/``; ``""`` is the root);
    ``paths``: every path the round would have trashed under them (what watch holds back)."""

    kind = "mass_delete_refused"

    def __init__(self, msg: str, folders: list[tuple[str, int]] | None = None, paths: Iterable[str] = ()):
        super().__init__(msg)
        self.folders = folders or []
        self.paths = set(paths)



#: longest file name (one path segment, in UTF-8 bytes) a conflict copy gets: the limit of ext4,
#: APFS, NTFS and most other file systems
MAX_FILE_NAME_BYTES = 255


def _fit_stem(folder: str, stem: str, tail: str) -> str:
    """``stem`` cut (at a character boundary) so that ``basename(stem) + tail`` takes at most
    :data:`MAX_FILE_NAME_BYTES` bytes in UTF-8; ``stem`` itself when it fits."""
    base = stem[len(folder):]
    room = MAX_FILE_NAME_BYTES - len(tail.encode("utf-8", "surrogateescape"))
    raw = base.encode("utf-8", "surrogateescape")
    if len(raw) <= room:
        return stem
    return folder + raw[: max(room, 1)].decode("utf-8", "ignore")


def _split_copy(path: str) -> tuple[str, str, str]:
    """``(folder with its trailing /, stem, extension kept after the mark)`` of ``path``."""
    folder = path[: path.rfind("/") + 1]
    return (folder, path[:-3], path[-3:]) if is_markdown(path) else (folder, path, "")


def is_conflict_copy_of(copy: str, path: str) -> bool:
    """Whether ``copy`` is named like a conflict copy of ``path`` (see :func:`conflict_copy_path`;
    a copy of a long name has its name cut to :data:`MAX_FILE_NAME_BYTES`)."""
    folder, stem, ext = _split_copy(path)
    if not copy.endswith(ext) or not copy.startswith(folder):
        return False
    m = CONFLICT_MARK.search(copy, len(folder))
    while m is not None:
        if m.end() == len(copy) - len(ext):
            head = copy[: m.start()]
            return head == stem or (stem.startswith(head) and _fit_stem(folder, stem, copy[m.start():]) == head)
        m = CONFLICT_MARK.search(copy, m.start() + 1)
    return False


def conflict_copy_path(path: str, when: float | None = None, taken: Callable[[str], bool] = lambda p: False) -> str:
    """Where the losing version of ``path`` is kept: ``dir/name.conflict-YYYYMMDDTHHMMSS.md``.

    Markdown keeps its ``.md`` suffix (so Obsidian shows the copy as a note); any other file gets
    the marker appended (``ana.json.conflict-…``) so a copy is never mistaken for a sidecar. A
    name that would pass :data:`MAX_FILE_NAME_BYTES` with the marker is cut before it (a
    248-byte note name is legal; its copy's full name would not be).
    ``-2``, ``-3``… are added while ``taken(candidate)`` is true. Time is UTC.
    """
    ts = time.strftime("%Y%m%dT%H%M%S", time.gmtime(when if when is not None else time.time()))
    folder, stem, ext = _split_copy(path)
    n = 1
    while True:
        mark = f".conflict-{ts}" + (f"-{n}" if n > 1 else "")
        # a long name is cut so the copy's name stays within the file system's 255 bytes
        cand = _fit_stem(folder, stem, mark + ext) + mark + ext
        if not taken(cand):
            return cand
        n += 1


def moved_copy_path(copy: str, new_original: str, taken: Callable[[str], bool] = lambda p: False) -> str | None:
    """Where the conflict copy ``copy`` goes when what it copies moves to ``new_original``: the
    copy name of the new path with the copy's own mark (gbrain's ``.conflict-TS``, a file-sync
    tool's). A gbrain copy whose name ``taken(candidate)`` says is taken gets the ``-2``, ``-3``…
    of :func:`conflict_copy_path` (counting on from the number it had), its name cut as that
    cuts one; a tool's copy has no such rule (a number after its mark would make it no copy
    :func:`~gbrain.page.slugs.sync_tool_copy` knows): None when its name is taken or longer than
    :data:`MAX_FILE_NAME_BYTES`. None too when ``copy`` names no copy. Pure."""
    hit = copy_mark(copy)
    if hit is None:
        return None
    _, mark, tool = hit
    if tool is not None:
        cand = tool_copy_name(new_original, mark)
        if len(cand.rpartition("/")[2].encode("utf-8", "surrogateescape")) > MAX_FILE_NAME_BYTES or taken(cand):
            return None
        return cand
    m = re.fullmatch(r"(\.conflict-\d{8}T\d{6})(?:-(\d+))?", mark, re.IGNORECASE)
    head, n = m.group(1), int(m.group(2) or 1)
    folder, stem, ext = _split_copy(new_original)
    while True:
        mk = head + (f"-{n}" if n > 1 else "")
        cand = _fit_stem(folder, stem, mk + ext) + mk + ext
        if not taken(cand):
            return cand
        n += 1


def _in_cycle(rel: str, now: dict[str, int], recorded: dict[int, str]) -> bool:
    """Whether following ``rel`` to the path whose recorded file id (``recorded``: id → path)
    its file has ``now`` (path → id), and on, comes back to ``rel``: files that exchanged names
    (:meth:`SyncEngine.plain_chunks`). Pure."""
    p, seen = rel, set()
    while p in now and p not in seen:
        seen.add(p)
        p = recorded.get(now[p])
        if p == rel:
            return True
    return False


def copy_renames(brain: Brain, src: str, dst: str, on_disk: Callable[[str, str], bool] = lambda p, own: False) -> tuple[list[tuple[str, str, str]], list[tuple[str, str]]]:
    """The conflict copies stored for the page moving from path ``src`` to ``dst`` (gbrain's
    ``NAME.conflict-TS.md``, a long name's cut one too; a file-sync tool's) and for its ``.raw``
    sidecars (``.raw/NAME.json.conflict-TS``, ``.raw/NAME.sync-conflict-….json``), and where each
    goes to travel with it, as its sidecar does: ``([(copy, new path, new original)], [(copy, why
    it stays)])``, sorted by path. A new path is free of stored pages (any spelling
    :func:`~gbrain.page.slugs.slug_key` folds), files, the other copies' new paths and what
    ``on_disk(path, copy)`` says is in the folder other than the copy itself (a case-only rename on a
    folder that ignores case) (:func:`moved_copy_path`). Reads only."""
    c = brain.conn
    page = slug_for_path(src)
    rows = sorted(r[0] for r in c.execute("SELECT path FROM pages WHERE path LIKE '%onflict%' UNION ALL SELECT path FROM files WHERE path LIKE '%onflict%'"))
    claimed: set[str] = set()

    def taken(p: str, own: str) -> bool:  # (``own``, the copy moving, takes no name: a case-only rename)
        return p in claimed or (p != own and on_disk(p, own)) or c.execute(
            "SELECT 1 FROM pages WHERE (path = ? OR slug_key = ?) AND path != ? UNION ALL SELECT 1 FROM files WHERE path = ? AND path != ?",
            (p, slug_key(slug_for_path(p)) if is_markdown(p) else "", own, p, own)).fetchone() is not None

    moves, left = [], []
    for p in rows:
        hit = copy_mark(p)
        if hit is None or p in (src, dst):  # (the page itself, renamed to a copy's name of its old one: no copy of it)
            continue
        orig, _, tool = hit
        if orig == src or (tool is None and is_conflict_copy_of(p, src)):
            new_orig = dst
        elif page_slug_for_sidecar(orig) == page and posixpath.dirname(posixpath.dirname(orig)) == posixpath.dirname(src):
            new_orig = moved_sidecar_path(orig, src, dst)
        else:
            continue
        new = moved_copy_path(p, new_orig, lambda q, p=p: taken(q, p))
        if new is None:
            left.append((p, f"{posixpath.basename(tool_copy_name(new_orig, hit[1]))} is taken (or too long a name) in {posixpath.dirname(new_orig) or 'the root'}"))
        elif new != p:
            claimed.add(new)
            moves.append((p, new, new_orig))
    return moves, left


def move_copy(brain: Brain, old: str, new: str, new_original: str, page_move: tuple[str, str] | None = None) -> bytes | None:
    """Move the conflict copy stored at ``old`` to ``new`` (:meth:`Brain.move_stored`: its row,
    bytes and history, a ``move``), and its ``sync_conflicts`` record with it (the copy's path and
    the original's, ``new_original``), so ``conflicts`` and lint name the new places. A copy that
    is a page landing in another folder then has its relative links written to name from there
    what they named from the old folder (:func:`relink_moved_copy`; ``page_move``: the moved
    page's ``(old path, new path)``). In the caller's write transaction. Returns the copy's new
    bytes when its links were rewritten (a new version), else None."""
    brain.move_stored(old, new)
    brain.conn.execute("UPDATE sync_conflicts SET path = ?, copy_path = ? WHERE copy_path = ?", (new_original, new, old))
    return relink_moved_copy(brain, old, new, page_move)


def relink_moved_copy(brain: Brain, old: str, new: str, page_move: tuple[str, str] | None = None) -> bytes | None:
    """The page stored at ``new``, a conflict copy just moved from ``old`` with its page: its
    relative links (``../people/ana.md``, an image, ``[[../x]]``, a reference definition, a bare
    ``ana.md``) written to name from the new folder what they named from the old one
    (:func:`~gbrain.page.linkedit.repointed_path_links`, as ``move`` rewrites the moved page's own;
    one naming the page that moved, ``page_move[0]``, names it at ``page_move[1]``), every other
    byte as saved; saved as a new version (the history keeps the copy as it was). Returns the new
    bytes, or None when nothing changed (the same folder, no such link, not a page). Raises
    :class:`~gbrain.errors.GBrainError` for a page whose stored text is damaged."""
    from ..page.linkedit import repointed_path_links

    if posixpath.dirname(old) == posixpath.dirname(new):
        return None
    c = brain.conn
    row = c.execute("SELECT * FROM pages WHERE path = ?", (new,)).fetchone()
    if row is None:
        return None

    def where(path: str) -> str | None:
        if page_move is not None and page_move[0] in (path, path + ".md"):
            return page_move[1]
        hit = c.execute("SELECT path FROM files WHERE path = ? UNION ALL SELECT path FROM pages WHERE path IN (?, ?)", (path, path, path + ".md")).fetchone()
        return hit[0] if hit else None

    text = brain.check_text(row)
    again = repointed_path_links(text, old, new, where, bare=True)
    if again == text:
        return None
    brain.save_page(new, again)
    return again.encode("utf-8")


# ---------------------------------------------------------------------------
# the engine
# ---------------------------------------------------------------------------


def _move_over_checked(src: str, dst: str, checked: os.stat_result) -> bool:
    """Move the file at ``src`` to ``dst`` only over the file ``checked`` (the one whose bytes a
    round hashed), never over a save landing at ``dst`` after that check: a swap temp linked to
    ``src`` goes in with :func:`~gbrain.sync.exporter._swap_in` (a save made meanwhile stays at
    ``dst``, ``src`` stays too). True: moved (``src`` gone)."""
    from . import exporter
    from .scan import swap_temp

    folder, name = os.path.split(dst)
    tmp = swap_temp(folder, name)
    try:
        os.link(src, tmp)
    except FileExistsError:
        return False
    except OSError:  # no hard links here: a copy (``src`` stays until the move is done)
        with blobs.open_nofollow(src) as f:
            exporter._replace_file(tmp, f.read(), None)
    mine = os.lstat(tmp)
    try:
        ok = exporter._swap_in(tmp, dst, lambda st: st is not None and exporter._same_file(st, checked), mine)
    except BaseException:
        exporter._restore(tmp, dst, mine)
        raise
    if not ok:
        exporter._drop_ours(tmp, dst, mine)
        return False
    os.unlink(src)
    return True


def _follows_next_round(p: str, tp: str, paths: set[str], maps: tuple, out: Outcome) -> None:
    """A note at ``p`` whose file took the renamed page's path ``tp`` (:meth:`SyncEngine._follow_brain_moves`,
    :meth:`SyncEngine._follow_late_saves`): both paths leave this round (``paths`` and the round's
    maps ``maps``, D/S/B), said as a move (``out.followed`` too: the rename is another folder's);
    ``out.both_moved`` has the next round import or merge it."""
    for m in maps:
        m.pop(p, None)
        m.pop(tp, None)
    paths.discard(p)
    paths.discard(tp)
    out.moved.append((p, tp))
    out.followed.append((p, tp))
    out.both_moved.append(tp)


def _one_round_order(outs: list[Outcome]) -> list[str]:
    """The paths the rounds ``outs`` imported (in the order they ran: a pre-pass's chunks, then
    the full sync), each once, in the order one round over all their paths lists them
    (:attr:`Outcome.import_rank`): a chunked sync's ``changed.imported`` is a one-transaction
    sync's, not the chunks' paths first."""
    keys: dict[str, tuple] = {}
    for n, o in enumerate(outs):
        for i, p in enumerate(o.imported):
            if p not in keys:
                r = o.import_rank.get(p, (0, i))
                keys[p] = r if r[0] in (1, 2) else (r[0], n, *r[1:])
    return sorted(keys, key=keys.__getitem__)


def _add_outcome(out: Outcome, more: Outcome) -> None:
    """Add ``more`` (a later round's outcome) to ``out``, in place: each list's new items after
    its own (an item both hold once), each dict updated."""
    for f in fields(Outcome):
        a, b = getattr(out, f.name), getattr(more, f.name)
        if isinstance(a, list):
            seen = {x for x in a if not isinstance(x, dict)}  # a set for strings and tuples
            for x in b:
                if x in seen if not isinstance(x, dict) else x in a:  # dicts (few): by ==
                    continue
                a.append(x)
                if not isinstance(x, dict):
                    seen.add(x)
        elif isinstance(a, dict):
            a.update(b)


#: a big round's paths are reconciled this many per transaction, each committed before the next
#: begins, so the brain's write lock is free between them: an agent's write waits about one
#: chunk, not the whole round (trial 55: 2,207 notes rewritten by a rename's link update were one
#: transaction, an MCP ``timeline_add`` waited 84.7 s). A round costs ~7–15 ms CPU per changed
#: note (small notes; trial 55's storm A), so 60 paths are ~0.4–0.9 s CPU, and each chunk adds
#: ~40 ms (its own read, plan and commit): ``benchmarks/watch_big_round.py``, 2,000 notes at load
#: 14: a writer's max wait 1.8 s against 39.7 s in one transaction, watch's CPU +11 %. Watch's
#: file rounds and first sync (``GBRAIN_WATCH_CHUNK``) and ``gbrain sync``'s pre-pass
#: (``GBRAIN_SYNC_CHUNK``) use it: :func:`chunk_size`
CHUNK_PATHS = 60


def chunk_size(var: str) -> int:
    """Paths per chunk: the environment variable ``var`` when it is a whole number (0: no
    chunks, one transaction), else :data:`CHUNK_PATHS`."""
    raw = os.environ.get(var, "").strip()
    return int(raw) if raw.isdigit() else CHUNK_PATHS



def _file_print(st: os.stat_result) -> tuple[int, int, int]:
    """What a chunked sync compares to tell a file unchanged since it was stat'ed: ``(size,
    change stamp, file id)`` (:func:`.scan.change_stamp`, :func:`.scan.file_id`): the same
    length, no write since, the same inode."""
    return st.st_size, change_stamp(st), file_id(st)

class SyncEngine:
    """Keeps one brain and one folder equal. Not thread-safe: one engine per process and folder.

    ``log`` receives one line per change (``~ people/ana-lima.md → db``, ``← db people/ana-lima``);
    ``warn`` receives warnings. Use :meth:`bind` first, then :meth:`sync` (whole tree) or
    :meth:`reconcile` (given paths and folders, as ``gbrain watch`` does).
    """

    def __init__(self, brain: Brain, root: str | os.PathLike, *, log: Callable[[str], None] | None = None, warn: Callable[[str], None] | None = None):
        self.brain = brain
        self.conn = brain.conn
        self.root = Path(os.path.abspath(os.path.expanduser(str(root))))
        # a log line names files: their control characters as escapes (slugs.shown), so a name
        # holding a newline cannot print as a line of its own
        self._log = (lambda s: log(shown(s))) if log else (lambda s: None)
        self._warn = warn or (lambda s: None)
        #: import a file whose bytes are exactly a purged version's too (``--include-purged``)
        self.include_purged = False
        #: seconds before a round looks again at the files it read young (:meth:`_settle_young`); 0: never
        self.read_settle = READ_SETTLE_S
        #: paths whose writer is known to have closed them since its last write (watch, on an
        #: observer that reports closes: ``watch.Pending.closed``): read without that second look
        self.closed: set[str] = frozenset()
        self._lock_fd: int | None = None
        self._locks: list[tuple[int, str]] = []  # (fd, path) of each sync lock held (:meth:`_lock`)
        self.spec: pathspec.PathSpec | None = None
        self.ignored: Callable[[str], bool] = ignore_matcher(None)  # self.spec.match_file, fast
        self.excl: set[str] = set()  # the database and its -wal/-shm/-journal, when inside the root
        self.excl_copies: frozenset[str] = frozenset()  # their paths in the root, whose conflict copies are theirs too (scan.db_copy_of)
        self._dir_cache: dict[str, set[str] | None] = {}
        self._said_synced_db = False  # the warning of a database inside a folder a file-sync tool syncs was given
        #: every stored hash of a round that found the whole brain as recorded (:meth:`_unchanged`), for its report
        self._settled: dict[str, str] | None = None
        #: trash the notes of a folder whose markdown all vanished (a person said so)
        self.confirm_delete = False
        #: write files deleted from the folder back from the brain instead of trashing their notes
        self.put_back = False
        #: gone paths no round trashes (watch: refused ones) until their file is back on disk
        self.held: set[str] = set()
        #: paths whose eviction by iCloud Drive this engine said (:func:`~gbrain.sync.scan.evicted`):
        #: said once, again after the file was back
        self._evicted_said: set[str] = set()
        self._purged_said: set[str] = set()  # files left out as a purged version's bytes, said once
        #: every path this engine trashed (a refusal says how many of its folder went earlier)
        self.trashed_paths: set[str] = set()
        #: pages this engine trashed in the last :data:`RECENT_TRASH_S` seconds because their file
        #: was deleted: path → (:attr:`clock` time, page id, hash of its last text, its base's file
        #: id). A later round pairs a new note with one as a move (:meth:`_revive`)
        self.recent_trash: dict[str, tuple[float, int, str, int | None]] = {}
        self._trash_texts: dict[str, str] = {}  # their texts, by hash, read once (:meth:`_trashed_similar`)
        #: the mirror: pages this engine created from a new note in the last :data:`RECENT_TRASH_S`
        #: seconds: path → (:attr:`clock` time, page id, hash of its text, the file's id). A later
        #: round that trashes a page whose note it is takes it as a move (:meth:`_adopt`)
        self.recent_new: dict[str, tuple[float, int, str, int | None]] = {}
        #: monotonic seconds (tests set their own)
        self.clock: Callable[[], float] = time.monotonic
        #: recorded as the origin of every version this engine writes (``watch`` sets its own)
        self.surface = "sync"
        #: whose base this engine reads and writes: '' on SQLite, host:folder on Postgres
        self.client = sync_client(self.conn, self.root)
        self.leftover_temps: list[tuple[str, str]] = []  # gbrain temp files seen by the last scan
        #: a whole-tree scan the next :meth:`sync` may take instead of its own (:meth:`hand_scan`)
        self.prescan: tuple | None = None
        #: the chunks :meth:`sync`'s pre-pass committed before the sync stopped (failed, interrupted): kept
        self.chunks_kept = 0
        #: the outcome of the round :meth:`_run` is running (or ran last): :meth:`reconcile`'s
        self._round_out: Outcome | None = None
        #: ``brain.commits`` as that round's own write transaction began (None before): a commit past it is the round's
        self._round_base: int | None = None
        #: paths per transaction of the pre-pass :meth:`sync` runs (:meth:`chunk_prepass`; 0: none,
        #: one transaction; ``gbrain sync`` sets :func:`chunk_size` of ``GBRAIN_SYNC_CHUNK``)
        self.chunk = 0
        #: the outcomes of the pre-pass's chunks, while one runs (each :meth:`reconcile` adds its
        #: own); the full sync's report counts them (:meth:`_sync`)
        self.chunk_outs: list[Outcome] | None = None
        #: a line for the person at once (not with the warnings at the end: a Ctrl-C's); ``gbrain
        #: sync`` points it at stderr
        self.say_now: Callable[[str], None] = self._warn
        #: the git state (:func:`gitstate.fingerprint`) at the start of the last whole-tree sync
        #: that completed, recorded outside the folder (:meth:`bind` reads it): deletions made
        #: while git moved since are git's (:meth:`_by_git`); None: no git, or not known
        self.git_base: dict | None = None
        #: git's index as last read by :meth:`_git_wrote`: (its stat, (object id, cached stat) per path)
        self._git_index: tuple[tuple, dict[bytes, tuple[bytes, tuple[int, ...]]] | None] | None = None
        #: (the stat of HEAD's reflog, :attr:`clock` time) when a round first ended with it (:meth:`_finish`)
        self._reflog_seen: tuple[list[int] | None, float] | None = None
        #: the ``index.lock`` files (by stat) :func:`gitstate.wait_index` waited out: not again
        self._git_lock_given_up: set = set()

    # ---- binding and locking ------------------------------------------------

    def check_root(self) -> None:
        """Raise :class:`SyncError` unless the root is an existing, listable directory."""
        try:
            st = os.stat(self.root)
        except FileNotFoundError:
            raise SyncError(f"the folder {self.root} does not exist (vanished?); nothing was changed") from None
        except PermissionError:
            raise SyncError(f"no permission to read {self.root}; nothing was changed") from None
        if not stat.S_ISDIR(st.st_mode):
            raise SyncError(f"{self.root} is not a folder")
        try:
            os.listdir(self.root)
        except PermissionError:
            raise SyncError(f"no permission to list {self.root}; nothing was changed") from None

    def bind(self, rebind: bool = False) -> None:
        """Bind the brain to the root (first time), take the sync lock and load ignore rules.

        Raises :class:`BadInput` when the brain is bound to another folder (``rebind`` forgets the
        old folder's base, so the next sync treats every path as first seen), and
        :class:`SyncError` when another sync or watch holds the lock.
        """
        self.prepare()
        if self.client:
            self._other_machine()
            self._adopt_unnamed()
        row = self.conn.execute("SELECT root, machine FROM sync_root WHERE client = ?", (self.client,)).fetchone()
        mine = machine_key() if machine_key_stable() else ""
        if row and row["root"] != str(self.root):
            if not rebind:
                raise BadInput(f"this brain is synced with {row['root']}, not {self.root}; pass --rebind to switch folders (the old folder is left as it is)")
            with self.brain.transaction():  # (the old base forgotten: this machine takes the client)
                self.conn.execute("DELETE FROM sync_state WHERE client = ?", (self.client,))
                self.conn.execute("UPDATE sync_root SET root = ?, cursor = (SELECT COALESCE(MAX(seq), 0) FROM change_log), bound_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), "
                                  "machine = ? WHERE client = ?", (str(self.root), mine, self.client))
        elif not row:
            with self.brain.transaction():  # rows left without their binding are no base (a round's after a forget): a first sync, as import reads it
                self.conn.execute("DELETE FROM sync_state WHERE client = ?", (self.client,))
                bind_client(self.conn, self.client, str(self.root), mine)
        else:
            self._claim_machine(row["machine"], mine)

    def _claim_machine(self, stored: str, mine: str) -> None:
        """Check the machine recorded with this folder's client (``sync_root.machine``, ``stored``)
        against this machine's key ``mine`` ('' when not stable: nothing checked): a client with
        none (bound before SQLite v80 / Postgres v88) is adopted; another machine's raises
        :class:`SyncError` (exit 1), saying what to do. Two machines under one client id (one host
        name and folder path: containers or VMs from one image; or a SQLite brain file shared or
        copied between machines) would share one base and one change-log cursor and undo each
        other's edits (trial 69); :meth:`_other_machine` sees only the other's running watch."""
        if not mine or stored == mine:
            return
        if not stored:
            with self.brain.transaction():
                self.conn.execute("UPDATE sync_root SET machine = ? WHERE client = ? AND machine = ''", (mine, self.client))
                stored = self.conn.execute("SELECT machine FROM sync_root WHERE client = ?", (self.client,)).fetchone()[0]
            if stored in ("", mine):
                return
        keys = f"its machine key is {stored}, this machine's {mine}"
        whose = (f"under the same sync client id, {self.client} (the same host name and folder path; {keys})" if self.client
                 else f"({keys}: the brain file is shared with it, or was copied here from it)")
        fix = ("If both machines are to sync this brain, give this one a host name of its own or sync from another folder path; "
               if self.client else "If both machines are to sync, give each a brain of its own (or share one Postgres brain); ")
        raise SyncError(f"{self.root} is synced with {self.brain.path} by another machine {whose}: "
                        f"two machines sharing one sync client share one sync state and undo each other's edits. Nothing was changed. {fix}"
                        f"if that machine no longer syncs it (or is this one, its /etc/machine-id changed), run `gbrain sync-forget {cmd_arg(str(self.root))}` "
                        f"and sync again: the first sync keeps every file (one that differs from its page becomes a conflict copy)")

    def listen_name(self) -> str:
        """The ``application_name`` of this process's LISTEN connection (``watch``):
        ``gbrain-listen:<pid>:<client tag>:<machine key>`` (:func:`client_tag`, :func:`machine_key`),
        which :meth:`_other_machine` of another process reads."""
        return f"gbrain-listen:{os.getpid()}:{client_tag(self.client)}:{machine_key()}"

    def _other_machine(self) -> None:
        """Raise :class:`SyncError` when a watch of ANOTHER machine syncs a folder under this
        folder's client id (one host name and one folder path: two containers or VMs made from
        one image). They would share one base and one change-log cursor: each would apply the
        rows meant for the other, neither folder would get the other's edits, and a restart of
        one would import its older files over the other's edits (trial 69). Seen through the
        other watch's LISTEN connection (:meth:`listen_name`, in ``pg_stat_activity``); a
        process of this machine is the sync lock's to refuse. Not seen here: another machine's
        one-shot ``sync``, or any of its processes while none of its watches runs (the machine
        recorded with the client refuses those: :meth:`_claim_machine`), and two machines with one
        ``/etc/machine-id`` (a container image that ships one)."""
        rows = self.conn.execute("SELECT application_name FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE ?",
                                 (f"gbrain-listen:%:{client_tag(self.client)}:%",)).fetchall()
        mine = machine_key()
        if any(str(r[0]).rsplit(":", 1)[-1] != mine for r in rows):
            raise SyncError(f"another machine's `gbrain watch` is syncing its folder {self.root} with {self.brain.path} under the same sync "
                            f"client id, {self.client} (the same host name and folder path); two machines sharing one client share one sync "
                            f"state and undo each other's edits: give this machine a host name of its own, or sync from another folder path")

    def prepare(self) -> None:
        """What :meth:`bind` does without the database: check the root, take the sync lock (or
        raise :class:`SyncError`), load the ignore rules, the git state and the database's own
        files inside the root. ``watch`` calls it alone when the brain cannot be written yet (a
        full disk) and binds later; calling it again is harmless."""
        self.check_root()
        self._lock()
        self.reload_ignore()
        self.git_base = gitstate.load(self._git_key())
        db_real = os.path.realpath(str(self.brain.path))
        root_real = os.path.realpath(str(self.root))
        # only pay for realpath checks when the database sits inside the folder
        self.excl = db_excludes(self.brain.path) if db_real.startswith(root_real + os.sep) else set()
        self.excl_copies = db_rels(self.root, self.excl)
        if self.excl and not self._said_synced_db:
            self._said_synced_db = True
            tool = synced_by(self.root)
            if tool:  # trial 52: the tool copied brain.db and its -wal between machines mid-write
                self._warn(f"the brain database {self.brain.path} is inside {self.root}, which {tool[0]} syncs ({tool[1]}): it copies the "
                           f"database and its -wal between machines while they are written, replacing a brain in use (watch stops) and making "
                           f"conflict copies of it; keep the database outside the synced folder (`--db` a path outside it) and let each "
                           f"machine's watch import the notes")

    def _adopt_unnamed(self) -> None:
        """A Postgres brain bound before clients existed (or copied from SQLite) has one unnamed
        client (``''``); the folder it names becomes this client, keeping its base."""
        row = self.conn.execute("SELECT root FROM sync_root WHERE client = ''").fetchone()
        if row and row["root"] == str(self.root) and not self.conn.execute("SELECT 1 FROM sync_root WHERE client = ?", (self.client,)).fetchone():
            with self.brain.transaction():
                self.conn.execute("UPDATE sync_state SET client = ? WHERE client = ''", (self.client,))
                self.conn.execute("UPDATE sync_root SET client = ? WHERE client = ''", (self.client,))

    def _brain_name(self) -> str:
        """The brain's identity for files kept outside it: the database's URL (Postgres, with
        this client) or real path."""
        if self.client:
            return getattr(self.brain.path, "url", str(self.brain.path)) + "\0" + self.client
        return os.path.realpath(str(self.brain.path))

    def _git_key(self) -> str:
        return gitstate.key(self._brain_name(), self.client, self.root)

    def _git_settled(self, fp: dict | None) -> None:
        """A whole-tree round completed with git in state ``fp`` (read before its scan): the
        next rounds judge deletions against it (:meth:`_by_git`)."""
        if fp != self.git_base:
            self.git_base = fp
            gitstate.save(self._git_key(), fp)
            self._see_reflog()

    def lock_paths(self) -> list[str]:
        """The lock files of this brain's sync, named after the database's real path: in
        ``storage/db.py: LOCK_TEMP`` (/tmp), never in ``$TMPDIR`` alone (a `watch` a service or
        an agent started and a `sync` from a shell often have different ones, and did not see
        each other), and, for a release, in ``$TMPDIR`` too, where gbrain before 2026-12 took it.
        (Never a descriptor on the database itself: closing one would drop SQLite's own POSIX
        locks held by this process.)"""
        import hashlib
        import tempfile

        name = self._brain_name()  # Postgres: one lock per database and folder (other folders sync at will)
        key = hashlib.sha256(name.encode("utf-8", "surrogateescape")).hexdigest()[:16]
        base = f"gbrain-sync-{key}.lock"
        return [os.path.join(LOCK_TEMP, base), os.path.join(tempfile.gettempdir(), base)]

    def lock_path(self) -> str:
        """The first of :meth:`lock_paths`."""
        return self.lock_paths()[0]

    def _lock(self) -> None:
        """Take the sync locks (:meth:`lock_paths`, exclusive; one a folder cannot hold is left
        out) or raise :class:`SyncError`. A lock counts only on the file now at the path:
        :meth:`close` removes the file, so a lock taken on a file opened just before that is let
        go and the path opened again."""
        if self._lock_fd is not None:
            return
        held: list[tuple[int, str]] = []
        paths = self.lock_paths()
        failed: list[str] = []
        try:
            for path in paths:
                fd, busy = _take_sync_lock(path, held, failed)
                if busy:
                    raise SyncError(self._busy_message(busy[0]))
                if fd is not None:
                    held.append((fd, path))
        except BaseException:
            _let_go_sync_locks(held)  # taken alone: removed as close() does
            raise
        if not held:
            why = f" ({'; '.join(failed)})" if failed else ""
            raise SyncError(f"could not take the sync lock {paths[0]}{why}; set TMPDIR to a folder on a local file system that can lock files")
        self._locks = held
        self._lock_fd, self._lock_name = held[0]
        for fd, _ in held:
            try:  # who holds it, for the message another sync or watch gives (best effort)
                os.ftruncate(fd, 0)
                os.pwrite(fd, json.dumps({"pid": os.getpid(), "surface": self.surface, "root": str(self.root)}).encode("utf-8", "surrogateescape"), 0)
            except (OSError, ValueError):
                pass

    def _busy_message(self, holder: dict | None) -> str:
        """The one-line error when another process holds this brain's sync lock: which command
        (``gbrain sync``/``gbrain watch``), its process id and the folder it syncs, when the
        holder wrote them (:meth:`_lock`); on SQLite one folder syncs at a time, on Postgres each
        folder has a lock of its own."""
        what = "`gbrain sync` or `gbrain watch`"
        if holder and holder.get("pid"):
            what = f"`gbrain {holder.get('surface') or 'sync'}` (pid {holder['pid']})"
            if holder.get("root") and holder["root"] != str(self.root):
                what += f" of {holder['root']}"
        scope = f"{self.root} with {self.brain.path}" if self.client else f"{self.brain.path} (a SQLite brain syncs with one folder at a time)"
        return f"another {what} is already syncing {scope}; stop it first (a running watch keeps both sides equal already)"

    def close(self) -> None:
        """Release the sync lock and remove its file (still holding the lock, so a process that
        opened the file meanwhile sees it is no longer at the path: :meth:`_lock`)."""
        if self._lock_fd is not None:
            _let_go_sync_locks(self._locks)
            self._lock_fd, self._locks = None, []

    def _excl_ids(self) -> set[tuple[int, int]]:
        """(device, inode) of the database files inside the root."""
        return excluded_ids(self.excl)

    def reload_ignore(self) -> None:
        """Read ``.gbrainignore`` again (``self.spec``, and ``self.ignored``, its fast matcher)."""
        self.spec = load_ignore(self.root)
        self.ignored = ignore_matcher(self.spec)

    def worktrees_moved(self) -> bool:
        """Whether a linked git worktree was added, removed or deleted since the rules were read
        (the stamp of ``<common>/worktrees`` and its entries: :func:`gitstate.worktrees_inside`);
        then the rules are read again. Watch asks before each batch: git makes a worktree's
        admin folder and ``.git`` file before it checks the files out, so they are left out from
        their first event."""
        if self.spec is None:
            return False
        now = gitstate.worktrees_inside(self.root)[1]
        if now == getattr(self.spec, "worktrees_stamp", None):
            return False
        self.reload_ignore()
        return True

    def touch(self) -> None:
        """Record that this client is alive (``sync_root.synced_at`` = now) when the last record is
        older than :data:`TOUCH_S`, so a folder that is synced but sees no change is not expired
        (``sync_client_expire_days``). An expired client is left to its next full sync."""
        r = self.conn.execute("SELECT COALESCE(synced_at, bound_at), cursor FROM sync_root WHERE client = ?", (self.client,)).fetchone()
        if r is None or r[1] < 0 or r[0] >= time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - TOUCH_S)):
            return
        with self.brain.transaction():
            self.conn.execute("UPDATE sync_root SET synced_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now') WHERE client = ? AND cursor >= 0", (self.client,))

    @property
    def cursor(self) -> int:
        """The last change-log row applied to this folder (-1: expired, see :meth:`touch`)."""
        r = self.conn.execute("SELECT cursor FROM sync_root WHERE client = ?", (self.client,)).fetchone()
        return r[0] if r else 0

    # ---- reading the disk ------------------------------------------------------

    def _abs(self, rel: str) -> str:
        return str(safe_join(self.root, rel))

    def excluded(self, rel: str) -> str | None:
        """Why ``rel`` is not part of the brain (temp file, VCS folder, ignored), or None."""
        if undecodable(rel):
            return NOT_UTF8
        parts = rel.split("/")
        if any(p in VCS_DIRS for p in parts):  # a `.git` file too (a linked worktree's pointer)
            return "version control folder"
        if is_temp_name(parts[-1]):
            return "editor temp file"
        if self.excl_copies and db_copy_of(rel, self.excl_copies):
            return DB_COPY
        if self.spec is not None:
            trees = getattr(self.spec, "worktrees", ())
            if self.spec.match_file(rel):
                return ignore_reason(rel, trees)
            d = next(("/".join(parts[:i]) + "/" for i in range(1, len(parts)) if self.spec.match_file("/".join(parts[:i]) + "/")), None)
            if d:
                return ignore_reason(d, trees)
        return None

    def _listdir(self, reldir: str) -> set[str] | None:
        if reldir not in self._dir_cache:
            try:
                self._dir_cache[reldir] = set(os.listdir(os.path.join(str(self.root), *reldir.split("/")) if reldir else str(self.root)))
            except FileNotFoundError:
                self._dir_cache[reldir] = set()
            except NotADirectoryError:
                self._dir_cache[reldir] = set()
            except OSError:
                self._dir_cache[reldir] = None  # unreadable
        return self._dir_cache[reldir]

    def stat_path(self, rel: str) -> tuple[DiskFile | None, str | None]:
        """``(file, None)`` when ``rel`` exists as a regular file with this exact spelling,
        ``(None, None)`` when it does not exist, ``(None, reason)`` when it cannot be known
        (unreadable folder, symlink, not a regular file): such a path is left alone."""
        d, name = posixpath.split(rel)
        # every folder on the way must be a real folder (not a symlink) we can list
        parts = d.split("/") if d else []
        for i in range(len(parts)):
            parent = self._listdir("/".join(parts[:i]))
            if parent is None:
                return None, "unreadable folder"
            if parts[i] not in parent:
                return None, None
            full = os.path.join(str(self.root), *parts[: i + 1])
            try:
                if stat.S_ISLNK(os.lstat(full).st_mode):
                    return None, IN_LINKED_FOLDER
            except FileNotFoundError:
                return None, None
            except OSError as e:
                return None, f"cannot stat folder: {e.strerror}"
        names = self._listdir(d)
        if names is None:
            return None, "unreadable folder"
        if name not in names:
            return None, None
        full = self._abs(rel)
        try:
            st = os.lstat(full)
        except FileNotFoundError:
            return None, None
        except OSError as e:
            return None, f"cannot stat: {e.strerror}"
        if stat.S_ISLNK(st.st_mode):
            return None, NOT_FOLLOWED
        if not stat.S_ISREG(st.st_mode):
            return None, NOT_REGULAR
        if self.excl and (st.st_dev, st.st_ino) in self._excl_ids():
            return None, "the brain database"
        if self.excl_copies and db_copy_of(rel, self.excl_copies):
            return None, DB_COPY
        return DiskFile(rel, st.st_size, change_stamp(st), fid=file_id(st)), None

    def walk(self, reldir: str) -> tuple[list[DiskFile], list[tuple[str, str]], list[str]]:
        """Files under folder ``reldir`` (:func:`~gbrain.sync.scan.walk_tree`'s rules; ignored
        paths left out unreported): ``(files, skipped (path, reason), unreadable folder
        prefixes)``."""
        if undecodable(reldir):
            return [], [(escaped(reldir), NOT_UTF8)], []
        top = os.path.join(str(self.root), *reldir.split("/")) if reldir else str(self.root)
        try:
            if stat.S_ISLNK(os.lstat(top).st_mode):
                return [], [(reldir, NOT_FOLLOWED)], []
            w = walk_tree(str(self.root), reldir + "/" if reldir else "", self.ignored, self._excl_ids(), excl_copies=self.excl_copies, report_ignored=False, ordered=False)
        except FileNotFoundError:
            return [], [], []
        except OSError:
            return [], [], [reldir + "/"]
        return [DiskFile(rel, size, stamp) for rel, size, stamp in w.files], w.skipped, [d for d, _ in w.unreadable]

    def scan(self) -> Scan:
        """The whole tree under :func:`~gbrain.sync.scan.walk_tree`'s rules (the walk of
        :func:`~gbrain.sync.scan.scan_tree` too), so a no-change sync costs little more than
        stat-ing every file.

        The files come as ``Scan.stats``, a list of ``(path, size, change stamp)`` tuples
        (:func:`~gbrain.sync.scan.change_stamp`), which :meth:`sync` compares with ``sync_state``
        as sets; ``Scan.files`` stays empty. gbrain's own temp files seen are kept in
        ``self.leftover_temps``. Raises ``FileNotFoundError`` / ``PermissionError`` for an
        unusable root."""
        w = walk_tree(str(self.root), "", self.ignored, self._excl_ids(), excl_copies=self.excl_copies, ordered=False)
        self.leftover_temps = w.temps
        return Scan(root=self.root, stats=w.files, skipped=w.reported())

    def hand_scan(self, scan: Scan, git_fp: dict | None) -> None:
        """Offer ``scan`` (a :meth:`scan` just made, ``git_fp`` the :func:`gitstate.fingerprint`
        read before it) to the next :meth:`sync`, by a caller that wrote nothing into the folder since
        (:meth:`chunk_prepass`, when it ran no chunk or only chunks that brought files into the
        brain: the files they read are recorded in ``sync_state`` as the scan saw them, or as
        changed since, and read again): the sync takes it instead
        of walking the tree again when nothing of what its own scan would depend on differs: the
        same ignore rules after its :meth:`reload_ignore` (``spec.lines`` and worktrees) and no
        failed write's save of this process to put back first (``exporter.left_saves``). A file
        changed since is one a change after the sync's own scan would have been: the watch
        observer, started before, has its event (``gbrain sync``: the next sync takes it). Taken once (:meth:`_sync` clears :attr:`prescan`)."""
        self.prescan = (scan, git_fp, self.leftover_temps, self._rules_key())

    def _rules_key(self) -> tuple | None:
        spec = self.spec
        lines = getattr(spec, "lines", None)
        return None if lines is None else (lines, getattr(spec, "worktrees", None))

    def _usable_prescan(self, pre: tuple | None) -> tuple | None:
        """``pre`` (a :meth:`hand_scan` offer) when :meth:`_sync`, its rules just read again, may use it."""
        if pre is None or pre[3] is None or pre[3] != self._rules_key():
            return None
        from . import exporter

        if exporter.left_saves:  # (_retry_left_saves writes into the tree before the scan)
            return None
        return pre

    # ---- big rounds in chunks ---------------------------------------------------------

    def on_disk(self, rels: Iterable[str]) -> dict[str, tuple[os.stat_result, tuple | None]]:
        """``rel → (lstat now, its sync_state row or None)`` for the files of ``rels`` on disk (one
        lstat each, the rows read together); {} when the brain cannot be read (the round finds out
        what is wrong with it)."""
        import sqlite3

        stats = {}
        root = str(self.root)
        for rel in rels:
            try:
                stats[rel] = os.lstat(os.path.join(root, *rel.split("/")))
            except OSError:
                continue
        if not stats:
            return {}
        try:
            state = self._state(stats)
        except (sqlite3.Error, GBrainError):
            return {}
        return {rel: (st, state.get(rel)) for rel, st in stats.items()}

    def move_chunks(self, paths: set[str], dirs: set[str], n: int, hold: Iterable[str] = ()) -> tuple[list[set[str]], set[str], dict]:
        """A round's exact renames cut into transactions of their own, run before the rest of the
        round: ``(chunks, the other paths, seen)``, ``seen`` the new path → (old path, its (size,
        change stamp, file id) now) that :meth:`still_renamed` checks before each chunk. An exact
        rename is a path gone from disk whose ``sync_state`` row names the file (device + inode)
        now at a new path of the round, with the same size and bytes (its sha256 the row's
        ``disk_hash``): the first rank of the move pairing (inode and identical bytes), so no
        other path of the round could take either end, and carried out apart it is the move one
        round makes (the page row moves, its id, history and links kept, the links resolving to
        it relinked in its transaction). Each pair stays whole in one chunk (``n`` paths, 0: no
        chunks). Left with the rest: ends in ``hold`` (watch: held back or waiting to meet), a
        page with a ``.raw`` sidecar or conflict copy in the round (they follow its move from
        their stored bytes), non-notes, a new path the brain leaves out (ignored, under a
        symlinked folder: its old name is a deletion, the mass-deletion guard's). Cut only when
        the round's paths that are not plain in-place edits exceed a chunk (a folder renamed: a
        folder event and every note's two ends); ``([], paths, {})`` otherwise. Deletions and new
        files that pair with nothing stay in the rest: the mass-deletion check
        (:class:`MassDeleteRefused`) weighs a folder's deletions together; and when those
        deletions (with the :attr:`held` ones) could reach :data:`MASS_TRASH` the round stays one
        (renames committed first would change the folder counts it weighs)."""
        import sqlite3

        if n <= 0 or (len(paths) <= n and not dirs) or any(not d.strip("/") for d in dirs):
            return [], paths, {}
        # a folder event's round reconciles every path known under it and every file there now
        # (the engine walks it): those are the round's too (the observer's events of a renamed
        # folder's notes may come in later batches than the folder's own)
        cand = set(paths)
        try:
            for d in dirs:
                d = d.strip("/")
                if undecodable(d):
                    continue
                cand |= self._known_under(d + "/")
                cand.update(f.path for f in self.walk(d)[0])
        except (sqlite3.Error, GBrainError):
            return [], paths, {}
        found = self.on_disk(cand)
        if not found:
            return [], paths, {}
        fixed = sum(1 for st, row in found.values() if row is not None and stat.S_ISREG(st.st_mode) and (row[4] is None or row[4] == file_id(st)))
        if len(cand) <= n or len(cand) - fixed <= n:
            return [], paths, {}
        hold = set(hold)
        followers = {page_slug_for_sidecar(p) for p in cand} | {nfc(m[0][:-3]) for p in cand if (m := copy_mark(p)) and is_markdown(m[0])}
        notes = {p for p in cand if is_markdown(p) and copy_mark(p) is None and p not in hold and nfc(p[:-3]) not in followers}
        new = {rel: st for rel, (st, row) in found.items() if row is None and rel in notes and stat.S_ISREG(st.st_mode)}
        gone = notes - set(found)
        if not new or not gone:
            return [], paths, {}
        try:
            state = self._state(gone)
        except (sqlite3.Error, GBrainError):
            return [], paths, {}
        by_id: dict[int, list[str]] = {}
        for g, row in state.items():
            if row[4] is not None:
                by_id.setdefault(row[4], []).append(g)
        pairs, seen = [], {}
        root = str(self.root)
        for rel in sorted(new):
            st = new[rel]
            olds = by_id.get(file_id(st))
            if not olds or len(olds) != 1 or state[olds[0]][0] != st.st_size:
                continue
            if self.excluded(rel) or self.stat_path(rel)[1]:
                continue  # (ignored, under a symlinked folder…: no move target; the old name's trashing is the rest's, under the mass-deletion guard)
            try:
                same = verify.sha256_file(os.path.join(root, *rel.split("/"))) == state[olds[0]][2]
            except OSError:
                continue
            if same:
                pairs.append((olds[0], rel))
                seen[rel] = (olds[0], _file_print(st))
        if not pairs:
            return [], paths, {}
        # the mass-deletion guard weighs a round's deletions against each folder's notes before
        # the round: renames committed first would count the notes moved into a folder emptied
        # in the same round as its own (the deletions then under half of it, trashed unasked),
        # and those moved out of it no longer (a deletion of a few refused). Only a round whose
        # deletions (and those held back) could reach MASS_TRASH is judged so: it stays one.
        paired = {old for old, _ in pairs}
        try:
            loose = self._state({p for p in cand if is_markdown(p) and p not in found and p not in paired})
        except (sqlite3.Error, GBrainError):
            return [], paths, {}
        if len(loose) + sum(1 for p in self.held if is_markdown(p)) >= MASS_TRASH:
            return [], paths, {}
        per = max(1, n // 2)
        chunks = [{p for pair in pairs[i:i + per] for p in pair} for i in range(0, len(pairs), per)]
        return chunks, paths - {p for pair in pairs for p in pair}, seen

    def still_renamed(self, part: set[str], seen: dict) -> tuple[set[str], set[str]]:
        """The pairs of a rename chunk ``part`` (:meth:`move_chunks`, its ``seen``) still as cut,
        and the others' paths: ``(keep, changed)``. Still as cut: the old path still gone, the
        new one the file stat'ed then (size, change stamp, file id). A pair that changed since (a
        save into the renamed note, the old name written again) is left to the round's rest,
        which decides it with everything else."""
        root = str(self.root)
        keep, changed = set(), set()
        for new, (old, want) in seen.items():
            if new not in part:
                continue
            try:
                st = os.lstat(os.path.join(root, *new.split("/")))
                ok = want == _file_print(st) and not os.path.lexists(os.path.join(root, *old.split("/")))
            except OSError:
                ok = False
            (keep if ok else changed).update((old, new))
        return keep, changed

    def plain_chunks(self, paths: set[str], dirs: set[str], n: int, maybe: Iterable[str] = (), together: Iterable[str] = ()) -> tuple[list[set[str]], dict]:
        """The round over ``paths`` and ``dirs`` cut into transactions: ``([first, *rest], seen)``,
        each a set of paths, ``seen`` each later chunk's path → its (size, change stamp, file id)
        now (:meth:`still_plain`). Only plain in-place edits go in ``rest``, ``n`` paths each: a
        file on disk (a regular file) with a ``sync_state`` row, the same file (inode) as
        recorded, under no folder of ``dirs``, not in ``maybe`` (deletions watch holds back) or
        ``together`` (paths waiting to meet another), no page's ``.raw`` sidecar or conflict copy
        (they follow a page the round moves only holding their stored bytes: imported apart,
        after the move, they stayed behind, the raw data cut from its page). Such a path is no
        end of any move the round could pair, so reconciling it apart changes no outcome. A file
        replaced by another inode (an editor's temp + rename save) is plain only in a round with
        no other path (a new or gone file, a folder) to pair with: ``paths`` is the round less its
        exact renames (:meth:`move_chunks`), which run before. So is a new file that no path
        could pair with (:meth:`_lone_new`: a copy of many notes into the folder was one
        transaction a flaky connection cut again and again, trial 69), and a deletion that no path
        could pair with, in a round the mass-deletion guard lets through whole (:meth:`_lone_gone`:
        150 deletions beside 40 edits were one transaction too). Everything else is in ``first``,
        with the first plain paths. ``([paths], {})`` for a round that is small, or the whole
        tree's folder (``''``), or ``n`` <= 0."""
        if n <= 0 or len(paths) <= n:
            return [paths], {}
        maybe, together = set(maybe), set(together)
        prefixes = tuple(d.strip("/") + "/" for d in dirs if d.strip("/"))
        if any(not d.strip("/") for d in dirs):
            return [paths], {}  # the whole tree: one round
        same, other = [], []
        seen = {}
        recorded, now = {}, {}  # file id → the path sync_state records it at; each replaced file's id now
        fresh: dict[str, os.stat_result] = {}  # new files that may pair with nothing (judged below)
        found = self.on_disk(paths)
        for rel, (st, row) in found.items():
            if row is not None and row[4] is not None:
                recorded[row[4]] = rel
            if row is None and stat.S_ISREG(st.st_mode) and rel not in maybe and rel not in together and not (prefixes and rel.startswith(prefixes)) \
                    and page_slug_for_sidecar(rel) is None and copy_mark(rel) is None:
                fresh[rel] = st
            if row is None or not stat.S_ISREG(st.st_mode) or rel in maybe or rel in together or (prefixes and rel.startswith(prefixes)):
                continue
            if page_slug_for_sidecar(rel) is not None or copy_mark(rel) is not None:
                continue  # a page's sidecar or conflict copy: follows its page's move, from its stored bytes (_move_sidecar, _move_copies)
            fid = row[4]
            (same if fid is None or fid == file_id(st) else other).append(rel)
            if fid is not None and fid != file_id(st):
                now[rel] = file_id(st)
            seen[rel] = _file_print(st)
        plain = set(same)
        if len(same) + len(other) == len(paths) and not dirs and not (maybe - paths):
            # nothing in the round a replaced file could pair with, but the replaced files whose
            # ids close a cycle (each holds the file another recorded, the last the first's):
            # notes that swapped names stay together (Plan.swaps). (Not a chain: a temp + rename
            # save often gets the inode the save before it freed.)
            plain.update(rel for rel in other if not _in_cycle(rel, now, recorded))
        # a note with a conflict copy in the round (one a round that died left unrecorded) stays
        # with it in the first chunk: its round takes that copy rather than writing a second
        copied = {nfc(m[0]) for p in paths if p not in found or found[p][1] is None if (m := copy_mark(p))}
        plain -= {rel for rel in plain if nfc(rel) in copied}
        for rel in self._lone_new(fresh, paths, found, dirs, maybe, recorded):
            plain.add(rel)
            seen[rel] = _file_print(fresh[rel])
        for rel in self._lone_gone(paths, found, dirs, maybe | together):
            plain.add(rel)
            seen[rel] = None  # (still gone when its chunk runs: still_plain)
        if len(plain) <= n:
            return [paths], {}
        order = sorted(plain)
        first = (paths - plain) | set(order[:n])
        rest = [set(order[i:i + n]) for i in range(n, len(order), n)]
        return [first, *rest], {rel: seen[rel] for rel in order[n:]}

    def _lone_new(self, fresh: dict[str, os.stat_result], paths: set[str], found: dict, dirs: set[str], maybe: set[str],
                  recorded: dict[int, str]) -> set[str]:
        """The new files of ``fresh`` (path → lstat; no ``sync_state`` row, a regular file, no
        page's sidecar or conflict copy) that no path could pair with, so a chunk of their own
        gives the outcome the whole round gives (trial 69: 173 notes copied into a vault were
        one transaction, cut again and again by a flaky connection, none ever committed): only
        in a round with nothing to pair with (no path of ``paths`` gone from disk or no regular
        file, no folder event ``dirs``, no deletion held back, ``maybe``, :attr:`held`, no page
        this engine trashed lately, :attr:`recent_trash`: a revived move's source), and each
        not holding a file ``sync_state`` records (``recorded``: a replaced move's), no other
        path of the round taking its name (the same slug told apart by case or accents: decided
        together), no page's sidecar or conflict copy of the round following it, and its name
        (path, or a page's slug) never in the history (a late save at a renamed page's old name,
        a name a page left: :meth:`_follow_late_saves`, revivals). Empty on any doubt."""
        import sqlite3

        if not fresh or dirs or maybe or self.held or self.recent_trash or len(found) != len(paths):
            return set()
        if any(not stat.S_ISREG(st.st_mode) for st, _ in found.values()):
            return set()
        keys: dict[str, int] = {}
        for p in paths:
            k = slug_key(slug_for_path(p)) if is_markdown(p) else nfc(p).casefold()
            keys[k] = keys.get(k, 0) + 1
        followers = {page_slug_for_sidecar(p) for p in paths} | {nfc(m[0][:-3]) for p in paths if (m := copy_mark(p)) and is_markdown(m[0])}
        lone = {p for p, st in fresh.items() if file_id(st) not in recorded and nfc(p[:-3]) not in followers
                and slug_for_path(p) not in followers
                and keys[slug_key(slug_for_path(p)) if is_markdown(p) else nfc(p).casefold()] == 1}
        if not lone:
            return set()
        try:
            known: set[str] = set()
            order = sorted(lone)
            for i in range(0, len(order), 400):
                part = order[i:i + 400]
                marks = ",".join("?" * len(part))
                known.update(r[0] for r in self.conn.execute(f"SELECT DISTINCT path FROM history WHERE path IN ({marks})", part))
                slugs = {slug_for_path(p): p for p in part if is_markdown(p)}
                if slugs:
                    marks = ",".join("?" * len(slugs))
                    known.update(slugs[r[0]] for r in self.conn.execute(
                        f"SELECT DISTINCT name FROM history WHERE kind = 'page' AND name IN ({marks})", list(slugs)))
        except (sqlite3.Error, GBrainError):
            return set()
        return lone - known

    def _lone_gone(self, paths: set[str], found: dict, dirs: set[str], hold: set[str]) -> set[str]:
        """The paths of ``paths`` gone from disk (``found``: :meth:`on_disk` of ``paths``) that no
        path could pair with, so a chunk of their own gives the outcome the whole round gives
        (150 notes deleted beside 40 edits were one transaction that a connection cut every few
        seconds rolled back every time): only in a round with nothing to pair a deletion with (no
        new file on disk, no file holding a gone path's recorded file id, no folder event
        ``dirs``, nothing in ``hold`` (deletions held back, paths waiting to meet), no deletion
        :attr:`held` back, no page this engine created lately, :attr:`recent_new`: an adopted
        move's end), and a round the mass-deletion guard would let through whole: its deletions
        under :data:`MASS_TRASH`, or :meth:`_vanished` finding no folder over them (nor any
        :attr:`held`), or ``confirm_delete``. A chunk's deletions are then a part of those, each
        folder's count lower and its synced notes fewer by the chunks before: the guard, run by
        a chunk of :data:`MASS_TRASH` or more, lets it through too (a share under
        :data:`MASS_SHARE` stays under it when equal numbers leave both sides). Each a synced
        path (a ``sync_state`` row), no page's sidecar or conflict copy, no page one of the
        round's follows. Empty on any doubt."""
        import sqlite3

        if dirs or hold or self.held or len(found) == len(paths):
            return set()
        if any(row is None or not stat.S_ISREG(st.st_mode) for st, row in found.values()):
            return set()  # a new file (a move's end), or no regular file
        try:
            if self._recent_new():
                return set()
            gone = [p for p in paths if p not in found]
            state = self._state(gone)
        except (sqlite3.Error, GBrainError):
            return set()
        ids = {file_id(st) for st, _ in found.values()}
        if any(row[4] is not None and row[4] in ids for row in state.values()):
            return set()  # a file moved over a synced one: a move the round may pair
        if not self.confirm_delete and len(state) >= MASS_TRASH:
            try:
                if self._vanished(sorted(state), None):
                    return set()  # the guard weighs them together (refused, or git's doing: one round)
            except (sqlite3.Error, GBrainError, OSError):
                return set()
        followers = {page_slug_for_sidecar(p) for p in paths} | {nfc(m[0][:-3]) for p in paths if (m := copy_mark(p)) and is_markdown(m[0])}
        return {p for p in state if page_slug_for_sidecar(p) is None and copy_mark(p) is None
                and nfc(p[:-3]) not in followers and slug_for_path(p) not in followers}

    def still_plain(self, part: set[str], seen: dict) -> tuple[set[str], dict[str, os.stat_result | None]]:
        """The paths of a later chunk ``part`` (:meth:`plain_chunks`, its ``seen``) whose file is
        the one stat'ed then (size, change stamp, file id), a plain in-place edit still, and the
        others: ``(keep, {path: its lstat now, None when gone})``. Those changed on disk since the
        round was cut (a save begun meanwhile, maybe still being written; a note renamed or
        deleted) leave the chunk: read now, a save's first piece would be taken for the note and
        a renamed note trashed. A deletion (``seen`` None: :meth:`_lone_gone`) stays while its
        path is still gone. An unreadable path stays (the round says so)."""
        root = str(self.root)
        keep, moved = set(), {}
        for rel in part:
            try:
                st = os.lstat(os.path.join(root, *rel.split("/")))
            except FileNotFoundError:
                st = None
            except OSError:
                keep.add(rel)
                continue
            if st is None and rel in seen and seen[rel] is None:
                keep.add(rel)  # a deletion still gone (_lone_gone)
            elif st is not None and seen.get(rel) == _file_print(st):
                keep.add(rel)
            else:
                moved[rel] = st
        return keep, moved

    def _tree_changes(self) -> tuple[Scan, dict, dict, set[str]] | None:
        """One walk of the tree against ``sync_state``: ``(scan, git fingerprint read before it,
        path → (size, change stamp) on disk, the changed paths)``: new files, files whose stat
        differs from the recorded one, and recorded paths gone (none under a folder the scan
        left alone: unreadable, symlinked, ignored, whose rows a sync leaves as they are; nor a
        note iCloud Drive evicted, :func:`~gbrain.sync.scan.evicted`). None
        when the brain or the folder cannot be read (the full sync says what is wrong)."""
        import sqlite3

        try:
            git_fp = gitstate.fingerprint(self.root)  # (before the scan, as the full sync reads it: handed with it)
            state = self._state(None)
            sc = self.scan()
        except (sqlite3.Error, GBrainError, OSError):
            return None
        on_disk = {p: (size, stamp) for p, size, stamp in (sc.stats or ())}
        paths = {p for p, (size, stamp) in on_disk.items() if (row := state.get(p)) is None or row[0] != size or (row[1] and row[1] != stamp)}
        skipped = {p.rstrip("/") for p, _ in (sc.skipped or ())}
        under = tuple(p + "/" for p in skipped)
        paths |= {p for p in state if p not in on_disk and p not in skipped and not p.startswith(under) and not self.excluded(p)
                  and not evicted(self.root, p)}  # (iCloud's placeholder in its place: no deletion, left alone; trial 68)
        return sc, git_fp, state, paths

    def files_left(self, paths: Iterable[str] = ()) -> int | None:
        """How many files the next sync will take: one stat of each file of the tree against
        ``sync_state`` (new, changed, gone; a rename, its new name holding a gone row's inode,
        once; a row the scan leaves alone, under an unreadable, symlinked or ignored folder,
        ignored itself or evicted by iCloud Drive, none). The brain or the folder unreadable: ``len(paths)`` (the paths
        the caller knows of), or None when it names none (uncountable, never 0)."""
        found = self._tree_changes()
        if found is None:
            known = set(paths)
            return len(known) if known else None
        sc, _, state, changed = found
        left = len(changed)
        on_disk = {t[0] for t in (sc.stats or ())}
        gone_ids = {state[p][4] for p in changed if p not in on_disk and state[p][4] is not None}
        if gone_ids:  # a rename is one file: its new name holds the inode a gone row names
            for p in changed:
                if p in on_disk and p not in state:
                    try:
                        left -= file_id(os.lstat(os.path.join(str(self.root), *p.split("/")))) in gone_ids
                    except OSError:
                        continue
        return left

    def chunk_prepass(self, n: int, run: Callable[[set[str]], bool], stopping: Callable[[], bool] = lambda: False, *,
                      whole_on_mass: bool = False, hold: Iterable[str] = ()) -> int:
        """The pre-pass of a whole-tree sync (``gbrain sync``: :meth:`sync` with :attr:`chunk`;
        watch's first sync and rescans): the tree's exact renames (:meth:`move_chunks`) and plain
        in-place edits past the first chunk (:meth:`plain_chunks`), found by one walk of the tree
        against ``sync_state`` (rows recorded racy first settled in batches, :meth:`_settle_racy`), each handed to ``run`` (one committed round over those paths;
        False: stop here, the full sync does the rest), so other writers get the brain between
        them (a storm while no sync ran: 2,000 notes rewritten or a folder renamed held every
        other writer for the whole sync). ``stopping()`` True between chunks stops too. The full
        sync then does the rest, the mass-deletion guard and move pairing over the whole tree as
        before; what the chunks did it finds in sync. ``whole_on_mass`` (``gbrain sync``, which a
        refused mass deletion ends having changed nothing): no chunk when the tree's deletions no
        rename explains (with :attr:`held`) reach :data:`MASS_TRASH` and the guard would weigh
        them (:attr:`held`, or :meth:`_vanished` finds a folder over them: refused, or git's doing);
        deletions it lets through go in chunks too (:meth:`_lone_gone`). A pre-pass that
        commits no chunk, or only chunks that wrote nothing into the folder, hands its scan to
        the full sync (:meth:`hand_scan`). ``hold``: paths no chunk takes (watch's paths waiting
        to meet another). Returns the chunks committed."""
        if n <= 0:
            return 0
        found = self._tree_changes()
        if found is None:
            return 0
        sc, git_fp, state, paths = found
        hold = set(hold)
        racy = sorted(p for p, size, stamp in (sc.stats or ()) if (row := state.get(p)) is not None and not row[1] and row[0] == size
                      and row[2] is not None and p not in hold)
        if racy and len(racy) + len(paths) > n:
            paths |= self._settle_racy(racy, state, n, stopping)
        if len(paths) <= n:
            self.hand_scan(sc, git_fp)  # nothing in the folder changed (settling writes none): the full sync need not walk the tree again
            return 0
        moves, rest, move_seen = self.move_chunks(paths, set(), n, hold)
        if whole_on_mass:
            paired = {old for old, _ in move_seen.values()}
            loose = [p for p in paths if p in state and is_markdown(p) and p not in paired and not os.path.lexists(self._abs(p))]
            if len(loose) + sum(1 for p in self.held if is_markdown(p)) >= MASS_TRASH and (
                    self.held or not self.confirm_delete and self._vanished(loose, {t[0] for t in (sc.stats or ())})):
                self.hand_scan(sc, git_fp)  # (refused, or git's doing, said once: the full sync weighs them)
                return 0
        chunks, plain_seen = self.plain_chunks(rest, set(), n, together=hold)
        if not moves and len(chunks) < 2:
            self.hand_scan(sc, git_fp)
            return 0
        done = 0
        wrote = False
        self.chunk_outs = []
        for i, part in enumerate([*moves, *chunks[1:]]):
            if stopping():
                return done
            part = self.still_renamed(part, move_seen)[0] if i < len(moves) else self.still_plain(part, plain_seen)[0]
            if not part:
                continue
            k = len(self.chunk_outs)
            if not run(part):
                return done
            done += 1
            wrote = wrote or any(o.changed() != len(o.imported) + len(o.moved) or o.merged or o.followed or o.sidecar_moves or o.cleaned
                                 for o in self.chunk_outs[k:])
        if done and not wrote:
            self.hand_scan(sc, git_fp)  # the chunks changed nothing on disk: the scan still names the tree
        return done

    def _settle_racy(self, racy: list[str], state: dict, n: int, stopping: Callable[[], bool]) -> set[str]:
        """The pre-pass's settling of rows recorded racy (``mtime_ns`` 0: the file changed less
        than :data:`RACY_NS` before the round that recorded it, so the next round hashes it
        again): each file of ``racy`` (paths whose ``sync_state`` row, of ``state``, is racy at
        the size on disk) hashed (:meth:`hash_stable`) and, still holding the recorded bytes,
        recorded again (its stat now; racy again only while that fresh), ``n`` paths to a
        committed batch, as the full sync would in its one transaction. A sync after a fresh
        import or a first sync finds thousands of racy rows: settled beside a few changes in
        the full sync, one transaction that a flaky connection cut at every try (the stop-60
        CI: 170 rows and 20 deletions, no try ever finished). A batch cut (Postgres'
        ``Disconnected``, the server reachable) is rolled back and run once more on a new
        connection; cut again, the rest is left to the full sync (the batches before stay
        committed: the next try goes on from them). ``stopping()`` True between batches stops.
        A file whose change stamp is within :data:`RACY_NS` of the time before its stat is left
        to the full sync: recorded racy again, its row would be written for nothing and the file
        read twice (a vault dated ahead of this clock: every sync); and a write after the stat
        within the stamp's clock tick could keep that stamp. Returns the paths whose bytes differ
        (edits at the same size, for the chunks); a file that cannot be read is left to the full
        sync, which says why."""
        from ..storage.db import raise_interrupt
        from ..storage.pg import Disconnected

        edited: set[str] = set()
        for i in range(0, len(racy), n):
            if stopping():
                break
            rows = []
            with blobs.confined(self.root):
                for p in racy[i:i + n]:
                    size = state[p][0]
                    now = time.time_ns()  # (before the stat: a write after it moves the stamp past it)
                    try:
                        st = os.lstat(self._abs(p))
                    except OSError:
                        continue  # (gone meanwhile: the full sync sees it)
                    if not stat.S_ISREG(st.st_mode) or st.st_size != size:
                        continue
                    if now - change_stamp(st) < RACY_NS:
                        continue  # racy again (just saved; dated ahead of this clock): the full sync reads it, once
                    f = DiskFile(p, st.st_size, change_stamp(st), fid=file_id(st))
                    hx, _why = self.hash_stable(f)
                    if hx is None:
                        continue
                    if hx != state[p][2]:
                        edited.add(p)
                        continue
                    f.hash = hx
                    rows.append((p, f, state[p][3]))
            if not rows:
                continue

            def record() -> None:
                with self.brain.transaction():
                    for p, f, base in rows:
                        self._settle(p, f, base)
            for again in (False, True):
                try:
                    record()
                    break
                except Disconnected as e:
                    raise_interrupt(e)
                    if e.unreachable:
                        raise
                    self.conn.rollback()
                    if again:
                        return edited
        return edited

    def clean_temp_files(self, temps: list[tuple[str, str]], kept: list[tuple[str, str, os.stat_result | None]] | None = None) -> list[str]:
        """:func:`~gbrain.sync.scan.remove_dead_temps` of the folder's temp files (a live
        writer's are left alone; a dead swap temp holding bytes the brain lacks, a save, goes
        back into its note from its temp name, :meth:`_take_back`, else is kept beside it:
        ``kept``). Returns the relative paths removed."""
        return remove_dead_temps(temps, own=lambda p: holds_bytes_of(self.brain, p), kept=kept, take_back=self._take_back)

    def _mine(self, full: str) -> str | None:
        """``full`` (an absolute path) relative to the folder, or None when it is not inside it."""
        root = str(self.root)
        if not full.startswith(root.rstrip(os.sep) + os.sep):
            return None
        return os.path.relpath(full, root).replace(os.sep, "/")

    def _retry_left_saves(self) -> list[str]:
        """Put back the saves a failed write of this process left under its temp names in this
        folder (:data:`~gbrain.sync.exporter.left_saves`: the swap took them, the put-back failed
        too): into the note while it holds the brain's text (:meth:`_take_back`), into its place
        when the note is gone, else kept beside it (``NAME.unseen-N``). Done first in a round, so
        the round reads the note (or the kept file) as any save. Returns the relative paths
        written; a save that still cannot move stays listed (:meth:`_say_left_saves` warns)."""
        from . import exporter

        done = []
        for full, (nfull, _) in list(exporter.left_saves.items()):
            note = self._mine(nfull)
            if note is None or self._mine(full) is None:
                continue
            try:
                if not os.path.lexists(full):
                    del exporter.left_saves[full]
                    continue
                if self._take_back(full, nfull) is not None:
                    at, how = note, f"put back into {note}"
                elif exporter._into_place(full, nfull):
                    at, how = note, f"put back at {note} (the note was gone)"
                else:
                    at = self._mine(keep_beside(full, nfull)) or note
                    how = f"kept as {at}"
            except OSError as e:
                exporter.left_saves[full] = (nfull, e.strerror or str(e))
                continue
            del exporter.left_saves[full]
            self._log(f"- cleaned {self._mine(full)} (a save to {note} a failed write left under its temp name; {how})")
            done.append(at)
        return done

    def _say_left_saves(self, out: Outcome) -> None:
        """Warn (``out.warnings`` and watch's log) of each save of this folder a failed write left
        under this process's temp name (:data:`~gbrain.sync.exporter.left_saves`), naming the note
        and where its bytes are: the next round puts it back (:meth:`_retry_left_saves`)."""
        from . import exporter

        for full, (nfull, err) in list(exporter.left_saves.items()):
            at, note = self._mine(full), self._mine(nfull)
            if at is None or note is None or not os.path.lexists(full):
                continue
            w = (f"{note}: a save gbrain's write took from it could not be put back ({err}); its bytes are at {at} "
                 f"(nothing is lost: the next round puts them back)")
            out.warnings.append(w)
            self._warn(w)

    def _take_back(self, full: str, nfull: str) -> os.stat_result | None:
        """Put the save at ``full`` (a dead swap temp: a killed round's swap took it from the
        note ``nfull``; absolute paths) back into the note when the note still holds exactly the
        brain's text of it (nobody touched it since that round wrote it): the round then finds the
        note changed and merges the save as any stale save (base: the version it saw), and no
        ``NAME.unseen-N`` page is made of it. It goes straight from the temp name (a round failing
        before this, or in it, leaves it there for the next run), and the note goes in only over
        the file hashed (:func:`~gbrain.sync.exporter._swap_in`). Returns the note's new stat,
        None when the save is to be kept beside the note (the note moved on, is gone, or the save
        is over :data:`KEEP_BYTES`)."""
        from . import exporter

        note = os.path.relpath(nfull, self.root).replace(os.sep, "/")
        try:
            st = os.lstat(nfull)
            if not stat.S_ISREG(st.st_mode) or os.path.getsize(full) > KEEP_BYTES:
                return None
            hx = verify.sha256_file(nfull)
            row = self.conn.execute("SELECT content_hash FROM pages WHERE path = ? UNION ALL SELECT content_hash FROM files WHERE path = ?",
                                    (note, note)).fetchone()
            if row is None or row[0] != hx:
                return None
            with blobs.open_nofollow(full) as fh:
                save = fh.read()
            if not exporter._replace_file(nfull, save, stat.S_IMODE(st.st_mode), unchanged=lambda s: s is not None and exporter._same_file(s, st)):
                return None
            try:
                os.unlink(full)
            except OSError:
                pass
            return os.lstat(nfull)
        except OSError:
            return None

    def read_stable(self, f: DiskFile) -> tuple[bytes | None, str | None]:
        """Read a file whose stat was taken; ``(data, None)`` when the bytes match that stat
        before and after the read, else retry up to :data:`READ_TRIES` times and give
        ``(None, reason)`` (half-written, or unreadable). Updates ``f``'s stat on a retry."""
        try:
            data, settled = read_settled(self._abs(f.path), f)  # (the import's read too)
        except OSError as e:
            return None, read_failure(e)
        return (data, None) if settled else (None, "changed while being read (half-written?)")

    def _young(self, f: DiskFile, st: tuple | None) -> bool:
        """Whether ``f``, just read, gets a second look (:meth:`_settle_young`): its change stamp
        is within :data:`YOUNG_NS` of now, no close of its writer was seen since (:attr:`closed`),
        and its stat moved from ``st``, its ``sync_state`` row (not only re-read as racy, the
        size as recorded)."""
        return bool(self.read_settle) and time.time_ns() - f.mtime_ns < YOUNG_NS and f.path not in self.closed \
            and not (st and not st[1] and st[0] == f.size)

    def _settle_young(self, young: list[DiskFile]) -> list[tuple[str, str]]:
        """Look again at the files of ``young`` (read this round, their change stamp within
        :data:`YOUNG_NS` of the read) after :attr:`read_settle` seconds (:func:`settle_pause`,
        once for them all): an editor saving in pieces (truncate, a first piece, a pause, the rest)
        leaves a file whose stat agrees before and after a read made between two pieces, so only
        a second look a moment later tells a save still being written. A file whose stat moved is
        read again (its new hash and bytes replace the first read's) and looked at again, up to
        :data:`~gbrain.sync.scan.READ_TRIES` pauses; one still moving at the last is returned as
        ``(path, reason)``: left to the next round, never taken half written."""
        left: list[tuple[str, str]] = []
        for attempt in range(READ_TRIES):
            if not young:
                break
            settle_pause(settle_left([f.mtime_ns for f in young], self.read_settle))
            moved = []
            for f in young:
                try:
                    st = os.lstat(self._abs(f.path))
                except OSError:
                    left.append((f.path, GONE_WHILE_READ))
                    continue
                if st.st_size == f.size and change_stamp(st) == f.mtime_ns:
                    continue
                if not stat.S_ISREG(st.st_mode):  # replaced meanwhile by a symlink (left alone, as the walk leaves one), a folder
                    left.append((f.path, NOT_FOLLOWED if stat.S_ISLNK(st.st_mode) else CHANGED_MEANWHILE))
                    continue
                if attempt == READ_TRIES - 1:
                    left.append((f.path, f"still being written (it changed within {self.read_settle * 1000:g} ms of each of {READ_TRIES} reads)"))
                    continue
                f.size, f.mtime_ns, f.fid, f.data = st.st_size, change_stamp(st), None, None
                if blobs.is_big(f.size):
                    hx, why = self.hash_stable(f)
                else:
                    data, why = self.read_stable(f)
                    hx = None if data is None else sha256(data)
                    if data is not None and len(data) <= KEEP_BYTES:
                        f.data = data
                if hx is None:
                    left.append((f.path, why or "unreadable"))
                    continue
                f.hash = hx
                moved.append(f)
            young = moved
        return left

    def scanned_bytes(self, f: DiskFile) -> bytes | None:
        """The bytes of ``f`` as the scan hashed them (``f.data``, or read now: :meth:`read_stable`),
        None when they could not be read settled or no longer have the scan's hash ``f.hash``."""
        if f.data is not None:
            return f.data
        data, _ = self.read_stable(f)
        return None if data is None or sha256(data) != f.hash else data

    def hash_stable(self, f: DiskFile) -> tuple[str | None, str | None]:
        """:meth:`read_stable` for a big file: its sha256 read in pieces, ``(hash, None)`` when
        the stat matches before and after, else ``(None, reason)`` after :data:`READ_TRIES`."""
        full = self._abs(f.path)
        for attempt in range(READ_TRIES):
            try:
                hx, n = blobs.hash_file(full)
                st = os.lstat(full)
            except OSError as e:
                return None, read_failure(e)
            if st.st_size == n == f.size and change_stamp(st) == f.mtime_ns:
                return hx, None
            f.size, f.mtime_ns = st.st_size, change_stamp(st)
            if attempt < READ_TRIES - 1:
                time.sleep(0.02 * (attempt + 1))
        return None, "changed while being read (half-written?)"

    def _db_pieces(self, path: str) -> tuple[str, int] | None:
        """``(hash, size)`` of a stored file kept in pieces (None: a page, a small file or none)."""
        r = self.conn.execute("SELECT content_hash, size FROM files WHERE path = ? AND pieces > 0", (path,)).fetchone()
        return (r[0], r[1]) if r else None

    # ---- reading the DB ----------------------------------------------------------

    def _db_side(self, paths: Iterable[str] | None) -> tuple[dict[str, tuple[str, str]], int]:
        """``path → (hash, kind)`` of pages ('page') and files (their kind), and MAX(change_log.seq),
        read in one snapshot. ``paths`` None reads everything."""
        out: dict[str, tuple[str, str]] = {}
        self.conn.execute("BEGIN")
        try:
            seq = self.conn.execute("SELECT COALESCE(MAX(seq), 0) FROM change_log").fetchone()[0]
            if paths is None:
                for r in self.conn.execute("SELECT path, content_hash FROM files"):
                    out[r[0]] = (r[1], "file")
                for r in self.conn.execute("SELECT path, content_hash FROM pages"):
                    out[r[0]] = (r[1], "page")
            else:
                for chunk, ph in in_parts(sorted(set(paths))):
                    for r in self.conn.execute(f"SELECT path, content_hash FROM files WHERE path IN ({ph})", chunk):
                        out[r[0]] = (r[1], "file")
                    for r in self.conn.execute(f"SELECT path, content_hash FROM pages WHERE path IN ({ph})", chunk):
                        out[r[0]] = (r[1], "page")
        finally:
            self.conn.execute("COMMIT")
        return out, seq

    def _state(self, paths: Iterable[str] | None) -> dict[str, tuple[int, int, str, str]]:
        """``path → (size, mtime_ns, disk_hash, base_hash, file_id)`` from sync_state."""
        q = "SELECT path, size, mtime_ns, disk_hash, base_hash, file_id FROM sync_state WHERE client = ?"
        if paths is None:
            return {r[0]: (r[1], r[2], r[3], r[4], r[5]) for r in self.conn.execute(q, (self.client,))}
        paths = set(paths)
        if len(paths) > 5000:  # many: one read of the whole table beats thousands of IN lists
            return {r[0]: (r[1], r[2], r[3], r[4], r[5]) for r in self._tuples(q, (self.client,)) if r[0] in paths}
        out = {}
        for chunk, ph in in_parts(sorted(set(paths))):
            for r in self.conn.execute(q + f" AND path IN ({ph})", [self.client, *chunk]):
                out[r[0]] = (r[1], r[2], r[3], r[4], r[5])
        return out

    def _known_under(self, prefix: str) -> set[str]:
        """Paths the base or the DB know under folder ``prefix`` (``'a/b/'``)."""
        out: set[str] = set()
        hi = prefix[:-1] + chr(ord("/") + 1)  # every string that starts with prefix sorts in [prefix, hi)
        out.update(r[0] for r in self.conn.execute("SELECT path FROM sync_state WHERE client = ? AND path >= ? AND path < ?", (self.client, prefix, hi)))
        for table in ("pages", "files"):
            out.update(r[0] for r in self.conn.execute(f"SELECT path FROM {table} WHERE path >= ? AND path < ?", (prefix, hi)))
        return out

    def db_bytes(self, path: str) -> bytes | None:
        r = self.conn.execute("SELECT path, bom, frontmatter_raw, compiled_truth, separator, timeline FROM pages WHERE path = ?", (path,)).fetchone()
        if r:
            return render_row(r).encode("utf-8")
        return blobs.file_bytes(self.conn, path)

    # ---- public entry points ----------------------------------------------------------

    def sync(self) -> dict:
        """:meth:`_sync`, reading the folder's files through no symlinked folder (``blobs.confined``),
        after the pre-pass (:meth:`chunk_prepass`) when :attr:`chunk` is set: the tree's renames
        and plain in-place edits committed in chunks, so other writers wait about a chunk, not the
        whole sync. The report is the one a single transaction gives (the chunks' outcomes
        counted in). A Ctrl-C (KeyboardInterrupt) after a chunk committed, in the pre-pass or in
        the full sync after it, says the chunks are kept and how many files are left for the next
        sync (:meth:`_say_interrupted`; ``said``) and is raised again; so is one that landed
        inside a gbrain SQL function (SQLite made it an error: ``db.raise_interrupt``). A sync
        stopped (interrupted, failed) after chunks that found conflicts names them
        (:meth:`_say_chunk_conflicts`): committed, the next sync reports them no more."""
        import sqlite3

        from ..storage.db import raise_interrupt

        self.chunks_kept = 0
        with blobs.confined(self.root):
            done: list[Outcome] = []
            try:
                try:
                    if self.chunk > 0 and self.chunk_outs is None:
                        try:
                            self._sync_chunks()
                        finally:
                            done = list(self.chunk_outs or ())
                    return self._sync()
                except sqlite3.Error as e:
                    raise_interrupt(e)  # (a Ctrl-C that landed inside a gbrain SQL function: SQLite made it an error)
                    raise
            except KeyboardInterrupt as e:
                self.chunks_kept = len(done)
                if done:
                    self._say_interrupted(e, len(done))
                self._say_chunk_conflicts(done)
                raise
            except BaseException:
                self.chunks_kept = len(done)  # (the caller's line on the failure says them: operations/sync.py)
                self._say_chunk_conflicts(done)
                raise
            finally:
                self.chunk_outs = None

    def _say_interrupted(self, e: KeyboardInterrupt, chunks: int) -> None:
        """Say (``say_now``) that a sync interrupted (``e``: Ctrl-C, SIGTERM's ``Terminated``) after
        ``chunks`` committed chunks keeps them, and how many files the next sync takes
        (:meth:`files_left`; ``the rest`` when that cannot be counted); mark ``e`` said (the
        command line's own ``interrupted`` would say it again: entry.py)."""
        try:
            left = self.files_left()
        except Exception:  # (Postgres: the interrupted query still holds the connection, "another command is already in progress")
            left = None
        count = "the rest" if left is None else f"{left:,} file{'s' if left != 1 else ''}"
        self.say_now(f"{getattr(e, 'word', 'interrupted')}: the {chunks:,} chunk(s) this sync committed are kept; "
                     f"{count} left for the next sync (run it again to go on)")
        e.said = True

    def _say_chunk_conflicts(self, outs: list[Outcome]) -> None:
        """Say (``say_now``) the conflicts the committed chunks ``outs`` of a sync that then stopped
        found: in no report, and the next sync finds them settled (exit 0, not 3)."""
        found = [c for o in outs for c in o.conflicts]
        if not found:
            return
        names = ", ".join(c["path"] + (f" (the other version in {c['copy_path']})" if c.get("copy_path") else "") for c in found[:10])
        more = f" and {len(found) - 10:,} more" if len(found) > 10 else ""
        self.say_now(f"conflict(s) found by the chunks this sync committed (kept; the next sync does not report them again): {names}{more}; "
                     "`gbrain conflicts` lists them")

    def _sync_chunks(self) -> None:
        """``gbrain sync``'s pre-pass (:meth:`sync`): :meth:`chunk_prepass`, each chunk a
        :meth:`reconcile` of its own (a failure ends the sync as it would the full sync's). A
        chunk whose Postgres connection was cut (:class:`~gbrain.storage.pg.Disconnected`, the
        server reachable) is rolled back and run once more on a new connection, as watch runs a
        cut round again (cut at its commit, it is found done): a flaky connection costs the
        chunk in flight, not the rest of the sync; cut again, the sync fails with the chunks
        before it kept. A cut while a Ctrl-C unwound is that interrupt (``db.raise_interrupt``)."""
        from ..storage.db import raise_interrupt
        from ..storage.pg import Disconnected

        def run(part: set[str]) -> bool:
            try:
                self.reconcile(part)
            except Disconnected as e:
                raise_interrupt(e)  # (before any clean-up statement: the interrupt, said by sync)
                if e.unreachable:
                    raise
                self.conn.rollback()
                self.reconcile(part | self._copies_beside(part))
            return True

        self.chunk_prepass(self.chunk, run, whole_on_mass=True)  # (a stop: said by sync)

    def _copy_left(self, p: str, h: str, size: int, taken: set[str]) -> str | None:
        """A file beside ``p`` named as its conflict copy, holding the bytes of hash ``h`` (the
        brain's version, ``size`` bytes), that no ``sync_state`` row records and ``taken`` does not name: the copy
        a round cut after writing it left (a Postgres cut that watch, or ``gbrain sync``'s pre-pass,
        runs again at once, its round not naming the copy), taken instead of writing a second.
        None when there is none (or the folder cannot be listed)."""
        folder = p.rpartition("/")[0]
        try:
            names = sorted(os.listdir(self._abs(folder) if folder else str(self.root)))
        except OSError:
            return None
        cands = [q for name in names if (q := f"{folder}/{name}" if folder else name) not in taken
                 and copy_mark(q) is not None and is_conflict_copy_of(q, p)]
        if not cands:
            return None
        recorded = self._state(cands)
        for q in cands:
            if q in recorded:
                continue
            try:
                fd = os.open(self._abs(q), os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
            except OSError:
                continue
            with open(fd, "rb") as fh:
                try:
                    st = os.fstat(fh.fileno())
                    if stat.S_ISREG(st.st_mode) and st.st_size == size and sha256(fh.read()) == h:
                        return q
                except OSError:
                    continue
        return None

    def _copies_beside(self, part: set[str]) -> set[str]:
        """The files on disk named as conflict copies of a path of ``part`` (:func:`is_conflict_copy_of`),
        besides ``part``: a chunk cut after it wrote a conflict copy, run once more with them, takes
        the copy it left (the round's "conflict copy of a sync that died") instead of writing a
        second one. Unreadable folders give nothing."""
        by_dir: dict[str, list[str]] = {}
        for p in part:
            by_dir.setdefault(p.rpartition("/")[0], []).append(p)
        found: set[str] = set()
        for d, ps in by_dir.items():
            try:
                names = os.listdir(self._abs(d) if d else str(self.root))
            except OSError:
                continue
            for name in names:
                q = f"{d}/{name}" if d else name
                if q not in part and copy_mark(q) is not None and any(is_conflict_copy_of(q, p) for p in ps):
                    found.add(q)
        return found

    def _sync(self) -> dict:
        """Reconcile the whole tree; return the verification report (a dict, see :func:`report`).

        Only the paths that may have changed are planned: the scan's ``(path, size, change
        stamp)`` tuples are intersected with ``sync_state``'s as sets, and the brain's
        ``(path, content hash)`` pairs with the bases (:meth:`_unchanged`); a path equal on every
        count (its file's stat as recorded, the file's hash then equal to the base, the brain's
        hash equal to the base) is settled as :func:`~gbrain.sync.plan.decide` would settle it,
        with nothing to write, and every other path goes through :meth:`_run` and ``decide``."""
        handed, self.prescan = self.prescan, None
        chunked, self.chunk_outs = self.chunk_outs or [], None  # (taken before any round of its own)
        self.check_root()
        self.reload_ignore()
        self._dir_cache = {}
        pre = self._usable_prescan(handed)  # a scan watch's pre-pass just made (hand_scan): not walked again
        git_now = pre[1] if pre else gitstate.fingerprint(self.root)  # before the scan: git moving during it is seen next time
        self._retry_left_saves()  # (before the scan: it reads the note, or the file kept beside, as any save)
        try:
            if pre:
                scan, self.leftover_temps = pre[0], pre[2]
            else:
                scan = self.scan()
        except FileNotFoundError:
            raise SyncError(f"the folder {self.root} does not exist (vanished?); nothing was changed") from None
        except PermissionError:
            raise SyncError(f"no permission to read {self.root}; nothing was changed") from None
        if self.cursor < 0:
            # expired (unseen for longer than sync_client_expire_days): the log rows it had not
            # applied may be gone; the full three-way comparison below needs none of them, and
            # its round makes the client live again at the end of the log
            self._warn("this folder was not synced for longer than the brain keeps its changes (config sync_client_expire_days); "
                       "comparing every path with its last synced version instead (nothing is lost)")
        else:
            self.touch()
        stats = scan.stats or []
        first = 0
        if stats and not self.conn.execute("SELECT EXISTS (SELECT 1 FROM sync_state WHERE client = ?)", (self.client,)).fetchone()[0] \
                and self.conn.execute("SELECT NOT EXISTS (SELECT 1 FROM pages) AND NOT EXISTS (SELECT 1 FROM files)").fetchone()[0]:
            # an empty brain and a folder never synced: the bulk importer (parallel parsing,
            # batched commits) does the same as importing file by file, only faster
            from .importer import import_tree

            with origin(client=self.client or None):  # the folder's versions name their sync client
                rep0 = import_tree(self.brain, self.root, on_warning=self._warn, surface=self.surface, include_purged=self.include_purged,
                                  settle=self.read_settle)
            first = rep0["counts"]["pages_written"] + rep0["counts"]["files_written"]
            self._purged_said.update(rep0.get("purged_skipped") or [])  # (said by the import)
            self._log(f"+ {first:,} files imported into the empty brain")
        saves: list[tuple[str, str, os.stat_result | None]] = []
        cleaned = [f"{p} (partial temp file of a gbrain run that died)" for p in self.clean_temp_files(self.leftover_temps, saves)]
        listed = {t[0] for t in stats} if saves else set()
        for at, note, back in saves:  # a save a killed round's swap held: into its note, else imported beside it this round
            if back is not None:
                cleaned.append(f"{at} (a save to {note} left under the temp name of a gbrain run killed while writing it; put back into {note})")
                stats = [t for t in stats if t[0] != note] + [(note, back.st_size, change_stamp(back))]
                continue
            cleaned.append(f"{at} (a save to {note} left under the temp name of a gbrain run killed while writing it; kept)")
            if at in listed:  # kept beside by a run killed before it removed the temp: scanned already
                continue
            try:
                st = os.lstat(self.root / at)
                stats.append((at, st.st_size, change_stamp(st)))
            except OSError:
                pass
        for c in cleaned:
            self._log(f"- cleaned {c}")
        clean, db, state_paths, seq_now = self._unchanged(stats)
        self._hidden_pages_to_files({t[0] for t in stats})
        disk = {p: DiskFile(p, size, mt) for p, size, mt in stats if p not in clean} if len(clean) != len(stats) else {}  # (stats' paths are unique)
        cand = set(disk) | state_paths | set(db)
        unknown = dict(scan.skipped)
        # anything under a skipped folder (unreadable, symlinked, ignored) is left alone
        bad_prefixes = [(p.rstrip("/") + "/", why) for p, why in scan.skipped]
        out = self._run(disk, unknown, bad_prefixes, cand, None, full=True, db=db, seq_now=seq_now, settled_hashes=clean,
                        all_disk=[t[0] for t in stats])
        self._portable(out)
        self._say_left_saves(out)
        out = self._then_both(out)
        if chunked:  # the pre-pass's chunks: one report, as one transaction gives
            total = Outcome()
            for o in [*chunked, out]:
                _add_outcome(total, o)
            total.imported = _one_round_order([*chunked, out])  # (not the chunks' paths first)
            out = total
        if first:
            self._tool_copies_found(out, [t[0] for t in stats])
        out.cleaned[:0] = cleaned
        self._git_settled(git_now)
        self._moved_hidden(out)
        rep = self.report(scan, out)
        if first:
            rep["counts"]["imported"] += first
            rep["first_import"] = first
        return rep

    def _tuples(self, sql: str, params: tuple = ()) -> Iterable[tuple]:
        """:func:`~gbrain.storage.db.tuple_rows` on this engine's connection (what the set
        operations of :meth:`_unchanged` need; ``sqlite3.Row`` is not hashable)."""
        return tuple_rows(self.conn, sql, params)

    def _moved_hidden(self, out: Outcome) -> None:
        """Tell a note moved into a hidden folder (``plans/x.md`` → ``.plans/x.md``: the page
        trashed, the note imported as a file, ``slugs.HIDDEN_WHY``), or out of one (the file
        trashed, a page imported), from a deletion: a trashed page (file) of ``out`` whose last
        version's bytes are those of a hidden note (a page) ``out`` imported (the history's bodies
        are content-addressed: one ``body_id``) of the same file name (a leading dot aside: two
        notes of one text, one deleted and one moved, are told apart) moves from ``out.trashed`` to ``out.hidden_moved``,
        its deletion labelled :data:`~gbrain.core.history.BECAME_FILE` and the file's path (or
        ``BECAME_PAGE`` and the slug), one transaction, so the trash leaves it out and ``restore``
        names where it lives. The page's versions stay in its history (moved back, the page's
        history goes on at its name); a page linking it keeps its text (the link dangles while it
        is hidden, as one to any hidden note). Run after each round (:meth:`reconcile`: watch, sync's
        chunks) and on a full sync's whole outcome. A no-op, nothing read, unless the round trashed a
        note and imported another on the other side of the hidden rule."""
        def notes(paths: list[str], hidden: bool) -> list[str]:
            return [p for p in paths if is_markdown(p) and is_hidden_path(p) == hidden]

        c = self.conn

        def last_body(kind: str, name: str):
            r = c.execute("SELECT body_id FROM history WHERE kind = ? AND name = ? AND body_id IS NOT NULL ORDER BY version DESC LIMIT 1", (kind, name)).fetchone()
            return r[0] if r else None

        def key(kind: str, path: str) -> str:
            return slug_for_path(path) if kind == "page" else path

        def name(path: str) -> str:  # (a move keeps its note's name, but for the dot that hides it: x.md → .x.md)
            return path.rsplit("/", 1)[-1].lstrip(".")

        pairs = []
        for gone_kind, new_kind, hidden in (("page", "file", False), ("file", "page", True)):
            gone, new = notes(out.trashed, hidden), notes(out.imported, not hidden)
            if not gone or not new:
                continue
            # (bytes and name: a note deleted beside another of the same text moved was said moved, its deletion out of the trash)
            came: dict[tuple[int, str], str] = {}
            taken = {q for _p, q in out.hidden_moved}  # (paired by a chunk's round already: a full sync pairs its whole outcome again)
            for q in new:
                if q in taken:
                    continue
                b = last_body(new_kind, key(new_kind, q))
                live = f"SELECT 1 FROM {'pages' if new_kind == 'page' else 'files'} WHERE path = ?"
                if b is not None and (b, name(q)) not in came and c.execute(live, (q,)).fetchone():
                    came[b, name(q)] = q
            for p in gone:
                d = c.execute("SELECT id, op, path, detail FROM history WHERE kind = ? AND name = ? ORDER BY version DESC LIMIT 1",
                              (gone_kind, key(gone_kind, p))).fetchone()
                if d is None or d["op"] != "delete" or d["path"] != p or d["detail"]:
                    continue
                q = came.pop((last_body(gone_kind, key(gone_kind, p)), name(p)), None)
                if q is not None:
                    pairs.append((p, q, d["id"], (BECAME_FILE + q) if new_kind == "file" else (BECAME_PAGE + slug_for_path(q))))
        if not pairs:
            return
        with self.brain.transaction():
            for _p, _q, i, detail in pairs:
                c.execute("UPDATE history SET detail = ? WHERE id = ? AND detail = ''", (detail, i))
        moved = {p for p, *_ in pairs}
        out.trashed[:] = [p for p in out.trashed if p not in moved]
        out.hidden_moved += [(p, q) for p, q, *_ in pairs]
        for p, q, *_ in pairs:
            if is_hidden_path(q):
                self._log(f"~ {p} moved into a hidden folder: {q} is a file now (its page's versions stay in `gbrain history {cmd_arg(slug_for_path(p))}`)")
            else:
                self._log(f"~ {p} moved out of a hidden folder: {q} is a page again")

    def _hidden_pages_to_files(self, listed: set[str]) -> None:
        """Make each page this brain holds under a hidden name (``.github/x.md``, stored before
        the hidden-note rule, ``slugs.HIDDEN_WHY``) the file it now is, when its note is in the
        scan (``listed``: the paths walked, none ignored) and holds the page's very bytes: the
        same bytes kept as a file (``blob``), the page row removed (its versions stay in its
        history and trash, its links re-resolved: ``Brain.remove_page_row``), in one
        transaction, each said once. A hidden page whose note differs is left to the round (an
        edited note comes in as the file, ``importer.classify``; a brain edit is written out
        first and made a file at the next sync): nothing is lost either way. One query of the
        pages' paths; none found, nothing else is read."""
        rows = self.conn.execute("SELECT path, content_hash FROM pages WHERE path LIKE '.%' OR path LIKE '%/.%'").fetchall()
        todo = [(r[0], r[1]) for r in rows if r[0] in listed]  # (the LIKEs are slugs.is_hidden_path)
        if not todo:
            return
        done = []
        with origin(client=self.client or None), self.brain.transaction():
            for p, h in todo:
                try:
                    with blobs.open_nofollow(self.root / p) as f:
                        data = f.read()
                except OSError:
                    continue  # (unreadable is never treated as changed: left as it is)
                if sha256(data) != h or not self.conn.execute("SELECT 1 FROM pages WHERE path = ? AND content_hash = ?", (p, h)).fetchone():
                    continue  # changed meanwhile: the next sync
                self.brain.remove_page_row(p)
                self.brain.save_file(p, data, "blob")
                done.append(p)
        for p in done:
            self._warn(f"{shown(p)}: {slug_problem(slug_for_path(p))}{hidden_page_note(p)}")

    def _unchanged(self, stats: list[tuple[str, int, int]]) -> tuple[dict[str, str], dict[str, tuple[str, str]], set[str], int]:
        """The paths a full round need not plan, found by set operations in one read snapshot.

        ``stats`` are the scan's ``(path, size, change stamp)``. A path is unchanged when its
        file's stat equals the one ``sync_state`` recorded (not racy: ``mtime_ns != 0``) with the
        file's hash then equal to the base, and the brain's content hash equals the base too: then
        D == S == B and its ``sync_state`` row is already exact, so
        :func:`~gbrain.sync.plan.decide` would settle it with nothing to write. SQLite joins
        ``sync_state`` with ``pages``/``files`` on (path, hash) (covering indexes); the stats are
        compared as tuples in one set. When every page, file, base and file on disk is unchanged
        (the counts say so) nothing else is read.

        Returns ``(unchanged path → hash, every other path of the brain → (hash, 'page'|'file'),
        every other path sync_state knows, MAX(change_log.seq))``, the brain side read in the
        snapshot of the sequence number (as :meth:`_db_side` does)."""
        self._settled = None
        rows = self._tuples
        eq = "FROM sync_state s JOIN {t} x ON x.path = s.path AND x.content_hash = s.base_hash WHERE s.client = ? AND s.mtime_ns != 0 AND s.disk_hash = s.base_hash AND s.file_id IS NOT NULL"
        if getattr(self.conn, "dialect", "sqlite") != "postgres":
            # in path order (SQLite then walks idx_sync_state_client_path and probes the pages'
            # (path, hash) index in order): left to itself it took the (client, file_id) index,
            # inode order, whose random probes cost 1.8x the join (172 vs 93 ms CPU at 50,000)
            eq += " ORDER BY s.path"
        db: dict[str, tuple[str, str]] = {}
        self.conn.execute("BEGIN")
        try:
            seq = self.conn.execute("SELECT COALESCE(MAX(seq), 0) FROM change_log").fetchone()[0]
            same = list(rows("SELECT s.path, s.size, s.mtime_ns, s.base_hash " + eq.format(t="pages"), (self.client,)))
            same += rows("SELECT s.path, s.size, s.mtime_ns, s.base_hash " + eq.format(t="files"), (self.client,))
            n_pages, n_files, n_state = self.conn.execute(
                "SELECT (SELECT COUNT(*) FROM pages), (SELECT COUNT(*) FROM files), (SELECT COUNT(*) FROM sync_state WHERE client = ?)", (self.client,)).fetchone()
            on_disk = set(stats)
            if on_disk.issuperset(map(_STAT_OF, same)):  # every such file's stat as recorded (a no-change round): built in C
                clean = dict(zip(map(_PATH_OF, same), map(_HASH_OF, same)))
            else:
                clean = {r[0]: r[3] for r in same if r[:3] in on_disk}
            everything = len(clean) == n_pages + n_files == n_state == len(on_disk)
            if not everything:  # something changed: every path of the brain and the base
                pages = set(rows("SELECT path, content_hash FROM pages"))
                files = set(rows("SELECT path, content_hash FROM files"))
                known = {r[0] for r in rows("SELECT path FROM sync_state WHERE client = ?", (self.client,))}
        finally:
            self.conn.execute("COMMIT")
        if everything:
            self._settled = clean
            return clean, db, set(), seq
        page_paths = {p for p, _ in pages}
        for p in page_paths.intersection(p for p, _ in files):  # in both tables (never written so): full rules
            clean.pop(p, None)
        db.update((p, (h, "file")) for p, h in files if p not in clean)
        db.update((p, (h, "page")) for p, h in pages if p not in clean)
        return clean, db, known - clean.keys(), seq

    def reconcile(self, paths: Iterable[str] = (), folders: Iterable[str] = (), *, log_paths: Iterable[str] = (), consumed_seq: int | None = None, hold_gone_edits: bool = False,
                  maybe_moved: Iterable[str] = (), moves_only: bool = False) -> Outcome:
        """:meth:`_reconcile`, reading the folder's files through no symlinked folder (``blobs.confined``).
        A pre-pass's chunk (:attr:`chunk_outs`) stopped after its transaction committed (a Ctrl-C
        before the round returned) is a chunk kept all the same: its outcome is listed."""
        outs, self.chunk_outs = self.chunk_outs, None  # (a round's own reconcile, _then_both's, is no chunk of its own)
        told = self._round_out, self._round_base  # (a chunk's round running this one inside it, _then_both: its own, told again after)
        self._round_out, self._round_base = None, None
        try:
            with blobs.confined(self.root):
                out = self._reconcile(paths, folders, log_paths=log_paths, consumed_seq=consumed_seq, hold_gone_edits=hold_gone_edits,
                                      maybe_moved=maybe_moved, moves_only=moves_only)
        except BaseException:
            if outs is not None and self._round_out is not None and self._round_base is not None and self.brain.commits != self._round_base:
                outs.append(self._round_out)  # (committed: the interrupted line counts it, its conflicts are said)
            raise
        finally:
            self.chunk_outs = outs
            if outs is None:
                self._round_out, self._round_base = told
        if outs is not None:
            outs.append(out)
        return out

    def _reconcile(self, paths: Iterable[str] = (), folders: Iterable[str] = (), *, log_paths: Iterable[str] = (), consumed_seq: int | None = None, hold_gone_edits: bool = False,
                   maybe_moved: Iterable[str] = (), moves_only: bool = False) -> Outcome:
        """Reconcile some paths (file events) and folders (folder events) with the same rules.

        ``log_paths`` are paths named by the change log up to ``consumed_seq``; the cursor moves
        to ``consumed_seq`` when the round commits. ``hold_gone_edits``: a path gone from disk
        whose page the brain edited (a ``deleted-on-disk`` conflict) is not put back by this
        round but listed in ``Outcome.held`` for the caller to retry: watch's rounds driven by
        the change log alone use it, since the file may have been renamed and the rename's
        events (which would make it a move) not yet reached a batch. ``maybe_moved``: paths gone
        from disk whose deletion the caller holds back (watch's :class:`~gbrain.sync.watch.Pending`);
        this round takes them only as the old path of a move (a checkout deletes a moved note and
        creates it again, edited, under a new inode) and otherwise leaves them to a later round.
        ``moves_only`` (``gbrain import`` run again on its folder): the round carries out only the
        moves it pairs (the page row moves, and takes the file's text when it was edited too; a
        page edited in the brain since the base moves with the brain's text and keeps its base,
        listed in ``Outcome.both_moved``, its text left to sync) and leaves every other path as it
        is, so it writes no file but a moved page's ``.raw`` sidecar (renamed with it, as in any
        round); no second round runs for ``both_moved``.
        """
        self._dir_cache = {}
        paths = set(paths) | set(self._retry_left_saves())
        cand: set[str] = set()
        disk: dict[str, DiskFile] = {}
        unknown: dict[str, str] = {}
        bad_prefixes: list[tuple[str, str]] = []
        for p in set(paths) | set(log_paths):
            if p and not p.startswith("/") and ".." not in p.split("/") and not undecodable(p):
                cand.add(p)
        for d in set(folders):
            d = d.strip("/")
            if undecodable(d):  # never in the brain: nothing to reconcile under it
                continue
            prefix = d + "/" if d else ""
            cand |= self._known_under(prefix) if prefix else set(self._state(None)) | set(self._db_side(None)[0])
            files, skipped, bad = self.walk(d)
            for f in files:
                disk[f.path] = f
            unknown.update(skipped)
            bad_prefixes += [(b, "unreadable folder") for b in bad]
            bad_prefixes += [(p.rstrip("/") + "/", why) for p, why in skipped]
        for p in cand:
            if p in disk or p in unknown:
                continue
            why = self.excluded(p)
            if why:
                unknown[p] = why
                continue
            f, why = self.stat_path(p)
            if why:
                unknown[p] = why
            elif f is not None:
                disk[p] = f
            else:
                why = evicted(self.root, p)
                if why:
                    unknown[p] = why
        cand |= set(disk)
        only_moves = {p for p in maybe_moved if p not in cand and p not in unknown and not self.excluded(p) and self.stat_path(p) == (None, None)
                      and not evicted(self.root, p)}
        cand |= only_moves
        out = self._run(disk, unknown, bad_prefixes, cand, None, consumed_seq=consumed_seq, hold_gone_edits=hold_gone_edits,
                        only_moves=only_moves, moves_only=moves_only)
        self._moved_hidden(out)  # (watch's rounds, sync's chunks: a move into or out of a hidden folder is no deletion)
        self._portable(out)
        self._say_left_saves(out)
        return out if moves_only else self._then_both(out)

    def _portable(self, out: Outcome) -> None:
        """Warn (``out.warnings`` and the warn callback: watch's log) of the names a copy of the
        folder on macOS or Windows could not hold among the paths this round added
        (``out.new_paths``: :func:`gbrain.sync.importer.portability_warnings`); a round that
        added none costs nothing."""
        if not out.new_paths:
            return
        from .importer import other_markdown_warning, portability_warnings

        for w in portability_warnings(self.brain, set(out.new_paths)) + other_markdown_warning(out.new_paths):
            out.warnings.append(w)
            self._warn(w)

    def _then_both(self, out: Outcome) -> Outcome:
        """After a round that carried out ``both_moves`` pairs (``out.both_moved``): a round over
        their new paths, where both sides changed since the base (merged, or the both-changed
        conflict), its outcome added to ``out``."""
        if not out.both_moved:
            return out
        more = self.reconcile(paths=out.both_moved)
        more.import_rank = {p: (3, i) for i, p in enumerate(more.imported)}  # (after the first round's, as it ran)
        _add_outcome(out, more)
        return out

    # ---- the core -----------------------------------------------------------------

    def _run(
        self,
        disk: dict[str, DiskFile],
        unknown: dict[str, str],
        bad_prefixes: list[tuple[str, str]],
        cand: set[str] | None,
        state: dict | None,
        *,
        consumed_seq: int | None = None,
        full: bool = False,
        db: dict[str, tuple[str, str]] | None = None,
        seq_now: int = 0,
        settled_hashes: dict[str, str] | None = None,
        all_disk: Iterable[str] | None = None,
        hold_gone_edits: bool = False,
        only_moves: set[str] = frozenset(),
        moves_only: bool = False,
    ) -> Outcome:
        """One round over ``cand`` (None: every path of ``disk``, the base and the brain).

        ``full``: ``cand`` are the paths of a whole-tree round that may have changed
        (:meth:`sync`); the others (``settled_hashes``: path → hash) are settled already, and
        ``all_disk`` names every file on disk (for the mass-deletion check). ``db`` and
        ``seq_now``: the brain side of ``cand`` read by the caller (else read here).
        ``hold_gone_edits``: see :meth:`reconcile`; ``only_moves``: paths of ``cand`` this round
        acts on only as the old path of a move (``maybe_moved`` of :meth:`reconcile`);
        ``moves_only``: see :meth:`reconcile`."""
        out = Outcome()
        self._round_out = out  # (a chunk stopped after its commit: reconcile lists it)
        if settled_hashes:
            out.disk_hashes.update(settled_hashes)
        if db is None:
            db, seq_now = self._db_side(cand)
        if state is None:
            state = self._state(cand)
        paths = set(disk) | set(state) | set(db) if cand is None else set(cand)
        whole = cand is None or full  # a round over the whole tree (the cursor moves to seq_now)
        # paths we cannot see are left alone on both sides
        for p in list(paths):
            why = unknown.get(p)
            if why is None and bad_prefixes:
                why = next((inside(r) for b, r in bad_prefixes if p.startswith(b)), None)
            if why is None and p not in disk:
                why = self.excluded(p) or evicted(self.root, p)
            if why is not None:
                paths.discard(p)
                if p in db or p in state:
                    out.unreadable.append((p, why))
                    if p not in self._evicted_said and is_evicted(why):
                        self._evicted_said.add(p)
                        self._log(f"· {p}: {why}")
        if self._evicted_said:
            self._evicted_said.difference_update(disk)  # back: said again if evicted again
        # 1. hash what changed since it was last hashed
        kept = 0
        young: list[DiskFile] = []  # read, but changed within YOUNG_NS: looked at again below
        for p in sorted(paths):
            f = disk.get(p)
            if f is None:
                continue
            st = state.get(p)
            if st and st[1] and st[0] == f.size and st[1] == f.mtime_ns:
                f.hash = st[2]
                continue
            if blobs.is_big(f.size):  # hashed in pieces, never read whole
                hx, why = self.hash_stable(f)
                if hx is None:
                    paths.discard(p)
                    out.unreadable.append((p, why or "unreadable"))
                    self._warn(f"{p}: {why}; left as it is, will retry")
                    continue
                f.hash = hx
                if self._young(f, st):
                    young.append(f)
                continue
            data, why = self.read_stable(f)
            if data is None:
                paths.discard(p)
                out.unreadable.append((p, why or "unreadable"))
                self._warn(f"{p}: {why}; left as it is, will retry")
                continue
            f.hash = sha256(data)
            if len(data) <= KEEP_BYTES and kept + len(data) <= KEEP_TOTAL:
                f.data = data  # saves a second read when it is imported; re-read beyond the budget
                kept += len(data)
            if self._young(f, st):
                young.append(f)
        for p, why in self._settle_young(young):
            paths.discard(p)
            out.unreadable.append((p, why))
            self._warn(f"{p}: {why}; left as it is, will retry")
        # a file holding exactly the bytes of a version `gbrain purge` removed, other than the
        # folder's last synced bytes (those go as the plan says: a page deleted in the brain, its
        # file removed without a copy), is not imported (an old copy put back, a teammate's):
        # left alone on both sides, said, so the purge is not undone
        if not self.include_purged and '"hashes"' in (self.brain.get_config("purge_log") or ""):
            from ..core.purge import PurgedBytes, skip_warning

            purged = PurgedBytes(self.conn)
            for p in sorted(paths):
                f = disk.get(p)
                if f is None or f.hash is None or (p in state and state[p][3] == f.hash) or f.hash not in purged:
                    continue
                paths.discard(p)
                why = Why("its bytes are exactly a version `gbrain purge` removed (config purge_log): not imported", PURGED)
                out.unreadable.append((p, why))
                if p not in self._purged_said:
                    self._purged_said.add(p)
                    self._warn(skip_warning(p, f"gbrain sync {cmd_arg(str(self.root))}"))
        # 2. plan
        D = {p: disk[p].hash for p in paths if p in disk}
        S = {p: db[p][0] for p in paths if p in db}
        B = {p: state[p][3] for p in paths if p in state}
        if not whole:
            self._widen_for_moves(paths, D, S, B, db, state, disk)
        if not moves_only:
            self._follow_brain_moves(paths, D, S, B, out)
            self._follow_late_saves(paths, D, S, B, disk, out)
        states = {}
        stale: dict[str, tuple[bytes, bytes | None]] = {}  # path → (the file's bytes, the merge or None)
        both: dict[str, tuple[bytes, bytes]] = {}  # path → (the file's bytes, the merge): both changed, the edits merge
        # a path gone from disk that the brain and the base still have may have moved: the new
        # paths' file ids (device, inode) are looked up then only
        any_gone = any(p not in D and p in S and p in B for p in paths)
        # … and so may a path whose file changed, unchanged in the brain: moved away, a new note
        # written at its name (the plan's ``replaced_moves``): its file id then too
        any_new = any(p in D and p not in S and p not in B for p in paths)
        any_changed = any_new and any(p in D and p in B and D[p] != B[p] and S.get(p) == B[p] for p in paths)
        # … and so may a new note whose page this engine trashed in an earlier round
        trashed = self._recent_trash() if any_new and not moves_only else {}
        # … and so may a vanished page whose note this engine imported as a new page earlier
        created = self._recent_new() if any_gone and not moves_only else {}
        any_gone = any_gone or bool(trashed)
        # a file with no base that differs from the brain (or the brain has no such path): is it
        # an old copy of a version the history holds (a teammate's old vault, a restored backup)?
        hist = self._disk_history({p: (D[p], db[p][1] if p in db else None) for p in paths if p in D and p not in B and D[p] != S.get(p)})
        for p in paths:
            d, s, b = D.get(p), S.get(p), B.get(p)
            if d is not None and s is not None and s == b and d != b and p in disk and (
                    db[p][1] == "page" and is_markdown(p) or db[p][1] == "file" and page_slug_for_sidecar(p) is not None):
                sv = self._stale_view(p, disk[p], s)  # a page, or a page's .raw sidecar (by source: merge.stale_sidecar)
                if sv is not None:
                    stale[p] = sv
            # only asked where the three sides all differ: it reads history
            was_brain = d is not None and s is not None and d != s and d != b and s != b and self._brain_had(p, d)
            if (b is not None and d is not None and s is not None and d != s and d != b and s != b and not was_brain and p in disk
                    and (db[p][1] == "page" and is_markdown(p) or db[p][1] == "file" and page_slug_for_sidecar(p) is not None)):
                # a page, or a page's .raw sidecar (merged by source: merge.merge_sidecar)
                m = self._both_merge(p, disk[p], b)
                if m is not None and m[1] is None:
                    stale[p] = m  # a stale save of the base that does not merge
                elif m is not None:
                    both[p] = m
            states[p] = PathState(
                disk=d, brain=s, base=b,
                brain_kind=db[p][1] if p in db else None,
                # the kind only matters for a path new on disk (a move's destination)
                disk_kind=("page" if classify(p, b"")[0] == "page" else "file") if d is not None and s is None and b is None else None,
                disk_was_brain=was_brain,
                stale=None if p not in stale else ("merge" if stale[p][1] is not None else "conflict"),
                both_merge=p in both,
                base_id=state[p][4] if p in state else None,
                disk_id=(self._fid(disk[p]) if (any_gone or any_changed) and d is not None and s is None and b is None
                         else self._fid(disk[p]) if any_changed and d is not None and b is not None and d != b and s == b else None),
                disk_history=hist[p][0] if p in hist else None,
            )
        similar = self._similar(states, disk)
        plan = decide(states, similar, trashed, self._trashed_similar(states, disk, trashed) if trashed else None,
                      created, self._created_similar(states, B, created) if created else None)
        self._say_renamed_twice(plan.import_, D, S, B, state, disk, out)
        moves, edited_moves, changed_moves = plan.moves, plan.edited_moves, plan.changed_moves
        to_write, to_remove, to_import, to_trash = plan.write, plan.remove, plan.import_, plan.trash
        # an adopted pair is carried out where its deletion would be (the same guards hold it
        # back: put back, held, the mass-deletion check), else it is that deletion
        adopt = dict(plan.adopted_moves)
        if adopt:
            to_trash = sorted(to_trash + list(adopt))
        conflicts, settled, echoes = plan.conflicts, plan.settled, plan.echoes
        replaced_moves = [] if moves_only else plan.replaced_moves  # (the import itself imports the new note)
        both_moves = []
        # ``moves_only`` (import): a page edited in the brain and moved on disk (edited there too,
        # or not) moves with the brain's text and keeps its base, as a both-move does, and the
        # text is left to sync (which merges the edits, or writes the brain's to the new file):
        # import writes no file
        for src, dst in plan.both_moves + ([m for m in plan.edited_moves if db[m[0]][1] == "page"] if moves_only else []):
            # the row can take the new name (no other page has its slug): it moves with the
            # brain's text; else as before the pair: the brain's edit put back, the file imported
            if not self.conn.execute("SELECT 1 FROM pages WHERE slug = ? AND path != ?", (slug_for_path(dst), src)).fetchone():
                both_moves.append((src, dst))
            elif not moves_only:
                conflicts = sorted(conflicts + [(src, "deleted-on-disk")])
                to_import = sorted(to_import + [dst])
        if moves_only:  # a move that would write the brain's edit to the new file: the row moved above, the file left to sync
            edited_moves = []
        revived_moves = plan.revived_moves
        # a note moved and saved under its new name from a buffer older than a write through
        # gbrain (an editor's rename + save, a sync tool's older copy): the same stale check as a
        # save in place, against the versions of the page (still at the old path). Merged, the
        # row moves with the brain's text and takes the merge as in place; not merging, the save
        # is a conflict copy beside the new name. Else the plain rule: the row takes the file (trial 55)
        stale_moves: dict[str, tuple[str, bytes, bytes | None]] = {}  # dst → (src, the file's bytes, the merge or None)
        for src, dst in ([] if moves_only else changed_moves):
            if (db[src][1] == "page" and is_markdown(src) and is_markdown(dst) and dst in disk and classify(dst, b"")[0] == "page"
                    and not self.conn.execute("SELECT 1 FROM pages WHERE slug = ? AND path != ?", (slug_for_path(dst), src)).fetchone()):
                sv = self._stale_view(src, disk[dst], S[src], at=dst)
                if sv is not None:
                    stale_moves[dst] = (src, *sv)
        # notes that swapped names: each page moves with its text (a cycle whose pages have a
        # .raw sidecar, or a name another spelling holds, is imported as edits, as before)
        swaps, unswapped = self._swappable(plan.swaps)
        if unswapped:
            to_import = sorted(to_import + unswapped)
        moved_paths = {p for m in moves + edited_moves + changed_moves + both_moves + replaced_moves + revived_moves + swaps for p in m}
        to_merge, to_merged = plan.merge, plan.merged
        old_copies = plan.old_copies
        drop = (paths if moves_only else only_moves) - moved_paths
        if drop:  # held back by the caller, and no move: a later round decides them
            paths -= drop
            to_write, to_remove = [p for p in to_write if p not in drop], [p for p in to_remove if p not in drop]
            to_import, to_trash = [p for p in to_import if p not in drop], [p for p in to_trash if p not in drop]
            conflicts, settled = [c for c in conflicts if c[0] not in drop], [p for p in settled if p not in drop]
            to_merge = [p for p in to_merge if p not in drop]
            to_merged = [p for p in to_merged if p not in drop]
            old_copies = [p for p in old_copies if p not in drop]
        if hold_gone_edits:
            out.held = [p for p, k in conflicts if k == "deleted-on-disk"]
            conflicts = [(p, k) for p, k in conflicts if k != "deleted-on-disk"]
            # gone from both sides since the base (another folder renamed or deleted it, and the
            # file went here too): this folder may have renamed it, its events not yet in a batch;
            # the base stays for that round, which then says the note was renamed twice
            # (_say_renamed_twice; forgotten here, the renamed file was a new note, said nowhere)
            both_gone = {p for p in settled if p in B and p not in D and p not in S}
            if both_gone:
                out.held += sorted(both_gone)
                settled = [p for p in settled if p not in both_gone]
        if self.held:
            self.held.difference_update(disk)  # back on disk: synced as usual again
            to_trash = [p for p in to_trash if p not in self.held]
        put_back: set[str] = set()
        if self.put_back and to_trash:
            # deleted from the folder, unchanged in the brain: the brain's version goes back
            put_back = set(to_trash)
            to_write = to_write + to_trash
            to_trash = []
        # an emptied folder (an unmounted drive or sub-volume, a `rm -rf *` in the wrong window)
        # or most of a folder at once is not a request to trash its pages: stop before touching
        # either side
        if to_trash and (len(to_trash) >= MASS_TRASH or self.held) and not self.confirm_delete:
            note = self._check_vanished(to_trash, all_disk if full else (disk if cand is None else None))
            if note:
                out.git.append(note)
        if (conflicts or to_write or to_remove or to_import or to_trash or moves or edited_moves or to_merge or to_merged or changed_moves or both_moves or replaced_moves
                or revived_moves or old_copies):
            # nothing is written to the folder from (or into) a damaged database: wait for the
            # check a CLI sync runs beside the walk (Brain.start_check); a no-op once checked
            self.brain.check_sound()
        # 3. disk writes: conflict copies first (the brain's version is then safe on disk)
        now = time.time()
        copies: dict[str, tuple[str, bytes]] = {}
        refused: set[str] = set()  # put-backs the folder refused: left for a later round
        copies_kept: set[str] = set()  # conflict copies the folder refused: in the brain only
        for p, kind in conflicts:
            if kind != "both-changed":
                continue
            data = self.db_bytes(p)
            if data is None:
                continue
            # a round killed after writing this copy and before recording it left it on disk:
            # take it as the copy instead of writing a second one
            h = sha256(data)
            left = next((q for q in sorted(D) if D[q] == h and q not in S and q not in B and q not in copies and is_conflict_copy_of(q, p)), None)
            if left is None:
                left = self._copy_left(p, h, len(data), set(S) | set(B) | set(copies))
            if left is not None:
                copies[left] = (p, data)
                if left in to_import:
                    to_import.remove(left)
                out.cleaned.append(f"{left} (conflict copy of a sync that died; taken as this conflict's copy)")
                continue
            cp = conflict_copy_path(p, now, lambda c: c in db or c in disk or os.path.lexists(self._abs(c)) or c in copies)
            try:
                atomic_write(Path(self._abs(cp)), data)
            except OSError as e:
                # a read-only folder: the conflict is the same, its copy (the brain's version)
                # a page of the brain only, written to the folder once it can be
                note_refused(out, cp, e)
                copies_kept.add(cp)
            copies[cp] = (p, data)
        # no base (this folder never agreed with the brain on the path): the file's bytes go to
        # a conflict copy, then the brain's version to the path (nothing is lost on either side)
        file_copies, no_base_written = self._keep_files_as_copies(
            [p for p, k in conflicts if k in _KEEP_BRAIN], disk, D, S, B, db, copies, to_import, now, out)
        # … and so does a stale save under a new name that does not merge: the save is the copy
        # beside the new name, the brain's version written to it (the row moves below)
        stale_copied, stale_written = self._keep_files_as_copies(
            [dst for dst, (_src, _save, m) in sorted(stale_moves.items()) if m is None], disk, D, S, B, db, copies, to_import, now, out,
            src_of={dst: src for dst, (src, _save, _m) in stale_moves.items()})
        file_copies.update(stale_copied)
        # a stale save that merges cleanly, or a page both sides changed whose edits merge: the
        # merged text goes to the file inside the transaction that records it (below), never
        # before: a write through gbrain committing meanwhile defers the page, and a merge
        # already in the file would be bytes no version and no base holds (trial 51: the next
        # round took them for the person's save, an editor's buffer of them found no ancestor)
        merges: dict[str, tuple[bytes, bytes | None]] = {p: stale[p] for p in to_merge}
        merges.update((p, both[p]) for p in to_merged)
        merge_written: dict[str, DiskFile] = {}
        merge_kept: dict[str, DiskFile] = {}  # merges the folder refused: the page only
        written: dict[str, DiskFile] = {}
        echo_saved: dict[str, bytes] = {}
        for p in to_write + [p for p, k in conflicts if k == "deleted-on-disk"]:
            if not self._still_as_planned(out, p, disk.get(p)):
                continue
            if p in echoes:  # keep the replaced bytes anyway (a deliberate revert stays recoverable)
                try:
                    with blobs.open_nofollow(self._abs(p)) as fh:
                        echo_saved[p] = fh.read()
                except OSError:
                    pass
            try:
                f = self._write_out(p, p, S[p], out, disk.get(p))
            except OSError as e:
                # a read-only folder: the brain keeps its version, the file stays as it is (its
                # base too, so the next round tries again)
                note_refused(out, p, e)
                echo_saved.pop(p, None)
                refused.add(p)
                continue
            if f is None:  # the brain changed again since we looked; the next round writes it
                echo_saved.pop(p, None)
                continue
            written[p] = f
        # a file moved on disk while the brain edited its page: the brain's text goes to the new
        # path now (it held the old base, nothing else); the row moves in the transaction below
        move_written: dict[str, DiskFile] = {}
        for src, dst in edited_moves:
            if not self._still_as_planned(out, dst, disk.get(dst), absent=src):
                continue
            try:
                f = self._write_out(src, dst, S[src], out, disk.get(dst))
            except OSError as e:
                note_refused(out, dst, e)
                continue
            if f is not None:
                move_written[dst] = disk[dst] = f
        removed: dict[str, bytes] = {}
        for p in to_remove:
            f = disk[p]
            if not self._still_as_planned(out, p, f):
                continue
            data = f.data
            if data is None and blobs.is_big(f.size) and self.conn.execute("SELECT 1 FROM history_bodies WHERE hash = ?", (B[p],)).fetchone():
                hx, why = self.hash_stable(f)  # its bytes are in the history: nothing to keep in memory
                if hx != B[p]:
                    out.unreadable.append((p, why or CHANGED_MEANWHILE))
                    continue
                data = HashOnly(hx)
            if data is None:
                data, why = self.read_stable(f)
                if data is None or sha256(data) != B[p]:
                    out.unreadable.append((p, why or CHANGED_MEANWHILE))
                    continue
            if not self._remove_file(p, out):
                continue
            removed[p] = data
        # old copies (no base) of pages the brain deleted or moved away: the history holds their
        # bytes (looked up by hash before planning), so the file goes and nothing comes back
        old_removed: dict[str, str] = {}
        for p in old_copies:
            f = disk[p]
            if not self._still_as_planned(out, p, f):
                continue
            if f.data is not None:
                hx = sha256(f.data)
            else:
                hx, why = self.hash_stable(f)
            if hx != D[p]:
                out.unreadable.append((p, CHANGED_MEANWHILE))
                continue
            if not self._remove_file(p, out):
                continue
            old_removed[p] = hist[p][1]
        for p, why in sorted(old_removed.items()):
            out.removed.append(p)
            out.old_removed.append((p, why))
            self._log(f"← db (old copy) {p} removed: {why}")
        if refused:  # (a put-back refused too: no "file restored" for it)
            conflicts = [(p, k) for p, k in conflicts if p not in refused or k != "deleted-on-disk"]
        # 4. one transaction for the brain side (skipped when there is nothing to write)
        acting = set(to_import) | set(to_trash) | {p for p, _ in conflicts} | moved_paths | set(file_copies) | set(merges)
        settle_rows = []
        for p in settled:
            f = disk.get(p)
            st = state.get(p)
            if f is None:
                if st:
                    settle_rows.append((p, None))
            elif not (st and st[0] == f.size and st[1] == f.mtime_ns and st[1] and st[3] == f.hash and st[4] is not None) \
                    and not self._racy_again(p, f, st):
                settle_rows.append((p, f))
            if f is not None:
                out.disk_hashes[p] = f.hash
        cur = self.cursor
        base_seq = consumed_seq if consumed_seq is not None else (seq_now if whole else cur)
        if not (acting or written or move_written or removed or copies or settle_rows or base_seq > cur or (whole and seq_now > cur)):
            self._finish(out, paths, disk, removed.keys() | old_removed.keys(), copies)
            return out
        # (the round's own write transaction: a commit counted from here is the chunk's, not a side
        # transaction's before it, as _follow_brain_moves' rows: reconcile)
        self._round_base = self.brain.commits
        with self._memory_follows_tx(), self.brain.transaction(), origin(surface=self.surface, client=self.client or None):
            fresh, tx_start_seq = self._db_side_in_tx(acting | set(copies))
            changed_since = {p for p in acting if fresh.get(p) != S.get(p)}
            if changed_since:
                left = set(changed_since)
                for src, dst in (*moves, *changed_moves, *replaced_moves, *both_moves, *edited_moves):
                    if src in changed_since or dst in changed_since:
                        left |= {src, dst}
                for cycle in swaps:
                    if changed_since.intersection(cycle):
                        left |= set(cycle)
                out.deferred = sorted(left)
            for cycle in swaps:
                if changed_since.intersection(cycle):
                    continue
                with origin(operation="file moved"):
                    self._swap(cycle, disk, out)
            for src, dst in moves:
                if src in changed_since or dst in changed_since:
                    continue
                with origin(operation="file moved"):
                    self._move(src, dst, disk[dst], out)
            for src, dst in changed_moves:
                # moved and edited on disk: the row moves (id, history, tags, raw data follow),
                # then takes the file's text, a second version in its history
                if src in changed_since or dst in changed_since:
                    continue
                if dst in stale_moves:
                    self._stale_move(src, dst, disk[dst], stale_moves[dst], stale_written.get(dst),
                                     next((c for c, (orig, _f) in stale_copied.items() if orig == dst), None), B[src], out)
                    continue
                with origin(operation="file moved"):
                    self._move(src, dst, disk[dst], out, changed=True)
            for src, dst in replaced_moves:
                # moved away on disk and a new note written at the old name: the row follows the
                # file (its inode and bytes), then the new note is imported as a page of its own
                if src in changed_since or dst in changed_since:
                    continue
                with origin(operation="file moved"):
                    self._move(src, dst, disk[dst], out)
                with origin(operation="file changed"):
                    if self._import(src, disk[src], out):
                        out.imported.append(src)
                        self._log(f"+ {src} → db")
            for src, dst in both_moves:
                # moved and edited on disk, edited in the brain: the row moves with the brain's
                # text and the new path keeps the old base, so the round after this one finds both
                # sides changed since it (a three-way merge, or the both-changed conflict)
                if src in changed_since or dst in changed_since:
                    continue
                with origin(operation="file moved"):
                    self._move(src, dst, disk[dst], out, base=B[src])
                out.both_moved.append(dst)
            for src, dst in revived_moves:
                # a page trashed by an earlier round, its note created (again) since: back from
                # the trash at the new path (its id; its history continued), else a new page
                if dst in changed_since:
                    continue
                done = self._revive(src, dst, disk[dst], out)
                if done is None:
                    with origin(operation="file changed"):
                        if self._import(dst, disk[dst], out):
                            out.imported.append(dst)
                            self._log(f"+ {dst} → db")
            for src, dst in edited_moves:
                # written out above; the row (the brain's text, its id and history) follows it
                f = move_written.get(dst)
                if f is None or src in changed_since or dst in changed_since:
                    continue  # a later round sees the new file (it holds a version of the brain's)
                with origin(operation="file moved"):
                    self._move(src, dst, f, out)
                out.exported.append(dst)
                out.disk_hashes[dst] = f.hash
                self._log(f"← db {slug_for_path(dst) if db[src][1] == 'page' else dst}")
            for i, q in enumerate(out.imported):  # (a chunked sync's report lists them as one round: _one_round_order)
                out.import_rank.setdefault(q, (0, i))
            to_merge_first = set(to_merge)
            # a page before its .raw sidecar (people/.raw/x.json sorts before people/x.md): the
            # sidecar's rows need the page, which would be imported after it with a warning
            for p in sorted(to_import, key=lambda q: page_slug_for_sidecar(q) is not None) + [p for p, k in conflicts if k not in ("deleted-on-disk",) + _KEEP_BRAIN]:
                if p in changed_since:
                    continue
                with origin(operation="file changed" if p in to_import else "conflict: file kept"):
                    if not self._import(p, disk[p], out):
                        continue
                if p in to_import:
                    out.imported.append(p)
                    out.import_rank[p] = (1, page_slug_for_sidecar(p) is not None, p)
                    self._log(("~ " if p in S else "+ ") + f"{p} → db")
                    if p not in S and p not in B and db.get(p) is None and not moves_only:
                        self._note_created(p, disk[p])
            for p in merges:
                if p in changed_since:
                    continue  # the brain changed again: the next round merges the save with it
                self._write_merge(p, merges[p][1], disk.get(p), merge_written, merge_kept, out)
            for p, f in merge_written.items():
                # the file's save first (a version from the file: nothing the person typed is
                # lost, and a later stale save from the same buffer finds it as its ancestor),
                # then the merge as the page (the brain's replaced version is in the history)
                if not self._save_then_merge(p, disk[p], merges[p][0], f, p in stale, out):
                    continue
                out.imported.append(p)
                out.import_rank[p] = (2, False, p not in to_merge_first, p)
                out.exported.append(p)
                out.merged.append(p)
                out.disk_hashes[p] = f.hash
                if p in stale:
                    self._log(f"~ merged your save of {p} with a newer write through gbrain (the file was saved from an older version)")
                else:
                    self._log(f"~ merged {p}: changed in the folder and in the brain since the last sync; the edits do not overlap")
            for p, f in merge_kept.items():
                if not self._save_then_merge(p, disk[p], merges[p][0], f, p in stale, out):
                    continue
                self._record(p, disk[p], disk[p].hash)  # the file's bytes stay its base: the merge is written later
                out.imported.append(p)
                out.import_rank[p] = (2, True, p not in to_merge_first, p)
                out.merged.append(p)
                self._log(f"~ merged {p} in the brain: changed in the folder and in the brain; the edits do not overlap "
                          f"(the folder refuses writes: the file keeps your version until it can be written)")
            for p in to_trash:
                if p in changed_since:
                    continue
                if p in adopt and self._adopt(p, adopt[p], out):
                    self._forget(p)
                    continue
                page = self.conn.execute("SELECT id FROM pages WHERE path = ?", (p,)).fetchone() if db[p][1] == "page" else None
                with origin(operation="file deleted"):
                    self._trash(p, "file deleted")
                if page is not None and B.get(p) is not None:
                    self.recent_trash[p] = (self.clock(), page[0], B[p], state[p][4] if p in state else None)
                out.trashed.append(p)
                self.trashed_paths.add(p)
                self._log(f"- {p} → trash")
                self._forget(p)
            for cp, (p, data) in copies.items():
                f = self._stat_written(cp, data) if cp not in copies_kept else DiskFile(cp, len(data), 0, sha256(data), data)
                # the copy holds the brain's version: its history credits whoever wrote that
                # version (a teammate's save through their folder, an agent), not this round
                by = version_writer(self.conn, *key_for_path(self.conn, p), f.hash)
                with origin(operation="conflict copy", user=by or None):
                    self._import(cp, f, out)
                if cp in copies_kept:
                    self._forget(cp)  # no file, no base: the next round writes it (not a deletion)
            for cp, (p, f) in file_copies.items():
                with origin(operation="conflict copy: the file's version"):
                    self._import(cp, f, out)
                out.disk_hashes[cp] = f.hash
            for p, kind in conflicts:
                if p in changed_since or (kind in _KEEP_BRAIN and p not in no_base_written):
                    continue
                if kind in _KEEP_BRAIN:
                    cp = next(c for c, (orig, _) in file_copies.items() if orig == p)
                else:
                    cp = next((c for c, (orig, _) in copies.items() if orig == p), None)
                row = {"path": p, "copy_path": cp, "kind": kind, "file_hash": D.get(p), "db_hash": S.get(p), "base_hash": B.get(p)}
                self.conn.execute(
                    "INSERT INTO sync_conflicts(path, copy_path, kind, file_hash, db_hash, base_hash) VALUES (:path, :copy_path, :kind, :file_hash, :db_hash, :base_hash)", row
                )
                out.conflicts.append(row)
                # whose version the brain held (a teammate's save, an agent's put): named in the line
                who = version_writer(self.conn, *key_for_path(self.conn, p), S[p]) if S.get(p) else ""
                whose = f" ({who}'s)" if who else ""
                if kind == "both-changed":
                    kept = " (in the brain only: the folder refuses writes)" if cp in copies_kept else ""
                    self._log(f"! conflict {p}: the file's version kept, the brain's version{whose} saved as {cp}{kept}")
                elif kind in _KEEP_BRAIN:
                    self._record(p, no_base_written[p], S[p])
                    out.disk_hashes[p] = S[p]
                    if kind == "no-base":
                        self._log(f"! conflict {p}: the brain's version{whose} kept (this folder had never synced it), the file's version saved as {cp}")
                    else:
                        self._log(f"! conflict {p}: the file was saved from an older version and does not merge with a newer write through gbrain; "
                                  f"the brain's version{whose} kept, your save saved as {cp}")
                elif kind == "deleted-on-disk":
                    if p in written:
                        self._record(p, written[p], S[p])
                        out.disk_hashes[p] = S[p]
                    self._log(f"! conflict {p}: deleted on disk but changed in the brain{f' by {who}' if who else ''}; file restored")
                else:
                    gone = self.conn.execute("SELECT writer FROM history WHERE kind = ? AND name = ? AND op = 'delete' ORDER BY version DESC LIMIT 1",
                                             key_for_path(self.conn, p)).fetchone() if has_writer(self.conn) else None
                    self._log(f"! conflict {p}: deleted in the brain{f' by {gone[0]}' if gone and gone[0] else ''} but changed on disk; page restored from the file")
            undone = None  # (_undone_paths, read once in this round when needed)
            for p, f in written.items():
                if p in to_write:
                    self._record(p, f, S[p])
                    out.disk_hashes[p] = S[p]
                    if p in put_back:
                        out.put_back.append(p)
                        self._log(f"← db {slug_for_path(p) if db[p][1] == 'page' else p} (put back)")
                        continue
                    out.exported.append(p)
                    if p in plan.older:
                        out.old_replaced.append(p)
                        self._log(f"← db {slug_for_path(p) if db[p][1] == 'page' else p} (the file held an older version; it is in the history)")
                    else:
                        self._log(f"← db {slug_for_path(p) if db[p][1] == 'page' else p}")
                    back = None
                    if B.get(p) is None and db[p][1] == "page":  # new to this folder: a note it deleted, brought back?
                        undone = self._undone_paths(undone)
                        back = self._delete_undone(p, undone)
                    if back is not None:
                        self._log(f"! {p}: you deleted it, but {back['by'] or 'someone'} had edited it meanwhile: it is back with that edit "
                                  f"(`gbrain delete {cmd_arg(slug_for_path(p))}` deletes it again)")
                    lost = self._overruled(p, B.get(p))
                    if lost is not None:
                        out.overruled.append(lost)
                        who, how = lost["kept_by"], lost.get("kept_origin")
                        self._log(f"! {p}: your save conflicted with {how}; that {how.rsplit(' ', 1)[-1]}'s version was kept, yours is in {lost['copy_path']}" if how else
                                  f"! {p}: your save conflicted with {who}'s; {who}'s version was kept, yours is in {lost['copy_path']}" if who else
                                  f"! {p}: your save conflicted with another save; that version was kept, yours is in {lost['copy_path']}")
                    else:
                        dropped = self._save_dropped(p, B.get(p), S[p], f.data)
                        if dropped is not None:
                            out.saves_dropped.append(dropped)
                            self._log(_dropped_words(dropped, slug_for_path(p) if db[p][1] == "page" else p))
            for p, data in removed.items():
                # the file's bytes are the brain's version at the base, so its history has them;
                # unless they predate history or were pruned: then they become a version of it.
                # A page renamed in the brain (another folder's sync or watch saw the rename)
                # lives on under its new name: its old file is no deletion, nothing is trashed
                key = key_for_path(self.conn, p)
                hx = data.hx if isinstance(data, HashOnly) else sha256(data)
                to = moved_away(self.conn, *key, hx)
                # bytes a `gbrain purge` removed on purpose (the page deleted in the brain, then
                # purged, before this folder synced): kept, they would undo the purge
                purged = to is None and self._purged(hx)
                if to is None and not purged:
                    with origin(operation="deleted in brain"):
                        keep_version(self.conn, *key, p, data, "deleted in brain", hx=data.hx if isinstance(data, HashOnly) else None)
                self._forget(p)
                out.removed.append(p)
                if purged:
                    out.purged_removed.append(p)
                    self._log(f"← db (deleted) {p}: removed without a copy, its text was purged (`gbrain config get purge_log`)")
                    continue
                if to is not None:
                    if key[0] == "page":  # the new name's path: where the file is written
                        r = self.conn.execute("SELECT path FROM pages WHERE slug = ?", (to,)).fetchone()
                        to = r[0] if r else to
                    out.moved_in_brain.append((p, to))
                # a page by its slug, as `gbrain delete` and `gbrain trash` name it (a file by its path)
                self._log(f"← db (deleted) {p} → trash: `gbrain restore {cmd_arg(key[1] if key[0] == 'page' else p)}` brings it back" if to is None
                          else f"← db (moved in the brain) {p} → {to}")
            for p, f in settle_rows:
                if f is None:
                    self._forget(p)
                else:
                    self._record(p, f, f.hash)
            for p, data in echo_saved.items():
                if self._purged(sha256(data)):
                    continue  # a version a purge removed: kept, it would undo the purge
                with origin(operation="older version on disk replaced"):
                    keep_version(self.conn, *key_for_path(self.conn, p), p, data, "older brain version on disk, replaced")
            for old_sc, new_sc, pid in out.sidecar_moves:
                self._move_sidecar(old_sc, new_sc, pid, out)
            if out.page_moves:
                # (the folders holding a copy, read once: a folder renamed whole is N moves, and
                # copy_renames scans every stored path; a page's copies are in its folder or its .raw)
                held = {posixpath.dirname(p) for (p,) in self.conn.execute(
                    "SELECT path FROM pages WHERE path LIKE '%onflict%' UNION ALL SELECT path FROM files WHERE path LIKE '%onflict%'")
                    if copy_mark(p) is not None}
                for src, dst in out.page_moves:
                    d = posixpath.dirname(src)
                    if d in held or posixpath.join(d, ".raw") in held:
                        held |= {posixpath.dirname(n) for _, n in self._move_copies(src, dst, out)}
            # move the cursor: past what we consumed, and past our own rows when nobody else wrote
            tx_max = self.conn.execute("SELECT COALESCE(MAX(seq), 0) FROM change_log").fetchone()[0]
            new_cur = max(cur, base_seq)
            if tx_start_seq <= new_cur:  # nobody else wrote since: every newer row is our own
                new_cur = max(new_cur, tx_max)
            self.conn.execute("UPDATE sync_root SET cursor = ?, synced_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now') WHERE client = ?", (new_cur, self.client))
            # the log is kept until every live client (folder) has applied it; clients unseen
            # for longer than sync_client_expire_days are expired first
            expire_sync_clients(self.conn)
        self._finish(out, paths, disk, removed.keys() | old_removed.keys(), copies)
        return out

    def _write_merge(self, p: str, merged: bytes | None, f: DiskFile | None, written: dict[str, DiskFile], kept: dict[str, DiskFile], out: Outcome) -> None:
        """Inside the round's transaction (no other writer can commit before it records them):
        write the merge ``merged`` to the file ``p`` when it still is ``f``, the file the round
        planned from, into ``written`` (path → the written file); a folder that refuses the write
        puts it in ``kept`` (the merge becomes the page, the file keeps its bytes as their base);
        a file saved again since is left (:data:`CHANGED_MEANWHILE`: merged again next round)."""
        assert merged is not None
        if not self._still_as_planned(out, p, f):
            return
        try:
            if not atomic_write(Path(self._abs(p)), merged, unchanged=self._planned(f)):
                out.unreadable.append((p, CHANGED_MEANWHILE))
                return
        except OSError as e:
            note_refused(out, p, e)
            kept[p] = DiskFile(p, len(merged), 0, sha256(merged), merged)
            return
        written[p] = self._stat_written(p, merged)

    def _keep_files_as_copies(self, paths: list[str], disk: dict[str, DiskFile], D: dict, S: dict, B: dict, db: dict,
                              copies: dict, to_import: list[str], now: float, out: Outcome,
                              src_of: dict[str, str] | None = None) -> tuple[dict[str, tuple[str, DiskFile]], dict[str, DiskFile]]:
        """Carry out the ``no-base`` conflicts of ``paths`` on disk: each file's bytes are written
        to a conflict copy (a copy a round that died already wrote is taken instead), then the
        brain's version to the path. Returns ``({copy: (path, copy's DiskFile)}, {path: the
        written DiskFile})``; a path whose file changed meanwhile, or whose brain bytes changed,
        is left as it was (its copy removed again) and retried by a later round. ``src_of``: the
        brain's path of a path that is a move's new name (the page still at its old path)."""
        file_copies: dict[str, tuple[str, DiskFile]] = {}
        done: dict[str, DiskFile] = {}
        for p in paths:
            f = disk[p]
            if not self._still_as_planned(out, p, f):
                continue
            left = next((q for q in sorted(D) if D[q] == D[p] and q != p and q not in S and q not in B and q not in copies
                         and q not in file_copies and is_conflict_copy_of(q, p)), None)
            if left is not None:  # written by a round that died before recording it
                if left in to_import:
                    to_import.remove(left)
                cf = disk[left]
                out.cleaned.append(f"{left} (conflict copy of a sync that died; taken as this conflict's copy)")
            else:
                cp = conflict_copy_path(p, now, lambda c: c in db or c in disk or os.path.lexists(self._abs(c)) or c in copies or c in file_copies)
                try:
                    cf = self._copy_file(f, cp, D[p])
                except OSError as e:
                    note_refused(out, p, e)  # both versions stay where they are
                    continue
                if cf is None:
                    out.unreadable.append((p, CHANGED_MEANWHILE))
                    continue
                left = cp
            src = (src_of or {}).get(p, p)
            try:
                w = self._write_out(src, p, S[src], out, f)
            except OSError as e:
                note_refused(out, p, e)
                w = None
            if w is None:  # the brain changed since: the file stays; a later round decides again
                if left not in disk:
                    try:
                        os.unlink(self._abs(left))
                    except OSError:
                        pass
                continue
            file_copies[left] = (p, cf)
            done[p] = w
        return file_copies, done

    def _copy_file(self, f: DiskFile, dst: str, hx: str) -> DiskFile | None:
        """Copy the file ``f`` (planned with hash ``hx``) to ``dst`` atomically, streamed when big;
        the copy's :class:`DiskFile`, or None (nothing left at ``dst``) when the bytes read were
        not ``hx``."""
        if f.data is not None or not blobs.is_big(f.size):
            data = f.data
            if data is None:
                data, _ = self.read_stable(f)
            if data is None or sha256(data) != hx:
                return None
            atomic_write(Path(self._abs(dst)), data)
            return self._stat_written(dst, data)

        def pieces():
            with blobs.open_nofollow(self._abs(f.path)) as fh:
                while chunk := fh.read(1 << 20):
                    yield chunk

        atomic_write(Path(self._abs(dst)), pieces())
        try:
            got, _ = blobs.hash_file(self._abs(dst))
        except FileNotFoundError:  # deleted the moment it appeared: the file at f.path is left as it is
            return None
        if got != hx:
            os.unlink(self._abs(dst))
            return None
        st = self._lstat_written(dst)
        return DiskFile(dst, st.st_size if st else f.size, change_stamp(st) if st else 0, hx, None)

    def vanished_folders(self, to_trash: list[str], disk: dict | None) -> list[tuple[str, int]]:
        """Folders (``''`` for the root, else ``'a/b/'``) from which a round would trash synced
        markdown files (``to_trash``) that either leave no markdown file in the folder on disk
        (only ``.DS_Store``, ``.obsidian/``, attachments…) and are, with the ones :attr:`held`
        back there, at least :data:`MASS_TRASH`; or are at least :data:`MASS_TRASH` and
        :data:`MASS_SHARE` or more of its synced markdown files (``sync_state``, this client;
        held ones and folders of the first kind left out): ``[(folder, markdown files gone)]``,
        outermost folders of the first kind, then the others, each narrowed to the deepest
        folder holding all of its gone files. ``disk`` is the full scan when there is one; else the folders are looked at
        on disk."""
        return [(pre, n) for pre, n, _, _ in self._vanished(to_trash, disk)]

    def _vanished(self, to_trash: list[str], disk: dict | None) -> list[tuple[str, int, int, bool]]:
        """:meth:`vanished_folders` as ``(folder, gone, synced there, markdown left there)``."""
        per: dict[str, int] = {}
        for p in to_trash:
            if is_markdown(p):
                for pre in _prefixes(p):
                    per[pre] = per.get(pre, 0) + 1
        held: dict[str, int] = {}
        for p in self.held:
            if is_markdown(p):
                for pre in _prefixes(p):
                    held[pre] = held.get(pre, 0) + 1
        big = [pre for pre in per if per[pre] + held.get(pre, 0) >= MASS_TRASH]
        if not big:
            return []
        synced: dict[str, int] = dict.fromkeys(big, 0)
        for (q,) in self._tuples("SELECT path FROM sync_state WHERE client = ?", (self.client,)):
            if is_markdown(q):
                for pre in _prefixes(q):
                    if pre in synced:
                        synced[pre] += 1

        def left(pre: str) -> bool:
            if disk is not None:
                return any(q.startswith(pre) and is_markdown(q) for q in disk)
            return self._markdown_left(pre)

        order = sorted(big, key=lambda x: (x.count("/"), x))
        out: list[tuple[str, int, int, bool]] = []
        # 1. folders with no markdown left (an unmounted drive or sub-volume): outermost only
        for pre in order:
            if not any(pre.startswith(o) for o, *_ in out) and not left(pre):
                out.append((pre, per[pre] + held.get(pre, 0), synced[pre], False))
        # 2. most of a folder at once, besides what step 1 explains (a folder emptied inside it
        #    counts neither as gone nor as synced there) and the notes held back already (judged
        #    when they went: this round is judged against the notes still there)
        empty = [o for o, *_ in out]
        for pre in order:
            if any(pre.startswith(o) for o, *_ in out):
                continue
            inner = [o for o in empty if o.startswith(pre)]
            gone = per[pre] - sum(per.get(o, 0) for o in inner)
            alive = synced[pre] - held.get(pre, 0) - sum(synced[o] - held.get(o, 0) for o in inner)
            if gone < MASS_TRASH or gone < MASS_SHARE * alive:
                continue
            # named by the deepest folder holding every note gone from it (a prefix in `big` too)
            lost = [p for p in to_trash if p.startswith(pre) and is_markdown(p) and not p.startswith(tuple(inner))]
            narrow = posixpath.commonpath(["/" + posixpath.dirname(p) for p in lost]).lstrip("/")
            narrow = narrow + "/" if narrow else ""
            if narrow not in synced or not narrow.startswith(pre) or inner:
                narrow = pre
            else:
                alive = synced[narrow] - held.get(narrow, 0)
            if any(o == narrow for o, *_ in out):  # an outer folder's same notes, narrowed here already (root and a/ → a/x/)
                continue
            out.append((narrow, gone, alive, True))
        return out

    def _markdown_left(self, prefix: str) -> bool:
        """Whether any markdown file (not a temp file, not in a VCS folder) is under ``prefix``."""
        top = os.path.join(str(self.root), *prefix.strip("/").split("/")) if prefix else str(self.root)
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames[:] = [d for d in dirnames if d not in VCS_DIRS and not os.path.islink(os.path.join(dirpath, d))]
            if any(is_markdown(f) and not is_temp_name(f) for f in filenames):
                return True
        return False

    def _in_obsidian_trash(self, paths: list[str]) -> set[str]:
        """The ``paths`` (gone from the folder) whose file stands in the vault's ``.trash/`` folder,
        where Obsidian moves what a person deletes: ``.trash/`` + the path less any number of its
        leading folders (a deleted folder keeps its own name there, a note keeps its name), with
        the size the last sync recorded. Only paths Obsidian could have moved: none when there is
        no ``.trash/`` folder."""
        trash = os.path.join(str(self.root), ".trash")
        if not paths or not os.path.isdir(trash):
            return set()
        sizes = {p: st[0] for p, st in self._state(paths).items()}
        out = set()
        for p in paths:
            parts = p.split("/")
            for i in range(len(parts)):
                try:
                    st = os.lstat(os.path.join(trash, *parts[i:]))
                except OSError:
                    continue
                if st.st_size == sizes.get(p, -1):
                    out.add(p)
                    break
        return out

    def _check_vanished(self, to_trash: list[str], disk: dict | None) -> str | None:
        """Raise :class:`MassDeleteRefused` when :meth:`vanished_folders` finds any, unless git
        made the deletions (:meth:`_by_git`): then return the line that says so (None when
        nothing was found). The message
        says what is true: nothing was trashed, or how many of those folders' notes this engine
        (a watch) trashed in earlier rounds and how to bring them back; and how to get the files
        back instead (``--put-back``) or confirm the deletion (``--confirm-delete``)."""
        # notes Obsidian moved into its own trash (`.trash/`, ignored by default: deleting a note
        # or a folder there is Obsidian's "move to Obsidian trash") were deleted on purpose
        in_trash = self._in_obsidian_trash([p for p in to_trash if is_markdown(p)])
        gone = self._vanished([p for p in to_trash if p not in in_trash] if in_trash else to_trash, disk)
        if not gone:
            return None
        pres = tuple(pre for pre, *_ in gone)
        by_git = self._by_git([p for p in to_trash if p.startswith(pres)])
        if by_git:
            n = sum(1 for p in to_trash if p.startswith(pres) and is_markdown(p))
            where = ", ".join((pre or "the folder's root") for pre in pres)
            line = (f"{by_git}: {n:,} notes removed from {where}, kept in history "
                    "(git's and the brain's: `gbrain trash` lists them, `gbrain restore SLUG` brings one back)")
            self._log(f"- {line}")
            return line
        parts = []
        for pre, n, m, left in gone:
            where = str(self.root / pre.rstrip("/")) if pre else str(self.root)
            if left:
                parts.append(f"{n:,} of the {m:,} synced notes of {where} are gone at once")
            else:
                parts.append(f"every synced note is gone from {where} ({n:,} notes), with no markdown left there")
        earlier = sum(1 for p in self.trashed_paths if is_markdown(p) and p.startswith(pres))
        if earlier:
            done = (f"nothing of them was trashed, but {earlier:,} other notes of {'that folder' if len(gone) == 1 else 'those folders'} were trashed "
                    "earlier, before the rest went (`gbrain trash` lists them, `gbrain restore SLUG` or `gbrain restore --all` brings them back)")
        else:
            done = "nothing was trashed"
        raise MassDeleteRefused(
            f"{'; '.join(parts)} (an unmounted drive, or deleted by mistake?); {done}. "
            f"To get the files back from the brain, run `gbrain sync {cmd_arg(self.root)} --put-back`; "
            f"if you deleted them on purpose, run `gbrain sync {cmd_arg(self.root)} --confirm-delete`",
            [(pre, n) for pre, n, *_ in gone],
            [p for p in to_trash if p.startswith(pres)],
        )

    def _by_git(self, paths: list[str]) -> str | None:
        """What git did (:func:`gitstate.describe`) when ``paths``, gone from the folder, are
        git's doing: the folder is in a git work tree, git moved since the last whole-tree sync
        (:attr:`git_base`: HEAD, its ref, ORIG_HEAD or the index changed) and git's index lists
        none of ``paths`` (a checkout, reset or ``git rm`` took them; an ``rm -rf`` or an
        unmounted drive leaves them in the index, or takes ``.git`` along). Else None: the guard
        refuses as it would without git. Reads ``.git`` by its files (:mod:`gitstate`)."""
        if self.git_base is None:
            return None
        now = gitstate.fingerprint(self.root)
        if not gitstate.moved(self.git_base, now):
            return None
        assert now is not None
        g = gitstate.find(self.root)
        if g is None or str(g.gitdir) != now["gitdir"]:
            return None
        tracked = gitstate.index_paths(g)
        if tracked is None:  # an index gbrain cannot read: git moved, which is what the guard asks
            return gitstate.describe(self.git_base, now)
        rel = os.path.relpath(os.path.realpath(self.root), g.top)
        pre = "" if rel == "." else rel.replace(os.sep, "/") + "/"
        if any((pre + p).encode("utf-8", "surrogateescape") in tracked for p in paths):
            return None
        return gitstate.describe(self.git_base, now, reflog_old=self._reflog_old(now["gitdir"]))

    def _reflog_old(self, gitdir: str) -> bool:
        """Whether HEAD's reflog is as an earlier round, over :data:`REFLOG_OLD_S` ago, first saw it
        at its end: its newest entry is no git command of these deletions."""
        seen = self._reflog_seen
        return (seen is not None and seen[0] is not None and seen[0] == gitstate.reflog_stamp(gitdir)
                and self.clock() - seen[1] > REFLOG_OLD_S)

    def _see_reflog(self) -> None:
        """A round ended: note HEAD's reflog's stat and when it was first seen (:meth:`_reflog_old`)."""
        if not self.git_base or not self.git_base.get("gitdir"):
            return
        st = gitstate.reflog_stamp(self.git_base["gitdir"])
        if self._reflog_seen is None or self._reflog_seen[0] != st:
            self._reflog_seen = (st, self.clock())

    def _fid(self, f: DiskFile) -> int | None:
        """``f``'s file id (:func:`~gbrain.sync.scan.file_id`), from an lstat when not known yet
        (None when it is gone or is not the file that was hashed)."""
        if f.fid is None:
            try:
                st = os.lstat(self._abs(f.path))
            except OSError:
                return None
            if st.st_size == f.size and change_stamp(st) == f.mtime_ns:
                f.fid = file_id(st)
        return f.fid

    def _similar(self, states: dict[str, PathState], disk: dict[str, DiskFile]) -> dict[tuple[str, str], float]:
        """How alike the texts of this round's vanished pages and new markdown notes are, for the
        pairs worth asking (:mod:`gbrain.sync.similar`): the base text of each page gone from disk
        (the version this folder last had, which the disk side edited: the brain's text when the
        brain did not edit the page since the base, else the base's text from the history,
        :meth:`_base_bytes`), against each new note whose bytes are not a vanished path's base or
        brain text (those pair by hash); plus every pair sharing a file id. A page the brain
        edited whose base text the history no longer has is scored, with the brain's text, only
        against a new note with its file id (the rule before the base was looked up). Notes over
        :data:`SIMILAR_MAX_BYTES` are left out. ``{(gone, new): similarity}``."""
        gone = [p for p, st in states.items() if st.disk is None and st.base is not None and st.brain is not None and st.brain_kind == "page"]
        if not gone:
            return {}
        hashes = {states[q].base for q in gone} | {states[q].brain for q in gone}
        new = [p for p, st in states.items() if st.disk is not None and st.brain is None and st.base is None and st.disk_kind == "page"
               and st.disk not in hashes and disk[p].size <= SIMILAR_MAX_BYTES]
        if not new:
            return {}
        ids = {states[q].base_id: q for q in gone if states[q].base_id is not None}
        extra = [(ids[states[p].disk_id], p) for p in new if states[p].disk_id in ids]
        inode_only: set[str] = set()  # edited in the brain, no base text: the same file only
        gone_text: dict[str, str] = {}
        for q in sorted(gone):
            st = states[q]
            data = self.db_bytes(q) if st.brain == st.base else self._base_bytes(st.base, SIMILAR_MAX_BYTES)
            if data is None and st.brain != st.base and any(q == x for x, _ in extra):
                data = self.db_bytes(q)
                inode_only.add(q)
            if data is not None and len(data) <= SIMILAR_MAX_BYTES:
                gone_text[q] = data.decode("utf-8", "replace")
        new_text = self._new_texts(new, disk)
        if not gone_text or not new_text:
            return {}
        copies = self._copies({p: states[p].disk for p in new_text}, set(gone))
        short = sim.shortlist({q: t for q, t in gone_text.items() if q not in inode_only}, {p: t for p, t in new_text.items() if p not in copies})
        return sim.score_pairs(gone_text, new_text, short, [(q, p) for q, p in extra if p not in copies])

    def _new_texts(self, new: list[str], disk: dict[str, DiskFile]) -> dict[str, str]:
        """The texts of the new notes ``new`` (paths) a move may pair, read as the scan hashed
        them: ``{path: text}`` (UTF-8, undecodable bytes replaced); a note that changed since its
        scan (its bytes no longer hash to ``f.hash``) or is gone is left out."""
        out: dict[str, str] = {}
        for p in new:
            f = disk[p]
            data = self.scanned_bytes(f)
            if data is None:
                continue
            out[p] = data.decode("utf-8", "replace")
        return out

    def _base_bytes(self, b: str, limit: int) -> bytes | None:
        """The bytes of the version whose sha256 is ``b`` (a base), from the history
        (``history_bodies`` by hash), or None: not there (pruned, or older than the history),
        bigger than ``limit`` bytes, or not those bytes."""
        r = self.conn.execute("SELECT id, size FROM history_bodies WHERE hash = ?", (b,)).fetchone()
        if r is None or (r[1] or 0) > limit:
            return None
        from ..core.history import body

        try:
            data = body(self.conn, r[0])
        except GBrainError:  # a body of its chain pruned: no base text
            return None
        return data if sha256(data) == b else None

    @contextmanager
    def _memory_follows_tx(self) -> Iterator[None]:
        """What this engine remembers of a round's writes (:attr:`trashed_paths`,
        :attr:`recent_trash`, :attr:`recent_new`: filled inside the round's transaction) follows
        that transaction: a round that raises (rolled back: a full disk, a cut Postgres connection,
        a failed commit) leaves them as they were before it. Else a later refused mass deletion
        counted notes still in the brain as "trashed earlier", and a new note could be paired with
        a page never trashed. (A commit cut after the server committed is rolled back here too:
        forgetting costs at most a move seen as a delete and a create.)"""
        kept = (set(self.trashed_paths), dict(self.recent_trash), dict(self.recent_new))
        try:
            yield
        except BaseException:
            for mine, before in zip((self.trashed_paths, self.recent_trash, self.recent_new), kept):
                mine.clear()
                mine.update(before)  # (in place: a caller may hold them)
            raise

    def _recent_trash(self) -> dict[str, Trashed]:
        """The pages of :attr:`recent_trash` (those older than :data:`RECENT_TRASH_S` dropped)
        still in the trash as this engine left them (the newest version of their name is the
        deletion at that path: not restored, no page written at that name since), by old path."""
        if not self.recent_trash:
            return {}
        now = self.clock()
        for p, (t, *_) in list(self.recent_trash.items()):
            if now - t > RECENT_TRASH_S:
                del self.recent_trash[p]
        newest: dict[str, tuple[str, str]] = {}
        slugs = sorted({slug_for_path(p) for p in self.recent_trash})
        for chunk, ph in in_parts(slugs):
            for name, op, path in self.conn.execute(
                    f"SELECT h.name, h.op, h.path FROM history h WHERE h.kind = 'page' AND h.name IN ({ph}) "
                    "AND h.version = (SELECT MAX(version) FROM history m WHERE m.kind = 'page' AND m.name = h.name)", chunk):
                newest[name] = (op, path)
        out: dict[str, Trashed] = {}
        for p, (_t, _pid, hx, fid) in list(self.recent_trash.items()):
            if newest.get(slug_for_path(p)) != ("delete", p):  # restored, or a page at its name since
                del self.recent_trash[p]
                continue
            out[p] = Trashed(hx, fid)
        live = {t.hash for t in out.values()}
        for hx in [h for h in self._trash_texts if h not in live]:
            del self._trash_texts[hx]
        return out

    def _note_created(self, p: str, f: DiskFile) -> None:
        """Remember the page this round created at ``p`` from a new note (:attr:`recent_new`)."""
        r = self.conn.execute("SELECT id, content_hash FROM pages WHERE path = ?", (p,)).fetchone()
        if r is not None and r[1] == f.hash:
            self.recent_new[p] = (self.clock(), r[0], r[1], self._fid(f))

    def _recent_new(self) -> dict[str, Created]:
        """The pages of :attr:`recent_new` (older than :data:`RECENT_TRASH_S` dropped) still as
        this engine created them: the row at the path with its id and text, one version of its
        name since (the creation, at that path), by path."""
        if not self.recent_new:
            return {}
        now = self.clock()
        out: dict[str, Created] = {}
        for p, (t, pid, hx, fid) in list(self.recent_new.items()):
            if now - t > RECENT_TRASH_S or not self._still_created(p, pid, hx):
                del self.recent_new[p]
                continue
            out[p] = Created(hx, fid)
        return out

    def _still_created(self, p: str, pid: int, hx: str) -> bool:
        """Whether the page at ``p`` is the row ``pid`` this engine created with text ``hx`` and
        nothing wrote its name since (its newest version is that creation, at ``p``)."""
        if not self.conn.execute("SELECT 1 FROM pages WHERE id = ? AND path = ? AND content_hash = ?", (pid, p, hx)).fetchone():
            return False
        r = self.conn.execute("SELECT op, path FROM history WHERE kind = 'page' AND name = ? ORDER BY version DESC LIMIT 1", (slug_for_path(p),)).fetchone()
        return r is not None and r[0] == "create" and r[1] == p

    def _created_similar(self, states: dict[str, PathState], B: dict, created: dict[str, Created]) -> dict[tuple[str, str], float]:
        """How alike the base texts of this round's vanished pages and the texts of the pages of
        ``created`` are, for the pairs worth asking (as :meth:`_trashed_similar`):
        ``{(old path, new path): similarity}``."""
        hashes = {c.hash for c in created.values()}
        gone = [p for p, st in states.items() if st.disk is None and st.brain is not None and st.brain == st.base
                and st.brain_kind == "page" and st.base not in hashes]
        if not gone:
            return {}
        gone_text: dict[str, str] = {}
        for q in sorted(gone):
            data = self._base_bytes(B[q], SIMILAR_MAX_BYTES)
            if data:
                gone_text[q] = data.decode("utf-8", "replace")
        new_text: dict[str, str] = {}
        for p in sorted(created):
            data = self.db_bytes(p)
            if data is not None and len(data) <= SIMILAR_MAX_BYTES:
                new_text[p] = data.decode("utf-8", "replace")
        if not gone_text or not new_text:
            return {}
        ids = {c.file_id: p for p, c in created.items() if c.file_id is not None and p in new_text}
        extra = [(q, ids[states[q].base_id]) for q in gone_text if states[q].base_id in ids]
        copies = self._copies({p: created[p].hash for p in new_text}, set(gone))
        short = sim.shortlist(gone_text, {p: t for p, t in new_text.items() if p not in copies})
        return sim.score_pairs(gone_text, new_text, short, [(q, p) for q, p in extra if p not in copies])

    def _copies(self, new: dict[str, str], skip: set[str]) -> set[str]:
        """The paths of ``new`` (path → content hash) whose bytes another live page has (not one
        at a path of ``skip``, the vanished ones): a copy of that note ("Make a copy", a
        duplicated file), never a merely similar vanished note moved (notes made from one
        template look alike: trial 31 paired a copy of `Linker 8` with a deleted `Linker 9`,
        0.72; the copy may even get the deleted file's inode number). One scan of the
        pages' hashes (there is no index on them alone), in a round that has such pairs to ask."""
        want = set(new.values())
        holders: dict[str, set[str]] = {}
        for q, hx in self._tuples("SELECT path, content_hash FROM pages"):
            if hx in want and q not in skip:
                holders.setdefault(hx, set()).add(q)
        return {p for p, hx in new.items() if holders.get(hx, set()) - {p}}

    def _adopt(self, old: str, new: str, out: Outcome) -> bool:
        """An ``adopted_moves`` pair (inside the open transaction): the page at ``old`` (its file
        deleted) takes ``new``, where this engine created a page from the same note earlier: that
        page's rows and its short history (its creation; the removal written here) go, the old
        page's row moves to ``new`` with its id and the note's text, and its history continues
        with the move (``to NEW`` / ``from OLD``, the rows a rename writes), so the note's bytes
        are the move's version. False (nothing written) when the created page or the file at
        ``new`` is no longer as created, or ``old``'s page is not there: the caller trashes it."""
        c = self.conn
        ent = self.recent_new.get(new)
        row = c.execute("SELECT id FROM pages WHERE path = ?", (old,)).fetchone()
        if ent is None or row is None or not self._still_created(new, ent[1], ent[2]):
            self.recent_new.pop(new, None)
            return False
        f, why = self.stat_path(new)
        if f is None:
            return False
        try:
            with blobs.open_nofollow(self._abs(new)) as fh:
                data = fh.read()
        except OSError:
            return False
        if sha256(data) != ent[2]:
            return False  # changed on disk since: a later round imports it over the created page
        f.hash, f.data = ent[2], data
        pid, old_slug, new_slug = row[0], slug_for_path(old), slug_for_path(new)
        del self.recent_new[new]
        first = c.execute("SELECT MAX(version) FROM history WHERE kind = 'page' AND name = ?", (new_slug,)).fetchone()[0]
        with origin(operation="file moved"):
            self.brain.remove_page_row(old)
            self._promote_twin(old)
            self.brain.remove_page_row(new)
            # the created page's short life (its creation and this removal) leaves the history:
            # its one text is the move's version below
            ids = [r[0] for r in c.execute("SELECT id FROM history WHERE kind = 'page' AND name = ? AND version >= ?", (new_slug, first))]
            from ..core.history import drop_versions, stage_drops

            stage_drops(c, ids)
            drop_versions(c)
            if not self._import(new, f, out, page_id=pid):
                raise GBrainError(f"could not store {new} as the page moved from {old}")
        self._moved_page_history(old, new, pid, out)
        out.moved.append((old, new))
        out.disk_hashes[new] = ent[2]
        self._log(f"> {move_text(old, new)} (moved: the note was written there first, {self.clock() - ent[0]:.1f} s before its deletion)")
        return True

    def _moved_page_history(self, old: str, new: str, pid: int, out: Outcome) -> None:
        """A page brought back or adopted at path ``new`` (id ``pid``) as moved from ``old``: its
        history reads as a move (``record_page_move``), and every ``.raw`` sidecar left at the old
        name (``ana.JSON`` too) follows it as a rename's do (``Brain.sidecar_renames``,
        ``out.sidecar_moves``: each unless its new name is stored, ``_move_sidecar``)."""
        record_page_move(self.conn, slug_for_path(old), slug_for_path(new))
        out.sidecar_moves += [(o, n, pid) for o, n in self.brain.sidecar_renames(None, old, new)]
        out.page_moves.append((old, new))

    def _still_trashed(self, p: str) -> bool:
        """Whether the page at ``p`` is deleted and nothing was stored at its name or path since."""
        r = self.conn.execute("SELECT op, path FROM history WHERE kind = 'page' AND name = ? ORDER BY version DESC LIMIT 1", (slug_for_path(p),)).fetchone()
        return r is not None and r[0] == "delete" and r[1] == p and not self.conn.execute(
            "SELECT 1 FROM pages WHERE path = ? UNION ALL SELECT 1 FROM files WHERE path = ?", (p, p)).fetchone()

    def _trashed_similar(self, states: dict[str, PathState], disk: dict[str, DiskFile], trashed: dict[str, Trashed]) -> dict[tuple[str, str], float]:
        """How alike the last texts of the pages of ``trashed`` (from the history, by hash) and
        this round's new markdown notes are, for the pairs worth asking (as :meth:`_similar`):
        ``{(old path, new path): similarity}``."""
        hashes = {t.hash for t in trashed.values()}
        new = [p for p, st in states.items() if st.disk is not None and st.brain is None and st.base is None and st.disk_kind == "page"
               and st.disk not in hashes and disk[p].size <= SIMILAR_MAX_BYTES]
        if not new:
            return {}
        gone_text: dict[str, str] = {}
        for q, t in sorted(trashed.items()):
            text = self._trash_texts.get(t.hash)
            if text is None:
                data = self._base_bytes(t.hash, SIMILAR_MAX_BYTES)
                text = self._trash_texts[t.hash] = data.decode("utf-8", "replace") if data else ""
            if text:
                gone_text[q] = text
        new_text = self._new_texts(new, disk)
        if not gone_text or not new_text:
            return {}
        ids = {t.file_id: q for q, t in trashed.items() if t.file_id is not None and q in gone_text}
        extra = [(ids[states[p].disk_id], p) for p in new_text if states[p].disk_id in ids]
        copies = self._copies({p: states[p].disk for p in new_text}, set())
        short = sim.shortlist(gone_text, {p: t for p, t in new_text.items() if p not in copies})
        return sim.score_pairs(gone_text, new_text, short, [(q, p) for q, p in extra if p not in copies])

    def _revive(self, old: str, new: str, f: DiskFile, out: Outcome) -> bool | None:
        """A ``revived_moves`` pair: the page this engine trashed from ``old`` comes back at
        ``new`` with the file's text (inside the open transaction): its row takes its old id
        again, and its history continues: the deletion becomes the move away (``to NEW``) and the
        new version the move in (``from OLD``), as a rename writes them, so it leaves the trash
        and ``history``/``diff`` read through; a ``.raw`` sidecar left at the old name follows
        it. None (nothing written) when the page is no longer as this engine trashed it (restored,
        a page at its name or id since): the caller imports the note as a new page. False when
        the file could not be read as hashed (a later round tries again)."""
        c = self.conn
        ent = self.recent_trash.get(old)
        new_slug, old_slug = slug_for_path(new), slug_for_path(old)
        if ent is None or not self._still_trashed(old) or classify(new, b"")[0] != "page" or c.execute(
                "SELECT 1 FROM pages WHERE id = ? OR slug = ? OR path = ?", (ent[1], new_slug, new)).fetchone():
            self.recent_trash.pop(old, None)
            return None
        pid = ent[1]
        # saved again at its own path (an editor's buffer after the delete): no move (trial 47)
        with origin(operation="file moved" if new != old else "file changed"):
            if not self._import(new, f, out, page_id=pid):
                return False
        del self.recent_trash[old]
        self.trashed_paths.discard(old)
        if new != old:
            if c.execute("SELECT 1 FROM pages WHERE id = ? AND path = ?", (pid, new)).fetchone():
                self._moved_page_history(old, new, pid, out)
            out.moved.append((old, new))
            self._log(f"> {move_text(old, new)} (moved: its page back from the trash, deleted {self.clock() - ent[0]:.1f} s before)")
        else:
            out.imported.append(new)
            self._log(f"+ {new} → db (its page back from the trash, deleted {self.clock() - ent[0]:.1f} s before)")
        return True

    def _widen_for_moves(self, paths: set[str], D: dict, S: dict, B: dict, db: dict, state: dict, disk: dict[str, DiskFile]) -> None:
        """A partial round (watch) may see a move's new path without its old one (a file moved
        into a folder created a moment earlier reaches watchdog as a delete plus a create, in
        different batches). For each new path, look up a synced path whose recorded file id
        (device, inode) is the new file's, else one whose base hash is the new file's, that is
        gone from disk (not evicted by iCloud Drive, not excluded) while the brain still has it (unchanged, or edited: then the plan's
        ``edited_moves`` writes the brain's text to the new path), and add it."""
        for p in sorted(paths):
            h = D.get(p)
            if h is None or p in S or p in B:
                continue
            fid = self._fid(disk[p]) if p in disk else None
            rows = []
            if fid is not None:
                rows += self.conn.execute("SELECT path FROM sync_state WHERE client = ? AND file_id = ? AND path != ?", (self.client, fid, p)).fetchall()
            rows += self.conn.execute("SELECT path FROM sync_state WHERE client = ? AND base_hash = ? AND path != ?", (self.client, h, p)).fetchall()
            for (src,) in rows:
                if src in paths:
                    continue
                f, why = self.stat_path(src)
                if f is not None or why is not None or self.excluded(src) or evicted(self.root, src):
                    continue  # (an evicted note, iCloud's placeholder in its place, went nowhere)
                r = self.conn.execute("SELECT content_hash, 'page' FROM pages WHERE path = ? UNION ALL SELECT content_hash, 'file' FROM files WHERE path = ?", (src, src)).fetchone()
                if r is None:
                    continue
                st = self.conn.execute("SELECT size, mtime_ns, disk_hash, base_hash, file_id FROM sync_state WHERE client = ? AND path = ?", (self.client, src)).fetchone()
                paths.add(src)
                db[src] = (r[0], r[1])
                state[src] = tuple(st)
                S[src] = r[0]
                B[src] = st[3]
                break

    def _finish(self, out: Outcome, paths: set[str], disk: dict[str, DiskFile], removed: set[str], copies: dict) -> None:
        """Fill ``out.disk_hashes`` with the final disk hash of every path considered (``removed``:
        paths whose file this round removed)."""
        self._see_reflog()
        for p in paths:
            if p in out.disk_hashes or p in removed:
                continue
            if p in disk and disk[p].hash is not None:
                out.disk_hashes[p] = disk[p].hash
        for cp, (p, data) in copies.items():
            out.disk_hashes[cp] = sha256(data)
        for p in out.trashed:
            out.disk_hashes.pop(p, None)
        # a path moved away is gone from the folder, unless a new note at its name was imported
        # this round (a replaced move: `mv a.md b.md && echo … > a.md`) or another page moved
        # there (notes that swapped names): its hash stays
        again = set(out.imported) | {dst for _, dst in out.moved}
        for src, dst in out.moved:
            if src not in again:
                out.disk_hashes.pop(src, None)

    def _db_side_in_tx(self, paths: set[str]) -> tuple[dict[str, str], int]:
        """Inside the write transaction: ``path → hash`` again, and MAX(change_log.seq) at its start."""
        seq = self.conn.execute("SELECT COALESCE(MAX(seq), 0) FROM change_log").fetchone()[0]
        out: dict[str, str] = {}
        for chunk, ph in in_parts(sorted(paths)):
            for r in self.conn.execute(f"SELECT path, content_hash FROM files WHERE path IN ({ph})", chunk):
                out[r[0]] = r[1]
            for r in self.conn.execute(f"SELECT path, content_hash FROM pages WHERE path IN ({ph})", chunk):
                out[r[0]] = r[1]
        return out, seq

    def _write_out(self, src: str, dst: str, hx: str, out: Outcome, f: DiskFile | None) -> DiskFile | None:
        """Write the brain's bytes at ``src`` to the file ``dst`` atomically (a big file streamed
        from its pieces) when they still have the hash ``hx`` the round planned with and ``dst``
        still holds the file ``f`` the round planned from (None: no file); the written file's
        :class:`DiskFile`, or None (nothing written) when the brain changed since, or the file
        did (noted as :data:`CHANGED_MEANWHILE`: a save the round has not read is never
        written over, :func:`exporter._swap_in`)."""
        big = self._db_pieces(src)
        if big is not None:
            if big[0] != hx:
                return None
            if not atomic_write(Path(self._abs(dst)), blobs.iter_pieces(self.conn, big[0]), unchanged=self._planned(f)):
                out.unreadable.append((dst, CHANGED_MEANWHILE))
                return None
            st = self._lstat_written(dst)
            return DiskFile(dst, st.st_size if st else 0, change_stamp(st) if st else 0, big[0], None)
        data = self.db_bytes(src)
        if data is None or sha256(data) != hx:
            return None
        if not atomic_write(Path(self._abs(dst)), data, unchanged=self._planned(f)):
            out.unreadable.append((dst, CHANGED_MEANWHILE))
            return None
        return self._stat_written(dst, data)

    @staticmethod
    def _planned(f: DiskFile | None) -> Callable[[os.stat_result | None], bool]:
        """The test a write gives :func:`atomic_write`: the file is still ``f`` (size and change
        stamp, as :meth:`_stat_is`; None: still no file)."""
        if f is None:
            return lambda st: st is None
        return lambda st: st is not None and st.st_size == f.size and change_stamp(st) == f.mtime_ns

    def _still_as_planned(self, out: Outcome, p: str, f: DiskFile | None, *, absent: str | None = None) -> bool:
        """Whether the file at ``p`` still has the stat (size and change stamp) the round was
        planned from, ``f`` (None: still no file there), and the path ``absent`` (a move's old
        path) still has none: the check before each write or removal a round carries out on
        disk. When not, ``p`` is noted in ``out.unreadable`` as :data:`CHANGED_MEANWHILE` and
        False returned: the caller leaves it as it is, and a later round plans it again."""
        if self._stat_is(p, f) and (absent is None or self._stat_is(absent, None)):
            return True
        other = self._held_as(p) if f is None else None
        out.unreadable.append((p, CHANGED_MEANWHILE if other is None else
                               f"not written: this folder ignores letter case (or Unicode form), and {shown(other)} holds that name; "
                               "rename one of the two pages (`gbrain lint --check portable_names`)"))
        return False

    def _held_as(self, p: str) -> str | None:
        """The other spelling under which the folder holds ``p`` (``Note.md`` for ``note.md`` on a
        disk that ignores case: an lstat of ``p`` finds a file whose name, as listed, is not
        ``p``'s), or None: no file there, or one of that very name."""
        d, _, name = p.rpartition("/")
        try:
            os.lstat(self._abs(p))
            names = os.listdir(self._abs(d) if d else str(self.root))
        except OSError:
            return None
        if name in names:
            return None
        key = slug_key(name)
        hit = next((n for n in names if slug_key(n) == key), None)
        return None if hit is None else (f"{d}/{hit}" if d else hit)

    def _stat_is(self, p: str, f: DiskFile | None) -> bool:
        """True when the file at ``p`` has the stat of ``f`` (None: there is no file)."""
        try:
            st = os.lstat(self._abs(p))
        except FileNotFoundError:
            st = None
        return self._planned(f)(st)

    def _stale_view(self, p: str, f: DiskFile, s: str, at: str | None = None) -> tuple[bytes, bytes | None] | None:
        """Whether the file change at ``p`` (brain and base both ``s``) is a stale save: the file
        saved from a version older than the one gbrain last wrote to it. Gathers the versions and
        asks :func:`gbrain.sync.merge.stale_view`. Looked at only when the brain's newest version
        (``s``) was written through gbrain, not from this folder's file (:func:`_from_file`: a
        version another folder's sync or watch imported from its file, recorded with that
        folder's sync client, reached this file through gbrain, as an agent's write does), at
        most :data:`STALE_WINDOW_S` ago (by the database's clock); the ancestors tried are the
        versions before it back to (and including) the last one that came from this folder's
        file, at most :data:`STALE_VERSIONS`. Returns ``(the file's bytes, the merged bytes or None when the
        merge conflicts)``, or None (not a stale save: the plain rules apply). ``at``: the path of
        the file ``f`` when it is not ``p`` (a note moved and saved under a new name, a
        ``changed_moves`` pair: the page and its history are still at ``p``; trial 55)."""
        if f.size > MERGE_MAX_BYTES:
            return None
        sidecar = not is_markdown(p) and page_slug_for_sidecar(p) is not None  # a .raw sidecar: its history is the file's (trial 47)
        if sidecar:
            kind, name = "file", p
        else:
            r = self.conn.execute("SELECT slug FROM pages WHERE path = ?", (p,)).fetchone()
            if r is None:
                return None
            kind, name = "page", r[0]
        older_ids, rows = self._older_ids(kind, name, s)
        if not older_ids:
            return None
        data = self.scanned_bytes(f)
        if data is None:
            return None
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:  # not a page any more: the plain rules (import as a file)
            return None
        if self._git_wrote(at or p, data):  # `git stash`/`checkout -f`/`reset --hard`/`restore`: the user's
            return None
        from ..core.history import body

        brain_bytes = self.db_bytes(p)
        if brain_bytes is None:
            return None
        if not sidecar and _merged_buffer_again(rows, sha256(data), self.client):
            # the buffer the newest version merged, saved again (an editor that does not reload,
            # as its first save showed): no undo of the merge (stale_view's rule would take it for
            # one and drop the merged lines), merged again: the brain's version stays
            return data, brain_bytes
        older = [body(self.conn, i) for i in older_ids]
        view = stale_sidecar(data, brain_bytes, older) if sidecar else stale_view(data, brain_bytes, older, names=self._page_names())
        if view is None:
            return None
        return data, view.merged

    def _older_ids(self, kind: str, name: str, top: str, newer: int = 0, follow: bool = True) -> tuple[list[int], list]:
        """The body ids of the versions a stale save of ``name`` may have been made from: those
        before the version ``top`` (a sha256; the newest, or one of the ``newer`` versions after
        it), newest first, back to (and including) the last one that came from this folder's file,
        at most :data:`STALE_VERSIONS`; stopping at a deletion or a move. Empty when ``top``
        came from this folder's file, was written over :data:`STALE_WINDOW_S` ago, or is not
        among the newest ``newer + 1`` versions. With the history rows from ``top``'s on (body id,
        surface, operation, time, hash, client, op, detail). A page (or a page's ``.raw`` sidecar,
        ``kind`` ``file``) whose only version is its arrival by a move with ``top``'s text is
        looked up at its old name (``follow``: once)."""
        rows = self.conn.execute(
            "SELECT h.body_id, h.surface, h.operation, h.at, b.hash, h.client, h.op, h.detail FROM history h LEFT JOIN history_bodies b ON b.id = h.body_id "
            "WHERE h.kind = ? AND h.name = ? ORDER BY h.version DESC LIMIT ?", (kind, name, STALE_VERSIONS + 4 + newer)).fetchall()
        i = next((k for k, r in enumerate(rows[:newer + 1]) if r[4] == top), None)
        if i is not None and i == len(rows) - 1 and rows[i][6] == "move" and (rows[i][7] or "").startswith("from ") and follow:
            # the name's first version is its arrival by a move with the same text (a rename a
            # round saw before the editor's save of its older buffer): the versions are the old
            # name's, before its move away (trial 55, two rounds); a page's `.raw` sidecar moved
            # with it alike (an editor holding the old sidecar's buffer saves it under the new name)
            old = rows[i][7][len("from "):]
            prev = self.conn.execute(
                "SELECT b.hash FROM history h LEFT JOIN history_bodies b ON b.id = h.body_id WHERE h.kind = ? AND h.name = ? AND h.body_id IS NOT NULL "
                "ORDER BY h.version DESC LIMIT 1", (kind, old)).fetchone()
            if prev is not None and prev[0] == top:
                return self._older_ids(kind, old, top, newer + 1, follow=False)  # (+1: its move away, no body)
        if i is None or _from_file(rows[i][1], rows[i][2], rows[i][5], self.client):
            return [], []
        now = self.conn.execute("SELECT strftime('%Y-%m-%dT%H:%M:%fZ', 'now')").fetchone()[0]
        if _age_s(rows[i][3], now) > STALE_WINDOW_S:
            return [], []
        older_ids: list[int] = []
        seen = {top}
        for body_id, surface, operation, _at, hx, client, *_ in rows[i + 1:]:
            if body_id is None or len(older_ids) >= STALE_VERSIONS:
                break  # a deletion or a move: the file did not hold what came before
            if hx not in seen:
                seen.add(hx)
                older_ids.append(body_id)
            if _from_file(surface, operation, client, self.client):
                break
        return older_ids, rows[i:]

    def _page_name(self, word: str) -> str:
        """What the brain names by ``word`` (a word or words as written in a line): ``""`` nothing,
        :data:`~gbrain.sync.merge.PAGE_NAME` a page (its file name or title, or an alias, keyed as
        a wiki link matches them, :func:`gbrain.page.slugs.loose_key`: ``Bob``, ``bob`` → ``bob``),
        :data:`~gbrain.sync.merge.PERSON_NAME` a person's page by such a name, or (a single word)
        the first word of a person page's title (``Jan`` of ``Jan Novak``: a timeline summary
        starts with a bare first name). A person's page: its type is ``person`` (any case; the
        frontmatter's ``type`` when it names one, else the folder's,
        :func:`~gbrain.page.markdown.page_type`: a top-level ``people/`` page with no type is a
        person's, one with ``type: company`` is not), or it lies in a deeper folder named
        ``people`` (``Areas/People/…``) and its frontmatter names no type (read from its type:
        its first folder's default, :func:`_folder_type`; a ``type`` naming just that default
        reads as none). A first word is the title key's first
        part (``Jan-Erik Larsen`` → ``jan``), found by a range of the ``title_key`` index, at most
        :data:`FIRST_WORD_ROWS` titles read (more: a person's, the safe side, unless the word is a
        page's own name, no person's, and no title read is a person's: a topic, ``Postgres``). What
        :func:`gbrain.sync.merge.another_line` asks of a place that reads as a typo fix otherwise
        (``standup (bob)`` → ``standup (rob)``, ``— Jon agreed`` → ``— Jan agreed``: another person
        when both are names; ``met Postgress team`` → ``met Postgres team``: a misspelt name fixed
        when only the new one names a page, no person's). One statement of indexed lookups, each
        reading :data:`FIRST_WORD_ROWS` + 1 pages at most (a name more pages share, ``Index`` of
        hundreds of ``index.md``, reads as a person's: the safe side, whatever rows were read)."""
        k = loose_key(word)
        if not k:
            return ""

        def kind(t: str) -> str:  # 2: a person's page, 1: another
            return (f"CASE WHEN lower({t}.type) = 'person' OR ({t}.slug_key LIKE '%/people/%' "
                    f"AND {t}.type = {_folder_type(t)}) THEN 2 ELSE 1 END")

        # each exact lookup reads FIRST_WORD_ROWS + 1 pages at most (`Index`, `README`: hundreds of
        # pages may share a name): a name's first page says it is a page's; of a name more pages
        # share, the pages read decide whether it is a person's (all of them, where fewer share it)
        lim = FIRST_WORD_ROWS + 1
        # (per lookup n, 0 the first-word range: its rows read and the most telling kind; one
        # GROUP BY over the ≤ 4 × (FIRST_WORD_ROWS + 1) rows read, no CASE sum per lookup)
        q = (f"SELECT n, max(f), count(*) FROM ("
             f"SELECT f, 1 AS n FROM (SELECT {kind('pages')} AS f FROM pages WHERE loose_key = ? LIMIT {lim}) e1 "
             f"UNION ALL SELECT f, 2 FROM (SELECT {kind('pages')} AS f FROM pages WHERE title_key = ? LIMIT {lim}) e2 "
             f"UNION ALL SELECT f, 3 FROM (SELECT {kind('pages')} AS f FROM (SELECT page_id FROM aliases WHERE loose_key = ? "
             f"LIMIT {lim}) a JOIN pages ON pages.id = a.page_id) e3")
        args: tuple = (k, k, k)
        if "-" not in k:
            # a first name: the titles keyed from `k-` up to `k.` (`.` follows `-`), at most
            # FIRST_WORD_ROWS of them read (a word many titles start with, a month's `Jan`, reads
            # as a person's: kept as another line, nothing lost, never a scan of them all)
            q += (f" UNION ALL SELECT ({kind('w')} - 1) * 2, 0 FROM (SELECT type, slug_key FROM pages "
                  f"WHERE title_key >= ? AND title_key < ? LIMIT {lim}) w")
            args += (k + "-", k + ".")
        read = {n: (f, c) for n, f, c in self.conn.execute(q + ") t GROUP BY n", args).fetchall()}
        got = max((f for f, _ in read.values()), default=None)
        first = read[0][1] if 0 in read else 0
        if max((c for n, (_, c) in read.items() if n), default=0) > FIRST_WORD_ROWS:
            # (a name more pages share than a lookup reads: which rows it read depends on the
            # engine's row order, so the answer must not: a person's, the safe side)
            return PERSON_NAME
        if first > FIRST_WORD_ROWS and got != 1:
            # (a page's own name, no person's, and no title read a person's: a topic many titles
            # start with, `Postgres tuning`, is that page's name, never a person's)
            return PERSON_NAME
        return PERSON_NAME if got == 2 else PAGE_NAME if got else ""

    def _page_names(self) -> Callable[[str], str]:
        """:meth:`_page_name` with its answers kept, by loose key, for the one call it is handed to
        (a ``stale_view``, a dropped-save look: they write nothing meanwhile, so an answer cannot
        change): a checklist of look-alike lines asks the same few words hundreds of times, each
        one statement of up to four indexed lookups (a round trip on Postgres)."""
        by_word: dict[str, str] = {}
        by_key: dict[str, str] = {}

        def names(word: str) -> str:
            got = by_word.get(word)
            if got is None:
                k = loose_key(word)
                got = by_key.get(k)
                if got is None:
                    got = by_key[k] = self._page_name(word)
                by_word[word] = got
            return got

        return names

    def _stale_base(self, p: str, b: str, base: bytes, data: bytes) -> bytes | None:
        """For a page changed in its file and in the brain since the base ``b`` (its bytes
        ``base``): the older version the file's save ``data`` was made from when it is a stale
        save of the base (an editor's buffer read before gbrain wrote ``b`` to the file:
        :func:`gbrain.sync.merge.stale_view` over the versions before ``b``), else None (an
        edit of the base). Merged against the base, the save's missing lines of the writes
        between its buffer and ``b`` read as deletions and left the page (trial 51)."""
        if not is_markdown(p):
            return None
        r = self.conn.execute("SELECT slug FROM pages WHERE path = ?", (p,)).fetchone()
        if r is None:
            return None
        older_ids, _rows = self._older_ids("page", r[0], b, BOTH_STALE_NEWER)
        if not older_ids or self._git_wrote(p, data):
            return None
        from ..core.history import body

        older = [body(self.conn, i) for i in older_ids]
        view = stale_view(data, base, older, names=self._page_names())
        return None if view is None else older[view.ancestor]

    def _git_wrote(self, p: str, data: bytes) -> bool:
        """Whether ``data``, the file at ``p``, is what git wrote there: byte for byte the blob
        git's index holds for it (:func:`gitstate.index_cache`; CRLF read as LF too,
        ``core.autocrlf``) AND the file's stat the one the index entry cached
        (:func:`gitstate.stat_cached`: git records the stat of each file it writes). Then git
        wrote it (``git stash``, ``checkout -f``, ``reset --hard``, ``restore``, a checkout or
        pull), so an older version there is the user discarding uncommitted changes, writes
        through gbrain among them, not an editor saving an old buffer: no stale save (trial 44:
        watch merged an agent's stashed lines back, and ``git stash pop`` then failed). An
        editor's save of the committed bytes (vim's ``:w`` of a buffer opened before an agent's
        write) has the blob's bytes but a new mtime (and often inode): a stale save, merged as
        anywhere (a git command that refreshes the index, ``status``/``diff``/``add``, run
        between that save and the round caches its stat too: then it is taken as git's).
        False without git, for a path git does not track, or an index gbrain cannot read. The
        index is read again only when its stat changed, and after git let go of ``index.lock``
        (:func:`gitstate.wait_index`: git writes the files first and its index last, so a round
        between them met the old index and merged the agent's lines back into a long checkout's
        files)."""
        g = gitstate.find(self.root)
        if g is None:
            return False
        gitstate.wait_index(g, self._git_lock_given_up)  # git mid-operation: its new index comes last
        try:
            st = os.stat(g.gitdir / "index")
        except OSError:
            return False
        stamp = (str(g.gitdir), st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        if self._git_index is None or self._git_index[0] != stamp:
            self._git_index = (stamp, gitstate.index_cache(g))
        cache = self._git_index[1]
        if not cache:
            return False
        rel = os.path.relpath(os.path.realpath(self.root), g.top)
        pre = "" if rel == "." else rel.replace(os.sep, "/") + "/"
        entry = cache.get((pre + p).encode("utf-8", "surrogateescape"))
        if entry is None or entry[0] not in gitstate.blob_ids(g, data):
            return False
        try:
            fst = os.stat(self._abs(p))
        except OSError:
            return False
        return gitstate.stat_cached(entry[1], fst)

    def _both_merge(self, p: str, f: DiskFile, b: str) -> tuple[bytes, bytes | None] | None:
        """Whether the page (or page's ``.raw`` sidecar) at ``p``, changed in the brain and in its
        file ``f`` since the base ``b`` (a sha256), merges: the base's text is looked up in the page history
        (``history_bodies`` by hash; gone when pruned, or older than the history), then
        :func:`gbrain.sync.merge.merge_edits` (base, the brain's bytes, the file's) decides; for a
        stale save of the base (:meth:`_stale_base`) against the older version it was made from.
        Returns ``(the file's bytes, the merged bytes)``, ``(the file's bytes, None)`` for such a
        stale save whose edits overlap (a ``stale-save`` conflict), or None (no base text, a side over
        :data:`gbrain.sync.merge.MAX_BYTES`, not UTF-8, or the edits overlap: the
        ``both-changed`` conflict as before)."""
        if f.size > MERGE_MAX_BYTES:
            return None
        base = self._base_bytes(b, MERGE_MAX_BYTES)
        if base is None:
            return None
        data = self.scanned_bytes(f)
        if data is None:
            return None
        brain_bytes = self.db_bytes(p)
        if brain_bytes is None:
            return None
        older = self._stale_base(p, b, base, data)
        merged = merge_edits(older or base, brain_bytes, data, p, self.brain.timeline_split)
        if merged is None:  # a stale save that conflicts: ``(the file's bytes, None)``, a stale-save conflict
            return None if older is None else (data, None)
        return data, merged

    def _undone_paths(self, known: set[str] | None) -> set[str]:
        """The paths of every ``deleted-in-brain`` conflict (a note edited in one folder while
        deleted through another: the edit restored it), read once per round (``known``: this
        round's read, or None): :meth:`_delete_undone` looks only at these."""
        if known is not None:
            return known
        return {r[0] for r in self.conn.execute("SELECT DISTINCT path FROM sync_conflicts WHERE kind = 'deleted-in-brain'")}

    def _delete_undone(self, p: str, undone: set[str]) -> dict | None:
        """Whether the brain → file write of ``p``, a path this folder holds no base of, brings
        back a note THIS folder deleted: another folder's round found it deleted in the brain
        but edited there and restored it from its file (a ``deleted-in-brain`` conflict of
        ``p``, in ``undone``), so the page's newest versions are that restore and, before it,
        the deletion by this folder's sync client. ``{path, by}`` (``by``: who restored it, ''
        when unknown), or None. A one-folder brain (no sync client) never has one."""
        if not self.client or p not in undone:
            return None
        rows = self.conn.execute("SELECT op, client, writer FROM history WHERE kind = ? AND name = ? ORDER BY version DESC LIMIT 2",
                                 key_for_path(self.conn, p)).fetchall()
        if len(rows) < 2 or rows[0][0] != "create" or rows[1][0] != "delete" or rows[1][1] != self.client:
            return None
        return {"path": p, "by": rows[0][2] or ""}

    def _overruled(self, p: str, had: str | None) -> dict | None:
        """Whether the brain → file write of ``p`` this round carries out replaces a save of this
        folder that lost a conflict in another folder's round (two folders of a Postgres brain
        saved the note at the same time; that round kept its file and made this folder's text
        the copy): an open conflict of ``p`` whose copy holds ``had``, the bytes this folder
        last had (its base), and that came from this folder's file (:func:`_from_file`; an
        agent's write that reached the file and lost is no save of this folder's).
        ``{path, copy_path, kept_by, kept_origin}`` (``kept_by``: the writer of the version kept, '' when
        unknown; ``kept_origin``: how it was written, ``mcp(claude-code) put``, when that writer
        also wrote the save, one login on both sides, or is unknown, else ''), or None. A one-folder brain never has one: its own conflicts keep its file."""
        if had is None:
            return None
        c = self.conn
        key = None
        for cp, kind, file_hash, db_hash in c.execute(
                "SELECT copy_path, kind, file_hash, db_hash FROM sync_conflicts WHERE path = ? AND copy_path IS NOT NULL ORDER BY id DESC LIMIT 4", (p,)).fetchall():
            kept, held = (db_hash, file_hash) if kind in _KEEP_BRAIN else (file_hash, db_hash)
            if held != had or not c.execute("SELECT 1 FROM pages WHERE path = ? UNION ALL SELECT 1 FROM files WHERE path = ?", (cp, cp)).fetchone():
                continue
            key = key or key_for_path(c, p)
            src = c.execute("SELECT h.surface, h.operation, h.client FROM history h JOIN history_bodies b ON b.id = h.body_id "
                            "WHERE h.kind = ? AND h.name = ? AND b.hash = ? ORDER BY h.version DESC LIMIT 1", (*key, held)).fetchone()
            if src is None or not _from_file(src[0], src[1], src[2], self.client):
                continue
            kept_by = version_writer(c, *key, kept)
            # one login on both sides (a person and their agent, no GBRAIN_USER): the side kept is
            # named by how it was written (`gbrain conflicts` does so too: kept_origin)
            same = kept_by and kept_by == version_writer(c, *key, held)
            return {"path": p, "copy_path": cp, "kept_by": kept_by, "kept_origin": version_origin(c, *key, kept) if same or not kept_by else ""}
        return None

    def _save_dropped(self, p: str, had: str | None, now: str, data: bytes | None) -> dict | None:
        """Whether the brain → file write of ``p`` this round (bytes ``data``, hash ``now``)
        drops lines this folder's own save added: the bytes it last had (``had``, its base) are
        a version that came from this folder's file (:func:`_from_file`; an import is no save),
        and lines that version added to the version before it are gone from ``data``. A write
        through gbrain from an older read (an agent's put without ``if_hash``, a teammate's
        folder) replaces a save this way; nothing is lost (the history holds it), but the person
        sees the line leave their file. ``{path, by, lines, first}`` (``by``: the writer of the
        new bytes, '' when unknown; ``lines``: how many non-blank lines are gone; ``first``: the
        first of them), or None. A few indexed queries and two history bodies, only for a file
        whose base is a save of this folder's."""
        if had is None or had == now or data is None:
            return None
        c = self.conn
        key = key_for_path(c, p)
        q = ("SELECT h.version, h.surface, h.operation, h.client, h.body_id, h.op, h.detail FROM history h JOIN history_bodies b ON b.id = h.body_id "
             "WHERE h.kind = ? AND h.name = ? AND b.hash = ? ORDER BY h.version DESC LIMIT 1")
        r = c.execute(q, (*key, had)).fetchone()
        at = key  # the name the save's version is under
        for _ in range(100):
            # a move (a rename in the folder) added no line: the save, if any, is the version
            # the page had under its old name (else every line of the note counted as saved)
            if r is None or r[5] != "move" or not (r[6] or "").startswith("from "):
                break
            at = (at[0], r[6][len("from "):])
            r = c.execute(q, (*at, had)).fetchone()
        if r is None or r[1] == "import" or not _from_file(r[1], r[2], r[3], self.client):
            return None
        prev = c.execute("SELECT body_id FROM history WHERE kind = ? AND name = ? AND version < ? AND body_id IS NOT NULL "
                         "ORDER BY version DESC LIMIT 1", (*at, r[0])).fetchone()
        mine = history_body(c, r[4]).splitlines()
        added = Counter(ln for ln in mine if ln.strip()) - Counter(history_body(c, prev[0]).splitlines() if prev else [])
        gone = added - Counter(data.splitlines())
        if gone:
            # a line of the save that the new text holds edited (words put in, or a close edit: a
            # teammate building on it) was not removed (trial 34: "cat's write removed 1 line of
            # your save" for a heading cat had added words into); a look-alike line of the same
            # template with another name or number is a teammate's line, no edit of the save's
            # (`merge.another_line`: it was excused as one and the person was not told)
            fresh = [ln.strip() for ln in set(data.splitlines()) - set(mine) if ln.strip()]
            if fresh and len(fresh) * len(gone) <= EDITED_PAIRS_MAX:
                names = self._page_names()
                for g in list(gone):
                    w = g.strip()
                    if any((keeps(n, w) or alike(n, w) >= EDITED_LINE_MIN) and not another_line(n, w, names) for n in fresh):
                        del gone[g]
        if not gone:
            return None
        # a revert, undo or restore brings back a version of the history on purpose: no older read
        w = c.execute("SELECT h.version, h.operation FROM history h JOIN history_bodies b ON b.id = h.body_id "
                      "WHERE h.kind = ? AND h.name = ? AND b.hash = ? ORDER BY h.version DESC LIMIT 1", (*key, now)).fetchone()
        if w is not None and w[1] in TARGETED_EDITS and (at != key or w[0] > r[0]):
            # an edit of part of the current text (a link retargeted, a tag added) made over the
            # saved version itself: it read the save, so it drops nothing from an older read
            # (trial 30: `lint --fix-safe` under watch was told as "removed 1 line of your save");
            # a save made before a rename is older than every version at the new name (the two
            # names count versions apart: trial s61, a move's relink after a folder rename)
            over = c.execute("SELECT b.hash FROM history h JOIN history_bodies b ON b.id = h.body_id WHERE h.kind = ? AND h.name = ? "
                             "AND h.version < ? AND h.body_id IS NOT NULL ORDER BY h.version DESC LIMIT 1", (*key, w[0])).fetchone()
            if over is not None and over[0] == had:
                return None
        first = next(ln for ln in mine if gone.get(ln))
        out = {"path": p, "by": version_writer(c, *key, now), "lines": sum(gone.values()), "first": first.decode("utf-8", "replace").rstrip()}
        if w is not None and w[1] in ("revert", "undo", "restore"):
            out["how"] = w[1]
            if w[1] == "revert":  # the newest earlier version with these bytes: the one brought back
                to = c.execute("SELECT MAX(h.version) FROM history h JOIN history_bodies b ON b.id = h.body_id "
                               "WHERE h.kind = ? AND h.name = ? AND b.hash = ? AND h.version < ?", (*key, now, w[0])).fetchone()[0]
                if to is not None:
                    out["revert_to"] = to
        return out

    def _brain_had(self, p: str, h: str) -> bool:
        """True when the change log (rows not yet consumed, i.e. since the last completed round)
        shows the brain held bytes with hash ``h`` at path ``p``."""
        return self.conn.execute("SELECT 1 FROM change_log WHERE seq > ? AND path = ? AND content_hash = ? LIMIT 1", (self.cursor, p, h)).fetchone() is not None

    def _disk_history(self, cands: dict[str, tuple[str, str | None]]) -> dict[str, tuple[str, str]]:
        """What the history says of files with no base: ``cands`` maps a path to ``(the file's
        sha256, the brain's kind at the path: "page", "file" or None)``. Returns, for the paths
        whose bytes are a version the history holds for that path's page or file, ``path →
        (state, why)``: ``"older"`` (the brain has the path: an older version of it), ``"deleted"``
        (the brain deleted it: in the trash) or ``"moved"`` (it moved away: ``why`` names where),
        the states :attr:`gbrain.sync.plan.PathState.disk_history` takes. Bytes in no version are
        left out (new content), and so is a deletion or move made after this folder was bound
        (``sync_root.bound_at``, by the database's clock, to the millisecond; to the second for
        folders bound before): the folder was synced
        then, so its file was removed then (or deleted by the person), and a file there now was
        put back on purpose (Obsidian's ``.trash``, an undo, a ``git checkout``), not an old copy.
        A few indexed queries per 300 paths (``history`` by its key, ``history_bodies`` by
        hash), never a body read."""
        found: dict[str, tuple[str, str]] = {}
        if not cands:
            return found
        keys: dict[tuple[str, str], list[str]] = {}  # (kind, name) → paths
        for p, (_hx, kind) in cands.items():
            if kind == "file":
                keys.setdefault(("file", p), []).append(p)
            elif kind == "page":
                keys.setdefault(("page", slug_for_path(p)), []).append(p)
            else:  # deleted or moved away: as a page (markdown) and as a file (a blob, an attachment)
                if is_markdown(p):
                    keys.setdefault(("page", slug_for_path(p)), []).append(p)
                keys.setdefault(("file", p), []).append(p)
        had: set[tuple[str, str]] = set()  # (path, hash) the history holds
        newest: dict[tuple[str, str], tuple[str, object, str, str]] = {}
        for kind in ("page", "file"):
            names = sorted({n for k, n in keys if k == kind})
            for chunk, ph in in_parts(names, 300):  # names and hashes: well under SQLite's 999 parameters of old builds
                hashes = sorted({cands[p][0] for n in chunk for p in keys[(kind, n)]})
                hq = ",".join("?" * len(hashes))
                for name, hx in self._tuples(
                        f"SELECT h.name, b.hash FROM history h JOIN history_bodies b ON b.id = h.body_id WHERE h.kind = ? AND h.name IN ({ph}) AND b.hash IN ({hq})",
                        (kind, *chunk, *hashes)):
                    for p in keys[(kind, name)]:
                        if cands[p][0] == hx:
                            had.add((p, kind))
                gone = [n for n in chunk if any((p, kind) in had and cands[p][1] is None for p in keys[(kind, n)])]
                if not gone:
                    continue
                gq = ",".join("?" * len(gone))
                for name, op, body_id, detail, at in self._tuples(
                        f"SELECT h.name, h.op, h.body_id, h.detail, h.at FROM history h WHERE h.kind = ? AND h.name IN ({gq}) "
                        "AND h.version = (SELECT MAX(m.version) FROM history m WHERE m.kind = h.kind AND m.name = h.name)", (kind, *gone)):
                    newest[(kind, name)] = (op, body_id, detail or "", at or "")
        bound = ""
        if newest:
            r = self.conn.execute("SELECT bound_at FROM sync_root WHERE client = ?", (self.client,)).fetchone()
            bound = (r[0] if r else "") or ""
        for (kind, name), ps in keys.items():
            for p in ps:
                if (p, kind) not in had or p in found:
                    continue
                if cands[p][1] is not None:
                    found[p] = ("older", "an older version; the brain's newest written")
                    continue
                op, body_id, detail, at = newest.get((kind, name), ("", 1, "", ""))
                if body_id is not None:
                    continue  # not deleted nor moved (the brain holds it elsewhere): the plain rules
                if not bound or (at > bound if "." in bound else at[:19] > bound[:19]):
                    continue  # gone since this folder was bound: the person put the file back
                    # (bound_at to the millisecond since 2026-12-02; to the second before)
                if op == "delete":
                    found[p] = ("deleted", "deleted in the brain; in the trash")
                elif op == "move" and detail.startswith("to "):
                    to = detail[3:]
                    if kind == "page":
                        r = self.conn.execute("SELECT path FROM pages WHERE slug = ?", (to,)).fetchone()
                        to = r[0] if r else to
                    found[p] = ("moved", f"moved in the brain to {to}")
        return found

    def _remove_file(self, rel: str, out: "Outcome") -> bool:
        """Remove the file ``rel`` from the folder (gone already is fine) and the folders that
        leaves empty (:meth:`_prune_dirs`); False, with the reason in ``out.unreadable``, when
        the file system refuses."""
        try:
            os.unlink(self._abs(rel))
        except FileNotFoundError:
            pass
        except OSError as e:
            out.unreadable.append((rel, Why(f"cannot remove it from the folder: {e.strerror}", UNWRITABLE) if refused_write(e) else f"cannot remove: {e.strerror}"))
            return False
        self._prune_dirs(rel)
        return True

    def _prune_dirs(self, rel: str) -> None:
        """After this round removed (or moved away) the file ``rel``: remove the folders it leaves
        empty, innermost first, up to the root (never the root itself). ``os.rmdir`` removes only
        an empty folder, so a folder holding anything (a hidden or ignored file, a subfolder)
        stops the climb; errors are ignored (the folder stays)."""
        d = posixpath.dirname(rel)
        self._dir_cache.pop(d, None)  # listings this round cached are stale now
        while d:
            try:
                os.rmdir(self._abs(d))
            except OSError:
                return
            d = posixpath.dirname(d)
            self._dir_cache.pop(d, None)

    def _racy_again(self, p: str, f: DiskFile, st: tuple | None) -> bool:
        """Whether the ``sync_state`` row ``st`` (:meth:`_state`'s tuple) of ``p``, recorded racy,
        is the row :meth:`_record` would write for ``f`` now (hashed, unchanged): racy again (its
        change stamp within :data:`RACY_NS` of now: saved this second, or dated ahead of this
        clock), the same size, disk and base hash, and the same file (one ``lstat``). Such a row
        is not written again: a vault dated ahead wrote every row at every sync, all in the
        round's one transaction (which a Postgres connection cut every few hundred statements
        never let commit)."""
        if not st or st[1] or st[0] != f.size or not (st[2] == st[3] == f.hash) or st[4] is None \
                or time.time_ns() - f.mtime_ns >= RACY_NS:
            return False
        now = self._lstat_written(p)
        return now is not None and file_id(now) == st[4] and now.st_size == f.size and change_stamp(now) == f.mtime_ns

    def _lstat_written(self, p: str) -> os.stat_result | None:
        """``os.lstat`` of a file this round just wrote, or None when it is gone already (a
        person or a script deleted or renamed it the moment it appeared)."""
        try:
            return os.lstat(self._abs(p))
        except FileNotFoundError:
            return None

    def _stat_written(self, p: str, data: bytes) -> DiskFile:
        """The :class:`DiskFile` of the file at ``p`` this round just wrote with ``data``. A file
        gone since gets stamp 0 (the base then records the bytes written and "never trust the
        stat": the next round looks at the path, finds it gone and takes that as the person's
        delete or move, never puts it back)."""
        st = self._lstat_written(p)
        if st is None:
            return DiskFile(p, len(data), 0, sha256(data), data)
        return DiskFile(p, st.st_size, change_stamp(st), sha256(data), data)

    def _moved_to(self, p: str, hx: str) -> tuple[str, str | None] | None:
        """Where the brain renamed ``p`` holding the bytes of hash ``hx``: ``(name, path)``, the
        name it moved to (a page's slug, or another file's path) and that page's or file's path
        now (None when it is no longer there); None when the history shows no such rename."""
        kind, name = key_for_path(self.conn, p)
        to = moved_away(self.conn, kind, name, hx)
        if to is None:
            return None
        r = self.conn.execute("SELECT path FROM pages WHERE slug = ?" if kind == "page" else "SELECT path FROM files WHERE path = ?", (to,)).fetchone()
        return to, (r[0] if r else None)

    def _follow_brain_moves(self, paths: set[str], D: dict, S: dict, B: dict, out: Outcome) -> None:
        """A note edited in this folder while the brain renamed it (another folder's sync or
        watch saw the rename; this folder was offline or not yet told): the file takes the new
        name and the new path keeps the old base, so the round after this one finds both sides
        changed since it (a merge, or the both-changed conflict) instead of putting the old name
        back as a second page. Only when the history says the old name moved away holding the
        base's bytes, the new page exists, and this folder has no file and no base at the new
        path, or (the rename reached this folder while the note was held back as being written,
        trial 49) its file there still holds the bytes last synced there, unchanged this round. The paths leave this round; ``out.both_moved`` runs the next (:meth:`_then_both`)."""
        for p in sorted(paths):
            d, b = D.get(p), B.get(p)
            if d is None or b is None or d == b or p in S or not is_markdown(p):
                continue
            moved = self._moved_to(p, b)
            if moved is None or moved[1] is None:
                continue
            tp = moved[1]
            if tp == p or self.excluded(tp):
                continue
            src, dst = self._abs(p), self._abs(tp)
            st = self._state([tp]).get(tp)
            if st is not None:
                # the rename reached this folder while this note was held back (watch's brain →
                # file round leaves a note written since its sync alone, and wrote the renamed
                # page at its new path, trial 49): the note replaces that file only while it
                # still holds what the round wrote there (nothing of this folder's is lost)
                if tp in paths and (tp not in D or D.get(tp) != B.get(tp)):
                    continue
                try:
                    checked = os.lstat(dst)
                    with blobs.open_nofollow(dst) as fh:
                        if sha256(fh.read()) != st[2]:
                            continue
                    if not _move_over_checked(src, dst, checked):
                        continue
                except OSError as e:
                    if not isinstance(e, FileNotFoundError):
                        self._warn(f"{p}: renamed in the brain to {tp}, but the file could not follow ({e.strerror}); left as it is")
                    continue
                with self.brain.transaction():
                    self.conn.execute("DELETE FROM sync_state WHERE client = ? AND path = ?", (self.client, tp))
                    self.conn.execute("UPDATE sync_state SET path = ?, size = 0, mtime_ns = 0, file_id = NULL WHERE client = ? AND path = ?",
                                      (tp, self.client, p))
                self._prune_dirs(p)
            else:
                if tp in D or os.path.lexists(dst):
                    continue
                try:
                    os.makedirs(os.path.dirname(dst), exist_ok=True)
                    os.link(src, dst)  # never over a file that appeared meanwhile
                    os.unlink(src)
                except OSError as e:
                    self._warn(f"{p}: renamed in the brain to {tp}, but the file could not follow ({e.strerror}); left as it is")
                    continue
                with self.brain.transaction():
                    self.conn.execute("UPDATE sync_state SET path = ? WHERE client = ? AND path = ?", (tp, self.client, p))
            _follows_next_round(p, tp, paths, (D, S, B), out)
            self._log(f"> {p} → {tp} (renamed in the brain; your edit follows it)")

    def _follow_late_saves(self, paths: set[str], D: dict, S: dict, B: dict, disk: dict[str, DiskFile], out: Outcome) -> None:
        """A save at the old name of a page renamed in the brain AFTER the rename reached this
        folder (this engine moved the file away): an editor that still held the note (vim, any
        editor with the buffer open) writes its buffer at the old path. Imported as it stands it
        would be a new page beside the renamed one, the note forked (trial 34). The save takes the
        new name instead, as an edit made before the rename arrived does
        (:meth:`_follow_brain_moves`): the file replaces the new name's file, which this folder must
        have synced (the rename reached it) and which must still hold what it last synced there
        (nothing of this folder's is lost), and the new path's
        base becomes the version the save was based on, so the next round (``out.both_moved``,
        :meth:`_then_both`) imports it, or merges it with an edit made to the renamed page since,
        or keeps both (the both-changed conflict). Only what :meth:`_late_save_of` finds."""
        new = [p for p in paths if p in D and p not in S and p not in B and p in disk and is_markdown(p)]
        if not new:
            return
        moved_from = self._recent_moves_away()  # one indexed read: most rounds end here
        for p in sorted(x for x in new if x in moved_from):
            hit = self._late_save_of(p, disk[p])
            if hit is None:
                continue
            tp, anc, who = hit
            if tp in paths and (tp not in D or D.get(tp) != B.get(tp)):
                continue  # the new name's file changed in this round too: the plain rules
            st = self._state([tp]).get(tp)
            if st is None:
                continue  # the rename never reached this folder (an old copy, a new machine): the plain rules
            src, dst = self._abs(p), self._abs(tp)
            try:
                try:
                    checked = os.lstat(dst)
                    with blobs.open_nofollow(dst) as fh:
                        held = sha256(fh.read())
                except FileNotFoundError:
                    held = None
                if held is None or held != st[3]:
                    continue  # edited here since it was synced (or gone): the plain rules
                if not _move_over_checked(src, dst, checked):
                    continue  # a save landed at the new name since the check: the plain rules next round
            except OSError as e:
                self._warn(f"{p}: saved at the old name of {tp}, but the file could not follow ({e.strerror}); left as it is")
                continue
            with self.brain.transaction():
                self.conn.execute(
                    "INSERT INTO sync_state(client, path, size, mtime_ns, disk_hash, base_hash, file_id) VALUES (?, ?, 0, 0, ?, ?, NULL) "
                    "ON CONFLICT(client, path) DO UPDATE SET size = 0, mtime_ns = 0, disk_hash = excluded.disk_hash, "
                    "base_hash = excluded.base_hash, file_id = NULL", (self.client, tp, anc, anc))
            self._prune_dirs(p)
            _follows_next_round(p, tp, paths, (D, S, B), out)
            by = f"{who}'s" if who else "a"
            msg = (f"{p}: saved after {by} rename of the note to {tp} had reached this folder "
                   f"(an editor still holding the note); the save follows the rename to {tp}, no page of the old name")
            out.warnings.append(msg)
            self._log(f"> {msg}")

    def _recent_moves_away(self) -> set[str]:
        """The paths pages were renamed away from (by any folder) in the last
        :data:`STALE_WINDOW_S`, by the database's clock (``idx_history_at``)."""
        from datetime import datetime, timedelta

        now = self.conn.execute("SELECT strftime('%Y-%m-%dT%H:%M:%fZ', 'now')").fetchone()[0]
        try:
            since = datetime.strptime(now.rstrip("Z"), "%Y-%m-%dT%H:%M:%S.%f") - timedelta(seconds=STALE_WINDOW_S)
        except ValueError:
            return set()
        at = since.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
        return {r[0] for r in self.conn.execute(
            "SELECT path FROM history WHERE at >= ? AND kind = 'page' AND op = 'move' AND body_id IS NULL", (at,))}

    def _late_save_of(self, p: str, f: DiskFile) -> tuple[str, str, str] | None:
        """Whether the new file ``f`` at ``p`` is a late save of a page renamed away from ``p``:
        ``(the renamed page's path, the hash of the version the save was based on, who renamed
        it ('' unknown))``, or None.
        Only when the newest history row of the old name is a rename another folder made (on
        SQLite, one folder per brain, a rename is this folder's own: never) or a rename through
        gbrain (`gbrain move`, MCP ``brain_move``: any engine), at most
        :data:`STALE_WINDOW_S` ago (an editor's buffer), the renamed page exists, and the saved
        text is at least :data:`LATE_SAVE_MIN` alike to a version the old name had (the closest of
        its last :data:`STALE_VERSIONS`) or else to a version of the renamed page since the rename that came
        from this folder's file (:func:`_from_file`; never its text now, which may hold a teammate's
        lines the editor never read: they would count as the save's deletions), or, none alike,
        holds one of those versions whole (:func:`_holds_whole`: that version plus typing, an
        editor saving every 100 ms, trial 49); a note less alike (one from the same template) is new content."""
        if f.size > MERGE_MAX_BYTES:
            return None
        kind, name = key_for_path(self.conn, p)
        if kind != "page":
            return None
        writer = "h.writer" if has_writer(self.conn) else "''"
        rows = self.conn.execute(
            f"SELECT h.op, h.detail, h.body_id, h.at, h.client, b.hash, {writer}, h.surface, h.operation "
            "FROM history h LEFT JOIN history_bodies b ON b.id = h.body_id "
            "WHERE h.kind = 'page' AND h.name = ? ORDER BY h.version DESC LIMIT ?", (name, STALE_VERSIONS + 1)).fetchall()
        if not rows:
            return None
        op, detail, body_id, at, client, _, who, surface, _oper = rows[0]
        if op != "move" or body_id is not None or not (detail or "").startswith("to "):
            return None
        if (client or "") == self.client and surface in ("sync", "watch", "import"):
            return None  # this folder's own rename (a `gbrain move`, MCP brain_move is none: trial 49)
        now = self.conn.execute("SELECT strftime('%Y-%m-%dT%H:%M:%fZ', 'now')").fetchone()[0]
        if _age_s(at, now) > STALE_WINDOW_S:
            return None
        r = self.conn.execute("SELECT path FROM pages WHERE slug = ?", (detail[3:],)).fetchone()
        if r is None or r[0] == p:
            return None
        data = self.scanned_bytes(f)
        if data is None:
            return None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return None
        best, best_score = None, LATE_SAVE_MIN
        seen: set[str] = set()
        olds: list[tuple[str, str]] = []  # the old name's versions tried, newest first
        news: list[tuple[str, str]] = []  # the renamed page's this folder's file gave, newest first

        def weigh(bid: int, hx: str, tried: list[tuple[str, str]]) -> str | None:
            """Score the version ``bid`` (hash ``hx``; its text added to ``tried``) against the
            save, kept as the best when it scores at least as well (ties: the older, as the rows
            come newest first; an older base only merges more). Its text when it became the
            best, else None (not UTF-8: not tried)."""
            nonlocal best, best_score
            seen.add(hx)
            try:
                old = history_body(self.conn, bid).decode("utf-8")
            except UnicodeDecodeError:
                return None
            tried.append((hx, old))
            score = sim.similarity(old, text)
            if score < best_score:
                return None
            best, best_score = hx, score
            return old

        for _op, _d, bid, _at, cl, hx, _w, surf, oper in rows[1:]:
            if bid is None:
                break  # a deletion or an earlier move: the file did not hold what came before
            if hx not in seen and weigh(bid, hx, olds) == text:
                break  # the saved text itself
            if _from_file(surf or "", oper or "", cl or "", self.client):
                # this folder's last save of the note: an editor's buffer holds it or what gbrain
                # wrote over it since, never an older version (a note's first, bare template, save:
                # the next note made from that template at the name holds it whole; review of eef42c2)
                break
        if best is None:
            # the renamed page's versions since the rename that came from this folder's file: an
            # edit this folder made before the rename arrived followed it there
            # (:meth:`_follow_brain_moves`) and the editor, still open on the old path, saved its
            # buffer again (trial 49); the old name's versions lack those lines. Never the page as
            # it is now: a teammate's write since never reached the editor's buffer (the file had
            # left its path), and a base holding it made the save drop its lines (review of trial 49)
            for op2, bid, hx, surf, oper, cl in self.conn.execute(
                    "SELECT h.op, h.body_id, b.hash, h.surface, h.operation, h.client FROM history h "
                    "LEFT JOIN history_bodies b ON b.id = h.body_id WHERE h.kind = 'page' AND h.name = ? "
                    "ORDER BY h.version DESC LIMIT ?", (detail[3:], STALE_VERSIONS + 4)).fetchall():
                if bid is None or op2 == "move":
                    break  # the rename itself (or a deletion): what came before is the old name's
                if hx in seen or not _from_file(surf or "", oper or "", cl or "", self.client):
                    continue
                weigh(bid, hx, news)
        if best is None:
            # a save holding a version whole (every line, in order) is that version plus typing:
            # an editor saving every 100 ms outran the likeness on a short note (20+ lines typed
            # since its last version here, trial 49); the newest such version, the renamed page's first
            best = next((hx for hx, old in news + olds if _holds_whole(old, text)), None)
        return None if best is None else (r[0], best, who or "")

    def _say_renamed_twice(self, new: list[str], D: dict, S: dict, B: dict, state: dict, disk: dict, out: Outcome) -> None:
        """A note this folder renamed while another folder renamed it to another name: the brain
        keeps both names (nothing lost: the new file is imported as a page of its own), and the
        user is told which name the other rename chose (a warning and a log line)."""
        gone = [g for g in B if g not in D and g not in S]
        fresh = [x for x in new if x in D and x not in B and x not in S and x in disk]
        if not gone or not fresh:
            return
        for g in sorted(gone):
            moved = self._moved_to(g, B[g])
            if moved is None:
                continue
            to = moved[1] or moved[0]
            fid = state[g][4] if g in state else None
            for x in fresh:
                if D[x] == B[g] or (fid is not None and self._fid(disk[x]) == fid):
                    msg = (f"{x}: you renamed {g}, which was renamed meanwhile to {to} (another folder or gbrain): "
                           f"both names now hold the note; delete the one you do not want")
                    out.warnings.append(msg)
                    self._log(f"! {msg}")
                    break

    def _record(self, p: str, f: DiskFile, base: str | None) -> None:
        """Record ``p`` as in sync: the file's stat (``mtime_ns`` 0 when racy), its hash, the base
        and its identity (``file_id``: taken from ``f`` or, when unknown, an lstat of the path
        now; NULL when the file is gone)."""
        self._write_state(p, f, base)

    def _settle(self, p: str, f: DiskFile, base: str | None) -> None:
        """Record again a path whose row was racy and whose file still holds the recorded bytes
        (:meth:`_settle_racy`): its stat now, the same hashes."""
        self._write_state(p, f, base)

    def _write_state(self, p: str, f: DiskFile, base: str | None) -> None:
        """The ``sync_state`` row of :meth:`_record` and :meth:`_settle`."""
        mt = f.mtime_ns if time.time_ns() - f.mtime_ns >= RACY_NS else 0
        fid = f.fid
        if fid is None:
            st = self._lstat_written(p)
            fid = file_id(st) if st is not None and st.st_size == f.size and change_stamp(st) == f.mtime_ns else None
        self.conn.execute(
            "INSERT INTO sync_state(client, path, size, mtime_ns, disk_hash, base_hash, file_id) VALUES (?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT(client, path) DO UPDATE SET size = excluded.size, mtime_ns = excluded.mtime_ns, disk_hash = excluded.disk_hash, "
            "base_hash = excluded.base_hash, file_id = excluded.file_id",
            (self.client, p, f.size, mt, f.hash, base or f.hash, fid),
        )

    def _purged(self, hx: str) -> bool:
        """Whether ``hx`` is the hash of bytes a ``gbrain purge`` removed from every version
        (config ``purge_log``, :func:`gbrain.core.purge.purged_hashes`) and the history lacks:
        a file holding them is removed without a copy. Any other bytes are kept as ever."""
        from ..core.purge import purged_hashes

        r = self.conn.execute("SELECT value FROM config WHERE key = 'purge_log'").fetchone()
        if r is None or '"hashes"' not in (r[0] or ""):
            return False
        if getattr(self, "_purged_cache", (None,))[0] != r[0]:
            self._purged_cache = (r[0], purged_hashes(self.conn))
        return hx in self._purged_cache[1] and not self.conn.execute("SELECT 1 FROM history_bodies WHERE hash = ?", (hx,)).fetchone()

    def _forget(self, p: str) -> None:
        self.conn.execute("DELETE FROM sync_state WHERE client = ? AND path = ?", (self.client, p))

    def _save_then_merge(self, p: str, file: DiskFile, save: bytes, merged: DiskFile, stale: bool, out: Outcome) -> bool:
        """A merged page's two versions at ``p``, in order: the folder's save (``save``, the bytes
        the person wrote, set as ``file.data``) as a version of its own, so nothing typed is lost and
        a later stale save from the same buffer finds it as its ancestor, then the merge ``merged``
        as the page (``MERGED_OP`` for a stale save, ``BOTH_MERGED_OP`` for both sides changed).
        False when either import was refused (``out`` says why); inside the open transaction."""
        file.data = save
        with origin(operation="file changed"):
            if not self._import(p, file, out):
                return False
        with origin(operation=MERGED_OP if stale else BOTH_MERGED_OP):
            return self._import(p, merged, out)

    def _import(self, p: str, f: DiskFile, out: Outcome, page_id: int | None = None) -> bool:
        """Store the file's bytes as the page or file at ``p`` (inside the open transaction).
        A conflict copy a file-sync tool made, new in the brain, is a conflict this round found
        (``out.conflicts``, kind ``sync-tool``, logged once: :func:`gbrain.core.conflicts.tool_copy_said`).
        ``page_id``: a new page row takes this id (a page back from the trash, :meth:`_revive`)."""
        hit = sync_tool_copy(p)
        held = self.conn.execute("SELECT 1 FROM pages WHERE path = ? UNION ALL SELECT 1 FROM files WHERE path = ?", (p, p)).fetchone()
        if hit is not None and held:
            hit = None  # in the brain already: found when it arrived
        if not self._store(p, f, out, page_id):
            return False
        if not held:
            out.new_paths.append(p)
        if hit is not None:
            page = self.conn.execute("SELECT slug FROM pages WHERE path = ?", (p,)).fetchone()
            c = copy_at(self.conn, p, page[0] if page else None)
            out.conflicts.append({"path": c.original, "copy_path": p, "kind": SYNC_TOOL, "tool": c.tool, "file_hash": f.hash, "db_hash": None,
                                  "base_hash": None, "note": tool_copy_made(c), "action": resolve_how(c)})
            self._log(f"! conflict {p}: {tool_copy_said(c)}")
        return True

    def _tool_copies_found(self, out: Outcome, paths: list[str]) -> None:
        """The conflict copies a file-sync tool made among ``paths``, stored by the first sync's
        bulk import (:func:`~gbrain.sync.importer.import_tree`, which stores them as any file):
        each is a conflict this round found (``out.conflicts``, kind ``sync-tool``, logged), as
        :meth:`_import` says of a copy arriving in a later round; the round then exits 3."""
        said = {c.get("copy_path") for c in out.conflicts}
        for d in tool_copies_among(self.conn, [p for p in paths if p not in said]):  # (not stored: unreadable, ignored, refused: none)
            out.conflicts.append(d)
            self._log(f"! conflict {d['copy_path']}: {d['note']}: {d['action']}")

    def _store(self, p: str, f: DiskFile, out: Outcome, page_id: int | None = None) -> bool:
        """:meth:`_import`'s write: the file's bytes as the page or file at ``p``; False (and
        ``out.unreadable``) when they could not be read as hashed."""
        data = f.data
        if data is None and blobs.is_big(f.size) and classify(p, b"")[0] != "page" and file_kind(p) == "blob":
            # a big file: streamed into pieces (never a page: pages are at most 16 MiB)
            self._check_collapse(p, f.size, out)
            self.brain.remove_page_row(p)
            try:
                res, got = self.brain.save_file_from(p, self._abs(p), "blob", f.hash)
            except OSError as e:
                out.unreadable.append((p, read_failure(e)))
                return False
            if got != f.hash:  # changed since it was hashed: the brain has what was read; next round settles it
                out.unreadable.append((p, "changed while syncing; will retry"))
                return False
            out.warnings += res or []
            self._record(p, f, f.hash)
            return True
        if data is None:
            data, why = self.read_stable(f)
            if data is None or sha256(data) != f.hash:
                out.unreadable.append((p, why or "changed while syncing; will retry"))
                return False
        kind, text, w = classify(p, data)
        if kind == "page":
            other = self.conn.execute("SELECT path FROM pages WHERE slug = ? AND path != ?", (slug_for_path(p), p)).fetchone()
            if other:  # two spellings of one name (NFC and NFD): the second is kept as a file, as import does
                kind, text, w = "blob", None, twin_warning(p, other[0])
        if w:
            out.warnings.append(w)
            self._warn(w)
        self._check_collapse(p, len(data), out)
        if kind == "page":
            self.conn.execute("DELETE FROM files WHERE path = ?", (p,))
            res = self.brain.save_page(p, text, page_id=page_id)
            for pw in res.warnings:
                out.warnings.append(f"{p}: {pw}")
                self._warn(f"{p}: {pw}")
            if res.counts:
                out.parsed_counts[res.slug] = res.counts
        else:
            self.brain.remove_page_row(p)
            for fw in self.brain.save_file(p, data, kind) or []:  # (a sidecar that is not JSON: kept as bytes)
                out.warnings.append(fw)
                self._warn(fw)
        self._record(p, f, f.hash)
        return True

    def _check_collapse(self, p: str, new_size: int, out: Outcome) -> None:
        """Warn loudly when the file replacing a page (or file) is empty or lost most of its bytes
        (a crashed save, a truncating editor): the replaced version is in the history, one
        ``gbrain revert`` away; the warning says which."""
        from ..core.history import collapse_warning

        w = collapse_warning(self.brain, p, new_size)
        if w:
            out.warnings.append(w["message"])
            out.collapsed.append(w)
            self._warn(w["message"])

    def _trash(self, p: str, reason: str) -> None:
        """Remove the page or file at ``p`` from the brain: its history keeps every version and
        the deletion, so it is in the trash (``gbrain trash``) and ``gbrain restore`` brings it back."""
        if self.conn.execute("SELECT 1 FROM pages WHERE path = ?", (p,)).fetchone():
            self.brain.remove_page_row(p)
            self._promote_twin(p)
        elif self.conn.execute("SELECT 1 FROM files WHERE path = ?", (p,)).fetchone():
            self.brain.delete_file(p)

    def _promote_twin(self, p: str) -> None:
        """After the page at ``p`` was removed: its twin kept as a file becomes that page
        (:func:`gbrain.sync.importer.promote_twin`; a file-sync tool that brings a Mac's rename
        writes the new spelling one round and deletes the old the next), said in the log."""
        from .importer import promote_twin

        q = promote_twin(self.brain, p)
        if q is not None:
            self._log(f"~ {shown(q)}: now the page {shown(slug_for_path(p))} (the other spelling of its name is gone)")

    def _move(self, src: str, dst: str, f: DiskFile, out: Outcome, changed: bool = False, base: str | None = None,
              note: str = "moved; edited on both sides") -> None:
        """:meth:`_move_row`, then: a note renamed to a file-sync tool's conflict copy name from a
        name that marked no copy (a download the tool renamed into place, trial 68) is a conflict
        this round found, said as a copy created in place is (:meth:`_tool_copies_found`); a copy
        moved with its folder is no new one."""
        self._move_row(src, dst, f, out, changed, base, note)
        if sync_tool_copy(dst) is not None and copy_mark(src) is None:
            self._tool_copies_found(out, [dst])

    def _move_row(self, src: str, dst: str, f: DiskFile, out: Outcome, changed: bool = False, base: str | None = None,
                  note: str = "moved; edited on both sides") -> None:
        """Rename ``src`` to ``dst`` in the brain. A page keeps its id; links are resolved again.
        ``changed``: the file at ``dst`` holds an edited text (a ``changed_moves`` pair of
        :func:`~gbrain.sync.plan.decide`): after the rename the page takes it, as a save of its
        own (so the history shows the move, then the edit). ``base``: a ``both_moves`` pair (the
        brain edited the page too): the page keeps its text and ``dst`` is recorded with this
        base, the one ``src`` had, for the next round's both-changed rules (the caller checked
        that the row can take the new name; ``note``: the log line's words then)."""
        c = self.conn
        page = c.execute("SELECT id FROM pages WHERE path = ?", (src,)).fetchone()
        new_slug = slug_for_path(dst)
        if page and not c.execute("SELECT 1 FROM pages WHERE slug = ? AND id != ?", (new_slug, page["id"])).fetchone() and classify(dst, b"")[0] == "page":
            pid = page["id"]
            # its sidecars (ana.JSON beside ana.json, an NFD name too) follow it, on disk and in the
            # brain, each unless its new name is taken (the page then reads what a fresh import reads)
            renames = self.brain.sidecar_renames(pid, src, dst)
            self.brain.rename_page_row(pid, src, dst)
            out.sidecar_moves += [(old_sc, new_sc, pid) for old_sc, new_sc in renames]  # (not where one is stored: _move_sidecar)
            out.page_moves.append((src, dst))  # and its conflict copies: _move_copies
            if base is not None:
                self._record(dst, f, base)
                self._forget(src)
                out.moved.append((src, dst))
                self._log(f"> {src} → {dst} ({note})")
                return
            if changed:
                old_hash = c.execute("SELECT content_hash FROM pages WHERE id = ?", (pid,)).fetchone()[0]
                with origin(operation="file changed"):
                    ok = self._import(dst, f, out)
                if not ok:
                    # the file changed again since it was hashed: the row keeps the old text, with
                    # it as the base, so the next round imports the file (never a no-base conflict)
                    self._record(dst, f, old_hash)
                self._forget(src)
                out.moved.append((src, dst))
                self._log(f"> {move_text(src, dst)} (moved and changed)" if ok else f"> {move_text(src, dst)} (moved)")
                return
        elif changed:
            # the new name cannot take the row (its slug is another page's, or it is no page):
            # the old page goes (no deletion: recorded as moved) and the file is imported
            if page:
                self.brain.remove_page_row(src)
            if not self._import(dst, f, out):
                return
            record_move(self.conn, src, dst)
            if page:
                self.brain.conflicts_follow(src, dst)  # (its conflicts' rows name it where it is)
            self._forget(src)
            out.moved.append((src, dst))
            self._log(f"> {src} → {dst} (moved and changed)")
            return
        else:
            data = f.data if f.data is not None else self.db_bytes(src)
            kind = c.execute("SELECT kind FROM files WHERE path = ?", (src,)).fetchone()
            if page:
                self.brain.remove_page_row(src)
            elif kind:
                self.brain.delete_file(src)
            f.data = data
            self._import(dst, f, out)
            record_move(self.conn, src, dst)
        self._forget(src)
        self._record(dst, f, f.hash)
        out.moved.append((src, dst))
        self._log(f"> {move_text(src, dst)} (moved)")

    def _swappable(self, cycles: list[tuple[str, ...]]) -> tuple[list[tuple[str, ...]], list[str]]:
        """The plan's :attr:`~gbrain.sync.plan.Plan.swaps` split into ``(cycles to carry out,
        paths to import as edits instead)``: a cycle is carried out when every path is a page of
        the brain whose note's name gives the slug it has, with no ``.raw`` sidecar and no conflict
        copy stored (they would have to swap names too: not guessed at)."""
        if not cycles:
            return [], []
        go, back = [], []
        marked = [(r[0], m) for r in self.conn.execute("SELECT path FROM pages WHERE path LIKE '%onflict%' UNION ALL SELECT path FROM files WHERE path LIKE '%onflict%'")
                  if (m := copy_mark(r[0])) is not None]

        def has_copy(p: str) -> bool:
            return any(m[0] == p or (m[2] is None and is_conflict_copy_of(q, p)) for q, m in marked)

        for cycle in cycles:
            ok = True
            for p in cycle:
                row = self.conn.execute("SELECT id, slug FROM pages WHERE path = ?", (p,)).fetchone()
                if row is None or row["slug"] != slug_for_path(p) or self.brain.page_sidecars(row["id"])[0] or has_copy(p):
                    ok = False
                    break
            (go.append(cycle) if ok else back.extend(cycle))
        return go, sorted(back)

    def _swap(self, cycle: tuple[str, ...], disk: dict, out: Outcome) -> None:
        """Carry out a :attr:`~gbrain.sync.plan.Plan.swaps` cycle (notes that exchanged names:
        the page at ``cycle[i]`` moves to ``cycle[i + 1]``, the last to ``cycle[0]``), inside the
        open transaction: each page keeps its id, text and history, which follow it to its new
        name (a move: ``history`` of either name then lists the text it holds), links are resolved
        again (none has a sidecar or conflict copy: :meth:`_swappable`). The first page passes
        through a name of its own while the others move, ``NAME (swapping names).md`` in its
        folder (`` 2``… when taken, or a deleted page's name: :func:`~gbrain.core.history.in_trash`; :func:`~gbrain.page.slugs.swap_temp_name`), as a person swapping two files passes one through a temp
        name; the history keeps that stretch (a swap written as two moves between the two names
        reads, on a second swap of the pair, as a page moved away and back: the history walks
        follow each page through its names by the moves' names), the change log does not (no
        other folder is to write a file there). One line: ``> a ↔ b (names swapped)``, a
        rotation ``> a → b → c → a (names rotated)``."""
        c = self.conn
        ids = [c.execute("SELECT id FROM pages WHERE path = ?", (p,)).fetchone()["id"] for p in cycle]
        stem, ext = cycle[0][:-3], cycle[0][-3:]
        for n in range(1, 1000):
            tmp = swap_temp_name(stem, ext, n)
            if not (os.path.lexists(self._abs(tmp)) or c.execute(
                    "SELECT 1 FROM pages WHERE path = ? OR slug_key = ? UNION ALL SELECT 1 FROM files WHERE path = ?",
                    (tmp, slug_key(slug_for_path(tmp)), tmp)).fetchone()
                    or in_trash(c, "page", slug_for_path(tmp))):
                break
        seq0 = c.execute("SELECT COALESCE(MAX(seq), 0) FROM change_log").fetchone()[0]
        self.brain.rename_page_row(ids[0], cycle[0], tmp)
        k = len(cycle)
        for i in range(k - 1, 0, -1):
            self.brain.rename_page_row(ids[i], cycle[i], cycle[(i + 1) % k])
        self.brain.rename_page_row(ids[0], tmp, cycle[1])
        c.execute("DELETE FROM change_log WHERE seq > ? AND path = ?", (seq0, tmp))
        for i, p in enumerate(cycle):
            dst = cycle[(i + 1) % k]
            self._record(dst, disk[dst], disk[dst].hash)
            out.moved.append((p, dst))
        self._log(f"> {cycle[0]} ↔ {cycle[1]} (names swapped)" if k == 2 else f"> {' → '.join(cycle + cycle[:1])} (names rotated)")

    def _move_copies(self, src: str, dst: str, out: Outcome) -> list[tuple[str, str]]:
        """A page was renamed from ``src`` to ``dst`` (a note moved in the folder): its conflict
        copies and its sidecars' (:func:`copy_renames`) follow it, on disk and in the brain, as its
        sidecar does (:meth:`_move_sidecar`), with their sync record (:func:`move_copy`). Each only
        when its file is exactly the stored version (or not yet written to this folder: the row
        moves, the next round writes it) and nothing is at its new path; else left as it is. A copy
        the folder moved itself this round (a folder renamed whole) is no longer stored at its
        old path: nothing to do. Returns ``[(copy, new path)]`` of the copies it meant to move
        (the caller asks only for a page whose folder or ``.raw`` holds a copy: the round's
        ``held`` folders)."""
        c = self.conn

        def on_disk(p: str, own: str) -> bool:
            try:
                a, b = os.lstat(self._abs(p)), os.lstat(self._abs(own))
            except OSError:
                return os.path.lexists(self._abs(p))
            return (a.st_dev, a.st_ino) != (b.st_dev, b.st_ino)

        moves, _ = copy_renames(self.brain, src, dst, on_disk=on_disk)
        for old, new, new_orig in moves:
            row = c.execute("SELECT content_hash FROM pages WHERE path = ? UNION ALL SELECT content_hash FROM files WHERE path = ?", (old, old)).fetchone()
            if not os.path.lexists(self._abs(old)) and not c.execute("SELECT 1 FROM sync_state WHERE client = ? AND path = ?", (self.client, old)).fetchone():
                move_copy(self.brain, old, new, new_orig, (src, dst))  # (not written here yet: the next round writes it at its new name)
                continue
            if (st := self._rename_stored(old, new, row[0], "move the conflict copy", out)) is None:
                continue
            relinked = move_copy(self.brain, old, new, new_orig, (src, dst))
            if relinked is not None:
                # its relative links were written for the new folder: the file takes them, only over the file just moved
                # (a save landing meanwhile stays; recorded at the old bytes, the next round merges or conflicts as any)
                was = (st.st_ino, st.st_size, st.st_mtime_ns)
                try:
                    if atomic_write(Path(self._abs(new)), relinked, unchanged=lambda s_, was=was: s_ is not None and (s_.st_ino, s_.st_size, s_.st_mtime_ns) == was):
                        st, h = os.lstat(self._abs(new)), sha256(relinked)
                        self._record(new, DiskFile(new, st.st_size, change_stamp(st), h), h)
                        out.disk_hashes[new] = h
                except OSError as e:
                    self._warn(f"{new}: could not write the conflict copy's links for its new folder ({e.strerror}); the next round writes them")
            self._log(f"> {old} → {new} (a conflict copy, moved with its page)")
        return [(o, n) for o, n, _ in moves]

    def _stale_move(self, src: str, dst: str, f: DiskFile, stale: tuple[str, bytes, bytes | None], written: DiskFile | None,
                    copy: str | None, base: str, out: Outcome) -> None:
        """Carry out a ``changed_moves`` pair whose file ``f`` at ``dst`` is a stale save
        (``stale``: ``(src, the file's bytes, the merge or None)`` from :meth:`_stale_view`),
        inside the round's transaction: the row moves with the brain's text, then, as a stale
        save in place, the merge is written to the file and the page takes the save and then
        the merge (:meth:`_save_then_merge`); not merging, the brain's version was written to
        ``dst`` before (``written``; None: not written, nothing done) and the save's copy beside
        it (``copy``) is the ``stale-save`` conflict's. A file saved again since the round read it is left
        with the row at ``src`` (:data:`CHANGED_MEANWHILE`): the next round plans the pair again.
        ``base``: ``src``'s base, recorded in the conflict row."""
        _src, save, merged = stale
        hx = self.conn.execute("SELECT content_hash FROM pages WHERE path = ?", (src,)).fetchone()[0]
        if merged is None:
            if written is None:
                return
            with origin(operation="file moved"):
                self._move(src, dst, written, out, base=hx, note="moved")
            row = {"path": dst, "copy_path": copy, "kind": "stale-save", "file_hash": f.hash, "db_hash": hx, "base_hash": base}
            self.conn.execute(
                "INSERT INTO sync_conflicts(path, copy_path, kind, file_hash, db_hash, base_hash) VALUES (:path, :copy_path, :kind, :file_hash, :db_hash, :base_hash)", row
            )
            out.conflicts.append(row)
            out.disk_hashes[dst] = hx
            who = version_writer(self.conn, *key_for_path(self.conn, dst), hx)
            whose = f" ({who}'s)" if who else ""
            self._log(f"! conflict {dst}: the file was saved (under its new name) from an older version and does not merge with a newer write "
                      f"through gbrain; the brain's version{whose} kept, your save saved as {copy}")
            return
        done_w: dict[str, DiskFile] = {}
        kept: dict[str, DiskFile] = {}
        self._write_merge(dst, merged, f, done_w, kept, out)
        mf = done_w.get(dst) or kept.get(dst)
        if mf is None:
            return  # the file changed since: the row stays, the next round plans the pair again
        with origin(operation="file moved"):
            self._move(src, dst, mf, out, base=hx, note="moved")
        if not self._save_then_merge(dst, f, save, mf, True, out):
            return
        out.imported.append(dst)
        out.merged.append(dst)
        if dst in kept:
            self._record(dst, f, f.hash)  # the file's bytes stay its base: the merge is written later
            self._log(f"~ merged your save of {dst} in the brain with a newer write through gbrain (the file was saved from an older version, "
                      f"under its new name; the folder refuses writes: the file keeps your version until it can be written)")
            return
        out.exported.append(dst)
        out.disk_hashes[dst] = mf.hash
        self._log(f"~ merged your save of {dst} with a newer write through gbrain (the file was saved from an older version, under its new name)")

    def _move_sidecar(self, old: str, new: str, pid: int, out: Outcome) -> None:
        """A page was renamed: rename its ``.raw/<name>.json`` sidecar with it, on disk and in the
        brain, so its raw data stays attached (and survives export → import). Only when the old
        file is exactly the stored version and nothing is at the new path yet; else left as is."""
        c = self.conn
        row = c.execute("SELECT content_hash FROM files WHERE path = ? AND kind = 'raw'", (old,)).fetchone()
        a_old, a_new = self._abs(old), self._abs(new)
        if row is None or c.execute("SELECT 1 FROM files WHERE path = ?", (new,)).fetchone() or os.path.lexists(a_new):
            return
        if not os.path.lexists(a_old) and not c.execute("SELECT 1 FROM sync_state WHERE client = ? AND path = ?", (self.client, old)).fetchone():
            # raw data put through the brain and not yet written to this folder: the row takes
            # the new name (the next round writes the file there), as a fresh import attaches it
            c.execute("UPDATE files SET path = ? WHERE path = ?", (new, old))
            self.brain._load_raw_rows(new)
            return
        if self._rename_stored(old, new, row[0], "rename the sidecar", out) is None:
            return
        c.execute("UPDATE files SET path = ? WHERE path = ?", (new, old))
        self.brain._load_raw_rows(new)
        self._log(f"> {old} → {new} (moved with its page)")

    def _rename_stored(self, old: str, new: str, stored_hash: str, what: str, out: Outcome) -> os.stat_result | None:
        """Rename the file at ``old`` to ``new`` in the folder when its bytes are exactly the
        stored version ``stored_hash`` (hashed streamed, :func:`blobs.hash_file`, never through a
        symlink): its folder made, the folders it leaves empty removed, its sync record moved
        (``_forget`` + ``_record``), ``out.disk_hashes`` and ``out.moved`` told. The caller moves
        the brain's row after. Returns the new file's lstat, or None when the file is not the
        stored one (left as it is) or could not be read or renamed (warned: ``{old}: could not
        {what} with its page (…)``). For :meth:`_move_copies` and :meth:`_move_sidecar`."""
        a_old, a_new = self._abs(old), self._abs(new)
        try:
            if blobs.hash_file(a_old)[0] != stored_hash:  # (streamed: a binary's copy may be big)
                return None
            os.makedirs(os.path.dirname(a_new), exist_ok=True)
            os.rename(a_old, a_new)
            st = os.lstat(a_new)
        except OSError as e:
            self._warn(f"{old}: could not {what} with its page ({e.strerror}); left as it is")
            return None
        self._prune_dirs(old)
        self._forget(old)
        self._record(new, DiskFile(new, st.st_size, change_stamp(st), stored_hash), stored_hash)
        out.disk_hashes.pop(old, None)
        out.disk_hashes[new] = stored_hash
        out.moved.append((old, new))
        return st

    # ---- reporting --------------------------------------------------------------------

    def report(self, scan: Scan, out: Outcome) -> dict:
        """The verification report of a full sync: :func:`gbrain.sync.verify.report` over the
        final disk hashes (cached ones for files whose stat did not change), plus what this run
        did. ``exit_code`` is 1 on any mismatch, 3 when conflicts were found (a file-sync tool's
        conflict copy that arrived this round too), else 0."""
        disk_hashes = dict(out.disk_hashes)
        settled, self._settled = self._settled, None
        for p, _why in out.unreadable:
            disk_hashes.pop(p, None)
        rep = verify.report(
            self.brain,
            scan,
            disk_hashes,
            deep=False,
            parsed_counts=out.parsed_counts,
            extra={"counts": out.counts(), "warnings": out.warnings[:200], "warning_count": len(out.warnings)},
            raw_check=bool(out.changed() or out.parsed_counts or out.unreadable),
            left_alone={p: kind_of(w) for p, w in out.unreadable},
            # a file that differs, or a page not in the folder yet, because another writer changed
            # or made it after this round read the brain (an agent's put while the sync ran, a cron
            # job's new page: trial 62): no mismatch, the change log holds it for this folder and
            # the next round writes it (the rule of verify_paths, watch's batch check)
            written_since=self._written_since,
            # a round that found every path as recorded and wrote nothing: the stored hashes are
            # those _unchanged read (every page and file, each equal to its base), not read again
            stored=settled if settled is not None and not (out.changed() or out.unreadable or out.conflicts) else None,
            held_back=self.held,
        )
        # paths the user told gbrain to ignore stay in the brain as they were: noted, not a problem
        ignored = [(p, w) for p, w in out.unreadable if kind_of(w) == IGNORED and not is_evicted(w)]  # .gbrainignore's or the defaults
        gone_to_cloud = sorted(p for p, w in out.unreadable if is_evicted(w))  # iCloud's placeholder only: no deletion
        if gone_to_cloud:
            rep["evicted"] = gone_to_cloud[: verify.MAX_LISTED]
            rep["evicted_count"] = len(gone_to_cloud)
        if ignored:
            rep["ignored_in_brain"] = sorted(p for p, _ in ignored)[: verify.MAX_LISTED]  # out.unreadable is in set order
            rep["ignored_in_brain_count"] = len(ignored)
        # a symlink (or a symlinked folder) is the user's too, not a failure: import skips it
        # with exit 0; its page stays in the brain as it was, named in the report, never trashed
        linked = [(p, w) for p, w in out.unreadable if kind_of(w) == SYMLINK]
        if linked:
            rep["symlinked"] = [{"path": p, "reason": str(w)} for p, w in sorted(linked)[: verify.MAX_LISTED]]
            rep["symlinked_count"] = len(linked)
        # a file deleted or moved away while this round read it: the person's, not a failure;
        # its page stays as it was this round and the next round sees it gone (trash or move)
        gone = sorted(p for p, w in out.unreadable if kind_of(w) == VANISHED)
        rep["vanished_during"] = gone[: verify.MAX_LISTED]
        # writes through gbrain the folder refused (a read-only mount, no permission): the brain
        # keeps them; the files stay as they were; said apart (a mismatch: the two differ)
        refused = sorted({p for p, w in out.unreadable if kind_of(w) == UNWRITABLE})
        if refused:
            why = next(str(w) for p, w in out.unreadable if kind_of(w) == UNWRITABLE).rsplit(": ", 1)[-1]
            rep["unwritable"] = refused[: verify.MAX_LISTED]
            rep["unwritable_count"] = len(refused)
            rep["unwritable_reason"] = why
            rep["problems"].append(unwritable_problem(len(refused), why, self.root))
        # a file holding exactly a purged version's bytes: not imported on purpose (the purge asked)
        purged = sorted(p for p, w in out.unreadable if kind_of(w) == PURGED)
        rep["purged_skipped"] = purged[: verify.MAX_LISTED]
        rep["purged_skipped_count"] = len(purged)
        ignored_paths = {p for p, _ in ignored} | {p for p, _ in linked} | set(gone) | set(gone_to_cloud) | set(refused) | set(purged)
        # (paths left alone are reported once, as such, not as missing: verify.report's left_alone)
        really = [(p, w) for p, w in out.unreadable if p not in ignored_paths]
        if really:
            rep["problems"].append(f"{len(really)} path(s) could not be read and were left as they were")
            rep["unreadable"] = [{"path": p, "reason": str(w)} for p, w in really[: verify.MAX_LISTED]]
        rep["ok"] = not rep["problems"]
        rep["conflicts"] = out.conflicts
        if out.collapsed:
            rep["collapsed"] = out.collapsed
        rep["moved"] = [{"from": a, "to": b, **({"follows_rename": True} if (a, b) in out.followed else {})} for a, b in out.moved]
        rep["moved_hidden"] = [{"from": a, "to": b} for a, b in out.hidden_moved[: verify.MAX_LISTED]]
        rep["cleaned"] = out.cleaned[: verify.MAX_LISTED]
        rep["merged"] = out.merged[: verify.MAX_LISTED]
        rep["overruled"] = out.overruled[: verify.MAX_LISTED]
        rep["saves_dropped"] = out.saves_dropped[: verify.MAX_LISTED]
        rep["git"] = out.git
        rep["old_copies"] = {"replaced": out.old_replaced[: verify.MAX_LISTED], "replaced_count": len(out.old_replaced),
                             "removed": [{"path": p, "why": w} for p, w in out.old_removed[: verify.MAX_LISTED]], "removed_count": len(out.old_removed)}
        rep["moved_in_brain"] = [{"from": a, "to": b} for a, b in out.moved_in_brain[: verify.MAX_LISTED]]
        rep["moved_in_brain_count"] = len(out.moved_in_brain)
        # (counted in exported/removed, as before: the new file written, the old one removed; the
        # text's Files: line counts them as moves instead, `registry._count_items`; trial 50)
        rep.setdefault("counts", {})["moved_in_brain"] = len(out.moved_in_brain)
        wrote = set(out.exported)
        rep["moved_in_brain_exported"] = sum(1 for _, to in out.moved_in_brain if to in wrote)
        rep["purged_removed"] = out.purged_removed[: verify.MAX_LISTED]
        rep["purged_removed_count"] = len(out.purged_removed)
        rep["changed"] = {"imported": out.imported[:verify.MAX_LISTED], "exported": out.exported[:verify.MAX_LISTED], "trashed": out.trashed[:verify.MAX_LISTED], "removed": out.removed[:verify.MAX_LISTED]}
        rep["exit_code"] = 1 if not rep["ok"] else (3 if out.conflicts else 0)
        return rep

    def _written_since(self, paths: list[str]) -> set[str]:
        """The set of ``paths`` that a writer changed in the brain after this folder's last applied
        change (a change-log row past its cursor): the next round brings them to the folder.
        ``db.in_parts`` statements (500 paths each). Both engines."""
        if not paths:
            return set()
        cur = self.cursor
        found: set[str] = set()
        for part, marks in in_parts(sorted(set(paths))):
            found.update(r[0] for r in self.conn.execute(f"SELECT DISTINCT path FROM change_log WHERE seq > ? AND path IN ({marks})", (cur, *part)))
        return found

    def verify_paths(self, out: Outcome) -> list[str]:
        """Cheap check after a watch batch: each touched path's file hash (as the round left it)
        equals the DB's. A path another writer changed since the round (a change-log row past
        this folder's cursor: a teammate's save, an agent's put) is not a mismatch: the next
        round brings it; nor is one the round left because such a write landed under it
        (``out.deferred``: both ends of a move), nor one it left as it was (``out.unreadable``:
        a file saved again between the round's look and its write, :data:`CHANGED_MEANWHILE`, is
        the save's own round's; the folder refusing a write is said apart; the rest are retried).
        Trial 51's "MISMATCH" lines (3 in 6 min, each gone on the retry) were saves landing in
        that window of a round driven by the change log, whose cursor passed the write it left.
        Returns the paths that differ."""
        bad = []
        cur = None
        left = set(out.deferred) | {p for p, _ in out.unreadable}
        for p, h in out.disk_hashes.items():
            if p in left:
                continue
            dbh = self.conn.execute("SELECT content_hash FROM pages WHERE path = ? UNION ALL SELECT content_hash FROM files WHERE path = ?", (p, p)).fetchone()
            if dbh is None or dbh[0] != h:
                if cur is None:
                    cur = self.cursor
                if self.conn.execute("SELECT 1 FROM change_log WHERE seq > ? AND path = ? LIMIT 1", (cur, p)).fetchone():
                    continue
                bad.append(p)
        return bad


#: conflict kinds where the brain's version stays the page and the file's bytes are the copy
_KEEP_BRAIN = ("no-base", "stale-save")
#: ``_unchanged``'s rows ``(path, size, mtime_ns, base_hash)``: the stat tuple, the path, the hash
_STAT_OF, _PATH_OF, _HASH_OF = operator.itemgetter(0, 1, 2), operator.itemgetter(0), operator.itemgetter(3)
#: operations that edit part of a page's current text (or sidecar) in their own transaction: a
#: version one of them wrote over a folder's save read that save (:meth:`SyncEngine._save_dropped`)
def _targeted_puts() -> set[str]:
    """The history operations of a put of parts that edit the current text in place (timeline
    lines, frontmatter keys, an appended paragraph, a find and replace; not a new compiled truth),
    alone or together (core/history.py: put_operation)."""
    from itertools import combinations

    from ..core.history import PUT_PARTS, put_operation

    parts = [p for p in PUT_PARTS if p != "compiled_truth"]
    return {put_operation(c) for n in range(1, len(parts) + 1) for c in combinations(parts, n)}


TARGETED_EDITS = frozenset({"tag", "untag", "link", "unlink", "timeline-add", "lint-fix", "raw-put",
                            # a move's link rewrites edit the current text in place
                            "move", *_targeted_puts()})
#: the history operation of a merged stale save (a write through gbrain, not from the file)
MERGED_OP = "stale save merged"
#: the history operation of the merge of a page both sides changed (not from the file either: a
#: later save from the editor's buffer, which lacks the brain's edits, is then a stale save)
BOTH_MERGED_OP = "both changed merged"


def dropped_how(d: dict) -> str:
    """What replaced a save (``d``: :meth:`SyncEngine._save_dropped`): ``write``, ``revert to
    version N``, ``undo``, ``restore``."""
    how = d.get("how") or "write"
    return f"revert to version {d['revert_to']}" if how == "revert" and d.get("revert_to") else how


def _dropped_words(d: dict, name: str) -> str:
    """The log line of a write that removed lines of this folder's save (``d``:
    :meth:`SyncEngine._save_dropped`; ``name``: the page's slug or the file's path)."""
    n = d["lines"]
    whose = f"{d['by']}'s" if d["by"] else "a"
    first = d["first"] if len(d["first"]) <= 80 else d["first"][:79] + "…"
    return (f"! {d['path']}: {whose} {dropped_how(d)} removed {n} line{'' if n == 1 else 's'} of your save "
            f"(\"{first}\"{' and more' if n > 1 else ''}); your version is in the history: gbrain history {cmd_arg(name)}")


def _from_file(surface: str, operation: str, client: str = "", mine: str = "") -> bool:
    """Whether a history version with this origin came from a file of the synced folder ``mine``
    (this engine's sync client; or an import of a folder): a person's save there, not a write
    through gbrain. A version that came from another folder's file (``client``, the sync client
    its sync or watch recorded, is not ``mine``: a teammate's save on Postgres) reached this
    folder through gbrain, as an agent's write does. On SQLite (``mine`` '': one folder per
    brain) and for rows that name no client (written before sync clients were recorded) every
    file version counts as this folder's, as before."""
    if surface == "import":
        return True
    if surface not in ("sync", "watch") or operation not in _FROM_FILE:
        return False
    return not (mine and client and client != mine)


def _holds_whole(old: str, text: str) -> bool:
    """Whether ``text`` holds every line of ``old`` in order (lines without their ends: a last
    line with none is held by the save's line that ends it) and ``old`` has a line that tells a note apart
    (:func:`gbrain.sync.merge.telling_line`: 16 characters or more, no heading; a bare template's
    headings are held by every note made from it)."""
    a, b = old.splitlines(), text.splitlines()
    if not a or len(a) > len(b) or not any(telling_line(x.strip().encode("utf-8")) for x in a):
        return False
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return sum(blk.size for blk in sm.get_matching_blocks()) == len(a)


def _merged_buffer_again(rows: list, hx: str, mine: str) -> bool:
    """Whether a save with the hash ``hx`` is the buffer a merge was made of, saved again:
    ``rows`` (:meth:`SyncEngine._stale_view`'s history rows, newest first: body id, surface,
    operation, time, hash, client) open with a merge (:data:`MERGED_OP`, :data:`BOTH_MERGED_OP`)
    whose version before is this folder's save of the same bytes. Not when that save had been
    merged back once already (the rows before are the same merge of the same save): a person
    who deleted the merged lines a second time means it (review of trial 49)."""
    def merge_of_it(at: int) -> bool:
        return (len(rows) > at + 1 and rows[at][2] in (MERGED_OP, BOTH_MERGED_OP) and rows[at + 1][4] == hx
                and _from_file(rows[at + 1][1] or "", rows[at + 1][2] or "", rows[at + 1][5] or "", mine))
    return merge_of_it(0) and not merge_of_it(2)


def _age_s(at: str, now: str) -> float:
    """Seconds from the history time ``at`` to ``now`` (both ``YYYY-MM-DDTHH:MM:SS(.fff)Z``);
    an unreadable time counts as old."""
    from datetime import datetime

    def parse(x: str) -> datetime:
        x = x.rstrip("Z")
        return datetime.strptime(x, "%Y-%m-%dT%H:%M:%S.%f" if "." in x else "%Y-%m-%dT%H:%M:%S")

    try:
        return (parse(now) - parse(at)).total_seconds()
    except (ValueError, TypeError):
        return float("inf")


# ---------------------------------------------------------------------------
# trash and conflicts
# ---------------------------------------------------------------------------


def restore(brain: Brain, slug: str) -> dict:
    """Bring a deleted page (or file, by path) back from its history, with every ``.raw`` sidecar
    deleted with it (:func:`gbrain.core.history.sidecars_deleted_with`); the next sync (or a
    running watch) writes the files. See :func:`gbrain.core.history.restore` (the trash is a
    view of the history)."""
    from ..core.history import restore as restore_from_history

    return restore_from_history(brain, slug)


def trash_list(brain: Brain, limit: int = 100) -> list[dict]:
    """The trash, newest first (:func:`gbrain.core.history.trash_list`; ``limit`` 0: all)."""
    from ..core.history import trash_list as tl

    return tl(brain, limit=limit)


def _conflict_writers(conn, d: dict) -> tuple[str, str]:
    """``(kept_by, copy_by)`` of conflict row ``d`` (with a copy): the writers (history) of the
    version the path kept and of the one in the copy ('' when unknown). ``both-changed`` keeps the
    file's version and copies the brain's; ``no-base``/``stale-save`` the other way round. The
    copy's text is looked up among the page's versions first (a copy recorded before copies
    credited their author names the syncing folder's writer), then in the copy's own history."""
    kept, held = (d["db_hash"], d["file_hash"]) if d["kind"] in _KEEP_BRAIN else (d["file_hash"], d["db_hash"])
    key = key_for_path(conn, d["path"])
    copy_by = version_writer(conn, *key, held) or version_writer(conn, *key_for_path(conn, d["copy_path"]), held)
    return version_writer(conn, *key, kept), copy_by


def _conflict_origins(conn, d: dict) -> tuple[str, str]:
    """``(kept_origin, copy_origin)`` of conflict row ``d`` (with a copy): how the version the
    path kept and the one in the copy were written (the history's origin, ``mcp(claude-code)
    put``, ``watch file changed``; '' when unknown), looked up as :func:`_conflict_writers` does.
    One login on both sides (a person and their agent) is told apart by these: a session
    ``brain_put`` that clashed keeps the put's text and copies the folder's save, the other way
    round from sync's ``both-changed`` under the same kind (trial 38)."""
    kept, held = (d["db_hash"], d["file_hash"]) if d["kind"] in _KEEP_BRAIN else (d["file_hash"], d["db_hash"])
    key = key_for_path(conn, d["path"])
    return version_origin(conn, *key, kept), version_origin(conn, *key, held) or version_origin(conn, *key_for_path(conn, d["copy_path"]), held)


def conflict_list(brain: Brain, all: bool = False) -> list[dict]:
    """Conflicts, newest first. A conflict is ``open`` while its copy still exists in the brain
    (delete the copy once merged and it becomes ``resolved``); one without a copy is ``noted``.
    One with a copy says whose text is where: ``kept_by`` (the version the path kept) and
    ``copy_by`` (the copy's), writers from the history ('' when unknown), and whether the path
    still holds the version kept (``kept_now``: a later save or conflict may have replaced it).
    An open one says how to resolve it (``action``: :func:`gbrain.core.conflicts.resolve_how`, lint's words too). The
    copies come from :func:`gbrain.core.conflicts.copies`, the scan lint's ``conflicts`` check
    reads: besides the recorded conflicts, a copy of gbrain's whose record a dying sync never
    wrote, and a file-sync tool's copy (kind ``sync-tool``, ``tool`` names it; no record: open
    while it is in the brain, gone from the list once deleted), newest first after the rest."""
    held = {c.path: c for c in copies(brain.conn)}
    out = []
    for r in brain.conn.execute("SELECT * FROM sync_conflicts ORDER BY id DESC"):
        d = dict(r)
        cp = d["copy_path"]
        if cp is None:
            d["status"] = "noted"
        elif brain.conn.execute("SELECT 1 FROM pages WHERE path = ? UNION ALL SELECT 1 FROM files WHERE path = ?", (cp, cp)).fetchone():
            d["status"] = "open"
            if cp in held:
                d["action"] = resolve_how(held[cp])
        else:
            d["status"] = "resolved"
        if cp is not None:
            d["kept_by"], d["copy_by"] = _conflict_writers(brain.conn, d)
            d["kept_origin"], d["copy_origin"] = _conflict_origins(brain.conn, d)
        if all or d["status"] == "open":
            if cp is not None:
                # whether the note still holds the version kept (a later save or conflict replaced it)
                kept = d["db_hash"] if d["kind"] in _KEEP_BRAIN else d["file_hash"]
                now = brain.conn.execute("SELECT content_hash FROM pages WHERE path = ? UNION ALL SELECT content_hash FROM files WHERE path = ?",
                                         (d["path"], d["path"])).fetchone()
                d["kept_now"] = now is not None and kept is not None and now[0] == kept
            out.append(d)
    known = {r[0] for r in brain.conn.execute("SELECT copy_path FROM sync_conflicts WHERE copy_path IS NOT NULL")}
    tools = []
    for c in held.values():
        if c.tool is not None:
            tools.append({"id": None, "path": c.original, "copy_path": c.path, "kind": SYNC_TOOL, "tool": c.tool, "file_hash": None, "db_hash": None,
                          "base_hash": None, "created_at": c.made, "status": "open", "note": tool_copy_made(c), "action": resolve_how(c),
                          "kept_by": "", "copy_by": ""})
        elif c.path not in known:
            out.append({"id": None, "path": c.original, "copy_path": c.path, "kind": "both-changed", "file_hash": None, "db_hash": None,
                        "base_hash": None, "created_at": "", "status": "open", "note": "conflict copy without a record (a sync died before recording it)",
                        "action": resolve_how(c), "kept_by": "", "copy_by": ""})
    return out + sorted(tools, key=lambda c: (c["created_at"], c["copy_path"]), reverse=True)


__all__ = ["SyncEngine", "SyncError", "MassDeleteRefused", "Outcome", "conflict_copy_path", "moved_copy_path", "copy_renames", "move_copy", "restore", "trash_list", "conflict_list", "SYNC_TOOL"]


def _take_sync_lock(path: str, held: list[tuple[int, str]], failed: list[str] | None = None) -> tuple[int | None, list]:
    """Take the sync lock file ``path`` exclusively (never through a symlink): ``(fd, [])``;
    ``(None, [holder])`` when another process holds it (flock's EWOULDBLOCK only:
    :func:`_lock_holder`); ``(None, [])`` when its folder cannot hold it (the file cannot be
    opened, or its file system refuses flock otherwise: NFS without its lock daemon, ENOLCK; the
    file is left, a process whose locks work there may hold it; the reason appended to
    ``failed``), or it is one of ``held`` (the same file by another name)."""
    for _ in range(100):
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        except OSError as e:
            if failed is not None:
                failed.append(f"{path}: {e.strerror or e}")
            return None, []
        if any(_same_file(h, path) for h, _ in held):
            os.close(fd)
            return None, []
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            if e.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
                os.close(fd)
                if failed is not None:
                    failed.append(f"{path}: flock: {e.strerror or e}")
                return None, []
            holder = _lock_holder(fd)
            os.close(fd)
            return None, [holder]
        if _same_file(fd, path):
            return fd, []
        os.close(fd)
    raise SyncError(f"could not take the sync lock {path}")  # pragma: no cover - 100 closes racing one sync


def _let_go_sync_locks(held: list[tuple[int, str]]) -> None:
    """Remove each sync lock file of ``held`` (``(fd, path)``, :func:`_take_sync_lock`'s) that is
    still the file at its path (another process's is left; an error removing it ignored), still
    holding its lock, then close its descriptor (which lets the lock go)."""
    for fd, path in held:
        try:
            if _same_file(fd, path):
                os.unlink(path)
        except OSError:
            pass
        os.close(fd)


def _lock_holder(fd: int) -> dict | None:
    """What the holder of a sync lock wrote into its file (``{pid, surface, root}``), or None."""
    try:
        got = json.loads(os.pread(fd, 4096, 0).decode("utf-8", "surrogateescape") or "null")
    except (OSError, ValueError):
        return None
    return got if isinstance(got, dict) else None
