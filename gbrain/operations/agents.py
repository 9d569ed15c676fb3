"""Operations for agents: ``ingest`` (CLI ``gbrain ingest FILE``, MCP ``brain_ingest``).

Registered in :data:`gbrain.operations.REGISTRY` like every other operation, so the CLI command,
``gbrain call``, ``gbrain pipe``, ``--tools-json`` and the MCP tool all come from the one
definition below.
"""
from __future__ import annotations

import datetime as _dt
import functools
import json
import re
import sys
from pathlib import Path

from ..core.brain import Brain, render_row
from ..page.markdown import BOM, Page, edit_frontmatter, parse_page
from ..page.slugs import loose_key
from ..errors import BadInput, GBrainError
from .registry import obj, Context, Param, op

SOURCE_TYPES = ["meeting", "article", "doc", "conversation"]
MAX_SLUG_NAME = 60  # characters of the slugified title kept in a source slug


@functools.lru_cache(maxsize=1)
def _parsed(content: str) -> Page:
    """The source text ``content`` parsed, once per ingest (:func:`_ingest` clears it): its title,
    the old rule's title, its date and its page text all read this one parse (never edited)."""
    return parse_page(content, "")


def _title_of(content: str, file: str | None) -> str:
    """A source's title, from its text first so that the same text gets the same title (and slug)
    on every surface: frontmatter ``title``, else the first ``# heading`` (a level-1 heading
    anywhere in the text, not in code), else the first non-blank line below the frontmatter
    block (without leading ``#``/``>``/``-``, at most 120 characters), else the file's stem, else
    ``source``. A frontmatter block that never closes is text: its heading still titles it."""
    page = _parsed(content)
    if page.title:
        return page.title
    if page.first_h1:
        return page.first_h1[:120]
    return _first_line(page.compiled_truth + page.separator + page.timeline, file)


def _first_line(text: str, file: str | None) -> str:
    for line in text.splitlines():
        s = line.strip().lstrip("#>-* ").strip()
        if s and s != "---":
            return s[:120]
    if file and file != "-":
        return Path(file).stem
    return "source"


def _title_before(content: str, file: str | None) -> str:
    """The title ingest gave a source before 2026-12-03: frontmatter ``title`` or an opening H1,
    else the first non-blank line of the whole text, a frontmatter line too ("date: 2026-12-02").
    Only to find the pages it named so (:func:`_ingest`): their slugs stay."""
    page = _parsed(content)
    return page.title or _first_line(content, file)


def _today() -> str:
    """Today's date (UTC), ``YYYY-MM-DD``: the ``ingested`` date."""
    return _dt.datetime.now(_dt.timezone.utc).date().isoformat()


def _date_of(page_fm: dict) -> tuple[str, str | None]:
    """The date in a source page's slug, ``YYYY-MM-DD``, and a warning (or None): the source's
    frontmatter ``date`` when it is an ISO date or a timestamp that starts with one
    (``2026-11-29T15:00:00Z``, ``2026-11-29 15:00``: the date as written, no time zone
    conversion); else today (UTC), with a warning when ``date`` is there but no date."""
    d = page_fm.get("date")
    if d is None or d == "":
        return _today(), None
    if isinstance(d, _dt.date):  # a loader that gives dates (datetime is a date too)
        return d.isoformat()[:10], None
    m = re.match(r"(\d{4}-\d{2}-\d{2})(?:$|[Tt ]\d)", d.strip()) if isinstance(d, str) else None
    if m:
        try:
            return _dt.date.fromisoformat(m.group(1)).isoformat(), None
        except ValueError:
            pass
    today = _today()
    return today, f"the source's date {str(d)[:40]!r} is no date (YYYY-MM-DD, or a timestamp that starts with one); its slug takes today's date, {today}"


def source_page_text(content: str, *, title: str, source_type: str, source_ref: str, ingested: str) -> tuple[str, list[str]]:
    """The page text a source is stored as, and warnings.

    The source's own bytes stay untouched below a frontmatter block that records ``title``,
    ``type: source``, ``source_type``, ``source_ref`` and ``ingested`` (the day it was ingested,
    ``YYYY-MM-DD``). When the source already has frontmatter, only the missing keys are added
    to it (its own keys win; its ``date`` stays the document's date).
    """
    page = _parsed(content)
    meta = {"title": title, "type": "source", "source_type": source_type, "source_ref": source_ref, "ingested": ingested}
    warnings: list[str] = []
    if page.frontmatter_raw and not page.frontmatter_error:
        missing = {k: v for k, v in meta.items() if k not in page.frontmatter}
        return (edit_frontmatter(page, missing) if missing else content), warnings
    if page.frontmatter_error:
        warnings.append(f"the source's frontmatter does not load ({page.frontmatter_error}); kept as body text")
    bom = content.startswith(BOM)
    bare = Page(bom=bom, frontmatter_raw="", compiled_truth=content[1:] if bom else content, separator="", timeline="")
    return edit_frontmatter(bare, meta), warnings


def _read_source(file: str) -> str:
    try:
        data = sys.stdin.buffer.read() if file == "-" else Path(file).expanduser().read_bytes()
    except IsADirectoryError as e:
        raise BadInput(f"{file} is a directory; ingest takes one file") from e
    except OSError as e:
        raise BadInput(f"cannot read {file}: {e.strerror}") from e
    kind = next((what for magic, what in _BINARY_MAGIC if data.startswith(magic)), None)
    if kind is not None:  # a PDF may well be UTF-8 (a page titled '%PDF-1.4' holding its syntax)
        raise BadInput(f"{file} is {kind}, not text: ingest stores a source's text (extract it first, e.g. `pdftotext FILE -`, "
                       "and ingest that); keep the file itself in your folder, where `gbrain import`/`sync` store it byte for byte")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise BadInput(f"{file} is not valid UTF-8 text (byte {e.start})") from e


#: how the files ingest refuses begin: (magic bytes, what the file is)
_BINARY_MAGIC = ((b"%PDF-", "a PDF"), (b"\x89PNG\r\n\x1a\n", "an image"), (b"\xff\xd8\xff", "an image"), (b"GIF87a", "an image"),
                 (b"GIF89a", "an image"), (b"PK\x03\x04", "a zip archive"))


def _sources_with_ref(b: Brain, source_ref: str) -> list:
    """The rows of the pages under ``sources/`` whose frontmatter ``source_ref`` is ``source_ref``,
    oldest first (normally one: a ref names one source; older versions of ingest made one a day).
    Found through the index of the sources' refs (``storage/db.py: source_ref_sql``, v20), not
    by reading every source page: the ref must equal the frontmatter value as text (a number's
    digits, as written; a ``true`` or a list is no ref)."""
    from ..storage.db import source_ref_sql

    rows = b.conn.execute(f"SELECT slug, frontmatter FROM pages WHERE slug LIKE 'sources/%' AND {source_ref_sql(b.conn)} = ? ORDER BY id", (source_ref,)).fetchall()
    out = []
    for r in rows:
        try:
            ref = json.loads(r["frontmatter"] or "{}").get("source_ref")
        except (ValueError, AttributeError):
            continue
        if ref is not None and str(ref) == source_ref:
            out.append(b.page_row(r["slug"]))
    return out


def _page_ref(row) -> str | None:
    ref = parse_page(render_row(row), row["path"]).frontmatter.get("source_ref")
    return None if ref is None else str(ref)


def _made_from(row, text: str, content: str, *, title: str, source_type: str, source_ref: str) -> bool:
    """Is the stored page ``row`` the page this source makes: ``text`` itself, or the same source
    ingested on another day (the page's own ``ingested``) with ``source_ref``?"""
    old = render_row(row)
    if old == text:
        return True
    prev = parse_page(old, row["path"]).frontmatter.get("ingested")
    if not isinstance(prev, str):
        return False
    return old == source_page_text(content, title=title, source_type=source_type, source_ref=source_ref, ingested=prev)[0]


@op(
    "ingest",
    "Store a source document (transcript, article, conversation) as page sources/<date>-<title>: its text byte for byte "
    "under a frontmatter of title, type: source, source_type, source_ref, ingested (today, UTC); its own frontmatter kept. "
    "The same source_ref (else text) finds the same page again; a changed text updates it. Then update the pages it mentions.",
    [
        Param("file", positional=True, path=True, in_schema=False, description="the source file to ingest (- reads standard input)"),
        Param("content", cli=False, tool_required=True, description="the source text (markdown or plain text)"),
        Param("source_type", description="kind of source", default="doc", enum=SOURCE_TYPES, flag="type"),
        Param("source_ref", description="where it came from: meeting id, URL, file path (default: the file path); names the one page of this source", flag="ref"),
    ],
    db="create",
    title="Ingest a source",
    details="A document with its own frontmatter keeps it and gets only the keys it lacks. The date is its frontmatter `date` "
    "(the date part of a timestamp), else today, with a warning when `date` is no date; the title is the frontmatter title, else the first heading, else the first line. The source_ref defaults to the "
    "file's path; the same text again writes nothing, and a changed text's old text stays in the page's history. A write also "
    "logs a row in the ingest log (logged: true; the table ingest_log, not the vault's log.md).",
    output=obj("slug", slug="string", path="string", title="string?", source_type="string", source_ref="string", created="boolean", changed="boolean", content_hash="string", logged="boolean", warnings="array"),
    text=lambda r, a: r["slug"],  # warnings go to stderr, so `slug=$(gbrain ingest …)` gets the slug alone
    mutating=True,
)
def _ingest(b: Brain, a: dict, ctx: Context) -> dict:
    """Store a source as a page and log it. The identity of a source: its ``source_ref`` (given,
    or the file's path) names one page under ``sources/`` whatever the day, so the same text again
    writes nothing and a changed text updates that page (its old text kept in the history); with
    no ref, the same text finds the page it made (same title and date, any ref, any ``ingested``
    day). Only a write logs an ``ingest_log`` row (``logged``)."""
    try:
        return _ingest_source(b, a, ctx)
    finally:
        _parsed.cache_clear()  # the source's parse serves this call only


def _ingest_source(b: Brain, a: dict, ctx: Context) -> dict:
    content, file = a.get("content"), a.get("file")
    if content is not None and file is not None:
        raise BadInput("give either a FILE or content, not both")
    if content is None:
        if file is None:
            raise BadInput("nothing to ingest: give content (MCP/call) or a FILE (CLI)")
        content = _read_source(file)
    if "\x00" in content:
        raise BadInput("the source contains a NUL byte; ingest text only")
    if not content.strip():
        raise BadInput("the source is empty")
    source_type = a.get("source_type") or "doc"
    source_ref = a.get("source_ref") or (str(Path(file).expanduser().resolve()) if file and file != "-" else "")
    title = _title_of(content, file)
    date, date_warning = _date_of(_parsed(content).frontmatter)
    text, warnings = source_page_text(content, title=title, source_type=source_type, source_ref=source_ref, ingested=_today())
    warnings = ([date_warning] if date_warning else []) + warnings
    # the titles this text may have been stored under: today's rule, then the rule before
    # 2026-12-03 (a YAML line): a page made so is found under its own name, never made twice
    titles = [title] + [t for t in [_title_before(content, file)] if t != title]

    def base_of(t: str) -> str:
        return f"sources/{date}-" + (loose_key(t)[:MAX_SLUG_NAME].strip("-") or "source")

    def made(row, ref: str) -> str | None:
        """The title under which ``row`` is this source's page (None: it is not)."""
        for t in titles:
            mine = text if t == title else source_page_text(content, title=t, source_type=source_type, source_ref=ref, ingested=_today())[0]
            if _made_from(row, mine, content, title=t, source_type=source_type, source_ref=ref):
                return t
        return None

    def scan(base: str) -> tuple:
        """(the page this source made at ``base`` or ``base-N``, its title) or (None, the first free name)."""
        for n in range(1, 1000):
            name = base if n == 1 else f"{base}-{n}"
            row = b.page_row(name)
            if row is None:
                return None, name
            ref = _page_ref(row)
            if source_ref and ref not in (None, "", source_ref):
                continue  # another source with this title and date
            t = made(row, source_ref if ref is None else ref)
            if t is not None:
                return row, t
        raise GBrainError(f"too many sources named {base}")  # pragma: no cover - a thousand sources with one title on one day

    def found(row, t: str) -> dict:
        return {"slug": row["slug"], "path": row["path"], "title": t, "source_type": source_type, "source_ref": source_ref, "created": False, "changed": False,
                "content_hash": row["content_hash"], "logged": False, "warnings": warnings}

    with b.transaction():
        slug = None
        if source_ref:
            mine = _sources_with_ref(b, source_ref)
            for row in mine:
                t = made(row, source_ref)
                if t is not None:
                    return found(row, t)
            if mine:  # the source changed: its page (the oldest, if older ingests made several) gets the new text
                slug = mine[0]["slug"]
        if slug is None:
            row, t = scan(base_of(title))
            if row is not None:
                return found(row, t)
            slug = t
            for old in titles[1:]:
                row, t = scan(base_of(old))
                if row is not None:
                    return found(row, t)
        res = b.put(slug, text)
        b.log_ingest(source_type, source_ref, [slug], title)
    for w in warnings + res.warnings:
        if ctx.on_warning:
            ctx.on_warning(w)
    return {"slug": slug, "path": res.path, "title": title, "source_type": source_type, "source_ref": source_ref, "created": res.created, "changed": res.changed,
            "content_hash": res.content_hash, "logged": True, "warnings": warnings + res.warnings}
