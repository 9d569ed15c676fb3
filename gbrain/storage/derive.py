"""Derived rows of a page (tags, aliases, links, timeline entries), written from its parsed text.

One writer for every path that stores a page (``Brain.save_page``, bulk import, the schema
migration that re-derives an existing brain), so an incrementally kept brain and a fresh import
of the same tree hold the same rows.
"""
from __future__ import annotations

import json
import sqlite3
from itertools import chain
from functools import lru_cache
from typing import Callable

from .db import in_parts
from ..page.markdown import PROPERTY_SYNTAXES, TAG_SYNTAXES, Page, parse_page
from ..page.slugs import fold_loose_key, fold_title_key, identity_key, loose_key, tag_identity, title_key


def derived_rows(page: Page) -> dict[str, list[tuple]]:
    """The rows a page's text gives, as written by :func:`write_rows` (links without their
    resolved page): ``{"tags": [(tag, tag_key, inline)], "aliases": [(alias, alias_key,
    loose_key)], "timeline": [(date, source, summary, detail)], "links": [(kind, target,
    target_name, context, count, forms_json, label)]}`` (``label``: the link's
    :attr:`~gbrain.page.markdown.Link.labels`, one per line), each in the order written. ``verify`` compares
    them with the stored rows."""
    # page.all_tags (merge_tags) with each tag's key taken once: a frontmatter tag is not inline,
    # an inline tag is unless a frontmatter tag has its key
    tags: list[tuple[str, str, int]] = []
    seen: set[str] = set()
    for inline, lst in ((0, page.tags), (1, page.inline_tags)):
        for t in lst:
            k = tag_identity(t)
            if k not in seen:
                seen.add(k)
                tags.append((t, k, inline))
    return {
        "tags": tags,
        "aliases": [(a, identity_key(a), loose_key(a)) for a in page.aliases],
        "timeline": [(e.date, e.source, e.summary, e.detail) for e in page.timeline_entries],
        "links": [(ln.kind, ln.target, loose_key(ln.target), ln.context, ln.count, _forms_json(tuple(ln.forms)), "\n".join(ln.labels)) for ln in page.links],
    }


@lru_cache(maxsize=1 << 14)
def _forms_json(forms: tuple[str, ...]) -> str:
    """``links.forms``: the JSON list of the forms a link is written in (few distinct values)."""
    return _JSON_TEXT(forms)


#: ``json.dumps(x, ensure_ascii=False)`` without building an encoder per call
_JSON_TEXT = json.JSONEncoder(ensure_ascii=False).encode


def write_rows(conn: sqlite3.Connection, pid: int, page: Page, resolve: Callable[[str, str], int | None] | None, *, new: bool = False) -> None:
    """Replace page ``pid``'s tags, aliases, timeline entries and links with those of ``page``
    (:func:`derived_rows`).

    ``resolve(kind, target)`` gives a link's page id (None: dangling); without it every link is
    stored dangling and resolved later in bulk. ``new``: the page row was just inserted (page ids
    are AUTOINCREMENT, never reused), so it has no rows to delete. Runs in the caller's transaction.
    """
    if not new:
        conn.execute("DELETE FROM tags WHERE page_id = ?", (pid,))
        conn.execute("DELETE FROM aliases WHERE page_id = ?", (pid,))
        conn.execute("DELETE FROM links WHERE from_page_id = ?", (pid,))
        conn.execute("DELETE FROM timeline_entries WHERE page_id = ?", (pid,))
    write_rows_many(conn, [(pid, page)], resolve)


_INSERTS = {
    "tags": "INSERT OR IGNORE INTO tags(page_id, tag, tag_key, inline) VALUES (?, ?, ?, ?)",
    "aliases": "INSERT OR IGNORE INTO aliases(page_id, alias, alias_key, loose_key) VALUES (?, ?, ?, ?)",
    "timeline": "INSERT INTO timeline_entries(page_id, date, source, summary, detail) VALUES (?, ?, ?, ?, ?)",
    "links": "INSERT OR IGNORE INTO links(from_page_id, to_page_id, kind, target, target_name, context, count, forms, label) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
}


def write_rows_many(conn: sqlite3.Connection, pages: list[tuple[int, Page]], resolve: Callable[[str, str], int | None] | None = None,
                    *, defer: "PendingLinks | None" = None) -> None:
    """Insert the derived rows (:func:`derived_rows`) of every ``(pid, page)`` of ``pages``, one
    statement per table for them all, page after page in the order given (so rows get the ids
    a page-by-page :func:`write_rows` would give them in that order). The pages have no derived
    rows yet; ``resolve`` as in :func:`write_rows`. Every page's aliases are stored before any
    link is resolved, so a link to an alias of its own page (``aliases: [Overdue]`` and
    ``[[Overdue]]``) or of another page of the batch resolves as a fresh import resolves it.
    ``defer`` (bulk import): the links are not written here but kept in ``defer``
    (:class:`PendingLinks`), to be written once, resolved, at the end of the import.
    Runs in the caller's transaction."""
    acc: dict[str, list[tuple]] = {k: [] for k in _INSERTS}
    links: list[tuple[int, tuple]] = []
    for pid, page in pages:
        rows = derived_rows(page)
        acc["tags"] += [(pid, *r) for r in rows["tags"]]
        acc["aliases"] += [(pid, *r) for r in rows["aliases"]]
        acc["timeline"] += [(pid, *r) for r in rows["timeline"]]
        links += [(pid, r) for r in rows["links"]]
    for k, q in _INSERTS.items():
        if k == "links":  # resolved last: the aliases they may resolve by are all stored now
            if defer is not None:
                defer.rows += links
                continue
            acc[k] = [(pid, resolve(r[0], r[1]) if resolve else None, *r) for pid, r in links]
        insert_many(conn, q, acc[k])


def name_folds(slug: str, title: str, search_aliases: str, h1_key: str) -> list[tuple[str, str]]:
    """A page's names keyed but for accents, ``[(kind, key)]`` sorted, from its ``pages`` columns
    (``slug``, ``title``, ``search_aliases``: its aliases, then its H1 name when ``h1_key``):
    ``title`` and ``h1`` by :func:`~gbrain.page.slugs.fold_title_key`, ``path`` (the file name)
    and ``alias`` by :func:`~gbrain.page.slugs.fold_loose_key`, each only where it differs from
    the name's own key (``pages.title_key``, ``loose_key``, ``h1_key``, ``aliases.loose_key``): a
    name without accents (every ASCII name) has none, and a lookup of a folded key reads those
    keys too. The ``name_folds`` rows (SQLite v56, Postgres v60): search's exact-name bonus and
    the put's accent-twin check find "Zoë Kim" by "Zoe Kim" in one indexed lookup."""
    out: set[tuple[str, str]] = set()

    def add(kind: str, key: str, own: str) -> None:
        if key and key != own:
            out.add((kind, key))

    if not title.isascii():
        add("title", fold_title_key(title), title_key(title))
    base = slug.rsplit("/", 1)[-1]
    if not base.isascii():
        add("path", fold_loose_key(slug), loose_key(slug))
    if search_aliases and not search_aliases.isascii():
        lines = search_aliases.split("\n")
        if h1_key:  # (the last line: keyword.search_fields)
            h1 = lines.pop()
            if not h1.isascii():
                add("h1", fold_title_key(h1), h1_key)
        for a in lines:
            if not a.isascii():
                add("alias", fold_loose_key(a), loose_key(a))
    return sorted(out)


_FOLDS_INSERT = "INSERT OR IGNORE INTO name_folds(page_id, kind, key) VALUES (?, ?, ?)"


def write_name_folds(conn, pages: list[tuple[int, str, str, str, str]], *, new: bool = False) -> None:
    """Replace the ``name_folds`` rows (:func:`name_folds`) of each ``(page id, slug, title,
    search_aliases, h1_key)`` of ``pages`` (``new``: the pages were just inserted and have none),
    in the caller's transaction; one statement for all their rows."""
    if not new:
        for part, marks in in_parts([p[0] for p in pages]):
            conn.execute(f"DELETE FROM name_folds WHERE page_id IN ({marks})", part)
    insert_many(conn, _FOLDS_INSERT, [(p[0], *r) for p in pages for r in name_folds(*p[1:])])


def has_name_folds(conn) -> bool:
    """Whether the brain has the ``name_folds`` table yet (a migration before SQLite v56 /
    Postgres v60 runs without it)."""
    if getattr(conn, "dialect", "sqlite") == "postgres":
        return conn.execute("SELECT to_regclass('name_folds') IS NOT NULL").fetchone()[0]
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'name_folds'").fetchone() is not None


def ensure_link_label(conn) -> None:
    """Add ``links.label`` (SQLite v55 / Postgres v58) when the brain has no such column yet: a
    migration before it that writes link rows again (:func:`write_rows`: ``rederive_page_ids``,
    :func:`rederive_all`) writes this code's rows, labels and all (the upgrade of such a brain
    failed: ``table links has no column named label``); v55 / v58 then find the column and fill
    the labels of the other links."""
    if getattr(conn, "dialect", "sqlite") == "postgres":
        conn.execute("ALTER TABLE links ADD COLUMN IF NOT EXISTS label text NOT NULL DEFAULT ''")
    elif "label" not in {r[1] for r in conn.execute("PRAGMA table_info(links)")}:
        conn.execute("ALTER TABLE links ADD COLUMN label TEXT NOT NULL DEFAULT ''")


class PendingLinks:
    """The link rows of the new pages of a bulk import (:meth:`Brain.save_new_pages`), kept
    back and written once at its end, each resolved against every page then stored (:func:`link_resolver`), instead of
    inserted dangling batch by batch and updated once resolved (47,346 links of a 7,471-page
    brain: the read back and the ``UPDATE`` of every link, ~0.35 CPU-s, for ~0.1 more to insert
    them with their page id). The rows are those :func:`write_rows_many` writes, in the same
    order (a page's links keep their order; their ids come after the batch's other rows).

    A killed import leaves the pages of its committed batches without link rows: its mark
    (``importer.RESOLVE_PENDING``) makes the next import derive the links of every page that
    has none from its stored text (:meth:`Brain.derive_missing_links`) before resolving every
    link again. Past ``LIMIT`` rows (memory), the rows kept are written dangling at once and
    resolved at the end with the import's other dangling links."""

    LIMIT = 200_000

    def __init__(self) -> None:
        self.rows: list[tuple[int, tuple]] = []  # (from page id, derived link row)

    def spill(self, conn) -> None:
        """Write the rows kept so far, dangling (to be resolved at the end), when over ``LIMIT``."""
        if len(self.rows) > self.LIMIT:
            insert_many(conn, _INSERTS["links"], [(pid, None, *r) for pid, r in self.rows])
            self.rows = []

    def write(self, conn) -> None:
        """Insert the rows kept, each with the page :func:`link_resolver` gives it now."""
        rows, self.rows = self.rows, []
        if not rows:
            return
        slugs = dict(_slugs(conn, {pid for pid, _ in rows}))
        to = link_resolver(conn, len(rows))
        insert_many(conn, _INSERTS["links"], [(pid, to(slugs[pid], r[0], r[1]), *r) for pid, r in rows])


def _slugs(conn, ids: set[int]):
    """``(id, slug)`` of the pages ``ids`` (all pages' when many: one read)."""
    if len(ids) > 500:
        return ((r[0], r[1]) for r in conn.execute("SELECT id, slug FROM pages") if r[0] in ids)
    return ((r[0], r[1]) for r in conn.execute(f"SELECT id, slug FROM pages WHERE id IN ({', '.join('?' * len(ids))})", tuple(ids)))


def insert_many(conn: sqlite3.Connection, sql: str, rows: list[tuple]) -> None:
    """Run the one-row ``INSERT … VALUES (?, …)`` statement ``sql`` for every tuple of ``rows``, in
    order, as few multi-row ``INSERT … VALUES (…), (…), …`` statements (each below the engine's
    limit of bound parameters). Same rows as ``executemany``; on SQLite cheaper per row, and
    for ``pages`` much cheaper: FTS5 writes its pending index data out at every statement that
    fires its trigger, so one statement per row leaves it flushing once per page."""
    if not rows:
        return
    head, sep, one = sql.rpartition(" VALUES ")
    assert sep and one.startswith("(") and one.endswith(")"), sql
    per = _params_limit(conn) // len(rows[0])
    step = max(1, min(MANY_ROWS, per))
    for i in range(0, len(rows), step):
        part = rows[i : i + step]
        conn.execute(f"{head} VALUES {', '.join([one] * len(part))}", list(_chain(part)))  # (the rows' values in order)


MANY_ROWS = 500  #: rows per statement of :func:`insert_many`
_chain = chain.from_iterable  #: a statement's parameters: its rows' values flattened in C (half a list comprehension's CPU)


def _params_limit(conn) -> int:
    """Bound parameters one statement may hold: SQLite's compiled limit, 65,535 on Postgres."""
    get = getattr(conn, "getlimit", None)
    return get(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER) if get else 65535


def parse_settings(conn) -> tuple[str, str, str]:
    """``(timeline_split, tag_syntax, property_syntax)``: the brain's settings that change what a
    page parses to, read from its config table (a migration has no ``Brain``), an unknown value as
    its default (``rule``, ``obsidian``, ``auto``), as ``Brain.timeline_split`` /
    ``Brain.tag_syntax`` / ``Brain.property_syntax`` read them."""
    got = dict(conn.execute("SELECT key, value FROM config WHERE key IN ('timeline_split', 'tag_syntax', 'property_syntax')").fetchall())
    split, tags, props = got.get("timeline_split"), got.get("tag_syntax"), got.get("property_syntax")
    return (split if split in ("rule", "heading") else "rule", tags if tags in TAG_SYNTAXES else "obsidian",
            props if props in PROPERTY_SYNTAXES else "auto")


def rederive_all(conn: sqlite3.Connection) -> int:
    """Re-parse every stored page and rewrite its title, type and derived rows, then resolve
    every link again. For schema migrations that change what is derived. Returns pages done."""

    from ..page.links import graph_roots
    from ..page.markdown import page_property_syntax

    split, tag_syntax, property_syntax = parse_settings(conn)
    graphs = graph_roots(conn)
    q = "SELECT id, slug, path, title, type, bom, frontmatter_raw, compiled_truth, separator, timeline FROM pages"
    n = 0
    folds = has_name_folds(conn)
    ensure_link_label(conn)  # (a migration before v55 writes this code's link rows)
    for r in conn.execute(q).fetchall():
        text = ("\ufeff" if r[5] else "") + r[6] + r[7] + r[8] + r[9]
        page = parse_page(text, r[2], timeline_split=split, tag_syntax=tag_syntax, property_syntax=page_property_syntax(r[2], property_syntax, graphs))
        if (page.title, page.type) != (r[3], r[4]):
            conn.execute("UPDATE pages SET title = ?, title_key = ?, type = ? WHERE id = ?", (page.title, title_key(page.title), page.type, r[0]))
            if folds:
                f = conn.execute("SELECT slug, title, search_aliases, h1_key FROM pages WHERE id = ?", (r[0],)).fetchone()
                write_name_folds(conn, [(r[0], f[0], f[1], f[2] or "", f[3] or "")])
        write_rows(conn, r[0], page, None)
        n += 1
    relink_all(conn)
    return n


def relink_all(conn) -> int:
    """Resolve every stored link again with :func:`gbrain.page.links.resolve` (for migrations that
    change the resolution rule; SQLite or Postgres connection). Returns how many links changed."""
    rows = conn.execute("SELECT l.id, l.kind, l.target, l.to_page_id, p.slug FROM links l JOIN pages p ON p.id = l.from_page_id").fetchall()
    updates = relink_updates(conn, rows)
    update_links(conn, updates)
    return len(updates)


def update_links(conn, updates: list[tuple[int | None, int]]) -> None:
    """Set ``links.to_page_id`` for each ``(to_page_id, link id)`` of ``updates`` (as
    :func:`relink_updates` gives them), in the caller's transaction. On SQLite, ``MANY_ROWS``
    links per ``UPDATE … FROM (VALUES …)`` statement: the same rows as one ``UPDATE`` per link,
    at ~60% of its CPU (47,346 links: 0.28 → 0.17 CPU-s; most of a statement's cost per link is
    starting it and its foreign-key check's cursor). On Postgres, psycopg's pipelined
    ``executemany``."""
    if getattr(conn, "dialect", "sqlite") == "postgres" or len(updates) < 2 or sqlite3.sqlite_version_info < (3, 33):  # UPDATE … FROM
        conn.executemany("UPDATE links SET to_page_id = ? WHERE id = ?", updates)
        return
    for i in range(0, len(updates), MANY_ROWS):
        part = updates[i : i + MANY_ROWS]
        conn.execute(f"WITH u(t, i) AS (VALUES {', '.join(['(?, ?)'] * len(part))}) UPDATE links SET to_page_id = u.t FROM u WHERE links.id = u.i",
                     [v for r in part for v in r])


def relink_updates(conn, rows: list) -> list[tuple[int | None, int]]:
    """``[(to_page_id, link id)]``, in id order, for the link ``rows`` (``id, kind, target,
    to_page_id, from slug``, by position) whose target :func:`gbrain.page.links.resolve` now
    gives differently. Links from one folder to one target resolve alike, so each such pair is
    resolved once; many rows are looked up in an in-memory index of the page keys."""
    to = link_resolver(conn, len(rows))
    updates = []
    for r in rows:
        now = to(r[4], r[1], r[2])
        if now != r[3]:
            updates.append((now, r[0]))
    updates.sort(key=lambda u: u[1])
    return updates


def link_resolver(conn, n: int) -> Callable[[str, str, str], int | None]:
    """``to(from slug, kind, target)``: the page id :func:`gbrain.page.links.resolve` gives a link
    (None: dangling), for resolving ``n`` links in a row. Links from one folder to one target
    resolve alike, so each such triple is resolved once; many links are looked up in an
    in-memory index of the page keys (:class:`~gbrain.page.links.MemoryIndex`), a few in SQL."""
    import posixpath

    from ..page.links import MemoryIndex, SqlIndex, resolve

    index = MemoryIndex(conn) if n > 200 else SqlIndex(conn)
    memo: dict[tuple[str, str, str], int | None] = {}
    last = ["", ""]  # the last from slug and its folder: links come page by page

    def to(slug: str, kind: str, target: str) -> int | None:
        if slug != last[0]:
            last[0], last[1] = slug, posixpath.dirname(slug)
        key = (last[1], kind, target)
        if key not in memo:
            memo[key] = resolve(index, slug, kind, target)
        return memo[key]

    return to
