"""Verification: compare a markdown tree with brain.db without writing anything.

Checks, for every file:

* the set of paths on disk equals the set stored (pages + other files);
* sha256 of each file on disk equals the content hash stored for that path (with ``deep=True``:
  sha256 of what the DB renders for it, every page re-rendered);
* each re-parsed page's text equals the hash stored when its rows were derived, and its derived
  views (title, type, frontmatter JSON, search fields, tags, aliases, timeline entries, links and
  where they resolve, raw rows against the page's sidecar) equal a fresh parse of that text:
  ``gbrain verify`` re-parses pages drawn at random, :data:`SAMPLE_SHARE` of the tree's page
  text and at least :data:`SAMPLE_MIN_CHARS` characters (every page of a smaller brain),
  ``--deep`` every page and every sidecar.

The report is a plain dict (``--json`` prints it as is); ``ok`` is false on any mismatch.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Collection

from ..core.brain import SERVER_WINDOW, Brain, raw_sources, render_row
from ..core.lint import site_path_links
from ..storage import blobs, rawspans
from ..storage.db import in_parts
from ..page.links import MemoryIndex, resolve
from ..page.slugs import chosen_sidecar, sidecar_twins_note
from .parallel import parse_all
from .scan import UNREADABLE, Scan, evicted, report_kind

MAX_LISTED = 50
WHOLE_READ = 1 << 20  # files up to this size are hashed from one read, larger ones in pieces


HASH_CHUNK = 1 << 18  #: bytes per read when hashing a file larger than WHOLE_READ (fits in L2 between read and hash)
#: the files of a tree still to be read hold at least this many bytes: the larger ones are
#: hashed in :data:`HASHERS` threads (reads and sha256 release the GIL) beside the caller
PARALLEL_BYTES = 64 << 20
HASHERS = 2


def sha256_file(path: str) -> str:
    """sha256 hex of the file at ``path``, read :data:`HASH_CHUNK` bytes at a time into one
    buffer (no new bytes object per read); the kernel is told the reads are sequential."""
    return _sha256_rest(blobs.os_open(path, _O_READ), hashlib.sha256())


#: never through a symlink (``blobs.O_READ_NOFOLLOW``, opened by ``blobs.os_open``): a file swapped for one after the walk
#: fails to open (``blobs.is_symlink_refusal``) instead of hashing a file elsewhere
_O_READ = blobs.O_READ_NOFOLLOW
_readv = getattr(os, "readv", None)  # POSIX; elsewhere each small file is one os.read


def _sha256_sized(path: str, size: int, buf: memoryview | None = None) -> str:
    """sha256 of the file at ``path`` whose scanned size is ``size``: a file up to
    :data:`WHOLE_READ` in one read (most files of a brain are small; a file that grew since
    the scan is read on to its end), a larger one in pieces (:func:`sha256_file`). ``buf``: a
    writable buffer of at least ``WHOLE_READ + 1`` bytes to read a small file into, reused from
    file to file (no bytes object per file: for the many small files of a brain, the per-file
    cost is most of hashing them)."""
    if size > WHOLE_READ:
        return sha256_file(path)
    fd = blobs.os_open(path, _O_READ)
    try:
        if buf is not None and _readv is not None:
            data = buf[: _readv(fd, [buf[: size + 1]])]
        else:
            data = os.read(fd, size + 1)
        if len(data) <= size:
            return hashlib.sha256(data).hexdigest()
        h = hashlib.sha256(data)
        for chunk in iter(lambda: os.read(fd, 1 << 20), b""):
            h.update(chunk)
        return h.hexdigest()
    finally:
        os.close(fd)


def _sha256_rest(fd: int, h) -> str:
    """Hash the rest of the open file ``fd`` into ``h`` (a sha256 object holding what was read
    of it so far), :data:`HASH_CHUNK` bytes at a time into one buffer; closes ``fd``; returns
    the hex digest."""
    try:
        if hasattr(os, "posix_fadvise"):
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_SEQUENTIAL)
        buf = bytearray(HASH_CHUNK)
        view = memoryview(buf)
        with open(fd, "rb", buffering=0, closefd=False) as f:
            while n := f.readinto(buf):
                h.update(view[:n])
    finally:
        os.close(fd)
    return h.hexdigest()


def db_hashes(brain: Brain) -> dict[str, str]:
    """path → sha256 of the bytes the DB renders for it (pages re-rendered, not trusted)."""
    out: dict[str, str] = {}
    for r in brain.conn.execute("SELECT path, bom, frontmatter_raw, compiled_truth, separator, timeline FROM pages"):
        out[r["path"]] = hashlib.sha256(render_row(r).encode("utf-8")).hexdigest()
    from ..storage import blobs

    for fid, path, pieces, hx in brain.conn.execute("SELECT id, path, pieces, content_hash FROM files").fetchall():
        h = hashlib.sha256()
        if pieces:  # a big file: re-hashed from its pieces, one at a time
            for piece in blobs.iter_pieces(brain.conn, hx):
                h.update(piece)
        else:
            h.update(bytes(brain.conn.execute("SELECT data FROM files WHERE id = ?", (fid,)).fetchone()[0]))
        out[path] = h.hexdigest()
    return out


def stored_hashes(brain: Brain) -> dict[str, str]:
    """path → the content hash stored with each page and file (sha256 of the bytes written): what
    a tree is compared with without reading the stored text back. :func:`derived_check` re-renders
    the pages it checks and compares their text with this hash; :func:`db_hashes` does it for all."""
    cur = brain.conn.cursor() if getattr(brain.conn, "dialect", "sqlite") != "postgres" else None
    if cur is not None:
        cur.row_factory = None  # plain tuples: dict() builds from them in C
    return dict((cur or brain.conn).execute("SELECT path, content_hash FROM pages UNION ALL SELECT path, content_hash FROM files"))


def _first_by(rows: list[tuple], key) -> list[tuple]:
    """``rows`` without the repeats of a unique key (the first is kept, as INSERT OR IGNORE does)."""
    seen: set = set()
    out = []
    for r in rows:
        k = key(r)
        if k not in seen:
            seen.add(k)
            out.append(r)
    return out


def _digest(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


def _raw_rows(data: bytes) -> list[tuple[str, bytes]]:
    """The raw rows ``(source, sha256 of data)``, sorted, that a sidecar's stored bytes give, as
    ``Brain._load_raw_rows`` writes them: none for bytes that are not UTF-8 JSON."""
    rows = rawspans.sidecar_rows(data)
    return sorted((k, _digest(rawspans.row_text(data, a, n, t))) for k, a, n, t in rows or ())


def page_ids_unordered(conn) -> list[int]:
    """Every page's id, in no particular order: on SQLite one ``group_concat`` string split
    here (no Python row per page), elsewhere a row per page."""
    if getattr(conn, "dialect", "sqlite") == "postgres":
        return [r[0] for r in conn.execute("SELECT id FROM pages")]
    s = conn.execute("SELECT group_concat(id) FROM pages").fetchone()[0]
    return list(map(int, s.split(","))) if s else []


def derived_check(brain: Brain, *, sample: int | None = None, budget: int | None = None, rng=None) -> dict:
    """Re-parse pages from their stored text and compare every derived view with the stored rows.

    Which pages: ``sample``: that many drawn at random (every page when the brain has no more);
    ``budget``: pages drawn at random until their texts hold at least ``budget`` characters
    (every page when all of them hold fewer; :func:`sample_budget`); neither: every page.
    ``rng`` draws them (a ``random.Random``-like object with ``randrange``/``sample``; default
    ``random.SystemRandom()``; the pages in id order are shuffled with ``randrange(k, n)``). For each checked page: the stored text against its stored
    content hash (the text the rows were derived from), title, type, frontmatter JSON and error,
    search fields, tags, aliases, timeline entries and links (as multisets), where each of its
    links resolves against where a fresh import would resolve it, and its raw rows against its
    ``.raw`` sidecar's stored JSON (a sidecar stored in pieces is left to ``--deep``). Returns
    the counts parsed vs stored, ``mismatched_pages`` (slugs, at most :data:`MAX_LISTED`),
    ``views_differing`` (view → pages), ``links_resolved_differently``, ``pages_total``,
    ``sampled`` and ``chars_parsed``."""
    import random

    from ..page.links import SqlIndex, graph_roots
    from ..page.markdown import page_property_syntax, reads_graphs
    from ..search.keyword import search_fields
    from ..storage.derive import derived_rows, name_folds

    c = brain.conn
    split, tag_syntax, property_syntax = brain.timeline_split, brain.tag_syntax, brain.property_syntax
    # every page id, in id order: read from the smallest index that holds the ids and sorted
    # here (``ORDER BY id`` walks the table's own b-tree, every page's text: 10 ms of 7,471 pages),
    # on SQLite as one string (a Python row per page costs ~0.5 µs: 4 ms of 7,471 pages)
    ids = page_ids_unordered(c)
    ids.sort()
    total = len(ids)
    rng = rng or random.SystemRandom()
    page_sql = ("SELECT id, slug, path, title, type, frontmatter, frontmatter_error, search_aliases, search_headings, search_words, search_cjk, "
                "search_body, search_timeline, h1_key, search_fold_names, "
                "content_hash, bom, frontmatter_raw, compiled_truth, separator, timeline FROM pages WHERE id = ?")
    drawn: list | None = None  # the budget's pages, in the order drawn
    if budget is not None and sample is None:
        # a partial Fisher-Yates shuffle: each draw one randrange (SystemRandom: one urandom read),
        # so only the pages drawn cost a draw, not every page of the brain
        order = list(ids)
        drawn, got, pos = [], 0, 0
        while pos < len(order) and got < budget:
            end = min(pos + 16, len(order))
            for k in range(pos, end):
                j = rng.randrange(k, len(order))
                order[k], order[j] = order[j], order[k]
            part = order[pos:end]
            pos = end
            at = {pid: k for k, pid in enumerate(part)}
            batch = c.execute(page_sql.replace("= ?", f"IN ({', '.join('?' * len(part))})"), part).fetchall()
            for r in sorted(batch, key=lambda r: at[r["id"]]):
                if got >= budget:
                    break
                drawn.append(r)
                got += len(r["frontmatter_raw"]) + len(r["compiled_truth"]) + len(r["separator"]) + len(r["timeline"])
        sampled = len(drawn) < total
        ids = [r["id"] for r in drawn]
    else:
        sampled = sample is not None and total > sample
        if sampled:
            ids = rng.sample(ids, sample)

    def rows(sql: str) -> list:
        """``sql`` ends in a WHERE on a page id column: all rows (every page) or the sample's."""
        if not sampled:
            return c.execute(sql.rsplit(" WHERE ", 1)[0]).fetchall()
        out: list = []
        for part, marks in in_parts(ids):
            out += c.execute(sql.replace("= ?", f"IN ({marks})"), part).fetchall()
        return out

    def grouped(sql: str) -> dict[int, list[tuple]]:
        g: dict[int, list[tuple]] = {}
        for r in rows(sql):
            g.setdefault(r[0], []).append(tuple(r[1:]))
        return g

    pages = drawn if drawn is not None else rows(page_sql)
    stored = {
        "tags": grouped("SELECT page_id, tag, tag_key, inline FROM tags WHERE page_id = ?"),
        "aliases": grouped("SELECT page_id, alias, alias_key, loose_key FROM aliases WHERE page_id = ?"),
        "name folds": grouped("SELECT page_id, kind, key FROM name_folds WHERE page_id = ?"),
        "timeline": grouped("SELECT page_id, date, source, summary, detail FROM timeline_entries WHERE page_id = ?"),
        "links": grouped("SELECT from_page_id, kind, target, target_name, context, count, forms, label, to_page_id FROM links WHERE from_page_id = ?"),
    }
    # raw rows as (source, sha256 of data), sorted, per page: stored, and as each page's sidecar
    # gives them (a page whose sidecar is stored in pieces is left to --deep); rows and sidecars
    # are read one at a time, their digests kept (a brain's sidecars may hold gigabytes)
    def page_ids(sql: str):
        """``sql`` ends in ``page_id = ?``: its rows for the sampled pages, or for every page."""
        if not sampled:
            yield from c.execute(sql.replace("page_id = ?", "page_id IS NOT NULL"))
            return
        for part, marks in in_parts(ids):
            yield from c.execute(sql.replace("= ?", f"IN ({marks})"), part)

    raw_have: dict[int, list] = {}
    for pid, source, data in page_ids("SELECT page_id, source, data FROM raw_data WHERE page_id = ?"):
        raw_have.setdefault(pid, []).append((source, _digest(data)))
    raw_want: dict[int, list] = {}
    raw_skip: set[int] = set()  # in pieces
    unread = _twin_sidecars(brain)[1]  # the sidecars a page with several does not read (Brain.page_sidecar)
    for pid, path, pieces, data in page_ids("SELECT page_id, path, pieces, data FROM files WHERE kind = 'raw' AND page_id = ?"):
        if path in unread:
            continue
        if pieces:
            raw_skip.add(pid)
        else:
            raw_want[pid] = _raw_rows(data)
    index = MemoryIndex(c) if not sampled else SqlIndex(c)
    res: dict = {"pages_parsed": 0, "pages_total": total, "sampled": sampled, "chars_parsed": 0, "links_parsed": 0, "links_stored": 0, "timeline_parsed": 0, "timeline_stored": 0, "tags_parsed": 0, "tags_stored": 0, "mismatched_pages": [], "title_type_mismatches": 0, "pages_differing": 0, "views_differing": {}, "links_resolved_differently": []}
    graphs = graph_roots(c) if reads_graphs(property_syntax) else {}  # (page_property_syntax: a Logseq graph's pages, a journal's title format)
    jobs = [(r["path"], render_row(r), split, tag_syntax, page_property_syntax(r["path"], property_syntax, graphs)) for r in pages]
    for r, job, page in zip(pages, jobs, parse_all(jobs)):
        pid = r["id"]
        res["pages_parsed"] += 1
        res["chars_parsed"] += len(job[1])
        want = derived_rows(page)
        want["tags"] = _first_by(want["tags"], lambda t: t[0])
        want["aliases"] = _first_by(want["aliases"], lambda t: t[1])
        want["links"] = _first_by(want["links"], lambda t: (t[0], t[1]))
        have = {k: v.get(pid, []) for k, v in stored.items()}
        links_have = [t[:-1] for t in have["links"]]
        for k, key in (("links", "links"), ("timeline", "timeline"), ("tags", "tags")):
            res[k + "_parsed"] += len(want[key])
            res[k + "_stored"] += len(have[key])
        bad = []
        if hashlib.sha256(job[1].encode("utf-8")).hexdigest() != r["content_hash"]:
            bad.append("text")
        if (page.title, page.type) != (r["title"], r["type"]):
            bad.append("title/type")
            res["title_type_mismatches"] += 1
        if (json.dumps(page.frontmatter, ensure_ascii=False), page.frontmatter_error) != (r["frontmatter"], r["frontmatter_error"]):
            bad.append("frontmatter")
        f = search_fields(page)
        if tuple(f[k] for k in _SEARCH_FIELDS) != tuple(r[k] for k in _SEARCH_FIELDS):
            bad.append("search fields")
        if name_folds(r["slug"], page.title, f["search_aliases"], f["h1_key"]) != sorted(have["name folds"]):
            bad.append("name folds")
        for k in ("tags", "aliases", "timeline"):
            if sorted(want[k], key=repr) != sorted(have[k], key=repr):
                bad.append(k)
        if sorted(want["links"], key=repr) != sorted(links_have, key=repr):
            bad.append("links")
        if pid not in raw_skip and sorted(raw_have.get(pid, ())) != raw_want.get(pid, []):
            bad.append("raw")
        for t in have["links"]:
            if resolve(index, r["slug"], t[0], t[1]) != t[-1]:
                if "link targets" not in bad:
                    bad.append("link targets")
                if len(res["links_resolved_differently"]) < MAX_LISTED:
                    res["links_resolved_differently"].append(f"{r['slug']} → {t[1]}")
        for v in bad:
            res["views_differing"][v] = res["views_differing"].get(v, 0) + 1
        res["pages_differing"] += bool(bad)
        if bad and len(res["mismatched_pages"]) < MAX_LISTED:
            res["mismatched_pages"].append(r["slug"])
    return res


def derived_counts(brain: Brain) -> dict:
    """Every page re-parsed and compared (:func:`derived_check` without a sample)."""
    return derived_check(brain)


def fts_state(c) -> list[tuple]:
    """``[("ok",)]`` when FTS5's integrity check finds the search index equal to the pages (Postgres:
    ``search_tsv`` is the row's own column, kept by the trigger ``pages_search_tsv`` since v57, a
    generated column before: always), else ``[("corrupt", message)]``. The check is a write statement
    on SQLite: run it outside a read snapshot (:func:`gbrain.storage.copy.read_snapshot`)."""
    try:
        if getattr(c, "dialect", "sqlite") != "postgres":
            c.execute("INSERT INTO page_fts(page_fts, rank) VALUES ('integrity-check', 1)")
            c.execute("INSERT INTO canvas_fts(canvas_fts, rank) VALUES ('integrity-check', 1)")  # canvases' cards
        return [("ok",)]
    except Exception as e:  # sqlite3.DatabaseError: the index differs from the pages
        return [("corrupt", str(e))]


#: the ``pages`` columns of :func:`gbrain.search.keyword.search_fields` a derived check compares
_SEARCH_FIELDS = ("search_aliases", "search_headings", "search_words", "search_cjk", "search_body", "search_timeline", "h1_key",
                  "search_fold_names")


def derived_snapshot(brain: Brain, fts: bool = True) -> dict[str, list[tuple]]:
    """Every view gbrain derives from the tree, keyed by names (not row ids), for comparing two
    brains: ``{view: sorted rows}`` for pages (slug, path, type, title, frontmatter JSON,
    frontmatter error, content hash, separator, the search fields ``search_aliases``,
    ``search_headings``, ``search_words``, ``search_cjk``, hash of the compiled truth / timeline split, the
    lookup keys ``slug_key``, ``name_key``, ``loose_key``, ``title_key``, the indexed text
    ``search_body``, ``search_timeline``, an H1 name's key ``h1_key``, the names' folded words
    ``search_fold_names``), tags
    (with identity key and inline flag), aliases, the names keyed but for accents (``name_folds``), links (from, kind, target, resolved slug,
    context, count, forms),
    timeline entries, raw data, files (path, kind, hash, owning page), a canvas's searchable cards
    (``canvas_cards``: path, node, kind, text, indexed text, extra words, place), the search index
    (``fts``: ``[("ok",)]`` when FTS5's integrity check finds the index equal to the pages) and
    embeddings' staleness (``embeddings``: :func:`embedding_view`); ``fts`` False leaves the
    search index's check out (``[]``: inside a read snapshot, where SQLite cannot run it).
    Two brains hold the same tree exactly when their snapshots are equal."""
    c = brain.conn

    def q(sql: str) -> list[tuple]:
        return sorted((tuple(r) for r in c.execute(sql)), key=repr)

    fts_rows = fts_state(c) if fts else []
    pages = sorted(
        (*tuple(r[:12]), hashlib.sha256((r[12] + "\0" + r[13]).encode("utf-8", "surrogatepass")).hexdigest(), *tuple(r[14:]))
        for r in c.execute("SELECT slug, path, type, title, frontmatter, frontmatter_error, content_hash, separator, "
                           "search_aliases, search_headings, search_words, search_cjk, compiled_truth, timeline, "
                           "slug_key, name_key, loose_key, title_key, search_body, search_timeline, h1_key, search_fold_names FROM pages")
    )
    return {
        "pages": pages,  # the compiled truth / timeline split as a hash of both parts
        "tags": q("SELECT p.slug, t.tag, t.tag_key, t.inline FROM tags t JOIN pages p ON p.id = t.page_id"),
        "aliases": q("SELECT p.slug, a.alias, a.alias_key, a.loose_key FROM aliases a JOIN pages p ON p.id = a.page_id"),
        "name_folds": q("SELECT p.slug, f.kind, f.key FROM name_folds f JOIN pages p ON p.id = f.page_id"),
        "links": q("SELECT f.slug, l.kind, l.target, l.target_name, t.slug, l.context, l.count, l.forms, l.label FROM links l JOIN pages f ON f.id = l.from_page_id LEFT JOIN pages t ON t.id = l.to_page_id"),
        "timeline": q("SELECT p.slug, e.date, e.source, e.summary, e.detail FROM timeline_entries e JOIN pages p ON p.id = e.page_id"),
        "raw": q("SELECT p.slug, r.source, r.data FROM raw_data r JOIN pages p ON p.id = r.page_id"),
        "files": q("SELECT f.path, f.kind, f.content_hash, p.slug FROM files f LEFT JOIN pages p ON p.id = f.page_id"),
        # a canvas's links, read from its bytes when asked (no rows): resolved against the pages as they are now
        "canvas_links": sorted(((path, x["kind"], x["target"], x["to_slug"], x["context"], x["count"], json.dumps(x["forms"]))
                                for path in brain.canvases() for x in brain.canvas_links(path)), key=repr),
        # a nav file's entries (TOC.yml, _toc.yml, mkdocs.yml): stored rows (nav_entries, v61),
        # a function of its bytes and path, resolved against the pages as they are now
        "nav_links": sorted(((path, x["target"], x["to_slug"], x["context"], json.dumps(x["forms"]))
                             for path in brain.nav_files() for x in brain.nav_links(path)), key=repr),
        "nav_entries": q("SELECT f.path, n.ord, n.path, n.path_key, n.href, n.context, n.form, n.line FROM nav_entries n JOIN files f ON f.id = n.file_id"),
        # a canvas's searchable text (canvas_cards: a text card's markdown, a group's label), in its order
        "canvas_cards": q("SELECT f.path, c.node, c.kind, c.text, c.search, c.words, (SELECT count(*) FROM canvas_cards e WHERE e.file_id = c.file_id AND e.id < c.id) "
                          "FROM canvas_cards c JOIN files f ON f.id = c.file_id"),
        "fts": fts_rows,
        "embeddings": embedding_view(brain),
    }


def engine_snapshot(brain: Brain) -> dict[str, list[tuple]]:
    """The derived state one engine alone keeps, for comparing two brains of the same engine
    (:func:`derived_snapshot` holds what both engines keep, so a copy between engines compares
    it). SQLite: none beyond :func:`fts_state` (FTS5's check compares its index with the rows).
    Postgres: ``pg_pages`` (slug and every ``pages`` column named ``search_*`` that
    :func:`derived_snapshot` does not read, as text: the tsvectors ``search_tsv`` and
    ``search_names_tsv`` the BEFORE trigger ``pages_search_tsv`` keeps since v57, and any later
    one), ``pg_totals`` (the BM25 totals, the view ``search_totals``, every column) and
    ``pg_cards`` (a canvas card's ``tsv``, by its trigger)."""
    c = brain.conn
    if getattr(c, "dialect", "sqlite") != "postgres":
        return {}
    have = set(_SEARCH_FIELDS)
    cols = [r[0] for r in c.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'pages' "
        "AND column_name LIKE 'search\\_%' ORDER BY column_name") if r[0] not in have]
    pages = sorted(tuple(r) for r in c.execute("SELECT slug" + "".join(f", {x}::text" for x in cols) + " FROM pages"))
    return {
        "pg_pages": [("columns", *cols)] + pages,
        "pg_totals": [tuple(int(x) for x in c.execute("SELECT * FROM search_totals").fetchone())],
        "pg_cards": sorted((tuple(r) for r in c.execute(
            "SELECT f.path, c.node, c.tsv::text FROM canvas_cards c JOIN files f ON f.id = c.file_id")), key=repr),
    }


def embedding_view(brain: Brain) -> list[tuple]:
    """Which pages' embeddings are fresh, per model: ``(slug, model, chunks)`` for every page
    whose embedding with ``model`` is not stale (``embed --stale`` would leave it alone), with
    ``chunks`` the sha256 of its stored chunk text hashes in order; a stale or never-embedded
    page has no row. Equal views mean the same pages would be re-embedded and the fresh ones hold
    the same chunk texts."""
    from ..errors import GBrainError
    from ..search.embeddings import chunk_tokens_for, chunking_version

    c = brain.conn
    rows = c.execute(
        "SELECT p.slug, s.model, s.chunking, e.chunk_index, e.text_hash FROM embed_state s JOIN pages p ON p.id = s.page_id "
        "LEFT JOIN page_embeddings e ON e.page_id = s.page_id AND e.model = s.model "
        "WHERE s.content_hash = p.content_hash"
    ).fetchall()
    parts: dict[tuple[str, str], list[tuple[int, str]]] = {}
    cuts: dict[str, int | None] = {}
    for slug, model, version, i, h in rows:
        if model not in cuts:  # the brain's cut, for a model whose window holds it (embeddings.chunk_tokens_for)
            try:
                cuts[model] = chunk_tokens_for(model, brain.config())  # (or the budget a server's cached window gives)
            except GBrainError:
                cuts[model] = None
        if version != chunking_version(model, cuts[model]):
            continue  # cut with another chunking: stale
        got = parts.setdefault((slug, model), [])
        if i is not None:
            got.append((i, h))
    return sorted(
        (slug, model, hashlib.sha256("\n".join(h for _, h in sorted(v)).encode()).hexdigest())
        for (slug, model), v in parts.items()
    )


def embed_like(fresh: Brain, brain: Brain) -> list[str]:
    """The same embeds in ``fresh`` (a new import of ``brain``'s tree): embed, with each model,
    the pages whose embeddings are fresh in ``brain``, reusing ``brain``'s vectors by text hash
    (nothing is sent to a provider for a text ``brain`` already embedded). Returns problems
    (a model no provider can serve here, a provider error) as lines; writes ``fresh`` only."""
    want: dict[str, list[str]] = {}
    for slug, model, _ in embedding_view(brain):
        want.setdefault(model, []).append(slug)
    if not want:
        return []
    from ..search.embeddings import get_model
    from ..search.vectors import embed_pages, plan_embed, select_pages

    problems = []
    for model, slugs in sorted(want.items()):
        with fresh.transaction():
            for r in brain.conn.execute(
                "SELECT DISTINCT text_hash, dims, embedding FROM page_embeddings WHERE model = ? AND text_hash != ''", (model,)
            ):
                fresh.conn.execute(
                    "INSERT OR IGNORE INTO embedding_cache(model, text_hash, dims, embedding) VALUES (?, ?, ?, ?)", (model, r[0], r[1], r[2])
                )
        ids = []
        for slug in slugs:
            r = fresh.conn.execute("SELECT id FROM pages WHERE slug = ?", (slug,)).fetchone()
            if r:
                ids.append(r[0])
        try:
            m = get_model(model, brain.config())
            _, work = plan_embed(fresh.conn, m, select_pages(fresh.conn, model, "ids", ids))
            embed_pages(fresh.conn, m, work, transaction=fresh.transaction)
        except Exception as e:  # an OpenAI model without a key or server here: say so, compare the rest
            problems.append(f"cannot embed with {model} here: {e}")
    return problems


def _fresh_sqlite(brain: Brain, folder: Path):
    """The default :data:`FRESH_STORE`: a new SQLite file in ``folder`` (a temporary folder)."""
    import contextlib

    return contextlib.nullcontext(folder / "fresh.db")


#: where :func:`fresh_import_differences` imports when given no ``fresh_db``: ``FRESH_STORE(brain,
#: folder)``, a context manager yielding a new brain's place (``folder`` is a temporary folder it may
#: use); by default a SQLite file there, whatever ``brain``'s engine (a SQLite import compares what
#: both engines keep). The tests under ``--engine postgres`` set it to a new Postgres database for a
#: Postgres brain (tests/conftest.py: ``fresh_store``), so every comparison holds
#: :func:`engine_snapshot` too.
FRESH_STORE: Callable = _fresh_sqlite


def fresh_import_differences(brain: Brain, *, limit: int = 10, fresh_db=None) -> dict[str, dict[str, list[tuple]]]:
    """Export ``brain`` to a temporary folder, import that into a new database and
    run the same embeds there (:func:`embed_like`) and compare :func:`derived_snapshot` of both
    (and :func:`engine_snapshot` when both are of one engine):
    ``{view: {"only_here": rows, "only_fresh": rows}}``
    for each view that differs (at most ``limit`` rows each); empty when the incremental brain
    equals a fresh import of its own tree. ``fresh_db``: where to import (a new SQLite path or an
    empty ``postgresql://`` database, the caller's to drop); None: where :data:`FRESH_STORE` says
    (a temporary SQLite file). Reads ``brain`` only; costs one export and one import (with no
    pause for files written just now: the export is this call's own, nobody edits it)."""
    import contextlib
    import tempfile

    from .exporter import export_tree
    from .importer import import_tree

    with tempfile.TemporaryDirectory(prefix="gbrain-fresh-") as tmp, contextlib.ExitStack() as stack:
        tree = Path(tmp) / "tree"
        export_tree(brain, tree, check=False)
        if fresh_db is None:
            fresh_db = stack.enter_context(FRESH_STORE(brain, Path(tmp)))
        with Brain.open(fresh_db) as fresh:
            split = brain.timeline_split
            if split != fresh.timeline_split:
                fresh.set_config("timeline_split", split)
            if brain.tag_syntax != fresh.tag_syntax:
                fresh.set_config("tag_syntax", brain.tag_syntax)
            if brain.property_syntax != fresh.property_syntax:
                fresh.set_config("property_syntax", brain.property_syntax)
            if brain.get_config("embedding_chunk_tokens"):  # the same cut for the same embeds
                fresh.set_config("embedding_chunk_tokens", brain.get_config("embedding_chunk_tokens"))
            if brain.get_config(SERVER_WINDOW):  # (a server's window, as `embed` cached it)
                fresh.remember_config(SERVER_WINDOW, brain.get_config(SERVER_WINDOW))
            import_tree(fresh, tree, settle=0)  # (its own export, which nothing else writes: no second look at young files)
            problems = embed_like(fresh, brain)
            theirs = derived_snapshot(fresh)
            same = getattr(fresh.conn, "dialect", "sqlite") == getattr(brain.conn, "dialect", "sqlite")
            if same:
                theirs |= engine_snapshot(fresh)
    ours = derived_snapshot(brain) | (engine_snapshot(brain) if same else {})
    out: dict[str, dict[str, list[tuple]]] = {}
    for k in ours:
        a, b = set(ours[k]), set(theirs[k])
        if a != b:
            out[k] = {"only_here": sorted(a - b, key=repr)[:limit], "only_fresh": sorted(b - a, key=repr)[:limit]}
    if problems:
        out["embed"] = {"only_here": [(p,) for p in problems[:limit]], "only_fresh": []}
    return out


def check_counts(brain: Brain, parsed: dict[str, tuple[int, int, int]]) -> dict:
    """Compare counts parsed by a run (slug → (links, timeline, tags)) with the rows stored."""
    res = {"pages_parsed": len(parsed), "links_parsed": 0, "links_stored": 0, "timeline_parsed": 0, "timeline_stored": 0, "tags_parsed": 0, "tags_stored": 0, "mismatched_pages": []}
    if not parsed:
        return res
    c = brain.conn
    if len(parsed) <= 200:  # a few pages: indexed lookups beat scanning every count
        one = lambda q, pid: c.execute(q, (pid,)).fetchone()[0]  # noqa: E731
        ids = {s: (r[0] if (r := c.execute("SELECT id FROM pages WHERE slug = ?", (s,)).fetchone()) else None) for s in parsed}
        stored_links = {pid: one("SELECT COUNT(*) FROM links WHERE from_page_id = ?", pid) for pid in ids.values()}
        stored_tl = {pid: one("SELECT COUNT(*) FROM timeline_entries WHERE page_id = ?", pid) for pid in ids.values()}
        stored_tags = {pid: one("SELECT COUNT(*) FROM tags WHERE page_id = ?", pid) for pid in ids.values()}
    else:
        ids = {r[0]: r[1] for r in c.execute("SELECT slug, id FROM pages")}
        stored_links = dict(c.execute("SELECT from_page_id, COUNT(*) FROM links GROUP BY from_page_id").fetchall())
        stored_tl = dict(c.execute("SELECT page_id, COUNT(*) FROM timeline_entries GROUP BY page_id").fetchall())
        stored_tags = dict(c.execute("SELECT page_id, COUNT(*) FROM tags GROUP BY page_id").fetchall())
    for slug, counts in parsed.items():
        pid = ids.get(slug)
        stored = (stored_links.get(pid, 0), stored_tl.get(pid, 0), stored_tags.get(pid, 0))
        for k, a, b in zip(("links", "timeline", "tags"), counts, stored):
            res[k + "_parsed"] += a
            res[k + "_stored"] += b
        if counts != stored and len(res["mismatched_pages"]) < MAX_LISTED:
            res["mismatched_pages"].append(slug)
    return res


def raw_counts(brain: Brain) -> dict:
    """Sidecar files vs raw_data rows (each sidecar's sources re-read from its stored bytes)."""
    expected = 0
    sidecars = 0
    orphans = []
    bad = []
    twins, unread = _twin_sidecars(brain)
    for r in brain.conn.execute("SELECT path, data, page_id FROM files WHERE kind = 'raw' AND pieces = 0"):
        sidecars += 1
        if r["page_id"] is None:
            orphans.append(r["path"])
            continue
        if r["path"] in unread:  # another sidecar of its page gives its rows
            continue
        try:
            expected += len(raw_sources(rawspans.loads(r["data"])))
        except (UnicodeDecodeError, json.JSONDecodeError):
            bad.append(r["path"])
    stored = brain.conn.execute("SELECT COUNT(*) FROM raw_data").fetchone()[0]
    return {"sidecars": sidecars, "raw_rows_expected": expected, "raw_rows_stored": stored, "sidecars_without_page": orphans[:MAX_LISTED], "sidecars_invalid_json": bad[:MAX_LISTED],
            **twins}


def _twin_sidecars(brain: Brain) -> tuple[dict, set[str]]:
    """The pages with more than one ``.raw`` sidecar (:meth:`Brain.sidecar_twins`): the report's
    ``{"sidecars_of_one_page": [note, …]}`` (at most :data:`MAX_LISTED`; ``{}`` when none, so a
    brain without them reports the keys it always did) and the paths of the sidecars not read."""
    notes, unread = [], set()
    for slug, paths, page_path in brain.sidecar_twins():
        chosen = chosen_sidecar(paths, page_path)
        unread.update(p for p in paths if p != chosen)
        if len(notes) < MAX_LISTED:
            notes.append(sidecar_twins_note(slug, paths, page_path))
    return ({"sidecars_of_one_page": notes} if notes else {}), unread


def raw_summary(brain: Brain) -> dict:
    """Sidecars and raw_data rows counted without parsing any sidecar (:func:`derived_check`
    compares the rows of the pages it draws with their sidecars): ``sidecars``,
    ``raw_rows_stored``, ``sidecars_without_page`` and ``raw_rows_without_sidecar`` (rows of a
    page that has no sidecar: never written by an import or sync), ``checked: "sample"``."""
    c = brain.conn
    return {
        "sidecars": c.execute("SELECT COUNT(*) FROM files WHERE kind = 'raw'").fetchone()[0],
        "raw_rows_stored": c.execute("SELECT COUNT(*) FROM raw_data").fetchone()[0],
        "sidecars_without_page": [r[0] for r in c.execute(f"SELECT path FROM files WHERE kind = 'raw' AND page_id IS NULL ORDER BY path LIMIT {MAX_LISTED}")],
        "raw_rows_without_sidecar": c.execute(
            "SELECT COUNT(*) FROM raw_data r WHERE NOT EXISTS (SELECT 1 FROM files f WHERE f.page_id = r.page_id AND f.kind = 'raw')").fetchone()[0],
        "checked": "sample",
        **_twin_sidecars(brain)[0],
    }


def _counts(brain: Brain) -> dict[str, int]:
    """The counts of :meth:`Brain.stats` a report gives (not its by-type, distinct-tag and
    embedding counts, each a scan of an index): links, resolved and dangling (resolved is
    every link less the dangling ones, not a scan of the links' target index), tags, timeline
    entries, files and frontmatter errors."""
    c = brain.conn

    def one(q: str) -> int:
        return c.execute(q).fetchone()[0]

    links, dangling = one("SELECT COUNT(*) FROM links"), one("SELECT COUNT(*) FROM links WHERE to_page_id IS NULL")
    return {
        "links": links,
        "links_resolved": links - dangling,
        "links_dangling": dangling,
        "tags": one("SELECT COUNT(*) FROM tags"),
        "timeline_entries": one("SELECT COUNT(*) FROM timeline_entries"),
        "files": one("SELECT COUNT(*) FROM files"),
        "frontmatter_errors": one("SELECT COUNT(*) FROM pages WHERE frontmatter_error IS NOT NULL"),
    }


def ignored_paths(root, paths: list[str]) -> list[str]:
    """The ``paths`` (relative, ``/``-separated) that the ignore rules of the tree at ``root``
    (:func:`~gbrain.sync.scan.load_ignore`: the defaults and ``.gbrainignore``) skip, in order."""
    from .scan import ignore_matcher, load_ignore

    try:
        ignored = ignore_matcher(load_ignore(Path(root)))
    except OSError:
        return []
    return [p for p in paths if ignored(p)]


@dataclass
class Compared:
    seen: int
    stored: int
    missing_in_db: list[str]
    missing_on_disk: list[str]
    hash_mismatch: list[str]
    in_brain: int = 0  # paths the brain holds (pages and other files)


def compare(disk: dict[str, str], db: dict[str, str]) -> Compared:
    """Compare ``path → sha256`` maps of a tree and the DB (as sets of keys and of items)."""
    if disk == db:
        return Compared(len(disk), len(disk), [], [], [], len(db))
    missing_db = sorted(disk.keys() - db.keys())
    missing_disk = sorted(db.keys() - disk.keys())
    bad = sorted(p for p, _ in disk.items() - db.items() if p in db)
    return Compared(len(disk), len(disk) - len(missing_db), missing_db, missing_disk, bad, len(db))


#: the first problem of a report on a brain whose last import did not finish (its mark,
#: ``importer.RESOLVE_PENDING``, is still set: the import clears it in its last step)
UNFINISHED_IMPORT = "the last import did not finish; run `gbrain import DIR` again"
_SYNC_ADVICE = re.compile(r" \([^()]*`gbrain sync DIR`[^()]*\)")


def _resolve_pending() -> str:
    from .importer import RESOLVE_PENDING  # importer imports this module

    return RESOLVE_PENDING


def report(
    brain: Brain,
    scan: Scan,
    disk_hashes: dict[str, str] | Callable[[], dict[str, str]],
    *,
    deep: bool = True,
    sample: int | None = None,
    budget: int | None = None,
    parsed_counts: dict[str, tuple[int, int, int]] | None = None,
    extra: dict | None = None,
    raw_check: bool = True,
    stored: dict[str, str] | None = None,
    left_alone: dict[str, str] | None = None,
    written_since: Callable[[list[str]], set[str]] | None = None,
    held_back: Collection[str] | None = None,
) -> dict:
    """Build the validation report for ``scan`` (with its files' hashes) against ``brain``.

    ``deep`` re-renders every page (its hash is computed, not read) and re-parses it from its
    stored text; ``sample`` (with ``deep=False``) compares the tree with the stored hashes and
    re-parses that many pages drawn at random, ``budget`` (with ``deep=False``) pages drawn at
    random until their texts hold that many characters (:func:`derived_check`: each checked
    page's raw rows are compared with its sidecar; the other sidecars are counted, not parsed:
    :func:`raw_summary`); otherwise the counts a run
    parsed (``parsed_counts``: slug → (links, timeline entries, tags)) are checked against the rows.
    ``disk_hashes`` may be a function giving them (:meth:`TreeHashes.result`): it is called
    after the database side of the report, so the tree is hashed meanwhile. ``stored`` (with
    ``deep=False``): :func:`stored_hashes` as the caller read them in its own snapshot (a
    no-change sync round: ``SyncEngine._unchanged``), not read again. ``left_alone``: path →
    kind (``scan.Why``) of the paths a sync left alone on both sides (a symlink, an ignored or
    unreadable file): not in ``disk_hashes``, neither missing nor a problem here; those the brain
    holds are counted, ``comparison.left_alone`` and by kind ``left_alone`` (so seen + left alone
    adds up to what the brain holds). ``written_since``: given paths, the set of those another
    writer changed in the brain after the caller (a sync round) read it (``SyncEngine._written_since``):
    of every differing, brain-only or folder-only path (the whole lists, not the listed first
    :data:`MAX_LISTED`; folder-only: a page deleted or moved away through gbrain meanwhile), those
    are no mismatch and no problem: ``written_during`` (the differing ones first, at most :data:`MAX_LISTED`) and ``written_during_count``; the comparison still
    counts them (they differ until the next round writes them). ``held_back``: paths a watch
    holds back (a mass deletion the guard refused, ``SyncEngine.held``): of the brain-only paths,
    those are noted, not missing and no problem: ``held_back_count`` (set when any; the
    comparison still counts them as ``only_in_brain``).
    """
    db = db_hashes(brain) if deep else stored if stored is not None else stored_hashes(brain)
    stats = _counts(brain)
    if deep or sample is not None or budget is not None:
        derived = derived_check(brain, sample=None if deep else sample, budget=None if deep else budget)
    else:
        derived = check_counts(brain, parsed_counts or {})
    # (a sync round that changed nothing need not re-parse every sidecar's JSON: ``raw_check``)
    if raw_check and derived.get("sampled"):
        raw = raw_summary(brain)
    elif raw_check:
        raw = raw_counts(brain)
    else:
        raw = {
        "sidecars": brain.conn.execute("SELECT COUNT(*) FROM files WHERE kind = 'raw'").fetchone()[0],
            "raw_rows_stored": brain.conn.execute("SELECT COUNT(*) FROM raw_data").fetchone()[0], "checked": False}
    if callable(disk_hashes):
        disk_hashes = disk_hashes()
    c = compare(disk_hashes, db)
    left: dict[str, int] = {}
    if left_alone and c.missing_on_disk:
        for p in c.missing_on_disk:
            k = left_alone.get(p)
            if k is not None:
                left[k] = left.get(k, 0) + 1
        if left:
            c.missing_on_disk = [p for p in c.missing_on_disk if p not in left_alone]
    # paths the tree's ignore rules now skip (a folder added to .gbrainignore, `!.obsidian/`
    # taken out) stay in the brain as they were: noted, not missing (as sync reports them)
    ignored_in_brain = ignored_paths(scan.root, c.missing_on_disk) if c.missing_on_disk else []
    if ignored_in_brain:
        gone = set(ignored_in_brain)
        c.missing_on_disk = [p for p in c.missing_on_disk if p not in gone]
    # a file iCloud Drive evicted (its placeholder .NAME.icloud is there): no deletion, its page
    # stays as it was (as sync leaves it)
    gone_to_cloud = [p for p in c.missing_on_disk if evicted(scan.root, p)] if c.missing_on_disk else []
    if gone_to_cloud:
        c.missing_on_disk = [p for p in c.missing_on_disk if p not in set(gone_to_cloud)]
    # a write through gbrain after the round read the brain (an agent's put, a cron job's new
    # page): the next round writes it; decided on the whole lists (trial 62: 51 pages made); so is
    # a file whose page was deleted or moved away through gbrain meanwhile (the next round removes it)
    paths = c.hash_mismatch + c.missing_on_disk + c.missing_in_db
    late = written_since(paths) if written_since and paths else set()
    mismatch = [p for p in c.hash_mismatch if p not in late] if late else c.hash_mismatch
    missing = [p for p in c.missing_on_disk if p not in late] if late else c.missing_on_disk
    held = [p for p in missing if p in held_back] if held_back else []
    if held:  # a refused mass deletion a watch holds back (said when refused): noted, not a problem
        kept = set(held)
        missing = [p for p in missing if p not in kept]
    only_disk = [p for p in c.missing_in_db if p not in late] if late else c.missing_in_db
    problems = []
    if only_disk:
        problems.append(f"{len(only_disk)} file(s) on disk are not in the DB (new in the folder? `gbrain sync DIR` takes them in)")
    if missing:
        problems.append(f"{len(missing)} path(s) in the DB are not on disk (written through gbrain, or deleted from the folder? `gbrain sync DIR` reconciles both sides)")
    if mismatch:
        problems.append(f"{len(mismatch)} file(s) differ from what the DB renders "
                        "(edited in the folder or through gbrain since the last sync? `gbrain sync DIR` reconciles both sides)")
    for k in ("links", "timeline", "tags"):
        if derived[f"{k}_parsed"] != derived[f"{k}_stored"]:
            problems.append(f"{k}: {derived[k + '_parsed']} parsed but {derived[k + '_stored']} stored")
    views = derived.get("views_differing") or {}
    if views:
        problems.append(f"{derived['pages_differing']} page(s) store rows or text that differ from what their text gives: " + ", ".join(f"{k} ({v})" for k, v in sorted(views.items())))
    if derived.get("links_resolved_differently"):
        problems.append(f"{len(derived['links_resolved_differently'])}{'+' if len(derived['links_resolved_differently']) >= MAX_LISTED else ''} link(s) point at another page than a fresh import would resolve")
    if raw_check and "raw_rows_expected" in raw and raw["raw_rows_expected"] != raw["raw_rows_stored"]:
        problems.append(f"raw data: {raw['raw_rows_expected']} sources in sidecars but {raw['raw_rows_stored']} rows")
    if raw.get("raw_rows_without_sidecar"):
        problems.append(f"raw data: {raw['raw_rows_without_sidecar']} row(s) of pages that have no sidecar")
    if deep:  # a nav file's entries against its stored bytes (check does the same)
        problems += damaged_nav_entries(brain)
    if problems and brain.get_config(_resolve_pending()) is not None:
        # an import was killed or stopped before its last step (the links it resolves at the end):
        # what differs is what it had left to do, so the advice is to run it again, not sync
        problems = [UNFINISHED_IMPORT] + [_SYNC_ADVICE.sub("", p) for p in problems]
    pages_on_disk = brain.conn.execute("SELECT COUNT(*) FROM pages").fetchone()[0]
    # the folder and the brain compared, path by path, in words a person reads: in_folder = same +
    # different + only_in_folder; in_brain = same + different + only_in_brain (+ ignored_in_brain,
    # + evicted, + left_alone)
    comparison = {"in_folder": c.seen, "in_brain": c.in_brain, "same": c.stored - len(c.hash_mismatch), "different": len(c.hash_mismatch),
                  "only_in_brain": len(c.missing_on_disk), "only_in_folder": len(c.missing_in_db)}
    if ignored_in_brain:
        comparison["ignored_in_brain"] = len(ignored_in_brain)
    if gone_to_cloud:
        comparison["evicted"] = len(gone_to_cloud)
    if left:
        comparison["left_alone"] = sum(left.values())
    rep = {
        "ok": not problems,
        "root": os.path.abspath(scan.root),  # (as sync's engine: the whole path, symlinks as typed)
        "comparison": comparison,
        "different": c.hash_mismatch[:MAX_LISTED],
        "only_in_brain": c.missing_on_disk[:MAX_LISTED],
        "only_in_folder": c.missing_in_db[:MAX_LISTED],
        # deprecated names, kept: files_seen (= comparison.in_folder), files_stored (same +
        # different), hashes_checked (in_folder), hash_mismatches (= different), missing_in_db
        # (= only_in_folder), missing_on_disk (= only_in_brain)
        "files_seen": c.seen,
        "files_stored": c.stored,
        "pages": pages_on_disk,
        "other_files": stats["files"],
        "hashes_checked": len(disk_hashes),
        "hash_mismatches": mismatch[:MAX_LISTED],
        "missing_in_db": only_disk[:MAX_LISTED],
        "missing_on_disk": missing[:MAX_LISTED],
        "links": {
            "stored": stats["links"],
            "resolved": stats["links_resolved"],
            "dangling": stats["links_dangling"],
            # of them, links to a docs site's own paths outside the brain (/training/…): no broken page links
            "site_paths": len(site_path_links(brain.conn)) if stats["links_dangling"] else 0,
            "parsed_checked": derived["links_parsed"],
            "stored_checked": derived["links_stored"],
        },
        "timeline_entries": {"stored": stats["timeline_entries"], "parsed_checked": derived["timeline_parsed"], "stored_checked": derived["timeline_stored"]},
        "tags": {
            "stored": stats["tags"],
            "inline": brain.conn.execute("SELECT COUNT(*) FROM tags WHERE inline = 1").fetchone()[0],
            "unique": brain.conn.execute("SELECT COUNT(DISTINCT tag_key) FROM tags").fetchone()[0],
            "parsed_checked": derived["tags_parsed"],
            "stored_checked": derived["tags_stored"],
        },
        "aliases": {
            "stored": brain.conn.execute("SELECT COUNT(*) FROM aliases").fetchone()[0],
            "pages": brain.conn.execute("SELECT COUNT(DISTINCT page_id) FROM aliases").fetchone()[0],
        },
        "pages_reparsed": derived["pages_parsed"],
        "pages_sampled": bool(derived.get("sampled")),
        "views_differing": derived.get("views_differing", {}),
        "derived_mismatches": derived["mismatched_pages"],
        "links_resolved_differently": derived.get("links_resolved_differently", []),
        "raw": raw,
        "frontmatter_errors": stats["frontmatter_errors"],
        "skipped": [{"path": p, "reason": r, "kind": report_kind(r)} for p, r in scan.skipped[:MAX_LISTED]],
        "skipped_kinds": dict(Counter(report_kind(r) for _, r in scan.skipped)),
        "skipped_count": len(scan.skipped),
        "problems": problems,
    }
    if held:
        rep["held_back_count"] = len(held)
    if ignored_in_brain:
        rep["ignored_in_brain"] = ignored_in_brain[:MAX_LISTED]
        rep["ignored_in_brain_count"] = len(ignored_in_brain)
    if gone_to_cloud:
        rep["evicted"] = gone_to_cloud[:MAX_LISTED]
        rep["evicted_count"] = len(gone_to_cloud)
    if left:
        rep["left_alone"] = left
    if written_since:
        during = [p for p in paths if p in late]
        rep["written_during"], rep["written_during_count"] = during[:MAX_LISTED], len(during)
    if extra:
        rep.update(extra)
    return rep


class TreeHashes:
    """The sha256 of every scanned file, begun beside the caller (:func:`hash_tree` waits for it
    at once).

    When the files to read hold at least :data:`PARALLEL_BYTES`, those larger than
    :data:`WHOLE_READ` are hashed at once in :data:`HASHERS` threads, largest first (``read``
    and sha256 release the GIL: a 2.3 GB tree is hashed on two cores while the caller does its
    own work); :meth:`result` hashes the rest in the calling thread, then collects the
    threads' answers. ``known``: path → ``(size, change stamp, sha256)`` of files whose bytes
    the caller hashed as it wrote them (export); a scanned file with exactly that size and
    change stamp (:func:`~gbrain.sync.scan.change_stamp`: any later write moves its ctime) takes
    that hash instead of being read again. Every other file is read and hashed.

    A file the scan took no size of (``scan_tree(sizes=False)``: ``size`` is
    :data:`~gbrain.sync.scan.NOT_TAKEN`) is read into the buffer in the calling thread: its
    size is what the read gives (:attr:`read_sizes`); one larger than :data:`WHOLE_READ` is
    read on from there, handed to the threads (the rest of it) once the large files met so far
    hold :data:`PARALLEL_BYTES`; one that vanished after the listing is left out, as the scan
    would have left it out had it vanished before its ``lstat``."""

    def __init__(self, scan: Scan, on_progress: Callable[[int, int], None] | None = None, *,
                 known: dict[str, tuple[int, int, str]] | None = None, threads: int | None = None) -> None:
        self._scan = scan
        self._on_progress = on_progress
        self._known: dict[int, str] = {}
        todo: list[int] | range = range(len(scan.files))
        if known:
            todo = []
            for i, f in enumerate(scan.files):
                k = known.get(f.path)
                if k is not None and k[0] == f.size and k[1] == f.mtime_ns:
                    self._known[i] = k[2]
                else:
                    todo.append(i)
        self._pool = None
        self._futures: dict = {}
        n = HASHERS if threads is None else threads
        self._threads = n if n > 1 and (os.cpu_count() or 1) > 1 else 0
        #: bytes read of each file the scan took no size of (index in ``scan.files`` → bytes)
        self.read_sizes: dict[int, int] = {}
        self._got: list | None = None  # the calling thread's answers, once :meth:`hash_here` ran
        files = scan.files
        if self._threads and scan.sizes and sum(files[i].size for i in todo) >= PARALLEL_BYTES:
            big = sorted((i for i in todo if files[i].size > WHOLE_READ), key=lambda i: -files[i].size)
            if big:
                self._futures = {i: self._start().submit(_sha256_sized, files[i].abspath, files[i].size) for i in big}

    def _start(self):
        """The threads (started on first need)."""
        if self._pool is None:
            from concurrent.futures import ThreadPoolExecutor

            self._pool = ThreadPoolExecutor(self._threads, thread_name_prefix="gbrain-hash")
        return self._pool

    def _unsized(self, i: int, path: str, buf: memoryview, big: list[int]):
        """Hash the file ``path`` (``scan.files[i]``, no size taken): read into ``buf`` (at least
        ``WHOLE_READ + 1`` bytes) and hashed, or (larger) read on here or handed to the threads;
        records its size in :attr:`read_sizes`. Returns the hex digest, None when handed over,
        or ``_VANISHED``. ``big``: one int, the bytes of the large files met so far."""
        try:
            fd = blobs.os_open(path, _O_READ)
        except FileNotFoundError:
            return _VANISHED
        handed = False
        try:
            whole = WHOLE_READ
            if _readv is not None:
                n = _readv(fd, [buf[: whole + 1]])
                data = buf[:n]
            else:
                data = os.read(fd, whole + 1)
                n = len(data)
            if n <= whole:
                self.read_sizes[i] = n
                return hashlib.sha256(data).hexdigest()
            handed = True  # _large closes it
            return self._large(i, fd, data, big)
        finally:
            if not handed:
                os.close(fd)

    def _large(self, i: int, fd: int, head, big: list[int]):
        """The rest of :meth:`_unsized` for a file larger than :data:`WHOLE_READ`: ``fd`` open,
        its first bytes ``head`` read; hashed on here, or handed to the threads once the large
        files met so far (``big[0]``, bytes) hold :data:`PARALLEL_BYTES` (then None is returned).
        Closes ``fd`` (or the thread does)."""
        try:
            h = hashlib.sha256(head)
            size = self.read_sizes[i] = os.fstat(fd).st_size
        except BaseException:
            os.close(fd)
            raise
        big[0] += size
        if self._threads and big[0] >= PARALLEL_BYTES:
            self._futures[i] = self._start().submit(_sha256_rest, fd, h)
            return None
        return _sha256_rest(fd, h)

    def _hash_bare(self, files: list, got: list, buf: memoryview, progress) -> None:
        """:meth:`hash_here` for a scan without sizes and no known hashes: each
        file read into ``buf`` (one ``readv``) and hashed here, read on by :meth:`_large` when
        it fills the buffer. The same answers as :meth:`_unsized`, without a call per file."""
        sizes, whole, big = self.read_sizes, WHOLE_READ, [0]
        view = [buf[: whole + 1]]
        sha, op, readv, close, flags = hashlib.sha256, blobs.os_open, _readv, os.close, _O_READ
        total, futures = len(files), self._futures
        for i, f in enumerate(files):
            if progress and i % 200 == 1:
                progress(i - len(futures), total)
            try:
                fd = op(f.abspath, flags)
            except FileNotFoundError:
                got[i] = _VANISHED
                continue
            except OSError as e:
                got[i] = e
                continue
            try:
                n = readv(fd, view)
            except OSError as e:
                got[i] = e
                close(fd)
                continue
            if n <= whole:
                close(fd)
                sizes[i] = n
                got[i] = sha(buf[:n]).hexdigest()
            else:  # a large file: read on (here or in a thread) from what the buffer holds
                try:
                    got[i] = self._large(i, fd, buf[:n], big)
                except OSError as e:
                    got[i] = e

    def hash_here(self) -> None:
        """Hash the files left to the calling thread (each small one read into one buffer reused
        from file to file, :func:`_sha256_sized`), not waiting for the threads; then
        :attr:`read_sizes` is complete. :meth:`result` calls it when it has not run."""
        if self._got is not None:
            return
        files = self._scan.files
        n = len(files)
        got: list = [None] * n
        known, futures, progress = self._known, self._futures, self._on_progress
        buf = memoryview(bytearray(WHOLE_READ + 1))
        sized, unsized, big = _sha256_sized, self._unsized, [0]
        done = 0
        try:
            if not self._scan.sizes and not known and _readv is not None:
                self._hash_bare(files, got, buf, progress)
                self._got, self._done = got, n - len(self._futures)
                return
            for i, f in enumerate(files):
                if i in futures:
                    continue
                h = known.get(i) if known else None
                if h is None:
                    try:
                        h = sized(f.abspath, f.size, buf) if f.size >= 0 else unsized(i, f.abspath, buf, big)
                    except OSError as e:
                        h = e
                got[i] = h
                if progress and i not in futures:
                    done += 1
                    if done % 200 == 1 or done == n:
                        progress(done, n)
        except BaseException:
            self.cancel()
            raise
        self._got, self._done = got, done

    def result(self) -> tuple[dict[str, str], list[tuple[str, str]]]:
        """``(path → sha256 hex, [(path, error)])`` in scan order: the files left to this thread
        first (:meth:`hash_here`), then the threads' answers (waiting for them)."""
        files = self._scan.files
        n = len(files)
        futures, progress = self._futures, self._on_progress
        try:
            self.hash_here()
            got, done = self._got, self._done
            for i, fut in futures.items():
                try:
                    got[i] = fut.result()
                except OSError as e:
                    got[i] = e
                if progress:
                    done += 1
                    if done % 200 == 1 or done == n:
                        progress(done, n)
        finally:
            self.cancel()
        out: dict[str, str] = {}
        errors: list[tuple[str, str]] = []
        for f, g in zip(files, got):
            if isinstance(g, str):
                out[f.path] = g
            elif isinstance(g, OSError):
                errors.append((f.path, g.strerror or str(g)))
        return out, errors

    def cancel(self) -> None:
        """Stop the threads' work not yet begun (the caller gave up: a damaged brain)."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


_VANISHED = object()  # a file of a scan without sizes that was gone when it was opened


def hash_tree(scan: Scan, on_progress: Callable[[int, int], None] | None = None, *,
              known: dict[str, tuple[int, int, str]] | None = None) -> tuple[dict[str, str], list[tuple[str, str]]]:
    """sha256 of every scanned file: ``(path → hash, [(path, error)])``; see :class:`TreeHashes`
    (``known``: hashes the caller took as it wrote the files)."""
    return TreeHashes(scan, on_progress, known=known).result()


def damaged_pages(brain: Brain, listed: int = 10) -> list[str]:
    """Problems for pages whose stored text no longer hashes to the ``content_hash`` stored with
    it (bytes changed in place: ``get`` and every edit refuse them), one line naming up to
    ``listed`` slugs; ``[]`` when every page matches. Costs one read and sha256 of every page."""
    import sqlite3

    bad: list[str] = []
    try:
        for r in brain.conn.execute("SELECT slug, bom, frontmatter_raw, compiled_truth, separator, timeline, content_hash FROM pages ORDER BY slug"):
            if hashlib.sha256(render_row(r).encode("utf-8", "surrogatepass")).hexdigest() != r["content_hash"]:
                bad.append(r["slug"])
    except sqlite3.DatabaseError as e:
        return [f"page texts: {e}"]
    return _mismatches(bad, listed, "page(s) whose stored text no longer matches its hash",
                       "take them from your markdown folder and `gbrain put` each; the damaged text is kept in its history")


def _mismatches(bad: list[str], listed: int, what: str, advice: str) -> list[str]:
    """``[]`` when ``bad`` is empty, else one problem line: how many, ``what``, the first
    ``listed`` names of ``bad`` (and how many more), then ``advice`` in brackets."""
    if not bad:
        return []
    more = f" and {len(bad) - listed:,} more" if len(bad) > listed else ""
    return [f"{len(bad):,} {what}: {', '.join(bad[:listed])}{more} ({advice})"]


def damaged_files(brain: Brain, listed: int = 10) -> list[str]:
    """Problems for stored files (attachments, ``.raw`` sidecars) whose bytes no longer hash to
    their ``content_hash`` (changed in place; since v35 the history refers to a file's current
    bytes instead of holding a copy, so such damage loses that version), one line naming up to
    ``listed`` paths; ``[]`` when every file matches. Costs one read and sha256 of every stored
    byte (a big file's pieces streamed, :func:`gbrain.storage.blobs.iter_pieces`)."""
    import sqlite3

    from ..storage import blobs

    bad: list[str] = []
    c = brain.conn
    try:
        for r in c.execute("SELECT path, content_hash, pieces FROM files ORDER BY path").fetchall():
            h = hashlib.sha256()
            try:
                if r[2]:
                    for piece in blobs.iter_pieces(c, r[1]):
                        h.update(piece)
                else:
                    h.update(bytes(c.execute("SELECT data FROM files WHERE path = ?", (r[0],)).fetchone()[0]))
            except ValueError:  # a missing piece
                bad.append(r[0])
                continue
            if h.hexdigest() != r[1]:
                bad.append(r[0])
    except sqlite3.DatabaseError as e:
        return [f"file bytes: {e}"]
    return _mismatches(bad, listed, "file(s) whose stored bytes no longer match their hash",
                       "copy each from your markdown folder or a backup and `gbrain sync` or `gbrain import` it")


def damaged_nav_entries(brain: Brain, listed: int = 10) -> list[str]:
    """Problems for stored nav files (``TOC.yml``, ``_toc.yml``, ``mkdocs.yml``) whose
    ``nav_entries`` rows (SQLite v61 / Postgres v65) differ from the rows their stored bytes and
    path give (:func:`gbrain.storage.db.write_nav_entries`: a row changed, missing or left over;
    a file in pieces has none), and rows of a file that is no nav file; one line naming up to
    ``listed`` paths, ``[]`` when every row matches. Costs a parse of every stored nav file (each
    at most ``navfile.NAV_MAX_BYTES``; a parse is kept per content hash). ``gbrain reindex``
    writes them again (:func:`gbrain.storage.db.fill_nav_entries`)."""
    import sqlite3

    from ..page import navfile

    c = brain.conn
    cols = "ord, path, path_key, href, context, form, line"
    bad: list[str] = []
    try:
        stored: dict[int, list[tuple]] = {}
        for r in c.execute(f"SELECT file_id, {cols} FROM nav_entries ORDER BY file_id, ord"):
            stored.setdefault(r[0], []).append(tuple(r[1:]))
        q = "SELECT id, path, pieces FROM files WHERE " + " OR ".join(["path LIKE ?"] * len(navfile.NAV_LIKE)) + " ORDER BY path"
        seen: set[int] = set()
        for fid, path, pieces in c.execute(q, navfile.NAV_LIKE).fetchall():
            if not navfile.is_nav_file(path):
                continue
            seen.add(fid)
            want: list[tuple] = []
            if not pieces:
                data = bytes(c.execute("SELECT data FROM files WHERE id = ?", (fid,)).fetchone()[0])
                want = [tuple(x) for x in navfile.nav_rows(data, path)[0]]
            if want != stored.get(fid, []):
                bad.append(path)
        left = sorted(set(stored) - seen)
        if left:
            names = dict((r[0], r[1]) for r in c.execute("SELECT id, path FROM files"))
            bad += sorted(names.get(fid, f"file id {fid}") for fid in left)
    except sqlite3.DatabaseError as e:
        return [f"nav entries: {e}"]
    return _mismatches(bad, listed, "nav file(s) whose stored entries differ from their bytes",
                       "write them again from the stored files with `gbrain reindex`")


def db_integrity(brain: Brain, *, full: bool = False) -> list[str]:
    """Problems with the database file itself (empty when sound): SQLite's ``quick_check``
    (``integrity_check`` with ``full``, which also compares indexes with their tables), FTS5's
    integrity check of the search index against the pages, and (``full``) foreign keys, every
    page's stored text against its ``content_hash`` (:func:`damaged_pages`), every stored
    file's bytes against theirs (:func:`damaged_files`) and every nav file's ``nav_entries`` rows
    against its bytes (:func:`damaged_nav_entries`)."""
    import sqlite3

    c = brain.conn
    out: list[str] = []
    try:
        rows = [r[0] for r in c.execute("PRAGMA integrity_check(20)" if full else "PRAGMA quick_check(20)")]
        lines = [x.strip() for r in rows for x in r.splitlines() if x.strip() and not x.startswith("***")]
        if rows != ["ok"]:
            out += [f"SQLite: {x}" for x in lines[:10]]
    except sqlite3.DatabaseError as e:
        out.append(f"SQLite: {e}")
    try:
        if getattr(c, "dialect", "sqlite") != "postgres":  # Postgres keeps its GIN index itself
            c.execute("INSERT INTO page_fts(page_fts, rank) VALUES ('integrity-check', 1)")
            c.execute("INSERT INTO canvas_fts(canvas_fts, rank) VALUES ('integrity-check', 1)")  # canvases' cards
    except sqlite3.DatabaseError as e:
        if "readonly" not in str(e):  # FTS5 runs its check as a write; a read-only brain skips it
            out.append(f"search index: {e}")
    if full:
        try:
            n = len(c.execute("PRAGMA foreign_key_check").fetchall())
            if n:
                out.append(f"{n} row(s) point at rows that do not exist (foreign keys)")
        except sqlite3.DatabaseError as e:
            out.append(f"foreign keys: {e}")
        out += damaged_pages(brain)
        out += damaged_files(brain)
    if out:
        brain.damaged = brain.damaged or out[0]
    if full:  # derived rows `reindex` writes again: reported, but no damaged file (writes go on)
        out += damaged_nav_entries(brain)
    return out


#: ``gbrain verify`` (without ``--deep``) re-parses pages drawn at random until it has re-parsed
#: this share of the tree's markdown (characters of page text against bytes of ``.md`` files),
#: and at least :data:`SAMPLE_MIN_CHARS` characters (a brain whose pages hold fewer is re-parsed
#: whole). A re-parse costs ~150× reading and hashing the same bytes (0.4-0.6 µs a character), so
#: 0.15% of the text costs ~0.15-0.3× the read+sha256 floor, on a small brain as on a big one;
#: why not a fixed number of pages, and what a smaller sample misses: docs/performance.md
#: ("verify: hashes, and a random sample re-parsed")
SAMPLE_SHARE = 0.0015
SAMPLE_MIN_CHARS = 16_384


def sample_budget(scan: Scan, read_sizes: dict[int, int] | None = None) -> int:
    """Characters of page text ``gbrain verify`` re-parses for ``scan``'s tree:
    :data:`SAMPLE_SHARE` of its ``.md`` files' bytes, at least :data:`SAMPLE_MIN_CHARS`.
    ``read_sizes``: the sizes of the files the scan took none of, by index in ``scan.files``
    (:attr:`TreeHashes.read_sizes`; a file not in it counts 0)."""
    if scan.sizes:
        md = sum(f.size for f in scan.files if f.path.endswith(_MD))
    else:
        get = (read_sizes or {}).get
        md = sum(get(i, 0) for i, f in enumerate(scan.files) if f.path.endswith(_MD))
    return max(SAMPLE_MIN_CHARS, int(md * SAMPLE_SHARE))


#: ``.md`` in any case: ``path.endswith(_MD)`` is ``path[-3:].lower() == ".md"`` (no other
#: code point lower-cases to anything holding ``.``, ``m`` or ``d``: checked over all of them),
#: one C call per path and no new string
_MD = (".md", ".mD", ".Md", ".MD")


#: hours a recorded passing quick_check of the database file stands for plain ``verify`` while
#: the file is exactly as that check (or an import after it, in the same process) left it
#: (config ``verify_trust_check_hours``; empty: this, 0: check every time)
TRUST_CHECK_HOURS = 24


def trust_check_hours(brain: Brain) -> float:
    """``verify_trust_check_hours`` (:data:`TRUST_CHECK_HOURS` when empty or unset; 0 = never
    trust a record). A config that cannot be read (a damaged file) trusts nothing."""
    import sqlite3

    try:
        v = (brain.get_config("verify_trust_check_hours") or "").strip()
    except sqlite3.DatabaseError:
        return 0
    try:
        return max(0.0, float(v)) if v else float(TRUST_CHECK_HOURS)
    except ValueError:
        return float(TRUST_CHECK_HOURS)


def _utc(ns: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ns / 1e9))


class _LeftAlone:
    """What :func:`report` takes as ``left_alone`` for ``verify DIR``: the paths on disk it could
    not read (a file whose read failed, a FIFO, a symlink where a note was) and every path inside a
    folder it could not list or did not follow, so a note that is there is never said to be "only
    in the brain" (as sync leaves such paths alone: trial 36). The tree's ignored paths are left
    to :func:`ignored_paths`."""

    def __init__(self, scan: Scan) -> None:
        from .scan import IGNORED, kind_of

        # (kinds as reports count them: a FIFO is a ``not-regular`` special file)
        self.exact: dict[str, str] = {}
        self.prefixes: list[tuple[str, str]] = []
        self.matched: dict[str, str] = {}  # the brain's paths found left alone, and their kinds
        for path, why in scan.skipped:
            kind = kind_of(why)
            if kind == IGNORED:
                continue
            self.exact[path.rstrip("/")] = report_kind(why)
            self.prefixes.append((path.rstrip("/") + "/", report_kind(why)))

    def get(self, path: str, default=None):
        kind = self.exact.get(path)
        if kind is None:
            kind = next((k for pre, k in self.prefixes if path.startswith(pre)), None)
        if kind is None:
            return default
        self.matched[path] = kind
        return kind

    def __contains__(self, path: str) -> bool:
        return self.get(path) is not None

    def __bool__(self) -> bool:
        return bool(self.exact or self.prefixes)


def verify_tree(brain: Brain, scan: Scan, on_progress=None, *, deep: bool = False, sample: int | None = None, check_db: bool = False) -> dict:
    """:func:`_verify_tree`, reading the tree's files through no symlinked folder (``blobs.confined``)."""
    with blobs.confined(scan.root):
        return _verify_tree(brain, scan, on_progress, deep=deep, sample=sample, check_db=check_db)


def _verify_tree(brain: Brain, scan: Scan, on_progress=None, *, deep: bool = False, sample: int | None = None, check_db: bool = False) -> dict:
    """``gbrain verify DIR``: hash every file of the tree and compare it with the content hash
    stored for its path (a changed, missing or extra file is a mismatch), then re-parse pages
    drawn at random from their stored text (:func:`sample_budget`'s characters of it, or
    ``sample`` pages) and compare every derived view with the stored rows (raw rows with the
    page's sidecar), and the text with the hash stored when the rows were derived
    (:func:`derived_check`).
    Also runs SQLite's ``quick_check`` on the file (once per process, :meth:`Brain.check_sound`):
    damage inside an index or a derived row is found even where no sampled read touches it; it
    runs on a connection of its own beside the hashing (:meth:`Brain.start_check`), and a big
    tree's large files are hashed in threads beside the database side (:class:`TreeHashes`).
    Unless ``check_db``: a file exactly as a passing check left it (same inode, size, mtime,
    ctime of the file and its WAL; or as an import of the process that checked it left it:
    ``Brain.record_writes``) within :func:`trust_check_hours` is not read again, and the report
    says when it passed (``database_file``). Costs about reading and hashing the tree, plus
    reading the database file once when it checks it. Writes nothing.

    ``deep``: also check the database file (:func:`db_integrity`), re-render and re-hash every
    stored page instead of reading its stored hash, and re-parse every page (the cost of an
    import). Raises :class:`~gbrain.errors.Damaged` when SQLite finds the file damaged."""
    import sqlite3

    from ..errors import Damaged
    from ..storage.db import one_line, recovery_advice

    def damaged() -> None:
        if not deep:
            brain.finish_check(raise_=False)  # waits for the check begun beside (none: vouched)
        if brain.damaged:
            raise Damaged(f"{brain.path} is damaged ({one_line(brain.damaged)}); {recovery_advice(brain.path)}")

    sqlite_file = getattr(brain.conn, "dialect", "sqlite") == "sqlite"
    if not deep:
        # SQLite's quick_check, once per process (issue 11: verify checks the file), on a
        # connection of its own beside the hashing (it releases the GIL); its answer is awaited
        # before the report is given, and a damaged file still fails the command; a fresh record
        # of a passing check of the file as it is stands for it (the lead's decision, issue 14)
        hours = 0.0 if check_db or not sqlite_file else trust_check_hours(brain)
        brain.start_check(trust_record=hours > 0, max_age_s=hours * 3600)
        if brain.damaged:
            damaged()
    else:
        bad = db_integrity(brain)
        if bad:
            raise Damaged(f"{brain.path} is damaged ({one_line(bad[0])}); {recovery_advice(brain.path)}")
    job = TreeHashes(scan, on_progress)
    errors: list[tuple[str, str]] = []

    left_alone = _LeftAlone(scan)

    def hashes() -> dict[str, str]:
        nonlocal errors
        got, errors = job.result()
        left_alone.exact.update((p, UNREADABLE) for p, _e in errors)
        return got

    if sample is None and not scan.sizes:
        job.hash_here()  # a scan without sizes (scan_tree(sizes=False)): the reads give the budget
    try:
        rep = report(brain, scan, hashes, deep=deep, sample=sample, budget=None if sample is not None else sample_budget(scan, job.read_sizes),
                     left_alone=left_alone)
    except sqlite3.DatabaseError as e:
        job.cancel()
        damaged()
        raise Damaged(f"{brain.path} is damaged ({one_line(e)}); {recovery_advice(brain.path)}") from e
    finally:
        job.cancel()
    damaged()
    if sqlite_file:
        if brain.vouched and not brain._checked:
            rec = brain.vouched_record or {}
            rep["database_file"] = {"checked": "record", "passed_at": _utc(rec.get("at", 0)), "by": rec.get("by", "check")}
        else:
            rep["database_file"] = {"checked": "now", "check": "integrity_check" if deep else "quick_check"}
    if errors:
        rep["ok"] = False
        rep["problems"].append(f"{len(errors)} file(s) could not be read")
        rep["read_errors"] = [{"path": p, "error": e} for p, e in errors[:MAX_LISTED]]
    # the brain's notes verify could not see in the folder (in a folder it cannot list, a FIFO
    # where a note was): not compared, so no OK (as sync, which leaves them alone with exit 1);
    # a symlink is the user's choice, left alone with no failure (as import and sync)
    from .scan import SYMLINK

    failed = {p for p, _e in errors}
    unseen = sorted(p for p, k in left_alone.matched.items() if k != SYMLINK and p not in failed)
    if unseen:
        rep["ok"] = False
        rep["problems"].append(f"{len(unseen)} path(s) the brain holds could not be read in the folder and were not compared: "
                               + ", ".join(unseen[:5]) + (", …" if len(unseen) > 5 else ""))
    return rep
