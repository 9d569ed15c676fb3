"""Sync operations: ``sync``, ``watch``, ``conflicts``, ``trash``, ``restore`` (see :mod:`gbrain.sync.engine`;
the trash is a view of the page history, :mod:`gbrain.core.history`).

``sync``, ``watch``, ``sync-clients`` and ``sync-forget`` are CLI-only (``mcp=False``): they concern a folder on the user's disk.
``conflicts`` and ``restore`` are plain brain operations and also MCP tools.
"""
from __future__ import annotations

import sqlite3
import sys

from ..core.conflicts import RESOLVE
from ..errors import BadInput, Busy, GBrainError
from ..storage.db import busy_cause, is_busy
from ..page.slugs import cmd_arg, is_hidden_path, is_markdown, move_text, shown, slug_for_path
from .registry import Nothing, Param, _dir_arg, _report_text, cut_note, limit_param, obj, op


#: how many trashed files the text report of ``sync`` names (then "… and N more")
TRASHED_SHOWN = 20


def _sync_text(r: dict, a: dict) -> str:
    lines = [_report_text(r, a)]
    for m in r.get("moved") or []:
        lines.append(f"Moved: {move_text(m['from'], m['to'])}")
    for m in r.get("moved_hidden") or []:  # (no deletion: SyncEngine._moved_hidden)
        if is_hidden_path(m["to"]):
            lines.append(f"Moved into a hidden folder: {move_text(m['from'], m['to'])} (now a file: a hidden name is no page; "
                         f"its page's versions stay in `gbrain history {cmd_arg(slug_for_path(m['from']))}`)")
        else:
            lines.append(f"Moved out of a hidden folder: {move_text(m['from'], m['to'])} (a page again)")
    trashed = sorted((r.get("changed") or {}).get("trashed") or [])  # (the report lists the first verify.MAX_LISTED)
    for p in trashed[:TRASHED_SHOWN]:
        lines.append(f"Trashed (deleted in the folder): {p}")
    if trashed:
        more = max((r.get("counts") or {}).get("trashed", 0), len(trashed)) - min(len(trashed), TRASHED_SHOWN)
        where = "`gbrain trash` lists them; `gbrain restore SLUG` brings one back" if len(trashed) > 1 else "`gbrain trash` lists it; `gbrain restore SLUG` brings it back"
        lines.append(f"… and {more:,} more trashed ({where})" if more else f"Kept in the trash: {where}")
    lines += _removed_lines(r)
    for m in r.get("merged") or []:
        lines.append(f"Merged: {m}: changed in the folder and in the brain; the edits did not overlap, so both are in the note (no conflict copy)")
    for c in r.get("cleaned") or []:
        lines.append(f"Cleaned: {c}")
    for g in r.get("git") or []:
        lines.append(f"Git: {g}")
    oc = r.get("old_copies") or {}
    for x in oc.get("removed") or []:
        lines.append(f"Old copy removed: {x['path']} ({x['why']})")
    if oc.get("removed_count", 0) > len(oc.get("removed") or []):
        lines.append(f"… and {oc['removed_count'] - len(oc['removed']):,} more old copies removed (`--json` lists the first {len(oc['removed'])})")
    if oc.get("replaced_count"):
        lines.append(f"{oc['replaced_count']:,} file(s) held an older version of their page (this folder had never synced them): "
                     "the brain's newest version was written over them; the old bytes are in each page's history (`gbrain history SLUG`)")
    for u in r.get("symlinked") or []:
        lines.append(f"Symlink not followed: {u['path']} ({u['reason']}); its page is kept in the brain as it was (not synced, never deleted)")
    if r.get("symlinked_count", 0) > len(r.get("symlinked") or []):
        lines.append(f"… and {r['symlinked_count'] - len(r['symlinked']):,} more symlinks not followed (`--json` lists the first {len(r['symlinked'])})")
    for u in r.get("unreadable") or []:
        lines.append(f"Left alone (could not read): {u['path']} ({u['reason']})")
    for u in r.get("unwritable") or []:
        lines.append(f"Not written (the folder refused it): {u}; the brain keeps its version")
    if r.get("unwritable_count", 0) > len(r.get("unwritable") or []):
        lines.append(f"… and {r['unwritable_count'] - len(r['unwritable']):,} more not written (`--json` lists the first {len(r['unwritable'])})")
    for c in r.get("conflicts") or []:
        if c.get("tool"):  # a copy a file-sync tool made (the sync engine's SYNC_TOOL): its note says which, its action what to do
            lines.append(f"CONFLICT: {c['copy_path']}: {c['note']}: {c['action']}")
        elif c.get("copy_path") and c.get("kind") == "no-base":
            lines.append(f"CONFLICT: {c['path']}: the brain's version was kept (this folder had never synced it); the file's version is in {c['copy_path']}")
        elif c.get("copy_path") and c.get("kind") == "stale-save":
            lines.append(f"CONFLICT: {c['path']}: the file was saved from an older version and does not merge with a newer write through gbrain; "
                         f"the brain's version was kept; the file's version is in {c['copy_path']}")
        elif c.get("copy_path"):
            lines.append(f"CONFLICT: {c['path']}: the file's version was kept; the brain's version is in {c['copy_path']}")
        else:
            where = "in the brain, edited on disk" if c["kind"] == "deleted-in-brain" else "on disk, edited in the brain"
            lines.append(f"PUT BACK: {c['path']}: deleted {where}; the edited version was kept (not a conflict copy: `gbrain conflicts --all` notes it)")
    for o in r.get("overruled") or []:
        if o.get("kept_origin"):  # one login on both sides: named by how the kept version was written
            lines.append(f"CONFLICT LOST: {o['path']}: your save conflicted with {o['kept_origin']}; that version was kept, yours is in {o['copy_path']}")
            continue
        who = f"{o['kept_by']}'s" if o.get("kept_by") else "another save"
        lines.append(f"CONFLICT LOST: {o['path']}: your save conflicted with {who}, saved at the same time in another folder; "
                     f"{'that' if not o.get('kept_by') else who} version was kept, yours is in {o['copy_path']}")
    for d in r.get("saves_dropped") or []:
        from ..sync.engine import dropped_how

        how = dropped_how(d)
        who = (f"{d['by']}'s {how}" if d.get("by") else f"a {how} through gbrain") + (" (from an older read)" if how == "write" else "")
        n = d["lines"]
        lines.append(f"SAVE REPLACED: {d['path']}: {who} removed {n} line{'' if n == 1 else 's'} of your save "
                     f"(\"{d['first'][:80]}\"); your version is in the history (`gbrain history`, `gbrain revert`)")
    if r.get("vanished_during"):
        gone = r["vanished_during"]
        lines.append(f"Deleted or moved in the folder while this sync read them, kept in the brain as they were (the next sync or the running watch takes the change): "
                     f"{', '.join(gone[:5])}{f' and {len(gone) - 5:,} more' if len(gone) > 5 else ''}")
    if r.get("written_during"):
        late = r["written_during"]  # (the first verify.MAX_LISTED; written_during_count all)
        n = max(r.get("written_during_count", 0), len(late))
        lines.append(f"Written (or deleted, moved) through gbrain while this sync ran, not in the folder yet (the next sync or the running watch writes them): "
                     f"{', '.join(late[:5])}{f' and {n - 5:,} more' if n > 5 else ''}")
    if r.get("renamed_links"):
        rl = r["renamed_links"]
        other = f" ({rl['elsewhere']:,} now open another page with that file name)" if rl.get("elsewhere") else ""
        lines.append(f"{rl['links']:,} link(s) in {rl['pages']:,} page(s) still name a moved page by its old name{other}: "
                     "`gbrain lint --check dead_links --fix-safe` rewrites them (add --dry-run to see the edits first)")
    copies = [c for c in r.get("conflicts") or [] if c.get("copy_path")]
    if copies:
        lines.append(f"{len(copies)} conflict(s) with both versions kept: {RESOLVE} (`gbrain conflicts` lists them and says how)")
    if len(copies) < len(r.get("conflicts") or []):
        lines.append(f"{len(r['conflicts']) - len(copies)} delete/edit conflict(s): the edited version was put back; nothing to merge; delete it again if you meant to (`gbrain conflicts --all` notes them)")
    return "\n".join(lines[:1] + [shown(ln) for ln in lines[1:]])  # a file name cannot fake a line


def _removed_lines(r: dict) -> list[str]:
    """The lines of ``sync``'s text report naming the files it removed from the folder because
    their page was deleted in the brain (sorted, the first ``TRASHED_SHOWN``, then how many more
    and where the bytes are: the trash) or renamed there (``moved_in_brain``: to its new name).
    Old copies have lines of their own (``old_copies``). ``r``: sync's report. Pure."""
    old = {x["path"] for x in (r.get("old_copies") or {}).get("removed") or []}
    moves = r.get("moved_in_brain") or []
    moved = {m["from"] for m in moves}
    purged = r.get("purged_removed") or []
    gone = sorted(p for p in (r.get("changed") or {}).get("removed") or [] if p not in old and p not in moved and p not in purged)
    lines = [f"Removed (deleted in the brain): {p}" for p in gone[:TRASHED_SHOWN]]
    total = ((r.get("counts") or {}).get("removed", 0) - (r.get("old_copies") or {}).get("removed_count", 0)
             - r.get("moved_in_brain_count", len(moves)) - r.get("purged_removed_count", len(purged)))
    more = max(total, len(gone)) - min(len(gone), TRASHED_SHOWN)
    if more:
        lines.append(f"… and {more:,} more removed (in the trash: `gbrain trash` lists them; `gbrain restore SLUG` brings one back "
                     "and the next sync writes its file again)")
    elif len(gone) == 1:
        # a page by its slug, as `gbrain delete` and `gbrain trash` name it; a file by its path
        name = slug_for_path(gone[0]) if is_markdown(gone[0]) else gone[0]
        lines.append(f"In the trash: `gbrain restore {cmd_arg(name)}` brings it back (the next sync writes the file again)")
    elif gone:
        lines.append("In the trash: `gbrain trash` lists them; `gbrain restore SLUG` brings one back (the next sync writes its file again)")
    for p in sorted(purged)[:TRASHED_SHOWN]:
        lines.append(f"Removed (deleted in the brain, its text purged: no copy kept, as the purge asked): {p}")
    if r.get("purged_removed_count", 0) > min(len(purged), TRASHED_SHOWN):
        lines.append(f"… and {r['purged_removed_count'] - min(len(purged), TRASHED_SHOWN):,} more whose text was purged")
    for m in moves[:TRASHED_SHOWN]:
        lines.append(f"Removed (renamed in the brain): {m['from']} → {m['to']}")
    if r.get("moved_in_brain_count", 0) > min(len(moves), TRASHED_SHOWN):
        lines.append(f"… and {r['moved_in_brain_count'] - min(len(moves), TRASHED_SHOWN):,} more renamed in the brain (`--json` lists the first {len(moves)})")
    return lines


@op(
    "sync",
    "Two-way sync of a markdown folder with the brain (three-way against the last sync; edits of both sides that do not overlap are merged, conflicts keep both versions), "
    "then print the verification report. Exit 1 on a mismatch, 3 when conflicts were found (a copy to merge, gbrain's or a new one a file-sync tool made, or an edited page put back after a delete).",
    [
        Param("dir", required=True, positional=True, description="the markdown folder the brain is kept equal to", directory=True),
        Param("rebind", "boolean", "sync with a different folder than the one the brain is bound to", default=False),
        Param("confirm_delete", "boolean", "trash the notes of a folder whose markdown all vanished, or most of whose notes were deleted at once (you deleted them on purpose)", default=False),
        Param("put_back", "boolean", "write the files deleted from the folder back from the brain instead of trashing their notes (the way back after a refused mass deletion)", default=False),
        Param("include_purged", "boolean", "also import files whose bytes are exactly a version `gbrain purge` removed (left alone and named by default: "
              "importing them brings the purged text back)", default=False),
    ],
    mcp=False, title="Two-way sync with a markdown folder",
    db="create",
    text=_sync_text,
    mutating=True,
    check_beside=True,  # the database check runs beside the walk of the folder (SyncEngine checks before writing)
)
def _sync(b, a, ctx):
    from ..sync.engine import SyncEngine, chunk_size

    root = _dir_arg(a["dir"])
    eng = SyncEngine(b, root, warn=ctx.on_warning)
    eng.chunk = chunk_size("GBRAIN_SYNC_CHUNK")  # renames and in-place edits first, in committed chunks (SyncEngine.chunk_prepass)
    eng.say_now = _say_now  # (an interrupted pre-pass's line: the warnings list is said at the end, which a Ctrl-C skips)
    eng.confirm_delete = bool(a.get("confirm_delete"))
    eng.put_back = bool(a.get("put_back"))
    eng.include_purged = bool(a.get("include_purged"))
    if eng.put_back and eng.confirm_delete:
        raise BadInput(f"{ctx.flag('put_back')} and {ctx.flag('confirm_delete')} ask for opposite things; give one")
    try:
        eng.bind(rebind=bool(a.get("rebind")))
        r = eng.sync()
        moved = any(not m.get("follows_rename") for m in r.get("moved") or ())
        got = (r.get("changed") or {}).get("imported") or ()  # (the first verify.MAX_LISTED)
        if moved or got:
            # links written with a moved page's old name now dangle: say how to mend them (the folder that moved it;
            # or a note this round imported, written with an old name while the folder was not synced: trial 49)
            from ..core.lint import renamed_links, renamed_links_in

            # the links to the notes this sync moved, not every old name in the brain (trial 68)
            to = {m["to"] for m in r.get("moved") or () if not m.get("follows_rename")}
            rl = renamed_links(b, to_paths=to) if moved else renamed_links_in(b, got)
            if rl["links"]:
                r["renamed_links"] = rl
        return r
    except sqlite3.Error as e:
        # the pre-pass's chunks (SyncEngine.chunk_prepass) committed before the failing write stay: said, as the next sync goes on from them
        kept = f"the {eng.chunks_kept:,} chunk(s) this sync committed before it are kept and the next sync goes on from them" if eng.chunks_kept else ""
        if is_busy(e, b.path):
            raise Busy(f"the brain is busy ({busy_cause(e)}); the brain side of the transaction under way was rolled back{f' ({kept})' if kept else ''} "
                              "and the files written are complete; run the sync again") from e
        if kept:
            from ..storage.db import db_error

            err = db_error(e, b.path, kept=kept)  # (a full disk, an I/O error: the line registry's would be, the chunks said)
            if kept in str(err) and err.kind != "damaged":
                raise err from e
        raise
    finally:
        eng.close()


def _say_now(line: str) -> None:
    """A line on stderr now (a full or closed stderr loses it, not the command)."""
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def _watch_text(r: dict, a: dict) -> str:
    if "files_seen" in r:  # --once: the sync report
        return _sync_text(r, a)
    from ..sync.watch import CHANGE_WORDS, SUMMARY_WORDS  # (loaded already: watch ran)

    c = r["counts"]
    left = (f"; {r['unwritten_count']:,} change(s) kept in the brain, not written (the folder refused writes: `gbrain export --dir OTHER` copies them out)"
            if r.get("unwritten_count") else "")
    hidden = f", {r['moved_hidden_count']:,} moved into or out of a hidden folder" if r.get("moved_hidden_count") else ""  # (no longer trashed)
    return (f"watched {r['root']} for {r['seconds']:.1f} s: {r['batches']} batch(es); " + ", ".join(f"{c.get(k, 0)} {w}" for k, w in CHANGE_WORDS[:SUMMARY_WORDS])
            + hidden + left)


@op(
    "watch",
    "Sync a markdown folder with the brain, then keep them equal live until Ctrl-C: file edits reach the brain, "
    "writes by any process (put, tag, MCP) reach the files. One line per change on stderr.",
    [
        Param("dir", required=True, positional=True, description="the markdown folder to watch", directory=True),
        Param("once", "boolean", "sync once and exit (same as `gbrain sync`)", default=False),
        Param("debounce", "integer", "milliseconds without events before a batch is synced", default=100, minimum=0, maximum=60_000),
        Param("rescan", "integer", "seconds between full rescans that catch events the file watcher missed (0: never)", default=300, minimum=0),
        Param("rebind", "boolean", "watch a different folder than the one the brain is bound to", default=False),
        Param("confirm_delete", "boolean", "trash the notes of a folder whose markdown all vanished, or most of whose notes were deleted at once (you deleted them on purpose)", default=False),
        Param("embed", "boolean", "also keep embeddings current: pages that changed (here or by any other writer) are embedded in the background with the brain's model, "
              "once changes settle (run it on one machine of a team brain)", default=False),
    ],
    mcp=False, title="Two-way sync with a folder, live",
    until_stopped=lambda a: not a.get("once"),
    db="create",
    text=_watch_text,
    mutating=True,
    waits_for_space=True,
)
def _watch(b, a, ctx):
    if b.offline_reason and a.get("once"):
        raise GBrainError(b.offline_reason)  # a full disk: sync once has nothing to wait for
    if a.get("once"):
        return _sync(b, {"dir": a["dir"], "rebind": a.get("rebind"), "confirm_delete": a.get("confirm_delete")}, ctx)
    from ..sync.watch import Watcher

    root = _dir_arg(a["dir"])
    ms = a.get("debounce") if a.get("debounce") is not None else 100

    def log(line: str) -> None:
        try:  # a log on a full disk (2>>watch.log) loses lines; the watch goes on
            sys.stderr.write(line + "\n")
            sys.stderr.flush()
        except (OSError, ValueError):
            pass

    try:
        rescan = a.get("rescan") if a.get("rescan") is not None else 300
        w = Watcher(b, root, debounce=ms / 1000, log=log, rebind=bool(a.get("rebind")), rescan=float(rescan), embed=bool(a.get("embed")))
        w.engine.confirm_delete = bool(a.get("confirm_delete"))
        return w.run()
    except sqlite3.OperationalError as e:
        if not is_busy(e, b.path):
            raise
        raise Busy(f"the brain is busy ({busy_cause(e)}); watch stopped; run it again") from e


def _clients_text(r: list, a: dict) -> str:
    if not r:
        return Nothing("no folder syncs with this brain")
    out = []
    for c in r:
        name = c["client"] or c["root"]
        machine = (f"machine {c['machine']}" + (" (this one)" if c["this_machine"] else "")) if c["machine"] else "machine not recorded yet"
        when = f"last synced {c['synced_at']}" if c.get("synced_at") else f"bound {c['bound_at']}, never synced since"
        lag = "expired (holds no change log back)" if c["behind"] is None else f"{c['behind']:,} change(s) behind"
        out.append(f"{name}  {machine}  {when}  {lag}  {c['paths']:,} path(s)" + ("  watching now" if c.get("watching") else ""))
    return "\n".join(shown(x) for x in out)


@op(
    "sync-clients",
    "List the folders that sync with the brain (its sync clients): folder (on Postgres the client id, host:/folder), the machine that "
    "syncs it, when it last synced, how many change-log rows it has not applied yet, its base paths, and whether a watch of it runs now.",
    [],
    mcp=False, title="List the folders that sync with the brain",
    details="A folder no longer synced keeps its base versions from `history-prune` and holds the change log back until it expires "
            "(`sync_client_expire_days`, 30): `gbrain sync-forget FOLDER` drops it at once.",
    text=_clients_text,
    item=obj("client", client="string", root="string", machine="string", this_machine="boolean", bound_at="string", synced_at="string?",
             cursor="integer", behind="integer?", paths="integer", watching="boolean?"),
)
def _sync_clients(b, a, ctx):
    from ..sync.clients import list_clients

    return list_clients(b)


def _forget_text(r: dict, a: dict) -> str:
    ended = r.get("ended") or 0
    gone = (f"; ended the server connection{'s' if ended != 1 else ''} a killed `gbrain watch` of this machine left behind ({ended})"
            if ended else "")
    return shown(f"forgot {r['client'] or r['root']}: {r['paths']:,} base path(s) dropped, {r['log_rows']:,} change-log row(s) trimmed; "
                 f"the folder's files are left as they are, and its next sync is a first sync (an equal file stays, a differing one becomes a conflict copy){gone}")


@op(
    "sync-forget",
    "Stop syncing a folder with the brain: drop its sync client (base hashes and change-log place), so `history-prune` keeps no version "
    "for it and the change log no longer waits for it. The folder's files are not touched; syncing it again later is a first sync, which loses nothing. "
    "Exit 1 while a watch or sync of it runs.",
    [Param("target", required=True, positional=True, path=True, description="the folder (this machine's client of it), or a client id as `gbrain sync-clients` lists it (host:/folder)")],
    mcp=False, title="Stop syncing a folder with the brain",
    text=_forget_text,
    mutating=True,
    output=obj(client="string", root="string", paths="integer", log_rows="integer", ended="integer"),
)
def _sync_forget(b, a, ctx):
    from ..sync.clients import forget

    return forget(b, a["target"])


def _side_of(orig: str | None) -> str:
    """A conflict side named by how its version was written (the history's origin): the folder's
    (a sync, watch or import of the file) or the writer's (``mcp(claude-code) put's version``)."""
    if not orig:
        return ""
    return "the folder's version" if orig.split("(")[0].split(" ")[0] in ("sync", "watch", "import") else f"{orig}'s version"


def _conflicts_text(r: list, a: dict) -> str:
    if not r:
        return Nothing("no open conflicts")
    out = []
    for c in r:
        if c.get("tool"):  # a copy a file-sync tool made: its note says which, its action how to resolve it
            out.append(f"#- {c['status']}  {c['path']}  ← {c['copy_path']}: {c['note']}: {c['action']}")
        elif c.get("copy_path") and (c.get("kept_by") or c.get("copy_by")) and c.get("kept_by") != c.get("copy_by"):
            # whose text is where (writers from the history)
            kept = f"{c['kept_by']}'s version" if c.get("kept_by") else "the version kept"
            held = f"{c['copy_by']}'s version" if c.get("copy_by") else "the other version"
            holds = "holds" if c.get("kept_now", True) else "kept"
            kept += "" if c.get("kept_now", True) else " (changed since)"
            out.append(f"#{c['id'] or '-'} {c['status']}  {c['path']} {holds} {kept}; {held} is in {c['copy_path']}  ({c.get('note') or c['created_at']})")
        elif c.get("copy_path"):
            # one writer on both sides (a person and their agent under one login): say which side,
            # by how each was written when the history says (a session brain_put that clashed kept
            # the put's text: sync's "file's/brain's" would be the wrong way round), else by the kind
            by = f", both sides written by {c['kept_by']}" if c.get("kept_by") else ""
            kept, held = (_side_of(c.get("kept_origin")), _side_of(c.get("copy_origin")))
            if kept and held and kept != held:
                holds = "holds" if c.get("kept_now", True) else "kept"
                kept += "" if c.get("kept_now", True) else " (changed since)"
                out.append(f"#{c['id'] or '-'} {c['status']}  {c['path']} {holds} {kept}; {held} is in {c['copy_path']}  ({c.get('note') or c['created_at']}{by})")
            else:
                side = "file's" if c.get("kind") in ("no-base", "stale-save") else "brain's"
                out.append(f"#{c['id'] or '-'} {c['status']}  {c['path']}  ← {side} version in {c['copy_path']}  ({c.get('note') or c['created_at']}{by})")
        else:
            out.append(f"#{c['id']} {c['status']}  {c['path']}  ({c['kind']}, {c['created_at']})")
        if c.get("action") and not c.get("tool"):  # (a tool's copy says it on its line)
            out.append(f"    to resolve: {c['action']}")
    return "\n".join(out)


@op(
    "conflicts",
    "List sync conflicts: a path whose folder and brain edits overlap, or a file-sync tool's copy (`tool`). "
    "The file's version was kept, the brain's is the copy (`copy_path`); kinds no-base, stale-save: the other way round. "
    "`action`: how: " + RESOLVE + " (brain_delete; a .raw or attachment's: in the folder).",
    [Param("all", "boolean", "also list resolved and noted conflicts", default=False)],
    title="Sync conflicts",
    details="Edits that do not overlap were merged and are not listed. no-base: a folder that never synced the path; stale-save: "
    "a file saved from an older version than a newer write through gbrain, that did not merge; sync-tool: a conflict copy "
    "Syncthing, Dropbox, Nextcloud or ownCloud made (two machines changed the file before they synced), `tool` names it, "
    "open until the copy is deleted (no record: not listed once resolved). A brain_put that clashed with a save it had not "
    "read keeps the put's text and copies the save. The writers (and `kept_origin`/`copy_origin`, how each was written: "
    "the text names the sides by these when one login wrote both) come from the history (empty when unknown); the deleted "
    "copy stays in the trash.",
    item={"type": "object"},
    text=_conflicts_text,
)
def _conflicts(b, a, ctx):
    from ..sync.engine import conflict_list

    return conflict_list(b, all=bool(a.get("all")))


def _restore_text(r, a: dict) -> str:
    if isinstance(r, list):
        return "\n".join(f"{t['deleted_at']}  {shown(t['slug'] or t['path'])}  v{t['version']}  ({t['reason']}" + (f" by {t['by']}" if t.get("by") else "")
                         + f", {t['size']:,} bytes)" for t in r) or Nothing("the trash is empty")
    if "restored_all" in r:
        return (f"restored {len(r['restored_all']):,} item(s) from the trash" + (f"; {len(r['skipped'])} left (a page lives there again)" if r["skipped"] else "")
                + (f"; {r['replaced']:,} replaced version(s) of live pages stay in it (`gbrain revert SLUG --to VERSION` brings one back)" if r.get("replaced") else ""))
    return (f"restored {shown(r['slug'] or r['path'])} (" + ", ".join(r["restored"]) + f") from version {r['version']} of its history"
            + (" as a file (a hidden name: no page)" if r.get("as_file") else "")
            + (f" ({shown(r['moved_from'])} was renamed to it)" if r.get("moved_from") else ""))


TRASH_ITEM = obj("path", deleted_at="string", slug="string?", path="string", reason="string", size="integer", version="integer", deleted="boolean", by="string")


@op(
    "trash",
    "The trash, newest first: pages and files deleted, and versions an import or sync replaced that existed nowhere else, with "
    "who did it (`by`). brain_restore brings a deleted one back, brain_revert a replaced one (to the version listed).",
    [limit_param(100, "how many trash entries to list (0: all)")],
    text=_restore_text,
    title="List the trash",
    details="It is a view of the page history; deleted by delete, sync or watch; `by` is empty when unknown.",
    item=TRASH_ITEM,
    page="limit",
    note=lambda r, a: cut_note(r, {"limit": 100, **{k: v for k, v in a.items() if v is not None}}),  # (no limit given: 100)
    # keyset pages: an entry deleted (to the front) or restored between two pages moves no other
    page_seek=lambda a, row: [row["id"], row["version"]],
)
def _trash(b, a, ctx):
    from ..core.history import trash_list

    return trash_list(b, limit=a.get("limit") if a.get("limit") is not None else 100, after=ctx.after)


@op(
    "restore",
    "Bring a deleted page (or file) back from the trash, with its .raw sidecar. Give `slug` (as brain_trash lists it) or `all`.",
    [
        Param("slug", positional=True, description="page slug (or file path) to restore"),
        Param("all", "boolean", "restore every deleted page and file in the trash", default=False),
        Param("limit", "integer", "without SLUG or --all the command lists the trash (as `gbrain trash`): this many entries (0: all)", default=100, minimum=0, in_schema=False),
    ],
    text=_restore_text,
    mutating=True,
    title="Restore from the trash",
    details="Its last version in the history becomes the page again. Under sync/watch the file follows.",
    destructive=True,  # restoring over a page that came back would replace it; restore refuses that, but be safe
    output=obj(slug="string?", path="string", restored="array", content_hash="string?", restored_all="array", content_hashes="object", skipped="array", replaced="integer"),
)
def _restore(b, a, ctx):
    from ..core.history import restore, trash_list

    if not a.get("slug") and not a.get("all") and ctx.agent:
        raise BadInput("brain_restore: give slug (a page or file path from brain_trash) or all=true; brain_trash lists the trash")
    if a.get("all"):
        if a.get("slug"):
            raise BadInput(f"give a slug or {ctx.flag('all')}, not both")
        done, skipped, replaced, hashes = [], [], 0, {}
        for t in trash_list(b, limit=0):
            if not t["deleted"]:
                replaced += 1  # a replaced version of a live page: `revert` brings it back
                continue
            name = t["slug"] or t["path"]
            if name in done or t["path"] in done:
                continue
            try:
                r = restore(b, name)
                done += r["restored"]
                if r.get("slug") and r.get("content_hash"):
                    hashes[r["slug"]] = r["content_hash"]  # each page's new one: a put's if_hash, as every page write answers
            except GBrainError:
                skipped.append(name)
        return {"restored_all": done, "content_hashes": hashes, "skipped": skipped, "replaced": replaced}
    if not a.get("slug"):
        return trash_list(b, limit=a.get("limit") if a.get("limit") is not None else 100)
    return restore(b, a["slug"])
