"""Conflict copies in the brain: the one scan for them, and the one wording of how to resolve one.

A conflict copy is a page or a file whose name says it is a copy of another: gbrain's own
(``NAME.conflict-YYYYMMDDTHHMMSS``, written by sync or watch when the folder and the brain changed
a path in ways that did not merge; :func:`~gbrain.page.slugs.conflict_original`) or a file-sync
tool's (Syncthing, Dropbox, Nextcloud, ownCloud: two machines changed a file before they synced;
:func:`~gbrain.page.slugs.sync_tool_copy`).

* :func:`copies` reads every copy the brain holds, once: lint's ``conflicts`` check
  (:mod:`gbrain.core.lint`) and ``gbrain conflicts`` (``sync/engine.py: conflict_list``) both
  list from it.
* :func:`resolve_how` is how to resolve one copy (merge what it has into its original, then delete
  it: through gbrain for a page, in the folder for a file), and :data:`RESOLVE` its short form.
  Lint's actions, ``gbrain conflicts``, sync's and watch's CONFLICT lines, the conflicts tool's
  description and the briefing prompt say it from here; never word it again elsewhere.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..page.slugs import cmd_arg, conflict_original, page_slug_for_sidecar, slug_for_path, sync_tool_copy

#: how a conflict is resolved, said short (a summary line, a tool description, a prompt)
RESOLVE = "merge, then delete the copy"

#: the last step of resolving a copy that is a file, not a page (no command deletes such a file)
DELETE_COPY_FILE = ("delete the copy file in the folder (no command deletes a file that is not a page; the next sync or watch round "
                    "drops it; an agent that cannot reach the folder asks the person)")


@dataclass(frozen=True)
class Copy:
    """One conflict copy in the brain.

    ``path``: the copy's path; ``original``: the path of what it copies; ``slug``: the copy's page
    (None: a file, a ``.raw`` sidecar or an attachment); ``tool``: the file-sync tool that made it
    (``Syncthing``, …; None: gbrain's sync or watch); ``page``: the page to merge into, the
    original's slug for a page copy (its page's when it exists, else the page that name was
    renamed to, else the slug its path gives), for a file the page whose ``.raw`` sidecar it
    copies when that page exists (or the page it was renamed to), else None;
    ``made``: when the brain got it (a page's ``created_at``, a file's ``updated_at``)."""

    path: str
    original: str
    slug: str | None
    tool: str | None
    page: str | None
    made: str = ""


def copy_at(conn, path: str, slug: str | None, made: str = "") -> Copy | None:
    """The :class:`Copy` at ``path`` (``slug``: its page's slug, None for a file), or None when
    its name marks no copy. Reads the original's page row (one query) when ``path`` is one."""
    orig = conflict_original(path)
    tool = None
    if orig is None:
        hit = sync_tool_copy(path)
        if hit is None:
            return None
        orig, tool = hit
    if slug is not None:
        row = conn.execute("SELECT slug FROM pages WHERE path = ?", (orig,)).fetchone()
        page = row[0] if row else _current(conn, slug_for_path(orig)) or slug_for_path(orig)
    else:
        page = page_slug_for_sidecar(orig)
        if page is not None and not conn.execute("SELECT 1 FROM pages WHERE slug = ?", (page,)).fetchone():
            page = _current(conn, page)
    return Copy(path, orig, slug, tool, page, made or "")


def _current(conn, slug: str) -> str | None:
    """The live page a page once named ``slug`` is now, following its renames (a move takes its
    copies along, but a copy of the old name may arrive later, or a tool's copy find its new name
    taken: merge into the new name), or None."""
    from .history import renamed_to

    moved = renamed_to(conn, slug)
    return moved["slug"] if moved else None


def copies(conn) -> list[Copy]:
    """Every conflict copy the brain holds, pages and files, sorted by path. One query over the
    paths that hold ``onflict`` (every mark does; case-blind on both engines), then a page
    lookup per copy."""
    rows = conn.execute("SELECT path, slug, created_at FROM pages WHERE path LIKE '%onflict%' "
                        "UNION ALL SELECT path, NULL, updated_at FROM files WHERE path LIKE '%onflict%'").fetchall()
    out = [c for c in (copy_at(conn, p, s, m) for p, s, m in rows) if c is not None]
    out.sort(key=lambda c: c.path)
    return out


def resolve_how(c: Copy) -> str:
    """How to resolve the copy ``c``, one sentence with the commands to run (a page: merge with
    get/put, then ``gbrain delete``; a ``.raw`` sidecar: ``raw``/``raw-put``, then delete the
    file; another file: keep the version wanted, then delete the file). Pure."""
    if c.slug is not None:
        also = f", and {c.tool} removes it from the other machines" if c.tool else ""
        return (f"merge what the copy has that {c.page} lacks into {c.page} (`gbrain get {cmd_arg(c.slug)}`, then "
                f"`gbrain put {cmd_arg(c.page)}`), then delete the copy (`gbrain delete {cmd_arg(c.slug)}`; the next sync removes "
                f"its file{also}); never link it or retitle it")
    if c.page is not None:
        return (f"compare the copy (the file {c.path} in the synced folder) with `gbrain raw {cmd_arg(c.page)}`, store each "
                f"source the sidecar should take from it (`gbrain raw-put {cmd_arg(c.page)} --source SOURCE --data JSON`), then "
                + DELETE_COPY_FILE)
    return f"keep the version wanted at {c.original} (the copy is the file {c.path} in the synced folder), then " + DELETE_COPY_FILE


def tool_copy_made(c: Copy) -> str:
    """Which file-sync tool made the copy ``c`` (``c.tool`` set) of what, said after the copy's
    path (a conflict's ``note``; its ``action`` is :func:`resolve_how`). Pure."""
    return f"a conflict copy {c.tool} made of {c.original} (two machines changed it before they synced)"


#: the ``kind`` of a conflict whose copy a file-sync tool made (``tool`` names it): not a
#: ``sync_conflicts`` row, found by the copy's name (:func:`~gbrain.page.slugs.sync_tool_copy`)
SYNC_TOOL = "sync-tool"


def tool_copies_among(conn, paths) -> list[dict]:
    """The conflict copies a file-sync tool made among ``paths`` that the brain stores (pages and
    files; one not stored, unreadable or left out, is skipped), each as a conflict entry of a
    report, sorted by path: ``{path: the original, copy_path, kind: SYNC_TOOL, tool, file_hash,
    db_hash: None, base_hash: None, note, action}`` (:func:`tool_copy_made`, :func:`resolve_how`:
    the words ``gbrain conflicts`` says). What sync's first round and ``import`` report of the
    copies a folder held before gbrain saw it. One query per copy; the other paths cost a name test."""
    out = []
    for p in sorted(p for p in paths if "onflict" in p.lower() and sync_tool_copy(p) is not None):
        row = conn.execute("SELECT slug, content_hash FROM pages WHERE path = ? UNION ALL SELECT NULL, content_hash FROM files WHERE path = ?", (p, p)).fetchone()
        if row is None:
            continue
        c = copy_at(conn, p, row[0])
        out.append({"path": c.original, "copy_path": p, "kind": SYNC_TOOL, "tool": c.tool, "file_hash": row[1], "db_hash": None,
                    "base_hash": None, "note": tool_copy_made(c), "action": resolve_how(c)})
    return out


def tool_copy_said(c: Copy) -> str:
    """:func:`tool_copy_made` and how to resolve the copy (:func:`resolve_how`), one line (sync's
    and watch's CONFLICT lines, ``gbrain conflicts``). Pure."""
    return f"{tool_copy_made(c)}: {resolve_how(c)}"


__all__ = ["Copy", "RESOLVE", "DELETE_COPY_FILE", "SYNC_TOOL", "copies", "copy_at", "resolve_how", "tool_copies_among", "tool_copy_made", "tool_copy_said"]
