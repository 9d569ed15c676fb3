"""History operations: ``history`` (read-only), ``history-prune``, ``diff``, ``revert``, ``changes``;
``get --version`` lives with ``get``; ``trash``/``restore`` (views of the history) with sync. The versions themselves are written by triggers
(:mod:`gbrain.core.history`), so these only read them, or write a version back.
"""
from __future__ import annotations

from ..errors import BadInput
from ..page.slugs import cmd_arg, shown
from .registry import SLUG, Nothing, Param, _since, cut_note, limit_param, obj, op, run


def _history_text(r: dict, a: dict) -> str:
    if a.get("prune"):
        return _prune_text(r, a)
    lines = [shown(r["name"]) + ("" if r["live"] else " (deleted or moved away)") + f": {r['total']} version(s)"]
    shown_name = r["name"]
    # who wrote each version: a column when any listed version knows (unknown: ?), else none
    width = max((len(v.get("by") or "?") for v in r["versions"]), default=0) if any(v.get("by") for v in r["versions"]) else 0
    for v in r["versions"]:
        delta = "" if v["added"] is None else f"+{v['added']} -{v['removed']}"
        extra = f"  {v['detail']}" if v.get("detail") else ""
        name = v.get("name") or r["name"]
        if v.get("name") == r["name"]:  # the name's versions before this page moved in: another page's
            if shown_name is not None:
                lines.append(f"  as {shown(name)}, another page's, before this one moved in (`gbrain get {cmd_arg(name)} --version N`):")
            shown_name = None
        elif name != shown_name and v.get("swap"):  # the temp name sync passed it through: not one the user made
            lines.append(f"  as {shown(name)}, the name sync passed it through to swap {v['swap']} (`gbrain get {cmd_arg(name)} --version N`):")
            shown_name = name
        elif name != shown_name:  # versions written under another name (in time order: a page renamed back has its own name's again) are numbered under it
            lines.append(f"  as {shown(name)}, before it moved to {shown(shown_name)} (`gbrain get {cmd_arg(name)} --version N`):")
            shown_name = name
        who = f"{v.get('by') or '?':<{width}}  " if width else ""
        lines.append(f"{v['version']:>4}  {v['at']}  {v['op']:<8} {v['size']:>9,} B  {delta:<10} {who}{v['origin']}{extra}")
    for cp in r.get("conflict_copies") or ():
        lines.append(f"  open conflict copy: {shown(cp)} (another version of this note, kept by a sync conflict: `gbrain conflicts`)")
    return "\n".join(lines)


def _history_note(r: dict, a: dict) -> str | None:
    if not a.get("prune") and len(r.get("versions", ())) < r.get("total", 0):
        return f"… the newest {len(r['versions'])}; --limit 0 lists all"
    return None


def _config_int(b, key: str) -> int | None:
    """Config ``key`` as a whole number, None when unset or not one ``int()`` reads (isdecimal, not
    isdigit: an older gbrain stored "²", which int() refuses)."""
    v = (b.get_config(key) or "").strip()
    return int(v) if v.isdecimal() else None


#: the parameters of `gbrain history --prune` (CLI only: agents call history_prune, a tool of its own
#: marked destructive); the pruning itself is history-prune's
_PRUNE_FLAGS = ("keep_days", "keep_last", "include_deleted", "apply")


@op(
    "history",
    "Versions of a page or file (a deleted one's too), newest first: number, time, writer (`by`), origin, size, lines "
    "added/removed. brain_get reads one (`version`), brain_diff compares two, brain_revert brings one back.",
    [
        # required of agents (the schema's `required`): only the command line's CLI-only --prune runs without it
        Param("slug", positional=True, tool_required=True, description="page slug (a deleted page's too) or a file path"),
        limit_param(20, "how many versions to list (0: all)"),
        Param("prune", "boolean", "prune old versions instead of listing them (the same as `gbrain history-prune`; of SLUG's history only when given, else of the whole brain)", in_schema=False),
        Param("keep_days", "integer", "with --prune: keep versions newer than this many days (default: config history_keep_days)", minimum=0, in_schema=False),
        Param("keep_last", "integer", "with --prune: keep this many newest versions of each page (default: config history_keep_last)", minimum=0, in_schema=False),
        Param("include_deleted", "boolean", "with --prune: the trash too (deleted pages, their last text included; versions an import or sync replaced)", in_schema=False),
        Param("apply", "boolean", "with --prune: really delete (without it, a dry run)", in_schema=False),
    ],
    text=_history_text,
    note=_history_note,
    title="Version history of a page",
    details="`by` is GBRAIN_USER or login@host (empty when unknown); the origin names the surface, operation and MCP client. "
    "brain_history_prune drops old versions.",
    routes={"prune": "history-prune"},
)
def _history(b, a, ctx):
    from ..core import history as h

    if a.get("prune"):
        args = {k: a[k] for k in _PRUNE_FLAGS if a.get(k) is not None}
        if a.get("slug"):
            args["slug"] = a["slug"]
        return run("history-prune", args, ctx, brain=b)
    given = [f"--{k.replace('_', '-')}" for k in _PRUNE_FLAGS if a.get(k)]
    if given:
        raise BadInput(f"{', '.join(given)}: only with --prune (`gbrain history --prune --keep-days N --keep-last K`)")
    if not a.get("slug"):
        if ctx.agent:  # no prune option here: agents prune with brain_history_prune, a tool of its own
            raise BadInput("brain_history: give `slug`, the page (or file) whose versions to list; brain_history_prune prunes the whole brain's history")
        raise BadInput("history needs a page slug (`gbrain history SLUG`), or --prune to prune the whole brain")
    limit = a.get("limit")
    if limit is not None and limit < 0:
        raise BadInput("limit must be 0 (all) or more")
    r = h.versions(b, a["slug"], limit=20 if limit is None else limit)
    copies = _open_copies(b, r)
    if copies:
        r["conflict_copies"] = copies
    return r


def _open_copies(b, r: dict) -> list[str]:
    """The open conflict copies of the page (or file) ``r`` lists (a copy still in the brain of a conflict
    recorded at its path, or at the path of a name it had: :func:`gbrain.core.history.conflict_copies`):
    another version of the note, kept there by sync or watch; `history` names them, where one looks
    for a save gone missing (trial 47)."""
    kind = r["kind"]  # a page, or a file (a `.raw` sidecar's stale save kept as `name.json.conflict-…`: review of trial 47)
    from ..core import history as h

    paths: set[str] = set()
    bids: set[int] = set()
    hashes: set[str] = set()
    ids: set[int] = set()
    # the paths and texts of every name it had, while it had it, each stretch of a name it had twice
    # (a page written at a name another page left, or one another page moved onto, is another page:
    # review of trial 47; a→b→a: `a`'s first stretch is this page's); a page deleted at the name a new
    # page was written at since, whose versions there the name's history lists, with its older names
    # (`heir`: its copy was named nowhere when the conflict's texts were an older name's)
    for nm, lo, upto in h.page_spans(b.conn, kind, r["name"]):
        hi, args = ("", ()) if upto is None else (" AND version <= ?", (upto,))
        for rid, path, bid in b.conn.execute("SELECT id, path, body_id FROM history WHERE kind = ? AND name = ? AND version > ?" + hi,
                                             (kind, nm, lo, *args)).fetchall():
            ids.add(rid)
            if path:
                paths.add(path)
            if bid is not None:
                bids.add(bid)
    row = b.conn.execute("SELECT path, content_hash FROM pages WHERE slug = ?", (r["name"],)).fetchone() if kind == "page" else None
    if row:
        paths.add(row[0])
        hashes.add(row[1])
    if kind == "file":
        paths.add(r["name"])
        live = h._live_hash(b, "file", r["name"])
        if live:
            hashes.add(live)
    return h.conflict_copies(b.conn, paths, bids, hashes, ids).live


def _prune_text(r: dict, a: dict) -> str:
    what = f"{r['versions']:,} version(s) and {r['bodies']:,} stored body(ies), {r['bytes'] / 1e6:.2f} MB" + (
        f" ({r['piece_bytes'] / 1e6:.2f} MB of them big files' versions)" if r.get("piece_bytes") else " compressed")
    if r["include_deleted"]:
        what += f"; {r['deleted_keys']:,} deleted page(s)/file(s) leave the trash for good"
    rule = ", ".join(x for x in (f"older than {r['keep_days']} days" if r["keep_days"] is not None else "", f"beyond the newest {r['keep_last']}" if r["keep_last"] is not None else "") if x)
    kept = "the current version of each page is always kept, and the version each synced folder last synced (its merge base)" + ("" if r["include_deleted"] else "; so is what the trash lists: a deleted page's last text and its deletion, a version an import or sync replaced (--include-deleted prunes those too)")
    of = f" of {r['name']}" if r.get("name") else ""
    if r["applied"]:
        return f"pruned {what}{of} ({rule}; {kept})"
    return f"dry run: pruning would remove {what}{of} ({rule}; {kept}); run again with --apply to do it"


@op(
    "history-prune",
    "Drop old versions from the history of every page and file: older than `keep_days` and beyond the newest `keep_last` of "
    "each. A dry run unless `apply`. The current version stays; what the trash lists goes only with `include_deleted`.",
    [
        Param("slug", positional=True, description="only this page's (or file's) history, a deleted one's too (default: every page and file)"),
        Param("keep_days", "integer", "keep versions newer than this many days (default: config history_keep_days)", minimum=0),
        Param("keep_last", "integer", "keep this many newest versions of each page (default: config history_keep_last)", minimum=0),
        Param("include_deleted", "boolean", "also prune the trash: deleted pages and files (their last text too), versions an import or sync replaced", default=False),
        Param("apply", "boolean", "really delete (without it, only report what would go)", default=False),
    ],
    text=_prune_text,
    mutating=True,
    destructive=True,  # with apply, versions are gone for good
    title="Prune old versions from the history",
    details="The defaults come from config history_keep_days and history_keep_last.",
)
def _history_prune(b, a, ctx):
    from ..core import history as h

    days = a.get("keep_days") if a.get("keep_days") is not None else _config_int(b, "history_keep_days")
    last = a.get("keep_last") if a.get("keep_last") is not None else _config_int(b, "history_keep_last")
    key = h.resolve_key(b, a["slug"]) if a.get("slug") else None
    return h.prune(b, days, last, apply=bool(a.get("apply")), include_deleted=bool(a.get("include_deleted")), key=key)


def _diff_text(r: dict, a: dict) -> str:
    if r["diff"]:
        return r["diff"]
    if r["from"] is None:  # a page's first version, against nothing: an empty text
        return f"version {r['to']} of {r['name']} is its first, and empty\n"
    if r.get("from_name"):
        why = ""
        if a.get("from_version") is None and a.get("to_version") is None:  # the newest version is the move itself
            why = f" (it moved from {r['from_name']} with that text; `gbrain diff {cmd_arg(r['from_name'])}` shows the change before)"
        return f"version {r['from']} of {r['from_name']} and version {r['to']} of {r['name']} are identical{why}\n"
    return f"versions {r['from']} and {r['to']} of {r['name']} are identical\n"


@op(
    "diff",
    "Unified diff between two versions of a page: no versions, the one before the newest against the newest; one, "
    "that version against the newest; two, the first against the second.",
    [
        SLUG,
        Param("from_version", "integer", "the older version (default: the one before the newest)", positional=True, minimum=1),
        Param("to_version", "integer", "the newer version (default: the newest)", positional=True, minimum=1),
        # CLI only (the tools' schema bytes): a version written before a rename against one after it (trial 47)
        Param("from_name", description="read FROM_VERSION (default: its last) under this old name of the page (`history` lists them: `as OLD`)", in_schema=False),
    ],
    text=_diff_text,
    title="Diff two versions of a page",
)
def _diff(b, a, ctx):
    from ..core import history as h

    return h.diff(b, a["slug"], a.get("from_version"), a.get("to_version"), from_name=a.get("from_name") or None)


def _revert_text(r: dict) -> str:
    which = f"version {r['reverted_to']}" + (f" of {r['moved_from']} (renamed to this {'file' if r.get('kind') == 'file' else 'page'} since)" if r.get("moved_from") else "")
    if not r["changed"]:
        return f"{r.get('slug') or r.get('path')}: already equal to {which}; nothing written"
    with_ = f", with its raw data deleted with it ({', '.join(r['restored'][1:])})" if len(r.get("restored") or []) > 1 else ""
    as_file = " as a file (a hidden name: no page)" if r.get("as_file") else ""
    return f"{r.get('slug') or r.get('path')}: {which} brought back{as_file} as version {r['version']}{with_}"


@op(
    "revert",
    "Bring back a page's text as it was in version `to` (brain_history lists them) as a new version; nothing is lost. A deleted "
    "page comes back; a page renamed since gets it under its new name.",
    [SLUG, Param("to", "integer", "the version to bring back", required=True, minimum=1)],
    text=lambda r, a: _revert_text(r),
    mutating=True,
    title="Revert a page to a version",
    details="The new version has those exact bytes; a renamed page gets no second copy. Under sync/watch the file follows.",
    destructive=True,  # replaces the current text (which stays in the history)
    idempotent=True,
)
def _revert(b, a, ctx):
    from ..core import history as h

    r = h.revert(b, a["slug"], a["to"])
    if r["kind"] == "page" and r["changed"] and ctx.on_warning is not None:
        note = _dead_brought_back(b, r)
        if note:
            ctx.on_warning(note)
    return r


def _dead_brought_back(b, r: dict) -> str | None:
    """A revert brings a version back byte for byte, links and all: written in another folder or
    before a rename, its relative links and old names may name nothing now (trial 41). The
    links of the page's new text that name no page or file and that the text it replaced did
    not hold, said with where a moved file went; None when there are none."""
    from ..core import history as h
    from ..core import lint as L

    slug = r["slug"]
    c = b.conn
    before = c.execute("SELECT body_id FROM history WHERE kind = 'page' AND name = ? AND version < ? AND body_id IS NOT NULL "
                       "ORDER BY version DESC LIMIT 1", (slug, r["version"])).fetchone()
    old = h.body(c, before["body_id"]).decode("utf-8", "replace") if before else ""
    had = {link.target for link in b.parse_text(old, r["path"]).links} if old else set()
    new: list[str] = []
    # the page's links no page answers (its rows, as resolved on save: cheap), then its attachments
    for (target,) in c.execute("SELECT l.target FROM links l JOIN pages p ON p.id = l.from_page_id WHERE p.slug = ? AND l.to_page_id IS NULL "
                               "ORDER BY l.id", (slug,)):
        if target not in had and not L.has_placeholder(target) and f"'{target}'" not in new:
            new.append(f"'{target}'")
    # the version's own place: a relative link written in another folder is found from there
    at = c.execute("SELECT path FROM history WHERE kind = 'page' AND name = ? AND version = ?", (r.get("moved_from") or slug, r["reverted_to"])).fetchone()
    for f in L._dead_attachments(b, {slug}):
        went = f.get("moved_to") or (L._attachment_moved(c, at["path"], f["target"]) if at and at["path"] and at["path"] != r["path"] else None)
        shown = f"'{f['target']}'" + (f" (moved to {went})" if went else "")
        if f["form"] not in old and shown not in new:
            new.append(shown)
    if not new:
        return None
    return (f"the version brought back has {len(new)} link(s) naming no page or file now, which the replaced text did not have: "
            + ", ".join(new[:5]) + (f" and {len(new) - 5} more" if len(new) > 5 else "")
            + f"; `gbrain lint --check dead_links,dead_attachments --slug {cmd_arg(slug)}` lists them")


def _changes_text(r: list, a: dict) -> str:
    if not r:
        return Nothing("no changes" + (f" by {a['origin']}" if a.get("origin") else "") + (f" by writer {a['by']}" if a.get("by") else "")
                + (f" since {a['since']}" if a.get("since") else "") + (f" until {a['until']}" if a.get("until") else ""))
    return "\n".join(f"{c['at']}  {shown(c['name'])}" + (f" ({c['type']})" if c.get("type") else "") + f"  v{c['version']} {c['op']}  {c['origin']}" + (f"  by {c['by']}" if c.get("by") else "")
                     + (f"  {c['detail']}" if c.get("detail") else "") for c in r)


#: an agent's default `limit` of brain_changes (trial 48: 100 rows of the day's import, 28,768 B)
CHANGES_AGENT_LIMIT = 20


@op(
    "changes",
    "What changed across the brain, newest first: page or file, version, op, `origin` (cli, mcp(client), pipe, call, sync, watch, "
    "import; then the operation) and writer (`by`). brain_revert undoes one.",
    [
        Param("since", description="only changes since: a span like 24h / 7d, today, yesterday or an ISO date", default="24h"),
        Param("until", description="only changes before: the same forms as since", details="since yesterday, until today: yesterday's changes; a month or year: through its end (until 2026-12: December's too)"),
        Param("origin", description="only changes of this surface (cli, mcp, sync, …), MCP client or operation"),
        Param("exclude_origin", description="leave out the changes of this surface, MCP client or operation",
              details="import: the day's edits without the rows of an import, which records every page it stored"),
        Param("by", description="only changes by this writer: alice@laptop, a login (alice) or a host (@laptop)"),
        limit_param(100, "maximum number of changes (0: all)"),
    ],
    text=_changes_text,
    note=lambda r, a: cut_note(r, {"limit": 100, **{k: v for k, v in a.items() if v is not None}}, "newest"),  # (no limit given: 100)
    title="Recent changes across the brain",
    details="`by` is GBRAIN_USER or login@host (empty when unknown).",
    # also size, surface, operation, client and (when there is) detail: left out of the schema, whose bytes every tools/list carries
    item=obj("kind", "name", "type", "version", "at", "op", kind="string", name="string", type="string?", version="integer", at="string",
             op="string", origin="string", path="string", by="string"),
    page="limit",
    page_anchor=lambda r: "\0".join(str(r.get(k)) for k in ("kind", "name", "version", "at", "op")),
    tool_defaults={"limit": CHANGES_AGENT_LIMIT},
)
def _changes(b, a, ctx):
    from ..core import history as h

    limit = a.get("limit")
    if limit is not None and limit < 0:
        raise BadInput("limit must be 0 (all) or more")
    since, until = _since(a.get("since"), ctx.flag("since")), _since(a.get("until"), ctx.flag("until"), end=True)
    if since and until and until <= since and ctx.on_warning is not None:  # an empty window: say why nothing is listed
        ctx.on_warning(_empty_window(a, ctx, until < since))
    rows = h.changes(b, since=since, origin=a.get("origin"), limit=100 if limit is None else limit, by=a.get("by"),
                     until=until, exclude_origin=a.get("exclude_origin"))
    return [_compact_change(r) for r in rows] if ctx.agent else rows



def _empty_window(a: dict, ctx, before: bool) -> str:
    """What ``changes`` says when its ``until`` is at or before its ``since`` (``--until 2026-11``
    under the default ``--since 24h``): no change can be listed, and the ``since`` to give."""
    import re

    s, u = ctx.flag("since"), ctx.flag("until")
    dflt = " (the default)" if a.get("since") == "24h" else ""
    start = a["until"] if re.fullmatch(r"\s*\d{4}(-\d{2})?\s*", a["until"]) else None  # a month or year: through its end
    give = f"add {s} {start.strip()} or earlier" if start else f"add a {s} before it"
    return f"{u} {a['until']} is {'before' if before else 'not after'} {s} {a['since']}{dflt}: no change can match; {give}"


def _compact_change(r: dict) -> dict:
    """An agent's row of ``changes``: without ``surface``/``operation``/``client`` (``origin`` holds
    them: ``mcp(claude-code) put``) and without ``path`` where it is the name (a file) or the name
    and ``.md`` (trial 48: ~290 B a row, most of it repeated)."""
    out = {k: v for k, v in r.items() if k not in ("surface", "operation", "client")}
    if out.get("path") in (r.get("name"), f"{r.get('name')}.md"):
        del out["path"]
    return out


#: plan lines `undo`'s text lists (`--json` has them all)
UNDO_SHOWN = 50


def _undo_text(r: dict, a: dict) -> str:
    plan, n = r["plan"], r["counts"]
    if not plan:
        return "nothing to undo: no writes" + (f" by {a['origin']}" if a.get("origin") else "") + (f" by writer {a['by']}" if a.get("by") else "") + f" since {r['since']}" + (f" under {a['prefix']}" if a.get("prefix") else "")
    # the action column says what is done; the words after the name only add to it (never the action again)
    verb = {"revert": "to version {v}", "restore": "version {v} (deleted since)", "delete": "(created since; it stays in the trash)",
            "none": "(already as it was)", "skip": "({reason})"}
    lines = [f"{it['action']:<8} {it['name']}  " + verb[it["action"]].format(v=it["to_version"], reason=it["reason"])
             + f"  ({it['writes']} write{'' if it['writes'] == 1 else 's'})" for it in plan[:UNDO_SHOWN]]
    if len(plan) > UNDO_SHOWN:  # an import in the window: thousands of lines before the summary
        lines.append(f"… {len(plan) - UNDO_SHOWN:,} more (`--json` lists every one)")
    what = ", ".join(f"{k} {v}" for k, v in sorted(n.items()))
    if r["applied"] and not any(it["action"] in ("revert", "restore", "delete") for it in plan):  # nothing written: nothing to take back
        why = "every page and file was already as it was" if set(n) == {"none"} else "the lines above say why"
        lines.append(f"nothing undone ({what}): {why}; nothing was written")
    elif r["applied"]:
        back = f"--since {r.get('at') or r['since']} --origin undo" + (f" --by {cmd_arg(r['by'])}" if r.get("by") else "")
        lines.append(f"undone: {what}. The undo is in the history too: `gbrain undo {back} --apply` takes it back")
    else:
        lines.append(f"dry run ({what}); run again with --apply to do it")
    return "\n".join(lines)


@op(
    "undo",
    "Take back every write since a time by one `origin` and/or writer (`by`), under a folder (`prefix`): each page or file goes "
    "back to its version before the first such write; pages created since go to the trash, deleted ones come back. A dry run "
    "unless `apply`. Skipped, with the reason: pages written since by others, and moves. brain_changes shows the writes first.",
    [
        Param("since", description="undo writes since: a span like 30m / 24h, today or an ISO date/time (as `changes` prints it)", required=True),
        Param("origin", description="only writes from this surface (cli, mcp, pipe, call, sync, watch, import), MCP client name or operation"),
        Param("by", description="only writes by this writer: alice@laptop, a login (alice) or a host (@laptop)"),
        Param("prefix", description="only pages and files whose slug or path starts with this (a folder: projects/)"),
        Param("apply", "boolean", "really undo (without it, only report what would be done)", default=False),
    ],
    text=_undo_text,
    mutating=True,
    destructive=True,  # replaces current texts (which stay in the history)
    title="Undo writes since a time",
    details="All or nothing; the undo is itself in the history.",
)
def _undo(b, a, ctx):
    from ..core import history as h

    since = _since(a.get("since"), ctx.flag("since"))
    if not since:
        raise BadInput("undo needs --since: a span like 30m / 24h or an ISO date/time (`gbrain changes --since …` shows what it would take back)")
    return h.undo(b, since, origin=a.get("origin"), by=a.get("by"), prefix=a.get("prefix"), apply=bool(a.get("apply")))


def _purge_text(r: dict, a: dict) -> str:
    by_name: dict[str, list[int]] = {}
    for i in r["items"]:
        by_name.setdefault(i["name"], []).append(i["version"])
    listed = "; ".join(f"{n} v{', v'.join(map(str, vs))}" for n, vs in list(by_name.items())[:20]) + (
        f"; and {len(by_name) - 20} more" if len(by_name) > 20 else "")
    what = f"{r['versions']:,} version(s) of {r['names']:,} page(s)/file(s)" + (f": {listed}" if listed else "")
    if not r["applied"]:
        if r.get("refused"):  # the reason is the note (stderr), as the apply's refusal
            lines = [f"dry run: refused, as --apply would be ({', '.join(r['live'][:10])}{' and more' if len(r['live']) > 10 else ''} "
                     f"{'still holds' if len(r['live']) == 1 else 'still hold'} the text, in a name or the current version); once none does, purging would remove {what}"]
        else:
            lines = [f"dry run: purging would remove {what}; run again with --apply to do it (for good: no revert, no trash)"]
        if r.get("folder"):
            lines.append(_folder_line(r["folder"]))
        return "\n".join(lines)
    done = [f"purged {what}", "search index rebuilt"]
    if r["chunks"]:
        done.append(f"{r['chunks']:,} stale embedded chunk set(s) dropped (`gbrain embed` embeds those pages again)")
    done.append("the database file rewritten (VACUUM)" if r["vacuumed"] else
                "the database could not be rewritten now (another process has it open): close watch/serve and run this purge again")
    return "; ".join(d for d in done if d) + "\n" + (_folder_line(r["folder"]) + "\n" if r.get("folder") else "") + r["not_reached"]


def _purge_note(r: dict, a: dict) -> str | None:
    from ..core.purge import refusal

    if r.get("refused") and not r.get("applied"):
        return f"refused: {r.get('refusal') or refusal(r['live'], a['text'])} (exit 2, as `gbrain purge --apply` would)"
    return None


def _folder_line(paths: list[str]) -> str:
    shown = ", ".join(cmd_arg(p) for p in paths[:20]) + (f" and {len(paths) - 20} more" if len(paths) > 20 else "")
    return f"still in {len(paths)} file(s) of the synced folder, which purge does not touch; delete them before that folder's next sync, which imports a note there again (the file of a page deleted in the brain goes at that sync, without a copy when it holds a purged version's exact bytes; other bytes are kept as ever): {shown}"


@op(
    "purge",
    "Remove for good every version (history, trash) that holds a text, or the whole history of a deleted page or file, "
    "and what was derived from them (search index, stale embedded chunks); then rewrite the database file. A dry run "
    "unless `apply`. Refused while a current page or file holds the text (or its name does: rename it first).",
    [
        Param("slug", positional=True, description="a deleted page's (or file's) name: its whole history goes"),
        Param("text", description="the text to remove (exact bytes, case as written): every version that holds it goes"),
        Param("apply", "boolean", "really purge (without it, only report what would go)", default=False),
    ],
    text=_purge_text,
    note=_purge_note,
    mutating=True,
    destructive=True,
    mcp=False,  # only the user's own command: no agent's tool reaches it
    title="Purge a text or a deleted page from the history",
    details="For a key pasted by mistake or a person who asked to be forgotten: edit the text out of the current pages "
    "(or delete them) first. The answer never repeats the text; config purge_log records when, how many versions and their bytes' sha256 "
    "(sync removes a file of exactly those bytes without keeping them), never the text. It cannot reach copies outside the database (the folder's files, exports, git, backups).",
)
def _purge(b, a, ctx):
    from ..core import history as h
    from ..core.purge import purge

    key = h.resolve_key(b, a["slug"]) if a.get("slug") else None
    return purge(b, text=a.get("text"), key=key, apply=bool(a.get("apply")))
