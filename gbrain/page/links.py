"""Link resolution: which page a link as written points at.

One algorithm (:func:`resolve`), two page indexes behind it: :class:`SqlIndex` asks the
database per lookup (single writes), :class:`MemoryIndex` loads the page keys once (bulk
import, re-resolving thousands of dangling links).

Order (spec "links" + Obsidian's rules):
1. markdown links: the path relative to the linking page, then from the root; wiki links:
   from the root, then relative. Exact slug first, then a unique case-insensitive match.
2. an explicit relative markdown path that does not exist stays dangling;
3. otherwise the page whose file name matches (case-insensitive), then — for bare names —
   the slugified name (``[[Bruno Okafor]]`` → ``bruno-okafor.md``), then the slugified title
   (the whole title, :func:`~gbrain.page.slugs.title_key`: ``[[tcp ip]]`` finds the page titled
   ``TCP/IP``, ``[[IP]]`` does not), then a frontmatter alias (``aliases: [Bruno]`` makes
   ``[[Bruno]]`` resolve to the page); a wiki link with a ``/`` that no path matches, the page
   whose title is that name segment by segment (``[[TCP/IP]]``; a Logseq namespace page,
   ``title:: project/data platform``: :func:`title_path_key`), else the page of a Notion export
   that path of titles names, its folders' ids dropped (:func:`notion_titled`); last, a name no page has that is
   a day Logseq reads as a journal's (``[[Nov 28th, 2026]]``, ``[[2026-11-28]]`` →
   ``journals/2026_11_28.md``, or a graph's ``pages/2026-11-28.md``, by the graph's
   ``logseq/config.edn`` title format or Logseq's default: :func:`journal_keys`).
   Ties go to the candidate that shares the most leading folders with the linking page (in a
   vault with one tree per language, ``[[Canvas]]`` in ``en/…`` is ``en/Plugins/Canvas``, not
   ``ko/플러그인/Canvas``), then to the shortest path.
"""
from __future__ import annotations

import datetime as _dt
import posixpath
import re
import sqlite3
from collections import defaultdict

from . import journals
from .slugs import identity_key, loose_key, name_key, nfc, slug_key, title_key

COLUMNS = ("slug", "slug_key", "name_key", "loose_key", "title_key")


def title_path_key(name: str) -> str:
    """``project/Data Platform`` / ``Project/data-platform`` → ``project/data-platform``: the key
    a wiki link with a ``/`` and a title holding one are matched by (:func:`loose_key` of each
    segment)."""
    return "/".join(loose_key(part) for part in name.split("/"))


def title_names(title: str) -> set[str]:
    """The ``links.target_name`` keys (:func:`loose_key` of a target: its last segment) of the
    links that may resolve to a page by its title ``title``: ``[[tcp ip]]`` (the whole title's
    key) and ``[[TCP/IP]]`` (its last segment's). What a save, delete or move that gives or
    takes the title hands :meth:`~gbrain.core.brain.Brain.re_resolve`."""
    return {k for k in (title_key(title), loose_key(title)) if k}

def is_graph_config(path: str) -> bool:
    """Whether the file at ``path`` is a Logseq graph's ``logseq/config.edn`` (its journal formats)."""
    return path == journals.CONFIG or path.endswith("/" + journals.CONFIG)


def _config_text(data) -> str:
    """A stored ``config.edn``'s text ('' for one in pieces or not UTF-8: Logseq's defaults)."""
    try:
        return bytes(data).decode("utf-8") if data is not None else ""
    except UnicodeDecodeError:
        return ""


def graph_settings(conn, path: str) -> "journals.Settings | None":
    """The settings gbrain reads from the ``logseq/config.edn`` stored at ``path``
    (:func:`gbrain.page.journals.settings`; Logseq's defaults for one in pieces or not UTF-8), or
    None when no file is stored there: a config's save compares them before and after
    (``Brain.graph_config_changed``)."""
    row = conn.execute("SELECT data FROM files WHERE path = ?", (path,)).fetchone()
    return journals.settings(_config_text(row[0])) if row else None


def graph_roots(conn) -> dict[str, str]:
    """``{folder: name format}`` of the folders holding a Logseq graph's ``logseq/config.edn`` the
    brain stores (``''`` for the top): the graphs whose ``pages``/``journals`` pages are read as
    Logseq's (:func:`gbrain.page.markdown.page_property_syntax`), with how each names its pages'
    files (:func:`gbrain.page.journals.name_format`; a config in pieces or not UTF-8: ``legacy``).
    One pass over the configs' rows (a few small files)."""
    return {path[: -len(journals.CONFIG)].rstrip("/"): journals.graph_value(_config_text(data)) for path, data in
            conn.execute("SELECT path, data FROM files WHERE path LIKE ?", ("%" + journals.CONFIG,)).fetchall() if is_graph_config(path)}


def graph_folder_likes(graphs) -> tuple[str, ...]:
    """``LIKE`` patterns (``%journals/%``, ``%pages/%``, and each folder a graph of ``graphs``, a
    :func:`graph_roots` mapping, names in ``:pages-directory``/``:journals-directory``) of the
    paths that may be a graph's page: the candidates of a query, read by
    :func:`gbrain.page.markdown.page_property_syntax` after."""
    folders = {journals.FOLDER, "pages"}
    for value in graphs.values():
        folders.update(journals.split_dirs(value))
    return tuple(f"%{f}/%" for f in sorted(folders))


def graph_journal_folders(graphs) -> tuple[str, ...]:
    """The slug prefixes (``journals/``, ``g/daily/``…) of the journals folders of the graphs of
    ``graphs`` (a :func:`graph_roots` mapping), and ``journals/`` of any folder: a link to a page
    there may name a day (``Brain.graph_config_changed`` resolves those links again)."""
    out = ["journals/"]
    for root, value in graphs.items():
        folder = journals.split_dirs(value)[1]
        out.append(f"{root}/{folder}/" if root else f"{folder}/")
    return tuple(dict.fromkeys(out))


def graphs_of(conn, path: str) -> dict[str, str]:
    """Of the folders above the page at ``path`` (``''``, the top, among them), those holding a
    stored ``logseq/config.edn``, with their name format (as :func:`graph_roots`): one indexed
    lookup. (A graph's ``:pages-directory``/``:journals-directory`` may be any folder: every
    ancestor is a candidate, :func:`gbrain.page.markdown.page_property_syntax` decides.)"""
    parts = path.split("/")[:-1]
    roots = ["/".join(parts[:i]) for i in range(len(parts))]
    if not roots:
        return {}
    cfgs = {(r + "/" if r else "") + journals.CONFIG: r for r in roots}
    marks = ", ".join("?" * len(cfgs))
    return {cfgs[p]: journals.graph_value(_config_text(d)) for p, d in conn.execute(f"SELECT path, data FROM files WHERE path IN ({marks})", tuple(cfgs)).fetchall()}


class JournalIndex:
    """The pages Logseq reads as journals (:func:`journal_keys`), by their graph's title format
    and day: :meth:`find` reads a link's name as a day as Logseq does. ``load`` (``() -> days``)
    reads the pages only when a name first reads as a day by one of ``formats``."""

    def __init__(self, days: "dict[str, dict] | None", formats: "tuple[str, ...]" = (), load=None):
        #: ``{title format: {day: [(page id, slug)]}}`` (None until a name reads as a day)
        self.days = days
        self.formats = tuple(days) if days is not None else formats
        self._load = load

    def find(self, name: str) -> list[tuple[int, str]]:
        """The journal pages ``name`` names as a day (:func:`gbrain.page.journals.logseq_day` by
        each graph's title format: ``[[2026-2-3]]``, ``[[nov 3rd, 2026]]``), ``[]`` for none."""
        wanted = [(fmt, day) for fmt in self.formats if (day := journals.logseq_day(name, fmt)) is not None]
        if not wanted:
            return []
        if self.days is None:
            self.days = self._load()
        out: list[tuple[int, str]] = []
        for fmt, day in wanted:
            out.extend(self.days.get(fmt, {}).get(day, ()))
        return out


#: the pages that may be a graph's journal (a graph's journals or pages folder's: one ``slug LIKE ?``
#: a folder, :func:`graph_folder_likes`, joined by ``OR``)
_JOURNAL_CANDIDATES = "SELECT id, slug, path, title FROM pages WHERE "


def journal_keys(conn) -> JournalIndex:
    """Every page Logseq reads as a journal, by day (:class:`JournalIndex`): what
    ``[[Nov 28th, 2026]]``, ``[[2026-11-28]]``, ``[[2026-11-2]]`` find when nothing else does. A page
    is a journal when it is a page of a Logseq graph (:func:`gbrain.page.markdown.graph_title_format`
    of its :func:`~gbrain.page.markdown.page_property_syntax`: a ``journals`` folder read as
    Logseq's, beside a stored ``logseq/config.edn`` or every one under config ``property_syntax
    logseq``, or a graph's ``pages/`` folder) titled as its day (``parse_page`` titles a page whose
    Logseq name reads as a day so: :func:`gbrain.page.markdown.logseq_journal_day`), as Logseq marks
    a page ``journal?`` by its name (``convert-page-if-journal``); an Obsidian vault's
    ``journals/`` is no graph's. The pages are read only when a name first reads as a day by one of
    the graphs' title formats, and only those titled as some format writes a day are parsed
    (:func:`gbrain.page.journals.title_re`)."""
    from .markdown import page_property_syntax, reads_graphs

    row = conn.execute("SELECT value FROM config WHERE key = 'property_syntax'").fetchone()
    setting = row[0] if row and row[0] in ("logseq", "dataview") else "auto"
    if not reads_graphs(setting):
        return JournalIndex({})
    graphs = graph_roots(conn)
    if not graphs and setting == "auto":
        return JournalIndex({})  # (no graph: no page is Logseq's)
    # (the title formats a journal may be written in: each graph's, Logseq's default for the rest)
    formats = tuple(dict.fromkeys([journals.TITLE_FORMAT] + [d[0] for d in (journals.split_formats(v)[1] for v in graphs.values()) if d and d[0]]))

    def load() -> dict:
        shapes = [journals.title_re(f) for f in formats]
        out: dict[str, dict] = {}
        likes = graph_folder_likes(graphs)
        sql = _JOURNAL_CANDIDATES + " OR ".join("slug LIKE ?" for _ in likes)
        for pid, slug, path, title in conn.execute(sql, likes).fetchall():
            if not any(r.match(title) for r in shapes):
                continue
            found = journal_day_of(path, title, page_property_syntax(path, setting, graphs))
            if found is not None:
                out.setdefault(found[0], {}).setdefault(found[1], []).append((pid, slug))
        return out

    return JournalIndex(None, formats, load)


def journal_day_of(path: str, title: str, syntax: str) -> "tuple[str, _dt.date] | None":
    """``(title format, day)`` of the page at ``path``, titled ``title`` and parsed with ``syntax``
    (its :func:`~gbrain.page.markdown.page_property_syntax`), when Logseq reads it as a journal: a
    page of a graph titled as its day written in the graph's title format
    (:func:`~gbrain.page.markdown.graph_title_format`, :func:`~gbrain.page.markdown.logseq_journal_day`:
    ``journals/2026_11_28.md`` titled ``Nov 28th, 2026`` → ``('MMM do, yyyy', date(2026, 11, 28))``);
    None for any other page (a title without a digit among them)."""
    from .markdown import graph_title_format, logseq_journal_day

    fmt = graph_title_format(path, syntax)
    day = logseq_journal_day(title, fmt)
    return None if day is None else (fmt, day)


def journal_link_names(day: "_dt.date", title_format: str) -> set[str]:
    """The link-target keys (:func:`title_names`) of the names a link finds the journal of ``day``
    in a graph whose title format is ``title_format`` (:func:`journal_day_of`) by: each spelling
    Logseq reads as that day (:func:`gbrain.page.journals.day_spellings`). A save, delete or move
    of a journal re-resolves them (``Brain.journal_names``)."""
    out: set[str] = set()
    for n in journals.day_spellings(day, title_format):
        out |= title_names(n)
    return out


_DIGIT = re.compile(r"\d")

#: lookups answered from the aliases table
ALIAS_COLUMNS = ("alias_key", "alias_loose")


class SqlIndex:
    """Look pages up with one indexed query per call."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn
        self._journals: JournalIndex | None = None

    def journal(self, name: str) -> list[tuple[int, str]]:
        """The journal pages ``name`` names as a day (:func:`journal_keys`, read once)."""
        if self._journals is None:
            self._journals = journal_keys(self.conn)
        return self._journals.find(name)

    def lookup(self, column: str, value: str) -> list[tuple[int, str]]:
        if column in ALIAS_COLUMNS:
            col = "alias_key" if column == "alias_key" else "loose_key"
            q = f"SELECT DISTINCT p.id, p.slug FROM aliases a JOIN pages p ON p.id = a.page_id WHERE a.{col} = ?"
            return [(r[0], r[1]) for r in self.conn.execute(q, (value,))]
        assert column in COLUMNS
        return [(r[0], r[1]) for r in self.conn.execute(f"SELECT id, slug FROM pages WHERE {column} = ?", (value,))]

    def titled(self, name: str) -> list[tuple[int, str]]:
        """The pages whose title is ``name`` by :func:`title_path_key` (``name`` holds a ``/``)."""
        key = title_path_key(name)
        q = "SELECT id, slug, title FROM pages WHERE title_key = ?"
        return [(r[0], r[1]) for r in self.conn.execute(q, (title_key(name),)) if title_path_key(r[2]) == key]


class MemoryIndex:
    """All page keys in dicts: for resolving many links at once."""

    def __init__(self, conn: sqlite3.Connection):
        self._conn, self._journals = conn, None
        self.maps: dict[str, dict[str, list[tuple[int, str]]]] = {c: defaultdict(list) for c in COLUMNS}
        if getattr(conn, "dialect", "sqlite") != "postgres":  # plain tuples: cheaper than sqlite3.Row
            conn = conn.cursor()
            conn.row_factory = None
        self.slashed: dict[str, list[tuple[int, str]]] = defaultdict(list)  # titles holding a '/'
        by_slug, by_slug_key, by_name_key, by_loose_key, by_title_key = (self.maps[c] for c in COLUMNS)
        for pid, slug, sk, nk, lk, tk, title in conn.execute("SELECT id, slug, slug_key, name_key, loose_key, title_key, title FROM pages"):
            v = (pid, slug)  # (one tuple in each map: nobody changes them)
            by_slug[slug].append(v)
            by_slug_key[sk].append(v)
            by_name_key[nk].append(v)
            by_loose_key[lk].append(v)
            by_title_key[tk].append(v)
            if "/" in title:
                self.slashed[title_path_key(title)].append(v)
        for c in ALIAS_COLUMNS:
            self.maps[c] = defaultdict(list)
        q = "SELECT DISTINCT p.id, p.slug, a.alias_key, a.loose_key FROM aliases a JOIN pages p ON p.id = a.page_id"
        for pid, slug, akey, aloose in conn.execute(q):
            self.maps["alias_key"][akey].append((pid, slug))
            self.maps["alias_loose"][aloose].append((pid, slug))

    def lookup(self, column: str, value: str) -> list[tuple[int, str]]:
        return self.maps[column].get(value, [])

    def titled(self, name: str) -> list[tuple[int, str]]:
        """As :meth:`SqlIndex.titled`."""
        return self.slashed.get(title_path_key(name), [])

    def journal(self, name: str) -> list[tuple[int, str]]:
        """As :meth:`SqlIndex.journal`."""
        if self._journals is None:
            self._journals = journal_keys(self._conn)
        return self._journals.find(name)


#: the end of a Notion export's file or folder name: a space and the page's 32-hex id
#: (:func:`gbrain.page.markdown.notion_name`)
_NOTION_ID = re.compile(r"(?<=.) [0-9a-f]{32}\Z")


def notion_titled(index, name: str) -> list[tuple[int, str]]:
    """The pages of a Notion export that ``name`` (holding a ``/``) names by the path Notion shows,
    titles without ids (``Team Wiki/Engineering``): a page whose file name ends with Notion's id,
    titled as the last segment (:func:`~gbrain.page.slugs.title_key`), whose nearest folders are
    the leading segments once their ids are dropped (:func:`title_path_key`: ``Team Wiki
    1a2b…/Engineering 3c4d….md``). A page titled so is re-resolved by its title
    (:func:`title_names`) when it comes, goes or moves."""
    head, _, last = name.rpartition("/")
    want = title_path_key(head).split("/")
    out = []
    for pid, slug in index.lookup("title_key", title_key(last)):
        folders = slug.split("/")
        if len(folders) <= len(want) or not _NOTION_ID.search(folders[-1]):
            continue
        got = [loose_key(_NOTION_ID.sub("", f)) for f in folders[-1 - len(want):-1]]
        if got == want:
            out.append((pid, slug))
    return out


def is_site_path(target: str, top: "set[str] | frozenset[str]", forms: "list[str] | tuple[str, ...]" = ()) -> bool:
    """Whether a dangling markdown link's ``target`` is a docs site's own URL path
    (``/training/modules/x/``, ``/powershell/module/adcsdeployment``: Microsoft Learn, DocFX, MkDocs
    sites link their other doc sets so) rather than a broken link to a page of the brain: it
    starts with one ``/``, names no ``.md`` file (as written: ``forms``, the link's written
    addresses, ``(/x/y.md#h)``; a stored target has no ``.md``), and its first folder is none of
    ``top``, the casefolded first segments of the brain's page slugs (a ``/x`` path the brain could
    hold is resolved from the brain's top, :func:`resolve`, and reported when nothing is there)."""
    t = target.strip()
    if not t.startswith("/") or t.startswith("//"):
        return False
    for x in (t, *forms):
        if re.search(r"\.md(?:[#?)\s]|$)", x.split("#", 1)[0] + ")", re.I):
            return False
    path = t.split("#", 1)[0].split("?", 1)[0]
    first = path.lstrip("/").split("/", 1)[0]
    return bool(first) and nfc(first).casefold() not in top


def resolve(index, from_slug: str, kind: str, target: str, *, by_file: bool = False) -> int | None:
    """Page id that ``target`` (as written in page ``from_slug``) points at, or None (dangling).
    ``by_file``: only as Obsidian opens a link, by a path or a file name (steps 1-3 up to the
    file name), never by a slugified name, a title or an alias: None where only those match (a
    link Obsidian shows as broken, ``core/lint.py`` reports when a move explains it)."""
    t = nfc(target.strip())
    if not t:
        return None
    base = posixpath.dirname(from_slug)
    root = posixpath.normpath(t.lstrip("/"))
    # (posixpath.join(base, t) spelled out for a ``t`` without a leading '/': a third of resolve's CPU)
    rel = root if t.startswith("/") else posixpath.normpath(base + t if not base or base.endswith("/") else base + "/" + t)
    for c in ([rel, root] if kind == "markdown" else [root, rel]):
        if c.startswith("..") or c == ".":
            continue
        rows = index.lookup("slug", c)
        if rows:
            return rows[0][0]
        rows = index.lookup("slug_key", slug_key(c))
        if len(rows) == 1:
            return rows[0][0]
    if kind == "markdown" and "/" in t:
        return None
    key = slug_key(root)
    rows = [r for r in index.lookup("name_key", name_key(t)) if r[1].casefold() == key or r[1].casefold().endswith("/" + key)]
    if not rows and "/" not in t and not by_file:
        lk = loose_key(t)  # '' for a name of no letter or digit (`[[★]]`): no other spelling, an alias as written
        rows = (index.lookup("loose_key", lk) or index.lookup("title_key", lk) or index.lookup("alias_loose", lk)) if lk else index.lookup("alias_key", identity_key(t))
    elif not rows and not by_file:  # a wiki link a/b no path matches: the page titled a/b, or a Notion path of titles
        rows = index.titled(t) or notion_titled(index, t)
    if not rows and not by_file and _DIGIT.search(t):  # a Logseq journal by the title Logseq shows
        rows = index.journal(t)
    if not rows:
        return None
    if len(rows) == 1:
        return rows[0][0]
    folders = base.split("/") if base else []

    def shared(slug: str) -> int:  # leading folders in common with the linking page
        return len(posixpath.commonprefix([folders, slug.split("/")[:-1]]))

    return min(rows, key=lambda r: (-shared(r[1]), r[1].count("/"), len(r[1]), r[1]))[0]
