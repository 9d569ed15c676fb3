"""Brain lint: the maintain skill's checks, as data an agent can act on.

:func:`lint` runs read-only SQL over the derived tables (links, tags, timeline_entries,
page_embeddings) plus a light re-read of the few pages that have an Open Threads section, and
returns one finding per problem. Nothing here parses every page again, so a 7,471-page brain
lints in well under a second (``benchmarks/lint.py``).

The checks (names are stable; they are the ``check`` field of every finding):

``dead_links``
    A link whose target resolves to no page (``links.to_page_id IS NULL``).
``dead_anchors``
    A link to a heading or block of a page (``[[Page#Heading]]``, ``![[Page#^block]]``,
    ``[t](page.md#heading)``, ``[[#Heading]]`` within the page) whose page exists but has no such
    heading or block id (:func:`_dead_anchors`).
``dead_attachments``
    An embed or link of a file that is not a page (``![[image.png]]``, ``[pdf](../files/x.pdf)``,
    ``![alt](img.png)``: an attachment extension, :data:`~gbrain.page.markdown.ATTACHMENT_EXTS`)
    that names no file in the brain (:func:`_dead_attachments`).
``orphans``
    A page no *other* page links to (self-links do not count). Left out: conflict copies (the
    ``conflicts`` check lists them) and the records the skills leave unlinked, pages of type
    ``briefing`` (skills/briefing) and ``report`` (skills/maintain's maintenance report).
``stale_compiled_truth``
    A page whose timeline has entries dated after the last revision of its compiled truth.
    The database only knows a page-level ``updated_at`` (any write touches it, including a
    timeline append), so the revision date comes from the page itself: the frontmatter
    ``updated:`` date, which the ingest skill sets whenever it rewrites the compiled truth,
    else ``created:``. Pages with neither are not judged (counted in ``notes``).
``open_threads``
    An item of an ``Open Threads`` section whose newest date (``YYYY-MM-DD`` written in the
    item, ignoring dates after ``as_of``) is more than ``thread_days`` days old, or an item
    ticked done (``- [x]``) that should move to the timeline. Undated items cannot age.
``tag_duplicates``
    Tags that differ only in case, Unicode form, spaces, ``_`` or ``-`` (``yc-alum`` / ``yc_alum`` /
    ``YC Alum``: one tag spelled several ways, :func:`~gbrain.page.slugs.tag_merge_form`). The canonical spelling is the one most pages use (so ``--fix-safe`` rewrites the
    fewest files); on a tie, the :func:`~gbrain.page.slugs.tag_merge_form` form (lowercase, words joined by ``-``) when a
    page writes it, else the smallest spelling. Tags a casefold letter apart (``ß-fm`` / ``ss-fm``,
    ``ﬁle`` / ``file``: two tags to Obsidian, one :func:`tag_key`) are "tags that look alike",
    ``needs_choice`` and ``canonical`` None: ``--fix-safe`` merges only the spellings of one tag among
    them (trial 53). A spelling written only in a page's text (``#SS-tag``) is a hand edit: the fix
    edits the tags property, and the finding's ``action`` says so.
``embeddings``
    Pages without embeddings, or whose embeddings are older than the page. When the brain has
    the ``embed_state`` table (page content hash last embedded per model, written by
    ``gbrain embed``), a page is stale when its ``content_hash`` differs from the embedded one
    and missing when it has no row for the model in use (config ``embedding_model`` if it has
    embedded anything, else the model with the most pages). Without that table, from
    ``page_embeddings`` alone: no rows is missing; a chunk created before the page's
    ``updated_at``, or made with another model than config ``embedding_model``, is stale.
    A brain with no embeddings at all gets one finding, not one per page. A model whose stored
    vectors have more than one size (its server changed its model under the same name) gets a
    ``mixed-sizes`` finding: ``query`` cannot search them until ``gbrain embed --force``.
``frontmatter_errors``
    Pages whose YAML frontmatter did not load (``pages.frontmatter_error``; the text is kept).
``duplicate_titles``
    Two or more pages whose titles are equal up to case and punctuation (``title_key``, the
    whole title: ``TCP/IP`` and ``UDP/IP`` are not):
    ``[[Title]]`` links to them are ambiguous. Conflict copies are left out (a copy shares its
    page's title until it is merged and deleted).
``conflicts``
    An open sync conflict: a conflict copy (``name.conflict-YYYYMMDDTHHMMSS``, made by sync or
    watch when the folder and the brain changed a page in ways that do not merge) still in the
    brain. Resolving it means merging what the copy has that the page lacks into the page, then
    deleting the copy (``gbrain conflicts`` says which side holds which version and who wrote it).
    A file-sync tool's conflict copy (Syncthing's ``NAME.sync-conflict-…``, Dropbox's and
    Nextcloud's ``NAME (conflicted copy …)``, ownCloud's ``NAME_conflict-…``) is one too
    (``tool`` names the tool; :func:`~gbrain.page.slugs.sync_tool_copy`).

``fix_safe=True`` applies only the edits that lose nothing: renaming tag variants to the
canonical spelling in the pages' frontmatter (through the same markdown edit ``gbrain tag``
uses). Each edit is verified before it is saved: the new text must parse to the intended tag
list, to the same value for every other frontmatter key and to the same body; otherwise the
page is left alone and listed under ``skipped``.
"""
from __future__ import annotations

import datetime as _dt
import difflib
import json
import posixpath
import re
from typing import Any, Iterable

from ..errors import BadInput, GBrainError
from ..storage.db import in_parts
from ..storage.filters import folder_sql, page_filter
from .history import _moved_to
from ..page.sections import anchor_key
from ..page.markdown import BOM, TAG_KEYS, edit_frontmatter, fm_keys, has_placeholder, notion_name, reads_graphs, split_lines, stem, tag_items, to_lf
from ..page.slugs import cmd_arg, hidden_page_write, identity_key, is_copy, is_hidden_path, is_page_copy, loose_key, name_key, nfc, page_slug_for_sidecar, portability_problems, shown, slug_for_path, slug_key, slug_problem, tag_identity, tag_merge_form, tag_spelling_rank, unicode_form

CHECKS = (
    "dead_links",
    "dead_anchors",
    "dead_attachments",
    "dead_nav_entries",
    "orphans",
    "stale_compiled_truth",
    "open_threads",
    "tag_duplicates",
    "embeddings",
    "frontmatter_errors",
    "duplicate_titles",
    "conflicts",
    "conflict_markers",
    "portable_names",
)

#: checks run only when named (``--check dead_anchors,dead_attachments``): each re-reads every
#: page body holding a link (6-16 CPU-s on obsidian-hub, against ~1 s for the default set)
OPT_IN = ("dead_anchors", "dead_attachments")
#: ``slugs`` selecting at most this many pages run :data:`OPT_IN` too when no check is named: their
#: body scan then reads those pages alone (:func:`_body_rows`)
OPT_IN_NAMED = 500

DEFAULT_THREAD_DAYS = 30
#: dead links that get "did you mean" suggestions (difflib over all slugs is the slow part)
SUGGEST_LIMIT = 50

_DATE_RE = re.compile(r"(?<!\d)(\d{4}-\d{2}-\d{2})(?!\d)")
_HEADING_RE = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_ITEM_RE = re.compile(r"^([-*+]|\d+[.)])\s+(?:\[( |x|X)\]\s+)?(.*)$")
_FENCE_RE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")


def tag_key(tag: str) -> str:
    """The key of the tags that look like one tag (``tag_duplicates``): ``#`` dropped, the tag's
    identity (:func:`~gbrain.page.slugs.tag_identity`, NFC + lowercase, as Obsidian) casefolded,
    runs of spaces, ``_`` and ``-`` joined into one ``-``. ``YC Alum`` / ``yc_alum`` /
    ``#yc-alum`` → ``yc-alum``, and ``Straße`` / ``STRASSE`` → ``strasse``: tags Obsidian tells
    apart that a reader takes for one. Coarser than the identity (one tag never has two keys)."""
    t = tag_identity(tag.strip().lstrip("#")).casefold()
    return re.sub(r"[\s_\-]+", "-", t).strip("-")


def parse_date(value: Any) -> str | None:
    """``YYYY-MM-DD`` from a frontmatter value (a date, or a datetime string), else None."""
    if value is None or isinstance(value, bool):
        return None
    s = str(value).strip()[:10]
    try:
        return _dt.date.fromisoformat(s).isoformat()
    except ValueError:
        return None


def as_of_date(as_of: str | None) -> _dt.date:
    """The day the lint judges ages against: ``as_of`` (YYYY-MM-DD) or today (UTC).
    Raises :class:`BadInput` for anything else."""
    if not as_of:
        return _dt.datetime.now(_dt.timezone.utc).date()
    try:
        return _dt.date.fromisoformat(as_of.strip())
    except ValueError as e:
        raise BadInput(f"as_of must be a date YYYY-MM-DD, got {as_of!r}") from e


# ---------------------------------------------------------------------------
# open threads
# ---------------------------------------------------------------------------


def open_thread_items(compiled_truth: str) -> list[dict]:
    """Items of every ``Open Threads`` section (any heading level, any case) of a compiled truth.

    An item is a list line (``-``, ``*``, ``+`` or ``1.``) directly under the heading, up to the
    next heading of the same or a higher level; indented continuation lines join the item.
    Fenced code is skipped. Returns ``[{"text", "done", "dates", "line"}]``; ``done`` is True for a
    ticked ``- [x]`` checkbox, ``dates`` the valid ``YYYY-MM-DD`` dates written in the item,
    ``line`` the index of its first line in ``compiled_truth``.
    """
    items: list[dict] = []
    level = 0  # heading level of the open section, 0 = not in one
    fence = ""
    cur: dict | None = None
    for n, raw in enumerate(to_lf(compiled_truth).split("\n")):
        fm = _FENCE_RE.match(raw)
        if fence:
            if fm and fm.group(1).startswith(fence[0]) and len(fm.group(1)) >= len(fence):
                fence = ""
            continue
        if fm:
            fence = fm.group(1)
            cur = None
            continue
        h = _HEADING_RE.match(raw)
        if h:
            lvl = len(h.group(1))
            if h.group(2).strip().casefold().rstrip(":") == "open threads":
                level = lvl
            elif level and lvl <= level:
                level = 0
            cur = None
            continue
        if not level:
            continue
        m = _ITEM_RE.match(raw)
        if m and raw[:1] not in (" ", "\t"):
            cur = {"text": m.group(3).strip(), "done": (m.group(2) or "").lower() == "x", "line": n}
            items.append(cur)
        elif cur is not None and raw[:1] in (" ", "\t") and raw.strip():
            cur["text"] += " " + raw.strip()
        elif not raw.strip():
            continue
        else:
            cur = None
    for it in items:
        it["dates"] = _dates(it["text"])
    return items


def _dates(text: str) -> list[str]:
    """The valid ``YYYY-MM-DD`` dates written in ``text``."""
    dates = []
    for d in _DATE_RE.findall(text):
        try:
            dates.append(_dt.date.fromisoformat(d).isoformat())
        except ValueError:
            pass
    return dates


def open_threads(conn, *, as_of: str | None = None, type: str | None = None, tag: str | None = None, older_than: int | None = None,
                 dated: bool = False, tasks: bool = True) -> list[dict]:
    """Every open-thread item in the brain, oldest first (undated items last): the items of
    ``Open Threads`` sections (:func:`open_thread_items`) and, with ``tasks``, every open task-list
    item (``- [ ] …`` anywhere in a page, as the parser reads it: :func:`~gbrain.page.markdown.open_tasks`).

    Each item: ``slug``, ``title``, ``type``, ``text``, ``done``, ``line`` (its line in the page
    file, from 1), ``date`` (newest date in the item that is not after ``as_of``, or None) and
    ``age_days`` (days from ``date`` to ``as_of``). ``older_than`` keeps dated items at least that
    many days old (and ticked ones); ``dated`` keeps the items with a date written in them, one still
    ahead too (a due date: no age yet), and ticked ones.
    Only pages whose text mentions "open thread" (or, with ``tasks``, holds ``[ ]``) are read.
    """
    from ..page.markdown import open_tasks

    day = as_of_date(as_of)
    join, where, args = page_filter(type=type, tag=tag)
    q = "SELECT p.slug, p.title, p.type, p.bom, p.frontmatter_raw, p.compiled_truth, p.separator, p.timeline FROM pages p" + join
    cond = "p.compiled_truth LIKE '%open thread%'"
    if tasks:
        cond = f"({cond} OR p.compiled_truth LIKE '%[ ]%' OR p.timeline LIKE '%[ ]%')"
    where.insert(0, cond)
    q += " WHERE " + " AND ".join(where) + " ORDER BY p.slug"
    out = []
    for r in conn.execute(q, args):
        ct = r["compiled_truth"]
        above = to_lf((BOM if r["bom"] else "") + r["frontmatter_raw"]).count("\n") + 1
        items = open_thread_items(ct) if "open thread" in ct.casefold() else []
        if tasks:
            have = {it["line"] for it in items}
            items += [{"text": text, "done": False, "line": n, "dates": _dates(text)}
                      for n, text in open_tasks(ct + r["separator"] + r["timeline"]) if n not in have]
        for it in items:
            past = [d for d in it["dates"] if d <= day.isoformat()]
            date = max(past) if past else None
            age = (day - _dt.date.fromisoformat(date)).days if date else None
            if older_than is not None and not it["done"] and (age is None or age < older_than):
                continue
            if dated and not it["done"] and not it["dates"]:
                continue  # (a date still ahead, a due date, is written in it: kept, with no age yet; trial 48)
            out.append({"slug": r["slug"], "title": r["title"], "type": r["type"], "text": it["text"], "done": it["done"], "line": above + it["line"],
                        "date": date, "age_days": age})
    out.sort(key=lambda x: (x["date"] is None, x["date"] or "", x["slug"], x["line"]))
    return out


# ---------------------------------------------------------------------------
# the checks
# ---------------------------------------------------------------------------


def _names_stored_file(conn, slug: str, target: str) -> bool:
    """Whether the markdown link ``target`` written in page ``slug`` names a file the brain
    stores (not a page), relative to the page or from the root: an attachment of another kind
    than :data:`~gbrain.page.markdown.ATTACHMENT_EXTS` lists (``Other.markdown``, ``notes.txt``)."""
    t = target.strip()
    cands = {posixpath.normpath(t.lstrip("/"))}
    if not t.startswith("/"):
        cands.add(posixpath.normpath(posixpath.join(posixpath.dirname(slug), t)))
    cands = [c for c in cands if not c.startswith("..") and c != "."]
    return bool(cands) and conn.execute(f"SELECT 1 FROM files WHERE path IN ({','.join('?' * len(cands))})", cands).fetchone() is not None


def _stored_file_names(conn) -> tuple[set[str], set[str]]:
    """The brain's stored files (not pages) as ``(paths, names)``, each NFC and casefolded."""
    paths = {nfc(p).casefold() for (p,) in conn.execute("SELECT path FROM files")}
    return paths, {posixpath.basename(p) for p in paths}


def _wiki_names_file(files: tuple[set[str], set[str]], slug: str, target: str) -> bool:
    """Whether wiki link ``target`` (written in page ``slug``) names a stored file of
    ``files`` (:func:`_stored_file_names`) as Obsidian finds one, ignoring case: relative to the
    page, from the root, a path ending in it, or (a bare name) a file of that name anywhere."""
    paths, names = files
    key = nfc(target.strip()).casefold()
    root = posixpath.normpath(key.lstrip("/"))
    rel = posixpath.normpath(posixpath.join(posixpath.dirname(slug.casefold()), key))
    return (rel in paths or root in paths or ("/" not in key.strip("/") and key in names)
            or any(p.endswith("/" + root) for p in paths))


def _tag_links(conn, rows: list) -> set[int]:
    """The ids of the dangling wiki links of ``rows`` that are tags of their page as Logseq writes
    them: ``#[[supply chain]]`` or ``#budget`` in the text, or ``[[machine learning]]`` or
    ``project`` in the page's ``tags::`` property line (a tag of the page either way). In Logseq a tag is a page, with or without a file:
    no dead link. A ``[[project]]`` written beside a ``#project`` tag is a link like any other."""
    from ..page.markdown import logseq_items, logseq_properties

    out: set[int] = set()
    by_slug: dict[str, list] = {}
    for r in rows:
        by_slug.setdefault(r["slug"], []).append(r)
    for slug, links in by_slug.items():
        row = conn.execute("SELECT id, compiled_truth, timeline FROM pages WHERE slug = ?", (slug,)).fetchone()
        if row is None:
            continue
        tags = {tag_key(t) for (t,) in conn.execute("SELECT tag FROM tags WHERE page_id = ?", (row[0],))}
        text = to_lf(row[1] + row[2])
        prop = {tag_key(t) for t in logseq_items(logseq_properties(text).get("tags", ""))} if "tags::" in text else set()
        for r in links:
            key = tag_key(r["target"])
            written = [f for f in json.loads(r["forms"] or "[]") if not f.startswith(("#", "tags:: "))]  # (#budget: markdown.logseq_tag_links)
            if key in tags and (not written or "#[[" + r["target"] + "]]" in text or key in prop):
                out.add(r["id"])
    return out


def _namespace_key(name: str) -> str:
    """``name`` as Logseq keys a namespace: NFC, casefolded, each ``/`` segment stripped, empty
    segments dropped (``Reading / Books`` → ``reading/books``)."""
    return "/".join(p.strip() for p in nfc(name).casefold().split("/") if p.strip())


def _namespace_links(brain, rows: list) -> set[int]:
    """The ids of the dangling wiki links of ``rows`` written in a page read as Logseq's whose
    target is a namespace of a page title of the same graph (``[[Reading]]`` or
    ``[[Reading/Books]]`` beside a page titled ``Reading/Books/Dune``): Logseq shows a page for
    every namespace a title holds, file or not, so no dead link (trial 61)."""
    if not reads_graphs(brain.property_syntax):
        return set()
    from ..page.links import graphs_of

    def graph(path: str):  # the graph roots a page belongs to; None: every page (property_syntax logseq)
        return frozenset(graphs_of(brain.conn, path)) if brain.property_syntax == "auto" else None

    paths: dict[str, str] = {}
    for part, marks in in_parts(sorted({r["slug"] for r in rows})):
        paths.update(brain.conn.execute(f"SELECT slug, path FROM pages WHERE slug IN ({marks})", part).fetchall())
    wanted = [(r, graph(paths[r["slug"]])) for r in rows if r["slug"] in paths and brain.page_syntax(paths[r["slug"]]).startswith("logseq")]
    if not wanted:
        return set()
    spaces: dict = {}
    for path, title in brain.conn.execute("SELECT path, title FROM pages WHERE title LIKE '%/%'"):
        if not brain.page_syntax(path).startswith("logseq"):
            continue
        parts = _namespace_key(title).split("/")
        spaces.setdefault(graph(path), set()).update("/".join(parts[:i]) for i in range(1, len(parts)))
    return {r["id"] for r, g in wanted if _namespace_key(r["target"]) in spaces.get(g, ())}


def top_names(conn) -> set[str]:
    """The casefolded first segments of every page slug (top-level folders and root pages):
    what a ``/x`` path of the brain starts with (:func:`gbrain.page.links.is_site_path`)."""
    return {nfc(s.split("/", 1)[0]).casefold() for (s,) in conn.execute("SELECT slug FROM pages")}


def site_path_links(conn) -> list[tuple[int, str, str]]:
    """``(link id, from slug, target)`` of the dangling markdown links to a docs site's own paths
    outside the brain (:func:`gbrain.page.links.is_site_path`: ``/training/modules/x/``): no dead
    links (lint's ``dead_links`` leaves them; reports count them apart)."""
    from ..page.links import is_site_path

    rows = conn.execute("SELECT l.id, p.slug, l.target, l.forms FROM links l JOIN pages p ON p.id = l.from_page_id "
                        "WHERE l.to_page_id IS NULL AND l.kind = 'markdown' AND l.target LIKE '/%' ORDER BY p.slug, l.id").fetchall()
    if not rows:
        return []
    top = top_names(conn)
    return [(r[0], r[1], r[2]) for r in rows if is_site_path(r[2], top, json.loads(r[3] or "[]"))]


def _dead_links(brain, only: "set[str] | None" = None) -> list[dict]:
    from ..page.links import SqlIndex

    rows = brain.conn.execute(
        "SELECT l.id, p.slug, l.kind, l.target, l.context, l.forms FROM links l JOIN pages p ON p.id = l.from_page_id "
        "WHERE l.to_page_id IS NULL ORDER BY p.slug, l.id"
    ).fetchall()
    if only is not None:  # before the suggestions: the first SUGGEST_LIMIT get them, make them the selected pages'
        rows = [r for r in rows if r["slug"] in only]
    rows = [r for r in rows if not is_page_copy(r["slug"])]  # a conflict copy: the conflicts check's (never rewritten: plan_link_fixes)
    # a template's `[[<% tp.date.now("YYYY-MM-DD", -1) %>]]` / `[[{{date}}]]` names the note of
    # the day it runs: no page to create or link to fix
    rows = [r for r in rows if not has_placeholder(r["target"])]
    if any(r["kind"] == "markdown" and r["target"].startswith("/") for r in rows):  # a docs site's own paths: no pages of the brain
        site = {i for i, _s, _t in site_path_links(brain.conn)}
        rows = [r for r in rows if r["id"] not in site]
    if any(r["kind"] == "wiki" for r in rows):  # a Logseq tag is a page whether or not a file holds it
        tagged = _tag_links(brain.conn, [r for r in rows if r["kind"] == "wiki"])
        rows = [r for r in rows if r["id"] not in tagged]
        spaces = _namespace_links(brain, [r for r in rows if r["kind"] in ("wiki", "embed")])
        rows = [r for r in rows if r["id"] not in spaces]
    out = []
    ids = []
    slugs: list[str] | None = None
    folders: set[str] | None = None
    by_name: dict[str, list[str]] = {}
    moves: Moves | None = None
    index = SqlIndex(brain.conn)  # (one for the whole check: it reads a Logseq graph's journals once)
    if any(r["kind"] == "markdown" for r in rows):  # a markdown link to a file the brain holds (Other.markdown, notes.txt) is no dead page link
        stored = {(r["slug"], r["target"]) for r in rows if r["kind"] == "markdown" and _names_stored_file(brain.conn, r["slug"], r["target"])}
        rows = [r for r in rows if (r["slug"], r["target"]) not in stored]
    # a wiki link or embed naming, with its extension, a file the brain holds that is not a page
    # (a legacy drawing `Old.excalidraw`, `[[notes.markdown]]`), as Obsidian opens it
    named = [r for r in rows if r["kind"] != "markdown" and "." in posixpath.basename(r["target"].strip())]
    if named:
        files = _stored_file_names(brain.conn)
        rows = [r for r in rows if r["kind"] == "markdown" or not _wiki_names_file(files, r["slug"], r["target"])]
    for i, r in enumerate(rows):
        sugg: list[str] = []
        if i < SUGGEST_LIMIT:
            if slugs is None:
                slugs = [s for (s,) in brain.conn.execute("SELECT slug FROM pages")]
                for s in slugs:
                    by_name.setdefault(posixpath.basename(s).casefold(), []).append(s)
            base = posixpath.basename(r["target"]).casefold()
            if r["kind"] == "markdown":  # a path no file has: the pages its name names by title or alias first
                sugg += _named_by(brain.conn, r["target"])
            for k in difflib.get_close_matches(base, list(by_name), n=3, cutoff=0.75):
                sugg += [s for s in by_name[k] if s not in sugg]
            sugg = sugg[:5]
        t = r["target"].strip()
        if folders is None:
            folders = {s.split("/", 1)[0] for (s,) in brain.conn.execute("SELECT slug FROM pages WHERE slug LIKE '%/%'")}
        # the page that would make the link resolve: relative to the linking page, unless the
        # target starts with a top-level folder of the brain (`companies/x` written from root);
        # a wiki link without a folder resolves by name in any folder: give the slugified name
        if r["kind"] == "markdown" and not t.startswith("/") and (t.startswith(".") or t.split("/", 1)[0] not in folders):
            missing: str | None = posixpath.normpath(posixpath.join(posixpath.dirname(r["slug"]), t))
        elif r["kind"] != "markdown" and "/" not in t:
            missing = loose_key(t) or None
        else:
            missing = posixpath.normpath(t.lstrip("/"))
        if missing and (missing.startswith("..") or missing == "."):
            missing = None
        slashed = None  # a path written with Windows' backslashes: the page it means with '/'
        if r["kind"] == "markdown" and "\\" in t:
            u = t.replace("\\", "/")
            for cand in (posixpath.normpath(posixpath.join(posixpath.dirname(r["slug"]), u)), posixpath.normpath(u.lstrip("/"))):
                if not cand.startswith("..") and brain.conn.execute("SELECT 1 FROM pages WHERE slug = ?", (cand,)).fetchone():
                    slashed = cand
                    sugg = [cand] + [x for x in sugg if x != cand][:4]
                    break
        unnamable = bool(missing and slug_problem(missing))  # no page can have that name: put would refuse it
        if unnamable:
            missing = None
        create = f"create the page (`gbrain put {cmd_arg(missing)} --compiled-truth ...`{' in a suitable folder' if missing and '/' not in missing else ''})" if missing else "create the page"
        # a page renamed or moved (a file renamed outside Obsidian): links written with its old
        # name dangle; the history knows where it went
        if moves is None:
            moves = Moves(brain.conn)
        dests, _style, via = moves.destination(index, r["slug"], r["kind"], r["target"], json.loads(r["forms"] or "[]"))
        moved = dests[0] if len(dests) == 1 else None
        if moved:
            sugg = [moved] + [s for s in sugg if s != moved][:4]
        # a property link (Obsidian frontmatter) says which property: a page linking a name from
        # both its properties and its text has two findings, told apart
        links_to = f"links in its `{(r['context'] or '').split(':', 1)[0]}` property to" if r["kind"] == "property" else "links to"
        out.append(
            {
                "check": "dead_links",
                "slug": r["slug"],
                "target": r["target"],
                "missing_slug": missing,
                "kind": r["kind"],
                "context": r["context"],
                "suggestions": sugg,
                "message": (f"{links_to} '{r['target']}' as written in {via}, the page's old place; it meant {moved}" if moved and via else
                            f"{links_to} '{r['target']}', the old name of {moved} (renamed or moved)" if moved else
                            f"{links_to} '{r['target']}', an old name of {len(dests)} pages ({', '.join(dests)}): which one is meant is ambiguous" if dests else
                            f"{links_to} '{r['target']}', which is no page" + (f"; did you mean {', '.join(sugg)}?" if sugg else "")
                            + (" (a link separates folders with '/', not '\\', on every system)" if r["kind"] == "markdown" and "\\" in t else "")),
                "action": (f"`gbrain lint --check dead_links --fix-safe` points the link at {moved}" if moved else
                           f"point the link at the one meant (`gbrain put {cmd_arg(r['slug'])} --replace '{{\"OLD\": \"NEW\"}}'`)" if dests else
                           f"{'' if unnamable else create + ', '}correct the link text (`gbrain put {cmd_arg(r['slug'])} --replace '{{\"OLD\": \"NEW\"}}'`), or drop the link (`gbrain unlink {cmd_arg(r['slug'])} {json.dumps(r['target'], ensure_ascii=False)}`)"),
            }
        )
        ids.append(r["id"])
        if moved:
            out[-1]["moved_to"] = moved
        elif dests:
            out[-1]["candidates"] = dests
    # links gbrain still resolves by a title or alias, written with a file name a move took away
    if moves is None:
        moves = Moves(brain.conn)
    misnamed = _misnamed_links(brain.conn, moves, index) if moves.load() else []
    misnamed = [m for m in misnamed if (only is None or m[0]["slug"] in only) and not is_page_copy(m[0]["slug"])]
    for r, _dests, _style in misnamed:
        links_to = f"links in its `{(r['context'] or '').split(':', 1)[0]}` property to" if r["kind"] == "property" else "links to"
        now = r["to_slug"]
        to = _dests[0]
        found = ("gbrain still finds the page by its title or an alias" if now == to else
                 f"gbrain now finds another page, {now}, by its title or an alias")
        why = (f"it now opens {now}, another page with that file name (in Obsidian too)" if r.get("opens") else
               f"no file has that name now, so Obsidian shows the link as broken ({found})")
        out.append({"check": "dead_links", "slug": r["slug"], "target": r["target"], "missing_slug": None, "kind": r["kind"],
                    "context": r["context"], "suggestions": [to], "moved_to": to,
                    "message": f"{links_to} '{r['target']}', the old file name of {to} (renamed or moved): {why}",
                    "action": f"`gbrain lint --check dead_links --fix-safe` points the link at {to}"})
        ids.append(r["id"])
    # markdown links gbrain resolves only by a title, an alias or a slugified name, with no
    # move behind them: no file has that path, so the page is a guess (Obsidian and any markdown
    # viewer show the link as broken)
    told = {r["id"] for r, _d, _s in misnamed}
    guessed = [r for r in _guessed_path_links(brain.conn, index) if r["id"] not in told and (only is None or r["slug"] in only)]
    for r in guessed:
        to = r["to_slug"]
        missing = posixpath.normpath(posixpath.join(posixpath.dirname(r["slug"]), r["target"].strip()))
        out.append({"check": "dead_links", "slug": r["slug"], "target": r["target"], "missing_slug": missing, "kind": r["kind"],
                    "context": r["context"], "suggestions": [to], "guessed": to,
                    "message": f"links to '{r['target']}', a path no file has; gbrain resolves it to {to} by its title or an alias "
                               "(a guess: Obsidian and other markdown viewers show the link as broken)",
                    "action": f"point the link at the page meant (`gbrain get {cmd_arg(r['slug'])}`, edit the path, e.g. to {to}, `gbrain put {cmd_arg(r['slug'])}`), "
                              f"or drop the link (`gbrain unlink {cmd_arg(r['slug'])} {json.dumps(r['target'], ensure_ascii=False)}`)"})
        ids.append(r["id"])
    if misnamed or guessed:
        order = sorted(range(len(out)), key=lambda i: (out[i]["slug"], ids[i]))
        out = [out[i] for i in order]
    return out + _dead_canvas_links(brain, only)


def _dead_canvas_links(brain, only: "set[str] | None" = None) -> list[dict]:
    """A canvas's file node naming a note no page has (``Notes/Old.md`` after a rename outside
    Obsidian: Obsidian rewrites the canvas on its own renames; gbrain never rewrites one) and a
    text card's link to no page, with the note's new name when the history knows it. Reported, not
    fixed: edit the canvas (its JSON ``file`` value) in Obsidian or by hand."""
    out = []
    for path in brain.canvases():
        if only is not None and path not in only:
            continue
        for x in brain.canvas_links(path):
            note = x["kind"] == "file" and x["target"].lower().endswith(".md")
            if x["to_slug"] or not (note or x["kind"] in ("wiki", "markdown")) or has_placeholder(x["target"]):
                continue
            if x["kind"] != "file" and _wiki_names_file(_stored_file_names(brain.conn), path, x["target"]):
                continue
            old = posixpath.normpath(x["target"][:-3] if note else x["target"].lstrip("/"))
            moved = (brain.renamed(old) or {}).get("slug") if not old.startswith("..") else None
            what = f"a file node names '{x['target']}'" if note else f"a text card links to '{x['target']}'"
            out.append({"check": "dead_links", "slug": path, "target": x["target"], "missing_slug": None, "kind": x["kind"],
                        "context": x["context"], "suggestions": [moved] if moved else [],
                        "message": f"{what}, " + (f"the old name of {moved} (renamed or moved)" if moved else "which is no page"),
                        "action": (f"point it at {moved}" + (f" (the node's \"file\": \"{moved}.md\")" if note else "") if moved else "point it at the page meant or drop it")
                                  + " in the canvas (Obsidian, or its JSON by hand: gbrain never rewrites a canvas)"})
    return out


def _dead_nav_entries(brain, only: "set[str] | None" = None) -> list[dict]:
    """An entry of a docs tree's nav file (``TOC.yml``, ``_toc.yml``, ``mkdocs.yml`` ``nav:``:
    :mod:`gbrain.page.navfile`) naming a page path no page has, with its line, the path it names
    and, when the history knows it, the page's new name. Spared: an entry above the brain's top
    (a docs repo's other doc sets) and one naming a stored file that is no page. Reported, not
    fixed: gbrain never rewrites a nav file."""
    out = []
    navs = brain.nav_files()
    index = brain._canvas_index(navs) if navs else None
    for path in navs:
        if only is not None and path not in only:
            continue
        dead = [x for x in brain.nav_links(path, index, full=True) if x["to_slug"] is None and not x["path"].startswith("..") and x["path"] != "."]
        dead = [x for x in dead if not brain.conn.execute("SELECT 1 FROM files WHERE path = ? OR lower(path) = lower(?)", (x["path"], x["path"])).fetchone()]
        base = None
        for x in dead:
            href, c, line, context, form = x["target"], x["path"], x["line"], x["context"], x["forms"][0]
            moved = (brain.renamed(c) or {}).get("slug")
            where = f"{path}" + (f" line {line}" if line else "")
            at = (f"line {line}, " if line else "") + context
            unnamable = bool(slug_problem(c))
            if moved:
                if base is None:  # the folder the entries are relative to (an mkdocs.yml's docs_dir)
                    base = (brain.nav_read(path) or (posixpath.dirname(path),))[0]
                new_href = posixpath.relpath(moved, base or ".") + (".md" if href.split("#", 1)[0].lower().endswith(".md") else "")
                message = f"entry '{form}' ({at}) names {c}, the old name of {moved} (renamed or moved)"
                action = f"point the entry at {new_href} in {where} (edit the file in its folder, then `gbrain sync`: gbrain never rewrites a nav file)"
            else:
                message = f"entry '{form}' ({at}) names {c}, which is no page"
                action = (("" if unnamable else f"create the page (`gbrain put {cmd_arg(c)} --compiled-truth ...`), or ")
                          + f"correct or drop the entry in {where} (edit the file in its folder, then `gbrain sync`: gbrain never rewrites a nav file)")
            out.append({"check": "dead_nav_entries", "slug": path, "target": href, "missing_slug": None if unnamable else c,
                        "line": line, "form": form, "context": context, "suggestions": [moved] if moved else [],
                        **({"moved_to": moved} if moved else {}), "message": message, "action": action})
    return out


def _named_by(conn, target: str) -> list[str]:
    """The pages whose title, alias or slugified name is the last segment of a dead link's
    ``target`` (``../people/ana`` → the page titled "Ana"), by slug: what a path link no file
    has probably meant."""
    lk = loose_key(posixpath.basename(target.strip()))
    if not lk:
        return []
    q = ("SELECT slug FROM pages WHERE loose_key = ? OR title_key = ? UNION "
         "SELECT p.slug FROM aliases a JOIN pages p ON p.id = a.page_id WHERE a.loose_key = ?")
    return sorted({r[0] for r in conn.execute(q, (lk, lk, lk))})[:5]


def _guessed_path_links(conn, index) -> list[dict]:
    """Markdown links that resolve though no page has their path or file name: gbrain found the
    page by a title, an alias or a slugified name (:func:`gbrain.page.links.resolve`, which only
    does so for a target without a ``/``). Rows ``id, slug, kind, target, context, to_slug``. A
    link whose file name is the page's (the quick test) is left without a second lookup."""
    from ..page.links import resolve

    sel = ("SELECT l.id, p.slug, l.kind, l.target, l.context, q.slug AS to_slug, q.name_key AS to_name FROM links l "
           "JOIN pages p ON p.id = l.from_page_id JOIN pages q ON q.id = l.to_page_id "
           "WHERE l.kind = 'markdown' AND l.target NOT LIKE '%/%'")
    out = []
    for r in conn.execute(sel):
        if name_key(r["target"].strip()) == r["to_name"] or resolve(index, r["slug"], r["kind"], r["target"], by_file=True) is not None:
            continue
        out.append({k: r[k] for k in ("id", "slug", "kind", "target", "context", "to_slug")})
    return out


#: a block id ending a line: after white space, alone, or right after an embed or link's ``]]``
#: (``![[img.png]]^id``, as the Obsidian Help vault writes it)
_BLOCK_ID_RE = re.compile(r"(?:^|\s|(?<=\]\]))\^([A-Za-z0-9-]+)[ \t]*$", re.M)
_ATX_RE = re.compile(r"^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$", re.M)
_HTML_ID_RE = re.compile(r"""\b(?:id|name)\s*=\s*["']([^"']+)["']""")


def _loose(s: str) -> str:
    """A heading or anchor compared loosely (:func:`gbrain.page.sections.anchor_key`, as ``get
    --section`` finds a heading): NFC, casefolded, letters and digits only, so Obsidian's
    ``[[P#Use: links]]`` (``:`` written as a space), its heading text with or without markup and
    a GitHub-style ``#use-links`` all meet."""
    return anchor_key(s)


def _body_rows(brain, only: "set[str] | None", like: tuple[str, ...]):
    """Pages (id, slug, path, body) whose body holds one of the ``like`` patterns (SQL LIKE)."""
    cond = " OR ".join(f"p.{col} LIKE ?" for _ in like for col in ("compiled_truth", "timeline"))
    args = [x for x in like for _c in (0, 1)]
    if only is not None and len(only) <= OPT_IN_NAMED:  # a few pages (`--slug`, a revert's check): read those alone
        cond = f"({cond}) AND p.slug IN ({', '.join('?' for _ in only)})"
        args += sorted(only)
    for r in brain.conn.execute(f"SELECT p.id, p.slug, p.path, p.compiled_truth, p.separator, p.timeline FROM pages p WHERE {cond} ORDER BY p.slug", args):
        brain.check_stop()  # page by page: the slowest checks (a cancelled call stops here)
        if only is None or r["slug"] in only:
            yield r, r["compiled_truth"] + r["separator"] + r["timeline"]


def _dead_anchors(brain, only: "set[str] | None" = None) -> list[dict]:
    """Links to a heading or block (``#…``) of a page that exists but has no such heading
    (compared by :func:`_loose`; each part of ``#H1#H2`` must be one) or block id (``#^id``: a
    line ending in ``^id`` after white space or an embed's ``]]``; an ``id=``/``name=`` attribute in the page's HTML counts as an anchor
    too). A link to no page is ``dead_links``'; one to an attachment (``x.pdf#page=3``) is not
    judged. Reads the text of the pages that write ``#`` in a link and of their targets."""
    from ..page.linkedit import written_links
    from ..page.links import SqlIndex, resolve
    from ..page.markdown import _page_target

    index = SqlIndex(brain.conn)
    marks: dict[int, tuple[set[str], set[str]]] = {}

    def anchors_of(pid: int) -> tuple[set[str], set[str]]:
        if pid not in marks:
            row = brain.conn.execute("SELECT * FROM pages WHERE id = ?", (pid,)).fetchone()
            page = brain.parsed(row)
            body = page.body
            heads = {_loose(h) for h in page.headings} | {_loose(h) for h in _ATX_RE.findall(body)} | {_loose(h) for h in _HTML_ID_RE.findall(body)}
            marks[pid] = (heads, {b.casefold() for b in _BLOCK_ID_RE.findall(body)})
        return marks[pid]

    out = []
    for r, body in _body_rows(brain, only, ("%[[%#%", "%](%#%")):
        seen: dict[str, "dict | None"] = {}
        found = []
        for w in written_links(body):
            if w.anchor is None or not w.anchor.strip():
                continue
            if w.form in seen:
                if seen[w.form] is not None:
                    found.append((w, seen[w.form]))
                continue
            seen[w.form] = None
            if w.name:
                target = _page_target(w.name)
                if target is None:  # an attachment: pdf#page=3 is not a heading
                    continue
                pid = resolve(index, r["slug"], "markdown" if w.kind in ("markdown", "image") else "wiki", target)
                if pid is None:
                    continue  # a dead link: dead_links reports it
            else:
                pid = r["id"]
            heads, blocks = anchors_of(pid)
            a = w.anchor.strip()
            if a.startswith("^"):
                ok = a[1:].strip().casefold() in blocks
                what = f"block ^{a[1:].strip()}"
            else:
                parts = [_loose(x) for x in a.split("#") if x.strip()]
                ok = all(not x or x in heads for x in parts)
                what = f"heading '{a}'"
            if ok:
                continue
            to = brain.conn.execute("SELECT slug FROM pages WHERE id = ?", (pid,)).fetchone()["slug"]
            where = "this page" if pid == r["id"] else to
            seen[w.form] = {"check": "dead_anchors", "slug": r["slug"], "target": to, "anchor": a, "kind": w.kind, "form": w.form,
                            "message": f"{w.form} points at the {what} of {where}, which it does not have",
                            "action": f"point the link at a heading or block {where} has (`gbrain get {cmd_arg(to)}`), or drop the anchor "
                                      f"(`gbrain get {cmd_arg(r['slug'])}`, edit, `gbrain put {cmd_arg(r['slug'])}`)"}
            found.append((w, seen[w.form]))
        out += _parser_read(body, found)
    return out


def _parser_read(body: str, found: list) -> list[dict]:
    """The findings of ``found`` (``(written link, finding)`` pairs of one page ``body``, from
    :func:`gbrain.page.linkedit.written_links`, a text scan) whose link the page parser reads,
    once per form: a link in an indented code block or a fence inside a quote is no link
    (:func:`gbrain.page.linkedit.parser_reads`; review48). One parse of the page, only when it
    has a finding."""
    from ..page.linkedit import parser_reads

    if not found:
        return []
    read = parser_reads(body, [w.probe for w, _f in found])
    out, said = [], set()
    for i, (w, f) in enumerate(found):
        if i in read and w.form not in said:
            said.add(w.form)
            out.append(f)
    return out


def _dead_attachments(brain, only: "set[str] | None" = None) -> list[dict]:
    """Embeds and links of attachments (an extension of
    :data:`~gbrain.page.markdown.ATTACHMENT_EXTS`: ``![[image.png]]``, ``[pdf](../files/x.pdf)``,
    ``![alt](img.png)``) that name no file in the brain. A name is found as Obsidian finds one,
    case-insensitively: the path relative to the linking page, from the brain's root, a path
    ending in it, or (a bare name) a file of that name in any folder."""
    from ..page.linkedit import written_links
    from ..page.markdown import ATTACHMENT_EXTS

    paths: set[str] | None = None
    names: set[str] = set()
    moved_files: dict = {}  # (:func:`_attachment_moved`, read once)
    out = []
    for r, body in _body_rows(brain, only, ("%[[%", "%](%")):
        folded = body.casefold()
        if not any(("." + e) in folded for e in ATTACHMENT_EXTS):
            continue
        seen: dict[str, "dict | None"] = {}
        found = []
        for w in written_links(body):
            name = w.name.strip()
            ext = posixpath.basename(name).rsplit(".", 1)[1].casefold() if "." in posixpath.basename(name) else ""
            if ext not in ATTACHMENT_EXTS:
                continue
            if w.form in seen:
                if seen[w.form] is not None:
                    found.append((w, seen[w.form]))
                continue
            seen[w.form] = None
            if paths is None:
                paths = {nfc(p).casefold() for (p,) in brain.conn.execute("SELECT path FROM files")}
                names = {posixpath.basename(p) for p in paths}
            key = nfc(name).casefold()
            rel = posixpath.normpath(posixpath.join(posixpath.dirname(r["path"]), key))
            root = posixpath.normpath(key.lstrip("/"))
            if rel in paths or root in paths or ("/" not in key.strip("/") and key in names) or any(p.endswith("/" + root) for p in paths):
                continue
            what = "embeds" if w.kind in ("embed", "image") else "links to"
            edit = f"(`gbrain get {cmd_arg(r['slug'])}`, edit, `gbrain put {cmd_arg(r['slug'])}`)"
            moved = _attachment_moved(brain.conn, r["path"], name, moved_files)
            if moved is not None:  # sync or watch saw the file move (a renamed figures folder): the history knows where
                link = posixpath.relpath(moved, posixpath.dirname(r["path"]) or ".")
                if "/" not in name.strip() and sum(1 for q in paths if posixpath.basename(q) == posixpath.basename(moved).casefold()) == 1:
                    link = posixpath.basename(moved)  # written as a bare name, found in any folder: the new name alone
                if w.kind in ("markdown", "image") and "%" in w.form:
                    from .brain import urlquote

                    link = urlquote(link)
                seen[w.form] = {"check": "dead_attachments", "slug": r["slug"], "target": name, "kind": w.kind, "form": w.form,
                                "moved_to": moved, "suggestions": [moved],
                                "message": f"{what} '{name}', which moved to {moved} ({w.form})",
                                "action": f"point the link at its new place, `{link}` {edit}"}
            else:
                seen[w.form] = {"check": "dead_attachments", "slug": r["slug"], "target": name, "kind": w.kind, "form": w.form,
                                "message": f"{what} '{name}', which is no file in the brain ({w.form})",
                                "action": f"put the file in the brain's folder (then `gbrain sync`), correct the path, or drop the link {edit}"}
            found.append((w, seen[w.form]))
        out += _parser_read(body, found)
    return out


def _attachment_moved(conn, page_path: str, name: str, moved_files: dict | None = None) -> str | None:
    """Where the file a dead attachment link names (``name`` as written in the page at
    ``page_path``: relative to it, else from the root, else by a bare name or a path's end in any
    folder) went, when the history holds its move (:func:`gbrain.core.history._moved_to` of kind
    ``file``); None otherwise. ``moved_files``: a dict the caller keeps for one lint (the moved
    files' old paths, read once)."""
    t = nfc(name.strip())
    cands = [posixpath.normpath(posixpath.join(posixpath.dirname(page_path), t))] if not t.startswith("/") else []
    cands.append(posixpath.normpath(t.lstrip("/")))
    for c in cands:
        if not c.startswith("..") and c != ".":
            to = _moved_to(conn, c, "file")
            if to is not None:
                return to
    # a bare name (or a path's end), as Obsidian finds an attachment in any folder: the one
    # moved file whose old path ends with it (several: no answer)
    end = posixpath.normpath(t.lstrip("/")).casefold()
    if end.startswith("..") or end == ".":
        return None
    if moved_files is None:
        moved_files = {}
    if "names" not in moved_files:
        moved_files["names"] = [(n, nfc(n).casefold()) for (n,) in conn.execute(
            "SELECT DISTINCT name FROM history WHERE kind = 'file' AND op = 'move' AND detail LIKE 'to %'")]
    olds = [n for n, k in moved_files["names"] if k == end or k.endswith("/" + end)]
    dests = {d for d in (_moved_to(conn, n, "file") for n in olds) if d is not None}
    return dests.pop() if len(dests) == 1 else None


#: page types that are records, not knowledge: the skills leave them unlinked (skills/briefing,
#: skills/maintain's report), so they are no orphans
RECORD_TYPES = ("briefing", "report")


def _orphans(brain) -> list[dict]:
    rows = brain.conn.execute(
        "SELECT slug, path, title, type FROM pages p WHERE p.type NOT IN (?, ?) AND NOT EXISTS "
        "(SELECT 1 FROM links l WHERE l.to_page_id = p.id AND l.from_page_id != p.id) ORDER BY slug", RECORD_TYPES
    )
    # a note a canvas holds is no orphan (Obsidian's backlinks list the canvas), nor a page a docs tree's nav lists
    reached = (brain.canvas_reached() | brain.nav_reached()) if rows else set()
    rows = [r for r in rows if not is_copy(r["path"]) and r["slug"] not in reached]  # a conflict copy: the conflicts check's
    # an mkdocs.yml without nav: lists every page under its docs_dir (MkDocs builds the nav from them)
    listed = brain.nav_folders() if rows else []
    if listed:
        rows = [r for r in rows if not any(f == "" or r["path"].startswith(f + "/") for f in listed)]
    return [
        {
            "check": "orphans",
            "slug": r["slug"],
            "title": r["title"],
            "type": r["type"],
            "message": "no other page links here",
            "action": "link it from a related page (`gbrain link FROM " + r["slug"] + "`), or delete it if it has no value",
        }
        for r in rows
    ]


def _stale_compiled_truth(brain, only: "set[str] | None" = None) -> tuple[list[dict], dict]:
    rows = brain.conn.execute(
        "SELECT p.id, p.slug, CASE WHEN json_valid(p.frontmatter) THEN json_extract(p.frontmatter, '$.updated') END AS updated, "
        "CASE WHEN json_valid(p.frontmatter) THEN json_extract(p.frontmatter, '$.created') END AS created "
        "FROM pages p WHERE EXISTS (SELECT 1 FROM timeline_entries t WHERE t.page_id = p.id)"
    ).fetchall()
    if only is not None:  # the undated note counts the selected pages too
        rows = [r for r in rows if r["slug"] in only]
    since: dict[int, tuple[str, str, str]] = {}
    undated = 0
    for r in rows:
        u, c = parse_date(r["updated"]), parse_date(r["created"])
        if u or c:
            since[r["id"]] = (r["slug"], u or c, "updated" if u else "created")
        else:
            undated += 1
    newer: dict[int, list[str]] = {}
    for pid, date in brain.conn.execute("SELECT page_id, date FROM timeline_entries"):
        s = since.get(pid)
        if s and date > s[1]:
            newer.setdefault(pid, []).append(date)
    out = []
    for pid, dates in newer.items():
        slug, d, basis = since[pid]
        out.append(
            {
                "check": "stale_compiled_truth",
                "slug": slug,
                "revised": d,
                "revised_from": basis,
                "newer_entries": len(dates),
                "newest_entry": max(dates),
                "message": f"{len(dates)} timeline entr{'y' if len(dates) == 1 else 'ies'} after the compiled truth's {basis} date {d} (newest {max(dates)})",
                "action": f"rewrite the compiled truth from the timeline, set updated: (`gbrain put {cmd_arg(slug)} --if-hash HASH --compiled-truth ... --frontmatter '{{\"updated\": \"YYYY-MM-DD\"}}'`, HASH read first: `gbrain get {cmd_arg(slug)} --json`)",
            }
        )
    out.sort(key=lambda f: f["slug"])
    return out, {"stale_compiled_truth_undated": undated}


def _open_threads(brain, as_of: str, days: int) -> list[dict]:
    out = []
    for it in open_threads(brain.conn, as_of=as_of, older_than=days, tasks=False):
        if it["done"]:
            msg, act = "ticked done but still under Open Threads", "move it to the timeline (`gbrain timeline-add`) and remove it from Open Threads"
        else:
            msg, act = f"open for {it['age_days']} days (since {it['date']})", "follow up, or close it: remove it from Open Threads and record the outcome (`gbrain timeline-add`)"
        out.append({"check": "open_threads", "slug": it["slug"], "text": it["text"], "done": it["done"], "date": it["date"], "age_days": it["age_days"], "message": msg + ": " + it["text"][:120], "action": act})
    out.sort(key=lambda f: (f["slug"], f["date"] or ""))
    return out


def blank_tag_items(conn) -> dict[str, list[str]]:
    """``{item: [slug]}``: the items of pages' tags properties that hold a blank (``tags: [Nested
    Folder]``): no tags (:func:`gbrain.page.markdown.tag_items`), as Obsidian reads none, kept in
    the text; what :func:`tag_groups` offers to respell."""
    out: dict[str, list[str]] = {}
    for slug, fm in conn.execute("SELECT slug, frontmatter FROM pages WHERE frontmatter LIKE ? ORDER BY slug", ('%"tag%',)):
        try:
            data = json.loads(fm)
        except ValueError:
            continue
        if not isinstance(data, dict):
            continue
        for k in [k for name in TAG_KEYS for k in fm_keys(data, name)]:
            v = data.get(k)
            for item in (tag_items(v, blanks=True) if isinstance(v, list) else []):
                if any(c.isspace() for c in item) and slug not in out.setdefault(item, []):
                    out[item].append(slug)
    return out


def tag_groups(conn) -> list[dict]:
    """Groups of tag spellings with the same :func:`tag_key` and more than one spelling, or one
    written with a blank (a tags item that is no tag, :func:`blank_tag_items`; its canonical
    spelling is then one without, else the key: ``nested-folder``):
    ``[{"canonical", "variants": {spelling: pages}, "pages": [slug of pages using a non-canonical spelling],
    "renames": {spelling: spelling}, "lookalike": bool, "inline": {spelling: [slug]}}]``. ``renames`` is what
    ``--fix-safe`` may do: within one :func:`~gbrain.page.slugs.tag_merge_form` only; a group of several merge keys is
    ``lookalike`` (``canonical`` None, ``pages`` every page of the group). ``inline``: the pages
    writing a renamed spelling in their text only (the fix edits the tags property: a hand edit)."""
    groups: dict[str, dict[str, int]] = {}
    for tag, n in conn.execute("SELECT tag, COUNT(*) FROM tags GROUP BY tag"):
        groups.setdefault(tag_key(tag), {})[tag] = n
    blank = blank_tag_items(conn)
    for item, slugs in blank.items():
        groups.setdefault(tag_key(item), {})[item] = len(slugs)
    out = []
    for key, variants in sorted(groups.items()):
        spaced = [v for v in variants if v in blank]
        if (len(variants) < 2 and not spaced) or not key:
            continue
        subs: dict[str, list[str]] = {}
        for v in variants:
            subs.setdefault(tag_merge_form(v), []).append(v)
        renames: dict[str, str] = {}
        canons: dict[str, str] = {}
        for mk, vs in subs.items():
            # the spelling most pages already use (fewest files rewritten; what `gbrain tags` shows);
            # on a tie the normalised form when it is written, else the smallest; never one with a blank
            fit = [v for v in vs if v not in blank]
            canon = min(fit, key=lambda v: tag_spelling_rank(v, variants[v])) if fit else mk
            canons[mk] = canon
            renames.update({v: canon for v in vs if v != canon})
        lookalike = len(subs) > 1
        bad = list(variants) if lookalike else list(renames)
        ph = ",".join("?" * len(bad))
        pages = {s for (s,) in conn.execute(f"SELECT DISTINCT p.slug FROM tags t JOIN pages p ON p.id = t.page_id WHERE t.tag IN ({ph})", bad)} if bad else set()
        pages.update(s for v in spaced for s in blank[v])
        inline: dict[str, list[str]] = {}
        ren = [v for v in renames if v not in blank]
        if ren:
            ph = ",".join("?" * len(ren))
            for t, s in conn.execute(f"SELECT t.tag, p.slug FROM tags t JOIN pages p ON p.id = t.page_id WHERE t.inline = 1 AND t.tag IN ({ph}) ORDER BY p.slug", ren):
                inline.setdefault(t, []).append(s)
        out.append({"canonical": None if lookalike else canons[next(iter(subs))], "variants": dict(sorted(variants.items(), key=lambda kv: (-kv[1], kv[0]))),
                    "pages": sorted(pages), "renames": renames, "lookalike": lookalike, "inline": inline})
    return out


def _by_hand(brain, tag: str, slugs: list[str], new: str) -> str:
    """What to rename by hand for ``tag`` written in the text of ``slugs``: ``'#tag' in the text of
    a, b → '#new'``, and a page writing it in a Logseq ``tags::`` or Notion ``Tags:`` line named with
    that line (it holds no ``#tag``: :meth:`Brain.tag_line`; trial 57)."""
    lines: dict[str, list[str]] = {}
    bare = []
    for slug in slugs:
        row = brain.conn.execute("SELECT * FROM pages WHERE slug = ?", (slug,)).fetchone()
        # (only a Notion-named page or one in a Logseq graph's folder can have such a line: no parse of the others)
        may = row is not None and (notion_name(row["path"]) != stem(row["path"]) or brain.page_syntax(row["path"]).startswith("logseq"))
        line = brain.tag_line(row, brain.parsed(row), tag_identity(tag))[0] if may else None
        (lines.setdefault(line, []) if line else bare).append(slug)
    parts = [f"'#{tag}' in the text of {', '.join(bare)} → '#{new}'"] if bare else []
    parts += [f"'{tag}' in the {line} of {', '.join(s)} → '{new}'" for line, s in lines.items()]
    return "; ".join(parts)


def _tag_duplicates(brain) -> list[dict]:
    out = []
    for g in tag_groups(brain.conn):
        # spellings that differ only in Unicode form look the same: each says which it is (trial 43)
        forms: dict[str, int] = {}
        for v in g["variants"]:
            forms[nfc(v)] = forms.get(nfc(v), 0) + 1
        spell = ", ".join(f"{v!r}{unicode_form(v) if forms[nfc(v)] > 1 else ''} ({n})" for v, n in g["variants"].items())
        blank = [v for v in g["variants"] if any(c.isspace() for c in v)]
        # what --fix-safe does (the tags property only: a spelling written in the text is a hand edit; trial 53)
        inline_only = {v for v, slugs in g["inline"].items() if g["variants"].get(v, 0) <= len(slugs)}
        fix = {v: c for v, c in g["renames"].items() if v not in inline_only}
        if not fix:
            safe = ""
        elif not g["lookalike"]:
            safe = f"`gbrain lint --fix-safe` renames them to '{g['canonical']}'" if not g["inline"] else \
                f"`gbrain lint --fix-safe` renames them to '{g['canonical']}' in the tags property"
        else:
            safe = "`gbrain lint --fix-safe` renames " + ", ".join(f"{v!r} to {c!r}" for v, c in fix.items())
        hand = "; ".join(_by_hand(brain, v, slugs, g["renames"][v]) for v, slugs in g["inline"].items())
        parts = [safe] if safe else []
        if hand:
            parts.append(f"rename by hand (lint-fix edits the tags property only): {hand}")
        if g["lookalike"]:
            parts.append("tags a letter apart (ß/ss, ﬁ/fi) are different tags to Obsidian: whether to merge them is a person's choice "
                         "(`gbrain untag SLUG TAG`, `gbrain tag SLUG TAG`)")
        if g["lookalike"]:
            message = f"tags that look alike ({len(g['variants'])} spellings, not one tag): {spell}"
        elif len(g["variants"]) > 1:
            message = f"one tag spelled {len(g['variants'])} ways: {spell}"
        else:
            message = f"{blank[0]!r} in the tags property ({g['variants'][blank[0]]}) is no tag: a tag holds no blank (Obsidian reads none)"
        if blank and len(g["variants"]) > 1:
            message += f"; {', '.join(repr(v) for v in blank)} holding a blank {'is' if len(blank) == 1 else 'are'} no tag"
        out.append(
            {
                "check": "tag_duplicates",
                "slug": None,
                "canonical": g["canonical"],
                "variants": g["variants"],
                "pages": g["pages"],
                "needs_choice": g["lookalike"],
                "message": message,
                "action": "; ".join(parts),
            }
        )
    return out


def _has_table(conn, name: str) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)).fetchone() is not None


def _active_model(brain) -> str | None:
    """The model `gbrain query` and `gbrain embed` use for this brain, or None when the
    configured provider cannot be built."""
    from ..errors import GBrainError
    from ..search.vectors import active_model

    try:
        return active_model(brain.conn, brain.config())[0].model_id
    except GBrainError:
        return None


def _embeddings(brain) -> list[dict]:
    c = brain.conn
    pages = c.execute("SELECT COUNT(*) FROM pages").fetchone()[0]
    total = c.execute("SELECT COUNT(*) FROM page_embeddings").fetchone()[0]
    # judge by embed_state (what `gbrain embed` records) when it holds anything; embedding rows
    # written some other way are judged by their timestamps and model
    state = _has_table(c, "embed_state") and c.execute("SELECT 1 FROM embed_state LIMIT 1").fetchone() is not None
    if state:
        total += c.execute("SELECT COUNT(*) FROM embed_state").fetchone()[0]
    if total == 0:
        if pages == 0:
            return []
        return [{"check": "embeddings", "slug": None, "reason": "none", "pages": pages, "message": f"no page has embeddings ({pages:,} pages); `gbrain query` falls back to keyword search until `gbrain embed` runs", "action": "gbrain embed --all"}]
    configured = brain.get_config("embedding_model") or ""
    out = []
    from ..search.vectors import mixed_dims

    for m, by in mixed_dims(c).items():
        sizes = ", ".join(f"{n:,} chunks of {d} dims" for d, n in sorted(by.items()))
        out.append({"check": "embeddings", "slug": None, "reason": "mixed-sizes", "model": m, "sizes": {str(d): n for d, n in by.items()},
                    "message": f"the vectors of {m} have {len(by)} sizes ({sizes}): `gbrain query` cannot search them (its server changed "
                               f"its model under the same name); re-embed every page with `gbrain embed --force`, or drop them with `gbrain embed-drop {m}`",
                    "action": "gbrain embed --force"})
    if state:
        # embed_state (page_id, model, content_hash): the page content each model last embedded.
        # Judge by the configured model when it has embedded anything, else by the model that has
        # embedded the most pages (the one `gbrain embed` actually runs, e.g. an offline fallback).
        models = {m: n for m, n in c.execute("SELECT model, COUNT(*) FROM embed_state GROUP BY model")}
        model = _active_model(brain) or configured
        if not models.get(model):
            others = ", ".join(f"{n:,} pages of {m}" for m, n in sorted(models.items(), key=lambda kv: -kv[1]) if n)
            return [{"check": "embeddings", "slug": None, "reason": "none", "model": model, "pages": pages,
                     "message": f"no page is embedded with {model}, the model `gbrain query` uses" + (f" (there are embeddings of {others})" if others else "") + "; query falls back to keyword search until `gbrain embed` runs",
                     "action": "gbrain embed --stale"}]
        from ..errors import GBrainError
        from ..search.embeddings import chunk_tokens_for, chunking_said, chunking_version
        from ..search.vectors import STALE_WHERE

        try:
            budget = chunk_tokens_for(model, brain.config())  # config embedding_chunk_tokens: the brain's cut (within the model's window)
        except GBrainError:
            budget = None
        version = chunking_version(model, budget)
        rows = c.execute(
            "SELECT p.slug, p.updated_at, s.content_hash IS NULL AS missing, s.content_hash = p.content_hash AS same FROM pages p "
            f"LEFT JOIN embed_state s ON s.page_id = p.id AND s.model = ? WHERE {STALE_WHERE} ORDER BY p.slug",
            (model, version),
        )
        for r in rows:
            if r["missing"]:
                out.append({"check": "embeddings", "slug": r["slug"], "reason": "missing", "model": model, "message": f"not embedded with {model}", "action": f"gbrain embed {cmd_arg(r['slug'])}"})
            elif r["same"]:
                out.append({"check": "embeddings", "slug": r["slug"], "reason": "stale", "stale_because": "chunking", "model": model, "updated_at": r["updated_at"], "message": f"embedded with {'another' if budget else 'an older'} chunking of {model} ({chunking_said(version)} now)", "action": "gbrain embed --stale"})
            else:
                out.append({"check": "embeddings", "slug": r["slug"], "reason": "stale", "stale_because": "changed", "model": model, "updated_at": r["updated_at"], "message": f"page changed since it was embedded with {model}", "action": f"gbrain embed {cmd_arg(r['slug'])}"})
        return out
    # no embed_state table: compare the embedding rows' timestamps and model with the page
    for (slug,) in c.execute("SELECT slug FROM pages p WHERE NOT EXISTS (SELECT 1 FROM page_embeddings e WHERE e.page_id = p.id) ORDER BY slug"):
        out.append({"check": "embeddings", "slug": slug, "reason": "missing", "message": "no embeddings", "action": f"gbrain embed {cmd_arg(slug)}"})
    rows = c.execute(
        "SELECT p.slug, p.updated_at, SUM(CASE WHEN ? != '' AND e.model != ? THEN 1 ELSE 0 END) AS other_model, "
        "MIN(julianday(e.created_at)) < julianday(p.updated_at) AS older "
        "FROM pages p JOIN page_embeddings e ON e.page_id = p.id GROUP BY p.id HAVING older OR other_model > 0 ORDER BY p.slug",
        (configured, configured),
    )
    for r in rows:
        why = "model" if r["other_model"] and not r["older"] else "older"
        msg = f"embedded with another model than {configured}" if why == "model" else f"page changed at {r['updated_at']}, after its embeddings"
        out.append({"check": "embeddings", "slug": r["slug"], "reason": "stale", "stale_because": why, "updated_at": r["updated_at"], "message": msg, "action": f"gbrain embed {cmd_arg(r['slug'])}"})
    out.sort(key=lambda f: f["slug"])
    return out


def not_real_dates(fm: Any) -> list[tuple[str, str]]:
    """``[(key, value)]`` of the top-level frontmatter values (JSON view) written like a YAML
    timestamp whose date or time does not exist (``created: 2024-02-30``): the loader keeps
    them as text (:func:`gbrain.page.markdown.load_frontmatter`). Valid dates never show here
    (the JSON view holds them in ISO form, which is a real date)."""
    from ruamel.yaml.constructor import SafeConstructor
    from ruamel.yaml.util import create_timestamp

    out = []
    for k, v in (fm.items() if isinstance(fm, dict) else ()):
        if isinstance(v, str) and v[:1].isdigit():
            m = SafeConstructor.timestamp_regexp.match(v)
            if m is not None and m.end() == len(v):
                try:
                    create_timestamp(**m.groupdict())
                except ValueError:
                    out.append((k, v))
    return out


def _frontmatter_errors(brain) -> list[dict]:
    out = [
        {"check": "frontmatter_errors", "slug": r["slug"], "error": r["frontmatter_error"], "message": r["frontmatter_error"], "action": f"fix the YAML by hand (`gbrain get {cmd_arg(r['slug'])}`, edit, `gbrain put {cmd_arg(r['slug'])}`)"}
        for r in brain.conn.execute("SELECT slug, frontmatter_error FROM pages WHERE frontmatter_error IS NOT NULL ORDER BY slug")
    ]
    # values that look like dates but name none: kept as text, reported here
    for r in brain.conn.execute("SELECT slug, frontmatter FROM pages WHERE frontmatter_error IS NULL AND frontmatter LIKE ? ORDER BY slug", ('%"____-%',)):
        try:
            fm = json.loads(r["frontmatter"])
        except ValueError:
            continue
        for k, v in not_real_dates(fm):
            msg = f"frontmatter {k}: {v!r} is not a real date (kept as text)"
            out.append({"check": "frontmatter_errors", "slug": r["slug"], "error": msg, "message": msg, "action": f"fix the date by hand (`gbrain get {cmd_arg(r['slug'])}`, edit, `gbrain put {cmd_arg(r['slug'])}`)"})
    out.sort(key=lambda f: f["slug"])
    return out


def _duplicate_titles(brain) -> list[dict]:
    out = []
    rows = brain.conn.execute("SELECT title_key, MIN(title) AS title, GROUP_CONCAT(slug, char(10)) AS slugs FROM pages WHERE title_key != '' GROUP BY title_key HAVING COUNT(*) > 1 ORDER BY title_key")
    for r in rows:
        slugs = sorted(x for x in r["slugs"].split("\n") if not is_page_copy(x))  # a conflict copy: the conflicts check's
        if len(slugs) < 2:
            continue
        out.append(
            {
                "check": "duplicate_titles",
                "slug": slugs[0],
                "title": r["title"],
                "pages": slugs,
                "message": f"{len(slugs)} pages titled '{r['title']}': {', '.join(slugs)}",
                "action": "merge them if they are one entity, else make the titles distinct (`gbrain put SLUG --frontmatter '{\"title\": \"...\"}'`)",
            }
        )
    return out


def _conflicts(brain) -> list[dict]:
    """Open sync conflicts: each conflict copy still in the brain (:func:`gbrain.core.conflicts.copies`,
    the scan ``gbrain conflicts`` lists from), with what it copies (``original``) and how to resolve
    it (``action``: :func:`gbrain.core.conflicts.resolve_how`, the words ``gbrain conflicts`` gives).
    A page's copy: ``slug`` the copy, ``original`` the page. A file's copy (a ``.raw`` sidecar, an
    attachment): ``path`` the copy, ``original`` the file's path, ``slug`` the page a sidecar
    belongs to (None for another file). A file-sync tool's copy (Syncthing, Dropbox, Nextcloud,
    ownCloud): ``tool`` names it. Sorted: gbrain's page copies by slug, then its file copies, then
    the tools' copies, pages before files, each by path."""
    from .conflicts import copies, resolve_how

    own, files, tools = [], [], []
    for c in copies(brain.conn):
        f = {"check": "conflicts", "slug": c.slug if c.slug is not None else c.page}
        if c.slug is None:
            f["path"] = c.path
        f["original"] = c.original if c.slug is None else c.page
        if c.tool is not None:
            f["tool"] = c.tool
            made = f"{c.tool} made when two machines changed it before they synced; both versions are kept"
            f["message"] = (f"a conflict copy of {c.page} that {made}" if c.slug is not None
                            else f"{c.path} is a conflict copy of the file {c.original} that {made}")
            f["action"] = resolve_how(c)
            tools.append((c.slug is None, c.path, f))
        elif c.slug is not None:
            f["message"] = (f"an open sync conflict: a copy of {c.page} (the page and the folder's file changed in ways that did not merge; "
                            "both versions were kept)")
            f["action"] = "see which version is where and who wrote it (`gbrain conflicts`), then " + resolve_how(c)
            own.append((c.slug, f))
        else:
            f["message"] = (f"an open sync conflict: {c.path} is a copy of the file {c.original} (it changed in the brain and in the folder "
                            "in ways that did not merge; both versions were kept)")
            f["action"] = resolve_how(c)
            files.append((c.path, f))
    return [f for _, f in sorted(own, key=lambda x: x[0])] + [f for _, f in files] + [f for *_, f in sorted(tools, key=lambda x: x[:2])]


def _conflict_markers(brain) -> list[dict]:
    """Pages whose text holds an unresolved merge conflict git left in the file (a ``git pull``,
    ``merge``, ``rebase`` or ``stash pop`` that conflicted, synced as it was): ``line`` is where
    it starts (:func:`gbrain.page.markdown.conflict_marker_line`). Reads only the pages whose
    text holds ``<<<<<<<``."""
    from ..page.markdown import conflict_marker_line

    from .brain import render_row

    out = []
    like = "%<<<<<<<%"
    for r in brain.conn.execute("SELECT slug, path, bom, frontmatter_raw, compiled_truth, separator, timeline FROM pages "
                                "WHERE frontmatter_raw LIKE ? OR compiled_truth LIKE ? OR timeline LIKE ? ORDER BY slug", (like, like, like)):
        line = conflict_marker_line(render_row(r))
        if line is None:
            continue
        out.append({
            "check": "conflict_markers",
            "slug": r["slug"],
            "path": r["path"],
            "line": line,
            "message": f"an unresolved merge conflict from line {line}: git's <<<<<<< / ======= / >>>>>>> markers are in the text "
                       "(both sides and the markers are read as the page: its compiled truth, timeline, title or frontmatter may be wrong)",
            "action": f"resolve it in the file {r['path']} (keep the lines wanted, delete the markers, then `git add` and commit), "
                      f"or through gbrain (`gbrain get {cmd_arg(r['slug'])}`, edit, `gbrain put {cmd_arg(r['slug'])}`)",
        })
    return out


def _portable_names(brain) -> list[dict]:
    """Names of the brain's files (pages, sidecars, attachments) that a copy of its folder on
    macOS or Windows could not hold as they are (:func:`gbrain.page.slugs.portability_problems`:
    ``case``, ``folder_case``, ``windows``), each with ``kind``, ``path``, ``paths`` and
    ``pages`` (the slugs of the pages among them; ``slug`` the first, None when only files)."""
    paths = [r[0] for r in brain.conn.execute("SELECT path FROM pages UNION ALL SELECT path FROM files")]
    problems = portability_problems(paths)
    if not problems:
        return []
    slug_of = {r[0]: r[1] for r in brain.conn.execute("SELECT path, slug FROM pages")}
    out = []
    for pr in problems:
        if pr["kind"] == "folder_case":
            pre = tuple(f + "/" for f in pr["paths"])
            pages = sorted({s for p, s in slug_of.items() if p.startswith(pre)})[:10]
        else:
            pages = [slug_of[p] for p in pr["paths"] if p in slug_of]
        alike = len({nfc(p) for p in pr["paths"]}) < len(pr["paths"])  # spellings that look the same: say each one's form
        names = ", ".join(shown(p) + ((unicode_form(p) or " (NFC)") if alike else "") for p in pr["paths"])
        note = brain.sidecars_note(pr["paths"]) if pr["kind"] == "case" else None
        if note:  # two sidecars of one page (ana.json, ana.JSON): which one gbrain reads, and how to keep one
            page = page_slug_for_sidecar(pr["path"])
            message = f"{note}; {pr['why']}"
            action = (f"keep one: put the sources only the other(s) hold into the one read (`gbrain raw-put {cmd_arg(page)} --source S --data JSON`), "
                      "then delete the other(s) in the folder and `gbrain sync DIR`")
            out.append({"check": "portable_names", "slug": page, "kind": pr["kind"], "path": pr["path"],
                        "paths": pr["paths"], "pages": pages, "message": message, "action": action})
            continue
        if pr["kind"] == "case":
            message = f"{names}: {pr['why']}"
            action = ("rename all but one before the folder reaches macOS or Windows: in the folder (`git mv`, the file manager), "
                      "then `gbrain sync DIR`; or put the text under a new name (`gbrain put NEW`), then `gbrain delete OLD`")
        elif pr["kind"] == "folder_case":
            message = f"{names}: {pr['why']}"
            action = "move the files into one spelling of the folder (`git mv`, the file manager), then `gbrain sync DIR`"
        else:
            message = f"{names}: Windows cannot hold this name ({pr['why']}): a copy of the folder there lacks it"
            action = ("rename it if the folder is used on Windows: in the folder, then `gbrain sync DIR`; "
                      "or put the text under a new name (`gbrain put NEW`), then `gbrain delete OLD`")
        out.append({"check": "portable_names", "slug": pages[0] if pages else None, "kind": pr["kind"], "path": pr["path"],
                    "paths": pr["paths"], "pages": pages, "message": message, "action": action})
    return out


# ---------------------------------------------------------------------------
# safe fixes
# ---------------------------------------------------------------------------


def rename_tags_text(page, rename: dict[str, str]) -> str | None:
    """New page text with tag spellings renamed by a *text* edit of the frontmatter's ``tags``
    (``Tags``: any letter case) value only (flow list, block list, comma or blank-separated string; plain or quoted), so every other byte
    stays as it was. None when there is nothing to rename this way."""
    if not page.frontmatter_raw or not rename:
        return None
    lines = split_lines(page.frontmatter_raw)
    start = next((i for i in range(1, len(lines) - 1) if re.match(r"(?i:tags)[ \t]*:", lines[i])), None)
    if start is None:
        return None
    end = start + 1
    while end < len(lines) - 1 and (lines[end][:1] in (" ", "\t", "-") or not lines[end].strip()):
        end += 1
    alts = "|".join(re.escape(v) for v in sorted(rename, key=len, reverse=True))
    tok = re.compile(r"(?P<pre>(?:^[ \t]*-|^(?i:tags)[ \t]*:|[\[,])[ \t]*)(?P<q>['\"]?)(?P<tag>" + alts + r")(?P=q)(?=[ \t]*(?:,|\]|#|\r\n|\r|\n|$))")
    # a plain tags string on the key's line separates its tags by blanks too (``tags: journal
    # daily``, two tags): its words, renamed in place, so the blanks stay (a `` #`` starts a comment)
    plain = re.match(r"(?i:tags)[ \t]*:[ \t]*[^\s\[\]{}'\"|>&*!%@`#,-]", lines[start])
    word = re.compile(r"(?P<pre>(?:^(?i:tags)[ \t]*:|,|(?<=\S)[ \t])[ \t]*)(?P<q>)(?P<tag>" + alts + r")(?=[ \t]*(?:,|[ \t]#|\r\n|\r|\n|$)|[ \t]+[^\s#,])")
    n = 0

    def sub(m: re.Match) -> str:
        nonlocal n
        n += 1
        return m.group("pre") + m.group("q") + rename[m.group("tag")] + m.group("q")

    new = [(word if plain and i == start else tok).sub(sub, ln) if start <= i < end else ln for i, ln in enumerate(lines)]
    if not n:
        return None
    return (BOM if page.bom else "") + "".join(new) + page.body


def _fix_tags(brain, write: bool = True, only: "set[str] | None" = None) -> tuple[list[dict], list[dict]]:
    """Rename non-canonical tag spellings of duplicate groups; returns ``(fixed, skipped)``
    (``write`` False: what it would fix, nothing saved; ``only``: in these pages only).

    First a text edit of the ``tags`` value (keeps every other byte), else ruamel's round-trip
    edit (``gbrain tag``'s path; may re-indent the YAML). Either must pass the check that the
    page parses to the intended tags, the same other frontmatter values and the same body."""
    rename: dict[str, str] = {}
    pages: set[str] = set()
    for g in tag_groups(brain.conn):
        rename.update(g["renames"])  # within one tag (tag_merge_form) only: never a lookalike's (trial 53)
        pages.update(g["pages"])
    if only is not None:
        pages &= only
    others = lambda fm: {k: v for k, v in fm.items() if k not in TAG_KEYS}  # noqa: E731
    fixed, skipped = [], []
    for slug in sorted(pages):
        row = brain.page_row(slug)
        try:
            brain.check_text(row)
        except GBrainError as e:  # Damaged: a text that fails its hash is never edited
            skipped.append({"slug": slug, "reason": str(e)})
            continue
        if is_hidden_path(row["path"]):  # an older gbrain's page at a hidden name: never edited, as every write of one refuses
            skipped.append({"slug": slug, "reason": hidden_page_write(slug)})
            continue
        page = brain.parsed(row)
        new: list[str] = []
        written = list(dict.fromkeys(t for k in TAG_KEYS for t in tag_items(page.frontmatter.get(k), blanks=True)))  # (an item with a blank: no tag until respelled)
        for t in written:
            t2 = rename.get(t, t)
            if t2 not in new and not any(c.isspace() for c in t2):
                new.append(t2)
        if new == page.tags:
            continue

        def good(text: str | None) -> bool:
            if text is None:
                return False
            after = brain.parse_text(text, row["path"])
            n_items = 0
            for k in [k for name in TAG_KEYS for k in fm_keys(after.frontmatter, name)]:
                raw = after.frontmatter.get(k)
                n_items += len(tag_items(raw))  # (a number or placeholder kept in the list is no tag)
            return after.tags == new and n_items == len(new) and not after.frontmatter_error and others(after.frontmatter) == others(page.frontmatter) and after.body == page.body

        text = rename_tags_text(page, rename)
        if not good(text):
            try:
                text = edit_frontmatter(page, tags=new)
            except ValueError as e:
                skipped.append({"slug": slug, "reason": str(e)})
                continue
            if not good(text):
                skipped.append({"slug": slug, "reason": "the frontmatter edit would change more than the tags"})
                continue
        if write:
            brain.save_page(row["path"], text)
        fixed.append({"check": "tag_duplicates", "slug": slug, "from": written, "to": new, "message": "tags " + json.dumps(written, ensure_ascii=False) + " → " + json.dumps(new, ensure_ascii=False)})
    return fixed, skipped


class Moves:
    """Where a link written with an old name of a renamed or moved page points now, read from the
    history's ``move`` rows (a rename by sync or watch; chains a → b → c are followed by
    :func:`gbrain.core.history._moved_to`). One instance answers many links: the names with a
    move are read once (one scan of the page history), each old name's destination once."""

    def __init__(self, conn) -> None:
        self.conn = conn
        self.names: set[str] | None = None
        self.by_name: dict[str, list[str]] = {}  # loose key of the last segment → old names
        self.by_key: dict[str, list[str]] = {}  # slug_key (case-insensitive) → old names
        self.memo: dict[str, str | None] = {}

    def load(self) -> set[str]:
        """The page names with a ``move`` row in the history (read once)."""
        if self.names is None:
            self.names = set()
            for (n,) in self.conn.execute("SELECT DISTINCT name FROM history WHERE kind = 'page' AND op = 'move'"):
                self.names.add(n)
                self.by_name.setdefault(loose_key(posixpath.basename(n)), []).append(n)
                self.by_key.setdefault(slug_key(n), []).append(n)
        return self.names

    def dest(self, old: str) -> str | None:
        """The live page that page slug ``old`` moved to, or None (no move away from it)."""
        if old not in self.load():
            return None
        if old not in self.memo:
            self.memo[old] = _moved_to(self.conn, old)
        return self.memo[old]

    def find(self, from_slug: str, kind: str, target: str) -> tuple[str | None, list[str]]:
        """``(old slug, [live pages])`` for a dangling link of page ``from_slug`` (``kind``,
        ``target`` as stored in ``links``): a path that names a moved page exactly (a markdown
        link relative to the linking page, then from the root; a wiki link the other way round)
        (or, as links resolve, case-insensitively when only one old name matches) gives that old
        slug and its one destination; a wiki link by the end of a path (``[[Plugins/style]]``
        for ``hub/Plugins/style``) gives the one old name ending so (several: their pages,
        ambiguous); a link by bare name (``[[Name]]``, ``[t](name.md)``) gives
        every page that moved away from a page of that name (``old`` None; more than one is
        ambiguous); ``(None, [])`` when no move explains the link."""
        t = nfc(target.strip())
        if not t or not self.load():
            return None, []
        root = posixpath.normpath(t.lstrip("/"))
        rel = root if t.startswith("/") else posixpath.normpath(posixpath.join(posixpath.dirname(from_slug), t))
        for c in [rel, root] if kind == "markdown" else [root, rel]:
            if c.startswith("..") or c == ".":
                continue
            d = self.dest(c)
            if d is None and len(self.by_key.get(slug_key(c), [])) == 1:
                c = self.by_key[slug_key(c)][0]
                d = self.dest(c)
            if d:
                return c, [d]
        if "/" in t:
            if kind == "markdown" or t.startswith("/"):
                return None, []
            # a wiki link by the end of a path (``[[Plugins/style]]`` for ``hub/Plugins/style``:
            # a vault inside a bigger one), as links resolve: an old name ending with it
            tail = "/" + slug_key(root)
            olds = [n for n in self.by_name.get(loose_key(posixpath.basename(root)), []) if slug_key(n).endswith(tail)]
            dests = sorted({d for d in map(self.dest, olds) if d})
            return (olds[0] if len(olds) == 1 and dests else None), dests
        olds = self.by_name.get(loose_key(t), [])
        return None, sorted({d for d in map(self.dest, olds) if d})


    def formers(self, slug: str) -> list[tuple[str, int | None]]:
        """The slugs live page ``slug`` had before it was moved (newest first, following a → b → c),
        each with the history body id of the text it had when it moved from there."""
        out: list[tuple[str, int | None]] = []
        if slug not in self.load():
            return out
        seen = {slug}
        for _ in range(100):
            r = self.conn.execute("SELECT detail, body_id FROM history WHERE kind = 'page' AND name = ? AND op = 'move' "
                                  "AND detail LIKE 'from %' ORDER BY version DESC LIMIT 1", (slug,)).fetchone()
            if r is None or r[0][5:] in seen:
                break
            slug = r[0][5:]
            seen.add(slug)
            out.append((slug, r[1]))
        return out

    def linked_before(self, from_slug: str, target: str, forms: list[str], dest: str) -> bool:
        """Whether page ``from_slug`` held the link (one of ``forms``) in the text it had when a
        page of the link's name moved away towards ``dest``: the link then opened that page by
        its file name (as in Obsidian), so it meant the page, wherever a title or alias of
        another page takes it now. The text is the newest before that move under ``from_slug``
        or a name it had before it moved itself (:meth:`formers`: both moved in one round)."""
        from .history import body

        key = loose_key(posixpath.basename(nfc(target.strip())))
        names = None
        for old in self.by_name.get(key, []) if self.load() else []:
            if self.dest(old) != dest:
                continue
            mv = self.conn.execute("SELECT MAX(id) FROM history WHERE kind = 'page' AND name = ? AND op = 'move' "
                                   "AND detail LIKE 'to %'", (old,)).fetchone()[0]
            if mv is None:
                continue
            if names is None:  # the linking page's names: its own, and those it had before a move of its own
                names = [from_slug] + [f for f, _b in self.formers(from_slug)]
            r = self.conn.execute(f"SELECT body_id FROM history WHERE kind = 'page' AND name IN ({', '.join('?' * len(names))}) AND id < ? "
                                  "ORDER BY id DESC LIMIT 1", (*names, mv)).fetchone()
            if r is not None and r[0] is not None:
                text = body(self.conn, r[0]).decode("utf-8", "replace")
                if any(_written_in(f, text) for f in forms):
                    return True
        return False

    def destination(self, index, from_slug: str, kind: str, target: str, forms: list[str]) -> tuple[list[str], str, str | None]:
        """Where a dangling link of page ``from_slug`` was meant to point: ``([live pages],
        style, moved_from)``. Either its target is an old name of a moved page (:meth:`find`), or
        the linking page itself moved (``moved_from``: the slug it had) and the relative markdown
        link, written there (one of ``forms`` is in the text it had when it moved), resolves from
        there. ``style`` is how a new path is written: ``rel`` (relative to the linking page),
        ``root`` (from the root), ``abs`` (``/`` and from the root), ``tail`` (a wiki link by the
        end of the old path: the end of the new one, as many folders deep) or ``name`` (the file
        name alone, when no other page has it; else relative)."""
        from ..page.links import resolve

        t = nfc(target.strip())
        old, dests = self.find(from_slug, kind, target)
        if dests or kind != "markdown" or t.startswith("/"):
            rel = slug_key(posixpath.normpath(posixpath.join(posixpath.dirname(from_slug), t)))
            style = ("abs" if t.startswith("/") else "name" if old is None else "rel" if slug_key(old) == rel else
                     "tail" if kind != "markdown" and slug_key(old) != slug_key(posixpath.normpath(t)) else "root")
            return dests, style, None
        for former, body_id in self.formers(from_slug):
            if body_id is None:
                continue
            from .history import body

            text = body(self.conn, body_id).decode("utf-8", "replace")
            if not any(f in text for f in forms):
                continue  # written after the move: the link was never relative to that place
            pid = resolve(index, former, kind, target)
            if pid is not None:
                return [self.conn.execute("SELECT slug FROM pages WHERE id = ?", (pid,)).fetchone()[0]], "rel", former
            _o, ds = self.find(former, kind, target)
            if ds:
                return ds, "rel", former
        return [], "rel", None


def _written_in(form: str, text: str) -> bool:
    """Whether link ``form`` (as stored in ``links.forms``: ``[[x#h]]``, ``![[x]]``, ``(x.md)``)
    is written in ``text``: a wiki form's stored text leaves out the alias, so ``[[x|label]]``
    (``[[x\\|label]]`` in a table) holds ``[[x]]`` too."""
    if form in text:
        return True
    return form.endswith("]]") and (form[:-2] + "|" in text or form[:-2] + "\\|" in text)


def _family(kind: str) -> str:
    from ..page.markdown import link_family

    return link_family(kind)


def renamed_links(brain, only: "set[str] | None" = None, to_paths: "Iterable[str] | None" = None) -> dict:
    """How many links name a page by a name it had before a rename or move and would be
    rewritten by ``lint --check dead_links --fix-safe``: ``{"links": n, "pages": m}`` (n: the
    links as written, m: the pages holding them), and ``"elsewhere": k`` when k of them now open
    another page with the old file name (:func:`_misnamed_links`). Dangling links and links gbrain still resolves
    by a title or alias (:func:`_misnamed_links`) count alike; a link the fix would leave as
    written (an old name of several pages, a page whose text does not hold it as parsed) does
    not. Plans the rewrites without writing (:func:`plan_link_fixes`: reads the text of the
    pages holding such links); with no move in the history it reads one ``SELECT DISTINCT``.
    For the report of a sync or watch round that moved pages; ``only`` (slugs): those pages'
    links only, for a round that imported them (a note written offline with a moved page's old
    name: trial 49). ``to_paths`` (relative paths as on disk, where a sync or watch moved notes
    to): the links to the pages there only (each path's slug, :func:`gbrain.page.slugs.slug_for_path`:
    NFC, so a move to a name macOS wrote in NFD counts too), a round's or a watch's moves since its
    last line (trial 68: not the brain's backlog again at each rename)."""
    to = None if to_paths is None else {slug_for_path(p) for p in to_paths}
    if (only is not None and not only) or (to is not None and not to):
        return {"links": 0, "pages": 0}
    moves = Moves(brain.conn)
    if not moves.load():
        return {"links": 0, "pages": 0}
    pages = plan_link_fixes(brain, moves=moves, only=only)["pages"]
    if to is not None:
        pages = [p | {"links": ls} for p in pages if (ls := [c for c in p["links"] if c.get("moved_to") in to])]
    out = {"links": sum(len(p["links"]) for p in pages), "pages": len(pages)}
    elsewhere = sum(1 for p in pages for c in p["links"] if c.get("opens"))
    return out | {"elsewhere": elsewhere} if elsewhere else out


def renamed_links_in(brain, paths) -> dict:
    """:func:`renamed_links` of the pages at ``paths`` (a round's imported paths; others are
    ignored): a note written with a moved page's old name while its folder was not synced."""
    got = sorted({p for p in paths if p.lower().endswith(".md")})
    slugs: set[str] = set()
    for part, marks in in_parts(got):
        slugs.update(x for (x,) in brain.conn.execute(f"SELECT slug FROM pages WHERE path IN ({marks})", part))
    return renamed_links(brain, only=slugs)


def _dangling_destinations(conn, moves: "Moves", index, only: "set[str] | None" = None):
    """Each link a move broke, with where the move says it was meant to point: ``(row, [live
    slugs], style)`` (:meth:`Moves.destination`, resolving through ``index``), by linking page
    slug then link id: every dangling link, and every link that names a moved page by its old
    file name though gbrain still finds the page by a title or alias (:func:`_misnamed_links`,
    one destination each). ``only``: the links of these pages (slugs) only."""
    rows = conn.execute(
        "SELECT l.id, l.from_page_id, p.slug, l.kind, l.target, l.forms FROM links l JOIN pages p ON p.id = l.from_page_id "
        "WHERE l.to_page_id IS NULL ORDER BY p.slug, l.id"
    ).fetchall()
    out = []
    for r in rows:
        if only is not None and r["slug"] not in only:
            continue
        dests, style, _via = moves.destination(index, r["slug"], r["kind"], r["target"], json.loads(r["forms"] or "[]"))
        out.append((r, dests, style))
    misnamed = _misnamed_links(conn, moves, index, only)
    if misnamed:
        out = sorted(out + misnamed, key=lambda x: (x[0]["slug"], x[0]["id"]))
    yield from out


def _misnamed_links(conn, moves: "Moves", index, only: "set[str] | None" = None) -> list[tuple[dict, list[str], str]]:
    """Links that resolve (by a title, an alias or a slugified name: :func:`gbrain.page.links.resolve`)
    though no file has the name or path they are written with any more, because the page they
    resolve to had that file name before a move (the history's ``move`` rows, :class:`Moves`):
    ``[[Desktop-only plugins]]`` after ``Desktop-only plugins.md`` became ``Desktop plugins.md``
    (its H1 still says "Desktop-only plugins"), ``[t](grid-ai.md)`` after ``grid-ai.md`` became
    ``grid-ai-inc.md`` titled "Grid AI". Obsidian opens a link by file name or path only, so
    it shows these as broken. ``[(row, [the page's slug], style)]`` as
    :func:`_dangling_destinations` gives them (``row``: ``id, from_page_id, slug, kind, target,
    forms, context, to_slug``), by linking slug then link id. A link whose move points elsewhere
    than the page it resolves to (``[[Command palette]]`` after that file's rename, found now by
    another page's alias) is in only when the linking page held it when the page moved
    (:meth:`Moves.linked_before`: it opened the moved page then); else which one was meant is
    not known. So is a link that a file of its name opens now, another page than the moved one
    it opened before the move (:func:`_opened_moved`): ``[[Canvas]]`` in ``en/Plugins/…`` after
    ``en/Plugins/Canvas.md`` became ``Canvas board.md`` opens ``ko/플러그인/Canvas`` (in Obsidian
    too); ``row["opens"]`` is that page's slug (None for the others). ``only``: the links of
    these pages (slugs) only. Reads the
    resolved links whose name is an old name of a moved page (one indexed query per 500 names)."""
    from ..page.links import resolve

    moves.load()
    names = sorted(moves.by_name)
    out = []
    sel = ("SELECT l.id, l.from_page_id, p.slug, l.kind, l.target, l.forms, l.context, l.target_name, q.slug AS to_slug FROM links l "
           "JOIN pages p ON p.id = l.from_page_id JOIN pages q ON q.id = l.to_page_id WHERE l.target_name IN ({})")
    for part, marks in in_parts(names):
        for r in conn.execute(sel.format(marks), part):
            if only is not None and r["slug"] not in only:
                continue
            opens = resolve(index, r["slug"], r["kind"], r["target"], by_file=True)
            if opens is not None and not _opened_moved(index, moves, r, opens):
                continue  # a file of that name or path is there, and the link opened no moved page before
            if opens is None and not _opened_before(index, moves, r):
                continue  # found by a title/alias before the move and after; no file of its name opened the page (trial 48)
            forms = json.loads(r["forms"] or "[]")
            dests, style, _via = moves.destination(index, r["slug"], r["kind"], r["target"], forms)
            if dests == [r["to_slug"]] or (len(dests) == 1 and moves.linked_before(r["slug"], r["target"], forms, dests[0])):
                row = {k: r[k] for k in ("id", "from_page_id", "slug", "kind", "target", "forms", "context", "to_slug")}
                row["opens"] = r["to_slug"] if opens is not None else None
                out.append((row, dests, style))
    out.sort(key=lambda x: (x[0]["slug"], x[0]["id"]))
    return out


class _Before:
    """A page index (:mod:`gbrain.page.links`) with one more page, id -1, at slug ``old``: the
    file a moved page had, for resolving a link by path and file name (``by_file``) as it was
    resolved before the move."""

    def __init__(self, index, old: str) -> None:
        from ..page.slugs import name_key

        self.index, self.old = index, old
        self.keys = {"slug": old, "slug_key": slug_key(old), "name_key": name_key(old)}

    def lookup(self, column: str, value: str) -> list[tuple[int, str]]:
        rows = self.index.lookup(column, value)
        return rows + [(-1, self.old)] if self.keys.get(column) == value else rows

    def titled(self, name: str) -> list[tuple[int, str]]:
        return self.index.titled(name)


def _opened_before(index, moves: "Moves", r) -> bool:
    """Whether link row ``r`` (``slug``, ``kind``, ``target``, ``target_name``) opened, by its file
    name or path, a page that has moved away from a file of that name: resolved by path and file
    name with one old file put back (:class:`_Before`), it goes there. False for a link found by a
    title or alias both before the move and after (``[[Ana Yilmaz]]`` of ``ana-yilmaz.md`` moved to
    another folder): the move broke nothing, and it is not rewritten (as ``move``'s
    ``plan_link_fixes(moved_from=)``)."""
    from ..page.links import resolve

    return any(moves.dest(old) is not None and
               resolve(_Before(index, old), r["slug"], r["kind"], r["target"], by_file=True) == -1
               for old in moves.by_name.get(r["target_name"], []))


def _opened_moved(index, moves: "Moves", r, opens: int) -> bool:
    """Whether link row ``r`` (``slug``, ``kind``, ``target``, ``target_name``), which a file of
    its name or path opens now (page id ``opens``), opened a page that has moved away from a
    file of that name before it moved, and so opens another page with the same file name now:
    resolved by path and file name with the old file put back (:class:`_Before`), it goes there.
    False when ``opens`` is where that page went (a file name that changed only its case)."""
    from ..page.links import resolve

    for old in moves.by_name.get(r["target_name"], []):
        dest = moves.dest(old)
        if dest is None:
            continue
        at = moves.conn.execute("SELECT id FROM pages WHERE slug = ?", (dest,)).fetchone()
        if at is not None and at[0] == opens:
            return False
        if resolve(_Before(index, old), r["slug"], r["kind"], r["target"], by_file=True) == -1:
            return True
    return False


#: a link reference definition's URL on a line (:func:`_idle_definitions`' look before the scan)
_DEF_URL_RE = re.compile(r"^[ ]{0,3}\[(?!\^)[^\[\]\n]+\]:[ \t]*(<[^<>\n]*>|[^\s<>]+)", re.M)


def _idle_definitions(conn, moves: "Moves", index, only: "set[str] | None" = None) -> list:
    """Link reference definitions naming a moved page by its old path (``[a]: ../companies/acme.md``
    after acme.md became acme-corp.md) that no reference uses, so no link row holds them, as
    :func:`_dangling_destinations` gives links: ``(row dict, [live slugs], style)``. Each found by
    a look at the text of the pages holding ``]:`` (only when the history has a move); the plan
    parses the page before rewriting one (:func:`_plan_page`: one in code stays)."""
    from ..page.links import resolve
    from ..page.markdown import _link_from_url

    if not moves.load():
        return []
    out = []
    for r in conn.execute("SELECT id, slug, compiled_truth, timeline FROM pages WHERE instr(compiled_truth, ']:') > 0 "
                          "OR instr(timeline, ']:') > 0 ORDER BY slug").fetchall():
        if (only is not None and r["slug"] not in only) or is_page_copy(r["slug"]):
            continue
        seen = set()
        for part in (r["compiled_truth"], r["timeline"]):
            for m in _DEF_URL_RE.finditer(part or ""):
                target = _link_from_url(m.group(1))
                if target is None or target in seen or not moves.find(r["slug"], "markdown", target)[1]:
                    continue
                seen.add(target)
                if resolve(index, r["slug"], "markdown", target) is not None:
                    continue  # it names a page now (a used one: its link row is the plan's already)
                dests, style, _via = moves.destination(index, r["slug"], "markdown", target, [m.group(0)])
                row = {"id": 0, "from_page_id": r["id"], "slug": r["slug"], "kind": "markdown", "target": target, "forms": "[]"}
                out.append((row, dests, style))
    return out


def plan_link_fixes(brain, *, moves: "Moves | None" = None, only: "set[str] | None" = None, to: str | None = None,
                    moved_from: str | None = None, definitions: bool = False) -> dict:
    """The rewrites that point links a move broke at the page their target became (a page renamed
    or moved, per the history: :class:`Moves`), without writing anything: dangling links, and
    links that still resolve by a title or alias though their file name is gone
    (:func:`_misnamed_links`). ``moves``: a :class:`Moves` already loaded (else one is made).

    Only a target that leads to exactly one live page is rewritten; an ambiguous one (a bare
    name several moved pages had) is listed in ``skipped`` with its ``candidates``. Each link
    keeps its style (:mod:`gbrain.page.linkedit`): ``[[Old|alias]]`` → ``[[New|alias]]``
    (``#heading``, ``#^block``, ``!`` kept; a bare name stays bare when no other page has the
    new name, else the page's path), ``[t](../a/old.md#x)`` → the new path relative to the
    linking page (or from the root, as written; ``<…>`` and ``%20`` kept). Only the target
    bytes change; a page is planned only when every link to the target was found in its text
    and the new text parses to the same frontmatter, tags, aliases and timeline dates and to the
    expected links, each resolving to the new page; otherwise it is listed in ``skipped``. A
    link in a property (``related: "[[Old]]"``, kind ``property``) is rewritten the same way in
    the frontmatter text (:func:`gbrain.page.linkedit.property_spans`; never a YAML re-dump): the
    new frontmatter must load to the same data but for the wiki links' targets.

    Returns ``{"pages": [{"id", "slug", "path", "content_hash" (of the text read), "text" (the
    new text), "page" (it parsed), "links": [{"from", "to", "target", "moved_to", "opens"?}]}],
    "skipped": [{"slug", "reason", …}]}`` (``opens``: the other page with that file name the link
    opens now, :func:`_misnamed_links`); :func:`apply_link_fixes` writes the pages. ``only``: the
    links of these pages (slugs) only. ``to``: a page just moved (``move``) from ``moved_from``: only
    the links to it, and its own (its relative links, written from its old folder); a link to it
    gbrain still resolves is rewritten only when its name opened the page's old file (a rename:
    ``[[bo]]`` after ``bo.md`` became ``robert.md``), not one by a title no file had
    (``[[Ana Lima]]`` of ``ana-lima.md`` moved to another folder: trial 48). ``definitions``: also
    a link reference definition naming a moved page that no reference uses (no link:
    :func:`_idle_definitions`; lint-fix's, as ``move`` repoints one on any page)."""
    from itertools import chain

    from ..page.links import resolve
    from ..page.links import SqlIndex

    conn = brain.conn
    moves = moves or Moves(conn)
    index = SqlIndex(conn)
    want: dict[int, dict[tuple[str, str], tuple[str, str, str, str]]] = {}
    skipped: list[dict] = []
    idle = _idle_definitions(conn, moves, index, only) if definitions and to is None else []
    for r, dests, style in chain(_dangling_destinations(conn, moves, index, only), idle):
        if only is not None and r["slug"] not in only:
            continue
        if is_page_copy(r["slug"]):
            continue  # a conflict copy is a record of what someone saved: never rewritten (the conflicts check's)
        if is_hidden_path(r["slug"]):
            continue  # a page an older gbrain stored under a hidden name: a file to be, never edited (slugs.hidden_page_write)
        if to is not None and r["slug"] != to:
            if to not in dests:
                continue
            if isinstance(r, dict) and moved_from is not None and \
                    resolve(_Before(index, moved_from), r["slug"], r["kind"], r["target"], by_file=True) != -1:
                continue  # found by gbrain before and after; no file of its name opened the page: the move broke nothing
        if len(dests) == 1:
            mine = want.setdefault(r["from_page_id"], {})
            k = (_family(r["kind"]), identity_key(r["target"]))
            if r["id"] or k not in mine:  # (an idle definition's, id 0: after the links, which it never replaces)
                mine[k] = (r["kind"], r["target"], style, dests[0], r.get("opens") if isinstance(r, dict) else None)
        elif dests:
            skipped.append({"check": "dead_links", "slug": r["slug"], "target": r["target"], "candidates": dests,
                            "reason": f"'{r['target']}' is an old name of {len(dests)} pages ({', '.join(dests)}); the link is left as written"})
    pages = []
    for pid in sorted(want, key=lambda i: next(iter(want[i].values()))[1]):
        row = conn.execute("SELECT * FROM pages WHERE id = ?", (pid,)).fetchone()
        if row is None:
            continue
        plan, problems = _plan_page(brain, index, row, want[pid])
        skipped += [{"check": "dead_links", "slug": row["slug"], "reason": p} for p in problems]
        if plan:
            pages.append(plan)
    pages.sort(key=lambda p: p["slug"])
    skipped.sort(key=lambda s: s["slug"])
    return {"pages": pages, "skipped": skipped}


_LINK_BODY_RE = re.compile(r"\[\[[^\[\]\n]+?\]\]")


def _sans_links(v: Any) -> Any:
    """Loaded frontmatter ``v`` with each wiki link in a string written ``[[]]``: two
    frontmatters equal under it differ at most in where their wiki links point."""
    from ..page.markdown import map_strings

    return map_strings(v, lambda s: _LINK_BODY_RE.sub("[[]]", s) if "[[" in s else s)


def _plan_page(brain, index, row, fixes: dict) -> tuple[dict | None, list[str]]:
    """One page's rewrite (see :func:`plan_link_fixes`): ``(plan or None, problems)``. When the
    rewritten frontmatter would not load to the same data (a new name YAML cannot hold where the
    link is written), the page is planned again with its property links left as written."""
    from collections import Counter
    from dataclasses import replace

    from ..page.linkedit import Probe, definition_spans, link_spans, new_form, parser_link_counts, parser_reads, property_spans, replace_spans
    from ..page.markdown import PROPERTY, load_frontmatter

    try:
        text = brain.check_text(row)
    except GBrainError as e:  # Damaged: a text that fails its hash is never edited
        return None, [str(e)]
    # the page as parsed is in its derived rows (they come from this very text): no second parse
    conn = brain.conn
    lead = 1 if row["bom"] else 0
    head = lead + len(row["frontmatter_raw"])
    # every span's offsets in the whole text: the properties' in the frontmatter, then the body's
    spans = [replace(sp, start=sp.start + lead, end=sp.end + lead) for sp in property_spans(row["frontmatter_raw"])] if "[[" in row["frontmatter_raw"] else []
    spans += [replace(sp, start=sp.start + head, end=sp.end + head) for sp in link_spans(text[head:])]
    bear = brain.tag_syntax == "bear"
    probe_of: dict[int, Any] = {}  # id of a body span → where the parser is asked about it (the span as scanned: a Bear span's whole name)
    for sp in spans:
        if sp.kind != PROPERTY:
            probe_of[id(sp)] = Probe("markdown" if sp.kind == "markdown" else "wiki", sp.start - head, sp.end - head)
    if bear:  # [[Note/Heading]] links the note: its span is the note part (markdown.bear_heading_links)
        narrowed = [_bear_span(sp) for sp in spans]
        probe_of = {id(n): probe_of[id(sp)] for sp, n in zip(spans, narrowed) if id(sp) in probe_of}
        spans = narrowed
    # link reference definitions (`[r]: ../people/bo.md`): a definition is rewritten for every reference that uses it,
    # and one no reference uses too (move repoints it on any page: review of 2026-12-05)
    defs: set[int] = set()
    if any(k[0] == "md" for k in fixes) and "]:" in text[head:]:
        for sp in definition_spans(text[head:]):
            sp = replace(sp, start=sp.start + head, end=sp.end + head)
            probe_of[id(sp)] = Probe("def", sp.start - head, sp.end - head, label=sp.label)
            defs.add(id(sp))
            spans.append(sp)
    counts: Counter = Counter()
    for kind, target, n in conn.execute("SELECT kind, target, count FROM links WHERE from_page_id = ?", (row["id"],)):
        counts[(_family(kind), identity_key(target))] += n
    by_key: dict[tuple[str, str], list] = {}
    for sp in spans:
        by_key.setdefault((sp.family, identity_key(sp.target)), []).append(sp)
    problems: list[str] = []
    weight: dict[int, int] = {}  # id of a span → the links the parser reads through it (a definition: the references using it)
    reps: list[tuple[Any, str]] = []
    expected = Counter(counts)
    changes: list[dict] = []
    dests: dict[str, Any] = {}
    for key, (kind, target, style, dest, opens) in fixes.items():
        sps = by_key.get(key, [])
        n = counts.get(key, 0)
        if len(sps) != n and len(sps) + _notion_relations(row, text[head:], key) == n:
            problems.append(f"could not rewrite each link to '{target}': {n - len(sps)} of the {n} are in a Notion relation property "
                            "(`Name (path.md)`), which the fix does not edit; left as written")
            continue
        if key[0] != "prop" and (len(sps) != n or any(id(sp) in defs for sp in sps)):
            # the scan and the parser disagree (or a definition stands for as many links as use it): ask the parser
            # about each link scanned (as move's own rewrites do); those it reads are rewritten, only the disputed
            # ones stay (they were all left as written: a link in an indented code block kept the page's links dead)
            body = text[head:]
            probes = [probe_of[id(sp)] for sp in sps]
            cnt = parser_link_counts(body, probes)
            idle = [i for i, sp in enumerate(sps) if not cnt.get(i) and id(sp) in defs]
            idle_read = {idle[j] for j in parser_reads(body, [probes[i] for i in idle])} if idle else set()
            keep = []
            for i, sp in enumerate(sps):
                if cnt.get(i) or i in idle_read:  # a definition no reference uses: still a definition
                    keep.append(sp)
                    weight[id(sp)] = cnt.get(i, 0)
                elif id(sp) not in defs:  # (text shaped like a definition the parser reads none in: no link, nothing dead, unsaid)
                    problems.append(f"{sp.form} on line {text.count(chr(10), 0, sp.start) + 1} stands where the parser reads no link (code the text scan does not tell, such as an "
                                    "indented code block): not a link, left as written")
            sps = keep
            found = sum(weight[id(sp)] for sp in sps)
            if found > n:
                problems.append(f"could not find each link to '{target}' in the text: the text scan found {found} where the parser "
                                f"reads {n}; left as written")
                continue
            if found < n:
                problems.append(f"could not find each link to '{target}' in the text: the text scan found {found} of the {n} the "
                                "parser reads (a link written in a form the scan does not read); "
                                f"{'the others' if found else 'they'} are left as written")
            if not sps:
                continue
        elif len(sps) != n:
            problems.append(f"could not find each link to '{target}' in the text: the text scan found {len(sps)} where the parser "
                            f"reads {n}; left as written")
            continue
        if dest not in dests:
            dests[dest] = brain.conn.execute("SELECT id, slug, path FROM pages WHERE slug = ?", (dest,)).fetchone()
        d = dests[dest]
        if d is None:
            continue
        mine = []
        for sp in sps:
            w = _new_written(brain.conn, index, row, sp, style, d, bear=bear)
            if w is None:
                problems.append(f"{sp.form} cannot be written to point at {d['slug']}; left as written")
                mine = []
                break
            mine.append((sp, w))
        for sp, (w, t2) in mine:
            reps.append((sp, w))
            expected[key] -= weight.get(id(sp), 1)
            expected[(sp.family, identity_key(t2))] += weight.get(id(sp), 1)
            changes.append({"from": sp.form, "to": new_form(sp, w), "target": target, "moved_to": d["slug"]} | ({"opens": opens} if opens else {}))
    if not reps:
        return None, problems
    new_text = replace_spans(text, reps)
    after = brain.parse_text(new_text, row["path"])
    if any(sp.kind == PROPERTY for sp, _w in reps):  # the frontmatter text changed: the same data but for where links point
        old_fm, _err = load_frontmatter(row["frontmatter_raw"])
        fm_same = after.frontmatter_error is None and after.frontmatter_raw != row["frontmatter_raw"] and _sans_links(after.frontmatter) == _sans_links(old_fm)
    else:
        fm_same = after.frontmatter_raw == row["frontmatter_raw"]
    got: Counter = Counter()
    for ln in after.links:
        got[(_family(ln.kind), identity_key(ln.target))] += ln.count
    tags = sorted(t for (t,) in conn.execute("SELECT tag FROM tags WHERE page_id = ?", (row["id"],)))
    dates = [d for (d,) in conn.execute("SELECT date FROM timeline_entries WHERE page_id = ? ORDER BY id", (row["id"],))]
    same = (after.bom == bool(row["bom"]) and fm_same and after.separator == row["separator"]
            and sorted(set(after.all_tags)) == tags and [e.date for e in after.timeline_entries] == dates)
    if not fm_same and any(k[0] == "prop" for k in fixes):
        plan, more = _plan_page(brain, index, row, {k: v for k, v in fixes.items() if k[0] != "prop"}) if any(k[0] != "prop" for k in fixes) else (None, [])
        return plan, problems + more + ["the links in its properties cannot be rewritten in the frontmatter text to the same data "
                                        "(a new name the YAML cannot hold there); left as written"]
    if not same or +got != +expected:
        return None, problems + ["the rewritten text would not parse to the same page with only the links moved; left as written"]
    return {"id": row["id"], "slug": row["slug"], "path": row["path"], "content_hash": row["content_hash"], "text": new_text, "page": after,
            "links": changes}, problems


def _bear_span(sp):
    """Link span ``sp`` as a brain set to Bear's syntax reads it: a wiki link ``[[Note/Heading]]``
    (not a markdown link) names the note (:func:`gbrain.page.markdown.bear_note`), so its span is
    narrowed to the note part as written; ``/Heading`` joins the tail, kept by a rewrite."""
    from dataclasses import replace

    from ..page.markdown import _BEAR_PART_RE, bear_note

    if sp.kind == "markdown" or "/" not in sp.target:
        return sp
    note = bear_note(sp.target)
    cuts = [m.start() for m in _BEAR_PART_RE.finditer(sp.written)]
    if note == sp.target or not cuts:
        return sp
    k = len(sp.written[: cuts[-1]].rstrip())
    if k == 0:
        return sp
    return replace(sp, target=note, written=sp.written[:k], end=sp.start + k, tail=sp.tail + len(sp.written) - k)


def _notion_relations(row, body: str, key) -> int:
    """How many links of ``key`` (family, identity key of the target) page ``row`` has in Notion
    relation properties (:func:`gbrain.page.markdown.notion_relation_links`), which no text scan
    of :mod:`gbrain.page.linkedit` reads; 0 for any page not of Notion's shape."""
    from ..page.markdown import notion_relation_links, to_lf

    if ".md)" not in body:
        return 0
    return sum(ln.count for ln in notion_relation_links(to_lf(body), row["path"]) if (_family(ln.kind), identity_key(ln.target)) == key)


def _new_written(conn, index, row, sp, style: str, d, bear: bool = False) -> tuple[str, str] | None:
    """``(new written target, the target the parser will read from it)`` for link span ``sp``
    of page ``row`` so that it points at page ``d`` (id, slug, path), in ``sp``'s style (a
    markdown path ``style``: ``rel``, ``root`` or ``abs``, :meth:`Moves.destination`); None
    when no such spelling resolves to ``d``. ``bear``: the brain reads Bear's ``[[Note/Heading]]``
    (``sp`` is the note part, :func:`_bear_span`)."""
    from ..page.linkedit import link_spans, markdown_url, new_form, relative_path, wiki_target
    from ..page.links import resolve
    from ..page.markdown import _link_from_url

    slug = row["slug"]
    if sp.kind == "markdown":
        if style == "abs":
            paths = ["/" + d["path"]]
        elif style == "root":
            paths = [d["path"]]
        else:
            paths = [relative_path(d["path"], row["path"])]
            if style == "name" and conn.execute("SELECT COUNT(*) FROM pages WHERE name_key = ?", (name_key(d["slug"]),)).fetchone()[0] == 1:
                paths.insert(0, posixpath.basename(d["path"]))
        for path in paths:
            w = markdown_url(sp, path)
            t2 = _link_from_url(w) if w is not None else None
            if t2 is not None and resolve(index, slug, "markdown", t2) == d["id"]:
                return w, t2
        return None
    name = posixpath.basename(d["slug"])
    tries = [d["slug"]]
    if style == "tail":  # written as the end of the old path: the end of the new one, as many folders deep
        n = sp.target.strip().strip("/").count("/") + 1
        tries.insert(0, "/".join(d["slug"].split("/")[-n:]))
    if "/" not in sp.target and conn.execute("SELECT COUNT(*) FROM pages WHERE name_key = ?", (name_key(d["slug"]),)).fetchone()[0] == 1:
        tries.insert(0, name)  # Obsidian's "shortest path when possible"
    for c in tries:
        w = wiki_target(sp, c)
        found = link_spans(new_form(sp, w)) if w is not None else []
        t2 = (_bear_span(found[0]) if bear else found[0]).target if len(found) == 1 else None
        if t2 and resolve(index, slug, "wiki", t2) == d["id"]:
            return w, t2
    return None


def apply_link_fixes(brain, pages: list[dict]) -> tuple[list[dict], list[dict]]:
    """Write the pages planned by :func:`plan_link_fixes` (each a normal save: the history
    keeps the old version, sync/watch write the file) in one write transaction; a page whose
    text or path changed since it was read (its ``content_hash``) is skipped, not overwritten.
    Returns ``(fixed, skipped)`` as :func:`lint` reports them."""
    fixed, skipped = [], []
    with brain.transaction():
        for p in pages:
            cur = brain.conn.execute("SELECT path, content_hash FROM pages WHERE id = ?", (p["id"],)).fetchone()
            if cur is None or cur["content_hash"] != p["content_hash"] or cur["path"] != p["path"]:
                skipped.append({"check": "dead_links", "slug": p["slug"], "reason": "the page changed since the lint read it; nothing written (run the lint again)"})
                continue
            brain.save_page(p["path"], p["text"], page=p.get("page"))
            fixed.append(_link_fixed(p))
    return fixed, skipped


def _link_fixed(p: dict) -> dict:
    pairs = [f"{c['from']} → {c['to']}" for c in p["links"]]
    n = len(pairs)
    return {"check": "dead_links", "slug": p["slug"], "links": [{k: c[k] for k in ("from", "to", "moved_to")} for c in p["links"]],
            "message": f"{n} link{'s' if n != 1 else ''} to renamed pages: " + ", ".join(pairs)}


# ---------------------------------------------------------------------------
# entry point
# ---------------------------------------------------------------------------


def select_pages(brain, slugs: "str | list[str] | None" = None, since: str | None = None,
                 notes: "list[str] | None" = None) -> "set[str] | None":
    """The slugs a lint is narrowed to, or None for the whole brain.

    ``slugs``: a list (each item one page or folder, taken as written) or a string (one page or
    folder; when it names none, a comma-separated list of them). An item ending in ``/`` is a
    folder prefix (``people/``: every page under it, case-insensitive); any other item is a page
    as every command finds it (:meth:`Brain.resolve_slug`: exact, case-insensitive, unique
    suffix, alias), else a folder when pages sit under it (``people``), else the page a renamed
    page's old name leads to (:meth:`Brain.renamed`, as every write follows it), with
    "OLD was renamed to NEW on …; linted NEW" appended to ``notes`` when given. ``since``: pages
    updated at or after this ISO time (``gbrain list --since``; the surface turns ``24h`` into
    one). Both given: pages that match both. Raises :class:`NotFound` (:class:`Ambiguous`) for
    an item that names no page or folder (or several pages), :class:`BadInput` for an empty one."""
    from ..errors import Ambiguous, NotFound

    if slugs is None and not since:
        return None
    out: set[str] | None = None
    if slugs is not None:
        if isinstance(slugs, str):
            items = [slugs]
            if "," in slugs:
                try:
                    brain.resolve_slug(slugs)
                except (GBrainError, ValueError):
                    items = slugs.split(",")
        else:
            items = list(slugs)
        items = [i.strip() for i in items]
        if not items or not all(items):
            raise BadInput("slug is empty; give page slugs or folders (people/), separated by commas")
        out = set()

        def folder(prefix: str) -> list[str]:
            if not prefix.strip("/"):
                return []
            cond, args = folder_sql(prefix)
            return [s for (s,) in brain.conn.execute(f"SELECT p.slug FROM pages p WHERE {cond}", args)]

        for item in items:
            if item.endswith("/"):
                found = folder(item)
                if not found:
                    raise NotFound(f"no page under the folder '{item}'")
                out.update(found)
                continue
            try:
                out.add(brain.resolve_slug(item)["slug"])
            except NotFound as e:
                found = folder(item)
                if found:
                    out.update(found)
                    continue
                moved = None if isinstance(e, Ambiguous) else brain.renamed(item)
                if moved is None:
                    raise
                out.add(moved["slug"])
                if notes is not None:
                    notes.append(f"{moved['words']}; linted {moved['slug']}")
    if since:
        recent = {s for (s,) in brain.conn.execute("SELECT slug FROM pages WHERE updated_at >= ?", (since,))}
        out = recent if out is None else out & recent
    return out


def _in_scope(f: dict, only: "set[str] | None") -> bool:
    """Whether finding ``f`` touches a page of ``only``: its page, a page of its group
    (``pages``: tag spellings, duplicate titles) or the page a conflict copy is of; a brain-wide
    finding (no page: no embeddings at all) concerns every page."""
    if only is None:
        return True
    if f.get("slug") in only or f.get("original") in only:
        return True
    if isinstance(f.get("pages"), list) and (f["pages"] or f.get("check") == "portable_names"):
        return any(s in only for s in f["pages"])  # (a name only files have: no page's finding)
    return f.get("slug") is None


def lint(brain, *, checks: list[str] | None = None, as_of: str | None = None, thread_days: int = DEFAULT_THREAD_DAYS, limit: int | None = 100, fix_safe: bool = False, dry_run: bool = False,
         slugs: "str | list[str] | None" = None, since: str | None = None) -> dict:
    """Run the checks (all but :data:`OPT_IN`, or those named in ``checks``) over ``brain``;
    :data:`OPT_IN` too when ``slugs`` selects at most :data:`OPT_IN_NAMED` pages and no check is named.

    Returns ``{"ok", "as_of", "pages", "checks", "counts", "items", "truncated", "fixed",
    "skipped", "notes"}``: ``items`` (the findings) is a list of dicts each with ``check``, ``slug`` (None
    for brain-wide findings), ``message``, ``action`` and check-specific fields; at most
    ``limit`` per check (0/None: all) — ``counts`` has the full numbers and ``truncated`` how
    many were left out; ``fixed`` and ``skipped`` are listed up to ``limit`` too (every fix is
    applied; ``truncated["fixed"]`` / ``["skipped"]`` count the rest). ``ok`` is True when nothing was found. ``fix_safe`` first applies the
    lossless fixes (reported in ``fixed``: tag spellings, links to renamed or moved pages,
    :func:`plan_link_fixes`), then lints the result; with ``dry_run`` it only lists them
    (``dry_run`` True in the report). A ``dead_links`` finding whose target is the old name of
    one page has ``moved_to`` and, unless the fix was applied, ``rewrites`` (``[{"from", "to"}]``
    as written in the page); an ambiguous one has ``candidates``.
    ``slugs`` / ``since`` narrow the lint to some pages (:func:`select_pages`) before the limit:
    only findings that touch them (:func:`_in_scope`) are counted and listed, and ``fix_safe``
    fixes only them; ``selected`` is then how many pages that is (else None); ``note`` (only
    when one did) says which items were a renamed page's old name, linted under its new one.
    Raises :class:`BadInput` for an unknown check name or a bad ``as_of``.
    """
    wanted = [c for c in CHECKS if c not in OPT_IN] if not checks else []
    for c in checks or []:
        c = c.strip().replace("-", "_")
        if c not in CHECKS:
            raise BadInput(f"unknown check '{c}'; checks are: {', '.join(CHECKS)}")
        if c not in wanted:
            wanted.append(c)
    if thread_days is None or thread_days < 0:
        raise BadInput("thread_days must be 0 or more")
    if limit is not None and limit < 0:
        raise BadInput("limit must be 0 (no limit) or more")
    day = as_of_date(as_of).isoformat()
    followed: list[str] = []
    only = select_pages(brain, slugs, since, followed)
    if not checks and slugs is not None and only is not None and len(only) <= OPT_IN_NAMED:
        wanted = [c for c in CHECKS if c in wanted or c in OPT_IN]  # named pages: cheap, so by default
    fixed: list[dict] = []
    skipped: list[dict] = []
    if fix_safe and "tag_duplicates" in wanted:
        if dry_run:
            fixed, skipped = _fix_tags(brain, write=False, only=only)
        else:
            with brain.transaction():
                fixed, skipped = _fix_tags(brain, only=only)
    plan = plan_link_fixes(brain, only=only, definitions=fix_safe) if "dead_links" in wanted else None
    if fix_safe and plan is not None:
        skipped += plan["skipped"]
        if dry_run:
            fixed += [_link_fixed(p) for p in plan["pages"]]
        elif plan["pages"]:
            f, sk = apply_link_fixes(brain, plan["pages"])
            fixed += f
            skipped += sk
    notes: dict[str, Any] = {}
    findings: list[dict] = []
    counts: dict[str, int] = {}
    truncated: dict[str, int] = {}
    for c in CHECKS:
        if c not in wanted:
            continue
        brain.check_stop()  # a cancelled call stops here (reads only; the fixes above are committed whole)
        if c == "stale_compiled_truth":
            found, extra = _stale_compiled_truth(brain, only)
            notes.update(extra)
        elif c == "open_threads":
            found = _open_threads(brain, day, thread_days)
        elif c in ("dead_links", "dead_anchors", "dead_attachments", "dead_nav_entries"):
            found = globals()["_" + c](brain, only)
            if c == "dead_links":
                site = [s for s in site_path_links(brain.conn) if only is None or s[1] in only]
                if site:  # said, not counted: a docs site's links to its other doc sets
                    notes["dead_links_site_paths"] = len(site)
                    notes["dead_links_site_path_example"] = site[0][2]
        else:
            found = globals()["_" + c](brain)
        if only is not None:
            found = [f for f in found if _in_scope(f, only)]
        if c == "dead_links" and plan is not None and (dry_run or not fix_safe):
            rewrites: dict[tuple[str, str], list[dict]] = {}
            for p in plan["pages"]:
                for ch in p["links"]:
                    rewrites.setdefault((p["slug"], ch["target"]), []).append({"from": ch["from"], "to": ch["to"]})
            for f in found:
                if (f["slug"], f["target"]) in rewrites:
                    f["rewrites"] = rewrites[(f["slug"], f["target"])]
        counts[c] = len(found)
        if limit and len(found) > limit:
            truncated[c] = len(found) - limit
            found = found[:limit]
        findings += found
    for key, done in (("fixed", fixed), ("skipped", skipped)):  # every fix is applied; the list is capped as findings are
        if limit and len(done) > limit:
            truncated[key] = len(done) - limit
            del done[limit:]
    return {
        "ok": not any(counts.values()),
        "as_of": day,
        "pages": brain.conn.execute("SELECT COUNT(*) FROM pages").fetchone()[0],
        "selected": None if only is None else len(only),
        "checks": wanted,
        "counts": counts,
        "items": findings,
        "truncated": truncated,
        "fixed": fixed,
        "skipped": skipped,
        "notes": notes,
        "dry_run": bool(fix_safe and dry_run),
        **({"note": "; ".join(followed)} if followed else {}),
    }


def render_text(r: dict) -> str:
    """The lint report for a terminal: counts per check, one line per finding (and its action under
    it where a person must choose, ``needs_choice``, or merge a conflict copy), fixes."""
    lines = [f"gbrain lint: {r['pages']:,} pages" + (f" ({r['selected']:,} selected)" if r.get("selected") is not None else "") + f", as of {r['as_of']}"]
    if r.get("note"):
        lines.append(f"note: {r['note']}")
    for f in r["fixed"]:
        lines.append(f"{'would fix' if r.get('dry_run') else 'fixed'} {f['slug'] or '(brain)'}: {f['message']}")
    if r["truncated"].get("fixed"):
        lines.append(f"… and {r['truncated']['fixed']:,} more fixes {'to make' if r.get('dry_run') else 'made'} (--limit 0 lists all)")
    for s in r["skipped"]:
        lines.append(f"not fixed {s['slug']}: {s['reason']}")
    if r["truncated"].get("skipped"):
        lines.append(f"… and {r['truncated']['skipped']:,} more not fixed (--limit 0 lists all)")
    by: dict[str, list[dict]] = {}
    for f in r["items"]:
        by.setdefault(f["check"], []).append(f)
    for c in r["checks"]:
        n = r["counts"].get(c, 0)
        lines.append(f"{c}: {n:,}")
        for f in by.get(c, []):
            fix = ("; --fix-safe: " + ", ".join(f"{x['from']} → {x['to']}" for x in f["rewrites"])) if f.get("rewrites") else ""
            lines.append(f"  {f['slug'] or '(brain)'}  {f['message']}{fix}")
            if f.get("action") and (f.get("needs_choice") or c == "conflicts"):  # a person's choice, merge advice: what to do
                lines.append(f"    → {f['action']}")
        if r["truncated"].get(c):
            lines.append(f"  … {r['truncated'][c]:,} more (--limit 0 shows all)")
    if r["notes"].get("dead_links_site_paths"):
        lines.append(f"note: {r['notes']['dead_links_site_paths']:,} links to a docs site's own paths outside the brain "
                     f"({r['notes']['dead_links_site_path_example']}) are no dead links: not counted")
    if r["notes"].get("stale_compiled_truth_undated"):
        lines.append(f"note: {r['notes']['stale_compiled_truth_undated']:,} pages with a timeline have no updated:/created: date; their compiled truth was not judged")
    n = sum(r["counts"].values())
    lines.append("clean ✓" if r["ok"] else f"{n:,} finding{'' if n == 1 else 's'}")
    return "\n".join(lines)
