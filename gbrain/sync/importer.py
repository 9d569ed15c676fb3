"""Import a markdown tree into brain.db, losslessly and incrementally.

Every file under the root is kept (see :mod:`gbrain.sync.scan` for what is skipped and why):

* ``*.md`` that decodes as UTF-8 → a page (exact text + derived rows);
* ``<dir>/.raw/<name>.json`` → a ``raw`` file plus raw_data rows for page ``<dir>/<name>``;
* root ``index.md`` / ``schema.md`` / ``log.md`` → ``special`` files (config / ingest_log, per spec);
* anything else (attachments, invalid UTF-8, oversized markdown) → an exact ``blob``.

Incremental by content hash: a file whose sha256 equals the stored one is not written. Run again
on the folder the brain is bound to, it reads only the files whose stat moved: a file whose size
and change stamp are those ``sync_state`` recorded when it was last hashed (not racy) has that
hash, as ``sync`` trusts it (:class:`_Recorded`), and is read only if it must be written. Commits
every :data:`BATCH` files, so a killed import keeps what it finished and a re-run continues.
Run again on the folder the brain is bound to, it first pairs renames the way ``sync`` does
(:func:`_pair_moves`: a ``git mv`` or a rename keeps the page's id, history, tags, embeddings).
Import never deletes, and never writes into the tree (but a moved page's ``.raw`` sidecar,
renamed with it as ``sync`` renames it). Ends with the validation report of :mod:`gbrain.sync.verify`.
"""
from __future__ import annotations

import json
import operator
import os
import stat
import time
from pathlib import Path
from typing import Callable, Iterable

from ..core.brain import SPECIAL_FILES, Brain, file_kind, render_row, sha256
from ..storage.db import begin_write, bind_client, bulk_cache, commit, in_parts, rollback, sync_client, tuple_rows, vacuum_after_bulk
from ..storage.derive import PendingLinks
from ..page.journals import CONFIG, split_dirs
from ..page.links import graph_roots, is_graph_config
from ..page.markdown import page_property_syntax, reads_graphs
from ..page.slugs import cmd_arg, hidden_page_note, is_hidden_path, is_hidden_why, is_markdown, shown, slug_for_path, slug_problem, twin_warning
from ..page.slugs import nfc as slugs_nfc
from ..page.slugs import WINDOWS_PATH_MAX
from . import verify
from ..storage.origin import origin
from .parallel import PageParser, few_collections
from . import scan as scan_mod
from ..storage import blobs
from .scan import GONE_WHILE_READ, NOT_FOLLOWED, PURGED, READ_SETTLE_S, READ_TRIES, change_stamp, db_excludes, file_id, read_failure, read_settled, scan_tree

RACY_NS = 1_000_000_000  # as in the sync engine: a file this fresh is re-hashed by the next sync
BATCH = 500  # files per commit
#: config key set in an import's first committed batch of pages and removed in the same commit
#: as its link resolution at the end: a later import that finds it resolves every link again
RESOLVE_PENDING = "import_links_pending"
WINDOW = 2000  # files read, then parsed together
PROGRESS_STEP = 20  # files written between two progress reports (on_progress: the caller throttles what it shows)
MAX_PAGE_BYTES = 16 * 1024 * 1024
COMMIT_BYTES = 256 * 1024 * 1024  # non-page files: commit at least every this many bytes stored


def classify(path: str, data: bytes) -> tuple[str, str | None, str | None]:
    """``(kind, text, warning)``: kind is ``page`` or a file kind; text is set for pages."""
    if is_markdown(path) and path not in SPECIAL_FILES and "/.raw/" not in "/" + path:
        if len(data) > MAX_PAGE_BYTES:
            return "blob", None, f"{path}: larger than {MAX_PAGE_BYTES // (1024 * 1024)} MiB, kept as a file, not indexed"
        if b"\x00" in data:
            return "blob", None, f"{path}: contains NUL bytes (binary), kept as a file, not indexed"
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            return "blob", None, f"{path}: not valid UTF-8 (byte {e.start}), kept as a file, not indexed"
        why = slug_problem(slug_for_path(path))
        if is_hidden_why(why):  # a hidden note (.github/x.md): Obsidian shows none
            return "blob", None, f"{shown(path)}: {why}"
        if why:  # the one slug rule: a page no command could name is kept as a file, and said so
            return "blob", None, f"{shown(path)}: no command could name this page ({why}); kept as a file, not indexed"
        return "page", text, None
    return file_kind(path), None, None


def _binding(brain: Brain, root: Path) -> tuple[str, str | None]:
    """``(client, folder)``: this machine's sync client for ``root`` and the folder that client is
    bound to (None when it is unbound, or the brain predates sync)."""
    c = brain.conn
    client = sync_client(c, root)
    if not c.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sync_root'").fetchone():
        return client, None
    row = c.execute("SELECT root FROM sync_root WHERE client = ?", (client,)).fetchone()
    return client, (row[0] if row else None)


class _Recorded:
    """What ``sync_state`` recorded for the files of the folder the brain is bound to, read once
    (one statement, in path order on SQLite; the maps built in C): ``base`` (path → hash last
    imported/synced), ``stats`` (the ``(path, size, change stamp)`` each file had when it was
    last hashed; 0 for a racy one), ``disk`` (path → that hash) and ``rows`` (each row as
    ``(path, size, mtime_ns, disk_hash, base_hash, has a file_id)``: what
    :func:`_record_baseline` need not write again). All empty when the brain is not bound to the
    folder (a first import, another folder's brain): then every file is read."""

    __slots__ = ("base", "stats", "disk", "rows")

    def __init__(self, brain: Brain | None = None, client: str = "", bound: str | None = None, root: Path | None = None) -> None:
        self.base: dict[str, str] = {}
        self.stats: set[tuple[str, int, int]] = set()
        self.disk: dict[str, str] = {}
        self.rows: set[tuple] = set()
        if brain is None or bound != os.path.abspath(os.path.expanduser(str(root))):
            return
        q = "SELECT path, size, mtime_ns, disk_hash, base_hash, file_id IS NOT NULL FROM sync_state WHERE client = ?"
        if getattr(brain.conn, "dialect", "sqlite") != "postgres":
            q += " ORDER BY path"  # the (client, path) index, in order; left to itself SQLite takes (client, file_id)
        rows = list(tuple_rows(brain.conn, q, (client,)))
        paths = list(map(_PATH, rows))
        self.base = dict(zip(paths, map(_BASE, rows)))
        self.stats = set(map(_STAT, rows))
        self.disk = dict(zip(paths, map(_DISK, rows)))
        self.rows = set(rows)


_PATH, _STAT, _DISK, _BASE = operator.itemgetter(0), operator.itemgetter(0, 1, 2), operator.itemgetter(3), operator.itemgetter(4)
_FILE_PATH = operator.attrgetter("path")


def _bound_elsewhere(brain: Brain, client: str, bound: str | None, root: Path) -> tuple[str, int] | None:
    """(folder, page count) when ``brain`` already holds pages and is bound to a folder other
    than ``root`` (its first import or sync was of another tree), else None.

    SQLite has one client (``''``): bound to another folder means that client's folder differs.
    On Postgres every folder is a client of its own (``host:folder``), so ``root`` is a second
    folder when its client is not bound yet while another client is: the first such folder is
    named (``host:folder`` when it lives on another machine). Either way the import of a second
    folder keeps the brain's version of every path the brain has (README)."""
    absroot = os.path.abspath(os.path.expanduser(str(root)))
    if bound == absroot:
        return None
    if bound is None:
        if not client:
            return None
        # (an unnamed client of this very folder, from before clients existed, is this folder)
        row = brain.conn.execute("SELECT client, root FROM sync_root WHERE client != ? AND NOT (client = '' AND root = ?) ORDER BY id LIMIT 1",
                                 (client, absroot)).fetchone()
        if row is None:
            return None
        host = client.split(":", 1)[0]
        bound = row[1] if row[0].split(":", 1)[0] == host else row[0]
    n = brain.conn.execute("SELECT COUNT(*) FROM pages").fetchone()[0]
    return (bound, n) if n else None


def _current_hash(brain: Brain, path: str) -> str | None:
    r = brain.conn.execute("SELECT content_hash FROM pages WHERE path = ? UNION ALL SELECT content_hash FROM files WHERE path = ?", (path, path)).fetchone()
    return r[0] if r else None


def _absent(brain: Brain, items: list[tuple[str, str]]) -> set[str]:
    """The paths of ``items`` (``(path, slug)``) at which the brain holds no page or file and
    whose slug no page has: one query per 500 items."""
    c = brain.conn
    taken_paths: set[str] = set()
    taken_slugs: set[str] = set()
    for part, ph in in_parts(items):
        paths = [p for p, _ in part]
        taken_paths.update(r[0] for r in c.execute(f"SELECT path FROM pages WHERE path IN ({ph}) UNION ALL SELECT path FROM files WHERE path IN ({ph})", paths + paths))
        taken_slugs.update(r[0] for r in c.execute(f"SELECT slug FROM pages WHERE slug IN ({ph})", [s for _, s in part]))
    return {p for p, s in items if p not in taken_paths and s not in taken_slugs}


def _their_machine(brain: Brain, client: str) -> str:
    """The machine key recorded with sync client ``client`` (``sync_root.machine``) when it is
    another machine's, else ''. Its base rows are that machine's folder's: an import here pairs no
    renames against them and records no base over them (this machine's key '' when not stable:
    nothing checked, as ``SyncEngine._claim_machine``)."""
    from .engine import machine_key, machine_key_stable  # (engine imports this module)

    row = brain.conn.execute("SELECT machine FROM sync_root WHERE client = ?", (client,)).fetchone()
    mine = machine_key() if machine_key_stable() else ""
    return row[0] if row and row[0] and mine and row[0] != mine else ""


def _record_baseline(brain: Brain, root: Path, scan, hashes: dict[str, str], hashed_at: int, have: set[tuple]) -> None:
    """Bind the brain to ``root`` for `gbrain sync` (when it is unbound or bound to ``root``, and
    no other machine's key is recorded with its client: ``sync_root.machine``) and
    record every file just imported as in sync on both sides (base = its hash), with the stat
    the scan took (size and change stamp): the next import or sync trusts it and reads the file
    only when its stat moved. ``hashed_at`` (ns) is a time before any file was read: a file whose
    change stamp is within :data:`RACY_NS` of it is recorded racy (``mtime_ns`` 0, hashed again
    next time), as a write after its read could have kept the same stamp. ``have``: the rows of
    ``sync_state`` as the import read them (:class:`_Recorded`): a file recorded so already is not
    written again (a row another process changed since is left as that process wrote it).

    Without this, a later ``sync`` of the same folder would see pages edited through gbrain after
    the import as changed on *both* sides (no base) and turn them into conflicts.
    """
    has = brain.conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sync_root'").fetchone()
    if not has:
        return
    abs_root = str(Path(os.path.abspath(os.path.expanduser(str(root)))))
    client = sync_client(brain.conn, abs_root)
    row = brain.conn.execute("SELECT root, machine FROM sync_root WHERE client = ?", (client,)).fetchone()
    from .engine import machine_key, machine_key_stable  # (engine imports this module)

    mine = machine_key() if machine_key_stable() else ""
    if row and (row[0] != abs_root or _their_machine(brain, client)):
        return  # bound to another folder, or another machine syncs it (one client id): its base stays as it is
    if not row:
        brain.conn.execute("DELETE FROM sync_state WHERE client = ?", (client,))
        bind_client(brain.conn, client, abs_root, mine)
        have = set()
    fresh = hashed_at - RACY_NS
    rows = []
    for f in scan.files:
        h = hashes.get(f.path)
        if h is None:
            continue
        rec = (f.path, f.size, f.mtime_ns if f.mtime_ns <= fresh else 0, h, h)
        if (*rec, 1) in have:  # recorded so, with a file_id: an unchanged tree writes nothing
            continue
        try:  # the file's identity (device, inode): a later rename pairs by it (sync/plan.py)
            st = os.lstat(f.abspath)
            fid = file_id(st) if st.st_size == f.size and change_stamp(st) == f.mtime_ns else None
        except OSError:
            fid = None
        rows.append((client, *rec, fid))
    brain.conn.executemany(
        "INSERT INTO sync_state(client, path, size, mtime_ns, disk_hash, base_hash, file_id) VALUES (?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT(client, path) DO UPDATE SET size = excluded.size, mtime_ns = excluded.mtime_ns, disk_hash = excluded.disk_hash, "
        "base_hash = excluded.base_hash, file_id = excluded.file_id",
        rows,
    )


def _pair_moves(brain: Brain, root: Path, scan, stored: dict[str, tuple[str, str]], base: dict[str, str],
                warn: Callable[[str], None]) -> tuple[list[tuple[str, str]], dict[str, str]]:
    """Renames since the last import or sync of ``root`` (the folder the brain is bound to:
    ``base`` is its ``sync_state``), carried out by the sync engine's rules before the import
    proper (:meth:`~gbrain.sync.engine.SyncEngine.reconcile` with ``moves_only``: the same
    pairing by inode, then identical bytes, then similar text; :mod:`gbrain.sync.similar`): a
    path the base and the brain hold that is gone from the folder, and a path new to both, are
    one page moved, which keeps its row. A page edited in the brain since the base moves with
    the brain's text and keeps its base at the new path: its text is left to ``gbrain sync``
    (which merges the two edits, or writes the brain's to the file), so the import keeps the
    brain's version there. Nothing else is changed: a path gone and not paired stays in the
    brain (import never deletes; ``gbrain sync`` does), a new path not paired is imported after.
    Returns the ``(old, new)`` paths moved and ``{new: old}`` for the moves left to sync;
    ``stored`` (path → (hash, kind)) is updated. Skipped, with a warning, while a sync or watch
    holds the folder's lock (its own rounds pair the moves)."""
    on_disk = set(map(_FILE_PATH, scan.files))
    gone = [p for p in base if p not in on_disk and p in stored]
    if not gone:  # (the common case: nothing gone, no list of the new paths)
        return [], {}
    new = [p for p in on_disk if p not in stored and p not in base]
    if not new:
        return [], {}
    from .engine import SyncEngine, SyncError  # the engine imports this module

    eng = SyncEngine(brain, root, warn=warn)
    eng.surface = "import"
    try:
        eng.bind()
    except SyncError as e:
        warn(f"renames were not paired ({e}); that sync or watch pairs them")
        return [], {}
    try:
        out = eng.reconcile(new, maybe_moved=gone, moves_only=True)
    finally:
        eng.close()
    left = {dst: old for old, dst in out.moved if dst in out.both_moved}
    for old, dst in out.moved:
        row = stored.pop(old, None)
        h = row[0] if dst in left and row is not None else out.disk_hashes.get(dst)  # left to sync: the brain's text moved
        if row is not None and h is not None:
            stored[dst] = (h, row[1])
    return list(out.moved), left


class _FirstBySlug:
    """Which path of a scan holds a page's slug first: the first of the scan's markdown files read
    (those with a hash) whose slug it is, in scan order. Built only as far as asked (a re-import
    that writes no page builds none of it)."""

    __slots__ = ("files", "hashes", "by_slug", "upto")

    def __init__(self, files: list, hashes: dict[str, str]) -> None:
        self.files, self.hashes, self.by_slug, self.upto = files, hashes, {}, 0

    def first(self, i: int) -> str | None:
        """The path before ``files[i]`` (a markdown file just read) holding its slug, or None
        when it is the first to hold it."""
        by_slug, hashes = self.by_slug, self.hashes
        for f in self.files[self.upto : i + 1]:
            if f.path in hashes and is_markdown(f.path):
                by_slug.setdefault(slug_for_path(f.path), f.path)
        self.upto = max(self.upto, i + 1)
        p = self.files[i].path
        first = by_slug[slug_for_path(p)]
        return None if first == p else first


def _read_stable(f) -> tuple[bytes, bool]:
    """The bytes of page file ``f`` (a scan's ``FileInfo``), read whole, and whether the file
    kept changing (:func:`~gbrain.sync.scan.read_settled`, sync's read too): such bytes are
    stored as last read, with change stamp 0 (recorded as racy: the next import reads the file
    again). Raises ``OSError`` as ``read_settled``."""
    data, settled = read_settled(f.abspath, f)
    if not settled:
        f.mtime_ns = 0
    return data, not settled


def _read_or_hash(f, page_path: bool, warn) -> tuple[bytes | None, str]:
    """``(bytes, sha256)`` of a page file ``f`` read whole, ``(None, sha256)`` of any other
    (hashed only: read again when stored). Raises ``OSError``."""
    if page_path and f.size <= MAX_PAGE_BYTES:
        data, moving = _read_stable(f)
        if moving:
            warn(f"{f.path}: changed while being read (an editor saving it?); stored as last read; "
                 f"run `gbrain import` again once it is saved")
        return data, sha256(data)
    return None, (verify.sha256_file(f.abspath) if f.size > verify.WHOLE_READ else verify._sha256_sized(f.abspath, f.size))


def _settle_young(young: list[list], settle: float, warn) -> list[tuple[list, str | None]]:
    """Look again at the files of ``young`` (``[i, f, old, page_path, data, h]`` entries, read
    with a change stamp within ``scan.YOUNG_NS`` of the read) after ``settle`` seconds
    (``scan.settle_pause``, once for them all), as sync's rounds do
    (``SyncEngine._settle_young``): an editor saving in pieces leaves a file whose stat agrees
    before and after a read made between two pieces. A file whose stat moved is read again (its
    entry takes the new bytes and hash) and looked at again, up to ``READ_TRIES`` pauses; one
    still moving at the last is stored as last read, recorded racy (the next import reads it
    again), and said. Returns the entries to drop: ``(entry, None)`` gone (or no longer a regular
    file), ``(entry, scan.NOT_FOLLOWED)`` a symlink now (never followed: left alone as the walk
    leaves one), ``(entry, reason)`` unreadable."""
    drop: list[tuple[list, str | None]] = []
    for attempt in range(READ_TRIES):
        if not young:
            break
        scan_mod.settle_pause(scan_mod.settle_left([e[1].mtime_ns for e in young], settle))
        moved = []
        for e in young:
            f = e[1]
            try:
                st = os.lstat(f.abspath)
                if not stat.S_ISREG(st.st_mode):  # replaced meanwhile by a symlink (never followed), a folder: not read
                    drop.append((e, NOT_FOLLOWED if stat.S_ISLNK(st.st_mode) else None))
                    continue
                if st.st_size == f.size and change_stamp(st) == f.mtime_ns:
                    continue
                if attempt == READ_TRIES - 1:
                    f.mtime_ns = 0  # racy: read again by the next import
                    warn(f"{f.path}: still being written (it changed within {settle * 1000:g} ms of each of {READ_TRIES} reads); "
                         f"stored as last read; run `gbrain import` again once it is saved")
                    continue
                f.size, f.mtime_ns = st.st_size, change_stamp(st)
                e[4], e[5] = _read_or_hash(f, e[3], warn)
            except OSError as err:
                why = read_failure(err)
                drop.append((e, None if why is GONE_WHILE_READ else why if why is NOT_FOLLOWED else why.error))
                continue
            moved.append(e)
        young = moved
    return drop


def _tree_name_format(abspath: str) -> str:
    """The ``:file/name-format`` (and journal formats) of the Logseq ``config.edn`` at ``abspath`` in the tree being
    imported (:func:`gbrain.page.journals.graph_value`; ``legacy`` for one unreadable or not UTF-8,
    as a stored one: such a config's own save derives the graph's pages again if it differs)."""
    from ..page.journals import graph_value

    from ..storage.blobs import BIG

    try:
        if os.path.getsize(abspath) > BIG:  # stored in pieces: never read as a config
            return "legacy"
        with open(abspath, "rb") as fh:
            return graph_value(fh.read().decode("utf-8"))
    except (OSError, UnicodeDecodeError):
        return "legacy"


def import_tree(
    brain: Brain,
    root: str | os.PathLike,
    *,
    on_progress: Callable[[int, int], None] | None = None,
    on_warning: Callable[[str], None] | None = None,
    surface: str = "import",
    include_purged: bool = False,
    settle: float = READ_SETTLE_S,
) -> dict:
    """Import ``root`` into ``brain``; return the validation report (``ok`` false on mismatch).

    A file read with a change stamp within ``scan.YOUNG_NS`` of its read (maybe a save still being
    written in pieces) is looked at again after ``settle`` seconds (:func:`_settle_young`, once
    per window of files; 0: never), as sync's rounds do.
    ``surface`` is recorded as the origin of the versions written (``sync`` passes its own).
    A file whose bytes are exactly a version ``gbrain purge`` removed is not imported (named in
    a warning and the report's ``purged_skipped``: it would undo the purge) unless
    ``include_purged``. The copies a file-sync tool made that the tree holds (stored as any file)
    are the report's ``conflicts`` (kind ``sync-tool``: :func:`gbrain.core.conflicts.tool_copies_among`;
    the first ``verify.MAX_LISTED``, ``conflict_count`` all), keys only when there is one; ``ok``
    and the exit code do not change.
    Raises ``FileNotFoundError`` / ``NotADirectoryError`` / ``PermissionError`` for a bad root.
    """
    # (a bulk write's page cache, db.bulk_cache: the same rows, less CPU re-reading pages the default one dropped)
    with origin(surface=surface), few_collections(), blobs.confined(root), bulk_cache(brain.conn):  # (no read through a symlinked folder)
        return _import_tree(brain, root, on_progress, on_warning, surface, include_purged, settle)


#: portability warnings an import gives one by one; the rest are counted in one more line
PORTABLE_LISTED = 10


def promote_twin(brain: Brain, path: str) -> str | None:
    """After the page at ``path`` was removed (inside the caller's transaction): a markdown file
    kept as a file only because ``path`` held its page name (its NFC/NFD twin, or ``.MD``
    beside ``.md``: :func:`~gbrain.page.slugs.twin_warning`) becomes that page, from its stored
    bytes, as a fresh import of the folder would make it. Returns the promoted file's path, or
    None (no such twin, or another page holds the name)."""
    from ..storage import blobs

    slug = slug_for_path(path)
    conn = brain.conn
    if conn.execute("SELECT 1 FROM pages WHERE slug = ?", (slug,)).fetchone():
        return None
    for (q,) in conn.execute("SELECT path FROM files WHERE kind = 'blob' AND lower(path) LIKE '%.md' ORDER BY path").fetchall():
        if q == path or slug_for_path(q) != slug:
            continue
        data = blobs.file_bytes(conn, q)
        kind, text, _w = classify(q, data) if data is not None else ("blob", None, None)
        if kind != "page":
            continue
        conn.execute("DELETE FROM files WHERE path = ?", (q,))
        brain.save_page(q, text)
        return q
    return None


def first_and_more(paths: list[str], noun: str = "") -> str:
    """The first of ``paths`` in sorted order, :func:`shown`, and how many others (``"a.md and 2
    more file(s)"`` with ``noun`` " file(s)"; the first alone when it is the only one): how an
    import's one-line advice names the paths it is about. ``paths`` must not be empty."""
    first = min(paths)
    return shown(first) + (f" and {len(paths) - 1:,} more{noun}" if len(paths) > 1 else "")


#: extensions other programs give markdown notes; gbrain (as Obsidian) reads ``.md`` only
OTHER_MARKDOWN = (".markdown", ".mdown", ".mkd", ".mkdn", ".mdwn")


def other_markdown_warning(new_paths: Iterable[str]) -> list[str]:
    """One warning for the files of ``new_paths`` whose extension is markdown's but not ``.md``
    (:data:`OTHER_MARKDOWN`, any case): kept byte for byte as files, not pages (not searched,
    their links not read), so the person knows why search misses them. ``[]`` when none."""
    found = [p for p in new_paths if p.lower().endswith(OTHER_MARKDOWN)]
    if not found:
        return []
    return [f"{first_and_more(found, ' file(s)')}: markdown under another extension than .md, kept as a file (not searched, its links not read); "
            "rename to .md to make a page of it"]


def property_syntax_hint(brain: Brain, all_paths: Iterable[str], new_paths: set[str]) -> list[str]:
    """One line of advice when the tree is a Logseq graph (a ``logseq/config.edn`` at any depth)
    whose new pages opening with ``key::`` lines lie outside a ``pages/`` or ``journals/`` folder:
    under ``property_syntax auto`` they are read as Dataview fields, so ``title::``, ``alias::`` and
    ``tags::`` name and tag nothing; the setting ``logseq`` reads them as Logseq does. Advice only
    (what the pages derive is unchanged); ``[]`` otherwise (another setting chosen, no such page)."""
    from ..page.markdown import logseq_properties, page_property_syntax, reads_logseq_properties

    if brain.property_syntax != "auto" or not any(p == CONFIG or p.endswith("/" + CONFIG) for p in all_paths):
        return []
    found = []
    graphs = graph_roots(brain.conn)
    for path, body in brain.conn.execute("SELECT path, compiled_truth FROM pages WHERE compiled_truth LIKE '%::%'"):
        if (path in new_paths and not reads_logseq_properties(path, "auto") and not page_property_syntax(path, "auto", graphs).startswith("logseq")
                and logseq_properties(body.replace("\r\n", "\n"))):
            found.append(path)
    if not found:
        return []
    return [f"{CONFIG} marks a Logseq graph, but {first_and_more(found)} lie outside its pages/ and journals/ folders: "
            "their opening key:: lines are read as Dataview fields (title::, alias::, tags:: name and tag nothing); "
            "`gbrain config set property_syntax logseq` reads them as Logseq page properties"]


def plain_rule_hint(brain: Brain, new_paths: set[str]) -> list[str]:
    """One line of advice when this import added pages whose first ``---`` reads as their timeline
    separator (``timeline_split rule``, the default) although the text below it holds a heading
    and no timeline entry: a plain rule, as Obsidian vaults use it (trial 71: the README asks for
    ``timeline_split heading`` "before the first timeline write", and nothing told a person whether
    their vault is one). Advice only: what the pages derive is unchanged. ``[]`` otherwise."""
    import re

    if not new_paths or brain.timeline_split != "rule":
        return []
    found = []
    rows = brain.conn.execute(
        "SELECT path, timeline FROM pages p WHERE timeline <> '' "
        "AND NOT EXISTS (SELECT 1 FROM timeline_entries t WHERE t.page_id = p.id)")
    for path, timeline in rows:
        if path in new_paths and re.search(r"(?m)^#{1,6}[ \t]", timeline):
            found.append(path)
    if not found:
        return []
    return [f"{first_and_more(found)}: a `---` above text with headings and no timeline entry, read as the timeline's separator; "
            "if these notes use `---` as a plain rule (as Obsidian vaults do), run `gbrain config set timeline_split heading` "
            "before the first timeline write (docs/commands.md#the-page-format)"]


def portability_warnings(brain: Brain, new_paths: set[str]) -> list[str]:
    """Warnings for the name problems (:func:`gbrain.page.slugs.portability_problems`) that
    involve a path of ``new_paths`` (those this import added: a tree re-imported unchanged says
    nothing again): one per group of names that are one name on macOS and Windows, or a folder
    spelled two ways (a copy of the folder there loses or merges files), at most
    :data:`PORTABLE_LISTED`, the paths first as in every import warning; the names Windows
    alone cannot hold in one line (a vault kept on Linux and macOS may hold many). The last
    names `gbrain lint --check portable_names`. ``[]`` when ``new_paths`` is empty (no query)."""
    if not new_paths:
        return []
    from ..page.slugs import portability_problems, unicode_form

    paths = [r[0] for r in brain.conn.execute("SELECT path FROM pages UNION ALL SELECT path FROM files")]
    found: list[str] = []
    windows: list[str] = []
    for pr in portability_problems(paths, windows_of=new_paths):
        if pr["kind"] == "folder_case":
            pre = tuple(f + "/" for f in pr["paths"])
            if not any(p.startswith(pre) for p in new_paths):
                continue
        elif not new_paths.intersection(pr["paths"]):
            continue
        if pr["kind"] == "windows":
            windows.append(pr["path"])
            continue
        note = brain.sidecars_note(pr["paths"]) if pr["kind"] == "case" else None
        if note:  # two sidecars of one page (ana.json, ana.JSON): which one gbrain reads
            found.append(f"{shown(pr['path'])}: {note}; their names are one name on macOS and Windows, where a copy of the folder keeps one of them")
            continue
        alike = len({slugs_nfc(p) for p in pr["paths"]}) < len(pr["paths"])  # look the same: each one's form said
        found.append(", ".join(shown(p) + ((unicode_form(p) or " (NFC)") if alike else "") for p in pr["paths"]) + f": {pr['why']}")
    if len(found) > PORTABLE_LISTED:
        found[PORTABLE_LISTED:] = [f"… and {len(found) - PORTABLE_LISTED:,} more names that are one name on macOS and Windows"]
    if windows:
        found.append(first_and_more(windows, " file(s)") + ": names Windows cannot hold (a reserved device name, one of < > : \" | ? * \\, a name ending in a dot or space, "
                     f"or a path over {WINDOWS_PATH_MAX} characters): a copy of the folder there would lack them")
    if found:
        found[-1] += "; `gbrain lint --check portable_names` lists them all, with what to do"
    return found


def _import_tree(brain: Brain, root, on_progress, on_warning, surface: str = "import", include_purged: bool = False,
                 settle: float = READ_SETTLE_S) -> dict:
    from ..core.purge import PurgedBytes, skip_warning
    from ..core.conflicts import tool_copies_among

    rootp = Path(root)
    hashed_at = time.time_ns()  # before any file is stat-ed or read (_record_baseline's racy rule)
    scan = scan_tree(rootp, exclude_abs=db_excludes(brain.path))
    stored = {r[0]: (r[1], "page") for r in brain.conn.execute("SELECT path, content_hash FROM pages")}
    # pages a brain stored under a hidden name before the hidden rule (slugs.HIDDEN_WHY): read
    # again, whatever their stat, so the note becomes the file it now is (the page trashed, said)
    hidden_pages = {p for p in stored if is_hidden_path(p)}  # (stored: the pages only, so far)
    pages_before = len(stored)
    client, bound = _binding(brain, rootp)
    recorded = _Recorded(brain, client, bound, rootp)
    base = recorded.base
    kept_brain: list[str] = []
    kept_other: list[str] = []  # (of kept_brain: another folder's page at the path, no brain edit)
    stored.update({r[0]: (r[1], r[2]) for r in brain.conn.execute("SELECT path, content_hash, kind FROM files")})
    warnings: list[str] = []

    def warn(msg: str) -> None:
        warnings.append(msg)
        if on_warning:
            on_warning(msg)

    vanished: list[str] = []
    # bytes a purge removed (config purge_log): a file holding exactly them (an older export, a
    # teammate's copy) is left out, said, so the purge is not undone; other bytes are imported
    purged = PurgedBytes(brain.conn) if not include_purged else None
    purged_skipped: list[str] = []
    again = f"gbrain {'import' if surface == 'import' else 'sync'} {cmd_arg(str(root))}"

    def linked(path: str) -> None:
        # swapped for a symlink after the walk (the open refused it: blobs.open_nofollow): left
        # alone, its page kept, as the walk leaves a symlink (scan.NOT_FOLLOWED)
        scan.skipped.append((path, NOT_FOLLOWED))

    def gone(path: str, held: bool) -> None:
        # deleted or renamed in the folder after the scan listed it: the person's change, not a
        # failure (as sync's "deleted or moved while read"); `gbrain sync` takes the deletion
        vanished.append(path)
        warn(f"{path}: deleted or moved in the folder while this import read it; "
             + ("the brain keeps its version as it was" if held else "not imported"))

    def cannot_read(path: str, why: str) -> None:
        # a file the scan listed that could not be read: said, its page kept as it was
        read_errors.append((path, why))
        warn(f"{path}: cannot read ({why}); left as it was in the DB")

    def unread(path: str, e: OSError, held: bool) -> None:
        # a read of a listed file that failed: gone since the scan, a symlink now, or unreadable
        # (scan.read_failure: sync's reading of it too)
        why = read_failure(e)
        if why is GONE_WHILE_READ:
            gone(path, held)
        elif why is NOT_FOLLOWED:
            linked(path)
        else:
            cannot_read(path, why.error)

    other = _bound_elsewhere(brain, client, bound, rootp)
    if other:
        there = f"the next `gbrain sync {cmd_arg(other[0])}` writes them there too" if not client else "every folder synced with this brain gets them on its next sync"
        warn(f"this brain already holds {other[1]:,} pages from {other[0]}; the pages of {root} "
             f"are added beside them, and {there}; a file at a path "
             f"the brain already has keeps the brain's version (to keep a separate brain, pass --db NEW.db)")
    theirs = _their_machine(brain, client) if base and not other else ""
    if theirs:  # (its base is that machine's folder's: nothing to pair this folder's renames against)
        warn(f"renames were not paired and no base is recorded: another machine (key {theirs}) syncs {root} with this brain "
             f"under the same sync client (`gbrain sync-clients` lists it); the files are imported as an unsynced folder's")
    moved, left = _pair_moves(brain, rootp, scan, stored, base, warn) if base and not other and not theirs else ([], {})
    if moved:
        recorded = _Recorded(brain, client, bound, rootp)
        base = recorded.base
        if any(not is_markdown(a) for a, _ in moved):  # a sidecar renamed with its page: walk again
            scan = scan_tree(rootp, exclude_abs=db_excludes(brain.path))
    # the files of the folder the brain is bound to whose stat is as recorded when they were
    # last hashed, not racy (a racy row's mtime_ns 0 is never taken: the stamp is checked not 0):
    # their hash is the recorded one, as sync trusts it (SyncEngine.reconcile), and they are read
    # only when that hash says they must be written (a re-import reads what changed, as sync does)
    known, known_hash = (recorded.stats, recorded.disk) if not other else (set(), {})
    hashes: dict[str, str] = {}
    read_errors: list[tuple[str, str]] = []
    pending_files: list[tuple[str, str, str]] = []  # path, file on disk, kind: read when stored
    written_pages: list[str] = []
    parsed_counts: dict[str, tuple[int, int, int]] = {}
    changed_names: set[str] = set()
    counts = {"pages_written": 0, "files_written": 0, "unchanged": 0}
    if moved:
        counts["moved"] = len(moved)
    n = len(scan.files)
    split, tag_syntax, property_syntax = brain.timeline_split, brain.tag_syntax, brain.property_syntax
    # the Logseq graphs the brain will hold (a `logseq/config.edn` stored or in the tree): a page of
    # one's pages/journals folders is parsed as Logseq's at once (page_property_syntax); the pages
    # this import writes are then no work for the config's own save (Brain.graph_config_changed)
    graphs = ({**graph_roots(brain.conn), **{f.path[: -len(CONFIG)].rstrip("/"): _tree_name_format(f.abspath) for f in scan.files if is_graph_config(f.path)}}
              if reads_graphs(property_syntax) else {})
    parsed_paths: set[str] = set()
    # an import killed after committing pages and before resolving links at its end: every link
    # is resolved again by this one, which may find nothing else to do (RESOLVE_PENDING)
    resolve_all = brain.get_config(RESOLVE_PENDING) is not None
    marked = False

    def may_replace(path: str) -> bool:
        """Inside the write transaction, on the brain's current bytes (another process may have
        written the path since the scan): False when the brain's version must be kept; a brain
        version the folder never had is marked in its history as trashed before it is replaced."""
        cur = _current_hash(brain, path)
        if cur is None or cur == hashes[path]:
            return True
        if other:  # the brain mirrors another folder: its page is that folder's note, not this file's
            kept_brain.append(path)
            kept_other.append(path)
            take = f"gbrain put {cmd_arg(slug_for_path(path))} --file {cmd_arg(os.path.join(str(rootp), path))}" if is_markdown(path) else "import it into another brain (--db)"
            warn(f"{path}: differs from the page the brain has from {other[0]}; kept the brain's version "
                 f"(to take this file's instead: `{take}`)")
            return False
        b = base.get(path)
        if b is not None and hashes[path] == b:
            kept_brain.append(path)
            warn(f"{path}: edited in the brain since the last import; kept the brain's version (`gbrain sync {cmd_arg(root)}` writes it to the file)")
            return False
        if cur != b:
            from ..core.history import mark_replaced

            v = mark_replaced(brain, path, "replaced by import")
            name = brain.conn.execute("SELECT slug FROM pages WHERE path = ?", (path,)).fetchone()
            name = name[0] if name else path
            warn(f"{path}: the brain's version differed from the file and was replaced; it is in the trash "
                 f"(version {v} of its history: `gbrain revert {cmd_arg(name)} --to {v}`)")
        return True

    new_pages: list[tuple[str, str, object]] = []
    # the new pages' links: written once, resolved, at the end (a killed import leaves them to
    # the next one: RESOLVE_PENDING, Brain.derive_missing_links)
    pending_links = PendingLinks()

    def flush() -> None:
        for res in brain.save_new_pages(new_pages, defer_links=pending_links):
            took(res)
        new_pages.clear()
        pending_links.spill(brain.conn)

    def took(res) -> None:
        parsed_paths.add(res.path)
        for pw in res.warnings:
            warn(f"{res.path}: {pw}")
        written_pages.append(res.slug)
        changed_names.update(res.names)
        if res.counts:
            parsed_counts[res.slug] = res.counts
        counts["pages_written"] += 1

    slugs = _FirstBySlug(scan.files, hashes)  # two spellings of one slug (NFC vs NFD names): the second stays a file
    unchanged = 0
    done = 0
    parser = PageParser()
    brain.check_sound()
    begin_write(brain.conn)
    # the file as this process's passing check (or its last import) left it: the state this
    # import's commits leave is recorded as vouched for by that check (Brain.record_writes), so
    # a `verify` right after need not read the whole file again
    vouch = brain.vouch_base()
    brain._tx_depth = 1
    try:
        if on_progress:
            on_progress(0, n)  # (a terminal's bar shows from the start, not at the first commit)
        for w0 in range(0, n, WINDOW):
            # 1. read and hash a window of files; keep the changed ones
            changed: list[tuple[str, str | None, bytes | None, str, str | None]] = []  # path, text, data, kind, old kind
            got: list[list] = []  # [i, f, old, page_path, data, h] of the files read (or trusted)
            young: list[list] = []  # those read with a change stamp within YOUNG_NS: looked at again
            now = time.time_ns()
            for i, f in enumerate(scan.files[w0 : w0 + WINDOW], w0):
                path = f.path
                old = stored.get(path)
                page_path = False
                trusted = known_hash[path] if old is not None and f.mtime_ns and (path, f.size, f.mtime_ns) in known and path not in hidden_pages else None
                if trusted is not None and (old[0] == trusted or trusted == base.get(path)):
                    # the file's stat is as recorded when it was last hashed: its hash is the
                    # recorded one, taken without a read where the file needs no writing
                    # (unchanged, or a brain edit kept below); any other file is read
                    h, data = trusted, None
                else:
                    # a page is read whole (it is parsed); any other file is only hashed here (in
                    # pieces when big) and read again when it is stored: a window of attachments
                    # is never held in memory
                    page_path = is_markdown(path) and path not in SPECIAL_FILES and "/.raw/" not in "/" + path
                    try:
                        data, h = _read_or_hash(f, page_path, warn)
                    except OSError as e:
                        unread(path, e, old is not None)
                        continue
                    if settle and f.mtime_ns and now - f.mtime_ns < scan_mod.YOUNG_NS:
                        young.append([i, f, old, page_path, data, h])
                        got.append(young[-1])
                        continue
                got.append([i, f, old, page_path, data, h])
            if young:
                dropped = set()
                for e, why in _settle_young(young, settle, warn):
                    dropped.add(e[0])
                    if why is None:
                        gone(e[1].path, e[2] is not None)
                    elif why is NOT_FOLLOWED:
                        linked(e[1].path)
                    else:
                        cannot_read(e[1].path, why)
                if dropped:
                    got = [e for e in got if e[0] not in dropped]
            for i, f, old, page_path, data, h in got:
                path = f.path
                if purged and h in purged:
                    purged_skipped.append(path)
                    warn(skip_warning(path, again))
                    continue
                hashes[path] = h
                if old and old[0] == h and path not in hidden_pages:
                    unchanged += 1
                    continue
                if old is not None and path in left:
                    # renamed in the folder from a page edited in the brain: the page moved with
                    # the brain's text and its base; `gbrain sync` merges or writes
                    kept_brain.append(path)
                    warn(f"{path}: renamed in the folder from {left[path]}, whose page was edited in the brain since the last import: "
                         f"the page moved here with the brain's version; `gbrain sync {cmd_arg(root)}` "
                         + ("writes it to the file" if h == base.get(path) else "merges the file's edits into it"))
                    continue
                if old is not None:
                    b = base.get(path)
                    if b is not None and h == b and old[0] != b:
                        # the file is as last imported/synced, the brain was edited since: the
                        # brain's version is the newer one; `gbrain sync` writes it to the file
                        kept_brain.append(path)
                        warn(f"{path}: edited in the brain since the last import; kept the brain's version (`gbrain sync {cmd_arg(root)}` writes it to the file)")
                        continue
                if data is not None:
                    kind, text, w = classify(path, data)
                elif page_path:
                    kind, text, w = "blob", None, f"{path}: larger than {MAX_PAGE_BYTES // (1024 * 1024)} MiB, kept as a file, not indexed"
                else:
                    kind, text, w = file_kind(path), None, None
                if kind == "page":
                    clash = slugs.first(i)
                    if clash:
                        kind, text, w = "blob", None, twin_warning(path, clash)
                if w and path in hidden_pages:  # (a hidden note is never classified a page)
                    w += hidden_page_note(path)
                if w:
                    warn(w)
                changed.append((f.path, text, f.abspath, kind, old[1] if old else None))
            # 2. parse the changed pages (in worker processes when there are many)
            parsed = iter(parser.parse([(p, t, split, tag_syntax, page_property_syntax(p, property_syntax, graphs))
                                        for p, t, _, k, _ in changed if k == "page"]))
            # 3. write them, committing every BATCH files
            for c0 in range(0, len(changed), BATCH):
                chunk = changed[c0 : c0 + BATCH]
                # the window's share done so far is said every PROGRESS_STEP files (the first
                # commit of BATCH files came 19-27 s into a big import on a loaded machine, past
                # the 10 s a plain progress line is promised at): a file counts half once parsed,
                # half once written (its chunk committed, or its own save)
                span, twice = min(n, w0 + WINDOW) - w0, 2 * len(changed)
                pages = []
                for k, (_, _, _, kind, _) in enumerate(chunk, 1):
                    pages.append(next(parsed) if kind == "page" else None)  # parsing goes on meanwhile
                    if on_progress and k % PROGRESS_STEP == 0:
                        on_progress(w0 + span * (2 * c0 + k) // twice, n)
                # pages at a path and slug the brain does not hold (read inside the write
                # transaction: another process may have written since the scan) are stored
                # together, with one statement per table (Brain.save_new_pages)
                fresh = _absent(brain, [(p, slug_for_path(p)) for p, _, _, k, ok in chunk if k == "page" and ok is None])
                for j, ((path, text, abspath, kind, old_kind), page) in enumerate(zip(chunk, pages)):
                    if on_progress and j % PROGRESS_STEP == 0 and j:
                        on_progress(w0 + span * (2 * c0 + len(chunk) + j) // twice, n)
                    if kind == "page" and path in fresh:
                        new_pages.append((path, text, page))
                        continue
                    if kind == "page" or old_kind == "page":
                        # in order: what is written, and warned, is as page by page (a file
                        # that stays a file is only queued here, written after every page)
                        flush()
                    if (kind == "page" or old_kind == "page") and not may_replace(path):
                        continue  # (a page whose file is now a blob replaces a brain edit too: said, trashed)
                    if kind == "page":
                        if old_kind and old_kind != "page":
                            brain.conn.execute("DELETE FROM files WHERE path = ?", (path,))
                        took(brain.save_page(path, text, resolve_incoming=False, touch_sidecar=False, page=page, resolve_links=False))
                    else:
                        if old_kind == "page":
                            changed_names |= brain.remove_page_row(path, resolve_incoming=False) or set()
                        pending_files.append((path, abspath, kind))
                        counts["files_written"] += 1
                flush()
                if not marked and (written_pages or changed_names):
                    brain.conn.execute("INSERT INTO config(key, value) VALUES (?, '1') ON CONFLICT(key) DO NOTHING", (RESOLVE_PENDING,))
                    marked = True
                commit(brain.conn)
                begin_write(brain.conn)
                if on_progress and c0 + BATCH < len(changed):
                    # the window's share written so far (a window of 2,000 files took 27 s on a
                    # loaded machine: its one report came too late for a 10 s progress line)
                    on_progress(w0 + (min(n, w0 + WINDOW) - w0) * (c0 + BATCH) // len(changed), n)
            done = min(n, w0 + WINDOW)
            if on_progress:
                on_progress(done, n)
        # files after pages, so sidecars find their page
        in_tx = stored_bytes = 0
        brain._graph_parsed = parsed_paths
        for path, abspath, kind in pending_files:
            if not may_replace(path):
                continue
            try:
                res, got = brain.save_file_from(path, abspath, kind, hashes[path])
            except OSError as e:
                unread(path, e, stored.get(path) is not None)
                hashes.pop(path, None)
                counts["files_written"] -= 1
                continue
            if got != hashes[path]:  # changed since it was hashed: what was stored is what counts
                hashes[path] = got
            for w in res or []:
                warn(w)
            in_tx += 1
            try:
                stored_bytes += os.path.getsize(abspath)
            except OSError:  # gone since it was stored
                pass
            if in_tx >= BATCH or stored_bytes >= COMMIT_BYTES:  # bounded transactions (and WAL)
                commit(brain.conn)
                begin_write(brain.conn)
                in_tx = stored_bytes = 0
        brain._graph_parsed = frozenset()
        if resolve_all:
            brain.derive_missing_links(pending_links)
            brain.resolve_all()
        elif written_pages or changed_names:
            brain.re_resolve(changed_names, dangling=True)
        pending_links.write(brain.conn)
        for root in graphs.keys() - graph_roots(brain.conn).keys():  # a graph's config the tree had and the brain did not take (unreadable, kept out)
            brain.rederive_graph(root, dirs=split_dirs(graphs[root]))
        if written_pages or changed_names or resolve_all:
            # sidecars of new pages that were stored earlier
            for r in brain.conn.execute(
                "SELECT path FROM files WHERE kind = 'raw' AND page_id IS NULL"
            ).fetchall():
                brain._load_raw_rows(r[0])
        if marked or resolve_all:
            brain.conn.execute("DELETE FROM config WHERE key = ?", (RESOLVE_PENDING,))
        counts["unchanged"] += unchanged
        kept = set(kept_brain)
        _record_baseline(brain, rootp, scan, {p: h for p, h in hashes.items() if p not in kept}, hashed_at, recorded.rows)
        if counts["pages_written"] or counts["files_written"]:
            brain.conn.execute(
                "INSERT INTO ingest_log(source_type, source_ref, pages_updated, summary) VALUES ('import', ?, ?, ?)",
                (
                    str(rootp.resolve()),
                    "[]" if len(written_pages) > 1000 else json.dumps(written_pages, ensure_ascii=False),
                    f"{counts['pages_written']} pages and {counts['files_written']} files written, {counts['unchanged']} unchanged",
                ),
            )
        commit(brain.conn)
    except BaseException as e:
        parser.__exit__(type(e), e, e.__traceback__)  # (the pool ends at once: its queued pages are not waited for)
        rollback(brain.conn)
        raise
    finally:
        brain._tx_depth = 0
        brain._graph_parsed = frozenset()
        parser.__exit__()
    brain._config_cache = None
    # the search indexes' pending entries merged, the planner's statistics (Postgres: autovacuum's come a minute later)
    vacuum_after_bulk(brain.conn, counts["pages_written"], pages_before)
    new_paths = set(hashes) - set(stored)
    for w in (portability_warnings(brain, new_paths) + other_markdown_warning(new_paths) + property_syntax_hint(brain, hashes, new_paths)
              + plain_rule_hint(brain, new_paths)):
        warn(w)
    rep = verify.report(brain, scan, hashes, deep=False, parsed_counts=parsed_counts, extra={"counts": counts, "warnings": warnings[:200], "warning_count": len(warnings)},
                        left_alone={p: PURGED for p in purged_skipped} or None)  # (raw rows checked even when nothing was written: import validates, test_reimport)
    rep["purged_skipped"] = purged_skipped[: verify.MAX_LISTED]
    rep["purged_skipped_count"] = len(purged_skipped)
    if kept_brain:
        # those files differ from the brain on purpose: the brain's newer version is kept
        others = [p for p in verify.compare(hashes, verify.db_hashes(brain)).hash_mismatch if p not in kept]
        rep["kept_brain_edits"] = kept_brain[:200]
        if kept_other:  # (the summary says why: another folder's page, not an edit; trial 71)
            rep["kept_other_folder_count"] = len(set(kept_other))
        rep["hash_mismatches"] = others[: verify.MAX_LISTED]
        rep["problems"] = [p for p in rep["problems"] if "differ from what the DB renders" not in p]
        if others:
            rep["problems"].append(f"{len(others)} file(s) differ from what the DB renders")
        rep["ok"] = not rep["problems"]
    if rep["missing_on_disk"]:
        # pages written with `put` (or files deleted from the tree) are kept, not an import failure;
        # `gbrain sync` is the command that propagates deletions
        rep["problems"] = [p for p in rep["problems"] if "not on disk" not in p]
        rep["ok"] = not rep["problems"]
        rep["kept_not_in_tree"] = len(set(verify.db_hashes(brain)) - set(hashes))
    rep["moved"] = [{"from": a, "to": b} for a, b in moved]
    # the copies a file-sync tool left in the tree are conflicts, named as sync's first round names them (the sync
    # after an import is no first round: it would never say them); exit 0 still: import's codes are its validation's
    found = tool_copies_among(brain.conn, hashes)
    if found:
        rep["conflicts"] = found[: verify.MAX_LISTED]
        rep["conflict_count"] = len(found)
    if vanished:
        rep["vanished_during"] = sorted(vanished)[: verify.MAX_LISTED]
    if read_errors:
        rep["ok"] = False
        rep["problems"].append(f"{len(read_errors)} file(s) could not be read")
        rep["read_errors"] = [{"path": p, "error": e} for p, e in read_errors[:50]]
    # last, after the report's reads (which write nothing): the pause db.settled_state may need
    # (20 ms past the last commit's stamp) has mostly passed by then
    brain.record_writes(vouch, "import")
    return rep


__all__ = ["import_tree", "classify"]
